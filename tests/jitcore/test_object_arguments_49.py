"""Objects of the user's own classes as arguments (``pytree``'s "object" node): a dataclass or
plain class instance passed to a jitted function, its arrays and numbers traced (read on every
call), its other attributes part of the signature; what the function assigns to its attributes
is what the caller's object holds after the call, as in Python; frozen dataclasses are read."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc


@dataclasses.dataclass
class Grid:
    u: np.ndarray
    dx: float
    name: str = "grid"
    t: float = 0.0
    n: int = 0


@dataclasses.dataclass(frozen=True)
class Params:
    k: float
    scheme: str


@dataclasses.dataclass
class Sim:
    grid: Grid
    params: Params


class Plain:
    def __init__(self, w, b):
        self.w, self.b = w, b
        self.calls = 0


def heat_step(g, dt):
    g.u = g.u + dt * (np.roll(g.u, 1) - 2 * g.u + np.roll(g.u, -1)) / g.dx ** 2
    g.t += dt
    g.n += 1
    return g.u.sum()


def decay(s, steps):
    g = s.grid
    for _ in range(steps):
        g.u = g.u * (1 - s.params.k)
        g.t += 1.0
    if s.params.scheme == "upwind":
        g.u[0] = 0.0
    return g.u.mean()


def poke(g):
    g.u[1] = 7.0  # in place: the caller's array itself
    return g.n


def dense(layer, x):
    layer.calls += 1
    return np.tanh(x @ layer.w + layer.b)


JITTED = {f: jc.jit(f) for f in (heat_step, decay, poke, dense)}


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if hasattr(a, "__dict__"):
        return type(a) is type(b) and vars(a).keys() == vars(b).keys() and all(
            _same(v, vars(b)[k]) for k, v in vars(a).items())
    return type(a) is type(b) and a == b


def _both(fn, make, *args, calls=2, exact=True):
    plain, jitted = make(), make()
    for _ in range(calls):
        want, got = fn(plain, *args), JITTED[fn](jitted, *args)
        if exact:
            assert _same(got, want)
        else:  # a matrix product: BLAS's order of the sums, not jitcore's
            np.testing.assert_allclose(got, want, rtol=1e-13)
        assert _same(jitted, plain)
    return plain, jitted


@given(n=st.integers(1, 30), dt=st.sampled_from([1e-4, 1e-3, 0.01]), t0=st.floats(-5, 5),
       n0=st.integers(-3, 3))
@settings(max_examples=15, deadline=None)
def test_attributes_assigned_reach_the_caller(n, dt, t0, n0):
    u = np.random.default_rng(n).standard_normal(n)
    _both(heat_step, lambda: Grid(u.copy(), 0.1, t=t0, n=n0), dt)


def test_nested_objects_frozen_parts_and_static_strings():
    for scheme in ("upwind", "central"):
        _both(decay, lambda scheme=scheme: Sim(Grid(np.ones(4), 0.5), Params(0.1, scheme)), 3)
    JITTED[decay](Sim(Grid(np.ones(4), 0.5), Params(0.2, "upwind")), 5)
    assert JITTED[decay].cache_info().traces <= 2  # one per scheme string: k and steps traced


def test_in_place_writes_keep_the_array_object():
    plain, jitted = _both(poke, lambda: Grid(np.zeros(3), 1.0, n=4))
    g = Grid(np.zeros(3), 1.0, n=4)
    u = g.u
    JITTED[poke](g)
    assert g.u is u and u[1] == 7.0


def test_plain_class_instance():
    rng = np.random.default_rng(0)
    w, b, x = rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal((5, 4))
    plain, jitted = _both(dense, lambda: Plain(w.copy(), b.copy()), x, calls=3, exact=False)
    assert jitted.calls == 3 and type(jitted.calls) is int


def test_objects_that_are_not_data_are_still_refused():
    class WithSlots:
        __slots__ = ("v",)

        def __init__(self):
            self.v = 1.0

    f = jc.jit(lambda x, o: x)
    with pytest.raises(jc.JitTypeError, match="not an array or number"):
        f(np.ones(2), WithSlots())
