"""Name analysis of a function's AST for the conversion: which names a statement assigns, which
it reads, which it assigns on every path, and which are live after it.

Liveness is the usual backward dataflow over structured code (a loop iterates to a fixed
point). Names that a nested function or lambda reads are treated as live everywhere: a closure
may run at any later point. Generated helper functions (``GENERATED`` prefix) are not state.
"""

from __future__ import annotations

import ast
import copy
from ast import AST
from collections import deque

GENERATED = "__agf_"  # names of the functions the conversion defines; never loop state


def walk(node):
    """``ast.walk``: the same nodes in the same order (breadth first), without its two nested
    generators per node (``iter_child_nodes``, ``iter_fields``): conversion walks a function's
    tree dozens of times, one analysis after another."""
    todo = deque((node,))
    pop, push = todo.popleft, todo.append
    while todo:
        node = pop()
        for name in node._fields:
            field = getattr(node, name, None)
            if isinstance(field, AST):
                push(field)
            elif isinstance(field, list):
                for item in field:
                    if isinstance(item, AST):
                        push(item)
        yield node


def fix_missing_locations(node):
    """``ast.fix_missing_locations``, node for node in the same (pre-)order: a loop, where
    the library recurses through a generator per node. Conversion fixes each statement it
    rewrites, so the statements of a loop's body are fixed again with the loop's."""
    root = node
    todo = [(node, 1, 0, 1, 0)]
    pop, push = todo.pop, todo.append
    while todo:
        node, lineno, col_offset, end_lineno, end_col_offset = pop()
        attributes = node._attributes
        if "lineno" in attributes:
            if not hasattr(node, "lineno"):
                node.lineno = lineno
            else:
                lineno = node.lineno
        if "end_lineno" in attributes:
            if getattr(node, "end_lineno", None) is None:
                node.end_lineno = end_lineno
            else:
                end_lineno = node.end_lineno
        if "col_offset" in attributes:
            if not hasattr(node, "col_offset"):
                node.col_offset = col_offset
            else:
                col_offset = node.col_offset
        if "end_col_offset" in attributes:
            if getattr(node, "end_col_offset", None) is None:
                node.end_col_offset = end_col_offset
            else:
                end_col_offset = node.end_col_offset
        children = []
        for name in node._fields:
            field = getattr(node, name, None)
            if isinstance(field, AST):
                children.append(field)
            elif isinstance(field, list):
                children.extend(item for item in field if isinstance(item, AST))
        for child in reversed(children):  # popped first to last: the library's order
            push((child, lineno, col_offset, end_lineno, end_col_offset))
    return root


def _targets(target: ast.AST, out: set[str], subscripts: bool) -> None:
    """Names bound by an assignment target; with ``subscripts``, also the base name of a
    subscript target (``out[i] = v`` changes ``out``'s value)."""
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _targets(elt, out, subscripts)
    elif isinstance(target, ast.Starred):
        _targets(target.value, out, subscripts)
    elif subscripts and isinstance(target, (ast.Subscript, ast.Attribute)):
        base = target.value
        while isinstance(base, (ast.Subscript, ast.Attribute)) or _converted_getitem(base):
            base = base.args[0] if isinstance(base, ast.Call) else base.value
        if isinstance(base, ast.Name):
            out.add(base.id)


def _converted_getitem(node) -> bool:
    """``__ag__.getitem(base, key)``: a read the conversion made of ``base[key]`` (so that
    ``L[0][0] += 1`` changes ``L``)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "getitem" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "__ag__" and node.args != [])


def _converted_attribute_write(node, root: str) -> bool:
    """``__ag__.aug_attribute(root, 'name', op, value)``, ``__ag__.set_attribute(root, 'name',
    value)``: the conversion's ``root.name op= value`` and ``root.name = value``."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("aug_attribute", "set_attribute") and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "__ag__" and len(node.args) >= 3
            and isinstance(node.args[0], ast.Name) and node.args[0].id == root
            and isinstance(node.args[1], ast.Constant))


class _Assigned(ast.NodeVisitor):
    """Every name a statement list may assign (not inside nested functions' own scopes)."""

    def __init__(self, subscripts: bool = True):
        self.names: set[str] = set()
        self.subscripts = subscripts

    def visit_Assign(self, node):
        for t in node.targets:
            _targets(t, self.names, self.subscripts)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        _targets(node.target, self.names, self.subscripts)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        _targets(node.target, self.names, self.subscripts)
        self.generic_visit(node)

    def visit_For(self, node):
        _targets(node.target, self.names, False)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.names.add(node.target.id)
        self.generic_visit(node)

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, self.names, False)
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_FunctionDef(self, node):
        if not node.name.startswith(GENERATED):
            self.names.add(node.name)
        for d in node.decorator_list:
            self.visit(d)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.names.add(node.name)

    def visit_Lambda(self, node):
        pass

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_comprehension(self, node):
        self.visit(node.iter)  # its target is the comprehension's own


def _params(a: ast.arguments) -> set[str]:
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p}


def local_names(fn: ast.FunctionDef) -> set[str]:
    """The function's own locals: parameters and names it binds (not only subscripts)."""
    params = _params(fn.args)
    v = _Assigned(subscripts=False)
    for s in fn.body:
        v.visit(s)
    return params | v.names


def assigned(stmts) -> set[str]:
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return v.names


# Attributes of an array that are views of it, not an object's own (``z.real[...] = v``)
_ARRAY_VIEWS = frozenset({"real", "imag", "T", "mT", "flat", "base"})


