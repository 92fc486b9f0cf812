"""NumPy programs new users wrote that jitcore refused (session 53), against NumPy: results,
their Python types, dtypes, shapes and values.

1. ``ufunc.reduceat`` at indices the data chose (``np.unique(t, return_index=True)[1]``, the
   starts of runs ``np.flatnonzero(...)``): the indices compacted, a piece per kept one, the
   result a selection of their count (``ufuncs._reduceat_selected``), which elementwise ops,
   reductions, cumprod and returns take as any other; ``np.bincount(inv, minlength=ut.size)``
   (Nelson-Aalen) has as many bins as ``ut`` can hold and is the first ``max(ut.size,
   inv.max() + 1)`` of them (``reductions._bincount_of_count``). Along the way, a float ``np.add.reduceat``
   of more than one lane (``rows`` of shape (n, 3) along axis 0) or at static indices summed a
   piece of 8 or more in another order than NumPy's (its first element plus the pairwise sum of
   the rest, lane by lane, in any layout); and a compacted result computed transposed came back
   transposed a second time.
2. A design matrix of the rows a filter keeps (u3 R3, Gompertz regression on nonzero rates):
   ``np.ones_like``/``zeros_like``/``full_like`` of a selection, ``np.vstack``/``column_stack``/
   ``stack`` of 1-d selections by one mask, ``.T`` of the result and ``np.linalg.lstsq`` of it
   (rows left out zeroed; NumPy's m, its ``rcond`` and its residuals' rule, the kept count; the
   singular values ``min(count, n)`` of them).
3. An episode's rewards, a list a guarded ``while`` with a ``break`` filled: ``list(reversed(
   rewards))`` is a list of the same kind (``KeptList.copied``) that a loop computes the returns
   over; ``np.zeros(len(rewards))`` is refused naming the list, its capacity and two rewrites
   that compile (u1 R1); ``np.zeros_like(np.array(rewards))`` written in a loop, refused naming
   ``np.array(rewards)`` (no mask the user wrote) and the same rewrites.
4. ``np.stack(out)`` of a list filled under a traced ``if`` with items whose Python types the
   data chose (``1 if c else 2.5``): NumPy's dtype of the kinds present, as ``np.array(out)``'s
   (``chosen_dtype.array_of``), NumPy's ValueError where nothing was kept; an append through a
   helper function under a traced ``if`` is refused offering the append by the list's own name.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.jit_once import jit_once


def _same(got, want):
    """The same pytree of results: types, dtypes, shapes and values (bit for bit, NaNs equal)."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want), (got, want)


def kaplan_meier(time, event, w):
    """Kaplan-Meier with ties, the NumPy way (u3 R2), and other reductions at the first indices."""
    order = np.argsort(time, kind="stable")
    t, e = time[order], event[order]
    ut, idx = np.unique(t, return_index=True)
    d = np.add.reduceat(e.astype(np.int64), idx)  # deaths per distinct time
    n_at_risk = t.size - idx
    weight = np.add.reduceat(w[order], idx)  # float pieces: NumPy's pairwise sums
    # Nelson-Aalen: bincount with minlength=ut.size, the number of distinct times
    _, inv = np.unique(time, return_inverse=True)
    deaths = np.bincount(inv, weights=event.astype(float), minlength=ut.size)
    at_risk = np.cumsum(np.bincount(inv, minlength=ut.size)[::-1])[::-1]
    return ut, np.cumprod(1.0 - d / n_at_risk), d, weight, d.sum(), np.cumsum(deaths / at_risk)


def test_reduceat_at_unique_first_indices():
    rng = np.random.default_rng(53)
    n = 64  # one compile: ties of every size, pieces past NumPy's 8 terms added one by one
    cases = [(np.repeat([1.0, 2, 3, 5], [2, 2, 1, 59]), rng.random(n) < 0.5)]
    cases += [(rng.integers(0, k, n).astype(float), rng.random(n) < 0.6) for k in (1, 2, 6, 1000)]
    for time, event in cases:
        w = rng.standard_normal(n).astype(np.float32)
        _same(jit_once(kaplan_meier)(time, event, w), kaplan_meier(time, event, w))


def run_totals(x, rows):
    """Per run of equal values: rows summed along axis 0, and minima."""
    starts = np.flatnonzero(np.diff(x, prepend=x[0] - 1) != 0)
    return np.add.reduceat(rows, starts), np.minimum.reduceat(x * 1.5, starts).max()


def test_reduceat_at_run_starts():
    rng = np.random.default_rng(5)
    for k in (1, 3, 50):
        x = np.sort(rng.integers(0, k, 40))
        rows = rng.standard_normal((40, 3))
        _same(jit_once(run_totals)(x, rows), run_totals(x, rows))


def static_pieces(x, rows):
    """Static indices: a 1-d piece of 30 and lanes of a 2-d array along axis 0 and axis 1."""
    return (
        np.add.reduceat(x, [0, 3, 33]),
        np.add.reduceat(rows, [0, 2, 25]),
        np.add.reduceat(rows.T, [5, 1, 30], axis=1),
    )


