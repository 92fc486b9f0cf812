"""A new user's NumPy programs, thirteenth round (newuser35): the special functions people reach
for (``math.erf``, ``math.erfc``, ``math.gamma``, ``math.lgamma`` of traced numbers and through
``np.vectorize``, computed by the math library since this round), ``np.errstate`` inside the
function, ``numpy.polynomial.polynomial``'s ``polyval``/``polyder``/``polyfit``, and areas the
first twelve rounds did not draw: statistics (a bootstrap from passed indices, kernel density
estimates, Welford's online variance, weighted histograms, correlation matrices, mutual
information, the normal CDF, quantiles and a z-test's p-value by erf/erfc, the log-likelihood of
counts by lgamma), image processing (convolution by slicing, Sobel, a median filter over sliding
windows, dilation and erosion by shifted maxima, integral images and box sums, bilinear resizing,
Hough votes), physics (velocity Verlet, Ising sweeps with passed random numbers, the wave
equation, a spring network, Lennard-Jones, cloud-in-cell deposition), machine learning (logistic
regression by gradient descent, k-NN by argsort and argpartition, softmax cross-entropy by
logsumexp, Gaussian naive Bayes, a perceptron, k-means, PCA) and an adaptive-step ODE solver in a
``while`` loop. Each runs under ``jc.jit`` against NumPy as the earlier rounds' programs do
(tests/programs/like_numpy.py); what jitcore refuses on purpose is checked to be its own error."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

import jitcore as jc
from tests.programs.like_numpy import EXACT, cases_and_jitted, check_edge, check_program, check_refusal

TIGHT = 64  # eps of the result dtype: math-library ULPs, reductions summed in another order
RNG = np.random.default_rng(20261204 + 13)


def normal(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------------------- special functions
def black_scholes_math(S, K, T, r, sigma):
    """One option with the math module's functions, as a user without SciPy writes it."""
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    call = S * 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0))) - K * math.exp(-r * T) * 0.5 * math.erfc(
        -d2 / math.sqrt(2.0))
    return call


def normal_cdf_vectorized(x, mu, sigma):
    """The normal CDF of an array by np.vectorize(math.erf), and its upper tail by erfc."""
    z = (x - mu) / (sigma * np.sqrt(2.0))
    return 0.5 * (1 + np.vectorize(math.erf)(z)), 0.5 * np.vectorize(math.erfc)(z)


def poisson_loglik(counts, rate):
    """The Poisson log-likelihood of counts, log k! by lgamma(k + 1), one count at a time."""
    ll = 0.0
    for k in counts:
        ll += k * math.log(rate) - rate - math.lgamma(k + 1.0)
    return ll


def beta_binomial_pmf(n, a, b):
    """P(k) for k = 0..n of the beta-binomial, by np.vectorize(math.lgamma) of arrays."""
    k = np.arange(n + 1.0)
    lg = np.vectorize(math.lgamma)
    logc = lg(n + 1.0) - lg(k + 1) - lg(n - k + 1)
    logb = lg(k + a) + lg(n - k + b) - lg(n + a + b) - (lg(a) + lg(b) - lg(a + b))
    return np.exp(logc + logb)


def gamma_pdf(x, shape, scale):
    return x ** (shape - 1) * np.exp(-x / scale) / (math.gamma(shape) * scale**shape)


def student_t_pdf(t, nu):
    c = math.gamma((nu + 1) / 2) / (math.sqrt(nu * math.pi) * math.gamma(nu / 2))
    return c * (1 + t * t / nu) ** (-(nu + 1) / 2)


def sphere_volumes(dims):
    """The volume of the unit ball in d dimensions, pi**(d/2) / gamma(d/2 + 1), per dimension."""
    return np.pi ** (dims / 2) / np.vectorize(math.gamma)(dims / 2 + 1)


def q_function_tail(x):
    """Gaussian tail probabilities far out, where 1 - erf loses everything and erfc does not."""
    return np.vectorize(math.erfc, otypes=[np.float64])(x / math.sqrt(2)) / 2


def beam_through_slit(x0, w, a):
    """The fraction of a Gaussian beam (centres x0, radius w) that passes a slit [-a, a]."""
    erf = np.vectorize(math.erf)
    return 0.5 * (erf((a - x0) / (w * math.sqrt(2))) - erf((-a - x0) / (w * math.sqrt(2))))


