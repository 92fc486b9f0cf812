"""np.sort and np.argsort (the compiled ``array.sort``/``array.argsort``) against NumPy's stable
sort: every real dtype, axes None / int / negative, 0-d and size-0 arrays, NaN (either sign),
infinities, -0.0 and 0.0 (equal: they keep their input order), ties; lanes short enough to
merge and long enough to radix-sort; strided layouts. Then the order statistics built on them.

jitcore's sort is stable for every ``kind``; NumPy's default kind documents no tie order, so the
oracle is always ``kind='stable'`` (the sorted values are the same for any kind).
"""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore.codegen.cpu import sort as native_sort
from jitcore.codegen.cpu import sort_buckets as buckets
from jitcore.codegen.cpu import sort_lanes
from jitcore.passes.kernelize.sort import LANES_UP_TO, RADIX_FROM
from tests.budget import examples, signatures
from tests.jitcore.test_select import assert_argpartitioned, assert_partitioned
from tests.layouts import layouts, relayout
from tests.strategies import arrays

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                np.uint32, np.uint64, np.float16, np.float32, np.float64)]
SOME = settings(max_examples=examples(15, ci=8), deadline=None)  # CI: about half, see tests/budget.py

SORT = jc.jit(lambda a, axis: np.sort(a, axis=axis), static_argnames=("axis",))
ARGSORT = jc.jit(lambda a, axis: np.argsort(a, axis=axis), static_argnames=("axis",))


