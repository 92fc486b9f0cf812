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

import builtins
import operator

import numpy as np

from jitcore import buffered_where, indexing, masked, number_or_array
from jitcore import primitives as prims
from jitcore.dtypes import ir_type
from jitcore.errors import (
    ConcretizationError,
    JitIndexError,
    JitOverflowError,
    JitTypeError,
    JitValueError,
    JitZeroDivisionError,
    UnsupportedError,
)
from jitcore.ir.dialects.array import ArgReduceOp, ScanOp
from jitcore.ir.types import TensorType, i64
from jitcore.numpy.creation import linspace
from jitcore.numpy.registry import HANDLED_FUNCTIONS, WRITES_OUT, implements, traced
from jitcore.tracer import Tracer, fresh, needs_static, user_location

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "average", "bincount", "count_nonzero",
           "cumprod", "cumsum", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd",
           "max", "mean", "min", "nanargmax", "nanargmin",
           "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "prod", "std",
           "sum", "var"]


def _reduction(kind, np_fn):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                         **_given(initial=initial, where=where))
        dtype = prims.out_loop_dtype(a.dtype, out, dtype)
        result = _masked_reduction(kind, _operand(a, where), axis, keepdims, dtype, initial, where)
        return prims.write_out(out, result, np_fn.__name__)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


def _given(initial=np._NoValue, where=True) -> dict:
    """The ``initial=``/``where=`` keywords the caller gave (NumPy's defaults are left out)."""
    return {k: v for k, v in (("initial", initial), ("where", where))
            if not (v is np._NoValue or (v is True and k == "where"))}


def _operand(a, where):
    """``a`` as a tracer (a concrete array reduced under a traced ``where=`` mask)."""
    return a if isinstance(a, Tracer) else prims.constant(where.owner_trace, np.asarray(a))


def _mask(a, where):
    """``where=`` as a traced bool array of ``a``'s shape (NumPy broadcasts it so)."""
    w = where if isinstance(where, Tracer) else np.asarray(where)
    return prims.broadcast_to(prims.as_tracer(a.owner_trace, w, np.dtype(bool)), a.shape)


_IDENTITY = {"sum": 0, "prod": 1, "or": False, "and": True}


