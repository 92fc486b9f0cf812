"""Inputs and errors as NumPy users expect (issue 12, item 5), each test written as the user
code the issue quotes: ndarray subclasses with semantics of their own are refused, objects
with ``__array__`` are converted, out-of-range Python ints raise OverflowError as in NumPy 2, a
traced axis or shape raises ConcretizationError naming ``static_argnames``, jitcore's errors
are NumPy's classes too, no hint advises making an array static, and the ndarray methods
behave as on arrays (``item``/``tolist`` need data; ``fill``, ``trace``, ... do not)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def numpy_error(fn, *args):
    """The exception NumPy raises for ``fn(*args)`` (the oracle), or None."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 -- any class: it is what jit must match
        return e
    return None


# -- ndarray subclasses and array-likes ------------------------------------------------------

def test_masked_array_is_refused_rather_than_losing_its_mask():
    x = np.ma.array([1, 2, 100], mask=[0, 0, 1])
    with pytest.raises(jc.JitTypeError) as info:
        jc.jit(lambda x: x.sum())(x)  # NumPy: 3; the data alone would give 103
    message = str(info.value)
    assert "MaskedArray" in message and "x.filled(" in message and "np.asarray(x)" in message
    assert jc.jit(lambda x: x.sum())(x.filled(0)) == x.sum()


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's own warning
def test_matrix_is_refused_saying_how_to_convert():
    with pytest.raises(jc.JitTypeError, match=r"matrix.*np\.asarray\(x\)"):
        jc.jit(lambda x: x * 2)(np.matrix([[1.0, 2.0]]))


class Tagged(np.ndarray):
    """A subclass that jitcore knows nothing about."""


def test_unknown_ndarray_subclass_is_refused():
    x = np.arange(3.0).view(Tagged)
    with pytest.raises(jc.JitTypeError, match=r"Tagged.*np\.asarray\(x\)"):
        jc.jit(lambda x: x + 1)(x)


def test_memmap_is_a_plain_array_and_writes_reach_it(tmp_path):
    m = np.memmap(tmp_path / "data", dtype=np.float64, mode="w+", shape=(4,))
    m[:] = np.arange(4.0)

    def double_in_place(x):
        x *= 2
        return x.sum()

    assert jc.jit(double_in_place)(m) == 12.0
    np.testing.assert_array_equal(np.asarray(m), [0.0, 2.0, 4.0, 6.0])


class SeriesLike:
    """What pandas Series and xarray offer NumPy: ``__array__``."""

    def __init__(self, values):
        self.values = np.asarray(values)

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


def test_object_with_array_protocol_is_converted_like_numpy_does():
    s = SeriesLike([1.0, 2.0, 3.0])
    result = jc.jit(lambda x: x * 2)(s)
    assert type(result) is np.ndarray
    np.testing.assert_array_equal(result, np.asarray(s) * 2)
    # and inside a pytree, next to ordinary arrays
    out = jc.jit(lambda d: d["s"] + d["a"])({"s": s, "a": np.ones(3)})
    np.testing.assert_array_equal(out, np.asarray(s) + 1)


def test_unhashable_object_is_not_advised_to_be_static():
    class Unhashable:
        __hash__ = None

    with pytest.raises(jc.JitTypeError) as info:  # (session 49: an object is an argument; returned, refused)
        jc.jit(lambda x: x)(Unhashable())
    assert "static_arg" not in str(info.value)


# -- Python ints out of an integer array's range -------------------------------------------

def test_python_int_out_of_int8_range_raises_overflow_error():
    with pytest.raises(OverflowError):
        np.ones(3, np.int8) + 1000  # the oracle: NumPy 2
    with pytest.raises(OverflowError) as info:
        jc.jit(lambda a, b: a + b)(np.ones(3, np.int8), 1000)  # wrapped to -23 before
    assert isinstance(info.value, jc.JitOverflowError)
    assert "int8" in str(info.value) and "b" in str(info.value)


def test_python_int_constant_out_of_range_raises_overflow_error():
    with pytest.raises(OverflowError):
        jc.jit(lambda a: a + 1000)(np.ones(3, np.int8))


def test_python_int_in_range_reuses_the_compiled_code():
    f = jc.jit(lambda a, b: a + b)
    a = np.ones(3, np.int8)
    np.testing.assert_array_equal(f(a, 5), a + 5)
    np.testing.assert_array_equal(f(a, 100), a + 100)
    assert f.cache_info().compiles == 1  # 5 and 100 both fit int8 and uint8
    with pytest.raises(OverflowError):
        f(a, 128)


