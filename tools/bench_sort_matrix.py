#!/usr/bin/env python
"""Sorting and order statistics over a matrix of shapes and dtypes, against NumPy in one run
(docs/performance.md, "Sorting and selection ... (branch sort36)").

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_sort_matrix.py \
        [--functions sort,argsort,median,percentile] [--dtypes float64,int32] [--repeat R] [--loop L]

Rows of 10, 100, 1000 and 10^4 (10^6 elements each) and single arrays of 10^3..10^6: each
case is jitted once (its first call's thread CPU seconds printed as the compile), checked
against NumPy (argsort: the stable kind; partition-like results by value), then timed R samples
of L back-to-back calls each, jitcore's and NumPy's in turn: medians of the process's CPU time
a call (all its threads), which moves less than wall time on a shared host, and NumPy's over
jitcore's. Copy it into a base tree to compare with it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc

SHAPES = [(100000, 10), (10000, 100), (1000, 1000), (100, 10000), (1000,), (10000,), (100000,), (1000000,)]


def functions(name: str):
    """The function to jit and NumPy's own (argsort: the stable kind, jitcore's order)."""
    if name == "argsort":
        return (lambda a: np.argsort(a, axis=-1)), (lambda a: np.argsort(a, axis=-1, kind="stable"))
    if name == "median":
        return (lambda a: np.median(a, axis=-1)), (lambda a: np.median(a, axis=-1))
    if name == "percentile":
        return ((lambda a: np.percentile(a, [25, 50, 75], axis=-1)),
                (lambda a: np.percentile(a, [25, 50, 75], axis=-1)))
    return (lambda a: np.sort(a, axis=-1)), (lambda a: np.sort(a, axis=-1))


def timed(f, x, repeat: int, loop: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(loop):
            f(x)
        samples.append((time.process_time() - start) / loop)
    return float(np.median(samples)) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", default="sort,argsort,median,percentile")
    parser.add_argument("--dtypes", default="float64,float32,int64,int32")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop", type=int, default=3)
    args = parser.parse_args()
    for name in args.functions.split(","):
        for dtype in args.dtypes.split(","):
            for shape in SHAPES:
                x = (np.random.default_rng(0).standard_normal(shape) * 1000).astype(dtype)
                fn, numpy_fn = functions(name)
                jitted = jc.jit(fn, cache=False)
                start = time.thread_time()
                got = jitted(x)
                compile_s = time.thread_time() - start
                assert np.array_equal(got, numpy_fn(x)), (name, shape, dtype)
                jc_ms, np_ms = 0.0, 0.0
                for _ in range(2):  # alternate, twice: load shifts hit both
                    jc_ms += timed(jitted, x, args.repeat, args.loop) / 2
                    np_ms += timed(numpy_fn, x, args.repeat, args.loop) / 2
                print(f"{name:10} {'x'.join(map(str, shape)):11} {dtype:8} cpu jc {jc_ms:8.3f} "
                      f"np {np_ms:8.3f} np/jc {np_ms / jc_ms:5.2f} | first call {compile_s:5.2f} s",
                      flush=True)


if __name__ == "__main__":
    main()
