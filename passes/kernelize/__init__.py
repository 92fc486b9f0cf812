"""``kernelize``: the mandatory conversion of ``array`` ops into ``kernel.generic`` loops.

Every op with a rule becomes one kernel of its own (a gather or scatter with several index
arrays: one more per index array, which checks it), inserted where the op was; nothing is
fused and every intermediate is materialised. ``array.constant`` and ``array.reshape`` (a view
of a contiguous buffer) have no rule: the code generator takes them as they are. Fusing
kernels into one another is the separate, optional ``fuse`` pass, so a pipeline without it
(``...,kernelize,...``) is the unfused baseline that fusion is tested against
(tests/programs): both must give bit-identical results, since fusing only moves the
same scalar ops from one loop into another.

The rules, one module per op family, each map an op class to a function that builds the
op's kernel before it and returns it; the kernel's leading results replace the op's. A rule may
return None for an op that stays (an ``scf`` loop whose body is array work runs on the host):
the pass then converts the ops inside its regions, as it does those of any op without a rule.
"""

from __future__ import annotations

from collections.abc import Callable

from jitcore.ir.core import Block, Operation
from jitcore.ir.dialects import kernel
from jitcore.ir.location import Location
from jitcore.passes.kernelize import (
    compact,
    complex_eig,
    complex_svd,
    control,
    decompose,
    elementwise,
    factor,
    hermitian,
    index,
    lapack,
    linalg,
    shape,
    sort,
)
from jitcore.passes.manager import Pass, register_pass

Rule = Callable[[Operation], "kernel.GenericOp | None"]

# Op class -> rule; a rule for a base class (array.ElementwiseOp) serves all its subclasses.
RULES: dict[type, Rule] = {**elementwise.RULES, **shape.RULES, **index.RULES, **linalg.RULES,
                           **control.RULES, **sort.RULES, **compact.RULES, **factor.RULES,
                           **decompose.RULES, **hermitian.RULES, **complex_eig.RULES, **complex_svd.RULES}


def rule_for(op: Operation) -> Rule | None:
    """The rule that turns ``op`` into a kernel, or None if ``op`` stays as it is."""
    for cls in type(op).__mro__:
        if cls in RULES:
            return RULES[cls]
    return None


@register_pass
class Kernelize(Pass):
    """Each array op that has a rule becomes its own kernel; no producer is inlined."""

    name = "kernelize"

    def run(self, module: Operation) -> bool:
        changed = False
        for func in module.functions():
            # gathers at positions proved in range, found while their index arrays are array
            # ops: in nested blocks too, before the ops around a loop (a constant the body's
            # indices are made of) become kernels
            proved = {op for op in func.walk() if index.positions_proved(op)}
            changed |= _kernelize(func.body, proved)
        return changed


def _kernelize(block: Block, proved: set) -> bool:
    changed = False
    for op in list(block.ops):
        rule = rule_for(op)
        start = block.position(op)
        new = rule(op, proved=True) if op in proved else rule(op) if rule is not None else None
        if new is None:
            if isinstance(op, kernel.GenericOp):
                continue  # its body is scalar already
            for region in op.regions:
                for inner in region.blocks:
                    changed |= _kernelize(inner, proved)
            continue
        lapack.mark(op, new)
        for made in block.ops[start:block.position(op)]:  # what the rule inserted before op
            locate(made, op.loc)
        for old, result in zip(op.results, new.results):
            old.replace_all_uses_with(result)
        op.erase()
        changed = True
    return changed


def locate(op: Operation, loc: Location) -> None:
    """Give ``op`` and the ops nested in it that have no location of their own ``loc``: a
    kernel and its scalar body stand for the array op they were made from."""
    for inner in op.walk():
        if not inner.loc.known:
            inner.loc = loc
