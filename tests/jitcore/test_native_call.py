"""The native cached call (``jitcore.native_call``): the same results as the Python path, which
it leaves every call it cannot make itself to; exact reference counts; threads; traces."""

import functools
import sys

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import native_call
from jitcore.api import JitFunction, python_call
from jitcore.errors import JitTypeError
from tests.jitcore.test_threads import run_threads

pytestmark = pytest.mark.skipif(not native_call.AVAILABLE, reason="no native call on this Python/NumPy")


def native_calls(f) -> int:
    return f._native_hits.value


def warm(f, *args):
    """Call twice: the second (cached) call gives the signature to the native call."""
    f(*args)
    return f(*args)


def test_many_signatures_match_the_python_path_and_numpy():
    f = jc.jit(lambda x, y: x * 2 + y)
    cases = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.complex64, np.bool_]
    rng = np.random.default_rng(0)
    for dtype in cases:
        for shape in [(), (0,), (7,), (3, 0, 2), (4, 5)]:
            x = rng.integers(0, 3, shape).astype(dtype)
            y = rng.integers(0, 3, shape).astype(dtype)
            warm(f, x, y)
            before = native_calls(f)
            got = f(x, y)
            expected = python_call(f, x, y)
            assert type(got) is type(expected) and got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(got, x * 2 + y)  # a NumPy scalar for 0-d, as NumPy's
            if shape:
                assert got.flags.c_contiguous and got.flags.writeable and got.flags.owndata
            assert native_calls(f) - before in (0, 1)  # past the table's bound: the Python path
    assert native_calls(f) >= native_call.MAX_ENTRIES


def uses_jitcore_numpy(x, y):
    return jnp.sum(jnp.exp(x) * y), jnp.where(x > y, x, y).max()


def test_jitcore_numpy_functions_are_no_call_time_inputs():
    # the library's own cells (a reduction's name) are no globals of the user's to guard on
    # each call: such a function is an ordinary executable, called natively
    f = jc.jit(uses_jitcore_numpy)
    x, y = np.linspace(-1, 1, 9), np.linspace(1, -1, 9)
    warm(f, x, y)
    (executable,) = f._cache.values()
    assert type(executable).__name__ == "Executable"
    before = native_calls(f)
    got = f(x, y)
    assert native_calls(f) == before + 1
    np.testing.assert_allclose(got[0], np.sum(np.exp(x) * y), rtol=1e-14)
    assert got[1] == np.where(x > y, x, y).max()


def test_a_signature_in_the_table_is_called_natively():
    f = jc.jit(lambda x: (x + 1, x[::-1] * 2, x * x))
    x = np.arange(6, dtype=np.float64)
    warm(f, x)
    assert type(JitFunction.__dict__["__call__"]).__name__ == "method_descriptor"
    before = native_calls(f)
    got = f(x)
    assert native_calls(f) == before + 1
    assert isinstance(got, tuple) and len(got) == 3
    for a, b in zip(got, (x + 1, x[::-1] * 2, x * x)):
        np.testing.assert_array_equal(a, b)
    assert f.cache_info().hits == 2


NUMBERS = [2.5, float("nan"), -0.0, float("-inf"), 1 - 2j, -1, 0, 300, 2 ** 40, -(2 ** 63),
           np.float64(-0.0), np.float32(0.1), np.float16(3), np.int8(-128), np.uint64(2 ** 64 - 1),
           np.int64(-1), np.bool_(True), np.complex64(2 + 1j), np.complex128(-1j)]


@pytest.mark.filterwarnings("ignore:invalid value")
@pytest.mark.parametrize("number", NUMBERS, ids=lambda v: f"{type(v).__name__}({v})")
def test_numbers_are_called_natively(number):
    # a Python or NumPy number read in place (an int converted): a cached f(x, 0.5) without
    # the Python path; its value is traced, so other values of the type share the entry
    f = jc.jit(lambda x, s: x * s - s)
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    warm(f, x, number)
    # (an int's bounds are part of it only once a trace needed them: not for a float array)
    signature = lambda v: (type(v), f._int_range(v) if type(v) is int else None)  # noqa: E731
    entries = {signature(number)}  # what the native table holds
    for value in (number, type(number)(1), type(number)(0), number):
        before = native_calls(f)
        got = f(x, value)
        expected = x * value - value
        assert native_calls(f) == before + (signature(value) in entries), value
        assert type(got) is type(expected) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(got, python_call(f, x, value))  # the memo's call: an entry
        entries.add(signature(value))


