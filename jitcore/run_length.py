"""Selections of a run-time length: ``np.sort(x[x > 0])``, ``np.cumsum(x[m])``, ``x[m][-3:]``.

A ``masked.MaskedSelection`` is values and a traced mask: enough for elementwise ops and
reductions, not for an op that moves elements along the selected dim. Such an op runs on the
selection compacted (``compaction.compaction``: the kept rows first in a buffer of capacity
``len(x)``) with the count as a run-time length, the way size-generic kernels take extents
as run-time values. That is a ``Prefix``: a selection whose mask is ``arange(capacity) <
length``, so every use a selection has (elementwise ops, reductions, statistics, indexing,
returning) works on it unchanged, and the ops here keep it one:

- sort of 1-d keys of 32 or 64 bits sorts the compacted buffer's first ``length`` rows only
  (``array.head_sort``, session 52); other sorts, and argsort, fill the rows left out with a
  value that sorts last (+inf, the dtype's max, True): a stable sort of the whole buffer puts
  the kept rows, sorted, first (kept NaNs, which sort after the filler, moved back before the
  length); ``y.sort()`` in place rebinds ``y``'s values and mask to the sorted selection's;
- ``y[idx]`` by integer indices (``y[np.argsort(y)]``) gathers at them, checked against the
  length; ``np.unique`` gives first indices and the inverse from a stable argsort;
- cumsum/cumprod run over the buffer (the prefix of a running total is the running total of
  the prefix); diff is one row shorter (``max(length - n, 0)``), its ``prepend``/``append``
  concatenated first as below;
- a slice (bounds static or traced, any static step) is a gather at the positions Python's
  ``slice.indices`` gives for the length, computed when the call runs;
- concatenate with arrays of a known length (or other selections) gathers each piece after
  the first at the running sum of the lengths before it.

Returned, a ``Prefix`` is its buffer and length as they are (no second compaction); the host
trims it (``dispatch.data_length_trim``). What needs a static length (a reshape to a static
shape, broadcasting against an unrelated array, a shape) keeps the selection's refusal.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from jitcore import indexing, masked, traced_cuts
from jitcore import primitives as prims
from jitcore.compaction import bounded, bounded_scan, compaction
from jitcore.data_length import Positions, positions
from jitcore.errors import JitTypeError
from jitcore.ir.dialects.kernel import INDEX_OUT_OF_BOUNDS
from jitcore.masked import MaskedSelection, RangedSelection
from jitcore.numpy import creation
from jitcore.numpy.data_length import first_occurrences, lengths_so_far, run_lengths
from jitcore.tracer import Tracer, as_scalar, fresh, user_location

_I64 = np.dtype(np.int64)


class Prefix(MaskedSelection):
    """The first ``length`` rows of ``values`` (0-d int64, traced), a selection whose mask is
    ``arange(len(values)) < length``; ops that keep the length share the mask object, so that
    their results pair element for element (``masked.same_mask``)."""

    __slots__ = ("length",)

    def __init__(self, values: Tracer, length: Tracer, mask: Tracer | None = None):
        if mask is None:
            mask = positions(values.owner_trace, (values.shape[0],), 0) < length
        super().__init__(values, mask)
        self.length = length

    def count(self) -> Tracer:
        out = fresh(self.length, scalar=True, weak=True)
        out.counts = (self.origin.format(values=self.values), self.advice, "", self.values.shape[0])
        out.owner_trace.counted[id(out.value)] = (out.value, out.counts, self)  # (np.full(len(y), v))
        return out

    def _like(self, values: Tracer) -> Prefix:
        """An op on the rows (elementwise, per row): computed over the first ``length`` only."""
        out = Prefix(bounded(values, self.length), self.length, self.mask)
        out.described = self.described
        return out

    def _operand(self, x, name: str, inputs=()):
        """Another prefix of the same length (or a selection that compacts to it) pairs row
        for row; others as any selection's (the counts checked when the call runs)."""
        if isinstance(x, MaskedSelection) and x is not self and _plain(x):
            other = as_prefix(x)
            if other.values.shape[0] == self.values.shape[0] and \
                    masked.index_forms.same_value(other.length.value, self.length.value):
                return other.values
        return super()._operand(x, name, inputs)

    def _item(self, i):
        """``y[i]``: the row at ``i`` (from the end where negative), NumPy's IndexError from
        the call past the length."""
        values, n = self.values, self.values.shape[0]
        trace = values.owner_trace
        if n == 0:  # (nothing to read: one row of zeros, the check always raises)
            values = prims.broadcast_to(prims.constant(trace, np.zeros((), values.dtype)),
                                        (1, *values.shape[1:]))
        i = prims.convert(i, _I64) if isinstance(i, Tracer) else prims.constant(trace, np.int64(i))
        j = np.where(i < 0, i + self.length, i)
        prims.raise_if((j < 0) | (j >= self.length), INDEX_OUT_OF_BOUNDS, (i, 0, self.length))
        row = values[prims.clip(j, 0, max(n - 1, 0))]
        return as_scalar(row) if values.ndim == 1 else row


