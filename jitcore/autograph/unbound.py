"""Variables that a traced loop or ``if`` may leave without a value, read after it.

``for i in range(n): ...`` then ``return i``: Python raises ``UnboundLocalError`` where the
loop ran zero times; so does a read of a name first bound in the body, or in one branch of an
``if`` that did not run. Traced, the loop carries such a variable from zeros of its type (the
body's, ``statements._Loop.init``), and the zeros came back silently where ``n`` was 0.

Now whether such a variable is bound is a value the statements give out as they give out the
variable: a traced ``if`` gives out, per branch, a bool for each variable that had no value (or
a noted one) as it started (``KEY + name`` among its results: ``given_flag``), a traced loop
carries one, and each notes the value it leaves in the variable with that bool (``note``, by
the value's identity, in ``Trace.maybe_unbound``). The conversion wraps each read of a local
that some path reaches with no assignment (``reads_to_check``, on the user's own AST;
``wrap_reads`` once converted) in ``bound``, which raises Python's error at once where the
variable has no value while tracing (a loop run in Python zero times) and, for a noted value,
adds a check to the compiled code that raises it where the bool fails when the function runs.
A value never noted (a variable bound before the statement, or by every step of a loop known
to run) costs nothing.
"""

from __future__ import annotations

import ast

import numpy as np

from jitcore import raise_state
from jitcore.autograph import analysis
from jitcore.tracer import Tracer, current_trace, user_location


class Undefined:
    """The value of a variable that has none yet (Python would raise UnboundLocalError)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"

    def _unbound(self, *args):
        raise UnboundLocalError(f"local variable '{self.name}' referenced before assignment")

    __bool__ = __len__ = __iter__ = __getitem__ = __call__ = __index__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _unbound
    __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __float__ = __int__ = _unbound

    def __getattr__(self, attr):
        self._unbound()


def message(name: str) -> str:
    """Python's message for a read of the local ``name`` that has no value."""
    return f"cannot access local variable '{name}' where it is not associated with a value"


def _noteable(value) -> bool:
    """A tracer, or a container holding one: objects made for the statement's result, whose
    identity names them (a Python number's does not: ``0`` is one object everywhere)."""
    if isinstance(value, Tracer):
        return True
    if isinstance(value, (tuple, list)):
        return any(_noteable(v) for v in value)
    if isinstance(value, dict):
        return any(_noteable(v) for v in value.values())
    return False


def flag(value):
    """Whether ``value`` is bound: a traced bool where a statement noted it, else True."""
    trace = current_trace()
    entry = None if trace is None else trace.maybe_unbound.get(id(value))
    return entry[1] if entry is not None and entry[0] is value else True


KEY = "\0bound "  # a statement's output (a branch's, a loop's carry) of a variable's flag


def tracked(value) -> bool:
    """Whether a variable holding ``value`` as a traced statement starts may be unbound (no
    value yet, or one noted): the statement then gives out its flag (``KEY + name``)."""

    return isinstance(value, Undefined) or flag(value) is not True


def given_flag(value, before, flag_before):
    """The flag a branch or a loop's step gives out for a variable it leaves as ``value``:
    where it is still ``before`` (the value it was given), the flag it was given; else the
    value's own (True where the step bound it: no note)."""

    if value is before:
        return flag_before
    if isinstance(value, Undefined):
        return np.False_
    return np.bool_(True) if flag(value) is True else flag(value)


def note(value, bound) -> None:
    """``value`` is what a traced statement left in a variable that is bound only where the
    traced bool ``bound`` holds (True: always; nothing to note)."""
    if bound is True or (isinstance(bound, np.bool_) and bound) \
            or not isinstance(bound, (Tracer, np.bool_, bool)):
        return
    trace = current_trace()
    if trace is not None and _noteable(value):
        trace.maybe_unbound[id(value)] = (value, bound)


def bound(value, name: str):
    """A read of the local ``name`` (``value``) that is not assigned on every path to it: Python's
    ``UnboundLocalError`` where it has no value, now or, for a value a traced statement left
    (``note``), when the compiled function runs and finds it unbound."""

    if isinstance(value, Undefined):
        raise UnboundLocalError(message(name))
    is_bound = flag(value)
    if is_bound is not True:
        _check(is_bound, name)
    return value


def _check(is_bound, name: str) -> None:
    """A check in the compiled code that raises Python's error where ``is_bound`` fails."""
    from jitcore.control_flow import cond  # here: control flow loads after this module
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    where = user_location()
    missing = np.logical_not(is_bound)

    def fail(_):
        error = UnboundLocalError(message(name))
        error.add_note(f"(raised by the compiled function, at {where}: the loop or branch that "
                       "gives it a value did not run)")
        raise error

    def raising():
        raise_state.keep(current_trace())  # the arguments written before the raise
        debug_callback(fail, missing)

    cond(missing, raising, lambda: None)


