"""The memo of a flat call's structure (``jitcore.call_memo``): calls with Python numbers,
keywords, strided arrays and static arguments, from their second call on, give what the full
path gives (a fresh jitted function's first call, and NumPy), and what it does not cover is
left to the full path."""

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import api, call_memo


def memo_key(*args, statics=False, **kwargs):
    return call_memo.key(args, kwargs, statics, api.int_range)


def same(got, expected):
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


def calls_agree(fn, *args, **kwargs):
    """Three calls of one jitted function (the full path, then the memo's) against a fresh
    one's first call; returns the jitted function."""
    f = jc.jit(fn)
    first = jc.jit(fn)(*args, **kwargs)
    for _ in range(3):
        same(f(*args, **kwargs), first)
    return f


def test_the_key_covers_flat_calls_only():
    x = np.ones((4, 6), np.float32)
    assert memo_key(x, 2.0) == (2, (x.dtype, x.shape, 0x101), float)
    assert memo_key(x, y=x) == memo_key(x, y=x.copy()) != memo_key(x, z=x)
    assert memo_key(x[:, ::2]) == memo_key(np.ones((4, 9), np.float32)[:, ::3])  # layout flags, not strides
    assert memo_key(x.T) != memo_key(np.ones((6, 4), np.float32)[:, :])
    assert memo_key(x, 3) == memo_key(x, 100) != memo_key(x, 300) != memo_key(x, -3)
    assert memo_key(x, 3) != memo_key(x, 3.0) != memo_key(x, True)
    assert memo_key(x, 3, statics=True) != memo_key(x, 4, statics=True)
    assert memo_key(x, "a", statics=True) == (2, memo_key(x)[1], (str, "a"))
    unaligned = np.frombuffer(bytes(33), np.float32, 8, 1)
    assert memo_key(x, np.float32(1)) == (2, memo_key(x)[1], np.float32)  # a NumPy scalar: its type
    assert memo_key(x, np.float32(1)) != memo_key(x, np.float64(1)) != memo_key(x, 1.0)
    assert memo_key(x, np.int8(1), statics=True) != memo_key(x, np.int8(2), statics=True)
    deep = [x]
    for _ in range(call_memo.MAX_DEPTH):
        deep = [deep]
    for other in (unaligned, [x, "a"], [x] * 33, {1: x}, {"a": [x, {1: x}]}, None, [[x] * 20, [x] * 20],
                  deep, np.ma.masked_array(x), 2 ** 64, np.str_("a"), "a", object()):
        assert memo_key(x, other) is None and memo_key(x, y=other) is None, other
    # nested containers (dispatch38): each level's type, keys and items
    inner = (tuple, None, (memo_key(x)[1],))
    assert memo_key(x, ((x,),)) == (2, memo_key(x)[1], (tuple, None, (inner,)))
    assert memo_key(x, ((x,),)) != memo_key(x, ([x],)) != memo_key(x, [(x,)]) != memo_key(x, ((x, x),))
    assert memo_key(x, {"a": {"w": x}}) != memo_key(x, {"a": {"v": x}}) != memo_key(x, {"a": [x]})
    # a flat tuple or list of arrays and numbers: its type, length and items (dispatch37)
    assert memo_key(x, (x, 2.0)) == (2, memo_key(x)[1], (tuple, None, (memo_key(x)[1], float)))
    swapped, other_key = {"b": 1.0, "a": x}, {"a": x, "c": 2.0}
    # the dict's order is in the key (the function sees it: pytree keeps it)
    assert memo_key(x, swapped) == memo_key(x, {"b": 1.0, "a": x}) != memo_key(x, {"a": x, "b": 1.0})
    assert memo_key(x, {"a": x, "b": 1.0}) != memo_key(x, other_key)
    assert memo_key(x, (x,)) != memo_key(x, [x]) != memo_key(x, [x, x])
    assert memo_key(x, (x,), statics=True) is None  # a tuple could be a static value there
    assert memo_key(np.lib.stride_tricks.as_strided(x, (3,), (6,))) is None  # stride not of the item


@pytest.mark.parametrize("value", [2.0, -0.0, 3, 300, 2 ** 40, -5, True, 1 + 2j])
def test_python_numbers(value):
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    f = calls_agree(lambda x, s: x * s + 1, x, value)
    assert len(f._memo) == 1
    same(f(x, value), x * value + 1)


@pytest.mark.parametrize("value", [np.float32(2.5), np.float64(-0.0), np.float16(0.5), np.int8(-3),
                                   np.uint64(2 ** 63), np.bool_(True), np.complex64(1 + 2j)])
