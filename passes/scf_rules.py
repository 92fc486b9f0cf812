"""The ``scf`` rules of ``canonicalize``, at both levels (tensors in a function, scalars in a
kernel body). Each takes an op and returns whether it rewrote it:

* ``scf.if`` on a constant condition is replaced by the ops of its taken branch; a result that
  both branches yield as the same value from outside is that value; unused results go.
* ``scf.for`` whose constant bounds and step give no iteration is its inits; one iteration is
  its body inlined with ``iv = lb``. Trip counts are exact integers, and one iteration needs
  ``lb + step`` to fit in 64 bits (where it wraps, code generators may run more).
* ``scf.while`` whose condition is constant false is its cond region (run once, for what it
  does) and then its inits.
* A carried value that the body passes through unchanged (it yields the block argument itself,
  or the init) is the init everywhere, and the loop no longer carries it. A carried value whose
  result is unused, and whose block arguments feed only side-effect-free ops that compute the
  next values of such carried values, is dropped with those ops.
"""

from __future__ import annotations

from collections.abc import Callable

from jitcore.ir.attributes import ScalarAttr
from jitcore.ir.core import Block, Operation, Value
from jitcore.ir.dialects import arith
from jitcore.ir.types import i1
from jitcore.passes.constants import scalar_constant
from jitcore.passes.effects import erasable_when_unused

_I64 = (-(2 ** 63), 2 ** 63 - 1)


def _inline_block(block: Block, anchor: Operation, args: list[Value]) -> list[Value]:
    """Move ``block``'s ops but its terminator before ``anchor``, its arguments replaced by
    ``args``; return what the terminator passed on."""
    for arg, value in zip(block.args, args, strict=True):
        arg.replace_all_uses_with(value)
    terminator = block.terminator
    for op in list(block.ops):
        if op is not terminator:
            _detach(op)
            anchor.parent.insert_before(anchor, op)
    return list(terminator.operands)


def _detach(op: Operation) -> None:
    op.parent.ops.remove(op)
    op.parent = None


def _replace_op(op: Operation, values: list[Value]) -> bool:
    for old, new in zip(op.results, values, strict=True):
        old.replace_all_uses_with(new)
    op.erase()
    return True


# -- scf.if -------------------------------------------------------------------------------
def _simplify_if(op: Operation) -> bool:
    taken = scalar_constant(op.operands[0])
    if taken is not None:
        block = op.then_block if taken else op.else_block
        return _replace_op(op, _inline_block(block, op, []))
    changed = False
    then_values, else_values = op.then_block.terminator.operands, op.else_block.terminator.operands
    # A value both branches yield is defined outside the op: neither branch sees the other's.
    for result, a, b in zip(op.results, then_values, else_values, strict=True):
        if a is b and result.uses:
            result.replace_all_uses_with(a)
            changed = True
    unused = {i for i, r in enumerate(op.results) if not r.uses}
    if unused:
        _rebuild(op, unused, [], [(op.then_block, None), (op.else_block, None)])
        return True  # op is replaced: the rebuilt if comes back to these rules
    return _hoist_leading_raise(op) or changed


# Scalar ops safe to run where the program would not: no trap, no memory, no call (divisions
# may trap; a poison result is harmless, as the hoisted test selects it away).
_SPECULATABLE = (arith.ConstantOp, arith.CompareOp, arith.SelectOp, arith.CastOp, arith.FloatOp,
                 arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndiOp, arith.OriOp, arith.XoriOp,
                 arith.MaxsiOp, arith.MinsiOp, arith.MaxuiOp, arith.MinuiOp)


def _hoist_leading_raise(op: Operation) -> bool:
    """A branch that begins with cheap ops and a ``kernel.raise`` (a Python-number check such
    as ``n += 1`` past int64) raises before the ``scf.if`` on ``cond and test``: the branch is
    then free of effects, so LLVM can turn a small if into a select (a counter under a data
    test with a check: 42 ms for 10^6 steps with the raise inside the branch, 2.2 ms hoisted)."""
    for block, taken in ((op.then_block, True), (op.else_block, False)):
        leading = []
        for inner in block.ops:
            if inner.op_name == "kernel.raise":
                break
            if not isinstance(inner, _SPECULATABLE) or inner.regions:
                return False
            leading.append(inner)
        else:
            continue
        for moved in leading:
            _detach(moved)
            op.parent.insert_before(op, moved)
        cond = op.operands[0]
        false = op.parent.insert_before(op, arith.ConstantOp((), [i1], {"value": ScalarAttr(False, i1)}))
        if taken:
            both = arith.SelectOp([cond, inner.operands[0], false.result], [i1])
        else:
            both = arith.SelectOp([cond, false.result, inner.operands[0]], [i1])
        op.parent.insert_before(op, both)
        _detach(inner)
        inner.set_operand(0, both.result)
        op.parent.insert_before(op, inner)
        return True
    return False


