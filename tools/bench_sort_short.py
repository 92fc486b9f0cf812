#!/usr/bin/env python
"""Short sorts against NumPy, whole calls: 1-d arrays of 8..2048 and rows of 16..1000
(docs/performance.md, "Short 1-d sorts ... (branch sort37)").

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_sort_short.py \
        [--functions sort,argsort,median,percentile] [--dtypes float64,float32,int64,int32] \
        [--lengths 8,32,100,256,1000,2048] [--rows 16,100,1000] [--repeat R] [--loop L]

A short sort's cost is mostly the call (NumPy's dispatch is a microsecond or two), so each
sample is the calling thread's CPU time (``time.thread_time``: the call's dispatch, the native
code and the result's allocation; on one jitcore thread nothing else runs) of ``L`` whole calls,
jitcore's and NumPy's samples in turn; medians of ``R`` samples in microseconds a call, and
NumPy's over jitcore's (above 1: jitcore is faster). Rows are 200 lanes of each length. Each
function is checked against NumPy first (argsort: the stable kind). Copy it into a base tree to
compare with it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_sort_matrix import functions  # tools/, beside this file

import jitcore as jc


def sample(f, x, loop: int) -> float:
    start = time.thread_time()
    for _ in range(loop):
        f(x)
    return (time.thread_time() - start) / loop * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", default="sort,argsort,median,percentile")
    parser.add_argument("--dtypes", default="float64,float32,int64,int32")
    parser.add_argument("--lengths", default="8,32,100,256,1000,2048")
    parser.add_argument("--rows", default="16,100,1000")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--loop", type=int, default=200)
    args = parser.parse_args()
    shapes = [(int(n),) for n in args.lengths.split(",") if n]
    shapes += [(200, int(n)) for n in args.rows.split(",") if n]
    print("| case | jc us | NumPy us | NumPy/jc | first s |")
    print("|---|---:|---:|---:|---:|")
    for name in args.functions.split(","):
        mine, numpys = functions(name)
        for dtype in args.dtypes.split(","):
            for shape in shapes:
                x = (np.random.default_rng(0).standard_normal(shape) * 1000).astype(dtype)
                f = jc.jit(mine)
                start = time.thread_time()
                got = f(x)
                first = time.thread_time() - start
                np.testing.assert_array_equal(got, numpys(x))
                loop = max(1, args.loop * 100 // max(100, x.size))
                jcs, nps = [], []
                for _ in range(args.repeat):
                    jcs.append(sample(f, x, loop))
                    nps.append(sample(numpys, x, loop))
                j, n = float(np.median(jcs)), float(np.median(nps))
                label = "x".join(map(str, shape))
                print(f"| {name} {label} {dtype} | {j:.2f} | {n:.2f} | {n / j:.2f} | {first:.2f} |",
                      flush=True)


if __name__ == "__main__":
    main()