def assert_same_sort(actual, expected, context: str) -> None:
    """Equal values in equal places (NaN matching NaN), and every zero's sign where NumPy's
    stable sort puts it: -0.0 and 0.0 compare equal, so only stability decides their order."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, context
    assert np.array_equal(actual, expected, equal_nan=expected.dtype.kind == "f"), context
    if expected.dtype.kind == "f":
        assert np.array_equal(np.signbit(actual), np.signbit(expected)), f"signs differ: {context}"


@st.composite
def shape_axis_layout(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1))) if shape else None
    return shape, axis, draw(layouts())


# What a sort compiles for, under the ci profile (tests/budget.py ``signatures``): each dtype
# meets four of these (the dtypes take them in turn), its data drawn afresh each example.
SORT_SIGNATURES = [((), None, "C"), ((0,), 0, "C"), ((7,), -1, "reversed"), ((3, 0), 1, "C"),
                   ((4, 5), 0, "F"), ((4, 5), -1, "strided"), ((2, 3, 4), 1, "broadcast"),
                   ((2, 3, 4), None, "unaligned"), ((1,), None, "C"), ((6, 1, 3), -3, "C")]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@SOME
@given(data=st.data())
def test_sort_and_argsort_match_numpy_stable(dtype, data):
    turn = 4 * DTYPES.index(dtype)
    shape, axis, layout = data.draw(signatures(shape_axis_layout(), SORT_SIGNATURES, turn, 4))
    a = relayout(data.draw(arrays(dtype, shape, layout=False)), layout)
    context = f"{a!r}, axis={axis}"
    assert_same_sort(SORT(a, axis), np.sort(a, axis=axis, kind="stable"), context)
    np.testing.assert_array_equal(ARGSORT(a, axis), np.argsort(a, axis=axis, kind="stable"), context)


def _special_lane(dtype: np.dtype, n: int, rng) -> np.ndarray:
    """n values with many ties and, for floats, NaN of both signs, +-inf and zeros of both signs."""
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind == "u":
        info = np.iinfo(dtype)
        return np.concatenate([rng.integers(0, 40, n - 2).astype(dtype), np.array([info.max, 0], dtype)])
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return np.concatenate([rng.integers(-20, 20, n - 2), [info.max, info.min]]).astype(dtype)
    x = (rng.integers(-40, 40, n) * 0.25).astype(dtype)
    x[rng.random(n) < 0.05] = np.nan
    x[rng.random(n) < 0.03] = -np.nan
    x[rng.random(n) < 0.05] = -0.0
    x[rng.random(n) < 0.02] = np.inf
    x[rng.random(n) < 0.02] = -np.inf
    return x


@pytest.mark.parametrize("n", [RADIX_FROM - 1, LANES_UP_TO + 1, 5 * RADIX_FROM + 3])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_long_lanes_merge_and_radix_sort_stably(dtype, n):
    x = _special_lane(dtype, n, np.random.default_rng(n))
    context = f"{dtype}, n={n}"
    assert_same_sort(SORT(x, -1), np.sort(x, kind="stable"), context)
    np.testing.assert_array_equal(ARGSORT(x, -1), np.argsort(x, kind="stable"), context)


INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64)]


@pytest.mark.parametrize("dtype", INTS, ids=str)
@settings(max_examples=examples(12), deadline=None)
@given(data=st.data())
def test_radix_sorts_ints_of_any_span_and_offset(dtype, data):
    """Integer radix sorting subtracts the lane's smallest key and skips the digits above the
    span: draw spans of every bit length (digit boundaries included) at any offset, so any
    number of passes runs and the sorted lane ends in either buffer."""
    info = np.iinfo(dtype)
    span_bits = data.draw(st.integers(0, dtype.itemsize * 8), label="span_bits")
    span = min((1 << span_bits) - 1, int(info.max) - int(info.min))
    lo = data.draw(st.integers(int(info.min), int(info.max) - span), label="lo")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    offsets = rng.integers(0, span, RADIX_FROM, dtype=np.uint64, endpoint=True)
    offsets[rng.integers(0, RADIX_FROM, 2)] = [0, span]  # both ends of the span occur
    x = (np.array(lo, dtype=object) + offsets.astype(object)).astype(dtype)
    context = f"{dtype}, span_bits={span_bits}, lo={lo}"
    assert_same_sort(SORT(x, -1), np.sort(x, kind="stable"), context)
    np.testing.assert_array_equal(ARGSORT(x, -1), np.argsort(x, kind="stable"), context)


@pytest.mark.parametrize("span", [0, (1 << 16) - 1, 1 << 16, 1 << 40])
@pytest.mark.parametrize("dtype", [np.dtype(np.int64), np.dtype(np.uint32)], ids=str)
def test_one_lane_of_2_to_the_16_ints_counting_sorts_up_to_that_span(dtype, span):
    """A single lane of 2^16 or more ints counting-sorts spans below 2^16 and radix-sorts the
    rest; both ends of each side of that bound."""
    info = np.iinfo(dtype)
    span = min(span, int(info.max) - int(info.min))
    lo = int(info.max) - span if dtype.kind == "u" else -(span // 2)
    rng = np.random.default_rng(span)
    offsets = rng.integers(0, span, 1 << 16, dtype=np.uint64, endpoint=True)
    offsets[:2] = [span, 0]
    x = (np.array(lo, dtype=object) + offsets.astype(object)).astype(dtype)
    assert_same_sort(SORT(x, -1), np.sort(x, kind="stable"), f"{dtype}, span={span}")
    np.testing.assert_array_equal(ARGSORT(x, -1), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_several_long_lanes_along_any_axis(axis):
    rng = np.random.default_rng(1)
    x = _special_lane(np.dtype(np.float64), 3 * RADIX_FROM * 3, rng).reshape(3, -1)[:, ::3].T.copy()
    y = relayout(x, "F") if axis == 0 else x
    assert_same_sort(SORT(y, axis), np.sort(x, axis=axis, kind="stable"), f"axis={axis}")
    np.testing.assert_array_equal(ARGSORT(y, axis), np.argsort(x, axis=axis, kind="stable"))


def test_every_kind_and_the_method_sort_is_stable():
    x = np.array([2.0, -0.0, 1.0, 0.0, np.nan, -np.nan, 1.0, -0.0])
    for kind in (None, "quicksort", "mergesort", "heapsort", "stable"):
        f = jc.jit(lambda a, kind=kind: np.argsort(a, kind=kind))
        np.testing.assert_array_equal(f(x), np.argsort(x, kind="stable"), kind)
    assert_same_sort(jc.jit(lambda a: np.sort(a, stable=True))(x), np.sort(x, kind="stable"), "stable=True")


def test_sort_is_compiled_as_one_kernel():
    text = jc.jit(lambda a: np.sort(a)).lower(np.zeros(10_000)).as_text("optimized")
    assert "array.sort" not in text and "kernel.generic" in text and "scf.for" in text


def test_merge_passes_are_a_loop_one_code_for_every_short_length(monkeypatch):
    """The kernel's merge sort (other backends' code; the CPU's with its networks off) runs its
    passes as a loop, two a step (an odd count ends with a copy back): lengths of 1, 2, 3 and
    6 passes (33, 100, 300, 1000; each one more run than a power of two, or not) are one code,
    each NumPy's stable sort and argsort with NaN, -0.0 and ties; 16 and less (no pass) is
    another."""
    monkeypatch.setattr(sort_lanes, "ENABLED", False)
    both = jc.jit(lambda a: (np.sort(a), np.argsort(a)))
    rng = np.random.default_rng(5)
    for n in (33, 100, 300, 1000, 16):
        x = np.round(rng.standard_normal(n) * 3)
        x[rng.random(n) < 0.1], x[rng.random(n) < 0.1] = np.nan, -0.0
        values, order = both(x)
        assert_same_sort(values, np.sort(x, kind="stable"), f"n={n}")
        np.testing.assert_array_equal(order, np.argsort(x, kind="stable"), f"n={n}")
    assert both.cache_info().compiles == 2, both.cache_info()


def test_bad_sort_arguments_raise_numpy_errors():
    x = np.arange(4.0)
    with pytest.raises(ValueError, match="sort kind must be one of"):
        jc.jit(lambda a: np.sort(a, kind="bogus"))(x)
    with pytest.raises(jc.JitTypeError, match="axis 2 is out of bounds"):
        jc.jit(lambda a: np.sort(a, axis=2))(x)
    with pytest.raises(jc.UnsupportedError, match="complex"):  # (sort and argsort compile)
        jc.jit(lambda a: np.partition(a, 1))(x + 1j)


PATTERNS = ("equal", "sorted", "reversed", "few", "random", "specials", "denormals")


def _adversarial_lane(dtype: np.dtype, n: int, pattern: str, seed: int) -> np.ndarray:
    """``n`` values of ``dtype`` shaped to stress a radix sort: every key equal (no pass runs),
    already sorted, reversed, a few distinct values (most digits uniform), random bits, and for
    floats NaN of both signs, +-inf, zeros of both signs and denormals mixed in."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype)
    if dtype.kind == "b":
        bits = bits.view(np.uint8) & 1
    x = np.asarray(bits, dtype)
    if dtype.kind == "f":
        x = np.where(np.isnan(x), rng.standard_normal(n), x).astype(dtype)
    if pattern == "equal":
        x = np.full(n, x[0], dtype)
    elif pattern in ("sorted", "reversed"):
        x = np.sort(x)[:: 1 if pattern == "sorted" else -1].copy()
    elif pattern == "few":
        x = rng.choice(x[:3], n)
    elif pattern in ("specials", "denormals") and dtype.kind == "f":
        info = np.finfo(dtype)
        pool = ([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0] if pattern == "specials" else
                [info.smallest_subnormal, -info.smallest_subnormal, info.smallest_normal / 2, 0.0, -0.0])
        mask = rng.random(n) < 0.3
        x[mask] = np.array(pool, dtype)[rng.integers(0, len(pool), int(mask.sum()))]
    return x


