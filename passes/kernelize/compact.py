"""The kernel form of ``array.compact``: one pass over the rows, each kept one written at the
running count of kept rows before it, NumPy's ``nonzero`` loops.

The write is unconditional (no branch on the mask, which a random mask would mispredict half
the time): a dropped row lands at the slot the next kept row then overwrites, so slot ``j``
ends as the ``j``-th kept row and the rows after the count hold whatever was written last
there (``array.compact`` leaves them unspecified); the count never passes the row's own
number, so every write is in range. The loop is marked ``compaction``, which says both: a
target may then store whole vector groups at the count (``codegen/compress.py``, on
AVX-512). Nothing kept (the count is the op's operand), no loop. Until maskedsum48 a mask
with fewer than one kept row in 16 took a loop that branched on each row and stopped at the
last kept one; it measured 3x slower than the vector groups at 1% kept, and slower than this
scalar loop too, so it went. The pass is a scalar ``scf.for`` in a kernel with no iteration
space (docs/control-flow.md §5), a loop whose trip count is the mask's length: a run-time
extent where the function is size-generic, so other sizes reuse the code.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap, ScalarAttr
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Region, Value
from jitcore.ir.dialects import array, kernel, scf
from jitcore.ir.types import i1, i64, index
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.complex import ComplexEmitter
from jitcore.passes.kernelize.scalar import reduction_init


def _for(e: ComplexEmitter, ub: int, inits: list[Value], body, attributes=None) -> list[Value]:
    """``scf.for`` from 0 to ``ub`` by 1; ``body(e, iv, carried)`` returns the next carried."""
    block = Block((index, *(v.type for v in inits)))
    inner = ComplexEmitter(Builder(block))
    inner.b.create(scf.YieldOp, list(body(inner, block.args[0], list(block.args[1:]))))
    bounds = [e.const(0, index), e.const(ub, index), e.const(1, index)]
    return list(e.b.create(scf.ForOp, [*bounds, *inits], [v.type for v in inits], attributes,
                           [Region([block])]).results)


def compact(op: array.CompactOp) -> kernel.GenericOp:
    keep, count, *values = op.operands
    n = keep.type.shape[0]
    kb = KernelBuilder(0)
    mask = kb.indexed_input(keep)
    kept_rows = kb.input(count, AffineMap(0, ()))
    rows = kb.indexed_input(values[0]) if values else None
    row_shape = values[0].type.shape[1:] if values else ()

    def write(e, i, k):
        if rows is None:  # the row's own position
            _write(e, e.op("arith.bitcast", i, result=i64), [k])
        else:
            _copy_row(e, rows, op.result_type.element, i, k, row_shape)

    def dense(e):
        def step(e, i, carried):
            (k,) = carried
            write(e, i, k)
            kept = _extract(e, mask, [i])
            return [e.op("arith.addi", k, e.select(kept, e.const(1, index), e.const(0, index)))]
        # the count never passes the position: a target may store whole vector groups at it
        _for(e, n, [e.const(0, index)], step, {"compaction": True})

    e = kb.emit
    _if(e, e.op("arith.cmpi", kept_rows, e.const(0, i64), result=i1, predicate="sgt"), dense)
    generic = kb.finish(op, [op.result_type], [AffineMap(0, ())], [], [], domain=[],
                        indexed_results=[0])
    generic.attributes["fills"] = (0,)  # no copy: only the rows before the count are read
    return generic


def _if(e: ComplexEmitter, cond: Value, then_body, else_body=None) -> None:
    """``scf.if`` without results; each body is ``body(e)`` emitting into its branch."""
    op = e.b.create(scf.IfOp, [cond], [], None, [Region([Block(())]), Region([Block(())])])
    for region, body in zip(op.regions, (then_body, else_body)):
        inner = ComplexEmitter(Builder(region.block))
        if body is not None:
            body(inner)
        inner.b.create(scf.YieldOp, [])


def _extract(e: ComplexEmitter, tensor: Value, positions) -> Value:
    return e.b.create(kernel.ExtractOp, [tensor, *positions], [tensor.type.element]).result


def _write(e: ComplexEmitter, value: Value, positions) -> None:
    e.b.create(kernel.InsertOp, [value, *positions], [], {"result": 0, "mode": "set"})


def _copy_row(e: ComplexEmitter, rows: Value, element, i: Value, k: Value, row_shape) -> None:
    """Write row ``i`` of the indexed input ``rows`` at row ``k`` of result 0, element by
    element (a loop per trailing dim)."""

    def at(e, inner):
        if len(inner) < len(row_shape):
            _for(e, row_shape[len(inner)], [], lambda e, j, _: at(e, [*inner, j]) or [])
        else:
            _write(e, _extract(e, rows, [i, *inner]), [k, *inner])

    at(e, [])


def head_sum(op: array.HeadSumOp) -> kernel.GenericOp:
    """A sum over all of ``values`` whose terms from position ``count`` on are the identity
    (``-0.0``, which adds exactly): a masked row whose window ends at the run-time ``count``
    (``codegen/masked_rows.py``), which the code generator sums over the window alone, in
    NumPy's order over ``count``, without reading what follows it."""
    values, count = op.operands
    kb = KernelBuilder(1)
    x = kb.input(values, AffineMap.identity(1))
    kept_terms = kb.input(count, AffineMap(1, ()))
    e = kb.emit
    position = e.op("arith.bitcast", kb.index(0), result=i64)
    kept = e.op("arith.cmpi", position, kept_terms, result=i1, predicate="slt")
    acc = kb.body.add_arg(op.result_type.element)
    term = e.select(kept, x, e.const(-0.0, op.result_type.element))
    total = e.combine("sum", acc, term)
    return kb.finish(op, [op.result_type], [AffineMap(1, ())], [kernel.REDUCTION], [total],
                     inits=[reduction_init("sum", op.result_type.element)], accumulators=[acc])


