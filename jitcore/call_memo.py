"""The memo of a call's structure, for cached calls the native entry leaves to Python.

Why: a call with a Python scalar, keywords or a strided array (``f(x, 0.5)``, ``f(x, y=y)``,
``f(x[::2])``) builds the full signature key on every call: binding keywords to the signature,
splitting static arguments off, ``pytree.flatten``, an ``ArgSpec`` per leaf and the key's hash,
about 10 µs of its ~20 (docs/performance.md). For a flat call (each argument an array or a
number, no containers) all of that follows from a few facts about each argument, which
``key`` gathers into a short key: the number of positional arguments, the keyword names in
order, and per value:

- an ``ndarray`` (the type itself, not a subclass): dtype, shape and its C-contiguous,
  F-contiguous and aligned flags, and for an array that is neither C- nor F-contiguous its
  layout class (reversed, flipped axes or strided: ``ir/layout_class.py``): the full key's
  layout. Unaligned arrays and strides that are no multiple of the item size are left to the
  full path, which copies them;
- a Python ``float``, ``complex``, ``bool`` or a NumPy scalar (``np.float64``, ...): its type
  (the value is traced); an ``int``: the bounds of ``api.int_range`` that the full key holds in
  its place;
- where the function has static arguments, every number by ``Exactly`` (its type and bits),
  every string by type and value, ``BY_IDENTITY``'s (``None``, a class, a function) by identity,
  since which argument is static only binding tells: the memo's key is then finer than the
  full key, never coarser; in a call without keywords to a function whose static arguments
  are all given by position, only those positions (session 49).

The first call with such a key takes the full path; ``JitFunction`` then records a
``Structure``: the full key, its executable, and where each leaf comes from (found by running
the same binding and flattening on markers in place of the values) with the dtype a number is
converted to. Later calls with the key build the leaf arrays from the arguments and call the
executable, with the same arrays the full path would give it. Anything else (containers,
subclasses, other objects) returns None here and takes the full path, unchanged.
"""

from __future__ import annotations

import struct
import types

import numpy as np

from jitcore.ir.layout_class import classify
from jitcore.pytree import Marker, holds_data, plain_object

_NDARRAY = np.ndarray
# NumPy's flag bits (``ndarray.flags.num``): the layout facts of the full key, and alignment
_C_CONTIGUOUS, _F_CONTIGUOUS, _ALIGNED = 0x1, 0x2, 0x100
_LAYOUT = _C_CONTIGUOUS | _F_CONTIGUOUS | _ALIGNED
_TRACED_BY_TYPE = (float, complex, bool)
_NUMBERS = (float, complex, bool, int)
# NumPy scalars (``x.mean()``'s result, ``np.float32(0.5)``): the type fixes the dtype
NUMPY_SCALARS = frozenset((np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                            np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
                            np.complex128))
_INT64 = (-(2 ** 63), 2 ** 63 - 1)
# Static values whose ``==`` is identity, in C: ``None``, a class (a classmethod's ``cls``), and
# the functions, properties, static and class methods of a class a jitted method reads.
BY_IDENTITY = frozenset((type(None), type, types.FunctionType, property, staticmethod, classmethod))


def key(args: tuple, kwargs: dict, statics: bool, int_range,
        positions: frozenset | None = None) -> tuple | None:
    """The memo key of a call, or None when the call is not flat (the full path decides).
    ``int_range`` is ``api.int_range`` (passed in: api imports this module). ``positions``: for
    a call without keywords, the static positions, where binding cannot move an argument: only
    those are keyed by value (a jitted method's flat twin: its numbers traced, ``self.t``)."""
    parts: list = [len(args)]
    for i, a in enumerate(args):
        static = statics and (positions is None or i in positions)
        part = _items(a, static, int_range) if is_node(a) else _part(a, static, int_range)
        if part is None:
            return None
        parts.append(part)
    for name, v in kwargs.items():
        part = _items(v, statics, int_range) if is_node(v) else _part(v, statics, int_range)
        if part is None:
            return None
        parts.append(name)
        parts.append(part)
    return tuple(parts)


# A tuple, list or dict argument of arrays, numbers and such containers (``f((x, y))``,
# ``f([a, b, c])``, ``f({"w": w, "b": b})``, ``f({"l1": {"w": w}, "l2": {"w": v}})``): its type, a
# dict's keys (strings, sorted: ``pytree``'s order) and each item's part; nested at most
# ``MAX_DEPTH`` deep, at most ``MAX_ITEMS`` items in all. Only for functions without static
# arguments, where a tuple could be a static value, compared by its own ``==``.
CONTAINERS = (tuple, list, dict)
MAX_ITEMS = 32
MAX_DEPTH = 4


def container(v) -> bool:
    """A tuple, list or dict (exactly), or a named tuple (a tuple subclass with ``_fields``,
    which pytree flattens as its own kind and rebuilds by calling its class)."""
    t = type(v)
    return t in CONTAINERS or (isinstance(v, tuple) and hasattr(t, "_fields"))


