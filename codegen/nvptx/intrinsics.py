"""The NVPTX intrinsics jitcore's GPU kernels use: thread and block ids, the block barrier, and
warp shuffles of values of any of the body's types (split into 32-bit words)."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, declare

I32 = ll.IntType(32)
SHARED = 3  # NVPTX's address space of a block's shared memory
FULL_MASK = ll.Constant(I32, -1)  # every lane of the warp takes part
LANE_CLAMP = ll.Constant(I32, 31)  # shfl's clamp for a whole warp


def special_register(b: ll.IRBuilder, name: str) -> ll.Value:
    """``%tid.x``, ``%ctaid.x``, ``%ntid.x`` or ``%nctaid.x`` (``name`` without the ``%``), as i64."""
    fn = declare(b.module, f"llvm.nvvm.read.ptx.sreg.{name}", I32, [])
    return b.zext(b.call(fn, []), I64)


def barrier(b: ll.IRBuilder) -> None:
    """``bar.sync 0``: every thread of the block waits here for the others."""
    b.call(declare(b.module, "llvm.nvvm.barrier0", ll.VoidType(), []), [])


def warp_barrier(b: ll.IRBuilder) -> None:
    """``bar.warp.sync -1``: the warp's lanes wait for each other, and see each other's writes."""
    b.call(declare(b.module, "llvm.nvvm.bar.warp.sync", ll.VoidType(), [I32]), [FULL_MASK])


def shuffle_down(b: ll.IRBuilder, value: ll.Value, offset: int) -> ll.Value:
    """``value`` of the lane ``offset`` above this one (``shfl.sync.down``); a lane with none
    above it gets its own. Any scalar type or struct of them (a complex number)."""
    t = value.type
    if isinstance(t, ll.LiteralStructType):
        for k in range(len(t.elements)):
            value = b.insert_value(value, shuffle_down(b, b.extract_value(value, k), offset), k)
        return value
    if isinstance(t, (ll.HalfType, ll.FloatType, ll.DoubleType)):
        width = {ll.HalfType: 16, ll.FloatType: 32, ll.DoubleType: 64}[type(t)]
        bits = shuffle_down(b, b.bitcast(value, ll.IntType(width)), offset)
        return b.bitcast(bits, t)
    width = t.width
    if width <= 32:
        word = value if width == 32 else b.zext(value, I32)
        moved = _shuffle_word(b, word, offset)
        return moved if width == 32 else b.trunc(moved, t)
    low = _shuffle_word(b, b.trunc(value, I32), offset)
    high = _shuffle_word(b, b.trunc(b.lshr(value, ll.Constant(t, 32)), I32), offset)
    return b.or_(b.zext(low, t), b.shl(b.zext(high, t), ll.Constant(t, 32)))


def _shuffle_word(b: ll.IRBuilder, word: ll.Value, offset: int) -> ll.Value:
    fn = declare(b.module, "llvm.nvvm.shfl.sync.down.i32", I32, [I32, I32, I32, I32])
    return b.call(fn, [FULL_MASK, word, ll.Constant(I32, offset), LANE_CLAMP])


def shared_array(module: ll.Module, name: str, element: ll.Type, count: int) -> ll.GlobalVariable:
    """A block's ``count`` slots of ``element`` in shared memory."""
    t = ll.ArrayType(element, count)
    g = ll.GlobalVariable(module, t, name, addrspace=SHARED)
    g.linkage = "internal"
    g.initializer = ll.Constant(t, None)
    return g
