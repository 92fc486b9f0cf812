"""A new user's NumPy programs, eighth round (newuser30): areas the first seven rounds did not
cover. Numerical methods (RK4 and explicit Euler in Python ``for`` loops over a static count, a
velocity Verlet pendulum, Newton's method in a ``while`` on a traced tolerance, bisection on
arrays, Kepler's equation by fixed-point iteration, fixed-iteration Jacobi and conjugate
gradients, composite Simpson), PDE stencils (the 1-D wave equation by slicing, upwind advection
by ``roll``, a Laplacian from two ``gradient`` calls, curvature by ``diff`` with ``n`` and
``prepend``/``append``, Conway's life), images (Sobel magnitude and direction by slicing,
``rot90``/``flip``/``transpose`` augmentation, thresholding, histogram equalisation through
``bincount`` and ``interp``, a gamma look-up table, 2 x 2 block means), polynomials (extrema
by ``polyder`` and ``roots``), sorting and ranking (``lexsort``, ranks by an argsort of an
argsort, stable argsort of ties, the k smallest by ``partition``/``argpartition``,
``searchsorted`` sides, ``bincount`` with ``weights``/``minlength``), ``einsum`` (traces,
diagonals, batched products, outer and row-wise products), complex numbers (a phasor sum,
``angle`` in degrees, an RLC impedance), integers (bit reversal, parity, ``gcd``/``lcm``
reductions, wrapping ``int8``/``uint16`` arithmetic, floor division and ``mod`` signs, a sieve),
NEP 50 promotion with Python scalars, ``float16`` data, ``np.errstate`` inside the function,
``matrix_power`` Markov chains, ``np.round`` and Python's ``round`` to decimals, ``np.random``
inside the function (seeded there, so NumPy's numbers); what the round compiled: ``np.gcd.reduce`` and
``np.lcm.reduce``, ``permutation``/``choice`` of a traced array (a bootstrap), Python's
``round`` of a traced NumPy scalar, ufuncs with ``dtype=`` (the loop's dtype); and round 7's
open item: ``nanquantile``,
``nanpercentile`` and ``nanmedian`` with every method ``percentile`` takes. Each runs under
``jc.jit`` against NumPy, compared as the earlier rounds' programs are
(tests/programs/like_numpy.py); what jitcore refuses on purpose (``np.unique`` and ``np.nonzero``,
whose lengths depend on the data; NEP 50's out-of-range Python integer) is checked to be its own
error.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.programs.like_numpy import (
    EXACT,
    cases_and_jitted,
    check_edge,
    check_program,
)

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
f16 = np.float16
RNG = np.random.default_rng(20261203 + 8)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def spd(n):
    """A symmetric positive definite, diagonally dominant matrix."""
    a = normal(n, n)
    return a @ a.T + n * np.eye(n)


# ---------------------------------------------------------------------------- numerical methods
def rk4_oscillator(y0, h, steps):
    """A damped oscillator y'' = -y - 0.1 y' by classical RK4."""

    def f(y):
        return np.array([y[1], -y[0] - 0.1 * y[1]])

    y = y0
    path = [y0]
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        path.append(y)
    return np.stack(path)


def euler_logistic(p0, r):
    """Explicit Euler on the logistic equation for several growth rates at once."""
    p = p0 * np.ones_like(r)
    h = 0.1
    for _ in range(30):
        p = p + h * r * p * (1 - p)
    return p


def verlet_pendulum(theta0, dt):
    theta, omega = theta0, np.zeros_like(theta0)
    acc = -9.81 * np.sin(theta)
    for _ in range(25):
        theta = theta + omega * dt + 0.5 * acc * dt**2
        new_acc = -9.81 * np.sin(theta)
        omega = omega + 0.5 * (acc + new_acc) * dt
        acc = new_acc
    energy = 0.5 * omega**2 - 9.81 * np.cos(theta)
    return theta, omega, energy


def newton_cuberoot(a, tol):
    """Newton's method on x^3 = a, elementwise, until the largest step is below tol."""
    x = np.maximum(a, 1.0)
    step = np.full_like(a, np.inf)
    iters = 0
    while np.max(np.abs(step)) > tol:
        step = (x**3 - a) / (3 * x**2)
        x = x - step
        iters += 1
    return x, iters


def bisection_roots(c):
    """The root of x^3 + x - c in [-10, 10] for each c, 50 halvings."""
    lo = np.full_like(c, -10.0)
    hi = np.full_like(c, 10.0)
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        positive = mid**3 + mid - c > 0
        hi = np.where(positive, mid, hi)
        lo = np.where(positive, lo, mid)
    return 0.5 * (lo + hi)


