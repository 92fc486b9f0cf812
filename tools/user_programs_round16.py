"""Round 16's new-user programs (newuser38), shared by their test
(tests/programs/test_new_user_programs_16.py) and their benchmark
(tools/bench_user_programs_round16.py): each name maps to (function, static argument names,
tolerance in eps, inputs), as tests/programs/like_numpy.py reads them. Domains the first
fifteen rounds did not draw: physics (an n-body step with softening, heat and wave equations by
slicing, Ising sweeps on a checkerboard with the random numbers passed in, an SPH density),
signal processing (np.convolve/np.correlate in every mode, moving averages by
sliding_window_view, windows, np.gradient with spacing, np.diff with prepend/append,
np.ediff1d), linear algebra in plain NumPy (Gram-Schmidt, conjugate gradient, Householder QR,
np.linalg's solve/det/eigh/norm/cholesky checked by their identities, np.kron,
einsum traces), machine learning (k-means steps, logistic regression by log1p/expm1, softplus,
one-hot by np.eye, batch norm, masked attention, top-k by argpartition), array utilities
(searchsorted sides, digitize, histogram2d, meshgrid's indexing, take/put_along_axis, moving
axes, atleast_2d, broadcast_to, clip with arrays, round with decimals, isclose, nan_to_num,
polyval/polyder/polyint), dtype corners (bool arithmetic, uint64 with int64, int8 wraparound,
float16, complex64 division, signed zeros, empty inputs) and statistics of selections
by a mask (x[np.isfinite(x)] fed to np.median, np.percentile, np.histogram, np.bincount)."""

from __future__ import annotations

import numpy as np

EXACT = 0.0  # bit for bit (tests/programs/like_numpy.EXACT)
TIGHT = 64  # eps of the result dtype: reductions summed in another order, contractions, libm ULPs
LOOSE = 1e4  # solvers: LAPACK's rounding and jitcore's differ, and so do their ill-conditioned bits
RNG = np.random.default_rng(20261204 + 16)


def normal(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------------------- physics
def nbody_step(pos, vel, mass, dt, eps):
    """One leapfrog step of gravitating bodies, forces softened by eps."""
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d**2).sum(-1) + eps**2
    inv_r3 = r2**-1.5
    np.fill_diagonal(inv_r3, 0.0)
    acc = (d * (inv_r3 * mass[None, :])[:, :, None]).sum(1)
    vel = vel + dt * acc
    pos = pos + dt * vel
    energy = 0.5 * (mass * (vel**2).sum(1)).sum()
    return pos, vel, energy


def heat_1d(u, alpha, steps):
    """Explicit heat equation with fixed ends, a copy per step."""
    for _ in range(steps):
        un = u.copy()
        u[1:-1] = un[1:-1] + alpha * (un[2:] - 2 * un[1:-1] + un[:-2])
    return u


def heat_2d(u, alpha, steps):
    """Five-point Laplacian on the interior, in place."""
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += alpha * lap
    return u, u.mean()


def wave_1d(u0, c, steps):
    """Leapfrog wave equation: three time levels rotated by tuple assignment."""
    prev = u0.copy()
    cur = u0.copy()
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + c**2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev, cur = cur, nxt
    return cur


def ising_sweep(spins, uniforms, beta):
    """A Metropolis sweep on the two colours of a periodic checkerboard, random numbers given."""
    n, m = spins.shape
    i, j = np.indices((n, m))
    for colour in (0, 1):
        mask = (i + j) % 2 == colour
        nb = np.roll(spins, 1, 0) + np.roll(spins, -1, 0) + np.roll(spins, 1, 1) + np.roll(spins, -1, 1)
        dE = 2 * spins * nb
        flip = mask & (uniforms[colour] < np.exp(-beta * dE))
        spins = np.where(flip, -spins, spins)
    return spins, spins.sum(), (spins * np.roll(spins, 1, 0)).mean()


