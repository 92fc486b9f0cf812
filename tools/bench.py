#!/usr/bin/env python3
"""Benchmark jitcore against NumPy and, where installed, numexpr, Numba and JAX.

    python tools/bench.py [--suite default|math|workloads|loops|programs|all] [--size N] [--repeat R]
                          [--only NAME[,NAME...]] [--json [FILE]]
    python tools/bench.py --dask [options of tools/bench_dask.py]

The default suite: every implementation of a case runs on the same arrays in this one process.
Each is called once to warm up (that call compiles), then timed R times; the table shows the
median and NumPy's median divided by it (above 1: faster than NumPy), and the largest difference
from NumPy's result relative to NumPy's largest magnitude. Two more sections: jitcore's first call of
g(x) = tanh(2x+1), split by stage, and the cost of a cached call on a tiny array next to a
NumPy ufunc call.

The math suite (``--suite math``; ``--suite all`` runs both): each transcendental jitcore
supports, as ``jc.jit(lambda x: np.<fn>(x))`` against ``np.<fn>(x)``, in float32 and float64, on
inputs inside the function's domain, plus tanh(2x+1) as its own row; warm medians, the speedup
(NumPy / jitcore), the largest distance from NumPy's result in ULPs, and a check against the
target of issue #4 (every function at least as fast as NumPy, tanh(2x+1) at least twice as
fast; both single-threaded, as NumPy's ufuncs and jitcore's kernels are).

The workloads suite (``--suite workloads``; tools/bench_workloads.py holds the workloads): the
workloads of issue #10, each a plain NumPy function run by NumPy, by jitcore unchanged under
``jc.jit`` and, where installed and where they can express it, by numexpr, Numba and JAX; float32
and float64; medians, each implementation's time over jitcore's, each workload's lower bound from
a measured copy bandwidth and jitcore's time as a multiple of it, a compute floor where the
workload runs costly ops (those ops jitted alone in cache) and jitcore's time as a multiple of
that, and the peak memory of two fused
chains (tracemalloc) against NumPy's. ``--size`` scales every workload (by SIZE / 10M). The
default suite does not include it (it takes 1-3 minutes on 2 cores); ``--suite all`` runs all three.
docs/performance.md shows one run and says how to reproduce it.

The programs suite (``--suite programs``; tools/bench_programs.py holds them): ten scientific
NumPy programs of issue #12 (a particle step, k-means, a heat solver, a filter, Monte-Carlo, ...),
each run unchanged by NumPy, by jitcore under ``jc.jit`` and, where installed and able, by Numba;
the medians, NumPy's and Numba's over jitcore's, and whether jitcore's two first results match
NumPy's. ``--size`` scales each program's size by SIZE / 10M.

``--json`` writes every table as JSON: with no FILE to stdout, in place of the text; with a FILE
there, and the text still to stdout. Each section has its key, its description, header, rows and
notes as printed, and, for the workloads, records with the numbers unformatted.

Speed is measured here and never asserted in tests (DESIGN.md §8).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

try:
    import bench_loops as bl  # tools/, which is on sys.path when this file runs as a script
    import bench_programs as bp
    import bench_workloads as bw
    from settle import settle

    import jitcore as jc
    import jitcore.numpy as jnp
    from jitcore.codegen.backend import backend_for
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


def _nb_complex(nb, dt):
    @nb.njit
    def c(z, w):
        out = np.empty(z.size, np.float32 if dt == np.complex64 else np.float64)
        for i in range(z.size):
            out[i] = abs(np.exp(z[i] * w[i] + z[i]))
        return out

    return c


def _complex_chain(z, w):
    return np.abs(np.exp(z * w + z))


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


F32, F64, C64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64)
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
    Case("complex", "abs(exp(z*w+z))", C64, False, 2, _complex_chain, _complex_chain,
         lambda ne, a: ne.evaluate("abs(exp(z * w + z))", local_dict={"z": a[0], "w": a[1]}),
         _nb_complex, lambda xnp: lambda z, w: xnp.abs(xnp.exp(z * w + z))),
    Case("sum", "x.sum()", F32, True, 1,
         lambda x: x.sum(), lambda x: x.sum(),
         lambda ne, a: ne.evaluate("sum(x)", local_dict={"x": a[0]}),
         _nb_sum, lambda xnp: lambda x: x.sum()),
    Case("mean0", "(x*x).mean(axis=0)", F32, True, 1,
         lambda x: (x * x).mean(axis=0), lambda x: (x * x).mean(axis=0),
         lambda ne, a: ne.evaluate("sum(x * x, axis=0)", local_dict={"x": a[0]}) / a[0].shape[0],
         _nb_mean0, lambda xnp: lambda x: (x * x).mean(axis=0)),
]


# ----------------------------------------------------------------------------- the math suite
@dataclass
class MathCase:
    """One row of the math suite: ``fn`` is NumPy's spelling, traced by jitcore as it is."""

    name: str
    fn: Callable
    domain: str  # the inputs, in words, for the table
    inputs: Callable  # (rng, n) -> list of float64 arrays inside the domain
    target: float = 1.0  # the speedup over NumPy that issue #4 asks for


