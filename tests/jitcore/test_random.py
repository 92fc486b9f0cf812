"""np.random inside a jitted function draws fresh numbers on every call (issue 12, item 3):
exactly NumPy's numbers at that point of the program, advancing the same generator state.

The oracle: the same function run by NumPy from the same seed."""

import re
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import UnsupportedError
from tests.budget import examples

RNG = np.random.default_rng(0)


def legacy_mix(x):
    a = np.random.rand(3)
    b = np.random.randn(2, 3)
    c = np.random.randint(0, 10, size=3)
    d = np.random.random()
    e = np.random.choice(5, 3)
    f = np.random.normal(size=3) + np.random.exponential(2.0, size=3) + np.random.poisson(3.0, size=3)
    return x + a + b.sum(0) + c + d + e + f


def generator_mix(x):
    return (x + RNG.random(3) + RNG.integers(0, 100, size=3) + RNG.standard_normal(3)
            + RNG.uniform(1.0, 2.0, size=3) + RNG.choice(10, 3))


def traced_parameters(x, loc):
    return np.random.normal(loc, 2.0) + np.random.uniform(x, 4.0) + RNG.normal(x, loc, size=(2, 3))


def compare_runs(fun, args, seed_legacy, calls=3):
    """``fun`` jitted and plain, each from the same seeds, called ``calls`` times: equal."""
    global RNG
    np.random.seed(seed_legacy)
    RNG = np.random.default_rng(seed_legacy)
    jitted = jc.jit(fun)
    got = [jitted(*args) for _ in range(calls)]
    after = np.random.rand(), RNG.random()
    np.random.seed(seed_legacy)
    RNG = np.random.default_rng(seed_legacy)
    expected = [fun(*args) for _ in range(calls)]
    assert (np.random.rand(), RNG.random()) == after  # the state advanced as NumPy's
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert not np.array_equal(got[0], got[1])  # fresh numbers on each call
    return jitted


def test_legacy_draws_are_numpys_on_every_call():
    compare_runs(legacy_mix, (np.zeros(3),), 0)


def test_generator_draws_are_numpys_on_every_call():
    compare_runs(generator_mix, (np.zeros(3),), 1)


def test_traced_loc_scale_and_bounds_are_arithmetic_on_a_standard_draw():
    jitted = compare_runs(traced_parameters, (np.arange(3.0), np.float64(0.5)), 2)
    assert jitted.cache_info().compiles == 1


def test_a_python_float_draw_promotes_weakly():
    f = jc.jit(lambda x: x * np.random.rand())
    np.random.seed(3)
    out = f(np.ones(3, np.float32))
    np.random.seed(3)
    expected = np.ones(3, np.float32) * np.random.rand()
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(out, expected)


def test_seed_inside_the_function_reseeds_on_every_call():
    def f(x):
        np.random.seed(7)
        return x + np.random.rand(3)

    jitted = jc.jit(f)
    np.testing.assert_array_equal(jitted(np.zeros(3)), f(np.zeros(3)))
    np.random.rand(5)
    np.testing.assert_array_equal(jitted(np.zeros(3)), f(np.zeros(3)))
    assert np.random.rand() == (np.random.seed(7), np.random.rand(3), np.random.rand())[2]


def test_a_seeded_generator_made_inside_gives_the_same_numbers_each_call():
    def f(x):
        return x + np.random.default_rng(5).normal(size=3)

    jitted = jc.jit(f)
    np.testing.assert_array_equal(jitted(np.zeros(3)), f(np.zeros(3)))
    np.testing.assert_array_equal(jitted(np.zeros(3)), f(np.zeros(3)))


def test_draws_in_an_unrolled_loop_are_each_their_own():
    def f(x):
        for _ in range(3):
            x = x + np.random.rand(2)
        return x

    jitted = jc.jit(f)
    np.random.seed(4)
    got = [jitted(np.zeros(2)) for _ in range(2)]
    np.random.seed(4)
    expected = [f(np.zeros(2)) for _ in range(2)]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("body, message", [
    (lambda x: x + np.random.default_rng().random(3), "without a seed"),
    (lambda x: np.random.shuffle([x[0], x[1]]) or x, "shuffle"),
    (lambda x: x + RNG.normal(0.0, 1.0, size=x.shape[0] + x[0].astype(int)), "size the data chooses"),
    (lambda x: x + len(RNG.bytes(3)), "bytes"),
    (lambda x: x + RNG.standard_normal(out=np.zeros(3)), "out="),
])
def test_unsupported_draws_name_the_function(body, message):
    def user_function(x):
        return body(x)

    with pytest.raises(UnsupportedError, match=message) as e:
        jc.jit(user_function)(np.zeros(3))
    assert "user_function()" in str(e.value)