NATIVE_N = LANES_UP_TO + 1  # radix-sorted: the native routine for float32 and float64 (and the same
# signature as test_long_lanes_merge_and_radix_sort_stably's, so no more compiles)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@settings(max_examples=examples(8, ci=4), deadline=None)
@given(pattern=st.sampled_from(PATTERNS), seed=st.integers(0, 2**32 - 1))
def test_radix_sort_of_adversarial_keys_matches_numpy(dtype, pattern, seed):
    x = _adversarial_lane(dtype, NATIVE_N, pattern, seed)
    context = f"{dtype}, {pattern}, seed={seed}"
    assert_same_sort(SORT(x, -1), np.sort(x, kind="stable"), context)
    np.testing.assert_array_equal(ARGSORT(x, -1), np.argsort(x, kind="stable"), context)


FLOATS = [np.dtype(np.float32), np.dtype(np.float64)]


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_a_lane_of_2_to_the_16_floats_sorts_by_buckets_of_its_top_bits(dtype, pattern, threads):
    """Floats sort first by buckets of their top bits: 16 (float32: 14) where the kernel's
    counter result holds the tables (one lane of 2^16 or more), each bucket then sorted where
    it lies (codegen/cpu/sort_range.py), on one thread or several."""
    x = _adversarial_lane(dtype, 1 << 16, pattern, 7)
    x[: 1 << 12] *= dtype.type(1e-30 if dtype == np.float32 else 1e-300)  # small and large buckets
    with jc.config.using(num_threads=threads, parallel_threshold=0, chunk_size=1 << 10):
        got = SORT(x, -1)
    assert_same_sort(got, np.sort(x, kind="stable"), f"{dtype}, {pattern}, threads={threads}")


def _buckets_of_sizes(dtype: np.dtype, sizes, n: int, rng) -> np.ndarray:
    """``n`` floats: a bucket of each of ``sizes`` (floats sharing sign, exponent and the top
    mantissa bits of the wide bucket digit, far above the rest), the rest standard normals, in
    random order. A size given negative makes a bucket whose keys differ only in their last
    bits (a few distinct in float32): they tie in the window its LSD passes sort by."""
    wide_bits = 16 if dtype == np.float64 else 14
    top_mantissa = wide_bits - (12 if dtype == np.float64 else 9)
    ulp = float(np.finfo(dtype).eps)
    parts = []
    for k, size in enumerate(sizes):
        scale = 2.0 ** (40 + 2 * k) * (-1) ** k
        if size < 0:
            low = rng.integers(0, 1 << 20 if dtype == np.float64 else 4, -size)
            parts.append((1 + low * ulp) * scale)
        else:
            parts.append((1 + rng.random(size) / 2 ** top_mantissa) * scale)
    used = sum(len(p) for p in parts)
    parts.append(rng.standard_normal(n - used))
    x = np.concatenate(parts).astype(dtype)
    return x[rng.permutation(n)]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_buckets_of_every_size_around_the_thresholds(dtype):
    """One lane of 2^18 (counted and scattered in two pieces) whose buckets are 1 and 2 keys,
    either side of the insertion-sorted size (32), of one LSD digit more in the window (128,
    2^16), of the stack's scratch (more uses result B), and one tied in its window (float64:
    the insertion pass gives up, full LSD passes follow; float32's window is its whole key),
    on one thread and on three."""
    room = (128 << 10) // dtype.itemsize
    sizes = [1, 2, 31, 32, 33, 128, 129, room, room + 1, 65536, 65537, -5000]
    x = _buckets_of_sizes(dtype, sizes, 1 << 18, np.random.default_rng(5))
    expected = np.sort(x, kind="stable")
    for threads in (1, 3):
        with jc.config.using(num_threads=threads, parallel_threshold=0, chunk_size=1 << 10):
            assert_same_sort(SORT(x, -1), expected, f"{dtype}, threads={threads}")


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_bucket_chunks_of_keys_meet_buckets_at_their_edges(dtype):
    """The buckets' launch takes chunks of keys (1024 here), each sorting the buckets whose
    first key it holds: buckets that start exactly where a chunk starts, one key before and
    after, and buckets many chunks long, with no normals between them; on three threads."""
    whole = [1024] * 8 + [2048] * 4 + [4096] * 4 + [8192] * 2 + [16384] + [65536] * 3
    shifted = [1023, 1025, *whole[2:-1], 65535, 1]
    for sizes in (whole, shifted):
        assert sum(sizes) == 1 << 18
        x = _buckets_of_sizes(dtype, sizes, 1 << 18, np.random.default_rng(len(sizes)))
        with jc.config.using(num_threads=3, parallel_threshold=0, chunk_size=1 << 10):
            got = SORT(x, -1)
        assert_same_sort(got, np.sort(x, kind="stable"), f"{dtype}, {sizes[:2]}")


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_keys_that_tie_in_the_window_sort_by_full_passes(dtype):
    """Lanes sorted by buckets of 12 bits (float32: two lanes of 2^16, as shorter ones take LSD
    passes) holding floats 1 + k ulp that differ below the window of their bucket's LSD passes:
    the insertion pass gives up and LSD passes over every digit sort them."""
    rng = np.random.default_rng(11)
    shape = (NATIVE_N,) if dtype == np.float64 else (2, 1 << 16)
    x = (rng.standard_normal(shape) * 1e-3).astype(dtype)
    ties = min(8000, shape[-1])
    k = rng.integers(0, 1 << 20 if dtype == np.float64 else 16, (*shape[:-1], ties))
    x[..., :ties] = 1 + k * float(np.finfo(dtype).eps)
    x[..., ::7] *= -1
    assert_same_sort(SORT(x, -1), np.sort(x, kind="stable"), str(dtype))




