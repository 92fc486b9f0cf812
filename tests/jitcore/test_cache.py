"""The signature cache of ``jit``: what is part of the key (pytree structure, shape, dtype,
layout, static values, weak types), what is counted by ``cache_info``, and what comes back."""

from __future__ import annotations

import collections
import enum

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from tests.oracle import assert_matches


def info(f):
    """``f.cache_info()`` as a plain tuple (hits, misses, traces, compiles)."""
    return tuple(f.cache_info())


def f32(*shape, start=0.0):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float32) / 4 + start).reshape(shape)


# -- cache_info ------------------------------------------------------------------------------

def test_cache_info_is_a_namedtuple_with_four_counters():
    f = jc.jit(lambda x: x + 1)
    ci = f.cache_info()
    assert isinstance(ci, tuple)
    assert ci._fields == ("hits", "misses", "traces", "compiles")
    assert ci == (0, 0, 0, 0)
    assert isinstance(ci, jc.CacheInfo)


def test_first_call_misses_traces_and_compiles_once_then_hits():
    f = jc.jit(lambda x: x * 2 + 1)
    x = f32(16)
    assert_matches(f(x), x * 2 + 1)
    ci = f.cache_info()
    assert (ci.hits, ci.misses, ci.traces, ci.compiles) == (0, 1, 1, 1)
    for i in range(1, 4):
        assert_matches(f(x), x * 2 + 1)
        assert info(f) == (i, 1, 1, 1)
    # A different array with the same shape and dtype is the same signature.
    y = f32(16, start=5.0)
    assert_matches(f(y), y * 2 + 1)
    assert info(f) == (4, 1, 1, 1)


def test_new_shape_retraces_and_new_rank_recompiles():
    f = jc.jit(lambda x: x - 3)
    f(f32(8))
    f(f32(9))  # a new size traces again and reuses the code (tests/jitcore/test_size_generic.py)
    assert info(f) == (0, 2, 2, 1)
    f(f32(3, 3))  # same size, new rank: a new signature, and new code
    assert info(f) == (0, 3, 3, 2)
    assert_matches(f(f32(8)), f32(8) - 3)
    assert_matches(f(f32(9)), f32(9) - 3)
    assert_matches(f(f32(3, 3)), f32(3, 3) - 3)
    assert info(f) == (3, 3, 3, 2)


def test_new_dtype_retraces_and_recompiles():
    f = jc.jit(lambda x: x * 3)
    x32 = f32(8)
    x64 = x32.astype(np.float64)
    xi = np.arange(8, dtype=np.int32)
    assert_matches(f(x32), x32 * 3)
    assert_matches(f(x64), x64 * 3)
    assert_matches(f(xi), xi * 3)
    assert info(f) == (0, 3, 3, 3)
    assert_matches(f(x64), x64 * 3)
    assert info(f) == (1, 3, 3, 3)


def test_clear_cache_forces_a_recompile():
    f = jc.jit(lambda x: x + 1)
    f(f32(4))
    f.clear_cache()
    assert_matches(f(f32(4)), f32(4) + 1)
    ci = f.cache_info()
    assert (ci.misses, ci.traces, ci.compiles) == (2, 2, 2)


# -- layout ----------------------------------------------------------------------------------

def test_layout_is_part_of_the_key_contiguity_not_strides():
    """A strided view of the same shape and dtype compiles a strided variant once; other
    strides of the same shape reuse it (strides are passed at run time)."""
    f = jc.jit(lambda x: x * 2 + 1)
    base = np.arange(40, dtype=np.float32)
    contiguous = base[:10].copy()
    every_2nd, every_3rd = base[::2][:10], base[::3][:10]
    assert every_2nd.shape == every_3rd.shape == contiguous.shape == (10,)
    assert not every_2nd.flags.c_contiguous

    assert_matches(f(contiguous), contiguous * 2 + 1)
    assert info(f) == (0, 1, 1, 1)
    assert_matches(f(every_2nd), every_2nd * 2 + 1)
    assert info(f) == (0, 2, 2, 2)  # strided: a new entry
    assert_matches(f(every_3rd), every_3rd * 2 + 1)
    assert info(f) == (1, 2, 2, 2)  # other strides, same layout class: a hit
    assert_matches(f(contiguous), contiguous * 2 + 1)
    assert info(f) == (2, 2, 2, 2)


