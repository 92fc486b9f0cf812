"""A new user's NumPy programs (audit10b): small scientific functions written as NumPy's docs
and tutorials write them (numerical methods, statistics, signal and image processing, finance,
physics stencils, machine-learning pieces), none of them from this repository's other tests,
each run under ``jc.jit`` against NumPy on a few inputs chosen for their edges: float32,
float64 and integers, 0-d, size 0, non-contiguous views, broadcasting, NaN/inf/-0.0, integer
overflow and division by zero.

A result must have NumPy's type (NumPy scalar or array), dtype and shape. Integers and bools are
compared exactly; floats within ``rtol`` of the largest finite magnitude of the result (NaN
where NumPy has NaN, the same infinities): ``EXACT`` for elementwise arithmetic in the order
written, a few units of the dtype's epsilon (``TIGHT``) where jitcore's math library or a
reduction's order rounds differently from NumPy, more where a program amplifies that (said by
the program). No program may change its arguments.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from tests.programs.like_numpy import EXACT, cases_and_jitted, compare_like_numpy

TIGHT = 64  # eps of the result dtype: math-library ULPs and reassociated sums of a few terms
f32 = np.float32
RNG = np.random.default_rng(20261202)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


SPECIAL = np.array([0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, -2.5, 3.0])
IMAGE = RNG.integers(0, 256, (9, 11), dtype=np.uint8)


def strided(a):
    """The same values through every other element of a twice-as-long array."""
    return np.repeat(a, 2, axis=0)[::2]


# ---------------------------------------------------------------------------- the programs
def trapezoid(y, x):
    return 0.5 * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]))


def simpson(y, h):
    return h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    s = x - m
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def zscore(x):
    return (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)


def ema(x, alpha):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(x.shape[0]):
        acc = alpha * x[i] + (1 - alpha) * acc
        out[i] = acc
    return out


def max_drawdown(prices):
    peak = np.maximum.accumulate(prices)
    dd = (prices - peak) / peak
    return dd.min(), dd


def black_scholes_call(S, K, T, r, sigma):
    def ncdf(z):  # the logistic approximation of the normal CDF
        return 1.0 / (1.0 + np.exp(-1.702 * z))

    d1 = (np.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * ncdf(d1) - K * np.exp(-r * T) * ncdf(d2)


def gradient_magnitude(f):
    gy, gx = np.gradient(f)
    return np.hypot(gx, gy)


def laplacian_periodic(u):
    return np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u


def jacobi_poisson(u, f, h, iters):
    for _ in range(iters):
        un = u.copy()
        un[1:-1, 1:-1] = 0.25 * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - h * h * f[1:-1, 1:-1]
        )
        u = un
    return u


def game_of_life(board):
    n = sum(np.roll(np.roll(board, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
    return ((n == 3) | (board & (n == 2))).astype(board.dtype)


def convolve_modes(x, k):
    return np.convolve(x, k, mode="same"), np.convolve(x, k, mode="valid")


def moving_average(x, w):
    c = np.cumsum(np.concatenate([np.zeros(1, x.dtype), x]))
    return (c[w:] - c[:-w]) / w


def count_peaks(x):
    d = np.diff(x)
    return np.count_nonzero((d[:-1] > 0) & (d[1:] < 0))


def rgb_to_gray(img):
    g = img[..., :3] @ np.array([0.299, 0.587, 0.114])
    return np.clip(np.round(g), 0, 255).astype(np.uint8)


def box_blur(img, r):
    s = np.pad(img, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    k = 2 * r + 1
    return (s[k:, k:] - s[:-k, k:] - s[k:, :-k] + s[:-k, :-k]) / (k * k)


def sobel(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (
        img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2]
    )
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (
        img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:]
    )
    return np.sqrt(gx * gx + gy * gy)


def histogram_equalize(img):
    h = np.bincount(img.ravel(), minlength=256)
    cdf = h.cumsum()
    cdf = (cdf - cdf.min()) * 255 // max(cdf.max() - cdf.min(), 1)
    return cdf.astype(np.uint8)[img]


def logistic_regression_step(w, X, y, lr):
    p = 1 / (1 + np.exp(-(X @ w)))
    return w - lr * (X.T @ (p - y) / y.shape[0])


def cross_entropy(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(labels.shape[0]), labels].mean()


def nearest_neighbour(a, b):
    d = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    return d.argmin(axis=1), np.sqrt(d.min(axis=1))


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(-1, keepdims=True) + eps) * g + b


def mlp(x, w1, b1, w2, b2):
    return np.tanh(np.maximum(x @ w1 + b1, 0) @ w2 + b2)


def power_iteration(A, iters):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    for _ in range(iters):
        v = A @ v
        v = v / np.linalg.norm(v)
    return v @ A @ v


def newton_polynomial_root(c, x0, iters):
    dc = np.polyder(c)
    x = x0
    for _ in range(iters):
        x = x - np.polyval(c, x) / np.polyval(dc, x)
    return x


def rk4_oscillator(y0, dt, n):
    def f(y):
        return np.array([y[1], -y[0]])

    y = y0
    for _ in range(n):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def sieve(n):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(n**0.5) + 1):
        if is_prime[i]:
            is_prime[i * i :: i] = False
    return np.flatnonzero(is_prime)


def integer_sums(x):
    return (x * x).sum(), np.square(x).cumsum(), x.prod()


def robust_statistics(x):
    med = np.median(x)
    return med, np.median(np.abs(x - med)), np.percentile(x, [5, 95])


def welford(x):
    n, mean, m2 = 0, 0.0, 0.0
    for v in x:
        n += 1
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
    return mean, m2 / (n - 1)


def binned_mean(x, y, edges):
    idx = np.digitize(x, edges)
    s = np.bincount(idx, weights=y, minlength=edges.size + 1)
    return s / np.maximum(np.bincount(idx, minlength=edges.size + 1), 1)


def nan_statistics(x):
    return np.nanmean(x, axis=0), np.nanstd(x, axis=0), np.nanmax(x), np.nancumsum(x, axis=1)


def dft(x):
    k = np.arange(x.shape[0])
    return np.exp(-2j * np.pi * np.outer(k, k) / x.shape[0]) @ x


def bilinear(img, ys, xs):
    y0 = np.clip(np.floor(ys).astype(np.int64), 0, img.shape[0] - 2)
    x0 = np.clip(np.floor(xs).astype(np.int64), 0, img.shape[1] - 2)
    fy, fx = ys - y0, xs - x0
    top = img[y0, x0] * (1 - fx) + img[y0, x0 + 1] * fx
    bottom = img[y0 + 1, x0] * (1 - fx) + img[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def kahan_sum(x):
    s = np.zeros((), x.dtype)
    c = np.zeros((), x.dtype)
    for i in range(x.shape[0]):
        y = x[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def safe_divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(b != 0, a / b, 0.0)
    return q, np.true_divide(a, b), a // b, a % b


def to_polar(x, y):
    return np.hypot(x, y), np.degrees(np.arctan2(y, x)), np.copysign(1.0, x), np.sign(y)


def rolling_std(x, w):
    return sliding_window_view(x, w).std(axis=-1)


def gini(x):
    cum = np.cumsum(np.sort(x))
    n = x.shape[0]
    return (n + 1 - 2 * (cum / cum[-1]).sum()) / n


def normal_equations(X, y):
    A = np.column_stack([np.ones(X.shape[0]), X])
    beta = np.linalg.solve(A.T @ A, A.T @ y)
    return beta, ((y - A @ beta) ** 2).sum()


def confusion_matrix(y_true, y_pred, k):
    m = np.zeros((k, k), dtype=np.int64)
    np.add.at(m, (y_true, y_pred), 1)
    return m


def one_hot(labels, k):
    return (labels[:, None] == np.arange(k)).astype(np.float32)


def uint8_arithmetic(a, b):
    return a + b, a - b, (a.astype(np.uint16) + b) // 2, np.abs(a.astype(np.int16) - b)


def mahalanobis(x, mu, cov):
    d = x - mu
    return np.sqrt(np.einsum("ij,jk,ik->i", d, np.linalg.inv(cov), d))


def tridiagonal(n, x):
    A = np.diag(np.full(n, -2.0)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    return A @ x, np.trace(A), np.triu(A).sum()


def ranks(x):
    order = np.argsort(x, kind="stable")
    r = np.empty_like(order)
    r[order] = np.arange(x.shape[0])
    return r


def top_k(x, k):
    return np.sort(x[np.argpartition(-x, k)[:k]])[::-1]


def spike_counts(drive, dt, n):
    v = np.zeros_like(drive)
    spikes = np.zeros(drive.shape, np.int64)
    for _ in range(n):
        v = v + dt * (-v + drive)
        fired = v > 1.0
        spikes += fired
        v = np.where(fired, 0.0, v)
    return v, spikes


def float_edges(a, b):
    return a // b, a % b, np.fmod(a, b), a**b, np.maximum(a, b), np.fmax(a, b)


def integer_overflow(x):
    return x**3, np.square(x), x << 2, x >> 1, x * np.int64(2**40)


def float_to_int(x):
    return x.astype(np.int64), x.astype(np.int8), x.astype(np.uint8)


def amortization(P, rate, n):
    r = rate / 12
    pay = P * r / (1 - (1 + r) ** -n)
    grow = (1 + r) ** np.arange(n + 1)
    return pay, P * grow - pay * (grow - 1) / r


# ------------------------------------------------------------------- inputs and tolerances
# name: (function, static_argnames, rtol in eps of the result dtype, [arguments, ...])
PROGRAMS = {
    "trapezoid": (
        trapezoid,
        (),
        TIGHT,
        [
            (normal(10), np.linspace(0, 1, 10)),
            (normal(7, dtype=f32), np.linspace(0, 1, 7).astype(f32)),
            (np.zeros(0), np.zeros(0)),
            (SPECIAL, np.arange(8.0)),
            (strided(normal(7)), normal(7)[::-1]),
        ],
    ),
    "simpson": (simpson, (), TIGHT, [(normal(11), 0.1), (np.arange(9), 2), (strided(normal(5)), f32(0.3))]),
    "log_softmax": (
        log_softmax,
        (),
        TIGHT,
        [
            (normal(4, 7),),
            (normal(3, 5, dtype=f32),),
            (normal(0, 4),),
            (normal(6, 4).T,),
            (np.array([[0.0, -np.inf, 1.0], [np.inf, 0.0, 1.0], [np.nan, 1.0, 2.0]]),),
        ],
    ),
    "zscore": (
        zscore,
        (),
        TIGHT,
        [
            (normal(8, 3),),
            (np.arange(12).reshape(4, 3),),
            (normal(1, 3),),
            (normal(3, 6)[:, ::2],),
            (np.array([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]]),),
        ],
    ),
    "ema": (ema, (), TIGHT, [(normal(10), 0.3), (normal(4, 3, dtype=f32), f32(0.1)), (SPECIAL, 0.5)]),
    "max_drawdown": (
        max_drawdown,
        (),
        EXACT,
        [
            (np.abs(normal(30)) + 1,),
            (np.array([3, 5, 2, 8, 1]),),
            (np.array([1.0, np.nan, 2.0]),),
            (np.array([0.0, 1.0]),),
        ],
    ),
    "black_scholes_call": (
        black_scholes_call,
        (),
        TIGHT,
        [
            (np.linspace(50, 150, 7), 100.0, 1.0, 0.05, 0.2),
            (f32(100), f32(90), f32(0.5), f32(0.01), f32(0.3)),
            (100.0, np.linspace(80, 120, 5), np.array([[0.5], [1.0]]), 0.03, 0.25),
            (100, 100, 0.0, 0.05, 0.2),
        ],
    ),
    "gradient_magnitude": (
        gradient_magnitude,
        (),
        TIGHT,
        [(normal(5, 6),), (np.arange(12).reshape(3, 4),), (normal(6, 5, dtype=f32).T,)],
    ),
    "laplacian_periodic": (
        laplacian_periodic,
        (),
        EXACT,
        [
            (normal(5, 6),),
            (np.arange(12, dtype=np.int8).reshape(3, 4) * 20,),
            (normal(0, 4),),
            (normal(6, 5)[::-1, ::2],),
        ],
    ),
    "jacobi_poisson": (
        jacobi_poisson,
        ("iters",),
        EXACT,
        [(np.zeros((6, 7)), normal(6, 7), 0.1, 5), (normal(2, 5), normal(2, 5), 1.0, 2)],
    ),
    "jacobi_poisson, traced count": (
        jacobi_poisson,
        (),
        EXACT,
        [(np.zeros((5, 5)), normal(5, 5), 0.1, np.int64(4))],
    ),
    "game_of_life": (
        game_of_life,
        (),
        EXACT,
        [((RNG.random((8, 9)) < 0.3).astype(np.int8),), (RNG.random((6, 6)) < 0.5,)],
    ),
    "convolve_modes": (
        convolve_modes,
        (),
        TIGHT,
        [(normal(20), np.ones(5) / 5), (np.arange(7), np.array([1, -1])), (normal(9)[::-1], normal(4))],
    ),
    "moving_average": (moving_average, ("w",), TIGHT, [(normal(20), 4), (np.arange(8), 2), (normal(5), 5)]),
    "count_peaks": (
        count_peaks,
        (),
        EXACT,
        [(normal(40),), (np.array([1, 3, 2, 5, 4, 4, 6, 1]),), (np.zeros(0),), (SPECIAL,)],
    ),
    "rgb_to_gray": (
        rgb_to_gray,
        (),
        EXACT,
        [(RNG.integers(0, 256, (4, 5, 3), dtype=np.uint8),), (RNG.uniform(0, 300, (3, 4, 4)),)],
    ),
    "box_blur": (
        box_blur,
        ("r",),
        TIGHT,
        [(normal(8, 9), 1), (IMAGE.astype(np.int64), 1), (normal(9, 8).T, 2)],
    ),
    "sobel": (sobel, (), EXACT, [(normal(6, 7),), (IMAGE,), (IMAGE.T,)]),
    "histogram_equalize": (histogram_equalize, (), EXACT, [(IMAGE,), (np.zeros((3, 3), np.uint8),)]),
    "logistic_regression_step": (
        logistic_regression_step,
        (),
        TIGHT,
        [
            (normal(3), normal(10, 3), (normal(10) > 0).astype(float), 0.1),
            (normal(3), normal(3, 10).T, normal(10) > 0, 0.5),
        ],
    ),
    "cross_entropy": (
        cross_entropy,
        (),
        TIGHT,
        [
            (normal(5, 3), np.array([0, 2, 1, 2, 0])),
            (normal(3, 5, dtype=f32).T, np.array([0, 2, 1, 2, 0], np.int32)),
        ],
    ),
    "nearest_neighbour": (
        nearest_neighbour,
        (),
        TIGHT,
        [
            (normal(6, 2), normal(4, 2)),
            (np.arange(6).reshape(3, 2), np.arange(4).reshape(2, 2)),
            (normal(0, 2), normal(3, 2)),
        ],
    ),
    "layer_norm": (
        layer_norm,
        (),
        TIGHT,
        [
            (normal(4, 8), np.ones(8), np.zeros(8), 1e-5),
            (normal(2, 3, 5, dtype=f32), np.ones(5, f32), np.zeros(5, f32), f32(1e-5)),
        ],
    ),
    "mlp": (
        mlp,
        (),
        TIGHT,
        [
            (normal(4, 5), normal(5, 8), normal(8), normal(8, 2), normal(2)),
            (
                normal(5),
                normal(5, 8, dtype=f32),
                normal(8, dtype=f32),
                normal(8, 2, dtype=f32),
                normal(2, dtype=f32),
            ),
        ],
    ),
    # A traced iteration count: one compiled loop.
    "power_iteration": (power_iteration, (), TIGHT, [(np.diag([3.0, 1.0, 0.5]) + 0.01, np.int64(30))]),
    "newton_polynomial_root": (
        newton_polynomial_root,
        ("iters",),
        TIGHT,
        [(np.array([1.0, -6.0, 11.0, -6.0]), np.array([0.5, 1.8, 3.7]), 10), (np.array([1, 0, -2]), 1.0, 6)],
    ),
    "rk4_oscillator": (
        rk4_oscillator,
        (),
        TIGHT,
        [(np.array([1.0, 0.0]), 0.01, np.int64(100)), (np.array([1.0, 0.0], f32), f32(0.1), 3)],
    ),
    "sieve": (sieve, ("n",), EXACT, [(30,), (1,)]),
    "integer_sums": (
        integer_sums,
        (),
        EXACT,
        [
            (np.arange(1, 60000, 97, dtype=np.int32),),
            (np.arange(-120, 120, 7, dtype=np.int8),),
            (np.array([200, 100], np.uint8),),
        ],
    ),
    "robust_statistics": (
        robust_statistics,
        (),
        TIGHT,
        [(normal(21),), (np.arange(10),), (np.array([1.0, np.nan, 3.0]),)],
    ),
    "welford": (welford, (), TIGHT, [(normal(9),), (np.arange(6),)]),
    "binned_mean": (
        binned_mean,
        (),
        TIGHT,
        [
            (normal(30), normal(30), np.linspace(-2, 2, 5)),
            (np.array([np.nan, -np.inf, 1.0, np.inf]), np.ones(4), np.array([0.0, 2.0])),
        ],
    ),
    "nan_statistics": (
        nan_statistics,
        (),
        TIGHT,
        [(np.where(normal(5, 4) > 1, np.nan, normal(5, 4)),), (np.full((2, 3), np.nan),)],
    ),
    "dft": (
        dft,
        (),
        TIGHT * 8,
        [(normal(8),), (normal(5) + 1j * normal(5),)],
    ),  # exp(-2j pi k n / N) of large k n
    "bilinear": (
        bilinear,
        (),
        EXACT,
        [
            (normal(5, 6), np.array([0.5, 1.2, 3.9, 0.0]), np.array([0.1, 4.5, 2.2, 5.0])),
            (np.arange(12.0).reshape(3, 4), np.array([-1.0, 5.0]), np.array([-3.0, 9.0])),
        ],
    ),
    "kahan_sum": (
        kahan_sum,
        (),
        EXACT,
        [(normal(12),), (normal(9, dtype=f32),), (np.array([1e16, 1.0, -1e16]),)],
    ),
    "safe_divide": (
        safe_divide,
        (),
        EXACT,
        [
            (normal(6), np.array([1.0, 0.0, -0.0, 2.0, np.inf, np.nan])),
            (np.arange(-3, 3), np.array([0, 1, -1, 2, 0, 3])),
            (np.array([-128, 7], np.int8), np.array([-1, 0], np.int8)),
        ],
    ),
    "to_polar": (
        to_polar,
        (),
        TIGHT,
        [
            (SPECIAL, SPECIAL[::-1].copy()),
            (np.arange(-2, 3), np.arange(5)),
            (np.float64(-0.0), np.float64(-0.0)),
        ],
    ),
    "rolling_std": (rolling_std, ("w",), TIGHT, [(normal(20), 5), (normal(8)[::2], 2)]),
    "gini": (gini, (), TIGHT, [(np.abs(normal(20)),), (np.arange(1, 6),)]),
    "normal_equations": (normal_equations, (), 1e4, [(normal(20, 2), normal(20))]),  # conditioning of A.T A
    "confusion_matrix": (
        confusion_matrix,
        ("k",),
        EXACT,
        [
            (np.array([0, 1, 2, 1, 0]), np.array([0, 2, 2, 1, 1]), 3),
            (np.zeros(0, np.int64), np.zeros(0, np.int64), 2),
        ],
    ),
    "one_hot": (one_hot, ("k",), EXACT, [(np.array([0, 2, 1]), 3), (np.array([5, -1, 0]), 3)]),
    "uint8_arithmetic": (
        uint8_arithmetic,
        (),
        EXACT,
        [
            (np.array([250, 3, 0], np.uint8), np.array([10, 5, 1], np.uint8)),
            (np.array([7], np.uint8), np.uint8(9)),
        ],
    ),
    "mahalanobis": (mahalanobis, (), TIGHT * 4, [(normal(5, 3), normal(3), np.eye(3) * 2 + 0.1)]),
    # A @ x: NumPy's is its BLAS's order (FMAs on some hosts), jitcore's matvec its own (matvec36).
    "tridiagonal": (tridiagonal, ("n",), TIGHT, [(5, normal(5)), (1, normal(1))]),
    "ranks": (
        ranks,
        (),
        EXACT,
        [(normal(10),), (np.array([3, 1, 3, 2, 1]),), (np.array([np.nan, 1.0, -np.inf, 0.0, -0.0]),)],
    ),
    "top_k": (top_k, ("k",), EXACT, [(normal(10), 3), (np.array([5, 1, 9, 3]), 2)]),
    "spike_counts": (spike_counts, (), EXACT, [(np.linspace(0.5, 3, 6), 0.1, np.int64(50))]),  # a traced loop
    "float_edges": (
        float_edges,
        (),
        EXACT,
        [
            (SPECIAL, SPECIAL[::-1].copy()),
            (SPECIAL[:, None], SPECIAL[None, :]),
            (np.float64(-0.0), np.float64(np.inf)),
        ],
    ),
    "integer_overflow": (
        integer_overflow,
        (),
        EXACT,
        [
            (np.array([3, -5, 2**21 + 1, 2**40], np.int64),),
            (np.array([-128, -1, 0, 127], np.int8),),
            (np.array([2**31 - 1, -(2**31)], np.int32),),
        ],
    ),
    "float_to_int": (float_to_int, (), EXACT, [(np.array([1.5, -1.5, 2.5, -0.0, 255.9, -129.0, 300.0]),)]),
    "amortization": (amortization, ("n",), TIGHT, [(1000.0, 0.05, 12), (f32(500), f32(0.1), 3)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    fn, _, rtol, cases = PROGRAMS[name]
    args = cases[k]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # 0/0 and overflow in the edge cases: not under test
        want = fn(*_copies(args))
        given = _copies(args)
        got = JITTED[name](*given)
    for before, after in zip(args, given, strict=True):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(after, before, err_msg=f"{name} wrote its argument")
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert isinstance(got, tuple) and len(got) == len(want), (name, got, want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        compare_like_numpy(g, w, rtol, f"{name}, input {k}, result {i}")
