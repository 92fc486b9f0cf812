"""A dict keeps its own order through jit, as Python iterates it: arguments the function
iterates (``values()``, ``for k in d``), results, and keys of several types (JAX sorts keys,
so a dict with both str and int keys cannot even be flattened there)."""

import numpy as np

import jitcore as jc


def sums(d):
    return [v.sum() for v in d.values()], list(d)


def test_an_argument_is_iterated_in_its_own_order_on_every_path():
    f = jc.jit(sums)
    orders = [{"b": np.ones(2), "a": np.zeros(3)}, {"a": np.zeros(3), "b": np.ones(2)}]
    for d in orders * 3:  # the native call's entries too, from the third call of each
        got, want = f(d), sums(d)
        assert got[1] == want[1]
        assert [float(v) for v in got[0]] == [float(v) for v in want[0]]


def test_a_result_keeps_the_order_it_was_built_in():
    f = jc.jit(lambda x: {"w2": x.sum(), "b1": x.max(), 3: x.min(), (1, 2): x * 2})
    for _ in range(3):
        assert list(f(np.ones(3))) == ["w2", "b1", 3, (1, 2)]


def test_a_dict_comprehension_over_an_argument_with_mixed_keys():
    f = jc.jit(lambda d: {k: v * 2 for k, v in d.items()})
    d = {"z": np.ones(2), 1: np.zeros(2)}
    for _ in range(3):
        got = f(d)
        assert list(got) == ["z", 1]
        np.testing.assert_array_equal(got["z"], np.full(2, 2.0))
