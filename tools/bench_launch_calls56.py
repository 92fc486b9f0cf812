"""Per-call time of a small function of three split kernels (float64 64x33): what a launch's
code costs around its kernels (docs/performance.md, "Session 56: compile time per module").
Run base and branch alternately, each in a fresh process:

    PYTHONPATH=. JITCORE_CACHE=0 python tools/bench_launch_calls56.py

Prints the best of 7 runs of 2,000 calls, in microseconds, on 1 and on 2 threads.
"""

from __future__ import annotations

import time

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config


def chain(a, b, c):
    return a * b + c, (a - c).sum(axis=0), jnp.exp(b) * 2


def main() -> None:
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((64, 33)) for _ in range(3)]
    jitted = jc.jit(chain)
    jitted(*args)
    best = []
    for threads in (1, 2):
        with config.using(num_threads=threads):
            jitted(*args)
            runs = []
            for _ in range(7):
                start = time.perf_counter()
                for _ in range(2000):
                    jitted(*args)
                runs.append((time.perf_counter() - start) / 2000 * 1e6)
            best.append(min(runs))
    print(" ".join(f"{us:.2f}" for us in best))


if __name__ == "__main__":
    main()
