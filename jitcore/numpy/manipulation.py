"""NumPy's array manipulation under ``jit``: shape and dims (``reshape``, ``transpose``,
``squeeze``, ``expand_dims``, ``broadcast_to``, ...), joining and splitting (``concatenate``,
``stack``, ``split``), rearranging (``flip``, ``roll``, ``tile``, ``repeat``, ``pad``), ``take``,
and the queries ``shape``, ``ndim``, ``size`` and ``result_type``.

Where NumPy returns a view (``reshape``, ``transpose``, ``swapaxes``, ``moveaxis``, ``squeeze``,
``expand_dims``), so does this: a write through it reaches the array it views.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from jitcore import control_flow as cf
from jitcore import indexing, masked, number_or_array, tied_length, traced_cuts
from jitcore import primitives as prims
from jitcore.errors import JitOverflowError, JitTypeError, JitValueError, UnsupportedError
from jitcore.indexing import is_traced_int
from jitcore.ir.dialects.array import BroadcastInDimOp
from jitcore.numpy.registry import implements, traced
from jitcore.numpy.stride_tricks import window_positions
from jitcore.tracer import Tracer, fresh, make_view, refuse_traced, user_location

__all__ = ["append", "atleast_1d", "atleast_2d", "atleast_3d", "block", "broadcast_to", "concatenate",
           "convolve", "insert", "resize",
           "copy", "copyto", "correlate", "cross", "diff", "ediff1d", "expand_dims", "flip", "fliplr",
           "flipud",
           "hstack",
           "meshgrid", "moveaxis", "ndim", "pad", "ravel", "repeat", "reshape", "result_type",
           "roll", "rot90", "shape", "size", "split", "squeeze", "stack", "swapaxes", "take", "tile",
           "transpose", "tril", "triu", "vstack"]


@implements(np.reshape)
def reshape(a, shape=None, order="C", **kwargs):
    shape = kwargs.pop("newshape", shape)
    if not traced(a):
        return np.reshape(a, shape, order=order)
    if order != "C":
        raise UnsupportedError(f"numpy.reshape with order={order!r} is not supported under jit")
    return prims.reshape_view(a, shape)  # a view, as in NumPy


@implements(np.ravel)
def ravel(a, order="C"):
    if traced(a) and order == "C":
        return prims.ravel(a)
    return reshape(a, (-1,), order=order)


@implements(np.transpose)
def transpose(a, axes=None):
    return a.transpose(axes) if traced(a) else np.transpose(a, axes)


@implements(np.swapaxes)
def swapaxes(a, axis1, axis2):
    if not traced(a):
        return np.swapaxes(a, axis1, axis2)
    perm = list(range(a.ndim))
    (i,), (j,) = (prims.normalize_axes(ax, a.ndim, "swapaxes") for ax in (axis1, axis2))
    perm[i], perm[j] = perm[j], perm[i]
    return prims.transpose_view(a, perm)  # a view, as in NumPy


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    if not traced(a):
        return np.moveaxis(a, source, destination)
    return prims.moveaxis(a, source, destination)  # a view, as in NumPy


@implements(np.squeeze)
def squeeze(a, axis=None):
    if not traced(a):
        return np.squeeze(a, axis)
    axis = prims.zero_d_axis(a, axis)
    axes = [i for i, d in enumerate(a.shape) if d == 1] if axis is None else \
        prims.normalize_axes(axis, a.ndim, "squeeze")
    if any(a.shape[i] != 1 for i in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return prims.reshape_view(a, tuple(d for i, d in enumerate(a.shape) if i not in axes))  # a view


@implements(np.expand_dims)
def expand_dims(a, axis):
    if not traced(a):
        return np.expand_dims(a, axis)
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)  # as NumPy: np.int64 too
    ndim = a.ndim + len(axes)
    axes = prims.normalize_axes(axes, ndim, "expand_dims")
    shape = iter(a.shape)
    return prims.reshape_view(a, tuple(1 if i in axes else next(shape) for i in range(ndim)))  # a view


@implements(np.broadcast_to)
def broadcast_to(a, shape):
    if not traced(a):
        return np.broadcast_to(a, shape)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    # A read-only view, as NumPy's: a later write to ``a`` shows through it
    return make_view(a, lambda base: prims.broadcast_to(base, shape), _read_only,
                     model=lambda m: np.broadcast_to(m, shape))


def _read_only(base, value):
    raise JitValueError(f"assignment destination is read-only: the array is a view made by "
                        f"numpy.broadcast_to (NumPy raises the same ValueError), at {user_location()}; "
                        "write to a copy (np.broadcast_to(a, shape).copy()) or to the array it views")


@implements(np.shape)
def shape(a):
    number_or_array.read_by_user(a, "np.shape()")
    return a.shape if traced(a) else np.shape(a)


@implements(np.ndim)
def ndim(a):
    number_or_array.read_by_user(a, "np.ndim()")
    return a.ndim if traced(a) else np.ndim(a)


@implements(np.size)
def size(a, axis=None):
    if not traced(a):
        return np.size(a, axis)
    number_or_array.read_by_user(a, "np.size()")
    return a.size if axis is None else a.shape[axis]


@implements(np.result_type)
def result_type(*arrays_and_dtypes):
    return np.result_type(*(a.dtype if isinstance(a, Tracer) else a for a in arrays_and_dtypes))


@implements(np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    if isinstance(indices, masked.MaskedSelection):  # np.take(lut, idx[ok])
        return indices.taken(a, indices, axis, out, mode)
    if not traced(a, indices):
        return np.take(a, indices, axis=axis, out=out, mode=mode)
    if out is not None:
        raise UnsupportedError(f"numpy.take with out= is not supported under jit (at "
                               f"{user_location()}); assign the result instead")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    a = _lift(a, [a, indices])
    axis = prims.zero_d_axis(a, _index_or_none(axis))
    if isinstance(indices, (list, tuple)):
        indices = np.asarray(indices, dtype=np.int64)
    if axis is None:
        a, axis = prims.reshape(a, (-1,)), 0
    (axis,) = prims.normalize_axes(axis, a.ndim, "take")
    shape = a.shape[:axis] + np.shape(indices) + a.shape[axis + 1:]
    if a.shape[axis] == 0 and np.prod(shape):
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if not np.prod(a.shape[:axis]):  # NumPy checks no index then
        return prims.constant(a.owner_trace, np.zeros(shape, a.dtype))
    if mode != "raise" and a.shape[axis]:  # indices brought into range first, never raising
        n = a.shape[axis]
        indices = np.mod(indices, n) if mode == "wrap" else np.clip(indices, 0, n - 1)
    return indexing.take(a, indices, axis)


def _index_or_none(axis):
    """An axis that must be one int (or None): NumPy raises TypeError for a tuple."""
    return axis if axis is None else operator.index(axis)


@implements(np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    stacked = prims.appended_stack(arrays)  # the rows of a loop's appends: reshaped, not copied
    if stacked is not None and stacked.ndim > 1 and axis == 0 and out is None:
        joined = prims.reshape(stacked, (-1, *stacked.shape[2:]))
        return joined if dtype is None else prims.convert(joined, np.dtype(dtype))
    arrays = _operands(arrays)
    if not traced(*arrays):
        return np.concatenate(arrays, axis=axis, dtype=dtype)
    if out is not None:
        raise UnsupportedError("numpy.concatenate with out= is not supported under jit")
    if axis is None:
        arrays, axis = [prims.reshape(_lift(a, arrays), (-1,)) for a in arrays], 0
    out = prims.concatenate(arrays, axis)
    return out if dtype is None else prims.convert(out, np.dtype(dtype))


@implements(np.stack)
def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    stacked = prims.appended_stack(arrays)  # the rows of a loop's appends, as they are
    if stacked is not None and out is None:
        at = prims.normalize_axes(axis, stacked.ndim, "stack")[0]
        if at:  # (a new array, not a view of the rows)
            stacked = fresh(prims.transpose(stacked, [*range(1, at + 1), 0, *range(at + 1, stacked.ndim)]))
        return stacked if dtype is None else prims.convert(stacked, np.dtype(dtype))
    arrays = _operands(arrays)
    if not traced(*arrays):
        return np.stack(arrays, axis=axis, dtype=dtype)
    shapes = {np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    ndim = len(next(iter(shapes))) + 1
    axis = prims.normalize_axes(axis, ndim, "stack")[0]
    return concatenate([_unit_axis(_lift(a, arrays), axis) for a in arrays], axis, out, dtype)


def _unit_axis(x: Tracer, axis: int) -> Tracer:
    """``x`` with a new length-1 axis at ``axis``, as a broadcast (a map of the kernel that reads
    it), not a reshape view: a view sits between a piece and the concatenation and keeps the
    piece from fusing into it, so each slice of a stack was copied first (a 3 x 3 median filter
    by sliding windows, 0.7 s to compile)."""
    shape = x.shape[:axis] + (1,) + x.shape[axis:]
    dims = tuple(d for d in range(len(shape)) if d != axis)
    return prims._emit(x.owner_trace, BroadcastInDimOp, [x], x.value.type.with_shape(shape),
                       {"broadcast_dimensions": dims})


def _lift(a, arrays):
    """A concrete array among traced ones, as a constant of the same trace."""
    a = prims.array_operand(a)
    return a if isinstance(a, Tracer) else prims.constant(prims.find_trace(*arrays), np.asarray(a))


def _operands(arrays) -> list:
    """The arrays of a sequence (``concatenate``'s first argument): each list or tuple among
    them read as NumPy reads it, a traced array if it holds traced values."""
    return [prims.array_operand(a) if prims.holds_tracer(a) else a for a in arrays]


def _block_leaves(arrays, depth: int, out: list) -> int:
    """The arrays of ``np.block``'s nested lists into ``out``; the nesting depth (each branch
    the same, as NumPy requires)."""
    if isinstance(arrays, tuple):
        raise TypeError(f"numpy.block takes nested lists, not tuples (at {user_location()})")
    if not isinstance(arrays, list):
        out.append(arrays)
        return depth
    if not arrays:
        raise ValueError(f"numpy.block: lists cannot be empty (at {user_location()})")
    depths = {_block_leaves(a, depth + 1, out) for a in arrays}
    if len(depths) != 1:
        raise ValueError(f"numpy.block: list depths are mismatched (at {user_location()})")
    return depths.pop()


@implements(np.block)
def block(arrays):
    """NumPy's ``block``: the innermost lists joined along the last axis, the next ones along
    the axis before, ...; each array first given leading axes of length 1 up to the result's
    rank (the larger of the nesting depth and the arrays' ranks)."""
    leaves: list = []
    depth = _block_leaves(arrays, 0, leaves)
    if not traced(*leaves):
        return np.block(arrays)
    ndim = max(depth, *(np.ndim(a) for a in leaves))

    def joined(x, level: int):
        if not isinstance(x, list):
            x = _lift(x, leaves)
            return prims.reshape(x, (1,) * (ndim - x.ndim) + x.shape) if x.ndim < ndim else x
        return concatenate([joined(e, level + 1) for e in x], axis=level - depth)

    return joined(arrays, 0)


@implements(np.resize)
def resize(a, new_shape):
    """NumPy's ``resize``: the flattened ``a`` repeated (cycled) to fill ``new_shape``; zeros for
    an empty ``a``."""
    if not traced(a):
        return np.resize(a, new_shape)
    shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(
        operator.index(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = int(np.prod(shape, dtype=np.int64))
    flat = prims.reshape(a, (-1,))
    if flat.shape[0] == 0 or size == 0:
        return prims.constant(a.owner_trace, np.zeros(shape, a.dtype))
    # the copies as a broadcast (one read of ``a``), not a concatenation of ``repeats`` pieces
    n = flat.shape[0]
    repeats = -(-size // n)
    cycled = prims.reshape(prims.broadcast_to(prims.reshape(flat, (1, n)), (repeats, n)), (repeats * n,))
    return prims.reshape(cycled[:size], shape)


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    """NumPy's ``insert`` at static ``obj``: one index (an int: ``values`` broadcast to the
    inserted slab as NumPy does; a one-element sequence or slice: ``values`` along the axis),
    or several (a sequence or slice: one value each, placed as NumPy places them, ties in the
    given order). ``values`` in ``arr``'s dtype. A traced index: ``UnsupportedError``."""
    arr, values = prims.array_operand(arr), prims.array_operand(values)
    if not traced(arr, values, obj):
        return np.insert(arr, obj, values, axis)
    one_traced = is_traced_int(obj) and obj.ndim == 0  # np.insert(x, i, v) in a loop over i
    traced_obj = isinstance(obj, Tracer) or (isinstance(obj, (list, tuple)) and prims.holds_tracer(obj))
    if traced_obj and not one_traced:
        raise UnsupportedError(
            f"numpy.insert under jit takes static indices, or one traced int (at {user_location()}): "
            "where several new values go sets the result's layout; for traced positions build the "
            "result with numpy.where on an index grid")
    arr = _lift(arr, [arr, values])
    if axis is None:
        arr, axis = prims.reshape(arr, (-1,)), 0
    (axis,) = prims.normalize_axes(axis, arr.ndim, "insert")
    n = arr.shape[axis]
    v = prims.convert(_lift(values, [arr, values]), arr.dtype)
    if one_traced:  # the result's length is n plus the values' slab, wherever they go
        v = prims.reshape(v, (1,) * (arr.ndim - v.ndim) + v.shape) if v.ndim < arr.ndim else v
        v = moveaxis(v, 0, axis)
        v = broadcast_to(v, arr.shape[:axis] + (v.shape[axis],) + arr.shape[axis + 1:])
        return traced_cuts.insert_at(arr, obj, v, axis)
    if isinstance(obj, slice):
        at = np.arange(*obj.indices(n), dtype=np.intp)
    else:
        at = np.asarray(obj)
        if at.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or scalar")
    if at.size != 1:
        # NumPy's own placement of positions 0..n-1 and of the new values n, n+1, ... (its
        # errors too): the result gathers from arr followed by the values, one per index.
        order = np.insert(np.arange(n), obj, np.arange(n, n + at.size))
        shape = arr.shape[:axis] + (at.size,) + arr.shape[axis + 1:]
        v = broadcast_to(v, shape)
        return indexing.take(concatenate([arr, v], axis=axis), order, axis)
    index = operator.index(at.reshape(()).item() if at.dtype.kind in "iu" else at.reshape(()))
    if not -n <= index <= n:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {n}")
    if index < 0:
        index += n
    v = prims.reshape(v, (1,) * (arr.ndim - v.ndim) + v.shape) if v.ndim < arr.ndim else v
    if at.ndim == 0:  # NumPy: an int index inserts values[0] along the axis (a[:, 0:1] = ...)
        v = moveaxis(v, 0, axis)
    shape = arr.shape[:axis] + (v.shape[axis],) + arr.shape[axis + 1:]
    v = broadcast_to(v, shape)
    cut = [slice(None)] * arr.ndim
    before, after = list(cut), list(cut)
    before[axis], after[axis] = slice(None, index), slice(index, None)
    return concatenate([arr[tuple(before)], v, arr[tuple(after)]], axis=axis)


@implements(np.append)
def append(arr, values, axis=None):
    """``values`` after ``arr``: both flattened when ``axis`` is None, as NumPy's."""
    arr, values = prims.array_operand(arr), prims.array_operand(values)
    if not traced(arr, values):
        return np.append(arr, values, axis)
    if axis is None:
        arr, values = (prims.reshape(_lift(a, [arr, values]), (-1,)) for a in (arr, values))
        axis = 0
    return concatenate([arr, values], axis)


@implements(np.hstack)
def hstack(tup, dtype=None, casting="same_kind"):
    arrays = _operands(tup)
    if not traced(*arrays):
        return np.hstack(arrays, dtype=dtype)
    arrays = [_lift(a, arrays) for a in arrays]
    arrays = [prims.reshape(a, (1,)) if a.ndim == 0 else a for a in arrays]
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype=dtype)


@implements(np.vstack)
def vstack(tup, dtype=None, casting="same_kind"):
    arrays = _operands(tup)
    if not traced(*arrays):
        return np.vstack(arrays, dtype=dtype)
    arrays = [_lift(a, arrays) for a in arrays]
    arrays = [prims.reshape(a, (1, -1) if a.ndim < 2 else a.shape) for a in arrays]
    return concatenate(arrays, 0, dtype=dtype)


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    if not traced(ary):
        return np.split(ary, indices_or_sections, axis)
    (axis,) = prims.normalize_axes(axis, ary.ndim, "split")
    n = ary.shape[axis]
    if isinstance(indices_or_sections, int):
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        step = n // indices_or_sections
        bounds = list(range(0, n + 1, step)) if step else [0] * (indices_or_sections + 1)
    else:
        bounds = [0, *indices_or_sections, n]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key = [slice(None)] * ary.ndim
        key[axis] = slice(lo, hi)
        parts.append(ary[tuple(key)])
    return parts


@implements(np.flip)
def flip(m, axis=None):
    if not traced(m):
        return np.flip(m, axis)
    axes = range(m.ndim) if axis is None else prims.normalize_axes(axis, m.ndim, "flip")
    return m[tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(m.ndim))]


@implements(np.fliplr)
def fliplr(m):
    if not traced(m):
        return np.fliplr(m)
    if m.ndim < 2:
        raise JitValueError(f"numpy.fliplr at {user_location()}: Input must be >= 2-d.")
    return m[:, ::-1]  # a view, as in NumPy


@implements(np.flipud)
def flipud(m):
    if not traced(m):
        return np.flipud(m)
    if m.ndim < 1:
        raise JitValueError(f"numpy.flipud at {user_location()}: Input must be >= 1-d.")
    return m[::-1]  # a view, as in NumPy


@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """A quarter turn ``k`` times (static) from the first axis towards the second: flips and
    one transpose, so a view as in NumPy."""
    if not traced(m):
        return np.rot90(m, k, axes)
    refuse_traced(k, "the turn count k of numpy.rot90")
    axes = tuple(axes)
    if len(axes) != 2:
        raise JitValueError(f"numpy.rot90 at {user_location()}: len(axes) must be 2.")
    first, second = (operator.index(ax) for ax in axes)
    if first == second or abs(first - second) == m.ndim:
        raise JitValueError(f"numpy.rot90 at {user_location()}: Axes must be different.")
    if not all(-m.ndim <= ax < m.ndim for ax in (first, second)):
        raise JitValueError(f"numpy.rot90 at {user_location()}: Axes={axes} out of range for "
                            f"array of ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, first), second)
    swapped = list(range(m.ndim))
    swapped[first], swapped[second] = swapped[second], swapped[first]
    # One turn: reverse the second axis, then swap the two; three: swap, then reverse.
    return transpose(flip(m, second), swapped) if k == 1 else flip(transpose(m, swapped), second)


@implements(np.roll)
def roll(a, shift, axis=None):
    if isinstance(a, masked.MaskedSelection):  # np.roll(cars, s) with a traced s: at the count
        return masked.LENGTH_OPS["functions"][np.roll](a, shift, axis)
    if not traced(a):
        return np.roll(a, shift, axis)
    if axis is None:
        return prims.reshape(roll(prims.reshape(a, (-1,)), shift, 0), a.shape)
    axes = np.lib.array_utils.normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    if traced(shift) or (isinstance(shift, (list, tuple)) and traced(*shift)):
        return _roll_by_traced(a, shift, axes)
    pairs = np.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    if a.ndim == 0:  # NumPy's roll unpacks its (empty) per-axis slices, and fails so
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    total = [0] * a.ndim
    for s, ax in pairs:  # as NumPy: the shifts of a repeated axis add up
        total[ax] += int(s)
    out = a
    for ax, s in enumerate(total):
        n = out.shape[ax]
        if n == 0 or s % n == 0:
            continue
        s %= n
        head, tail = split(out, [n - s], axis=ax)
        out = prims.concatenate([tail, head], ax)
    return fresh(out) if out is a else out  # no shift still makes a new array, as NumPy's roll


def _roll_by_traced(a, shift, axes):
    """A shift known only when the function runs (``np.roll(f, cx[i])`` with ``cx`` an array):
    a gather of ``(j - shift) mod n`` along each axis, NumPy's result for any shift."""
    shifts = [shift] if isinstance(shift, Tracer) and shift.ndim == 0 else shift
    if isinstance(shifts, Tracer):
        if shifts.ndim != 1:
            raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
        shifts = [shifts[k] for k in range(shifts.shape[0])]
    shifts = list(shifts)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    elif len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(shifts) != len(axes):
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape.  "
                         f"Mismatch is between arg 0 with shape ({len(shifts)},) and arg 1 "
                         f"with shape ({len(axes)},).")
    if a.ndim == 0:
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    total = {}
    for s, ax in zip(shifts, axes):  # as NumPy: the shifts of a repeated axis add up
        if isinstance(s, Tracer) and (s.ndim or s.dtype.kind not in "iub"):
            raise TypeError(f"numpy.roll's shift must be integers, not {s.dtype}{s.shape}")
        total[ax] = total.get(ax, 0) + (s.astype(np.int64) if isinstance(s, Tracer) else s)
    out = a
    for ax, s in total.items():
        n = out.shape[ax]
        if n:  # one remainder of the shift, then a compare per element (no division)
            j = np.arange(n) - np.mod(s, n)
            out = indexing.take(out, np.where(j < 0, j + n, j), ax)
    return fresh(out) if out is a else out


@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """As NumPy: ``a[1:] - a[:-1]`` along ``axis``, ``n`` times (``!=`` for booleans). Each
    step is one subtraction of two slices, which fusion turns into shifted reads of ``a``."""
    if not traced(a, *(v for v in (prepend, append) if v is not np._NoValue)):
        return np.diff(a, n, axis, prepend, append)
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if not isinstance(a, Tracer):
        a = _lift(a, [v for v in (prepend, append) if isinstance(v, Tracer)])
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    (axis,) = prims.normalize_axes(axis, a.ndim, "diff")
    pieces = []
    for value in (prepend, a, append):
        if value is np._NoValue:
            continue
        value = _lift(value, [a])
        if value.ndim == 0:
            value = prims.broadcast_to(value, a.shape[:axis] + (1,) + a.shape[axis + 1:])
        pieces.append(value)
    if len(pieces) > 1:
        a = prims.concatenate(pieces, axis)
    op = np.not_equal if a.dtype == np.bool_ else np.subtract
    for _ in range(n):
        later = tuple(slice(1, None) if k == axis else slice(None) for k in range(a.ndim))
        earlier = tuple(slice(None, -1) if k == axis else slice(None) for k in range(a.ndim))
        a = prims.ufunc(op, a[later], a[earlier])
    return a


@implements(np.tile)
def tile(A, reps):
    if not traced(A):
        return np.tile(A, reps)
    refuse_traced(reps, "the repeat counts of numpy.tile")
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    ndim = max(A.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    a = prims.reshape(A, (1,) * (ndim - A.ndim) + A.shape)
    # Interleave a unit axis before every axis, broadcast it to the repeat count, then merge.
    expanded = prims.reshape(a, tuple(x for d in a.shape for x in (1, d)))
    target = tuple(x for r, d in zip(reps, a.shape) for x in (r, d))
    return prims.reshape(prims.broadcast_to(expanded, target), tuple(r * d for r, d in zip(reps, a.shape)))


# np.repeat(np.arange(n), np.diff(indptr)), the CSR rows' expansion, has sum(counts) elements:
# no shape of the arguments bounds it; it is deferred until a known length ties it
# (tied_length.Repeated).
@implements(np.repeat)
def repeat(a, repeats, axis=None):
    if not traced(a) and not prims.holds_tracer(repeats):
        return np.repeat(a, repeats, axis)
    if not isinstance(repeats, Tracer) and prims.holds_tracer(repeats):
        repeats = prims.array_operand(repeats)  # [n, m] of traced counts
    if isinstance(repeats, Tracer):
        if repeats.ndim == 0:
            refuse_traced(repeats, "the repeat count of numpy.repeat")
        return tied_length.repeat(a, repeats, _index_or_none(axis))
    axis = prims.zero_d_axis(a, _index_or_none(axis))
    if axis is None:
        a, axis = prims.reshape(a, (-1,)), 0
    (axis,) = prims.normalize_axes(axis, a.ndim, "repeat")
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iubf":
        raise JitTypeError(f"numpy.repeat: the repeat counts must be numbers, not {counts.dtype} "
                           f"(at {user_location()})")
    counts = counts.astype(np.intp)  # NumPy truncates float counts
    if (counts < 0).any():
        raise JitValueError("repeats may not contain negative values.")
    if counts.size != 1:  # one count per element: a gather of each element's index, count times
        if counts.ndim != 1 or counts.shape[0] != a.shape[axis]:
            raise JitValueError(f"operands could not be broadcast together with shape ({a.shape[axis]},) "
                                f"({counts.size},) (numpy.repeat at {user_location()})")
        return indexing.take(a, np.repeat(np.arange(a.shape[axis]), counts), axis)
    repeats = int(counts.reshape(()))
    expanded = prims.reshape(a, a.shape[: axis + 1] + (1,) + a.shape[axis + 1:])
    target = a.shape[: axis + 1] + (repeats,) + a.shape[axis + 1:]
    shape = a.shape[:axis] + (a.shape[axis] * repeats,) + a.shape[axis + 1:]
    return prims.reshape(prims.broadcast_to(expanded, target), shape)


@implements(np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    if not traced(array):
        return np.pad(array, pad_width, mode=mode, **kwargs)
    if callable(mode):
        return _pad_by_function(array, pad_width, mode, kwargs)
    if mode not in ("constant", "linear_ramp", *_INDEX_PAD_MODES, *_STATISTIC_PAD_MODES):
        raise UnsupportedError(f"numpy.pad with mode={mode!r} is not supported under jit (only "
                               f"'constant', 'linear_ramp', {', '.join(map(repr, _INDEX_PAD_MODES))}, "
                               f"{', '.join(map(repr, _STATISTIC_PAD_MODES))})")
    pad_width = np.asarray(pad_width)
    if pad_width.dtype.kind != "i":
        raise JitTypeError("`pad_width` must be of integral type (NumPy raises the same TypeError)")
    widths = _pad_pairs(pad_width, array.ndim, as_index=True)
    if mode in _STATISTIC_PAD_MODES:
        return _pad_with_statistic(array, widths, _STATISTIC_PAD_MODES[mode], **kwargs)
    if mode == "linear_ramp":
        return _pad_with_ramps(array, widths, **kwargs)
    if mode != "constant":
        return _pad_by_index(array, widths, mode, **kwargs)
    if prims.holds_tracer(kwargs.get("constant_values", 0)):
        raise UnsupportedError(f"numpy.pad with traced constant_values is not supported under jit "
                               f"(at {user_location()}); pass numbers")
    pairs = _pad_pairs(kwargs.get("constant_values", 0), array.ndim)
    used = [v for pair, width in zip(pairs, widths, strict=True) for v, w in zip(pair, width) if w > 0]
    if all(v == used[0] for v in used):  # one value: a single pad of every side
        out = prims.pad(array, widths, used[0] if used else 0)
    else:
        out = _pad_sides(array, widths, pairs)
    return out.copy() if out is array else out  # a new array, as NumPy's


def _pad_sides(array, widths, values):
    """Constant padding with a value per side: axis after axis, each axis's pads spanning the
    array padded so far, so a corner holds the later axis's value, as NumPy's ``pad`` fills it."""
    out = array
    for axis, ((before, after), (low, high)) in enumerate(zip(widths, values, strict=True)):
        for width, value, side in ((before, low, 0), (after, high, 1)):
            if width:
                sides = [(0, 0)] * array.ndim
                sides[axis] = (0, width) if side else (width, 0)
                out = prims.pad(out, sides, value)
    return out


_INDEX_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")


def _pad_by_function(array, pad_width, function, kwargs):
    """``np.pad(a, w, function)``: NumPy's steps. The array padded with zeros, then for each
    axis, ``function(line, (before, after), axis, kwargs)`` on each 1-d line along it, which
    writes the line's pads in place. Here the lines of an axis are the rows of one compiled
    loop (``jc.scan``): ``function`` is traced once per axis on a copy of a row, and the rows it
    leaves are the padded array for the next axis, so a later axis's writes win the corners,
    as in NumPy. Converted code passes ``function`` converted (``autograph/runtime._pad``)."""
    widths = _pad_pairs(np.asarray(pad_width), array.ndim, as_index=True)
    padded = prims.pad(array, widths, 0)
    for axis in range(padded.ndim):
        lines = moveaxis(padded, axis, -1)
        rows = prims.reshape(lines, (-1, lines.shape[-1]))

        def step(carry, row, axis=axis):
            row = fresh(row)  # the function writes it in place
            function(row, tuple(widths[axis]), axis, kwargs)
            return carry, row

        _, rows = cf.scan(step, (), xs=rows)
        padded = moveaxis(prims.reshape(rows, lines.shape), -1, axis)
    return padded.copy() if padded is array else padded


def _pad_by_index(array, widths, mode, reflect_type="even"):
    """The modes whose padding only repeats elements: along each axis, a gather at the indices
    NumPy's own ``pad`` of ``arange(n)`` gives, so NumPy's rules (a reflection repeated where
    the pad is wider than the array, its errors for an empty axis) hold by construction."""
    if reflect_type != "even":
        raise UnsupportedError(f"numpy.pad with reflect_type={reflect_type!r} is not supported "
                               "under jit (only 'even')")
    out = array
    for axis, (before, after) in enumerate(widths):
        if before or after:
            _refuse_empty_axis(array, axis)
            indices = np.pad(np.arange(array.shape[axis]), (before, after), mode=mode)
            out = indexing.take(out, indices, axis)
    return out.copy() if out is array else out  # a new array, as NumPy's


def _refuse_empty_axis(array, axis: int) -> None:
    """NumPy's error for padding an empty axis in a mode other than 'constant', at the user's line."""
    if array.shape[axis] == 0:
        raise JitValueError(f"numpy.pad at {user_location()}: can't extend empty axis {axis} using "
                            "modes other than 'constant' or 'empty'")


_STATISTIC_PAD_MODES = {"maximum": np.max, "minimum": np.min, "mean": np.mean, "median": np.median}


def _pad_with_statistic(array, widths, reduce, stat_length=None):
    """'maximum', 'minimum', 'mean' and 'median' of the ``stat_length`` elements nearest each
    edge (the whole axis by default): axis after axis, each statistic taken over the array
    padded so far, which gives NumPy's corners (the statistic of the statistics); rounded to
    even for an integer array, then cast to its dtype, as NumPy's ``_round_if_needed``."""
    if prims.holds_tracer(stat_length):
        raise UnsupportedError(f"numpy.pad with a traced stat_length is not supported under jit "
                               f"(at {user_location()}); pass numbers")
    lengths = _pad_pairs(stat_length, array.ndim, as_index=True) if stat_length is not None else None
    if lengths and reduce in (np.max, np.min) and 0 in np.ravel(lengths):  # on any axis, as NumPy
        raise JitValueError(f"numpy.pad at {user_location()}: stat_length of 0 yields no value for "
                            "padding")
    out = array
    for axis, (before, after) in enumerate(widths):
        if not (before or after):
            continue
        _refuse_empty_axis(out, axis)
        n = out.shape[axis]
        pads = []
        for width, length, side in zip((before, after), lengths[axis] if lengths else (n, n), (0, 1)):
            length = min(length, n)
            cut = [slice(None)] * out.ndim
            cut[axis] = slice(n - length, n) if side else slice(0, length)
            stat = reduce(out[tuple(cut)], axis=axis, keepdims=True)
            if out.dtype.kind in "iu" and stat.dtype != out.dtype:
                stat = np.round(stat)
            edge = out.shape[:axis] + (int(width),) + out.shape[axis + 1:]
            pads.append(prims.broadcast_to(prims.convert(stat, out.dtype), edge))
        out = prims.concatenate([p for p in (pads[0], out, pads[1]) if p.shape[axis]], axis)
    return out.copy() if out is array else out  # a new array, as NumPy's


def _pad_with_ramps(array, widths, end_values=0):
    """'linear_ramp': axis after axis (each ramp ends at the edge of the array padded so far,
    as NumPy's), NumPy's ``linspace(end_value, edge, width, endpoint=False)`` toward each edge:
    computed in the edge's float type, ``i * step`` (``i / width * delta`` where a step is 0),
    floored for integer arrays; the far side's ramp reversed."""
    if prims.holds_tracer(end_values):
        raise UnsupportedError(f"numpy.pad with traced end_values is not supported under jit (at "
                               f"{user_location()}); pass numbers")
    ends = _pad_pairs(end_values, array.ndim)
    out = array
    for axis, ((before, after), end_pair) in enumerate(zip(widths, ends, strict=True)):
        if not (before or after):
            continue
        _refuse_empty_axis(out, axis)
        pieces = [out]
        for width, end, at, side in ((before, end_pair[0], 0, 0), (after, end_pair[1], -1, 1)):
            if not width:
                continue
            cut = [slice(None)] * out.ndim
            cut[axis] = slice(at, at + 1 if at >= 0 else None)
            edge = out[tuple(cut)]
            calc = np.result_type(edge.dtype, end, 1.0)  # NumPy's linspace: inexact, end weak
            start = np.asarray(end, calc)
            delta = prims.convert(edge, calc) - start
            step = delta / np.asarray(width, calc)
            shape = [1] * out.ndim
            shape[axis] = width
            i = np.arange(width, dtype=calc)
            i = (i[::-1] if side else i).reshape(shape)  # the far ramp runs from the edge outward
            ramp = np.where(np.any(step == 0), i / np.asarray(width, calc) * delta, i * step) + start
            if out.dtype.kind in "iu":
                ramp = np.floor(ramp)
            pieces.insert(2 * side, prims.convert(ramp, out.dtype))
        out = prims.concatenate(pieces, axis)
    return out.copy() if out is array else out  # a new array, as NumPy's


def _pad_pairs(x, ndim: int, as_index: bool = False):
    """NumPy's reading of pad_width and constant_values: one (before, after) pair per dim."""
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(np.intp, copy=False)
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    if x.ndim < 3 and x.size == 1:
        return [[x.flat[0]] * 2] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        return [list(x.flat)] * ndim
    return np.broadcast_to(x, (ndim, 2)).tolist()


_PYTHON_NUMBER_DTYPES = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    """``dst[...] = src`` where ``where`` holds, in place: ``src`` broadcast to ``dst``'s shape
    and cast to its dtype when NumPy's ``casting`` rule allows it (a Python number by its
    kind, an int checked to fit, as NumPy 2 does)."""
    if not isinstance(dst, Tracer):
        if prims.holds_tracer((src, where)):
            raise UnsupportedError(f"numpy.copyto into a NumPy array of traced values (at "
                                   f"{user_location()}): make the array a traced one first "
                                   "(jitcore.numpy.asarray), or write dst[...] = np.where(...)")
        return np.copyto(dst, src, casting=casting, where=where)
    if type(src) in _PYTHON_NUMBER_DTYPES:
        source = np.dtype(_PYTHON_NUMBER_DTYPES[type(src)])
        if type(src) is int and dst.dtype.kind in "iu":
            info = np.iinfo(dst.dtype)
            if not info.min <= src <= info.max:
                raise JitOverflowError(f"Python integer {src} out of bounds for {dst.dtype}")
            source = dst.dtype
        what = "scalar"
    else:
        src = src if isinstance(src, Tracer) else np.asarray(src)
        source, what = src.dtype, "array data"
    if not np.can_cast(source, dst.dtype, casting):
        raise JitTypeError(f"Cannot cast {what} from {source!r} to {dst.dtype!r} according to the "
                           f"rule {casting!r} (numpy.copyto at {user_location()})")
    value = prims.broadcast_to(prims.as_tracer(dst.owner_trace, src, dst.dtype), dst.shape)
    if where is not True:
        value = np.where(where, value, dst)
    dst[...] = value


@implements(np.copy)
def copy(a, order="K", subok=False):
    """A new array of ``a``'s values (never a view), in the layout ``order`` gives it: 'K'
    (the default) and 'A' keep a Fortran-ordered ``a`` Fortran-ordered, as NumPy does."""
    if not traced(a):
        return np.copy(a, order=order, subok=subok)
    if order not in ("C", "F", "A", "K", None):
        raise JitValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    out = fresh(a)
    out.fortran = a.ndim >= 2 and (order == "F" or (order in ("A", "K") and a.fortran))
    return out


def _tri_select(np_fn, m, k, lower: bool):
    k = operator.index(k)
    if not traced(m):
        return np_fn(m, k)
    if m.ndim == 0:
        raise JitTypeError(f"numpy.{np_fn.__name__} of a 0-d array (NumPy raises TypeError: tri() "
                           "missing 1 required positional argument: 'N')")
    rows, cols = (m.shape[-2:] if m.ndim >= 2 else (m.shape[-1],) * 2)
    keep = np.tri(rows, cols, k if lower else k - 1, dtype=bool)
    zero = np.zeros((), m.dtype)
    out = prims.where(keep, m, zero) if lower else prims.where(keep, zero, m)
    return out


@implements(np.triu)
def triu(m, k=0):
    """``m`` with the elements below its ``k``-th diagonal zeroed (the last two dims)."""
    return _tri_select(np.triu, m, k, lower=False)


@implements(np.tril)
def tril(m, k=0):
    """``m`` with the elements above its ``k``-th diagonal zeroed (the last two dims)."""
    return _tri_select(np.tril, m, k, lower=True)


def _atleast(np_fn, shape_of):
    def fn(*arys):
        if not traced(*arys):
            return np_fn(*arys)
        trace = prims.find_trace(*arys)
        out = [a if isinstance(a, Tracer) else prims.constant(trace, np.asarray(a)) for a in arys]
        out = tuple(prims.reshape_view(a, shape_of(a.shape)) for a in out)  # views, as NumPy's
        return out[0] if len(out) == 1 else out

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    implements(np_fn)(fn)
    return fn


atleast_1d = _atleast(np.atleast_1d, lambda s: s or (1,))
atleast_2d = _atleast(np.atleast_2d, lambda s: s if len(s) >= 2 else (1,) * (2 - len(s)) + s)
atleast_3d = _atleast(np.atleast_3d, lambda s: {0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s))


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-d ones, as NumPy builds them: each input along its own dim
    (the first two swapped for ``indexing="xy"``), broadcast to the full grid unless sparse."""
    if not traced(*xi):
        return np.meshgrid(*xi, copy=copy, sparse=sparse, indexing=indexing)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    trace = prims.find_trace(*xi)
    ndim = len(xi)
    shapes = [[1] * ndim for _ in xi]
    for i, s in enumerate(shapes):
        s[i] = -1
    if indexing == "xy" and ndim > 1:
        shapes[0][:2], shapes[1][:2] = [1, -1], [-1, 1]
    out = [prims.reshape(x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)), tuple(s))
           for x, s in zip(xi, shapes)]
    if not sparse:
        full = np.broadcast_shapes(*(o.shape for o in out))
        out = [prims.broadcast_to(o, full) for o in out]
    return tuple(fresh(o) for o in out)


@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ``ary``, with ``to_begin`` and ``to_end`` around them,
    all in ``ary``'s dtype (NumPy refuses values that do not cast to it by same_kind)."""
    if not traced(ary, to_end, to_begin):
        return np.ediff1d(ary, to_end, to_begin)
    trace = prims.find_trace(ary, to_end, to_begin)
    a = prims.reshape(ary if isinstance(ary, Tracer) else prims.constant(trace, np.asarray(ary)), (-1,))
    if a.dtype == np.bool_:
        raise JitTypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                           "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    diffs = prims.ufunc(np.subtract, a[1:], a[:-1]) if a.size > 1 else \
        prims.constant(trace, np.zeros(0, a.dtype))
    pieces = [_ediff_extra(trace, to_begin, "to_begin", a.dtype), diffs,
              _ediff_extra(trace, to_end, "to_end", a.dtype)]
    pieces = [p for p in pieces if p is not None]
    return prims.convert(prims.concatenate(pieces, 0), a.dtype) if len(pieces) > 1 else pieces[0]


def _ediff_extra(trace, extra, name: str, dtype):
    if extra is None:
        return None
    dt = extra.dtype if isinstance(extra, Tracer) else np.asarray(extra).dtype
    if not np.can_cast(dt, dtype, casting="same_kind"):
        raise JitTypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                           "`same_kind` rule.")
    value = extra if isinstance(extra, Tracer) else prims.constant(trace, np.asarray(extra))
    return prims.convert(prims.reshape(value, (-1,)), dtype)


def _cross_takes_2d() -> bool:
    """Whether the installed NumPy still takes 2-vectors in ``np.cross`` (deprecated in 2.0,
    refused since 2.5): jitcore's cross does as the NumPy it runs with does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross([1.0, 0.0], [0.0, 1.0])
        except ValueError:
            return False
    return True


_CROSS_TAKES_2D = _cross_takes_2d()


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """NumPy's cross product of 2- and 3-vectors along ``axisa``/``axisb`` (or ``axis``),
    component by component in the promoted dtype, the result's vectors along ``axisc``."""
    if not traced(a, b):
        return np.cross(a, b, axisa, axisb, axisc, axis)
    if axis is not None:
        axisa = axisb = axisc = axis
    trace = prims.find_trace(a, b)
    a, b = (x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)) for x in (a, b))
    a, b = prims.moveaxis(a, axisa, -1), prims.moveaxis(b, axisb, -1)
    if not _CROSS_TAKES_2D and (a.shape[-1] != 3 or b.shape[-1] != 3):
        raise JitValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
                            f"{a.shape[-1]} and {b.shape[-1]} dimensional instead. (numpy.cross at "
                            f"{user_location()})")
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of 3-dimensional "
                      "vectors instead. (deprecated in NumPy 2.0)", DeprecationWarning, stacklevel=3)
    dtype = np.result_type(a.dtype, b.dtype)
    ac = [prims.convert(a[..., i], dtype) for i in range(a.shape[-1])]
    bc = [prims.convert(b[..., i], dtype) for i in range(b.shape[-1])]

    def mul(x, y):
        return prims.ufunc(np.multiply, x, y)

    def sub(x, y):
        return prims.ufunc(np.subtract, x, y)

    z = sub(mul(ac[0], bc[1]), mul(ac[1], bc[0]))
    if len(ac) == 2 and len(bc) == 2:  # (of two 2-vectors: a 0-d array, as NumPy's, no scalar)
        return fresh(z, False) if z.ndim == 0 else z
    if len(ac) == 2:
        parts = [mul(ac[1], bc[2]), prims.ufunc(np.negative, mul(ac[0], bc[2])), z]
    elif len(bc) == 2:
        parts = [prims.ufunc(np.negative, mul(ac[2], bc[1])), mul(ac[2], bc[0]), z]
    else:
        parts = [sub(mul(ac[1], bc[2]), mul(ac[2], bc[1])), sub(mul(ac[2], bc[0]), mul(ac[0], bc[2])), z]
    shape = np.broadcast_shapes(*(p.shape for p in parts))
    out = prims.concatenate([prims.reshape(prims.broadcast_to(p, shape), shape + (1,)) for p in parts], -1)
    (axisc,) = prims.normalize_axes(axisc, out.ndim, "cross")
    return prims.moveaxis(out, -1, axisc)


