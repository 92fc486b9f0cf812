"""``a if test else b`` with a traced test gives the side Python gives, never a blend of both:
sides of two shapes, two lengths or two array dtypes were joined by ``np.where``, which
broadcast or promoted them (``np.array([2.]) if reduced else np.array([1., 1.])`` gave
``[2., 2.]``; a 3x3 ``eye`` for a vector of ones). Such a test is now made static where it comes
from a scalar argument (one compile per value), and refused with jitcore's error otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitcoreError
from tests.oracle import assert_same_tree


def _weights(reduced):
    return np.array([2.0]) if reduced else np.array([1.0, 1.0])


def _points(reduced):
    return np.array([0.0] if reduced else [-0.5, 0.5])


def _dtypes(flag):
    return np.array([1, 2], np.int32) if flag else np.array([1, 2], np.int64)


def _scalar_or_array(t):
    return 3.0 if t > 0 else np.array([1.0, 2.0])


def _matrix_or_vector(t):
    return np.eye(3) if t > 0 else np.ones(3)


def _count(reduced):
    n = 0.0
    for _ in np.array([0.0]) if reduced else np.array([-1.0, 1.0]):
        n += 1.0
    return n


@pytest.mark.parametrize("f", [_weights, _points, _dtypes, _scalar_or_array, _matrix_or_vector, _count])
def test_sides_of_two_forms_follow_a_scalar_argument(f):
    jitted = jc.jit(f)
    for value in (True, False, 1.0, -1.0, True):
        assert_same_tree(jitted(value), f(value))


def _data_picks(x):
    return x[0] if x.sum() > 0 else x


def _data_picks_dtype(x):
    return x if x.sum() > 0 else x.astype(np.float32)


def _data_picks_length(x):
    return [x[0]] if x.sum() > 0 else [x[0], x[1]]


@pytest.mark.parametrize("f", [_data_picks, _data_picks_dtype, _data_picks_length])
def test_sides_of_two_forms_picked_by_data_are_refused(f):
    with pytest.raises(JitcoreError, match="x if test else y"):
        jc.jit(f)(np.ones(3))


def _same_form(x, t):
    lo, hi = (x[:2], x[1:]) if t > x[0] else (x[1:] * 2, x[:2])
    s = x.sum() if t > 0 else 1  # scalars of two kinds: picked by the data
    return lo + hi, s


def test_sides_of_one_form_stay_traced():
    jitted = jc.jit(_same_form)
    x = np.arange(3.0)
    for t in (-1.0, 0.5, 2.0):
        assert_same_tree(jitted(x, t), _same_form(x, t))


def _number_in_arithmetic(x):
    acc = x * 0.0
    for j in range(x.shape[0]):
        acc = acc + (x * j if j > 0 else 0.0)  # a loop's counter picks: the number broadcast
    return acc + (x if x.sum() > 0 else 1.0)


def test_a_number_or_an_array_used_in_arithmetic_compiles():
    jitted = jc.jit(_number_in_arithmetic)
    for x in (np.arange(4.0), -np.arange(5.0)):
        assert_same_tree(jitted(x), _number_in_arithmetic(x))
