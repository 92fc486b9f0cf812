#!/usr/bin/env python3
"""Compile time against program size: straight-line programs of about N traced ops, by stage.

    python tools/bench_compile.py [--ops N[,N...]] [--only NAME[,NAME...]] [--repeat R]
                                  [--pipeline PIPELINE]

Each program is a Python loop over a static range, unrolled by tracing into a straight line:
``sumsq`` (``s = s + x[i] * x[i]``, a scalar sum of element reads), ``chain`` (an elementwise
chain on a vector, ``y = y * c + x[k:k+m]``, that fuses into one long kernel), ``stencil`` (a
1-D heat step ``u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])`` for static steps) and
``mixed`` (the program of tests/passes/test_compile_time.py). The step count is chosen so the
traced function has about N ops (the table shows how many it has). Each compile (trace, the
pass pipeline, code generation with LLVM) runs R times in this process; the table shows the
median, its time per op, and the three slowest stages of that compile, as jitcore's
slow-compile warning names them (``jitcore.compile_time``). Linear compile time shows as a
flat time per op down a program's rows.

``--pipeline`` compiles with another pass pipeline (say the default with ``fuse`` replaced),
to compare a pass's cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import jitcore as jc  # noqa: E402
from jitcore import compiler  # noqa: E402


def sumsq(steps):
    def f(x):
        s = x[0] * 0.0
        for i in range(steps):
            s = s + x[i] * x[i]
        return s
    return f, (np.linspace(0.0, 1.0, max(steps, 1)),)


def chain(steps):
    def f(x, y):
        for i in range(steps):
            y = y * 0.999 + x[i % 7: i % 7 + y.shape[0]]
        return y
    return f, (np.linspace(0.0, 1.0, 64), np.linspace(1.0, 2.0, 32))


def stencil(steps):
    def f(u):
        u = u * 1.0
        for _ in range(steps):
            u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
        return u
    return f, (np.linspace(0.0, 1.0, 100),)


def mixed(steps):
    def f(x, y):
        s = x[0] * 0.0
        for i in range(steps):
            if i % 2:
                s = s + x[i % x.shape[0]] * x[(3 * i) % x.shape[0]]
            else:
                y = y * 0.999 + x[i % 5: i % 5 + y.shape[0]]
        return s, y
    return f, (np.linspace(0.0, 1.0, 64), np.linspace(1.0, 2.0, 32))


PROGRAMS = {"sumsq": sumsq, "chain": chain, "stencil": stencil, "mixed": mixed}


def traced_ops(make, steps) -> int:
    f, args = make(steps)
    return sum(1 for _ in jc.jit(f).lower(*args).traced.walk())


def steps_for(make, ops: int) -> int:
    """The step count whose program traces to about ``ops`` ops (ops grow linearly with steps)."""
    per_step = (traced_ops(make, 40) - traced_ops(make, 20)) / 20
    base = traced_ops(make, 20) - 20 * per_step
    return max(1, round((ops - base) / per_step))


def compile_once(make, steps, pipeline):
    """One compile of the program, timed by stage (a ``jitcore.compile_time.CompileClock``)."""
    from jitcore.compile_time import CompileClock

    f, args = make(steps)
    clock = CompileClock()
    jitted = jc.jit(f, pipeline=pipeline)
    with clock.stage("tracing"):
        lowered = jitted.lower(*args)
    with clock.stage("optimizing"):
        lowered.optimized()
    with clock.stage("code generation"):
        lowered.plan()
    return clock


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="bench_compile.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default="1000,2000,5000", help="program sizes, in traced ops")
    parser.add_argument("--only", default=",".join(PROGRAMS), help="programs: " + ", ".join(PROGRAMS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pipeline", default=compiler.DEFAULT_PIPELINE)
    args = parser.parse_args(argv)
    compile_once(sumsq, 5, args.pipeline)  # warm up: imports, LLVM's target machine
    print(f"{'program':8} {'ops':>6} {'compile s':>10} {'us/op':>7}  slowest stages")
    for name in args.only.split(","):
        make = PROGRAMS[name]
        for ops in (int(n) for n in args.ops.split(",")):
            steps = steps_for(make, ops)
            n = traced_ops(make, steps)
            clocks = [compile_once(make, steps, args.pipeline) for _ in range(args.repeat)]
            clock = sorted(clocks, key=lambda c: c.total)[len(clocks) // 2]
            top = sorted(clock.stages.items(), key=lambda item: -item[1])[:3]
            stages = ", ".join(f"{stage} {seconds:.2f}" for stage, seconds in top)
            print(f"{name:8} {n:6d} {statistics.median(c.total for c in clocks):10.2f} "
                  f"{1e6 * clock.total / n:7.0f}  {stages}", flush=True)


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s in all)")