def test_strided_first_then_contiguous_get_their_own_entries():
    f = jc.jit(lambda x, y: x * y)
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    strided, contiguous = base[:, ::2], np.ascontiguousarray(base[:, 1::2])
    y = np.full((4, 3), 0.5)
    assert_matches(f(strided, y), strided * y)
    assert info(f) == (0, 1, 1, 1)
    assert_matches(f(contiguous, y), contiguous * y)
    assert info(f) == (0, 2, 2, 2)
    for _ in range(2):
        assert_matches(f(strided, y), strided * y)
        assert_matches(f(contiguous, y), contiguous * y)
    assert info(f) == (4, 2, 2, 2)


@pytest.mark.parametrize("layout", ["transposed", "fortran", "reversed", "sliced", "broadcast"])
def test_strided_2d_inputs_give_numpys_values(layout):
    a = f32(4, 6)
    x = {
        "transposed": a.T,
        "fortran": np.asfortranarray(a),
        "reversed": a[::-1, ::-1],
        "sliced": a[1:3, ::2],
        "broadcast": np.broadcast_to(a[0], (4, 6)),
    }[layout]
    f = jc.jit(lambda x: (x * 2 + 1, (x * 2).sum(axis=1)))
    out, total = f(x)
    assert_matches(out, x * 2 + 1)
    assert_matches(total, (x * 2).sum(axis=1))


# -- static arguments ------------------------------------------------------------------------

def test_static_argnames_value_is_python_and_each_value_compiles_once():
    seen = collections.deque()  # (a list changed while tracing is refused)

    @jc.jit(static_argnames=("n", "flip"))
    def power(x, n, flip=False):
        seen.append((type(n), n, flip))
        for _ in range(n - 1):  # range() needs a real int
            x = x * x
        if flip:  # if needs a real bool
            x = -x
        return x

    x = f32(5, start=1.0)
    assert_matches(power(x, n=3), x ** 4)
    assert list(seen) == [(int, 3, False)]
    assert info(power) == (0, 1, 1, 1)
    assert_matches(power(x, n=3), x ** 4)
    assert info(power) == (1, 1, 1, 1)
    assert_matches(power(x, n=2), x * x)
    assert info(power) == (1, 2, 2, 2)
    assert_matches(power(x, n=2, flip=True), -(x * x))
    assert info(power) == (1, 3, 3, 3)
    assert_matches(power(x, n=2, flip=True), -(x * x))
    assert_matches(power(x, n=3), x ** 4)
    assert info(power) == (3, 3, 3, 3)
    assert [s[1:] for s in seen] == [(3, False), (2, False), (2, True)]


def test_static_argnums_positional_and_keyword_share_an_entry():
    @jc.jit(static_argnums=(1,))
    def scale(x, k):
        assert isinstance(k, int)
        return x * k

    x = f32(6)
    assert_matches(scale(x, 4), x * 4)
    assert_matches(scale(x, k=4), x * 4)
    assert info(scale) == (1, 1, 1, 1)
    assert_matches(scale(x, 5), x * 5)
    assert info(scale) == (1, 2, 2, 2)


def test_equal_static_values_hit():
    @jc.jit(static_argnames="shape")
    def to(x, shape):
        return x.reshape(shape)

    x = f32(12)
    assert to(x, (3, 4)).shape == (3, 4)
    assert to(x, tuple([3, 4])).shape == (3, 4)  # another, equal tuple
    assert to(x, (4, 3)).shape == (4, 3)
    assert info(to) == (1, 2, 2, 2)


def test_negative_static_argnums_counts_from_the_end():
    @jc.jit(static_argnums=-1)
    def repeat_add(x, y, n):
        for _ in range(n):
            x = x + y
        return x

    x, y = f32(4), f32(4, start=1.0)
    assert_matches(repeat_add(x, y, 3), x + y + y + y)
    assert_matches(repeat_add(x, y, 3), x + y + y + y)
    assert_matches(repeat_add(x, y, n=3), x + y + y + y)
    assert info(repeat_add) == (2, 1, 1, 1)
    assert_matches(repeat_add(x, y, 1), x + y)
    assert info(repeat_add) == (2, 2, 2, 2)

    pw = jc.jit(lambda x, n: x ** n, static_argnums=-1)
    assert_matches(pw(x, 2), x ** 2)
    assert_matches(pw(x, 3), x ** 3)
    assert info(pw) == (0, 2, 2, 2)


