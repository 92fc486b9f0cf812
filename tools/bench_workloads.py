"""The workloads of issue #10 for tools/bench.py (``--suite workloads``).

Each workload is one plain NumPy function. jitcore runs it unchanged under ``jc.jit``; Numba runs
it unchanged under ``numba.njit``; JAX runs the same code with ``np`` bound to ``jax.numpy``
under ``jax.jit``; numexpr runs the expression where its language can say it. A peer that cannot
run a workload gets "n/a" and the reason; jitcore failing to compile one gets "unsupported" (or
"error") and the error's first line, so the table shows what is slow *and* what is missing.

Next to the timings: a lower bound from memory bandwidth (the bytes a workload must read and
write, divided by a measured single-threaded copy bandwidth) and, for two fused chains, the peak
memory each implementation allocates during one call, measured with tracemalloc (which sees
NumPy's allocations, and so jitcore's outputs and buffers, which NumPy allocates).

Nothing here prints: the functions return rows and records, and bench.py renders them.
"""

from __future__ import annotations

import math
import re
import statistics
import time
import tracemalloc
import types
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from settle import settle  # tools/, on sys.path as this module's own folder

import jitcore as jc

PEERS = ("numexpr", "numba", "jax")
IMPLS = ("numpy", "jitcore", *PEERS)
DEFAULT_SIZE = 10_000_000  # --size's default: every workload has its issue-#10 size there
MLP_STEPS = 100


# ----------------------------------------------------------------------------- the functions
# Plain NumPy, as a user writes it. Each refers to NumPy only as the global `np`, so that JAX can
# run the same code with `np` rebound to jax.numpy.
def tanh_2x1(x):
    return np.tanh(2 * x + 1)


def sin_xy(x, y):
    return np.sin(x + y)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def sum_xy(x, y):
    return np.sum(x * y)


