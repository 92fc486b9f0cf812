"""Everyday NumPy functions composed from the other families' traced functions (issue 12, item
6): ``kron``, ``sinc``, ``fix``, ``isposinf``/``isneginf``, ``iscomplex``/``isreal``,
``array_equal``/``array_equiv``, ``column_stack``, ``dstack``, ``rollaxis``, ``diagflat``,
``broadcast_arrays``, ``polyval``, ``trapezoid``, ``cov``, ``corrcoef``, ``apply_over_axes``,
``unstack``, ``sort_complex``; the window functions (``kaiser``'s traced ``beta``: ``bessel.py``)
and ``tri``, which take only static numbers (constants under ``jit``); and the set functions whose
result's length depends on the data (refused with advice).

Each calls NumPy's functions on traced values, so it records what those record (no new IR ops);
given no traced array it simply calls NumPy.
"""

from __future__ import annotations

import builtins
import operator
import warnings

import numpy as np

from jitcore import primitives as prims
from jitcore import traced_cuts
from jitcore.data_size_advice import data_size_advice
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.indexing import is_traced_int
from jitcore.ir.dialects import kernel
from jitcore.numpy.registry import HANDLED_FUNCTIONS, implements, python_bool, traced
from jitcore.tracer import Tracer, refuse_traced, user_location

__all__ = ["array_equal", "array_equiv", "bartlett", "blackman", "broadcast_arrays", "column_stack",
           "corrcoef", "cov", "delete", "diagflat", "dstack", "fix", "hamming", "hanning", "iscomplex",
           "isneginf", "isposinf", "isreal", "kron", "polyval", "rollaxis", "sinc",
           "trapezoid", "tri", "unravel_index", "apply_over_axes", "unstack", "sort_complex"]


def _traced_array(x, like: Tracer) -> Tracer:
    """``x`` as a traced array of the trace ``like`` belongs to (NumPy's ``asarray``)."""
    return x if isinstance(x, Tracer) else prims.constant(like.owner_trace, np.asarray(x))


def _first_tracer(*values) -> Tracer:
    return next(v for v in values if isinstance(v, Tracer))


@implements(np.kron)
def kron(a, b):
    """Every element of ``a`` times the whole of ``b``: both spread over interleaved dims
    (``a`` on the even ones, ``b`` on the odd ones), one broadcast product, then merged."""
    if not traced(a, b):
        return np.kron(a, b)
    like = _first_tracer(a, b)
    a, b = _traced_array(a, like), _traced_array(b, like)
    ndim = max(a.ndim, b.ndim)
    sa, sb = (1,) * (ndim - a.ndim) + a.shape, (1,) * (ndim - b.ndim) + b.shape
    spread_a = np.reshape(a, tuple(d for n in sa for d in (n, 1)))
    spread_b = np.reshape(b, tuple(d for n in sb for d in (1, n)))
    return np.reshape(spread_a * spread_b, tuple(m * n for m, n in zip(sa, sb)))


@implements(np.sinc)
def sinc(x):
    """NumPy's formula: ``sin(y) / y`` of ``y = pi x``, with ``y = 0`` replaced by the dtype's eps
    (1e-20 for other kinds), so sinc(0) is 1."""
    if not traced(x):
        return np.sinc(x)
    y = np.pi * x
    eps = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    y = np.where(y, y, eps)
    return np.sin(y) / y


@implements(np.fix)
def fix(x, out=None):
    """Rounding toward zero: ``trunc`` (NumPy's floor/ceil by sign gives the same, -0.0 and NaN
    included; integers stay integers)."""
    if not traced(x):
        return np.fix(x, out)
    if out is not None:
        raise UnsupportedError(f"numpy.fix: out= is not supported under jit (at {user_location()})")
    return np.trunc(x)


def _real_only(name: str, x) -> None:
    if np.iscomplexobj(x):
        raise JitTypeError(f"This operation is not supported for complex values because it would be "
                           f"ambiguous (numpy.{name} at {user_location()})")


