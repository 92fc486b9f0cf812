"""A view of an array of the function's own, picked by a traced condition (``v = a[0] if c
else a[1] * 2``, the same under a traced ``if``, or an item of a list written at a traced
position), stays a view of it on the path that picked it: a later write to the array shows
through the view, and a write through the view reaches the array, as in Python. Before
session 54 only the caller's arrays kept that link; the function's own gave the value from
before the write."""

from __future__ import annotations

import numpy as np
import pytest

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


@pytest.mark.xfail(strict=True, reason="a view chosen between two arrays of the function's own holds "
                   "the value chosen: later writes to either array do not show through it "
                   "(docs/control-flow.md, round 54)")
def test_a_view_chosen_between_two_local_arrays_sees_their_writes():
    jitted = jit_once(_two_arrays)
    for c in (1, -1):
        x = np.arange(9.0).reshape(3, 3)
        np.testing.assert_array_equal(jitted(x.copy(), c), _two_arrays(x.copy(), c))
