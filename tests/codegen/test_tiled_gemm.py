"""jitcore's own tiled matrix product (codegen/cpu/tiled_gemm.py), differential against NumPy.

NumPy's BLAS is the oracle, so bits are not compared: each result is checked within
``4 * k * eps * sum(|a| |b|)`` (the textbook bound of a k-term dot product, whatever the order).
The kernel's blocks are made tiny here (``small_blocks``), so that products of a few dozen
elements already cross several k, row and column blocks, edge panels, and thread chunks.
Nothing here depends on the host's vector width: the tile shape comes from the host, and every
shape is checked against NumPy on it.
"""

from __future__ import annotations

import ctypes
import functools
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llvmlite import ir as ll

import jitcore as jc
from jitcore import config
from jitcore.codegen.cpu import blas, gemm, object_loader, target, tiled_gemm
from jitcore.codegen.cpu.tiled_gemm import Blocking, TileShape, narrow_tile
from jitcore.codegen.llvm_types import I64, PTR
from tests.budget import examples


@pytest.fixture
def tiled(monkeypatch):
    """Every single-dim float contraction on the tiled kernel, whatever the rule says."""
    monkeypatch.setattr(gemm, "TILED_MIN_SIDE", 0)
    monkeypatch.setattr(gemm, "TILED_MIN_WORK", 0)


@pytest.fixture
def small_blocks(tiled, monkeypatch):
    monkeypatch.setattr(tiled_gemm, "KC_BYTES", 40)  # 10 values of k (kc_values)
    monkeypatch.setattr(tiled_gemm, "MC_ROWS", 1)  # one panel of rows
    monkeypatch.setattr(tiled_gemm, "NC_COLS", 1)  # one panel of columns
    monkeypatch.setattr(tiled_gemm, "MIN_SPLIT_WORK", 0)  # always in chunks
    monkeypatch.setattr(tiled_gemm, "MIN_CHUNK_SIDE", 1)
    monkeypatch.setattr(tiled_gemm, "SMALL_CHUNK_SIDE", 1)
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: 8)  # SPLIT_CHUNKS chunks on any host


def check(got, a, b, product):
    want = product(a.astype(np.float64), b.astype(np.float64))
    scale = product(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    k = max(a.shape + b.shape)  # at least the contracted length
    bound = 4 * k * np.finfo(a.dtype).eps * scale + np.finfo(a.dtype).tiny
    assert got.dtype == a.dtype and got.shape == want.shape
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) - bound)


def compiled(fn, *args):
    jitted = jc.jit(fn, cache=False)
    text = jitted.lower(*args).plan().llvm_ir
    assert "jitcore_gemm_micro" in text and "cblas" not in text  # the tiled kernel, not BLAS
    return jitted


FORMS = {
    "a@b": (lambda a, b: a @ b, lambda m, k, n: ((m, k), (k, n))),
    "a.T@b": (lambda a, b: a.T @ b, lambda m, k, n: ((k, m), (k, n))),
    "a@b.T": (lambda a, b: a @ b.T, lambda m, k, n: ((m, k), (n, k))),
    "a.T@b.T": (lambda a, b: a.T @ b.T, lambda m, k, n: ((k, m), (n, k))),
    "strided": (lambda a, b: a[::2, 1::3] @ b[::3, ::2], lambda m, k, n: ((2 * m, 3 * k), (3 * k, 2 * n))),
}


