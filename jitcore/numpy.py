"""``jitcore.numpy``: NumPy's functions, recorded when given traced arrays.

On traced values each function records the same ops as the operator or method spelling; on
concrete NumPy arrays (outside ``jit``) it simply calls NumPy.
"""

from __future__ import annotations

import numpy as _np

from jitcore import primitives as _prims
from jitcore.tracer import Tracer as _Tracer


def _traced(*args) -> bool:
    return any(isinstance(a, _Tracer) for a in args)


def _ufunc(np_fn):
    def fn(*args):
        return _prims.ufunc(np_fn, *args) if _traced(*args) else np_fn(*args)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"numpy.{np_fn.__name__} on traced or concrete arrays."
    return fn


sin, cos, tan, tanh = (_ufunc(f) for f in (_np.sin, _np.cos, _np.tan, _np.tanh))
exp, log, sqrt = _ufunc(_np.exp), _ufunc(_np.log), _ufunc(_np.sqrt)
floor, ceil, sign = _ufunc(_np.floor), _ufunc(_np.ceil), _ufunc(_np.sign)
absolute = abs = _ufunc(_np.absolute)
negative, positive, invert = _ufunc(_np.negative), _ufunc(_np.positive), _ufunc(_np.invert)
add, subtract, multiply = _ufunc(_np.add), _ufunc(_np.subtract), _ufunc(_np.multiply)
divide = true_divide = _ufunc(_np.true_divide)
floor_divide, remainder, mod = _ufunc(_np.floor_divide), _ufunc(_np.remainder), _ufunc(_np.remainder)
power = _ufunc(_np.power)
maximum, minimum = _ufunc(_np.maximum), _ufunc(_np.minimum)
bitwise_and, bitwise_or = _ufunc(_np.bitwise_and), _ufunc(_np.bitwise_or)
bitwise_xor = _ufunc(_np.bitwise_xor)
equal, not_equal = _ufunc(_np.equal), _ufunc(_np.not_equal)
less, less_equal = _ufunc(_np.less), _ufunc(_np.less_equal)
greater, greater_equal = _ufunc(_np.greater), _ufunc(_np.greater_equal)

float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64, bool_ = _np.uint8, _np.uint16, _np.uint32, _np.uint64, _np.bool_


def where(condition, x, y):
    """``numpy.where(condition, x, y)``: x where condition holds, else y (broadcasting)."""
    if _traced(condition, x, y):
        return _prims.where(condition, x, y)
    return _np.where(condition, x, y)


def sum(a, axis=None, dtype=None, keepdims=False):
    if _traced(a):
        return _prims.reduction("sum", a, axis, keepdims, dtype)
    return _np.sum(a, axis=axis, dtype=dtype, keepdims=keepdims)


def prod(a, axis=None, dtype=None, keepdims=False):
    if _traced(a):
        return _prims.reduction("prod", a, axis, keepdims, dtype)
    return _np.prod(a, axis=axis, dtype=dtype, keepdims=keepdims)


def max(a, axis=None, keepdims=False):
    if _traced(a):
        return _prims.reduction("max", a, axis, keepdims)
    return _np.max(a, axis=axis, keepdims=keepdims)


def min(a, axis=None, keepdims=False):
    if _traced(a):
        return _prims.reduction("min", a, axis, keepdims)
    return _np.min(a, axis=axis, keepdims=keepdims)


amax, amin = max, min


def mean(a, axis=None, dtype=None, keepdims=False):
    if _traced(a):
        return _prims.mean(a, axis, keepdims, dtype)
    return _np.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)


def reshape(a, shape):
    return _prims.reshape(a, shape) if _traced(a) else _np.reshape(a, shape)


def transpose(a, axes=None):
    return _prims.transpose(a, axes) if _traced(a) else _np.transpose(a, axes)


def astype(a, dtype):
    return _prims.convert(a, _np.dtype(dtype)) if _traced(a) else _np.asarray(a).astype(dtype)