def attribute_targets(stmts, own: set[str]) -> list[tuple[str, str]]:
    """``(name, attribute)`` of each ``name.attribute = v`` (or ``+=``) in ``stmts`` on a name of
    the function's own (``own``), as written or as converted (``set_attribute(name, 'a', v)``,
    ``aug_attribute``):
    an object's attributes that a traced branch or loop carries as it carries variables. Through
    nested objects (``s.grid.u = v``; session 50) the attribute is the dotted path (``grid.u``),
    unless ``stmts`` also assign a shorter one (``s.grid = g``: the object itself is replaced)."""
    found: dict = {}
    for n in (m for s in stmts for m in walk(s)):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
            n, (ast.AugAssign, ast.AnnAssign)) else []
        pairs = [(t.value, t.attr) for t in targets if isinstance(t, ast.Attribute)]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in ("set_attribute", "aug_attribute") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == "__ag__" \
                and len(n.args) >= 3 and isinstance(n.args[1], ast.Constant):
            pairs.append((n.args[0], n.args[1].value))
        for base, attr in pairs:
            path = [attr]
            while isinstance(base, ast.Attribute):  # s.grid.u: the chain down to its name
                path.insert(0, base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in own and not _ARRAY_VIEWS & set(path):
                found[(base.id, ".".join(path))] = None
    return [(n, a) for n, a in found if not any(
        (n, a[:k]) in found for k in range(len(a)) if a[k] == ".")]


def method_calls(stmts, own: set[str]) -> list[tuple[str, str]]:
    """``(name, method)`` of each ``name.method(...)`` call in ``stmts`` on a name of ``own``, as
    written or as converted (``__ag__.call(name.method)(...)``): methods that may set the
    object's attributes while a traced branch or loop body is traced."""
    found: dict = {}
    for n in (m for s in stmts for m in walk(s)):
        if not isinstance(n, ast.Call):
            continue
        func = n.func
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) \
                and func.func.attr == "call" and isinstance(func.func.value, ast.Name) \
                and func.func.value.id == "__ag__" and func.args:
            func = func.args[0]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in own:
            found[(func.value.id, func.attr)] = None
    return list(found)


def written(stmts) -> set[str]:
    """Base names of subscript targets (``out[i] = v``, ``h[k] += 1``): arrays changed in place,
    which are state wherever they are written, live or not (an argument's caller sees them)."""
    out: set[str] = set()
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
            n, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if isinstance(t, ast.Subscript):
                _targets(t, out, True)
        if isinstance(n, ast.Assign) and _is_setitem(n.value):  # as converted: h = setitem(h, ...)
            _targets(n.targets[0], out, False)
    return _with_viewed(stmts, out)


_IN_PLACE = ("setitem", "aug_setitem", "nested_setitem", "nested_aug_setitem", "out_call",
             "at_call", "aug_assign", "fill", "refreshed")
_STATEMENTS = ("for_stmt", "while_stmt", "if_stmt")


class _Rebound(_Assigned):
    """``_Assigned`` less the writes in place that the conversion spells as an assignment."""

    def __init__(self):
        super().__init__(subscripts=False)

    def visit_Assign(self, node):
        value, targets = node.value, node.targets
        call = value if isinstance(value, ast.Call) else None
        if (call is not None and any(_is_helper(call.func, h) for h in _IN_PLACE) and call.args
                and len(targets) == 1 and isinstance(targets[0], ast.Name)
                and _written_name(call) == targets[0].id):
            self.generic_visit(node)
            return
        if call is not None and any(_is_helper(call.func, h) for h in _STATEMENTS):
            given = next((k.value for k in call.keywords if k.arg == "rebinds"), None)
            if isinstance(given, ast.Tuple):
                self.names |= {e.value for e in given.elts if isinstance(e, ast.Constant)}
            else:  # not known: every name it sets
                for t in targets:
                    _targets(t, self.names, False)
            self.generic_visit(node)
            return
        super().visit_Assign(node)

    def visit_AugAssign(self, node):  # in place on an array (a number's is not shared)
        self.generic_visit(node)


def _written_name(call: ast.Call) -> str | None:
    """The name an in-place helper writes: its first argument (``out_call``'s and ``at_call``'s
    second, after the function)."""
    k = 1 if any(_is_helper(call.func, h) for h in ("out_call", "at_call")) else 0
    arg = call.args[k] if len(call.args) > k else None
    return arg.id if isinstance(arg, ast.Name) else None


def rebound(stmts) -> set[str]:
    """The names the statements (as converted) bind to another object (``a = a + 1``, a loop's
    target), rather than change in place (``a[i] = v`` and ``a += 1``, which the conversion
    spells ``a = __ag__.setitem(a, i, v)``); a converted statement among them binds anew the
    names its own ``rebinds`` lists. ``aliasing`` carries the others as shared arrays."""
    v = _Rebound()
    for s in stmts:
        v.visit(s)
    return v.names


def only_refreshed(stmts, names) -> set[str]:
    """The ``names`` that the statements (as converted) bind only by reading them again after a
    call (``n = __ag__.refreshed(n)``: ``rng.random(n)`` might have written an array ``n``), or
    as the result of an inner loop that lists them so (``refreshed=``): a Python number there
    stays itself, so the loop need not carry it (``statements.for_stmt``)."""
    out = set(names)
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Assign):
            value, targets = n.value, n.targets
            if (isinstance(value, ast.Call) and _is_helper(value.func, "refreshed") and len(targets) == 1
                    and isinstance(targets[0], ast.Name) and value.args
                    and isinstance(value.args[0], ast.Name) and value.args[0].id == targets[0].id):
                continue
            inner = set()
            if isinstance(value, ast.Call) and any(_is_helper(value.func, h) for h in _STATEMENTS):
                inner = {e.value for k in value.keywords if k.arg == "refreshed"
                         for e in getattr(k.value, "elts", ()) if isinstance(e, ast.Constant)}
            out -= {t.id for tg in targets for t in walk(tg)
                    if isinstance(t, ast.Name) and t.id not in inner}
    # bound otherwise (a loop's target, x += 1 on a name, with ... as n, del n): carried
    stored = {n.id for s in stmts for n in walk(s) if isinstance(n, ast.Name)
              and isinstance(n.ctx, (ast.Store, ast.Del))}
    assigned = {t.id for s in stmts for a in walk(s) if isinstance(a, ast.Assign)
                for tg in a.targets for t in walk(tg) if isinstance(t, ast.Name)}
    return out - (stored - assigned)


