"""A parameter's default array (``def f(x, w=np.ones(3))``) is one object for every call: NumPy
code sees it changed in place between calls, and a write to it in the function stays for the
next call (Python's mutable default). jitcore reads it on each call as it reads a global array
(jitcore.calltime's ``DefaultRead``), and a traced write to it, or to a global under a local
name, reaches the array (autograph's ``_writable``). JAX freezes such a default into its trace;
jitcore follows NumPy, since NumPy's is the behaviour its users' code was written against."""

from __future__ import annotations

import numpy as np

import jitcore as jc


def _fresh(fn):
    """``fn`` with default arrays of its own (each test's calls start from the same state)."""
    copy = type(fn)(fn.__code__, fn.__globals__, fn.__name__, None, fn.__closure__)
    copy.__defaults__ = tuple(d.copy() if isinstance(d, np.ndarray) else d for d in fn.__defaults__ or ())
    copy.__kwdefaults__ = {k: v.copy() for k, v in (fn.__kwdefaults__ or {}).items()} or None
    return copy


def weighted(x, w=np.ones(3), *, b=np.zeros(3)):  # noqa: B008  (the pattern under test)
    return x * w + b


def prefix(x, n=np.array([3])):  # noqa: B008  (the pattern under test)
    return x[:n[0]]  # the default decides a shape: a change compiles anew


def accumulate_in_loop(x, acc=np.zeros(3)):  # noqa: B008  (the pattern under test)
    for i in range(3):
        acc[i] += x[i]
    return acc.copy()


def accumulate(x, acc=np.zeros(3)):  # noqa: B008  (the pattern under test)
    acc[0] = x[0]
    acc[1:] += x[1:]
    return acc * 2


def test_default_arrays_changed_between_calls_are_read_on_each_call():
    mine, numpys = _fresh(weighted), _fresh(weighted)
    jitted = jc.jit(mine)
    x = np.arange(3.0)
    for change in (lambda f: None, lambda f: f.__defaults__[0].__setitem__(slice(None), 5.0),
                   lambda f: f.__kwdefaults__["b"].__setitem__(1, -2.0),
                   lambda f: setattr(f, "__defaults__", (np.full(3, 7.0),))):
        change(mine)
        change(numpys)
        np.testing.assert_array_equal(jitted(x), numpys(x), strict=True)


def test_a_default_that_decides_a_shape_compiles_anew_when_it_changes():
    mine, numpys = _fresh(prefix), _fresh(prefix)
    jitted = jc.jit(mine)
    x = np.arange(5.0)
    np.testing.assert_array_equal(jitted(x), numpys(x), strict=True)
    mine.__defaults__[0][0] = numpys.__defaults__[0][0] = 2
    np.testing.assert_array_equal(jitted(x), numpys(x), strict=True)


def test_writes_to_a_default_array_stay_for_the_next_call_as_in_numpy():
    for fn in (accumulate_in_loop, accumulate):
        mine, numpys = _fresh(fn), _fresh(fn)
        jitted = jc.jit(mine)
        x = np.arange(1.0, 4.0)
        for _ in range(3):
            np.testing.assert_array_equal(jitted(x), numpys(x), strict=True)
            np.testing.assert_array_equal(mine.__defaults__[0], numpys.__defaults__[0], strict=True)


GLOBAL_STATE = np.zeros(3)


def _write_through_a_local_name(x):
    state = GLOBAL_STATE
    state[1] = x[1]
    return state.sum()


def test_a_global_written_under_a_local_name_is_written():
    jitted = jc.jit(_write_through_a_local_name)
    GLOBAL_STATE[:] = 0
    got = [jitted(np.array([1.0, 2.0, 3.0])), jitted(np.array([0.0, 4.0, 0.0]))]
    assert got == [2.0, 4.0]
    np.testing.assert_array_equal(GLOBAL_STATE, [0.0, 4.0, 0.0])