# -- scf.for ------------------------------------------------------------------------------
def trip_count(op: Operation) -> int | None:
    """How many iterations an ``scf.for`` runs, if its bounds and step are constants."""
    lb, ub, step = (scalar_constant(v) for v in op.operands[:3])
    if lb is None or ub is None or not step:
        return None
    distance = ub - lb if step > 0 else lb - ub
    return max(0, -(-distance // abs(step)))


def _simplify_for(op: Operation) -> bool:
    trips = trip_count(op)
    if trips == 0:
        return _replace_op(op, list(op.inits))
    if trips == 1 and _I64[0] <= scalar_constant(op.lower) + scalar_constant(op.step) <= _I64[1]:
        return _replace_op(op, _inline_block(op.body, op, [op.lower, *op.inits]))
    return _drop_carries(op, list(op.inits), [(op.body, 1, True)])


# -- scf.while ----------------------------------------------------------------------------
def _simplify_while(op: Operation) -> bool:
    condition = scalar_constant(op.cond.terminator.operands[0])
    if condition is not None and not condition:
        _inline_block(op.cond, op, list(op.operands))
        return _replace_op(op, list(op.operands))
    return _drop_carries(op, list(op.operands), [(op.cond, 0, False), (op.body, 0, True)])


# -- carried values -----------------------------------------------------------------------
def _drop_carries(op: Operation, inits: list[Value], blocks: list[tuple[Block, int, bool]]) -> bool:
    """Remove the carried values that are passed through or feed nothing; ``blocks`` are the
    loop's blocks, each with the number of its arguments before the carried ones and whether
    its terminator yields the carried values."""
    for i, init in enumerate(inits):
        if any(_passes_through(block, skip, i, init) for block, skip, yields in blocks if yields):
            for block, skip, _ in blocks:
                block.args[skip + i].replace_all_uses_with(init)
            op.results[i].replace_all_uses_with(init)
    dead = _dead_carries(op, len(inits), blocks)
    if not dead:
        return False
    _rebuild(op, dead, inits, [(block, skip) for block, skip, _ in blocks])
    return True


def _passes_through(block: Block, skip: int, i: int, init: Value) -> bool:
    yielded = block.terminator.operands[i]
    return yielded is block.args[skip + i] or yielded is init


def _dead_carries(op: Operation, count: int, blocks) -> set[int]:
    """The carried values whose results are unused and whose block arguments flow, through
    side-effect-free ops only, into nothing but the next values of such carried values."""
    dead = {i for i in range(count) if not op.results[i].uses}
    while True:
        live = {i for i in dead if not all(
            _feeds_only(block.args[skip + i], block, dead if yields else set())
            for block, skip, yields in blocks)}
        if not live:
            return dead
        dead -= live


def _feeds_only(arg: Value, block: Block, positions: set[int]) -> bool:
    """Whether everything ``arg`` flows into in ``block`` is side-effect free and reaches the
    terminator only at ``positions``."""
    terminator = block.terminator
    seen: set[int] = set()
    work = [arg]
    while work:
        for user, index in work.pop().uses:
            top = _ancestor_in(block, user)
            if top is terminator:
                if index not in positions:
                    return False
            elif id(top) not in seen:
                if not erasable_when_unused(top):
                    return False
                seen.add(id(top))
                work.extend(top.results)
    return True


def _ancestor_in(block: Block, op: Operation) -> Operation:
    while op.parent is not block:
        op = op.parent_op
    return op


def _rebuild(op: Operation, dropped: set[int], inits: list[Value],
             blocks: list[tuple[Block, int | None]]) -> None:
    """Replace ``op`` by one without the results (and carried values) numbered in ``dropped``:
    their yields go, then the side-effect-free ops left unused in ``blocks``, then their block
    arguments (after the ``skip`` leading ones of each block; None for a block without). The
    carried values that stay start from ``inits`` (none for ``scf.if``)."""
    keep = [i for i in range(len(op.results)) if i not in dropped]
    for block, _ in blocks:
        terminator = block.terminator
        if terminator.op_name == "scf.yield":
            kept = type(terminator)([terminator.operands[i] for i in keep])
            kept.loc = terminator.loc
            block.insert_before(terminator, kept)
            terminator.erase()
        _erase_unused(block)
    leading = len(op.operands) - len(inits)
    operands = list(op.operands[:leading]) + [inits[i] for i in keep if inits]
    new = type(op)(operands, [op.results[i].type for i in keep], op.attributes)
    new.loc = op.loc
    for region in op.regions:
        new.add_region(region)
    op.regions = []
    for block, skip in blocks:
        if skip is not None:
            _drop_args(block, skip, keep)
    op.parent.insert_before(op, new)
    for k, i in enumerate(keep):
        op.results[i].replace_all_uses_with(new.results[k])
    op.erase()


def _erase_unused(block: Block) -> None:
    for op in reversed(list(block.ops)):
        if not any(r.uses for r in op.results) and erasable_when_unused(op):
            op.erase()


def _drop_args(block: Block, skip: int, keep: list[int]) -> None:
    """Give ``block`` only its ``skip`` leading arguments and the carried ones in ``keep``, by
    moving its ops into a new block in its place (the dropped arguments have no uses left)."""
    kept_args = block.args[:skip] + [block.args[skip + i] for i in keep]
    new = Block([a.type for a in kept_args])
    for old, arg in zip(kept_args, new.args, strict=True):
        old.replace_all_uses_with(arg)
    for inner in list(block.ops):
        _detach(inner)
        new.append(inner)
    region = block.parent
    region.blocks[region.blocks.index(block)] = new
    new.parent = region
    block.parent = None


SCF_RULES: dict[str, Callable[[Operation], bool]] = {
    "scf.if": _simplify_if,
    "scf.for": _simplify_for,
    "scf.while": _simplify_while,
}