def sph_density(pos, h, mass):
    """SPH density with the cubic spline kernel, pieces by np.where."""
    r = np.sqrt(((pos[:, None, :] - pos[None, :, :]) ** 2).sum(-1))
    q = r / h
    w = np.where(q < 1, 1 - 1.5 * q**2 + 0.75 * q**3, np.where(q < 2, 0.25 * (2 - q) ** 3, 0.0))
    return (mass * w).sum(1) / (np.pi * h**3)


# ---------------------------------------------------------------------------- signals
def convolve_modes(x, k):
    return (
        np.convolve(x, k),
        np.convolve(x, k, mode="same"),
        np.convolve(x, k, mode="valid"),
        np.correlate(x, k, mode="full"),
        np.correlate(x, k, "same"),
        np.correlate(x, k),
    )


def moving_averages(x, w):
    """Moving mean, max and median of windows, by sliding_window_view and by convolve."""
    v = np.lib.stride_tricks.sliding_window_view(x, w)
    return v.mean(axis=-1), v.max(axis=1), np.median(v, axis=1), np.convolve(x, np.ones(w) / w, "valid")


def windowed_spectrum(x):
    """Windows of NumPy's reference pages applied to a frame, and their coherent gains."""
    n = x.size
    ws = [np.hanning(n), np.hamming(n), np.blackman(n), np.kaiser(n, 8.6), np.bartlett(n)]
    return [x * w for w in ws], [w.sum() / n for w in ws]


def gradients_with_spacing(f, dx, x):
    """np.gradient with a scalar spacing, coordinates and edge_order=2, and of a 2-d field."""
    F = np.outer(f, f)
    return (
        np.gradient(f, dx),
        np.gradient(f, x),
        np.gradient(f, x, edge_order=2),
        np.gradient(F, dx, 2.0),
        np.gradient(F, axis=1),
    )


def differences(x):
    return (
        np.diff(x, prepend=0),
        np.diff(x, append=x[-1]),
        np.diff(x, n=2, prepend=[0, 0]),
        np.ediff1d(x),
        np.ediff1d(x, to_begin=-99, to_end=[7, 8]),
    )


def unwrap_and_phase(z):
    """Phase of a complex signal, unwrapped, and its instantaneous frequency."""
    ph = np.unwrap(np.angle(z))
    return ph, np.diff(ph) / (2 * np.pi), np.unwrap(np.angle(z, deg=True), period=360)


# ---------------------------------------------------------------------------- linear algebra
def gram_schmidt(A):
    """Modified Gram-Schmidt on the columns."""
    n = A.shape[1]
    Q = np.zeros_like(A)
    for k in range(n):
        v = A[:, k].copy()
        for j in range(k):
            v -= (Q[:, j] @ v) * Q[:, j]
        Q[:, k] = v / np.linalg.norm(v)
    return Q, Q.T @ Q


def conjugate_gradient(A, b, iters):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(iters):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, np.linalg.norm(A @ x - b) < 1e-8


def householder_qr(A):
    m, n = A.shape
    R = A.copy()
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]
        e = np.zeros_like(x)
        e[0] = np.copysign(np.linalg.norm(x), -x[0])
        u = x - e
        v = u / np.linalg.norm(u)
        R[k:, :] -= 2.0 * np.outer(v, v @ R[k:, :])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    return np.abs(np.diag(R)), Q @ R


def linalg_identities(A, b):
    """np.linalg's answers checked by their identities (the identities agree with NumPy's); the
    SVD-based ones (svd, lstsq, norm 2, polyfit) are earlier rounds' and cost seconds to compile."""
    S = A @ A.T + np.eye(A.shape[0])
    x = np.linalg.solve(A, b)
    L = np.linalg.cholesky(S)
    w, V = np.linalg.eigh(S)
    return (
        A @ x,
        L @ L.T,
        (V * w) @ V.T,
        np.linalg.det(A),
        np.linalg.norm(A, "fro"),
        np.linalg.norm(b, np.inf),
    )


