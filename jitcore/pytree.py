"""Pytrees: nested tuples, lists, dicts and None around array leaves, as in JAX; a named tuple
(NumPy's ``EighResult``, a user's own) is a node that rebuilds as its own class.

``flatten`` returns the leaves and a hashable ``TreeDef`` that ``unflatten`` rebuilds the
structure from; the TreeDef is part of a jitted function's signature key.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TreeDef:
    # "leaf", "none", "tuple", "list", "dict", "namedtuple" (keys: its class), "constant" (a
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


def flatten(tree) -> tuple[list, TreeDef]:
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list) -> TreeDef:
    if tree is None:
        return TreeDef("none")
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields"):
        kind = "tuple" if isinstance(tree, tuple) else "list"
        return TreeDef(kind, tuple(_flatten(x, leaves) for x in tree))
    if isinstance(tree, tuple):  # a named tuple
        return TreeDef("namedtuple", tuple(_flatten(x, leaves) for x in tree), (type(tree),))
    if isinstance(tree, dict):  # in the dict's own order, as Python iterates it (JAX sorts)
        return TreeDef("dict", tuple(_flatten(v, leaves) for v in tree.values()), tuple(tree))
    leaves.append(tree)
    return LEAF


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
    return dict(zip(treedef.keys, children))


def leaf_paths(treedef: TreeDef, prefix: str) -> list[str]:
    """Readable names of the leaves, such as ``x``, ``params['w']`` or ``xs[1]``."""
    if treedef.kind == "leaf":
        return [prefix]
    labels = [repr(k) for k in treedef.keys] if treedef.kind == "dict" else range(len(treedef.children))
    if treedef.kind == "namedtuple":
        return [p for name, child in zip(treedef.keys[0]._fields, treedef.children)
                for p in leaf_paths(child, f"{prefix}.{name}")]
    out = []
    for label, child in zip(labels, treedef.children):
        out += leaf_paths(child, f"{prefix}[{label}]")
    return out


def update_in_place(old, new):
    """``old`` made equal to ``new`` in place where it is a list or dict (nested containers
    kept as objects, so other names for them see the change); otherwise ``new``."""
    if new is old:
        return old
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
    if type(old) is tuple and type(new) is tuple and len(old) == len(new):
        # immutable: the old tuple where only the containers inside changed, else a new one
        items = tuple(update_in_place(o, n) for o, n in zip(old, new))
        return old if all(i is o for i, o in zip(items, old)) else items
    return new