def test_numbers_outside_their_signature_take_the_python_path():
    f = jc.jit(lambda x, s: x + s)
    x = np.arange(4, dtype=np.int16)
    warm(f, x, 3)
    before = native_calls(f)
    np.testing.assert_array_equal(f(x, 120), x + 120)  # the same int bounds: native
    assert native_calls(f) == before + 1
    with pytest.raises(OverflowError):
        f(x, 40000)  # other bounds (NumPy 2 refuses it for int16): the Python path says so
    with pytest.raises(OverflowError):
        f(x, 2 ** 70)  # no int64: the Python path
    assert native_calls(f) == before + 1

    class Real(float):
        pass

    g = jc.jit(lambda x, s: x * s)
    y = np.ones(3)
    warm(g, y, 2.0)
    before = native_calls(g)
    np.testing.assert_array_equal(g(y, Real(3.0)), y * 3.0)  # a subclass: never read in place
    np.testing.assert_array_equal(g(y, True), y * True)  # a bool is no float
    np.testing.assert_array_equal(g(y, np.float32(2)), y * np.float32(2))  # another type: a new entry later
    assert native_calls(g) == before


def test_strided_arguments_are_called_natively_with_their_strides():
    f = jc.jit(lambda x, y: x * 2 - y)
    base = np.arange(48, dtype=np.float64).reshape(6, 8)
    for x, y in [(base[:, ::2], base[:, 1::2]), (base[::-1, ::-3], base[:, 2:5]), (base[1, ::2], 1.5)]:
        warm(f, x, y)
        before = native_calls(f)
        np.testing.assert_array_equal(f(x, y), x * 2 - y)
        assert native_calls(f) == before + 1
    g = jc.jit(lambda s, x: x * s)  # an int before the strided array: the entry's index of each
    warm(g, 3, base[:, ::2])
    before = native_calls(g)
    np.testing.assert_array_equal(g(5, base[:, ::2]), base[:, ::2] * 5)
    assert native_calls(g) == before + 1
    before = native_calls(f)
    other = np.arange(72, dtype=np.float64).reshape(6, 12)[:, ::3]  # the same class, other strides
    np.testing.assert_array_equal(f(other, base[:, 1::2]), other * 2 - base[:, 1::2])
    raw = np.frombuffer(bytes(8 * 48 + 1), np.float64, 48, 1).reshape(6, 8)[:, ::2]  # unaligned
    np.testing.assert_array_equal(f(raw, base[:, 1::2]), raw * 2 - base[:, 1::2])
    assert native_calls(f) == before  # both on the Python path


def test_calls_it_cannot_make_take_the_python_path():
    f = jc.jit(lambda x, y: x - y)
    x, y = np.arange(12.0).reshape(3, 4), np.ones((3, 4))
    warm(f, x, y)
    other_calls = [
        (x.T, y.T),                                   # not C-contiguous
        (x[:, ::2], y[:, ::2]),
        (x.astype(np.dtype("f8").newbyteorder("=")), y),  # a dtype object of its own
        (x, 1.5),                                     # a Python scalar
        (x.astype(np.float32), y.astype(np.float32)),  # another signature
        (x[:2], y[:2]),                               # another shape
    ]
    for args in other_calls:
        np.testing.assert_array_equal(f(*args), np.subtract(*args))
    for refused in [(x.view(np.matrix), y), (x.astype(">f8"), y)]:  # a subclass, a byte order
        with pytest.raises(JitTypeError) as python:
            python_call(f, *refused)
        with pytest.raises(JitTypeError) as native:
            f(*refused)
        assert str(native.value) == str(python.value)
    np.testing.assert_array_equal(f(x, y=y), x - y)  # keywords
    np.testing.assert_array_equal(f(y=y, x=x), x - y)


def test_errors_are_raised_as_on_the_python_path():
    f = jc.jit(lambda x, y: x + y)
    x = np.ones(4)
    warm(f, x, x)
    with pytest.raises(TypeError):
        f(x)
    with pytest.raises(TypeError):
        f(x, x, x)
    with pytest.raises(JitTypeError):
        f(x, "text")
    with pytest.raises(TypeError):
        f(x, x, z=1)
    np.testing.assert_array_equal(f(x, x), 2 * x)  # and the native call goes on working


