"""NumPy arrays written in place, while a traced loop or branch is traced, through a path the
conversion does not see: a nested function's or lambda's closure (``np.add.at(log, k, 1)``,
``log.fill(v)``, ``np.add(log, 1, out=log)``), a dict's item (``d["n"][0] += 1``), an object's
attribute.

Such a write with values known while tracing runs on the NumPy array once, at compile time,
whatever the condition or the number of steps (log[1] was 2 where NumPy's loop gave 8).
``watched`` copies the numeric NumPy arrays the statement's body functions reach (their
cells, the functions those hold, items and attributes) before the body is traced; where one
changed, it puts the values back and raises ``local_arrays.HeldOutside``, so that the
statement is traced again with that array made a traced one first, which the write then
updates in place. An array of the caller's (a global's, a call-time input) cannot be made so:
that is refused, as the write would not reach it.
"""

from __future__ import annotations

import types

import numpy as np

from jitcore import calltime
from jitcore.autograph import effects
from jitcore.autograph.local_arrays import HeldOutside, _owner
from jitcore.errors import JitcoreError, UnsupportedError
from jitcore.tracer import user_location

_MOST = 5000  # objects looked at, as effects' bound
_BYTES = 1 << 26  # an array larger than this is not copied (a compile-time bound)


def _arrays_reached(functions) -> dict:
    """{id(owner): (owner, a copy of it, label)} of the numeric NumPy arrays that
    ``functions`` reach, by the memory owning each."""
    found, seen = {}, set()
    stack = [("", f, 0) for f in functions if f is not None]
    while stack and len(seen) < _MOST:
        label, obj, depth = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if type(obj) is np.ndarray:
            owner = _owner(obj)
            if (
                id(owner) not in found
                and not _outside(owner)
                and owner.dtype.kind in "biufc"
                and owner.nbytes <= _BYTES
                and owner.flags.writeable
            ):
                found[id(owner)] = (owner, owner.copy(), label or "an array")
            continue
        if effects._skipped(obj) or depth >= effects._DEPTH:
            continue
        for part, child in _children(obj):
            inner = part if isinstance(obj, types.FunctionType) else label if part == "" else f"{label}{part}"
            stack.append((inner, child, depth + 1))
    return found


def _children(obj) -> list:
    """What ``obj`` holds (``effects._children``), but of a function its cells only: a global
    holds no array made while tracing, and copying a module's tables at each statement would
    cost compile time for nothing (the caller's arrays written are its call-time inputs)."""
    if isinstance(obj, types.FunctionType):
        out = []
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or ()):
            try:
                out.append((name, cell.cell_contents))
            except ValueError:  # an empty cell: a name not yet bound
                pass
        return out
    return effects._children(obj)


def _outside(owner: np.ndarray) -> bool:
    """Whether ``owner`` is the caller's (a global's or closed-over array of outside code)."""
    r = calltime.recorder()
    known = None if r is None else r._known.get(id(owner))
    return known is not None and known[0] is owner


class watched:
    """Trace a traced statement's body (``statements._with_local_arrays``), raising
    ``HeldOutside`` for a NumPy array made while tracing that the trace wrote in place through
    its functions (after restoring its values); refusing for one of the caller's. Not
    ``refuse``: a trial run of a body (``statements._trial``), whose writes are only undone."""

    def __init__(self, functions, refuse: bool = True):
        self.before, self.refuse = _arrays_reached(functions), refuse  # (not: a trial, undone)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb) -> bool:
        changed = [
            (owner, saved, label)
            for owner, saved, label in self.before.values()
            if not np.array_equal(owner, saved, equal_nan=owner.dtype.kind in "fc")
        ]
        for owner, saved, _ in changed:
            np.copyto(owner, saved)
        if not changed or not self.refuse or (kind is not None and not issubclass(kind, JitcoreError)):
            return False
        owner, _, label = changed[0]
        if _outside(owner):
            raise UnsupportedError(
                f"a loop or branch whose bounds or condition are traced (near {user_location()}) "
                f"writes in place into the array {label}, which the code outside the jitted "
                "function holds, through a call jitcore does not follow (np.add.at, out=, .fill, "
                "an item of a container): that write would run once, while compiling. Write it by "
                "subscript (W[k] += v), which jitcore follows, or pass the array and return it"
            )
        raise HeldOutside(
            owner,
            (
                f"a NumPy array made inside the jitted function ({label}) is written in place inside "
                f"a loop or branch whose bounds or condition are traced (near {user_location()}), "
                "through a function, item or attribute, and jitcore could not make it a traced array "
                "before that loop or branch. Make it with jitcore.numpy (jnp.zeros(...)), or pass it "
                "to the helper and return it (z = fill(z, v))"
            ),
            also=[o for o, _, _ in changed[1:] if not _outside(o)],
        ) from value
