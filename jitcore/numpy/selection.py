"""Choosing elements under ``jit``: ``where``, ``select``, ``clip`` and ``ptp`` (the largest
less the smallest); and NumPy 2's ``unique_*`` functions, whose results need not come sorted,
refused with the way out (``where(condition)`` and ``unique``: ``data_length``).
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.numpy import data_length
from jitcore.numpy.registry import HANDLED_FUNCTIONS, implements, traced
from jitcore.tracer import Tracer, as_scalar, user_location

__all__ = ["clip", "piecewise", "ptp", "select", "where"]


@implements(np.where)
def where(condition, x=None, y=None):
    """``numpy.where(condition, x, y)``: x where condition holds, else y (broadcasting)."""
    if x is None and y is None and traced(condition):
        return data_length.nonzero(condition)  # np.nonzero(np.asarray(condition)), as NumPy's
    if traced(condition, x, y):
        return prims.where(condition, x, y)
    return np.where(condition, x, y)


def _data_dependent(np_fn, what: str, instead: str):
    """``np_fn`` refused on traced arrays: how many ``what`` it returns depends on the data."""
    def fn(a, *args, **kwargs):
        if not traced(a):
            return np_fn(a, *args, **kwargs)
        raise JitTypeError(
            f"numpy.{np_fn.__name__} returns {what}, which a compiled function cannot return "
            f"(at {user_location()}); {instead}, or call it outside the jitted function"
        )
    HANDLED_FUNCTIONS[np_fn] = fn


# (np.unique and the indices of nonzero elements: jitcore.numpy.data_length; these, since
# NumPy 2.3, need not come sorted)
for _fn in (np.unique_all, np.unique_counts, np.unique_inverse, np.unique_values):
    _data_dependent(_fn, "as many values as the data holds distinct ones",
                    "sort and compare neighbours for a mask of first occurrences (s = np.sort(x); "
                    "first = np.concatenate([[True], s[1:] != s[:-1]]))")


def _select_kind(v):
    """What ``np.result_type`` takes for a choice of ``np.select``: Python scalars stay weak."""
    if isinstance(v, Tracer):
        return (0.0 if v.dtype.kind == "f" else 0) if getattr(v, "weak", False) else v.dtype
    return v


@implements(np.select)
def select(condlist, choicelist, default=0):
    """``numpy.select``: where the first true condition picks its choice, else ``default``;
    a chain of ``where``, last condition innermost."""
    condlist, choicelist = list(condlist), list(choicelist)
    if not traced(*condlist, *choicelist, default):
        return np.select(condlist, choicelist, default)
    condlist = [v if isinstance(v, Tracer) else np.asarray(v) for v in condlist]
    # a Python number choice stays one: weak in the result's dtype, as NumPy takes it
    choicelist = [v if isinstance(v, Tracer) or type(v) in (int, float, complex) else np.asarray(v)
                  for v in choicelist]
    if not isinstance(default, Tracer) and type(default) not in (int, float, complex):
        default = np.asarray(default)
    at = user_location()
    if len(condlist) != len(choicelist):
        raise JitValueError(
            f"numpy.select at {at}: {len(condlist)} conditions but {len(choicelist)} choices; "
            "give one choice per condition"
        )
    if not condlist:
        raise JitValueError(f"numpy.select at {at}: the list of conditions is empty")
    for i, c in enumerate(condlist):
        dtype = c.dtype if isinstance(c, Tracer) else np.asarray(c).dtype
        if dtype != np.bool_:
            raise JitTypeError(
                f"numpy.select at {at}: condition {i} has dtype {dtype}; conditions must be bool "
                "(compare first, e.g. x > 0, or use x.astype(bool))"
            )
    try:
        dtype = np.result_type(*(_select_kind(v) for v in (*choicelist, default)))
    except TypeError as e:
        raise JitTypeError(f"numpy.select at {at}: the choices and default have no common "
                           f"dtype: {e}") from None
    trace = prims.find_trace(*condlist, *choicelist, default)
    if type(default) in (int, float, complex):  # NumPy fills with it by an unsafe cast: -1 wraps
        with np.errstate(all="ignore"):
            default = np.asarray(default).astype(dtype)
    out = prims.as_tracer(trace, default, dtype)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        if type(choice) in (int, float, complex):  # copied in by a cast, as NumPy's copyto
            with np.errstate(all="ignore"):
                choice = np.asarray(choice).astype(dtype)
        out = prims.where(cond, prims.as_tracer(trace, choice, dtype), out)
    return out


@implements(np.clip)
def clip(a, a_min=None, a_max=None, out=None):
    """``numpy.clip``; ``out=`` (``x.clip(0, 255, out=x)``) written as a ufunc's, same-kind cast."""
    if not traced(a, a_min, a_max, out):
        return np.clip(a, a_min, a_max, out=out)
    a_min, a_max = _clip_bound(a, a_min, lower=True), _clip_bound(a, a_max, lower=False)
    result = prims.clip(a, a_min, a_max)
    if out is not None:
        if not isinstance(out, Tracer):
            return prims.write_out(out, result, "clip")  # (its refusal of a NumPy array)
        if out.shape != np.broadcast_shapes(out.shape, np.shape(result)):
            raise JitValueError(f"numpy.clip: the result's shape {np.shape(result)} does not fit "
                                f"out= of shape {out.shape} (NumPy raises a ValueError too), at "
                                f"{user_location()}")
        prims.assign(out, result, "same_kind", "ufunc 'clip'")
        return out
    # a new array, as NumPy's (a 0-d one a NumPy scalar, as every clip of it: a bound dropped too)
    return as_scalar(result.copy()) if result is a else result


