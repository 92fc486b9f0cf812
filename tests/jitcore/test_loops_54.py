"""Session 54 (a forecasting user's loops): a list read at any position in a loop that appends to
it compiles as a loop (``autograph/appending.py``), a loop that unrolls past
``compile_time.UNROLL_STOP_OPS`` stops with an error, and the median of a window with traced
bounds costs the window (``selection_statistics.head_median``)."""

import numpy as np
import pytest

import jitcore as jc
from jitcore import compile_time
from jitcore.errors import UnsupportedError
from tests.oracle import assert_matches


def hw_add(y, m, alpha, beta, gamma, h):
    """The user's additive Holt-Winters: the seasonal state a list, read back at ``t - m``."""
    n = len(y)
    level = y[:m].mean()
    b = (y[m:2 * m].mean() - y[:m].mean()) / m
    s = list(y[:m] - level)
    fit = np.empty(n)
    for t in range(n):
        st = s[t % m] if t < m else s[t - m]
        fit[t] = level + b + st
        lp = level
        level = alpha * (y[t] - st) + (1 - alpha) * (level + b)
        b = beta * (level - lp) + (1 - beta) * b
        s.append(gamma * (y[t] - level) + (1 - gamma) * st)
    fc = np.array([level + (k + 1) * b + s[n - m + (k % m)] for k in range(h)])
    return fit, fc, len(s), s[-1], s[0]


def test_a_list_read_at_traced_positions_compiles_as_a_loop():
    y = np.random.default_rng(0).normal(size=300).cumsum()
    jitted = jc.jit(hw_add, static_argnames=("m", "h"))
    for args in ((y, 12, 0.3, 0.05, 0.2, 24), (y[:40], 4, 0.5, 0.1, 0.3, 5)):
        got, want = jitted(*args), hw_add(*args)
        for g, w in zip(got, want):
            assert_matches(g, w)  # (bit for bit: the same operations in the same order)
    def ops(n):
        lowered = jc.jit(hw_add, static_argnames=("m", "h")).lower(y[:n], 12, 0.3, 0.05, 0.2, 24)
        return lowered.as_text("optimized").count(" = ")

    assert ops(150) == ops(200) and ops(300) < 1000  # unrolled: a copy of the body per step


def _reads(x, k):
    """Reads at positions from the end, from the start, and out of range (``k``)."""
    s = [x[0], x[1]]
    for t in range(len(x)):
        v = s[-2] + s[t] * 0.5 + s[t + k]
        s.append(v)
    return np.array(s)


def test_positions_from_the_end_and_out_of_range():
    x = np.linspace(0.5, 2.0, 80)
    f = jc.jit(_reads)
    assert_matches(f(x, 1), _reads(x, 1))  # s[t + 1]: the item the step before appended
    assert_matches(f(x, -2), _reads(x, -2))
    with pytest.raises(IndexError, match="list index out of range"):
        f(x, 2)  # one past the end, at the first step (Python's error, from the call)
    with pytest.raises(IndexError, match="list index out of range"):
        f(x, -3)  # s[-3] of two items


def _rows_read_first_in_a_branch(x):
    s = [x[0]]
    for t in range(len(x)):
        s.append(s[t] * 0.5 + x[t])
    if x[1] > 0:  # (traced: the rows read first inside a branch, then after it)
        r = s[3] * 2
    else:
        r = s[4] - s[3]
    return r + s[3], s[-1]


def test_rows_after_the_loop_read_first_inside_a_branch():
    f = jc.jit(_rows_read_first_in_a_branch)
    for x in (np.linspace(-1.0, 2.0, 90), np.linspace(2.0, -1.0, 90)):
        for g, w in zip(f(x), _rows_read_first_in_a_branch(x)):
            assert_matches(g, w)


def test_items_of_another_kind_before_the_loop_unroll_and_stop_past_the_budget(monkeypatch):
    def f(y, m):
        s = [0.0] * m  # Python floats, then NumPy float64 appended: read as they are, unrolled
        for t in range(len(y)):
            s.append(0.5 * s[t - m] + y[t])
        return s[-1]

    y = np.arange(70.0)
    assert jc.jit(f)(y, 3) == f(y, 3)
    monkeypatch.setattr(compile_time, "UNROLL_WARN_OPS", 50)
    monkeypatch.setattr(compile_time, "UNROLL_STOP_OPS", 100)
    stopped = r"the loop at .*test_loops_54.py:\d+ is being unrolled.*s\.append.*stopped tracing it past 100 "
    with pytest.raises(UnsupportedError, match=stopped):
        jc.jit(f)(np.arange(71.0), 3)


def _medians(x, w, lo, hi):
    n = x.shape[0]
    out = np.full(n, np.nan)
    for i in range(w - 1, n):
        out[i] = np.median(x[i - w + 1:i + 1])
    spans = np.zeros(len(lo))
    for k in range(len(lo)):
        spans[k] = np.median(x[lo[k]:hi[k]])  # bounds from the data: clamped as NumPy clamps them
    return out, spans


def test_the_median_of_a_window_with_traced_bounds():
    rng = np.random.default_rng(3)
    f = jc.jit(_medians)
    x = rng.normal(size=60)
    x[[7, 20, 21]] = [np.nan, -np.nan, np.nan]  # the first NaN of a window, with its sign
    x[[40, 41, 42, 43]] = [-0.0, 0.0, -0.0, -0.0]
    lo, hi = np.array([-70, -5, 0, 38, 40, 59, 10]), np.array([3, 100, 60, 44, 42, 60, -45])
    ties = np.round(x * 2) / 2  # (even windows of ties: the mean of two equal values)
    cases = [(x, 5, lo, hi), (x, 4, hi - 60, lo + 60), (ties, 6, lo, hi), (ties, 1, lo, hi)]
    for args in cases:
        for g, w in zip(f(*args), _medians(*args)):
            assert_matches(g, w)
    starts, stops = np.array([50, 130, 40, 59, 45, 60, 30]), np.array([10, 200, -30, 5, 45, 60, 29])
    _, empty = f(x, 5, starts, stops)  # (empty, some after their start: NumPy's NaN, and a warning)
    assert np.isnan(empty).all()
    text = jc.jit(_medians).lower(x, 5, lo, hi).as_text("optimized")
    assert "head_sort" in text and "partition" not in text
