"""Round 52 of the new users (actuarial science, /work/lead-out/t52/u3): random draws.

- S2: ``lognormal``, ``pareto``, ``weibull`` and the other samplers NumPy's C builds by a
  formula from a normal, an exponential, a gamma, a poisson or a uniform are drawn by the
  compiled code (``codegen/pcg64_derived.py``): NumPy's bits and the generator's state after
  the call, with no callback into NumPy.
- S1: ``S[s] += draw`` in a loop of drawn length, inside a loop over ``s``: the inner loop
  carries the outer loop's buffer (``codegen/host.py``, ``_Planner._dies_into``), where it
  copied the whole array in and out at every step of the outer loop.
- R1: a draw of a size computed in the function (``rng.lognormal(mu, s, n).sum()`` of a drawn
  ``n``) compiles where only reductions use it (``jitcore/drawn_runs.py``: a loop of single
  draws); any other use is refused with that loop to write, not "pass it static".
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.plan import Copy, ForLoop, WhileLoop
from jitcore.errors import UnsupportedError


def derived_draws(rng, n, p):
    """Each derived sampler once a step of a loop whose trip count is traced (drawn as the
    code runs), in one compile; weibull's a == 0 gives 0.0 and draws nothing."""
    out = np.zeros((n, 21))
    for i in range(n):
        out[i, 0] = rng.lognormal(p[0], p[1])
        out[i, 1] = rng.pareto(p[2])
        out[i, 2] = rng.weibull(p[2])
        out[i, 3] = rng.weibull(p[3])
        out[i, 4] = rng.power(p[2])
        out[i, 5] = rng.rayleigh(p[2])
        out[i, 6] = rng.standard_cauchy()
        out[i, 7] = rng.standard_t(p[2])
        out[i, 8] = rng.standard_t(p[4])
        out[i, 9] = rng.f(p[2], p[4])
        out[i, 10] = rng.wald(p[2], p[4])
        out[i, 11] = rng.triangular(p[2], p[2] + 0.5, p[2] + p[4])
        out[i, 12] = rng.negative_binomial(p[2], p[5])
        out[i, 13] = rng.negative_binomial(p[4] * 30, p[5] / 10)  # PTRS poissons
        out[i, 14] = rng.noncentral_chisquare(p[2], p[4])  # df > 1: a shifted normal
        out[i, 15] = rng.noncentral_chisquare(p[5], p[4])  # df <= 1: a poisson count
        out[i, 16] = rng.noncentral_chisquare(p[2], p[3])  # nonc == 0: a chi-square
        out[i, 17] = rng.noncentral_f(p[2], p[4], p[1])
        out[i, 18] = rng.logseries(p[5])
        out[i, 19] = rng.logseries(p[6])
        out[i, 20] = rng.zipf(p[2])
    return out


GOOD = np.array([0.3, 1.2, 1.7, 0.0, 4.5, 0.4, 0.999])


def test_derived_samplers_are_numpys_bits_drawn_natively():
    f = jc.jit(derived_draws)
    mine, numpys = np.random.default_rng(52), np.random.default_rng(52)
    got, want = f(mine, 500, GOOD), derived_draws(numpys, 500, GOOD)
    np.testing.assert_array_equal(got.view(np.int64), want.view(np.int64))
    assert mine.bit_generator.state == numpys.bit_generator.state
    text = f.lower(mine, 500, GOOD).as_text("optimized")
    assert text.count("native = ") == 21 and text.count("array.callback") == 21
    # a parameter NumPy refuses: its sampler is called back and raises NumPy's error, the
    # generator left where NumPy leaves it (row 0's lognormal drawn, pareto's check failed)
    bad = GOOD.copy()
    bad[2] = -1.0
    mine, numpys = np.random.default_rng(7), np.random.default_rng(7)
    with pytest.raises(ValueError, match="a <= 0"):
        derived_draws(numpys, 500, bad)
    with pytest.raises(ValueError, match="a <= 0"):
        f(mine, 500, bad)
    assert mine.bit_generator.state == numpys.bit_generator.state


def aggregate_in_element(rng, n_sims, lam, mu, sigma):
    S = np.zeros(n_sims)
    for s in range(n_sims):
        for _ in range(rng.poisson(lam)):
            S[s] += rng.lognormal(mu, sigma)
    return S


def aggregate_numpy_way(rng, n_sims, lam, mu, sigma):
    S = np.zeros(n_sims)
    for s in range(n_sims):
        S[s] = rng.lognormal(mu, sigma, rng.poisson(lam)).sum()
    return S


