#!/usr/bin/env python3
"""First calls of tiny vectorised functions whose tables NumPy builds while tracing (session 55):
``np.arange``, ``np.linspace``, ``np.indices``, ``np.eye``, ``np.tri``, a reversed gather and
``np.cumsum(np.ones(n))``, at several sizes, each in a fresh process with the disk cache off.

    PYTHONPATH=. python tools/bench_first_calls55.py [--sizes 1e3 1e6 5e6] [--repeat 3] [OP...]

Per op and size, medians over ``--repeat`` processes: the first call's process CPU time, the
call at a new size's (n + 8: does it compile again?), and the steady call's wall time (the best
of 15) and NumPy's for the function. CPU time, since the wall clock of a shared host mostly
measures the other processes. Run it in a base tree and a branch tree alternately (the load of
the machine moves every number): ``--trees A B`` runs the processes of both trees in turn.
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

PROGRAMS = {
    "arange": "lambda x: x + np.arange(x.shape[0])",
    "linspace": "lambda x: x * np.linspace(0.0, 1.0, x.shape[0])",
    "indices": "lambda x: x.reshape(8, -1) + np.indices((8, x.shape[0] // 8))[1]",
    "eye": "lambda x: (np.eye(x.shape[0]) * x).sum(axis=1)",
    "tri": "lambda x: (np.tri(x.shape[0]) * x).sum(axis=1)",
    "reversed": "lambda x: x[np.arange(x.shape[0])[::-1]]",
    "cumsum_ones": "lambda x: x + np.cumsum(np.ones(x.shape[0]))",
    "insert": "lambda x: np.insert(x, 3, 7.0)",
}
SQUARE = ("eye", "tri")  # n is the table's element count: the side is its square root


def one_process(op: str, n: int) -> dict:
    """In this process: the first call, the call at n + 8, the steady call, NumPy's."""
    os.environ["JITCORE_CACHE"] = "0"
    import jitcore as jc

    fn = eval(PROGRAMS[op])  # noqa: S307  (the table above)
    side = int(round(n**0.5)) if op in SQUARE else n
    x = np.random.default_rng(0).random(side)
    jitted = jc.jit(fn)
    start = time.process_time()
    got = jitted(x)
    first = time.process_time() - start
    assert np.allclose(got, fn(x)), op
    y = np.random.default_rng(1).random(side + 8)
    start = time.process_time()
    jitted(y)
    new_size = time.process_time() - start
    steady, numpy = [], []
    for _ in range(15):
        start = time.perf_counter()
        jitted(x)
        steady.append(time.perf_counter() - start)
        start = time.perf_counter()
        fn(x)
        numpy.append(time.perf_counter() - start)
    info = jitted.cache_info()
    return {
        "first": first,
        "new_size": new_size,
        "steady": min(steady),
        "numpy": min(numpy),
        "compiles": info.compiles,
        "resized": info.resized,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e3, 1e6, 5e6])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trees", nargs="+", default=[os.getcwd()])
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_process(args.one[0], int(float(args.one[1])))))
        return
    me = os.path.abspath(__file__)
    print("op           n        tree      first CPU ms  new-n CPU ms  steady ms  numpy ms  compiles resized")
    for op in args.ops:
        for n in args.sizes:
            runs = {tree: [] for tree in args.trees}
            for _ in range(args.repeat):
                for tree in args.trees:  # alternately, so both trees see the same load
                    env = dict(os.environ, PYTHONPATH=tree)
                    out = subprocess.run(
                        [sys.executable, me, "--one", op, str(n)],
                        cwd=tree,
                        env=env,
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                    runs[tree].append(json.loads(out.strip().splitlines()[-1]))
            for tree, rs in runs.items():
                med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                print(
                    f"{op:12s} {int(n):<8d} {os.path.basename(tree)[-8:]:8s} {med['first'] * 1e3:13.1f} "
                    f"{med['new_size'] * 1e3:13.1f} {med['steady'] * 1e3:10.3f} {med['numpy'] * 1e3:9.3f} "
                    f"{rs[-1]['compiles']:8d} {rs[-1]['resized']:7d}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
