"""The verifier: each op's own rules, then its regions' (terminators, dominance, isolation)."""

from __future__ import annotations

from jitcore.ir.core import ISOLATED, NO_TERMINATOR, TERMINATOR, Operation, UnregisteredOp, Value


def verify(op: Operation) -> None:
    """Raise ``VerificationError`` naming the first op that breaks a rule."""
    _verify(op, set())


def _verify(op: Operation, visible: set[Value]) -> None:
    """``visible``: the values ``op``'s regions may use (values hash by identity). A block adds
    its own to it while it is checked and takes them out after, so that checking stays linear
    in the size of the IR (a copy per op would make it quadratic)."""
    if isinstance(op, UnregisteredOp):
        op.fail("is not registered by any dialect")
    op.verify_declared()
    op.verify_op()
    for region in op.regions:
        outer = set() if ISOLATED in op.traits else visible
        for block in region.blocks:
            _verify_block(op, block, outer)


def _verify_block(parent: Operation, block, defined: set[Value]) -> None:
    # The verifier's hottest loop (every op of every block, after each pass that changed the
    # module): an op without regions is checked here, with no call of _verify of its own.
    mine = list(block.args)
    defined.update(mine)
    ops = block.ops
    last = len(ops) - 1
    for i, op in enumerate(ops):
        if TERMINATOR in op.traits and i != last:
            op.fail("is a terminator but is not the last op of its block")
        for v in op._operands:
            if v not in defined:
                n = next(n for n, w in enumerate(op._operands) if w not in defined)
                op.fail(
                    f"operand #{n} does not dominate this use "
                    "(it is defined later, in another region, or outside an isolated op)"
                )
        if op.regions or isinstance(op, UnregisteredOp):
            _verify(op, defined)
        else:
            op.verify_declared()
            op.verify_op()
        results = op.results
        if results:
            defined.update(results)
            mine.extend(results)
    defined.difference_update(mine)
    if NO_TERMINATOR not in parent.traits and (not ops or TERMINATOR not in ops[-1].traits):
        parent.fail("has a block that does not end with a terminator")