# (a list of numbers is hashable as a tuple is, since session 49: a list of strings is not)
@pytest.mark.parametrize("value", [["a", "b"], {"a": 1}, np.ones(2)], ids=["list", "dict", "ndarray"])
@pytest.mark.parametrize("how", ["positional", "keyword"])
def test_unhashable_static_argument_is_a_jit_type_error(value, how):
    @jc.jit(static_argnames=("n",))
    def f(x, n):
        return x

    with pytest.raises(jc.JitTypeError, match="hashable") as err:
        f(f32(3), value) if how == "positional" else f(f32(3), n=value)
    assert type(value).__name__ in str(err.value)
    assert "f()" in str(err.value)
    assert isinstance(err.value, TypeError)
    assert info(f) == (0, 0, 0, 0)


def test_unhashable_static_argument_message_names_the_parameter():
    @jc.jit(static_argnames=("n",))
    def f(x, n):
        return x

    with pytest.raises(jc.JitTypeError) as err:
        f(f32(3), n=[np.ones(2)])
    assert "n=list" in str(err.value) or "'n'" in str(err.value), str(err.value)


# -- keyword arguments -----------------------------------------------------------------------

def test_keyword_arguments_equal_positional_and_share_the_entry():
    @jc.jit
    def f(x, y, z=None):
        out = x * y
        return out if z is None else out + z

    x, y, z = f32(5), f32(5, start=2.0), f32(5, start=-1.0)
    a = f(x, y)
    b = f(x, y=y)
    c = f(y=y, x=x)
    for r in (b, c):
        assert_matches(r, a)
    assert_matches(a, x * y)
    # The signature binds keywords to their parameters: one entry for all three spellings.
    assert info(f) == (2, 1, 1, 1)
    assert_matches(f(x, y, z=z), x * y + z)
    assert_matches(f(x, y, z), x * y + z)
    assert info(f) == (3, 2, 2, 2)


def test_keyword_only_arguments():
    @jc.jit
    def f(x, *, scale):
        return x * scale

    x, s = f32(4), f32(4, start=3.0)
    assert_matches(f(x, scale=s), x * s)
    assert_matches(f(x, scale=s), x * s)
    assert info(f) == (1, 1, 1, 1)


def test_bad_keyword_is_a_jit_type_error():
    f = jc.jit(lambda x: x)
    with pytest.raises(jc.JitTypeError, match="y"):
        f(f32(3), y=f32(3))


# -- Python and NumPy scalars ----------------------------------------------------------------

def test_python_float_is_weakly_typed_and_a_new_value_does_not_recompile():
    f = jc.jit(lambda x, y: x * y)
    x = f32(6)
    r = f(x, 2.0)
    assert r.dtype == np.float32
    assert_matches(r, x * 2.0)
    assert info(f) == (0, 1, 1, 1)
    r = f(x, 3.5)
    assert_matches(r, x * np.float32(3.5))
    assert info(f) == (1, 1, 1, 1)  # the value is data, not part of the key
    r = f(x, -0.25)
    assert_matches(r, x * -0.25)
    assert info(f) == (2, 1, 1, 1)


def test_python_int_is_weakly_typed():
    f = jc.jit(lambda x, y: x + y)
    for dtype in (np.int8, np.uint16, np.float16, np.float32):
        x = np.arange(5, dtype=dtype)
        assert_matches(f(x, 3), x + 3, context=str(dtype))
        assert_matches(f(x, 4), x + 4, context=str(dtype))
    # A new dtype of x is a new entry; a new int value is not. (The first trace, with the int
    # as any int64, asked whether it fits int8 and was traced again with its bounds: one more
    # miss and trace, no more compiles.)
    assert info(f) == (4, 5, 5, 4)
    # int and float scalars are different weak types: a new entry.
    x = f32(5)
    assert_matches(f(x, 1.5), x + 1.5)
    assert info(f) == (4, 6, 6, 5)


def test_python_scalars_alone_follow_python_promotion():
    f = jc.jit(lambda a, b: a * b)
    assert_matches(f(2.0, 3), np.asarray(6.0))
    assert_matches(f(2, 3), np.asarray(6, dtype=np.int64))


