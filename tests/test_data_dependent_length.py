"""Results whose length the data chooses, returned from a compiled function: x[mask],
np.extract, np.compress, np.nonzero and its kin, np.unique (jitcore/data_length.py),
differential against NumPy: values, dtypes, shapes, C order, a second size without a compile."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from jitcore import jit
from jitcore.errors import JitTypeError
from tests.budget import signatures

J = functools.partial(jit, cache=False)


def same(want, got):
    """Equal as NumPy's results are: the same containers, dtypes, shapes, values (NaN equal)."""
    assert type(want) is type(got), (want, got)
    if isinstance(want, (tuple, list)):
        assert len(want) == len(got)
        for w, g in zip(want, got):
            same(w, g)
    elif isinstance(want, dict):
        assert want.keys() == got.keys()
        for k in want:
            same(want[k], got[k])
    else:
        assert got.dtype == want.dtype and got.shape == want.shape, (want, got)
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)


def check(fn, *args, jitted=None):
    """``jitted`` (default: a new ``J(fn)``) gives NumPy's result of ``fn`` and leaves its
    arguments as they were."""
    want = fn(*(np.copy(a) for a in args))
    copies = [np.copy(a) for a in args]
    got = (jitted or J(fn))(*copies)
    same(want, got)
    for a, c in zip(args, copies):  # arguments untouched
        np.testing.assert_array_equal(a, c)


def sel(x):
    return x[x > 0]


def sel_times(x):
    m = x > 0
    return x[m] * 2


def sel_containers(x):
    m = x > 0.5
    return (x[m], {"neg": -x[m], "sum": x[m].sum()}, [x[m] + 1])


def rows(x):
    return x[x.sum(axis=-1) > 0]


def extract(x):
    return np.extract(x > 0, x)


def compress0(x):
    return np.compress(np.sum(x, axis=tuple(range(1, x.ndim))) > 0, x, axis=0)


def compress_none(x):
    return np.compress(np.sum(x, axis=tuple(range(1, x.ndim))) > 0, x)


def nonzero(x):
    return np.nonzero(x > 0)


def flatnonzero(x):
    return np.flatnonzero(x > 0)


def argwhere(x):
    return np.argwhere(x > 0)


def where1(x):
    return np.where(x > 0)


def method_nonzero(x):
    return (x > 0).nonzero()


def unique(x):
    return np.unique(x)


def unique_all(x):
    return np.unique(x, return_index=True, return_inverse=True, return_counts=True)


def unique_counts(x):
    return np.unique(np.round(x), return_counts=True)


def unique_index(x):
    return np.unique(np.floor(x * 2), return_index=True)


def reductions_of_indices(x):
    i = np.flatnonzero(x > 0)
    return i.sum(), (i * 2).max(initial=-1), np.unique(x).sum()


SPECIAL = st.sampled_from([0.0, -0.0, 1.0, -1.0, np.nan, 2.5])
FLOATS = st.one_of(SPECIAL, st.floats(-3, 3, width=64))


def arrays(min_dims=1, max_dims=3):
    return hnp.arrays(np.float64, hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0,
                                                    max_side=5), elements=FLOATS)


# The shapes an example compiles for under the ci profile (tests/budget.py ``signatures``): 0-d,
# size 0 along the first or a later axis, one element, a vector, a matrix, a volume; each function
# meets four of them in turn and draws its values per example. Its one jitted function (``_jitted``)
# serves its examples, so a shape met again reuses the code (and takes the repeated-call path).
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (1,), (4, 1), (2, 3, 5), (5, 5), (0, 2), (3,), (1, 5, 2)]


@functools.cache
def _jitted(fn):
    return J(fn)


ANY_SHAPE = [sel, sel_times, sel_containers, extract, flatnonzero, argwhere, unique, unique_all,
             unique_counts, unique_index, reductions_of_indices]


@pytest.mark.parametrize("fn", ANY_SHAPE)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_any_shape(fn, data):
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
    shape = data.draw(signatures(shapes, SHAPES, 4 * ANY_SHAPE.index(fn), 4))
    check(fn, data.draw(hnp.arrays(np.float64, shape, elements=FLOATS)), jitted=_jitted(fn))


