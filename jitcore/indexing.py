"""NumPy's indexing on traced arrays: ``x[key]``, ``x[key] = v`` and ``x.at[key]``.

Basic keys (ints, slices, None, Ellipsis) become an ``array.slice`` and a reshape, and
``x[key]`` is a *view* of ``x`` (see ``tracer.make_view``); a write through it is an
``array.update_slice``. Keys with scalar booleans (``x[True]``) are NumPy's 0-d masks.

Advanced keys mix integer arrays (NumPy arrays, lists, traced integer arrays) and constant
boolean masks with the basic kinds. Such a key becomes: a slice of ``x`` (every dim kept, the
advanced dims whole), then one ``array.gather_nd`` over the advanced dims, then a reshape that
inserts the None dims. The index arrays broadcast against each other to B; a constant mask
stands for its ``nonzero()`` arrays, and an int (alongside an array) for a 0-d index array.
NumPy's placement rule: when the advanced indices are adjacent in the key, B replaces them in
place; otherwise B comes first. Constant indices are checked while tracing, with NumPy's
messages; traced ones after the call. A traced mask gives a selection whose shape depends on the
data (``masked.py``): reductions of it compile (``x[m].sum()``), and so do ``x[m] = scalar`` and
``x[m] = f(x[m])``, which are ``where``; other uses are refused.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import index_forms, masked, python_arithmetic
from jitcore import primitives as prims
from jitcore.data_length import Positions
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.ir.dialects import array
from jitcore.ir.dialects.array import DiagonalOp, GatherNdOp, GatherOp, ScatterNdOp, gather_nd_shape
from jitcore.ir.dialects.kernel import INDEX_OUT_OF_BOUNDS, SLICE_CLAMPED
from jitcore.masked import _arange
from jitcore.tracer import Tracer, as_scalar, make_view, user_location


def is_array_index(k) -> bool:
    return isinstance(k, (Tracer, np.ndarray, list))


# -- basic indexing ------------------------------------------------------------------------
def _integer_index(k) -> int:
    """``k`` as an int index; NumPy's IndexError for anything else (``x[1.5]``, ``x['a']``)."""
    try:
        return operator.index(k)
    except TypeError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                         "and integer or boolean arrays are valid indices") from None


def _basic_index(x: Tracer, key):
    """A basic index as (start, stride, sliced shape, result shape)."""
    key = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(k is not None and k is not Ellipsis for k in key)
    if used > x.ndim:
        raise IndexError(f"too many indices: the array is {x.ndim}-dimensional, but {used} were indexed")
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (x.ndim - used) + key[at + 1:]
    else:
        key = key + (slice(None),) * (x.ndim - used)
    start, stride, sliced, final = [], [], [], []
    dim = 0
    for k in key:
        if k is None:
            final.append(1)
            continue
        size = x.shape[dim]
        if isinstance(k, slice):
            r = range(*k.indices(size))
            start.append(r.start if len(r) else 0)
            stride.append(r.step)
            sliced.append(len(r))
            final.append(len(r))
        else:
            i = _integer_index(k)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
            start.append(i % size)
            stride.append(1)
            sliced.append(1)
        dim += 1
    return start, stride, tuple(sliced), tuple(final)


# -- slices of static length at a traced start: x[i:i + w] in a loop (see index_forms) ---------
def _split_sliding(x: Tracer, key):
    """``(key', [(axis, (start, step, length))])``: ``key`` with each slice whose bounds are
    forms of a loop index made whole (``:``), and where ``x[key']`` has that axis, the indices
    it keeps (``_window_indices``). None
    when no slice has traced bounds, or one cannot be proved a static length in bounds (the
    slice then asks for a concrete value, as before), or the key holds an index array."""
    keys = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, slice) and any(isinstance(b, Tracer) for b in (k.start, k.stop, k.step))
               for k in keys):
        return None
    if any(is_array_index(k) and not is_traced_int(k) for k in keys):
        return None
    used = sum(k is not None and k is not Ellipsis for k in keys)
    plain, sliding, dim, axis = [], [], 0, 0
    for k in keys:
        if k is None:
            axis += 1
        elif k is Ellipsis:
            dim, axis = dim + x.ndim - used, axis + x.ndim - used
        elif isinstance(k, slice):
            if dim >= x.ndim:
                return None  # too many indices: NumPy's error, from the plain path
            found = index_forms.static_slice(k, x.shape[dim])
            if found is None and any(isinstance(b, Tracer) for b in (k.start, k.stop, k.step)):
                return None
            if found is not None:
                start, length, step, checked = found
                if checked:
                    start = _check_window(start, length, step, x.shape[dim])
                sliding.append((axis, (start, step, length)))
                k = slice(None)
            dim, axis = dim + 1, axis + 1
        else:
            dim += 1
        plain.append(k)
    return tuple(plain), sliding


def _check_window(start: Tracer, length: int, step: int, size: int):
    """The start of ``x[p:p + s]`` at a traced ``p`` of unknown bounds, gathered at its static
    length: where NumPy would read another window (``p < 0``: from the end; past the end:
    shorter), the call raises IndexError when it runs (``kernel.SLICE_CLAMPED``). The start
    returned is ``p`` clamped into the windows that fit, as XLA's dynamic_slice clamps: the
    same ``p`` wherever the call does not raise, and positions proved in range
    (``passes/effects._bounds``), so the window's gather or scatter checks no index and fuses
    (one kernel over the window, ``canvas[y:y + h, x:x + w] = ...``)."""
    last = prims.ufunc(np.add, start, step * (length - 1))
    python_arithmetic.raise_when(prims.ufunc(np.less, start, 0) | prims.ufunc(np.greater_equal, last, size),
                                 SLICE_CLAMPED)
    highest = size - 1 - step * (length - 1)
    if highest < 0:
        return start  # no window fits: the call always raises
    start = prims.convert(start, np.dtype(np.int64))
    return prims.ufunc(np.maximum, prims.ufunc(np.minimum, start, highest), 0)


