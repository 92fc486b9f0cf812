#!/usr/bin/env python
"""``np.argsort`` (or ``np.sort``) under jit against NumPy's default kind, per dtype and shape
(docs/performance.md, "Argsorts and float sorts (argsort48)").

    JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_argsort.py [--sort] [--repeat R]
        [--dtypes float64,float32,int64,int32] [--shapes 10000,100000,1000000,1000x1000]
        [--data uniform|normal|full]

Each case is jitted and checked (argsort: NumPy's ``kind='stable'`` positions, jitcore's
promise), then timed R times, jitcore on one thread, jitcore on two, NumPy's default kind in
turn, in this process: medians of the calling thread's CPU time for one thread (it moves less
when other processes share the cores) and of wall time for two. Run it from a base tree's root
and this one's in turn to compare them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc


def data(shape, dtype, kind: str, rng) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.random(shape) if kind == "uniform" else rng.standard_normal(shape) * 1000
        return x.astype(dtype)
    info = np.iinfo(dtype)
    if kind == "full":
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    return rng.integers(-10**7, 10**7, shape).astype(dtype)


def on_threads(fn, threads: int):
    def run(x):
        with jc.config.using(num_threads=threads):
            return fn(x)
    return run


def timed(fn, x, clock) -> float:
    start = clock()
    fn(x)
    return clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sort", action="store_true", help="np.sort instead of np.argsort")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dtypes", default="float64,float32,int64,int32")
    parser.add_argument("--shapes", default="10000,100000,1000000,1000x1000")
    parser.add_argument("--data", default="uniform", choices=("uniform", "normal", "full"))
    args = parser.parse_args()
    fn = np.sort if args.sort else np.argsort
    rng = np.random.default_rng(0)
    for shape in args.shapes.split(","):
        shape = tuple(int(s) for s in shape.split("x"))
        for dtype in args.dtypes.split(","):
            x = data(shape, dtype, args.data, rng)
            jitted = jc.jit(lambda a: fn(a, axis=-1), cache=False)
            expected = fn(x, axis=-1, kind="stable")
            got = jitted(x)
            assert got.dtype == expected.dtype and np.array_equal(got, expected), (shape, dtype)
            one, two = on_threads(jitted, 1), on_threads(jitted, 2)
            samples = {"jc1": [], "np1": [], "jc2": [], "np2": []}
            for _ in range(args.repeat):
                samples["jc1"].append(timed(one, x, time.thread_time))
                samples["np1"].append(timed(lambda a: fn(a, axis=-1), x, time.thread_time))
                samples["jc2"].append(timed(two, x, time.perf_counter))
                samples["np2"].append(timed(lambda a: fn(a, axis=-1), x, time.perf_counter))
            ms = {k: float(np.median(v)) * 1e3 for k, v in samples.items()}
            name = "x".join(map(str, shape))
            print(f"{fn.__name__} {name:>9} {dtype:8} 1 thread cpu: jc {ms['jc1']:8.3f} np {ms['np1']:8.3f} "
                  f"np/jc {ms['np1'] / ms['jc1']:5.2f} | 2 threads wall: jc {ms['jc2']:8.3f} "
                  f"np {ms['np2']:8.3f} np/jc {ms['np2'] / ms['jc2']:5.2f}", flush=True)


if __name__ == "__main__":
    main()
