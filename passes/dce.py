"""Dead code elimination: ops without side effects whose results are unused are erased.

Blocks are walked backwards, so a chain of dead ops goes in one sweep; sweeps repeat until
nothing changes, since erasing an op inside a region can free a value defined outside it.
Terminators and ops with side effects always stay: anything not ``Pure``, and an ``scf`` op
whose regions hold such an op (a kernel body's loop that writes with ``kernel.insert``) or an
``scf.for`` whose step may be zero; so do ops that check indices or matrices at run time (an
unused ``x[idx]`` still raises IndexError, as in NumPy; ``passes/effects.py``). Inside the
regions of the ops that stay, dead ops go too. As in MLIR, an ``scf.while`` without side
effects is erased even if it would never end: a loop whose results nothing reads is not worth
keeping for its running time.
"""

from __future__ import annotations

from jitcore.ir.core import Block, Operation
from jitcore.passes.effects import erasable_when_unused
from jitcore.passes.manager import Pass, register_pass


@register_pass
class DCE(Pass):
    name = "dce"

    def run(self, module: Operation) -> bool:
        changed = False
        while _dce_op(module):
            changed = True
        return changed


def _dce_op(op: Operation) -> bool:
    changed = False
    for region in op.regions:
        for block in region.blocks:
            changed |= _dce_block(block)
    return changed


def _dce_block(block: Block) -> bool:
    changed = False
    for op in reversed(list(block.ops)):
        if not any(r.uses for r in op.results) and erasable_when_unused(op):
            op.erase()
            changed = True
        else:
            changed |= _dce_op(op)
    return changed
