"""Index helpers of a traced array: ``triu_indices_from``, ``tril_indices_from`` and
``diag_indices_from`` read only the array's static shape, so they are NumPy's constant indices;
``ravel_multi_index`` of traced coordinates is the flat index computed in the trace, with
NumPy's ``mode`` (``'raise'``: its ValueError when the function runs; ``'wrap'``; ``'clip'``).
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import JitTypeError, JitValueError
from jitcore.ir.dialects import kernel
from jitcore.numpy.everyday import raise_at_first
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import Tracer, refuse_traced, user_location

__all__ = ["diag_indices_from", "ravel_multi_index", "tril_indices_from", "triu_indices_from"]


def _shape_only(np_fn):
    """``np_fn(arr, ...)`` where only ``arr``'s shape matters: NumPy's own call on a stand-in of
    that shape (its checks and errors), the indices constants."""
    def fn(arr, *args, **kwargs):
        if traced(arr):
            for v in (*args, *kwargs.values()):
                refuse_traced(v, f"the arguments of numpy.{np_fn.__name__}")
            arr = np.broadcast_to(np.zeros((), arr.dtype), arr.shape)
        return np_fn(arr, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"``numpy.{np_fn.__name__}`` of an array's static shape: constant indices."
    return implements(np_fn)(fn)


triu_indices_from, tril_indices_from, diag_indices_from = (
    _shape_only(f) for f in (np.triu_indices_from, np.tril_indices_from, np.diag_indices_from))


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat index of traced coordinates into a static shape ``dims``, in C or F order."""
    if not traced(*multi_index):
        return np.ravel_multi_index(multi_index, dims, mode, order)
    refuse_traced(dims, "the shape of numpy.ravel_multi_index")
    dims = tuple(operator.index(d) for d in (dims if np.ndim(dims) else (dims,)))
    if len(multi_index) != len(dims):
        raise JitValueError(f"parameter multi_index must be a sequence of length {len(dims)} "
                            f"(numpy.ravel_multi_index at {user_location()})")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if order not in ("C", "F") or any(m not in ("raise", "wrap", "clip") for m in modes):
        raise JitValueError(f"numpy.ravel_multi_index: order must be 'C' or 'F' and each mode "
                            f"'raise', 'wrap' or 'clip' (at {user_location()})")
    like = next(c for c in multi_index if isinstance(c, Tracer))
    coords = [c if isinstance(c, Tracer) else prims.constant(like.owner_trace, np.asarray(c))
              for c in multi_index]
    if any(c.dtype.kind not in "iu" for c in coords):
        raise JitTypeError(f"only int indices permitted (numpy.ravel_multi_index at {user_location()})")
    coords = np.broadcast_arrays(*(prims.convert(c, np.dtype(np.intp)) for c in coords))
    flat, stride = None, 1
    for axis in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        c, n = coords[axis], dims[axis]
        if modes[axis] == "wrap":
            c = np.remainder(c, n) if n else c
        elif modes[axis] == "clip":
            c = np.clip(c, 0, max(n - 1, 0))
        else:
            raise_at_first((c < 0) | (c >= n), c, kernel.INVALID_COORDINATE)
        flat = c * stride if flat is None else flat + c * stride
        stride *= n
    return flat
