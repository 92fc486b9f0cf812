"""Pytrees: nested tuples, lists, dicts and None around array leaves, as in JAX; a named tuple
(NumPy's ``EighResult``, a user's own) is a node that rebuilds as its own class, and so is an
object of the user's own class whose state is its ``__dict__`` (a dataclass, a plain class;
session 49; a ``types.SimpleNamespace``, session 50): its data attributes are children, the
others part of the node.

``flatten`` returns the leaves and a hashable ``TreeDef`` that ``unflatten`` rebuilds the
structure from; the TreeDef is part of a jitted function's signature key.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np


@dataclass(frozen=True, slots=True)
class TreeDef:
    # "leaf", "none", "tuple", "list", "dict", "namedtuple" (keys: its class), "object" (keys: its
    # class and its attributes in order, each _CHILD or a _Static value), "constant" (a
    # Python value a jitted function returns as it is; keys: its type and itself)
    kind: str
    children: tuple = ()
    keys: tuple = ()

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)


LEAF = TreeDef("leaf")


def flatten(tree, objects: bool = False) -> tuple[list, TreeDef]:
    """``objects``: the user's objects are nodes too (a jitted function's arguments and results:
    ``plain_object``); elsewhere (a traced loop's state, a method's attributes) they stay leaves,
    which the autograph's own attribute tracking carries."""
    leaves: list = []
    return leaves, _flatten(tree, leaves, objects)


def flatten_fields(tree: tuple, objects: tuple) -> tuple[list, TreeDef]:
    """A named tuple flattened with ``objects`` chosen per field: ``ArgumentWrites``, whose
    arguments' objects are nodes (the caller's, set after the call) and whose result's are not
    (a returned object stays a leaf, refused)."""
    leaves: list = []
    children = tuple(_flatten(x, leaves, o) for x, o in zip(tree, objects))
    return leaves, TreeDef("namedtuple", children, (type(tree),))


def _flatten(tree, leaves: list, objects: bool = False, within: tuple = ()) -> TreeDef:
    """``within``: the objects ``tree`` is inside (``_flatten_object``), to refuse a cycle."""
    if tree is None:
        return TreeDef("none")
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields"):
        kind = "tuple" if isinstance(tree, tuple) else "list"
        return TreeDef(kind, tuple(_flatten(x, leaves, objects, within) for x in tree))
    if isinstance(tree, tuple):  # a named tuple
        return TreeDef("namedtuple", tuple(_flatten(x, leaves, objects, within) for x in tree), (type(tree),))
    if isinstance(tree, dict):  # in the dict's own order, as Python iterates it (JAX sorts)
        children = tuple(_flatten(v, leaves, objects, within) for v in tree.values())
        return TreeDef("dict", children, tuple(tree))
    if objects and plain_object(tree):
        return _flatten_object(tree, leaves, within)
    leaves.append(tree)
    return LEAF


def acyclic(obj, within: tuple = ()) -> bool:
    """Whether ``flatten(obj, objects=True)`` ends: no object inside itself (``_flatten_object``)."""
    if any(o is obj for o in within):
        return False
    within = (*within, obj)
    for value in vars(obj).values():
        items = value.values() if type(value) is dict else value if type(value) in (list, tuple) else (value,)
        for item in items:
            if plain_object(item) and not acyclic(item, within):
                return False
    return True


def plain_object(value) -> bool:
    """An instance of the user's own class whose state is its ``__dict__`` (a dataclass, a
    plain class): a node of its attributes. Not a class, a function, a module, a callable
    object, nor NumPy's, jitcore's or a library's objects that hold a ``__dict__``."""
    cls = type(value)
    known = _PLAIN_CLASSES.get(cls)
    if known is None:
        known = _PLAIN_CLASSES[cls] = _plain_class(cls)
    return known


_PLAIN_CLASSES: dict = {}  # by class: plain_object's answer (a function of the class alone)


