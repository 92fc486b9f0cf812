"""Abstract values: ``Tracer`` stands for an array whose shape and dtype are known while tracing
but whose data is not. Every operation on it records an ``array`` op in the function being
traced. Using it where Python needs data (``if``, ``bool()``, ``np.asarray``) raises an error
that names the function, the arguments the value depends on, and the user's line.

NumPy's in-place semantics are kept: ``x[1:-1] = v``, ``x += y`` and ``out=`` rebind the
tracer ``x`` to a functionally updated value, and a tracer made by indexing, reshaping or
transposing is a *view* of its base: a write to it updates the base (through ``backward``), and
reading it after the base changed re-derives it (through ``forward``). Writes that reach an
argument are returned from the compiled function and copied into the caller's array.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import traceback

import numpy as np

from jitcore.dtypes import np_dtype
from jitcore.errors import ConcretizationError, JitTypeError, TracerConversionError, UnsupportedError
from jitcore.ir.builder import Builder
from jitcore.ir.core import Value
from jitcore.ir.errors import JitcoreError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))
_ROOT = os.path.dirname(_PACKAGE_DIR)
# Frames in these directories are jitcore's or NumPy's; every other frame is the user's.
_LIBRARY_DIRS = tuple(os.path.join(d, "") for d in (
    _PACKAGE_DIR, _NUMPY_DIR, *(os.path.join(_ROOT, p) for p in ("ir", "passes", "codegen"))))


class Trace:
    """The function being traced: where new ops go, and what its arguments are called."""

    __slots__ = ("builder", "function_name", "constants")

    def __init__(self, builder: Builder, function_name: str):
        self.builder = builder
        self.function_name = function_name
        self.constants: dict[int, tuple[object, Tracer]] = {}  # id(array) -> (array, tracer)


class Tracer:
    """A traced array: an SSA value plus the names of the arguments it depends on."""

    __slots__ = ("_value", "trace", "sources", "weak", "scalar", "view", "index", "version", "_seen")
    __array_priority__ = 1000
    __hash__ = None  # like ndarray: == is elementwise, so tracers are not hashable

    def __init__(self, value: Value, trace: Trace, sources: frozenset = frozenset(), weak=False):
        self._value = value
        self.trace = trace
        self.sources = sources
        self.weak = weak  # a Python scalar argument: promotes like one (NEP 50)
        self.scalar = False  # a NumPy scalar (np.float64), not a 0-d array: see as_scalar
        self.view = None  # (base, forward, backward) when this tracer is a view of base
        self.index = None  # the key, for a view made by indexing
        self.version = 0  # writes so far (counted on the root of a view chain)
        self._seen = 0  # the root's version when a view's value was last derived

    @property
    def value(self) -> Value:
        if self.view is not None:
            root = self.root()
            if self._seen != root.version:
                base, forward, _ = self.view
                self._value = forward(base)._value
                self._seen = root.version
        return self._value

    def root(self) -> Tracer:
        t = self
        while t.view is not None:
            t = t.view[0]
        return t

    def assign(self, new, casting: str = "unsafe", what: str = "assignment") -> None:
        """Write ``new`` (broadcast and cast to this array's dtype) into this array, as NumPy's
        in-place operations do; a view passes the write on to its base."""
        if isinstance(new, Tracer) and not np.can_cast(new.dtype, self.dtype, casting):
            raise JitTypeError(
                f"Cannot cast {what} output from {new.dtype} to {self.dtype} with casting rule "
                f"{casting!r} (NumPy raises the same), at {user_location()}"
            )
        if self.scalar:
            raise JitTypeError(
                f"'numpy.{self.dtype.name}' object does not support item assignment: a NumPy scalar "
                f"(a full reduction, x[i]) is immutable (NumPy raises the same TypeError), at "
                f"{user_location()}"
            )
        new = prims.broadcast_to(prims.as_tracer(self.trace, new, self.dtype), self.shape)
        if self.view is not None:
            base, _, backward = self.view
            base.assign(backward(base, new))
            return
        self._value = new._value
        self.sources = self.sources | new.sources
        self.version += 1

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
    def __divmod__(self, o): return prims.ufunc(np.floor_divide, self, o), prims.ufunc(np.remainder, self, o)
    def __rdivmod__(self, o): return prims.ufunc(np.floor_divide, o, self), prims.ufunc(np.remainder, o, self)
    def __pow__(self, o): return prims.power_operator(self, o)
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

    def __getitem__(self, key):
        if _scalar_bool(key):
            from jitcore import indexing

            return indexing.getitem_scalar_bool(self, key)  # a copy in NumPy, not a view
        if _advanced(key):
            return prims.getitem(self, key)  # a copy in NumPy, not a view
        view = self._view(key)
        if view.ndim == 0 and not any(k is Ellipsis for k in (key if isinstance(key, tuple) else (key,))):
            return as_scalar(view)  # NumPy: x[i, j] and x[()] are scalars (copies), x[...] a view
        return view

    def _view(self, key) -> Tracer:
        view = make_view(self, lambda b: prims.getitem(b, key), lambda b, v: prims.update(b, key, v))
        view.index = key
        return view

    def __setitem__(self, key, value):
        if _scalar_bool(key):
            from jitcore import indexing

            basic, _, position, size = indexing.scalar_bool_key(self, key)
            target = indexing.getitem_scalar_bool(self, key).shape
            shape = value.shape if isinstance(value, Tracer) else np.shape(value)
            try:
                np.broadcast_to(np.empty(shape, np.int8), target)
            except ValueError:
                raise ValueError(f"could not broadcast input array from shape {shape} into "
                                 f"shape {target}") from None
            if size:  # x[True] = v writes x[...] (less the new dim of size 1); x[False] nothing
                v = value if isinstance(value, Tracer) else prims.as_tracer(self.trace, value, self.dtype)
                v = prims.broadcast_to(v, target)
                v = prims.reshape(v, target[:position] + target[position + 1:])
                self[tuple(k for k in basic if k is not None) or Ellipsis] = v
            return
        if _advanced(key):
            self.assign(prims.update(self, key, value))
            return
        if isinstance(value, Tracer) and value.view is not None and value.view[0] is self:
            if value.index is not None and value.index == key:
                return  # x[k] += 1 ends with x[k] = (the view x[k]): already written
        self._view(key).assign(value)

    @property
    def at(self) -> _IndexUpdates:
        """JAX's functional updates: ``x.at[idx].set(v)`` returns a new array."""
        return _IndexUpdates(self)

    # -- in-place arithmetic: NumPy's semantics (same_kind casting) ------------------------
    def _inplace(self, ufunc, other):
        new = prims.power_operator(self, other) if ufunc is np.power else prims.ufunc(ufunc, self, other)
        if self.scalar:  # a NumPy scalar is immutable: s += y rebinds s to s + y
            return new
        self.assign(new, "same_kind", f"ufunc '{ufunc.__name__}'")
        return self

    def __iadd__(self, o): return self._inplace(np.add, o)
    def __isub__(self, o): return self._inplace(np.subtract, o)
    def __imul__(self, o): return self._inplace(np.multiply, o)
    def __itruediv__(self, o): return self._inplace(np.true_divide, o)
    def __ifloordiv__(self, o): return self._inplace(np.floor_divide, o)
    def __imod__(self, o): return self._inplace(np.remainder, o)
    def __ipow__(self, o): return self._inplace(np.power, o)
    def __iand__(self, o): return self._inplace(np.bitwise_and, o)
    def __ior__(self, o): return self._inplace(np.bitwise_or, o)
    def __ixor__(self, o): return self._inplace(np.bitwise_xor, o)
    def __ilshift__(self, o): return self._inplace(np.left_shift, o)
    def __irshift__(self, o): return self._inplace(np.right_shift, o)

    # -- array methods ----------------------------------------------------------------------
    def astype(self, dtype): return fresh(prims.convert(self, np.dtype(dtype)), self.scalar)
    def reshape(self, *shape): return reshape_view(self, shape[0] if len(shape) == 1 else shape)
    def transpose(self, *axes): return transpose_view(self, axes[0] if len(axes) == 1 else axes or None)
    def ravel(self): return reshape_view(self, (-1,))
    def flatten(self): return fresh(prims.reshape(self, (-1,)))  # a copy in NumPy, not a view
    def copy(self): return fresh(self, self.scalar, self.weak)

    @property
    def T(self): return transpose_view(self, None)

    @property
    def real(self): return prims.part("real", self)

    @property
    def imag(self): return prims.part("imag", self)

    def conj(self): return prims.ufunc(np.conjugate, self)
    conjugate = conj

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
    def diagonal(self, offset=0, axis1=0, axis2=1): return _jnp().diagonal(self, offset, axis1, axis2)




def _scalar_bool(key) -> bool:
    """Does ``key`` hold a scalar boolean (``x[True]``: a 0-d mask)?"""
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (bool, np.bool_)) or (isinstance(k, np.ndarray) and k.ndim == 0
                                                   and k.dtype == np.bool_) for k in keys)


