"""Kernel forms of ``array.argreduce``, ``array.scan`` and ``array.diagonal``.

An argreduce is one reduction kernel with two results, the best value so far and its index,
starting from the kind's identity (-inf for argmax of floats, -inf - infj for complex numbers,
the type's minimum for integers, False for bool) and index 0. At each position along the axis
the body takes the element when it is strictly better than the best so far (complex numbers in
NumPy's lexicographic order), or when it is the first NaN (a NaN in either part of a complex
number): a later equal element never
replaces an earlier one (NumPy's first occurrence on ties), and once the best is NaN nothing
replaces it (NumPy's first NaN). Its position comes from ``kernel.index``. An axis of only the
identity value (say all -inf) keeps index 0, which is NumPy's answer too.

A scan is one kernel with a ``scan`` iterator along the axis, whose body combines the
accumulator with the element. It starts from the kind's identity, -0.0 for float sums so that
a leading -0.0 stays -0.0 as in NumPy.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr, AffineMap, ScalarAttr
from jitcore.ir.core import Value
from jitcore.ir.dialects import kernel
from jitcore.ir.dialects.array import ArgReduceOp, DiagonalOp, ScanOp
from jitcore.ir.types import ScalarType, i1, i64, index
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.complex import ComplexEmitter
from jitcore.passes.kernelize.scalar import reduction_init


def _better(emit: ComplexEmitter, kind: str, x: Value, best: Value) -> Value:
    """i1: ``x`` replaces ``best``: strictly beyond it, or NaN while ``best`` is not. Complex
    numbers go by NumPy's lexicographic order, a NaN in either part counting as NaN."""
    if x.type.is_complex:
        xs, bs = emit.parts(x), emit.parts(best)
        beyond = emit.complex_elementwise("gt" if kind == "max" else "lt", [x, best])
        beyond = emit.op("arith.ori", beyond, emit.has_nan(xs))
        return emit.op("arith.andi", beyond, emit.op("arith.xori", emit.has_nan(bs),
                                                     emit.const(True, i1)))
    if not x.type.is_float:
        return emit.cmp("gt" if kind == "max" else "lt", x, best)
    # ugt/ult also hold when x is NaN; ord(best, best) when best is not NaN.
    beyond = emit.op("arith.cmpf", x, best, result=i1, predicate="ugt" if kind == "max" else "ult")
    return emit.op("arith.andi", beyond, emit.op("arith.cmpf", best, best, result=i1, predicate="ord"))


def argreduce(op: ArgReduceOp) -> kernel.GenericOp:
    """The kernel's first result, the index, replaces the op's; the second is the best value."""
    x = op.operands[0]
    rank, axis, t = x.type.rank, op.axis, x.type.element
    kb = KernelBuilder(rank)
    value = kb.input(x, AffineMap.identity(rank))
    best_index = kb.body.add_arg(i64)
    best = kb.body.add_arg(t)
    emit = kb.emit
    take = _better(emit, op.kind, value, best)
    position = emit.convert(kb.index(axis), i64)
    kept = [d for d in range(rank) if d != axis]
    out_map = AffineMap.from_dims(rank, kept)
    iterators = [kernel.REDUCTION if d == axis else kernel.PARALLEL for d in range(rank)]
    return kb.finish(op, [op.result_type, op.result_type.with_element(t)], [out_map, out_map], iterators,
                    [emit.select(take, position, best_index), emit.select(take, value, best)],
                    inits=[ScalarAttr(0, i64), reduction_init(op.kind, t)],
                    accumulators=[best_index, best])


def scan_init(kind: str, t: ScalarType) -> ScalarAttr:
    """Where a scan starts: the kind's identity, exact for every first element (-0.0 included)."""
    if kind == "sum" and (t.is_float or t.is_complex):
        return ScalarAttr(complex(-0.0, -0.0) if t.is_complex else -0.0, t)
    return reduction_init(kind, t)


def scan(op: ScanOp) -> kernel.GenericOp:
    x = op.operands[0]
    rank, t = x.type.rank, x.type.element
    kb = KernelBuilder(rank)
    value = kb.input(x, AffineMap.identity(rank))
    acc = kb.body.add_arg(t)
    iterators = [kernel.SCAN if d == op.axis else kernel.PARALLEL for d in range(rank)]
    out = kb.emit.combine(op.kind, acc, value)
    if t.is_complex and op.kind == "prod":  # (1 + 0j) * x is not x where a part is inf: copy it
        first = kb.emit.cmp("eq", kb.index(op.axis), kb.emit.const(0, index))
        out = kb.emit.select(first, value, out)
    return kb.finish(op, [x.type], [AffineMap.identity(rank)], iterators, [out],
                     inits=[scan_init(op.kind, t)], accumulators=[acc])


def diagonal(op: DiagonalOp) -> kernel.GenericOp:
    """A diagonal reads the operand through a map that repeats a domain dim."""
    rank = op.result_type.rank
    kb = KernelBuilder(rank)
    value = kb.input(op.operands[0], AffineMap(rank, tuple(AffineExpr(d, 1, 0) for d in op.dims)))
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank, [value])


RULES = {ArgReduceOp: argreduce, ScanOp: scan, DiagonalOp: diagonal}
