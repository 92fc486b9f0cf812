"""Draws made by the compiled code itself from a PCG64 Generator, session 49
(codegen/pcg64_draws.py): standard_exponential, exponential, standard_gamma, gamma, chisquare,
beta, binomial and geometric in a traced branch, a while loop and with parameters computed in
the function, bit for bit NumPy's, the generator left in NumPy's state, errors NumPy's, and no
call back into Python per draw."""

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import dispatch
from tests.jitcore.test_native_draws_48 import SEEDS, _pair, _same_state


@contextlib.contextmanager
def no_callbacks():
    """Fails when the compiled code calls back into Python inside the block."""
    calls = [0]
    original = dispatch._Trampoline._call

    def counted(self, place, data):
        calls[0] += 1
        return original(self, place, data)

    dispatch._Trampoline._call = counted
    try:
        yield
    finally:
        dispatch._Trampoline._call = original
    assert calls[0] == 0, f"{calls[0]} callbacks"


def _same(got, want):
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype


# -- one program per sampler: a traced branch, a while loop, computed parameters ----------------

def exponentials(rng, s, n):
    t = 0.0
    k = 0
    while k < n:
        if s > 1.0:  # a traced branch
            t += rng.exponential(s / (k + 1))
        else:
            t += rng.standard_exponential()
        k += 1
    return t, rng.exponential(s), rng.standard_exponential()


def gammas(rng, shape, n):
    t = 0.0
    k = 0
    while k < n:
        a = shape * (1 + k % 3)  # computed each step: below 1, 1 and above
        if a > 0.5:
            t += rng.gamma(a, 2.0)
        else:
            t += rng.standard_gamma(a)
        k += 1
    return t, rng.gamma(shape), rng.standard_gamma(shape * 0.5)


def chisquare_beta(rng, a, b, n):
    t = 0.0
    for k in range(n):
        t += rng.chisquare(a + k % 2) + rng.beta(a, b * (1 + k % 2))
    return t, rng.beta(a, b), rng.chisquare(b)


def binomials(rng, n0, p, steps):
    s = 0
    k = 0
    while k < steps:
        n = n0 + k
        if p < 0.5:
            s += rng.binomial(n, p)
        else:
            s += rng.binomial(n, 1.0 - p * 0.5)
        k += 1
    return s, rng.binomial(n0, p)


def geometrics(rng, p, steps):
    s = 0
    k = 0
    while k < steps:
        q = p / (1 + k % 4)  # both sides of 1/3: search and inversion
        s += rng.geometric(q)
        k += 1
    return s, rng.geometric(p)


PROGRAMS = {f.__name__: (f, jc.jit(f)) for f in (exponentials, gammas, chisquare_beta, binomials, geometrics)}


def _check(name, seed, *args):
    f, jf = PROGRAMS[name]
    a, b = _pair(seed)
    try:
        want = f(a, *args)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e)) as got:
            jf(b, *args)
        assert str(got.value) == str(e)
    else:
        got = jf(b, *args)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    _same_state(a, b)


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.floats(0.0, 50.0), st.integers(0, 40))
def test_exponential(seed, s, n):
    _check("exponentials", seed, s, n)


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.one_of(st.floats(1e-6, 3.0), st.floats(3.0, 1e6), st.sampled_from([1e-300, 1.0, 1e15])),
       st.integers(0, 30))
def test_gamma(seed, shape, n):
    _check("gammas", seed, shape, n)


@settings(max_examples=40, deadline=None)
@given(SEEDS, st.one_of(st.floats(1e-3, 20.0), st.sampled_from([1e-300, 2.9e-103, 3e-103, 1e-102, 1.0])),
       st.floats(1e-3, 20.0), st.integers(0, 20))
def test_chisquare_and_beta(seed, a, b, n):
    _check("chisquare_beta", seed, a, b, n)


@settings(max_examples=50, deadline=None)
@given(SEEDS, st.one_of(st.integers(0, 100), st.integers(0, 10**9)), st.floats(0.0, 1.0), st.integers(0, 30))
def test_binomial(seed, n, p, steps):
    _check("binomials", seed, n, p, steps)


