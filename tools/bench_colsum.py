"""Column sums, strided all-axis reductions, row and 1-d sums against NumPy (colsum33's table).

    JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_colsum.py [--repeat 7] [--cpu] [name-substring ...]

Each case is timed in NumPy and jitcore alternately in one process: the median wall time of
``--repeat`` calls after one warm call, and NumPy's over jitcore's (>1: jitcore faster). Run it
in the tree before (``git archive BASE | tar -x -C /tmp/base``) and after, alternated.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import jitcore as jc

CASES = [
    ("a.sum(0) C", lambda a: a.sum(axis=0), "C"),
    ("a.mean(0) C", lambda a: a.mean(axis=0), "C"),
    ("a[:2048].sum(0)", lambda a: a[:2048].sum(axis=0), "C"),
    ("a.T.sum(1) F", lambda a: a.T.sum(axis=1), "F"),
    ("a.max(0) C", lambda a: a.max(axis=0), "C"),
    ("a.sum(1) C", lambda a: a.sum(axis=1), "C"),
    ("a.sum() 1-d", lambda a: a.sum(), "1d"),
    ("a[1:-1, 2:].max()", lambda a: a[1:-1, 2:].max(), "C"),
    ("a[:, ::2].max()", lambda a: a[:, ::2].max(), "C"),
    ("a[:, ::2].min(1)", lambda a: a[:, ::2].min(axis=1), "C"),
    ("a[::2].argmax()", lambda a: a[::2].argmax(), "C"),
    ("a[:, ::3].sum()", lambda a: a[:, ::3].sum(), "C"),
    ("a[::-1, ::2].max()", lambda a: a[::-1, ::2].max(), "C"),
]


def median_ms(f, x, repeat: int, clock=time.perf_counter) -> float:
    f(x)
    times = []
    for _ in range(repeat):
        start = clock()
        f(x)
        times.append(clock() - start)
    return sorted(times)[repeat // 2] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--cpu", action="store_true",
                        help="the calling thread's CPU time (with JITCORE_NUM_THREADS=1: robust to load)")
    parser.add_argument("only", nargs="*")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal((args.size, args.size)).astype(dtype)
        arrays = {"C": a, "F": np.asfortranarray(a), "1d": a.reshape(-1)}
        for name, f, layout in CASES:
            if args.only and not any(s in name for s in args.only):
                continue
            x, jitted = arrays[layout], jc.jit(f)
            clock = time.thread_time if args.cpu else time.perf_counter
            numpy_ms = median_ms(f, x, args.repeat, clock)
            jit_ms = median_ms(jitted, x, args.repeat, clock)
            print(f"{dtype.__name__:8s} {name:20s} numpy {numpy_ms:7.2f} ms  jit {jit_ms:7.2f} ms  "
                  f"np/jc {numpy_ms / jit_ms:5.2f}", flush=True)


if __name__ == "__main__":
    main()
