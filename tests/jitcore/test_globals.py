"""Globals and closed-over arrays are read at call time (issue 12, item 2): the user code of the
issue, where a jitted function kept the array it saw at its first compile.

NumPy, running the same function without jit, is the oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples

W = np.arange(4.0)
SCALE = 2.0
STEPS = 3
OFFSETS = np.zeros(3)
MASK = np.array([True, False, True, True])


def add_w(x):
    return x + W


def write_w(x):
    W[1] = x[0]
    W[2] += x[1]
    return x * 2


def scaled(x):
    return x * SCALE


def first_steps(x):
    return x[:STEPS].sum()


def helper_uses_offsets(x):
    return x - OFFSETS


def calls_helper(x):
    return helper_uses_offsets(x) * 2


def w_in_compiled_loop(x, n):
    acc = x * 0
    for _ in range(n):
        acc = acc + W
    return acc


@pytest.fixture(autouse=True)
def _fresh_globals():
    """Each test starts from the module's values (tests write to them and rebind them)."""
    global W, SCALE, STEPS, OFFSETS, MASK
    W, SCALE, STEPS, OFFSETS = np.arange(4.0), 2.0, 3, np.zeros(3)
    MASK = np.array([True, False, True, True])


def test_a_global_written_between_calls_is_seen_without_recompiling():
    f = jc.jit(add_w)
    x = np.ones(4)
    np.testing.assert_array_equal(f(x), x + W)
    W[:] = 5
    np.testing.assert_array_equal(f(x), np.full(4, 6.0))
    assert f.cache_info().compiles == 1


def test_a_rebound_global_is_seen_and_a_new_shape_recompiles():
    global W
    f = jc.jit(add_w)
    f(np.ones(4))
    W = np.ones(4) * 7  # same shape and dtype: the same code, the new array
    np.testing.assert_array_equal(f(np.ones(4)), np.full(4, 8.0))
    assert f.cache_info().compiles == 1
    W = np.arange(3.0)  # a new shape: broadcasting changes, a new compile
    np.testing.assert_array_equal(f(np.ones(1)), np.ones(1) + W)
    W = np.arange(4, dtype=np.float32)  # a new dtype: float32 + float64 is still float64
    out = f(np.ones(4, np.float32))
    assert out.dtype == np.float32 and np.array_equal(out, np.ones(4, np.float32) + W)
    assert f.cache_info().compiles == 3


def test_a_global_array_used_in_a_compiled_loop_is_read_at_call_time():
    f = jc.jit(w_in_compiled_loop)
    x = np.ones(4)
    np.testing.assert_array_equal(f(x, 3), w_in_compiled_loop(x, 3))
    W[:] = -1
    np.testing.assert_array_equal(f(x, 5), w_in_compiled_loop(x, 5))
    assert f.cache_info().compiles == 1


def test_writes_to_a_global_array_reach_it():
    f = jc.jit(write_w)
    x = np.array([10.0, 20.0, 0.0, 0.0])
    expected = W.copy()
    expected[1] = 10.0
    expected[2] += 20.0
    np.testing.assert_array_equal(f(x), x * 2)
    np.testing.assert_array_equal(W, expected)
    f(x)  # again: the compiled code writes to the array it is given now
    expected[2] += 20.0
    np.testing.assert_array_equal(W, expected)


def test_a_closed_over_array_is_read_from_its_cell():
    def make():
        table = np.arange(3.0)

        def f(x):
            return x * table

        def rebind(new):
            nonlocal table
            table = new

        return jc.jit(f), (lambda: table), rebind

    f, table, rebind = make()
    x = np.full(3, 2.0)
    np.testing.assert_array_equal(f(x), x * np.arange(3.0))
    table()[:] = 1
    np.testing.assert_array_equal(f(x), x)
    rebind(np.full(3, 4.0))
    np.testing.assert_array_equal(f(x), x * 4)
    assert f.cache_info().compiles == 1


def test_a_global_of_a_called_helper_is_read_at_call_time():
    f = jc.jit(calls_helper)
    x = np.arange(3.0)
    f(x)
    OFFSETS[:] = [1, 2, 3]
    np.testing.assert_array_equal(f(x), calls_helper(x))


def test_a_global_scalar_that_changes_is_seen_by_recompiling():
    global SCALE, STEPS
    f, g = jc.jit(scaled), jc.jit(first_steps)
    x = np.arange(5.0)
    assert f(x).tolist() == scaled(x).tolist() and g(x) == first_steps(x)
    SCALE, STEPS = 3.0, 4  # STEPS decides a shape: a part of the signature, not a run-time value
    assert f(x).tolist() == scaled(x).tolist() and g(x) == first_steps(x)
    SCALE = 2.0
    f(x)
    assert f.cache_info().compiles == 2  # the first variant serves 2.0 again
    SCALE = float("nan")
    assert np.isnan(f(x)).all() and np.isnan(f(x)).all()
    assert f.cache_info().compiles == 3  # NaN is one value, not a new one on each call


def test_a_strided_global_view_is_read_without_a_copy():
    global W
    big = np.arange(12.0).reshape(3, 4)
    W = big[:, 1]  # a column: not contiguous
    f = jc.jit(add_w)
    x = np.ones(3)
    np.testing.assert_array_equal(f(x), x + big[:, 1])
    big[:, 1] = -2
    np.testing.assert_array_equal(f(x), x - 2)


def test_arrays_made_while_tracing_stay_constants():
    def f(x):
        table = np.arange(3.0)  # made on each call in NumPy: the same values each time
        return x + table

    jitted = jc.jit(f)
    np.testing.assert_array_equal(jitted(np.ones(3)), f(np.ones(3)))
    np.testing.assert_array_equal(jitted(np.ones(3)), f(np.ones(3)))
    assert type(next(iter(jitted._cache.values()))).__name__ == "Executable"  # no hidden inputs


