"""The data-movement ops of the ``array`` dialect: ``broadcast_in_dim``, ``reshape``,
``transpose``, ``slice``, ``pad``, ``concatenate`` and ``update_slice``.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr
from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import FOLD_LIMIT, ArrayOp, constant_array
from jitcore.ir.opdef import attr, of, tuple_of
from jitcore.ir.types import TensorType

# A broadcast of a constant that is not a splat folds only up to this many elements: past it, a
# dense copy of a small table (an FFT stage's twiddles, broadcast over the whole array) would
# cost memory and bandwidth that the broadcast map reading the table does not.
BROADCAST_FOLD_LIMIT = 1024


class BroadcastInDimOp(ArrayOp):
    """Operand dim ``i`` becomes result dim ``broadcast_dimensions[i]``; size-1 dims stretch."""

    name = "array.broadcast_in_dim"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)
    broadcast_dimensions = attr(tuple_of(int))

    def check(self) -> None:
        src, out = self.operands[0].type, self.result_type
        dims = self.broadcast_dimensions
        if len(dims) != src.rank:
            self.fail("needs 'broadcast_dimensions' with one entry per operand dim")
        if src.element != out.element:
            self.fail("cannot change the element type")
        if list(dims) != sorted(set(dims)) or any(not 0 <= d < out.rank for d in dims):
            self.fail("needs strictly increasing broadcast_dimensions within the result rank")
        for i, d in enumerate(dims):
            if src.shape[i] not in (1, out.shape[d]):
                self.fail(f"operand dim {i} of size {src.shape[i]} cannot broadcast to {out.shape[d]}")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = constant_array(constants[0])
        if arr is None or self.result_type.size > FOLD_LIMIT:
            return None
        if arr.size > 1 and self.result_type.size > max(BROADCAST_FOLD_LIMIT, arr.size):
            return None  # a kernel reads the small table through a broadcast map instead
        expanded = [1] * self.result_type.rank
        for i, d in enumerate(self.broadcast_dimensions):
            expanded[d] = arr.shape[i]
        out = np.broadcast_to(arr.reshape(expanded), self.result_type.shape)
        return [DenseAttr(out, self.result_type)]


class ReshapeOp(ArrayOp):
    name = "array.reshape"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)

    def check(self) -> None:
        src = self.operands[0].type
        if src.size != self.result_type.size or src.element != self.result_type.element:
            self.fail(f"cannot reshape {src} to {self.result_type}")

    def fold(self, constants):
        x = self.operands[0]
        if x.type == self.result_type:
            return [x]
        arr = constant_array(constants[0])
        return None if arr is None else [DenseAttr(arr.reshape(self.result_type.shape), self.result_type)]


class TransposeOp(ArrayOp):
    """Result dim ``i`` is operand dim ``permutation[i]``."""

    name = "array.transpose"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)
    permutation = attr(tuple_of(int))

    def check(self) -> None:
        src = self.operands[0].type
        perm = self.permutation
        if sorted(perm) != list(range(src.rank)):
            self.fail(f"needs a 'permutation' of 0..{src.rank - 1}")
        if self.result_type != src.with_shape(src.shape[p] for p in perm):
            self.fail("result type does not match the permuted operand")

    def fold(self, constants):
        if self.permutation == tuple(range(len(self.permutation))):
            return [self.operands[0]]
        arr = constant_array(constants[0])
        return None if arr is None else [DenseAttr(arr.transpose(self.permutation), self.result_type)]


class _StridedRegionOp(ArrayOp):
    """Base of ops addressing the region ``start[k] + i * stride[k]`` of an array."""

    __slots__ = ()
    start = attr(tuple_of(int))
    stride = attr(tuple_of(int))

    def check_region(self, array_type: TensorType, region_type: TensorType) -> None:
        start, stride = self.start, self.stride
        if not len(start) == len(stride) == array_type.rank == region_type.rank:
            self.fail("needs 'start' and 'stride' with one entry per dim")
        if region_type.element != array_type.element or 0 in stride:
            self.fail("cannot change the element type, and strides must be non-zero")
        for k, (n, s, d) in enumerate(zip(region_type.shape, stride, array_type.shape)):
            last = start[k] + s * (n - 1)
            if n and not (0 <= start[k] < d and 0 <= last < d):
                self.fail(f"dim {k}: elements {start[k]} to {last} are outside 0..{d - 1}")

    def region_index(self, shape) -> tuple[slice, ...]:
        """The region as a NumPy index, for folding."""
        return tuple(
            slice(b, (b + s * n) if b + s * n >= 0 else None, s) if n else slice(0, 0)
            for b, s, n in zip(self.start, self.stride, shape)
        )


class SliceOp(_StridedRegionOp):
    """Strided slice: result element ``i`` along dim ``k`` is operand element
    ``start[k] + i * stride[k]`` (a negative stride walks backwards)."""

    name = "array.slice"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)

    def check(self) -> None:
        self.check_region(self.operands[0].type, self.result_type)

    def fold(self, constants):
        if self.operands[0].type == self.result_type and all(s == 1 for s in self.stride):
            return [self.operands[0]]
        arr = constant_array(constants[0])
        if arr is None:
            return None
        return [DenseAttr(arr[self.region_index(self.result_type.shape)], self.result_type)]


class PadOp(ArrayOp):
    """``pad(x, value)``: ``low[k]`` copies of the 0-d ``value`` before dim ``k``, ``high[k]`` after."""

    name = "array.pad"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)
    low = attr(tuple_of(int))
    high = attr(tuple_of(int))

    def check(self) -> None:
        (x, value), out = (v.type for v in self.operands), self.result_type
        low, high = self.low, self.high
        if not len(low) == len(high) == x.rank:
            self.fail("needs 'low' and 'high' with one entry per dim")
        if value.shape != () or value.element != x.element or out.element != x.element:
            self.fail("needs a 0-d padding value of the operand's element type")
        if any(v < 0 for v in (*low, *high)):
            self.fail("pads must be non-negative")
        if out.shape != tuple(lo + d + hi for lo, d, hi in zip(low, x.shape, high)):
            self.fail("result shape must be low + size + high in each dim")

    def fold(self, constants):
        arr, value = (constant_array(c) for c in constants)
        if arr is None or value is None or self.result_type.size > FOLD_LIMIT:
            return None
        widths = list(zip(self.low, self.high))
        return [DenseAttr(np.pad(arr, widths, constant_values=value[()]), self.result_type)]


class ConcatenateOp(ArrayOp):
    """The operands, one after another along ``axis``."""

    name = "array.concatenate"
    traits = frozenset({PURE})
    __slots__ = ()
    axis = attr(of(int))

    def check(self) -> None:
        if not self.operands or len(self.results) != 1:
            self.fail("needs at least one operand and one result")
        axis, out = self.axis, self.result_type
        if not 0 <= axis < out.rank:
            self.fail("needs an 'axis' within the result rank")
        total = 0
        for v in self.operands:
            t = v.type
            if t.element != out.element or t.rank != out.rank or any(
                d != o for k, (d, o) in enumerate(zip(t.shape, out.shape)) if k != axis
            ):
                self.fail(f"operand {t} does not fit {out} along axis {axis}")
            total += t.shape[axis]
        if total != out.shape[axis]:
            self.fail(f"operands add up to {total} along axis {axis}, the result has {out.shape[axis]}")

    def fold(self, constants):
        if len(self.operands) == 1:
            return [self.operands[0]]
        arrays = [constant_array(c) for c in constants]
        if any(a is None for a in arrays) or self.result_type.size > FOLD_LIMIT:
            return None
        return [DenseAttr(np.concatenate(arrays, axis=self.axis), self.result_type)]


class UpdateSliceOp(_StridedRegionOp):
    """``x`` with the strided slice ``start[k] + i * stride[k]`` replaced by ``update``
    (which has the slice's shape): NumPy's ``x[a:b:s] = update`` as a value."""

    name = "array.update_slice"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)

    def check(self) -> None:
        x, update = (v.type for v in self.operands)
        if self.result_type != x:
            self.fail("must return the type of the array it updates")
        self.check_region(x, update)

    def fold(self, constants):
        arr, update = (constant_array(c) for c in constants)
        if arr is None or update is None:
            return None
        out = arr.copy()
        out[self.region_index(update.shape)] = update
        return [DenseAttr(out, self.result_type)]