def _ranged_slice(x: Tracer, key):
    """``(key', mask)`` for a key whose slices with traced bounds have lengths that depend on
    the data (``x[:i]``, ``L[i, :i]``, ``x[i:]``, ``a[k:, k:]`` in a loop over i or k) and come
    first in ``x[key']`` (``key`` with those slices made whole): the mask of the positions they
    keep (``masked.RangedSelection``). None otherwise."""
    keys = key if isinstance(key, tuple) else (key,)
    traced = [j for j, k in enumerate(keys) if isinstance(k, slice)
              and any(isinstance(b, Tracer) for b in (k.start, k.stop, k.step))]
    if not traced or any(k is Ellipsis for k in keys) or any(k is None for k in keys[:traced[-1]]):
        return None
    if any(is_array_index(k) and not is_traced_int(k) for k in keys) or len(keys) > x.ndim:
        return None
    if any(isinstance(k, slice) and j not in traced for j, k in enumerate(keys[:traced[-1]])):
        return None  # a sliced axis is not among the first of the result
    masks, spans = [], []
    for j in traced:
        size = x.shape[j]
        if index_forms.static_slice(keys[j], size) is not None:
            return None  # a static length: a gather (_split_sliding)
        bounds = (index_forms.bounded_slice(keys[j], size) or _counted_prefix(keys[j], size)
                  or _clamped_span(keys[j], size))
        if bounds is None:
            return None
        masks.append(_positions_mask(x.owner_trace, size, *bounds))
        spans.append(bounds)
    plain = tuple(slice(None) if j in traced else k for j, k in enumerate(keys))
    return plain, masked.product_mask(masks), tuple(masks), tuple(spans)


def _counted_prefix(k: slice, size: int):
    """``(start, stop)`` of ``x[:n]`` (or ``x[2:n]``) whose stop is a traced int of unknown
    bounds (a count a loop carried: ``out[k] = v; k += 1``): NumPy's stop for every value,
    counted from the end where negative (the mask ``arange(size) < stop`` clamps the rest).
    A traced start is not taken: only prefixes are results the host can trim."""
    stop = k.stop
    if k.step not in (None, 1) or not is_traced_int(stop) or stop.ndim:
        return None
    if k.start is not None and not isinstance(k.start, (int, np.integer)):
        return None
    start = slice(k.start, None).indices(size)[0]
    return start, prims.where(stop < 0, stop + size, stop)


def _clamped_span(k: slice, size: int):
    """``(start, stop)`` of a step-1 slice whose traced bounds no index form keeps in range for
    every value: from the data (``dp[w[i]:]``, ``t[i:j + 1]`` with ``i = ij[0]``), or a loop
    index's that NumPy clamps at some steps (``P[max(0, t - 5):t]``, ``x[t - w + 1:t + 1]``,
    ``x[t:min(n, t + 3)]``: session 57; their loops unrolled before). Each is clamped as NumPy
    clamps it (counted from the end where negative, then into ``[0, size]``) at run time; a stop
    below the start selects nothing. A bound a form keeps in range is taken as it is."""
    if k.step not in (None, 1):
        return None
    bounds = []
    for which, (b, default) in enumerate(((k.start, 0), (k.stop, size))):
        if b is None:
            bounds.append(default)
        elif isinstance(b, Tracer):
            if not is_traced_int(b) or b.ndim:
                return None
            proved = index_forms.bound_in_range(b, size, which)
            if proved is not None:
                bounds.append(proved)
                continue
            b = prims.convert(b, np.int64)  # a narrow int would wrap when size is added
            b = prims.where(b < 0, b + size, b)
            bounds.append(prims.clip(b, 0, size))
        elif isinstance(b, (int, np.integer)) and not isinstance(b, bool):
            bounds.append(slice(b, None).indices(size)[0])  # step 1: start and stop clamp alike
        else:
            return None
    return tuple(bounds)


def _positions_mask(trace, size: int, start, stop) -> Tracer:
    """``start <= arange(size) < stop`` for a traced bound or two."""
    positions = prims.constant(trace, _arange(size))
    mask = None
    if isinstance(start, Tracer) or start > 0:
        mask = positions >= start
    if isinstance(stop, Tracer) or stop < size:
        mask = positions < stop if mask is None else mask & (positions < stop)
    return mask


_BY_SELECTION = (
    "an index array selected by a traced mask (x[idx[mask]], at {where}) other than leading "
    "selections by one mask (x[idx[mask]], x[np.nonzero(m)]): how many positions it names "
    "depends on the data. Index first, then select, which names the same elements: "
    "x[idx][mask] (its sum, mean, max, ... compile)")


# Gathers and scatters through an index array selected by a mask, over the kept count:
# installed by jitcore.compacted_indices (compacts, gather, scatter), which builds on this module.
COMPACTED: dict = {}


def _indexed_by_selection(x: Tracer, keys: tuple) -> masked.MaskedSelection:
    """``x[idx[mask]]`` (``x[np.nonzero(m)]``): ``x[idx][mask]``, the same elements in the same
    order, where the selections by one mask lead the key. ``np.nonzero(m)``'s positions of
    every dim of ``x[m]``'s mask name the elements ``x[m]`` selects: that selection, with no
    gather."""
    leading = [k for k in keys if isinstance(k, masked.MaskedSelection)]
    first = leading[0]
    if keys[0] is not first:
        return _columns_by_selection(x, keys, first)
    if (any(k is not s for k, s in zip(keys, leading))
            or any(is_array_index(k) or k is None or k is Ellipsis for k in keys[len(leading):])
            or any(not masked.same_mask(k.mask, first.mask) or k.values.shape != first.values.shape
                   for k in leading)):
        raise JitTypeError(_BY_SELECTION.format(where=user_location()))
    rest = keys[len(leading):]
    mask = first.mask
    if (all(isinstance(k, Positions) and k.at == d for d, k in enumerate(leading))
            and len(leading) == mask.ndim and mask.shape == x.shape[:mask.ndim]):
        return masked.select(getitem(x, (slice(None),) * mask.ndim + rest) if rest else x, mask)
    if len(keys) == 1 and COMPACTED and COMPACTED["compacts"](x, first):
        return COMPACTED["gather"](x, first)
    kept = tuple(_kept_indices(k.values, mask, x.shape[d]) for d, k in enumerate(leading))
    return masked.MaskedSelection(getitem(x, kept + rest), mask)


def _columns_by_selection(x: Tracer, keys: tuple, sel: masked.MaskedSelection):
    """``S[:, idx[m]]`` (``S[:, np.where(v >= 30)[0]]``, the columns of the neurons that
    fired): ``S[:, idx][:, m]``, the same elements in the same order, a selection whose dim
    stays where NumPy puts it (``MovedSelection``), so ``.sum(axis=1)`` is a masked reduction.
    Only full slices before the selection and slices after it; only kept indices checked."""
    d = next(j for j, k in enumerate(keys) if k is sel)
    if (d >= x.ndim or any(not (isinstance(k, slice) and k == slice(None)) for k in keys[:d])
            or any(not isinstance(k, slice) for k in keys[d + 1:])
            or sel.ndim != 1 or sel.mask.ndim != 1 or sel.values.ndim != 1 or sel.position != 0
            or sel.values.dtype.kind not in "iu"):
        raise JitTypeError(_BY_SELECTION.format(where=user_location()))
    kept = _kept_indices(sel.values, sel.mask, x.shape[d])
    rows = np.take(getitem(x, keys[:d] + (slice(None),) + keys[d + 1:]), kept, axis=d)
    out = masked.MovedSelection(np.moveaxis(rows, d, 0), sel.mask, position=d)  # (mask's dim first)
    out.described = sel.described
    return out


