"""Every tolerance of tests/oracle.py rejects a known-wrong answer and accepts right ones.

Each answer goes through the coverage table's own runner (``run_case``: NumPy on contiguous
copies, float16 sums, products, means and variances as NumPy computes them, contractions
through float32, ``compare``) in place of jitcore's, so that what is checked here
is exactly what the suite applies. Right answers: NumPy's, the exactly computed one rounded to the
dtype, and one computed in another order; wrong ones: the mistakes a compiler makes (a term
dropped, the wrong divisor, a one-pass variance, a float16 column sum accumulated in float32, a
flipped sign of zero, a NaN) and the ones the audit found accepted (TESTS-AUDIT.md defects 2 and 3).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from tests.coverage.compare import (
    DOT_TOL,
    EXACT,
    MEAN_TOL,
    PROD_TOL,
    STD_TOL,
    SUM_TOL,
    VAR_TOL,
    ulp,
)
from tests.coverage.harness import Case, run_case
from tests.oracle import ORDER_BOUNDS, ULP_BOUNDS, assert_matches, assert_same_tree, ulp_bound

FLOATS = (np.float16, np.float32, np.float64)


def accepts(tol, fn, arrays, answer, **params) -> bool:
    """Whether the suite takes ``answer`` for ``fn(*arrays, **params)`` under ``tol``."""
    case = Case("tolerance check", "test", fn, gen=None, tol=tol)
    case.__dict__["jitted"] = lambda arrays, params: answer  # in place of jitcore's answer
    try:
        run_case(case, arrays, params)
    except AssertionError:
        return False
    return True


def data(dtype, shape, lo=-100.0, hi=100.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def rounded(value, dtype):
    """An exactly computed float64 value (or array) rounded to ``dtype``."""
    return np.asarray(value, dtype=np.float64).astype(dtype)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def np_answer(fn, arrays, **params):
    """NumPy's answer as the runner computes it (float16 sums, products, means and variances
    NumPy's own; float16 contractions through float32)."""
    if fn is not np.matmul:
        return np.asarray(quiet(fn, *arrays, **params))
    wide = [a.astype(np.float32) if a.dtype == np.float16 else a for a in arrays]
    out = np.asarray(quiet(fn, *wide, **params))
    return out.astype(np.float16) if arrays[0].dtype == np.float16 else out


NARROWER = {np.dtype(np.float64): (np.float32, 30), np.dtype(np.float32): (np.float16, 12)}


def lossy(dtype, shape):
    """Values 2**j (1 + 2**-k) that the next narrower dtype rounds down, all by the same relative
    amount 2**-k: an answer computed in that dtype is off by about 2**-k relative to all terms, far
    beyond the order bound (n u), whatever the terms' order."""
    _, k = NARROWER[np.dtype(dtype)]
    return ((1 + 2.0**-k) * 2.0 ** (np.arange(math.prod(shape)) % 2)).reshape(shape).astype(dtype)


def narrower(fn, arrays, dtype, **params):
    """The answer computed in the next narrower float dtype (an accumulator too narrow)."""
    small, _ = NARROWER[np.dtype(dtype)]
    return np.asarray(quiet(fn, *(a.astype(small) for a in arrays), **params), dtype=dtype)


def check(tol, fn, arrays, right, wrong, **params):
    for name, answer in right.items():
        assert accepts(tol, fn, arrays, answer, **params), f"rejects {name}: {answer!r}"
    for name, answer in wrong.items():
        assert not accepts(tol, fn, arrays, answer, **params), f"accepts {name}: {answer!r}"


def test_every_order_bound_is_checked_here():
    assert set(ORDER_BOUNDS) == {"sum", "mean", "var", "std", "prod", "dot"}
    assert all(bound.reason for bound in ORDER_BOUNDS.values())


