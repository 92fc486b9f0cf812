"""New arrays under ``jit``: ``zeros_like``, ``ones_like``, ``empty_like``, ``full_like``
(constants of the operand's shape) and ``astype`` (a converted copy); and ``jitcore.numpy``'s
own ``zeros``, ``ones``, ``empty``, ``full``, ``arange``, ``linspace``, ``eye``, ``identity``,
``array`` and ``asarray``, which give NumPy arrays outside ``jit`` and traced ones inside.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import chosen_dtype, index_forms, masked, type_choice
from jitcore import primitives as prims
from jitcore.data_length import KeptList
from jitcore.errors import JitValueError, UnsupportedError
from jitcore.masked import MaskedSelection
from jitcore.numpy.manipulation import stack
from jitcore.numpy.registry import HANDLED_FUNCTIONS, implements, traced
from jitcore.tracer import Tracer, current_trace, fresh, refuse_traced, user_location

__all__ = ["arange", "array", "asarray", "astype", "empty", "empty_like", "eye", "full", "full_like",
           "geomspace", "identity", "linspace", "logspace", "ones", "ones_like", "vander", "zeros",
           "zeros_like"]


def _like(np_fn, fill):
    def fn(a, dtype=None, order="K", subok=True, shape=None, **kwargs):
        if not traced(a):
            return np_fn(a, dtype=dtype, shape=shape)
        dtype = np.dtype(dtype or a.dtype)
        return prims.constant(a.owner_trace, _one_value(a.shape if shape is None else shape,
                                                        fill(dtype), dtype))

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
    if isinstance(a, MaskedSelection) and shape is None:  # (a traced fill: dispatched here)
        return a._like(full_like(a.values, fill_value, dtype))
    dtype = np.dtype(dtype or (a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype))
    shape = np.shape(a) if shape is None else shape
    return _filled(prims.find_trace(a, fill_value), shape, fill_value, dtype)


def _filled(trace, shape, fill_value, dtype: np.dtype) -> Tracer:
    """A new array of ``shape`` holding ``fill_value`` (broadcast) cast to ``dtype``, as
    NumPy's ``copyto``: a fill of -0.0 stays -0.0 (``zeros + fill`` would make it 0.0)."""
    shape = tuple(map(operator.index, (shape,) if np.ndim(shape) == 0 else shape))
    return fresh(prims.broadcast_to(prims.as_tracer(trace, fill_value, dtype), shape))


@implements(np.astype)
def astype(a, dtype, copy=True):
    return fresh(prims.convert(a, np.dtype(dtype))) if traced(a) else np.asarray(a).astype(dtype)


# -- Creation from shapes and values: the names JAX users type first (``jnp.zeros``...). ----
# Outside ``jit`` each is NumPy's function. Inside, the result is a traced array (a constant of
# the trace running), so ``out = jnp.zeros(n); out[i] = v`` records a store into it.

def _traced(value: np.ndarray):
    """``value`` as a new, writable traced array of the running trace, or itself outside jit."""
    trace = current_trace()
    return value if trace is None else fresh(prims.constant(trace, value))


def _one_value(shape, value, dtype, order="C") -> np.ndarray:
    """An array of ``shape`` holding ``value``: under jit a broadcast view of the one value
    (the constant keeps it once, whatever the shape: ir.attributes.DenseAttr), else NumPy's."""
    if current_trace() is None or order not in ("C", "K", "A"):
        return np.full(shape, value, dtype, order)
    dims = (shape,) if np.ndim(shape) == 0 else shape
    return np.broadcast_to(np.asarray(value, dtype), tuple(map(operator.index, dims)))


def zeros(shape, dtype=float, order="C"):
    return _zeros(shape, dtype, order, "numpy.zeros")


def _zeros(shape, dtype, order, name: str):
    if masked.counted_selection(shape) is not None:
        return full(shape, 0, dtype)
    refuse_traced(shape, f"the shape of {name}")
    return _traced(_one_value(shape, 0, np.dtype(dtype), order))


def ones(shape, dtype=None, order="C"):
    if masked.counted_selection(shape) is not None:
        return full(shape, 1, float if dtype is None else dtype)
    refuse_traced(shape, "the shape of numpy.ones")
    return _traced(_one_value(shape, 1, np.dtype(float if dtype is None else dtype), order))


def empty(shape, dtype=float, order="C"):
    # Under jit an empty array is zeros: nothing reads it before it is written, so the constant
    # costs no work once folded; outside jit it is NumPy's uninitialised array.
    if current_trace() is None:
        return np.empty(shape, dtype, order)
    return _zeros(shape, dtype, order, "numpy.empty")