def _write_by_selection(x: Tracer, keys: tuple, value) -> Tracer:
    """``x`` after ``x[ys[m], xs[m]] = v``: a scatter of the kept positions, in order. Its
    length depends on the data, so every position is written, a dropped one repeating the write
    of the last kept one before it (of the first kept one where none is before it): the same
    element set to the same value again, which changes nothing where the last write wins. Only
    the kept indices are bounds-checked, as NumPy selects first; with none kept, nothing is
    written. ``v``: one value (broadcast over the kept positions) or a selection by ``m``."""
    leading = [k for k in keys if isinstance(k, masked.MaskedSelection)]
    mask, rest = leading[0].mask, keys[len(leading):]
    if len(keys) == 1 and COMPACTED and COMPACTED["compacts"](x, leading[0], write=True):
        written = COMPACTED["scatter"](x, leading[0], value)
        if written is not None:
            return written
    selected = isinstance(value, masked.MaskedSelection)
    if (any(k is not s for k, s in zip(keys, leading))
            or any(is_array_index(k) or k is None or k is Ellipsis for k in rest)
            or any(not masked.same_mask(k.mask, mask) or k.values.shape != mask.shape
                   or k.values.dtype == np.bool_ for k in leading)
            or len(leading) > x.ndim
            or selected and (not masked.same_mask(value.mask, mask) or value.position != 0)):
        raise JitTypeError(_BY_WRITE.format(where=user_location()))
    if mask.size == 0:
        return x  # no index: nothing to check or write
    trace = x.owner_trace
    keep = prims.reshape(mask, (-1,))
    indices = []
    for axis, k in enumerate(leading):
        idx = prims.convert(prims.reshape(k.values, (-1,)), np.dtype(np.int64))
        n = x.shape[axis]
        prims.RAISE_AT_FIRST(keep & _out_of_range(idx, n), idx, INDEX_OUT_OF_BOUNDS, (axis, n))
        indices.append(np.where(idx < 0, idx + n, idx))
    if x.size == 0:
        return x
    positions = prims.constant(trace, _arange(mask.size))
    last = np.maximum.accumulate(np.where(keep, positions, -1))
    first = np.argmax(keep)
    at = np.where(last < 0, first, last)
    any_kept = keep[first]
    # clipped: after the check no kept index changes (``at`` is a kept position wherever one is
    # kept), so the scatter is proved in range and checks nothing; the clip is of the value
    # read at ``at``, inside the scatter's own loop
    indices = [np.where(any_kept, np.clip(take(idx, at, 0), 0, x.shape[axis] - 1), 0)
               for axis, idx in enumerate(indices)]
    if selected:
        values = prims.reshape(value.values, (mask.size,) + value.values.shape[mask.ndim:])
        value = take(values, at, 0)
    else:
        value = prims.as_tracer(trace, value, x.dtype)
    # with none kept, each position writes the first element's own value back
    current = getitem(x, (0,) * len(leading) + rest)
    return scatter(x, tuple(indices) + rest, np.where(any_kept, value, current))


_BY_WRITE = (
    "an index array selected by a traced mask (idx[mask], at {where}) is the index of a write "
    "in a form jitcore cannot write through: it writes x[ys[m], xs[m]] = v (one value, or a "
    "selection by the same mask: vals[m]), the selections leading the key. Mark the positions "
    "with the mask instead, then write where they are marked: hits = np.zeros(len(x), "
    "dtype=int); np.add.at(hits, idx, mask); x[hits > 0] = v")


def _kept_indices(idx: Tracer, mask: Tracer, extent: int) -> Tracer:
    """``idx`` with 0 where ``mask`` drops it: NumPy selects before it gathers, so only a kept
    index is bounds-checked (``lut[idx[(idx >= 0) & (idx < n)]]`` names no index out of range;
    before session 49 the gather checked all of ``idx`` and raised on those the mask removed).
    An axis of extent 0 has no safe index: there every index, kept or not, is checked."""
    if extent == 0 or idx.dtype == np.bool_:
        return idx
    mask = mask.reshape(mask.shape + (1,) * (idx.ndim - mask.ndim))
    return np.where(mask, idx, idx.dtype.type(0))


def _window_indices(window, shape=None):
    """The indices ``start + step * arange(length)`` of a slice of static length, in ``shape``
    (the constant table shaped, not the indices reshaped: nothing between the window's gather
    and the positions it reads)."""
    start, step, length = window
    return start + step * np.arange(length, dtype=np.int64).reshape(shape or (length,))


def _window_key(x: Tracer, sliding):
    """The key of one gather or scatter of the window that slices of static length at traced
    starts on adjacent axes select (``canvas[y:y + h, x:x + w]``: XLA's dynamic slice), their
    indices an open mesh, or None for one axis or axes apart (whose arrays NumPy would move to
    the front). One kernel then reads or writes the window alone, not each slice in turn (the
    ``h`` whole rows of the canvas gathered, updated and scattered back)."""
    axes = [axis for axis, _ in sliding]
    if len(axes) < 2 or axes != list(range(axes[0], axes[0] + len(axes))):
        return None
    key = [slice(None)] * x.ndim
    for j, (axis, window) in enumerate(sliding):
        key[axis] = _window_indices(window, (1,) * j + (window[2],) + (1,) * (len(axes) - 1 - j))
    return tuple(key)


def _write_sliding(x: Tracer, sliding, value) -> Tracer:
    """``x`` with ``value`` written where the ``(axis, indices)`` pairs select: at once where
    they are one window (``_window_key``), else in turn."""
    window = _window_key(x, sliding)
    if window is not None:
        return scatter(x, window, value)
    (axis, window), rest = sliding[0], sliding[1:]
    idx = _window_indices(window)
    if rest:
        value = _write_sliding(take(x, idx, axis), rest, value)
    return scatter(x, (slice(None),) * axis + (idx,), value)