# The fixture only sets module constants, the same for every example.
@settings(max_examples=examples(24, 10), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(m=st.integers(1, 40), k=st.integers(1, 40), n=st.integers(1, 40),
       dtype=st.sampled_from([np.float32, np.float64]), form=st.sampled_from(sorted(FORMS)),
       seed=st.integers(0, 2**16))
def test_any_shape_dtype_and_layout_matches_numpy(small_blocks, monkeypatch, m, k, n, dtype, form, seed):
    monkeypatch.setattr(tiled_gemm, "READ_A_IN_PLACE", seed % 2 == 0)  # A packed, or read in place
    product, shapes = FORMS[form]
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
    if 1 in (m, k, n):  # a vector's product, or an outer one, is BLAS's or the loop nest's
        check(jc.jit(product, cache=False)(a, b), a, b, product)
        return
    check(compiled(product, a, b)(a, b), a, b, product)


@pytest.mark.parametrize("m, k, n", [(2, 3, 2), (7, 5, 13), (13, 7, 5), (50, 600, 100)])
def test_edges_with_the_real_block_sizes(tiled, m, k, n):
    rng = np.random.default_rng(m * k * n)
    for dtype in (np.float32, np.float64):
        a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
        check(compiled(lambda a, b: a @ b, a, b)(a, b), a, b, lambda a, b: a @ b)


def test_a_strided_result_and_an_expression_around_the_product(tiled):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((20, 30)), rng.standard_normal((30, 25))

    def fn(a, b):
        return np.tanh((a @ b).T + 1.0)  # the product is a kernel of its own; its user reads it transposed

    np.testing.assert_allclose(jc.jit(fn, cache=False)(a, b), fn(a, b), rtol=1e-12, atol=1e-12)


def test_the_sum_order_does_not_depend_on_threads_or_chunks(small_blocks):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((45, 37)).astype(np.float32), rng.standard_normal((37, 29)).astype(np.float32)
    results = []
    for threads in (1, 2, 3):  # one chunk, or up to CHUNKS_PER_THREAD per thread
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
            results.append(compiled(lambda a, b: a @ b, a, b)(a, b))
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])
    check(results[0], a, b, lambda a, b: a @ b)


@pytest.mark.parametrize("form, m, k, n",
                         [("a@b", 37, 23, 41), ("a.T@b", 29, 31, 19), ("strided", 13, 17, 43)])
def test_chunks_per_thread_give_the_one_thread_bits(small_blocks, form, m, k, n):
    """The launch takes the blocks as one chunk on one thread and as up to ``CHUNKS_PER_THREAD``
    a thread on more (``runtime.Split.per_thread``): odd sizes, a transposed and a strided
    view, both float types, the same bits on 1, 2 and 3 threads."""
    product, shapes = FORMS[form]
    rng = np.random.default_rng(m * n)
    for dtype in (np.float32, np.float64):
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
        jitted = compiled(product, a, b)
        results = []
        for threads in (1, 2, 3):
            with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
                results.append(jitted(a, b))
        for other in results[1:]:
            np.testing.assert_array_equal(results[0], other)
        check(results[0], a, b, product)


def test_without_memory_for_the_panels_the_plain_loops_give_the_same_product(tiled, monkeypatch):
    monkeypatch.setattr(tiled_gemm, "ALIGN", 1 << 60)  # malloc of more than 2^60 bytes fails
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((9, 300)), rng.standard_normal((300, 11))
    check(compiled(lambda a, b: a @ b, a, b)(a, b), a, b, lambda a, b: a @ b)


def test_empty_depth_is_zeros_and_jitcore_blas_none_uses_the_tile(monkeypatch):
    a, b = np.ones((4, 0), np.float32), np.ones((0, 5), np.float32)
    np.testing.assert_array_equal(jc.jit(lambda a, b: a @ b, cache=False)(a, b), np.zeros((4, 5), np.float32))
    monkeypatch.setattr(blas, "library", lambda: None)  # as JITCORE_BLAS=none
    a, b = np.ones((6, 7)), np.ones((7, 8))
    check(compiled(lambda a, b: a @ b, a, b)(a, b), a, b, lambda a, b: a @ b)


@pytest.mark.parametrize("element_bits, vector_bits, registers, want", [
    (32, 512, 32, TileShape(6, 4, 16)), (64, 512, 32, TileShape(6, 4, 8)),  # AVX-512
    (32, 256, 16, TileShape(6, 2, 8)), (64, 256, 16, TileShape(6, 2, 4)),  # AVX2
    (64, 128, 32, TileShape(6, 4, 2)),  # NEON
])
def test_tile_shape_follows_the_vector_width_and_registers(element_bits, vector_bits, registers, want):
    tile = TileShape.for_target(element_bits, vector_bits, registers)
    assert tile == want
    assert tile.mr * tile.nv + tile.nv + 1 <= registers  # accumulators, a row of B, a broadcast


@pytest.fixture
def eight_cores(monkeypatch):
    """The chunking of a host of 8 cores, whatever this one has (``split_chunks``)."""
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: 8)


