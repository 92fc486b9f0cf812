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
- elsewhere, a traced write into such an array makes its traced copy, and every variable
  of the converted function and its bodies that holds it (the array, a view of it, a list,
  tuple or dict of such) is bound to the copy, or the view of it it is (``shared_copy``), as
  NumPy's holders all see a write: ``for p in [W]: p -= g`` writes ``W``. Inside a traced
  loop or branch only variables bound inside it can be (a tracer made there cannot leave it
  but as its state); one bound outside raises ``UnsupportedError``, naming it.

Code other than the writing function's holds the array too: a caller that passed it to a
helper (``fill(a, v)``), an object made while tracing whose method writes its attribute
(``self.counts += h``). So the first traced write makes one traced copy per array, kept for the
trace by the array's identity (``written_copy``, ``Trace.local_copies``), which every later
write through any of its holders goes to; the attributes of objects made while tracing that
hold the array are set to it then, and a caller's names passed to a call statement are read
again after it (``refreshed``, which the conversion puts after the statement). A variable of
the caller left holding the NumPy array then is refused (``refuse_stale``), not read stale.
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np

from jitcore import calltime
from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer, current_trace, fresh, stack_depth, user_location


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
    """Per owner, the ``(frame, name)`` of each variable of the
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
            held = [(k, frame, name) for name, value in frame.f_locals.items()
                    if not name.startswith("__ag") for k in _owners_held(value) if k in out]
            if code.co_name.startswith("__agf_"):
                bodies += held
            else:
                for k, where, name in (*bodies, *held):
                    out[k].add((where, name))
                break
        frame = frame.f_back
    return out


def _owners_held(value) -> set[int]:
    if type(value) is np.ndarray:
        return {id(_owner(value))}
    items = value if isinstance(value, (list, tuple)) else value.values() if isinstance(value, dict) else ()
    return {id(_owner(x)) for x in items if type(x) is np.ndarray}


def _fortran(array: np.ndarray) -> bool:
    """Laid out in Fortran order only: its traced copy keeps that layout, so that a view
    method copies where NumPy's does (``g.ravel()`` of ``np.zeros((3, 4), order="F")``)."""
    return array.ndim > 1 and array.flags.f_contiguous and not array.flags.c_contiguous


def shared_as_traced(values, names, functions, rebinds, owners=(), registered=None) -> tuple:
    """``values`` (a traced statement's variables ``names``) with the NumPy arrays that share
    memory with another of them, or with a variable that ``functions`` (its bodies) read, as
    one traced array and traced views of it; those variables' cells are given the same. A
    NumPy array held elsewhere as well that the loop would otherwise carry as a copy is made
    traced first, every variable holding it given that (``_held_made_traced``), and so are
    ``owners`` (a body wrote them while variables bound outside it held them: ``HeldOutside``).
    ``registered`` (a set) gets the ids of the arrays whose copies were made here for the
    statement's own variables alone: no other variable was given them, so a statement that
    fails to trace, and runs in Python instead, drops them (``drop_copies``)."""
    trace = current_trace()
    cells = {}  # name -> cell, of the variables the bodies read
    for fn in functions:
        if fn is not None and fn.__closure__:
            cells.update(zip(fn.__code__.co_freevars, fn.__closure__))
    values = _held_made_traced(values, names, cells, rebinds, owners, trace)
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
    for holders in _frames_holding(written).values():  # (arrays _held_made_traced cannot make traced)
        unreached = sorted({f"'{name}'" for _, name in holders if name not in reached})
        if unreached:
            raise UnsupportedError(
                f"a NumPy array made inside the jitted function is written in a loop or branch "
                f"whose bounds or condition are traced (at {user_location()}), and "
                f"{', '.join(unreached)} holds it too (the array, a view of it or a list of it) "
                "without being used in that loop or branch; jitcore writes a traced copy there, "
                "which would not reach it. Make the array with jitcore.numpy (jnp.zeros(...)), "
                "whose views and names follow its writes, or read it through the name written")
    out = list(values)
    for owner_id, group in found.items():
        if len(group) < 2 or owner_id not in written:
            continue
        owner = _owner(group[0][1])
        keys = {id(a): (() if a is owner else _view_key(a, owner)) for _, a in group}
        if owner.dtype.kind not in "biufc" or any(k is None for k in keys.values()):
            continue
        root = fresh(prims.as_tracer(trace, owner, owner.dtype))
        root.fortran = _fortran(owner)
        made: dict[int, Tracer] = {}
        for where, a in group:
            if id(a) not in made:
                key = keys[id(a)]
                made[id(a)] = root if a is owner else root[key[0]].transpose(key[1])
            if isinstance(where, int):
                out[where] = made[id(a)]
            else:
                where.cell_contents = made[id(a)]
    for i, v in enumerate(out):  # the rest it writes: their registered copies, so that a
        # caller reading the array after a helper's loop reads what the loop wrote
        if type(v) is np.ndarray and names[i] not in rebinds and v.dtype.kind in "biufc" \
                and (v.base is None or id(_owner(v)) in trace.local_copies):
            if registered is not None and id(_owner(v)) not in trace.local_copies:
                registered.add(id(_owner(v)))
            out[i] = written_copy(v, trace)
    return tuple(out)