def full(shape, fill_value, dtype=None, order="C"):
    counted = masked.counted_selection(shape)
    if counted is not None:  # np.full(idx.size, t): as many as idx keeps, a selection by its mask
        return masked.filled_by_count(counted, full((), fill_value, dtype))
    refuse_traced(shape, "the shape of numpy.full")
    if not traced(fill_value):
        value = np.asarray(fill_value) if dtype is None else np.asarray(fill_value, dtype)
        return _traced(_one_value(shape, value, value.dtype, order) if value.ndim == 0
                       else np.full(shape, fill_value, dtype, order))
    dtype = np.dtype(fill_value.dtype if dtype is None else dtype)
    return _filled(fill_value.owner_trace, shape, fill_value, dtype)


def arange(start, stop=None, step=None, dtype=None):
    shifted = _shifted_arange(start, stop, step, dtype)
    if shifted is not None:
        return shifted
    refuse_traced([start, stop, step], "numpy.arange's length (set by its bounds)")
    return _traced(np.arange(start, stop, step, dtype=dtype))


def _shifted_arange(start, stop, step, dtype):
    """``np.arange(a, b)`` whose length ``b - a`` is static though ``a`` is traced (``a = d - w``,
    ``b = d + w + 1`` at a loop index ``d``; ``a = p``, ``b = p + 5``): ``a + step *
    np.arange(length)``, NumPy's values and dtype for int bounds and a static int step; None
    for any other call (a static one, or one whose length the data sets)."""
    if stop is None or not isinstance(start, Tracer) or not isinstance(stop, Tracer):
        return None
    step = 1 if step is None else step
    if isinstance(step, (bool, np.bool_)) or not isinstance(step, (int, np.integer)) or step == 0:
        return None
    span = index_forms.static_span(start, stop)
    if span is None or start.dtype.kind not in "iu" or stop.dtype.kind not in "iu":
        return None
    length = max(0, -(-span // int(step)))
    calc = np.result_type(np.arange(0), start.dtype if not start.weak else np.int64,
                          stop.dtype if not stop.weak else np.int64)
    steps = prims.constant(start.owner_trace, np.arange(length, dtype=calc) * calc.type(step))
    out = prims.ufunc(np.add, prims.convert(start, calc), steps)
    return fresh(out if dtype is None else prims.convert(out, np.dtype(dtype)))


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if traced(start, stop):
        return _traced_linspace(start, stop, num, endpoint, retstep, dtype, axis)
    out = np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    return (_traced(out[0]), out[1]) if retstep else _traced(out)


def _traced_linspace(start, stop, num, endpoint, retstep, dtype, axis):
    """NumPy's formula for traced (0-d) endpoints and a static count: ``start + i * step``
    with ``step = (stop - start) / div``, and the last point exactly ``stop``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if np.ndim(start) or np.ndim(stop) or axis not in (0, -1):
        raise UnsupportedError(f"numpy.linspace with traced array endpoints is not supported "
                               f"under jit yet (at {user_location()}); 0-d endpoints are")
    trace = prims.find_trace(start, stop)
    calc = np.result_type(*(a.dtype if isinstance(a, Tracer) else a for a in (start, stop)), 1.0)
    start, stop = (prims.as_tracer(trace, v, calc) for v in (start, stop))
    div = (num - 1) if endpoint else num
    delta = prims.ufunc(np.subtract, stop, start)
    i = prims.constant(trace, np.arange(num, dtype=calc))
    if div > 0:
        step = prims.ufunc(np.divide, delta, div)
        # NumPy: i * step, or (i / div) * delta where the step underflows to 0.
        tiny = prims.ufunc(np.multiply, prims.ufunc(np.divide, i, div), delta)
        y = prims.where(prims.ufunc(np.equal, step, 0), tiny, prims.ufunc(np.multiply, i, step))
    else:  # NumPy: a NaN step, y = i * delta
        y = prims.ufunc(np.multiply, i, delta)
        step = prims.ufunc(np.multiply, delta, np.nan)
    y = prims.ufunc(np.add, y, start)
    if endpoint and num > 1:
        last = prims.ufunc(np.equal, i, calc.type(num - 1))  # (i: no table when num is large)
        y = prims.where(last, prims.broadcast_to(stop, (num,)), y)
    dtype = np.dtype(dtype or calc)
    if dtype.kind in "iu":  # NumPy floors before casting to an integer dtype
        y = prims.ufunc(np.floor, y)
    y = fresh(prims.convert(y, dtype))
    return (y, step) if retstep else y


@implements(np.logspace)
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """NumPy's ``base ** linspace(start, stop, num)``, for traced 0-d endpoints or base."""
    if not traced(start, stop, base):
        return _traced(np.logspace(start, stop, num, endpoint, base, dtype, axis))
    if np.ndim(base):
        raise UnsupportedError(f"numpy.logspace with an array base is not supported under jit yet "
                               f"(at {user_location()})")
    y = linspace(start, stop, num, endpoint, axis=axis)
    y = prims.ufunc(np.power, base, y)
    return fresh(y if dtype is None else prims.convert(y, np.dtype(dtype)))


@implements(np.geomspace)
def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """NumPy's own ``geomspace`` of static endpoints, as a traced constant under jit."""
    if traced(start, stop):
        raise UnsupportedError(f"numpy.geomspace with traced endpoints is not supported under jit "
                               f"yet (at {user_location()}); static endpoints are, or use "
                               "numpy.logspace of the endpoints' logarithms")
    return _traced(np.geomspace(start, stop, num, endpoint, dtype, axis))


@implements(np.vander)
def vander(x, N=None, increasing=False):
    """Columns of powers of ``x`` for a static ``N``, each the previous times ``x`` in the
    result's dtype: NumPy's order of products (its ``multiply.accumulate``), so equal bits."""
    x = prims.array_operand(x)
    if not traced(x):
        return np.vander(x, N, increasing)
    refuse_traced(N, "the column count N of numpy.vander")
    if x.ndim != 1:
        raise JitValueError(f"numpy.vander at {user_location()}: x must be a one-dimensional "
                            "array or sequence.")
    N = x.shape[0] if N is None else operator.index(N)
    if N < 0:
        raise JitValueError(f"numpy.vander at {user_location()}: negative dimensions are not "
                            "allowed")
    dtype = np.promote_types(x.dtype, int)
    if N == 0:
        return prims.constant(x.owner_trace, np.empty((x.shape[0], 0), dtype))
    x = prims.convert(x, dtype)
    columns = [prims.constant(x.owner_trace, np.ones(x.shape, dtype))]
    for _ in range(1, N):
        columns.append(x if len(columns) == 1 else prims.ufunc(np.multiply, columns[-1], x))
    return stack(columns if increasing else columns[::-1], axis=1)


def eye(N, M=None, k=0, dtype=float, order="C"):
    return _traced(np.eye(N, M, k, dtype, order))


def identity(n, dtype=None):
    return _traced(np.identity(n, dtype))


def asarray(a, dtype=None, order=None, copy=None):
    if current_trace() is None:
        return np.asarray(a, dtype=dtype, order=order, copy=copy)
    return array(a, dtype, copy=bool(copy))


def array(object, dtype=None, *, copy=True, order="K", ndmin=0):
    """``numpy.array``; under jit a traced array, also of lists holding traced values."""
    trace = current_trace()
    if trace is None:
        return np.array(object, dtype, copy=copy, order=order, ndmin=ndmin)
    if isinstance(object, Tracer):
        if dtype is None and object.type_choice is not None:  # (its type chosen by the data)
            type_choice.check_one_dtype(object.type_choice[1], object.dtype, "np.array",
                                        user_location())
        out = object if dtype is None else prims.convert(object, np.dtype(dtype))
        # A copy when asked for; a NumPy scalar (x[0], x.sum()) becomes a 0-d array either way.
        out = fresh(out) if (copy or object.scalar) and out is object else out
    elif isinstance(object, KeptList) and not ndmin:  # a list the data filled
        return object.selection(dtype)
    elif isinstance(object, MaskedSelection) and ndmin <= object.ndim:
        # np.array(out[:k]): a selection still, of values of its own (compacted when returned)
        values = object.values if dtype is None else prims.convert(object.values, np.dtype(dtype))
        return object._like(fresh(values) if copy and values is object.values else values)
    elif isinstance(object, (list, tuple)) and prims.holds_tracer(object):
        chosen = chosen_dtype.array_of_items(object) if dtype is None and not ndmin else None
        if chosen is not None:  # (items whose types the data chose: NumPy's dtype when it runs)
            return chosen
        out = prims.nested_array(object, dtype)
    else:
        return _traced(np.array(object, dtype, copy=True, order=order, ndmin=ndmin))
    if out.ndim < ndmin:
        out = prims.reshape(out, (1,) * (ndmin - out.ndim) + out.shape)
    return out
