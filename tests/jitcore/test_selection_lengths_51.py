"""Selections of a run-time length (session 51, ``jitcore/run_length.py``), against plain Python
+ NumPy: results, dtypes, Python types, the arguments after the call, the errors raised.

``np.sort(x[x > 0])``, ``np.cumsum(x[m])``, ``np.diff``, ``x[m][-3:]``, ``np.concatenate`` with
arrays of a known length: the selection compacted into a buffer of capacity ``len(x)``, its
count a run-time length that the ops after it run at (``run_length.Prefix``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import ConcretizationError, JitTypeError
from tests.budget import examples


def _same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b)
    elif isinstance(want, np.ndarray):
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want), (got, want)


def _check(fn, *args):
    """``jit(fn)`` against ``fn``: the same results or error, the arguments unchanged alike."""
    mine, theirs = [a.copy() for a in args], [a.copy() for a in args]
    try:
        want = fn(*theirs)
    except Exception as error:  # noqa: BLE001  (NumPy's error is the oracle)
        with pytest.raises(type(error)) as raised:
            jc.jit(fn)(*mine)
        assert str(raised.value).split("\n")[0] == str(error)
        return
    _same(jc.jit(fn)(*mine), want)
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


# -- the ops, each one compiled function run over masks keeping none, one, some and all ----------
def sort_kept(x):
    return np.sort(x[x > 0])


def argsort_kept(x):
    return np.argsort(x[x > 0], kind="stable")


def running_total(x):
    return np.cumsum(x[x > 0])


def running_product(x):
    return x[x > 0].cumprod()


def steps(x):
    return np.diff(x[x > 0])


def second_steps(x):
    return np.diff(x[x > 0], 2)


def last_three(x):
    return x[x > 0][-3:]


def inner(x):
    return x[x > 0][1:-1]


def every_other_backwards(x):
    return x[x > 0][::-2]


def head_five(x):
    return x[x > 0][:5]


def joined(x):
    return np.concatenate([x[x > 0], x[:2]])


def between(x):
    return np.concatenate([x[:2], x[x > 0], x[x <= 0]])


def flipped_appended(x):
    return np.append(np.flip(x[x > 0]), [0.5, -1.0]), np.diff(x[x > 0]) * x[x > 0][1:]


def trimmed_mean(x):
    s = np.sort(x[x > 0])
    k = len(s) // 10
    return s[k:len(s) - k].mean()


def sorted_against_kept(x):
    return np.sort(x[x > 0]) - x[x > 0], np.cumsum(x[x > 0]) * x[x > 0]


def largest(x):
    return np.sort(x[x > 0])[-1], np.argsort(x[x > 0], kind="stable")[0], np.cumsum(x[x > 0]).max()


def median_of_steps(x):
    return np.median(np.diff(np.sort(x[x > 0])))


OPS = (sort_kept, argsort_kept, running_total, running_product, steps, second_steps, last_three,
       inner, every_other_backwards, head_five, joined, between, flipped_appended, trimmed_mean,
       sorted_against_kept, largest, median_of_steps)

_EDGES = (
    np.array([-1.0, -2.0, -3.0, -0.5]),            # none kept
    np.array([-1.0, 2.0, -3.0, -0.5]),             # one kept
    np.array([3.0, 1.0, 2.0, 5.0, 4.0, 0.5, 7.0]),  # all kept
    np.array([1.0, np.nan, -2.0, 3.0, 2.0, 0.0, 2.0, -0.0, 9.0, 1.5]),  # NaN (not kept), ties
    np.zeros(0),
)


@pytest.mark.parametrize("fn", OPS, ids=lambda f: f.__name__)
def test_edges(fn):
    f = jc.jit(fn)
    for x in _EDGES[:-1] if fn is median_of_steps else _EDGES:  # (np.median of a selection of
        # an empty x raises IndexError, before session 51 too)
        try:
            want = fn(x.copy())
        except Exception as error:  # noqa: BLE001
            with pytest.raises(type(error)):
                f(x.copy())
            continue
        _same(f(x.copy()), want)


@pytest.mark.parametrize("dtype", (np.float32, np.int64, np.int32, np.uint8, np.bool_))
def test_dtypes(dtype):
    """NumPy's result dtypes (cumsum of int32 and bool is int64, diff of bool is !=)."""
    x = np.array([3, 0, 1, 5, 0, 2, 2, 7, 1], dtype)

    def fn(x):
        y = x[x > 0]
        return np.sort(y), np.cumsum(y), np.diff(y), y[-2:], np.argsort(y, kind="stable")
    _check(fn, x)
    _check(fn, np.zeros(5, dtype))


def test_nan_sorts_last_among_kept():
    """Kept NaNs sort after every number and before the rows past the length."""
    x = np.array([np.nan, 3.0, -1.0, np.nan, 1.0, -np.inf, np.inf])
    _check(lambda x: (np.sort(x[x != -1]), np.argsort(x[x != -1], kind="stable")), x)


