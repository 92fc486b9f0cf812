#!/usr/bin/env python
"""Sorts of many short lanes (rows, columns, medians along rows) and of long 1-d lanes under jit
against NumPy: the numbers of docs/performance.md's "Sorting many short lanes" section (sort32).

    JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_sort_lanes.py [--repeat R] [CASE ...]

CASE numbers pick rows of the table (all by default). Values are ``standard_normal * 1000`` in
the dtype. Each case compiles once, checks the result against NumPy's (``kind='stable'`` for
argsort), then times R calls of jitcore and NumPy in turn: medians of the wall time and of the
process's CPU time (all its threads), which moves less when other processes share the cores.
Run it in the base tree and the branch in turn to compare them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc

CASES = [  # function, shape, dtype, axis
    ("sort", (1000000,), "float64", -1),
    ("sort", (1000, 1000), "float64", -1),
    ("sort", (100, 10000), "float64", -1),
    ("sort", (10000, 100), "float64", -1),
    ("sort", (1000, 1000), "float32", -1),
    ("sort", (10000, 100), "float32", -1),
    ("sort", (1000, 1000), "int64", -1),
    ("sort", (10000, 100), "int64", -1),
    ("sort", (1000, 1000), "float64", 0),
    ("median", (1000, 1000), "float64", 1),
    ("argsort", (1000, 1000), "float64", -1),
    ("argsort", (10000, 100), "float32", -1),
    ("sort", (1000000,), "float32", -1),
    ("sort", (1000000,), "int64", -1),
    ("argsort", (1000000,), "float64", -1),
    # sort35: 64-bit rows of 10^4, rows of 100 and 16, argsorts of rows, 32-bit beside them
    ("sort", (100, 10000), "int64", -1),
    ("sort", (100, 10000), "float32", -1),
    ("sort", (100, 10000), "int32", -1),
    ("sort", (1000, 100), "float64", -1),
    ("sort", (1000, 100), "float32", -1),
    ("sort", (1000, 100), "int64", -1),
    ("sort", (1000, 100), "int32", -1),
    ("sort", (10000, 16), "float64", -1),
    ("sort", (10000, 16), "float32", -1),
    ("sort", (10000, 16), "int64", -1),
    ("sort", (10000, 16), "int32", -1),
    ("argsort", (100, 10000), "float64", -1),
    ("argsort", (100, 10000), "int64", -1),
    ("argsort", (10000, 100), "float64", -1),
    ("argsort", (1000, 100), "int64", -1),
    ("sort", (10000, 100), "int32", -1),
    ("sort", (1000000,), "int32", -1),
]


def functions(name: str, axis: int):
    """The function to jit and NumPy's own (argsort: the stable kind, jitcore's order)."""
    if name == "median":
        return (lambda a: np.median(a, axis=axis)), (lambda a: np.median(a, axis=axis))
    if name == "argsort":
        return (lambda a: np.argsort(a, axis=axis)), (lambda a: np.argsort(a, axis=axis, kind="stable"))
    return (lambda a: np.sort(a, axis=axis)), (lambda a: np.sort(a, axis=axis))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--loop", type=int, default=1,
                        help="calls back to back a sample (times per call): a loop that only calls "
                             "one function meets the C library's heap as a program's loop does")
    parser.add_argument("--compiles", action="store_true",
                        help="only count the compiles of one jitted sort over three lane lengths a dtype")
    parser.add_argument("cases", nargs="*", type=int)
    args = parser.parse_args()
    if args.compiles:
        count_compiles()
        return
    for i, (name, shape, dtype, axis) in enumerate(CASES):
        if args.cases and i not in args.cases:
            continue
        x = (np.random.default_rng(0).standard_normal(shape) * 1000).astype(dtype)
        fn, numpy_fn = functions(name, axis)
        jitted = jc.jit(fn, cache=False)
        start = time.perf_counter()
        assert np.array_equal(jitted(x), numpy_fn(x)), (name, shape, dtype)
        compile_s = time.perf_counter() - start
        timed = against_numpy(jitted, numpy_fn, x, args.repeat, args.loop)
        print(f"{i:2} {name:7} {'x'.join(map(str, shape)):10} {dtype:8} axis {axis:2}  "
              f"{timed} | compile {compile_s:5.2f} s", flush=True)


LENGTHS = ((200, 100), (200, 120), (200, 127), (100, 3000), (100, 3500), (100, 4000))


def count_compiles() -> None:
    """Rows of the ``LENGTHS`` through one jitted ``np.sort`` (and argsort) a dtype: traces
    and compiles (a lane length whose code another length made is a trace, not a compile)."""
    for name in ("sort", "argsort"):
        for dtype in ("float64", "float32", "int64", "int32"):
            fn, numpy_fn = functions(name, -1)
            jitted = jc.jit(fn, cache=False)
            for shape in LENGTHS:
                x = (np.random.default_rng(1).standard_normal(shape) * 1000).astype(dtype)
                assert np.array_equal(jitted(x), numpy_fn(x)), (name, shape, dtype)
            info = jitted.cache_info()
            print(f"{name:7} {dtype:8} lengths {[n for _, n in LENGTHS]}: "
                  f"traces {info.traces} compiles {info.compiles}", flush=True)


def against_numpy(jitted, numpy_fn, x, repeat: int, loop: int = 1) -> str:
    """``repeat`` samples of each in turn, a sample ``loop`` calls: the medians of their wall
    and CPU times (ms a call), and NumPy's over jitcore's, as one line of the table."""
    times = {"jc": ([], []), "np": ([], [])}
    for _ in range(repeat):
        for key, f in (("jc", jitted), ("np", numpy_fn)):
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(loop):
                f(x)
            times[key][0].append((time.perf_counter() - wall) / loop)
            times[key][1].append((time.process_time() - cpu) / loop)
    (jw, jcpu), (nw, ncpu) = ([np.median(t) * 1e3 for t in times[k]] for k in ("jc", "np"))
    return (f"wall jc {jw:8.2f} np {nw:7.2f} np/jc {nw / jw:5.2f} | "
            f"cpu jc {jcpu:8.2f} np {ncpu:7.2f} np/jc {ncpu / jcpu:5.2f}")


if __name__ == "__main__":
    main()
