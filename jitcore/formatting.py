"""Traced values formatted into text by the user's code (``f"loss {loss:.4f}"``), the text filled
in when the compiled function runs.

While tracing, a value has no data: formatting it gave ``Traced<f64[]>`` (or, with a format
spec, an error), so ``print(f"step {i}: {loss:.3f}")`` printed that once, at compile time, and
``raise ValueError(f"negative at {i}")`` named no index. Now ``format`` of a traced value in the
user's code gives a *placeholder*: its index in the trace's list of formatted values and spec,
around the value's repr, between private-use characters. What prints the text or raises it
from compiled code (``print``, ``raises``) passes those values to its callback and fills each
placeholder in with ``format(value, spec)`` at each call. A placeholder anywhere else (text the
function returns) is refused; jitcore's own messages format values as before.

Such text is a ``TracedText`` (``jitcore/traced_text.py``): what Python's str operations would
do with its placeholders is either joined as text (``+``, ``join``, an f-string around it) or
a ``TextOp``, a placeholder of its own that makes the text from its inputs' filled-in text at
each call (``s.rjust(8)``, ``f"{s:>8}"``), or refused.
"""

from __future__ import annotations

import contextlib
import re
import threading

from jitcore.errors import ConcretizationError, JitTypeError, UnsupportedError
from jitcore.kind_conversion import convert_by_tag

_OPEN, _MID, _CLOSE = "\ue000", "\ue001", "\ue002"
REPR = "!r"  # the spec that stands for repr(value) (no format spec can be it)
STR = "!s"  # str(value): a float32's shortest digits, where format(value, "") gives float64's
_PYTHON = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_MID}[^{_CLOSE}]*{_CLOSE}")


_users_text = threading.local()


@contextlib.contextmanager
def users_text():
    """Text made for the user's ``print`` by jitcore's own frame (``str([obj, x])``, whose
    items' ``repr`` Python calls from C): traced values in it become placeholders, as in the
    user's own code."""
    before = getattr(_users_text, "on", False)
    _users_text.on = True
    try:
        yield
    finally:
        _users_text.on = before


def for_user(filename: str, is_user_file) -> bool:
    """Whether a traced value formatted from a frame of ``filename`` gives a placeholder."""
    return getattr(_users_text, "on", False) or is_user_file(filename)


@contextlib.contextmanager
def unconverted(name: str | None):
    """While ``name``, a function whose source Python cannot give, is traced as is: its
    ``print`` is Python's, run once while tracing, so a traced value it formats is refused
    (its placeholder would be printed as it is)."""
    before = getattr(_users_text, "unconverted", None)
    _users_text.unconverted = name
    try:
        yield
    finally:
        _users_text.unconverted = before


def placeholder(tracer, spec: str) -> str:
    """The text that stands for ``format(tracer, spec)`` until the compiled code runs."""
    name = getattr(_users_text, "unconverted", None)
    if name is not None:
        raise UnsupportedError(
            f"{name}() formats a traced value ({tracer.description()}), but Python could not give "
            "jitcore this function's source (a function made by exec() or typed at 'python -'), so "
            "its print and f-strings run once, while compiling, without the values. Define the "
            "function in a file (a module or a script), or print with jitcore.debug_print")
    if holds(spec):
        raise ConcretizationError(
            f"the format spec {shown(spec)!r} of a traced value ({tracer.description()}) is made "
            "from a traced value; a spec (a width, a precision) needs its characters while "
            "compiling. Give the width as a number of the function's own (f\"{x:>{w}}\" with an int w)")
    formatted = tracer.owner_trace.formatted
    formatted.append((tracer, spec))
    return f"{_OPEN}{len(formatted) - 1}{_MID}{tracer.description()}{_CLOSE}"


class TextOp:
    """A placeholder's text made at each call from the filled-in ``texts`` (and the value of
    the traced value it stands for, if any: a traced choice's condition): ``apply(filled, value)``."""

    __slots__ = ("texts", "apply")

    def __init__(self, texts, apply):
        self.texts, self.apply = tuple(texts), apply


def deferred(trace, op: TextOp, tracer=None) -> str:
    """The placeholder of text ``op`` makes at each call (``tracer``: the value it needs)."""
    trace.formatted.append((tracer, op))
    return f"{_OPEN}{len(trace.formatted) - 1}{_MID}text{_CLOSE}"


