"""A new user's NumPy programs, ninth round (newuser31): areas the first eight rounds did not
cover. Signal processing (a biquad in a Python loop over samples, a one-pole smoother by
``jc.scan``, the Goertzel recursion, windowed frame energies, complex ``correlate``/``convolve``,
a filter's frequency response from complex ``polyval``, Savitzky-Golay smoothing from ``pinv``),
finance (a binomial American put by backward induction over shrinking arrays, EWMA volatility by
``jc.fori_loop``, historical VaR and CVaR with ``where=``, bond duration and convexity, a
minimum-variance portfolio, rolling z-scores by ``cumsum``), statistics (``histogram`` with
``density`` and ``weights``, the mode by ``bincount``, ``digitize`` on falling edges, ``cov``
with ``fweights``/``aweights``, Spearman's rank correlation, a Gaussian KDE, the two-sample
Kolmogorov-Smirnov statistic, ``average(returned=True)``, regression statistics), geometry
(point in polygon by ray casting, Rodrigues rotations, quaternion products, mesh normals by
``np.add.at``, haversine distances, closest points on segments, barycentric coordinates),
ODE steppers (adaptive Heun in a ``while`` on traced time, a projectile with drag by
``jc.while_loop``, Lotka-Volterra by ``jc.fori_loop``), dynamic programming (Levenshtein and LCS
rows by ``minimum``/``maximum.accumulate``, Kadane's maximum subarray, Viterbi decoding with a
traced backtrack, 0/1 knapsack, coin change), text statistics on integer codes (letter counts,
words, bigrams, a Vigenere cipher, polynomial rolling hashes in ``uint64``), ``np.where`` and
``np.select`` broadcasting in 3-D, ``np.indices``/``np.ogrid``/``np.meshgrid``, ``einsum`` with
``optimize``, lookups by ``searchsorted``, masked reductions with ``where=``, integer-dtype mixes
and NEP 50 scalars, ``float16`` and complex AC circuit analysis. What the round compiled:
quantiles at a traced ``q``, ``bincount`` of a constant ``x`` with traced weights, ``einsum``'s
0-d array where NumPy's optimized path ends in a product, complex ``solve``/``inv``; and the
binomial tree's backward induction, which compiled in time doubling with each step (fusion
cloned a producer read through two shifted operands). Each runs under ``jc.jit`` against
NumPy, compared as the earlier rounds' programs are (tests/programs/like_numpy.py); what
jitcore refuses on purpose (``einsum_path``, ``unique_values``, ``bincount`` of
traced values without ``minlength``) is checked to be its own error.
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
    check_refusal,
)

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
f32 = np.float32
f16 = np.float16
RNG = np.random.default_rng(20261203 + 9)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------- signal processing
def biquad_filter(x, b, a):
    """A biquad in direct form II transposed, one sample at a time."""
    y = np.zeros_like(x)
    z1 = z2 = 0.0
    for i in range(x.shape[0]):
        xi = x[i]
        yi = b[0] * xi + z1
        z1 = b[1] * xi - a[1] * yi + z2
        z2 = b[2] * xi - a[2] * yi
        y[i] = yi
    return y


def one_pole_smoother(x, alpha):
    def step(carry, xi):
        out = alpha * xi + (1 - alpha) * carry
        return out, out

    last, ys = jc.scan(step, x[0], x)
    return last, ys


def goertzel_power(x, k):
    """The power of DFT bin k by Goertzel's recursion."""
    n = x.shape[0]
    w = 2 * np.pi * k / n
    coeff = 2 * np.cos(w)
    s1 = s2 = 0.0
    for i in range(n):
        s = x[i] + coeff * s1 - s2
        s2 = s1
        s1 = s
    return s1**2 + s2**2 - coeff * s1 * s2


def frame_energy_db(x):
    """Frames of 8 with a hop of 4, Hann-windowed, energy in dB."""
    frames = np.lib.stride_tricks.sliding_window_view(x, 8)[::4]
    windowed = frames * np.hanning(8)
    energy = np.sum(windowed**2, axis=1)
    return 10 * np.log10(energy + 1e-12), np.argmax(energy)


def complex_matched_filter(signal, template):
    return (np.correlate(signal, template, "full"), np.correlate(signal, template, "same"),
            np.abs(np.correlate(signal, template, "valid")), np.convolve(signal, template.conj()[::-1]))