def kron_and_traces(a, b):
    return (
        np.kron(a, b),
        np.kron(np.eye(2), a),
        np.einsum("ii", a),
        np.einsum("ij,ji->", a, b),
        np.einsum("ii->i", a),
        np.trace(a @ b),
        np.outer(a.ravel()[:3], b.ravel()[:2]),
    )


# ---------------------------------------------------------------------------- machine learning
def kmeans_step(X, C):
    d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(-1)
    labels = d.argmin(axis=1)
    onehot = np.eye(C.shape[0])[labels]
    counts = onehot.sum(0)
    newC = (onehot.T @ X) / np.maximum(counts, 1)[:, None]
    inertia = d[np.arange(X.shape[0]), labels].sum()
    return labels, newC, inertia


def logistic_regression(X, y, lr, iters):
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        z = X @ w
        p = 1 / (1 + np.exp(-z))
        w -= lr * X.T @ (p - y) / y.size
    z = X @ w
    loss = np.mean(np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0) - y * z)
    return w, loss, np.expm1(np.log1p(np.abs(z)))


def softplus_and_friends(x):
    softplus = np.logaddexp(0, x)
    return softplus, np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0), np.tanh(softplus) * x, np.expm1(x) / x


def cross_entropy_onehot(logits, labels, k):
    onehot = np.eye(k, dtype=np.float32)[labels]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return -(onehot * logp).sum(1).mean(), onehot, (logits.argmax(1) == labels).mean()


def batch_norm(x, gamma, beta):
    mu = x.mean(axis=0)
    var = x.var(axis=0)
    xhat = (x - mu) / np.sqrt(var + 1e-5)
    return gamma * xhat + beta, mu, var


def masked_attention(q, k, v):
    """Causal attention: the upper triangle masked by -inf before a stable softmax."""
    t, d = q.shape
    s = q @ k.T / np.sqrt(d)
    mask = np.triu(np.ones((t, t), dtype=bool), k=1)
    s = np.where(mask, -np.inf, s)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return p @ v, p


def top_k(scores, k):
    """Top-k by argpartition, then sorted: the k values are NumPy's whatever the tie order."""
    idx = np.argpartition(-scores, k, axis=1)[:, :k]
    vals = np.take_along_axis(scores, idx, axis=1)
    return np.sort(vals, axis=1)[:, ::-1], np.sort(np.partition(scores, -k)[:, -k:], axis=1)


# ---------------------------------------------------------------------------- array utilities
def search_and_bin(a, v):
    edges = np.array([-1.0, 0.0, 0.5, 2.0])
    return (
        np.searchsorted(a, v),
        np.searchsorted(a, v, side="right"),
        np.digitize(v, edges),
        np.digitize(v, edges, right=True),
        np.digitize(v, edges[::-1]),
    )


def histogram_2d(x, y):
    H, xe, ye = np.histogram2d(x, y, bins=(3, 4), range=[[-2, 2], [-2, 2]])
    Hd, _, _ = np.histogram2d(x, y, bins=3, density=True)
    return H, xe, ye, Hd


def meshgrid_indexing(x, y):
    X, Y = np.meshgrid(x, y)
    Xi, Yi = np.meshgrid(x, y, indexing="ij")
    Xs, Ys = np.meshgrid(x, y, sparse=True)
    return X * Y, Xi - Yi, (Xs + Ys).shape, Xs + Ys


def along_axis(a, b):
    idx = np.argsort(a, axis=1)
    s = np.take_along_axis(a, idx, axis=1)
    m = a.copy()
    np.put_along_axis(m, np.argmax(a, axis=1, keepdims=True), -1.0, axis=1)
    b2 = b.copy()
    np.put_along_axis(b2, np.argmin(b, axis=0)[None, :], 99.0, axis=0)
    return s, m, b2


def moving_axes(x):
    return (
        np.moveaxis(x, 0, -1),
        np.moveaxis(x, [0, 1], [-1, -2]),
        np.swapaxes(x, 0, 2),
        np.rollaxis(x, 2),
        np.rollaxis(x, 2, 1),
        np.atleast_2d(x[0, 0]),
        np.atleast_3d(x[0]).shape,
        np.expand_dims(x, (0, 2)).shape,
        np.squeeze(x[:, :1], axis=1),
    )


