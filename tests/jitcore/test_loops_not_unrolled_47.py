"""Session 47: long list comprehensions compiled as one loop (not unrolled per element), np.arange
of a static length at a traced start, and the compile-time warning naming why a loop unrolled.
Differential: each jitted result against the same function run by plain Python + NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.autograph.statements import UNROLL_LIMIT

SIZES = (UNROLL_LIMIT // 2, UNROLL_LIMIT + 37)


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert type(g) is type(w) or (np.ndim(w) == 0 and isinstance(g, np.generic))
            np.testing.assert_allclose(g, w, rtol=1e-12, equal_nan=True)
        return
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


def check(f, *args, static=()):
    want = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = jc.jit(f, static_argnums=static, cache=False)(*copies)
    same(got, want)
    for a, c in zip(args, copies):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, c)
    return got


def ops(f, *args, static=()):
    return len(str(jc.make_ir(f, static_argnums=static)(*args)).splitlines())


def spi(pr, k):
    n = pr.size
    acc = np.array([pr[i - k + 1:i + 1].sum() if i >= k - 1 else np.nan for i in range(n)])
    return (acc - np.nanmean(acc)) / np.nanstd(acc)


def window_means(x, w):
    return np.asarray([x[i:i + w].mean() for i in range(x.size - w)])


def row_norms(X):
    return np.stack([np.sqrt(row @ row) for row in X])


def rows_times(X):
    return np.array([2.0 * row + 1 for row in X])


def summed(x):
    return np.sum([x[i] * i for i in range(x.size)])


def meaned(x):
    return np.mean([x[i] ** 2 for i in range(len(x))])


def as_list(x):
    out = [x[i] + 1.0 for i in range(x.size)]
    return out


def list_of_rows(X):
    return [row * 2 for row in X]


@pytest.mark.parametrize("n", SIZES)
def test_spi_comprehension(n):
    pr = np.random.default_rng(n).gamma(2.0, 3.0, n)
    check(spi, pr, 5, static=(1,))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("f", [summed, meaned, as_list])
def test_range_comprehensions(f, n):
    check(f, np.random.default_rng(n).normal(size=n))


@pytest.mark.parametrize("n", SIZES)
def test_window_means(n):
    check(window_means, np.random.default_rng(n).normal(size=n), 4, static=(1,))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("f", [row_norms, rows_times, list_of_rows])
def test_row_comprehensions(f, n):
    check(f, np.random.default_rng(n).normal(size=(n, 3)))


def test_int_items_keep_numpy_dtype():
    def f(x):
        return np.array([i * 2 for i in range(x.size)]) + x.astype(np.int64)
    check(f, np.arange(200))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 3 * UNROLL_LIMIT), k=st.integers(1, 8), seed=st.integers(0, 99))
def test_spi_by_hypothesis(n, k, seed):
    pr = np.random.default_rng(seed).gamma(2.0, 3.0, n)

    def f(pr, k):
        return np.array([pr[i - k + 1:i + 1].sum() if i >= k - 1 else np.nan for i in range(pr.size)])
    check(f, pr, k, static=(1,))


@pytest.mark.parametrize("f,shape,static,extra", [
    (spi, None, (1,), (30,)),
    (window_means, None, (1,), (4,)),
    (row_norms, 3, (), ()),
    (summed, None, (), ()),
])
def test_op_count_does_not_grow_with_n(f, shape, static, extra):
    def arg(n):
        return np.ones(n if shape is None else (n, shape))
    assert ops(f, arg(500), *extra, static=static) == ops(f, arg(50), *extra, static=static)


def test_items_of_other_shapes_still_unrolled():
    def f(x):
        return [x[:i].sum() + x[:i].size for i in range(x.size)]
    got = check(f, np.arange(float(UNROLL_LIMIT + 5)))
    assert isinstance(got, list)