def drop_copies(registered, trace) -> None:
    """Forget the copies ``shared_as_traced`` made for a statement that then failed to trace:
    it runs in Python on the NumPy arrays themselves (a long loop whose body needs its index as
    a Python int), and a copy kept would make the caller's variable holding the array, after
    the helper returned it, look stale (``refuse_stale``: a gridworld's P built in a helper)."""
    for key in registered:
        trace.local_copies.pop(key, None)


def _held_made_traced(values, names, cells, rebinds, owners, trace) -> tuple:
    """``values`` with these NumPy arrays made traced (``shared_copy``: every variable holding
    one holds that): ``owners``; each that a list, tuple or dict among the statement's
    variables and its bodies' holds while another variable holds it too (the loop would
    carry the container's copy, which that variable would miss); each the statement writes
    (a variable of it not in ``rebinds``) that a variable it does not use holds too."""
    def cell_value(cell):
        try:
            return cell.cell_contents
        except ValueError:  # (empty: not assigned yet)
            return None

    seen = [*values, *(cell_value(c) for c in cells.values())]
    made: dict[int, np.ndarray] = {id(o): o for o in owners}
    contained = {id(_owner(x)): _owner(x) for v in seen if isinstance(v, (list, tuple, dict))
                 for x in (v.values() if isinstance(v, dict) else v)
                 if type(x) is np.ndarray and x.dtype.kind in "biufc"}
    written = {id(_owner(v)): _owner(v) for v, name in zip(values, names)
               if type(v) is np.ndarray and name not in rebinds and v.dtype.kind in "biufc"}
    if contained or written:
        reached = set(names) | set(cells)
        for k, holders in _frames_holding({*contained, *written}).items():
            held = {name for _, name in holders}
            if (k in contained and len(held) > 1) or (k in written and held - reached):
                made[k] = contained.get(k, written.get(k))
    made = [o for k, o in made.items() if k not in trace.local_copies]
    for owner in made:
        shared_copy(owner, trace)
    return tuple(resolved(v, trace) for v in values) if made else tuple(values)


_ITEM_WRITES = frozenset({"aug_setitem", "nested_aug_setitem", "nested_setitem", "aug_assign", "fill",
                          "out_call", "at_call", "setitem"})


def _writes_items(code) -> bool:
    """Whether converted code (or a body defined in it) writes an array in place (``params[i]
    -= g``, ``d["w"][0] = v``, ``q -= g`` with ``q = params[0]``)."""
    return bool(_ITEM_WRITES & set(code.co_names)) or any(
        _writes_items(c) for c in code.co_consts if hasattr(c, "co_names"))


def refuse_carried_items(values, names, functions) -> None:
    """Raise if a list, tuple or dict the statement carries (assigns) holds an array that
    another variable of the function holds too, and its bodies write a container's item in
    place: a traced loop carries the container's items by value, so the other variable (``W``
    of ``params = [W]``) would miss the writes (a wrong answer before session 48)."""
    if not any(fn is not None and _writes_items(fn.__code__) for fn in functions):
        return
    made_each_step = {n for fn in functions if fn is not None for n in getattr(fn, "per_step_lists", ())}
    for v, name in zip(values, names):
        if not isinstance(v, (list, tuple, dict)) or name in made_each_step:
            continue
        items = [x for x in (v.values() if isinstance(v, dict) else v)
                 if type(x) is np.ndarray or isinstance(x, Tracer) and not x.scalar]
        if not items:
            continue
        others = sorted({other for other in _variables_holding(items) if other != name})
        if others:
            raise UnsupportedError(
                f"a loop or branch whose bounds or condition are traced (at {user_location()}) "
                f"writes in place into an item of '{name}', which it assigns, while "
                f"{', '.join(repr(o) for o in others)} {'holds' if len(others) == 1 else 'hold'} "
                "that array too: jitcore carries a "
                "list's or dict's items through such a loop by value, so that variable would miss "
                "the writes. Write the array through one of them only (W -= g in the loop, or "
                "only params[i] -= g and read params[i] after it), or, for a list the loop does "
                "not rebind, write its arrays through a loop variable (for p in params: p -= g)")


