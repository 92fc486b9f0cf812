"""Sums of products and plain sums against NumPy (reduce35's table).

    JITCORE_NUM_THREADS=1 JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_sum_products.py [N,N,...]

``np.sum(x * y)``, ``x @ y``, ``np.sum(x)`` and ``einsum("ij,ij->i")`` of float32 and float64
arrays, jitcore and NumPy in one process: the median of 11 timings of a batch of calls (about
3 ms each) after three warm calls, in ms per call. With ``JITCORE_NUM_THREADS=1`` the clock is
the calling thread's CPU time (wall time at the host's loads measures the scheduler; NumPy's
BLAS may still use its own threads, which that clock does not see), else wall time. Run it in
the tree before (``git archive BASE | tar -x -C /tmp/base``) and after, alternated.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import jitcore as jc

CLOCK = time.thread_time if os.environ.get("JITCORE_NUM_THREADS") == "1" else time.perf_counter


def median_ms(f, *args, repeat: int = 11) -> float:
    for _ in range(3):
        f(*args)
    start = CLOCK()
    f(*args)
    batch = max(1, min(2000, int(3e-3 / max(CLOCK() - start, 1e-6))))
    times = []
    for _ in range(repeat):
        start = CLOCK()
        for _ in range(batch):
            f(*args)
        times.append((CLOCK() - start) / batch)
    return sorted(times)[repeat // 2] * 1e3


def main(sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    cases = [("sum(x*y)", lambda x, y: np.sum(x * y)), ("x @ y", lambda x, y: x @ y),
             ("sum(x)", lambda x, y: np.sum(x))]
    rows = ("einsum ij,ij->i", lambda a, b: np.einsum("ij,ij->i", a, b))
    print(f"clock: {CLOCK.__name__}; threads {os.environ.get('JITCORE_NUM_THREADS', 'all')}; "
          f"load {os.getloadavg()[0]:.1f}; ms per call, jitcore (NumPy)")
    for dtype in (np.float32, np.float64):
        for n in sizes:
            x, y = (rng.standard_normal(n).astype(dtype) for _ in range(2))
            cells = [f"{name} {median_ms(jc.jit(fn), x, y):.4f} ({median_ms(fn, x, y):.4f})"
                     for name, fn in cases]
            print(f"{np.dtype(dtype).name} n={n}: " + " | ".join(cells), flush=True)
        a = rng.standard_normal((1000, 1000)).astype(dtype)
        name, fn = rows
        print(f"{np.dtype(dtype).name} 1000x1000: {name} {median_ms(jc.jit(fn), a, a):.4f} "
              f"({median_ms(fn, a, a):.4f})", flush=True)


if __name__ == "__main__":
    main([int(v) for v in sys.argv[1].split(",")] if len(sys.argv) > 1 else [65536, 1_000_000])