def frequency_response(b, a, n):
    """|H| in dB and the unwrapped phase of b(z)/a(z) on n points of the upper unit circle."""
    w = np.linspace(0, np.pi, n)
    z = np.exp(-1j * w)
    h = np.polyval(b[::-1], z) / np.polyval(a[::-1], z)
    return 20 * np.log10(np.abs(h)), np.unwrap(np.angle(h))


def savgol_smooth(x):
    """Savitzky-Golay, window 5, quadratic: the first row of the fit's pseudo-inverse."""
    A = np.vander(np.arange(-2.0, 3.0), 3, increasing=True)
    coeffs = np.linalg.pinv(A)[0]
    return np.convolve(x, coeffs[::-1], mode="valid")


# ---------------------------------------------------------------------------- finance
def american_put(S0, K, r, sigma, T, steps):
    """A Cox-Ross-Rubinstein tree, backward induction with early exercise."""
    dt = T / steps
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    j = np.arange(steps + 1)
    v = np.maximum(K - S0 * u**j * d ** (steps - j), 0.0)
    for n in range(steps - 1, -1, -1):
        j = np.arange(n + 1)
        v = np.maximum(disc * (p * v[1:] + (1 - p) * v[:-1]), K - S0 * u**j * d ** (n - j))
    return v[0]


def ewma_volatility(returns, lam):
    """RiskMetrics' exponentially weighted variance, annualised."""
    def body(i, state):
        var, out = state
        var = lam * var + (1 - lam) * returns[i] ** 2
        out[i] = np.sqrt(252 * var)
        return var, out

    _, vol = jc.fori_loop(0, returns.shape[0], body, (returns[0] ** 2, np.zeros_like(returns)))
    return vol


def value_at_risk(returns, alpha):
    """Historical VaR and CVaR at a level passed in (a traced q), and a percentile band."""
    q = np.quantile(returns, alpha, method="lower")
    cvar = -np.mean(returns, where=returns <= q)
    band = np.percentile(returns, [100 * alpha, 100 * (1 - alpha)])
    return -q, cvar, np.count_nonzero(returns < q), band


def bond_metrics(coupon, ytm, face, years):
    t = np.arange(1, years + 1)
    cash = np.full(years, coupon * face)
    cash[-1] += face
    df = (1 + ytm) ** -t.astype(float)
    pv = cash * df
    price = pv.sum()
    duration = (t * pv).sum() / price
    convexity = (t * (t + 1) * pv).sum() / (price * (1 + ytm) ** 2)
    return price, duration, duration / (1 + ytm), convexity


def min_variance_portfolio(R):
    cov = np.cov(R, rowvar=False)
    ones = np.ones(cov.shape[0])
    w = np.linalg.solve(cov, ones)
    w = w / w.sum()
    return w, np.sqrt(w @ cov @ w), R.mean(axis=0) @ w


def rolling_zscore(x, window):
    c = np.cumsum(np.insert(x, 0, 0.0))
    c2 = np.cumsum(np.insert(x * x, 0, 0.0))
    mean = (c[window:] - c[:-window]) / window
    var = (c2[window:] - c2[:-window]) / window - mean**2
    return (x[window - 1:] - mean) / np.sqrt(np.maximum(var, 1e-12))


# ---------------------------------------------------------------------------- statistics
def histogram_density(x, w):
    return (np.histogram(x, bins=[-3.0, -1.0, 0.0, 0.5, 3.0], density=True),
            np.histogram(x, bins=6, range=(-2.0, 2.0), weights=w),
            np.histogram(x, bins=4, range=(-2.0, 2.0), weights=w, density=True)[0])


def mode_and_grades(codes, scores):
    counts = np.bincount(codes, minlength=10)  # traced codes: the length must be static
    falling = np.array([90.0, 80.0, 70.0, 60.0])
    return (np.argmax(counts), counts.max(), np.digitize(scores, falling),
            np.digitize(scores, falling[::-1], right=True))


def weighted_covariances(X, fw, aw):
    return (np.cov(X, fweights=fw, aweights=aw), np.cov(X, ddof=0, aweights=aw),
            np.corrcoef(X[0], X[1:]), np.cov(X.T, rowvar=False, bias=True))


