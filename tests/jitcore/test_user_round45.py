"""Round 45 of the new users' programs (/work/lead-out/t45): what they found, against plain
Python and NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _same(got, want):
    assert type(got) is type(want), (got, want)
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want), (got, want)


@pytest.mark.parametrize("x", [np.array([1.0, -2.0, 3.0]), np.array([-1.0, 2.0, -3.0])])
def test_python_bools_chosen_by_the_data_stay_bools(x):
    """``True if t else False`` and ``not t`` are Python bools, as Python gives them (an int
    and a NumPy bool before); a flag toggled in a loop (ray casting's ``inside = not
    inside``) too."""
    def choose(x):
        return True if x[0] > 0 else False, not (x[0] > 0), not x[1], [not (v > 0) for v in x]

    def toggled(x):
        inside = False
        for i in range(x.shape[0]):
            if x[i] > 0:
                inside = not inside
        return inside

    def chosen_in_loop(x):
        seen = False
        for i in range(x.shape[0]):
            seen = True if x[i] > 2 else seen
        return seen

    for fn in (choose, toggled, chosen_in_loop):
        _same(jc.jit(fn)(x), fn(x))


def test_nan_to_num_without_a_copy_writes_its_argument():
    def f(x):
        y = np.nan_to_num(x, copy=False, nan=-1.0)
        return y.sum(), y is x

    def of_a_view(x):
        np.nan_to_num(x[1:], copy=False)
        return x

    for fn in (f, of_a_view):
        a = np.array([1.0, np.nan, np.inf, -np.inf])
        b = a.copy()
        _same(jc.jit(fn)(b), fn(a))
        np.testing.assert_array_equal(b, a)


def _solve_or_zeros(A, b):
    try:
        x = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        x = np.zeros_like(b)
    return x


def _cholesky_or_none(A):
    try:
        L = np.linalg.cholesky(A)
        ok = True
    except Exception:  # noqa: BLE001
        L, ok = A, False
    return L, ok


@pytest.mark.parametrize("fn", [_solve_or_zeros, _cholesky_or_none])
def test_try_around_linalg_compiles_and_a_bad_matrix_raises(fn):
    """A matrix NumPy factors gives NumPy's result, under ``except Exception`` too (the
    fallback ran while tracing before, for every matrix); a singular one's LinAlgError is
    found when the compiled code runs and (session 50) takes the except there, as Python's."""
    good = [np.eye(2), np.ones(2)] if fn is _solve_or_zeros else [np.eye(2)]
    _same(jc.jit(fn)(*good), fn(*good))
    bad = [np.zeros((2, 2)), np.ones(2)] if fn is _solve_or_zeros else [-np.eye(2)]
    _same(jc.jit(fn)(*bad), fn(*bad))


def test_except_exception_does_not_take_jitcores_refusal():
    """``except Exception:`` around code jitcore refuses (here: an index from the data) used to
    run its fallback while tracing, silently: the refusal now reaches the caller."""
    def f(x, i):
        try:
            v = x[i]
            ok = True
        except Exception:  # noqa: BLE001
            v, ok = x[0], False
        return v, ok

    g = jc.jit(f)
    x = np.array([1.0, 2.0, 3.0])
    _same(g(x, 2), f(x, 2))  # i static on demand: the index checked while tracing
    _same(g(x, 7), f(x, 7))
