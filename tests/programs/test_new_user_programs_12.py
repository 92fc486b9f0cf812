"""A new user's NumPy programs, twelfth round (newuser34): loops written the way scientists write
them (index arithmetic, element updates in place, ``while`` loops on traced conditions, buffers
swapped by name), arrays built inside the function, and areas the first eleven rounds did not
draw. Finance (implied volatility by bisection with a hand-written normal CDF, GARCH(1,1),
Wilder's RSI, Heston paths, OHLC bars and VWAP, a CRR tree rolled back in place), signals (LMS,
a constant-velocity Kalman filter, Levinson-Durbin, a comb filter in a ring buffer, a delta-sigma
modulator, a Schmitt trigger, forward-backward smoothing, four windows' spectra), geometry
(Bresenham, Jarvis' march, Douglas-Peucker with a stack, Moller-Trumbore, de Casteljau,
Cox-de Boor, arc-length resampling, winding numbers), graphs (Bellman-Ford, Kruskal with a
union-find, Prim, HITS, greedy colouring, Warshall, Katz), data wrangling (a groupby by sorting,
cumcount, merge_asof, interval merging, NaN-skipping rolling means, the ufunc.at family), linear
algebra (Thomas, a natural spline, Cholesky, Jacobi rotations, Gauss-Jordan, modified
Gram-Schmidt, golden section, Armijo steps, Durand-Kerner, shifted QR, a continued fraction),
physics (FDTD, heat between swapped buffers, a three-level wave, D2Q9 lattice Boltzmann, Bateman,
Brownian MSD, a bouncing ball, a spring chain), integers (trial division, digit sums, insertion
sort, binary search, bit packing) and NumPy's docs for functions no round had used
(``compress``, ``cbrt``/``float_power``, ``vecdot``/``matvec``/``vecmat``, ``fromfunction``,
``cumulative_sum``/``cumulative_prod``, the array API's names, ``tensorsolve``, ``linalg.eig``).
Each runs under ``jc.jit`` against NumPy as the earlier rounds' programs do
(tests/programs/like_numpy.py); what jitcore refuses on purpose is checked to be its own error."""

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
RNG = np.random.default_rng(20261204 + 12)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------- finance
def norm_cdf_as(x):
    """Abramowitz and Stegun 26.2.17: the normal CDF a user without SciPy writes."""
    t = 1.0 / (1.0 + 0.2316419 * np.abs(x))
    poly = t * (0.319381530 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))))
    tail = np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi) * poly
    return np.where(x >= 0, 1.0 - tail, tail)


def implied_vol_bisection(price, S, K, T, r):
    """Each option's volatility by bisection on the Black-Scholes price, all at once, in a
    ``while`` on the widest bracket."""
    lo = np.full_like(price, 1e-4)
    hi = np.full_like(price, 4.0)
    it = 0
    while np.max(hi - lo) > 1e-10 and it < 200:
        mid = 0.5 * (lo + hi)
        d1 = (np.log(S / K) + (r + 0.5 * mid**2) * T) / (mid * np.sqrt(T))
        d2 = d1 - mid * np.sqrt(T)
        model = S * norm_cdf_as(d1) - K * np.exp(-r * T) * norm_cdf_as(d2)
        too_high = model > price
        hi = np.where(too_high, mid, hi)
        lo = np.where(too_high, lo, mid)
        it += 1
    return 0.5 * (lo + hi), it


def garch11_loglik(r, omega, alpha, beta):
    """GARCH(1,1) variances by the recursion, one element a step, and the Gaussian
    log-likelihood."""
    n = r.size
    s2 = np.empty(n)
    s2[0] = r.var()
    for t in range(1, n):
        s2[t] = omega + alpha * r[t - 1] ** 2 + beta * s2[t - 1]
    ll = -0.5 * np.sum(np.log(2 * np.pi * s2) + r**2 / s2)
    return s2, ll


def rsi_wilder(close, period):
    delta = np.diff(close)
    gain = np.where(delta > 0, delta, 0.0)
    loss = np.where(delta < 0, -delta, 0.0)
    avg_g = np.zeros(delta.size)
    avg_l = np.zeros(delta.size)
    avg_g[period - 1] = gain[:period].mean()
    avg_l[period - 1] = loss[:period].mean()
    for i in range(period, delta.size):
        avg_g[i] = (avg_g[i - 1] * (period - 1) + gain[i]) / period
        avg_l[i] = (avg_l[i - 1] * (period - 1) + loss[i]) / period
    rs = avg_g[period - 1:] / avg_l[period - 1:]
    return 100 - 100 / (1 + rs)


def heston_paths(S0, v0, kappa, theta, xi, rho, r, T, Z1, Z2):
    """Heston by full-truncation Euler from two passed-in normal matrices, correlated here."""
    n_paths, n_steps = Z1.shape
    dt = T / n_steps
    S = np.full(n_paths, S0)
    v = np.full(n_paths, v0)
    for k in range(n_steps):
        w1 = Z1[:, k]
        w2 = rho * w1 + np.sqrt(1 - rho * rho) * Z2[:, k]
        vp = np.maximum(v, 0.0)
        S = S * np.exp((r - 0.5 * vp) * dt + np.sqrt(vp * dt) * w1)
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * w2
    payoff = np.maximum(S - S0, 0.0) * np.exp(-r * T)
    return payoff.mean(), payoff.std(ddof=1) / np.sqrt(n_paths), np.mean(v < 0)


def first_passage(path, barrier):
    """The first step a price path crosses a barrier, and the price there: a tuple returned from
    inside the loop, another after it."""
    for t in range(path.size):
        if path[t] >= barrier:
            return t, path[t], True
    return -1, np.nan, False


def vwap_and_ohlc(price, volume, bar):
    """Bars of ``bar`` ticks: open/high/low/close by reshaping, VWAP by cumulative sums."""
    n = price.size // bar * bar
    p = price[:n].reshape(-1, bar)
    v = volume[:n].reshape(-1, bar)
    ohlc = np.stack([p[:, 0], p.max(axis=1), p.min(axis=1), p[:, -1]], axis=1)
    cpv = np.cumsum(price * volume)
    cv = np.cumsum(volume)
    return ohlc, (p * v).sum(axis=1) / v.sum(axis=1), cpv / cv


def binomial_tree_european(S, K, T, r, sigma, n):
    """Cox-Ross-Rubinstein: the leaves built in the function, rolled back in place."""
    dt = T / n
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    values = np.maximum(S * u ** np.arange(n, -n - 1, -2.0) - K, 0.0)
    for step in range(n, 0, -1):
        for i in range(step):
            values[i] = disc * (p * values[i] + (1 - p) * values[i + 1])
    return values[0]


# ---------------------------------------------------------------------------- signals
def lms_filter(x, d, taps, mu):
    """A least-mean-squares adaptive filter: the window read backwards at the index."""
    w = np.zeros(taps)
    y = np.zeros(x.size)
    e = np.zeros(x.size)
    for n in range(taps - 1, x.size):
        window = x[n - taps + 1:n + 1][::-1]
        y[n] = w @ window
        e[n] = d[n] - y[n]
        w = w + mu * e[n] * window
    return w, y, e


