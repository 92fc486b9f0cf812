"""NumPy arrays a jitted function makes itself, shared by several of its variables, meeting
traced writes.

An array the function makes with NumPy (``z = np.zeros(4)``) stays a NumPy array while
tracing, a constant of the code, until a traced value is written into it; that variable then
holds a traced copy. Another variable of the same memory (``w = z``, a view ``zv = z[1:3]``,
a list holding ``z``) would keep the NumPy array and miss the write. So:

- at a traced loop or branch, NumPy arrays among its variables and the variables its bodies
  read (their closure cells) that share memory become one traced array and traced views of
  it (``shared_as_traced``), which ``aliasing`` then carries as one array. A view is
  rebuilt as basic slices and a transpose of the array owning the memory; one that is not
  (another dtype, a length-1 or broadcast axis) is left as it was;
- elsewhere, a traced write into such an array while another variable of the converted
  function holds it, a view of it or a list of it raises ``UnsupportedError``
  (``refuse_shared``), naming that variable, rather than leave it stale.
"""

from __future__ import annotations

import sys

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer, current_trace, fresh, user_location


def _owner(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _view_key(view: np.ndarray, owner: np.ndarray):
    """``(key, axes)`` with ``owner[key].transpose(axes)`` the memory ``view`` shows, or None."""
    size = owner.itemsize
    if (not owner.flags.c_contiguous or view.dtype != owner.dtype or 0 in owner.shape
            or any(n <= 1 for n in view.shape) or any(s % size for s in view.strides)):
        return None
    offset, rest = divmod(_address(view) - _address(owner), size)
    if rest or not 0 <= offset < owner.size:
        return None
    steps = [int(np.prod(owner.shape[j + 1:], dtype=np.int64)) for j in range(owner.ndim)]
    starts = []
    for step in steps:
        start, offset = divmod(offset, step)
        starts.append(start)
    strides = [s // size for s in view.strides]
    order = sorted(range(view.ndim), key=lambda k: -abs(strides[k]))
    key, j = [], 0
    for k in order:
        while j < owner.ndim:
            step, rest = divmod(strides[k], steps[j])
            if not rest and step and 0 <= starts[j] + (view.shape[k] - 1) * step < owner.shape[j]:
                break
            key.append(starts[j])
            j += 1
        else:
            return None
        stop = starts[j] + view.shape[k] * step
        key.append(slice(starts[j], None if stop < 0 else stop, step))
        j += 1
    key = tuple(key + starts[j:])
    axes = tuple(order.index(k) for k in range(view.ndim))
    rebuilt = owner[key].transpose(axes)
    if (rebuilt.shape, rebuilt.strides, _address(rebuilt)) != (view.shape, view.strides, _address(view)):
        return None
    return key, axes


def _frames_holding(owner_ids: set[int]) -> dict[int, set]:
    """Per owner, the ``(function frame, name)`` of each variable of the
    innermost converted function running on this thread (and of its bodies, by its frame)
    that holds that owner's memory: the array, a view of it, or a list or dict of such. (A
    caller's variable is not looked at: a helper given an array writes it and returns it,
    ``z = fill(z, v)``, as often as it writes one its caller reads again.)"""
    out: dict[int, set] = {k: set() for k in owner_ids}
    bodies: list = []  # found in bodies, whose function is the next converted frame out
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if "__ag__" in code.co_freevars:  # a converted function or one of its bodies
            held = [(k, name) for name, value in frame.f_locals.items()
                    if not name.startswith("__ag") for k in _owners_held(value) if k in out]
            if code.co_name.startswith("__agf_"):
                bodies += held
            else:
                for k, name in (*bodies, *held):
                    out[k].add((id(frame), name))
                break
        frame = frame.f_back
    return out


def _owners_held(value) -> set[int]:
    if type(value) is np.ndarray:
        return {id(_owner(value))}
    items = value if isinstance(value, (list, tuple)) else value.values() if isinstance(value, dict) else ()
    return {id(_owner(x)) for x in items if type(x) is np.ndarray}


def shared_as_traced(values, names, functions, rebinds) -> tuple:
    """``values`` (a traced statement's variables ``names``) with the NumPy arrays that share
    memory with another of them, or with a variable that ``functions`` (its bodies) read, as
    one traced array and traced views of it; those variables' cells are given the same. A
    NumPy array the statement writes in place (a variable not in ``rebinds``) that a variable
    it cannot reach holds too (the function's, read after it) is refused."""
    cells = {}  # name -> cell, of the variables the bodies read
    for fn in functions:
        if fn is not None and fn.__closure__:
            cells.update(zip(fn.__code__.co_freevars, fn.__closure__))
    found: dict[int, list] = {}  # id(owner) -> [(where, array)]
    for i, v in enumerate(values):
        if type(v) is np.ndarray:
            found.setdefault(id(_owner(v)), []).append((i, v))
    written = {id(_owner(v)) for v, name in zip(values, names)
               if type(v) is np.ndarray and name not in rebinds}
    if not written:
        return tuple(values)
    for cell in cells.values():
        try:
            v = cell.cell_contents
        except ValueError:  # (empty: not assigned yet)
            continue
        if type(v) is np.ndarray and id(_owner(v)) in found:
            found[id(_owner(v))].append((cell, v))
    reached = set(names) | set(cells)
    for holders in _frames_holding(written).values():
        unreached = sorted({f"'{name}'" for _, name in holders if name not in reached})
        if unreached:
            raise UnsupportedError(
                f"a NumPy array made inside the jitted function is written in a loop or branch "
                f"whose bounds or condition are traced (at {user_location()}), and "
                f"{', '.join(unreached)} holds it too (the array, a view of it or a list of it) "
                "without being used in that loop or branch; jitcore writes a traced copy there, "
                "which would not reach it. Make the array with jitcore.numpy (jnp.zeros(...)), "
                "whose views and names follow its writes, or read it through the name written")
    trace = current_trace()
    out = list(values)
    for owner_id, group in found.items():
        if len(group) < 2 or owner_id not in written:
            continue
        owner = _owner(group[0][1])
        keys = {id(a): (() if a is owner else _view_key(a, owner)) for _, a in group}
        if owner.dtype.kind not in "biufc" or any(k is None for k in keys.values()):
            continue
        root = fresh(prims.as_tracer(trace, owner, owner.dtype))
        made: dict[int, Tracer] = {}
        for where, a in group:
            if id(a) not in made:
                key = keys[id(a)]
                made[id(a)] = root if a is owner else root[key[0]].transpose(key[1])
            if isinstance(where, int):
                out[where] = made[id(a)]
            else:
                where.cell_contents = made[id(a)]
    return tuple(out)


def refuse_shared(base: np.ndarray, written_by_name: bool = True) -> None:
    """Raise if a variable of the converted function, other than the one written, holds
    ``base``'s memory: the traced copy ``base`` becomes would not reach it. (Written through an
    object's attribute, ``p.W -= g``, not by name: any variable holding it is another.)"""
    owner_id = id(_owner(base))
    holders = _frames_holding({owner_id})[owner_id]
    if len(holders) > int(written_by_name):
        names = ", ".join(sorted({f"'{n}'" for _, n in holders}))
        raise UnsupportedError(
            f"a NumPy array made inside the jitted function is written with traced values (at "
            f"{user_location()}) while more than one variable holds it ({names}: the array, a "
            "view of it or a list of it); the write would reach only the one written, as "
            "jitcore writes a traced copy of a NumPy array. Make the array with jitcore.numpy "
            "(jnp.zeros(...)), whose views and names follow its writes, or write and read it "
            "through one name")
