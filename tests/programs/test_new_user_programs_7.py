"""A new user's NumPy programs, seventh round (newuser29): areas the first six rounds did not
cover. Signals (``hanning``/``hamming``/``blackman``/``kaiser``/``bartlett`` windows, a
windowed-sinc FIR filter, ``convolve`` smoothing in its three modes, autocorrelation by
``correlate``, peaks, zero crossings, a DFT as a matrix product, decimation by reshape),
finance (returns and growth by ``cumprod``, drawdowns by ``np.maximum.accumulate``, rolling
volatility from a cumulative sum, portfolio mean/risk/correlation), statistics (``corrcoef``
of pairs and stacks, every ``percentile`` method, weighted ``average`` with ``returned``,
``digitize`` grades, NaN-aware standardisation, quantile bins, ``ptp``), geometry (``cross``
normals and triangle areas, a rotation matrix built with ``np.array`` of traced entries,
``linalg.norm`` over axes and orders, the shoelace area, angles by ``arccos``), grids
(``mgrid``, ``ogrid``, ``indices``, ``ix_``), set membership (``isin``), masking and data
cleaning (``place``, forward fill by ``maximum.accumulate`` of indices, IQR outliers,
winsorising, duplicates of a sorted array), ``apply_along_axis``; and the open items of round 6:
``np.pad``'s ``'linear_ramp'``, ``polydiv``, ``histogram_bin_edges``, ``insert`` at several
indices, histograms without ``range=`` of NaN or inf data (NumPy's ValueError), and a stack of
slices fusing into one kernel. Each runs under ``jc.jit`` against NumPy, compared as the
earlier rounds' programs are (tests/programs/like_numpy.py); what jitcore refuses on purpose
(``np.vectorize``, results whose length depends on the data) is checked to be its
own error, saying what to do instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import jitcore as jc
from jitcore.ir.dialects import kernel
from jitcore.passes import PassManager
from tests.programs.like_numpy import (
    EXACT,
    cases_and_jitted,
    check_edge,
    check_program,
)

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
RNG = np.random.default_rng(20261203 + 7)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


PRICES = 100 + RNG.random(30).cumsum()


# ---------------------------------------------------------------------------- signals
def windowed_power(x):
    w = np.hanning(len(x))
    xw = (x - x.mean()) * w
    return xw, np.sum(xw**2) / np.sum(w**2)


def window_family(n):
    return np.hamming(n), np.blackman(n), np.kaiser(n, 8.6), np.bartlett(n)


def convolve_smoothing(x):
    k = np.ones(5) / 5
    return np.convolve(x, k, mode="same"), np.convolve(x, k, mode="valid"), np.convolve(x, k[:3], "full")


def fir_lowpass(x, n):
    t = np.arange(n) - (n - 1) / 2
    h = np.sinc(0.25 * t) * np.blackman(n)
    return np.convolve(x, h / h.sum(), mode="same")


def envelope_peaks(x):
    up = (x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])
    return np.where(up, x[1:-1], 0.0), up.sum()


def zero_crossing_rate(x):
    s = np.signbit(x)
    return np.count_nonzero(s[1:] != s[:-1]) / (len(x) - 1)


def autocorrelation(x):
    x = x - x.mean()
    c = np.correlate(x, x, mode="full")[len(x) - 1:]
    return c / c[0]


def dft_by_matrix(x):
    n = len(x)
    k = np.arange(n)
    X = np.exp(-2j * np.pi * np.outer(k, k) / n) @ x
    return np.abs(X), np.angle(X[1:3])


def decimate_mean(x):
    return x[: len(x) // 4 * 4].reshape(-1, 4).mean(axis=1)


# ---------------------------------------------------------------------------- finance
def cumulative_returns(prices):
    r = prices[1:] / prices[:-1] - 1
    growth = np.cumprod(1 + r)
    return r, growth, growth[-1] ** (252 / len(r)) - 1


def drawdown_series(prices):
    peak = np.maximum.accumulate(prices)
    dd = prices / peak - 1
    return dd, dd.min(), np.argmin(dd)


def rolling_volatility(prices, window):
    lr = np.diff(np.log(prices))
    c = np.cumsum(np.insert(lr, 0, 0.0))
    return lr.std(ddof=1) * np.sqrt(252), (c[window:] - c[:-window]) / window


def portfolio_stats(R, w):
    S = np.cov(R, rowvar=False)
    return w @ R.mean(axis=0), np.sqrt(w @ S @ w), np.corrcoef(R.T)


def compound_schedule(principal, rates):
    return principal * np.cumprod(1 + rates), np.prod(1 + rates)


def running_extremes(x):
    return np.minimum.accumulate(x), np.maximum.accumulate(x[::-1])[::-1]


# ---------------------------------------------------------------------------- statistics
def corrcoef_pairs(x, y):
    return np.corrcoef(x, y), np.corrcoef(np.vstack([x, y, x * y]))


PERCENTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
                      "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
                      "hazen", "weibull", "median_unbiased", "normal_unbiased")


def percentile_methods(x):
    return tuple(np.percentile(x, [0, 10, 50, 90, 100], method=m) for m in PERCENTILE_METHODS)


def weighted_average(x, w):
    return (np.average(x, weights=w), np.average(x, axis=0, weights=w[:, 0]),
            np.average(x, axis=1, weights=w[0], returned=True))


def digitize_grades(scores):
    bins = np.array([50.0, 60.0, 70.0, 80.0, 90.0])
    g = np.digitize(scores, bins)
    return g, np.bincount(g, minlength=6), np.digitize(scores, bins[::-1], right=True)


def standardize_columns(X):
    sd = np.nanstd(X, axis=0)
    return (X - np.nanmean(X, axis=0)) / np.where(sd == 0, 1.0, sd)


def quantile_bins(x):
    edges = np.quantile(x, [0.0, 0.25, 0.5, 0.75, 1.0])
    return edges, np.searchsorted(edges[1:-1], x, side="right")


def ptp_and_median(X):
    return np.ptp(X, axis=0), np.ptp(X), np.median(X, axis=1)


# ---------------------------------------------------------------------------- geometry
def cross_normals(a, b, c):
    n = np.cross(b - a, c - a)
    return n / np.linalg.norm(n, axis=-1, keepdims=True), 0.5 * np.linalg.norm(n, axis=1)


def rotation_z(theta, pts):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return pts @ R.T, np.linalg.det(R)


def norms_over_axes(X):
    return (np.linalg.norm(X, axis=0), np.linalg.norm(X, axis=1, ord=1),
            np.linalg.norm(X, ord=np.inf, axis=1), np.linalg.norm(X, "fro"))


def shoelace_area(xy):
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * np.abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def pairwise_angles(V):
    U = V / np.linalg.norm(V, axis=1)[:, None]
    return np.degrees(np.arccos(np.clip(U @ U.T, -1.0, 1.0)))


def centroid_and_spread(P):
    c = P.mean(axis=0)
    d = np.linalg.norm(P - c, axis=1)
    return c, d.max(), np.argmax(d)


# ---------------------------------------------------------------------------- grids
def mgrid_field(scale):
    yy, xx = np.mgrid[0:4, 0:5]
    return np.hypot(xx - 2, yy - 1.5) * scale


def ogrid_lookup(a):
    y, x = np.ogrid[0:3, 0:4]
    return a[y, x] + y * 10 + x


def centre_of_mass(img):
    r, c = np.indices(img.shape)
    m = img.sum()
    return (r * img).sum() / m, (c * img).sum() / m


def ix_submatrix(A):
    return A[np.ix_([0, 2], [1, 3])], A[np.ix_([2, 0, 1], [0])] * 2


# ---------------------------------------------------------------------------- masking, cleaning
def isin_filter(a, allowed):
    return np.where(np.isin(a, allowed), a, -1), np.isin(a, allowed, invert=True).sum()


def place_negatives(x):
    y = x.copy()
    np.place(y, y < 0, [0.0, -1.0])
    return y


def masked_fill(x):
    m = np.isfinite(x)
    clean = np.where(m, x, 0.0)
    return clean.sum() / m.sum(), np.where(m, x, np.nanmean(np.where(m, x, np.nan)))


def winsorize(x, lo, hi):
    a, b = np.percentile(x, [lo, hi])
    return np.clip(x, a, b)


def forward_fill(x):
    idx = np.maximum.accumulate(np.where(np.isnan(x), 0, np.arange(len(x))))
    return x[idx]


def iqr_outliers(x):
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    keep = (x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)
    return keep, np.where(keep, x, np.nan)


def first_of_duplicates(x):
    s = np.sort(x)
    first = np.concatenate(([True], s[1:] != s[:-1]))
    return s, first, first.sum()


def binned_sums(x, X):
    return (np.add.reduceat(x, [0, 3, 3, 7]), np.maximum.reduceat(X, [0, 2], axis=1),
            np.multiply.reduceat(x > 0, [1, 0]))


def apply_along_rows(X):
    return np.apply_along_axis(lambda r: r.max() - r.min(), 1, X), np.apply_along_axis(np.cumsum, 0, X)


# ---------------------------------------------------------------------------- round 6's open items
def ramp_edges(img):
    return np.pad(img, ((2, 1), (0, 3)), mode="linear_ramp", end_values=((0, 255), (9, 1)))


def polynomial_division(u, v):
    q, r = np.polydiv(u, v)
    return q, r, np.polyadd(np.polymul(q, v), r)


def shared_bins(a, b):
    edges = np.histogram_bin_edges(np.concatenate([a, b]), bins=6)
    return edges, np.histogram(a, edges)[0], np.histogram(b, edges)[0]


def insert_markers(x):
    return np.insert(x, [0, 3, 3, len(x)], [-1.0, -2.0, -3.0, -4.0]), np.insert(x, slice(1, None, 2), 0.0)


def median_filter3(img):
    win = sliding_window_view(np.pad(img, 1, mode="reflect"), (3, 3))
    return np.median(win, axis=(-2, -1))


PROGRAMS = {
    "windowed_power": (windowed_power, (), TIGHT, [(normal(16),), (normal(9),)]),
    "window_family": (window_family, ("n",), TIGHT, [(7,), (1,)]),
    "convolve_smoothing": (convolve_smoothing, (), TIGHT, [(normal(12),)]),
    "fir_lowpass": (fir_lowpass, ("n",), TIGHT, [(normal(20), 7)]),
    "envelope_peaks": (envelope_peaks, (), EXACT, [(normal(15),), (np.array([1, 3, 2, 2, 5, 1], np.int16),)]),
    "zero_crossing_rate": (zero_crossing_rate, (), EXACT, [(np.array([1.0, -0.0, 0.0, -2.0, 3.0, np.nan]),)]),
    "autocorrelation": (autocorrelation, (), TIGHT, [(normal(16),)]),
    "dft_by_matrix": (dft_by_matrix, (), TIGHT * 4, [(normal(8),)]),
    "decimate_mean": (decimate_mean, (), TIGHT, [(normal(18),)]),
    "cumulative_returns": (cumulative_returns, (), TIGHT * 4, [(PRICES,)]),
    "drawdown_series": (drawdown_series, (), EXACT, [(PRICES,), (np.array([3.0, 1.0, 2.0, 5.0, 4.0], f32),)]),
    "rolling_volatility": (rolling_volatility, ("window",), TIGHT * 4, [(PRICES, 5)]),
    "portfolio_stats": (portfolio_stats, (), TIGHT * 4, [(normal(20, 3) * 0.01, np.array([0.5, 0.3, 0.2]))]),
    "compound_schedule": (compound_schedule, (), TIGHT, [(1000.0, RNG.random(12) * 0.01)]),
    "running_extremes": (running_extremes, (), EXACT, [(normal(10),), (np.array([2, 7, 1, 9], np.uint8),)]),
    "corrcoef_pairs": (corrcoef_pairs, (), TIGHT * 4, [(normal(10), normal(10))]),
    "percentile_methods": (
        percentile_methods,
        (),
        TIGHT,
        [(normal(11),), (np.array([4, 1, 9, 7], np.int32),), (np.array([1.0, np.inf, -2.0, 3.0], f32),)],
    ),
    "weighted_average": (weighted_average, (), TIGHT, [(normal(4, 3), RNG.random((4, 3)))]),
    "digitize_grades": (digitize_grades, (), EXACT, [(np.array([45.0, 50.0, 65.5, 80.0, 99.0, 70.0]),)]),
    "standardize_columns": (
        standardize_columns,
        (),
        TIGHT,
        [(np.where(RNG.random((6, 3)) < 0.2, np.nan, normal(6, 3)),)],
    ),
    "quantile_bins": (quantile_bins, (), TIGHT, [(normal(13),)]),
    "ptp_and_median": (
        ptp_and_median, (), EXACT, [(normal(4, 5),), (np.arange(6, dtype=np.int8).reshape(2, 3),)]
    ),
    "cross_normals": (cross_normals, (), TIGHT * 4, [(normal(5, 3), normal(5, 3), normal(5, 3))]),
    "rotation_z": (rotation_z, (), TIGHT, [(0.3, normal(6, 3))]),
    "norms_over_axes": (norms_over_axes, (), TIGHT, [(normal(4, 3),)]),
    "shoelace_area": (
        shoelace_area, (), TIGHT, [(np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [0.0, 3.0]]),)]
    ),
    "pairwise_angles": (pairwise_angles, (), TIGHT * 1024, [(normal(4, 3),)]),  # arccos near +-1
    "centroid_and_spread": (centroid_and_spread, (), TIGHT, [(normal(7, 2),)]),
    "mgrid_field": (mgrid_field, (), TIGHT, [(2.0,)]),
    "ogrid_lookup": (ogrid_lookup, (), EXACT, [(normal(3, 4),)]),
    "centre_of_mass": (centre_of_mass, (), TIGHT, [(RNG.random((4, 5)),)]),
    "ix_submatrix": (ix_submatrix, (), EXACT, [(normal(3, 4),)]),
    "isin_filter": (isin_filter, (), EXACT, [(np.array([1, 2, 3, 4, 5, 6]), np.array([2, 3, 7]))]),
    "place_negatives": (place_negatives, (), EXACT, [(normal(6),)]),
    "masked_fill": (masked_fill, (), TIGHT, [(np.array([1.0, np.nan, 3.0, np.inf, 2.0]),)]),
    "winsorize": (winsorize, ("lo", "hi"), TIGHT, [(normal(20), 5, 95)]),
    "forward_fill": (forward_fill, (), EXACT, [(np.array([1.0, np.nan, np.nan, 4.0, np.nan, 6.0]),)]),
    "iqr_outliers": (iqr_outliers, (), TIGHT, [(np.append(normal(12), 15.0),)]),
    "first_of_duplicates": (first_of_duplicates, (), EXACT, [(np.array([3, 1, 2, 3, 1, 5]),)]),
    "apply_along_rows": (apply_along_rows, (), TIGHT, [(normal(3, 4),)]),
    "binned_sums": (
        binned_sums,
        (),
        TIGHT,
        [
            (normal(9), normal(2, 5)),
            (np.arange(9, dtype=np.int8), np.arange(10, dtype=np.uint16).reshape(2, 5)),
        ],
    ),
    "ramp_edges": (
        ramp_edges, (), EXACT, [(RNG.integers(0, 256, (3, 4)).astype(np.uint8),), (normal(2, 2),)]
    ),
    "polynomial_division": (
        polynomial_division,
        (),
        TIGHT * 4,
        [
            (np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 1.0])),
            (np.array([3, 5, 2, 7, 1]), np.array([2, 1, 1])),
        ],
    ),
    "shared_bins": (shared_bins, (), TIGHT, [(normal(10), normal(7) + 1)]),
    "insert_markers": (insert_markers, (), EXACT, [(np.arange(6.0),)]),
    "median_filter3": (median_filter3, (), EXACT, [(RNG.random((5, 6)),)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


# The functions this round compiled, at their edges: (function, arguments, tolerance).
EDGES = {
    "linear_ramp: 1-d, int with negative ends, float32, an infinite edge": (
        lambda x, i, s, e: (np.pad(x, (2, 3), mode="linear_ramp", end_values=(5, -1)),
                            np.pad(i, 2, mode="linear_ramp", end_values=(-7, 30)),
                            np.pad(s, 1, mode="linear_ramp", end_values=1.5),
                            np.pad(e, 2, mode="linear_ramp")),
        (normal(4), np.arange(6).reshape(2, 3), np.arange(4, dtype=f32), np.array([np.inf, 1.0])),
        TIGHT,
    ),
    "insert: unsorted and negative indices along an axis, a one-element list, a slice, none": (
        lambda a, v: (np.insert(a, [3, -1, 0], [7.5, 8.0, 9.0], axis=1), np.insert(a, [1], v, axis=1),
                      np.insert(a, slice(0, 4, 2), [-1, -2]), np.insert(a, [], 5)),
        (np.arange(12).reshape(3, 4), np.array([[7], [8], [9]])),
        EXACT,
    ),
    "polydiv: u shorter than v, a constant v, an exact division (same polynomial)": (
        lambda u, v, w: (np.polydiv(u, v), np.polydiv(v, w), np.polyval(np.polydiv(v, u)[1], 2.0)),
        (np.array([3.0, 5.0]), np.array([1.0, 8.0, 15.0]), np.array([2.0])),
        TIGHT,
    ),
    "histogram_bin_edges: ints, one value only, edges given, no data": (
        lambda i, c, x, e: (np.histogram_bin_edges(i, 4), np.histogram_bin_edges(c, 3),
                            np.histogram_bin_edges(x, np.array([0.0, 1.0, 5.0])),
                            np.histogram_bin_edges(e, 2, range=(0, 1))),
        (np.array([1, 5, 2, 9]), np.full(3, 2.0, f32), np.array([1.0, 2.0]), np.zeros(0)),
        EXACT,
    ),
    "percentile methods at n = 1 and 2": (
        lambda a, b: [(np.quantile(a, [0, 0.3, 1], method=m), np.quantile(b, [0, 0.3, 0.5, 1], method=m))
                      for m in PERCENTILE_METHODS],
        (np.array([4.0]), np.array([1, 9], np.int16)),
        TIGHT,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    fn, args, rtol = EDGES[case]
    check_edge(fn, args, rtol, case)


@pytest.mark.parametrize("data", [np.array([0.0, 1.0, np.nan, 2.0]), np.array([0.0, -np.inf, 1.0])])
def test_a_histogram_without_range_of_nan_or_inf_raises_numpys_error_from_the_call(data):
    # NumPy: ValueError("autodetected range of [..] is not finite"); the same words, at run time
    f = jc.jit(lambda x, y: (np.histogram(x, 3), np.histogram2d(x, y, 2), np.histogram_bin_edges(x)))
    with pytest.raises(ValueError, match="autodetected range of .* is not finite"):
        np.histogram(data, 3)
    with pytest.raises(jc.JitValueError, match="autodetected range of .* is not finite"):
        f(data, np.arange(data.size))
    hist, edges = f(np.arange(4.0), np.arange(4.0))[0]  # the same compiled code, finite data
    np.testing.assert_array_equal(hist, [1, 1, 2])


def test_histogram_edges_computed_in_the_function_are_checked_when_it_runs():
    f = jc.jit(lambda x, e: np.histogram(x, np.sort(e) if e.size > 3 else e))
    x = np.array([0.5, 1.0, 2.5, 3.0, 9.0])
    hist, edges = f(x, np.array([3.0, 0.0, 1.0, 2.0]))  # sorted in the function
    np.testing.assert_array_equal(hist, [1, 1, 2])
    with pytest.raises(jc.JitValueError, match="must increase monotonically"):
        f(x, np.array([0.0, 2.0, 1.0]))  # NumPy's ValueError, from the call


def test_an_all_nan_slice_to_nanargmax_raises_numpys_error_from_the_call():
    f = jc.jit(lambda x: (np.nanargmax(x, axis=1), np.nanargmin(x)))
    x = np.array([[1.0, np.nan], [np.nan, 0.5]])
    np.testing.assert_array_equal(f(x)[0], [0, 1])
    with pytest.raises(jc.JitValueError, match="All-NaN slice encountered"):
        f(np.array([[1.0, np.nan], [np.nan, np.nan]]))


def test_weights_that_sum_to_zero_raise_numpys_error_from_the_call():
    f = jc.jit(lambda x, w: np.average(x, axis=0, weights=w))
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(f(x, np.array([1.0, 0.0, 1.0])), np.average(x, axis=0, weights=[1, 0, 1]))
    with pytest.raises(jc.JitZeroDivisionError, match="Weights sum to zero"):
        f(x, np.array([1.0, -1.0, 0.0]))
    assert issubclass(jc.JitZeroDivisionError, ZeroDivisionError)  # NumPy's class, for except


def test_the_pieces_of_a_stack_fuse_into_its_concatenation():
    # Each slice of y used to be copied before the concatenation read it: a reshape view (the
    # new axis) stood between them. Now one kernel makes the stack (y recomputed inside) and
    # one sorts it.
    def f(x):
        y = x * 2.0
        return np.sort(np.stack([y[:-2], y[1:-1], y[2:]], axis=-1), axis=-1)

    module = jc.make_ir(f)(np.zeros(8))
    PassManager("canonicalize,cse,dce,kernelize,fuse").run(module)
    (func,) = module.functions()
    kernels = [op for op in func.body.ops if isinstance(op, kernel.GenericOp)]
    assert len(kernels) == 2, module
    x = normal(8)
    np.testing.assert_array_equal(jc.jit(f)(x), f(x))


# A program jitcore refuses: (function, arguments, error type, words of its message).
REFUSED = {
    # np.fft.rfft: compiled since fft31 (tests/jitcore/test_fft.py)
    # np.vectorize of a Python function: a compiled loop over the elements since newuser37
    "np.vectorize with a signature": (
        lambda x: np.vectorize(lambda v: v[::-1], signature="(n)->(n)")(x),
        (normal(4),),
        jc.TracerConversionError,
        "numpy.vectorize.*numpy.where",
    ),
    # np.where with one argument: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.nonzero: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.argwhere: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.extract: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    "np.intersect1d": (lambda a: np.intersect1d(a, [1, 3]), (np.arange(4),), jc.JitTypeError, "mask"),
    "np.setdiff1d": (lambda a: np.setdiff1d(a, [1, 3]), (np.arange(4),), jc.JitTypeError, "setdiff1d"),
    "np.ix_ of a traced mask": (
        lambda A: A[np.ix_(A[:, 0] > 0, [0, 1])],
        (normal(3, 2),),
        jc.JitTypeError,
        "depends on the data",
    ),
    "np.histogram_bin_edges with bins='auto'": (
        lambda x: np.histogram_bin_edges(x, "auto"),
        (normal(5),),
        jc.UnsupportedError,
        "histogram_bin_edges with bins='auto'",
    ),
    "np.logical_or.reduceat at traced indices": (  # (session 49: add/multiply/max/min compile)
        lambda x, i: np.logical_or.reduceat(x, i),
        (normal(4) > 0, np.array([0, 2])),
        jc.UnsupportedError,
        "reduceat",
    ),
    "np.insert at traced indices": (  # (session 55: one traced int compiles)
        lambda x, i: np.insert(x, i, 0.0),
        (normal(3), np.array([0, 2])),
        jc.UnsupportedError,
        "static indices",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    fn, args, error, words = REFUSED[case]
    with pytest.raises(error, match=words):
        jc.jit(fn)(*args)