def kalman_constant_velocity(z, dt, q, r_var):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.array([[dt**4 / 4, dt**3 / 2], [dt**3 / 2, dt**2]])
    x = np.array([z[0], 0.0])
    P = np.eye(2) * 10.0
    est = np.zeros((z.size, 2))
    for k in range(z.size):
        x = F @ x
        P = F @ P @ F.T + Q
        S = (H @ P @ H.T)[0, 0] + r_var
        K = (P @ H.T)[:, 0] / S
        x = x + K * (z[k] - x[0])
        P = (np.eye(2) - np.outer(K, H[0])) @ P
        est[k] = x
    return est, P


def levinson_durbin(r, order):
    """The Yule-Walker recursion: reflection coefficients, the predictor updated with its own
    reverse at each order."""
    a = np.zeros(order + 1)
    a[0] = 1.0
    err = r[0]
    k = np.zeros(order)
    for m in range(1, order + 1):
        acc = r[m]
        for j in range(1, m):
            acc += a[j] * r[m - j]
        km = -acc / err
        prev = a.copy()
        for j in range(1, m):
            a[j] = prev[j] + km * prev[m - j]
        a[m] = km
        k[m - 1] = km
        err *= 1 - km * km
    return a, k, err


def schroeder_comb(x, delay, g):
    """A feedback comb filter in a ring buffer indexed modulo its length."""
    buf = np.zeros(delay)
    y = np.zeros(x.size)
    idx = 0
    for n in range(x.size):
        out = buf[idx]
        y[n] = out
        buf[idx] = x[n] + g * out
        idx = (idx + 1) % delay
    return y


def delta_sigma(x):
    """A first-order delta-sigma modulator: integrator, one-bit quantiser, feedback."""
    integ = 0.0
    prev = 0.0
    bits = np.zeros(x.size, dtype=np.int8)
    for n in range(x.size):
        integ += x[n] - prev
        b = 1 if integ >= 0 else -1
        bits[n] = b
        prev = float(b)
    return bits, bits.astype(np.float64).mean()


def schmitt_trigger(x, lo, hi):
    state = False
    out = np.zeros(x.size, dtype=bool)
    for i in range(x.size):
        if state and x[i] < lo:
            state = False
        elif not state and x[i] > hi:
            state = True
        out[i] = state
    return out, np.count_nonzero(np.diff(out.astype(np.int8)) == 1)


def filtfilt_one_pole(x, a):
    """Zero-phase smoothing: a one-pole filter forwards, then over the reversed output."""
    y = np.empty_like(x)
    acc = x[0]
    for i in range(x.size):
        acc = a * acc + (1 - a) * x[i]
        y[i] = acc
    z = np.empty_like(x)
    acc = y[-1]
    for i in range(x.size - 1, -1, -1):
        acc = a * acc + (1 - a) * y[i]
        z[i] = acc
    return z


def windowed_spectra(x, nfft):
    """The same frame under Hann, Hamming, Blackman and Bartlett windows, with each window's
    coherent gain and equivalent noise bandwidth."""
    out = []
    for w in (np.hanning(nfft), np.hamming(nfft), np.blackman(nfft), np.bartlett(nfft)):
        spec = np.abs(np.fft.rfft(x[:nfft] * w)) / w.sum()
        enbw = nfft * np.sum(w**2) / np.sum(w) ** 2
        out.append((np.argmax(spec), spec.max(), enbw))
    return out


# ---------------------------------------------------------------------------- geometry
def bresenham_raster(x0, y0, x1, y1, size):
    """Bresenham's line into a grid made in the function, in a ``while`` on the traced
    endpoint."""
    grid = np.zeros((size, size), dtype=np.uint8)
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    x, y = x0, y0
    n = 0
    while True:
        grid[y, x] = 1
        n += 1
        if x == x1 and y == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x += sx
        if e2 <= dx:
            err += dx
            y += sy
    return grid, n


def jarvis_march(pts):
    """Gift wrapping: from the leftmost point, the most clockwise next point, until the walk
    comes back."""
    n = pts.shape[0]
    hull = np.full(n + 1, -1)
    start = np.argmin(pts[:, 0])
    p = start
    count = 0
    while True:
        hull[count] = p
        count += 1
        q = (p + 1) % n
        for i in range(n):
            cross = (pts[q, 0] - pts[p, 0]) * (pts[i, 1] - pts[p, 1]) - (pts[q, 1] - pts[p, 1]) * (
                pts[i, 0] - pts[p, 0])
            if cross < 0:
                q = i
        p = q
        if p == start or count > n:
            break
    return hull, count


def douglas_peucker(pts, eps):
    """Line simplification with an explicit stack of index ranges instead of recursion."""
    n = pts.shape[0]
    keep = np.zeros(n, dtype=bool)
    keep[0] = keep[n - 1] = True
    stack = np.zeros((n, 2), dtype=np.int64)
    stack[0] = (0, n - 1)
    top = 1
    while top > 0:
        top -= 1
        i, j = stack[top, 0], stack[top, 1]
        a, b = pts[i], pts[j]
        seg = b - a
        dmax, imax = 0.0, i
        for k in range(i + 1, j):
            d = abs(seg[0] * (pts[k, 1] - a[1]) - seg[1] * (pts[k, 0] - a[0])) / np.hypot(seg[0], seg[1])
            if d > dmax:
                dmax, imax = d, k
        if dmax > eps:
            keep[imax] = True
            stack[top] = (i, imax)
            stack[top + 1] = (imax, j)
            top += 2
    return keep


def moller_trumbore(orig, dirs, v0, v1, v2):
    """Rays (n x 3) against one triangle: hit flags, distances and barycentric coordinates."""
    e1, e2 = v1 - v0, v2 - v0
    p = np.cross(dirs, e2)
    det = p @ e1
    inv = 1.0 / det
    s = orig - v0
    u = np.sum(s * p, axis=1) * inv
    q = np.cross(s, e1)
    v = np.sum(dirs * q, axis=1) * inv
    t = (q @ e2) * inv
    hit = (np.abs(det) > 1e-12) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0)
    return hit, np.where(hit, t, np.inf), np.stack([1 - u - v, u, v], axis=1)


def de_casteljau(ctrl, ts):
    """Bezier points by repeated interpolation of a local copy, in place, per parameter."""
    n = ctrl.shape[0]
    out = np.zeros((ts.size, ctrl.shape[1]))
    for k in range(ts.size):
        t = ts[k]
        b = ctrl.copy()
        for r in range(1, n):
            for i in range(n - r):
                b[i] = (1 - t) * b[i] + t * b[i + 1]
        out[k] = b[0]
    return out


def cox_de_boor(knots, degree, x):
    """B-spline basis functions of every degree up to ``degree``, each row from the one below."""
    m = knots.size - 1
    N = np.zeros((m, x.size))
    for i in range(m):
        N[i] = np.where((knots[i] <= x) & (x < knots[i + 1]), 1.0, 0.0)
    for p in range(1, degree + 1):
        for i in range(m - p):
            left = knots[i + p] - knots[i]
            right = knots[i + p + 1] - knots[i + 1]
            a = (x - knots[i]) / left * N[i] if left > 0 else np.zeros_like(x)
            b = (knots[i + p + 1] - x) / right * N[i + 1] if right > 0 else np.zeros_like(x)
            N[i] = a + b
    return N[: m - degree]


