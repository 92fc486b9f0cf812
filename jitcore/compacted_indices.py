"""Gathers and scatters through an index array selected by a mask, over the kept count only.

``lo = idx[m]`` (or ``np.nonzero(m)[0]``, ``np.flatnonzero(m)``) is a ``MaskedSelection``:
every position of ``idx``, with the mask. ``x[lo]`` in that form gathers at all of them (the
dropped ones at 0), and ``x[lo] = v`` writes at all of them (a dropped one repeating the last
kept write, ``indexing._write_by_selection``): work over the capacity, where NumPy's works over
the count. Here the index array is compacted once (``run_length.as_prefix``: the kept indices
first, their count a run-time value), checked and wrapped before (under the mask, where the
bounds of ``idx & s == 0`` decide the check away), and the gather or scatter runs over the
count alone: ``array.head_gather`` / ``array.head_scatter``, whose kernels' dim 0 is bounded by
the count (``kernel.HEAD``, as a window update's loop is by its bounds). The gather is a
``run_length.Prefix`` (the arithmetic on it is bounded by the count too, through
``array.head_rows``, as on every prefix), so its rows pair one for one with the other gathers through the same
compacted positions, and a scatter of them writes them as they are.

Which form: ``compacts`` (the measured rule, docs/performance.md "Index arrays compacted at
run-time length (gate51)").
"""

from __future__ import annotations

import numpy as np

from jitcore import indexing, masked
from jitcore import primitives as prims
from jitcore.bit_positions import kept_bits, values_at
from jitcore.compaction import kept_positions, position_ramp
from jitcore.data_length import positions
from jitcore.ir.dialects.array import HeadGatherOp, HeadScatterOp
from jitcore.ir.dialects.kernel import INDEX_OUT_OF_BOUNDS
from jitcore.masked import MaskedSelection
from jitcore.run_length import Prefix, _plain, as_prefix
from jitcore.tracer import user_location

_I64 = np.dtype(np.int64)

# Index arrays of fewer positions keep the masked form (chosen, not measured: below it the
# kernels' calls, not their passes, are the time; it is gather51's HOISTED_CHECK_MIN / 4).
COMPACT_MIN = 1 << 12


# A scatter of more positions keeps the masked form: measured at 10^7 positions (80 MB of
# int64 indices, half kept) the compaction's passes cost more than the writes they save (135
# ms against 113), at 3 * 10^6 less (19-21 ms against 25-38). Gathers compact at every size.
SCATTER_COMPACT_MAX = 1 << 22


def compacts(x, sel, write: bool = False) -> bool:
    """Whether ``x[sel]`` / ``x[sel] = v`` runs through ``sel`` compacted: a 1-d selection of
    one index array (a plain one, or a ``Prefix`` already) of at least ``COMPACT_MIN``
    positions (a scatter: at most ``SCATTER_COMPACT_MAX``), into the first dim of ``x``. One
    compaction (a pass over the mask) is then shared by every gather and scatter through it
    (CSE), each of which runs over the count instead of the capacity."""
    return (isinstance(sel, MaskedSelection) and _plain(sel) and sel.values.ndim == 1
            and sel.mask.ndim == 1 and sel.values.dtype.kind in "iu" and x.ndim >= 1
            and x.shape[0] > 0 and (isinstance(sel, Prefix) or sel.values.shape[0] >= COMPACT_MIN)
            and not (write and sel.values.shape[0] > SCATTER_COMPACT_MAX))


def _positions(x, sel) -> Prefix:
    """``sel``'s kept indices into dim 0 of ``x``, checked (NumPy's IndexError for the first
    kept one out of range) and wrapped, at the kept positions compacted: the compaction writes
    the positions alone (one per mask, shared by every index array selected by it, ``lo`` and
    ``lo + s``), and the index is read there inside the gather or scatter. Clipped: the rows
    past the count are unspecified, and a target may read there."""
    length, mask, read = _indices(x, sel)
    return Prefix(read(None), length, mask)


