"""``return``, ``break`` and ``continue`` as state flags, so that every remaining loop and branch
is structured (one way in, one way out) and can become a helper call with explicit state.

- ``return v`` inside a branch or loop sets ``__ag_retval`` and ``__ag_do_return``; what follows
  runs under ``if not __ag_do_return`` (or, when the other branch of an ``if`` always returns,
  inside that branch, so both branches define the result). In a loop it also breaks.
- ``break`` sets the loop's flag; the statements after it run under ``if not flag``; the loop
  test becomes ``not flag and test``; a loop's ``else`` runs under ``if not flag``.
- ``continue`` sets a flag reset at the top of each iteration, and guards the same way.

On concrete values the flags are Python bools and the program does what the original did.
"""

from __future__ import annotations

import ast

RETVAL = "__ag_retval"
DO_RETURN = "__ag_do_return"
_STOP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _contains(stmts, kinds, into_loops: bool) -> bool:
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, _STOP) or (not into_loops and isinstance(n, (ast.For, ast.While))):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _set(flag: str, value) -> ast.Assign:
    return ast.Assign(targets=[_name(flag, True)], value=value if isinstance(value, ast.AST)
                      else ast.Constant(value))


def _unless(flag: str, stmts) -> ast.If:
    return ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(flag)), body=stmts, orelse=[])


def always_ends(stmts, kind=ast.Return) -> bool:
    """Whether every path through ``stmts`` ends in a statement of ``kind`` (a return, a raise)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, kind):
        return True
    return isinstance(last, ast.If) and always_ends(last.body, kind) and always_ends(last.orelse, kind)


def _located(new, old):
    for n in ast.walk(new) if isinstance(new, ast.AST) else ():
        if not hasattr(n, "lineno") and isinstance(n, (ast.stmt, ast.expr)):
            ast.copy_location(n, old)
    return new


def lower_returns(fn: ast.FunctionDef) -> None:
    """Rewrite ``fn``'s returns as flags when one sits inside a branch or loop."""
    nested = _contains([s for s in fn.body if not isinstance(s, ast.Return)], ast.Return, True)
    if not nested:
        return
    body = _returns_block(fn.body, in_loop=False)
    end = ast.Return(value=ast.Call(func=ast.Attribute(value=_name("__ag__"), attr="result", ctx=ast.Load()),
                                    args=[ast.Call(func=_name("locals"), args=[], keywords=[])],
                                    keywords=[]))
    last = fn.body[-1]
    fn.body = [_located(_set(DO_RETURN, False), fn.body[0]), *body, _located(end, last)]


def _returns_block(stmts, in_loop: bool) -> list:
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(None)
            out += [_located(_set(RETVAL, value), s), _located(_set(DO_RETURN, True), s)]
            if in_loop:
                out.append(_located(ast.Break(), s))
            return out
        compound = isinstance(s, (ast.If, ast.For, ast.While, ast.With, ast.Try))
        if not compound or not _contains([s], ast.Return, True):
            out.append(s)
            continue
        rest = stmts[i + 1:]
        if isinstance(s, ast.If):
            then_returns, else_returns = always_ends(s.body), always_ends(s.orelse)
            # (asked before lowering: afterwards a return is a flag assignment)
            other_returns = _contains(s.orelse if then_returns else s.body, ast.Return, True)
            if rest and then_returns != else_returns and (not other_returns or not in_loop):
                # One branch always returns: the rest joins the other, lowered with it, so that
                # a name it sets and the rest reads is not needed on the returning branch; an
                # if in it that returns on one path takes the rest in turn. (In a loop, where
                # a return also breaks, only a branch without returns takes it.)
                if then_returns:
                    s.orelse = s.orelse + rest
                else:
                    s.body = s.body + rest
                s.body = _returns_block(s.body, in_loop)
                s.orelse = _returns_block(s.orelse, in_loop)
                out.append(s)
                return out
            s.body = _returns_block(s.body, in_loop)
            s.orelse = _returns_block(s.orelse, in_loop)
        elif isinstance(s, (ast.For, ast.While)):
            s.body = _returns_block(s.body, in_loop=True)
            s.orelse = _returns_block(s.orelse, in_loop)
        else:
            s.body = _returns_block(s.body, in_loop)
            for h in getattr(s, "handlers", ()):
                h.body = _returns_block(h.body, in_loop)
            for field in ("orelse", "finalbody"):
                if getattr(s, field, None):
                    setattr(s, field, _returns_block(getattr(s, field), in_loop))
        out.append(s)
        if in_loop:
            out.append(_located(ast.If(test=_name(DO_RETURN), body=[ast.Break()], orelse=[]), s))
            out += rest  # the break lowering guards them
            return out
        if rest:
            # (placed at the statement that may return: a message about this if names the line
            # the user wrote, not the first of the statements it guards)
            out.append(_located(_unless(DO_RETURN, _returns_block(rest, in_loop)), s))
        return out
    return out