@prims.numpy_scalar
def _masked_reduction(kind, a, axis, keepdims, dtype=None, initial=np._NoValue, where=True):
    """NumPy's ``where=`` (masked-out elements count as the identity, or as ``initial`` for
    max/min, which have none) and ``initial=`` (one more element of every reduced slice); an
    explicit ``initial=None`` takes the identity away, as in NumPy."""
    removed = initial is None  # NumPy: an explicit initial=None takes the identity away
    no_identity = removed or kind in ("max", "min")
    initial = None if initial is np._NoValue else initial
    axis = prims.zero_d_axis(a, axis)
    axes = tuple(range(a.ndim)) if axis is None else tuple(sorted(prims.normalize_axes(axis, a.ndim, kind)))
    if dtype is None:
        dtype = prims._REDUCE_UFUNC[kind].reduce(np.zeros(1, a.dtype)).dtype
    dtype = np.dtype(dtype)
    name = prims._REDUCE_UFUNC[kind].__name__
    if removed and builtins.any(a.shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if kind == "sum" and dtype.kind == "f" and initial is not None and _is_negative_zero(initial):
        return _sum_from_negative_zero(a, axes, keepdims, dtype, where)
    if where is not True:
        if no_identity and initial is None:
            raise ValueError(f"reduction operation '{name}' does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        fill = initial if no_identity else _IDENTITY[kind]
        fill = prims.constant(a.owner_trace, _in_dtype(fill, dtype))
        mask = _mask(a, where)
        if kind == "sum" and initial is None and not keepdims and len(axes) == a.ndim \
                and (order := buffered_where.numpy_order(a, where)) is not None:
            a, mask = buffered_where.in_order(prims.convert(a, dtype), mask, order)
            axes, where = (0,), mask
        if kind == "sum" and dtype == np.float16 and initial is None:
            return _half_sum(a, mask, axes, keepdims, buffered_where.inner_axis(a, where) in axes + (None,))
        a = prims.where(mask, prims.convert(a, dtype), fill)
        if kind == "sum":
            prims.summed_in_runs(a)
    if initial is None:
        return prims.reduction(kind, a, axes, keepdims, dtype)
    # The reduced axes last, merged into one, with ``initial`` in front of each slice (NumPy's
    # float16 loop as it runs ``a``: the reshaped copy's innermost axis is always reduced).
    half_steps = prims.half_steps_of(a, axes)
    kept = [i for i in range(a.ndim) if i not in axes]
    x = prims.transpose(prims.convert(a, dtype), kept + list(axes))
    kept_shape = tuple(a.shape[i] for i in kept)
    x = prims.reshape(x, kept_shape + (int(np.prod([a.shape[i] for i in axes])),))
    first = prims.constant(a.owner_trace, np.full(kept_shape + (1,), _in_dtype(initial, dtype)))
    out = prims.reduction(kind, prims.concatenate([first, x], len(kept)), len(kept), False, dtype,
                          half_steps=half_steps)
    if keepdims:
        out = prims.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
    return out


def _half_sum(a, mask, axes, keepdims, reduce_loop: bool):
    """A float16 ``a.sum(axes, where=mask)``: through NumPy's reduce loop (its innermost axis
    reduced), each run's float32 pairwise sum added to the float16 total; through its
    elementwise loop, each kept term added in float16."""
    f16, f32 = np.dtype(np.float16), np.dtype(np.float32)
    if not reduce_loop:
        terms = prims.where(mask, prims.convert(a, f16), prims.constant(a.owner_trace, f16.type(0)))
        return prims.reduction("sum", terms, axes, keepdims, f16, half_steps=True)
    terms = prims.where(mask, prims.convert(a, f32), prims.constant(a.owner_trace, f32.type(0)))
    prims.summed_in_runs(terms, half=True)
    return prims.convert(prims.reduction("sum", terms, axes, keepdims, f32), f16)


def _is_negative_zero(value) -> bool:
    return isinstance(value, (float, np.floating)) and value == 0 and bool(np.signbit(value))


def _sum_from_negative_zero(a, axes, keepdims, dtype, where):
    """A float sum from ``initial=-0.0``: NumPy's accumulator starts at -0.0, so the sum is -0.0
    where every term it adds is -0.0 (an IEEE sum is -0.0 only then), which jitcore's
    accumulators, starting at +0.0, cannot give. The terms' sum (a masked-out term is -0.0, which
    adds nothing), made -0.0 where every term is."""
    x = prims.convert(a, dtype)
    minus_zero = prims.constant(a.owner_trace, np.array(-0.0, dtype))
    every_term = (x == 0) & np.signbit(x)
    if where is not True:
        mask = _mask(a, where)
        x = prims.where(mask, x, minus_zero)
        every_term = every_term | ~mask
    total = prims.reduction("sum", x, axes, keepdims, dtype)
    return prims.where(prims.reduction("and", every_term, axes, keepdims), minus_zero, total)


def _in_dtype(value, dtype):
    """``initial=`` in the reduction's dtype: NumPy 2 raises OverflowError for a Python int out
    of its range, and OverflowError (ValueError) for an infinite (NaN) float into integers; into
    a bool (max and min of bools) any value converts, as ``bool(value)``."""
    if np.dtype(dtype).kind in "iu" and isinstance(value, (float, np.floating)) and not np.isfinite(value):
        kind = JitValueError if np.isnan(value) else JitOverflowError
        raise kind(f"cannot convert float {'NaN' if np.isnan(value) else 'infinity'} to integer: "
                   f"initial={value} of a {np.dtype(dtype)} reduction (at {user_location()})")
    if type(value) is float and np.dtype(dtype).kind in "iu":  # NumPy: int(value), then as an int
        value = int(value)
    if type(value) is not int:  # a NumPy scalar or array: NumPy's unsafe cast
        return np.asarray(value).astype(dtype)
    try:
        return np.array(value, dtype)
    except OverflowError as e:
        raise JitOverflowError(f"{e}: initial={value} of a {np.dtype(dtype)} reduction "
                               f"(at {user_location()})") from None


sum = _reduction("sum", np.sum)
prod = _reduction("prod", np.prod)


def _minmax(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **_given(initial, where))
        result = _masked_reduction(kind, _operand(a, where), axis, keepdims, None, initial, where)
        return prims.write_out(out, result, np_fn.__name__)

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
        a = prims.as_bool(_operand(a, where))
        result = _masked_reduction(kind, a, axis, keepdims, None, np._NoValue, where)
        return prims.write_out(out, result, np_fn.__name__)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


any = _boolean_reduction("or", np.any)
all = _boolean_reduction("and", np.all)
WRITES_OUT.update({np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.any, np.all, np.cumsum, np.cumprod})


@implements(np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if not traced(a, where):
        return np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **_given(where=where))
    if out is not None:
        result = mean(a, axis, prims.out_loop_dtype(a.dtype, out, dtype), None, keepdims, where=where)
        return prims.write_out(out, result, "mean")
    if where is True:
        return prims.mean(a, axis, keepdims, dtype)
    a = _operand(a, where)
    count = _masked_reduction("sum", _mask(a, where), axis, keepdims, np.intp)
    return _divide(_masked_reduction("sum", _mean_input(a, dtype), axis, keepdims, None, np._NoValue, where),
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
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=np._NoValue,
        correction=np._NoValue):
    ddof = ddof if correction is np._NoValue else correction  # NumPy 2's Array API spelling
    if not traced(a, where):
        return np.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                      **_given(where=where), **({} if mean is np._NoValue else {"mean": mean}))
    if out is not None:
        result = var(a, axis, prims.out_loop_dtype(a.dtype, out, dtype), None, ddof, keepdims, where=where,
                     mean=mean)
        return prims.write_out(out, result, "var")
    if mean is not np._NoValue:
        raise UnsupportedError(f"numpy.var with mean= is not supported under jit yet (at {user_location()})")
    if where is True:
        return prims.variance(a, axis, keepdims, dtype, ddof)
    return _masked_variance(_operand(a, where), axis, dtype, ddof, keepdims, where)


def _sqrt_into(out, name: str) -> None:
    """NumPy's std takes the square root in ``out`` itself: an integer or bool ``out`` is
    refused, as its ``sqrt(..., out=)`` refuses the float result (same_kind)."""
    if np.dtype(out.dtype).kind in "biu":
        raise JitTypeError(f"numpy.{name}: Cannot cast ufunc 'sqrt' output from dtype('float64') to "
                           f"dtype('{np.dtype(out.dtype)}') with casting rule 'same_kind' (its out=, "
                           f"at {user_location()})")


def _inexact_into(a, out, name: str) -> None:
    """NumPy's nan-statistics refuse an integer or bool ``out`` for float data."""
    if a.dtype.kind in "fc" and np.dtype(out.dtype).kind in "biu":
        raise JitTypeError(f"numpy.{name}: If a is inexact, then out must be inexact (at {user_location()})")


@implements(np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=np._NoValue,
        correction=np._NoValue):
    ddof = ddof if correction is np._NoValue else correction  # NumPy 2's Array API spelling
    if not traced(a, where):
        return np.std(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                      **_given(where=where), **({} if mean is np._NoValue else {"mean": mean}))
    if out is not None:
        _sqrt_into(out, "std")
        result = std(a, axis, prims.out_loop_dtype(a.dtype, out, dtype), None, ddof, keepdims, where=where,
                     mean=mean)
        return prims.write_out(out, result, "std")
    return prims.ufunc(np.sqrt, var(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean))


def _masked_variance(a, axis, dtype, ddof, keepdims, where):
    """NumPy's ``var(where=)``: the masked mean, the masked sum of squared deviations, divided
    by ``max(count - ddof, 0)`` (a slice with nothing selected is NaN, as in NumPy)."""
    if a.dtype.kind == "c" and dtype is None:
        acc_dtype, result_dtype = a.dtype, np.dtype(a.dtype.char.lower())
    else:
        # (float16 sums in float16, as NumPy's var: its mean's float32 is mean's alone)
        result_dtype = acc_dtype = np.dtype(dtype or (np.float64 if a.dtype.kind in "biu" else a.dtype))
    x = prims.convert(a, acc_dtype)
    count = _masked_reduction("sum", _mask(a, where), axis, True, np.intp)
    centre = prims.ufunc(np.true_divide, _masked_reduction("sum", x, axis, True, None, np._NoValue, where),
                         count)
    centered = prims.ufunc(np.subtract, x, prims.convert(centre, acc_dtype))
    if centered.dtype.kind == "c":
        re, im = prims.part("real", centered), prims.part("imag", centered)
        squared = prims.ufunc(np.add, prims.ufunc(np.multiply, re, re), prims.ufunc(np.multiply, im, im))
    else:
        squared = prims.ufunc(np.multiply, centered, centered)
    total = _masked_reduction("sum", squared, axis, keepdims, None, np._NoValue, where)
    count = _masked_reduction("sum", _mask(a, where), axis, keepdims, np.intp)
    left = prims.ufunc(np.maximum, prims.ufunc(np.subtract, count, ddof), 0)
    return prims.convert(prims.ufunc(np.true_divide, total, left), result_dtype)


def _emit(op_cls, x: Tracer, result_type: TensorType, kind: str, axis: int) -> Tracer:
    number_or_array.emitted(op_cls, [x])
    op = x.owner_trace.builder.create(op_cls, [x.value], [result_type], {"kind": kind, "axis": axis})
    return Tracer(op.result, x.owner_trace, x.sources)


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


@prims.numpy_scalar
def _argreduce(kind: str, a, axis=None, out=None, keepdims=False, name: str = ""):
    name = name or f"arg{kind}"
    if out is not None:
        # NumPy's check: an out that int64 indices do not come back from safely is refused
        if not np.can_cast(np.dtype(out.dtype), np.intp, "safe"):
            raise JitTypeError(f"Cannot cast array data from dtype('{np.dtype(out.dtype)}') to "
                               f"dtype('int64') according to the rule 'safe' (numpy.{name}'s out=, "
                               f"at {user_location()})")
        return prims.write_out(out, _argreduce(kind, a, axis, None, keepdims), name)
    x, ax = _one_axis(a, axis, name)
    if x.shape[ax] == 0:
        raise JitValueError(f"attempt to get {name} of an empty sequence (at {user_location()})")
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


_NUMPY_SCANS = {"sum": np.cumsum, "prod": np.cumprod, "max": np.maximum.accumulate,
               "min": np.minimum.accumulate, "bitand": np.bitwise_and.accumulate,
               "bitor": np.bitwise_or.accumulate, "bitxor": np.bitwise_xor.accumulate}


def _scan(kind: str, a: Tracer, axis=None, dtype=None, out=None, name: str = "") -> Tracer:
    name = name or f"cum{kind}"
    result = _scan_values(kind, a, axis, prims.out_loop_dtype(a.dtype, out, dtype), name)
    return prims.write_out(out, result, name)


def _scan_values(kind: str, a: Tracer, axis, dtype, name: str) -> Tracer:
    x, ax = _one_axis(a, axis, name)
    if dtype is None:
        dtype = _NUMPY_SCANS[kind](np.zeros(1, x.dtype)).dtype  # NumPy's accumulator dtype
    dtype = np.dtype(dtype)
    ir_type(dtype)  # a JitTypeError naming an unsupported dtype
    x = prims.convert(x, dtype)
    if x.shape[ax] <= 1:
        return fresh(x)  # nothing to accumulate; still a new array, not the operand
    return _emit(ScanOp, x, x.value.type, kind, ax)


def running_extreme(kind: str, a: Tracer, axis, dtype) -> Tracer:
    """``np.maximum.accumulate`` (``kind`` "max") or ``np.minimum.accumulate`` ("min") of a traced
    array: one ``array.scan``, NaN kept from where it first appears, as NumPy's loop does."""
    ufunc = "maximum" if kind == "max" else "minimum"
    if axis is None and a.ndim > 1:
        raise JitValueError(f"numpy.{ufunc}.accumulate needs an axis for a {a.ndim}-d array (NumPy raises "
                            f"the same ValueError), at {user_location()}: pass axis=0, say")
    return _scan(kind, a, axis, dtype, None, f"numpy.{ufunc}.accumulate")


BITWISE_SCANS = {np.bitwise_and: "bitand", np.bitwise_or: "bitor", np.bitwise_xor: "bitxor"}


def running_bitwise(ufunc: np.ufunc, a: Tracer, axis, dtype) -> Tracer:
    """``np.bitwise_xor.accumulate`` (``and``, ``or``): prefix xor (Gray decoding, parity scans)
    as one ``array.scan`` in the input's integer or bool dtype (or ``dtype``), as NumPy."""
    name = f"numpy.{ufunc.__name__}.accumulate"
    if axis is None and a.ndim > 1:
        raise JitValueError(f"accumulate does not allow multiple axes (NumPy raises the same "
                            f"ValueError for {name} of a {a.ndim}-d array), at {user_location()}: "
                            "pass axis=0, say")
    if np.dtype(dtype if dtype is not None else a.dtype).kind not in "biu" or a.dtype.kind not in "biu":
        raise JitTypeError(f"ufunc '{ufunc.__name__}' not supported for the input types "
                           f"({a.dtype}; NumPy raises the same TypeError), at {user_location()}: "
                           "bitwise operations take integers or bools")
    return _scan(BITWISE_SCANS[ufunc], a, axis, dtype, None, name)


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
    return prims.where(mask, prims.constant(a.owner_trace, np.asarray(value).astype(a.dtype)), a), mask


def _nan_reduction(np_fn, kind, fill):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                         **_given(initial=initial, where=where))
        dtype = prims.out_loop_dtype(a.dtype, out, dtype)
        a, _ = _replace_nan(_operand(a, where), fill)
        result = _masked_reduction(kind, a, axis, keepdims, dtype, initial, where)
        return prims.write_out(out, result, np_fn.__name__)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


