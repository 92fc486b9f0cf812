"""A new user's NumPy programs, fourteenth round (newuser36): the kinds of code people jit
(finite differences, ODE integrators, Monte Carlo with a generator passed in, k-means, Newton
iterations, scans in Python loops, masks and fancy indexing, grids built inside, promotion with
Python and NumPy scalars, integer overflow, in-place updates, einsum, clip, searchsorted,
interp, diff, cumsum, bincount), examples from NumPy's documentation, and what this round made
compile: ``np.random.Generator`` arguments, parameters' default arrays, ``numpy.polynomial``'s
other bases and series objects, ``einsum``'s interleaved form and lambdas inside a longer
expression (a dict of lambdas). Each runs under ``jc.jit`` against NumPy as the earlier rounds'
programs do (tests/programs/like_numpy.py); what jitcore refuses on purpose is checked to be
its own error. Small sizes: one compile per program and input signature."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.programs.like_numpy import cases_and_jitted, check_program, check_refusal
from tools.user_programs_round14 import PROGRAMS, normal

CASES, JITTED = cases_and_jitted(PROGRAMS)


@pytest.mark.parametrize("name, k", CASES)
def test_user_program_matches_numpy(name, k):
    check_program(PROGRAMS, JITTED, name, k)


def monte_carlo_with_generator(rng, n):
    """NumPy's advice: pass the Generator in. Its draws are NumPy's, from each call's generator."""
    u = rng.random((n, 2))
    inside = np.sum(u * u, axis=1) <= 1.0
    idx = rng.choice(n, size=4, replace=False)
    return 4.0 * inside.mean(), u[idx, 0], rng.normal(1.0, 2.0, size=3)


MONTE_CARLO = jc.jit(monte_carlo_with_generator, static_argnames="n")


def test_monte_carlo_with_a_generator_passed_in():
    for seed in (1, 2):
        mine, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(2):
            for g, w in zip(MONTE_CARLO(mine, 50), monte_carlo_with_generator(numpys, 50), strict=True):
                np.testing.assert_array_equal(g, w, strict=True)
    assert len(MONTE_CARLO._cache) == 1  # one compile for every generator


def _bincount_without_minlength(labels):
    return np.bincount(labels)


def _unique_counts(x):  # (returned, np.unique is compiled: tests/test_data_dependent_length.py)
    # (its len() since session 47, [0] since 50, [::2] since 51: a reshape needs its length)
    return np.unique(x, return_counts=True)[1].reshape(-1, 1)


def _polynomial_fit(x, y):
    return np.polynomial.Polynomial.fit(x, y, 2)(x)


def _reduceat_traced_indices(x, idx):
    return np.logical_or.reduceat(x > 0, idx)  # (add, multiply, maximum, minimum compile: wrong49)


def _flat_nonzero(x):  # (its .shape and len() compile since session 47, [0] since 50, [::2] since 51)
    return np.flatnonzero(x > 0) + np.arange(4)


REFUSED = {
    "np.bincount without minlength (its length is the largest label's)": (
        _bincount_without_minlength, (np.array([0, 2, 5]),), jc.ConcretizationError, "needs minlength="),
    "np.unique (as many values as distinct ones)": (
        _unique_counts, (np.array([3, 1, 3]),), jc.JitTypeError, "depends on the data"),
    "np.flatnonzero (as many indices as nonzeros)": (
        _flat_nonzero, (normal(4),), jc.JitTypeError, "depends on the data"),
    "Polynomial.fit of traced data (its object holds NumPy arrays)": (
        _polynomial_fit, (np.linspace(-1, 1, 6), normal(6)), jc.TracerConversionError, "chebval, legval"),
    "np.logical_or.reduceat at traced indices": (
        _reduceat_traced_indices, (normal(6), np.array([0, 2, 4])), jc.UnsupportedError, "static indices"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refusals_are_jitcores_errors(case):
    check_refusal(*REFUSED[case])


def test_python_int_out_of_an_int8_arrays_range_raises_as_numpy_does():
    """NEP 50: int8 array + 300 is NumPy's OverflowError; jitcore's is one too."""
    with pytest.raises(OverflowError):
        np.array([1], np.int8) + 300
    with pytest.raises(OverflowError, match="300"):
        jc.jit(lambda a: a + 300)(np.array([1], np.int8))


def test_einsum_sublists_outside_numpys_letters_are_refused():
    with pytest.raises(jc.JitValueError, match=r"integers in \[0, 52\)"):
        jc.jit(lambda a: np.einsum(a, [0, 60]))(np.ones((2, 2)))
