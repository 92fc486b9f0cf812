"""New users' reports (session 48), each differential against plain Python + NumPy.

1. Augmented assignment and comparisons on the user's classes: ``q *= r``, ``v += w``,
   ``a @= b`` (the class's ``__imul__``..., or Python's fallback to ``__mul__``), ``v == w``,
   ``v < w``, ``v != w`` (``object.__ne__`` asking ``__eq__``), reflected methods with an array
   or a number on the left (``autograph/operators.py``).
2. A Python int seed of 2**63 or more (``default_rng(2**64 - 1)``): passed on to the seed;
   compiled code using such an int refused clearly; negative seeds NumPy's ValueError.
3. A view of an argument returned by one path of a traced ``if`` (``x[1:] if t else x[:-1] * 2``,
   ``x.T``, ``w[::2]``): NumPy's view of the caller's array when that path ran
   (``aliasing.NumpyView``, ``dispatch.PickedView``).
4. A global's derived value (``L * 2``) under ``jit(f, autograph=False)`` and in a function
   made by ``exec``: computed from the call's ``L`` after ``L`` changed in place or was
   rebound, not frozen at the first call's (``jitcore/global_reads.py``).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError


def _same(got, want):
    """Equal values, dtypes and Python types, through tuples."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13)
    else:
        assert got == want or (got != got and want != want)


# -- 1. augmented assignment and comparisons ------------------------------------------------------
class Vec:
    def __init__(self, a):
        self.a = a

    def __add__(self, o):
        b = o.a if isinstance(o, Vec) else o
        if np.sum(b) < 0:  # a branch on the data: only converted code can trace it
            c = self.a - b
        else:
            c = self.a + b
        return Vec(c)

    def __radd__(self, o):
        if np.sum(o) > 0:
            c = self.a + o
        else:
            c = self.a - o
        return Vec(c)

    def __mul__(self, o):
        if isinstance(o, Vec):
            return Vec(self.a * o.a)
        return Vec(self.a * o)

    def __matmul__(self, o):
        d = np.dot(self.a, o.a)
        if d < 0:
            d = -d
        return Vec(d * self.a)

    def __eq__(self, o):
        if not isinstance(o, Vec):
            return NotImplemented
        d = np.abs(self.a - o.a).max()
        if d < 1e-9:
            return True
        return False

    def __lt__(self, o):
        if self.a.sum() < o.a.sum():
            return True
        return False


class InPlace(Vec):
    """In-place methods: the object itself changed and returned."""

    def __iadd__(self, o):
        if o.a[0] > 0:
            c = self.a + o.a
        else:
            c = self.a - o.a
        self.a = c
        return self

    def __imul__(self, o):
        return NotImplemented  # Python then falls back to __mul__


class Reflected:
    """NumPy hands ``array + r`` to ``r.__radd__`` with the whole array."""

    __array_ufunc__ = None

    def __init__(self, a):
        self.a = a

    def __radd__(self, o):
        if np.sum(o) > 0:
            c = self.a + o
        else:
            c = self.a - o
        return Reflected(c)

    def __gt__(self, o):
        if np.sum(o) < self.a.sum():
            return True
        return False


class Sub(Vec):
    """A subclass's reflected method runs first."""

    def __radd__(self, o):
        return Sub(self.a * 10)


def aug_fallback(x, y):
    v, w = Vec(x), Vec(y)
    u = v
    v += w  # no __iadd__: v = v + w, u keeps the old object
    v *= 2.0
    v @= w
    return v.a, u.a, v is u


def aug_own(x, y):
    v = InPlace(x)
    u = v
    v += InPlace(y)  # __iadd__: the same object, changed
    v *= InPlace(y)  # __imul__ NotImplemented: __mul__, a new object
    return v.a, u.a, v is u


def aug_places(x, y):
    vs = [Vec(x), Vec(y)]
    vs[0] += Vec(y)
    d = {"v": Vec(x)}
    d["v"] += Vec(x)
    box = Holder(Vec(y))
    box.v += Vec(x)
    return vs[0].a, d["v"].a, box.v.a


class Holder:
    def __init__(self, v):
        self.v = v


def aug_numbers(x, t):
    s = x.sum()  # a traced NumPy scalar: no in-place method, so s + v (v.__radd__)
    s += Vec(x)
    u = t  # a traced Python float
    u += Vec(x)
    return s.a, u.a


