"""Rows of the coverage table: sorting (``sort``, ``argsort``, ``searchsorted``) and the order
statistics and interpolation built on it (``median``, ``quantile``, ``percentile``, ``interp``).

jitcore sorts stably for every ``kind``; NumPy's default kind documents no tie order (and
-0.0 and 0.0 tie), so the oracle sorts with ``kind='stable'``."""

from __future__ import annotations

import numpy as np

from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)

SORT_SHAPES = [(), (0,), (1,), (7,), (67,), (2, 3), (3, 0), (2, 3, 4)]
STAT_SHAPES = [(1,), (2,), (7,), (67,), (2, 3), (3, 1, 4)]
NOTES = {
    "np.sort(x, axis)": "stable for every kind (CPU: lanes up to 8192 by a sorting network over "
                        "groups of lanes, longer ones by radix sorts); complex numbers in NumPy's "
                        "order by three stable argsorts (imaginary part, real part, NaN class)",
    "np.argsort(x, axis)": "stable for every kind: ties keep their input order",
    "np.quantile(x, q, axis, method, keepdims)": "every method of NumPy's; a traced q is checked "
                                                 "(ValueError) when the call runs",
}


def _axis(draw, ndim: int):
    return None if ndim == 0 or draw.integer(0, 3) == 0 else draw.integer(-ndim, ndim - 1)


def g_sort(draw, family):
    x = draw.array(draw.dtype(family), draw.shape(SORT_SHAPES))
    return (x,), {"axis": _axis(draw, x.ndim)}


def g_stat(draw, family):
    x = draw.array(draw.dtype(family), draw.shape(STAT_SHAPES))
    params = {"axis": _axis(draw, x.ndim), "keepdims": draw.choice([False, True])}
    return (x,), params


def g_quantile(draw, family):
    (x,), params = g_stat(draw, family)
    q = draw.choice([0.0, 0.25, 0.5, 0.9, 1.0, (0.1, 0.5), (1.0, 0.0, 0.75)])
    method = draw.choice(["linear", "linear", "lower", "higher", "nearest", "midpoint"])
    return (x,), {**params, "q": q, "method": method}


def g_search(draw, family):
    dtype = draw.dtype(family)
    a = np.sort(draw.array(dtype, (draw.integer(1, 12),)), kind="stable")
    v = draw.array(dtype, draw.shape([(), (5,), (2, 3)]))
    return (a, v), {"side": draw.choice(["left", "right"])}


def g_interp(draw, family):
    dtype = draw.dtype(family)
    x = draw.array(dtype, draw.shape(SORT_SHAPES))
    xp = np.unique(draw.array(dtype, (draw.integer(1, 9),), "finite"))
    fp = draw.array(dtype, xp.shape, "finite")
    return (x, xp, fp), {}


case("np.sort(x, axis)", "sorting", lambda x, axis: np.sort(x, axis=axis), g_sort,
     ref=lambda x, axis: np.sort(x, axis=axis, kind="stable"))
case("np.argsort(x, axis)", "sorting", lambda x, axis: np.argsort(x, axis=axis), g_sort,
     ref=lambda x, axis: np.argsort(x, axis=axis, kind="stable"))
case("np.searchsorted(a, v, side)", "sorting", lambda a, v, side: np.searchsorted(a, v, side=side),
     g_search, unsupported=("complex",))
case("np.median(x, axis, keepdims)", "sorting", lambda x, **k: np.median(x, **k), g_stat,
     unsupported=("complex",))
case("np.quantile(x, q, axis, method, keepdims)", "sorting",
     lambda x, q, **k: np.quantile(x, list(q) if isinstance(q, tuple) else q, **k), g_quantile)
case("np.percentile(x, q, axis, method, keepdims)", "sorting",
     lambda x, q, **k: np.percentile(x, [100 * v for v in q] if isinstance(q, tuple) else 100 * q, **k),
     g_quantile)
case("np.interp(x, xp, fp)", "sorting", lambda x, xp, fp: np.interp(x, xp, fp), g_interp)