def test_assignment_of_an_out_of_range_python_int_raises_overflow_error():
    def put(a, b):
        a[0] = b
        return a

    with pytest.raises(OverflowError):
        put(np.ones(3, np.uint8), -1)
    with pytest.raises(OverflowError):
        jc.jit(put)(np.ones(3, np.uint8), -1)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(INT_DTYPES), value=st.integers(-(2 ** 63), 2 ** 63 - 1),
       op=st.sampled_from(["add", "mul", "lt", "eq", "maximum"]))
def test_python_int_against_integer_array_matches_numpy(dtype, value, op):
    fns = {"add": lambda a, b: a + b, "mul": lambda a, b: b * a, "lt": lambda a, b: a < b,
           "eq": lambda a, b: b == a, "maximum": lambda a, b: np.maximum(a, b)}
    fn = fns[op]
    a = np.array([0, 1, 7], dtype)
    expected = numpy_error(fn, a, value)
    if expected is not None:
        with pytest.raises(type(expected)):
            jc.jit(fn)(a, value)
        return
    with np.errstate(over="ignore"):
        want = fn(a, value)
    got = jc.jit(fn)(a, value)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bounds", [(0, 1000), (-1000, 50), (-5, 50), (None, 1000), (-1000, None),
                                    (2, None)])
def test_clip_of_an_int8_array_to_python_int_arguments_matches_numpy(bounds):
    a = np.array([1, -5, 100], np.int8)
    lo, hi = bounds
    want = np.clip(a, lo, hi)  # NumPy 2 drops a bound beyond the dtype on its harmless side
    got = jc.jit(lambda a, lo, hi: np.clip(a, lo, hi))(a, lo, hi)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("value", [5, 1000, 2.5])
def test_where_with_a_python_scalar_argument_keeps_the_arrays_dtype(value):
    c, a = np.array([True, False, True]), np.ones(3, np.int8)
    fn = jc.jit(lambda c, a, v: np.where(c, a, v))
    for arr in (a, a.astype(np.float32)):
        want, got = np.where(c, arr, value), fn(c, arr, value)
        assert got.dtype == want.dtype  # int8 with 1000 wraps, as in NumPy
        np.testing.assert_array_equal(got, want)


# -- a traced axis, shape or count ---------------------------------------------------------

TRACED_STATIC = {
    "axis": lambda x, n: x.sum(n),
    "axis keyword": lambda x, n: np.mean(x, axis=n),
    "shape": lambda x, n: x.reshape(n, -1),
    "zeros": lambda x, n: np.zeros((n, 2)),
    "repeat": lambda x, n: np.repeat(x, n),
    "tile": lambda x, n: np.tile(x, n),
    "concatenate axis": lambda x, n: np.concatenate([x, x], n),
}


@pytest.mark.parametrize("case", TRACED_STATIC)
def test_traced_axis_shape_or_count_names_static_argnames(case, without_auto_static):
    fn = TRACED_STATIC[case]
    x = np.ones((2, 3))
    with pytest.raises(jc.ConcretizationError) as info:
        jc.jit(fn)(x, 1)  # was: TypeError: iteration over a 0-d array
    assert "static_argnames=('n',)" in str(info.value)
    np.testing.assert_array_equal(jc.jit(fn, static_argnames="n")(x, 1), fn(x, 1))


def test_no_hint_advises_making_an_array_static():
    def axis_from_data(x):
        return x.sum(axis=int(x[0]))

    with pytest.raises(jc.ConcretizationError) as info:
        jc.jit(axis_from_data)(np.zeros(3))
    message = str(info.value)
    assert "static_argnames=(" not in message and "not hashable" in message


def test_hint_for_a_value_from_an_array_and_a_scalar_advises_only_the_scalar():
    with pytest.raises(jc.ConcretizationError) as info:
        jc.jit(lambda x, k: x.sum(axis=int(x[0]) + k))(np.zeros(3), 0)
    message = str(info.value)
    assert "static_argnames=('k',)" in message and "'x'" not in message


# -- jitcore's errors are NumPy's classes too ------------------------------------------------

