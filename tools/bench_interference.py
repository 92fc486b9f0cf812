#!/usr/bin/env python
"""How a NumPy call slows the jitted call after it: OpenBLAS's spinning workers, and caches.

    PYTHONPATH=. python tools/bench_interference.py [--repeat R] [--delays 0,1,10,100,300]
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python tools/bench_interference.py   # no BLAS workers

Two measurements on the MLP step of ``tools/bench_workloads.py`` (x 10000x256 float32):

- **spin**: after one NumPy step, the CPU time every other thread of the process burns in each
  millisecond that follows (per-thread CPU clocks, nanoseconds), while this thread sleeps: how
  long OpenBLAS's workers keep spinning after the library returns; and the same after a jitted
  step (jitcore's pool: its workers block after a few microseconds).
- **delays**: the jitted step timed alone (after itself), and right after a NumPy step with the
  calling thread sleeping 0, 1, 10, ... ms in between. Sleeping does not warm the caches, so
  what is left after the workers stop spinning is the caches' part; the drop before it is the
  spinning's. Wall time and this thread's CPU time, medians.
- **pipeline** (``--pipeline``): a user's loop that alternates the two, a NumPy step then a
  jitted step, back to back; the median of each and of their sum. Run it under each OpenBLAS
  setting (``OPENBLAS_NUM_THREADS``, ``OPENBLAS_THREAD_TIMEOUT``) to see what each costs NumPy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_workloads as bw  # noqa: E402

import jitcore as jc  # noqa: E402


def thread_cpu() -> dict[int, float]:
    """CPU seconds of every thread of this process but the calling one, by thread id (Linux's
    per-thread CPU clocks, which ``clock_gettime`` reads for any thread id)."""
    me = threading.get_native_id()
    out = {}
    for name in os.listdir("/proc/self/task"):
        tid = int(name)
        if tid == me:
            continue
        try:
            out[tid] = time.clock_gettime((~tid << 3) | 6)  # MAKE_THREAD_CPUCLOCK(tid, SCHED)
        except OSError:  # the thread ended meanwhile
            pass
    return out


def spin_profile(numpy_call, window_ms: int = 400) -> list[float]:
    """Milliseconds of other threads' CPU time in each millisecond after ``numpy_call()``."""
    numpy_call()
    before = thread_cpu()
    start = time.perf_counter()
    busy = []
    for k in range(1, window_ms + 1):
        while time.perf_counter() - start < k * 1e-3:
            time.sleep(0.0002)
        now = thread_cpu()
        busy.append(sum(now[t] - before.get(t, now[t]) for t in now) * 1e3)
        before = now
    return busy


def spin_end(busy: list[float], idle: float = 0.05) -> int:
    """The first millisecond after which the other threads stay under ``idle`` of a core."""
    last = max((k for k, b in enumerate(busy) if b > idle), default=-1)
    return last + 1


def timed(call) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    call()
    return (time.perf_counter() - wall) * 1e3, (time.thread_time() - cpu) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--delays", default="0,1,10,100,300", help="ms between the NumPy step and ours")
    parser.add_argument("--pipeline", action="store_true", help="only the alternating loop")
    args = parser.parse_args()
    delays = [float(d) for d in args.delays.split(",")]

    arrays = bw._mlp_inputs(np.random.default_rng(0), bw._mlp_shapes(1.0), np.float32)
    jitted = jc.jit(bw.mlp_step)
    ours = lambda: jitted(*arrays)  # noqa: E731
    theirs = lambda: bw.mlp_step(*arrays)  # noqa: E731
    ours(), theirs()
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '')!r} "
          f"JITCORE_NUM_THREADS={jc.config.num_threads}; load average {os.getloadavg()[0]:.2f}")

    if args.pipeline:
        pipeline(ours, theirs, args.repeat)
        return
    for name, call in (("a NumPy step", theirs), ("a jitted step", ours)):
        ends, burned = [], []
        for _ in range(5):
            busy = spin_profile(call)
            ends.append(spin_end(busy))
            burned.append(sum(busy))
        print(f"spin: other threads busy until {statistics.median(ends)} ms after {name} "
              f"(runs: {ends}), burning {statistics.median(burned):.1f} ms of CPU (median)")

    rows = []
    rounds = {"alone": (None, None)} | {f"after numpy, {d:g} ms": (theirs, d) for d in delays}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in rounds}
    for _ in range(args.repeat):  # the cases take turns, so a burst of load hits them alike
        for name, (before, delay) in rounds.items():
            (before or ours)()
            if delay:
                time.sleep(delay / 1e3)
            times[name].append(timed(ours))
    alone = statistics.median(w for w, _ in times["alone"])
    for name, ts in times.items():
        wall = statistics.median(w for w, _ in ts)
        cpu = statistics.median(c for _, c in ts)
        rows.append(f"| {name} | {wall:.1f} | {wall / alone:.2f} | {cpu:.1f} |")
    print("| jitted MLP step | wall ms | x alone | this thread's CPU ms |\n|---|---|---|---|")
    print("\n".join(rows))
    print(f"numpy step alone: {statistics.median(timed(theirs)[0] for _ in range(5)):.1f} ms; "
          f"load average {os.getloadavg()[0]:.2f}")


def pipeline(ours, theirs, repeat: int) -> None:
    """A loop of a NumPy step then a jitted step: each one's median, and the loop's per step."""
    mine, other, both = [], [], []
    for _ in range(repeat):
        start = time.perf_counter()
        other.append(timed(theirs)[0])
        mine.append(timed(ours)[0])
        both.append((time.perf_counter() - start) * 1e3)
    env = " ".join(f"{k}={os.environ[k]}" for k in ("OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT",
                                                    "JITCORE_NUM_THREADS") if k in os.environ)
    print(f"| {env or 'defaults'} | {statistics.median(other):.1f} | {statistics.median(mine):.1f} | "
          f"{statistics.median(both):.1f} | {os.getloadavg()[0]:.2f} |")


if __name__ == "__main__":
    main()
