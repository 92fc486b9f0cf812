"""Loop-invariant code motion: side-effect-free ops that compute the same value in every
iteration move out of ``scf.for`` and ``scf.while`` loops, to just before the loop.

An op moves when it has no side effects (``passes/effects.py``: ops with regions too, when
nothing in them has one) and every value it reads, in its regions included, is defined outside
the loop. Ops are taken in order, so a chain of invariant ops moves together, and inner loops
first, so an op can leave a nest one loop at a time. A while loop's cond region runs in every
iteration as its body does, and the same rule holds there. A ``kernel.extract`` stays in a loop
that writes with ``kernel.insert``: the element it reads may change from one iteration to the
next.

Moving an op out of a loop that may run no iteration is still safe: the op has no side effects,
and no op of this IR traps (integer division by zero, shifts past the width and the like have
defined results, DESIGN §5), so computing a value that is never used changes nothing but time.
Except for the one thing a pure op may do: make the call raise. An index check
(``array.gather``, ``array.scatter_nd``, a kernel holding ``kernel.check_index``) raises
``IndexError`` for an index out of range, and a kernel whose loop may have a zero step raises
for it; ``for i in range(n): s += x[k]`` with ``n = 0`` must not raise for a bad ``k``. So such
ops leave only regions that surely run: the body of an ``scf.for`` whose constant bounds give
an iteration, and a while loop's cond region.
"""

from __future__ import annotations

from jitcore.ir.core import Operation
from jitcore.passes.effects import (
    LOOP_OPS,
    has_side_effects,
    kernel_writes,
    may_raise,
    uses_only_outside,
)
from jitcore.passes.manager import Pass, register_pass
from jitcore.passes.scf_rules import trip_count


@register_pass
class LICM(Pass):
    name = "licm"

    def run(self, module: Operation) -> bool:
        loops = [op for op in module.walk() if op.op_name in LOOP_OPS]
        changed = False
        for loop in reversed(loops):  # inner loops before the loops around them
            changed |= _hoist(loop)
        return changed


def _hoist(loop: Operation) -> bool:
    frozen_reads = kernel_writes(loop)
    changed = False
    for k, region in enumerate(loop.regions):
        surely_runs = _surely_runs(loop, k)
        for block in region.blocks:
            for op in list(block.ops):
                if op is block.terminator or has_side_effects(op) or not uses_only_outside(op, loop):
                    continue
                if frozen_reads and any(inner.op_name == "kernel.extract" for inner in op.walk()):
                    continue
                if not surely_runs and may_raise(op):
                    continue
                block.ops.remove(op)
                op.parent = None
                loop.parent.insert_before(loop, op)
                changed = True
    return changed


def _surely_runs(loop: Operation, region: int) -> bool:
    """Whether region number ``region`` of ``loop`` runs whenever the loop does."""
    if loop.op_name == "scf.while":
        return region == 0
    trips = trip_count(loop)
    return trips is not None and trips > 0