# -- the order bounds ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_sum(dtype):
    x = data(dtype, (17,), 0.0, 100.0)  # no cancellation: a narrower sum is off by its roundings
    x[-1] = 37.5
    want = np_answer(np.sum, [x])
    exact = math.fsum(x.astype(np.float64))
    one_by_one = rounded(np.cumsum(x.astype(np.float32 if dtype == np.float16 else dtype))[-1], dtype)
    check(SUM_TOL, np.sum, [x], right={"NumPy's": want, "exact": rounded(exact, dtype),
                                       "sequential": one_by_one},
          wrong={"without the last term": np_answer(np.sum, [x[:-1]]),
                 "1% off": rounded(exact * 1.01, dtype), "NaN": rounded(np.nan, dtype),
                 "another dtype": np.asarray(exact, np.float32 if dtype == np.float64 else np.float64),})
    zeros = np.full(3, -0.0, dtype)  # NumPy's sum of -0.0s is +0.0
    check(SUM_TOL, np.sum, [zeros], right={"+0.0": rounded(0.0, dtype)}, wrong={"-0.0": rounded(-0.0, dtype)})


def test_float16_column_sum_is_numpys_float16_steps():
    # NumPy's elementwise loop rounds every add of a column sum to float16 (2048 + 1 is 2048),
    # and jitcore follows it (session 57): the float32 sum rounded once is not NumPy's answer.
    x = np.ones((5000, 2), np.float16)
    check(SUM_TOL, np.sum, [x], axis=0, right={"float16 steps": np.full(2, 2048, np.float16)},
          wrong={"float32, rounded": np.full(2, 5000, np.float16)})


@pytest.mark.parametrize("dtype", (np.complex64, np.complex128))
def test_complex_sum(dtype):
    x = (data(np.float64, (17,)) + 1j * data(np.float64, (17,), seed=1)).astype(dtype)
    want = np_answer(np.sum, [x])
    check(SUM_TOL, np.sum, [x], right={"NumPy's": want},
          wrong={"imaginary part 1% off": (want.real + 1.01j * want.imag).astype(dtype),
                 "conjugated": np.conj(want)})


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean(dtype):
    x = data(dtype, (17, 3))
    want = np_answer(np.mean, [x], axis=0)
    exact = np.array([math.fsum(c) / 17 for c in x.astype(np.float64).T])
    check(MEAN_TOL, np.mean, [x], axis=0, right={"NumPy's": want, "exact": rounded(exact, dtype)},
          wrong={"1% off": rounded(exact * 1.01, dtype),
                 "divided by n - 1": rounded(exact * 17 / 16, dtype),
                 "without the last row": np_answer(np.mean, [x[:-1]], axis=0),
                 "+1.0 (accepted for float16 before)": rounded(exact + 1.0, dtype),})


def _two_pass(x, ddof):
    x = x.astype(np.float64)
    return math.fsum((x - math.fsum(x) / x.size) ** 2) / (x.size - ddof)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ddof", (0, 1))
def test_var(dtype, ddof):
    x = data(dtype, (17,))
    want = np_answer(np.var, [x], ddof=ddof)
    exact = _two_pass(x, ddof)
    # float16: NumPy's own answer, computed in float16 (its mean, deviations, squares, their
    # sum), which jitcore follows; the exact variance is further from it than the bound
    right = {"NumPy's": want} if dtype == np.float16 else {"NumPy's": want, "exact": rounded(exact, dtype)}
    check(VAR_TOL, np.var, [x], ddof=ddof, right=right,
          wrong={"3% off (accepted for float16 before)": rounded(exact * 1.03, dtype),
                 "the other ddof": rounded(_two_pass(x, 1 - ddof), dtype),
                 "0": rounded(0.0, dtype)})


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_one_pass_variance_is_rejected(dtype):
    # E[x^2] - E[x]^2 cancels: values near 1e3 (float32) or 1e8 (float64) with spread ~1.
    x = (data(np.float64, (17,), -1.0, 1.0) + (1e3 if dtype == np.float32 else 1e8)).astype(dtype)
    xs = x.astype(dtype)
    one_pass = np.mean(xs * xs) - np.mean(xs) ** 2
    check(VAR_TOL, np.var, [x], right={"exact": rounded(_two_pass(x, 0), dtype)},
          wrong={"one pass": np.asarray(one_pass, dtype)})
    check(STD_TOL, np.std, [x], right={"exact": rounded(math.sqrt(_two_pass(x, 0)), dtype)},
          wrong={"sqrt of one pass": np.asarray(np.sqrt(abs(one_pass)), dtype)})


