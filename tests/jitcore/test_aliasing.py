"""Which results share memory, under jit as in NumPy: a copy is a new array even when the
compiled function computes it as its operand (``a.copy()``, ``a + 0``); a view (``swapaxes``,
``expand_dims``, ...) writes through to its base; a NumPy scalar is immutable; a function that
returns its argument returns the caller's array. Also the results NumPy computes by paths of
their own (``np.where``'s Python ints, ``**``'s special exponents). Written as user code,
checked against NumPy and with ``np.shares_memory``."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from tests.layouts import WRITABLE_LAYOUTS, relayout


def run_both(fn, *args):
    """(NumPy's results, NumPy's arguments after, jit's results, jit's arguments after), each
    side on its own copies of ``args``."""
    plain = [a.copy() for a in args]
    jitted = [a.copy() for a in args]
    return fn(*plain), plain, jc.jit(fn)(*jitted), jitted


def assert_same(fn, *args):
    """Results and arguments after the call equal NumPy's: values, dtypes, scalar or array."""
    want, want_args, got, got_args = run_both(fn, *args)
    want, got = (x if isinstance(x, tuple) else (x,) for x in (want, got))
    for w, g in zip([*want, *want_args], [*got, *got_args]):
        assert type(g) is type(w), f"{type(g).__name__} where NumPy gives {type(w).__name__}"
        if w is not None:
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    assert len(got) == len(want)


# Results that NumPy computes as new arrays, and that jitcore may compute as the operand itself.
COPIES = {
    "a.copy()": lambda a: a.copy(),
    "a + 0": lambda a: a + 0,
    "a * 1": lambda a: a * 1,
    "np.maximum(a, a)": lambda a: np.maximum(a, a),
    "a.astype(a.dtype)": lambda a: a.astype(a.dtype),
    "np.where(a > 0, a, a)": lambda a: np.where(a > 0, a, a),
    "a.flatten()": lambda a: a.flatten(),
    "+a": lambda a: +a,
    "a ** 1": lambda a: a ** 1,
    "np.concatenate([a])": lambda a: np.concatenate([a]),
    "np.hstack([a])": lambda a: np.hstack([a]),
    "np.cumsum(a, axis=0)": lambda a: np.cumsum(a, axis=0),  # an axis of length 1: no sums
    "np.cumprod(a, axis=0)": lambda a: np.cumprod(a, axis=0),
    "np.pad(a, 0)": lambda a: np.pad(a, 0),
}


def _row():
    return np.array([[1, 2, 3]], np.int64)


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_of_an_argument_is_a_new_array(name):
    copy = COPIES[name]
    f = jc.jit(copy)
    a = _row()
    for _ in range(2):  # the first call and the cached one
        out = f(a)
        assert not np.shares_memory(out, a)
        np.testing.assert_array_equal(out, copy(a))
        out[...] = 0  # the caller owns what it gets back
        np.testing.assert_array_equal(a, _row())


@pytest.mark.parametrize("name", COPIES)
def test_a_copy_keeps_the_value_it_had_before_the_argument_is_written(name):
    copy = COPIES[name]

    def f(a):
        v = copy(a)
        a += 1
        return v

    assert_same(f, _row())


@pytest.mark.parametrize("name", COPIES)
def test_a_write_to_a_copy_leaves_the_argument_alone(name):
    copy = COPIES[name]

    def f(a):
        v = copy(a)
        v[...] = 9
        return a, v

    assert_same(f, _row())


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_a_copy_of_an_argument_in_any_layout(layout):
    a = relayout(np.arange(6.0).reshape(2, 3), layout)
    out = jc.jit(lambda a: a.copy())(a)
    assert not np.shares_memory(out, a)
    np.testing.assert_array_equal(out, a)


def test_two_copies_of_one_value_are_two_arrays():
    def f(a):
        v = a * 2
        return v, v.copy(), v + 0

    v, w, u = jc.jit(f)(np.arange(3.0))
    assert not np.shares_memory(v, w) and not np.shares_memory(v, u) and not np.shares_memory(w, u)
    assert_same(f, np.arange(3.0))


def test_one_array_returned_twice_is_one_array():
    def f(a):
        v = a * 2
        return v, v

    v, w = jc.jit(f)(np.arange(3.0))
    assert v is w  # as in NumPy


# -- the caller's arrays ------------------------------------------------------------------------

@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_returning_an_argument_returns_the_callers_array(layout):
    f = jc.jit(lambda a, b: (a, b + 1, a))
    a = relayout(np.arange(6.0).reshape(2, 3), layout)
    for _ in range(2):
        x, _, y = f(a, np.ones(3))
        assert x is a and y is a


@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_an_argument_written_and_returned_is_the_callers_array(layout):
    def f(a):
        a += 1
        return a

    g = jc.jit(f)
    a = relayout(np.arange(6.0).reshape(2, 3), layout)
    expected = a + 1
    for _ in range(2):
        out = g(a)
        assert out is a  # NumPy's a += 1 writes a, and f returns a itself
        np.testing.assert_array_equal(a, expected)
        expected += 1


