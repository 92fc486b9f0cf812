"""A new user's NumPy programs, fifteenth round (newuser37): image processing, finance,
statistics, geometry, numerical methods, masked code, array construction, dtype corners and
examples of NumPy's reference pages (the programs and their inputs: tools/user_programs_round15.py,
shared with tools/bench_user_programs_round15.py), and what this round made compile: ``np.pad``
with a constant per side, 'mean'/'median', ``stat_length`` and a function as the mode,
``np.r_``/``np.c_`` of traced arrays, ``x.item()``/``x.tolist()``, ``np.round`` of complex numbers,
``np.vectorize`` of any Python function and ``np.fmax.accumulate``. Each runs under ``jc.jit``
against NumPy as the earlier rounds' programs do (tests/programs/like_numpy.py); NumPy's errors
are jitcore's, and what jitcore refuses on purpose is checked to be its own error. Small sizes:
one compile per program and input signature."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.programs.like_numpy import cases_and_jitted, check_program, check_refusal
from tools.user_programs_round15 import PROGRAMS, normal

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


# NumPy's errors on bad data, raised by the compiled call as jitcore's (each also the builtin).
def _histogram_of_nan(x):
    return np.histogram(x, bins=4)


def _all_nan_argmax(x):
    return np.nanargmax(x)


def _weights_summing_to_zero(x, w):
    return np.average(x, weights=w)


def _int16_times_a_large_python_int(a):
    return a * 100000


NUMPY_ERRORS = {
    "np.histogram of NaN without range=": (
        _histogram_of_nan,
        (np.array([1.0, np.nan]),),
        ValueError,
        "not finite",
    ),
    "np.nanargmax of all NaN": (_all_nan_argmax, (np.full(3, np.nan),), ValueError, "All-NaN"),
    "np.average with weights summing to 0": (
        _weights_summing_to_zero,
        (np.arange(3.0), np.zeros(3)),
        ZeroDivisionError,
        "sum to zero",
    ),
    "int16 times 100000 (NEP 50)": (
        _int16_times_a_large_python_int,
        (np.ones(2, np.int16),),
        OverflowError,
        "int16",
    ),
}


@pytest.mark.parametrize("case", NUMPY_ERRORS)
def test_numpys_errors_are_jitcores(case):
    fn, args, builtin, words = NUMPY_ERRORS[case]
    with pytest.raises(builtin, match=words):
        fn(*args)
    with pytest.raises(jc.JitcoreError, match=words) as info:
        jc.jit(fn)(*args)
    assert isinstance(info.value, builtin)


def _fortran_ravel(A):
    return A.T.ravel("F")


def _tolist_of_a_long_array(x):
    return sum(x.tolist())


def _histogram_auto(x):
    return np.histogram(x, bins="auto")


def _returns_a_dtype(x):
    return x * 2, (x * 2).dtype


def _r_matrix(x):
    return np.r_["r", x, x]


REFUSED = {
    "x.ravel('F') (a view in NumPy when it can be)": (
        _fortran_ravel,
        (normal(2, 3),),
        jc.UnsupportedError,
        "flatten",
    ),
    "x.tolist() of 5000 elements (unrolled)": (
        _tolist_of_a_long_array,
        (np.zeros(5000),),
        jc.UnsupportedError,
        "for v in x",
    ),
    "np.histogram with bins='auto'": (_histogram_auto, (normal(8),), jc.UnsupportedError, "give a count"),
    "np.r_ with the matrix directive": (_r_matrix, (normal(3),), jc.UnsupportedError, "np.matrix"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])


def test_a_dtype_among_the_results_is_returned_as_it_is():
    x = normal(3)
    got, want = jc.jit(_returns_a_dtype)(x), _returns_a_dtype(x)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] is want[1]  # np.dtype('float64'): one object, as NumPy gives it