def test_numpy_scalars_are_strongly_typed():
    f = jc.jit(lambda x, y: x * y)
    x = f32(6)
    r = f(x, np.float64(2))
    assert r.dtype == np.float64  # NEP 50: a NumPy scalar is not weak, even np.float64
    assert_matches(r, x * np.float64(2))
    x16 = x.astype(np.float16)
    r = f(x16, np.float32(2))
    assert r.dtype == np.float32
    assert_matches(r, x16 * np.float32(2))
    r = f(x16, 2.0)
    assert r.dtype == np.float16
    assert_matches(r, x16 * 2.0)
    # The NumPy scalar's dtype is part of the key; its value is not.
    assert info(f) == (0, 3, 3, 3)
    assert_matches(f(x16, np.float32(5)), x16 * np.float32(5))
    assert info(f) == (1, 3, 3, 3)
    # A NumPy scalar and a Python float of the same value are different signatures.
    assert_matches(f(x, np.float32(2)), x * np.float32(2))
    assert_matches(f(x, 2.0), x * 2.0)
    assert info(f) == (1, 5, 5, 5)


def test_python_bool_is_not_weak():
    f = jc.jit(lambda x, y: x * y)
    x = np.arange(4, dtype=np.int8)
    assert_matches(f(x, True), x * True)
    assert_matches(f(x, False), x * False)
    assert info(f) == (1, 1, 1, 1)


def test_weak_type_survives_arithmetic_on_the_scalar():
    x = f32(4)
    xi = np.arange(4, dtype=np.int8)
    f = jc.jit(lambda x, s: x * (s * 2))
    g = jc.jit(lambda x, s: x * -s)
    h = jc.jit(lambda x, n: x + (n + 1))
    assert_matches(f(x, 2.0), x * (2.0 * 2))
    assert_matches(g(x, 2.0), x * -2.0)
    assert_matches(h(xi, 2), xi + 3)


def test_comparison_of_a_python_int_argument_with_an_int():
    f = jc.jit(lambda x, n: jnp.where(n > 2, x, -x))
    g = jc.jit(lambda x, n: jnp.where(n == 3, x, -x))
    x = f32(3)
    assert_matches(f(x, 3), x)
    assert_matches(f(x, 1), -x)
    assert_matches(g(x, 3), x)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def test_static_int_subclass_is_a_strong_int64_as_in_numpy():
    # NumPy takes only exact Python ints, floats and complexes as weak scalars; a subclass (an
    # IntEnum) becomes np.asarray(k), an int64: float32 * Level.HIGH is float64.
    x = f32(4)
    g = jc.jit(lambda x, k: x * k, static_argnums=1)
    assert_matches(g(x, Level.HIGH), x * Level.HIGH)
    assert_matches(g(np.arange(3, dtype=np.int8), Level.LOW), np.arange(3, dtype=np.int8) * Level.LOW)


@pytest.mark.xfail(strict=True, reason=(
    "jitcore/api.py JitFunction._leaf takes an int subclass argument as a weak Python int: "
    "jc.jit(lambda x, k: x * k)(np.ones(4, np.float32), Level.HIGH) is float32, NumPy's float64"))
def test_traced_int_subclass_argument_is_a_strong_int64_as_in_numpy():
    x = f32(4)
    assert_matches(jc.jit(lambda x, k: x * k)(x, Level.HIGH), x * Level.HIGH)


# -- pytrees ---------------------------------------------------------------------------------

def test_pytree_arguments_tuple_list_dict_and_none():
    @jc.jit
    def f(params, xs, opt):
        w, b = params["w"], params["b"]
        assert opt["unused"] is None
        first, (second, third) = xs
        return w * first + b - second * third

    w, b = f32(4, start=1.0), f32(4, start=-2.0)
    xs = [f32(4, start=0.5), (f32(4, start=3.0), f32(4, start=0.25))]
    expected = w * xs[0] + b - xs[1][0] * xs[1][1]
    assert_matches(f({"w": w, "b": b}, xs, {"unused": None}), expected)
    assert info(f) == (0, 1, 1, 1)
    assert_matches(f({"w": w, "b": b}, xs, {"unused": None}), expected)
    assert info(f) == (1, 1, 1, 1)
    # Another order of the keys is another signature: the function sees the dict as it is.
    assert_matches(f({"b": b, "w": w}, xs, {"unused": None}), expected)
    assert info(f) == (1, 2, 2, 2)
    # Another structure (a tuple where there was a list) is another signature.
    assert_matches(f({"w": w, "b": b}, tuple(xs), {"unused": None}), expected)
    assert info(f) == (1, 3, 3, 3)


