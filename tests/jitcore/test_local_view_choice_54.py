"""A view of an array of the function's own, picked by a traced condition (``v = a[0] if c
else a[1] * 2``, the same under a traced ``if``, or an item of a list written at a traced
position), stays a view of it on the path that picked it: a later write to the array shows
through the view, and a write through the view reaches the array, as in Python. Before
session 54 only the caller's arrays kept that link; the function's own gave the value from
before the write."""

from __future__ import annotations

import numpy as np
import pytest

from jitcore.errors import UnsupportedError
from tests.jit_once import jit_once


def _expression(x, c):
    a = x * 1.0
    v = a[0] if c > 0 else a[1] * 2
    a[0, 0] = 100.0
    return v + 0.0


def _statement(x, c):
    a = x * 1.0
    if c > 0:
        v = a[0]
    else:
        v = a[1] * 2
    a[0, 0] = 100.0
    return v + 0.0


def _write_through(x, c):
    a = x * 1.0
    v = a[0] if c > 0 else a[1] * 2
    v[1] = -7.0
    return a


def _list_item(x, c):
    d = [x[0], x[1], x[2]]
    d[c] = d[c] * 2.0
    x[0, 0] = 100.0
    return d[0] + 0.0, d[1] + 0.0, x


def _two_arrays(x, c):
    a = x * 1.0
    b = x * 2.0
    v = a[0] if c > 0 else b[1]
    a[0, 0] = 100.0
    b[1, 0] = -5.0
    return v + 0.0


@pytest.mark.parametrize("f", [_expression, _statement, _write_through, _list_item])
def test_a_chosen_view_of_a_local_array_sees_its_writes(f):
    jitted = jit_once(f)
    for c in (1, -1, 0, 2):
        x = np.arange(9.0).reshape(3, 3)
        want, got = f(x.copy(), c), jitted(x.copy(), c)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        assert len(want) == len(got)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)


# Session 55: a choice between two arrays (the function's own, the caller's, or one of each)
# reads both and writes the one chosen; nested choices refuse a write they cannot follow.
def _two_statement(x, c):
    a = x * 1.0
    b = x * 2.0
    if c > 0:
        v = b[1]
    else:
        v = a.T[0]
    v += 3.0
    a[0, 1] = 100.0
    b[1, 2] = -5.0
    return v + 0.0, a, b


def _whole_arrays(x, c):
    a = x * 1.0
    b = x * 2.0
    v = a if c > 0 else b
    v[2, 0] = 55.0
    a[0, 0] = 100.0
    return v + 0.0, b


def _caller_and_local(x, c):
    a = x * 2.0
    v = x if c > 0 else a[::-1]
    x[0, 0] = 100.0
    a[2, 1] = -5.0
    v[1, 1] = 9.0
    return v + 0.0, a, x


def _written_in_a_loop(x, c, n):
    a = x * 1.0
    b = x * 2.0
    v = a[0] if c > 0 else b[1]
    for i in range(n):
        b[1, i] = -float(i)
        v[i] += 1.0
    return v + 0.0, a, b


def _nested_unwritten(x, c):
    a = x * 1.0
    b = x * 2.0
    d = x * 3.0
    v = a[0] if c > 0 else (b[1] if c < 0 else d[2])
    a[0, 0] = 100.0
    return v + 0.0


@pytest.mark.parametrize(
    "f",
    [_two_arrays, _two_statement, _whole_arrays, _caller_and_local, _written_in_a_loop, _nested_unwritten],
)
def test_a_view_chosen_between_two_arrays_sees_their_writes(f):
    jitted = jit_once(f)
    for c in (1, -1, 0):
        x = np.arange(9.0).reshape(3, 3)
        extra = (3,) if f is _written_in_a_loop else ()
        x_np, x_jc = x.copy(), x.copy()
        want, got = f(x_np, c, *extra), jitted(x_jc, c, *extra)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(x_jc, x_np)


def test_the_caller_array_chosen_comes_back_itself():
    def f(x, y, c):
        b = x * 2.0
        return (x if c > 0 else y), (b if c > 0 else x)

    jitted = jit_once(f)
    x, y = np.ones(3), np.zeros(3)
    for c in (1, -1):
        first, second = jitted(x, y, c)
        assert (first is x) == (c > 0) and (first is y) == (c <= 0)
        assert (second is x) == (c <= 0)
        np.testing.assert_array_equal(second, x * 2.0 if c > 0 else x)


def _nested_written(x, c):
    a = x * 1.0
    b = x * 2.0
    d = x * 3.0
    if c > 0:
        v = a[0]
    elif c < 0:
        v = b[1]
    else:
        v = d[2]
    d[2, 2] = 7.0
    return v + 0.0


def test_a_write_to_an_array_that_nested_choices_picked_is_refused():
    with pytest.raises(UnsupportedError, match="nested traced conditions.*cannot follow"):
        jit_once(_nested_written)(np.ones((3, 3)), 1)