def is_node(v) -> bool:
    """A container, or an object of the user's class (``pytree.plain_object``; session 50): a
    node of its attributes, keyed by ``_object`` (the native call takes containers only)."""
    t = type(v)
    return container(v) or (t not in _LEAVES and t not in _STATIC_ATTRIBUTES and plain_object(v))




def _items(node, statics: bool, int_range, depth: int = 1, budget: list | None = None):
    budget = [MAX_ITEMS] if budget is None else budget  # items left, shared by the nested ones
    kind, keys, items = type(node), None, node
    if kind not in CONTAINERS and not isinstance(node, tuple):  # an object (``container``)
        return _object(node, statics, int_range, depth, budget)
    budget[0] -= len(node)
    if statics or budget[0] < 0 or depth > MAX_DEPTH:
        return None
    if kind is dict:
        if any(type(k) is not str for k in node):
            return None
        keys = tuple(node)  # pytree's order: the dict's own
        items = [node[k] for k in keys]
    parts = []
    for v in items:
        if is_node(v):
            part = _items(v, False, int_range, depth + 1, budget)
        else:
            part = _part(v, False, int_range)
        if part is None:
            return None
        parts.append(part)
    return kind, keys, tuple(parts)


# An object of the user's class (``pytree.plain_object``: a dataclass, a plain class, a
# ``types.SimpleNamespace``), keyed as ``pytree._flatten_object`` flattens it: what decides its
# compile is its class, its attribute names in ``__dict__`` order, each data attribute's part
# (``pytree.holds_data``: arrays, numbers, containers and objects of them), and each other
# attribute's value, which the node holds: here only a string, bytes, None or
# ``BY_IDENTITY``'s, as ``(type, value)`` (others, which the node compares by their own ``==``
# or by identity, take the full path).
_STATIC_ATTRIBUTES = frozenset((str, bytes, *BY_IDENTITY))
_LEAVES = frozenset((_NDARRAY, *_NUMBERS, *NUMPY_SCALARS))


def _object(obj, statics: bool, int_range, depth: int, budget: list):
    attributes = vars(obj)
    budget[0] -= len(attributes)
    if statics or budget[0] < 0 or depth > MAX_DEPTH:
        return None
    parts: list = [type(obj)]
    for name, v in attributes.items():
        t = type(v)
        if t in _LEAVES:
            part = _part(v, False, int_range)
        elif t in _STATIC_ATTRIBUTES:
            part = t, v
        elif container(v):  # (one holding no data, such as [], is part of the node: by identity)
            part = _items(v, False, int_range, depth + 1, budget) if holds_data(v) else None
        elif plain_object(v):
            part = _object(v, False, int_range, depth + 1, budget)
        else:
            return None
        if part is None:
            return None
        parts.append(name)
        parts.append(part)
    return tuple(parts)


def _part(v, statics: bool, int_range):
    t = type(v)
    if t is _NDARRAY:
        flags = v.flags.num & _LAYOUT
        if not flags & _ALIGNED:
            return None
        if not flags & _C_CONTIGUOUS:
            if any(s % v.itemsize for s in v.strides):
                return None
            if not flags & _F_CONTIGUOUS:  # the flags do not tell reversed from strided
                return v.dtype, v.shape, flags, classify(v.shape, v.strides, v.itemsize)
        return v.dtype, v.shape, flags
    if statics and (t in _TRACED_BY_TYPE or t is int or t in NUMPY_SCALARS):
        return Exactly(v)
    if statics and (t is str or t in BY_IDENTITY):
        return t, v
    if t in _TRACED_BY_TYPE or t in NUMPY_SCALARS:
        return t
    if t is int and _INT64[0] <= v <= _INT64[1]:
        return int_range(v)
    return None


class Exactly:
    """A static number in a key (the full key's, the memo's): equal to another only with the
    same type and the same bits. ``==`` alone would give code traced with one value to calls
    with another that computes otherwise: ``x * 1`` keeps an int array's dtype where ``x * 1.0``
    makes float64, ``1 / -0.0`` is -inf; and a NaN, never ``==`` itself, would compile anew on
    each call. It prints as the value (the compile log shows keys)."""

    __slots__ = ("value", "bits")

    def __init__(self, value):
        self.value = value
        self.bits = type(value), bits(value)

    def __eq__(self, other):
        return type(other) is Exactly and self.bits == other.bits

    def __hash__(self):
        return hash(self.bits)

    def __repr__(self):
        return repr(self.value)


def bits(value):
    """A number's value as its type holds it: an int's or bool's own, a float's or complex's
    bytes (-0.0 is not 0.0; NaNs alike are one), a NumPy scalar's bytes."""
    t = type(value)
    if t is float:
        return struct.pack("<d", value)
    if t is complex:
        return struct.pack("<dd", value.real, value.imag)
    if t in NUMPY_SCALARS:
        return value.tobytes()
    return value


def exactly(value):
    """A static argument's value as the full key holds it: numbers as ``Exactly``, a list as
    ``ListValue`` (hashable: a list of numbers is made static as a tuple is), anything else
    itself (compared by its own ``==``)."""
    t = type(value)
    if t is list and _numbers_only(value):
        return ListValue(tuple(exactly(v) for v in value))
    return Exactly(value) if t in _NUMBERS or t in NUMPY_SCALARS else value


