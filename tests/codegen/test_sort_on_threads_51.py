"""Float sorts on the runtime's threads (codegen/cpu/sort_quick.py, sort51): np.sort of float32
and float64 lanes just below and above ``THREADED_FROM`` and past the lengths the radix path
keeps on one thread, against NumPy's (values, and bits: -0.0 and 0.0, and NaNs' payloads, in
input order, NumPy's ``kind='stable'``), dtypes, types and the argument after the call, on 1
and 2 threads (the same bits); NaN, -0.0, inf, duplicates, sorted, reversed, all equal; the
threaded kernel past its depth limit; and the route (before sort51 float64 lanes of 10^5 keys
went by the radix path whatever the threads)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.backend import backend_for
from jitcore.codegen.cpu import runtime, sort_quick, target
from tests.budget import examples

AVX512 = "avx512" in target.kernel_isa()
pytestmark = pytest.mark.skipif(not AVX512, reason="the quicksort runs on AVX-512 targets only")
FLOATS = ["float64", "float32"]
EDGE = sort_quick.THREADED_FROM
SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _data(kind: str, n: int, dt: str, rng) -> np.ndarray:
    whole = rng.standard_normal(n) * 1000
    x = {
        "uniform": lambda: rng.random(n),
        "special": lambda: np.where(rng.random(n) < 0.3, rng.choice(SPECIAL, n), whole),
        "few": lambda: rng.integers(0, 5, n) * 1.5,
        "sorted": lambda: np.sort(whole),
        "reversed": lambda: np.sort(whole)[::-1],
        "equal": lambda: np.full(n, -0.0),
        "zeros": lambda: rng.choice(np.array([0.0, -0.0, np.inf]), n),
    }[kind]()
    x = np.ascontiguousarray(x).astype(dt)
    nan = np.isnan(x)  # NaNs with payloads and signs of their own, kept in input order
    payload = (np.arange(nan.sum()) % 5).astype(_bits(x).dtype)
    x[nan] = (_bits(x[nan]) | payload).view(dt)
    return x


_sort = jc.jit(lambda a: np.sort(a))


def _check_on_threads(x):
    before = x.copy()
    want = np.sort(x, kind="stable")
    got = {}
    for threads in (1, 2):
        with jc.config.using(num_threads=threads, parallel_threshold=1 << 18):
            got[threads] = _sort(x)
    for threads, y in got.items():
        assert type(y) is type(want) and y.dtype == want.dtype and y.shape == want.shape
        np.testing.assert_array_equal(y, np.sort(x))  # NumPy's default kind, as values
        np.testing.assert_array_equal(_bits(y), _bits(want), err_msg=f"{threads} threads")
    np.testing.assert_array_equal(_bits(x), _bits(before))  # the argument is left as it was


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("kind", ["uniform", "special", "few", "sorted", "reversed", "equal", "zeros"])
def test_across_the_threshold(dt, kind):
    rng = np.random.default_rng(len(kind))
    for n in (EDGE - 1, EDGE, 3 * EDGE + 7):
        _check_on_threads(_data(kind, n, dt, rng))


@pytest.mark.parametrize("dt", FLOATS)
def test_lengths_the_radix_path_keeps_on_one_thread(dt):
    """float64 of 10^5-2^21 keys: the radix path on one thread, the quicksort on two."""
    rng = np.random.default_rng(3)
    for kind in ("special", "few"):
        _check_on_threads(_data(kind, 150001, dt, rng))


@settings(max_examples=examples(12, 4), deadline=None)
@given(dt=st.sampled_from(FLOATS), n=st.integers(EDGE - 2, EDGE + 40000),
       distinct=st.sampled_from([2, 50, 1 << 30]), specials=st.sampled_from([0.0, 0.01, 0.5]),
       seed=st.integers(0, 2**32 - 1))
def test_by_hypothesis(dt, n, distinct, specials, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, distinct, n) / 7.0 - 3
    x = np.where(rng.random(n) < specials, rng.choice(SPECIAL, n), x)
    _check_on_threads(x.astype(dt))


def test_rows_of_a_2d_array():
    x = _data("special", 2 * (EDGE + 100), "float32", np.random.default_rng(8)).reshape(2, -1)
    fn = jc.jit(lambda a: np.sort(a, axis=-1))
    want = np.sort(x, axis=-1, kind="stable")
    for threads in (1, 2):
        with jc.config.using(num_threads=threads, parallel_threshold=1 << 18):
            np.testing.assert_array_equal(_bits(fn(x)), _bits(want))


# The kernels alone: ``i64 sort(data, n, depth)``, keys without NaN (sort.py moves them out),
# and ``void argselect(data, positions, n, k, range)``; a module per (width, lanes, part).
_modules = {}


def _kernels(width: int, lanes: int):
    """The process's own copies (``sort_quick.load_shared``, as a jitted sort loads them)."""
    if (width, lanes) not in _modules:
        symbols = [sort_quick.shared_symbol(width, lanes), sort_quick.select_symbol(width, lanes, True)]
        sort_quick.load_shared(" ".join(symbols), backend_for("cpu")._compile_and_load)
        sort = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                ctypes.c_int64)(sort_quick._loaded[symbols[0]])
        select = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                  ctypes.c_int64, ctypes.c_void_p)(sort_quick._loaded[symbols[1]])
        _modules[width, lanes] = (sort, select)
    return _modules[width, lanes]


