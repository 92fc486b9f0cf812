"""NumPy's element-by-element functions that are not ufuncs (np.round, np.clip, np.where,
np.nan_to_num...) on a selection by a traced mask (``x[x < r]``), as ufuncs already were: the
same function of the kept elements, against NumPy on the compacted array (new users, round 51:
minimum images on a pair list, ``arccos(clip(...))`` of selected angles)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitTypeError
from tests.budget import examples

FUNCTIONS = {
    "round": lambda y: np.round(y),
    "round 2": lambda y: np.round(y, 2),
    "around -1": lambda y: np.around(y, -1),
    "method round": lambda y: y.round(1),
    "clip": lambda y: np.clip(y, -0.5, 1.0),
    "clip lower only": lambda y: np.clip(y, 0.0, None),
    "method clip": lambda y: y.clip(max=0.25),
    "where scalar": lambda y: np.where(y > 0.3, y, 0.0),
    "where two selections": lambda y: np.where(y > 0.3, y, -y),
    "nan_to_num": lambda y: np.nan_to_num(y, nan=-1.0, posinf=9.0),
    "fix": np.fix,
    "isclose": lambda y: np.isclose(y, 0.5, atol=0.2),
    "isposinf": np.isposinf,
    "arccos of clip": lambda y: np.arccos(np.clip(y, -1, 1)),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_elementwise_functions_of_a_selection_reduce_and_return_as_numpy(name):
    op = FUNCTIONS[name]

    def reduced(x, r):
        return np.sum(op(x[x < r]))

    def returned(x, r):
        return op(x[x < r])

    x = np.array([0.26, -1.7, np.nan, 0.5, np.inf, -np.inf, -0.0, 1.55, 0.3, 2.5, -0.25, 0.125])
    for f in (reduced, returned):
        jf = jc.jit(f)
        for r in (0.4, 10.0, -5.0):  # some, all but NaN, none kept
            got, want = jf(x, r), f(x, r)
            assert type(got) is type(want)
            if name == "arccos of clip":  # arccos: jitcore's math library, 2 ULP (tests/oracle.py)
                np.testing.assert_allclose(got, want, rtol=1e-15)
            else:
                np.testing.assert_array_equal(got, want)
            assert np.asarray(got).dtype == np.asarray(want).dtype


@settings(max_examples=examples(20, 6), deadline=None)
@given(st.lists(st.floats(-3, 3) | st.sampled_from([np.nan, np.inf, -np.inf, -0.0]), max_size=40),
       st.floats(-3, 3), st.integers(-2, 3))
def test_round_and_clip_of_drawn_selections(xs, r, decimals):
    def f(x, r, d):
        y = x[x < r]
        return np.round(y, d), np.clip(y, -1.5, 2.0).sum()

    x = np.array(xs, dtype=np.float64)
    got, want = jc.jit(f, static_argnums=2)(x, r, decimals), f(x, r, decimals)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_rows_of_a_2d_array_kept_by_a_1d_mask():
    def minimum_image(d, r, box):
        pairs = d[r < 4.0]  # the kept rows of (n, 3) differences
        return np.sum((pairs - box * np.round(pairs / box)) ** 2, axis=1).max()

    d = np.random.default_rng(3).uniform(-4, 4, (30, 3))
    r = np.linalg.norm(d, axis=1)
    assert jc.jit(minimum_image)(d, r, 5.0) == minimum_image(d, r, 5.0)


def test_int_and_complex_selections():
    def f(k, z):
        far = z[np.abs(z) > 1]
        return np.sum(np.clip(k[k > 2], 3, 7)), np.sum(np.real(far) + np.round(far).imag)

    k = np.arange(12)
    z = np.array([0.5 + 2.25j, 1.5 - 0.5j, 0.1j, -3.5 + 0.5j])
    got, want = jc.jit(f)(k, z), f(k, z)
    assert type(got[0]) is type(want[0]) and got == want


def test_out_and_an_unrelated_array_are_refused_naming_the_function():
    def with_out(x, buf):
        return np.round(x[x > 0], out=buf)

    def with_array(x, lo):
        return np.clip(x[x > 0], lo, 1.0).sum()

    x = np.linspace(-1, 1, 8)
    with pytest.raises(JitTypeError, match="numpy.round with out="):
        jc.jit(with_out)(x, np.empty(4))
    with pytest.raises(JitTypeError, match="numpy.clip with an array of shape"):
        jc.jit(with_array)(x, np.zeros(8))