def kepler_eccentric_anomaly(M, e):
    E = M.copy()
    for _ in range(40):
        E = M + e * np.sin(E)
    return E, np.sqrt(1 - e**2) * np.sin(E) / (1 - e * np.cos(E))


def jacobi_solve(A, b):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for _ in range(25):
        x = (b - R @ x) / D
    return x, np.linalg.norm(A @ x - b)


def conjugate_gradient(A, b):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(len(b)):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x


def simpson(y, h):
    return h / 3 * (y[0] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum() + y[-1])


# ---------------------------------------------------------------------------- PDE stencils
def wave_equation(u0, c):
    """Leapfrog for u_tt = c^2 u_xx with fixed ends, by slicing."""
    u_prev = u0.copy()
    u = u0.copy()
    r2 = c**2
    for _ in range(20):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + r2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return u


def upwind_advection(q, courant):
    for _ in range(10):
        q = q - courant * (q - np.roll(q, 1))
    return q


def laplacian_by_gradient(f, dx):
    gy, gx = np.gradient(f, dx)
    return np.gradient(gy, dx, axis=0) + np.gradient(gx, dx, axis=1)


def curvature(y, h):
    d2 = np.diff(y, n=2, prepend=y[0], append=y[-1]) / h**2
    d1 = np.diff(y, prepend=y[:1]) / h
    return d2 / (1 + d1**2) ** 1.5


def life_step(board):
    n = sum(np.roll(np.roll(board, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1)
            if (i, j) != (0, 0))
    return ((n == 3) | (board & (n == 2))).astype(np.uint8)


# ---------------------------------------------------------------------------- images
def sobel_by_slicing(img):
    f = img.astype(np.float64)
    gx = (f[:-2, 2:] + 2 * f[1:-1, 2:] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[1:-1, :-2] + f[2:, :-2])
    gy = (f[2:, :-2] + 2 * f[2:, 1:-1] + f[2:, 2:]) - (f[:-2, :-2] + 2 * f[:-2, 1:-1] + f[:-2, 2:])
    return np.hypot(gx, gy), np.degrees(np.arctan2(gy, gx))


def augmentations(img):
    return (np.rot90(img), np.rot90(img, 2), np.rot90(img, -1), np.flip(img, 0), np.fliplr(img),
            np.flipud(img), img.T, np.transpose(img[..., None], (2, 1, 0)), img[::-1, ::2])


def threshold(img, level):
    mask = img > level
    return mask, np.count_nonzero(mask), np.where(mask, 255, 0).astype(np.uint8), img.mean(where=mask)


def histogram_equalise(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = hist.cumsum()
    cdf = (cdf - cdf.min()) * 255 / (cdf.max() - cdf.min())
    return np.interp(img.ravel(), np.arange(256), cdf).reshape(img.shape).astype(np.uint8)


def gamma_lut(img, gamma):
    lut = (255 * (np.arange(256) / 255.0) ** gamma).round().astype(np.uint8)
    return lut[img]


def block_means(img):
    h, w = img.shape
    return img.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))


# ---------------------------------------------------------------------------- polynomials
def cubic_extrema(c):
    d = np.polyder(c)
    r = np.roots(d)
    return np.sort(r.real), np.polyval(c, np.sort(r.real)), np.polyval(np.polyder(d), np.sort(r.real))


def fit_and_residual(x, y):
    p = np.polyfit(x, y, 2)
    return p, y - np.polyval(p, x)


# ---------------------------------------------------------------------------- sorting, ranking
def lexsort_table(last, first, score):
    order = np.lexsort((score, first, last))
    return order, last[order], score[order]


def ranks(x):
    return np.argsort(np.argsort(x, kind="stable"), kind="stable") + 1


def stable_ties(keys):
    return np.argsort(keys, kind="stable"), np.argsort(-keys, kind="stable"), np.sort(keys)[::-1]


def k_smallest(x, k):
    part = np.partition(x, k)
    idx = np.argpartition(x, k)
    return np.sort(part[:k]), part[k], np.sort(x[idx[:k]]), x[idx[k]]


def searchsorted_sides(edges, v):
    return (np.searchsorted(edges, v), np.searchsorted(edges, v, side="right"),
            np.searchsorted(edges, v, side="right") - np.searchsorted(edges, v))


