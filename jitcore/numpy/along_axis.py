"""Gathers and scatters along one axis, at indices given as arrays (issue 12, item 6):
``take_along_axis``, ``put_along_axis``, ``choose``, ``fill_diagonal``, ``put``, ``place``,
``putmask``, ``ix_``; and ``apply_along_axis`` (a compiled loop over the slices).

Each builds NumPy's fancy index (an ``arange`` along every other dim, broadcast against the
given indices) and reads or writes through it, so it records what ``a[index]`` and
``a[index] = v`` record: an index out of range raises IndexError after the call, as any traced
gather or scatter does.
"""

from __future__ import annotations

import numpy as np

from jitcore import control_flow
from jitcore import primitives as prims
from jitcore.data_size_advice import data_size_advice
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, refuse_traced, user_location

__all__ = ["apply_along_axis", "choose", "fill_diagonal", "ix_", "place", "put", "put_along_axis",
           "putmask", "take_along_axis"]


def _along_axis_index(shape: tuple[int, ...], indices, axis: int) -> tuple:
    """NumPy's fancy index for ``arr[index]`` along ``axis``: ``indices`` there and an
    ``arange`` of each other dim, shaped to broadcast with it."""
    index = []
    for k, n in enumerate(shape):
        if k == axis:
            index.append(indices)
        else:
            index.append(np.arange(n).reshape(tuple(n if j == k else 1 for j in range(len(shape)))))
    return tuple(index)


def _check_indices(name: str, arr, indices, axis):
    refuse_traced(axis, f"the axis of numpy.{name}")
    dtype = indices.dtype if isinstance(indices, Tracer) else np.asarray(indices).dtype
    if dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        return np.ravel(arr), 0
    if np.ndim(indices) != np.ndim(arr):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    (axis,) = prims.normalize_axes(axis, np.ndim(arr), name)
    return arr, axis


def _written(name: str, a, *others):
    """The array ``np.{name}(a, ...)`` writes in place: ``a`` if traced; a NumPy array made
    while tracing (``A = np.zeros((3, 3))``), or a global, as the traced copy every holder of
    it reads from then on, as a subscript write ``A[i, i] = v`` makes it (``_writable``)."""
    if isinstance(a, Tracer):
        return a
    if isinstance(a, np.ndarray):
        from jitcore import calltime  # (here: calltime imports jitcore.numpy)
        from jitcore.autograph.local_arrays import shared_copy

        trace = next(x for x in others if isinstance(x, Tracer)).owner_trace
        seen = calltime.written_array(trace, a, create=True)
        return shared_copy(a, trace) if seen is None else seen
    raise UnsupportedError(_UNTRACED.format(name=name, what=f"a {type(a).__name__}",
                                            where=user_location()))


_UNTRACED = ("numpy.{name}: under jit the array it writes in place must be an argument of the "
             "jitted function or a NumPy array the function made (np.zeros((3, 3))), not {what} "
             "(at {where}); make it with np.zeros/np.empty in the function, or pass it in")


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    """``arr`` read at ``indices`` along ``axis`` (None: along the flattened array)."""
    if not traced(arr, indices):
        return np.take_along_axis(arr, indices, axis)
    arr, axis = _check_indices("take_along_axis", arr, indices, axis)
    if not isinstance(arr, Tracer):
        arr = prims.constant(indices.owner_trace, np.asarray(arr))
    return arr[_along_axis_index(arr.shape, indices, axis)]


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    """``arr`` written at ``indices`` along ``axis``, in place (returns None, as NumPy)."""
    if not traced(arr, indices, values):
        return np.put_along_axis(arr, indices, values, axis)
    arr = _written("put_along_axis", arr, indices, values)
    if axis is None:
        raise UnsupportedError("numpy.put_along_axis: axis=None (writing through the flattened array) "
                               f"is not supported under jit (at {user_location()})")
    _, axis = _check_indices("put_along_axis", arr, indices, axis)
    arr[_along_axis_index(arr.shape, indices, axis)] = values
    return None