def _with_viewed(stmts, out: set[str]) -> set[str]:
    """``out`` and the arrays its names view: ``v = x[i:i + 3]; v[:] = 0`` (or ``v *= 2``)
    writes ``x``, which is then state as well."""
    views: dict[str, str] = {}
    in_place: set[str] = set()
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            in_place.add(n.target.id)  # on an array (a rebinding only of a number)
        if (isinstance(n, ast.Call) and _is_helper(n.func, "aug_assign") and n.args
                and isinstance(n.args[0], ast.Name)):
            in_place.add(n.args[0].id)  # as converted: v = aug_assign(v, "Mult", 2)
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            base = _viewed(n.value)
            if base is not None:
                views[n.targets[0].id] = base
    grown = True
    while grown:
        grown = False
        for view, base in views.items():
            if (view in out or view in in_place) and base not in out:
                out.add(base)
                grown = True
    return out


def _viewed(value) -> str | None:
    """The name whose array ``value`` indexes (``x[i:j]``, ``x[i][j]``, and as converted,
    ``__ag__.getitem(x, ...)``), else None."""
    base = value
    while True:
        if isinstance(base, ast.Subscript):
            base = base.value
        elif isinstance(base, ast.Call) and _is_helper(base.func, "getitem") and base.args:
            base = base.args[0]
        else:
            break
    return base.id if base is not value and isinstance(base, ast.Name) else None


def _is_helper(f, name: str) -> bool:
    return (isinstance(f, ast.Attribute) and f.attr == name and isinstance(f.value, ast.Name)
            and f.value.id == "__ag__")


def _is_setitem(value) -> bool:
    return isinstance(value, ast.Call) and any(
        _is_helper(value.func, name) for name in ("setitem", "aug_setitem", "nested_setitem",
                                                  "nested_aug_setitem", "out_call", "at_call",
                                                  "fill"))


def _sub_blocks(s) -> list:
    """The statement lists nested in a compound statement other than if/for/while."""
    out = [getattr(s, f) for f in ("body", "orelse", "finalbody") if isinstance(getattr(s, f, None), list)]
    out += [h.body for h in getattr(s, "handlers", ())]
    out += [c.body for c in getattr(s, "cases", ())]
    return out