def weighted_bincount(labels, w):
    counts = np.bincount(labels, minlength=6)
    sums = np.bincount(labels, weights=w, minlength=6)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    return counts, sums, means


# ---------------------------------------------------------------------------- einsum
def einsum_variety(A, B, v, w):
    return (np.einsum("ii", A), np.einsum("ii->i", A), np.einsum("bij,bjk->bik", B, B),
            np.einsum("i,j->ij", v, w), np.einsum("ij,ij->i", A, A), np.einsum("ij->j", A),
            np.einsum("bii->b", B))


# ---------------------------------------------------------------------------- complex
def phasor_sum(amp, phase_deg, t):
    z = amp * np.exp(1j * np.radians(phase_deg))
    total = z.sum()
    signal = np.real(np.outer(np.exp(2j * np.pi * 50 * t), z).sum(axis=1))
    return np.abs(total), np.angle(total, deg=True), np.conj(z) * z, signal


def rlc_impedance(f, R, L, C):
    w = 2 * np.pi * f
    Z = R + 1j * (w * L - 1 / (w * C))
    return np.abs(Z), np.angle(Z), Z.conj(), 1 / Z


# ---------------------------------------------------------------------------- integers
def bit_reverse_u8(x):
    x = ((x & 0xF0) >> 4) | ((x & 0x0F) << 4)
    x = ((x & 0xCC) >> 2) | ((x & 0x33) << 2)
    x = ((x & 0xAA) >> 1) | ((x & 0x55) << 1)
    return x


def parity(x):
    p = x ^ (x >> 16)
    p = p ^ (p >> 8)
    p = p ^ (p >> 4)
    p = p ^ (p >> 2)
    p = p ^ (p >> 1)
    return p & 1