def _clip_bound(a, bound, lower: bool):
    """NumPy 2 clips an integer array to a Python int beyond its dtype's range on the side where
    that changes nothing (uint8 to -3 from below, 300 from above): such a bound is dropped
    (None). A bound beyond the range on the other side is kept, and raises like NumPy's."""
    dtype = getattr(a, "dtype", None)
    if isinstance(bound, Tracer) and bound.int_range is not None and dtype is not None:
        return _traced_int_bound(a, bound, lower)
    if type(bound) is not int or dtype is None or dtype.kind not in "iu" or getattr(a, "weak", False):
        return bound
    info = np.iinfo(dtype)
    return None if (bound < info.min if lower else bound > info.max) else bound


def _traced_int_bound(a, bound: Tracer, lower: bool):
    """The same for a Python int argument, of which the signature knows a range (see
    ``api.int_range``). The ranges are cut at every integer dtype's limits, all of one sign, so
    a range that does not fit ``a``'s dtype says on which side the value lies: below the
    minimum (a negative range) or above the maximum. On the side that changes nothing the bound
    is dropped; on the other ``prims.ufunc`` raises NumPy's OverflowError."""
    if prims.int_fits(bound, a.dtype) or getattr(a, "weak", False):
        return bound
    above = bound.int_range[0] >= 0
    return bound if above == lower else None


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=np._NoValue):
    """``numpy.ptp``: NumPy's ``max - min`` in the array's dtype (integers wrap as NumPy's do;
    booleans raise its TypeError from subtract)."""
    if not traced(a):
        return np.ptp(a, axis, out, keepdims)
    if out is not None:
        raise UnsupportedError(f"numpy.ptp with out= is not supported under jit yet (at {user_location()})")
    kw = {} if keepdims is np._NoValue else {"keepdims": keepdims}
    return np.subtract(np.max(a, axis=axis, **kw), np.min(a, axis=axis, **kw))


@implements(np.piecewise)
def piecewise(x, condlist, funclist, *args, **kw):
    """NumPy's ``piecewise``: where condition i holds, ``funclist[i]`` (a function of ``x``, or a
    value); one more function than conditions is the "otherwise" piece; zeros where none holds;
    a later condition wins where several do; the result in ``x``'s dtype. NumPy calls each
    function on the selected values only; compiled code has fixed shapes, so each is called on
    all of ``x`` (with ``args``, ``kw``) and its values selected: the functions must be
    elementwise."""
    conds = list(condlist) if isinstance(condlist, (list, tuple)) else [condlist]
    if not traced(x, *conds):
        return np.piecewise(x, condlist, funclist, *args, **kw)
    x = x if isinstance(x, Tracer) else prims.constant(prims.find_trace(*conds), np.asarray(x))
    if isinstance(condlist, Tracer) and condlist.ndim == x.ndim + 1:
        conds = [condlist[i] for i in range(condlist.shape[0])]  # a list read as one array
    elif not isinstance(condlist, (list, tuple)) or (conds and np.ndim(conds[0]) == 0 and x.ndim):
        conds = [condlist]
    conds = [np.asarray(c).astype(bool) if not isinstance(c, Tracer) else c.astype(bool)
             for c in conds]
    if len(conds) == len(funclist) - 1:
        anyc = conds[0]
        for c in conds[1:]:
            anyc = anyc | c
        conds.append(~anyc)
    elif len(conds) != len(funclist):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or {len(conds) + 1} "
                         f"functions are expected")
    y = np.zeros_like(x)
    for cond, func in zip(conds, funclist):
        value = func(x, *args, **kw) if callable(func) else func
        value = value.astype(x.dtype) if isinstance(value, Tracer) else np.asarray(value).astype(
            x.dtype)
        y = np.where(cond, value, y)
    return y
