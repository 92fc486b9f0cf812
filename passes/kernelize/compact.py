"""The kernel form of ``array.compact``: one pass over the rows, each written at the running
count of kept rows, which grows by one where the row is kept.

The write is unconditional (no branch on the mask, which a random mask would mispredict half
the time): a dropped row lands at the slot the next kept row then overwrites, so slot ``j``
ends as the ``j``-th kept row and the rows after the count hold whatever was written last there
(``array.compact`` leaves them unspecified). The count never passes the row's own number, so
every write is in range. The pass is a scalar ``scf.for`` in a kernel with no iteration space
(docs/control-flow.md §5), a loop whose trip count is the mask's length: a run-time extent
where the function is size-generic, so other sizes reuse the code.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Region, Value
from jitcore.ir.dialects import array, kernel, scf
from jitcore.ir.types import i64, index
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.complex import ComplexEmitter


def _for(e: ComplexEmitter, ub: int, inits: list[Value], body) -> list[Value]:
    """``scf.for`` from 0 to ``ub`` by 1; ``body(e, iv, carried)`` returns the next carried."""
    block = Block((index, *(v.type for v in inits)))
    inner = ComplexEmitter(Builder(block))
    inner.b.create(scf.YieldOp, list(body(inner, block.args[0], list(block.args[1:]))))
    bounds = [e.const(0, index), e.const(ub, index), e.const(1, index)]
    return list(e.b.create(scf.ForOp, [*bounds, *inits], [v.type for v in inits], None,
                           [Region([block])]).results)


def compact(op: array.CompactOp) -> kernel.GenericOp:
    keep, *values = op.operands
    kb = KernelBuilder(0)
    mask = kb.indexed_input(keep)
    rows = kb.indexed_input(values[0]) if values else None
    row_shape = values[0].type.shape[1:] if values else ()

    def step(e, i, carried):
        (k,) = carried
        if rows is None:  # the row's own position
            _write(e, e.op("arith.bitcast", i, result=i64), [k])
        else:
            _copy_row(e, rows, op.result_type.element, i, k, row_shape)
        kept = _extract(e, mask, [i])
        return [e.op("arith.addi", k, e.select(kept, e.const(1, index), e.const(0, index)))]

    _for(kb.emit, keep.type.shape[0], [kb.emit.const(0, index)], step)
    generic = kb.finish(op, [op.result_type], [AffineMap(0, ())], [], [], domain=[],
                        indexed_results=[0])
    generic.attributes["fills"] = (0,)  # no copy: only the rows before the count are read
    return generic


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


RULES = {array.CompactOp: compact}
