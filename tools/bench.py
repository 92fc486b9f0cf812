#!/usr/bin/env python3
"""Benchmark jitcore against NumPy and, where installed, numexpr, Numba and JAX.

    python tools/bench.py [--size N] [--repeat R] [--only NAME[,NAME...]]

Every implementation of a case runs on the same arrays in this one process. Each is called once
to warm up (that call compiles), then timed R times; the table shows the median and NumPy's
median divided by it (above 1: faster than NumPy), and the largest difference from NumPy's
result relative to NumPy's largest magnitude. Two more sections: jitcore's first call of
g(x) = tanh(2x+1), split by stage, and the cost of a cached call on a tiny array next to a
NumPy ufunc call. Speed is measured here and never asserted in tests (DESIGN.md §8).
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

try:
    import jitcore as jc
    import jitcore.numpy as jnp
except ImportError as e:  # run from a checkout that is not installed
    sys.exit(f"bench.py: cannot import jitcore ({e}); install it with `pip install -e '.[bench]'`")

PEERS = ("numexpr", "numba", "jax")
IMPLS = ("numpy", "jitcore", *PEERS)
SECTIONS = ("first-call", "dispatch")


def _import_peer(name: str):
    """The module, or None when it is not installed (or does not import)."""
    try:
        if name == "jax":
            import jax

            jax.config.update("jax_enable_x64", True)  # the f64 cases stay f64
            return jax
        if name == "numba":
            import numba

            return numba
        import numexpr

        return numexpr
    except Exception:
        return None


# ----------------------------------------------------------------------------- the cases
@dataclass
class Case:
    """One computation written for every implementation; ``make`` builds each from its module."""

    name: str
    title: str
    dtype: np.dtype
    two_d: bool
    n_args: int
    numpy: Callable
    jitcore: Callable
    numexpr: Callable  # (numexpr, arrays) -> result
    numba: Callable  # (numba, dtype) -> function of the arrays
    jax: Callable  # (jax.numpy) -> function to jax.jit

    def shape(self, size: int) -> tuple[int, ...]:
        if not self.two_d:
            return (size,)
        cols = min(1000, size)
        return (max(1, size // cols), cols)


def _nb_tanh(nb, dt):
    two, one = dt.type(2), dt.type(1)

    @nb.njit
    def g(x):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = np.tanh(x[i] * two + one)
        return out

    return g


def _nb_sin(nb, dt):
    @nb.njit
    def f(x, y):
        out = np.empty_like(x)
        for i in range(x.size):
            out[i] = np.sin(x[i] + y[i])
        return out

    return f


def _nb_chain(nb, dt):
    one = dt.type(1)

    @nb.njit
    def h(a, b, c, d):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = a[i] * b[i] + c[i] * d[i] - one
        return out

    return h


def _nb_sum(nb, dt):
    zero = dt.type(0)

    @nb.njit
    def s(x):
        acc = zero
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                acc += x[i, j]
        return acc

    return s


def _nb_mean0(nb, dt):
    ft = dt.type

    @nb.njit
    def m(x):
        rows, cols = x.shape
        out = np.zeros(cols, x.dtype)
        for i in range(rows):
            for j in range(cols):
                out[j] += x[i, j] * x[i, j]
        inv = ft(1) / ft(rows)
        for j in range(cols):
            out[j] *= inv
        return out

    return m


def _chain(a, b, c, d):
    return a * b + c * d - 1


F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
CASES = [
    Case("tanh", "tanh(2x+1)", F32, False, 1,
         lambda x: np.tanh(x * 2 + 1), lambda x: jnp.tanh(x * 2 + 1),
         lambda ne, a: ne.evaluate("tanh(x * 2 + 1)", local_dict={"x": a[0]}),
         _nb_tanh, lambda xnp: lambda x: xnp.tanh(x * 2 + 1)),
    Case("sin", "sin(x+y)", F32, False, 2,
         lambda x, y: np.sin(x + y), lambda x, y: jnp.sin(x + y),
         lambda ne, a: ne.evaluate("sin(x + y)", local_dict={"x": a[0], "y": a[1]}),
         _nb_sin, lambda xnp: lambda x, y: xnp.sin(x + y)),
    Case("chain-f32", "a*b+c*d-1", F32, False, 4, _chain, _chain,
         lambda ne, a: ne.evaluate("a * b + c * d - 1", local_dict=dict(zip("abcd", a, strict=True))),
         _nb_chain, lambda xnp: _chain),
    Case("chain-f64", "a*b+c*d-1", F64, False, 4, _chain, _chain,
         lambda ne, a: ne.evaluate("a * b + c * d - 1", local_dict=dict(zip("abcd", a, strict=True))),
         _nb_chain, lambda xnp: _chain),
    Case("sum", "x.sum()", F32, True, 1,
         lambda x: x.sum(), lambda x: x.sum(),
         lambda ne, a: ne.evaluate("sum(x)", local_dict={"x": a[0]}),
         _nb_sum, lambda xnp: lambda x: x.sum()),
    Case("mean0", "(x*x).mean(axis=0)", F32, True, 1,
         lambda x: (x * x).mean(axis=0), lambda x: (x * x).mean(axis=0),
         lambda ne, a: ne.evaluate("sum(x * x, axis=0)", local_dict={"x": a[0]}) / a[0].shape[0],
         _nb_mean0, lambda xnp: lambda x: (x * x).mean(axis=0)),
]


# ----------------------------------------------------------------------------- measuring
def _median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _runner(impl: str, case: Case, arrays: list[np.ndarray], peers: dict) -> Callable[[], object]:
    """A no-argument callable running ``case`` with ``impl`` on ``arrays`` (already warmed up)."""
    if impl == "numpy":
        fn = case.numpy
        return lambda: fn(*arrays)
    if impl == "jitcore":
        fn = jc.jit(case.jitcore)
        return lambda: fn(*arrays)
    if impl == "numexpr":
        ne = peers["numexpr"]
        return lambda: case.numexpr(ne, arrays)
    if impl == "numba":
        fn = case.numba(peers["numba"], case.dtype)
        flat = arrays if case.two_d else [a.reshape(-1) for a in arrays]
        shape = arrays[0].shape
        return (lambda: fn(*flat)) if case.two_d else (lambda: fn(*flat).reshape(shape))
    jax = peers["jax"]
    fn = jax.jit(case.jax(jax.numpy))
    on_device = [jax.device_put(a) for a in arrays]
    return lambda: fn(*on_device).block_until_ready()


def _rel_err(result, reference) -> float:
    got = np.asarray(result, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, np.finfo(np.float64).tiny)
    return float(np.max(np.abs(got - ref))) / scale if ref.size else 0.0


def bench_cases(cases: list[Case], size: int, repeat: int, peers: dict) -> list[list[str]]:
    rows = []
    rng = np.random.default_rng(0)
    for case in cases:
        shape = case.shape(size)
        arrays = [rng.standard_normal(shape).astype(case.dtype) for _ in range(case.n_args)]
        label = f"{case.name}: {case.title} {case.dtype.name}[{'x'.join(map(str, shape))}]"
        reference, numpy_time = None, None
        first_row = len(rows)
        for impl in IMPLS:
            if impl in PEERS and peers[impl] is None:
                rows.append([label, impl, "not installed", "", ""])
                continue
            try:
                run = _runner(impl, case, arrays, peers)
                result = run()  # warm-up: compiles where there is something to compile
                seconds = _median_time(run, repeat)
            except Exception as e:
                rows.append([label, impl, f"error: {type(e).__name__}: {str(e)[:60]}", "", ""])
                continue
            if impl == "numpy":
                reference, numpy_time = result, seconds
            speedup = f"{numpy_time / seconds:.2f}x" if numpy_time else ""
            rows.append([label, impl, f"{seconds * 1e3:.3f}", speedup, f"{_rel_err(result, reference):.1e}"])
        for row in rows[first_row + 1:]:
            row[0] = ""  # the case's name once, on its first row
    return rows


def bench_first_call(size: int, repeat: int) -> list[list[str]]:
    """jitcore's first call of g, in a process where nothing was compiled yet, then by stage."""
    x = np.random.default_rng(1).standard_normal(size).astype(np.float32)

    def g(x):
        return jnp.tanh(x * 2 + 1)

    start = time.perf_counter()
    jc.jit(g)(x)
    cold = time.perf_counter() - start

    staged = jc.jit(g)
    t0 = time.perf_counter()
    lowered = staged.lower(x)
    t1 = time.perf_counter()
    lowered.optimized()
    t2 = time.perf_counter()
    plan = lowered.plan()
    t3 = time.perf_counter()
    plan.compile()
    t4 = time.perf_counter()

    fresh = jc.jit(g)
    start = time.perf_counter()
    fresh(x)
    warm_first = time.perf_counter() - start
    run = _median_time(lambda: fresh(x), max(repeat, 3))

    ms = lambda s: f"{s * 1e3:.2f}"  # noqa: E731
    return [
        ["first call, first compile in the process", ms(cold)],
        ["first call, LLVM already initialised", ms(warm_first)],
        ["  trace (signature + tracing)", ms(t1 - t0)],
        ["  passes", ms(t2 - t1)],
        ["  codegen: kernels to LLVM IR", ms(t3 - t2)],
        ["  LLVM: parse, O3, MCJIT", ms(t4 - t3)],
        ["  run (median of cached calls)", ms(run)],
    ]