def regularized_gamma_series(s, x, tol):
    """P(s, x), the regularized lower incomplete gamma, by its series in a ``while`` loop until a
    term is below tol, scaled by exp(s log x - x - lgamma(s))."""
    term = 1.0 / s
    total = term
    n = 0
    while term > tol * total:
        n += 1
        term *= x / (s + n)
        total += term
    return total * math.exp(s * math.log(x) - x - math.lgamma(s)), n


def with_errstate_ignore(num, den):
    """The common idiom: silence the warnings for a ratio that may divide by zero."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = num / den
    return np.where(np.isfinite(ratio), ratio, 0.0)


# ---------------------------------------------------------------------------- statistics
def bootstrap_mean_ci(x, idx):
    """Bootstrap means from passed-in resampling indices (replicates x n), and the 95% interval."""
    means = x[idx].mean(axis=1)
    return means.mean(), np.percentile(means, [2.5, 97.5]), means.std(ddof=1)


def gaussian_kde(samples, grid, bw):
    z = (grid[:, None] - samples[None, :]) / bw
    return np.exp(-0.5 * z * z).sum(axis=1) / (samples.size * bw * np.sqrt(2 * np.pi))


def welford(x):
    """Welford's online mean and variance, one element a step."""
    n = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        n += 1
        delta = v - mean
        mean += delta / n
        m2 += delta * (v - mean)
    return mean, m2 / (n - 1)


def weighted_histograms(x, w):
    h, edges = np.histogram(x, bins=6, range=(-3.0, 3.0), weights=w)
    d, _ = np.histogram(x, bins=edges, weights=w, density=True)
    counts, e2 = np.histogram(x, bins=5)
    return h, edges, d, counts, e2


def correlation_matrix(X):
    """Pearson correlations by hand (centred, scaled columns) and by np.corrcoef."""
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return Z.T @ Z / X.shape[0], np.corrcoef(X, rowvar=False), np.cov(X.T)


def normal_quantile_newton(p):
    """Quantiles of the standard normal by Newton's method on the erf CDF, elementwise."""
    x = np.zeros_like(p)
    erf = np.vectorize(math.erf)
    for _ in range(40):
        cdf = 0.5 * (1 + erf(x / np.sqrt(2.0)))
        pdf = np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)
        x = x - (cdf - p) / pdf
    return x


def polynomial_trend(t, y, deg):
    """A trend by numpy.polynomial's functions (lowest power first): fit, value, slope."""
    c = P.polyfit(t, y, deg)
    return c, y - P.polyval(t, c), P.polyval(t[-1], P.polyder(c))


def horner_families(x, c, ci):
    return P.polyval(x, c), P.polyval(x, ci), P.polyder(c, 2), P.polyder(ci), P.polyval(x[:, None], c)


def box_muller(u1, u2):
    r = np.sqrt(-2.0 * np.log(u1))
    return r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)


def robust_z_scores(x):
    med = np.median(x)
    mad = np.median(np.abs(x - med))
    return 0.6745 * (x - med) / mad, np.abs(0.6745 * (x - med) / mad) > 3.5


def mutual_information(x, y, bins):
    """Mutual information of two samples from their joint histogram (histogram2d)."""
    joint, _, _ = np.histogram2d(x, y, bins=bins)
    pxy = joint / joint.sum()
    px = pxy.sum(axis=1, keepdims=True)
    py = pxy.sum(axis=0, keepdims=True)
    ratio = np.where(pxy > 0, pxy / (px * py), 1.0)
    return np.sum(pxy * np.log(ratio))


def two_sample_z_test(a, b):
    """Welch's z statistic and its two-sided p-value by erfc (normal approximation)."""
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    z = (a.mean() - b.mean()) / se
    return z, math.erfc(abs(z) / math.sqrt(2.0))


# ---------------------------------------------------------------------------- images
def convolve_by_slicing(img, k):
    """A 3x3 'valid' convolution written as a sum of shifted slices."""
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for i in range(3):
        for j in range(3):
            out += k[2 - i, 2 - j] * img[i:h - 2 + i, j:w - 2 + j]
    return out


def sobel_magnitude(img):
    gx = ((img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:])
          - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2]))
    gy = ((img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:])
          - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:]))
    return np.hypot(gx, gy), np.arctan2(gy, gx)


def median_filter(img):
    padded = np.pad(img, 1, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3))
    return np.median(windows, axis=(-2, -1))