def test_a_draw_jitcore_could_not_see_is_refused():
    def f(x):
        return x + np.random.rand(3)

    with pytest.raises(UnsupportedError, match=r"f\(\).*did not see"):
        jc.jit(f, autograph=False)(np.zeros(3))


def _draws_n_times(x, n):
    for _ in range(n):
        x = x + np.random.rand(3)
    return x


def test_a_draw_in_a_loop_with_a_traced_trip_count_is_numpys(without_auto_static):
    # (was refused: each step's draw is made by NumPy's sampler as the code runs, random_params_47)
    for n in (4, 0, 7):
        np.random.seed(7)
        want, after = _draws_n_times(np.zeros(3), n), np.random.rand()
        np.random.seed(7)
        np.testing.assert_array_equal(jc.jit(_draws_n_times)(np.zeros(3), n), want)
        assert np.random.rand() == after


def test_a_draw_in_a_loop_over_an_argument_makes_the_argument_static():
    f = jc.jit(_draws_n_times)
    for n in (4, 2, 4):
        np.random.seed(7)
        want = _draws_n_times(np.zeros(3), n)
        np.random.seed(7)
        np.testing.assert_array_equal(f(np.zeros(3), n), want)


def _seeded_inside(x, n):
    r = np.random.default_rng(0)
    first = r.random()
    for i in range(n):
        x[i] = r.random() + r.normal()
    acc = np.zeros(2)
    for _ in range(50):  # a loop that compiles: its steps draw their own numbers
        acc = acc * 0.5 + r.random(2)
    return x, first, acc, r.integers(0, 100)


def test_a_generator_seeded_inside_draws_anew_at_each_step_of_a_compiled_loop():
    """A generator made with a seed in the function gives NumPy's numbers at every step of a
    loop, the same on every call, and goes on after the loop where NumPy's does."""
    f = jc.jit(_seeded_inside)
    for n in (5, 5, 3, 5):
        want, got = _seeded_inside(np.zeros(5), n), f(np.zeros(5), n)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)


def test_a_generator_seeded_inside_and_drawn_in_a_traced_branch_is_refused():
    def f(x):
        r = np.random.default_rng(0)
        y = x + r.random() if x.sum() > 0 else x - r.random()
        return y

    with pytest.raises(UnsupportedError, match="loop body or branch"):
        jc.jit(f)(np.ones(2))


def test_a_generator_seeded_inside_a_loop_body_gives_each_step_the_same_numbers():
    def f(x):
        for i in range(40):
            x[i] = np.random.default_rng(3).random()
        return x

    np.testing.assert_array_equal(jc.jit(f)(np.zeros(40)), f(np.zeros(40)))


def test_a_draw_in_a_branch_in_a_loop_is_numpys():
    # (was refused: it is made by NumPy's sampler as the compiled code runs, random_params_47)
    def f(x):
        for _ in range(500):
            if x.sum() > 0:
                x = x - np.random.rand(3)
            x = x + 1
        return x

    np.random.seed(8)
    got = jc.jit(f)(np.zeros(3))
    after = np.random.rand()
    np.random.seed(8)
    np.testing.assert_array_equal(got, f(np.zeros(3)))
    assert np.random.rand() == after


def random_walk(x):
    total = 0
    for i in range(3, 1500, 2):  # static, and too long to unroll: a compiled loop
        x = 0.5 * x + np.random.normal(x, 1.0) + RNG.integers(0, 3, size=3) * i
        total = total + np.random.rand()
    return x + total


def test_draws_in_a_compiled_loop_with_a_static_trip_count_are_made_for_every_step():
    jitted = compare_runs(random_walk, (np.zeros(3),), 5)
    assert "scf.for" in jitted.lower(np.zeros(3)).as_text("traced")


def test_draws_in_a_fori_loop_body_traced_twice_are_made_once_per_step():
    def f(x):  # the int carry becomes a float: the body is traced a second time
        return x + jc.fori_loop(0, 300, lambda i, acc: acc + np.random.rand(), 0)

    compare_runs(f, (np.zeros(1),), 6)


def test_two_threads_never_get_the_same_draws():
    f = jc.jit(lambda x: x + np.random.rand(4))
    f(np.zeros(4))
    np.random.seed(11)
    results = [[], []]

    def worker(k):
        for _ in range(50):
            results[k].append(f(np.zeros(4)))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = np.sort(np.concatenate([np.concatenate(r) for r in results]))
    np.random.seed(11)
    expected = np.sort(np.random.rand(100 * 4))
    np.testing.assert_array_equal(got, expected)  # each draw once: none repeated, none lost


