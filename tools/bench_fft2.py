#!/usr/bin/env python
"""Two-dimensional FFTs under jit against NumPy: the numbers of docs/performance.md's
"Two-dimensional FFTs (fft51)".

    PYTHONPATH=. python tools/bench_fft2.py [--sizes 64,128,256,512] [--repeat 30] [--steps 50]

Per size: ``irfft2(rfft2(x), s=x.shape)`` of float64 and ``ifft2(fft2(z))`` of complex128, and
at 128 the spectral Navier-Stokes step of 50 steps (``ns_spectral``: four irfft2 and one rfft2
a step, report t49). Each compiles once (not timed); jit and NumPy then run in turn, three
rounds of ``--repeat`` calls; the table shows the median of the rounds' medians (us; ms for
the spectral step) and jit / NumPy (below 1: jit faster). Run it in each tree alternately
(base, branch, base, ...) on a loaded host.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import jitcore as jc


def ns_spectral(w, nu, dt, nsteps):
    n = w.shape[0]
    k = np.fft.fftfreq(n, 1.0 / n)
    kr = np.fft.rfftfreq(n, 1.0 / n)
    ky, kx = np.meshgrid(k, kr, indexing="ij")
    k2 = kx**2 + ky**2
    k2i = np.where(k2 == 0, 0.0, 1.0 / np.where(k2 == 0, 1.0, k2))
    dealias = (np.abs(kx) < n / 3) & (np.abs(ky) < n / 3)
    wh = np.fft.rfft2(w)
    for _ in range(nsteps):
        psih = wh * k2i
        u = np.fft.irfft2(1j * ky * psih, s=(n, n))
        v = np.fft.irfft2(-1j * kx * psih, s=(n, n))
        wx = np.fft.irfft2(1j * kx * wh, s=(n, n))
        wy = np.fft.irfft2(1j * ky * wh, s=(n, n))
        nl = np.fft.rfft2(u * wx + v * wy) * dealias
        wh = (wh - dt * nl) / (1 + dt * nu * k2)
    return np.fft.irfft2(wh, s=(n, n))


def real_pair(x):
    return np.fft.irfft2(np.fft.rfft2(x), s=x.shape)


def complex_pair(z):
    return np.fft.ifft2(np.fft.fft2(z))


def _median(fn, args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _row(name: str, fn, args, repeat: int, unit: float, label: str) -> None:
    jitted = jc.jit(fn)
    np.testing.assert_allclose(jitted(*args), fn(*args), rtol=1e-9, atol=1e-9)
    ours, theirs = [], []
    for _ in range(3):
        ours.append(_median(jitted, args, repeat))
        theirs.append(_median(fn, args, repeat))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"{name:<24} jit {a / unit:9.1f} {label}  numpy {b / unit:9.1f} {label}  jit/numpy {a / b:5.2f}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64,128,256,512")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for n in (int(s) for s in args.sizes.split(",")):
        x = rng.standard_normal((n, n))
        z = x + 1j * rng.standard_normal((n, n))
        _row(f"rfft2+irfft2 {n}x{n}", real_pair, (x,), args.repeat, 1e-6, "us")
        _row(f"fft2+ifft2 {n}x{n}", complex_pair, (z,), args.repeat, 1e-6, "us")
        if n == 128:
            _row(f"ns_spectral {n} x{args.steps}", ns_spectral, (x, 0.01, 0.001, args.steps),
                 max(3, args.repeat // 10), 1e-3, "ms")


if __name__ == "__main__":
    main()