def getitem(x: Tracer, key) -> Tracer:
    """The value of ``x[key]`` (no view): basic indexing with static ints, slices, None and
    Ellipsis; a key with integer arrays or constant boolean masks is advanced (``gather``)."""
    if any(isinstance(k, masked.MaskedSelection) for k in (key if isinstance(key, tuple) else (key,))):
        raise JitTypeError(_BY_SELECTION.format(where=user_location()))
    split = _split_sliding(x, key)
    if split is not None:
        r = getitem(x, split[0])
        window = _window_key(r, split[1])
        if window is not None:
            return gather(r, window)
        for axis, window in split[1]:
            r = take(r, _window_indices(window), axis)
        return r
    keys = key if isinstance(key, tuple) else (key,)
    if any(is_array_index(k) for k in keys):
        return gather(x, keys)
    start, stride, sliced, final = _basic_index(x, key)
    return prims.reshape(prims.slice_(x, start, stride, sliced), final)


@prims.numpy_scalar
def take(x: Tracer, indices, axis: int) -> Tracer:
    """``np.take(x, indices, axis)``; indices out of range raise IndexError after the call."""
    (axis,) = prims.normalize_axes(axis, x.ndim, "take")
    check_static_indices(indices, x.shape[axis], axis)
    idx = _checked_first(prims.as_tracer(x.owner_trace, indices, np.dtype(np.int64)), x.shape[axis], axis)
    shape = x.shape[:axis] + idx.shape + x.shape[axis + 1:]
    return prims._emit(x.owner_trace, GatherOp, [x, idx], x.value.type.with_shape(shape), {"axis": axis},
                       sources=prims._sources(x, indices))


# Index arrays of at least this many elements are checked by a pass of their own before the
# gather (``_checked_first``); smaller ones in the gather's own loop, where one pass is cheaper.
HOISTED_CHECK_MIN = 1 << 14


def _checked_first(idx: Tracer, n: int, axis: int) -> Tracer:
    """A traced index array, checked whole before it is read (NumPy's IndexError for its first
    index out of range, raised by the call: ``raise_at_first``), and returned as positions
    proved in ``[0, n)``: negative indices wrapped, then clipped, which changes nothing after
    the check but lets ``effects._bounds`` prove it. The gather then checks nothing, so
    ``fuse`` inlines it into its consumer (``x[idx].sum()``: no ``x[idx]`` array written).
    One more pass over the indices (a compare and an argmax), for a pass over the result."""
    if not isinstance(idx, Tracer) or idx.size < HOISTED_CHECK_MIN or n == 0:
        return idx
    from jitcore.passes.effects import proved_indices  # (here: importing the IR loads no passes)

    if proved_indices(idx.value, n):
        # in range already (window positions made of ranges): the gather checks nothing, and
        # a clip here would fold the ranges into a constant table of every position
        return idx
    prims.RAISE_AT_FIRST(_out_of_range(idx, n), idx, INDEX_OUT_OF_BOUNDS, (axis, n),
                         test=lambda first: _out_of_range(first, n))
    return np.clip(np.where(idx < 0, idx + n, idx), 0, n - 1)


def _out_of_range(idx, n: int):
    return (idx < -n) | (idx >= n)


def check_static_indices(indices, n: int, axis: int) -> None:
    """Constant indices are checked while tracing (the gather checks traced ones when called)."""
    if isinstance(indices, Tracer):
        return
    indices = np.asarray(indices)
    bad = (indices < -n) | (indices >= n)
    if bad.any():
        raise IndexError(f"index {indices[bad].flat[0]} is out of bounds for axis {axis} with size {n}")


def update(x: Tracer, key, value) -> Tracer:
    """``x`` with ``x[key]`` replaced by ``value`` (broadcast, and cast as NumPy's setitem does)."""
    split = _split_sliding(x, key)
    if split is not None:
        plain, sliding = split
        return update(x, plain, _write_sliding(getitem(x, plain), sliding, value))
    keys = key if isinstance(key, tuple) else (key,)
    if any(is_array_index(k) for k in keys):
        return scatter(x, keys, value)
    start, stride, sliced, final = _basic_index(x, key)
    v = prims.broadcast_to(prims.as_tracer(x.owner_trace, value, x.dtype), final)
    if 0 in sliced:
        return x
    v = prims.reshape(v, sliced)
    if sliced == x.shape and all(s == 1 for s in stride):
        return v
    attrs = {"start": tuple(start), "stride": tuple(stride)}
    return prims._emit(x.owner_trace, array.UpdateSliceOp, [x, v], x.value.type, attrs)


# -- advanced indexing ---------------------------------------------------------------------
class _Plan:
    """A key, taken apart: the slice of ``x`` to take first, the advanced dims with their
    index arrays (in key order), where the index dims go, and the final shape."""

    def __init__(self, x: Tracer, key):
        keys = key if isinstance(key, tuple) else (key,)
        keys = [_as_index(k) for k in keys]
        ellipses = [i for i, k in enumerate(keys) if k is Ellipsis]  # `in` would call Tracer.__eq__
        if len(ellipses) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        used = sum(_dims_used(k) for k in keys)
        if used > x.ndim:
            raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, "
                             f"but {used} were indexed")
        self.start, self.stride, self.sliced = [], [], []
        self.axes, self.indices = [], []
        layout = []  # of the result: (size,) per kept dim, 1 per new dim, "B" for the index dims
        advanced_entries = []
        dim = 0
        for entry, k in enumerate(keys):
            if k is None:
                layout.append(1)
            elif k is Ellipsis:
                for _ in range(x.ndim - used):
                    self._keep(x, dim, slice(None), layout)
                    dim += 1
            elif isinstance(k, slice):
                self._keep(x, dim, k, layout)
                dim += 1
            else:
                advanced_entries.append(entry)
                if "B" not in layout:
                    layout.append("B")
                for index in _components(x, dim, k):
                    self.axes.append(dim)
                    self.indices.append(index)
                    self._keep(x, dim, slice(None), None)
                    dim += 1
        while dim < x.ndim:
            self._keep(x, dim, slice(None), layout)
            dim += 1
        adjacent = advanced_entries == list(range(advanced_entries[0], advanced_entries[-1] + 1))
        if not adjacent:
            layout.remove("B")
            layout.insert(0, "B")
        shapes = [np.shape(i) if not isinstance(i, Tracer) else i.shape for i in self.indices]
        try:
            self.b_shape = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                             "shapes " + "".join(f"{_shape_text(s)} " for s in shapes)) from None
        for axis, index in zip(self.axes, self.indices):
            if not isinstance(index, Tracer):
                _check_bounds(index, axis, x.shape[axis])
        at = layout.index("B")
        self.position = sum(1 for v in layout[:at] if isinstance(v, tuple))
        self.final = tuple(d for v in layout
                           for d in (self.b_shape if v == "B" else v if isinstance(v, tuple) else (v,)))

    def _keep(self, x: Tracer, dim: int, k: slice, layout) -> None:
        r = range(*k.indices(x.shape[dim]))
        self.start.append(r.start if len(r) else 0)
        self.stride.append(r.step)
        self.sliced.append(len(r))
        if layout is not None:
            layout.append((len(r),))  # a kept dim of x (a new one is a bare 1)


