"""A jitted method that rebinds its instance's arrays and numbers (``self.u = ...``,
``self.t += dt``, ``self.n += 1``, a flag set under a traced ``if``): after each call the
instance holds what the plain method leaves, with Python's types, over many calls and one
compile per layout; other rebindings are refused clearly (``methods.MethodBody``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


class Heat:
    def __init__(self, u, dx=0.1):
        self.u = u.copy()
        self.dx = dx  # read only: static
        self.t = 0.0
        self.steps = 0
        self.blew_up = False

    def step(self, dt):
        lap = np.roll(self.u, 1) - 2 * self.u + np.roll(self.u, -1)
        self.u = self.u + dt * lap / self.dx ** 2
        self.t += dt
        self.steps += 1
        if np.abs(self.u).max() > 1e3:
            self.blew_up = True
        return float(self.u.sum())

    def energy(self):
        return (self.u ** 2).sum()


class JitHeat(Heat):
    step = jc.jit(Heat.step)
    energy = jc.jit(Heat.energy)


def _state(h):
    return h.u, h.t, h.steps, h.blew_up


def _same_state(got, want):
    np.testing.assert_array_equal(got[0], want[0])
    assert got[0].dtype == want[0].dtype
    for g, w in zip(got[1:], want[1:]):
        assert g == w and type(g) is type(w)


@given(n=st.integers(1, 40), dts=st.lists(st.sampled_from([1e-4, 2e-3, 0.004, 0.2]), min_size=1, max_size=6),
       seed=st.integers(0, 3))
@settings(max_examples=15, deadline=None)
def test_state_after_each_call_is_the_plain_methods(n, dts, seed):
    u = np.random.default_rng(seed).standard_normal(n)
    plain, jitted = Heat(u), JitHeat(u)
    for dt in dts:
        want, got = plain.step(dt), jitted.step(dt)
        assert got == want and type(got) is type(want)
        _same_state(_state(jitted), _state(plain))
        assert jitted.energy() == plain.energy()


def test_one_compile_for_every_value_of_the_numbers():
    h = JitHeat(np.linspace(0, 1, 16))
    for dt in (1e-3, 2e-3, 3e-3):
        h.step(dt)
    h.steps = 10  # set from outside between calls: read on the next
    h.step(1e-3)
    assert h.steps == 11
    assert JitHeat.step.cache_info()[1] <= 2  # at most the float and the int-typed first t


class Particles:
    def __init__(self, x):
        self.x = x
        self.v = np.zeros_like(x)
        self.history = np.zeros(0)

    def kick(self, f, dt):
        self.v += f * dt  # in place: the array itself
        self.x = self.x + self.v * dt
        return self.x.mean()

    def grow(self, value):
        self.history = np.append(self.history, value)  # another shape each call
        return self.history.size


class JitParticles(Particles):
    kick = jc.jit(Particles.kick)
    grow = jc.jit(Particles.grow)


def test_in_place_writes_and_rebinding_together():
    x = np.arange(6.0)
    plain, jitted = Particles(x.copy()), JitParticles(x.copy())
    v_before = jitted.v
    for f in (1.0, -0.5, 2.0):
        assert jitted.kick(f, 0.1) == plain.kick(f, 0.1)
        np.testing.assert_array_equal(jitted.x, plain.x)
        np.testing.assert_array_equal(jitted.v, plain.v)
    assert jitted.v is v_before  # written in place, as NumPy's +=
    for k in range(3):
        assert jitted.grow(float(k)) == plain.grow(float(k))
        np.testing.assert_array_equal(jitted.history, plain.history)


def test_other_rebindings_are_refused():
    class Named:
        def __init__(self):
            self.u = np.ones(3)
            self.name = "a"

        @jc.jit
        def rename(self):
            self.name = "b"
            return self.u

        @jc.jit
        def add(self):
            self.extra = self.u + 1
            return self.u

        @jc.jit
        def to_list(self):
            self.u = [1, 2]
            return 0

    obj = Named()
    for method, attr in ((obj.rename, "name"), (obj.add, "extra"), (obj.to_list, "u")):
        with pytest.raises(jc.UnsupportedError, match=rf"assigns self\.{attr}: a jitted method"):
            method()
    assert obj.name == "a" and not hasattr(obj, "extra") and isinstance(obj.u, np.ndarray)