@settings(max_examples=40, deadline=None)
@given(SEEDS,
       st.one_of(st.floats(1e-300, 1.0), st.sampled_from([1.0, 0.5, 1 / 3, 0.33333333333333337, 1e-12])),
       st.integers(0, 30))
def test_geometric(seed, p, steps):
    _check("geometrics", seed, p, steps)


@pytest.mark.parametrize("name, args", [
    ("exponentials", (2.5, 200)), ("exponentials", (0.5, 200)), ("gammas", (0.3, 200)),
    ("gammas", (4.0, 200)),
    ("chisquare_beta", (0.5, 0.7, 100)), ("chisquare_beta", (3.0, 9.0, 100)), ("binomials", (20, 0.1, 200)),
    ("binomials", (10**6, 0.4, 200)), ("binomials", (10**6, 0.9, 200)), ("geometrics", (0.9, 200)),
    ("geometrics", (0.01, 200))])
def test_no_callback_per_draw(name, args):
    f, jf = PROGRAMS[name]
    a, b = _pair(4)
    jf(np.random.default_rng(0), *args)  # compiled
    with no_callbacks():
        got = jf(b, *args)
    for g, w in zip(got, f(a, *args)):
        _same(g, w)
    _same_state(a, b)


# -- edge parameters and NumPy's errors -------------------------------------------------------

@pytest.mark.parametrize("name, args", [
    ("exponentials", (0.0, 5)), ("exponentials", (-0.0, 5)), ("exponentials", (-1.0, 5)),
    ("exponentials", (np.nan, 5)), ("exponentials", (np.inf, 5)), ("exponentials", (1e308, 5)),
    ("gammas", (0.0, 5)), ("gammas", (-0.0, 5)), ("gammas", (-1.0, 5)), ("gammas", (np.nan, 3)),
    ("gammas", (np.inf, 3)), ("gammas", (5e-324, 5)), ("gammas", (1e300, 5)),
    ("chisquare_beta", (0.0, 1.0, 3)), ("chisquare_beta", (1.0, 0.0, 3)), ("chisquare_beta", (-1.0, 1.0, 3)),
    ("chisquare_beta", (np.nan, 1.0, 3)), ("chisquare_beta", (1e-300, 1e-300, 30)),
    ("chisquare_beta", (1e-3, 1.0, 30)), ("chisquare_beta", (1.0, 1.0, 30)),
    ("chisquare_beta", (np.inf, 1.0, 3)), ("chisquare_beta", (2.9e-103, 1e-200, 30)),
    ("chisquare_beta", (3e-103, 1e-200, 30)), ("chisquare_beta", (1e-104, 5e-105, 30)),
    ("binomials", (0, 0.3, 5)), ("binomials", (0, 0.0, 5)), ("binomials", (10, 0.0, 5)),
    ("binomials", (10, 1.0, 5)), ("binomials", (-1, 0.5, 5)), ("binomials", (10, 1.5, 5)),
    ("binomials", (10, -0.1, 5)), ("binomials", (10, np.nan, 5)), ("binomials", (2**62, 0.25, 5)),
    ("binomials", (60, 0.5, 5)), ("binomials", (61, 0.49, 5)),
    ("geometrics", (1.0, 5)), ("geometrics", (0.0, 5)), ("geometrics", (1.5, 5)), ("geometrics", (np.nan, 5)),
    ("geometrics", (5e-324, 0)), ("geometrics", (1e-17, 5))])
def test_edge_parameters_and_errors(name, args):
    for seed in range(3):
        _check(name, seed, *args)


def many(rng, method, x, y, n):
    if method == 0:
        return rng.exponential(x, size=n)
    if method == 1:
        return rng.gamma(x, y, size=n)
    if method == 2:
        return rng.beta(x, y, size=n)
    if method == 3:
        return rng.binomial(int(x), y, size=n)
    return rng.geometric(y, size=n)


j_many = jc.jit(many, static_argnames=("method", "n"))


