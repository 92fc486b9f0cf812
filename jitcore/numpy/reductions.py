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

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "count_nonzero", "cumprod", "cumsum", "max",
           "mean", "min", "nanargmax", "nanargmin", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd",
           "nansum", "nanvar", "prod", "std", "sum", "var"]


def _reduction(kind, np_fn):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                         **_given(initial=initial, where=where))
        _no_out(np_fn.__name__, out)
        return _masked_reduction(kind, _operand(a, where), axis, keepdims, dtype, initial, where)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


def _given(initial=None, where=True) -> dict:
    """The ``initial=``/``where=`` keywords the caller gave (NumPy's defaults are left out)."""
    return {k: v for k, v in (("initial", initial), ("where", where))
            if not (v is None or (v is True and k == "where"))}


def _operand(a, where):
    """``a`` as a tracer (a concrete array reduced under a traced ``where=`` mask)."""
    return a if isinstance(a, Tracer) else prims.constant(where.trace, np.asarray(a))


def _mask(a, where):
    """``where=`` as a traced bool array of ``a``'s shape (NumPy broadcasts it so)."""
    w = where if isinstance(where, Tracer) else np.asarray(where)
    return prims.broadcast_to(prims.as_tracer(a.trace, w, np.dtype(bool)), a.shape)


_IDENTITY = {"sum": 0, "prod": 1, "or": False, "and": True}


@prims.numpy_scalar
def _masked_reduction(kind, a, axis, keepdims, dtype=None, initial=None, where=True):
    """NumPy's ``where=`` (masked-out elements count as the identity, or as ``initial`` for
    max/min, which have none) and ``initial=`` (one more element of every reduced slice)."""
    axis = prims.zero_d_axis(a, axis)
    axes = tuple(range(a.ndim)) if axis is None else tuple(sorted(prims.normalize_axes(axis, a.ndim, kind)))
    if dtype is None:
        dtype = prims._REDUCE_UFUNC[kind].reduce(np.zeros(1, a.dtype)).dtype
    dtype = np.dtype(dtype)
    if where is not True:
        if initial is None and kind in ("max", "min"):
            name = prims._REDUCE_UFUNC[kind].__name__
            raise ValueError(f"reduction operation '{name}' does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        fill = _IDENTITY[kind] if initial is None else initial
        fill = prims.constant(a.trace, _in_dtype(fill, dtype))
        a = prims.where(_mask(a, where), prims.convert(a, dtype), fill)
    if initial is None:
        return prims.reduction(kind, a, axes, keepdims, dtype)
    # The reduced axes last, merged into one, with ``initial`` in front of each slice.
    kept = [i for i in range(a.ndim) if i not in axes]
    x = prims.transpose(prims.convert(a, dtype), kept + list(axes))
    kept_shape = tuple(a.shape[i] for i in kept)
    x = prims.reshape(x, kept_shape + (-1,))
    first = prims.constant(a.trace, np.full(kept_shape + (1,), _in_dtype(initial, dtype)))
    out = prims.reduction(kind, prims.concatenate([first, x], len(kept)), len(kept), False, dtype)
    if keepdims:
        out = prims.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
    return out


def _in_dtype(value, dtype):
    """``initial=`` in the reduction's dtype: NumPy 2 raises OverflowError for a Python int out
    of its range."""
    return np.array(value, dtype) if type(value) is int else np.asarray(value).astype(dtype)


sum = _reduction("sum", np.sum)
prod = _reduction("prod", np.prod)


def _minmax(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **_given(initial, where))
        _no_out(np_fn.__name__, out)
        return _masked_reduction(kind, _operand(a, where), axis, keepdims, None, initial, where)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


max = amax = _minmax("max", np.max)
min = amin = _minmax("min", np.min)
HANDLED_FUNCTIONS[np.amax], HANDLED_FUNCTIONS[np.amin] = max, min


def _boolean_reduction(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, *, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **_given(where=where))
        _no_out(np_fn.__name__, out)
        return _masked_reduction(kind, prims.as_bool(_operand(a, where)), axis, keepdims, None, None, where)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


any = _boolean_reduction("or", np.any)
all = _boolean_reduction("and", np.all)


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if not traced(a, where):
        return np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **_given(where=where))
    _no_out("mean", out)
    if where is True:
        return prims.mean(a, axis, keepdims, dtype)
    a = _operand(a, where)
    count = _masked_reduction("sum", _mask(a, where), axis, keepdims, np.intp)
    return _divide(_masked_reduction("sum", _mean_input(a, dtype), axis, keepdims, None, None, where),
                   count, _mean_dtype(a, dtype))


