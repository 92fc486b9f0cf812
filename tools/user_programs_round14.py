"""Round 14's new-user programs (newuser36), shared by their test
(tests/jitcore/test_user_programs_round14.py) and their benchmark
(tools/bench_user_programs_round14.py): each name maps to (function, static argument names,
tolerance in eps, inputs), as tests/programs/like_numpy.py reads them."""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev as C
from numpy.polynomial import hermite_e as HE

EXACT = 0.0  # bit for bit (tests/programs/like_numpy.EXACT)
TIGHT = 64  # eps of the result dtype: reductions summed in another order, contractions
RNG = np.random.default_rng(20261204 + 14)


def normal(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------------------- physics and ODEs
def heat_1d(u, alpha, steps):
    """Explicit heat equation, a fresh copy each step as users write it."""
    for _ in range(steps):
        u = u.copy()
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def rk4_lotka_volterra(y0, dt, n):
    """Classic RK4 with a nested right-hand side building a new array, the path stored by row."""
    def f(y):
        return np.array([1.1 * y[0] - 0.4 * y[0] * y[1], 0.1 * y[0] * y[1] - 0.4 * y[1]])
    y = y0
    out = np.empty((n, 2))
    for i in range(n):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out[i] = y
    return out


def euler_maruyama(x0, dW, mu, sigma, dt):
    """Geometric Brownian motion from passed increments, one element written per step."""
    x = np.empty(dW.shape[0] + 1)
    x[0] = x0
    for i in range(dW.shape[0]):
        x[i + 1] = x[i] + mu * x[i] * dt + sigma * x[i] * dW[i]
    return x


def logistic_map(r, x0, n):
    xs = np.empty(n)
    x = x0
    for i in range(n):
        x = r * x * (1 - x)
        xs[i] = x
    return xs


def game_of_life(board, steps):
    """Conway's rule by a sum of rolled boards (a generator expression in sum())."""
    for _ in range(steps):
        n = sum(np.roll(np.roll(board, i, 0), j, 1)
                for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        board = ((n == 3) | ((board == 1) & (n == 2))).astype(board.dtype)
    return board


def mandelbrot_counts(nx, ny, iters):
    """Escape counts on a grid built inside from linspace and meshgrid, complex arithmetic."""
    X, Y = np.meshgrid(np.linspace(-2, 1, nx), np.linspace(-1.5, 1.5, ny))
    c = X + 1j * Y
    z = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    for _ in range(iters):
        z = np.where(np.abs(z) <= 2, z * z + c, z)
        count += np.abs(z) <= 2
    return count


# ---------------------------------------------------------------------------- signals and statistics
def moving_average_cumsum(x, w):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def exponential_moving_average(x, a):
    out = np.empty_like(x)
    s = x[0]
    for i in range(x.shape[0]):
        s = a * x[i] + (1 - a) * s
        out[i] = s
    return out


def resample_by_interp(t, y, n):
    return np.interp(np.linspace(t[0], t[-1], n), t, y)


def histogram_by_searchsorted(x, edges):
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    return np.bincount(idx, minlength=len(edges) - 1)


def monte_carlo_pi(u):
    return 4.0 * ((u[:, 0] ** 2 + u[:, 1] ** 2) <= 1.0).mean()


def random_walk(uniforms):
    return np.cumsum(np.where(uniforms > 0.5, 1, -1))


def softplus_forms(x):
    return np.logaddexp(0, x), np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


# ---------------------------------------------------------------------------- machine learning, solvers
def kmeans_step(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1)
    labels = d.argmin(1)
    counts = np.bincount(labels, minlength=C.shape[0])
    sums = np.zeros_like(C)
    np.add.at(sums, labels, X)
    return sums / np.maximum(counts, 1)[:, None], labels


def newton_sqrt(a, iters):
    x = np.ones_like(a)
    for _ in range(iters):
        x = 0.5 * (x + a / x)
    return x


def newton_cube_root_while(c):
    x = 1.0
    while abs(x ** 3 - c) > 1e-12:
        x = x - (x ** 3 - c) / (3 * x ** 2)
    return x


def robust_normalize(img):
    lo, hi = np.percentile(img, [2, 98])
    return np.clip((img - lo) / (hi - lo), 0, 1)


# ---------------------------------------------------------------------------- dtypes, indexing, in place
def integer_overflow(a):
    """int32 products wrap, uint8 + int8 scalars wrap, int64 by 2**40 wraps, as NumPy's do."""
    return (a.astype(np.int32) * 100000, np.uint8(250) + a.astype(np.uint8), a * 2**40,
            np.int8(127) + np.int8(1))


def scalar_promotion(xi, xf32):
    """NEP 50: Python scalars are weak, NumPy scalars are not."""
    return xi + 1.5, xf32 * 2.0, xf32 + np.float64(1), xi // 2, xi / 2, xf32 * 3, xi ** 2, True + xi


def fancy_and_masked(x, idx, m):
    y = x.copy()
    y[idx] = -1.0
    y[m] *= 2
    return y, x[idx[::-1]], x[[0, -1]], x[m].sum()


def in_place_through_views(a):
    b = a.copy()
    v = b[::2]
    v += 10
    b[1:3] *= -1
    b[b > 5] -= 1
    c = b.reshape(2, -1)
    c[:, 0] = 0
    return b, v, c


def clip_forms(xi, xf):
    return (np.clip(xi, 1, 5), np.clip(xi, 1.5, 4.5), np.clip(xf, None, 0.5), np.clip(xf, xf[::-1], 10),
            xi.clip(min=2))


def cumulative_forms(x8, xb):
    """cumsum of int8 (int64 by default, int8 wrapping with dtype=), of bools; sums likewise."""
    return (np.cumsum(x8), np.cumsum(x8, dtype=np.int8), np.cumsum(xb), np.cumprod(x8.astype(np.int16)),
            np.add.accumulate(x8), x8.sum(), x8.sum(dtype=np.int8), np.maximum.accumulate(x8))


def differences(x):
    return np.diff(x), np.diff(x, n=2), np.gradient(x), np.diff(x, prepend=0.0), np.ediff1d(x)


def rounding(x):
    return np.round(x).astype(int), np.round(x, 2), np.floor_divide(x, 0.5), np.remainder(x, 0.7), np.fix(x)


# ---------------------------------------------------------------------------- this round's fixes
def series_objects_and_bases(x, c):
    """numpy.polynomial's classes made inside from numbers, and the other bases of traced c."""
    p = np.polynomial.Polynomial([1.0, -2.0, 0.5])
    t = np.polynomial.Chebyshev([0.5, 1.0, 0.25], domain=[0, 4])
    return p(x), t(x), p.deriv()(x), C.chebval(x, c), HE.hermeval(x, c)


def einsum_forms(a, b):
    return (np.einsum("bij,bjk->bik", a, b), np.einsum("ii", a[0]), np.einsum("bij->b", a),
            np.einsum(a, [0, 1, 2], b, [0, 2, 3], [0, 1, 3]), np.einsum(a[0], [Ellipsis, 1], b[0][:, 0], [1]))


ACTIVATIONS = {
    "relu": lambda v: np.maximum(v, 0.0),
    "gelu": lambda v: 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))),  # math.erf of a traced number
}