@implements(np.choose)
def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]``: the choices broadcast with ``a`` and stacked, then gathered along
    the stacked dim. ``mode='wrap'`` takes ``a`` modulo their number, ``'clip'`` clips it."""
    if not traced(a, *choices):
        return np.choose(a, choices, out=out, mode=mode)
    if out is not None:
        raise UnsupportedError(f"numpy.choose: out= is not supported under jit (at {user_location()})")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    trace = prims.find_trace(a, *choices)
    a = a if isinstance(a, Tracer) else prims.constant(trace, np.asarray(a))
    if a.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from {a.dtype} to int64 according to the rule 'safe'")
    n = len(choices)
    if n == 0:
        raise ValueError("0-length sequence.")
    stacked = np.stack(np.broadcast_arrays(a, *choices)[1:])
    if mode == "wrap":
        a = np.mod(a, n)
    elif mode == "clip":
        a = np.clip(a, 0, n - 1)
    which = np.broadcast_to(a, stacked.shape[1:])[None]
    return np.take_along_axis(stacked, which.astype(np.intp), axis=0)[0]


@implements(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    """``a``'s main diagonal set to ``val`` (repeated as needed), in place, at NumPy's flat
    positions (a tall 2-d array with ``wrap=True`` restarts below, as NumPy's)."""
    if not traced(a, val):
        return np.fill_diagonal(a, val, wrap)
    a = _written("fill_diagonal", a, val)
    if a.ndim < 2:
        raise JitValueError(f"array must be at least 2-d (numpy.fill_diagonal at {user_location()})")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise JitValueError(f"All dimensions of input must be of equal length (numpy.fill_diagonal at "
                            f"{user_location()})")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = None if wrap else a.shape[1] * a.shape[1]
    else:
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
        end = None
    flat = np.arange(a.size)[:end:step]
    if flat.size == 0:
        return None
    position = np.unravel_index(flat, a.shape)
    if isinstance(val, Tracer):
        cycle = np.ravel(val)
        if cycle.shape[0] == 0:
            return None
        val = cycle[np.arange(flat.size) % cycle.shape[0]]
    else:
        cycle = np.ravel(np.asarray(val))
        if cycle.size == 0:
            return None
        val = np.resize(cycle, flat.size)
    a[position] = val
    return None




def _as_traced(a, *others) -> Tracer:
    return a if isinstance(a, Tracer) else prims.constant(prims.find_trace(a, *others), np.asarray(a))


def _cycled(values, count: int, dtype):
    """``values`` flattened and repeated to ``count`` items (NumPy's rule for ``put`` and
    ``putmask``), or None when there are none."""
    flat = np.ravel(values) if isinstance(values, Tracer) else np.ravel(np.asarray(values))
    if flat.shape[0] == 0 or count == 0:
        return None
    if isinstance(flat, Tracer):
        return flat[np.arange(count) % flat.shape[0]]
    return np.resize(flat, count).astype(dtype, copy=False) if flat.dtype.kind in "biufc" else flat


def _write_flat(a: Tracer, flat) -> None:
    """``a``'s elements, in C order, replaced by ``flat``'s (in place, whatever ``a``'s layout)."""
    a[...] = np.reshape(flat, a.shape)


@implements(np.put)
def put(a, ind, v, mode="raise"):
    """``a.flat[ind] = v`` in place: ``v`` repeated to ``ind``'s length; ``mode`` 'raise'
    (an index out of range raises IndexError after the call), 'wrap' or 'clip'."""
    if not traced(a, ind, v):
        return np.put(a, ind, v, mode)
    a = _written("put", a, ind, v)
    if mode not in ("raise", "wrap", "clip"):
        raise JitValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r}, "
                            f"numpy.put at {user_location()})")
    ind = np.ravel(ind) if isinstance(ind, Tracer) else np.ravel(np.asarray(ind))
    if ind.dtype.kind not in "iu":
        raise JitTypeError(f"numpy.put: the indices must be integers, not {ind.dtype} (NumPy "
                           f"refuses to cast them; at {user_location()})")
    n = a.size
    if n == 0 and ind.shape[0]:
        raise IndexError("cannot replace in an empty array" if mode == "raise" else
                         "put: cannot do a non-empty put on an empty array")
    values = _cycled(v, ind.shape[0], a.dtype)
    if values is None:
        return None
    if mode == "wrap":
        ind = np.mod(ind, n)
    elif mode == "clip":
        ind = np.clip(ind, 0, n - 1)
    flat = np.ravel(a)
    flat[ind] = values
    _write_flat(a, flat)
    return None


@implements(np.putmask)
def putmask(a, mask, values):
    """``a.flat[i] = values.flat[i % len(values)]`` where ``mask.flat[i]``, in place."""
    if not traced(a, mask, values):
        return np.putmask(a, mask, values)
    a = _written("putmask", a, mask, values)
    if np.size(mask) != a.size:
        raise JitValueError(f"putmask: mask and data must be the same size (numpy.putmask at "
                            f"{user_location()})")
    cycle = _cycled(values, a.size, a.dtype)
    if cycle is None:
        return None
    mask = np.ravel(mask).astype(bool)
    _write_flat(a, np.where(mask, _as_traced(cycle, a).astype(a.dtype), np.ravel(a)))
    return None