@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_native_sort_reads_strided_lanes(dtype):
    """Every third element of rows, or rows of a transposed array: the routine reads the input
    through its strides (the first pass and the restoring read)."""
    x = _adversarial_lane(dtype, 3 * 2 * NATIVE_N, "specials", 3).reshape(2, -1)
    view = x[:, ::3] if dtype == np.float32 else x.reshape(-1, 2).T
    assert_same_sort(SORT(view, -1), np.sort(view, kind="stable"), f"{dtype} {view.strides}")
    np.testing.assert_array_equal(ARGSORT(view, -1), np.argsort(view, kind="stable"))


# A lane of whole pieces (codegen/cpu/sort_buckets.py's ``pieces``: 8 for float32, 2 for
# float64), each of whole blocks of BLOCK keys and a tail of BLOCK - 1: the top digit's count and
# scatter make keys a block at a time, then one by one.
BLOCKS_A_PIECE = {4: 64, 8: 256}  # by itemsize: float32 pieces as long as float64's together


def _blocked(dtype: np.dtype) -> tuple[int, int]:
    """The lane's pieces, and keys a piece."""
    piece = BLOCKS_A_PIECE[dtype.itemsize] * buckets.BLOCK + buckets.BLOCK - 1
    count = buckets.pieces(8 * dtype.itemsize, 2 * 256 * buckets.BLOCK, wide=True)
    assert count * piece >= buckets.PIECES_FROM
    return count, piece


SKEWED = ("one binade", "two clusters", "duplicates", "specials in the tails", "specials in blocks")


def _skewed_lane(dtype: np.dtype, kind: str, rng) -> np.ndarray:
    """A lane of ``_blocked`` pieces: floats all in [1, 2), in two narrow clusters, of 400
    values, or normals with NaN of both signs, +-inf and -0.0 only in the pieces' tails or
    only in their blocks."""
    count, piece = _blocked(dtype)
    n = count * piece
    if kind == "one binade":
        return (1 + rng.random(n)).astype(dtype)
    if kind == "two clusters":
        return np.where(rng.random(n) < 0.5, -3 + 1e-3 * rng.random(n), 1e5 + rng.random(n)).astype(dtype)
    if kind == "duplicates":
        return (rng.integers(-200, 200, n) * 0.25).astype(dtype)
    x = rng.standard_normal(n).astype(dtype)
    whole = piece - (buckets.BLOCK - 1)
    starts = range(0, n, piece)
    tails = np.concatenate([np.arange(s + whole, s + piece) for s in starts])
    blocks = np.concatenate([np.r_[s:s + 50, s + whole - 1] for s in starts])
    at = tails if kind == "specials in the tails" else blocks
    pool = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0], dtype)
    x[at] = pool[rng.integers(0, len(pool), len(at))]
    return x


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_keys_made_in_blocks_and_tails_sort_as_numpy(dtype):
    """Lanes of two pieces of whole blocks and a tail, contiguous and every other float, skewed
    every way the top digit meets (one binade: few, long buckets; two clusters; many equal
    keys; the keys' lost signs and NaNs only where keys are made one by one, or only in
    blocks), on one thread and on three."""
    rng = np.random.default_rng(12)
    for kind in SKEWED:
        x = _skewed_lane(dtype, kind, rng)
        spaced = np.zeros(2 * len(x), dtype)
        spaced[::2] = x
        expected = np.sort(x, kind="stable")
        for lane, threads in ((x, 1), (spaced[::2], 3)):
            with jc.config.using(num_threads=threads, parallel_threshold=0, chunk_size=1 << 10):
                got = SORT(lane, -1)
            assert_same_sort(got, expected, f"{dtype}, {kind}, strides={lane.strides}")


def test_long_float_lanes_sort_in_the_native_routine():
    """The float32/float64 radix kernels are codegen/cpu/sort.py's routine (its scatter kernel),
    along the last axis; other dtypes and axes keep the kernel's own loops."""
    def llvm(a, axis=-1):
        return jc.jit(lambda a: np.sort(a, axis=axis)).lower(a).as_text("llvm")
    assert "_scatter" in llvm(np.zeros((2, NATIVE_N), np.float32))
    assert "_scatter" not in llvm(np.zeros(NATIVE_N, np.float16))
    assert "_scatter" not in llvm(np.zeros((NATIVE_N, 2)), axis=0)


def test_bucket_sort_is_compiled_once_per_process_and_called_by_symbol():
    """Two different sorting functions call the process's one copy of the bucket sort's
    kernels (``sort_buckets.shared_symbol``): their modules declare them and define none, and
    both sort as NumPy does."""

    x = np.random.default_rng(3).standard_normal(20000)  # past sort_lanes.ALONE_UP_TO: no network
    x[::7] = -0.0
    fns = [lambda a: np.sort(a), lambda a: np.sort(a * 2.0)[::-1]]
    symbols = set()
    for fn in fns:
        jitted = jc.jit(fn)
        text = jitted.lower(x).as_text("llvm")
        found = set(re.findall(buckets.SYMBOL_PREFIX + r"_f64_s\d+_(?:count|scatter|buckets)\b", text))
        assert len(found) == len(buckets.KERNELS), text[:2000]
        for symbol in found:
            assert f"declare void @{symbol}(" in text or f'declare void @"{symbol}"(' in text
            assert f"define void @{symbol}(" not in text
        assert "_range_insert" not in text and "_lsd" not in text
        symbols |= found
        assert_same_sort(jitted(x), fn(x), "shared bucket sort")
    assert len(symbols) == len(buckets.KERNELS) and symbols <= set(buckets._loaded)