def _plain(sel) -> bool:
    """A selection with its selected dim first that compacts as it is (not ``a[:, m]``, not a
    slice by a loop index, which unrolls its loop, nor ``np.array(out)``'s empty case)."""
    return isinstance(sel, Prefix) or type(sel) in (MaskedSelection, Positions)


def as_prefix(sel: MaskedSelection) -> Prefix:
    """``sel`` compacted: its kept rows first, their count the length."""
    if isinstance(sel, Prefix):
        return sel
    if not _plain(sel):
        raise sel._refusal("an op along its selected dim")
    buffer, count = compaction(sel)
    out = Prefix(buffer, count)
    out.described = sel.described
    return out


def _frame(sel: MaskedSelection):
    """``sel``'s rows and which are kept, with no compaction: (rows, kept, count)."""
    if isinstance(sel, Prefix):
        return sel.values, sel.mask, sel.length
    values, mask = sel.values, sel.mask
    n = int(np.prod(mask.shape, dtype=np.int64))
    rows = prims.reshape(values, (n, *values.shape[mask.ndim:]))
    kept = prims.reshape(mask, (n,))
    return rows, kept, prims.reduction("sum", prims.convert(kept, _I64))


def _along(sel: MaskedSelection, axis, name: str, none_flattens: bool = True):
    """The axis of ``sel`` an op runs along: 0 for the selected dim (or None: over the
    selection flattened), else the values' axis of a per-row op."""
    if axis is None:
        if sel.ndim != 1 and not none_flattens:
            raise sel._refusal(f"numpy.{name} with axis=None of a selection of rows")
        return None
    (axis,) = prims.normalize_axes(axis, sel.ndim, name)
    return axis


def _fill(dtype: np.dtype, sel: MaskedSelection):
    """A value that a sort puts at or after every other (ties keep their order: it is last).
    For floats +inf, not NaN: the sort's NaN path costs twice its time (``_nan_last``)."""
    if dtype.kind == "f":
        return np.inf
    if dtype.kind == "b":
        return True
    if dtype.kind in "iu":
        return np.iinfo(dtype).max
    raise sel._refusal(f"sorting a selection of dtype {dtype}")


def _sorted(rows: Tracer, kept: Tracer, count: Tracer, sel, arg: bool) -> Tracer:
    """The stable sort (or argsort) along axis 0 of ``rows`` with the rows left out filled
    (``_fill``): the kept rows' result first."""
    where = prims.reshape(kept, kept.shape + (1,) * (rows.ndim - 1))
    fill = prims.as_tracer(rows.owner_trace, _fill(rows.dtype, sel), rows.dtype)
    filled = prims.where(where, rows, fill)
    out = (np.argsort if arg else np.sort)(filled, axis=0, kind="stable")
    return _nan_last(out, filled, count) if rows.dtype.kind == "f" and rows.shape[0] else out