def comparisons(x, y):
    v, w = Vec(x), Vec(y)
    return v == w, v != w, v < w, w > v, v == v, v == 3, v != 3


def chained(x, y, z):
    return Vec(x) < Vec(y) < Vec(z)


def reflected(x, s):
    r = Reflected(np.ones(x.shape))
    return (x + r).a, (s + Vec(x)).a, x < r, x == r, x != r, (Vec(x) + Sub(x)).a


def array_in_place(x, y):
    x += y  # NumPy's in-place operator: the caller's array is written
    x *= 2
    return x


CASES = [
    (aug_fallback, (np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]))),
    (aug_fallback, (np.array([1.0, 2.0, 3.0]), np.array([-0.5, -1.0, 0.0]))),
    (aug_own, (np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]))),
    (aug_own, (np.array([1.0, 2.0, 3.0]), np.array([-0.5, -1.0, 2.0]))),
    (aug_places, (np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]))),
    (aug_places, (np.array([1.0, -2.0, -3.0]), np.array([-0.5, -1.0, 2.0]))),
    (aug_numbers, (np.array([1.0, 2.0, 3.0]), 2.0)),
    (aug_numbers, (np.array([-1.0, -2.0, 0.5]), -2.0)),
    (comparisons, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]))),
    (comparisons, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]))),
    (comparisons, (np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, -4.0]))),
    (chained, (np.array([1.0]), np.array([2.0]), np.array([3.0]))),
    (chained, (np.array([1.0]), np.array([3.0]), np.array([2.0]))),
    (chained, (np.array([4.0]), np.array([3.0]), np.array([5.0]))),
    (reflected, (np.array([1.0, 2.0]), 2.0)),
    (reflected, (np.array([-1.0, -2.0]), -2.0)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_user_in_place_operators_and_comparisons_are_pythons(fn, args):
    _same(jc.jit(fn)(*args), fn(*args))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=3, max_size=3),
       st.lists(st.floats(-10, 10), min_size=3, max_size=3))
def test_in_place_and_comparisons_at_any_data(a, b):
    x, y = np.array(a), np.array(b)
    for fn in (aug_fallback, aug_own, comparisons):
        _same(jc.jit(fn)(x.copy(), y.copy()), fn(x.copy(), y.copy()))


def test_an_arrays_in_place_operator_still_writes_the_callers_array():
    x, y = np.arange(3.0), np.array([1.0, -1.0, 0.5])
    want_x = x.copy()
    want = array_in_place(want_x, y)
    got = jc.jit(array_in_place)(x, y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, want_x)


class Opaque:
    """No __array_ufunc__ = None: NumPy makes an array of objects of ``array + o``."""

    def __init__(self, a):
        self.a = a

    def __radd__(self, o):
        return Opaque(self.a + o)


def test_an_array_of_objects_is_refused_saying_how_to_hand_the_array_over():
    def f(x):
        return x + Opaque(1.0)

    assert f(np.ones(2)).dtype == object  # NumPy: Opaque.__radd__ of each element
    with pytest.raises(JitcoreError, match="__array_ufunc__ = None"):
        jc.jit(f)(np.ones(2))


class Unordered:
    def __init__(self, a):
        self.a = a


def test_a_comparison_neither_class_defines_raises_pythons_type_error():
    def f(x):
        return Unordered(x) < Unordered(x)

    with pytest.raises(TypeError, match="not supported between"):
        f(np.ones(2))
    with pytest.raises(TypeError, match="not supported between"):
        jc.jit(f)(np.ones(2))


# -- 2. a seed of 2**63 or more -------------------------------------------------------------------
def seeded(x, seed):
    rng = np.random.default_rng(seed)
    return x + rng.standard_normal(x.shape)


def seeded_list(x, seed):
    rng = np.random.default_rng([seed, 7])
    return rng.integers(0, 100, x.shape)


def printed_seed(x, seed):
    print("seed", seed)
    return x * 2


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001  (the error is the result compared)
        return e


@settings(max_examples=20, deadline=None)
@given(st.one_of(st.integers(2 ** 63, 2 ** 64 - 1), st.integers(-(2 ** 63), 2 ** 64 - 1),
                 st.sampled_from([0, -1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1])))
