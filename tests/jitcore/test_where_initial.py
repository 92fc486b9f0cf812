"""``where=``, ``initial=`` and ``out=`` as NumPy takes them: on ufunc calls (the safe-division
idiom), on ufunc.reduce, on the reduction functions and on the ndarray methods alike."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import UnsupportedError
from tests.budget import examples

FORMS = {
    "safe division": lambda a, m: np.divide(a - a.mean(0), a.std(0), out=np.zeros_like(a),
                                            where=a.std(0) > 0),
    "sqrt, else -1": lambda a, m: np.sqrt(a - 0.5, out=np.full_like(a, -1.0), where=a > 0.5),
    "where without out": lambda a, m: np.where(m, np.multiply(a, 2.0, where=m), 0.0),
    "x.sum(where=)": lambda a, m: a.sum(axis=1, where=m),
    "x.prod(initial=)": lambda a, m: a.prod(axis=0, initial=2.0),
    "x.max(initial=, where=)": lambda a, m: a.max(axis=0, initial=-1.0, where=m),
    "x.min(where=) all axes": lambda a, m: a.min(initial=5.0, where=m),
    "x.mean(where=)": lambda a, m: a.mean(axis=1, where=m),
    "np.var(where=)": lambda a, m: np.var(a, axis=0, where=m),
    "x.std(ddof=, where=)": lambda a, m: a.std(axis=1, ddof=1, where=m),
    "np.var(correction=)": lambda a, m: np.var(a, axis=0, correction=1),
    "np.add.reduce(where=)": lambda a, m: np.add.reduce(a, where=m, axis=0),
    "np.maximum.reduce(initial=)": lambda a, m: np.maximum.reduce(a, axis=1, initial=0.7),
    "x.any(where=)": lambda a, m: (a > 0.9).any(axis=1, where=m),
    "x.all(where=)": lambda a, m: (a > 0.1).all(axis=0, where=m),
}
JITTED = {name: jc.jit(f) for name, f in FORMS.items()}


@pytest.mark.parametrize("name", sorted(FORMS))
@settings(max_examples=examples(12, ci=4), deadline=None)
@given(rows=st.integers(1, 6), cols=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_matches_numpy(name, rows, cols, seed):
    rng = np.random.default_rng(seed)
    a = rng.random((rows, cols))
    a[:, 0] = 0.25  # a column with no spread: the safe division's zero divisor
    m = rng.random((rows, cols)) > 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's mean of nothing
        warnings.simplefilter("ignore", UserWarning)  # NumPy's: where= without out= is uninitialised
        want = FORMS[name](a, m)
    got = JITTED[name](a, m)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True)


def test_an_integer_variance_of_nothing_is_nan_as_in_numpy():
    x = np.arange(6).reshape(2, 3)
    m = np.array([[True, False, False], [False, False, False]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.var(x, axis=1, where=m)
    np.testing.assert_array_equal(jc.jit(lambda x, m: np.var(x, axis=1, where=m))(x, m), want)


def test_a_bool_max_or_min_takes_any_initial_as_bool_does():
    # Found by the fuzzer (session 31): initial=np.inf raised OverflowError as for integers;
    # NumPy converts it into a bool reduction as bool(inf), True.
    x = np.array([[True, False], [False, False]])
    fn = lambda x: (np.max(x, axis=1, initial=np.inf), np.min(x, axis=1, initial=-np.inf),  # noqa: E731
                    np.min(x, initial=np.nan, where=x), np.max(x, axis=0, keepdims=True, initial=0.5))
    for got, want in zip(jc.jit(fn)(x), fn(x)):
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_python_float_initial_of_an_integer_reduction_is_truncated_then_range_checked():
    # Found by the fuzzer (session 31): initial=-2.5 of a uint16 max wrapped; NumPy takes
    # int(-2.5) and raises OverflowError, as for the Python int -2 (a NumPy float still wraps).
    u = np.array([0, 7], np.uint16)
    with pytest.raises(OverflowError, match="-2 out of bounds for uint16"):
        jc.jit(lambda u: np.max(u, initial=-2.5))(u)
    fn = lambda u: (np.max(u, initial=9.9), np.sum(u.astype(np.int8), initial=-2.5),  # noqa: E731
                    np.max(u, initial=np.float64(-2.5)))
    for got, want in zip(jc.jit(fn)(u), fn(u)):
        assert got.dtype == want.dtype and got == want


def test_max_with_a_mask_but_no_initial_is_numpys_value_error():
    with pytest.raises(ValueError, match="identity"):
        jc.jit(lambda a, m: a.max(where=m))(np.ones(3), np.ones(3, bool))


def test_where_on_a_two_output_ufunc_is_refused_by_name():
    with pytest.raises(UnsupportedError, match="divmod"):
        jc.jit(lambda a: np.divmod(a, 2.0, where=a > 0))(np.ones(3))
