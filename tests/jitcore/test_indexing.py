"""Indexing under jit against NumPy: basic indexing (ints, slices with any step, None,
Ellipsis), advanced indexing (integer arrays, lists, traced integer arrays and constant boolean
masks among ints, slices, None and Ellipsis; NumPy's placement rule), writes through advanced
indices, and the errors where the result's shape would depend on the data."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore.ir.parser import parse
from jitcore.ir.printer import print_op
from tests.budget import examples
from tests.layouts import WRITABLE_LAYOUTS, relayout
from tests.oracle import assert_matches
from tests.strategies import arrays

DTYPES = [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64]


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_basic_indexing_matches_numpy(data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    x = data.draw(arrays(dtype, shape))
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    expected = x[key]
    got = jc.jit(lambda v: v[key])(x)
    assert_matches(got, expected, 0, f"x{shape}[{key!r}]")


@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_integer_array_index_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    x = data.draw(arrays(np.float32, shape))
    axis = data.draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    idx = data.draw(arrays(np.int64, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
                           st.integers(-n, n - 1)))
    key = (slice(None),) * axis + (idx,)
    with np.errstate(over="ignore"):
        expected = x[key] * 2
    assert_matches(jc.jit(lambda v, i: v[(slice(None),) * axis + (i,)] * 2)(x, idx), expected)
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


@pytest.mark.parametrize("unused", [
    lambda v, i: v[i],  # never read
    lambda v, i: np.take(v.reshape(1, 5), i, axis=1),
    lambda v, i: np.where(True, v[:2], v[i]),  # the select folds away; the gather stays
])
def test_an_unused_gather_out_of_range_still_raises(unused):
    """NumPy evaluates ``v[i]`` whether or not its result is read: so does jitcore."""
    def f(v, i):
        unused(v, i)
        return v + 1

    x = np.arange(5.0)
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        jc.jit(f)(x, np.array([0, 7]))
    assert_matches(jc.jit(f)(x, np.array([0, -5])), x + 1)


def test_data_dependent_shapes_are_refused_with_advice():
    x = np.arange(6.0)
    # (returned, v[v > 2] is compiled; its .shape too since session 47, the count traced; its
    # slices since session 51)
    with pytest.raises(jc.JitTypeError, match="where"):
        jc.jit(lambda v: v[v > 2][1:].reshape(1, -1))(x)
    with pytest.raises(IndexError, match="did not match indexed array along axis 0"):
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


X4 = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)  # distinct sizes: shapes tell


@pytest.mark.parametrize("key", [
    (0, slice(None), [1, 2, 0]),  # an int among arrays is advanced: apart, so B goes first
    (slice(None), 0, [1, 2, 0]),  # adjacent: B in place
    (slice(None), [0, 1, 2], None, [1, 2, 3]),  # None parts them: B first
    (slice(None), [0, 1, 2], [1, 2, 3], None),
    (slice(None), [0, 2], Ellipsis, [1, 4]),  # Ellipsis parts them
    (slice(None), [[0, 1, 2]], slice(1, 3), [[1], [2]]),  # broadcast (2, 3), apart
    (slice(None, None, -1), [[0], [2]], [1, 3, -1], slice(None, None, 2)),  # broadcast, in place
    (None, [1, 0], slice(1, None, 2), -1, None),
    (Ellipsis, [[0], [1]], [1, 2, 3]),
    ([0, -1], slice(None, None, -1), np.array([True, False, False, True])),
    (slice(None), np.arange(12).reshape(3, 4) % 5 == 1, [4, 0, 1]),  # a 2-d mask: two arrays
    (1, np.array([True, False, True]), 2),
    ([[1, 0]], [[0], [2], [1]]),
    (slice(None), [], slice(None), [0]),  # empty result
    (np.array(1), slice(None), np.array([2, 0])),  # a 0-d array is advanced too
])
def test_advanced_index_placement_and_broadcasting(key):
    f = jc.jit(lambda v: v[key])
    assert_matches(f(X4), X4[key], 0, repr(key))


def test_traced_index_arrays_broadcast_and_wrap():
    f = jc.jit(lambda v, i, j: v[i, :, j] * 2)
    x = X4[:, :, :, 0]
    i, j = np.array([[0], [1], [-1]]), np.array([0, 3, -4, 2], np.int32)
    assert_matches(f(x, i, j), x[i, :, j] * 2)
    g = jc.jit(lambda v, i, j: v[1:, i, None, j])
    assert_matches(g(X4, np.array([2, -3]), np.uint8(1)), X4[1:, np.array([2, -3]), None, np.uint8(1)])


def _numpy_error(x, key) -> str:
    with pytest.raises(IndexError) as e:
        x[key]
    return str(e.value)


@pytest.mark.parametrize("key", [
    (slice(None), [0, 7], [1]),
    (7, [0]),
    (slice(None), [0, 1], [[1], [2]], [9]),
    (slice(None), [9, 1], [[1], [2]], [9]),
    ([0, 1], slice(None), [-6]),
])
def test_constant_out_of_range_raises_numpys_index_error_while_tracing(key):
    message = _numpy_error(X4, key)
    with pytest.raises(IndexError, match=re.escape(message)):
        jc.jit(lambda v: v[key])(X4)


def test_traced_out_of_range_raises_numpys_index_error_after_the_call():
    f = jc.jit(lambda v, i, j: v[i, :, j])
    x = X4[:, :, :, 0]
    for i, j in [([[0], [5]], [0, 1]), ([[0], [1]], [4]), ([[3], [0]], [-5]), ([9, 0], [8, -9])]:
        i, j = np.array(i), np.array(j)
        with pytest.raises(IndexError, match=re.escape(_numpy_error(x, (i, slice(None), j)))):
            f(x, i, j)
    assert_matches(f(x, np.array([1]), np.array([-1])), x[[1], :, [-1]])  # the cache still works
    empty = np.zeros((3, 4, 0), np.float32)  # the result is empty, the index still checked
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        f(empty, np.array([5]), np.array([0]))


def test_index_arrays_that_do_not_broadcast_or_masks_that_do_not_fit():
    with pytest.raises(IndexError, match="shape mismatch"):
        jc.jit(lambda v: v[:, [0, 1], [1, 2, 3]])(X4)
    with pytest.raises(IndexError, match="did not match indexed array along axis 1"):
        jc.jit(lambda v: v[0, np.ones(4, bool)])(X4)
    with pytest.raises(IndexError, match="integer"):
        jc.jit(lambda v: v[np.array([0.0]), [1]])(X4)


def test_empty_advanced_results():
    x = np.zeros((0, 3), np.int16)
    assert_matches(jc.jit(lambda v: v[[], [0, 0][:0]])(X4), X4[[], []])
    assert_matches(jc.jit(lambda v: v[:, [2, 0], None])(x), x[:, [2, 0], None])
    assert_matches(jc.jit(lambda v, i: v[i, i])(X4[0, :, :3, 0], np.zeros((2, 0), np.int64)),
                   X4[0, :, :3, 0][np.zeros((2, 0), np.int64), np.zeros((2, 0), np.int64)])


def test_advanced_index_of_a_constant_folds():
    c = np.arange(12.0).reshape(3, 4)
    f = jc.jit(lambda v: v + c[[0, 2], [1, -1]])
    assert_matches(f(np.ones(2)), 1 + c[[0, 2], [1, -1]])
    assert "gather" not in f.lower(np.ones(2)).as_text("optimized")


def test_gather_nd_scatter_nd_and_diagonal_round_trip_as_text():
    def f(v, i):
        v[i, 1:, [0, 2]] += 1
        return v[:, i, 0, [1, 1]], np.einsum("iij->ji", v[:, :2, 0])
    text = str(jc.make_ir(f)(X4, np.array([1, 0])))
    for op in ("gather_nd", "scatter_nd", "diagonal"):
        assert f'"array.{op}"' in text
    assert print_op(parse(text)) == text


def test_setitem_with_advanced_indices_last_write_wins():
    def f(v, i):
        v[i, :, [1, 1, 0]] = np.arange(3.0)[:, None]
        v[[0, 0], ..., [2, 3]] += 10  # as NumPy: each element once, not twice
        v[1:, np.array([True, False, True]), -1] = -1
        return v
    for i in (np.array([0, 1, 0]), np.array([[1], [0]])):
        expected = X4.copy()
        f(expected, i)
        for kind in WRITABLE_LAYOUTS:
            x = relayout(X4, kind)
            assert_matches(jc.jit(f)(x, i), expected, 0, kind)
            assert_matches(x, expected, 0, kind)  # the caller's array was written, as in NumPy


def test_advanced_getitem_is_a_copy_not_a_view():
    def f(v):
        y = v[[0, 1], 0]
        y += 100
        return y
    x = X4.copy()
    assert_matches(jc.jit(f)(x), f(X4.copy()))
    assert_matches(x, X4)


def test_at_add_accumulates_repeated_indices_like_add_at():
    v = np.arange(6.0).reshape(2, 3)
    y = X4[0, :, :, 0].astype(np.float64)

    def f(x, i):
        return x.at[i, :3].add(v), x.at[i, :3].set(v), x.at[i, 1:].get()
    i = np.array([1, 1])
    added = y.copy()
    np.add.at(added, (i, slice(None, 3)), v)
    written = y.copy()
    written[i, :3] = v
    got = jc.jit(f)(y, i)
    assert_matches(got[0], added)
    assert_matches(got[1], written)
    assert_matches(got[2], y[i, 1:])
    counts = jc.jit(lambda c, i: c.at[i].add(1))(np.zeros(4, np.int32), np.array([3, 0, 3, 3, -1]))
    assert_matches(counts, np.array([1, 0, 0, 4], np.int32))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        jc.jit(f)(y, np.array([0, 3]))


def test_unsupported_advanced_forms_are_named():
    with pytest.raises(jc.UnsupportedError, match="at\\[index\\].power"):
        jc.jit(lambda v: v.at[[0, 0]].power(2))(np.ones(3))
    with pytest.raises(jc.JitTypeError, match="where"):  # several values: a data-dependent count
        jc.jit(lambda v: v.at[v > 0].set(np.array([1.0, 2.0, 3.0])))(np.ones(3))


def test_assigning_a_scalar_through_a_traced_mask_is_where():
    def writes(v):
        v[v < 0] = 0
        v[v[:, 0] > 1] = np.float32(7.5)  # a mask over the leading dim
        return v

    def f(v):
        v = writes(v)
        return v, v.at[v > 5].add(1), v.at[v == 0].set(-2.9)
    x = np.array([[-1, 2, -3], [4, -5, 6], [1, 1, 1]], np.int16)
    y = x.copy()
    got = jc.jit(f)(y)
    written = writes(x.copy())
    added = written.copy()
    added[added > 5] += 1
    assert_matches(got[0], written)
    assert_matches(got[1], added)
    assert_matches(got[2], np.where(written == 0, np.int16(-2), written))
    assert_matches(y, written)


# -- a traced integer index is basic indexing: x[i] is a view, as in NumPy ----------------------
def _write_through_views(x, i, j):
    row = x[i]
    row[j] = 5.0  # writes x
    x[i][0] += 1.0  # a view of a view
    x[j % x.shape[0]] *= 2.0
    return x, x[i, j], x[i][j]


@given(st.integers(0, 2), st.integers(0, 1))
@settings(max_examples=20, deadline=None)
def test_traced_integer_index_is_a_view(i, j):
    f = jc.jit(_write_through_views)
    got = f(np.arange(6.0).reshape(3, 2), i, j)
    want = _write_through_views(np.arange(6.0).reshape(3, 2), i, j)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert isinstance(got[1], np.float64) and isinstance(got[2], np.float64)


@pytest.mark.parametrize("fn", [
    lambda v: v[v[..., :0] > 0].sum(),  # a traced mask of shape (2, 0): selects nothing
    lambda v: v[v[:0] > 0].max(initial=-1.0),  # (0, 3)
    lambda v: v[np.zeros((2, 0), bool)],  # a constant one
    lambda v: v[np.zeros(0, bool)],
    lambda v: (v.__setitem__(v[:0, 0] > 0, 5.0), v)[1],  # a write through it: none
])
def test_a_mask_dim_of_extent_0_matches_any_as_in_numpy(fn):
    x = np.arange(6.0).reshape(2, 3)
    want = fn(x.copy())
    got = jc.jit(fn)(x.copy())
    assert np.asarray(got).shape == np.asarray(want).shape
    assert_matches(got, want)


@pytest.mark.parametrize("fn", [lambda v: v[v[:1, :0] > 0].sum(), lambda v: v[np.zeros((3, 0), bool)]])
def test_a_mask_of_another_nonzero_extent_still_raises(fn):
    with pytest.raises(IndexError, match="boolean index did not match"):
        jc.jit(fn)(np.arange(6.0).reshape(2, 3))
