"""Index tables computed in the body: the last step of ``fuse`` for kernels that read at
computed positions (gathers, and the reductions they were fused into).

An integer constant operand whose elements are an affine function of their position,
``c0 + sum_a s_a * i_a`` (``np.arange`` and its broadcasts and sums: ``sliding_window_view``'s
window positions ``arange(n)[:, None] + arange(w)[None, :]``, a user's own table of them), is
replaced in such a kernel by that function of the kernel's positions: ``kernel.index`` through
the operand's map, times ``s_a``, plus ``c0``. No table is read, and a position such as
``d0 + d1`` is one the code generator sees move by one element per step of the innermost
loop, so a fused window sum reads its window as contiguous vectors instead of gathering it
element by element through two tables. The values are the table's, so nothing else changes:
the gather's bounds were proved on the table itself (``effects.proved_positions``).

Only kernels with indexed operands are rewritten: elsewhere a table is data that a kernel
reads at its own positions, which the code generator already streams, and turning it into
positions would change how such a kernel is scheduled (a positional body is not flattened).
"""

from __future__ import annotations

from jitcore.ir.affine_tables import affine_form
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Region, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import index as index_type
from jitcore.passes.kernelize.complex import ComplexEmitter


def compute_index_tables(block: Block) -> bool:
    """Replace the affine index tables that the kernels of ``block`` with indexed operands read
    by their values computed in the body; return whether any kernel changed."""
    changed = False
    for op in list(block.ops):
        if not isinstance(op, kernel.GenericOp) or not _reads_at_computed_positions(op):
            continue
        skip = set(op.indexed) | set(op.clamped) | {i for i in op.copy_inputs if i >= 0}
        forms = {}
        for i, value in enumerate(op.operands):
            producer = getattr(value, "op", None)
            if i in skip or not isinstance(producer, array.ConstantOp) or producer.value.is_splat:
                continue
            form = affine_form(producer.value.array)
            if form is not None:
                forms[i] = form
        if forms:
            _compute_in_body(op, forms)
            changed = True
    return changed


def _reads_at_computed_positions(op: kernel.GenericOp) -> bool:
    n_in = len(op.operands)
    return any(i < n_in for i in op.indexed)


def _compute_in_body(op: kernel.GenericOp, forms: dict[int, tuple[int, tuple[int, ...]]]) -> None:
    """Put the values of the tables ``forms`` (operand number -> affine form) into ``op``'s
    body and build the kernel without those operands in its place."""
    body = op.body
    emit = ComplexEmitter(Builder.before_op(body.ops[0]))
    positions: dict[int, Value] = {}

    def position(dim: int) -> Value:
        if dim not in positions:
            positions[dim] = emit.b.create(kernel.IndexOp, [], [index_type], {"dim": dim}).result
        return positions[dim]

    for i, (c0, steps) in forms.items():
        element = op.operands[i].type.element
        total = c0
        value = None
        for s, e in zip(steps, op.input_maps[i].exprs):
            if not s:
                continue
            total += s * e.offset
            if e.dim is None or not e.scale:
                continue
            term = emit.convert(position(e.dim), element)
            if s * e.scale != 1:
                term = emit.op("arith.muli", term, emit.const(s * e.scale, element))
            value = term if value is None else emit.op("arith.addi", value, term)
        if value is None:
            value = emit.const(total, element)
        elif total:
            value = emit.op("arith.addi", value, emit.const(total, element))
        body.args[i].replace_all_uses_with(value)
    _without_inputs(op, set(forms))


def _without_inputs(op: kernel.GenericOp, drop: set[int]) -> None:
    """Replace ``op`` by the same kernel without the inputs ``drop`` (their body arguments are
    no longer used), its regions moved over."""
    n_in = len(op.operands)
    kept = [i for i in range(n_in) if i not in drop]
    renumber = {old: new for new, old in enumerate(kept)}
    shift = len(drop)
    attrs = dict(op.attributes)
    maps = op.indexing_maps
    attrs["indexing_maps"] = tuple(maps[i] for i in kept) + tuple(maps[n_in:])
    if op.clamped:
        attrs["clamped"] = tuple(renumber[i] for i in op.clamped)
    if op.indexed:
        attrs["indexed"] = tuple(renumber[i] if i < n_in else i - shift for i in op.indexed)
    if "copy_inputs" in attrs:
        attrs["copy_inputs"] = tuple(renumber[i] if i >= 0 else i for i in op.copy_inputs)
    if kernel.HEAD in attrs:  # (its count dropped: the kernel runs the whole dim, as it may)
        head = attrs.pop(kernel.HEAD)
        if head in renumber:
            attrs[kernel.HEAD] = renumber[head]
    body = op.body
    body.args = [a for k, a in enumerate(body.args) if k not in drop]
    for k, arg in enumerate(body.args):
        arg.index = k
    regions = []
    for region in op.regions:
        regions.append(Region(list(region.blocks)))
        region.blocks = []
    operands = [op.operands[i] for i in kept]
    new = Builder.before_op(op).insert(kernel.GenericOp(operands, op.result_types, attrs, regions))
    new.loc = op.loc
    for old, result in zip(op.results, new.results):
        old.replace_all_uses_with(result)
    producers = [getattr(op.operands[i], "op", None) for i in drop]
    op.erase()
    for producer in producers:
        if producer is not None and producer.parent is not None and not producer.results[0].uses:
            producer.erase()
