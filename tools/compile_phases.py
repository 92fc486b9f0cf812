#!/usr/bin/env python3
"""Where a first call's compile goes, phase by phase, for representative functions.

    python tools/compile_phases.py [--only NAME[,NAME...]] [--repeat R]

Each function (the README's demo, the tests' typical tiny shapes, a softmax, a reduction over
axis 0, a sort, an fft, a linalg solve, ...) is jitted anew R times in this process (median
shown) with the disk cache and the backend's code memo off, so every call compiles from
scratch. Thread CPU of each phase, each less the phases it called: tracing, our passes (of them
the verification after each pass), our LLVM IR emission, LLVM's parse, its optimisation
pipeline (O3 or the light pipeline), the math library's definitions inlined, machine code, and
loading; then the module's LLVM instructions before and after LLVM's passes, its size, and its
pipeline (``light``, ``O3``, or ``O3-no-unroll``). The first row also pays the process's
one-time costs (target machines, the math library's definitions); ``--repeat`` above 1 shows
the steady cost.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["JITCORE_CACHE"] = "0"

import llvmlite.binding as llvm  # noqa: E402
import numpy as np  # noqa: E402

import jitcore as jc  # noqa: E402
import jitcore.numpy as jnp  # noqa: E402
from jitcore import api, compiler  # noqa: E402
from jitcore.codegen.cpu import backend, target  # noqa: E402
from jitcore.compile_time import CompileTimeWarning  # noqa: E402
from jitcore.passes import manager  # noqa: E402

backend.MEMO_BYTES = 0

PHASES = ("trace", "passes", "verify", "emit", "llvm parse", "llvm passes", "math inline",
          "machine code", "load")
_spent: dict[str, float] = defaultdict(float)
_inside: list[float] = []
_modules: list[tuple[int, int, int, str]] = []


def _timed(phase, fn):
    def run(*args, **kwargs):
        start = time.thread_time()
        _inside.append(0.0)
        try:
            return fn(*args, **kwargs)
        finally:
            spent = time.thread_time() - start
            _spent[phase] += spent - _inside.pop()
            if _inside:
                _inside[-1] += spent
    return run


def _instrument() -> None:
    for owner, name, phase in [
            (api.JitFunction, "_trace", "trace"), (compiler, "optimize", "passes"),
            (backend.CpuBackend, "lower", "emit"), (llvm, "parse_assembly", "llvm parse"),
            (target, "optimize", "llvm passes"), (target, "_inline_math", "math inline"),
            (llvm.TargetMachine, "emit_object", "machine code"), (backend, "load_owned", "load"),
            (backend, "load_kept", "load")]:
        setattr(owner, name, _timed(phase, getattr(owner, name)))
    manager.PassManager._verify = staticmethod(_timed("verify", manager.PassManager._verify))
    compile_ir = target.compile_ir

    def counted(llvm_ir, *args, unroll=True, light=False, **kwargs):
        optimized, code = compile_ir(llvm_ir, *args, unroll=unroll, light=light, **kwargs)
        pipeline = "light" if light else "O3" if unroll else "O3-no-unroll"
        _modules.append((_instructions(llvm_ir), _instructions(str(optimized)), len(llvm_ir), pipeline))
        return optimized, code
    target.compile_ir = counted


def _instructions(text: str) -> int:
    """LLVM instructions in a module's text: the indented lines of function bodies."""
    return sum(1 for line in text.splitlines() if line.startswith("  ") and not line.startswith("   "))


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def cases():
    rng = np.random.default_rng(0)
    f32 = np.float32
    return [
        ("demo tanh(2x+1) f32[1M]", lambda x: jnp.tanh(x * 2 + 1), (np.linspace(-1, 1, 1 << 20, dtype=f32),)),
        ("tanh(2x+1) f32[8]", lambda x: jnp.tanh(x * 2 + 1), (rng.standard_normal(8).astype(f32),)),
        ("x*x+1 f64[3]", lambda x: x * x + 1.0, (rng.standard_normal(3),)),
        ("nansum f64[5]", jnp.nansum, (rng.standard_normal(5),)),
        ("exp f64[64]", jnp.exp, (rng.standard_normal(64),)),
        ("exp f64[67]", jnp.exp, (rng.standard_normal(67),)),
        ("log1p|x|+sin f32[7,9]", lambda x: jnp.log1p(jnp.abs(x)) + jnp.sin(x),
         (rng.standard_normal((7, 9)).astype(f32),)),
        ("argmax i32[64]", jnp.argmax, (rng.integers(0, 99, 64).astype(np.int32),)),
        ("cumsum f64[10]", jnp.cumsum, (rng.standard_normal(10),)),
        ("softmax f32[3,4]", softmax, (rng.standard_normal((3, 4)).astype(f32),)),
        ("softmax f32[512,1000]", softmax, (rng.standard_normal((512, 1000)).astype(f32),)),
        ("sum axis 0 f64[4,5]", lambda x: x.sum(axis=0), (rng.standard_normal((4, 5)),)),
        ("sum axis 0 f64[1000,300]", lambda x: x.sum(axis=0), (rng.standard_normal((1000, 300)),)),
        ("std axis 0 f64[4,16]", lambda x: x.std(axis=0), (rng.standard_normal((4, 16)),)),
        ("sort f64[7]", jnp.sort, (rng.standard_normal(7),)),
        ("sort f64[1000]", jnp.sort, (rng.standard_normal(1000),)),
        ("fft c128[64]", jnp.fft.fft, (rng.standard_normal(64) + 0j,)),
        ("solve f64[4,4]", jnp.linalg.solve, (rng.standard_normal((4, 4)), rng.standard_normal(4))),
        ("m @ m.T f64[6,6]", lambda m: m @ m.T, (rng.standard_normal((6, 6)),)),
        # session 54's forecasting user: a first call at 5e6 (the run is in the time too) and at 1000
        ("cumsum roll mean f64[5M]", roll_mean_cumsum, (rng.standard_normal(5_000_000), 50)),
        ("cumsum roll mean f64[1000]", roll_mean_cumsum, (rng.standard_normal(1000), 50)),
        ("ffill accumulate f64[5M]", ffill_vec, (_gappy(rng, 5_000_000),)),
        ("ffill accumulate f64[1000]", ffill_vec, (_gappy(rng, 1000),)),
    ]


