"""Session 53 (neuro53): an FFT cross-correlation's first call (compile) and run, np.histogram
with np.arange's edges, and a spike raster's nonzero + bincount; jit and NumPy, one JSON line.
Run it in a base worktree and this one, alternating: ``PYTHONPATH=. python tools/bench_neuro_53.py``.
"""

from __future__ import annotations

import json
import time
import warnings

import numpy as np

import jitcore

warnings.simplefilter("ignore")


def fft_xcorr(x, y):
    n = x.size + y.size - 1
    nf = 1 << (n - 1).bit_length()
    spectrum_x = np.fft.rfft(x - x.mean(), nf)
    spectrum_y = np.fft.rfft(y - y.mean(), nf)
    return np.fft.irfft(spectrum_x.conj() * spectrum_y, nf)


def hist_edges(d, e):
    return np.histogram(d, bins=e)[0]


def raster_to_times(raster, dt):
    t_idx, n_idx = np.nonzero(raster)
    rates = np.bincount(n_idx, minlength=raster.shape[1]) / (raster.shape[0] * dt)
    return t_idx * dt, n_idx, rates


def median_ms(f, *args, runs=7):
    f(*args)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - start)
    return float(np.median(times) * 1e3)


def main():
    out = {}
    rng = np.random.default_rng(0)
    for k in (10, 19):
        x, y = rng.random(1 << k), rng.random(1 << k)
        jitted = jitcore.jit(fft_xcorr, cache=False)
        start = time.perf_counter()
        jitted(x, y)
        out[f"S6 compile 2^{k} s"] = time.perf_counter() - start
        out[f"S6 run 2^{k} ms"] = median_ms(jitted, x, y, runs=5)
        out[f"S6 numpy 2^{k} ms"] = median_ms(fft_xcorr, x, y, runs=5)
    samples, edges = rng.uniform(-50, 50, 300_000), np.arange(-50.0, 51.0, 1.0)
    out["S2 jit ms"] = median_ms(jitcore.jit(hist_edges, cache=False), samples, edges)
    out["S2 numpy ms"] = median_ms(hist_edges, samples, edges)
    raster = np.random.default_rng(0).random((200000, 50)) < 0.02
    out["S1 jit ms"] = median_ms(jitcore.jit(raster_to_times, cache=False), raster, 0.001, runs=5)
    out["S1 numpy ms"] = median_ms(raster_to_times, raster, 0.001, runs=5)
    print(json.dumps({k: round(v, 3) for k, v in out.items()}))


if __name__ == "__main__":
    main()
