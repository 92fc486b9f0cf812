"""``numpy.polynomial.polynomial``'s functions of traced data (coefficients lowest power first):
``polyval``, ``polyder``, ``polyint`` is not here, and ``polyfit``, written as NumPy writes them
(the same Horner steps in the same order, so the same bits; the fit's least squares is
``np.linalg.lstsq`` on the same scaled Vandermonde matrix, so its rounding is jitcore's).
NumPy's functions are not ``__array_function__``-dispatched: converted code calls these in
their place (``autograph/arrays.py``), and NumPy's own when nothing is traced. The classes
(``Polynomial``, ``Polynomial.fit``) stay refused: their objects hold NumPy arrays.
"""

from __future__ import annotations

import numpy as np
from numpy.polynomial import polynomial as P

from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer, user_location

_INTEGER_CODES = "?bBhHiIlLqQpP"  # NumPy's: coefficients of these types are computed as float64


def series(c) -> Tracer:
    """``c`` as NumPy's ``as_series`` sees it: at least 1-d, integer coefficients as float64."""
    c = c if isinstance(c, Tracer) else np.array(c, ndmin=1)
    if c.ndim == 0:
        c = np.reshape(c, (1,))
    return c + 0.0 if c.dtype.char in _INTEGER_CODES else c


def polyval(x, c, tensor=True):
    """``c[0] + c[1] x + ...``: NumPy's Horner loop from the highest coefficient."""
    if not prims.holds_tracer((x, c)):
        return P.polyval(x, c, tensor)
    c = series(c)
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)  # of numbers: holds_tracer said a list of traced values is not x
    if isinstance(x, (np.ndarray, Tracer)) and tensor:
        c = np.reshape(c, c.shape + (1,) * np.ndim(x))
    c0 = c[-1] + x * 0
    for i in range(2, c.shape[0] + 1):
        c0 = c[-i] + c0 * x
    return c0


def polyder(c, m=1, scl=1, axis=0):
    """The m-th derivative's coefficients along ``axis``, each step NumPy's ``j * c[j]``."""
    if not prims.holds_tracer((c, scl)):
        return P.polyder(c, m, scl, axis)
    if isinstance(m, Tracer) or isinstance(axis, Tracer) or m < 0:
        raise UnsupportedError(f"numpy.polynomial.polynomial.polyder: m must be a non-negative Python "
                               f"int and axis static under jit (at {user_location()})")
    c = np.moveaxis(series(c), axis, 0)
    n = c.shape[0]
    if m >= n:
        c = c[:1] * 0
    else:
        for _ in range(m):
            n -= 1
            c = c * scl
            j = np.arange(n, 0, -1)[::-1].reshape((n,) + (1,) * (c.ndim - 1))
            c = (j * c[1:]).astype(c.dtype)
    return np.moveaxis(c, 0, axis)


def polyfit(x, y, deg, rcond=None, full=False, w=None):
    """Least squares in the power basis, NumPy's way: the Vandermonde matrix's columns scaled to
    unit norm, ``lstsq``, the scale taken back out. ``deg`` a Python int; no ``full`` or ``w``."""
    if not prims.holds_tracer((x, y, w)):
        return P.polyfit(x, y, deg, rcond, full, w)
    if not isinstance(deg, int) or full or w is not None:
        raise UnsupportedError(f"numpy.polynomial.polynomial.polyfit under jit takes an int deg, no "
                               f"full=True and no w= (at {user_location()})")
    x, y = ((v if isinstance(v, Tracer) else np.asarray(v)) + 0.0 for v in (x, y))
    cols = [np.ones_like(x), x]
    for _ in range(2, deg + 1):
        cols.append(cols[-1] * x)
    lhs = np.stack(cols[:deg + 1], axis=1)
    rcond = x.shape[0] * np.finfo(x.dtype).eps if rcond is None else rcond
    scl = np.sqrt(np.square(lhs).sum(axis=0))
    scl = np.where(scl == 0, 1.0, scl)
    c = np.linalg.lstsq(lhs / scl, y, rcond=rcond)[0]
    return (c.T / scl).T


SERIES_CALLS = {P.polyval: polyval, P.polyder: polyder, P.polyfit: polyfit}
