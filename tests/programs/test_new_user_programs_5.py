"""A new user's NumPy programs, fifth round (newuser27): areas the first four rounds did not
cover. Image processing on 2-D arrays (3x3 convolution by slicing, integral-image box blur,
median filter over shifted views, morphology, flood fill by repeated dilation, orientation
histograms, uint8 brightness with saturation), signal processing (np.correlate modes, windows,
np.interp with left/right/period, polyfit/polyval, zero crossings, exponential smoothing),
statistics (percentile/quantile/median along axes and methods, cov/corrcoef forms, histogram
without ``range=``, weighted averages with ``returned=``, bootstrap with resample indices
passed in, moments), simulations (SIR with a while loop, random walks from given steps,
N-body step, RK4 Lorenz, 2-D heat), finance (cumprod returns, drawdown with
``np.maximum.accumulate``, IRR by Newton), data munging (lexsort, stable argsort, searchsorted
with ``sorter``, array_split, group sums by sorting), dtypes (int16 saturation, float16, bool
arithmetic, ldexp/frexp, bits through ``x.view(dtype)``) and program shapes (generators,
enumerate/zip, keyword-only and default arguments, nested jitted calls with static arguments,
row loops and ``np.apply_along_axis`` with a helper that branches, ``try``/``except`` inside
and around jitted code). Each runs under ``jc.jit`` against NumPy on a few inputs chosen for
their edges, compared as the earlier rounds' programs are (tests/programs/like_numpy.py); what
jitcore refuses on purpose is checked to be its own error, saying what to do instead.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.programs.like_numpy import EXACT, cases_and_jitted, check_program

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
f16 = np.float16
RNG = np.random.default_rng(20261203 + 5)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def image(h, w, dtype=np.uint8):
    return RNG.integers(0, 256, (h, w)).astype(dtype)


# ---------------------------------------------------------------------------- images
def conv3x3(img, k):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2), dtype=np.result_type(img, k))
    for di in range(3):
        for dj in range(3):
            out += k[di, dj] * img[di : di + h - 2, dj : dj + w - 2]
    return out


def integral_box_blur(img, r):
    f = img.astype(np.float64)
    s = np.zeros((f.shape[0] + 1, f.shape[1] + 1))
    s[1:, 1:] = f.cumsum(axis=0).cumsum(axis=1)
    n = 2 * r + 1
    box = s[n:, n:] - s[:-n, n:] - s[n:, :-n] + s[:-n, :-n]
    return box / (n * n)


def median_filter3(img):
    p = np.pad(img, 1, mode="edge")
    h, w = img.shape
    stack = np.stack([p[i : i + h, j : j + w] for i in range(3) for j in range(3)])
    return np.median(stack, axis=0), np.sort(stack, axis=0)[4]


def morphology(mask):
    p = np.pad(mask, 1)
    up, down, left, right = p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    dilated = mask | up | down | left | right
    eroded = mask & up & down & left & right
    return dilated, eroded, dilated ^ eroded, np.count_nonzero(dilated) - mask.sum()


def flood_fill(open_cells, seed_r, seed_c):
    filled = np.zeros_like(open_cells)
    filled[seed_r, seed_c] = open_cells[seed_r, seed_c]
    changed = True
    steps = 0
    while changed:
        p = np.pad(filled, 1)
        grown = (filled | p[:-2, 1:-1] | p[2:, 1:-1] | p[1:-1, :-2] | p[1:-1, 2:]) & open_cells
        changed = bool((grown != filled).any())
        filled = grown
        steps += 1
    return filled, steps


def orientation_histogram(img):
    # float64: NumPy's float32 arctan2(8, 8) is one ulp below pi/4 (jitcore's is correctly
    # rounded), and pi/4 is a bin edge here, so float32 would compare libm ulps, not jitcore.
    f = img.astype(np.float64)
    gx = f[1:-1, 2:] - f[1:-1, :-2]
    gy = f[2:, 1:-1] - f[:-2, 1:-1]
    mag = np.hypot(gx, gy)
    ang = np.arctan2(gy, gx)
    hist, edges = np.histogram(ang, bins=8, range=(-np.pi, np.pi), weights=mag)
    return hist, edges, mag.max()


def brighten_uint8(img, delta):
    wrapped = img + np.uint8(delta)
    saturated = np.clip(img.astype(np.int16) + delta, 0, 255).astype(np.uint8)
    inverted = 255 - img
    return wrapped, saturated, inverted, img.mean(), (img // 16) * 16


# ---------------------------------------------------------------------------- signals
def correlate_modes(x, y):
    return (
        np.correlate(x, y),
        np.correlate(x, y, mode="same"),
        np.correlate(x, y, mode="full"),
        np.convolve(x, y[::-1], mode="full"),
    )


def windows(x):
    n = x.shape[0]
    return x * np.hanning(n), x * np.hamming(n), np.blackman(n).sum(), np.bartlett(n), np.kaiser(n, 5.0)


def interp_edges(x, xp, fp):
    return (
        np.interp(x, xp, fp),
        np.interp(x, xp, fp, left=-1.0, right=np.nan),
        np.interp(x, xp, fp, period=4.0),
    )


def polyfit_trend(t, y):
    c = np.polyfit(t, y, 2)
    return c, np.polyval(c, t), y - np.polyval(c, t)


def zero_crossings(x):
    s = np.signbit(x)
    flips = s[1:] != s[:-1]
    return np.count_nonzero(flips), np.diff(s.astype(np.int8)), np.argmax(flips)


def exponential_smoothing(x, alpha):
    out = np.empty_like(x)
    level = x[0]
    for i, v in enumerate(x):
        level = alpha * v + (1 - alpha) * level
        out[i] = level
    return out


def moving_averages(x, w):
    c = np.concatenate([[0.0], np.cumsum(x)])
    return (c[w:] - c[:-w]) / w, np.convolve(x, np.ones(w) / w, mode="valid")


# ---------------------------------------------------------------------------- statistics
def percentiles(x):
    return (
        np.percentile(x, [5, 50, 95], axis=0),
        np.quantile(x, 0.25, axis=1),
        np.median(x, axis=1),
        np.percentile(x, 50, method="nearest"),
        np.quantile(x, [0.1, 0.9], method="lower", axis=0, keepdims=True),
    )


def covariances(X, w):
    return (
        np.cov(X),
        np.cov(X, rowvar=False),
        np.cov(X, ddof=0),
        np.corrcoef(X),
        np.cov(X[0], X[1]),
        np.cov(X, aweights=w),
    )


def histogram_auto(x):
    h, e = np.histogram(x, bins=6)
    d, _ = np.histogram(x, bins=4, density=True)
    return h, e, d


def weighted_average(x, w):
    avg, total = np.average(x, weights=w, axis=0, returned=True)
    return avg, total, np.average(x), np.average(x[:, 0], weights=w[:, 0])


def bootstrap_means(x, idx):
    means = x[idx].mean(axis=1)
    return means.mean(), means.std(ddof=1), np.percentile(means, [2.5, 97.5])


def moments(x):
    m = x.mean()
    d = x - m
    var = (d**2).mean()
    skew = (d**3).mean() / var**1.5
    kurt = (d**4).mean() / var**2 - 3
    return m, var, skew, kurt, np.ptp(x), x.std(ddof=1)


# ---------------------------------------------------------------------------- simulations
def sir(beta, gamma, s0, i0, dt, t_end):
    s, i, r = s0, i0, 1.0 - s0 - i0
    t = 0.0
    peak = i
    while t < t_end:
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s, i, r = s - new_inf, i + new_inf - new_rec, r + new_rec
        peak = max(peak, i)
        t += dt
    return np.array([s, i, r]), peak


def random_walk(steps, barrier):
    pos = np.cumsum(steps, axis=-1)
    hit = np.abs(pos) >= barrier
    first = np.where(hit.any(axis=-1), hit.argmax(axis=-1), -1)
    return pos, first, np.abs(pos).max(axis=-1)


def nbody_step(pos, vel, mass, dt):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d**2).sum(axis=-1) + 1e-3
    inv = mass[None, :] / r2**1.5
    acc = (d * inv[:, :, None]).sum(axis=1)
    vel = vel + dt * acc
    return pos + dt * vel, vel, 0.5 * (mass * (vel**2).sum(axis=1)).sum()


def lorenz_rk4(y0, dt, n):
    def f(y):
        return np.array([10.0 * (y[1] - y[0]), y[0] * (28.0 - y[2]) - y[1], y[0] * y[1] - 8.0 / 3.0 * y[2]])

    y = y0
    k = 0
    while k < n:
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        k += 1
    return y


def heat_2d(u, alpha, steps):
    u = u.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u += alpha * lap
    return u


# ---------------------------------------------------------------------------- finance
def drawdowns(returns):
    wealth = np.cumprod(1 + returns)
    peak = np.maximum.accumulate(wealth)
    dd = wealth / peak - 1
    return wealth, dd, dd.min(), np.argmin(dd)


def irr_newton(cash, guess):
    r = guess
    t = np.arange(cash.shape[0])
    for _ in range(50):
        disc = (1 + r) ** -t
        npv = (cash * disc).sum()
        dnpv = (-t * cash * disc / (1 + r)).sum()
        r = r - npv / dnpv
    return r


# ---------------------------------------------------------------------------- data munging
def lexsort_keys(a, b):
    order = np.lexsort((b, a))
    return order, a[order], b[order], np.argsort(a, kind="stable")


def searchsorted_sorter(x, q):
    sorter = np.argsort(x, kind="stable")
    return (
        np.searchsorted(x, q, sorter=sorter),
        np.searchsorted(x, q, side="right", sorter=sorter),
        sorter,
    )


def split_sums(x):
    parts = np.array_split(x, 4)
    halves = np.split(x[: (x.shape[0] // 2) * 2], 2)
    return [p.sum() for p in parts], [h.max() for h in halves], len(parts)


def group_sums_sorted(keys, vals, k):
    order = np.argsort(keys, kind="stable")
    sk, sv = keys[order], vals[order]
    starts = np.searchsorted(sk, np.arange(k))
    ends = np.searchsorted(sk, np.arange(k), side="right")
    c = np.concatenate([np.zeros(1, sv.dtype), np.cumsum(sv)])
    return c[ends] - c[starts], ends - starts


def bin_sorted_data(data, v):
    edges = np.sort(data)  # NaN sorts last: NumPy still takes the edges as increasing
    return np.searchsorted(edges, v), np.digitize(v, edges), np.digitize(v, edges[::-1], right=True)


def masked_fill(x, lo, hi):
    ok = (x >= lo) & (x <= hi) & ~np.isnan(x)
    clean = np.where(ok, x, np.nan)
    fill = np.where(ok, x, 0).sum() / np.maximum(ok.sum(), 1)
    return clean, np.where(ok, x, fill), np.nanmean(clean)


# ---------------------------------------------------------------------------- dtypes
def int16_mix(a, b):
    wide = a.astype(np.int32) + b.astype(np.int32)
    return a + b, np.clip(wide, -32768, 32767).astype(np.int16), (a >> 1) + (b >> 1), np.abs(a)


def float16_pipeline(h):
    return h * h, np.exp(h), h.mean(), np.float16(1.0) / h, h.astype(np.int16), np.sum(h, dtype=np.float32)


def bool_math(a, b):
    return a + b, a * b, a & ~b, np.sum(a), a.astype(np.float32) - b, np.logical_xor(a, b), a ^ True


def ldexp_frexp(x, e):
    m, ex = np.frexp(x)
    return m, ex, np.ldexp(m, ex), np.ldexp(x, e), np.ldexp(1.0, e)


# ---------------------------------------------------------------------------- program shapes
def generator_stats(x):
    n = x.shape[0]
    total = sum(x[i] for i in range(n))
    big = max(abs(v) for v in x)
    pairs = sum(a * b for a, b in zip(x[:-1], x[1:]))
    return total, big, pairs


def enumerate_weights(rows):
    acc = np.zeros(rows.shape[1])
    for i, row in enumerate(rows):
        acc += (i + 1) * row
    return acc


def keyword_only(x, *, lo=0.0, hi=1.0, scale=2):
    return np.clip(x, lo, hi) * scale


def default_args(x, p=2, eps=1e-12):
    return x / (np.sum(np.abs(x) ** p) ** (1 / p) + eps)


@jc.jit(static_argnames=("axis",))
def _normalize_axis(x, axis):
    return x / x.sum(axis=axis, keepdims=True)


@jc.jit
def _softplus(x):
    return np.logaddexp(0.0, x)


def nested_jit(x):
    return _normalize_axis(_softplus(x), 0), _normalize_axis(_softplus(x), 1)


def row_loop_stats(A):
    out = np.empty((A.shape[0], 3))
    for i in range(A.shape[0]):
        r = A[i]
        out[i, 0] = r.mean()
        out[i, 1] = np.sort(r)[r.shape[0] // 2]
        out[i, 2] = (r - r.mean()).std()
    return out


def _iqr_or_flat(r):
    if r.max() == r.min():
        return np.zeros(2)
    return np.percentile(r, [25, 75])


def apply_rows(A):
    return (
        np.apply_along_axis(_iqr_or_flat, 1, A),
        np.apply_along_axis(np.median, 0, A),
        np.apply_along_axis(lambda r: r / r.sum(), 1, np.abs(A) + 1),
    )


def fast_inverse_sqrt(x):
    i = x.view(np.int32)
    y = (np.int32(0x5F3759DF) - (i >> 1)).view(np.float32)
    y = y * (f32(1.5) - f32(0.5) * x * y * y)
    return y, np.abs(y * np.sqrt(x) - 1) < 0.01


def float_bits(x):
    b = x.view(np.uint64)
    return (b >> 52) & 0x7FF, b & ((1 << 52) - 1), (b >> 63).astype(bool), np.signbit(x)


def guarded_log_ratio(a, b):
    try:
        r = np.log(a / b)
    except ZeroDivisionError:
        r = np.zeros_like(a)
    return np.where(np.isfinite(r), r, 0.0)


def _windows(x, w):
    for i in range(x.shape[0] - w + 1):
        yield x[i : i + w]


def user_generator(x):
    return np.array([win.mean() for win in _windows(x, 3)]), sum(win.max() for win in _windows(x, 2))


@jc.jit(static_argnames=("mode",))
def _pad_edges(x, mode="edge"):
    return np.pad(x, 1, mode=mode)


def nested_jit_keywords(x):
    return _pad_edges(x), _pad_edges(x, mode="reflect"), _pad_edges(x=x, mode="wrap")


def integer_means(x):
    return x.mean(), np.mean(x, dtype=np.float32), x.var(), np.average(x), np.median(x), x.std(ddof=1)


def sir_arrays(beta, gamma, n):
    s, i, r = np.empty(n), np.empty(n), np.empty(n)
    s[0], i[0], r[0] = 0.99, 0.01, 0.0
    for t in range(1, n):
        new_inf, new_rec = beta * s[t - 1] * i[t - 1], gamma * i[t - 1]
        s[t] = s[t - 1] - new_inf
        i[t] = i[t - 1] + new_inf - new_rec
        r[t] = r[t - 1] + new_rec
    return s, i, r, np.argmax(i)


def euler_while(y0, h, t_end):
    t, y, steps = 0.0, y0, 0
    while t < t_end - 1e-12:
        y = y + h * (-2.0 * y + np.sin(t))
        t += h
        steps += 1
    return y, steps


def sliding_max(x, w):
    v = np.lib.stride_tricks.sliding_window_view(x, w)
    return v.max(axis=1), v.argmax(axis=1), v.mean(axis=-1)


def distinct_sorted(x):
    s = np.sort(x)
    first = np.concatenate(([True], s[1:] != s[:-1]))
    return first.sum(), np.where(first, s, np.nan), np.cumsum(first) - 1


PROGRAMS = {
    "conv3x3": (
        conv3x3,
        (),
        TIGHT,
        [
            (normal(6, 7), np.array([[1.0, 2, 1], [0, 0, 0], [-1, -2, -1]])),
            (image(5, 5), np.ones((3, 3), f32) / 9),
            (np.arange(20, dtype=np.int32).reshape(4, 5), np.eye(3, dtype=np.int32)),
        ],
    ),
    "integral_box_blur": (integral_box_blur, ("r",), TIGHT, [(image(7, 8), 1), (normal(5, 5, dtype=f32), 2)]),
    "median_filter3": (median_filter3, (), EXACT, [(image(5, 6),), (normal(4, 4),)]),
    "morphology": (
        morphology,
        (),
        EXACT,
        [(RNG.random((6, 7)) > 0.5,), (np.zeros((3, 3), bool),)],
    ),
    "flood_fill": (
        flood_fill,
        (),
        EXACT,
        [
            (np.array([[1, 1, 0, 1], [0, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]], bool), 0, 0),
            (np.array([[1, 0], [0, 1]], bool), 1, 1),
            (np.zeros((3, 3), bool), 1, 1),
        ],
    ),
    "orientation_histogram": (
        orientation_histogram,
        (),
        TIGHT,
        [(image(8, 9),), (np.zeros((4, 4), np.uint8),)],
    ),
    "brighten_uint8": (brighten_uint8, (), TIGHT, [(image(4, 5), 40), (np.array([[0, 255]], np.uint8), 250)]),
    "correlate_modes": (
        correlate_modes,
        (),
        TIGHT,
        [
            (normal(8), normal(3)),
            (np.arange(5), np.array([1, -1])),
            (normal(3, dtype=f32), normal(5, dtype=f32)),
        ],
    ),
    "windows": (windows, (), TIGHT, [(normal(8),), (np.ones(1),), (normal(7, dtype=f32),)]),
    "interp_edges": (
        interp_edges,
        (),
        TIGHT,
        [
            (
                np.array([-1.0, 0.0, 0.5, 2.0, 3.5, 9.0, np.nan]),
                np.array([0.0, 1.0, 2.0, 3.0]),
                np.array([0.0, 10.0, -5.0, 1.0]),
            ),
            (np.linspace(0, 5, 11, dtype=f32), np.array([0.0, 2.0, 4.0]), np.array([1.0, 3.0, 2.0])),
        ],
    ),
    "polyfit_trend": (
        polyfit_trend,
        (),
        TIGHT * 1024,
        [
            (np.linspace(0, 1, 12), 3 * np.linspace(0, 1, 12) ** 2 - 1 + 0.01 * normal(12)),
            (np.arange(5.0), normal(5)),
        ],
    ),
    "zero_crossings": (
        zero_crossings,
        (),
        EXACT,
        [(np.array([1.0, -2.0, -0.0, 0.0, 3.0, np.nan, -np.inf]),), (normal(9, dtype=f32),)],
    ),
    "exponential_smoothing": (
        exponential_smoothing,
        (),
        TIGHT,
        [(normal(10), 0.3), (normal(4, dtype=f32), f32(0.5))],
    ),
    "moving_averages": (moving_averages, ("w",), TIGHT, [(normal(10), 3), (np.arange(6.0), 1)]),
    "percentiles": (
        percentiles,
        (),
        TIGHT,
        [
            (normal(5, 4),),
            (np.array([[1.0, np.nan, 3.0], [2.0, 2.0, 2.0]]),),
            (np.arange(12, dtype=np.int32).reshape(3, 4),),
        ],
    ),
    "covariances": (
        covariances,
        (),
        TIGHT * 16,
        [(normal(3, 6), np.arange(1.0, 7.0)), (np.arange(8, dtype=np.int64).reshape(2, 4) ** 2, np.ones(4))],
    ),
    "histogram_auto": (
        histogram_auto,
        (),
        TIGHT,
        [(normal(20),), (np.array([2.0, 2.0, 2.0]),), (np.arange(10, dtype=np.int32),)],
    ),
    "weighted_average": (
        weighted_average,
        (),
        TIGHT,
        [(normal(4, 3), RNG.random((4, 3))), (np.arange(6).reshape(3, 2), np.ones((3, 2), np.int64))],
    ),
    "bootstrap_means": (
        bootstrap_means,
        (),
        TIGHT,
        [
            (normal(10), RNG.integers(0, 10, (20, 10))),
            (np.arange(5, dtype=np.int16), RNG.integers(0, 5, (6, 5))),
        ],
    ),
    "moments": (moments, (), TIGHT * 4, [(normal(30),), (np.array([1, 2, 2, 9], np.int8),)]),
    "sir": (
        sir,
        (),
        TIGHT * 16,
        [(0.3, 0.1, 0.99, 0.01, 0.5, 20.0), (f32(0.5), f32(0.2), f32(0.9), f32(0.1), f32(1.0), f32(3.0))],
    ),
    "random_walk": (
        random_walk,
        (),
        EXACT,
        [(RNG.choice([-1, 1], (3, 20)), 4), (np.array([1.0, -1.0, 1.0]), 5.0)],
    ),
    "nbody_step": (
        nbody_step,
        (),
        TIGHT * 4,
        [
            (normal(5, 3), normal(5, 3), RNG.random(5), 0.01),
            (normal(1, 2, dtype=f32), normal(1, 2, dtype=f32), np.ones(1, f32), f32(0.1)),
        ],
    ),
    "lorenz_rk4": (
        lorenz_rk4,
        (),
        TIGHT * 64,
        [(np.array([1.0, 1.0, 1.0]), 0.01, 100), (np.array([0.0, 0.0, 0.0]), 0.1, 3)],
    ),
    "heat_2d": (heat_2d, ("steps",), TIGHT, [(normal(6, 6), 0.2, 5), (np.eye(4, dtype=f32), f32(0.1), 2)]),
    "drawdowns": (
        drawdowns,
        (),
        TIGHT,
        [(0.02 * normal(15),), (np.array([0.1, -0.5, 0.2, 0.0]),), (np.zeros(1, f32),)],
    ),
    "irr_newton": (
        irr_newton,
        (),
        TIGHT * 16,
        [(np.array([-100.0, 30, 40, 50]), 0.1), (np.array([-1.0, 1.1]), 0.0)],
    ),
    "lexsort_keys": (
        lexsort_keys,
        (),
        EXACT,
        [
            (np.array([2, 1, 2, 1, 0]), np.array([5.0, 3.0, 1.0, np.nan, 2.0])),
            (np.zeros(0, np.int32), np.zeros(0)),
        ],
    ),
    "searchsorted_sorter": (
        searchsorted_sorter,
        (),
        EXACT,
        [
            (np.array([3.0, 1.0, 2.0, 1.0, np.nan]), np.array([1.0, 2.5, np.nan, -np.inf])),
            (np.array([5, 2, 9], np.int16), np.array([2, 10])),
        ],
    ),
    "split_sums": (split_sums, (), EXACT, [(np.arange(10),), (np.arange(3.0),)]),
    "group_sums_sorted": (
        group_sums_sorted,
        ("k",),
        TIGHT,
        [
            (np.array([2, 0, 2, 1, 0, 2]), normal(6), 4),
            (np.array([1, 1], np.int32), np.array([3, 4], np.int16), 2),
        ],
    ),
    "bin_sorted_data": (
        bin_sorted_data,
        (),
        EXACT,
        [
            (np.array([2.0, np.nan, 1.0, 3.0, 2.0]), np.array([np.nan, 2.0, 0.0, 5.0, -np.inf])),
            (np.array([5, 1, 9], np.uint8), np.array([0, 5, 300])),
        ],
    ),
    "masked_fill": (
        masked_fill,
        (),
        TIGHT,
        [(np.array([0.5, np.nan, 2.0, -1.0, 0.9, np.inf]), 0.0, 1.0), (np.zeros(0), 0.0, 1.0)],
    ),
    "int16_mix": (
        int16_mix,
        (),
        EXACT,
        [(np.array([30000, -30000, 5, -32768], np.int16), np.array([10000, -10000, -7, -1], np.int16))],
    ),
    "float16_pipeline": (float16_pipeline, (), TIGHT, [(np.array([0.5, -1.0, 2.0, 0.0, 11.0], f16),)]),
    "bool_math": (
        bool_math,
        (),
        EXACT,
        [(np.array([True, False, True, False]), np.array([True, True, False, False]))],
    ),
    "ldexp_frexp": (
        ldexp_frexp,
        (),
        EXACT,
        [
            (
                np.array([0.0, -0.0, 1.0, -3.5, 1e-310, np.inf, np.nan, 1e300]),
                np.array([1, -2, 3, 0, 5, 1, 2, 100]),
            ),
            (np.array([0.75, -8.0], f32), np.array([2, -130], np.int32)),
            (f32(6.0), 3),
        ],
    ),
    "generator_stats": (generator_stats, (), TIGHT, [(normal(5),), (np.array([-3, 2, 1], np.int8),)]),
    "enumerate_weights": (enumerate_weights, (), TIGHT, [(normal(4, 3),), (np.ones((2, 2), f32),)]),
    "keyword_only": (keyword_only, (), EXACT, [(normal(5),), (np.arange(4, dtype=np.int8),)]),
    "default_args": (default_args, (), TIGHT, [(normal(5),), (np.zeros(3, f32),)]),
    "nested_jit": (nested_jit, (), TIGHT, [(normal(3, 4),), (np.zeros((2, 2), f32),)]),
    "row_loop_stats": (row_loop_stats, (), TIGHT, [(normal(5, 7),), (np.arange(6.0).reshape(2, 3),)]),
    "user_generator": (user_generator, (), TIGHT, [(np.arange(6.0),), (np.array([3, 1, 4, 1], np.int16),)]),
    "nested_jit_keywords": (nested_jit_keywords, (), EXACT, [(np.arange(4.0),)]),
    "integer_means": (
        integer_means,
        (),
        TIGHT,
        [
            (np.array([1, 2, 3, 100], np.int8),),
            (np.array([2**40, 3, 2**40]),),
            (np.array([1, 250], np.uint8),),
        ],
    ),
    "sir_arrays": (sir_arrays, ("n",), TIGHT * 4, [(0.3, 0.1, 40)]),
    "euler_while": (euler_while, (), TIGHT * 4, [(1.0, 0.1, 2.0), (np.array([1.0, -1.0]), 0.25, 1.0)]),
    "sliding_max": (sliding_max, ("w",), TIGHT, [(np.array([1.0, 3.0, 2.0, np.nan, 5.0, 0.0]), 3)]),
    "distinct_sorted": (
        distinct_sorted,
        (),
        EXACT,
        [(np.array([3.0, 1.0, 3.0, 2.0, 1.0, np.nan, np.nan]),), (np.array([1, 1, 1], np.int8),)],
    ),
    "apply_rows": (apply_rows, (), TIGHT, [(normal(6, 4),), (np.array([[1.0, 1.0, 1.0], [0.0, 2.0, 5.0]]),)]),
    "fast_inverse_sqrt": (fast_inverse_sqrt, (), EXACT, [(np.array([0.25, 1.0, 2.0, 100.0, 1e-3], f32),)]),
    "float_bits": (float_bits, (), EXACT, [(np.array([1.0, -2.5, 0.0, -0.0, np.inf, np.nan, 5e-324]),)]),
    "guarded_log_ratio": (
        guarded_log_ratio,
        (),
        TIGHT,
        [
            (np.array([1.0, 2.0, 0.0, -1.0]), np.array([2.0, 0.0, 0.0, 1.0])),
            (np.arange(3, dtype=f32) + 1, f32(2)),
        ],
    ),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


def _positive_rows_doubled(r):
    if r[0] > 0:
        return r * 2
    return r


def test_a_user_catches_jitcores_errors_and_falls_back_to_numpy():
    # try/except around jitted code: jitcore's errors are catchable, with words that say why.
    def quotient_or_numpys(u, v):  # np.roots, refused here in round 5, is compiled since round 6
        try:
            return jc.jit(np.polydiv)(u, v)
        except jc.UnsupportedError as e:
            assert "polydiv" in str(e)
            return np.polydiv(u, v)

    q, _ = quotient_or_numpys(np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0]))
    np.testing.assert_allclose(q, [1.0, -2.0])
    x = np.eye(3) - 0.5
    f = jc.jit(lambda A: np.apply_along_axis(_positive_rows_doubled, 1, A), autograph=False)
    with pytest.raises(jc.ConcretizationError):
        f(x)  # without AutoGraph, func1d's if on a traced value cannot compile


# A program jitcore refuses: (function, arguments, error type, words of its message).
REFUSED = {
    "np.unique with axis": (lambda A: np.unique(A, axis=0), (np.eye(3),), jc.JitTypeError, "distinct"),
    "np.histogram with bins='auto'": (
        lambda x: np.histogram(x, bins="auto"),
        (normal(9),),
        jc.UnsupportedError,
        "with or without range=",
    ),
    "np.polyfit with full=True": (
        lambda x: np.polyfit(x, x, 1, full=True),
        (normal(4),),
        jc.UnsupportedError,
        "lstsq",
    ),
    "x.view as complex": (lambda x: x[:3].view(np.complex128), (normal(4),), jc.UnsupportedError, "view"),
    "np.ldexp with float exponents": (lambda x: np.ldexp(x, x), (normal(3),), jc.JitTypeError, "ldexp"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    fn, args, error, words = REFUSED[case]
    with pytest.raises(error, match=words):
        jc.jit(fn)(*args)
