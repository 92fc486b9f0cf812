"""``Generator.permutation(n)``, ``shuffle``, ``permutation(x)`` and ``choice(n, ...)`` (with and
without replacement) drawn by the compiled code itself from a PCG64 (session 57,
codegen/pcg64_shuffles.py): bit for bit NumPy's in a while loop, the generator left in NumPy's
state, no call back into Python, and ``random`` beside them still native."""

import numpy as np
import pytest
from hypothesis import given, settings

import jitcore as jc
from tests.budget import examples
from tests.jitcore.test_native_draws_48 import SEEDS, _pair, _same_state
from tests.jitcore.test_native_draws_48 import callbacks as callbacks  # the fixture


def permutations(rng, steps):
    """Every n of interest in one compile: 0 and 1 draw nothing, 2 one 32-bit draw."""
    acc = np.zeros(1000, np.int64)
    small = np.zeros(3, np.int64)
    k = 0
    while k < steps:
        empty = rng.permutation(0)
        small[:1] += rng.permutation(1)
        small[:2] += rng.permutation(2) * (k + 1)
        small += rng.permutation(3) * (k + 1)
        acc += rng.permutation(1000) * (k + 1)
        acc[:17] += rng.permutation(17) + empty.size
        k += 1
    return acc, small, rng.permutation(5)


def choices(rng, steps):
    """Floyd's with and without the final shuffle, the tail shuffle (above 10000 and more
    than n // 50, or n // 20 unshuffled), j crossing 2**32 (Lemire's 32- then 64-bit draws),
    replacement (NumPy's integers(0, n)), a scalar, a 2-d size and a size 0."""
    acc = np.zeros(1002, np.int64)
    k = 0
    while k < steps:
        acc[:3] += rng.choice(3, 3, replace=False) * (k + 1)
        acc[:7] += rng.choice(50, 7, replace=False, shuffle=False)
        acc[:401] += rng.choice(20000, 401, replace=False)  # tail shuffle
        acc[:400] += rng.choice(20000, 400, replace=False)  # Floyd's at the cutoff
        acc[:1001] += rng.choice(20000, 1001, replace=False, shuffle=False)  # tail
        acc[:1000] += rng.choice(20000, 1000, replace=False, shuffle=False)
        acc[:6] ^= rng.choice(2**32 + 3, 6, replace=False)
        acc[:3] ^= rng.choice(2**63 - 1, 3, replace=False, shuffle=False)
        acc[:4] += rng.choice(9, (2, 2), replace=False).ravel() + rng.choice(5, 0, replace=False).size
        acc[1001] += rng.choice(7, replace=False) + rng.choice(10) + rng.choice(2**40, 3).sum() % 7
        k += 1
    return acc, rng.choice(6, 3, replace=False), rng.choice(1, replace=False), rng.choice(2**33, (2, 2))


j_permutations, j_choices = jc.jit(permutations), jc.jit(choices)


def _check(f, jf, seed, kept_half, steps=3):
    a, b = _pair(seed)
    if kept_half:  # has_uint32 set: the first 32-bit draw is the kept half
        a.integers(0, 5, dtype=np.int32)
        b.integers(0, 5, dtype=np.int32)
    want, got = f(a, steps), jf(b, steps)
    for w, g in zip(want, got):
        assert type(g) is type(w)
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
    _same_state(a, b)


@settings(max_examples=examples(20, 8), deadline=None)
@given(SEEDS)
def test_permutation_is_numpys(seed):
    _check(permutations, j_permutations, seed, seed % 2)


@settings(max_examples=examples(12, 4), deadline=None)
@given(SEEDS)
def test_choice_is_numpys(seed):
    _check(choices, j_choices, seed, seed % 2, steps=2)


def knockout(strength, rng, nsims, x):
    """A tournament draw: permutation, random and shuffle on one generator, all native."""
    n = len(strength)
    wins = np.zeros(n, np.int64)
    for _ in range(nsims):
        alive = rng.permutation(n)
        while alive.shape[0] > 1:
            a, b = alive[0::2], alive[1::2]
            p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
            alive = np.where(rng.random(a.shape[0]) < p, a, b)
        wins[alive[0]] += 1
        rng.shuffle(x)
        x[0] += rng.permutation(x[1])[0]
    return wins, x


def test_knockout_draws_natively(callbacks):
    st = np.linspace(-1, 1, 16)
    jk = jc.jit(knockout)
    x = np.arange(12.0).reshape(4, 3)
    for seed in range(3):
        a, b = _pair(seed)
        want = knockout(st, a, 40, x.copy())
        callbacks[0] = 0
        got = jk(st, b, 40, x.copy())
        assert callbacks[0] == 0
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
        _same_state(a, b)
    # another bit generator: the same code, its draws made by NumPy's own samplers
    a, b = np.random.Generator(np.random.MT19937(4)), np.random.Generator(np.random.MT19937(4))
    for w, g in zip(knockout(st, a, 5, x.copy()), jk(st, b, 5, x.copy())):
        np.testing.assert_array_equal(g, w)
    assert a.random() == b.random()


def int_kinds(rng, lo, hi, n):
    """integers of int32, uint32 and uint64 and with endpoint=True, traced int64 bounds."""
    t = np.int64(0)
    u = np.uint64(0)
    k = 0
    while k < n:
        t ^= rng.integers(lo, hi, dtype=np.int32) + rng.integers(lo, hi, endpoint=True)
        u ^= rng.integers(hi, dtype=np.uint32, size=3).sum()
        u ^= rng.integers(lo, hi + 1, dtype=np.uint64, endpoint=True)
        t ^= rng.integers(lo, hi, size=(2,), dtype=np.int32)[1]
        k += 1
    last = rng.integers(hi, endpoint=True, size=2, dtype=np.uint32)
    return t, u, rng.integers(lo, hi, dtype=np.int32), last


@pytest.mark.parametrize("lo, hi", [(0, 1), (0, 5), (3, 2**31), (7, 100000)])
def test_integers_of_other_dtypes_and_endpoint(callbacks, lo, hi):  # noqa: F811
    # jitted here: the compiled code's trampoline keeps the callback it found at its first
    # call, so a function jitted at import would count into the first test's fixture
    j_int_kinds = jc.jit(int_kinds)
    for seed in range(3):
        a, b = _pair(seed)
        if seed % 2:
            a.integers(0, 5, dtype=np.int32)
            b.integers(0, 5, dtype=np.int32)
        want = int_kinds(a, lo, hi, 5)
        callbacks[0] = 0
        got = j_int_kinds(b, lo, hi, 5)
        assert callbacks[0] == 0
        for w, g in zip(want, got):
            assert type(g) is type(w)
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype
        _same_state(a, b)


@pytest.mark.parametrize("hi", [2**31 + 1, 0])
def test_integers_out_of_the_dtypes_bounds_raise_numpys_error(hi):
    def f(rng, hi, n):
        t = 0
        k = 0
        while k < n:
            t += rng.integers(0, hi, dtype=np.int32)
            k += 1
        return t

    with pytest.raises(ValueError) as want:
        f(np.random.default_rng(0), hi, 2)
    with pytest.raises(ValueError) as got:
        jc.jit(f)(np.random.default_rng(0), hi, 2)
    assert str(got.value) == str(want.value)
