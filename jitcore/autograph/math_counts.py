"""``math.comb``, ``math.perm`` and ``math.factorial`` of traced ints (session 55, u2 R2).

An exact sign test sums ``math.comb(n, i)`` over ``i`` with ``n`` counted from the data; each
asked for ``n`` as a Python int, and the refusal read "needs a concrete value, but
1Traced<i64[]> is traced". Here each is a compiled loop of int64 steps, a Python int (a weak
int64) as Python's: ``comb`` by ``C(n, j) = C(n, j - 1) * (n - j + 1) / j``, each step divided
by a gcd first so that no intermediate is larger than the result; ``perm`` and ``factorial`` by
a running product. Python's ints have no limit and these grow fast: a result past int64 raises
``OverflowError`` from the call (``kernel.INT_OVERFLOW``), and the loop stops at that step, so
it runs at most a few dozen steps whatever ``n``. Negative arguments raise Python's ValueErrors.
"""

from __future__ import annotations

import math

import numpy as np

from jitcore import control_flow
from jitcore import primitives as prims
from jitcore.errors import JitTypeError
from jitcore.ir.dialects import kernel
from jitcore.tracer import Tracer, fresh, user_location

_I64 = np.dtype(np.int64)
_MAX = np.iinfo(np.int64).max
_N_NEGATIVE, _K_NEGATIVE, _FACTORIAL_NEGATIVE = (kernel.MATH_COUNTS + k for k in range(3))


def _int(name: str, v):
    """``v`` as an int64 (traced or a NumPy int): Python's TypeError for what has no
    ``__index__`` (a float, an array)."""
    if isinstance(v, Tracer):
        numpy_bool = v.dtype.kind == "b" and not v.weak
        if v.ndim or v.dtype.kind not in "biu" or numpy_bool:
            what = f"a {v.dtype} array" if v.ndim else f"a {v.dtype}"
            raise JitTypeError(
                f"math.{name}() takes Python ints, not {what} (at {user_location()}); "
                "int(v) makes a number one"
            )
        return prims.convert(v, _I64)
    return np.int64(v.__index__())


def _raise(bad, code: int) -> None:
    if isinstance(bad, Tracer):
        prims.raise_if(bad, code)


def _product(first, count):
    """``first * (first + 1) * ... `` over ``count`` factors (all positive), int64; the call's
    OverflowError past int64, the loop stopping there."""

    def more(state):
        j, _, over = state
        return (j < count) & np.logical_not(over)

    def step(state):
        j, r, _ = state
        factor = first + j
        over = r > _MAX // np.maximum(factor, 1)
        return j + 1, np.where(over, r, r * factor), over

    trace = prims.find_trace(first, count)
    one = prims.constant(trace, np.int64(1))
    zero = prims.constant(trace, np.int64(0))
    _, r, over = control_flow.while_loop(more, step, (zero, one, prims.constant(trace, np.False_)))
    prims.raise_if(over, kernel.INT_OVERFLOW)
    return r


def _comb_loop(n, k):
    """``C(n, k)`` for ``0 <= k <= n``, by ``k' = min(k, n - k)`` steps."""
    k = np.minimum(k, n - k)

    def more(state):
        j, _, over = state
        return (j <= k) & np.logical_not(over)

    def step(state):
        j, r, _ = state
        g = np.gcd(r, j)  # r * (n - j + 1) / j, exact: j // g divides n - j + 1
        a, b = r // g, (n - j + 1) // (j // g)
        over = a > _MAX // np.maximum(b, 1)
        return j + 1, np.where(over, r, a * b), over

    trace = prims.find_trace(n, k)
    one = prims.constant(trace, np.int64(1))
    _, r, over = control_flow.while_loop(more, step, (one, one, prims.constant(trace, np.False_)))
    prims.raise_if(over, kernel.INT_OVERFLOW)
    return r


def comb(n, k):
    if not isinstance(n, Tracer) and not isinstance(k, Tracer):
        return math.comb(n, k)
    n, k = _int("comb", n), _int("comb", k)
    _raise(n < 0, _N_NEGATIVE)
    _raise(k < 0, _K_NEGATIVE)
    inside = (k >= 0) & (k <= n)
    safe_n = np.where(inside, n, 0)
    out = np.where(inside, _comb_loop(safe_n, np.where(inside, k, 0)), 0)
    return fresh(prims.convert(out, _I64), scalar=True, weak=True)


def perm(n, k=None):
    if not isinstance(n, Tracer) and not isinstance(k, Tracer):
        return math.perm(n, k)
    if k is None:
        return factorial(n)
    n, k = _int("perm", n), _int("perm", k)
    _raise(n < 0, _N_NEGATIVE)
    _raise(k < 0, _K_NEGATIVE)
    inside = (k >= 0) & (k <= n)
    count = np.where(inside, k, 0)
    out = np.where(inside, _product(n - count + 1, count), 0)
    return fresh(prims.convert(out, _I64), scalar=True, weak=True)


def factorial(n):
    if not isinstance(n, Tracer):
        return math.factorial(n)
    n = _int("factorial", n)
    _raise(n < 0, _FACTORIAL_NEGATIVE)
    count = np.maximum(n, 0)
    return fresh(prims.convert(_product(np.int64(1), count), _I64), scalar=True, weak=True)


MATH_COUNT_CALLS = {math.comb: comb, math.perm: perm, math.factorial: factorial}