def test_blocks_cut_the_longer_side_into_chunks_of_whole_panels(eight_cores):
    tile = TileShape(6, 4, 16)
    wide = Blocking.choose(64, 4096, 256, tile, 4)
    per_core = tiled_gemm.CHUNKS_PER_THREAD  # blocks per core cut for (SPLIT_CHUNKS of 8)
    assert not wide.split_rows and wide.split_size % tile.nr == 0
    assert wide.split_blocks == tiled_gemm.SPLIT_CHUNKS * per_core
    tall = Blocking.choose(4096, 64, 256, tile, 4)
    assert tall.split_rows and tall.split_size % tile.mr == 0
    small = Blocking.choose(16, 16, 16, tile, 4)
    assert small.split_blocks == 1  # below MIN_SPLIT_WORK: one chunk, no thread started
    thin = Blocking.choose(256, 256, 10000, tile, 4)
    assert thin.split_blocks == 2  # chunks of at least MIN_CHUNK_SIDE rows: packing pays


def test_blocks_of_products_in_cache_and_whole_blocks_per_core(monkeypatch):
    """On two cores: a product from ``MIN_SPLIT_WORK`` multiply-adds is cut, in chunks of
    ``SMALL_CHUNK_SIDE`` while it is under ``SMALL_PRODUCT_WORK`` (its operands in cache);
    columns whose tiles would cut unevenly give way to rows; a side's blocks are a multiple of
    the cores (3 blocks left one thread a block alone at the end)."""
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: 2)
    tile = TileShape(6, 4, 16)  # 64 float32 columns a tile
    rows_of_a = tiled_gemm.CHUNKS_PER_THREAD_ROWS_OF_A
    square = Blocking.choose(128, 128, 128, tile, 4, rows_of_a)
    assert (square.split_rows, square.split_size, square.split_blocks) == (False, 64, 2)
    uneven = Blocking.choose(160, 160, 160, tile, 4, rows_of_a)  # columns: 128 + 32
    assert uneven.split_rows and uneven.split_blocks == 2 and uneven.split_size % tile.mr == 0
    assert Blocking.choose(96, 96, 96, tile, 4, rows_of_a).split_blocks == 1  # under 1M
    three = Blocking.choose(384, 384, 384, tile, 4)  # 384 // MIN_CHUNK_SIDE: 3 blocks
    assert three.split_blocks == 2 and three.split_size == 192
    assert tiled_gemm._blocks(640, 2, 128) == 4 and tiled_gemm._blocks(64, 4, 64) == 1


@pytest.mark.parametrize("vector_bits, registers", [(128, 16), (256, 16), (128, 32)])
def test_narrower_targets_tiles_are_correct_here_too(tiled, monkeypatch, vector_bits, registers):
    """The tiles an SSE, AVX2 or NEON host would get (narrower vectors, fewer registers),
    emitted and run on this host: the same code, only narrower, must give the same answers."""
    monkeypatch.setattr(tiled_gemm, "host_vector_registers", lambda: (vector_bits, registers))
    rng = np.random.default_rng(vector_bits + registers)
    for dtype in (np.float32, np.float64):
        a, b = rng.standard_normal((40, 23)).astype(dtype), rng.standard_normal((23, 37)).astype(dtype)
        check(compiled(lambda a, b: a.T.T @ b, a, b)(a, b), a, b, lambda a, b: a @ b)