def _plain_class(cls: type) -> bool:
    module = getattr(cls, "__module__", "") or ""
    if cls is SimpleNamespace:  # the library's one class of plain state (its own __new__ makes it bare)
        return True
    if module.startswith(_LIBRARY_MODULES) or issubclass(cls, type) or not cls.__dictoffset__:
        return False
    if any(hasattr(cls, p) for p in _ARRAY_PROTOCOLS):  # converted as NumPy converts it
        return False
    # read from the class alone: a proxy's attribute lookup (jitcore's own placeholders, a
    # lazy object) may raise anything
    return (cls.__new__ in _BARE_NEW and cls.__getattribute__ in _PLAIN_GETATTRIBUTE
            and not hasattr(cls, "__getattr__") and not any("__call__" in vars(c) for c in cls.__mro__[:-1])
            and all("__slots__" not in vars(c) for c in cls.__mro__))


_BARE_NEW = (object.__new__, SimpleNamespace.__new__)  # cls.__new__(cls): an object with no state yet
_PLAIN_GETATTRIBUTE = (object.__getattribute__, SimpleNamespace.__getattribute__)
_ARRAY_PROTOCOLS = ("__array__", "__array_interface__", "__array_struct__", "__cuda_array_interface__",
                    "__dlpack__", "__jitcore_device_array__")
_LIBRARY_MODULES = ("builtins", "numpy", "jitcore", "dask", "jax", "numba", "types", "functools")


def _flatten_object(obj, leaves: list, within: tuple = ()) -> TreeDef:
    """A user's object: its attributes that hold data (arrays, numbers, containers and objects
    of them) are children, in ``__dict__`` order; the others (a string, None, a function) are
    part of the node, compared by value (by identity where not hashable), as a static
    argument's. An object inside itself (``a.parent.child is a``) is refused: no tree holds it."""
    if any(o is obj for o in within):
        from jitcore.errors import JitTypeError

        raise JitTypeError(
            f"an object of class {type(obj).__qualname__} holds itself through its attributes (a "
            "cycle, such as child.parent.child): jitcore passes an argument object's arrays and "
            "numbers by walking its attributes, which would never end. Pass the arrays it holds "
            "as arguments, or break the cycle (keep the parent out of the child's attributes)")
    within = (*within, obj)
    children, layout = [], []
    for name, value in vars(obj).items():
        if holds_data(value):
            children.append(_flatten(value, leaves, True, within))
            layout.append((name, _CHILD))
        else:
            layout.append((name, _Static.of(value)))
    return TreeDef("object", tuple(children), (type(obj), tuple(layout)))


_CHILD = "<child>"


class Marker:
    """A stand-in for a leaf (``call_memo.Source``): data, as the value it stands for, so that
    an object of markers flattens as the object of values does."""

    __slots__ = ()


def holds_data(value) -> bool:
    """An object's attribute that is a child of its node (``_flatten_object``), not part of it."""
    if isinstance(value, (np.ndarray, np.generic, int, float, complex, Marker)):
        return True
    from jitcore.tracer import Tracer

    if isinstance(value, Tracer):
        return True
    if isinstance(value, (list, tuple, dict)):
        items = value.values() if isinstance(value, dict) else value
        return bool(items) and all(holds_data(v) for v in items)
    return plain_object(value)


class _Static:
    """An attribute that holds no data, in a TreeDef: equal by value where hashable, else by
    identity; it rebuilds as the object itself."""

    __slots__ = ("value", "_key")

    def __init__(self, value, key):
        self.value, self._key = value, key

    @classmethod
    def of(cls, value):
        try:
            return cls(value, (type(value), value, hash(value)))
        except TypeError:
            return cls(value, (type(value), id(value)))

    def __eq__(self, other):
        return type(other) is _Static and other._key[:2] == self._key[:2] and (
            len(self._key) == 2 or other.value == self.value)

    def __hash__(self):
        return hash(self._key[:2]) if len(self._key) == 2 else self._key[2]

    def __repr__(self):
        return repr(self.value)


def with_constants(treedef: TreeDef, leaves: list, is_constant) -> tuple[TreeDef, list]:
    """``treedef`` with each leaf that ``is_constant`` says is one made a "constant" node that
    rebuilds as that very object, and the leaves left."""
    left: list = []
    it = iter(leaves)

    def visit(node: TreeDef) -> TreeDef:
        if node.kind == "leaf":
            leaf = next(it)
            if is_constant(leaf):
                return TreeDef("constant", (), (type(leaf), leaf))  # the type: 1 and True differ
            left.append(leaf)
            return node
        return TreeDef(node.kind, tuple(visit(c) for c in node.children), node.keys)

    return visit(treedef), left


