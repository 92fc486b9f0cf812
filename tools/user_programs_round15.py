"""Round 15's new-user programs (newuser37), shared by their test
(tests/programs/test_new_user_programs_15.py) and their benchmark
(tools/bench_user_programs_round15.py): each name maps to (function, static argument names,
tolerance in eps, inputs), as tests/programs/like_numpy.py reads them. Domains the first
fourteen rounds did not draw: image processing (Sobel, histogram equalisation two ways, Otsu's
threshold, uint8 blending, windows by sliding_window_view and einsum, masks from ogrid),
finance (returns, drawdowns, rolling moments by cumsum, Sharpe and Sortino ratios, portfolio
variance), statistics (np.average, the nan-functions, np.cov with weights), geometry (cross
products, rotations, norms by axis and ord, the shoelace formula, triangles by np.c_),
numerical methods (RK4 with a function argument, trapezoid and Simpson rules, bisection in a
while loop, Jacobi, Gauss-Seidel, LU, power iteration), masked code (np.select, np.piecewise,
counting without np.unique), array construction (np.block, np.tile, np.repeat, np.pad's modes,
np.r_/np.c_, np.indices, np.tri), dtype corners (int16, float16, complex64, uint8) and
examples of NumPy's reference pages (np.pad's function mode, einsum, histogram, unwrap)."""

from __future__ import annotations

import numpy as np

EXACT = 0.0  # bit for bit (tests/programs/like_numpy.EXACT)
TIGHT = 64  # eps of the result dtype: reductions summed in another order, contractions, libm ULPs
LOOSE = 1e4  # solvers: LAPACK's rounding and jitcore's differ, and so do their ill-conditioned bits
RNG = np.random.default_rng(20261204 + 15)


def normal(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------------------- images
def sobel_magnitude(img):
    """Sobel by slicing: gradient magnitude and direction of the interior."""
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (
        img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2]
    )
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (
        img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:]
    )
    return np.hypot(gx, gy), np.arctan2(gy, gx)


def equalize_by_histogram(img):
    """Histogram equalisation as the tutorials write it: np.histogram, cumsum, np.interp."""
    hist, bins = np.histogram(img.ravel(), bins=256, range=(0, 256))
    cdf = hist.cumsum()
    cdf_n = (cdf - cdf.min()) * 255 / (cdf.max() - cdf.min())
    return np.interp(img.ravel(), bins[:-1], cdf_n).reshape(img.shape).astype(np.uint8)


def equalize_by_lookup(img):
    """The same by bincount and a lookup table indexed by the uint8 image."""
    cdf = np.cumsum(np.bincount(img.ravel(), minlength=256))
    lut = np.round(255.0 * cdf / cdf[-1]).astype(np.uint8)
    return lut[img]


def otsu_threshold(img):
    """Otsu's threshold: the between-class variance of every cut, its argmax."""
    p = np.bincount(img.ravel(), minlength=256) / img.size
    omega = np.cumsum(p)
    mu = np.cumsum(p * np.arange(256))
    sigma_b = (mu[-1] * omega - mu) ** 2 / (omega * (1 - omega))
    return np.argmax(np.nan_to_num(sigma_b))


def blend_uint8(a, b, alpha):
    """Alpha blending in float32, clipped back to uint8; uint8 sums wrap, halves do not."""
    out = a.astype(np.float32) * alpha + b.astype(np.float32) * (1 - alpha)
    return np.clip(out, 0, 255).astype(np.uint8), a + b, a // 2 + b // 2, 255 - a


def gaussian_blur(img):
    """A separable 1-2-1 blur with edge padding."""
    k = np.array([1.0, 2.0, 1.0]) / 4
    p = np.pad(img, 1, mode="edge")
    h = k[0] * p[:, :-2] + k[1] * p[:, 1:-1] + k[2] * p[:, 2:]
    return k[0] * h[:-2] + k[1] * h[1:-1] + k[2] * h[2:]


def filter_by_windows(img, k):
    """A 'valid' correlation by sliding_window_view, twice: einsum and a product's sum."""
    win = np.lib.stride_tricks.sliding_window_view(img, k.shape)
    return np.einsum("ijkl,kl->ij", win, k), (win * k).sum(axis=(2, 3))


def disc_mask(img, r):
    """Pixels outside a disc set to zero, the disc from ogrid's open grids."""
    n, m = img.shape
    y, x = np.ogrid[:n, :m]
    mask = (x - m / 2) ** 2 + (y - n / 2) ** 2 <= r * r
    out = img.copy()
    out[~mask] = 0
    return out, mask.sum()