nansum = _nan_reduction(np.nansum, "sum", 0)
nanprod = _nan_reduction(np.nanprod, "prod", 1)
WRITES_OUT.update({np.mean, np.nansum, np.nanprod})


def _nan_extreme(np_fn, kind):
    """``nanmax``/``nanmin``: NaN as -inf (+inf) for the reduction; a slice of NaNs only gives
    NaN, as NumPy's (which warns)."""
    def fn(a, axis=None, out=None, keepdims=False, initial=np._NoValue, where=True):
        if not traced(a, where):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **_given(initial, where))
        if out is not None:
            return prims.write_out(out, fn(a, axis, None, keepdims, initial, where), np_fn.__name__)
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
        if initial not in (None, np._NoValue) and not np.isnan(initial):
            return out
        return prims.numpy_scalar(prims.where)(all_nan, np.asarray(np.nan, a.dtype), out)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


nanmax = _nan_extreme(np.nanmax, "max")
nanmin = _nan_extreme(np.nanmin, "min")


def _nan_arg(np_fn, kind):
    """``nanargmax``/``nanargmin``: NaN as -inf (+inf), then argmax, as NumPy computes it. A
    slice of NaNs only raises NumPy's ValueError (``JitValueError``) from the call."""
    def fn(a, axis=None, out=None, *, keepdims=False):
        if not isinstance(a, Tracer):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims)
        filled, mask = _replace_nan(a, -np.inf if kind == "max" else np.inf)
        if mask is not None and a.size:
            _raise_if_all_nan(mask, axis)
        return _argreduce(kind, filled, axis, out, keepdims, np_fn.__name__)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


