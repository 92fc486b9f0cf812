"""A strided argument (a non-contiguous view passed in) under ravel, reshape and
ascontiguousarray: NumPy copies where the strides cannot be merged, and a write to the copy
must not reach the caller's array (it did: ``np.ascontiguousarray(a.T)``, ``a.ravel()`` and
``a.reshape(-1)`` of ``base[:, 1:]`` were views of the argument under jit). Where NumPy views
(unit axes added, slices, transposes), the write reaches it under jit too."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


def _contiguous_t(a):
    r = np.ascontiguousarray(a.T)
    r[0, 0] = 99.0
    return r


def _ravel(a):
    r = a.ravel()
    r[0] = 77.0
    return r


def _reshape_flat(a):
    r = a.reshape(-1)
    r[1] = 55.0
    return r.sum()


def _reshape_unit(a):
    r = a.reshape(a.shape[0], 1, a.shape[1])  # any strides allow it: NumPy views
    r[0, 0, 0] = -1.0
    return r


def _transpose_write(a):
    r = a.T
    r[0, 1] = 11.0
    return r


def _ascontiguous_row(a):
    r = np.ascontiguousarray(a[1])
    r[0] = 5.0
    return r


FUNCTIONS = [_contiguous_t, _ravel, _reshape_flat, _reshape_unit, _transpose_write]
VIEWS = {
    "columns cut": lambda b: b[:, 1:],
    "every other column": lambda b: b[:, ::2],
    "every other row": lambda b: b[::2, :-1],
    "reversed columns, cut": lambda b: b[:, -2::-1],
}


JITTED = {fn: jc.jit(fn) for fn in [*FUNCTIONS, _ascontiguous_row]}


def _run(fn, view, jitted: bool):
    return _run_at(fn, view, np.arange(40.0).reshape(5, 8), jitted)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("view", list(VIEWS), ids=str)
def test_writes_reach_the_argument_as_in_numpy(fn, view):
    want, want_base, want_arg = _run(fn, VIEWS[view], False)
    got, got_base, got_arg = _run(fn, VIEWS[view], True)
    np.testing.assert_array_equal(got_base, want_base)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    if isinstance(want, np.ndarray) and not np.shares_memory(want, want_base):
        # NumPy's copy: so is jit's (a returned view of an argument may come back as a copy
        # under jit; its writes above reached the argument all the same)
        assert got.flags.c_contiguous == want.flags.c_contiguous
        assert not np.shares_memory(got, got_base)


@given(rows=st.integers(1, 6), columns=st.integers(2, 9), step=st.sampled_from([1, 2, 3, -1, -2]),
       start=st.integers(0, 1), fn=st.sampled_from([_contiguous_t, _ravel, _reshape_flat]))
@settings(max_examples=30, deadline=None)
def test_copies_of_strided_arguments(rows, columns, step, start, fn):
    base = np.arange(rows * columns, dtype=np.float64).reshape(rows, columns)
    view = (lambda b: b[:, start::step]) if step > 0 else (lambda b: b[:, ::step])
    want, want_base, _ = _run_at(fn, view, base.copy(), False)
    got, got_base, _ = _run_at(fn, view, base.copy(), True)
    np.testing.assert_array_equal(got_base, want_base)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _run_at(fn, view, base, jitted):
    a = view(base)
    return (JITTED[fn] if jitted else fn)(a), base, a


def test_a_dense_row_of_a_strided_argument_is_a_view_as_in_numpy():
    """``x[::2, :-1][1]`` is dense: NumPy's ``ascontiguousarray`` of it is a view, and the
    write reaches the argument (its class says the last axis steps one element)."""
    want, want_base, _ = _run(_ascontiguous_row, VIEWS["every other row"], False)
    got, got_base, _ = _run(_ascontiguous_row, VIEWS["every other row"], True)
    np.testing.assert_array_equal(got_base, want_base)
