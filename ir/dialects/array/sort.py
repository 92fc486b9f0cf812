"""Sorting in the ``array`` dialect: ``sort`` and ``argsort`` along one axis, and
``searchsorted`` (binary search in a sorted 1-d array); ``head_sort`` of the first ``count``
elements of a 1-d array (``count`` known when the function runs); ``partition``/``argpartition``
at constant ranks and ``partition_at`` at ranks per lane known when the function runs.

``array.sort {axis}`` returns the operand with each 1-d lane along ``axis`` in ascending order;
``array.argsort {axis}`` returns, in int64, the positions that order each lane. Both are
*stable* (equal elements keep their input order, so ``-0.0`` and ``0.0`` stay as given) and
order NaN after every number, as ``numpy.sort(kind='stable')`` does. Bool sorts False before
True; integers by value, unsigned ones as unsigned. Complex operands are not sorted here.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr
from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import FOLD_LIMIT, ArrayOp, constant_array
from jitcore.ir.opdef import attr, of, one_of, tuple_of
from jitcore.ir.types import TensorType, i64


class _SortFamily(ArrayOp):
    """One operand, one result of the operand's shape, and an ``axis`` of the operand."""

    __slots__ = ()
    traits = frozenset({PURE})
    arity = (1, 1)
    axis = attr(of(int))

    def check(self) -> None:
        src = self.operands[0].type
        if not 0 <= self.axis < src.rank:
            self.fail(f"needs an 'axis' in 0..{src.rank - 1} (the operand has rank {src.rank})")
        if src.element.is_complex:
            self.fail("cannot sort complex numbers")
        expected = self.expected_type()
        if self.result_type != expected:
            self.fail(f"must return {expected}")

    def fold(self, constants):
        arr = constant_array(constants[0])
        if arr is None or arr.size > FOLD_LIMIT:
            return None
        out = self.numpy(arr, axis=self.axis, kind="stable")
        return [DenseAttr(np.asarray(out, dtype=arr.dtype if self.numpy is np.sort else np.int64),
                          self.result_type)]


class SortOp(_SortFamily):
    """Each lane along ``axis`` in stable ascending order, NaN last."""

    name = "array.sort"
    __slots__ = ()
    numpy = staticmethod(np.sort)

    def expected_type(self) -> TensorType:
        return self.operands[0].type


class ArgSortOp(_SortFamily):
    """The int64 positions that put each lane along ``axis`` in stable ascending order."""

    name = "array.argsort"
    __slots__ = ()
    numpy = staticmethod(np.argsort)

    def expected_type(self) -> TensorType:
        return TensorType(self.operands[0].type.shape, i64)


class HeadSortOp(ArrayOp):
    """``array.head_sort`` of 1-d ``values`` and a 0-d int64 ``count`` (``0 <= count <=
    len(values)``, known when the function runs): the first ``count`` elements in stable
    ascending order, NaN last, as ``array.sort`` of ``values[:count]``; the elements from
    ``count`` on are unspecified (only ``result[:count]`` may be read). The sort of a
    compacted selection (``jitcore/run_length.py``) over its kept count, not its capacity."""

    name = "array.head_sort"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)

    def check(self) -> None:
        values, count = (v.type for v in self.operands)
        if values.rank != 1 or values.element.is_complex:
            self.fail("needs 1-d real values")
        if count != TensorType((), i64):
            self.fail("needs a 0-d i64 count")
        if self.result_type != values:
            self.fail(f"must return {values}")

    def fold(self, constants):
        arr, count = constant_array(constants[0]), constant_array(constants[1])
        if arr is None or count is None or arr.size > FOLD_LIMIT:
            return None
        k = int(count)
        out = np.concatenate([np.sort(arr[:k], kind="stable"), arr[k:]])
        return [DenseAttr(out.astype(arr.dtype), self.result_type)]


class _PartitionFamily(_SortFamily):
    """A sort that only promises ranks ``kth`` (ascending, distinct, each in ``0..n-1``): each
    lane's element at a rank is the one sorting puts there, those before it sort before or
    with it and those after it after or with it (``numpy.partition``'s contract); the others'
    order is unspecified. The full stable sort meets it, and is what folding and the kernel's
    loops give; the CPU backend selects instead (``codegen/cpu/sort_select.py``)."""

    __slots__ = ()
    kth = attr(tuple_of(int))

    def check(self) -> None:
        super().check()
        n = self.operands[0].type.shape[self.axis]
        kth = self.kth
        if list(kth) != sorted(set(kth)) or any(not 0 <= k < n for k in kth):
            self.fail(f"needs ascending distinct ranks 'kth' in 0..{n - 1}")


class PartitionOp(_PartitionFamily):
    """``numpy.partition``'s contract at ranks ``kth`` along ``axis`` (NaN last)."""

    name = "array.partition"
    __slots__ = ()
    numpy = staticmethod(np.sort)

    def expected_type(self) -> TensorType:
        return self.operands[0].type


class ArgPartitionOp(_PartitionFamily):
    """The int64 positions that partition each lane at ranks ``kth`` (``numpy.argpartition``)."""

    name = "array.argpartition"
    __slots__ = ()
    numpy = staticmethod(np.argsort)

    def expected_type(self) -> TensorType:
        return TensorType(self.operands[0].type.shape, i64)


class PartitionAtOp(ArrayOp):
    """``array.partition_at {axis}`` of ``x`` and int64 ``ranks`` (``x``'s shape without
    ``axis``, then one more dim of K): each lane of ``x`` along ``axis`` partitioned at each of
    its own K ranks, values known only when the function runs (a rank outside ``0..n-1`` asks
    for nothing; ranks may repeat and come in any order), NaN last: the order statistics of
    per-lane counts (``nanmedian``, ``nanquantile``) and of a traced ``q``. The full stable sort
    meets it, and is what folding and the kernel's loops give; the CPU backend selects."""

    name = "array.partition_at"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)
    axis = attr(of(int))

    def check(self) -> None:
        x, ranks = (v.type for v in self.operands)
        if not 0 <= self.axis < x.rank:
            self.fail(f"needs an 'axis' in 0..{x.rank - 1} (the operand has rank {x.rank})")
        if x.element.is_complex:
            self.fail("cannot sort complex numbers")
        outer = tuple(d for k, d in enumerate(x.shape) if k != self.axis)
        if ranks.element != i64 or ranks.rank != x.rank or ranks.shape[:-1] != outer:
            self.fail(f"needs int64 ranks of shape {outer} followed by the ranks' count")
        if self.result_type != x:
            self.fail(f"must return {x}")

    def fold(self, constants):
        arr = constant_array(constants[0])
        if arr is None or arr.size > FOLD_LIMIT:
            return None
        return [DenseAttr(np.sort(arr, axis=self.axis, kind="stable"), self.result_type)]


class SearchSortedOp(ArrayOp):
    """``array.searchsorted {side}`` of a sorted 1-d ``a`` and values ``v`` (one dtype): per
    value, the int64 number of elements of ``a`` before it (``left``: those that sort before
    it; ``right``: those that do not sort after it), in the sort's order (NaN last), as
    ``numpy.searchsorted``."""

    name = "array.searchsorted"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)
    side = attr(one_of(("left", "right")))

    def check(self) -> None:
        a, v = (x.type for x in self.operands)
        if a.rank != 1 or a.element != v.element or a.element.is_complex:
            self.fail("needs a 1-d sorted operand and values of its (real) element type")
        if self.result_type != TensorType(v.shape, i64):
            self.fail(f"must return {TensorType(v.shape, i64)}")
