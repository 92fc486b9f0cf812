"""A new user's NumPy programs, eleventh round (newuser33): areas the first ten rounds did not
cover. Finance (Monte Carlo Asian and barrier options from passed-in normals, Bollinger bands by
``sliding_window_view``, a yield curve bootstrapped coupon by coupon, CIR rates by
full-truncation Euler, time under water), an orbit's elements with ``math``'s functions,
signals (an IIR filter in direct form II transposed, a Kaiser-window FIR design with ``beta``
computed from the attenuation, Karplus-Strong synthesis in a ring buffer, zero-stuffing
upsampling, a Hampel filter, a CUSUM alarm, an attack/release envelope follower), geometry
(Euler angles to matrices and back, quaternion slerp, segment intersection tests, the Kabsch
alignment, Andrew's monotone-chain convex hull with a stack in ``while`` loops, a Kasa circle
fit, polygon centroids and moments), graphs (PageRank by power iteration to a tolerance, BFS
levels by boolean matrix products, Floyd-Warshall with ``np.minimum`` over broadcasts and its
path matrix, connected components by label propagation, triangle counts and clustering,
Dijkstra on a dense matrix, spectral bisection, Kahn's topological order), data wrangling
(group extremes by ``np.maximum.at``/``np.minimum.at`` into local arrays, a pivot table by
``ravel_multi_index`` and weighted ``bincount``, condensed distances by ``triu_indices``, ranks
within groups by ``lexsort``, ``histogramdd``, run lengths, hourly data as days with
nan-functions, sessions from time gaps, rolling correlations), linear algebra (conjugate
gradients in a ``while`` on the residual, SOR sweeps, Householder QR by hand, Lanczos,
Rayleigh quotient iteration, the Denman-Beavers square root, ``matrix_rank``/``pinv``/``cond``/
``multi_dot`` of a rank-deficient design, an absorbing Markov chain), physics (Hodgkin-Huxley,
relativistic velocity addition by rapidities, an elementary cellular automaton, Crank-Nicolson
heat, Planck's law), Gauss-Legendre from ``np.polynomial``, and examples from NumPy's
documentation of functions no round had used (``apply_over_axes``, ``unstack``,
``sort_complex``, ``triu_indices_from``, ``i0``).
What the round compiled: ``math``'s functions of traced numbers (with Python's errors from the
call); unpacking assignments into subscripts (``a[i], b[i] = x, y``); ``out=`` of an array made
for the call; a loop calling a nested helper with locals of its own; ``np.i0`` and ``np.kaiser``
with a traced ``beta``; ``ravel_multi_index`` of traced coordinates; the ``*_indices_from``
helpers, ``apply_over_axes``, ``unstack`` and ``sort_complex``. Each runs under ``jc.jit``
against NumPy, compared as the earlier rounds' programs are (tests/programs/like_numpy.py);
what jitcore refuses on purpose (``np.polynomial``'s fits (``math.erf`` compiles since round 13), ``np.ma``,
arithmetic on ``np.emath``'s results and a complex ``partition``; ``sort_complex`` compiles since
round 16) is checked to be its own error.
"""

from __future__ import annotations

import math

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
RNG = np.random.default_rng(20261203 + 11)
swv = np.lib.stride_tricks.sliding_window_view


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------- finance
def orbit_elements(x, y, vx, vy):
    """One satellite's orbit from its state, with the math module's functions (km, s)."""
    mu = 398600.4418
    r = math.hypot(x, y)
    energy = (vx * vx + vy * vy) / 2 - mu / r
    a = -mu / (2 * energy)
    h = x * vy - y * vx
    e = math.sqrt(1 + 2 * energy * h * h / mu**2)
    period = 2 * math.pi * math.sqrt(a**3 / mu)
    nu = math.atan2(y, x) - math.atan2(-(vx * x + vy * y) * h / (mu * r), h * h / (mu * r) - 1)
    E = 2 * math.atan(math.sqrt((1 - e) / (1 + e)) * math.tan(nu / 2))
    M = E - e * math.sin(E)
    return a, e, period / 3600, math.degrees(nu), M, a * (1 + e) - 6378.137, math.log10(period)


def black_scholes_math(S, K, T, r, sigma):
    """One option with the math module's functions, as a user without SciPy writes it."""
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    return S * 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))


def asian_and_barrier(S0, r, sigma, T, Z, barrier):
    """Geometric Brownian paths from passed-in normals (paths x steps): an arithmetic Asian call
    and an up-and-out call, each with its Monte Carlo standard error."""
    n_paths, n_steps = Z.shape
    dt = T / n_steps
    log_paths = np.cumsum((r - 0.5 * sigma**2) * dt + sigma * np.sqrt(dt) * Z, axis=1)
    S = S0 * np.exp(log_paths)
    disc = np.exp(-r * T)
    asian = disc * np.maximum(S.mean(axis=1) - S0, 0.0)
    alive = np.maximum.accumulate(S, axis=1)[:, -1] < barrier
    knock = disc * np.where(alive, np.maximum(S[:, -1] - S0, 0.0), 0.0)
    se = lambda v: v.std(ddof=1) / np.sqrt(n_paths)  # noqa: E731
    return asian.mean(), se(asian), knock.mean(), se(knock), alive.mean()


def bollinger_bands(price, w, k):
    win = swv(price, w)
    mid = win.mean(axis=1)
    sd = win.std(axis=1)
    upper, lower = mid + k * sd, mid - k * sd
    p = price[w - 1:]
    signal = np.where(p > upper, -1, np.where(p < lower, 1, 0))
    crossings = np.count_nonzero(np.diff(np.sign(p - mid)) != 0)
    return upper, lower, signal, crossings, (p - lower) / (upper - lower)


