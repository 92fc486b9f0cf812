"""Rows of the coverage table: float math (exp, log, trigonometry, rounding, classification, clip)."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import ulp
from tests.coverage.generators import g_binary, g_ternary, g_unary
from tests.coverage.harness import Case, case_adder, ufunc_case

CASES: list[Case] = []
case = case_adder(CASES)


def _u(name, group, gen, **kw):
    return ufunc_case(case, name, group, gen, **kw)


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


# The everyday float helpers (issue 12): built from the ops above at NumPy's own arithmetic.
for _name in ("signbit", "deg2rad", "rad2deg", "degrees", "radians"):
    _u(_name, "float math", g_unary())
_u("copysign", "float math", g_binary())


def g_round(draw, family):
    decimals = draw.choice([0, 0, 1, 2, 3, -1, -2])
    # Integers with decimals < 0 go through float64 and back: near the dtype's limits the result
    # overflows it, and that float-to-int cast is undefined (platform-dependent) in NumPy.
    domain = "small" if decimals < 0 and family in ("signed", "unsigned") else "any"
    (x,), _ = g_unary(domain)(draw, family)
    return (x,), {"decimals": decimals}


case("np.round(x, decimals)", "float math", lambda x, decimals: np.round(x, decimals), g_round)
case("np.around(x, decimals)", "float math", lambda x, decimals: np.around(x, decimals), g_round)


def g_nan_to_num(draw, family):
    (x,), _ = g_unary()(draw, family)
    return (x,), {"nan": draw.choice([0.0, 1.5, -7]), "posinf": draw.choice([None, 1e3, -2]),
                  "neginf": draw.choice([None, -1e3, 4])}


case("np.nan_to_num(x, nan, posinf, neginf)", "float math",
     lambda x, **k: np.nan_to_num(x, **k), g_nan_to_num)


def g_close(draw, family):
    (x, y), _ = g_binary()(draw, family)
    return (x, y), {"rtol": draw.choice([1e-5, 0.1, 0.0]), "atol": draw.choice([1e-8, 0.0, 1.0]),
                    "equal_nan": draw.choice([False, True])}


case("np.isclose(x, y, rtol, atol, equal_nan)", "float math", lambda x, y, **k: np.isclose(x, y, **k),
     g_close)
case("np.allclose(x, y, rtol, atol, equal_nan)", "float math",
     lambda x, y, **k: np.allclose(x, y, **k), g_close)


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.logaddexp2(x, y)": "float32: NumPy is up to 2 ULP (of the larger term) off; jitcore within 1",
    "np.sin(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.cos(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.tan(x)": "|x| beyond 2**17 (f32), 2**43 (f64): the kernel is recomputed with libm",
    "np.exp(x)": "float32 up to 3 ULP from NumPy, whose own float32 exp is 2 ULP off",
    "np.log(x)": "float32 up to 4 ULP from NumPy, whose own float32 log is 3 ULP off",
    "np.logaddexp(x, y)": "float32: NumPy is up to 8 ULP (of the larger term) off; jitcore within 1",
    "np.round(x, decimals)": "NumPy's rint(x * 10**d) / 10**d (d < 0: rint(x / 10**-d) * 10**-d); "
                             "integers with d < 0 through float64, as NumPy (drawn away from the "
                             "dtype's limits, where the cast back is undefined); complex part by part",
    "np.allclose(x, y, rtol, atol, equal_nan)": "under jit a NumPy bool (0-d), not a Python bool",
}
