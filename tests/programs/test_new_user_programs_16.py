"""A new user's NumPy programs, sixteenth round (newuser38): physics, signal processing, linear
algebra in plain NumPy, machine learning, array utilities, dtype corners, NumPy's reference
pages and statistics of selections by a mask (the programs and their inputs:
tools/user_programs_round16.py, shared with tools/bench_user_programs_round16.py), and what this
round made compile: order statistics, histograms and bincounts of ``x[mask]`` (masked.py with
numpy/selection_statistics.py), ``np.sort``/``np.argsort`` of complex numbers, and
``np.logical_or/and/xor.accumulate``; ``x.strides``/``.flags``/``.ctypes`` are jitcore's clear
error. Each program runs under ``jc.jit`` against NumPy (tests/programs/like_numpy.py), which
now also checks an argument the program writes into (``u[1:-1] = ...``) against NumPy's; the
new mechanisms get differential tests on NumPy's edge values and random masks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.programs.like_numpy import cases_and_jitted, check_program, check_refusal, compare_like_numpy
from tests.strategies import edge_set
from tools.user_programs_round16 import PROGRAMS, normal

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


# ------------------------------------------------------------------ statistics of x[mask]
def _selection_statistics(x, m):
    s = x[m]
    return (
        np.median(s),
        np.nanmedian(s),
        np.percentile(s, [0, 10, 50, 99.5, 100]),
        np.quantile(s, 0.3, method="lower"),
        np.quantile(s, 0.7, method="midpoint"),
        np.nanquantile(s, 0.4, method="weibull"),
        np.histogram(s, bins=3, range=(-5, 5))[0],
    )


def _selection_statistics_along(X, rows):
    return np.median(X[rows], axis=0), np.quantile(X[rows], [0.25, 0.5], axis=0, method="nearest")


SELECTION = jc.jit(_selection_statistics)
SELECTION_ALONG = jc.jit(_selection_statistics_along)


def _like_numpy(got, want, what):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            compare_like_numpy(g, w, 64, f"{what}, result {i}")


@settings(max_examples=examples(25, ci=12), deadline=None)
@given(
    st.lists(st.sampled_from(list(edge_set(np.float64))), min_size=16, max_size=16),
    st.lists(st.booleans(), min_size=16, max_size=16).filter(any),
)
def test_order_statistics_of_a_selection_match_numpy(values, mask):
    """NaN, infinities, -0.0 and ties among the selected values and the left-out ones (an empty
    selection raises: tested below)."""
    x, m = np.array(values), np.array(mask)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = _selection_statistics(x, m)
    _like_numpy(SELECTION(x, m), want, f"{x!r}[{m!r}]")


@settings(max_examples=examples(15, ci=8), deadline=None)
@given(st.lists(st.booleans(), min_size=6, max_size=6).filter(any), st.integers(0, 2**31))
def test_order_statistics_along_a_selections_axis_match_numpy(rows, seed):
    X = np.random.default_rng(seed).integers(-3, 4, (6, 4)).astype(np.float64)  # ties
    X[seed % 6, seed % 4] = np.nan
    m = np.array(rows)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = _selection_statistics_along(X, m)
    _like_numpy(SELECTION_ALONG(X, m), want, f"rows {m!r}")


def test_integer_selections_keep_numpys_dtypes():
    """int8 values (the fill that sorts last is 127, a value that may be selected too)."""

    def f(i, m):
        s = i[m]
        return np.median(s), np.quantile(s, [0.0, 0.5, 1.0], method="higher"), np.percentile(s, 30)

    i = np.array([127, -128, 5, 127, 0, -1, 3, 127], np.int8)
    for m in (i > 0, i != 5, np.arange(8) == 3):
        _like_numpy(jc.jit(f)(i, m), f(i, m), f"{i!r}[{m!r}]")


def test_bincount_and_histogram_of_a_selection_match_numpy():
    def f(labels, w, x):
        valid = labels >= 0
        return (
            np.bincount(labels[valid], minlength=4),
            np.bincount(labels[valid], weights=w[valid], minlength=4),
            *np.histogram(x[x < 10], bins=3),
            *np.histogram(x[x < 10], bins=2, weights=w[x < 10]),
        )

    g = jc.jit(f)
    labels = np.array([3, -1, 0, 0, -7, 2])
    for x in (np.array([0.5, 20.0, -1.0, 3.0, 9.0, 2.0]), np.full(6, 11.0), np.array([4.0, 4, 4, 50, 4, 4])):
        _like_numpy(g(labels, np.arange(6.0), x), f(labels, np.arange(6.0), x), f"{x!r}")


# NumPy's errors on bad data, raised by the compiled call.
def _percentile_of_nothing(x):
    return np.percentile(x[x > 5], 50)


def _histogram_of_a_selection_with_inf(x):
    return np.histogram(x[x > 0], bins=3)


def _bincount_of_a_selection_past_minlength(i):
    return np.bincount(i[i > 0], minlength=3)


NUMPY_ERRORS = {
    "np.percentile of an empty selection": (
        _percentile_of_nothing,
        (np.array([1.0, 2.0]),),
        IndexError,
        "index -1",
    ),
    "np.histogram of a selection holding inf, no range=": (
        _histogram_of_a_selection_with_inf,
        (np.array([1.0, -np.inf, np.inf]),),
        ValueError,
        "not finite",
    ),
}


@pytest.mark.parametrize("case", NUMPY_ERRORS)
def test_numpys_errors_are_raised(case):
    fn, args, builtin, words = NUMPY_ERRORS[case]
    with warnings.catch_warnings(), pytest.raises(builtin, match=words):
        warnings.simplefilter("ignore")
        fn(*args)
    with pytest.raises(builtin, match=words):
        jc.jit(fn)(*args)


def test_a_selected_value_past_minlength_is_jitcores_index_error():
    """(NumPy grows the result; jitcore's length is minlength, so it raises, as for a whole x.)"""
    f = jc.jit(_bincount_of_a_selection_past_minlength)
    np.testing.assert_array_equal(f(np.array([-9, 1, 2, 0])), [0, 1, 1])  # -9: left out, no error
    with pytest.raises(IndexError):
        f(np.array([1, 3]))


# ------------------------------------------------------------------ complex sorts, logical scans
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_sort_matches_numpy_on_edge_values(dtype):
    """Every pair of special parts (NaN, inf, -0.0, subnormal, ...), with repeats: sort and a
    stable argsort, along either axis."""
    z = np.resize(edge_set(dtype), 2 * 40)

    def f(z):
        return (
            np.sort(z),
            np.argsort(z, kind="stable"),
            np.sort(z.reshape(2, -1), axis=0),
            np.sort(z, axis=None),
        )

    for g, w in zip(jc.jit(f)(z), f(z), strict=True):
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        np.testing.assert_array_equal(g, w)  # (the stable argsort: the exact order of ties)


def test_logical_accumulations_match_numpy():
    def f(x, b):
        return (
            np.logical_or.accumulate(x),
            np.logical_and.accumulate(x),
            np.logical_xor.accumulate(x),
            np.logical_xor.accumulate(b, axis=1),
            np.logical_and.accumulate(b, axis=0),
        )

    x = np.resize(edge_set(np.float64), 300)  # NaN and -0.0: true and false
    b = np.random.default_rng(16).random((3, 300)) < 0.5  # more than 255 trues: parity, not a count
    b[1] = True
    for g, w in zip(jc.jit(f)(x, b), f(x, b), strict=True):
        np.testing.assert_array_equal(g, w, strict=True)


# ------------------------------------------------------------------ what jitcore refuses, clearly
def _strides(x):
    return x.strides


def _real_if_close(z):
    return np.real_if_close(z)


def _sort_of_a_selection(x):  # (np.sort(x[x > 0]) compiles since session 51; a static shape not)
    return np.sort(x[x > 0]).reshape(-1, 1)


def _median_of_a_complex_selection(z):
    return np.median(z[z.real > 0])


REFUSED = {
    "x.strides": (_strides, (normal(4),), jc.UnsupportedError, "sliding_window_view"),
    "np.real_if_close (its dtype depends on the data)": (
        _real_if_close,
        (normal(3) + 0j,),
        jc.JitTypeError,
        "depending on the data",
    ),
    "np.sort of a selection reshaped (its shape depends on the data)": (
        _sort_of_a_selection,
        (normal(5),),
        jc.JitTypeError,
        "depends on the data",
    ),
    "np.median of a complex selection": (
        _median_of_a_complex_selection,
        (normal(3) + 1j,),
        jc.JitTypeError,
        "complex",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])
