"""Session 57: IPF with its convergence check in the loop (the u3 S1 repro); medians of 9
against NumPy in the same process. PYTHONPATH=. python tools/bench_ipf57.py"""
import time

import numpy as np

import jitcore


def step_err(m, rows, cols):
    m = m * (rows / m.sum(axis=1))[:, None]
    m = m * (cols / m.sum(axis=0))[None, :]
    e = np.abs(m.sum(axis=1) - rows).max()
    return m, e
def step_noerr(m, rows, cols):
    m = m * (rows / m.sum(axis=1))[:, None]
    m = m * (cols / m.sum(axis=0))[None, :]
    return m
def loop_err(m, rows, cols, nit):
    e = 0.0
    for _ in range(nit):
        m = m * (rows / m.sum(axis=1))[:, None]
        m = m * (cols / m.sum(axis=0))[None, :]
        e = np.abs(m.sum(axis=1) - rows).max()
    return m, e
def loop_noerr(m, rows, cols, nit):
    for _ in range(nit):
        m = m * (rows / m.sum(axis=1))[:, None]
        m = m * (cols / m.sum(axis=0))[None, :]
    return m
def ipf(seed, rows, cols, tol=1e-10, maxit=1000):
    m = seed.astype(np.float64).copy()
    it, err = 0, 1.0
    while err > tol and it < maxit:
        m *= (rows / m.sum(axis=1))[:, None]
        m *= (cols / m.sum(axis=0))[None, :]
        err = np.abs(m.sum(axis=1) - rows).max()
        it += 1
    return m, it


def med(f, *a, n=9):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f(*a)
        ts.append(time.perf_counter() - t0)
    return np.median(ts) * 1e3


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    S = rng.uniform(1, 10, (500, 500))
    r = rng.uniform(50, 100, 500)
    c = r[::-1].copy()
    cases = [(loop_noerr, (S, r, c, 100)), (loop_err, (S, r, c, 100)), (ipf, (S, r, c * 1.01, 1e-10, 200))]
    for f, a in cases:  # (ipf's totals differ: all 200 iterations run)
        jf = jitcore.jit(f)
        jf(*a)
        tn, tj = med(f, *a), med(jf, *a)
        print(f"{f.__name__:12s} numpy {tn:8.1f} ms   jit {tj:8.1f} ms   speedup {tn/tj:5.2f}x")