def test_reference_counts_are_exact():
    f = jc.jit(lambda x, y: (x + y, x * y))
    x, y = np.ones(5, np.float32), np.arange(5, dtype=np.float32)
    warm(f, x, y)
    dtype = np.dtype(np.float32)
    counts = lambda: (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(dtype),  # noqa: E731
                      sys.getrefcount(f._native), sys.getrefcount(f))
    a, b = f(x, y)  # results hold their dtype: count with two alive
    before = counts()
    for _ in range(2000):
        a, b = f(x, y)
    assert counts() == before
    assert sys.getrefcount(a) == 2 and sys.getrefcount(b) == 2  # a, b and the call's argument
    out = f(x, y)
    assert sys.getrefcount(out) == 2 and all(sys.getrefcount(r) == 3 for r in out)  # r, the tuple
    del out
    a, b = warm(f, x, 2.0)  # compiled (its executable holds the dtype too)
    before = counts()
    for _ in range(2000):
        a, b = f(x, 2.0)  # the Python path, through the native entry
    assert counts() == before


def test_a_call_inside_a_trace_is_inlined():
    f = jc.jit(lambda x: x * 3)
    c = np.arange(4.0)
    warm(f, c)

    @jc.jit
    def g(y):
        return y + f(c)  # a concrete array while g is traced: inlined, a constant of g

    np.testing.assert_array_equal(g(np.ones(4)), 1 + 3 * c)
    assert f.cache_info().hits == 1


def test_threads_calling_concurrently():
    f = jc.jit(lambda x, y: jnp.tanh(x * 2 + y))
    shapes = [(8,), (3, 5), (64,)]
    inputs = [(np.linspace(-1, 1, int(np.prod(s))).reshape(s), np.ones(s)) for s in shapes]
    for x, y in inputs:
        warm(f, x, y)
    expected = [np.tanh(x * 2 + y) for x, y in inputs]

    def body(k):
        for i in range(300):
            j = (i + k) % len(inputs)
            np.testing.assert_allclose(f(*inputs[j]), expected[j], rtol=1e-6)

    assert run_threads(body, 4) == [None] * 4
    assert native_calls(f) >= 1200


def test_the_table_follows_eviction_and_clearing():
    f = jc.jit(lambda x: x + 1, max_signatures=2)
    for n in (1, 2, 3, 1, 2, 3):
        x = np.arange(float(n))
        np.testing.assert_array_equal(warm(f, x), x + 1)
        live = [made[0] for made in f._native_entries.values() if made is not None]
        assert all(e in f._fast_cache.values() for e in live) and len(live) <= 2
    f.clear_cache()
    assert f._native_entries == {} and f._native[0] == 0
    np.testing.assert_array_equal(warm(f, np.ones(2)), np.full(2, 2.0))


def test_a_wrong_object_in_the_slot_is_never_read_as_a_table():
    f = jc.jit(lambda x: x - 1)
    x = np.ones(3)
    warm(f, x)
    for junk in (5, None, object(), np.zeros(3, np.int64)):
        f._native = junk
        np.testing.assert_array_equal(f(x), x - 1)
    del f._native
    np.testing.assert_array_equal(f(x), x - 1)


def test_a_profile_puts_back_the_native_call():
    f = jc.jit(lambda x: x * x)
    x = np.arange(3.0)
    warm(f, x)
    native = JitFunction.__dict__["__call__"]
    with jc.profile() as p:
        np.testing.assert_array_equal(f(x), x * x)
    assert len(p.calls) == 1 and JitFunction.__dict__["__call__"] is native


def test_scratch_buffers_and_results_of_other_kinds():
    f = jc.jit(lambda x: {"sum": x.sum(axis=0), "scaled": (x * 2, x.T)})  # a nested tree
    x = np.arange(6.0).reshape(2, 3)
    got = warm(f, x)
    np.testing.assert_array_equal(got["sum"], x.sum(axis=0))
    np.testing.assert_array_equal(got["scaled"][0], x * 2)
    np.testing.assert_array_equal(got["scaled"][1], x.T)
    g = jc.jit(lambda x: x)  # the argument itself
    assert warm(g, x) is x


def test_scalar_results_as_numpy_gives_them():
    f = jc.jit(lambda x: (x.sum(), x + 1, x.max()))
    x = np.arange(5, dtype=np.float32)
    warm(f, x)
    before = native_calls(f)
    got, expected = f(x), python_call(f, x)
    assert native_calls(f) == before + 1
    assert [type(v) for v in got] == [type(v) for v in expected] == [np.float32, np.ndarray, np.float32]
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    total = f(x)[0]
    refs = sys.getrefcount(total)
    for _ in range(1000):
        got = f(x)
    counts = sys.getrefcount(total), sys.getrefcount(got[0])  # outside assert: pytest keeps its operands
    assert counts == (refs, 2)  # got[0]: the tuple's, the argument's


