"""The verifier: each op's own rules, then its regions' (terminators, dominance, isolation)."""

from __future__ import annotations

from jitcore.ir.core import ISOLATED, NO_TERMINATOR, TERMINATOR, Operation, UnregisteredOp


def verify(op: Operation) -> None:
    """Raise ``VerificationError`` naming the first op that breaks a rule."""
    _verify(op, set())


def _verify(op: Operation, visible: set[int]) -> None:
    """``visible``: the values ``op``'s regions may use. A block adds its own to it while it is
    checked and takes them out after, so that checking stays linear in the size of the IR (a
    copy per op would make it quadratic)."""
    if isinstance(op, UnregisteredOp):
        op.fail("is not registered by any dialect")
    op.verify_declared()
    op.verify_op()
    for region in op.regions:
        outer = set() if op.has_trait(ISOLATED) else visible
        for block in region.blocks:
            _verify_block(op, block, outer)


def _verify_block(parent: Operation, block, defined: set[int]) -> None:
    mine = [id(a) for a in block.args]
    defined.update(mine)
    needs_terminator = not parent.has_trait(NO_TERMINATOR)
    for i, op in enumerate(block.ops):
        is_last = i == len(block.ops) - 1
        if op.has_trait(TERMINATOR) and not is_last:
            op.fail("is a terminator but is not the last op of its block")
        for n, v in enumerate(op.operands):
            if id(v) not in defined:
                op.fail(
                    f"operand #{n} does not dominate this use "
                    "(it is defined later, in another region, or outside an isolated op)"
                )
        _verify(op, defined)
        ids = [id(r) for r in op.results]
        defined.update(ids)
        mine += ids
    defined.difference_update(mine)
    if needs_terminator and (not block.ops or not block.ops[-1].has_trait(TERMINATOR)):
        parent.fail("has a block that does not end with a terminator")
