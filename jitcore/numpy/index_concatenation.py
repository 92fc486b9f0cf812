"""``r_`` and ``c_``: NumPy's index-syntax concatenation (``np.r_[a, 0, 1:4]``,
``np.c_[x, y]``) of traced arrays.

NumPy's ``AxisConcatenator.__getitem__`` makes each item an array with ``np.array``, which a
traced value cannot become; these objects read the key by NumPy's rules (slices as ``arange``
or, with a complex step, ``linspace``; a leading string directive ``'axis'``,
``'axis,ndmin'`` or ``'axis,ndmin,trans1d'``; scalars weak in the result's dtype; each item
raised to ``ndmin`` dimensions, a 1-d one placed by ``trans1d``) and concatenate with
jitcore's ``concatenate``. Converted code's subscript reads of ``np.r_``/``np.c_`` come here
when the key holds a traced value (``autograph/expressions.getitem``); without one, NumPy's own
object answers. The matrix directives (``'r'``, ``'c'``, a string key) build ``np.matrix``,
an array subclass jitcore does not trace: refused.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import JitValueError, UnsupportedError
from jitcore.masked import MaskedSelection
from jitcore.numpy.creation import array
from jitcore.tracer import user_location

__all__ = ["c_", "r_"]


class TracedConcatenator:
    """NumPy's ``numpy_object`` (``np.r_`` or ``np.c_``) for keys that hold traced values."""

    __slots__ = ("numpy_object",)

    def __init__(self, numpy_object):
        self.numpy_object = numpy_object

    def __len__(self):
        return 0  # as NumPy's

    def __getitem__(self, key):
        if not prims.holds_tracer(key):
            return self.numpy_object[key]
        return concatenate_by_index(self.numpy_object, key)

    def __repr__(self):
        return f"jitcore.numpy.{'c_' if self.numpy_object is np.c_ else 'r_'}"


def _directive(item: str, axis: int, ndmin: int, trans1d: int) -> tuple[int, int, int]:
    """A leading string item's (axis, ndmin, trans1d), as NumPy reads it."""
    if item in ("r", "c"):
        raise UnsupportedError(f"np.r_/np.c_ with the matrix directive {item!r} (at "
                               f"{user_location()}) builds an np.matrix, which jit does not trace; "
                               "use the plain form and reshape")
    try:
        numbers = [int(x) for x in item.split(",")]
    except ValueError:
        raise JitValueError(f"unknown special directive {item!r} (at {user_location()})") from None
    if len(numbers) == 1:
        return numbers[0], ndmin, trans1d
    if len(numbers) in (2, 3):
        return numbers[0], numbers[1], numbers[2] if len(numbers) == 3 else trans1d
    raise JitValueError(f"unknown special directive {item!r} (at {user_location()})")


def _range(item: slice):
    """A slice item: ``arange(start, stop, step)``, or ``linspace`` of ``abs(step)`` points when
    the step is complex (``np.r_[0:1:5j]``)."""
    if prims.holds_tracer((item.start, item.stop, item.step)):
        raise UnsupportedError(f"np.r_/np.c_ of a slice with traced bounds (at {user_location()}): "
                               "its length would depend on the data; use numbers, or "
                               "np.arange with static bounds")
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if isinstance(step, (complex, np.complexfloating)):
        return np.linspace(start, item.stop, num=int(abs(step)))
    return np.arange(start, item.stop, step)


def holds_selection(key) -> bool:
    """Does the key hold a selection of a run-time length (``np.r_[np.nonzero(m)[0], n]``)?"""
    return any(isinstance(k, MaskedSelection) for k in (key if isinstance(key, tuple) else (key,)))


def concatenate_by_index(concatenator, key):
    """``concatenator[key]`` as NumPy computes it, with traced items."""
    if isinstance(key, str):
        _directive("r", 0, 0, 0)  # np.r_["1 2; 3 4"]: a matrix expression, refused
    key = key if isinstance(key, tuple) else (key,)
    axis, ndmin, trans1d = concatenator.axis, concatenator.ndmin, concatenator.trans1d
    objs, promoted = [], []
    for k, item in enumerate(key):
        if isinstance(item, str):
            if k != 0:
                raise JitValueError(f"special directives must be the first entry (at {user_location()})")
            axis, ndmin, trans1d = _directive(item, axis, ndmin, trans1d)
            continue
        if isinstance(item, slice):
            obj = _range(item)
            if ndmin > 1:
                obj = np.array(obj, ndmin=ndmin)
                obj = obj.swapaxes(-1, trans1d) if trans1d != -1 else obj
            promoted.append(obj.dtype)
        elif isinstance(item, MaskedSelection) and item.ndim == 1 and ndmin <= 1:
            obj = item  # joined at its length (run_length.concatenate)
            promoted.append(item.dtype)
        elif type(item) in np.ScalarType:
            obj = item  # weak in the result's dtype when a Python number, as in NumPy
            promoted.append(item)
        else:
            obj = array(item, copy=False)
            item_ndim = obj.ndim
            obj = array(obj, copy=False, ndmin=ndmin)
            if trans1d != -1 and item_ndim < ndmin:
                # NumPy's placement of the item's own axes among the ndmin ones.
                k2, k1 = ndmin - item_ndim, trans1d
                k1 = k1 + k2 + 1 if k1 < 0 else k1
                axes = list(range(ndmin))
                obj = obj.transpose(axes[:k1] + axes[k2:] + axes[k1:k2])
            promoted.append(obj.dtype)
        objs.append(obj)
    if not objs:
        raise JitValueError(f"need at least one array to concatenate (at {user_location()})")
    dtype = np.result_type(*promoted)
    if any(isinstance(obj, MaskedSelection) for obj in objs):
        objs = [obj if isinstance(obj, MaskedSelection) else array(obj, dtype, copy=False, ndmin=1)
                for obj in objs]
        return np.concatenate(objs, axis=axis, dtype=dtype)
    objs = [array(obj, dtype, copy=False, ndmin=ndmin) for obj in objs]
    return np.concatenate(objs, axis=axis)


r_ = TracedConcatenator(np.r_)
c_ = TracedConcatenator(np.c_)