def loaded(node) -> set[str]:
    """Every name read anywhere in ``node`` (nested functions included). ``x += 1`` reads
    ``x``, though its target's context is Store: a branch's ``count += 1`` on a name dead after
    the if needs the count's value (it was left out of the branch's state: UnboundLocalError)."""
    names = {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    augmented = [n.target for n in walk(node) if isinstance(n, ast.AugAssign)]
    return names | {t.id for t in augmented if isinstance(t, ast.Name)}


def _free_reads(n) -> set[str]:
    """Names a nested function or lambda reads from the scopes around it: its defaults and
    decorators, and what its body reads less its own locals (a helper's ``a, b = ...`` inside
    it is not the caller's state)."""
    around = [*n.args.defaults, *n.args.kw_defaults, *getattr(n, "decorator_list", ())]
    outer = set().union(*(loaded(d) for d in around if d is not None))
    if isinstance(n, ast.Lambda):
        return outer | (loaded(n.body) - _params(n.args))
    declared = {name for s in walk(n) if isinstance(s, (ast.Nonlocal, ast.Global)) for name in s.names}
    body = set().union(*(loaded(s) for s in n.body))
    return outer | (body - (local_names(n) - declared))


def captured(fn: ast.AST) -> set[str]:
    """Names read by functions and lambdas nested in ``fn`` from ``fn``'s scope (closures run
    at any time)."""
    out: set[str] = set()
    for n in walk(fn):
        if n is not fn and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if isinstance(n, ast.FunctionDef) and n.name.startswith(GENERATED):
                continue
            out |= _free_reads(n)
    return out


def definitely_assigned(stmts) -> set[str]:
    """Names assigned on every path through ``stmts`` (loops may run zero times)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                _targets(t, out, False)
        elif isinstance(s, ast.If):
            out |= definitely_assigned(s.body) & definitely_assigned(s.orelse)
        elif isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            out |= assigned([s])
        elif isinstance(s, ast.With):
            out |= definitely_assigned(s.body)
    return out


class Liveness:
    """``live_out[id(stmt)]``: names that may be read after ``stmt`` (If, For, While)."""

    def __init__(self, fn: ast.FunctionDef):
        self.always = captured(fn) | {"__ag_retval", "__ag_do_return"}  # read by locals()
        self.live_out: dict[int, set[str]] = {}
        self.live_in: dict[int, set[str]] = {}  # of loops: at the head; of ifs: at a branch's start
        self.raised: set[str] = set()  # live where an exception may leave (in a try's body)
        self.block(fn.body, set())

    def block(self, stmts, live: set[str]) -> set[str]:
        for s in reversed(stmts):
            live = self.stmt(s, live | self.raised) | self.raised
        return live

    def _try(self, s: ast.Try, live: set[str]) -> set[str]:
        """A try: its body may stop at any statement for a handler or the finally, so what
        they read is live throughout it (``raised``: live wherever an exception may leave)."""
        outer = self.raised
        final = self.block(s.finalbody, live)
        self.raised = self.block(s.finalbody, outer | self.always) if s.finalbody else outer
        try:
            after_body = self.block(s.orelse, final)
            handlers = set(self.raised)
            for h in s.handlers:
                entered = self.block(h.body, final) - ({h.name} if h.name else set())
                handlers |= entered | (loaded(h.type) if h.type is not None else set())
            self.raised = handlers
            return self.block(s.body, after_body)
        finally:
            self.raised = outer

    def stmt(self, s, live: set[str]) -> set[str]:
        live = set(live) | self.always
        if isinstance(s, ast.If):
            self.live_out[id(s)] = live
            branches = self.block(s.body, live) | self.block(s.orelse, live)
            self.live_in[id(s)] = branches  # of an if: live at the start of either branch
            return loaded(s.test) | branches
        if isinstance(s, (ast.For, ast.While)):
            self.live_out[id(s)] = live
            after = self.block(s.orelse, live)
            head = after | (loaded(s.test) if isinstance(s, ast.While) else set())
            extra = getattr(s, "extra_test", None)  # a for loop's break flag (lowering)
            if extra is not None:
                head |= loaded(extra)
            while True:
                body_in = self.block(s.body, head)
                if isinstance(s, ast.For):
                    body_in = body_in - assigned([ast.Assign(targets=[s.target], value=ast.Constant(0))])
                new = head | body_in
                if new == head:
                    break
                head = new
            self.live_in[id(s)] = head
            if isinstance(s, ast.For) and runs_once_at_least(s):
                # (``for s in range(2): acc = ...`` then ``y += acc``: acc is not read first)
                return body_in | loaded(s.iter) | (loaded(extra) if extra is not None else set())
            return head | (loaded(s.iter) if isinstance(s, ast.For) else set())
        if isinstance(s, (ast.Return,)):
            return loaded(s) | self.always
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return (live - {s.name}) | loaded(s)
        if isinstance(s, ast.With) and not _may_suppress(s):
            # ``with np.errstate(...): r = c / k`` then ``use(r)``: the body runs to its end
            # or the exception leaves the with, so r is not read before the with assigns it
            live = self.block(s.body, live)
            for item in reversed(s.items):
                if item.optional_vars is not None:
                    live = live - assigned([ast.Assign(targets=[item.optional_vars], value=ast.Constant(0))])
                    live = live | loaded(item.optional_vars)
                live = live | loaded(item.context_expr)
            return live
        if isinstance(s, ast.Try):
            return self._try(s, live)
        blocks = _sub_blocks(s)
        if blocks:  # with, try, match: every name they read is live throughout (over-approximate)
            everything = live | loaded(s)
            for b in blocks:
                self.block(b, everything)
            return everything
        if isinstance(s, ast.Delete):
            return live - assigned([ast.Assign(targets=s.targets, value=ast.Constant(0))])
        kills = set()
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                _targets(t, kills, False)
        return (live - kills) | loaded(s)


# Context managers that never swallow an exception: a with of another may end its body early
# and go on after it (contextlib.suppress, a user's __exit__ returning True).
_NOT_SUPPRESSING = {"errstate", "catch_warnings", "printoptions", "nullcontext", "localcontext"}


def _may_suppress(s: ast.With) -> bool:
    for item in s.items:
        call = item.context_expr
        if isinstance(call, ast.Name) and call.id.startswith(f"{GENERATED}try_"):
            continue  # (a try's attempt, ``attempts``: its exit never swallows an error)
        f = call.func if isinstance(call, ast.Call) else None
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        if name not in _NOT_SUPPRESSING:
            return True
    return False


def runs_once_at_least(s: ast.For) -> bool:
    """``for s in range(2)`` (constant arguments, a non-empty range), or over a non-empty
    tuple or list display: the body runs at least once."""
    it = s.iter
    if isinstance(it, (ast.Tuple, ast.List)):
        return bool(it.elts) and not any(isinstance(e, ast.Starred) for e in it.elts)
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and not it.keywords and 1 <= len(it.args) <= 3):
        return False
    args = [_int_constant(a) for a in it.args]
    if None in args:
        return False
    try:
        return len(range(*args)) > 0
    except ValueError:  # (a step of 0)
        return False


def _int_constant(node) -> int | None:
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    node = node.operand if negative else node
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return -node.value if negative else node.value
    return None


def read_first(stmts) -> set[str]:
    """Names ``stmts`` may read before they assign them (live at their start with nothing
    live after): a loop's body that reads none of a variable's earlier values can start it
    with no value, as its target."""
    live = Liveness.__new__(Liveness)
    live.always, live.live_out, live.live_in, live.raised = set(), {}, {}, set()
    return live.block(stmts, set())


# Calls that change Python objects or the outside world: a loop making them runs in Python
# (traced once as a compiled loop, its body would make them once).
_EFFECTS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard",
            "setdefault", "popitem", "write"}


def has_python_effects(stmts, own_lists: frozenset = frozenset(), methods=()) -> bool:
    """Whether ``stmts`` call a method that changes a Python object (``_EFFECTS``), other than
    one of ``own_lists`` (``per_step_lists``: lists each step makes afresh) or a ``(name,
    method)`` of ``methods`` (a user's class's method: ``effect_methods``)."""
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Call) and f.args:  # converted code: __ag__.call(f)(...)
                f = f.args[0]
            if isinstance(f, ast.Attribute) and f.attr in _EFFECTS and not _standard_stream(f) \
                    and not (isinstance(f.value, ast.Name) and f.value.id in own_lists) \
                    and not _numpy_function(f) and _named_call(f) not in methods:
                return True
    return False  # (print is no effect: it prints at each call, from compiled loops too)


def _named_call(f: ast.Attribute) -> tuple | None:
    return (f.value.id, f.attr) if isinstance(f.value, ast.Name) else None


def effect_methods(stmts, own: set[str]) -> tuple:
    """``(name, method)`` of each ``name.update(...)``-like call (a method name of ``_EFFECTS``)
    on a name of ``own``: where ``name`` holds an object of the user's class, the method is the
    user's (a Kalman filter's ``kf.update(z)``), traced like any call, not a dict's update."""
    found: dict = {}
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Call) and f.args:
                f = f.args[0]
            if isinstance(f, ast.Attribute) and f.attr in _EFFECTS and isinstance(f.value, ast.Name) \
                    and f.value.id in own:
                found[(f.value.id, f.attr)] = None
    return tuple(found)


def _numpy_function(f: ast.Attribute) -> bool:
    """``np.add``, ``np.insert``, ``numpy.char.add``: a NumPy function of a method's name, no
    change to a Python object (such a call made its loop run unrolled: 0.1 s a step)."""
    root = f.value
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Call) and root.args:  # converted code: __ag__.outer_value(np)
        root = root.args[0]
    return isinstance(root, ast.Name) and root.id in ("np", "numpy")


