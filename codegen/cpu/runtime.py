"""How the CPU runs a launch: as one call, or in chunks on several threads.

A launch whose kernel is split (``schedule.emit_kernel``: the kernel takes a range ``[lo, hi)``
of one parallel dim) and whose work, its number of iteration points (a body of arithmetic only
weighing less, ``cost.py``), reaches the ``parallel_threshold`` setting is cut into chunks of
about ``chunk_size`` points each. The chunks are a function of the kernel's size and those two
settings only, never of the thread count or of timing: each result element is computed by one
chunk, in the same order whichever thread runs it, so results are the same on 1 thread or 64
(a split may cap its chunks per thread, ``Split.per_thread``, where no cut changes a result: the
tiled GEMM's sums follow its blocks of k alone). A
reduction to one value has no parallel dim to split: its kernel takes pieces of the reduced dim
instead, each into its own partial slot (stack space of the launch), and a last call merges
them in a fixed order (``full_reduction.py``).

The threads are a persistent pool of the process's own pthreads (``thread_pool.py``, which
MCJIT resolves from the process on Linux and macOS), driven by the compiled code itself: the
whole call stays one ctypes call, made without the GIL. A split launch at or above the hot
window calls the process's launcher of its kernel's arity (``LAUNCHER_SYMBOL``), which fills in
a context (a counter, the chunks, the kernel and its arguments) and calls ``LAUNCH_SYMBOL``: it
decides whether the launch runs in chunks, and how many, and calls ``run_chunks``; these are
compiled once per process (``load_run_chunks``), ``run_chunks`` with the pool's state in its
own globals, and each module only calls them. ``run_chunks`` wakes ``min(num_threads, chunks) - 1``
parked workers (started on the first launch that wants them, more when ``num_threads`` rises),
runs the chunk worker on the calling thread too, and returns when every worker that
joined has finished; every thread takes chunks from the context's atomic counter until none is
left, so a thread slowed by another process does not hold the rest up (a worker that wakes too
late finds the launch over and takes nothing). After a launch the workers spin for a
millisecond, yielding their cores at each look, then block on a condition variable: an idle
pool costs no CPU. While one spins, a launch of an eighth of the threshold splits too
(``_emit_launch_function``), since a spinning worker joins within a microsecond. Only one
launch has the pool at a time: a second one meanwhile (another Python thread, or a launch from
inside a kernel) runs alone on its own thread, which can neither deadlock nor mix two launches.
A forked child starts a pool of its own on its first launch; if no worker can be started, the
caller runs every chunk. Waking a parked pool costs a few microseconds where starting and joining threads
cost about 30 (docs/performance.md, "Persistent thread pool").

The settings are read when the code runs, from ``SETTINGS``: one int64 per name in
``RUNTIME_SETTINGS``, at the address the code knows as the symbol ``SETTINGS_SYMBOL``
(registered with LLVM when this module is imported). So changing them never recompiles, and a
call passes nothing more than before: below the threshold it pays one load and one compare per
launch. The frontend's ``jitcore.config`` sets them.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import threading

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen.cpu import thread_pool
from jitcore.codegen.errors import CodegenError
from jitcore.codegen.llvm_types import I64, PTR, declare

RUNTIME_SETTINGS = (
    "num_threads",  # threads a launch may run on, the calling one included
    "parallel_threshold",  # a launch with fewer iteration points runs as one call
    "chunk_size",  # iteration points per chunk of a launch at or above the threshold
)
# Until jitcore.config sets them: every launch runs as one call, on the calling thread.
SETTINGS = (ctypes.c_int64 * len(RUNTIME_SETTINGS))(1, 1 << 62, 1 << 62)
SETTINGS_SYMBOL = "jitcore_cpu_runtime_settings"
RUN_CHUNKS_SYMBOL = "jitcore_cpu_run_chunks"
# Whether a split launch runs in chunks, and how many (``_emit_launch_function``).
LAUNCH_SYMBOL = RUN_CHUNKS_SYMBOL + "_if_large"
# What a split launch of a kernel of so many arguments before its range calls
# (``_emit_launcher``). The names start with run_chunks', so that a module's text holds
# ``RUN_CHUNKS_SYMBOL`` where a launch in it may run in chunks.
LAUNCHER_SYMBOL = RUN_CHUNKS_SYMBOL + "_of_{}"
_LAUNCHER_NAME = re.compile(RUN_CHUNKS_SYMBOL + r"_of_(\d+)")
llvm.add_symbol(SETTINGS_SYMBOL, ctypes.addressof(SETTINGS))
# The pool's state that launches read and write, in the process's memory like the settings:
# ``HEARTBEAT``, the CLOCK_MONOTONIC nanoseconds at which a worker spinning between launches
# was last on a core (``thread_pool.py`` writes it); ``LAST_WINDOW``, when the last launch in
# the hot window (below) began; ``HOT_LAUNCHES`` and ``WARMED``, how many launches in the
# window split because a worker was hot, and how many warmed the pool; ``MOVED``, how many
# times the workers were kept off a new CPU of the caller (``thread_pool.PLACEMENT``) (counts
# for tests and tools/probe_pool.py); ``STREAK``, how many launches in the window in a row,
# each within the spin of the one before, found the pool cold.
HEARTBEAT, LAST_WINDOW, HOT_LAUNCHES, WARMED, MOVED, STREAK = range(6)
POOL_STATE = (ctypes.c_int64 * 6)()
POOL_STATE_SYMBOL = "jitcore_cpu_pool_state"
llvm.add_symbol(POOL_STATE_SYMBOL, ctypes.addressof(POOL_STATE))

# Kernels with fewer iteration points are compiled unsplit, whatever the threshold: no thread
# could pay for itself there, and a split kernel costs about twice the LLVM time of an unsplit
# one (a loop with bounds known only when it runs, a worker, a second path in the entry),
# which a small function's first call would pay for nothing. Tests set it to 0.
MIN_SPLIT_WORK = 1 << 15
# A launch at or above the threshold runs as at least this many chunks (where its extent has
# them), whatever ``chunk_size`` says: a costly body reaches the threshold with a few chunks'
# points (10^5 float64 points of exp and log were 3 chunks, which two threads share 2 to 1, so
# the second thread saved a third, not a half). A constant, so chunks still follow the sizes
# and settings alone, never the thread count.
MIN_CHUNKS = 8

# A launch under the threshold but of at least ``parallel_threshold >> HOT_THRESHOLD_SHIFT``
# weighed points splits too when a worker is hot: seen on a core within ``HOT_NS`` (its
# heartbeat), so it joins within a pause instead of a futex wake of 8-12 us and a pass
# through the scheduler. Chunks stay the sizes' and settings' alone, so results do not change.
HOT_THRESHOLD_SHIFT = 3
HOT_NS = 10_000
# A launch in the window that finds the pool cold warms it (wakes its workers for the next
# launch) when it is the WARM_STREAK-th in a row of such launches each within the spin of the
# one before: a loop of calls. The wake costs the caller 13-20 us (a futex wake of a halted
# vCPU), paid back only by calls that follow; at 2 (the second call of a pair), every pair of
# 64^2 products after a pause paid it: 0.019 ms a call against 0.006 (tools/bench_matmul.py);
# at 4, a loop's first four calls ran on one thread, which a run of 6 calls (bench.py's
# workloads: sum(log(exp(x))) of 10^5 float32, 0.028 -> 0.053 ms) saw in its median.
WARM_STREAK = 3

# The context a launch's threads share, as i64 slots: the next chunk to take, the number of
# chunks, the split dim's extent, the kernel (its address), then the kernel's arguments
# (pointers as integers).
_NEXT, _CHUNKS, _EXTENT, _KERNEL, _ARGS = range(5)
POOL_IS_HOT = "jitcore_pool_is_hot"  # the launch module's own (internal): ``_pool_is_hot``


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one): the most
    threads a launch can use at once."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


class Split:
    """A split kernel's launch: the extent of the dim it takes a range of, its work (iteration
    points: what its chunks are counted in; ints, or i64 values of the entry: a size-generic
    function's), the bytes of partials it needs (a full reduction in pieces,
    ``schedule.emit_kernel``), and its work as the threshold weighs it (``cost.py``: a cheap
    body's points count less; by default its points).

    ``per_thread``: at most that many chunks per thread of the launch, and one chunk on one
    thread (0: no cap). For a kernel whose every chunk redoes some work (the tiled GEMM's chunk
    reads all of the operand it does not cut) and whose results do not depend on the cut:
    enough chunks that a thread slowed by another process hands its share to the others, and
    none to re-read where one thread runs them all."""

    def __init__(
        self,
        extent: int | ll.Value,
        work: int | ll.Value,
        partials: int = 0,
        threshold_work: int | ll.Value | None = None,
        min_piece: int | ll.Value = 1,
        per_thread: int = 0,
    ):
        self.extent = extent
        self.work = work
        self.partials = partials
        self.threshold_work = work if threshold_work is None else threshold_work
        self.min_piece = min_piece  # positions of the split dim per chunk, at least
        self.per_thread = per_thread


def emit_launch(b: ll.IRBuilder, kernel: ll.Function, args: list[ll.Value], split: Split | None) -> None:
    """Run ``kernel(args)`` at the builder's position: in one call if it is not split, else
    in one ranged call below the threshold, in chunks on threads above it. A kernel with
    partials gets them as its last pointer (stack space of the caller) and is called once
    more afterwards, with the empty range ``[extent, extent)``, to merge them.

    Only the test for the hot window (one load and compare: a launch below it runs whole,
    called here) is emitted here; above it the launch calls the process's launcher of the
    kernel's arity (``_launcher``), which decides whether it runs in chunks, and how many.
    Emitted into every module beside each split launch, that was about 50 instructions of
    the entry per launch, a chunk worker per kernel signature and 30 more of the window's
    code per module, which LLVM optimised and emitted again for every function
    (docs/performance.md, "Session 57: the launch runtime compiled once")."""
    if split is None:
        b.call(kernel, args)
        return
    if split.partials:
        with b.goto_entry_block():
            scratch = b.alloca(I64, size=-(-split.partials // 8))
            scratch.align = 16
        at = sum(isinstance(t, ll.PointerType) for t in kernel.function_type.args) - 1
        args = [*args[:at], scratch, *args[at:]]
    whole = [*args, ll.Constant(I64, 0), as_value(split.extent)]
    if isinstance(split.extent, int) and split.extent < 2:  # nothing to share (an empty dim)
        b.call(kernel, whole)
    else:
        weighed = as_value(split.threshold_work)
        window = b.icmp_signed(">=", weighed, _window_start(b, setting(b, "parallel_threshold")))
        with b.if_else(window) as (then, otherwise):
            with then:
                _emit_chunked(b, kernel, args, split)
            with otherwise:
                b.call(kernel, whole)
    if split.partials:
        end = as_value(split.extent)
        b.call(kernel, [*args, end, end])


def _emit_chunked(b: ll.IRBuilder, kernel: ll.Function, args: list[ll.Value], split: Split) -> None:
    """The launch at or above the hot window: the process's launcher of the kernel's arity
    called with the kernel, its arguments, and the split's numbers."""
    static_piece = isinstance(split.min_piece, int) and split.min_piece == 1
    numbers = [
        as_value(split.extent),
        as_value(split.threshold_work),
        as_value(split.work),
        ll.Constant(I64, 0) if static_piece else as_value(split.min_piece),
        ll.Constant(I64, split.per_thread),
    ]
    launcher = _launcher(b.module, kernel.function_type)
    passed = [b.ptrtoint(a, I64) if isinstance(a.type, ll.PointerType) else a for a in args]
    b.call(launcher, [kernel.bitcast(launcher.function_type.args[0]), *passed, *numbers])


def _launcher(module: ll.Module, kernel_type: ll.FunctionType) -> ll.Function:
    """The process's launcher for kernels of ``kernel_type``, declared in ``module``: the one of
    its arity (``_emit_launcher``), declared as it is defined, every parameter an i64 (the
    caller passes its pointers as integers: two kernels of one arity may differ in which of
    their parameters are pointers, and share the declaration). Every parameter
    of a split kernel is a pointer or an i64 (the context holds them as i64 slots), which the C
    calling conventions of the hosts jitcore runs on (x86-64 System V and Windows, AArch64)
    pass alike, in the same integer register or stack slot: one launcher that takes and calls
    i64s serves every kernel of that many arguments."""
    if not all(t == I64 or isinstance(t, ll.PointerType) for t in kernel_type.args):
        raise CodegenError(f"internal error: a split kernel takes only pointers and i64s, not {kernel_type}")
    arity = len(kernel_type.args) - 2
    return declare(
        module,
        LAUNCHER_SYMBOL.format(arity),
        ll.VoidType(),
        [_launched_type(arity).as_pointer(), *[I64] * (arity + 5)],
    )


def _launched_type(arity: int) -> ll.FunctionType:
    """The type a launcher calls its kernel as: ``arity`` arguments and the range, all i64
    (one declaration per module serves kernels of that arity whatever their pointers)."""
    return ll.FunctionType(ll.VoidType(), [I64] * (arity + 2))


def _emit_launch_function(module: ll.Module) -> None:
    """``i1 LAUNCH_SYMBOL(worker, ptr context, i64 weighed, i64 work, i64 min_piece, i64
    per_thread)``: run a split launch in chunks if it should, and say whether it did. The
    context holds the extent and the kernel's arguments; ``weighed`` is its work as the
    threshold weighs it, ``work`` its points (what chunks are counted in); ``min_piece`` the
    least positions of the split dim per chunk (0: none, the extent caps the chunks alone);
    ``per_thread`` caps the chunks per thread (0: no cap). It runs in chunks when ``weighed``
    reaches the threshold, or ``threshold >> HOT_THRESHOLD_SHIFT`` (the window) while a
    worker is hot (seen on a core within ``HOT_NS``; the clock is read only in the window). A
    launch in the window that finds the pool cold runs whole; if it is the ``WARM_STREAK``-th
    in a row each of which began within the pool's spin (``thread_pool.SPIN_NS``) of the last
    (a loop of such calls), it also warms the pool (``thread_pool.emit_run_chunks``), so that
    the next finds a worker spinning. A lone launch or a pair does not: waking a parked worker
    costs the caller 13 us on the 2-vCPU KVM host (an IPI to a halted vCPU), as much as a
    512^2 matrix-vector product (docs/performance.md, "threads38"). One copy per process."""
    fn = ll.Function(module, ll.FunctionType(ll.IntType(1), [PTR, PTR, I64, I64, I64, I64]), LAUNCH_SYMBOL)
    worker, context, weighed, work, min_piece, per_thread = fn.args
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    no, yes, zero = ll.Constant(ll.IntType(1), 0), ll.Constant(ll.IntType(1), 1), ll.Constant(I64, 0)
    settings = _settings(module)
    threshold = _setting(b, settings, "parallel_threshold")
    with b.if_then(b.icmp_signed("<", weighed, threshold)):
        with b.if_then(b.icmp_signed("<", weighed, _window_start(b, threshold))):
            b.ret(no)
        with b.if_then(b.not_(b.call(_pool_is_hot(module), []))):
            b.ret(no)
    per_chunk = _at_least(b, _setting(b, settings, "chunk_size"), 1)
    extent = b.load(b.gep(context, [ll.Constant(I64, _EXTENT)], source_etype=I64), typ=I64)
    unlimited = b.icmp_signed("==", min_piece, zero)
    divisor = b.select(unlimited, ll.Constant(I64, 1), min_piece)
    most = b.select(unlimited, extent, _at_least(b, b.sdiv(extent, divisor), 1))
    chunks = _at_most(b, _at_least(b, b.sdiv(work, per_chunk), MIN_CHUNKS), most)
    threads = _at_least(b, _setting(b, settings, "num_threads"), 1)
    one = b.icmp_signed("==", threads, ll.Constant(I64, 1))
    cap = b.select(one, ll.Constant(I64, 1), b.mul(threads, per_thread))
    capped = b.icmp_signed("!=", per_thread, zero)
    chunks = b.select(capped, _at_most(b, chunks, cap), chunks)
    for slot, value in ((_NEXT, zero), (_CHUNKS, chunks)):
        b.store(value, b.gep(context, [ll.Constant(I64, slot)], source_etype=I64))
    b.call(_run_chunks(module), [worker, context, chunks])
    b.ret(yes)


def _pool_is_hot(module: ll.Module) -> ll.Function:
    """``i1 jitcore_pool_is_hot()``: the window's part of the launch (the clock, the
    heartbeat, the streak), in the launch's module (``launch_module``), inlined there."""
    existing = module.globals.get(POOL_IS_HOT)
    if existing is not None:
        return existing
    fn = ll.Function(module, ll.FunctionType(ll.IntType(1), []), POOL_IS_HOT)
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    now = thread_pool.monotonic_ns(b)
    heartbeat = b.load_atomic(_pool_state(b, HEARTBEAT), "monotonic", 8, typ=I64)
    last = b.atomic_rmw("xchg", _pool_state(b, LAST_WINDOW), now, "monotonic")
    hot = b.icmp_signed("<", b.sub(now, heartbeat), ll.Constant(I64, HOT_NS))
    with b.if_else(hot) as (then, otherwise):
        with then:
            _count(b, HOT_LAUNCHES)
        with otherwise:
            close = b.icmp_signed("<", b.sub(now, last), ll.Constant(I64, thread_pool.SPIN_NS))
            streak = _pool_state(b, STREAK)
            before = b.select(close, b.load(streak, typ=I64), ll.Constant(I64, 0))
            run = b.add(before, ll.Constant(I64, 1))
            warm = b.icmp_signed(">=", run, ll.Constant(I64, WARM_STREAK))
            b.store(b.select(warm, ll.Constant(I64, 0), run), streak)
            with b.if_then(warm):
                _count(b, WARMED)
                b.call(
                    _run_chunks(b.module),
                    [ll.Constant(PTR, None), ll.Constant(PTR, None), ll.Constant(I64, 1 << 62)],
                )
    b.ret(hot)
    return fn


def _count(b: ll.IRBuilder, slot: int) -> None:
    b.atomic_rmw("add", _pool_state(b, slot), ll.Constant(I64, 1), "monotonic")


def _run_chunks(module: ll.Module) -> ll.Function:
    return declare(module, RUN_CHUNKS_SYMBOL, ll.VoidType(), [PTR, PTR, I64])


def _pool_state(b: ll.IRBuilder, slot: int) -> ll.Value:
    module = b.module
    state = module.globals.get(POOL_STATE_SYMBOL)
    if state is None:
        state = ll.GlobalVariable(module, ll.ArrayType(I64, len(POOL_STATE)), POOL_STATE_SYMBOL)
        state.linkage = "external"
    return b.gep(state, [ll.Constant(I64, 0), ll.Constant(I64, slot)])


def as_value(x: int | ll.Value) -> ll.Value:
    return ll.Constant(I64, x) if isinstance(x, int) else x


def _settings(module: ll.Module) -> ll.GlobalVariable:
    existing = module.globals.get(SETTINGS_SYMBOL)
    if existing is not None:
        return existing
    settings = ll.GlobalVariable(module, ll.ArrayType(I64, len(RUNTIME_SETTINGS)), SETTINGS_SYMBOL)
    settings.linkage = "external"
    return settings


def setting(b: ll.IRBuilder, name: str) -> ll.Value:
    """The run-time setting ``name`` (``RUNTIME_SETTINGS``), read where the builder is."""
    return _setting(b, _settings(b.module), name)


def _setting(b: ll.IRBuilder, settings: ll.Value, name: str) -> ll.Value:
    at = b.gep(settings, [ll.Constant(I64, RUNTIME_SETTINGS.index(name))], source_etype=I64)
    return b.load(at, typ=I64)


def _at_least(b: ll.IRBuilder, x: ll.Value, floor: int) -> ll.Value:
    floor = ll.Constant(I64, floor)
    return b.select(b.icmp_signed("<", x, floor), floor, x)


def _at_most(b: ll.IRBuilder, x: ll.Value, ceiling: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed(">", x, ceiling), ceiling, x)


def _window_start(b: ll.IRBuilder, threshold: ll.Value) -> ll.Value:
    """The least weighed work of a launch that may run in chunks: the hot window's start."""
    return b.ashr(threshold, ll.Constant(I64, HOT_THRESHOLD_SHIFT))


def _launch(module: ll.Module) -> ll.Function:
    return declare(module, LAUNCH_SYMBOL, ll.IntType(1), [PTR, PTR, I64, I64, I64, I64])


def run_chunks_module() -> ll.Module:
    """``void run_chunks(worker, ptr context, i64 chunks)``: run ``worker(context)`` on this
    thread and on ``min(num_threads, chunks) - 1`` of the process's pool of workers
    (``thread_pool.py``), returning when every one has returned. One copy per process, not one
    per compiled function."""
    module = ll.Module()

    def threads_wanted(b: ll.IRBuilder) -> ll.Value:
        return _at_most(b, _at_least(b, _setting(b, _settings(module), "num_threads"), 1), b.function.args[2])

    thread_pool.emit_run_chunks(
        module,
        RUN_CHUNKS_SYMBOL,
        threads_wanted,
        lambda b: _pool_state(b, HEARTBEAT),
        lambda b: _pool_state(b, MOVED),
    )
    return module


def launch_module() -> ll.Module:
    """``LAUNCH_SYMBOL`` (``_emit_launch_function``), which calls ``run_chunks``."""
    module = ll.Module()
    _emit_launch_function(module)
    return module


def launcher_module(arity: int) -> ll.Module:
    """The launcher of kernels with ``arity`` arguments before their range (``_emit_launcher``)."""
    module = ll.Module()
    _emit_launcher(module, arity)
    return module


_lock = threading.Lock()
_loaded: dict[str, int] = {}  # the runtime's symbols compiled in this process -> their addresses


def load_run_chunks(compile_and_load, llvm_ir: str = "") -> None:
    """Compile ``run_chunks`` and the launch once per process, and each launcher that
    ``llvm_ir`` calls, with ``compile_and_load(llvm_ir, symbol) -> address``, and give their
    addresses to LLVM, before code that calls them is loaded."""
    wanted = [(RUN_CHUNKS_SYMBOL, run_chunks_module), (LAUNCH_SYMBOL, launch_module)]
    wanted += [
        (LAUNCHER_SYMBOL.format(n), functools.partial(launcher_module, n))
        for n in sorted({int(n) for n in _LAUNCHER_NAME.findall(llvm_ir)})
    ]
    with _lock:
        for symbol, make in wanted:  # in this order: each calls the ones before
            if symbol not in _loaded:
                _loaded[symbol] = compile_and_load(str(make()), symbol)
                llvm.add_symbol(symbol, _loaded[symbol])


def run_chunks_address() -> int | None:
    """Where ``run_chunks`` is (a ``void (ptr (*)(ptr), ptr, i64)`` to call through ctypes,
    which releases the GIL), or None before the first split code is loaded."""
    return _loaded.get(RUN_CHUNKS_SYMBOL)


def _emit_launcher(module: ll.Module, arity: int) -> ll.Function:
    """``void name(kernel, i64 a_1 .. a_arity, i64 extent, i64 weighed, i64 work, i64
    min_piece, i64 per_thread)`` (``LAUNCHER_SYMBOL``): the context the threads share filled in
    (the extent, the kernel, its arguments) and ``LAUNCH_SYMBOL`` called on it with the chunk
    worker of this arity; if that did not run it in chunks, the kernel called once on the
    whole extent."""
    kernel_type = _launched_type(arity)
    fn = ll.Function(
        module,
        ll.FunctionType(ll.VoidType(), [kernel_type.as_pointer(), *[I64] * (arity + 5)]),
        LAUNCHER_SYMBOL.format(arity),
    )
    kernel, *args = fn.args[: arity + 1]
    extent, weighed, work, min_piece, per_thread = fn.args[arity + 1 :]
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    context = b.alloca(I64, size=_ARGS + arity)
    for slot, value in [(_EXTENT, extent), (_KERNEL, b.ptrtoint(kernel, I64)), *enumerate(args, _ARGS)]:
        b.store(value, b.gep(context, [ll.Constant(I64, slot)], source_etype=I64))
    worker = _emit_worker(module, f"jitcore_chunk_worker_{arity}", kernel_type)
    worker.linkage = "internal"
    chunked = _call_launch(b, [worker, context, weighed, work, min_piece, per_thread])
    with b.if_then(b.not_(chunked)):
        b.call(kernel, [*args, ll.Constant(I64, 0), extent])
    b.ret_void()
    return fn


def _call_launch(b: ll.IRBuilder, operands: list[ll.Value]) -> ll.Value:
    """``LAUNCH_SYMBOL`` called (``tools/probe_pool.py`` times around it)."""
    return b.call(_launch(b.module), operands)


def _emit_worker(module: ll.Module, name: str, kernel_type: ll.FunctionType) -> ll.Function:
    """``ptr name(ptr context)``: takes chunks from the context's counter and runs the
    context's kernel on each, until none is left. Chunk ``c`` of ``n`` over an extent ``e`` is
    ``[c*q + min(c, r), (c+1)*q + min(c+1, r))`` with ``q, r = divmod(e, n)``. The kernel is
    called through its address (once per chunk, a chunk being thousands of points)."""
    fn = ll.Function(module, ll.FunctionType(PTR, [PTR]), name)
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    context = fn.args[0]
    params = kernel_type.args[:-2]

    def slot(k: int) -> ll.Value:
        return b.load(b.gep(context, [ll.Constant(I64, k)], source_etype=I64), typ=I64)

    chunks, extent = slot(_CHUNKS), slot(_EXTENT)
    kernel = b.inttoptr(slot(_KERNEL), kernel_type.as_pointer())
    args = [
        b.inttoptr(slot(_ARGS + k), t) if isinstance(t, ll.PointerType) else slot(_ARGS + k)
        for k, t in enumerate(params)
    ]
    quotient, remainder = b.sdiv(extent, chunks), b.srem(extent, chunks)

    def start(c: ll.Value) -> ll.Value:
        return b.add(b.mul(c, quotient), b.select(b.icmp_signed("<", c, remainder), c, remainder))

    next_chunk = b.gep(context, [ll.Constant(I64, _NEXT)], source_etype=I64)
    loop, body, done = (fn.append_basic_block(n) for n in ("take", "run", "done"))
    b.branch(loop)
    b.position_at_end(loop)
    c = b.atomic_rmw("add", next_chunk, ll.Constant(I64, 1), "monotonic")
    b.cbranch(b.icmp_signed("<", c, chunks), body, done)
    b.position_at_end(body)
    b.call(kernel, [*args, start(c), start(b.add(c, ll.Constant(I64, 1)))])
    b.branch(loop)
    b.position_at_end(done)
    b.ret(ll.Constant(PTR, None))
    return fn