def _numbers_only(items) -> bool:
    """Whether ``items`` (a list or tuple) holds numbers only, or lists and tuples of them."""
    return all(type(v) in _NUMBERS or type(v) in NUMPY_SCALARS
               or (type(v) in (list, tuple) and _numbers_only(v)) for v in items)


class ListValue:
    """A static list of numbers (or of lists and tuples of them: shapes) in a key: its items'
    keys, equal to another list's only (``[3]`` and ``(3,)`` are traced apart: the function may
    tell them apart). A list holding anything else is not hashable, as before."""

    __slots__ = ("items",)

    def __init__(self, items: tuple):
        self.items = items

    def __eq__(self, other):
        return type(other) is ListValue and self.items == other.items

    def __hash__(self):
        return hash((ListValue, self.items))

    def __repr__(self):
        return repr(list(self.items))


class Attribute(str):
    """A step of a ``Source``'s path that is an object's attribute (the others: an index or a
    dict's key)."""

    __slots__ = ()


class Source(Marker):
    """A marker standing for one argument (a position or a keyword's name; an item of a
    container argument: (its position or name, its index or key, ... the indices or keys of
    the containers it is nested in, outermost first)) while the call's binding and flattening
    run on markers to find where each leaf comes from."""

    __slots__ = ("where",)

    def __init__(self, where):
        self.where = where


def marked(v, where):
    """The marker of argument ``v`` at ``where``: a container's items marked one by one (a
    dict's by key), nested ones too."""
    path = where if type(where) is tuple else (where,)
    if type(v) is dict:
        return {k: marked(x, (*path, k)) for k, x in v.items()}
    if type(v) in CONTAINERS:
        return type(v)(marked(x, (*path, k)) for k, x in enumerate(v))
    if type(v) not in CONTAINERS and not isinstance(v, tuple) and is_node(v):
        # an object: one of its class holding markers for its data attributes, the others as they are
        made = type(v).__new__(type(v))  # (bare: pytree._BARE_NEW)
        made.__dict__.update((name, marked(x, (*path, Attribute(name))) if holds_data(x) else x)
                             for name, x in vars(v).items())
        return made
    if container(v):  # a named tuple of markers (a class that refuses them: no memo, a leaf's count)
        try:
            return type(v)(*(marked(x, (*path, k)) for k, x in enumerate(v)))
        except Exception:  # noqa: BLE001
            return Source(where)
    return Source(where)


def value(args: tuple, kwargs: dict, where):
    """The argument (or a container argument's item, at any depth) a ``Source`` stands for."""
    if type(where) is tuple:
        obj = args[where[0]] if type(where[0]) is int else kwargs[where[0]]
        for k in where[1:]:
            obj = getattr(obj, k) if type(k) is Attribute else obj[k]
        return obj
    return args[where] if type(where) is int else kwargs[where]


class Structure:
    """A memo entry: the full key, its executable, per leaf its argument and, for a number,
    the dtype it becomes (None: the array itself), and the static arguments (a position or a
    keyword's name each)."""

    __slots__ = ("full_key", "executable", "sources", "contiguous", "statics")

    def __init__(self, full_key, executable, sources: tuple, contiguous: bool, statics: tuple = ()):
        self.full_key = full_key
        self.executable = executable
        self.sources = sources
        self.contiguous = contiguous  # every leaf C-contiguous: the executable's short entry
        self.statics = statics

    def run(self, args: tuple, kwargs: dict):
        arrays = []
        for where, dtype in self.sources:
            v = args[where] if type(where) is int else kwargs[where] if type(where) is str else \
                value(args, kwargs, where)
            arrays.append(v if dtype is None else np.asarray(v, dtype=dtype))
        if self.contiguous:
            return self.executable.call_flat(tuple(arrays))
        return self.executable(arrays, None)


def structure(full_key, executable, args: tuple, kwargs: dict, marked: list,
              arrays: list, statics: tuple = ()) -> Structure | None:
    """The memo entry for a call the full path made, or None where its leaf arrays are not the
    arguments themselves (or numbers converted), which the memo does not reproduce.
    ``marked`` are the leaves of the same call made with ``Source`` markers, ``statics`` the
    ``Source`` markers it bound to static arguments."""
    if len(marked) != len(arrays):
        return None
    sources = []
    contiguous = True
    for mark, arr in zip(marked, arrays):
        if type(mark) is not Source:
            return None
        where = mark.where
        v = value(args, kwargs, where)
        if type(v) is _NDARRAY:
            if arr is not v:
                return None
            contiguous = contiguous and v.flags.c_contiguous
            sources.append((where, None))
        elif (type(v) in _NUMBERS or type(v) in NUMPY_SCALARS) and type(arr) is _NDARRAY \
                and arr.shape == ():
            sources.append((where, arr.dtype))
        else:
            return None
    return Structure(full_key, executable, tuple(sources), contiguous,
                     tuple(m.where for m in statics if type(m) is Source))
