"""Slices at a loop index, session 46: slices of equal traced length at different offsets
(``np.dot(xc[:-k], xc[k:])``, ``v[:n - lag] * v[lag:]``, ``out[:n - k] = x[k:]``), argmin and
argmax of a slice of traced length (``i + np.argmin(a[i:])``), and windows of static length at a
traced start of unknown bounds (``img[p[0]:p[0] + s, p[1]:p[1] + s]``, an int argument), checked
when the function runs. NumPy running the same Python is the oracle (values, dtypes, Python
types, arguments after the call, errors); the loops must stay loops (``scf.for``: the sizes
here are past the unrolling limit of 64 steps)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError
from tests.jit_once import jit_once


def traced(f, *args):
    return jc.jit(f).lower(*args).as_text("traced")


def same(got, want, tol=None):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    # float32 sums: NumPy's pairwise order, not the loop's
    tol = tol or (1e-5 if np.result_type(want) == np.float32 else 1e-12)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


# -- equal lengths at different offsets ---------------------------------------------------------
def autocorrelation_time(xc, maxlag):
    n = xc.shape[0]
    t = 1.0
    for k in range(1, maxlag):
        r = np.dot(xc[:-k], xc[k:]) / n
        if r < 0.05:
            break
        t += 2 * r
    return t


def velocity_autocorrelation(v, nlag):
    nt = v.shape[0]
    out = np.zeros(nlag)
    for lag in range(nlag):
        out[lag] = np.mean(v[:nt - lag] * v[lag:])
    return out


def shifted_into(x):
    out = np.zeros_like(x)
    n = x.shape[0]
    for k in range(n):
        out[:n - k] += x[k:] - x[:n - k]
    return out


def lagged_extremes(x):
    n = x.shape[0]
    out = np.zeros((n, 2))
    for k in range(n - 1):
        d = x[k + 1:] - x[:n - k - 1]
        out[k, 0] = d.max()
        out[k, 1] = d.min()
    return out


def test_autocorrelation_is_a_loop_and_numpys():
    x = np.sin(np.linspace(0, 3, 300)) + 0.01 * np.random.default_rng(1).standard_normal(300)
    xc = x - x.mean()
    for maxlag in (1, 2, 200):
        same(jc.jit(autocorrelation_time, static_argnums=1)(xc, maxlag), autocorrelation_time(xc, maxlag))
    text = jc.jit(autocorrelation_time, static_argnums=1).lower(xc, 200).as_text("traced")
    assert '"scf.while"' in text or '"scf.for"' in text
    assert text.count('"array.dot_general"') + text.count('"array.reduce"') < 10  # not one per lag


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_velocity_autocorrelation(dtype):
    v = (np.random.default_rng(2).standard_normal(90) * 20).astype(dtype)
    tol = 1e-4 if dtype == np.float32 else None  # float32 means: another order of the sum
    for nlag in (80, 90):
        same(jc.jit(velocity_autocorrelation, static_argnums=1)(v, nlag),
             velocity_autocorrelation(v, nlag), tol)
    text = jc.jit(velocity_autocorrelation, static_argnums=1).lower(v, 90).as_text("traced")
    assert '"scf.for"' in text


def test_writes_and_reductions_of_shifted_slices():
    x = np.random.default_rng(3).standard_normal(70)
    keep = x.copy()
    same(jc.jit(shifted_into)(x), shifted_into(x))
    same(jc.jit(lagged_extremes)(x), lagged_extremes(x))
    assert np.array_equal(x, keep)  # the argument is not written
    assert '"scf.for"' in traced(shifted_into, x) and '"scf.for"' in traced(lagged_extremes, x)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=0, max_size=12))
def test_shifted_products_any_length(values):
    x = np.array(values, dtype=np.float64)

    def f(x):
        n = x.shape[0]
        out = np.zeros(n + 1)
        for k in range(n + 1):  # length n - k: from n down to 0
            out[k] = np.sum(x[k:] * x[:n - k]) + np.dot(x[:n - k], x[k:])
        return out
    same(jit_once(f)(x), f(x))


def test_slices_of_other_lengths_are_still_refused_or_unrolled():
    def f(x):
        s = 0.0
        for k in range(1, 70):
            s += np.sum(x[k:] * x[:k])  # lengths n - k and k: NumPy's broadcast error
        return s
    with pytest.raises((ValueError, JitcoreError)):
        jc.jit(f)(np.ones(140))


# -- argmin / argmax of a slice of traced length ------------------------------------------------
def selection_sort(a):
    a = a.copy()
    for i in range(a.shape[0] - 1):
        m = i + np.argmin(a[i:])
        t = a[i]
        a[i] = a[m]
        a[m] = t
    return a


def arg_positions(x):
    n = x.shape[0]
    out = np.zeros((n, 4), np.int64)
    for i in range(n):
        out[i, 0] = np.argmin(x[i:])
        out[i, 1] = np.argmax(x[i:])
        out[i, 2] = x[:i + 1].argmax()
        out[i, 3] = x[:i + 1].argmin()
    return out


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8, np.bool_])
def test_selection_sort_is_a_loop_and_numpys(dtype):
    a = (np.random.default_rng(4).integers(0, 5, 150)).astype(dtype)
    keep = a.copy()
    same(jc.jit(selection_sort)(a), selection_sort(a))
    assert np.array_equal(a, keep)
    assert '"scf.for"' in traced(selection_sort, a)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]), min_size=1, max_size=10))
def test_argmin_argmax_first_occurrence_and_nan(values):
    x = np.array(values)
    same(jit_once(arg_positions)(x), arg_positions(x))


def test_argmin_of_an_empty_slice_raises_numpys_error():
    def f(x, k):
        s = 0
        for i in range(k):
            s += np.argmin(x[i:])
        return s
    x = np.arange(3.0)
    assert jc.jit(f)(x, 3) == f(x, 3)
    with pytest.raises(ValueError, match="empty sequence"):
        f(x, 4)
    with pytest.raises(ValueError, match="empty sequence"):
        jc.jit(f)(x, 4)


def test_argmin_of_a_python_int_result_type():
    def f(x):
        out = []
        for i in range(2):
            out.append(np.argmin(x[i:]))
        return out[0] + out[1]
    x = np.array([3.0, 1.0, 2.0])
    same(jc.jit(f)(x), f(x))


# -- windows of static length at a traced start, checked when the function runs -----------------
def crop(img, p, s):
    return img[p[0]:p[0] + s, p[1]:p[1] + s].sum()


def row_window(x, r):
    return x[r:r + 4] * 2


@pytest.mark.parametrize("p", [(0, 0), (6, 6), (3, 1), (0, 6)])
def test_crop_at_a_position_from_data(p):
    img = np.arange(100.0).reshape(10, 10)
    p = np.array(p)
    same(jc.jit(crop, static_argnums=2)(img, p, 4), crop(img, p, 4))


@pytest.mark.parametrize("p", [(7, 0), (0, 7), (-1, 2), (2, -3)])
def test_crop_numpy_would_clamp_raises(p):
    img = np.arange(100.0).reshape(10, 10)
    assert crop(img, np.array(p), 4).size == 1  # NumPy gives another (smaller or empty) window
    with pytest.raises(IndexError, match="traced start") as e:
        jc.jit(crop, static_argnums=2)(img, np.array(p), 4)
    assert isinstance(e.value, JitcoreError)


def test_an_int_argument_compiles_once():
    x = np.arange(12.0).reshape(6, 2)
    f = jc.jit(row_window)
    for r in (0, 1, 2):
        same(f(x, r), row_window(x, r))
    assert f.cache_info().compiles == 1  # not one per value of r
    with pytest.raises(IndexError, match="traced start"):
        f(x, 3)
    with pytest.raises(IndexError, match="traced start"):
        f(x, -1)


def test_zero_and_one_length_windows():
    x = np.arange(5.0)
    for s in (0, 1):
        def f(x, p, s=s):
            return x[p[0]:p[0] + s]
        for p in (0, 4, 5):
            if s and p == 5:  # NumPy: empty, past the end
                with pytest.raises(IndexError, match="traced start"):
                    jc.jit(f)(x, np.array([p]))
            else:
                same(jc.jit(f)(x, np.array([p])), f(x, np.array([p])))


def test_negative_steps_are_refused_clearly():
    def f(x, p):
        return x[p[0] + 3:p[0]:-1]
    with pytest.raises(JitcoreError):
        jc.jit(f)(np.arange(8.0), np.array([2]))


def paste(img, p, patch):
    img = img.copy()
    img[p[0]:p[0] + 3, p[1]:p[1] + 3] = patch
    img[p[0]:p[0] + 3, p[1]:p[1] + 3] += 1
    return img


def test_writes_through_a_checked_window():
    img, patch = np.zeros((6, 6)), np.arange(9.0).reshape(3, 3)
    for p in ((0, 0), (3, 3), (1, 2)):
        same(jc.jit(paste)(img, np.array(p), patch), paste(img, np.array(p), patch))
    assert not img.any()
    with pytest.raises(ValueError):  # NumPy: the value does not fit the clamped window
        paste(img, np.array((4, 0)), patch)
    with pytest.raises(IndexError, match="traced start"):  # jitcore: the window is refused
        jc.jit(paste)(img, np.array((4, 0)), patch)


_WINDOW = jc.jit(lambda x, p: x[p[0]:p[0] + 3] * 2)


@settings(max_examples=25, deadline=None)
@given(st.integers(-8, 8), st.integers(0, 7))
def test_windows_match_numpy_or_raise(start, n):
    x, p = np.arange(float(n)), np.array([start])
    want = x[start:start + 3] * 2
    if 0 <= start and start + 3 <= n:
        same(_WINDOW(x, p), want)
    else:  # NumPy clamps or counts from the end: another window
        with pytest.raises(IndexError, match="traced start"):
            _WINDOW(x, p)
