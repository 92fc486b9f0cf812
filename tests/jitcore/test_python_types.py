"""``isinstance`` and ``type`` of traced values answer as of the values they stand for: an
array is an ``ndarray``, ``x.sum()`` a NumPy scalar of its dtype, a Python number argument a
Python number. (They answered ``Tracer``, so ``isinstance(x, np.ndarray)`` took the wrong branch.)"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import UnsupportedError
from tests.budget import examples


def as_array(x):
    if isinstance(x, np.ndarray):
        return x.astype(float)
    return np.array([x], dtype=float)


def kinds(x, s, n, flag):
    return (isinstance(x, np.ndarray), isinstance(x[0], np.floating), isinstance(x.sum(), np.float64),
            isinstance(s, float), isinstance(n, int), isinstance(n, bool), isinstance(flag, (bool, np.bool_)),
            type(x) is np.ndarray, type(x.sum()).__name__, type(s).__name__, type(n * 2).__name__,
            isinstance(n, (float, np.integer)), isinstance(x, (list, tuple)), isinstance(x[0] > 0, np.bool_),
            isinstance(x.astype(np.int32)[0], np.int32))


@pytest.mark.parametrize("x", [np.arange(3), np.arange(3.0), np.ones((2, 2), np.float32)])
def test_isinstance_of_an_array_argument_takes_numpys_branch(x):
    f = jc.jit(as_array)
    for _ in range(2):
        got = f(x)
        np.testing.assert_array_equal(got, as_array(x))
        assert got.shape == x.shape


def test_isinstance_and_type_of_arrays_numpy_scalars_and_python_numbers():
    f = jc.jit(kinds)
    for args in [(np.ones(3), 2.0, 3, True), (np.arange(4.0), -1.5, 0, False)] * 2:
        assert f(*args) == kinds(*args)


def by_kind(x, v):
    if isinstance(v, bool):
        return x + 1
    if isinstance(v, np.bool_):
        return x + 2
    return x - 1


def test_a_python_bool_argument_is_a_bool_and_a_numpy_bool_a_numpy_bool():
    """A Python bool shared its signature with ``np.bool_`` (a strong bool): ``isinstance(flag,
    bool)`` was False, and a returned flag came back ``np.True_``."""
    f = jc.jit(by_kind)
    for v in (True, np.True_, False, np.False_, True):
        np.testing.assert_array_equal(f(np.ones(2), v), by_kind(np.ones(2), v))
    echo = jc.jit(lambda v: v)
    for v in (True, np.False_, False):
        assert type(echo(v)) is type(v) and echo(v) == v
    mixed = jc.jit(lambda x, v: x + v)
    for x in (np.ones(2, np.int8), np.ones(2, np.float32)):
        for v in (True, np.True_):
            got, want = mixed(x, v), x + v
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [np.allclose, np.array_equal, np.array_equiv])
def test_numpys_python_bool_functions_return_a_python_bool(fn):
    """``np.allclose``, ``np.array_equal`` and ``np.array_equiv`` return Python bools; jitted,
    they came back ``np.True_``."""
    f = jc.jit(lambda a, b: fn(a, b))
    for a, b in [(np.ones(3), np.ones(3)), (np.ones(3), np.arange(3.0)), (np.ones(2), np.ones(2))]:
        got = f(a, b)
        assert type(got) is bool and got == fn(a, b)


_ROUNDED = {d: jc.jit(lambda v, d=d: round(v, d)) for d in (0, 1, 2, 3, 7, 15, 16, -1, -3, 22, -22)}


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**6, 10**6).map(lambda k: k / 8)
       | st.integers(-10**9, 10**9).map(lambda k: k / 2000), st.sampled_from(sorted(_ROUNDED)))
@settings(max_examples=examples(300), deadline=None)
def test_round_of_a_python_float_is_pythons_correctly_rounded_round(v, d):
    """``round(v, d)`` of a Python float rounds its exact decimal value, half to even
    (``round(0.0025, 3)`` is 0.003): it was NumPy's scaled rint (0.002)."""
    got, want = _ROUNDED[d](v), round(v, d)
    assert type(got) is float
    assert got == want and np.signbit(got) == np.signbit(want) or (got != got and want != want)


def test_round_of_a_numpy_scalar_stays_numpys():
    f = jc.jit(lambda x: round(x[0], 2))
    assert f(np.array([2.675])) == round(np.float64(2.675), 2) == 2.68


def test_sorted_python_numbers_stay_python_numbers():
    """``sorted(x.tolist())`` gave NumPy scalars; Python numbers of one type stay Python's."""
    for fn, x in [(lambda r: sorted(r.tolist(), reverse=True)[:2], np.array([0.3, -0.1, 0.2])),
                  (lambda r: sorted(r.tolist()), np.array([3, -1, 2])),
                  (lambda r: sorted([r[0], r[1]]), np.array([0.3, -0.1]))]:
        got, want = jc.jit(fn)(x), fn(x)
        assert got == want and [type(v) for v in got] == [type(v) for v in want]


def test_a_traced_ternary_of_tuples_picks_each_item_and_none_on_one_side_is_refused():
    """``lo, hi = (p, q) if p < q else (q, p)`` was NumPy's where of two tuples (an
    np.asarray error); a None side was an AttributeError."""
    def order(P):
        lo, hi = (P[0], P[1]) if P[0] < P[1] else (P[1], P[0])
        return lo, hi

    def pair(x):
        a, b = (x, x * 2) if x.sum() > 0 else (x * 3, x)
        return a + b

    for fn, xs in [(order, [np.array([3.0, 2.0]), np.array([1.0, 2.0])]),
                   (pair, [np.array([1.0, 2.0]), np.array([-1.0, 0.0])])]:
        f = jc.jit(fn)
        for x in xs:
            got, want = f(x), fn(x)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
            assert type(got) is type(want)
    with pytest.raises(jc.JitcoreError, match="None on one side"):
        jc.jit(lambda x: x.sum() if x.sum() > 0 else None)(np.ones(2))


def test_three_argument_pow():
    """``pow(a, d, n)`` was NumPy's power called with three arguments (a TypeError); Python
    numbers are made static on demand, a modulus of traced array values is a clear refusal."""
    assert jc.jit(lambda a, d, n: pow(a, d, n))(2, 560, 561) == pow(2, 560, 561)
    with pytest.raises(UnsupportedError, match="pow"):
        jc.jit(lambda x: pow(int(x[0]), 3, int(x[1])))(np.array([2, 5]))


@pytest.mark.parametrize("x", [np.array([1.0, np.nan, 3.0]), np.array([np.nan, 1.0]), np.array([2, 1, 3]),
                               np.array([True, False]), np.arange(40.0) % 7, np.array([np.nan, np.nan]),
                               np.array([1.5, -2.0], np.float32)])
def test_builtin_max_and_min_of_a_1d_array(x):
    """``max(x)``/``min(x)`` of a traced 1-d array compared traced items (a refusal: the truth
    of a traced value); now Python's running choice: a NaN first wins, a later one never does.
    (A signed zero is the one difference: Python keeps the first of -0.0 and 0.0.)"""
    got = jc.jit(lambda v: (max(v), min(v)))(x)
    for g, w in zip(got, (max(x), min(x))):
        assert type(g) is type(w) and (g == w or (g != g and w != w))
    with pytest.raises(ValueError, match="empty sequence"):
        jc.jit(lambda v: max(v))(np.array([]))
