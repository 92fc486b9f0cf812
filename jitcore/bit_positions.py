"""The kept positions of a bit test over ``np.arange(n)``, in closed form: no compaction.

``m = (idx >> q) & 1 == 0`` (or ``idx & (1 << q) == 0``, ``!= 0``, ``== 1``) over ``idx =
np.arange(n)`` keeps two blocks of ``2**q`` positions per period of ``2**(q+1)``: the k-th kept
position is ``k`` with a bit inserted at ``q`` (0 where the test keeps a clear bit, 1 where it
keeps a set one), and their count is arithmetic on ``n`` and ``q``. So ``idx[m]``, read by a
gather or written by a scatter (``compacted_indices``), needs no pass over the mask and no
buffer of positions: the positions, and any index computed elementwise from ``idx`` (``lo =
idx[m]``, ``hi = lo + (1 << q)``), are recomputed at each kept row inside the kernel that reads
or writes through them (``values_at``), a strided loop.

``q`` may be traced (a loop's counter, an argument). A bit past the positions' width (``q``
negative, or ``2**q >= n``) is clear at every position, as NumPy's shifts give it (``x >> q``
and ``1 << q`` are 0 for a count outside ``[0, bits)``): every position kept (none, for a set
bit), which the same formulas give with the bit moved to the first one above ``n``.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.ir.attributes import DenseAttr, numpy_dtype
from jitcore.ir.core import ELEMENTWISE, PURE, OpResult, Value
from jitcore.ir.dialects import array
from jitcore.tracer import Tracer

_I64 = np.dtype(np.int64)


def _op(v: Value, *names: str):
    op = v.op if isinstance(v, OpResult) else None
    return op if op is not None and op.op_name in names else None


def _constant_of(v: Value):
    """The value of an ``array.constant`` defining ``v`` (this module is loaded with jitcore:
    it reads constants itself rather than load the passes, ``passes.constants``)."""
    op = v.op if isinstance(v, OpResult) else None
    return op.attributes["value"] if isinstance(op, array.ConstantOp) else None


def _splat(v: Value):
    """The one integer ``v`` holds everywhere (through broadcasts), or None."""
    while (b := _op(v, "array.broadcast_in_dim")) is not None:
        v = b.operands[0]
    attr = _constant_of(v)
    if isinstance(attr, DenseAttr) and attr.is_splat and attr.array.dtype.kind in "iub":
        return int(attr.array.reshape(-1)[0])
    return None


def _scalar(v: Value) -> Value | None:
    """The 0-d value ``v`` broadcasts (``v`` itself where 0-d), or None."""
    while (b := _op(v, "array.broadcast_in_dim")) is not None and v.type.shape:
        v = b.operands[0]
    return v if not v.type.shape and v.type.element.is_integer else None


def _uniform(v: Value) -> bool:
    """Whether ``v`` holds one value at every position: a splat, or a 0-d value broadcast."""
    b = _op(v, "array.broadcast_in_dim")
    if b is not None and not b.operands[0].type.shape:
        return True
    attr = _constant_of(v)
    return not v.type.shape or (isinstance(attr, DenseAttr) and attr.is_splat)


def is_ramp(v: Value) -> bool:
    """Whether ``v`` is ``np.arange(len(v))`` of an integer dtype (a constant of it, or the
    ``array.iota`` a large one is traced as: ``position_tables``)."""
    iota = _op(v, "array.iota")
    if iota is not None:
        return len(v.type.shape) == 1 and v.type.element.is_integer
    attr = _constant_of(v)
    if (
        not isinstance(attr, DenseAttr)
        or attr.array.ndim != 1
        or attr.array.dtype.kind not in "iu"
        or attr.is_splat
        and attr.array.shape[0] > 1
    ):
        return False
    a = attr.array
    return a.shape[0] == 0 or (a[0] == 0 and a[-1] == a.shape[0] - 1 and bool(np.all(np.diff(a) == 1)))


class BitTest:
    """A 1-d mask that keeps the positions of ``ramp`` whose bit ``bit`` (0-d integer, traced
    or not) is ``keep_set``."""

    __slots__ = ("ramp", "bit", "keep_set")

    def __init__(self, ramp: Value, bit: Value, keep_set: bool):
        self.ramp, self.bit, self.keep_set = ramp, bit, keep_set


def _bit_value(v: Value) -> tuple[Value, Value] | None:
    """``(ramp, bit)`` where ``v`` is ``(ramp >> bit) & 1`` (either order of the ``&``)."""
    a = _op(v, "array.and")
    if a is None:
        return None
    for x, y in (a.operands, a.operands[::-1]):
        s = _op(x, "array.shr")
        if _splat(y) == 1 and s is not None and is_ramp(s.operands[0]):
            bit = _scalar(s.operands[1])
            if bit is not None:
                return s.operands[0], bit
    return None


def _bit_of_mask(v: Value) -> tuple[Value, Value] | None:
    """``(ramp, bit)`` where ``v`` is ``ramp & (1 << bit)`` (either order of either op)."""
    a = _op(v, "array.and")
    if a is None:
        return None
    for x, y in (a.operands, a.operands[::-1]):
        s = _scalar(y)
        shl = _op(s, "array.shl") if s is not None else None
        if is_ramp(x) and shl is not None and _splat(shl.operands[0]) == 1:
            return x, shl.operands[1]
    return None


def bit_test(mask: Tracer) -> BitTest | None:
    """``mask``'s form, where it is a test of one bit of ``np.arange(n)``: ``(idx >> q) & 1``
    compared (``==``, ``!=``) with 0 or 1, or ``idx & (1 << q)`` with 0."""
    if mask.ndim != 1:
        return None
    cmp = _op(mask.value, "array.eq", "array.ne")
    if cmp is None:
        return None
    equal = cmp.op_name == "array.eq"
    for x, y in (cmp.operands, cmp.operands[::-1]):
        c = _splat(y)
        if c is None:
            continue
        found = _bit_value(x)
        if found is not None and c in (0, 1):
            return BitTest(*found, keep_set=equal == (c == 1))
        found = _bit_of_mask(x)
        if found is not None and c == 0:
            return BitTest(*found, keep_set=not equal)
    return None


class KeptBits:
    """The kept positions of a ``BitTest`` over ``n`` positions: ``count`` (0-d int64) and
    ``position(k)``, the k-th one (for k past the count: positions past the last kept one)."""

    __slots__ = ("test", "count", "_bit", "_n", "_trace")

    def __init__(self, test: BitTest, trace):
        n = test.ramp.type.shape[0]
        self.test, self._n, self._trace = test, n, trace
        bit = prims.convert(Tracer(test.bit, trace), _I64)
        # a bit no position has (negative, or at or above the width n needs): the first above n
        width = max(n - 1, 1).bit_length()
        # (written so that its bounds, [0, width], are seen: positions then bound the indices)
        self._bit = np.where(bit < 0, width, np.clip(bit, 0, width))
        t = self._bit
        full = (n >> (t + 1)) << t  # whole periods' kept positions
        rest = n & ((2 << t) - 1)  # the last, partial period
        part = np.maximum(rest - (1 << t), 0) if test.keep_set else np.minimum(rest, 1 << t)
        self.count = prims.convert(full + part, _I64)

    def rows(self) -> Tracer:
        """The row numbers ``0 .. n - 1`` (int64): the ramp itself, a constant at every size
        (which fusion reads as the position, where ``data_length.positions`` is a scan above
        ``FOLD_LIMIT`` elements, a stored array)."""
        return prims.convert(Tracer(self.test.ramp, self._trace), _I64)

    def position(self, k: Tracer) -> Tracer:
        """The position of the k-th kept element: ``k`` with the bit inserted."""
        t = self._bit
        k = prims.convert(k, _I64)
        out = ((k >> t) << (t + 1)) | (k & ((1 << t) - 1))
        return out | (1 << t) if self.test.keep_set else out


def kept_bits(mask: Tracer) -> KeptBits | None:
    """``KeptBits`` of ``mask`` where it is a bit test over ``np.arange(n)`` (``bit_test``)."""
    trace = mask.owner_trace
    key = (id(mask.value), id(trace.builder.block))
    if key not in trace.kept_bits:
        test = bit_test(mask)
        trace.kept_bits[key] = (mask.value, KeptBits(test, trace) if test is not None else None)
    return trace.kept_bits[key][1]


def values_at(v: Tracer, ramp: Value, at: Tracer) -> Tracer | None:
    """``v[at]`` (``at`` 1-d) where ``v`` is computed elementwise from ``ramp`` (and 0-d
    values): the same ops on ``at`` in place of the ramp (``lo + (1 << q)`` at kept row k is
    the k-th position plus ``1 << q``), so the gather of ``v`` needs no array of it. None for
    any other ``v``."""
    if at.ndim != 1:
        return None
    trace = at.owner_trace
    mapping: dict[Value, Value] = {}
    if not _rebuild(v.value, ramp, at, trace, mapping, 16):
        return None
    return Tracer(mapping.get(v.value, v.value), trace, v.sources | at.sources)


def values_at_ramps(v: Tracer, ramps: dict[Value, Tracer]) -> Tracer | None:
    """``v`` at some of its elements, where ``v`` is computed elementwise from the position
    ramps ``ramps`` (and 0-d values): the same ops on each ramp's positions (1-d, one length
    for all, unlike the ramps') in its place. None for any other ``v``."""
    first, at = next(iter(ramps.items()))
    trace = at.owner_trace
    mapping = {r: prims.convert(p, numpy_dtype(r.type.element)).value for r, p in ramps.items()}
    if not _rebuild(v.value, first, at, trace, mapping, 16):
        return None
    return Tracer(mapping.get(v.value, v.value), trace, v.sources | at.sources)