def test_errors_in_status_words_and_callbacks_are_raised():
    t = jc.jit(lambda x, i: x[i])  # the code checks the indices: status words
    x, idx = np.arange(8.0), np.array([1, 3, 5])
    warm(t, x, idx)
    np.testing.assert_array_equal(t(x, idx), x[idx])
    before = native_calls(t)
    refs = sys.getrefcount(x), sys.getrefcount(idx)
    for _ in range(50):
        with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 8"):
            t(x, np.array([1, 9, 2]))
    assert native_calls(t) >= before + 49 and (sys.getrefcount(x), sys.getrefcount(idx)) == refs
    seen = []

    def callback(v):
        seen.append(float(v.sum()))
        if v.sum() > 100:
            raise ValueError("too big")

    @jc.jit
    def f(v):
        jc.debug_callback(callback, v)
        return v * 2

    v = np.ones(4)
    warm(f, v)
    np.testing.assert_array_equal(f(v), 2 * v)
    for _ in range(3):
        with pytest.raises(ValueError, match="too big"):
            f(v * 50)
    assert seen == [4.0] * 3 + [200.0] * 3


# -- keywords and static arguments -------------------------------------------------------------
def natively(f, *args, **kwargs):
    """``f``'s cached call, made by the native call (checked), against the Python path's."""
    f(*args, **kwargs)
    f(*args, **kwargs)  # the second cached call offers the native entry
    before = native_calls(f)
    got = f(*args, **kwargs)
    assert native_calls(f) == before + 1, (args, kwargs)
    expected = python_call(f, *args, **kwargs)
    assert type(got) is type(expected) and np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)
    return got


def test_keyword_calls_are_called_natively_with_the_positional_calls_code():
    f = jc.jit(lambda a, b, c: a * 2 + b - c)  # not symmetric: each argument at its place
    x = np.linspace(-1, 1, 6, dtype=np.float32)
    y, z = x[::-1].copy(), np.arange(6, dtype=np.float32)
    expected = x * 2 + y - z
    np.testing.assert_array_equal(natively(f, x, y, z), expected)
    for args, kwargs in [((x,), dict(b=y, c=z)), ((x,), dict(c=z, b=y)), ((), dict(c=z, a=x, b=y)),
                         ((x, y), dict(c=z)), ((x,), {"".join("bc")[:1]: y, "c": z})]:  # a name made here
        np.testing.assert_array_equal(natively(f, *args, **kwargs), expected)
    assert f.cache_info().compiles == 1  # every call above: the positional call's executable
    s, big = np.float32(0.5), np.arange(24.0).reshape(4, 6)  # numbers, ints, strided arrays
    np.testing.assert_array_equal(natively(f, big[:, ::2], c=2.5, b=-0.0), big[:, ::2] * 2 - 2.5)
    np.testing.assert_array_equal(natively(f, c=s, b=7, a=big[::-1, 1::3]), big[::-1, 1::3] * 2 + 7 - s)
    before = native_calls(f)
    np.testing.assert_array_equal(f(x, b=y, c=300), x * 2 + y - 300)  # the int's other signature
    np.testing.assert_array_equal(f(x, y, c=z.astype(np.float64)), x * 2 + y - z.astype(np.float64))
    assert native_calls(f) == before


def test_static_arguments_match_by_type_and_value():
    def total(x, axis=0, scale=1.0, name="sum"):
        return (x.sum(axis=axis) if name == "sum" else x.max(axis=axis)) * scale

    f = jc.jit(total, static_argnames=("axis", "name"))
    x = np.arange(12.0).reshape(3, 4)
    for args, kwargs in [((x,), dict(axis=1)), ((x, 1), {}), ((x, 0, 2.0), dict(name="max")),
                         ((x,), dict(name="max", axis=1, scale=3)), ((x,), {})]:
        got = natively(f, *args, **kwargs)
        np.testing.assert_array_equal(got, total(*args, **kwargs))
    before = native_calls(f)
    name = "".join(["ma", "x"])  # an equal value, another object: the entry's code
    np.testing.assert_array_equal(f(x, name=name, axis=1, scale=3), x.max(axis=1) * 3)
    assert native_calls(f) == before + 1
    for args, kwargs in [((x,), dict(axis=0)), ((x,), dict(axis=True)), ((x, 1), dict(name="min"))]:
        try:  # other values or types: the Python path, as it answers today
            expected = python_call(f, *args, **kwargs)
        except Exception as e:
            with pytest.raises(type(e)) as native:
                f(*args, **kwargs)
            assert str(native.value) == str(e)
        else:
            np.testing.assert_array_equal(f(*args, **kwargs), expected)
    assert native_calls(f) == before + 1
    g = jc.jit(lambda x, n, y: x * n + y, static_argnums=1)  # a static argument between two traced
    np.testing.assert_array_equal(natively(g, x, 1000, y=x), x * 1000 + x)
    np.testing.assert_array_equal(g(x, int("1000"), y=x), x * 1000 + x)
    np.testing.assert_array_equal(g(x, 999, y=x), x * 999 + x)
    assert native_calls(g) == 2