def rgb_to_gray(rgb):
    return np.dot(rgb[..., :3], [0.2989, 0.5870, 0.1140]), rgb.mean(axis=-1)


# ---------------------------------------------------------------------------- finance
def returns_and_drawdown(prices):
    r = np.diff(prices) / prices[:-1]
    peak = np.maximum.accumulate(prices)
    dd = (prices - peak) / peak
    return r, np.diff(np.log(prices)), dd.min(), np.argmin(dd)


def rolling_mean_std(x, w):
    """Rolling moments by differences of cumulative sums."""
    c = np.cumsum(np.insert(x, 0, 0.0))
    c2 = np.cumsum(np.insert(x * x, 0, 0.0))
    m = (c[w:] - c[:-w]) / w
    return m, np.sqrt(np.maximum((c2[w:] - c2[:-w]) / w - m * m, 0))


def sharpe_and_sortino(r, rf):
    ex = r - rf
    down = np.minimum(ex, 0)
    return ex.mean() / ex.std(ddof=1) * np.sqrt(252), ex.mean() / np.sqrt(np.mean(down**2)) * np.sqrt(252)


def portfolio_risk(w, R):
    cov = np.cov(R, rowvar=False)
    return w @ cov @ w, np.corrcoef(R.T)


def running_best_ignoring_gaps(x):
    """Best so far over a series with missing values: fmax skips NaN, maximum keeps it."""
    return np.fmax.accumulate(x), np.fmin.accumulate(x), np.maximum.accumulate(x)


# ---------------------------------------------------------------------------- statistics
def weighted_stats(x, w):
    avg, sw = np.average(x, weights=w, returned=True)
    var = np.average((x - avg) ** 2, weights=w)
    return avg, sw, var, np.average(x.reshape(4, 5), axis=1, weights=w[:5])


def nan_aware(x):
    return (
        np.nanmean(x),
        np.nanstd(x),
        np.nanvar(x, ddof=1),
        np.nansum(x, axis=0),
        np.nanmax(x, axis=1),
        np.nanmin(x),
        np.nanargmax(x[0]),
        np.nanprod(x, axis=1),
    )


def weighted_covariances(X, fw, aw):
    return (
        np.cov(X, fweights=fw),
        np.cov(X, aweights=aw),
        np.cov(X, fweights=fw, aweights=aw, ddof=0),
        np.corrcoef(X[0], X[1]),
    )


def zscores(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


# ---------------------------------------------------------------------------- geometry
def rotations_and_norms(a, b, theta):
    R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    return (
        np.cross(a, b),
        a[:, :2] @ R.T,
        np.linalg.norm(a, axis=1),
        np.linalg.norm(a, ord=1, axis=1),
        np.linalg.norm(a, ord=np.inf, axis=0),
        np.linalg.norm(a),
    )


def shoelace_area(x, y):
    return 0.5 * np.abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def triangle_areas(a, b, c):
    """Areas from 2-d cross products, and the 3-d normals of the triangles lifted by np.c_."""
    ab, ac = b - a, c - a
    area = 0.5 * np.abs(ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0])
    return area, np.cross(np.c_[ab, np.zeros(len(ab))], np.c_[ac, np.zeros(len(ac))])


def pairwise_angles(P):
    d = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(-1))
    u = P / np.linalg.norm(P, axis=1, keepdims=True)
    return d, np.arccos(np.clip(u @ u.T, -1, 1))


# ---------------------------------------------------------------------------- numerical methods
def rk4(f, y0, h, n):
    """Classic RK4 with the right-hand side passed in (a static argument)."""
    y = y0
    for i in range(n):
        t = i * h
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def damped_oscillator(t, y):
    return np.array([y[1], -y[0] - 0.1 * y[1] + np.sin(t)])


def quadrature(a, b, n):
    x = np.linspace(a, b, n + 1)
    y = np.exp(-x * x)
    h = (b - a) / n
    trap = h * (y[0] / 2 + y[1:-1].sum() + y[-1] / 2)
    simpson = h / 3 * (y[0] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum() + y[-1])
    return trap, simpson, np.trapezoid(y, x), np.trapezoid(y, dx=h)


def cube_root_by_bisection(c):
    lo, hi = 0.0, max(1.0, c)
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def jacobi(A, b, iters):
    D = np.diag(A)
    R = A - np.diagflat(D)
    x = np.zeros_like(b)
    for _ in range(iters):
        x = (b - R @ x) / D
    return x


def gauss_seidel(A, b, iters):
    n = b.shape[0]
    x = np.zeros(n)
    for _ in range(iters):
        for i in range(n):
            s = A[i, :i] @ x[:i] + A[i, i + 1 :] @ x[i + 1 :]
            x[i] = (b[i] - s) / A[i, i]
    return x


