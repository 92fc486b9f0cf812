"""Gathers and scatters along one axis, at indices given as arrays (issue 12, item 6):
``take_along_axis``, ``put_along_axis``, ``choose``, ``fill_diagonal``.

Each builds NumPy's fancy index (an ``arange`` along every other dim, broadcast against the
given indices) and reads or writes through it, so it records what ``a[index]`` and
``a[index] = v`` record: an index out of range raises IndexError after the call, as any traced
gather or scatter does.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import JitValueError, UnsupportedError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, refuse_traced, user_location

__all__ = ["choose", "fill_diagonal", "put_along_axis", "take_along_axis"]


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


def _untraced_target(name: str):
    raise UnsupportedError(f"numpy.{name}: under jit the array written in place must be a traced one "
                           f"(an argument or an array made inside the function; at {user_location()})")


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
    if not isinstance(arr, Tracer):
        _untraced_target("put_along_axis")
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
    if not isinstance(a, Tracer):
        _untraced_target("fill_diagonal")
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