def broadcasting_utilities(x, lo, hi):
    b = np.broadcast_to(x, (3, x.size))
    return (
        b.sum(0),
        np.clip(x, lo, hi),
        np.clip(b, lo[:, None].T, None),
        np.round(x * 1000, 1),
        np.round(x * 1000, -2),
        np.around(x, 3),
    )


def closeness(a, b):
    return (
        np.isclose(a, b),
        np.isclose(a, b, atol=0.1),
        np.isclose(a, b, equal_nan=True),
        np.allclose(a[:2], b[:2]),
        np.nan_to_num(a),
        np.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0),
    )


def polynomials(x, c):
    return (
        np.polyval(c, x),
        np.polyval(np.array([1.0, -2.0, 0.5]), x),
        np.polyder(c),
        np.polyint(c, k=3),
        np.polymul(c, c),
    )


# ---------------------------------------------------------------------------- dtype corners
def bool_arithmetic(a, b):
    return a + b, a * b, a & b, a ^ b, ~a, a.sum(), np.sum(a, dtype=np.int8), a.astype(int) - b, a > b


def uint64_with_int64(u, i):
    return (
        u + np.uint64(1),
        u // np.uint64(3),
        u % np.uint64(7),
        u & np.uint64(0xFF),
        i * 2,
        u.astype(np.int64) + i,
    )


def int8_wraparound(a):
    return a + a, a * np.int8(3), -a, np.abs(a), a.cumsum(dtype=np.int8), (a << 1), a.astype(np.uint8)


def float16_corners(h):
    return h + h, h * np.float16(0.1), h / 3, np.sqrt(np.abs(h)), h.sum(), h.astype(np.float32), h > 1


def complex64_division(a, b):
    return a / b, a * np.conj(b), np.abs(a / b), 1 / a, a / np.float32(2)


# ---------------------------------------------------------------------------- NumPy's reference pages
def doc_interp_period(x):
    xp = np.array([190, -190, 350, -350])
    fp = np.array([5, 10, 3, 4])
    return np.interp(x, xp, fp, period=360), np.interp(x, [0, 1, 2], [3, 2, 0], left=-1, right=9)


def doc_convolve_correlate():
    a = np.array([1, 2, 3])
    b = np.array([0, 1, 0.5])
    return (
        np.convolve(a, b),
        np.convolve(a, b, "same"),
        np.convolve([1, 2, 3], [0, 1, 0.5], "valid"),
        np.correlate([1, 2, 3], [0, 1, 0.5]),
        np.correlate([1, 2, 3], [0, 1, 0.5], "full"),
        np.correlate([1 + 1j, 2, 3 - 1j], [0, 1, 0.5j], "full"),
    )


def doc_take_along_axis():
    a = np.array([[10, 30, 20], [60, 40, 50]])
    ai = np.argsort(a, axis=1)
    ai2 = np.expand_dims(np.argmax(a, axis=1), axis=1)
    ai3 = np.argpartition(a, 1, axis=1)[:, :1]
    return (
        np.take_along_axis(a, ai, axis=1),
        np.take_along_axis(a, ai2, axis=1),
        np.take_along_axis(a, ai3, 1),
    )


# ---------------------------------------------------------------------------- selections by a mask
def robust_statistics(x):
    """Statistics of the finite values only: x[np.isfinite(x)] fed to the order statistics and a
    histogram (compiled since round 16: their shapes do not depend on how many are selected)."""
    good = np.isfinite(x)
    return (
        np.median(x[good]),
        np.percentile(x[good], [5, 50, 95]),
        np.histogram(x[good], bins=4)[0],
        np.histogram(x[good], bins=[-3.0, 0.0, 1.0, 10.0]),
        np.quantile(x[x > 0], 0.25, method="lower"),
        np.nanmedian(x[x != 3.0]),
    )


