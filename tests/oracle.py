"""NumPy as the oracle: comparing jitcore's results with NumPy's, in ULPs for floats.

Every float tolerance lives here, in two tables, each entry with the reason for its value:
``ULP_BOUNDS`` for elementwise math (a distance in units in the last place of the result) and
``ORDER_BOUNDS`` for results whose rounding depends on the order of operations (sums, means,
variances, products, contractions), which are bounded by a forward error model instead.
tests/test_tolerances.py feeds each of them a known-wrong answer and checks it is rejected.
(``assert_close`` takes an ``rtol`` from its caller: kept for the older tests that use it.)
"""

from __future__ import annotations

from dataclasses import dataclass

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
    "sinc": 3,  # sin(y) / y: sin's 2 ULP and the division's rounding
    # Near a zero result max(x, y) + log1p(exp(-|x - y|)) cancels, so these count the error in ULP
    # of the largest term, as tests/codegen/test_mathlib.py does (see _within_term_ulps).
    "logaddexp": 3, "logaddexp2": 3,
    # (function, dtype): where NumPy's own float32 SIMD loops are further from the correctly
    # rounded result than jitcore (within 1 ULP there), the two can be further apart than the
    # function's bound.
    ("exp", "float32"): 3,  # x = -0.3451603: NumPy 0.7081067, exact and jitcore 0.7081069
    ("log", "float32"): 4,  # x = 0.8050246: NumPy -0.21688245, exact and jitcore -0.21688241
    # x = 0.5090852: NumPy 0.53412175, exact and jitcore 0.5341216 (NumPy up to 3 ULP off over
    # 2 million values in [-1, 1]; found by the thorough hypothesis profile)
    ("arcsin", "float32"): 4,
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
    # sin, cos, sinh, cosh, tan, tanh, their inverses: glibc's csinh, ccosh, ctanh, casinh,
    # cacos, catanh (NumPy's) against jitcore's (passes/kernelize/complex_functions.py: float64
    # sin, cos, sinh, cosh, exp for the forward ones, Hull et al.'s algorithm for the inverses;
    # complex64 in float64, rounded once). Measured on the special-value grid plus 100 000
    # random values per dtype (test_complex.py): forward 3, tan and tanh 7 (the quotient's
    # three rounded factors against glibc's), inverses 5.
    "complex sinc": 8,  # complex sin's 4 ULP and a division's few, of the modulus
    "complex sin": 4, "complex cos": 4, "complex sinh": 4, "complex cosh": 4,
    "complex tan": 8, "complex tanh": 8,
    "complex arcsin": 6, "complex arccos": 6, "complex arctan": 6,
    "complex arcsinh": 6, "complex arccosh": 6, "complex arctanh": 6,
    # NumPy's expm1(re) cos(im) - 2 sin(im / 2)**2 cancels where the two terms meet: the real
    # part in ULP of the larger term (see within_term_ulps), the imaginary part as exp's.
    "complex expm1": 4,
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
    bound of a sum scales with the sum of magnitudes, which ``atol`` may carry. The caller picks
    ``rtol``; new tests should take their bound from ``ORDER_BOUNDS`` (``order_bound`` and
    ``assert_within``), where each bound has its error model and its reason."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, context
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64), rtol=rtol,
                               atol=rtol if atol is None else atol, equal_nan=True, err_msg=context)


# -- results whose rounding depends on the order of operations ------------------------------------
# jitcore sums, multiplies and contracts in another order than NumPy (vector partial sums against
# NumPy's pairwise blocks or BLAS), so the two agree only within the forward error bound of the
# operation. For a result of n terms, with u the unit roundoff (eps / 2) of the dtype the terms are
# accumulated in, each side is within the bound below of the exact result, so the two are within
# twice that of each other; one ULP of the result is added for the final rounding (float16: both
# accumulate in float32, then round once: the two roundings of nearby float32 values land at most
# one float16 ULP apart; float16 sums, products, means and variances follow NumPy's own float16
# loops and are compared with NumPy's answer, tests/coverage/harness._float16_expected).
# n and the magnitude S are per result element: S is the same operation applied to |x| (the sum
# of |x_i|, the mean of |x_i|, the product of |x_i|, the contraction of |a| and |b|).


