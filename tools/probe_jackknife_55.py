"""Session 55 (loops55): leave-one-out jackknife loops, first call and steady state against NumPy.

    JITCORE_CACHE=0 PYTHONPATH=. python tools/probe_jackknife_55.py 1000

The first call is timed after a warm-up compile of the same kernels at a static index (the
process's first compile pays for imports and the median's code once, whatever the loop does).
"""

import sys
import time
import warnings

import numpy as np

import jitcore as jc

warnings.simplefilter("ignore")


def jk_concat(x):
    n = x.shape[0]
    vals = np.zeros(n)
    for i in range(n):
        vals[i] = np.median(np.concatenate([x[:i], x[i + 1 :]]))
    m = vals.mean()
    return np.sqrt((n - 1) / n * ((vals - m) ** 2).sum())


def jk_delete(x):
    n = x.shape[0]
    vals = np.zeros(n)
    for i in range(n):
        vals[i] = np.median(np.delete(x, i))
    return vals


def main(n: int) -> None:
    x = np.random.default_rng(0).normal(size=n)
    t0 = time.perf_counter()
    jc.jit(lambda v: np.median(v[1:]) + np.delete(v, 0).sum())(x)
    print(f"warm-up {time.perf_counter() - t0:.2f} s")
    for f in (jk_concat, jk_delete):
        g = jc.jit(f)
        t0 = time.perf_counter()
        got = g(x)
        first = time.perf_counter() - t0
        assert np.allclose(got, f(x))
        js, ns = [], []
        for _ in range(7):
            t0 = time.perf_counter()
            g(x)
            js.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            f(x)
            ns.append(time.perf_counter() - t0)
        print(
            f"{f.__name__} n={n}: first call {first:.2f} s, jit {1e3 * np.median(js):.2f} ms, "
            f"NumPy {1e3 * np.median(ns):.2f} ms ({np.median(ns) / np.median(js):.1f}x)"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