def _uniform(lo: float, hi: float, *, open_lo: bool = False):
    """Uniform on [lo, hi), or on (lo, hi] with ``open_lo``."""
    if open_lo:
        return lambda rng, n: [hi - rng.uniform(0.0, hi - lo, n)]
    return lambda rng, n: [rng.uniform(lo, hi, n)]


def _uniform2(lo1: float, hi1: float, lo2: float, hi2: float):
    return lambda rng, n: [rng.uniform(lo1, hi1, n), rng.uniform(lo2, hi2, n)]


def _open(lo: float, hi: float):
    """Uniform on (lo, hi), both ends excluded."""
    def make(rng, n):
        x = rng.uniform(lo, hi, n)
        return [np.where(x == lo, (lo + hi) / 2, x)]
    return make


def _math_case(name: str, domain: str, inputs: Callable, target: float = 1.0) -> MathCase:
    return MathCase(name, getattr(np, name), domain, inputs, target)


def _tanh_2x1(x):
    return np.tanh(x * 2 + 1)


MATH_CASES = [
    _math_case("exp", "[-80, 80]", _uniform(-80, 80)),
    _math_case("exp2", "[-120, 120]", _uniform(-120, 120)),
    _math_case("expm1", "[-10, 10]", _uniform(-10, 10)),
    _math_case("log", "(0, 100]", _uniform(0, 100, open_lo=True)),
    _math_case("log2", "(0, 100]", _uniform(0, 100, open_lo=True)),
    _math_case("log10", "(0, 100]", _uniform(0, 100, open_lo=True)),
    _math_case("log1p", "(-1, 100]", _uniform(-1, 100, open_lo=True)),
    _math_case("sin", "[-100, 100]", _uniform(-100, 100)),
    _math_case("cos", "[-100, 100]", _uniform(-100, 100)),
    _math_case("tan", "[-100, 100]", _uniform(-100, 100)),
    _math_case("tanh", "[-10, 10]", _uniform(-10, 10)),
    _math_case("sinh", "[-20, 20]", _uniform(-20, 20)),
    _math_case("cosh", "[-20, 20]", _uniform(-20, 20)),
    _math_case("arcsin", "[-1, 1]", _uniform(-1, 1)),
    _math_case("arccos", "[-1, 1]", _uniform(-1, 1)),
    _math_case("arctan", "[-100, 100]", _uniform(-100, 100)),
    _math_case("arcsinh", "[-100, 100]", _uniform(-100, 100)),
    _math_case("arccosh", "[1, 10]", _uniform(1, 10)),
    _math_case("arctanh", "(-1, 1)", _open(-1, 1)),
    _math_case("cbrt", "[-100, 100]", _uniform(-100, 100)),
    _math_case("sqrt", "[0, 100]", _uniform(0, 100)),
    _math_case("power", "x in (0, 10], y in [-3, 3]",
               lambda rng, n: [10 - rng.uniform(0, 10, n), rng.uniform(-3, 3, n)]),
    _math_case("arctan2", "y, x in [-10, 10]", _uniform2(-10, 10, -10, 10)),
    _math_case("hypot", "x, y in [-100, 100]", _uniform2(-100, 100, -100, 100)),
    _math_case("logaddexp", "x, y in [-50, 50]", _uniform2(-50, 50, -50, 50)),
    MathCase("tanh(2x+1)", _tanh_2x1, "[-3, 3]", _uniform(-3, 3), target=2.0),
]


