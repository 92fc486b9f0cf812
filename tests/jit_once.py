"""One ``jit`` per function within a test, shared by the test's examples.

A hypothesis test whose examples differ in their values, not in their signature, traced,
optimised and emitted the function again for every example when its helper called
``jc.jit(f)`` anew each time (the compiled code came back from the disk cache or the code memo,
but the front end ran again: 50 ms an example). ``jit_once(f)`` hands back the same
``JitFunction`` for the rest of the test, so the examples after the first run the compiled code
through the call path a user's second call takes, as a user's jitted function does.

A module-level function is keyed by itself. A function made inside a test (a lambda or ``def``
in the test's body, made anew for every example) is keyed by its code object, and only where
nothing but its code decides what it does: no closure cells, no defaults, the same globals
(session 53: test_inside_arrays.py's lambdas compiled 1,204 times for 349 distinct modules). One
that closes over a value or has defaults is jitted anew every time. The store is emptied before
each test (tests/conftest.py), so no test reuses code that another compiled under thresholds it
patched.
"""

from __future__ import annotations

import jitcore as jc

_JITTED: dict = {}


def _identity(fn):
    """What decides ``fn``'s behaviour, hashable; None where it cannot be shared."""
    if "<locals>" not in getattr(fn, "__qualname__", "<locals>"):
        return fn
    code = getattr(fn, "__code__", None)
    if code is None or fn.__closure__ or fn.__defaults__ or fn.__kwdefaults__:
        return None
    return (code, id(fn.__globals__))


def jit_once(fn, **jit_kwargs):
    """``jc.jit(fn, **jit_kwargs)``, the same one for the rest of the test."""
    identity = _identity(fn)
    if identity is None:
        return jc.jit(fn, **jit_kwargs)
    try:
        key = (identity, tuple(sorted(jit_kwargs.items())))
        hash(key)
    except TypeError:  # unhashable options: no sharing
        return jc.jit(fn, **jit_kwargs)
    if key not in _JITTED:
        _JITTED[key] = jc.jit(fn, **jit_kwargs)
    return _JITTED[key]


def forget() -> None:
    """Empty the store (before each test)."""
    _JITTED.clear()
