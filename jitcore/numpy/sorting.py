"""NumPy's sorting and order statistics under ``jit``: ``sort``, ``argsort``.

Sorting is the compiled ``array.sort``/``array.argsort`` (a stable merge sort per lane, see
``passes/kernelize/sort.py``): every ``kind`` gives the stable order, which is what NumPy's
``kind='stable'`` gives and one of the orders its default ``'quicksort'`` may give (NumPy
documents no tie order for it; values are the same either way). NaN sorts last.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, user_location

__all__ = ["argsort", "sort"]

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def _lane_axis(a: Tracer, axis, name: str, kind, order) -> tuple[Tracer, int]:
    """``a`` (flattened for ``axis=None``) and its normalised sort axis; NumPy's errors."""
    if order is not None:
        raise UnsupportedError(f"numpy.{name} with order= (structured arrays) is not supported "
                               f"under jit (at {user_location()})")
    if kind not in _KINDS:
        raise ValueError(f"{name} kind must be one of 'quick', 'heap', or 'stable' (got {kind!r}) "
                         f"(at {user_location()})")
    if a.dtype.kind == "c":
        raise UnsupportedError(f"numpy.{name} of complex numbers is not supported under jit yet "
                               f"(at {user_location()})")
    if axis is None:
        return prims.reshape(a, (-1,)), 0
    if a.ndim == 0:
        raise np.exceptions.AxisError(operator.index(axis), 0)
    (ax,) = prims.normalize_axes(operator.index(axis), a.ndim, name)
    return a, ax


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.sort``: a sorted copy; ``axis=None`` sorts the flattened array."""
    if not traced(a):
        return np.sort(a, axis=axis, kind=kind, order=order, stable=stable)
    x, ax = _lane_axis(a, axis, "sort", kind, order)
    return prims.sort(x, ax)


@implements(np.argsort)
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.argsort``: int64 positions in stable order (ties keep their input order)."""
    if not traced(a):
        return np.argsort(a, axis=axis, kind=kind, order=order, stable=stable)
    x, ax = _lane_axis(a, axis, "argsort", kind, order)
    return prims.argsort(x, ax)
