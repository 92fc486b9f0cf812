"""A new user's NumPy programs, third round (audit25): where the first two audits did not go.
Python loops and branches over arrays made inside the function (np.zeros/np.empty filled in a
for loop, while loops that test a traced value for convergence, early returns), helpers and
other jitted functions, keyword arguments and defaults, static arguments, tuples, lists and dicts
of results, np.where/select/clip/searchsorted/cumsum/diff/convolve/interp/histogram/bincount/
sort/argsort/linalg, integers mixed with floats and Python scalars (NEP 50), boolean masks,
fancy indexing, reshape/transpose/concatenate/stack and complex numbers; each on a few inputs
chosen for their edges (float32/float64/ints, 0-d, size 0, non-contiguous views, broadcasting,
NaN/inf/-0.0, integer overflow, division by zero), under ``jc.jit`` against NumPy.

A result must have NumPy's type (a NumPy scalar or a Python number where NumPy gives one,
else an array), dtype and shape; integers and bools exactly, floats within ``rtol`` units of
the dtype's epsilon of the result's largest finite magnitude (``EXACT``: bit for bit, NaN where
NumPy has NaN). Arguments must be left as NumPy leaves them (one program writes its argument).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitcore as jc
from tests.programs.like_numpy import EXACT, cases_and_jitted, compare_like_numpy

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
RNG = np.random.default_rng(20261225)
SPECIAL = np.array([0.0, -0.0, 1.0, np.nan, np.inf, -np.inf, -2.5, 3.0])


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


class Kw:
    """A call with keyword arguments: ``Kw(x, delta=0.5)``."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


# ------------------------------------------------------ loops and branches over local arrays
def cumulative_trapezoid(y, dx):
    out = np.zeros(y.shape[0])
    for i in range(1, y.shape[0]):
        out[i] = out[i - 1] + 0.5 * dx * (y[i] + y[i - 1])
    return out


def bisection_sqrt(a, tol=1e-12):
    lo = np.zeros_like(a)
    hi = np.maximum(a, 1.0)
    while np.max(hi - lo) > tol:  # a traced convergence test: one compiled loop
        mid = 0.5 * (lo + hi)
        lo = np.where(mid * mid < a, mid, lo)
        hi = np.where(mid * mid < a, hi, mid)
    return 0.5 * (lo + hi)


def newton_sqrt2(x0):
    x, n = x0, 0
    while np.abs(x * x - 2.0) > 1e-12 and n < 50:
        x = x - (x * x - 2.0) / (2 * x)
        n += 1
    return x, n


def normalize_rows(x):
    if x.ndim == 1:  # an early return on a shape
        return x / np.linalg.norm(x)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def count_above(x, t):
    c = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            c += 1
    return c


def first_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return i
    return -1


def hilbert(n):
    H = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            H[i, j] = 1.0 / (i + j + 1)
    return H


def running_max(x):
    out = np.empty_like(x)
    m = x[0]
    for i in range(x.shape[0]):
        m = max(m, x[i])
        out[i] = m
    return out


def column_norms(X):
    n, m = X.shape
    out = np.zeros(m)
    for j in range(m):
        out[j] = np.sqrt(np.sum(X[:, j] ** 2))
    return out


def horner_complex(c, z):
    acc = np.zeros_like(z)
    for k in range(c.shape[0]):
        acc = acc * z + c[k]
    return acc


def matrix_power_by_squaring(A, k):
    R = np.eye(A.shape[0], dtype=A.dtype)
    B = A
    while k > 0:  # k is static: Python's loop, unrolled
        if k & 1:
            R = R @ B
        B = B @ B
        k >>= 1
    return R


