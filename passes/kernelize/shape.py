"""Kernel forms of the data-movement ops: broadcast_in_dim, transpose, slice, pad, concatenate
and update_slice; and of iota, a kernel of no operands whose body is its position.

Broadcasts and transposes are indexing maps with empty bodies, so they cost nothing once fused
(a broadcast size-1 axis is read at index 0, a transpose through the inverse permutation).
A slice is just an indexing map (``d * stride + start``), so it fuses like a transpose. Pad and
concatenate read their inputs with clamped indices and ``select`` by iteration position
(``kernel.index``); a cheap producer of such an input (a slice: ``np.roll``, ``np.concatenate([x[3:],
x[:3]])``) is inlined with its reads clamped, a costlier one materialised (fuse.py explains why).
An update_slice iterates over the slice only; its result starts as a copy of the array.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr, AffineMap
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import i1
from jitcore.ir.types import index as index_type
from jitcore.passes.kernelize.builder import KernelBuilder


def _shift_map(rank: int, axis_offsets: dict[int, int]) -> AffineMap:
    """Identity, except dim ``k`` reads at ``d_k + axis_offsets[k]``."""
    return AffineMap(rank, tuple(AffineExpr(k, 1, axis_offsets.get(k, 0)) for k in range(rank)))


def _parallel(kb: KernelBuilder, op, value) -> kernel.GenericOp:
    rank = op.result_type.rank
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], ["parallel"] * rank, [value])


def broadcast_in_dim(op: array.BroadcastInDimOp) -> kernel.GenericOp:
    src, out_type = op.operands[0].type, op.result_type
    dims = [None if src.shape[i] == 1 and out_type.shape[d] != 1 else d
            for i, d in enumerate(op.broadcast_dimensions)]
    kb = KernelBuilder(out_type.rank)
    return _parallel(kb, op, kb.input(op.operands[0], AffineMap.from_dims(out_type.rank, dims)))


def transpose(op: array.TransposeOp) -> kernel.GenericOp:
    src, rank = op.operands[0].type, op.result_type.rank
    dims = [op.permutation.index(axis) for axis in range(src.rank)]
    kb = KernelBuilder(rank)
    return _parallel(kb, op, kb.input(op.operands[0], AffineMap.from_dims(rank, dims)))


def slice_(op: array.SliceOp) -> kernel.GenericOp:
    rank = op.result_type.rank
    kb = KernelBuilder(rank)
    amap = AffineMap(rank, tuple(AffineExpr(k, s, b) for k, (b, s) in enumerate(zip(op.start, op.stride))))
    return _parallel(kb, op, kb.input(op.operands[0], amap))


def _within(kb: KernelBuilder, dim: int, low: int, high: int):
    """i1: low <= position along ``dim`` < high."""
    pos = kb.index(dim)
    emit = kb.emit
    above = emit.op("arith.cmpi", pos, emit.const(low, index_type), result=i1, predicate="sge")
    below = emit.op("arith.cmpi", pos, emit.const(high, index_type), result=i1, predicate="slt")
    return emit.op("arith.andi", above, below)


def pad(op: array.PadOp) -> kernel.GenericOp:
    x, fill = op.operands
    rank = op.result_type.rank
    low, high = op.low, op.high
    kb = KernelBuilder(rank)
    value = kb.input(x, _shift_map(rank, {k: -lo for k, lo in enumerate(low) if lo}), clamped=True)
    pad_value = kb.input(fill, AffineMap(rank, ()))
    inside = None
    for k, (lo, hi) in enumerate(zip(low, high)):
        if lo or hi:
            cond = _within(kb, k, lo, lo + x.type.shape[k])
            inside = cond if inside is None else kb.emit.op("arith.andi", inside, cond)
    if inside is not None:
        value = kb.emit.select(inside, value, pad_value)
    return _parallel(kb, op, value)


def concatenate(op: array.ConcatenateOp) -> kernel.GenericOp:
    rank, axis = op.result_type.rank, op.axis
    kb = KernelBuilder(rank)
    pieces, start = [], 0
    for v in op.operands:
        size = v.type.shape[axis]
        if size:
            pieces.append((start, size, kb.input(v, _shift_map(rank, {axis: -start}), clamped=True)))
        start += size
    value = pieces[-1][2] if pieces else kb.emit.const(0, op.result_type.element)
    for begin, size, piece in reversed(pieces[:-1]):
        value = kb.emit.select(_within(kb, axis, begin, begin + size), piece, value)
    return _parallel(kb, op, value)


def update_slice(op: array.UpdateSliceOp) -> kernel.GenericOp:
    x, update = op.operands
    rank = x.type.rank
    kb = KernelBuilder(rank)
    region = AffineMap(rank, tuple(AffineExpr(k, s, b) for k, (b, s) in enumerate(zip(op.start, op.stride))))
    kb.input(x, region, copy_source=True)
    value = kb.input(update, AffineMap.identity(rank))
    return kb.finish(op, [x.type], [region], ["parallel"] * rank, [value],
                     domain=update.type.shape, copy_inputs=[0])


def iota(op: array.IotaOp) -> kernel.GenericOp:
    kb = KernelBuilder(op.result_type.rank)
    return _parallel(kb, op, kb.emit.convert(kb.index(op.dimension), op.result_type.element))


RULES = {
    array.IotaOp: iota,
    array.BroadcastInDimOp: broadcast_in_dim,
    array.TransposeOp: transpose,
    array.SliceOp: slice_,
    array.PadOp: pad,
    array.ConcatenateOp: concatenate,
    array.UpdateSliceOp: update_slice,
}