def _shape_text(shape) -> str:
    return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _as_index(k):
    """Lists as arrays, as NumPy reads them (``[]`` as an empty integer index; one holding traced
    values, ``x[[k, p]]`` with a traced ``p``, as a traced array); everything else as it is."""
    if isinstance(k, list):
        if prims.holds_tracer(k):
            k = prims.nested_array(k)
        else:
            return np.asarray(k) if k else np.zeros(0, np.int64)
    if isinstance(k, (bool, np.bool_)):
        raise UnsupportedError("a boolean scalar as an index (x[True]) is not supported under jit")
    if isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype == np.bool_:
        raise UnsupportedError("a 0-d boolean array as an index is not supported under jit")
    if isinstance(k, (Tracer, np.ndarray)) and k.dtype != np.bool_ and k.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if k is None or k is Ellipsis or isinstance(k, (slice, Tracer, np.ndarray)):
        return k
    try:
        return operator.index(k)
    except TypeError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) "
                         "and integer or boolean arrays are valid indices") from None


def _dims_used(k) -> int:
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, (Tracer, np.ndarray)) and k.dtype == np.bool_:
        return k.ndim
    return 1


def _components(x: Tracer, dim: int, k) -> list:
    """The index arrays an advanced entry stands for: one, or one per dim of a mask."""
    if isinstance(k, int):
        return [np.asarray(k, np.int64)]
    if k.dtype != np.bool_:
        return [k]
    if isinstance(k, Tracer):
        raise JitTypeError(
            f"{x!r}[mask] with a traced boolean mask has a shape that depends on the data, which "
            "a compiled function cannot have; use jitcore.numpy.where(mask, x, fill) instead"
        )
    for j, size in enumerate(k.shape):
        if x.shape[dim + j] != size and size != 0:  # NumPy: an empty mask dim matches any
            raise IndexError(f"boolean index did not match indexed array along axis {dim + j}; size "
                             f"of axis is {x.shape[dim + j]} but size of corresponding boolean axis "
                             f"is {size}")
    return list(np.nonzero(k))


def _check_bounds(index, axis: int, size: int) -> None:
    flat = np.asarray(index).reshape(-1)
    bad = (flat < -size) | (flat >= size)
    if bad.any():
        i = int(flat[np.argmax(bad)])
        raise IndexError(f"index {i} is out of bounds for axis {axis} with size {size}")


def _index_tracers(plan: _Plan, trace) -> list[Tracer]:
    """The index arrays as i64 tracers of one rank (leading 1s added: a free reshape)."""
    rank = len(plan.b_shape)
    out = []
    for index in plan.indices:
        t = prims.as_tracer(trace, index, np.dtype(np.int64))
        out.append(prims.reshape(t, (1,) * (rank - t.ndim) + t.shape))
    return out


def gather(x: Tracer, key) -> Tracer:
    """``x[key]`` for a key with at least one integer array or boolean mask."""
    plan = _Plan(x, key)
    base = prims.slice_(x, plan.start, plan.stride, plan.sliced)
    if len(plan.indices) == 1:  # one array: NumPy's take along its axis
        out = take(base, plan.indices[0], plan.axes[0])
    else:
        indices = _index_tracers(plan, x.owner_trace)
        shape = gather_nd_shape(base.shape, plan.axes, plan.b_shape, plan.position)
        out = prims._emit(x.owner_trace, GatherNdOp, [base, *indices], base.value.type.with_shape(shape),
                          {"axes": tuple(plan.axes), "position": plan.position},
                          sources=prims._sources(x, *plan.indices))
    return prims.reshape(out, plan.final)


def scatter(x: Tracer, key, value, mode: str = "set", dtype=None) -> Tracer:
    """``x`` after ``x[key] = value`` (``mode`` "set": the last write to an element wins, as in
    NumPy) or ``np.add.at(x, key, value)`` (``mode`` "add": repeated indices accumulate; "sub",
    "mul", "max", "min", "and", "or", "xor" likewise, see ``array.scatter_nd``). The updates
    combine in ``dtype`` (by default the promoted type), the result is cast back once."""
    masked = _traced_mask_update(x, key, value, mode) if mode in ("set", "add") else None
    if masked is not None:
        return masked
    plan = _Plan(x, key)
    if dtype is None:
        dtype = x.dtype
        if mode != "set":
            dtype = np.result_type(x.dtype, value if isinstance(value, (bool, int, float, complex))
                                   else value.dtype)
    v = prims.as_tracer(x.owner_trace, value, dtype)
    try:
        np.broadcast_shapes(v.shape, plan.final)
        if len(v.shape) > len(plan.final):
            raise ValueError
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {_shape_text(v.shape)} could not be "
                         f"broadcast to indexing result of shape {_shape_text(plan.final)}") from None
    whole = plan.sliced == list(x.shape) and all(s == 1 for s in plan.stride)
    base = x if whole else prims.slice_(x, plan.start, plan.stride, plan.sliced)
    base = prims.convert(base, dtype)
    shape = gather_nd_shape(base.shape, plan.axes, plan.b_shape, plan.position)
    updates = prims.reshape(prims.broadcast_to(v, plan.final), shape)
    indices = _index_tracers(plan, x.owner_trace)
    new = prims._emit(x.owner_trace, ScatterNdOp, [base, updates, *indices], base.value.type,
                      {"axes": tuple(plan.axes), "position": plan.position, "mode": mode},
                      sources=prims._sources(x, v, *plan.indices))
    new = prims.convert(new, x.dtype)
    if whole:
        return new
    if 0 in plan.sliced:
        return x
    return prims._emit(x.owner_trace, array.UpdateSliceOp, [x, new], x.value.type,
                       {"start": tuple(plan.start), "stride": tuple(plan.stride)})


def diagonal(x: Tracer, dims: tuple[int, ...]) -> Tracer:
    """``array.diagonal``: dim ``k`` of ``x`` follows result dim ``dims[k]``; dims that follow
    one result dim are read at one position (``dims = (0, 0)`` is the main diagonal)."""
    shape = [0] * (max(dims) + 1)
    for size, d in zip(x.shape, dims):
        shape[d] = size
    return prims._emit(x.owner_trace, DiagonalOp, [x], x.value.type.with_shape(shape), {"dims": tuple(dims)})