def test_defaults_and_partials_as_the_python_path():
    def shifted(x, y, s=2.0):
        return x * s + y

    f = jc.jit(shifted)
    x, y = np.arange(4.0), np.ones(4)
    np.testing.assert_array_equal(natively(f, x, y=y), x * 2 + y)
    partial = functools.partial(f, y=y)  # its keywords reach f as a call's
    before = native_calls(f)
    np.testing.assert_array_equal(partial(x), x * 2 + y)
    assert native_calls(f) == before + 1
    shifted.__defaults__ = (5.0,)  # the code keeps the default it was traced with, on both paths
    np.testing.assert_array_equal(f(x, y=y), python_call(f, x, y=y))
    np.testing.assert_array_equal(natively(f, x, y=y, s=3.0), x * 3 + y)


def test_keyword_errors_are_the_python_paths():
    f = jc.jit(lambda x, y: x + y)
    x = np.ones(3)
    natively(f, x, y=x)
    for args, kwargs in [((x,), dict(z=x)), ((x,), dict(x=x)), ((), dict(y=x)), ((x,), dict(y=x, z=x)),
                         ((x, x), dict(y=x)), ((x,), dict(y="text"))]:
        with pytest.raises(Exception) as python:
            python_call(f, *args, **kwargs)
        with pytest.raises(type(python.value)) as native:
            f(*args, **kwargs)
        assert str(native.value) == str(python.value) and isinstance(native.value, TypeError)
    with pytest.raises(TypeError, match="keywords must be strings"):
        f(x, **{1: x})
    np.testing.assert_array_equal(f(x, y=x), 2 * x)


@pytest.mark.filterwarnings("ignore:divide by zero", "ignore:invalid value")
def test_static_numbers_are_told_apart_by_type_and_bits():
    # 1, 1.0 and True are ==, so are 0.0 and -0.0, but code traced with one computes otherwise
    # for another (x * 1 keeps int32 where x * 1.0 makes float64; 1 / -0.0 is -inf): each is a
    # signature of its own, on the Python path and in the native call; NaNs are one signature.
    scale = jc.jit(lambda x, k: x * k - x, static_argnames=("k",))
    divide = jc.jit(lambda x, s: x / s, static_argnames=("s",))
    x = np.arange(-2, 3, dtype=np.int32)
    for f, values in [(scale, [1, 1.0, True, np.float32(1), 1 + 0j, 1]),
                      (divide, [0.0, -0.0, float("nan"), float("nan"), np.float64(-0.0), 0.0, -0.0])]:
        for value in values:
            expected = x * value - x if f is scale else x / value
            for _ in range(3):  # the full path, the memo's, the native call
                got = f(x, k=value) if f is scale else f(x, s=value)
                assert got.dtype == expected.dtype, value
                np.testing.assert_array_equal(got, expected)
    assert scale.cache_info().misses == 5 and divide.cache_info().misses == 4
    assert native_calls(scale) >= 5 and native_calls(divide) >= 7


def test_keyword_and_static_calls_keep_reference_counts():
    f = jc.jit(lambda x, y, n: x * n + y, static_argnames=("n",))
    x, y, n = np.ones(5, np.float32), np.arange(5, dtype=np.float32), 1000
    natively(f, x, y=y, n=n)
    natively(f, x, n=n, y=y)  # each order its entry (which holds n)
    counts = lambda: (sys.getrefcount(x), sys.getrefcount(y), sys.getrefcount(n), sys.getrefcount(f._native))  # noqa: E731
    out = f(x, y=y, n=n)
    before = counts()
    for _ in range(2000):
        out = f(x, n=n, y=y) if _ % 2 else f(x, y=y, n=n)
    assert counts() == before and sys.getrefcount(out) == 2