@implements(np.isposinf)
def isposinf(x, out=None):
    """``isinf(x) & ~signbit(x)`` for real ``x`` (NumPy's TypeError for complex)."""
    if not traced(x):
        return np.isposinf(x, out)
    _real_only("isposinf", x)
    return np.logical_and(np.isinf(x), np.logical_not(np.signbit(x)))


@implements(np.isneginf)
def isneginf(x, out=None):
    """``isinf(x) & signbit(x)`` for real ``x`` (NumPy's TypeError for complex)."""
    if not traced(x):
        return np.isneginf(x, out)
    _real_only("isneginf", x)
    return np.logical_and(np.isinf(x), np.signbit(x))


@implements(np.iscomplex)
def iscomplex(x):
    """A nonzero imaginary part (all False for a real dtype)."""
    if not traced(x):
        return np.iscomplex(x)
    return np.imag(x) != 0 if np.iscomplexobj(x) else np.zeros(x.shape, bool)


@implements(np.isreal)
def isreal(x):
    """A zero imaginary part (all True for a real dtype)."""
    if not traced(x):
        return np.isreal(x)
    return np.imag(x) == 0 if np.iscomplexobj(x) else np.ones(x.shape, bool)


def _all_equal(a1, a2, equal_nan: bool):
    same = a1 == a2
    if equal_nan and any(np.asarray(v).dtype.kind in "fc" for v in (a1, a2) if not isinstance(v, Tracer)) \
            or equal_nan and any(v.dtype.kind in "fc" for v in (a1, a2) if isinstance(v, Tracer)):
        same = np.logical_or(same, np.logical_and(np.isnan(a1), np.isnan(a2)))
    return np.all(same)


@implements(np.array_equal)
@python_bool
def array_equal(a1, a2, equal_nan=False):
    """Same shape (static: a constant False otherwise) and equal elements, a Python bool as
    NumPy's (traced: its data is known at call time)."""
    if not traced(a1, a2):
        return np.array_equal(a1, a2, equal_nan)
    if np.shape(a1) != np.shape(a2):
        return prims.constant(_first_tracer(a1, a2).owner_trace, np.bool_(False))
    return _all_equal(a1, a2, equal_nan)


@implements(np.array_equiv)
@python_bool
def array_equiv(a1, a2):
    """Shapes that broadcast (static) and equal elements once broadcast, as a traced 0-d bool."""
    if not traced(a1, a2):
        return np.array_equiv(a1, a2)
    try:
        np.broadcast_shapes(np.shape(a1), np.shape(a2))
    except ValueError:
        return prims.constant(_first_tracer(a1, a2).owner_trace, np.bool_(False))
    return _all_equal(a1, a2, False)


@implements(np.column_stack)
def column_stack(tup):
    """1-d (and 0-d) arrays as columns, 2-d ones as they are, joined along dim 1."""
    if not traced(*tup):
        return np.column_stack(tup)
    like = _first_tracer(*tup)
    columns = []
    for v in tup:
        v = _traced_array(v, like)
        columns.append(np.reshape(v, (-1, 1)) if v.ndim < 2 else v)
    return np.concatenate(columns, axis=1)


@implements(np.dstack)
def dstack(tup):
    """Arrays made at least 3-d (NumPy's ``atleast_3d``), joined along dim 2."""
    if not traced(*tup):
        return np.dstack(tup)
    like = _first_tracer(*tup)
    return np.concatenate([np.atleast_3d(_traced_array(v, like)) for v in tup], axis=2)


