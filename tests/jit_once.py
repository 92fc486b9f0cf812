"""One ``jit`` per module-level function within a test, shared by the test's examples.

A hypothesis test whose examples differ in their values, not in their signature, traced,
optimised and emitted the function again for every example when its helper called
``jc.jit(f)`` anew each time (the compiled code came back from the disk cache or the code memo,
but the front end ran again: 50 ms an example). ``jit_once(f)`` hands back the same
``JitFunction`` for the rest of the test, so the examples after the first run the compiled code
through the call path a user's second call takes, as a user's jitted function does. A function
made inside a test (``<locals>`` in its qualified name) is jitted anew every time, and the store
is emptied before each test (tests/conftest.py), so no test reuses code that another compiled
under thresholds it patched.
"""

from __future__ import annotations

import jitcore as jc

_JITTED: dict = {}


def jit_once(fn, **jit_kwargs):
    """``jc.jit(fn, **jit_kwargs)``, the same one for the rest of the test."""
    if "<locals>" in getattr(fn, "__qualname__", "<locals>"):
        return jc.jit(fn, **jit_kwargs)
    try:
        key = (fn, tuple(sorted(jit_kwargs.items())))
        hash(key)
    except TypeError:  # unhashable options: no sharing
        return jc.jit(fn, **jit_kwargs)
    if key not in _JITTED:
        _JITTED[key] = jc.jit(fn, **jit_kwargs)
    return _JITTED[key]


def forget() -> None:
    """Empty the store (before each test)."""
    _JITTED.clear()
