"""Session 46's messages and small gaps, each against plain Python + NumPy: math.gcd/lcm of
traced ints, int() of a large uint64, the *args advice, a traced conditional expression's
untaken arm, a branch that makes an int of a float, draws in loops that break, list and
draw wording, and np.roots with a leading zero."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError


def _raises(fn, *args, match: str):
    with pytest.raises(JitcoreError, match=match) as info:
        jc.jit(fn)(*args)
    return info.value


# -- int() of a uint64 at or past 2**63 ------------------------------------------------------
def _int_first(x):
    return int(x[0])


def _int_sum(x):
    return int(x.sum())


def test_int_of_large_uint64_names_the_uint64():
    big = np.array([2**63 + 5], dtype=np.uint64)
    assert _int_first(big) == 2**63 + 5  # Python: exact; compiled code has int64 only
    error = _raises(_int_first, big, match=r"int\(\) of a uint64 at or past 2\*\*63")
    assert isinstance(error, OverflowError)
    assert "float" not in str(error).split(".")[0]
    _raises(_int_sum, np.array([2**62, 2**62], dtype=np.uint64), match="uint64")


def test_int_of_small_uint64_is_python_int():
    small = np.array([5, 2**63 - 1], dtype=np.uint64)
    for fn in (_int_first,):
        got = jc.jit(fn)(small)
        assert got == fn(small) and type(got) is int


# -- *args: the advice names static_argnums, which jit accepts ------------------------------
def _zeros_star(*a):
    return np.zeros(a[0])


def _scaled_star(x, *a):
    return np.arange(a[1]) * x


@pytest.mark.parametrize("fn, args, nums", [(_zeros_star, (3,), (0,)), (_scaled_star, (2.0, 1, 4), (2,))])
def test_star_args_advice_works(fn, args, nums):
    error = _raises(fn, *args, match=r"static_argnums=\(" + str(nums[0]) + r",\)")
    assert "static_argnames" not in str(error)
    got = jc.jit(fn, static_argnums=nums)(*args)  # the advice, followed
    want = fn(*args)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


# -- a traced 'x if test else y': both sides are traced ---------------------------------------
def _prior_max_expression(r, use_prior):
    prior = r[:0]
    return prior.max() if use_prior > 0 else r.max()


def _prior_max_statement(r, use_prior):
    prior = r[:0]
    if use_prior > 0:
        return prior.max()
    return r.max()


def test_conditional_expression_untaken_side_says_both_sides_are_traced():
    r = np.array([1.0, 2.0])
    assert _prior_max_expression(r, -1.0) == 2.0  # NumPy never evaluates prior.max()
    error = _raises(_prior_max_expression, r, -1.0, match="both sides of 'x if test else y'")
    assert "if statement" in str(error)
    assert "(NumPy raises the same)" not in str(error)
    got, want = jc.jit(_prior_max_statement)(r, -1.0), _prior_max_statement(r, -1.0)  # the advice
    assert got == want and type(got) is type(want)


def test_conditional_expression_concrete_test_keeps_numpy_message():
    def f(r):
        prior = r[:0]
        return prior.max() if True else r.max()

    error = _raises(f, np.array([1.0]), match="NumPy raises the same")
    assert "both sides" not in str(error)


# -- a variable one branch sets to an int and the other to a float ---------------------------
def _best_sum(x, t):
    best = np.inf
    s = x.sum()
    if s > t:
        best = s
    return best


def _best_sum_fixed(x, t):
    best = np.inf
    s = x.sum()
    if s > t:
        best = float(s)
    return best


def test_branch_int_against_float_compiles_as_the_data_chooses():
    """An np.int64 on one path and a Python float on the other (session 56: held in a float64
    with a tag, refused past 2**53; before, refused with the float(v) advice, still followed)."""
    x = np.arange(4)
    for fn in (_best_sum, _best_sum_fixed):
        for t in (1.0, 100.0):
            got, want = jc.jit(fn)(x, t), fn(x, t)
            assert got == want and type(got) is type(want)


def test_branch_int_against_float_arrays_says_astype():
    def f(x, t):
        y = np.zeros(3)
        if x.sum() > t:
            y = x
        return y

    _raises(f, np.arange(3), 1.0, match=r"v.astype\(np.float64\)")


# -- a list whose items became of two kinds (a Python float, a NumPy float64) -----------------
def _two_servers(arr, svc, as_float):
    n = arr.size
    free_at = [0.0, 0.0]
    waits = np.zeros(n)
    t = 0.0
    i = 0
    while i < n:
        t += arr[i]
        k = 0 if free_at[0] <= free_at[1] else 1
        start = max(t, free_at[k])
        waits[i] = start - t
        free_at[k] = float(start + svc[i]) if as_float else start + svc[i]
        i += 1
    return waits.mean()


def test_list_of_float_and_float64_names_both_kinds():
    arr, svc = np.array([1.0, 0.5, 0.2, 2.0]), np.array([1.5, 1.0, 2.0, 0.1])
    error = _raises(_two_servers, arr, svc, False,
                    match=r"a list of mixed types \(Python float and numpy.float64\)")
    assert r"float(v)" in str(error)
    got, want = jc.jit(_two_servers, static_argnums=2)(arr, svc, True), _two_servers(arr, svc, True)
    assert got == want and type(got) is type(want)  # the advice, followed


# -- a shape from a random draw: the message names the draw, not "the argument(s)" ------------
def _draw_slice(rng, x):
    j = rng.integers(0, 3)
    return x[:j].sum()


def test_a_slice_at_a_drawn_position_is_numpys():
    # (refused before session 47, naming the draw; x[:j] at a traced j is now a counted prefix)
    for seed in range(4):
        rng, ref = np.random.default_rng(seed), np.random.default_rng(seed)
        assert jc.jit(_draw_slice)(rng, np.arange(5.0)) == _draw_slice(ref, np.arange(5.0))
        assert rng.random() == ref.random()


# -- a draw in a loop whose trip count the data decides: NumPy's numbers (random_params_47: the
# draws are made by NumPy's sampler as the code runs; they were refused, naming the cause) -----
def _draw_until(rng, n):
    s = 0.0
    for _ in range(n):
        s += rng.normal()
        if s > 2:
            break
    return s


def _draw_returns(rng, n):
    s = 0.0
    for i in range(n):
        s += rng.normal()
        if s > 2:
            return float(i)
    return s


def _draw_while(rng, n):
    s = 0.0
    i = 0
    while s < 2 and i < n:
        s += rng.normal()
        i += 1
    return s


@pytest.mark.parametrize("fn, cause", [(_draw_until, "a for loop that can break or return"),
                                       (_draw_returns, "a for loop that can break or return"),
                                       (_draw_while, "a while loop")])
def test_draw_in_loop_with_break_return_or_while_is_numpys(fn, cause):
    for seed in (0, 1, 2):
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        assert jc.jit(fn)(r1, 50) == fn(r2, 50)
        assert r1.random() == r2.random()


def test_draw_in_static_loop_still_compiles():
    def f(rng, n):
        s = 0.0
        for _ in range(n):
            s += rng.normal()
        return s

    got, want = jc.jit(f)(np.random.default_rng(0), 5), f(np.random.default_rng(0), 5)
    assert got == pytest.approx(want) and type(got) is type(want)


# -- np.roots with a leading zero: NumPy returns fewer roots ---------------------------------
def _roots(c):
    return np.roots(c)


@pytest.mark.parametrize("c", [[0.0, 1.0, -3.0, 2.0], [0.0, 0.0, 1.0], [0, 2, -4]])
def test_roots_leading_zero_raises_jitcore_error(c):
    c = np.array(c)
    assert len(np.roots(c)) < len(c) - 1  # NumPy strips the zeros
    error = _raises(_roots, c, match=r"numpy.roots of coefficients whose first is zero")
    assert isinstance(error, ValueError) and "np.trim_zeros" in str(error)


def test_roots_after_stripping_as_advised():
    c = np.array([1.0, -3.0, 2.0])  # np.trim_zeros([0, 1, -3, 2], 'f')
    got, want = jc.jit(_roots)(c), np.roots(c)
    np.testing.assert_allclose(np.sort(got), np.sort(want))


# -- math.gcd / math.lcm of traced ints: Python's values, a Python int ------------------------
def _gcd2(x):
    return math.gcd(int(x[0]), int(x[1]))


def _gcd3(x):
    return math.gcd(int(x[0]), 4, int(x[1]), int(x[2]))


def _lcm3(x):
    return math.lcm(int(x[0]), int(x[1]), 6)


def _one(x):
    return math.gcd(int(x[0])), math.lcm(int(x[1]))


def _none(x):
    return math.gcd() + int(x[0]), math.lcm()


_SMALL = st.lists(st.integers(-10**6, 10**6), min_size=3, max_size=3)


@settings(max_examples=25, deadline=None)
@given(_SMALL)
def test_gcd_lcm_match_python(values):
    x = np.array(values, dtype=np.int64)
    for fn in (_gcd2, _gcd3, _lcm3, _one, _none):
        got, want = jc.jit(fn)(x), fn(x)
        assert got == want, fn.__name__
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        assert all(type(g) is type(w) is int for g, w in pairs)


def test_lcm_past_int64_raises_overflow():
    x = np.array([2**40 + 1, 2**40 - 1, 1])
    assert _lcm3(x) > 2**63  # Python's exact int
    _raises(_lcm3, x, match="past int64's range")


def test_gcd_of_float_is_type_error():
    def f(x):
        return math.gcd(x[0], 4)

    with pytest.raises(TypeError):
        f(np.array([2.0]))
    _raises(f, np.array([2.0]), match=r"math.gcd\(\) takes Python ints")
