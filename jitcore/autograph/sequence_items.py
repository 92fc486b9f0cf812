"""A Python list or tuple read at a traced position (``lams[int(np.argmin(scores))]``).

Python would ask the position for its value (``__index__``), which a traced int cannot give.
Where every item is a number of one type (Python ints, floats or bools, traced or not; NumPy
scalars of one dtype) or an array of one shape and dtype, the items are one array and the read
is a gather from it, which gives what Python gives: a Python number (a weak scalar) for Python
numbers, a NumPy scalar for NumPy scalars, the array for arrays (a view that refuses writes,
since Python's item is the list's own array, not a copy). A position out of range raises
Python's ``IndexError('list index out of range')`` from the call. Items of mixed types, or of
anything else, are refused with ``np.asarray(items)[i]`` as the advice: a gather would change
their types (``[1, 2.5]`` as float64). A static loop's index (``ws[i]`` in ``for i in
range(n)``) is left to Python: that loop unrolls, reading each item as it is, rather than
stacking the items in every step of a compiled loop."""

from __future__ import annotations

import numpy as np

from jitcore.autograph import aliasing
from jitcore.errors import UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.numpy.everyday import raise_at_first
from jitcore.primitives import as_tracer
from jitcore.tracer import Tracer, fresh, make_view, needs_static, user_location

_PYTHON_NUMBERS = (bool, int, float)


def _kind(v):
    """What the item is, for telling items of one kind: ("python", type), ("numpy", dtype),
    ("array", shape, dtype), or None for anything else."""
    if isinstance(v, Tracer):
        if v.ndim == 0 and v.weak:
            return ("python", {"b": bool, "i": int, "u": int, "f": float}.get(v.dtype.kind))
        if v.ndim == 0 and v.scalar:
            return ("numpy", v.dtype)
        return ("array", v.shape, v.dtype)
    if type(v) in _PYTHON_NUMBERS:
        return ("python", type(v))
    if isinstance(v, np.generic) and v.dtype.kind in "biuf":
        return ("numpy", v.dtype)
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return ("array", v.shape, v.dtype)
    return None


def _kind_names(kinds) -> str:
    """The kinds of a list's items in words: "Python float and numpy.float64"."""
    def name(k):
        if k[0] == "python":
            return f"Python {k[1].__name__}" if k[1] else "Python number"
        return f"numpy.{k[1]}" if k[0] == "numpy" else f"{k[2]} array of shape {k[1]}"
    return " and ".join(sorted(name(k) for k in kinds))


def _held_as(kind) -> np.dtype:
    """The dtype the items of one ``_kind`` are stacked or selected in (a Python int: int64)."""
    if kind[0] == "python":
        return np.dtype(np.int64) if kind[1] is int else np.dtype(kind[1])
    return kind[1] if kind[0] == "numpy" else kind[2]


def _written(base, value):
    raise UnsupportedError(
        f"an array chosen from a list at a traced position is written (at {user_location()}): "
        "the written array would be one of the list's, which one known only from the data. "
        "Stack the arrays into one (a = np.stack(arrays)) and write a[i]")


def item_at(base: list | tuple, key: Tracer):
    """``base[key]`` for a traced integer ``key`` (see the module's docstring)."""
    if key.index_form is not None:
        # a static loop's position (ws[i]): Python's read asks for it, and the loop unrolls
        # (the items read one by one, no stack of them in every step), as before
        return base[key]
    kinds = {_kind(v) for v in base}
    if not base or len(kinds) != 1 or None in kinds or next(iter(kinds)) == ("python", None):
        names = sorted({type(v).__name__ for v in base if not isinstance(v, Tracer)})
        mixed = len(kinds) > 1 and None not in kinds
        what = ("empty" if not base else f"of mixed types ({_kind_names(kinds)})" if mixed
                else f"of {', '.join(names) or 'these'} items")
        instead = ("return the position (an int) and index the items outside the jitted function"
                   if any(isinstance(v, (str, bytes)) for v in base)
                   else "make it an array and index that: np.asarray(items)[i]")
        if mixed and all(k[0] != "array" for k in kinds):  # 0.0 and a NumPy float64 stored in it
            instead = ("store the items as one type (float(v), int(v) as each is stored), or "
                       + instead)
        raise needs_static(UnsupportedError(
            f"a {type(base).__name__} {what} read at a traced position (at {user_location()}): "
            "Python asks the position for its value, which is known only when the function "
            f"runs. Instead, {instead}"), key)
    n, kind = len(base), next(iter(kinds))
    raise_at_first((key < -n) | (key >= n), key,
                   kernel.TUPLE_INDEX if isinstance(base, tuple) else kernel.LIST_INDEX)
    dtype = _held_as(kind)
    items = np.stack([as_tracer(key.owner_trace, v, dtype) for v in base])
    index = np.where(key < 0, key + n, key)  # Python's negative positions, after the check
    if kind[0] == "array":
        return make_view(items, lambda b: b[index], _written)
    value = items[index]
    return fresh(value, True, kind[0] == "python")


