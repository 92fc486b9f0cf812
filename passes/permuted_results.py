"""``permuted-results``: a reduction whose one reader only permutes its axes writes its result
in that order itself (after ``kernelize``, before ``fuse``).

``np.tensordot(U, p, axes=([1], [1]))`` and ``np.einsum('ij,ajb->aib', U, p)`` are contractions
whose result axes come out as ``(i, a, b)``, moved to ``(a, i, b)`` next (``np.moveaxis``, or
the einsum's own output order): one kernel that reduces, then one that copies its whole result
through a permuted map. ``fuse`` never inlines a reduction into its consumer, so the copy would
stay a pass over memory. Here the reduction's output map takes the permutation instead: it
writes each result where the copy would have put it, and the copy goes. ``interchange`` then
orders the reduction's loops by its operands' memory order as for any reduction, and a code
generator that calls BLAS for a contraction reads the result's layout from that map
(``codegen/contraction.py``). No value changes: each element is the same reduction over the
same terms, only stored elsewhere.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr, AffineMap
from jitcore.ir.core import Operation, OpResult
from jitcore.ir.dialects import kernel
from jitcore.passes.manager import Pass, register_pass


@register_pass
class PermutedResults(Pass):
    """Fold an axis permutation of a reduction's result into the reduction's output map."""

    name = "permuted-results"

    def run(self, module: Operation) -> bool:
        changed = False
        for op in list(module.walk()):
            if isinstance(op, kernel.GenericOp) and op.parent is not None:
                changed |= _absorb(op)
        return changed


def _permutation(op: kernel.GenericOp) -> list[int] | None:
    """For a kernel that only copies its one operand through a permutation of its dims into
    an identity-mapped result, the dim of the copy that each operand axis is read along."""
    if (
        len(op.operands) != 1
        or len(op.results) != 1
        or op.indexed
        or op.clamped
        or any(i >= 0 for i in op.copy_inputs)
        or kernel.HEAD in op.attributes
        or any(t != kernel.PARALLEL for t in op.iterator_types)
        or not op.output_maps[0].is_identity
    ):
        return None
    ops = op.body.ops
    if len(ops) != 1 or not isinstance(ops[0], kernel.YieldOp) or ops[0].operands[0] is not op.body.args[0]:
        return None
    exprs = op.input_maps[0].exprs
    dims = [e.dim for e in exprs]
    if any(e.dim is None or e.scale != 1 or e.offset != 0 for e in exprs) or sorted(dims) != list(
        range(len(op.iterator_types))
    ):
        return None
    return dims


def _absorb(copy: kernel.GenericOp) -> bool:
    perm = _permutation(copy)
    if perm is None:
        return False
    source = copy.operands[0]
    producer = source.op if isinstance(source, OpResult) else None
    if (
        not isinstance(producer, kernel.GenericOp)
        or len(producer.results) != 1
        or not producer.has_reduction
        or producer.scan_dim is not None
        or len(source.uses) != 1
        or producer.parent is not copy.parent
        or any(i >= 0 for i in producer.copy_inputs)
        or producer.indexed
        or kernel.runs_in_order(producer)
    ):
        return False
    out = producer.output_maps[0]
    if any(e.dim is None or e.scale != 1 or e.offset != 0 for e in out.exprs):
        return False
    # the copy's element y is the result's element at axis k = y[perm[k]]: the reduction
    # writes the value of its axis k along the copy's axis perm[k]
    if len(out.exprs) != len(perm):
        return False
    exprs = [None] * len(perm)
    for k, axis in enumerate(perm):
        exprs[axis] = AffineExpr(out.exprs[k].dim, 1, 0)
    # each result axis spanned by the dim written along it (the copy's own extents)
    domain, shape = producer.domain(), copy.results[0].type.shape
    if any(domain[e.dim] != n for e, n in zip(exprs, shape)):
        return False
    maps = producer.input_maps + (AffineMap(out.num_dims, tuple(exprs)),)
    producer.attributes["indexing_maps"] = maps
    producer.results[0].type = copy.results[0].type
    copy.results[0].replace_all_uses_with(producer.results[0])
    copy.erase()
    return True
