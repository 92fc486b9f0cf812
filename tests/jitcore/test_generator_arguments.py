"""A random generator passed as an argument (``f(rng, ...)``, NumPy's advice for threading
randomness through code): each call draws from the generator it passes, with NumPy's own
sampler, advancing it as NumPy would, and one compiled variant serves every generator of a
class (jitcore.generator_arguments)."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc


def monte_carlo(rng, x, n):
    u = rng.random((n, 2))
    inside = np.sum(u * u, axis=1) <= 1.0
    return 4.0 * inside.mean(), x + rng.normal(1.0, 2.0, size=x.shape), rng.integers(0, 10, 4)


def noisy_walk(rng, x, steps):
    for _ in range(steps):
        x = x + rng.standard_normal(x.shape)
    return x


MONTE_CARLO = jc.jit(monte_carlo, static_argnames="n")
NOISY_WALK = jc.jit(noisy_walk, static_argnames="steps")


def _same_state(a, b) -> bool:
    """Whether two generators are at the same point: their next numbers agree."""
    return np.array_equal(a.random(4), b.random(4))


def _check(jitted, fn, make, args, calls=3):
    for seed in range(calls):
        mine, numpys = make(seed), make(seed)
        for _ in range(2):  # the second call draws on from where the first left the generator
            got, want = jitted(mine, *args), fn(numpys, *args)
            got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w, strict=True)
        assert _same_state(mine, numpys)


@pytest.mark.parametrize("make", [np.random.default_rng, lambda s: np.random.Generator(np.random.MT19937(s))],
                         ids=["default_rng", "Generator(MT19937)"])
def test_generator_argument_draws_numpys_numbers_from_each_calls_generator(make):
    _check(MONTE_CARLO, monte_carlo, make, (np.arange(3.0), 50))
    _check(NOISY_WALK, noisy_walk, make, (np.zeros(2), 4))


def test_one_compile_serves_every_generator_passed_by_position_or_name():
    walk = jc.jit(noisy_walk, static_argnames="steps")
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    np.testing.assert_array_equal(walk(a, np.zeros(3), 2), noisy_walk(b, np.zeros(3), 2))
    np.testing.assert_array_equal(walk(x=np.zeros(3), rng=np.random.default_rng(8), steps=2),
                                  noisy_walk(np.random.default_rng(8), np.zeros(3), 2))
    assert len(walk._cache) == 1


def test_random_state_argument():
    legacy = jc.jit(lambda rs, x: x + rs.standard_normal(x.shape) + rs.rand())
    _check(legacy, lambda rs, x: x + rs.standard_normal(x.shape) + rs.rand(), np.random.RandomState,
           (np.ones(3),))


def test_generator_passed_on_to_a_jitted_function_draws_from_the_callers():
    inner = jc.jit(lambda rng, n: rng.standard_normal(n), static_argnums=1)
    outer = jc.jit(lambda rng, x: x + 2 * inner(rng, 3))
    _check(outer, lambda rng, x: x + 2 * rng.standard_normal(3), np.random.default_rng, (np.ones(3),))


def _draw_in_a_library(rng):
    return rng.random(3)


def test_draws_jitcore_did_not_see_are_refused():
    """Without autograph the draw is not made a call-time input: it would be frozen."""
    frozen = jc.jit(lambda rng, x: x + _draw_in_a_library(rng), autograph=False)
    with pytest.raises(jc.UnsupportedError, match="Generator drew numbers that jitcore did not see"):
        frozen(np.random.default_rng(0), np.ones(3))


def test_generator_inside_a_container_is_refused_with_advice():
    boxed = jc.jit(lambda t: t[1] + t[0].random())
    with pytest.raises(jc.JitTypeError, match="pass the generator as an argument of its own"):
        boxed((np.random.default_rng(0), 1.0))


def test_make_ir_of_a_function_drawing_from_a_generator_argument():
    """The traced module: the draw is a hidden argument after the real ones."""
    text = str(jc.make_ir(lambda rng, x: x + rng.random(3))(np.random.default_rng(0), np.ones(3)))
    assert "tensor<3xf64>, %arg1: tensor<3xf64>" in text.replace("\n", " ")