def _raise_if_all_nan(mask: Tracer, axis) -> None:
    """NumPy's ValueError where a slice holds NaN only, raised by the call."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    def fail(_):
        raise JitValueError("All-NaN slice encountered")

    all_nan = np.any(np.all(mask, axis=axis))
    cond(all_nan, lambda: debug_callback(fail, all_nan), lambda: None)


nanargmax = _nan_arg(np.nanargmax, "max")
nanargmin = _nan_arg(np.nanargmin, "min")
WRITES_OUT.update({np.var, np.std, np.argmax, np.argmin, np.nanmax, np.nanmin, np.nanargmax, np.nanargmin,
                   np.nanmean, np.nanvar, np.nanstd})


def _nan_count(a, mask, axis, keepdims, where=True):
    """How many non-NaN (and unmasked) elements each slice has, as intp."""
    ok = prims.ufunc(np.invert, mask)
    if where is not True:
        ok = prims.ufunc(np.bitwise_and, ok, _mask(a, where))
    return _masked_reduction("sum", ok, axis, keepdims, np.intp)


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """The mean of the non-NaN elements (NaN for a slice of NaNs only, as NumPy's): NumPy's
    ``nansum`` (float16 in float16, not in mean's float32: 60000 + 60000 overflows to inf)
    divided by the count."""
    if not traced(a, where):
        return np.nanmean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **_given(where=where))
    if out is not None:
        _inexact_into(a, out, "nanmean")
        result = nanmean(a, axis, prims.out_loop_dtype(a.dtype, out, dtype), None, keepdims, where=where)
        return prims.write_out(out, result, "nanmean")
    a = _operand(a, where)
    filled, mask = _replace_nan(a, 0)
    if mask is None:
        return mean(a, axis, dtype, out, keepdims, where=where)
    total = _masked_reduction("sum", filled, axis, keepdims, dtype, np._NoValue, where)
    return _divide(total, _nan_count(a, mask, axis, keepdims, where), _mean_dtype(a, dtype))


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    """NumPy's nanvar: deviations from the non-NaN mean, squared, summed over the non-NaN
    elements, divided by ``count - ddof`` (NaN where that is not positive). Float data as NumPy
    computes it in place: the sums in ``dtype`` (default the data's, float16 too), each
    deviation rounded back to the data's dtype; integers (no NaN) as ``var``, in float64."""
    if not traced(a, where):
        return np.nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                         **_given(where=where))
    if out is not None:
        _inexact_into(a, out, "nanvar")
        result = nanvar(a, axis, prims.out_loop_dtype(a.dtype, out, dtype), None, ddof, keepdims, where=where)
        return prims.write_out(out, result, "nanvar")
    a = _operand(a, where)
    filled, mask = _replace_nan(a, 0)
    if mask is None and axis is not None:  # NumPy's var then: no int axis of a 0-d array
        prims.normalize_axes(axis, a.ndim, "nanvar")
    if mask is None:
        mask = prims.constant(a.owner_trace, np.zeros(a.shape, bool))
    if where is not True:
        mask = prims.ufunc(np.bitwise_or, mask, prims.ufunc(np.invert, _mask(a, where)))
    result = np.dtype(dtype if dtype is not None else np.float64 if a.dtype.kind in "biu" else
                      a.dtype.char.lower() if a.dtype.kind == "c" else a.dtype)
    in_place = a.dtype.kind in "fc"  # NumPy's deviations overwrite the data's own copy
    x = filled if in_place else _mean_input(filled, dtype)
    sum_dtype = dtype if a.dtype.kind == "f" else None
    count = _nan_count(a, mask, axis, True)
    total = _masked_reduction("sum", x, axis, True, sum_dtype, np._NoValue, where)
    avg = _divide(total, count, total.dtype)
    zero = prims.constant(a.owner_trace, np.zeros((), x.dtype))
    dev = prims.where(mask, zero, prims.convert(prims.ufunc(np.subtract, x, avg), x.dtype))
    if dev.dtype.kind == "c":
        re, im = prims.part("real", dev), prims.part("imag", dev)
        sq = prims.ufunc(np.add, prims.ufunc(np.multiply, re, re), prims.ufunc(np.multiply, im, im))
    else:
        sq = prims.ufunc(np.multiply, dev, dev)
    total = _masked_reduction("sum", sq, axis, keepdims, sum_dtype)
    dof = prims.ufunc(np.subtract, _nan_count(a, mask, axis, keepdims), ddof)
    var = _divide(total, dof, result)
    return prims.numpy_scalar(prims.where)(prims.ufunc(np.less_equal, dof, 0),
                                           np.asarray(np.nan, result), var)


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    if not traced(a, where):
        return np.nanstd(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                         **_given(where=where))
    if out is not None:
        _inexact_into(a, out, "nanstd")
        _sqrt_into(out, "nanstd")
        result = nanstd(a, axis, prims.out_loop_dtype(a.dtype, out, dtype), None, ddof, keepdims, where=where)
        return prims.write_out(out, result, "nanstd")
    return prims.ufunc(np.sqrt, nanvar(a, axis, dtype, None, ddof, keepdims, where=where))


@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    """How many elements are not zero (intp), along ``axis``."""
    if not isinstance(a, Tracer):
        return np.count_nonzero(a, axis=axis, keepdims=keepdims)
    return prims.reduction("sum", prims.as_bool(a), axis, keepdims, np.intp)


@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """NumPy's average: the mean, or ``sum(a * w) / sum(w)`` in ``result_type(a, w)`` (float64
    at least for integer ``a``); ``returned`` adds the sum of weights (or the count). Weights
    that sum to zero raise NumPy's ZeroDivisionError (``JitZeroDivisionError``) from the call."""
    if not traced(a, weights):
        return np.average(a, axis, weights, returned, keepdims=keepdims)
    trace = prims.find_trace(a, weights)
    a = a if isinstance(a, Tracer) else prims.constant(trace, np.asarray(a))
    if axis is not None:
        prims.normalize_axes(axis, a.ndim, "average")  # NumPy's AxisError first (0-d: no axis 0)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        if avg.size == 0:
            raise ZeroDivisionError("division by zero")  # NumPy's count a.size / avg.size
        scl = prims.constant(trace, np.asarray(a.size / avg.size, avg.dtype))
    else:
        w = weights if isinstance(weights, Tracer) else prims.constant(trace, np.asarray(weights))
        result = np.result_type(a.dtype, w.dtype, "f8") if a.dtype.kind in "biu" else \
            np.result_type(a.dtype, w.dtype)
        if a.shape != w.shape:
            if axis is None:
                raise JitTypeError("Axis must be specified when shapes of a and weights differ.")
            axes = prims.normalize_axes(axis, a.ndim, "average")
            if w.shape != tuple(a.shape[ax] for ax in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            w = prims.transpose(w, tuple(int(i) for i in np.argsort(axes)))
            w = prims.reshape(w, tuple(s if ax in axes else 1 for ax, s in enumerate(a.shape)))
        scl = prims.reduction("sum", prims.broadcast_to(prims.convert(w, result), a.shape)
                              if w.shape != a.shape else prims.convert(w, result), axis, keepdims, result)
        total = prims.reduction("sum", prims.ufunc(np.multiply, prims.convert(a, result),
                                                   prims.convert(w, result)), axis, keepdims, result)
        _raise_if_zero_weights(scl)
        avg = prims.numpy_scalar(prims.ufunc)(np.true_divide, total, scl)
    if not returned:
        return avg
    if scl.shape != avg.shape:
        scl = prims.broadcast_to(scl, avg.shape)
    return avg, prims.as_scalar(scl) if scl.ndim == 0 else scl


def _count_into(trace, idx: Tracer, values, length: int, dtype) -> Tracer:
    """``np.add.at(zeros(length, dtype), idx, values)``: one scatter-add."""
    zeros = prims.constant(trace, np.zeros(length, dtype))
    return indexing.scatter(zeros, (idx,), values, "add", dtype=np.dtype(dtype))


@implements(np.bincount)
def bincount(x, weights=None, minlength=0):
    """How often each value of ``x`` occurs (summing ``weights`` if given, in float64). Under
    jit the result's length must be known while tracing: NumPy's for a constant ``x``; for a
    traced one, ``minlength`` (required); the call raises NumPy's ValueError for a negative
    value, and JitIndexError for one at or past ``minlength`` (NumPy grows the result)."""
    if not traced(x, weights):
        return np.bincount(x, weights, minlength)
    return bincount_of(x, weights, minlength)


def _traced_minlength(minlength: Tracer) -> str:
    """What a traced ``minlength`` is and what to write instead: a bincount's length is its
    result's shape, which compiled code must know."""
    groups = minlength.counts is not None  # len(u) of u = np.unique(ids): the number of groups
    what = (f"minlength is the length of {minlength.counts[0]}, a count the data sets (how many "
            f"distinct values there are)" if groups else
            f"minlength is computed from traced data (x.max() + 1, say){_depends(minlength)}")
    bound = ("a static argument, or len(ids): the group numbers np.unique(ids, return_inverse=True) "
             "gives are below it, and the bins past the last group are 0" if groups else
             "a static argument (values at or past it raise IndexError when the function runs)")
    return (f"numpy.bincount under jit needs a minlength known when compiling, since it sets the "
            f"result's length, but {what} (at {user_location()}). Write minlength=K with K a "
            f"Python int at least the number of bins ({bound}); then keep the first bins outside "
            f"the jitted function, or reduce them at once (.sum(), .max())")


def _depends(value: Tracer) -> str:
    """What a traced value depends on, in words (``: here on the argument(s) q, s``)."""
    names = sorted(s for s in value.sources if " " not in s)  # (" ": a draw, not an argument)
    draws = sorted(s for s in value.sources if " " in s)
    parts = ([f"the argument(s) {', '.join(names)}"] if names else []) + draws
    return f"; here it depends on {' and '.join(parts)}" if parts else ""


def _bincount_of_count(x: Tracer, weights, minlength: Tracer, selected: Tracer | None):
    """``np.bincount(inv, minlength=len(u))`` with ``u`` a selection (``np.unique``'s values):
    as many bins as ``u`` can hold, the result the first ``max(len(u), x.max() + 1)`` of them
    (a ``run_length.Prefix``); a value at or past that capacity raises IndexError, as one past
    a static minlength does (``np.unique``'s group numbers never are)."""
    written, _, _, capacity = minlength.counts
    told = f"minlength=len({written}), at most {capacity}"
    bins = bincount_of(x, weights, builtins.max(capacity, 1), selected, told=told)
    idx = prims.convert(x, np.dtype(np.int64))
    if selected is not None:
        idx = prims.where(selected, idx, -1)
    top = prims.reduction("max", idx) + 1 if idx.size else 0
    length = np.maximum(prims.convert(minlength, np.dtype(np.int64)), top)
    return masked.LENGTH_OPS["prefix"](bins, length)


def bincount_of(x, weights, minlength, selected: Tracer | None = None, told: str | None = None):
    """``bincount``'s traced body; ``selected`` (a boolean tracer of ``x``'s shape, from
    ``x[mask]``): only those elements are counted, the others add nothing."""
    trace = prims.find_trace(x, weights)
    if not isinstance(x, Tracer):  # constant values (np.indices, say): NumPy's length and checks
        try:
            counts = np.bincount(x, minlength=minlength)
        except (TypeError, ValueError) as e:
            error = JitValueError if isinstance(e, ValueError) else JitTypeError
            raise error(f"{e} (at {user_location()})") from None
        if counts.size == 0:  # NumPy: counts (intp) for an empty x, weights or not
            return counts
        minlength, x = counts.size, prims.constant(trace, np.asarray(x))
    if x.ndim != 1:
        raise JitValueError(("object too deep for desired array" if x.ndim > 1 else
                             "object of too small depth for desired array")
                            + f": np.bincount takes a 1-D array of ints, not one of shape {x.shape} "
                            f"(at {user_location()}); count its flattened values (x.ravel())")
    if x.dtype.kind not in "biu" or not np.can_cast(x.dtype, np.intp, "same_kind"):
        raise JitTypeError(f"Cannot cast array data from {x.dtype!r} to dtype('int64') according "
                           "to the rule 'safe'")
    groups = x.owner_trace.grouped.get(id(x.value)) if type(minlength) is int and minlength == 0 else None
    if groups is not None and groups[0] is x.value:  # np.unique's inverse: len(u) bins
        minlength = groups[1].count()
    if isinstance(minlength, Tracer) and len(minlength.counts or ()) > 3:
        return _bincount_of_count(x, weights, minlength, selected)
    if isinstance(minlength, Tracer):
        raise needs_static(ConcretizationError(_traced_minlength(minlength)), minlength)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if minlength == 0:
        raise ConcretizationError(
            f"numpy.bincount under jit needs minlength= (at {user_location()}): the length of its "
            "result depends on the largest value otherwise, and a compiled function's shapes are "
            "fixed when it is traced. Values at or past minlength raise IndexError")
    idx = prims.convert(x, np.dtype(np.intp))
    _raise_if_out_of_bins(idx, minlength, selected, user_location(), told)
    # checked: counted nowhere. One test of the value itself, so the scatter's positions are
    # proved in range (passes/effects.py) and it checks and wraps none (0.6-0.8x NumPy before)
    in_bins = prims.ufunc(np.bitwise_and, prims.ufunc(np.greater_equal, idx, 0),
                          prims.ufunc(np.less, idx, minlength))
    idx = prims.where(in_bins, idx, 0)
    if selected is not None:  # left out: bin 0, adding 0 (a value out of range is not an error)
        idx = prims.where(selected, idx, 0)
    if weights is None or x.size == 0:  # NumPy: counts (intp) for an empty x, weights or not
        ones = 1 if selected is None else prims.convert(selected, np.dtype(np.intp))
        return _count_into(trace, idx, ones, minlength, np.intp)
    w = weights if isinstance(weights, Tracer) else prims.constant(trace, np.asarray(weights))
    if w.shape != x.shape:
        raise ValueError("The weights and list don't have the same length.")
    if w.dtype.kind == "c":
        raise JitTypeError(f"Cannot cast array data from {w.dtype!r} to dtype('float64') according "
                           "to the rule 'safe'")
    w = prims.convert(w, np.dtype(np.float64))
    if selected is not None:
        w = prims.where(selected, w, 0.0)
    return _count_into(trace, idx, w, minlength, np.float64)


def _static_range(bounds, api: str):
    """A histogram's (first, last) from ``range=``, checked as NumPy checks it; equal bounds
    widened by half a unit each way, as NumPy does."""
    first, last = bounds
    if isinstance(first, Tracer) or isinstance(last, Tracer):
        raise needs_static(ConcretizationError(f"{api}'s range= must be static under jit (at "
                                               f"{user_location()})"), first, last)
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """NumPy's histogram with bins: an array of edges (static, or computed in the function:
    NumPy's ValueError from the call if they decrease), or a static count with ``range=``
    (static edges) or without it (edges from the data's min and max, computed as NumPy does,
    in the compiled code). Bin i holds ``edges[i] <= x < edges[i + 1]``, the last bin also
    ``x == edges[-1]``; values outside (and NaN) are left out. Returns ``(hist, edges)``. Where
    the data's range is not finite (NaN or inf in ``a``, no ``range=``), the call raises
    NumPy's ValueError (``JitValueError``)."""
    if not traced(a, weights, bins):
        return np.histogram(a, bins, range, density, weights)
    return histogram_of(a, bins, range, density, weights)


def histogram_of(a, bins, range, density, weights, selected: Tracer | None = None):
    """``histogram``'s traced body; ``selected`` (a boolean tracer of ``a``'s shape, from
    ``a[mask]``): only those elements are binned, and only they set the edges from the data."""
    trace = prims.find_trace(a, weights, bins)
    a = prims.reshape(a if isinstance(a, Tracer) else prims.constant(trace, np.asarray(a)), (-1,))
    if selected is not None:
        selected = prims.reshape(selected, (-1,))
    if a.dtype.kind == "c":
        raise UnsupportedError(f"numpy.histogram of complex numbers is not supported under jit "
                               f"(at {user_location()}); NumPy compares them by real part first")
    if a.dtype.kind == "b":  # NumPy converts booleans to uint8 (with a warning)
        a = prims.convert(a, np.dtype(np.uint8))
    uniform = np.ndim(bins) == 0 and not isinstance(bins, (str, Tracer))  # NumPy's equal bins
    static = None  # the edges, where they are known while tracing
    if range is None and uniform:
        edges, first, last = _data_edges(trace, a, bins, selected)
        n = edges.shape[0] - 1
    elif isinstance(bins, Tracer):  # edges computed in the function: checked when it runs
        edges = _traced_edges(bins)
        first, last, n = edges[0], edges[-1], edges.shape[0] - 1
    else:
        edges, first, last = _histogram_edges(a, bins, range)
        n = len(edges) - 1
        static = edges
        edges = prims.constant(trace, edges)
    keep = prims.ufunc(np.bitwise_and, prims.ufunc(np.greater_equal, a, first),
                       prims.ufunc(np.less_equal, a, last))
    if selected is not None:
        keep = prims.ufunc(np.bitwise_and, keep, selected)
    if not uniform and n - 1 > _COUNTED_EDGES:
        hist = _counts_of_many_edges(trace, a, keep, edges, n, weights, selected, static)
    else:
        hist = _counts_by_bin(trace, a, keep, edges, first, last, n, uniform, weights)
    if density:
        widths = prims.convert(prims.ufunc(np.subtract, edges[1:], edges[:-1]), np.dtype(float))
        hist = prims.ufunc(np.true_divide, prims.ufunc(np.true_divide, hist, widths),
                           prims.reduction("sum", hist))
    return hist, edges


def _counts_of_many_edges(trace, a: Tracer, keep: Tracer, edges: Tracer, n: int, weights,
                          selected: Tracer | None, static: np.ndarray | None) -> Tracer:
    """The counts for more than ``_COUNTED_EDGES`` inner edges: where the edges are evenly
    spaced to within a quarter bin (``_nearly_even``: np.arange's, linspace's), each value's bin
    guessed from its distance to the first edge and corrected by one against the edges
    (``_guessed_bins``), one pass; else by a binary search per value (``_counts_by_search``).
    Edges the function receives or computes are tested when it runs, static ones (``static``)
    while tracing: one path compiled. np.arange's 101 edges, 3e5 values: 5-13 ms sorting
    (NumPy 1.5 ms), neuro53; 34 uneven edges, 10^6 values: 10 ms sorting, 4.4-4.8 ms searched
    (NumPy 5.6 ms), Session 54."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow

    def uneven():
        return _counts_by_search(trace, a, edges, n, weights, selected)

    def even():
        return _counts_by_bin(trace, a, keep, edges, edges[0], edges[-1], n, False, weights, guessed=True)

    return cond(_nearly_even(edges if static is None else static), even, uneven)


def _nearly_even(edges):
    """Whether every edge lies within a quarter bin of its place on the line from the first edge
    to the last (in float64), the bins' width well above the edges' rounding (2^-40 of their
    magnitude): then a value's bin computed from its distance to the first edge is off by at
    most one (``_guessed_bins``). NaN or inf edges are not. ``edges``: traced (a traced bool)
    or static (a NumPy bool)."""
    static = isinstance(edges, np.ndarray)
    e = np.asarray(edges, np.float64) if static else prims.convert(edges, np.dtype(np.float64))
    n = e.shape[0] - 1
    width = (e[-1] - e[0]) / n
    line = e[0] + np.arange(n + 1, dtype=np.float64) * width
    wide = width > 2.0**-40 * np.maximum(np.abs(e[0]), np.abs(e[-1]))
    return np.all(np.abs(e - line) <= 0.25 * width) & wide


def _guessed_bins(a: Tracer, keep: Tracer, edges: Tracer, n: int) -> Tracer:
    """Each value's bin among ``_nearly_even`` edges: guessed from its distance to the first
    edge (float64), then moved by one where the guess lands on the wrong side of an edge,
    compared in the values' and edges' common dtype, so a value on an edge is binned as NumPy's
    search puts it (the last edge in the last bin). Values outside ``keep`` get bin 0."""
    dtype = np.result_type(a.dtype, edges.dtype)
    e = prims.convert(edges, dtype)
    x = prims.where(keep, prims.convert(a, dtype), e[0])
    e64, x64 = prims.convert(e, np.dtype(np.float64)), prims.convert(x, np.dtype(np.float64))
    scaled = (x64 - e64[0]) / (e64[-1] - e64[0]) * float(n)
    return _moved_to_its_bin(x, e, prims.clip(prims.convert(scaled, np.dtype(np.intp)), 0, n - 1), n)


def _searched_bins(x: Tracer, edges: Tracer) -> Tracer:
    """``searchsorted(edges, x, 'right')``, how many of the sorted ``edges`` (two or more) lie
    at or below each value (NaN: none), by halvings fixed by their number: each a read of
    ``edges`` and a select, the same for every value, so the searches run side by side in one
    vectorized loop (gathers from ``edges``, in cache) with no branch to mispredict. ``base +
    size`` never passes ``len(edges)``; the clips change nothing but let ``effects._bounds``
    see it, so the reads check nothing."""
    size, top = edges.shape[0], edges.shape[0] - 1
    half = size // 2  # the first halving reads one edge, the same for every value
    base = prims.convert(prims.where(prims.ufunc(np.less_equal, edges[half - 1], x), half, 0),
                         np.dtype(np.intp))
    size -= half
    while size > 1:
        half = size // 2
        probe = indexing.take(edges, prims.clip(prims.ufunc(np.add, base, half - 1), 0, top), 0)
        base = prims.where(prims.ufunc(np.less_equal, probe, x), prims.ufunc(np.add, base, half), base)
        size -= half
    last = indexing.take(edges, prims.clip(base, 0, top), 0)
    return prims.ufunc(np.add, base, prims.convert(prims.ufunc(np.less_equal, last, x), np.dtype(np.intp)))


def _counts_by_bin(trace, a: Tracer, keep: Tracer, edges: Tracer, first, last, n: int,
                   uniform: bool, weights, guessed: bool = False) -> Tracer:
    """The counts (or summed weights) of ``a``'s values in ``keep``, each value's bin found on
    its own: by NumPy's arithmetic for equal bins, else by counting or searching the edges
    (``guessed``: nearly even edges, ``_guessed_bins``)."""
    if n == 1:
        idx = prims.constant(trace, np.zeros(a.shape, np.intp))
    elif guessed:
        idx = _guessed_bins(a, keep, edges, n)
    elif uniform:
        idx = _equal_bins(trace, a, keep, edges, first, last, n)
    else:  # the last edge belongs to the last bin: a value's bin is how many inner edges it reaches
        x = prims.convert(a, np.result_type(a.dtype, edges.dtype))
        inner = prims.convert(edges[1:-1], x.dtype)
        above = prims.ufunc(np.greater_equal, prims.reshape(x, x.shape + (1,)), inner)
        idx = prims.reduction("sum", above, 1, False, np.intp)  # a few compares a value, vectorized
    return _counted(trace, a, prims.where(keep, idx, n), n, weights)


def _counts_by_search(trace, a: Tracer, edges: Tracer, n: int, weights, selected: Tracer | None) -> Tracer:
    """The counts (or summed weights) for many uneven edges: each value's bin by a binary
    search of all edges but the last (``_searched_bins``). It finds none at or below a value
    under the first edge or NaN, so the search's own answer leaves those out; values past the
    last edge are left out too (one on it is in the last bin). The histogram's ``keep`` is not
    read: a mask both of ``_counts_of_many_edges``'s paths read is stored, and the even path's
    count then loads it (5 -> 14 ms at 10^6 values, Session 54)."""
    dtype = np.result_type(a.dtype, edges.dtype)
    x, e = prims.convert(a, dtype), prims.convert(edges, dtype)
    found = _searched_bins(x, e[:-1])
    out = prims.ufunc(np.bitwise_or, prims.ufunc(np.equal, found, 0), prims.ufunc(np.greater, x, e[-1]))
    if selected is not None:
        out = prims.ufunc(np.bitwise_or, out, prims.ufunc(np.bitwise_xor, selected, True))
    return _counted(trace, a, prims.where(out, n, prims.ufunc(np.subtract, found, 1)), n, weights)


def _counted(trace, a: Tracer, idx: Tracer, n: int, weights) -> Tracer:
    """The histogram of the bins ``idx`` (``n``: left out, counted in an extra bin and
    dropped), or of ``weights`` summed by them."""
    if weights is None:
        ntype, values = np.dtype(np.intp), 1
    else:
        w = weights if isinstance(weights, Tracer) else prims.constant(trace, np.asarray(weights))
        if w.size != a.size or (w.shape != a.shape and w.ndim == a.ndim):
            raise ValueError("weights should have the same shape as a.")
        if w.dtype.kind == "c":
            raise UnsupportedError(f"numpy.histogram with complex weights is not supported under "
                                   f"jit yet (at {user_location()})")
        ntype, values = w.dtype, prims.convert(prims.reshape(w, (-1,)), np.dtype(np.float64))
    counts = _count_into(trace, idx, values, n + 1, np.float64 if weights is not None else np.intp)
    return prims.convert(counts[:n], ntype)


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's D-dimensional histogram with bins per dimension a static count (with or without
    that dimension's ``range``) or an array of edges, static or traced (their decrease raises
    NumPy's ValueError from the call), as NumPy bins: ``searchsorted(edges, v,
    'right')``, a value on the last edge in the last bin, values outside (and NaN) left out;
    the counts (or summed ``weights``) as float64, ``density`` divided by the bin volumes.
    ``sample`` is an ``(N, D)`` array or a sequence of D arrays of length N. Returns
    ``(hist, [edges, ...])``. Without ``range``, NaN or inf data raise NumPy's ValueError
    (``JitValueError``) from the call."""
    columns = list(sample) if isinstance(sample, (list, tuple)) else [sample]
    columns, weights, selected = _unselected(columns, weights, "histogramdd")
    if selected is None and not traced(*columns, weights):
        return np.histogramdd(sample, bins, range, density, weights)
    if selected is not None:
        sample = columns
    trace = prims.find_trace(*columns, weights, selected)
    if isinstance(sample, Tracer):
        if sample.ndim != 2:
            sample = prims.reshape(sample, (-1, 1)) if sample.ndim < 2 else sample
            if sample.ndim != 2:
                raise ValueError(f"numpy.histogramdd takes an (N, D) sample (at {user_location()})")
        columns = [sample[:, d] for d in builtins.range(sample.shape[1])]
    else:
        columns = [c if isinstance(c, Tracer) else prims.constant(trace, np.asarray(c))
                   for c in sample]
    dtype = np.result_type(*(c.dtype for c in columns))  # NumPy stacks the columns first
    if dtype.kind in "cb":
        raise UnsupportedError(f"numpy.histogramdd of {dtype} is not supported under jit "
                               f"(at {user_location()})")
    columns = [prims.convert(prims.reshape(c, (-1,)), dtype) for c in columns]
    dims = len(columns)
    if builtins.any(c.shape != columns[0].shape for c in columns):
        raise ValueError(f"all the input array dimensions must match (at {user_location()})")
    if isinstance(bins, Tracer):  # NumPy reads one array as D counts (len(bins) == D)
        raise needs_static(ConcretizationError(
            f"numpy.histogramdd under jit needs static bin counts (at {user_location()}): one "
            "traced array of bins is read as a count per dimension, which sets the result's "
            "shape; pass Python ints, or a list of 1-d edge arrays (traced or not), one per "
            "dimension"), bins)
    try:
        if len(bins) != dims:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = dims * [bins]
    ranges = (None,) * dims if range is None else range
    if len(ranges) != dims:
        raise ValueError("range argument must have one entry per dimension")
    edges, index, ok, counts = [], None, None, []
    for d, (col, b, r) in enumerate(zip(columns, bins, ranges, strict=True)):
        if isinstance(b, Tracer):  # edges computed in the function or passed in: as histogram's
            e = _traced_edges(b, "numpy.histogramdd",
                              f"`bins[{d}]` must be monotonically increasing, when an array")
        elif np.ndim(b) == 0:
            if operator.index(b) < 1:
                raise ValueError(f"`bins[{d}]` must be positive, when an integer")
            if r is None:
                e = _data_edges(trace, col, b, selected)[0]
            else:
                first, last = _static_range(r, "numpy.histogramdd")
                e = prims.constant(trace, np.linspace(first, last, operator.index(b) + 1))
        elif np.ndim(b) == 1:
            fixed = np.asarray(b)
            if np.any(fixed[:-1] > fixed[1:]):
                raise ValueError(f"`bins[{d}]` must be monotonically increasing, when an array")
            e = prims.constant(trace, fixed)
        else:
            raise ValueError(f"`bins[{d}]` must be a scalar or 1d array")
        edges.append(e)
        n = e.shape[0] - 1
        counts.append(n)
        v = prims.convert(col, np.result_type(col.dtype, e.dtype))
        e_v = prims.convert(e, v.dtype)
        # searchsorted(edges, v, 'right'): how many edges lie at or below v (NaN: none);
        # counted with a compare an edge, or for many edges by a binary search
        if n - 1 > _COUNTED_EDGES:
            i = _searched_bins(v, e_v)
        else:
            above = prims.ufunc(np.greater_equal, prims.reshape(v, v.shape + (1,)), e_v)
            i = prims.reduction("sum", above, 1, False, np.intp)
        i = prims.where(prims.ufunc(np.equal, v, e_v[-1]), i - 1, i)  # the last edge: last bin
        inside = prims.ufunc(np.bitwise_and, prims.ufunc(np.greater_equal, i, 1),
                             prims.ufunc(np.less_equal, i, n))
        index = (i - 1) if index is None else index * n + (i - 1)
        ok = inside if ok is None else prims.ufunc(np.bitwise_and, ok, inside)
    total = int(np.prod(counts, dtype=np.int64))
    if selected is not None:  # (the rows a mask leaves out: the dropped bin, as outside ones)
        ok = prims.ufunc(np.bitwise_and, ok, selected)
    index = prims.where(ok, index, total)  # left out: an extra bin, dropped below
    if weights is None:
        values = 1
    else:
        w = weights if isinstance(weights, Tracer) else prims.constant(trace, np.asarray(weights))
        if w.dtype.kind == "c":
            raise UnsupportedError(f"numpy.histogramdd with complex weights is not supported "
                                   f"under jit (at {user_location()})")
        values = prims.convert(prims.reshape(w, (-1,)), np.dtype(np.float64))
        if values.shape != index.shape:
            raise ValueError("The weights and list don't have the same length.")
    hist = _count_into(trace, index, values, total + 1, np.float64)[:total]
    hist = prims.reshape(hist, tuple(counts))
    if density:
        s = prims.reduction("sum", hist)
        for d, e in enumerate(edges):
            shape = [1] * dims
            shape[d] = counts[d]
            widths = prims.convert(prims.ufunc(np.subtract, e[1:], e[:-1]), np.dtype(np.float64))
            hist = prims.ufunc(np.true_divide, hist, prims.reshape(widths, tuple(shape)))
        hist = prims.ufunc(np.true_divide, hist, s)
    return hist, edges


def _unselected(columns: list, weights, name: str):
    """``np.histogram2d(x[m], y[m], ...)``: columns (and ``weights``) selected by one mask are
    the whole arrays, and the mask (``selected``) leaves the other rows out of every bin and
    of the edges taken from the data, as ``np.histogram(x[m])``. The result's shape is the bins'
    whatever the count. (columns, weights, selected), ``selected`` None where none is."""
    picked = [c for c in (*columns, weights) if isinstance(c, masked.MaskedSelection)]
    if not picked:
        return columns, weights, None
    first = picked[0]
    if not all(isinstance(c, masked.MaskedSelection) and type(c) is type(first) and c.ndim == 1
               and c.mask.ndim == 1 and masked.same_mask(c.mask, first.mask) for c in columns) \
            or (weights is not None and len(picked) != len(columns) + 1):
        raise first._refusal(f"numpy.{name} of selections that are not 1-d selections by one mask "
                             "of every column (and of weights=, if given): select each by the "
                             "same mask, np.histogram2d(x[m], y[m], ...), or pass the mask as "
                             f"weights, np.{name}(..., weights=m.astype(float))")
    weights = weights.values if weights is not None else None
    return [c.values for c in columns], weights, first.mask


@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """NumPy's 2-D histogram: ``histogramdd`` of ``[x, y]`` (see there); returns ``(H, xedges,
    yedges)``, ``H[i, j]`` counting ``x`` in bin i and ``y`` in bin j."""
    if not traced(x, y, weights) and not isinstance(x, masked.MaskedSelection):
        return np.histogram2d(x, y, bins, range, density, weights)
    if isinstance(x, masked.MaskedSelection) or isinstance(y, masked.MaskedSelection):
        pass  # (histogramdd checks that both select by one mask: then their lengths match)
    elif np.shape(x)[:1] != np.shape(y)[:1]:
        raise ValueError("x and y must have the same length.")
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


# Uneven edges up to this many inner ones are compared with each value (a vectorized count);
# more are searched (``_counts_by_search``, ``_searched_bins``) or, nearly even, guessed. At
# 10^6 normal float64 values, thread CPU (Session 54, load ~13): 3 inner edges 4.9 ms counted,
# 4.4 searched; 5: 5.0, 3.5; 8: 5.9, 3.5; 16: 7.5, 4.1 (NumPy 6.5-7.0 each).
_COUNTED_EDGES = 2


def _equal_bins(trace, a: Tracer, keep: Tracer, edges: Tracer, first, last, n: int) -> Tracer:
    """NumPy's bin of each value among ``n`` equal bins, by NumPy's own steps: the index from
    the value's distance to the first edge (in the dtypes NumPy computes it in), then moved by
    one where that lands on the wrong side of an edge, so a value on an edge is binned as NumPy
    bins it. Values outside ``keep`` are clamped to the first edge (an index in range); the
    caller drops them."""
    if isinstance(first, Tracer):  # edges from the data: NumPy's first edge is a's min
        step_type, start = edges.dtype, prims.convert(first, edges.dtype)
        span = prims.ufunc(np.subtract, last, first)
    else:  # range=: NumPy's span is a NumPy scalar (unsigned for ints), the first edge a Python number
        start = prims.constant(trace, np.asarray(first, edges.dtype))
        span = _unsigned_span(last, first)
        step_type = np.result_type(edges.dtype, span.dtype)
        span = prims.constant(trace, np.asarray(span, step_type))
    x = prims.where(keep, prims.convert(a, edges.dtype), start)
    offset = prims.ufunc(np.subtract, x, start)
    scaled = prims.ufunc(np.multiply, prims.ufunc(
        np.true_divide, prims.convert(offset, step_type), prims.convert(span, step_type)),
        prims.constant(trace, np.asarray(n, step_type)))
    # NumPy moves an index of n (a value on the last edge) to n - 1; the clip does that and
    # bounds the index, so the two reads of the edges below need no check (effects._bounds).
    idx = prims.clip(prims.convert(scaled, np.dtype(np.intp)), 0, n - 1)
    return _moved_to_its_bin(x, edges, idx, n)


def _moved_to_its_bin(x: Tracer, edges: Tracer, idx: Tracer, n: int) -> Tracer:
    """``idx`` (a bin in ``[0, n)`` at most one off) moved down where ``x`` lies below its
    bin's first edge and up where it reaches the next (not past the last bin, which holds its
    last edge)."""
    below = prims.ufunc(np.less, x, indexing.take(edges, idx, 0))
    idx = prims.where(below, prims.ufunc(np.subtract, idx, 1), idx)
    past = prims.ufunc(np.bitwise_and, prims.ufunc(
        np.greater_equal, x, indexing.take(edges, prims.ufunc(np.add, idx, 1), 0)),
        prims.ufunc(np.not_equal, idx, n - 1))
    return prims.where(past, prims.ufunc(np.add, idx, 1), idx)


def _unsigned_span(last, first):
    """``last - first`` as NumPy's histogram computes it for ``range=``: in their common dtype,
    as the unsigned type of the same width for signed ints (so int16 bounds do not overflow)."""
    dtype = np.result_type(last, first)
    if dtype.kind == "i":
        return np.subtract(np.asarray(last, dtype), np.asarray(first, dtype), casting="unsafe",
                           dtype=np.dtype(dtype.str.replace("i", "u")))
    return np.subtract(last, first, dtype=dtype)


def _data_edges(trace, a: Tracer, bins, selected: Tracer | None = None):
    """NumPy's edges for a bin count without ``range=``: ``linspace(min, max, bins + 1)`` in
    the data's float dtype (float64 for integers), widened by 0.5 each way when min == max,
    ``[0, 1]`` for no data (or nothing ``selected``). Traced: the edges, and the outer edges
    values are kept by."""
    n = operator.index(bins)
    if n < 1:
        raise ValueError("`bins` must be positive, when an integer")
    bin_type = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    if a.size == 0:
        first = prims.constant(trace, np.zeros((), bin_type))
        last = prims.constant(trace, np.ones((), bin_type))
    elif selected is not None:  # the selected elements' min and max; [0, 1] for none
        x = prims.convert(a, bin_type)
        first = np.min(x, where=selected, initial=np.inf)
        last = np.max(x, where=selected, initial=-np.inf)
        some = np.any(selected)
        first = prims.where(some, first, prims.constant(trace, np.zeros((), bin_type)))
        last = prims.where(some, last, prims.constant(trace, np.ones((), bin_type)))
    else:
        first = prims.convert(prims.reduction("min", a), bin_type)
        last = prims.convert(prims.reduction("max", a), bin_type)
    if a.size:
        _raise_if_not_finite(first, last)
        same = prims.ufunc(np.equal, first, last)
        half = np.asarray(0.5, bin_type)
        first = prims.where(same, prims.ufunc(np.subtract, first, half), first)
        last = prims.where(same, prims.ufunc(np.add, last, half), last)
    edges = linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
    if a.size:
        _raise_if_too_many_bins(edges, n)
    return edges, first, last


def _raise_if_out_of_bins(idx: Tracer, minlength: int, selected: Tracer | None,
                          where: str, told: str | None = None) -> None:
    """bincount's errors, raised by the call: NumPy's ValueError for a negative value, and for
    one at or past ``minlength`` (NumPy would grow the result, whose length jit fixed) an
    IndexError that names both. Unselected elements (``x[mask]``) are not counted: no error."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    def fail(values, chosen):
        values = values if chosen is None else values[chosen]
        if (values < 0).any():
            raise JitValueError("'list' argument must have no negative elements")
        if told is not None:  # (minlength a count the data sets: its bins, at most the capacity)
            raise JitIndexError(
                f"np.bincount(x, {told}) at {where} met the value {values.max()}, past the most "
                f"bins compiled for it: write minlength=K with K a Python int larger than any value")
        raise JitIndexError(
            f"np.bincount(x, minlength={minlength}) at {where} met the value {values.max()}, "
            f"at or past minlength: under jit the result's length is minlength, fixed when the "
            f"function is traced (NumPy would grow it). Pass a minlength larger than any value, "
            f"or clip the values first (np.clip(x, 0, {minlength - 1}))")

    if idx.size == 0:
        return
    bad = (idx < 0) | (idx >= minlength)
    if selected is not None:
        bad = bad & selected
    cond(np.any(bad), lambda: debug_callback(fail, idx, selected), lambda: None)


def _raise_if_zero_weights(scl: Tracer) -> None:
    """NumPy's ZeroDivisionError where some sum of weights is zero, raised by the call."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    def fail(_):
        raise JitZeroDivisionError("Weights sum to zero, can't be normalized")

    cond(np.any(scl == 0), lambda: debug_callback(fail, np.any(scl == 0)), lambda: None)


def _raise_if_not_finite(first: Tracer, last: Tracer) -> None:
    """NumPy's ValueError when the data's range (NaN or inf in them, no ``range=``) is not
    finite, raised by the call: a callback on the branch taken only then."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    def fail(lo, hi):
        raise JitValueError(f"autodetected range of [{lo}, {hi}] is not finite (give range= "
                            "to leave NaN and inf out of the bins)")

    bad = ~(np.isfinite(first) & np.isfinite(last))
    cond(bad, lambda: debug_callback(fail, first, last), lambda: None)


def _too_many_bins(n: int) -> str:
    return f"Too many bins for data range. Cannot create {n} finite-sized bins."


def _raise_if_too_many_bins(edges: Tracer, n: int) -> None:
    """NumPy's ValueError when the data's range is too narrow for ``n`` bins in the edges'
    dtype (two edges round to one: float32 data at 1e8 has a spacing of 8), raised by the
    call: a callback on the branch taken only then."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    where = user_location()

    def fail(_):
        raise JitValueError(f"{_too_many_bins(n)} (at {where}): widen the data's range, give fewer "
                            "bins, or bin the data in float64")

    bad = np.any(edges[:-1] >= edges[1:])
    cond(bad, lambda: debug_callback(fail, bad), lambda: None)


def _traced_edges(bins: Tracer, api: str = "numpy.histogram",
                  decreasing: str = "`bins` must increase monotonically, when an array") -> Tracer:
    """Traced bin edges (a 1-d array of static length), with NumPy's ValueError (``decreasing``)
    raised by the call where they decrease."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow
    from jitcore.debugging import debug_callback  # and the codegen's callbacks

    if bins.ndim == 0 and bins.dtype.kind in "iu":  # a count: it sets the result's shape
        raise needs_static(ConcretizationError(
            f"{api} under jit needs a static count of bins (at {user_location()}): it "
            "is the result's length; pass it as a Python int"), bins)
    if bins.ndim != 1:
        raise ValueError(f"`bins` must be 1d, when an array (at {user_location()})")
    if bins.dtype.kind in "cb":
        raise UnsupportedError(f"{api} with {bins.dtype} edges is not supported under "
                               f"jit (at {user_location()})")

    def fail(_):
        raise JitValueError(decreasing)

    cond(np.any(bins[:-1] > bins[1:]), lambda: debug_callback(fail, bins[0]), lambda: None)
    return bins


@implements(np.histogram_bin_edges)
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges ``histogram`` would use (see there): static ones for edges or a count with
    ``range=``, computed from the data's min and max otherwise (NumPy's ValueError, raised by
    the call, where those are not finite). ``weights`` matter only to the string estimators,
    which are not compiled."""
    if not traced(a, weights, bins):
        return np.histogram_bin_edges(a, bins, range, weights)
    if isinstance(bins, Tracer):
        return _traced_edges(bins)
    trace = prims.find_trace(a, weights)
    a = prims.reshape(a if isinstance(a, Tracer) else prims.constant(trace, np.asarray(a)), (-1,))
    if a.dtype.kind == "c":
        raise UnsupportedError(f"numpy.histogram_bin_edges of complex numbers is not supported "
                               f"under jit (at {user_location()})")
    if a.dtype.kind == "b":
        a = prims.convert(a, np.dtype(np.uint8))
    if range is None and np.ndim(bins) == 0 and not isinstance(bins, (str, Tracer)):
        return _data_edges(trace, a, bins)[0]
    return prims.constant(trace, _histogram_edges(a, bins, range, "numpy.histogram_bin_edges")[0])


def _histogram_edges(a, bins, range, api: str = "numpy.histogram"):
    """NumPy's bin edges for static ``bins``/``range``, and the outer edges values are kept by."""
    if isinstance(bins, str):
        raise UnsupportedError(f"{api} with bins={bins!r} (edges chosen from the data) "
                               f"is not supported under jit (at {user_location()}); give a count "
                               "(with or without range=), or the edges")
    if isinstance(bins, Tracer):
        raise ConcretizationError(f"numpy.histogram under jit needs static bins (at "
                                  f"{user_location()}): the edges are checked to increase and set "
                                  "the bins while tracing; pass them as a NumPy array the function "
                                  "closes over (or make them inside it), or give a count and range=")
    if np.ndim(bins) == 0:
        n = operator.index(bins)
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first, last = _static_range(range, "numpy.histogram")
        bin_type = np.result_type(first, last, a.dtype)
        if bin_type.kind in "biu":
            bin_type = np.result_type(bin_type, float)
        edges = np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
        if np.any(edges[:-1] >= edges[1:]):
            raise JitValueError(f"{_too_many_bins(n)} (at {user_location()})")
        return edges, first, last
    edges = np.asarray(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges, edges[0], edges[-1]
