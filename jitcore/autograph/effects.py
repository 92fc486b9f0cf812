"""Python effects of a traced branch or loop body: they run while it is traced, not when it runs.

A traced ``if``'s branches and a traced loop's body are traced once (or a few times, while the
carry's types settle), whatever the condition or the number of iterations. A call in them that
changes a Python object therefore runs once, at compile time: ``log["E"].append(x)``,
``record(E, x)`` (a helper that appends), ``self.hist.append(x)`` gave a list of one item where
NumPy's loop gave ``n``. The conversion sees ``name.append`` in the body itself
(``analysis.changed_python_object``); a helper's appends, or a container reached through an
item or an attribute, only the trace sees: ``watching`` notes the lengths of the lists, dicts
and sets the statement can reach (its state, and the cells of its body functions and of the
functions they hold, through items and attributes) before tracing it, and refuses where one
changed, after putting its items back as they were (the refusal may be retried with static
bounds, which must not see the items twice).
"""

from __future__ import annotations

import itertools
import os
import types

import numpy as np

from jitcore.autograph.expressions import where
from jitcore.errors import UnsupportedError
from jitcore.ir.errors import JitcoreError
from jitcore.tracer import Tracer, needs_static

_JITCORE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CONTAINERS = (list, dict, set)
_MOST = 5000  # objects looked at: a bound on the cost of a statement's trace
_DEPTH = 6
_ITEMS = 256  # items looked into per container (a list of a million floats holds no list)
_COPIED = 100_000  # a longer container is not copied: its change is refused, not undone


def _user_function(f) -> bool:
    code = getattr(f, "__code__", None)
    return isinstance(f, types.FunctionType) and code is not None \
        and not os.path.abspath(code.co_filename).startswith(_JITCORE)


def _children(obj):
    """(label, value) of what ``obj`` holds that a call could reach through it."""
    if isinstance(obj, dict):
        return [(f"[{k!r}]", v) for k, v in itertools.islice(obj.items(), _ITEMS)]
    if isinstance(obj, (list, tuple)):
        return [(f"[{i}]", v) for i, v in enumerate(obj[:_ITEMS])]
    if isinstance(obj, types.MethodType):
        return [("", obj.__self__), ("", obj.__func__)]
    if isinstance(obj, types.FunctionType):
        cells = zip(obj.__code__.co_freevars, obj.__closure__ or ())
        out = []
        for name, cell in cells:
            try:
                out.append((name, cell.cell_contents))
            except ValueError:  # an empty cell: a name not yet bound
                pass
        globs = obj.__globals__
        return out + [(name, globs[name]) for name in _global_names(obj.__code__) if name in globs]
    try:  # (not getattr: a class's own __getattr__ must not run, for a missing __dict__)
        held = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return []
    if not isinstance(held, dict):
        return []
    return [(f".{k}", v) for k, v in itertools.islice(list(held.items()), _ITEMS)]