@pytest.mark.parametrize("form", ["a@b", "a.T@b", "a@b.T", "a.T@b.T"])
def test_whole_panels_in_every_layout_take_the_fast_packing_and_match_numpy(tiled, monkeypatch, form):
    """Whole panels (the host's own tile, whatever its width) are packed by vector copies or
    per-k gathers, edge panels element by element: shapes with both, several k blocks."""
    monkeypatch.setattr(tiled_gemm, "KC_BYTES", 96)
    product, shapes = FORMS[form]
    rng = np.random.default_rng(len(form))
    for dtype, in_place in zip((np.float32, np.float64), (len(form) % 2 == 0, len(form) % 2 == 1)):
        monkeypatch.setattr(tiled_gemm, "READ_A_IN_PLACE", in_place)  # A packed, or read where it is
        tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
        monkeypatch.setattr(tiled_gemm, "MC_ROWS", 3 * tile.mr)
        m, k, n = 4 * tile.mr + 1, 53, 2 * tile.nr + 3
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
        a[1, 2] = np.nan  # NaN and inf reach exactly the elements they should
        b[3, 0] = np.inf
        got = compiled(product, a, b)(a, b)
        want = product(a.astype(np.float64), b.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        finite = np.isfinite(want)
        a0, b0 = np.nan_to_num(a, posinf=0.0), np.nan_to_num(b, posinf=0.0)
        masked = functools.partial(_where_finite, finite, product)
        check(np.where(finite, got, 0), a0, b0, masked)


def test_a_transposed_b_of_a_reversed_view_packs_its_squares_where_it_lies(tiled, monkeypatch):
    """A transposed B packed by squares (``lanes`` rows of k transposed in registers) reads
    each row at its own stride: here rows of a wider array, in reverse; whole squares of k and
    a tail, over two blocks of k."""
    monkeypatch.setattr(tiled_gemm, "KC_BYTES", 160)  # 40 values of k (80 where A's rows are unit)
    rng = np.random.default_rng(53)
    for dtype in (np.float32, np.float64):
        tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
        m, k, n = 2 * tile.mr + 1, 2 * tiled_gemm.kc_values(True) + tile.lanes + 3, tile.nr + 1
        a = rng.standard_normal((m, k)).astype(dtype)
        w = rng.standard_normal((n, k + 7)).astype(dtype)

        def product(a, w, k=k):
            return a @ w[::-1, 5:5 + k].T

        check(compiled(product, a, w)(a, w), a, w, product)


def _where_finite(finite, product, x, y):
    return np.where(finite, product(x, y), 0)


@pytest.mark.parametrize("form", ["a.T@b", "a.T@b.T"])
def test_a_transposed_a_packed_past_the_span_gives_the_in_place_bits(tiled, monkeypatch, form):
    """Where a block of k of a transposed A spans more than the CPU's limit
    (``DIRECT_SPAN_BYTES``), A is packed instead of read in place: the same sums
    (their order follows ``kc`` only), so the same bits, whatever the host."""
    product, shapes = FORMS[form]
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(3 * tile.mr + 2, 70, 2 * tile.nr + 5))
        results = []
        for span in (0, 1 << 62):  # every transposed A packed; every one read in place
            monkeypatch.setattr(tiled_gemm, "direct_span_bytes", lambda span=span: span)
            results.append(compiled(product, a, b)(a, b))
        np.testing.assert_array_equal(*results)
        check(results[0], a, b, product)


@pytest.mark.parametrize("cpu, limited", [("emeraldrapids", True), ("rocketlake", True),
                                          ("some-future-cpu", True), ("znver4", False), ("znver5", False)])
def test_the_span_limit_holds_on_every_cpu_but_those_measured_without_it(monkeypatch, cpu, limited):
    """The same Intel Xeon is ``emeraldrapids`` or ``rocketlake`` as its hypervisor reports it;
    a name not measured keeps the limit (packing is the safe side: 2x slower in place there)."""
    monkeypatch.setattr(tiled_gemm.target, "magic", lambda: ("x86_64-unknown-linux-gnu", cpu, ""))
    assert tiled_gemm.direct_span_bytes() == (512 << 10 if limited else 1 << 62)


def test_a_narrow_tile_keeps_the_accumulators_and_covers_the_columns():
    assert narrow_tile(TileShape(6, 4, 16), 16) == TileShape(24, 1, 16)  # an MLP's 16 outputs
    # ... of a product whose A is read in place along its rows: a stream per row, fewer rows
    streams = tiled_gemm.NARROW_STREAMS
    assert narrow_tile(TileShape(6, 4, 16), 16, row_streams=True) == TileShape(streams, 1, 16)
    assert narrow_tile(TileShape(6, 4, 8), 16, row_streams=True) == TileShape(12, 2, 8)
    assert narrow_tile(TileShape(6, 4, 8), 20) == TileShape(8, 3, 8)
    assert narrow_tile(TileShape(6, 2, 8), 3) == TileShape(12, 1, 8)
    assert narrow_tile(TileShape(6, 4, 16), 64) == TileShape(6, 4, 16)  # wide enough already