def outliers_by_iqr(x):
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    inliers = (x >= q1 - 1.5 * iqr) & (x <= q3 + 1.5 * iqr)
    return np.where(inliers, x, np.nan), x[inliers].mean(), np.median(x[inliers]), np.count_nonzero(~inliers)


def counts_of_valid_labels(labels, w):
    """Label -1 is 'missing': counts and weighted counts of the others. (Weighted counts of a
    selection are float64 even where it selects nothing; NumPy's are then int64 zeros.)"""
    valid = labels >= 0
    return np.bincount(labels[valid], minlength=5), np.bincount(labels[valid], weights=w[valid], minlength=5)


def column_medians_of_rows(X):
    """Medians of the rows whose first column is positive, per column (axis=0 of a selection)."""
    rows = X[:, 0] > 0
    return np.median(X[rows], axis=0), np.percentile(X[rows], 50, axis=0, keepdims=True)


def integer_selection_quantiles(i):
    return (
        np.median(i[i > 2]),
        np.percentile(i[i % 2 == 0], 40, method="nearest"),
        np.quantile(i[i > 0], [0.2, 0.9]),
    )


# ---------------------------------------------------------------------------- more corners
def complex_sort(z):
    """Complex numbers sort by real part, then imaginary part, NaN parts last (since round 16)."""
    return np.sort(z), np.argsort(z, kind="stable"), np.sort_complex(z), np.sort(z.reshape(2, -1), axis=0)


def running_logicals(x):
    """Running extremes and the logical accumulations (np.logical_or.accumulate since round 16)."""
    return (
        np.maximum.accumulate(x),
        np.minimum.accumulate(x[::-1])[::-1],
        np.fmin.accumulate(x),
        np.logical_or.accumulate(x > 1),
        np.logical_and.accumulate(x < 4),
        np.logical_xor.accumulate(x > 0),
    )


def numpy2_api(a, b):
    return (
        np.vecdot(a, b),
        np.matrix_transpose(a),
        np.linalg.vector_norm(a, axis=1),
        np.concat([a, b]),
        np.permute_dims(a, (1, 0)),
        np.astype(a, np.float32),
        np.linalg.matrix_norm(a),
        np.bitwise_count(np.arange(9)),
        np.cumulative_sum(a, axis=0),
    )


def ufunc_methods(x, idx):
    acc = np.zeros(5)
    np.add.at(acc, idx, x[: idx.size])
    m = np.full(5, -np.inf)
    np.maximum.at(m, idx, x[: idx.size])
    return (
        acc,
        m,
        np.add.reduceat(x, [0, 3, 5]),
        np.multiply.outer(x[:3], x[:2]),
        np.maximum.reduceat(x, [0, 2, 2, 6]),
    )


def integer_division_corners(a, b):
    return (
        a // b,
        a % b,
        np.fmod(a, b),
        np.divmod(a, b),
        np.remainder(a.astype(float), b),
        np.floor_divide(-7, b),
        np.power(a, 3),
    )


def where_reductions(x):
    m = x > 0
    return (
        x.sum(where=m),
        np.mean(x, axis=0, where=m),
        np.max(x, where=m, initial=-10.0, axis=1),
        np.count_nonzero(m, axis=0),
        np.all(m, where=x < 1),
        np.prod(x, axis=1, where=m),
    )


def index_grids(A):
    r, c = np.triu_indices(A.shape[0], 1)
    B = A.copy()
    B[np.diag_indices_from(A)] = 0
    i, j = np.tril_indices_from(A, -1)
    return A[r, c], B, A[i, j], A[np.ix_([0, 2], [1, 3])], np.rot90(A, 3), np.roll(A, (1, -1), (0, 1))


def rounding(x):
    return (
        np.round(x),
        np.round(x, 1),
        np.round(x, -1),
        np.rint(x),
        np.fix(x),
        np.round(x.astype(np.float16), 1),
        np.round(x.astype(np.float32), 2),
    )


