"""``math.hypot(*coordinates)`` and ``math.dist(p, q)`` of traced numbers: CPython's own
``vector_norm``, compiled.

Python's ``hypot`` takes any number of coordinates (``hypot()`` is 0.0, ``hypot(x)`` is
``|x|``) and is not C's two-argument ``hypot``: it scales by the largest magnitude's power of
two, squares each scaled coordinate exactly (Dekker's split, as CPython 3.11), adds the squares
to ``1.0`` without loss (the rounding errors kept in two lossy sums), takes the square root and
corrects it once. The same steps run here in a compiled loop, so the result is CPython's bit for
bit. Its special values are CPython's: an infinity anywhere gives ``inf`` (even with a NaN),
else a NaN gives ``nan``; it never raises (``hypot(1.7e308, 1.7e308)`` is ``inf``). ``dist``
is the norm of ``|p[i] - q[i]|``, its points of equal length (Python's ValueError otherwise).
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from jitcore import control_flow as cf
from jitcore.errors import JitTypeError, JitValueError
from jitcore.primitives import as_tracer
from jitcore.tracer import Tracer, fresh, user_location

_VELTKAMP = 134217729.0  # 2 ** 27 + 1: splits a double into two halves whose products are exact
_DBL_MIN = sys.float_info.min
_UNROLLED = 8  # up to this many coordinates the sum is unrolled; more run in a compiled loop


def _split(x):
    t = x * _VELTKAMP
    hi = t - (t - x)
    return hi, x - hi


def _mul(x, y):
    """CPython's ``dl_mul``: ``x * y`` as a rounded product and its exact error."""
    xh, xl = _split(x)
    yh, yl = _split(y)
    p = xh * yh
    q = xh * yl + xl * yh
    z = p + q
    return z, p - z + q + xl * yl


def _fast_sum(a, b):
    """CPython's ``dl_fast_sum`` (``|a| >= |b|``): ``a + b`` and its exact error."""
    x = a + b
    return x, b - (x - a)


def _norm(trace, v) -> Tracer:
    """CPython's ``vector_norm`` of the magnitudes ``v``: a list of float64 tracers of one shape
    (a few coordinates: straight-line code, which fuses into one kernel), or a float64 traced
    array with the coordinates along axis 0 (a compiled loop over them). More dims than the
    coordinates' are norms side by side, for ``np.vectorize(math.hypot)``."""
    if isinstance(v, list):
        found_nan = functools.reduce(np.logical_or, [np.isnan(x) for x in v])
        big = functools.reduce(np.maximum, [np.where(np.isnan(x), 0.0, x) for x in v])
    else:
        nan = np.isnan(v)
        found_nan = np.any(nan, axis=0)
        big = np.max(np.where(nan, 0.0, v), axis=0, initial=0.0)
    # (CPython's ``if (x > max)`` skips a NaN.) A subnormal largest value: everything scaled up
    # by 1 / DBL_MIN first (exact), the norm down after.
    tiny = big < 2.0 ** -1023
    pre = np.where(tiny, _DBL_MIN, 1.0)
    v = [x / pre for x in v] if isinstance(v, list) else v / pre
    big = big / pre
    _, e = np.frexp(np.where(big > 0, big, 1.0))
    scale = np.ldexp(1.0, -e)

    def add(i, carry):
        csum, frac1, frac2 = carry
        x = v[i] * scale
        hi, lo = _mul(x, x)
        csum, err = _fast_sum(csum, hi)
        return csum, frac1 + lo, frac2 + err

    zero = np.zeros_like(big)
    carry = (zero + 1.0, zero, zero)
    if isinstance(v, list):
        for i in range(len(v)):
            carry = add(i, carry)
        csum, frac1, frac2 = carry
    else:
        csum, frac1, frac2 = cf.fori_loop(0, v.shape[0], add, carry)
    h = np.sqrt(csum - 1.0 + (frac1 + frac2))
    hi, lo = _mul(-h, h)
    csum, err = _fast_sum(csum, hi)
    frac1, frac2 = frac1 + lo, frac2 + err
    x = csum - 1.0 + (frac1 + frac2)
    h = h + x / (2.0 * h)
    out = pre * (h / scale)
    n = len(v) if isinstance(v, list) else v.shape[0]
    out = np.where(big == 0.0, 0.0, out) if n > 1 else big * pre
    out = np.where(found_nan, np.nan, out)
    return np.where(np.isinf(big), np.inf, out)


