"""Large scratch buffers from the heap, never the stack of the thread that runs a kernel.

Kernels keep working buffers as ``alloca``s in their entry block: a column reduction's tiles
of lanes and cascade levels (~1 MiB), a sort's rows. The thread that runs a kernel may be the
caller's, and a Python thread's stack can be small (``threading.stack_size``, musl's default,
embedders): 1 MiB of frame on a 256 KiB stack is a segfault. So once a module is emitted,
every function whose static entry-block allocas add up to more than ``STACK_LIMIT`` bytes gets
them as slices of one ``malloc`` instead, freed before each return. Should ``malloc`` fail,
the function falls back to one stack buffer of the same size (as before: the frame it had).

The bytes are counted in a layout-free way (vectors rounded up to a power of two), so the IR
text, and so the caches keyed on it, do not depend on the host.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I8, I64, PTR, declare

# Static allocas a function may keep on the stack (more: from the heap). A pool worker has
# 8 MiB (thread_pool.py); a caller's thread may have far less, down to Python's 32 KiB floor.
STACK_LIMIT = 64 * 1024
BUFFER_FROM = 1024  # what is moved: buffers, not the scalars LLVM keeps in registers
ALIGN = 64  # every slice starts on a cache line (aligned vector loads, no false sharing)


def move_large_scratch_to_heap(module: ll.Module) -> None:
    for fn in module.functions:
        if fn.blocks:
            _move(fn)


def _move(fn: ll.Function) -> None:
    entry = fn.blocks[0]
    sized = [(i, _size(i)) for i in entry.instructions if isinstance(i, ll.AllocaInstr)]
    sized = [(i, n) for i, n in sized if n is not None]
    if sum(n for _, n in sized) <= STACK_LIMIT:
        return
    moved = [(i, n) for i, n in sized if n >= BUFFER_FROM]  # scalars stay (mem2reg promotes them)
    offsets, total = [], 0
    for _, n in moved:
        offsets.append(total)
        total += -(-n // ALIGN) * ALIGN
    malloc = declare(fn.module, "malloc", PTR, [I64])
    free = declare(fn.module, "free", ll.VoidType(), [PTR])
    b = ll.IRBuilder(entry)
    b.position_before(entry.instructions[0])
    raw = b.call(malloc, [ll.Constant(I64, total + ALIGN)])
    failed = b.icmp_unsigned("==", raw, ll.Constant(PTR, None))
    # no memory: the frame the function had, in one dynamic alloca (zero bytes otherwise)
    spare = b.alloca(I8, size=b.select(failed, ll.Constant(I64, total + ALIGN), ll.Constant(I64, 0)))
    start = b.ptrtoint(b.select(failed, spare, raw), I64)
    base = b.inttoptr(b.and_(b.add(start, ll.Constant(I64, ALIGN - 1)), ll.Constant(I64, -ALIGN)), PTR)
    for (alloca, _), offset in zip(moved, offsets):
        # the alloca becomes its slice in place: every use already names it
        alloca.__class__ = _HeapSlice
        alloca.base, alloca.offset, alloca.operands = base, offset, ()
    for block in fn.blocks:
        if isinstance(block.terminator, ll.Ret):
            b.position_before(block.terminator)
            b.call(free, [raw])  # (free(NULL) does nothing)


class _HeapSlice(ll.AllocaInstr):
    """A moved alloca: the bytes at ``offset`` of the heap buffer ``base``."""

    def descr(self, buf):
        buf.append(f"getelementptr inbounds i8, ptr {self.base.get_reference()}, i64 {self.offset}\n")


def _size(alloca: ll.AllocaInstr) -> int | None:
    """The bytes of a static alloca; None for one sized at run time."""
    if not alloca.operands:
        return _bytes(alloca.allocated_type)
    count = alloca.operands[0]
    if isinstance(count, ll.Constant) and isinstance(count.constant, int):
        return _bytes(alloca.allocated_type) * count.constant
    return None


def _bytes(t: ll.Type) -> int:
    if isinstance(t, ll.IntType):
        return max(1, -(-t.width // 8))
    if isinstance(t, ll.HalfType):
        return 2
    if isinstance(t, ll.FloatType):
        return 4
    if isinstance(t, ll.DoubleType):
        return 8
    if isinstance(t, ll.PointerType):
        return 8
    if isinstance(t, ll.VectorType):
        raw = t.count * _bytes(t.element)
        return 1 << (raw - 1).bit_length()
    if isinstance(t, ll.ArrayType):
        return t.count * _bytes(t.element)
    if isinstance(t, ll.BaseStructType):
        return sum(-(-_bytes(e) // 8) * 8 for e in t.elements)  # padded generously
    raise TypeError(f"no size for {t}")