def ulp_distance(a, b) -> np.ndarray:
    """Elementwise distance in units in the last place between two float arrays of one dtype.

    Floats are mapped to integers in the order of their values (so the distance counts the floats
    between them; +0 and -0 are the same), and an infinity is one step beyond the largest finite
    float. Two NaNs are 0 apart, whatever their payloads; a NaN and a number are infinitely far
    apart (``inf`` in the float64 result).
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.dtype.kind != "f":
        raise TypeError(f"ulp_distance: two arrays of one float dtype, got {a.dtype} and {b.dtype}")
    a, b = np.broadcast_arrays(a, b)
    signed = np.dtype(f"i{a.dtype.itemsize}")
    mag = np.iinfo(signed).max

    def ordered(x):
        bits = x.view(signed).astype(np.int64)
        return np.where(bits < 0, -(bits & mag), bits)

    ia, ib = ordered(a), ordered(b)
    # |ia - ib| can pass int64's range (float64s of opposite signs); in uint64 it is exact.
    dist = (np.maximum(ia, ib).astype(np.uint64) - np.minimum(ia, ib).astype(np.uint64)).astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    dist[nan_a & nan_b] = 0.0
    dist[nan_a ^ nan_b] = np.inf
    return dist


def _max_ulp(result, reference) -> str:
    result, reference = np.asarray(result), np.asarray(reference)
    note = "" if result.dtype == reference.dtype else f" (dtype {result.dtype})"
    if result.shape != reference.shape:
        return f"shape {result.shape}"
    if result.size == 0:
        return "0" + note
    worst = float(ulp_distance(result.astype(reference.dtype, copy=False), reference).max())
    return ("inf" if worst == np.inf else f"{worst:.0f}") + note


@dataclass
class MathResult:
    numpy_ms: float | None = None
    jitcore_ms: float | None = None
    max_ulp: str = ""
    error: str | None = None  # why jitcore could not run it: the row says "unsupported" ...
    crashed: bool = False  # ... or, when it raised anything but jc.UnsupportedError, "error"

    @property
    def speedup(self) -> float | None:
        if self.error is not None or not self.jitcore_ms or self.numpy_ms is None:
            return None
        return self.numpy_ms / self.jitcore_ms


def bench_math_one(case: MathCase, dtype: np.dtype, size: int, repeat: int) -> MathResult:
    rng = np.random.default_rng(zlib.crc32(f"{case.name} {dtype.name}".encode()))
    arrays = [np.ascontiguousarray(a.astype(dtype)) for a in case.inputs(rng, size)]
    fn = case.fn
    reference = fn(*arrays)  # NumPy's warm-up call, and the reference result
    out = MathResult()
    try:
        jitted = jc.jit(lambda *xs: fn(*xs))
        result = jitted(*arrays)  # the first call compiles: not timed
    except jc.UnsupportedError as e:  # no lowering for this function (or dtype) yet
        out.error = f"{type(e).__name__}: {e}"
    except Exception as e:  # a failure, not a gap: the row says so rather than "unsupported"
        out.error = f"{type(e).__name__}: {e}"
        out.crashed = True
    else:
        out.max_ulp = _max_ulp(result, reference)
        del result
    numpy_times, jit_times = [], []
    for _ in range(repeat):  # alternate the two, so that a burst of load hits both alike
        start = time.perf_counter()
        fn(*arrays)
        numpy_times.append(time.perf_counter() - start)
        if out.error is None:
            start = time.perf_counter()
            jitted(*arrays)
            jit_times.append(time.perf_counter() - start)
    out.numpy_ms = statistics.median(numpy_times) * 1e3
    if jit_times:
        out.jitcore_ms = statistics.median(jit_times) * 1e3
    return out


_SHORT = {F32: "f32", F64: "f64"}


def _ms(v: float) -> str:
    return f"{v:.2f}" if v >= 1 else f"{v:.4f}"


def _target_cell(case: MathCase, results: list[MathResult]) -> str:
    if any(r.crashed for r in results):
        return "error"
    if any(r.error is not None for r in results):
        return "unsupported"
    missed = [_SHORT[dt] for dt, r in zip((F32, F64), results, strict=True) if r.speedup < case.target]
    mark = "✓" if not missed else "✗ " + ", ".join(missed)
    return mark + (f" (≥{case.target:g}x)" if case.target != 1.0 else "")


def bench_math(cases: list[MathCase], size: int, repeat: int) -> tuple[list[list[str]], list[str]]:
    """The table's rows, and one line per function jitcore did not compile."""
    rows, notes = [], []
    for case in cases:
        results = [bench_math_one(case, dt, size, repeat) for dt in (F32, F64)]
        row = [case.name, case.domain]
        for dt, r in zip((F32, F64), results, strict=True):
            if r.error is not None:
                row += [_ms(r.numpy_ms), "error" if r.crashed else "unsupported", "", ""]
                notes.append(("error" if r.crashed else "unsupported")
                             + f": {case.name} {dt.name}: {r.error.splitlines()[0][:160]}")
            else:
                row += [_ms(r.numpy_ms), _ms(r.jitcore_ms), f"{r.speedup:.2f}x", r.max_ulp]
        row.append(_target_cell(case, results))
        rows.append(row)
    return rows, notes


