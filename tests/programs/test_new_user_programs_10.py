"""A new user's NumPy programs, tenth round (newuser32): areas the first nine rounds did not
cover. FFT work now that ``numpy.fft`` compiles (convolution by ``rfft``, a power spectrum's
peak, Welch's averaged periodogram, a spectrogram, an FFT cross-correlation's lag, a Gaussian
blur by ``fft2``, an analytic signal's envelope, spectral derivatives, a real cepstrum),
linear algebra (PCA by ``svd``, Cholesky solves, Gram-Schmidt by hand, an LU with partial
pivoting in Python loops, a matrix exponential by scaling and squaring, a complex channel
estimate by ``lstsq``, a Gaussian log-likelihood by ``slogdet``, least squares by ``qr``, Gauss-Legendre nodes
by Golub-Welsch, a particle in a box by ``eigh``, Newton's method in two unknowns), machine
learning (logistic regression by gradient descent, k-means iterations in ``jc.fori_loop``, kNN
by ``argpartition``, Gaussian naive Bayes, scaled dot-product attention, 2 x 2 max pooling by
``reshape``, a 1-D convolution layer by ``sliding_window_view``, Adam steps, batch norm), image
processing (the Harris response, histogram matching by ``interp``, RGB to HSV, unsharp masking,
a nearest-neighbour rotation by index arithmetic, 1-D non-maximum suppression), physics (Ising
sweeps on a checkerboard with the random numbers passed in, Gray-Scott reaction-diffusion by
``roll``, Kuramoto oscillators, a double pendulum by RK4, a 2-D wave equation, a Boris pusher),
numerical methods (Romberg integration, the secant method in a ``while``, Richardson
extrapolation, Chebyshev interpolation in barycentric form, weighted ``polyfit`` with
``polyder``/``polyint``, ``cumulative_sum`` Simpson), statistics (the Mann-Whitney U statistic,
a weighted median by ``cumsum``/``interp``, Kendall's tau by pairwise signs, a chi-squared
contingency test, jackknife standard errors) and examples from NumPy's own documentation.
What the round compiled: an index list holding traced values (``U[[k, p]] = U[[p, k]]``, a row
swap at a traced pivot); a NumPy array built in the function read at a traced index
(``perm[[k, p]]``, ``table[idx]``), through autograph; ``ufunc.reduce`` of ``logaddexp`` and
the other binary ufuncs whose NumPy reduce is a left fold; complex ``lstsq``. Each runs under
``jc.jit`` against NumPy, compared as the earlier rounds' programs are
(tests/programs/like_numpy.py); what jitcore refuses on purpose (``arctan2.reduce``, a view of
a NumPy array at a traced index) is checked to be its own error (complex ``cholesky`` runs since
linalg32: tests/jitcore/test_complex_linalg.py).
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
RNG = np.random.default_rng(20261203 + 10)


def normal(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------- FFT
def fft_convolve(x, h):
    """Linear convolution through rfft of a padded length, against the direct one."""
    n = x.size + h.size - 1
    y = np.fft.irfft(np.fft.rfft(x, n) * np.fft.rfft(h, n), n)
    return y, np.allclose(y, np.convolve(x, h), atol=1e-5)


def power_spectrum_peak(x, fs):
    spec = np.abs(np.fft.rfft(x * np.hanning(x.size))) ** 2
    freqs = np.fft.rfftfreq(x.size, d=1 / fs)
    k = np.argmax(spec[1:]) + 1
    return freqs[k], spec / spec.sum(), 10 * np.log10(spec[k] / np.median(spec))


def welch_psd(x, nperseg):
    """Welch: half-overlapping Hann frames, detrended by their means, periodograms averaged."""
    frames = np.lib.stride_tricks.sliding_window_view(x, nperseg)[:: nperseg // 2]
    w = np.hanning(nperseg)
    frames = (frames - frames.mean(axis=1, keepdims=True)) * w
    p = np.abs(np.fft.rfft(frames, axis=1)) ** 2 / (w @ w)
    p[:, 1:-1] *= 2
    return np.fft.rfftfreq(nperseg), p.mean(axis=0)


def spectrogram_db(x):
    frames = np.lib.stride_tricks.sliding_window_view(x, 16)[::8] * np.hamming(16)
    mag = np.abs(np.fft.rfft(frames, axis=-1))
    return 20 * np.log10(np.maximum(mag, 1e-10)).T, np.argmax(mag, axis=1)


def fft_lag(a, b):
    """The delay of b behind a from the peak of their circular cross-correlation."""
    xc = np.fft.ifft(np.fft.fft(b) * np.conj(np.fft.fft(a))).real
    lag = np.argmax(xc)
    return np.where(lag > a.size // 2, lag - a.size, lag), np.fft.fftshift(xc)


def fft_gaussian_blur(img, sigma):
    fy = np.fft.fftfreq(img.shape[0])[:, None]
    fx = np.fft.rfftfreq(img.shape[1])[None, :]
    g = np.exp(-2 * (np.pi * sigma) ** 2 * (fx**2 + fy**2))
    blurred = np.fft.irfft2(np.fft.rfft2(img) * g, s=img.shape)
    return blurred, np.fft.ifft2(np.fft.fft2(img)).real


def analytic_envelope(x):
    """Hilbert's analytic signal by zeroing the negative frequencies; its envelope and phase."""
    n = x.size
    h = np.zeros(n)
    h[0] = 1
    h[1:(n + 1) // 2] = 2
    if n % 2 == 0:
        h[n // 2] = 1
    z = np.fft.ifft(np.fft.fft(x) * h)
    return np.abs(z), np.unwrap(np.angle(z))


def spectral_derivative(L):
    """d/dx and d2/dx2 of a periodic function by multiplying its transform by (ik)."""
    n = 32
    x = np.arange(n) * L / n
    u = np.exp(np.sin(2 * np.pi * x / L))
    k = 2 * np.pi * np.fft.fftfreq(n, d=L / n)
    du = np.fft.ifft(1j * k * np.fft.fft(u)).real
    d2u = np.fft.irfft(-(k[: n // 2 + 1] ** 2) * np.fft.rfft(u), n)
    exact = 2 * np.pi / L * np.cos(2 * np.pi * x / L) * u
    return du, d2u, np.allclose(du, exact, atol=1e-9)


def real_cepstrum(x):
    spec = np.fft.fft(x)
    ceps = np.fft.ifft(np.log(np.abs(spec) + 1e-12)).real
    return ceps, np.argmax(ceps[2 : x.size // 2]) + 2


# ---------------------------------------------------------------------------- linear algebra
def pca_svd(X, k):
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    explained = s**2 / np.sum(s**2)
    scores = Xc @ Vt[:k].T
    recon = scores @ Vt[:k] + X.mean(axis=0)
    return explained, np.abs(scores), np.linalg.norm(X - recon)




def cholesky_solve(A, b):
    L = np.linalg.cholesky(A)
    y = np.linalg.solve(L, b)
    x = np.linalg.solve(L.T, y)
    return x, np.allclose(A @ x, b), 2 * np.sum(np.log(np.diag(L))), np.linalg.cholesky(A, upper=True)




def gram_schmidt(A):
    """Modified Gram-Schmidt, one column at a time."""
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    V = A.copy()
    for j in range(n):
        R[j, j] = np.linalg.norm(V[:, j])
        Q[:, j] = V[:, j] / R[j, j]
        for k in range(j + 1, n):
            R[j, k] = Q[:, j] @ V[:, k]
            V[:, k] -= R[j, k] * Q[:, j]
    return Q, R, Q.T @ Q


def lu_partial_pivoting(A):
    """Doolittle with row swaps chosen by argmax, as in a numerical-methods course."""
    n = A.shape[0]
    U = A.astype(float)
    L = np.eye(n)
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(U[k:, k]))
        U[[k, p]] = U[[p, k]]
        L[[k, p], :k] = L[[p, k], :k]
        perm[[k, p]] = perm[[p, k]]
        L[k + 1:, k] = U[k + 1:, k] / U[k, k]
        U[k + 1:] -= np.outer(L[k + 1:, k], U[k])
    return perm, L, np.triu(U)


def expm_scaling_squaring(A):
    """exp(A) by a 12-term Taylor series of A / 2^s, squared s times."""
    norm = np.linalg.norm(A, 1)
    s = max(0, int(np.ceil(np.log2(max(norm, 1e-300)))) + 1)
    B = A / 2.0**s
    E = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, 13):
        term = term @ B / k
        E = E + term
    for _ in range(s):
        E = E @ E
    return E


def gaussian_loglik(X, mu, S):
    d = X.shape[1]
    sign, logdet = np.linalg.slogdet(S)
    diff = X - mu
    maha = np.einsum("ij,ij->i", diff @ np.linalg.inv(S), diff)
    return -0.5 * (d * np.log(2 * np.pi) + logdet + maha), sign


def qr_least_squares(x, y):
    A = np.vander(x, 3)
    Q, R = np.linalg.qr(A)
    coef = np.linalg.solve(R, Q.T @ y)
    return coef, np.linalg.norm(A @ coef - y), np.abs(np.diag(R))


def gauss_quadrature(beta):
    """Golub-Welsch: the nodes are the Jacobi matrix's eigenvalues, the weights 2 v0^2, from a
    three-term recurrence's off-diagonal (Legendre's passed in); then the integral of cos on
    [-1, 1]."""
    J = np.diag(beta, 1) + np.diag(beta, -1)
    x, V = np.linalg.eigh(J)
    w = 2 * V[0] ** 2
    return x, w, w @ np.cos(x)


def particle_in_box(n, L):
    """The lowest levels of -u''/2 on (0, L) by finite differences, against n^2 pi^2 / 2L^2."""
    h = L / (n + 1)
    H = (np.diag(np.full(n, 2.0)) - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)) / (2 * h * h)
    E = np.linalg.eigvalsh(H)[:4]
    exact = (np.arange(1, 5) * np.pi / L) ** 2 / 2
    return E, E / exact


def newton_2d(z0, iters):
    """x^2 + y^2 = 4, e^x + y = 1 by Newton's method with a 2 x 2 solve per step."""
    z = z0.copy()
    F = np.zeros(2)  # a traced trip count: jitcore asks for F's value before the loop
    for _ in range(iters):
        x, y = z[0], z[1]
        F = np.array([x * x + y * y - 4, np.exp(x) + y - 1])
        J = np.array([[2 * x, 2 * y], [np.exp(x), 1.0]])
        z = z - np.linalg.solve(J, F)
    return z, np.abs(F).max()


def channel_estimate(pilots, received):
    """A multipath channel's taps by complex least squares on a convolution matrix of pilots."""
    taps = 3
    X = np.stack([np.concatenate([np.zeros(k, complex), pilots[: pilots.size - k]]) for k in range(taps)],
                 axis=1)
    h, resid, rank, s = np.linalg.lstsq(X, received, rcond=None)
    return h, resid, rank, s, np.abs(X @ h - received).max() < 1.0


# ---------------------------------------------------------------------------- machine learning
def logistic_regression_gd(X, y, lr, steps):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(X @ w + b)))
        w = w - lr * X.T @ (p - y) / y.size
        b = b - lr * np.mean(p - y)
    p = 1 / (1 + np.exp(-(X @ w + b)))
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))
    return w, b, loss, np.mean((p > 0.5) == y)


