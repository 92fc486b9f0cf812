"""Gathers whose bounds come from a lane's length: the first call at a new length, and the
steady time against NumPy's (docs/performance.md, gather34).

Per function: a call at (ROWS, 1000), then a timed call at (ROWS, 1013) (a compile where the
code is per length, a trace and a reuse where it is size-generic), then the median of steady
calls at 1000 divided by NumPy's. Run it in a base tree and this one alternately.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import jitcore as jc


def nanmedian(x, i):
    return np.nanmedian(x, axis=-1)


def quantile_traced_q(x, i):
    return np.quantile(x, i[0] * 0.0 + 0.37, axis=-1)  # q traced: computed from an argument


def take_clip(x, i):
    return np.take(x[0], i, mode="clip")


def index_clip(x, i):
    return x[2][np.clip(i, 0, x.shape[1] - 1)]


def searchsorted(x, i):
    return np.searchsorted(x[3], x[4])


def arguments(rows, n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, n))
    x[::5, ::7] = np.nan
    x[3] = np.sort(x[3])
    return x, rng.integers(-n, 2 * n, 4096)


def median_time(f, args, repeats, inner):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            f(*args)
        times.append((time.perf_counter() - start) / inner)
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=31)
    args = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)
    for f in (nanmedian, quantile_traced_q, take_clip, index_clip, searchsorted):
        jitted = jc.jit(f)
        steady = arguments(args.rows, 1000)
        jitted(*steady)
        start = time.perf_counter()
        jitted(*arguments(args.rows, 1013, 1))
        first = time.perf_counter() - start
        ratio = median_time(jitted, steady, args.repeats, 50) / median_time(f, steady, args.repeats, 50)
        print(f"{f.__name__:18s} new length {first * 1e3:8.1f} ms   steady / NumPy {ratio:6.3f}   "
              f"compiles {jitted.cache_info().compiles}")


if __name__ == "__main__":
    main()