def spearman(x, y):
    rx = np.argsort(np.argsort(x)).astype(float)
    ry = np.argsort(np.argsort(y)).astype(float)
    return np.corrcoef(rx, ry)[0, 1], np.corrcoef(x, y)[0, 1]


def gaussian_kde(samples, grid, h):
    u = (grid[:, None] - samples[None, :]) / h
    dens = np.exp(-0.5 * u**2).sum(axis=1) / (samples.size * h * np.sqrt(2 * np.pi))
    return dens, np.trapezoid(dens, grid)


def ks_two_sample(a, b):
    a, b = np.sort(a), np.sort(b)
    both = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, both, side="right") / a.size
    cdf_b = np.searchsorted(b, both, side="right") / b.size
    return np.max(np.abs(cdf_a - cdf_b))


def weighted_averages(X, w0, w1):
    avg, total = np.average(X, axis=0, weights=w0, returned=True)
    return avg, total, np.average(X, axis=1, weights=w1), np.average(X, weights=np.abs(X) + 1)


def regression_stats(x, y):
    X = np.column_stack([np.ones_like(x), x])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    dof = x.size - 2
    s2 = resid @ resid / dof
    se = np.sqrt(np.diag(s2 * np.linalg.inv(X.T @ X)))
    r2 = 1 - resid @ resid / np.sum((y - y.mean()) ** 2)
    return beta, se, r2


# ---------------------------------------------------------------------------- geometry
def point_in_polygon(px, py, vx, vy):
    """Even-odd ray casting, all points against all edges at once."""
    xj, yj = np.roll(vx, 1), np.roll(vy, 1)
    py_ = py[:, None]
    crosses = (vy > py_) != (yj > py_)
    x_at = (xj - vx) * (py_ - vy) / (yj - vy) + vx
    hits = crosses & (px[:, None] < x_at)
    return np.logical_xor.reduce(hits, axis=1), np.sum(hits, axis=1) % 2 == 1


def rodrigues(axis, theta, points):
    k = axis / np.linalg.norm(axis)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * (K @ K)
    return R, points @ R.T, np.linalg.det(R)


def quaternion_rotate(q, v):
    """v rotated by unit quaternions q (w, x, y, z): q v q*, one Hamilton product at a time."""
    def mul(a, b):
        aw, ax, ay, az = np.moveaxis(a, -1, 0)
        bw, bx, by, bz = np.moveaxis(b, -1, 0)
        return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                         aw * bx + ax * bw + ay * bz - az * by,
                         aw * by - ax * bz + ay * bw + az * bx,
                         aw * bz + ax * by - ay * bx + az * bw], axis=-1)

    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    vq = np.concatenate([np.zeros(v.shape[:-1] + (1,)), v], axis=-1)
    conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    return mul(mul(q, vq), conj)[..., 1:]


def mesh_normals(verts, faces):
    v0, v1, v2 = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    n = np.cross(v1 - v0, v2 - v0)
    area = 0.5 * np.linalg.norm(n, axis=1)
    vn = np.zeros_like(verts)
    for k in range(3):
        np.add.at(vn, faces[:, k], n)
    return area, vn / np.linalg.norm(vn, axis=1, keepdims=True)


def haversine_km(lat1, lon1, lat2, lon2):
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * np.arcsin(np.sqrt(a))


def closest_on_segments(p, a, b):
    ab = b - a
    t = np.clip(np.einsum("...i,...i->...", p - a, ab) / np.einsum("...i,...i->...", ab, ab), 0, 1)
    closest = a + t[..., None] * ab
    return closest, np.linalg.norm(p - closest, axis=-1)


def barycentric(p, tri):
    """Barycentric coordinates of points in triangles, by batched 2 x 2 solves."""
    T = np.stack([tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]], axis=-1)
    lam = np.linalg.solve(T, (p - tri[:, 0])[..., None])[..., 0]
    coords = np.concatenate([1 - lam.sum(axis=1, keepdims=True), lam], axis=1)
    return coords, np.all(coords >= 0, axis=1)