def window_sum(op: array.WindowSumOp) -> kernel.GenericOp:
    """Each column of ``values`` (a position of its other dims) summed over the rows
    ``start <= d < end``, the terms outside the identity (``-0.0``): the window's dim is the
    innermost, reduced, read through the map, so the row of a column is a masked row read over
    its window alone, in NumPy's pairwise order over the window (``codegen/masked_rows.py``),
    with no transposed copy. It starts from ``-0.0``, not the sum's ``0.0``, so an empty window
    or one of ``-0.0`` terms stays ``-0.0``, as NumPy's ``pairwise_sum`` of it does (integers:
    from 0, in lanes)."""
    values, start, end = op.operands
    rank = values.type.rank
    kb = KernelBuilder(rank)
    x = kb.input(values, AffineMap.from_dims(rank, (rank - 1, *range(rank - 1))))
    first = kb.input(start, AffineMap(rank, ()))
    past = kb.input(end, AffineMap(rank, ()))
    e = kb.emit
    position = e.op("arith.bitcast", kb.index(rank - 1), result=i64)
    kept = e.op("arith.andi", e.op("arith.cmpi", position, first, result=i1, predicate="sge"),
                e.op("arith.cmpi", position, past, result=i1, predicate="slt"), result=i1)
    element = op.result_type.element
    zero = -0.0 if element.is_float else 0
    acc = kb.body.add_arg(element)
    total = e.combine("sum", acc, e.select(kept, x, e.const(zero, element)))
    out_map = AffineMap.from_dims(rank, range(rank - 1))
    return kb.finish(op, [op.result_type], [out_map], [kernel.PARALLEL] * (rank - 1) + [kernel.REDUCTION],
                     [total], inits=[ScalarAttr(zero, element)], accumulators=[acc])


RULES = {array.CompactOp: compact, array.HeadSumOp: head_sum, array.WindowSumOp: window_sum}