@dataclass(frozen=True)
class OrderBound:
    """One tolerance of ``ORDER_BOUNDS``: ``per_side`` is the error bound of one side, in the
    notation above; ``zero_sign``: whether a zero result's sign is compared too (``complex_zero_sign``:
    in a part of a complex result)."""

    per_side: str
    reason: str
    zero_sign: bool = True
    complex_zero_sign: bool = True


ORDER_BOUNDS = {
    "sum": OrderBound(
        "n u S", "any summation order (recursive, pairwise, blocked) of n terms is within "
        "gamma_(n-1) <= n u of sum|x_i| (Higham, Accuracy and Stability, 4.2); complex: each part"),
    "mean": OrderBound(
        "n u mean|x|", "the sum's bound divided by n, plus the rounding of the division"),
    "prod": OrderBound(
        "n u |P| + n ss prod(max(1, |x_i|))",
        "n - 1 roundings of a product each change it by a relative u; a partial product that "
        "underflows is off by at most ss (the smallest subnormal), which later factors can grow "
        "by at most their magnitude. The sign of a zero part of a complex product is not "
        "compared: it depends on whether the product goes through fma (NumPy's SIMD loop, "
        "jitcore) or not (NumPy's plain loop, which its scans use)", complex_zero_sign=False),
    "dot": OrderBound(
        "(n + 2) u sum|a_i||b_i| + n ss",
        "an inner product of n terms is within gamma_n of sum|a_i||b_i| (Higham 3.1); +2 for the "
        "roundings of a complex product; products that underflow lose up to ss each. The sign "
        "of a zero is not compared: NumPy's own paths differ (np.dot([-0.0], [1.0]) is -0.0 "
        "through BLAS, np.matmul's is 0.0)", zero_sign=False, complex_zero_sign=False),
    "var": OrderBound(
        "(n + 3) u v + (n^3 + 4 n^2) u^2 M^2 / (n - ddof) + n ss",
        "two passes (mean, then squared deviations): the sum of n nonnegative squares is within "
        "n u of v (the variance), rounding each deviation and square adds 3 u, and the error "
        "d <= n u M of the mean (M = mean|x|) enters squared (the deviations sum to zero), "
        "with the rounding of each deviation adding the 4 n^2 term"),
    "std": OrderBound(
        "min(sqrt(B), B / std) + 1 ULP, B the var bound at v = std^2",
        "std = sqrt(var): |sqrt(a) - sqrt(b)| <= |a - b| / sqrt(b) and <= sqrt(|a - b|), plus "
        "the rounding of each square root"),
}


