"""Python's ``max``/``min`` on traced scalars inside a jitted function: Python's own rule (a later
value wins only when it compares greater / smaller), NaN and signed zeros included."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples


def extremes(a, b, c):
    return max(a, b), min(a, b), max(a, b, c), min([c, a]), max(a + b, 0.5)


JITTED = jc.jit(extremes)
FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, math.nan]))


def same(got, want):
    got, want = float(got), float(want)
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


@settings(max_examples=examples(60, ci=20), deadline=None)
@given(a=FLOATS, b=FLOATS, c=FLOATS)
def test_matches_python_on_float_scalars(a, b, c):
    args = tuple(np.float64(v) for v in (a, b, c))
    got, want = JITTED(*args), extremes(*args)
    assert all(same(g, w) for g, w in zip(got, want)), (got, want)


def test_integers_and_a_mean_guarded_by_max():
    def centroid(x, labels):
        return (x * (labels == 1)).sum() / max((labels == 1).sum(), 1)

    x, labels = np.arange(6.0), np.array([0, 0, 2, 2, 0, 0])
    assert jc.jit(centroid)(x, labels) == centroid(x, labels) == 0.0
    labels[1] = 1
    assert jc.jit(centroid)(x, labels) == centroid(x, labels) == 1.0


def test_max_of_an_array_is_still_refused_with_the_concretization_error():
    def f(a):
        return max(a, 1)

    with pytest.raises(jc.ConcretizationError):
        jc.jit(f)(np.ones(3))
