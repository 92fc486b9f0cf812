"""Every error raised while tracing names the user's line: the file and line number of the
offending line (here, in this file) and its source text, once: in the message of a jitcore
error, in a note (PEP 678, shown under the message in tracebacks) of an error of NumPy's
classes, whose message stays NumPy's.

One test per error class, each over a table of snippets that raise it. The jitcore errors
(ConcretizationError, TracerConversionError, UnsupportedError, JitTypeError) and the errors that
mirror NumPy's (IndexError, ValueError, TypeError: NumPy raises the same class on the same
code) are all checked. The location is added where an error leaves the user's function
(``jitcore.tracer.add_user_line``) unless the message already has it.
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp

THIS_FILE = os.path.abspath(__file__)


def line_of(fn, text: str) -> int:
    """The line number, in this file, of the line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    (index,) = [i for i, line in enumerate(lines) if text in line]
    return start + index


def raises_naming_the_line(error, fn, args, line_text: str, line_fn=None, **jit_kwargs) -> str:
    """Call jit(fn)(*args): it raises ``error`` at trace time, naming the line of ``line_text``
    in ``line_fn`` (default ``fn``)."""
    f = jc.jit(fn, **jit_kwargs)
    with pytest.raises(error) as info:
        f(*args)
    assert type(info.value) is error, type(info.value)
    if issubclass(error, jc.JitcoreError):
        message = str(info.value)
    else:  # NumPy's class keeps NumPy's message; the line is in a note under it
        assert "\n" not in str(info.value), str(info.value)
        message = "\n".join(getattr(info.value, "__notes__", []))
    where = f"{fn.__code__.co_filename}:{line_of(line_fn or fn, line_text)}"
    assert os.path.abspath(fn.__code__.co_filename) == THIS_FILE
    assert message.count(where) == 1, message  # named, and only once
    assert line_text in message, message
    assert f.cache_info().compiles == 0  # found while tracing
    return message


F3, F4 = np.ones(3), np.ones(4)


# -- ConcretizationError -----------------------------------------------------------------------

def if_on_data(x):
    if x.sum() > 0:
        return x
    return -x


def int_of_data(x):
    return x * int(x[0])


def range_of_a_traced_scalar(x, n):
    total = x
    for _ in range(n):
        total = total + x
    return total


CONCRETIZATION = {
    "if": (if_on_data, (F3,), "if x.sum() > 0:"),
    "int": (int_of_data, (F3,), "x * int(x[0])"),
    "range": (range_of_a_traced_scalar, (F3, 3), "for _ in range(n):"),
}


@pytest.mark.parametrize("case", CONCRETIZATION)
def test_concretization_error_names_the_line(case, without_auto_static):
    fn, args, text = CONCRETIZATION[case]
    # Python control flow that jit leaves as Python (autograph off) needs concrete values.
    raises_naming_the_line(jc.ConcretizationError, fn, args, text, autograph=False)


# -- TracerConversionError ---------------------------------------------------------------------

def asarray_of_a_tracer(x):
    return np.asarray(x) + 1


def array_of_a_tracer(x):
    return np.array(x, copy=True) * 2


CONVERSION = {
    "asarray": (asarray_of_a_tracer, (F3,), "np.asarray(x) + 1"),
    "array": (array_of_a_tracer, (F3,), "np.array(x, copy=True) * 2"),
}


@pytest.mark.parametrize("case", CONVERSION)
def test_tracer_conversion_error_names_the_line(case):
    # With autograph (the default) np.asarray/np.array of a traced value return a traced array
    # (tests/jitcore/test_inside_arrays.py); without it NumPy converts, and that is the error.
    fn, args, text = CONVERSION[case]
    raises_naming_the_line(jc.TracerConversionError, fn, args, text, autograph=False)


# -- UnsupportedError --------------------------------------------------------------------------

def spacing_of_a_tracer(x):
    y = x * 2
    return np.spacing(y)


def nextafter_of_a_tracer(x):
    return np.nextafter(x, 1.0)


def at_divide_with_an_array_index(x):
    return x.at[np.array([0, 1])].divide(2.0)


UNSUPPORTED = {
    "spacing": (spacing_of_a_tracer, (F3,), "np.spacing(y)"),
    "nextafter": (nextafter_of_a_tracer, (F3,), "np.nextafter(x, 1.0)"),
    "at-divide": (at_divide_with_an_array_index, (F3,), "x.at[np.array([0, 1])].divide(2.0)"),
}


