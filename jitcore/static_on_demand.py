"""Static on demand: an argument that decides what is compiled becomes static when a trace needs it.

Plain NumPy code does not say which of its arguments are sizes: ``np.zeros(n)``,
``c[w:] - c[:-w]``, ``x.reshape(n, -1)``, ``np.convolve(x, k, mode)``. JAX refuses them until
the caller lists ``static_argnames``; jitcore finds them. An error that a static argument
would avoid is marked with those arguments (``static_would_fix``): a concretization, a
conversion to a NumPy array, a traced loop that calls ``list.append`` or a seed, of values that
come from arguments (``tracer.needs_static``), or an argument that is no array or number and
cannot change (``static_kind``: a string, a function, a class, a dtype, an enum). Where each is
a parameter the call passed by position or name and its value is hashable (a number, a tuple
of numbers; never an array), ``jit`` makes it static, as if listed in ``static_argnames``, and
traces again: each new value then compiles once, and the native call matches it by value. A
later call that passes an array for it traces it again (the error then is the trace's), and
one whose retrace fails leaves it traced. ``jitcore.config.auto_static = False`` restores
JAX's error. Inlined into another trace, a jitted function gets Python values as themselves.

A value from an array's data is never made static (it has no value while tracing). What a
static argument costs is a compile per value, so a ``StaticOnDemandWarning`` says so once one
has taken ``WARN_AFTER_VALUES`` values.
"""

from __future__ import annotations

import enum
import inspect
import re
import traceback
import types
import warnings

import numpy as np

from jitcore import call_memo, config, tracebacks
from jitcore.compile_time import user_stacklevel
from jitcore.errors import JitcoreError, StaticOnDemandWarning

# Compiles for this many values of one argument made static: warn that each value compiles.
WARN_AFTER_VALUES = 8
# Strings (a mode), functions and ufuncs (what to apply), classes and dtypes (np.float32), enum
# members. (A tuple of numbers, a shape, may become static too: ``to_promote`` asks its hash.)
_STATIC_KINDS = (str, bytes, type, np.dtype, enum.Enum, types.FunctionType, types.BuiltinFunctionType,
                 np.ufunc)
_BY_ITSELF = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
              inspect.Parameter.KEYWORD_ONLY)


def to_promote(error: BaseException, signature: inspect.Signature | None, static_names,
               args, kwargs) -> frozenset[str]:
    """The parameters ``error`` asks to be static, or nothing when any of them cannot be: not
    a parameter of its own (``*args``' items, a container's leaf), not passed by this call,
    not hashable, already static (then the error has another cause)."""
    paths = getattr(error, "static_would_fix", frozenset())
    names = frozenset(re.match(r"\w*", path).group() for path in paths)  # xs[1], p.n: xs, p
    if not names or not config.auto_static or signature is None or names & static_names:
        return frozenset()
    try:
        bound = signature.bind(*args, **kwargs).arguments
    except TypeError:
        return frozenset()
    var_keyword = next((p.name for p in signature.parameters.values() if p.kind is p.VAR_KEYWORD), None)
    for name in names:
        parameter = signature.parameters.get(name)
        if parameter is None and var_keyword is not None and name in bound.get(var_keyword, {}):
            value = bound[var_keyword][name]  # a keyword **kwargs takes: static by its name
        elif parameter is None or parameter.kind not in _BY_ITSELF or name not in bound:
            return frozenset()
        else:
            value = bound[name]
        try:  # an array or a dict is not hashable: it cannot be static (a list of numbers is)
            hash(call_memo.exactly(value))
        except TypeError:
            return frozenset()
    return names


def python_value(value) -> bool:
    """A Python number (not NumPy's: np.float64 is a float) or a ``static_kind`` value: what a
    jitted function returns as it is, and an inlined one gets as it is."""
    return type(value) in (bool, int, float, complex) or static_kind(value)


def static_kind(value) -> bool:
    """Whether ``value``, no array or number, may become static on demand: a value that cannot
    change behind the cache's back. A mutable object, hashed by its identity, would keep the
    attributes it had at its first call; it stays an error naming ``static_argnames``."""
    return isinstance(value, _STATIC_KINDS)


class OnDemand:
    """The arguments of one jitted function made static on demand, and the values each has
    compiled for, to warn once when one has taken many (a per-call quantity made static
    compiles on every call)."""

    def __init__(self):
        self.names: frozenset[str] = frozenset()
        self.values: dict[str, set] = {}
        self.warned = False
        self.warned_float = False

    def promoting(self, function_name: str, names, signature, args, kwargs, error) -> None:
        """Warn at once, and once, where a float argument is made static: a float rarely takes
        a value twice (an end time, a tolerance), so each call would compile again; the error
        that asked for its value says what would compile once (an iteration guard for a while
        loop that appends to a list)."""
        if self.warned_float or signature is None:
            return
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:
            return
        floats = sorted(n for n in names if isinstance(bound.get(n), (float, np.floating)))
        if not floats:
            return
        self.warned_float = True
        why = str(error).splitlines()[0].rstrip(".")
        warnings.warn(StaticOnDemandWarning(
            f"{function_name}(): argument {floats[0]}, a float ({bound[floats[0]]!r}), became static "
            f"because the trace needed its value, so each new value compiles again: {why}."),
            stacklevel=user_stacklevel())

    def set_names(self, names) -> None:
        self.names = frozenset(names)
        self.values = {name: self.values.get(name, set()) for name in self.names}

    def compiled(self, function_name: str, values: dict) -> None:
        """Note one compile's ``values`` of the arguments made static (name: the key's form)."""
        for name, seen in self.values.items():
            if name in values:
                seen.add(values[name])
                if len(seen) == WARN_AFTER_VALUES and not self.warned:
                    self.warned = True
                    warnings.warn(StaticOnDemandWarning(
                        f"{function_name}(): argument {name} became static because the trace needed "
                        f"its value (a shape, a slice bound, a count, a string), and has now compiled "
                        f"for {WARN_AFTER_VALUES} values, one compile each. If it takes a new value "
                        "on most calls, pass what depends on it another way: an array whose shape "
                        "carries it (sizes never recompile), or a mask in place of a slice "
                        "bound."), stacklevel=user_stacklevel())


def explained(error: Exception, cause: JitcoreError) -> Exception:
    """The error to raise for ``error``, which the trace raised after the arguments ``cause``
    asked for were made static. An error of the user's own code (``"no" * 3.0``) is Python's,
    as without jit, with a note saying what was made static and why; one from inside jitcore
    (a string handed to NumPy's functions as an array) is ``cause`` itself, jitcore's error
    naming the argument, with that error noted under it."""
    names = ", ".join(sorted(cause.static_would_fix_names))
    first = str(cause).splitlines()[0]
    if isinstance(error, JitcoreError) or not _raised_in_jitcore(error):
        note = f"(jitcore made {names} static on demand, since: {first})"
        if note not in getattr(error, "__notes__", ()):
            error.add_note(note)
        return error
    cause.add_note(f"(made static, {names} then failed inside jitcore: {type(error).__name__}: {error})")
    return cause


def _raised_in_jitcore(error: BaseException) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and tracebacks.is_own(frames[-1].filename)


def hashable_advice(values) -> str:
    """What to pass instead of an unhashable static argument: a list or dict as a tuple."""
    kinds = {type(v) for v in values}
    if kinds & {list, set, dict}:
        return (": pass a list as a tuple (tuple(ops)), a set as a frozenset, a dict as a tuple "
                "of (key, value) pairs; a jitted function compiles once for each value of them")
    return ""