def morphology(mask):
    """Dilation and erosion of a binary image by the maximum/minimum over the 3x3 shifts, and
    the opening."""
    def shifts(a, fill, op):
        p = np.pad(a, 1, constant_values=fill)
        out = p[1:-1, 1:-1].copy()
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                out = op(out, p[1 + di:p.shape[0] - 1 + di, 1 + dj:p.shape[1] - 1 + dj])
        return out
    dil = shifts(mask, False, np.maximum)
    ero = shifts(mask, True, np.minimum)
    opened = shifts(shifts(mask, True, np.minimum), False, np.maximum)
    return dil, ero, opened


def integral_image_box_sums(img, r):
    """Box sums of radius r from a zero-padded integral image (summed-area table)."""
    S = np.zeros((img.shape[0] + 1, img.shape[1] + 1), dtype=img.dtype)
    S[1:, 1:] = img.cumsum(axis=0).cumsum(axis=1)
    k = 2 * r + 1
    return S, S[k:, k:] - S[:-k, k:] - S[k:, :-k] + S[:-k, :-k]


def gaussian_blur_separable(img, sigma):
    t = np.arange(-3, 4)
    k = np.exp(-t * t / (2 * sigma * sigma))
    k = k / k.sum()
    rows = np.apply_along_axis(lambda r: np.convolve(r, k, mode="same"), 1, img)
    return np.apply_along_axis(lambda c: np.convolve(c, k, mode="same"), 0, rows)


def otsu_threshold(img):
    hist, edges = np.histogram(img, bins=16, range=(0.0, 1.0))
    p = hist / hist.sum()
    omega = np.cumsum(p)
    mu = np.cumsum(p * (edges[:-1] + edges[1:]) / 2)
    between = (mu[-1] * omega - mu) ** 2 / (omega * (1 - omega))
    between = np.where(np.isfinite(between), between, 0.0)
    return edges[np.argmax(between) + 1]


def bilinear_resize(img, out_h, out_w):
    """Bilinear resampling by index arithmetic: floor of the scaled coordinates, four gathers."""
    h, w = img.shape
    ys = np.linspace(0, h - 1, out_h)
    xs = np.linspace(0, w - 1, out_w)
    y0 = np.floor(ys).astype(np.int64)
    x0 = np.floor(xs).astype(np.int64)
    y1 = np.minimum(y0 + 1, h - 1)
    x1 = np.minimum(x0 + 1, w - 1)
    fy = (ys - y0)[:, None]
    fx = (xs - x0)[None, :]
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def hough_lines(mask, n_theta):
    """Hough votes of a binary image's points into (rho, theta) cells by np.add.at."""
    h, w = mask.shape
    diag = int(np.ceil(np.hypot(h, w)))
    thetas = np.linspace(0, np.pi, n_theta, endpoint=False) + 0.0123  # no rho at exactly k + 1/2
    ys, xs = np.indices((h, w))
    weight = mask.ravel().astype(np.int64)
    rho = np.round(xs.ravel()[:, None] * np.cos(thetas) + ys.ravel()[:, None] * np.sin(thetas))
    rho = rho.astype(np.int64)
    acc = np.zeros((2 * diag + 1, n_theta), dtype=np.int64)
    np.add.at(acc, (rho + diag, np.broadcast_to(np.arange(n_theta), rho.shape)), weight[:, None])
    return acc, np.unravel_index(np.argmax(acc), acc.shape)


# ---------------------------------------------------------------------------- physics
def velocity_verlet(x0, v0, k, m, dt, steps):
    """A harmonic chain with fixed ends by velocity Verlet; energy at the end."""
    x = x0.copy()
    v = v0.copy()

    def force(y):
        f = np.zeros_like(y)
        f[1:-1] = k * (y[2:] - 2 * y[1:-1] + y[:-2])
        return f

    a = force(x) / m
    for _ in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = force(x) / m
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    energy = 0.5 * m * (v * v).sum() + 0.5 * k * (np.diff(x) ** 2).sum()
    return x, v, energy


def ising_sweeps(spins, beta, u):
    """Metropolis sweeps of a periodic 2-d Ising model, site by site, with passed uniforms
    (sweeps x n x n)."""
    s = spins.copy()
    n = s.shape[0]
    for t in range(u.shape[0]):
        for i in range(n):
            for j in range(n):
                nb = s[(i + 1) % n, j] + s[i - 1, j] + s[i, (j + 1) % n] + s[i, j - 1]
                dE = 2 * s[i, j] * nb
                if dE <= 0 or u[t, i, j] < np.exp(-beta * dE):
                    s[i, j] = -s[i, j]
    return s, s.mean()


