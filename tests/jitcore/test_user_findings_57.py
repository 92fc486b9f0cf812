"""Session 57's new users' refusals and messages (u1 R2/R4, u2 R1/R3, u3 R1).

- ``np.array([max(d, 0.0), min(d, 0.0)])`` with ``d`` a float64 of the data: Python's max picks
  an np.float64 or a Python float as the data says, but either is float64 in the array, so the
  array is plain (``chosen_dtype.array_of``); before, it was refused as a dtype the data chooses.
- ``np.bincount(inv)`` of ``np.unique``'s inverse has ``len(u)`` bins by construction: the trace
  keeps that relation (``Trace.grouped``), as ``minlength=len(u)`` says it.
- ``ConcretizationError`` and ``TracerConversionError`` are ``UnsupportedError`` s: ``except
  jc.UnsupportedError`` catches every refusal of what cannot compile, as the README promises.
- Messages: a list of Python floats given an np.float64 at a traced position says so; a mask
  computed from a data argument's values gets no static-tuple advice; a Generator's draws of a
  traced size name no NumPy-internal attribute (``__array_struct__``).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import ConcretizationError, JitTypeError, TracerConversionError, UnsupportedError


def extremes(P, E, x32, k):
    """Python's max/min of values of the data and Python numbers, into arrays."""
    out = np.zeros((P.shape[0], 2))
    acc = []
    for t in range(P.shape[0]):
        d = P[t] - E[t]
        out[t] = np.array([max(d, 0.0), min(d, 0.0)])
        acc.append(max(0.0, d))
    kk = k[0]
    return (
        out,
        np.array(acc),
        np.array([max(v, 0.0) for v in P]),
        np.sum([max(P[0], 1.0), min(P[1], 0.5)]),
        np.stack([max(P[0], 1.0), min(P[1], 0.5)]),
        np.array([max(kk, 0), min(kk, 0)]),
        np.asarray((max(P[2], 0.0), 2.0)),
        x32 * max(P[0], 0.0),  # (a Python float stays weak: float32; an np.float64 does not)
        np.array([max(x32[0], 0.0)]),  # (float32 or float64 as the data chooses)
    )


def test_python_max_min_into_arrays_of_one_dtype():
    jitted = jc.jit(extremes)
    P, E, x32 = np.array([1.0, 3.0, 0.5]), np.full(3, 2.0), np.ones(3, np.float32)
    for k in (np.array([3]), np.array([-3])):
        for p in (P, -P):
            want, got = extremes(p, E, x32 * np.sign(p[0]), k), jitted(p, E, x32 * np.sign(p[0]), k)
            for g, w in zip(got, want):
                assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
                np.testing.assert_array_equal(g, w)


def group_means(ids, vals):
    u, inv = np.unique(ids, return_inverse=True)
    c = np.bincount(inv)
    return (
        u,
        c,
        np.bincount(inv, weights=vals),
        c.max(),
        np.bincount(inv, vals) / c,
        np.bincount(inv, minlength=0),
    )


def test_bincount_of_uniques_inverse_has_len_u_bins():
    jitted = jc.jit(group_means)
    for ids in ([3, 1, 3, 7], [5, 5, 5, 5], [2, 1, 2, 1], [4, 3, 2, 1]):  # (one shape: one compile)
        ids = np.array(ids)
        vals = np.arange(1.0, ids.size + 1)
        for g, w in zip(jitted(ids, vals), group_means(ids, vals)):
            assert type(g) is type(w) and g.dtype == w.dtype and np.array_equal(g, w), (g, w)


def test_bincount_of_a_changed_inverse_still_needs_minlength():
    def shifted(ids):
        _, inv = np.unique(ids, return_inverse=True)
        return np.bincount(inv + 1)

    with pytest.raises(UnsupportedError, match="needs minlength="):
        jc.jit(shifted)(np.array([1, 2]))


def test_every_refusal_of_what_cannot_compile_is_an_unsupported_error():
    assert issubclass(ConcretizationError, UnsupportedError)
    assert issubclass(TracerConversionError, UnsupportedError)

    def data_shape(x):
        return np.zeros(int(x.sum()))

    with pytest.raises(UnsupportedError):
        jc.jit(data_shape)(np.ones(3))


def ratings(h, a, res, n):
    R = [1500.0] * n
    for i in range(len(h)):
        e = 1 / (1 + 10 ** ((R[a[i]] - R[h[i]]) / 400))
        R[h[i]] += 20 * (res[i] - e)
    return np.array(R)


def ratings_as_floats(h, a, res, n):
    R = [1500.0] * n
    for i in range(len(h)):
        e = 1 / (1 + 10 ** ((R[a[i]] - R[h[i]]) / 400))
        R[h[i]] = float(R[h[i]] + 20 * (res[i] - e))
    return np.array(R)


def test_list_given_another_type_at_a_traced_position_says_so():
    h, a, res = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 2]), np.array([1.0, 0.0, 0.5, 1.0])
    with pytest.raises(UnsupportedError) as e:
        jc.jit(ratings)(h, a, res, 4)
    text = str(e.value)
    assert "a list of Python float items is given a numpy.float64 at a traced position" in text, text
    assert "items[k] = float(v)" in text and "np.zeros(n)" in text
    np.testing.assert_array_equal(jc.jit(ratings_as_floats)(h, a, res, 4), ratings(h, a, res, 4))


def longest_streak(res):
    w = (res == 1).astype(np.int64)
    d = np.diff(np.concatenate([[0], w, [0]]))
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    return (ends - starts).max() if starts.size else 0


def test_mask_from_data_values_gets_no_static_tuple_advice():
    with pytest.raises(JitTypeError) as e:
        jc.jit(longest_streak)(np.array([1, 1, 0, 1, 1, 1, -1, 1, 0]))
    text = str(e.value)
    assert "Loop over every position" in text
    assert "static_argnames" not in text and "tolist()" not in text, text


def test_draws_of_a_traced_size_name_no_numpy_internals():
    def sorted_times(rng, lam):
        return np.sort(rng.uniform(0, 1.0, rng.poisson(lam)))  # (a drawn count)

    with pytest.raises(UnsupportedError) as e:
        jc.jit(sorted_times)(np.random.default_rng(0), 5.0)
    assert "__array" not in str(e.value) and "(here:" not in str(e.value), str(e.value)