def test_lane_sort_kernels_are_shared_by_every_argsort():
    """The LSD kernels of a float64 argsort (``sort.shared_symbol``; since argsort48 the way
    out of its sort by words, sort_words.py) are declared, not defined, in each function's
    module, and two such functions agree with NumPy's stable sort."""
    x = np.random.default_rng(4).standard_normal(NATIVE_N)
    x[::5] = x[1]  # ties: their order is the stable one
    cases = [(lambda a: np.argsort(a), x), (lambda a: np.argsort(a * 2), x * 2)]
    symbol = native_sort.shared_symbol(64, True, "scatter")
    for fn, keys in cases:
        jitted = jc.jit(fn)
        text = jitted.lower(x).as_text("llvm")
        assert re.search(rf'declare void @"?{symbol}"?\(', text)
        assert not re.search(rf'define void @"?{symbol}"?\(', text)
        np.testing.assert_array_equal(jitted(x), np.argsort(keys, kind="stable"))


def _compiled_in_pieces(fn, dtypes):
    """``fn`` jitted (no disk cache) and compiled for a lane of ``NATIVE_N`` of each dtype while
    the native routine cuts lanes into pieces of 512 (4 pieces; off by default, see MAX_PIECES),
    and sorts float64 by LSD passes over the whole lane (MSD off)."""
    jitted = jc.jit(fn, cache=False)
    saved = native_sort.PIECE, native_sort.MAX_PIECES, native_sort.MSD
    native_sort.PIECE, native_sort.MAX_PIECES, native_sort.MSD = 512, 8, False
    try:
        for dtype in dtypes:
            jitted(np.zeros(NATIVE_N, dtype))
    finally:
        native_sort.PIECE, native_sort.MAX_PIECES, native_sort.MSD = saved
    return jitted


@functools.cache
def _pieces() -> tuple:
    return (_compiled_in_pieces(lambda a: np.sort(a), FLOATS),
            _compiled_in_pieces(lambda a: np.argsort(a), FLOATS))


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@settings(max_examples=examples(6, ci=3), deadline=None)
@given(pattern=st.sampled_from(PATTERNS), seed=st.integers(0, 2**32 - 1))
def test_radix_sort_in_pieces_on_threads_is_the_stable_sort(dtype, threads, pattern, seed):
    """A lane in pieces (each counted and scattered on its own, on any thread) sorts exactly as
    NumPy's stable sort, on one thread or several."""
    x = _adversarial_lane(dtype, NATIVE_N, pattern, seed)
    context = f"{dtype}, {pattern}, seed={seed}, threads={threads}"
    with jc.config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
        got, order = (f(x) for f in _pieces())
    assert_same_sort(got, np.sort(x, kind="stable"), context)
    np.testing.assert_array_equal(order, np.argsort(x, kind="stable"), context)


def _sorted_with_specials(dtype: np.dtype, n: int, rng) -> np.ndarray:
    return np.sort(_special_lane(dtype, n, rng), kind="stable")


SEARCHSORTED = {side: jc.jit(lambda a, v, side=side: np.searchsorted(a, v, side=side))
                for side in ("left", "right")}
# What a search compiles for under the ci profile (the length searched, the keys' shape): three
# for each dtype and side, in turn.
SEARCH_SIGNATURES = [(2, ()), (7, (5,)), (40, (2, 3)), (17, (0,)), (33, (4, 1)), (3, (1,)), (12, (5, 5)),
                     (25, (3, 0)), (9, ())]


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@SOME
@given(data=st.data())
def test_searchsorted_matches_numpy(dtype, side, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    full = st.tuples(st.integers(2, 40), hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=5))
    turn = 3 * (2 * DTYPES.index(dtype) + (side == "right"))
    n, shape = data.draw(signatures(full, SEARCH_SIGNATURES, turn, 3))
    a = _sorted_with_specials(dtype, n, rng)
    v = _special_lane(dtype, int(np.prod(shape)) + 2, rng)[:int(np.prod(shape))].reshape(shape)
    np.testing.assert_array_equal(SEARCHSORTED[side](a, v), np.searchsorted(a, v, side=side), f"{a!r} {v!r}")


def test_searchsorted_with_sorter_scalar_and_mixed_dtypes():
    a = np.array([3.0, -1.0, np.nan, 2.0, 2.0, 0.0])
    sorter = np.argsort(a, kind="stable")
    v = np.array([2.0, np.nan, -5.0, 0.5])
    for side in ("left", "right"):
        f = jc.jit(lambda a, v, s, side=side: np.searchsorted(a, v, side=side, sorter=s))
        np.testing.assert_array_equal(f(a, v, sorter), np.searchsorted(a, v, side=side, sorter=sorter))
    ints = np.array([1, 3, 3, 7], np.int32)
    assert jc.jit(lambda a: np.searchsorted(a, 3.5))(ints) == np.searchsorted(ints, 3.5)
    np.testing.assert_array_equal(jc.jit(lambda a, v: np.searchsorted(a, v))(ints, v),
                                  np.searchsorted(ints, v))


FLOATS_AND_INTS = [np.dtype(t) for t in (np.float64, np.float32, np.float16, np.int32, np.int64, np.uint8)]


@st.composite
def order_statistic_signature(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5))
    ndim = len(shape)
    axis = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1), st.just(tuple(range(ndim)))))
    keepdims = draw(st.booleans())
    q = draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3).map(tuple)))
    method = draw(st.sampled_from(["linear", "lower", "higher", "nearest", "midpoint"]))
    return shape, axis, keepdims, q, method