def grid_lookup_math_floor(field, px, py, h):
    """Bilinear reads of a gridded field at particles, each cell by ``math.floor`` of the
    position, one particle a step."""
    out = np.zeros(px.size)
    for k in range(px.size):
        i = math.floor(py[k] / h)
        j = math.floor(px[k] / h)
        ty, tx = py[k] / h - i, px[k] / h - j
        out[k] = ((1 - ty) * ((1 - tx) * field[i, j] + tx * field[i, j + 1])
                  + ty * ((1 - tx) * field[i + 1, j] + tx * field[i + 1, j + 1]))
    return out, math.ceil(px.max() / h) - math.trunc(px.min() / h)


def arc_length_resample(pts, n):
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    target = np.linspace(0, s[-1], n)
    return np.stack([np.interp(target, s, pts[:, 0]), np.interp(target, s, pts[:, 1])], axis=1), s[-1]


def winding_numbers(poly, q):
    """Dan Sunday's winding number of each query point: upward and downward crossings."""
    wn = np.zeros(q.shape[0], dtype=np.int64)
    n = poly.shape[0]
    for i in range(n):
        a = poly[i]
        b = poly[(i + 1) % n]
        is_left = (b[0] - a[0]) * (q[:, 1] - a[1]) - (q[:, 0] - a[0]) * (b[1] - a[1])
        up = (a[1] <= q[:, 1]) & (b[1] > q[:, 1]) & (is_left > 0)
        down = (a[1] > q[:, 1]) & (b[1] <= q[:, 1]) & (is_left < 0)
        wn += up.astype(np.int64) - down.astype(np.int64)
    return wn


# ---------------------------------------------------------------------------- graphs
def bellman_ford(src, dst, w, n, source):
    """Edge-list relaxation until nothing changes; a negative cycle shows as a change in the
    n-th pass."""
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    changed = True
    passes = 0
    while changed and passes < n:
        changed = False
        for e in range(src.size):
            cand = dist[src[e]] + w[e]
            if cand < dist[dst[e]]:
                dist[dst[e]] = cand
                changed = True
        passes += 1
    return dist, passes, changed


def kruskal_union_find(src, dst, w, n):
    """Edges by weight (argsort), a union-find with path halving in ``while`` loops."""
    parent = np.arange(n)
    order = np.argsort(w, kind="stable")
    total = 0.0
    taken = np.zeros(src.size, dtype=bool)
    for e in order:
        a, b = src[e], dst[e]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
            total += w[e]
            taken[e] = True
    return total, taken


def prim_dense(W):
    n = W.shape[0]
    in_tree = np.zeros(n, dtype=bool)
    key = np.full(n, np.inf)
    parent = np.full(n, -1)
    key[0] = 0.0
    for _ in range(n):
        u = np.argmin(np.where(in_tree, np.inf, key))
        in_tree[u] = True
        better = ~in_tree & (W[u] < key)
        key = np.where(better, W[u], key)
        parent = np.where(better, u, parent)
    return key.sum(), parent


def hits(A, iters):
    hub = np.ones(A.shape[0])
    auth = np.ones(A.shape[0])
    for _ in range(iters):
        auth = A.T @ hub
        auth /= np.linalg.norm(auth)
        hub = A @ auth
        hub /= np.linalg.norm(hub)
    return hub, auth


def greedy_coloring(adj):
    """Welsh-Powell: vertices by falling degree, each the smallest colour its neighbours lack."""
    n = adj.shape[0]
    order = np.argsort(-adj.sum(axis=1), kind="stable")
    colour = np.full(n, -1)
    for v in order:
        used = np.zeros(n + 1, dtype=bool)
        for u in range(n):
            if adj[v, u] and colour[u] >= 0:
                used[colour[u]] = True
        c = 0
        while used[c]:
            c += 1
        colour[v] = c
    return colour, colour.max() + 1


def transitive_closure(R):
    """Warshall's algorithm on booleans, one pivot a step, a broadcast OR."""
    C = R.copy()
    for k in range(C.shape[0]):
        C = C | (C[:, k:k + 1] & C[k:k + 1, :])
    return C, C.sum(axis=1)


def katz_centrality(A, alpha):
    n = A.shape[0]
    x = np.linalg.solve(np.eye(n) - alpha * A.T, np.ones(n))
    return x / np.linalg.norm(x)


# ---------------------------------------------------------------------------- data wrangling
def _group_stats_by_unique(keys, values):
    """The user's groupby: ``unique`` with inverse and counts, sums by ``bincount``, the
    variance by a second pass (as many groups as the data holds: a selection of their count)."""
    u, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    sums = np.bincount(inv, weights=values, minlength=u.size)
    means = sums / counts
    sq = np.bincount(inv, weights=(values - means[inv]) ** 2, minlength=u.size)
    return u, counts, means, sq / counts


def group_stats_by_sorting(keys, values):
    """The same groupby as the refusal advises: sort, mark first occurrences, number the groups,
    one slot per row (unused slots count 0 and hold NaN)."""
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    first = np.concatenate([[True], sk[1:] != sk[:-1]])
    inv = np.empty(keys.size, dtype=np.int64)
    inv[order] = np.cumsum(first) - 1
    counts = np.bincount(inv, minlength=keys.size)
    sums = np.bincount(inv, weights=values, minlength=keys.size)
    means = sums / counts
    sq = np.bincount(inv, weights=(values - means[inv]) ** 2, minlength=keys.size)
    labels = np.full(keys.size, -1, keys.dtype)
    labels[inv] = keys  # each group's key in its slot
    return inv, counts, means, sq / counts, labels


def cumcount_per_group(keys, n_groups):
    """Each row's number within its group (pandas' cumcount) in a loop over a count table."""
    seen = np.zeros(n_groups, dtype=np.int64)
    out = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        out[i] = seen[keys[i]]
        seen[keys[i]] += 1
    return out, seen


def merge_asof(t_left, t_right, v_right):
    """Each left time takes the last right value at or before it (NaN before the first)."""
    idx = np.searchsorted(t_right, t_left, side="right") - 1
    return np.where(idx >= 0, v_right[np.maximum(idx, 0)], np.nan), idx


def merge_intervals(starts, ends):
    """Overlapping intervals merged: sort by start, a running maximum of the ends, a new group
    where a start passes it."""
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.concatenate([[True], s[1:] > reach[:-1]])
    gid = np.cumsum(new) - 1
    out_s = np.full(s.size, np.inf)  # one slot per interval: the groups' count is data
    out_e = np.full(s.size, -np.inf)
    np.minimum.at(out_s, gid, s)
    np.maximum.at(out_e, gid, e)
    return out_s, out_e, gid[-1] + 1


def nan_rolling_mean(x, w):
    """A rolling mean that skips NaN: cumulative sums of values and of valid counts."""
    ok = ~np.isnan(x)
    cs = np.concatenate([[0.0], np.cumsum(np.where(ok, x, 0.0))])
    cn = np.concatenate([[0], np.cumsum(ok)])
    s = cs[w:] - cs[:-w]
    c = cn[w:] - cn[:-w]
    return np.where(c > 0, s / np.maximum(c, 1), np.nan), c


def scatter_updates(idx, vals, n):
    """The unbuffered ufunc.at family into arrays made in the function."""
    acc = np.zeros(n)
    np.add.at(acc, idx, vals)
    prod = np.ones(n)
    np.multiply.at(prod, idx, vals)
    dec = np.full(n, 10.0)
    np.subtract.at(dec, idx, vals)
    mx = np.full(n, -np.inf)
    np.maximum.at(mx, idx, vals)
    return acc, prod, dec, mx