def bootstrap_yield_curve(coupons, prices):
    """Annual-coupon bonds maturing in 1, 2, ... years: each discount factor from its bond's
    price less the coupons already discounted; then zero and one-year forward rates."""
    n = coupons.size
    df = np.zeros(n)
    for i in range(n):
        pv_coupons = coupons[i] * df[:i].sum()
        df[i] = (prices[i] - pv_coupons) / (1 + coupons[i])
    t = np.arange(1, n + 1)
    zero = df ** (-1.0 / t) - 1
    forward = df[:-1] / df[1:] - 1
    return df, zero, forward


def cir_full_truncation(r0, kappa, theta, sigma, Z, dt):
    r = np.full(Z.shape[0], r0)
    integral = np.zeros(Z.shape[0])
    for t in range(Z.shape[1]):
        rp = np.maximum(r, 0.0)
        integral += rp * dt
        r = r + kappa * (theta - rp) * dt + sigma * np.sqrt(rp * dt) * Z[:, t]
    return np.maximum(r, 0.0), np.exp(-integral).mean(), (r < 0).sum()


def time_under_water(equity):
    peak = np.maximum.accumulate(equity)
    under = equity < peak
    run = np.zeros(equity.size, dtype=np.int64)
    for i in range(1, equity.size):
        run[i] = np.where(under[i], run[i - 1] + 1, 0)
    dd = equity / peak - 1
    return run.max(), dd.min(), np.argmin(dd), run


# ---------------------------------------------------------------------------- signals
def iir_direct_form_2t(b, a, x):
    """scipy.signal.lfilter's recursion, written out: a[0] normalised, one state per order."""
    order = max(a.size, b.size) - 1
    b = np.pad(b, (0, order + 1 - b.size)) / a[0]
    a = np.pad(a, (0, order + 1 - a.size)) / a[0]
    z = np.zeros(order)
    y = np.zeros_like(x)
    for n in range(x.size):
        y[n] = b[0] * x[n] + z[0]
        for k in range(order - 1):
            z[k] = b[k + 1] * x[n] + z[k + 1] - a[k + 1] * y[n]
        z[order - 1] = b[order] * x[n] - a[order] * y[n]
    return y, z


def kaiser_fir(numtaps, atten_db, cutoff):
    """A windowed-sinc lowpass with Kaiser's beta from the wanted stopband attenuation."""
    beta = np.where(atten_db > 50, 0.1102 * (atten_db - 8.7),
                    0.5842 * (atten_db - 21) ** 0.4 + 0.07886 * (atten_db - 21))
    n = np.arange(numtaps) - (numtaps - 1) / 2
    h = 2 * cutoff * np.sinc(2 * cutoff * n) * np.kaiser(numtaps, beta)
    h = h / h.sum()
    w = np.linspace(0, np.pi, 9)
    H = np.abs(np.exp(-1j * np.outer(w, np.arange(numtaps))) @ h)
    return h, 20 * np.log10(np.maximum(H, 1e-12)), beta


def karplus_strong(noise, n_samples, decay):
    period = noise.size
    buf = noise.copy()
    out = np.zeros(n_samples)
    for i in range(n_samples):
        j = i % period
        out[i] = buf[j]
        buf[j] = decay * 0.5 * (buf[j] + buf[(j + 1) % period])
    return out, np.abs(out[-period:]).max()


def upsample_linear(x, L):
    y = np.zeros(x.size * L)
    y[::L] = x
    kernel = np.bartlett(2 * L + 1)[1:-1]
    full = np.convolve(y, kernel)
    return full[L - 1 : L - 1 + y.size], kernel


def hampel_filter(x, half, n_sigmas):
    p = np.pad(x, half, mode="edge")
    win = swv(p, 2 * half + 1)
    med = np.median(win, axis=1)
    mad = 1.4826 * np.median(np.abs(win - med[:, None]), axis=1)
    outlier = np.abs(x - med) > n_sigmas * mad
    return np.where(outlier, med, x), outlier


def cusum_alarm(x, target, k, h):
    s_hi = np.zeros(x.size)
    s_lo = np.zeros(x.size)
    hi, lo = 0.0, 0.0
    for i in range(x.size):
        hi = max(0.0, hi + x[i] - target - k)
        lo = max(0.0, lo + target - x[i] - k)
        s_hi[i], s_lo[i] = hi, lo
    alarm = (s_hi > h) | (s_lo > h)
    first = np.where(alarm.any(), np.argmax(alarm), -1)
    return s_hi, s_lo, first


def envelope_follower(x, attack, release):
    env = np.zeros_like(x)
    e = 0.0
    for i in range(x.size):
        level = abs(x[i])
        coeff = attack if level > e else release
        e = coeff * e + (1 - coeff) * level
        env[i] = e
    return env


# ---------------------------------------------------------------------------- geometry
def euler_zyx_roundtrip(yaw, pitch, roll):
    cz, sz, cy, sy, cx, sx = (np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch),
                              np.cos(roll), np.sin(roll))
    one, zero = np.ones_like(yaw), np.zeros_like(yaw)
    Rz = np.stack([np.stack([cz, -sz, zero], -1), np.stack([sz, cz, zero], -1),
                   np.stack([zero, zero, one], -1)], -2)
    Ry = np.stack([np.stack([cy, zero, sy], -1), np.stack([zero, one, zero], -1),
                   np.stack([-sy, zero, cy], -1)], -2)
    Rx = np.stack([np.stack([one, zero, zero], -1), np.stack([zero, cx, -sx], -1),
                   np.stack([zero, sx, cx], -1)], -2)
    R = Rz @ Ry @ Rx
    back = np.stack([np.arctan2(R[:, 1, 0], R[:, 0, 0]), np.arcsin(-R[:, 2, 0]),
                     np.arctan2(R[:, 2, 1], R[:, 2, 2])], axis=1)
    ortho = np.abs(np.einsum("nij,nkj->nik", R, R) - np.eye(3)).max() < 1e-14
    return R, back, np.linalg.det(R), ortho