def _advanced(key) -> bool:
    """Does ``key`` hold an integer array or boolean mask (NumPy's advanced indexing)?"""
    keys = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, (Tracer, np.ndarray, list)) for k in keys)


def fresh(x: Tracer, scalar: bool = False, weak: bool = False) -> Tracer:
    """A new tracer of ``x``'s value, not a view: a copy, as NumPy's astype and copy make."""
    out = Tracer(x.value, x.trace, x.sources, weak)
    out.scalar = scalar and x.ndim == 0
    return out


def as_scalar(x: Tracer) -> Tracer:
    """``x`` as NumPy holds the 0-d results of ufuncs, reductions and integer indexing: a NumPy
    scalar, which a jitted function returns as ``np.float64`` (say) rather than a 0-d array.
    Other 0-d results (astype, copy, reshape, *_like, where, ...) stay 0-d arrays, as in NumPy."""
    if not isinstance(x, Tracer) or x.scalar or x.ndim:
        return x
    return fresh(x, True, x.weak)


def make_view(base: Tracer, forward, backward) -> Tracer:
    """``forward(base)`` as a view: writes to it go to ``base`` through ``backward(base, v)``."""
    out = forward(base)
    if out is base:
        out = Tracer(base.value, base.trace, base.sources, base.weak)
    out.view = (base, forward, backward)
    out._seen = base.root().version
    return out