# What the order statistics compile for under the ci profile: every method, q at the ends, between
# ranks, on a rank (a midpoint there takes no mean) and as a list, every axis form (none, one,
# negative, all as a tuple), keepdims either way; three for each dtype, in turn.
ORDER_STATISTIC_SIGNATURES = [
    ((5,), None, False, 0.5, "linear"), ((1,), 0, True, 0.0, "lower"),
    ((4, 3), 0, False, (0.25, 1.0), "higher"), ((2, 5), -1, True, 0.7310585786300049, "nearest"),
    ((3, 1, 4), (0, 1, 2), False, (0.1, 0.9, 0.3333333333333333), "midpoint"),
    ((2, 3, 5), 1, False, 1.0, "linear"), ((3, 4), (0, 1), True, 0.3333333333333333, "linear"),
    ((5, 2), None, True, (0.0, 0.5), "nearest"), ((4, 5), -2, False, (0.0, 0.1, 0.5), "midpoint"),
]


@functools.cache
def _order_statistics(axis, keepdims, q, method):
    """The jitted median, quantile and percentile of one static signature (q: a float or a tuple),
    each with its NumPy oracle: an example that meets the signature again reuses their code."""
    # Python floats: NumPy's result dtype for a NumPy float64 q depends on whether the data
    # holds NaN (float32 data gives float32 then, float64 otherwise); a traced result cannot.
    q = list(q) if isinstance(q, tuple) else q
    p = [v * 100 for v in q] if isinstance(q, list) else q * 100
    oracles = [lambda x: np.median(x, axis=axis, keepdims=keepdims),
               lambda x: np.quantile(x, q, axis=axis, method=method, keepdims=keepdims),
               lambda x: np.percentile(x, p, axis=axis, method=method, keepdims=keepdims)]
    return [(jc.jit(f), f) for f in oracles]


@pytest.mark.parametrize("dtype", FLOATS_AND_INTS, ids=str)
@SOME
@given(data=st.data())
def test_median_quantile_percentile_match_numpy(dtype, data):
    turn = 3 * FLOATS_AND_INTS.index(dtype)
    shape, axis, keepdims, q, method = data.draw(
        signatures(order_statistic_signature(), ORDER_STATISTIC_SIGNATURES, turn, 3))
    a = data.draw(arrays(dtype, shape, layout=False))
    context = f"{a!r}, axis={axis}, q={q}, method={method}, keepdims={keepdims}"
    with np.errstate(all="ignore"):
        for traced, oracle in _order_statistics(axis, keepdims, q, method):
            got, want = np.asarray(traced(a)), np.asarray(oracle(a))
            assert got.dtype == want.dtype and got.shape == want.shape, context
            np.testing.assert_array_equal(got, want, context)


def test_quantile_errors():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        jc.jit(lambda a: np.quantile(a, 1.5))(x)
    with pytest.raises(jc.UnsupportedError, match="method='median'"):  # not one of NumPy's
        jc.jit(lambda a: np.nanquantile(a, 0.5, method="median"))(x)
    traced_q = jc.jit(lambda a, q: np.percentile(a, q))  # checked when the call runs
    for q in (np.array(100.5), -0.5, np.array([50.0, np.nan])):
        with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
            traced_q(x, q)


def test_interp_matches_numpy_loop():
    rng = np.random.default_rng(3)
    xp, fp = np.sort(rng.random(20)), rng.random(20)
    x = np.concatenate([rng.random(50) * 1.4 - 0.2, xp, [np.nan, np.inf, -np.inf]])
    for kw in ({}, {"left": -1.0, "right": 7.0}):
        got = jc.jit(lambda x, xp, fp, kw=kw: np.interp(x, xp, fp, **kw))(x, xp, fp)
        np.testing.assert_array_equal(got, np.interp(x, xp, fp, **kw))
    # repeated knots and infinite values: NumPy's exact-knot and second-try rules
    xi, fi = np.array([0, 1, 1, 2, 3.0]), np.array([0, np.inf, 5, np.inf, 1.0])
    xx = np.linspace(-1, 4, 23)
    np.testing.assert_array_equal(jc.jit(lambda x: np.interp(x, xi, fi))(xx), np.interp(xx, xi, fi))
    one = np.array([0.0, 1.0, 2.0, np.nan])
    np.testing.assert_array_equal(jc.jit(lambda x: np.interp(x, [1.0], [5.0]))(one),
                                  np.interp(one, [1.0], [5.0]))


def test_interp_of_complex_values_part_by_part():
    fp = np.array([1 + 2j, 3 - 1j, np.nan + 1j, 4 + np.inf * 1j])
    x, xp = np.array([np.nan, 0.5, -1, 5, 1.5, 2.5, 2.0]), np.array([0.0, 1, 2, 3])
    for kw in ({}, {"left": 7j, "right": 2}, {"period": 2.5}):
        got = jc.jit(lambda x, xp, fp, kw=kw: np.interp(x, xp, fp, **kw))(x, xp, fp)
        want = np.interp(x, xp, fp, **kw)
        assert got.dtype == want.dtype  # a NaN x gives nan+0j, as NumPy's loop
        np.testing.assert_array_equal(got.view(np.float64), want.view(np.float64))
    one = jc.jit(lambda x, xp, fp: np.interp(x[1], xp, fp))(x, xp, fp)
    assert type(one) is np.complex128 and one == np.interp(x[1], xp, fp)


def test_interp_with_period():
    rng = np.random.default_rng(4)
    xp, fp, x = rng.random(10) * 360, rng.random(10), rng.random(30) * 1000 - 300
    got = jc.jit(lambda x, xp, fp: np.interp(x, xp, fp, period=360))(x, xp, fp)
    np.testing.assert_array_equal(got, np.interp(x, xp, fp, period=360))
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        jc.jit(lambda x: np.interp(x, xp, fp, period=0))(x)