def test_pytree_outputs_keep_structure_and_values():
    @jc.jit
    def f(x, y):
        return {"sum": x + y, "pair": (x * 2, [y - 1, None]), "list": [x, (y,)]}

    x, y = f32(3), f32(3, start=1.0)
    out = f(x, y)
    assert isinstance(out, dict) and set(out) == {"sum", "pair", "list"}
    assert isinstance(out["pair"], tuple) and len(out["pair"]) == 2
    assert isinstance(out["pair"][1], list) and out["pair"][1][1] is None
    assert isinstance(out["list"], list) and isinstance(out["list"][1], tuple)
    assert_matches(out["sum"], x + y)
    assert_matches(out["pair"][0], x * 2)
    assert_matches(out["pair"][1][0], y - 1)
    assert_matches(out["list"][0], x)
    assert_matches(out["list"][1][0], y)
    # Cached calls rebuild the same structure.
    again = f(x, y)
    assert info(f) == (1, 1, 1, 1)
    assert isinstance(again["pair"], tuple) and again["pair"][1][1] is None
    assert_matches(again["sum"], x + y)


def test_single_tuple_and_list_outputs():
    assert isinstance(jc.jit(lambda x: (x + 1,))(f32(2)), tuple)
    out = jc.jit(lambda x: [x + 1, x - 1])(f32(2))
    assert isinstance(out, list) and len(out) == 2
    assert_matches(out[1], f32(2) - 1)
    assert jc.jit(lambda x: None)(f32(2)) is None


def test_pytree_structure_is_part_of_the_key():
    f = jc.jit(lambda t: t[0] + t[1])
    x = f32(3)
    f((x, x))
    f([x, x])
    f((x, x))
    assert info(f) == (1, 2, 2, 2)


# -- what comes back -------------------------------------------------------------------------

def test_closed_over_constant_is_a_fresh_array_each_call():
    table = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    # a closed-over array is an input where the code reads it: returned, it is the array
    # itself, as NumPy's function returns it (session 47; it was a copy made while tracing)
    same = jc.jit(lambda x: table)
    assert same(f32(3)) is table
    # an array made from it while tracing is a constant: a fresh array for each call
    f = jc.jit(lambda x: np.array([1.0, 2.0, 3.0], dtype=np.float32))
    first = f(f32(3))
    assert_matches(first, table)
    first[:] = -7  # callers may write to what they get back
    second = f(f32(3))
    assert_matches(second, np.array([1.0, 2.0, 3.0], dtype=np.float32))
    assert second is not first
    assert not np.shares_memory(second, first)
    assert_matches(table, np.array([1.0, 2.0, 3.0], dtype=np.float32))  # the closure is intact
    assert info(f) == (1, 1, 1, 1)


def test_closed_over_constant_in_a_computation():
    table = np.linspace(0, 1, 5, dtype=np.float32)
    f = jc.jit(lambda x: x * table + jnp.sin(table))
    x = f32(5)
    assert_matches(f(x), x * table + np.sin(table), ulps=2)


def test_returning_an_input_unchanged():
    f = jc.jit(lambda x, y: (x, y + 1))
    x, y = f32(2, 3), f32(4)
    a, b = f(x, y)
    assert_matches(a, x)
    assert_matches(b, y + 1)
    a2, _ = f(x, y)
    assert_matches(a2, x)
    assert info(f) == (1, 1, 1, 1)
    # A strided input comes back with the same values and shape.
    v = f32(4, 6)[::2, ::3]
    a3, _ = f(v, y)
    assert_matches(a3, v)


def test_returning_a_python_scalar_argument_and_a_constant_scalar():
    f = jc.jit(lambda x, s: (s, 1.5, 2))
    s, c_float, c_int = f(f32(2), 2.5)
    assert_matches(s, np.asarray(2.5))
    assert_matches(c_float, np.asarray(1.5))
    assert_matches(c_int, np.asarray(2))
