"""The AST rewrite: every ``if``/``while``/``for`` becomes nested functions (the branches, the
loop test and body) that take the statement's state as parameters and return it, and one call
of a runtime helper (``__ag__.if_stmt`` and so on) that decides, from the values, whether to
run them in Python or to build ``scf`` ops. ``and``/``or``/``not``, chained comparisons and
calls go through helpers too. Every generated node carries the line of the statement it
replaces, so tracebacks and error locations point at the user's lines.
"""

from __future__ import annotations

import ast
import builtins
import copy
import itertools

from jitcore.autograph import analysis, attempts, conditions, lowering, unbound
from jitcore.autograph.analysis import GENERATED

AG = "__ag__"
ITER = "__ag_it"
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_RICH = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)  # the comparisons a class defines


def _load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def _helper(name: str) -> ast.Attribute:
    return ast.Attribute(value=_load(AG), attr=name, ctx=ast.Load())


def _call(func, *args, **kwargs) -> ast.Call:
    return ast.Call(func=func, args=list(args),
                    keywords=[ast.keyword(arg=k, value=v) for k, v in kwargs.items()])


def _thunk(expr) -> ast.Lambda:
    no_args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                            kwarg=None, defaults=[])
    return ast.Lambda(args=no_args, body=expr)


def _strings(names) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _tuple(names, store=False) -> ast.Tuple:
    ctx = ast.Store() if store else ast.Load()
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx) for n in names], ctx=ctx)


def _plain_subscript(target, own) -> bool:
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in own


def _nested_subscript(target, own) -> bool:
    """``B[k1][k2]`` with ``B`` the function's own, as converted: ``getitem(B, k1)[k2]``."""
    return (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Call)
            and isinstance(target.value.func, ast.Attribute) and target.value.func.attr == "getitem"
            and isinstance(target.value.func.value, ast.Name) and target.value.func.value.id == "__ag__"
            and len(target.value.args) == 2 and isinstance(target.value.args[0], ast.Name)
            and target.value.args[0].id in own)


# Array methods that return a view of the array where NumPy can (``g.ravel()[k] = v`` writes g)
_VIEW_METHODS = frozenset({"ravel", "reshape", "transpose", "swapaxes", "squeeze"})


def _view_method_subscript(target, own):
    """``B.ravel()[k]`` with ``B`` the function's own, as converted (``call(B.ravel)()[k]``):
    the call's (name, method, args, keywords), or None."""
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Call)):
        return None
    call, func = target.value, target.value.func
    if (isinstance(func, ast.Call) and isinstance(func.func, ast.Attribute) and func.func.attr == "call"
            and isinstance(func.func.value, ast.Name) and func.func.value.id == AG and len(func.args) == 1):
        func = func.args[0]
    if not (isinstance(func, ast.Attribute) and func.attr in _VIEW_METHODS
            and isinstance(func.value, ast.Name) and func.value.id in own
            and not any(isinstance(a, ast.Starred) for a in call.args)
            and all(k.arg is not None for k in call.keywords)):
        return None
    keywords = ast.Dict(keys=[ast.Constant(k.arg) for k in call.keywords],
                        values=[k.value for k in call.keywords])
    return func.value.id, ast.Constant(func.attr), ast.Tuple(elts=list(call.args), ctx=ast.Load()), keywords


def _outer_subscript(target, own) -> bool:
    """``W[k]`` where ``W`` is not the function's own: a global or a closure's variable; or an
    object's attribute (``self.buf[k]``, ``model.w[k]``), an array other code holds too."""
    return isinstance(target, ast.Subscript) and (
        (isinstance(target.value, ast.Name) and target.value.id not in own)
        or _object_attribute(target.value))


# Attributes of an array that are views of it (``z.real[0] = v``): written as any view is
_VIEW_ATTRIBUTES = frozenset({"real", "imag", "T", "mT", "flat", "base"})


def _object_attribute(node) -> bool:
    """``a.b`` (or ``a.b.c``) on a name, ``b`` not a view attribute of an array."""
    if not isinstance(node, ast.Attribute) or node.attr in _VIEW_ATTRIBUTES:
        return False
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and not node.id.startswith("__ag")


def _outer_base(target):
    """The base of an outer subscript target, to read: a name, or the attribute expression."""
    return _load(target.value.id) if isinstance(target.value, ast.Name) else target.value


def _key(node):
    """A subscript's key as an expression: slices become ``slice(...)`` calls."""
    if isinstance(node, ast.Slice):
        parts = [p if p is not None else ast.Constant(None) for p in (node.lower, node.upper, node.step)]
        return ast.copy_location(_call(_helper("slice"), *parts), node)
    if isinstance(node, ast.Tuple):
        return ast.copy_location(ast.Tuple(elts=[_key(e) for e in node.elts], ctx=ast.Load()), node)
    return node


def _out_name(value, own):
    """The local name a call writes through ``out=name``, or the names of ``out=(q, r)`` (a
    ufunc of two outputs: ``np.divmod``, ``np.modf``) as a list, or None (not a call, or an
    ``out`` that is an attribute, a global or an element, which the converted code cannot
    rebind)."""
    if not isinstance(value, ast.Call):
        return None
    for k in value.keywords:
        if k.arg == "out" and isinstance(k.value, ast.Name) and k.value.id in own:
            return k.value.id
        if (k.arg == "out" and isinstance(k.value, ast.Tuple) and k.value.elts
                and all(isinstance(e, ast.Name) and e.id in own for e in k.value.elts)):
            return [e.id for e in k.value.elts]
    return None


def _out_names(name, ctx):
    """``name`` (or, for a list of names, their tuple) as an expression of context ``ctx``."""
    if isinstance(name, str):
        return ast.Name(id=name, ctx=ctx)
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx) for n in name], ctx=ctx)


def _out_part(value, own):
    """The part of a local array a call statement writes through ``out=`` (``np.add(a[:-1],
    a[1:], out=a[1:])``), or None (no such ``out``, or a ``where=`` that keeps some of it)."""
    if not isinstance(value, ast.Call) or any(k.arg == "where" for k in value.keywords):
        return None
    for k in value.keywords:
        if k.arg == "out" and isinstance(k.value, ast.Subscript):
            base = k.value.value
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name) and base.id in own:
                return k.value
    return None


def _write_out_part(call, part) -> ast.Assign:
    """``f(*args, out=a[1:])`` -> ``a[1:] = out_part(f(*args), a[1:])``: NumPy's result (it
    buffers operands that overlap ``out``) assigned to the part, its shape and dtype checked."""
    plain = ast.copy_location(ast.Call(func=call.func, args=call.args,
                                       keywords=[k for k in call.keywords if k.arg != "out"]), call)
    target = copy.deepcopy(part)
    target.ctx = ast.Store()
    value = ast.copy_location(_call(_helper("out_part"), plain, copy.deepcopy(part)), call)
    return ast.copy_location(ast.Assign(targets=[target], value=value), call)


def _at_name(value, own):
    """The local name ``X.at(name, ...)`` updates in place (``np.add.at(h, i, 1)``), or None."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "at" and value.args):
        return None
    first = value.args[0]
    return first.id if isinstance(first, ast.Name) and first.id in own else None


def _fill_name(value, own):
    """The local name ``name.fill(v)`` fills, or None: a NumPy array made in the function and
    filled with a traced value must become a traced one, bound to the name, as ``a[...] = v``
    makes it."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "fill" and len(value.args) == 1 and not value.keywords):
        return None
    base = value.func.value
    return base.id if isinstance(base, ast.Name) and base.id in own else None


