"""A new user's NumPy programs, sixth round (newuser28): areas the first five rounds did not
cover. Polynomials (``polyadd``/``polymul``/``polyder``/``polyint``, ``np.roots`` and ``np.poly``,
Horner tables), signals (``interp`` as a calibration table and over a period, ``convolve`` in
its three modes, lag by ``correlate``, ``gradient`` with coordinate arrays and ``edge_order=2``,
2-D gradients with per-axis spacing, ``trapezoid`` with ``x``/``dx``/``axis``, ``unwrap``),
data handling (``searchsorted`` sides, ``meshgrid`` indexing and ``sparse``, einsum strings,
batched rotations, ``bincount`` with weights, ``histogram2d``, weighted and density
histograms, top-k by ``take_along_axis``, ``put_along_axis``, ``partition``, ``isin``, ``take``
modes and ``choose``, ``diff`` with ``prepend``/``append``, ``append``/``delete``/``insert``,
NaN cleaning, NaN-aware z-scores, ``nanpercentile``/``nanmedian``/``nanquantile``, rolling
windows by ``sliding_window_view`` in 1-D and 2-D, ``cumulative_sum``), images (``np.pad``'s
modes, Sobel by window view and einsum, separable Gaussian by ``apply_along_axis``, a 3x3
median filter, an Otsu-like threshold), linear algebra (``solve``/``inv``/``det``, every
``norm`` order, Vandermonde least squares, generalised eigenproblems by Cholesky,
``tensordot``/``inner``/``vdot``, ``np.block`` KKT matrices, triangle masks), finance
(amortisation loop, NPV curve, moving-average crossover, Black-Scholes by Monte-Carlo with
normals passed in), physics (Verlet spring, Lennard-Jones pair energy, projectile grid) and
statistics (``cov``/``corrcoef`` with ``rowvar=False``, descriptive stats over axis tuples,
ECDF, ``digitize``, ``clip`` with array bounds, ``gcd``/``lcm``, ``logspace``/``geomspace``,
``fill_diagonal``, ``keepdims`` arg-reductions, ``np.piecewise`` tax brackets, ``resize``).
Each runs under ``jc.jit`` against NumPy, compared as the earlier rounds' programs are
(tests/programs/like_numpy.py); what jitcore refuses on purpose is checked to be its own error,
saying what to do instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import jitcore as jc
from tests.programs.like_numpy import (
    EXACT,
    cases_and_jitted,
    check_edge,
    check_program,
)

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
RNG = np.random.default_rng(20261203 + 6)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


IMG = RNG.integers(0, 256, (7, 9)).astype(np.uint8)


# ---------------------------------------------------------------------------- polynomials
def poly_arith(a, b):
    return np.polyadd(a, b), np.polysub(a, b), np.polymul(a, b), np.polyder(a, 2), np.polyint(b, k=1.0)


def poly_roots(c):
    r = np.roots(c)  # complex under jit (NumPy's is real when every root is): compare parts
    return np.sort(r.real), np.sort(np.abs(r.imag)), np.poly(np.sort(r.real))


def horner_table(c, x):
    return np.polyval(c, x), np.polyval(np.polyder(c), x)


# ---------------------------------------------------------------------------- signals
def interp_calibration(raw, xp, fp):
    return np.interp(raw, xp, fp), np.interp(raw[::-1], xp, fp, left=0.0, right=1.0)


def convolve_modes(x, k):
    return np.convolve(x, k), np.convolve(x, k, mode="same"), np.convolve(k, x, mode="valid")


def lag_by_correlation(x, y):
    c = np.correlate(x - x.mean(), y - y.mean(), mode="full")
    return c, np.argmax(c) - (len(y) - 1)


def gradient_spacing(f, x):
    return (
        np.gradient(f, 0.5),
        np.gradient(f, x),
        np.gradient(f, x, edge_order=2),
    )


def gradient_2d(F, dy, dx):
    gy, gx = np.gradient(F, dy, dx)
    return gy, gx, np.gradient(F, axis=1), np.hypot(gx, gy)


def trapezoid_areas(y, x):
    return (
        np.trapezoid(y),
        np.trapezoid(y, x),
        np.trapezoid(y, dx=0.1),
        np.trapezoid(np.outer(y, y), x, axis=0),
    )


def unwrap_phase(p):
    return np.unwrap(p), np.unwrap(p, period=4.0)


# ---------------------------------------------------------------------------- data
def searchsorted_sides(edges, v):
    lo = np.searchsorted(edges, v, side="left")
    hi = np.searchsorted(edges, v, side="right")
    return lo, hi, hi - lo


def meshgrid_forms(x, y):
    X, Y = np.meshgrid(x, y)
    Xi, Yj = np.meshgrid(x, y, indexing="ij")
    xs, ys = np.meshgrid(x, y, sparse=True)
    return X * Y, Xi - Yj, xs + ys


def einsum_strings(A, B, v):
    return (
        np.einsum("ij,ij->i", A, B),
        np.einsum("ij,jk->ik", A, B.T),
        np.einsum("ii->", A[:, : A.shape[0]]),
        np.einsum("i,j->ij", v, v),
        np.einsum("...j->...", A),
        np.einsum("ij->ji", A),
    )


def batched_rotations(theta, pts):
    c, s = np.cos(theta), np.sin(theta)
    R = np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)
    return R @ pts[..., None], np.einsum("bij,bj->bi", R, pts)


def bincount_weights(labels, w):
    return np.bincount(labels, minlength=6), np.bincount(labels, weights=w, minlength=6)


def histogram2d_counts(x, y):
    H, xe, ye = np.histogram2d(x, y, bins=4, range=[[-2, 2], [-2, 2]])
    return H, xe, ye


def histogram_weights(x, w):
    h, e = np.histogram(x, bins=5, range=(-2.0, 2.0), weights=w)
    d, _ = np.histogram(x, bins=5, range=(-2.0, 2.0), density=True)
    return h, e, d


def top_k_rows(A, k):
    idx = np.argsort(-A, axis=1)[:, :k]
    return np.take_along_axis(A, idx, axis=1), idx


def zero_row_max(A):
    B = A.copy()
    i = np.argmax(B, axis=1)[:, None]
    np.put_along_axis(B, i, 0.0, axis=1)
    return B


def partition_smallest(x, k):
    p = np.partition(x, k)
    return np.sort(p[:k]), p[k]


def isin_membership(a, b):
    return np.isin(a, b), np.isin(a, b, invert=True).sum()


def take_modes(x, idx):
    return (
        np.take(x, idx, mode="wrap"),
        np.take(x, idx, mode="clip"),
        np.choose(idx % 3, [x[:4], -x[:4], 2 * x[:4]], mode="wrap"),
    )


def diff_prepend(x):
    return np.diff(x, prepend=0.0), np.diff(x, append=x[-1]), np.ediff1d(x, to_begin=-1.0), np.diff(x, n=2)


def append_delete(x):
    return np.append(x, [1.0, 2.0]), np.delete(x, 1), np.delete(x, [0, -1]), np.insert(x, 2, 9.0)


def nan_clean(x):
    return np.nan_to_num(x, nan=0.0, posinf=1e3, neginf=-1e3), np.nansum(x), np.nanmin(x), np.nanargmax(x)


def nan_stats(X):
    mu = np.nanmean(X, axis=0)
    sd = np.nanstd(X, axis=0, ddof=1)
    z = (X - mu) / sd
    return mu, sd, np.where(np.isnan(X), 0.0, z)


def nan_percentiles(X):
    return np.nanpercentile(X, [25, 50, 75], axis=0), np.nanmedian(X, axis=1), np.nanquantile(X, 0.9)


def rolling_windows(x, w):
    v = sliding_window_view(x, w)
    return v.mean(axis=-1), v.std(axis=-1), v.max(axis=-1) - v.min(axis=-1)


def rolling_2d(A):
    v = sliding_window_view(A, (2, 3))
    return v.sum(axis=(-2, -1)), v.max(axis=(-1, -2))


def cumulative_sums(x):
    return np.cumulative_sum(x, include_initial=True), np.cumsum(x, dtype=np.float64), np.cumprod(x[:5])


# ---------------------------------------------------------------------------- images
def pad_modes(img):
    return (
        np.pad(img, 2, mode="reflect"),
        np.pad(img, ((1, 0), (0, 2)), mode="symmetric"),
        np.pad(img, 1, mode="wrap"),
        np.pad(img, 1, mode="constant", constant_values=7),
        np.pad(img, (1, 2), mode="maximum"),
    )


def sobel(img):
    f = img.astype(np.float64)
    kx = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    win = sliding_window_view(np.pad(f, 1, mode="edge"), (3, 3))
    gx = np.einsum("ijkl,kl->ij", win, kx)
    gy = np.einsum("ijkl,kl->ij", win, kx.T)
    return np.hypot(gx, gy), np.arctan2(gy, gx)


def gaussian_separable(img, k):
    f = img.astype(np.float32)
    rows = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 1, f)
    return np.apply_along_axis(lambda c: np.convolve(c, k, mode="same"), 0, rows)


def median_filter_windows(img):
    win = sliding_window_view(np.pad(img, 1, mode="reflect"), (3, 3))
    return np.median(win, axis=(-2, -1))


def threshold_otsu_like(img):
    h, _ = np.histogram(img, bins=16, range=(0, 256))
    p = h / h.sum()
    w = np.cumsum(p)
    mu = np.cumsum(p * np.arange(16))
    between = (mu[-1] * w - mu) ** 2 / (w * (1 - w) + 1e-12)
    return np.argmax(between), between


# ---------------------------------------------------------------------------- linear algebra
def solve_systems(A, B):
    X = np.linalg.solve(A, B)
    return X, np.linalg.inv(A) @ B, np.linalg.det(A)


def norm_orders(A, v):
    return (
        np.linalg.norm(v),
        np.linalg.norm(v, 1),
        np.linalg.norm(v, np.inf),
        np.linalg.norm(v, -np.inf),
        np.linalg.norm(A, "fro"),
        np.linalg.norm(A, 1),
        np.linalg.norm(A, np.inf),
        np.linalg.norm(A, 2),
        np.linalg.norm(A, "nuc"),
        np.linalg.norm(A, axis=1, keepdims=True),
    )


def vandermonde_fit(x, y):
    V = np.vander(x, 3, increasing=True)
    c = np.linalg.solve(V.T @ V, V.T @ y)
    c2, res, rank, sv = np.linalg.lstsq(V, y, rcond=None)
    return c, c2, rank


def vibration_modes(K, M):
    L = np.linalg.cholesky(M)
    Li = np.linalg.inv(L)
    w2 = np.linalg.eigvalsh(Li @ K @ Li.T)
    return np.sqrt(w2), np.linalg.matrix_power(K, 3)


def tensordot_forms(A, B):
    return (
        np.tensordot(A, B, axes=1),
        np.tensordot(A, A, axes=([0, 1], [0, 1])),
        np.inner(A, A),
        np.vdot(A, A),
    )


def block_kkt(H, a):
    return np.block([[H, a[:, None]], [a[None, :], np.zeros((1, 1))]])


def tri_masks(D):
    n = D.shape[0]
    m = np.tri(n, k=-1, dtype=bool)
    return D[m].sum(), np.triu(D, 1).sum(), np.tril(D, -1).max()


# ---------------------------------------------------------------------------- finance / physics / statistics
def amortization(principal, rate, n):
    pay = principal * rate / (1 - (1 + rate) ** -n)
    bal = np.empty(n + 1)
    bal[0] = principal
    interest = np.empty(n)
    for k in range(n):
        interest[k] = bal[k] * rate
        bal[k + 1] = bal[k] + interest[k] - pay
    return pay, bal, interest.sum()


def npv_curve(cash, rates):
    t = np.arange(cash.shape[0])
    disc = (1.0 + rates[:, None]) ** -t[None, :]
    return disc @ cash, rates[np.argmin(np.abs(disc @ cash))]


def ma_crossover(price, fast, slow):
    f = sliding_window_view(price, fast).mean(axis=1)[slow - fast :]
    s = sliding_window_view(price, slow).mean(axis=1)
    sig = np.sign(f - s)
    flips = np.diff(sig) != 0
    return sig, np.count_nonzero(flips), np.where(flips, np.arange(flips.size), -1)


def black_scholes(S, K, T, r, sigma, z):
    # Monte-Carlo with standard normals passed in, checked by the payoff's mean
    ST = S * np.exp((r - 0.5 * sigma**2) * T + sigma * np.sqrt(T) * z)
    pay = np.maximum(ST - K, 0.0)
    return np.exp(-r * T) * pay.mean(), pay.std(ddof=1) / np.sqrt(z.size)


def monte_carlo_pi(u):
    inside = (u[:, 0] ** 2 + u[:, 1] ** 2) <= 1.0
    return 4.0 * inside.mean(), np.cumsum(inside) * 4.0 / np.arange(1, u.shape[0] + 1)


def verlet_spring(x0, v0, k, dt, n):
    x, v = x0, v0
    xs = np.zeros(n)
    a = -k * x
    for i in range(n):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -k * x
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
        xs[i] = x
    return xs, 0.5 * v * v + 0.5 * k * x * x


def pair_potential(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt((d**2).sum(-1))
    iu = np.triu(np.ones(r.shape, dtype=bool), 1)
    inv6 = np.where(iu, 1.0 / np.where(iu, r, 1.0) ** 6, 0.0)
    return (4 * (inv6**2 - inv6)).sum(), r.max()


def projectile_grid(v, angles_deg):
    th = np.deg2rad(angles_deg)
    V, TH = np.meshgrid(v, th, indexing="ij")
    rng = V**2 * np.sin(2 * TH) / 9.81
    return rng, np.unravel_index(np.argmax(rng), rng.shape)


def cov_rowvar(X, w):
    return np.cov(X, rowvar=False), np.cov(X, rowvar=False, ddof=0, aweights=w), np.corrcoef(X, rowvar=False)


def describe(x):
    return (
        np.mean(x, axis=0),
        np.var(x, axis=(0, 1)),
        np.std(x, ddof=1, axis=-1),
        np.ptp(x, axis=1),
        np.percentile(x, 90, axis=2, method="nearest"),
        np.average(x, axis=1, weights=np.arange(1.0, x.shape[1] + 1)),
    )


def ecdf(x, t):
    s = np.sort(x)
    return np.searchsorted(s, t, side="right") / s.size, s


def digitize_right(x, bins):
    return np.digitize(x, bins, right=True), np.digitize(x, bins[::-1])


def clip_arrays(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, None, hi), np.round(x, 2), np.floor_divide(x, 0.3)


def integer_math(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.floor_divide(a, b), np.mod(a, b), np.divmod(a, -b)


def logspaces(n):
    return np.logspace(0, 2, n), np.geomspace(1.0, 1000.0, n), np.logspace(0, 3, n, base=2.0, endpoint=False)


def fill_diag(A):
    B = A.copy()
    np.fill_diagonal(B, 0.0)
    return B, np.diag(A).sum()


def argmax_keepdims(A):
    return (
        np.argmax(A, axis=1, keepdims=True),
        np.argmin(A, axis=0, keepdims=True),
        np.count_nonzero(A > 0, axis=0),
    )


def shapes_helpers(x):
    return np.atleast_2d(x).shape, np.expand_dims(x, (0, 2)), np.squeeze(x[None, :, None]), np.atleast_3d(x)


def sort_variants(A):
    return np.sort(A, axis=None), np.sort(A, axis=0)[::-1], np.argsort(A, axis=1, kind="stable"), -np.sort(-A)


def interp_periodic_table(t, table):
    n = table.shape[0]
    xp = np.arange(n) * (360.0 / n)
    return np.interp(t, xp, table, period=360.0)


def piecewise_tax(income):
    return np.piecewise(
        income,
        [income < 10000, (income >= 10000) & (income < 50000), income >= 50000],
        [0.0, lambda x: 0.2 * (x - 10000), lambda x: 8000 + 0.4 * (x - 50000)],
    )


def resize_tile(x):
    return np.resize(x, (3, 4)), np.tile(x, (2, 1))


PROGRAMS = {
    "poly_arith": (
        poly_arith,
        (),
        TIGHT,
        [
            (np.array([1.0, -2.0, 3.0, 4.0]), np.array([2.0, 0.5])),
            (np.array([1, 2, 3], np.int64), np.array([4, 5, 6, 7], np.int64)),
        ],
    ),
    "poly_roots": (
        poly_roots,
        (),
        TIGHT * 64,
        [(np.array([1.0, -6.0, 11.0, -6.0]),), (np.array([1.0, -2.0, 5.0]),), (np.array([2, -4]),)],
    ),
    "horner_table": (
        horner_table,
        (),
        TIGHT,
        [(np.array([3.0, 0.0, -1.0, 2.0]), np.linspace(-2, 2, 9)), (np.array([1.0, 1.0], f32), f32(0.5))],
    ),
    "interp_calibration": (
        interp_calibration,
        (),
        TIGHT,
        [
            (
                np.array([-1.0, 0.0, 0.3, 2.5, 10.0, np.nan]),
                np.array([0.0, 1.0, 2.0, 3.0]),
                np.array([0.0, 0.8, 1.9, 3.2]),
            )
        ],
    ),
    "convolve_modes": (
        convolve_modes,
        (),
        TIGHT,
        [
            (normal(9), np.array([0.25, 0.5, 0.25])),
            (np.arange(5), np.array([1, -1])),
            (normal(2, dtype=f32), normal(4, dtype=f32)),
        ],
    ),
    "lag_by_correlation": (
        lag_by_correlation,
        (),
        TIGHT,
        [(np.sin(np.arange(20) * 0.5), np.sin(np.arange(20) * 0.5 + 1.0))],
    ),
    "gradient_spacing": (
        gradient_spacing,
        (),
        TIGHT,
        [
            (np.array([1.0, 4.0, 9.0, 16.0, 25.0]), np.array([0.0, 1.0, 1.5, 3.0, 4.0])),
            (np.arange(6, dtype=f32) ** 2, np.linspace(0, 1, 6).astype(f32)),
        ],
    ),
    "gradient_2d": (
        gradient_2d,
        (),
        TIGHT,
        [(normal(4, 5), 0.5, 2.0), (np.arange(12).reshape(3, 4), 1.0, 1.0)],
    ),
    "trapezoid_areas": (
        trapezoid_areas,
        (),
        TIGHT,
        [(normal(6), np.sort(normal(6))), (np.ones(3, f32), np.array([0.0, 1.0, 3.0], f32))],
    ),
    "unwrap_phase": (unwrap_phase, (), TIGHT, [(np.array([0.0, 3.0, 6.0, -3.0, 0.5, 7.0]),)]),
    "searchsorted_sides": (
        searchsorted_sides,
        (),
        EXACT,
        [
            (np.array([0.0, 1.0, 1.0, 1.0, 2.0, 5.0]), np.array([1.0, -1.0, 5.0, 6.0, 1.5, np.nan])),
            (np.array([1, 3, 3], np.int32), np.array([3, 0])),
        ],
    ),
    "meshgrid_forms": (
        meshgrid_forms,
        (),
        EXACT,
        [(np.arange(3.0), np.arange(4.0) * 2), (np.array([1, 2], np.int16), np.array([5], np.int16))],
    ),
    "einsum_strings": (
        einsum_strings,
        (),
        TIGHT,
        [
            (normal(3, 4), normal(3, 4), normal(3)),
            (np.arange(6).reshape(2, 3), np.ones((2, 3), np.int64), np.array([1, 2])),
        ],
    ),
    "batched_rotations": (batched_rotations, (), TIGHT, [(np.linspace(0, np.pi, 4), normal(4, 2))]),
    "bincount_weights": (
        bincount_weights,
        (),
        TIGHT,
        [(np.array([0, 1, 1, 3, 2, 1]), normal(6)), (np.array([4, 4], np.int32), np.array([0.5, 0.25], f32))],
    ),
    "histogram2d_counts": (
        histogram2d_counts,
        (),
        EXACT,
        [(normal(30), normal(30)), (np.array([-2.0, 2.0, 0.0, 5.0]), np.array([0.0, 2.0, -2.0, 0.0]))],
    ),
    "histogram_weights": (
        histogram_weights,
        (),
        TIGHT,
        [(normal(25), RNG.random(25)), (np.array([-2.0, 2.0, 0.0]), np.ones(3))],
    ),
    "top_k_rows": (
        top_k_rows,
        ("k",),
        EXACT,
        [(normal(4, 6), 2), (np.array([[1, 5, 3], [2, 2, 9]], np.int32), 1)],
    ),
    "zero_row_max": (zero_row_max, (), EXACT, [(normal(3, 5),), (np.arange(6.0).reshape(2, 3),)]),
    "partition_smallest": (
        partition_smallest,
        ("k",),
        EXACT,
        [(normal(9), 3), (np.array([5, 1, 4, 1, 2], np.int16), 2)],
    ),
    "isin_membership": (
        isin_membership,
        (),
        EXACT,
        [
            (np.array([1, 2, 3, 4, 5, 2]), np.array([2, 5, 9])),
            (np.array([0.5, np.nan]), np.array([np.nan, 0.5])),
        ],
    ),
    "take_modes": (take_modes, (), EXACT, [(np.arange(10.0), np.array([0, 12, -3, 5]))]),
    "diff_prepend": (
        diff_prepend,
        (),
        TIGHT,
        [(np.array([1.0, 4.0, 2.0, 8.0, 3.0]),), (np.arange(4, dtype=f32),)],
    ),
    "append_delete": (append_delete, (), EXACT, [(np.array([1.0, 4.0, 2.0, 8.0]),)]),
    "nan_clean": (
        nan_clean,
        (),
        TIGHT,
        [(np.array([1.0, np.nan, np.inf, -np.inf, -2.0]),), (np.array([np.nan, 3.0], f32),)],
    ),
    "nan_stats": (nan_stats, (), TIGHT, [(np.where(RNG.random((6, 3)) < 0.2, np.nan, normal(6, 3)),)]),
    "nan_percentiles": (
        nan_percentiles,
        (),
        TIGHT,
        [
            (np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan], [np.nan, 2.0, 0.0], [7.0, 1.0, 2.0]]),),
            (normal(3, 4),),
        ],
    ),
    "rolling_windows": (rolling_windows, ("w",), TIGHT, [(normal(10), 3), (np.arange(5, dtype=f32), 5)]),
    "rolling_2d": (rolling_2d, (), TIGHT, [(normal(4, 5),), (np.arange(12).reshape(3, 4),)]),
    "cumulative_sums": (cumulative_sums, (), TIGHT, [(normal(7),), (np.arange(1, 7, dtype=np.int32),)]),
    "pad_modes": (pad_modes, (), EXACT, [(IMG[:4, :5],), (np.arange(12.0).reshape(3, 4),)]),
    "sobel": (sobel, (), TIGHT, [(IMG,)]),
    "gaussian_separable": (gaussian_separable, (), TIGHT, [(IMG[:5, :6], np.array([0.25, 0.5, 0.25], f32))]),
    "median_filter_windows": (median_filter_windows, (), EXACT, [(IMG[:5, :6].astype(np.float64),)]),
    "threshold_otsu_like": (threshold_otsu_like, (), TIGHT, [(IMG,)]),
    "solve_systems": (
        solve_systems,
        (),
        TIGHT * 16,
        [
            (normal(4, 4) + 4 * np.eye(4), normal(4, 2)),
            (np.array([[2.0, 1.0], [1.0, 3.0]], f32), np.array([1.0, 2.0], f32)),
        ],
    ),
    "norm_orders": (
        norm_orders,
        (),
        TIGHT * 4,
        [(normal(3, 4), normal(5)), (np.eye(2, dtype=f32), np.array([3.0, -4.0], f32))],
    ),
    "vandermonde_fit": (
        vandermonde_fit,
        (),
        TIGHT * 64,
        [(np.linspace(0, 1, 6), 1 + 2 * np.linspace(0, 1, 6) ** 2)],
    ),
    "vibration_modes": (
        vibration_modes,
        (),
        TIGHT * 16,
        [(np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]]), np.diag([1.0, 2.0, 1.0]))],
    ),
    "tensordot_forms": (tensordot_forms, (), TIGHT, [(normal(3, 3), normal(3, 2))]),
    "block_kkt": (block_kkt, (), EXACT, [(np.eye(3), np.array([1.0, 2.0, 3.0]))]),
    "tri_masks": (tri_masks, (), TIGHT, [(normal(4, 4),)]),
    "amortization": (amortization, ("n",), TIGHT * 4, [(1000.0, 0.01, 12), (500.0, 0.05, 3)]),
    "npv_curve": (
        npv_curve,
        (),
        TIGHT * 4,
        [(np.array([-100.0, 30.0, 40.0, 50.0]), np.linspace(0.0, 0.2, 11))],
    ),
    "ma_crossover": (ma_crossover, ("fast", "slow"), EXACT, [(100 + np.cumsum(normal(30)), 3, 7)]),
    "black_scholes": (black_scholes, (), TIGHT * 4, [(100.0, 105.0, 1.0, 0.02, 0.2, normal(1000))]),
    "monte_carlo_pi": (monte_carlo_pi, (), TIGHT, [(RNG.random((200, 2)),)]),
    "verlet_spring": (verlet_spring, ("n",), TIGHT * 4, [(1.0, 0.0, 4.0, 0.01, 50)]),
    "pair_potential": (pair_potential, (), TIGHT * 4, [(normal(5, 3) * 2,)]),
    "projectile_grid": (
        projectile_grid,
        (),
        TIGHT,
        [(np.array([10.0, 20.0, 30.0]), np.linspace(10.0, 80.0, 8))],
    ),
    "cov_rowvar": (cov_rowvar, (), TIGHT * 4, [(normal(8, 3), RNG.random(8))]),
    "describe": (describe, (), TIGHT, [(normal(2, 3, 4),)]),
    "ecdf": (
        ecdf,
        (),
        EXACT,
        [(normal(10), np.array([-1.0, 0.0, 1.0])), (np.array([3, 1, 2, 2], np.int8), np.array([2]))],
    ),
    "digitize_right": (
        digitize_right,
        (),
        EXACT,
        [(np.array([0.0, 1.0, 2.5, 4.0, -1.0, np.nan]), np.array([0.0, 1.0, 2.0, 4.0]))],
    ),
    "clip_arrays": (
        clip_arrays,
        (),
        TIGHT,
        [
            (
                np.array([-1.234, 0.5, 2.345, 9.0]),
                np.array([0.0, 0.0, 1.0, 1.0]),
                np.array([1.0, 0.4, 3.0, 5.0]),
            )
        ],
    ),
    "integer_math": (
        integer_math,
        (),
        EXACT,
        [
            (np.array([12, -18, 7, 0]), np.array([8, 12, 3, 5])),
            (np.array([6, 9], np.int16), np.array([4, 6], np.int16)),
        ],
    ),
    "logspaces": (logspaces, ("n",), TIGHT, [(5,)]),
    "fill_diag": (fill_diag, (), EXACT, [(normal(3, 3),)]),
    "argmax_keepdims": (argmax_keepdims, (), EXACT, [(normal(3, 4),)]),
    "shapes_helpers": (shapes_helpers, (), EXACT, [(np.arange(3.0),)]),
    "sort_variants": (sort_variants, (), EXACT, [(np.array([[3.0, np.nan, 1.0], [2.0, 2.0, -1.0]]),)]),
    "interp_periodic_table": (
        interp_periodic_table,
        (),
        TIGHT,
        [(np.array([-10.0, 0.0, 359.0, 725.0]), np.array([0.0, 1.0, 0.0, -1.0]))],
    ),
    "piecewise_tax": (piecewise_tax, (), TIGHT, [(np.array([5000.0, 20000.0, 80000.0]),)]),
    "resize_tile": (resize_tile, (), EXACT, [(np.arange(5.0),)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


# The functions this round compiled, at their edges: (function, arguments, tolerance).
_NAN_LANES = np.array([[1.0, np.nan, 3.0, np.inf], [np.nan] * 4, [2.0, -1.0, np.nan, 0.5]])
EDGES = {
    "nanquantile methods, a lane of NaN only, float32": (
        lambda X: [np.nanquantile(X, [0.0, 0.4, 1.0], axis=1, method=m) for m in
                   ("linear", "lower", "higher", "nearest", "midpoint")],
        (_NAN_LANES.astype(f32),),
        TIGHT,
    ),
    "nanmedian over axes with keepdims, nanpercentile of ints": (
        lambda X, n: (np.nanmedian(X, axis=0, keepdims=True), np.nanmedian(X), np.nanpercentile(n, 30)),
        (_NAN_LANES, np.array([4, 1, 3], np.int16)),
        TIGHT,
    ),
    "histogram2d: last edge, outside, NaN, edges per axis, density": (
        lambda x, y, w: (
            np.histogram2d(x, y, bins=[np.array([0.0, 1.0, 3.0]), 2], range=[None, (0, 2)], weights=w),
            np.histogram2d(y, w, bins=2, density=True),
        ),
        (np.array([0.0, 3.0, 1.0, np.nan, 5.0, 2.0]), np.array([2.0, 0.0, 1.0, 1.0, 0.5, 1.0]),
         np.arange(6.0)),
        TIGHT,
    ),
    "gradient: uniform coordinates, integers, per-axis arrays": (
        lambda f, g: (np.gradient(f, np.arange(4) * 2), np.gradient(g, np.array([0.0, 0.5, 2.0]), 3.0)),
        (np.array([1, 4, 9, 16]), normal(3, 2)),
        TIGHT,
    ),
    "take wrap/clip with negative indices along an axis": (
        lambda a: (np.take(a, [-7, 5, 2], axis=1, mode="wrap"), np.take(a, [[-1], [9]], mode="clip")),
        (np.arange(12).reshape(3, 4),),
        EXACT,
    ),
    "insert at a negative index along an axis, resize to empty and larger, 1-d block": (
        lambda a: (np.insert(a, -1, [7, 8], axis=1), np.resize(a, (0,)), np.resize(a, (3, 5)),
                   np.block([a[0], 9, a[1]])),
        (np.arange(6).reshape(2, 3),),
        EXACT,
    ),
    "piecewise with one condition and an otherwise piece": (
        lambda x: np.piecewise(x, [x < 0], [lambda v: v * v, lambda v: -v]),
        (np.array([-2, -1, 0, 3], np.int32),),
        EXACT,
    ),
    "roots of a trailing-zero polynomial, poly of float32 roots": (
        lambda c, r: (np.sort(np.roots(c).real), np.poly(r)),
        (np.array([1.0, -3.0, 2.0, 0.0]), np.array([1.0, 2.0], f32)),
        TIGHT * 64,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    fn, args, rtol = EDGES[case]
    check_edge(fn, args, rtol, case)


# A program jitcore refuses: (function, arguments, error type, words of its message).
REFUSED = {
    "np.bincount without minlength": (
        lambda x: np.bincount(x),
        (np.array([0, 2, 1]),),
        jc.ConcretizationError,
        "minlength",
    ),
    # np.flatnonzero: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.unique with return_counts: returned, compiled since dynlen46 (tests/test_data_dependent_length.py)
    # np.pad's 'linear_ramp' and np.insert at several indices: compiled since round 7
    # np.poly of a matrix: compiled since session 56 (tests/jitcore/test_real_or_complex_56.py)
    # np.fft.fft: compiled since fft31 (tests/jitcore/test_fft.py)
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    fn, args, error, words = REFUSED[case]
    with pytest.raises(error, match=words):
        jc.jit(fn)(*args)