def per_step_lists(stmts) -> frozenset:
    """The names a loop body binds, first thing it does with them, to a new list (``xs =
    [x0]``, ``xs = []``) and binds nowhere else: each step changes only the list it made, which
    no earlier step or code before the loop can see, so its appends (``xs.append(x)``, in
    nested loops too) are no change to the outside world, and the loop may run traced, its
    body once. (A list that escapes, ``hist.append(xs)``, is a change to ``hist``; one read
    after the loop is the last step's, carried as the loop's state.)"""
    found, seen = set(), set()
    for s in stmts:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                and isinstance(s.value, ast.List) and s.targets[0].id not in seen:
            name = s.targets[0].id
            if name not in loaded(s.value):
                found.add(name)
        for n in walk(s):
            if isinstance(n, ast.Name):
                seen.add(n.id)
    stores = {}
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            found -= set(n.names)
    return frozenset(name for name in found if stores.get(name) == 1)


def _standard_stream(f: ast.Attribute) -> bool:
    """``sys.stdout.write`` / ``sys.stderr.write``: output made at each call, as print's is
    (``outputs``), no effect a compiled loop would lose."""
    v = f.value
    if f.attr != "write" or not (isinstance(v, ast.Attribute) and v.attr in ("stdout", "stderr")):
        return False
    root = v.value
    if isinstance(root, ast.Call) and root.args:  # converted code: __ag__.outer_value(sys)
        root = root.args[0]
    return isinstance(root, ast.Name) and root.id == "sys"


def changed_python_object(stmts, own: set[str], methods=()) -> str | None:
    """The first ``name.method`` call of ``stmts`` that changes a Python object of the function
    in place (``peaks.append(i)``; ``name`` one of ``own``, not a module as in ``np.add``, nor
    a user's method of ``methods``), or None: a branch of a traced ``if`` is traced once
    whatever the condition, so such a call would run whether or not the condition holds."""
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Call) and f.args:  # converted code: __ag__.call(f)(...)
                f = f.args[0]
            # (a stream's write is output made at each call, as print's: ``outputs``)
            if (isinstance(f, ast.Attribute) and f.attr in _EFFECTS and f.attr != "write"
                    and isinstance(f.value, ast.Name) and f.value.id in own
                    and (f.value.id, f.attr) not in methods):
                return f"{f.value.id}.{f.attr}"
    return None


def _calls(stmts):
    """Each call in ``stmts`` and the function it calls (converted code's ``__ag__.call(f)(...)``
    calls ``f``)."""
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Call):
            f = n.func
            yield n, (f.args[0] if isinstance(f, ast.Call) and f.args else f)


def appended_lists(stmts, own: set[str]) -> tuple[str, ...] | None:
    """The names a loop body changes only by ``name.append(value)`` calls, when those are its
    only changes to Python objects and the names appear in it nowhere else but in ``name[k]``
    (one item read; session 54: any position, not only ``-1``) or ``len(name)`` (a list the
    loop fills, a trajectory: ``statements.for_stmt`` compiles it as a loop,
    ``appending``); else None."""
    appended, calls = set(), set()
    for n, f in _calls(stmts):
        if isinstance(f, ast.Attribute) and f.attr in _EFFECTS:
            if not (f.attr == "append" and isinstance(f.value, ast.Name) and f.value.id in own
                    and len(n.args) == 1 and not n.keywords):
                return None
            appended.add(f.value.id)
            calls.add(id(f.value))
    if not appended:
        return None
    for n in (m for s in stmts for m in walk(s)):  # ys[-1]: the last row; ys[t - m]: a row
        base, key = (n.value, n.slice) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) \
            else (n.args[0], n.args[1]) if _converted_getitem(n) and len(n.args) == 2 else (None, None)
        if isinstance(base, ast.Name) and base.id in appended and not isinstance(key, (ast.Slice, ast.Tuple)):
            calls.add(id(base))  # (read at one position: ``appending`` gathers it from the rows)
        if _len_call(n) and isinstance(n.args[0], ast.Name) and n.args[0].id in appended:
            calls.add(id(n.args[0]))  # len(ys): its count so far
        iterated = n.iter if isinstance(n, ast.For) else n.args[0] if _for_call(n) else None
        if _builtin_call(iterated, "enumerate"):
            iterated = iterated.args[0]
        if isinstance(iterated, ast.Name) and iterated.id in appended:
            calls.add(id(iterated))  # for j in ys, for k, j in enumerate(ys): its items so far
        searched = [r for op, r in zip(n.ops, n.comparators) if isinstance(op, (ast.In, ast.NotIn))] \
            if isinstance(n, ast.Compare) else [n.elts[1].body if isinstance(n.elts[1], ast.Lambda)
                                                else n.elts[1]] if _in_pair(n) else []
        for r in searched:  # v in ys (and converted code's compare(..., ("in", lambda: ys)))
            if isinstance(r, ast.Name) and r.id in appended:
                calls.add(id(r))
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Name) and n.id in appended and id(n) not in calls:
            return None  # used otherwise: len(ys), ys[0], ys = [], f(ys)
    return tuple(sorted(appended))


def _in_pair(n) -> bool:
    """Converted code's ``("in", lambda: ys)`` (or ``"not in"``) of a ``compare`` call."""
    return isinstance(n, ast.Tuple) and len(n.elts) == 2 and isinstance(n.elts[0], ast.Constant) \
        and n.elts[0].value in ("in", "not in")


def _builtin_call(n, name: str) -> bool:
    """``name(v)``, or converted code's ``__ag__.call(name)(v)``."""
    if not (isinstance(n, ast.Call) and len(n.args) >= 1 and not n.keywords):
        return False
    f = n.func.args[0] if isinstance(n.func, ast.Call) and len(n.func.args) == 1 else n.func
    return isinstance(f, ast.Name) and f.id == name


def _for_call(n) -> bool:
    """A converted ``for`` loop: ``__ag__.for_stmt(iterable, ...)``."""
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "for_stmt" \
        and bool(n.args)


def _len_call(n) -> bool:
    """``len(v)``, or converted code's ``__ag__.call(len)(v)``."""
    if not (isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords):
        return False
    f = n.func.args[0] if isinstance(n.func, ast.Call) and len(n.func.args) == 1 else n.func
    return isinstance(f, ast.Name) and f.id == "len"


