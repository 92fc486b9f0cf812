"""Tracing time (make_ir: Python tracing to the IR, no LLVM) of a few programs with many ops,
branches and loops, to see what the number-or-array checks (``number_or_array``: a dict
lookup per op and per ``shape`` read) cost. Prints the median of ``--repeat`` runs per program.

    PYTHONPATH=. python tools/bench_trace_56.py --repeat 15
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import jitcore as jc


def stencil(u, c):
    out = u.copy()
    for _ in range(3):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        out[1:-1, 1:-1] = u[1:-1, 1:-1] + c * lap
        out = np.where(out > 1.0, 1.0, out)
        u = out
    return u.sum(), u.mean(axis=0)


def branches(x, c):
    acc = x * 0.0
    t = x * 1.0
    v = t
    for j in range(x.shape[0]):
        if x[j] > c:
            t = x * j
            v = t
        else:
            acc = acc + np.sin(x) * j
        acc = acc + (x * j if j > 1 else 0.0)
    return acc + v, np.exp(acc).std()


def many_ops(x, c):
    y = x
    for k in range(40):
        y = np.tanh(y * c + k) - np.abs(y) / (1.0 + y * y)
    return y.max(), np.cumsum(y)


PROGRAMS = [
    (stencil, (np.random.rand(64, 64), 0.1)),
    (branches, (np.random.rand(16), 0.5)),
    (many_ops, (np.random.rand(100), 0.3)),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    for fn, call in PROGRAMS:
        jc.make_ir(fn)(*call)  # conversion of the source, imports
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            jc.make_ir(fn)(*call)
            times.append(time.perf_counter() - start)
        print(f"{fn.__name__} {statistics.median(times) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