# ---------------------------------------------------------------------------- ODE steppers
def adaptive_heun(y0, t_end, tol):
    """y' = -2 t y, Heun's method with step doubling in a while loop on traced time."""
    def f(t, y):
        return -2 * t * y

    def heun(t, y, h):
        k1 = f(t, y)
        k2 = f(t + h, y + h * k1)
        return y + 0.5 * h * (k1 + k2)

    t, y, h, steps = 0.0, y0, 0.1, 0
    while t < t_end:
        h = min(h, t_end - t)
        big = heun(t, y, h)
        small = heun(t + h / 2, heun(t, y, h / 2), h / 2)
        err = np.max(np.abs(big - small))
        if err < tol:
            t = t + h
            y = small
            steps += 1
        h = h * 0.9 * np.sqrt(tol / max(err, 1e-300))
    return y, steps


def projectile_with_drag(v0, angle, k):
    def cond(s):
        return s[1] >= 0.0

    def body(s):
        x, y, vx, vy, t = s
        speed = np.sqrt(vx * vx + vy * vy)
        ax, ay = -k * speed * vx, -9.81 - k * speed * vy
        return x + 0.01 * vx, y + 0.01 * vy, vx + 0.01 * ax, vy + 0.01 * ay, t + 0.01

    rad = np.radians(angle)
    x, y, vx, vy, t = jc.while_loop(cond, body, (0.0, 0.0, v0 * np.cos(rad), v0 * np.sin(rad), 0.0))
    return x, t


def lotka_volterra(z0, params):
    a, b, c, d = params[0], params[1], params[2], params[3]

    def f(z):
        return np.array([a * z[0] - b * z[0] * z[1], -c * z[1] + d * z[0] * z[1]])

    def body(i, state):
        z, path = state
        z = z + 0.05 * f(z + 0.025 * f(z))
        path[i] = z
        return z, path

    return jc.fori_loop(0, 40, body, (z0, np.zeros((40, 2))))


# ---------------------------------------------------------------------------- dynamic programming
def levenshtein(a, b):
    """Edit distance row by row: the insertion chain is a running minimum of row - j."""
    j = np.arange(b.size + 1)
    row = j.copy()
    for i in range(a.size):
        sub = row[:-1] + (a[i] != b)
        t = np.concatenate([[i + 1], np.minimum(row[1:] + 1, sub)])
        row = np.minimum.accumulate(t - j) + j
    return row[-1]


def lcs_length(a, b):
    row = np.zeros(b.size + 1, np.int64)
    for i in range(a.size):
        match = a[i] == b
        best = np.maximum(row[1:], np.where(match, row[:-1] + 1, 0))
        row = np.concatenate([[0], np.maximum.accumulate(best)])
    return row[-1]


def max_subarray(x):
    """Kadane's answer by prefix sums, for a series and for each row of a table."""
    prefix = np.cumsum(np.concatenate([[0.0], x]))
    best = np.max(prefix[1:] - np.minimum.accumulate(prefix[:-1]))
    end = np.argmax(prefix[1:] - np.minimum.accumulate(prefix[:-1]))
    return best, end