def _steps(body):
    for step in body:
        yield step
        if isinstance(step, (ForLoop, WhileLoop)):
            yield from _steps(step.body)


def test_element_add_in_a_drawn_loop_writes_the_outer_buffer_in_place():
    f = jc.jit(aggregate_in_element)
    args = (40, 3.0, 7.0, 1.2)
    mine, numpys = np.random.default_rng(3), np.random.default_rng(3)
    got = f(mine, *args)
    np.testing.assert_array_equal(got, aggregate_in_element(numpys, *args))
    assert mine.bit_generator.state == numpys.bit_generator.state
    # the error message's recipe: NumPy's size=n draws, the same state; sums within rounding
    other = np.random.default_rng(3)
    np.testing.assert_allclose(got, aggregate_numpy_way(other, *args), rtol=1e-14)
    assert other.bit_generator.state == mine.bit_generator.state
    # the zeros are copied out of their constant once; no loop copies the array in or out
    plan = f.lower(mine, *args).plan()
    copies = [s for s in _steps(plan.program) if isinstance(s, Copy)]
    assert [c.source.kind for c in copies] == ["constant"]
    loops = [s for s in plan.program if isinstance(s, ForLoop)]
    assert any(isinstance(s, ForLoop) for loop in loops for s in loop.body)


def carried_rebinding_of_a_live_value(x, rng):
    y = x * 2.0
    z = y
    for _ in range(rng.poisson(4.0)):
        z = z + rng.random()  # a new array a step: the loop carries z, y is still read after
    return y, z


def test_a_loop_init_read_after_the_loop_keeps_its_copy():
    x = np.arange(5.0)
    f = jc.jit(carried_rebinding_of_a_live_value)
    mine, numpys = np.random.default_rng(11), np.random.default_rng(11)
    for got, want in zip(f(x, mine), carried_rebinding_of_a_live_value(x, numpys)):
        np.testing.assert_array_equal(got, want)
    assert mine.bit_generator.state == numpys.bit_generator.state


def reduced_draws(rng, n_sims, lam, mu, sigma):
    S = np.zeros((n_sims, 5))
    for s in range(n_sims):
        n = rng.poisson(lam)
        S[s, 0] = rng.lognormal(mu, sigma, n).sum()
        S[s, 1] = rng.pareto(2.5, size=n + 1).mean()
        S[s, 2] = rng.exponential(scale=mu, size=n + 1).max()
        S[s, 3] = np.min(rng.normal(mu, sigma, n + 1))
        S[s, 4] = np.sum(rng.poisson(sigma, n))
    return S


def picks(w, n, rng):
    return rng.choice(3, size=n, p=w / w.sum())


def empty_max(rng, lam):
    return rng.lognormal(0.0, 1.0, rng.poisson(lam) * 0).max()


def test_reductions_of_a_drawn_size_compile_as_a_loop_of_draws():
    """NumPy's draws and state; a float sum or mean in draw order (NumPy adds pairwise past 8
    terms: within its forward error bound); max, min and integer sums exact."""
    mine, numpys = np.random.default_rng(4), np.random.default_rng(4)
    got, want = jc.jit(reduced_draws)(mine, 300, 3.0, 7.0, 1.2), reduced_draws(numpys, 300, 3.0, 7.0, 1.2)
    assert mine.bit_generator.state == numpys.bit_generator.state
    np.testing.assert_allclose(got[:, :2], want[:, :2], rtol=4e-16 * 16)
    np.testing.assert_array_equal(got[:, 2:], want[:, 2:])
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        jc.jit(empty_max)(np.random.default_rng(1), 2.0)
    # a count that is an int argument is made static on demand: the draw a real array
    mine, numpys = np.random.default_rng(5), np.random.default_rng(5)
    w = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jc.jit(picks)(w, 5, mine), picks(w, 5, numpys))
    assert mine.bit_generator.state == numpys.bit_generator.state


def scaled_then_summed(rng, lam):
    return (rng.lognormal(0.0, 1.0, rng.poisson(lam)) * 2.0).sum()


def test_a_drawn_size_is_refused_with_the_loop_recipe():
    """Used other than by a reduction: the loop of single draws to write instead."""
    with pytest.raises(UnsupportedError) as info:
        jc.jit(scaled_then_summed)(np.random.default_rng(1), 3.0)
    message = str(info.value)
    assert "for _ in range(n): total += rng.lognormal(...)" in message
    assert "static argument" not in message
