"""Python's ``math`` functions of traced numbers, as converted code calls them.

``math.exp(x)`` of a traced ``x`` would ask for ``float(x)``, which a traced value cannot give.
Here it is NumPy's ufunc of the number as a Python float (a weak float64 scalar, NEP 50), and
``math``'s errors stay Python's: a NaN from a number that was not NaN is ``ValueError('math
domain error')`` (``sqrt(-1)``, ``acos(2)``, ``cos(inf)``, ``fmod(x, 0)``); an infinity from
finite numbers is ``OverflowError('math range error')`` (``exp(1000)``), or the domain error for
the logarithms and ``atanh`` (``log(0)``, as ``math``). Both are raised by the call when the
data meets them. ``erf``, ``erfc``, ``gamma`` and ``lgamma``, which NumPy has no ufunc for, are
the math library's (``array.SPECIAL_FUNCTIONS``; ``gamma(0)`` and ``lgamma`` of a non-positive
integer are domain errors, as ``math`` has them); ``floor``, ``ceil`` and ``trunc`` give a
Python int (a weak int64, with ``int()``'s errors for NaN and infinity); ``isnan``, ``isinf``,
``isfinite`` and ``isclose`` give a Python bool (a weak bool: ``n += math.isnan(v)`` counts in
Python ints), ``isclose`` by CPython's formula, its ValueError for a negative tolerance raised
by the call where the tolerance is traced; ``fsum`` is CPython's exactly rounded sum, compiled
(``autograph/fsum.py``). The others are called as written.

``np.vectorize`` of one of these functions (``np.vectorize(math.erf)(x)``) is the same
function of each element: a float64 array (or ``otypes``'s), with the same errors, raised by
the call; NumPy's refusal of size-0 input without ``otypes`` is kept. ``np.vectorize`` of any
other function stays refused (``Tracer.__array__``).
"""

from __future__ import annotations

import math

import numpy as np

from jitcore import primitives as prims
from jitcore import python_division
from jitcore.autograph.fsum import traced_fsum
from jitcore.autograph.math_counts import MATH_COUNT_CALLS
from jitcore.autograph.vector_norm import traced_dist, traced_hypot
from jitcore.autograph.vectorized import VectorizedLoop
from jitcore.errors import JitTypeError, JitValueError, JitZeroDivisionError
from jitcore.ir.dialects import kernel
from jitcore.numpy.everyday import raise_at_first
from jitcore.python_arithmetic import check_int_of
from jitcore.tracer import Tracer, fresh, user_location

# math's name -> (NumPy's ufunc, an infinity from finite numbers is a domain error)
_UNARY = {"sqrt": np.sqrt, "exp": np.exp, "expm1": np.expm1, "exp2": np.exp2, "cbrt": np.cbrt,
          "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
          "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
          "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "fabs": np.fabs,
          "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "degrees": np.degrees,
          "radians": np.radians}
# math.pow is C's pow() (not NumPy's array forms of x ** 2): also per element under np.vectorize
_BINARY = {"atan2": np.arctan2, "copysign": np.copysign, "fmod": np.fmod,
           "pow": lambda x, y: prims.ufunc(np.power, x, y, scalar_math=True)}
_UNCHECKED = {"degrees", "radians"}  # plain products in CPython: never an error
_POLE_IS_DOMAIN = {"log", "log2", "log10", "log1p", "atanh"}
# Without a NumPy ufunc: the math library's (gamma and lgamma: C99's values at the poles).
_SPECIAL = {name: (lambda kind: lambda x: prims.special_function(kind, x))(name)
            for name in ("erf", "erfc", "gamma", "lgamma")}
_AT_INTEGER_POLES = {"gamma", "lgamma"}  # an infinity there is a domain error, elsewhere a range one


def _as_float(x, elementwise: bool = False) -> Tracer | float:
    """A traced number as a float64 0-d value; ``elementwise`` (np.vectorize): a float64 array."""
    if not isinstance(x, Tracer):
        return float(x) if not elementwise else np.asarray(x, dtype=np.float64)
    if x.dtype.kind == "c":
        raise JitTypeError(f"must be real number, not complex (math function at {user_location()})")
    if elementwise:
        return x.astype(np.float64)
    if x.size != 1:
        raise JitTypeError(f"only a single value converts to a Python float, not a traced array of "
                           f"shape {x.shape} (math function at {user_location()})")
    return x.reshape(()).astype(np.float64)


