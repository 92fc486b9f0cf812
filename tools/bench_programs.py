"""Ten scientific NumPy programs (issue #12, item 7) for tools/bench.py (``--suite programs``).

Each program is a plain NumPy function, written as a new user writes one: ``np.`` only, no
jitcore API inside. jitcore runs it unchanged under ``jc.jit`` (the arguments that fix a shape,
such as a window length or a sample count, named static); NumPy runs the same function
uncompiled, which is also the oracle; Numba, when installed, runs it unchanged under
``numba.njit``, and where Numba cannot compile a program its row says ``n/a`` with Numba's own
reason (these are whole-array programs, and Numba supports only part of NumPy's signatures:
Numba 0.68 has no ``axis=`` in ``min``, ``median`` or ``linalg.norm``, no ``density=`` in
``histogram``, no ``np.pad``).

tests/programs/test_scientific.py runs the same functions at small sizes against NumPy. Nothing
here prints: the functions return rows and records, and bench.py renders them.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from settle import settle  # tools/, on sys.path as this module's own folder

import jitcore as jc


# ----------------------------------------------------------------------------- the programs
def particles_step(pos, vel, box, dt):
    """One velocity-Verlet step of particles with a soft Gaussian repulsion in a periodic box."""
    def forces(p):
        d = p[:, None, :] - p[None, :, :]
        d -= box * np.round(d / box)  # minimum image
        r2 = (d * d).sum(axis=-1)
        strength = np.exp(-r2) * (1.0 - np.eye(len(p)))  # no force of a particle on itself
        return (strength[:, :, None] * d).sum(axis=1)

    vel_half = vel + 0.5 * dt * forces(pos)
    new_pos = (pos + dt * vel_half) % box
    new_vel = vel_half + 0.5 * dt * forces(new_pos)
    return new_pos, new_vel


def kmeans_step(points, centroids):
    """One Lloyd iteration: each point to its nearest centroid, each centroid to its points' mean
    (a centroid with no points stays where it was)."""
    d2 = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=-1)
    labels = d2.argmin(axis=1)
    members = labels[:, None] == np.arange(centroids.shape[0])[None, :]
    counts = members.sum(axis=0)
    sums = members.T.astype(points.dtype) @ points
    new_centroids = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centroids)
    inertia = d2.min(axis=1).sum()
    return new_centroids, labels, inertia


def heat_2d(u, alpha, steps):
    """``steps`` explicit finite-difference steps of the heat equation; the edges stay fixed."""
    u = u.copy()
    for _ in range(steps):
        laplacian = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] += alpha * laplacian
    return u


def filter_3x3(image, weights):
    """A 3x3 correlation of ``image`` with ``weights``, zero padding at the border."""
    h, w = image.shape
    padded = np.pad(image, 1)
    out = np.zeros_like(image)
    for i in range(3):
        for j in range(3):
            out += weights[i, j] * padded[i:i + h, j:j + w]
    return out


def monte_carlo_pi(n):
    """pi from ``n`` uniform points in the unit square (the draws advance NumPy's global state)."""
    x = np.random.rand(n)
    y = np.random.rand(n)
    return 4.0 * np.mean(x * x + y * y <= 1.0)


def interp_linear(xp, fp, x):
    """Piecewise-linear interpolation of the knots ``(xp, fp)`` at ``x``, held constant outside."""
    i = np.clip(np.searchsorted(xp, x), 1, len(xp) - 1)
    x0, x1 = xp[i - 1], xp[i]
    t = np.clip((x - x0) / (x1 - x0), 0.0, 1.0)
    return fp[i - 1] + t * (fp[i] - fp[i - 1])


def moving_median(x, window):
    """The median of each run of ``window`` consecutive values of ``x``."""
    windows = np.lib.stride_tricks.sliding_window_view(x, window)
    return np.median(windows, axis=-1)


def normalized_histogram(x):
    """A probability density of ``x`` over 64 bins of [-4, 4), and the bin edges."""
    density, edges = np.histogram(x, bins=64, range=(-4.0, 4.0), density=True)
    return density, edges


def mesh_normals(vertices, faces):
    """Unit face normals, the total surface area, and area-weighted unit vertex normals of a
    triangle mesh."""
    a, b, c = vertices[faces[:, 0]], vertices[faces[:, 1]], vertices[faces[:, 2]]
    n = np.cross(b - a, c - a)
    twice_area = np.linalg.norm(n, axis=1)
    vertex_normals = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(vertex_normals, faces[:, k], n)
    vertex_normals /= np.linalg.norm(vertex_normals, axis=1, keepdims=True)
    return n / twice_area[:, None], 0.5 * twice_area.sum(), vertex_normals


def polyfit_lstsq(x, y, degree):
    """The least-squares polynomial of ``degree`` through ``(x, y)`` by the normal equations,
    its coefficients from the constant term up, and the residual sum of squares."""
    design = x[:, None] ** np.arange(degree + 1)
    coef = np.linalg.solve(design.T @ design, design.T @ y)
    residual = y - design @ coef
    return coef, residual @ residual


# ----------------------------------------------------------------------------- the benchmark
@dataclass
class Program:
    name: str
    title: str
    fn: Callable
    static: tuple[str, ...]  # the arguments that fix a shape: static under jc.jit
    make: Callable  # (rng, scale) -> arguments; scale 1 is the benchmark's size
    random: bool = False  # draws from np.random: each side runs after the same seed


def _particles_args(rng, scale):
    n = max(2, round(500 * scale ** 0.5))
    box = 10.0
    return [rng.uniform(0, box, (n, 3)), rng.standard_normal((n, 3)), box, 0.01]


def _kmeans_args(rng, scale):
    points = rng.standard_normal((max(8, round(200_000 * scale)), 3))
    return [points, points[:8].copy()]


def _heat_args(rng, scale):
    n = max(3, round(256 * scale ** 0.5))
    return [rng.standard_normal((n, n)), 0.2, 100]


def _filter_args(rng, scale):
    n = max(1, round(1024 * scale ** 0.5))
    return [rng.standard_normal((n, n)), np.array([[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16]


def _interp_args(rng, scale):
    knots = np.sort(rng.uniform(0.0, 100.0, 1000))
    return [knots, np.sin(knots), rng.uniform(-5.0, 105.0, max(1, round(1_000_000 * scale)))]


def _hist_args(rng, scale):
    return [rng.standard_normal(max(1, round(2_000_000 * scale)))]


def _mesh_args(rng, scale):
    side = max(2, round(300 * scale ** 0.5))  # a grid of side x side vertices, two triangles a cell
    u, v = np.meshgrid(np.linspace(0, 1, side), np.linspace(0, 1, side), indexing="ij")
    vertices = np.stack([u.ravel(), v.ravel(), 0.1 * np.sin(6 * u.ravel()) * np.cos(5 * v.ravel())], axis=1)
    corner = (np.arange(side - 1)[:, None] * side + np.arange(side - 1)[None, :]).ravel()
    faces = np.concatenate([np.stack([corner, corner + side, corner + 1], axis=1),
                            np.stack([corner + 1, corner + side, corner + side + 1], axis=1)])
    return [vertices, faces]


def _lstsq_args(rng, scale):
    x = rng.uniform(-1, 1, max(4, round(1_000_000 * scale)))
    return [x, 1 - 2 * x + 0.5 * x ** 3 + 0.01 * rng.standard_normal(x.shape), 3]


PROGRAMS = [
    Program("particles", "particles: soft forces, velocity Verlet, periodic box", particles_step, (),
            _particles_args),
    Program("kmeans", "k-means iteration, k=8, 3-D", kmeans_step, (), _kmeans_args),
    Program("heat", "heat equation, 100 explicit steps", heat_2d, (), _heat_args),
    Program("filter", "3x3 filter, np.pad (zeros)", filter_3x3, (), _filter_args),
    Program("monte-carlo", "Monte-Carlo pi, np.random.rand", monte_carlo_pi, ("n",),
            lambda rng, scale: [max(1, round(1_000_000 * scale))], random=True),
    Program("interp", "linear interpolation, searchsorted, 1000 knots", interp_linear, (), _interp_args),
    Program("moving-median", "moving median, window 7", moving_median, ("window",),
            lambda rng, scale: [rng.standard_normal(max(7, round(200_000 * scale))), 7]),
    Program("histogram", "normalised histogram, 64 bins", normalized_histogram, (), _hist_args),
    Program("mesh", "triangle normals and areas, np.cross, np.add.at", mesh_normals, (), _mesh_args),
    Program("lstsq", "cubic least squares, np.linalg.solve", polyfit_lstsq, ("degree",), _lstsq_args),
]
IMPLS = ("jitcore", "numpy", "numba")
SEED = 12


def jitted(program: Program):
    """The program under ``jc.jit``, as a user would wrap it."""
    return jc.jit(program.fn, static_argnames=program.static) if program.static else jc.jit(program.fn)


def _leaves(result) -> list[np.ndarray]:
    return [np.asarray(r) for r in (result if isinstance(result, tuple) else (result,))]


def same_result(result, reference) -> bool:
    """Shapes and dtypes equal, values within a relative 1e-9 of the largest reference value
    (these programs sum, contract and solve in another order than NumPy)."""
    got, want = _leaves(result), _leaves(reference)
    if len(got) != len(want):
        return False
    for g, w in zip(got, want, strict=True):
        if g.shape != w.shape or g.dtype != w.dtype:
            return False
        scale = float(np.nanmax(np.abs(w))) if w.size and not np.all(np.isnan(w)) else 0.0
        if not np.allclose(g, w, rtol=1e-9, atol=1e-9 * scale, equal_nan=True):
            return False
    return True


def _two_calls(fn: Callable, args, random: bool):
    """Two calls in a row (after seeding NumPy's global state, for a random program): a second
    call that repeats the first's draws is a wrong answer."""
    if random:
        np.random.seed(SEED)
    first = fn(*args)
    return first, fn(*args)


def _size_text(args) -> str:
    return ", ".join("x".join(map(str, a.shape)) if isinstance(a, np.ndarray) else repr(a) for a in args)


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:200]


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_WHY = ("TypingError:", "Use of unsupported", "Unknown attribute", "NotImplementedError:")


def _reason(e: BaseException) -> str:
    """The first line of an error; for Numba's long typing errors, the call it could not type and
    the reason it gives (its first line only names the compiler stage)."""
    lines = [line.strip() for line in _ANSI.sub("", str(e)).splitlines() if line.strip()]
    call = next((line[4:] for line in lines if line.startswith(">>> ")), None)
    why = next((line for line in lines[1:] if line.startswith(_WHY)), None)
    if call is None and why is None:
        return _first_line(e)
    why = why.removeprefix(f"{type(e).__name__}: ") if why else None
    return f"{type(e).__name__}: " + ": ".join(part for part in (call, why) if part)[:240]


def measure(program: Program, repeat: int, peers: dict, scale: float = 1.0) -> dict:
    """NumPy, jitcore and Numba on the same arguments: two calls each that are checked against
    NumPy's two (the first compiles), then each implementation's ``repeat`` timed calls in a block
    of their own, after ``settle()`` (no other library's threads still spinning: tools/settle.py)
    and one untimed call; the medians."""
    args = program.make(np.random.default_rng(SEED), scale)
    record = {"program": program.name, "title": program.title, "size": _size_text(args), "impls": {}}
    runners = {"numpy": program.fn, "jitcore": jitted(program)}
    if peers.get("numba") is not None:
        runners["numba"] = peers["numba"].njit(program.fn)
    else:
        record["impls"]["numba"] = {"status": "not installed"}
    reference = None
    for impl, fn in list(runners.items()):
        try:
            start = time.perf_counter()
            first, second = _two_calls(fn, args, program.random)
            first_s = time.perf_counter() - start
        except Exception as e:
            record["impls"][impl] = {"status": "error" if impl == "jitcore" else "n/a",
                                     "reason": _reason(e)}
            del runners[impl]
            continue
        entry = {"status": "ok", "first_calls_ms": first_s * 1e3}
        if impl == "numpy":
            reference = (first, second)
        else:
            entry["matches"] = same_result(first, reference[0]) and same_result(second, reference[1])
            if not entry["matches"]:
                entry["reason"] = "result differs from NumPy's"
                if program.random:
                    entry["reason"] += " after the same seed" + (
                        " (Numba's np.random keeps a state of its own, which np.random.seed called "
                        "outside compiled code does not seed)" if impl == "numba" else "")
        record["impls"][impl] = entry
    times = {impl: [] for impl in runners}
    for impl, fn in runners.items():  # a block each, after the others' threads went to sleep
        settle()
        fn(*args)  # untimed: its own data in the caches, as in a loop of its own calls
        for _ in range(repeat):
            start = time.perf_counter()
            fn(*args)
            times[impl].append(time.perf_counter() - start)
    for impl, ts in times.items():
        record["impls"][impl]["ms"] = statistics.median(ts) * 1e3
    return record


def _cell(entry: dict) -> str:
    if entry.get("ms") is None:
        return entry["status"]
    ms = entry["ms"]
    return (f"{ms:.2f}" if ms >= 1 else f"{ms:.4f}") + ("" if entry.get("matches", True) else " (wrong)")


def program_rows(records: list[dict]) -> tuple[list[list[str]], list[str]]:
    """The table's rows (numpy/jc above 1: jitcore is faster) and one note per failure or n/a."""
    rows, notes = [], []
    for r in records:
        jit, numpy = r["impls"]["jitcore"], r["impls"]["numpy"]
        jit_ok = jit.get("ms") is not None and jit.get("matches", False)
        ratio = f"{numpy['ms'] / jit['ms']:.2f}x" if jit_ok else ""
        numba = r["impls"]["numba"]
        numba_ratio = (f"{numba['ms'] / jit['ms']:.2f}x" if jit_ok and numba.get("ms") is not None
                       and numba.get("matches") else "")
        runs = "yes" if jit_ok else ("wrong" if jit.get("ms") is not None else "no")
        rows.append([r["title"], r["size"], runs, _cell(jit), _cell(numpy), ratio, _cell(numba), numba_ratio,
                     f"{jit['first_calls_ms']:.0f}" if "first_calls_ms" in jit else ""])
        notes += [f"{r['title']}, {impl}: {e['reason']}" for impl, e in r["impls"].items() if e.get("reason")]
    return rows, notes


PROGRAM_HEADER = ["program", "arguments", "runs under jit", "jitcore ms", "numpy ms", "numpy/jc", "numba ms",
                  "numba/jc", "jc first two calls ms"]