def activations_from_a_dict(x):
    """A dict of lambdas (several lines of one expression) applied element by element."""
    return ACTIVATIONS["relu"](x), np.array([ACTIVATIONS["gelu"](x[i]) for i in range(x.shape[0])])


def weighted_sum(x, w=np.array([0.25, 0.5, 0.25])):  # noqa: B008  (a default array, as users write)
    return np.convolve(x, w, mode="valid")


def numpy_doc_examples(x, a):
    """Examples of NumPy's reference pages on traced inputs: interp, searchsorted, cumsum,
    bincount, clip, diff."""
    xp, fp = np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 0.0])
    return (np.interp(x, xp, fp), np.interp(x, xp, fp, right=-99.0), np.searchsorted(a, 3),
            np.searchsorted(a, x, side="right"), np.cumsum(a.reshape(2, 3), axis=0),
            np.bincount(a, minlength=7), np.clip(a, 1, 8), np.diff(a.reshape(2, 3), axis=0))


PROGRAMS = {
    "heat_1d": (heat_1d, ("steps",), TIGHT, [(np.sin(np.linspace(0, 3, 20)), 0.2, 10)]),
    "rk4_lotka_volterra": (rk4_lotka_volterra, ("n",), TIGHT, [(np.array([10.0, 5.0]), 0.01, 20)]),
    "euler_maruyama": (euler_maruyama, (), TIGHT, [(1.0, normal(20) * 0.1, 0.05, 0.2, 0.01)]),
    "logistic_map": (logistic_map, ("n",), EXACT, [(3.7, 0.2, 30)]),
    "game_of_life": (game_of_life, ("steps",), EXACT, [((RNG.random((8, 8)) < 0.4).astype(np.int8), 4)]),
    "mandelbrot_counts": (mandelbrot_counts, ("nx", "ny", "iters"), EXACT, [(16, 12, 20)]),
    "moving_average_cumsum": (moving_average_cumsum, ("w",), TIGHT, [(normal(20), 4)]),
    "exponential_moving_average": (exponential_moving_average, (), EXACT, [(normal(20), 0.3)]),
    "resample_by_interp": (resample_by_interp, ("n",), TIGHT, [(np.sort(RNG.random(10)), normal(10), 25)]),
    "histogram_by_searchsorted": (histogram_by_searchsorted, (), EXACT,
                                  [(RNG.random(50), np.linspace(0, 1, 6)),
                                   (np.array([0.0, 1.0, np.nan, -1.0, 0.5]), np.linspace(0, 1, 6))]),
    "monte_carlo_pi": (monte_carlo_pi, (), EXACT, [(RNG.random((100, 2)),)]),
    "random_walk": (random_walk, (), EXACT, [(RNG.random(20),)]),
    "softplus_forms": (softplus_forms, (), TIGHT, [(np.array([-800.0, -1.0, -0.0, 2.0, 800.0, np.nan]),)]),
    "kmeans_step": (kmeans_step, (), TIGHT, [(normal(30, 3), normal(3, 3))]),
    "newton_sqrt": (newton_sqrt, ("iters",), EXACT, [(np.array([2.0, 9.0, 0.5, 0.0, np.inf]), 8)]),
    "newton_cube_root_while": (newton_cube_root_while, (), EXACT, [(27.0,), (2.0,)]),
    "robust_normalize": (robust_normalize, (), TIGHT, [(RNG.random((8, 8)),)]),
    "integer_overflow": (integer_overflow, (), EXACT, [(np.array([1, 30000, 200, -5]),)]),
    "scalar_promotion": (scalar_promotion, (), EXACT,
                         [(np.array([1, 2, 3], np.int16), np.array([1, 2], np.float32))]),
    # x[m].sum() is NumPy's pairwise sum of the compacted terms (maskedsum47): its bits
    "fancy_and_masked": (fancy_and_masked, (), EXACT,
                         [(normal(8), np.array([1, 3, 5]), RNG.random(8) > 0.5)]),
    "in_place_through_views": (in_place_through_views, (), EXACT, [(np.arange(8.0),)]),
    "clip_forms": (clip_forms, (), EXACT,
                   [(np.arange(-2, 8), np.array([-np.inf, -0.0, 0.3, 0.7, np.nan, 20.0, -1, 2, 0.5, 9]))]),
    "cumulative_forms": (cumulative_forms, (), EXACT,
                         [(np.array([100, 100, 100, -50], np.int8), np.array([True, True, False]))]),
    "differences": (differences, (), TIGHT, [(normal(10),)]),
    "rounding": (rounding, (), EXACT, [(np.array([-2.5, -0.0, 0.5, 1.49, 3.5, -7.3, 2.675]),)]),
    "series_objects_and_bases": (series_objects_and_bases, (), EXACT,
                                 [(np.linspace(-1, 3, 6), np.array([1.0, -0.5, 2.0, 0.25]))]),
    "einsum_forms": (einsum_forms, (), TIGHT, [(normal(2, 3, 3), normal(2, 3, 2))]),
    "activations_from_a_dict": (activations_from_a_dict, (), TIGHT, [(np.array([-2.0, -0.0, 0.5, 3.0]),)]),
    "weighted_sum": (weighted_sum, (), TIGHT, [(normal(9),)]),
    "numpy_doc_examples": (numpy_doc_examples, (), EXACT,
                           [(np.array([0.0, 1.0, 1.5, 2.72, 3.14]), np.array([1, 2, 3, 4, 5, 6]))]),
}