def _nan_last(out: Tracer, filled: Tracer, count: Tracer) -> Tracer:
    """Kept NaNs sort after the +inf filler, to the end of the buffer: each lane's ``k`` of
    them are brought back to just before the length (position ``j >= count - k`` reads
    ``j + n - count``), so the first ``count`` are NumPy's (kept NaNs last)."""
    n = filled.shape[0]
    nans = np.sum(prims.convert(np.isnan(filled), _I64), axis=0, keepdims=True)
    j = prims.reshape(positions(filled.owner_trace, (n,), 0), (n,) + (1,) * (filled.ndim - 1))
    at = np.where(j < count - nans, j, j + (n - count))
    if filled.ndim == 1:  # (clipped by the gather: no n - 1 in the program, which new sizes reuse)
        return np.take(out, at, mode="clip")
    return np.take_along_axis(out, prims.clip(prims.broadcast_to(at, out.shape), 0, n - 1), axis=0)


def _no_options(sel, name: str, **options) -> None:
    given = sorted(k for k, v in options.items() if v is not None)
    if given:
        raise sel._refusal(f"numpy.{name} with {', '.join(given)}")


def _flat(sel: MaskedSelection) -> Prefix:
    """The selection raveled: its rows' elements in C order, ``length * row`` of them."""
    p = as_prefix(sel)
    if p.values.ndim == 1:
        return p
    row = int(np.prod(p.values.shape[1:], dtype=np.int64))
    return Prefix(prims.reshape(p.values, (-1,)), p.length * row)


def _sorts_at_length(sel: MaskedSelection) -> bool:
    """Whether ``sel`` sorts by ``array.head_sort``: 1-d keys of the widths the CPU backend's
    routines sort at a run-time length (other dtypes, and rows, sort the filled capacity)."""
    dtype = sel.values.dtype
    return (sel.values.ndim == 1 and dtype.kind in "fiu" and dtype.itemsize in (4, 8)
            and (isinstance(sel, Prefix) or _plain(sel)))


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _no_options(a, "sort", order=order)
    axis = _along(a, axis, "sort")
    if axis not in (None, 0):  # each kept row sorted on its own
        return a._like(np.sort(a.values, axis=axis + a.mask.ndim - 1))
    if axis is None and a.ndim != 1:
        a = _flat(a)
    if _sorts_at_length(a):  # compacted, then sorted over the kept count only
        p = as_prefix(a)
        return p._like(prims.head_sort(p.values, p.length))
    rows, kept, count = _frame(a)
    out = Prefix(_sorted(rows, kept, count, a, arg=False), count, a.mask if isinstance(a, Prefix) else None)
    out.described = a.described
    return out


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _no_options(a, "argsort", order=order)
    axis = _along(a, axis, "argsort")
    if axis not in (None, 0):
        return a._like(np.argsort(a.values, axis=axis + a.mask.ndim - 1, kind="stable"))
    p = _flat(a) if axis is None else as_prefix(a)
    return p._like(_sorted(p.values, p.mask, p.length, a, arg=True))


def sort_in_place(a, axis=-1, kind=None, order=None, *, stable=None) -> None:
    """``y.sort()``: ``y`` (the Python object every name of it holds) becomes ``np.sort(y)``:
    its values and mask replaced by the sorted selection's (which keeps it a selection of the
    same length: the mask a prefix of the compacted buffer, or the same mask along a kept axis)."""
    if not (isinstance(a, Prefix) or type(a) in (MaskedSelection, Positions)):
        raise a._refusal(".sort() in place of this selection (write y = np.sort(y) instead)")
    out = sort(a, axis, kind, order, stable=stable)
    a.values, a.mask, a.factors = out.values, out.mask, out.factors
    if isinstance(a, Prefix):
        a.length = out.length
    elif isinstance(a, Positions):
        a.at = None  # its values are now the sorted indices themselves


def _running(np_fn, a, axis=None, dtype=None, out=None):
    name = np_fn.__name__
    _no_options(a, name, out=out)
    axis = _along(a, axis, name)
    if axis not in (None, 0):
        return a._like(np_fn(a.values, axis=axis + a.mask.ndim - 1, dtype=dtype))
    p = _flat(a) if axis is None else as_prefix(a)
    return p._like(bounded_scan(np_fn(p.values, axis=0, dtype=dtype), p.length))