@pytest.mark.parametrize("dtype", FLOATS)
def test_std(dtype):
    x = data(dtype, (17,))
    want = np_answer(np.std, [x])
    exact = math.sqrt(_two_pass(x, 0))
    right = {"NumPy's": want} if dtype == np.float16 else {"NumPy's": want, "exact": rounded(exact, dtype)}
    check(STD_TOL, np.std, [x], right=right,
          wrong={"twice": rounded(2 * exact, dtype), "+500 (accepted for float16 before)":
                 rounded(exact + 500, dtype), "0 (accepted for float16 before)": rounded(0.0, dtype),
                 "1.5% off (accepted for float32 before)": rounded(exact * 1.015, dtype),
                 "ddof 1": rounded(math.sqrt(_two_pass(x, 1)), dtype)})
    same = np.full(5, 3.3, dtype)  # a zero variance, computed as a tiny one or exactly 0
    check(STD_TOL, np.std, [same], right={"NumPy's": np_answer(np.std, [same]), "0": rounded(0.0, dtype)},
          wrong={"0.01": rounded(0.01, dtype)})


@pytest.mark.parametrize("dtype", FLOATS)
def test_prod(dtype):
    x = data(dtype, (17,), -1.5, 1.5)
    x[-1] = -1.25
    want = np_answer(np.prod, [x])
    exact = math.prod(x.astype(np.float64))
    wide = np.float32 if dtype == np.float16 else dtype
    one_by_one = rounded(np.cumprod(x.astype(wide))[-1], dtype)
    check(PROD_TOL, np.prod, [x], right={"NumPy's": want, "exact": rounded(exact, dtype),
                                         "sequential": one_by_one},
          wrong={"without the last factor": np_answer(np.prod, [x[:-1]]),
                 "1% off": rounded(exact * 1.01, dtype), "negated": rounded(-exact, dtype),})
    signed_zero = np.array([0.5, -0.0, 1.5], dtype)  # a product with -0.0 is -0.0
    check(PROD_TOL, np.prod, [signed_zero], right={"-0.0": rounded(-0.0, dtype)},
          wrong={"+0.0": rounded(0.0, dtype)})


@pytest.mark.parametrize("dtype", FLOATS + (np.complex128,))
def test_dot(dtype):
    a, b = data(np.float64, (2, 17)), data(np.float64, (17, 3), seed=1)
    if dtype == np.complex128:
        a, b = a + 1j * data(np.float64, (2, 17), seed=2), b - 1j * data(np.float64, (17, 3), seed=3)
    a, b = a.astype(dtype), b.astype(dtype)
    want = np_answer(np.matmul, [a, b])
    exact = a.astype(np.complex128) @ b.astype(np.complex128)
    exact = exact if dtype == np.complex128 else exact.real
    check(DOT_TOL, np.matmul, [a, b], right={"NumPy's": want, "exact": exact.astype(dtype)},
          wrong={"without the last term": np_answer(np.matmul, [a[:, :-1], b[:-1]]),
                 "1% off": (exact * 1.01).astype(dtype),
                 "a row missing": np.concatenate([want[:1], want[:1]]).astype(dtype),})


@pytest.mark.parametrize("dtype", (np.float32, np.float64))
@pytest.mark.parametrize("tol, fn, shapes, params", [
    (SUM_TOL, np.sum, [(17,)], {}), (MEAN_TOL, np.mean, [(17, 3)], {"axis": 0}),
    (PROD_TOL, np.prod, [(17,)], {}), (DOT_TOL, np.matmul, [(2, 17), (17, 3)], {})])
