"""Which results share memory, under jit as in NumPy: a copy is a new array even when the
compiled function computes it as its operand (``a.copy()``, ``a + 0``); a view (``swapaxes``,
``expand_dims``, ...) writes through to its base; a function that returns its argument returns
the caller's array. Written as user code, checked against NumPy and with ``np.shares_memory``."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.layouts import WRITABLE_LAYOUTS, relayout


def run_both(fn, *args):
    """(NumPy's results, NumPy's arguments after, jit's results, jit's arguments after), each
    side on its own copies of ``args``."""
    plain = [a.copy() for a in args]
    jitted = [a.copy() for a in args]
    return fn(*plain), plain, jc.jit(fn)(*jitted), jitted


def assert_same(fn, *args):
    """Results and arguments after the call equal NumPy's: values, dtypes, scalar or array."""
    want, want_args, got, got_args = run_both(fn, *args)
    want, got = (x if isinstance(x, tuple) else (x,) for x in (want, got))
    for w, g in zip([*want, *want_args], [*got, *got_args]):
        assert type(g) is type(w), f"{type(g).__name__} where NumPy gives {type(w).__name__}"
        if w is not None:
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    assert len(got) == len(want)


# Results that NumPy computes as new arrays, and that jitcore may compute as the operand itself.
COPIES = {
    "a.copy()": lambda a: a.copy(),
    "a + 0": lambda a: a + 0,
    "a * 1": lambda a: a * 1,
    "np.maximum(a, a)": lambda a: np.maximum(a, a),
    "a.astype(a.dtype)": lambda a: a.astype(a.dtype),
    "np.where(a > 0, a, a)": lambda a: np.where(a > 0, a, a),
    "a.flatten()": lambda a: a.flatten(),
    "+a": lambda a: +a,
    "a ** 1": lambda a: a ** 1,
    "np.concatenate([a])": lambda a: np.concatenate([a]),
    "np.hstack([a])": lambda a: np.hstack([a]),
    "np.cumsum(a, axis=0)": lambda a: np.cumsum(a, axis=0),  # an axis of length 1: no sums
    "np.cumprod(a, axis=0)": lambda a: np.cumprod(a, axis=0),
    "np.pad(a, 0)": lambda a: np.pad(a, 0),
}


def _row():
    return np.array([[1, 2, 3]], np.int64)


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_of_an_argument_is_a_new_array(name):
    copy = COPIES[name]
    f = jc.jit(copy)
    a = _row()
    for _ in range(2):  # the first call and the cached one
        out = f(a)
        assert not np.shares_memory(out, a)
        np.testing.assert_array_equal(out, copy(a))
        out[...] = 0  # the caller owns what it gets back
        np.testing.assert_array_equal(a, _row())


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_keeps_the_value_it_had_before_the_argument_is_written(name):
    copy = COPIES[name]

    def f(a):
        v = copy(a)
        a += 1
        return v

    assert_same(f, _row())


@pytest.mark.parametrize("name", COPIES)
def test_a_write_to_a_copy_leaves_the_argument_alone(name):
    copy = COPIES[name]

    def f(a):
        v = copy(a)
        v[...] = 9
        return a, v

    assert_same(f, _row())


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_a_copy_of_an_argument_in_any_layout(layout):
    a = relayout(np.arange(6.0).reshape(2, 3), layout)
    out = jc.jit(lambda a: a.copy())(a)
    assert not np.shares_memory(out, a)
    np.testing.assert_array_equal(out, a)


def test_two_copies_of_one_value_are_two_arrays():
    def f(a):
        v = a * 2
        return v, v.copy(), v + 0

    v, w, u = jc.jit(f)(np.arange(3.0))
    assert not np.shares_memory(v, w) and not np.shares_memory(v, u) and not np.shares_memory(w, u)
    assert_same(f, np.arange(3.0))


def test_one_array_returned_twice_is_one_array():
    def f(a):
        v = a * 2
        return v, v

    v, w = jc.jit(f)(np.arange(3.0))
    assert v is w  # as in NumPy


# -- the caller's arrays ------------------------------------------------------------------------

@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_returning_an_argument_returns_the_callers_array(layout):
    f = jc.jit(lambda a, b: (a, b + 1, a))
    a = relayout(np.arange(6.0).reshape(2, 3), layout)
    for _ in range(2):
        x, _, y = f(a, np.ones(3))
        assert x is a and y is a


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_an_argument_written_and_returned_is_the_callers_array(layout):
    def f(a):
        a += 1
        return a

    g = jc.jit(f)
    a = relayout(np.arange(6.0).reshape(2, 3), layout)
    expected = a + 1
    for _ in range(2):
        out = g(a)
        assert out is a  # NumPy's a += 1 writes a, and f returns a itself
        np.testing.assert_array_equal(a, expected)
        expected += 1


def test_arguments_swapped_through_a_copy():
    def swap(a, b):
        t = a.copy()
        a[...] = b
        b[...] = t

    assert_same(swap, np.arange(3.0), np.arange(3.0) + 10)


def test_an_argument_set_from_another_and_returned():
    def f(a, b):
        a[...] = b
        return a

    a, b = np.zeros(3), np.arange(3.0)
    out = jc.jit(f)(a, b)
    assert out is a and not np.shares_memory(out, b)
    assert_same(f, np.zeros(3), np.arange(3.0))


# -- views ----------------------------------------------------------------------------------

VIEWS = {
    "np.swapaxes(a, 0, 1)": lambda a: np.swapaxes(a, 0, 1),
    "a.swapaxes(1, 0)": lambda a: a.swapaxes(1, 0),
    "np.moveaxis(a, 0, -1)": lambda a: np.moveaxis(a, 0, -1),
    "np.squeeze(a[None])": lambda a: np.squeeze(a[None]),
    "a[None].squeeze(0)": lambda a: a[None].squeeze(0),
    "np.expand_dims(a, 0)": lambda a: np.expand_dims(a, 0),
    "np.expand_dims(a, (0, 3))": lambda a: np.expand_dims(a, (0, 3)),
    "a.T": lambda a: a.T,
    "a.reshape(6)": lambda a: a.reshape(6),
    "a[:, ::-1]": lambda a: a[:, ::-1],
}


@pytest.mark.parametrize("name", VIEWS)
def test_a_write_through_a_view_reaches_its_base(name):
    view = VIEWS[name]

    def f(a):
        v = view(a)
        v += 1
        v[(0,) * v.ndim] = -5
        return a

    assert_same(f, np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("name", VIEWS)
def test_a_view_sees_a_later_write_to_its_base(name):
    view = VIEWS[name]

    def f(a):
        v = view(a)
        a[0] *= 3
        return v

    assert_same(f, np.arange(6).reshape(2, 3))


def test_views_of_views():
    def f(a):
        v = np.expand_dims(np.swapaxes(a, 0, 1), 1)
        w = np.squeeze(v, 1)
        w[1:] = 0
        return a, v

    assert_same(f, np.arange(6.0).reshape(2, 3))
