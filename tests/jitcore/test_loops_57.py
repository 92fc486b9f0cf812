"""Session 57 (t57/u1 S1, S2, R1; t57/u3 R6): loops that unrolled or were refused.

- ``rows.append([a, b, c])``, lists or tuples of traced numbers, in a loop: one compiled loop,
  the rows an array it carries (``appending._sequence``); after the loop each item is the list
  (or tuple) of numbers it was, ``np.array(rows)`` NumPy's array. Before: unrolled (226 s at
  n = 2000).
- ``P[max(0, t - 5):t].sum()``, ``x[t - w + 1:t + 1].mean()``, ``x[t:min(n, t + 3)]``: slices
  whose loop-index bounds NumPy clamps at some steps are ranged slices, reduced in one loop
  (``indexing._clamped_span``). Before: unrolled.
- ``if last >= 0: peaks.append(cur)`` after the loop that filled ``peaks``: its rows grow by the
  branch's appends (``appending._kept_lists_if``). Before: refused.
- ``heapq`` on traced numbers: refused naming heapq (the message named appends and bounds).
"""

import heapq

import numpy as np
import pytest

import jitcore as jc


def same(got, want):
    """Python's types and NumPy's dtypes and values, through lists and tuples."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    assert np.asarray(got).dtype == np.asarray(want).dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def ops(f, *args):
    return len(str(jc.make_ir(f)(*args)).splitlines())


def table(x, k):
    rows, pairs = [], []
    for t in range(x.shape[0]):
        d = x[t] - 1.0
        rows.append([d, 2 * d, t])  # (a Python int among NumPy floats: float64 rows, int back)
        pairs.append((k[t], t > 3))
    a = np.array(rows)
    return (
        a,
        np.array(pairs),
        np.stack(rows),
        np.concatenate(pairs),
        np.asarray(rows, np.float32),
        np.sum(rows),
        len(rows),
        rows[3],
        pairs[-1],
        type(rows[2]).__name__,
        [v for v in rows[4]],
        rows[5][2],
        sum(pairs[6]),
    )


def test_rows_of_lists_of_numbers_are_one_loop_with_the_lists_semantics():
    x = np.linspace(-2.0, 3.0, 20)
    k = np.arange(20, dtype=np.int8)
    same(jc.jit(table, cache=False)(x, k), table(x, k))
    # one loop: the program does not grow with the trip count (it was a copy per step)
    assert ops(table, x[:12], k[:12]) == ops(table, x, k)


def appended_again(x):
    row = [0.0, 0.0]
    rows = []
    for t in range(x.shape[0]):
        row[0] = x[t]
        rows.append(row)  # one list object: every item is it, with the last values
    return np.array(rows)


def changed_after_append(x):
    rows = []
    for t in range(x.shape[0]):
        r = [x[t], 1.0]
        rows.append(r)
        r[1] = x[t] * 3  # (the item holds the change)
    return np.array(rows)


def changed_after_loop(x):
    rows = []
    for t in range(x.shape[0]):
        rows.append([x[t], x[t] * 2])
    rows[1][0] = 99.0
    rows[2] = [5.0, 6.0]
    return np.array(rows), rows[1]


def comprehension(x):
    r = [[x[i], i] for i in range(x.size)]
    return r[7], np.array(r), [(x[i], x[i] > 3) for i in range(x.size)][5], np.vstack(r)


def balance(P, awc=5.0):  # (t57/u1 tm_balance: the surplus is 0.0 on one path, np.float64 on the other)
    sm, rows = awc, []
    for t in range(P.shape[0]):
        d = P[t] - 2.5
        if d >= 0:
            new = min(sm + d, awc)
            surplus = sm + d - new
        else:
            new = sm * np.exp(d / awc)
            surplus = 0.0
        sm = new
        rows.append([sm, surplus])
    return np.array(rows), rows[1], rows[4], rows[7]


@pytest.mark.parametrize(
    "f", [appended_again, changed_after_append, changed_after_loop, comprehension, balance]
)
def test_lists_appended_keep_pythons_meaning(f):
    x = np.linspace(0.0, 5.0, 10)
    same(jc.jit(f, cache=False)(x), f(x))


def windows(P, w):
    n = P.size
    out = np.zeros((n, 6))
    for t in range(n):
        out[t, 0] = P[max(0, t - 5) : t].sum()
        out[t, 1] = P[max(t - w + 1, 0) : t + 1].mean()
        out[t, 2] = P[t - w + 1 : t + 1].sum()  # (from the end while t < w - 1, as NumPy reads it)
        out[t, 3] = P[:t].max() if t > 0 else -1.0
        out[t, 4] = P[t:].sum()
        out[t, 5] = P[t : min(n, t + 3)].min()
    return out


def test_windows_clamped_at_some_steps_reduce_in_one_loop():
    P = np.random.default_rng(5).random(24)
    f = jc.jit(windows, static_argnums=1, cache=False)
    np.testing.assert_allclose(f(P, 4), windows(P, 4), rtol=1e-13)
    np.testing.assert_allclose(f(P[:11], 4), windows(P[:11], 4), rtol=1e-13)
    assert ops(lambda P: windows(P, 4), P[:12]) == ops(lambda P: windows(P, 4), P)


def peaks_over_threshold(Q, thr, gap):
    peaks, times = [], []
    last, cur, curi = -gap - 1, -1.0, -1
    for t in range(Q.size):
        if Q[t] > thr:
            if t - last > gap and curi >= 0:
                peaks.append(cur)
                times.append(curi)
                cur, curi = -1.0, -1
            if Q[t] > cur:
                cur, curi = Q[t], t
            last = t
    if curi >= 0:  # the last cluster, flushed after the loop
        peaks.append(cur)
        times.append(curi)
    else:
        times.append(-1)
        times.append(-2)  # (a branch of two appends: traced again with two spare rows)
    return np.array(peaks), len(peaks), peaks, times


_peaks = jc.jit(peaks_over_threshold, cache=False)


@pytest.mark.parametrize(
    "Q",
    [
        [1.0, 5.0, 6.0, 1.0, 1.0, 7.0, 1.0, 1.0, 1.0, 8.0],
        [1.0, 5.0, 6.0, 1.0, 1.0, 7.0, 1.0, 1.0, 1.0, 1.0],
        [1.0] * 10,
    ],
)
def test_appends_after_the_loop_under_a_traced_if(Q):
    f = _peaks  # (one compile for the three)
    same(f(np.array(Q), 4.0, 1), peaks_over_threshold(np.array(Q), 4.0, 1))


def servers(arr, svc, c):
    free = [0.0] * c
    heapq.heapify(free)
    waits = np.zeros(arr.shape[0])
    for i in range(arr.shape[0]):
        f = heapq.heappop(free)
        start = max(f, arr[i])
        waits[i] = start - arr[i]
        heapq.heappush(free, start + svc[i])
    return waits.mean()


def test_heapq_of_traced_numbers_is_refused_naming_heapq():
    a = np.cumsum(np.ones(12))
    with pytest.raises(
        jc.UnsupportedError, match=r"heapq\.heappush of a list holding traced numbers.*np\.argmin"
    ):
        jc.jit(servers, cache=False)(a, a, 3)
