#!/usr/bin/env python
"""Sorting and order statistics over a matrix of shapes and dtypes, against NumPy in one run
(docs/performance.md, "Sorting and selection ... (branch sort36)").

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_sort_matrix.py \
        [--functions sort,argsort,median,percentile,partition] [--dtypes float64,int32] \
        [--inputs normal,sorted,equal,round] [--shapes 1000000,10000x100] [--repeat R] [--loop L]

Rows of 10, 100, 1000 and 10^4 (10^6 elements each) and single arrays of 10^3..10^6: each
case is jitted once (its first call's thread CPU seconds printed as the compile), checked
against NumPy (argsort: the stable kind; partition-like results by value), then timed R samples
of L back-to-back calls each, jitcore's and NumPy's in turn: medians of the process's CPU time
a call (all its threads), which moves less than wall time on a shared host, and NumPy's over
jitcore's. Copy it into a base tree to compare with it. ``--inputs``: the data (``normal``: normals
times 1000, the default; ``sorted``: those sorted along the rows; ``equal``: all 3; ``round``:
normals rounded to 2 decimals, times 100 for ints; ``few``: 0..3).
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
    if name == "partition":
        return (lambda a: np.partition(a, a.shape[-1] // 2, axis=-1)), \
            (lambda a: np.partition(a, a.shape[-1] // 2, axis=-1))
    if name == "percentile":
        return ((lambda a: np.percentile(a, [25, 50, 75], axis=-1)),
                (lambda a: np.percentile(a, [25, 50, 75], axis=-1)))
    return (lambda a: np.sort(a, axis=-1)), (lambda a: np.sort(a, axis=-1))


def data(kind: str, shape: tuple, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if kind == "equal":
        return np.full(shape, 3, dtype)
    if kind == "few":
        return rng.integers(0, 4, shape).astype(dtype)
    if kind == "round":
        x = np.round(rng.standard_normal(shape), 2)
        return (x if np.dtype(dtype).kind == "f" else x * 100).astype(dtype)
    x = (rng.standard_normal(shape) * 1000).astype(dtype)
    return np.sort(x, axis=-1) if kind == "sorted" else x


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
    parser.add_argument("--inputs", default="normal")
    parser.add_argument("--shapes", default=None, help="comma-separated, as 1000000 or 10000x100")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop", type=int, default=3)
    args = parser.parse_args()
    shapes = SHAPES if args.shapes is None else \
        [tuple(int(d) for d in s.split("x")) for s in args.shapes.split(",")]
    for name, kind, dtype, shape in ((n, k, d, s) for n in args.functions.split(",")
                                     for k in args.inputs.split(",") for d in args.dtypes.split(",")
                                     for s in shapes):
        x = data(kind, shape, dtype)
        fn, numpy_fn = functions(name)
        jitted = jc.jit(fn, cache=False)
        start = time.thread_time()
        got = jitted(x)
        compile_s = time.thread_time() - start
        if name == "partition":  # the contract: the middle rank's value where sorting puts it
            k = x.shape[-1] // 2
            assert np.array_equal(got[..., k], numpy_fn(x)[..., k]), (name, shape, dtype)
        else:
            assert np.array_equal(got, numpy_fn(x)), (name, shape, dtype)
        jc_ms, np_ms = 0.0, 0.0
        for _ in range(2):  # alternate, twice: load shifts hit both
            jc_ms += timed(jitted, x, args.repeat, args.loop) / 2
            np_ms += timed(numpy_fn, x, args.repeat, args.loop) / 2
        print(f"{name:10} {kind:7} {'x'.join(map(str, shape)):11} {dtype:8} cpu jc {jc_ms:8.3f} "
              f"np {np_ms:8.3f} np/jc {np_ms / jc_ms:5.2f} | first call {compile_s:5.2f} s",
              flush=True)


if __name__ == "__main__":
    main()
