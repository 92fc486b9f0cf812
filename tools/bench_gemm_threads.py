#!/usr/bin/env python
"""Matrix products on several threads: jitcore (at several ``CHUNKS_PER_THREAD``) against
NumPy, Numba and JAX, wall clock, with the host idle or one core kept half busy (the numbers
of docs/performance.md's "Matrix products on two busy cores").

    PYTHONPATH=. chrt -f 10 python tools/bench_gemm_threads.py [--per-thread default,2,4] [--busy]
        [--sizes 1024] [--forms a@b,a.T@b] [--peers numpy,numba,jax] [--repeat 9]

``jc`` is jitcore as it is, ``jc/N`` with N chunks per thread for every product. Every
implementation is called in turns, each timed call after a pause of ``--settle``
seconds and one untimed call (another library's spinning threads park meanwhile); the
medians are printed with GFLOP/s and each one's time over jitcore's (the first
``--per-thread``). ``--busy`` starts a process that spins ``--on`` ms and sleeps ``--off`` ms
in turns on the last CPU, at a real-time priority above this one's where it may (``chrt -f
10`` for this process, 11 for it): a core that something else takes half the time, which a
static split of the product waits for. Thread counts come from the environment
(``JITCORE_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ...), as for every library.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

import numpy as np

import jitcore as jc
from jitcore.codegen.cpu import tiled_gemm

FORMS = {"a@b": lambda a, b: a @ b, "a.T@b": lambda a, b: a.T @ b, "a@b.T": lambda a, b: a @ b.T}

SPINNER = """
import os, sys, time
on, off, total = (float(x) for x in sys.argv[1:4])
cpu = max(os.sched_getaffinity(0))
os.sched_setaffinity(0, {cpu})
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(11))
except OSError:
    pass
end = time.perf_counter() + total
while time.perf_counter() < end:
    stop = time.perf_counter() + on / 1e3
    while time.perf_counter() < stop:
        pass
    time.sleep(off / 1e3)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024")
    parser.add_argument("--forms", default="a@b,a.T@b")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--per-thread", default="default",
                        help="chunks per thread of each jitcore variant: N sets tiled_gemm.CHUNKS_PER_THREAD "
                             "and CHUNKS_PER_THREAD_ROWS_OF_A both (1: one chunk per core); "
                             "'default': as they are")
    parser.add_argument("--peers", default="numpy,numba,jax")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--settle", type=float, default=0.12)
    parser.add_argument("--busy", action="store_true", help="keep the last CPU half busy meanwhile")
    parser.add_argument("--on", type=float, default=2.0)
    parser.add_argument("--off", type=float, default=2.0)
    args = parser.parse_args()
    peers = [p for p in args.peers.split(",") if p]
    spinner = None
    if args.busy:
        spinner = subprocess.Popen([sys.executable, "-c", SPINNER, str(args.on), str(args.off), "3600"])
    try:
        run(args, peers)
    finally:
        if spinner is not None:
            spinner.kill()


def run(args, peers: list[str]) -> None:
    numba = jax = None
    if "numba" in peers:
        import numba
    if "jax" in peers:
        import jax
        jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    for n in (int(x) for x in args.sizes.split(",")):
        for form in args.forms.split(","):
            fn = FORMS[form]
            for dtype in args.dtypes.split(","):
                a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
                impls = {}
                names = ("CHUNKS_PER_THREAD", "CHUNKS_PER_THREAD_ROWS_OF_A")
                saved = [getattr(tiled_gemm, name) for name in names]
                for per_thread in args.per_thread.split(","):
                    for name, value in zip(names, saved):
                        setattr(tiled_gemm, name, value if per_thread == "default" else int(per_thread))
                    jitted = jc.jit(fn, cache=False)
                    jitted(a, b)  # compiled with these chunks per thread
                    impls["jc" if per_thread == "default" else f"jc/{per_thread}"] = (jitted, (a, b))
                for name, value in zip(names, saved):
                    setattr(tiled_gemm, name, value)
                if "numpy" in peers:
                    impls["numpy"] = (fn, (a, b))
                if numba is not None:
                    impls["numba"] = (numba.njit(fn), (a, b))
                if jax is not None:
                    impls["jax"] = (jax.jit(fn), (jax.device_put(a), jax.device_put(b)))
                want = fn(a.astype(np.float64), b.astype(np.float64))
                for name, (f, xs) in impls.items():
                    got = np.asarray(f(*xs))
                    assert np.allclose(got, want, rtol=1e-3, atol=1e-2 * n ** 0.5), name
                times = {name: [] for name in impls}
                for _ in range(args.repeat):
                    for name, (f, xs) in impls.items():
                        time.sleep(args.settle)
                        _done(f(*xs))
                        start = time.perf_counter()
                        _done(f(*xs))
                        times[name].append(time.perf_counter() - start)
                ms = {name: statistics.median(t) * 1e3 for name, t in times.items()}
                first = next(iter(ms.values()))
                cells = "  ".join(f"{name} {t:.2f} ms {2 * n ** 3 / t / 1e6:.0f} GF/s ({t / first:.2f})"
                                  for name, t in ms.items())
                print(f"{form} {n}^2 {dtype}: {cells}", flush=True)


def _done(out) -> None:
    if hasattr(out, "block_until_ready"):
        out.block_until_ready()


if __name__ == "__main__":
    main()