def test_an_accumulator_too_narrow_is_rejected(dtype, tol, fn, shapes, params):
    arrays = [lossy(dtype, shape) for shape in shapes]
    check(tol, fn, arrays, right={"NumPy's": np_answer(fn, arrays, **params)},
          wrong={"in a narrower dtype": narrower(fn, arrays, dtype, **params)}, **params)


def test_dot_does_not_compare_the_sign_of_a_zero():
    # NumPy's own paths differ there (ORDER_BOUNDS["dot"]): np.dot([-0.0], [1.0]) is -0.0, np.matmul 0.0.
    a, b = np.array([-0.0]), np.array([1.0])
    assert np.signbit(np.dot(a, b)) != np.signbit(np.matmul(a, b))
    check(DOT_TOL, np.dot, [a, b], right={"+0.0": np.float64(0.0), "-0.0": np.float64(-0.0)},
          wrong={"1e-300": np.float64(1e-300), "NaN": np.float64(np.nan)})


@pytest.mark.parametrize("tol, fn", [(SUM_TOL, np.sum), (MEAN_TOL, np.mean), (VAR_TOL, np.var),
                                     (STD_TOL, np.std), (PROD_TOL, np.prod)])
def test_order_bounds_keep_specials(tol, fn):
    x = np.array([1.0, np.inf, 2.0, 0.5])
    y = np.array([1.0, 2.0, 3.0, 0.5])
    with_nan = np.array([1.0, np.nan, 2.0, 0.5])
    assert not accepts(tol, fn, [with_nan], np.float64(1.0)), "a number where NumPy has NaN"
    assert not accepts(tol, fn, [y], np.float64(np.nan)), "NaN where NumPy has a number"
    want = quiet(fn, x)
    assert accepts(tol, fn, [x], want)
    if np.isinf(want):
        assert not accepts(tol, fn, [x], np.float64(np.finfo(np.float64).max)), "max for inf"
        assert not accepts(tol, fn, [x], -want), "-inf for inf"


# -- the ULP bounds -------------------------------------------------------------------------------
def _moved(v, ulps):
    """``v`` moved ``ulps`` ULPs up (each part of a complex number)."""
    if v.dtype.kind == "c":
        return _moved(v.real, ulps) + 1j * _moved(v.imag, ulps)
    for _ in range(ulps):
        v = np.nextafter(v, np.asarray(np.inf, v.dtype))
    return v


