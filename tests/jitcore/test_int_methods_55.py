"""Session 55: ``n.bit_length()`` and ``math.isqrt(n)`` of a traced Python int compile
(``python_division.int_bit_length`` / ``int_sqrt``); they needed a concrete value. A negative
``isqrt`` raises Python's ValueError from the call, a float its TypeError while compiling."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.oracle import assert_same_tree


def int_facts(x):
    n = int(x[0])
    return n.bit_length(), math.isqrt(abs(n)), math.isqrt(x[1]), math.isqrt(np.uint64(x[1]))


_EDGES = [
    0,
    1,
    2,
    3,
    4,
    15,
    16,
    2**31,
    2**52 - 1,
    2**52 + 1,
    2**53 + 1,
    4503599761588223,
    3037000499**2 - 1,
    3037000499**2,
    2**63 - 1,
    -1,
    -(2**53) - 1,
    -(2**63) + 1,
]


def _check(v: int, w: int) -> None:
    x = np.array([v, w], np.int64)
    assert_same_tree(jc.jit(int_facts)(x), int_facts(x))


def test_bit_length_and_isqrt_at_the_edges():
    for v in _EDGES:
        _check(v, abs(v))


@settings(max_examples=examples(40, 15), deadline=None)
@given(st.integers(-(2**63) + 1, 2**63 - 1), st.integers(0, 2**63 - 1))
def test_bit_length_and_isqrt_match_python(v, w):
    _check(v, w)


def test_isqrt_errors_are_pythons():
    with pytest.raises(ValueError, match="isqrt\\(\\) argument must be nonnegative"):
        jc.jit(int_facts)(np.array([1, -4]))
    with pytest.raises(jc.JitTypeError, match="cannot be interpreted as an integer .*test_int_methods_55"):
        jc.jit(lambda x: math.isqrt(x[0]))(np.array([4.0]))
