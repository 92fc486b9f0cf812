"""Uses of arrays whose length the data chooses (session 50), against plain Python + NumPy:
results, dtypes, Python types, the arguments after the call, the errors raised.

1. Selections by one mask value pair element for element: ``A[nz] / d[nz, None]`` and the store
   ``P[nz] = ...`` are a masked elementwise kernel (``masked.aligned_by_mask``, ``masked.write``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitTypeError
from tests.budget import examples


def _same(got, want):
    """The same pytree of results: types, dtypes, shapes and values (NaNs equal)."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _same(a, b)
    elif isinstance(want, np.ndarray):
        assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want or (got != got and want != want), (got, want)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _check(fn, *args, **jit_options):
    """``jit(fn)`` against ``fn``: the same results, or the same error; the arguments after the
    call the same."""
    mine, theirs = _copies(args), _copies(args)
    try:
        want = fn(*theirs)
    except Exception as error:  # noqa: BLE001  (NumPy's error is the oracle)
        with pytest.raises(type(error)) as raised:
            jc.jit(fn, **jit_options)(*mine)
        assert str(raised.value) == str(error)
        return
    got = jc.jit(fn, **jit_options)(*mine)
    _same(got, want)
    for a, b in zip(mine, theirs):
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b)


DTYPES = (np.float64, np.float32, np.int64, np.int32, np.bool_, np.complex128)


def _array(rng, shape, dtype):
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    values = rng.standard_normal(shape) * 4
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _mask(rng, n, kind):
    return {"all": np.ones(n, bool), "none": np.zeros(n, bool),
            "random": rng.random(n) < 0.5}[kind]


MASKS = st.sampled_from(["all", "none", "random"])


# -- 1. selections by one mask, element for element ---------------------------------------------
def row_stochastic(A, d):
    nz = d > 0
    P = np.zeros_like(A)
    P[nz] = A[nz] / d[nz, None]
    return P


def row_scaled_3d(A, d):
    nz = d != 0
    out = np.zeros_like(A)
    out[nz] = A[nz] * d[nz, None, None] + 1
    return out


def selection_pair(x, w):
    m = w > 0
    return x[m] * w[m] - x[m], (x[m] + w[m]).sum()


def same_mask_computed_twice(x, w):
    return x[w > 0] - w[w > 0]


def store_broadcast_rows(A, d):
    nz = d > 0
    A[nz] = d[nz, None]
    return A


def new_axis_reads(A, d):
    nz = d > 0
    return d[nz, None], A[nz, None], A[:, None, nz[: A.shape[1]]], A[0, None, nz[: A.shape[1]]]


@settings(max_examples=examples(25, 10), deadline=None)
@given(n=st.sampled_from([0, 1, 5, 33]), m=st.sampled_from([1, 4]), kind=MASKS,
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_row_stochastic_matches_numpy(n, m, kind, dtype, seed):
    rng = np.random.default_rng(seed)
    A = _array(rng, (n, m), dtype)
    d = np.where(_mask(rng, n, kind), 1.0 + rng.random(n), -rng.random(n)).astype(
        dtype if np.dtype(dtype).kind in "fi" else np.float64)
    with np.errstate(all="ignore"):
        _check(row_stochastic, A, d)


@settings(max_examples=examples(15, 6), deadline=None)
@given(n=st.sampled_from([0, 1, 6]), kind=MASKS, dtype=st.sampled_from(DTYPES),
       seed=st.integers(0, 2**32 - 1))
def test_same_mask_elementwise_matches_numpy(n, kind, dtype, seed):
    rng = np.random.default_rng(seed)
    x = _array(rng, n, dtype)
    w = np.where(_mask(rng, n, kind), 1.0 + rng.random(n), -1.0)
    _check(selection_pair, x, w)
    _check(same_mask_computed_twice, x, w)
    _check(row_scaled_3d, _array(rng, (n, 2, 3), dtype), w)


@pytest.mark.parametrize("kind", ["all", "none", "random"])
def test_store_and_new_axis_reads_match_numpy(kind):
    rng = np.random.default_rng(1)
    d = np.where(_mask(rng, 4, kind), 2.0, -1.0)
    _check(store_broadcast_rows, rng.random((4, 3)), d)
    _check(new_axis_reads, rng.random((4, 4)), d)


def two_masks_store(A, d):
    P = np.zeros_like(A)
    P[d > 0] = A[d < 1] * 2
    return P


def counts_against_rows(A, d):
    nz = d > 0
    return A[nz] * d[nz]  # (k, m) against (k,): NumPy compares k with m


def test_selections_that_do_not_pair_are_refused():
    A, d = np.ones((4, 3)), np.arange(4.0)
    with pytest.raises(JitTypeError, match="another mask"):
        jc.jit(two_masks_store)(A, d)
    with pytest.raises(JitTypeError, match="depends on the data"):
        jc.jit(counts_against_rows)(A, d)