def viterbi(obs, log_pi, log_A, log_B):
    T = obs.shape[0]
    score = log_pi + log_B[:, obs[0]]
    back = np.zeros((T, log_pi.size), np.int64)
    for t in range(1, T):
        cand = score[:, None] + log_A
        back[t] = np.argmax(cand, axis=0)
        score = np.max(cand, axis=0) + log_B[:, obs[t]]
    path = np.zeros(T, np.int64)
    path[-1] = np.argmax(score)
    for t in range(T - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, np.max(score)


def knapsack(values, weights, capacity):
    best = np.zeros(capacity + 1)
    for v, w in zip(values, weights):
        best[w:] = np.maximum(best[w:], best[:-w] + v)
    return best[-1], best


def coin_change_ways(coins, amount):
    ways = np.zeros(amount + 1, np.int64)
    ways[0] = 1
    for c in coins:
        for i in range(c, amount + 1):
            ways[i] += ways[i - c]
    return ways


# ---------------------------------------------------------------------------- text as integer codes
def text_stats(codes):
    lower = np.where((codes >= 65) & (codes <= 90), codes + 32, codes)
    is_letter = (lower >= 97) & (lower <= 122)
    letters = np.bincount(np.where(is_letter, lower - 97, 26), minlength=27)[:26]
    starts = is_letter & ~np.concatenate([[False], is_letter[:-1]])
    words = np.count_nonzero(starts)
    pair_codes = (lower[:-1] - 97).astype(np.int64) * 26 + lower[1:] - 97
    pairs = np.where(is_letter[:-1] & is_letter[1:], pair_codes, 676)
    bigrams = np.bincount(pairs, minlength=677)[:676]
    return letters, words, is_letter.sum() / words, np.argmax(bigrams), np.divmod(np.argmax(bigrams), 26)


def vigenere(codes, key):
    letters = codes - 97
    shifts = np.resize(key - 97, codes.shape)
    enc = (letters + shifts) % 26 + 97
    dec = (enc - 97 - shifts) % 26 + 97
    return enc.astype(np.uint8), np.array_equal(dec, codes)


def rolling_hashes(codes, k):
    """Polynomial hashes of every window of k codes, wrapping in uint64."""
    powers = np.uint64(31) ** np.arange(k - 1, -1, -1, dtype=np.uint64)
    windows = np.lib.stride_tricks.sliding_window_view(codes.astype(np.uint64), k)
    h = np.sum(windows * powers, axis=1)
    same = h[:, None] == h[None, :]
    return h, np.count_nonzero(np.triu(same, 1))


# ---------------------------------------------------------------------------- broadcasting, grids, einsum
def where_select_3d(a, b, c):
    cond = a[:, None, :] > b[None, :, None]
    picked = np.where(cond, a[:, None, :], c)
    banded = np.select([c < -1, c > 1], [np.zeros_like(c), cond * 1.0], default=c)
    return picked, banded, np.where(cond, 1, 0).sum(axis=(0, 2))


def radial_profile(img):
    y, x = np.indices(img.shape)
    r = np.hypot(x - (img.shape[1] - 1) / 2, y - (img.shape[0] - 1) / 2).astype(np.int64)
    sums = np.bincount(r.ravel(), weights=img.ravel())
    counts = np.bincount(r.ravel())
    return sums / counts


def grid_kernels(sigma, xs, ys):
    y, x = np.ogrid[-3:4, -4:5]
    g = np.exp(-(x**2 + y**2) / (2 * sigma**2))
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    xx, yy = np.meshgrid(xs, ys, sparse=True)
    return g / g.sum(), np.sin(X) * Y, xx * yy


def einsum_optimized(A, B, C, batch, v):
    return (np.einsum("ij,jk,kl->il", A, B, C, optimize=True),
            np.einsum("ij,jk,kl->il", A, B, C, optimize="greedy"),
            np.einsum("...ij,...j->...i", batch, v),
            np.einsum("i,ij,j->", v, A[:, :3] @ B[:3, :3], v, optimize="optimal"),
            np.einsum("bij,bkj->bik", batch, batch))


def lookup_table(keys, values, queries):
    idx = np.clip(np.searchsorted(keys, queries), 0, keys.size - 1)
    found = keys[idx] == queries
    return np.where(found, values[idx], -1), found


def masked_stats(X, mask):
    return (np.mean(X, axis=1, where=mask), np.sum(X, axis=0, where=mask),
            np.max(X, axis=1, where=mask, initial=-np.inf), np.std(X, axis=1, where=mask),
            np.count_nonzero(mask, axis=1), np.nanmean(np.where(mask, X, np.nan), axis=0))


# ---------------------------------------------------------------------------- dtypes
def integer_mixes(i8, u8, i32, u64, i64):
    return (i8 * u8, u64 + i64, i32 / i32[::-1], i32 // u8, np.int16(3) * i8, i8 + np.int64(1),
            u8**2, np.left_shift(u8, 3), i32 % -3, u8 + 255, i8 - 100)


def float_scalars(x32, x16):
    return (x32 * 2.0, x32 * np.float64(2.0), x16 + 1, x16 * np.float32(0.5), x32 + x16,
            x16.sum(), x16.mean(dtype=np.float32), np.tanh(x16), x32 > np.float16(0.5))


def ac_nodal_analysis(freqs, R, L, C):
    """A three-node RLC ladder's node voltages for a 1 V source, one complex solve per frequency."""
    w = 2 * np.pi * freqs
    zl = 1j * w * L
    yc = 1j * w * C
    Y = np.zeros((freqs.size, 3, 3), np.complex128)
    Y[:, 0, 0] = 1 / R + 1 / zl
    Y[:, 0, 1] = Y[:, 1, 0] = -1 / zl
    Y[:, 1, 1] = 2 / zl + yc
    Y[:, 1, 2] = Y[:, 2, 1] = -1 / zl
    Y[:, 2, 2] = 1 / zl + yc + 1 / R
    src = np.zeros((freqs.size, 3), np.complex128)
    src[:, 0] = 1 / R
    V = np.linalg.solve(Y, src[..., None])[..., 0]
    return np.abs(V), np.degrees(np.angle(V))


def float16_smoothing(x):
    c = np.cumsum(x, dtype=np.float32)
    avg = ((c[3:] - c[:-3]) / 3).astype(np.float16)
    return avg, np.clip(x, f16(-1), f16(1)), np.abs(np.diff(x)).max()


SIG = np.sin(np.linspace(0, 6 * np.pi, 24)) + 0.3 * normal(24)
TEXT = np.frombuffer(b"The quick brown fox jumps over the lazy dog; the dog sleeps.", np.uint8).copy()
POLY_X = np.array([0.0, 4.0, 4.0, 2.0, 0.0])
POLY_Y = np.array([0.0, 0.0, 3.0, 5.0, 3.0])
OBS = np.array([0, 1, 2, 2, 1, 0, 0, 2])
HMM_A = np.log(np.array([[0.7, 0.2, 0.1], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]))
HMM_B = np.log(np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]]))
TETRA = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
TETRA_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
TRIS = normal(4, 3, 2)
SORTED_KEYS = np.array([2, 3, 5, 7, 11, 13, 17])

