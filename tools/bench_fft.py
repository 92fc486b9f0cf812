#!/usr/bin/env python
"""``numpy.fft`` under jit against NumPy's pocketfft: the numbers of docs/performance.md's
"numpy.fft under jit" section.

    PYTHONPATH=. python tools/bench_fft.py [--repeat R] [--cases fft-1024,...] [--threads 1,2]

Cases: ``fft`` of complex64 and complex128 data of 2^10, 2^16 and 2^20 points and of the prime
10007 (Bluestein), and ``rfft`` of each row of a 1024x1024 float32 and float64 array. Each case
compiles once (not timed), then jitcore (on each thread count of ``--threads``) and NumPy run in
turn, R times each; the table shows the median wall time of each and the ratio of medians
(jitcore / NumPy: below 1 is faster), and the compile time.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import numpy as np
from bench import _median_time  # tools/, on sys.path as this module's own folder

import jitcore as jc


def cases():
    rng = np.random.default_rng(0)
    out = {}
    for dtype in (np.complex64, np.complex128):
        for n in (1 << 10, 1 << 16, 1 << 20, 10007):
            x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
            out[f"fft-{n}-{np.dtype(dtype).name}"] = (np.fft.fft, x)
    for dtype in (np.float32, np.float64):
        rows = rng.standard_normal((1024, 1024)).astype(dtype)
        out[f"rfft-rows-1024x1024-{np.dtype(dtype).name}"] = (np.fft.rfft, rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    chosen = set(filter(None, args.cases.split(",")))
    print(f"{'case':32} {'compile s':>9} " + " ".join(f"{f'jc {t}t ms':>10}" for t in threads)
          + f" {'NumPy ms':>10} " + " ".join(f"{f'ratio {t}t':>8}" for t in threads))
    for name, (np_fn, x) in cases().items():
        if chosen and name not in chosen:
            continue
        jitted = jc.jit(lambda a, f=np_fn: f(a), cache=False)
        start = time.perf_counter()
        jitted(x)
        compile_s = time.perf_counter() - start
        ours = {t: [] for t in threads}
        theirs = []
        for _ in range(3):  # alternate, so that a burst of load hits both
            for t in threads:
                with jc.config.using(num_threads=t):
                    ours[t].append(_median_time(functools.partial(jitted, x), args.repeat) * 1e3)
            theirs.append(_median_time(functools.partial(np_fn, x), args.repeat) * 1e3)
        ours = {t: statistics.median(v) for t, v in ours.items()}
        numpy_ms = statistics.median(theirs)
        print(f"{name:32} {compile_s:9.2f} " + " ".join(f"{ours[t]:10.3f}" for t in threads)
              + f" {numpy_ms:10.3f} " + " ".join(f"{ours[t] / numpy_ms:8.2f}" for t in threads), flush=True)


if __name__ == "__main__":
    main()
