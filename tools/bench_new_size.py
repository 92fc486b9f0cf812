#!/usr/bin/env python3
"""A new size's first call, broken into its stages: where the time of a size-generic
function's new size goes (issue: a new size should not cost a new trace).

    python tools/bench_new_size.py [--repeat R] [--no-disk]

For each case a fresh jitted function is called at a first size (a full compile), then at
``R`` new sizes of the same size class, one call each; the new sizes' calls are timed whole
and by stage, medians over the R sizes:

- trace: ``compiler.trace`` (the Python function run on tracers, the traced module);
- passes: ``compiler.optimize`` (the pass pipeline) and the verifier before it;
- plan: ``codegen/cpu/plan.plan_function`` (buffers, launches);
- emit: the rest of the backend's ``lower``: the LLVM IR emitted as text, and hashed;
- lookup: ``CpuBackend._code`` (the text compared with the code already loaded);
- other: the rest of the call (keys, disk cache, the executable, the run itself);
- resized: new sizes whose pass pipeline was skipped (``cache_info().resized``, dispatch49),
  where the measured code has it;
- unemitted: new sizes whose plan and LLVM text came from an earlier emission's guards
  (``emission_reuse.COUNTS``, emit50), where the measured code has it.

With the disk cache on (the default; a fresh temporary ``JITCORE_CACHE_DIR``) and off
(``jit(f, cache=False)``). Only jitcore's public API and module attributes are patched, so
running it with ``PYTHONPATH`` at another checkout measures that code.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict

os.environ.setdefault("JITCORE_CACHE_DIR", tempfile.mkdtemp(prefix="bench_new_size_"))

import numpy as np  # noqa: E402

import jitcore as jc  # noqa: E402
import jitcore.numpy as jnp  # noqa: E402
from jitcore import api, compiler  # noqa: E402
from jitcore.codegen.cpu import backend as cpu_backend  # noqa: E402


def chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * 0.5 + x * x


def total(x):
    return x.sum()


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def masked(x):
    return x[x > 0].sum()


def carried(x):
    y = x
    for _ in range(20):
        y = y * 0.5 + x
    return y


def bias(a, w, b):
    return a @ w + b


def rows(n):
    return n // 4


CASES = {  # name: (function, arguments at size n)
    "chain": (chain, lambda n, r: (r.standard_normal(n),)),
    "x.sum()": (total, lambda n, r: (r.standard_normal(n),)),
    "softmax rows": (softmax, lambda n, r: (r.standard_normal((rows(n), 16)),)),
    "x[x > 0].sum()": (masked, lambda n, r: (r.standard_normal(n),)),
    "for, carried": (carried, lambda n, r: (r.standard_normal(n),)),
    "a @ w + b": (bias, lambda n, r: (r.standard_normal((rows(n), 8)), r.standard_normal((8, 8)),
                                        r.standard_normal(8))),
}


class Stages:
    """Seconds per stage, added by the patched functions while ``on``."""

    def __init__(self):
        self.seconds = defaultdict(float)
        self.on = False
        self.inner = [0.0]  # nested stages' seconds, taken out of their caller's (exclusive times)

    def wrap(self, owner, name, stage):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            if not self.on:
                return original(*args, **kwargs)
            start = time.perf_counter()
            self.inner.append(0.0)
            try:
                return original(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                self.seconds[stage] += spent - self.inner.pop()
                self.inner[-1] += spent

        setattr(owner, name, timed)


def patch(stages: Stages) -> None:
    stages.wrap(compiler, "trace", "trace")
    stages.wrap(compiler, "optimize", "passes")
    stages.wrap(api.ir, "verify", "passes")
    stages.wrap(cpu_backend, "plan_function", "plan")
    stages.wrap(cpu_backend.CpuBackend, "lower", "lower")
    stages.wrap(cpu_backend.CpuBackend, "_code", "lookup")


def measure(name, repeat, disk, stages):
    fun, make = CASES[name]
    rng = np.random.default_rng(0)
    jitted = jc.jit(fun, cache=disk)
    jitted(*make(200, rng))  # the first size: a full compile
    rows_ = []
    unemitted = _unemitted()
    for n in range(201, 201 + 37 * repeat, 37):
        args = make(n, rng)
        stages.seconds.clear()
        stages.on = True
        start = time.perf_counter()
        jitted(*args)
        whole = time.perf_counter() - start
        stages.on = False
        s = dict(stages.seconds)
        s["emit"] = s.pop("lower", 0.0)  # the backend's lower less its plan and lookup
        s["other"] = whole - sum(s.values())
        s["whole"] = whole
        rows_.append(s)
    info = jitted.cache_info()
    info.unemitted = _unemitted() - unemitted
    medians = {k: statistics.median(r.get(k, 0.0) for r in rows_) * 1e3
               for k in ("trace", "passes", "plan", "emit", "lookup", "other", "whole")}
    return medians, info


def _unemitted():
    try:
        from jitcore import emission_reuse
    except ImportError:  # measuring code from before emit50
        return 0
    return emission_reuse.COUNTS["reused"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--no-disk", action="store_true", help="only cache=False")
    parser.add_argument("--case", action="append", help="only these cases (by name)")
    args = parser.parse_args()
    stages = Stages()
    patch(stages)
    names = args.case or list(CASES)
    print(f"new size, first call, ms (medians of {args.repeat} sizes)  [{sys.executable}]")
    print(f"{'case':16} {'cache':5} {'trace':>7} {'passes':>7} {'plan':>6} {'emit':>6} {'lookup':>7}"
          f" {'other':>6} {'whole':>7}  traces compiles resized unemitted")
    for disk in ((False,) if args.no_disk else (True, False)):
        for name in names:
            m, info = measure(name, args.repeat, disk, stages)
            print(f"{name:16} {'disk' if disk else 'off':5} {m['trace']:7.2f} {m['passes']:7.2f} "
                  f"{m['plan']:6.2f} {m['emit']:6.2f} {m['lookup']:7.2f} {m['other']:6.2f} "
                  f"{m['whole']:7.2f}  {info.traces:6} {info.compiles:8} "
                  f"{getattr(info, 'resized', '-'):>9} {info.unemitted:>9}")


if __name__ == "__main__":
    main()
