"""Cuts at a loop's index whose result has a static length (session 55, u2 S1): the leave-one-out
``np.concatenate([x[:i], x[i + 1:]])``, ``np.delete(x, i)``, ``np.insert(x, i, v)`` compile as
one loop (they unrolled: a jackknife over 1,000 points took two minutes to compile), and
``np.add``/``np.insert`` in a loop's body are no change to a Python object (their method-like
names ran the loop unrolled). NumPy running the same Python is the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.jit_once import jit_once


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, np.ndarray):
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


def cuts(x, rows, k):
    """Every form at once, so one compile covers them: ``x`` 1-d float64, ``rows`` int32 of
    ``x``'s length and 3 columns."""
    n = x.shape[0]
    med = np.zeros(n)
    sums = np.zeros(n)
    mixed = np.zeros((n, n))
    deleted = np.zeros((n, n - 1))
    inserted = np.zeros((n, n + 1))
    row_cut = np.zeros((n, rows.shape[0] - 1, rows.shape[1]), rows.dtype)
    col_cut = np.zeros((n, rows.shape[0], rows.shape[1] - 1), rows.dtype)
    row_put = np.zeros((n, rows.shape[0] + 1, rows.shape[1]), rows.dtype)
    shifted = np.zeros(n)
    for i in range(n):
        med[i] = np.median(np.concatenate([x[:i], x[i + 1 :]]))
        sums[i] = np.concatenate((x[i + 1 :], x[:i])).sum()  # (the pieces the other way round)
        mixed[i] = np.concatenate([x[i + 1 :], [k], x[:i]])
        deleted[i] = np.delete(x, i)
        inserted[i] = np.insert(x, i, -1.5)
        row_cut[i] = np.concatenate([rows[:i], rows[i + 1 :]])
        col_cut[i] = np.delete(rows, i % rows.shape[1], axis=1)  # (a traced int, not a form)
        row_put[i] = np.insert(rows, i, 7, axis=0)
        shifted[i] = np.add(x, i).sum()
    return med, sums, mixed, deleted, inserted, row_cut, col_cut, row_put, shifted


@pytest.mark.parametrize("n", [1, 70])
def test_cuts_at_a_loop_index_match_numpy(n):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    x[::3] = np.round(x[::3])  # ties for the medians
    rows = rng.integers(-9, 9, size=(n, 3), dtype=np.int32)
    f = jit_once(cuts)
    for got, want in zip(f(x, rows, 2.5), cuts(x, rows, 2.5)):
        same(got, want)


def test_cuts_compile_as_one_loop():
    x = np.arange(100.0)
    rows = np.arange(300, dtype=np.int32).reshape(100, 3)
    text = str(jc.make_ir(cuts)(x, rows, 2.5))
    assert text.count('"scf.for"') == 1 and text.count('"array.sort"') <= 2, text.count("scf.for")


def delete_insert(x, i, j):
    return np.delete(x, i), np.insert(x, j, [8, 9]), np.delete(x.reshape(2, -1), i, axis=1)


@pytest.mark.parametrize("i, j", [(0, 0), (5, 6), (-1, -6), (-6, 3), (6, 0), (0, 7), (-7, 0), (0, -7)])
def test_traced_index_bounds_as_numpy(i, j):
    # NumPy's IndexError (its words) where the index is out of bounds, from the call
    x = np.arange(6.0)
    f = jit_once(delete_insert)
    try:
        want = delete_insert(x, i, j)
    except IndexError as e:
        with pytest.raises(IndexError) as got:
            f(x, i, j)
        assert str(got.value).split("\n")[0] == str(e), (str(got.value), str(e))
        return
    for a, b in zip(f(x, i, j), want):
        same(a, b)


def moving(x):
    """Lengths that move with the index: the old path (the loop unrolls), NumPy's values."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.concatenate([x[:i], x[:i]]).sum()
    return out


def test_a_total_that_moves_with_the_index_stays_right():
    x = np.arange(5.0)
    same(jit_once(moving)(x), moving(x))