def test_numpy_scalars(value):
    # x.mean()'s result passed on: was the full path on every call (51 us against 7 us here)
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    f = calls_agree(lambda x, s: x * s + 1, x, value)
    assert len(f._memo) == 1
    same(f(x, value), x * value + 1)
    same(f(x, type(value)(1)), x * type(value)(1) + 1)  # another value of the type: the memo's call


def test_another_number_of_the_same_key_and_ints_past_a_dtypes_range():
    s = jc.jit(lambda x, s: x + s)
    x = np.arange(6, dtype=np.int16)
    same(s(x, 3), x + 3)
    same(s(x, 5), x + 5)  # the memo's call, another value
    same(s(x, 120), x + 120)
    with pytest.raises(OverflowError):
        s(x, 40000)  # NumPy 2 refuses it for int16; another bound, so the full path says so
    with pytest.raises(OverflowError):
        s(x, 40000)
    same(s(x, -7.5), x + -7.5)


def test_keywords_in_any_order_and_defaults():
    def fn(x, y, scale=2.0):
        return jnp.tanh(x * scale + y)

    x = np.linspace(-1, 1, 8, dtype=np.float32)
    y = x[::-1].copy()
    expected = jc.jit(fn)(x, y)
    for call in (lambda f: f(x, y=y), lambda f: f(y=y, x=x), lambda f: f(x, y, scale=2.0),
                 lambda f: f(x, scale=2.0, y=y)):
        f = jc.jit(fn)
        for _ in range(3):
            same(call(f), expected)
        assert len(f._memo) == 1
    f = jc.jit(fn)
    f(x, y=y)
    f(x, y=y)
    same(f(x, y=x), jc.jit(fn)(x, x))  # other arrays, same key: the memo's arrays are the call's


def test_strided_and_transposed_arrays():
    base = np.arange(48, dtype=np.float64).reshape(6, 8)
    f = calls_agree(lambda a, b: a * 2 - b, base[::2, 1::2], base[1::2, ::2])
    other = np.arange(72.0).reshape(6, 12)[::2, ::3]  # same class ("strided": nothing dense), other strides
    same(f(base[::2, ::2], other), base[::2, ::2] * 2 - other)
    g = calls_agree(lambda a: jnp.sum(a, axis=0), base.T)
    same(g(np.asfortranarray(base[:, :6])), np.sum(base[:, :6], axis=0))
    h = calls_agree(lambda a: a[::-1] + 1, base[0, ::-1])
    assert len(f._memo) == len(h._memo) == 1 and len(g._memo) == 2


def test_static_arguments_by_value():
    f = jc.jit(lambda x, n, s: x * n + s, static_argnums=(1,))
    x = np.arange(5, dtype=np.float64)
    for n in (1, 2, 2, 3, 1):
        for s in (0.5, 1.5):
            same(f(x, n, s), x * n + s)
    g = jc.jit(lambda x, mode: x + 1 if mode == "inc" else x - 1, static_argnames=("mode",))
    for mode in ("inc", "dec", "inc", "dec"):
        same(g(x, mode=mode), x + 1 if mode == "inc" else x - 1)
    assert g.cache_info()[:2] == (2, 2)


def test_written_back_arguments():
    def add_into(out, s):
        out += s
        return out

    f = jc.jit(add_into)
    out = np.zeros(4)
    for _ in range(3):
        result = f(out, 1.5)
        assert result is out
    same(out, np.full(4, 4.5))
    strided = np.zeros(8)
    for _ in range(3):
        f(strided[::2], 2.0)
    same(strided, np.array([6.0, 0] * 4))


def test_unaligned_and_dropped_signatures_take_the_full_path():
    unaligned = np.frombuffer(bytes(33), np.float32, 8, 1)
    f = jc.jit(lambda x, s: x + s)
    for _ in range(3):
        same(f(unaligned, 1.0), unaligned + 1.0)
    assert not f._memo
    g = jc.jit(lambda x, s: x * s, max_signatures=1)
    x32, x64 = np.ones(3, np.float32), np.ones(3)
    g(x32, 2.0)
    g(x32, 2.0)
    assert len(g._memo) == 1
    same(g(x64, 2.0), x64 * 2.0)  # compiles, drops x32's signature and its memo entry
    assert [k[1] for k in g._memo] == [(np.dtype(np.float64), (3,), 0x103)]
    same(g(x32, 3.0), x32 * 3.0)
    assert g.cache_info()[:2] == (1, 3)
    g.clear_cache()
    assert not g._memo


OFFSET = np.ones(4)


def test_call_time_globals_are_read_on_the_memos_calls():
    global OFFSET
    f = jc.jit(lambda x, s: x * s + OFFSET)
    x = np.arange(4.0)
    for k in range(3):
        OFFSET = np.full(4, float(k))
        same(f(x, 2.0), x * 2.0 + k)
