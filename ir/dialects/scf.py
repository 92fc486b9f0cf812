"""The ``scf`` dialect: structured control flow (loops and branches with regions), as MLIR's.

The same ops serve both levels of the IR. In a function of ``array`` ops their bounds,
conditions and carried values are tensors (a bound is a ``tensor<i64>``, a condition a
``tensor<i1>``, and a carried value any tensor); inside a ``kernel.generic`` body they are
scalars (``i64`` or ``index`` bounds, an ``i1`` condition, scalar carried values). Regions are
not isolated: a body may use any value defined above it.

``scf.for %lb, %ub, %step, %init...`` runs its body for ``iv`` from ``lb`` while ``iv < ub``
(``iv > ub`` for a negative step), by ``step``: its block takes ``iv`` (of the bounds' type)
and the carried values, and ends in ``scf.yield`` of their next values. Its results are the
carried values after the last iteration (the inits when it runs none). A zero step is an error
that the code generators report rather than loop forever.

``scf.while %init...`` has two regions, each taking the carried values: ``cond``, which ends in
``scf.condition %pred``, and ``body``, which ends in ``scf.yield`` of the next values. It
runs ``cond`` then, while ``pred`` holds, ``body``; its results are the carried values when
``pred`` first fails. (MLIR's ``scf.while`` also lets ``cond`` forward values to the body; a
do-while is written here as a body before the loop, so the simpler form is enough.)

``scf.if %cond`` has two regions without arguments, ``then`` and ``else``, each ending in
``scf.yield`` of the op's results (none, for an ``if`` kept for its effects in a kernel body).
"""

from __future__ import annotations

from jitcore.ir.core import TERMINATOR, Operation
from jitcore.ir.types import ScalarType, TensorType, i1, i64, index

# What bounds and induction variables may be: a 0-d tensor at the array level, or a scalar.
BOUND_TYPES = (TensorType((), i64), i64, index)
CONDITION_TYPES = (TensorType((), i1), i1)


def _is_scalar_level(t) -> bool:
    return isinstance(t, ScalarType)


class _StructuredOp(Operation):
    """An op whose regions each have one block ending in a terminator."""

    __slots__ = ()

    def _one_block_regions(self, count: int) -> None:
        if len(self.regions) != count or any(len(r.blocks) != 1 for r in self.regions):
            self.fail(f"needs {count} region(s) of one block each")

    def _check_yield(self, block, what: str) -> None:
        term = block.terminator
        if term is None or term.op_name != "scf.yield":
            self.fail(f"{what} must end with scf.yield")
        got = [v.type for v in term.operands]
        if got != self.result_types:
            term.fail(f"yields {[str(t) for t in got]} but {self.op_name} returns "
                      f"{[str(t) for t in self.result_types]}")

    def _check_args(self, block, expected, what: str) -> None:
        got = [a.type for a in block.args]
        if got != list(expected):
            self.fail(f"{what} takes {[str(t) for t in expected]}, got {[str(t) for t in got]}")


class ForOp(_StructuredOp):
    name = "scf.for"
    __slots__ = ()

    @property
    def lower(self):
        return self.operands[0]

    @property
    def upper(self):
        return self.operands[1]

    @property
    def step(self):
        return self.operands[2]

    @property
    def inits(self):
        return self.operands[3:]

    @property
    def body(self):
        return self.regions[0].block

    @property
    def induction_variable(self):
        return self.body.args[0]

    def verify_op(self) -> None:
        if len(self.operands) < 3:
            self.fail("needs a lower bound, an upper bound and a step")
        bound = self.operands[0].type
        if bound not in BOUND_TYPES or any(v.type != bound for v in self.operands[1:3]):
            self.fail(f"bounds and step must be one type of {[str(t) for t in BOUND_TYPES]}")
        carried = [v.type for v in self.inits]
        if self.result_types != carried:
            self.fail("returns one value of each carried value's type")
        self._one_block_regions(1)
        self._check_args(self.body, [bound, *carried], "the body")
        self._check_yield(self.body, "the body")


class WhileOp(_StructuredOp):
    name = "scf.while"
    __slots__ = ()

    @property
    def cond(self):
        return self.regions[0].block

    @property
    def body(self):
        return self.regions[1].block

    def verify_op(self) -> None:
        carried = [v.type for v in self.operands]
        if self.result_types != carried:
            self.fail("returns one value of each carried value's type")
        self._one_block_regions(2)
        self._check_args(self.cond, carried, "the cond region")
        self._check_args(self.body, carried, "the body region")
        term = self.cond.terminator
        if term is None or term.op_name != "scf.condition":
            self.fail("the cond region must end with scf.condition")
        self._check_yield(self.body, "the body region")


class IfOp(_StructuredOp):
    name = "scf.if"
    __slots__ = ()

    @property
    def condition(self):
        return self.operands[0]

    @property
    def then_block(self):
        return self.regions[0].block

    @property
    def else_block(self):
        return self.regions[1].block

    def verify_op(self) -> None:
        if len(self.operands) != 1 or self.operands[0].type not in CONDITION_TYPES:
            self.fail(f"needs one condition of type {[str(t) for t in CONDITION_TYPES]}")
        self._one_block_regions(2)
        for block, what in ((self.then_block, "the then region"), (self.else_block, "the else region")):
            self._check_args(block, [], what)
            self._check_yield(block, what)


class YieldOp(Operation):
    name = "scf.yield"
    traits = frozenset({TERMINATOR})
    __slots__ = ()

    def verify_op(self) -> None:
        if self.results:
            self.fail("has no results")
        parent = self.parent_op
        if parent is None or parent.op_name not in ("scf.for", "scf.while", "scf.if"):
            self.fail("must be inside scf.for, scf.while or scf.if")


class ConditionOp(Operation):
    name = "scf.condition"
    traits = frozenset({TERMINATOR})
    __slots__ = ()
    arity = (1, 0)

    def verify_op(self) -> None:
        parent = self.parent_op
        if parent is None or parent.op_name != "scf.while" or self.parent is not parent.regions[0].block:
            self.fail("must end the cond region of an scf.while")
        if self.operands[0].type not in CONDITION_TYPES:
            self.fail(f"needs one condition of type {[str(t) for t in CONDITION_TYPES]}")


def is_scalar_level(op: Operation) -> bool:
    """Whether ``op`` (an scf op) works on scalars, inside a kernel body, rather than tensors."""
    if isinstance(op, ForOp) or isinstance(op, IfOp):
        return _is_scalar_level(op.operands[0].type)
    return all(_is_scalar_level(t) for t in op.result_types)