# ---------------------------------------------------------------------------- linear algebra
def thomas_tridiagonal(a, b, c, d):
    """The tridiagonal solve with a forward sweep and back substitution, element by element."""
    n = d.size
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def natural_cubic_spline(x, y, xq):
    """Second derivatives by the tridiagonal system (a Thomas solve), then each query's interval
    by searchsorted."""
    n = x.size
    h = np.diff(x)
    rhs = 6 * (np.diff(y[1:]) / h[1:] - np.diff(y[:-1]) / h[:-1])
    diag = 2 * (h[:-1] + h[1:])
    m = n - 2
    cp = np.zeros(m)
    dp = np.zeros(m)
    for i in range(m):
        denom = diag[i] - (h[i] * cp[i - 1] if i > 0 else 0.0)
        cp[i] = h[i + 1] / denom
        dp[i] = (rhs[i] - (h[i] * dp[i - 1] if i > 0 else 0.0)) / denom
    M = np.zeros(n)
    for i in range(m - 1, -1, -1):
        M[i + 1] = dp[i] - (cp[i] * M[i + 2] if i < m - 1 else 0.0)
    k = np.clip(np.searchsorted(x, xq) - 1, 0, n - 2)
    t0, t1 = x[k + 1] - xq, xq - x[k]
    hk = h[k]
    return (M[k] * t0**3 + M[k + 1] * t1**3) / (6 * hk) + (y[k] / hk - M[k] * hk / 6) * t0 + (
        y[k + 1] / hk - M[k + 1] * hk / 6) * t1


def cholesky_by_hand(A):
    n = A.shape[0]
    L = np.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = A[i, j] - L[i, :j] @ L[j, :j]
            L[i, j] = np.sqrt(s) if i == j else s / L[j, j]
    return L


def jacobi_eigenvalue(A, tol):
    """Cyclic Jacobi rotations on a symmetric matrix until the off-diagonal norm is below tol."""
    A = A.copy()
    n = A.shape[0]
    V = np.eye(n)
    sweeps = 0
    while np.sqrt(np.sum(np.tril(A, -1) ** 2)) > tol and sweeps < 30:
        for p in range(n - 1):
            for q in range(p + 1, n):
                if A[p, q] != 0.0:
                    theta = (A[q, q] - A[p, p]) / (2 * A[p, q])
                    t = np.sign(theta) / (abs(theta) + np.sqrt(theta * theta + 1)) if theta != 0 else 1.0
                    c = 1 / np.sqrt(t * t + 1)
                    s = t * c
                    J = np.eye(n)
                    J[p, p] = J[q, q] = c
                    J[p, q] = s
                    J[q, p] = -s
                    A = J.T @ A @ J
                    V = V @ J
        sweeps += 1
    return np.sort(np.diag(A)), sweeps


def gauss_jordan_inverse(A):
    """[A | I] reduced with partial pivoting; rows swapped by fancy indexing."""
    n = A.shape[0]
    M = np.hstack([A, np.eye(n)])
    for col in range(n):
        piv = col + np.argmax(np.abs(M[col:, col]))
        M[[col, piv]] = M[[piv, col]]
        M[col] = M[col] / M[col, col]
        for r in range(n):
            if r != col:
                M[r] = M[r] - M[r, col] * M[col]
    return M[:, n:]


def modified_gram_schmidt(A):
    m, n = A.shape
    Q = A.astype(np.float64).copy()
    R = np.zeros((n, n))
    for j in range(n):
        R[j, j] = np.linalg.norm(Q[:, j])
        Q[:, j] = Q[:, j] / R[j, j]
        for k in range(j + 1, n):
            R[j, k] = Q[:, j] @ Q[:, k]
            Q[:, k] = Q[:, k] - R[j, k] * Q[:, j]
    return Q, R