NORM_DTYPES = [np.dtype(t) for t in (np.float64, np.float32, np.int32, np.complex128)]


@pytest.mark.parametrize("dtype", NORM_DTYPES, ids=str)
@pytest.mark.parametrize("ord_", [None, 2, 1, np.inf, -np.inf, 0, 3, 0.5])
def test_vector_norms_match_numpy(dtype, ord_):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 4, 5)) * 3).astype(dtype)
    check_norms(x, ord_, [(axis, keepdims) for axis in (0, -1) for keepdims in (False, True)])


def check_norms(x, ord_, cases):
    """np.linalg.norm(x, ord_, axis, keepdims) for each (axis, keepdims) of ``cases`` against
    NumPy's, all in one jitted call (one compile instead of one per case: each is tiny)."""
    got_all = jc.jit(lambda x: tuple(np.linalg.norm(x, ord_, a, k) for a, k in cases))(x)
    for (axis, keepdims), got in zip(cases, got_all, strict=True):
        want = np.linalg.norm(x, ord_, axis, keepdims)
        context = f"ord={ord_!r} axis={axis} keepdims={keepdims} of {x.dtype}{list(x.shape)}"
        assert np.asarray(got).dtype == want.dtype and np.shape(got) == want.shape, context
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, err_msg=context)


@pytest.mark.parametrize("dtype", NORM_DTYPES, ids=str)
@pytest.mark.parametrize("ord_", [None, "fro", 1, -1, np.inf, -np.inf])
def test_matrix_norms_match_numpy(dtype, ord_):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((3, 4, 5)) * 3).astype(dtype)
    check_norms(x, ord_, [(axis, keepdims) for axis in ((0, 1), (2, 0), (-1, -2))
                          for keepdims in (False, True)])
    # the whole array: sqrt(x . x) (a dot product: its summation order is BLAS's, within ULPs)
    for part in (x, x[0], x[0, 0]):
        got, want = jc.jit(lambda x: np.linalg.norm(x))(part), np.linalg.norm(part)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps)


def test_norm_errors():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        jc.jit(lambda x: np.linalg.norm(x, "fro", axis=0))(x)
    with pytest.raises(ValueError, match="Invalid norm order for matrices"):
        jc.jit(lambda x: np.linalg.norm(x, 3, axis=(0, 1)))(x)


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.float64, np.float32, np.int64)], ids=str)
@SOME
@given(data=st.data())
def test_det_matches_numpy(dtype, data):
    n = data.draw(st.integers(0, 6))
    batch = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    a = (rng.standard_normal((*batch, n, n)) * 3).astype(dtype)
    if n > 1 and data.draw(st.booleans()):  # a singular one: two equal rows
        a[..., 1, :] = a[..., 0, :]
    got, want = jc.jit(lambda a: np.linalg.det(a))(a), np.linalg.det(a)
    assert np.asarray(got).dtype == want.dtype and np.shape(got) == np.shape(want)
    scale = np.prod(np.maximum(np.abs(a).max(axis=-1, initial=0), 1), axis=-1) if n else 1
    eps = np.finfo(want.dtype).eps
    np.testing.assert_allclose(got, want, rtol=64 * eps, atol=64 * eps * np.max(scale, initial=1))


def test_det_special_cases():
    f = jc.jit(lambda a: np.linalg.det(a))
    assert f(np.array([[0.0, 1.0], [1.0, 0.0]])) == -1.0
    assert f(np.array([[1.0, 2.0], [2.0, 4.0]])) == 0.0
    assert np.isnan(f(np.array([[1.0, np.nan], [1.0, 0.0]])))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        f(np.ones((2, 3)))


