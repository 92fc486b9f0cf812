#!/usr/bin/env python
"""``np.sort`` (and ``np.argsort``) of 10^6 values under jit against NumPy's, per dtype: the
numbers of docs/performance.md's "Sorting" section (issue 12, item 6).

    PYTHONPATH=. python tools/bench_sort.py [--size N] [--repeat R] [--argsort] [--baseline]
                                            [--dtypes float64,float32]

The values are ``standard_normal(N).astype(dtype) * 1000`` (so the ints lie within about
+-5000). The sorts run in turn, R times each, after one call that compiles: jitcore on one
thread, jitcore on two (``jc.config.num_threads``; the runtime's default threshold), NumPy,
and with ``--baseline`` jitcore with the native routine off (``codegen/cpu/sort.py``'s
``ENABLED``: the kernels' own loops). Each column is a median: wall time, and the process's
CPU time (all its threads), which moves less when other processes share the cores; then the
best wall times (the least of the R calls: on a host whose cores other processes share, the
call that ran with the cores free) and their ratios.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import sort as native_sort


def compiled(fn, native: bool, x):
    """``fn`` jitted (no disk cache: the two builds share a cache key) and compiled for ``x``."""
    jitted = jc.jit(fn, cache=False)
    native_sort.ENABLED = native
    try:
        jitted(x)
    finally:
        native_sort.ENABLED = True
    return jitted


def on_threads(fn, threads: int):
    def run(x):
        with jc.config.using(num_threads=threads):
            return fn(x)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--argsort", action="store_true")
    parser.add_argument("--baseline", action="store_true", help="also the kernels' own loops")
    parser.add_argument("--dtypes", default="float64,float32,int64,int32")
    args = parser.parse_args()
    sort = np.argsort if args.argsort else np.sort
    for dtype in args.dtypes.split(","):
        x = np.random.default_rng(0).standard_normal(args.size).astype(dtype) * 1000
        jitted = compiled(lambda a: sort(a), True, x)
        runs = {"jc 1 thread": on_threads(jitted, 1), "jc 2 threads": on_threads(jitted, 2),
                "NumPy": lambda a: sort(a, kind="stable") if args.argsort else sort(a)}
        if args.baseline:
            runs["baseline"] = on_threads(compiled(lambda a: sort(a), False, x), 1)
        expected = np.argsort(x, kind="stable") if args.argsort else np.sort(x)
        for name, fn in runs.items():
            if name != "NumPy":
                assert np.array_equal(fn(x), expected), name
        wall = {name: [] for name in runs}
        cpu = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, fn in runs.items():
                w, c = time.perf_counter(), time.process_time()
                fn(x)
                wall[name].append(time.perf_counter() - w)
                cpu[name].append(time.process_time() - c)
        ms = {name: (np.median(wall[name]) * 1e3, np.median(cpu[name]) * 1e3) for name in runs}
        columns = "  ".join(f"{name} {w:6.2f} ms (cpu {c:6.2f})" for name, (w, c) in ms.items())
        one, two, numpy = ms["jc 1 thread"], ms["jc 2 threads"], ms["NumPy"]
        print(f"{np.dtype(dtype).name:8} {columns}  NumPy/jc: 1 thread cpu {numpy[1] / one[1]:.2f} "
              f"wall {numpy[0] / one[0]:.2f}, 2 threads wall {numpy[0] / two[0]:.2f}")
        best = {name: min(wall[name]) * 1e3 for name in runs}
        columns = "  ".join(f"{name} {w:6.2f} ms" for name, w in best.items())
        print(f"{'  best':8} {columns}  NumPy/jc: 1 thread {best['NumPy'] / best['jc 1 thread']:.2f}, "
              f"2 threads {best['NumPy'] / best['jc 2 threads']:.2f}")


if __name__ == "__main__":
    main()