def guarded_step(body, counter: str, compare: str) -> int | None:
    """The step of a ``while`` loop's counter that bounds its trips (``while ... and it < 100``
    with ``it += 1``): one assignment of ``counter`` in ``body``, ``counter += s`` (``-=`` for
    ``>``/``>=``) by a positive int constant, at the body's top level or under the ``if not
    <break flag>`` that ``lowering`` puts the statements after a ``break`` under (a step it
    skips ends the loop); else None. Every iteration that goes on then moves the counter by
    ``s`` towards the bound: at most ``(bound - start) / s`` iterations run."""
    compound = (ast.If, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.AsyncFor)
    if sum(1 for s in body for m in walk(s) if isinstance(m, ast.stmt)
           and not isinstance(m, compound) and counter in assigned([m])) != 1:
        return None  # (a for loop counts: its target, or a step in its body)
    stmts = list(body)
    while stmts:
        s = stmts.pop(0)
        update = _counter_update(s, counter)
        if update is not None:
            op, value = update
            up = isinstance(op, ast.Add) == (compare in ("<", "<="))
            ok = isinstance(op, (ast.Add, ast.Sub)) and isinstance(value, ast.Constant) \
                and type(value.value) is int and value.value > 0 and up
            return value.value if ok else None
        if isinstance(s, ast.If) and not s.orelse and not_break_flag(s.test):
            stmts[:0] = s.body
    return None


def while_guard(node: ast.While) -> tuple[str, str, ast.Compare, int] | None:
    """``(counter, compare, test, step)`` for a ``while`` whose test is, or has as a term of
    its ``and``s, ``i < bound`` (``<=``, ``>``, ``>=``) with an invariant bound and ``i``
    stepped as ``guarded_step`` says: the guard that bounds its trips (``it < max_iter``),
    which gives a list the loop appends to its capacity (``statements._appending_while``)."""
    if node.orelse:
        return None
    terms, changed = [node.test], assigned(node.body) | written(node.body)
    while any(isinstance(t, ast.BoolOp) and isinstance(t.op, ast.And) for t in terms):
        terms = [v for t in terms for v in (t.values if isinstance(t, ast.BoolOp)
                                            and isinstance(t.op, ast.And) else [t])]
    for test in terms:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
                and type(test.ops[0]) in _COMPARES and _invariant(test.comparators[0], changed)):
            continue
        compare = _COMPARES[type(test.ops[0])]
        step = guarded_step(node.body, test.left.id, compare)
        if step is not None:
            return test.left.id, compare, test, step
    return None


def not_break_flag(test) -> bool:
    """``not <break flag>`` as ``lowering`` writes it (``__ag__.not_(flag)`` once converted)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operand = test.operand
    elif isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == "not_" \
            and len(test.args) == 1:
        operand = test.args[0]
    else:
        return False
    return isinstance(operand, ast.Name) and operand.id.startswith("__ag_break")


def appends_under_if(stmts, names) -> bool:
    """Whether a ``name.append(v)`` of ``names`` in ``stmts`` is inside an ``if`` (whose
    condition may be traced: the loop is then compiled at any trip count, ``appending``)."""
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.If) and any(
                isinstance(f, ast.Attribute) and f.attr == "append" and isinstance(f.value, ast.Name)
                and f.value.id in names for _, f in _calls(n.body + n.orelse)):
            return True
    return False


def _path_root(node) -> ast.Name | None:
    """The root name of ``log["E"]``, ``self.hist`` or ``lists[0]`` (a chain of attributes and
    subscripts by a constant, as the conversion writes them), or None."""
    while True:
        if isinstance(node, ast.Attribute):
            node = node.value
        elif _converted_getitem(node) and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, (str, int)) and not isinstance(node.args[1].value, bool):
            node = node.args[0]
        else:
            return node if isinstance(node, ast.Name) else None


def appended_paths(stmts, own: set[str]) -> list:
    """The ``path`` nodes of the calls ``path.append(v)`` in ``stmts`` (``log["E"].append(v)``,
    ``self.hist.append(v)``, ``lists[0].append(v)``) whose root, one of ``own``, appears in
    ``stmts`` nowhere but at the root of such paths: each such path is one list the loop may
    reach before it starts (``transform`` names it there, and the loop appends to that name)."""
    paths, roots = [], {}
    for n, f in _calls(stmts):
        if isinstance(f, ast.Attribute) and f.attr == "append" and len(n.args) == 1 \
                and not n.keywords and not isinstance(f.value, ast.Name):
            root = _path_root(f.value)
            if root is not None and root.id in own:
                paths.append(f.value)
                roots.setdefault(root.id, set()).add(id(root))
    uses = {}
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Name) and n.id in roots:
            uses.setdefault(n.id, set()).add(id(n))
    alone = {r for r, ids in roots.items() if uses.get(r) == ids}
    alone |= _attribute_roots(stmts, paths, roots.keys() - alone)
    return [p for p in paths if _path_root(p).id in alone]


def _attribute_roots(stmts, paths, roots) -> set[str]:
    """The ``roots`` (``s`` of ``s.hist.append(v)``) used elsewhere in ``stmts`` only by other
    attributes (``s.t``, ``s.step()``), never bound anew, whose paths are each ``root.attr``:
    ``s.hist`` is one list through the loop unless a method the body calls sets it, which
    ``runtime.reach`` checks when the loop starts (``others``)."""
    out = set()
    for root in roots:
        mine = [p for p in paths if _path_root(p).id == root]
        if not all(isinstance(p, ast.Attribute) and isinstance(p.value, ast.Name) for p in mine) \
                or len({p.attr for p in mine}) != 1:
            continue
        attr, heads = mine[0].attr, {id(p.value) for p in mine}
        fine = True
        for n in (m for s in stmts for m in walk(s)):
            if isinstance(n, ast.Name) and n.id == root and not isinstance(n.ctx, ast.Load):
                fine = False
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == root \
                    and id(n.value) not in heads and n.attr == attr:  # (len(s.hist), s.hist = [])
                fine = False
            elif _converted_getitem(n) and isinstance(n.args[0], ast.Name) and n.args[0].id == root:
                fine = False
            elif _converted_attribute_write(n, root) and n.args[1].value == attr:
                fine = False  # (s.hist += [v], s.hist = [])
        bare = sum(1 for s in stmts for n in walk(s) if isinstance(n, ast.Name) and n.id == root)
        # (s.x += 1.0, s.x = v: the conversion's aug_attribute(s, 'x', ...), another attribute)
        dotted = sum(1 for s in stmts for n in walk(s) if isinstance(n, ast.Attribute)
                     and isinstance(n.value, ast.Name) and n.value.id == root
                     or _converted_attribute_write(n, root))
        if fine and bare == dotted:  # (s passed whole to a function could reach s.hist)
            out.add(root)
    return out


def other_attributes(stmts, root: str, attr: str) -> list[str]:
    """The attributes of ``root`` other than ``attr`` that ``stmts`` read (``s.step``, ``s.t``)."""
    return sorted({n.attr for s in stmts for n in walk(s) if isinstance(n, ast.Attribute)
                   and isinstance(n.value, ast.Name) and n.value.id == root and n.attr != attr})


_STEPS = {ast.Add: "Add", ast.Sub: "Sub", ast.Mult: "Mult"}
_COMPARES = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BOUND_CALLS = frozenset({"len", "int", "min", "max", "abs"})
_BOUND_NODES = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp,
                ast.Call, ast.Slice, ast.Tuple, ast.expr_context, ast.operator, ast.unaryop)


def counted_while(node: ast.While) -> tuple[str, str, int, str] | None:
    """``(counter, step op, step, compare)`` for ``while i < bound:`` (or ``<=``, ``>``, ``>=``)
    whose body steps ``i`` by a constant in one statement at its top level (``i += 2``,
    ``i -= 1``, ``i *= 2``, ``i = i + 1``) and assigns it nowhere else, with no Python effects
    and a bound the body cannot change (``_invariant``); else None. Such a loop's counter
    takes values known when the loop starts, as a ``range``'s do (``statements.while_stmt``).
    A ``break``, ``continue`` or ``return`` in the body has changed the test or put the step
    under an ``if`` (``lowering``): not counted."""
    test = node.test
    if node.orelse or not (isinstance(test, ast.Compare) and len(test.ops) == 1
                           and isinstance(test.left, ast.Name)):
        return None
    counter, compare = test.left.id, _COMPARES.get(type(test.ops[0]))
    steps = [s for s in node.body if counter in assigned([s])]
    jumps = any(isinstance(m, (ast.Break, ast.Continue, ast.Return)) for s in node.body for m in walk(s))
    if compare is None or len(steps) != 1 or jumps or has_python_effects(node.body):
        return None
    step = _step(steps[0], counter)
    if step is None or not _invariant(test.comparators[0], assigned(node.body) | written(node.body)):
        return None
    return counter, step[0], step[1], compare


def _counter_update(stmt, counter: str) -> tuple[ast.operator, ast.expr] | None:
    """``counter op= value`` or ``counter = counter op value``: (op, value); else None."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == counter:
        return stmt.op, stmt.value
    if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
          and stmt.targets[0].id == counter and isinstance(stmt.value, ast.BinOp)
          and isinstance(stmt.value.left, ast.Name) and stmt.value.left.id == counter):
        return stmt.value.op, stmt.value.right
    return None


