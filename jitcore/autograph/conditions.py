"""``and``/``or``/``not`` in an ``if`` test as branches, before the statements are converted.

Python evaluates ``if occ[i] == 0 and find(i) == i:`` as two nested tests: the right operand runs
(its draws made, its writes done) only where the left one holds. As an expression, ``and`` of
traced values is ``expressions.and_``: an ``scf.if`` that yields the right operand's value, a
region that cannot carry what the operand writes (a helper writing an enclosing array is
refused) and that the ``if`` after it branches on a second time. Written as statements instead,
the operands are ``if`` statements of their own, which carry writes and draws as any branch does:

- ``if a and b: S`` (no else) is ``if a: if b: S``, the code the nested form compiles to; and
  ``if a or b: (nothing) else: E``, as ``if not (a and b)`` gives, ``if not a: if not b: E``.
- Any other test (``or`` with a body, ``and`` with an else) computes its truth in a flag with
  the same short circuit (``t = not not a; if t: t = not not b``) and branches on the flag once,
  so no branch is compiled twice (an ``elif`` chain copied into each failing path would be).

Tests that bind a name (``:=``) are left as they are: ``lowering`` hoists their first operand.
Nested functions are converted on their own.
"""

from __future__ import annotations

import ast
import builtins

from jitcore.autograph.lowering import _STOP, _Counter, _located

FLAG = "cond"  # the flags' stem: ``__ag_cond_N``


def _rewrite_blocks(stmts, rewrite) -> list:
    """``stmts`` with every statement's own blocks rewritten first (bodies, ``else`` parts,
    handlers, match cases; not nested functions, ``_STOP``), then ``rewrite(s)``, a list of the
    statements that replace ``s``."""
    out = []
    for s in stmts:
        if isinstance(s, _STOP):
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _rewrite_blocks(getattr(s, field), rewrite))
        for h in getattr(s, "handlers", ()):
            h.body = _rewrite_blocks(h.body, rewrite)
        for case in getattr(s, "cases", ()):  # match statements
            case.body = _rewrite_blocks(case.body, rewrite)
        out += rewrite(s)
    return out


def split_conditions(fn: ast.FunctionDef) -> None:
    """Rewrite in place every ``if`` of ``fn`` (not of its nested functions) whose test is an
    ``and``/``or`` (or ``not`` of one) as branches on its operands."""
    fresh = _Counter()

    def rewrite(s) -> list:
        if isinstance(s, ast.If) and _logical(s.test) and not _binds_names(s.test):
            return [_located(n, s) for n in _branch(s.test, s.body, s.orelse, fresh)]
        return [s]

    fn.body = _rewrite_blocks(fn.body, rewrite)


def tests_in_bodies(fn: ast.FunctionDef) -> None:
    """``while a and f(i): body`` -> ``while True: if not (a and f(i)): break`` then ``body``,
    where an operand after the first calls a function of the user's by name (``find(i)``, which
    may write an enclosing array): the test is then an ``if`` of the loop's body, split as above,
    whose branches carry the writes (as the loop's test, ``and`` is an expression's branch that
    cannot). The ``else`` part runs where the test fails, not after a break, as Python's."""

    def rewrite(s) -> list:
        if isinstance(s, ast.While) and _calls_later(s.test) and not _binds_names(s.test):
            stop = ast.If(test=_not(s.test), body=[*s.orelse, ast.Break()], orelse=[])
            s = _located(ast.copy_location(ast.While(test=ast.Constant(True), body=[
                _located(stop, s.test), *s.body], orelse=[]), s), s)
        return [s]

    fn.body = _rewrite_blocks(fn.body, rewrite)


def _calls_later(test) -> bool:
    """Whether an operand of ``test``'s ``and``/``or`` after the first calls a name that is no
    builtin (the user's function)."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if not isinstance(test, ast.BoolOp):
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in _BUILTINS
               for v in test.values[1:] for n in ast.walk(v)) or any(_calls_later(v) for v in test.values[:1])


_BUILTINS = frozenset(dir(builtins))


def _logical(test) -> bool:
    """Whether ``test`` is an ``and``/``or``, or ``not`` of one."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.BoolOp)


def _binds_names(test) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in ast.walk(test))


def _not(test) -> ast.expr:
    return ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=test), test)


def _rest(test: ast.BoolOp) -> ast.expr:
    """``test``'s operands after the first: one operand, or the shorter chain."""
    if len(test.values) == 2:
        return test.values[1]
    return ast.copy_location(ast.BoolOp(op=test.op, values=test.values[1:]), test)


def _branch(test, body: list, orelse: list, fresh) -> list:
    """``if test: body else: orelse`` as statements whose tests are ``test``'s operands."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _logical(test.operand):
        return _branch(test.operand, orelse, body, fresh)
    if not isinstance(test, ast.BoolOp):
        if not body:  # (from ``not (a and b)``): ``if not a: orelse``
            return [ast.If(test=_not(test), body=orelse, orelse=[])] if orelse else []
        return [ast.If(test=test, body=body, orelse=orelse)]
    first, rest = test.values[0], _rest(test)
    if isinstance(test.op, ast.And) and not orelse:
        return _branch(first, _branch(rest, body, [], fresh), [], fresh)
    if isinstance(test.op, ast.Or) and not body:
        return _branch(first, [], _branch(rest, [], orelse, fresh), fresh)
    flag = fresh(FLAG)
    return [
        *_truth(test, flag),
        ast.If(test=ast.Name(id=flag, ctx=ast.Load()), body=body or [ast.Pass()], orelse=orelse),
    ]


def _truth(test, flag: str) -> list:
    """Statements that set ``flag`` to ``bool(test)``, evaluating ``test``'s operands as Python
    does: left to right, each only where the ones before leave the answer open."""
    load, store = ast.Name(id=flag, ctx=ast.Load()), ast.Name(id=flag, ctx=ast.Store())
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _logical(test.operand):
        return [*_truth(test.operand, flag), ast.Assign(targets=[store], value=_not(load))]
    if not isinstance(test, ast.BoolOp):
        value = test if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else _not(_not(test))
        return [ast.Assign(targets=[store], value=value)]
    # ``a and b``: b decides where a holds; ``a or b``: where a fails
    open_ = load if isinstance(test.op, ast.And) else _not(load)
    return [*_truth(test.values[0], flag), ast.If(test=open_, body=_truth(_rest(test), flag), orelse=[])]