@pytest.mark.parametrize("method, x, y", [
    (0, 1.0, 0), (1, 0.05, 1.0), (1, 0.999, 2.0), (1, 1.0, 1.0), (1, 1.5, 1.0), (1, 1e4, 0.5),
    (2, 0.3, 0.9), (2, 1e-3, 1e-3), (2, 2.0, 0.5), (3, 25.0, 0.5), (3, 100.0, 0.05), (3, 1000.0, 0.3),
    (3, 51.0, 0.7), (3, 1e9, 0.45), (3, 200.0, 0.999), (4, 0, 0.4), (4, 0, 0.2), (4, 0, 1e-9)])
def test_many_draws_reach_the_rare_paths(method, x, y):
    # 2 * 10^5 draws: the ziggurat's tail and edges, BTPE's four regions and its squeeze
    for seed in (0, 99):
        a, b = _pair(seed)
        want = many(a, method, x, y, 200_000)
        with no_callbacks():
            got = j_many(b, method, x, y, 200_000)
        _same(got, want)
        _same_state(a, b)


def test_exponential_ziggurat_tables_read_back_from_numpy():
    from jitcore import ziggurat

    ke, we, fe = ziggurat.tables(ziggurat.EXPONENTIAL)
    assert ke[1] == 0 and fe[0] == 1.0 and np.all(np.diff(fe) < 0) and np.all(np.diff(we[1:]) > 0)


def test_mixed_with_other_native_samplers_and_draws_before_the_call():
    def f(rng, mu, n):
        z = rng.normal(size=3)  # before the call
        s = z.sum()
        k = 0
        while k < n:
            s += rng.normal(mu, 1.0) + rng.gamma(mu * mu + 0.5) + rng.binomial(k + 40, 0.3)
            s += rng.poisson(mu) + rng.exponential(mu) + rng.geometric(0.2) + rng.random()
            k += 1
        return s

    jf = jc.jit(f)
    jf(np.random.default_rng(0), 1.5, 3)
    for seed in range(4):
        a, b = _pair(seed)
        with no_callbacks():
            got = jf(b, 1.5, 60)
        assert got == f(a, 1.5, 60)
        _same_state(a, b)


def test_numpys_sampler_through_the_same_generator_keeps_the_stream():
    def f(rng, a, n):
        s = 0.0
        k = 0
        while k < n:
            s += rng.gamma(a) + rng.wald(1.0, a)  # wald: NumPy's, through a callback
            k += 1
        return s

    jf = jc.jit(f)
    for seed in range(3):
        a, b = _pair(seed)
        assert jf(b, 2.5, 40) == f(a, 2.5, 40)
        _same_state(a, b)


def test_raising_mid_loop_leaves_numpys_state():
    def f(rng, p, n):
        s = 0
        k = 0
        while k < n:
            s += rng.binomial(100, p) + rng.geometric(p)
            p = p + 0.1
            k += 1
        return s

    jf = jc.jit(f)
    for seed in range(3):
        a, b = _pair(seed)
        with pytest.raises(ValueError) as want:
            f(a, 0.35, 20)
        with pytest.raises(ValueError) as got:
            jf(b, 0.35, 20)
        assert str(got.value) == str(want.value)
        _same_state(a, b)


@pytest.mark.parametrize("bit_generator", [np.random.MT19937, np.random.SFC64])
def test_other_bit_generators_call_back(bit_generator):
    f, jf = PROGRAMS["gammas"]
    jf(np.random.default_rng(0), 0.7, 3)  # compiled for a PCG64
    a, b = np.random.Generator(bit_generator(4)), np.random.Generator(bit_generator(4))
    _same(jf(b, 0.7, 30), f(a, 0.7, 30))
    _same_state(a, b)


# -- float32 draws ------------------------------------------------------------------------------

def floats32(rng, c, n):
    s = np.float32(0)
    k = 0
    while k < n:
        if c > 0:
            s += rng.random(dtype=np.float32)
        else:
            s += rng.random(dtype="float32") * np.float32(c)
        if k % 3 == 0:
            s += np.float32(rng.random())  # a 64-bit draw between the 32-bit halves
        k += 1
    return s, rng.random(dtype=np.float32), rng.random(size=5, dtype=np.float32), rng.random(dtype=np.float64)