@pytest.mark.parametrize("case", UNSUPPORTED)
def test_unsupported_error_names_the_line(case):
    fn, args, text = UNSUPPORTED[case]
    raises_naming_the_line(jc.UnsupportedError, fn, args, text)


# -- JitTypeError: shapes, dtypes, axes, return values -----------------------------------------

def add_unbroadcastable(a, b):
    c = a * 2
    return c + b


def reshape_to_a_wrong_size(x):
    return x.reshape(4, 2)


def sum_over_a_missing_axis(x):
    return x.sum(axis=2)


def where_unbroadcastable(a, b):
    return jnp.where(a > 0, a, b)


def matmul_mismatch(a, b):
    return a @ b


def concatenate_mismatch(a):
    return np.concatenate([a, np.ones((2, 2))])


def cast_float_into_int_in_place(x):
    return np.add(x, 1.5, out=x)


def bitwise_and_of_floats(x):
    return x & x


def max_over_an_empty_axis(x):
    return np.max(x, axis=1)


def assign_unbroadcastable(x, y):
    x[:2] = y
    return x


JIT_TYPE = {
    "broadcast": (add_unbroadcastable, (F3, F4), "return c + b"),
    "reshape": (reshape_to_a_wrong_size, (np.ones(6),), "x.reshape(4, 2)"),
    "axis": (sum_over_a_missing_axis, (np.ones((2, 3)),), "x.sum(axis=2)"),
    "where": (where_unbroadcastable, (F3, F4), "jnp.where(a > 0, a, b)"),
    "matmul": (matmul_mismatch, (np.ones((2, 3)), np.ones((2, 3))), "return a @ b"),
    "concatenate": (concatenate_mismatch, (F3,), "np.concatenate([a, np.ones((2, 2))])"),
    "cast": (cast_float_into_int_in_place, (np.ones(3, np.int32),), "np.add(x, 1.5, out=x)"),
    "dtype": (bitwise_and_of_floats, (F3,), "return x & x"),
    "empty-axis": (max_over_an_empty_axis, (np.zeros((3, 0)),), "np.max(x, axis=1)"),
    "assign": (assign_unbroadcastable, (F3, F3), "x[:2] = y"),
}


# Where NumPy raises ValueError (or AxisError), jitcore's error is that class too (and still a
# JitTypeError): ``except ValueError`` keeps working under jit.
JIT_TYPE_CLASS = {"broadcast": jc.JitValueError, "reshape": jc.JitValueError, "axis": jc.JitAxisError,
                  "where": jc.JitValueError, "matmul": jc.JitValueError,
                  "concatenate": jc.JitValueError, "empty-axis": jc.JitValueError,
                  "assign": jc.JitValueError}


@pytest.mark.parametrize("case", JIT_TYPE)
def test_jit_type_error_names_the_line(case):
    fn, args, text = JIT_TYPE[case]
    error = JIT_TYPE_CLASS.get(case, jc.JitTypeError)
    message = raises_naming_the_line(error, fn, args, text)
    assert issubclass(error, jc.JitTypeError), message


def returns_a_set(x):
    y = x + 1
    return y, {"done"}


def test_jit_type_error_for_a_return_value_names_the_function():
    # The error is found after the function returned: its def line is the best line there is.
    message = raises_naming_the_line(jc.JitTypeError, returns_a_set, (F3,),
                                     "def returns_a_set(x):")
    assert "returned a set" in message


# -- errors that mirror NumPy's: IndexError, ValueError, TypeError -----------------------------

def index_out_of_bounds(x):
    return x[5]


def too_many_indices(x):
    return x[1, 2]


def constant_index_array_out_of_bounds(x):
    return x[np.array([0, 7])]


def mask_of_the_wrong_length(x):
    return x[np.array([True, False])]


def take_out_of_bounds(x):
    return np.take(x, 9)


def squeeze_a_long_axis(x):
    return np.squeeze(x, axis=0)


def split_unevenly(x):
    return np.split(x, 2)


def len_of_a_0d_array(x):
    return len(x.sum())


MIRRORED = {
    "index": (IndexError, index_out_of_bounds, (F3,), "return x[5]"),
    "too-many": (IndexError, too_many_indices, (F3,), "return x[1, 2]"),
    "index-array": (IndexError, constant_index_array_out_of_bounds, (F3,), "x[np.array([0, 7])]"),
    "mask": (IndexError, mask_of_the_wrong_length, (F3,), "x[np.array([True, False])]"),
    "take": (IndexError, take_out_of_bounds, (F3,), "np.take(x, 9)"),
    "squeeze": (ValueError, squeeze_a_long_axis, (np.ones((2, 3)),), "np.squeeze(x, axis=0)"),
    "split": (ValueError, split_unevenly, (F3,), "np.split(x, 2)"),
    "len": (TypeError, len_of_a_0d_array, (F3,), "len(x.sum())"),
}


