#!/usr/bin/env python
"""``np.sort`` of 10^6 values under jit against NumPy's, per dtype: the numbers of
docs/performance.md's "Sorting" section (issue 12, item 6).

    PYTHONPATH=. python tools/bench_sort.py [--size N] [--repeat R]

The values are ``standard_normal(N).astype(dtype) * 1000`` (so the ints lie within about
+-5000); each time is the median of R calls after one that compiles.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc


def median_ms(fn, x, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    jitted = jc.jit(np.sort)
    for dtype in (np.float64, np.float32, np.int64, np.int32):
        x = np.random.default_rng(0).standard_normal(args.size).astype(dtype) * 1000
        assert np.array_equal(jitted(x), np.sort(x))
        ours, numpy = median_ms(jitted, x, args.repeat), median_ms(np.sort, x, args.repeat)
        print(f"{np.dtype(dtype).name:8} jitcore {ours:8.2f} ms   NumPy {numpy:8.2f} ms   "
              f"NumPy/jitcore {numpy / ours:.2f}")


if __name__ == "__main__":
    main()
