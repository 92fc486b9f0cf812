"""Draws made as the compiled code runs (docs/numpy_support.md, rng48): NumPy against jit, medians
of 7, in one process. Compare branches by running it alternately with PYTHONPATH at each;
ONLY=name runs the programs whose name holds it."""

import os
import statistics
import time

import numpy as np

import jitcore as jc


def gibbs(rng, y, steps):  # normal then gamma per step (both native since session 49)
    n = y.shape[0]
    ybar = y.mean()
    mu, tau = 0.0, 1.0
    s = 0.0
    for _ in range(steps):
        mu = rng.normal(ybar, 1.0 / np.sqrt(n * tau))
        tau = rng.gamma(1.0 + n / 2.0, 1.0 / (1.0 + 0.5 * ((y - mu) ** 2).sum()))
        s += mu
    return s


def metropolis(rng, steps):  # random-walk Metropolis: uniform proposal, accept in a branch
    x = 0.0
    s = 0.0
    k = 0
    while k < steps:
        prop = x + rng.uniform(-1.0, 1.0)
        if rng.random() < np.exp(0.5 * (x * x - prop * prop)):
            x = prop
        s += x
        k += 1
    return s


def tau_leap(rng, x, steps):  # poisson per step, lam computed
    s = 0
    for i in range(steps):
        s += rng.poisson(x[i % 3])
    return s


def sir(rng, beta, steps):  # chain of poissons, lam from the state (some >= 10: PTRS)
    s, i = 10000.0, 10.0
    for _ in range(steps):
        new = rng.poisson(beta * s * i / 10000.0 * 0.1)
        rec = rng.poisson(0.1 * i)
        s = max(s - new, 0.0)
        i = max(i + new - rec, 1.0)
    return s


def ar1(rng, phi, steps):  # an AR(1) path in a while loop: a normal per step
    x = 0.0
    k = 0
    while k < steps:
        x = phi * x + rng.normal(0.0, 0.5)
        k += 1
    return x


def coalescent(rng, n, reps):  # session 48's report: a while loop, an exponential per step
    total = 0.0
    for _ in range(reps):
        k = n
        t = 0.0
        while k > 1:
            rate = k * (k - 1) / 2
            t += rng.exponential(1.0 / rate)
            k -= 1
        total += t
    return total


def wf_fixation(rng, N, p0):  # Wright-Fisher to fixation: a binomial per generation
    count = int(2 * N * p0)
    t = 0
    while 0 < count < 2 * N:
        count = rng.binomial(2 * N, count / (2 * N))
        t += 1
    return t, count == 2 * N


def wf_selection(rng, N, p0, s, h, gens):  # with selection, stopped at fixation or loss
    p = p0
    total = 0.0
    for _ in range(gens):
        q = 1 - p
        wAA, wAa, waa = 1 + s, 1 + h * s, 1.0
        wbar = p * p * wAA + 2 * p * q * wAa + q * q * waa
        pp = (p * p * wAA + p * q * wAa) / wbar
        p = rng.binomial(2 * N, pp) / (2 * N)
        total += p
        if p == 0.0 or p == 1.0:
            break
    return total


def wf_replicates(rng, N, p0, gens, reps):  # a binomial of an array of p per generation
    p = np.full(reps, p0)
    for _ in range(gens):
        p = rng.binomial(2 * N, p) / (2 * N)
    return np.mean(p == 1.0) + 2 * np.mean(p == 0.0) + p.sum()


def timed(fn, *args, reps=7):
    ts = []
    for _ in range(reps):
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        fn(rng, *args)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


cases = [("gibbs normal+gamma 10^4", gibbs, (np.random.default_rng(0).normal(2, 1, 50), 10_000)),
         ("metropolis uniform+random 10^5", metropolis, (100_000,)),
         ("poisson per step 10^4", tau_leap, (np.array([1.5, 4.0, 12.0]), 10_000)),
         ("SIR two poissons 10^4", sir, (1.5, 10_000)),
         ("AR(1) while, normal per step 10^5", ar1, (0.9, 100_000)),
         ("coalescent exponential n=20 x2000", coalescent, (20, 2000)),
         ("wf_fixation binomial N=500", wf_fixation, (500, 0.5)),
         ("wf_selection binomial N=1000 2000g", wf_selection, (1000, 0.01, 0.01, 0.5, 2000)),
         ("wf_replicates binomial(2N, p_array) 200g x 10^4", wf_replicates, (1000, 0.2, 200, 10_000))]
cases = [c for c in cases if os.environ.get("ONLY", "") in c[0]]
for name, f, args in cases:
    jf = jc.jit(f)
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert f(a, *args) == jf(b, *args)
    tn, tj = timed(f, *args), timed(jf, *args)
    print(f"{name:34s} numpy {tn*1e3:8.2f} ms  jit {tj*1e3:8.2f} ms  ({tn/tj:5.2f}x)", flush=True)
