"""Kernel forms of the elementwise ops (unary, binary, compare, ``select``, ``convert``,
``bitcast``, ``complex``) and of ``array.reduce``.

An elementwise op is one kernel whose operands and result all use the identity map, with the
op's scalar meaning (``scalar.py``, ``complex.py``) as its body. A reduction iterates over its
operand's dims, the reduced ones as ``reduction`` iterators, and combines an accumulator that
starts at the kind's identity with each element.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.dialects import array, kernel
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.scalar import reduction_init


def _parallel(kb: KernelBuilder, op, value) -> kernel.GenericOp:
    rank = op.result_type.rank
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], ["parallel"] * rank, [value])


def elementwise(op: array.ElementwiseOp) -> kernel.GenericOp:
    kb = KernelBuilder(op.result_type.rank)
    args = [kb.input(v, AffineMap.identity(op.result_type.rank)) for v in op.operands]
    if op.attributes.get("libm"):  # a scalar power: C's pow itself (array.PowOp)
        return _parallel(kb, op, kb.emit.op("math.powf", *args, libm=True))
    return _parallel(kb, op, kb.emit.elementwise(op.kind, args))


def select(op: array.SelectOp) -> kernel.GenericOp:
    kb = KernelBuilder(op.result_type.rank)
    args = [kb.input(v, AffineMap.identity(op.result_type.rank)) for v in op.operands]
    if op.attributes.get("runs"):  # the terms of a sum(where=), which sums their runs
        runs = op.attributes["runs"]  # True, or "f16": the total rounded to float16 after each
        return _parallel(kb, op, kb.emit.op("arith.select", *args, result=args[1].type, runs=runs))
    return _parallel(kb, op, kb.emit.select(*args))


def convert(op: array.ConvertOp) -> kernel.GenericOp:
    kb = KernelBuilder(op.result_type.rank)
    x = kb.input(op.operands[0], AffineMap.identity(op.result_type.rank))
    return _parallel(kb, op, kb.emit.convert(x, op.result_type.element))


def bitcast(op: array.BitcastOp) -> kernel.GenericOp:
    kb = KernelBuilder(op.result_type.rank)
    x = kb.input(op.operands[0], AffineMap.identity(op.result_type.rank))
    return _parallel(kb, op, kb.emit.op("arith.bitcast", x, result=op.result_type.element))


def complex_from_parts(op: array.ComplexOp) -> kernel.GenericOp:
    kb = KernelBuilder(op.result_type.rank)
    re, im = (kb.input(v, AffineMap.identity(op.result_type.rank)) for v in op.operands)
    return _parallel(kb, op, kb.emit.make_complex(re, im))


def reduce(op: array.ReduceOp) -> kernel.GenericOp:
    out_type = op.result_type
    src = op.operands[0].type
    kb = KernelBuilder(src.rank)
    x = kb.input(op.operands[0], AffineMap.identity(src.rank))
    init = reduction_init(op.kind, out_type.element)
    if not op.axes:  # each element combined with the identity once: 0.0 + -0.0 is 0.0
        value = kb.emit.combine(op.kind, kb.emit.const(init.value, init.type), x)
        return kb.finish(op, [out_type], [AffineMap.identity(src.rank)], ["parallel"] * src.rank, [value])
    acc = kb.body.add_arg(out_type.element)
    value = kb.emit.combine(op.kind, acc, x)
    kept = [d for d in range(src.rank) if d not in op.axes]
    iterators = ["reduction" if d in op.axes else "parallel" for d in range(src.rank)]
    return kb.finish(op, [out_type], [AffineMap.from_dims(src.rank, kept)], iterators, [value],
                     inits=[init], accumulators=[acc], domain=src.shape)  # (a splat x is no operand)


def raise_if(op: array.RaiseIfOp) -> kernel.GenericOp:
    """A 0-d kernel whose body raises where its condition holds (recording its status words),
    and yields the condition."""
    kb = KernelBuilder(0)
    cond, *words = (kb.input(v, AffineMap.identity(0)) for v in op.operands)
    kb.emit.b.create(kernel.RaiseOp, [cond, *words], [], {"code": op.code})
    return _parallel(kb, op, cond)


RULES = {
    array.ElementwiseOp: elementwise,
    array.RaiseIfOp: raise_if,
    array.SelectOp: select,
    array.ConvertOp: convert,
    array.BitcastOp: bitcast,
    array.ComplexOp: complex_from_parts,
    array.ReduceOp: reduce,
}