MATH_HEADER = ["function", "inputs",
               "f32 numpy ms", "f32 jitcore ms", "f32 speedup", "f32 max ulp",
               "f64 numpy ms", "f64 jitcore ms", "f64 speedup", "f64 max ulp", "target"]


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
    got = np.asarray(result, dtype=np.complex128)
    ref = np.asarray(reference, dtype=np.complex128)
    scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, np.finfo(np.float64).tiny)
    return float(np.max(np.abs(got - ref))) / scale if ref.size else 0.0


def bench_cases(cases: list[Case], size: int, repeat: int, peers: dict) -> list[list[str]]:
    rows = []
    rng = np.random.default_rng(0)
    for case in cases:
        shape = case.shape(size)
        arrays = [rng.standard_normal(shape).astype(case.dtype) for _ in range(case.n_args)]
        if case.dtype.kind == "c":
            arrays = [(a + 1j * rng.standard_normal(shape)).astype(case.dtype) / 2 for a in arrays]
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
                settle()  # the previous implementation's threads asleep (tools/settle.py)
                run()
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
    backend_for(plan.target).load(plan)
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
        ["  codegen: LLVM IR, O3, object code", ms(t3 - t2)],
        ["  load: MCJIT", ms(t4 - t3)],
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
    # Issue 13's case: two inputs, f(x, y) = tanh(x * 2 + y), each tool's array expression.
    y = x[::-1].copy()
    jitted2 = jc.jit(lambda x, y: jnp.tanh(x * 2 + y))
    candidates += [("jitcore f(x, y), cached", lambda: jitted2(x, y)),
                   ("numpy tanh(x*2+y)", lambda: np.tanh(x * 2 + y))]
    if peers["numba"] is not None:
        nb_f = peers["numba"].njit(lambda x, y: np.tanh(x * 2 + y))
        candidates.append(("numba f(x, y)", lambda: nb_f(x, y)))
    if peers["jax"] is not None:
        jax_f = peers["jax"].jit(lambda x, y: peers["jax"].numpy.tanh(x * 2 + y))
        yd = peers["jax"].device_put(y)
        candidates.append(("jax f(x, y) + block_until_ready", lambda: jax_f(xd, yd).block_until_ready()))
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


# The LLVM host features worth naming: the vector widths and the instructions kernels lean on.
_FEATURES = ("sse4.2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512fp16",
             "neon", "sve")


def host(peers: dict) -> dict:
    """The machine and the versions, for the header (and --json)."""
    import llvmlite
    import llvmlite.binding as llvm

    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "llvmlite": llvmlite.__version__}
    for name in PEERS:
        mod = peers[name]
        versions[name] = mod.__version__ if mod is not None else None
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        features = llvm.get_host_cpu_features()
        present = [f for f in _FEATURES if features.get(f)]
    except RuntimeError:  # LLVM cannot tell on this host
        present = []
    info = {"cpu": model, "llvm_cpu": llvm.get_host_cpu_name(), "llvm_features": present,
            "cpus": os.cpu_count(), "versions": versions,
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}
    if peers["numexpr"] is not None:
        info["numexpr_threads"] = peers["numexpr"].get_num_threads()
    return info


def machine(peers: dict, info: dict | None = None) -> str:
    info = info or host(peers)
    extra = f"; load average {info['load_average']:.2f}" if info["load_average"] is not None else ""
    if "numexpr_threads" in info:
        extra += f"; numexpr threads: {info['numexpr_threads']}"
    features = " ".join("+" + f for f in info["llvm_features"]) or "unknown"
    versions = [f"{name} {v}" if v is not None else f"{name} not installed"
                for name, v in info["versions"].items() if name != "python"]
    return (
        f"machine: {info['cpu']} (LLVM host CPU {info['llvm_cpu']}; features {features}), "
        f"{info['cpus']} CPUs{extra}\n"
        f"python {info['versions']['python']}; " + ", ".join(versions)
    )


class Report:
    """Where the output goes: printed as it comes, or gathered for --json (or both).

    ``say`` is a line of prose; ``table`` a table, with the prose said since the last table as
    its description and, for JSON, ``records`` holding the numbers unformatted.
    """

    def __init__(self, text: bool):
        self.text = text
        self.sections: list[dict] = []
        self._said: list[str] = []

    def say(self, line: str = "", *, describes: bool = True) -> None:
        """Print ``line``; unless ``describes`` is false, it also describes the next table."""
        if self.text:
            print(line)
        if line and describes:
            self._said.append(line)

    def table(self, key: str, header: list[str], rows: list[list[str]], notes: list[str] = (),
              records: list[dict] | None = None) -> None:
        if self.text:
            print(table(header, rows))
            for note in notes:
                print(note)
            print()
        section = {"key": key, "description": self._said, "header": header, "rows": rows,
                   "notes": list(notes)}
        if records is not None:
            section["records"] = records
        self.sections.append(section)
        self._said = []


