"""np.searchsorted over lanes that switch between sorted and unsorted stretches: blocks of
values bisected side by side without branches, and values searched from the last answer,
must give NumPy's insertion points for every value (passes/kernelize/sort.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def _table(rng, n, dtype, dup):
    t = rng.integers(-20, 20, n) if dup else rng.standard_normal(n) * 10
    t = np.sort(t.astype(dtype))
    if dtype.kind == "f" and n > 2 and rng.random() < 0.3:
        t[-1] = np.nan  # NaN sorts last
        t[0] = -0.0 if rng.random() < 0.5 else t[0]
    return t


def _values(rng, m, dtype, table):
    """Runs that are sorted, reversed, random, constant and taken from the table itself."""
    pieces, left = [], m
    while left > 0:
        k = int(min(left, rng.integers(1, 40)))
        kind = rng.integers(0, 5)
        v = rng.standard_normal(k) * 12
        if kind == 0:
            v = np.sort(v)
        elif kind == 1:
            v = np.sort(v)[::-1]
        elif kind == 2 and table.size:
            v = rng.choice(table, k)
        elif kind == 3:
            v = np.full(k, v[0])
        pieces.append(v)
        left -= k
    v = np.concatenate(pieces) if pieces else np.zeros(0)
    if dtype.kind == "f" and m:
        v[rng.random(m) < 0.05] = np.nan
    return v.astype(dtype) if dtype.kind == "f" else np.round(v).astype(dtype)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 70), m=st.integers(0, 90), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from(["f8", "f4", "i8"]), side=st.sampled_from(["left", "right"]),
       dup=st.booleans())
def test_insertion_points_match_numpy(n, m, seed, dtype, side, dup):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    a = _table(rng, n, dtype, dup)
    v = _values(rng, m, dtype, a)

    def f(a, v):
        return np.searchsorted(a, v, side)
    np.testing.assert_array_equal(jc.jit(f)(a, v), f(a, v))


@pytest.mark.parametrize("order", ["random", "sorted", "alternating"])
def test_rows_of_values(order):
    """A lane per row: each row's blocks start over from the row's own first value."""
    rng = np.random.default_rng(3)
    a = np.sort(rng.standard_normal(33))
    v = rng.standard_normal((5, 61))
    if order == "sorted":
        v = np.sort(v, axis=1)
    elif order == "alternating":
        v[::2] = np.sort(v[::2], axis=1)

    def f(a, v):
        return np.searchsorted(a, v, "right"), np.digitize(v, a)
    for g, w in zip(jc.jit(f)(a, v), f(a, v)):
        np.testing.assert_array_equal(g, w)
