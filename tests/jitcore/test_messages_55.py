"""Session 55's new users' refusals and messages (u1 R1, u2 R1-R3, M1).

- Boundary conditions by deletion (``K[keep][:, keep]``, ``np.setdiff1d``, ``np.ix_`` of a mask
  with ``fixed`` an argument): each message said "(.owner_trace)" or sent the user to another
  spelling refused the same way; now it names ``fixed``, ``static_argnames`` and the penalty
  method, and the static form it names compiles.
- scipy's rankdata (``np.r_[np.nonzero(obs)[0], n]``): refused with "(numpy.ndim)"; it compiles.
- ``math.comb`` of a count from the data: "1Traced<i64[]>" in the refusal; comb, perm and
  factorial compile (int64, OverflowError past it, Python's ValueErrors).
- ``Generator.permuted(x, axis=1)``: refused, saying it writes its argument; it draws NumPy's bits.
- A selection used in a helper: the message names the line that made it too.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitTypeError, UnsupportedError
from tests.jit_once import jit_once

HERE = __file__.rsplit("/", 1)[-1]


def by_mask(K, F, fixed):
    keep = np.ones(K.shape[0], bool)
    keep[fixed] = False
    u = np.zeros(K.shape[0])
    u[keep] = np.linalg.solve(K[keep][:, keep], F[keep])
    return u


def by_setdiff(K, F, fixed):
    free = np.setdiff1d(np.arange(K.shape[0]), fixed)
    u = np.zeros(K.shape[0])
    u[free] = np.linalg.solve(K[np.ix_(free, free)], F[free])
    return u


def by_ix(K, F, fixed):
    keep = np.ones(K.shape[0], bool)
    keep[fixed] = False
    u = np.zeros(K.shape[0])
    u[keep] = np.linalg.solve(K[np.ix_(keep, keep)], F[keep])
    return u


def by_static(K, F, fixed):
    return by_mask(K, F, np.asarray(fixed))


K6 = 2 * np.eye(6) - np.eye(6, k=1) - np.eye(6, k=-1)


@pytest.mark.parametrize("f", [by_mask, by_setdiff, by_ix])
def test_deletion_names_the_argument_and_the_static_form(f):
    with pytest.raises(JitTypeError) as e:
        jc.jit(f)(K6, np.ones(6), np.array([0, 5]))
    text = str(e.value)
    assert "static_argnames=('fixed',)" in text and "penalty method" in text and HERE in text, text
    assert "owner_trace" not in text and "pass integer indices" not in text and "~(a[:, None]" not in text
    got = jc.jit(by_static, static_argnames=("fixed",))(K6, np.ones(6), (0, 5))
    np.testing.assert_allclose(got, by_mask(K6, np.ones(6), np.array([0, 5])), rtol=1e-12)


def rankdata(x):
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    obs = np.r_[True, xs[1:] != xs[:-1]]
    dense = np.cumsum(obs)
    cnt = np.r_[np.nonzero(obs)[0], len(obs)]
    r = 0.5 * (cnt[dense] + cnt[dense - 1] + 1)
    out = np.empty_like(r)
    out[order] = r
    return out


def test_scipy_rankdata_compiles():
    rng = np.random.default_rng(0)
    for n in (1, 9, 200):
        x = rng.integers(0, 6, n).astype(np.float64)  # ties
        got, want = jit_once(rankdata)(x), rankdata(x)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def counts(n, k):
    return math.comb(n, k), math.perm(n, k), math.factorial(n), math.perm(n)


def comb_only(n, k):
    return math.comb(n, k)


def _python(f, n, k):
    try:
        out = f(n, k)
    except ValueError as e:
        return ("ValueError", str(e))
    return out if all(abs(v) <= np.iinfo(np.int64).max for v in np.atleast_1d(out)) else "overflow"


@pytest.mark.parametrize("n, k", [(5, 2), (0, 0), (10, 11), (20, 20), (-1, 2), (3, -1), (21, 3)])
def test_math_counts_as_python(n, k):
    want = _python(counts, n, k)
    try:
        got = jit_once(counts)(np.int64(n), np.int64(k))
    except OverflowError:
        got = "overflow"
    except ValueError as e:
        got = ("ValueError", str(e))
    assert got == want and (not isinstance(got, tuple) or type(got[0]) is type(want[0]))
    if isinstance(want, tuple) and not isinstance(want[0], str):
        assert all(type(v) is int for v in got)


@pytest.mark.parametrize("n, k", [(66, 33), (67, 33), (2**32, 2), (2**40, 2), (10**6, 3)])
def test_comb_up_to_int64(n, k):
    want = math.comb(n, k)
    if want > np.iinfo(np.int64).max:
        with pytest.raises(OverflowError):
            jit_once(comb_only)(np.int64(n), np.int64(k))
    else:
        assert jit_once(comb_only)(np.int64(n), np.int64(k)) == want


def sign_test(x, m0):
    d = x - m0
    npos = np.sum(d > 0)
    nneg = np.sum(d < 0)
    n = npos + nneg
    k = min(npos, nneg)
    p = 0.0
    for i in range(int(k) + 1):
        p += math.comb(int(n), i)
    return min(1.0, 2 * p / 2.0 ** int(n))


def letter_of_count(x):  # (chr asks __index__ from C: math.isqrt compiles since refuse55)
    return chr(int(np.sum(x > 0)) + 65)


def test_sign_test_and_a_clean_concretization_message():
    x = np.array([0.3, -1.2, 0.8, 1.5, 0.1, -0.2, 2.0])
    assert jc.jit(sign_test)(x, 0.0) == sign_test(x, 0.0)
    with pytest.raises(jc.ConcretizationError) as e:
        jc.jit(letter_of_count)(x)
    assert "but Traced<i64[]> is traced" in str(e.value) and not re.search(r"\dTraced<", str(e.value))


def permuted(rng, x, P):
    out = np.zeros((P, x.shape[0], x.shape[1]))
    for p in range(P):
        out[p] = rng.permuted(x, axis=1)
    return out, rng.permuted(x, axis=0), rng.permuted(x[0]), rng.permuted(x.T, axis=-1)


def test_permuted_draws_numpys_bits():
    x = np.random.default_rng(1).normal(size=(4, 7))
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    for a, b in zip(jc.jit(permuted)(r1, x, 70), permuted(r2, x, 70)):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert r1.bit_generator.state == r2.bit_generator.state
    with pytest.raises(UnsupportedError, match="axis=None"):
        jc.jit(lambda rng, x: rng.permuted(x))(np.random.default_rng(0), x)


def _helper(v):
    return v.reshape(2, -1).sum(0)


def wilcoxon_like(x, y):
    d = x - y
    d = d[d != 0]
    return _helper(np.abs(d))


def test_a_selection_used_in_a_helper_names_where_it_was_made():
    with pytest.raises(JitTypeError) as e:
        jc.jit(wilcoxon_like)(np.arange(4.0), np.array([0.0, 1.5, 2.0, 3.5]))
    made = wilcoxon_like.__code__.co_firstlineno + 2
    used = _helper.__code__.co_firstlineno + 1
    assert f"{HERE}:{used} (the selection comes from the boolean filter at" in str(e.value)
    assert f"{HERE}:{made})" in str(e.value), str(e.value)
