#!/usr/bin/env python
"""Order statistics under jit against NumPy: ``partition``, ``median`` and ``percentile`` of
long 1-d lanes, of rows and along axis 0 (docs/performance.md, "Partition, median and
percentile by selection", select33).

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_select.py [--repeat R] [CASE ...]

CASE numbers pick rows of the table (all by default). Values are ``standard_normal * 1000`` in
the dtype (``* 10^9`` for the wide ints; 10% NaN for the nan-forms; the traced q is
``[0.25, 0.5, 0.75]``, an argument of the jitted function). Each case compiles once and
checks its result (partition: the k-th value in place,
since the arrangement of the others is each algorithm's own; median and percentile: equal to
NumPy's), then times R calls of jitcore and NumPy in turn: medians of the wall time and of the
process's CPU time (all its threads). Copy this file (and tools/bench_sort_lanes.py) into a
base tree to compare with it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc
from tools.bench_sort_lanes import against_numpy

CASES = [  # function, shape, dtype, axis
    ("partition", (10**6,), "float64", -1),
    ("partition", (10**7,), "float64", -1),
    ("median", (10**6,), "float64", -1),
    ("median", (10**7,), "float64", -1),
    ("percentile", (10**6,), "float64", -1),
    ("median", (1000, 1000), "float64", 1),
    ("median", (10000, 100), "float64", 1),
    ("median", (1000, 1000), "float64", 0),
    ("partition", (1000, 1000), "float64", 1),
    ("partition", (10000, 100), "float64", 1),
    ("median", (100, 10000), "float64", 1),
    ("median", (10**6,), "float32", -1),
    ("median", (10**6,), "int64", -1),
    # sort34: the nan-forms and a traced q (10% NaN in the nan cases), ints of a wide span
    ("nanmedian", (10**6,), "float64", -1),
    ("nanpercentile", (10**6,), "float64", -1),
    ("nanmedian", (100, 10000), "float64", 1),
    ("nanmedian", (1000, 1000), "float64", 1),
    ("quantile_traced", (10**6,), "float64", -1),
    ("quantile_traced", (100, 10000), "float64", 1),
    ("nanquantile_traced", (10**6,), "float64", -1),
    ("median_wide", (10**6,), "int64", -1),
]
Q = np.array([0.25, 0.5, 0.75])  # the traced q


def functions(name: str, axis: int, n: int):
    """``f(a, q)``: the case's function (``q`` is traced under jit; only the traced cases read it)."""
    if name in ("median", "median_wide"):
        return lambda a, q: np.median(a, axis=axis)
    if name == "percentile":
        return lambda a, q: np.percentile(a, [25, 50, 75], axis=axis)
    if name == "nanmedian":
        return lambda a, q: np.nanmedian(a, axis=axis)
    if name == "nanpercentile":
        return lambda a, q: np.nanpercentile(a, [25, 50, 75], axis=axis)
    if name == "quantile_traced":
        return lambda a, q: np.quantile(a, q, axis=axis)
    if name == "nanquantile_traced":
        return lambda a, q: np.nanquantile(a, q, axis=axis)
    return lambda a, q: np.partition(a, n // 2, axis=axis)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("cases", nargs="*", type=int)
    args = parser.parse_args()
    for i, (name, shape, dtype, axis) in enumerate(CASES):
        if args.cases and i not in args.cases:
            continue
        rng = np.random.default_rng(0)
        x = (rng.standard_normal(shape) * (10**9 if name.endswith("wide") else 1000)).astype(dtype)
        if name.startswith("nan"):
            x[rng.random(shape) < 0.1] = np.nan
        n = shape[axis]
        with_q, jitted_q = functions(name, axis, n), jc.jit(functions(name, axis, n), cache=False)
        fn, jitted = (lambda a, f=with_q: f(a, Q)), (lambda a, f=jitted_q: f(a, Q))
        start = time.perf_counter()
        got, want = jitted(x), fn(x)
        compile_s = time.perf_counter() - start
        if name == "partition":
            got, want = np.take(got, n // 2, axis), np.take(np.sort(x, axis=axis), n // 2, axis)
        assert np.array_equal(got, want, equal_nan=True), (name, shape, dtype)
        print(f"{i:2} {name:10} {'x'.join(map(str, shape)):10} {dtype:8} axis {axis:2}  "
              f"{against_numpy(jitted, fn, x, args.repeat)} | first call {compile_s:5.2f} s", flush=True)


if __name__ == "__main__":
    main()