def lu_doolittle(A):
    n = A.shape[0]
    L = np.eye(n)
    U = A.copy()
    for k in range(n - 1):
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, k:] -= L[i, k] * U[k, k:]
    return L, U


def power_iteration(A, iters):
    v = np.ones(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = np.linalg.norm(w)
        v = w / lam
    return lam, v


# ---------------------------------------------------------------------------- masks and branches
def select_and_piecewise(x):
    a = np.select([x < -1, x > 1], [x * 2, x**2], default=0.0)
    b = np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 3])
    return a, b, np.where(x > 0, x, 0.1 * x), np.any(x > 2), np.count_nonzero(x > 0), (x > 0).sum(axis=0)


def counts_without_unique(labels, k):
    counts = np.zeros(k, dtype=np.int64)
    for label in labels:
        counts[label] += 1
    onehot = labels[:, None] == np.arange(k)[None, :]
    return counts, onehot.sum(axis=0), onehot.mean(axis=0), np.argmax(counts)


def sign_flip(v):
    if v > 0:
        return v * 2
    return -v


def vectorized_branches(x):
    """np.vectorize of a function with an if: a compiled loop since round 15."""
    return np.vectorize(sign_flip)(x), np.vectorize(lambda a, b: a - b if a > b else a + b)(x, 0.5)


def squares_by_tolist(x):
    """A Python loop over x.tolist(), an if on each number."""
    total = 0.0
    for v in x.tolist():
        if v > 0:
            total += v * v
    return total, x.item(0), x.reshape(2, -1).tolist()


def clamp_in_place_and_phasors(x, limit):
    """np.copyto with a mask into a working copy; complex() of traced numbers; an integer power."""
    y = x.copy()
    np.copyto(y, limit, where=np.abs(y) > limit)
    z = complex(x[0], x[1]) * complex(x[2])
    return y, z, np.arange(4) ** np.abs(x[:4]).astype(np.int64)


# ---------------------------------------------------------------------------- construction
def constructions(a, b):
    return (
        np.stack([a, b], axis=1),
        np.block([[a, b], [b, a]]),
        np.tile(a, (2, 3)),
        np.repeat(a, 2),
        np.pad(a, 2, mode="reflect"),
        np.tri(4, 3, -1),
        np.column_stack([a, b]),
        np.dstack([a, b]),
    )


def pad_modes(a):
    return (
        np.pad(a, (2, 3), constant_values=(4, 6)),
        np.pad(a, 2, mode="mean"),
        np.pad(a, (1, 2), mode="median"),
        np.pad(a, 2, mode="maximum", stat_length=2),
        np.pad(a, 2, mode="linear_ramp", end_values=(5, -4)),
    )


def pad_with(vector, pad_width, iaxis, kwargs):
    """np.pad's reference example of a function mode."""
    pad_value = kwargs.get("padder", 10)
    vector[: pad_width[0]] = pad_value
    vector[-pad_width[1] :] = pad_value


def pad_by_function(A):
    return np.pad(A, 2, pad_with), np.pad(A, 1, pad_with, padder=100)


def index_concatenations(x, y):
    return np.r_[x, 0, y], np.c_[x, y], np.r_["0,2", x, y], np.r_[x, 1:4], np.c_[x, x * y]


def grids(n, m):
    i, j = np.indices((n, m))
    return i * 10 + j, np.tri(n, m, dtype=np.int32), np.fromfunction(lambda r, c: r + c, (n, m))


# ---------------------------------------------------------------------------- dtype corners
def int16_wrap(a):
    return a * 300, a + np.int16(30000), a.astype(np.int16) << 3, a.sum(dtype=np.int16), a.sum(), np.cumsum(a)


def float16_arithmetic(x):
    h = x.astype(np.float16)
    return h * h + 1, np.sqrt(h), h.sum(), h.mean(), h.astype(np.float32) / 3


def complex64_arithmetic(z):
    return (
        z * z.conj(),
        np.abs(z),
        np.angle(z),
        z.sum(),
        np.real(z) + np.imag(z),
        np.round(z, 1),
        np.linalg.norm(z),
        np.vdot(z, z),
    )


def uint8_image_ops(img):
    return (
        255 - img,
        (img > 128).astype(np.uint8) * 255,
        img.mean(),
        img.sum(),
        img.max(),
        np.clip(img.astype(np.int16) * 2, 0, 255).astype(np.uint8),
        img // 3 * 3,
    )