@implements(np.place)
def place(arr, mask, vals):
    """``arr``'s elements where ``mask`` is true set, in order, to ``vals`` (repeated as
    needed), in place: the k-th true element takes ``vals[k % len(vals)]``."""
    if not traced(arr, mask, vals):
        return np.place(arr, mask, vals)
    arr = _written("place", arr, mask, vals)
    if np.size(mask) != arr.size:
        raise JitValueError(f"place: mask and data must be the same size (numpy.place at "
                            f"{user_location()})")
    flat = np.ravel(vals) if isinstance(vals, Tracer) else np.ravel(np.asarray(vals))
    mask = np.ravel(mask).astype(bool)
    if flat.shape[0] == 0:  # NumPy refuses only when some element would take a value
        if isinstance(mask, Tracer):
            raise UnsupportedError(f"numpy.place with empty vals and a traced mask (at {user_location()}): "
                                   "NumPy raises ValueError only if the mask holds a true element, which "
                                   "is known only when called; pass at least one value")
        if mask.any():
            raise JitValueError(f"Cannot insert from an empty array! (numpy.place at {user_location()})")
        return None
    k = np.cumsum(mask) - 1  # the rank of each true element among the true ones
    taken = _as_traced(flat, arr)[np.mod(k, flat.shape[0])].astype(arr.dtype)
    _write_flat(arr, np.where(mask, taken, np.ravel(arr)))
    return None


@implements(np.ix_)
def ix_(*args):
    """The open mesh of 1-d integer index arrays: the k-th reshaped to ``(1,)*k + (-1,) +
    (1,)*(n-k-1)``. Boolean ones would become ``nonzero`` indices, whose number depends on the
    data: those are refused under jit."""
    if not traced(*args):
        return np.ix_(*args)
    out = []
    for k, seq in enumerate(args):
        seq = seq if isinstance(seq, Tracer) else np.asarray(seq)
        if seq.ndim != 1:
            raise JitValueError(f"Cross index must be 1 dimensional (numpy.ix_ at {user_location()})")
        if seq.dtype.kind == "b" and isinstance(seq, Tracer):
            static = data_size_advice((seq,), matrix=True)
            raise JitTypeError(f"numpy.ix_ of a traced boolean array gives indices whose number depends "
                               f"on the data (at {user_location()})."
                               + (static or " Select with a mask of the full size instead: "
                                  "jitcore.numpy.where(keep[:, None] & keep, x, fill)"))
        if seq.size == 0 and not isinstance(seq, Tracer):
            seq = seq.astype(np.intp)
        out.append(np.reshape(seq, (1,) * k + (seq.shape[0],) + (1,) * (len(args) - k - 1)))
    return tuple(out)


@implements(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` on each 1-d slice of ``arr`` along ``axis``, its results stacked where the
    axis was (NumPy's layout: the result's dims replace ``axis``). The first slice is traced
    as it is, to know the result's shape and dtype (later results are converted to it, as
    NumPy's buffer does); the others run in one compiled loop (``fori_loop``) over a traced
    slice index, so the compile time does not grow with the number of slices. Called from the
    user's converted code, ``func1d`` is converted too (``autograph.runtime``)."""
    if not traced(arr):
        return np.apply_along_axis(func1d, axis, arr, *args, **kwargs)
    nd = arr.ndim
    (axis,) = prims.normalize_axes(axis, nd, "apply_along_axis")
    view = np.moveaxis(arr, axis, -1)
    outer = view.shape[:-1]
    count = int(np.prod(outer, dtype=np.int64))
    if count == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    rows = prims.reshape(view, (count, view.shape[-1]))
    first = prims.array_operand(func1d(rows[0], *args, **kwargs))
    first = first if isinstance(first, Tracer) else prims.constant(arr.owner_trace, np.asarray(first))
    buff = prims.reshape(first, (1,) + first.shape)
    if count > 1:
        rest = np.zeros((count - 1,) + first.shape, first.dtype)

        def body(i, out):
            value = prims.array_operand(func1d(rows[i + 1], *args, **kwargs))
            return out.at[i].set(prims.convert(value, first.dtype) if isinstance(value, Tracer)
                                 else np.asarray(value).astype(first.dtype))

        rest = control_flow.fori_loop(0, count - 1, body, prims.constant(arr.owner_trace, rest))
        buff = np.concatenate((buff, rest))
    buff = prims.reshape(buff, outer + first.shape)
    dims = list(range(buff.ndim))
    res_nd = first.ndim
    return np.transpose(buff, dims[:axis] + dims[buff.ndim - res_nd:] + dims[axis:buff.ndim - res_nd])
