"""``try`` statements as traced control flow over the failures compiled code finds when it runs.

The first step of ``convert_function`` (``jitcore/failures.py`` says why). Each ``try`` with
except clauses (not those of nested functions: they are converted on their own) becomes,
in plain Python that runs as the original where nothing is soft::

    __agf_try_1 = __ag__.attempt(line, lambda: (E1, E2))
    _jc_failed_1 = False
    try:
        with __agf_try_1:                     # the try being traced (trace.catching)
            s1
            _jc_failed_1 = __ag__.failed(__agf_try_1, _jc_failed_1)
            if not _jc_failed_1:              # traced where s1 may have failed
                s2 ...
    except E1: h1                             # errors raised while tracing, as before
    except E2: h2
    else:
        if __ag__.caught(__agf_try_1, _jc_failed_1, 0): h1'   # traced where it failed
        elif __ag__.caught(__agf_try_1, _jc_failed_1, 1): h2'
        elif not _jc_failed_1: else-clause
        __ag__.uncaught(__agf_try_1, _jc_failed_1)   # to an enclosing try
    finally: ...

The flag is a variable of the function, so traced ``if``s and loops carry it as their state.
A ``return value`` in the body is split (the value, then the check, then the return), so that
``return np.linalg.inv(A), True`` returns only where the inverse exists. In a handler's copy
``e`` of ``except ... as e`` and a bare ``raise`` are NumPy's error (``failures.error_of``).
"""

from __future__ import annotations

import ast
import copy
import itertools

from jitcore.autograph import analysis
from jitcore.autograph.analysis import GENERATED

AG = "__ag__"
FLAG = "_jc_failed_"  # not GENERATED: traced ifs and loops carry it as state
_COUNT = itertools.count()


def _load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def _store(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Store())


def _helper(name: str, *args) -> ast.Call:
    func = ast.Attribute(value=_load(AG), attr=name, ctx=ast.Load())
    return ast.Call(func=func, args=list(args), keywords=[])


def _assign(name: str, value) -> ast.Assign:
    return ast.Assign(targets=[_store(name)], value=value)


def _not(name: str) -> ast.UnaryOp:
    return ast.UnaryOp(op=ast.Not(), operand=_load(name))


def is_attempt(node: ast.Try) -> bool:
    """Whether ``node`` is a ``try`` this module rewrote (its body is the attempt's ``with``)."""
    return (len(node.body) == 1 and isinstance(node.body[0], ast.With)
            and isinstance(node.body[0].items[0].context_expr, ast.Name)
            and node.body[0].items[0].context_expr.id.startswith(f"{GENERATED}try_"))


def tests_flag(node) -> bool:
    """Whether ``node`` is an ``if`` on a failure flag (a guard of the rest of a try's body, or
    the choice of its handler): traced control flow the try itself asks for."""
    return isinstance(node, ast.If) and any(isinstance(n, ast.Name) and n.id.startswith(FLAG)
                                            for n in ast.walk(node.test))


class _Tries(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_Try(self, node):
        self.generic_visit(node)
        if not (node.handlers and node.body):
            return node
        n = next(_COUNT)
        attempt, flag = f"{GENERATED}try_{n}", f"{FLAG}{n}"
        clauses = [copy.deepcopy(h.type) if h.type is not None else _load("BaseException")
                   for h in node.handlers]
        no_args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                kwarg=None, defaults=[])
        handled = ast.Lambda(args=no_args, body=ast.Tuple(elts=clauses, ctx=ast.Load()))
        setup = [_assign(attempt, _helper("attempt", ast.Constant(node.lineno), handled)),
                 _assign(flag, ast.Constant(False))]
        node.body = [ast.With(items=[ast.withitem(context_expr=_load(attempt))],
                              body=_guarded(node.body, attempt, flag))]
        chain = [ast.If(test=_not(flag), body=node.orelse, orelse=[])] if node.orelse else []
        for k in reversed(range(len(node.handlers))):
            test = _helper("caught", _load(attempt), _load(flag), ast.Constant(k))
            chain = [ast.If(test=test, body=_handler_copy(node.handlers[k], attempt), orelse=chain)]
        node.orelse = chain + [ast.Expr(value=_helper("uncaught", _load(attempt), _load(flag)))]
        out = [*setup, node]
        for s in out:
            _locate(s, node)
        return out


