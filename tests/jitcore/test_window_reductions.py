"""Window reductions without windows (session 44): ``np.convolve``/``np.correlate`` with long
windows, ``sliding_window_view(x, w).sum(-1)`` and a sum of ``x[idx] * w`` over a table of
window positions run as one reduction whose loop reads each window where it lies; no (n, m)
array is made. Differential against NumPy (every dtype family, inf and nan in the window,
lengths 1, both argument orders), and the fused form checked in the optimized IR."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.numpy.manipulation import SHIFTED_TAPS
from tests.budget import examples

swv = np.lib.stride_tricks.sliding_window_view
LONG = SHIFTED_TAPS + 9  # a window the gathered (long) form computes


def optimized(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("optimized")


def kernel_results(text: str) -> list[str]:
    """The result types of the optimized program's kernels."""
    return [line.rsplit(" -> ", 1)[1] for line in text.splitlines() if "iterator_types = [" in line]


def assert_close(got, want, rtol=1e-12):
    assert isinstance(got, np.ndarray) and (got.dtype, got.shape) == (want.dtype, want.shape)
    if want.dtype.kind in "fc":
        scale = max(1.0, float(np.nanmax(np.abs(want[np.isfinite(want)]), initial=0.0)))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale * 64, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


# -- the fused form ------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["valid", "same", "full"])
def test_a_long_convolution_makes_no_window_array(mode):
    """Every kernel's result is 1-d (the padded input, the outputs): the (n, m) gather of the
    windows fused into the sum's loop (main materialised it, a (n + m - 1, m) buffer)."""
    x, k = np.zeros(500), np.zeros(LONG)
    text = optimized(lambda x, k: np.convolve(x, k, mode), x, k)
    results = kernel_results(text)
    assert results and all(t.count("x") <= 1 for t in results), results  # no 2-d array
    assert "kernel.check_index" not in text  # positions proved in range: nothing to check


def test_window_sums_of_a_view_and_of_an_index_table_fuse():
    x, w = np.zeros(300), np.zeros(70)

    def table(x, w):  # a table made in the function is a constant (a global one is read per call)
        idx = np.arange(231)[:, None] + np.arange(70)[None, :]
        return (x[idx] * w).sum(1)

    for fn in (lambda x, w: swv(x, 70).sum(-1), lambda x, w: swv(x, 70).max(-1), table,
               lambda x, w: (swv(x, 70) @ w)):
        text = optimized(fn, x, w)
        results = kernel_results(text)
        assert results == ["tensor<231xf64>"], (results, text)
        assert "kernel.check_index" not in text and "231x70" not in text.split("kernel.generic", 1)[1]


def test_a_gather_that_may_fail_is_still_checked_and_raises():
    x = np.arange(10.0)

    def windows(x, s):  # positions moved by an argument: not proved, checked as they are read
        idx = np.arange(4)[:, None] + np.arange(6)[None, :] + s
        return x[idx].sum(1)

    assert "kernel.check_index" in optimized(windows, x, np.int64(0))
    f = jc.jit(windows)
    np.testing.assert_array_equal(f(x, np.int64(1)), windows(x, np.int64(1)))
    with pytest.raises(IndexError):
        f(x, np.int64(1 + 4))


@pytest.mark.parametrize("m", [7, LONG])
def test_new_lengths(m):
    """A short window's code serves every length, as before; a long window's is compiled per
    length (as on main: its positions' bounds are this length's constants)."""
    f = jc.jit(lambda x, k: np.convolve(x, k, "same"))
    k = np.linspace(-1, 1, m)
    for n in (400, 523, 1000):
        x = np.cos(np.arange(n) * 0.1)
        assert_close(f(x, k), np.convolve(x, k, "same"))
    if m <= SHIFTED_TAPS:
        assert f.cache_info().reused == 2, f.cache_info()


# -- against NumPy -------------------------------------------------------------------------------

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.bool_, np.complex128]


def _data(rng, n, dtype):
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if np.dtype(dtype).kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, n).astype(dtype)
    return rng.standard_normal(n).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["convolve", "correlate"])
def test_long_windows_against_numpy(dtype, fn):
    rng = np.random.default_rng(44)
    np_fn = getattr(np, fn)
    f = jc.jit(lambda a, v, mode: np_fn(a, v, mode), static_argnums=2)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for n, m in ((300, LONG), (LONG, 300), (LONG, LONG), (1, LONG), (LONG, 1), (LONG + 1, LONG)):
        a, v = _data(rng, n, dtype), _data(rng, m, dtype)
        for mode in ("valid", "same", "full"):
            assert_close(f(a, v, mode), np_fn(a, v, mode), rtol)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_inf_and_nan_in_a_long_window_are_left_out_past_the_ends(dtype):
    """NumPy's overlap never multiplies a term past a's ends: an inf or nan in v spoils only
    the outputs whose overlap reaches it (the masked branch; the finite one is the same sum)."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(200).astype(dtype)
    f = jc.jit(lambda a, v, mode: np.convolve(a, v, mode), static_argnums=2)
    for bad in (np.inf, -np.inf, np.nan):
        v = rng.standard_normal(LONG).astype(dtype)
        v[[0, 5, LONG - 1]] = bad
        for mode in ("valid", "same", "full"):
            with np.errstate(all="ignore"):
                want = np.convolve(a, v, mode)
                got = f(a, v, mode)
            if dtype == np.float64:
                np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            # (a complex sum with an inf term may be nan+nanj in NumPy's order, inf+nanj in
            # jitcore's, as on main: which outputs are not finite is what matters here)
            np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
            fine = np.isfinite(want)
            np.testing.assert_allclose(got[fine], want[fine], rtol=1e-10, atol=1e-10)


def test_long_sums_keep_the_blocked_order_accuracy():
    """A window of 10**4 float32 ones and tiny terms: a serial float32 sum would drift; the
    lanes' blocked order stays within a few ulps of the float64 sum."""
    x = np.full(30000, 0.1, np.float32)
    k = np.full(10000, 1.0, np.float32)
    got = jc.jit(lambda x, k: np.convolve(x, k, "valid"))(x, k)
    exact = np.convolve(x.astype(np.float64), k.astype(np.float64), "valid")
    assert np.max(np.abs(got - exact) / exact) < 1e-5


@settings(max_examples=examples(25, ci=10), deadline=None)
@given(st.integers(1, 140), st.integers(SHIFTED_TAPS + 1, 140), st.sampled_from(["valid", "same", "full"]),
       st.sampled_from(["convolve", "correlate"]), st.booleans())
def test_drawn_lengths_and_modes(n, m, mode, fn, swap):
    rng = np.random.default_rng(n * 1000 + m)
    a, v = rng.standard_normal(n), rng.standard_normal(m)
    if swap:
        a, v = v, a
    np_fn = getattr(np, fn)
    assert_close(jc.jit(lambda a, v: np_fn(a, v, mode))(a, v), np_fn(a, v, mode))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_])
def test_sliding_window_reductions_against_numpy(dtype):
    rng = np.random.default_rng(3)
    x = _data(rng, 500, dtype)
    for w in (1, 64, 500):
        for reduce in ("sum", "max", "min", "mean", "any"):
            if reduce == "mean" and dtype == np.bool_:
                continue
            fn = lambda x, w=w, reduce=reduce: getattr(swv(x, w), reduce)(-1)  # noqa: E731
            assert_close(jc.jit(fn)(x), fn(x), 1e-5 if dtype == np.float32 else 1e-12)