@settings(max_examples=examples(10), deadline=None)
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), seed=st.integers(0, 2**31))
def test_hypothesis_draws_of_any_shape_match_numpy(shape, seed):
    def f(x):
        return x + np.random.standard_normal(shape) * RNG.random(shape)

    global RNG
    np.random.seed(seed)
    RNG = np.random.default_rng(seed)
    jitted = jc.jit(f)
    got = [jitted(np.float64(1.0)) for _ in range(2)]
    np.random.seed(seed)
    RNG = np.random.default_rng(seed)
    expected = [f(np.float64(1.0)) for _ in range(2)]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def _traced_parameters(step, lo, n):
    rng = np.random.default_rng(11)
    a = rng.normal(0.0, step, 3)
    b = rng.random(3)
    c = rng.uniform(lo, 1.0, 2)
    return a, b, c, rng.normal(step), rng.normal(0.0, 1.0, n), rng.uniform(0, lo, size=n), rng.random()


def test_a_seeded_generators_draws_with_traced_parameters_keep_numpys_order():
    # Found by a new-user program (session 42, Metropolis): normal(0, step) of a generator
    # seeded inside was drawn at call time, after the draws that follow it; a size from an
    # int argument was refused for normal() and uniform() where random(n) made it static.
    f = jc.jit(_traced_parameters)
    for args in [(0.5, 0.2, 3), (0.5, 0.2, 3), (0.7, 0.1, 2)]:
        want, got = _traced_parameters(*args), f(*args)
        for w, g in zip(want, got):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w)


def _weighted_picks(w, n, rng):
    p = w / w.sum()
    return rng.choice(len(w), size=n, p=p), rng.choice(len(w), p=p), rng.choice(w * 10, size=2, p=p)


@pytest.mark.parametrize("make", [lambda: np.random.default_rng(5), lambda: np.random.RandomState(5)])
def test_choice_with_traced_probabilities_draws_numpys_choices(make):
    """``rng.choice(n, p=w / w.sum())`` was refused (traced parameters): now a uniform draw per
    choice placed in p's normalised cumulative sum, as NumPy draws it: the same choices."""
    a, b = make(), make()
    f = jc.jit(_weighted_picks)
    for w in (np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.0, 4.0]), np.array([1.0, 2.0, 3.0])):
        want, got = _weighted_picks(w, 7, a), f(w, 7, b)
        for g, v in zip(got, want):
            np.testing.assert_array_equal(g, v)
            assert type(g) is type(v)


def _bounded(rng, lo, hi, s, w):
    return rng.uniform(lo, hi, 3), rng.normal(0.0, s, 2), rng.choice(w.size, 4, p=w)


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
@pytest.mark.parametrize("lo, hi, s, w", [
    (0.0, 2.0, 1.0, [0.2, 0.3, 0.5]),  # fine: the same numbers
    (1.0, 0.0, 1.0, [0.2, 0.3, 0.5]),  # high < low: Generator's ValueError (RandomState draws)
    (0.0, np.inf, 1.0, [0.2, 0.3, 0.5]),  # OverflowError
    (0.0, 1.0, -1.0, [0.2, 0.3, 0.5]),  # scale < 0
    (0.0, 1.0, 1.0, [1.0, 2.0, 3.0]),  # p not summing to 1
    (0.0, 1.0, 1.0, [-0.5, 1.0, 0.5]),  # p negative
    (0.0, 1.0, 1.0, [np.nan, 1.0, 0.0]),  # p NaN
])
def test_traced_parameters_are_checked_as_numpys_sampler_checks_them(make, lo, hi, s, w):
    w = np.array(w)
    try:
        want = _bounded(make(0), lo, hi, s, w)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e), match=re.escape(str(e))):
            jc.jit(_bounded)(make(0), lo, hi, s, w)
        return
    for got, expected in zip(jc.jit(_bounded)(make(0), lo, hi, s, w), want):
        np.testing.assert_array_equal(got, expected)


def _exponential_waits(rates, rng, n):
    """Waiting times at rates computed in the function (NumPy: scale * standard_exponential)."""
    scale = 1.0 / rates
    total = 0.0
    for i in range(n):
        total += rng.exponential(scale[i % scale.size])
    return rng.exponential(scale), rng.exponential(2.0 * scale.mean(), size=3), total


@pytest.mark.parametrize("make", [lambda: np.random.default_rng(3), lambda: np.random.RandomState(3)])
def test_exponential_with_traced_scale_draws_numpys_numbers(make):
    a, b = make(), make()
    f = jc.jit(_exponential_waits, static_argnums=2)
    for rates in (np.array([1.0, 2.0, 0.5]), np.array([4.0, 0.25]), np.array([1.0, 2.0, 0.5])):
        want, got = _exponential_waits(rates, a, 70), f(rates, b, 70)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert type(g) is type(w)


@pytest.mark.parametrize("make", [np.random.default_rng, np.random.RandomState])
def test_exponential_negative_traced_scale_raises_numpys_error(make):
    f = jc.jit(lambda rng, s: rng.exponential(s * 2.0))
    with pytest.raises(ValueError, match="scale < 0"):
        f(make(0), -1.0)