@pytest.mark.parametrize("form", ["a@b", "a.T@b", "strided"])
def test_thin_products_on_the_narrow_tile_match_numpy(form):
    """Products of 8 to a tile's width of columns run tiled by default (``gemm.TILED_MIN_SIDE``)
    on a narrow tile reading A in place: fewer rows than one tile (each row clamped to the
    last real one), more rows than one, and NaN and inf where they belong."""
    product, shapes = FORMS[form]
    rng = np.random.default_rng(len(form))
    for dtype in (np.float32, np.float64):
        tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
        n = max(gemm.TILED_MIN_SIDE, tile.lanes)
        narrow = narrow_tile(tile, n)
        for m in (gemm.TILED_MIN_SIDE, 2 * narrow.mr + 3):
            a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, 37, n))
            got = compiled(product, a, b)(a, b)
            check(got, a, b, product)
        a[0, 0], b[0, 1] = np.nan, -np.inf
        got, want = compiled(product, a, b)(a, b), product(a.astype(np.float64), b.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isneginf(got) | np.isposinf(got), np.isinf(want))


def test_a_square_product_splits_along_its_columns_and_a_tall_one_along_its_rows(eight_cores):
    """A chunk of columns packs only its own part of B; a chunk of rows would pack all of it."""
    tile = TileShape(6, 4, 16)
    square = Blocking.choose(1024, 1024, 1024, tile, 4)
    assert not square.split_rows and square.split_blocks == 1024 // tiled_gemm.MIN_CHUNK_SIDE
    tall = Blocking.choose(10000, 256, 256, tile, 4)  # an MLP's x @ w1: 2 column chunks at most
    assert tall.split_rows
    assert tall.split_blocks == tiled_gemm.SPLIT_CHUNKS * tiled_gemm.CHUNKS_PER_THREAD


@pytest.mark.parametrize("cores", [1, 2, 3, 64])
def test_a_product_is_cut_for_at_most_the_host_s_cores(monkeypatch, cores):
    """Each chunk reads the whole of the operand it does not cut: the side cut is the one
    with more chunks for the cores the host has (``SPLIT_CHUNKS`` at most), in
    ``CHUNKS_PER_THREAD`` blocks per core (the launch takes them as at most that many chunks
    per thread, one chunk on one thread), none narrower than ``MIN_CHUNK_SIDE``."""
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: cores)
    tile, per_core = TileShape(6, 4, 16), tiled_gemm.CHUNKS_PER_THREAD
    cut_for = min(cores, tiled_gemm.SPLIT_CHUNKS)
    square = Blocking.choose(1024, 1024, 1024, tile, 4)
    assert not square.split_rows and square.split_blocks == min(cut_for * per_core, 8)
    tall = Blocking.choose(10000, 256, 256, tile, 4)  # rows, where they cut for more cores
    assert tall.split_rows == (cut_for > 2)
    assert tall.split_blocks == (cut_for * per_core if cut_for > 2 else 2)


@pytest.mark.parametrize("form, per_thread", [
    ("a@b", tiled_gemm.CHUNKS_PER_THREAD_ROWS_OF_A), ("a@b.T", tiled_gemm.CHUNKS_PER_THREAD_ROWS_OF_A),
    ("a.T@b", tiled_gemm.CHUNKS_PER_THREAD)])
def test_reading_the_rows_of_a_takes_more_chunks_per_thread(eight_cores, monkeypatch, form, per_thread):
    """A chunk of columns reads all of A: in order where A's rows have unit stride (more,
    smaller chunks: a busy core hands over more), across its rows where A is transposed."""
    seen = []

    def recording(*args, **kwargs):
        fn, blocks = tiled_gemm.emit_tiled_gemm(*args, **kwargs)
        seen.append(blocks)
        return fn, blocks

    monkeypatch.setattr(gemm, "emit_tiled_gemm", recording)
    product, shapes = FORMS[form]
    a, b = (np.ones(s, np.float32) for s in shapes(1024, 64, 1024))
    compiled(product, a, b)
    (blocks,) = seen  # a size-generic kernel's run-time count, or a static one
    assert blocks.per_thread == per_thread


