"""Exact masked sums (maskedsum48): ``x[m].sum()`` (compacted, NumPy's bits) against
``np.where(m, x, 0).sum()`` (the inexact form: the unkept terms as zeros, summed in place) and
NumPy's ``x[m].sum()``; a returned ``x[m]`` against NumPy's; at 10^5 and 10^6, float32 and
float64, masks of 50%, 1% and 99% kept; then ``x[x > 0].sum()``, an int64 ``x[m].sum()`` and a
float64 ``x[m].max()`` (not compacted). ms, medians of 7 calls.

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=<tree> python tools/bench_masked_sums.py [filter]
"""

import sys
import time

import numpy as np

import jitcore as jc


def med(f, *a, reps=7):
    f(*a)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f(*a)
        ts.append(time.perf_counter() - t)
    return sorted(ts)[len(ts) // 2] * 1e3


exact = jc.jit(lambda x, m: x[m].sum())
inexact = jc.jit(lambda x, m: np.where(m, x, 0).sum())
positive = jc.jit(lambda x: x[x > 0].sum())
returned = jc.jit(lambda x, m: x[m])
int_sum = jc.jit(lambda x, m: x[m].sum())
largest = jc.jit(lambda x, m: x[m].max())


def main(filt: str) -> None:
    rng = np.random.default_rng(0)
    for n in (10**5, 10**6):
        for dt in (np.float32, np.float64):
            x = rng.standard_normal(n).astype(dt)
            for kind, p in (("rand50", 0.5), ("sparse1%", 0.01), ("dense99%", 0.99)):
                m = rng.random(n) < p
                name = f"{np.dtype(dt).name} {n:.0e} {kind}"
                if filt not in name:
                    continue
                assert exact(x, m) == np.sum(x[m])
                e, i, nn = med(exact, x, m), med(inexact, x, m), med(lambda x, m: x[m].sum(), x, m)
                r, nr = med(returned, x, m), med(lambda x, m: x[m], x, m)
                print(f"{name:28s} exact {e:7.3f} inexact {i:7.3f} ratio {e / i:5.2f} numpy {nn:7.3f} "
                      f"| ret {r:7.3f} np {nr:7.3f}", flush=True)
            name = f"{np.dtype(dt).name} {n:.0e}"
            if filt in name:
                print(f"{name} x[x>0].sum()       {med(positive, x):7.3f} "
                      f"numpy {med(lambda x: x[x > 0].sum(), x):7.3f}")
    xi, m = rng.integers(0, 100, 10**6), rng.random(10**6) < 0.5
    y = rng.standard_normal(10**6)
    print(f"int64 1e6 sum {med(int_sum, xi, m):.3f} max f64 {med(largest, y, m):.3f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
