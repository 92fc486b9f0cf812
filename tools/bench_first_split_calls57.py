"""Thread CPU of the first call of four split functions (float64 512x513) in a fresh process, after
one unsplit function (imports and LLVM's setup): the first split call also compiles the process's
thread runtime (docs/performance.md, "Session 57: the launch runtime compiled once"). Run base and
branch alternately:

    PYTHONPATH=. JITCORE_CACHE=0 python tools/bench_first_split_calls57.py
"""

from __future__ import annotations

import time

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp

FUNCTIONS = [
    lambda x, y: jnp.tanh(x * 2 + y),
    lambda x, y: (x * y).sum(axis=1),
    lambda x, y: jnp.exp(x) - y / 3,
    lambda x, y: jnp.sqrt(x * x + y * y).sum(axis=0),
]


def main() -> None:
    jc.jit(lambda x: jnp.tanh(x * 2).sum(axis=1))(np.ones((4, 5)))  # nothing split
    rng = np.random.default_rng(0)
    x, y = rng.random((512, 513)), rng.random((512, 513))
    spent = []
    for fn in FUNCTIONS:
        start = time.thread_time()
        jc.jit(fn)(x, y)
        spent.append(time.thread_time() - start)
    print(" ".join(f"{1000 * s:.0f}" for s in spent), f"total {1000 * sum(spent):.0f} ms")


if __name__ == "__main__":
    main()
