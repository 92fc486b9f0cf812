#!/usr/bin/env python
"""``z @ z.T`` (one array times its own transpose: a Gram or kinship matrix) against ``z @ w.T``
(w a copy of z), jitcore and NumPy in the same process (docs/performance.md, "Session 55:
matmul"). NumPy calls BLAS's syrk for the first (half the products), gemm for the second.

    OPENBLAS_NUM_THREADS=1 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_gram_product.py \\
        [--shape 2000x1000] [--turns 5] [--cpu] [--jit-only]

Each turn calls NumPy's ``z @ z.T``, NumPy's ``z @ w.T``, jitcore's ``z @ z.T`` and jitcore's
``z @ w.T`` once, in that order (``--jit-only``: jitcore's two only: a call right after
OpenBLAS's threaded one shares the cores with its still-spinning workers); prints the medians
in ms: wall clock, or this process's CPU time with ``--cpu`` (with every library on one thread).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import jitcore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="2000x1000")
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="process CPU time, not the wall clock")
    parser.add_argument("--jit-only", action="store_true", help="time jitcore's two products only")
    args = parser.parse_args()
    rows, cols = map(int, args.shape.split("x"))
    z = np.random.default_rng(0).standard_normal((rows, cols))
    w = z.copy()
    zzt = jitcore.jit(lambda z: z @ z.T)
    zwt = jitcore.jit(lambda z, w: z @ w.T)
    assert np.allclose(zzt(z), z @ z.T) and np.allclose(zwt(z, w), z @ w.T)
    cases = {"jit z@z.T": lambda: zzt(z), "jit z@w.T": lambda: zwt(z, w)}
    if not args.jit_only:
        cases = {"numpy z@z.T": lambda: z @ z.T, "numpy z@w.T": lambda: z @ w.T, **cases}
    clock = time.process_time if args.cpu else time.perf_counter
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.turns):
        for name, call in cases.items():
            start = clock()
            call()
            times[name].append(clock() - start)
    print("  ".join(f"{name} {statistics.median(t) * 1e3:.1f} ms" for name, t in times.items()))


if __name__ == "__main__":
    main()