# ---------------------------------------------------------------------------- NumPy's reference pages
def doc_einsum(a):
    A, b, c = a[:25].reshape(5, 5), a[:5], a[:6].reshape(2, 3)
    return (
        np.einsum("ii", A),
        np.einsum("ii->i", A),
        np.einsum("ij->i", A),
        np.einsum("ji", c),
        np.einsum("ij,j", A, b),
        np.einsum("i,i", b, b),
        np.einsum("...j,j", A, b),
        np.einsum("ijk,jil->kl", a[:60].reshape(3, 4, 5), a[:24].reshape(4, 3, 2)),
    )


def doc_histogram(x):
    return (
        np.histogram(np.array([1, 2, 1]), bins=[0, 1, 2, 3]),
        np.histogram(np.arange(4), bins=np.arange(5), density=True),
        np.histogram(x, bins=3, density=True),
        np.histogram_bin_edges(x, bins=4),
        np.digitize(x, [0.5, 1.5, 2.5]),
    )


def doc_diff_unwrap(x):
    return (
        np.diff(x, n=2),
        np.diff(x, prepend=0, append=[9, 9]),
        np.unwrap(np.array([0.0, 0.78, 5.49, 6.28])),
        np.unwrap(np.array([1, 2, 3, 4, 5, 6, 1, 2, 3]), period=6),
        np.ediff1d(x, to_begin=-99, to_end=np.array([88, 99])),
    )


def doc_interp_periodic(x):
    return np.interp(x, [190, -190, 350, -350], [5, 10, 3, 4], period=360), np.interp(
        3.14, [1, 2, 3], [3, 2, 0], right=-99.0
    )