def test_arguments_swapped_through_a_copy():
    def swap(a, b):
        t = a.copy()
        a[...] = b
        b[...] = t

    assert_same(swap, np.arange(3.0), np.arange(3.0) + 10)


def test_an_argument_set_from_another_and_returned():
    def f(a, b):
        a[...] = b
        return a

    a, b = np.zeros(3), np.arange(3.0)
    out = jc.jit(f)(a, b)
    assert out is a and not np.shares_memory(out, b)
    assert_same(f, np.zeros(3), np.arange(3.0))


# -- views ----------------------------------------------------------------------------------

VIEWS = {
    "np.swapaxes(a, 0, 1)": lambda a: np.swapaxes(a, 0, 1),
    "a.swapaxes(1, 0)": lambda a: a.swapaxes(1, 0),
    "np.moveaxis(a, 0, -1)": lambda a: np.moveaxis(a, 0, -1),
    "np.squeeze(a[None])": lambda a: np.squeeze(a[None]),
    "a[None].squeeze(0)": lambda a: a[None].squeeze(0),
    "np.expand_dims(a, 0)": lambda a: np.expand_dims(a, 0),
    "np.expand_dims(a, (0, 3))": lambda a: np.expand_dims(a, (0, 3)),
    "a.T": lambda a: a.T,
    "a.reshape(6)": lambda a: a.reshape(6),
    "a[:, ::-1]": lambda a: a[:, ::-1],
}


@pytest.mark.parametrize("name", VIEWS)
def test_a_write_through_a_view_reaches_its_base(name):
    view = VIEWS[name]

    def f(a):
        v = view(a)
        v += 1
        v[(0,) * v.ndim] = -5
        return a

    assert_same(f, np.arange(6).reshape(2, 3))


@pytest.mark.parametrize("name", VIEWS)
def test_a_view_sees_a_later_write_to_its_base(name):
    view = VIEWS[name]

    def f(a):
        v = view(a)
        a[0] *= 3
        return v

    assert_same(f, np.arange(6).reshape(2, 3))


def test_views_of_views():
    def f(a):
        v = np.expand_dims(np.swapaxes(a, 0, 1), 1)
        w = np.squeeze(v, 1)
        w[1:] = 0
        return a, v

    assert_same(f, np.arange(6.0).reshape(2, 3))