# Windows up to this long are summed as shifted copies of ``a * w[j]`` (one fused kernel);
# longer ones gather the windows (a static index array of (n + m - 1) x m elements).
SHIFTED_TAPS = 64


def _full_correlation(a: Tracer, w: Tracer, start: int = 0, length: int | None = None) -> Tracer:
    """``c[k] = sum_j a[k + j - (m - 1)] * w[j]`` for the overlaps ``k`` from ``start`` on
    (``length`` of them; every one by default), zeros outside ``a``, in the promoted dtype
    (integers wrap as NumPy's do; booleans are an "or" of "and"s).

    A short window: the sum over j, in order, of ``a[...] * w[j]`` padded to its place, so a
    term past a's ends is a zero left out rather than ``0 * w[j]`` (which is nan for an inf in
    w); the m terms fuse into one kernel that reads ``a`` m times through shifted maps. A long
    one: a sum along the windows of ``a`` (zero-padded where an output's window passes its
    ends) times ``w``, as a gather at window positions that ``fuse`` puts into the sum's loop
    (no (n, m) array; each output one dot product of contiguous elements). Where a window
    passes a's ends, the terms outside ``a`` are masked out, as NumPy's overlap leaves them
    out (``0 * inf`` in w would be nan); the CPU then runs each output over its overlap alone
    (``codegen/masked_rows.py``): the full autocorrelation's triangle, not its rectangle."""
    n, m = a.shape[0], w.shape[0]
    length = n + m - 1 - start if length is None else length
    dtype = np.result_type(a.dtype, w.dtype)
    if m <= SHIFTED_TAPS:
        a, w = prims.convert(a, dtype), prims.convert(w, dtype)
        total = None
        for j in range(m):
            first = start + j - (m - 1)  # a's index read at output ``start``
            lo, hi = max(first, 0), min(first + length, n)
            if hi <= lo:  # this tap meets no element of a in the window: left out
                continue
            tap = prims.reshape(prims.slice_(w, (j,), (1,), (1,)), ())
            piece = prims.ufunc(np.multiply, prims.slice_(a, (lo,), (1,), (hi - lo,)), tap)  # bools: and
            term = prims.pad(piece, ((lo - first, first + length - hi),), 0)
            total = term if total is None else prims.ufunc(np.add, total, term)  # bools: or
        if total is None:
            return prims.broadcast_to(prims.constant(a.owner_trace, np.zeros((), dtype)), (length,))
        return total
    a, w = prims.convert(a, dtype), prims.convert(w, dtype)
    before = max(0, (m - 1) - start)  # zeros a's first windows read before a[0]
    after = max(0, start + length - n)  # and its last ones after a[n - 1]
    source = prims.pad(a, ((before, after),), 0) if before or after else a
    windows = window_positions(a.owner_trace, length, m, start - (m - 1) + before)
    products = prims.ufunc(np.multiply, indexing.take(source, windows, 0), w)  # bools: and
    kind = "or" if dtype == np.bool_ else "sum"
    if before or after:  # terms past a's ends left out, as NumPy's overlap leaves them out
        outside = np.logical_or(windows < before, windows >= before + n)
        products = prims.where(outside, np.zeros((), dtype), products)
    return prims.reduction(kind, products, 1, False, dtype)


