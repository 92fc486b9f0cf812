#!/usr/bin/env python3
"""Compiles per function over three lengths, and a new length's first call (issue 10, sizes43).

    JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_size_constants.py [--repeat R] [NAME ...]

For each function (a mean, a standardisation, a roll, a gradient, a concatenation, a variance,
a pad, a convolution, a mean over rows, a sort, a median; ``NAME`` picks some), a fresh jitted
function without the disk cache is called at 1371, 5000 and 7919 elements (the mean over rows:
rows of 100) and its ``cache_info()`` printed: ``compiles`` below ``traces`` means the later
lengths reused the first one's machine code. Then a new length's first call: a fresh function
called at 1371 (+ r), then timed at 5000 (+ r), the median of R rounds (trace, passes, LLVM IR
emitted, and LLVM's optimizer and code generator only where the code is not reused). Run it
with ``PYTHONPATH`` at another checkout to measure that code. Speed is measured here, never
asserted in tests (DESIGN.md §8).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import jitcore as jc

FUNCTIONS = {
    "mean": lambda x: x.mean(),
    "std": lambda x: (x - x.mean()) / x.std(),
    "roll": lambda x: np.roll(x, 3) + x,
    "grad": lambda x: np.gradient(x),
    "concat": lambda x: np.concatenate([x, x * 2]),
    "var": lambda x: x.var(),
    "pad": lambda x: np.pad(x, 2),
    "conv": lambda x: np.convolve(x, np.ones(3) / 3, "same"),
    "rowmean": lambda a: a - a.mean(axis=1, keepdims=True),
    "sort": np.sort,
    "median": np.median,
}
LENGTHS = (1371, 5000, 7919)


def argument(name: str, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.random((n // 100, 100)) if name == "rowmean" else rng.random(n)


def counts(name: str) -> jc.CacheInfo:
    jitted = jc.jit(FUNCTIONS[name], cache=False)
    for n in LENGTHS:
        jitted(argument(name, n))
    return jitted.cache_info()


def new_length(name: str, repeat: int) -> float:
    samples = []
    for r in range(repeat):
        jitted = jc.jit(FUNCTIONS[name], cache=False)
        jitted(argument(name, LENGTHS[0] + r))
        x = argument(name, LENGTHS[1] + r)
        start = time.perf_counter()
        jitted(x)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="functions to run (default: all)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    total = 0.0
    print(f"{'function':9s} {'traces':>6s} {'compiles':>8s} {'reused':>6s} {'new length ms':>13s}")
    for name in args.names or FUNCTIONS:
        info = counts(name)
        seconds = new_length(name, args.repeat)
        total += seconds
        row = f"{name:9s} {info.traces:6d} {info.compiles:8d} {info.reused:6d}"
        print(f"{row} {seconds * 1e3:13.1f}", flush=True)
    print(f"{'total':9s} {'':6s} {'':8s} {'':6s} {total * 1e3:13.1f}")


if __name__ == "__main__":
    main()
