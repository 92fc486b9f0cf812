"""Float sorts by vector partitions (codegen/cpu/sort_quick.py, sort49): np.sort of float32 and
float64 lanes against NumPy's (values, and bits: -0.0 and 0.0, and NaNs' payloads, in input
order as jitcore promises for every kind, which is NumPy's ``kind='stable'``), dtypes, types and
the argument after the call; uniform, normal, few distinct, sorted, reversed, organ-pipe, all
equal, NaN/inf/-inf/-0.0 mixed in, subnormals; rows of a 2-D array and axis=0; the radix path
taken past the depth limit; the quicksort kernel alone at every vector width (2-16 keys a
compare, so the partitions and networks are checked as they would run on any target); and
that the route is the quicksort (before sort49 every such lane went by radix)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.backend import backend_for
from jitcore.codegen.cpu import sort_quick, target

FLOATS = ["float64", "float32"]
AVX512 = "avx512" in target.kernel_isa()
needs_avx512 = pytest.mark.skipif(not AVX512, reason="the quicksort is chosen on AVX-512 targets only")


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _check(fn, x, **kw):
    before = x.copy()
    got = fn(x)
    want = np.sort(x, kind="stable", **kw)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, np.sort(x, **kw))  # NumPy's default kind, as values
    np.testing.assert_array_equal(_bits(got), _bits(want))  # zeros' signs, NaNs' bits in order
    np.testing.assert_array_equal(_bits(x), _bits(before))  # the argument is left as it was


def _data(kind: str, n: int, dt, rng) -> np.ndarray:
    dt = np.dtype(dt)
    whole = rng.standard_normal(n) * 1000
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])
    x = {
        "uniform": lambda: rng.random(n),
        "normal": lambda: whole,
        "few": lambda: rng.integers(0, 5, n) * 1.5,
        "sorted": lambda: np.sort(whole),
        "reversed": lambda: np.sort(whole)[::-1],
        "organ": lambda: np.concatenate([np.arange(n // 2), np.arange(n - n // 2)[::-1]]) * 1.0,
        "equal": lambda: np.full(n, 2.5),
        "special": lambda: np.where(rng.random(n) < 0.3, rng.choice(special, n), whole),
        "zeros": lambda: rng.choice(np.array([0.0, -0.0]), n),
        "subnormal": lambda: rng.standard_normal(n) * (1e-310 if dt == np.float64 else 1e-40),
        "nans": lambda: np.where(rng.random(n) < 0.5, np.nan, whole),
    }[kind]()
    x = np.ascontiguousarray(x).astype(dt)
    if kind == "special":  # NaNs with payloads and signs of their own
        nan = np.isnan(x)
        payload = (np.arange(nan.sum()) % 5).astype(_bits(x).dtype)
        sign = np.where(np.arange(nan.sum()) % 2, 0, 1 << (dt.itemsize * 8 - 1)).astype(payload.dtype)
        x[nan] = ((_bits(x[nan]) | payload) ^ sign).view(dt)
    return x


KINDS = ["uniform", "normal", "few", "sorted", "reversed", "organ", "equal", "special", "zeros",
         "subnormal", "nans"]
_sort = jc.jit(lambda a: np.sort(a))


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("kind", KINDS)
def test_lanes_the_quicksort_takes(dt, kind):
    rng = np.random.default_rng(len(kind))
    x = _data(kind, 40000, dt, rng)
    assert sort_quick.use_quicksort(x.dtype.itemsize * 8, x.size, target.kernel_isa()) or not AVX512
    _check(_sort, x)


@pytest.mark.parametrize("dt", FLOATS)
def test_every_length_class(dt):
    """Lengths that leave partial vectors, around the range the quicksort takes, and past it."""
    rng = np.random.default_rng(1)
    for n in (16385, 30001, 99999, 100000, 131073):
        _check(_sort, _data("special", n, dt, rng))


@pytest.mark.parametrize("dt", FLOATS)
def test_long_lanes_forced(dt, monkeypatch):
    """10^5 and 10^6 keys through the quicksort, whichever lengths it is chosen for."""
    monkeypatch.setitem(sort_quick.QUICK_LENGTHS, np.dtype(dt).itemsize * 8, ((0, 1 << 62),))
    rng = np.random.default_rng(2)
    fn = jc.jit(lambda a: np.sort(a), cache=False)
    for kind, n in (("normal", 10**6), ("special", 10**5), ("few", 10**6), ("organ", 3 * 10**5)):
        _check(fn, _data(kind, n, dt, rng))


@pytest.mark.parametrize("dt", FLOATS)
def test_rows_and_axis_0(dt):
    rng = np.random.default_rng(3)
    x = _data("special", 3 * 20000, dt, rng).reshape(3, 20000)
    _check(jc.jit(lambda a: np.sort(a, axis=-1)), x, axis=-1)
    _check(jc.jit(lambda a: np.sort(a, axis=0)), np.ascontiguousarray(x.T), axis=0)
    y = np.concatenate([x, x], axis=1)
    before = y.copy()
    got = jc.jit(lambda a: np.sort(a[:, ::2], axis=-1))(y)  # strided lanes
    np.testing.assert_array_equal(_bits(got), _bits(np.sort(y[:, ::2], axis=-1, kind="stable")))
    np.testing.assert_array_equal(_bits(y), _bits(before))


@pytest.mark.parametrize("dt", FLOATS)
def test_past_the_depth_limit_the_radix_path(dt, monkeypatch):
    """A sort that gives up (here after one level) is sorted again by the radix path."""
    monkeypatch.setattr(sort_quick, "depth_limit", lambda n: 1)
    rng = np.random.default_rng(4)
    fn = jc.jit(lambda a: np.sort(a), cache=False)
    for kind in ("special", "normal"):
        _check(fn, _data(kind, 50000, dt, rng))


@needs_avx512
@pytest.mark.parametrize("dt", FLOATS)
def test_route_is_the_quicksort(dt):
    """Before sort49 these lanes went by the radix path (no quicksort symbol)."""
    bits = np.dtype(dt).itemsize * 8
    text = jc.jit(lambda a: np.sort(a)).lower(np.zeros(50000, dtype=dt)).plan().llvm_ir
    assert f"{sort_quick.SYMBOL_PREFIX}_f{bits}_w{512 // bits}_sort" in text
    text = jc.jit(lambda a: np.sort(a)).lower(np.zeros(10**6, dtype=dt)).plan().llvm_ir
    # float64 random keys at 10^6 measured no faster than by the radix path on one thread (on
    # several, the quicksort's threaded rounds: sort51)
    assert sort_quick.SYMBOL_PREFIX in text
    assert (sort_quick.use_quicksort(bits, 10**6, target.kernel_isa()) is None) == (dt == "float64")


# The kernel alone, at every vector width: the keys hold no NaN (sort.py moves them out first).
# Each is the process's own copy (``sort_quick.load_shared``, as a jitted sort loads it): a width
# that another test of this process sorted at is not compiled again (2-3 s of LLVM a module).
_kernels = {}


def _kernel(width: int, lanes: int):
    if (width, lanes) not in _kernels:
        symbol = sort_quick.shared_symbol(width, lanes)
        sort_quick.load_shared(symbol, backend_for("cpu")._compile_and_load)
        _kernels[width, lanes] = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                                  ctypes.c_int64)(sort_quick._loaded[symbol])
    return _kernels[width, lanes]


def _sorted_by_kernel(x: np.ndarray, lanes: int, depth=None):
    data = x.copy()
    fn = _kernel(x.dtype.itemsize * 8, lanes)
    failed = fn(data.ctypes.data, x.size,
                sort_quick.depth_limit(x.size) if depth is None else depth)
    return failed, data


def _same_keys(got, x):
    np.testing.assert_array_equal(got, np.sort(x))  # -0.0 == 0.0: equal keys, any order
    assert np.signbit(got[got == 0]).sum() == np.signbit(x[x == 0]).sum()  # nothing lost


WIDTHS = [(32, 4), (32, 8), (32, 16), (64, 2), (64, 4), (64, 8)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(width_lanes=st.sampled_from(WIDTHS), n=st.integers(0, 5000),
       kind=st.sampled_from([k for k in KINDS if k not in ("special", "nans")] + ["inf"]),
       seed=st.integers(0, 2**32 - 1))
def test_kernel_at_every_width(width_lanes, n, kind, seed):
    width, lanes = width_lanes
    dt = f"float{width}"
    rng = np.random.default_rng(seed)
    if kind == "inf":  # infinities and signed zeros among numbers, no NaN
        x = rng.choice(np.array([np.inf, -np.inf, 0.0, -0.0, 1.0, -2.0, 3.5], dtype=dt), n)
    else:
        x = _data(kind, n, dt, rng)
    failed, got = _sorted_by_kernel(x, lanes)
    assert failed == 0
    _same_keys(got, x)


@pytest.mark.parametrize("width,lanes", WIDTHS)
def test_kernel_long_and_adversarial(width, lanes):
    rng = np.random.default_rng(5)
    for kind in ("uniform", "few", "organ", "sorted", "reversed", "equal"):
        x = _data(kind, 200003, f"float{width}", rng)
        failed, got = _sorted_by_kernel(x, lanes)
        assert failed == 0, kind  # these stay within the depth limit
        _same_keys(got, x)


@pytest.mark.parametrize("width,lanes", WIDTHS)
def test_kernel_gives_up_past_its_depth(width, lanes):
    x = np.random.default_rng(6).random(5000).astype(f"float{width}")
    assert _sorted_by_kernel(x, lanes, depth=2)[0] == 1
    assert _sorted_by_kernel(x[:sort_quick.NETWORK_VECTORS[width] * lanes], lanes, depth=0)[0] == 0
