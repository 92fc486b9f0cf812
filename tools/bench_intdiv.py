#!/usr/bin/env python
"""Integer ``//``, ``%``, ``np.divmod`` and ``np.fmod`` under jit against NumPy, per dtype and
per kind of divisor: a Python-int constant in the function (``x // 7``), a Python int argument
(``f(x, d)``: one divisor for the whole call, known only at run time), the same as a 0-d array
(``0d``: the native call's path, without the Python-int argument's ~2.7 µs of dispatch) and an
array of divisors.

    PYTHONPATH=. python tools/bench_intdiv.py [--size N] [--repeat R] [--dtypes int64,uint8]
                                              [--ops floordiv,rem] [--kinds const,arg,0d,array]

The dividends are uniform over the dtype's whole range; the divisors are 7 (constant and
argument, -7 too for signed dtypes in the argument column's second row) and, for the array,
uniform over [1, 1000] clipped to the dtype, with random signs for signed dtypes. Each case
runs jitcore on one thread, on two, and NumPy in turn, R times, after one call that compiles;
the table prints median milliseconds (one thread and NumPy: the process's CPU time, which
other processes sharing the cores move less than wall time; two threads: wall time) and
NumPy's time over jitcore's (above 1: jitcore is faster).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc

OPS = {
    "floordiv": (lambda x, d: x // d, lambda x: x // 7),
    "rem": (lambda x, d: x % d, lambda x: x % 7),
    "divmod": (lambda x, d: np.divmod(x, d), lambda x: np.divmod(x, 7)),
    "fmod": (lambda x, d: np.fmod(x, d), lambda x: np.fmod(x, 7)),
}


def operands(dtype: np.dtype, size: int, kind: str, rng) -> tuple:
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    if kind == "array":
        d = rng.integers(1, min(1000, info.max), size, endpoint=True).astype(dtype)
        if info.min < 0:
            d = np.where(rng.random(size) < 0.5, -d, d).astype(dtype)
        return x, d
    return x, (np.array(7, dtype) if kind == "0d" else 7)


def timed(fn, args, clock) -> float:
    start = clock()
    fn(*args)
    return clock() - start


def measure(op: str, kind: str, dtype: np.dtype, size: int, repeat: int, rng) -> list[float]:
    by_arg, by_constant = OPS[op]
    x, d = operands(dtype, size, kind, rng)
    if kind == "const":
        fn, args = by_constant, (x,)
    else:
        fn, args = by_arg, (x, d)
    jitted = jc.jit(fn, cache=False)
    with np.errstate(all="ignore"):
        got, want = jitted(*args), fn(*args)
    for g, w in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, want))):
        assert g.dtype == w.dtype and np.array_equal(g, w), (op, kind, dtype)
    # one thread: the process's CPU time, which other processes on the cores move less than the
    # wall time; two threads: wall time. The thread count is set outside the timed call (a
    # ``config.using`` per call cost microseconds, a third of NumPy's uint8 time at 10^5).
    runs = [(jitted, 1, time.process_time), (jitted, 2, time.perf_counter), (fn, None, time.process_time)]
    times: list[list[float]] = [[] for _ in runs]
    with np.errstate(all="ignore"):
        for _ in range(repeat):
            for t, (run, threads, clock) in zip(times, runs):
                if threads is None:
                    t.append(timed(run, args, clock))
                    continue
                with jc.config.using(num_threads=threads):
                    t.append(timed(run, args, clock))
    return [float(np.median(t)) * 1e3 for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dtypes", default="int8,int16,int32,int64,uint8,uint16,uint32,uint64")
    parser.add_argument("--ops", default=",".join(OPS))
    parser.add_argument("--kinds", default="const,arg,array")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'op':9} {'kind':6} {'dtype':7} {'jc1 ms':>8} {'jc2 ms':>8} {'np ms':>8} "
          f"{'np/jc1':>7} {'np/jc2':>7}")
    for op in args.ops.split(","):
        for kind in args.kinds.split(","):
            for name in args.dtypes.split(","):
                jc1, jc2, ref = measure(op, kind, np.dtype(name), args.size, args.repeat, rng)
                print(f"{op:9} {kind:6} {name:7} {jc1:8.3f} {jc2:8.3f} {ref:8.3f} "
                      f"{ref / jc1:7.2f} {ref / jc2:7.2f}", flush=True)


if __name__ == "__main__":
    main()
