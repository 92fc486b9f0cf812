"""Session 55 (refuse55): what compiles now, timed. Loops that read the list they append to
under a traced if (a dedupe over the kept sites, a running record: ``appending._growing``)
against plain Python and against the array-and-count rewrite the refusal advised; and
``np.unique(e, axis=0, return_counts=True)`` of mesh edges against NumPy. First call, then the
median of 5 calls.

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


def unique_sites_advised(x, tol):  # (the refusal's rewrite: an array and its count)
    keep = np.empty(x.shape[0], np.int64)
    k = 0
    for i in range(x.shape[0]):
        dup = False
        for jj in range(k):
            if abs(x[i] - x[keep[jj]]) < tol:
                dup = True
                break
        if not dup:
            keep[k] = i
            k += 1
    return keep[:k], k


def edge_counts(tri):
    e = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
    return np.unique(e, axis=0, return_counts=True)


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
        tri = np.random.default_rng(n).integers(0, max(n // 2, 3), (n, 3))
        for fn, args in (
            (unique_sites, (x, 1e-3)),
            (unique_sites_advised, (x, 1e-3)),
            (records, (x,)),
            (edge_counts, (tri,)),
        ):
            jitted = jc.jit(fn)
            t = time.perf_counter()
            jitted(*args)
            first = time.perf_counter() - t
            run = _median(jitted, *args)
            py = _median(fn, *args, reps=3)
            print(
                f"{fn.__name__:20s} n={n:6d}  first call {first:6.2f} s  call {run * 1e3:8.3f} ms  "
                f"Python/NumPy {py * 1e3:9.2f} ms"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [500, 5000])