@st.composite
def shape_axis_kth(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return shape, axis, draw(st.integers(-shape[axis], shape[axis] - 1))


# What a partition compiles for under the ci profile: one lane and several, along either axis
# (negative too), kth first, last, in the middle and negative; three for each dtype, in turn.
PARTITION_SIGNATURES = [((6,), 0, 2), ((1,), -1, 0), ((5,), 0, -1), ((4, 6), -1, 0), ((4, 6), 1, 5),
                        ((5, 3), 0, -3), ((2, 5), -2, 1), ((6, 6), -1, -4), ((3, 1), 0, 1),
                        ((1, 4), 1, 3), ((2, 2), 0, -2), ((6, 2), -2, 3)]


@functools.cache
def _selection(name: str, kth: int, axis: int):
    """One jitted np.partition or np.argpartition per static kth and axis: an example that meets
    a signature again reuses its code."""
    select = getattr(np, name)
    return jc.jit(lambda x: select(x, kth, axis=axis))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@SOME
@given(data=st.data())
def test_partition_and_argpartition_partition(dtype, data):
    """What NumPy promises: the kth element where sorting puts it, none larger before it and
    none smaller after it (tests/jitcore/test_select.py's contract; the selection's arrangement
    of the others is its own)."""
    turn = 3 * DTYPES.index(dtype)
    shape, axis, kth = data.draw(signatures(shape_axis_kth(), PARTITION_SIGNATURES, turn, 3))
    a = data.draw(arrays(dtype, shape, layout=False))
    part = _selection("partition", kth, axis)(a)
    order = _selection("argpartition", kth, axis)(a)
    want = np.partition(a, kth, axis=axis)
    k = kth % a.shape[axis]
    kth_got, kth_want = np.take(part, k, axis=axis), np.take(want, k, axis=axis)
    assert np.array_equal(kth_got, kth_want, equal_nan=dtype.kind == "f")
    last = (lambda v: np.moveaxis(v, axis, -1))  # noqa: E731
    assert_partitioned(last(part), last(a), kth, f"{a!r}")
    assert_argpartitioned(last(order), last(a), kth, f"{a!r}")


def test_partition_errors():
    x = np.arange(5.0)
    with pytest.raises(ValueError, match=r"kth\(=5\) out of bounds \(5\)"):
        jc.jit(lambda a: np.partition(a, 5))(x)
    # an empty axis: NumPy checks no kth (found by the fuzzer, session 31)
    empty = np.zeros((2, 0))
    assert jc.jit(lambda a: np.partition(a, 3))(empty).shape == (2, 0)
    with pytest.raises(ValueError, match="select kind must be 'introselect'"):
        jc.jit(lambda a: np.argpartition(a, 2, kind="quick"))(x)


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.float64, np.float32, np.int64)], ids=str)
@SOME
@given(data=st.data())
def test_solve_and_inv_match_numpy(dtype, data):
    n = data.draw(st.integers(1, 6))
    batch = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    # well conditioned: a strictly dominant diagonal, so the comparison bound can be tight
    noise = rng.integers(-2, 3, (*batch, n, n)) if dtype.kind == "i" else rng.uniform(-2, 2, (*batch, n, n))
    a = (noise + np.eye(n) * 5 * n).astype(dtype)
    vector = data.draw(st.booleans())
    b = (rng.standard_normal((n,) if vector else (*batch, n, data.draw(st.integers(1, 3)))) * 3).astype(dtype)
    eps = np.finfo(np.linalg.inv(a).dtype).eps
    for got, want in ((jc.jit(lambda a, b: np.linalg.solve(a, b))(a, b), np.linalg.solve(a, b)),
                      (jc.jit(lambda a: np.linalg.inv(a))(a), np.linalg.inv(a))):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=256 * eps, atol=256 * eps)


def test_singular_matrices_raise_linalg_error_after_the_call():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        jc.jit(lambda a: np.linalg.inv(a))(singular)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        jc.jit(lambda a, b: np.linalg.solve(a, b))(singular, np.ones((2, 2, 1)))
    f = jc.jit(lambda a: np.linalg.inv(a))  # the same compiled code, on a regular stack
    np.testing.assert_allclose(f(singular[::-1] + np.eye(2)), np.linalg.inv(singular[::-1] + np.eye(2)))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        jc.jit(lambda a: np.linalg.inv(a))(np.ones((2, 3)))


def test_sort_and_argsort_methods():
    def f(x):
        order = x.argsort(axis=0, kind="stable")
        row = x[1]
        row.sort()  # sorts x's row 1 in place, as NumPy's view does
        x.sort(axis=0)
        return order, x

    x = np.array([[3.0, np.nan, 1.0], [2.0, -0.0, 0.0], [2.0, 5.0, -1.0]])
    for got, want in zip(jc.jit(f)(x.copy()), f(x.copy())):
        np.testing.assert_array_equal(got, want)


def test_lexsort_sorts_by_the_last_key_first():
    a = np.array([2, 1, 2, 1, 0, 1])
    b = np.array([5.0, 3.0, 1.0, np.nan, 2.0, 3.0])  # a NaN last among its ties, ties stable
    for fn in (lambda a, b: np.lexsort((b, a)), lambda a, b: np.lexsort((a, b)),
               lambda a, b: np.lexsort((b, a, np.zeros(6)))):
        np.testing.assert_array_equal(jc.jit(fn)(a, b), fn(a, b))
    K = np.random.default_rng(5).integers(0, 3, (3, 4, 5))  # a 2-d array of keys, along axis 0
    np.testing.assert_array_equal(jc.jit(lambda k: np.lexsort(k, axis=0))(K), np.lexsort(K, axis=0))
    np.testing.assert_array_equal(jc.jit(lambda k: np.lexsort(k))(K[0]), np.lexsort(K[0]))
    with pytest.raises(ValueError, match="same shape"):
        jc.jit(lambda a, b: np.lexsort((a, b[:2])))(a, b)


def test_medians_as_numpys_mean_of_the_middle_values():
    """Found by the fuzzer (session 31). NumPy's median is the mean of the middle value(s), a
    sum from +0.0: -0.0 comes out +0.0. An empty array's median and nanmedian are NaN (NumPy's
    nanmedian, nanquantile and nanpercentile of an empty array are its nanmean, whatever q).
    Bools count as 0 and 1."""
    def fn(z, e, b):
        return (np.median(z), np.median(z[:2], axis=0), np.nanmedian(z, keepdims=True),
                np.nanmedian(z[:2], axis=0), np.median(e, axis=1), np.nanmedian(e),
                np.nanquantile(e, [0.25, 0.5], axis=1), np.nanpercentile(e.astype(np.int16), 50),
                np.median(b), np.nanmedian(b, axis=0))

    z = np.array([-0.0, -0.0, np.nan], np.float32)
    e = np.zeros((3, 0), np.float16)
    b = np.array([True, False, True, False])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = fn(z, e, b)
    got = jc.jit(fn)(z, e, b)
    for g, w in zip(got, want):
        assert type(g) is type(w) and g.dtype == w.dtype and np.shape(g) == np.shape(w)
        signs = np.where(np.isnan(w), False, np.signbit(g) != np.signbit(w))  # (a NaN's sign is free)
        assert np.array_equal(g, w, equal_nan=True) and not signs.any(), (g, w)
    with pytest.raises(IndexError):  # NumPy's quantile of an empty axis: its index -1 into it
        jc.jit(lambda e: np.quantile(e, 0.5, axis=1))(e)
