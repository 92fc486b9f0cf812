"""``array.gather`` as an LLVM function: a loop over the result reading ``x`` at the index
loaded from ``indices``. An index out of range is not read: it is recorded in the status words
(``codegen/indexed.py``), which the caller turns into NumPy's ``IndexError``."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.indexed import IndexedEmitter
from jitcore.codegen.llvm_types import I64, constant, memory_type
from jitcore.codegen.loops import emit_nest, extents
from jitcore.ir.dialects.array import GatherOp

_X, _INDICES, _OUT = 0, 1, 2  # the arrays of the function, in order


def emit_gather(module: ll.Module, name: str, op: GatherOp, strided: list[bool]) -> ll.Function:
    """``void name(x, indices, out, status, [x strides], [indices strides])``."""
    e = IndexedEmitter(module, name, op, strided)
    b = e.b
    x, indices = op.operands
    out = op.result
    axis, n = op.axis, x.type.shape[op.axis]
    elem = memory_type(x.type.element)

    def body(ivs):
        k = indices.type.rank
        i = b.load(e.address(_INDICES, ivs[axis: axis + k], I64), typ=I64)
        bad, wrapped = e.check_index(i, axis, n)
        if n == 0:
            value = constant(x.type.element, 0, memory=True)  # nothing to read: the status has the error
        else:
            safe = b.select(bad, ll.Constant(I64, 0), wrapped)
            at = [*ivs[:axis], safe, *ivs[axis + k:]]
            value = b.load(e.address(_X, at, elem), typ=elem)
        b.store(value, e.address(_OUT, ivs, elem))

    if out.type.size == 0 and indices.type.size:
        # No element to gather (another dim of x is 0), but NumPy checks every index all the same.
        emit_nest(b, extents(indices.type.shape), lambda ivs: e.check_index(
            b.load(e.address(_INDICES, ivs, I64), typ=I64), axis, n))
    else:
        emit_nest(b, extents(out.type.shape), body)
    b.ret_void()
    return e.fn
