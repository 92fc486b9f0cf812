"""Real radix stages for odd lengths: ``irfft`` of odd ``n`` computing half of each stage's
outputs, where the complex transform (``fft_plan._transform_along``) computes all of them.

A Hermitian spectrum ``X`` of odd length ``L = r S`` (its first ``(L + 1) / 2`` terms stored) has
a real backward transform ``x``. Decimation in frequency, as the complex stages:

    x[h + r q] = sum_s w_S^(-qs) Z_h[s],   Z_h[s] = w_L^(-sh) sum_j w_r^(-hj) X[j S + s]

and since each ``x[h + r q]`` (``q`` running) is real, each ``Z_h`` is Hermitian in ``s``: the
stage computes ``Z_h[s]`` for ``s <= S // 2`` only (``(S + 1) / 2`` of ``S`` points, for every
``h``), and the next stage runs the same way on the ``r`` sub-spectra of length ``S`` side by
side (the Stockham layout of ``fft_plan``: points, then sub-transforms). A stage reads the
terms ``X[j S + s]`` it needs as slices of the stored half: directly for ``j <= r // 2``, as
``conj(X[(r - j) S - s])`` (a reversed slice) above, so the mirror is part of the stage's
kernel, not a pass of its own. The last stage (``S = 1``) computes the real parts alone. Every
stage keeps ``fft_plan._odd_butterfly``'s conjugate pairs and tables along the tiles' lanes.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.numpy import fft_plan
from jitcore.numpy.fft_plan import _times, radices, roots


def _butterfly(z, batch: tuple, length: int, r: int, lanes: tuple, first: bool, real: bool):
    """``sum_j w_r^(-hj) X[j S + s]`` for every ``h`` and ``s < (S + 1) / 2`` (``S = length /
    r``), of each sub-spectrum stored as its first ``(length + 1) / 2`` points in ``z``
    (``batch + (points, 1, subs) + lanes``: the unit axis for ``h``). By the conjugate pairs
    of ``fft_plan._odd_butterfly``: the pair ``j``, ``r - j`` reads ``X[j S + s]`` and
    ``X[(r - j) S + s] = conj(X[j S - s])`` (a reversed slice), the conjugate
    taken in the pair's sum and difference by their signs. Every read is a view of the stored
    ``z``, so it stays in the stage's kernel (a conjugate or a view reshaped after slicing
    would be a stored pass of its own). ``first``: ``X[0]``'s imaginary part is not part of the
    signal (irfft ignores it, as NumPy does). ``real``: the real parts alone."""
    s_len = length // r
    kept = (s_len + 1) // 2
    h = np.arange(r)
    along = (1,) * len(lanes)
    spread = lanes if lanes == (fft_plan.ROW_TILE,) else along  # as fft_plan._stage's tables
    part = np.dtype(z.dtype).char.lower()
    shape = batch + (kept, r) + z.shape[len(batch) + 2:]

    def view(index):
        return np.broadcast_to(z[(slice(None),) * len(batch) + (index,)], shape)

    t0 = view(slice(0, kept))
    re, im = np.real(t0), np.imag(t0)
    if first:  # a select, not a product by 0: an infinite or NaN imaginary part is dropped too
        keep = (np.arange(kept) > 0).reshape((kept, 1) + (1,) * (len(shape) - len(batch) - 2))
        im = np.where(keep, im, np.zeros((), im.dtype))
    for j in range(1, (r + 1) // 2):
        top = j * s_len  # X[(r - j) S + s] = conj(X[j S - s]), j S - s >= j S - S / 2 > 0
        a = view(slice(top, top + kept))
        b = view(slice(top, top - kept, -1))
        w = roots(h * j, r, 1, np.complex128)
        c = np.broadcast_to(w.real.astype(part).reshape((r, 1) + along), (r, 1) + spread)
        si = np.broadcast_to(w.imag.astype(part).reshape((r, 1) + along), (r, 1) + spread)
        total_re, diff_im = np.real(a) + np.real(b), np.imag(a) + np.imag(b)
        re = re + c * total_re - si * diff_im
        if not real:
            total_im, diff_re = np.imag(a) - np.imag(b), np.real(a) - np.real(b)
            im = im + c * total_im + si * diff_re
    return re if real else prims.complex_from_parts(re, im)


def _half_stage(z, batch: tuple, length: int, r: int, subs: int, lanes: tuple, first: bool):
    """One backward stage of radix ``r`` on sub-spectra of odd ``length``: ``z`` is
    ``batch + ((length + 1) / 2, subs) + lanes``; returns ``batch + ((S + 1) / 2, r subs) +
    lanes``, ``S = length / r`` (real, the sub-spectra's transforms, where ``S`` is 1)."""
    z = z.reshape(batch + ((length + 1) // 2, 1, subs) + lanes)
    s_len = length // r
    kept = (s_len + 1) // 2
    acc = _butterfly(z, batch, length, r, lanes, first, real=s_len == 1)
    if s_len > 1:
        h = np.arange(r)
        twiddles = roots(np.outer(np.arange(kept), h), length, 1, np.complex128)
        acc = _times(twiddles, acc, (kept, r, 1) + (1,) * len(lanes), z.dtype)
    return acc.reshape(batch + (kept, r * subs) + lanes)


def hermitian_to_real(c, n: int, lanes: tuple = ()):
    """The unscaled backward transform, real, of the Hermitian spectra ``c``
    (``batch + ((n + 1) / 2,) + lanes``: the first terms, ``n`` odd with every factor a radix
    of ``fft_plan.radices``, at least 3), as ``batch + (n,) + lanes``."""
    batch = c.shape[:c.ndim - 1 - len(lanes)]
    z = c.reshape(batch + ((n + 1) // 2, 1) + lanes)
    length, subs = n, 1
    for k, r in enumerate(radices(n)):
        z = _half_stage(z, batch, length, r, subs, lanes, first=k == 0)
        length //= r
        subs *= r
    return z.reshape(batch + (n,) + lanes)


fft_plan.REAL_STAGES["hermitian_to_real"] = hermitian_to_real