def _domain_or_range(value):
    """A NaN is a domain error, an infinity a range error (math's, for exp, cosh, pow ...)."""
    nan = np.isnan(value)
    return [(nan, kernel.MATH_DOMAIN), (np.logical_not(nan), kernel.MATH_RANGE)]


def _domain_at_integer_poles(x):
    """gamma's and lgamma's errors, told from the argument: a non-positive integer (or -inf) is
    a domain error, an infinity elsewhere a range error."""
    pole = np.logical_and(np.less_equal(x, 0), np.equal(x, np.floor(x)))
    return [(pole, kernel.MATH_DOMAIN), (np.logical_not(pole), kernel.MATH_RANGE)]


def _arity(name: str, args, low: int, high: int) -> None:
    """Python's TypeError for a call with the wrong number of arguments: a NumPy ufunc would take
    an extra one as ``out=`` (``math.atan2(y, x, z)``) and answer something else."""
    if not low <= len(args) <= high:
        want = f"exactly {low}" if low == high else f"{low} to {high}"
        raise JitTypeError(f"math.{name}() takes {want} argument{'s' * (high != 1)} "
                           f"({len(args)} given) (at {user_location()})")


def _checked(name: str, compute, arity=(1, 1)):
    """``compute`` of the arguments as floats, with math's errors raised by the call."""
    def fn(*args, elementwise: bool = False):
        if not any(isinstance(a, Tracer) for a in args):
            return getattr(math, name)(*args)
        _arity(name, args, *arity)
        xs = [_as_float(a, elementwise) for a in args]
        out = compute(*xs)
        if name in _UNCHECKED:  # no error in Python: math.degrees(1e308) is inf
            return fresh(out, scalar=True, weak=not elementwise)
        given_nan = np.zeros((), bool)
        given_finite = np.ones((), bool)
        for x in xs:
            given_nan = given_nan | np.isnan(x)
            given_finite = given_finite & np.isfinite(x)
        bad = (np.isnan(out) & ~given_nan) | (np.isinf(out) & given_finite)  # one check a call
        if name in _AT_INTEGER_POLES:
            raise_at_first(bad, np.broadcast_to(xs[0], np.shape(out)), _domain_at_integer_poles)
        elif name == "pow":  # C's pow(0, y < 0) is a pole: Python's domain error, not a range one
            pole = np.broadcast_to(np.equal(xs[0], 0), np.shape(out))
            raise_at_first(bad, out, lambda v: [(np.logical_and(pole, np.isinf(v)), kernel.MATH_DOMAIN),
                                                *((np.logical_and(np.logical_not(pole), c), k)
                                                  for c, k in _domain_or_range(v))])
        else:
            raise_at_first(bad, out, kernel.MATH_DOMAIN if name in _POLE_IS_DOMAIN else _domain_or_range)
        return fresh(out, scalar=True, weak=not elementwise)  # a Python float: weak, as NEP 50 has it

    fn.__name__ = fn.__qualname__ = name
    return fn


def _log(*args, elementwise: bool = False):
    """``math.log(x)`` or ``math.log(x, base)``: each logarithm with its own domain error (a
    ``base`` of 0 is one, not ``log(x) / -inf``), then Python's ZeroDivisionError for ``base``
    1 (``log(x) / 0.0``)."""
    if not any(isinstance(a, Tracer) for a in args):
        return math.log(*args)
    _arity("log", args, 1, 2)
    logs = [_LOG(a, elementwise=elementwise) for a in args]
    if len(logs) == 1:
        return logs[0]
    num, den = logs
    if not isinstance(den, Tracer):  # a base known now: log(x, 1) always divides by zero
        if den == 0.0:
            raise JitZeroDivisionError(f"float division by zero (math.log(x, 1) at {user_location()})")
    else:
        raise_at_first(np.equal(den, 0.0), 0, kernel.FLOAT_DIVISION_BY_ZERO)
    return fresh(num / den, scalar=True, weak=not elementwise)