@pytest.mark.parametrize("case", MIRRORED)
def test_numpy_mirroring_error_names_the_line(case):
    error, fn, args, text = MIRRORED[case]
    with pytest.raises(error):
        fn(*args)  # NumPy raises the same class on the same code
    raises_naming_the_line(error, fn, args, text)


# -- which line --------------------------------------------------------------------------------

def helper_that_broadcasts(a, b):
    return a - b


def calls_a_helper(a, b):
    c = a * 2
    return helper_that_broadcasts(c, b)


def test_the_innermost_user_line_is_named():
    message = raises_naming_the_line(jc.JitValueError, calls_a_helper, (F3, F4), "return a - b",
                                     line_fn=helper_that_broadcasts)
    assert f"{THIS_FILE}:{line_of(calls_a_helper, 'helper_that_broadcasts(c, b)')}" not in message


def raises_its_own_error(x):
    raise ValueError("the user's own message")


def test_errors_raised_by_the_users_code_are_left_alone():
    with pytest.raises(ValueError) as info:
        jc.jit(raises_its_own_error)(F3)
    assert str(info.value) == "the user's own message"  # the traceback already points at it
    assert not hasattr(info.value, "__notes__")


def test_lower_names_the_line_too():
    with pytest.raises(jc.JitTypeError) as info:
        jc.jit(add_unbroadcastable).lower(F3, F4)
    assert f"{THIS_FILE}:{line_of(add_unbroadcastable, 'return c + b')}" in str(info.value)
    assert "return c + b" in str(info.value)


inner_index = jc.jit(index_out_of_bounds)
inner_broadcast = jc.jit(add_unbroadcastable)


def calls_jitted_functions(x, which):
    # The inner function is traced (and fails) while the outer one is being traced.
    return x + (inner_index(F3) if which == "index" else inner_broadcast(F3, F4))


@pytest.mark.parametrize("which, error, text, fn", [
    ("index", IndexError, "return x[5]", index_out_of_bounds),
    ("broadcast", jc.JitTypeError, "return c + b", add_unbroadcastable)])
def test_an_error_crossing_two_traces_names_the_line_once(which, error, text, fn):
    with pytest.raises(error) as info:
        jc.jit(calls_jitted_functions, static_argnames="which")(F3, which)
    e = info.value
    shown = str(e) if isinstance(e, jc.JitcoreError) else "\n".join(e.__notes__)
    assert shown.count(f"{THIS_FILE}:{line_of(fn, text)}") == 1, shown
    assert shown.count(text) == 1, shown


# -- a new user's mistakes (audit25): jitcore's own error, naming the line and the way out --------

def arange_to_a_traced_bound(x):
    n = int(x[0])
    return np.arange(n)


def zeros_of_a_traced_size(x):
    return np.zeros(int(x.sum()))


def empty_of_a_traced_size(x):
    return np.empty((int(x.sum()), 3))


def dict_keyed_by_a_traced_value(x):
    table = {0: 1.0, 1: 2.0}
    return table[x[0]]


def list_appended_in_a_traced_loop(x, n):
    out = []
    for i in range(n):
        out.append(x[i] * 2)
    return np.array(out)


MISTAKES = {
    "arange": (arange_to_a_traced_bound, (np.array([3.0]),), "return np.arange(n)",
               jc.ConcretizationError, "numpy.arange's length"),
    "zeros": (zeros_of_a_traced_size, (F3,), "np.zeros(int(x.sum()))", jc.ConcretizationError,
              "the shape of numpy.zeros"),
    "empty": (empty_of_a_traced_size, (F3,), "np.empty((int(x.sum()), 3))",
              jc.ConcretizationError, "the shape of numpy.empty"),
    "dict key": (dict_keyed_by_a_traced_value, (np.array([1]),), "return table[x[0]]",
                 jc.JitTypeError, "cannot be a dict key"),
    # Refused at the loop whose body changes the list: its body is traced once (loops36).
    "list append": (list_appended_in_a_traced_loop, (F4, np.int64(3)), "for i in range(n):",
                    jc.UnsupportedError, "changes a Python object"),
}


@pytest.mark.parametrize("case", MISTAKES)
def test_a_new_users_mistakes_name_the_line_and_the_way_out(case, without_auto_static):
    fn, args, text, error, why = MISTAKES[case]
    assert why in raises_naming_the_line(error, fn, args, text)
