"""Uses of arrays whose length the data chooses (session 50), against plain Python + NumPy:
results, dtypes, Python types, the arguments after the call, the errors raised.

1. Selections by one mask value pair element for element: ``A[nz] / d[nz, None]`` and the store
   ``P[nz] = ...`` are a masked elementwise kernel (``masked.aligned_by_mask``, ``masked.write``).
2. ``np.repeat(a, counts)`` with traced counts takes the length of an array it meets
   (``tied_length.Repeated``), the call checking ``sum(counts)`` against it with NumPy's error;
   selections by two masks pair their k-th kept elements (``masked.realigned``), the call
   checking the counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitTypeError, UnsupportedError
from tests.budget import examples
from tests.jit_once import jit_once


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
            jit_once(fn, **jit_options)(*mine)
        assert str(raised.value).split("\n")[0] == str(error)  # (and where, while tracing)
        return
    got = jit_once(fn, **jit_options)(*mine)
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
    with pytest.raises(JitTypeError, match="depends on the data"):
        jc.jit(counts_against_rows)(A, d)


# -- 2b. selections by two masks: the k-th kept of each, the counts checked when it runs ---------
def two_masks(x, m, m2):
    return x[m] + x[m2], x[m2] * 2 - x[m]


def two_masks_rows(A, m, m2):
    return A[m] * A[:, :1][m2], A[m] + A[m2]


@settings(max_examples=examples(30, 12), deadline=None)
@given(n=st.sampled_from([0, 1, 5, 12]), kinds=st.tuples(MASKS, MASKS), same_count=st.booleans(),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_selections_by_two_masks_match_numpy(n, kinds, same_count, dtype, seed):
    rng = np.random.default_rng(seed)
    m, m2 = (_mask(rng, n, k) for k in kinds)
    if same_count:  # (else mostly NumPy's ValueError, or its broadcast of one element)
        m2 = np.zeros(n, bool)
        m2[rng.permutation(n)[: m.sum()]] = True
    if m2.sum() == 1 and m.sum() not in (1,):
        m, m2 = m2, m  # (one kept against another count, first: refused, test below)
    if m.sum() == 1 and m2.sum() not in (1,):
        m2 = m.copy()
    x = _array(rng, n, dtype)
    with np.errstate(all="ignore"):
        if dtype is not np.bool_:
            _check(two_masks, x, m, m2)
        _check(two_masks_store, _array(rng, (n, 3), dtype), np.where(m, 2.0, 0.0) + np.where(m2, 0.0, 1.5))
        _check(two_masks_rows, _array(rng, (n, 2), dtype), m, m2)


def one_first(x, m, m2):
    return x[m] + x[m2]


def test_one_element_first_against_more_is_refused_when_called():
    x = np.arange(5.0)
    m = np.arange(5) == 3
    with pytest.raises(UnsupportedError, match="Put the longer selection first"):
        jc.jit(one_first)(x, m, x > 0)
    _check(one_first, x, x > 0, m)  # the longer first: NumPy's broadcast of the one element


# -- 2. a repeat tied to a known length ---------------------------------------------------------
def csr_matvec(indptr, indices, data, x):
    n = len(indptr) - 1
    rows = np.repeat(np.arange(n), np.diff(indptr))
    return np.bincount(rows, weights=data * x[indices], minlength=n)


def csr_elementwise(indptr, data, scale):
    rows = np.repeat(scale, np.diff(indptr))
    return data * rows + 1, (rows * 2 - data) > 0, abs(rows) + data


def csr_add_at(indptr, data):
    y = np.zeros(len(indptr) - 1, data.dtype)
    np.add.at(y, np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)), data)
    return y


def weights_repeated(indptr, data, w):
    return np.bincount(data, weights=np.repeat(w, np.diff(indptr)), minlength=8)


def rows_2d(counts, a, b):
    return np.repeat(a, counts, axis=0) + b, b * np.repeat(a, counts, axis=0)


def flattened(counts, a, b):
    return np.repeat(a, counts) - b


def _indptr(counts, dtype):
    return np.concatenate([[0], np.cumsum(counts)]).astype(dtype)


COUNTS = st.lists(st.integers(0, 4), min_size=1, max_size=9)  # (n = 0: bincount needs minlength > 0)


@settings(max_examples=examples(30, 12), deadline=None)
@given(counts=COUNTS, dtype=st.sampled_from(DTYPES), index=st.sampled_from([np.int32, np.int64]),
       off=st.sampled_from([0, 0, 0, 1, -1]), seed=st.integers(0, 2**32 - 1))
def test_repeat_tied_to_a_known_length_matches_numpy(counts, dtype, index, off, seed):
    rng = np.random.default_rng(seed)
    indptr = _indptr(counts, index)
    if int(indptr[-1]) != 1 and int(indptr[-1]) + off == 1:
        off = 0  # (one stored element against other totals: refused, test below)
    nnz = max(int(indptr[-1]) + off, 0)  # off: a length the counts do not sum to (NumPy's error)
    n = len(counts)
    data = _array(rng, nnz, dtype)
    x = _array(rng, max(n, 1), np.float64)
    indices = rng.integers(0, max(n, 1), nnz).astype(index)
    with np.errstate(all="ignore"):
        if dtype is not np.complex128:
            _check(csr_matvec, indptr, indices, data.astype(np.float64), x)
        _check(csr_elementwise, indptr, data, _array(rng, n, dtype))
        _check(csr_add_at, indptr, data)
        _check(weights_repeated, indptr, rng.integers(0, 8, nnz), rng.random(n))


@settings(max_examples=examples(20, 8), deadline=None)
@given(counts=COUNTS, off=st.sampled_from([0, 0, 1, -1]), seed=st.integers(0, 2**32 - 1))
def test_repeat_of_rows_and_flattened_matches_numpy(counts, off, seed):
    rng = np.random.default_rng(seed)
    counts = np.array(counts, np.int64)
    total = max(int(counts.sum()) + off, 0)
    a = rng.random((len(counts), 3))
    _check(rows_2d, counts, a, rng.random((total, 3)))
    _check(rows_2d, counts, a, rng.random((total, 1)))
    flat = np.repeat(np.ones(3, np.int64), 1) if len(counts) == 0 else np.repeat(counts, 3)
    _check(flattened, flat, a, rng.random(max(int(flat.sum()) + off, 0)))


def test_a_total_of_one_broadcasts_as_numpys():
    counts = np.array([0, 1, 0])
    _check(csr_elementwise, _indptr([0, 1, 0], np.int64), np.arange(5.0), np.arange(3.0))
    _check(rows_2d, counts, np.arange(6.0).reshape(3, 2), np.ones((4, 2)))


def test_negative_and_uncastable_counts_raise_numpys_errors():
    _check(csr_elementwise, np.array([0, 2, 1, 5]), np.ones(5), np.ones(3))
    _check(flattened, np.array([1.0, 2.0]), np.ones(2), np.ones(3))
    _check(flattened, np.array([1, 2], np.uint64), np.ones(2), np.ones(3))


def repeat_returned(indptr):
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))


def repeat_summed(indptr):
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)).sum()


def repeat_count_only(indptr):
    return np.bincount(np.repeat(np.arange(len(indptr) - 1), np.diff(indptr)), minlength=3)


@pytest.mark.parametrize("fn", [repeat_returned, repeat_summed, repeat_count_only])
def test_a_repeat_nothing_ties_is_refused_naming_the_counts_and_the_loop(fn):
    with pytest.raises(JitTypeError, match=r"numpy.repeat with traced per-element counts.*"
                                           r"sum\(counts\).*for i in range\(n\)"):
        jc.jit(fn)(np.array([0, 2, 2, 5]))


def test_one_stored_element_against_another_total_is_refused_when_called():
    # NumPy broadcasts data of length 1 along the repeat (a result of the data's length); the
    # repeat was tied to length 1 when compiling, so the call says so (a total of 1 compiles)
    indptr = _indptr([0, 2], np.int64)
    for fn, args in ((csr_elementwise, (indptr, np.ones(1), np.ones(2))), (csr_add_at, (indptr, np.ones(1)))):
        with pytest.raises(UnsupportedError, match=r"of 2 rows met an array of length 1.*v\[0\]"):
            jc.jit(fn)(*args)
    _check(csr_elementwise, _indptr([0, 1], np.int64), np.ones(1), np.ones(2))
