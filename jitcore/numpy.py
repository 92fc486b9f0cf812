"""``jitcore.numpy``: NumPy's functions, recorded when given traced arrays.

Each function here records the same ops whether it is called as ``jitcore.numpy.f``, as
``numpy.f`` on a traced value (through ``__array_function__`` / ``__array_ufunc__``), or as the
matching operator or method. On concrete NumPy arrays (outside ``jit``) it simply calls NumPy.
A NumPy function without an entry in ``HANDLED_FUNCTIONS`` raises ``UnsupportedError`` when
called on a traced value: jitcore never falls back to running Python on data.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import numpy as _np

from jitcore import primitives as _prims
from jitcore.errors import JitTypeError as _JitTypeError
from jitcore.errors import UnsupportedError as _UnsupportedError
from jitcore.tracer import Tracer as _Tracer
from jitcore.tracer import fresh as _fresh
from jitcore.tracer import reshape_view as _reshape_view
from jitcore.tracer import transpose_view as _transpose_view
from jitcore.tracer import user_location as _user_location

HANDLED_FUNCTIONS: dict = {}  # numpy function -> implementation taking the same arguments
UFUNCS: dict = {}  # numpy ufunc -> implementation of its __call__


def _traced(*args) -> bool:
    return _builtins.any(isinstance(a, _Tracer) for a in args)


def _implements(*np_functions):
    def register(fn):
        for f in np_functions:
            HANDLED_FUNCTIONS[f] = fn
        return fn

    return register


def _ufunc(np_fn, traced_impl=None):
    impl = traced_impl or (lambda *args: _prims.ufunc(np_fn, *args))

    def fn(*args):
        return impl(*args) if _traced(*args) else np_fn(*args)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"numpy.{np_fn.__name__} on traced or concrete arrays."
    UFUNCS[np_fn] = impl
    return fn


# Every ufunc with a direct lowering, under NumPy's name.
for _f in _prims.UFUNC_KINDS:
    globals()[_f.__name__] = _ufunc(_f)
abs = absolute  # noqa: F821  (defined by the loop above)
true_divide = divide  # noqa: F821
mod = remainder  # noqa: F821


def _logical(np_fn, bitwise):
    def impl(*args):
        return _prims.ufunc(bitwise, *(_prims.as_bool(a) for a in args))

    return _ufunc(np_fn, impl)


logical_and = _logical(_np.logical_and, _np.bitwise_and)
logical_or = _logical(_np.logical_or, _np.bitwise_or)
logical_xor = _logical(_np.logical_xor, _np.bitwise_xor)
logical_not = _logical(_np.logical_not, _np.invert)
square = _ufunc(_np.square, lambda x: _prims.ufunc(
    _np.multiply, *[_prims.as_tracer(x.trace, x, _np.square.resolve_dtypes((x.dtype, None))[0])] * 2))
fabs = _ufunc(_np.fabs, lambda x: _prims.ufunc(
    _np.absolute, _prims.convert(x, _np.fabs.resolve_dtypes((x.dtype, None))[0])))


def _reciprocal(x):
    if x.dtype.kind == "c":
        return _prims.part("reciprocal", x)
    if x.dtype.kind != "f":
        raise _UnsupportedError(
            f"numpy.reciprocal of {x.dtype} at {_user_location()}: NumPy's integer reciprocal "
            "is rarely what is meant; write 1 / x (float) or 1 // x (floor) instead"
        )
    return _prims.ufunc(_np.true_divide, _np.ones((), x.dtype), x)


reciprocal = _ufunc(_np.reciprocal, _reciprocal)
bitwise_count = _ufunc(_np.bitwise_count, _prims.bitwise_count)
float_power = _ufunc(_np.float_power, _prims.float_power)
divmod = _ufunc(_np.divmod, lambda x, y: (_prims.ufunc(_np.floor_divide, x, y),
                                         _prims.ufunc(_np.remainder, x, y)))

float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64, bool_ = _np.uint8, _np.uint16, _np.uint32, _np.uint64, _np.bool_


@_implements(_np.real)
def real(val):
    return val.real if _traced(val) else _np.real(val)


@_implements(_np.imag)
def imag(val):
    return val.imag if _traced(val) else _np.imag(val)


@_implements(_np.angle)
def angle(z, deg=False):
    """The argument of complex numbers, ``arctan2(z.imag, z.real)`` (in degrees if ``deg``)."""
    if not _traced(z):
        return _np.angle(z, deg)
    imag, real = (z.imag, z.real) if z.dtype.kind == "c" else (0, z)
    out = _prims.ufunc(_np.arctan2, imag, real)
    return _prims.ufunc(_np.multiply, out, 180 / _np.pi) if deg else out


@_implements(_np.iscomplexobj)
def iscomplexobj(x):
    return x.dtype.kind == "c" if _traced(x) else _np.iscomplexobj(x)


@_implements(_np.isrealobj)
def isrealobj(x):
    return x.dtype.kind != "c" if _traced(x) else _np.isrealobj(x)


@_implements(_np.where)
def where(condition, x=None, y=None):
    """``numpy.where(condition, x, y)``: x where condition holds, else y (broadcasting)."""
    if x is None and y is None and _traced(condition):
        raise _JitTypeError(
            f"numpy.where(condition) with one argument returns indices whose number depends on "
            f"the data, which a compiled function cannot return (at {_user_location()}); use "
            "numpy.where(condition, x, y)"
        )
    if _traced(condition, x, y):
        return _prims.where(condition, x, y)
    return _np.where(condition, x, y)


def _data_dependent(np_fn):
    """``numpy.nonzero`` and friends: how many indices they return depends on the data."""
    def fn(a, *args, **kwargs):
        if not _traced(a):
            return np_fn(a, *args, **kwargs)
        raise _JitTypeError(
            f"numpy.{np_fn.__name__} returns indices whose number depends on the data, which a "
            f"compiled function cannot return (at {_user_location()}); use numpy.where(condition, "
            "x, y) or a mask, or call it outside the jitted function"
        )
    HANDLED_FUNCTIONS[np_fn] = fn


for _fn in (_np.nonzero, _np.argwhere, _np.flatnonzero):
    _data_dependent(_fn)


def _select_kind(v):
    """What ``np.result_type`` takes for a choice of ``np.select``: Python scalars stay weak."""
    if isinstance(v, _Tracer):
        return (0.0 if v.dtype.kind == "f" else 0) if getattr(v, "weak", False) else v.dtype
    return v


@_implements(_np.select)
def select(condlist, choicelist, default=0):
    """``numpy.select``: where the first true condition picks its choice, else ``default``;
    a chain of ``where``, last condition innermost."""
    condlist, choicelist = list(condlist), list(choicelist)
    if not _traced(*condlist, *choicelist, default):
        return _np.select(condlist, choicelist, default)
    condlist, choicelist = ([v if isinstance(v, _Tracer) else _np.asarray(v) for v in vs]
                            for vs in (condlist, choicelist))
    if not isinstance(default, _Tracer) and type(default) not in (int, float, complex):
        default = _np.asarray(default)
    at = _user_location()
    if len(condlist) != len(choicelist):
        raise _JitTypeError(
            f"numpy.select at {at}: {len(condlist)} conditions but {len(choicelist)} choices; "
            "give one choice per condition"
        )
    if not condlist:
        raise _JitTypeError(f"numpy.select at {at}: the list of conditions is empty")
    for i, c in enumerate(condlist):
        dtype = c.dtype if isinstance(c, _Tracer) else _np.asarray(c).dtype
        if dtype != _np.bool_:
            raise _JitTypeError(
                f"numpy.select at {at}: condition {i} has dtype {dtype}; conditions must be bool "
                "(compare first, e.g. x > 0, or use x.astype(bool))"
            )
    try:
        dtype = _np.result_type(*(_select_kind(v) for v in (*choicelist, default)))
    except TypeError as e:
        raise _JitTypeError(f"numpy.select at {at}: the choices and default have no common "
                            f"dtype: {e}") from None
    trace = _trace_of([*condlist, *choicelist, default])
    out = _prims.as_tracer(trace, default, dtype)
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        out = _prims.where(cond, _prims.as_tracer(trace, choice, dtype), out)
    return out


@_implements(_np.clip)
def clip(a, a_min=None, a_max=None):
    if not _traced(a, a_min, a_max):
        return _np.clip(a, a_min, a_max)
    a_min, a_max = _clip_bound(a, a_min, lower=True), _clip_bound(a, a_max, lower=False)
    out = _prims.clip(a, a_min, a_max)
    return out.copy() if out is a else out  # a new array, as NumPy's


def _clip_bound(a, bound, lower: bool):
    """NumPy 2 clips an integer array to a Python int beyond its dtype's range on the side where
    that changes nothing (uint8 to -3 from below, 300 from above): such a bound is dropped
    (None). A bound beyond the range on the other side is kept, and raises like NumPy's."""
    dtype = getattr(a, "dtype", None)
    if type(bound) is not int or dtype is None or dtype.kind not in "iu" or getattr(a, "weak", False):
        return bound
    info = _np.iinfo(dtype)
    return None if (bound < info.min if lower else bound > info.max) else bound


