"""Session 57: first-call time of t57/u1 S1 (``rows.append([d, 2 * d, 3 * d])``) and S2
(``P[max(0, t - 5):t].sum()``) at n, in this process (``cache=False``), with a call's median
after it and NumPy's own loop. Usage: ``python tools/probe_loops_57.py s1|s2|s1arr|tmb N``
(``tools/probe_loops_57.sh`` alternates two worktrees)."""

import sys
import time

import numpy as np

import jitcore


def tm_rows(P, PET):
    rows = []
    for t in range(P.shape[0]):
        d = P[t] - PET[t]
        rows.append([d, 2 * d, 3 * d])
    return np.array(rows)


def tm_rows_arr(P, PET):
    rows = []
    for t in range(P.shape[0]):
        d = P[t] - PET[t]
        rows.append(np.array([d, 2 * d, 3 * d]))
    return np.array(rows)


def tm_balance(P, PET, awc=150.0):  # (t57/u1 progs1: surplus 0.0 or np.float64 as the data chose)
    sm = awc
    rows = []
    for t in range(P.shape[0]):
        d = P[t] - PET[t]
        if d >= 0:
            new = min(sm + d, awc)
            surplus = sm + d - new
            aet = PET[t]
        else:
            new = sm * np.exp(d / awc)
            surplus = 0.0
            aet = P[t] + (sm - new)
        sm = new
        rows.append([sm, aet, surplus])
    return np.array(rows)


def api5(P, E):
    n = P.size
    out = np.zeros(n)
    for t in range(n):
        out[t] = P[max(0, t - 5) : t].sum()
    return out


def main() -> None:
    which, n = sys.argv[1], int(sys.argv[2])
    f = {"s1": tm_rows, "s1arr": tm_rows_arr, "s2": api5, "tmb": tm_balance}[which]
    r = np.random.default_rng(0)
    P, E = r.random(n) * 5, np.full(n, 2.0)
    if which == "tmb":
        P, E = np.random.default_rng(1).gamma(0.5, 10, n), np.full(n, 3.0)
    jitcore.jit(lambda x: x + 1, cache=False)(P)  # (jitcore's own start-up, outside the timing)
    jf = jitcore.jit(f, cache=False)
    t = time.perf_counter()
    out = jf(P, E)
    first = time.perf_counter() - t
    ok = np.allclose(out, f(P, E))
    for _ in range(3):
        jf(P, E)
    times = []
    for _ in range(20):
        t = time.perf_counter()
        jf(P, E)
        times.append(time.perf_counter() - t)
    t = time.perf_counter()
    f(P, E)
    py = time.perf_counter() - t
    call = sorted(times)[10] * 1e6
    print(f"{which} n={n} first={first:.3f}s call={call:.1f}us python={py * 1e3:.2f}ms ok={ok}")


if __name__ == "__main__":
    main()