# -- the conversion: which reads may find no value -------------------------------------------

_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ENDS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


class _Reads:
    """Definite assignment over a function's own statements, as Python's compiler sees it:
    the loads of its locals that some path reaches with no assignment before them. A loop's
    body's loads of the names the loop assigns are left out: the loop's trial runs and first
    pass give them their values (``statements._Loop``), which the conversion reads as state."""

    def __init__(self, own: set[str]):
        self.own = own
        self.found: dict[int, ast.Name] = {}

    def expr(self, node, defined, looped) -> None:
        todo = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, _SCOPES):
                continue
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in self.own \
                    and n.id not in defined and n.id not in looped and not n.id.startswith("__ag"):
                self.found[id(n)] = n
            todo.extend(ast.iter_child_nodes(n))

    def block(self, stmts, defined: set, looped: frozenset) -> set:
        for s in stmts:
            defined = self.stmt(s, defined, looped)
        return defined

    def stmt(self, s, defined: set, looped: frozenset) -> set:
        everything = set(self.own)  # after a jump: no path goes on from here
        if isinstance(s, ast.If):
            self.expr(s.test, defined, looped)
            return self.block(s.body, set(defined), looped) & self.block(s.orelse, set(defined), looped)
        if isinstance(s, (ast.For, ast.AsyncFor)):
            self.expr(s.iter, defined, looped)
            targets: set[str] = set()
            analysis._targets(s.target, targets, False)
            inner = looped | analysis.assigned(s.body) | targets
            self.block(s.body, defined | targets, frozenset(inner))
            self.block(s.orelse, set(defined), looped)
            return defined
        if isinstance(s, ast.While):
            inner = frozenset(looped | analysis.assigned(s.body))
            self.expr(s.test, defined, inner)
            self.block(s.body, set(defined), inner)
            self.block(s.orelse, set(defined), looped)
            return defined
        if isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                self.expr(item.context_expr, defined, looped)
                if item.optional_vars is not None:
                    analysis._targets(item.optional_vars, defined := set(defined), False)
            return self.block(s.body, defined, looped)
        if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.block(s.body, set(defined), looped)
            for h in s.handlers:
                self.block(h.body, defined | ({h.name} if h.name else set()), looped)
            self.block(s.orelse, set(defined), looped)
            return self.block(s.finalbody, set(defined), looped)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return defined | {s.name}
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return defined | analysis.assigned([s])
        if isinstance(s, ast.Match):
            return defined
        if isinstance(s, ast.Delete):
            gone: set[str] = set()
            for t in s.targets:
                analysis._targets(t, gone, False)
            return defined - gone
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if s.value is not None:
                self.expr(s.value, defined, looped)
            for t in targets:  # (a subscript's base and key are read; a name is bound)
                if not isinstance(t, ast.Name):
                    self.expr(t, defined, looped)
            bound_now: set[str] = set()
            if s.value is not None:
                for t in targets:
                    analysis._targets(t, bound_now, False)
            defined = defined | bound_now
        else:
            for child in ast.iter_child_nodes(s):
                self.expr(child, defined, looped)
        walrus = {n.target.id for n in analysis.walk(s) if isinstance(n, ast.NamedExpr)}
        return everything if isinstance(s, _ENDS) else defined | walrus


def reads_to_check(fn: ast.FunctionDef, own: set[str]) -> dict[int, ast.Name]:
    """The loads in ``fn``'s own code (by ``id``; the nodes kept alive) of locals that may have
    no value there: read before the conversion moves them, wrapped after it (``wrap_reads``)."""
    reads = _Reads(own)
    reads.block(fn.body, analysis._params(fn.args), frozenset())
    return reads.found


class _Wrap(ast.NodeTransformer):
    def __init__(self, found):
        self.found = found

    def visit_Name(self, node):
        if self.found.get(id(node)) is not node or not isinstance(node.ctx, ast.Load):
            return node
        call = ast.Call(func=ast.Attribute(value=ast.Name(id="__ag__", ctx=ast.Load()), attr="bound",
                                           ctx=ast.Load()),
                        args=[node, ast.Constant(node.id)], keywords=[])
        return ast.copy_location(call, node)


def wrap_reads(fn: ast.FunctionDef, found: dict[int, ast.Name]) -> None:
    """Each load in ``found`` still in the converted ``fn`` as ``__ag__.bound(name, "name")``."""
    if found:
        _Wrap(found).visit(fn)
