"""The cached call's short path (``dispatch.fast_key``, ``Executable.call_flat``): every kind
of result it returns, the calls it must leave to the general path, threads and reentrant calls
sharing one executable's descriptors, and a call made while another function is traced.

Results are checked against NumPy on each path.
"""

import threading

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import dispatch


def tanh2(x, y):
    return jnp.tanh(x * 2 + y)


def f32(n, start=-1.5):
    return np.linspace(start, 1.5, n).astype(np.float32)


def test_fast_key_takes_plain_contiguous_arrays_only():
    x = f32(8)
    assert dispatch.fast_key((x, x)) == (x.dtype, x.shape, x.dtype, x.shape)
    assert dispatch.fast_key((x,)) == (x.dtype, x.shape)
    assert dispatch.fast_key((x, x, x)) == (x.dtype, x.shape) * 3
    assert dispatch.fast_key(()) == ()
    m = np.ones((4, 6))
    for other in (x[::2], m.T, m[:, 1:], 1.0, [1.0], np.float32(1), np.ma.masked_array(x), object()):
        assert dispatch.fast_key((x, other)) is None and dispatch.fast_key((other,)) is None
        assert dispatch.fast_key((other, x, x)) is None


def test_the_short_path_is_taken_and_computes_what_the_first_call_did():
    f = jc.jit(tanh2)
    x, y = f32(8), f32(8)[::-1].copy()
    first = f(x, y)
    assert len(f._fast_cache) == 1
    executable = next(iter(f._fast_cache.values()))
    assert executable._flat is not None  # a fresh buffer returned alone: the short path
    for k in range(3):
        x2 = x + k
        np.testing.assert_allclose(f(x2, y), np.tanh(x2 * 2 + y), rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(f(x, y), first)
    assert f(x, y) is not f(x, y)  # each call its own result
    assert f.cache_info()[:4] == (6, 1, 1, 1)


@pytest.mark.parametrize("fn, count", [
    (lambda x, y: (x + y, x * y, jnp.sin(x)), 3),          # a flat tuple of fresh buffers
    (lambda x, y: [x + y, x - y], 2),                      # a list: the general path
    (lambda x, y: {"s": x + y}, 1),                        # a dict
    (lambda x, y: (x + y, x + y), 2),                      # one value twice: distinct arrays
    (lambda x, y: x, 1),                                   # an argument itself
    (lambda x, y: (x + y).sum(), 1),                       # a NumPy scalar
    (lambda x, y: (x + y).reshape(2, 4).T, 1),             # a transposed result
])
def test_each_kind_of_result_matches_numpy_on_every_call(fn, count):
    f = jc.jit(fn)
    x, y = f32(8), f32(8, -1.0)
    for _ in range(3):  # the first call compiles; the later ones take the cached path
        got, want = f(x, y), fn(x, y)
        assert type(got) is type(want)
        if isinstance(want, dict):
            got, want = list(got.values()), list(want.values())
        if not isinstance(want, (tuple, list)):
            got, want = [got], [want]
        assert len(got) == len(want) == count
        for g, w in zip(got, want):
            assert type(g) is type(w) and np.shape(g) == np.shape(w)
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)
        if isinstance(got[0], np.ndarray) and len(got) == 2 and fn(x, y)[0] is not fn(x, y)[1]:
            assert not np.shares_memory(got[0], got[1])
    if fn(x, y) is x:
        assert f(x, y) is x


def test_a_function_that_writes_an_argument_keeps_numpy_semantics():
    def scale(x, y):
        x[:] = x * 2
        return x + y

    f = jc.jit(scale)
    for _ in range(3):
        x, y = f32(8), f32(8, 0.0)
        want_x = x * 2
        np.testing.assert_allclose(f(x, y), want_x + y, rtol=1e-6)
        np.testing.assert_allclose(x, want_x, rtol=1e-6)
    # one array as both arguments: compiled with it passed once, both names see the write
    # (session 50; refused before), as NumPy's do
    x, x2 = f32(8), f32(8)
    np.testing.assert_array_equal(f(x, x), scale(x2, x2))
    np.testing.assert_array_equal(x, x2)
    with pytest.raises(jc.JitTypeError, match="shares memory"):  # a view of it: still refused
        f(x, x[:])