def quaternion_slerp(q0, q1, t):
    q0 = q0 / np.linalg.norm(q0)
    q1 = q1 / np.linalg.norm(q1)
    dot = q0 @ q1
    q1 = np.where(dot < 0, -q1, q1)
    dot = abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    close = dot > 0.9995
    s = np.sin(np.where(close, 1.0, theta))
    w0 = np.where(close, 1 - t, np.sin((1 - t) * theta) / s)
    w1 = np.where(close, t, np.sin(t * theta) / s)
    q = w0[:, None] * q0 + w1[:, None] * q1
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def segment_intersections(A, B, C, D):
    """Does segment i (A[i]-B[i]) cross segment j (C[j]-D[j])? Orientation signs, pairwise."""
    def orient(p, q, r):
        return np.sign((q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
                       - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0]))

    a, b, c, d = A[:, None], B[:, None], C[None, :], D[None, :]
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    hit = (o1 * o2 < 0) & (o3 * o4 < 0)
    return hit, hit.sum(axis=1)


def kabsch(P, Q):
    pc, qc = P.mean(axis=0), Q.mean(axis=0)
    H = (P - pc).T @ (Q - qc)
    U, S, Vt = np.linalg.svd(H)
    d = np.sign(np.linalg.det(Vt.T @ U.T))
    D = np.diag(np.array([1.0, 1.0, d]))
    R = Vt.T @ D @ U.T
    aligned = (P - pc) @ R.T + qc
    return R, np.sqrt(np.mean(np.sum((aligned - Q) ** 2, axis=1)))


def turn(u, v):
    """The z of the cross product of 2-vectors (np.cross refuses 2-vectors since NumPy 2.5)."""
    return u[0] * v[1] - u[1] * v[0]


def convex_hull_monotone(pts):
    """Andrew's monotone chain: the hull's vertex indices counter-clockwise, padded with -1."""
    n = pts.shape[0]
    order = np.lexsort((pts[:, 1], pts[:, 0]))
    hull = np.full(2 * n, -1)
    k = 0
    for i in range(n):  # lower hull
        p = order[i]
        while k >= 2 and turn(pts[hull[k - 1]] - pts[hull[k - 2]], pts[p] - pts[hull[k - 2]]) <= 0:
            k -= 1
        hull[k] = p
        k += 1
    lower = k + 1
    for i in range(n - 2, -1, -1):  # upper hull
        p = order[i]
        while k >= lower and turn(pts[hull[k - 1]] - pts[hull[k - 2]], pts[p] - pts[hull[k - 2]]) <= 0:
            k -= 1
        hull[k] = p
        k += 1
    count = k - 1
    return np.where(np.arange(2 * n) < count, hull, -1), count


def circle_fit_kasa(x, y):
    A = np.column_stack([x, y, np.ones_like(x)])
    sol, *_ = np.linalg.lstsq(A, x * x + y * y, rcond=None)
    cx, cy = sol[0] / 2, sol[1] / 2
    radius = np.sqrt(sol[2] + cx * cx + cy * cy)
    return cx, cy, radius, np.std(np.hypot(x - cx, y - cy) - radius)