def wave_equation(u0, c, dx, dt, steps):
    """The 1-d wave equation, fixed ends, leapfrog in time."""
    r2 = (c * dt / dx) ** 2
    prev = u0.copy()
    cur = u0.copy()
    cur[1:-1] = u0[1:-1] + 0.5 * r2 * (u0[2:] - 2 * u0[1:-1] + u0[:-2])
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + r2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev, cur = cur, nxt
    return cur


def spring_network(pos, edges, rest, k, dt, steps):
    """Nodes joined by springs (edge list), damped explicit Euler, forces gathered by np.add.at."""
    p = pos.copy()
    v = np.zeros_like(p)
    i, j = edges[:, 0], edges[:, 1]
    for _ in range(steps):
        d = p[j] - p[i]
        L = np.sqrt((d * d).sum(axis=1))
        f = (k * (L - rest) / L)[:, None] * d
        F = np.zeros_like(p)
        np.add.at(F, i, f)
        np.add.at(F, j, -f)
        v = 0.95 * (v + dt * F)
        p = p + dt * v
    return p


def rk45_adaptive(y0, t_end, tol):
    """y' = -2 t y**2 (exact 1 / (1 + t**2) from y0 = 1) by an embedded Heun-Euler pair with
    step-size control in a ``while`` loop on the traced time."""
    t = 0.0
    y = y0
    h = 0.1
    steps = 0
    while t < t_end:
        h = min(h, t_end - t)
        k1 = -2 * t * y * y
        k2 = -2 * (t + h) * (y + h * k1) ** 2
        y_high = y + 0.5 * h * (k1 + k2)
        err = abs(y_high - (y + h * k1))
        if err <= tol:
            t += h
            y = y_high
            steps += 1
        h = 0.9 * h * math.sqrt(tol / max(err, 1e-300))
    return y, steps


def lennard_jones(pos, eps, sigma):
    """Pair forces and energy of a small cluster, the self-pairs masked out."""
    d = pos[:, None, :] - pos[None, :, :]
    r2 = (d * d).sum(axis=-1)
    off = ~np.eye(pos.shape[0], dtype=bool)
    inv6 = np.where(off, (sigma * sigma / np.where(off, r2, 1.0)) ** 3, 0.0)
    energy = 2 * eps * (inv6 * inv6 - inv6).sum()
    coef = np.where(off, 24 * eps * (2 * inv6 * inv6 - inv6) / np.where(off, r2, 1.0), 0.0)
    return energy, (coef[:, :, None] * d).sum(axis=1)


def cloud_in_cell_deposit(x, q, n_cells, length):
    """Particle-in-cell: each charge shared between its two nearest cells (periodic), by
    np.add.at, then the field from the charge density by a cumulative sum."""
    dx = length / n_cells
    s = x / dx
    left = np.floor(s).astype(np.int64)
    frac = s - left
    rho = np.zeros(n_cells)
    np.add.at(rho, left % n_cells, q * (1 - frac))
    np.add.at(rho, (left + 1) % n_cells, q * frac)
    rho = rho / dx
    field = np.cumsum(rho - rho.mean()) * dx
    return rho, field - field.mean()


def damped_pendulum_energy(theta0, omega0, g, L, b, dt, steps):
    th, om = theta0, omega0
    energy = np.empty(steps)
    for n in range(steps):
        om = om - dt * (g / L * math.sin(th) + b * om)
        th = th + dt * om
        energy[n] = 0.5 * L * L * om * om + g * L * (1 - math.cos(th))
    return th, energy


# ---------------------------------------------------------------------------- machine learning
def logistic_regression_gd(X, y, lr, steps):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(X @ w + b)))
        g = p - y
        w = w - lr * X.T @ g / y.size
        b = b - lr * g.mean()
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))
    return w, b, loss


def knn_argsort(train, labels, test, k):
    d = ((test[:, None, :] - train[None, :, :]) ** 2).sum(axis=-1)
    nearest = np.argsort(d, axis=1, kind="stable")[:, :k]
    votes = labels[nearest]
    return nearest, (votes.sum(axis=1) * 2 > k).astype(np.int64)


