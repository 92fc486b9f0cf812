"""Indexing under jit against NumPy: basic indexing (ints, slices with any step, None,
Ellipsis), one integer-array or constant boolean-mask index, and the errors where the result's
shape would depend on the data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.oracle import assert_matches

DTYPES = [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_basic_indexing_matches_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    x = data.draw(hnp.arrays(dtype, shape))
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    expected = x[key]
    got = jc.jit(lambda v: v[key])(x)
    assert_matches(got, expected, 0, f"x{shape}[{key!r}]")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_integer_array_index_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    x = data.draw(hnp.arrays(np.float32, shape, elements=st.floats(-10, 10, width=32)))
    axis = data.draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    idx = data.draw(hnp.arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
                               elements=st.integers(-n, n - 1)))
    key = (slice(None),) * axis + (idx,)
    assert_matches(jc.jit(lambda v, i: v[(slice(None),) * axis + (i,)] * 2)(x, idx), x[key] * 2)
    assert_matches(jc.jit(lambda v: np.take(v, idx, axis=axis))(x), np.take(x, idx, axis=axis))


def test_constant_boolean_mask_and_list_index():
    x = np.arange(24.0).reshape(4, 6)
    mask = x > 10
    rows = np.array([True, False, True, True])
    assert_matches(jc.jit(lambda v: v[mask] + 1)(x), x[mask] + 1)
    assert_matches(jc.jit(lambda v: v[rows])(x), x[rows])
    assert_matches(jc.jit(lambda v: v[:, [0, -1, 2]])(x), x[:, [0, -1, 2]])
    assert_matches(jc.jit(lambda v: v[..., [1]])(x), x[..., [1]])


def test_out_of_range_index_raises_index_error_after_the_call():
    f = jc.jit(lambda v, i: v[i])
    x = np.arange(5.0)
    assert_matches(f(x, np.array([4, -5])), x[[4, -5]])
    with pytest.raises(IndexError, match="out of bounds"):
        f(x, np.array([0, 5]))
    with pytest.raises(IndexError, match="out of bounds"):
        f(x, np.array([-6]))
    assert_matches(f(x, np.array([1])), x[[1]])  # the cache is intact after the error


def test_data_dependent_shapes_are_refused_with_advice():
    x = np.arange(6.0)
    with pytest.raises(jc.JitTypeError, match="where"):
        jc.jit(lambda v: v[v > 2])(x)
    with pytest.raises(jc.UnsupportedError, match="one integer array"):
        jc.jit(lambda v: v[[0, 1], [1, 0]])(x.reshape(2, 3))
    with pytest.raises(IndexError, match="does not match"):
        jc.jit(lambda v: v[np.array([True, False])])(x)


def _outcome(fn, *args):
    try:
        r = fn(*args)
        return r.shape, r.dtype, r.tolist()
    except IndexError as e:
        return "IndexError", str(e)


def test_indices_into_an_empty_array_are_checked_like_numpy():
    # The gather loop has no iterations when another dim of x is 0; NumPy checks every index
    # all the same when indexing, and np.take only when the dims before its axis are not empty.
    cases = [
        (lambda v, i: v[i], (2, 0), 0), (lambda v, i: v[:, i], (0, 3), 1),
        (lambda v, i: v[:, :, i], (2, 0, 3), 2), (lambda v, i: np.take(v, i, axis=0), (2, 0), 0),
        (lambda v, i: np.take(v, i, axis=1), (0, 3), 1), (lambda v, i: np.take(v, i), (2, 0), None),
    ]
    for fn, shape, axis in cases:
        x = np.zeros(shape, np.float32)
        n = 0 if axis is None else shape[axis]
        for idx in ([n], [n + 4], [-n - 1], [[0], [n]], [0, -1] if n else [], [5, -9, 7]):
            idx = np.asarray(idx, dtype=np.int64)
            want = _outcome(fn, x, idx)
            context = f"{shape} {idx.tolist()}"
            assert _outcome(jc.jit(fn), x, idx) == want, "traced " + context
            assert _outcome(jc.jit(lambda v, f=fn, i=idx: f(v, i)), x) == want, "constant " + context
            as_list = idx.tolist()
            assert _outcome(jc.jit(lambda v, f=fn, i=as_list: f(v, i)), x) == want, "list " + context