def gcd_lcm(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.gcd.reduce(a), np.lcm.reduce(b[:4])


def wraps(i8, u16):
    return i8 + i8, i8 * np.int8(3), -i8, u16 * u16, u16 - np.uint16(1000), np.cumprod(u16)


def widened_differences(img, ref):
    """uint8 images subtracted in a wider loop (ufunc ``dtype=``), ratios in float32."""
    diff = np.subtract(img, ref, dtype=np.int16)
    ratio = np.divide(img, ref.astype(np.int32) + 1, dtype=np.float32)
    return diff, np.abs(diff).max(), ratio, np.add(img, 300, dtype=np.int16), np.sqrt(img, dtype=np.float32)


def floor_div_mod(a, b):
    return a // b, a % b, np.divmod(a, b), np.fmod(a, b), np.remainder(a, b)


def sieve(n):
    is_prime = np.ones(n, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(n**0.5) + 1):
        is_prime[i * i :: i] = False
    return is_prime, np.cumsum(is_prime)


# ---------------------------------------------------------------------------- promotion, dtypes
def nep50_python_scalars(i8, u8, f, h):
    return (i8 + 1, i8 * 2.5, u8 + 7, u8 / 2, f * 3, f + 0.1, h * 1.5, i8 // 3, u8**2,
            f > 1, i8 + True, f * 2j)


def float16_stats(x):
    return x.mean(), x.sum(), x.std(), np.exp(x - x.max()) / np.exp(x - x.max()).sum(), x * 2


def errstate_logs(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)
        z = x / x
    return y, z, np.nan_to_num(y, neginf=-1e300)


# ---------------------------------------------------------------------------- assorted science
def markov_stationary(P):
    Pn = np.linalg.matrix_power(P, 32)
    pi = np.ones(len(P)) / len(P)
    for _ in range(50):
        pi = pi @ P
    return Pn[0], pi


def leslie_projection(fert, surv, n0):
    L = np.zeros((len(n0), len(n0)))
    L[0] = fert
    L[np.arange(1, len(n0)), np.arange(len(n0) - 1)] = surv
    n = n0
    totals = []
    for _ in range(8):
        n = L @ n
        totals.append(n.sum())
    return n, np.array(totals)


def round_report(x):
    return np.round(x, 2), np.round(x, -1), np.around(x * 100) / 100, np.rint(x), np.fix(x)


def summary_rounded(x, scale):
    """Python's round on NumPy scalars and a Python float argument, as in a printed report."""
    total = x.sum()
    return round(total, 2), round(x.mean() * 100), round(x.max(), -1), round(scale, 1), round(scale)


def kahan_sum(x):
    s = 0.0
    c = 0.0
    for i in range(len(x)):
        y = x[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


def noisy_measurements(x, sigma):
    """Noise drawn inside the function: a seeded generator, and the global one seeded there."""
    rng = np.random.default_rng(42)
    np.random.seed(7)
    jitter = np.random.normal(0.0, sigma, x.shape)
    return x + sigma * rng.standard_normal(x.shape), x + jitter, rng.integers(0, 10, 3), np.random.rand()


def bootstrap_means(x, table):
    """Resampling inside the function from a seeded generator: a shuffled copy, draws of the
    data themselves, a column permutation."""
    rng = np.random.default_rng(2026)
    resampled = rng.choice(x, (20, x.size))
    return (rng.permutation(x), resampled.mean(axis=1), rng.permutation(table, axis=1),
            rng.choice(x, 3, replace=False))


def nan_quantile_methods(X):
    """Round 7's open item: the NaN-aware quantiles with every method of ``percentile``."""
    return [(np.nanpercentile(X, [0, 20, 50, 99, 100], axis=1, method=m), np.nanquantile(X, 0.3, method=m))
            for m in METHODS]


METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher",
           "midpoint", "nearest")
NAN_ROWS = np.where(RNG.random((5, 7)) < 0.3, np.nan, normal(5, 7))
NAN_ROWS[2] = np.nan  # a lane of NaN only (not the first: NumPy's dtype follows the first lane)
NAN_ROWS[3, :6] = np.nan  # one value
NAN_ROWS[4, 1] = np.inf
SMALL_IMAGE = RNG.integers(0, 256, (6, 8), dtype=np.uint8)

PROGRAMS = {
    "rk4_oscillator": (rk4_oscillator, ("steps",), TIGHT, [(np.array([1.0, 0.0]), 0.1, 12)]),
    "euler_logistic": (euler_logistic, (), TIGHT, [(0.1, np.array([0.5, 1.0, 2.0, 2.9])),
                                                   (f32(0.2), np.array([1.5, 2.5], f32))]),
    "verlet_pendulum": (verlet_pendulum, (), TIGHT * 4, [(np.array([0.1, 1.0, 3.0]), 0.02)]),
    "newton_cuberoot": (newton_cuberoot, (), TIGHT, [(np.array([1.0, 8.0, 27.5, 1000.0]), 1e-12)]),
    "bisection_roots": (bisection_roots, (), EXACT, [(np.array([-3.0, 0.0, 2.0, 30.0]),)]),
    "kepler_eccentric_anomaly": (kepler_eccentric_anomaly, (), TIGHT * 4,
                                 [(np.linspace(0, 2 * np.pi, 7), 0.3)]),
    "jacobi_solve": (jacobi_solve, (), TIGHT * 16, [(spd(5), normal(5))]),
    "conjugate_gradient": (conjugate_gradient, (), TIGHT * 64, [(spd(6), normal(6))]),
    "simpson": (simpson, (), TIGHT, [(np.sin(np.linspace(0, np.pi, 11)), np.pi / 10)]),
    "wave_equation": (wave_equation, (), TIGHT, [(np.sin(np.linspace(0, np.pi, 16)) ** 3, 0.5)]),
    "upwind_advection": (upwind_advection, (), TIGHT, [(np.exp(-np.linspace(-3, 3, 12) ** 2), 0.4)]),
    "laplacian_by_gradient": (laplacian_by_gradient, (), TIGHT, [(normal(5, 6), 0.5)]),
    "curvature": (curvature, (), TIGHT, [(np.cos(np.linspace(0, 3, 9)), 0.375)]),
    "life_step": (life_step, (), EXACT, [((RNG.random((6, 7)) < 0.4).astype(np.uint8),)]),
    "sobel_by_slicing": (sobel_by_slicing, (), TIGHT, [(SMALL_IMAGE,)]),
    "augmentations": (augmentations, (), EXACT, [(SMALL_IMAGE,), (normal(3, 4),)]),
    "threshold": (threshold, (), TIGHT, [(SMALL_IMAGE, 128), (normal(4, 4), 0.0)]),
    "histogram_equalise": (histogram_equalise, (), EXACT, [(SMALL_IMAGE // 2 + 40,)]),
    "gamma_lut": (gamma_lut, (), EXACT, [(SMALL_IMAGE, 0.5)]),
    "block_means": (block_means, (), TIGHT, [(SMALL_IMAGE,), (normal(4, 6, dtype=f32),)]),
    "cubic_extrema": (cubic_extrema, (), TIGHT * 64, [(np.array([1.0, -3.0, -9.0, 5.0]),)]),
    "fit_and_residual": (fit_and_residual, (), TIGHT * 64, [(np.linspace(0, 1, 8), normal(8))]),
    "lexsort_table": (lexsort_table, (), EXACT,
                      [(np.array([3, 1, 3, 2, 1]), np.array([1, 2, 0, 2, 2]), normal(5))]),
    "ranks": (ranks, (), EXACT, [(np.array([3.0, 1.0, 3.0, -0.0, 0.0, 2.0]),)]),
    "stable_ties": (stable_ties, (), EXACT, [(np.array([2, 1, 2, 0, 1, 2], np.int16),)]),
    "k_smallest": (k_smallest, ("k",), EXACT, [(normal(9), 3)]),
    "searchsorted_sides": (searchsorted_sides, (), EXACT,
                           [(np.array([0.0, 1.0, 1.0, 1.0, 3.0]), np.array([-1.0, 1.0, 2.0, 3.0, 9.0]))]),
    "weighted_bincount": (weighted_bincount, (), TIGHT,
                          [(np.array([0, 2, 2, 3, 0]), np.array([0.5, 1.0, 2.0, -1.0, 3.0]))]),
    "einsum_variety": (einsum_variety, (), TIGHT, [(normal(3, 3), normal(2, 3, 3), normal(3), normal(4))]),
    "phasor_sum": (phasor_sum, (), TIGHT * 4,
                   [(np.array([1.0, 0.5, 2.0]), np.array([0.0, 120.0, -45.0]), np.linspace(0, 0.02, 5))]),
    "rlc_impedance": (rlc_impedance, (), TIGHT, [(np.array([10.0, 50.0, 1e3]), 5.0, 0.01, 1e-4)]),
    "bit_reverse_u8": (bit_reverse_u8, (), EXACT, [(np.arange(0, 256, 17, dtype=np.uint8),)]),
    "parity": (parity, (), EXACT, [(np.array([0, 1, 3, 7, 2**31 - 1, 12345678], np.int64),),
                                   (np.array([5, 255, 65535], np.uint32),)]),
    "gcd_lcm": (gcd_lcm, (), EXACT, [(np.array([12, 18, -24, 0, 7]), np.array([8, 27, 36, 5, 0]))]),
    "wraps": (wraps, (), EXACT,
              [(np.array([100, -128, 127, 5], np.int8), np.array([300, 2, 65535, 7], np.uint16))]),
    "widened_differences": (widened_differences, (), EXACT, [(SMALL_IMAGE, SMALL_IMAGE[::-1])]),
    "floor_div_mod": (floor_div_mod, (), EXACT,
                      [(np.array([7, -7, 7, -7, 0]), np.array([2, 2, -2, -2, 3])),
                       (np.array([7.5, -7.5, 7.5, -0.0, 1.0]), np.array([2.0, 2.0, -2.0, 3.0, 0.0]))]),
    "sieve": (sieve, ("n",), EXACT, [(30,)]),
    "nep50_python_scalars": (nep50_python_scalars, (), TIGHT,
                             [(np.array([1, -100], np.int8), np.array([250, 3], np.uint8),
                               np.array([0.5, 2.0], f32), np.array([1.5, -2.0], f16))]),
    "float16_stats": (float16_stats, (), TIGHT, [(np.array([1.0, 2.5, -3.0, 0.125, 7.0], f16),)]),
    "errstate_logs": (errstate_logs, (), TIGHT, [(np.array([0.0, 1.0, -1.0, np.e, np.inf]),)]),
    "markov_stationary": (markov_stationary, (), TIGHT * 16,
                          [(np.array([[0.9, 0.075, 0.025], [0.15, 0.8, 0.05], [0.25, 0.25, 0.5]]),)]),
    "leslie_projection": (leslie_projection, (), TIGHT,
                          [(np.array([0.0, 1.5, 1.2, 0.3]), np.array([0.8, 0.6, 0.4]),
                            np.array([10.0, 5.0, 3.0, 1.0]))]),
    "round_report": (round_report, (), TIGHT, [(np.array([1.005, -2.345, 15.0, -0.5, 2.5, 44.9]),)]),
    "summary_rounded": (summary_rounded, (), EXACT,
                        [(np.array([1.005, 2.5, 3.25, 40.0]), 2.345), (np.array([0.125, -7.5], f32), -0.5)]),
    "kahan_sum": (kahan_sum, (), EXACT, [(np.array([1.0, 1e-16, 1e-16, -1.0, 3.0, 1e-16] * 2),)]),
    "noisy_measurements": (noisy_measurements, (), TIGHT, [(normal(4), 0.1)]),
    "bootstrap_means": (bootstrap_means, (), TIGHT, [(normal(6), np.arange(12).reshape(3, 4))]),
    "nan_quantile_methods": (nan_quantile_methods, (), TIGHT, [(NAN_ROWS,)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


# The functions this round compiled, at their edges: (function, arguments, tolerance).
EDGES = {
    "nanquantile, every method: one value, two values, infinities, a float16 lane": (
        lambda a, b, c, h: [(np.nanquantile(a, [0, 0.5, 1], method=m),
                             np.nanquantile(b, [0, 0.3, 0.5, 1], method=m),
                             np.nanpercentile(c, [10, 90], method=m), np.nanquantile(h, 0.4, method=m))
                            for m in METHODS],
        (np.array([np.nan, 4.0]), np.array([1.0, np.nan, 9.0]), np.array([np.inf, 1.0, -np.inf, 2.0]),
         np.array([1.5, np.nan, 3.0, -2.0], f16)),
        TIGHT,
    ),
    "gcd.reduce and lcm.reduce: one value (NumPy's |x| from gcd's identity), axes, empty gcd, int8": (
        lambda a, i: (np.gcd.reduce(a[:1]), np.lcm.reduce(a[:1]), np.gcd.reduce(a, axis=(0, 1)),
                      np.gcd.reduce(a[:, :0], axis=1), np.lcm.reduce(i, axis=0, keepdims=True)),
        (np.array([[-24, 36, 0], [60, -18, 12]]), np.array([[2, 3], [-4, 5], [6, 1]], np.int8)),
        EXACT,
    ),
    "nanmedian and nanquantile with keepdims over an axis tuple, integers": (
        lambda X, n: (np.nanquantile(X, [0.25, 0.75], axis=(0, 2), method="hazen", keepdims=True),
                      np.nanpercentile(n, 40, axis=0, method="closest_observation"),
                      np.nanmedian(X, axis=(1, 2))),
        (np.where(RNG.random((3, 4, 2)) < 0.3, np.nan, normal(3, 4, 2)), np.arange(12).reshape(4, 3)),
        TIGHT,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    fn, args, rtol = EDGES[case]
    check_edge(fn, args, rtol, case)


def shuffle_in_place(x):
    rng = np.random.default_rng(1)
    rng.shuffle(x)  # writes to x: the same numbers as permutation(len(x)) (since misc56)
    return x


def test_shuffle_of_a_traced_argument_by_a_generator_seeded_inside():
    x, y = normal(4), normal(4)
    got = jc.jit(shuffle_in_place)(x.copy())
    np.testing.assert_array_equal(got, shuffle_in_place(y := x.copy()))
    np.testing.assert_array_equal(got, y)


def test_permutation_and_choice_of_a_traced_array_draw_numpys_indices_on_every_call():
    # np.random's global generator: each call draws again, NumPy's numbers after the same seed
    def resample(x):
        return np.random.permutation(x), np.random.choice(x, 4)

    f, x = jc.jit(resample), normal(5)
    np.random.seed(3)
    want = [resample(x), resample(x)]
    np.random.seed(3)
    got = [f(x), f(x)]
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g, w, strict=True):
            np.testing.assert_array_equal(a, b)


# What jitcore refuses on purpose: (function, arguments, error, words the message must hold).
REFUSED = {
    # np.unique with return_counts: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.nonzero: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    "a ufunc's dtype= that NumPy's same_kind casting refuses": (
        lambda x: np.add(x, 2, dtype=np.int64), (normal(3),), jc.JitTypeError, "same_kind",
    ),
    "Generator.shuffle of a list (shuffle of an array compiles since misc56)": (
        lambda x: np.random.default_rng(1).shuffle([x[0], x[1]]) or x, (normal(4),),
        jc.UnsupportedError, "permutation",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    fn, args, error, words = REFUSED[case]
    with pytest.raises(error, match=words):
        jc.jit(fn)(*args)


def test_a_python_integer_out_of_an_arrays_range_raises_numpys_overflow_error():
    # NEP 50: uint8 + 300 is an OverflowError in NumPy 2, not a wrap
    x = np.array([1, 2], np.uint8)
    with pytest.raises(OverflowError):
        x + 300
    with pytest.raises(OverflowError, match="300"):
        jc.jit(lambda a: a + 300)(x)