def polygon_moments(xy):
    x, y = xy[:, 0], xy[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2
    cx = ((x + xn) * cross).sum() / (6 * area)
    cy = ((y + yn) * cross).sum() / (6 * area)
    Ixx = ((y * y + y * yn + yn * yn) * cross).sum() / 12
    Iyy = ((x * x + x * xn + xn * xn) * cross).sum() / 12
    edges = np.linalg.norm(np.diff(xy, axis=0, append=xy[:1]), axis=1)
    return area, cx, cy, Ixx, Iyy, edges.sum()


# ---------------------------------------------------------------------------- graphs
def pagerank(A, d, tol):
    n = A.shape[0]
    out_deg = A.sum(axis=1)
    M = np.where(out_deg[:, None] > 0, A / np.maximum(out_deg, 1)[:, None], 1.0 / n).T
    r = np.full(n, 1.0 / n)
    delta, it = 1.0, 0
    while delta > tol:
        r_new = (1 - d) / n + d * M @ r
        delta = np.abs(r_new - r).sum()
        r = r_new
        it += 1
    return r, it, np.argsort(-r, kind="stable")


def bfs_levels(A, src):
    n = A.shape[0]
    level = np.full(n, -1)
    level[src] = 0
    frontier = np.arange(n) == src
    for depth in range(1, n):
        reached = (frontier.astype(np.int64) @ A) > 0
        frontier = reached & (level < 0)
        level = np.where(frontier, depth, level)
    return level


def floyd_warshall(W):
    n = W.shape[0]
    D = W.copy()
    nxt = np.where(np.isfinite(W), np.arange(n)[None, :], -1)
    for k in range(n):
        via = D[:, k, None] + D[None, k, :]
        better = via < D
        D = np.minimum(D, via)
        nxt = np.where(better, nxt[:, k, None], nxt)
    return D, nxt


def connected_components(A):
    n = A.shape[0]
    labels = np.arange(n)
    changed = True
    while changed:
        neighbour_min = np.where(A, labels[None, :], n).min(axis=1)
        new = np.minimum(labels, neighbour_min)
        changed = np.any(new != labels)
        labels = new
    roots = labels == np.arange(n)
    return labels, roots.sum()


def triangles_and_clustering(A):
    A = A.astype(np.int64)
    A3 = A @ A @ A
    tri = np.diag(A3) // 2
    deg = A.sum(axis=1)
    possible = deg * (deg - 1) // 2
    local = np.where(possible > 0, tri / np.maximum(possible, 1), 0.0)
    return np.trace(A3) // 6, tri, local, tri.sum() / np.maximum(possible.sum(), 1)


def dijkstra_dense(W, src):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    prev = np.full(n, -1)
    done = np.zeros(n, dtype=bool)
    for _ in range(n):
        u = np.argmin(np.where(done, np.inf, dist))
        done[u] = True
        cand = dist[u] + W[u]
        better = (cand < dist) & ~done
        dist = np.where(better, cand, dist)
        prev = np.where(better, u, prev)
    return dist, prev


def spectral_bisection(A):
    L = np.diag(A.sum(axis=1)) - A
    w, V = np.linalg.eigh(L)
    fiedler = V[:, 1] * np.sign(V[0, 1])
    part = fiedler > 0
    cut = (A * (part[:, None] != part[None, :])).sum() / 2
    return w, part, cut


def kahn_toposort(A):
    n = A.shape[0]
    indeg = A.sum(axis=0)
    placed = np.zeros(n, dtype=bool)
    order = np.full(n, -1)
    for step in range(n):
        ready = (indeg == 0) & ~placed
        if not ready.any():
            break
        v = np.argmax(ready)
        order[step] = v
        placed[v] = True
        indeg = indeg - A[v]
    return order, placed.all()


# ---------------------------------------------------------------------------- data wrangling
def group_extremes(groups, values, k):
    hi = np.full(k, -np.inf)
    lo = np.full(k, np.inf)
    np.maximum.at(hi, groups, values)
    np.minimum.at(lo, groups, values)
    counts = np.bincount(groups, minlength=k)
    sums = np.bincount(groups, weights=values, minlength=k)
    return hi, lo, sums / np.maximum(counts, 1), hi - lo


def pivot_table(rows, cols, values):
    """Sums and counts of values by (row, col) category, as pandas.pivot_table."""
    shape = (3, 4)
    flat = np.ravel_multi_index((rows, cols), shape)
    sums = np.bincount(flat, weights=values, minlength=12).reshape(shape)
    counts = np.bincount(flat, minlength=12).reshape(shape)
    mean = np.divide(sums, counts, out=np.full(shape, np.nan), where=counts > 0)
    return sums, counts, mean, sums.sum(axis=0), sums.sum(axis=1)


def condensed_distances(X):
    """scipy's pdist and squareform by hand: the upper triangle, row by row."""
    n = X.shape[0]
    i, j = np.triu_indices(n, k=1)
    d = np.sqrt(((X[i] - X[j]) ** 2).sum(axis=1))
    S = np.zeros((n, n))
    S[i, j] = d
    S = S + S.T
    nearest = np.argmin(np.where(np.eye(n, dtype=bool), np.inf, S), axis=1)
    return d, S[np.triu_indices_from(S, k=1)], nearest


def rank_within_group(groups, values):
    order = np.lexsort((values, groups))
    g_sorted = groups[order]
    start = np.searchsorted(g_sorted, g_sorted, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - start
    return rank, order


def hist3d(points):
    H, edges = np.histogramdd(points, bins=(3, 2, 4), range=[(-2, 2), (-2, 2), (-2, 2)])
    Hd, _ = np.histogramdd(points, bins=[np.array([-3, -1, 0, 3.0])] * 3, density=True)
    return H, edges[0], edges[2], Hd


def run_lengths(x):
    change = np.concatenate([[True], x[1:] != x[:-1]])
    run_id = np.cumsum(change) - 1
    lengths = np.bincount(run_id, minlength=x.size)
    n_runs = change.sum()
    return run_id, lengths, n_runs, lengths.max()


def hourly_to_daily(hourly):
    days = hourly.reshape(-1, 24)
    return (np.nanmean(days, axis=1), np.nanmax(days, axis=1), np.nanargmin(days, axis=1),
            np.nancumsum(days, axis=1)[:, -1], np.nancumprod(1 + days / 100, axis=1)[:, -1],
            np.isnan(days).sum(axis=1))


def sessionize(t, gap):
    new_session = np.concatenate([[True], np.diff(t) > gap])
    sid = np.cumsum(new_session) - 1
    start = np.full(t.size, np.inf)
    end = np.full(t.size, -np.inf)
    np.minimum.at(start, sid, t)
    np.maximum.at(end, sid, t)
    used = np.arange(t.size) < new_session.sum()
    return sid, np.where(used, end - start, 0.0), np.bincount(sid, minlength=t.size)


def rolling_correlation(a, b, w):
    wa, wb = swv(a, w), swv(b, w)
    da = wa - wa.mean(axis=1, keepdims=True)
    db = wb - wb.mean(axis=1, keepdims=True)
    cov = np.einsum("ij,ij->i", da, db)
    return cov / np.sqrt(np.einsum("ij,ij->i", da, da) * np.einsum("ij,ij->i", db, db))


# ---------------------------------------------------------------------------- linear algebra
def cg_until_converged(A, b, tol):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    it = 0
    while np.sqrt(rs) > tol and it < 100:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        it += 1
    # The residual itself is rounding noise (~1e-16), which no relative tolerance can compare:
    # whether it is that small is the result.
    return x, it, np.linalg.norm(A @ x - b) <= 1e-12 * np.linalg.norm(b)


def sor_sweeps(A, b, omega, sweeps):
    n = b.size
    x = np.zeros(n)
    for _ in range(sweeps):
        for i in range(n):
            sigma = A[i, :i] @ x[:i] + A[i, i + 1:] @ x[i + 1:]
            x[i] = (1 - omega) * x[i] + omega * (b[i] - sigma) / A[i, i]
    return x, np.linalg.norm(A @ x - b)


def householder_qr(A):
    m, n = A.shape
    R = A.astype(float)
    Q = np.eye(m)
    for k in range(n):
        x = R[k:, k]
        alpha = -np.copysign(np.linalg.norm(x), x[0])
        v = x.copy()
        v[0] -= alpha
        v = v / np.linalg.norm(v)
        R[k:, :] -= 2.0 * np.outer(v, v @ R[k:, :])
        Q[:, k:] -= 2.0 * np.outer(Q[:, k:] @ v, v)
    # The reconstruction error is rounding noise (~1e-15) no relative tolerance compares: whether
    # it is that small is the result.
    return Q, np.triu(R), np.abs(Q @ R - A).max() <= 1e-12 * np.abs(A).max()


def lanczos_extremes(A, v0, m):
    n = A.shape[0]
    V = np.zeros((m, n))
    alpha = np.zeros(m)
    beta = np.zeros(m - 1)
    v = v0 / np.linalg.norm(v0)
    w_prev = np.zeros(n)
    for j in range(m):
        V[j] = v
        w = A @ v - (beta[j - 1] * w_prev if j > 0 else 0.0)
        alpha[j] = w @ v
        w = w - alpha[j] * v
        w = w - V[: j + 1].T @ (V[: j + 1] @ w)  # full reorthogonalisation
        if j < m - 1:
            beta[j] = np.linalg.norm(w)
            w_prev = v
            v = w / beta[j]
    T = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    ritz = np.linalg.eigvalsh(T)
    exact = np.linalg.eigvalsh(A)
    return ritz[[0, -1]], exact[[0, -1]]


def rayleigh_quotient_iteration(A, v0, iters):
    v = v0 / np.linalg.norm(v0)
    mu = v @ A @ v
    for _ in range(iters):
        w = np.linalg.solve(A - mu * np.eye(A.shape[0]), v)
        v = w / np.linalg.norm(w)
        mu = v @ A @ v
    return mu, np.abs(v), np.linalg.norm(A @ v - mu * v) < 1e-4


def denman_beavers(A, iters):
    Y, Z = A.copy(), np.eye(A.shape[0])
    for _ in range(iters):
        Y, Z = 0.5 * (Y + np.linalg.inv(Z)), 0.5 * (Z + np.linalg.inv(Y))
    return Y, np.abs(Y @ Y - A).max()


def rank_deficient_design(X, y):
    """A design with a column that is the sum of two others: its rank, the minimum-norm
    coefficients by pinv, the fitted values through multi_dot, and how ill-conditioned it is."""
    D = np.column_stack([X, X[:, 0] + X[:, 1], np.ones(X.shape[0])])
    P = np.linalg.pinv(D)
    return (np.linalg.matrix_rank(D), P @ y, np.linalg.multi_dot([D, P, y]), np.linalg.cond(D) > 1e12,
            np.linalg.cond(X))


def absorbing_chain(P, n_transient):
    Q = P[:n_transient, :n_transient]
    R = P[:n_transient, n_transient:]
    N = np.linalg.inv(np.eye(n_transient) - Q)
    steps = N @ np.ones(n_transient)
    B = N @ R
    variance = (2 * N - np.eye(n_transient)) @ steps - steps**2
    return steps, B, variance


# ---------------------------------------------------------------------------- physics
def hodgkin_huxley(I_ext, steps, dt):
    def rates(V):
        an = 0.01 * (V + 55) / -np.expm1(-(V + 55) / 10)
        bn = 0.125 * np.exp(-(V + 65) / 80)
        am = 0.1 * (V + 40) / -np.expm1(-(V + 40) / 10)
        bm = 4.0 * np.exp(-(V + 65) / 18)
        ah = 0.07 * np.exp(-(V + 65) / 20)
        bh = 1 / (1 + np.exp(-(V + 35) / 10))
        return an, bn, am, bm, ah, bh

    V = np.full_like(I_ext, -65.0)
    n, m, h = 0.317 * np.ones_like(V), 0.05 * np.ones_like(V), 0.6 * np.ones_like(V)
    spikes = np.zeros(V.shape, dtype=np.int64)
    for _ in range(steps):
        an, bn, am, bm, ah, bh = rates(V)
        I_ion = 120 * m**3 * h * (V - 50) + 36 * n**4 * (V + 77) + 0.3 * (V + 54.387)
        V_new = V + dt * (I_ext - I_ion)
        spikes += (V < 0) & (V_new >= 0)
        n, m, h = (n + dt * (an * (1 - n) - bn * n), m + dt * (am * (1 - m) - bm * m),
                   h + dt * (ah * (1 - h) - bh * h))
        V = V_new
    return V, spikes


def relativistic_addition(u, v):
    """Velocities (units of c) added by their rapidities, and the Lorentz factors."""
    w = np.tanh(np.arctanh(u) + np.arctanh(v))
    direct = (u + v) / (1 + u * v)
    gamma = np.cosh(np.arctanh(w))
    return w, np.allclose(w, direct, rtol=1e-14), gamma, np.sinh(np.arctanh(w)) / gamma


def elementary_automaton(state, rule, steps):
    s = state.astype(np.uint8)
    rows = np.zeros((steps + 1, s.size), dtype=np.uint8)
    rows[0] = s
    for t in range(steps):
        idx = (np.roll(s, 1) << 2) | (s << 1) | np.roll(s, -1)
        s = (rule >> idx) & 1
        rows[t + 1] = s
    return rows, rows.sum(axis=1)


def crank_nicolson_heat(u0, r, steps):
    n = u0.size
    off = np.ones(n - 1)
    L = np.diag(-2.0 * np.ones(n)) + np.diag(off, 1) + np.diag(off, -1)
    A = np.eye(n) - 0.5 * r * L
    B = np.eye(n) + 0.5 * r * L
    step = np.linalg.solve(A, B)
    u = u0
    for _ in range(steps):
        u = step @ u
    return u, u.sum(), np.linalg.matrix_power(step, steps) @ u0


def planck_spectrum(T):
    h, c, k = 6.62607015e-34, 2.99792458e8, 1.380649e-23
    lam = np.linspace(100e-9, 5000e-9, 400)
    B = 2 * h * c**2 / lam[None, :] ** 5 / np.expm1(h * c / (lam[None, :] * k * T[:, None]))
    peak = lam[np.argmax(B, axis=1)]
    power = np.trapezoid(B, lam, axis=1) * np.pi
    return peak * T, power / T**4


# ---------------------------------------------------------------------------- np.polynomial
def gauss_legendre_integrals(a, b):
    x, w = np.polynomial.legendre.leggauss(8)
    t = 0.5 * (b - a) * x[:, None] + 0.5 * (b + a)
    fx = np.exp(-t * t)
    return 0.5 * (b - a) * (w @ fx), np.polynomial.legendre.legval(0.3, np.array([1.0, 0.5, 0.25]))


def chebyshev_fit(x, y):
    c = np.polynomial.chebyshev.chebfit(x, y, 5)
    return c, np.polynomial.chebyshev.chebval(x, c)


# ---------------------------------------------------------------------------- NumPy's docs
def docs_apply_over_axes(a):
    """numpy.apply_over_axes' example: sums over axes 0 and 2, keeping them."""
    return np.apply_over_axes(np.sum, a, [0, 2]), np.apply_over_axes(np.max, a, 1)


def docs_unstack(a):
    x, y, z = np.unstack(a, axis=1)
    return np.hypot(x, y) * z, np.unstack(a)


def docs_sort_complex(r, small):
    return np.sort_complex(r), np.sort_complex(small)


def docs_i0(x):
    return np.i0(x), np.i0(np.abs(x) * 5)


def docs_triu_indices_from(a):
    iu = np.triu_indices_from(a)
    il = np.tril_indices_from(a, k=-1)
    return a[iu], a[il], a[np.diag_indices_from(a)]


SPD = normal(6, 6)
SPD = SPD @ SPD.T + 6 * np.eye(6)
SHUFFLE = [3, 0, 6, 1, 5, 2, 4]
TWO_CLIQUES = np.kron(np.eye(2), np.ones((4, 4))) - np.eye(8) + 0.1 * (np.eye(8, k=4) + np.eye(8, k=-4))
DAG = np.triu((RNG.random((7, 7)) < 0.4).astype(np.int64), 1)[np.ix_(SHUFFLE, SHUFFLE)]
UG = RNG.random((9, 9)) < 0.3
UG = np.triu(UG, 1)
UG = UG | UG.T
UG[:3, 3:] = UG[3:, :3] = False
WEIGHTS = np.where(RNG.random((6, 6)) < 0.5, RNG.integers(1, 9, (6, 6)).astype(float), np.inf)
np.fill_diagonal(WEIGHTS, 0.0)
HOURLY = np.where(RNG.random(72) < 0.1, np.nan, 10 + 5 * normal(72))
PRICE = 100 * np.exp(np.cumsum(0.01 * normal(40)))
HULL_PTS = np.concatenate([RNG.random((12, 2)), [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.0]]])
GROUPS = np.array([0, 2, 1, 2, 0, 3, 3, 1, 2, 0])
ABSORB = np.array([[0.2, 0.5, 0.1, 0.2, 0.0], [0.3, 0.1, 0.4, 0.0, 0.2], [0.1, 0.2, 0.3, 0.2, 0.2],
                   [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]])
SEG = [RNG.random((5, 2)) for _ in range(2)] + [RNG.random((4, 2)) for _ in range(2)]
TSTAMPS = np.cumsum(np.where(RNG.random(15) < 0.25, 30.0, 2.0) * RNG.random(15))

PROGRAMS = {
    "orbit_elements": (orbit_elements, (), TIGHT * 16,
                       [(7000.0, 0.0, 0.0, 8.0), (-5000.0, 6000.0, -5.5, -3.0)]),
    "asian_and_barrier": (asian_and_barrier, (), TIGHT * 4, [(100.0, 0.02, 0.3, 1.0, normal(64, 12), 130.0)]),
    "bollinger_bands": (bollinger_bands, ("w",), TIGHT * 16, [(PRICE, 8, 2.0)]),
    "bootstrap_yield_curve": (bootstrap_yield_curve, (), TIGHT * 4,
                              [(np.array([0.02, 0.025, 0.03, 0.035]),
                                np.array([100.5, 100.2, 99.8, 99.0]) / 100)]),
    "cir_full_truncation": (cir_full_truncation, (), TIGHT * 4,
                            [(0.03, 1.5, 0.04, 0.2, normal(16, 20), 1 / 52)]),
    "time_under_water": (time_under_water, (), TIGHT, [(PRICE,)]),
    "iir_direct_form_2t": (iir_direct_form_2t, (), TIGHT * 4,
                           [(np.array([0.2, 0.4, 0.2]), np.array([1.0, -0.5, 0.3]), normal(24)),
                            (np.array([0.5, 0.5]), np.array([2.0, -0.4, 0.1, 0.02]), normal(10))]),
    "kaiser_fir": (kaiser_fir, ("numtaps",), TIGHT * 64, [(15, 60.0, 0.2), (11, 35.0, 0.3)]),
    "karplus_strong": (karplus_strong, ("n_samples",), TIGHT, [(normal(7), 40, 0.996)]),
    "upsample_linear": (upsample_linear, ("L",), TIGHT, [(normal(6), 3)]),
    "hampel_filter": (hampel_filter, ("half",), TIGHT,
                      [(np.concatenate([normal(10), [9.0], normal(5)]), 2, 3.0)]),
    "cusum_alarm": (cusum_alarm, (), TIGHT,
                    [(np.concatenate([normal(15), normal(15) + 1.5]), 0.0, 0.5, 4.0)]),
    "envelope_follower": (envelope_follower, (), TIGHT,
                          [(np.sin(np.arange(30) * 0.7) * np.linspace(0, 1, 30), 0.3, 0.9)]),
    "euler_zyx_roundtrip": (euler_zyx_roundtrip, (), TIGHT * 4,
                            [(np.array([0.1, 2.0, -1.2]), np.array([0.3, -1.0, 1.4]),
                              np.array([-2.5, 0.7, 0.0]))]),
    "quaternion_slerp": (quaternion_slerp, (), TIGHT * 4,
                         [(np.array([1.0, 0.0, 0.0, 0.0]), np.array([0.6, 0.0, 0.8, 0.0]),
                           np.linspace(0, 1, 5)),
                          (np.array([0.5, 0.5, 0.5, 0.5]), np.array([-0.5, -0.5, -0.5, -0.5001]),
                           np.linspace(0, 1, 3))]),
    "segment_intersections": (segment_intersections, (), EXACT, [tuple(SEG)]),
    "kabsch": (kabsch, (), TIGHT * 64,
               [(normal(8, 3), normal(8, 3) @ np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]]))]),
    "convex_hull_monotone": (convex_hull_monotone, (), EXACT, [(HULL_PTS,)]),
    "circle_fit_kasa": (circle_fit_kasa, (), TIGHT * 64,
                        [(2 + 3 * np.cos(np.linspace(0, 5, 9)) + 0.01 * normal(9),
                          -1 + 3 * np.sin(np.linspace(0, 5, 9)) + 0.01 * normal(9))]),
    "polygon_moments": (polygon_moments, (), TIGHT,
                        [(np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 3.0], [2.0, 5.0], [0.0, 3.0]]),)]),
    "pagerank": (pagerank, (), TIGHT * 4, [(DAG + DAG.T * (RNG.random((7, 7)) < 0.3), 0.85, 1e-10)]),
    "bfs_levels": (bfs_levels, (), EXACT, [(UG.astype(np.int64), 4)]),
    "floyd_warshall": (floyd_warshall, (), EXACT, [(WEIGHTS,)]),
    "connected_components": (connected_components, (), EXACT, [(UG,)]),
    "triangles_and_clustering": (triangles_and_clustering, (), TIGHT, [(UG,)]),
    "dijkstra_dense": (dijkstra_dense, (), EXACT, [(WEIGHTS, 0)]),
    "spectral_bisection": (spectral_bisection, (), TIGHT * 64,
                           [(TWO_CLIQUES,)]),
    "kahn_toposort": (kahn_toposort, (), EXACT, [(DAG,), (DAG + np.eye(7, k=1, dtype=np.int64)[::-1],)]),
    "group_extremes": (group_extremes, ("k",), TIGHT, [(GROUPS, normal(10), 5)]),
    "pivot_table": (pivot_table, (), TIGHT,
                    [(np.array([0, 2, 1, 2, 0, 1, 2]), np.array([3, 0, 1, 0, 3, 2, 1]), normal(7))]),
    "condensed_distances": (condensed_distances, (), TIGHT, [(normal(6, 3),)]),
    "rank_within_group": (rank_within_group, (), EXACT, [(GROUPS, np.round(normal(10), 1))]),
    "hist3d": (hist3d, (), TIGHT, [(normal(20, 3),)]),
    "run_lengths": (run_lengths, (), EXACT, [(np.array([3, 3, 1, 1, 1, 2, 3, 3, 3, 3]),)]),
    "hourly_to_daily": (hourly_to_daily, (), TIGHT * 4, [(HOURLY,)]),
    "sessionize": (sessionize, (), EXACT, [(TSTAMPS, 10.0)]),
    "rolling_correlation": (rolling_correlation, ("w",), TIGHT * 16, [(normal(20), normal(20), 6)]),
    "cg_until_converged": (cg_until_converged, (), TIGHT * 64, [(SPD, normal(6), 1e-10)]),
    "sor_sweeps": (sor_sweeps, (), TIGHT * 16, [(SPD, normal(6), 1.2, 6)]),
    "householder_qr": (householder_qr, (), TIGHT * 16, [(normal(5, 3),)]),
    "lanczos_extremes": (lanczos_extremes, ("m",), TIGHT * 256, [(SPD, normal(6), 5)]),
    "rayleigh_quotient_iteration": (rayleigh_quotient_iteration, (), TIGHT * 1024, [(SPD, normal(6), 3)]),
    "denman_beavers": (denman_beavers, (), TIGHT * 64, [(SPD, 8)]),
    "rank_deficient_design": (rank_deficient_design, (), TIGHT * 256, [(normal(10, 3), normal(10))]),
    "absorbing_chain": (absorbing_chain, ("n_transient",), TIGHT * 16, [(ABSORB, 3)]),
    "hodgkin_huxley": (hodgkin_huxley, ("steps",), TIGHT * 1024,
                       [(np.array([0.0, 5.0, 10.0, 20.0]), 200, 0.05)]),
    "relativistic_addition": (relativistic_addition, (), TIGHT * 16,
                              [(np.array([0.5, 0.9, -0.3, 0.0]), np.array([0.5, 0.99, 0.8, -0.7]))]),
    "elementary_automaton": (elementary_automaton, ("steps",), EXACT,
                             [(np.eye(1, 15, 7, dtype=np.uint8)[0], np.uint8(30), 6),
                              (np.eye(1, 12, 11, dtype=np.uint8)[0], np.uint8(110), 5)]),
    "crank_nicolson_heat": (crank_nicolson_heat, ("steps",), TIGHT * 64,
                            [(np.exp(-((np.arange(12) - 5.5) ** 2) / 4), 0.8, 10)]),
    "planck_spectrum": (planck_spectrum, (), TIGHT * 16, [(np.array([3000.0, 5800.0]),)]),
    "gauss_legendre_integrals": (gauss_legendre_integrals, (), TIGHT,
                                 [(np.array([0.0, -1.0]), np.array([1.0, 2.0]))]),
    "docs_apply_over_axes": (docs_apply_over_axes, (), EXACT, [(np.arange(24).reshape(2, 3, 4),)]),
    "docs_unstack": (docs_unstack, (), EXACT, [(normal(4, 3),)]),
    "docs_sort_complex": (docs_sort_complex, (), EXACT,
                          [(np.array([5, 3, 6, 2, 1]), np.array([3, -1, 2], np.int16)),
                           (np.array([np.nan, 2.0, -0.0, 0.0, -np.inf]), np.array([1.5, -1.0], f32))]),
    "docs_i0": (docs_i0, (), TIGHT * 4, [(np.array([0.0, 1.0, -2.5, 7.9, 8.1, 30.0, np.inf, np.nan]),),
                                          (np.linspace(0, 3, 4, dtype=f32),)]),
    "docs_triu_indices_from": (docs_triu_indices_from, (), EXACT, [(np.arange(16).reshape(4, 4),)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


def _swaps_and_chained_writes(x, i, j):
    a = x.copy()
    a[i], a[j] = a[j], a[i]  # the swap idiom: the right side is read before either write
    lo, hi = np.zeros(3), np.zeros(3)
    for k in range(3):
        lo[k], (hi[k], _) = x[k] - 1, (x[k] + 1, k)
    b = np.zeros(4)
    b[0] = b[i] = x[j]
    return a, lo, hi, b


# The functions this round compiled, at their edges: (function, arguments, tolerance).
EDGES = {
    "np.i0 of 0, -0.0, both sides of 8, large, inf, NaN, ints and float32": (
        lambda x, n, v32: (np.i0(x), np.i0(n), np.i0(v32), np.i0(x[3])),
        (np.array([0.0, -0.0, 8.0, np.nextafter(8.0, 9), -8.5, 700.0, -np.inf, np.nan]),
         np.array([0, -3, 9]), np.array([0.5, 8.0, 20.0], f32)),
        TIGHT * 4,
    ),
    "np.kaiser with a traced beta: length 1, an even length, beta 0": (
        lambda b: (np.kaiser(1, b), np.kaiser(6, b), np.kaiser(5, b * 0)), (8.6,), TIGHT * 4,
    ),
    "ravel_multi_index: wrap, clip, per-axis modes, F order, broadcast coordinates": (
        lambda r, c: (np.ravel_multi_index((r, c), (3, 4), mode="wrap"),
                      np.ravel_multi_index((r, c), (3, 4), mode="clip"),
                      np.ravel_multi_index((r, c), (3, 4), mode=("clip", "wrap")),
                      np.ravel_multi_index((np.clip(r, 0, 2), np.clip(c, 0, 3)), (3, 4), order="F"),
                      np.ravel_multi_index((r[:, None] % 3, np.arange(4)), (3, 4))),
        (np.array([0, 5, -1, 2]), np.array([3, -2, 1, 9])), EXACT,
    ),
    "the *_indices_from helpers of rectangular and empty arrays, with k": (
        lambda a, e: (a[np.triu_indices_from(a, k=1)], a[np.tril_indices_from(a, k=-2)],
                      e[np.triu_indices_from(e)], np.diag_indices_from(a[:, :3])),
        (np.arange(12.0).reshape(3, 4), np.zeros((0, 0))), EXACT,
    ),
    "apply_over_axes with negative axes and a scalar axis; unstack of a 1-d and along the last axis": (
        lambda a: (np.apply_over_axes(np.mean, a, [-1, 0]), np.apply_over_axes(np.min, a, 1),
                   np.unstack(a[0, 0]), np.unstack(a, axis=-1)),
        (normal(2, 3, 4),), TIGHT,
    ),
    "unpacking assignments into subscripts: a swap at traced indices, nested targets, a chain": (
        _swaps_and_chained_writes, (normal(5), 1, 3), EXACT,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    check_edge(*EDGES[case], case)


def _orbit_period(a):
    return 2 * math.pi * math.sqrt(a**3 / 398600.4418) + math.log(a)


@pytest.mark.parametrize("a, error", [(-7000.0, ValueError), (0.0, ValueError)])
def test_math_functions_raise_pythons_errors_from_the_call(a, error):
    """math.sqrt of a negative number and math.log of 0 are ValueError('math domain error') in
    Python; compiled, the same error comes from the call (the value is data, not known when
    tracing), and a good value afterwards runs the same code."""
    jitted = jc.jit(_orbit_period)
    with pytest.raises(error, match="math domain error"):
        jitted(a)
    assert jitted(7000.0) == pytest.approx(_orbit_period(7000.0), rel=1e-14)
    with pytest.raises(OverflowError, match="math range error"):
        jc.jit(lambda x: math.exp(x))(1000.0)


def test_ravel_multi_index_raises_numpys_error_for_a_coordinate_out_of_range():
    rows, cols = np.array([0, 2]), np.array([1, 4])
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        np.ravel_multi_index((rows, cols), (3, 4))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        jc.jit(lambda r, c: np.ravel_multi_index((r, c), (3, 4)))(rows, cols)


def _chebyshev_fit(x, y):
    c = np.polynomial.chebyshev.chebfit(x, y, 3)
    return np.polynomial.chebyshev.chebval(x, c)


def _masked_mean(x):
    return np.ma.masked_invalid(x).mean()


# What jitcore refuses on purpose: (function, arguments, error, words the message must hold).
REFUSED = {
    "np.polynomial's fitting functions of traced data": (
        _chebyshev_fit, (np.linspace(-1, 1, 8), normal(8)), jc.TracerConversionError, "chebfit"),
    "np.ma masked arrays": (_masked_mean, (normal(4),), jc.TracerConversionError, "masked_invalid"),
    "arithmetic on np.emath.sqrt of int8 (float16 or complex64 as the data's signs say)": (
        lambda x: np.emath.sqrt(x) + 1, (np.arange(-1, 2).astype(np.int8),), jc.JitTypeError,
        r"emath.sqrt\(x.astype\(complex\)\)"),
    "np.partition of complex numbers (complex selection is not lowered; sorting is)": (
        lambda z: np.partition(z, 1), (normal(3) + 1j,), jc.UnsupportedError, "partition of complex"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])
