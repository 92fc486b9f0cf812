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

    python tools/bench_compile.py --first-call [--repeat R]

times instead the first call of the seed's ``g = tanh(x * 2 + y)`` (float32[8]) in fresh
processes: *cold* (an empty disk cache: trace, passes, LLVM) and *disk-warm* (the cache holds
``g``: trace, then the plan loaded from disk). Each row is the median of R processes, in wall
and CPU time, with the stages of that first call (``FIRST_CALL``'s timers, each less the timers
it called) and the import; then the same for Numba and JAX where they are installed.

    python tools/bench_compile.py --first-call --compare CHECKOUT [--repeat R]

times the disk-warm first call of this checkout and of another one (``main``'s worktree, say)
in turn, process by process, so that both see the same load; medians of R processes each, and
the ratio.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import jitcore as jc  # noqa: E402
from jitcore import compiler  # noqa: E402
from jitcore.codegen.cpu import backend as cpu_backend  # noqa: E402

cpu_backend.MEMO_BYTES = 0  # every repeat compiles with LLVM, not from the backend's memo


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


# Run in a fresh process: times the import, then the first call of g, by stage. Each stage is
# a function of the compile path wrapped in a timer (wall and CPU seconds).
FIRST_CALL = """
import json, sys, time
start = time.perf_counter(), time.process_time()
import numpy as np
import jitcore as jc, jitcore.numpy as jnp
from jitcore import api, compiler, disk_cache
from jitcore.autograph import convert
from jitcore.codegen.cpu import blas, target
imported = time.perf_counter(), time.process_time()
stages, inside = {}, []  # inside: per running timer, the seconds of the timers it called

def timed(name, fn):
    def run(*args, **kwargs):
        t = time.perf_counter(), time.process_time()
        inside.append([0.0, 0.0])
        try:
            return fn(*args, **kwargs)
        finally:
            spent = time.perf_counter() - t[0], time.process_time() - t[1]
            inner = inside.pop()
            wall, cpu = stages.get(name, (0.0, 0.0))
            stages[name] = (wall + spent[0] - inner[0], cpu + spent[1] - inner[1])
            if inside:
                inside[-1][0] += spent[0]
                inside[-1][1] += spent[1]
    return run

# (module, attribute, stage): a name that this checkout lacks is skipped, so the program
# times another checkout too (--compare).
for owner, attr, name in [
        (compiler, "trace", "trace"), (convert, "_stored_or_converted", "autograph"),
        (disk_cache, "entry", "disk key"), (disk_cache, "source_version", "source version"),
        (target, "host_target_machine", "LLVM target setup"), (target, "_host_machine", "host CPU"),
        (target, "_described_host", "host memo"),
        (target, "_new_host_machine", "target machine"), (target, "_loading_machine", "loading machine"),
        (blas, "library", "BLAS probe"),
        (disk_cache.Entry, "load", "disk load"), (disk_cache.Entry, "store", "disk store"),
        (compiler, "optimize", "passes"), (compiler, "lower", "lower+LLVM"),
        (api, "Executable", "load code")]:
    if hasattr(owner, attr):
        setattr(owner, attr, timed(name, getattr(owner, attr)))

@jc.jit
def g(x, y):
    return jnp.tanh(x * 2 + y)

x = np.linspace(-1, 1, 8).astype(np.float32)
y = x[::-1].copy()
t = time.perf_counter(), time.process_time()
out = g(x, y)
first = time.perf_counter() - t[0], time.process_time() - t[1]
assert np.allclose(out, np.tanh(x * 2 + y), rtol=1e-6, atol=1e-6)
print(json.dumps({"import": [imported[0] - start[0], imported[1] - start[1]], "first": first,
                  "stages": stages, "from_disk": g.cache_info().from_disk}))
"""


# The same first call with Numba (its on-disk cache: ``cache=True``, NUMBA_CACHE_DIR) and JAX
# (its persistent compilation cache); JAX's CPU client is made before the timed call.
NUMBA_FIRST_CALL = """
import json, time
start = time.perf_counter(), time.process_time()
import numpy as np, numba
imported = time.perf_counter(), time.process_time()

@numba.njit(cache=True)
def g(x, y):
    return np.tanh(x * 2 + y)

x = np.linspace(-1, 1, 8).astype(np.float32)
y = x[::-1].copy()
t = time.perf_counter(), time.process_time()
out = g(x, y)
first = time.perf_counter() - t[0], time.process_time() - t[1]
assert np.allclose(out, np.tanh(x * 2 + y), rtol=1e-6, atol=1e-6)
print(json.dumps({"import": [imported[0] - start[0], imported[1] - start[1]], "first": first,
                  "stages": {}, "from_disk": bool(sum(g.stats.cache_hits.values()))}))
"""

JAX_FIRST_CALL = """
import json, os, time
start = time.perf_counter(), time.process_time()
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", os.path.dirname(os.path.abspath(__file__)))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
jax.devices()
imported = time.perf_counter(), time.process_time()
g = jax.jit(lambda x, y: jnp.tanh(x * 2 + y))
x = np.linspace(-1, 1, 8).astype(np.float32)
y = x[::-1].copy()
t = time.perf_counter(), time.process_time()
out = np.asarray(g(x, y))
first = time.perf_counter() - t[0], time.process_time() - t[1]
assert np.allclose(out, np.tanh(x * 2 + y), rtol=1e-6, atol=1e-6)
print(json.dumps({"import": [imported[0] - start[0], imported[1] - start[1]], "first": first,
                  "stages": {}, "from_disk": None}))
"""

FIRST_CALL_PROGRAMS = {"jitcore": FIRST_CALL, "numba": NUMBA_FIRST_CALL, "jax": JAX_FIRST_CALL}


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_call(folder: str, program: str = FIRST_CALL, checkout: str = HERE) -> dict:
    """One fresh process's first call of g with cache directory ``folder``, importing jitcore
    from ``checkout``. The program is a file, as a user's is: autograph reads g's source
    (``python -c`` code has none)."""
    env = dict(os.environ, JITCORE_CACHE_DIR=folder, NUMBA_CACHE_DIR=folder, PYTHONPATH=checkout)
    path = os.path.join(folder, "first_call.py")
    with open(path, "w") as f:
        f.write(program)
    done = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def first_calls(repeat: int) -> None:
    print("first call of g = tanh(x * 2 + y), float32[8], in a fresh process (ms; median of "
          f"{repeat} processes; import: CPU ms)")
    print(f"{'':18} {'wall':>7} {'cpu':>7} {'import':>7}  stages (cpu)")
    for tool, program in FIRST_CALL_PROGRAMS.items():
        if tool != "jitcore" and importlib.util.find_spec(tool) is None:
            print(f"{tool}: not installed (pip install -e '.[bench]')")
            continue
        for name in ("cold", "disk-warm"):
            runs = []
            for _ in range(repeat):
                with tempfile.TemporaryDirectory() as folder:
                    if name == "disk-warm":
                        first_call(folder, program)
                    runs.append(first_call(folder, program))
            assert all(r["from_disk"] in (None, name == "disk-warm") for r in runs), runs
            run = sorted(runs, key=lambda r: r["first"][1])[len(runs) // 2]
            stages = ", ".join(f"{stage} {1e3 * cpu:.1f}" for stage, (_, cpu) in run["stages"].items())
            print(f"{tool + ' ' + name:18} {1e3 * statistics.median(r['first'][0] for r in runs):7.1f} "
                  f"{1e3 * run['first'][1]:7.1f} {1e3 * run['import'][1]:7.0f}  {stages}", flush=True)


def compare_first_calls(other: str, repeat: int) -> None:
    """Disk-warm first calls of g from this checkout and from ``other``, process by process in
    turn (so both see the same load), with medians of wall and CPU time and of each stage."""
    checkouts = {"this": HERE, "other": os.path.abspath(other)}
    runs = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as this, tempfile.TemporaryDirectory() as that:
        folders = {"this": this, "other": that}
        for name, checkout in checkouts.items():
            first_call(folders[name], checkout=checkout)  # fills the cache
        for _ in range(repeat):
            for name, checkout in checkouts.items():
                runs[name].append(first_call(folders[name], checkout=checkout))
    print(f"disk-warm first call of g, float32[8]: this checkout ({HERE}) against {checkouts['other']}, "
          f"alternating, median of {repeat} processes each (ms)")
    median = {}
    for name, found in runs.items():
        assert all(r["from_disk"] for r in found), found
        median[name] = [statistics.median(r["first"][i] for r in found) for i in (0, 1)]
        stages = sorted({s for r in found for s in r["stages"]})
        cpu, wall = ({s: statistics.median(r["stages"].get(s, (0.0, 0.0))[i] for r in found) for s in stages}
                     for i in (1, 0))
        shown = ", ".join(f"{s} {1e3 * t:.2f}/{1e3 * wall[s]:.2f}"
                          for s, t in sorted(cpu.items(), key=lambda i: -i[1]))
        print(f"{name:6} wall {1e3 * median[name][0]:6.2f} cpu {1e3 * median[name][1]:6.2f}  "
              f"(p90 cpu {1e3 * sorted(r['first'][1] for r in found)[int(0.9 * (repeat - 1))]:.2f})  "
              f"stages (cpu/wall): {shown}")
    print(f"this / other: wall {median['this'][0] / median['other'][0]:.2f}, "
          f"cpu {median['this'][1] / median['other'][1]:.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="bench_compile.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default="1000,2000,5000", help="program sizes, in traced ops")
    parser.add_argument("--only", default=",".join(PROGRAMS), help="programs: " + ", ".join(PROGRAMS))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--pipeline", default=compiler.DEFAULT_PIPELINE)
    parser.add_argument("--first-call", action="store_true",
                        help="time g's first call in fresh processes, cold and from the disk cache")
    parser.add_argument("--compare", metavar="CHECKOUT",
                        help="with --first-call: disk-warm first calls of this checkout and CHECKOUT in turn")
    args = parser.parse_args(argv)
    if args.first_call and args.compare:
        compare_first_calls(args.compare, max(args.repeat, 1))
        return
    if args.first_call:
        first_calls(max(args.repeat, 1))
        return
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