def integer_overflow(a, b):
    return a * b, a + b, a - b, np.negative(a), np.abs(a), a.sum(), a.prod(), np.cumsum(a), np.square(a)


def float_conversions(x):
    return x.astype(np.int32), x.astype(np.uint8), x.astype(np.float16), x.astype(np.bool_), x.astype(np.int8)


def signed_zero(x):
    return (
        np.copysign(1.0, x),
        np.signbit(x),
        np.sign(x),
        1 / x,
        np.maximum(x, -x),
        np.fmax(x, -0.0),
        np.sqrt(x),
        np.arctan2(x, -1.0),
    )


def empty_inputs(e, e2):
    return (
        e.sum(),
        e.prod(),
        np.sort(e),
        np.argsort(e),
        e2.sum(axis=0),
        e2.sum(axis=1),
        np.concatenate([e, e]),
        e @ e,
        np.diff(e),
        np.cumsum(e2, axis=1),
    )


def float16_reductions(h):
    return (
        h.sum(),
        h.mean(),
        h.var(),
        h.cumsum(),
        h.max(),
        np.sum(h, dtype=np.float32),
        h.dot(h),
        np.median(h),
    )


PROGRAMS = {
    "nbody_step": (
        nbody_step,
        (),
        TIGHT,
        [(normal(6, 3), normal(6, 3) * 0.1, RNG.random(6) + 0.5, 0.01, 0.05)],
    ),
    "heat_1d": (heat_1d, ("steps",), TIGHT, [(np.sin(np.linspace(0, np.pi, 12)), 0.25, 6)]),
    "heat_2d": (heat_2d, ("steps",), TIGHT, [(RNG.random((6, 7)), 0.2, 4)]),
    "wave_1d": (wave_1d, ("steps",), TIGHT, [(np.exp(-((np.linspace(-1, 1, 15)) ** 2) * 20), 0.5, 5)]),
    "ising_sweep": (
        ising_sweep,
        (),
        EXACT,
        [(np.where(RNG.random((6, 6)) < 0.5, -1, 1), RNG.random((2, 6, 6)), 0.4)],
    ),
    "sph_density": (sph_density, (), TIGHT, [(RNG.random((8, 3)), 0.4, 0.1)]),
    "convolve_modes": (
        convolve_modes,
        (),
        TIGHT,
        [(normal(9), normal(4)), (normal(3), normal(5)), (np.arange(6), np.array([1, -1, 2]))],
    ),
    "moving_averages": (moving_averages, ("w",), TIGHT, [(normal(12), 4)]),
    "windowed_spectrum": (windowed_spectrum, (), TIGHT, [(normal(16),), (normal(1),)]),
    "gradients_with_spacing": (
        gradients_with_spacing,
        (),
        TIGHT,
        [(np.sin(np.linspace(0, 3, 7)), 0.5, np.cumsum(RNG.random(7) + 0.1))],
    ),
    "differences": (differences, (), EXACT, [(np.array([1, 4, 9, 16, 25]),), (np.array([0.5, -1.0, 3.0]),)]),
    "unwrap_and_phase": (
        unwrap_and_phase,
        (),
        TIGHT,
        [(np.exp(1j * np.linspace(0, 12, 20)) * (1 + RNG.random(20)),)],
    ),
    "gram_schmidt": (gram_schmidt, (), TIGHT, [(normal(5, 4),)]),
    "conjugate_gradient": (
        conjugate_gradient,
        ("iters",),
        LOOSE,
        [(np.eye(5) * 4 + np.ones((5, 5)), normal(5), 4)],
    ),
    "householder_qr": (householder_qr, (), LOOSE, [(normal(5, 3),)]),
    "linalg_identities": (linalg_identities, (), LOOSE, [(np.eye(4) * 3 + normal(4, 4), normal(4))]),
    "kron_and_traces": (kron_and_traces, (), TIGHT, [(normal(3, 3), normal(3, 3))]),
    "kmeans_step": (kmeans_step, (), TIGHT, [(normal(20, 2), normal(3, 2))]),
    "logistic_regression": (
        logistic_regression,
        ("iters",),
        TIGHT,
        [(normal(30, 3), (RNG.random(30) < 0.5).astype(float), 0.1, 10)],
    ),
    "softplus_and_friends": (
        softplus_and_friends,
        (),
        TIGHT,
        [(np.array([-800.0, -30.0, -1.0, -1e-9, 0.0, 1e-9, 2.0, 40.0, 800.0, np.inf, -np.inf, np.nan]),)],
    ),
    "cross_entropy_onehot": (
        cross_entropy_onehot,
        ("k",),
        TIGHT,
        [(normal(6, 4).astype(np.float32), RNG.integers(0, 4, 6), 4)],
    ),
    "batch_norm": (batch_norm, (), TIGHT, [(normal(16, 3), RNG.random(3), normal(3))]),
    "masked_attention": (masked_attention, (), TIGHT, [(normal(5, 4), normal(5, 4), normal(5, 3))]),
    "top_k": (top_k, ("k",), EXACT, [(normal(4, 9), 3)]),
    "search_and_bin": (
        search_and_bin,
        (),
        EXACT,
        [
            (
                np.array([-1.0, 0.0, 0.0, 0.5, 2.0, 2.0, 3.0]),
                np.array([-2.0, -1.0, 0.0, 0.25, 0.5, 2.0, 5.0, np.nan]),
            )
        ],
    ),
    "histogram_2d": (histogram_2d, (), TIGHT, [(normal(30), normal(30))]),
    "meshgrid_indexing": (meshgrid_indexing, (), EXACT, [(np.arange(3.0), np.arange(4.0) * 2)]),
    "along_axis": (along_axis, (), EXACT, [(normal(3, 5), normal(4, 3))]),
    "moving_axes": (moving_axes, (), EXACT, [(np.arange(24.0).reshape(2, 3, 4),)]),
    "broadcasting_utilities": (
        broadcasting_utilities,
        (),
        EXACT,
        [
            (
                np.array([0.12345, -1.5551, 2.5, 0.0049, -0.35]),
                np.full(5, -1.0),
                np.array([0.1, 0.2, 2.0, 1.0, 0.0]),
            )
        ],
    ),
    "closeness": (
        closeness,
        (),
        EXACT,
        [
            (
                np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 2.0]),
                np.array([1.0 + 1e-9, np.nan, np.inf, np.inf, 0.0, 2.05]),
            )
        ],
    ),
    "polynomials": (polynomials, (), TIGHT, [(np.linspace(-1, 2, 9), normal(3))]),
    "bool_arithmetic": (
        bool_arithmetic,
        (),
        EXACT,
        [(np.array([True, False, True, True]), np.array([True, True, False, False]))],
    ),
    "uint64_with_int64": (
        uint64_with_int64,
        (),
        EXACT,
        [(np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64), np.array([-5, 0, 7, 2**62], dtype=np.int64))],
    ),
    "int8_wraparound": (
        int8_wraparound,
        (),
        EXACT,
        [(np.array([127, -128, 100, -1, 0, 64], dtype=np.int8),)],
    ),
    "float16_corners": (
        float16_corners,
        (),
        2,
        [(np.array([0.1, 65504.0, -2.5, 1e-5, np.inf, np.nan, 3.0], dtype=np.float16),)],
    ),
    "complex64_division": (
        complex64_division,
        (),
        TIGHT,
        [
            (
                (normal(6) + 1j * normal(6)).astype(np.complex64),
                (normal(6) + 1j * normal(6)).astype(np.complex64),
            )
        ],
    ),
    "doc_interp_period": (
        doc_interp_period,
        (),
        TIGHT,
        [(np.array([-180.0, -170, -185, 185, -10, -5, 0, 365]),)],
    ),
    "doc_convolve_correlate": (doc_convolve_correlate, (), TIGHT, [()]),
    "doc_take_along_axis": (doc_take_along_axis, (), EXACT, [()]),
    "robust_statistics": (
        robust_statistics,
        (),
        TIGHT,
        [
            (np.array([1.0, np.nan, 3.0, np.inf, -2.0, 0.5, 8.0, -np.inf, 2.0]),),
            (np.array([4.0, np.nan, 3.0, -1.0, 2.0, np.nan]),),
        ],
    ),
    "outliers_by_iqr": (outliers_by_iqr, (), TIGHT, [(np.r_[normal(20), 15.0, -12.0],)]),
    "counts_of_valid_labels": (
        counts_of_valid_labels,
        (),
        EXACT,
        [(np.array([0, 4, -1, 2, 2, -1, 0, 1]), np.arange(8.0)), (np.array([-1, 3]), np.ones(2))],
    ),
    "column_medians_of_rows": (column_medians_of_rows, (), TIGHT, [(normal(7, 3),)]),
    "integer_selection_quantiles": (
        integer_selection_quantiles,
        (),
        TIGHT,
        [(np.array([5, 1, 2, 8, 4, 3, 6]),), (np.array([5, 1, 2, 8, 4, 3, 6, 100, -7], dtype=np.int8),)],
    ),
    "complex_sort": (
        complex_sort,
        (),
        EXACT,
        [
            (
                np.array(
                    [1 + 2j, 1 - 1j, -1 + 0j, 3j, 1 + 2j, complex(np.nan, 1), complex(1, np.nan), -0.0 + 3j]
                ),
            ),
            ((normal(6) + 1j * normal(6)).astype(np.complex64),),
        ],
    ),
    "running_logicals": (
        running_logicals,
        (),
        EXACT,
        [(np.array([1.0, 3.0, np.nan, 2.0, 5.0, -1.0, 0.0, 4.0]),)],
    ),
    "numpy2_api": (numpy2_api, (), TIGHT, [(normal(3, 4), normal(3, 4))]),
    "ufunc_methods": (ufunc_methods, (), TIGHT, [(normal(8), np.array([0, 1, 1, 4, 0, 4]))]),
    "integer_division_corners": (
        integer_division_corners,
        (),
        EXACT,
        [(np.array([7, -7, 7, -7, 0, 5]), np.array([2, 2, -2, -2, 3, -1]))],
    ),
    "where_reductions": (where_reductions, (), TIGHT, [(normal(4, 5),)]),
    "index_grids": (index_grids, (), EXACT, [(np.arange(16.0).reshape(4, 4),)]),
    "rounding": (
        rounding,
        (),
        EXACT,
        [
            (
                np.array(
                    [
                        0.5,
                        1.5,
                        2.5,
                        -0.5,
                        -1.5,
                        0.25,
                        0.35,
                        2.675,
                        1e300,
                        -0.0,
                        np.nan,
                        np.inf,
                        123.456,
                        -1.05,
                    ]
                ),
            )
        ],
    ),
    "integer_overflow": (
        integer_overflow,
        (),
        EXACT,
        [
            (np.array([2**62, -(2**63), 3, -1], dtype=np.int64), np.array([4, 1, 2**62, 2**63 - 1])),
            (np.array([100, -128, 127, 50], dtype=np.int8), np.array([2, -1, 1, 3], dtype=np.int8)),
        ],
    ),
    "float_conversions": (
        float_conversions,
        (),
        EXACT,
        [(np.array([0.0, -0.0, 1.9, -1.9, 255.5, 127.9, 1e4, 70000.0]),)],
    ),
    "signed_zero": (signed_zero, (), EXACT, [(np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan]),)]),
    "empty_inputs": (
        empty_inputs,
        (),
        EXACT,
        [(np.zeros(0), np.zeros((0, 3))), (np.zeros(0, dtype=np.int32), np.zeros((2, 0)))],
    ),
    "float16_reductions": (
        float16_reductions,
        (),
        16,
        [(np.array([1.0, 2.5, 1000.0, -3.0, 0.1, 60000.0], dtype=np.float16),)],
    ),
}