def _reduction(kind, np_fn):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if not _traced(a):
            return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)
        _no_extras(np_fn, out=out, **kwargs)
        return _prims.reduction(kind, a, axis, keepdims, dtype)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


def _no_extras(np_fn, out=None, **kwargs):
    used = [k for k, v in kwargs.items() if v is not None and k not in ("initial", "where")]
    if out is not None or used or kwargs.get("initial") is not None or kwargs.get("where", True) is not True:
        names = (["out"] if out is not None else []) + used
        raise _UnsupportedError(
            f"numpy.{np_fn.__name__} with {', '.join(names) or 'initial/where'} is not supported "
            f"under jit yet (at {_user_location()})"
        )


sum = _reduction("sum", _np.sum)
prod = _reduction("prod", _np.prod)


def _minmax(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, **kwargs):
        if not _traced(a):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **kwargs)
        _no_extras(np_fn, out=out, **kwargs)
        return _prims.reduction(kind, a, axis, keepdims)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


max = amax = _minmax("max", _np.max)
min = amin = _minmax("min", _np.min)
HANDLED_FUNCTIONS[_np.amax], HANDLED_FUNCTIONS[_np.amin] = max, min


def _boolean_reduction(kind, np_fn):
    def fn(a, axis=None, out=None, keepdims=False, **kwargs):
        if not _traced(a):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims, **kwargs)
        _no_extras(np_fn, out=out, **kwargs)
        return _prims.reduction(kind, _prims.as_bool(a), axis, keepdims)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


