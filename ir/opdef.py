"""Declared attributes for op classes: the accessor and the verifier's presence and kind check.

    class TransposeOp(ArrayOp):
        arity = (1, 1)                          # operands, results (``Operation.arity``)
        permutation = attr(tuple_of(int))

makes ``op.permutation`` read the attribute, and has the verifier refuse an op without one, or
with one of another kind ("needs 'permutation': a list of ints"), before it runs the op's own
``verify_op``, which is then left with the op's own rule (that it is a permutation).
An ``optional`` attribute may be absent; its accessor then gives ``default``.
"""

from __future__ import annotations

_MISSING = object()


class Kind:
    """What values an attribute may hold; ``says`` completes "needs 'name'" in errors."""

    __slots__ = ("says", "test")

    def __init__(self, says: str, test):
        self.says, self.test = says, test


def _is(value, t: type) -> bool:
    return type(value) is t if t in (int, bool) else isinstance(value, t)  # True is not an int


def of(t: type, says: str | None = None) -> Kind:
    """One value of Python type ``t``: ``of(int)``, ``of(AffineMap)``."""
    return Kind(says or f": {'an' if t.__name__[0] in 'aeiouAEIOU' else 'a'} {t.__name__}",
                lambda v: _is(v, t))


def tuple_of(t: type, says: str | None = None) -> Kind:
    """A list (a tuple, as the parser reads it) of values of type ``t``."""
    return Kind(says or f": a list of {t.__name__}s",
                lambda v: isinstance(v, tuple) and all(_is(x, t) for x in v))


def one_of(values) -> Kind:
    """One of ``values`` (say the keys of a table of kinds)."""
    allowed = sorted(values)
    return Kind(f" in {allowed}", lambda v: _is(v, str) and v in allowed)


class attr:  # lower case: it reads as a declaration, like dataclasses.field
    """An attribute the op class declares; see the module docstring."""

    __slots__ = ("kind", "default", "name")

    def __init__(self, kind: Kind, *, optional: bool = False, default=None):
        self.kind, self.default = kind, default if optional else _MISSING

    def __set_name__(self, owner, name: str) -> None:
        self.name = name
        inherited = tuple(a for a in owner.declared_attributes if a.name != name)
        owner.declared_attributes = (*inherited, self)

    def __get__(self, op, owner=None):
        if op is None:
            return self
        if self.default is _MISSING:
            return op.attributes[self.name]
        return op.attributes.get(self.name, self.default)

    def check(self, op) -> None:
        value = op.attributes.get(self.name, _MISSING)
        if value is _MISSING and self.default is not _MISSING:
            return  # optional and absent
        if value is _MISSING or not self.kind.test(value):
            op.fail(f"needs '{self.name}'{self.kind.says}")
