"""The values a traced loop leaves that are known while tracing: a counter whose steps and exit
depend only on constants (``while i < n: if i * i >= n: break; ...; i += 1``) has one final
value at this trace's sizes, which Python would have computed by running the loop; so does a
``for`` loop's break count when the break tests only the index.

``final_values(op, indices)`` runs the part of an ``scf.while`` or ``scf.for`` op (as traced,
at the array level) that those results and the loop's exit depend on, on constants, with each
op's own meaning (an elementwise op's NumPy ufunc, ``NUMPY_UFUNCS``, as its folder computes it;
any other op's folder, as ``canonicalize`` runs it): the cond region's predicate, then the
body's yields of the needed carried values, until the predicate fails. Only what the results
need is run (an ``scf.if`` runs its taken branch's needed yields), so the loop's array work is
never evaluated. An integer a ``for`` steps by the same amount each iteration (``k += 3``) is
``init + trips * step`` at once. It gives up (None) where the slice reads a function argument
(the data: ``x[i] < 0``), an op that has no folder or effects, a nested loop, or where the run
would take more than ``BUDGET`` folds (a very long loop: its counter stays traced).
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr, numpy_dtype
from jitcore.ir.core import PURE, BlockArgument, OpResult, Value
from jitcore.ir.dialects.array.elementwise import NUMPY_UFUNCS, ElementwiseOp
from jitcore.ir.dialects.scf import ForOp, IfOp, WhileOp
from jitcore.passes.constants import constant_of

# Folds one evaluation may run (about 10 us each: at most ~0.05 s of a trace). A loop whose
# counter needs more keeps it traced, as before (a counter of a ``for`` stepped by a constant
# needs none: its final value is computed at once).
BUDGET = 5_000


class _GiveUp(Exception):
    """The slice is not made of constants, or the budget is spent."""


class _Run:
    """One evaluation: values are NumPy arrays (of the ops' result dtypes)."""

    def __init__(self, loop, budget: int):
        self.loop, self.left = loop, budget
        self.outside: dict[Value, np.ndarray] = {}  # values defined before the loop: fixed
        self.args: dict[BlockArgument, np.ndarray] = {}  # the current iteration's block arguments
        self.inside: dict[Value, np.ndarray] = {}  # values of the current iteration

    def value(self, v: Value) -> np.ndarray:
        if isinstance(v, BlockArgument):
            if v in self.args:
                return self.args[v]
            raise _GiveUp  # a function argument, or a block of a region we do not run
        known = constant_of(v)
        if isinstance(known, DenseAttr):
            return known.array
        memo = self.inside if _within(v.op, self.loop) else self.outside
        if v in memo:
            return memo[v]
        out = self._fold(v)
        memo[v] = out
        return out

    def _fold(self, v: OpResult) -> np.ndarray:
        op = v.op
        if isinstance(op, IfOp):
            block = op.then_block if bool(self.value(op.condition).reshape(-1)[0]) else op.else_block
            return self.value(block.terminator.operands[v.index])
        if op.regions or not op.has_trait(PURE):
            raise _GiveUp  # a nested loop, a callback, a write
        self.left -= 1
        if self.left < 0:
            raise _GiveUp
        arrays = [self.value(x) for x in op.operands]
        ufunc = NUMPY_UFUNCS.get(op.kind) if isinstance(op, ElementwiseOp) else None
        if ufunc is not None and not op.result_type.element.is_complex:
            # (the op's NumPy meaning, as its folder computes it, without building attributes)
            try:
                return np.asarray(ufunc(*arrays), numpy_dtype(op.result_type.element))
            except (ValueError, ArithmeticError, TypeError):
                raise _GiveUp from None
        folded = op.fold([DenseAttr(a, x.type) for a, x in zip(arrays, op.operands)])
        if folded is None:
            raise _GiveUp
        out = folded[v.index]
        if isinstance(out, Value):
            return self.value(out)
        if not isinstance(out, DenseAttr):
            raise _GiveUp
        return out.array


def _within(op, loop) -> bool:
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op
    return False


def final_values(loop, indices, budget: int | None = None) -> dict[int, np.ndarray] | None:
    """The values of ``loop``'s results at ``indices`` (and, as ``-1``, how many times its body
    ran), computed on constants; None where they depend on anything else or cost more than
    ``budget`` folds (``BUDGET``)."""
    budget = BUDGET if budget is None else budget
    try:
        with np.errstate(all="ignore"):
            if isinstance(loop, WhileOp):
                return _run_while(loop, list(indices), budget)
            if isinstance(loop, ForOp):
                return _run_for(loop, list(indices), budget)
    except _GiveUp:
        return None
    return None


def _run_while(loop: WhileOp, indices, budget):
    run = _Run(loop, budget)
    cond, body = loop.cond, loop.body
    needed = _needed(loop, indices, cond.terminator.operands[0])
    carried = [run.value(v) if j in needed else None for j, v in enumerate(loop.operands)]
    trips = 0
    while True:
        run.inside, run.args = {}, {a: c for a, c in zip(cond.args, carried) if c is not None}
        if not bool(run.value(cond.terminator.operands[0]).reshape(-1)[0]):
            break
        run.inside, run.args = {}, {a: c for a, c in zip(body.args, carried) if c is not None}
        yields = body.terminator.operands
        carried = [run.value(yields[j]) if j in needed else carried[j] for j in range(len(carried))]
        trips += 1
    return {**{j: carried[j] for j in indices}, -1: trips}


def _run_for(loop: ForOp, indices, budget):
    run = _Run(loop, budget)
    bounds = [int(run.value(v)) for v in (loop.lower, loop.upper, loop.step)]
    steps = range(*bounds) if bounds[2] else None
    if steps is None:
        raise _GiveUp  # a zero step: an error when it runs
    body = loop.body
    needed = _needed(loop, indices, None)
    carried = [run.value(v) if j in needed else None for j, v in enumerate(loop.inits)]
    strides = {j: _stride(run, body, j) for j in needed}
    if all(c is not None for c in strides.values()):
        # Every needed value is an integer stepped by the same amount each iteration (``k += 2``):
        # its final value at once, wrapping as int64 arithmetic does.
        return {**{j: _wrapped(int(carried[j]) + len(steps) * int(strides[j]), carried[j].dtype)
                   for j in indices}, -1: len(steps)}
    iv_type = numpy_dtype(body.args[0].type.element)
    for trips, i in enumerate(steps):
        if trips >= run.left:
            raise _GiveUp  # (checked here too: a body that needs no folds still takes time)
        run.inside = {}
        run.args = {a: c for a, c in zip(body.args, [np.asarray(i, iv_type), *carried])
                    if c is not None}
        yields = body.terminator.operands
        carried = [run.value(yields[j]) if j in needed else carried[j] for j in range(len(carried))]
    return {**{j: carried[j] for j in indices}, -1: len(steps)}


def _stride(run: _Run, body, j: int):
    """``c`` where the body yields ``arg + c`` (or ``arg - c``: ``-c``) for the integer carried
    value ``j`` (``arg``, its block argument), ``c`` the same at every iteration; else None."""
    y, arg = body.terminator.operands[j], body.args[j + 1]
    op = y.op if isinstance(y, OpResult) else None
    if not (isinstance(op, ElementwiseOp) and op.kind in ("add", "sub")) or arg.type.element.is_float \
            or arg.type.element.is_complex or arg.type.shape != ():
        return None
    x, c = op.operands
    if op.kind == "add" and c is arg:
        x, c = c, x
    if x is not arg or numpy_dtype(arg.type.element).kind not in "iu":
        return None
    try:
        run.inside, run.args = {}, {}  # (no block argument: the same at every iteration)
        value = run.value(c)
    except _GiveUp:
        return None
    return int(value) if op.kind == "add" else -int(value)


def _wrapped(v: int, dtype) -> np.ndarray:
    """The Python int ``v`` in ``dtype``, wrapped as its arithmetic wraps."""
    bits = np.dtype(dtype).itemsize * 8
    unsigned = np.asarray(v % (1 << bits), np.dtype(f"u{bits // 8}"))
    return unsigned.view(dtype) if np.dtype(dtype).kind == "i" else unsigned.astype(dtype)


def _needed(loop, indices, predicate) -> set[int]:
    """The carried values (by position) that the results at ``indices`` and ``predicate`` depend
    on through the loop's regions: their yields are run at each iteration, the others not."""
    body = loop.body
    offset = 1 if isinstance(loop, ForOp) else 0  # (the for body's first argument is the index)
    needed: set[int] = set()
    todo = list(indices)
    if predicate is not None:
        todo += sorted(_carried_reads(predicate, loop.cond, 0))
    while todo:
        j = todo.pop()
        if j in needed:
            continue
        needed.add(j)
        todo += sorted(_carried_reads(body.terminator.operands[j], body, offset) - needed)
    return needed


def _carried_reads(v: Value, block, offset: int) -> set[int]:
    """Positions of ``block``'s carried arguments that ``v`` reads, through ops and their regions."""
    seen, out, todo = set(), set(), [v]
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, BlockArgument):
            if v.block is block and v.index >= offset:
                out.add(v.index - offset)
            continue
        op = v.op
        if isinstance(op, IfOp):  # its condition, and what each branch yields for this result
            todo += [op.condition, op.then_block.terminator.operands[v.index],
                     op.else_block.terminator.operands[v.index]]
            continue
        todo += op.operands
        for inner in (o for region in op.regions for b in region.blocks for o in b.ops):
            todo += inner.operands  # (a nested loop: the run gives up on it anyway)
    return out