def _step(stmt, counter: str) -> tuple[str, int] | None:
    update = _counter_update(stmt, counter)
    if update is None:
        return None
    op, value = update
    name = _STEPS.get(type(op))
    if name is None or not (isinstance(value, ast.Constant) and type(value.value) is int):
        return None
    return name, value.value


def _invariant(bound, changed: set[str]) -> bool:
    """Whether ``bound`` has the same value at every iteration: it reads no name the body
    assigns or writes, and calls nothing but a few pure builtins (``len(x)``, ``min(n, m)``)."""
    for n in walk(bound):
        if not isinstance(n, _BOUND_NODES):
            return False
        if isinstance(n, ast.Name) and n.id in changed:
            return False
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _BOUND_CALLS):
            return False
    return True


def stepped_while(node: ast.While) -> tuple[str, str, ast.Compare, list[ast.expr]] | None:
    """``(counter, compare, test, steps)`` for a ``while`` that ``counted_while`` does not take but
    whose counter still moves by known steps: its test is ``i < bound`` (``<=``, ``>``, ``>=``),
    alone or as a term of an ``and`` (``not brk and i < n``, as ``lowering`` writes a ``break``),
    every assignment of ``i`` in the body is a step ``i += s``, ``i -= s`` or ``i = i + s`` by a
    number or a name the body does not assign (under an ``if``, in either branch: the select of
    a step), and the bound is invariant (``_invariant``). ``test`` is the comparison itself
    (kept, so that its bound is read after ``Expressions`` converted it); ``steps`` copies of
    the steps' sizes, signed. Such a loop runs by its test, with the counter carried, where it
    is a loop (``statements.while_stmt``); its trip count is not known in advance."""
    if node.orelse or has_python_effects(node.body):
        return None
    terms = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) \
        else [node.test]
    changed = assigned(node.body) | written(node.body)
    for test in terms:
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
                and type(test.ops[0]) in _COMPARES):
            continue
        counter = test.left.id
        if counter not in changed or not _invariant(test.comparators[0], changed):
            continue
        steps = _steps_of(node.body, counter, changed)
        if steps:
            return counter, _COMPARES[type(test.ops[0])], test, steps
    return None


def _steps_of(body, counter: str, changed: set[str]) -> list[ast.expr] | None:
    """The signed sizes of every assignment of ``counter`` in ``body``, each a step; else None."""
    stores, steps = 0, []
    for n in (m for s in body for m in walk(s)):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return None  # (a nested scope could rebind it: nonlocal)
        if isinstance(n, ast.Name) and n.id == counter and not isinstance(n.ctx, ast.Load):
            stores += 1
        if isinstance(n, (ast.AugAssign, ast.Assign)):
            step = _additive_step(n, counter, changed)
            if step is not None:
                steps.append(step)
    return steps if steps and len(steps) == stores else None


