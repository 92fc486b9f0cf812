"""Session 53: float ``np.add.reduceat`` at static indices (1-d, 2-d along axis 0) and
Kaplan-Meier by ``np.unique(return_index=True)`` + ``np.add.reduceat``, jit against NumPy
(medians of 7, alternating).

    PYTHONPATH=. python tools/bench_reduceat_53.py
"""

from __future__ import annotations

import time

import numpy as np

import jitcore as jc

RNG = np.random.default_rng(0)
X = RNG.standard_normal(10**6)
ROWS = RNG.standard_normal((10**5, 8))
IDX = sorted(RNG.choice(10**5, 100, replace=False).tolist())
IDX[0] = 0
IDX1 = sorted(RNG.choice(10**6, 100, replace=False).tolist())
IDX1[0] = 0
TIMES = np.sort(RNG.integers(0, 2000, 10**5)).astype(float)
EVENTS = RNG.random(10**5) < 0.5


def one_d(x):
    return np.add.reduceat(x, IDX1)


def two_d(rows):
    return np.add.reduceat(rows, IDX)


def kaplan_meier(t, e):
    ut, i = np.unique(t, return_index=True)
    d = np.add.reduceat(e.astype(np.int64), i)
    return ut, np.cumprod(1.0 - d / (t.size - i))


CASES = {
    "static 1-d add.reduceat (1e6, 100 pieces)": (one_d, (X,)),
    "static 2-d add.reduceat axis 0 (1e5x8, 100 pieces)": (two_d, (ROWS,)),
    "KM unique+reduceat (1e5, 2000 times)": (kaplan_meier, (TIMES, EVENTS)),
}


def main() -> None:
    for name, (fn, args) in CASES.items():
        jitted = jc.jit(fn)
        try:
            jitted(*args)
        except jc.JitcoreError as error:
            print(f"{name}: refused ({type(error).__name__})")
            continue
        mine, theirs = [], []
        for _ in range(7):
            start = time.perf_counter()
            jitted(*args)
            mine.append(time.perf_counter() - start)
            start = time.perf_counter()
            fn(*args)
            theirs.append(time.perf_counter() - start)
        print(f"{name}: jit {np.median(mine) * 1e3:.2f} ms, numpy {np.median(theirs) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