def test_float_reduceat_sums_pieces_lane_by_lane_as_numpy():
    rng = np.random.default_rng(9)
    for _ in range(3):
        x, rows = rng.standard_normal(40), rng.standard_normal((40, 3)).astype(np.float32)
        _same(jit_once(static_pieces)(x, rows), static_pieces(x, rows))


def gompertz(ages, mx):
    m = mx > 0
    y, x = np.log(mx[m]), ages[m]
    design = np.vstack([np.ones_like(x), x]).T
    coef, resids, rank, sv = np.linalg.lstsq(design, y, rcond=None)
    columns = np.column_stack([x, np.full_like(x, 2.0), np.zeros_like(x, dtype=np.float32)])
    return coef, resids, rank, sv, columns, np.stack([x, y], axis=1).max(axis=0)


def test_least_squares_on_the_rows_a_filter_keeps():
    ages = np.linspace(-1.0, 1.0, 10)
    rates = np.linspace(1e-3, 5e-3, 10)
    # every row, most, two (m == n: no residuals), one (rank 1, one singular value)
    for kept in (10, 7, 2, 1):
        mx = np.where(np.arange(10) % 10 < kept, rates, 0.0)[::-1].copy()
        got, want = jit_once(gompertz)(ages, mx), gompertz(ages, mx)
        for g, w in zip(got, want):
            assert type(g) is type(w) and g.dtype == w.dtype and g.shape == w.shape, (g, w)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12)  # SVD, not LAPACK's
        np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-24)
        np.testing.assert_allclose(got[3], want[3], rtol=1e-12)
        assert got[2] == want[2]
        _same(got[4:], want[4:])


def discounted_returns(x, gamma, max_t):
    """The RL returns of an episode the data ends, through list(reversed(rewards))."""
    rewards, t = [], 0
    while t < max_t:
        r = x[t] * 2.0
        rewards.append(r)
        t += 1
        if r < 0:
            break
    g, out = 0.0, []
    for r in list(reversed(rewards)):
        g = r + gamma * g
        out.append(g)
    return np.array(out[::-1]), len(rewards)


def returns_into_zeros(x, gamma, max_t):
    rewards, t = [], 0
    while t < max_t:
        rewards.append(x[t])
        t += 1
        if x[t] < 0:
            break
    ret = np.zeros(len(rewards))
    for k in range(len(rewards)):
        ret[k] = rewards[k] * gamma
    return ret


def returns_into_zeros_like(x, gamma, max_t):
    rewards, t = [], 0
    while t < max_t:
        rewards.append(x[t])
        t += 1
        if x[t] < 0:
            break
    rw = np.array(rewards)
    ret, g = np.zeros_like(rw), 0.0
    for k in range(len(rewards) - 1, -1, -1):
        g = rw[k] + gamma * g
        ret[k] = g
    return ret


def test_returns_of_an_episode_the_data_ends():
    rng = np.random.default_rng(1)
    for stop in (0, 3, 11, None):  # the first step, later, the last, never
        x = rng.random(12)
        if stop is not None:
            x[stop] = -1.0
        _same(jit_once(discounted_returns)(x, 0.9, 12), discounted_returns(x, 0.9, 12))
    with pytest.raises(
        jc.ConcretizationError,
        match=r"(?s)returns_into_zeros.*list 'rewards' \(at most 9 "
        r"items.*for r in reversed\(rewards\).*ret = np.zeros\(9\)",
    ):
        jc.jit(returns_into_zeros)(np.ones(10), 0.5, 9)
    with pytest.raises(
        jc.UnsupportedError,
        match=r"'ret' holds as many values as np.array\(rewards\).*"
        r"for r in reversed\(rewards\)",
    ):
        jc.jit(returns_into_zeros_like)(np.ones(10), 0.5, 9)


def stacked_choices(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > -0.5:
            out.append(1 if x[i] > 0 else 2.5)
    return np.stack(out), np.array(out)


def test_stack_of_items_whose_types_the_data_chose():
    for x in (
        np.array([0.3, -0.2, 1.5, -1.0, 0.7, 2.0]),  # ints and floats: float64
        np.array([0.3, -0.9, 1.5, -1.0, 0.7, 2.0]),  # ints only: int64
        np.array([-0.3, -0.9, -0.2, -1.0, -0.1, -2.0]),
    ):  # floats only
        _same(jit_once(stacked_choices)(x), stacked_choices(x))
    with pytest.raises(ValueError, match="need at least one array"):
        jit_once(stacked_choices)(np.full(6, -1.0))


def appended_by_a_helper(x):
    out = []

    def keep(v):
        out.append(v * 2)

    for i in range(x.shape[0]):
        if x[i] > 0:
            keep(x[i])
    return np.array(out)


def test_an_append_through_a_helper_names_the_rewrite():
    with pytest.raises(jc.UnsupportedError, match=r"append by the list's own name in the branch"):
        jc.jit(appended_by_a_helper)(np.ones(20))
