"""How the CPU runs a launch: as one call, or in chunks on several threads.

A launch whose kernel is split (``schedule.emit_kernel``: the kernel takes a range ``[lo, hi)``
of one parallel dim) and whose work, its number of iteration points, reaches the
``parallel_threshold`` setting is cut into chunks of about ``chunk_size`` points each. The
chunks are a function of the kernel's size and those two settings only, never of the thread
count or of timing: each result element is computed by one chunk, in the same order whichever
thread runs it, so results are the same on 1 thread or 64.

The threads are the process's own (``pthread_create``/``pthread_join``, which MCJIT resolves
from the process on Linux and macOS), started by the entry point itself: the whole call stays
one ctypes call, made without the GIL. The calling thread works too; the others are started
per launch (``min(num_threads, chunks) - 1`` of them) and take chunks from a shared atomic
counter until none is left, so a thread slowed by another process does not hold the rest up.
If a thread cannot be started, the ones that did (or the caller alone) take its chunks.
The settings are read when the code runs, from ``SETTINGS``: one int64 per name in
``RUNTIME_SETTINGS``, at the address the code knows as the symbol ``SETTINGS_SYMBOL``
(registered with LLVM when this module is imported). So changing them never recompiles, and a
call passes nothing more than before: below the threshold it pays one load and one compare per
launch. The frontend's ``jitcore.config`` sets them.
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import emit_loop

I32 = ll.IntType(32)

RUNTIME_SETTINGS = (
    "num_threads",  # threads a launch may run on, the calling one included
    "parallel_threshold",  # a launch with fewer iteration points runs as one call
    "chunk_size",  # iteration points per chunk of a launch at or above the threshold
)
# Until jitcore.config sets them: every launch runs as one call, on the calling thread.
SETTINGS = (ctypes.c_int64 * len(RUNTIME_SETTINGS))(1, 1 << 62, 1 << 62)
SETTINGS_SYMBOL = "jitcore_cpu_runtime_settings"
llvm.add_symbol(SETTINGS_SYMBOL, ctypes.addressof(SETTINGS))

# The context a launch's threads share, as i64 slots: the next chunk to take, the number of
# chunks, the split dim's extent, then the kernel's arguments (pointers as integers).
_NEXT, _CHUNKS, _EXTENT, _ARGS = range(4)


class Split:
    """A split kernel's launch: the extent of the dim it takes a range of, and its work."""

    def __init__(self, extent: int, work: int):
        self.extent = extent
        self.work = work


def emit_launch(b: ll.IRBuilder, kernel: ll.Function, args: list[ll.Value], split: Split | None) -> None:
    """Run ``kernel(args)`` at the builder's position: in one call if it is not split, else
    in one ranged call below the threshold, in chunks on threads above it."""
    if split is None:
        b.call(kernel, args)
        return
    settings = _settings(b.module)
    whole = [*args, ll.Constant(I64, 0), ll.Constant(I64, split.extent)]
    small = b.icmp_signed("<", ll.Constant(I64, split.work), _setting(b, settings, "parallel_threshold"))
    with b.if_else(small) as (then, otherwise):
        with then:
            b.call(kernel, whole)
        with otherwise:
            _emit_chunked(b, kernel, args, split, settings)


def _settings(module: ll.Module) -> ll.GlobalVariable:
    existing = module.globals.get(SETTINGS_SYMBOL)
    if existing is not None:
        return existing
    settings = ll.GlobalVariable(module, ll.ArrayType(I64, len(RUNTIME_SETTINGS)), SETTINGS_SYMBOL)
    settings.linkage = "external"
    return settings


def _setting(b: ll.IRBuilder, settings: ll.Value, name: str) -> ll.Value:
    at = b.gep(settings, [ll.Constant(I64, RUNTIME_SETTINGS.index(name))], source_etype=I64)
    return b.load(at, typ=I64)


def _at_least(b: ll.IRBuilder, x: ll.Value, floor: int) -> ll.Value:
    floor = ll.Constant(I64, floor)
    return b.select(b.icmp_signed("<", x, floor), floor, x)


