"""Where a streamed, compute-heavy workload spends: its compute, its memory traffic, its threads.

The workloads table (``tools/bench.py --suite workloads``) gives a row's bandwidth bound and its
one-core compute floor; a row far above both (sin(x+y) f64: 1.7x either, on two threads) does
not say which of them it is waiting on. This tool runs the same workloads (their inputs and
sizes, ``tools/bench_workloads.py``) on one thread and on two, and reads what each call cost in
CPU time, the process's threads summed (Linux: ``/proc/self/task/*/schedstat``, which counts
time on a core, stalls on memory included, and not time spent waiting for one):

- ``1t ms`` against ``floor ms``: on one core, a row at its floor is bound by its compute, one
  above it by memory (or something in its loop that the floor's kernel lacks);
- ``2t ms`` against ``bound ms``, ``floor/2`` and their sum: two threads whose compute and memory
  traffic overlap approach the larger of ``bound`` and ``floor/2``; ones that take turns approach
  the sum;
- ``2t cpu / 1t cpu``: about 1 where the second thread did half the work at the first's speed; 2
  where each thread took twice as long a point (stalled on the shared memory, or on another
  process holding its core's caches).

On a host shared with other processes only the CPU-time ratio means much; the walls want a
quiet host (``uptime``'s load average is printed with the table).

    PYTHONPATH=. python tools/bench_streams.py [--only sin,tanh,gelu,gauss] [--repeat 7] [--scale 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import bench_workloads as bw  # noqa: E402
from settle import settle  # noqa: E402

import jitcore as jc  # noqa: E402

DEFAULT_ONLY = ("sin", "tanh", "gelu", "gauss")


def threads_cpu_s() -> float | None:
    """CPU seconds the process's threads have run so far (None without /proc)."""
    total = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except FileNotFoundError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):  # a thread that ended meanwhile
            continue
    return total / 1e9


def timed_calls(fn, arrays, threads: int, repeat: int) -> tuple[float, float | None]:
    """Median wall ms and median CPU ms (all threads) of ``repeat`` calls on ``threads``."""
    saved = jc.config.num_threads
    jc.config.num_threads = threads
    try:
        fn(*arrays)
        settle()
        fn(*arrays)
        walls, cpus = [], []
        result = None
        for _ in range(repeat):
            cpu, start = threads_cpu_s(), time.perf_counter()
            result = fn(*arrays)  # the previous result alive meanwhile, as in the bench
            walls.append(time.perf_counter() - start)
            if cpu is not None:
                cpus.append(threads_cpu_s() - cpu)
        del result
    finally:
        jc.config.num_threads = saved
    return statistics.median(walls) * 1e3, (statistics.median(cpus) * 1e3 if cpus else None)


def measure(work: bw.Workload, dtype: np.dtype, repeat: int, bandwidth: float,
            scale: float = 1.0) -> list[str]:
    """One table row: ``work`` on ``dtype`` (the bench's inputs, sizes times ``scale``)."""
    rng = np.random.default_rng(zlib.crc32(f"{work.name} {dtype.name}".encode()))
    arrays = [rng.standard_normal(s).astype(dtype) for s in work.shapes(scale)]
    fn = jc.jit(work.fn)
    out = fn(*arrays)
    bound = (sum(a.nbytes for a in arrays) + out.nbytes) / bandwidth * 1e3
    floor, _ = bw.floor_of(work, dtype, arrays, out.shape, repeat)
    one, one_cpu = timed_calls(fn, arrays, 1, repeat)
    two, two_cpu = timed_calls(fn, arrays, 2, repeat)
    ratio = f"{two_cpu / one_cpu:.2f}" if one_cpu and two_cpu else ""
    cells = [bound, floor, floor / 2, max(bound, floor / 2), bound + floor / 2, one, one_cpu, two, two_cpu]
    return [work.title, dtype.name] + [f"{c:.4g}" if c is not None else "" for c in cells] + [ratio]


HEADER = ["workload", "dtype", "bound ms", "floor ms", "floor/2", "max(bound, floor/2)", "bound + floor/2",
          "1t ms", "1t cpu ms", "2t ms", "2t cpu ms", "2t cpu / 1t cpu"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(DEFAULT_ONLY),
                        help="comma-separated workload names of the bench (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=7, help="timed calls per measurement (default 7)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="each workload's element count times this (default 1: the bench's sizes)")
    opts = parser.parse_args(argv)
    names = [n.strip() for n in opts.only.split(",")]
    works = {w.name: w for w in bw.WORKLOADS}
    unknown = [n for n in names if n not in works]
    if unknown:
        parser.error(f"unknown workload(s): {', '.join(unknown)}")
    bandwidth = bw.copy_bandwidth(1 << 26, opts.repeat)
    print(f"load average {os.getloadavg()[0]:.2f}; copy bandwidth {bandwidth / 1e9:.1f} GB/s; "
          f"median of {opts.repeat} calls; cpu = the process's threads' time on a core, summed")
    rows = [measure(works[n], np.dtype(dt), opts.repeat, bandwidth, opts.scale)
            for n in names for dt in works[n].dtypes]
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