def _guarded(stmts, attempt: str, flag: str) -> list:
    """``stmts`` with the flag brought up to date after each, and the rest under ``if not flag``."""
    out = []
    for k, s in enumerate(stmts):
        if isinstance(s, ast.Return) and s.value is not None:  # the value, checked, then returned
            value = f"{GENERATED}value_{next(_COUNT)}"
            out += [_locate(_assign(value, s.value), s), _check(attempt, flag, s),
                    _locate(ast.If(test=_not(flag), body=[_locate(ast.Return(value=_load(value)), s)],
                                   orelse=[]), s)]
            return out
        if isinstance(s, (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Pass)):
            out.append(s)
            continue  # nothing in it can fail when it runs
        # the names it binds: where it failed, as before it (Python never bound them)
        names = sorted(n for n in _rebound(s) if not n.startswith((GENERATED, FLAG)))
        old = f"{GENERATED}old_{next(_COUNT)}"
        if names:
            out.append(_locate(_assign(old, _helper("bound_before", _call_locals(), _strings(names))), s))
        out += [s, _check(attempt, flag, s)]
        if names:  # (a Python if: only a traced flag restores, and a name may be unbound now)
            back = [_assign(n, _helper("restored", _load(old), ast.Constant(n), _load(n), _load(flag)))
                    for n in names]
            out.append(_locate(ast.If(test=_helper("is_traced", _load(flag)), body=back, orelse=[]), s))
        rest = stmts[k + 1:]
        if rest:
            out.append(_locate(ast.If(test=_not(flag), body=_guarded(rest, attempt, flag), orelse=[]), s))
        return out
    return out


def _rebound(s) -> set[str]:
    """The names ``s`` binds (not those it writes into: ``out[k] = v`` keeps ``out`` the caller's)."""
    v = analysis._Assigned(subscripts=False)
    v.visit(s)
    return v.names


def _call_locals() -> ast.Call:
    return ast.Call(func=_load("locals"), args=[], keywords=[])


def _strings(names) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _check(attempt: str, flag: str, where) -> ast.Assign:
    return _locate(_assign(flag, _helper("failed", _load(attempt), _load(flag))), where)


class _Reraises(ast.NodeTransformer):
    """A bare ``raise`` of the handler (not one in a nested handler or function): NumPy's error."""

    def __init__(self, attempt: str):
        self.attempt = attempt

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_ExceptHandler = visit_FunctionDef

    def visit_Raise(self, node):
        if node.exc is None:
            node.exc = _locate(_helper("error_of", _load(self.attempt)), node)
        return node


def _handler_copy(handler: ast.ExceptHandler, attempt: str) -> list:
    body = [_Reraises(attempt).visit(s) for s in copy.deepcopy(handler.body)]
    if handler.name is not None:  # renamed: a GENERATED name is no branch's state (Python drops it after)
        error = f"{GENERATED}error_{next(_COUNT)}"
        for n in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(n, ast.Name) and n.id == handler.name:
                n.id = error
        body.insert(0, _locate(_assign(error, _helper("error_of", _load(attempt))), handler))
    return body


def _locate(node, where):
    for n in ast.walk(node):
        if isinstance(n, (ast.stmt, ast.expr)) and not hasattr(n, "lineno"):
            ast.copy_location(n, where)
            n.end_lineno, n.end_col_offset = where.lineno, where.col_offset
    return node


def convert_tries(fn: ast.FunctionDef) -> None:
    """Rewrite ``fn``'s own ``try`` statements in place, as the module docstring shows."""
    tries = _Tries()
    fn.body = [out for s in fn.body for out in _as_list(tries.visit(s))]


def _as_list(x) -> list:
    return x if isinstance(x, list) else [x]