def heat_1d(u, alpha, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def wave_1d(u0, c, steps):
    u_prev, u = u0.copy(), u0.copy()
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return u


def lcg(seed, n):
    out = np.zeros(n, dtype=np.uint32)
    s = np.uint32(seed)
    for i in range(n):
        s = s * np.uint32(1664525) + np.uint32(1013904223)  # wraps modulo 2**32
        out[i] = s
    return out


def euclid_gcd(a, b):
    while np.any(b != 0):
        safe = np.where(b != 0, b, 1)
        a, b = np.where(b != 0, b, a), np.where(b != 0, a % safe, 0)
    return a


# --------------------------------------------------- helpers, keywords, statics, containers
@jc.jit
def _square(x):
    return x * x


def _centered(x):
    return x - x.mean()


def variance_via_helpers(x):
    return _square(_centered(x)).mean()


def huber(r, delta=1.0, *, scale=1.0):
    a = np.abs(r / scale)
    return np.where(a <= delta, 0.5 * a**2, delta * (a - 0.5 * delta))


def polynomial_features(x, degree):
    return np.stack([x**k for k in range(degree + 1)], axis=-1)


def split_signs(x):
    return [np.where(x > 0, x, 0), np.where(x < 0, x, 0)], x.sum()


def summary(x):
    return {"mean": x.mean(), "std": x.std(), "range": [x.min(), x.max()]}


def scale_in_place(x, *, factor=2):
    x *= factor


def sharpe_ratio(returns, rf=0.0, periods=252):
    excess = returns - rf / periods
    return np.sqrt(periods) * excess.mean() / excess.std(ddof=1)


def radial_mask(n):
    y, x = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    r = np.hypot(x - n / 2, y - n / 2)
    return np.where(r < n / 3, 1.0, 0.0), (x, (y, r.max()))


# ------------------------------------------------------------------- NumPy's library calls
def piecewise_tax(income):
    return np.select(
        [income < 10000, income < 50000],
        [income * 0.0, (income - 10000) * 0.2],
        default=8000 + (income - 50000) * 0.4,
    )


def smooth_step(x):
    return np.select([x < -1, (x >= -1) & (x <= 1)], [np.full_like(x, -1), x**3], default=1.0)


def quantize(x, edges):
    idx = np.searchsorted(edges, np.clip(x, edges[0], edges[-1]), side="right") - 1
    return np.clip(idx, 0, edges.shape[0] - 2)


def searchsorted_grid(edges, q):
    return np.searchsorted(edges, q), np.searchsorted(edges, q, side="right")


def cumsum_and_diff(x):
    return np.diff(np.cumsum(x), prepend=0), np.diff(x, n=2)


def cumulative_2d(x):
    return np.cumsum(x, axis=0, dtype=np.float64), np.diff(x, axis=-1, append=0), np.cumprod(x, axis=1)


def resample(t, y, n):
    return np.interp(np.linspace(t[0], t[-1], n), t, y)


def interp_clamped(x, xp, fp):
    return np.interp(x, xp, fp, left=-1.0, right=np.nan)


def histogram_fixed_range(x, bins):
    return np.histogram(x, bins=bins, range=(-3.0, 3.0))


def group_means(g, v, k):
    s = np.bincount(g, weights=v, minlength=k)
    c = np.bincount(g, minlength=k)
    return s / np.maximum(c, 1)


def median_absolute_deviation(x):
    med = np.median(np.sort(x))
    return np.median(np.abs(x - med)), np.argsort(x, kind="stable")


def sort_with_nans(A):
    return np.sort(A, axis=0), np.argsort(-A, axis=1, kind="stable"), np.sort(A, axis=None)


def rank_of(x):
    order = np.argsort(x, kind="stable")
    r = np.empty(x.shape[0], dtype=np.int64)
    r[order] = np.arange(x.shape[0])
    return r


def convolve_full(x, k):
    return np.convolve(x, k)


def convolve_kernel_longer(x, k):
    return np.convolve(x, k, mode="valid"), np.convolve(x.astype(np.int32), np.array([1, 2]))


def linear_system(A, b):
    return np.linalg.solve(A, b), np.linalg.det(A), np.linalg.inv(A) @ b


def matrix_norms(A):
    return (
        np.linalg.norm(A),
        np.linalg.norm(A, ord=1),
        np.linalg.norm(A, ord=np.inf),
        np.linalg.norm(A, axis=0),
        np.linalg.matrix_power(A, 3),
    )


def polyfit_evaluate(x, y, deg):
    V = np.vander(x, deg + 1)
    return np.polyval(np.linalg.solve(V.T @ V, V.T @ y), x)


def softmax_predict(W, X):
    z = X @ W
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return p, p.argmax(axis=1)


def kmeans_step(X, C):
    lab = ((X[:, None, :] - C[None]) ** 2).sum(-1).argmin(1)
    return lab, np.stack([np.where((lab == k)[:, None], X, 0).sum(0) for k in range(C.shape[0])])


def pairwise_distances(a, b):
    d = a[:, None, :] - b[None, :, :]
    return np.sqrt((d**2).sum(-1))


def interquartile_range(x):
    q75, q25 = np.percentile(x, [75, 25])
    return q75 - q25, -np.quantile(x, 0.05)


def argmax_position(A):
    return np.unravel_index(np.argmax(A), A.shape), A.argmax(axis=0), np.argmin(A, axis=1, keepdims=True)


def returns(p):
    return np.diff(p) / p[:-1] * 100, np.log(p[1:] / p[:-1])


def trapezoid_2d(f, dx, dy):
    return np.trapezoid(np.trapezoid(f, dx=dx, axis=1), dx=dy)


# -------------------------------------------------------------- dtypes: NEP 50, ints, bools
def nep50_mixing(a):
    return a + 1, a * 2.5, a // 3, a / 2, a + np.int64(1), (a > 1) + 1


def nep50_more(a):
    return a * 2.5, a + np.float64(1.0), a - 1, np.clip(a, 0.5, 2.5)


def fahrenheit_to_celsius(f):
    return (f - 32) * 5 / 9


def sign_int(x):
    return np.where(x > 0, 1, np.where(x < 0, -1, 0))


def integer_division(a, b):
    return a // b, a % b, np.divmod(a, b)


def int_cumprod(x):
    return np.cumprod(x), np.prod(x)


def bool_arithmetic(a, b):
    return a & b, a | b, a ^ b, ~a, a.sum(), np.count_nonzero(a), a + b, a * 3


# --------------------------------------------------- masks, fancy indexing, shapes, complex
def relu_copy(x):
    y = x.copy()
    y[y < 0] = 0
    return y, x[x > 0].sum(), (x > 0).sum()


def masked_merge(x, y):
    z = x.copy()
    m = y > x
    z[m] = y[m]
    return z


def masked_reductions(x):
    return x[x > 0].sum(), x[x > 0].max(initial=-np.inf), np.mean(x[x > 0])


def threshold_image(img):
    mask = img > img.mean()
    return mask.astype(np.uint8) * 255, img[mask].mean() if mask.any() else 0.0


def add_at_repeated(x, idx):
    y = x.copy()
    y[idx] += 1  # buffered: a repeated index adds once, as in NumPy
    return y


def gather_rows(X, idx):
    return X[idx], X[idx, 0], X[:, idx[:2]]


def block_shapes(x):
    a = x.reshape(2, -1)
    return np.concatenate([a, a * 2], axis=1), np.stack([a.T, a.T + 1]), np.hstack([x, x]), np.vstack([x, x])


def axes_shuffle(x):
    return (
        np.concatenate([x, x], axis=None),
        np.stack([x, x], axis=-1),
        x.flatten("F"),
        np.transpose(x, (1, 0)),
        np.swapaxes(x[None], 0, 2),
        np.moveaxis(x[None], 0, -1),
    )


def complex_rotate(z, theta):
    w = z * np.exp(1j * theta)
    return w, np.abs(w), np.angle(w), w.real, w.imag, np.conj(w)


def complex_algebra(z, w):
    return (
        z @ w,
        np.abs(z),
        np.exp(z),
        np.sqrt(z - 2),
        z.conj().T,
        np.angle(z, deg=True),
        (z * w.T).sum(axis=0),
    )


# ------------------------------------------------------------------- inputs and tolerances
# name: (function, static_argnames, rtol in eps of the result dtype, [arguments or Kw, ...])
PROGRAMS = {
    "cumulative_trapezoid": (
        cumulative_trapezoid,
        (),
        EXACT,
        [
            (normal(10), 0.1),
            (normal(7, dtype=f32), f32(0.5)),
            (np.zeros(0), 1.0),
            (normal(12)[::2], 0.2),
            (np.arange(5), 1),
        ],
    ),
    "bisection_sqrt": (
        bisection_sqrt,
        (),
        EXACT,
        [(np.array([2.0, 9.0, 0.25]),), (np.array([[4.0, 1e-3]]),)],
    ),
    "newton_sqrt2": (newton_sqrt2, (), EXACT, [(1.0,), (np.float64(3.0),), (f32(1.5),)]),
    "normalize_rows": (
        normalize_rows,
        (),
        TIGHT,
        [(normal(5),), (normal(4, 6)[:, ::2],), (np.arange(6.0).reshape(2, 3),), (np.zeros(3),)],
    ),
    "count_above": (count_above, (), EXACT, [(normal(10), 0.0), (np.arange(5), 2), (SPECIAL, np.nan)]),
    "first_negative": (
        first_negative,
        (),
        EXACT,
        [(np.array([1.0, 2.0, -3.0, -1.0]),), (np.ones(3),), (np.zeros(0),)],
    ),
    "hilbert": (hilbert, ("n",), EXACT, [(4,), (1,)]),
    "running_max": (
        running_max,
        (),
        EXACT,
        [(normal(8),), (np.array([3, 1, 4, 1, 5], np.int16),), (SPECIAL,)],
    ),
    "column_norms": (
        column_norms,
        (),
        TIGHT,
        [(normal(5, 3),), (np.zeros((0, 3)),), (np.arange(6).reshape(2, 3),)],
    ),
    "horner_complex": (
        horner_complex,
        (),
        EXACT,
        [(np.array([1.0, 0.0, 1.0]), np.array([1j, 2 + 0j])), (np.array([1, -2, 1]), np.arange(3.0))],
    ),
    "matrix_power_by_squaring": (
        matrix_power_by_squaring,
        ("k",),
        TIGHT,
        [(np.array([[1, 1], [1, 0]]), 10), (normal(3, 3), 3), (np.eye(2), 0)],
    ),
    "heat_1d": (
        heat_1d,
        ("steps",),
        EXACT,
        [(np.sin(np.linspace(0, 3, 12)), 0.25, 10), (normal(5, dtype=f32), f32(0.1), 3)],
    ),
    "wave_1d": (
        wave_1d,
        ("steps",),
        EXACT,
        [(np.sin(np.linspace(0, np.pi, 10)), 0.5, 8), (np.zeros(3, f32), f32(0.1), 2)],
    ),
    "lcg": (lcg, ("n",), EXACT, [(np.uint32(42), 6), (np.uint32(2**32 - 1), 3)]),
    "euclid_gcd": (euclid_gcd, (), EXACT, [(np.array([12, 17, 0, 100]), np.array([18, 5, 3, 75]))]),
    "variance_via_helpers": (
        variance_via_helpers,
        (),
        TIGHT,
        [(normal(9),), (np.arange(7),), (normal(3, 3, dtype=f32),)],
    ),
    "huber": (
        huber,
        (),
        EXACT,
        [
            (normal(8),),
            (SPECIAL,),
            (np.arange(-3, 4),),
            Kw(normal(6), delta=0.5, scale=2.0),
            Kw(np.arange(4), scale=f32(3)),
        ],
    ),
    "polynomial_features": (
        polynomial_features,
        ("degree",),
        EXACT,
        [(normal(5), 3), (np.arange(4), 2), (f32(2.0), 2), (np.zeros(0), 1)],
    ),
    "split_signs": (split_signs, (), TIGHT, [(normal(6),), (np.arange(-3, 3),), (SPECIAL,)]),
    "summary": (summary, (), TIGHT, [(normal(5),), (np.arange(4, dtype=np.int32),)]),
    "scale_in_place": (
        scale_in_place,
        (),
        EXACT,
        [(normal(4),), Kw(np.arange(3), factor=3), Kw(normal(2, 3)[:, ::2], factor=0.5)],
    ),
    "sharpe_ratio": (
        sharpe_ratio,
        (),
        TIGHT,
        [(normal(30) * 0.01,), (normal(30, dtype=f32) * f32(0.01), 0.02, 12)],
    ),
    "radial_mask": (radial_mask, ("n",), EXACT, [(6,), (1,)]),
    "piecewise_tax": (
        piecewise_tax,
        (),
        EXACT,
        [(np.array([5000.0, 20000.0, 80000.0]),), (np.array([5000, 20000, 80000]),)],
    ),
    "smooth_step": (smooth_step, (), EXACT, [(np.linspace(-3, 3, 9),), (np.linspace(-3, 3, 5, dtype=f32),)]),
    "quantize": (
        quantize,
        (),
        EXACT,
        [(normal(10), np.linspace(-1, 1, 5)), (np.array([-5, 0, 5]), np.array([-1, 0, 1, 2]))],
    ),
    "searchsorted_grid": (
        searchsorted_grid,
        (),
        EXACT,
        [
            (np.array([0.0, 1.0, 1.0, 2.0]), np.array([[0.5, 1.0], [-1.0, np.nan]])),
            (np.array([1, 3, 5]), np.int64(3)),
        ],
    ),
    "cumsum_and_diff": (
        cumsum_and_diff,
        (),
        EXACT,
        [
            (normal(8),),
            (np.arange(6, dtype=np.int32),),
            (np.array([200, 100, 50], np.uint8),),
            (np.array([True, False, True]),),
        ],
    ),
    "cumulative_2d": (
        cumulative_2d,
        (),
        TIGHT,
        [(np.arange(12, dtype=np.int8).reshape(3, 4),), (normal(3, 4, dtype=f32),), (np.ones((0, 3)),)],
    ),
    "resample": (
        resample,
        ("n",),
        TIGHT,
        [(np.linspace(0, 1, 6), normal(6), 11), (np.arange(5), np.arange(5) ** 2, 9)],
    ),
    "interp_clamped": (
        interp_clamped,
        (),
        TIGHT,
        [
            (np.array([-1.0, 0.0, 0.5, 1.0, 2.0, np.nan]), np.array([0.0, 1.0]), np.array([10.0, 20.0])),
            (np.linspace(0, 3, 7, dtype=f32), np.arange(4, dtype=f32), np.array([0.0, 1.0, 4.0, 9.0], f32)),
        ],
    ),
    "histogram_fixed_range": (
        histogram_fixed_range,
        ("bins",),
        EXACT,
        [(normal(100), 10), (np.array([np.nan, 1.0, 3.0, -3.0]), 3)],
    ),
    "group_means": (
        group_means,
        ("k",),
        TIGHT,
        [(np.array([0, 1, 1, 3]), normal(4), 5), (np.zeros(0, np.int64), np.zeros(0), 2)],
    ),
    "median_absolute_deviation": (
        median_absolute_deviation,
        (),
        EXACT,
        [(normal(9),), (np.array([3, 1, 2, 2]),), (np.array([1.0, np.nan, 0.0]),)],
    ),
    "sort_with_nans": (
        sort_with_nans,
        (),
        EXACT,
        [(np.array([[3.0, np.nan, 1.0], [-0.0, 0.0, -np.inf]]),), (np.array([[3, 1], [2, 2]], np.int16),)],
    ),
    "rank_of": (rank_of, (), EXACT, [(normal(7),), (np.array([3, 1, 3, 2]),)]),
    "convolve_full": (
        convolve_full,
        (),
        TIGHT,
        [(normal(10), normal(3)), (np.arange(4), np.array([1, 2, 1])), (np.array([1.0]), normal(5))],
    ),
    "convolve_kernel_longer": (
        convolve_kernel_longer,
        (),
        TIGHT,
        [(normal(3), normal(5)), (np.arange(6.0), np.ones(2))],
    ),
    "linear_system": (
        linear_system,
        (),
        TIGHT * 4,
        [
            (np.eye(3) * 3 + normal(3, 3) * 0.1, normal(3)),
            (np.array([[2.0, 1.0], [1.0, 3.0]], f32), np.array([1.0, 2.0], f32)),
        ],
    ),
    "matrix_norms": (
        matrix_norms,
        (),
        TIGHT,
        [(normal(3, 3),), (np.arange(4).reshape(2, 2),), (normal(3, 3, dtype=f32),)],
    ),
    "polyfit_evaluate": (
        polyfit_evaluate,
        ("deg",),
        1e4,
        [(np.linspace(0, 1, 8), normal(8), 2)],
    ),  # conditioning of V.T V
    "softmax_predict": (
        softmax_predict,
        (),
        TIGHT,
        [(normal(4, 3), normal(6, 4)), (normal(4, 3, dtype=f32), normal(6, 4, dtype=f32))],
    ),
    "kmeans_step": (kmeans_step, (), TIGHT, [(normal(8, 2), normal(3, 2))]),
    "pairwise_distances": (
        pairwise_distances,
        (),
        TIGHT,
        [(normal(4, 3), normal(5, 3)), (np.arange(6).reshape(3, 2), np.arange(4).reshape(2, 2))],
    ),
    "interquartile_range": (interquartile_range, (), TIGHT, [(normal(20),), (np.arange(9),)]),
    "argmax_position": (
        argmax_position,
        (),
        EXACT,
        [(normal(3, 4),), (np.array([[1, 5], [5, 0]]),), (normal(4, 3).T,)],
    ),
    "returns": (returns, (), TIGHT, [(np.abs(normal(10)) + 1,), (np.array([100, 110, 99]),)]),
    "trapezoid_2d": (trapezoid_2d, (), TIGHT, [(normal(4, 5), 0.1, 0.2)]),
    "nep50_mixing": (
        nep50_mixing,
        (),
        EXACT,
        [
            (np.arange(5, dtype=np.int8),),
            (np.arange(5, dtype=np.uint8),),
            (normal(4, dtype=f32),),
            (np.int32(7),),
            (np.array([127], np.int8),),
        ],
    ),
    "nep50_more": (
        nep50_more,
        (),
        EXACT,
        [
            (np.arange(4, dtype=np.int8),),
            (np.arange(4, dtype=f32),),
            (np.arange(4, dtype=np.uint16),),
            (np.int16(3),),
        ],
    ),
    "fahrenheit_to_celsius": (
        fahrenheit_to_celsius,
        (),
        EXACT,
        [(np.array([32, 212, -40]),), (np.array([32, 100], np.int8),), (f32(100),), (np.array([98.6]),)],
    ),
    "sign_int": (sign_int, (), EXACT, [(normal(6),), (np.arange(-2, 3, dtype=np.int8),), (SPECIAL,)]),
    "integer_division": (
        integer_division,
        (),
        EXACT,
        [
            (np.array([7, -7, 5, 0, -128], np.int8), np.array([2, 2, 0, 0, -1], np.int8)),
            (np.array([7, -7, 5]), 0),
            (np.array([7.0, -7.0, 1.0]), np.array([0.0, -0.0, np.inf])),
        ],
    ),
    "int_cumprod": (
        int_cumprod,
        (),
        EXACT,
        [(np.arange(1, 25),), (np.array([100, 100, 100], np.int8),), (np.zeros(0, np.int32),)],
    ),
    "bool_arithmetic": (
        bool_arithmetic,
        (),
        EXACT,
        [(np.array([True, False, True]), np.array([True, True, False]))],
    ),
    "relu_copy": (
        relu_copy,
        (),
        TIGHT,
        [(normal(7),), (np.arange(-3, 3),), (normal(4, 3)[:, ::2],), (SPECIAL,)],
    ),
    "masked_merge": (
        masked_merge,
        (),
        EXACT,
        [
            (normal(6), normal(6)),
            (np.arange(5), np.array([4, 3, 2, 1, 0])),
            (normal(4, 3)[:, ::2], normal(4, 2)),
        ],
    ),
    "masked_reductions": (
        masked_reductions,
        (),
        TIGHT,
        [(normal(4, 5),), (normal(5, 4).T,), (-np.ones((2, 2)),)],
    ),
    "threshold_image": (
        threshold_image,
        (),
        TIGHT,
        [(RNG.integers(0, 256, (5, 6), dtype=np.uint8),), (normal(4, 4),)],
    ),
    "add_at_repeated": (
        add_at_repeated,
        (),
        EXACT,
        [(np.zeros(5), np.array([1, 1, 3])), (np.arange(4), np.array([-1, 0, 0]))],
    ),
    "gather_rows": (
        gather_rows,
        (),
        EXACT,
        [(normal(5, 3), np.array([2, 0, 0, 1])), (np.arange(12).reshape(4, 3), np.array([-1, 1, 2]))],
    ),
    "block_shapes": (block_shapes, (), EXACT, [(np.arange(6.0),), (normal(8, dtype=f32),)]),
    "axes_shuffle": (axes_shuffle, (), EXACT, [(np.arange(6).reshape(2, 3),), (normal(4, 3)[::2],)]),
    "complex_rotate": (
        complex_rotate,
        (),
        TIGHT,
        [(normal(4) + 1j * normal(4), 0.3), (np.array([1 + 0j, -1j, 0j], np.complex64), f32(1.0))],
    ),
    "complex_algebra": (
        complex_algebra,
        (),
        TIGHT,
        [
            (normal(2, 3) + 1j * normal(2, 3), normal(3, 2) + 1j * normal(3, 2)),
            ((normal(2, 2) + 1j * normal(2, 2)).astype(np.complex64), normal(2, 2, dtype=f32)),
        ],
    ),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


def _call(fn, case):
    """``fn`` on copies of the case's arguments: (result, the arguments after the call)."""
    args, kwargs = (case.args, case.kwargs) if isinstance(case, Kw) else (case, {})
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kwargs = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    return fn(*args, **kwargs), args + list(kwargs.values())


def _leaves(x, path: str):
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _leaves(x[k], f"{path}[{k!r}]")]
    if isinstance(x, (tuple, list)):
        return [(type(x), len(x), path)] + [
            leaf for i, v in enumerate(x) for leaf in _leaves(v, f"{path}[{i}]")
        ]
    return [(x, path)]


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    fn, _, rtol, cases = PROGRAMS[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # 0/0, overflow and NaN comparisons in the edge cases
        want, want_args = _call(fn, cases[k])
        got, got_args = _call(JITTED[name], cases[k])
    got_leaves, want_leaves = _leaves(got, "result"), _leaves(want, "result")
    assert [x[:-1] for x in got_leaves if len(x) == 3] == [x[:-1] for x in want_leaves if len(x) == 3], (
        got,
        want,
    )
    assert len(got_leaves) == len(want_leaves), (got, want)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        if len(w) == 2:
            compare_like_numpy(g[0], w[0], rtol, f"{name}, input {k}, {w[1]}")
    for i, (g, w) in enumerate(zip(got_args, want_args, strict=True)):
        if isinstance(w, np.ndarray):
            compare_like_numpy(g, w, EXACT, f"{name}, input {k}, argument {i} after the call")