def _at_most(b: ll.IRBuilder, x: ll.Value, ceiling: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed(">", x, ceiling), ceiling, x)


def _emit_chunked(b: ll.IRBuilder, kernel: ll.Function, args: list[ll.Value], split: Split,
                  settings: ll.Value) -> None:
    """Chunks of ``chunk_size`` points (at least one position of the split dim each), run by
    the caller and ``min(num_threads, chunks) - 1`` started threads, which are then joined."""
    module = b.module
    per_chunk = _at_least(b, _setting(b, settings, "chunk_size"), 1)
    extent = ll.Constant(I64, split.extent)
    chunks = _at_most(b, _at_least(b, b.sdiv(ll.Constant(I64, split.work), per_chunk), 1), extent)
    with b.goto_entry_block():
        context = b.alloca(I64, size=_ARGS + len(args))
        started = b.alloca(I64)
    for slot, value in enumerate([ll.Constant(I64, 0), chunks, extent, *args]):
        if isinstance(value.type, ll.PointerType):
            value = b.ptrtoint(value, I64)
        b.store(value, b.gep(context, [ll.Constant(I64, slot)], source_etype=I64))
    threads = _at_most(b, _at_least(b, _setting(b, settings, "num_threads"), 1), chunks)
    helpers = b.sub(threads, ll.Constant(I64, 1))
    handles = b.alloca(I64, size=_at_least(b, helpers, 1))
    b.store(ll.Constant(I64, 0), started)
    worker = _worker(module, kernel)
    create, join = _pthreads(module)

    def start(i):
        # Stop at the first failure, keeping the count of threads started.
        with b.if_then(b.icmp_signed("==", b.load(started, typ=I64), i)):
            handle = b.gep(handles, [i], source_etype=I64)
            failed = b.call(create, [handle, ll.Constant(PTR, None), worker, context])
            with b.if_then(b.icmp_signed("==", failed, ll.Constant(I32, 0))):
                b.store(b.add(i, ll.Constant(I64, 1)), started)

    emit_loop(b, helpers, start)
    b.call(worker, [context])
    emit_loop(b, b.load(started, typ=I64),
              lambda i: b.call(join, [b.load(b.gep(handles, [i], source_etype=I64), typ=I64),
                                      ll.Constant(PTR, None)]))


def _pthreads(module: ll.Module) -> tuple[ll.Function, ll.Function]:
    """``pthread_create`` and ``pthread_join``, declared once per module (a ``pthread_t`` is
    passed as an i64: an integer or a pointer, both one register in the C calling convention)."""
    def declare(name: str, params: list[ll.Type]) -> ll.Function:
        existing = module.globals.get(name)
        return existing if existing is not None else ll.Function(module, ll.FunctionType(I32, params), name)

    return declare("pthread_create", [PTR, PTR, PTR, PTR]), declare("pthread_join", [I64, PTR])


def _worker(module: ll.Module, kernel: ll.Function) -> ll.Function:
    """``ptr <kernel>_worker(ptr context)``: takes chunks from the context's counter and runs
    the kernel on each, until none is left. Chunk ``c`` of ``n`` over an extent ``e`` is
    ``[c*q + min(c, r), (c+1)*q + min(c+1, r))`` with ``q, r = divmod(e, n)``."""
    name = f"{kernel.name}_worker"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    fn = ll.Function(module, ll.FunctionType(PTR, [PTR]), name)
    fn.linkage = "internal"
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    context = fn.args[0]
    params = kernel.function_type.args[:-2]

    def slot(k: int) -> ll.Value:
        return b.load(b.gep(context, [ll.Constant(I64, k)], source_etype=I64), typ=I64)

    chunks, extent = slot(_CHUNKS), slot(_EXTENT)
    args = [b.inttoptr(slot(_ARGS + k), t) if isinstance(t, ll.PointerType) else slot(_ARGS + k)
            for k, t in enumerate(params)]
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
