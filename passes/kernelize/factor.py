"""The kernel form of ``array.det``: an LU factorisation per matrix in scalar loops.

One ``kernel.generic`` over the batch dims; its body factors one matrix in place in an indexed
result (its second, a copy of the input) with partial pivoting, as LAPACK's unblocked ``getf2`` does (the
pivot is the first largest magnitude below the diagonal, so NaN never wins over a number), and
yields NumPy's ``sign * exp(sum(log|u_ii|))``, the sign flipped per row swap and per negative
pivot; an exactly zero pivot makes the sign, and so the determinant, 0.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Block, Region, Value
from jitcore.ir.dialects import array, kernel, scf
from jitcore.ir.types import i1, index
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.sort import _emitter, _for


def det(op: array.DetOp) -> kernel.GenericOp:
    a = op.operands[0]
    batch, n = a.type.rank - 2, a.type.shape[-1]
    t = a.type.element
    kb = KernelBuilder(batch)
    kb.indexed_input(a)
    outer = [kb.index(d) for d in range(batch)]

    def read(e, i: Value, j: Value) -> Value:
        return e.b.create(kernel.ExtractResultOp, [*outer, i, j], [t], {"result": 1}).results[0]

    def write(e, i: Value, j: Value, v: Value) -> None:
        e.b.create(kernel.InsertOp, [v, *outer, i, j], [], {"result": 1, "mode": "set"})

    def idx(e, v: int) -> Value:
        return e.const(v, index)

    def column(e, k, carried):
        (sign,) = carried
        kp1 = e.op("arith.addi", k, idx(e, 1))

        def largest(e, i, carried):
            p, m = carried
            v = e.elementwise("abs", [read(e, i, k)])
            bigger = e.op("arith.cmpf", v, m, result=i1, predicate="ogt")
            return [e.select(bigger, i, p), e.select(bigger, v, m)]

        p, _ = _for(e, kp1, idx(e, n), idx(e, 1), [k, e.elementwise("abs", [read(e, k, k)])], largest)
        swapped = e.op("arith.cmpi", p, k, result=i1, predicate="ne")
        if_op = e.b.create(scf.IfOp, [swapped], [], None, [Region([Block(())]), Region([Block(())])])
        then, other = _emitter(if_op.regions[0].block), _emitter(if_op.regions[1].block)

        def swap(e, j, _):
            top, low = read(e, k, j), read(e, p, j)
            write(e, k, j, low)
            write(e, p, j, top)
            return []

        _for(then, idx(then, 0), idx(then, n), idx(then, 1), [], swap)
        then.b.create(scf.YieldOp, [])
        other.b.create(scf.YieldOp, [])
        sign = e.select(swapped, e.op("arith.negf", sign), sign)
        pivot = read(e, k, k)

        def eliminate(e, i, _):
            factor = e.op("arith.divf", read(e, i, k), pivot)
            write(e, i, k, factor)

            def update(e, j, _):
                write(e, i, j, e.op("arith.subf", read(e, i, j), e.op("arith.mulf", factor, read(e, k, j))))
                return []

            _for(e, kp1, idx(e, n), idx(e, 1), [], update)
            return []

        nonzero = e.op("arith.cmpf", pivot, e.const(0.0, t), result=i1, predicate="une")
        go = e.b.create(scf.IfOp, [nonzero], [], None, [Region([Block(())]), Region([Block(())])])
        yes, no = _emitter(go.regions[0].block), _emitter(go.regions[1].block)
        _for(yes, yes.op("arith.addi", k, idx(yes, 1)), idx(yes, n), idx(yes, 1), [], eliminate)
        yes.b.create(scf.YieldOp, [])
        no.b.create(scf.YieldOp, [])
        return [sign]

    e = kb.emit
    (sign,) = _for(e, idx(e, 0), idx(e, n), idx(e, 1), [e.const(1.0, t)], column)

    def diagonal(e, k, carried):
        sign, logdet = carried
        d = read(e, k, k)
        negative = e.op("arith.cmpf", d, e.const(0.0, t), result=i1, predicate="olt")
        zero = e.op("arith.cmpf", d, e.const(0.0, t), result=i1, predicate="oeq")
        sign = e.select(negative, e.op("arith.negf", sign), sign)
        sign = e.select(zero, e.const(0.0, t), sign)
        return [sign, e.op("arith.addf", logdet, e.elementwise("log", [e.elementwise("abs", [d])]))]

    sign, logdet = _for(e, idx(e, 0), idx(e, n), idx(e, 1), [sign, e.const(0.0, t)], diagonal)
    value = e.op("arith.mulf", sign, e.elementwise("exp", [logdet]))
    ident = AffineMap.identity(batch)
    return kb.finish(op, [op.result_type, a.type], [ident, AffineMap(batch, ())], ["parallel"] * batch,
                     [value], domain=list(a.type.shape[:-2]), copy_inputs=[-1, 0], indexed_results=[1])


RULES = {array.DetOp: det}
