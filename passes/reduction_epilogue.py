"""Reduction epilogues for ``fuse``: a reduction and the elementwise kernel that maps its result
as one kernel.

``np.sqrt(np.sum(d * d, -1))``, ``np.exp(x.max(1))``, ``x.sum(1) / n`` (a mean) leave the
fusion search as two kernels: the reduction, whose result ``fuse`` never inlines into a
consumer (it would be recomputed per use), and an elementwise kernel reading that result. The
second kernel is one more pass over the result and one more buffer. Here it becomes the
reduction's ``epilogue`` region (``ir/dialects/kernel.py``): applied once per output element,
after the code generator has combined that element's row or column, to the reduced value in
the result's buffer. The reduction itself is untouched (same body, same order of its
combination), so the fused kernel gives the two kernels' bits.

Fused where:

- the reduction is a plain one with one result: not a scan, no indexed or copied operand,
  not run in order, and not a float contraction (BLAS and the tiled GEMM take no epilogue;
  ``passes/gemm_epilogue.py`` fuses those);
- the consumer is that result's only reader (maybe through a reshape that adds or drops axes
  of extent 1, as ``keepdims`` does), elementwise (parallel dims only, nothing indexed,
  clamped or copied, no ``kernel.index``, no scalar loops), reads it at its own positions (an
  identity map over the whole result), and has one result of the reduction's element type
  (the buffer holds the accumulator first; a sum of integers cast to float stays two kernels);
- each other operand of the consumer (an array broadcast along the kept dims, a 0-d scalar)
  becomes an input of the fused kernel, read through its map composed with the reduction's
  result map, so it uses parallel dims only: the body does not read it, the epilogue does.

``fuse{reduction-epilogue=false}`` keeps the two kernels (the tests compare the bits).
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr, AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, BlockArgument, Operation, Region, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.location import fuse as fuse_locations
from jitcore.passes.kernelize.linalg import is_float_contraction


def fuse_reduction_epilogues(block: Block) -> bool:
    """Fuse, in ``block``, each reduction into the elementwise kernel that maps its result,
    where the rules of the module docstring allow; whether anything changed."""
    changed = False
    for op in list(block.ops):
        if op.parent is not block or not isinstance(op, kernel.GenericOp):
            continue
        found = _reduction_read(op, block)
        if found is not None:
            _fuse(*found, op)
            changed = True
    return changed


def _plain_elementwise(op: kernel.GenericOp) -> bool:
    return (len(op.results) == 1 and op.epilogue is None
            and all(t == kernel.PARALLEL for t in op.iterator_types)
            and not op.indexed and not op.clamped and op.copy_inputs == (-1,)
            and op.output_maps[0].is_identity
            and not any(isinstance(inner, kernel.IndexOp) or inner.regions for inner in op.body.ops)
            and not kernel.runs_in_order(op))


def _reduction_read(consumer: kernel.GenericOp, block: Block):
    """``(reduction, value, result map)``: the reduction whose result ``consumer`` maps as an
    epilogue may, the value the consumer reads (that result, or a reshape of it that only
    adds or drops axes of extent 1: ``keepdims``), and the map from the reduction's dims to
    that value's axes; or None."""
    if not _plain_elementwise(consumer):
        return None
    for value in consumer.operands:
        source = getattr(value, "op", None)
        reshape = None
        if isinstance(source, array.ReshapeOp) and source.parent is block:
            reshape, source = source, getattr(source.operands[0], "op", None)
        if not (isinstance(source, kernel.GenericOp) and source.parent is block
                and _plain_reduction(source)):
            continue
        result_map = source.output_maps[0]
        if reshape is not None:
            if len(source.results[0].uses) != 1:
                continue
            result_map = _unit_axes_moved(result_map, source.results[0].type.shape, value.type.shape)
        reads = [m for v, m in zip(consumer.operands, consumer.input_maps) if v is value]
        if (result_map is not None and all(op is consumer for op, _ in value.uses)
                and all(m.is_identity for m in reads)
                and consumer.results[0].type == value.type):
            return source, value, result_map
    return None


def _unit_axes_moved(amap: AffineMap, old: tuple, new: tuple) -> AffineMap | None:
    """``amap``, which writes an array of shape ``old``, as it writes that array reshaped to
    ``new``, if the two differ only in axes of extent 1 (else None)."""
    kept = [e for e, n in zip(amap.exprs, old) if n != 1]
    if len(kept) != sum(n != 1 for n in new):
        return None
    exprs, rest = [], iter(kept)
    for n in new:
        exprs.append(AffineExpr(None, 1, 0) if n == 1 else next(rest))
    return AffineMap(amap.num_dims, tuple(exprs))


def _plain_reduction(op: kernel.GenericOp) -> bool:
    return (kernel.REDUCTION in op.iterator_types and op.scan_dim is None and len(op.results) == 1
            and op.epilogue is None and not op.indexed and op.copy_inputs == (-1,)
            and not is_float_contraction(op) and not kernel.runs_in_order(op))


def _fuse(reduction: kernel.GenericOp, reduced: Value, result_map: AffineMap,
          consumer: kernel.GenericOp) -> Operation:
    """One kernel: ``reduction``'s operands, then ``consumer``'s others, its body, and the
    consumer's body as its epilogue; it writes through ``result_map`` what the consumer
    wrote (``reduced``: what the consumer read of the reduction)."""
    extra = [(j, v, m.compose(result_map)) for j, (v, m)
             in enumerate(zip(consumer.operands, consumer.input_maps)) if v is not reduced]
    n_old = len(reduction.operands)
    body = reduction.body
    accumulator = body.args[n_old]
    new_args = [BlockArgument(v.type.element, body, 0) for _, v, _ in extra]
    body.args = [*body.args[:n_old], *new_args, accumulator]  # read by the epilogue only
    for i, arg in enumerate(body.args):
        arg.index = i
    epilogue = Block([a.type for a in body.args])
    accumulator_here = epilogue.args[-1]
    old = consumer.body
    for j, arg in enumerate(old.args):
        if consumer.operands[j] is reduced:
            arg.replace_all_uses_with(accumulator_here)
    for k, (j, _, _) in enumerate(extra):
        old.args[j].replace_all_uses_with(epilogue.args[n_old + k])
    for inner in old.ops:
        inner.parent = epilogue
    epilogue.ops, old.ops = list(old.ops), []
    regions = [reduction.regions[0], Region([epilogue])]
    reduction.regions = []
    consumer.regions = []
    attrs = dict(reduction.attributes)
    attrs["indexing_maps"] = (*reduction.input_maps, *(m for _, _, m in extra), result_map)
    attrs["domain"] = tuple(reduction.domain())
    operands = [*reduction.operands, *(v for _, v, _ in extra)]
    fused = Builder.before_op(consumer).insert(
        kernel.GenericOp(operands, consumer.result_types, attrs, regions))
    fused.loc = fuse_locations(reduction.loc, consumer.loc)
    consumer.results[0].replace_all_uses_with(fused.results[0])
    consumer.erase()
    if reduced.op is not reduction:
        reduced.op.erase()  # the reshape to keepdims
    reduction.erase()
    return fused
