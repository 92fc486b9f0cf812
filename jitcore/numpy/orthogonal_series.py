"""``numpy.polynomial``'s other bases of traced data: ``chebval``, ``legval``, ``hermval``,
``hermeval`` and ``lagval`` (Clenshaw's recurrence, each written as NumPy writes it: the same
steps in the same order, so the same bits), and a series object (``Polynomial``,
``Chebyshev``, ... made outside the function or inside it from Python numbers) called on traced
points: NumPy's map from its domain to its window, then its basis's function.

NumPy's own functions turn ``c`` into a NumPy array, which a traced value cannot become; with
NumPy coefficients and traced points they run as they are, and do here. Converted code calls
these in NumPy's place (``autograph/expressions.py``); nothing traced, NumPy's own run. A series
object of traced coefficients (``Polynomial(c)``, ``Polynomial.fit``) stays refused: NumPy's
classes keep their coefficients as NumPy arrays.
"""

from __future__ import annotations

import numpy as np
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre
from numpy.polynomial import polynomial as P
from numpy.polynomial import polyutils as pu
from numpy.polynomial._polybase import ABCPolyBase

from jitcore import primitives as prims
from jitcore.numpy.power_series import polyval, series
from jitcore.tracer import Tracer


def _prepared(x, c, tensor):
    """NumPy's start of every ``*val``: ``c`` a float series (ints as float64), a list ``x`` an
    array, and ``c`` given ``x``'s dimensions after its first when ``tensor``."""
    c = series(c)
    if isinstance(x, (tuple, list)):
        x = np.asarray(x)
    if isinstance(x, (np.ndarray, Tracer)) and tensor:
        c = np.reshape(c, c.shape + (1,) * np.ndim(x))
    return x, c


def _ends(c):
    """The recurrence's last two terms, as NumPy starts them (one coefficient: ``c1 = 0``)."""
    return (c[0], 0) if c.shape[0] == 1 else (c[-2], c[-1])


def chebval(x, c, tensor=True):
    if not prims.holds_tracer((x, c)):
        return chebyshev.chebval(x, c, tensor)
    x, c = _prepared(x, c, tensor)
    c0, c1 = _ends(c)
    if c.shape[0] > 2:
        x2 = 2 * x
        for i in range(3, c.shape[0] + 1):
            c0, c1 = c[-i] - c1, c0 + c1 * x2
    return c0 + c1 * x


def legval(x, c, tensor=True):
    if not prims.holds_tracer((x, c)):
        return legendre.legval(x, c, tensor)
    x, c = _prepared(x, c, tensor)
    c0, c1 = _ends(c)
    nd = c.shape[0]
    for i in range(3, c.shape[0] + 1):
        nd = nd - 1
        c0, c1 = c[-i] - c1 * ((nd - 1) / nd), c0 + c1 * x * ((2 * nd - 1) / nd)
    return c0 + c1 * x


def hermval(x, c, tensor=True):
    if not prims.holds_tracer((x, c)):
        return hermite.hermval(x, c, tensor)
    x, c = _prepared(x, c, tensor)
    x2 = x * 2
    c0, c1 = _ends(c)
    nd = c.shape[0]
    for i in range(3, c.shape[0] + 1):
        nd = nd - 1
        c0, c1 = c[-i] - c1 * (2 * (nd - 1)), c0 + c1 * x2
    return c0 + c1 * x2


def hermeval(x, c, tensor=True):
    if not prims.holds_tracer((x, c)):
        return hermite_e.hermeval(x, c, tensor)
    x, c = _prepared(x, c, tensor)
    c0, c1 = _ends(c)
    nd = c.shape[0]
    for i in range(3, c.shape[0] + 1):
        nd = nd - 1
        c0, c1 = c[-i] - c1 * (nd - 1), c0 + c1 * x
    return c0 + c1 * x


def lagval(x, c, tensor=True):
    if not prims.holds_tracer((x, c)):
        return laguerre.lagval(x, c, tensor)
    x, c = _prepared(x, c, tensor)
    c0, c1 = _ends(c)
    nd = c.shape[0]
    for i in range(3, c.shape[0] + 1):
        nd = nd - 1
        c0, c1 = c[-i] - (c1 * (nd - 1)) / nd, c0 + (c1 * ((2 * nd - 1) - x)) / nd
    return c0 + c1 * (1 - x)


def call_series(p: ABCPolyBase):
    """What converted code calls for ``p(x)``, ``p`` a NumPy series object: ``mapdomain`` (its
    offset and scale from NumPy) then the basis's function, each of traced points here."""

    def evaluate(x):
        if not prims.holds_tracer(x):
            return p(x)
        off, scl = pu.mapparms(p.domain, p.window)
        return VALUES.get(p._val, p._val)(off + scl * x, p.coef)

    return evaluate


VALUES = {P.polyval: polyval, chebyshev.chebval: chebval, legendre.legval: legval,
          hermite.hermval: hermval, hermite_e.hermeval: hermeval, laguerre.lagval: lagval}
BASIS_CALLS = {f: mine for f, mine in VALUES.items() if f is not P.polyval}  # polyval: power_series
