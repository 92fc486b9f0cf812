"""A short Python list of numbers written at a traced position (``free[k] = b``,
``counts[int(v) % 4] += 1``; session 46, h5 3.3): each item becomes the value where the
position names it, so the list keeps its length and its items' Python types, against plain
Python+NumPy (values, item types, errors, the caller's list after the call)."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError


def free_slots(x):
    free = [0.0, 0.0, 0.0]
    for i in range(x.shape[0]):
        k = int(x[i]) % 3
        free[k] = free[k] + 1.5
    return free


def counts_by_class(x):
    counts = [0] * 4
    for v in x:
        counts[int(v) % 4] += 1
    return counts


def negative_positions(x):
    last = [0.0, 0.0]
    for i in range(x.shape[0]):
        last[-1 - int(x[i] > 0)] = float(x[i])
    return last


def numpy_scalars(x):
    best = [x[0], x[0]]
    best[int(np.argmax(x)) % 2] = x.max()
    return best


def written_argument(x, out):
    out[int(np.argmin(x))] += 10
    return len(out)


@pytest.mark.parametrize("fn", [free_slots, counts_by_class, negative_positions, numpy_scalars],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [np.arange(20.0), np.array([3.0, -1.0, 7.0, 2.0, -5.0]),
                               np.array([1.0])], ids=["ramp", "mixed", "one"])
def test_list_writes_at_traced_positions_match_python(fn, x):
    want, got = fn(x), jc.jit(fn)(x)
    assert type(got) is list and len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w) and g == w, (got, want)


def test_the_callers_list_is_written():
    x = np.array([4.0, 1.0, 9.0])
    mine, theirs = [1, 2, 3], [1, 2, 3]
    assert jc.jit(written_argument)(x, mine) == written_argument(x, theirs)
    assert mine == theirs and all(type(v) is int for v in mine)


def test_a_position_past_the_end_raises_pythons_error():
    def f(x):
        slots = [0.0, 0.0]
        slots[int(x[0])] = 1.0
        return slots

    with pytest.raises(IndexError, match="list assignment index out of range"):
        f(np.array([2.0]))
    with pytest.raises(IndexError, match="list assignment index out of range"):
        jc.jit(f)(np.array([2.0]))
    assert jc.jit(f)(np.array([-2.0])) == f(np.array([-2.0]))


@pytest.mark.parametrize("items, value", [([0, 0.5], 1.0), ([0.0] * 100, 1.0), ([0.0, 0.0], 1)],
                         ids=["mixed-items", "long", "int-into-floats"])
def test_other_lists_are_refused_with_advice(items, value):
    def f(x):
        lst = list(items)
        lst[int(x[0])] = value
        return lst

    with pytest.raises(UnsupportedError, match="array"):
        jc.jit(f)(np.array([1.0]))
