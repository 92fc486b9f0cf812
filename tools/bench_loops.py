"""The loops of issue #11 for tools/bench.py (``--suite loops``).

Each program is plain Python with loops over array elements, as a user writes it: jitcore runs
it unchanged under ``jc.jit`` (its loops become ``scf`` loops), Numba under ``numba.njit``, and
pure Python on a smaller size whose time is scaled up by the ratio of the work. NumPy runs a
vectorised version of the same computation where one exists (Gauss–Seidel's sweep depends on
its own writes, so NumPy has none). A second table times the first call of a jitted loop against
the loop's trip count: compiling must not grow with it.

Nothing here prints: the functions return rows and records, and bench.py renders them.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from bench_workloads import _first_line  # tools/ is on sys.path, as for bench.py
from settle import settle  # tools/, on sys.path as this module's own folder

import jitcore as jc


# ----------------------------------------------------------------------------- the programs
def mandelbrot(cr, ci, out, maxit):
    for i in range(ci.shape[0]):
        for j in range(cr.shape[0]):
            x = 0.0
            y = 0.0
            k = 0
            while x * x + y * y < 4.0 and k < maxit:
                x, y = x * x - y * y + cr[j], 2.0 * x * y + ci[i]
                k += 1
            out[i, j] = k
    return out


def mandelbrot_numpy(cr, ci, out, maxit):
    c = cr[None, :] + 1j * ci[:, None]
    z = np.zeros_like(c)
    out[...] = 0
    for _ in range(maxit):
        inside = (z.real * z.real + z.imag * z.imag) < 4.0
        out += inside
        z = np.where(inside, z * z + c, z)
    return out


def gauss_seidel(u, sweeps):
    n = u.shape[0]
    for _ in range(sweeps):
        for i in range(1, n - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1])
    return u


def histogram(x, h):
    for v in x:
        h[int(v)] += 1
    return h


def histogram_numpy(x, h):
    h += np.bincount(x.astype(np.int64), minlength=h.shape[0])
    return h


def floyd_warshall(d):
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]
    return d


def floyd_warshall_numpy(d):
    for k in range(d.shape[0]):
        np.minimum(d, d[:, k, None] + d[None, k, :], out=d)
    return d


@dataclass
class Program:
    name: str
    title: str
    fn: Callable
    numpy: Callable | None  # a vectorised NumPy version, or None
    make: Callable  # (rng, scale) -> arguments; scale 1 is the size
    work: Callable  # scale -> a count proportional to the work, to scale pure Python's time
    python_scale: float  # pure Python runs at this scale, its time scaled to scale 1


def _mandel_args(rng, scale):
    n = max(2, round(1000 * scale ** 0.5))
    return [np.linspace(-2.0, 0.6, n), np.linspace(-1.2, 1.2, n), np.zeros((n, n), np.int64), 100]


def _gs_args(rng, scale):
    u = rng.standard_normal(max(3, round(1_000_000 * scale)))
    return [u, 1]


def _hist_args(rng, scale):
    return [rng.uniform(0, 256, max(1, round(10_000_000 * scale))), np.zeros(256, np.int64)]


def _fw_args(rng, scale):
    n = max(2, round(500 * scale ** (1 / 3)))
    return [rng.uniform(1, 100, (n, n))]


PROGRAMS = [
    Program("mandelbrot", "Mandelbrot, 100 iterations", mandelbrot, mandelbrot_numpy, _mandel_args,
            lambda s: s, 1e-3),
    Program("gauss-seidel", "Gauss–Seidel sweep", gauss_seidel, None, _gs_args, lambda s: s, 1e-2),
    Program("histogram", "histogram, 256 bins", histogram, histogram_numpy, _hist_args, lambda s: s, 1e-3),
    Program("floyd-warshall", "Floyd–Warshall", floyd_warshall, floyd_warshall_numpy, _fw_args,
            lambda s: s, 1e-3),
]
IMPLS = ("jitcore", "numpy", "python", "numba")


def _size_text(args) -> str:
    return ", ".join("x".join(map(str, a.shape)) for a in args if isinstance(a, np.ndarray))


def _time(call: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def _fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def measure(program: Program, repeat: int, peers: dict, scale: float = 1.0) -> dict:
    """Each implementation on the same data, in a block of its own after ``settle()`` (no other
    library's threads still running): one warm-up call (which compiles), then the median of
    ``repeat`` calls, each on fresh copies of the arguments (the programs write them)."""
    rng = np.random.default_rng(11)
    args = program.make(rng, scale)
    record = {"program": program.name, "title": program.title, "size": _size_text(args), "impls": {}}
    reference = None
    for impl in IMPLS:
        run_scale, fn = scale, program.fn
        if impl == "jitcore":
            fn = jc.jit(program.fn)
        elif impl == "numpy":
            fn = program.numpy
        elif impl == "numba":
            fn = peers["numba"].njit(program.fn) if peers.get("numba") is not None else None
        elif impl == "python":
            run_scale = scale * program.python_scale
        if fn is None:
            record["impls"][impl] = {"status": "n/a" if impl == "numpy" else "not installed"}
            continue
        run_args = program.make(np.random.default_rng(11), run_scale)
        try:
            settle()  # the previous implementation's threads asleep (tools/settle.py)
            start = time.perf_counter()
            first = fn(*_fresh(run_args))
            first_s = time.perf_counter() - start
            seconds, _ = _time(lambda fn=fn, a=run_args: fn(*_fresh(a)), 1 if impl == "python" else repeat)
        except Exception as e:
            record["impls"][impl] = {"status": "error", "reason": _first_line(e)}
            continue
        ratio = program.work(scale) / program.work(run_scale)
        entry = {"status": "ok", "ms": seconds * ratio * 1e3, "first_call_ms": first_s * 1e3}
        if impl == "python":
            entry["measured_at_scale"] = run_scale
        if run_scale == scale:
            if reference is None:
                reference = np.asarray(first)
            else:
                entry["matches"] = bool(np.allclose(np.asarray(first), reference, rtol=1e-9, atol=0))
        record["impls"][impl] = entry
    return record


def loop_rows(records: list[dict]) -> list[list[str]]:
    rows = []
    for r in records:
        jit = r["impls"]["jitcore"]
        row = [r["title"], r["size"]]
        for impl in IMPLS:
            e = r["impls"][impl]
            ms = e.get("ms")
            cell = f"{ms:.1f}" if ms is not None else e["status"]
            if impl == "python" and ms is not None:
                cell += " (scaled)"
            ratio = f"{ms / jit['ms']:.2f}x" if ms is not None and jit.get("ms") and impl != "jitcore" else ""
            row += [cell] if impl == "jitcore" else [cell, ratio]
        row.append(f"{jit['first_call_ms']:.0f}" if "first_call_ms" in jit else "")
        rows.append(row)
    return rows


LOOP_HEADER = ["program", "size", "jitcore ms", "numpy ms", "numpy/jc", "python ms", "python/jc",
               "numba ms", "numba/jc", "jc first call ms"]


def _summed(n: int) -> Callable:
    def summed(x):  # n is a constant of the function (a closure), not an argument
        s = 0.0
        for i in range(n):
            s += x[i % 8] * 0.5
        return s

    return summed


def compile_time_rows(lengths=(10, 1_000, 100_000, 1_000_000)) -> list[list[str]]:
    """The first call (trace, optimise, compile, run) of a loop whose trip count is a Python int
    baked into the function, against that count, and the time of a second call."""
    rows = []
    x = np.arange(8, dtype=np.float64)
    for n in lengths:
        fn = jc.jit(_summed(n))
        try:
            start = time.perf_counter()
            fn(x)
            first = time.perf_counter() - start
            second, _ = _time(lambda fn=fn: fn(x), 3)
            rows.append([str(n), f"{first * 1e3:.0f}", f"{second * 1e3:.3f}"])
        except Exception as e:
            rows.append([str(n), "error", _first_line(e)])
    return rows