def _rebuild(v: Value, ramp: Value, at: Tracer, trace, mapping: dict, depth: int) -> bool:
    """Add to ``mapping`` what ``v`` becomes with ``ramp`` replaced by ``at``; False where it
    cannot be (an op that moves elements, another array, a depth past ``depth``). Where
    ``at`` has the ramp's length, what does not depend on the ramp stays as it is."""
    if v in mapping:
        return True
    same = at.shape == tuple(ramp.type.shape)
    if v is ramp or (v.type == ramp.type and is_ramp(v)):
        mapping[v] = prims.convert(at, numpy_dtype(v.type.element)).value
        return True
    if _uniform(v):  # the same value at every position
        if not same:
            mapping[v] = prims.broadcast_to(_one_value(v, trace), at.shape).value
        return True
    op = v.op if isinstance(v, OpResult) else None
    if depth == 0 or op is None or not (op.has_trait(ELEMENTWISE) and op.has_trait(PURE)) or op.regions:
        return False
    if not all(_rebuild(u, ramp, at, trace, mapping, depth - 1) for u in op.operands):
        return False
    if same and any(u in mapping for u in op.operands):
        trace.builder.insert(op.clone(mapping))
    elif not same:
        new = type(op)([mapping[u] for u in op.operands], [v.type.with_shape(at.shape)], op.attributes)
        new.loc = op.loc
        mapping[v] = trace.builder.insert(new).results[0]
    return True


def _one_value(v: Value, trace) -> Tracer:
    """The one value ``v`` holds everywhere (``_uniform``), 0-d."""
    if not v.type.shape:
        return Tracer(v, trace)
    b = _op(v, "array.broadcast_in_dim")
    if b is not None and not b.operands[0].type.shape:
        return Tracer(b.operands[0], trace)
    attr = _constant_of(v)
    return prims.constant(trace, attr.array.reshape(-1)[0], numpy_dtype(v.type.element))
