"""Checks that raise NumPy's or Python's error for the first bad element (``raise_at_first``)
run in compiled code (``array.raise_if`` with status words), not as host callbacks: the same
results, exception types and messages as plain Python and NumPy, and no ``array.callback``."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def _outcome(fn, *args):
    """What ``fn(*args)`` gives: ("ok", value, type) or ("raises", a base exception type, message)."""
    try:
        out = fn(*args)
    except (ValueError, OverflowError, IndexError, ZeroDivisionError) as error:
        base = next(t for t in (IndexError, OverflowError, ZeroDivisionError, ValueError)
                    if isinstance(error, t))
        return ("raises", base, str(error))
    return ("ok", out, type(out))


def _same(fn, *args):
    expected, got = _outcome(fn, *args), _outcome(jc.jit(fn), *args)
    if expected[0] == "ok" and got[0] == "ok":
        if np.asarray(expected[1]).dtype.kind == "f":  # the math library: within a few ULPs
            np.testing.assert_array_max_ulp(np.asarray(got[1]), np.asarray(expected[1]), maxulp=8)
        else:
            np.testing.assert_array_equal(got[1], expected[1])
        assert got[2] is expected[2]
    else:
        assert got == expected


def _no_callback(fn, *args):
    text = jc.jit(fn).lower(*args).as_text("traced")
    assert "array.callback" not in text
    assert "array.raise_if" in text


def sqrt_sum(x, n):
    s = 0.0
    for i in range(n):
        s += math.sqrt(x[i])
    return s


def log_sum(x, n):
    s = 0.0
    for i in range(n):
        s += math.log(x[i])
    return s


def exp_sum(x, n):
    s = 0.0
    for i in range(n):
        s += math.exp(x[i])
    return s


def list_sum(idx, n):
    table = [1.5, -2.0, 3.25, 4.0, 0.5]
    s = 0.0
    for i in range(n):
        s += table[int(idx[i])]
    return s


def tuple_sum(idx, n):
    table = (1, 2, 3)
    s = 0
    for i in range(n):
        s += table[int(idx[i])]
    return s


floats = st.one_of(st.floats(-3, 800), st.sampled_from([0.0, -0.0, -1.0, 710.0, math.inf,
                                                        -math.inf, math.nan]))


@settings(max_examples=25, deadline=None)
@given(st.lists(floats, min_size=1, max_size=6))
@pytest.mark.parametrize("fn", [sqrt_sum, log_sum, exp_sum])
def test_math_in_a_loop_raises_pythons_error_for_the_first_bad_number(fn, values):
    x = np.array(values)
    _same(fn, x, len(values))


@pytest.mark.parametrize("fn", [sqrt_sum, log_sum, exp_sum])
def test_math_in_a_loop_stays_compiled(fn):
    _no_callback(fn, np.ones(4), 4)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-7, 7), min_size=1, max_size=6))
@pytest.mark.parametrize("fn", [list_sum, tuple_sum])
def test_a_list_at_a_traced_position_in_a_loop(fn, positions):
    _same(fn, np.array(positions), len(positions))


def test_a_list_at_a_traced_position_stays_compiled():
    _no_callback(list_sum, np.zeros(3, np.int64), 3)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.5, 3.0, 0.0, -2.0, 200.0, -1.5, 180.0]), min_size=1, max_size=6))
@pytest.mark.parametrize("name", ["gamma", "lgamma", "exp", "cosh", "sqrt"])
def test_the_first_bad_element_in_c_order_picks_domain_or_range(name, values):
    """np.vectorize(math.gamma) of [0 (domain), 200 (range)]: the first one's error."""
    f = getattr(math, name)
    x = np.array(values).reshape(-1, 1) if len(values) % 2 else np.array(values)
    _same(lambda a: np.vectorize(f, otypes=[float])(a), x)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 8), min_size=1, max_size=5))
def test_unravel_index_names_the_first_bad_index(flat):
    _same(lambda i: np.unravel_index(i, (2, 3)), np.array(flat))
    _no_callback(lambda i: np.unravel_index(i, (2, 3)), np.array(flat))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-2, 4), min_size=1, max_size=5))
def test_ravel_multi_index_refuses_an_invalid_entry(rows):
    a = np.array(rows)
    _same(lambda r, c: np.ravel_multi_index((r, c), (3, 4)), a, a[::-1].copy())


def test_integer_power_to_a_negative_exponent():
    _same(lambda a, k: np.power(a, k), np.arange(3), np.array([1, -1, 2]))
    _same(lambda a, k: np.power(a, k), np.arange(3), np.array([1, 0, 2]))


@pytest.mark.parametrize("items", [[1e308, 1e308], [math.inf, -math.inf], [1.0, 2.5]])
def test_fsum_errors(items):
    _same(lambda x: math.fsum(x), np.array(items))


@pytest.mark.parametrize("keep", [0.0, 10.0])
def test_max_of_an_empty_generator(keep):
    _same(lambda x: max(v for v in x if v < keep), np.array([1.0, 2.0, 3.0]))


def test_isclose_negative_tolerance():
    _same(lambda a, t: math.isclose(a, 1.0, rel_tol=t), 1.0, -0.5)
    _same(lambda a, t: math.isclose(a, 1.0, rel_tol=t), 1.0, 0.5)


def test_arguments_after_an_error_are_untouched():
    def fill(out, x):
        for i in range(x.shape[0]):
            out[i] = math.sqrt(x[i])
        return out
    x = np.array([4.0, -1.0, 9.0])
    out = np.zeros(3)
    with pytest.raises(ValueError, match="math domain error"):
        jc.jit(fill)(out, x)
    assert x.tolist() == [4.0, -1.0, 9.0]


def test_the_status_words_carry_a_float():
    from jitcore.python_arithmetic import error
    bits = int(np.float64(2.5).view(np.int64))
    assert str(error(57, bits)) == "math domain error"
    assert "{" not in str(error(63, 7, 0, 6)) and "7" in str(error(63, 7, 0, 6))


def test_the_gpu_code_records_the_status_words(tmp_path):
    """The checks as PTX (sm_80, sm_90), assembled by ptxas where it is installed."""
    from tests.codegen.test_nvptx import check_family

    check_family(sqrt_sum, (np.ones(8), 8), tmp_path, set(), "sqrt loop")
    check_family(list_sum, (np.zeros(8, np.int64), 8), tmp_path, set(), "list loop")
    check_family(lambda i: np.unravel_index(i, (2, 3)), (np.arange(4),), tmp_path, set(), "unravel")


@pytest.mark.parametrize("scale", [1.0, -1.0])
def test_random_parameters_checked_in_compiled_code(scale):
    def draw(s):
        return np.random.default_rng(0).normal(0.0, s, 3)
    _same(draw, np.float64(scale))
    _no_callback(draw, np.float64(scale))
