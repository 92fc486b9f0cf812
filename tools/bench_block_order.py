"""Reductions in and out of cache, one tree against another (reduce36's table).

    PYTHONPATH=. python tools/bench_block_order.py --compare /tmp/base [--threads 1] [--rounds 2]

runs this tree and the tree at ``--compare`` (``git archive b88cf5f | tar -x -C /tmp/base``)
alternately (base, branch, branch, base per round), each in a fresh process, and prints per
workload the median ms per call of each and branch/base. Without ``--compare`` it times the
tree on ``PYTHONPATH`` once and prints ``name ms`` lines (what the comparison reads).

With ``--threads 1`` (``JITCORE_NUM_THREADS=1``) the clock is the calling thread's CPU time
(the host's load then measures less of the scheduler); else wall time. NumPy's own time is
printed alongside as a yardstick (same process, same clock).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

BIG, SMALL = 10_000_000, 1_000_000  # out of cache (40/80 MB), in cache (L2 + L3: 4/8 MB)


def _clock():
    return time.thread_time if os.environ.get("JITCORE_NUM_THREADS") == "1" else time.perf_counter


def median_ms(f, *args, repeat: int = 9) -> float:
    clock = _clock()
    for _ in range(2):
        f(*args)
    start = clock()
    f(*args)
    batch = max(1, min(2000, int(4e-3 / max(clock() - start, 1e-6))))
    times = []
    for _ in range(repeat):
        start = clock()
        for _ in range(batch):
            f(*args)
        times.append((clock() - start) / batch)
    return sorted(times)[repeat // 2] * 1e3


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5)


def cases():
    vec = [("sum", lambda x, y: np.sum(x)), ("mean", lambda x, y: np.mean(x)),
           ("sum(x*y)", lambda x, y: np.sum(x * y)), ("x@y", lambda x, y: x @ y),
           ("max", lambda x, y: np.max(x)), ("argmax", lambda x, y: np.argmax(x))]
    mat = [("sum1", lambda a: a.sum(axis=1)), ("sum0", lambda a: a.sum(axis=0))]
    rows = [("softmax", softmax), ("layernorm", layernorm)]
    return vec, mat, rows


def report(key: str, jitted, fn, *args) -> None:
    print(f"{key}\t{median_ms(jitted, *args):.4f}\t{median_ms(fn, *args):.4f}", flush=True)


def run_tree(only: set[str] | None) -> None:
    import jitcore as jc

    rng = np.random.default_rng(0)
    vec, mat, rows = cases()
    for dtype in (np.float32, np.float64):
        tag = np.dtype(dtype).name
        for n, where in ((BIG, "out"), (SMALL, "in")):
            x, y = (rng.standard_normal(n).astype(dtype) for _ in range(2))
            for name, fn in vec:
                key = f"{name} {tag} {where}"
                if only and name not in only:
                    continue
                report(key, jc.jit(fn), fn, x, y)
        for shape, where in (((4000, 3000), "out"), ((500, 500), "in")):
            a = rng.standard_normal(shape).astype(dtype)
            for name, fn in mat:
                if only and name not in only:
                    continue
                report(f"{name} {tag} {where}", jc.jit(fn), fn, a)
        for shape, where in (((4096, 1024), "out"), ((256, 1024), "in")):
            a = rng.standard_normal(shape).astype(dtype)
            for name, fn in rows:
                if only and name not in only:
                    continue
                report(f"{name} {tag} {where}", jc.jit(fn), fn, a)


def compare(base: str, rounds: int, only: str | None) -> None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    times: dict[str, dict[str, list[float]]] = {}
    numpy_ms: dict[str, list[float]] = {}
    for _ in range(rounds):
        for tree in (base, here, here, base):
            env = dict(os.environ, PYTHONPATH=tree, JITCORE_CACHE="0")
            argv = [sys.executable, os.path.abspath(__file__)] + (["--only", only] if only else [])
            out = subprocess.run(argv, env=env, cwd=tree, capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                key, ms, np_ms = line.split("\t")
                times.setdefault(key, {}).setdefault(tree, []).append(float(ms))
                numpy_ms.setdefault(key, []).append(float(np_ms))
    med = lambda v: sorted(v)[len(v) // 2]  # noqa: E731
    print(f"threads {os.environ.get('JITCORE_NUM_THREADS', 'all')}; load {os.getloadavg()}; "
          f"ms per call, median of {2 * rounds} runs each (range); branch/base")
    for key, by in times.items():
        b, h = by[base], by[here]
        print(f"{key:24s} base {med(b):8.3f} ({min(b):.3f}-{max(b):.3f})  branch {med(h):8.3f} "
              f"({min(h):.3f}-{max(h):.3f})  ratio {med(h) / med(b):.2f}  numpy {med(numpy_ms[key]):8.3f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--compare")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--threads")
    p.add_argument("--only")
    args = p.parse_args()
    if args.threads:
        os.environ["JITCORE_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = args.threads
    if args.compare:
        compare(args.compare, args.rounds, args.only)
    else:
        run_tree(set(args.only.split(",")) if args.only else None)