def python_type(value):
    """The Python number type a traced Python number (weak, 0-d) stands for, else None."""
    weak = getattr(value, "weak", False) and not getattr(value, "ndim", 1)
    return _PYTHON.get(value.dtype.kind) if weak else None


def holds(value) -> bool:
    """Whether ``value`` is text holding a placeholder."""
    # (str's own test: a TracedText refuses ``in`` of the user's)
    return isinstance(value, str) and str.__contains__(value, _OPEN)


def _reached(texts, trace, seen: dict) -> dict:
    """The placeholders ``texts`` hold, and those the text operations among them read."""
    for text in texts:
        if holds(text):
            for match in _PLACEHOLDER.finditer(text):
                index = int(match.group(1))
                if index not in seen:
                    seen[index] = None
                    spec = trace.formatted[index][1]
                    if isinstance(spec, TextOp):
                        _reached(spec.texts, trace, seen)
    return seen


def values_in(texts, trace) -> list:
    """The traced values whose placeholders ``texts`` hold (or the text operations among them
    read), in order of first appearance."""
    return [(i, trace.formatted[i]) for i in _reached(texts, trace, {}) if trace.formatted[i][0] is not None]


def filler(texts, trace):
    """``(tracers, fill)``: the traced values ``texts`` format, to pass to a callback, and
    ``fill(text, values)``, the text with their run-time ``values`` formatted in."""
    found = values_in(texts, trace)
    position = {index: k for k, (index, _) in enumerate(found)}
    specs = [spec for _, (_, spec) in found]
    # a Python number (float(v), a counter) shows as one: 0.5, not np.float64(0.5)
    python = [python_type(t) for _, (t, _) in found]
    # a value whose type the data chose (type_choice.py): its tag, passed after the values
    chosen = [getattr(t, "type_choice", None) for _, (t, _) in found]
    tag_at = {k: len(found) + j for j, k in enumerate(k for k, c in enumerate(chosen) if c is not None)}

    def fill(text, values):
        if not holds(text):
            return text

        def value_of(k):
            value = values[k]
            value = value[()] if getattr(value, "ndim", None) == 0 else value
            if chosen[k] is not None:
                return convert_by_tag(value, chosen[k][1], values[tag_at[k]])
            return python[k](value) if python[k] is not None else value

        def one(match):
            index = int(match.group(1))
            op = trace.formatted[index][1]
            if isinstance(op, TextOp):  # s.rjust(8): made from its inputs' text at this call
                value = value_of(position[index]) if index in position else None
                return op.apply([fill(t, values) for t in op.texts], value)
            k = position[index]
            value = value_of(k)
            if specs[k] == REPR:
                return repr(value)
            return str(value) if specs[k] == STR else format(value, specs[k])

        return _PLACEHOLDER.sub(one, text)

    return [tracer for _, (tracer, _) in found] + [c[0] for c in chosen if c is not None], fill


def shown(text) -> str:
    """``text`` as jitcore's messages show it: ``{...}`` for each placeholder."""
    return _PLACEHOLDER.sub("{...}", text)


def refusal(text, where: str) -> ConcretizationError | JitTypeError | None:
    """For text holding a placeholder that no callback will fill in (it is needed while
    compiling), the error to raise; else None."""
    if not holds(text):
        return None
    trace = getattr(text, "_trace", None)  # (a TracedText's: does it hold a traced choice?)
    entries = [trace.formatted[i] for i in _reached([text], trace, {})] if trace is not None else []
    if any(isinstance(op, TextOp) and tracer is not None for tracer, op in entries):
        return JitTypeError(
            f"the text {shown(text)!r}, {where}, is a str chosen by traced data ('a' if x > 0 "
            "else 'b'): a string chosen by traced data cannot be computed by compiled code, "
            "which computes numbers, not text. Compute a code (a bool or int: ok = err < tol), "
            "return it, and choose the text outside the jitted function ('converged' if ok "
            "else 'failed'); printed in the function, the text picked is printed at each call")
    return ConcretizationError(
        f"the text {shown(text)!r} formats a traced value and is {where}, where it is needed while "
        "compiling; a traced value has no data then. Print it (print(f\"...\") prints at each "
        "call), raise it, or return the value itself and format it outside the function.")

