"""A masked selection's kept rows packed to the front of a buffer (``array.compact``) and
summed in NumPy's order (``array.head_sum``; a window of rows: ``array.window_sum``): what a
returned selection (``data_length``) and a float reduction of one (``masked``) are computed
from. Apart from both, which build on ``masked.MaskedSelection``, so that neither imports the
other."""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.bit_positions import values_at, values_at_ramps
from jitcore.ir.core import ELEMENTWISE, OpResult, Value
from jitcore.ir.dialects.array import CompactOp, HeadRowsOp, HeadSumOp, ScanOp, WindowSumOp
from jitcore.ir.types import TensorType, i64
from jitcore.tracer import Tracer, as_scalar

ROWS = "rows"


def compaction(selection) -> tuple[Tracer, Tracer]:
    """The buffer of ``selection``'s rows, the kept ones first in C order, and their count (0-d
    int64): ``values[mask]`` is ``buffer[:count]``."""
    values, mask = selection.values, selection.mask
    if selection.length is not None:  # compacted already (run_length.Prefix)
        return values, selection.length
    if selection.at in (None, 0) and mask.ndim == 1 == values.ndim:
        ramp = position_ramp(values.value)
        if ramp is not None:  # (``np.flatnonzero(m) + 1``: the positions alone compacted)
            at, count = kept_positions(mask)
            recomputed = values_at(values, ramp, at)
            if recomputed is not None:
                return bounded(recomputed, count), count
    trace = values.owner_trace
    k = mask.ndim
    n = int(np.prod(values.shape[:k], dtype=np.int64))
    kept = prims.reshape(prims.broadcast_to(mask, values.shape[:k]), (n,))
    count = _count(kept, n)
    at = selection.at  # (data_length.Positions: which indices; None: the values)
    nd_values = at is None and k > 1 and values.shape == mask.shape
    ramps = _axis_ramps(values.value, mask.shape) if nd_values else {}
    if ramps:
        # values computed from the positions along the mask's axes (``np.nonzero(m)[0] * dt``):
        # the flat positions compacted, the values recomputed from them over the count alone
        # (where compacting the values computed them at every position of the mask)
        flat = prims._emit(trace, CompactOp, [kept, count], TensorType((n,), i64))
        recomputed = values_at_ramps(values, {r: _unravel(flat, mask.shape, d) for r, d in ramps.items()})
        if recomputed is not None:
            return bounded(recomputed, count), count
    if at is None:
        rows = prims.reshape(values, (n, *values.shape[k:]))
        return prims._emit(trace, CompactOp, [kept, count, rows], rows.value.type), count
    flat = prims._emit(trace, CompactOp, [kept, count], TensorType((n,), i64))
    dims = range(k) if at == ROWS else (at,)
    indices = [_unravel(flat, mask.shape, d) for d in dims]
    result = np.stack(indices, axis=-1) if at == ROWS else indices[0]
    # the index arithmetic runs over the count alone, not the mask's size (array.head_rows)
    return bounded(prims.convert(result, values.dtype), count), count


def kept_positions(mask: Tracer) -> tuple[Tracer, Tracer]:
    """The positions where the 1-d ``mask`` holds, first in a buffer of its length (int64),
    and their count (``np.flatnonzero``'s compaction: only the first ``count`` rows are
    written, the rest unspecified)."""
    count = _count(mask, mask.shape[0])
    return prims._emit(mask.owner_trace, CompactOp, [mask, count], TensorType(mask.shape, i64)), count


def bounded(values: Tracer, length: Tracer) -> Tracer:
    """``values`` with the rows from ``length`` on unspecified (``array.head_rows``): the
    kernel that computes them, and what fusion puts in it, runs over ``length`` rows only, so
    the ops on a compacted selection cost its count, as NumPy's, not its capacity."""
    return prims._emit(values.owner_trace, HeadRowsOp, [values, length], values.value.type)


def bounded_scan(values: Tracer, length: Tracer) -> Tracer:
    """``values``, a running total along axis 0 just traced (``array.scan``), run over the
    first ``length`` rows only (its ``count``; sorts55: a Kaplan-Meier ``np.cumprod`` of the
    unique times' terms ran over the buffer's 10^5 rows for 2,000 kept); anything else as it
    is. The scan without the count is left to dead-code elimination."""
    scan = _op(values.value, "array.scan")
    if scan is None or scan.attributes["axis"] != 0 or len(scan.operands) != 1 or length.ndim != 0:
        return values
    count = prims.convert(length, np.dtype(np.int64))
    x = Tracer(scan.operands[0], values.owner_trace, values.sources)
    return prims._emit(values.owner_trace, ScanOp, [x, count], values.value.type,
                       {"kind": scan.attributes["kind"], "axis": 0})


def is_positions(v: Value) -> bool:
    """Whether ``v`` is ``data_length.positions`` of a 1-d shape: ``cumsum(ones) - 1``."""
    sub = _op(v, "array.sub")
    if sub is None or v.type.rank != 1 or not _splat_one(sub.operands[1]):
        return False
    scan = _op(sub.operands[0], "array.scan")
    return scan is not None and scan.attributes.get("kind") == "sum" and _splat_one(scan.operands[0])