def _counting_launch(per_thread: int, blocks: int):
    """A launch of a kernel that counts its calls (its chunks) into an i64, split into
    ``blocks`` positions with ``runtime.Split.per_thread``, compiled and loaded: a function of
    the counter's address."""
    module = ll.Module(name="counting_launch")
    kernel = ll.Function(module, ll.FunctionType(ll.VoidType(), [PTR, I64, I64]), "counting_kernel")
    b = ll.IRBuilder(kernel.append_basic_block())
    b.atomic_rmw("add", kernel.args[0], ll.Constant(I64, 1), "seq_cst")
    b.ret_void()
    entry = ll.Function(module, ll.FunctionType(ll.VoidType(), [PTR]), "counting_entry")
    b = ll.IRBuilder(entry.append_basic_block())
    split = tiled_gemm.runtime.Split(blocks, 1 << 40, per_thread=per_thread)
    tiled_gemm.runtime.emit_launch(b, kernel, [entry.args[0]], split)
    b.ret_void()
    # the runtime's code that the launch calls: run_chunks, the launch, the launcher of its arity
    def compile_and_load(text, symbol):
        return object_loader.load_kept(target.compile_ir(text)[1], [symbol])[symbol]

    tiled_gemm.runtime.load_run_chunks(compile_and_load, str(module))
    address = object_loader.load_kept(target.compile_ir(str(module))[1], ["counting_entry"])["counting_entry"]
    call = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)

    def chunks() -> int:
        counter = ctypes.c_int64(0)
        call(ctypes.addressof(counter))
        return counter.value

    return chunks


def test_a_launch_with_chunks_per_thread_takes_one_chunk_on_one_thread_and_more_on_more():
    """``runtime.Split.per_thread`` (the tiled GEMM's): at most that many chunks per thread,
    one on one thread; without it the chunks are the settings' alone."""
    capped, uncapped = _counting_launch(4, 16), _counting_launch(0, 16)
    for threads, want in [(1, 1), (2, 8), (3, 12), (8, 16)]:
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
            assert capped() == want
            assert uncapped() == 16


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_last_panel_of_fewer_vectors_runs_its_own_kernel_and_matches_numpy(tiled, dtype):
    """Columns past the last whole panel run on a kernel of as few vectors as they need (one
    vector, and one short of the tile, where the host's tile has more), with B transposed
    (packed a cache line of k at a time, and a remainder of k) or strided, an edge of rows,
    and A in place or packed."""
    tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
    rng = np.random.default_rng(tile.nv)
    for vectors, form in zip(sorted({1, tile.nv - 1}), ["a@b.T", "strided"]):
        product, shapes = FORMS[form]
        line = 64 // np.dtype(dtype).itemsize  # values of k in a cache line
        m, k, n = 2 * tile.mr + 1, line + 3, tile.nr + (vectors - 1) * tile.lanes + 1
        a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
        jitted = compiled(product, a, b)
        assert f"_{tile.mr}x{vectors}x{tile.lanes}_b{tile.nr}" in jitted.lower(a, b).plan().llvm_ir
        check(jitted(a, b), a, b, product)


def test_packing_buffers_are_kept_between_calls_and_their_old_values_never_leak(tiled, monkeypatch):
    """A call leaves its packing buffer in ``gemm_scratch``'s slots (no fresh pages per call);
    the next product, smaller and with short edge panels, packs into that same buffer full of
    the first one's values, and its padding must still multiply by zeros. A slot's buffer too
    small for a product is replaced by a bigger one; ``release()`` empties the slots."""
    monkeypatch.setattr(tiled_gemm.runtime, "available_cpus", lambda: 1)  # one chunk, one buffer
    monkeypatch.setattr(tiled_gemm, "READ_A_IN_PLACE", False)  # A's panels are packed too
    with config.using(num_threads=1):  # as on a one-core host: a launch's blocks as one chunk
        scratch = tiled_gemm.gemm_scratch
        scratch.release()
        rng = np.random.default_rng(5)
        a, b = rng.standard_normal((70, 90)) * 1e6, rng.standard_normal((90, 70)) * 1e6
        product = compiled(lambda a, b: a @ b, a, b)
        check(product(a, b), a, b, lambda a, b: a @ b)
        kept = [address for address in scratch.BUFFERS if address]
        assert len(kept) == 1
        size = ctypes.c_int64.from_address(kept[0]).value
        assert size >= (70 + 70) * 90 * 8  # both operands' packed panels
        a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 7))  # short panels of padding
        check(product(a, b), a, b, lambda a, b: a @ b)
        assert [address for address in scratch.BUFFERS if address] == kept  # the same buffer again
        a, b = rng.standard_normal((150, 160)), rng.standard_normal((160, 170))
        check(product(a, b), a, b, lambda a, b: a @ b)
        (bigger,) = [address for address in scratch.BUFFERS if address]
        assert ctypes.c_int64.from_address(bigger).value > size
        scratch.release()
        assert not any(scratch.BUFFERS)


