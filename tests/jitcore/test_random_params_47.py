"""Draws whose parameters are computed in the function (gamma, poisson, binomial, beta, ...):
made by NumPy's own sampler as the compiled code runs (``jitcore/random.py``,
``_draw_running``), so the numbers, the result's type, the generator's state after the call
and the errors are NumPy's. Each test compares with plain Python + NumPy from the same seed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.oracle import assert_same_tree

STEPS = 300  # a loop this long is compiled, not unrolled




def _check(fn, seed, *args, kind=np.random.default_rng):
    """``jit(fn)(rng, *args)`` equals ``fn(rng, *args)`` from the same seed, and both
    generators are left in the same state (the next draw outside matches)."""
    r1, r2 = kind(seed), kind(seed)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(r2, *copies)
    got = jc.jit(fn)(r1, *args)
    assert_same_tree(got, want)
    for a, c in zip(args, copies):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, c)  # arguments untouched
    assert r1.random() == r2.random()
    return got


# -- one draw of each distribution, its parameter computed in the function ------------------
DRAWS = {
    "gamma": lambda r, x: r.gamma(x.sum(), 1.0 / (1.0 + x[0])),
    "gamma_arrays": lambda r, x: r.gamma(x + 0.1, 2.0),
    "gamma_size": lambda r, x: r.gamma(x[0] + 1.0, x[1] + 0.5, size=(4, 3)),
    "standard_gamma": lambda r, x: r.standard_gamma(x * 3),
    "poisson": lambda r, x: r.poisson(x.sum() * 4),
    "poisson_large": lambda r, x: r.poisson(x * 40),  # lam >= 10: NumPy's PTRS
    "binomial": lambda r, x: r.binomial((x * 20).astype(np.int64), x.mean() / x.max()),
    "binomial_scalar": lambda r, x: r.binomial(int(x.size) * 7, x[0] / (x[0] + 1)),
    "beta": lambda r, x: r.beta(x + 0.2, x[::-1] + 0.3),
    "lognormal": lambda r, x: r.lognormal(x.mean(), x[0] + 0.1, size=5),
    "chisquare": lambda r, x: r.chisquare(x + 1.0),
    "standard_t": lambda r, x: r.standard_t(x[0] + 2.0, size=3),
    "geometric": lambda r, x: r.geometric(x / (x.sum() + 1.0)),
    "negative_binomial": lambda r, x: r.negative_binomial(x[0] + 1.0, 0.4),
    "integers": lambda r, x: r.integers(0, (x * 10).astype(np.int64) + 1),
    "integers_scalar": lambda r, x: r.integers(int(x.size), (x.size + 9) * 2),
    "choice_k": lambda r, x: r.choice(x.size + 3, size=6),
    "multinomial": lambda r, x: r.multinomial(20, x / x.sum()),
    "dirichlet": lambda r, x: r.dirichlet(x + 0.5),
    "dirichlet_size": lambda r, x: r.dirichlet(x + 0.5, 4),
    "weibull": lambda r, x: r.weibull(x + 0.5),
    "vonmises": lambda r, x: r.vonmises(x[0], x[1] + 0.1),
    "exponential_static_after": lambda r, x: (r.poisson(x[0] + 1), r.normal(), r.exponential()),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
@pytest.mark.parametrize("seed", [0, 12345])
def test_a_draw_with_parameters_computed_in_the_function_is_numpys(name, seed):
    draw = DRAWS[name]

    def f(rng, x):
        return draw(rng, x)

    _check(f, seed, np.array([0.3, 1.7, 2.2, 0.9]))


@pytest.mark.parametrize("kind", [np.random.default_rng, np.random.RandomState])
def test_a_random_state_and_a_generator_both_draw_numpys_numbers(kind):
    def f(rng, x):
        return rng.gamma(x, 2.0), rng.poisson(x[0] * 3), rng.binomial(9, x / 3)

    _check(f, 3, np.array([0.5, 1.0, 2.5]), kind=kind)


def test_the_global_random_state_draws_numpys_numbers():
    def f(x):
        return np.random.poisson(x * 3) + np.random.gamma(x.sum())

    np.random.seed(11)
    want, after = f(np.ones(3)), np.random.rand()
    np.random.seed(11)
    np.testing.assert_array_equal(jc.jit(f)(np.ones(3)), want)
    assert np.random.rand() == after


# -- in compiled loops: a Gibbs sampler, a chain binomial, tau-leaping -----------------------
def gibbs(rng, y, a, b):
    """Normal model with unknown mean and precision: the textbook conjugate Gibbs sampler."""
    n, total = y.shape[0], y.sum()
    mu, tau = 0.0, 1.0
    out = np.zeros((STEPS, 2))
    for i in range(STEPS):
        mu = rng.normal(tau * total / (1.0 + n * tau), 1.0 / np.sqrt(1.0 + n * tau))
        tau = rng.gamma(a + n / 2, 1.0 / (b + 0.5 * ((y - mu) ** 2).sum()))
        out[i, 0], out[i, 1] = mu, tau
    return out


def reed_frost(rng, s0, i0, p):
    s, i = s0, i0
    history = np.zeros(STEPS, dtype=np.int64)
    for t in range(STEPS):
        new = rng.binomial(s, 1.0 - (1.0 - p) ** i)
        s, i = s - new, new + (rng.poisson(0.1) if t % 50 == 0 else 0)
        history[t] = s
    return history


def tau_leap(rng, x0, rates, dt):
    x = x0.copy()
    for _ in range(STEPS):
        fired = rng.poisson(rates * x * dt)
        x = np.maximum(x + fired - rng.poisson(0.5 * x * dt), 0)
    return x


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gibbs_sampler_normal_before_gamma_in_a_compiled_loop(seed):
    y = np.random.default_rng(seed + 100).normal(1.5, 0.7, size=30)
    _check(gibbs, seed, y, 2.0, 1.0)


@pytest.mark.parametrize("seed", [0, 7])
def test_chain_binomial_and_tau_leaping_in_compiled_loops(seed):
    _check(reed_frost, seed, 1000, 3, 0.002)
    _check(tau_leap, seed, np.array([50, 80, 20]), np.array([0.1, 0.05, 0.2]), 0.1)


def test_a_draw_before_the_loop_and_after_it_keep_numpys_order():
    def f(rng, x):
        first = rng.normal(size=2)  # drawn before the call
        acc = 0.0
        for i in range(STEPS):
            acc += rng.random()  # pre-drawn in the first trace; live once gamma is seen
            acc += rng.gamma(x[i % 3] + acc * 0.0 + 1.0)
        return first, acc, rng.normal(size=3)

    _check(f, 4, np.array([0.5, 1.0, 2.0]))


def test_draws_in_a_branch_and_a_while_loop():
    def f(rng, x):
        s, n = 0.0, 0
        while s < x[0] and n < 10_000:
            s += rng.exponential(1.0 / x[1])
            n += 1
        if s > 5:
            s += rng.standard_gamma(s)
        return s, n

    for seed in range(4):
        _check(f, seed, np.array([6.0, 2.0]))


# -- NumPy's errors for bad parameters, from the same sampler ------------------------------------
@pytest.mark.parametrize("draw, message", [
    (lambda r, x: r.gamma(x - 5.0), "shape < 0"),
    (lambda r, x: r.poisson(-x), "lam < 0"),
    (lambda r, x: r.binomial(10, x + 1.0), "p > 1"),
    (lambda r, x: r.beta(x - 5.0, 1.0), "a <= 0"),
    (lambda r, x: r.integers(0, (x - 5.0).astype(np.int64)), "high <= 0"),
    (lambda r, x: r.dirichlet(x - 5.0), "alpha < 0"),
])
def test_bad_parameters_raise_numpys_error(draw, message):
    def f(rng, x):
        return draw(rng, x)

    with pytest.raises(ValueError, match=message) as want:
        f(np.random.default_rng(0), np.ones(3))
    with pytest.raises(ValueError) as got:
        jc.jit(f)(np.random.default_rng(0), np.ones(3))
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def test_a_size_computed_in_the_function_is_refused_with_advice(without_auto_static):
    def f(rng, x, n):
        return rng.gamma(x[0], size=n)

    # the same advice as every sampler's size= gives (round 52: rng.beta's was another)
    with pytest.raises(jc.errors.UnsupportedError, match="traced size: .* static_argnames"):
        jc.jit(f)(np.random.default_rng(0), np.ones(3), 4)


def test_a_seed_after_a_running_draw_is_refused():
    def f(x):
        y = np.random.poisson(x)
        np.random.seed(3)
        return y

    with pytest.raises(jc.errors.UnsupportedError, match="Seed before the first such draw"):
        jc.jit(f)(np.ones(2))


# -- many seeds and parameters ---------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       shape=st.floats(0.05, 50.0), lam=st.floats(0.0, 200.0), p=st.floats(0.0, 1.0),
       n=st.integers(0, 500))
def test_streams_match_numpy_for_many_seeds_and_parameters(seed, shape, lam, p, n):
    def f(rng, params, n):
        k, lam, p = params[0], params[1], params[2]
        return (rng.gamma(k, 2.0), rng.poisson(lam, size=3), rng.binomial(n * 1, p),
                rng.beta(k, k + 1.0), rng.standard_gamma(np.full(2, k)))

    _check(f, seed, np.array([shape, lam, p]), n)


# -- a compiled loop's draws made in one call per generator (LoopDraws._batched) ----------------
def _many_sites(rng, other, x):
    acc = x.copy()
    for _i in range(STEPS):
        acc = acc * 0.5 + rng.normal() + rng.normal(size=2)  # one batch of 3 per step
        acc = acc + other.random() * other.random(2)  # another generator: its own batch
    return acc, rng.normal(), other.random()


def _mixed_sites(rng, other, x):
    acc = x.copy()
    for _i in range(STEPS):
        acc = acc + rng.normal() + rng.random()  # two samplers: drawn step by step
        acc = acc + rng.normal(2.0, 3.0, size=3)[:2]
        acc = acc + other.integers(0, 7)  # integers keeps a buffer of bits: step by step
        acc = acc + other.standard_normal(2, dtype=np.float32)
    return acc


@pytest.mark.parametrize("fn", [_many_sites, _mixed_sites])
@pytest.mark.parametrize("kind", [np.random.default_rng, np.random.RandomState])
def test_loop_draws_keep_numpys_order_per_generator(fn, kind):
    if kind is np.random.RandomState and fn is _mixed_sites:
        pytest.skip("RandomState.standard_normal takes no dtype")
    for seed in (0, 5):
        r1, r2, o1, o2 = kind(seed), kind(seed), kind(seed + 1), kind(seed + 1)
        assert_same_tree(jc.jit(fn)(r1, o1, np.zeros(2)), fn(r2, o2, np.zeros(2)))
        assert r1.random() == r2.random() and o1.random() == o2.random()


def test_one_generator_passed_twice_draws_in_program_order():
    r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
    assert_same_tree(jc.jit(_many_sites)(r1, r1, np.zeros(2)), _many_sites(r2, r2, np.zeros(2)))
    assert r1.random() == r2.random()


def test_scalar_normal_in_a_long_loop_matches_numpy():
    def walk(rng, x):
        s = x
        for _i in range(20_000):
            s = s * 0.999 + rng.normal()
        return s

    _check(walk, 3, 0.0)


def test_parameters_of_every_kind_reach_numpys_sampler_as_they_are():
    # a Python number, a NumPy scalar, a 0-d array, an int32 array: NumPy's result types follow
    def f(rng, x, k):
        return (rng.poisson(k * 2.5), rng.poisson(x.sum()), rng.gamma(np.asarray(x[0] + 1.0)),
                rng.binomial(x.astype(np.int32) + 3, 0.5), rng.integers(k, k + 10, size=2),
                rng.poisson(np.asarray(x.sum())))

    for seed in (0, 1):
        _check(f, seed, np.array([1.0, 2.0, 3.5]), 3)


# -- samplers NumPy computes from several parameters, in nested loops and fori_loop -------------
MORE = {
    "multivariate_normal": lambda r, x: (r.multivariate_normal(x[:2], np.diag(x[2:4]) + 1.0),
                                         r.gamma(x[0])),
    "choice_p_after_live": lambda r, x: (r.gamma(x[0]), r.choice(3, size=4, p=x[:3] / x[:3].sum()),
                                         r.permutation(x)),
    "hypergeometric_triangular": lambda r, x: (
        r.hypergeometric(*(x[:3] * 10).astype(np.int64)), r.triangular(x[0], x[1], x[2] + 5, size=3)),
}


def _nested(rng, x):
    acc = 0
    for i in range(40):
        for j in range(30):
            acc += rng.poisson(x[j % 4] * i * 0.01)
    return acc, rng.standard_t(x[0])


def _fori(rng, x):
    return jc.fori_loop(0, STEPS, lambda i, c: c + rng.binomial(5, x[i % 4] / 4), 0), rng.random()


@pytest.mark.parametrize("fn", [*(lambda r, x, d=d: d(r, x) for d in MORE.values()), _nested, _fori])
def test_more_samplers_nested_loops_and_fori_loop(fn):
    for seed in (0, 4):
        _check(fn, seed, np.array([1.0, 2.0, 1.5, 4.0]))


# -- the CUDA backend: the draw is made on the host, its result copied to the device -----------
def test_draws_as_the_code_runs_on_the_emulated_device(monkeypatch):
    from tests.gpu_emulator import emulate

    emulate(monkeypatch)

    def f(rng, x):
        s = 0.0
        for i in range(40):
            s += rng.poisson(x[i % 3] * 2.0) * 0.5
        return s, rng.gamma(x + 1.0), rng.normal()

    r1, r2 = np.random.default_rng(2), np.random.default_rng(2)
    x = np.array([0.5, 1.5, 3.0])
    got = jc.jit(f, backend="cuda")(r1, x)
    want = f(r2, x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)
    assert r1.random() == r2.random()


def test_a_seeded_generator_made_inside_refuses_computed_parameters_with_advice():
    def f(x):
        return np.random.default_rng(0).gamma(x.sum())

    with pytest.raises(jc.errors.UnsupportedError, match="Make the generator outside") as e:
        jc.jit(f)(np.ones(3))
    assert "Generator.gamma()" in str(e.value)


def test_choice_of_a_traced_count_and_permutation_of_one(without_auto_static):
    def f(rng, x, k):
        return rng.choice(k, size=3), rng.choice(k + 2), x

    _check(f, 6, np.ones(2), 5)

    def g(rng, k):
        return rng.permutation(k)

    with pytest.raises(jc.errors.UnsupportedError, match="static"):
        jc.jit(g)(np.random.default_rng(0), 4)


def test_one_generator_passed_at_two_places_keeps_numpys_order():
    def f(rng, other, x):
        out = rng.gamma(x.sum()), other.normal(), rng.normal()
        acc = 0.0
        for _ in range(STEPS):
            acc += other.random() + rng.poisson(x[0])
        return out, acc

    r1, r2 = np.random.default_rng(0), np.random.default_rng(0)
    assert_same_tree(jc.jit(f)(r1, r1, np.ones(3)), f(r2, r2, np.ones(3)))
    assert r1.random() == r2.random()
    _check(lambda r, x: f(r, np.random.default_rng(1), x), 0, np.ones(3))


def test_an_error_in_a_loops_step_leaves_the_generator_where_numpys_loop_stopped():
    def f(rng, x):
        s = 0
        for i in range(STEPS):
            s += rng.poisson(x[0] - i * 0.1)  # lam < 0 from step 31 on
        return s

    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    with pytest.raises(ValueError, match="lam < 0") as want:
        f(r2, np.array([3.0]))
    with pytest.raises(ValueError) as got:
        jc.jit(f)(r1, np.array([3.0]))
    assert str(got.value) == str(want.value)
    assert r1.random() == r2.random()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(1, 4), cols=st.integers(1, 4),
       scale=st.floats(0.1, 10.0), steps=st.sampled_from([3, 250]))
def test_broadcast_parameters_and_loops_match_numpy(seed, rows, cols, scale, steps):
    def f(rng, a, b):
        total = np.zeros((rows, cols))
        for _ in range(steps):  # 3: unrolled; 250: a compiled loop
            total = total + rng.gamma(a[:, None] + total[:, :1] * 0, b * scale)
        return total, rng.dirichlet(a + 1.0), rng.multinomial(int(steps), b / b.sum())

    a = np.linspace(0.5, 3.0, rows)
    b = np.linspace(1.0, 2.0, cols)
    _check(f, seed, a, b)