def test_errors_raised_by_compiled_code_come_through_the_cached_call():
    f = jc.jit(lambda x, i: x[i])
    x = np.arange(5.0)
    assert f(x, np.array([4, 0])).tolist() == [4.0, 0.0]
    assert f(x, np.array([1, 2])).tolist() == [1.0, 2.0]
    with pytest.raises(IndexError, match="out of bounds"):
        f(x, np.array([1, 7]))
    assert f(x, np.array([3, 3])).tolist() == [3.0, 3.0]  # the descriptor went back after the error


def test_a_callback_that_calls_the_same_function_gets_its_own_descriptor():
    """The callback runs while the outer call holds the executable's descriptor: the inner
    call must take another, and both compute right."""
    inner_results, depth = [], []

    def spy(v):
        if not depth:  # the inner call's own callback does not call again
            depth.append(1)
            inner_results.append(f(v, v))
            depth.pop()

    def fn(x, y):
        jc.debug_callback(spy, x)
        return x * 2 + y

    f = jc.jit(fn)
    x, y = f32(8), f32(8, 0.0)
    f(x, y)  # compiles; the callback's call compiles nothing new
    inner_results.clear()
    np.testing.assert_allclose(f(x, y), x * 2 + y, rtol=1e-6)
    np.testing.assert_allclose(inner_results[0], x * 3, rtol=1e-6)


def test_threads_calling_one_cached_signature_each_get_their_own_results():
    f = jc.jit(tanh2)
    y = f32(64)
    f(f32(64), y)
    errors = []

    def work(k):
        x = f32(64, -1.0 + k / 10)
        want = np.tanh(x * 2 + y)
        for _ in range(300):
            got = f(x, y)
            if not np.allclose(got, want, rtol=2e-6, atol=2e-6):
                errors.append(k)
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert f.cache_info().compiles == 1


def test_a_cached_signature_called_while_tracing_is_inlined_not_run():
    inner = jc.jit(tanh2)
    a, b = f32(8), f32(8, 0.0)
    inner(a, b)
    hits = inner.cache_info().hits

    def outer(x):
        return x + inner(a, b)  # concrete arrays: the cached signature, but inside a trace

    got = jc.jit(outer)(np.ones(8, np.float32))
    np.testing.assert_allclose(got, 1 + np.tanh(a * 2 + b), rtol=2e-6, atol=2e-6)
    assert inner.cache_info().hits == hits


def test_calls_with_static_arguments_or_keywords_take_the_general_path():
    f = jc.jit(lambda x, n: x * n, static_argnums=1)
    x = f32(8)
    for n in (2, 3, 2):
        np.testing.assert_allclose(f(x, n), x * n)
    assert f._fast_cache == {}
    g = jc.jit(tanh2)
    for _ in range(2):
        np.testing.assert_allclose(g(x, y=x), np.tanh(x * 3), rtol=2e-6, atol=2e-6)
    assert g.cache_info().compiles == 1


def test_an_executable_subclass_with_its_own_call_is_called_through_it():
    calls = []

    class Counting(dispatch.Executable):
        __slots__ = ()

        def __call__(self, arrays, callers=None):
            calls.append(1)
            return super().__call__(arrays, callers)

    f = jc.jit(tanh2)
    x, y = f32(8), f32(8, 0.0)
    f(x, y)
    (plain,) = f._cache.values()
    counting = Counting(plain.plan, plain.out_tree)
    for table in (f._cache, f._fast_cache):
        for key in table:
            table[key] = counting
    np.testing.assert_allclose(f(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    assert calls == [1]


def test_an_executable_without_the_short_path_stays_off_its_dict(monkeypatch):
    """An executable class that has only __call__ (another backend's) is called on the general
    path, never looked for on the short one."""
    class Plain:
        def __init__(self, executable):
            self.executable = executable

        def __call__(self, arrays, callers=None):
            return self.executable(arrays, callers)

    f = jc.jit(tanh2)
    compile_executable = f._compile_executable
    monkeypatch.setattr(f, "_compile_executable",
                        lambda *a: (lambda e, i: (Plain(e), i))(*compile_executable(*a)))
    x, y = f32(8), f32(8, 0.0)
    for _ in range(3):
        np.testing.assert_allclose(f(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    assert f._fast_cache == {} and f.cache_info().compiles == 1
