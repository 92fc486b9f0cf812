"""Indexing ops of the ``array`` dialect: ``gather`` (NumPy's ``take`` along one axis),
``gather_nd`` and ``scatter_nd`` (advanced indexing by several integer arrays, its write and
``np.ufunc.at``), and ``diagonal`` (a strided read).

Negative indices count from the end; an index outside ``[-n, n)`` makes the compiled function
raise ``IndexError`` after the call, as NumPy does, instead of reading out of bounds.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr
from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import ArrayOp, constant_array
from jitcore.ir.opdef import attr, of, one_of, tuple_of
from jitcore.ir.types import TensorType, i64


class GatherOp(ArrayOp):
    """``take(x, indices, axis)``: result shape is
    ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]``."""

    name = "array.gather"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)
    axis = attr(of(int))

    def check(self) -> None:
        x, indices = (v.type for v in self.operands)
        axis = self.axis
        if not 0 <= axis < x.rank:
            self.fail("needs an 'axis' within the operand's rank")
        if indices.element != i64:
            self.fail("needs i64 indices")
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        if self.result_type != x.with_shape(shape):
            self.fail(f"must return {x.with_shape(shape)}")

    def fold(self, constants):
        x, indices = (constant_array(c) for c in constants)
        if x is None or indices is None:
            return None
        n = x.shape[self.axis]
        if indices.size and (indices.min() < -n or indices.max() >= n):
            return None  # NumPy raises: leave it to run time, which raises IndexError too
        return [DenseAttr(np.take(x, indices, axis=self.axis), self.result_type)]


def _index_shape(op, indices) -> tuple[int, ...] | None:
    """The broadcast shape of the index operands (one rank; each dim 1 or the common size)."""
    if any(t.element != i64 or t.rank != indices[0].rank for t in indices):
        op.fail("needs i64 index operands of one rank")
    try:
        return tuple(np.broadcast_shapes(*(t.shape for t in indices)))
    except ValueError:
        op.fail("needs index operands whose shapes broadcast")


def gather_nd_shape(x_shape, axes, index_shape, position: int) -> tuple[int, ...]:
    """``x_shape`` without ``axes``, with ``index_shape`` inserted at ``position``."""
    rest = [d for a, d in enumerate(x_shape) if a not in axes]
    return tuple(rest[:position]) + tuple(index_shape) + tuple(rest[position:])


def numpy_gather_nd(x: np.ndarray, indices, axes, position: int) -> np.ndarray:
    """The reference meaning of ``array.gather_nd`` (and of its scatter), in NumPy."""
    rest = [a for a in range(x.ndim) if a not in axes]
    out = np.transpose(x, (*axes, *rest))[tuple(indices)]
    b = out.ndim - len(rest)
    return np.moveaxis(out, tuple(range(b)), tuple(range(position, position + b)))


class _IndexedNdOp(ArrayOp):
    """What gather_nd and scatter_nd share: index arrays for the dims ``axes`` of ``x``, whose
    broadcast shape B sits at ``position`` among the other dims of ``x``."""

    __slots__ = ()
    axes = attr(tuple_of(int))
    position = attr(of(int))

    def indexed_type(self, x: TensorType, index_types: list) -> TensorType:
        """The type of ``x`` indexed by arrays of ``index_types``, checking the attributes."""
        axes, count = self.axes, len(index_types)
        if len(axes) != count or len(set(axes)) != count or any(not 0 <= a < x.rank for a in axes):
            self.fail(f"needs 'axes': {count} distinct dims of the operand")
        b = _index_shape(self, index_types)
        position = self.position
        if not 0 <= position <= x.rank - len(axes):
            self.fail("needs a 'position' within the rank of the result's other dims")
        return x.with_shape(gather_nd_shape(x.shape, self.axes, b, position))


class GatherNdOp(_IndexedNdOp):
    """NumPy's advanced indexing by several integer arrays at once: operand 0 is ``x``, the
    others one i64 index array each (one rank, broadcasting against each other to the index
    shape B), for the dims ``axes`` of ``x``. The result is ``x`` without those dims, with B
    inserted at ``position``: ``out[r..., b..., s...] = x[..., idx_k[b], ...]``. Negative
    indices count from the end; an index out of range raises ``IndexError`` after the call."""

    name = "array.gather_nd"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) < 2 or len(self.results) != 1:
            self.fail("needs an operand, at least one index array and one result")
        expected = self.indexed_type(self.operands[0].type, [v.type for v in self.operands[1:]])
        if self.result_type != expected:
            self.fail(f"must return {expected}")

    def fold(self, constants):
        arrays = [constant_array(c) for c in constants]
        if any(a is None for a in arrays):
            return None
        x, indices = arrays[0], arrays[1:]
        for a, idx in zip(self.axes, indices):
            n = x.shape[a]
            if idx.size and (idx.min() < -n or idx.max() >= n):
                return None  # NumPy raises: leave it to run time, which raises IndexError too
        return [DenseAttr(numpy_gather_nd(x, indices, self.axes, self.position), self.result_type)]


SCATTER_MODES = ("set", "add", "sub", "mul", "max", "min", "and", "or", "xor")


class ScatterNdOp(_IndexedNdOp):
    """The write of ``x[indices] = updates`` (``mode`` "set": in order, the last write to an
    element wins) or ``np.<ufunc>.at(x, indices, updates)`` (``mode`` "add", "sub", "mul",
    "max", "min", "and", "or", "xor": each update combines with the element in turn, as
    ``np.ufunc.at`` applies every occurrence of a repeated index, unbuffered): operand 0 is
    ``x``, operand 1 ``updates`` of the shape ``array.gather_nd``
    with the same ``axes`` and ``position`` would return, the others the index arrays. The
    result is the updated copy of ``x``."""

    name = "array.scatter_nd"
    traits = frozenset({PURE})
    __slots__ = ()
    mode = attr(one_of(SCATTER_MODES))

    def check(self) -> None:
        if len(self.operands) < 3 or len(self.results) != 1:
            self.fail("needs an operand, updates, at least one index array and one result")
        x, updates = self.operands[0].type, self.operands[1].type
        expected = self.indexed_type(x, [v.type for v in self.operands[2:]])
        if updates != expected:
            self.fail(f"needs updates of type {expected}")
        if self.result_type != x:
            self.fail(f"must return {x}")


class DiagonalOp(ArrayOp):
    """A diagonal: ``dims[k]`` is the result dim that dim ``k`` of the operand follows, and
    operand dims that follow the same result dim are read at one position:
    ``dims = (0, 0, 1)`` gives ``out[i, j] = x[i, i, j]`` (einsum's ``'iij->ij'``). A strided
    read, so its kernel form is one indexing map."""

    name = "array.diagonal"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)
    dims = attr(tuple_of(int))

    def check(self) -> None:
        x = self.operands[0].type
        dims = self.dims
        if len(dims) != x.rank:
            self.fail("needs 'dims': one result dim per operand dim")
        rank = max(dims, default=-1) + 1
        if sorted(set(dims)) != list(range(rank)):
            self.fail("needs 'dims' that use every result dim from 0 up")
        shape = []
        for k in range(rank):
            sizes = {s for s, d in zip(x.shape, dims) if d == k}
            if len(sizes) != 1:
                self.fail(f"needs operand dims of one size for result dim {k}")
            shape.append(sizes.pop())
        if self.result_type != x.with_shape(shape):
            self.fail(f"must return {x.with_shape(shape)}")

    def fold(self, constants):
        x = constant_array(constants[0])
        if x is None:
            return None
        letters = "".join(chr(ord("a") + d) for d in self.dims)
        out = "".join(chr(ord("a") + d) for d in range(self.result_type.rank))
        return [DenseAttr(np.einsum(f"{letters}->{out}", x).copy(), self.result_type)]


class CompactOp(ArrayOp):
    """The rows where ``keep`` holds, moved to the front in order (a stable compaction, as
    ``x[mask]`` of a 1-d mask over the leading dim): operand 0 is ``keep`` (1-d bool of n),
    operand 1 ``count``, how many it holds (0-d int64: the code picks its loop by it), the
    optional operand 2 ``values`` (n rows, of any rank). The result has ``values``' type, or
    with no ``values`` is the n int64 positions of the kept rows (``np.flatnonzero``). Its
    first ``count`` rows are the kept ones; what follows them is unspecified, so only
    ``result[:count]`` may be read (``jitcore/data_length.py``)."""

    name = "array.compact"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) not in (2, 3) or len(self.results) != 1:
            self.fail("needs a mask, its count, optional values and one result")
        keep, count = self.operands[0].type, self.operands[1].type
        if keep.rank != 1 or not keep.element.is_bool:
            self.fail("needs a 1-d bool mask")
        if count != TensorType((), i64):
            self.fail("needs a 0-d i64 count of the mask")
        values = self.operands[2].type if len(self.operands) == 3 else TensorType(keep.shape, i64)
        if values.rank == 0 or values.shape[0] != keep.shape[0]:
            self.fail(f"needs values with {keep.shape[0]} rows, as many as the mask")
        if self.result_type != values:
            self.fail(f"must return {values}")


class HeadSumOp(ArrayOp):
    """The sum of the first ``count`` elements of ``values`` (1-d float32 or float64), in
    NumPy's pairwise order over those ``count``: ``values[:count].sum()``. ``count`` (0-d
    int64, at most the length) is known only at run time, as after ``array.compact``, whose
    first ``count`` rows are ``x[mask]`` (what follows them is never read)."""

    name = "array.head_sum"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) != 2 or len(self.results) != 1:
            self.fail("needs values, a count and one result")
        values, count = self.operands[0].type, self.operands[1].type
        if values.rank != 1 or values.element.name not in ("f32", "f64"):
            self.fail("needs 1-d float32 or float64 values")
        if count != TensorType((), i64):
            self.fail("needs a 0-d i64 count")
        if self.result_type != TensorType((), values.element):
            self.fail(f"must return {TensorType((), values.element)}")


class WindowSumOp(ArrayOp):
    """NumPy's pairwise sum (``pairwise_sum``, the order ``np.add.reduce`` sums a float row in)
    of ``values[start:end]`` along the first dim of float32 or float64 ``values``, one per
    position of the others: its shape without the first dim. ``start`` and ``end`` (0-d int64)
    are known only at run time and clipped to the dim; a window of no terms sums to ``-0.0``
    (NumPy's short sums start there), so ``first + window`` is ``np.add.reduceat``'s piece, bit
    for bit, signed zeros included. Integer ``values`` are summed in any order (wrapping adds
    give one value), an empty window to 0. Nothing outside the window is read."""

    name = "array.window_sum"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) != 3 or len(self.results) != 1:
            self.fail("needs values, a start, an end and one result")
        values, start, end = (v.type for v in self.operands)
        if values.rank == 0 or not (values.element.name in ("f32", "f64") or values.element.is_integer):
            self.fail("needs float32, float64 or integer values of rank 1 or more")
        if start != TensorType((), i64) or end != TensorType((), i64):
            self.fail("needs a 0-d i64 start and end")
        if self.result_type != TensorType(values.shape[1:], values.element):
            self.fail(f"must return {TensorType(values.shape[1:], values.element)}")


class HeadGatherOp(ArrayOp):
    """``x[indices[j]]`` along axis 0 for the first ``count`` rows ``j`` of ``indices`` (1-d
    int64 positions in ``[0, len(x))`` at every row, the caller clips them): the gather of a
    compacted index array (``jitcore/run_length.py``), whose rows from ``count`` on are
    unspecified. Its kernel runs over ``count`` rows only (``kernel.generic``'s ``head``);
    a target that runs them all reads in range and gives the same first ``count`` rows."""

    name = "array.head_gather"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) != 3 or len(self.results) != 1:
            self.fail("needs values, positions, a count and one result")
        x, idx, count = (v.type for v in self.operands)
        if x.rank == 0 or idx.rank != 1 or idx.element != i64 or count != TensorType((), i64):
            self.fail("needs values of rank 1 or more, 1-d i64 positions and a 0-d i64 count")
        if self.result_type != x.with_shape((idx.shape[0], *x.shape[1:])):
            self.fail("must return a row of values per position")


class HeadScatterOp(ArrayOp):
    """``x`` after ``x[indices[j]] = updates[j]`` in order for the first ``count`` rows ``j``
    (``indices`` 1-d int64 positions in ``[0, len(x))``). The caller makes every row from
    ``count`` on repeat the write of row ``count - 1`` (with ``count`` 0, write ``x[0]`` back),
    so a target may run all the rows; the kernel runs over ``count`` only (``head``)."""

    name = "array.head_scatter"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) != 4 or len(self.results) != 1:
            self.fail("needs values, updates, positions, a count and one result")
        x, updates, idx, count = (v.type for v in self.operands)
        if idx.rank != 1 or idx.element != i64 or count != TensorType((), i64):
            self.fail("needs 1-d i64 positions and a 0-d i64 count")
        if x.rank == 0 or updates != x.with_shape((idx.shape[0], *x.shape[1:])):
            self.fail("needs a row of updates per position")
        if self.result_type != x:
            self.fail(f"must return {x}")


class HeadRowsOp(ArrayOp):
    """``values`` with the rows from ``count`` (0-d i64) on unspecified: the rows of a
    compacted selection computed from gathers through its indices (``U * psi[lo]``), which
    are computed over the count only (its kernel's ``head``; a producer fused into it too)."""

    name = "array.head_rows"
    traits = frozenset({PURE})
    __slots__ = ()

    def check(self) -> None:
        if len(self.operands) != 2 or len(self.results) != 1:
            self.fail("needs values, a count and one result")
        values, count = (v.type for v in self.operands)
        if values.rank == 0 or count != TensorType((), i64) or self.result_type != values:
            self.fail("needs values of rank 1 or more and a 0-d i64 count, and returns the values")