def kmeans_iterations(X, C0):
    def body(i, C):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
        labels = np.argmin(d, axis=1)
        onehot = labels[:, None] == np.arange(C.shape[0])
        counts = onehot.sum(axis=0)
        sums = onehot.T.astype(float) @ X
        return np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], C)

    C = jc.fori_loop(0, 6, body, C0)
    labels = np.argmin(((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1), axis=1)
    return C, labels


def knn_classify(train, labels, queries, k):
    d = np.linalg.norm(queries[:, None, :] - train[None, :, :], axis=-1)
    nearest = np.argpartition(d, k, axis=1)[:, :k]
    votes = labels[nearest]
    counts = (votes[:, :, None] == np.arange(3)).sum(axis=1)
    return np.argmax(counts, axis=1), np.sort(np.take_along_axis(d, nearest, axis=1), axis=1)


def gaussian_naive_bayes(X, y, Xq):
    classes = np.arange(2)
    mu = np.stack([X[y == c].mean(axis=0) for c in classes])
    var = np.stack([X[y == c].var(axis=0) for c in classes]) + 1e-9
    prior = np.log(np.bincount(y, minlength=2) / y.size)
    ll = -0.5 * (np.log(2 * np.pi * var)[None] + (Xq[:, None, :] - mu[None]) ** 2 / var[None]).sum(-1)
    post = ll + prior
    post = post - np.logaddexp.reduce(post, axis=1, keepdims=True)
    return np.argmax(post, axis=1), np.exp(post)


def attention(Q, K, V, mask):
    scores = Q @ K.swapaxes(-1, -2) / np.sqrt(Q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w


def max_pool_2x2(img):
    h, w = img.shape[-2] // 2, img.shape[-1] // 2
    blocks = img[..., : 2 * h, : 2 * w].reshape(*img.shape[:-2], h, 2, w, 2)
    return blocks.max(axis=(-3, -1)), blocks.mean(axis=(-3, -1)), np.argmax(blocks.reshape(-1, 4), axis=1)


def conv1d_layer(x, W, b):
    """Channels-last 1-D convolution, valid padding, then ReLU: (batch, time, cin) -> (batch, time', cout)."""
    win = np.lib.stride_tricks.sliding_window_view(x, W.shape[0], axis=1)  # (b, t', cin, k)
    y = np.einsum("btck,kco->bto", win, W) + b
    return np.maximum(y, 0)


def adam_quadratic(A, b, x0, steps):
    """Adam minimising |A x - b|^2 / 2."""
    x, m, v = x0.copy(), np.zeros_like(x0), np.zeros_like(x0)
    b1, b2, lr, eps = 0.9, 0.999, 0.05, 1e-8
    for t in range(1, steps + 1):
        g = A.T @ (A @ x - b)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        x = x - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
    return x, 0.5 * np.sum((A @ x - b) ** 2)


def batch_norm(x, gamma, beta):
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    y = gamma[None, :, None, None] * (x - mean) / np.sqrt(var + 1e-5) + beta[None, :, None, None]
    return y, mean.ravel(), var.ravel()


# ---------------------------------------------------------------------------- image processing
def harris_response(img, k):
    gy, gx = np.gradient(img)

    def box3(a):
        p = np.pad(a, 1, mode="edge")
        return sum(p[i : i + a.shape[0], j : j + a.shape[1]] for i in range(3) for j in range(3)) / 9

    Sxx, Syy, Sxy = box3(gx * gx), box3(gy * gy), box3(gx * gy)
    R = Sxx * Syy - Sxy**2 - k * (Sxx + Syy) ** 2
    return R, np.unravel_index(np.argmax(R), R.shape)


def histogram_matching(src, ref):
    """Map src's grey levels so that its CDF follows ref's (uint8 images)."""
    s_counts = np.bincount(src.ravel(), minlength=256)
    r_counts = np.bincount(ref.ravel(), minlength=256)
    s_cdf = np.cumsum(s_counts) / src.size
    r_cdf = np.cumsum(r_counts) / ref.size
    lut = np.interp(s_cdf, r_cdf, np.arange(256))
    return np.round(lut[src]).astype(np.uint8)


def rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx, mn = rgb.max(axis=-1), rgb.min(axis=-1)
    delta = mx - mn
    safe = np.where(delta == 0, 1.0, delta)
    h = np.select([mx == r, mx == g], [((g - b) / safe) % 6, (b - r) / safe + 2], (r - g) / safe + 4)
    h = np.where(delta == 0, 0.0, h) / 6
    s = np.where(mx == 0, 0.0, delta / np.where(mx == 0, 1.0, mx))
    return np.stack([h, s, mx], axis=-1)


def unsharp_mask(img, amount):
    k = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16
    p = np.pad(img, 2, mode="reflect")
    rows = sum(k[i] * p[i : i + img.shape[0], :] for i in range(5))
    blur = sum(k[j] * rows[:, j : j + img.shape[1]] for j in range(5))
    return np.clip(img + amount * (img - blur), 0.0, 1.0)


def rotate_nearest(img, angle):
    """Rotation about the centre by inverse mapping, nearest neighbour, zeros outside."""
    h, w = img.shape
    yy, xx = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    cy, cx = (h - 1) / 2, (w - 1) / 2
    c, s = np.cos(angle), np.sin(angle)
    src_x = np.rint(c * (xx - cx) + s * (yy - cy) + cx).astype(np.int64)
    src_y = np.rint(-s * (xx - cx) + c * (yy - cy) + cy).astype(np.int64)
    inside = (src_x >= 0) & (src_x < w) & (src_y >= 0) & (src_y < h)
    return np.where(inside, img[np.clip(src_y, 0, h - 1), np.clip(src_x, 0, w - 1)], 0)


def nonmax_suppression_1d(x, radius):
    p = np.pad(x, radius, constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(p, 2 * radius + 1)
    keep = (x == win.max(axis=1)) & (x > 0)
    return np.count_nonzero(keep), np.where(keep, np.arange(x.size), -1), np.where(keep, x, 0.0)


# ---------------------------------------------------------------------------- physics
def ising_sweeps(spins, uniforms, beta):
    """Metropolis on the two checkerboard colours in turn, the uniforms passed in per sweep."""
    s = spins.copy()
    n = s.shape[0]
    parity = (np.arange(n)[:, None] + np.arange(n)) % 2
    for t in range(uniforms.shape[0]):
        for colour in range(2):
            nb = np.roll(s, 1, 0) + np.roll(s, -1, 0) + np.roll(s, 1, 1) + np.roll(s, -1, 1)
            dE = 2 * s * nb
            flip = (parity == colour) & (uniforms[t] < np.exp(-beta * dE))
            s = np.where(flip, -s, s)
    return s, s.mean(), -np.mean(s * (np.roll(s, 1, 0) + np.roll(s, 1, 1)))


def gray_scott(U, V, steps):
    Du, Dv, F, k = 0.16, 0.08, 0.035, 0.065

    def lap(Z):
        return np.roll(Z, 1, 0) + np.roll(Z, -1, 0) + np.roll(Z, 1, 1) + np.roll(Z, -1, 1) - 4 * Z

    for _ in range(steps):
        uvv = U * V * V
        U, V = U + Du * lap(U) - uvv + F * (1 - U), V + Dv * lap(V) + uvv - (F + k) * V
    return U, V


def kuramoto(theta0, omega, K):
    def body(i, th):
        coupling = np.sin(th[None, :] - th[:, None]).mean(axis=1)
        return th + 0.05 * (omega + K * coupling)

    th = jc.fori_loop(0, 50, body, theta0)
    z = np.mean(np.exp(1j * th))
    return np.abs(z), np.angle(z)


def double_pendulum_rk4(state, steps):
    g, h = 9.81, 0.01

    def f(s):
        t1, t2, w1, w2 = s[0], s[1], s[2], s[3]
        d = t1 - t2
        den = 3 - np.cos(2 * d)
        a1 = (-3 * g * np.sin(t1) - g * np.sin(t1 - 2 * t2)
              - 2 * np.sin(d) * (w2 * w2 + w1 * w1 * np.cos(d))) / den
        a2 = 2 * np.sin(d) * (2 * w1 * w1 + 2 * g * np.cos(t1) + w2 * w2 * np.cos(d)) / den
        return np.array([w1, w2, a1, a2])

    s = state
    for _ in range(steps):
        k1 = f(s)
        k2 = f(s + h / 2 * k1)
        k3 = f(s + h / 2 * k2)
        k4 = f(s + h * k3)
        s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s


def wave_2d(u0, c, steps):
    u_prev = u0.copy()
    u = u0.copy()
    r2 = (c * 0.1) ** 2
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        u, u_prev = 2 * u - u_prev + r2 * lap, u
    return u, np.sum(u**2)


def boris_pusher(x, v, B, E, steps):
    """A charged particle in uniform fields, Boris' rotation (q/m = 1, dt = 0.1)."""
    dt = 0.1
    path = np.empty((steps, 3))
    for i in range(steps):
        v_minus = v + 0.5 * dt * E
        t = 0.5 * dt * B
        s = 2 * t / (1 + t @ t)
        v_prime = v_minus + np.cross(v_minus, t)
        v = v_minus + np.cross(v_prime, s) + 0.5 * dt * E
        x = x + dt * v
        path[i] = x
    return path, np.linalg.norm(v)


# ---------------------------------------------------------------------------- numerical methods
def romberg(a, b, levels):
    """Romberg's table for the integral of exp(-x^2) on [a, b]."""
    R = np.zeros((levels, levels))
    h = b - a
    R[0, 0] = h / 2 * (np.exp(-a * a) + np.exp(-b * b))
    for i in range(1, levels):
        h = h / 2
        x = a + h * np.arange(1, 2**i, 2)
        R[i, 0] = R[i - 1, 0] / 2 + h * np.sum(np.exp(-x * x))
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4**j - 1)
    return R[levels - 1, levels - 1], np.diag(R)


def secant_kepler(M, e):
    """E - e sin E = M by the secant method, stopping on a traced tolerance."""
    x0, x1 = M, M + e
    f0 = x0 - e * np.sin(x0) - M
    it = 0
    while np.abs(x1 - x0) > 1e-13 and it < 50:
        f1 = x1 - e * np.sin(x1) - M
        x0, x1, f0 = x1, x1 - f1 * (x1 - x0) / (f1 - f0), f1
        it += 1
    return x1, it


def richardson_derivative(x):
    """f'(x) of f = sin(x) exp(x) by central differences, extrapolated twice."""
    def f(t):
        return np.sin(t) * np.exp(t)

    hs = 0.1 / 2.0 ** np.arange(4)
    D = (f(x[:, None] + hs) - f(x[:, None] - hs)) / (2 * hs)
    D1 = (4 * D[:, 1:] - D[:, :-1]) / 3
    D2 = (16 * D1[:, 1:] - D1[:, :-1]) / 15
    exact = np.exp(x) * (np.sin(x) + np.cos(x))
    return D2[:, -1], np.abs(D2[:, -1] - exact).max()


def chebyshev_interpolation(xq, n):
    """Runge's function at Chebyshev points of the second kind, by the barycentric formula."""
    j = np.arange(n + 1)
    xj = np.cos(np.pi * j / n)
    fj = 1 / (1 + 25 * xj**2)
    w = (-1.0) ** j
    w[0] /= 2
    w[-1] /= 2
    d = xq[:, None] - xj[None, :]
    exact_hit = d == 0
    d = np.where(exact_hit, 1.0, d)
    p = (w * fj / d).sum(axis=1) / (w / d).sum(axis=1)
    p = np.where(exact_hit.any(axis=1), fj[np.argmax(exact_hit, axis=1)], p)
    return p, np.max(np.abs(p - 1 / (1 + 25 * xq**2)))


def weighted_polyfit(x, y, w):
    c = np.polyfit(x, y, 2, w=w)
    dc, ic = np.polyder(c), np.polyint(c)
    area = np.polyval(ic, x[-1]) - np.polyval(ic, x[0])
    return c, np.polyval(dc, x), area, np.polyfit(x, np.stack([y, 2 * y], axis=1), 1)


def cumulative_simpson(y, dx):
    """Simpson's rule on each pair of panels, accumulated; np.cumulative_sum with the initial 0."""
    pairs = dx / 3 * (y[:-2:2] + 4 * y[1:-1:2] + y[2::2])
    return np.cumulative_sum(pairs, include_initial=True), np.trapezoid(y, dx=dx)


# ---------------------------------------------------------------------------- statistics
def mann_whitney_u(a, b):
    both = np.concatenate([a, b])
    order = np.argsort(both, kind="stable")
    ranks = np.empty(both.size)
    ranks[order] = np.arange(1, both.size + 1)
    u1 = ranks[: a.size].sum() - a.size * (a.size + 1) / 2
    mu = a.size * b.size / 2
    sigma = np.sqrt(a.size * b.size * (both.size + 1) / 12)
    return u1, a.size * b.size - u1, (u1 - mu) / sigma


def weighted_median(x, w):
    order = np.argsort(x)
    xs, cw = x[order], np.cumsum(w[order])
    mid = np.searchsorted(cw, 0.5 * cw[-1])
    return xs[mid], np.interp(0.5, (cw - 0.5 * w[order]) / cw[-1], xs)


def kendall_tau(x, y):
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    n = x.size
    concord = np.triu(sx * sy, 1).sum()
    return concord / (n * (n - 1) / 2)


def chi2_contingency(table):
    total = table.sum()
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / total
    stat = ((table - expected) ** 2 / expected).sum()
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    cramers_v = np.sqrt(stat / (total * (min(table.shape) - 1)))
    return stat, dof, expected, cramers_v


def jackknife(x):
    n = x.size
    loo_means = (x.sum() - x) / (n - 1)
    mask = ~np.eye(n, dtype=bool)
    loo_std = np.std(np.broadcast_to(x, (n, n)), axis=1, where=mask, ddof=1)
    se = np.sqrt((n - 1) / n * np.sum((loo_std - loo_std.mean()) ** 2))
    return loo_means, se, np.sqrt((n - 1) / n * np.sum((loo_means - loo_means.mean()) ** 2))


# ---------------------------------------------------------------------------- NumPy's own examples


def docs_fft_example(t):
    """numpy.fft.fft's example: exp(2 pi i t / 8) over 8 points."""
    return np.fft.fft(np.exp(2j * np.pi * t / 8)), np.fft.fftfreq(t.size, d=0.1)


def docs_histogram2d(x, y):
    H, xedges, yedges = np.histogram2d(x, y, bins=(np.array([0, 1, 3, 5.0]), np.array([0, 2, 3, 4, 6.0])))
    Hd, *_ = np.histogram2d(x, y, bins=4, range=[[0, 5], [0, 6]], density=True)
    return H.T, xedges, yedges, Hd


SIG = np.sin(2 * np.pi * 5 * np.arange(64) / 64) + 0.5 * normal(64)
IMG = RNG.random((8, 9))
U8 = RNG.integers(0, 256, (6, 7), dtype=np.uint8)
U8_REF = (RNG.random((6, 7)) ** 2 * 255).astype(np.uint8)
SPD = normal(4, 4)
SPD = SPD @ SPD.T + 4 * np.eye(4)
CLUSTERS = np.concatenate([normal(6, 2) + [3, 3], normal(6, 2) - [3, 3], normal(6, 2) + [3, -3]])
LABELS3 = np.repeat(np.arange(3), 6)
GS_U = np.ones((10, 10))
GS_V = np.zeros((10, 10))
GS_U[4:6, 4:6], GS_V[4:6, 4:6] = 0.5, 0.25
BLOB = np.exp(-((np.arange(9)[:, None] - 4.0) ** 2 + (np.arange(9) - 4.0) ** 2) / 3)
XS12 = np.linspace(0, 3, 12)
QPSK = (np.where(RNG.random(16) < 0.5, 1, -1) + 1j * np.where(RNG.random(16) < 0.5, 1, -1)) / np.sqrt(2)

PROGRAMS = {
    "fft_convolve": (fft_convolve, (), TIGHT * 4,
                     [(normal(20), normal(7)), (normal(9).astype(f32), normal(4).astype(f32))]),
    "power_spectrum_peak": (power_spectrum_peak, (), TIGHT * 16, [(SIG, 64.0)]),
    "welch_psd": (welch_psd, ("nperseg",), TIGHT * 16, [(SIG, 16)]),
    "spectrogram_db": (spectrogram_db, (), TIGHT * 16, [(SIG,)]),
    "fft_lag": (fft_lag, (), TIGHT * 16, [(SIG[:30], np.roll(SIG[:30], 4))]),
    "fft_gaussian_blur": (fft_gaussian_blur, (), TIGHT * 16, [(IMG, 1.2)]),
    "analytic_envelope": (analytic_envelope, (), TIGHT * 16, [(SIG[:24],), (SIG[:15],)]),
    "spectral_derivative": (spectral_derivative, (), TIGHT * 16, [(2.0,)]),
    "real_cepstrum": (real_cepstrum, (), TIGHT * 16, [(SIG[:32],)]),
    "pca_svd": (pca_svd, ("k",), TIGHT * 64, [(normal(12, 4) @ normal(4, 4), 2)]),
    "cholesky_solve": (cholesky_solve, (), TIGHT * 16, [(SPD, normal(4))]),
    "gram_schmidt": (gram_schmidt, (), TIGHT * 16, [(normal(5, 3),)]),
    "lu_partial_pivoting": (lu_partial_pivoting, (), TIGHT * 16,
                            [(normal(4, 4),), (np.array([[1, 2, 3], [4, 5, 6], [7, 8, 10]]),)]),
    "expm_scaling_squaring": (expm_scaling_squaring, (), TIGHT * 64,
                              [(np.array([[0.0, 1.0], [-4.0, -0.5]]),)]),
    "gaussian_loglik": (gaussian_loglik, (), TIGHT * 16, [(normal(6, 4), normal(4), SPD)]),
    "qr_least_squares": (qr_least_squares, (), TIGHT * 64,
                         [(XS12, 1 + XS12 - 0.5 * XS12**2 + 0.1 * normal(12))]),
    "gauss_quadrature": (gauss_quadrature, (), TIGHT * 16,
                         [(np.arange(1, 5) / np.sqrt(4.0 * np.arange(1, 5) ** 2 - 1),)]),
    "particle_in_box": (particle_in_box, ("n",), TIGHT * 64, [(20, 1.0)]),
    "newton_2d": (newton_2d, (), TIGHT * 16, [(np.array([1.0, -1.5]), 8)]),
    "channel_estimate": (channel_estimate, (), TIGHT * 16,
                         [(QPSK, np.convolve(QPSK, [0.9, 0.3 - 0.2j, 0.1j])[:16] + 0.01 * normal(16))]),
    "logistic_regression_gd": (logistic_regression_gd, (), TIGHT * 16,
                               [(normal(20, 2), (RNG.random(20) < 0.5).astype(float), 0.5, 10)]),
    "kmeans_iterations": (kmeans_iterations, (), TIGHT, [(CLUSTERS, CLUSTERS[[0, 6, 12]] + 0.5)]),
    "knn_classify": (knn_classify, ("k",), TIGHT, [(CLUSTERS, LABELS3, normal(5, 2) * 3, 3)]),
    "gaussian_naive_bayes": (gaussian_naive_bayes, (), TIGHT * 16,
                             [(CLUSTERS[:12], np.repeat(np.arange(2), 6), normal(4, 2) * 3)]),
    "attention": (attention, (), TIGHT * 4,
                  [(normal(2, 4, 3), normal(2, 5, 3), normal(2, 5, 2), np.tril(np.ones((4, 5), bool), 1))]),
    "max_pool_2x2": (max_pool_2x2, (), TIGHT, [(IMG,), (normal(2, 5, 4),)]),
    "conv1d_layer": (conv1d_layer, (), TIGHT * 4, [(normal(2, 10, 3), normal(3, 3, 4), normal(4))]),
    "adam_quadratic": (adam_quadratic, (), TIGHT * 64, [(normal(6, 3), normal(6), np.zeros(3), 20)]),
    "batch_norm": (batch_norm, (), TIGHT * 4,
                   [(normal(3, 2, 4, 4), np.array([1.0, 0.5]), np.array([0.0, 1.0]))]),
    "harris_response": (harris_response, (), TIGHT * 4, [(BLOB + 0.01 * RNG.random((9, 9)), 0.05)]),
    "histogram_matching": (histogram_matching, (), EXACT, [(U8, U8_REF)]),
    "rgb_to_hsv": (rgb_to_hsv, (), TIGHT,
                   [(np.concatenate([RNG.random((5, 3)), np.array([[0.2, 0.2, 0.2], [0, 0, 0]])]),)]),
    "unsharp_mask": (unsharp_mask, (), TIGHT, [(IMG, 1.5)]),
    "rotate_nearest": (rotate_nearest, (), EXACT, [(U8, 0.4)]),
    "nonmax_suppression_1d": (nonmax_suppression_1d, ("radius",), EXACT, [(SIG[:20], 2)]),
    "ising_sweeps": (ising_sweeps, (), EXACT,
                     [(np.where(RNG.random((6, 6)) < 0.5, -1, 1), RNG.random((3, 6, 6)), 0.4)]),
    "gray_scott": (gray_scott, (), TIGHT * 4, [(GS_U, GS_V, 20)]),
    "kuramoto": (kuramoto, (), TIGHT * 64, [(RNG.random(8) * 2 * np.pi, normal(8) * 0.3, 1.5)]),
    "double_pendulum_rk4": (double_pendulum_rk4, (), TIGHT * 4, [(np.array([2.0, 1.0, 0.0, 0.0]), 30)]),
    "wave_2d": (wave_2d, (), TIGHT * 4, [(BLOB, 1.0, 10)]),
    "boris_pusher": (boris_pusher, ("steps",), TIGHT * 4,
                     [(np.zeros(3), np.array([1.0, 0.0, 0.2]), np.array([0.0, 0.0, 1.0]),
                       np.array([0.0, 0.1, 0.0]), 12)]),
    "romberg": (romberg, ("levels",), TIGHT, [(0.0, 2.0, 5)]),
    "secant_kepler": (secant_kepler, (), TIGHT, [(1.2, 0.3), (0.1, 0.9)]),
    "richardson_derivative": (richardson_derivative, (), TIGHT * 1024, [(np.linspace(-1, 2, 5),)]),
    "chebyshev_interpolation": (chebyshev_interpolation, ("n",), TIGHT * 4,
                                [(np.array([-1.0, -0.3, 0.0, 0.45, 1.0]), 16)]),
    "weighted_polyfit": (weighted_polyfit, (), TIGHT * 64,
                         [(XS12, np.exp(-XS12) + 0.01 * normal(12), RNG.random(12) + 0.5)]),
    "cumulative_simpson": (cumulative_simpson, (), TIGHT, [(np.sin(np.linspace(0, np.pi, 9)), np.pi / 8)]),
    "mann_whitney_u": (mann_whitney_u, (), TIGHT, [(normal(7), normal(9) + 0.5)]),
    "weighted_median": (weighted_median, (), TIGHT, [(normal(9), RNG.random(9))]),
    "kendall_tau": (kendall_tau, (), TIGHT, [(normal(10), normal(10))]),
    "chi2_contingency": (chi2_contingency, (), TIGHT, [(np.array([[10, 20, 30], [6, 9, 17]]),)]),
    "jackknife": (jackknife, (), TIGHT * 4, [(normal(8),)]),
    "docs_fft_example": (docs_fft_example, (), TIGHT * 4, [(np.arange(8),)]),
    "docs_histogram2d": (docs_histogram2d, (), TIGHT,
                         [(np.array([1.0, 2, 1, 4.5, 0.2, 3.9]), np.array([2.0, 1, 3, 5.9, 2.5, 0.1]))]),
}

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_new_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


def _row_swap_and_lookups(A, p, idx):
    B = np.eye(3)
    B[[0, p]] = B[[p, 0]]  # a NumPy array's rows swapped at a traced index
    table = np.linspace(0.0, 1.0, 5)
    return (A[[0, p]], A[[[p, 1], [2, p]]], A[:, [p, 0]], A[[p, -1], [0, p]], B,
            table[idx], table[[p, -1]], np.arange(6.0).reshape(2, 3)[1, p], np.arange(5)[idx[::-1]])


# The functions this round compiled, at their edges: (function, arguments, tolerance).
EDGES = {
    "ufunc.reduce as NumPy's fold: inf, -inf and NaN lanes, a length past the unrolled fold, keepdims, "
    "float32, an empty axis, 0-d": (
        lambda X, long, e, v32, ints: (
            np.logaddexp.reduce(X, axis=1), np.logaddexp.reduce(X, axis=0, keepdims=True),
            np.logaddexp2.reduce(long), np.hypot.reduce(X, axis=None),
            np.subtract.reduce(X, axis=1), np.divide.reduce(X, axis=0),
            np.logaddexp.reduce(e, axis=0), np.logaddexp.reduce(v32),
            np.remainder.reduce(ints, axis=1), np.floor_divide.reduce(ints, axis=0),
            np.logaddexp.reduce(X[0, 0]), np.hypot.reduce(long.reshape(5, 8), axis=(0, 1)),
            np.hypot.reduce(-np.abs(v32[:1])), np.logaddexp.reduce(X[1, 2:]),
            np.copysign.reduce(X, axis=1), np.fmod.reduce(ints, axis=1), np.heaviside.reduce(v32)),
        (np.array([[1.0, -np.inf, 3.0], [np.inf, 0.5, -0.0], [np.nan, 2.0, 1.0], [-np.inf, -np.inf, 0.0]]),
         normal(40), np.zeros((0, 3)), normal(7, dtype=f32), np.array([[17, 5, 3], [-9, 4, -2]])),
        TIGHT,
    ),
    "index lists holding traced values; NumPy arrays read at traced indices": (
        _row_swap_and_lookups, (normal(3, 3), 2, np.array([4, 0, -2])), EXACT,
    ),
}


@pytest.mark.parametrize("case", list(EDGES))
def test_edges_of_the_functions_this_round_compiled(case):
    check_edge(*EDGES[case], case)


def _row_of_constant(i):
    return np.eye(3)[i]


# What jitcore refuses on purpose: (function, arguments, error, words the message must hold).
REFUSED = {
    "np.arctan2.reduce (NumPy's own loop is not the fold)": (
        lambda x: np.arctan2.reduce(x), (normal(4),), jc.UnsupportedError, "arctan2.reduce"),
    "a reduction NumPy cannot reorder over two axes": (
        lambda x: np.subtract.reduce(x, axis=(0, 1)), (normal(2, 3),), ValueError, "not reorderable"),
}


def test_a_numpy_matrixs_row_at_a_traced_index_is_read():
    """Refused until session 43 (a view in NumPy, of a constant): now a read-only view, whose
    write is refused (tests/jitcore/test_inside_arrays.py)."""
    for i in (1, 2, -1):
        np.testing.assert_array_equal(jc.jit(_row_of_constant)(i), _row_of_constant(i))


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])