@pytest.mark.parametrize("form, dtype", [("a@b.T", np.float32), ("a.T@b.T", np.float64)])
def test_a_transposed_b_packed_a_panel_at_a_time_by_the_first_row_block_gives_the_same_bits(
        small_blocks, monkeypatch, form, dtype):
    """A transposed B is packed a panel at a time by the first row block of each chunk
    (``LAZY_PACK_B``); later row blocks read those panels. A tall product of many row blocks
    (a size-generic function's: its chunks, ``emit_split``, are of columns here, each starting
    at row 0; chunks of rows are ``test_each_chunk_s_first_row_block_packs_its_panels_of_b``'s),
    several panels of columns a block with a short last one, two blocks of k: the bits of B
    packed whole first, on 1, 2 and 3 threads, and NumPy's within the bound."""
    tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
    monkeypatch.setattr(tiled_gemm, "MC_ROWS", tile.mr)  # chunks of 12 rows: 2 row blocks each
    monkeypatch.setattr(tiled_gemm, "NC_COLS", 3 * tile.nr)
    product, shapes = FORMS[form]
    m, k, n = 13 * tile.mr + 1, 23, 2 * tile.nr + 3
    rng = np.random.default_rng(54)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
    results = []
    for lazy in (True, False):
        monkeypatch.setattr(tiled_gemm, "LAZY_PACK_B", lazy)
        jitted = compiled(product, a, b)
        for threads in (1, 2, 3):
            with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
                results.append(jitted(a, b))
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)
    check(results[0], a, b, product)


@pytest.mark.parametrize("form, dtype", [("a@b", np.float64)])
def test_a_chunk_of_one_row_block_packs_b_in_blocks_that_fit_l2_and_gives_the_same_bits(
        tiled, monkeypatch, form, dtype):
    """A chunk of at most ``mc`` rows packs B in blocks of at most ``ONE_ROW_BLOCK_B_BYTES``
    (here 4 KiB a value of k: a few panels), the last one short: the bits of whole blocks of
    ``NC_COLS``, within NumPy's bound, on one thread (one chunk) and on three."""
    tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
    product, shapes = FORMS[form]
    m, k, n = tile.mr + 1, 700, 5 * tile.nr + 3
    rng = np.random.default_rng(56)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
    results = []
    for limit in (1 << 62, 2 * tile.nr * 700 * np.dtype(dtype).itemsize):  # whole, then 2 panels
        monkeypatch.setattr(tiled_gemm, "ONE_ROW_BLOCK_B_BYTES", limit)
        jitted = compiled(product, a, b)
        for threads in (1, 3):
            with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
                results.append(jitted(a, b))
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)
    check(results[0], a, b, product)


def poison_kept_buffers() -> None:
    """Every kept packing buffer (``gemm_scratch``'s slots) filled with NaN after its header:
    a panel the next call reads without packing it first makes its sums NaN."""
    scratch = tiled_gemm.gemm_scratch
    for address in scratch.BUFFERS:
        if address:
            size = ctypes.c_int64.from_address(address).value
            ctypes.memset(address + scratch.HEADER, 0xFF, size)  # all-ones bits: a NaN of either type


@pytest.mark.parametrize("form, dtype", [("a@b.T", np.float64), ("a.T@b.T", np.float32)])
def test_each_chunk_s_first_row_block_packs_its_panels_of_b(small_blocks, monkeypatch, form, dtype):
    """A transposed B packed a panel at a time (``LAZY_PACK_B``) is packed by the first row block
    of every chunk, not only by the chunk that starts at row 0: four chunks of rows (the columns
    too few for a second chunk) of several row blocks, on 1 to 3 threads, each call after the
    kept buffers were filled with NaN, two blocks of k (a buffer kept from the last chunk holds
    the last block's panels, not the first's). Every result within NumPy's bound."""
    tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
    product, shapes = FORMS[form]
    m, k, n = 4 * (tile.nr + 5) + 3, 23, tile.nr + 5
    monkeypatch.setattr(tiled_gemm, "MC_ROWS", 2 * tile.mr)
    monkeypatch.setattr(tiled_gemm, "NC_COLS", 2 * tile.nr)
    for side in ("MIN_CHUNK_SIDE", "SMALL_CHUNK_SIDE"):  # one chunk of columns, four of rows
        monkeypatch.setattr(tiled_gemm, side, n)
    rng = np.random.default_rng(55)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes(m, k, n))
    jitted = compiled(product, a, b)
    for threads in (1, 2, 3):
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
            jitted(a, b)  # buffers into the slots
            poison_kept_buffers()
            check(jitted(a, b), a, b, product)