def roll_mean_cumsum(x, w):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


def ffill_vec(x):
    mask = np.isnan(x)
    idx = np.where(~mask, np.arange(len(x)), 0)
    np.maximum.accumulate(idx, out=idx)
    return x[idx]


def _gappy(rng, n):
    x = rng.standard_normal(n)
    x[::7] = np.nan
    return x


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated substrings of the case names")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    _instrument()
    warnings.simplefilter("ignore", CompileTimeWarning)  # the host's load, not the compile
    only = [s for s in args.only.split(",") if s]
    totals: dict[str, float] = defaultdict(float)
    print(f"{'ms of CPU':26s} {'total':>7s} " + " ".join(f"{p:>8.8s}" for p in PHASES) + "   modules")
    for name, fn, call_args in cases():
        if only and not any(s in name for s in only):
            continue
        runs = []
        for _ in range(args.repeat):
            _spent.clear()
            _modules.clear()
            start = time.thread_time()
            jc.jit(fn)(*call_args)
            runs.append((time.thread_time() - start, dict(_spent), list(_modules)))
        total, spent, modules = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
        for phase in PHASES:
            totals[phase] += spent.get(phase, 0.0)
        totals["total"] += total
        shown = " ".join(f"{spent.get(p, 0.0) * 1e3:8.1f}" for p in PHASES)
        described = "; ".join(f"{a}->{b} instrs, {size // 1000} KB, {p}" for a, b, size, p in modules)
        print(f"{name:26s} {total * 1e3:7.1f} {shown}   {described}", flush=True)
    print(f"{'all':26s} {totals['total'] * 1e3:7.1f} " + " ".join(f"{totals[p] * 1e3:8.1f}" for p in PHASES))
    print(f"(the median of {args.repeat} fresh jits each, thread CPU; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