def unit_roundoff(dtype) -> float:
    """u = eps / 2 of the dtype a float result (or a complex result's parts) accumulates in:
    float32 for float16, which both NumPy and jitcore compute in float32 and round once."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        dtype = np.dtype(dtype.char.lower())
    if dtype == np.float16:
        dtype = np.dtype(np.float32)
    return float(np.finfo(dtype).eps) / 2


def _smallest_subnormal(dtype) -> float:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        dtype = np.dtype(dtype.char.lower())
    return float(np.finfo(np.float32 if dtype == np.float16 else dtype).smallest_subnormal)


def order_bound(key: str, dtype, n, magnitude, *, mean_abs=None, ddof=0, growth=1.0, expected=None):
    """The largest allowed |jitcore - NumPy| (float64, per result element) for ``ORDER_BOUNDS[key]``.

    ``n``: terms per result element; ``magnitude``: S, the operation applied to |x| (for var and
    std: NumPy's result itself); ``mean_abs``: M (var, std); ``growth``: prod(max(1, |x_i|))
    (prod); ``expected``: NumPy's result, whose ULP is added for the final rounding."""
    u, ss = unit_roundoff(dtype), _smallest_subnormal(dtype)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        s = np.abs(np.asarray(magnitude, dtype=np.float64))
        if key == "sum":
            side = n * u * s
        elif key == "mean":
            side = (n + 1) * u * s
        elif key == "prod":
            side = n * u * s + n * ss * np.asarray(growth, dtype=np.float64)
        elif key == "dot":
            side = (n + 2) * u * s + n * ss
        elif key in ("var", "std"):
            v = s if key == "var" else s * s
            m = np.asarray(mean_abs, dtype=np.float64)
            side = (n + 3) * u * v + (n**3 + 4 * n**2) * u * u * m * m / np.maximum(n - ddof, 1) + n * ss
        else:
            raise KeyError(key)
        bound = 2 * side
        if key == "std":
            std = np.sqrt(v)
            bound = np.minimum(np.sqrt(bound), np.where(std > 0, bound / std, np.inf))
        if expected is not None:
            # one ULP of the result (complex: of its larger finite part, as each part may take
            # its rounding from the other's scale); std: the square root's rounding too
            e = np.asarray(expected)
            parts = (e.real, e.imag) if e.dtype.kind == "c" else (e,)
            scale = np.maximum.reduce([np.where(np.isfinite(p), np.abs(p), 0) for p in parts])
            bound = bound + (2 if key == "std" else 1) * np.spacing(scale).astype(np.float64)
    return bound


def assert_within(actual, expected, bound, context: str = "", zero_sign: bool = True) -> None:
    """Float ``actual`` within ``bound`` (absolute, per element) of ``expected``: dtype and shape
    equal, NaN where NaN, an infinity equal to NumPy's, and (``zero_sign``) the sign of a zero
    result kept; a complex result part by part."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    where = f" ({context})" if context else ""
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != NumPy's {expected.dtype}{where}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != NumPy's {expected.shape}{where}"
    if actual.dtype.kind == "c":
        assert_within(actual.real, expected.real, bound, f"{context}, real part", zero_sign)
        assert_within(actual.imag, expected.imag, bound, f"{context}, imaginary part", zero_sign)
        return
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    bound = np.broadcast_to(np.asarray(bound, dtype=np.float64), e.shape)
    with np.errstate(all="ignore"):
        close = np.isfinite(a) & np.isfinite(e) & (np.abs(a - e) <= bound)
    same_special = (np.isnan(a) & np.isnan(e)) | (np.isinf(e) & (a == e))
    ok = close | same_special
    if zero_sign:
        ok &= ~((a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e)))
    assert ok.all(), (
        f"{(~ok).sum()} of {ok.size} elements beyond the bound{where}: got {a[~ok][:5]}, "
        f"NumPy {e[~ok][:5]}, allowed {bound[~ok][:5]}")


def assert_prints_as_numpy(capsys, fn, jitted, calls) -> None:
    """``jitted(*args)`` prints what ``fn(*args)`` prints, for each ``args`` of ``calls`` in turn
    (the first call compiles, the later ones reuse the code)."""
    for args in calls:
        fn(*args)
        want = capsys.readouterr().out
        jitted(*args)
        assert capsys.readouterr().out == want, args


def assert_same_tree(got, want, where: str = "result") -> None:
    """``got`` is ``want`` exactly, node by node: the same Python type everywhere (a tuple is not
    a list, a Python int not a NumPy one, a bool not an int); tuples, lists and dicts element by
    element (dicts by the same keys); arrays and NumPy scalars of the same dtype, shape and
    values; anything else equal, NaN matching NaN. (The shared form of the test files' own
    ``_same`` helpers, each as strict as this.)"""
    assert type(got) is type(want), (
        f"{where}: {type(got).__name__} != expected {type(want).__name__} ({got!r}, {want!r})")
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), f"{where}: length {len(got)} != {len(want)} ({got!r}, {want!r})"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_tree(g, w, f"{where}[{i}]")
    elif isinstance(want, dict):
        assert got.keys() == want.keys(), f"{where}: keys {list(got)} != {list(want)}"
        for key in want:
            assert_same_tree(got[key], want[key], f"{where}[{key!r}]")
    elif isinstance(want, (np.ndarray, np.generic)):
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (
            f"{where}: {got.dtype}{list(got.shape)} != expected {want.dtype}{list(want.shape)}")
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        assert got == want or (got != got and want != want), f"{where}: {got!r} != {want!r}"
