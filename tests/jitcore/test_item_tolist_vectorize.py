"""newuser37: what new users' programs did that jit refused: ``x.item(...)`` and ``x.tolist()``
of traced arrays (traced Python numbers, weak as NumPy's Python scalars are), ``np.round`` of
complex numbers (part by part, as NumPy's), and ``np.vectorize`` of any Python function (a
compiled loop over the elements, its ``if``/``while`` on the element compiled). Each under jit
against NumPy: values, dtypes, shapes; NumPy's errors as jitcore's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitcore as jc

X = np.array([1.5, -2.0, 3.25, 0.5])
I8 = np.array([[-128, 5], [7, 127]], np.int8)


def same_numbers(got, want):
    """Nested lists/tuples of numbers: the same structure, each number equal with its kind's
    dtype (a jitted function gives NumPy scalars where NumPy's gives Python numbers)."""
    if isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            same_numbers(g, w)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (got, want)
    np.testing.assert_array_equal(g, w, strict=True)


def loop_over_tolist(x):
    total = 0.0
    for v in x.tolist():
        if v > 0:
            total += v * v
    return total


PYTHON_NUMBERS = {
    "for over tolist, an if on each": (loop_over_tolist, X),
    "item forms": (lambda x: (x.item(0), x.item(-1), x[1:2].item(), x.reshape(2, 2).item(1, 0),
                              x.reshape(2, 2).item((0, 1))), X),
    "item is a weak float": (lambda x: x.astype(np.float32) * x.item(0), X),
    "int8 elements are Python ints": (lambda a: (a.item(0) * 1000, a.tolist(), a.item(3) + 1), I8),
    "nested, 0-d, bool, empty, complex": (lambda x: (
        x.reshape(2, 2).tolist(), x.sum().tolist(), (x > 0).tolist(), x[:0].tolist(),
        (x + 1j).astype(np.complex64).tolist(), x.astype(np.float16).tolist()), X),
}


@pytest.mark.parametrize("case", PYTHON_NUMBERS)
def test_item_and_tolist_match_numpy(case):
    fn, x = PYTHON_NUMBERS[case]
    same_numbers(jc.jit(fn)(x), fn(x))


def test_item_and_tolist_errors():
    with pytest.raises(jc.JitValueError, match="size 1"):
        jc.jit(lambda x: x.item())(X)
    with pytest.raises(IndexError, match="out of bounds"):
        jc.jit(lambda x: x.item(9))(X)
    with pytest.raises(jc.UnsupportedError, match="for v in x"):
        jc.jit(lambda x: x.tolist())(np.zeros(5000))


Z = np.array([1.25 + 2.35j, -0.3 - 0.2j, complex(np.inf, -0.45), complex(np.nan, 1.5), 2.5 + 0.5j,
              -0.0 - 0.0j, complex(-np.inf, np.nan)])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_round_of_complex_is_part_by_part_as_numpys(dtype):
    z = Z.astype(dtype)
    fn = jc.jit(lambda z: (np.round(z), np.round(z, 1), z.round(-1)))
    with np.errstate(all="ignore"):
        for got, want in zip(fn(z), (np.round(z), np.round(z, 1), z.round(-1)), strict=True):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (got, want)


def sign_flip(v):
    if v > 0:
        return v * 2
    return -v


def halvings(v):
    n = 0
    while v > 1.0:
        v = v / 2
        n += 1
    return n


@np.vectorize
def safe_sqrt(v):
    return math.sqrt(v) if v >= 0 else 0.0


V = np.array([-1.5, 0.0, 2.0, 3.5, -0.0, np.nan])
VECTORIZED = {
    "an if": lambda x: np.vectorize(sign_flip)(x),
    "a while": lambda x: np.vectorize(halvings)(np.abs(x) * 10),
    "two arguments broadcast": lambda x: np.vectorize(lambda a, b: a - b if a > b else a + b)(
        x.reshape(2, 3), np.array([0.5, 1.0, -3.0])),
    "otypes": lambda x: np.vectorize(sign_flip, otypes=[np.float32])(x),
    "two outputs": lambda x: np.vectorize(lambda v: (v * 2, v > 0))(x),
    "a decorated function calling math": lambda x: safe_sqrt(x),
    "a 0-d argument": lambda x: np.vectorize(sign_flip)(x[2]),
}


@pytest.mark.parametrize("case", VECTORIZED)
def test_vectorize_of_a_python_function_matches_numpy(case):
    fn = VECTORIZED[case]
    with np.errstate(invalid="ignore"):
        got, want = jc.jit(fn)(V), fn(V)
    for g, w in zip(*((v if isinstance(v, tuple) else (v,)) for v in (got, want)), strict=True):
        assert type(g) is type(w) and g.dtype == w.dtype and g.shape == w.shape, (got, want)
        np.testing.assert_array_equal(g, w)


def test_vectorize_is_one_loop_not_one_copy_per_element():
    text = str(jc.make_ir(lambda x: np.vectorize(sign_flip)(x))(np.zeros(1000)))
    assert text.count("scf.for") == 1 and text.count("scf.if") == 1, text


def test_vectorize_of_size_0_needs_otypes_as_in_numpy():
    with pytest.raises(jc.JitValueError, match="otypes"):
        jc.jit(lambda x: np.vectorize(sign_flip)(x))(np.zeros(0))
    got = jc.jit(lambda x: np.vectorize(sign_flip, otypes=[np.int8])(x))(np.zeros((0, 2)))
    assert got.dtype == np.int8 and got.shape == (0, 2)
