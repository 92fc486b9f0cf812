"""The tiled GEMM's packing buffers, kept between calls instead of ``malloc``'d and freed by each.

A chunk of a tiled product packs panels of A and B into a few MiB of buffer (``tiled_gemm``'s
``_Gemm.run``). Taken from ``malloc`` and freed on every call, a buffer that large comes back
as fresh pages whenever the C library hands it to the OS on ``free`` (glibc: above its mmap
threshold, or when the heap's top is trimmed; macOS and musl: above a few hundred KiB), and the
kernel then zeroes each page on first touch: 992 page faults per 512^2 float64 product on the
development machine, which then took 1.9x as long as with the buffers kept (docs/performance.md,
"Matrix products: packing buffers kept").

So the buffers live in ``SLOTS`` process-wide slots, ``SLOTS`` int64 at the address the code
knows as ``SYMBOL`` (registered with LLVM when this module is imported, as the runtime's
settings are): each holds a buffer's address, or 0. A chunk takes a buffer by swapping a slot
with 0 (an atomic exchange, so two threads never get the same one), and one too small for it is
freed and replaced by a new one; with every slot empty it allocates. When it is done it puts its
buffer into the first empty slot (a compare-and-swap), or frees it if every slot is full. Each
buffer starts with its size in bytes (``HEADER`` bytes, so that the rest stays aligned).

What a buffer held before never matters: packing writes every value the micro-kernel reads
(the padding of a short panel is zeroed each time). The memory kept is at most ``SLOTS``
buffers, each of the largest size a chunk asked for (about 2.5 MiB for float32 and 5 MiB for
float64 products of 1024 columns or more), until ``release()``.
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR, declare

SLOTS = 4  # buffers kept: one per thread of a launch on hosts of up to 4 cores
SYMBOL = "jitcore_cpu_gemm_scratch"
HEADER = 64  # bytes before a buffer's usable part: its size, and the next cache line
BUFFERS = (ctypes.c_int64 * SLOTS)()
llvm.add_symbol(SYMBOL, ctypes.addressof(BUFFERS))


def _slots(module: ll.Module) -> ll.GlobalVariable:
    existing = module.globals.get(SYMBOL)
    if existing is not None:
        return existing
    slots = ll.GlobalVariable(module, ll.ArrayType(I64, SLOTS), SYMBOL)
    slots.linkage = "external"
    return slots


def take(b: ll.IRBuilder, size: ll.Value) -> ll.Value:
    """A buffer with at least ``size`` bytes after its ``HEADER`` (a ``ptr`` to the header;
    null if memory ran out): a kept one if a slot holds one big enough, else ``malloc``'s."""
    return b.call(_take(b.module), [size])


def give(b: ll.IRBuilder, buffer: ll.Value) -> None:
    """``buffer`` (``take``'s, or null) back into an empty slot, or freed if there is none."""
    b.call(_give(b.module), [buffer])


def _take(module: ll.Module) -> ll.Function:
    fn = _function(module, "jitcore_gemm_scratch_take", PTR, [I64])
    if fn.blocks:
        return fn
    size = fn.args[0]
    entry, loop, following, got, small, none, sized, done = (
        fn.append_basic_block(x) for x in ("entry", "slot", "next", "got", "small", "none", "sized", "done"))
    b = ll.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    n = b.phi(I64)
    n.add_incoming(ll.Constant(I64, 0), entry)
    taken = b.atomic_rmw("xchg", _slot(b, n), ll.Constant(I64, 0), "acq_rel")
    b.cbranch(b.icmp_unsigned("!=", taken, ll.Constant(I64, 0)), got, following)
    b.position_at_end(following)
    step = b.add(n, ll.Constant(I64, 1))
    n.add_incoming(step, following)
    b.cbranch(b.icmp_unsigned("<", step, ll.Constant(I64, SLOTS)), loop, none)
    b.position_at_end(got)
    kept = b.inttoptr(taken, PTR)
    b.cbranch(b.icmp_unsigned(">=", b.load(kept, typ=I64), size), done, small)
    b.position_at_end(small)  # too small for this product: a bigger one replaces it
    b.call(declare(module, "free", ll.VoidType(), [PTR]), [kept])
    b.branch(none)
    b.position_at_end(none)
    fresh = b.call(declare(module, "malloc", PTR, [I64]), [b.add(size, ll.Constant(I64, HEADER))])
    b.cbranch(b.icmp_unsigned("==", fresh, ll.Constant(PTR, None)), done, sized)
    b.position_at_end(sized)
    b.store(size, fresh)
    b.branch(done)
    b.position_at_end(done)
    buffer = b.phi(PTR)
    buffer.add_incoming(kept, got)
    buffer.add_incoming(fresh, none)
    buffer.add_incoming(fresh, sized)
    b.ret(buffer)
    return fn


def _give(module: ll.Module) -> ll.Function:
    fn = _function(module, "jitcore_gemm_scratch_give", ll.VoidType(), [PTR])
    if fn.blocks:
        return fn
    buffer = fn.args[0]
    entry, loop, following, full, out = (
        fn.append_basic_block(x) for x in ("entry", "slot", "next", "full", "out"))
    b = ll.IRBuilder(entry)
    b.cbranch(b.icmp_unsigned("==", buffer, ll.Constant(PTR, None)), out, loop)
    b.position_at_end(loop)
    n = b.phi(I64)
    n.add_incoming(ll.Constant(I64, 0), entry)
    pair = b.cmpxchg(_slot(b, n), ll.Constant(I64, 0), b.ptrtoint(buffer, I64), "acq_rel", "monotonic")
    b.cbranch(b.extract_value(pair, 1), out, following)
    b.position_at_end(following)
    step = b.add(n, ll.Constant(I64, 1))
    n.add_incoming(step, following)
    b.cbranch(b.icmp_unsigned("<", step, ll.Constant(I64, SLOTS)), loop, full)
    b.position_at_end(full)  # every slot holds one: this one goes back to the C library
    b.call(declare(module, "free", ll.VoidType(), [PTR]), [buffer])
    b.branch(out)
    b.position_at_end(out)
    b.ret_void()
    return fn


def _function(module: ll.Module, name: str, result: ll.Type, params: list[ll.Type]) -> ll.Function:
    fn = declare(module, name, result, params)
    fn.linkage = "internal"
    return fn


def _slot(b: ll.IRBuilder, n: ll.Value) -> ll.Value:
    slots = _slots(b.module)
    return b.gep(slots, [ll.Constant(I64, 0), n], source_etype=slots.value_type)


def release() -> None:
    """Free every kept buffer (none may be in use: call it when no product is running)."""
    free = ctypes.CDLL(None).free
    free.argtypes = [ctypes.c_void_p]
    for n in range(SLOTS):
        address, BUFFERS[n] = BUFFERS[n], 0
        if address:
            free(address)