def reshape_view(x: Tracer, shape) -> Tracer:
    return make_view(x, lambda b: prims.reshape(b, shape), lambda b, v: prims.reshape(v, b.shape))


def transpose_view(x: Tracer, axes) -> Tracer:
    def backward(b, v):
        if axes is None:
            return prims.transpose(v, None)
        perm = prims.normalize_axes(axes, b.ndim, "transpose")
        return prims.transpose(v, tuple(int(p) for p in np.argsort(perm)))

    return make_view(x, lambda b: prims.transpose(b, axes), backward)


class _IndexUpdates:
    __slots__ = ("x",)

    def __init__(self, x: Tracer):
        self.x = x

    def __getitem__(self, key) -> _IndexUpdate:
        return _IndexUpdate(self.x, key)


class _IndexUpdate:
    """``x.at[key]``: new arrays with the indexed part replaced or combined, as in JAX."""

    __slots__ = ("x", "key")

    def __init__(self, x: Tracer, key):
        self.x, self.key = x, key

    def get(self) -> Tracer:
        return prims.getitem(self.x, self.key)

    def set(self, v) -> Tracer:
        return prims.update(self.x, self.key, v)

    _MODES = {np.add: "add", np.multiply: "mul", np.minimum: "min", np.maximum: "max"}

    def _combine(self, ufunc, v) -> Tracer:
        if _advanced(self.key):
            if ufunc in self._MODES:  # repeated indices combine, one after the other
                from jitcore import indexing

                return indexing.update(self.x, self.key, v, self._MODES[ufunc])
            raise UnsupportedError(
                f"x.at[index].{ufunc.__name__}(v) with an integer-array or mask index is not "
                "supported under jit (repeated indices would have to combine); .set, .add, "
                ".multiply, .min and .max are"
            )
        return prims.update(self.x, self.key, prims.ufunc(ufunc, self.get(), v))

    def add(self, v): return self._combine(np.add, v)
    def multiply(self, v): return self._combine(np.multiply, v)
    def divide(self, v): return self._combine(np.true_divide, v)
    def power(self, v): return self._combine(np.power, v)
    def min(self, v): return self._combine(np.minimum, v)
    def max(self, v): return self._combine(np.maximum, v)


def _jnp():
    """jitcore.numpy, which imports this module: looked up when first needed."""
    import jitcore.numpy

    return jitcore.numpy


def is_user_file(filename: str) -> bool:
    """Whether code in ``filename`` is the user's: outside jitcore's packages and NumPy."""
    path = os.path.abspath(filename)
    return not path.startswith(_LIBRARY_DIRS)


def user_frame():
    """The innermost frame of the user's code (outside jitcore and NumPy), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def user_location() -> str:
    frame = user_frame()
    if frame is None:
        return "an unknown line"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def add_user_line(error: BaseException, fun) -> None:
    """Name the user's line in ``error``, raised while tracing ``fun``.

    The line is the innermost frame of the user's code in the traceback; when there is none
    (an error in what ``fun`` returned), it is the line defining ``fun``. A jitcore error gets
    it in its message, unless the message names it already. Other errors (NumPy's classes:
    IndexError, ValueError, ...) keep NumPy's message and get it as a note (PEP 678, shown
    under the message in tracebacks from Python 3.11). Errors raised by the user's own code
    are left alone: Python's traceback points at them.
    """
    frames = [(f.f_code.co_filename, line) for f, line in traceback.walk_tb(error.__traceback__)]
    if frames and is_user_file(frames[-1][0]):
        return
    user = [fl for fl in frames if is_user_file(fl[0])]
    code = getattr(fun, "__code__", None)
    if not user and code is not None and is_user_file(code.co_filename):
        user = [(code.co_filename, code.co_firstlineno)]
    if not user:
        return
    filename, line = user[-1]
    where = f"{filename}:{line}"
    text = linecache.getline(filename, line).strip()
    shown = f"\n    {text}" if text else ""
    args = error.args
    if isinstance(error, JitcoreError) and len(args) == 1 and str(error) == args[0]:
        if not re.search(re.escape(where) + r"(?!\d)", args[0]):  # not already named
            error.args = (f"{args[0]}\n  at {where}{shown}",)
        elif text not in args[0]:
            error.args = (args[0] + shown,)
        return
    notes = getattr(error, "__notes__", [])
    if f"  at {where}{shown}" not in notes:  # an error crossing two traces is noted once
        error.__notes__ = [*notes, f"  at {where}{shown}"]


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
