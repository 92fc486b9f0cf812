#!/usr/bin/env python
"""``np.sort`` (and ``np.argsort``) of 10^6 values under jit against NumPy's, per dtype: the
numbers of docs/performance.md's "Sorting" section (issue 12, item 6).

    PYTHONPATH=. python tools/bench_sort.py [--size N] [--repeat R] [--argsort]

The values are ``standard_normal(N).astype(dtype) * 1000`` (so the ints lie within about
+-5000). Three sorts run in turn, R times each, after one call that compiles: jitcore as built,
jitcore with the native radix routine off (``codegen/cpu/sort.py``'s ``ENABLED``: the kernels'
own loops, the baseline) and NumPy. Each column is a median: wall time, and the process's CPU
time (all its threads), which moves less when other processes share the cores.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--argsort", action="store_true")
    args = parser.parse_args()
    sort = np.argsort if args.argsort else np.sort
    for dtype in (np.float64, np.float32, np.int64, np.int32):
        x = np.random.default_rng(0).standard_normal(args.size).astype(dtype) * 1000
        runs = {"jitcore": compiled(lambda a: sort(a), True, x),
                "baseline": compiled(lambda a: sort(a), False, x),
                "NumPy": lambda a: sort(a, kind="stable") if args.argsort else sort(a)}
        expected = np.argsort(x, kind="stable") if args.argsort else np.sort(x)
        for name in ("jitcore", "baseline"):
            assert np.array_equal(runs[name](x), expected), name
        wall = {name: [] for name in runs}
        cpu = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, fn in runs.items():
                w, c = time.perf_counter(), time.process_time()
                fn(x)
                wall[name].append(time.perf_counter() - w)
                cpu[name].append(time.process_time() - c)
        ms = {name: (np.median(wall[name]) * 1e3, np.median(cpu[name]) * 1e3) for name in runs}
        columns = "   ".join(f"{name} {w:6.2f} ms (cpu {c:6.2f})" for name, (w, c) in ms.items())
        ratios = [ms["NumPy"][k] / ms["jitcore"][k] for k in (0, 1)]
        print(f"{np.dtype(dtype).name:8} {columns}   NumPy/jitcore wall {ratios[0]:.2f} cpu {ratios[1]:.2f}")


if __name__ == "__main__":
    main()
