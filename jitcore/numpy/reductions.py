"""NumPy's reductions under ``jit``: ``sum``, ``prod``, ``max``, ``min``, ``any``, ``all``,
``mean``, ``var``, ``std`` (each ``array.reduce``, see ``primitives.reduction``), and
``argmax``/``argmin`` and ``cumsum``/``cumprod`` (each one ``array.argreduce`` or ``array.scan``
along one axis).

With ``axis=None`` argmax and cumsum flatten the array first (C order); a 0-d array counts as
1-d, as in NumPy (so ``argmax`` of it is 0 and ``cumsum`` of it has shape ``(1,)``).
argmax/argmin return int64, the first index on ties and the first NaN if there is one; an empty
axis is a ``JitTypeError`` with NumPy's message. cumsum/cumprod accumulate in NumPy's dtype
(int64 for bool and signed integers, uint64 for unsigned ones, the float's own type; or
``dtype=``), one element after another as NumPy does, so float results are bit-identical to
NumPy's.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import primitives as prims
from jitcore.dtypes import ir_type
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.ir.dialects.array import ArgReduceOp, ScanOp
from jitcore.ir.types import TensorType, i64
from jitcore.numpy.registry import HANDLED_FUNCTIONS, implements, traced
from jitcore.tracer import Tracer, fresh, user_location

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "mean", "min",
           "prod", "std", "sum", "var"]


def _reduction(kind, np_fn):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if not traced(a):
            return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)
        _no_extras(np_fn, out=out, **kwargs)
        return prims.reduction(kind, a, axis, keepdims, dtype)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


def _no_extras(np_fn, out=None, **kwargs):
    used = [k for k, v in kwargs.items() if v is not None and k not in ("initial", "where")]
    if out is not None or used or kwargs.get("initial") is not None or kwargs.get("where", True) is not True:
        names = (["out"] if out is not None else []) + used
        raise UnsupportedError(
            f"numpy.{np_fn.__name__} with {', '.join(names) or 'initial/where'} is not supported "
            f"under jit yet (at {user_location()})"
        )


sum = _reduction("sum", np.sum)
prod = _reduction("prod", np.prod)


def _minmax(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, **kwargs):
        if not traced(a):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **kwargs)
        _no_extras(np_fn, out=out, **kwargs)
        return prims.reduction(kind, a, axis, keepdims)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


max = amax = _minmax("max", np.max)
min = amin = _minmax("min", np.min)
HANDLED_FUNCTIONS[np.amax], HANDLED_FUNCTIONS[np.amin] = max, min


def _boolean_reduction(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, **kwargs):
        if not traced(a):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **kwargs)
        _no_extras(np_fn, out=out, **kwargs)
        return prims.reduction(kind, prims.as_bool(a), axis, keepdims)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


any = _boolean_reduction("or", np.any)
all = _boolean_reduction("and", np.all)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    if not traced(a):
        return np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)
    _no_extras(np.mean, out=out, **kwargs)
    return prims.mean(a, axis, keepdims, dtype)


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    if not traced(a):
        return np.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
    _no_extras(np.var, out=out, **kwargs)
    return prims.variance(a, axis, keepdims, dtype, ddof)


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    if not traced(a):
        return np.std(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
    _no_extras(np.std, out=out, **kwargs)
    return prims.ufunc(np.sqrt, prims.variance(a, axis, keepdims, dtype, ddof))


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


@implements(np.argmax)
def argmax(a, axis=None, out=None, *, keepdims=False):
    """``numpy.argmax``: int64 index of the first largest element (the first NaN, if any)."""
    if not isinstance(a, Tracer):
        return np.argmax(a, axis=axis, out=out, keepdims=keepdims)
    return _argreduce("max", a, axis, out, keepdims)


@implements(np.argmin)
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


@implements(np.cumsum)
def cumsum(a, axis=None, dtype=None, out=None):
    """``numpy.cumsum``: running sums along ``axis`` (of the flattened array for None)."""
    if not isinstance(a, Tracer):
        return np.cumsum(a, axis=axis, dtype=dtype, out=out)
    return _scan("sum", a, axis, dtype, out)


@implements(np.cumprod)
def cumprod(a, axis=None, dtype=None, out=None):
    """``numpy.cumprod``: running products along ``axis`` (of the flattened array for None)."""
    if not isinstance(a, Tracer):
        return np.cumprod(a, axis=axis, dtype=dtype, out=out)
    return _scan("prod", a, axis, dtype, out)
