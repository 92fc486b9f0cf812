"""Methods of objects the jitted function made that set the object's attributes (session 46):
in straight-line code, and inside traced branches and loops that call them as
``obj.method(...)`` (the statement carries the attributes the method sets, read from its
source: ``statements.method_sets``), against plain Python+NumPy: values and Python types."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError


class Walker:
    def __init__(self, n):
        self.v = np.zeros(n)
        self.k = 0

    def step(self, d):
        self.v += d
        self.k += 1


class Runner(Walker):
    def run(self, x, n):
        for i in range(n):
            if x[i] > 1:
                self.step(x)
            else:
                self.k -= 2
        return self.k

    def reset(self):
        self._clear()

    def _clear(self):
        self.k = 0
        self.v[...] = 0.0


def straight(x):
    p = Walker(x.shape[0])
    p.step(x)
    p.step(x)
    return p.v, p.k


def in_while(x):
    p = Walker(x.shape[0])
    i = 0
    while i < x.shape[0] and x[i] > 0:
        p.step(x)
        i += 1
    return p.v, p.k


def in_if(x):
    p = Walker(x.shape[0])
    if x[0] > 0:
        p.step(x)
    return p.v, p.k


def own_set_after_a_method(x):
    p = Walker(x.shape[0])
    p.step(x)
    if x[0] > 0:
        p.k = 7
    return p.v, p.k


def method_with_its_own_loop(x):
    q = Runner(x.shape[0])
    k = q.run(x, x.shape[0])
    return q.v, q.k, k


def loop_over_a_method_with_a_loop(x):
    q = Runner(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 2:
            q.run(x, 2)
        elif x[i] < -1:
            q.reset()
    return q.v, q.k


PROGRAMS = [straight, in_while, in_if, own_set_after_a_method, method_with_its_own_loop,
            loop_over_a_method_with_a_loop]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [np.arange(3.0), np.arange(1.0, 9.0), np.array([3.0, -2.0, 5.0, 0.5]),
                               np.array([-1.0, 4.0])], ids=["0to2", "1to8", "mixed", "negative-first"])
def test_methods_setting_attributes_match_python(program, x):
    want = program(x.copy())
    got = jc.jit(program)(x.copy())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w), (g, w)
        np.testing.assert_array_equal(g, w)


def advance(p, d):
    p.k = p.k + 1
    p.v = p.v + d


def test_a_helper_function_setting_attributes_in_a_traced_if_is_refused():
    """The statement sees only obj.method(...) calls: a plain function given the object is not
    carried, and it is refused (never a value kept from one trace)."""
    def f(x):
        p = Walker(x.shape[0])
        if x[0] > 0:
            advance(p, x)
        return p.k

    with pytest.raises(UnsupportedError, match="Walker"):
        jc.jit(f)(np.arange(1.0, 4.0))


class Counts:
    def __init__(self):
        self.h = np.zeros(4, dtype=np.int64)

    def add(self, i):
        self.h[i] += 1
        self.h[0] += 1


@pytest.mark.parametrize("n", [5, 9, 40])
def test_method_writing_an_array_attribute_in_place_in_a_loop(n):
    """self.h[i] += 1 in a method called in a compiled loop: the loop carries the attribute
    (the first write replaces the made object's NumPy array by a traced copy)."""
    def f(x):
        a = Counts()
        for i in range(x.shape[0]):
            a.add(x[i])
        return a.h

    x = np.arange(n) % 4
    np.testing.assert_array_equal(jc.jit(f)(x), f(x))


def test_class_defined_inside_the_function_with_a_stepping_method():
    def f(q0, p0, dt, n):
        class Osc:
            def __init__(self, q, p):
                self.q = q
                self.p = p

            def step(self, dt):
                self.p = self.p - dt * self.q
                self.q = self.q + dt * self.p

        o = Osc(q0, p0)
        for _ in range(n):
            o.step(dt)
        return o.q, o.p

    for n in (5, 500):
        want, got = f(1.0, 0.0, 0.01, n), jc.jit(f)(1.0, 0.0, 0.01, n)
        assert got == want and all(type(g) is float for g in got)