def test_two_dims():
    """A 2-d mask over a 2-d x: a 1-d selection; a 1-d mask: rows, sorted per row or along
    the selection, summed down it, sliced."""
    a = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0], [1.0, 1.0, -7.0]])
    _check(lambda a: (np.sort(a[a > 0]), np.cumsum(a[a > 0]), a[a > 0][-2:]), a)

    def rows(a):
        y = a[a[:, 0] > 0.7]
        return np.sort(y), np.sort(y, axis=0), np.cumsum(y, axis=0), y[-1:], y[:, 1], \
            np.diff(y, axis=0), np.cumsum(y), np.sort(y, axis=None)
    _check(rows, a)
    _check(rows, -a)


def test_traced_bounds():
    x = np.array([4.0, -1.0, 2.0, 8.0, -3.0, 6.0, 5.0])

    def fn(x, k, j):
        y = x[x > 0]
        return y[k:], y[:-k], y[j:k], y[k::-1], y[-k:]
    for k, j in ((2, 0), (0, 3), (-1, 1), (9, -9), (-9, 2)):
        _check(fn, x, np.int64(k), np.int64(j))


def test_index_of_a_run_length():
    x = np.array([4.0, -1.0, 2.0, 8.0])
    _check(lambda x: np.cumsum(x[x > 0])[-1], x)
    _check(lambda x: np.sort(x[x > 5])[1], x)  # IndexError from the call


def test_pairs_with_another_mask_checked():
    """A run-length selection against one by another mask: NumPy's error where counts differ."""
    x = np.array([4.0, -1.0, 2.0, 8.0])
    _check(lambda x: np.sort(x[x > 0]) + x[x < 5], x)
    _check(lambda x: np.sort(x[x > 0]) + x[x != -1], x)


def test_one_compile_for_several_sizes():
    def fn(x):
        return trimmed_mean(x), np.sort(x[x > 0])[-3:], np.cumsum(x[x > 0])
    f = jc.jit(fn)
    rng = np.random.default_rng(51)
    for n in (40, 90, 300):  # (the second size compiles the size-generic code, the third reuses it)
        x = rng.normal(size=n)
        _same(f(x), fn(x))
    info = f.cache_info()
    assert info.reused >= 1 and info.compiles < 3, info


@settings(max_examples=examples(30, 8), deadline=None)
@given(st.lists(st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0, np.nan, np.inf]), min_size=12,
                max_size=12), st.integers(-6, 6))
def test_random(values, k):
    """Masks keeping none, one, some, all; NaN; ties; one size, so one trace per function (other
    sizes: test_edges, test_one_compile_for_several_sizes)."""
    x = np.array(values, np.float64)
    for fn, compiled in _COMPILED:
        _same(compiled(x.copy(), np.int64(k)), fn(x.copy(), np.int64(k)))


def _sort_cum(x, k):
    y = x[x > 0]
    return np.sort(y), np.cumsum(y), np.diff(y), np.argsort(y, kind="stable"), np.concatenate([y, x[:1]])


def _slices(x, k):
    y = np.sort(x[x >= 0])
    return y[k:], y[:k], y[::-1][k:], y[-3:]


_COMPILED = [(fn, jc.jit(fn)) for fn in (_sort_cum, _slices)]


# -- what needs a static length stays refused, naming the op -------------------------------------
@pytest.mark.parametrize("fn, what", [
    (lambda x: np.sort(x[x > 0]).reshape(2, -1), ".reshape"),
    (lambda x: np.sort(x[x > 0]) + x, "numpy.add with an array of shape"),
    (lambda x: np.zeros(np.sort(x[x > 0]).shape + (2,)), "zeros"),  # (a 1-d shape: a selection, session 54)
    (lambda x: np.unique(x[x > 0], axis=0), "numpy.unique with axis="),  # (prepend=: compiled, session 52)
])
def test_still_refused(fn, what):
    with pytest.raises((JitTypeError, ConcretizationError), match="depends on the data") as raised:
        jc.jit(fn)(np.arange(-3.0, 5.0))
    assert what in str(raised.value)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_unique_of_a_selection_and_its_counts(dtype):
    """np.unique(x[m]) (new users, round 51: zones and vocabularies kept by a mask): sorted at
    the selection's length, first occurrences among the kept only (the filler past the count
    never a value), NaNs one value, counts by the same groups."""
    functions = {
        "values": lambda x, r: np.unique(x[x > r]),
        "len": lambda x, r: len(np.unique(x[x > r])),
        "counts": lambda x, r: np.unique(x[x > r], return_counts=True),
    }
    x = np.random.default_rng(5).integers(0, 10, 300).astype(dtype)
    if dtype != np.int64:
        x[::17], x[5], x[6] = np.nan, np.inf, -0.0
    for name, f in functions.items():
        jf = jc.jit(f)
        for r in (3, 100, -1):  # some, none, all (but NaN) kept
            got, want = jf(x, r), f(x, r)
            got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
            for g, w in zip(got, want):
                assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype, name
                np.testing.assert_array_equal(g, w)
