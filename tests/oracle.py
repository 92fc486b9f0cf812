"""NumPy as the oracle: comparing jitcore's results with NumPy's, in ULPs for floats.

The ULP bounds for float math live here, in one table, so that every test uses the same ones.
"""

from __future__ import annotations

import numpy as np

# Largest allowed distance from NumPy's result, in units in the last place of the result dtype.
# Arithmetic, comparisons and conversions are exact; transcendentals come from jitcore's own
# vectorized math library (codegen/mathlib.py), whose accuracy is tested against NumPy there.
# Distances are from NumPy's own result: the largest seen (tools/parity_report.py, hypothesis,
# 360 000-value sweeps of each function) plus one; tests/codegen/test_mathlib.py bounds the
# library against the correctly rounded result. A (function, dtype) key overrides the function's.
ULP_BOUNDS = {
    "exact": 0,
    "sin": 2, "cos": 2, "tan": 3, "tanh": 2, "exp": 2, "log": 2, "sqrt": 0, "pow": 4,
    "exp2": 2, "expm1": 3, "log2": 3, "log10": 3, "log1p": 2, "cbrt": 4, "sinh": 3, "cosh": 3,
    "arcsin": 2, "arccos": 2, "arctan": 2, "arcsinh": 3, "arccosh": 3, "arctanh": 3,
    "arctan2": 2, "hypot": 2,
    # Near a zero result max(x, y) + log1p(exp(-|x - y|)) cancels, so these count the error in ULP
    # of the largest term, as tests/codegen/test_mathlib.py does (see _within_term_ulps).
    "logaddexp": 3, "logaddexp2": 3,
    # (function, dtype): where NumPy's own float32 SIMD loops are further from the correctly
    # rounded result than jitcore (within 1 ULP there), the two can be further apart than the
    # function's bound.
    ("exp", "float32"): 3,  # x = -0.3451603: NumPy 0.7081067, exact and jitcore 0.7081069
    ("log", "float32"): 4,  # x = 0.8050246: NumPy -0.21688245, exact and jitcore -0.21688241
    ("logaddexp", "float32"): 8, ("logaddexp2", "float32"): 8,  # NumPy: up to 7.7 term-ULP off
    # Complex functions, per part: glibc's cexp/csqrt (NumPy's) against exp, sin, cos, hypot and
    # sqrt of jitcore's math library (np.abs: NumPy's own SIMD formula, matched exactly).
    "complex exp": 4, "complex sqrt": 3, "complex absolute": 0,
    # np.sign: exact for real numbers; complex z / hypot(re, im) with glibc's hypot emulated
    # (measured 0 ULP). log: glibc's clog against jitcore's log, log1p and arctan2 (measured 3
    # ULP per part on the special-value grid plus 600 000 random values per dtype, log2 and
    # log10 4); log1p: NumPy's plain log(hypot(re + 1, im)), glibc's hypot emulated (measured 1).
    "sign": 0, "complex sign": 1, "complex log": 4, "complex log2": 5, "complex log10": 5,
    "complex log1p": 2,
    "complex exp2": 4,  # NumPy's cexp(z * ln 2), as complex exp (measured 3)
    # z ** w, non-integer exponents: glibc's cexp(w clog(z)), compared in ULP of the larger part
    # times the condition number 1 + |w log z| (see within_conditioned_ulps; measured 3.1);
    # real integer exponents below 100 in magnitude are bit for bit (NumPy's repeated squaring).
    "complex pow": 4,
}


def ulp_bound(key: str, dtype) -> int:
    """The bound for function ``key`` on results of ``dtype``: float16 results are 1 ULP, since
    NumPy and jitcore both compute them in float32 and round once."""
    dtype = np.dtype(dtype)
    bound = ULP_BOUNDS.get((key, dtype.name), ULP_BOUNDS[key])
    if dtype == np.float16 and bound:
        bound = 1
    return bound


FLOAT_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]


def ulp_distance(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Elementwise distance in ULPs between two float arrays of one dtype (NaN matches NaN)."""
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[actual.dtype.itemsize]
    magnitude = np.array((1 << (8 * actual.dtype.itemsize - 1)) - 1, dtype=bits)
    # Sign-magnitude bit patterns onto a monotonic line: -m for negative floats, +m otherwise.
    a_mag, e_mag = (x.view(bits) & magnitude for x in (actual, expected))
    a_neg, e_neg = np.signbit(actual), np.signbit(expected)
    same_side = a_neg == e_neg
    with np.errstate(over="ignore"):
        near = np.where(a_mag > e_mag, a_mag - e_mag, e_mag - a_mag).astype(np.float64)
    far = a_mag.astype(np.float64) + e_mag.astype(np.float64)
    dist = np.where(same_side, near, far)
    both_nan = np.isnan(actual) & np.isnan(expected)
    return np.where(both_nan, 0, dist)


def assert_matches(actual, expected, ulps: int = 0, context: str = "") -> None:
    """``actual`` (jitcore) equals ``expected`` (NumPy): dtype, shape, and every element;
    floats within ``ulps`` with NaN where NaN and the sign of zero kept."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    where = f" ({context})" if context else ""
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != NumPy's {expected.dtype}{where}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != NumPy's {expected.shape}{where}"
    if actual.dtype.kind == "c":  # each part as a float
        assert_matches(actual.real, expected.real, ulps, f"{context}, real part")
        assert_matches(actual.imag, expected.imag, ulps, f"{context}, imaginary part")
        return
    if actual.dtype.kind != "f":
        mismatch = actual != expected
        assert not mismatch.any(), (
            f"{mismatch.sum()} elements differ{where}: got {actual[mismatch][:5]}, "
            f"NumPy {expected[mismatch][:5]}"
        )
        return
    dist = ulp_distance(actual, expected)
    nan_mismatch = np.isnan(actual) != np.isnan(expected)
    zero_sign = (actual == 0) & (expected == 0) & (np.signbit(actual) != np.signbit(expected))
    bad = (dist > ulps) | nan_mismatch | zero_sign
    assert not bad.any(), (
        f"{bad.sum()} of {bad.size} elements beyond {ulps} ULP{where}: got {actual[bad][:5]}, "
        f"NumPy {expected[bad][:5]}, max distance {dist.max()}"
    )


def assert_close(actual, expected, rtol: float, context: str = "", atol: float | None = None) -> None:
    """For results whose rounding depends on summation order (float reductions): the error
    bound of a sum scales with the sum of magnitudes, which ``atol`` may carry."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, context
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol,
                               atol=rtol if atol is None else atol, equal_nan=True, err_msg=context)
