"""Common subexpression elimination: a pure op equal to one that dominates it is replaced by it.

Blocks are walked in order with a scoped table of the ops seen so far: a nested region sees the
entries of the blocks around it, except in ops whose regions are isolated from above
(``func.func``, and ``kernel.generic`` whose body may only use its own arguments), which start
afresh. Two ops are equal when they have the same name, operands (in any order for commutative
ops), attributes and result types. Pure ops with isolated regions, such as ``kernel.generic``,
are equal when they have the same operands and print identically, which compares their bodies.
"""

from __future__ import annotations

import struct
from collections import ChainMap

from jitcore import ir
from jitcore.ir.core import ISOLATED, PURE, TERMINATOR, Block, Operation
from jitcore.passes.manager import Pass, register_pass


@register_pass
class CSE(Pass):
    name = "cse"

    def run(self, module: Operation) -> bool:
        return _cse_regions(module, ChainMap())


def _isolated(op: Operation) -> bool:
    return op.has_trait(ISOLATED) or op.op_name == "kernel.generic"


def _cse_regions(op: Operation, scope: ChainMap) -> bool:
    if _isolated(op):
        scope = ChainMap()
    changed = False
    for region in op.regions:
        for block in region.blocks:
            changed |= _cse_block(block, scope.new_child())
    return changed


def _cse_block(block: Block, scope: ChainMap) -> bool:
    changed = False
    for op in list(block.ops):
        changed |= _cse_regions(op, scope)
        if not op.has_trait(PURE) or op.has_trait(TERMINATOR) or op.regions and not _isolated(op):
            continue
        key = _key(op)
        earlier = scope.get(key)
        if earlier is None:
            scope[key] = op
            continue
        for old, new in zip(op.results, earlier.results, strict=True):
            old.replace_all_uses_with(new)
        op.erase()
        changed = True
    return changed


def _key(op: Operation) -> tuple:
    """What two ops must share to compute the same values. Operands are Values, hashed by
    identity; attributes by their exact bits (so 1 ≠ 1.0 ≠ true and -0.0 ≠ 0.0)."""
    operands = op.operands
    if op.commutes:
        operands = tuple(sorted(operands, key=id))
    if op.regions:  # isolated, so the text and the operands say everything the body reads
        return ("regions", ir.print_op(op), operands)
    attributes = tuple(sorted((k, _attr_key(v)) for k, v in op.attributes.items()))
    return (op.op_name, operands, attributes, tuple(op.result_types))


def _attr_key(value) -> tuple:
    if isinstance(value, tuple):
        return (tuple, tuple(_attr_key(v) for v in value))
    if isinstance(value, float):
        return (float, struct.pack("<d", value))
    return (type(value), value)