@pytest.mark.parametrize("width", [32, 64])
def test_threaded_kernel_segments_and_depth(width):
    """Every segment of the threaded split sorted (lengths that leave a segment of one key, or
    an empty one, after a round); past its depth limit the kernel gives up, on any thread
    count, and within it it never does."""
    fn = _kernels(width, 512 // width)[0]
    rng = np.random.default_rng(9)
    for n in (EDGE, EDGE + 1, 5 * EDGE + 3):
        x = rng.standard_normal(n).astype(f"float{width}")
        x[::97] = 0.5  # duplicates of a likely pivot
        for threads in (1, 2):
            with jc.config.using(num_threads=threads, parallel_threshold=1 << 18):
                data = x.copy()
                assert fn(data.ctypes.data, n, sort_quick.depth_limit(n)) == 0
                np.testing.assert_array_equal(data, np.sort(x))
                data = x.copy()
                assert fn(data.ctypes.data, n, 2) == 1  # gave up in a round or a segment
                assert fn(x.copy().ctypes.data, n, sort_quick.SPLIT_LEVELS) == 1


@pytest.mark.parametrize("dt", FLOATS)
def test_route(dt):
    """The quicksort's symbol where float64 lanes of 10^5 went by the radix path alone."""
    bits = np.dtype(dt).itemsize * 8
    text = jc.jit(lambda a: np.sort(a)).lower(np.zeros(150000, dtype=dt)).plan().llvm_ir
    assert f"{sort_quick.SYMBOL_PREFIX}_f{bits}_w{512 // bits}_sort" in text
    # the kernel launches its segments on the pool
    assert runtime.RUN_CHUNKS_SYMBOL in str(sort_quick._QuickKernel(bits, 512 // bits).module)


# np.partition of floats by the quicksort's vector partitions (sort_select.py's VECTOR_FROM).
def _check_partition(x, kth, arg=False):
    before = x.copy()
    if arg:  # a permutation of the positions that partitions the keys
        order = jc.jit(lambda a: np.argpartition(a, kth))(x)
        want = np.argpartition(x, kth)
        assert type(order) is type(want) and order.dtype == want.dtype and order.shape == want.shape
        np.testing.assert_array_equal(np.sort(order), np.arange(x.size))
        got, want = x[order], np.partition(x, kth)
    else:
        got = jc.jit(lambda a: np.partition(a, kth))(x)
        want = np.partition(x, kth)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.sort(got), np.sort(x))  # the same keys, NaNs included
    for k in np.atleast_1d(kth):
        np.testing.assert_array_equal(got[k], want[k])  # the key sorting puts there
        assert not np.any(got[:k] > got[k]) and not np.any(got[k + 1:] < got[k])
    np.testing.assert_array_equal(_bits(x), _bits(before))


@pytest.mark.parametrize("arg", [False, True], ids=["partition", "argpartition"])
@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("kind", ["uniform", "special", "few", "sorted", "reversed", "equal"])
def test_partition_by_vectors(dt, kind, arg):
    from jitcore.codegen.cpu import sort_select
    rng = np.random.default_rng(len(kind) + 20)
    edge = sort_select.VECTOR_FROM
    for n in (edge, edge + 1, 60000):
        x = _data(kind, n, dt, rng)
        for kth in (n // 3, (0, 5, n // 2, n - 1)):
            _check_partition(x, kth, arg)


@pytest.mark.parametrize("dt", FLOATS)
def test_partition_route(dt):
    """Before sort51 a float partition selected by scalar Lomuto passes only."""
    bits = np.dtype(dt).itemsize * 8
    text = jc.jit(lambda a: np.partition(a, 7)).lower(np.zeros(5000, dtype=dt)).plan().llvm_ir
    assert sort_quick.select_symbol(bits, 512 // bits) in text
    text = jc.jit(lambda a: np.argpartition(a, 7)).lower(np.zeros(5000, dtype=dt)).plan().llvm_ir
    assert sort_quick.select_symbol(bits, 512 // bits, positions=True) in text


@pytest.mark.parametrize("width,lanes", [(32, 16), (64, 2)])
def test_argselect_kernel_alone(width, lanes):
    """Positions move with their keys at vector widths of 16 keys (float32's, whose positions
    move in two parts) and 2; the range left holds the rank, and the keys around it are on
    their sides."""
    fn = _kernels(width, lanes)[1]
    rng = np.random.default_rng(width + lanes)
    for n, k in ((3000, 1000), (3000, 0), (20011, 20010), (20011, 7777)):
        x = rng.integers(0, 50, n).astype(f"float{width}")
        keys, pos, left = x.copy(), np.arange(n), np.zeros(2, np.int64)
        fn(keys.ctypes.data, pos.ctypes.data, n, k, left.ctypes.data)
        np.testing.assert_array_equal(keys, x[pos])
        np.testing.assert_array_equal(np.sort(pos), np.arange(n))
        lo, hi = left
        if lo == hi:  # done: rank k among keys equal to the pivot, in place
            assert keys[k] == np.sort(x)[k]
        else:
            assert lo <= k < hi
        assert np.all(keys[:lo] <= np.sort(x)[k]) and np.all(keys[max(hi, k + 1):] >= np.sort(x)[k])
