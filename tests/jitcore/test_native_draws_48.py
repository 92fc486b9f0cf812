"""Draws made by the compiled code itself from a PCG64 Generator (jitcore/native_draws.py,
codegen/pcg64.py): random, uniform and poisson in branches and while loops, with parameters
computed in the function, bit for bit NumPy's, the generator left in NumPy's state (returning
or raising), and no call back into Python per draw."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import dispatch

SEEDS = st.integers(0, 2**63)


def _pair(seed):
    return np.random.default_rng(seed), np.random.default_rng(seed)


def _same_state(a, b):
    np.testing.assert_equal(b.bit_generator.state, a.bit_generator.state)
    assert a.random() == b.random()


@pytest.fixture
def callbacks(monkeypatch):
    """How many times compiled code called back into Python (made after the fixture)."""
    calls = [0]
    original = dispatch._Trampoline._call

    def counted(self, place, data):
        calls[0] += 1
        return original(self, place, data)

    monkeypatch.setattr(dispatch._Trampoline, "_call", counted)
    return calls


def branchy(rng, x, n):
    s = 0.0
    k = 0
    while k < n:
        if x[k % 3] > 0:
            s += rng.random()
        else:
            s += rng.uniform(x[0], x[0] + 2.0)
        s += rng.poisson(abs(x[k % 3]) * 4.0)
        k += 1
    return s


j_branchy = jc.jit(branchy)


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.lists(st.floats(-5, 5), min_size=3, max_size=3), st.integers(0, 60))
def test_branch_and_while_loop_follow_numpys_stream(seed, xs, n):
    x = np.array(xs)
    a, b = _pair(seed)
    want, got = branchy(a, x, n), j_branchy(b, x, n)
    assert got == want and type(got) is type(want)
    _same_state(a, b)


def test_no_callback_per_draw(callbacks):
    def f(rng, lam, n):
        s = 0
        k = 0
        while k < n:
            s += rng.poisson(lam * (1 + k % 7))
            if rng.random() < 0.5:
                s += 1
            k += 1
        return s

    jf = jc.jit(f)
    a, b = _pair(3)
    assert jf(b, 2.0, 500) == f(a, 2.0, 500)
    calls = callbacks[0]
    assert jf(b, 2.0, 500) == f(a, 2.0, 500)
    assert callbacks[0] == calls  # (before: one per draw, 1000 a call)
    _same_state(a, b)


def tau_leap(rng, rates, steps):
    x = 50.0
    out = np.zeros(steps, np.int64)
    for t in range(steps):
        lam = rates[t % rates.shape[0]] * x / 10.0
        k = rng.poisson(lam)
        out[t] = k
        x = x + 1.0 - 0.01 * k
    return out


j_tau_leap = jc.jit(tau_leap)


@settings(max_examples=25, deadline=None)
@given(SEEDS, st.lists(st.floats(0, 60), min_size=1, max_size=5))
def test_poisson_with_computed_lam_in_a_loop(seed, rates):
    r = np.array(rates)
    a, b = _pair(seed)
    want, got = tau_leap(a, r, 200), j_tau_leap(b, r, 200)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    _same_state(a, b)


def poisson_many(rng, lam, n):
    return rng.poisson(lam * 1.0, size=n)


j_poisson_many = jc.jit(poisson_many, static_argnames="n")


@pytest.mark.parametrize("lam", [0.0, 0.3, 5.0, 9.999, 10.0, 10.5, 13.7, 50.0, 1e3, 1e6, 3e9])
def test_poisson_mult_and_ptrs_many_draws(lam):
    # PTRS's rejection steps (and random_loggam below 7) run many times in 2 * 10^5 draws
    for seed in (0, 1, 12345):
        a, b = _pair(seed)
        np.testing.assert_array_equal(j_poisson_many(b, lam, 200_000), poisson_many(a, lam, 200_000))
        _same_state(a, b)


def test_array_shaped_and_scalar_draws():
    def f(rng, c, lam):
        if c > 0:
            u = rng.random(size=(2, 3))
            p = rng.poisson(lam, size=4)
            v = rng.uniform(c, c + 1.0, 3)
        else:
            u = np.zeros((2, 3))
            p = np.zeros(4, np.int64)
            v = np.zeros(3)
        return u, p, v, rng.random(), rng.poisson(lam), rng.uniform(0.0, c)

    jf = jc.jit(f)
    for seed in range(5):
        a, b = _pair(seed)
        want, got = f(a, 1.5, 12.0), jf(b, 1.5, 12.0)
        for w, g in zip(want, got):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype
        _same_state(a, b)


def test_state_after_the_call_keeps_the_buffered_uint32():
    def f(rng, n):
        s = 0.0
        while s < n:
            s += rng.random()
        return s

    jf = jc.jit(f)
    a, b = _pair(7)
    a.integers(0, 5, dtype=np.int32)  # leaves half of a 64-bit draw in has_uint32 / uinteger
    b.integers(0, 5, dtype=np.int32)
    assert jf(b, 20.0) == f(a, 20.0)
    _same_state(a, b)
    assert a.integers(0, 1000, dtype=np.int32) == b.integers(0, 1000, dtype=np.int32)


def draws_then_raises(rng, lam0, n):
    lam = lam0
    s = 0
    k = 0
    while k < n:
        s += rng.poisson(lam)
        lam = lam - 1.0
        k += 1
    return s


j_draws_then_raises = jc.jit(draws_then_raises)


@pytest.mark.parametrize("lam0", [3.0, 14.5])
def test_raising_after_draws_leaves_numpys_state(lam0):
    for seed in range(4):
        a, b = _pair(seed)
        with pytest.raises(ValueError) as want:
            draws_then_raises(a, lam0, 40)
        with pytest.raises(ValueError) as got:
            j_draws_then_raises(b, lam0, 40)
        assert str(got.value) == str(want.value)
        _same_state(a, b)


def test_uniform_errors_are_numpys():
    def f(rng, low, high, n):
        s = 0.0
        k = 0
        while k < n:
            s += rng.uniform(low, high - k)
            k += 1
        return s

    jf = jc.jit(f)
    for args in [(0.0, 5.5, 10), (0.0, np.inf, 3), (0.0, 3.0, 2)]:
        a, b = _pair(11)
        try:
            want = f(a, *args)
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e)) as got:
                jf(b, *args)
            assert str(got.value) == str(e)
        else:
            assert jf(b, *args) == want
        _same_state(a, b)


def test_other_samplers_interleaved_on_the_same_generator():
    def f(rng, mu, n):
        s = 0.0
        k = 0
        while k < n:
            s += rng.normal(mu, 1.0)  # NumPy's sampler, through a callback
            s += rng.poisson(mu * mu + 1.0)  # native
            s += rng.gamma(mu + 2.0)  # NumPy's
            s += rng.random()  # native
            k += 1
        return s

    jf = jc.jit(f)
    for seed in range(4):
        a, b = _pair(seed)
        assert jf(b, 1.5, 50) == f(a, 1.5, 50)
        _same_state(a, b)


def test_draws_before_the_call_then_native_ones():
    def f(rng, x, n):
        z = rng.normal(size=3)  # drawn before the call
        s = z.sum()
        k = 0
        while k < n:
            s += rng.poisson(x[k % 2])
            k += 1
        return s + rng.random()

    jf = jc.jit(f)
    a, b = _pair(21)
    x = np.array([2.0, 30.0])
    assert jf(b, x, 25) == f(a, x, 25)
    _same_state(a, b)


@pytest.mark.parametrize("bit_generator", [np.random.MT19937, np.random.Philox, np.random.SFC64,
                                           np.random.PCG64DXSM])
def test_other_bit_generators_call_back(bit_generator):
    jf = jc.jit(branchy)
    x = np.array([1.0, -2.0, 0.5])
    jf(np.random.default_rng(0), x, 5)  # compiled for a PCG64
    a, b = np.random.Generator(bit_generator(4)), np.random.Generator(bit_generator(4))
    assert jf(b, x, 30) == branchy(a, x, 30)
    _same_state(a, b)


def test_one_generator_at_two_places():
    def f(r1, r2, n):
        s = 0.0
        k = 0
        while k < n:
            s += r1.random() + 10 * r2.poisson(3.0)
            k += 1
        return s

    jf = jc.jit(f)
    a, b = _pair(5)
    assert jf(b, b, 20) == f(a, a, 20)
    _same_state(a, b)
    a2, b2 = _pair(6)
    assert jf(b, b2, 20) == f(a, a2, 20)  # two generators: each its own stream
    _same_state(a, b)
    _same_state(a2, b2)


def test_global_generator_and_one_made_from_a_seed_argument():
    rng = np.random.default_rng(8)
    reference = np.random.default_rng(8)

    def f(c):
        return rng.poisson(c * 2.0) if c > 1 else rng.random()

    def g(seed, c):
        r = np.random.default_rng(seed)
        return r.poisson(c * 2.0) if c > 1 else r.random()

    jf, jg = jc.jit(f), jc.jit(g)
    for c in (3.0, 0.5, 7.0):
        assert jf(c) == (reference.poisson(c * 2.0) if c > 1 else reference.random())
        assert jg(4, c) == g(4, c)
    _same_state(rng, reference)


def int_walk(rng, lo, hi, n):
    s = np.int64(0)
    k = 0
    while k < n:
        s = s ^ rng.integers(lo, hi + k % 2)
        k += 1
    return s, rng.integers(abs(hi) + 1, size=3), rng.integers(lo, hi, size=(2, 2))


j_int_walk = jc.jit(int_walk)


@pytest.mark.parametrize("lo, hi", [(0, 1), (0, 2), (-5, 7), (0, 1000), (0, 2**31), (0, 2**32 - 1),
                                    (0, 2**32), (0, 2**32 + 1), (-2**40, 2**40), (0, 2**62),
                                    (-2**63, 2**63 - 2)])
def test_integers_lemire_32_and_64_bit_ranges(lo, hi):
    for seed in range(4):
        a, b = _pair(seed)
        if seed % 2:  # a kept half of a 64-bit draw (has_uint32), which a 32-bit range uses first
            a.integers(0, 5, dtype=np.int32)
            b.integers(0, 5, dtype=np.int32)
        want, got = int_walk(a, lo, hi, 40), j_int_walk(b, lo, hi, 40)
        assert got[0] == want[0] and type(got[0]) is type(want[0])
        for w, g in zip(want[1:], got[1:]):
            np.testing.assert_array_equal(g, w)
            assert g.dtype == w.dtype
        _same_state(a, b)


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.integers(-2**62, 2**62), st.integers(1, 2**62))
def test_integers_any_range(seed, lo, span):
    a, b = _pair(seed)
    want, got = int_walk(a, lo, lo + span, 10), j_int_walk(b, lo, lo + span, 10)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[2], want[2])
    _same_state(a, b)


def test_integers_errors_and_no_callbacks(callbacks):
    def f(rng, hi, n, d):
        s = 0
        k = 0
        while k < n:
            s += rng.integers(hi - k) + rng.integers(k, hi + d)
            k += 1
        return s

    jf = jc.jit(f)
    a, b = _pair(9)
    assert jf(b, 50, 20, 0) == f(a, 50, 20, 0)
    calls = callbacks[0]
    assert jf(b, 50, 20, 0) == f(a, 50, 20, 0)
    assert callbacks[0] == calls
    for d in (0, -2):  # integers(0): "high <= 0"; integers(k, hi - 2) at k = hi - 2: "low >= high"
        with pytest.raises(ValueError) as want:
            f(a, 5, 10, d)
        with pytest.raises(ValueError) as got:
            jf(b, 5, 10, d)
        assert str(got.value) == str(want.value)
        _same_state(a, b)


def location_scale(rng, loc, scale, n):
    s = 0.0
    k = 0
    while k < n:
        s += rng.laplace(loc, scale) + rng.gumbel(loc, scale * 2) - rng.logistic(loc, scale)
        k += 1
    return (s, rng.laplace(loc, scale, size=50_000), rng.gumbel(loc, scale, size=50_000),
            rng.logistic(loc, scale, size=50_000))


j_location_scale = jc.jit(location_scale)


@pytest.mark.parametrize("loc, scale", [(0.0, 1.0), (3.0, 0.5), (-1e3, 1e-3), (0.0, 0.0), (1.0, np.nan),
                                        (0.0, -1.0), (0.0, -0.0)])
def test_laplace_gumbel_logistic(loc, scale):
    for seed in range(3):
        a, b = _pair(seed)
        try:
            want = location_scale(a, loc, scale, 30)
        except ValueError as e:  # scale < 0 (-0.0 included): NumPy's error, from NumPy's sampler
            with pytest.raises(ValueError) as got:
                j_location_scale(b, loc, scale, 30)
            assert str(got.value) == str(e)
        else:
            got = j_location_scale(b, loc, scale, 30)
            np.testing.assert_equal(got, want)
        _same_state(a, b)


def test_ziggurat_tables_read_back_from_numpy():
    from jitcore import ziggurat

    ki, wi, fi = ziggurat.tables()
    assert ki[1] == 0 and fi[0] == 1.0 and np.all(np.diff(fi) < 0) and np.all(np.diff(wi[1:]) > 0)


def normals(rng, mu, n):
    if mu > -1e300:  # a traced branch: the draws are made as the code runs
        return rng.standard_normal(size=n), rng.normal(mu, 1.5, size=(3,))
    return np.zeros(n), np.zeros(3)


j_normals = jc.jit(normals, static_argnames="n")


@pytest.mark.parametrize("seed", range(10))
def test_standard_normal_ten_million_draws(seed):
    # 10 seeds x 10^6: every layer, its edge test and the tail beyond r (~1 in 3600) are hit
    a, b = _pair(seed)
    want, got = normals(a, 0.25, 1_000_000), j_normals(b, 0.25, 1_000_000)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    _same_state(a, b)


def test_normal_in_a_while_loop_with_other_draws(callbacks):
    def f(rng, mu, n):
        s = 0.0
        k = 0
        while k < n:
            s += rng.normal(mu, 2.0) + rng.standard_normal() + rng.poisson(mu + 1.0)
            k += 1
        return s

    jf = jc.jit(f)
    for seed in range(5):
        a, b = _pair(seed)
        assert jf(b, 0.5, 200) == f(a, 0.5, 200)
        _same_state(a, b)
    calls = callbacks[0]
    assert jf(b, 0.5, 200) == f(a, 0.5, 200)
    assert callbacks[0] == calls
    for scale in (-1.0, 0.0):  # NumPy's error, or its draw, through the callback
        def g(rng, s):
            return rng.normal(0.0, s) if s < 1 else 0.0

        jg = jc.jit(g)
        try:
            want = g(a, scale)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)):
                jg(b, scale)
        else:
            assert jg(b, scale) == want
        _same_state(a, b)


def test_one_generator_at_two_places_one_of_them_mixed():
    def f(rng, other, x, n):
        s = rng.gamma(x) + other.normal()  # rng: a mixed place (gamma), its buffer off
        k = 0
        while k < n:
            s += other.random() + rng.poisson(x)  # other: native draws only
            k += 1
        return s

    jf = jc.jit(f)
    a, b = _pair(0)
    assert jf(b, b, 2.0, 30) == f(a, a, 2.0, 30)
    _same_state(a, b)
    a2, b2 = _pair(1)
    assert jf(b, b2, 2.0, 30) == f(a, a2, 2.0, 30)
    _same_state(a, b)
    _same_state(a2, b2)