@settings(max_examples=examples(10), deadline=None)
@given(n=st.integers(0, 6), values=st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=2))
def test_hypothesis_the_global_each_call_sees_is_numpys(n, values):
    global W
    f = jc.jit(add_w)
    x = np.arange(float(n))
    for v in values:
        W = np.full(n, v)
        np.testing.assert_array_equal(f(x), add_w(x))
        W[: n // 2] = -v  # written in place between calls
        np.testing.assert_array_equal(f(x), add_w(x))


def test_the_stages_show_a_global_as_an_argument_after_the_real_ones():
    lowered = jc.jit(add_w).lower(np.ones(4))
    traced = lowered.as_text("traced")
    assert "%arg1: tensor<4xf64>" in traced and "array.constant" not in traced
    assert lowered.as_text("llvm")


def test_a_callable_objects_globals_are_read_at_call_time():
    class AddW:
        def __call__(self, x):
            return x + W

    f = jc.jit(AddW().__call__)
    f(np.ones(4))
    W[:] = 3
    np.testing.assert_array_equal(f(np.ones(4)), np.full(4, 4.0))


def masked(x):
    return x[MASK] * 2 + x[MASK].size


def plus_sum(x):
    return x + OFFSETS.sum()  # a read of OFFSETS is an input: the sum is traced (session 47)


def test_small_arrays_a_selection_and_a_sum_read_follow_changes():
    f, g = jc.jit(masked), jc.jit(plus_sum)
    x = np.arange(4.0)
    np.testing.assert_array_equal(f(x), masked(x))
    np.testing.assert_array_equal(g(x), plus_sum(x))
    MASK[:] = [False, True, False, False]  # a new count: a new shape
    OFFSETS[:] = [1.0, 2.0, 4.0]
    np.testing.assert_array_equal(f(x), masked(x))
    np.testing.assert_array_equal(g(x), plus_sum(x))
    # MASK and OFFSETS are inputs where they are read (session 47): the selection's size is its
    # count at run time, the sum computed at each call, neither compiles again
    assert f.cache_info().compiles == 1
    assert g.cache_info().compiles == 1


def test_an_unaligned_global_is_passed_as_a_copy_and_written_back():
    global W
    raw = np.zeros(8 * 8 + 1, np.uint8)
    W = raw[1:].view(np.float64)[::2]  # unaligned and strided: the code cannot address it
    assert not W.flags.aligned and not W.flags.c_contiguous
    W[:] = [1, 2, 3, 4]
    f, g = jc.jit(add_w), jc.jit(write_w)
    np.testing.assert_array_equal(f(np.ones(4)), np.ones(4) + W)
    W[:] = 7
    np.testing.assert_array_equal(f(np.ones(4)), np.full(4, 8.0))
    g(np.array([10.0, 20.0, 0.0, 0.0]))
    np.testing.assert_array_equal(W, [7, 10, 27, 7])


def test_an_array_a_nested_function_closes_over_while_tracing_stays_a_constant():
    def f(x):
        table = np.zeros(3)

        def helper(y):
            return y + table

        out = helper(x)
        table[0] = 5  # after helper ran: NumPy's result does not see it
        return out

    jitted = jc.jit(f)
    for _ in range(2):
        np.testing.assert_array_equal(jitted(np.ones(3)), f(np.ones(3)))


def test_a_global_of_an_inlined_jitted_callee_is_read_at_call_time():
    inner = jc.jit(add_w)
    outer = jc.jit(lambda x: inner(x) * 2)
    x = np.ones(4)
    np.testing.assert_array_equal(outer(x), (x + W) * 2)
    W[:] = 10
    np.testing.assert_array_equal(outer(x), np.full(4, 22.0))
    assert outer.cache_info().compiles == 1


exp = np.full(3, 7.0)  # a global array named like the attribute `np.exp` below


def test_an_attribute_named_like_a_global_array_does_not_make_it_an_input():
    def f(x):
        return np.exp(x) + 1  # `exp` here is an attribute of np, not the global

    jitted = jc.jit(f)
    x = np.linspace(-1, 1, 3)
    np.testing.assert_allclose(jitted(x), f(x), rtol=1e-15)
    assert type(next(iter(jitted._cache.values()))).__name__ == "Executable"  # no hidden inputs


def test_a_global_array_read_in_a_comprehension_is_still_an_input():
    def f(x):
        return sum([x * w for w in exp])

    jitted = jc.jit(f)
    x = np.arange(3.0)
    np.testing.assert_array_equal(jitted(x), f(x))
    exp[0] = -1.0
    try:
        np.testing.assert_array_equal(jitted(x), f(x))
    finally:
        exp[0] = 7.0


RNG = np.random.default_rng(1)
LEGACY = np.random.RandomState(1)


def _noisy(x):
    return x + RNG.normal(size=x.shape) + LEGACY.uniform(size=x.shape)


def test_a_generator_global_bound_anew_is_the_one_drawn_from():
    global RNG, LEGACY
    f, x = jc.jit(_noisy), np.zeros(3)
    for seed in (1, 7, 1):
        RNG, LEGACY = np.random.default_rng(seed), np.random.RandomState(seed)
        got = [f(x) for _ in range(6)]  # (later calls take the native entry, which checks too)
        RNG, LEGACY = np.random.default_rng(seed), np.random.RandomState(seed)
        for g in got:
            np.testing.assert_array_equal(g, _noisy(x))
