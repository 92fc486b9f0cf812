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
    if isinstance(dims, Tracer) and dims.ndim == 1:  # dims = ijk.max(0) + 1: one per axis
        dims = tuple(dims[j] for j in range(dims.shape[0]))
    if isinstance(dims, (tuple, list)) and any(isinstance(d, Tracer) for d in dims):
        dims = _traced_dims(dims)  # the result's shape is the coordinates': only values change
    else:
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
            c = np.remainder(c, np.maximum(n, 1)) if isinstance(n, Tracer) else np.remainder(c, n) if n else c
        elif modes[axis] == "clip":
            c = np.clip(c, 0, np.maximum(n - 1, 0))
        else:
            raise_at_first((c < 0) | (c >= n), c, kernel.INVALID_COORDINATE)
        flat = c * stride if flat is None else flat + c * stride
        stride *= n
    return flat


def _traced_dims(dims) -> tuple:
    """``dims`` with some computed in the function (``tuple(ijk.max(0) + 1)``): 0-d intp
    tracers (Python ints as they are), NumPy's ValueErrors for a zero or negative dim, or a size
    past intp's, raised by the call (a callback on the branch taken only then)."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback

    intp = np.dtype(np.intp)
    out = []
    for d in dims:
        if isinstance(d, Tracer):
            if d.ndim or d.dtype.kind not in "iub":
                raise JitTypeError(f"numpy.ravel_multi_index's dims must be integers (at {user_location()})")
            out.append(prims.convert(d, intp))
        else:
            out.append(operator.index(d))
    where = user_location()
    messages = ("cannot unravel if shape has zero entries (is empty).",
                "negative dimensions are not allowed",
                "invalid dims: array size defined by dims is larger than the maximum possible size.")

    def fail(code):
        raise JitValueError(f"{messages[int(code) - 1]} (numpy.ravel_multi_index at {where})")

    size = 1.0
    zero = negative = False
    for d in out:
        zero = zero | (d == 0)
        negative = negative | (d < 0)
        size = size * prims.convert(d, np.dtype(np.float64)) if isinstance(d, Tracer) else size * float(d)
    code = np.where(zero, 1, np.where(negative, 2, np.where(np.abs(size) > float(np.iinfo(intp).max), 3, 0)))
    cond(code != 0, lambda: debug_callback(fail, code), lambda: None)
    return tuple(out)
