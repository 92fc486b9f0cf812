"""The quicksort's compile cost and the sorts' speed (docs/performance.md, "Session 56: sort
compile cost"). Run from a worktree's root, as ``PYTHONPATH=. python tools/bench_sort_compile_56.py``:

    --modules      each quicksort module's thread CPU: building its IR, LLVM (O3 and machine
                   code), its instructions; one module per kind before sorts56, one per part since
    --first        a fresh process's first int64 np.partition and int32 np.sort of 5,000 keys
                   (JITCORE_CACHE=0: nothing from the disk cache), thread CPU of the call
    --speed SPEC   op:dtype:n ... (op: sort, partition, median): NumPy and jitcore in the same
                   process, one thread, ms of thread CPU, the least of 9 batches
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

FIRST = """
import time, numpy as np, jitcore as jc
x = np.random.default_rng(0).integers(0, 10**9, size=5000).astype(np.{dtype})
f = jc.jit(lambda a: np.{op}(a{extra}))
t = time.process_time(); f(x); print(round(time.process_time() - t, 3))
"""


def modules() -> None:
    from jitcore.codegen.cpu import sort_quick, target
    from jitcore.codegen.llvm_text import module_text

    target.compile_ir("define void @warm() { ret void }")
    parts = getattr(sort_quick, "PARTS", (None,))
    for kind, width in (("i", 32), ("i", 64), ("f", 32), ("f", 64)):
        for part in parts:
            start = time.thread_time()
            args = (width, 512 // width, kind) + ((part,) if part else ())
            text = module_text(sort_quick._QuickKernel(*args).module)
            built = time.thread_time()
            target.compile_ir(text)
            done = time.thread_time()
            lines = sum(1 for line in text.split("\n") if line.startswith("  "))
            print(
                f"{kind}{width} {part or 'whole':9s} IR {built - start:5.2f} s  LLVM {done - built:5.2f} s"
                f"  instructions {lines}",
                flush=True,
            )


def first() -> None:
    env = dict(os.environ, JITCORE_CACHE="0", PYTHONPATH=".")
    for op, dtype, extra in (("partition", "int64", ", 3"), ("sort", "int32", "")):
        code = FIRST.format(op=op, dtype=dtype, extra=extra)
        out = subprocess.run(
            [sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        print(f"first np.{op} {dtype} 5,000: {out} s", flush=True)


def speed(specs: list[str]) -> None:
    import numpy as np

    import jitcore as jc

    ops = {"sort": np.sort, "partition": lambda a: np.partition(a, a.shape[-1] // 2), "median": np.median}
    rng = np.random.default_rng(1)
    with jc.config.using(num_threads=1):
        for spec in specs:
            op, dtype, n = spec.split(":")
            n = int(float(n))
            x = (
                rng.integers(-(2**30), 2**30, size=n).astype(dtype)
                if dtype.startswith(("int", "uint"))
                else rng.standard_normal(n).astype(dtype)
            )
            fn = ops[op]
            fj = jc.jit(lambda a, fn=fn: fn(a))
            fj(x)
            reps = max(3, min(2000, int(3e5 // max(n, 1))))
            tj, tn = [], []
            for _ in range(9):
                for f, into in ((fj, tj), (fn, tn)):
                    t = time.thread_time()
                    for _ in range(reps):
                        f(x)
                    into.append((time.thread_time() - t) / reps)
            print(
                f"{spec:22s} jitcore {min(tj) * 1e3:8.4f} ms  NumPy {min(tn) * 1e3:8.4f} ms"
                f"  NumPy/jitcore {min(tn) / min(tj):5.2f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modules", action="store_true")
    parser.add_argument("--first", action="store_true")
    parser.add_argument("--speed", nargs="*")
    args = parser.parse_args()
    if args.modules:
        modules()
    if args.first:
        first()
    if args.speed:
        speed(args.speed)


if __name__ == "__main__":
    main()