def golden_section(a, b, c0, c1, c2, c3, tol):
    """The minimum of a quartic on [a, b] by golden-section search in a ``while`` loop."""
    g = (np.sqrt(5.0) - 1) / 2
    f = lambda x: ((c3 * x + c2) * x + c1) * x * x + c0 * x  # noqa: E731
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = f(x1), f(x2)
    n = 0
    while b - a > tol:
        if f1 < f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = f(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = f(x2)
        n += 1
    return 0.5 * (a + b), n


def armijo_gradient_descent(A, b, x0, steps):
    """Gradient descent on a convex quadratic, each step's length by backtracking in a nested
    ``while``."""
    x = x0.copy()
    f = lambda v: 0.5 * v @ A @ v - b @ v  # noqa: E731
    halvings = 0
    for _ in range(steps):
        g = A @ x - b
        t = 1.0
        while f(x - t * g) > f(x) - 0.5 * t * (g @ g):
            t *= 0.5
            halvings += 1
        x = x - t * g
    return x, halvings


def durand_kerner(coeffs, iters):
    """All roots of a monic polynomial at once, complex arrays built in the function."""
    n = coeffs.size - 1
    z = (0.4 + 0.9j) ** np.arange(n)
    for _ in range(iters):
        for i in range(n):
            num = np.polyval(coeffs, z[i])
            den = 1.0 + 0j
            for j in range(n):
                if j != i:
                    den = den * (z[i] - z[j])
            z[i] = z[i] - num / den
    return z[np.argsort(z.real + 1e-3 * z.imag)]


def qr_algorithm_shifted(A, iters):
    """Eigenvalues of a symmetric matrix by the QR algorithm with a Rayleigh shift."""
    n = A.shape[0]
    T = A.copy()
    for _ in range(iters):
        mu = T[n - 1, n - 1]
        Q, R = np.linalg.qr(T - mu * np.eye(n))
        T = R @ Q + mu * np.eye(n)
    return np.sort(np.diag(T)), np.abs(np.tril(T, -1)).max()


def continued_fraction_tan(x, terms):
    """tan by Lambert's continued fraction, evaluated from the last term backwards."""
    acc = np.zeros_like(x)
    for k in range(terms, 0, -1):
        acc = x * x / ((2 * k + 1) - acc)
    return x / (1 - acc)


# ---------------------------------------------------------------------------- physics
def fdtd_1d(steps, n, src):
    """Yee's staggered grid: E and H updated in place by slices, a soft source at ``src``."""
    E = np.zeros(n)
    H = np.zeros(n - 1)
    for t in range(steps):
        H += 0.5 * (E[1:] - E[:-1])
        E[1:-1] += 0.5 * (H[1:] - H[:-1])
        E[src] += np.exp(-((t - 30) / 8.0) ** 2)
    return E, np.sum(E**2) + np.sum(H**2)


def heat_ping_pong(u0, alpha, steps):
    """Explicit heat steps between two buffers swapped by name, the step count traced."""
    u = u0.copy()
    un = np.zeros_like(u0)
    un[0], un[-1] = u0[0], u0[-1]
    for _ in range(steps):
        un[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        u, un = un, u
    return u


def wave_three_levels(u0, c2, steps):
    """The leapfrog wave equation on three rotating time levels, each written in place."""
    prev = u0.copy()
    cur = u0.copy()
    nxt = np.zeros_like(u0)
    for _ in range(steps):
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + c2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev, cur, nxt = cur, nxt, prev
    return cur, prev


def lattice_boltzmann_d2q9(rho0, steps, tau):
    """A periodic D2Q9 BGK fluid: streaming by np.roll, arrays built inside."""
    cx = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
    cy = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
    w = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
    F = w[:, None, None] * rho0[None, :, :]
    for _ in range(steps):
        for i in range(9):
            F[i] = np.roll(np.roll(F[i], cx[i], axis=1), cy[i], axis=0)
        rho = F.sum(axis=0)
        ux = np.tensordot(cx, F, axes=1) / rho
        uy = np.tensordot(cy, F, axes=1) / rho
        cu = 3 * (cx[:, None, None] * ux + cy[:, None, None] * uy)
        feq = w[:, None, None] * rho * (1 + cu + 0.5 * cu**2 - 1.5 * (ux**2 + uy**2))
        F = F - (F - feq) / tau
    return rho, ux, uy


def bateman_chain(N0, lam, t):
    """A decay chain A -> B -> C -> ... by Bateman's formula, products by index loops."""
    n = lam.size
    out = np.zeros((n, t.size))
    for k in range(n):
        total = np.zeros_like(t)
        for i in range(k + 1):
            den = 1.0
            for j in range(k + 1):
                if j != i:
                    den *= lam[j] - lam[i]
            total += np.exp(-lam[i] * t) / den
        out[k] = N0 * np.prod(lam[:k]) * total
    return out


def brownian_msd(Z, dt, max_lag):
    """Mean squared displacement by lag from passed-in normal increments (2-d walkers)."""
    pos = np.cumsum(np.sqrt(2 * dt) * Z, axis=1)
    msd = np.zeros(max_lag)
    for lag in range(1, max_lag + 1):
        d = pos[:, lag:, :] - pos[:, :-lag, :]
        msd[lag - 1] = np.mean(np.sum(d * d, axis=2))
    lags = dt * np.arange(1, max_lag + 1)
    return msd, np.polyfit(lags, msd, 1)[0] / 4


def bouncing_ball(h0, e, g, dt):
    """A ball dropped and bouncing with restitution ``e`` until its bounces are too small: a
    ``while`` on the traced speed."""
    y, v, t = h0, 0.0, 0.0
    bounces = 0
    peak = h0
    while bounces < 50:
        v -= g * dt
        y += v * dt
        t += dt
        if y < 0:
            y = -y
            v = -e * v
            bounces += 1
            peak = v * v / (2 * g)
            if peak < 1e-3 * h0:
                break
    return t, bounces, peak


def stiffness_by_nested_index(k, n, loads):
    """A spring chain's stiffness written the C way, ``K[i][j]``, into an array made in the
    function, then its displacements."""
    K = np.zeros((n, n))
    for i in range(n):
        K[i][i] = k[i] + k[i + 1]
        if i + 1 < n:
            K[i][i + 1] = -k[i + 1]
            K[i + 1][i] = -k[i + 1]
    return K, np.linalg.solve(K, loads)


def spring_chain_modes(k, m, n):
    """Normal modes of n masses between walls: the stiffness matrix built with index
    arithmetic, eigenvalues by eigh."""
    K = np.zeros((n, n))
    for i in range(n):
        K[i, i] = 2 * k
        if i > 0:
            K[i, i - 1] = -k
        if i < n - 1:
            K[i, i + 1] = -k
    w2, modes = np.linalg.eigh(K / m)
    exact = 4 * k / m * np.sin(np.arange(1, n + 1) * np.pi / (2 * (n + 1))) ** 2
    return np.sqrt(w2), exact, np.abs(modes[:, 0])


# ---------------------------------------------------------------------------- integers
def prime_factors(n):
    """Trial division in ``while`` loops on a traced integer."""
    factors = np.zeros(64, dtype=np.int64)
    count = 0
    p = 2
    while p * p <= n:
        while n % p == 0:
            factors[count] = p
            count += 1
            n //= p
        p += 1
    if n > 1:
        factors[count] = n
        count += 1
    return factors[:8], count


def peaks_into_fixed_array(x):
    """Local maxima collected as the refusal of ``list.append`` advises: a fixed-size array and
    a count."""
    out = np.full(x.size, -1)
    n = 0
    for i in range(1, x.size - 1):
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            out[n] = i
            n += 1
    return out, n


def binomial_by_out_slices(p, steps, start):
    """A distribution of successes grown one trial a step in one array, written through
    ``out=`` parts that overlap their operands (NumPy buffers them); the step count traced."""
    row = start.copy()
    for _ in range(steps):
        np.add((1 - p) * row[1:], p * row[:-1], out=row[1:])
        np.multiply(row[:1], 1 - p, out=row[:1])
    return row, row.sum()


def digit_sums(values):
    """Digits of each number peeled off in a ``while`` on the largest."""
    v = values.copy()
    total = np.zeros_like(v)
    digits = np.zeros_like(v)
    while np.any(v > 0):
        total += v % 10
        digits += v > 0
        v //= 10
    return total, digits


def insertion_sort(x):
    """Insertion sort with the ``while j >= 0 and a[j] > key`` test that must short-circuit."""
    a = x.copy()
    for i in range(1, a.size):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def binary_search_loop(sorted_arr, queries):
    out = np.zeros(queries.size, dtype=np.int64)
    for k in range(queries.size):
        lo, hi = 0, sorted_arr.size
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_arr[mid] < queries[k]:
                lo = mid + 1
            else:
                hi = mid
        out[k] = lo
    return out


def bit_packing(flags):
    packed = np.packbits(flags, axis=-1)
    return packed, np.unpackbits(packed, axis=-1, count=flags.shape[-1]), np.bitwise_count(packed).sum()


# ---------------------------------------------------------------------------- NumPy's docs
def docs_compress(a):
    """numpy.compress's examples: conditions written in the code pick static positions."""
    return (np.compress([0, 1], a, axis=0), np.compress([False, True, True], a, axis=0),
            np.compress([False, True], a, axis=1), np.compress([False, True], a), a.compress([1, 0, 1]))


def docs_cbrt_float_power(x, p):
    return np.cbrt(x), np.float_power(np.abs(x), p), np.rad2deg(np.arctan2(x, 1.0)), np.positive(x)


def docs_vecdot_matvec(A, v, Z):
    return np.vecdot(A, v), np.matvec(A, v), np.vecmat(A[:, 0], A), np.vecdot(Z, Z)


def docs_fromfunction(n):
    hilbert = np.fromfunction(lambda i, j: 1.0 / (i + j + 1), (n, n))
    return hilbert, np.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)


def docs_cumulative(x):
    return (np.cumulative_sum(x, include_initial=True), np.cumulative_prod(x),
            np.multiply.accumulate(x), np.logical_and.reduce(x > -3))


def docs_array_api_names(A, v):
    return (np.matrix_transpose(A), np.permute_dims(A, (1, 0)), np.linalg.vector_norm(v, ord=3),
            np.linalg.matrix_norm(A), np.linalg.svdvals(A), np.pow(v, 2), np.atan2(v, 1.0),
            np.linalg.cross(v[:3], v[1:4]), np.linalg.outer(v, v), np.astype(v, np.float32))


def docs_tensorsolve(a, b):
    return np.linalg.tensorsolve(a, b)


def docs_linalg_eig(A):
    w, V = np.linalg.eig(A)
    order = np.argsort(w.real)
    return w[order], np.abs(A @ V - V * w).max() < 1e-10


# ---------------------------------------------------------------------------- inputs
SPD = normal(5, 5)
SPD = SPD @ SPD.T + 5 * np.eye(5)
GRAPH_SRC = np.array([0, 0, 1, 1, 2, 3, 3, 4, 5, 2])
GRAPH_DST = np.array([1, 2, 2, 3, 4, 4, 5, 5, 0, 5])
GRAPH_W = np.array([4.0, 1.0, 2.0, 5.0, 3.0, 1.0, 6.0, 2.0, 7.0, 8.0])
DENSE_W = np.full((6, 6), np.inf)
DENSE_W[GRAPH_SRC, GRAPH_DST] = GRAPH_W
DENSE_W[GRAPH_DST, GRAPH_SRC] = GRAPH_W
ADJ = np.isfinite(DENSE_W)
STAR = np.array([[0.0, 0.0], [2.0, 0.5], [3.0, 2.5], [1.5, 3.5], [-0.5, 2.0], [1.0, 1.0], [2.0, 2.0],
                 [0.5, 1.5]])
POLY = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 1.0], [0.0, 4.0]])
ZIGZAG = np.stack([np.linspace(0, 10, 21), np.sin(np.linspace(0, 10, 21)) + 0.05 * normal(21)], axis=1)
RETURNS = 0.01 * normal(60)
CLOSE = 100 + np.cumsum(normal(40))
KNOTS_X = np.array([0.0, 1.0, 2.5, 3.0, 4.5, 6.0])
KNOTS = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 3.0])

