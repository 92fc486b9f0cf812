"""Per-call time of a function of three split kernels (float64 256x129, above the split minimum)
on each path a split launch can take (docs/performance.md, "Session 57: the launch runtime
compiled once"): below the hot window (the entry's direct call), in the window (the process's
launcher decides; the pool hot or cold as the calls leave it), and above the threshold (chunks
on 2 threads). Run base and branch alternately, each in a fresh process:

    PYTHONPATH=. JITCORE_CACHE=0 python tools/bench_launch_paths57.py

Prints the best of 7 runs of 500 calls per path, in microseconds.
"""

from __future__ import annotations

import time

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config


def chain(a, b, c):
    return a * b + c, (a - c).sum(axis=0), jnp.exp(b) * 2


PATHS = {  # settings per path: threads, parallel_threshold
    "below": (2, 1 << 62),
    "window": (2, 4 * 256 * 129),  # every kernel's weighed work is at least an eighth of it
    "chunks": (2, 0),
}


def main() -> None:
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((256, 129)) for _ in range(3)]
    jitted = jc.jit(chain)
    jitted(*args)
    best = []
    for threads, threshold in PATHS.values():
        with config.using(num_threads=threads, parallel_threshold=threshold, chunk_size=4096):
            jitted(*args)
            runs = []
            for _ in range(7):
                start = time.perf_counter()
                for _ in range(500):
                    jitted(*args)
                runs.append((time.perf_counter() - start) / 500 * 1e6)
            best.append(min(runs))
    print(" ".join(f"{name} {us:.2f}" for name, us in zip(PATHS, best)))


if __name__ == "__main__":
    main()