def _mean_dtype(a, dtype=None) -> np.dtype:
    return np.dtype(dtype if dtype is not None else np.float64 if a.dtype.kind in "biu" else a.dtype)


def _mean_input(a, dtype=None):
    """``a`` in the dtype NumPy sums it in for a mean: float16 in float32."""
    result = _mean_dtype(a, dtype)
    return prims.convert(a, np.dtype(np.float32) if result == np.float16 else result)


@prims.numpy_scalar
def _divide(total, count, dtype):
    """``total / count`` rounded once to ``dtype`` (computed in float64 or complex128, which
    rounds float32 and float16 results exactly as their own division would)."""
    wide = np.dtype(np.complex128 if total.dtype.kind == "c" else np.float64)
    wide = np.result_type(wide, total.dtype)
    q = prims.ufunc(np.true_divide, prims.convert(total, wide), prims.convert(count, np.dtype(np.float64)))
    return prims.convert(q, dtype)


@implements(np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    if not traced(a):
        return np.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
    _no_where(np.var, out, **kwargs)
    return prims.variance(a, axis, keepdims, dtype, ddof)


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    if not traced(a):
        return np.std(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
    _no_where(np.std, out, **kwargs)
    return prims.ufunc(np.sqrt, prims.variance(a, axis, keepdims, dtype, ddof))


def _no_where(np_fn, out, **kwargs):
    _no_out(np_fn.__name__, out)
    if _given(**kwargs):
        raise UnsupportedError(f"numpy.{np_fn.__name__} with where= is not supported under jit yet "
                               f"(at {user_location()})")


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


# -- NaN-ignoring reductions: NaN replaced by the identity, as NumPy's own nan* functions do. --

def _nan_mask(a):
    return prims.ufunc(np.isnan, a) if a.dtype.kind in "fc" else None


def _replace_nan(a, value):
    mask = _nan_mask(a)
    if mask is None:
        return a, None
    return prims.where(mask, prims.constant(a.trace, np.asarray(value).astype(a.dtype)), a), mask


def _nan_reduction(np_fn, kind, fill):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                         **_given(initial=initial, where=where))
        _no_out(np_fn.__name__, out)
        a, _ = _replace_nan(_operand(a, where), fill)
        return _masked_reduction(kind, a, axis, keepdims, dtype, initial, where)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


nansum = _nan_reduction(np.nansum, "sum", 0)
nanprod = _nan_reduction(np.nanprod, "prod", 1)


def _nan_extreme(np_fn, kind):
    """``nanmax``/``nanmin``: NaN as -inf (+inf) for the reduction; a slice of NaNs only gives
    NaN, as NumPy's (which warns)."""
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **_given(initial, where))
        _no_out(np_fn.__name__, out)
        a = _operand(a, where)
        if a.dtype.kind == "c":
            raise UnsupportedError(f"numpy.{np_fn.__name__} of complex numbers is not supported "
                                   f"under jit yet (at {user_location()})")
        filled, mask = _replace_nan(a, -np.inf if kind == "max" else np.inf)
        out = _masked_reduction(kind, filled, axis, keepdims, None, initial, where)
        if mask is None:
            return out
        if where is not True:
            mask = prims.ufunc(np.bitwise_or, mask, prims.ufunc(np.invert, _mask(a, where)))
        all_nan = _masked_reduction("and", mask, axis, keepdims)
        if initial is not None and not np.isnan(initial):
            return out
        return prims.numpy_scalar(prims.where)(all_nan, np.asarray(np.nan, a.dtype), out)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