cumsum = functools.partial(_running, np.cumsum)
cumprod = functools.partial(_running, np.cumprod)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    axis = _along(a, axis, "diff", none_flattens=False)
    if n == 0:  # (NumPy's: the input, prepend= and append= not looked at)
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    ends = [v for v in (prepend, append) if v is not np._NoValue]
    if axis != 0:  # along a kept axis: each end one value, broadcast over the rows as NumPy's
        if any(np.ndim(v) != 0 or isinstance(v, MaskedSelection) for v in ends):
            raise a._refusal("numpy.diff along a kept axis with a prepend= or append= that is not "
                             "one value")
        options = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not np._NoValue}
        return a._like(np.diff(a.values, n, axis=axis + a.mask.ndim - 1, **options))
    if ends:  # NumPy's concatenate of the ends (one value: a row of it) and the selection
        pieces = [a]
        if prepend is not np._NoValue:
            pieces.insert(0, _end_rows(prepend, a))
        if append is not np._NoValue:
            pieces.append(_end_rows(append, a))
        a = concatenate(pieces, axis=0)
    p = as_prefix(a)
    values = np.diff(p.values, n, axis=0)
    length = np.maximum(p.length - n, 0)
    out = Prefix(bounded(values, length) if values.shape[0] else values, length)
    out.described = p.described
    return out


def _end_rows(v, sel: MaskedSelection):
    """``np.diff``'s ``prepend``/``append`` along the selected dim: as given, or one value as
    one row (NumPy's broadcast to the shape with that dim 1), as an array of NumPy's dtype."""
    if isinstance(v, MaskedSelection):
        return v
    v = v if isinstance(v, Tracer) else np.asanyarray(v)
    if v.ndim == 0:
        shape = (1, *sel.values.shape[sel.mask.ndim:])
        return prims.broadcast_to(v, shape) if isinstance(v, Tracer) else np.broadcast_to(v, shape)
    return v


def taken(sel: MaskedSelection, key):
    """``y[idx]`` by integer indices into the selection's rows (``y[np.argsort(y)]``): a
    selection of ints (then the result has its length) or an int array (its shape), each
    index checked against the count when the call runs (NumPy's IndexError for the first
    out of range) and counted from the end where negative."""
    if isinstance(key, MaskedSelection):
        if key.dtype.kind not in "iu" or key.ndim != 1 or not _plain(key):
            raise sel._refusal("indexing it by a selection that is not of integers")
        k = as_prefix(key)
        idx, kept = prims.convert(k.values, _I64), k.mask
    else:
        idx = prims.convert(key if isinstance(key, Tracer) else
                            prims.constant(sel.values.owner_trace, np.asarray(key)), _I64)
        kept = None
    p = as_prefix(sel)
    n = p.values.shape[0]
    if idx.size:
        bad = (idx < -p.length) | (idx >= p.length)
        bad = bad & kept if kept is not None else bad
        flat = prims.reshape(bad, (idx.size,))
        first = np.argmax(flat)
        prims.raise_if(np.any(flat), INDEX_OUT_OF_BOUNDS,
                       (np.take(prims.reshape(idx, (idx.size,)), first), 0, p.length))
    values = p.values
    if n == 0:  # (nothing to read: the check raised if an index is kept)
        values = prims.broadcast_to(prims.constant(values.owner_trace, np.zeros((), values.dtype)),
                                    (1, *values.shape[1:]))
    at = prims.clip(np.where(idx < 0, idx + p.length, idx), 0, max(n - 1, 0))
    rows = np.take(values, at, axis=0)
    if kept is None:
        return rows
    out = k._like(rows)
    out.described = sel.described
    return out


