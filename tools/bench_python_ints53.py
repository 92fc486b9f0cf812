"""Session 53: the cost of Python's int semantics in compiled loops (10^6 steps each).

``hash``: ``h = ((h ^ int(b[i])) * 16777619) & 0xFFFFFFFF`` (a product checked against int64's
limit); ``div``: ``s += int(x[i]) / int(y[i])`` (Python's correctly rounded int division);
``absdiv``: ``abs(int(x[i])) // int(y[i]) + (int(x[i]) >> int(y[i] & 7))`` (the -2**63 and
negative-count checks). Prints the median of 7 calls after the first, in ms. Compare two trees
(``jitcore`` imported from ``PYTHONPATH``), alternating:

    for c in hash div absdiv; do for w in BASE BRANCH; do
        PYTHONPATH=$w python tools/bench_python_ints53.py $c; done; done
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import jitcore


def hash_loop(b):
    h = 2166136261
    for i in range(b.shape[0]):
        h = ((h ^ int(b[i])) * 16777619) & 0xFFFFFFFF
    return h


def div_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += int(x[i]) / int(y[i])
    return s


def absdiv_loop(x, y):
    s = 0
    for i in range(x.shape[0]):
        s += abs(int(x[i])) // int(y[i]) + (int(x[i]) >> int(y[i] & 7))
    return s


def main(name: str) -> None:
    rng = np.random.default_rng(0)
    b = rng.integers(0, 256, 1_000_000).astype(np.uint8)
    x, y = rng.integers(-(10**6), 10**6, 1_000_000), rng.integers(1, 1000, 1_000_000)
    f, args = {"hash": (hash_loop, (b,)), "div": (div_loop, (x, y)), "absdiv": (absdiv_loop, (x, y))}[name]
    jitted = jitcore.jit(f)
    jitted(*args)
    times = []
    for _ in range(7):
        start = time.perf_counter()
        jitted(*args)
        times.append(time.perf_counter() - start)
    print(f"{name}: {1e3 * statistics.median(times):.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "div")
