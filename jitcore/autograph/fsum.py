"""``math.fsum`` of traced numbers: CPython's exactly rounded sum, compiled.

CPython keeps Shewchuk's partials, non-overlapping floats whose exact sum is the running sum,
and rounds them to one float at the end (half-even across partials). Here the same steps run
in a compiled loop over the items with the partials in a float64 array of ``CAPACITY``, with
CPython's errors raised by the call: ``OverflowError('intermediate overflow in fsum')``,
``ValueError('-inf + inf in fsum')``; an infinity or NaN among the items is the sum of those,
as CPython's. Partials past ``CAPACITY`` (which needs items spread over far more than the
float64 range's worth of distinct bits, each adding a partial) raise instead of rounding.
"""

from __future__ import annotations

import numpy as np

from jitcore import control_flow as cf
from jitcore.errors import JitTypeError
from jitcore.ir.dialects import kernel
from jitcore.numpy.everyday import raise_at_first
from jitcore.primitives import as_tracer
from jitcore.tracer import Tracer, fresh, user_location

CAPACITY = kernel.FSUM_CAPACITY


def _add(trace, item, state):
    """CPython's ``msum`` step: ``item`` into the partials."""
    p, n, special, inf_sum, overflow, full = state
    positions = np.arange(CAPACITY)

    def partial(j, carry):
        p, i, x = carry
        y = p[j]
        swap = np.abs(x) < np.abs(y)
        big, small = np.where(swap, y, x), np.where(swap, x, y)
        hi = big + small
        lo = small - (hi - big)
        kept = lo != 0
        return np.where(np.logical_and(positions == i, kept), lo, p), i + kept.astype(np.int64), hi

    p, n, x = cf.fori_loop(0, n, partial, (p, as_tracer(trace, 0, np.int64), item))
    finite, given_finite = np.isfinite(x), np.isfinite(item)
    nonzero = x != 0
    bad = np.logical_and(nonzero, np.logical_not(finite))
    overflow = np.logical_or(overflow, np.logical_and(bad, given_finite))
    special_item = np.logical_and(bad, np.logical_not(given_finite))
    inf_sum = np.where(np.logical_and(special_item, np.isinf(item)), inf_sum + item, inf_sum)
    special = np.where(special_item, special + item, special)
    stored = np.logical_and(nonzero, finite)
    p = np.where(np.logical_and(positions == n, stored), x, p)
    full = np.logical_or(full, np.logical_and(stored, n >= CAPACITY))  # x had no room: lost
    n = np.where(special_item, 0, np.minimum(n + stored.astype(np.int64), CAPACITY))
    return p, n, special, inf_sum, overflow, full


def _rounded(trace, p, n):
    """CPython's end of ``fsum``: the partials from the top while the sum stays exact, then the
    half-even correction across the partial below."""
    top = np.maximum(n - 1, 0)
    hi = np.where(n > 0, p[top], 0.0)

    def more(carry):
        hi, k, lo, done = carry
        return np.logical_and(k > 0, np.logical_not(done))

    def step(carry):
        x, k, _, _ = carry
        k = k - 1
        y = p[k]
        hi = x + y
        lo = y - (hi - x)
        return hi, k, lo, lo != 0

    hi, k, lo, _ = cf.while_loop(more, step, (hi, top, as_tracer(trace, 0.0, np.float64),
                                               as_tracer(trace, False, np.bool_)))
    below = p[np.maximum(k - 1, 0)]
    same_sign = np.logical_or(np.logical_and(lo < 0, below < 0), np.logical_and(lo > 0, below > 0))
    y = lo * 2.0
    x = hi + y
    return np.where(np.logical_and(np.logical_and(k > 0, same_sign), y == x - hi), x, hi)


def traced_fsum(values) -> Tracer:
    """``math.fsum(values)`` for a 1-d traced array or a list of numbers some traced."""
    if isinstance(values, Tracer):
        if values.ndim != 1:
            raise JitTypeError(f"math.fsum of a traced array of shape {values.shape}: its items "
                               f"must be numbers, as Python's (at {user_location()})")
        items = values
    else:
        if any(np.ndim(v) for v in values):
            raise JitTypeError(f"math.fsum of arrays: its items must be numbers (at {user_location()})")
        trace = next(v for v in values if isinstance(v, Tracer)).owner_trace
        items = np.stack([as_tracer(trace, v, v.dtype if isinstance(v, Tracer) else np.float64)
                          .astype(np.float64) for v in values]) if values else None
    if items.dtype.kind == "c":
        raise JitTypeError(f"must be real number, not complex (math.fsum at {user_location()})")
    items = items.astype(np.float64)
    trace = items.owner_trace
    zero = as_tracer(trace, 0.0, np.float64)
    state = (as_tracer(trace, np.zeros(CAPACITY), np.float64), as_tracer(trace, 0, np.int64),
             zero, zero, as_tracer(trace, False, np.bool_), as_tracer(trace, False, np.bool_))
    p, n, special, inf_sum, overflow, full = cf.fori_loop(
        0, items.shape[0], lambda i, s: _add(trace, items[i], s), state)
    raise_at_first(overflow, special, kernel.FSUM_OVERFLOW)
    raise_at_first(full, special, kernel.FSUM_FULL)
    has_special = special != 0
    raise_at_first(np.logical_and(has_special, np.isnan(inf_sum)), special, kernel.FSUM_INF_MINUS_INF)
    total = np.where(has_special, special, _rounded(trace, p, n))
    return fresh(total, scalar=True, weak=True)  # a Python float