def _variables_holding(items) -> set[str]:
    """The variables of the innermost converted function (and its bodies) that hold one of
    ``items`` itself (not in a container)."""
    ids = {id(x) for x in items}
    out: set[str] = set()
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if "__ag__" in code.co_freevars:
            out |= {n for n, v in frame.f_locals.items() if not n.startswith("__ag") and id(v) in ids}
            if not code.co_name.startswith("__agf_"):
                break
        frame = frame.f_back
    return out


def shared_copy(base: np.ndarray, trace) -> Tracer:
    """The traced copy a traced write into ``base`` goes to (``written_copy``), which every
    variable of the converted function (and of its bodies) holding ``base``'s memory (the
    array, a view of it, a list, tuple or dict of such) holds the copy instead, as every holder
    of a NumPy array sees its writes. A variable bound outside the loop body or branch being
    traced is refused: the copy, made inside it, cannot outlive it."""
    owner_id = id(_owner(base))
    holders = _frames_holding({owner_id})[owner_id]
    outside = sorted({f"'{name}'" for frame, name in holders if not _bound_here(frame, name, trace)})
    if outside:
        raise HeldOutside(_owner(base),
            f"a NumPy array made inside the jitted function is written with traced values (at "
            f"{user_location()}) inside a loop or branch whose bounds or condition are traced, "
            f"while {', '.join(outside)}, bound outside it, holds it too (the array, a view of it "
            "or a list of it); jitcore writes a traced copy, which cannot leave the loop or branch "
            "through a variable it does not assign. Use that variable in the loop or branch, "
            "make the array with jitcore.numpy (jnp.zeros(...)), or write and read it through "
            "one name")
    copy = written_copy(base, trace)
    for frame, name in holders:
        value = frame.f_locals[name]
        new = resolved(value, trace)  # (a list's or dict's items are replaced in place)
        if new is not value:
            _set_local(frame, name, new)
    return copy


def held_copy(base: np.ndarray):
    """``shared_copy(base)`` when a variable of the converted function writing it (or of its
    bodies) holds ``base``'s memory (a closure's array written by ``np.add.at`` in a helper),
    else ``base`` (no converted code would see a copy: ``autograph=False``, a temporary)."""
    owner_id = id(_owner(base))
    if not _frames_holding({owner_id})[owner_id]:
        return base
    return shared_copy(base, current_trace())


class HeldOutside(UnsupportedError):
    """A traced write inside a loop or branch into a NumPy array (``owner``) that a variable
    bound outside it holds: the statement around it is traced again with the array made a
    traced one first (``shared_as_traced``'s ``owners``), which its bodies then write in place
    (``aliasing`` carries it); raised on where no statement can. ``also``: other arrays to
    make traced with it (found written at once: one retry, as a retry that meets a traced
    copy written by the attempt before would see that write twice)."""

    def __init__(self, owner: np.ndarray, message: str, also=()):
        super().__init__(message)
        self.owner, self.also = owner, tuple(also)


def _bound_here(frame, name: str, trace) -> bool:
    """Whether ``frame``'s variable ``name`` was bound inside the region being traced into
    (anywhere, outside every region): only such a variable may hold a tracer made there."""
    if not trace.region_frames:
        return True
    return (name not in frame.f_code.co_freevars
            and stack_depth(frame) > trace.region_frames[-1])


def _set_local(frame, name: str, value) -> None:
    """Bind ``frame``'s variable ``name`` (a local or a cell) to ``value``."""
    if sys.version_info >= (3, 13):  # PEP 667: f_locals writes through
        frame.f_locals[name] = value
        return
    frame.f_locals[name] = value
    ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))


def written_copy(base: np.ndarray, trace) -> Tracer:
    """The traced array a traced write into ``base`` (a NumPy array made while tracing, or a
    view of one) goes to: the traced copy of the array owning the memory, made at its first
    such write and kept for the trace, or the view of it that ``base`` is. The attributes of
    objects made while tracing that hold the array are set to the copy then."""
    owner = _owner(base)
    entry = trace.local_copies.get(id(owner))
    if entry is None and base is not owner and (
            owner.dtype.kind not in "biufc" or _view_key(base, owner) is None):
        del owner  # (its references are counted there)
        return _unkeyed_view_copy(base, trace)
    if entry is None:
        copy = fresh(prims.as_tracer(trace, owner, owner.dtype))
        # (NumPy's layout, so that a view method copies where NumPy's does: ravel of order="F")
        copy.fortran = _fortran(owner)
        entry = trace.local_copies[id(owner)] = (owner, copy)
        r = calltime.recorder()
        for obj in list(r._made.values()) if r is not None else ():
            for name, value in list(vars(obj).items()):
                if type(value) is np.ndarray and _owner(value) is owner:
                    vars(obj)[name] = _traced_view(value, *entry)
                elif isinstance(value, (list, dict)):
                    _resolve_items(value, trace)
    return _traced_view(base, *entry)


