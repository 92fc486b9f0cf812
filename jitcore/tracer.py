"""Abstract values: ``Tracer`` stands for an array whose shape and dtype are known while tracing
but whose data is not. Every operation on it records an ``array`` op in the function being
traced. Using it where Python needs data (``if``, ``bool()``, ``np.asarray``) raises an error
that names the function, the arguments the value depends on, and the user's line.
"""

from __future__ import annotations

import linecache
import os
import sys

import numpy as np

from ir.builder import Builder
from ir.core import Value
from jitcore.dtypes import np_dtype
from jitcore.errors import ConcretizationError, TracerConversionError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


class Trace:
    """The function being traced: where new ops go, and what its arguments are called."""

    __slots__ = ("builder", "function_name", "constants")

    def __init__(self, builder: Builder, function_name: str):
        self.builder = builder
        self.function_name = function_name
        self.constants: dict[int, tuple[object, Tracer]] = {}  # id(array) -> (array, tracer)


class Tracer:
    """A traced array: an SSA value plus the names of the arguments it depends on."""

    __slots__ = ("value", "trace", "sources", "weak")
    __array_priority__ = 1000
    __hash__ = None  # like ndarray: == is elementwise, so tracers are not hashable

    def __init__(self, value: Value, trace: Trace, sources: frozenset = frozenset(), weak=False):
        self.value = value
        self.trace = trace
        self.sources = sources
        self.weak = weak  # a Python scalar argument: promotes like one (NEP 50)

    # -- static properties ----------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.value.type.shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return self.value.type.size

    @property
    def dtype(self) -> np.dtype:
        return np_dtype(self.value.type.element)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        dims = ",".join(map(str, self.shape))
        return f"Traced<{self.value.type.element}[{dims}]>"

    __str__ = __repr__

    # -- where Python needs data ----------------------------------------------------------
    def _concretize(self, what: str):
        raise ConcretizationError(concretization_message(self, what))

    def __bool__(self):
        self._concretize("bool()")

    def __int__(self):
        self._concretize("int()")

    def __float__(self):
        self._concretize("float()")

    def __complex__(self):
        self._concretize("complex()")

    def __index__(self):
        self._concretize("an index (__index__)")

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))  # static length: unrolled while tracing

    def __array__(self, dtype=None, copy=None):
        raise TracerConversionError(
            f"np.asarray() of {self!r} while tracing {self.trace.function_name}() at "
            f"{user_location()}: a traced value has a shape and dtype but no data yet, so it "
            "cannot become a NumPy array. Use jitcore.numpy (or NumPy functions jitcore "
            "supports) on it, or compute the array outside the jitted function."
        )

    # -- arithmetic (NumPy's ufuncs decide every result type) -------------------------------
    def __add__(self, o): return prims.ufunc(np.add, self, o)
    def __radd__(self, o): return prims.ufunc(np.add, o, self)
    def __sub__(self, o): return prims.ufunc(np.subtract, self, o)
    def __rsub__(self, o): return prims.ufunc(np.subtract, o, self)
    def __mul__(self, o): return prims.ufunc(np.multiply, self, o)
    def __rmul__(self, o): return prims.ufunc(np.multiply, o, self)
    def __truediv__(self, o): return prims.ufunc(np.true_divide, self, o)
    def __rtruediv__(self, o): return prims.ufunc(np.true_divide, o, self)
    def __floordiv__(self, o): return prims.ufunc(np.floor_divide, self, o)
    def __rfloordiv__(self, o): return prims.ufunc(np.floor_divide, o, self)
    def __mod__(self, o): return prims.ufunc(np.remainder, self, o)
    def __rmod__(self, o): return prims.ufunc(np.remainder, o, self)
    def __pow__(self, o): return prims.ufunc(np.power, self, o)
    def __rpow__(self, o): return prims.ufunc(np.power, o, self)
    def __and__(self, o): return prims.ufunc(np.bitwise_and, self, o)
    def __rand__(self, o): return prims.ufunc(np.bitwise_and, o, self)
    def __or__(self, o): return prims.ufunc(np.bitwise_or, self, o)
    def __ror__(self, o): return prims.ufunc(np.bitwise_or, o, self)
    def __xor__(self, o): return prims.ufunc(np.bitwise_xor, self, o)
    def __rxor__(self, o): return prims.ufunc(np.bitwise_xor, o, self)
    def __eq__(self, o): return prims.ufunc(np.equal, self, o)
    def __ne__(self, o): return prims.ufunc(np.not_equal, self, o)
    def __lt__(self, o): return prims.ufunc(np.less, self, o)
    def __le__(self, o): return prims.ufunc(np.less_equal, self, o)
    def __gt__(self, o): return prims.ufunc(np.greater, self, o)
    def __ge__(self, o): return prims.ufunc(np.greater_equal, self, o)
    def __neg__(self): return prims.ufunc(np.negative, self)
    def __pos__(self): return prims.ufunc(np.positive, self)
    def __abs__(self): return prims.ufunc(np.absolute, self)
    def __invert__(self): return prims.ufunc(np.invert, self)
    def __lshift__(self, o): return prims.ufunc(np.left_shift, self, o)
    def __rlshift__(self, o): return prims.ufunc(np.left_shift, o, self)
    def __rshift__(self, o): return prims.ufunc(np.right_shift, self, o)
    def __rrshift__(self, o): return prims.ufunc(np.right_shift, o, self)
    def __matmul__(self, o): return _jnp().matmul(self, o)
    def __rmatmul__(self, o): return _jnp().matmul(o, self)

    # -- NumPy's protocols: np.sin(tracer), np.sum(tracer), ndarray + tracer ---------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _jnp().apply_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _jnp().apply_function(func, args, kwargs)

    def __getitem__(self, key): return prims.getitem(self, key)

    # -- array methods ----------------------------------------------------------------------
    def astype(self, dtype): return prims.convert(self, np.dtype(dtype))
    def reshape(self, *shape): return prims.reshape(self, shape[0] if len(shape) == 1 else shape)
    def transpose(self, *axes): return prims.transpose(self, axes[0] if len(axes) == 1 else axes or None)
    def ravel(self): return prims.reshape(self, (-1,))
    def flatten(self): return prims.reshape(self, (-1,))

    @property
    def T(self): return prims.transpose(self, None)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return prims.reduction("sum", self, axis, keepdims, dtype)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return prims.reduction("prod", self, axis, keepdims, dtype)

    def max(self, axis=None, keepdims=False): return prims.reduction("max", self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return prims.reduction("min", self, axis, keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return prims.mean(self, axis, keepdims, dtype)

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return prims.variance(self, axis, keepdims, dtype, ddof)

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        return prims.ufunc(np.sqrt, prims.variance(self, axis, keepdims, dtype, ddof))

    def any(self, axis=None, keepdims=False):
        return prims.reduction("or", prims.as_bool(self), axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return prims.reduction("and", prims.as_bool(self), axis, keepdims)

    def argmax(self, axis=None, keepdims=False): return _jnp().argmax(self, axis, keepdims=keepdims)
    def argmin(self, axis=None, keepdims=False): return _jnp().argmin(self, axis, keepdims=keepdims)
    def cumsum(self, axis=None, dtype=None): return _jnp().cumsum(self, axis, dtype)
    def cumprod(self, axis=None, dtype=None): return _jnp().cumprod(self, axis, dtype)
    def clip(self, min=None, max=None): return _jnp().clip(self, min, max)
    def squeeze(self, axis=None): return _jnp().squeeze(self, axis)
    def swapaxes(self, a, b): return _jnp().swapaxes(self, a, b)


def _jnp():
    """jitcore.numpy, which imports this module: looked up when first needed."""
    import jitcore.numpy

    return jitcore.numpy


def user_frame():
    """The innermost frame of the user's code (outside jitcore and NumPy), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith((_PACKAGE_DIR + os.sep, _NUMPY_DIR + os.sep)):
            return frame
        frame = frame.f_back
    return None


def user_location() -> str:
    frame = user_frame()
    if frame is None:
        return "an unknown line"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def concretization_message(tracer: Tracer, what: str) -> str:
    frame = user_frame()
    where, line = "an unknown line", ""
    if frame is not None:
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    sources = ", ".join(sorted(tracer.sources)) or "no argument (a value computed inside)"
    static = ", ".join(repr(s.split("[")[0]) for s in sorted(tracer.sources))
    return (
        f"{what} needs a concrete value, but {tracer!r} is traced.\n"
        f"  in {tracer.trace.function_name}(), at {where}\n"
        + (f"    {line}\n" if line else "")
        + f"The value depends on the argument(s) {sources}: while jitcore compiles "
        f"{tracer.trace.function_name}() it knows their shapes and dtypes, not their data, so "
        "Python control flow cannot depend on them.\n"
        "Instead: choose values element-wise with jitcore.numpy.where(cond, a, b), or, if the "
        "argument is a Python value that decides the control flow, mark it static: "
        f"jit(f, static_argnames=({static},)) — each new value then compiles once."
    )


import jitcore.primitives as prims  # noqa: E402  (primitives needs Tracer defined first)