# -- slices: Python's slice.indices for a length known when the call runs ------------------------
def _index(v, name: str, sel):
    """A bound: None, a Python or NumPy int, or a traced 0-d integer (as int64)."""
    if v is None or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))):
        return None if v is None else int(v)
    if isinstance(v, Tracer) and v.ndim == 0 and v.dtype.kind in "iu":
        return prims.convert(v, _I64)
    raise sel._refusal(f"a slice whose {name} is {type(v).__name__}")


def _bound(v, length, step: int, default_low: bool):
    """``slice.indices``' start or stop for a traced ``length``: negative from the end, then
    clamped to [0, length] (step > 0) or [-1, length - 1] (step < 0)."""
    if v is None:
        if step > 0:
            return 0 if default_low else length
        return length - 1 if default_low else -1
    low, high = (0, length) if step > 0 else (-1, length - 1)
    if isinstance(v, int):
        return np.maximum(v + length, low) if v < 0 else np.minimum(v, high)
    return np.where(v < 0, np.maximum(v + length, low), np.minimum(v, high))


def _most(start, stop, step: int, n: int) -> int:
    """The most elements the slice can hold whatever the length (at most ``n``): known where
    both bounds count from one end (``[-3:]``, ``[:5]``, ``[2:7]``)."""
    if step < 0:
        start, stop = (None if stop is None else stop, None if start is None else start)
        step = -step
    if start is None or isinstance(start, int) and start >= 0:
        if isinstance(stop, int) and stop >= 0:
            return min(n, max(0, -(-(stop - (start or 0)) // step)))
    if isinstance(start, int) and start < 0 and (stop is None or isinstance(stop, int) and stop < 0):
        return min(n, max(0, -(-((stop or 0) - start) // step)))
    return n


def sliced(sel: MaskedSelection, key: slice, rest: tuple = ()) -> Prefix:
    """``y[a:b:s]`` (then ``rest`` along the rows): the rows ``start + s * j`` for ``j`` below
    the slice's length, bounds from the length when the call runs."""
    step = 1 if key.step is None else key.step
    if isinstance(step, Tracer) or not isinstance(step, (int, np.integer)) or isinstance(step, bool):
        raise sel._refusal("a slice with a step that is not a Python int")
    step = int(step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    p = as_prefix(sel)
    start, stop = _index(key.start, "start", sel), _index(key.stop, "stop", sel)
    n = p.values.shape[0]
    first = _bound(start, p.length, step, True)
    last = _bound(stop, p.length, step, False)
    span = (last - first) if step > 0 else (first - last)
    length = np.maximum((span + abs(step) - 1) // abs(step), 0)
    most = _most(start, stop, step, n)
    if n == 0 or most == 0:
        values = p.values[:0]
    else:
        at = first + step * positions(p.values.owner_trace, (most,), 0)
        values = np.take(p.values, at, axis=0, mode="clip")
    if rest:
        values = values[(slice(None), *rest)]
        if isinstance(values, MaskedSelection):  # K[keep][:, keep]: a second data-sized dim
            raise sel._refusal("selecting from it again along another axis")
    out = Prefix(values, prims.convert(np.minimum(length, most), _I64))
    out.described = p.described
    return out


# -- concatenate: each piece after the first gathered at the lengths before it ---------------------
def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if not isinstance(arrays, (list, tuple)) or not arrays:
        raise JitTypeError(f"numpy.concatenate of a selection takes a list of arrays (at {user_location()})")
    selection = next(a for a in arrays if isinstance(a, MaskedSelection))
    _no_options(selection, "concatenate", out=out)
    joined = traced_cuts.static_concatenate(arrays, axis, dtype) if casting == "same_kind" else None
    if joined is not None:  # x[:i] and x[i + 1:]: a static total, whatever the loop's index
        return joined
    ranged = next((a for a in arrays if isinstance(a, RangedSelection)), None)
    if ranged is not None and axis is not None:  # (x[:i] and x[j:]: a total that moves with the data)
        raise ranged._refusal("numpy.concatenate of it with pieces whose lengths do not add up to "
                              "a length known when compiling, as slices cut at one traced int do: "
                              "x[:i] and x[i + 1:]")
    if casting != "same_kind":
        raise selection._refusal("numpy.concatenate with casting=")
    trace = selection.values.owner_trace
    pieces = []
    for a in arrays:
        if isinstance(a, MaskedSelection):
            p = _flat(a) if axis is None else as_prefix(a)
            if axis is not None and _along(a, axis, "concatenate") != 0:
                raise a._refusal("numpy.concatenate along a kept axis")
            pieces.append((p.values, p.length))
        else:
            v = a if isinstance(a, Tracer) else creation.asarray(a)
            if axis is None:
                v = prims.ravel(v)
            elif v.ndim != selection.ndim:
                raise ValueError("all the input arrays must have same number of dimensions, but the "
                                 f"array at index 0 has {selection.ndim} dimension(s) and another has "
                                 f"{v.ndim} dimension(s)")
            pieces.append((v, v.shape[0]))
    kind = np.result_type(*(v.dtype for v, _ in pieces)) if dtype is None else np.dtype(dtype)
    total = functools.reduce(operator.add, (c for _, c in pieces))
    total = total if isinstance(total, Tracer) else prims.constant(trace, np.int64(total))
    total = prims.convert(total, _I64)
    rows = _joined([(prims.convert(v, kind), c) for v, c in pieces], trace)
    return Prefix(bounded(rows, total) if rows.shape[0] else rows, total)


def _joined(pieces: list, trace) -> Tracer:
    """The rows of ``pieces`` (values, length: an int, or traced where only the first
    ``length`` rows count) one after another: output row ``j`` is read from the last piece
    that starts at or before it, at ``j`` less that start. No buffer of the pieces side by
    side is written, and each piece is read only where the output's rows are computed (its
    kernel's rows past the total are unspecified, ``bounded``)."""
    capacity = sum(v.shape[0] for v, _ in pieces)
    row_dims = pieces[0][0].shape[1:]
    if capacity == 0:
        return prims.convert(prims.concatenate([v for v, _ in pieces], 0), pieces[0][0].dtype)
    j = positions(trace, (capacity,), 0)
    out, start = None, 0
    for v, c in pieces:
        if v.shape[0]:
            rows = np.take(v, prims.clip(j - start, 0, v.shape[0] - 1), axis=0)
            if out is None:
                out = rows
            else:
                here = prims.reshape(j >= start, (capacity,) + (1,) * len(row_dims))
                out = prims.where(here, rows, out)
        start = start + c
    return out


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002  (NumPy's name)
    """``np.unique(x[m])``: the selection raveled and sorted at its length (``sort``), each
    value's first occurrence among the first ``count`` rows kept (NaNs one value where
    ``equal_nan``), as ``numpy/data_length.unique`` does for an array; the counts by the same
    groups. With ``return_index`` or ``return_inverse`` the order comes from a stable argsort
    (a value's first index first, as NumPy's): the first indices into the raveled selection,
    and each element's value's number, a selection of the input's shape."""
    if axis is not None:
        raise ar._refusal("numpy.unique with axis=")
    flat = _flat(ar)
    n, trace = flat.values.shape[0], flat.values.owner_trace
    order = None
    if return_index or return_inverse:
        order = argsort(flat, axis=None).values
        values = np.take(flat.values, order, mode="clip") if n else flat.values
    else:
        values = sort(flat, axis=None).values
    count = flat.length
    j = positions(trace, (n,), 0)
    inside = j < count
    first = first_occurrences(values, equal_nan) & inside
    # without first indices each value is kept at its run's last row below the count (where a
    # forward scan of the starts has the run's length); with them at its first row
    keep = first
    if not return_index and n:
        ends = prims.concatenate([first[1:], np.zeros(1, np.bool_)])
        keep = (ends | (j == count - 1)) & inside
    results = [MaskedSelection(values, keep).describe("np.unique(...)", ar.advice)]
    if return_index:
        results.append(MaskedSelection(order, first).describe("np.unique(...)'s first indices",
                                                              ar.advice))
    if return_inverse:  # rows past the count written where nothing is read (their own row)
        group = np.maximum(np.cumsum(prims.convert(first, _I64)) - 1, 0)  # each row's value's number
        inverse = indexing.scatter(prims.constant(trace, np.zeros(n, _I64)),
                                   np.where(inside, order, j), group)
        p = as_prefix(ar)
        rows = prims.reshape(inverse, p.values.shape) if p.values.ndim != 1 else inverse
        results.append(p._like(rows))
    if return_counts:
        # the last run ends at the count: the next start after it is the count at most
        counts = np.minimum(run_lengths(first), count - j) if return_index else lengths_so_far(first)
        results.append(MaskedSelection(prims.convert(counts, _I64), keep).describe(
            "np.unique(...)'s counts", ar.advice))
    return results[0] if len(results) == 1 else tuple(results)


def ravel(a, order="C"):
    if order not in ("C", "K", "A"):
        raise a._refusal(f"ravel(order={order!r})")
    return _flat(a)


def flip(a, axis=None):
    if a.ndim != 1 and axis not in (0, -a.ndim):
        raise a._refusal("numpy.flip of a selection of rows along an axis other than 0")
    return sliced(a, slice(None, None, -1))


def append(arr, values, axis=None):
    return concatenate([arr, values], axis)


def roll(a, shift, axis=None):
    """``np.roll(y, s)`` (``np.roll(cars, -1)``: each car's leader): row ``j`` of the result is
    row ``(j - s) mod count``, computed when the call runs; along a kept axis each row rolls on
    its own."""
    if isinstance(shift, (tuple, list)) or isinstance(axis, (tuple, list)):
        raise a._refusal("numpy.roll with several shifts or axes")
    axis = _along(a, axis, "roll")
    if axis not in (None, 0):
        return a._like(np.roll(a.values, shift, axis=axis + a.mask.ndim - 1))
    p = _flat(a) if axis is None else as_prefix(a)
    n = p.values.shape[0]
    if n == 0:
        return p
    j = positions(p.values.owner_trace, (n,), 0)
    shift = prims.convert(shift, _I64) if isinstance(shift, Tracer) else np.int64(operator.index(shift))
    at = np.remainder(j - shift, np.maximum(p.length, 1))  # (Python's mod: in [0, count))
    return p._like(np.take(p.values, at, axis=0, mode="clip"))


def searchsorted(a, v, side="left", sorter=None):
    """``np.searchsorted(np.unique(lab), lab)``: the search over the first ``count`` keys,
    the rows past it filled with a value that sorts at or after every key (NaN for floats,
    as NumPy orders NaN last; the dtype's max; True), the answer at most ``count``. The
    result has ``v``'s shape whatever the count."""
    if sorter is not None or side not in ("left", "right"):
        raise a._refusal("numpy.searchsorted with sorter= or a side other than 'left'/'right'")
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    if isinstance(v, MaskedSelection):  # each searched value on its own: a selection by v's mask
        return v._like(searchsorted(a, v.values, side))
    p = as_prefix(a)
    dtype = p.values.dtype
    fill = np.nan if dtype.kind in "fc" else True if dtype.kind == "b" else _fill(dtype, a)
    keys = np.where(p.mask, p.values, prims.as_tracer(p.values.owner_trace, fill, dtype))
    found = np.searchsorted(keys, v, side)
    return np.minimum(found, prims.convert(p.length, found.dtype))


_FUNCTIONS = {np.sort: sort, np.flip: flip, np.append: append, np.argsort: argsort,
              np.cumsum: cumsum, np.cumprod: cumprod, np.diff: diff, np.concatenate: concatenate,
              np.ravel: ravel, np.unique: unique, np.roll: roll, np.searchsorted: searchsorted}
_METHODS = {"argsort": argsort, "cumsum": cumsum, "cumprod": cumprod, "ravel": ravel,
            "flatten": ravel, "sort": sort_in_place, "searchsorted": searchsorted}

masked.LENGTH_OPS.update(functions=_FUNCTIONS, methods=_METHODS, sliced=sliced, taken=taken,
                         as_prefix=as_prefix, prefix=Prefix)
