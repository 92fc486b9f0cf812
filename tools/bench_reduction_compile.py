"""LLVM CPU per compiled module of some reductions: thread CPU of the LLVM stages (parse, O3,
machine code) of each case's plan, and its LLVM IR size, each case in a fresh process (so no
in-memory cache answers), for docs/performance.md "Reductions in lanes".

    JITCORE_CACHE=0 PYTHONPATH=. python tools/bench_reduction_compile.py [--repeat 3] [CASE ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types

import numpy as np


def softmax(a):
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


CASES = {  # name: (function, argument)
    "(a * 2).sum() C": (lambda a: (a * 2).sum(), "C"),
    "a.sum() 2^20": (lambda a: a.sum(), "long"),
    "a.sum(axis=1) C": (lambda a: a.sum(axis=1), "C"),
    "a.sum(axis=1) C f64": (lambda a: a.sum(axis=1), "C64"),
    "softmax C": (lambda a: softmax(a), "C"),
    "rownorm C": (lambda a: np.sqrt((a * a).sum(axis=1)), "C"),
    "a.sum(axis=0) C": (lambda a: a.sum(axis=0), "C"),
    "(a * 2).sum() strided": (lambda a: (a * 2).sum(), "strided"),
    "a.sum(axis=0) strided": (lambda a: a.sum(axis=0), "strided"),
    "a.sum(axis=1) strided": (lambda a: a.sum(axis=1), "strided"),
    "a.sum() F": (lambda a: a.sum(), "F"),
    "a.sum(axis=0) F": (lambda a: a.sum(axis=0), "F"),
    "(a * 2).sum() reversed": (lambda a: (a * 2).sum(), "reversed"),
    "a.sum(axis=1) reversed": (lambda a: a.sum(axis=1), "reversed"),
}


def argument(kind: str) -> np.ndarray:
    c = np.zeros((300, 200), np.float32)
    return {"C": c, "C64": c.astype(np.float64), "long": np.zeros(1 << 20, np.float32),
            "strided": np.zeros((600, 400), np.float32)[::2, ::2], "F": np.asfortranarray(c),
            "reversed": c[::-1, ::-1]}[kind]


def one(name: str) -> None:
    """Compile ``name`` once in this process; print its IR bytes and LLVM CPU ms."""
    import jitcore
    from jitcore.codegen import stage_times

    stage_times.time = types.SimpleNamespace(perf_counter=time.thread_time)  # CPU, not wall
    fn, kind = CASES[name]
    lowered = jitcore.jit(fn).lower(argument(kind))
    with stage_times.recording() as seconds:
        lowered.plan()
    print(len(lowered.as_text("llvm")), sum(s for _, s in seconds) * 1e3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("cases", nargs="*")
    opts = parser.parse_args()
    if opts.one:
        one(opts.one)
        return
    for name in opts.cases or CASES:
        runs = [subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True,
                               check=True).stdout.split() for _ in range(opts.repeat)]
        ms = ", ".join(f"{float(r[1]):.0f}" for r in runs)
        print(f"{name:24s} {int(runs[0][0]) // 1000:5d} KB  LLVM ms: {ms}", flush=True)


if __name__ == "__main__":
    main()