# ----------------------------------------------------------------------------- the workloads suite
def _cell_ms(out: bw.Outcome) -> str:
    return _ms(out.ms) if out.status == "ok" else out.status


def _shape_text(m: bw.Measured) -> str:
    if m.work.steps:
        (_, hidden), _, (_, outputs), _, x, _ = m.shapes
        return f"x {x[0]}x{x[1]}, hidden {hidden}, out {outputs}"
    dims = lambda s: "x".join(map(str, s)) or "scalar"  # noqa: E731
    shapes = [s for k, s in enumerate(m.shapes) if s not in m.shapes[:k]]  # x and y alike: once
    text = ", ".join(map(dims, shapes))
    return text if m.out_shape in m.shapes else f"{text} -> {dims(m.out_shape)}"


def workload_rows(measured: list[bw.Measured],
                  bandwidth: float) -> tuple[list[list[str]], list[str], list[dict]]:
    """The table's rows, one note per implementation that did not run, and the JSON records."""
    rows, notes, records = [], {}, []
    for m in measured:
        outs, bound_ms = m.outcomes, m.min_bytes / bandwidth * 1e3
        jit = outs["jitcore"]
        floor_above = m.floor_ms is not None and m.floor_ms > bound_ms  # compute-bound, measured
        row = [m.work.title + (" *" if m.work.compute_bound or floor_above else ""), _SHORT[m.dtype],
               _shape_text(m), _ms(bound_ms), _cell_ms(jit), f"{jit.ms / bound_ms:.1f}" if jit.ms else "",
               _ms(m.floor_ms) if m.floor_ms else "",
               f"{jit.ms / m.floor_ms:.1f}" if jit.ms and m.floor_ms else ""]
        for impl in ("numpy", *PEERS):
            out = outs[impl]
            ratio = f"{out.ms / jit.ms:.2f}x" if jit.ms and out.ms else ""
            row += [_cell_ms(out), ratio]
        timed = {impl: out.ms for impl, out in outs.items() if out.ms}
        row.append(min(timed, key=timed.get) if timed else "")
        row.append(f"{jit.err:.1e}" if jit.err is not None else "")
        rows.append(row)
        for impl, out in outs.items():
            if out.reason:  # the same reason in f32 and f64: one note
                notes.setdefault((m.work.title, impl, out.status, out.reason), []).append(_SHORT[m.dtype])
        records.append({
            "workload": m.work.name, "title": m.work.title, "dtype": m.dtype.name,
            "shapes": [list(s) for s in m.shapes], "steps": m.work.steps,
            "compute_bound": m.work.compute_bound, "min_bytes": m.min_bytes, "bound_ms": bound_ms,
            "floor_ms": m.floor_ms, "floor_ops": m.floor_ops or None,
            "floor_above_bound": floor_above if m.floor_ms is not None else None,
            "impls": {impl: {"status": out.status, "ms": out.ms, "reason": out.reason or None, "err": out.err,
                             "settle_ms": out.settle_ms}
                      for impl, out in outs.items()},
        })
    lines = [f"{status}: {title} ({', '.join(dts)}), {impl}: {reason}"
             for (title, impl, status, reason), dts in notes.items() if status != "not installed"]
    return rows, lines, records


WORKLOAD_HEADER = ["workload", "dtype", "shape", "bound ms", "jitcore ms", "x bound", "floor ms", "x floor",
                   "numpy ms", "numpy/jc", "numexpr ms", "numexpr/jc", "numba ms", "numba/jc",
                   "jax ms", "jax/jc", "fastest", "jc err"]


PEAK_SLACK = 64 << 10  # bytes: the call's own Python objects (its argument tuple, the result's header)