def constants(treedef: TreeDef) -> list:
    """The values of the "constant" nodes of ``treedef``."""
    if treedef.kind == "constant":
        return [constant_value(treedef)]
    return [v for c in treedef.children for v in constants(c)]


def constant_value(treedef: TreeDef) -> object:
    """What a "none" or "constant" node rebuilds as."""
    return treedef.keys[1] if treedef.kind == "constant" else None


def unflatten(treedef: TreeDef, leaves) -> object:
    it = iter(leaves)
    return _unflatten(treedef, it)


def _unflatten(treedef: TreeDef, it):
    if treedef.kind == "leaf":
        return next(it)
    if treedef.kind in ("none", "constant"):
        return constant_value(treedef)
    children = [_unflatten(c, it) for c in treedef.children]
    if treedef.kind == "tuple":
        return tuple(children)
    if treedef.kind == "list":
        return children
    if treedef.kind == "namedtuple":
        return treedef.keys[0](*children)
    if treedef.kind == "object":
        cls, layout = treedef.keys
        obj = cls.__new__(cls)  # (_BARE_NEW's)
        kids = iter(children)
        obj.__dict__.update((name, next(kids) if how == _CHILD else how.value) for name, how in layout)
        return obj
    return dict(zip(treedef.keys, children))


def leaf_paths(treedef: TreeDef, prefix: str) -> list[str]:
    """Readable names of the leaves, such as ``x``, ``params['w']`` or ``xs[1]``."""
    if treedef.kind == "leaf":
        return [prefix]
    labels = [repr(k) for k in treedef.keys] if treedef.kind == "dict" else range(len(treedef.children))
    if treedef.kind == "namedtuple":
        return [p for name, child in zip(treedef.keys[0]._fields, treedef.children)
                for p in leaf_paths(child, f"{prefix}.{name}")]
    if treedef.kind == "object":
        names = [name for name, how in treedef.keys[1] if how == _CHILD]
        return [p for name, child in zip(names, treedef.children)
                for p in leaf_paths(child, f"{prefix}.{name}")]
    out = []
    for label, child in zip(labels, treedef.children):
        out += leaf_paths(child, f"{prefix}[{label}]")
    return out


def _same_value(old, new) -> bool:
    """The attribute unchanged: the same object, or a number of the same type and bits (a
    number comes back from compiled code as a new object)."""
    if old is new:
        return True
    if type(old) is not type(new) or not isinstance(old, (int, float, complex)):
        return False
    if old != old:  # NaN
        return new != new
    # equal, and of the same sign where a zero could differ in it (str: the cheap test here)
    return old == new and (old != 0 and type(old) is not complex or str(old) == str(new))


_NOT_UPDATED = frozenset((np.ndarray, float, int, bool, complex))  # taken as they are


def update_in_place(old, new):
    """``old`` made equal to ``new`` in place where it is a list or dict (nested containers
    kept as objects, so other names for them see the change); otherwise ``new``."""
    if new is old or type(new) in _NOT_UPDATED:
        return new
    if type(old) is dict and type(new) is dict:
        if list(old) == list(new):
            for k, v in new.items():
                old[k] = update_in_place(old[k], v)
        else:  # keys added, removed or reordered: the new order
            items = [(k, update_in_place(old[k], v) if k in old else v) for k, v in new.items()]
            old.clear()
            old.update(items)
        return old
    if type(old) is list and type(new) is list:
        old[:] = [update_in_place(o, n) for o, n in zip(old, new)] + new[len(old):]
        return old
    if type(old) is type(new) and plain_object(old):  # the caller's object, its attributes set
        params = getattr(type(old), "__dataclass_params__", None)
        if params is not None and params.frozen:
            return old  # immutable, as in Python: its attributes were only read
        before = vars(old)
        after = {k: update_in_place(before[k], v) if k in before else v for k, v in vars(new).items()}
        for k in [k for k in before if k not in after]:
            delattr(old, k)
        for k, v in after.items():
            if k not in before or not _same_value(before[k], v):
                setattr(old, k, v)
        return old
    if type(old) is tuple and type(new) is tuple and len(old) == len(new):
        # immutable: the old tuple where only the containers inside changed, else a new one
        items = tuple(update_in_place(o, n) for o, n in zip(old, new))
        return old if all(i is o for i, o in zip(items, old)) else items
    return new
