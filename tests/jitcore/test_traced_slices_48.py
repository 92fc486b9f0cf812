"""Slices whose bounds come from the data (session 48): ``dp[w[i]:] = np.maximum(dp[w[i]:],
dp[:W + 1 - w[i]] + v[i])``, one-point crossover ``children[k, c:] = parents[k + 1, c:]``, the
2-opt move ``new[i:j + 1] = tour[i:j + 1][::-1]`` with i, j read from an array. Each is a masked
update over the whole target that reads the operands shifted (or mirrored) onto the target's
positions, its bounds clamped as NumPy clamps them, and lengths checked when the call runs.
NumPy running the same Python is the oracle (values, dtypes, arguments after the call, errors)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError, UnsupportedError
from tests.jit_once import jit_once


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def outcome(f, *args):
    """``(result, error type, error text)`` of ``f(*args)`` (the arguments copied first)."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), None, None, args
    except ValueError as e:
        return None, ValueError, str(e), args


def check(f, *args, exact=True, **jit_kwargs):
    """(``exact=False``: NumPy's ``y[a:b] += v`` names its out= operand's shape too, which the
    traced ``+`` does not see: the messages then agree up to the shapes.)"""
    want, want_err, want_text, want_args = outcome(f, *args)
    got, got_err, got_text, got_args = outcome(jit_once(f, **jit_kwargs), *args)
    if not exact and want_err is not None:
        want_text, got_text = want_text.split(" with")[0], got_text.split(" with")[0]
    assert got_err is want_err and got_text == want_text, (got_text, want_text)
    if want_err is None:
        same(got, want)
    for a, b in zip(got_args, want_args):
        if isinstance(b, np.ndarray):
            same(a, b)


# -- the three programs -------------------------------------------------------------------------
def knapsack_1d(w, v, W):
    dp = np.zeros(W + 1)
    for i in range(w.shape[0]):
        dp[w[i]:] = np.maximum(dp[w[i]:], dp[:W + 1 - w[i]] + v[i])
    return dp


def crossover(parents, cuts):
    children = parents.copy()
    for k in range(0, parents.shape[0] - 1, 2):
        c = cuts[k]
        children[k, c:] = parents[k + 1, c:]
        children[k + 1, c:] = parents[k, c:]
    return children


def two_opt_move(tour, ij):
    i, j = ij[0], ij[1]
    new = tour.copy()
    new[i:j + 1] = tour[i:j + 1][::-1]
    return new


def test_knapsack_1d_right_side_read_before_the_write():
    # 0/1 knapsack: dp[:W + 1 - w] is read before dp[w:] is written (each item once)
    check(knapsack_1d, np.array([3, 4, 2, 5]), np.array([4.0, 5.0, 3.0, 7.0]), 10, static_argnums=2)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.integers(0, 20)), min_size=1, max_size=8))
def test_knapsack_1d_matches_numpy(items):
    w = np.array([a for a, _ in items], dtype=np.int64)
    v = np.array([b for _, b in items], dtype=np.float64)
    check(knapsack_1d, w, v, 12, static_argnums=2)


def test_knapsack_item_heavier_than_capacity_raises_numpys_error():
    # w = 14 > W = 12: dp[14:] is empty, dp[:-1] is not: NumPy's broadcast error, when called
    check(knapsack_1d, np.array([3, 14]), np.array([1.0, 2.0]), 12, static_argnums=2)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-8, 10), min_size=6, max_size=6), st.integers(0, 2))
def test_crossover_matches_numpy(cuts, dtype):
    dtype = (np.float64, np.int32, np.float32)[dtype]
    parents = (np.arange(36) * 7 % 11).reshape(6, 6).astype(dtype)
    check(crossover, parents, np.array(cuts))


@settings(max_examples=40, deadline=None)
@given(st.integers(-12, 12), st.integers(-12, 12), st.sampled_from([0, 1, 2, 9]))
def test_two_opt_move_matches_numpy(i, j, n):
    check(two_opt_move, np.arange(n, dtype=np.int64) * 3 % 7, np.array([i, j]))


# -- general shifts, in place and by operators --------------------------------------------------
def shifted_add(x, b):
    y = x.copy()
    y[b[0]:b[1]] += x[b[2]:b[3]] * 2
    return y


def shifted_product_sum(x, b):
    return (x[b[0]:b[1]] * x[b[2]:b[3]]).sum()


