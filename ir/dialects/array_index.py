"""Positional reductions and scans along one axis: ``array.argreduce`` and ``array.scan``.

``array.argreduce {kind, axis}`` (kind ``max`` or ``min``) gives, for each position of the other
dims, the int64 index along ``axis`` of the largest (smallest) element, as ``numpy.argmax``
(``argmin``) does: the first one on ties, and the first NaN if there is one. The axis must not be
empty: there is no index to give.

``array.scan {kind, axis}`` (kind ``sum`` or ``prod``) is the inclusive prefix sum (product)
along ``axis``, as ``numpy.add.accumulate`` (``multiply.accumulate``) in the operand's own type:
one addition after another from the start of the axis, integers wrapping, ``or`` (``and``) for
bool. The tracer converts to NumPy's accumulator type first.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr
from jitcore.ir.core import PURE
from jitcore.ir.dialects.array import FOLD_LIMIT, ArrayOp, _constant_array
from jitcore.ir.types import TensorType, i64

ARGREDUCE = {"max": np.argmax, "min": np.argmin}
SCAN = {"sum": np.add, "prod": np.multiply}


class _AxisOp(ArrayOp):
    """One operand, one result, a ``kind`` from ``kinds`` and an ``axis`` of the operand."""

    __slots__ = ()
    kinds: dict = {}

    @property
    def kind(self) -> str:
        return self.attributes["kind"]

    @property
    def axis(self) -> int:
        return self.attributes["axis"]

    def check(self) -> None:
        self.need(1)
        if self.attributes.get("kind") not in self.kinds:
            self.fail(f"needs 'kind' in {sorted(self.kinds)}")
        axis, rank = self.attributes.get("axis"), self.operands[0].type.rank
        if type(axis) is not int or not 0 <= axis < rank:
            self.fail(f"needs an 'axis' in 0..{rank - 1} (the operand has rank {rank})")
        expected = self.expected_type()
        if self.result_type != expected:
            self.fail(f"must return {expected}")


class ArgReduceOp(_AxisOp):
    """The int64 position along ``axis`` of the first largest (``max``) or smallest (``min``)
    element, NaN counting as beyond every number; ``axis`` leaves the shape."""

    name = "array.argreduce"
    traits = frozenset({PURE})
    __slots__ = ()
    kinds = ARGREDUCE

    def expected_type(self) -> TensorType:
        src = self.operands[0].type
        return TensorType(src.shape[: self.axis] + src.shape[self.axis + 1:], i64)

    def check(self) -> None:
        super().check()
        if self.operands[0].type.shape[self.axis] == 0:
            self.fail(f"cannot take the arg{self.kind} of an empty axis {self.axis}")

    def fold(self, constants):
        if self.operands[0].type.shape[self.axis] == 1 and self.result_type.size <= FOLD_LIMIT:
            return [DenseAttr(np.zeros(self.result_type.shape, np.int64), self.result_type)]
        arr = _constant_array(constants[0])
        if arr is None:
            return None
        out = ARGREDUCE[self.kind](arr, axis=self.axis)
        return [DenseAttr(np.asarray(out, dtype=np.int64), self.result_type)]


class ScanOp(_AxisOp):
    """Inclusive prefix ``sum`` or ``prod`` along ``axis``, in the operand's type."""

    name = "array.scan"
    traits = frozenset({PURE})
    __slots__ = ()
    kinds = SCAN

    def expected_type(self) -> TensorType:
        return self.operands[0].type

    def fold(self, constants):
        if self.operands[0].type.shape[self.axis] <= 1:
            return [self.operands[0]]  # nothing to accumulate (-0.0 stays -0.0, as in NumPy)
        arr = _constant_array(constants[0])
        if arr is None or self.result_type.size > FOLD_LIMIT:
            return None
        with np.errstate(all="ignore"):
            out = SCAN[self.kind].accumulate(arr, axis=self.axis, dtype=arr.dtype)
        return [DenseAttr(out, self.result_type)]
