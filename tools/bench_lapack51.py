#!/usr/bin/env python
"""First-call and call times of OLS by solve and by inv, svd and eigh under jit, against
NumPy's: docs/performance.md's "Decompositions by NumPy's own LAPACK (lapack51)".

    OPENBLAS_NUM_THREADS=1 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_lapack51.py \
        WORKLOAD N [--repeat R]

One workload and size per process (a fresh process: the first call compiles everything, no
disk cache): prints ``WORKLOAD N first=<s> jit=<us> numpy=<us>``, the first call's process
CPU time (tracing, passes, LLVM; the call itself is a small part of it) and the median thread
CPU time of R calls (the library runs on the calling thread with one OpenBLAS thread, so other
processes sharing the cores move it little). Run it from each tree, alternately, and take
medians (the section's table).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

WORKLOADS = {
    "ols_solve": lambda X, y: np.linalg.solve(X.T @ X, X.T @ y),
    "ols_inv": lambda X, y: np.linalg.inv(X.T @ X) @ (X.T @ y),
    "svd": lambda X, y: np.linalg.svd(X),
    "eigh": lambda X, y: np.linalg.eigh(X),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workload", choices=list(WORKLOADS))
    parser.add_argument("n", type=int)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    import jitcore as jc

    rng = np.random.default_rng(0)
    n = args.n
    x = rng.standard_normal((2 * n, n) if args.workload.startswith("ols") else (n, n))
    if args.workload == "eigh":
        x = (x + x.T) / 2
    y = rng.standard_normal(x.shape[0])
    f = WORKLOADS[args.workload]
    jitted = jc.jit(f, cache=False)
    start = time.process_time()
    jitted(x, y)
    first = time.process_time() - start

    def per_call(g) -> float:
        calls = max(1, int(2e6 / n ** 3))
        times = []
        for _ in range(args.repeat):
            t = time.thread_time()
            for _ in range(calls):
                g(x, y)
            times.append((time.thread_time() - t) / calls)
        return sorted(times)[len(times) // 2] * 1e6

    print(f"{args.workload} {n} first={first:.3f} jit={per_call(jitted):.1f} numpy={per_call(f):.1f}")


if __name__ == "__main__":
    main()
