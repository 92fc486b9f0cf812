"""A generator made inside the function from a seed argument (``default_rng(seed)``,
``RandomState(seed)``, ``np.random.seed(seed)``, ``Generator(PCG64(seed))``,
``SeedSequence(seed)``) is made at call time from the seed's value: NumPy's numbers for every
seed, from one compiled variant (no recompile per seed).

The oracle: the same function run by NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError, UnsupportedError
from tests.budget import examples
from tests.oracle import assert_same_tree

SEEDS = [0, 1, 2, 12345, 2**31 - 1, 2**32 + 5, 2**62, 2**63 - 1]


def _check(f, fun, *args):
    """``f(*args)`` (jitted) as ``fun(*args)``: the same results, or the same error."""
    try:
        want = fun(*args)
    except Exception as e:  # noqa: BLE001  (NumPy's own error, e.g. a seed out of range)
        with pytest.raises(type(e)) as got:
            f(*args)
        assert str(got.value) == str(e)
        return
    assert_same_tree(f(*args), want)




def mc_default_rng(seed, x):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(x.shape)
    u = rng.random()
    k = rng.integers(0, 10, size=3)
    return x + z, u, k, rng.normal(1.0, 2.0, size=2), rng.exponential(3.0)


def mc_sequence_seed(seed, x):
    rng = np.random.default_rng([seed, 7])
    return x * rng.random(x.shape), rng.poisson(3.0, size=4)


def mc_random_state(seed, x):
    rs = np.random.RandomState(seed)
    return x + rs.randn(*x.shape), rs.randint(0, 100, size=3), rs.uniform(-1.0, 1.0)


def mc_global_seed(seed, x):
    np.random.seed(seed)
    return x + np.random.rand(*x.shape), np.random.choice(5, 3)


def mc_bit_generator(seed, x):
    rng = np.random.Generator(np.random.PCG64(seed))
    return x + rng.standard_normal(x.shape), rng.gamma(2.0, size=2)


def mc_seed_sequence(seed, x):
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    return x + rng.standard_normal(x.shape)


def mc_keyword(seed, x):
    rng = np.random.default_rng(seed=seed)
    return x + rng.random(x.shape)


def mc_two_generators(seed, other, x):
    a = np.random.default_rng(seed)
    b = np.random.default_rng(other)
    return a.random(3) + b.random(3) + x, a.random(), b.random()


def mc_loop(seed, x):
    rng = np.random.default_rng(seed)
    total = x.copy()
    for i in range(80):  # compiled: each step's draws made at call time
        total = total + rng.standard_normal(x.shape) * i
    return total, rng.random()


FUNCTIONS = [mc_default_rng, mc_sequence_seed, mc_random_state, mc_global_seed, mc_bit_generator,
             mc_seed_sequence, mc_keyword, mc_loop]


@pytest.mark.parametrize("fun", FUNCTIONS, ids=lambda f: f.__name__)
def test_every_seed_gives_numpys_numbers_from_one_compile(fun):
    f = jc.jit(fun)
    x = np.arange(4.0)
    for seed in SEEDS:
        _check(f, fun, seed, x)
    info = f.cache_info()
    # not one trace per seed (before: a trace each, the seed static, its draws constants): one
    # per range class of a Python int (jitcore's signature holds the int's bounds for NumPy 2's
    # overflow checks), 4 among SEEDS
    assert info.traces <= 4 < len(SEEDS) and info.compiles <= 4, info
    for seed in [3, 4, 100, 2**62 + 1, 2**63 - 2, 777, 2**31 - 2]:
        _check(f, fun, seed, x)
    assert (f.cache_info().traces, f.cache_info().compiles) == (info.traces, info.compiles)


@given(seed=st.one_of(st.integers(0, 2**63 - 1), st.sampled_from([0, 1, 2**32, 2**63 - 1])))
@settings(max_examples=examples(40), deadline=None)
def test_hypothesis_any_seed_matches_numpy(seed):
    x = np.linspace(0.0, 1.0, 5)
    for fun, f in JITTED:
        _check(f, fun, seed, x)


JITTED = [(fun, jc.jit(fun)) for fun in (mc_default_rng, mc_random_state, mc_sequence_seed, mc_loop)]


def test_two_seeded_generators_in_program_order():
    f = jc.jit(mc_two_generators)
    x = np.zeros(3)
    for seed, other in [(0, 1), (5, 5), (6, 9), (2**40, 3)]:
        assert_same_tree(f(seed, other, x), mc_two_generators(seed, other, x))
    assert f.cache_info().traces <= 2


def test_global_seed_leaves_the_global_generator_as_numpy_does():
    f = jc.jit(mc_global_seed)
    f(3, np.zeros(2))
    after_jit = np.random.rand(4)
    mc_global_seed(3, np.zeros(2))
    np.testing.assert_array_equal(after_jit, np.random.rand(4))


def test_a_numpy_int_seed_and_a_seed_array():
    f = jc.jit(mc_default_rng)
    x = np.ones(2)
    assert_same_tree(f(np.int64(9), x), mc_default_rng(np.int64(9), x))
    assert_same_tree(f(np.uint32(9), x), mc_default_rng(np.uint32(9), x))
    seeds = np.array([1, 2, 3])
    assert_same_tree(f(seeds, x), mc_default_rng(seeds, x))


def test_a_negative_seed_raises_numpys_error():
    f = jc.jit(mc_default_rng)
    with pytest.raises(ValueError) as want:
        mc_default_rng(-1, np.ones(2))
    with pytest.raises(ValueError) as got:
        f(-1, np.ones(2))
    assert str(got.value) == str(want.value)
    assert_same_tree(f(4, np.ones(2)), mc_default_rng(4, np.ones(2)))


def test_a_seed_computed_from_data_is_refused_clearly():
    def from_data(x):
        rng = np.random.default_rng(int(x.sum()))
        return rng.random(3)

    with pytest.raises(JitcoreError):
        jc.jit(from_data)(np.ones(3))


def test_a_seed_computed_in_the_function_is_static_on_demand_and_right():
    def derived(seed, x):
        rng = np.random.default_rng(seed * 2 + 1)
        return x + rng.random(x.shape)

    f = jc.jit(derived)
    for seed in (0, 3):
        assert_same_tree(f(seed, np.zeros(2)), derived(seed, np.zeros(2)))


def test_a_generator_made_from_a_traced_seed_in_a_compiled_loop_is_refused():
    def in_loop(seeds, x):
        total = x
        for i in range(100):
            total = total + np.random.default_rng(seeds).random() * i
        return total

    # an array of seeds cannot be made static on demand: the refusal itself is raised
    with pytest.raises(UnsupportedError, match="Make it before the loop or branch"):
        jc.jit(in_loop)(np.array([2, 3]), np.zeros(2))


def test_a_seed_array_computed_in_the_function_is_refused_with_advice():
    def computed(seeds, x):
        return x + np.random.default_rng(seeds + 1).random(x.shape)

    with pytest.raises(UnsupportedError, match="a seed must be an argument itself"):
        jc.jit(computed)(np.array([2, 3]), np.zeros(2))


def mc_seed_sequence_list(seed, x):
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 11])))
    return x + rng.random(x.shape)


def test_a_seed_sequence_of_a_list_of_seeds():
    f = jc.jit(mc_seed_sequence_list)
    for seed in (0, 5, 2**40):
        _check(f, mc_seed_sequence_list, seed, np.zeros(3))
    assert f.cache_info().traces <= 2


def test_an_attribute_of_a_generator_made_from_a_seed_argument_is_refused():
    def state(seed):
        rng = np.random.default_rng(seed)
        rng.random()
        return rng.bit_generator.state["state"]["state"]

    # (the trace's sample generator's state would be a constant: refused, not silently wrong)
    with pytest.raises(UnsupportedError, match="attributes are not known while compiling"):
        jc.jit(state)(np.array(3))


def helper_draw(rng, n):
    return rng.standard_normal(n)


@jc.jit
def inner_seeded(seed):
    return np.random.default_rng(seed).random(2)


def outer_seeded(seed, x):
    rng = np.random.default_rng(seed)
    return x + helper_draw(rng, 3), inner_seeded(seed)


def test_a_helper_and_an_inner_jitted_function():
    f = jc.jit(outer_seeded)
    for seed in (1, 2, 3):
        _check(f, outer_seeded, seed, np.zeros(3))
    assert f.cache_info().traces == 1


def reseeded_between_draws(seed, rng, x):
    a = np.random.rand(2)  # the global generator as the caller left it
    np.random.seed(seed)
    b = np.random.rand(2)  # from the seed
    mine = np.random.default_rng([seed, 1])
    c = rng.random(2) + mine.random(2)
    return x + a + b + c, mine.permutation(4), mine.choice(x, 2), rng.integers(0, 9)


def test_program_order_with_the_global_generator_and_a_generator_argument():
    f = jc.jit(reseeded_between_draws)
    x = np.arange(2.0)
    for seed in (0, 17, 2**31):
        np.random.seed(100 + seed)
        want = reseeded_between_draws(seed, np.random.default_rng(seed + 5), x)
        after_numpy = np.random.rand()
        np.random.seed(100 + seed)
        got = f(seed, np.random.default_rng(seed + 5), x)
        assert_same_tree(got, want)
        assert np.random.rand() == after_numpy  # the global generator left as NumPy leaves it
    assert f.cache_info().traces <= 2


def test_threads_each_get_their_own_seeds_generator():
    import threading

    f = jc.jit(mc_keyword)
    x = np.zeros(500)
    f(0, x)
    bad = []

    def run(seed):
        for _ in range(10):
            if not np.array_equal(f(seed, x), mc_keyword(seed, x)):
                bad.append(seed)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


def seeds_in_containers(x, cfg, pair):
    rng = np.random.default_rng(cfg["seed"])
    other = np.random.default_rng(pair[1])
    return x + rng.random(x.shape) + other.random(x.shape)


def test_seeds_held_in_a_dict_and_a_tuple_argument():
    f = jc.jit(seeds_in_containers)
    x = np.zeros(3)
    for seed in (1, 2, 3):
        args = (x, {"seed": seed, "w": 2.0}, (np.ones(2), seed + 10))
        _check(f, seeds_in_containers, *args)
    assert f.cache_info().traces == 1