any = _boolean_reduction("or", _np.any)
all = _boolean_reduction("and", _np.all)


@_implements(_np.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    if not _traced(a):
        return _np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kwargs)
    _no_extras(_np.mean, out=out, **kwargs)
    return _prims.mean(a, axis, keepdims, dtype)


@_implements(_np.var)
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    if not _traced(a):
        return _np.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
    _no_extras(_np.var, out=out, **kwargs)
    return _prims.variance(a, axis, keepdims, dtype, ddof)


@_implements(_np.std)
def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    if not _traced(a):
        return _np.std(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kwargs)
    _no_extras(_np.std, out=out, **kwargs)
    return _prims.ufunc(_np.sqrt, _prims.variance(a, axis, keepdims, dtype, ddof))


@_implements(_np.reshape)
def reshape(a, shape=None, order="C", **kwargs):
    shape = kwargs.pop("newshape", shape)
    if not _traced(a):
        return _np.reshape(a, shape, order=order)
    if order != "C":
        raise _UnsupportedError(f"numpy.reshape with order={order!r} is not supported under jit")
    return a.reshape(shape)  # a view, as in NumPy


@_implements(_np.ravel)
def ravel(a, order="C"):
    return reshape(a, (-1,), order=order)


@_implements(_np.transpose)
def transpose(a, axes=None):
    return a.transpose(axes) if _traced(a) else _np.transpose(a, axes)


@_implements(_np.swapaxes)
def swapaxes(a, axis1, axis2):
    if not _traced(a):
        return _np.swapaxes(a, axis1, axis2)
    perm = list(range(a.ndim))
    (i,), (j,) = (_prims.normalize_axes(ax, a.ndim, "swapaxes") for ax in (axis1, axis2))
    perm[i], perm[j] = perm[j], perm[i]
    return _transpose_view(a, perm)  # a view, as in NumPy


