"""Arithmetic on a value whose type a traced condition chose keeps Python's and NumPy's type
and bits for the path taken (``jitcore/chosen_kind_arithmetic.py``): ``k = s2 / a if a > 0
else np.inf`` then ``n / (n + k)`` is a Python ``float`` where ``k`` took the Python path and an
``np.float64`` where it took the NumPy one. Plain Python + NumPy is the oracle: every result's
``repr`` (its value to the last bit and, for a NumPy scalar, its type) and type, for every pair of
kinds among Python float/int/bool and np.float64/np.float32/np.int64, both branch outcomes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples

KINDS = ("float", "int", "bool", "np.float64", "np.float32", "np.int64")


def _value(which, x64, x32, i64):
    if which == "float":
        return 2.5
    if which == "int":
        return 3
    if which == "bool":
        return True
    if which == "np.float64":
        return x64 * 2
    if which == "np.float32":
        return x32 * np.float32(2)
    return i64 + 1


def program(c, x64, x32, i64, n, t, first, second):
    k = _value(first, x64, x32, i64) if c > 0 else _value(second, x64, x32, i64)
    s = k
    s += 2
    return (k + 1, 1.5 * k, k - n, k * t, k / 4, n / (n + k), -k, abs(k), k ** 2, k // 2, k % 3,
            k + x32, x64 * k, k + i64, k > 1, k * k, s)


_program = jc.jit(program, static_argnames=("first", "second"))
_ARGS = (np.float64(0.1), np.float32(1.3), np.int64(4), 5, 0.7)


def _same(want, got, what):
    assert type(got) is type(want), (what, want, got)
    assert repr(got) == repr(want), what


@settings(max_examples=examples(10, ci=6), deadline=None)
@given(first=st.sampled_from(KINDS), second=st.sampled_from(KINDS))
def test_every_pair_of_kinds_on_both_paths(first, second):
    for c in (1.0, -1.0):
        args = (np.float64(c), *_ARGS)
        want = program(*args, first, second)
        got = _program(*args, first=first, second=second)
        for k, (w, g) in enumerate(zip(want, got)):
            _same(w, g, (first, second, c, k))


def credibility(s2, a, n):
    k = s2 / a if a > 0 else np.inf
    return n / (n + k)


def shifted(a):
    k = 2.0 * a if a > 0 else np.inf
    return k + 1


def reciprocal(a):
    k = 0.0 if a > 0 else a * 0
    return 1.0 / k


def test_the_reported_cases():
    for a in (np.float64(-1.0), np.float64(2.0)):
        _same(credibility(np.float64(3.0), a, 5), jc.jit(credibility)(np.float64(3.0), a, 5), a)
        _same(shifted(a), jc.jit(shifted)(a), a)


def test_pythons_error_only_on_the_python_path():
    """``1.0 / k`` raises ZeroDivisionError where ``k`` is Python's 0.0; NumPy's 0.0 gives -inf."""
    f = jc.jit(reciprocal)
    with pytest.raises(ZeroDivisionError):
        f(np.float64(1.0))
    with np.errstate(divide="ignore"):
        _same(reciprocal(np.float64(-1.0)), f(np.float64(-1.0)), "numpy path")


def numpy_functions(c, x, n):
    k = 0 if c > 0 else x.mean()
    j = x.mean() / c if c > 0 else np.inf
    return (np.sqrt(k), np.add(k, 1), np.multiply(k, True), np.floor_divide(k, 2), np.abs(k),
            np.negative(k), np.isnan(k), np.add(k, np.float32(1)), np.maximum(k, np.float32(0.5)),
            np.add(n, j), np.true_divide(n, j), np.sqrt(j), np.hypot(j, j))


def test_numpy_functions_keep_the_chosen_kind():
    """A ufunc called on such a value (``np.sqrt(k)``, ``np.add(k, 1)``) has NumPy's type for
    the kind taken: ``np.add(0, 1)`` is ``np.int64(1)``, ``np.add(np.float32(2), inf)`` of a
    Python ``inf`` an ``np.float32``."""
    f = jc.jit(numpy_functions)
    x = np.arange(4.0, dtype=np.float32)
    for c in (np.float64(1.0), np.float64(-1.0)):
        want, got = numpy_functions(c, x, np.float32(2)), f(c, x, np.float32(2))
        for k, (w, g) in enumerate(zip(want, got)):
            _same(w, g, (c, k))