def _ldexp(x, i):
    """``math.ldexp(x, i)``: ``i`` a Python int (an int, not a float, as Python's TypeError
    says), an infinity from a finite ``x`` Python's OverflowError."""
    if not any(isinstance(a, Tracer) for a in (x, i)):
        return math.ldexp(x, i)
    if isinstance(i, Tracer) and (i.dtype.kind not in "biu" or i.ndim) or \
            not isinstance(i, Tracer) and not isinstance(i, (int, np.integer)):
        raise JitTypeError(f"Expected an int as second argument to ldexp (at {user_location()})")
    x = _as_float(x)
    # past +-2200 every double is 0 or inf: clipped so int64's exponent never wraps
    out = np.ldexp(x, np.clip(i, -2200, 2200).astype(np.int32) if isinstance(i, Tracer)
                   else int(np.clip(i, -2200, 2200)))
    raise_at_first(np.isinf(out) & np.isfinite(x), out, kernel.MATH_RANGE)
    return fresh(out, scalar=True, weak=True)


def _rounded_to_int(name: str, rounding):
    """``math.floor``/``ceil``/``trunc`` of a traced number: a Python int (a weak int64), with
    Python's errors for NaN and infinity (and int64's limit) raised by the call."""
    def fn(x, elementwise: bool = False):
        if not isinstance(x, Tracer):
            return getattr(math, name)(x)
        r = rounding(_as_float(x, elementwise))
        check_int_of(r)
        return fresh(r.astype(np.int64), scalar=True, weak=not elementwise)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _predicate(name: str, test):
    """``math.isnan``/``isinf``/``isfinite`` of a traced number: a Python bool (a weak bool)."""
    def fn(x):
        if not isinstance(x, Tracer):
            return getattr(math, name)(x)
        return fresh(test(_as_float(x)), scalar=True, weak=True)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0):
    """``math.isclose`` by CPython's formula: equal, or both finite and ``|a - b|`` within
    ``rel_tol`` of either or within ``abs_tol`` (not ``np.isclose``'s asymmetric test)."""
    if not any(isinstance(v, Tracer) for v in (a, b, rel_tol, abs_tol)):
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    a, b, rel_tol, abs_tol = (_as_float(v) for v in (a, b, rel_tol, abs_tol))
    if not isinstance(rel_tol, Tracer) and not isinstance(abs_tol, Tracer):
        if rel_tol < 0 or abs_tol < 0:
            raise JitValueError("tolerances must be non-negative")
    else:
        bad = np.less(rel_tol, 0) | np.less(abs_tol, 0)
        raise_at_first(bad, 0, kernel.NEGATIVE_TOLERANCE)
    diff = np.abs(b - a)
    near = (diff <= np.abs(rel_tol * b)) | (diff <= np.abs(rel_tol * a)) | (diff <= abs_tol)
    close = (a == b) | (near & ~np.isinf(a) & ~np.isinf(b))
    return fresh(close, scalar=True, weak=True)


def _gcd_lcm(name: str, ufunc):
    """``math.gcd``/``math.lcm`` of ints, some traced (any number of them): NumPy's ``gcd`` or
    ``lcm`` folded over them, a Python int (a weak int64) that is never negative, as Python's;
    ``gcd()`` is 0 and ``lcm()`` 1. An ``lcm`` past int64 raises OverflowError from the call
    (Python's ints have no limit). A float is Python's TypeError."""
    def fn(*args):
        if not any(isinstance(a, Tracer) for a in args):
            return getattr(math, name)(*args)
        ints = []
        for a in args:
            kind = a.dtype.kind if isinstance(a, Tracer) else "i" if isinstance(a, (int, np.integer)) else ""
            numpy_bool = kind == "b" and isinstance(a, Tracer) and not a.weak  # no __index__
            if kind not in ("b", "i", "u") or numpy_bool or np.ndim(a):
                what = (f"a {a.dtype} array" if np.ndim(a) else "a numpy.bool" if numpy_bool
                        else f"a {a.dtype}" if isinstance(a, Tracer) else f"a {type(a).__name__}")
                raise JitTypeError(
                    f"math.{name}() takes Python ints, not {what} (at {user_location()}); "
                    f"int(v) makes a number one, and np.{name}(a, b) works element-wise on arrays")
            ints.append(prims.convert(a, np.dtype(np.int64)) if isinstance(a, Tracer) else np.int64(a))
        out = np.abs(ints[0])  # one argument: its absolute value, as Python's
        for b in ints[1:]:
            if ufunc is np.lcm:  # |a| // gcd * |b| past int64: Python's exact int does not fit
                step = np.abs(out) // np.maximum(np.gcd(out, b), 1)
                raise_at_first(step > np.iinfo(np.int64).max // np.maximum(np.abs(b), 1), 0,
                               kernel.INT_OVERFLOW)
            out = ufunc(out, b)
        return fresh(prims.convert(out, np.dtype(np.int64)), scalar=True, weak=True)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _isqrt(n):
    """``math.isqrt`` of a traced int (a Python int, a NumPy integer or bool: what has
    ``__index__``): a Python int; a negative one raises Python's ValueError from the call."""
    if not isinstance(n, Tracer):
        return math.isqrt(n)
    if n.dtype.kind not in "biu" or n.ndim:
        kind = "float" if n.weak else f"numpy.{n.dtype.name}"
        what = f"a {n.dtype} array" if n.ndim else f"'{kind}' object"
        raise JitTypeError(f"{what} cannot be interpreted as an integer (math.isqrt at {user_location()})")
    if n.dtype.kind == "i":
        raise_at_first(n < 0, 0, kernel.ISQRT_NEGATIVE)
    return fresh(python_division.int_sqrt(n), scalar=True, weak=True)


