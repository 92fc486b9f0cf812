"""newuser37: ``np.pad`` with a constant per side and the statistic modes ('mean', 'median',
'maximum', 'minimum' with ``stat_length``), and ``np.r_``/``np.c_`` of traced arrays, each under
jit against NumPy: the same dtype, shape and bits, NumPy's errors as jitcore's."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp


def assert_same(got, want):
    assert type(got) is type(want)
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


MATRIX = np.array([[1.0, 5.0, 2.0, -0.0], [7.0, np.nan, 3.0, 0.5], [-1.0, 4.0, 0.0, 9.0]])
INTS = np.array([[3, 1, 2, 8], [5, 6, 9, -4]], dtype=np.int16)
PAD_CASES = {
    # name: (pad_width, keywords); each on MATRIX and INTS
    "a value per side": (((1, 2), (3, 1)), dict(constant_values=((-1, 9), (4, 7)))),
    "a pair for every axis": (2, dict(constant_values=(-1.5, 2.5))),  # cast to int16 as NumPy assigns
    "one axis padded, values unused": (((0, 0), (1, 2)), dict(constant_values=((5, 6), (1, 2)))),
    "mean": (((2, 1), (1, 2)), dict(mode="mean")),  # int16: rounded to even (2.5 -> 2)
    "median": (((1, 1), (2, 0)), dict(mode="median")),
    "mean of stat_length": (((1, 2), (2, 3)), dict(mode="mean", stat_length=((1, 2), (3, 1)))),
    "maximum of stat_length": (2, dict(mode="maximum", stat_length=2)),
    "minimum, stat_length past the axis": (1, dict(mode="minimum", stat_length=10)),
}


@pytest.mark.parametrize("case", PAD_CASES)
def test_pad_matches_numpy(case):
    width, kwargs = PAD_CASES[case]
    fn = jc.jit(lambda v: np.pad(v, width, **kwargs))
    for x in (MATRIX, INTS, INTS[0]):  # the 1-d one: a new compile, NumPy's width rules
        try:
            with np.errstate(invalid="ignore"):
                want = np.pad(x, width, **kwargs)
        except ValueError:  # a pair per axis for a 1-d array: NumPy's error, and jit's
            with pytest.raises(ValueError):
                fn(x)
            continue
        assert_same(fn(x), want)


def test_pad_statistic_errors_are_numpys():
    with pytest.raises(ValueError, match="stat_length of 0"):
        np.pad(INTS, 1, mode="maximum", stat_length=((1, 1), (0, 1)))
    with pytest.raises(jc.JitValueError, match="stat_length of 0"):
        jc.jit(lambda v: np.pad(v, 1, mode="maximum", stat_length=((1, 1), (0, 1))))(INTS)
    with pytest.raises(jc.JitValueError, match="can't extend empty axis"):
        jc.jit(lambda v: np.pad(v, 1, mode="mean"))(np.ones((0, 2)))


def pad_with(vector, pad_width, iaxis, kwargs):
    """NumPy's example of a function mode (np.pad's reference page)."""
    pad_value = kwargs.get("padder", 10)
    vector[:pad_width[0]] = pad_value
    vector[-pad_width[1]:] = pad_value


def edge_by_hand(vector, w, iaxis, kwargs):
    """Each side from the line's value next to it: the later axis's reads see the earlier's pads."""
    if w[0]:
        vector[:w[0]] = vector[w[0]]
    if w[1]:
        vector[-w[1]:] = vector[-w[1] - 1] * (iaxis + 1)


def mirror_if_positive(vector, w, iaxis, kwargs):
    """An ``if`` on a traced element and a loop over the pad: compiled in the function's loop."""
    for i in range(w[0]):
        v = vector[w[0] + i + 1]
        if v > 0:
            vector[w[0] - 1 - i] = -v
        else:
            vector[w[0] - 1 - i] = v * iaxis


@pytest.mark.parametrize("function, width, kwargs", [
    (pad_with, 2, {}), (pad_with, ((1, 2), (3, 1)), {"padder": -1.5}),
    (edge_by_hand, ((1, 0), (2, 1)), {}), (mirror_if_positive, ((2, 1), (2, 2)), {}),
])
def test_pad_with_a_function_matches_numpy(function, width, kwargs):
    for x in (MATRIX[:, :3] - 2, INTS):
        want = np.pad(x, width, function, **kwargs)
        got = jc.jit(lambda v: np.pad(v, width, function, **kwargs))(x)
        np.testing.assert_array_equal(got, want, strict=True)


X, Y, F32 = np.array([1.0, -0.0, 3.0]), np.array([4, 5, 6]), np.float32([1.5, 2.5])
CONCATENATIONS = {
    "r_ of arrays and numbers": lambda x, y, s: np.r_[x, 0, 7.5, y],
    "r_ of ranges": lambda x, y, s: np.r_[x, 0:3, -1:1:5j],
    "c_ of columns": lambda x, y, s: np.c_[x, y, x * 2],
    "c_ of a matrix and a column": lambda x, y, s: np.c_[np.outer(x, y), x],
    "r_ along the last axis": lambda x, y, s: np.r_["-1", np.outer(x, y), np.outer(y, x)],
    "r_ with ndmin": lambda x, y, s: np.r_["0,2", x, y],
    "r_ with ndmin and trans1d": lambda x, y, s: np.r_["1,2,0", x, y],
    "weak Python scalars": lambda x, y, s: (np.r_[s, 1.0], np.r_[s, 2], np.c_[s, s]),
    "a NumPy scalar is not weak": lambda x, y, s: np.r_[s, np.float64(1.0)],
    "traced scalars": lambda x, y, s: np.r_[x.sum(), y.max(), s[0]],
    "a list holding traced numbers": lambda x, y, s: np.r_[[x[0], x[2]], y],
    "jitcore.numpy's own": lambda x, y, s: (jnp.r_[x, y], jnp.c_[x, y]),
}


@pytest.mark.parametrize("case", CONCATENATIONS)
def test_r_and_c_match_numpy(case):
    fn = CONCATENATIONS[case]
    got, want = jc.jit(fn)(X, Y, F32), fn(X, Y, F32)
    for g, w in zip(*((v if isinstance(v, tuple) else (v,)) for v in (got, want)), strict=True):
        assert_same(g, w)


def test_r_and_c_refusals_and_errors():
    with pytest.raises(jc.UnsupportedError, match="np.matrix"):
        jc.jit(lambda x: np.r_["r", x, x])(X)
    with pytest.raises(jc.JitValueError, match="first entry"):
        jc.jit(lambda x: np.r_[x, "0,2"])(X)
    with pytest.raises(jc.JitValueError, match="differ outside axis"):
        jc.jit(lambda x: np.r_[x, np.outer(x, x)])(X)
    assert jnp.r_[1:3, 7].tolist() == [1, 2, 7]  # outside jit: NumPy's own
