"""Python's errors on traced Python numbers (``jitcore/python_arithmetic.py``): where Python
raises (``n / 0``, ``int(nan)``, ``0.0 ** -1``, an int past int64), the compiled call raises
jitcore's subclass of the same exception with Python's message, at the top level and inside
compiled loops; NumPy scalars keep NumPy's inf and NaN."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitcoreError, UnsupportedError

_OPS = {"/": operator.truediv, "//": operator.floordiv, "%": operator.mod, "divmod": divmod,
        "**": operator.pow, "*": operator.mul, "<<": operator.lshift}


def _outcome(fn, *args):
    try:
        return "value", fn(*args)
    except Exception as e:  # noqa: BLE001  (the outcome compared is the exception)
        return "error", e


def _same(python, jitted):
    kind, want = python
    got_kind, got = jitted
    assert got_kind == kind, (want, got)
    if kind == "error":
        assert isinstance(got, type(want)) and isinstance(got, JitcoreError), (want, got)
        return
    assert type(got) is type(want), (want, got)
    if isinstance(want, tuple):
        for w, g in zip(want, got):
            _same(("value", w), ("value", g))
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got)
    elif isinstance(want, float):  # pow is the math library's: within an ulp of C's
        assert got == want or abs(got - want) <= 2 * math.ulp(want), (want, got)
    else:
        assert got == want, (want, got)


_INTS = [0, 1, -1, 7, -7, 3, 2**40]
_FLOATS = [0.0, -0.0, 1.5, -2.5, 1e308, float("inf"), float("nan")]


@pytest.mark.parametrize("op", ["/", "//", "%", "divmod"])
@pytest.mark.parametrize("kinds", ["ii", "if", "fi", "ff", "bi"])
def test_division_by_python_numbers_matches_python(op, kinds):
    """Every divisor, zero included, as argument values of one compiled function: Python's
    ZeroDivisionError (with its message) where Python raises, its numbers elsewhere."""
    fn = _OPS[op]

    def f(x, a, b):
        return fn(a, b)

    def cast(v, k):
        return bool(v) if k == "b" else (int(v) if k == "i" else float(v))

    jitted = jc.jit(f)
    x = np.zeros(2)
    values = _INTS if kinds[1] in "ib" else _FLOATS
    for a in (_INTS if kinds[0] in "ib" else _FLOATS)[:5]:
        for b in values:
            a_, b_ = cast(a, kinds[0]), cast(b, kinds[1])
            if isinstance(b_, float) and math.isnan(b_) and op != "/":
                continue  # NaN's floor division: NumPy's and Python's signs of NaN differ
            python, got = _outcome(f, x, a_, b_), _outcome(jitted, x, a_, b_)
            _same(python, got)
            if python[0] == "error":
                assert str(got[1]).startswith(str(python[1]))


def test_division_by_zero_from_data_in_a_loop():
    """A divisor read from the data inside a compiled loop: the call raises Python's error
    at the zero, and the loop stays compiled (no call back to Python per step)."""
    def f(x):
        total = 0.0
        for i in range(x.shape[0]):
            total += 1.0 / float(x[i])
        return total

    jitted = jc.jit(f)
    x = np.array([1.0, 2.0, 4.0])
    assert jitted(x) == f(x)
    with pytest.raises(ZeroDivisionError, match="^float division by zero"):
        jitted(np.array([1.0, 0.0, 4.0]))
    assert jitted(np.array([1.0, 2.0, 8.0])) == 1.625  # still usable after the error


def test_numpy_scalars_keep_numpy_semantics():
    """x[0] / x[1] of NumPy scalars is inf (with NumPy's warning), as NumPy gives."""
    def f(x, n):
        return x[0] / x[1], x[0] / n

    with np.errstate(divide="ignore"):
        want = f(np.array([1.0, 0.0]), 0)
    got = jc.jit(f)(np.array([1.0, 0.0]), 0)
    assert got == want and type(got[0]) is type(want[0])


@pytest.mark.parametrize("convert", [int, round, math.floor, math.ceil, math.trunc])
@pytest.mark.parametrize("value", [2.5, -2.5, float("nan"), float("inf"), -float("inf"), 1e19, -9.3e18,
                                   9.2e18])
def test_int_of_a_float_raises_as_python(convert, value):
    def f(x):
        return convert(float(x[0]))

    x = np.array([value])
    python, got = _outcome(f, x), _outcome(jc.jit(f), x)
    if python[0] == "value" and abs(python[1]) >= 2**63:  # past int64: jitcore's OverflowError
        assert got[0] == "error" and isinstance(got[1], OverflowError), got
        return
    _same(python, got)
    if python[0] == "error":
        assert str(got[1]).startswith(str(python[1]))


def test_int_of_a_float32_element_in_a_loop():
    def f(x, counts):
        for i in range(x.shape[0]):
            counts[int(x[i] * 4)] += 1
        return counts

    jitted = jc.jit(f)
    x = np.array([0.1, 0.6, 0.9], np.float32)
    np.testing.assert_array_equal(jitted(x, np.zeros(4)), f(x, np.zeros(4)))
    with pytest.raises(ValueError, match="^cannot convert float NaN to integer"):
        jitted(np.array([0.1, np.nan], np.float32), np.zeros(4))


@pytest.mark.parametrize("base", [0, 2, -2, 3, 0.0, -0.0, 2.0, -8.0, 1e300, float("inf")])
@pytest.mark.parametrize("exponent", [0, 2, -1, -2, 0.5, -0.5, 1 / 3, 2.0, -1.0, 400.0])
def test_powers_of_python_numbers(base, exponent):
    """Python's power of a traced base: a float for a negative int exponent, its
    ZeroDivisionError for 0 to a negative power, its OverflowError past the largest float;
    a complex result Python would give (a negative base to a fractional power) is refused
    when the call meets it, never NaN."""
    def f(x, b):
        return b ** exponent

    x = np.zeros(1)
    python, got = _outcome(f, x, base), _outcome(jc.jit(f), x, base)
    if python[0] == "value" and isinstance(python[1], complex):
        assert got[0] == "error" and isinstance(got[1], ValueError), got
        return
    _same(python, got)


def test_traced_negative_int_exponent_refused_when_it_runs():
    def f(x, n, k):
        return n ** k

    jitted = jc.jit(f)
    assert jitted(np.zeros(1), 3, 4) == 81
    with pytest.raises(ValueError, match="float"):
        jitted(np.zeros(1), 3, -1)


@pytest.mark.parametrize("n", [20, 21, 25])
def test_products_past_int64_raise(n):
    """factorial(20) fits int64, 21! does not: Python's exact int, or jitcore's OverflowError,
    never a number that wrapped around."""
    def f(x, n):
        p = 1
        for k in range(1, n + 1):
            p *= k
        return p

    got = _outcome(jc.jit(f), np.zeros(1), n)
    if math.factorial(n) < 2**63:
        assert got == ("value", math.factorial(n))
    else:
        assert got[0] == "error" and isinstance(got[1], OverflowError)


@pytest.mark.parametrize("n", [60, 91, 93, 100])
def test_sums_past_int64_raise(n):
    """Fibonacci by sums alone: fib(92) fits int64, fib(93) does not. The loop's last step makes
    fib(n + 1) too, so from n = 92 on the compiled loop raises (Python's b is exact); below, the
    value; never a number that wrapped around."""
    def f(x, n):
        a, b = 0, 1
        for _ in range(n):
            a, b = b, a + b
        return a

    got = _outcome(jc.jit(f), np.zeros(1), n)
    if n < 92:
        assert got == ("value", f(None, n))
    else:
        assert got[0] == "error" and isinstance(got[1], OverflowError) and isinstance(got[1], JitcoreError)


@pytest.mark.parametrize("a, b", [(9e18, -9e18), (-9e18, 9e18), (5.0, 7.0), (-9e18, -2e17), (4e18, 4e18)])
def test_differences_and_sums_of_traced_ints(a, b):
    def f(x, y):
        return int(x[0]) - int(y[0]), int(x[0]) + int(y[0])

    python = f(np.array([a]), np.array([b]))
    got = _outcome(jc.jit(f), np.array([a]), np.array([b]))
    if all(-2**63 <= v < 2**63 for v in python):
        assert got == ("value", python)
    else:
        assert got[0] == "error" and isinstance(got[1], OverflowError)


@pytest.mark.parametrize("positive_branch", [True, False])
def test_a_check_in_a_branch_raises_only_where_the_branch_runs(positive_branch):
    """A division check inside a data-dependent branch runs before the branch on 'condition
    and test' (scf_rules._hoist_leading_raise): raised only where the branch is taken."""
    def f(x, d):
        s = 0
        for i in range(x.shape[0]):
            if (x[i] > 0) == positive_branch:
                s += 100 // d
            else:
                s -= 1
        return s

    jitted = jc.jit(f)
    for x, d in [(np.array([-1.0, -2.0]), 0), (np.array([1.0, 2.0]), 0), (np.array([-1.0, 3.0]), 0),
                 (np.array([-1.0, 3.0]), 7), (np.zeros(0), 0)]:
        _same(_outcome(f, x, d), _outcome(jitted, x, d))


def test_counter_stepped_by_a_constant_is_not_checked():
    """A counter under a data test stays branch-free (not checked: see _check_sum) and counts."""
    def f(x):
        n = 0
        for i in range(x.shape[0]):
            if x[i] > 0:
                n += 1
        return n

    x = np.random.default_rng(1).normal(size=1001)
    assert jc.jit(f)(x) == f(x) and type(jc.jit(f)(x)) is int


def test_masked_hash_keeps_working():
    """A hash masked every step never leaves int64: no error, Python's value."""
    def f(codes):
        h = 0
        for i in range(codes.shape[0]):
            h = (h * 31 + int(codes[i])) & 0xFFFFFFFF
        return h

    codes = np.arange(1000) % 251
    assert jc.jit(f)(codes) == f(codes)


@pytest.mark.parametrize("a, k", [(1, 62), (1, 63), (3, 62), (-1, 63), (5, -1), (0, 100)])
def test_shifts_of_python_ints(a, k):
    def f(x, a, k):
        return a << k

    python, got = _outcome(f, np.zeros(1), a, k), _outcome(jc.jit(f), np.zeros(1), a, k)
    if python[0] == "value" and not -2**63 <= python[1] < 2**63:
        assert got[0] == "error" and isinstance(got[1], OverflowError)
    else:
        _same(python, got)


def test_try_around_a_division_that_may_raise_is_refused():
    """The except could not run (compiled code finds the zero when it runs): a clear
    refusal, never the try's body raising past its own except."""
    def f(x):
        try:
            r = 1.0 / float(x[0])
        except ZeroDivisionError:
            r = 0.0
        return r

    with pytest.raises(UnsupportedError, match="try"):
        jc.jit(f)(np.array([0.0]))