PROGRAMS = {
    "biquad_filter": (biquad_filter, (), TIGHT,
                      [(SIG[:16], np.array([0.2, 0.4, 0.2]), np.array([1.0, -0.5, 0.3]))]),
    "one_pole_smoother": (one_pole_smoother, (), TIGHT, [(SIG, 0.25), (SIG.astype(f32), f32(0.5))]),
    "goertzel_power": (goertzel_power, (), TIGHT * 16, [(SIG[:16], 3)]),
    "frame_energy_db": (frame_energy_db, (), TIGHT, [(SIG,)]),
    "complex_matched_filter": (complex_matched_filter, (), TIGHT,
                               [(SIG[:10] + 1j * SIG[10:20], np.array([1 + 1j, 0.5, -1j]))]),
    "frequency_response": (frequency_response, ("n",), TIGHT * 4,
                           [(np.array([0.2, 0.4, 0.2]), np.array([1.0, -0.5, 0.3]), 9)]),
    "savgol_smooth": (savgol_smooth, (), TIGHT * 16, [(SIG,)]),
    "american_put": (american_put, ("steps",), TIGHT * 4, [(100.0, 105.0, 0.03, 0.25, 1.0, 12)]),
    "ewma_volatility": (ewma_volatility, (), TIGHT, [(0.01 * normal(12), 0.94)]),
    "value_at_risk": (value_at_risk, (), TIGHT, [(0.02 * normal(40), 0.05)]),
    "bond_metrics": (bond_metrics, ("years",), TIGHT, [(0.05, 0.045, 1000.0, 10)]),
    "min_variance_portfolio": (min_variance_portfolio, (), TIGHT * 64, [(0.01 * normal(30, 4),)]),
    "rolling_zscore": (rolling_zscore, ("window",), TIGHT * 64, [(SIG, 5)]),
    "histogram_density": (histogram_density, (), TIGHT, [(normal(30), RNG.random(30))]),
    "mode_and_grades": (mode_and_grades, (), EXACT,
                        [(np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]),
                          np.array([95.0, 80.0, 79.9, 60.0, 42.0, 70.0]))]),
    "weighted_covariances": (weighted_covariances, (), TIGHT * 4,
                             [(normal(3, 8), np.array([1, 2, 1, 3, 1, 1, 2, 1]), RNG.random(8) + 0.1)]),
    "spearman": (spearman, (), TIGHT, [(normal(12), normal(12))]),
    "gaussian_kde": (gaussian_kde, (), TIGHT, [(normal(20), np.linspace(-4, 4, 17), 0.5)]),
    "ks_two_sample": (ks_two_sample, (), EXACT, [(normal(15), normal(11) + 0.5)]),
    "weighted_averages": (weighted_averages, (), TIGHT, [(normal(4, 5), RNG.random(4), RNG.random(5))]),
    "regression_stats": (regression_stats, (), TIGHT * 64,
                         [(np.linspace(0, 5, 12), 2 + 0.7 * np.linspace(0, 5, 12) + 0.1 * normal(12))]),
    "point_in_polygon": (point_in_polygon, (), EXACT,
                         [(np.array([1.0, 3.5, 2.0, -1.0, 2.0, 0.5]),
                           np.array([1.0, 2.0, 4.9, 1.0, 4.5, 3.5]),
                           POLY_X, POLY_Y)]),
    "rodrigues": (rodrigues, (), TIGHT, [(np.array([1.0, 2.0, 2.0]), 0.7, normal(5, 3))]),
    "quaternion_rotate": (quaternion_rotate, (), TIGHT, [(normal(6, 4), normal(6, 3))]),
    "mesh_normals": (mesh_normals, (), TIGHT, [(TETRA, TETRA_FACES)]),
    "haversine_km": (haversine_km, (), TIGHT,
                     [(np.array([51.5, 40.7, -33.9]), np.array([-0.13, -74.0, 151.2]),
                       np.array([48.9, 35.7, 51.5]), np.array([2.35, 139.7, -0.13]))]),
    "closest_on_segments": (closest_on_segments, (), TIGHT, [(normal(5, 2), normal(5, 2), normal(5, 2))]),
    "barycentric": (barycentric, (), TIGHT * 16, [(TRIS.mean(axis=1) + 0.3 * normal(4, 2), TRIS)]),
    "adaptive_heun": (adaptive_heun, (), TIGHT, [(np.array([1.0, 2.0]), 1.5, 1e-6)]),
    "projectile_with_drag": (projectile_with_drag, (), TIGHT, [(20.0, 40.0, 0.01)]),
    "lotka_volterra": (lotka_volterra, (), TIGHT, [(np.array([10.0, 5.0]), np.array([1.1, 0.4, 0.4, 0.1]))]),
    "levenshtein": (levenshtein, (), EXACT,
                    [(np.array([1, 2, 3, 4, 5, 6]), np.array([2, 3, 9, 5, 6, 6, 1]))]),
    "lcs_length": (lcs_length, (), EXACT,
                   [(np.array([1, 3, 4, 1, 2, 1, 3]), np.array([3, 4, 1, 2, 1, 3, 3, 1]))]),
    "max_subarray": (max_subarray, (), EXACT,
                     [(np.array([-2.0, 1.0, -3.0, 4.0, -1.0, 2.0, 1.0, -5.0, 4.0]),)]),
    "viterbi": (viterbi, (), TIGHT, [(OBS, np.log(np.array([0.5, 0.3, 0.2])), HMM_A, HMM_B)]),
    "knapsack": (knapsack, ("weights", "capacity"), EXACT,
                 [(np.array([6.0, 10.0, 12.0, 7.0]), (1, 2, 3, 2), 5)]),
    "coin_change_ways": (coin_change_ways, ("coins", "amount"), EXACT, [((1, 2, 5), 12)]),
    "text_stats": (text_stats, (), TIGHT, [(TEXT,)]),
    "vigenere": (vigenere, (), EXACT, [(TEXT[TEXT >= 97], np.frombuffer(b"lemon", np.uint8).copy())]),
    "rolling_hashes": (rolling_hashes, ("k",), EXACT, [(TEXT[:20], 3)]),
    "where_select_3d": (where_select_3d, (), EXACT, [(normal(3, 4), normal(5), normal(3, 5, 4))]),
    "radial_profile": (radial_profile, (), TIGHT, [(normal(5, 6),)]),
    "grid_kernels": (grid_kernels, (), TIGHT, [(1.5, np.linspace(0, 1, 4), np.linspace(-1, 1, 3))]),
    "einsum_optimized": (einsum_optimized, (), TIGHT * 4,
                         [(normal(3, 4), normal(4, 5), normal(5, 2), normal(2, 3, 3), normal(3))]),
    "lookup_table": (lookup_table, (), EXACT,
                     [(SORTED_KEYS, np.arange(7) * 10, np.array([1, 2, 4, 7, 17, 20, 13]))]),
    "masked_stats": (masked_stats, (), TIGHT, [(normal(4, 5), RNG.random((4, 5)) < 0.6)]),
    "integer_mixes": (integer_mixes, (), EXACT,
                      [(np.array([100, -128, 127, 5], np.int8), np.array([200, 3, 255, 7], np.uint8),
                        np.array([7, -9, 2**31 - 1, 3], np.int32), np.array([2**63, 1, 5, 0], np.uint64),
                        np.array([-1, 2, -(2**62), 9]))]),
    "float_scalars": (float_scalars, (), TIGHT,
                      [(np.array([0.25, 1.5, -3.0], f32), np.array([0.5, -2.0, 6.5e4], f16))]),
    "ac_nodal_analysis": (ac_nodal_analysis, (), TIGHT * 16,
                          [(np.array([50.0, 1e3, 2e4]), 50.0, 1e-3, 1e-6)]),
    "float16_smoothing": (float16_smoothing, (), TIGHT,
                          [(np.sin(np.linspace(0, 4, 10)).astype(f16) * f16(1.5),)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


# The functions this round compiled, at their edges: (function, arguments, tolerance).
EDGES = {
    "quantile and percentile at a traced q: the ends, every method, a NaN lane, integers, keepdims": (
        lambda X, n, lo, q: [(np.quantile(X, lo, axis=1, method=m),
                              np.percentile(n, [100 * lo, 100.0], method=m),
                              np.quantile(X, q, axis=0, method=m, keepdims=True),
                              np.nanquantile(X, q, method=m))
                             for m in ("linear", "lower", "nearest", "midpoint", "inverted_cdf", "hazen")],
        (np.array([[1.0, np.nan, 3.0], [2.0, -np.inf, 0.5], [4.0, 4.0, -0.0]]),
         np.array([3, -7, 12, 0], np.int16), 0.0, np.array([0.0, 0.4, 1.0])),
        TIGHT,
    ),
    "bincount of a constant x with traced weights; einsum's 0-d results with and without optimize": (
        lambda w, v: (np.bincount(np.array([0, 3, 3, 1]), weights=w),
                      np.bincount(np.arange(0), weights=w[:0]),
                      np.einsum("i,i->", v, v, optimize=True), np.einsum("i,i->", v, v),
                      np.einsum("ii", np.outer(v, v), optimize=True),
                      np.einsum("i,j,ij->", v, v, np.outer(v, v), optimize="greedy")),
        (np.array([0.5, -1.0, 2.0, np.inf]), np.array([1.0, -2.0, np.nan])),
        TIGHT,
    ),
    "complex solve and inv: complex64, a real matrix with a complex right side, batches": (
        lambda A, b, R: (np.linalg.solve(A.astype(np.complex64), b.astype(np.complex64)),
                         np.linalg.solve(R, b), np.linalg.inv(np.stack([A, A.conj().T])),
                         np.linalg.solve(A, np.stack([b, 1j * b], axis=1))),
        (np.array([[2 + 1j, -1j, 0], [1, 3 - 2j, 1j], [0.5j, 1, 4]]), np.array([1j, 2.0, -1 + 1j]),
         normal(3, 3)),
        TIGHT * 16,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    check_edge(*EDGES[case], case)


def test_a_traced_q_outside_its_range_and_a_singular_complex_system_raise_numpys_errors_from_the_call():
    value_at_risk_jit = JITTED["value_at_risk"]
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        value_at_risk_jit(normal(5), 1.5)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        jc.jit(np.linalg.solve)(np.array([[1, 1j], [1j, -1]]), np.ones(2, complex))


# What jitcore refuses on purpose: (function, arguments, error, words the message must hold).
REFUSED = {
    "np.einsum_path": (lambda a, b: np.einsum_path("ij,jk->ik", a, b), (normal(2, 2), normal(2, 2)),
                       jc.UnsupportedError, "einsum_path"),
    "np.unique_values": (lambda x: np.unique_values(x), (np.array([3, 1, 3]),), jc.JitTypeError, "unique"),
    "np.bincount of traced values without minlength": (
        lambda x: np.bincount(x), (np.array([3, 1, 3]),), jc.ConcretizationError, "minlength",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])
