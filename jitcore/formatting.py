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
"""

from __future__ import annotations

import contextlib
import re
import threading

from jitcore.errors import ConcretizationError, UnsupportedError
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
    formatted = tracer.owner_trace.formatted
    formatted.append((tracer, spec))
    return f"{_OPEN}{len(formatted) - 1}{_MID}{tracer.description()}{_CLOSE}"


def python_type(value):
    """The Python number type a traced Python number (weak, 0-d) stands for, else None."""
    weak = getattr(value, "weak", False) and not getattr(value, "ndim", 1)
    return _PYTHON.get(value.dtype.kind) if weak else None


def holds(value) -> bool:
    """Whether ``value`` is text holding a placeholder."""
    return isinstance(value, str) and _OPEN in value


def values_in(texts, trace) -> list:
    """The traced values whose placeholders ``texts`` hold, in order of first appearance."""
    indices = dict.fromkeys(int(m.group(1)) for t in texts if holds(t) for m in _PLACEHOLDER.finditer(t))
    return [(i, trace.formatted[i]) for i in indices]


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

        def one(match):
            k = position[int(match.group(1))]
            value = values[k]
            value = value[()] if getattr(value, "ndim", None) == 0 else value
            if chosen[k] is not None:
                value = convert_by_tag(value, chosen[k][1], values[tag_at[k]])
            elif python[k] is not None:
                value = python[k](value)
            if specs[k] == REPR:
                return repr(value)
            return str(value) if specs[k] == STR else format(value, specs[k])

        return _PLACEHOLDER.sub(one, text)

    return [tracer for _, (tracer, _) in found] + [c[0] for c in chosen if c is not None], fill


def refusal(text, where: str) -> ConcretizationError | None:
    """For text holding a placeholder that no callback will fill in (it is needed while
    compiling), the error to raise; else None."""
    if not holds(text):
        return None
    shown = _PLACEHOLDER.sub(lambda m: "{...}", text)
    return ConcretizationError(
        f"the text {shown!r} formats a traced value and is {where}, where it is needed while "
        "compiling; a traced value has no data then. Print it (print(f\"...\") prints at each "
        "call), raise it, or return the value itself and format it outside the function.")