def _additive_step(stmt, counter: str, changed: set[str]) -> ast.expr | None:
    update = _counter_update(stmt, counter)
    if update is None:
        return None
    op, value = update
    size = value.operand if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub) else value
    if not isinstance(op, (ast.Add, ast.Sub)) or not (
            (isinstance(size, ast.Constant) and type(size.value) in (int, float))
            or (isinstance(size, ast.Name) and size.id not in changed)):
        return None
    value = copy.deepcopy(value)
    return value if isinstance(op, ast.Add) else ast.UnaryOp(op=ast.USub(), operand=value)


def affine_while(node: ast.While) -> tuple | None:
    """``(counters, in_test, compare, test, steps)`` for a ``while`` whose test compares affine
    functions of counters (``start + N <= len(x)``, ``i + 1 < n``, ``2 * k < n - j``): names the
    body steps by a constant in one statement at its top level (``start += hop``, ``k += 1``,
    ``j -= 1``, a number or a name it does not change), assigns nowhere else and, in the test,
    combines only by ``+``, ``-`` and products with invariant factors (``_invariant``); else None.
    ``in_test`` says which counters the test reads (at least one), ``test`` is the comparison
    itself (read after ``Expressions`` converted it), ``steps`` copies of the steps' sizes,
    signed. Each counter is then ``start + step * t`` at the ``t``-th step, and the test an
    inequality on ``t``: its trip count is known when the loop starts (``statements.while_stmt``).
    A ``break`` or ``continue`` (as ``lowering`` writes it: a flag in the test, the step under an
    ``if``) or a step under an ``if`` is not such a loop."""
    test = node.test
    jumps = any(isinstance(m, (ast.Break, ast.Continue, ast.Return, ast.FunctionDef,
                               ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))
                for s in node.body for m in walk(s))
    if node.orelse or jumps or has_python_effects(node.body) or not (
            isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARES):
        return None
    changed = assigned(node.body) | written(node.body)
    stores: dict[str, int] = {}
    for n in (m for s in node.body for m in walk(s)):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    counters, steps = [], []
    for stmt in node.body:  # (top level: each runs once an iteration)
        target = stmt.target if isinstance(stmt, ast.AugAssign) else \
            stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if not isinstance(target, ast.Name) or stores.get(target.id) != 1:
            continue
        step = _additive_step(stmt, target.id, changed)
        if step is not None:
            counters.append(target.id)
            steps.append(step)
    sides = (test.left, test.comparators[0])
    if not all(_affine(side, set(counters), changed, _resized(node.body, changed)) for side in sides):
        return None
    read = {n.id for side in sides for n in walk(side) if isinstance(n, ast.Name)}
    in_test = tuple(c in read for c in counters)
    if not any(in_test):
        return None
    return tuple(counters), in_test, _COMPARES[type(test.ops[0])], test, steps


def _affine(expr, counters: set[str], changed: set[str], resized: set[str]) -> bool:
    """Whether ``expr`` is an affine function of ``counters`` with invariant coefficients."""
    if not any(isinstance(n, ast.Name) and n.id in counters for n in walk(expr)):
        return _invariant_sizes(expr, changed, resized)
    if isinstance(expr, ast.Name):
        return True
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _affine(expr.operand, counters, changed, resized)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        return all(_affine(e, counters, changed, resized) for e in (expr.left, expr.right))
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):  # (one factor invariant)
        return any(_invariant_sizes(f, changed, resized) and _affine(g, counters, changed, resized)
                   for f, g in ((expr.left, expr.right), (expr.right, expr.left)))
    return False


def _resized(body, changed: set[str]) -> set[str]:
    """The names of ``changed`` whose size ``body`` may change: all but the arrays it only
    writes in place (``x[k] = v``: ``len(x)`` stays)."""
    bound = _Assigned(subscripts=False)
    for s in body:
        bound.visit(s)
    with_attributes = {n.value.id for m in walk(ast.Module(body=body, type_ignores=[]))
                       for n in (m.targets if isinstance(m, ast.Assign) else [getattr(m, "target", None)])
                       if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return changed - (written(body) - bound.names - with_attributes)


def _invariant_sizes(expr, changed: set[str], resized: set[str]) -> bool:
    """``_invariant``, where an array written only in place is read for its size alone
    (``len(x)``, ``x.shape[0]``, ``x.size``)."""
    sizes = {id(n.args[0]) for n in walk(expr) if isinstance(n, ast.Call) and isinstance(
        n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1}
    sizes |= {id(n.value) for n in walk(expr)
              if isinstance(n, ast.Attribute) and n.attr in ("shape", "size", "ndim")}
    in_place = changed - resized
    return _invariant(expr, resized) and all(
        id(n) in sizes for n in walk(expr) if isinstance(n, ast.Name) and n.id in in_place)


def steps_once(body, counter: str) -> bool:
    """Whether every assignment of ``counter`` in ``body`` runs at most once an iteration: none
    is inside a loop nested in the body (``statements._counter_bounds``: then one iteration moves
    the counter by at most the sum of its steps)."""
    loops = [n for s in body for n in walk(s) if isinstance(n, (ast.For, ast.While))]
    return not any(counter in assigned(inner.body + inner.orelse) for inner in loops)


def only_returned(stmts) -> set[str]:
    """Names that ``stmts`` read only as whole leaves of the value they return (``return s, i``;
    ``__ag_retval = (s, i)`` as ``lowering`` writes a return), nowhere else."""
    reads: dict[str, int] = {}
    returned: dict[str, int] = {}
    for n in (m for s in stmts for m in walk(s)):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            reads[n.id] = reads.get(n.id, 0) + 1
        value = n.value if isinstance(n, ast.Return) else n.value if (
            isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            and n.targets[0].id == "__ag_retval") else None
        if value is None:
            continue
        for leaf in value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]:
            if isinstance(leaf, ast.Name):
                returned[leaf.id] = returned.get(leaf.id, 0) + 1
    return {name for name, count in returned.items() if reads.get(name) == count}


def popped_lists(stmts) -> set[str]:
    """The names the statements call ``name.pop(...)`` on (a list used as a stack)."""
    return {f.value.id for _, f in _calls(stmts) if isinstance(f, ast.Attribute) and f.attr == "pop"
            and isinstance(f.value, ast.Name)}
