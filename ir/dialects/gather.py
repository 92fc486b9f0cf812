"""``array.gather``: NumPy's ``take`` along one axis (what ``x[idx]`` with an integer array
does). Negative indices count from the end; an index outside ``[-n, n)`` makes the compiled
function raise ``IndexError`` after the call, as NumPy does, instead of reading out of bounds.
"""

from __future__ import annotations

import numpy as np

from ir.attributes import DenseAttr
from ir.core import PURE
from ir.dialects.array import ArrayOp, _constant_array
from ir.types import i64


class GatherOp(ArrayOp):
    """``take(x, indices, axis)``: result shape is
    ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]``."""

    name = "array.gather"
    traits = frozenset({PURE})
    __slots__ = ()

    @property
    def axis(self) -> int:
        return self.attributes["axis"]

    def check(self) -> None:
        self.need(2)
        x, indices = (v.type for v in self.operands)
        axis = self.attributes.get("axis")
        if not isinstance(axis, int) or not 0 <= axis < x.rank:
            self.fail("needs an 'axis' within the operand's rank")
        if indices.element != i64:
            self.fail("needs i64 indices")
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        if self.result_type != x.with_shape(shape):
            self.fail(f"must return {x.with_shape(shape)}")

    def fold(self, constants):
        x, indices = (_constant_array(c) for c in constants)
        if x is None or indices is None:
            return None
        n = x.shape[self.axis]
        if indices.size and (indices.min() < -n or indices.max() >= n):
            return None  # NumPy raises: leave it to run time, which raises IndexError too
        return [DenseAttr(np.take(x, indices, axis=self.axis), self.result_type)]