def _indices(x, sel) -> tuple:
    """``(count, mask, read)``: ``read(rows)`` gives ``_positions``' indices at ``rows`` (None:
    every row; a row outside ``[0, capacity)`` reads some index in range). Where the kept
    positions have a closed form (``bit_positions``: a bit test over ``np.arange``), each
    row's index is computed where it is read, from the row number, with no compaction and no
    buffer of indices; otherwise the positions are compacted and read at ``rows``."""
    n = x.shape[0]
    idx = prims.convert(sel.values, _I64)
    wrapped = np.where(idx < 0, idx + n, idx)
    cap = sel.values.shape[0]
    bits = None if isinstance(sel, Prefix) else kept_bits(sel.mask)
    ramp = position_ramp(idx.value) if idx.ndim == 1 and not isinstance(sel, Prefix) else None
    if isinstance(sel, Prefix):
        raise_first_kept(indexing._out_of_range(idx, n), idx, sel.length, (0, n))
    elif bits is None or not _checked_closed(sel, idx, bits, n):
        if ramp is None or not _checked_from_positions(sel, idx, ramp, n):
            prims.RAISE_AT_FIRST(sel.mask & indexing._out_of_range(idx, n), idx, INDEX_OUT_OF_BOUNDS, (0, n))
    if bits is not None:
        def closed(rows):
            k = rows if rows is not None else bits.rows()
            at = bits.position(k)  # (past the count, maybe past the capacity: clipped below)
            out = values_at(wrapped, bits.test.ramp, at)
            if out is None:
                out = np.take(wrapped, np.clip(at, 0, cap - 1), mode="clip")
            return np.clip(out, 0, n - 1)
        return bits.count, None, closed
    if isinstance(sel, Prefix):
        length, mask = sel.length, sel.mask
    else:
        at, length = kept_positions(sel.mask)
        recomputed = values_at(wrapped, ramp, at) if ramp is not None else None
        # (``np.flatnonzero(m) + 1``: computed from each kept position where it is read)
        wrapped = np.take(wrapped, np.clip(at, 0, cap - 1), mode="clip") if recomputed is None else recomputed
        mask = None
    wrapped = np.clip(wrapped, 0, n - 1)
    return length, mask, lambda rows: wrapped if rows is None else np.take(wrapped, rows, mode="clip")


def raise_first_kept(bad, idx, length, words) -> None:
    """NumPy's IndexError for the first of the first ``length`` rows of ``idx`` (1-d, a
    compacted selection's) where ``bad`` holds: its row is the least ``j < length`` with
    ``bad``, a min whose terms past ``length`` are its start (``codegen/masked_rows.py`` runs
    it over ``[0, length)`` alone: nothing past the count is computed or read)."""
    trace, cap = idx.owner_trace, idx.shape[0]
    if cap == 0:
        return
    never = prims.constant(trace, np.int64(np.iinfo(np.int64).max))
    j = positions(trace, (cap,), 0)
    row = np.min(np.where(j < length, np.where(bad, j, never), never))
    first = row < length
    value = np.take(idx, np.reshape(np.minimum(row, cap - 1), (1,)))[0]
    prims.refuse_caught(trace, IndexError, [first], f"a check at {user_location()} may raise IndexError",
                        "Test the value first")
    prims.raise_if(first, INDEX_OUT_OF_BOUNDS, (value, *words))


def _checked_from_positions(sel, idx, ramp, n: int) -> bool:
    """NumPy's IndexError for the first kept index out of range, where the indices are computed
    elementwise from each element's position (``np.flatnonzero(m) + 1``): the argmax computes
    the test where it reads it, and the index is recomputed at the first bad row, so no array
    of every position's index is written. False where it cannot be recomputed."""
    trace = idx.owner_trace
    first_row = np.reshape(np.argmax(sel.mask & indexing._out_of_range(idx, n)), (1,))
    value = values_at(idx, ramp, first_row)
    if value is None:
        return False
    value = value[0]
    first = np.take(sel.mask, first_row)[0] & indexing._out_of_range(value, n)
    prims.refuse_caught(trace, IndexError, [first], f"a check at {user_location()} may raise IndexError",
                        "Test the value first")
    prims.raise_if(first, INDEX_OUT_OF_BOUNDS, (value, 0, n))
    return True