def run_workloads(report: Report, works: list[bw.Workload], with_peak: bool, size: int, repeat: int,
                  peers: dict) -> None:
    scale = size / bw.DEFAULT_SIZE
    bandwidth_bytes = max(8 * size, 1 << 26)
    bandwidth = bw.copy_bandwidth(bandwidth_bytes, repeat)
    report.say(f"workloads (issue #10): --size {size} is {scale:g}x each workload's default element count; "
               f"median of {repeat} warm runs after one warm-up call (which compiles); float32 and float64 "
               "(the MLP: float32)")
    report.say("each implementation's runs in a block of their own: first the process's other threads left "
               "to go to sleep (a library's workers still spinning after its last call would share this "
               "implementation's cores; tools/settle.py), then one untimed call, then the timed ones")
    report.say(f"copy bandwidth {bandwidth / 1e9:.1f} GB/s: np.copyto of {bandwidth_bytes >> 20} MiB "
               f"float64 (a read and a write per byte), one thread, median of {max(repeat, 5)}")
    report.say("bound ms = the bytes a workload must move (its inputs read once, its outputs written once) / "
               "that bandwidth; x bound = jitcore ms / bound ms; * = compute-bound, the bandwidth bound "
               "is not reachable there (a matrix product, the MLP, or floor ms above bound ms)")
    report.say(f"floor ms = the workload's costliest ops (tanh, sin, exp, log, sqrt) jitted alone on "
               f"{bw.FLOOR_BYTES >> 10} KiB already in cache, one thread, their time per element (less a "
               "call's) times the elements the workload runs them on: its compute floor on one core; "
               "x floor = jitcore ms / floor ms")
    report.say("numpy/jc, numexpr/jc, ...: that implementation's median / jitcore's "
               "(above 1: jitcore is faster); jc err = max |jitcore - NumPy| / max |NumPy|")
    report.say("JAX: jax.jit of the same function (np bound to jax.numpy) on arrays already on its device; "
               "Numba: numba.njit of the same function; numexpr: the expression in its language; "
               "numexpr, JAX and jitcore may use every core (jitcore: JITCORE_NUM_THREADS), NumPy's ufuncs "
               "one (NumPy's @: its BLAS's threads)")
    for work in works:
        if work.note:
            report.say(f"{work.name}: {work.note}")
    measured = [bw.measure(work, np.dtype(dt), scale, repeat, peers) for work in works for dt in work.dtypes]
    rows, notes, records = workload_rows(measured, bandwidth)
    for record in records:
        record["bandwidth_bytes_per_s"] = bandwidth
    waits = [(out.settle_ms, impl, f"{m.work.title} {_SHORT[m.dtype]}") for m in measured
             for impl, out in m.outcomes.items() if out.settle_ms is not None]
    if waits:
        ms, impl, where = max(waits)
        notes.append(f"settle: the longest wait for the other threads to sleep was {ms:.1f} ms, before "
                     f"{impl}'s block in {where}; the median {statistics.median(w[0] for w in waits):.1f} ms")
    report.table("workloads", WORKLOAD_HEADER, rows, notes, records)
    if with_peak:
        mib = lambda b: f"{b / 2**20:.1f}" if b is not None else "error"  # noqa: E731
        report.say(f"peak memory of a fused chain, {size} elements: the inputs plus the most allocated "
                   "during one warm call (tracemalloc, which sees NumPy's allocations and so jitcore's "
                   "outputs and buffers); a fused chain's peak is its inputs plus its outputs, NumPy's "
                   "adds its temporaries; fused = jitcore's peak is inputs + outputs, give or take "
                   f"{PEAK_SLACK >> 10} KiB of Python objects")
        peak_rows, peak_records, peak_notes = [], [], []
        for dt in (F32, F64):
            for r in bw.peak_memory(size, dt):
                fused = r["inputs_bytes"] + r.get("outputs_bytes", 0)
                jit_peak = r.get("jitcore_peak_bytes")
                extra = jit_peak - fused if jit_peak is not None else None
                peak_rows.append([r["chain"], _SHORT[dt], mib(r["inputs_bytes"]), mib(r.get("outputs_bytes")),
                                  mib(r.get("numpy_peak_bytes")), mib(jit_peak),
                                  f"{extra / 1024:.1f}" if extra is not None else "",
                                  ("yes" if extra <= PEAK_SLACK else "no") if extra is not None else ""])
                peak_notes += [f"{r['chain']} {dt.name}, {impl}: {r[impl + '_error']}"
                               for impl in ("numpy", "jitcore") if impl + "_error" in r]
                peak_records.append(r)
        report.table("peak-memory", ["chain", "dtype", "inputs MiB", "outputs MiB", "numpy peak MiB",
                                     "jitcore peak MiB", "jitcore - (in + out) KiB", "fused"],
                     peak_rows, peak_notes, peak_records)