class _Counter:
    def __init__(self):
        self.n = 0

    def __call__(self, stem: str) -> str:
        self.n += 1
        return f"__ag_{stem}_{self.n}"


def lower_jumps(fn: ast.FunctionDef) -> None:
    """Rewrite the ``break``/``continue`` of every loop in ``fn`` (not in nested functions)."""
    fresh = _Counter()

    def visit_block(stmts) -> list:
        out = []
        for s in stmts:
            if isinstance(s, _STOP):
                out.append(s)
                continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, visit_block(getattr(s, field)))
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    h.body = visit_block(h.body)
            if isinstance(s, ast.While) and _binds_names(s.test):
                s = _test_in_body(s, fresh)
            if isinstance(s, ast.If) and _binds_names(s.test):
                first, s.test = _hoisted(s.test, fresh)
                out += first
            out += _loop(s, fresh) if isinstance(s, (ast.For, ast.While)) else [s]
        return out

    fn.body = visit_block(fn.body)


def _binds_names(test) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in ast.walk(test))


def _test_in_body(loop: ast.While, fresh) -> ast.While:
    """``while (k := k + 1) < n: body [else: rest]`` -> ``while True: if not ((k := k + 1) <
    n): rest; break`` then ``body``: a name the test binds is then bound in the loop's body,
    whose state carries it (as the test's own function it was a local read before it was
    bound: UnboundLocalError). The else part runs where the test fails, not after a break, as
    Python's."""
    first, test = _hoisted(loop.test, fresh)
    stop = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test), body=[*loop.orelse, ast.Break()],
                  orelse=[])
    body = [_located(s, loop.test) for s in (*first, stop)]
    new = ast.While(test=ast.Constant(True), body=[*body, *loop.body], orelse=[])
    return _located(ast.copy_location(new, loop), loop)


def _hoisted(test, fresh) -> tuple[list, ast.expr]:
    """A test ``(m := f(x)) > 0 and g(m)`` whose first operand binds a name, as the statement
    ``t = (m := f(x)) > 0`` and the test ``t and g(m)``: the first operand always runs, and
    ``and``/``or`` of traced values become calls of thunks (lambdas), in which the binding
    would be the lambda's own. A binding in a later operand, which runs only sometimes, stays."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):  # not (... and ...)
        first, inner = _hoisted(test.operand, fresh)
        return first, _located(ast.UnaryOp(op=ast.Not(), operand=inner), test)
    if not (isinstance(test, ast.BoolOp) and _binds_names(test.values[0])
            and not any(_binds_names(v) for v in test.values[1:])):
        return [], test
    name = fresh("first")
    bind = _located(ast.Assign(targets=[_name(name, True)], value=test.values[0]), test)
    return [bind], _located(ast.BoolOp(op=test.op, values=[_name(name), *test.values[1:]]), test)


def _loop(loop, fresh) -> list:
    before, after = [], []
    if _contains(loop.body, ast.Continue, False):
        flag = fresh("continue")
        loop.body = [_located(_set(flag, False), loop.body[0]), *_jump_block(loop.body, ast.Continue, flag)]
    if _contains(loop.body, ast.Break, False):
        flag = fresh("break")
        before.append(_located(_set(flag, False), loop))
        loop.body = _jump_block(loop.body, ast.Break, flag)
        not_broken = ast.UnaryOp(op=ast.Not(), operand=_name(flag))
        if isinstance(loop, ast.While):
            loop.test = _located(ast.BoolOp(op=ast.And(), values=[not_broken, loop.test]), loop.test)
        else:
            loop.extra_test = _located(not_broken, loop)
        if loop.orelse:
            after.append(_located(_unless(flag, loop.orelse), loop.orelse[0]))
            loop.orelse = []
    elif loop.orelse:
        after, loop.orelse = loop.orelse, []
    return [*before, loop, *after]


def _jump_block(stmts, kind, flag: str) -> list:
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.append(_located(_set(flag, True), s))
            return out
        if isinstance(s, (ast.If, ast.With, ast.Try)) and _contains([s], kind, False):
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, _jump_block(getattr(s, field), kind, flag))
            for h in getattr(s, "handlers", ()):  # ``except E: break``: a flag, as the body's
                h.body = _jump_block(h.body, kind, flag)
            out.append(s)
            rest = stmts[i + 1:]
            if rest:
                out.append(_located(_unless(flag, _jump_block(rest, kind, flag)), s))  # (at the jumping if)
            return out
        out.append(s)
    return out
