"""New arrays from traced ones under ``jit``: ``zeros_like``, ``ones_like``, ``empty_like``,
``full_like`` (constants of the operand's shape) and ``astype`` (a converted copy).
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.numpy.registry import HANDLED_FUNCTIONS, implements, traced
from jitcore.tracer import fresh

__all__ = ["astype", "empty_like", "full_like", "ones_like", "zeros_like"]


def _like(np_fn, fill):
    def fn(a, dtype=None, order="K", subok=True, shape=None, **kwargs):
        if not traced(a):
            return np_fn(a, dtype=dtype, shape=shape)
        dtype = np.dtype(dtype or a.dtype)
        value = np.full(a.shape if shape is None else shape, fill(dtype), dtype=dtype)
        return prims.constant(a.trace, value)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    HANDLED_FUNCTIONS[np_fn] = fn
    return fn


zeros_like = _like(np.zeros_like, lambda dt: 0)
ones_like = _like(np.ones_like, lambda dt: 1)
empty_like = _like(np.empty_like, lambda dt: 0)


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    if not traced(a, fill_value):
        return np.full_like(a, fill_value, dtype=dtype, shape=shape)
    dtype = np.dtype(dtype or a.dtype)
    zero = prims.constant(a.trace, np.zeros(a.shape if shape is None else shape, dtype))
    return fresh(prims.convert(prims.ufunc(np.add, zero, fill_value), dtype))  # an array


@implements(np.astype)
def astype(a, dtype, copy=True):
    return fresh(prims.convert(a, np.dtype(dtype))) if traced(a) else np.asarray(a).astype(dtype)