AT_LEAST_1D = [nonzero, where1, method_nonzero, rows]


@pytest.mark.parametrize("fn", AT_LEAST_1D)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_at_least_1d(fn, data):
    shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5)
    table = [s for s in SHAPES if s]
    shape = data.draw(signatures(shapes, table, 4 * AT_LEAST_1D.index(fn), 4))
    check(fn, data.draw(hnp.arrays(np.float64, shape, elements=FLOATS)), jitted=_jitted(fn))


@pytest.mark.parametrize("fn", [compress0, compress_none])
@settings(max_examples=12, deadline=None)
@given(x=arrays(min_dims=2, max_dims=3))
def test_compress(fn, x):
    assume(fn is compress0 or x.size >= x.shape[0])  # a longer condition: refused (see docs)
    check(fn, x)


@pytest.mark.parametrize("fill", [1.0, -1.0, np.nan])
@pytest.mark.parametrize("fn", [sel, nonzero, argwhere, unique_all, compress0])
def test_all_true_all_false_all_nan(fn, fill):
    check(fn, np.full((4, 3), fill))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float32, np.bool_])
def test_dtypes(dtype):
    x = (np.arange(24) % 5 - 2).astype(dtype).reshape(4, 6)
    for fn in (sel, unique_all, argwhere, nonzero):
        check(fn, x)


def test_argwhere_0d_and_nonzero_0d_error():
    check(argwhere, np.array(3.0))
    check(argwhere, np.array(-3.0))
    with pytest.raises(ValueError, match="nonzero on 0d arrays"):
        J(nonzero)(np.array(1.0))


def test_another_size_reuses_the_code():
    f = J(sel)
    for n in (50, 80, 300):
        x = np.linspace(-1, 1, n)
        np.testing.assert_array_equal(f(x), x[x > 0])
    info = f.cache_info()
    assert info.reused >= 1 and info.compiles < 3, info


def test_few_rows_own_their_data():
    x = np.full(1000, -1.0)
    x[3] = 2.0
    out = J(sel)(x)
    assert out.flags.owndata and out.tolist() == [2.0]


@pytest.mark.parametrize("use, what", [
    # x[x > 0].shape and len(np.flatnonzero(x)) compile since session 47: the count, traced;
    # an int index of a selection (np.unique(x)[0]) since session 50 (wrong50); a slice of one
    # (np.nonzero(x)[0][1:]) since session 51 (run_length)
    (lambda x: np.nonzero(x)[0][1:].reshape(2, -1), "reshape"),
])
def test_uses_that_need_the_length_stay_refused(use, what):
    with pytest.raises(JitTypeError, match="depends on the data"):
        J(use)(np.arange(5.0))


def test_a_slice_of_a_selection_is_numpys():
    def rest(x):
        return np.nonzero(x)[0][1:]
    np.testing.assert_array_equal(J(rest)(np.arange(5.0)), rest(np.arange(5.0)))


def test_an_int_index_of_a_selection_is_numpys():
    def first(x):
        return np.unique(x)[0]
    assert J(first)(np.array([3.0, 1.0, 2.0, 1.0])) == first(np.array([3.0, 1.0, 2.0, 1.0]))
    with pytest.raises(IndexError):
        J(lambda x: x[x > 9][0])(np.arange(5.0))


def test_refusals_say_what_to_write():
    with pytest.raises(JitTypeError, match="only axis 0"):
        J(lambda x: np.compress(x[0] > 0, x, axis=1))(np.ones((2, 3)))
    with pytest.raises(JitTypeError, match="axis=None"):
        J(lambda x: np.unique(x, axis=0))(np.ones((2, 3)))


def test_repeated_calls_take_the_native_path_and_trim():
    f = J(lambda x: (x[x > 0], np.nonzero(x > 1), {"u": np.unique(np.round(x))}))
    x = np.random.default_rng(1).standard_normal(40)
    want = (x[x > 0], np.nonzero(x > 1), {"u": np.unique(np.round(x))})
    for _ in range(4):  # from the second cached call on, the native call makes it
        same(want, f(x))
    assert f._native_hits.value >= 1
