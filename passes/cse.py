"""Common subexpression elimination: a pure op equal to one that dominates it is replaced by it.

Blocks are walked in order with a scoped table of the ops seen so far: a nested region sees the
entries of the blocks around it, except in ops whose regions are isolated from above
(``func.func``, and ``kernel.generic`` whose body may only use its own arguments), which start
afresh. Two ops are equal when they have the same name, operands (in any order for commutative
ops), attributes and result types. Pure ops with isolated regions, such as ``kernel.generic``,
are equal when they have the same operands and print identically, which compares their bodies.

The regions of ``scf`` ops are scoped the same way: a loop body or branch sees (and may be
replaced by) the values computed before the op, while what it computes stays in its own scope,
so a value defined in a region never replaces one outside it, where it would not dominate.
Ops with side effects (not ``Pure``: ``kernel.insert``, ``kernel.check_index``, and the ``scf``
ops themselves) are never merged, and two ``kernel.extract`` reads only when no
``kernel.insert`` may run between them: a read after a write may see a different element.
"""

from __future__ import annotations

import struct

from jitcore import ir
from jitcore.ir.core import ISOLATED, PURE, TERMINATOR, Block, Operation
from jitcore.passes.effects import LOOP_OPS, kernel_writes
from jitcore.passes.manager import Pass, register_pass


@register_pass
class CSE(Pass):
    name = "cse"

    def run(self, module: Operation) -> bool:
        return _Scopes().cse_regions(module, {})


def _isolated(op: Operation) -> bool:
    return op.has_trait(ISOLATED) or op.op_name == "kernel.generic"


class _Scopes:
    """One walk of CSE. ``writes`` counts the element writes passed so far: it is part of a
    ``kernel.extract``'s key, so two reads merge only with no ``kernel.insert`` between them
    (nor one in a loop around the later read, or in an op passed between them).

    The scopes are one table per isolated op, which a block adds its entries to and takes
    them out of when it is done: a key is entered only where no enclosing block has it, so
    one table answers what a chain of a table per block would, in one lookup."""

    def __init__(self):
        self.writes = 0
        self.texts: dict[Operation, str] = {}  # an op with regions -> its text, printed once

    def cse_regions(self, op: Operation, table: dict) -> bool:
        if _isolated(op):
            table = {}
        writes = op.op_name in LOOP_OPS and kernel_writes(op)
        self.writes += writes  # a read in the body may follow a write of the iteration before
        changed = False
        for region in op.regions:
            for block in region.blocks:
                changed |= self.cse_block(block, table)
        self.writes += writes or (op.op_name == "scf.if" and kernel_writes(op))
        return changed

    def cse_block(self, block: Block, table: dict) -> bool:
        changed = False
        added: list = []  # the keys this block entered, taken out at its end
        for op in list(block.ops):
            if op.regions:  # (an op without regions has nothing for cse_regions to do)
                changed |= self.cse_regions(op, table)
            self.writes += op.op_name == "kernel.insert"
            if not op.has_trait(PURE) or op.has_trait(TERMINATOR) or op.regions and not _isolated(op):
                continue
            if op.regions:
                earlier = self._same_text(op, table, added)
                if earlier is None:
                    continue
            else:
                key = _key(op)
                if op.op_name == "kernel.extract":
                    key = (key, self.writes)
                earlier = table.get(key)
                if earlier is None:
                    table[key] = op
                    added.append(key)
                    continue
            for old, new in zip(op.results, earlier.results, strict=True):
                old.replace_all_uses_with(new)
            op.erase()
            changed = True
        for key in reversed(added):
            group = table[key]
            if type(group) is list and len(group) > 1:
                group.pop()
            else:
                del table[key]
        return changed

    def _same_text(self, op: Operation, table: dict, added: list) -> Operation | None:
        """An earlier op with regions (isolated, so its text and operands say everything its
        body reads) equal to ``op``, or None after ``op`` is entered in ``table``. Ops are
        first grouped by what the text would show anyway (name, operands, result types), and
        printed only when another op shares that: most kernels have operands of their own,
        and printing each was the most of CSE's time."""
        operands = op.operands
        if op.commutes:
            operands = tuple(sorted(operands, key=id))
        group = ("regions", op.op_name, operands, tuple(op.result_types))
        earlier_ops = table.get(group)
        if earlier_ops is None:
            table[group] = [op]
        else:
            text = self._text(op)
            for earlier in earlier_ops:
                if self._text(earlier) == text:
                    return earlier
            earlier_ops.append(op)
        added.append(group)
        return None

    def _text(self, op: Operation) -> str:
        text = self.texts.get(op)
        if text is None:
            text = self.texts[op] = ir.print_op(op)
        return text


def _key(op: Operation) -> tuple:
    """What two ops without regions must share to compute the same values. Operands are
    Values, hashed by identity; attributes by their exact bits (so 1 ≠ 1.0 ≠ true and
    -0.0 ≠ 0.0)."""
    operands = op.operands
    if op.commutes:
        operands = tuple(sorted(operands, key=id))
    attributes = tuple(sorted((k, _attr_key(v)) for k, v in op.attributes.items()))
    return (op.op_name, operands, attributes, tuple(op.result_types))


def _attr_key(value) -> tuple:
    if isinstance(value, tuple):
        return (tuple, tuple(_attr_key(v) for v in value))
    if isinstance(value, float):
        return (float, struct.pack("<d", value))
    return (type(value), value)