def bench_dispatch(repeat: int, peers: dict) -> list[list[str]]:
    """Microseconds per call on an 8-element float32 array: the fixed cost of one call."""
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    jitted = jc.jit(lambda x: jnp.tanh(x * 2 + 1))
    candidates = [
        ("jitcore g(x), cached", lambda: jitted(x)),
        ("numpy np.tanh(x) (one ufunc)", lambda: np.tanh(x)),
        ("numpy tanh(x*2+1) (three ufuncs)", lambda: np.tanh(x * 2 + 1)),
    ]
    if peers["numba"] is not None:
        nb_g = _nb_tanh(peers["numba"], x.dtype)
        candidates.append(("numba g(x)", lambda: nb_g(x)))
    if peers["jax"] is not None:
        jax_g = peers["jax"].jit(lambda x: peers["jax"].numpy.tanh(x * 2 + 1))
        xd = peers["jax"].device_put(x)
        candidates.append(("jax g(x) + block_until_ready", lambda: jax_g(xd).block_until_ready()))
    calls, batches = 2000, max(repeat, 5)
    rows = []
    for label, fn in candidates:
        fn()

        def batch(fn=fn):
            for _ in range(calls):
                fn()

        rows.append([label, f"{_median_time(batch, batches) / calls * 1e6:.2f}"])
    return rows


