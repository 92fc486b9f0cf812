"""Numbers and arrays held in a global or closed-over list or tuple (``L[0]``), read on each
call on the native path (session 47: before, every such call took the Python path, ~26 us):
the item read where it lies, the list or tuple itself guarded by identity, so that a change of
an item, a list bound anew (even to an equal one) and a list grown or emptied all give what
plain Python gives."""

import numpy as np
import pytest

import jitcore as jc
from jitcore import native_call

L = [0.5, 2.0]
T = (0.5, 3)
ARRS = [np.ones(3)]
NESTED = [[0.25]]


def scale(x):
    return x * L[0] + L[1]


def scale_tuple(x):
    return x * T[0] + T[1]


def add_array(x):
    return x + ARRS[0]


def nested(x):
    return x * NESTED[0][0]


@pytest.fixture(autouse=True)
def _restore():
    global L, T, ARRS, NESTED
    yield
    L, T, ARRS, NESTED = [0.5, 2.0], (0.5, 3), [np.ones(3)], [[0.25]]


def test_the_native_call_reads_list_and_tuple_items():
    reads = native_call._read_of
    from jitcore.calltime import ItemRead
    if native_call._LAYOUT is None:
        pytest.skip("no native call on this Python (the Python path is tested below)")
    assert reads(ItemRead(L, 0))[0] == native_call.READ_LIST_ITEM
    assert reads(ItemRead(T, 1))[0] == native_call.READ_TUPLE_ITEM


@pytest.mark.parametrize("fn", [scale, scale_tuple, nested])
def test_numbers_in_a_list_or_tuple_follow_changes(fn):
    global L, T, NESTED
    x = np.arange(4.0)
    jf = jc.jit(fn)
    for _ in range(3):
        np.testing.assert_array_equal(jf(x), fn(x))
    L[0] = 1.5
    NESTED[0][0] = -1.0
    T = (4.0, 1)
    for _ in range(2):
        np.testing.assert_array_equal(jf(x), fn(x))
    L = [0.5, 2.0]  # bound anew to an equal list, then that list changed
    NESTED = [[0.25]]
    np.testing.assert_array_equal(jf(x), fn(x))
    L[1] = 9.0
    NESTED[0][0] = 3.0
    np.testing.assert_array_equal(jf(x), fn(x))
    NESTED[0] = [7.0]  # the inner list bound anew inside the outer one
    np.testing.assert_array_equal(jf(x), fn(x))


def test_a_list_emptied_raises_pythons_index_error():
    global L
    x = np.arange(3.0)
    jf = jc.jit(scale)
    jf(x)
    L = [0.5]
    with pytest.raises(IndexError):
        scale(x)
    with pytest.raises(IndexError):
        jf(x)
    L.append(1.0)
    np.testing.assert_array_equal(jf(x), scale(x))


def test_arrays_in_a_list_are_read_on_each_call():
    x = np.arange(3.0)
    jf = jc.jit(add_array)
    np.testing.assert_array_equal(jf(x), add_array(x))
    ARRS[0][1] = 10.0  # written in place
    np.testing.assert_array_equal(jf(x), add_array(x))
    ARRS[0] = np.full(3, 2.0)  # replaced
    np.testing.assert_array_equal(jf(x), add_array(x))
    ARRS[0] = np.full(1, 5.0)  # another shape: broadcasts
    np.testing.assert_array_equal(jf(x), add_array(x))
    ARRS[0] = np.arange(6.0)[::2]  # a strided view
    np.testing.assert_array_equal(jf(x), add_array(x))


def test_the_native_path_takes_these_calls():
    if native_call._LAYOUT is None:
        pytest.skip("no native call on this Python")
    x = np.arange(3.0)
    for fn in (scale, scale_tuple, add_array, nested):
        jf = jc.jit(fn)
        jf(x)
        jf(x)
        before = jf._native_hits.value
        for _ in range(5):
            jf(x)
        assert jf._native_hits.value == before + 5, fn.__name__