def _fsum(seq):
    values = seq if isinstance(seq, Tracer) else list(seq)
    if not isinstance(values, Tracer) and not any(isinstance(v, Tracer) for v in values):
        return math.fsum(values)
    return traced_fsum(values)


MATH_CALLS = {getattr(math, n): _checked(n, f) for n, f in _UNARY.items()}
MATH_CALLS.update({getattr(math, n): _checked(n, f, (2, 2)) for n, f in _BINARY.items()})
MATH_CALLS.update({getattr(math, n): _rounded_to_int(n, f)
                   for n, f in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc))})
_LOG = _checked("log", np.log)
MATH_CALLS[math.log] = _log
MATH_CALLS[math.ldexp] = _ldexp
MATH_CALLS.update({getattr(math, n): _checked(n, f) for n, f in _SPECIAL.items()})
MATH_CALLS.update({getattr(math, n): _predicate(n, f)
                   for n, f in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite))})
MATH_CALLS[math.isclose] = _isclose
MATH_CALLS[math.fsum] = _fsum
MATH_CALLS.update(MATH_COUNT_CALLS)  # comb, perm, factorial: compiled loops
MATH_CALLS[math.gcd] = _gcd_lcm("gcd", np.gcd)
MATH_CALLS[math.lcm] = _gcd_lcm("lcm", np.lcm)
MATH_CALLS[math.isqrt] = _isqrt


class _VectorizedMath:
    """``np.vectorize(f)`` of a ``math`` function above, called on traced arrays: ``f`` of every
    element at once (``elementwise``), as NumPy's loop computes it element by element."""

    def __init__(self, vectorized: np.vectorize):
        self.vectorized = vectorized

    def __call__(self, *args):
        v = self.vectorized
        if not any(isinstance(a, Tracer) for a in args):
            return v(*args)
        if not v.otypes and any(np.size(a) == 0 for a in args):
            raise JitValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
        out = MATH_CALLS[v.pyfunc](*args, elementwise=True)
        return out.astype(v.otypes[0]) if v.otypes else out


def traced_vectorize(vectorized):
    """What converted code calls for an ``np.vectorize`` object: one that runs traced arrays
    element-wise at once when it vectorizes a ``math`` function jitcore computes, one that loops
    over the elements for another Python function (``vectorized.VectorizedLoop``), else the
    object (``excluded``, ``signature``: refused on traced data)."""
    if vectorized.excluded or vectorized.signature is not None:
        return vectorized
    try:  # (comb, perm, factorial: loops of their own, per element by VectorizedLoop)
        plain = vectorized.pyfunc in MATH_CALLS and vectorized.pyfunc not in MATH_COUNT_CALLS
    except TypeError:  # an unhashable callable
        plain = False
    return _VectorizedMath(vectorized) if plain else VectorizedLoop(vectorized)


def _vectorize(*args, **kwargs):
    return traced_vectorize(np.vectorize(*args, **kwargs))


MATH_CALLS[np.vectorize] = _vectorize
MATH_CALLS[math.hypot] = traced_hypot  # any number of coordinates: CPython's vector_norm
MATH_CALLS[math.dist] = traced_dist