def test_a_seed_past_int64_seeds_as_numpy_does(seed):
    x = np.zeros(3)
    for fn in (seeded, seeded_list):
        want, got = _outcome(fn, x, seed), _outcome(jc.jit(fn), x, seed)
        if isinstance(want, Exception):  # a negative seed: NumPy's ValueError
            assert type(got) is type(want) and str(got) == str(want)
        else:
            _same(got, want)


def test_one_compiled_variant_serves_every_big_seed():
    f = jc.jit(seeded)
    x = np.zeros(2)
    for seed in (5, 2 ** 64 - 1, 2 ** 63 + 5, 7, 2 ** 64 - 1):
        _same(f(x, seed), seeded(x, seed))


def test_a_big_int_printed_prints_pythons_text(capfd):
    x = np.ones(2)
    want = printed_seed(x, 2 ** 64 - 1)
    text = capfd.readouterr().out
    _same(jc.jit(printed_seed)(x, 2 ** 64 - 1), want)
    assert capfd.readouterr().out == text


def test_a_big_int_that_compiled_code_would_use_is_refused_clearly():
    def scaled(x, n):
        return x * n

    x = np.ones(2, np.int64)
    with pytest.raises(OverflowError):  # NumPy: n does not fit x's int64
        scaled(x, 2 ** 64 - 1)
    with pytest.raises(JitcoreError, match="2\\*\\*63 or more.*static_argnames"):
        jc.jit(scaled)(x, 2 ** 64 - 1)
    with pytest.raises(JitcoreError, match="out of bounds for int64 .and for uint64"):
        jc.jit(seeded)(np.zeros(2), 2 ** 64)
    f = np.ones(2)  # as advised: static, or np.uint64
    _same(jc.jit(scaled, static_argnames="n")(f, 2 ** 64 - 1), scaled(f, 2 ** 64 - 1))
    _same(jc.jit(scaled)(f, np.uint64(2 ** 64 - 1)), scaled(f, np.uint64(2 ** 64 - 1)))


# -- 3. a view of an argument returned by one path of a traced if ---------------------------------
def sliced_or_computed(x):
    return x[1:] if x[0] > 0 else x[:-1] * 2


def transposed_or_computed(a):
    return a.T if a[0, 0] > 0 else a * 2


def statement_views(x, w):
    if x[0] > 0:
        y = x[::2]
    else:
        y = w[1:].reshape(2, 2)[0]
    return y


def two_views(x, w):
    return x[1:] if x[0] > 0 else w[:-1]


def _shares(result, args):
    return [np.shares_memory(result, a) for a in args if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("fn, make", [
    (sliced_or_computed, lambda v: (np.array([v, 2.0, 3.0, 4.0]),)),
    (transposed_or_computed, lambda v: (np.array([[v, 2.0], [3.0, 4.0]]),)),
    (statement_views, lambda v: (np.array([v, 2.0, 3.0, 4.0]), np.arange(5.0))),
    (two_views, lambda v: (np.array([v, 2.0, 3.0]), np.array([5.0, 6.0, 7.0]))),
], ids=lambda v: getattr(v, "__name__", None))
@pytest.mark.parametrize("v", [1.0, -1.0])
def test_a_view_returned_by_one_path_is_numpys_view(fn, make, v):
    jf = jc.jit(fn)
    for _ in range(2):  # the first call and a cached one
        want_args, got_args = make(v), make(v)
        want, got = fn(*want_args), jf(*got_args)
        _same(got, want)
        assert _shares(got, got_args) == _shares(want, want_args)
        assert got.flags.writeable == want.flags.writeable
        got[...] = 9.0  # a write through the result reaches the caller's array where NumPy's does
        want[...] = 9.0
        for g, w in zip(got_args, want_args):
            np.testing.assert_array_equal(g, w)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=4, max_size=4))
def test_a_view_or_a_value_as_the_data_picks(values):
    x = np.array(values)
    for fn in (sliced_or_computed, two_views):
        args = (x.copy(),) if fn is sliced_or_computed else (x.copy(), x[::-1].copy())
        want, got = fn(*(a.copy() for a in args)), jc.jit(fn)(*args)
        _same(got, want)
        assert any(_shares(got, args)) == (fn is two_views or values[0] > 0)



