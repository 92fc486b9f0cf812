"""``numpy.lib.stride_tricks.sliding_window_view`` under ``jit``.

NumPy returns a read-only view whose windows overlap in memory; under ``jit`` the windows are
computed from the array (shifted slices or one gather per windowed axis), so a moving median or
a moving average reads as it does in NumPy, as a read-only view (``tracer.make_view``): a later
write to the array shows through, and a write to the windows raises NumPy's ValueError.
``writeable=True``, whose writes would reach the original through the overlapping view, is
refused.
The function is not a top-level NumPy name, so nothing here is exported from ``jitcore.numpy``:
importing the module registers it.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import JitValueError, UnsupportedError
from jitcore.indexing import take
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import make_view, user_location

__all__: list[str] = []


@implements(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """Every window of ``window_shape`` along ``axis`` (all axes for None); the window dims are
    appended after ``x``'s, each windowed axis shortened by its window length minus one."""
    if not traced(x):
        return np.lib.stride_tricks.sliding_window_view(x, window_shape, axis, subok=subok,
                                                        writeable=writeable)
    if writeable:
        raise UnsupportedError("sliding_window_view(..., writeable=True) is not supported under jit: its "
                               f"writes would reach the original array through overlapping windows "
                               f"(at {user_location()})")
    windows = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    windows = tuple(operator.index(w) for w in windows)
    if any(w < 0 for w in windows):
        raise ValueError(f"`window_shape` cannot contain negative values (at {user_location()})")
    if axis is None:
        if len(windows) != x.ndim:
            raise ValueError(f"Since axis is `None`, must provide window_shape for all dimensions of `x`; "
                             f"got {len(windows)} window_shape elements and `x.ndim` is {x.ndim}. "
                             f"(at {user_location()})")
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(axis) if np.iterable(axis) else (axis,)
        axes = tuple(prims.normalize_axes(a, x.ndim, "sliding_window_view")[0] for a in axes)  # may repeat
        if len(windows) != len(axes):
            raise ValueError(f"Must provide matching length window_shape and axis; got {len(windows)} "
                             f"window_shape elements and {len(axes)} axes elements. (at {user_location()})")
    # A read-only view, as NumPy's: a later write to ``x`` shows through it, a write to it raises
    return make_view(x, lambda base: _windows(base, axes, windows), _read_only,
                     model=lambda m: np.lib.stride_tricks.sliding_window_view(m, windows, axis))


def _windows(x, axes, windows):
    out = x
    for ax, w in zip(axes, windows, strict=True):  # an axis may come twice: its windows nest
        n = out.shape[ax] - w + 1
        if n < 1:
            raise ValueError(f"window shape cannot be larger than input array shape (at {user_location()})")
        out = _windows_along(out, ax, w, n)
    return out


def _read_only(base, value):
    raise JitValueError(f"assignment destination is read-only: the array is a view made by "
                        f"sliding_window_view (NumPy raises the same ValueError), at {user_location()}; "
                        "write to a copy (sliding_window_view(x, w).copy()) or to the array it views")


SLICED_WINDOWS = 32  # up to this length, one shifted slice per window position; beyond, a gather


def _windows_along(x, ax: int, w: int, n: int):
    """``x`` with axis ``ax`` cut into its ``n`` windows of length ``w``, the window dim last.

    Shifted slices are strided reads that fuse into the kernel consuming them, but each is an op,
    so long windows take one gather of a constant (n, w) position table instead."""
    if 0 < w <= SLICED_WINDOWS:  # (no windows of length 0 to stack)
        before = (slice(None),) * ax
        return np.stack([x[before + (slice(k, k + n),)] for k in range(w)], axis=-1)
    return prims.moveaxis(take(x, window_positions(x.owner_trace, n, w), ax), ax + 1, -1)


def window_positions(trace, n: int, w: int, first: int = 0):
    """The ``(n, w)`` positions of ``n`` windows of length ``w`` (row i: ``first + i, ...,
    first + i + w - 1``) as the sum of two small constants, which the gather computes as it
    reads: a constant table of ``n * w`` positions was compiled into the module (hundreds of
    MiB for an STFT). Both are aranges, so ``fuse`` computes them from the kernel's positions
    (``passes/index_tables.py``) and a reduction over the windows reads each as a run of
    contiguous elements."""
    rows = prims.constant(trace, np.arange(first, first + n, dtype=np.int64)[:, None])
    # (clipped into the read axis, the gather would check no index: measured slower, 21 ms
    # against 11 for a 48000 x 255 convolution, session 43)
    return prims.ufunc(np.add, rows, prims.constant(trace, np.arange(w, dtype=np.int64)[None, :]))
