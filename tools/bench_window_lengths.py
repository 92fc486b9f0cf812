"""Windows whose length varies per output (session 45): NumPy, jitcore before and after,
alternating, one process per measurement.

    python tools/bench_window_lengths.py --before /work/main                 (a few minutes)
    python tools/bench_window_lengths.py --before /work/main --loops --rounds 1

Each round runs every case in NumPy, then the ``--before`` tree, then this one, each in a
fresh process (``--worker``): one call to compile, then calls for at least 1 s (at least 7,
at most 41), median. The table gives the median over rounds and, in brackets, the minimum:
on a shared host the minimum is the steadier of the two. ``--threads 1`` runs jitcore on one
thread, as NumPy's loop runs. ``--loops`` adds the autocorrelation written as a list of
``np.dot`` over shifted slices and as a loop writing ``r[k]`` (n = 256; they unroll, a
minute or more to compile each).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent


def autocorrelation(x, k):
    return np.correlate(x, x, "full")


def convolve_full(x, k):
    return np.convolve(x, k, "full")


def convolve_same(x, k):
    return np.convolve(x, k, "same")


def dot_list(x, k):
    n = x.shape[0]
    return np.array([np.dot(x[:n - j], x[j:]) for j in range(n)])


def sum_loop(x, k):
    n = x.shape[0]
    r = np.zeros(n, x.dtype)
    for j in range(n):
        r[j] = np.sum(x[:n - j] * x[j:])
    return r


# name -> (function, len(x), len(k), dtype)
CASES = {
    "correlate(x, x, 'full') f64 n=4096": (autocorrelation, 4096, 1, "float64"),
    "correlate(x, x, 'full') f32 n=4096": (autocorrelation, 4096, 1, "float32"),
    "convolve full f64 10**5 x 255": (convolve_full, 10 ** 5, 255, "float64"),
    "convolve same f64 10**5 x 255": (convolve_same, 10 ** 5, 255, "float64"),
    "convolve full f64 10**6 x 255": (convolve_full, 10 ** 6, 255, "float64"),
}
LOOPS = {
    "list of np.dot, f64 n=256": (dot_list, 256, 1, "float64"),
    "loop of r[k] = np.sum, f64 n=256": (sum_loop, 256, 1, "float64"),
}


def worker(impl: str, name: str, threads: int | None) -> None:
    f, n, m, dtype = {**CASES, **LOOPS}[name]
    rng = np.random.default_rng(0)
    x, k = rng.standard_normal(n).astype(dtype), rng.standard_normal(m).astype(dtype)
    if impl != "numpy":
        import jitcore as jc
        jc.config.buffer_pool_bytes = 0
        if threads:
            jc.config.num_threads = threads
        f = jc.jit(f)
    start = time.perf_counter()
    f(x, k)
    first = time.perf_counter() - start
    times: list[float] = []
    end = time.perf_counter() + 1.0
    while len(times) < 7 or (time.perf_counter() < end and len(times) < 41):
        start = time.perf_counter()
        f(x, k)
        times.append(time.perf_counter() - start)
    print(json.dumps({"ms": float(np.median(times)) * 1e3, "first_s": first}))


def measure(impl: str, tree: Path, name: str, threads: int | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", impl, "--case", name]
    command += ["--threads", str(threads)] if threads else []
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd="/")
    if done.returncode:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"{impl} worker failed on {name!r} ({tree})")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=False, help="the tree to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, help="jitcore's num_threads (default: its own)")
    parser.add_argument("--loops", action="store_true", help="add the loop forms (slow to compile)")
    parser.add_argument("--worker", choices=("numpy", "jitcore"), help=argparse.SUPPRESS)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.case, args.threads)
        return
    trees = {"numpy": ("numpy", HERE)}
    if args.before is not None:
        trees["before"] = ("jitcore", args.before.resolve())
    trees["after"] = ("jitcore", HERE)
    names = list(CASES) + (list(LOOPS) if args.loops else [])
    runs: dict[tuple[str, str], list[dict]] = {}
    for _ in range(args.rounds):
        for name in names:
            for key, (impl, tree) in trees.items():
                runs.setdefault((name, key), []).append(measure(impl, tree, name, args.threads))
    print("| case | " + " | ".join(f"{k} ms" for k in trees) + " | after/numpy | after compile s |")
    print("|" + " --- |" * (len(trees) + 3))
    for name in names:
        cells, medians = [], {}
        for key in trees:
            ms = [r["ms"] for r in runs[(name, key)]]
            medians[key] = statistics.median(ms)
            cells.append(f"{medians[key]:.2f} ({min(ms):.2f})")
        first = statistics.median(r["first_s"] for r in runs[(name, "after")])
        ratio = medians["after"] / medians["numpy"]
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio:.2f} | {first:.1f} |")


if __name__ == "__main__":
    main()