@implements(np.rollaxis)
def rollaxis(a, axis, start=0):
    """``axis`` moved to before ``start``: a transpose with NumPy's rules for ``start``."""
    if not traced(a):
        return np.rollaxis(a, axis, start)
    refuse_traced(axis, "the axis of numpy.rollaxis")
    refuse_traced(start, "the start of numpy.rollaxis")
    n = a.ndim
    (axis,) = prims.normalize_axes(axis, n, "rollaxis")
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, "
                                      f"but {start - n if start < 0 else start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    order = [k for k in range(n) if k != axis]
    order.insert(start, axis)
    return np.transpose(a, order)


@implements(np.diagflat)
def diagflat(v, k=0):
    """The flattened ``v`` on the ``k``-th diagonal of a square array."""
    if not traced(v):
        return np.diagflat(v, k)
    return np.diag(np.ravel(v), k)


@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    """Each array broadcast to the common (static) shape, as a tuple."""
    if not traced(*args):
        return np.broadcast_arrays(*args, subok=subok)
    like = _first_tracer(*args)
    arrays = [_traced_array(v, like) for v in args]
    shape = np.broadcast_shapes(*(v.shape for v in arrays))
    return tuple(v if v.shape == shape else np.broadcast_to(v, shape) for v in arrays)


@implements(np.polyval)
def polyval(p, x):
    """Horner's rule in NumPy's order: ``y = zeros_like(x)``, then ``y = y * x + c`` for each
    coefficient (so ``y`` starts in ``x``'s dtype, as in NumPy)."""
    if not traced(p, x):
        return np.polyval(p, x)
    like = _first_tracer(p, x)
    p, x = _traced_array(p, like), _traced_array(x, like)
    if p.ndim != 1:
        raise UnsupportedError(f"numpy.polyval: p must be 1-d under jit (at {user_location()})")
    y = np.zeros_like(x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """NumPy's sum of ``d * (y[1:] + y[:-1]) / 2`` along ``axis``, ``d`` the spacing (``dx`` or
    ``diff(x)``, a 1-d ``x`` laid along ``axis``)."""
    if not traced(y, x, dx):
        return np.trapezoid(y, x, dx, axis)
    refuse_traced(axis, "the axis of numpy.trapezoid")
    y = _traced_array(y, _first_tracer(y, x, dx))
    (axis,) = prims.normalize_axes(axis, y.ndim, "trapezoid")
    if x is None:
        d = dx
    else:
        x = _traced_array(x, y)
        if x.ndim == 1:
            d = np.diff(x)
            d = np.reshape(d, tuple(d.shape[0] if k == axis else 1 for k in range(y.ndim)))
        else:
            d = np.diff(x, axis=axis)
    later = tuple(slice(1, None) if k == axis else slice(None) for k in range(y.ndim))
    earlier = tuple(slice(None, -1) if k == axis else slice(None) for k in range(y.ndim))
    return np.sum(d * (y[later] + y[earlier]) / 2.0, axis=axis)


@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """NumPy's estimate: rows centred on their means, ``X @ X.T.conj() / (N - ddof)``, squeezed;
    with ``fweights``/``aweights`` ``w``, NumPy's weighted means and ``X @ (X w).T.conj()`` over
    its weighted degrees of freedom. NumPy's checks of the weights' values (non-negative,
    integer frequencies) are made on constant weights only."""
    if not traced(m, y, fweights, aweights):
        return np.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    like = _first_tracer(m, y, fweights, aweights)
    if dtype is None:
        dtype = np.result_type(*(np.asarray(v).dtype if not isinstance(v, Tracer) else v.dtype
                                 for v in (m, y) if v is not None), np.float64)
    if np.ndim(m) > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None and np.ndim(y) > 2:
        raise ValueError("y has more than 2 dimensions")
    X = _traced_array(m, like).astype(dtype)
    X = np.reshape(X, (1, -1)) if X.ndim < 2 else X
    if not rowvar and np.ndim(m) != 1:
        X = np.transpose(X)
    if X.shape[0] == 0:
        return prims.constant(like.owner_trace, np.array([]).reshape(0, 0))
    if y is not None:
        Y = _traced_array(y, like).astype(dtype)
        Y = np.reshape(Y, (1, -1)) if Y.ndim < 2 else Y
        if not rowvar and Y.shape[0] != 1:
            Y = np.transpose(Y)
        X = np.concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = _cov_weights(fweights, aweights, X.shape[1], like)
    if w is None:
        fact = X.shape[1] - ddof
        if fact <= 0:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
            fact = 0.0
        X = X - np.mean(X, axis=1)[:, None]
        c = np.dot(X, np.conj(np.transpose(X)))
        return np.squeeze(c * np.true_divide(1, fact))
    avg, w_sum = np.average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        a = _traced_array(aweights, like).astype(np.float64)
        fact = w_sum - ddof * np.sum(w * a) / w_sum
    fact = np.where(fact <= 0, 0.0, fact)  # NumPy warns and divides by zero
    X = X - avg[:, None]
    c = np.dot(X, np.conj(np.transpose(X * w)))
    return np.squeeze((c * np.true_divide(1, fact)).astype(c.dtype))  # NumPy's c *= 1 / fact


def _cov_weights(fweights, aweights, n: int, like):
    """NumPy's weights of ``cov``'s observations (float64; frequencies times reliabilities), its
    errors on their shapes, and, on constant weights, on their values."""
    w = None
    for name, given in (("fweights", fweights), ("aweights", aweights)):
        if given is None:
            continue
        if not isinstance(given, Tracer):
            concrete = np.asarray(given, dtype=float)
            if name == "fweights" and not np.all(concrete == np.around(concrete)):
                raise TypeError("fweights must be integer")
            if np.any(concrete < 0):
                raise ValueError(f"{name} cannot be negative")
        v = _traced_array(given, like).astype(np.float64)
        if v.ndim > 1:
            raise RuntimeError(f"cannot handle multidimensional {name}")
        if v.shape[0] != n:
            raise RuntimeError(f"incompatible numbers of samples and {name}")
        w = v if w is None else w * v
    return w


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, bias=np._NoValue, ddof=np._NoValue, *, dtype=None):
    """``cov`` divided by the outer product of the standard deviations, clipped to [-1, 1]
    (real and imaginary parts), as NumPy's; a single variable gives ``c / c``."""
    if not traced(x, y):
        return np.corrcoef(x, y, rowvar, bias, ddof, dtype=dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = np.diagonal(c)
    stddev = np.sqrt(np.real(d))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    if np.iscomplexobj(c):
        return np.clip(np.real(c), -1, 1) + 1j * np.clip(np.imag(c), -1, 1)
    return np.clip(c, -1, 1)


@implements(np.delete)
def delete(arr, obj, axis=None):
    """``arr`` without the entries ``obj`` (static: an int, a slice, a sequence of ints or a
    boolean mask) along ``axis`` (None: of the flattened array): a gather of the kept ones."""
    one_traced = is_traced_int(obj) and obj.ndim == 0  # np.delete(x, i) in a loop over i
    if not traced(arr) and not one_traced:
        return np.delete(arr, obj, axis)
    if not one_traced:
        refuse_traced(obj, "the indices of numpy.delete")
    if not isinstance(arr, Tracer):
        arr = prims.constant(obj.owner_trace, np.asarray(arr))
    if axis is None:
        arr, axis = np.ravel(arr), 0
    refuse_traced(axis, "the axis of numpy.delete")
    (axis,) = prims.normalize_axes(axis, arr.ndim, "delete")
    if one_traced:  # n - 1 entries stay, wherever the one deleted is
        return traced_cuts.delete_at(arr, obj, axis)
    kept = np.delete(np.arange(arr.shape[axis]), obj)  # NumPy's own rules and errors for obj
    return np.take(arr, kept, axis=axis)


def _static_only(np_fn):
    """A NumPy function of static numbers only (a window's length, a shape): a constant under
    ``jit``; a traced argument raises ConcretizationError."""
    def fn(*args, **kwargs):
        for v in (*args, *kwargs.values()):
            refuse_traced(v, f"the arguments of numpy.{np_fn.__name__}")
        return np_fn(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"``numpy.{np_fn.__name__}`` of static arguments: a constant under ``jit``."
    return fn


bartlett, blackman, hamming, hanning = (_static_only(f) for f in (np.bartlett, np.blackman,
                                                                  np.hamming, np.hanning))
tri = _static_only(np.tri)


def _result_depends_on_data(np_fn, advice: str):
    """Set functions and selections whose result's length depends on the data: JitTypeError."""
    def fn(*args, **kwargs):
        if not traced(*args, *kwargs.values()):
            return np_fn(*args, **kwargs)
        words = f"numpy.{np_fn.__name__} returns an array whose length depends on the data, which a " \
            f"compiled function cannot return (at {user_location()})"
        static = data_size_advice((*args, *kwargs.values()), matrix=np_fn is np.setdiff1d)
        if static:  # (a mask of membership would be refused the same way where it selects)
            raise JitTypeError(words + "." + static)
        raise JitTypeError(f"{words}; {advice}, or call it outside the jitted function")
    HANDLED_FUNCTIONS[np_fn] = fn


_MASK = "keep the shape and use a mask instead (numpy.where(condition, x, 0))"
for _fn, _advice in ((np.trim_zeros, _MASK),
                     (np.union1d, "use numpy.isin-style comparisons on the static inputs"),
                     (np.intersect1d, "compare with a mask (a[:, None] == b).any(1)"),
                     (np.setdiff1d, "compare with a mask ~(a[:, None] == b).any(1)"),
                     (np.setxor1d, "compare with masks of membership")):
    _result_depends_on_data(_fn, _advice)
@implements(np.real_if_close)
def _real_if_close(a, tol=100):
    """Refused: the result's dtype (real or complex) depends on the data."""
    if traced(a) and a.dtype.kind == "c":
        raise JitTypeError(
            f"numpy.real_if_close returns a real or a complex array depending on the data, which a "
            f"compiled function cannot (at {user_location()}); return np.real(a) where "
            "np.all(np.abs(np.imag(a)) < tol * np.finfo(a.dtype).eps) is known, or call it outside "
            "the jitted function")
    return np.real_if_close(a, tol) if not traced(a) else a


@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """``numpy.unravel_index`` of traced flat indices into a static ``shape`` (the idiom
    ``np.unravel_index(np.argmax(a), a.shape)``): each coordinate by ``//`` and ``%`` of the
    dims; an index out of range raises NumPy's ValueError when the function runs."""
    if not traced(indices):
        return np.unravel_index(indices, shape, order)
    refuse_traced(shape, "the shape of numpy.unravel_index")
    dims = tuple(operator.index(d) for d in (shape if np.ndim(shape) else (shape,)))
    if indices.dtype.kind not in "iu":
        raise JitTypeError(f"only int indices permitted (numpy.unravel_index at {user_location()})")
    if order not in ("C", "F"):
        raise JitValueError(f"only 'C' or 'F' order is permitted (at {user_location()})")
    size = int(np.prod(dims))
    flat = prims.convert(indices, np.dtype(np.intp))
    _raise_if_out_of_range(flat, size)
    coords, rest = {}, flat
    for axis in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        coords[axis] = prims.ufunc(np.remainder, rest, dims[axis]) if dims[axis] else rest
        rest = prims.ufunc(np.floor_divide, rest, dims[axis]) if dims[axis] else rest
    return tuple(coords[axis] for axis in range(len(dims)))


def _raise_if_out_of_range(flat, size: int) -> None:
    """NumPy's ValueError for the first flat index outside ``[0, size)``, raised by the call."""
    raise_at_first(prims.ufunc(np.bitwise_or, prims.ufunc(np.less, flat, 0),
                               prims.ufunc(np.greater_equal, flat, size)), flat,
                   kernel.FLAT_INDEX_OUT_OF_BOUNDS, words=(0, size))


def raise_at_first(bad, values, error, words=(), test=None) -> None:
    """NumPy's or Python's error for the first of ``values`` (in C order) where ``bad`` holds,
    raised by the call from compiled code (``array.raise_if``: a compare and a branch, so a loop
    that checks stays compiled). ``error`` is the error's code (``kernel.PYTHON_ERRORS``), or a
    function of that first value giving ``(condition, code)`` pairs of which one holds (math's
    domain or range error, told from the value). The value is status word 1 (a message's
    ``{index}``, or ``{float}`` for a float64), ``words`` the static words after it.
    ``test``, where ``bad`` is a function of ``values`` alone, recomputes it at the first
    position from that value: ``bad`` is then read by the argmax only, which takes its
    computation in (no array of flags written and read back)."""
    bad = bad if isinstance(bad, Tracer) else prims.constant(values.owner_trace, np.asarray(bad))
    trace = bad.owner_trace
    if not isinstance(values, Tracer):
        values = prims.constant(trace, np.asarray(values))
    values = prims.broadcast_to(values, bad.shape)
    if values.dtype not in (np.int64, np.float64):
        values = prims.convert(values, np.dtype(np.float64 if values.dtype.kind in "fc" else np.int64))
    if bad.ndim:  # the first bad element: argmax finds it, and reading bad there says whether any is
        at = np.argmax(np.reshape(bad, (-1,)))
        values = np.reshape(values, (-1,))[at]
        bad = np.reshape(bad, (-1,))[at] if test is None else test(values)
    cases = [(None, error)] if isinstance(error, int) else error(values)
    for holds, code in cases:
        name = kernel.PYTHON_ERRORS[code][0]
        prims.refuse_caught(trace, getattr(builtins, name), [bad],
                            f"a check at {user_location()} may raise {name}",
                            "Test the value first")
        prims.raise_if(bad if holds is None else np.logical_and(bad, holds), code, (values, *words))


prims.RAISE_AT_FIRST = raise_at_first  # the primitives' integer powers raise through it


@implements(np.apply_over_axes)
def apply_over_axes(func, a, axes):
    """NumPy's loop: ``func(a, axis)`` for each axis in turn, a result with one dim fewer given
    it back with ``expand_dims``."""
    if not traced(a):
        return np.apply_over_axes(func, a, axes)
    val, n = a, a.ndim
    for axis in (axes,) if np.ndim(axes) == 0 else axes:
        refuse_traced(axis, "the axes of numpy.apply_over_axes")
        axis = axis + n if axis < 0 else axis
        res = func(val, axis)
        res = res if np.ndim(res) == val.ndim else np.expand_dims(res, axis)
        if np.ndim(res) != val.ndim:
            raise JitValueError("function is not returning an array of the correct shape "
                                f"(numpy.apply_over_axes at {user_location()})")
        val = res
    return val


@implements(np.unstack)
def unstack(x, /, *, axis=0):
    """A tuple of ``x``'s slices along ``axis``."""
    if not traced(x):
        return np.unstack(x, axis=axis)
    refuse_traced(axis, "the axis of numpy.unstack")
    if x.ndim == 0:
        raise JitValueError(f"Input array must be at least 1-d. (numpy.unstack at {user_location()})")
    moved = np.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


@implements(np.sort_complex)
def sort_complex(a):
    """``np.sort`` then NumPy's complex dtype: complex64 for int8/int16 and their unsigned
    kinds, complex128 for other real ones (complex input: the sort's own error)."""
    if not traced(a):
        return np.sort_complex(a)
    b = np.sort(a)
    if b.dtype.kind == "c":
        return b
    return b.astype(np.complex64 if b.dtype.char in "bhBH" else np.complex128)