# ----------------------------------------------------------------------------- output
def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table, columns padded so it also reads as plain text."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def machine(peers: dict) -> str:
    import llvmlite
    import llvmlite.binding as llvm

    versions = [f"numpy {np.__version__}", f"llvmlite {llvmlite.__version__}"]
    for name in PEERS:
        mod = peers[name]
        versions.append(f"{name} {mod.__version__}" if mod is not None else f"{name} not installed")
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    extra = f"; load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    if peers["numexpr"] is not None:
        extra += f"; numexpr threads: {peers['numexpr'].get_num_threads()}"
    return (
        f"machine: {model} (LLVM host CPU {llvm.get_host_cpu_name()}), {os.cpu_count()} CPUs{extra}\n"
        f"python {platform.python_version()}; " + ", ".join(versions)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000_000, help="elements per array (default 10M)")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per measurement (default 10)")
    names = [c.name for c in CASES] + list(SECTIONS)
    parser.add_argument("--only", help="comma-separated subset of: " + ", ".join(names))
    opts = parser.parse_args(argv)
    if opts.size < 1 or opts.repeat < 1:
        parser.error("--size and --repeat must be at least 1")
    only = set(names) if opts.only is None else {n.strip() for n in opts.only.split(",")}
    if only - set(names):
        parser.error(f"unknown name(s) for --only: {', '.join(sorted(only - set(names)))}")

    peers = {name: _import_peer(name) for name in PEERS}
    print("command: " + shlex.join(getattr(sys, "orig_argv", [sys.executable, *sys.argv])))
    print(machine(peers))
    print(f"size {opts.size} elements, median of {opts.repeat} warm runs\n")

    if "first-call" in only:  # first: it wants a process where jitcore compiled nothing yet
        print("jitcore first call of g(x) = tanh(2x+1), f32")
        print(table(["stage", "ms"], bench_first_call(opts.size, opts.repeat)) + "\n")
    cases = [c for c in CASES if c.name in only]
    if cases:
        print("speedup = NumPy median / median (above 1: faster than NumPy); "
              "err = max |result - NumPy| / max |NumPy|")
        rows = bench_cases(cases, opts.size, opts.repeat, peers)
        print(table(["case", "impl", "median ms", "speedup", "err"], rows) + "\n")
    if "dispatch" in only:
        print("call overhead on an 8-element f32 array")
        print(table(["call", "µs per call"], bench_dispatch(opts.repeat, peers)))
    return 0


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `bench.py | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)