PROGRAMS["floats32"] = (floats32, jc.jit(floats32))


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.floats(-3.0, 3.0), st.integers(0, 30), st.booleans())
def test_random_float32(seed, c, n, half_kept):
    f, jf = PROGRAMS["floats32"]
    a, b = _pair(seed)
    if half_kept:  # a 32-bit half of a 64-bit draw kept (has_uint32): the first float32 uses it
        a.random(dtype=np.float32)
        b.random(dtype=np.float32)
    jf(np.random.default_rng(0), c, 2)
    with no_callbacks():
        got = jf(b, c, n)
    for g, w in zip(got, f(a, c, n)):
        _same(g, w)
    _same_state(a, b)


# -- array parameters (broadcast): an element a draw, in the result's C order -----------------

def scale_and_shape_arrays(rng, mu, s, n):
    t = np.zeros(mu.shape)
    for _ in range(n):
        t = t + rng.normal(mu, s[:, None] + 0.0 * mu) + rng.gamma(mu)
    return t


j_scale_and_shape_arrays = jc.jit(scale_and_shape_arrays)


@pytest.mark.parametrize("bad", [-1.0, -0.0, np.nan, np.inf])
def test_one_bad_element_is_numpys_error_before_any_draw(bad):
    # (a sampler that draws with a bad parameter rather than raising may loop for ever: normal
    # and gamma with a negative one do not, so the check of all elements fails here, not hangs)
    mu, s = np.array([[0.5, 1.0, 2.0], [3.0, 0.1, 7.0]]), np.array([1.0, 0.2])
    for k, (m, sc) in enumerate([(mu.copy(), s.copy()), (mu.copy(), s.copy())]):
        if k == 0:
            m[1, 1] = bad  # gamma's shape
        else:
            sc[1] = bad  # normal's scale
        for seed in range(3):
            a, b = _pair(seed)
            try:
                want = scale_and_shape_arrays(a, m, sc, 3)
            except ValueError as e:
                with pytest.raises(ValueError) as got:
                    j_scale_and_shape_arrays(b, m, sc, 3)
                assert str(got.value) == str(e)
            else:
                _same(j_scale_and_shape_arrays(b, m, sc, 3), want)
            _same_state(a, b)



def broadcast_draws(rng, mu, s, n):
    t = np.zeros(mu.shape)
    k = 0
    while k < n:
        if s[0] > -1.0:  # a traced branch
            t = t + rng.normal(mu * k, 1.0) + rng.gamma(s[:, None] + mu)
        t = t + rng.binomial(10 + k, mu / (mu.max() + 1)) + rng.uniform(mu, mu + 1.0)
        k += 1
    return (t, rng.exponential(mu, size=(2,) + mu.shape), rng.poisson(mu * 3), rng.beta(s[:, None] + 0.5, mu),
            rng.geometric(1.0 / (1.0 + mu)), rng.laplace(0.0, s))


PROGRAMS["broadcast_draws"] = (broadcast_draws, jc.jit(broadcast_draws))

POSITIVE = st.floats(0.0, 20.0)


@settings(max_examples=25, deadline=None)
@given(SEEDS, st.lists(POSITIVE, min_size=6, max_size=6), st.lists(POSITIVE, min_size=2, max_size=2),
       st.integers(0, 6))
def test_array_parameters_broadcast(seed, mus, ss, n):
    f, jf = PROGRAMS["broadcast_draws"]
    mu, s = np.array(mus).reshape(2, 3), np.array(ss)
    jf(np.random.default_rng(0), np.ones((2, 3)), np.ones(2), 1)
    a, b = _pair(seed)
    try:
        want = f(a, mu, s, n)
    except ValueError as e:  # (laplace's scale 0 is NumPy's own; beta needs a, b > 0)
        with pytest.raises(ValueError) as got:
            jf(b, mu, s, n)
        assert str(got.value) == str(e)
    else:
        with no_callbacks() if (mu > 0).all() and (s > 0).all() else contextlib.nullcontext():
            got = jf(b, mu, s, n)
        for g, w in zip(got, want):
            _same(g, w)
    _same_state(a, b)