def write_into_argument(x, b):
    x[b[0]:b[1]] = x[b[2]:b[3]][::-1] - 1.0
    return x.sum()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-10, 10), min_size=4, max_size=4))
def test_shifted_writes_match_numpy(b):
    x = np.linspace(-1.0, 3.0, 7)
    if len(range(7)[b[0]:b[1]]) == 1 and len(range(7)[b[2]:b[3]]) != 1:
        with pytest.raises(UnsupportedError, match="length 1 broadcast"):
            jit_once(shifted_add)(x, np.array(b))  # (NumPy: a ValueError, or an empty y[a:b] + v)
    else:
        check(shifted_add, x, np.array(b), exact=False)
    check(write_into_argument, x, np.array(b))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-10, 10), min_size=4, max_size=4))
def test_shifted_products_match_numpy(b):
    x = np.linspace(-1.0, 3.0, 7)
    if len(range(7)[b[0]:b[1]]) == 1 and len(range(7)[b[2]:b[3]]) != 1:
        with pytest.raises(UnsupportedError, match="length 1 broadcast"):
            jit_once(shifted_product_sum)(x, np.array(b))
        return
    check(shifted_product_sum, x, np.array(b))


def test_length_mismatch_raises_numpys_value_error():
    def assign(x, b):
        y = x.copy()
        y[b[0]:b[1]] = x[b[2]:b[3]]
        return y
    check(shifted_add, np.arange(8.0), np.array([1, 5, 0, 3]), exact=False)
    check(assign, np.arange(8.0), np.array([1, 5, 0, 3]))
    with pytest.raises(ValueError, match=r"input array from shape \(3,\) into shape \(4,\)"):
        jc.jit(assign)(np.arange(8.0), np.array([1, 5, 0, 3]))
    check(assign, np.arange(8.0), np.array([1, 5, 6, 7]))  # a length-1 value broadcasts


def test_narrow_int_bounds_do_not_wrap():
    check(two_opt_move, np.arange(200.0), np.array([-120, 100], dtype=np.int8))


def test_stepped_slice_of_data_bound_still_refused():
    def f(x, b):
        y = x.copy()
        y[b[0]::2] = 0.0
        return y
    with pytest.raises(JitcoreError):
        jc.jit(f)(np.arange(6.0), np.array([1]))


def test_shape_of_data_bound_slice_still_refused():
    def f(x, b):
        return x[b[0]:].shape[0]
    with pytest.raises(JitcoreError, match="slice whose bound is a traced index"):
        jc.jit(f)(np.arange(6.0), np.array([1]))


def test_returned_data_bound_slice_compiles_once():
    # an int argument as a bound: no longer made static (one compile per value), one program
    def rolling_mean(x, w):
        c = np.cumsum(np.insert(x, 0, 0.0))
        return (c[w:] - c[:-w]) / w
    f = jc.jit(rolling_mean)
    x = np.linspace(0.0, 1.0, 12)
    for w in (1, 3, 5, 12, 13, -2):
        check(rolling_mean, x, w)
        same(f(x, w), rolling_mean(x, w))
    assert f.cache_info().traces == 1
    check(rolling_mean, x, 0)  # c[0:] and c[:0]: NumPy's ValueError, when called


def write_array(x, b):
    y = x.copy()
    y[b[0]:b[1]] = np.arange(3.0) * 10
    return y


def write_empty(x, b):
    y = x.copy()
    y[b[0]:b[1]] = np.zeros(0, dtype=np.int32)
    return y


def write_rows(x, b):
    y = x.copy()
    y[b[0]:b[1]] = np.array([[1.0, 2.0], [3.0, 4.0]])
    return y


@settings(max_examples=30, deadline=None)
@given(st.integers(-9, 9), st.integers(-9, 9))
def test_array_of_static_length_written_into_data_bound_slice(i, j):
    check(write_array, np.arange(6.0), np.array([i, j]))
    check(write_empty, np.arange(6.0), np.array([i, j]))
    check(write_rows, np.arange(12.0).reshape(6, 2), np.array([i, j]))


def test_broadcast_rows_into_data_bound_slice_still_refused():
    def f(x, b):
        y = x.copy()
        y[b[0]:b[1]] = np.array([[1.0], [2.0]])
        return y
    with pytest.raises(JitcoreError, match=r"assigning an array of shape \(2, 1\)"):
        jc.jit(f)(np.zeros((6, 2)), np.array([0, 2]))
