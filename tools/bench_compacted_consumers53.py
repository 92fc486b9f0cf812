"""Session 53: consumers of ``np.flatnonzero`` (run-length encoding) and the inverse Gray
code's ``while np.any(s)`` loop, jit against NumPy in one process (medians, ms).

    PYTHONPATH=. python tools/bench_compacted_consumers53.py

Run it in a worktree of the base and of the branch in turn (alternating, a few rounds) for
base/branch ratios; see docs/performance.md "Session 53: consumers of a compacted selection".
"""

from __future__ import annotations

import time

import numpy as np

import jitcore


def change_points(x):
    return np.flatnonzero(x[1:] != x[:-1]) + 1


def concat_front(x):
    return np.concatenate(([0], np.flatnonzero(x[1:] != x[:-1]) + 1))


def gather(x):
    return x[np.flatnonzero(x[1:] != x[:-1]) + 1]


def diff(x):
    return np.diff(np.flatnonzero(x[1:] != x[:-1]) + 1)


def concat_back(x):
    return np.concatenate((np.flatnonzero(x[1:] != x[:-1]) + 1, [x.shape[0]]))


def starts_sum(x):
    return np.concatenate(([0], np.flatnonzero(x[1:] != x[:-1]) + 1)).sum()


def rle_encode(x):
    n = x.shape[0]
    change = np.flatnonzero(x[1:] != x[:-1]) + 1
    starts = np.concatenate(([0], change))
    lengths = np.diff(np.concatenate((starts, [n])))
    return x[starts], lengths


def gray_inverse(n):
    g = n ^ (n >> 1)
    inv = g.copy()
    s = g >> 1
    while np.any(s):
        inv ^= s
        s >>= 1
    return g, inv


def _median_ms(f, arg, repeat: int) -> float:
    f(arg)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f(arg)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def main() -> None:
    runs = np.repeat(np.random.default_rng(0).integers(0, 4, 200_000), 5).astype(np.uint8)
    words = np.arange(1_000_000, dtype=np.uint32)
    cases = [(f, runs, 15) for f in (change_points, concat_front, gather, diff, concat_back, starts_sum,
                                     rle_encode)]
    cases.append((gray_inverse, words, 5))
    for f, arg, repeat in cases:
        jit_ms = _median_ms(jitcore.jit(f), arg, repeat)
        print(f"{f.__name__:14s} jit {jit_ms:8.3f}  numpy {_median_ms(f, arg, repeat):8.3f}", flush=True)


if __name__ == "__main__":
    main()