def _global_names(code) -> set:
    """The names ``code`` and the functions defined in it may read as globals (``LOG`` of
    ``LOG.append(v)``, a helper's name)."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _global_names(c)
    return names


def _skipped(obj) -> bool:
    if obj is None or isinstance(obj, (Tracer, np.ndarray, np.generic, str, bytes, int, float,
                                       complex, type, types.ModuleType)):
        return True
    if isinstance(obj, types.FunctionType):
        return not _user_function(obj)
    module = type(obj).__module__ or ""
    return module.startswith(("jitcore", "numpy", "builtins")) and not isinstance(
        obj, (*_CONTAINERS, tuple, types.MethodType))


def _reachable(roots) -> dict:
    """{id: (container, its label, a copy of its items)} of the lists, dicts and sets reachable
    from ``roots`` ((label, value) pairs)."""
    found, seen = {}, set()
    stack = [(label, value, 0) for label, value in roots]
    while stack and len(seen) < _MOST:
        label, obj, depth = stack.pop()
        if id(obj) in seen or _skipped(obj):
            continue
        seen.add(id(obj))
        if isinstance(obj, _CONTAINERS):
            found[id(obj)] = (obj, label, obj.copy() if len(obj) <= _COPIED else len(obj))
        if depth < _DEPTH and not isinstance(obj, set):
            for part, child in _children(obj):
                inner = part if isinstance(obj, types.FunctionType) else \
                    label if part == "" else f"{label}{part}"
                stack.append((inner, child, depth + 1))
    return found


def _restore(obj, items) -> None:
    if isinstance(items, int):  # (not copied: too long)
        return
    if isinstance(obj, list):
        obj[:] = items
    else:
        obj.clear()
        obj.update(items)


def _changed(before: dict) -> list:
    return [(obj, label, items) for obj, label, items in before.values()
            if len(obj) != (items if isinstance(items, int) else len(items))]


def _roots(names, values, functions):
    roots = list(zip(names, values))
    for f in functions:
        if f is not None:
            roots += [("", g) for g in _unwrapped(f)]
    return roots


def _unwrapped(f, depth: int = 4) -> list:
    """The user's functions that ``f`` runs: itself, or those a statement's wrapper of its body
    holds in its closure (``statements.AttributeState.body``, a body given its held names):
    skipped as jitcore's, the wrapper hid the body's helper calls (``lg.add(v)`` appending)."""
    if not isinstance(f, types.FunctionType) or _user_function(f) or depth == 0:
        return [f]
    out = []
    for cell in f.__closure__ or ():
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(held, types.FunctionType):
            out += _unwrapped(held, depth - 1)
    return out


class undone:
    """A trial run of a body (``statements._trial``): what it did to the containers it reaches is
    undone, as its traced ops are."""

    def __init__(self, names, values, functions):
        self.before = _reachable(_roots(names, values, functions))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        for obj, _, items in _changed(self.before):
            _restore(obj, items)
        return False


class watching:
    """Trace the traced ``what`` (``"if"``, ``"for loop"``, ``"while loop"``) at ``line``; where
    that changed the length of a list, dict or set reachable from its state or its functions'
    cells, restore it and refuse (``decided_by``: the traced condition or bounds). (A class, not
    a generator: the refusal's location is the user's frame, below no contextlib frame.)"""

    def __init__(self, what: str, line, names, values, functions, decided_by=()):
        self.what, self.decided_by = what, decided_by
        self.at = where(line)
        self.before = _reachable(_roots(names, values, functions))

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb) -> bool:
        changed = _changed(self.before)
        error = None
        # (a JitcoreError the change caused, a list carried with another length, is replaced)
        if changed and (kind is None or issubclass(kind, JitcoreError)
                        and not getattr(value, "explains_list_change", False)):
            obj, label, items = changed[0]
            had = items if isinstance(items, int) else len(items)
            error = _refusal(self.what, self.at, obj, label or "a container", had)
        for obj, _, items in changed:
            _restore(obj, items)
        if error is not None:
            raise needs_static(error, *self.decided_by) from value
        if kind is not None and issubclass(kind, JitcoreError) \
                and not getattr(value, "static_would_fix", None):
            # (what tracing it refused, a list a helper appends to carried with another length,
            # Python runs when the bounds or condition are static: static on demand tries that)
            needs_static(value, *self.decided_by)
        return False


def _refusal(what, at, obj, label, had) -> UnsupportedError:
    kind = type(obj).__name__
    if what == "if":
        runs = "its branches are traced once, whatever the condition, so the change ran once " \
            "while compiling and would not run when the branch is taken"
        instead = "append by the list's own name in the branch, in the function that made " \
            "the list (for i in range(n): if x[i] > 0: out.append(f(x[i])) compiles as a loop " \
            "that keeps the rows it appends), write into an array made before it (out[n] = v; " \
            "n += 1 with a fixed-size out), or use np.where"
    else:
        runs = "its body is traced once, so the change ran once while compiling, whatever the " \
            "number of iterations"
        instead = "append to a local list by its own name in a for loop over a range (E = " \
            "log['E'] before the loop, then E.append(v): compiled as a loop), or write into an " \
            "array made before the loop (out[i] = v)"
    traced = "is compiled (its bounds are traced, or it has too many steps to unroll)" \
        if what == "for loop" else "has a traced condition"
    error = UnsupportedError(
        f"the {what} at {at} {traced}, and tracing it changed the {kind} {label} "
        f"(from {had} to {len(obj)} items: an append or insert through a helper function, an "
        f"item or an attribute): {runs}. Instead, {instead}")
    error.python_effect = True  # (a static range's loop then runs unrolled: ``_python_for``)
    return error