def _out_call(call, name) -> ast.Assign:
    """``f(*args, out=name, **kw)`` -> ``name = out_call(f, name, *args, **kw)`` (``out=(q, r)``
    -> ``q, r = out_call(f, (q, r), ...)``)."""
    keywords = [k for k in call.keywords if k.arg != "out"]
    value = ast.copy_location(ast.Call(func=_helper("out_call"),
                                       args=[call.func, _out_names(name, ast.Load()), *call.args],
                                       keywords=keywords), call)
    return ast.copy_location(ast.Assign(targets=[_out_names(name, ast.Store())], value=value), call)


_SCRATCH = itertools.count()  # names of the values an unpacking assignment goes through


def _unpacks_into_subscripts(targets) -> bool:
    """Several targets, or a tuple or list target, with a subscript among them."""
    nested = len(targets) > 1 or isinstance(targets[0], (ast.Tuple, ast.List))
    return nested and any(isinstance(n, ast.Subscript) for t in targets for n in analysis.walk(t)
                          if isinstance(getattr(n, "ctx", None), ast.Store))


def _made_for_out(value):
    """The ``out=`` keyword of a call whose ``out`` is itself a call (an array made for it, such
    as ``np.divide(a, b, out=np.full(n, np.nan), where=b != 0)``), or None."""
    if not isinstance(value, ast.Call):
        return None
    return next((k for k in value.keywords if k.arg == "out" and isinstance(k.value, ast.Call)), None)


def _has_walrus(node) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in analysis.walk(node))


_REDUCERS = ("sum", "len", "any", "all", "min", "max")


def _filtered_reduction(node: ast.Call) -> bool:
    """``sum(e for t in it if c)`` and the like (``autograph/filtered.py``): a reducing builtin's
    name called on one filtered generator (or list comprehension) with a single ``for``."""
    if not (isinstance(node.func, ast.Name) and node.func.id in _REDUCERS and node.args):
        return False
    gen = node.args[0]
    kinds = (ast.ListComp,) if node.func.id == "len" else (ast.ListComp, ast.GeneratorExp)
    return (isinstance(gen, kinds) and len(gen.generators) == 1 and gen.generators[0].ifs
            and not gen.generators[0].is_async and not _has_walrus(gen))


def _is_helper_call(node, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == name and isinstance(node.func.value, ast.Name) and node.func.value.id == AG


def _of_item(target, expr) -> ast.Lambda:
    """``lambda item: expr`` with ``target`` bound to the item as the ``for`` binds it (a tuple
    target through a one-item generator, which unpacks as the ``for`` does)."""
    item = "__ag_item"
    if isinstance(target, ast.Name):
        item, body = target.id, expr
    else:
        one = ast.comprehension(target=target, iter=ast.Tuple(elts=[_load(item)], ctx=ast.Load()),
                                ifs=[], is_async=0)
        body = _call(_load("next"), ast.GeneratorExp(elt=expr, generators=[one]))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=item)], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=body)


def _filtered_call(node: ast.Call) -> ast.Call:
    """``filtered(f, call(f), it, lambda t: e, (lambda t: c, ...), is_list, *rest, **kw)``; the
    tests as written (``visit_comprehension`` wrapped each in ``comprehension_test``)."""
    gen, rest = node.args[0], node.args[1:]
    comp = gen.generators[0]
    tests = [t.args[0] for t in comp.ifs]
    call = _call(_helper("filtered"), node.func, _call(_helper("call"), node.func), comp.iter,
                 _of_item(comp.target, gen.elt),
                 ast.Tuple(elts=[_of_item(comp.target, t) for t in tests], ctx=ast.Load()),
                 ast.Constant(isinstance(gen, ast.ListComp)), *rest)
    call.keywords = node.keywords
    return call


class _LinedTransformer(ast.NodeTransformer):
    """A transformer whose rewritten statements' new calls take the statement's line (not,
    later, the enclosing loop's), so an error raised in a helper names the line written."""

    def visit(self, node):
        out = super().visit(node)
        if isinstance(node, ast.stmt):
            for s in out if isinstance(out, list) else [out]:
                if isinstance(s, ast.stmt):
                    analysis.fix_missing_locations(s)
        return out


