"""Rows of the coverage table: float math (exp, log, trigonometry, rounding, classification, clip)."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import ulp
from tests.coverage.generators import g_binary, g_ternary, g_unary
from tests.coverage.harness import Case, case_adder, ufunc_case

CASES: list[Case] = []
case = case_adder(CASES)

# Complex numbers: the float math not lowered yet (NumPy accepts complex there).
COMPLEX_NOT_LOWERED = ("expm1", "sin", "cos", "tan", "arcsin",
                       "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh")


def _u(name, group, gen, **kw):
    unsupported = ("complex",) if name in COMPLEX_NOT_LOWERED else ()
    return ufunc_case(case, name, group, gen, unsupported=unsupported, **kw)


for _name in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
              "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
              "arctanh"):
    _u(_name, "float math", g_unary(), tol=ulp(_name))
for _name in ("arctan2", "hypot", "logaddexp"):
    _u(_name, "float math", g_binary(), tol=ulp(_name))
_u("logaddexp2", "float math", g_binary(), tol=ulp("logaddexp2"))
for _name in ("floor", "ceil", "trunc", "rint", "isnan", "isinf", "isfinite"):
    _u(_name, "float math", g_unary())
case("np.clip(x, lo, hi)", "float math", lambda x, lo, hi: np.clip(x, lo, hi), g_ternary)


def g_clip_scalar(draw, family):
    (x,), _ = g_unary()(draw, family)
    lo, hi = draw.choice([(0, 5), (-3, 3), (None, 1), (1, None), (2.5, 7.5), (True, True)])
    return (x,), {"lo": lo, "hi": hi}


case("np.clip(x, 0, 5) (scalar bounds)", "float math", lambda x, lo, hi: np.clip(x, lo, hi),
     g_clip_scalar)


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.logaddexp2(x, y)": "float32: NumPy is up to 2 ULP (of the larger term) off; jitcore within 1",
    "np.sin(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.cos(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.tan(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.exp(x)": "float32 up to 3 ULP from NumPy, whose own float32 exp is 2 ULP off",
    "np.log(x)": "float32 up to 4 ULP from NumPy, whose own float32 log is 3 ULP off",
    "np.logaddexp(x, y)": "float32: NumPy is up to 8 ULP (of the larger term) off; jitcore within 1",
}