def nested_argument(x, t):
    if x[0] > 0:
        if t > 1:
            y = x
        else:
            y = x * 3
    else:
        y = x + 1
    return y


def nested_view(x, t):
    if x[0] > 0:
        y = x[1:] if t > 1 else x[:-1] * 3
    else:
        y = x[:-1] + 1
    return y


def nested_both(x, t):
    if x[0] > 0:
        if t > 1:
            y = x
        else:
            y = x * 3
    else:
        y = x
    return y


def three_levels(x, t, u):
    if x[0] > 0:
        if t > 1:
            if u > 1:
                y = x
            else:
                y = x - 1
        else:
            y = x * 3
    else:
        y = x + 1
    return y


@pytest.mark.parametrize("fn", [nested_argument, nested_view, nested_both, three_levels])
@pytest.mark.parametrize("v, t", [(1.0, 2.0), (1.0, 0.0), (-1.0, 2.0), (-1.0, 0.0)])
def test_an_argument_picked_by_an_inner_if_is_the_callers(fn, v, t):
    jf = jc.jit(fn)
    extra = (t, t) if fn is three_levels else (t,)
    for _ in range(2):
        want_x, got_x = np.array([v, 2.0, 3.0]), np.array([v, 2.0, 3.0])
        want, got = fn(want_x, *extra), jf(got_x, *extra)
        _same(got, want)
        assert np.shares_memory(got, got_x) == np.shares_memory(want, want_x)
        assert (got is got_x) == (want is want_x)
        got[...] = 9.0
        want[...] = 9.0
        np.testing.assert_array_equal(got_x, want_x)


def test_sides_of_two_shapes_are_refused_saying_so():
    def f(x):
        return x[1:] if x[0] > 0 else x * 2  # NumPy: n - 1 or n elements, by the data

    assert f(np.array([1.0, 2.0, 3.0])).shape == (2,)
    with pytest.raises(jc.JitValueError, match="shape .2,. on one side and .3,. on the other"):
        jc.jit(f)(np.array([1.0, 2.0, 3.0]))

# -- 4. derived globals of functions traced as they are -------------------------------------------
L48 = np.array([1.0, 2.0, 3.0])
BIG48 = np.arange(600.0)


def _helper48(x):
    return x + BIG48 * 2


def derived_and_direct(x):
    return x + (L48 * 2) + L48


def derived_large(x):
    return _helper48(x) - np.sqrt(BIG48)


def _closure48():
    W = np.arange(600.0)

    def f(x):
        return x + W * 2 + W[::-1] * 0

    return f, W


_EXEC_SOURCE = """
def made_by_exec(x):
    return x + (L * 2) + L
"""


def _changes(fn, jf, x, holder, name):
    """NumPy's and jitcore's results as the array ``holder[name]`` is changed in place, then
    rebound."""
    out = []
    for step in range(3):
        out.append((jf(x.copy()), fn(x.copy())))
        if step == 0:
            holder[name][0] += 100.0
        else:
            holder[name] = holder[name] * 3.0
    return out


@pytest.mark.parametrize("fn, name", [(derived_and_direct, "L48"), (derived_large, "BIG48")],
                         ids=["small", "large-through-a-helper"])
def test_a_derived_global_under_autograph_false_is_the_calls(fn, name):
    saved = globals()[name]
    try:
        x = np.zeros(saved.shape)
        for got, want in _changes(fn, jc.jit(fn, autograph=False), x, globals(), name):
            _same(got, want)
    finally:
        globals()[name] = saved


def test_a_derived_closed_over_array_under_autograph_false_is_the_calls():
    f, W = _closure48()
    jf = jc.jit(f, autograph=False)
    x = np.zeros(600)
    _same(jf(x), f(x))
    W[0] += 50.0
    _same(jf(x), f(x))


def test_a_derived_global_of_a_function_made_by_exec_is_the_calls():
    namespace = {"np": np, "L": np.array([1.0, 2.0, 3.0])}
    exec(_EXEC_SOURCE, namespace)  # noqa: S102  (a function whose source Python cannot give)
    fn = namespace["made_by_exec"]
    for got, want in _changes(fn, jc.jit(fn), np.zeros(3), namespace, "L"):
        _same(got, want)