class CallRefreshes(ast.NodeTransformer):
    """After a statement that calls the user's code, the names it passed read again and the
    other variables checked (``fill(a, v)`` -> ``fill(a, v); a = refreshed(a);
    refuse_stale(("a",))``): a traced write in the callee makes a NumPy array made while
    tracing a traced copy, which the caller's names must then read (``local_arrays``). Only a
    call statement's own names are read again: they are what an in-place helper writes, and
    each one read again is, inside a traced loop, a variable the loop carries."""

    _NOT_USERS = frozenset({"append", "extend", "insert"})  # a list's (only its items change)

    def __init__(self, top, own):
        self.top, self.own = top, own
        # loop targets and functions defined here: not arrays a callee writes in place
        self.fixed = {n.id for loop in analysis.walk(top) if isinstance(loop, (ast.For, ast.comprehension))
                      for n in analysis.walk(loop.target) if isinstance(n, ast.Name)}
        self.fixed |= {d.name for d in analysis.walk(top) if d is not top
                       and isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}

    def visit_FunctionDef(self, node):  # a nested function gets its own conversion
        if node is self.top:
            self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node

    def visit_ClassDef(self, node):
        return node

    def _user_call(self, call) -> bool:
        f = call.func
        if isinstance(f, ast.Name):
            return f.id in self.own or not hasattr(builtins, f.id)
        return (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and (f.value.id in self.own or f.value.id == "self") and f.attr not in self._NOT_USERS)

    def _after(self, node, names) -> list:
        out = [node]
        for name in names:
            read = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                              value=_call(_helper("refreshed"), _load(name)))
            out.append(_locate(read, node))
        check = ast.Expr(value=_call(_helper("refuse_stale"), _strings(names)))
        out.append(_locate(check, node))
        return out

    def visit_Expr(self, node):
        call = node.value
        if not isinstance(call, ast.Call) or not self._user_call(call):
            return self._checked(node)
        parts = [*call.args, *(k.value for k in call.keywords)]
        names = sorted({n.id for p in parts for n in analysis.walk(p) if isinstance(n, ast.Name)
                        and n.id in self.own and not n.id.startswith(GENERATED)})
        return self._after(node, names)

    def _checked(self, node):
        calls = [n for n in analysis.walk(node) if isinstance(n, ast.Call) and self._user_call(n)]
        return self._after(node, self._passed(node, calls)) if calls else node

    def _passed(self, node, calls) -> list[str]:
        """The variables a statement that is not a call of its own passes by name to a user
        call (``a = find(parent, x)``: ``parent``), less those it assigns: what the callee
        may write in place, read again like a call statement's. A loop's target, a function
        defined here or a name passed inside an expression (``f(a[i])``) is not: reading it
        again would make it a loop carry for nothing."""
        stored = {n.id for n in analysis.walk(node)
                  if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        args = [a for c in calls for a in (*c.args, *(k.value for k in c.keywords))]
        return sorted({a.id for a in args if isinstance(a, ast.Name) and a.id in self.own
                       and a.id not in stored and a.id not in self.fixed
                       and not a.id.startswith(GENERATED)})

    visit_Assign = visit_AugAssign = visit_AnnAssign = _checked


class Expressions(_LinedTransformer):
    """``a and b`` -> ``and_(lambda: a, lambda: b)``; ``not a`` -> ``not_(a)``; ``a < b < c``
    -> ``compare(...)`` evaluating each operand once, in order; ``f(x)`` -> ``call(f)(x)``."""

    def __init__(self, top=None, own=frozenset()):
        self.top = top
        self.own = own  # names local to the function: a subscript write may rebind only them

    def visit_FunctionDef(self, node):  # a nested function gets its own conversion
        if node is self.top:
            self.generic_visit(node)
        return node

    def visit_Expr(self, node):
        """``np.add(a, b, out=tmp)`` -> ``tmp = out_call(np.add, tmp, a, b)``, and
        ``np.add.at(h, i, v)`` -> ``h = at_call(np.add.at, h, i, v)``, ``a.fill(v)`` -> ``a =
        fill(a, v)``: a local NumPy array written with traced values becomes a traced array
        bound to ``tmp``, ``h`` or ``a``."""
        part = _out_part(node.value, self.own)
        if part is not None:
            return self.visit_Assign(_write_out_part(node.value, part))
        at_name = _at_name(node.value, self.own)
        fill_name = _fill_name(node.value, self.own)
        self.generic_visit(node)
        if fill_name is not None:  # a.fill(v) -> a = fill(a, v)
            value = ast.copy_location(_call(_helper("fill"), _load(fill_name), *node.value.args),
                                      node.value)
            return ast.copy_location(ast.Assign(targets=[ast.Name(id=fill_name, ctx=ast.Store())],
                                                value=value), node)
        if at_name is not None:
            call = node.value
            value = ast.copy_location(_call(_helper("at_call"), call.func, *call.args), call)
            value.keywords = call.keywords
            return ast.copy_location(ast.Assign(targets=[ast.Name(id=at_name, ctx=ast.Store())],
                                                value=value), node)
        name = _out_name(node.value, self.own)
        return node if name is None else _out_call(node.value, name)

    def visit_Assign(self, node):
        """``h[k] = v`` -> ``h = setitem(h, k, v)``: a NumPy array written with traced values
        becomes a traced array (NumPy cannot hold them). ``y = f(..., out=tmp)`` -> ``tmp =
        out_call(f, tmp, ...)`` then ``y = tmp``; ``y = f(..., out=np.full(...))``, an array
        made for the call, is first bound to a scratch name, then the same."""
        self.generic_visit(node)
        made = _made_for_out(node.value)
        if made is not None:
            scratch = f"{GENERATED}v_{next(_SCRATCH)}"
            bind = ast.copy_location(ast.Assign(targets=[ast.Name(id=scratch, ctx=ast.Store())],
                                                value=made.value), node)
            made.value = ast.copy_location(_load(scratch), made.value)
            first = _out_call(node.value, scratch)
            node.value = ast.copy_location(_load(scratch), node.value)
            return [bind, first, *_as_list(self._subscript_write(node))]
        name = _out_name(node.value, self.own)
        if name is not None:
            first = _out_call(node.value, name)
            node.value = ast.copy_location(_out_names(name, ast.Load()), node.value)
            rest = self._subscript_write(node)
            return [first, rest]
        return self._subscript_write(node)

    def _subscript_write(self, node):
        if _unpacks_into_subscripts(node.targets):
            return self._assign_in_turn(node)
        if len(node.targets) == 1 and _plain_subscript(node.targets[0], self.own):
            t = node.targets[0]
            call = _call(_helper("setitem"), _load(t.value.id), _key(t.slice), node.value)
            return ast.copy_location(ast.Assign(targets=[ast.Name(id=t.value.id, ctx=ast.Store())],
                                                value=call), node)
        if len(node.targets) == 1 and _nested_subscript(node.targets[0], self.own):
            return self._nested_write(node)
        view = len(node.targets) == 1 and _view_method_subscript(node.targets[0], self.own)
        if view:  # g.ravel()[k] = v -> g = view_setitem(g, "ravel", (), {}, k, v)
            name, *call = view
            write = _call(_helper("view_setitem"), _load(name), *call, _key(node.targets[0].slice),
                          node.value)
            return _locate(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=write), node)
        if len(node.targets) == 1 and _object_attribute(node.targets[0]):
            t = node.targets[0]  # self.w = ...: refused on an object from outside (runtime)
            call = _call(_helper("set_attribute"), t.value, ast.Constant(t.attr), node.value)
            return ast.copy_location(ast.Expr(value=call), node)
        if len(node.targets) == 1 and _outer_subscript(node.targets[0], self.own):
            t = node.targets[0]  # a global's, closure's or object's array: written where it is
            call = _call(_helper("setitem_outer"), _outer_base(t), _key(t.slice), node.value)
            return ast.copy_location(ast.Expr(value=call), node)
        return node

    def _nested_write(self, node) -> ast.Assign:
        """``B[k1][k2] = v`` -> ``B = nested_setitem(B, k1, k2, v)``: a local NumPy array
        written so with traced values becomes a traced one, as ``B[k] = v`` does."""
        t = node.targets[0]
        base, key = t.value.args  # as converted: getitem(B, k1)[k2]
        call = _call(_helper("nested_setitem"), _load(base.id), key, _key(t.slice), node.value)
        return _locate(ast.Assign(targets=[ast.Name(id=base.id, ctx=ast.Store())], value=call), node)

    def _assign_in_turn(self, node) -> list:
        """``a[i], b[i] = x, y`` and ``a[i] = b[i] = v``: the value into a scratch name, then
        each target assigned from it in Python's order (a tuple unpacked first, its elements
        then left to right), so that each subscript target is a ``setitem`` of its own."""
        scratch = f"{GENERATED}v_{next(_SCRATCH)}"
        out = [ast.copy_location(ast.Assign(targets=[ast.Name(id=scratch, ctx=ast.Store())],
                                            value=node.value), node)]
        for target in node.targets:
            out += self._assign_from(target, scratch, node)
        return out

    def _assign_from(self, target, name: str, where) -> list:
        if isinstance(target, (ast.Tuple, ast.List)) and not any(
                isinstance(e, ast.Starred) for e in target.elts):
            parts = [f"{GENERATED}v_{next(_SCRATCH)}" for _ in target.elts]
            unpack = ast.Assign(targets=[_tuple(parts, store=True)], value=_load(name))
            out = [ast.copy_location(unpack, where)]
            for elt, part in zip(target.elts, parts):
                out += self._assign_from(elt, part, where)
            return out
        single = ast.copy_location(ast.Assign(targets=[target], value=_load(name)), where)
        if isinstance(target, (ast.Tuple, ast.List)):  # a starred unpacking: Python's own
            return [single]
        return _as_list(self._subscript_write(single))

    def visit_AugAssign(self, node):
        """``h[k] += v`` -> ``h = aug_setitem(h, k, "Add", v)``; ``s += v`` -> ``s = aug_assign(s,
        "Add", v)``: a local NumPy array updated with a traced value becomes a traced array."""
        self.generic_visit(node)
        t = node.target
        if isinstance(t, ast.Name) and t.id in self.own and not t.id.startswith(GENERATED):
            op = ast.Constant(type(node.op).__name__)
            call = _call(_helper("aug_assign"), _load(t.id), op, node.value)
            return ast.copy_location(ast.Assign(targets=[ast.Name(id=t.id, ctx=ast.Store())],
                                                value=call), node)
        if _plain_subscript(node.target, self.own):
            t = node.target
            op = ast.Constant(type(node.op).__name__)
            call = _call(_helper("aug_setitem"), _load(t.value.id), _key(t.slice), op, node.value)
            return ast.copy_location(ast.Assign(targets=[ast.Name(id=t.value.id, ctx=ast.Store())],
                                                value=call), node)
        if _nested_subscript(node.target, self.own):  # acc[1][i] += v, d["W"][0] -= g
            t = node.target
            base, key = t.value.args  # as converted: getitem(B, k1)[k2]
            op = ast.Constant(type(node.op).__name__)
            call = _call(_helper("nested_aug_setitem"), _load(base.id), key, _key(t.slice), op,
                         node.value)
            return _locate(ast.Assign(targets=[ast.Name(id=base.id, ctx=ast.Store())], value=call),
                           node)
        view = _view_method_subscript(node.target, self.own)
        if view:  # g.ravel()[k] += v
            name, *call = view
            op = ast.Constant(type(node.op).__name__)
            write = _call(_helper("view_aug_setitem"), _load(name), *call, _key(node.target.slice), op,
                          node.value)
            return _locate(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=write), node)
        if _outer_subscript(node.target, self.own):
            t = node.target
            op = ast.Constant(type(node.op).__name__)
            call = _call(_helper("aug_setitem_outer"), _outer_base(t), _key(t.slice), op, node.value)
            return ast.copy_location(ast.Expr(value=call), node)
        if _object_attribute(node.target):  # self.w -= lr * g: the object's array, in place
            t = node.target
            op = ast.Constant(type(node.op).__name__)
            call = _call(_helper("aug_attribute"), t.value, ast.Constant(t.attr), op, node.value)
            return ast.copy_location(ast.Expr(value=call), node)
        return node

    def visit_Subscript(self, node):
        """``a[k]`` read -> ``getitem(a, k)``: a NumPy array read at a traced index."""
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(_call(_helper("getitem"), node.value, _key(node.slice)), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if _has_walrus(node):  # a lambda would bind the name in its own scope
            return node
        helper = "and_" if isinstance(node.op, ast.And) else "or_"
        return ast.copy_location(_call(_helper(helper), *map(_thunk, node.values)), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            if isinstance(node.operand, ast.Constant):  # -1.5: a number
                return node
            # -q: a user's class's __neg__ converted (operators.py)
            return ast.copy_location(_call(_helper("unary"), ast.Constant(type(node.op).__name__),
                                           node.operand), node)
        return ast.copy_location(_call(_helper("not_"), node.operand), node)

    def visit_JoinedStr(self, node):
        """``f"a {x:.3f} b"`` -> ``joined(f"...")``: text holding a traced value's placeholder is
        a TracedText (``jitcore/traced_text.py``), whose str operations cannot read the
        placeholder. (A field's format spec is an f-string of its own, left as one.)"""
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                value.value = self.visit(value.value)
                if value.format_spec is not None:
                    for inner in value.format_spec.values:
                        if isinstance(inner, ast.FormattedValue):
                            inner.value = self.visit(inner.value)
        return ast.copy_location(_call(_helper("joined"), node), node)

    def visit_BinOp(self, node):
        formatted = isinstance(node.left, ast.JoinedStr)
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod) and (formatted or isinstance(
                node.left, ast.Constant) and isinstance(node.left.value, str)):
            # "%.3f" % loss: a traced value's conversion is filled in at each call, as f-strings'
            return ast.copy_location(_call(_helper("percent"), node.left, node.right), node)
        if isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant):
            return node
        # q1 * q2: a user's class's __mul__ (or __rmul__) converted (operators.py)
        return ast.copy_location(_call(_helper("binary"), ast.Constant(type(node.op).__name__),
                                       node.left, node.right), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if _has_walrus(node):
            return node
        if len(node.ops) == 1 and not isinstance(node.ops[0], (ast.In, ast.NotIn)):  # ('in': compare's check)
            if type(node.ops[0]) not in _RICH or isinstance(node.left, ast.Constant) and isinstance(
                    node.comparators[0], ast.Constant):
                return node
            # v == w, v < w: a user's class's __eq__ (or __lt__, __gt__) converted (operators.py)
            return ast.copy_location(_call(_helper("rich"), ast.Constant(_COMPARE[type(node.ops[0])]),
                                           node.left, node.comparators[0]), node)
        pairs = [ast.Tuple(elts=[ast.Constant(_COMPARE[type(op)]), _thunk(right)], ctx=ast.Load())
                 for op, right in zip(node.ops, node.comparators)]
        return ast.copy_location(_call(_helper("compare"), _thunk(node.left), *pairs), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call(_helper("if_exp"), node.test, _thunk(node.body),
                                       _thunk(node.orelse)), node)

    def visit_comprehension(self, node):
        """A comprehension's ``if`` tests: a traced one refused, naming the masked forms."""
        self.generic_visit(node)
        node.ifs = [_call(_helper("comprehension_test"), test) for test in node.ifs]
        return node

    def visit_ListComp(self, node):
        """``[e for t in it]`` (one ``for``, no ``if``): ``comprehension(it, lambda t: e)``, one
        compiled loop where the list is long (``autograph/comprehensions.py``)."""
        self.generic_visit(node)
        comp = node.generators[0]
        if len(node.generators) != 1 or comp.ifs or comp.is_async or _has_walrus(node):
            return node
        return ast.copy_location(_call(_helper("comprehension"), comp.iter,
                                       _of_item(comp.target, node.elt)), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("locals", "super", "globals", "vars"):
            return node
        if _filtered_reduction(node):
            return ast.copy_location(_filtered_call(node), node)
        if node.args and _is_helper_call(node.args[0], "comprehension") \
                and not isinstance(node.args[0], ast.Starred):
            # np.array([e for t in it]): the function itself decides whether the list is needed
            comp = node.args[0]
            call = _call(_helper("comprehension_call"), node.func, _call(_helper("call"), node.func),
                         *comp.args, *node.args[1:])
            call.keywords = node.keywords
            return ast.copy_location(call, node)
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == AG:
            return node
        node.func = ast.copy_location(_call(_helper("call"), node.func), node.func)
        return node


def _grown_and_iterated(body) -> dict[str, int]:
    """The lists ``body`` appends to and also iterates over (``for j in keep:`` in the loop that
    calls ``keep.append(i)``), each with the line of the ``for`` that iterates over it."""
    # (keep.append, as Expressions converted the call: call(keep.append)(i))
    appended = {n.value.id for s in body for n in analysis.walk(s)
                if isinstance(n, ast.Attribute) and n.attr == "append" and isinstance(n.value, ast.Name)}
    out: dict[str, int] = {}
    for n in (m for s in body for m in analysis.walk(s)):
        if isinstance(n, ast.For):
            for name in (m.id for m in analysis.walk(n.iter) if isinstance(m, ast.Name) and m.id in appended):
                out.setdefault(name, n.lineno)
    return out


def _per_step_lists(body_fn: str, own_lists, node) -> list:
    """``body_fn.per_step_lists = (...)``: the lists the loop's body makes anew at its top each
    step (``xs = [x0]``), whose items no step's writes carry into the next
    (``local_arrays.refuse_carried_items`` leaves them be)."""
    if not own_lists:
        return []
    target = ast.Attribute(value=_load(body_fn), attr="per_step_lists", ctx=ast.Store())
    return [_locate(ast.Assign(targets=[target], value=_strings(sorted(own_lists))), node)]


class ControlFlow(ast.NodeTransformer):
    """Statements to helper calls, inner statements first. ``live`` is the function's
    liveness (computed after ``lowering``), ``declared`` its global/nonlocal names."""

    def __init__(self, live: analysis.Liveness, declared: set[str], own: set[str], counted=None,
                 stepped=None, affine=None, guards=None):
        self.live = live
        self.guards = guards or {}  # id(while) -> analysis.while_guard, the same
        self.counted = counted or {}  # id(while) -> analysis.counted_while, before Expressions
        self.stepped = stepped or {}  # id(while) -> analysis.stepped_while, the same
        self.affine = affine or {}  # id(while) -> analysis.affine_while, the same
        self.declared = declared
        self.nonlocals: set[str] = set()  # those of ``declared`` that are nonlocal, not global
        self.own = own  # the function's locals: only they can be state
        self.in_try = 0
        self.count = 0
        self.following: dict[int, list] = {}  # id(top-level statement) -> the statements after it
        self.grown: list[dict] = []  # per enclosing loop: the lists it appends to and iterates over

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{GENERATED}{stem}_{self.count}"

    # -- scopes the conversion leaves to their own pass ---------------------------------
    def visit_FunctionDef(self, node):
        # a generator stays Python's: its loops cannot become functions (yield would leave them)
        return node if _is_generator(node) else convert_function(node)

    def visit_AsyncFunctionDef(self, node):
        return node

    def visit_ClassDef(self, node):
        return node

    def visit_Try(self, node):
        if attempts.is_attempt(node):  # its else clause (the handlers' traced copies) and its
            for field in ("orelse", "finalbody"):  # finally are not protected by it, as in Python
                setattr(node, field, [out for s in getattr(node, field) for out in _as_list(self.visit(s))])
            outside = {field: getattr(node, field) for field in ("orelse", "finalbody")}
            for field in outside:
                setattr(node, field, [])
        self.in_try += 1
        self.generic_visit(node)
        self.in_try -= 1
        if attempts.is_attempt(node):
            node.orelse, node.finalbody = outside["orelse"], outside["finalbody"]
        if node.handlers and node.body and not attempts.is_attempt(node):
            # (a try*) the body under ``with __ag__.attempt(line, lambda: (types...))``: what it
            # may raise only when compiled code runs is refused or soft (jitcore/failures.py)
            types = [h.type if h.type is not None else ast.Name(id="BaseException", ctx=ast.Load())
                     for h in node.handlers]
            flat = [e for t in types for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            handled = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                                    kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                    defaults=[]),
                                 body=ast.Tuple(elts=[copy.deepcopy(t) for t in flat], ctx=ast.Load()))
            item = ast.withitem(context_expr=_call(_helper("attempt"), ast.Constant(node.lineno), handled))
            node.body = [_locate(ast.With(items=[item], body=node.body), node)]
        for handler in node.handlers:  # jitcore's refusals pass the handlers (reraise_refusal)
            if handler.name is None:
                handler.name = f"{GENERATED}exc_{next(_SCRATCH)}"
            check = ast.Expr(value=_call(_helper("reraise_refusal"), _load(handler.name)))
            handler.body.insert(0, _locate(check, handler.body[0] if handler.body else handler))
        return node

    visit_TryStar = visit_Try

    # -- the three statements --------------------------------------------------------------
    def _state(self, stmts, live: set[str] | None) -> list[str]:
        assigned = analysis.assigned(stmts)
        live = assigned if live is None else live  # not analysed: every assigned name is state
        names = ((assigned & live) | analysis.written(stmts)) & self.own
        return sorted(n for n in names - self.declared if not n.startswith(GENERATED))

    def _scratch(self, stmts, loop) -> set[str]:
        """Arrays a loop body writes in place (state, as every written name) that are not live
        at the loop's head: bound afresh in each iteration before use (``un = u.copy()``), so
        they may start with no value, like the loop variable."""
        live = self.live.live_in.get(id(loop))
        return set() if live is None else (analysis.written(stmts) & self.own) - live

    def _after(self, loop, state) -> ast.AST:
        """The loop's state read after it (None: not analysed, every name): only their final
        values are worth giving back as Python values (``statements._known_after``). A name
        the rest of the function only returns (``return s, i``) is left out: returned traced,
        it is an output of the compiled code (a returned constant takes the slower call path)."""
        live = self.live.live_out.get(id(loop))
        if live is None:
            return ast.Constant(None)
        rest = self.following.get(id(loop))
        only_returned = analysis.only_returned(rest) if rest is not None else set()
        return _strings(sorted((set(state) & live) - only_returned))

    def _function(self, name: str, params, body, state, where) -> ast.FunctionDef:
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                             kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        declared = analysis.assigned(body) & self.declared
        head = [ast.Global(names=sorted(declared - self.nonlocals))] if declared - self.nonlocals else []
        if declared & self.nonlocals:  # the enclosing function's cell, as in the code written
            head.append(ast.Nonlocal(names=sorted(declared & self.nonlocals)))
        fn = ast.FunctionDef(name=name, args=args, body=[*head, *(body or [ast.Pass()]),
                                                         ast.Return(value=_tuple(state))],
                             decorator_list=[], returns=None, type_comment=None)
        if "type_params" in ast.FunctionDef._fields:
            fn.type_params = []
        return _locate(fn, where)

    def _finish(self, defs, call, state, where) -> list:
        if state:
            stmt = ast.Assign(targets=[_tuple(state, store=True)], value=call)
        else:
            stmt = ast.Expr(value=call)
        return [*defs, _locate(stmt, where)]

    def _site(self, node, state, body=None) -> dict:
        init = _call(_helper("state"), _call(_load("locals")), _strings(state))
        site = {"init": init, "names": _strings(state), "line": ast.Constant(node.lineno),
                "in_try": ast.Constant(bool(self.in_try) and not attempts.tests_flag(node))}
        # r.n = v in a branch or loop: carried as a variable is, where r is the one object
        # throughout (not a name the statement binds anew: a loop's target, ``c = cs[i]``)
        bound = analysis.assigned(body or [])
        attributes = [(n, a) for n, a in analysis.attribute_targets(body or [], self.own) if n not in bound]
        methods = [(n, m) for n, m in analysis.method_calls(body or [], self.own) if n not in bound]
        if attributes or methods:
            pairs, calls = (ast.Tuple(elts=[_strings(pair) for pair in found], ctx=ast.Load())
                            for found in (attributes, methods))
            site["holders"] = _call(_helper("holders"), _call(_load("locals")), pairs, calls)
        return site

    def _unless_users_methods(self, stmts, found) -> ast.AST:
        """``found(())``, the Python change a statement's body makes as its source shows it, or,
        where that counts a call like ``kf.update(z)`` (``analysis.effect_methods``) and the
        object turns out to be of a user's class when the statement runs, ``found(methods)``:
        a user's method is traced as any call (``runtime.unless_users_methods``)."""
        methods = analysis.effect_methods(stmts, self.own - self.declared)
        seen, without = found(()), found(methods)
        if not methods or seen == without:
            return ast.Constant(seen)
        pairs = ast.Tuple(elts=[_strings(pair) for pair in methods], ctx=ast.Load())
        return _call(_helper("unless_users_methods"), _call(_load("locals")), pairs,
                     ast.Constant(seen), ast.Constant(without))

    def visit_If(self, node):
        # lists the branches only append to (read before the branches are converted, whose
        # nested statements name them as their state): carried as state, for a traced if in
        # an appending loop (``statements.if_stmt``, ``appending.appending_if``)
        appends = analysis.appended_lists(node.body + node.orelse, self.own - self.declared)
        self.generic_visit(node)
        # A name a branch assigns and reads first (``v = f(v)``) is state even if dead after
        # the if: assigned in the branch's function, it is local there and needs its value.
        # It is not carried out of a traced if (``dead``): its value after the if is never read,
        # so its branches may give it different types.
        live = self.live.live_out.get(id(node))
        dead, fresh = set(), set()
        if live is not None:
            first_read = self.live.live_in.get(id(node), set())
            written = analysis.written(node.body + node.orelse)
            dead = first_read - live - written
            # An array made and written in a branch, never read after the if (``J = eye(n);
            # J[p, q] = s``): with no value before the if, no caller or view can see its writes.
            fresh = written - live
            live = live | first_read
        state = sorted(set(self._state(node.body + node.orelse, live)) | set(appends or ()))
        then_fn, else_fn = self.fresh("then"), self.fresh("else")
        defs = [self._function(then_fn, state, node.body, state, node),
                self._function(else_fn, state, node.orelse, state, node)]
        site = self._site(node, state, node.body + node.orelse)
        site["then_defined"] = _strings(sorted(_defined(node.body, state)))
        site["else_defined"] = _strings(sorted(_defined(node.orelse, state)))
        site["dead"] = _strings(sorted(dead & set(state)))
        site["fresh"] = _strings(sorted(fresh & set(state)))
        branches = node.body + node.orelse
        site["changes"] = ast.Constant(None) if appends else self._unless_users_methods(
            branches, lambda methods: analysis.changed_python_object(branches, self.own, methods))
        site["rebinds"] = _strings(sorted(analysis.rebound(node.body + node.orelse) & set(state)))
        refreshed = analysis.only_refreshed(node.body + node.orelse, state)
        if refreshed:  # (rng, only read again after resample(w, rng): given as it is)
            site["refreshed"] = _strings(sorted(refreshed))
        if appends:
            site["appends"] = _strings(appends)
            grown = {name: line for loop in self.grown for name, line in loop.items() if name in appends}
            if grown:  # (for j in keep in the loop that appends to keep: for the refusal)
                pairs = [ast.Tuple(elts=[ast.Constant(n), ast.Constant(at)], ctx=ast.Load())
                         for n, at in sorted(grown.items())]
                site["iterated"] = ast.Tuple(elts=pairs, ctx=ast.Load())
        if not node.orelse and analysis.not_break_flag(node.test):
            site["after_break"] = ast.Constant(True)  # (where it fails, the loop ends)
        call = _call(_helper("if_stmt"), node.test, _load(then_fn), _load(else_fn), **site)
        return self._finish(defs, call, state, node)

    def visit_While(self, node):
        counted = self.counted.get(id(node))
        stepped = self.stepped.get(id(node))
        # lists the body only appends to (the test may read them as the body may: len(s), s[k],
        # v in s): state, compiled as arrays of the rows the guard's most trips can append
        # (``statements._appending_while``)
        appends = analysis.appended_lists(node.body, self.own - self.declared)
        if appends and any(isinstance(n, ast.Name) and n.id in appends for n in analysis.walk(node.test)) \
                and analysis.appended_lists([*node.body, ast.Expr(value=node.test)],
                                            self.own - self.declared) != appends:
            appends = None
        own_lists = analysis.per_step_lists(node.body)  # (xs = [x0] each step: no effect)
        read_first = analysis.read_first(node.body) | analysis.loaded(node.test)
        self.generic_visit(node)
        state = sorted(set(self._state(node.body, self.live.live_in.get(id(node)))) | set(appends or ()))
        test_fn, body_fn = self.fresh("test"), self.fresh("body")
        test = self._function(test_fn, state, [], [], node)
        test.body = [ast.Return(value=node.test)]
        defs = [_locate(test, node), self._function(body_fn, state, node.body, state, node),
                *_per_step_lists(body_fn, own_lists, node)]
        site = self._site(node, state, node.body)
        site["targets"] = _strings(sorted(self._scratch(node.body, node)))
        site["fresh"] = _strings(sorted(set(state) - read_first))  # (as a for loop's: ``unbound``)
        affine = self.affine.get(id(node))
        if affine is not None and set(affine[0]) <= set(state) and (counted is None or len(affine[0]) > 1):
            # ``while start + N <= len(x): ...; start += hop; k += 1``: the test's two sides and
            # the steps, for a loop over the step count (``statements._affine_while``; where
            # that cannot be, a float counter, the helpers below as before)
            counters, in_test, compare, test, steps = affine
            bound_fn = self.fresh("bound")
            bound = self._function(bound_fn, state, [], [], node)
            bound.body = [ast.Return(value=ast.Tuple(
                elts=[copy.deepcopy(test.left), copy.deepcopy(test.comparators[0]), *steps],
                ctx=ast.Load()))]
            defs.insert(1, _locate(bound, node))
            site["affine"] = ast.Tuple(elts=[_strings(counters), ast.Tuple(
                elts=[ast.Constant(c) for c in in_test], ctx=ast.Load()), ast.Constant(compare),
                _load(bound_fn)], ctx=ast.Load())
        if counted is not None and counted[0] in state:
            # ``while i < n: ...; i += 1``: the bound, for a loop over the counter's values (the
            # comparison as Expressions left it, before it made it a call of ``rich``)
            bound_fn = self.fresh("bound")
            bound = self._function(bound_fn, state, [], [], node)
            bound.body = [ast.Return(value=copy.deepcopy(self.tests[id(node)].comparators[0]))]
            defs.insert(1, _locate(bound, node))
            site["counter"] = ast.Tuple(elts=[ast.Constant(c) for c in counted], ctx=ast.Load())
            site["bound"] = _load(bound_fn)
        elif stepped is not None and stepped[0] in state:
            # ``while i < n`` whose counter steps under an if, or which breaks: the bound and
            # the steps' sizes, to tell a loop from a short one (``statements._stepped_while``)
            counter, compare, test, steps = stepped
            bound_fn = self.fresh("bound")
            bound = self._function(bound_fn, state, [], [], node)
            bound.body = [ast.Return(value=ast.Tuple(
                elts=[copy.deepcopy(test.comparators[0]), *steps], ctx=ast.Load()))]
            defs.insert(1, _locate(bound, node))
            once = analysis.steps_once(node.body, counter)  # (its bounds after the loop)
            site["stepped"] = ast.Tuple(elts=[ast.Constant(counter), ast.Constant(compare),
                                              ast.Constant(once)], ctx=ast.Load())
            site["bound"] = _load(bound_fn)
        outer = self.own - own_lists
        site["changes"] = self._unless_users_methods(
            node.body, lambda methods: analysis.changed_python_object(node.body, outer, methods))
        site["effects"] = self._unless_users_methods(node.body, lambda methods: analysis.has_python_effects(
            node.body, own_lists, methods))
        site["after"] = self._after(node, state)
        site["rebinds"] = _strings(sorted(analysis.rebound(node.body) & set(state)))
        refreshed = analysis.only_refreshed(node.body, state)
        if refreshed:
            site["refreshed"] = _strings(sorted(refreshed))
        # (any list popped in the body, a carried one or one only mutated, dq.pop(): the
        # refusal names it where its message names the call, and says what compiles)
        stacks = analysis.popped_lists(node.body)
        if stacks:
            site["stacks"] = _strings(sorted(stacks))
        if appends:
            site["appends"] = _strings(appends)
            guard = self.guards.get(id(node))
            if guard is not None and guard[0] in state:
                counter, compare, test, step = guard
                bound_fn = self.fresh("guard")
                bound = self._function(bound_fn, state, [], [], node)
                bound.body = [ast.Return(value=copy.deepcopy(test.comparators[0]))]
                defs.insert(1, _locate(bound, node))
                site["guard"] = ast.Tuple(elts=[ast.Constant(counter), ast.Constant(compare),
                                                ast.Constant(step), _load(bound_fn)], ctx=ast.Load())
        call = _call(_helper("while_stmt"), _load(test_fn), _load(body_fn), **site)
        return self._finish(defs, call, state, node)

    def visit_For(self, node):
        self.grown.append(_grown_and_iterated(node.body))
        try:
            return self._for(node)
        finally:
            self.grown.pop()

    def _for(self, node):
        # lists appended under an if of the body (read before it is converted: its converted
        # ifs name them as their state): compiled as a loop at any trip count (``appending``)
        appended = analysis.appended_lists(node.body, self.own - self.declared)
        under_if = bool(appended) and analysis.appends_under_if(node.body, appended)
        own_lists = analysis.per_step_lists(node.body)  # (xs = [x0] each step: no effect)
        read_first = analysis.read_first(node.body)
        self.generic_visit(node)
        bind = ast.Assign(targets=[node.target], value=_load(ITER))
        body = [_locate(bind, node), *node.body]
        state = self._state(body, self.live.live_in.get(id(node)))
        hoisted, shown = self._name_appended_paths(node)
        # a list the body only appends to is state too: compiled, its rows are carried
        appends = analysis.appended_lists(node.body, self.own - self.declared) \
            or (appended if under_if else None)
        state = sorted(set(state) | set(appends or ()))
        body_fn = self.fresh("body")
        defs = [self._function(body_fn, [ITER, *state], body, state, node),
                *_per_step_lists(body_fn, own_lists, node)]
        test = ast.Constant(None)
        extra = getattr(node, "extra_test", None)
        if extra is not None:
            test_fn = self.fresh("test")
            fn = self._function(test_fn, state, [], [], node)
            fn.body = [ast.Return(value=Expressions(None, self.own).visit(extra))]
            defs.insert(0, _locate(fn, node))
            test = _load(test_fn)
        site = self._site(node, state, body)
        scratch = self._scratch(body, node)
        site["targets"] = _strings(sorted(analysis.assigned([bind]) | scratch))
        site["scratch"] = _strings(sorted(scratch))
        # first set in the body, before any read: a traced loop may start them with no value,
        # as its target, and they are bound after it where it ran (``unbound``)
        site["fresh"] = _strings(sorted(set(state) - read_first - analysis.assigned([bind])))
        site["effects"] = self._unless_users_methods(node.body, lambda methods: analysis.has_python_effects(
            node.body, own_lists, methods))

        def changes(methods):
            changed = analysis.changed_python_object(node.body, self.own - own_lists, methods)
            if changed is not None and changed.split(".")[0] in shown:  # the user's words
                changed = f"{shown[changed.split('.')[0]]}.{changed.split('.', 1)[1]}"
            return changed
        site["changes"] = self._unless_users_methods(node.body, changes)
        site["appends"] = ast.Constant(appends)
        if under_if:
            site["appends_under_if"] = ast.Constant(True)
        site["after"] = self._after(node, state)
        site["rebinds"] = _strings(sorted(analysis.rebound(body) & set(state)))
        refreshed = analysis.only_refreshed(body, state)
        if refreshed:
            site["refreshed"] = _strings(sorted(refreshed))
        call = _call(_helper("for_stmt"), node.iter, test, _load(body_fn), **site)
        return [*hoisted, *self._finish(defs, call, state, node)]

    def _name_appended_paths(self, node) -> tuple[list, dict]:
        """``log["E"].append(v)`` (``self.hist``, ``lists[0]``) in a for loop's body becomes
        ``name.append(v)``, the list named before the loop (``name = __ag__.reach(lambda:
        log["E"])``), so that the loop appends to a local list by its name, which compiles as
        an appending loop (``analysis.appended_lists``): traced once, the body's append through
        the path ran once. Gives the naming statements and {name: the path's text}."""
        names, hoisted, shown = {}, [], {}
        for path in analysis.appended_paths(node.body, self.own - self.declared):
            key = ast.dump(path)
            if key not in names:
                names[key] = self.fresh("list")
                reach = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                                      kwonlyargs=[], kw_defaults=[], kwarg=None,
                                                      defaults=[]), body=copy.deepcopy(path))
                extra = []
                if isinstance(path, ast.Attribute) and isinstance(path.value, ast.Name):
                    # (s.hist where the body also calls s.step(): step must not set s.hist)
                    others = analysis.other_attributes(node.body, path.value.id, path.attr)
                    if others:
                        extra = [ast.Name(id=path.value.id, ctx=ast.Load()), ast.Constant(path.attr),
                                 _strings(others), ast.Constant(node.lineno)]
                hoisted.append(_locate(ast.Assign(targets=[ast.Name(id=names[key], ctx=ast.Store())],
                                                  value=_call(_helper("reach"), reach, *extra)), node))
                shown[names[key]] = _user_text(path)
        if names:
            self.own = self.own | set(names.values())
            for n in (m for s in node.body for m in analysis.walk(s)):
                if isinstance(n, ast.Attribute) and ast.dump(n.value) in names and n.attr == "append":
                    n.value = ast.Name(id=names[ast.dump(n.value)], ctx=ast.Load())
        return hoisted, shown


