"""What session 55's users saw refused (session 56): cuts at a traced int that is no loop index,
a running min of ints started at ``np.inf`` (in ``min`` and as an ``if``), Python ints past
int64, a returned ``np.repeat`` of traced counts, and the messages of lists a loop cannot
compile as appending (t55/u3 R3 and R7). NumPy running the same Python is the oracle; where
jitcore refuses, the message names the cause, the user's line and what to write instead."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitOverflowError, JitTypeError, JitValueError, UnsupportedError
from tests.budget import examples
from tests.jit_once import jit_once


def same(got, want):
    assert type(got) is type(want), (got, want)
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


def _line(fn, text: str) -> int:
    """The line of ``fn``'s source that holds ``text``."""
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


# -- cuts at a traced int that is no loop index ---------------------------------------------------
def cuts(x, rows, c):
    """Every form at once, one compile: ``i`` read from the data."""
    i = c[0]
    j = int(np.argmax(x))
    return (
        np.concatenate([x[:i], x[i + 1 :]]),
        np.concatenate((x[i:], x[:i])),
        np.concatenate([x[:i], [9.5], x[i:]]),
        np.hstack([x[:j], x[j + 1 :]]),
        np.concatenate([rows[:i], rows[i + 1 :]]),
        np.r_[x[:i], x[i + 1 :]].sum(),
    )


@settings(max_examples=examples(20, 8), deadline=None)
@given(n=st.integers(1, 7), i=st.integers(-9, 9), data=st.data())
def test_cuts_at_a_traced_int_are_numpys_or_raise_naming_the_line(n, i, data):
    x = np.array(data.draw(st.lists(st.floats(-5, 5), min_size=n, max_size=n)), np.float64)
    rows = np.arange(3 * n, dtype=np.int32).reshape(n, 3)
    c = np.array([i])
    f = jit_once(cuts)
    if 0 <= i < n:
        same(f(x, rows, c), cuts(x, rows, c))
        return
    # NumPy counts a negative i from the end or clamps one past the end: another length
    line = _line(cuts, "np.concatenate([x[:i], x[i + 1 :]])")
    with pytest.raises(JitValueError, match=rf"slices cut at a traced int \(at .*:{line}\).*i % n"):
        f(x, rows, c)


# -- a running min of ints started at np.inf -------------------------------------------------
def running(x, t):
    lo = np.inf
    hi = -np.inf
    at = -1
    for i in range(len(x)):
        lo = min(lo, x[i])
        if x[i] > hi and x[i] > t:
            hi = x[i]
            at = i
    return lo, hi, at, -1 if hi == -np.inf else hi + 1


@settings(max_examples=examples(20, 8), deadline=None)
@given(
    values=st.lists(st.integers(-(2**40), 2**40), max_size=6),
    t=st.integers(-5, 5),
    dtype=st.sampled_from([np.int64, np.int32, np.uint64]),
)
def test_running_extremes_from_an_infinity_are_numpys(values, t, dtype):
    x = np.array(values if dtype != np.uint64 else np.abs(values), dtype)
    same(jit_once(running)(x, t), running(x, t))


def test_an_int_past_2_53_held_with_a_float_raises_naming_it():
    x = np.array([2**60 + 1, 3])
    line = _line(running, "lo = min(lo, x[i])")
    with pytest.raises(OverflowError, match=rf"the int 1152921504606846977 \(at .*:{line}\).*2\*\*53"):
        jc.jit(running)(x, 0)
    x = np.array([2**53 - 2, 3])  # (hi + 1 is 2**53 - 1: exact)
    same(jc.jit(running)(x, 0), running(x, 0))


# -- Python ints past int64 --------------------------------------------------------------------
def big_product(k):
    return k * 2**63


def big_step(k):
    return k - 2**64


def shifted(k):
    return 1 << k


def test_python_ints_past_int64_are_refused_naming_the_constant_or_the_line():
    for fn, constant in ((big_product, 2**63), (big_step, 2**64)):
        with pytest.raises(JitOverflowError, match=f"Python scalar {constant} does not fit in int64"):
            jc.jit(fn)(3)
    f = jc.jit(shifted)
    assert f(62) == 1 << 62
    where = re.escape(f"{shifted.__code__.co_filename}:{_line(shifted, '1 << k')})")
    with pytest.raises(OverflowError, match=f"past int64's range.*at {where}"):
        f(64)


# -- messages ----------------------------------------------------------------------------------
def repeated(x, c):
    return np.repeat(x, c)


def fronts(F):
    dom = (F[:, None, :] <= F[None, :, :]).all(-1) & (F[:, None, :] < F[None, :, :]).any(-1)
    ndom = dom.sum(axis=0)
    out = []
    remaining = np.ones(F.shape[0], bool)
    for _ in range(F.shape[0]):
        cur = remaining & (ndom == 0)
        if not cur.any():
            break
        out.append(np.flatnonzero(cur))
        ndom = np.where(remaining & ~cur, ndom - dom[cur].sum(axis=0), -1)
        remaining &= ~cur
    return out


def population(n, gens, rng):
    sizes = []
    for _ in range(gens):
        n = int(rng.poisson(1.0, size=n).sum())
        sizes.append(n)
        if n == 0:
            break
    return sizes


def test_refusals_name_their_cause_and_line():
    line = _line(repeated, "np.repeat")
    with pytest.raises(JitTypeError, match=rf"counts \(at .*:{line}\).*return x, counts.*np.searchsorted"):
        jc.jit(repeated)(np.arange(3.0), np.array([2, 0, 1]))
    line = _line(fronts, "if not cur.any()")
    with pytest.raises(
        UnsupportedError,
        match=rf"after the break at .*:{line}.*length the data "
        r"chooses.*label\[mask\] = step",
    ):
        jc.jit(fronts)(np.random.default_rng(3).random((6, 2)))
    with pytest.raises(
        JitTypeError,
        match=r"'sizes' is not compiled as one that appends.*"
        r"Generator.poisson\(\).*traced size",
    ):
        jc.jit(population)(20, 30, np.random.default_rng(1))
