"""Session 55's sort cases: jitcore against NumPy in one process, alternating, medians of 7
samples (the calling thread's CPU time with ``JITCORE_NUM_THREADS=1``, else wall time).

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_sorts_55.py \
        sort:round:float64:1000000 partition:uniform:int32:100000 km:times:float64:100000 ...

A case is ``op:kind:dtype:shape`` (shape ``10000x100`` for rows); ``km`` is Kaplan-Meier
(``np.unique(t, return_index=True)``, ``np.add.reduceat``, ``np.cumprod``) of sorted times and
random events, both arguments. Each result is checked against NumPy's first (argsort: the
stable kind; partitions by value). Run it from a base tree's root and this one's in turn.
"""

import os
import sys
import time
import warnings

import numpy as np

import jitcore as jc

warnings.simplefilter("ignore")
CLOCK = time.thread_time if os.environ.get("JITCORE_NUM_THREADS") == "1" else time.perf_counter


def km(t, e):
    ut, i = np.unique(t, return_index=True)
    d = np.add.reduceat(e.astype(np.int64), i)
    return ut, np.cumprod(1.0 - d / (t.size - i))


ops = {
    "sort": np.sort,
    "argsort": np.argsort,
    "sargsort": lambda a: np.argsort(a, kind="stable"),
    "median": lambda a: np.median(a, axis=-1),
    "unique": np.unique,
    "uniquec": lambda a: np.unique(a, return_counts=True),
    "uniquei": lambda a: np.unique(a, return_inverse=True),
    "partition": lambda a: np.partition(a, a.shape[-1] // 2, axis=-1),
    "argpartition": lambda a: np.argpartition(a, a.shape[-1] // 2, axis=-1),
    "km": None,
}


def data(kind, shape, dt):
    rng = np.random.default_rng(0)
    isint = np.dtype(dt).kind in "iu"
    n = shape
    x = {
        "equal": lambda: np.full(n, 3),
        "few": lambda: rng.integers(0, 4, n),
        "round": lambda: np.round(rng.normal(size=n), 2) * (100 if isint else 1),
        "round1": lambda: np.round(rng.normal(size=n), 1),
        "round3": lambda: np.round(rng.normal(size=n), 3),
        "normal": lambda: rng.normal(size=n),
        "small": lambda: rng.integers(-(10**7), 10**7, n),
        "uniform": lambda: rng.integers(-(2**30), 2**30, n) if isint else rng.random(n),
        "full": lambda: (
            rng.integers(np.iinfo(dt).min, np.iinfo(dt).max, n, dtype=dt, endpoint=True)
            if isint
            else rng.random(n)
        ),
        "sorted": lambda: np.sort(rng.integers(-(2**30), 2**30, n) if isint else rng.random(n)),
        "times": lambda: np.sort(rng.integers(0, 2000, n)),
        "nan": lambda: np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
    }[kind]()
    return np.ascontiguousarray(x.astype(dt))


for s in sys.argv[1:]:
    op, kind, dt, n = s.split(":")
    shape = tuple(int(v) for v in n.split("x"))
    x = data(kind, shape, dt)
    if op == "km":
        e = np.random.default_rng(1).random(shape) < 0.5
        f0 = jc.jit(km, cache=False)
        f, g = (lambda a, f0=f0, e=e: f0(a, e)), (lambda a, e=e: km(a, e))  # (both traced)
    else:
        g = ops[op]
        f = jc.jit(lambda a, g=g: g(a), cache=False)
    r, ex = f(x), g(x)
    if op in ("partition",):
        r, ex = np.sort(r, axis=-1), np.sort(ex, axis=-1)
    if op in ("argpartition",):
        r, ex = (
            np.sort(np.take_along_axis(x, r, -1), axis=-1),
            np.sort(np.take_along_axis(x, ex, -1), axis=-1),
        )
    if op == "argsort":
        ex = np.argsort(x, kind="stable")
    if isinstance(ex, tuple):
        ok = all(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True) for a, b in zip(r, ex))
    else:
        ok = (
            np.array_equal(np.asarray(r), np.asarray(ex), equal_nan=True)
            and np.asarray(r).dtype == np.asarray(ex).dtype
        )
    size = int(np.prod(shape))
    reps = max(1, int(3e6 // size))
    tj, tn = [], []
    for _ in range(7):
        t = CLOCK()
        for _ in range(reps):
            f(x)
        tj.append((CLOCK() - t) / reps)
        t = CLOCK()
        for _ in range(reps):
            g(x)
        tn.append((CLOCK() - t) / reps)
    mj, mn = np.median(tj) * 1e3, np.median(tn) * 1e3
    print(f"{s:34} jc {mj:8.3f} np {mn:8.3f} x{mn / mj:5.2f}{'' if ok else ' MISMATCH'}", flush=True)