nanmax = _nan_extreme(np.nanmax, "max")
nanmin = _nan_extreme(np.nanmin, "min")


def _nan_arg(np_fn, kind):
    """``nanargmax``/``nanargmin``: NaN as -inf (+inf), then argmax, as NumPy computes it. A
    slice of NaNs only, where NumPy raises ValueError, gives that slice's first index (0): the
    check needs the data, which the compiled function cannot raise on (documented)."""
    def fn(a, axis=None, out=None, *, keepdims=False):
        if not isinstance(a, Tracer):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims)
        filled, _ = _replace_nan(a, -np.inf if kind == "max" else np.inf)
        return _argreduce(kind, filled, axis, out, keepdims)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


nanargmax = _nan_arg(np.nanargmax, "max")
nanargmin = _nan_arg(np.nanargmin, "min")


def _nan_count(a, mask, axis, keepdims, where=True):
    """How many non-NaN (and unmasked) elements each slice has, as intp."""
    ok = prims.ufunc(np.invert, mask)
    if where is not True:
        ok = prims.ufunc(np.bitwise_and, ok, _mask(a, where))
    return _masked_reduction("sum", ok, axis, keepdims, np.intp)


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """The mean of the non-NaN elements (NaN for a slice of NaNs only, as NumPy's)."""
    if not traced(a, where):
        return np.nanmean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **_given(where=where))
    a = _operand(a, where)
    filled, mask = _replace_nan(a, 0)
    if mask is None:
        return mean(a, axis, dtype, out, keepdims, where=where)
    _no_out("nanmean", out)
    total = _masked_reduction("sum", _mean_input(filled, dtype), axis, keepdims, None, None, where)
    return _divide(total, _nan_count(a, mask, axis, keepdims, where), _mean_dtype(a, dtype))


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    """NumPy's nanvar: deviations from the non-NaN mean, squared, summed over the non-NaN
    elements, divided by ``count - ddof`` (NaN where that is not positive)."""
    if not traced(a, where):
        return np.nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                         **_given(where=where))
    _no_out("nanvar", out)
    a = _operand(a, where)
    filled, mask = _replace_nan(a, 0)
    if mask is None:
        mask = prims.constant(a.trace, np.zeros(a.shape, bool))
    if where is not True:
        mask = prims.ufunc(np.bitwise_or, mask, prims.ufunc(np.invert, _mask(a, where)))
    result = np.dtype(dtype if dtype is not None else np.float64 if a.dtype.kind in "biu" else
                      a.dtype.char.lower() if a.dtype.kind == "c" else a.dtype)
    x = _mean_input(filled, dtype if a.dtype.kind != "c" else None)
    count = _nan_count(a, mask, axis, True)
    avg = _divide(_masked_reduction("sum", x, axis, True, None, None, where), count, x.dtype)
    dev = prims.where(mask, prims.constant(a.trace, np.zeros((), x.dtype)), prims.ufunc(np.subtract, x, avg))
    if dev.dtype.kind == "c":
        re, im = prims.part("real", dev), prims.part("imag", dev)
        sq = prims.ufunc(np.add, prims.ufunc(np.multiply, re, re), prims.ufunc(np.multiply, im, im))
    else:
        sq = prims.ufunc(np.multiply, dev, dev)
    total = _masked_reduction("sum", sq, axis, keepdims)
    dof = prims.ufunc(np.subtract, _nan_count(a, mask, axis, keepdims), ddof)
    var = _divide(total, dof, result)
    return prims.numpy_scalar(prims.where)(prims.ufunc(np.less_equal, dof, 0),
                                           np.asarray(np.nan, result), var)


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    if not traced(a, where):
        return np.nanstd(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                         **_given(where=where))
    return prims.ufunc(np.sqrt, nanvar(a, axis, dtype, out, ddof, keepdims, where=where))


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    """How many elements are not zero (intp), along ``axis``."""
    if not isinstance(a, Tracer):
        return np.count_nonzero(a, axis=axis, keepdims=keepdims)
    return prims.reduction("sum", prims.as_bool(a), axis, keepdims, np.intp)