# ----------------------------------------------------------------------------- the loops suite
def run_loops_suite(report: Report, programs: list, with_compile_time: bool, scale: float, repeat: int,
                    peers: dict) -> None:
    report.say(f"loops (issue #11): plain Python loops over array elements, {scale:g}x each program's "
               f"size; median of {repeat} warm runs after one warm-up call (which compiles), on fresh "
               "copies of the arguments")
    report.say("jitcore: jc.jit of the program unchanged; numba: numba.njit of it unchanged; numpy: a "
               "vectorised version where one exists; python: the program itself on a smaller size, its "
               "time scaled up by the ratio of the work; x/jc: that median / jitcore's (above 1: jitcore "
               "is faster)")
    if programs:
        records = [bl.measure(p, repeat, peers, scale) for p in programs]
        notes = [f"{r['title']}, {impl}: {e['reason']}" for r in records
                 for impl, e in r["impls"].items() if e.get("reason")]
        notes += [f"{r['title']}, {impl}: result differs from jitcore's" for r in records
                  for impl, e in r["impls"].items() if e.get("matches") is False]
        report.table("loops", bl.LOOP_HEADER, bl.loop_rows(records), notes, records)
    if with_compile_time:
        report.say("first call of a jitted `for i in range(n): s += x[i % 8] * 0.5`, n a constant of the "
                   "function: compile time must not grow with n")
        report.table("compile-time", ["n", "first call ms", "second call ms"], bl.compile_time_rows())


# ----------------------------------------------------------------------------- the programs suite
def run_programs_suite(report: Report, programs: list, scale: float, repeat: int, peers: dict) -> None:
    report.say(f"programs (issue #12): ten scientific NumPy programs, {scale:g}x each program's size; "
               f"median of {repeat} warm runs after two checked calls (the first compiles)")
    report.say("jitcore: jc.jit of the program unchanged (shape-fixing arguments static); numpy: the same "
               "function uncompiled, which is also the oracle; numba: numba.njit of it unchanged; x/jc: "
               "that median / jitcore's (above 1: jitcore is faster); a result that differs from NumPy's "
               "is marked wrong and gets no ratio")
    records = [bp.measure(p, repeat, peers, scale) for p in programs]
    rows, notes = bp.program_rows(records)
    runs = sum(r[2] == "yes" for r in rows)
    notes.append(f"{runs} of {len(rows)} run under jit and match NumPy")
    report.table("programs", bp.PROGRAM_HEADER, rows, notes, records)