def _sliding(name: str, a, v, mode: str, conjugate: bool, same_start):
    trace = prims.find_trace(a, v)
    a, v = (x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)) for x in (a, v))
    for x in (a, v):
        if x.ndim != 1:
            raise ValueError("object too deep for desired array" if x.ndim > 1 else
                             "object of too small depth for desired array")
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        start, length = 0, n + m - 1
    elif mode == "same":
        start, length = same_start(n, m), max(n, m)
    elif mode == "valid":
        start, length = min(n, m) - 1, max(n, m) - min(n, m) + 1
    else:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    if n < m:  # the longer array as the signal, as NumPy's loop takes it: short windows
        return _swapped(name, a, v, start, length, conjugate)
    w = _conjugate(v) if conjugate else v
    return _full_correlation(a, w[::-1] if name == "convolve" else w, start, length)


def _conjugate(x: Tracer) -> Tracer:
    return prims.ufunc(np.conjugate, x) if x.dtype.kind == "c" else x


def _swapped(name: str, a, v, start: int, length: int, conjugate: bool) -> Tracer:
    """Outputs ``start ... start + length - 1`` of ``a``'s convolution or correlation with the
    longer ``v``, computed with ``v`` as the signal. A convolution is the same either way round;
    a full correlation's element ``k`` is the conjugate of the swapped one's element
    ``n + m - 2 - k``."""
    if name == "convolve":
        return _full_correlation(v, a[::-1], start, length)
    last = a.shape[0] + v.shape[0] - 2
    taps = _conjugate(a) if conjugate else a
    swapped = _full_correlation(v, taps, last - start - length + 1, length)[::-1]
    return _conjugate(swapped) if conjugate else swapped



@implements(np.convolve)
def convolve(a, v, mode="full"):
    """NumPy's discrete convolution of two 1-d arrays with static lengths (modes full, same,
    valid), each output one dot product of a window; float sums in another order than NumPy's."""
    if not traced(a, v):
        return np.convolve(a, v, mode)
    return _sliding("convolve", a, v, mode, False, lambda n, m: (min(n, m) - 1) // 2)


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    """NumPy's cross-correlation ``c[k] = sum_n a[n + k] * conj(v[n])`` of two 1-d arrays
    with static lengths (modes valid, same, full)."""
    if not traced(a, v):
        return np.correlate(a, v, mode)
    return _sliding("correlate", a, v, mode, True, lambda n, m: (m - 1) // 2 if n >= m else n // 2)