def _traced_mask_update(x: Tracer, key, value, mode: str) -> Tracer | None:
    """``x[mask] = scalar`` with a traced mask over the leading dims is ``where``: its shape
    does not depend on the data (a value of several elements would, and stays refused)."""
    keys = key if isinstance(key, tuple) else (key,)
    if len(keys) != 1 or not isinstance(keys[0], Tracer) or keys[0].dtype != np.bool_:
        return None
    mask = keys[0]
    size = value.size if isinstance(value, Tracer) else np.size(value)
    if size != 1 or mask.ndim > x.ndim:
        return None
    if mask.shape != x.shape[:mask.ndim]:
        # NumPy: a mask dim of extent 0 matches any, and the empty mask selects nothing
        if any(m != n and m != 0 for m, n in zip(mask.shape, x.shape)):
            return None
        return x
    v = prims.as_tracer(x.owner_trace, value, x.dtype) if mode == "set" else prims.ufunc(np.add, x, value)
    if mode == "set":
        v = prims.reshape(v, ())
    cond = prims.reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
    return prims.where(cond, prims.convert(v, x.dtype), x)


def is_scalar_bool(k) -> bool:
    return isinstance(k, (bool, np.bool_)) or (isinstance(k, np.ndarray) and k.ndim == 0
                                                and k.dtype == np.bool_)


def scalar_bool_key(x: Tracer, key):
    """A key with scalar booleans (``x[True]``, ``x[..., False]``) and otherwise ints, slices,
    None and Ellipsis: NumPy's 0-d masks. Each takes no dim of ``x``; together with the ints
    they are the advanced indices, whose broadcast dim B (size 1, or 0 if one is False) sits
    where the first of them is when they are adjacent in the key, else first. Returns the
    basic key (booleans as None), the result dims of those Nones, where B goes, and its size."""
    keys = key if isinstance(key, tuple) else (key,)
    if any(is_array_index(k) and not is_scalar_bool(k) for k in keys):
        raise UnsupportedError("a boolean scalar index together with an index array is not "
                               "supported under jit")
    basic = tuple(None if is_scalar_bool(k) else k for k in keys)
    used = sum(1 for k in basic if k is not None and k is not Ellipsis)
    if used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, "
                         f"but {used} were indexed")
    dims, advanced, bool_dims, b_position = 0, [], [], None
    for entry, (k, b) in enumerate(zip(keys, basic)):
        if is_scalar_bool(k) or not (k is None or k is Ellipsis or isinstance(k, slice)):
            advanced.append(entry)
            if b_position is None:
                b_position = dims
        if is_scalar_bool(k):
            bool_dims.append(dims)
        if k is Ellipsis:
            dims += x.ndim - used
        elif b is None or isinstance(k, slice):
            dims += 1
    if advanced != list(range(advanced[0], advanced[-1] + 1)):
        b_position = 0
    size = 1 if all(bool(k) for k in keys if is_scalar_bool(k)) else 0
    return basic, bool_dims, b_position - sum(1 for d in bool_dims if d < b_position), size


def getitem_scalar_bool(x: Tracer, key) -> Tracer:
    """``x[key]`` for a key with scalar booleans (see ``scalar_bool_key``)."""
    basic, bool_dims, position, size = scalar_bool_key(x, key)
    r = getitem(x, basic)
    shape = [d for i, d in enumerate(r.shape) if i not in bool_dims]
    shape.insert(position, 1)
    r = prims.reshape(r, tuple(shape))
    if size == 0:
        r = getitem(r, (slice(None),) * position + (slice(0, 0),))
    return r


# -- x[key] and x[key] = v on a traced array: views, NumPy scalars, in-place writes -------------
def has_scalar_bool(key) -> bool:
    """Does ``key`` hold a scalar boolean (``x[True]``: a 0-d mask)?"""
    return any(is_scalar_bool(k) for k in (key if isinstance(key, tuple) else (key,)))


def is_advanced(key) -> bool:
    """Does ``key`` hold an integer array or boolean mask (NumPy's advanced indexing)?"""
    return any(is_array_index(k) for k in (key if isinstance(key, tuple) else (key,)))


def is_traced_int(k) -> bool:
    """A traced integer scalar (a loop index): NumPy's basic indexing, whose result is a view,
    although jitcore reads and writes it with a gather and a scatter."""
    return isinstance(k, Tracer) and k.ndim == 0 and k.dtype.kind in "iu"


def is_copying(key) -> bool:
    """Does ``x[key]`` copy (an integer array or a mask in it), rather than view ``x``?"""
    keys = key if isinstance(key, tuple) else (key,)
    return any(is_array_index(k) and not is_traced_int(k) for k in keys)


def traced_mask(key) -> Tracer | None:
    """The key if it is one traced boolean array of at least one dim (``x[x > 0]``), else None."""
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if isinstance(k, Tracer) and k.dtype == np.bool_ and k.ndim:
        return k
    return None


def _traced_scalar_mask(key) -> Tracer | None:
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    return k if isinstance(k, Tracer) and k.dtype == np.bool_ and not k.ndim else None


def subscript(x: Tracer, key):
    """``x[key]`` as NumPy reads it: a view for a basic key, a copy for an advanced one, and
    for a traced mask a selection that only a reduction can use (``masked.MaskedSelection``)."""
    mask = traced_mask(key)
    if mask is not None:
        return masked.select(x, mask)
    keys = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, masked.MaskedSelection) for k in keys):
        return _indexed_by_selection(x, keys)
    selection = _masked_read(x, key)
    if selection is not None:  # v[m, 0]: a selection of v[:, 0]
        return selection
    ranged = _ranged_slice(x, key)
    if ranged is not None:
        keys = key if isinstance(key, tuple) else (key,)
        raw = tuple((k.start, k.stop) for k in keys if isinstance(k, slice)
                    and any(isinstance(b, Tracer) for b in (k.start, k.stop, k.step)))
        return masked.RangedSelection(getitem(x, ranged[0]), *ranged[1:], raw)
    mask = _traced_scalar_mask(key)
    if mask is not None:  # x[m] with a 0-d m: x with a new leading dim of length 1 or 0
        return masked.select(x.reshape((1,) + x.shape), mask.reshape((1,)))
    if has_scalar_bool(key):
        return getitem_scalar_bool(x, key)  # a copy in NumPy, not a view
    if is_copying(key):
        return getitem(x, key)  # a copy in NumPy, not a view
    out = view(x, key)
    if out.ndim == 0 and not any(k is Ellipsis for k in (key if isinstance(key, tuple) else (key,))):
        return as_scalar(out)  # NumPy: x[i, j] and x[()] are scalars (copies), x[...] a view
    return out