def _coordinates(trace, values, what: str) -> Tracer:
    """``values`` (numbers, some traced, or a 1-d traced array) as a 1-d float64 traced array,
    with Python's TypeError for what is not a real number."""
    if isinstance(values, Tracer):
        if values.ndim != 1:
            raise JitTypeError(f"{what} of a traced array of shape {values.shape}: its items must be "
                               f"numbers, as Python's (at {user_location()})")
        items = [values]
    else:
        items = []
        for v in values:
            if np.ndim(v):
                raise JitTypeError(f"{what}: each coordinate must be a number, not an array of shape "
                                   f"{np.shape(v)} (at {user_location()}); np.linalg.norm works on arrays")
            if isinstance(v, complex) or (isinstance(v, (Tracer, np.generic)) and v.dtype.kind == "c"):
                break
            items.append(v if isinstance(v, Tracer) else as_tracer(trace, float(v), np.float64))
    if len(items) < (1 if isinstance(values, Tracer) else len(values)) or items[0].dtype.kind == "c":
        raise JitTypeError(f"must be real number, not complex ({what} at {user_location()})")
    if isinstance(values, Tracer):
        return values.astype(np.float64)
    items = [np.reshape(x, ()).astype(np.float64) for x in items]
    # a few numbers stay apart (straight-line code on scalars); more are one array
    return items if len(items) <= _UNROLLED else np.stack(items)


def _trace_of(values):
    return next(v for v in values if isinstance(v, Tracer)).owner_trace


def traced_hypot(*coordinates, elementwise: bool = False):
    """``math.hypot(*coordinates)``, some traced: a Python float (a weak float64);
    ``elementwise`` (``np.vectorize(math.hypot)``): a float64 array, the norms side by side."""
    if not any(isinstance(v, Tracer) for v in coordinates):
        return math.hypot(*coordinates)
    if elementwise:
        trace = _trace_of(coordinates)
        xs = np.broadcast_arrays(*(as_tracer(trace, x, np.float64) if not isinstance(x, Tracer) else x
                                   for x in coordinates))
        if any(x.dtype.kind == "c" for x in xs):
            raise JitTypeError(f"must be real number, not complex (math.hypot at {user_location()})")
        v = np.abs(np.stack([x.astype(np.float64) for x in xs]))
        return fresh(_norm(trace, _few(v)), scalar=True)
    trace = _trace_of(coordinates)
    v = _coordinates(trace, coordinates, "math.hypot")
    v = [np.abs(x) for x in v] if isinstance(v, list) else _few(np.abs(v))
    return fresh(_norm(trace, v), scalar=True, weak=True)


def traced_dist(p, q):
    """``math.dist(p, q)``, the points' coordinates some traced: a Python float."""
    points = []
    for point in (p, q):
        if not isinstance(point, Tracer):
            point = tuple(point)  # Python's: any sequence of numbers
        points.append(point)
    p, q = points
    flat = [x for point in points for x in ((point,) if isinstance(point, Tracer) else point)]
    if not any(isinstance(v, Tracer) for v in flat):
        return math.dist(p, q)
    trace = _trace_of(flat)
    cp, cq = (_stacked(_coordinates(trace, point, "math.dist")) for point in points)
    if cp.shape != cq.shape:
        raise JitValueError(f"both points must have the same number of dimensions "
                            f"(math.dist at {user_location()})")
    return fresh(_norm(trace, _few(np.abs(cp - cq))), scalar=True, weak=True)


def _stacked(v):
    return np.stack(v) if isinstance(v, list) else v


def _few(v: Tracer):
    """``v``'s coordinates (along axis 0) as a list where there are few, else ``v``."""
    return [v[i] for i in range(v.shape[0])] if v.shape[0] <= _UNROLLED else v
