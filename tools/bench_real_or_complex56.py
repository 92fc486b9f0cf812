"""Session 56: arithmetic on eigenvalues real or complex as the data chooses
(``jitcore/real_or_complex.py``), against NumPy in the same process.

Both sides are computed and the one the data takes is kept, so the elementwise work after the
decomposition is done twice (a real and a complex pass); before, only the complex pass ran
(and gave complex128 where NumPy gives float64). Run it for a tree and for base, alternating:

    JITCORE_CACHE=0 JITCORE_NUM_THREADS=1 PYTHONPATH=. python tools/bench_real_or_complex56.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np

import jitcore

warnings.simplefilter("ignore")
rng = np.random.default_rng(0)
N = 20
# a lower-triangular rate matrix: every eigenvalue real (NumPy's float64 path)
K = -np.diag(rng.uniform(0.1, 2.0, N)) + np.tril(rng.uniform(0.0, 0.1, (N, N)), -1)
T = np.linspace(0.0, 5.0, 100_000)
K3 = np.array([[-1.2, 0.0, 0.0], [1.2, -0.5, 0.1], [0.0, 0.2, -0.1]])


def modes(K, t):
    w = np.linalg.eigvals(K)
    return np.exp(np.outer(t, w)).sum(axis=1)


def half_lives(K):
    w = np.linalg.eigvals(K)
    return np.sort(np.log(2) / -w)


def median(fn, *args, reps=7, inner=1) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(inner):
            fn(*args)
        times.append((time.perf_counter() - start) / inner)
    return sorted(times)[len(times) // 2]


def main() -> None:
    for fn, args, inner in ((modes, (K, T), 1), (half_lives, (K3,), 200)):
        jitted = jitcore.jit(fn)
        start = time.perf_counter()
        got = jitted(*args)
        first = time.perf_counter() - start
        ours, numpy = median(jitted, *args, inner=inner), median(fn, *args, inner=inner)
        print(f"{fn.__name__:10s} first call {first:6.2f} s  jit {ours * 1e3:9.4f} ms  NumPy "
              f"{numpy * 1e3:9.4f} ms  jit/NumPy {ours / numpy:5.2f}  dtype {got.dtype} "
              f"(NumPy {fn(*args).dtype})")


if __name__ == "__main__":
    main()
