"""Gaps found auditing issue 12 (errors as NumPy users expect, item 5), each as the user code
that showed it, NumPy as the oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def numpy_and_jit(fn, *args):
    """``fn`` by NumPy and under jit: (NumPy's result or exception, jitcore's)."""
    def run(f):
        try:
            return f(*args)
        except Exception as e:  # noqa: BLE001  (the exception is the result compared)
            return e
    return run(fn), run(jc.jit(fn))


def and_then_double(s):
    return (s > 0) and s * 2


def or_else_double(s):
    return (s > 0) or s * 2


def value_and_constant(s):
    return s and 3.5


def not_of_value(s):
    return not s


def choose(s):
    return s * 3 if s > 1 else -s


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([and_then_double, or_else_double, value_and_constant, not_of_value, choose]),
       st.sampled_from([-1.5, 0.0, 0.5, 2.0, np.nan]))
def test_and_or_not_of_a_traced_scalar_are_pythons_values(fn, s):
    # Python's `a and b` is b when a is true: (s > 0) and s * 2 is s * 2, not True
    want, got = numpy_and_jit(fn, np.float64(s))
    np.testing.assert_array_equal(got, want)


def if_statement(a):
    if a > 0:
        return a
    return -a


def while_statement(a):
    while a > 0:
        a = a - 1
    return a


def and_of_array(a):
    return (a > 0) and a


def or_of_array(a):
    return (a > 0) or a


def not_of_array(a):
    return not (a > 0)


def if_else_of_array(a):
    return a if a > 0 else -a


def chained_comparison(a):
    return 0 < a < 2


def bool_of_array(a):
    return bool(a)


@pytest.mark.parametrize("fn", [and_of_array, or_of_array, not_of_array, if_else_of_array,
                                chained_comparison, bool_of_array, if_statement, while_statement])
def test_truth_value_of_a_traced_array_is_numpys_value_error(fn):
    want, got = numpy_and_jit(fn, np.arange(3.0))
    assert isinstance(want, ValueError)
    assert isinstance(got, ValueError) and "ambiguous" in str(got), got


@pytest.mark.parametrize("key", [1.5, "a", (0, 1.0)], ids=["float", "str", "float-in-tuple"])
def test_a_non_integer_index_is_numpys_index_error(key):
    want, got = numpy_and_jit(lambda a: a[key], np.ones((3, 3)))
    assert isinstance(want, IndexError) and isinstance(got, IndexError), got
    assert str(got).startswith("only integers, slices")


C_ARRAY = np.arange(12.0).reshape(3, 4)
F_ARRAY = np.asfortranarray(C_ARRAY)


@pytest.mark.parametrize("method", [
    lambda a: a.copy(), lambda a: a.copy(order="F"), lambda a: a.copy("A"), lambda a: a.copy("K"),
    lambda a: a.flatten("F"), lambda a: a.flatten("A"), lambda a: a.flatten("K"),
    lambda a: a.astype(np.float32, order="F"), lambda a: a.astype(np.float32, casting="same_kind"),
    lambda a: a.astype(np.float64, copy=False), lambda a: a.ravel("C"),
    lambda a: a.reshape((2, 6), order="C")],
    ids=["copy", "copy-F", "copy-A", "copy-K", "flatten-F", "flatten-A", "flatten-K", "astype-F",
         "astype-casting", "astype-no-copy", "ravel-C", "reshape-C"])
@pytest.mark.parametrize("x", [C_ARRAY, F_ARRAY], ids=["C", "F"])
def test_ndarray_methods_take_numpys_order_casting_and_copy_arguments(method, x):
    want, got = method(x), jc.jit(method)(x)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == (want.flags.c_contiguous,
                                                                 want.flags.f_contiguous)


@pytest.mark.parametrize("method", [lambda a: a.astype(np.int32, casting="safe"),
                                    lambda a: a.copy(order="Z")], ids=["unsafe-cast", "bad-order"])
def test_bad_method_arguments_raise_numpys_exception_class(method):
    want, got = numpy_and_jit(method, C_ARRAY)
    assert isinstance(want, Exception) and isinstance(got, type(want)), got


@pytest.mark.parametrize("method", [lambda a: a.astype(complex).byteswap(), lambda a: a.resize(1)],
                         ids=["byteswap", "resize"])  # byteswap of ints, floats, bools compiles (session 53)
def test_ndarray_methods_not_compiled_raise_jitcores_error_naming_them(method):
    # not lowered (compress by a traced condition, returned, compiles since session 46: below)
    args = (np.arange(2.0),)
    with pytest.raises((jc.UnsupportedError, jc.JitTypeError), match=r"(byteswap|compress|resize)"):
        jc.jit(method)(*args)


def test_compress_by_a_traced_condition_returned_compiles():
    method = lambda a, c: a.compress(c)  # noqa: E731 (a length chosen by the data, returned)
    for c in (np.array([True, False]), np.array([False, False]), np.array([True, True])):
        np.testing.assert_array_equal(jc.jit(method)(np.arange(2.0), c), method(np.arange(2.0), c))


def test_compress_by_a_condition_written_in_the_code_compiles():
    method = lambda a: a.compress([True, False, True])  # noqa: E731 (its length is known)
    np.testing.assert_array_equal(jc.jit(method)(np.arange(3.0)), method(np.arange(3.0)))


def test_put_method_compiles_now():
    def put(a):
        b = a.copy()
        b.put([0], [1.0])
        return b

    np.testing.assert_array_equal(jc.jit(put)(np.arange(2.0)), put(np.arange(2.0)))


def test_choose_method_is_numpys():
    choices = np.arange(6.0).reshape(3, 2)
    idx = np.array([2, 0])
    np.testing.assert_array_equal(jc.jit(lambda i, c: i.choose(c))(idx, choices), idx.choose(choices))


WRITTEN = np.zeros(3)


def write_then_sum(x):
    WRITTEN[:] = x * 2
    return WRITTEN.sum(), np.sum(WRITTEN), WRITTEN * 2, WRITTEN[1]


def write_constant_then_scale(x):
    WRITTEN[0] = 5.0
    return WRITTEN * 1 + x


@pytest.mark.parametrize("fn", [write_then_sum, write_constant_then_scale])
def test_a_global_written_inside_is_read_back_as_written(fn):
    # item 2: reads after the write (through NumPy work that would run while tracing) see it
    jitted = jc.jit(fn)
    for x in (np.ones(3), np.arange(3.0)):  # the second call: new values, the same compile
        WRITTEN[:] = -1.0
        want = fn(x)
        want_global = WRITTEN.copy()
        WRITTEN[:] = -1.0
        got = jitted(x)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(WRITTEN, want_global)


def sum_of_written():
    return WRITTEN.sum()


def write_then_read_in_a_helper(x):
    WRITTEN[:] = x * 2
    return sum_of_written()


def write_and_read_in_a_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        WRITTEN[i] = x[i] * 3
        total += WRITTEN.sum()
    return total


@pytest.mark.parametrize("fn", [write_then_read_in_a_helper, write_and_read_in_a_loop])
def test_a_written_global_read_in_a_helper_or_a_loop(fn):
    WRITTEN[:] = -1.0
    want = fn(np.arange(3.0))
    WRITTEN[:] = -1.0
    np.testing.assert_array_equal(jc.jit(fn)(np.arange(3.0)), want)


@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
def test_np_copy_keeps_numpys_layout(order):
    a = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    got, want = jc.jit(lambda a: np.copy(a, order=order))(a), np.copy(a, order=order)
    assert got.flags.f_contiguous == want.flags.f_contiguous
    assert got.flags.c_contiguous == want.flags.c_contiguous
    np.testing.assert_array_equal(got, want)


def test_a_bad_casting_name_is_numpys_value_error():
    with pytest.raises(ValueError, match="casting must be one of"):
        jc.jit(lambda x: np.sin(x, casting="bogus"))(np.ones(3))
