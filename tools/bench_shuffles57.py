"""Session 57: permutation / choice drawn natively (the u2 S1 knockout bracket); medians of 7
against NumPy in the same process. PYTHONPATH=. python tools/bench_shuffles57.py"""
import time

import numpy as np

import jitcore


def knockout(strength, rng, nsims):
    n = len(strength)
    wins = np.zeros(n, np.int64)
    for _ in range(nsims):
        alive = rng.permutation(n)
        while alive.shape[0] > 1:
            a, b = alive[0::2], alive[1::2]
            p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
            u = rng.random(a.shape[0])
            alive = np.where(u < p, a, b)
        wins[alive[0]] += 1
    return wins
def perm_only(n, rng, nsims):
    acc = 0
    for _ in range(nsims):
        acc += rng.permutation(n)[0]
    return acc
def random_only(n, rng, nsims):
    acc = 0.0
    for _ in range(nsims):
        acc += rng.random(n)[0]
    return acc
def choose(n, rng, nsims):
    acc = 0
    for _ in range(nsims):
        acc += rng.choice(n, 8, replace=False)[0] + rng.choice(n)
    return acc


if __name__ == "__main__":
    st = np.linspace(-1, 1, 64)
    for name, f, args in [("knockout", knockout, (st,)), ("permutation loop", perm_only, (64,)),
                          ("choice loop", choose, (1000,))]:
        jf = jitcore.jit(f)
        jf(*args, np.random.default_rng(5), 2000)
        tn, tj = [], []
        for _ in range(7):
            t = time.perf_counter()
            f(*args, np.random.default_rng(5), 2000)
            tn.append(time.perf_counter() - t)
            t = time.perf_counter()
            jf(*args, np.random.default_rng(5), 2000)
            tj.append(time.perf_counter() - t)
        print(f"{name:18s} numpy {np.median(tn)*1e3:7.1f} ms  jit {np.median(tj)*1e3:7.2f} ms  "
              f"speedup {np.median(tn)/np.median(tj):6.2f}x")