@pytest.mark.parametrize("key", [k for k in ULP_BOUNDS if isinstance(k, str)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_each_ulp_bound_is_a_distance_in_ulps(key, dtype):
    complex_key = key.startswith("complex")
    if complex_key and dtype == np.float16:
        return  # no complex float16
    value = np.array([0.7, -1.3, 2.5, 1e-3], dtype)
    if complex_key:
        value = (value + 1j * value[::-1]).astype(np.complex64 if dtype == np.float32 else np.complex128)
    bound = ulp_bound(key, dtype)
    assert_matches(_moved(value, bound), value, bound, key)
    with pytest.raises(AssertionError):
        assert_matches(_moved(value, bound + 1), value, bound, key)


# One call of each function with a real ULP bound, through the runner: the bound the suite applies
# (1 for float16, the per-dtype overrides) takes the answer ``bound`` ULPs away, not one more.
_ULP_CALLS = {
    "sin": (np.sin, 0.7), "cos": (np.cos, 0.7), "tan": (np.tan, 0.7), "tanh": (np.tanh, 0.7),
    "exp": (np.exp, 0.7), "log": (np.log, 0.7), "sqrt": (np.sqrt, 0.7), "exp2": (np.exp2, 0.7),
    "expm1": (np.expm1, 0.7), "log2": (np.log2, 0.7), "log10": (np.log10, 0.7),
    "log1p": (np.log1p, 0.7), "cbrt": (np.cbrt, 0.7), "sinh": (np.sinh, 0.7), "cosh": (np.cosh, 0.7),
    "arcsin": (np.arcsin, 0.7), "arccos": (np.arccos, 0.7), "arctan": (np.arctan, 0.7),
    "arcsinh": (np.arcsinh, 0.7), "arccosh": (np.arccosh, 1.7), "arctanh": (np.arctanh, 0.7),
    "arctan2": (np.arctan2, 0.7, 0.3), "hypot": (np.hypot, 0.7, 0.3), "pow": (np.power, 0.7, 1.3),
    "logaddexp": (np.logaddexp, 0.7, 0.3), "logaddexp2": (np.logaddexp2, 0.7, 0.3),
    "sign": (np.sign, -0.7), "sinc": (np.sinc, 0.7),
}


def test_every_real_ulp_bound_has_a_call():
    real = {k for k in ULP_BOUNDS if isinstance(k, str) and not k.startswith("complex")} - {"exact"}
    assert real == set(_ULP_CALLS)


@pytest.mark.parametrize("key", sorted(_ULP_CALLS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_ulp_tolerances_through_the_runner(key, dtype):
    fn, *args = _ULP_CALLS[key]
    arrays = [np.full(3, a, dtype) for a in args]
    want = np.asarray(quiet(fn, *arrays))
    bound = ulp_bound(key, dtype)
    assert accepts(ulp(key), fn, arrays, _moved(want, bound))
    assert not accepts(ulp(key), fn, arrays, _moved(want, bound + 1))
    assert not accepts(ulp(key), fn, arrays, np.full(3, np.nan, dtype)), "NaN for a number"


@pytest.mark.parametrize("tol", [EXACT, ulp("sin")])
def test_exact_and_ulp_keep_specials(tol):
    x = np.array([-0.0, np.nan, np.inf, 1.0])
    want = quiet(np.sin if tol.mode == "ulp" else np.negative, x)
    fn = np.sin if tol.mode == "ulp" else np.negative
    assert accepts(tol, fn, [x], want)
    for name, i, v in (("flipped -0.0", 0, -want[0]), ("number for NaN", 1, 0.0),
                       ("NaN for a number", 3, np.nan), ("inf for a number", 3, np.inf)):
        wrong = want.copy()
        wrong[i] = v
        assert not accepts(tol, fn, [x], wrong), name


def test_assert_same_tree_rejects_every_difference():
    """The shared ``_same`` (tests/oracle.py): a Python type, dtype, shape, value, length or key
    apart is rejected; NaN matches NaN."""
    a = np.arange(3.0)
    want = (a, [np.float32(1.5), 2, True], {"k": np.int64(3)}, math.nan)
    assert_same_tree((a.copy(), [np.float32(1.5), 2, True], {"k": np.int64(3)}, math.nan), want)
    wrong = [
        (a.astype(np.float32), [np.float32(1.5), 2, True], {"k": np.int64(3)}, math.nan),  # dtype
        (a[None], [np.float32(1.5), 2, True], {"k": np.int64(3)}, math.nan),  # shape
        (a + 1, [np.float32(1.5), 2, True], {"k": np.int64(3)}, math.nan),  # values
        (a, (np.float32(1.5), 2, True), {"k": np.int64(3)}, math.nan),  # a tuple for a list
        (a, [np.float64(1.5), 2, True], {"k": np.int64(3)}, math.nan),  # NumPy scalar's dtype
        (a, [np.float32(1.5), 2, 1], {"k": np.int64(3)}, math.nan),  # an int for a bool
        (a, [np.float32(1.5), np.int64(2), True], {"k": np.int64(3)}, math.nan),  # NumPy int for int
        (a, [np.float32(1.5), 2], {"k": np.int64(3)}, math.nan),  # length
        (a, [np.float32(1.5), 2, True], {"j": np.int64(3)}, math.nan),  # key
        (a, [np.float32(1.5), 2, True], {"k": np.int64(3)}, 0.0),  # a number for NaN
    ]
    for got in wrong:
        with pytest.raises(AssertionError):
            assert_same_tree(got, want)
