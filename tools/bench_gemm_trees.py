#!/usr/bin/env python
"""Matrix products of two jitcore trees (a base and a branch) against NumPy and JAX: the tables
of docs/performance.md's "Matrix products: packing buffers kept".

    python tools/bench_gemm_trees.py --trees /tmp/base,. [--threads 2] [--cases a@b:64,...]
    # one thread each (CPU time of the calling thread, JAX's of the process):
    python tools/bench_gemm_trees.py --trees /tmp/base,. --threads 1

Each tree runs every case in a process of its own (``--worker``), the trees in turns
(``--runs`` sweeps each, the first tree first in even rounds): per case the worker compiles
the product, checks it against float64, then times jitcore, NumPy and ``jax.jit`` in turns,
one call each per round after an untimed one and a pause of ``--settle`` seconds (other
libraries' threads park), and prints the medians. The table gives each tree's median over its
runs (jitcore), NumPy's and JAX's over all runs, and their ratios to the branch (above 1: the
branch faster). With ``--threads 1`` every library runs on one thread and the times are CPU
time; otherwise wall clock (run it under ``chrt -f 10`` on a shared host: the other processes
then wait for ours).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

SQUARES = "64,96,128,192,256,384,512,768,1024,1536,2048"
OTHERS = ("a@b:1000x1000x1000,a@b:1023x1023x1023,a@b:100x1000x100,a@b:10000x64x64,"
          "a.T@b:256x256x256,a.T@b:1024x1024x1024,a.T@b:2048x2048x2048,a@b.T:1024x1024x1024,"
          "a@v:1024x1024x1,a@v:4096x4096x1")


def worker(cases: list[str], dtypes: list[str], threads: int, settle: float, repeat: int) -> None:
    """Each case of each dtype timed here (jitcore, NumPy, JAX in turns): a JSON line each."""
    import numpy as np

    import jitcore as jc

    jc.config.num_threads = threads
    try:
        import jax
        import jax.numpy as jnp
        jax.config.update("jax_enable_x64", True)
    except ImportError:
        jax = None
    rng = np.random.default_rng(0)
    for dtype in dtypes:
        for case in cases:
            form, size = case.split(":")
            m, k, n = map(int, size.split("x"))
            a_shape = (k, m) if form.startswith("a.T") else (m, k)
            b_shape = (k,) if form == "a@v" else (n, k) if form.endswith("b.T") else (k, n)
            a, b = (rng.standard_normal(s).astype(dtype) for s in (a_shape, b_shape))
            product = {"a@b": lambda a, b: a @ b, "a@v": lambda a, b: a @ b,
                       "a.T@b": lambda a, b: a.T @ b, "a@b.T": lambda a, b: a @ b.T}[form]
            impls = {"jitcore": jc.jit(product, cache=False), "numpy": product}
            if jax is not None:
                jitted, ja, jb = jax.jit(product), jnp.asarray(a), jnp.asarray(b)
                impls["jax"] = lambda a, b, jitted=jitted, ja=ja, jb=jb: jitted(ja, jb).block_until_ready()
            want = product(a.astype(np.float64), b.astype(np.float64))
            for name, impl in impls.items():
                got = np.asarray(impl(a, b))
                assert np.abs(got - want).max() <= np.abs(want).max() * k * np.finfo(dtype).eps, name
            cpu = threads == 1
            times = {name: [] for name in impls}
            rounds = repeat if m * k * n >= 1 << 27 else 3 * repeat
            names = list(impls)
            for r in range(rounds):
                for name in names[r % len(names):] + names[:r % len(names)]:
                    clock = ((time.process_time if name == "jax" else time.thread_time) if cpu
                             else time.perf_counter)
                    time.sleep(settle)
                    impls[name](a, b)
                    start = clock()
                    impls[name](a, b)
                    times[name].append(clock() - start)
            ms = {name: float(np.median(t)) * 1e3 for name, t in times.items()}
            print(json.dumps({"case": case, "dtype": dtype, **ms}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default="", help="base,branch: two source trees")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", default=SQUARES, help="square a@b products")
    parser.add_argument("--cases", default=OTHERS, help="FORM:MxKxN,... (a@b, a.T@b, a@b.T, a@v)")
    parser.add_argument("--dtypes", default="float32,float64")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--settle", type=float, default=0.03)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = [f"a@b:{n}x{n}x{n}" for n in args.sizes.split(",") if n] + [c for c in args.cases.split(",") if c]
    dtypes = args.dtypes.split(",")
    if args.worker:
        worker(cases, dtypes, args.threads, args.settle, args.repeat)
        return
    trees = [os.path.abspath(t) for t in args.trees.split(",")]
    env = dict(os.environ, JITCORE_CACHE="0", JITCORE_NUM_THREADS=str(args.threads))
    if args.threads == 1:
        env.update(OPENBLAS_NUM_THREADS="1",
                   XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    load = os.getloadavg()[0]
    results = {}  # (tree, case, dtype) -> [each run's medians]
    for r in range(args.runs):  # a whole sweep per tree and run, the trees in turns
        for tree in (trees if r % 2 == 0 else trees[::-1]):
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--worker", "--threads", str(args.threads),
                 "--sizes", args.sizes, "--cases", args.cases, "--dtypes", args.dtypes,
                 "--settle", str(args.settle), "--repeat", str(args.repeat)],
                cwd=tree, env=dict(env, PYTHONPATH=tree), capture_output=True, text=True, check=True)
            for line in out.stdout.splitlines():
                if line.startswith("{"):
                    x = json.loads(line)
                    results.setdefault((tree, x["case"], x["dtype"]), []).append(x)
    print(f"threads {args.threads} ({'CPU time' if args.threads == 1 else 'wall clock'}), ms, medians"
          f" of {args.runs} runs per tree; load {load:.1f} to {os.getloadavg()[0]:.1f}")
    print(f"{'case':26} {'dtype':8} {'base':>8} {'branch':>8} {'numpy':>8} {'jax':>8}"
          f" {'base/br':>7} {'np/br':>6} {'jax/br':>6}")

    def median(values):
        values = sorted(values)
        return values[len(values) // 2]

    for dtype in dtypes:
        for case in cases:
            runs = [results[(t, case, dtype)] for t in trees]
            base, branch = (median([x["jitcore"] for x in r]) for r in runs)
            every = runs[0] + runs[1]
            np_ms = median([x["numpy"] for x in every])
            jax_ms = median([x.get("jax", float("nan")) for x in every])
            print(f"{case:26} {dtype:8} {base:8.3f} {branch:8.3f} {np_ms:8.3f} {jax_ms:8.3f}"
                  f" {base / branch:6.2f}x {np_ms / branch:5.2f}x {jax_ms / branch:5.2f}x", flush=True)

if __name__ == "__main__":
    main()