_LONGEST_WRITTEN = 64  # a write is one select per item: longer lists are arrays' work


def _unwritable(base: list, kinds: set, kind, value) -> str:
    """Why ``base[key] = value`` at a traced ``key`` is refused, and what to write instead."""
    instead = "Keep the values in an array (a = np.array(items), or np.zeros(n); then a[k] = v)"
    if kind is not None and kind[0] != "array" and _kind(value) not in (kind, None) \
            and len(base) <= _LONGEST_WRITTEN:
        (mine,), (other,) = _kind_names({kind}).split(" and "), _kind_names({_kind(value)}).split(" and ")
        convert = (f"{kind[1].__name__}(v)" if kind[0] == "python" and kind[1] else
                   f"np.{kind[1]}(v)" if kind[0] == "numpy" else None)
        return (f"a list of {mine} items is given a {other} at a traced position (at "
                f"{user_location()}): that one item would change type, and which one is known only "
                f"when the function runs. {instead}"
                + (f", or write the items' own type (items[k] = {convert})" if convert else ""))
    what = (f"longer than {_LONGEST_WRITTEN} items" if len(base) > _LONGEST_WRITTEN and kind
            else f"of mixed types ({_kind_names(kinds)})" if None not in kinds and len(kinds) > 1
            else "of arrays of another shape or dtype than the value's" if kind and kind[0] == "array"
            else "of items that are not numbers or arrays" if None in kinds or not base
            else f"of {_kind_names(kinds)} items")
    return (f"a list {what} is written at a traced position (at {user_location()}): jitcore writes "
            f"such a position as one select per item, for a short list of numbers of one type or "
            f"of arrays of one shape and dtype. {instead}")


def set_item_at(base: list, key: Tracer, value) -> None:
    """``base[key] = value`` for a traced integer ``key`` on a short list of numbers of one kind
    (``free[k] = b``, ``counts[int(v) % 4] += 1``) or of arrays of one shape and dtype (de
    Boor's ``d[j] = (1 - a) * d[j - 1] + a * d[j]``, ``d`` rows of the control points): each
    item becomes ``value`` where ``key`` names it, else stays, so the list keeps its length and
    its items' kind; a position out of range raises Python's ``IndexError('list assignment
    index out of range')`` from the call. An array item that was a view of another array stays
    one where the position did not name it (``aliasing.chosen``), so it sees that array's later
    writes and writes through to it, as in Python."""
    kinds = {_kind(v) for v in base}
    kind = next(iter(kinds)) if len(kinds) == 1 else None
    if kind is None or kind == ("python", None) or _kind(value) != kind \
            or len(base) > _LONGEST_WRITTEN:
        raise needs_static(UnsupportedError(_unwritable(base, kinds, kind, value)), key)
    n = len(base)
    raise_at_first((key < -n) | (key >= n), key, kernel.LIST_ASSIGNMENT_INDEX)
    index = np.where(key < 0, key + n, key)
    dtype = _held_as(kind)
    new = as_tracer(key.owner_trace, value, dtype)
    for j, item in enumerate(base):
        at_j = index == j
        chosen = np.where(at_j, new, as_tracer(key.owner_trace, item, dtype))
        if kind[0] == "array":  # an item that was a view still is one where it was not written
            base[j] = aliasing.chosen(at_j, value, item, chosen)
        else:
            base[j] = fresh(chosen, True, kind[0] == "python")