def view(x: Tracer, key) -> Tracer:
    """``x[key]`` for a basic key, as a view: a write to it updates ``x``."""
    out = make_view(x, lambda b: getitem(b, key), lambda b, v: update(b, key, v),
                    model=(lambda m: m[key]) if _static_key(key) else None)
    out.scalar = False  # a gather at a traced index gives a NumPy scalar; a view is an array
    out.index = key
    return out


def _static_key(key) -> bool:
    """Does ``key`` hold no traced value (so NumPy can index a stride model with it)?"""
    parts = key if isinstance(key, tuple) else (key,)
    return not any(isinstance(v, Tracer) for k in parts
                   for v in ((k.start, k.stop, k.step) if isinstance(k, slice) else (k,)))


def assign_subscript(x: Tracer, key, value) -> None:
    """``x[key] = value``: ``x`` (and the array it is a view of, if any) updated in place."""
    if any(isinstance(k, masked.MaskedSelection) for k in (key if isinstance(key, tuple) else (key,))):
        prims.assign(x, _write_by_selection(x, key if isinstance(key, tuple) else (key,), value))
        return
    if has_scalar_bool(key):
        setitem_scalar_bool(x, key, value)
        return
    mask = traced_mask(key)
    if isinstance(value, masked.MaskedSelection) and mask is not None:
        prims.assign(x, masked.write(x, mask, value))  # x[m] = f(x[m])
        return
    if mask is not None and 0 < mask.ndim < x.ndim and mask.shape == x.shape[:mask.ndim] \
            and not isinstance(value, masked.MaskedSelection) and _fits(np.shape(value), x.shape[mask.ndim:]):
        # img[z > 0.5] = color: one value per selected element of the leading dims, a where
        # (the value cast to x's dtype first, as NumPy's write casts it)
        value = prims.convert(prims.as_tracer(x.owner_trace, value, x.dtype), x.dtype)
        prims.assign(x, np.where(mask.reshape(mask.shape + (1,) * (x.ndim - mask.ndim)), value, x))
        return
    written = _masked_write(x, key, value) if isinstance(value, masked.MaskedSelection) else None
    if written is not None:  # v[m, 0] = -v[m, 0]
        prims.assign(x, written)
        return
    selected = _mask_among_slices(x, key, value)
    if selected is not None:  # x[:, m] = v: one value where the mask and the rest select
        prims.assign(x, np.where(selected, value, x))
        return
    if is_copying(key):
        prims.assign(x, update(x, key, value))
        return
    ranged = _ranged_slice(x, key)
    if ranged is not None:
        plain, mask, factors, spans = ranged
        written = masked.write_ranged(getitem(x, plain), mask, value,
                                      masked.RangedSelection(x, mask, factors, spans))
        prims.assign(x, update(x, plain, written))
        return
    if isinstance(value, Tracer) and value.view_of is not None and value.view_of[0] is x:
        if value.index is not None and _same_key(value.index, key):
            return  # x[k] += 1 ends with x[k] = (the view x[k]): already written
    prims.assign(view(x, key), value)


def _fits(shape, target) -> bool:
    """Does an array of ``shape`` broadcast to ``target`` (unchanged)?"""
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _is_int_index(k) -> bool:
    return (isinstance(k, (int, np.integer)) and not isinstance(k, bool)) or is_traced_int(k)


def _mask_among_basic(x: Tracer, key, new_axes: bool = False):
    """``(expanded, mask)`` for a tuple ``key`` of one traced boolean mask among slices, ints
    (Python's or traced) and an Ellipsis (``a[:, a[0] > 1]``, ``v[m, 0]``, ``v[0, m]``), and,
    where ``new_axes`` (a read), Nones (``d[m, None]``): ``expanded`` the key with the Ellipsis
    and the missing trailing dims made slices, with NumPy's IndexError where the mask's shape
    is not that of the dims it covers; else None."""
    if not isinstance(key, tuple):
        return None
    masks = [k for k in key if isinstance(k, Tracer) and k.dtype == np.bool_ and k.ndim]
    if len(masks) != 1 or sum(k is Ellipsis for k in key) > 1:
        return None
    if not all(k is Ellipsis or isinstance(k, slice) or k is masks[0] or _is_int_index(k)
               or (new_axes and k is None) for k in key):
        return None
    (mask,) = masks
    used = sum(_dims_used(k) for k in key)
    if used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, but {used} "
                         "were indexed")
    expanded = []
    for k in key:
        expanded += [slice(None)] * (x.ndim - used) if k is Ellipsis else [k]
    expanded += [slice(None)] * (x.ndim - sum(k is not None for k in expanded) - mask.ndim + 1)
    dim = 0
    for k in expanded:
        if k is None:
            continue
        if k is mask:
            for j, size in enumerate(mask.shape):
                if x.shape[dim + j] != size:
                    raise IndexError(f"boolean index did not match indexed array along axis "
                                     f"{dim + j}; size of axis is {x.shape[dim + j]} but size of "
                                     f"corresponding boolean axis is {size}")
        dim += mask.ndim if k is mask else 1
    return expanded, mask


def _selected_elements(x: Tracer, expanded, mask: Tracer) -> Tracer:
    """The elements of ``x`` that ``x[key]`` selects (``_mask_among_basic``), as a boolean
    array of ``x``'s shape."""
    selected, dim = None, 0
    for k in expanded:
        if k is mask:
            part = mask.reshape((1,) * dim + mask.shape + (1,) * (x.ndim - dim - mask.ndim))
            dim += mask.ndim
        else:
            axis = np.zeros(x.shape[dim], bool)
            if isinstance(k, Tracer):  # an index out of range raises from the read or write
                axis = np.arange(x.shape[dim]) == np.where(k < 0, k + x.shape[dim], k)
            else:
                axis[k] = True  # an int out of range: NumPy's IndexError
            part = axis.reshape((1,) * dim + (-1,) + (1,) * (x.ndim - dim - 1))
            dim += 1
        selected = part if selected is None else np.logical_and(selected, part)
    return np.broadcast_to(selected, x.shape)


def _mask_among_slices(x: Tracer, key, value):
    """The elements ``x[key] = value`` writes, as a boolean array of ``x``'s shape, where
    ``key`` is a tuple of one traced boolean mask among slices, ints and an Ellipsis, and
    ``value`` one value (``a[:, a[0] > 1] = -1``, ``a[1, m] = 0``); else None. Nothing's
    shape depends on the data: NumPy writes the one value wherever the key selects."""
    if not isinstance(value, (Tracer, bool, int, float, complex, np.generic)) or np.ndim(value) != 0:
        return None
    found = _mask_among_basic(x, key)
    return None if found is None else _selected_elements(x, *found)


