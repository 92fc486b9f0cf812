"""Selections as arguments of NumPy functions whose result's shape does not depend on the
count, against NumPy (session 54): ``np.interp`` with knots selected (gap filling,
``np.interp(t, t[good], x[good])``: ``selection_statistics.interp``, the knots compacted and
searched over their count), with ``x`` selected, one knot, none (NumPy's ValueError from the
call), ``left``/``right``, a 0-d ``x``, knots of two masks. One compile covers every case.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def _same(expected, got) -> None:
    assert type(got) is type(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def _gap_filled(x, v, lo):
    good = ~np.isnan(x)
    t = np.arange(x.size)
    return (
        np.interp(t, t[good], x[good]),
        np.interp(v * 8 + 12, t[good], x[good], left=lo, right=-lo),  # (searched at random)
        np.interp(2.5, t[good], x[good]),  # 0-d x: a NumPy float
        np.interp(v[good] * 3, np.cumsum(t[good] + 0.5), t[good] * 2.0),
    )  # x selected, a Prefix


def _interp_cases():
    rng = np.random.default_rng(54)
    out = []
    for n in (24,):
        for trial in range(10):
            x = rng.normal(size=n)
            x[rng.random(n) < 0.4] = np.nan
            if trial == 0:  # one knot
                x[:] = np.nan
                x[n // 2] = 1.5
            if trial == 1:
                x[-1] = np.inf
            v = np.round(rng.normal(size=n), 1)
            out.append((x, v))
    return out


def test_interp_of_selected_knots():
    f = jc.jit(_gap_filled)
    for x, v in _interp_cases():
        if np.isnan(x).all():  # (no knots: the test below)
            continue
        for got, expected in zip(f(x, v, 7.0), _gap_filled(x, v, 7.0)):
            _same(expected, got)


def test_interp_of_no_knots_raises_numpys_error():
    f = jc.jit(_gap_filled)
    with pytest.raises(ValueError, match="array of sample points is empty"):
        _gap_filled(np.full(3, np.nan), np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="array of sample points is empty"):
        f(np.full(3, np.nan), np.zeros(3), 1.0)


def test_interp_of_knots_by_two_masks():
    def f(t, a, b):
        return np.interp(t, t[a > 0], t[b > 0])

    jf = jc.jit(f)
    t = np.arange(6.0)
    a = np.array([1, 0, 1, 1, 0, 1])
    _same(f(t, a, a), jf(t, a, a))
    with pytest.raises(ValueError, match="fp and xp are not of the same length"):
        jf(t, a, np.ones(6))


def _spike_maps(x, y, w, spk):
    occ, xe, ye = np.histogram2d(x, y, bins=4, range=[[0, 1], [0, 1]])
    on_edges = np.histogram2d(x[spk], y[spk], bins=[xe, ye])[0]
    from_data = np.histogram2d(x[spk], y[spk], bins=(3, 2))  # edges from the kept rows
    weighted = np.histogram2d(x[spk], y[spk], bins=3, range=[[0, 1], [0, 1]], weights=w[spk], density=True)
    dd = np.histogramdd([x[spk], y[spk], w[spk]], bins=2)
    return occ, on_edges, *from_data, weighted[0], dd[0], *dd[1]


def test_histogram2d_of_selections():
    f = jc.jit(_spike_maps)
    rng = np.random.default_rng(54)
    x, y, w = rng.random(50), rng.random(50), rng.random(50)
    for spk in (rng.random(50) < 0.3, np.zeros(50, bool), np.arange(50) == 7, np.ones(50, bool)):
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = _spike_maps(x, y, w, spk)
            got = f(x, y, w, spk)
        for e, g in zip(expected, got, strict=True):
            _same(e, g)


def _filled_by_counts(v, X, t):
    idx = np.nonzero(v > 0.5)[0]
    rows = X[v < 0.3]
    u = np.unique(np.round(v * 4))  # a compacted selection (a Prefix)
    return (
        np.full(idx.size, t),
        np.full(len(idx), 2.5),
        np.zeros(idx.shape[0], np.int32),
        np.ones(len(rows)),
        np.full((len(u),), -0.0),
        np.zeros(u.size) + u,
        np.concatenate([np.full(idx.size, t), idx]),
        np.full_like(idx, t),
    )


def test_full_of_a_selections_count():
    f = jc.jit(_filled_by_counts)
    rng = np.random.default_rng(54)
    X = rng.random((9, 2))
    for v in (rng.random(9), np.zeros(9), np.ones(9)):
        for e, g in zip(_filled_by_counts(v, X, 3), f(v, X, 3), strict=True):
            _same(e, g)
            assert np.signbit(e).tolist() == np.signbit(g).tolist()


def test_full_of_a_count_plus_one_stays_refused():
    @jc.jit
    def f(v):
        idx = np.nonzero(v > 0.5)[0]
        return np.full(idx.size + 1, 0)

    with pytest.raises(jc.errors.ConcretizationError, match="computed from the length of"):
        f(np.ones(4))


def _columns_of_fired(S, T, v, I, k):  # noqa: E741 (the paper's names)
    fired = np.where(v >= 30)[0]
    idx = np.arange(v.size)[v < 0] - k  # negative and possibly out of range where k is large
    return (
        I + S[:, fired].sum(axis=1),
        S[:, fired].max(axis=1, initial=-1.0),
        S[:, fired].mean(axis=1),
        T[:, :, fired].sum(axis=(0, 2)),
        T[:, fired, 1:3].sum(axis=1),
        S[:, idx].sum(axis=1),
    )


def test_columns_gathered_by_a_selections_indices():
    f = jc.jit(_columns_of_fired)
    rng = np.random.default_rng(54)
    S, T, I = rng.random((7, 40)), rng.random((3, 40, 40)), rng.random(7)  # noqa: E741
    for v in (rng.normal(20, 20, 40), np.zeros(40), np.full(40, 31.0)):
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = _columns_of_fired(S, T, v, I, 0)
            got = f(S, T, v, I, 0)
        for e, g in zip(expected, got, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-14, atol=0)
    v = rng.normal(0, 1, 40)
    with pytest.raises(IndexError):
        _columns_of_fired(S, T, v, I, 45)
    with pytest.raises(IndexError):
        f(S, T, v, I, 45)


def _voxel_keys(X, h, shift):
    ijk = np.floor((X - X.min(0)) / h).astype(np.int64)
    dims = ijk.max(0) + 1
    return (
        np.ravel_multi_index(ijk.T, tuple(dims)),
        np.ravel_multi_index(ijk.T, dims, order="F"),
        np.ravel_multi_index((ijk[:, 0] + shift, ijk[:, 1]), (dims[0], 3), mode=("wrap", "clip")),
    )


def test_ravel_multi_index_of_dims_from_the_data():
    f = jc.jit(_voxel_keys)
    X = np.random.default_rng(54).standard_normal((30, 3))
    for h, shift in ((0.5, 0), (2.0, -7), (100.0, 3)):
        for e, g in zip(_voxel_keys(X, h, shift), f(X, h, shift), strict=True):
            _same(e, g)
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        jc.jit(lambda X, d: np.ravel_multi_index(X.T, (d, d)))(np.ones((4, 2), np.int64), X.shape[0] // 30)
    with pytest.raises(ValueError, match="zero entries"):
        jc.jit(lambda X, d: np.ravel_multi_index(X.T, (d, d)))(np.zeros((4, 2), np.int64), 0)


def test_running_min_from_inf_is_numpys_and_so_is_the_start_from_the_data():
    """Refused in session 54 (advising lo = x[0]); compiled since session 56, the int and the
    float paths held in a float64 (refused past 2**53: test_refusals_56.py)."""
    def from_inf(x):
        lo = np.inf
        for i in range(len(x)):
            if x[i] < lo:
                lo = x[i]
        return lo

    def from_first(x):
        lo = x[0]
        for i in range(1, len(x)):
            if x[i] < lo:
                lo = x[i]
        return lo

    for x in (np.array([5, 3, 9, 1], dtype=np.int64), np.array([], dtype=np.int64)):
        _same(from_inf(x), jc.jit(from_inf)(x))
    x = np.array([5, 3, 9, 1], dtype=np.int64)
    _same(from_first(x), jc.jit(from_first)(x))


def _midpoints(V, F):
    nv = V.shape[0]
    e = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    key = np.minimum(e[:, 0], e[:, 1]) * nv + np.maximum(e[:, 0], e[:, 1])
    uk = np.unique(key)
    mid = (V[uk // nv] + V[uk % nv]) / 2
    return np.vstack([V, mid]), np.vstack((mid, V[:2], V[V[:, 0] > 0]))


def test_vstack_of_rows_a_selection_holds():
    f = jc.jit(_midpoints)
    rng = np.random.default_rng(54)
    V = rng.standard_normal((12, 3))
    for k in (1, 3, 12):  # one shape: one compile, 1 to 18 distinct edges
        F = rng.integers(0, k, (6, 3))
        for e, g in zip(_midpoints(V, F), f(V, F), strict=True):
            _same(e, g)


def _roll_min_deque(x, w):
    n = len(x)
    out = np.empty(n - w + 1)
    dq = []
    for i in range(n):
        while dq and x[dq[-1]] >= x[i]:
            dq.pop()
        dq.append(i)
        if dq[0] <= i - w:
            dq.pop(0)
        if i >= w - 1:
            out[i - w + 1] = x[dq[0]]
    return out


def _roll_min_arrays(x, w):  # the rewrite the refusal gives
    n = len(x)
    out = np.empty(n - w + 1)
    q = np.empty(n, np.int64)
    head = tail = 0
    for i in range(n):
        while tail > head and x[q[tail - 1]] >= x[i]:
            tail -= 1
        q[tail] = i
        tail += 1
        if q[head] <= i - w:
            head += 1
        if i >= w - 1:
            out[i - w + 1] = x[q[head]]
    return out


def test_list_as_a_deque_gets_the_queue_recipe_which_compiles():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
    with pytest.raises(jc.errors.UnsupportedError, match=r"'dq' is used as a stack.*head \+= 1 is pop\(0\)"):
        jc.jit(_roll_min_deque)(x, 3)
    _same(_roll_min_deque(x, 3), jc.jit(_roll_min_arrays)(x, 3))


def _rolled_and_searched(road, lab, x, s):
    cars = np.nonzero(road >= 0)[0]
    u = np.unique(lab)
    uf = np.unique(x)  # NaNs last, as NumPy's
    return (
        np.roll(cars, -1),
        np.roll(cars, s),
        np.searchsorted(u, lab),
        np.searchsorted(u, lab, side="right"),
        np.searchsorted(uf, x),
        np.searchsorted(uf, x, "right"),  # (a NaN: past the kept NaN, at the count)
        np.searchsorted(uf, 0.5, "right"),
        u.searchsorted(lab[:3]),
        np.roll(x[x > 0], 2) * 1.0,
    )


def test_roll_and_searchsorted_of_selections():
    f = jc.jit(_rolled_and_searched)
    rng = np.random.default_rng(54)
    for t in range(4):
        road, lab, x = rng.integers(-1, 3, 12), rng.integers(0, 5, 12) * 3, rng.normal(size=12)
        x[3], x[5] = np.nan, np.inf
        if t == 1:
            road[:] = -1
        if t == 2:
            x[:] = np.nan
        for e, g in zip(_rolled_and_searched(road, lab, x, t), f(road, lab, x, t), strict=True):
            _same(e, g)