def knn_argpartition(train, test, k):
    """The k nearest distances by argpartition, then sorted."""
    d = np.sqrt(((test[:, None, :] - train[None, :, :]) ** 2).sum(axis=-1))
    idx = np.argpartition(d, k - 1, axis=1)[:, :k]
    return np.sort(np.take_along_axis(d, idx, axis=1), axis=1)


def softmax_cross_entropy(logits, labels):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    nll = lse - logits[np.arange(labels.size), labels]
    probs = np.exp(logits - lse[:, None])
    grad = probs.copy()
    grad[np.arange(labels.size), labels] -= 1
    return nll.mean(), grad / labels.size, np.logaddexp.reduce(logits, axis=1)


def gaussian_naive_bayes(X, y, Xq, n_classes):
    """Class means and variances by weights (the refused form selects X[y == c]: below)."""
    logp = np.zeros((Xq.shape[0], n_classes))
    for c in range(n_classes):
        w = (y == c)[:, None]
        n = w.sum()
        mu = (X * w).sum(axis=0) / n
        var = (((X - mu) ** 2) * w).sum(axis=0) / n + 1e-9
        spread = np.sum(np.log(2 * np.pi * var) + (Xq - mu) ** 2 / var, axis=1)
        logp[:, c] = np.log(n / X.shape[0]) - 0.5 * spread
    return np.argmax(logp, axis=1), logp


def naive_bayes_by_selection(X, y):
    """The first form a user writes: a class's rows by a mask, their count as a shape."""
    Xc = X[y == 1]
    return Xc.mean(axis=0), Xc.shape[0] / X.shape[0]


def perceptron(X, y, epochs):
    """Rosenblatt's rule, one sample at a time, updating only on a mistake (a traced branch)."""
    w = np.zeros(X.shape[1])
    b = 0.0
    mistakes = 0
    for _ in range(epochs):
        for i in range(X.shape[0]):
            if y[i] * (X[i] @ w + b) <= 0:
                w = w + y[i] * X[i]
                b = b + y[i]
                mistakes += 1
    return w, b, mistakes


def kmeans_lloyd(X, centres, iters):
    C = centres.copy()
    for _ in range(iters):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
        lab = np.argmin(d, axis=1)
        for c in range(C.shape[0]):
            members = lab == c
            if members.sum() > 0:
                C[c] = (X * members[:, None]).sum(axis=0) / members.sum()
    return C, lab


def pca_by_svd(X, k):
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    explained = s**2 / (s**2).sum()
    return np.abs(Xc @ Vt[:k].T), explained[:k]


# ---------------------------------------------------------------------------- inputs
IMG = np.add.outer(np.sin(np.arange(9) * 0.7), np.cos(np.arange(11) * 0.5)) + 0.1 * normal(9, 11)
MASK = np.zeros((8, 9), dtype=bool)
MASK[2:6, 3:7] = True
MASK[1, 1] = True
CLS_X = np.concatenate([normal(12, 2) + [2.0, 0.0], normal(12, 2) - [2.0, 0.0]])
CLS_Y = np.repeat([1, 0], 12)
NET_POS = np.array([[0.0, 0.0], [1.2, 0.0], [0.0, 0.9], [1.1, 1.3], [2.0, 0.4]])
NET_EDGES = np.array([[0, 1], [0, 2], [1, 3], [2, 3], [1, 4], [3, 4], [0, 3]])

