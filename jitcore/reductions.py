"""``numpy.argmax``/``argmin`` and ``numpy.cumsum``/``cumprod`` under ``jit``: each one
``array.argreduce`` or ``array.scan`` along one axis.

With ``axis=None`` the array is flattened first (C order); a 0-d array counts as 1-d, as in
NumPy (so ``argmax`` of it is 0 and ``cumsum`` of it has shape ``(1,)``). argmax/argmin return
int64, the first index on ties and the first NaN if there is one; an empty axis is a
``JitTypeError`` with NumPy's message. cumsum/cumprod accumulate in NumPy's dtype (int64 for
bool and signed integers, uint64 for unsigned ones, the float's own type; or ``dtype=``), one
element after another as NumPy does, so float results are bit-identical to NumPy's. Importing
this module registers the functions in ``jitcore.numpy`` (see its last line).
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import numpy as _jnp
from jitcore import primitives as prims
from jitcore.dtypes import ir_type
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.ir.dialects.array import ArgReduceOp, ScanOp
from jitcore.ir.types import TensorType, i64
from jitcore.tracer import Tracer, fresh, user_location

__all__ = ["argmax", "argmin", "cumprod", "cumsum"]


def _emit(op_cls, x: Tracer, result_type: TensorType, kind: str, axis: int) -> Tracer:
    op = x.trace.builder.create(op_cls, [x.value], [result_type], {"kind": kind, "axis": axis})
    return Tracer(op.result, x.trace, x.sources)


def _one_axis(x: Tracer, axis, name: str) -> tuple[Tracer, int]:
    """``x`` and the axis to work along: flattened for ``axis=None``, 0-d as 1-d."""
    if axis is None or x.ndim == 0:
        x = prims.reshape(x, (-1,))
    if axis is None:
        return x, 0
    try:
        axis = operator.index(axis)
    except TypeError:
        raise JitTypeError(f"{name}: axis must be an integer or None, got {axis!r} "
                           f"(at {user_location()})") from None
    (axis,) = prims.normalize_axes(axis, x.ndim, name)
    return x, axis


def _no_out(name: str, out) -> None:
    if out is not None:
        raise UnsupportedError(f"numpy.{name} with out= is not supported under jit yet "
                               f"(at {user_location()}); use the returned array")


@prims.numpy_scalar
def _argreduce(kind: str, a, axis=None, out=None, keepdims=False):
    name = f"arg{kind}"
    _no_out(name, out)
    x, ax = _one_axis(a, axis, name)
    if x.shape[ax] == 0:
        raise JitTypeError(f"attempt to get {name} of an empty sequence (at {user_location()})")
    shape = x.shape[:ax] + x.shape[ax + 1:]
    result = _emit(ArgReduceOp, x, TensorType(shape, i64), kind, ax)
    if keepdims and a.ndim:
        kept = (1,) * a.ndim if axis is None else a.shape[:ax] + (1,) + a.shape[ax + 1:]
        result = prims.reshape(result, kept)
    return result


def argmax(a, axis=None, out=None, *, keepdims=False):
    """``numpy.argmax``: int64 index of the first largest element (the first NaN, if any)."""
    if not isinstance(a, Tracer):
        return np.argmax(a, axis=axis, out=out, keepdims=keepdims)
    return _argreduce("max", a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """``numpy.argmin``: int64 index of the first smallest element (the first NaN, if any)."""
    if not isinstance(a, Tracer):
        return np.argmin(a, axis=axis, out=out, keepdims=keepdims)
    return _argreduce("min", a, axis, out, keepdims)


_NUMPY_SCANS = {"sum": np.cumsum, "prod": np.cumprod}


def _scan(kind: str, a: Tracer, axis=None, dtype=None, out=None) -> Tracer:
    name = f"cum{kind}"
    _no_out(name, out)
    x, ax = _one_axis(a, axis, name)
    if dtype is None:
        dtype = _NUMPY_SCANS[kind](np.zeros(1, x.dtype)).dtype  # NumPy's accumulator dtype
    dtype = np.dtype(dtype)
    ir_type(dtype)  # a JitTypeError naming an unsupported dtype
    x = prims.convert(x, dtype)
    if x.shape[ax] <= 1:
        return fresh(x)  # nothing to accumulate; still a new array, not the operand
    return _emit(ScanOp, x, x.value.type, kind, ax)


def cumsum(a, axis=None, dtype=None, out=None):
    """``numpy.cumsum``: running sums along ``axis`` (of the flattened array for None)."""
    if not isinstance(a, Tracer):
        return np.cumsum(a, axis=axis, dtype=dtype, out=out)
    return _scan("sum", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """``numpy.cumprod``: running products along ``axis`` (of the flattened array for None)."""
    if not isinstance(a, Tracer):
        return np.cumprod(a, axis=axis, dtype=dtype, out=out)
    return _scan("prod", a, axis, dtype, out)


def _register() -> None:
    for fn, np_fn in ((argmax, np.argmax), (argmin, np.argmin), (cumsum, np.cumsum),
                      (cumprod, np.cumprod)):
        _jnp._implements(np_fn)(fn)
        setattr(_jnp, fn.__name__, fn)


_register()
