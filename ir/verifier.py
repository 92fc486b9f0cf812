"""The verifier: each op's own rules, then its regions' (terminators, dominance, isolation)."""

from __future__ import annotations

from jitcore.ir.core import ISOLATED, NO_TERMINATOR, TERMINATOR, Operation, UnregisteredOp


def verify(op: Operation) -> None:
    """Raise ``VerificationError`` naming the first op that breaks a rule."""
    _verify(op, frozenset())


def _verify(op: Operation, visible: frozenset[int]) -> None:
    if isinstance(op, UnregisteredOp):
        op.fail("is not registered by any dialect")
    op.verify_declared()
    op.verify_op()
    for region in op.regions:
        outer = frozenset() if op.has_trait(ISOLATED) else visible
        for block in region.blocks:
            _verify_block(op, block, outer)


def _verify_block(parent: Operation, block, outer: frozenset[int]) -> None:
    defined = set(outer)
    defined.update(id(a) for a in block.args)
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
        _verify(op, frozenset(defined))
        defined.update(id(r) for r in op.results)
    if needs_terminator and (not block.ops or not block.ops[-1].has_trait(TERMINATOR)):
        parent.fail("has a block that does not end with a terminator")
