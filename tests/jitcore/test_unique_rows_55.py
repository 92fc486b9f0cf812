"""Session 55: ``np.unique(x, axis=0)`` of a 2-d array of integers or bools compiles (its
distinct rows, first indices, inverse and counts: ``numpy/data_length._unique_rows``); floats
stay refused with a message that says what compiles."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from tests.budget import examples
from tests.oracle import assert_same_tree


def every_result(e):
    return np.unique(e, axis=0, return_index=True, return_inverse=True, return_counts=True)


def edges(tri):  # (t54/u3 R5: a mesh's edges, each once, and how many triangles share it)
    e = np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1)
    return np.unique(e, axis=0, return_counts=True)


@settings(max_examples=examples(25, 10), deadline=None)
@given(hnp.arrays(np.int64, st.tuples(st.integers(0, 12), st.just(2)), elements=st.integers(-2, 2)))
def test_unique_rows_match_numpy(e):
    assert_same_tree(jc.jit(every_result)(e), every_result(e))


def test_unique_rows_of_other_widths_and_a_mesh():
    rng = np.random.default_rng(55)
    tri = rng.integers(0, 6, (9, 3))
    assert_same_tree(jc.jit(edges)(tri), edges(tri))
    e = rng.integers(-2, 3, (15, 2))[::2]  # (a strided view, Fortran order)
    assert_same_tree(jc.jit(every_result)(np.asfortranarray(e)), every_result(e))
    one = rng.integers(0, 3, (11, 1)).astype(np.int32)
    assert_same_tree(jc.jit(every_result)(one), every_result(one))


def test_unique_rows_of_floats_is_refused_saying_what_compiles():
    with pytest.raises(jc.JitTypeError, match=r"axis=0 of a 2-d array of integers or bools") as e:
        jc.jit(every_result)(np.ones((3, 2)))
    assert "test_unique_rows_55.py" in str(e.value)