def softmax_rows(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def layernorm_rows(x):
    mean = np.mean(x, axis=1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=1, keepdims=True)
    return centred / np.sqrt(var + 1e-5)


def gauss_outer(p, q):
    return np.exp(-(p[:, None] - q[None, :]) ** 2)


def matmul(a, b):
    return a @ b


def matmul_t(a, b):
    return a.T @ b


def row_norms(x):
    return np.sqrt(np.sum(np.abs(x) ** 2, 1))


def pairwise_distances(X):
    return np.sum((X[None, :] - X[:, None]) ** 2, -1) ** 0.5


def sum_log_exp(x):
    return np.sum(np.log(np.exp(x)))


def roll(x):
    return np.roll(x, 3)


def mlp_step(w1, b1, w2, b2, x, y):
    """One SGD step of a 2-layer tanh MLP on a mean squared error, gradients written by hand."""
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    g_out = (out - y) * (2.0 / (x.shape[0] * y.shape[1]))  # d(mean squared error)/d(out)
    g_w2 = h.T @ g_out
    g_b2 = np.sum(g_out, axis=0)
    g_pre = (g_out @ w2.T) * (1 - h * h)  # back through tanh
    g_w1 = x.T @ g_pre
    g_b1 = np.sum(g_pre, axis=0)
    lr = 0.05
    return w1 - lr * g_w1, b1 - lr * g_b1, w2 - lr * g_w2, b2 - lr * g_b2


# ----------------------------------------------------------------------------- the floors
# A workload's costliest ops, each jitted alone: their time per element in cache, on one thread,
# times the elements the workload runs them on, is its compute floor ("floor ms").
def _tanh(x):
    return np.tanh(x)


def _sin(x):
    return np.sin(x)


def _exp(x):
    return np.exp(x)


def _log(x):
    return np.log(x)


def _sqrt(x):
    return np.sqrt(x)


@dataclass(frozen=True)
class FloorOp:
    """One costly op of a workload: ``fn`` (plain NumPy, one array in, one out) on as many
    elements as the workload's first input has (``over="in"``) or its output (``"out"``)."""

    name: str
    fn: Callable
    over: str = "in"
    positive: bool = False  # its domain: positive numbers (log, sqrt)


TANH, SIN, EXP = FloorOp("tanh", _tanh), FloorOp("sin", _sin), FloorOp("exp", _exp)
LOG = FloorOp("log", _log, positive=True)
FLOOR_BYTES = 256 << 10  # each op's input (and its output alike) in the 1 MiB L2 of Zen 4
_per_element: dict[tuple[str, str], float] = {}


def op_seconds(op: FloorOp, dtype: np.dtype, repeat: int) -> float:
    """Seconds per element of ``op`` under ``jc.jit`` on one thread, its data already in cache:
    the thread CPU time of a call on ``FLOOR_BYTES`` of elements less that of a call on one
    (the call itself), over the difference in elements; medians, the two calls alternating.
    Measured once per op and dtype in a run."""
    key = (op.name, dtype.name)
    if key in _per_element:
        return _per_element[key]
    n = FLOOR_BYTES // dtype.itemsize
    x = np.random.default_rng(1).standard_normal(n).astype(dtype)
    if op.positive:
        x = np.abs(x) + dtype.type(0.5)
    one = x[:1].copy()
    fn, threads = jc.jit(op.fn), jc.config.num_threads
    jc.config.num_threads = 1  # a floor of one core, as the bandwidth bound is
    try:
        fn(x), fn(one)
        many, single = [], []
        for _ in range(10 * max(repeat, 5)):
            for arg, times in ((x, many), (one, single)):
                start = time.thread_time()
                fn(arg)
                times.append(time.thread_time() - start)
    finally:
        jc.config.num_threads = threads
    seconds = max(statistics.median(many) - statistics.median(single), 0.0) / (n - 1)
    _per_element[key] = seconds
    return seconds


def floor_of(work: Workload, dtype: np.dtype, arrays: list[np.ndarray], out_shape: tuple[int, ...],
             repeat: int) -> tuple[float | None, str]:
    """The workload's compute floor in ms (None: it has no costly op listed) and what it is."""
    if not work.floor:
        return None, ""
    total, parts = 0.0, []
    for op in work.floor:
        count = arrays[0].size if op.over == "in" else math.prod(out_shape)
        total += op_seconds(op, dtype, repeat) * count
        parts.append(f"{op.name} x {count}")
    return total * 1e3, " + ".join(parts)


# ----------------------------------------------------------------------------- the workloads
@dataclass
class Workload:
    name: str  # for --only
    title: str  # for the table
    fn: Callable
    shapes: Callable  # scale -> list of input shapes (scale = --size / DEFAULT_SIZE)
    numexpr: Callable | str  # (numexpr, arrays, dtype) -> result, or why numexpr cannot say it
    inputs: Callable | None = None  # (rng, shapes, dtype) -> arrays; standard normal when None
    compute_bound: bool = False  # the bandwidth bound is far below what the arithmetic costs
    steps: int | None = None  # a training loop: fn's outputs become its first inputs, `steps` times
    dtypes: tuple[str, ...] = ("float32", "float64")
    note: str = ""
    floor: tuple[FloorOp, ...] = ()  # the costly ops of its compute floor (none: memory-bound)


def _n(base: int, scale: float) -> int:
    return max(1, round(base * scale))


def _side(base: int, scale: float, least: int = 1) -> int:
    """One side of a 2-D shape whose element count follows the scale."""
    return max(least, round(base * math.sqrt(scale)))


def _ne(expr: str, **consts):
    """A numexpr runner; constants go in as the arrays' dtype, or float32 inputs would become float64."""
    def run(ne, arrays, dtype, names=None):
        local = dict(zip(names or "xy", arrays))
        local.update({k: dtype.type(v) for k, v in consts.items()})
        return ne.evaluate(expr, local_dict=local)
    return run


def _ne_gauss(ne, arrays, dtype):
    p, q = arrays
    return ne.evaluate("exp(-(p - q) ** 2)", local_dict={"p": p[:, None], "q": q[None, :]})


def _ne_row_norms(ne, arrays, dtype):  # a numexpr reduction must come last: a second call for sqrt
    s = ne.evaluate("sum(abs(x) ** 2, axis=1)", local_dict={"x": arrays[0]})
    return ne.evaluate("sqrt(s)", local_dict={"s": s})


def _ne_pairwise(ne, arrays, dtype):
    X = arrays[0]
    s = ne.evaluate("sum((a - b) ** 2, axis=2)", local_dict={"a": X[None, :], "b": X[:, None]})
    return ne.evaluate("sqrt(s)", local_dict={"s": s})


def _mlp_shapes(scale: float) -> list[tuple[int, ...]]:
    rows, features = max(2, round(10_000 * scale)), _side(256, scale, 2)
    hidden, outputs = _side(256, scale, 2), _side(16, scale, 2)
    return [(features, hidden), (hidden,), (hidden, outputs), (outputs,), (rows, features), (rows, outputs)]


def _mlp_inputs(rng, shapes, dtype):
    (f, h), _, (_, o), _, xs, ys = shapes
    w1 = rng.standard_normal((f, h)) / math.sqrt(f)
    w2 = rng.standard_normal((h, o)) / math.sqrt(h)
    x = rng.standard_normal(xs)
    y = np.tanh(x[:, : min(f, o)].sum(axis=1, keepdims=True)) * np.ones(ys)  # something learnable
    return [a.astype(dtype) for a in (w1, np.zeros(h), w2, np.zeros(o), x, y)]


_NO_ROWS = "no reductions inside an expression (only as its last operation)"
WORKLOADS = [
    Workload("tanh", "tanh(2x+1)", tanh_2x1, lambda s: [(_n(10_000_000, s),)],
             _ne("tanh(two * x + one)", two=2, one=1), floor=(TANH,)),
    Workload("sin", "sin(x+y)", sin_xy, lambda s: [(_n(10_000_000, s),)] * 2, _ne("sin(x + y)"),
             floor=(SIN,)),
    Workload("gelu", "GELU, tanh form", gelu, lambda s: [(_n(10_000_000, s),)],
             _ne("half * x * (one + tanh(c * (x + k * x ** 3)))",
                 half=0.5, one=1, c=0.7978845608028654, k=0.044715), floor=(TANH,)),
    Workload("sum", "sum(x*y)", sum_xy, lambda s: [(_n(10_000_000, s),)] * 2, _ne("sum(x * y)")),
    Workload("softmax", "softmax over rows", softmax_rows, lambda s: [(_side(4096, s), _side(1024, s))],
             _NO_ROWS, floor=(EXP,)),
    Workload("layernorm", "layernorm over rows", layernorm_rows,
             lambda s: [(_side(4096, s), _side(1024, s))], _NO_ROWS),
    Workload("gauss", "exp(-(p[:,None]-q[None,:])**2)", gauss_outer,
             lambda s: [(_side(4000, s),), (_side(4000, s),)], _ne_gauss,
             note="output p.size x q.size", floor=(FloorOp("exp", _exp, over="out"),)),
    Workload("matmul", "a @ b", matmul, lambda s: [(_side(1024, s),) * 2] * 2,
             "no matrix product", compute_bound=True),
    Workload("matmul-t", "a.T @ b", matmul_t, lambda s: [(_side(1024, s),) * 2] * 2,
             "no matrix product", compute_bound=True, note="a transposed operand: a strided read"),
    Workload("rownorm", "sqrt(sum(abs(x)**2, 1))", row_norms, lambda s: [(_side(1000, s), _side(1000, s))],
             _ne_row_norms, note="numexpr: sum, then sqrt in a second call"),
    Workload("pdist", "sum((X[None,:]-X[:,None])**2,-1)**0.5", pairwise_distances,
             lambda s: [(_side(500, s), 3)], _ne_pairwise,
             note="X is n x 3 (500 x 3 at the default size): the n x n x 3 difference stays small; "
                  "numexpr: sum, then sqrt in a second call",
             floor=(FloorOp("sqrt", _sqrt, over="out", positive=True),)),
    Workload("sumlogexp", "sum(log(exp(x)))", sum_log_exp, lambda s: [(_n(100_000, s),)],
             _ne("sum(log(exp(x)))"), floor=(EXP, LOG),
             note="JAX: XLA's simplifier rewrites log(exp(x)) to x, so its time is the sum alone, and its "
                  "answer is not NumPy's where exp overflows (x = 800: JAX 800.0, NumPy inf; jax 0.10.2)"),
    Workload("roll", "np.roll(x, 3)", roll, lambda s: [(_n(10_000_000, s),)], "no indexing or shifts"),
    Workload("mlp", f"MLP, {MLP_STEPS} SGD steps", mlp_step, _mlp_shapes, "no matrix product",
             inputs=_mlp_inputs, compute_bound=True, steps=MLP_STEPS, dtypes=("float32",),
             note="2 layers, tanh, hand-written gradients; one jitted function per step returns the new "
                  "weights; the time is all the steps, each timed once after one warm-up step; float32 "
                  "only, as networks are trained (float64 would double the suite's time)"),
]


# ----------------------------------------------------------------------------- the peers
def _first_line(e: BaseException) -> str:
    """The informative first line of an error (Numba's first line only names its pipeline)."""
    text = re.sub(r"\x1b\[[0-9;]*m| at 0x[0-9a-f]+", "", str(e))  # colours, addresses
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    while len(lines) > 1 and lines[0].startswith("Failed in "):
        lines.pop(0)
    line = lines[0] if lines else ""
    if line.endswith(":") and len(lines) > 1:
        line += " " + lines[1]
    return f"{type(e).__name__}: {line}"[:200]


def _with_np(fn: Callable, module) -> Callable:
    """``fn`` with its global ``np`` bound to ``module``: the same code, run by another library."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": module}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


class NotExpressible(Exception):
    """A peer's language cannot say this workload."""


@dataclass
class Impl:
    """One implementation made ready: ``call(*args)`` returns a finished result."""

    call: Callable
    args: list


def _prepare(impl: str, work: Workload, arrays: list[np.ndarray], peers: dict) -> Impl:
    """The implementation, or raises ``NotExpressible`` with the reason a peer cannot run it."""
    if impl == "numpy":
        return Impl(work.fn, list(arrays))
    if impl == "jitcore":
        return Impl(jc.jit(work.fn), list(arrays))
    if impl == "numexpr":
        if isinstance(work.numexpr, str):
            raise NotExpressible(work.numexpr)
        ne, dtype = peers["numexpr"], arrays[0].dtype
        return Impl(lambda *a: work.numexpr(ne, list(a), dtype), list(arrays))
    if impl == "numba":
        return Impl(peers["numba"].njit(work.fn), list(arrays))
    jax = peers["jax"]
    fn = jax.jit(_with_np(work.fn, jax.numpy))
    return Impl(lambda *a: jax.block_until_ready(fn(*a)), [jax.device_put(a) for a in arrays])


# ----------------------------------------------------------------------------- measuring
def copy_bandwidth(nbytes: int, repeat: int) -> float:
    """Bytes per second of ``np.copyto`` (one read and one write of each byte), median of runs."""
    src = np.ones(max(1, nbytes // 8), np.float64)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    times = []
    for _ in range(max(repeat, 5)):
        start = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - start)
    return 2 * src.nbytes / statistics.median(times)


def _nbytes(value) -> int:
    if isinstance(value, tuple | list):
        return sum(_nbytes(v) for v in value)
    return np.asarray(value).nbytes


def _rel_err(result, reference) -> float:
    """max |result - reference| / max |reference|, over every output."""
    if isinstance(reference, tuple | list):
        return max(_rel_err(r, ref) for r, ref in zip(result, reference))
    got, ref = np.asarray(result, np.float64), np.asarray(reference, np.float64)
    if got.shape != ref.shape:
        return math.inf
    if not ref.size:
        return 0.0
    return float(np.max(np.abs(got - ref))) / max(float(np.max(np.abs(ref))), np.finfo(np.float64).tiny)


@dataclass
class Outcome:
    """What one implementation did on one workload in one dtype."""

    status: str  # "ok", "not installed", "n/a", "unsupported" or "error"
    ms: float | None = None
    reason: str = ""
    err: float | None = None  # against NumPy's result
    times: list[float] = field(default_factory=list)
    settle_ms: float | None = None  # waited before its block for the other threads to sleep


@dataclass
class Measured:
    work: Workload
    dtype: np.dtype
    shapes: list[tuple[int, ...]]
    min_bytes: int
    outcomes: dict[str, Outcome]
    out_shape: tuple[int, ...] = ()  # NumPy's result's (its first one's, for a tuple)
    floor_ms: float | None = None  # the compute floor (``floor_of``); None: none listed
    floor_ops: str = ""  # what the floor is made of


def measure(work: Workload, dtype: np.dtype, scale: float, repeat: int, peers: dict) -> Measured:
    """Every implementation on the same arrays: one warm-up call each (which compiles), then each
    implementation's timed calls in a block of their own (a training loop: ``work.steps`` steps,
    the time being their sum; else ``repeat`` calls, the median). Before a block: ``settle()``
    (no other thread of the process still running: a library's workers spinning after its
    last call would share this implementation's cores) and one untimed call (its own data in
    the caches, as in a loop of its own calls)."""
    rng = np.random.default_rng(zlib.crc32(f"{work.name} {dtype.name}".encode()))
    shapes = work.shapes(scale)
    if work.inputs is not None:
        arrays = work.inputs(rng, shapes, dtype)
    else:
        arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    outcomes, ready = {}, {}
    for impl in IMPLS:
        if impl in PEERS and peers[impl] is None:
            outcomes[impl] = Outcome("not installed")
            continue
        try:
            prepared = _prepare(impl, work, arrays, peers)
            prepared.call(*prepared.args)  # the warm-up: compiles where there is something to compile
        except NotExpressible as e:
            outcomes[impl] = Outcome("n/a", reason=str(e))
            continue
        except Exception as e:
            if impl == "jitcore":  # a gap in jitcore is the point of the table: say which
                status = "unsupported" if isinstance(e, jc.UnsupportedError) else "error"
            else:
                status = "n/a"
            outcomes[impl] = Outcome(status, reason=_first_line(e))
            continue
        outcomes[impl], ready[impl] = Outcome("ok"), prepared
    results = {}
    for impl, prepared in ready.items():
        outcomes[impl].settle_ms = settle() * 1e3
        try:
            prepared.call(*prepared.args)
            for _ in range(work.steps or repeat):
                start = time.perf_counter()
                result = prepared.call(*prepared.args)
                outcomes[impl].times.append(time.perf_counter() - start)
                if work.steps:  # the new weights are the next step's
                    prepared.args = [*result, *prepared.args[len(result):]]
        except Exception as e:  # it compiled, then failed: a bug, said as such
            outcomes[impl] = Outcome("error", reason=_first_line(e))
            continue
        results[impl] = result
    for impl, out in outcomes.items():
        if out.status == "ok" and out.times:
            out.ms = (sum(out.times) if work.steps else statistics.median(out.times)) * 1e3
            if "numpy" in results and impl in results:
                out.err = _rel_err(_to_numpy(results[impl]), results["numpy"])
    if work.steps:  # every step reads the data and the weights, and writes the weights
        weights = sum(a.nbytes for a in arrays[:4])
        min_bytes = work.steps * (weights * 2 + arrays[4].nbytes + arrays[5].nbytes)
        output = results.get("numpy", arrays[:4])
    else:  # read every input once, write every output once
        output = results["numpy"] if "numpy" in results else work.fn(*arrays)
        min_bytes = sum(a.nbytes for a in arrays) + _nbytes(output)
    out_shape = np.shape(output[0] if isinstance(output, tuple | list) else output)
    floor_ms, floor_ops = floor_of(work, dtype, arrays, out_shape, repeat)
    return Measured(work, dtype, shapes, min_bytes, outcomes, out_shape, floor_ms, floor_ops)


def _to_numpy(value):
    if isinstance(value, tuple | list):
        return tuple(np.asarray(v) for v in value)
    return np.asarray(value)


# ----------------------------------------------------------------------------- peak memory
CHAINS = [("tanh(2x+1)", tanh_2x1, 1), ("GELU, tanh form", gelu, 1)]


def _peak_during(call: Callable[[], object]) -> int:
    """Bytes allocated during ``call`` at its peak, above what was allocated before it."""
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = call()
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
    finally:
        tracemalloc.stop()
    return peak


def peak_memory(size: int, dtype: np.dtype) -> list[dict]:
    """For each chain: its inputs, its output, and each implementation's peak during one warm call.

    A fused chain allocates its output and nothing else, so its peak is inputs plus outputs;
    NumPy's peak adds the temporaries between its ufuncs. The buffer pool is off meanwhile: a
    pooled output reuses memory allocated before the call, which tracemalloc would not count.
    """
    saved = jc.config.buffer_pool_bytes
    jc.config.buffer_pool_bytes = 0  # jitcore's outputs from fresh memory, as NumPy's: what tracemalloc sees
    try:
        return _peak_records(size, dtype)
    finally:
        jc.config.buffer_pool_bytes = saved


def _peak_records(size: int, dtype: np.dtype) -> list[dict]:
    rng = np.random.default_rng(7)
    records = []
    for title, fn, n_args in CHAINS:
        arrays = [rng.standard_normal(size).astype(dtype) for _ in range(n_args)]
        inputs = sum(a.nbytes for a in arrays)
        record = {"chain": title, "dtype": dtype.name, "elements": size, "inputs_bytes": inputs}
        for impl, call in (("numpy", fn), ("jitcore", jc.jit(fn))):
            try:
                output = _nbytes(call(*arrays))  # the warm-up, which compiles
                record[f"{impl}_peak_bytes"] = inputs + _peak_during(lambda call=call, a=arrays: call(*a))
            except Exception as e:
                record[f"{impl}_error"] = _first_line(e)
                continue
            record["outputs_bytes"] = output
        records.append(record)
    return records