PROGRAMS = {
    "sobel_magnitude": (sobel_magnitude, (), TIGHT, [(RNG.random((10, 12)),)]),
    "equalize_by_histogram": (
        equalize_by_histogram,
        (),
        EXACT,
        [(RNG.integers(30, 200, (8, 8), dtype=np.uint8),)],
    ),
    "equalize_by_lookup": (equalize_by_lookup, (), EXACT, [(RNG.integers(30, 200, (8, 8), dtype=np.uint8),)]),
    "otsu_threshold": (
        otsu_threshold,
        (),
        EXACT,
        [
            (
                np.concatenate([RNG.integers(20, 60, 30), RNG.integers(150, 220, 34)])
                .astype(np.uint8)
                .reshape(8, 8),
            )
        ],
    ),
    "blend_uint8": (
        blend_uint8,
        (),
        EXACT,
        [(RNG.integers(0, 256, (4, 5), dtype=np.uint8), RNG.integers(0, 256, (4, 5), dtype=np.uint8), 0.3)],
    ),
    "gaussian_blur": (gaussian_blur, (), TIGHT, [(RNG.random((6, 7)),)]),
    "filter_by_windows": (filter_by_windows, (), TIGHT, [(normal(6, 7), normal(3, 3))]),
    "disc_mask": (disc_mask, (), EXACT, [(RNG.random((6, 8)), 2.5)]),
    "rgb_to_gray": (rgb_to_gray, (), TIGHT, [(RNG.random((4, 5, 3)),)]),
    # the log returns: differences of logs near 4.6, so a last-bit difference of a log (jitcore's
    # is within 0.55 ULP) is 2e-14 of a 0.05 return
    "returns_and_drawdown": (returns_and_drawdown, (), 512, [(np.exp(np.cumsum(normal(30) * 0.02)) * 100,)]),
    # differences of running sums: their rounding is relative to the sums, not to the windows'
    "rolling_mean_std": (rolling_mean_std, ("w",), 1e3, [(normal(30), 5)]),
    "sharpe_and_sortino": (sharpe_and_sortino, (), TIGHT, [(normal(40) * 0.01, 0.0001)]),
    "portfolio_risk": (portfolio_risk, (), TIGHT, [(np.array([0.5, 0.3, 0.2]), normal(20, 3))]),
    "running_best_ignoring_gaps": (
        running_best_ignoring_gaps,
        (),
        EXACT,
        [(np.array([np.nan, np.nan, 1.0, np.nan, -0.0, 0.0, 3.0, np.nan, -np.inf, 7.0]),)],
    ),
    "weighted_stats": (weighted_stats, (), TIGHT, [(normal(20), RNG.random(20))]),
    "nan_aware": (nan_aware, (), TIGHT, [(np.where(RNG.random((4, 5)) < 0.3, np.nan, normal(4, 5)),)]),
    "weighted_covariances": (
        weighted_covariances,
        (),
        TIGHT,
        [(normal(2, 6), np.array([1, 2, 1, 3, 1, 1]), RNG.random(6))],
    ),
    "zscores": (zscores, (), TIGHT, [(normal(10, 3),), (np.ones((4, 3)),)]),
    "rotations_and_norms": (rotations_and_norms, (), TIGHT, [(normal(5, 3), normal(5, 3), 0.4)]),
    "shoelace_area": (
        shoelace_area,
        (),
        TIGHT,
        [(np.cos(np.linspace(0, 6, 7)), np.sin(np.linspace(0, 6, 7)))],
    ),
    "triangle_areas": (triangle_areas, (), TIGHT, [(normal(4, 2), normal(4, 2), normal(4, 2))]),
    "pairwise_angles": (pairwise_angles, (), TIGHT, [(normal(6, 3),)]),
    "rk4": (rk4, ("f", "n"), TIGHT, [(damped_oscillator, np.array([1.0, 0.0]), 0.1, 8)]),
    "quadrature": (quadrature, ("n",), TIGHT, [(0.0, 2.0, 10)]),
    "cube_root_by_bisection": (cube_root_by_bisection, (), EXACT, [(27.0,), (0.5,)]),
    "jacobi": (jacobi, ("iters",), TIGHT, [(np.eye(4) * 5 + RNG.random((4, 4)), normal(4), 10)]),
    "gauss_seidel": (gauss_seidel, ("iters",), TIGHT, [(np.eye(4) * 5 + RNG.random((4, 4)), normal(4), 5)]),
    "lu_doolittle": (lu_doolittle, (), TIGHT, [(np.eye(4) * 4 + normal(4, 4),)]),
    "power_iteration": (power_iteration, ("iters",), LOOSE, [(np.eye(3) + RNG.random((3, 3)), 15)]),
    "select_and_piecewise": (
        select_and_piecewise,
        (),
        EXACT,
        [(normal(3, 4) * 2,), (np.array([[np.nan, -np.inf, np.inf, -0.0]]),)],
    ),
    "counts_without_unique": (counts_without_unique, ("k",), EXACT, [(RNG.integers(0, 4, 15), 4)]),
    "vectorized_branches": (
        vectorized_branches,
        (),
        EXACT,
        [(np.array([-1.5, 0.0, 2.0, 3.5, -0.0, np.nan]),)],
    ),
    "squares_by_tolist": (squares_by_tolist, (), EXACT, [(np.array([1.5, -2.0, 3.25, 0.5]),)]),
    "clamp_in_place_and_phasors": (
        clamp_in_place_and_phasors,
        (),
        EXACT,
        [(np.array([1.5, -3.0, 0.25, 2.0, -0.5]), 1.0)],
    ),
    "constructions": (constructions, (), EXACT, [(np.arange(4.0), -np.arange(4.0))]),
    "pad_modes": (pad_modes, (), EXACT, [(np.array([1.0, 4.0, 2.0, 8.0]),), (np.array([3, 1, 2, 6]),)]),
    "pad_by_function": (pad_by_function, (), EXACT, [(np.arange(6).reshape((2, 3)),)]),
    "index_concatenations": (
        index_concatenations,
        (),
        EXACT,
        [(np.array([1.0, 2.0, 3.0]), np.array([4, 5, 6]))],
    ),
    "grids": (grids, ("n", "m"), EXACT, [(3, 4)]),
    "int16_wrap": (int16_wrap, (), EXACT, [(np.array([100, -200, 32767, 7], dtype=np.int16),)]),
    "float16_arithmetic": (float16_arithmetic, (), 2, [(np.array([0.1, 2.5, -3.0, 1000.0, 7.25]),)]),
    "complex64_arithmetic": (
        complex64_arithmetic,
        (),
        TIGHT,
        [((normal(5) + 1j * normal(5)).astype(np.complex64),)],
    ),
    "uint8_image_ops": (uint8_image_ops, (), TIGHT, [(RNG.integers(0, 256, (5, 6), dtype=np.uint8),)]),
    "doc_einsum": (doc_einsum, (), TIGHT, [(np.arange(60.0),)]),
    "doc_histogram": (doc_histogram, (), TIGHT, [(np.array([0.5, 1.5, 2.5, 2.9, 0.0, 3.0]),)]),
    "doc_diff_unwrap": (doc_diff_unwrap, (), TIGHT, [(np.array([1, 2, 4, 7, 0, 3.0]),)]),
    "doc_interp_periodic": (
        doc_interp_periodic,
        (),
        TIGHT,
        [(np.array([-180.0, -170, -185, 185, -10, -5, 0, 365]),)],
    ),
}
