"""Session 55: the first call of whole-array reductions (its process CPU, LLVM's part and the
LLVM module's lines) and their calls after it, in two trees side by side.

    PYTHONPATH=. python tools/bench_reduction_compile55.py --trees BASE BRANCH --rounds 3
    PYTHONPATH=. python tools/bench_reduction_compile55.py --speed --trees BASE BRANCH --rounds 7

Each round runs this file once in each tree, alternately (a fresh process, the disk cache off,
one thread for the calls), and the table gives medians over the rounds and base / branch.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def _first_calls() -> dict[str, tuple[float, float, int]]:
    import jitcore as jc
    import jitcore.codegen.cpu.backend as backend
    from jitcore.codegen.cpu import target

    compile_ir, seen = target.compile_ir, []

    def timed(text, *args, **kwargs):
        start = time.process_time()
        result = compile_ir(text, *args, **kwargs)
        seen.append((text.count("\n"), time.process_time() - start))
        return result

    backend.target.compile_ir = timed
    rng = np.random.default_rng(0)
    v, x, y = rng.random(100), rng.random((50, 7)), rng.random((50, 7))
    jc.jit(lambda a: a + 1)(v)  # the process's one-time setup, off the table
    cases = {
        "a.sum()": (lambda a: a.sum(), (v,)), "a.mean()": (lambda a: a.mean(), (v,)),
        "(a*b).sum()": (lambda a, b: (a * b).sum(), (x, y)),
        "np.dot(v, v)": (lambda a, b: np.dot(a, b), (v, v)),
        "a.var()": (lambda a: a.var(), (v,)), "norm(v)": (lambda a: np.linalg.norm(a), (v,)),
        "a.max()": (lambda a: a.max(), (v,)), "a.argmax()": (lambda a: a.argmax(), (v,)),
        "a.sum() f32": (lambda a: a.sum(), (v.astype(np.float32),)),
        "a.min() f32": (lambda a: a.min(), (v.astype(np.float32),)),
        "log(a).sum()": (lambda a: np.log(a).sum(), (v,)),
        "a.sum(axis=0)": (lambda a: a.sum(axis=0), (x,)),
    }
    out = {}
    for name, (fn, args) in cases.items():
        seen.clear()
        start = time.process_time()
        jc.jit(fn)(*args)
        cpu = time.process_time() - start
        out[name] = (1e3 * cpu, 1e3 * sum(s for _, s in seen), sum(n for n, _ in seen))
    return out


def _calls() -> dict[str, float]:
    import jitcore as jc

    rng = np.random.default_rng(0)
    functions = {"sum": lambda a: a.sum(), "mean": lambda a: a.mean(), "max": lambda a: a.max(),
                 "argmax": lambda a: a.argmax(), "var": lambda a: a.var(), "dot": lambda a: np.dot(a, a),
                 "norm": lambda a: np.linalg.norm(a)}
    work = []
    for n in (10**3, 10**5, 10**7):
        for dtype in (np.float64, np.float32, np.int64):
            data = (rng.random(n) * 100).astype(dtype)
            for name, fn in functions.items():
                if not (dtype == np.int64 and name == "norm"):
                    work.append((f"{name} {np.dtype(dtype).name} {n:.0e}", fn, (data,)))
    a, b = rng.random(10**7), rng.random(10**7)
    work.append(("sum(x*y) float64 1e+07", lambda p, q: (p * q).sum(), (a, b)))
    positive = rng.random(10**5) + 0.5
    for dtype in (np.float64, np.float32):
        work.append((f"log(x).sum() {np.dtype(dtype).name} 1e+05", lambda p: np.log(p).sum(),
                     (positive.astype(dtype),)))
    out = {}
    for label, fn, args in work:
        f = jc.jit(fn)
        f(*args)
        reps = max(3, 3 * 10**6 // args[0].size)
        best = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(reps):
                f(*args)
            best.append((time.perf_counter() - start) / reps)
        out[label] = min(best)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs=2, metavar=("BASE", "BRANCH"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--speed", action="store_true", help="the calls after the first, in microseconds")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a round in this tree
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_calls() if args.speed else _first_calls()))
        return
    results = {tree: [] for tree in args.trees}
    env = {**os.environ, "PYTHONPATH": ".", "JITCORE_CACHE": "0", "JITCORE_NUM_THREADS": "1"}
    command = [sys.executable, os.path.abspath(__file__), "--one", *(["--speed"] if args.speed else [])]
    for _ in range(args.rounds):
        for tree in args.trees:
            done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=True)
            results[tree].append(json.loads(done.stdout.strip().splitlines()[-1]))
    base, branch = (results[tree] for tree in args.trees)
    for key in base[0]:
        if args.speed:
            old, new = (statistics.median(r[key] for r in rows) for rows in (base, branch))
            print(f"{key:28s} {1e6 * old:12.2f} {1e6 * new:12.2f} us  {old / new:6.3f}")
            continue
        old, new = ([statistics.median(r[key][i] for r in rows) for i in range(3)] for rows in (base, branch))
        print(f"{key:14s} cpu {old[0]:6.1f} -> {new[0]:6.1f} ms ({old[0] / new[0]:4.2f}x)  "
              f"llvm {old[1]:6.1f} -> {new[1]:6.1f}  lines {old[2]:5.0f} -> {new[2]:5.0f}")


if __name__ == "__main__":
    main()