@_implements(_np.moveaxis)
def moveaxis(a, source, destination):
    if not _traced(a):
        return _np.moveaxis(a, source, destination)
    src = _prims.normalize_axes(source, a.ndim, "moveaxis")
    dst = _prims.normalize_axes(destination, a.ndim, "moveaxis")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _transpose_view(a, order)  # a view, as in NumPy


@_implements(_np.squeeze)
def squeeze(a, axis=None):
    if not _traced(a):
        return _np.squeeze(a, axis)
    axis = _prims.zero_d_axis(a, axis)
    axes = [i for i, d in enumerate(a.shape) if d == 1] if axis is None else \
        _prims.normalize_axes(axis, a.ndim, "squeeze")
    if _builtins.any(a.shape[i] != 1 for i in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _reshape_view(a, tuple(d for i, d in enumerate(a.shape) if i not in axes))  # a view


@_implements(_np.expand_dims)
def expand_dims(a, axis):
    if not _traced(a):
        return _np.expand_dims(a, axis)
    axes = tuple(axis) if type(axis) in (tuple, list) else (axis,)  # as NumPy: np.int64 too
    ndim = a.ndim + len(axes)
    axes = _prims.normalize_axes(axes, ndim, "expand_dims")
    shape = iter(a.shape)
    return _reshape_view(a, tuple(1 if i in axes else next(shape) for i in range(ndim)))  # a view


@_implements(_np.broadcast_to)
def broadcast_to(a, shape):
    if not _traced(a):
        return _np.broadcast_to(a, shape)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _prims.broadcast_to(a, shape)


def _like(np_fn, fill):
    def fn(a, dtype=None, order="K", subok=True, shape=None, **kwargs):
        if not _traced(a):
            return np_fn(a, dtype=dtype, shape=shape)
        dtype = _np.dtype(dtype or a.dtype)
        value = _np.full(a.shape if shape is None else shape, fill(dtype), dtype=dtype)
        return _prims.constant(a.trace, value)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


zeros_like = _like(_np.zeros_like, lambda dt: 0)
ones_like = _like(_np.ones_like, lambda dt: 1)
empty_like = _like(_np.empty_like, lambda dt: 0)


@_implements(_np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    if not _traced(a, fill_value):
        return _np.full_like(a, fill_value, dtype=dtype, shape=shape)
    dtype = _np.dtype(dtype or a.dtype)
    zero = _prims.constant(a.trace, _np.zeros(a.shape if shape is None else shape, dtype))
    return _fresh(_prims.convert(_prims.ufunc(_np.add, zero, fill_value), dtype))  # an array


@_implements(_np.astype)
def astype(a, dtype, copy=True):
    return _fresh(_prims.convert(a, _np.dtype(dtype))) if _traced(a) else _np.asarray(a).astype(dtype)


@_implements(_np.shape)
def shape(a):
    return a.shape if _traced(a) else _np.shape(a)


@_implements(_np.ndim)
def ndim(a):
    return a.ndim if _traced(a) else _np.ndim(a)


@_implements(_np.size)
def size(a, axis=None):
    if not _traced(a):
        return _np.size(a, axis)
    return a.size if axis is None else a.shape[axis]


@_implements(_np.result_type)
def result_type(*arrays_and_dtypes):
    return _np.result_type(*(a.dtype if isinstance(a, _Tracer) else a for a in arrays_and_dtypes))


@_implements(_np.take)
def take(a, indices, axis=None, out=None, mode="raise"):
    if not _traced(a, indices):
        return _np.take(a, indices, axis=axis, out=out, mode=mode)
    if out is not None or mode != "raise":
        raise _UnsupportedError("numpy.take with out= or mode= is not supported under jit yet")
    a = _lift(a, [a, indices])
    axis = _prims.zero_d_axis(a, _index_or_none(axis))
    if isinstance(indices, (list, tuple)):
        indices = _np.asarray(indices, dtype=_np.int64)
    if axis is None:
        a, axis = _prims.reshape(a, (-1,)), 0
    (axis,) = _prims.normalize_axes(axis, a.ndim, "take")
    shape = a.shape[:axis] + _np.shape(indices) + a.shape[axis + 1:]
    if a.shape[axis] == 0 and _np.prod(shape):
        raise IndexError("cannot do a non-empty take from an empty axes.")
    if not _np.prod(a.shape[:axis]):  # NumPy checks no index then
        return _prims.constant(a.trace, _np.zeros(shape, a.dtype))
    return _prims.take(a, indices, axis)


def _index_or_none(axis):
    """An axis that must be one int (or None): NumPy raises TypeError for a tuple."""
    return axis if axis is None else _operator.index(axis)


@_implements(_np.concatenate)
def concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    if not _traced(*arrays):
        return _np.concatenate(arrays, axis=axis, dtype=dtype)
    if out is not None:
        raise _UnsupportedError("numpy.concatenate with out= is not supported under jit")
    if axis is None:
        arrays, axis = [_prims.reshape(_lift(a, arrays), (-1,)) for a in arrays], 0
    out = _prims.concatenate(arrays, axis)
    return out if dtype is None else _prims.convert(out, _np.dtype(dtype))


def _trace_of(arrays):
    return _prims.find_trace(*arrays)


@_implements(_np.stack)
def stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = list(arrays)
    if not _traced(*arrays):
        return _np.stack(arrays, axis=axis, dtype=dtype)
    shapes = {_np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    return concatenate([expand_dims(_lift(a, arrays), axis) for a in arrays], axis, out, dtype)


def _lift(a, arrays):
    """A concrete array among traced ones, as a constant of the same trace."""
    return a if isinstance(a, _Tracer) else _prims.constant(_trace_of(arrays), _np.asarray(a))


@_implements(_np.hstack)
def hstack(tup, dtype=None, casting="same_kind"):
    arrays = list(tup)
    if not _traced(*arrays):
        return _np.hstack(arrays, dtype=dtype)
    arrays = [_lift(a, arrays) for a in arrays]
    arrays = [_prims.reshape(a, (1,)) if a.ndim == 0 else a for a in arrays]
    return concatenate(arrays, 0 if arrays[0].ndim == 1 else 1, dtype=dtype)


@_implements(_np.vstack)
def vstack(tup, dtype=None, casting="same_kind"):
    arrays = list(tup)
    if not _traced(*arrays):
        return _np.vstack(arrays, dtype=dtype)
    arrays = [_lift(a, arrays) for a in arrays]
    arrays = [_prims.reshape(a, (1, -1) if a.ndim < 2 else a.shape) for a in arrays]
    return concatenate(arrays, 0, dtype=dtype)


@_implements(_np.split)
def split(ary, indices_or_sections, axis=0):
    if not _traced(ary):
        return _np.split(ary, indices_or_sections, axis)
    (axis,) = _prims.normalize_axes(axis, ary.ndim, "split")
    n = ary.shape[axis]
    if isinstance(indices_or_sections, int):
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        step = n // indices_or_sections
        bounds = list(range(0, n + 1, step)) if step else [0] * (indices_or_sections + 1)
    else:
        bounds = [0, *indices_or_sections, n]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key = [slice(None)] * ary.ndim
        key[axis] = slice(lo, hi)
        parts.append(ary[tuple(key)])
    return parts


@_implements(_np.flip)
def flip(m, axis=None):
    if not _traced(m):
        return _np.flip(m, axis)
    axes = range(m.ndim) if axis is None else _prims.normalize_axes(axis, m.ndim, "flip")
    return m[tuple(slice(None, None, -1) if k in axes else slice(None) for k in range(m.ndim))]


@_implements(_np.roll)
def roll(a, shift, axis=None):
    if not _traced(a):
        return _np.roll(a, shift, axis)
    if axis is None:
        return _prims.reshape(roll(_prims.reshape(a, (-1,)), shift, 0), a.shape)
    axes = _np.lib.array_utils.normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    pairs = _np.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    if a.ndim == 0:  # NumPy's roll unpacks its (empty) per-axis slices, and fails so
        raise ValueError("not enough values to unpack (expected 2, got 0)")
    total = [0] * a.ndim
    for s, ax in pairs:  # as NumPy: the shifts of a repeated axis add up
        total[ax] += int(s)
    out = a
    for ax, s in enumerate(total):
        n = out.shape[ax]
        if n == 0 or s % n == 0:
            continue
        s %= n
        head, tail = split(out, [n - s], axis=ax)
        out = _prims.concatenate([tail, head], ax)
    return out


@_implements(_np.tile)
def tile(A, reps):
    if not _traced(A):
        return _np.tile(A, reps)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    ndim = _builtins.max(A.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    a = _prims.reshape(A, (1,) * (ndim - A.ndim) + A.shape)
    # Interleave a unit axis before every axis, broadcast it to the repeat count, then merge.
    expanded = _prims.reshape(a, tuple(x for d in a.shape for x in (1, d)))
    target = tuple(x for r, d in zip(reps, a.shape) for x in (r, d))
    return _prims.reshape(_prims.broadcast_to(expanded, target), tuple(r * d for r, d in zip(reps, a.shape)))


@_implements(_np.repeat)
def repeat(a, repeats, axis=None):
    if not _traced(a):
        return _np.repeat(a, repeats, axis)
    if not isinstance(repeats, int):
        raise _UnsupportedError("numpy.repeat with per-element repeat counts is not supported under jit yet")
    axis = _prims.zero_d_axis(a, _index_or_none(axis))
    if axis is None:
        a, axis = _prims.reshape(a, (-1,)), 0
    (axis,) = _prims.normalize_axes(axis, a.ndim, "repeat")
    expanded = _prims.reshape(a, a.shape[: axis + 1] + (1,) + a.shape[axis + 1:])
    target = a.shape[: axis + 1] + (repeats,) + a.shape[axis + 1:]
    shape = a.shape[:axis] + (a.shape[axis] * repeats,) + a.shape[axis + 1:]
    return _prims.reshape(_prims.broadcast_to(expanded, target), shape)


@_implements(_np.pad)
def pad(array, pad_width, mode="constant", **kwargs):
    if not _traced(array):
        return _np.pad(array, pad_width, mode=mode, **kwargs)
    if mode != "constant":
        raise _UnsupportedError(f"numpy.pad with mode={mode!r} is not supported under jit (only 'constant')")
    pad_width = _np.asarray(pad_width)
    if pad_width.dtype.kind != "i":
        raise _JitTypeError("`pad_width` must be of integral type (NumPy raises the same TypeError)")
    widths = _pad_pairs(pad_width, array.ndim, as_index=True)
    values = _np.ravel(_pad_pairs(kwargs.get("constant_values", 0), array.ndim))
    values = values[_np.ravel(widths) > 0] if values.size else values  # the ones used
    if _builtins.any(v != values[0] for v in values):
        raise _UnsupportedError("numpy.pad with several constant_values is not supported under jit yet")
    out = _prims.pad(array, widths, values[0].item() if values.size else 0)
    return out.copy() if out is array else out  # a new array, as NumPy's


def _pad_pairs(x, ndim: int, as_index: bool = False):
    """NumPy's reading of pad_width and constant_values: one (before, after) pair per dim."""
    x = _np.array(x)
    if as_index:
        x = _np.round(x).astype(_np.intp, copy=False)
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    if x.ndim < 3 and x.size == 1:
        return [[x.flat[0]] * 2] * ndim
    if x.ndim < 3 and x.size == 2 and x.shape != (2, 1):
        return [list(x.flat)] * ndim
    return _np.broadcast_to(x, (ndim, 2)).tolist()


def apply_ufunc(ufunc, method: str, inputs, kwargs):
    """``Tracer.__array_ufunc__``: a NumPy ufunc applied to traced values."""
    out = kwargs.pop("out", None)
    structural = ("axis", "keepdims", "dtype") if method in ("reduce", "accumulate") else ()
    if _builtins.any(k not in structural and not _is_default_ufunc_kwarg(k, v) for k, v in kwargs.items()):
        raise _UnsupportedError(
            f"numpy.{ufunc.__name__} with {', '.join(sorted(kwargs))} is not supported under jit "
            f"yet (at {_user_location()})"
        )
    if method == "__call__" and ufunc in UFUNCS and out is not None and len(out) > 1:
        return tuple(_assign_out(ufunc, target, r) for target, r in zip(out, UFUNCS[ufunc](*inputs)))
    if method == "__call__" and ufunc in UFUNCS and out is not None:
        (target,) = out
        if not isinstance(target, _Tracer):
            raise _UnsupportedError(
                f"numpy.{ufunc.__name__}(..., out=) into an array that is not an argument of the "
                f"jitted function (at {_user_location()}): pass that array in as an argument"
            )
        target.assign(UFUNCS[ufunc](*inputs), "same_kind", f"ufunc '{ufunc.__name__}'")
        return target
    if method == "__call__" and ufunc in UFUNCS:
        return UFUNCS[ufunc](*inputs)
    if method == "reduce" and ufunc in _UFUNC_REDUCTIONS:
        (a,) = inputs
        return HANDLED_FUNCTIONS[_UFUNC_REDUCTIONS[ufunc]](a, axis=kwargs.get("axis", 0),
                                                         keepdims=kwargs.get("keepdims", False))
    if method == "reduce" and ufunc in _prims.BITWISE_REDUCTIONS:
        (a,) = inputs
        return _prims.bitwise_reduction(ufunc, a, kwargs.get("axis", 0), kwargs.get("keepdims", False),
                                        kwargs.get("dtype"))
    if method == "accumulate" and ufunc in _UFUNC_ACCUMULATIONS:
        (a,) = inputs
        if a.ndim == 0:
            raise _JitTypeError(f"cannot accumulate on a scalar (NumPy raises the same TypeError), "
                                f"at {_user_location()}")
        dtype = kwargs.get("dtype")
        return HANDLED_FUNCTIONS[_UFUNC_ACCUMULATIONS[ufunc]](a, axis=kwargs.get("axis", 0), dtype=dtype)
    if method == "outer" and ufunc in UFUNCS and ufunc.nin == 2 and ufunc.signature is None:
        return _ufunc_outer(ufunc, *inputs)
    if method == "at" and ufunc in UFUNCS and ufunc.signature is None:
        return _ufunc_at(ufunc, *inputs)
    spelled = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    raise _UnsupportedError(f"{spelled} has no jitcore lowering yet (called at {_user_location()})")


def _ufunc_outer(ufunc, a, b):
    """``ufunc.outer(a, b)``: ``ufunc(a[..., None, ...], b)``, one new dim per dim of ``b``.
    NumPy turns both operands into arrays first, so Python scalars are not weak here."""
    a, b = (x if isinstance(x, _Tracer) else _np.asarray(x) for x in (a, b))
    a = _prims.reshape(a, a.shape + (1,) * b.ndim) if isinstance(a, _Tracer) else a.reshape(
        a.shape + (1,) * b.ndim)
    return UFUNCS[ufunc](a, b)


_AT_MODES = {_np.add: "add", _np.subtract: "sub", _np.multiply: "mul", _np.maximum: "max",
             _np.minimum: "min", _np.bitwise_and: "and", _np.bitwise_or: "or", _np.bitwise_xor: "xor"}


def _ufunc_at(ufunc, x, indices, b=None):
    """``ufunc.at(x, indices, b)``: ``x`` updated in place, every occurrence of a repeated index
    applied in turn; each step computes in NumPy's loop dtype and casts back to ``x.dtype``.

    A key without integer arrays, or with constant indices that never repeat, is
    ``x[key] = ufunc(x[key], b)``. Otherwise the ufuncs of ``_AT_MODES`` become one
    ``array.scatter_nd``, which combines in ``x.dtype``: exact when that is the loop dtype,
    for wrapping integer arithmetic, and for a constant ``b`` exact in ``x.dtype`` (then one
    rounding of a wider loop dtype gives the same result)."""
    if not isinstance(x, _Tracer):
        raise _UnsupportedError(
            f"numpy.{ufunc.__name__}.at into an array that is not an argument of the jitted "
            f"function (at {_user_location()}): pass that array in as an argument")
    if (b is None) != (ufunc.nin == 1):
        raise ValueError("second operand needed for ufunc" if b is None else
                        "second operand provided when ufunc is unary")
    v = None if b is None else b if isinstance(b, _Tracer) else _np.asarray(b)
    dtypes = (x.dtype,) if v is None else (x.dtype, v.dtype)
    ct = ufunc.resolve_dtypes(dtypes + (None,) * ufunc.nout)[ufunc.nin]
    from jitcore import indexing

    keys = indices if isinstance(indices, tuple) else (indices,)
    advanced = _builtins.any(indexing.is_array_index(k) for k in keys)
    constant = not _builtins.any(isinstance(k, _Tracer) for k in keys)
    if constant and advanced:
        probe = _np.zeros(x.shape, _np.int32)  # counts of each element (trace time only)
        _np.add.at(probe, indices, 1)  # NumPy's IndexError for a bad key
        repeats = bool((probe > 1).any())
    else:
        repeats = advanced
    target = indexing._Plan(x, indices).final if advanced else _prims.getitem(x, indices).shape
    if v is not None:
        try:
            ok = _np.broadcast_shapes(v.shape, target) == tuple(target)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError("array is not broadcastable to correct shape")
    mode = _AT_MODES.get(ufunc)
    scatter = advanced and mode is not None and _at_exact_in(x.dtype, ct, mode, v)
    if not scatter and not repeats:  # each element at most once: x[key] = ufunc(x[key], b)
        part = _prims.convert(_prims.getitem(x, indices), ct)
        args = (part,) if v is None else (part, _prims.as_tracer(x.trace, v, ct))
        x.assign(_prims.update(x, indices, _prims.convert(UFUNCS[ufunc](*args), x.dtype)))
        return None
    if not scatter:
        why = (f"numpy.{ufunc.__name__}.at" if mode is None else
               f"numpy.{ufunc.__name__}.at of {v.dtype} values into a {x.dtype} array (NumPy "
               f"computes each step in {ct} and casts it back)")
        raise _UnsupportedError(
            f"{why} with traced or repeated indices is not supported under jit yet (at "
            f"{_user_location()}); np.add/subtract/multiply/maximum/minimum/bitwise_*.at are")
    x.assign(indexing.update(x, indices, v, mode, dtype=x.dtype))
    return None


def _at_exact_in(dtype, ct, mode: str, v) -> bool:
    """Whether combining in ``dtype`` gives NumPy's steps in loop dtype ``ct``, each cast back."""
    if ct == dtype:
        return True
    if dtype.kind in "iu" and ct.kind in "iu" and mode in ("add", "sub", "mul", "and", "or", "xor"):
        return True  # wrapping arithmetic: casting back after each step or at the end agree
    exact_x = dtype.kind == ct.kind or (dtype.kind in "biu" and ct.kind in "iu")
    if isinstance(v, _Tracer) or not exact_x or (dtype.kind == "c" and mode == "mul"):
        return False
    with _np.errstate(all="ignore"):
        exact_v = _np.array_equal(v.astype(dtype).astype(ct), v.astype(ct), equal_nan=True)
    return exact_v and (mode in ("max", "min") or dtype.kind in "bfc")


def _assign_out(ufunc, target, result):
    """One result of a ufunc with several (divmod) into its ``out=`` array, if one is given."""
    if target is None:
        return result
    if not isinstance(target, _Tracer):
        raise _UnsupportedError(
            f"numpy.{ufunc.__name__}(..., out=) into an array that is not an argument of the "
            f"jitted function (at {_user_location()}): pass that array in as an argument"
        )
    target.assign(result, "same_kind", f"ufunc '{ufunc.__name__}'")
    return target


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "subok": True}


def _is_default_ufunc_kwarg(key: str, value) -> bool:
    if isinstance(value, (_Tracer, _np.ndarray)):
        return False
    return value is None or (key in _UFUNC_DEFAULTS and value == _UFUNC_DEFAULTS[key])


_UFUNC_ACCUMULATIONS = {_np.add: _np.cumsum, _np.multiply: _np.cumprod}
_UFUNC_REDUCTIONS = {_np.add: _np.sum, _np.multiply: _np.prod, _np.maximum: _np.max,
                     _np.minimum: _np.min, _np.logical_and: _np.all, _np.logical_or: _np.any}


def apply_function(func, args, kwargs):
    """``Tracer.__array_function__``: a NumPy function called with traced values."""
    impl = HANDLED_FUNCTIONS.get(func)
    if impl is None:
        raise _UnsupportedError(
            f"{func.__module__}.{func.__name__} has no jitcore lowering yet (called at {_user_location()}); "
            "compute it outside the jitted function, or express it with supported operations"
        )
    return impl(*args, **kwargs)


from jitcore import linalg as _linalg  # noqa: E402, F401  (registers matmul, dot, ...)
from jitcore import reductions as _reductions  # noqa: E402, F401  (registers argmax, cumsum, ...)
