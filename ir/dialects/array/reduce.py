"""Reductions of the ``array`` dialect: ``reduce`` over a set of axes, and along one axis the
positional ``argreduce`` and the prefix ``scan``.

``array.reduce {kind, axes}`` combines the elements along ``axes`` with ``kind`` (``REDUCE``:
sum, prod, max, min, logical and/or, bitwise and/or/xor), starting from the kind's identity;
NaN propagates.

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
from jitcore.ir.dialects.array.base import FOLD_LIMIT, ArrayOp, constant_array, splat_value
from jitcore.ir.opdef import attr, of, one_of, tuple_of
from jitcore.ir.types import TensorType, i64

REDUCE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
          "and": np.logical_and, "or": np.logical_or}
# np.bitwise_and.reduce and friends, on integers and bools ("and"/"or" above are logical).
REDUCE.update({"bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor})
ARGREDUCE = {"max": np.argmax, "min": np.argmin}
SCAN = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
        "bitand": np.bitwise_and, "bitor": np.bitwise_or, "bitxor": np.bitwise_xor}


class _AxisOp(ArrayOp):
    """One operand, one result, a ``kind`` (declared by each op) and an ``axis`` of the operand."""

    __slots__ = ()
    arity = (1, 1)
    axis = attr(of(int))

    def check(self) -> None:
        axis, rank = self.axis, self.operands[0].type.rank
        if not 0 <= axis < rank:
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
    kind = attr(one_of(ARGREDUCE))

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
        if splat_value(self.operands[0]) is not None:  # all tied: the first, however large
            return [DenseAttr(np.array(0, np.int64), self.result_type)]
        arr = constant_array(constants[0])
        if arr is None:
            return None
        out = ARGREDUCE[self.kind](arr, axis=self.axis)
        return [DenseAttr(np.asarray(out, dtype=np.int64), self.result_type)]


class ScanOp(_AxisOp):
    """Inclusive prefix ``sum``, ``prod``, ``max``, ``min`` or bitwise ``bitand``/``bitor``/
    ``bitxor`` along ``axis``, in the operand's type (``max``/``min``:
    ``np.maximum.accumulate``'s rule, NaN kept once met). A second operand, a 0-d i64
    ``count`` (axis 0 only; sorts55): the rows from ``count`` on unspecified, the scan run
    over the first ``count`` only (a compacted selection's running total,
    ``jitcore/run_length.py``)."""

    name = "array.scan"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = None
    kind = attr(one_of(SCAN))

    def check(self) -> None:
        if len(self.operands) not in (1, 2) or len(self.results) != 1:
            self.fail("needs an operand, maybe a count, and one result")
        if len(self.operands) == 2 and (self.axis != 0 or self.operands[1].type != TensorType((), i64)):
            self.fail("takes a count (a 0-d i64) along axis 0 only")
        super().check()

    def expected_type(self) -> TensorType:
        return self.operands[0].type

    def fold(self, constants):
        if self.operands[0].type.shape[self.axis] <= 1:
            return [self.operands[0]]  # nothing to accumulate (-0.0 stays -0.0, as in NumPy)
        arr = constant_array(constants[0])
        if arr is None or self.result_type.size > FOLD_LIMIT:
            return None
        with np.errstate(all="ignore"):
            out = SCAN[self.kind].accumulate(arr, axis=self.axis, dtype=arr.dtype)
        return [DenseAttr(out, self.result_type)]


class ReduceOp(ArrayOp):
    """Reduce ``axes`` away with ``kind`` (sum, prod, max, min, and, or); NaN propagates."""

    name = "array.reduce"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)
    kind = attr(one_of(REDUCE))
    axes = attr(tuple_of(int))

    def check(self) -> None:
        src = self.operands[0].type
        axes = self.axes
        if list(axes) != sorted(set(axes)) or any(not 0 <= a < src.rank for a in axes):
            self.fail("needs strictly increasing 'axes' within the operand rank")
        kept = tuple(d for i, d in enumerate(src.shape) if i not in axes)
        if self.result_type != TensorType(kept, src.element):
            self.fail(f"must return {TensorType(kept, src.element)}")
        if self.kind in ("max", "min") and any(src.shape[a] == 0 for a in axes):
            self.fail("cannot reduce an empty axis with max or min (no identity)")

    def fold(self, constants):
        element = self.operands[0].type.element
        # No axes: NumPy still combines each element with the identity, which changes -0.0 + 0.0
        # (float sums) and inf * (1 + 0j) (complex products); elsewhere the element is the result.
        changes = (self.kind == "sum" and (element.is_float or element.is_complex)
                   or self.kind == "prod" and element.is_complex)
        if not self.axes and not changes:
            return [self.operands[0]]
        one = splat_value(self.operands[0])
        if (one is not None and self.kind in ("or", "and", "max", "min")
                and all(self.operands[0].type.shape[a] for a in self.axes)):
            # any/all/max/min of one value repeated is that value, however large the constant
            # (a range check proved everywhere False: canonicalize's comparisons by bounds)
            return [DenseAttr(np.asarray(one), self.result_type)]
        arr = constant_array(constants[0])
        if arr is None:
            return None
        out = REDUCE[self.kind].reduce(arr, axis=self.axes)
        return [DenseAttr(np.asarray(out).astype(arr.dtype), self.result_type)]