NUMPY_ERRORS = {
    "argmax of empty": (lambda x: x.argmax(), (np.ones(0),)),
    "min of empty": (lambda x: x.min(), (np.ones(0),)),
    "broadcast": (lambda a, b: a + b, (np.ones(3), np.ones(4))),
    "reshape": (lambda x: x.reshape(4, 2), (np.ones(6),)),
    "axis": (lambda x: x.sum(axis=2), (np.ones((2, 3)),)),
    "repeated axis": (lambda x: x.sum(axis=(0, 0)), (np.ones((2, 3)),)),
    "matmul": (lambda a, b: a @ b, (np.ones((2, 3)), np.ones((2, 3)))),
    "dot": (lambda a, b: np.dot(a, b), (np.ones((2, 3)), np.ones((2, 3)))),
    "concatenate": (lambda a: np.concatenate([a, np.ones((2, 2))]), (np.ones(3),)),
    "einsum": (lambda a, b: np.einsum("ij,ij->i", a, b), (np.ones((2, 3)), np.ones((2, 4)))),
    "overflow": (lambda a: a + 300, (np.ones(2, np.uint8),)),
    "index": (lambda x: x[5], (np.ones(3),)),
    "dtype": (lambda x: x & x, (np.ones(3),)),
}


@pytest.mark.parametrize("case", NUMPY_ERRORS)
def test_error_is_an_instance_of_the_class_numpy_raises(case):
    fn, args = NUMPY_ERRORS[case]
    expected = numpy_error(fn, *args)
    assert expected is not None
    with pytest.raises(type(expected)):
        jc.jit(fn)(*args)


def test_except_value_error_catches_argmax_of_empty():
    try:
        jc.jit(lambda x: x.argmax())(np.ones(0))
    except ValueError as e:
        assert isinstance(e, jc.JitValueError) and isinstance(e, jc.JitcoreError)
    else:
        pytest.fail("argmax of an empty array did not raise")


def test_axis_error_is_numpys_axis_error():
    with pytest.raises(np.exceptions.AxisError) as info:
        jc.jit(lambda x: x.sum(axis=2))(np.ones((2, 3)))
    assert isinstance(info.value, jc.JitAxisError) and "axis 2" in str(info.value)


# -- ndarray methods ---------------------------------------------------------------------

# (item() and tolist() give traced numbers since round 15: tests/jitcore/test_item_tolist_vectorize.py)
@pytest.mark.parametrize("method", ["tobytes"])
def test_methods_that_need_data_raise_concretization_error(method):
    with pytest.raises(jc.ConcretizationError, match=f"{method}\\(\\)"):
        jc.jit(lambda x: getattr(x, method)())(np.ones(1))  # was: AttributeError


METHODS = {
    "trace": lambda x: x.trace(),  # was: TypeError: 'Trace' object is not callable
    "trace offset": lambda x: x.trace(1, dtype=np.float32),
    "copy astype clip": lambda x: (x.copy(), x.astype(np.float32), x.clip(0, 5)),
    "dot": lambda x: x.dot(x.T),
    "repeat take": lambda x: (x.repeat(2, axis=1), x.take([2, 0], axis=0)),
    "mT nbytes itemsize": lambda x: (x.mT, x.nbytes, x.itemsize),
    "nonzero of concrete": lambda x: np.ones(3).nonzero()[0] + x.shape[0],
}


@pytest.mark.parametrize("case", METHODS)
def test_methods_that_need_no_data_match_numpy(case):
    fn = METHODS[case]
    x = np.arange(12.0).reshape(3, 4)
    got, want = jc.jit(fn)(x), fn(x)
    for g, w in zip(*(v if isinstance(v, tuple) else (v,) for v in (got, want))):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


def test_no_tracer_attribute_shadows_an_ndarray_method():
    from jitcore.tracer import Tracer

    for name in dir(np.ndarray):
        if name.startswith("_") or not hasattr(Tracer, name):
            continue
        ours = getattr(Tracer, name)
        method = callable(getattr(np.ndarray, name)) and not isinstance(
            getattr(np.ndarray, name), type)
        assert callable(ours) == method or isinstance(ours, property), name
    assert not set(Tracer.__slots__) & set(dir(np.ndarray))


def test_fill_and_view_write_as_numpy_does():
    def fill_and_write(x):
        y = np.empty_like(x)
        y.fill(2.5)
        v = x.view()
        v[0] = 7.0
        z = x.copy()
        z.partition(1)
        return y, z

    x, x_jit = np.array([3.0, 1.0, 2.0, 0.0]), np.array([3.0, 1.0, 2.0, 0.0])
    want, got = fill_and_write(x), jc.jit(fill_and_write)(x_jit)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1][1] == want[1][1]  # partition: the kth element in place
    np.testing.assert_array_equal(x_jit, x)  # the write through the view reached the argument


