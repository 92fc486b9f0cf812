"""Composition (issue 12, item 4): a jitted function called while another is traced is inlined;
partials, callable objects, bound methods and ``@jit`` on methods work; ``static_argnums`` and
``static_argnames`` are checked when ``jit`` is called. NumPy on the same inputs is the oracle."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import StaticArgumentError
from tests.budget import examples
from tests.oracle import assert_matches

A = np.linspace(-2.0, 3.0, 7)


def compiles(f) -> int:
    return f.cache_info().compiles


# -- a jitted function called inside another ----------------------------------------------------

def test_jitted_function_called_with_tracers_is_inlined():
    # The issue's own code: it raised JitTypeError ("argument x is a Tracer").
    g = jc.jit(lambda x: x * 2)
    h = jc.jit(lambda x: g(x) + 1)
    assert_matches(h(A), A * 2 + 1)
    assert compiles(g) == 0  # inlined: g never compiled a function of its own
    text = str(jc.make_ir(h)(A))
    assert "array.mul" in text and "array.add" in text


@given(st.sampled_from([np.float32, np.float64, np.int32]), st.integers(0, 6))
@settings(max_examples=examples(6), deadline=None)
def test_inlined_helper_matches_numpy(dtype, n):
    inner = jc.jit(lambda x, y: x * y - y)
    outer = jc.jit(lambda x, y: inner(x, y).sum() + inner(y, x))
    x = np.arange(n, dtype=dtype)
    y = (np.arange(n, dtype=dtype) % 3).astype(dtype)
    assert_matches(outer(x, y), (x * y - y).sum() + (y * x - x))


def test_inlined_from_a_function_without_autograph():
    g = jc.jit(lambda x: np.sin(x) * 3)
    h = jc.jit(lambda x: g(x) - x, autograph=False)
    assert_matches(h(A), np.sin(A) * 3 - A)


def test_concrete_arguments_inside_a_trace_are_inlined_too():
    table = np.array([1.0, 10.0, 100.0])
    g = jc.jit(lambda t: t.sum())
    h = jc.jit(lambda x: x + g(table))
    assert_matches(h(A), A + 111.0)
    assert compiles(g) == 0


def test_inlined_callee_writing_its_argument():
    @jc.jit
    def bump(u):
        u[0] += 1.0
        return u.sum()

    # A traced argument: the write reaches the caller's variable, and the caller's array.
    outer = jc.jit(lambda x: bump(x) + x[0])
    x, ref = A.copy(), A.copy()
    assert_matches(outer(x), bump.fun(ref) + ref[0])  # NumPy: the same code on a copy
    assert_matches(x, ref)
    # A NumPy array the caller closes over is an input where it is read (session 47): the
    # callee's write reaches it at each call, as NumPy's does.
    table, ref = A.copy(), A.copy()
    writes_table = jc.jit(lambda x: x + bump(table))
    for _ in range(2):
        assert_matches(writes_table(A), A + bump.fun(ref))
        assert_matches(table, ref)


def test_inlined_callee_keeps_its_static_arguments():
    @jc.jit(static_argnames=("n",))
    def repeat_square(x, n):
        for _ in range(n):  # a Python int: unrolled
            x = x * x
        return x

    h = jc.jit(lambda x: repeat_square(x, n=2) + repeat_square(x, 1))
    assert_matches(h(A), (A * A) * (A * A) + A * A)

    traced_n = jc.jit(lambda x, k: repeat_square(x, n=k))
    assert_matches(traced_n(A, 2), (A * A) * (A * A))  # the caller's k static on demand
    jc.config.auto_static = False
    try:
        with pytest.raises(jc.JitTypeError, match=r"repeat_square\(\): static argument n got a traced value"):
            jc.jit(lambda x, k: repeat_square(x, n=k))(A, 2)
    finally:
        jc.config.auto_static = True
    unhashable = jc.jit(lambda x: repeat_square(x, n={"n": 2}))
    with pytest.raises(jc.JitTypeError, match="static arguments must be hashable, got n=dict"):
        unhashable(A)


def test_inlined_callee_with_wrong_arguments_names_it():
    g = jc.jit(lambda x, y: x + y)
    h = jc.jit(lambda x: g(x))
    with pytest.raises(jc.JitTypeError, match=r"<lambda>\(\): missing a required argument: 'y'"):
        h(A)


def test_inlined_callee_uses_its_own_autograph_setting():
    def sign_fix(x):
        if x.sum() > 0:  # data-dependent: only a converted function compiles it
            return x
        return -x

    converted = jc.jit(sign_fix)
    outer = jc.jit(lambda x: converted(x) * 2, autograph=False)
    for x in (A, -A - 5):
        assert_matches(outer(x), sign_fix(x) * 2)

    plain = jc.jit(sign_fix, autograph=False)
    outer_converted = jc.jit(lambda x: plain(x) * 2)
    with pytest.raises(jc.ConcretizationError):
        outer_converted(A)


def test_jitted_callee_in_a_compiled_loop_body():
    step = jc.jit(lambda u: 0.5 * (u + np.roll(u, 1)))

    @jc.jit
    def smooth(u, steps):
        for _ in range(steps):  # traced bound: one compiled loop, step inlined in its body
            u = step(u)
        return u

    expected = A.copy()
    for _ in range(5):
        expected = 0.5 * (expected + np.roll(expected, 1))
    assert_matches(smooth(A, 5), expected)
    assert "scf.for" in str(jc.make_ir(smooth)(A, 5))


def test_recursion_on_a_static_argument_terminates():
    @jc.jit(static_argnums=1)
    def poly(x, k):
        return 1.0 if k == 0 else 1.0 + x * poly(x, k - 1)

    assert_matches(poly(A, 3), 1 + A * (1 + A * (1 + A)))


# -- what jit accepts as a function --------------------------------------------------------------

def affine(scale, x, shift=0.0):
    return x * scale + shift


def test_partial():
    f = jc.jit(functools.partial(affine, 3.0))
    assert_matches(f(A), A * 3.0)
    assert_matches(f(A, shift=1.5), A * 3.0 + 1.5)
    assert f.__name__ == "affine" and f.__module__ == __name__
    # Positions count the partial's remaining parameters: x is 0, shift is 1.
    g = jc.jit(functools.partial(affine, 2.0), static_argnums=1)
    assert_matches(g(A, 4), A * 2.0 + 4)
    # A string becomes static on demand; used as a number it fails as Python fails, noted.
    with pytest.raises(TypeError) as info:
        f("no")
    assert "affine(): argument x is a str" in "\n".join(info.value.__notes__)


class Clip:
    """A callable object whose __call__ has data-dependent control flow."""

    def __init__(self, limit):
        self.limit = limit

    def __call__(self, x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            if x[i] > self.limit:
                out[i] = self.limit
            else:
                out[i] = x[i]
        return out


def test_callable_object():
    f = jc.jit(Clip(1.0))
    assert_matches(f(A), np.minimum(A, 1.0))
    assert f.__name__ == "Clip"
    with pytest.raises(AttributeError, match="'str' object has no attribute 'shape'") as info:
        f("no")  # static on demand, as Python fails without jit
    assert "Clip(): argument x is a str" in "\n".join(info.value.__notes__)


def test_bound_method():
    clip = Clip(0.5)
    f = jc.jit(clip.__call__)
    assert_matches(f(A), np.minimum(A, 0.5))


class Scaler:
    def __init__(self, scale, offset=None):
        self.scale = scale
        self.offset = np.zeros(len(A)) if offset is None else offset

    @jc.jit
    def apply(self, x):
        return x * self.scale + self.offset

    @jc.jit(static_argnames=("power",))
    def apply_power(self, x, power):
        return (x * self.scale) ** power

    @jc.jit
    def twice(self, x):
        return self.apply(self.apply(x))  # a jitted method of the stand-in: inlined

    @jc.jit
    def shift_offset(self, by):
        self.offset += by  # a write into the instance's array reaches it

    @jc.jit
    @staticmethod
    def shifted(x):
        return x + 1.0

    @jc.jit
    @classmethod
    def tagged(cls, x):
        return x + cls.TAG

    TAG = 7.0


def test_jit_on_a_method():
    two, three = Scaler(2.0), Scaler(3.0)
    start = np.array(two.apply.cache_info())
    assert_matches(two.apply(A), A * 2.0)
    assert_matches(three.apply(A), A * 3.0)
    assert_matches(two.apply(A), A * 2.0)
    assert_matches(two.apply_power(A, power=3), (A * 2.0) ** 3)
    assert_matches(two.twice(A), A * 4.0)
    # One cache for the method, shared by all instances: each static state compiles once.
    assert two.apply.cache_info() == three.apply.cache_info()
    assert tuple(np.array(two.apply.cache_info()) - start) == (1, 2, 2, 2)  # hits, misses, ...
    assert_matches(Scaler(2.0).apply(A), A * 2.0)  # an equal instance: no compile
    assert tuple(np.array(two.apply.cache_info()) - start) == (2, 2, 2, 2)


def test_an_instances_arrays_are_read_at_every_call():
    s = Scaler(1.0)
    assert_matches(s.apply(A), A)
    compiled = s.apply.cache_info().compiles
    s.offset[:] = 5.0  # in place
    assert_matches(s.apply(A), A + 5.0)
    s.offset = np.arange(len(A), dtype=np.float64)  # rebound
    assert_matches(s.apply(A), A + np.arange(len(A)))
    s.scale = 4.0  # a static attribute: a new signature
    assert_matches(s.apply(A), A * 4.0 + np.arange(len(A)))
    assert s.apply.cache_info().compiles == compiled + 1
    offset = s.offset
    s.shift_offset(1.5)
    assert s.offset is offset
    assert_matches(s.offset, np.arange(len(A)) + 1.5)


def test_a_methods_control_flow_is_converted_and_its_errors_name_its_line():
    class Sign:
        def __init__(self, limit):
            self.limit = limit

        @jc.jit
        def fix(self, x):
            if x.sum() > self.limit:  # data-dependent: a compiled branch
                return x
            return -x

        @jc.jit
        def bad(self, x):
            return x + np.ones(len(x) + 1)

    s = Sign(0.0)
    assert_matches(s.fix(A), A)
    assert_matches(s.fix(-A - 5.0), A + 5.0)
    with pytest.raises(jc.JitTypeError, match=r"test_compose.py:\d+.*\n.*return x \+ np.ones"):
        s.bad(A)


def test_a_method_rebinding_an_attribute():
    class Counter:
        def __init__(self):
            self.calls = 0
            self.label = "a"

        @jc.jit
        def step(self, x):
            self.calls += 1  # a number: traced, assigned after each call
            return x

        @jc.jit
        def rename(self, x):
            self.label = "b"  # a string: a compiled call could not repeat it
            return x

    c = Counter()
    for k in range(1, 4):
        assert_matches(c.step(A), A)
        assert c.calls == k and type(c.calls) is int
    with pytest.raises(jc.UnsupportedError, match=r"rename\(\) assigns self.label: a jitted method"):
        c.rename(A)


def test_unhashable_instances_and_attributes():
    @dataclasses.dataclass
    class Params:  # eq=True without frozen: no __hash__
        scale: float
        weights: list

        @jc.jit
        def apply(self, x):
            return x * self.scale + self.weights[0] * self.weights[1]

    p = Params(2.0, [np.ones(len(A)), np.full(len(A), 3.0)])  # a list of arrays: arguments
    assert_matches(p.apply(A), A * 2.0 + 3.0)
    p.weights[1][:] = 4.0
    assert_matches(p.apply(A), A * 2.0 + 4.0)


def test_self_static_by_request_and_for_slotted_classes():
    class Slotted:
        __slots__ = ("scale",)

        def __init__(self, scale):
            self.scale = scale

        @jc.jit
        def apply(self, x):
            return x * self.scale

    class Hashed:
        def __init__(self, scale):
            self.scale = scale

        def __eq__(self, other):
            return self.scale == other.scale

        def __hash__(self):
            return hash(self.scale)

        @jc.jit(static_argnums=0)
        def apply(self, x):
            return x * self.scale

    assert_matches(Slotted(3.0).apply(A), A * 3.0)
    assert_matches(Hashed(3.0).apply(A), A * 3.0)
    assert_matches(Hashed(3.0).apply(A), A * 3.0)
    assert Hashed(5.0).apply.cache_info().compiles == 1  # compared by its own ==


def test_jit_on_static_and_class_methods():
    assert_matches(Scaler.shifted(A), A + 1.0)
    assert_matches(Scaler(1.0).shifted(A), A + 1.0)
    assert_matches(Scaler.tagged(A), A + 7.0)
    assert_matches(Scaler(1.0).tagged(A), A + 7.0)


def test_method_called_inside_another_jitted_function():
    s = Scaler(4.0)
    f = jc.jit(lambda x: s.apply(x) + Scaler.shifted(x))
    assert_matches(f(A), A * 4.0 + A + 1.0)


# -- static_argnums / static_argnames checked at jit() -----------------------------------------

def two_args(x, n):
    return x * n


@pytest.mark.parametrize("kwargs, message", [
    ({"static_argnums": (3,)}, r"static_argnums entry 3 is out of range: <lambda>\(\) takes 1 positional"),
    ({"static_argnums": -2}, r"static_argnums entry -2 does not count back"),
    ({"static_argnames": ("zz",)}, r"static_argnames entry 'zz' is not a parameter of <lambda>\(\)"),
    ({"static_argnums": ("x",)}, r"static_argnums entries must be ints, got 'x'"),
    ({"static_argnames": (0,)}, r"static_argnames entries must be strings, got 0"),
])
def test_bad_static_arguments_are_refused_at_jit(kwargs, message):
    with pytest.raises(StaticArgumentError, match=message) as err:
        jc.jit(lambda x: x, **kwargs)
    assert isinstance(err.value, ValueError) and isinstance(err.value, jc.JitcoreError)


def test_bad_static_arguments_refused_as_decorator_too():
    with pytest.raises(ValueError, match="'m'"):
        @jc.jit(static_argnames=("m",))
        def f(x, n):
            return x


def test_negative_static_argnums_count_from_the_end():
    f = jc.jit(two_args, static_argnums=-1)
    assert f._static_nums == {1} and f._static_names == {"n"}
    assert_matches(f(A, 3), A * 3)
    assert_matches(f(A, n=3), A * 3)


def test_star_args_and_kwargs_accept_any_entry():
    f = jc.jit(lambda *xs, **kw: sum(xs) * kw.get("k", 1), static_argnums=(2,), static_argnames=("k",))
    assert_matches(f(A, A, 2, k=3), (A + A + 2) * 3)
    with pytest.raises(StaticArgumentError, match="and \\*args"):
        jc.jit(lambda *xs: xs[0], static_argnums=-1)


def test_positional_only_parameter_cannot_be_static_by_name():
    def f(x, n, /):
        return x * n

    with pytest.raises(StaticArgumentError, match="positional-only; use static_argnums"):
        jc.jit(f, static_argnames=("n",))
    assert_matches(jc.jit(f, static_argnums=1)(A, 2), A * 2)