# ----------------------------------------------------------------------------- main
SUITES = ("default", "math", "workloads", "loops", "programs", "all")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--dask" in argv:  # the Dask cluster benchmark (issue 15): tools/bench_dask.py, its own options
        import bench_dask
        return bench_dask.main([a for a in argv if a != "--dask"])
    parser = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=SUITES, default="default",
                        help="default: the cases against the peers; math: each transcendental, f32 and f64, "
                             "against NumPy; workloads: the workloads of issue #10 against every peer, with "
                             "their bandwidth bounds and peak memory; loops: the loops of issue #11; "
                             "programs: the scientific programs of issue #12; all: every suite "
                             "(default: default)")
    parser.add_argument("--size", type=int, default=bw.DEFAULT_SIZE,
                        help="elements per array (default 10M); the workloads scale their sizes by "
                             "SIZE / 10M")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per measurement (default 10 for the default suite, 5 for math "
                             "and workloads)")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="write every table as JSON: to FILE, or, with no FILE, to stdout in place of "
                             "the text tables")
    default_names = [c.name for c in CASES] + list(SECTIONS)
    math_names = [c.name for c in MATH_CASES]
    workload_names = [w.name for w in bw.WORKLOADS] + ["peak-memory"]
    loop_names = [p.name for p in bl.PROGRAMS] + ["compile-time"]
    program_names = [p.name for p in bp.PROGRAMS]
    parser.add_argument("--only", help="comma-separated subset of: " + ", ".join(default_names)
                        + " (default suite); " + ", ".join(math_names) + " (math suite); "
                        + ", ".join(workload_names) + " (workloads suite); " + ", ".join(loop_names)
                        + " (loops suite); " + ", ".join(program_names) + " (programs suite)")
    parser.add_argument("--backend", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: the workloads on the GPU (tools/bench_cuda.py); default: cpu")
    opts = parser.parse_args(argv)
    if opts.backend == "cuda":
        import bench_cuda

        return bench_cuda.run(opts)
    run_default, run_math = opts.suite in ("default", "all"), opts.suite in ("math", "all")
    run_workloads_suite = opts.suite in ("workloads", "all")
    run_loops = opts.suite in ("loops", "all")
    run_programs = opts.suite in ("programs", "all")
    if opts.size < 1 or (opts.repeat is not None and opts.repeat < 1):
        parser.error("--size and --repeat must be at least 1")
    names = ((default_names if run_default else []) + (math_names if run_math else [])
             + (workload_names if run_workloads_suite else []) + (loop_names if run_loops else [])
             + (program_names if run_programs else []))
    only = set(names) if opts.only is None else {n.strip() for n in opts.only.split(",")}
    if only - set(names):
        unknown = ", ".join(sorted(only - set(names)))
        parser.error(f"unknown name(s) for --only with --suite {opts.suite}: {unknown}")

    report = Report(text=opts.json != "-")
    peers = {name: _import_peer(name) for name in PEERS}
    command = shlex.join(getattr(sys, "orig_argv", [sys.executable, *sys.argv]))
    info = host(peers)
    report.say("command: " + command, describes=False)  # in the JSON: its own fields
    report.say(machine(peers, info), describes=False)
    if run_default:
        repeat = opts.repeat or 10
        report.say(f"size {opts.size} elements, median of {repeat} warm runs")
        report.say()
        if "first-call" in only:  # first: it wants a process where jitcore compiled nothing yet
            report.say("jitcore first call of g(x) = tanh(2x+1), f32")
            report.table("first-call", ["stage", "ms"], bench_first_call(opts.size, repeat))
        cases = [c for c in CASES if c.name in only]
        if cases:
            report.say("speedup = NumPy median / median (above 1: faster than NumPy); "
                       "err = max |result - NumPy| / max |NumPy|")
            rows = bench_cases(cases, opts.size, repeat, peers)
            report.table("cases", ["case", "impl", "median ms", "speedup", "err"], rows)
        if "dispatch" in only:
            report.say("call overhead on an 8-element f32 array")
            report.table("dispatch", ["call", "µs per call"], bench_dispatch(repeat, peers))
    math_cases = [c for c in MATH_CASES if c.name in only] if run_math else []
    if math_cases:
        repeat = opts.repeat or 5
        report.say(f"math suite: jc.jit(lambda x: np.<fn>(x)) against np.<fn>(x), {opts.size} elements, "
                   f"median of {repeat} warm runs (the first call, which compiles, is not timed)")
        report.say("single-threaded, both: NumPy runs elementwise ufuncs on one thread (no BLAS, no OpenMP), "
                   "and jitcore's kernels are one loop on one thread")
        report.say("speedup = NumPy median / jitcore median; max ulp = largest distance from NumPy's "
                   "result in units in the last place (NaN == NaN); target (issue #4): speedup >= 1.0 in "
                   "both dtypes, >= 2.0 for tanh(2x+1)")
        rows, notes = bench_math(math_cases, opts.size, repeat)
        slower = [r[0] for r in rows if r[-1].startswith("✗")]
        unsupported = [r[0] for r in rows if r[-1] == "unsupported"]
        failed = [r[0] for r in rows if r[-1] == "error"]
        met = len(rows) - len(slower) - len(unsupported) - len(failed)
        notes.append(f"target met by {met} of {len(rows)}"
                     + (f"; missed by: {', '.join(slower)}" if slower else "")
                     + (f"; unsupported: {', '.join(unsupported)}" if unsupported else "")
                     + (f"; error: {', '.join(failed)}" if failed else ""))
        report.table("math", MATH_HEADER, rows, notes)
    works = [w for w in bw.WORKLOADS if w.name in only] if run_workloads_suite else []
    if works or (run_workloads_suite and "peak-memory" in only):
        run_workloads(report, works, "peak-memory" in only, opts.size, opts.repeat or 5, peers)
    programs = [p for p in bl.PROGRAMS if p.name in only] if run_loops else []
    if programs or (run_loops and "compile-time" in only):
        run_loops_suite(report, programs, "compile-time" in only, opts.size / bw.DEFAULT_SIZE,
                        opts.repeat or 3, peers)
    scientific = [p for p in bp.PROGRAMS if p.name in only] if run_programs else []
    if scientific:
        run_programs_suite(report, scientific, opts.size / bw.DEFAULT_SIZE, opts.repeat or 5, peers)
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    if load_end is not None:
        report.say(f"load average at the end: {load_end:.2f}", describes=False)
    if opts.json is not None:
        document = {"command": command, "host": info, "load_average_end": load_end, "size": opts.size,
                    "repeat": opts.repeat, "suite": opts.suite, "sections": report.sections}
        text = json.dumps(_finite(document), indent=1, default=_json_default, allow_nan=False)
        if opts.json == "-":
            print(text)
        else:
            with open(opts.json, "w") as f:
                f.write(text + "\n")
    return 0


def _finite(value):
    """JSON has no infinity or NaN: they become null (an err of inf: the shapes differ)."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `bench.py | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)
