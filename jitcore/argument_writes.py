"""Changes a jitted function makes to its list and dict arguments, made to the caller's.

NumPy code changes its containers in place: ``state["cash"] -= cost``, ``history.append(v)``,
``log[k] = v``. A traced function sees copies of its argument containers, rebuilt around the
tracers; where the trace leaves them different (an item rebound, added or removed), the
function returns their final state after its own result, as an ``ArgumentWrites``, and the
call writes it into the caller's objects (``apply``). In-place writes to arrays are not
container changes: the arrays are written back as any argument written in place is.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jitcore import pytree


class ArgumentWrites(NamedTuple):
    """A traced function's result, followed by its dynamic arguments as it left them."""

    result: object
    arguments: object


def traced_result(result, arguments, tree: pytree.TreeDef, leaves: list):
    """``result``, or it with ``arguments`` (rebuilt from ``tree`` around ``leaves`` before the
    call) when the call changed a container among them."""
    after, after_tree = pytree.flatten(arguments, objects=True)
    if after_tree == tree and all(a is b for a, b in zip(after, leaves)):
        return result
    return ArgumentWrites(result, arguments)


def apply(out: ArgumentWrites, arguments):
    """The caller's result of a call that returned ``out``: the changed containers' final state
    is written into ``arguments`` (the caller's dynamic arguments, as traced)."""
    pytree.update_in_place(arguments, out.arguments)
    return out.result


def note_unassigned(error: BaseException, executable) -> None:
    """``error`` raised by the compiled code of a call that assigns to its arguments' objects or
    containers after it returns (its result an ``ArgumentWrites``): a note that they hold what
    they held before the call, where Python would have made the assignments the function ran
    before the raise (session 50: ``s.grid.u = ...`` in a loop, then ``s.grid.u[i]`` out of
    bounds)."""
    tree = getattr(executable, "out_tree", None)
    if tree is not None and tree.kind == "namedtuple" and tree.keys[0] is ArgumentWrites:
        error.add_note("jitcore: this jitted call assigns what the function sets on its arguments' "
                       "objects, lists and dicts (attributes, items) after its compiled code "
                       "returns; that code raised, so they hold what they held before the call, "
                       "where Python would have kept the assignments run before the raise (arrays "
                       "written in place are written as far as the code ran)")


def _members(value):
    from jitcore.method_calls import _unwrapped  # (a method's attribute, as its twin passes it)
    if _unwrapped(value) is not value:
        return [("", _unwrapped(value))]
    if type(value) in (list, tuple):
        return [(f"[{i}]", v) for i, v in enumerate(value)]
    if type(value) is dict:
        return [(f"[{k!r}]", v) for k, v in value.items()]
    if hasattr(value, "__dict__") and not isinstance(value, type) and type(value).__module__ != "builtins" \
            and not type(value).__module__.startswith(("numpy", "jitcore")):
        return [(f".{k}", v) for k, v in vars(value).items()]
    return []


def static_state(value, depth: int = 3) -> list:
    """What a static argument holds that a trace could change, to compare and put back: its
    arrays (up to a million elements) by a copy, its lists, dicts and objects' attributes by a
    shallow copy: ``(path, holder, copy)``."""
    found, members = [], _members(value)
    if type(value) in (list, dict):
        found.append(("", value, value.copy()))
    elif members and hasattr(value, "__dict__"):
        found.append(("", vars(value), dict(vars(value))))
    for path, v in members:
        if type(v) is np.ndarray and v.size <= 1 << 20:
            found.append((path, v, v.copy()))
        elif depth > 1:
            found += [(path + p, a, c) for p, a, c in static_state(v, depth - 1)]
    return found


def restore(state: list) -> None:
    """Put back what ``static_state`` copied (a trace refused for changing it)."""
    for _, holder, copy in reversed(state):
        if type(holder) is np.ndarray:
            holder[...] = copy
        elif type(holder) is list:
            holder[:] = copy
        else:
            holder.clear()
            holder.update(copy)


def changed_static(name: str, value, before: list, depth: int = 3) -> str | None:
    """Where a trace left a static argument changed: a traced value stored in it, or one of
    its arrays written; None where it is as it was."""
    from jitcore.tracer import Tracer
    for path, v in _members(value):
        if isinstance(v, Tracer):
            return f"a traced value is stored in {name}{path}"
        if depth > 1:
            inner = changed_static(name + path, v, [], depth - 1)
            if inner is not None:
                return inner
    for path, array, copy in before:
        if type(array) is np.ndarray and not np.array_equal(array, copy, equal_nan=True):
            return f"{name}{path} is written while the function compiles"
        if array is value and type(value) is list and (
                len(value) != len(copy) or any(a is not b for a, b in zip(value, copy))):
            return f"the list {name} is changed while the function compiles ({copy} became {value})"
    return None
