"""NumPy as the oracle: comparing jitcore's results with NumPy's, in ULPs for floats.

The ULP bounds for float math live here, in one table, so that every test uses the same ones.
"""

from __future__ import annotations

import numpy as np

# Largest allowed distance from NumPy's result, in units in the last place of the result dtype.
# Arithmetic, comparisons and conversions are exact; transcendentals come from jitcore's own
# vectorized math library (codegen/mathlib.py), whose accuracy is tested against NumPy there.
ULP_BOUNDS = {
    "exact": 0,
    "sin": 2, "cos": 2, "tan": 3, "tanh": 2, "exp": 2, "log": 2, "sqrt": 0, "pow": 4,
}

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