def position_ramp(v: Value, depth: int = 16) -> Value | None:
    """The ``data_length.positions`` ramp that ``v`` is computed from through elementwise ops
    (the first found), or None: ``values_at`` then recomputes ``v`` at given positions."""
    if is_positions(v):
        return v
    op = v.op if isinstance(v, OpResult) else None
    if depth == 0 or op is None or not op.has_trait(ELEMENTWISE) or op.regions:
        return None
    for u in op.operands:
        found = position_ramp(u, depth - 1)
        if found is not None:
            return found
    return None


def _ramp_axis(v: Value) -> int | None:
    """The axis ``d`` where ``v`` is ``data_length.positions`` along it (``cumsum(ones, d) -
    1``: each element's index along ``d``; or ``array.iota``), or None."""
    iota = _op(v, "array.iota")
    if iota is not None:
        return iota.attributes["dimension"] if v.type.element.name == "i64" else None
    sub = _op(v, "array.sub")
    if sub is None or not _splat_one(sub.operands[1]):
        return None
    scan = _op(sub.operands[0], "array.scan")
    if scan is None or scan.attributes.get("kind") != "sum" or not _splat_one(scan.operands[0]):
        return None
    return scan.attributes.get("axis")


def _axis_ramps(v: Value, shape: tuple[int, ...], depth: int = 16) -> dict[Value, int]:
    """The position ramps of ``shape`` (``_ramp_axis``) that ``v`` is computed from through
    elementwise ops, each with its axis; empty where there is none."""
    found: dict[Value, int] = {}

    def walk(u: Value, depth: int) -> None:
        axis = _ramp_axis(u) if tuple(u.type.shape) == shape else None
        if axis is not None:
            found[u] = axis
            return
        op = u.op if isinstance(u, OpResult) else None
        if depth and op is not None and op.has_trait(ELEMENTWISE) and not op.regions:
            for w in op.operands:
                walk(w, depth - 1)

    walk(v, depth)
    return found


def _op(v: Value, name: str):
    op = v.op if isinstance(v, OpResult) else None
    return op if op is not None and op.op_name == name else None


def _splat_one(v: Value) -> bool:
    """Whether ``v`` is a constant 1 broadcast."""
    b = _op(v, "array.broadcast_in_dim")
    c = _op(b.operands[0], "array.constant") if b is not None else None
    value = c.attributes["value"] if c is not None else None
    return value is not None and value.is_splat and value.array.reshape(-1)[0] == 1


def kept_terms(selection) -> tuple[Tracer, Tracer]:
    """The selected elements, flat and first in C order (``selection``'s compaction), and how
    many there are (0-d int64): ``x[m].ravel()`` is ``terms[:count]``."""
    buffer, count = compaction(selection)
    row = int(np.prod(buffer.shape[1:], dtype=np.int64))
    flat = prims.reshape(buffer, (int(np.prod(buffer.shape, dtype=np.int64)),))
    return flat, count * row if row != 1 else count


def head_sum(terms: Tracer, count: Tracer) -> Tracer:
    """``terms[:count].sum()`` of float32 or float64 ``terms``, in NumPy's pairwise order over
    ``count`` (``array.head_sum``): the bits NumPy gives the compacted selection."""
    result = TensorType((), terms.value.type.element)
    return as_scalar(prims._emit(terms.owner_trace, HeadSumOp, [terms, count], result))


def window_sum(values: Tracer, start: Tracer, end: Tracer) -> Tracer:
    """NumPy's pairwise sum of ``values[start:end]`` (float32, float64 or integers; ``start``
    and ``end`` traced ints, clipped to the first dim) along the first dim, ``-0.0`` (0) for no
    terms (``array.window_sum``): what ``np.add.reduceat`` adds to a piece's first element."""
    bound = [prims.convert(v, np.dtype(np.int64)) for v in (start, end)]
    result = TensorType(values.shape[1:], values.value.type.element)
    return as_scalar(prims._emit(values.owner_trace, WindowSumOp, [values, *bound], result))


def _count(kept: Tracer, n: int) -> Tracer:
    """How many of the ``n`` bools ``kept`` hold (0-d int64), summed in int32 where ``n`` fits:
    16 lanes a vector where int64 has 8, half the time at 10^5 and 10^6 (maskedsum48)."""
    if n >= 2**31:
        return prims.reduction("sum", kept, None, False, np.int64)
    return prims.convert(prims.reduction("sum", kept, None, False, np.int32), np.dtype(np.int64))


def _unravel(flat: Tracer, shape: tuple[int, ...], dim: int) -> Tracer:
    """The index along ``dim`` of each C-order flat position in ``flat`` of an array of ``shape``."""
    inner = int(np.prod(shape[dim + 1:], dtype=np.int64))
    index = flat // inner if inner != 1 else flat
    return index % shape[dim] if dim > 0 else index
