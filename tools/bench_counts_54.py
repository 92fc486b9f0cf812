"""Session 54: counting and segmented reductions, jit against NumPy in one process (the least
wall and CPU (process) time of several alternating runs each).

    PYTHONPATH=. python tools/bench_counts_54.py            # every case
    PYTHONPATH=. python tools/bench_counts_54.py reduceat2d  # cases whose name holds the word

Run it in a base worktree and this one, alternating, and compare the ratios.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import jitcore as jc

warnings.simplefilter("ignore")
RNG = np.random.default_rng(0)
ROWS = RNG.standard_normal((10**5, 8))
IDX = sorted(RNG.choice(10**5, 100, replace=False).tolist())
IDX[0] = 0
TIMES = np.sort(RNG.integers(0, 2000, 10**5)).astype(float)
EVENTS = RNG.random(10**5) < 0.5
IDS = RNG.integers(0, 2_500_000, 2_000_000)
WEIGHTS = RNG.random(IDS.size)
RASTER = np.random.default_rng(0).random((200000, 50)) < 0.02


def reduceat_2d(rows):
    return np.add.reduceat(rows, IDX, axis=0)


def kaplan_meier(t, e):
    ut, i = np.unique(t, return_index=True)
    d = np.add.reduceat(e.astype(np.int64), i)
    return ut, np.cumprod(1.0 - d / (t.size - i))


def bincount_many(x):
    return np.bincount(x, minlength=2_500_000)


def bincount_weighted(x, w):
    return np.bincount(x, w, minlength=2_500_000)


def raster_counts(raster, dt):
    t_idx, n_idx = np.nonzero(raster)
    rates = np.bincount(n_idx, minlength=raster.shape[1]) / (raster.shape[0] * dt)
    return n_idx, rates


def raster_times(raster, dt):
    t_idx, n_idx = np.nonzero(raster)
    rates = np.bincount(n_idx, minlength=raster.shape[1]) / (raster.shape[0] * dt)
    return t_idx * dt, n_idx, rates


CASES = {
    "reduceat2d 1e5x8 100 pieces": (reduceat_2d, (ROWS,), 15),
    "km unique+reduceat 1e5": (kaplan_meier, (TIMES, EVENTS), 15),
    "bincount 2e6 ids 2.5e6 bins": (bincount_many, (IDS,), 9),
    "bincount weighted 2e6 ids 2.5e6 bins": (bincount_weighted, (IDS, WEIGHTS), 9),
    "raster nonzero+bincount 2e5x50": (raster_counts, (RASTER, 0.001), 7),
    "raster times t*dt 2e5x50": (raster_times, (RASTER, 0.001), 7),
}


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def main() -> None:
    words = sys.argv[1:]
    for name, (fn, args, runs) in CASES.items():
        if words and not any(w in name for w in words):
            continue
        jitted = jc.jit(fn)
        assert same(jitted(*args), fn(*args)), name
        times = {jitted: ([], []), fn: ([], [])}
        for _ in range(runs):
            for f in (jitted, fn):
                wall, cpu = time.perf_counter(), time.process_time()
                f(*args)
                times[f][0].append(time.perf_counter() - wall)
                times[f][1].append(time.process_time() - cpu)
        # the least of each: on a shared, loaded host the medians mostly measure the other jobs
        (jit_wall, jit_cpu), (np_wall, np_cpu) = ([min(t) * 1e3 for t in times[f]] for f in (jitted, fn))
        print(
            f"{name}: wall jit {jit_wall:.2f} ms, numpy {np_wall:.2f} ms, {np_wall / jit_wall:.2f}x NumPy; "
            f"cpu jit {jit_cpu:.2f} ms, numpy {np_cpu:.2f} ms, {np_cpu / jit_cpu:.2f}x"
        )


if __name__ == "__main__":
    main()