def _masked_layout(expanded, mask: Tracer):
    """``(basic, position, front)`` for ``x[key]`` (``_mask_among_basic``): ``basic`` the key
    with the mask's dims made whole (a basic key), ``position`` where they sit in
    ``x[basic]``, ``front`` whether NumPy puts the selection's dim first (the mask at the front
    of what is kept, or the ints and the mask, NumPy's advanced indices, not side by side)."""
    basic, position, kept = [], 0, 0
    for k in expanded:
        if k is mask:
            basic += [slice(None)] * mask.ndim
            position = kept
            kept += mask.ndim
        else:
            basic.append(k)
            kept += isinstance(k, slice) or k is None
    # a None is no advanced index: one between the mask and an int parts them, as in NumPy
    advanced = [i for i, k in enumerate(expanded) if not isinstance(k, slice) and k is not None]
    side_by_side = advanced == list(range(advanced[0], advanced[-1] + 1))
    return tuple(basic), position, position == 0 or not side_by_side


def _masked_read(x: Tracer, key):
    """``v[m, 0]``, ``v[0, m]``, ``a[:, m]``: the selection NumPy's advanced indexing makes, as
    a ``MaskedSelection`` of ``x[basic]`` with the mask's dims moved first; where NumPy keeps the
    selection's dim after others (``a[:, m]``), one whose reductions along an axis are refused
    (their axes would differ from NumPy's). None for other keys."""
    found = _masked_selection(x, key, new_axes=True)
    if found is None:
        return None
    values, mask, _, _, position, front = found
    return masked.MaskedSelection(values, mask) if front else \
        masked.MovedSelection(values, mask, position=position)


def _masked_selection(x: Tracer, key, new_axes: bool = False):
    """``(x[basic] with the mask's dims first, mask, expanded key, basic key, position,
    front)`` for a key of a mask among basic entries (``_masked_layout``), else None."""
    found = _mask_among_basic(x, key, new_axes)
    if found is None:
        return None
    expanded, mask = found
    basic, position, front = _masked_layout(expanded, mask)
    k = mask.ndim
    values = np.moveaxis(getitem(x, basic), range(position, position + k), range(k))
    return values, mask, expanded, basic, position, front


def _masked_write(x: Tracer, key, value: masked.MaskedSelection):
    """``x[key] = f(x[key])`` for a key ``_masked_read`` reads (``v[m, 0] *= -1``): ``f``'s
    values put back where the key selects, a ``where``; None for other keys."""
    found = _masked_selection(x, key)
    if found is None:
        return None
    selected, mask, expanded, basic, position, _ = found
    k, target = mask.ndim, selected.shape
    if not masked.same_mask(value.mask, mask) or value.values.shape != target:
        raise JitTypeError(masked.refused(x, "assigning a selection by another mask or of "
                                             "another shape"))
    back = np.moveaxis(prims.convert(value.values, x.dtype), range(k), range(position, position + k))
    return np.where(_selected_elements(x, expanded, mask), update(x, basic, back), x)


def _same_key(a, b) -> bool:
    """``a == b`` for two keys, comparing traced indices by identity (== would trace a compare)."""
    a, b = (k if isinstance(k, tuple) else (k,) for k in (a, b))
    return len(a) == len(b) and all(map(_same_index, a, b))


def _same_index(p, q) -> bool:
    if isinstance(p, slice) and isinstance(q, slice):  # whose bounds may be traced (x[i:i + w])
        return all(map(_same_index, (p.start, p.stop, p.step), (q.start, q.stop, q.step)))
    if isinstance(p, Tracer) or isinstance(q, Tracer):
        return p is q
    return type(p) is type(q) and p == q


def setitem_scalar_bool(x: Tracer, key, value) -> None:
    """``x[key] = value`` for a key with scalar booleans (see ``scalar_bool_key``)."""
    basic, _, position, size = scalar_bool_key(x, key)
    target = getitem_scalar_bool(x, key).shape
    shape = value.shape if isinstance(value, Tracer) else np.shape(value)
    try:
        np.broadcast_to(np.empty(shape, np.int8), target)
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {shape} into "
                         f"shape {target}") from None
    if size:  # x[True] = v writes x[...] (less the new dim of size 1); x[False] nothing
        v = value if isinstance(value, Tracer) else prims.as_tracer(x.owner_trace, value, x.dtype)
        v = prims.broadcast_to(v, target)
        v = prims.reshape(v, target[:position] + target[position + 1:])
        assign_subscript(x, tuple(k for k in basic if k is not None) or Ellipsis, v)


# -- x.at[key]: JAX's functional updates ----------------------------------------------------
class IndexUpdates:
    """``x.at``: indexed by a key, gives the ``IndexUpdate`` of that part of ``x``."""

    __slots__ = ("x",)

    def __init__(self, x: Tracer):
        self.x = x

    def __getitem__(self, key) -> IndexUpdate:
        return IndexUpdate(self.x, key)


class IndexUpdate:
    """``x.at[key]``: new arrays with the indexed part replaced or combined, as in JAX."""

    __slots__ = ("x", "key")

    def __init__(self, x: Tracer, key):
        self.x, self.key = x, key

    def get(self) -> Tracer:
        return getitem(self.x, self.key)

    def set(self, v) -> Tracer:
        return update(self.x, self.key, v)

    _MODES = {np.add: "add", np.multiply: "mul", np.minimum: "min", np.maximum: "max"}

    def _combine(self, ufunc, v) -> Tracer:
        if is_advanced(self.key):
            if ufunc in self._MODES:  # repeated indices combine, one after the other
                return scatter(self.x, self.key, v, self._MODES[ufunc])
            raise UnsupportedError(
                f"x.at[index].{ufunc.__name__}(v) with an integer-array or mask index is not "
                "supported under jit (repeated indices would have to combine); .set, .add, "
                ".multiply, .min and .max are"
            )
        return update(self.x, self.key, prims.ufunc(ufunc, self.get(), v))

    def add(self, v): return self._combine(np.add, v)
    def multiply(self, v): return self._combine(np.multiply, v)
    def divide(self, v): return self._combine(np.true_divide, v)
    def power(self, v): return self._combine(np.power, v)
    def min(self, v): return self._combine(np.minimum, v)
    def max(self, v): return self._combine(np.maximum, v)
