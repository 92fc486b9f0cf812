"""What every op of the ``array`` dialect shares: the ``ArrayOp`` base, ``array.constant``, and
the helpers their folders use (constants as NumPy arrays, splat values, folding through NumPy).
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr, numpy_dtype
from jitcore.ir.core import PURE, Operation, Value
from jitcore.ir.opdef import attr, of
from jitcore.ir.types import TensorType

# Folding evaluates constants in NumPy; above this many elements it is not worth the compile time.
FOLD_LIMIT = 1 << 16


def constant_array(attr) -> np.ndarray | None:
    if isinstance(attr, DenseAttr) and attr.array.size <= FOLD_LIMIT:
        return attr.array
    return None


def splat_value(v: Value):
    """The single value of a splat ``array.constant`` operand, else None."""
    op = getattr(v, "op", None)
    if isinstance(op, ConstantOp) and op.value.is_splat:
        return op.value.array.reshape(-1)[0]
    return None


def is_splat(v: Value, number: float, negative_zero: bool | None = None) -> bool:
    s = splat_value(v)
    if s is None or s != number:
        return False
    return negative_zero is None or bool(np.signbit(s)) == negative_zero


def fold_numpy(fn, arrays: list, result_type: TensorType):
    if any(a is None for a in arrays):
        return None
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*arrays))
    except (ValueError, ArithmeticError, TypeError):
        return None  # e.g. integers to negative powers: leave it to run time
    return [DenseAttr(out.astype(numpy_dtype(result_type.element)), result_type)]


class ArrayOp(Operation):
    """Base of the dialect's ops: tensor operands and results, verified by ``check`` after the
    declared ``arity`` and attributes (``ir.opdef``)."""

    __slots__ = ()

    @property
    def result_type(self) -> TensorType:
        return self.results[0].type

    def verify_op(self) -> None:
        if any(not isinstance(v.type, TensorType) for v in (*self.operands, *self.results)):
            self.fail("takes and returns tensors only")
        self.check()

    def check(self) -> None:
        """Op-specific rules."""


class ConstantOp(ArrayOp):
    name = "array.constant"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (0, 1)
    value = attr(of(DenseAttr, ": a dense value of the result type"))

    def check(self) -> None:
        if self.value.type != self.result_type:
            self.fail("needs a dense 'value' of the result type")

    def fold(self, constants):
        return None


class IotaOp(ArrayOp):
    """``array.iota``: each element's position along ``dimension``, in the result's element type
    (``np.arange(n)`` and its broadcasts). A ramp is no table: it costs nothing to make, hash or
    store whatever its size, kernels compute it from their positions, and its type's dims are
    all that a new size changes (``jitcore/position_tables.py`` makes it for large tables)."""

    name = "array.iota"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (0, 1)
    dimension = attr(of(int))

    def check(self) -> None:
        if not 0 <= self.dimension < self.result_type.rank:
            self.fail("needs a 'dimension' among the result's dims")
        if self.result_type.element.is_complex or self.result_type.element.is_bool:
            self.fail("needs an integer or float result")

    def fold(self, constants):
        return None