def _unkeyed_view_copy(base: np.ndarray, trace) -> Tracer:
    """A view that is not basic slices of its array (``np.arange(6.0).reshape(2, 3)``): its
    own traced copy when no other name holds what it views, else refused."""
    viewed = base.base
    # References to it: base.base, ``viewed``, getrefcount's argument, and any other holder
    if isinstance(viewed, np.ndarray) and sys.getrefcount(viewed) > 3:
        raise UnsupportedError(
            f"a NumPy array made inside the jitted function is written with traced values "
            f"through a view of it (at {user_location()}); the write cannot reach the array the "
            "view shows: write through that array itself (img[i] = v rather than row = img[i]; "
            "row[:] = v), or make it with jitcore.numpy (jnp.zeros)")
    return fresh(prims.as_tracer(trace, base, base.dtype))


def _traced_view(a: np.ndarray, owner: np.ndarray, root: Tracer):
    if a is owner:
        return root
    key = _view_key(a, owner)
    if key is None or owner.dtype.kind not in "biufc":
        raise UnsupportedError(
            f"a NumPy array made inside the jitted function is written with traced values (at "
            f"{user_location()}), and a view of it of shape {a.shape} that jitcore cannot rebuild "
            "from the array (another dtype, a length-1 or broadcast axis) is used; it would not "
            "see the write. Make the array with jitcore.numpy (jnp.zeros(...)), or write and read "
            "it through the array itself")
    return root[key[0]].transpose(key[1])


def resolved(value, trace=None):
    """``value`` with each NumPy array that a traced write made a traced copy of (and each
    view of one) as that copy: itself, or in a list or dict, whose items are replaced in place
    (the list holds the array NumPy would have written)."""
    trace = trace or current_trace()
    if trace is None or not trace.local_copies:
        return value
    if type(value) is np.ndarray:
        entry = trace.local_copies.get(id(_owner(value)))
        return value if entry is None else _traced_view(value, *entry)
    if isinstance(value, (list, dict)):
        _resolve_items(value, trace)
    elif type(value) is tuple:
        return tuple(resolved(v, trace) for v in value)
    return value


def _resolve_items(container, trace) -> None:
    keys = range(len(container)) if isinstance(container, list) else list(container)
    for k in keys:
        v = container[k]
        if type(v) is np.ndarray or isinstance(v, (list, dict)):
            new = resolved(v, trace)
            if new is not v:
                container[k] = new


def refuse_held(base: np.ndarray) -> None:
    """Raise if a variable of the converted function writing ``base`` through an object's
    attribute (``h.counts[k] = v``) holds its memory as well: it would keep the NumPy array."""
    owner_id = id(_owner(base))
    names = sorted({f"'{n}'" for _, n in _frames_holding({owner_id})[owner_id]})
    if names:
        raise UnsupportedError(
            f"a NumPy array that an object made inside the jitted function holds is written with "
            f"traced values through its attribute (at {user_location()}) while {', '.join(names)} "
            "holds it too (the array, a view of it or a list of it); jitcore writes a traced copy, "
            "which the attribute then holds and that variable would miss. Read the array through "
            "the attribute after the write, or make it with jitcore.numpy (jnp.zeros(...))")


def refuse_stale(kept=()) -> None:
    """After a call statement of a converted function (``kept``: the names it read again):
    its lists and dicts holding an array the call wrote traced values into hold its traced
    copy instead; raise if another of its variables still holds that array (or a view, a
    tuple of it) as NumPy: it would miss the write."""
    trace = current_trace()
    if trace is None or not trace.local_copies:
        return
    frame = sys._getframe(1)
    held = {name: value for name, value in frame.f_locals.items()
            if not name.startswith("__ag") and name not in kept}
    for value in held.values():
        if isinstance(value, (list, dict)):  # it holds the array NumPy wrote: holds the copy now
            _resolve_items(value, trace)
    stale = sorted(f"'{name}'" for name, value in held.items()
                   if any(k in trace.local_copies for k in _owners_held(value)))
    if stale:
        raise UnsupportedError(
            f"a call (at {user_location()}) wrote traced values into a NumPy array made inside "
            f"the jitted function, which {', '.join(stale)} also holds (the array, a view of it "
            "or a list of it) and is not read again after that call: only a variable passed to "
            "a call by itself is (fill(a, v), s = fill_sum(a, v)), not one passed inside an "
            "expression (a[1:], [a]) or not passed at all; jitcore writes a traced copy, which "
            "would not reach it. Pass the variable itself to the call, return the array from "
            "the function (a = fill(a, v)), or make it with jitcore.numpy (jnp.zeros(...)), "
            "whose names follow its writes")