def test_view_as_another_dtype_of_one_size_reads_the_bits():
    x = np.array([1.0, -0.0, np.nan, -2.5])
    np.testing.assert_array_equal(jc.jit(lambda x: x.view(np.int64))(x), x.view(np.int64))
    assert jc.jit(lambda x: x[2].view(np.uint64))(x) == x[2].view(np.uint64)  # a NumPy scalar
    assert type(jc.jit(lambda x: x[2].view(np.uint64))(x)) is np.uint64
    h = np.array([[1, -7], [300, 0]], np.int16)[:, ::-1]  # strided: each element's own bits
    got = jc.jit(lambda h: h.view(np.float16) * 2)(h)
    np.testing.assert_array_equal(got.view(np.uint16), (h.view(np.float16) * 2).view(np.uint16))


def test_view_as_complex_is_refused():
    # another size of integer or float compiles since session 53 (the last axis's bytes)
    np.testing.assert_array_equal(jc.jit(lambda x: x.view(np.int32))(np.ones(3)), np.ones(3).view(np.int32))
    with pytest.raises(jc.UnsupportedError, match="astype"):
        jc.jit(lambda x: x.view(np.complex64))(np.ones(3))


def test_a_function_returning_its_written_argument_returns_the_callers_array():
    def write(x):
        x[0] = 7
        return x

    x = np.ones(3)
    assert jc.jit(write)(x) is x and x[0] == 7


# -- NumPy's memory layout -----------------------------------------------------------------

LAYOUT = {
    "scale": lambda x: x * 2,
    "chain": lambda x: np.sin(x) * 2 + 1,
    "row broadcast": lambda x: x + np.arange(4.0),
    "where": lambda x: np.where(x > 3, x, 0.0),
    "compare": lambda x: x > 3,
    "astype": lambda x: x.astype(np.float32),
    "transpose then add": lambda x: x.T + 1,
    "copy": lambda x: x.copy(),  # order="C", also for a Fortran-ordered x
    "reduction": lambda x: x.sum(axis=0),
    "pair": lambda x: (x - 1, x.max()),
}


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("case", LAYOUT)
def test_results_keep_numpys_memory_layout(case, order):
    fn = LAYOUT[case]
    x = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    want, got = fn(x), jc.jit(fn)(x)
    for w, g in zip(*(v if isinstance(v, tuple) else (v,) for v in (want, got))):
        w, g = np.asarray(w), np.asarray(g)
        np.testing.assert_array_equal(g, w)
        assert (g.flags.c_contiguous, g.flags.f_contiguous) == (w.flags.c_contiguous, w.flags.f_contiguous)


def test_fortran_result_mixed_with_a_c_array_is_c_ordered_as_in_numpy():
    f, c = np.asfortranarray(np.ones((3, 4))), np.ones((3, 4))
    got = jc.jit(lambda a, b: a + b)(f, c)
    assert got.flags.c_contiguous and not got.flags.f_contiguous


BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 4), (3, 1)), ((3, 4), (1, 4)),
                    ((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (2, 1, 4)),
                    ((1, 4), (3, 1)), ((3, 1, 4), (3, 1, 4))]


@pytest.mark.parametrize("orders", ["CC", "CF", "FC", "FF"])
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES)
def test_broadcast_results_take_numpys_contiguous_layout(shapes, orders):
    a, b = (np.asarray(np.arange(np.prod(s), dtype=np.float64).reshape(s), order=o)
            for s, o in zip(shapes, orders))
    fn = jc.jit(lambda a, b: a * b + 1)
    want, got = a * b + 1, fn(a, b)
    np.testing.assert_array_equal(got, want)
    if not (want.flags.c_contiguous or want.flags.f_contiguous):
        return  # NumPy's own mixed strides: jitcore gives a contiguous result of the same values
    layout = (want.flags.c_contiguous, want.flags.f_contiguous)
    assert (got.flags.c_contiguous, got.flags.f_contiguous) == layout


@pytest.mark.parametrize("fn", [np.unique_values, np.unique_counts])  # (np.unique: compiled)
def test_unique_explains_its_data_dependent_length(fn):
    with pytest.raises(jc.JitTypeError, match="distinct ones.*np.sort"):
        jc.jit(lambda x: fn(x))(np.array([3.0, 1.0, 3.0]))