def gram_products(z, y, s, w):
    """Products of one array and its own transpose, and ``w @ w``: the same array on both sides
    but not transposed, no such product."""
    x = s[::2, 1::3]
    return z @ z.T, y.T @ y, x @ x.T, w @ w


@pytest.mark.parametrize("generic, dtype", [(True, np.float64), (False, np.float32)])
def test_one_array_times_its_transpose_runs_half_and_mirrors_the_whole_product_s_bits(
        small_blocks, monkeypatch, generic, dtype):
    """``z @ z.T``, ``y.T @ y`` and a strided view's run the tiles at or below the diagonal and
    copy the rest (``GRAM_HALF``): the bits of the whole product, exactly symmetric, within
    NumPy's bound. Small blocks (many row and column blocks, tiles across the diagonal, blocks
    of k, padded panels), chunks of columns (a size-generic function, the copy by squares) or of
    rows (sizes fixed, the copy one value at a time), on 1 and 3 threads, the kept buffers
    filled with NaN before each call."""
    from jitcore.codegen import host

    monkeypatch.setattr(host, "SIZE_GENERIC", generic)
    monkeypatch.setattr(tiled_gemm, "MIRROR_BY_SQUARES", generic)
    tile = tiled_gemm.host_tile_shape(np.dtype(dtype).itemsize * 8)
    n, k = 2 * tile.nr + 2 * tile.lanes + 3, 23  # past two panels: whole and ragged squares
    rng = np.random.default_rng(55)
    args = [rng.standard_normal(shape).astype(dtype) for shape in ((n, k), (k, n), (2 * n, 3 * k), (n, n))]
    results = []
    for half in (False, True):
        monkeypatch.setattr(tiled_gemm, "GRAM_HALF", half)
        jitted = compiled(gram_products, *args)
        for threads in (1, 3):
            with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
                jitted(*args)  # buffers into the slots
                poison_kept_buffers()
                results.append(jitted(*args))
    z, y, s, w = args
    operands = [(z, z.T), (y.T, y), (s[::2, 1::3], s[::2, 1::3].T), (w, w)]
    for i, (a, b) in enumerate(operands):
        for other in results[1:]:
            np.testing.assert_array_equal(results[0][i], other[i])
        check(results[0][i], a, b, lambda a, b: a @ b)
        if i < 3:
            np.testing.assert_array_equal(results[0][i], results[0][i].T)


def test_the_micro_kernel_prefetches_the_next_panel_of_b_along_k_where_b_s_block_is_large(tiled):
    """Each step of the micro-kernel's k loop prefetches (into L2: ``PREFETCH_LOCALITY``) its
    tile's share of the next packed panel of B, so the panel's first tile finds it in L2: where
    the packed block of B is larger than ``PREFETCH_MIN_BLOCK_BYTES`` (64 x 1024 x 1024 float32:
    4 MiB), not in a 64^3 product (16 KiB, in L2 anyway). Compiled only."""
    prefetch = re.compile(r'call void @"llvm.prefetch.p0"\(ptr %"\.\d+", i32 0, i32 (\d), i32 1\)')

    def k_loop(a, b):
        text = compiled(lambda a, b: a @ b, a, b).lower(a, b).plan().llvm_ir
        body = text[text.index('define internal void @"jitcore_gemm_micro'):]
        return body[body.index("\nk.body:"):body.index("\nk.done:")]

    small, tall, wide = (np.ones(shape, np.float32) for shape in ((64, 64), (64, 1024), (1024, 1024)))
    call = prefetch.search(k_loop(tall, wide))
    assert call and call[1] == str(tiled_gemm.PREFETCH_LOCALITY)
    assert prefetch.search(k_loop(small, small)) is None