# -- NumPy scalars --------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "t = a.sum(); s = t; s += 1; return s, t",  # s is rebound; t keeps its value
    "s = a.sum(); s += a; return s",  # s becomes an array
    "s = np.argmin(a); s //= 2.5; return s",  # s becomes float64
    "s = a[1]; s *= 10; return a, s",  # an element is a copy
    "s = a.max(); s -= a[0]; u = s; u **= 2; return s, u",
])
def test_augmented_assignment_to_a_numpy_scalar_rebinds_it(source):
    scope = {"np": np}
    exec("def f(a):\n    " + source.replace("; ", "\n    "), scope)
    assert_same(scope["f"], np.array([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("write", ["s[...] = 1", "s[()] = 1", "np.add(s, 1, out=s)"])
def test_a_numpy_scalar_is_immutable(write):
    scope = {"np": np}
    exec(f"def f(a):\n    s = a.sum()\n    {write}\n    return s", scope)
    with pytest.raises(TypeError):
        scope["f"](np.arange(3.0))
    with pytest.raises(TypeError):
        jc.jit(scope["f"])(np.arange(3.0))


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
@pytest.mark.parametrize("op", ["*= 0.5", "+= 2.7", "-= 3", "/= 2", "//= 1.5", "+= True"])
def test_an_element_updated_in_place_is_cast_unsafely(dtype, op):
    """``x[i] op= y`` computes ``x[i] op y`` on NumPy scalars and stores it as ``x[i] = ...``."""
    scope = {"np": np}
    exec(f"def f(a):\n    a[0] {op}\n    a[-1] {op}\n    return a", scope)
    assert_same(scope["f"], np.array([7, 4, 1], dtype))


def test_a_slice_updated_in_place_is_cast_same_kind():
    def f(a):
        a[1:] *= 0.5

    with pytest.raises(TypeError, match="same_kind"):
        f(np.array([3, 4], np.int32))
    with pytest.raises(jc.JitTypeError, match="same_kind"):
        jc.jit(f)(np.array([3, 4], np.int32))


# -- NumPy's own paths: where's Python ints, special exponents ----------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("k", [-1, 300, -200, 70000, 2**40, 2**63, 2**64 - 1, -2**63, True])
def test_where_wraps_a_python_int_into_the_arrays_dtype(dtype, k):
    def f(a):
        return np.where(a < 2, a, k), np.where(a < 2, k, a)

    assert_same(f, np.array([1, 3, 0], dtype))


@pytest.mark.parametrize("k", [2**64, -2**63 - 1])
def test_where_of_a_python_int_past_64_bits_raises_overflow_error(k):
    def f(a):
        return np.where(a < 2, a, k)

    with pytest.raises(OverflowError):
        f(np.array([1, 3], np.uint8))
    with pytest.raises(OverflowError):
        jc.jit(f)(np.array([1, 3], np.uint8))


@pytest.mark.parametrize("fn", [lambda a: a ** 2, lambda a: np.power(a, 2), lambda a: a ** True,
                                lambda a: a ** np.int64(2), lambda a: a ** 3, lambda a: a ** 2.0])
def test_powers_of_a_bool_array(fn):
    """``x ** 2`` is NumPy's square (int8 for bool); ``np.power(x, 2)`` is int64."""
    assert_same(fn, np.array([True, False]))


POWERS = {
    "x ** 0.5": lambda x: x ** 0.5,  # ndarray's **: np.sqrt for a Python 0.5 (float16 too)
    "x ** -1": lambda x: x ** -1,
    "x ** 2": lambda x: x ** 2,
    "np.power(x, 0.5)": lambda x: np.power(x, 0.5),  # float32/64 loop: sqrt; float16: pow
    "np.power(x, np.float32(0.5))": lambda x: np.power(x, np.float32(0.5)),
    "np.power(x, 0)": lambda x: np.power(x, 0),
    "np.power(x, 1.0)": lambda x: np.power(x, 1.0),
    "x ** np.array(0.5)": lambda x: x ** np.array(0.5),
    "x[1] ** 0.5": lambda x: x[1] ** 0.5,  # NumPy's scalar math: pow
    "x.min() ** 0.5": lambda x: x.min() ** 0.5,
    "np.power(x.min(), 0.5)": lambda x: np.power(x.min(), 0.5),
    "x[1] ** np.array(0.5)": lambda x: x[1] ** np.array(0.5),
    "x **= 0.5": lambda x: x.__ipow__(0.5),
}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", POWERS)
def test_special_exponents_take_numpys_paths(name, dtype):
    """Where NumPy computes a power by sqrt, 1/x, x*x, 1 or a copy: (-0.0) ** 0.5 is -0.0 and
    (-inf) ** 0.5 NaN by sqrt, but 0.0 and inf by pow."""
    x = np.array([-0.0, -np.inf, 4.0, np.inf, 0.0, 2.0], dtype)
    with np.errstate(invalid="ignore"):
        want = POWERS[name](x.copy())
    got = jc.jit(POWERS[name])(x.copy())
    assert type(got) is type(want) and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64])
def test_a_negative_integer_power_of_integers_raises(dtype):
    for fn in (lambda x: x ** -1, lambda x: np.power(x, -2), lambda x: x[0] ** -1):
        with pytest.raises(ValueError, match="negative integer powers"):
            fn(np.array([1, 2], dtype))
        with pytest.raises(ValueError, match="negative integer powers"):
            jc.jit(fn)(np.array([1, 2], dtype))


def _diagonal_then_zeroed(A):
    d = np.diagonal(A)
    np.fill_diagonal(A, 0)
    e = A.diagonal(1)
    A[0, 1] = -7.0
    return d.sum(), e.copy(), np.diag(A).copy()


def test_a_diagonal_is_a_view_that_sees_later_writes():
    # Found by a new-user program (session 42, Jacobi's method): the diagonal was a copy, so
    # d = np.diagonal(A) taken before np.fill_diagonal(A, 0) kept the old values.
    A = np.arange(16.0).reshape(4, 4)
    want_A, got_A = A.copy(), A.copy()
    want = _diagonal_then_zeroed(want_A)
    got = jc.jit(_diagonal_then_zeroed)(got_A)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got_A, want_A)


def test_a_write_to_a_diagonal_is_numpys_read_only_error():
    def f(A):
        d = A.diagonal()
        d[0] = 1.0
        return d

    with pytest.raises(ValueError, match="read-only"):
        jc.jit(f)(np.ones((2, 2)))


def _life_step(G):
    n = np.roll(G, 1, 0) + np.roll(G, -1, 0) + np.roll(G, 1, 1) + np.roll(G, -1, 1)
    G[...] = ((n == 3) | ((G == 1) & (n == 2))).astype(G.dtype)
    return G  # the array it was given, written in place


def _life(G):
    for _ in range(80):  # a compiled loop: Z = step(Z) is an in-place write, not a new value
        G = _life_step(G)
    return G.sum()


def _steps_then_new(Z):
    for _ in range(80):
        Z = _life_step(Z)
        Z = Z * 1  # then a new array: the first pass writes the argument, later ones do not
    return Z


def test_a_step_that_writes_its_array_and_returns_it_compiles_as_an_in_place_write():
    g = (np.random.default_rng(0).random((16, 16)) < 0.3).astype(np.int64)
    assert_same(_life, g)
    with pytest.raises(jc.UnsupportedError, match="holds another array's memory"):
        jc.jit(_steps_then_new)(g.copy())