def _checked_closed(sel, idx, bits, n: int) -> bool:
    """NumPy's IndexError for the first kept index out of range, where the kept positions have
    a closed form and the indices are computed from ``np.arange``: the test is computed at
    each kept row (its position clipped, so bounds see it in range: under ``idx & s == 0``,
    ``idx + s`` is proved in range and the check folds away), the first bad row found by an
    argmax that computes it, and the test and the index recomputed at that row. No array of
    indices or of flags is stored. False where the indices are not computed so (the caller
    checks them the general way)."""
    cap, ramp, trace = idx.shape[0], bits.test.ramp, idx.owner_trace
    bad = sel.mask & indexing._out_of_range(idx, n)

    def at_rows(v, rows):
        return values_at(v, ramp, np.minimum(bits.position(rows), cap - 1))

    k = bits.rows()
    flags = at_rows(bad, k)
    if flags is None:
        return False
    first_row = np.reshape(np.argmax(flags & (k < bits.count)), (1,))
    first, value = at_rows(bad, first_row), at_rows(idx, first_row)  # (computed as flags were)
    first, value = first[0] & (first_row[0] < bits.count), value[0]
    prims.refuse_caught(trace, IndexError, [first], f"a check at {user_location()} may raise IndexError",
                        "Test the value first")
    prims.raise_if(first, INDEX_OUT_OF_BOUNDS, (value, 0, n))
    return True


def gather(x, sel) -> Prefix:
    """``x[sel]``: the rows at the kept indices, over the count only."""
    p = _positions(x, sel)
    shape = (p.values.shape[0], *x.shape[1:])
    values = prims._emit(x.owner_trace, HeadGatherOp, [x, p.values, p.length],
                         x.value.type.with_shape(shape))
    out = Prefix(values, p.length, p.mask)
    out.described = sel.described
    return out


def scatter(x, sel, value):
    """``x`` after ``x[sel] = value`` (one value, or a selection of the same count): the kept
    positions written in order, over the count only. Rows past the count repeat the write of
    row ``count - 1`` (none kept: ``x[0]`` written back), so the kernel may run them too."""
    length, _, read = _indices(x, sel)
    bits = None if isinstance(sel, Prefix) else kept_bits(sel.mask)
    trace = x.owner_trace
    cap = sel.values.shape[0]
    if isinstance(value, MaskedSelection):
        v = as_prefix(value)
        if v.values.shape[0] != cap or not masked.index_forms.same_value(v.length.value, length.value):
            return None
        rows = v.values
    else:
        rows = prims.as_tracer(trace, value, x.dtype)
    if x.size == 0 or cap == 0:
        return x
    j = bits.rows() if bits is not None else positions(trace, (cap,), 0)
    kept = length > 0
    at = np.minimum(j, length - 1)  # (-1 where none is kept: every read below clips)
    index = np.where(kept, read(at), 0)
    if rows.ndim and rows.shape[0] == cap and isinstance(value, MaskedSelection):
        rows = np.take(rows, at, axis=0, mode="clip")
    current = x[0]
    kept_rows = prims.reshape(kept, (1,) * x.ndim)
    updates = np.where(kept_rows, rows, current)
    updates = prims.broadcast_to(prims.convert(updates, x.dtype), (cap, *x.shape[1:]))
    return prims._emit(trace, HeadScatterOp, [x, updates, prims.convert(index, _I64), length],
                       x.value.type)


indexing.COMPACTED.update(compacts=compacts, gather=gather, scatter=scatter)
