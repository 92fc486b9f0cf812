"""Session 55: loops that read the list they append to under a traced if (a dedupe over the
kept sites, a running record), compiled as a growing buffer and its count (``appending``).
First call and per-call time against plain Python (the same function, NumPy scalars).

    PYTHONPATH=. python tools/probe_growing_lists_55.py [n ...]
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("JITCORE_CACHE", "0")

import numpy as np  # noqa: E402

import jitcore as jc  # noqa: E402


def unique_sites(x, tol):
    keep = []
    for i in range(x.shape[0]):
        dup = False
        for j in keep:
            if abs(x[i] - x[j]) < tol:
                dup = True
                break
        if not dup:
            keep.append(i)
    return np.array(keep)


def records(x):
    best = [x[0]]
    for i in range(1, x.shape[0]):
        if x[i] > best[-1]:
            best.append(x[i])
    return np.array(best), len(best)


def _median(f, *args, reps=5):
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main(sizes):
    for n in sizes:
        x = np.round(np.random.default_rng(n).standard_normal(n), 2)
        for fn, args in ((unique_sites, (x, 1e-3)), (records, (x,))):
            jitted = jc.jit(fn)
            t = time.perf_counter()
            jitted(*args)
            first = time.perf_counter() - t
            run = _median(jitted, *args)
            py = _median(fn, *args, reps=3)
            print(
                f"{fn.__name__:13s} n={n:6d}  first call {first:6.2f} s  call {run * 1e3:8.3f} ms  "
                f"Python {py * 1e3:9.2f} ms"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [500, 5000])
