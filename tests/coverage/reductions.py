"""Rows of the coverage table: reductions, scans and ``ufunc.reduce`` / ``ufunc.accumulate``."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import EXACT, MEAN_TOL, PROD_TOL, STD_TOL, SUM_TOL, VAR_TOL, Tol
from tests.coverage.generators import REDUCTION_SHAPES, axis_param
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)


def g_reduce(domain="any", ddof=False, tuple_axis=True, keepdims=True, none_axis=True):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(REDUCTION_SHAPES), domain)
        params = {"axis": axis_param(draw, x.ndim, tuple_axis, none_axis)}
        if keepdims:
            params["keepdims"] = draw.choice([False, True])
        if ddof:
            params["ddof"] = draw.choice([0, 1, 2])
        return (x,), params
    return gen


def _float_domain(gen_small, gen_any):
    """Float and complex reductions draw |x| <= 100 (where a sum overflows depends on its order);
    integer ones draw anything (they wrap identically in any order; a mean, var or std is
    computed in float64 by both, within its order bound)."""
    def gen(draw, family):
        return (gen_small if family in ("float", "complex") else gen_any)(draw, family)
    return gen


case("np.sum(x, axis, keepdims)", "reduction", lambda x, **k: np.sum(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=SUM_TOL)
case("np.prod(x, axis, keepdims)", "reduction", lambda x, **k: np.prod(x, **k),
     _float_domain(g_reduce("prod"), g_reduce()), tol=PROD_TOL)
case("np.mean(x, axis, keepdims)", "reduction", lambda x, **k: np.mean(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)


case("np.var(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.var(x, **k),
     _float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True)), tol=VAR_TOL)
case("np.std(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.std(x, **k),
     _float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True)), tol=STD_TOL)
case("np.min(x, axis, keepdims)", "reduction", lambda x, **k: np.min(x, **k), g_reduce())
case("np.max(x, axis, keepdims)", "reduction", lambda x, **k: np.max(x, **k), g_reduce())
case("np.any(x, axis, keepdims)", "reduction", lambda x, **k: np.any(x, **k), g_reduce())
case("np.all(x, axis, keepdims)", "reduction", lambda x, **k: np.all(x, **k), g_reduce())
case("np.argmin(x, axis, keepdims)", "reduction", lambda x, **k: np.argmin(x, **k),
     g_reduce(tuple_axis=False))
case("np.argmax(x, axis, keepdims)", "reduction", lambda x, **k: np.argmax(x, **k),
     g_reduce(tuple_axis=False))
# Scans add (multiply) one element after another along the axis, in NumPy as in jitcore (float16
# rounding every step in both): bit for bit. But complex products: NumPy's scan multiplies in its
# plain loop, its elementwise multiply (and jitcore) through fma, 1 ULP apart.
case("np.cumsum(x, axis)", "reduction", lambda x, **k: np.cumsum(x, **k),
     _float_domain(g_reduce("small", tuple_axis=False, keepdims=False),
                   g_reduce(tuple_axis=False, keepdims=False)))
case("np.cumprod(x, axis)", "reduction", lambda x, **k: np.cumprod(x, **k),
     _float_domain(g_reduce("prod", tuple_axis=False, keepdims=False),
                   g_reduce(tuple_axis=False, keepdims=False)),
     tol=Tol(complex=Tol("order", "prod", count="all")))
case("x.sum(), x.any(axis), x.mean() (methods)", "reduction",
     lambda x, axis, keepdims: (x.sum(axis=axis, keepdims=keepdims), x.any(axis=axis),
                                x.mean(axis=axis)),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)  # the mean's bound covers the sum's


for _name, _tol, _dom in (("add", SUM_TOL, "small"), ("multiply", PROD_TOL, "prod"),
                          ("maximum", EXACT, "any"), ("minimum", EXACT, "any"),
                          ("logical_and", EXACT, "any"), ("logical_or", EXACT, "any")):
    case(f"np.{_name}.reduce(x, axis, keepdims)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).reduce(x, **k),
         _float_domain(g_reduce(_dom), g_reduce()), tol=_tol)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    case(f"np.{_name}.reduce(x, axis, keepdims)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).reduce(x, **k), g_reduce())
case("np.add.accumulate(x, axis)", "ufunc.reduce", lambda x, **k: np.add.accumulate(x, **k),
     _float_domain(g_reduce("small", tuple_axis=False, keepdims=False, none_axis=False),
                   g_reduce(tuple_axis=False, keepdims=False, none_axis=False)))  # a scan: exact


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.sum(x, axis, keepdims)": "float summation order is not NumPy's (see below); float16 in float32 "
                                 "(NumPy: in float16 along other than the innermost axis); "
                                 "no out=/where=/initial=",
    "np.prod(x, axis, keepdims)": "float product order is not NumPy's; float16 in float32; "
                                  "no out=/where=/initial=",
    "np.mean(x, axis, keepdims)": "float16 accumulates in float32, as in NumPy",
    "np.var(x, axis, keepdims, ddof)": "float16 computed in float32 (NumPy: in float16, which can overflow)",
    "np.std(x, axis, keepdims, ddof)": "float16 computed in float32 (NumPy: in float16, which can overflow)",
    "np.min(x, axis, keepdims)": "no initial=/where=",
    "np.max(x, axis, keepdims)": "no initial=/where=",
    "np.add.accumulate(x, axis)": "accumulate: add and multiply (others: UnsupportedError)",
}
