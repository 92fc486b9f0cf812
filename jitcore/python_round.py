"""Python's ``round(x, ndigits)`` of a Python float argument or number, traced: the exact
decimal value of ``x`` rounded half to even, as CPython's correctly rounded ``round`` (not
NumPy's scaled ``rint``). Written with NumPy's functions, which a traced value dispatches to
jitcore (``Tracer.__round__`` calls it)."""

from __future__ import annotations

import numpy as np


def _exact_product(a, b):
    """``(p, e)`` with ``p = fl(a * b)`` and ``a * b = p + e`` exactly (Dekker's product, by
    Veltkamp's split; no FMA: the same bits on every CPU), for ``|a|, |b|`` far below overflow."""
    def split(v):
        c = 134217729.0 * v  # 2**27 + 1
        high = c - (c - v)
        return high, v - high
    p = a * b
    (ah, al), (bh, bl) = split(a), split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def python_round(x, ndigits: int):
    """Python's ``round(x, ndigits)`` of a float: the exact decimal value of ``x`` rounded half
    to even, not NumPy's scaled rint (``round(0.0025, 3)`` is 0.003 in Python: the double lies
    above the half, 0.002 in NumPy: ``0.0025 * 1000`` rounds to 2.5). ``x`` times (or over)
    ``10**|ndigits|`` (exact up to 22) is exact as a value plus its error; a tie of the rounded
    value is broken by that error's sign, and the integer scaled back correctly rounded."""
    scale = 10.0 ** abs(ndigits)
    big = 2.0 ** 53  # from here on x is its own rounding (it moves less than a quarter ulp)
    if ndigits >= 0:
        scaled = x * scale
        small = np.where(np.abs(scaled) < big, x, 0.0)  # (no overflow in the split)
        p, error = _exact_product(small, scale)
    else:
        scaled = x / scale
        small = np.where(np.abs(scaled) < big, scaled, 0.0)
        p, e = _exact_product(small, scale)
        error = (np.where(np.abs(scaled) < big, x, 0.0) - p) - e  # x - q * scale: its sign
    whole = np.rint(scaled)
    tie = np.abs(scaled - whole) == 0.5
    whole = np.where(tie & (error > 0), np.floor(scaled) + 1.0, whole)
    whole = np.where(tie & (error < 0), np.floor(scaled), whole)
    # from 2**52 the scaled value is whole and its error may be a half: a tie, to even
    half = np.abs(error) == (0.5 if ndigits >= 0 else 0.5 * scale)
    whole = np.where(half & (np.fmod(whole, 2.0) != 0), whole + np.sign(error), whole)
    back = whole / scale if ndigits >= 0 else whole * scale
    return np.where(np.abs(scaled) < big, np.copysign(back, x), x)