PROGRAMS = {
    "implied_vol_bisection": (implied_vol_bisection, (), TIGHT * 1e4,
                              [(np.array([10.45, 5.57, 2.0, 14.0]), 100.0,
                                np.array([100.0, 110.0, 120.0, 90.0]),
                                1.0, 0.05)]),
    "garch11_loglik": (garch11_loglik, (), TIGHT * 4, [(RETURNS, 1e-6, 0.08, 0.9)]),
    "rsi_wilder": (rsi_wilder, ("period",), TIGHT * 4, [(CLOSE, 14)]),
    "heston_paths": (heston_paths, (), TIGHT * 16,
                     [(100.0, 0.04, 2.0, 0.04, 0.5, -0.7, 0.01, 1.0, normal(32, 12), normal(32, 12))]),
    "first_passage": (first_passage, (), EXACT, [(CLOSE, 100.7), (CLOSE, 1e9)]),
    "vwap_and_ohlc": (vwap_and_ohlc, ("bar",), TIGHT * 4,
                      [(CLOSE, RNG.integers(1, 50, 40).astype(float), 6)]),
    "binomial_tree_european": (binomial_tree_european, ("n",), TIGHT * 16,
                               [(100.0, 95.0, 0.5, 0.03, 0.2, 12)]),
    "lms_filter": (lms_filter, ("taps",), TIGHT * 16,
                   [(normal(40), np.convolve(normal(40), [0.5, -0.3, 0.1])[:40], 3, 0.05)]),
    "kalman_constant_velocity": (kalman_constant_velocity, (), TIGHT * 16,
                                 [(np.arange(15.0) * 0.7 + normal(15), 1.0, 0.01, 1.0)]),
    "levinson_durbin": (levinson_durbin, ("order",), TIGHT * 16,
                        [(np.correlate(normal(50), normal(50), "full")[49:55]
                          + np.array([60.0, 0, 0, 0, 0, 0]), 4)]),
    "schroeder_comb": (schroeder_comb, ("delay",), TIGHT,
                       [(np.eye(1, 30)[0], 7, 0.7), (normal(20), 3, -0.5)]),
    "delta_sigma": (delta_sigma, (), TIGHT, [(0.5 * np.sin(np.arange(40) * 0.2),)]),
    "schmitt_trigger": (schmitt_trigger, (), EXACT,
                        [(np.sin(np.arange(50) * 0.3) + 0.3 * normal(50), -0.5, 0.5)]),
    "filtfilt_one_pole": (filtfilt_one_pole, (), TIGHT, [(normal(25), 0.8)]),
    "windowed_spectra": (windowed_spectra, ("nfft",), TIGHT * 16,
                         [(np.cos(2 * np.pi * 5.3 * np.arange(64) / 32) + 0.1 * normal(64), 32)]),
    "bresenham_raster": (bresenham_raster, ("size",), EXACT,
                         [(1, 2, 9, 5, 10), (8, 8, 0, 3, 10), (4, 4, 4, 4, 6)]),
    "jarvis_march": (jarvis_march, (), EXACT, [(STAR,)]),
    "douglas_peucker": (douglas_peucker, (), EXACT, [(ZIGZAG, 0.2)]),
    "moller_trumbore": (moller_trumbore, (), TIGHT * 4,
                        [(np.array([[0.2, 0.2, -1.0], [0.9, 0.9, -1.0], [0.1, 0.3, 2.0], [0.3, 0.3, -1.0]]),
                          np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
                          np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))]),
    "de_casteljau": (de_casteljau, (), TIGHT, [(np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 3.0], [4.0, 0.0]]),
                                                 np.linspace(0, 1, 5))]),
    "cox_de_boor": (cox_de_boor, ("degree",), TIGHT, [(KNOTS, 2, np.linspace(0, 2.99, 7))]),
    "grid_lookup_math_floor": (grid_lookup_math_floor, (), TIGHT,
                               [(np.add.outer(np.arange(6.0) ** 2, np.arange(7.0)), RNG.random(9) * 2.9,
                                 RNG.random(9) * 2.4, 0.5)]),
    "arc_length_resample": (arc_length_resample, ("n",), TIGHT * 4, [(ZIGZAG, 9)]),
    "winding_numbers": (winding_numbers, (), EXACT,
                        [(POLY, np.array([[1.0, 1.0], [2.0, 3.0], [3.5, 3.5], [5.0, 1.0], [2.0, 0.5]]))]),
    "bellman_ford": (bellman_ford, ("n",), EXACT, [(GRAPH_SRC, GRAPH_DST, GRAPH_W, 6, 0),
                                                   (GRAPH_SRC, GRAPH_DST, GRAPH_W - 5.0, 6, 0)]),
    "kruskal_union_find": (kruskal_union_find, ("n",), EXACT, [(GRAPH_SRC, GRAPH_DST, GRAPH_W, 6)]),
    "prim_dense": (prim_dense, (), EXACT, [(DENSE_W,)]),
    "hits": (hits, (), TIGHT * 4, [(ADJ.astype(float) * (RNG.random((6, 6)) < 0.7), 20)]),
    "greedy_coloring": (greedy_coloring, (), EXACT, [(ADJ,)]),
    "transitive_closure": (transitive_closure, (), EXACT,
                           [(np.eye(7, k=1, dtype=bool) | np.eye(7, k=-3, dtype=bool),)]),
    "katz_centrality": (katz_centrality, (), TIGHT * 16, [(ADJ.astype(float), 0.1)]),
    "group_stats_by_sorting": (group_stats_by_sorting, (), TIGHT * 4,
                              [(np.array([7, 3, 7, 1, 3, 3, 9, 1, 7]), normal(9))]),
    "cumcount_per_group": (cumcount_per_group, ("n_groups",), EXACT, [(np.array([2, 0, 2, 2, 1, 0, 4]), 5)]),
    "merge_asof": (merge_asof, (), EXACT, [(np.array([0.5, 1.0, 2.5, 7.0, -1.0]), np.array([1.0, 2.0, 3.0]),
                                             np.array([10.0, 20.0, 30.0]))]),
    "merge_intervals": (merge_intervals, (), EXACT, [(np.array([5.0, 1.0, 2.0, 8.0, 9.5]),
                                                       np.array([6.0, 3.0, 4.0, 10.0, 9.7]))]),
    "nan_rolling_mean": (nan_rolling_mean, ("w",), TIGHT * 4,
                         [(np.where(RNG.random(20) < 0.3, np.nan, normal(20)), 4)]),
    "scatter_updates": (scatter_updates, ("n",), TIGHT, [(np.array([0, 2, 2, 4, 0, 2]), normal(6), 5)]),
    "thomas_tridiagonal": (thomas_tridiagonal, (), TIGHT * 4,
                           [(normal(6), 4 + np.abs(normal(6)), normal(6), normal(6))]),
    "natural_cubic_spline": (natural_cubic_spline, (), TIGHT * 16,
                             [(KNOTS_X, np.sin(KNOTS_X),
                               np.linspace(-0.5, 6.5, 11))]),
    "cholesky_by_hand": (cholesky_by_hand, (), TIGHT * 4, [(SPD,)]),
    "jacobi_eigenvalue": (jacobi_eigenvalue, (), TIGHT * 64, [(SPD, 1e-12)]),
    "gauss_jordan_inverse": (gauss_jordan_inverse, (), TIGHT * 16, [(normal(4, 4),)]),
    "modified_gram_schmidt": (modified_gram_schmidt, (), TIGHT * 4,
                              [(normal(6, 4),), (np.arange(12).reshape(4, 3) ** 2,)]),
    "golden_section": (golden_section, (), TIGHT, [(-2.0, 2.0, 0.5, -1.0, 0.0, 1.0, 1e-8)]),
    "armijo_gradient_descent": (armijo_gradient_descent, ("steps",), TIGHT * 16,
                                [(SPD, normal(5), normal(5), 10)]),
    "durand_kerner": (durand_kerner, ("iters",), TIGHT * 64, [(np.array([1.0, -3.0, 0.0, 5.0, -2.0]), 40)]),
    "qr_algorithm_shifted": (qr_algorithm_shifted, ("iters",), TIGHT * 256, [(SPD, 12)]),
    "continued_fraction_tan": (continued_fraction_tan, ("terms",), TIGHT, [(np.linspace(-1.2, 1.2, 7), 12)]),
    "fdtd_1d": (fdtd_1d, ("steps", "n"), TIGHT * 4, [(120, 60, 20)]),
    "heat_ping_pong": (heat_ping_pong, (), TIGHT * 4, [(np.exp(-((np.arange(16) - 7.5) ** 2) / 6), 0.3, 40)]),
    "wave_three_levels": (wave_three_levels, (), TIGHT * 4,
                          [(np.exp(-((np.arange(20) - 9.5) ** 2) / 4) * np.hanning(20), 0.5, 25)]),
    "lattice_boltzmann_d2q9": (lattice_boltzmann_d2q9, ("steps",), TIGHT * 16,
                               [(1 + 0.05 * np.exp(-((np.arange(8)[:, None] - 3.5) ** 2
                                                    + (np.arange(10) - 4.5) ** 2) / 4), 5, 0.8)]),
    "bateman_chain": (bateman_chain, (), TIGHT * 16,
                      [(1000.0, np.array([0.5, 0.2, 0.05, 0.01]), np.linspace(0, 20, 6))]),
    "brownian_msd": (brownian_msd, ("max_lag",), TIGHT * 16, [(normal(8, 30, 2), 0.01, 6)]),
    "bouncing_ball": (bouncing_ball, (), TIGHT * 16, [(10.0, 0.8, 9.81, 1e-3), (1.0, 0.5, 9.81, 1e-3)]),
    "stiffness_by_nested_index": (stiffness_by_nested_index, ("n",), TIGHT * 16,
                                  [(np.array([3.0, 1.0, 2.0, 5.0, 4.0]), 4,
                                    np.array([0.0, 1.0, -1.0, 2.0]))]),
    "spring_chain_modes": (spring_chain_modes, ("n",), TIGHT * 16, [(3.0, 0.5, 6)]),
    "prime_factors": (prime_factors, (), EXACT, [(360,), (97,), (2 * 3 * 5 * 7 * 11 * 13 * 17,), (1,)]),
    "peaks_into_fixed_array": (peaks_into_fixed_array, (), EXACT,
                               [(np.sin(np.arange(30) * 0.9) + 0.2 * normal(30),)]),
    "binomial_by_out_slices": (binomial_by_out_slices, (), TIGHT, [(0.3, 12, np.eye(1, 16)[0])]),
    "digit_sums": (digit_sums, (), EXACT, [(np.array([0, 7, 1234, 99999, 1000000007]),)]),
    "insertion_sort": (insertion_sort, (), EXACT, [(normal(9),), (np.array([3, 1, 2, 1, -5]),)]),
    "binary_search_loop": (binary_search_loop, (), EXACT,
                           [(np.array([1.0, 2.0, 2.0, 4.0, 8.0]), np.array([0.0, 2.0, 3.0, 8.0, 9.0]))]),
    "bit_packing": (bit_packing, (), EXACT, [(RNG.random((3, 13)) < 0.5,)]),
    "docs_compress": (docs_compress, (), EXACT, [(np.array([[1, 2], [3, 4], [5, 6]]),)]),
    "docs_cbrt_float_power": (docs_cbrt_float_power, (), TIGHT,
                              [(np.array([-8.0, 27.0, 0.0, -0.0, np.inf, 2.0]), 1.5)]),
    "docs_vecdot_matvec": (docs_vecdot_matvec, (), TIGHT,
                           [(normal(3, 4), normal(4), normal(2, 3) + 1j * normal(2, 3))]),
    "docs_fromfunction": (docs_fromfunction, ("n",), EXACT, [(4,)]),
    "docs_cumulative": (docs_cumulative, (), EXACT, [(np.array([1.0, -2.0, 3.5, 0.5]),)]),
    "docs_array_api_names": (docs_array_api_names, (), TIGHT * 4, [(normal(3, 4), normal(5))]),
    "docs_tensorsolve": (docs_tensorsolve, (), TIGHT * 64, [(normal(6, 2, 3), normal(6))]),
    "docs_linalg_eig": (docs_linalg_eig, (), TIGHT * 256, [(normal(4, 4),)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


def _branch_local_rotation(A, p, q):
    """A matrix made and written inside a traced branch, never read after it (Jacobi's J)."""
    V = np.eye(3)
    if A[p, q] != 0.0:
        J = np.eye(3)
        J[p, q] = A[p, q]
        J[q, p] = -A[p, q]
        V = V @ J
    return V


def _buffers_traded_in_place(a0, b0, steps):
    """Two carried arrays each written in place, then swapped by name."""
    a = a0.copy()
    b = b0.copy()
    for _ in range(steps):
        a[0] += 1.0
        b[1:] *= 2.0
        a, b = b, a
    return a, b


def _branch_calling_np_add(x, out):
    """A traced branch that calls ``np.add`` (an attribute named like ``set.add`` of a module)."""
    s = 0.0
    if x[0] > 0:
        s = np.add(x[1], 2.0)
        np.add(out[:1], 1.0, out=out[:1])
    return s, out


def _out_parts(x):
    """out= parts of local arrays outside loops: strided, overlapping, a row, a ufunc of one."""
    a = x.copy()
    np.multiply(a[::2], 3.0, out=a[::2])
    np.sqrt(a[1:3], out=a[1:3])
    np.subtract(a[1:], a[:-1], out=a[:-1])
    m = np.zeros((3, 4))
    np.add(m[1], x[:4], out=m[1])
    return a, m


def _out_part_of_another_dtype(x):
    a = np.zeros(4, dtype=np.int64)
    np.add(a[:2], x[:2], out=a[:2])
    return a


# The functions this round compiled, at their edges: (function, arguments, tolerance).
def _merge_by_fmin_at(gid, s):
    out = np.full(s.size, np.nan)
    np.fmin.at(out, gid, s)
    return out


EDGES = {
    # refused until session 53: u.size, a traced count, as bincount's minlength (refuse53); fmin.at
    # at traced indices, a compiled loop over the steps (recsys53)
    "np.unique with return_inverse and return_counts, bincount by the groups": (
        _group_stats_by_unique, (np.array([7, 3, 7, 1, 3]), normal(5)), EXACT,
    ),
    "np.fmin.at at traced indices, NaN first and last": (
        _merge_by_fmin_at, (np.array([0, 0, 1, 2, 2]), np.array([np.nan, 1.0, 2.0, 3.0, np.nan])), EXACT,
    ),
    "np.roll by traced shifts: negative, past the length, per axis, flattened, empty, int8 of 300": (
        lambda x, s, t: (np.roll(x, s, 1), np.roll(x, -s, 0), np.roll(x, s * 7), np.roll(x, (s, t), (0, 1)),
                         np.roll(x, (s, t), 1), np.roll(x[:, :0], s, 1), np.roll(x[0], t),
                         np.roll(np.arange(300) * x[1, 1], t * np.int8(20))),
        (np.arange(12.0).reshape(3, 4), 2, np.int8(-5)), EXACT,
    ),
    "packbits/unpackbits: bools and ints, axes, both bit orders, count past, short and negative": (
        lambda b, n: (np.packbits(b), np.packbits(b, axis=0), np.packbits(n, axis=1, bitorder="little"),
                      np.unpackbits(np.packbits(b, axis=1), axis=1, count=b.shape[1]),
                      np.unpackbits(n.astype(np.uint8), count=-3),
                      np.unpackbits(n.astype(np.uint8)[0], count=20),
                      np.unpackbits(n.astype(np.uint8), axis=0, bitorder="little"),
                      np.packbits(b[:0], axis=1)),
        (RNG.random((3, 11)) < 0.5, RNG.integers(-2, 300, (2, 9))), EXACT,
    ),
    "tensorsolve with axes, tensorinv of ind=1 and ind=2": (
        lambda a, b, c: (np.linalg.tensorsolve(np.moveaxis(a, 0, -1), b, axes=(0, 1)),
                         np.linalg.tensorinv(a, ind=1), np.linalg.tensorinv(c, ind=2)),
        (normal(6, 2, 3) + 3 * np.eye(6).reshape(6, 2, 3), normal(6), normal(2, 3, 3, 2)), TIGHT * 64,
    ),
    "compress with written conditions: shorter than the axis, flattened, all False": (
        lambda a: (np.compress([True], a, axis=1), np.compress([0, 0, 1, 1, 0, 1], a),
                   np.compress([False, False], a, axis=0)),
        (np.arange(6.0).reshape(2, 3),), EXACT,
    ),
    "carried arrays written in place and swapped: odd, even and zero traced counts": (
        lambda a, b, odd, even, zero: (
            _buffers_traded_in_place(a, b, odd), _buffers_traded_in_place(a, b, even),
            _buffers_traded_in_place(a, b, zero), heat_ping_pong(a, 0.25, odd)),
        (np.arange(4.0), -np.arange(4.0), 3, 4, 0), EXACT,
    ),
    "out= parts of arrays: strided, overlapping its operands, a row": (
        _out_parts, (np.array([4.0, -1.0, 9.0, np.inf, 0.0, -0.0, np.nan]),), TIGHT,
    ),
    "a traced branch calling np.add (a module's function, not a Python object's change)": (
        lambda x, o: (_branch_calling_np_add(x, o.copy()), _branch_calling_np_add(-x, o.copy())),
        (np.array([1.0, 3.0]), np.zeros(2)), EXACT,
    ),
    "an array made and written in a traced branch and not read after it, branch taken or not": (
        lambda A: (_branch_local_rotation(A, 0, 1), _branch_local_rotation(A, 1, 2)),
        (np.array([[1.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 3.0]]),), EXACT,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    check_edge(*EDGES[case], case)


def _groups_from_the_data(keys):
    return np.zeros(keys.max() + 1, dtype=np.int64)


def _peaks_by_list_append(x):
    peaks = []
    for i in range(1, x.size - 1):
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            peaks.append(i)
    return np.array(peaks)


# What jitcore refuses on purpose: (function, arguments, error, words the message must hold).
REFUSED = {
    # list.append in a branch of a traced if: compiled since session 47 (below)
    # compress with a traced condition: returned, compiled since dynlen46
    # (tests/test_data_dependent_length.py)
    "the set functions (union1d)": (
        lambda a, b: np.union1d(a, b), (np.array([5, 1]), np.array([3, 5])), jc.JitTypeError, "union1d"),
    "the array API's unique_counts": (
        lambda x: np.unique_counts(x), (np.array([3.0, 1.0, 3.0]),), jc.JitTypeError, "unique_counts"),
    "trim_zeros of traced data": (
        lambda a: np.trim_zeros(a), (np.array([0, 1, 2, 0]),), jc.JitTypeError, "trim_zeros"),
    "real_if_close of a traced complex array (its dtype depends on the data)": (
        lambda z: np.real_if_close(z), (np.array([2.1 + 4e-14j]),), jc.JitTypeError, "real or a complex"),
    "an array's length from its data (np.zeros(keys.max() + 1))": (
        _groups_from_the_data, (np.array([2, 0, 4]),), jc.ConcretizationError, "shape of numpy.zeros"),
    "out= a part of an int array for a float result (NumPy: a casting error)": (
        _out_part_of_another_dtype, (np.arange(4.0),), jc.UnsupportedError, "out= into a part"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])


def test_peaks_by_list_append_compile():
    # appended under a traced if: the kept rows, NumPy's float64 np.array([]) where none is
    # (session 47, tests/jitcore/test_data_length_loops_47.py)
    f = jc.jit(_peaks_by_list_append)
    for x in (np.array([0.0, 2.0, 1.0, 3.0, 4.0, 1.0]), np.arange(5.0), normal(200)):
        got, want = f(x), _peaks_by_list_append(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("x, error, words", [(math.nan, ValueError, "cannot convert float NaN"),
                                             (math.inf, OverflowError, "float infinity")])
def test_math_floor_raises_pythons_errors_from_the_call(x, error, words):
    """math.floor of NaN or infinity raises int()'s errors in Python; compiled, from the call."""
    floor_cell = jc.jit(lambda v: math.floor(v / 0.5))
    with pytest.raises(error, match=words):
        floor_cell(x)
    assert floor_cell(-1.2) == math.floor(-1.2 / 0.5)
