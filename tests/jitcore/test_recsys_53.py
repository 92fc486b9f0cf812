"""Session 53, a recommender-systems user's findings: an SGD epoch as a jitted method that
writes ``self.P``/``self.Q`` in place compiles as one loop (it was unrolled: its state held no
array); argsort/argpartition/lexsort of a 0-d array; a scatter that starts from a constant of
one value fills it rather than copying it. (ufunc.at's stepped loop: test_ufunc_methods.py.)"""

from __future__ import annotations

import warnings

import numpy as np

import jitcore as jc
from jitcore.autograph import statements
from jitcore.errors import CompileTimeWarning


class _MF:
    def __init__(self, seed):
        g = np.random.default_rng(seed)
        self.P, self.Q, self.lr = g.normal(0, 0.1, (10, 4)), g.normal(0, 0.1, (12, 4)), 0.05

    def fit_epoch(self, u, i, r):
        updates = 0
        for t in range(u.shape[0]):
            e = r[t] - self.P[u[t]] @ self.Q[i[t]]
            self.P[u[t]] += self.lr * e * self.Q[i[t]]
            updates += 1
        return updates


def test_method_writing_attribute_arrays_in_a_loop_compiles_one_loop():
    rng = np.random.default_rng(53)
    n = 30  # (before: unrolled at any length, its state holding no array)
    u, i, r = rng.integers(0, 10, n), rng.integers(0, 12, n), rng.random(n) * 5
    want, got = _MF(0), _MF(0)
    count = want.fit_epoch(u, i, r)
    fit = jc.jit(_MF.fit_epoch)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", CompileTimeWarning)
        got_count = fit(got, u, i, r)
        text = fit.lower(got, u, i, r).as_text()
    assert not [w for w in seen if "being unrolled" in str(w.message) or "ran unrolled" in str(w.message)]
    assert text.count("scf.for") == 1, text.count("scf.for")  # one loop, its body once
    assert got_count == count and type(got_count) is int  # a counter stepped by 1: known after
    # (pu @ Q[i]: a 4-term dot, whose order of additions may differ from NumPy's)
    np.testing.assert_allclose(got.P, want.P, rtol=1e-12, atol=1e-15)


def test_unrolling_warning_names_the_statements_cause():
    why = statements._why_python(range(3), (), (), effects=False, in_try=True)
    assert "inside a try" in why
    why = statements._why_python(range(3), (), (), effects=True, in_try=False)
    assert "changes a Python object" in why
    why = statements._why_python([1, 2], (), (), effects=False, in_try=False)
    assert "iterates over a Python list" in why
    why = statements._why_python(range(3), (object(),), ("cfg",), effects=False, in_try=False)
    assert "'cfg', a object" in why
    why = statements._why_python(range(3), (1.0,), ("s",), False, False, ValueError("no.\nmore"))
    assert why.endswith("was refused: no")
    assert statements._why_python(range(3), (1.0,), ("s",), False, False) is None


def test_argsort_argpartition_lexsort_of_0d_match_numpy():
    def f(x, y):
        s = x[1]  # a traced 0-d scalar
        return (
            np.argsort(y),
            np.argsort(s),
            np.argsort(y, axis=None),
            np.argsort(y, axis=0),
            y.argsort(),
            np.argpartition(y, 0),
            np.argpartition(y, -1),
            y.argpartition(0),
            np.argsort(y, kind="stable"),
            np.lexsort([y]),
            np.lexsort((y, s)),
        )

    x, y = np.array([1.0, 2.0]), np.array(3.0)
    for want, got in zip(f(x, y), jc.jit(f)(x, y), strict=True):
        assert type(got) is type(want) and got.dtype == want.dtype and np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)
    for g in (
        lambda v: np.argsort(v, axis=1),
        lambda v: np.argpartition(v, 1),
        lambda v: np.sort(v),
        lambda v: np.lexsort([v], axis=1),
    ):
        try:
            g(y)
        except (ValueError, np.exceptions.AxisError) as e:
            want = type(e)
        try:
            jc.jit(g)(y)
        except want:
            pass
        else:
            raise AssertionError("NumPy raises, jit did not")


def test_scatter_from_a_one_valued_constant_keeps_its_value_and_bits():
    def f(idx, v):
        a = np.full(6, 2.5)
        np.add.at(a, idx, v)  # repeats: one scatter-add, starting from the constant
        b = np.full(5, -0.0)
        b[idx[:2]] = v[:2]  # the others keep -0.0's sign
        c = np.full(7, 3, np.int16)
        np.add.at(c, idx, 1)
        return a, b, c, np.bincount(idx, minlength=9)

    idx, v = np.array([0, 4, 0, 3, 4, 4]), np.array([1.0, -2.0, 0.25, 8.0, 1.5, -1.0])
    for want, got in zip(f(idx, v), jc.jit(f)(idx, v), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
