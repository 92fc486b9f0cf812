"""Session 52 draws: S1 (S[s] += draw in a drawn-length loop) and S2 (lognormal/pareto/weibull
severities) -- NumPy and jit in one process, medians of 5; the argument labels the rows
(``PYTHONPATH=. python tools/bench_draws52.py branch``, the same from a worktree of main)."""

import statistics
import sys
import time

import numpy as np

import jitcore


def into_element(rng, n_sims, lam, scale):
    S = np.zeros(n_sims)
    for s in range(n_sims):
        for _ in range(rng.poisson(lam)):
            S[s] += rng.exponential(scale)
    return S


def agg_lognormal(rng, n_sims, lam, mu, sigma):
    S = np.zeros(n_sims)
    for s in range(n_sims):
        acc = 0.0
        for _ in range(rng.poisson(lam)):
            acc += rng.lognormal(mu, sigma)
        S[s] = acc
    return S


def agg_pareto_weibull(rng, n_sims, lam, a, c):
    S = np.zeros(n_sims)
    for s in range(n_sims):
        acc = 0.0
        for _ in range(rng.poisson(lam)):
            acc += rng.pareto(a) + rng.weibull(c)
        S[s] = acc
    return S


cases = [
    (into_element, (20000, 3.0, 1000.0)),
    (agg_lognormal, (20000, 3.0, 7.0, 1.2)),
    (agg_pareto_weibull, (20000, 3.0, 2.5, 1.5)),
]
for f, args in cases:
    jf = jitcore.jit(f)
    jf(np.random.default_rng(0), *args)
    tn, tj = [], []
    for r in range(5):
        t = time.perf_counter()
        a = f(np.random.default_rng(r), *args)
        tn.append(time.perf_counter() - t)
        t = time.perf_counter()
        b = jf(np.random.default_rng(r), *args)
        tj.append(time.perf_counter() - t)
        assert np.array_equal(a, b)
    n, j = statistics.median(tn) * 1e3, statistics.median(tj) * 1e3
    label = sys.argv[1] if len(sys.argv) > 1 else ""
    print(
        f"{label:6s} {f.__name__:20s} numpy {n:8.1f} ms  jit {j:8.1f} ms  numpy/jit {n / j:6.2f}", flush=True
    )
