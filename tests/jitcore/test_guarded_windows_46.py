"""A window slice guarded by a test on the loop index (``if t >= w: x[t - w:t]``): inside the
branch the index's bounds are narrowed by the test (``index_forms.refinement``), so the slice
needs no clamping there and the loop stays a loop (session 46; h1 S1: an SMA backtest over 500
prices was unrolled, 437 s to compile). NumPy, running the same Python, is the oracle; the
traced IR must hold the loop (``scf.for``)."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore import index_forms


def traced(f, *args, **static):
    return jc.jit(f, static_argnames=tuple(static) or None).lower(*args, **static).as_text("traced")


def moving_mean(p, w):
    out = np.zeros(p.shape[0])
    for t in range(p.shape[0]):
        if t >= w:
            out[t] = p[t - w:t].mean()
        else:
            out[t] = np.nan
    return out


def mirrored_test(p):
    out = np.full(p.shape[0], -1.0)
    for t in range(p.shape[0]):
        if 10 <= t:
            out[t] = p[t - 10:t].max() - p[t - 10]
    return out


def else_branch_window(p):
    out = np.zeros(p.shape[0])
    for t in range(p.shape[0]):
        if t < 5:
            out[t] = p[t]
        else:
            out[t] = p[t - 5:t + 1].min()
    return out


def upper_guard(p):
    out = np.zeros(p.shape[0])
    n = p.shape[0]
    for t in range(n):
        if t <= n - 4:
            out[t] = p[t:t + 4].max()
    return out


def crossover(p, fast, slow):
    cash, pos = 10000.0, 0.0
    equity = np.zeros(len(p))
    for t in range(len(p)):
        if t >= slow:
            f = p[t - fast:t].mean()
            s = p[t - slow:t].mean()
            if f > s and pos == 0:
                pos = cash / p[t]
                cash = 0.0
            elif f < s and pos > 0:
                cash = pos * p[t]
                pos = 0.0
        equity[t] = cash + pos * p[t]
    return equity


CASES = {
    "t >= w": (moving_mean, {"w": 7}),
    "10 <= t": (mirrored_test, {}),
    "else of t < 5": (else_branch_window, {}),
    "t <= n - 4": (upper_guard, {}),
    "crossover": (crossover, {"fast": 5, "slow": 12}),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("n", [90, 131])
def test_guarded_windows_match_numpy_and_stay_loops(case, n):
    fn, static = CASES[case]
    p = 100 + np.cumsum(np.random.default_rng(n).normal(size=n))
    got = jc.jit(fn, static_argnames=tuple(static) or None)(p, **static)
    np.testing.assert_allclose(got, fn(p, **static), rtol=1e-13, equal_nan=True)
    assert '"scf.for"(' in traced(fn, p, **static)


@pytest.mark.parametrize("op, c, holds, fails", [
    (np.greater_equal, 3, (3, 9), (0, 2)), (np.greater, 3, (4, 9), (0, 3)),
    (np.less_equal, 3, (0, 3), (4, 9)), (np.less, 3, (0, 2), (3, 9)), (np.equal, 3, (3, 3), (0, 9)),
])
def test_refinement_bounds(op, c, holds, fails):
    form = index_forms.loop_index(range(10))

    class Index:
        index_form = form

    x, yes, no = index_forms.refinement(op, Index(), c)
    assert (yes.lo, yes.hi) == holds and (no.lo, no.hi) == fails


def test_refinement_of_an_impossible_side_keeps_the_loops_bounds():
    form = index_forms.loop_index(range(10))

    class Index:
        index_form = form

    assert index_forms.refinement(np.greater_equal, Index(), 0) is None  # always holds
    assert index_forms.refinement(np.greater_equal, Index(), 20) is None  # never holds
    assert index_forms.refinement(np.equal, Index(), 20) is None  # == outside the range: never
