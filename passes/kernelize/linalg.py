"""The kernel form of ``array.dot_general``.

A contraction is one ``kernel.generic`` whose body is ``acc + lhs * rhs`` (``or`` over ``and``
for bool, as NumPy's bool matmul), starting from 0. Its iteration dims are, in loop order::

    [batch..., lhs free..., contracting..., rhs free...]

The code generator nests loops in iteration-dim order and keeps reduction accumulators in the
result buffer, so this order makes the innermost loop run along the rhs free dims: the result
and the rhs are read and written with unit stride and the loop is parallel, which LLVM
vectorizes without reassociating float sums. Each result element still sums its products in
contracting-index order, exactly as the textbook order ``[..., rhs free, contracting]`` would.
The fusion pass decides separately whether producers of the operands are inlined (a cheap
elementwise producer is, see its docstring), except into a float contraction, which a code
generator may run as a library call (``is_float_contraction``).
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.dialects import kernel
from jitcore.ir.dialects.array import DotGeneralOp
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.scalar import reduction_init


def dot_general(op: DotGeneralOp) -> kernel.GenericOp:
    lhs, rhs = op.operands
    out_type = op.result_type
    batch, lhs_free, rhs_free = len(op.lhs_batch), len(op.lhs_free), len(op.rhs_free)
    contracting = len(op.lhs_contracting)
    # Iteration dim of each group's entries, in loop order.
    batch_dims = list(range(batch))
    lhs_free_dims = list(range(batch, batch + lhs_free))
    contracting_dims = list(range(batch + lhs_free, batch + lhs_free + contracting))
    rhs_free_dims = list(range(batch + lhs_free + contracting, batch + lhs_free + contracting + rhs_free))
    num_dims = batch + lhs_free + contracting + rhs_free

    def operand_map(rank, batch_axes, contracting_axes, free_axes, free_iteration_dims):
        dims = [0] * rank
        for axes, iteration in ((batch_axes, batch_dims), (contracting_axes, contracting_dims),
                                (free_axes, free_iteration_dims)):
            for axis, d in zip(axes, iteration):
                dims[axis] = d
        return AffineMap.from_dims(num_dims, dims)

    lhs_map = operand_map(lhs.type.rank, op.lhs_batch, op.lhs_contracting, op.lhs_free, lhs_free_dims)
    rhs_map = operand_map(rhs.type.rank, op.rhs_batch, op.rhs_contracting, op.rhs_free, rhs_free_dims)
    out_map = AffineMap.from_dims(num_dims, batch_dims + lhs_free_dims + rhs_free_dims)
    iterators = ["parallel"] * num_dims
    for d in contracting_dims:
        iterators[d] = "reduction"

    kb = KernelBuilder(num_dims)
    a = kb.input(lhs, lhs_map)
    b = kb.input(rhs, rhs_map)
    t = out_type.element
    product = kb.emit.elementwise("mul", [a, b])
    if not contracting:  # an outer or elementwise product: no accumulator
        return kb.finish(op, [out_type], [out_map], iterators, [product])
    acc = kb.body.add_arg(t)
    value = kb.emit.combine("sum", acc, product)
    return kb.finish(op, [out_type], [out_map], iterators, [value],
                     inits=[reduction_init("sum", t)], accumulators=[acc])


def is_float_contraction(op: kernel.GenericOp) -> bool:
    """Whether ``op`` is a float contraction as ``dot_general`` makes it: two inputs and the body
    ``acc + x * y``. A code generator may hand such a kernel whole to a tuned library (BLAS, see
    ``codegen/contraction.py``), so ``fuse`` does not recompute a producer per column inside
    it (its cheap-producer rule): it inlines only producers that compute nothing (transposes,
    slices, broadcasts: they become its maps) or that it reads once."""
    ops = op.body.ops
    return (len(op.operands) == 2 and len(op.results) == 1 and op.has_reduction and op.epilogue is None
            and op.results[0].type.element.is_float and len(ops) == 3
            and (ops[0].op_name, ops[1].op_name) == ("arith.mulf", "arith.addf"))


RULES = {DotGeneralOp: dot_general}