def _user_text(path) -> str:
    """``log["E"]`` as the user wrote it, from its converted form (``__ag__.getitem(log, 'E')``)."""
    if isinstance(path, ast.Attribute):
        return f"{_user_text(path.value)}.{path.attr}"
    if isinstance(path, ast.Call):
        return f"{_user_text(path.args[0])}[{path.args[1].value!r}]"
    return ast.unparse(path)


def _is_generator(fn: ast.FunctionDef) -> bool:
    """Whether ``fn``'s own body (not a function nested in it) yields."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _locate(node, where):
    for n in analysis.walk(node):
        if isinstance(n, (ast.stmt, ast.expr, ast.arg)) and not hasattr(n, "lineno"):
            ast.copy_location(n, where)
            n.end_lineno, n.end_col_offset = where.lineno, where.col_offset
    return node


def _outer_arrays_written(fn: ast.FunctionDef, own) -> set[str]:
    """The globals and closure variables ``fn`` writes by subscript (``W[k] = v``, ``W[k] += v``),
    not counting nested functions (each is converted on its own)."""
    names, todo = set(), list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        targets = (n.targets if isinstance(n, ast.Assign)
                   else [n.target] if isinstance(n, ast.AugAssign) else [])
        names |= {t.value.id if isinstance(t.value, ast.Name) else ast.unparse(t.value)
                  for t in targets if _outer_subscript(t, own)}
        if isinstance(n, ast.AugAssign) and _object_attribute(n.target):
            names.add(ast.unparse(n.target))
        todo.extend(ast.iter_child_nodes(n))
    return names


class OuterReads(_LinedTransformer):
    """Reads of globals and closure variables: one the function writes by subscript goes through
    ``outer_read`` (after a traced write, ``W.sum()``, ``W[1]`` or ``W * 2`` must read the written
    array, its hidden argument, not the value NumPy holds while tracing); any other through
    ``outer_value`` (the same for an array the caller wrote, read in a helper)."""

    def __init__(self, top, own, written):
        self.top, self.own, self.written = top, own, written
        self.kept = _kept_paths(top)

    def visit_FunctionDef(self, node):  # a nested function gets its own conversion
        if node is self.top:
            self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        """An object's attribute the function writes by subscript (``self.buf``): read through
        ``outer_read`` as a written global is; any other read as a value (``self.lim``,
        ``Cfg.K``, not a method called nor a target written) through ``outer_value``, which
        makes an outside array an input where it is read (``-self.lim`` is traced)."""
        if isinstance(node.ctx, ast.Load) and _object_attribute(node) and ast.unparse(node) in self.written:
            return ast.copy_location(_call(_helper("outer_read"), node), node)
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and id(node) not in self.kept and not _from_helpers(node):
            return ast.copy_location(_call(_helper("outer_value"), node), node)
        return node

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load) or node.id in self.own or node.id.startswith("__ag"):
            return node
        if node.id in self.written:
            return ast.copy_location(_call(_helper("outer_read"), node), node)
        if hasattr(builtins, node.id):
            return node
        return ast.copy_location(_call(_helper("outer_value"), node), node)


def _from_helpers(node) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name) and node.id.startswith("__ag")


def _kept_paths(fn) -> set[int]:
    """The ids of the attribute and subscript nodes that ``OuterReads`` leaves as they are: the
    path of a method called (``obj.items.append``: the analyses match it by its shape; an
    array's method is made an input by ``runtime.call``), of a target written, and the
    arguments of autograph's helpers other than ``call``, ``getitem`` and the operators'
    ``binary``/``unary``/``rich`` (``setitem_outer``'s base is the array itself)."""
    kept: set[int] = set()

    def path(n):
        while isinstance(n, (ast.Attribute, ast.Subscript)):
            kept.add(id(n))
            n = n.value

    for n in analysis.walk(fn):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == AG:
                if f.attr == "call":
                    for a in n.args[:1]:
                        path(a)
                elif f.attr not in ("getitem", "binary", "unary", "rich"):  # (operands are values)
                    for a in n.args:
                        path(a)
            else:
                path(f)
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and not isinstance(n.ctx, ast.Load):
            path(n.value)
        elif isinstance(n, ast.AugAssign):
            path(n.target)
    return kept


def _defaults_read(fn: ast.FunctionDef) -> list[ast.stmt]:
    """``p = __ag__.outer_value(p)`` for each parameter with a default: a default array
    (``def f(x, lim=np.ones(2))``) is an input where the body starts, as a global is where it is
    read, so ``-lim`` is traced from the call's array."""
    a = fn.args
    named = (a.posonlyargs + a.args)[len(a.posonlyargs) + len(a.args) - len(a.defaults):]
    named += [k for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    return [ast.copy_location(ast.Assign(targets=[ast.Name(id=p.arg, ctx=ast.Store())],
                                         value=_call(_helper("outer_value"), _load(p.arg))), fn)
            for p in named]


def convert_function(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` rewritten in place: jumps lowered to flags, then control flow and expressions to
    helper calls."""
    _asserts_as_raises(fn)
    attempts.convert_tries(fn)  # try as traced control flow where compiled code may fail in it
    # the reads that may find no value, as the user wrote them (wrapped once converted)
    unset = unbound.reads_to_check(fn, analysis.local_names(fn) - set().union(*_declared(fn)))
    conditions.tests_in_bodies(fn)  # while a and find(i): its test as an if of its body
    lowering.lower_returns(fn)
    lowering.lower_jumps(fn)
    conditions.split_conditions(fn)  # if a and b: as nested ifs (its operands' writes carried)
    globals_, nonlocals = _declared(fn)
    declared = globals_ | nonlocals
    _check_nonlocal_writes(fn, nonlocals)
    live = analysis.Liveness(fn)
    own = analysis.local_names(fn) - declared
    written_outer = _outer_arrays_written(fn, own)
    whiles = [n for n in analysis.walk(fn) if isinstance(n, ast.While)]  # (the analyses change none)
    counted = {id(n): analysis.counted_while(n) for n in whiles}
    stepped = {id(n): analysis.stepped_while(n) for n in whiles if counted[id(n)] is None}
    affine = {id(n): analysis.affine_while(n) for n in whiles}
    tests = {id(n): n.test for n in whiles}
    guards = {id(n): analysis.while_guard(n) for n in whiles}
    CallRefreshes(fn, own).visit(fn)
    Expressions(fn, own).visit(fn)  # before ControlFlow: the loop tests it moves are converted here
    OuterReads(fn, own, written_outer).visit(fn)  # after Expressions (it matches W[k] = v by name)
    converter = ControlFlow(live, declared, own, counted, stepped, affine, guards)
    converter.nonlocals = nonlocals
    converter.tests = tests  # id(while) -> its test, whose parts Expressions converts in place
    converter.following = {id(s): fn.body[k + 1:] for k, s in enumerate(fn.body)}
    fn.body = [out for s in fn.body for out in _as_list(converter.visit(s))]
    fn.body[:0] = _defaults_read(fn)
    unbound.wrap_reads(fn, unset)
    fn.decorator_list = []
    return fn


def _own_nodes(fn):
    """The nodes of ``fn``'s body, less those of the functions and classes defined in it."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield n
        todo.extend(ast.iter_child_nodes(n))


def _declared(fn) -> tuple[set, set]:
    """The names ``fn`` itself declares ``global`` and ``nonlocal`` (a nested function's
    declarations are its own: its ``nonlocal s`` makes ``s`` no less ``fn``'s local)."""
    globals_, nonlocals = set(), set()
    for n in _own_nodes(fn):
        if isinstance(n, ast.Global):
            globals_ |= set(n.names)
        elif isinstance(n, ast.Nonlocal):
            nonlocals |= set(n.names)
    return globals_, nonlocals


def _check_nonlocal_writes(fn, nonlocals: set) -> None:
    """Each statement assigning a ``nonlocal`` name is preceded by ``nonlocal_write(name)``:
    refused inside a compiled loop or branch (the enclosing function's variable would keep a
    value that exists only there), run as written elsewhere."""
    if not nonlocals:
        return

    def targets(stmt):
        found = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, (ast.AugAssign, ast.AnnAssign)) else []
        return sorted({n.id for t in found for n in analysis.walk(t)
                       if isinstance(n, ast.Name) and n.id in nonlocals})

    def checked(stmts):
        out = []
        for stmt in stmts:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and not isinstance(
                        stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    setattr(stmt, field, checked(inner))
            for h in getattr(stmt, "handlers", ()):
                h.body = checked(h.body)
            out += [_locate(ast.Expr(value=_call(_helper("nonlocal_write"), ast.Constant(name))),
                            stmt) for name in targets(stmt)]
            out.append(stmt)
        return out

    fn.body = checked(fn.body)


def _defined(stmts, state) -> set:
    """The names ``stmts`` assign on every path that goes on: all of them where it always
    raises (a traced branch that raises is checked at run time and never goes on: ``raises``)."""
    return set(state) if lowering.always_ends(stmts, ast.Raise) else analysis.definitely_assigned(stmts)


def _asserts_as_raises(fn: ast.FunctionDef) -> None:
    """``assert test, msg`` as ``if not test: raise AssertionError(msg)``, so that a traced test
    is checked when the function runs (``raises``); dropped under ``python -O``, as Python
    drops them."""
    class Asserts(ast.NodeTransformer):
        def visit_Assert(self, node):
            if not __debug__:
                return ast.copy_location(ast.Pass(), node)
            error = ast.Call(func=ast.Name(id="AssertionError", ctx=ast.Load()),
                             args=[node.msg] if node.msg is not None else [], keywords=[])
            check = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=node.test),
                           body=[ast.Raise(exc=error, cause=None)], orelse=[])
            return analysis.fix_missing_locations(ast.copy_location(check, node))

        def visit_FunctionDef(self, node):  # a nested function: its own conversion
            return node

        visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    fn.body = [Asserts().visit(s) for s in fn.body]


def _as_list(x):
    return x if isinstance(x, list) else [x]
