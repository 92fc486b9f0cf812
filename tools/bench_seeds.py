"""A Monte Carlo price made with a new seed on every call (docs/performance.md, "A new seed per
call"): ``rng = np.random.default_rng(seed)`` inside, 200,000 normals, a GBM call's payoff.

    JITCORE_CACHE_DIR=$(mktemp -d) python tools/bench_seeds.py jit   # or: numpy

Prints the time of 20 calls with seeds 0..19 (the first compile included), then of 20 more
(20..39), and how many times it compiled. Run it in a fresh process per measurement, with an
empty disk cache, alternating the trees compared."""

import sys
import time

import numpy as np

import jitcore as jc


def mc_call(seed, s0, k, r, sigma, t, n):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n)
    st = s0 * np.exp((r - 0.5 * sigma**2) * t + sigma * np.sqrt(t) * z)
    return np.exp(-r * t) * np.maximum(st - k, 0.0).mean()


def main() -> None:
    n = 200_000
    f = jc.jit(mc_call, static_argnames=("n",))
    jit = sys.argv[1:] == ["jit"]
    fun = f if jit else mc_call
    times = []
    for seeds in (range(20), range(20, 40)):
        start = time.perf_counter()
        for seed in seeds:
            fun(seed, 100.0, 105.0, 0.02, 0.2, 1.0, n)
        times.append((time.perf_counter() - start) * 1e3)
    compiles = f.cache_info().compiles if jit else "-"
    print(f"{'jit' if jit else 'numpy'}: seeds 0..19 {times[0]:.0f} ms, seeds 20..39 {times[1]:.0f} ms, "
          f"compiles {compiles}")


if __name__ == "__main__":
    main()