PROGRAMS = {
    "black_scholes_math": (black_scholes_math, (), TIGHT, [(100.0, 95.0, 0.5, 0.03, 0.25),
                                                           (50.0, 120.0, 2.0, 0.01, 0.4)]),
    "normal_cdf_vectorized": (normal_cdf_vectorized, (), TIGHT,
                              [(np.array([-40.0, -3.0, -0.5, 0.0, -0.0, 1.0, 6.0, np.inf, -np.inf, np.nan]),
                                0.0, 1.0), (normal(7).astype(np.float32), 0.5, 2.0)]),
    "poisson_loglik": (poisson_loglik, (), TIGHT, [(np.array([0, 3, 1, 7, 2, 0, 12]), 2.5)]),
    "beta_binomial_pmf": (beta_binomial_pmf, ("n",), TIGHT * 16, [(10, 2.0, 3.5), (4, 0.5, 0.5)]),
    "gamma_pdf": (gamma_pdf, (), TIGHT * 4,
                  [(np.linspace(0.1, 10, 9), 2.5, 1.5), (np.array([0.5, 2.0]), 30.0, 0.2)]),
    "student_t_pdf": (student_t_pdf, (), TIGHT * 4,
                      [(np.linspace(-4, 4, 9), 3.0), (np.array([0.0, 1.0]), 101.0)]),
    "sphere_volumes": (sphere_volumes, (), TIGHT * 4, [(np.arange(1.0, 30.0),)]),
    "q_function_tail": (q_function_tail, (), TIGHT,
                        [(np.array([0.0, 1.0, 5.0, 10.0, 20.0, 37.0, 38.5, -2.0]),)]),
    "beam_through_slit": (beam_through_slit, (), TIGHT, [(np.linspace(-3, 3, 7), 0.8, 1.0)]),
    "regularized_gamma_series": (regularized_gamma_series, (), TIGHT * 16,
                                 [(2.5, 1.7, 1e-15), (10.0, 3.0, 1e-12)]),
    "polynomial_trend": (polynomial_trend, ("deg",), TIGHT * 1024,
                         [(np.linspace(0, 2, 15), 1 + np.linspace(0, 2, 15) ** 2 + 0.05 * normal(15), 2)]),
    "horner_families": (horner_families, (), EXACT,
                        [(np.array([-2.0, 0.0, -0.0, 0.5, np.inf, np.nan]), np.array([1.0, -2.0, 0.5, 3.0]),
                          np.array([4, 0, -1]))]),
    "box_muller": (box_muller, (), TIGHT, [(RNG.random(8), RNG.random(8))]),
    "robust_z_scores": (robust_z_scores, (), TIGHT, [(np.append(normal(11), 25.0),)]),
    "mutual_information": (mutual_information, ("bins",), TIGHT * 16,
                           [(normal(60), normal(60) * 0.5 + np.linspace(-1, 1, 60), 5)]),
    "two_sample_z_test": (two_sample_z_test, (), TIGHT * 4, [(normal(30) + 0.4, normal(25)),
                                                             (normal(12) + 9.0, normal(12))]),
    "bilinear_resize": (bilinear_resize, ("out_h", "out_w"), TIGHT, [(IMG, 13, 7)]),
    "hough_lines": (hough_lines, ("n_theta",), EXACT,
                    [(np.eye(7, dtype=bool) | np.eye(7, k=3, dtype=bool), 12)]),
    "cloud_in_cell_deposit": (cloud_in_cell_deposit, ("n_cells",), TIGHT * 4,
                              [(RNG.random(20) * 8.0, np.where(np.arange(20) % 2 == 0, 1.0, -1.0), 8, 8.0)]),
    "with_errstate_ignore": (with_errstate_ignore, (), EXACT,
                             [(np.array([1.0, 0.0, -2.0, 3.0]), np.array([0.0, 0.0, 4.0, -0.0]))]),
    "bootstrap_mean_ci": (bootstrap_mean_ci, (), TIGHT * 4, [(normal(15), RNG.integers(0, 15, (40, 15)))]),
    "gaussian_kde": (gaussian_kde, (), TIGHT * 4, [(normal(30), np.linspace(-3, 3, 13), 0.4)]),
    "welford": (welford, (), TIGHT * 16, [(normal(25) + 1e4,), (np.arange(5.0),)]),
    "weighted_histograms": (weighted_histograms, (), TIGHT * 4,
                            [(normal(40), RNG.random(40)),
                             (np.array([-3.0, 3.0, 0.0, 2.9999, -5.0]), np.ones(5))]),
    "correlation_matrix": (correlation_matrix, (), TIGHT * 16, [(normal(20, 4),)]),
    "normal_quantile_newton": (normal_quantile_newton, (), TIGHT * 16,
                               [(np.array([0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.999]),)]),
    "convolve_by_slicing": (convolve_by_slicing, (), TIGHT,
                            [(IMG, np.array([[1.0, 2, 1], [0, 0, 0], [-1, -2, -1]]))]),
    "sobel_magnitude": (sobel_magnitude, (), TIGHT, [(IMG,)]),
    "median_filter": (median_filter, (), EXACT, [(IMG,), (np.arange(12).reshape(3, 4) % 5,)]),
    "morphology": (morphology, (), EXACT, [(MASK,)]),
    "integral_image_box_sums": (integral_image_box_sums, ("r",), EXACT,
                                [(np.arange(30).reshape(5, 6), 1), (RNG.integers(0, 9, (7, 7)), 2)]),
    "gaussian_blur_separable": (gaussian_blur_separable, (), TIGHT * 4, [(IMG, 1.2)]),
    "otsu_threshold": (otsu_threshold, (), EXACT,
                       [(np.clip(np.concatenate([0.25 + 0.05 * normal(30), 0.7 + 0.05 * normal(30)]),
                                 0, 1),)]),
    "velocity_verlet": (velocity_verlet, ("steps",), TIGHT * 16,
                        [(np.sin(np.linspace(0, np.pi, 8)), np.zeros(8), 4.0, 1.0, 0.05, 30)]),
    "ising_sweeps": (ising_sweeps, (), EXACT,
                     [(np.where(RNG.random((5, 5)) < 0.5, -1, 1), 0.4, RNG.random((2, 5, 5)))]),
    "wave_equation": (wave_equation, ("steps",), TIGHT * 4,
                      [(np.exp(-((np.arange(24) - 11.5) ** 2) / 8.0), 1.0, 0.1, 0.05, 40)]),
    "spring_network": (spring_network, ("steps",), TIGHT * 16, [(NET_POS, NET_EDGES, 1.0, 3.0, 0.05, 25)]),
    "rk45_adaptive": (rk45_adaptive, (), TIGHT, [(1.0, 3.0, 1e-6), (1.0, 0.0, 1e-6)]),
    "lennard_jones": (lennard_jones, (), TIGHT * 16,
                      [(np.array([[0.0, 0, 0], [1.1, 0, 0], [0, 1.2, 0], [0.6, 0.6, 0.9]]), 1.0, 1.0)]),
    "damped_pendulum_energy": (damped_pendulum_energy, ("steps",), TIGHT * 4,
                               [(1.0, 0.0, 9.81, 1.0, 0.1, 0.01, 50)]),
    "logistic_regression_gd": (logistic_regression_gd, ("steps",), TIGHT * 16, [(CLS_X, CLS_Y, 0.5, 30)]),
    "knn_argsort": (knn_argsort, ("k",), EXACT, [(CLS_X, CLS_Y, normal(6, 2), 5)]),
    "knn_argpartition": (knn_argpartition, ("k",), TIGHT, [(CLS_X, normal(6, 2), 3)]),
    "softmax_cross_entropy": (softmax_cross_entropy, (), TIGHT * 4,
                              [(normal(6, 4) * 3, np.array([0, 3, 1, 1, 2, 0])),
                               (np.array([[1000.0, 0.0], [-1000.0, -1000.0]]), np.array([1, 0]))]),
    "gaussian_naive_bayes": (gaussian_naive_bayes, ("n_classes",), TIGHT * 16,
                             [(CLS_X, CLS_Y, normal(5, 2), 2)]),
    "perceptron": (perceptron, ("epochs",), EXACT, [(CLS_X, 2 * CLS_Y - 1, 3)]),
    "kmeans_lloyd": (kmeans_lloyd, ("iters",), TIGHT * 4, [(CLS_X, CLS_X[[0, 13]], 5)]),
    "pca_by_svd": (pca_by_svd, ("k",), TIGHT * 256,
                   [(normal(12, 3) @ np.array([[3.0, 1, 0], [0, 1, 0], [0, 0, 0.2]]), 2)]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


EDGES = {
    "math.erf/erfc/gamma/lgamma of traced numbers at their edges (math's values)": (
        lambda x: tuple(f(x[i]) for f in (math.erf, math.erfc) for i in range(6)) + (
            math.gamma(x[1]), math.gamma(x[6]), math.lgamma(x[6]), math.lgamma(x[7]), math.gamma(x[7])),
        (np.array([-0.0, 0.5, -27.0, 27.0, 1e-300, 6.5, -2.5, 171.5]),), TIGHT,
    ),
    "np.vectorize of math functions: float32, ints, 2-d, otypes, floor's ints, a module's": (
        lambda f, i, m: (np.vectorize(math.erf)(f), np.vectorize(math.lgamma)(i + 1),
                         np.vectorize(math.erfc, otypes=[np.float32])(m), np.vectorize(math.floor)(m),
                         np.vectorize(math.gamma)(m[:1] + 3.0), _VECTORIZED_ERF(m)),
        (np.array([-1.5, 0.25, 3.0], np.float32), np.array([0, 4, 20]), normal(2, 3)), TIGHT,
    ),
    "errstate ignore/warn accepted (compiled code never warns), seterr returning the old state": (
        lambda x: (_errstate_warn(x), _seterr_ignore(x)), (np.array([1.0, 0.0, -1.0]),), EXACT,
    ),
}


_VECTORIZED_ERF = np.vectorize(math.erf)  # made once, outside the jitted function


def _errstate_warn(x):
    with np.errstate(all="warn"):
        return x / x[1]


def _seterr_ignore(x):
    old = np.seterr(all="ignore")
    y = np.log(x)
    np.seterr(**old)
    return y


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    check_edge(*EDGES[case], case)


def _divide_raise(x, y):
    with np.errstate(divide="raise"):
        return x / y


def _seterr_raise(x):
    np.seterr(over="raise")
    return np.exp(x)


def _polynomial_fit(x, y):
    return np.polynomial.Polynomial.fit(x, y, 2).coef


def _chebyshev_object(x, c):
    return np.polynomial.Chebyshev(c)(x)  # chebval(x, c) compiles since round 14


def _vectorize_own_function(x):
    # np.vectorize of a plain Python function: a compiled loop since newuser37; excluded= is not
    return np.vectorize(lambda v, k: v if v > k else 0.0, excluded={1})(x, 0.0)


REFUSED = {
    "np.errstate(divide='raise') inside the function (compiled code does not raise)": (
        _divide_raise, (np.ones(3), np.zeros(3)), jc.UnsupportedError, r"errstate\(divide='raise'\)"),
    "np.seterr(over='raise') inside the function": (
        _seterr_raise, (np.ones(3),), jc.UnsupportedError, r"seterr\(over='raise'\)"),
    "np.polynomial.Polynomial.fit of traced data (numpy.polynomial.polynomial.polyfit compiles)": (
        _polynomial_fit, (np.linspace(-1, 1, 6), normal(6)), jc.TracerConversionError,
        "polyder and polyfit compile"),
    "np.polynomial.Chebyshev of traced coefficients (chebval and the power series' functions compile)": (
        _chebyshev_object, (np.linspace(-1, 1, 6), normal(3)), jc.TracerConversionError, "chebval, legval"),
    "np.vectorize of the user's own function with excluded=": (
        _vectorize_own_function, (normal(3),), jc.TracerConversionError, "numpy.vectorize"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])


@pytest.mark.parametrize("fn, x, error", [
    (math.gamma, 0.0, ValueError), (math.gamma, -3.0, ValueError), (math.gamma, 200.0, OverflowError),
    (math.lgamma, -2.0, ValueError), (math.lgamma, 1e306, OverflowError)])
def test_special_functions_raise_maths_errors_from_the_call(fn, x, error):
    """math.gamma(0) and lgamma(-2) are domain errors, gamma(200) a range error, in Python and
    from the compiled call; a good value after them still computes."""
    with pytest.raises(error, match="math"):
        fn(x)
    cell = jc.jit(lambda v: fn(v * 1.0))
    with pytest.raises(error, match="math"):
        cell(x)
    assert cell(2.5) == pytest.approx(fn(2.5), rel=1e-15)


def test_scipy_special_ufuncs_of_traced_arrays():
    """scipy.special's erf, erfc, gamma and gammaln (where the user has SciPy) are the math
    library's functions in SciPy's loop dtypes; SciPy's own cut-offs (erfc is 0 past 26.6, gamma
    -0.0 below -170.6, gammaln of a subnormal inf) are left out: jitcore's values are the exact
    ones there."""
    special = pytest.importorskip("scipy.special", reason="SciPy is not a test dependency")

    def densities(x, n, k):
        return (special.erf(x), special.erfc(x), special.gamma(x), special.gammaln(x),
                special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1),
                special.erf(x.astype(np.float32)))

    x = np.array([-30.0, -2.5, -1.0, -0.0, 0.0, 1e-3, 0.5, 1.0, 2.0, 3.7, 26.0, 171.0, np.inf, -np.inf,
                  np.nan])
    check_edge(densities, (x, np.arange(8), np.arange(8) // 2), TIGHT, "scipy.special of traced arrays")


def test_a_class_rows_mean_and_count_by_a_traced_mask():
    # (refused until session 47: Xc.shape[0] of a selection is its count, Xc.mean(axis=0) a
    # masked reduction)
    got, want = jc.jit(naive_bayes_by_selection)(CLS_X, CLS_Y), naive_bayes_by_selection(CLS_X, CLS_Y)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
    assert got[1] == want[1]
