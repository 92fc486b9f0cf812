"""A matrix product as jitcore's own tiled kernel: packed panels and a register-blocked
micro-kernel of explicit vector multiply-adds (the BLIS scheme), emitted as LLVM IR.

``C[m, n] = sum over k of A[m, k] * B[k, n]`` for one m, one n and one k dim (a
``codegen.contraction`` match without batch dims), float32 or float64, any strides:

- **Blocks.** The result's columns are walked in blocks of ``nc`` columns, the k dim in blocks
  of ``kc``, the rows in blocks of ``mc``. For each (column block, k block) the ``kc x nc``
  piece of B is copied into a packed buffer, and for each row block the ``mc x kc`` piece of A:
  panels of ``NR`` columns of B (``NR`` consecutive values per k) and of ``MR`` rows of A
  (``MR`` consecutive values per k), padded with zeros to whole panels. Packing reads each
  operand through its strides, so a transposed or strided operand costs what a contiguous one
  does: whole panels a vector per k (rows of B with unit stride are read row by row), or
  from a transposed source a cache line of k per row at a time; edges element by element. Panels
  lie ``PANEL_GAP`` bytes apart (a multiple of 4 KiB apart, stores into all panels at once
  fell into one cache set).
- **A in place.** Where A's rows have unit stride, or its columns do in short rows (on some
  CPUs also a short span of a block of k: ``DIRECT_SPAN_BYTES``), or the product has
  a single panel of columns, the micro-kernel reads A through its strides instead of a packed
  copy (``_Gemm.reads_a_in_place``): measured faster, and nothing of A is copied.
- **Micro-kernel.** An ``MR x NR`` tile of C is ``MR * NV`` vector accumulators (``NR = NV``
  vectors of the target's width) held in registers across the k block: per k, ``NV`` vector
  loads of packed B, ``MR`` broadcasts of packed A, ``MR * NV`` ``llvm.fmuladd``, and, where
  the packed block of B outgrows L2, a prefetch of the next panel of B (each tile of a panel
  fetches its share into L2). The tile
  shape is chosen from the target's vector width and register count (``TileShape.for_target``),
  never fixed to one ISA: 512-bit AVX-512 and 256-bit AVX2 and 128-bit NEON/SSE all get the
  same code, narrower; a product with fewer columns than ``NR`` gets a tile of fewer vectors
  and more rows (``narrow_tile``: 24 x 1 vector for an MLP's 16 float32 outputs on AVX-512,
  ``h.T @ g``; 8 x 1 where A's rows are read in place, each row a stream: ``h @ w``),
  and the last panel of a product whose columns are not whole panels runs on a kernel of the
  same rows and as few vectors as it needs. The tile is then added into C: rows of all the
  tile's columns in a C with unit column stride as vectors (a last tile of fewer rows too),
  edge tiles of columns (and other strides) element by element from a stack copy. The first
  block of k stores its sums without reading C.
- **Order of the sums (fixed).** Each C element is ``((S_0 + S_1) + S_2) + ...`` where ``S_p``
  is the sum over the ``p``-th block of ``kc`` values of k, accumulated in increasing k by
  multiply-adds starting from 0 (``kc`` from the depth and from whether A's rows have unit
  stride, ``kc_values``). Neither the thread count nor timing changes it, so results
  do not depend on ``num_threads``; they differ from NumPy's BLAS in the last bits (its own
  blocking), within the usual ``k * eps`` bound.
- **Threads.** The kernel takes a range ``[lo, hi)`` of the blocks of its rows or of its
  columns (the side that cuts into more chunks for the host's cores; columns on a tie,
  ``Blocking.choose``), ``split_blocks`` of them, so the CPU runtime runs the blocks as chunks
  on its threads; each chunk packs its own panels into a buffer of its own, kept between
  calls (``gemm_scratch``: fresh pages from ``malloc`` cost a page fault each).
  Products below ``MIN_SPLIT_WORK`` multiply-adds are one block: starting a thread would cost
  more; others ``CHUNKS_PER_THREAD`` blocks per core of the host (``split_chunks``), which the
  launch takes as at most ``CHUNKS_PER_THREAD`` chunks per thread and as one chunk on one
  thread (``runtime.Split.per_thread``): every chunk reads the whole of the operand it does
  not cut, so one thread reads it once, and two threads take blocks from a counter, so a core
  busy elsewhere for a while hands its blocks to the other instead of holding up half the
  product. Where A's rows have unit stride (a cheap read in order for each chunk),
  ``CHUNKS_PER_THREAD_ROWS_OF_A`` in place of ``CHUNKS_PER_THREAD``; the launch takes the
  product's own count (``StaticBlocks``, ``RunTimeBlocks``).
- If a buffer cannot be allocated, the chunk runs a plain loop with the same blocked sum order.
- **One array times its own transpose** (``z @ z.T``, ``z.T @ z``: ``is_gram_product``) runs
  only the tiles that reach the diagonal or lie below it, and each chunk then copies its
  values into the rest of C (``_Gemm.mirror``), as BLAS's syrk, which NumPy calls for it,
  does: half the multiply-adds, and the bits of the whole product (``GRAM_HALF``).
- **Epilogue.** A product with a fused epilogue (``codegen/gemm_epilogue.py``: ``tanh(x @ w +
  b)`` as one kernel) writes its sums into the epilogue's result, and once the last block of k
  is added to a row block's ``mc x nc`` values (every panel of the block: at most 192 x 1024,
  in L2), the epilogue's body runs over it in place, its columns innermost (vectorized by
  LLVM), so the product is never written to memory whole and read back. Per tile it measured
  slower than the unfused kernels (1 ms more per 10000x256x256 float32 product, one thread):
  each reload of a vector just stored across two cache lines (NumPy's 32-byte-aligned
  outputs) waits for the store. Per panel of ``NR`` columns the epilogue's other operands were
  read a few cache lines per row at a time, a row's stride apart (rows of 1 or 2 KiB share a
  few cache sets): ``(g @ w.T) * (1 - h * h)`` of 10000x16x256 took 1.4x (float32) and 2.5x
  (float64) the time it takes per block, whose rows are whole (docs/performance.md, "The MLP
  step's products"). The sums are those of the unfused product, and the epilogue's body the
  unfused kernel's, so the bits are the same.

Block sizes (``KC_BYTES``, ``MC_ROWS``, ``NC_COLS``) were chosen by measurement on the
development machine (below, and docs/performance.md, "Tiled matmul"): the packed A block stays
in the L2 cache while the micro-kernel walks it once per panel of B.
"""

from __future__ import annotations

from dataclasses import dataclass

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.contraction import Contraction
from jitcore.codegen.cpu import full_reduction, gemm_scratch, runtime, target
from jitcore.codegen.gemm_epilogue import FusedProduct
from jitcore.codegen.kernel_body import KernelBody, Operand, entry_builder, kernel_function
from jitcore.codegen.llvm_types import I1, I8, I64, PTR, declare, value_type
from jitcore.codegen.loops import Sizes
from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Operation

I32 = ll.IntType(32)

# Bytes of float32 k per block (512 values of either float type), and the rows and columns of a
# block (rounded to whole panels). Measured on the development machine (Zen 5: 48 KiB L1, 1 MiB
# L2 per core), one thread, CPU time of 1024^3 products (wall time there moves with the other
# load): kc of 1024 or 2048 bytes, mc of 96, 192 or 384 rows, nc of 256 or 1024 columns are
# within 10% of one another; 2048 bytes, 192 rows and 1024 columns were the fastest, by a few %.
# On Zen 4 (32 KiB L1, 1 MiB L2, 512-bit work on 256-bit units; docs/performance.md "Matrix
# products on Zen 4") kc of 1024 bytes, mc of 96 rows and A packed rather than read in place
# measured no better (1024^3 a@b and a.T@b, one thread): kept. float64 takes as many values of
# k as float32 (``kc_values``: KC_BYTES of float32, 512 values): on Zen 4, 512 float64 values
# against 256 measured 2-6% faster at 512^2, 1024^2 and 2048^2 a@b and a.T@b, one thread and
# two (docs/performance.md, "Matrix products on two busy cores"); C is read and added to half
# as often, and a tile's 6 x 4 vectors of accumulators do twice the work per load of C.
KC_BYTES = 2048
# ... times this where A's rows have unit stride (``a @ b``, ``a @ b.T``: A read in place, a
# stream per row of a tile): 1024 values of k. Two threads, wall clock under ``chrt -f 10``,
# medians of 21, kc of 1024 values against 512 (docs/performance.md, "Matrix products: packing
# buffers kept"): a@b 768^2 0.90x the time (float32) and 0.91x (float64), 1024^2 0.98x and
# 0.94x, a@b.T 1024^2 0.96x and 0.97x, 2048^2 even. A transposed A (``a.T @ b``, MR values a
# row apart per k) keeps 512: 1024^2 float32 took 1.15x with 1024.
KC_ROWS_OF_A_FACTOR = 2
MC_ROWS = 192
NC_COLS = 1024
# A product of fewer multiply-adds than this runs as one chunk (one thread). 128^3 (2M: 39 us
# float32 on one Zen 4 core) ran in 20.5 us on two threads of a warm pool (NumPy's OpenBLAS
# 30), so products from 1M are cut; whether a launch uses the cut is the runtime's choice
# (products weigh ``cost.PRODUCT_WEIGHT`` a multiply-add: such a product splits only while a
# worker is hot, as a parked one costs more to wake than the second thread saves). Before the
# pool kept its workers off the caller's CPU (``thread_pool.PLACEMENT``) nothing under 2^23
# gained (docs/performance.md, "Placement").
MIN_SPLIT_WORK = 1 << 20
# A product of fewer multiply-adds than this has its operands in L2: its chunks may be of
# SMALL_CHUNK_SIDE rows or columns (each chunk's packing of the other operand is a read from
# cache); larger ones keep MIN_CHUNK_SIDE (below), where that packing reads memory.
SMALL_PRODUCT_WORK = 1 << 23
SMALL_CHUNK_SIDE = 64
# Cores a large product is cut for along its longer side: at most SPLIT_CHUNKS, and no more
# than the host has (``split_chunks``; CHUNKS_PER_THREAD blocks each). Each chunk reads (or
# packs) the whole of the other operand for itself, so a chunk has at least MIN_CHUNK_SIDE
# rows (or columns): with fewer, the packing costs more than the chunk's multiply-adds (x.T @
# dh of the MLP, 256 x 10000 x 256, measured 12 ms in 4 chunks of 64 rows, one thread). On
# one thread more chunks only read it more often: on Zen 4 1024^2 a.T@b float32 took 24-25 ms
# of CPU time in 2 chunks against 25-29 in 4 (docs/performance.md, "Matrix products with a
# transposed operand on Zen 4"); so one thread takes all the blocks as one chunk.
SPLIT_CHUNKS = 4
MIN_CHUNK_SIDE = 128
# Blocks per core of ``split_chunks``: the kernel's range counts blocks of that side, which the
# launch takes as chunks, at most CHUNKS_PER_THREAD per thread and one on one thread
# (``runtime.Split.per_thread``). With one chunk per core, a core taken elsewhere when the
# product starts (another library's threads still spinning) held its chunk up, and the
# product took as long as on one thread: 1024^2 float32 a@b on 2 threads 20.7 ms in 2 chunks,
# 10.8 in 4 or 8. 8 chunks (4 a thread) cost a.T@b float32 5-11% on an idle host where 4 cost
# 0-4% (docs/performance.md, "Matrix products on two busy cores").
CHUNKS_PER_THREAD = 2
# ... and where A's rows have unit stride (a@b, a@b.T: each chunk reads A again in order, a
# cheap read): 1024^2 on two threads with the last core half busy, 4 a thread against 2: 0.95-
# 0.97x the time (float32), 0.92-0.97x (float64); idle 0.97-1.01x (docs/performance.md, "The
# MLP step's products").
CHUNKS_PER_THREAD_ROWS_OF_A = 4
# The most rows of A a narrow tile reads in place along their unit stride (``narrow_tile``):
# each is a stream of its own, and rows of a power-of-two size share few cache sets. Zen 4, one
# thread, float32, h @ w of 10000x256x16: 1.88 ms with 24 rows, 1.31 with 12, 1.01 with 8;
# 10000x1024x16: 12.9, 4.9, 4.5 ms (docs/performance.md, "The MLP step's products"). A
# transposed A (its tile's rows one line) keeps the full tile: 256x10000x16 took 1.3 ms with
# 24 rows, 1.5 with 8; so do tiles of two vectors (float64 10000x256x16: 2.2 ms with 12 rows,
# 2.6 with 8; float32 10000x256x32 even).
NARROW_STREAMS = 8
ALIGN = 64  # bytes: the packed buffers' alignment (a cache line, and any vector's size)
PANEL_GAP = 64  # bytes between packed panels (``_Gemm.panel``)
READ_A_IN_PLACE = True  # False: always pack A (tests reach the packing paths with it)
DIRECT_ROW_BYTES = 4096  # the longest rows a transposed A is read in place from (``reads_a_in_place``)
# ... where a CPU (LLVM's name for it) measured otherwise. Zen 4, one thread, a.T@b: in place
# 179 against 194 ms packed (2048^3 float32), 384 against 396-407 (float64), 1024^3 float64
# 47.7-49.0 against 51.8-54.3 in two runs of three; 1024^3 float32 even (docs/performance.md
# "Matrix products on Zen 4"). So no limit there: packing a transposed A cost more than it saved.
DIRECT_ROW_BYTES_FOR_CPU = {"znver4": 1 << 40}
# The most bytes one block of k of a transposed A read in place spans (``kc`` rows of k, a row's
# stride apart: ``reads_a_in_place``); past it A is packed. Intel Emerald Rapids (48 KiB L1, 2
# MiB L2 per core), one thread, CPU time, in place against packed, ms (docs/performance.md,
# "Matrix products on an Intel AVX-512 host"): float32 1024^2 (4 KiB rows, 2 MiB a block) 42.2
# against 22.2, 512^2 (1 MiB) 3.15 against 2.71, 512x4096x512 (1 MiB) 17.3 against 15.3;
# float64 512^2 (2 MiB) 10.7 against 5.4, 384^2 (1.1 MiB) 2.82 against 2.53, 256x10000x256 (1
# MiB) 38.2 against 28.8; and in place ahead or even up to 512 KiB: float64 128^2 (128 KiB) 0.068
# against 0.087, 256^2 (512 KiB) 0.477 against 0.501, float32 256^2 and 256x10000x256 (256 and
# 512 KiB) even. (320^2 float64, 800 KiB: 0.93 against 0.97.) The same Xeon, reported by its
# hypervisor as LLVM's ``rocketlake`` in session 53, measured the same: float32 1024^2 26.3
# against 13.3 ms (docs/performance.md, "Session 53: a transposed operand on Intel"). So the limit is the
# default, on any CPU, and only CPUs measured otherwise go without it.
DIRECT_SPAN_BYTES = 512 << 10
# CPUs (LLVM's names) where a transposed A read in place measured faster than packed at every
# span: AMD Zen 4 and Zen 5, one thread, from 200^2 to 1024^2 (the module's measurements above).
UNLIMITED_SPAN_CPUS = frozenset({"znver4", "znver5"})
# Each tile of a panel of B fetches its share of the next packed panel into L2 as its k loop
# runs (``llvm.prefetch`` of this locality: 2 is x86's prefetcht1; None: no prefetch). A panel
# (``kc x NR``: 256 KiB of float64 at kc 1024) is read from L2 by every tile of a row block, but
# its first tile found it in L3, the whole packed block having gone by since the last row block:
# on the Xeon of session 54 (2 MiB L2), one thread, CPU time, 2048^2 float64 a@b 234 -> 214 ms,
# a@b.T 254 -> 220 (NumPy 212, 221), float32 a@b 104 -> 96; and mc of 96, 192 or 384 rows,
# which moved float64 2048^2 by 12% before (fewer row blocks, fewer first tiles), no longer
# mattered (docs/performance.md, "Session 54: matmul"). 3 (prefetcht0) measured 1-3% slower.
PREFETCH_LOCALITY = 2
# ... in products whose packed block of B (``kc x nc``) has more bytes than this: a smaller one
# stays in L2 between row blocks, and the prefetch only costs its instruction. Xeon of session
# 54, one thread, CPU time, medians of 11, prefetch against none (docs/performance.md, "Session
# 55: matmul"): 64^2-256^2 (blocks of 16-512 KiB) 0-7% slower in a@b, a.T@b and a@b.T, float32
# and float64; from 384^2 float64 (1.1 MiB) and 512^2 float32 (1 MiB) even or 1-12% faster.
PREFETCH_MIN_BLOCK_BYTES = 512 << 10
# The most bytes of a packed block of B (``kc x nc``) where a chunk has a single row block
# (``mc`` rows or fewer: a tall-thin product's 64 rows); ``nc`` is cut to fit. Each block is
# then read by one row block's tiles just after it is packed, and a block larger than L2 was
# gone by then. Xeon of session 54, one thread, CPU time, 64x1024x1024 (one row block), nc
# against NC_COLS (1024), docs/performance.md "Session 55: matmul": float64 a.T@b 0.94x (nc 256,
# 1 MiB), a@b 0.88x (128), a@b.T 0.93x (128); float32 a.T@b 0.99x (512), a@b 0.95x and a@b.T
# 0.97x (256). 1024^2 (many row blocks) took 1.12-1.29x with nc 256 or 128 in a.T@b: kept.
ONE_ROW_BLOCK_B_BYTES = 1 << 20
# A transposed B (``a @ b.T``: packed by squares, ``copy``) is packed a panel at a time just
# before the first row block's tiles use it, so they read it from L1/L2 instead of the whole
# packed block having been written out first: float64 64x1024x1024 a@b.T 3.17 -> 2.44 ms,
# float32 1.38 -> 1.15 (one row block, so every tile read its panel from L3); square products
# even. B with rows of unit stride keeps its row-by-row packing (a whole row of the block per k,
# in order): a panel at a time read 256 bytes per row a row apart, 1.0-1.1x the time.
LAZY_PACK_B = True
# One array times its own transpose (``z @ z.T``: a Gram or kinship matrix) runs only the tiles
# at or below the diagonal and copies the rest of C from them, as BLAS's syrk does (NumPy calls
# it for such a product). C[i, j] and C[j, i] are the same products summed in the same order
# (a multiply-add's product does not depend on its operands' order), so the bits are those of
# the whole product, exactly symmetric, as NumPy's are.
GRAM_HALF = True
MIRROR_BY_SQUARES = True  # False: copy one value at a time (tests reach that path with it)


@dataclass(frozen=True)
class TileShape:
    """The micro-kernel's tile: ``mr`` rows by ``nv`` vectors of ``lanes`` elements."""

    mr: int
    nv: int
    lanes: int

    @property
    def nr(self) -> int:
        return self.nv * self.lanes

    @staticmethod
    def for_target(element_bits: int, vector_bits: int, registers: int) -> TileShape:
        """A tile whose accumulators, one row of B and one broadcast fit in the vector
        registers: 6x4 vectors with 32 registers (AVX-512, NEON), 6x2 with 16 (AVX2). Of the
        24-accumulator shapes, 6x4 measured 3-5% faster than 8x3, 5x5 and 4x6 on the
        development machine (1024^3, one thread, float32 and float64; 12x2 and 14x2 slower)."""
        lanes = max(1, vector_bits // element_bits)
        return TileShape(6, 4, lanes) if registers >= 32 else TileShape(6, 2, lanes)


def narrow_tile(tile: TileShape, cols: int, row_streams: bool = False) -> TileShape:
    """The tile for a product of ``cols`` columns, fewer than ``tile.nr``: as many vectors
    across as the columns need, and as many rows as keep the accumulator count (an MLP's 16
    outputs in float32 on AVX-512: 24 rows of one vector, no column of the tile wasted). A
    tile of one vector whose A has rows of unit stride (``row_streams``: the single panel
    reads them in place, a stream each) has at most ``NARROW_STREAMS`` rows."""
    nv = max(1, -(-cols // tile.lanes))
    if nv >= tile.nv:
        return tile
    rows = tile.mr * tile.nv // nv
    return TileShape(min(rows, NARROW_STREAMS) if row_streams and nv == 1 else rows, nv, tile.lanes)


def host_vector_registers() -> tuple[int, int]:
    """The host target's vector width in bits (as ``target.py`` chose it) and register count."""
    features = set(target.host_features().split(","))
    if llvm.get_process_triple().startswith(("aarch64", "arm64")):
        return 128, 32
    if "+avx512f" in features:
        return (256 if "+prefer-256-bit" in features else 512), 32
    if "+avx" in features:
        return 256, 16
    return 128, 16


def direct_row_bytes() -> int:
    """``DIRECT_ROW_BYTES`` for the host CPU (``DIRECT_ROW_BYTES_FOR_CPU``)."""
    return DIRECT_ROW_BYTES_FOR_CPU.get(target.magic()[1], DIRECT_ROW_BYTES)


def direct_span_bytes() -> int:
    """``DIRECT_SPAN_BYTES`` for the host CPU: no limit on one of ``UNLIMITED_SPAN_CPUS``."""
    return 1 << 62 if target.magic()[1] in UNLIMITED_SPAN_CPUS else DIRECT_SPAN_BYTES


def host_tile_shape(element_bits: int) -> TileShape:
    return TileShape.for_target(element_bits, *host_vector_registers())


@dataclass(frozen=True)
class Blocking:
    """A product's block sizes, and how its chunks cut it: along the rows (``split_rows``) or
    the columns, ``split_size`` of them per chunk, ``split_blocks`` chunks."""

    kc: int
    mc: int
    nc: int
    split_rows: bool
    split_size: int
    split_blocks: int

    @staticmethod
    def choose(rows: int, cols: int, depth: int, tile: TileShape, itemsize: int,
               per_thread: int = CHUNKS_PER_THREAD, rows_of_a: bool = False) -> Blocking:
        kc = min(depth, kc_values(rows_of_a))
        mc = _round_up(min(MC_ROWS, rows), tile.mr)
        nc = _round_up(min(NC_COLS, cols), tile.nr)
        # Columns unless rows cut into more chunks: a chunk of columns packs only its own
        # columns of B (and A is mostly read in place), a chunk of rows packs all of B again
        # (1024^2 float32 a@b: 1.34x less CPU time in all, both threads); and rows where the
        # columns' tiles (64 float32 columns on AVX-512) cut into chunks far from even (160
        # columns: 128 and 32) and rows do better.
        work = rows * cols * depth
        least = SMALL_CHUNK_SIDE if work < SMALL_PRODUCT_WORK else MIN_CHUNK_SIDE
        split_rows = _chunks(rows, least) > _chunks(cols, least)
        if work >= MIN_SPLIT_WORK and _chunks(rows, least) == _chunks(cols, least) > 1:
            chunks = _blocks(cols, per_thread, least)
            split_rows = _largest_share(rows, tile.mr, chunks) < 0.8 * _largest_share(cols, tile.nr, chunks)
        side, unit = (rows, tile.mr) if split_rows else (cols, tile.nr)
        chunks = 1
        if work >= MIN_SPLIT_WORK:
            chunks = max(1, _blocks(side, per_thread, least))
        size = _round_up(-(-side // chunks), unit)
        return Blocking(kc, mc, nc, split_rows, size, -(-side // size))

    @staticmethod
    def for_any_rows(cols: int, depth: int, tile: TileShape, itemsize: int,
                     rows_of_a: bool = False) -> Blocking:
        """The blocks of a product whose row count is known only at run time (a size-generic
        kernel): ``mc`` as for a product of ``MC_ROWS`` rows or more (the row-block loop stops
        at the last row whatever ``mc`` is, and no block size changes a sum's order); the
        chunks are cut in the kernel and the entry (``emit_split``), so the split fields here
        are unused."""
        return Blocking(min(depth, kc_values(rows_of_a)), _round_up(MC_ROWS, tile.mr),
                        _round_up(min(NC_COLS, cols), tile.nr), False, 0, 0)


def emit_split(b: ll.IRBuilder, rows: ll.Value, cols: int, depth: int,
               tile: TileShape, per_thread: int = CHUNKS_PER_THREAD) -> tuple[ll.Value, ll.Value, ll.Value]:
    """``Blocking.choose``'s cut of a product of a run-time number of ``rows``, as values:
    whether its chunks are of rows, the rows (or columns) of each and the chunk count."""
    def const(x: int) -> ll.Constant:
        return ll.Constant(I64, x)

    work = b.mul(rows, const(cols * depth))
    in_cache = b.icmp_signed("<", work, const(SMALL_PRODUCT_WORK))
    row_sides = b.select(in_cache, b.udiv(rows, const(SMALL_CHUNK_SIDE)), b.udiv(rows, const(MIN_CHUNK_SIDE)))
    row_chunks = _min(b, const(split_chunks()), row_sides)
    col_chunks = b.select(in_cache, const(_chunks(cols, SMALL_CHUNK_SIDE)), const(_chunks(cols)))
    split_rows = b.icmp_signed(">", row_chunks, col_chunks)
    side = b.select(split_rows, rows, const(cols))
    unit = b.select(split_rows, const(tile.mr), const(tile.nr))
    col_blocks = b.select(in_cache, const(_blocks(cols, per_thread, SMALL_CHUNK_SIDE)),
                          const(_blocks(cols, per_thread)))
    row_blocks = _min(b, const(split_chunks() * per_thread), row_sides)
    whole = b.mul(b.udiv(row_blocks, const(split_chunks())), const(split_chunks()))  # as _blocks
    row_blocks = b.select(b.icmp_signed(">=", row_blocks, const(split_chunks())), whole, row_blocks)
    chunks = b.select(split_rows, row_blocks, col_blocks)
    chunks = b.select(b.icmp_signed("<", chunks, const(1)), const(1), chunks)
    small = b.icmp_signed("<", work, const(MIN_SPLIT_WORK))
    chunks = b.select(small, const(1), chunks)
    per_chunk = b.udiv(b.add(side, b.sub(chunks, const(1))), chunks)
    size = b.mul(b.udiv(b.add(per_chunk, b.sub(unit, const(1))), unit), unit)
    count = b.udiv(b.add(side, b.sub(size, const(1))), size)
    return split_rows, size, count


class _RowsOnly(Sizes):
    """A size-generic function's extents with only the row count ``rows`` at run time: the
    others stay the constants they are at this compile (loaded with the rest, so the kernel's
    ABI is unchanged, but not used), so that strides and extents of the columns and of k fold
    as in the per-size kernel (the tile and blocks depend on them anyway)."""

    def __init__(self, symbols, rows: int):
        super().__init__(symbols)
        self.rows = rows

    def bind(self, b: ll.IRBuilder, pointer: ll.Value) -> None:
        super().bind(b, pointer)
        for n in list(self.values):
            if n != self.rows:
                del self.values[n]

    def _derive(self, n: int) -> None:
        return None  # the columns' and k's extents stay constants, whatever they lie near


class RunTimeBlocks(full_reduction.RunTimeCount):
    """The block count of a size-generic tiled product, as the entry computes it for the launch
    (``emit(b, sizes)``): ``emit_split``'s, from the run-time row count, as the kernel does;
    ``per_thread``: the chunks per thread its launch takes (``runtime.Split.per_thread``)."""

    def __init__(self, rows: int, cols: int, depth: int, tile: TileShape, per_thread: int):
        self.rows, self.cols, self.depth, self.tile, self.per_thread = rows, cols, depth, tile, per_thread

    def emit(self, b: ll.IRBuilder, sizes) -> ll.Value:
        return emit_split(b, sizes.extent(self.rows), self.cols, self.depth, self.tile, self.per_thread)[2]


class StaticBlocks(int):
    """The block count of a tiled product of static sizes, with the chunks per thread its
    launch takes (``runtime.Split.per_thread``)."""

    per_thread: int

    def __new__(cls, count: int, per_thread: int) -> StaticBlocks:
        self = super().__new__(cls, count)
        self.per_thread = per_thread
        return self


def kc_values(rows_of_a: bool = False) -> int:
    """Values of k per block, for either float type: ``KC_BYTES`` of float32, times
    ``KC_ROWS_OF_A_FACTOR`` where A's rows have unit stride."""
    return max(1, KC_BYTES * (KC_ROWS_OF_A_FACTOR if rows_of_a else 1) // 4)


def split_chunks() -> int:
    """The most chunks a product is cut into: ``SPLIT_CHUNKS``, or one per core of a host
    with fewer (a chunk per core reads the other operand once per core)."""
    return max(1, min(SPLIT_CHUNKS, runtime.available_cpus()))


def _chunks(side: int, least: int = MIN_CHUNK_SIDE) -> int:
    """Cores a side of ``side`` is cut for (the side with more is cut), chunks of at least
    ``least``."""
    return min(split_chunks(), side // least)


def _blocks(side: int, per_thread: int = CHUNKS_PER_THREAD, least: int = MIN_CHUNK_SIDE) -> int:
    """Blocks a side of ``side`` is cut into: ``per_thread`` per core it is cut for, a
    multiple of the cores where there are that many (384 columns in 3 blocks of 128 left one
    of two threads a block to itself at the end: 0.69 ms float32, NumPy 0.55)."""
    blocks, cores = min(split_chunks() * per_thread, side // least), split_chunks()
    return blocks - blocks % cores if blocks >= cores else blocks


def _largest_share(side: int, unit: int, chunks: int) -> float:
    """The part of ``side`` its largest chunk takes, cut into ``chunks`` of whole ``unit``s."""
    return min(_round_up(-(-side // chunks), unit), side) / side


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def dim_stride(b: ll.IRBuilder, operand: Operand, map_: AffineMap, d: int) -> ll.Value:
    """An operand's element stride along iteration dim ``d`` (0 if it does not read it)."""
    stride: ll.Value = ll.Constant(I64, 0)
    for axis, e in enumerate(map_.exprs):
        if e.dim == d:
            step = operand.strides[axis]
            if e.scale != 1:
                step = b.mul(step, ll.Constant(I64, e.scale))
            stride = b.add(stride, step)
    return stride


def base_pointer(b: ll.IRBuilder, operand: Operand, map_: AffineMap, element: ll.Type) -> ll.Value:
    """An operand's first element read (its map may start at an offset)."""
    offset: ll.Value = ll.Constant(I64, 0)
    for axis, e in enumerate(map_.exprs):
        if e.offset:
            offset = b.add(offset, b.mul(operand.strides[axis], ll.Constant(I64, e.offset)))
    return b.gep(operand.pointer, [offset], source_etype=element)


def emit_tiled_gemm(module: ll.Module, name: str, op: Operation, c: Contraction,
                    strided: list[bool], fused: FusedProduct | None = None,
                    launched: Operation | None = None, fastmath: bool = False,
                    symbols: tuple[int, ...] = ()) -> tuple[ll.Function, int | RunTimeBlocks]:
    """``op`` (a contraction with one m, n and k dim, and any batch dims) as the split kernel
    ``name``, and the number of blocks its range ``[lo, hi)`` counts (a batch's: each
    product's blocks, product after product, ``_run_batch``). With ``fused`` (the parts of
    ``launched``, a product with a fused epilogue: ``op`` is its product) the kernel takes
    ``launched``'s operands and applies the epilogue to each tile once its last block of k is
    added (``_Gemm.finish``).

    In a size-generic function (``symbols``) whose row count is one of its run-time extents,
    the kernel takes the extents and runs to the run-time row count: the tile, ``kc`` and
    ``nc`` come from the columns and k alone, the chunks are cut at run time (``emit_split``)
    and the block count is the entry's (``RunTimeBlocks``). The sums are those of the per-size
    kernel: each element's order depends on ``kc`` only."""
    element = value_type(c.element)
    tile = host_tile_shape(c.element.bitwidth)
    (m,), (n,), (k,) = c.m, c.n, c.k
    left, right = 0, 1
    if op.indexing_maps[2].exprs[-1].dim == m:
        # C's rows are the m dim's: compute C^T = B^T A^T, so that the tiles' vectors run
        # along C's last axis (unit stride in an array that has one).
        m, n, left, right = n, m, right, left
    # Too few columns to fill a tile's vectors (an MLP's 16 outputs): a narrower tile of more
    # rows, whose single column panel reads A where it lies (``_Gemm.direct_a``).
    rows_of_a = op.indexing_maps[left].exprs[-1].dim == k  # A's rows have unit stride
    tile = narrow_tile(tile, c.domain[n], rows_of_a)
    per_thread = CHUNKS_PER_THREAD_ROWS_OF_A if rows_of_a else CHUNKS_PER_THREAD
    rows, cols, depth = c.domain[m], c.domain[n], c.domain[k]
    sizes = _RowsOnly(symbols, rows)
    # a batch of products is compiled for its sizes (its extents constants, as in a function
    # that is not size-generic: the code is reused only where its text is the same)
    # (and so is a product whose roles of several dims are taken as one: ``single_dim_roles``)
    generic = rows in sizes.symbols and not c.batch and tuple(c.domain) == tuple(op.domain())
    itemsize = c.element.bitwidth // 8
    blocking = (Blocking.for_any_rows(cols, depth, tile, itemsize, rows_of_a) if generic
                else Blocking.choose(rows, cols, depth, tile, itemsize, per_thread, rows_of_a))
    shaped = [*(launched or op).operands, *(launched or op).results]
    fn, operands, _, (lo, hi) = kernel_function(module, name, shaped, strided, split=True,
                                                sizes=sizes if generic else None)
    b = entry_builder(fn)
    maps = list(op.indexing_maps)
    result = operands[len(shaped) - 1]  # the product's result: the last operand either way
    a, bb = (base_pointer(b, operands[i], maps[i], element) for i in (left, right))
    cc = base_pointer(b, result, maps[2], element)
    sa = [dim_stride(b, operands[left], maps[left], d) for d in (m, k)]
    sb = [dim_stride(b, operands[right], maps[right], d) for d in (k, n)]
    sc = [dim_stride(b, result, maps[2], d) for d in (m, n)]
    finish = None
    if fused is not None:
        # the epilogue reads the sum from the result it then overwrites
        finish = _epilogue(b, fused.epilogue, [result, *operands[2:len(shaped) - 1], result], m, n,
                           blocking.nc, fastmath)
    symmetric = fused is None and not c.batch and is_gram_product(op, left, right, m, n)
    gemm = _Gemm(b, element, tile, blocking, (a, sa), (bb, sb), (cc, sc), finish, cols % tile.nr,
                 symmetric)
    if c.batch:
        batch = [[dim_stride(b, x, maps[i], d) for d in c.batch]
                 for x, i in ((operands[left], left), (operands[right], right), (result, 2))]
        _run_batch(b, gemm, [c.domain[d] for d in c.batch], batch, blocking, rows, cols, depth, lo, hi)
        b.ret_void()
        return fn, StaticBlocks(c.extent(c.batch) * blocking.split_blocks, per_thread)
    if generic:
        gemm.run(*_chunk_ranges(b, sizes.extent(rows), cols, depth, tile, per_thread, lo, hi), depth)
        b.ret_void()
        return fn, RunTimeBlocks(rows, cols, depth, tile, per_thread)
    first, last = (b.mul(x, ll.Constant(I64, blocking.split_size)) for x in (lo, hi))
    side = rows if blocking.split_rows else cols
    last = _min(b, last, ll.Constant(I64, side))
    whole = [ll.Constant(I64, 0), ll.Constant(I64, cols if blocking.split_rows else rows)]
    if blocking.split_rows:
        gemm.run((first, last), whole, depth)
    else:
        gemm.run(whole, (first, last), depth)
    b.ret_void()
    return fn, StaticBlocks(blocking.split_blocks, per_thread)


def is_gram_product(op: Operation, left: int, right: int, m: int, n: int) -> bool:
    """Whether ``op`` is one array times its own transpose (``z @ z.T``, ``z.T @ z``): both
    sides read the same value, B's map A's with the row and column dims swapped, so that
    ``C[i, j]`` and ``C[j, i]`` are the same sum of the same products (``_Gemm.symmetric``)."""
    if op.operands[left] is not op.operands[right]:
        return False
    swap = {m: n, n: m}
    a_map, b_map = op.indexing_maps[left].exprs, op.indexing_maps[right].exprs
    swapped = [(swap.get(y.dim, y.dim), y.scale, y.offset) for y in b_map]
    return [(x.dim, x.scale, x.offset) for x in a_map] == swapped


def _run_batch(b: ll.IRBuilder, gemm: _Gemm, extents: list[int], strides: list[list[ll.Value]],
               blocking: Blocking, rows: int, cols: int, depth: int, lo: ll.Value, hi: ll.Value) -> None:
    """Blocks ``[lo, hi)`` of a batch of products: the range counts ``blocking.split_blocks``
    blocks per product, products in the batch's row-major order, so a chunk may end in one
    product and go on in the next. Each product's part of the range runs as ``gemm.run``
    does for one product, at its operands' batch offsets (``strides``: A's, B's and C's per
    batch dim, 0 where an operand is broadcast); each element's sum is that of one product's
    kernel, so the bits depend on neither the chunks nor the thread count."""
    per = ll.Constant(I64, blocking.split_blocks)
    one = ll.Constant(I64, 1)
    bases = (gemm.a, gemm.bm, gemm.c)
    side = rows if blocking.split_rows else cols
    whole = [ll.Constant(I64, 0), ll.Constant(I64, cols if blocking.split_rows else rows)]

    def product(p):
        start = b.mul(p, per)
        first = b.sub(_max(b, lo, start), start)
        last = b.sub(_min(b, hi, b.add(start, per)), start)
        index, offsets = p, [ll.Constant(I64, 0)] * 3
        for d in reversed(range(len(extents))):  # p as the batch dims' indices, last fastest
            extent = ll.Constant(I64, extents[d])
            iv, index = b.urem(index, extent), b.udiv(index, extent)
            offsets = [b.add(o, b.mul(iv, s[d])) for o, s in zip(offsets, strides)]
        gemm.a, gemm.bm, gemm.c = (gemm.at(x, o) for x, o in zip(bases, offsets))
        first, last = (b.mul(x, ll.Constant(I64, blocking.split_size)) for x in (first, last))
        span = (first, _min(b, last, ll.Constant(I64, side)))
        if blocking.split_rows:
            gemm.run(span, whole, depth)
        else:
            gemm.run(whole, span, depth)

    _for(b, b.udiv(lo, per), b.udiv(b.add(b.sub(hi, one), per), per), 1, product)


def _chunk_ranges(b: ll.IRBuilder, rows: ll.Value, cols: int, depth: int, tile: TileShape,
                  per_thread: int, lo: ll.Value, hi: ll.Value) -> tuple[tuple, tuple]:
    """The rows and columns of blocks ``[lo, hi)`` of a product of run-time ``rows``: a range
    of the side its chunks cut (``emit_split``), all of the other."""
    split_rows, size, _ = emit_split(b, rows, cols, depth, tile, per_thread)
    zero, all_cols = ll.Constant(I64, 0), ll.Constant(I64, cols)
    first, last = b.mul(lo, size), b.mul(hi, size)
    last = _min(b, last, b.select(split_rows, rows, all_cols))
    row_range = (b.select(split_rows, first, zero), b.select(split_rows, last, rows))
    col_range = (b.select(split_rows, zero, first), b.select(split_rows, all_cols, last))
    return row_range, col_range


def _epilogue(b: ll.IRBuilder, epilogue: Operation, operands: list[Operand], m: int, n: int,
              nr: int, fastmath: bool):
    """``finish(row, col, rows, cols)``: the epilogue kernel's body at each point of the
    ``rows x cols`` piece of C at (``row``, ``col``) (the product's own rows and columns: dims
    ``m`` and ``n``), each result stored over the sum it read. Columns innermost: C's unit
    stride, if it has one (``emit_tiled_gemm`` computes C^T where its rows have it); ``nr``:
    the columns of a whole block."""
    body = KernelBody(b, epilogue, operands, list(epilogue.indexing_maps),
                      scalar.Precision(fastmath=fastmath, isa=target.math_isa()))
    zero = ll.Constant(I64, 0)

    def finish(row: ll.Value, col: ll.Value, rows: ll.Value, cols: ll.Value) -> None:
        def point(i, j):
            ivs = [None, None]
            ivs[m], ivs[n] = b.add(row, i), b.add(col, j)
            body.store_results(ivs, body.evaluate(ivs))

        def nest(width):
            _for(b, zero, rows, 1, lambda i: _for(b, zero, width, 1, lambda j: point(i, j)))

        # A whole block's rows are ``nr`` wide, a constant: whole vectors, no remainder loop
        # (a 16-column panel ran its rows as scalars, LLVM's vector loop being 64 wide).
        with b.if_else(b.icmp_signed("==", cols, ll.Constant(I64, nr))) as (whole, edge):
            with whole:
                nest(ll.Constant(I64, nr))
            with edge:
                nest(cols)

    return finish


def _min(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def _max(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed(">", x, y), x, y)


def _for(b: ll.IRBuilder, start: ll.Value, stop: ll.Value, step: int | ll.Value, body) -> None:
    """``for iv in range(start, stop, step): body(iv)`` (``step`` positive); the builder ends
    after the loop."""
    pre, fn = b.block, b.function
    header, inner, done = (fn.append_basic_block(x) for x in ("for", "for.body", "for.done"))
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(I64)
    iv.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", iv, stop), inner, done)
    b.position_at_end(inner)
    body(iv)
    iv.add_incoming(b.add(iv, ll.Constant(I64, step) if isinstance(step, int) else step), b.block)
    b.branch(header)
    b.position_at_end(done)


class _Gemm:
    """The blocked loops of one chunk, at the builder's position."""

    def __init__(self, b: ll.IRBuilder, element: ll.Type, tile: TileShape, blocking: Blocking,
                 a, bb, cc, finish=None, edge_cols: int = 0, symmetric: bool = False):
        self.b, self.element, self.tile, self.blocking = b, element, tile, blocking
        # C is symmetric, bit for bit (``is_gram_product``): only the tiles that reach the
        # diagonal or below it run, and the rest of C is copied from them (``mirror``)
        self.symmetric = symmetric and GRAM_HALF
        self.finish = finish  # the fused epilogue on a finished row block (``_epilogue``), or None
        self.itemsize = 4 if isinstance(element, ll.FloatType) else 8
        self.a, (self.sa_m, self.sa_k) = a[0], a[1]
        self.bm, (self.sb_k, self.sb_n) = bb[0], bb[1]
        self.c, (self.sc_m, self.sc_n) = cc[0], cc[1]
        self.module = b.module
        prefetch = PREFETCH_LOCALITY is not None and (
            blocking.kc * blocking.nc * self.itemsize > PREFETCH_MIN_BLOCK_BYTES)
        self.micro = _micro_kernel(self.module, element, tile, prefetch=prefetch)
        # The last panel of columns, when the product's columns are not whole panels, runs on
        # a kernel of as few vectors as it has columns (the same rows, the same packed B): a
        # 96-column float32 product's second panel computed 64 columns for 32 on AVX-512.
        self.edge_micro = None
        edge_nv = -(-edge_cols // tile.lanes)
        if 0 < edge_nv < tile.nv:
            self.edge_micro = _micro_kernel(self.module, element, TileShape(tile.mr, edge_nv, tile.lanes),
                                            prefetch=prefetch,
                                            b_stride=tile.nr)
        self.direct_a = self.reads_a_in_place()

    def reads_a_in_place(self) -> ll.Value:
        """Whether the micro-kernel reads A where it lies rather than packed (an i1): with one
        panel of columns (each value of A is used by one tile only, so a copy would save
        nothing), or A's rows with unit stride (the tile's MR rows are MR streams in order), or
        its columns with unit stride in rows of at most ``direct_row_bytes()`` (MR values per
        k, each k a row further: beyond, the block's rows share too few cache sets) whose
        block of ``kc`` rows of k spans at most ``direct_span_bytes()``. Measured faster than
        packing at every size from 200 to 1024 on Zen 4 and 5, one thread; on Intel Emerald
        Rapids only up to blocks of 512 KiB (``DIRECT_SPAN_BYTES``, any CPU but Zen 4 and 5)."""
        b = self.b
        if not READ_A_IN_PLACE:
            return ll.Constant(I1, 0)
        if self.blocking.nc <= self.tile.nr:
            return ll.Constant(I1, 1)
        rows_in_order = b.icmp_signed("==", self.sa_k, self.const(1))
        longest = min(direct_row_bytes(), direct_span_bytes() // max(1, self.blocking.kc))
        short_rows = b.icmp_signed("<=", self.sa_k, self.const(longest // self.itemsize))
        columns = b.and_(b.icmp_signed("==", self.sa_m, self.const(1)), short_rows)
        return b.or_(rows_in_order, columns)

    def const(self, x: int) -> ll.Constant:
        return ll.Constant(I64, x)

    def at(self, base: ll.Value, offset: ll.Value) -> ll.Value:
        return self.b.gep(base, [offset], source_etype=self.element)

    def run(self, row_range, col_range, depth: int) -> None:
        """C[rows, cols] for the whole k range: packed and tiled, or (no memory for the
        buffers) a plain loop in the same order of sums."""
        b, bl = self.b, self.blocking
        a_bytes = (bl.mc * bl.kc + bl.mc // self.tile.mr * PANEL_GAP // self.itemsize) * self.itemsize + ALIGN
        b_bytes = (bl.nc * bl.kc + bl.nc // self.tile.nr * PANEL_GAP // self.itemsize) * self.itemsize + ALIGN
        # one buffer for both, kept between calls (``gemm_scratch``: no fresh pages per call)
        raw = gemm_scratch.take(b, self.const(a_bytes + b_bytes))
        failed = b.icmp_unsigned("==", raw, ll.Constant(PTR, None))
        with b.if_else(failed, likely=False) as (no_memory, packed):
            with no_memory:
                self.plain(row_range, col_range, depth)
            with packed:
                start = b.gep(raw, [self.const(gemm_scratch.HEADER)], source_etype=I8)
                pack_a = _aligned(b, start)
                self.tiled(row_range, col_range, depth, pack_a,
                           _aligned(b, b.gep(start, [self.const(a_bytes)], source_etype=I8)))
                if self.symmetric:
                    self.mirror(row_range, col_range)
        gemm_scratch.give(b, raw)

    def tiled(self, row_range, col_range, depth: int, pack_a: ll.Value, pack_b: ll.Value) -> None:
        b, bl, tile = self.b, self.blocking, self.tile
        (row0, row1), (col0, col1) = row_range, col_range
        # B packed a panel at a time by the first row block (``LAZY_PACK_B``), or whole first
        lazy_b = b.icmp_signed("!=", self.sb_n, self.const(1)) if LAZY_PACK_B else ll.Constant(I1, 0)

        # A chunk of one row block (a tall-thin product's 64 rows) uses each packed block of B
        # once, right after packing it: blocks of at most ONE_ROW_BLOCK_B_BYTES, which stay in L2
        one_block = b.icmp_signed("<=", b.sub(row1, row0), self.const(bl.mc))
        fit = ONE_ROW_BLOCK_B_BYTES // (bl.kc * self.itemsize) // tile.nr * tile.nr
        narrow = min(bl.nc, max(tile.nr, fit))
        col_step = bl.nc if self.finish is not None or narrow == bl.nc else b.select(
            one_block, self.const(narrow), self.const(bl.nc))

        def column_block(jc):
            nc = _min(b, self.const(col_step) if isinstance(col_step, int) else col_step, b.sub(col1, jc))

            def depth_block(pc):
                kc = _min(b, self.const(bl.kc), b.sub(self.const(depth), pc))
                first = b.icmp_signed("==", pc, self.const(0))
                last_block = b.icmp_signed(">=", b.add(pc, kc), self.const(depth))
                with b.if_then(b.not_(lazy_b)):
                    self.pack_b(pack_b, pc, kc, jc, nc)

                def row_block(ic):
                    mc = _min(b, self.const(bl.mc), b.sub(row1, ic))
                    with b.if_then(b.not_(self.direct_a)):
                        self.pack_a(pack_a, ic, mc, pc, kc)

                    def one_tile(ir, jr):
                        rows = _min(b, self.const(tile.mr), b.sub(mc, ir))
                        cols = _min(b, self.const(tile.nr), b.sub(nc, jr))
                        at = b.add(b.mul(b.add(ic, ir), self.sc_m), b.mul(b.add(jc, jr), self.sc_n))
                        # A in place (its strides per k and per row), or the packed
                        # panel (MR values per k, one per row)
                        row = b.add(b.mul(b.add(ic, ir), self.sa_m), b.mul(pc, self.sa_k))
                        packed = self.at(pack_a, self.panel(ir, kc, tile.mr))
                        direct = self.direct_a
                        a_panel = (b.select(direct, self.at(self.a, row), packed),
                                   b.select(direct, self.sa_k, self.const(tile.mr)),
                                   b.select(direct, self.sa_m, self.const(1)))
                        b_panel = self.at(pack_b, self.panel(jr, kc, tile.nr))
                        # this tile's share of the next panel of B, fetched into L2 along k
                        ahead = b.mul(b.udiv(ir, self.const(tile.mr)), b.mul(kc, step))
                        args = [kc, *a_panel, b_panel, self.at(self.c, at), self.sc_m, self.sc_n,
                                rows, cols, first, self.at(next_panel(jr), ahead), step]
                        if self.edge_micro is None:
                            b.call(self.micro, args)
                            return
                        short = b.icmp_signed("<", cols, self.const(tile.nr))
                        with b.if_else(short, likely=False) as (edge, whole):
                            with edge:
                                b.call(self.edge_micro, args)
                            with whole:
                                b.call(self.micro, args)

                    # each of the block's tiles of a panel fetches its share of the next panel's
                    # values (the last panel: the first, which the next row block starts on)
                    tiles = b.udiv(b.add(mc, self.const(tile.mr - 1)), self.const(tile.mr))
                    step = b.udiv(b.add(self.const(tile.nr - 1), tiles), tiles)

                    def next_panel(jr):
                        following = b.add(jr, self.const(tile.nr))
                        following = b.select(b.icmp_signed("<", following, nc), following, self.const(0))
                        return self.at(pack_b, self.panel(following, kc, tile.nr))

                    def panel_of_tiles(jr):
                        # packed just before its first tiles: the chunk's first row block, or
                        # of a symmetric C the first that reaches the panel's diagonal
                        first_use = self.first_row_block(row0, b.add(jc, jr)) if self.symmetric else row0
                        with b.if_then(b.and_(lazy_b, b.icmp_signed("==", ic, first_use))):
                            self.pack_b_panel(pack_b, pc, kc, jc, nc, jr)
                        first_tile = self.const(0)
                        if self.symmetric:  # the panel's tiles whose last row reaches its first column
                            ahead = b.sub(b.add(jc, jr), ic)
                            whole = b.mul(b.sdiv(ahead, self.const(tile.mr)), self.const(tile.mr))
                            first_tile = b.select(b.icmp_signed(">", ahead, self.const(0)), whole, first_tile)
                        _for(b, first_tile, mc, tile.mr, lambda ir: one_tile(ir, jr))

                    _for(b, self.const(0), nc, tile.nr, panel_of_tiles)
                    if self.finish is not None:  # the block's last block of k: in L2
                        with b.if_then(last_block):
                            self.finish(ic, jc, mc, nc)

                # a symmetric C's row blocks from the one that reaches the block's diagonal
                first_block = self.first_row_block(row0, jc) if self.symmetric else row0
                _for(b, first_block, row1, bl.mc, row_block)

            _for(b, self.const(0), self.const(depth), bl.kc, depth_block)

        _for(b, col0, col1, col_step, column_block)

    def first_row_block(self, row0: ll.Value, row: ll.Value) -> ll.Value:
        """The first row of the chunk's row block (from ``row0``, ``mc`` rows each) that holds
        ``row``; ``row0`` for a row before it."""
        b, mc = self.b, self.const(self.blocking.mc)
        past = b.sub(_max(b, row, row0), row0)
        return b.add(row0, b.mul(b.udiv(past, mc), mc))

    def mirror(self, row_range, col_range) -> None:
        """A symmetric C's values above the tiles that ran (``tiled``), each copied from its
        mirror image below the diagonal: ``C[r, c] = C[c, r]`` for the chunk's columns ``r``
        (its rows, where its chunks are of rows, hold ``c``) and every ``c`` past the last
        column panel the tile of rows holding ``r`` reached. Those values no tile wrote, and
        their images are this chunk's, finished: so chunks never write one another's values.
        Where C's rows have unit stride, ``lanes`` rows at a time by squares transposed in
        registers: read down a column one value at a time, each value a page apart in a large
        C, the copy took 11% of a 2000x1000 float64 ``z @ z.T``."""
        b, mr, nr, lanes = self.b, self.tile.mr, self.tile.nr, self.tile.lanes
        (c_lo, c_hi), (r_lo, r_hi) = row_range, col_range

        def start(r):  # the first column past the tiles of the rows holding r
            tile_end = b.add(b.mul(b.udiv(r, self.const(mr)), self.const(mr)), self.const(mr))
            first = b.mul(b.udiv(b.add(tile_end, self.const(nr - 1)), self.const(nr)), self.const(nr))
            return _max(b, first, c_lo)

        def copy(r, c):
            value = b.load(self.at(self.c, b.add(b.mul(c, self.sc_m), b.mul(r, self.sc_n))), typ=self.element)
            b.store(value, self.at(self.c, b.add(b.mul(r, self.sc_m), b.mul(c, self.sc_n))))

        def row(r, stop=None):
            _for(b, start(r), c_hi if stop is None else stop, 1, lambda c: copy(r, c))

        def row_of_c(r, c):  # where C[r, c:] starts (its values of unit stride)
            return self.at(self.c, b.add(b.mul(r, self.sc_m), c))

        def square(r0, c0):  # C[r0:r0+lanes, c0:c0+lanes] from C[c0:c0+lanes, r0:r0+lanes]
            rows = [self.load_vector(row_of_c(b.add(c0, self.const(t)), r0), lanes) for t in range(lanes)]
            for t, vector in enumerate(_transposed(b, rows)):
                self.store_vector(vector, row_of_c(b.add(r0, self.const(t)), c0))

        def whole(start, stop):  # the first value of start + lanes * i at or past stop
            return b.add(start, b.mul(b.udiv(b.sub(stop, start), self.const(lanes)), self.const(lanes)))

        def group(r0):  # rows r0 .. r0+lanes-1: ragged starts, whole squares, a last part
            first = _min(b, start(b.add(r0, self.const(lanes - 1))), c_hi)  # the group's latest start
            squares_end = whole(first, c_hi)
            for t in range(lanes):
                row(b.add(r0, self.const(t)), first)
            _for(b, first, squares_end, lanes, lambda c0: square(r0, c0))
            for t in range(lanes):
                r = b.add(r0, self.const(t))
                _for(b, _max(b, squares_end, start(r)), c_hi, 1, lambda c, r=r: copy(r, c))

        squares = MIRROR_BY_SQUARES and lanes > 1 and lanes & (lanes - 1) == 0
        unit = b.icmp_signed("==", self.sc_n, self.const(1)) if squares else ll.Constant(I1, 0)
        with b.if_else(unit) as (vectors, elements):
            with vectors:
                groups_end = whole(r_lo, r_hi)
                _for(b, r_lo, groups_end, lanes, group)
                _for(b, groups_end, r_hi, 1, row)
            with elements:
                _for(b, r_lo, r_hi, 1, row)

    def a_panel(self, row: ll.Value, kc: ll.Value) -> ll.Value:
        return self.panel(row, kc, self.tile.mr)

    def panel(self, first: ll.Value, kc: ll.Value, width: int) -> ll.Value:
        """Where the packed panel of ``width`` rows (A) or columns (B) starting at ``first``
        (a multiple of ``width``) begins, in elements: panels are ``PANEL_GAP`` bytes apart, so
        that stores into every panel at once (a column of A with unit stride, a row of B) do
        not all fall into one cache set (``kc * width`` values is often a multiple of 4 KiB)."""
        b = self.b
        stride = b.add(b.mul(kc, self.const(width)), self.const(PANEL_GAP // self.itemsize))
        return b.mul(b.udiv(first, self.const(width)), stride)

    def pack_b(self, buffer: ll.Value, pc: ll.Value, kc: ll.Value, jc: ll.Value, nc: ll.Value) -> None:
        """B[pc:pc+kc, jc:jc+nc] as panels of NR columns, NR values per k, zero-padded. Rows
        of B with unit stride are read whole, a vector per whole panel, in order: panel by
        panel, the reads would hop a row's stride per k (a new page each, for large rows)."""
        b, nr = self.b, self.tile.nr
        zero = self.const(0)
        whole = b.mul(b.udiv(nc, self.const(nr)), self.const(nr))  # columns in whole panels
        block = self.at(self.bm, b.add(b.mul(pc, self.sb_k), b.mul(jc, self.sb_n)))

        def panel(jr):
            self.pack_b_panel(buffer, pc, kc, jc, nc, jr)

        def row(kk):
            row_k = self.at(block, b.mul(kk, self.sb_k))

            def whole_panel(jr):
                value = self.load_vector(self.at(row_k, jr), nr)
                at = b.add(self.panel(jr, kc, nr), b.mul(kk, self.const(nr)))
                self.store_vector(value, self.at(buffer, at))

            _for(b, zero, whole, nr, whole_panel)

        with b.if_else(b.icmp_signed("==", self.sb_n, self.const(1))) as (rows, panels):
            with rows:
                _for(b, zero, kc, 1, row)
                _for(b, whole, nc, nr, panel)  # the last, short panel
            with panels:
                _for(b, zero, nc, nr, panel)

    def pack_b_panel(self, buffer: ll.Value, pc: ll.Value, kc: ll.Value, jc: ll.Value, nc: ll.Value,
                     jr: ll.Value) -> None:
        """The panel of B[pc:pc+kc, jc:jc+nc] at column ``jr`` of the block, as ``pack_b``
        packs it (zero-padded past ``nc``)."""
        b, nr = self.b, self.tile.nr
        block = self.at(self.bm, b.add(b.mul(pc, self.sb_k), b.mul(jc, self.sb_n)))
        dst = self.at(buffer, self.panel(jr, kc, nr))
        cols = _min(b, self.const(nr), b.sub(nc, jr))
        self.zero_if_short(dst, cols, nr, kc)
        src = self.at(block, b.mul(jr, self.sb_n))
        self.copy(src, dst, (kc, self.sb_k, nr), (cols, self.sb_n, 1), nr)

    def pack_a(self, buffer: ll.Value, ic: ll.Value, mc: ll.Value, pc: ll.Value, kc: ll.Value) -> None:
        """A[ic:ic+mc, pc:pc+kc] as panels of MR rows, MR values per k, zero-padded. A column
        of A with unit stride (``a.T @ b``) is read whole, across all panels: a panel's part
        of a cache line would be gone by the next panel's turn."""
        b, mr = self.b, self.tile.mr
        block = self.at(self.a, b.add(b.mul(ic, self.sa_m), b.mul(pc, self.sa_k)))
        zero = self.const(0)

        def panel(ir, rows_inner):
            dst = self.at(buffer, self.a_panel(ir, kc))
            rows = _min(b, self.const(mr), b.sub(mc, ir))
            self.zero_if_short(dst, rows, mr, kc)
            if rows_inner:
                return
            src = self.at(block, b.mul(ir, self.sa_m))
            self.copy(src, dst, (kc, self.sa_k, mr), (rows, self.sa_m, 1), mr)

        whole = b.mul(b.udiv(mc, self.const(mr)), self.const(mr))  # rows in whole panels

        def column(kk):
            column_k = self.at(block, b.mul(kk, self.sa_k))

            def whole_panel(i):  # MR consecutive values of the column: one short vector
                value = self.load_vector(self.at(column_k, i), mr)
                at = b.add(self.a_panel(i, kc), b.mul(kk, self.const(mr)))
                self.store_vector(value, self.at(buffer, at))

            def edge_row(i):  # the rows of a last, short panel
                value = b.load(self.at(column_k, i), typ=self.element)
                at = b.add(self.a_panel(whole, kc), b.add(b.mul(kk, self.const(mr)), b.sub(i, whole)))
                b.store(value, self.at(buffer, at))

            _for(b, zero, whole, mr, whole_panel)
            _for(b, whole, mc, 1, edge_row)

        with b.if_else(b.icmp_signed("==", self.sa_m, self.const(1))) as (columns, rows):
            with columns:
                _for(b, zero, mc, mr, lambda ir: panel(ir, True))
                _for(b, zero, kc, 1, column)
            with rows:
                _for(b, zero, mc, mr, lambda ir: panel(ir, False))

    def copy(self, src: ll.Value, dst: ll.Value, along_k, across, width: int) -> None:
        """``dst[k * kstep + x] = src[k * kstride + x * xstride]`` for ``k < kc``, ``x < size``,
        ``along_k = (kc, kstride, kstep)``, ``across = (size, xstride, 1)``, into a panel
        ``width`` values wide. A whole panel (``size == width``) whose source runs with unit
        stride across it is a vector per k; one whose source runs with unit stride along k
        (the panel is the source transposed) reads each row a cache line of k at a time, one
        vector, and stores its values a panel row apart (the last values of k, short of a
        line, one at a time); anything else (edges, other strides) moves one
        element at a time, the loop over the source's unit-stride dim innermost, so that the
        reads walk memory in order (a column read with a power-of-two stride would thrash one
        cache set)."""
        b = self.b
        (kc, kstride, kstep), (size, xstride, _) = along_k, across
        zero = self.const(0)

        def move(kk, x):
            value = b.load(self.at(src, b.add(b.mul(kk, kstride), b.mul(x, xstride))), typ=self.element)
            b.store(value, self.at(dst, b.add(b.mul(kk, self.const(kstep)), x)))

        def rows_of_k(kk):
            value = self.load_vector(self.at(src, b.mul(kk, kstride)), width)
            self.store_vector(value, self.at(dst, b.mul(kk, self.const(kstep))))

        line = 64 // self.itemsize  # values of k in a cache line
        lanes = self.tile.lanes

        def transposed_square(x0, kk0):
            # ``lanes`` rows' next ``lanes`` values of k, transposed in registers and stored as
            # ``lanes`` vectors, one per k: a value stored alone per element cost 1.1 ms per
            # million values (a@b.T float32 of 64x1024x1024: 0.54x NumPy; docs/performance.md,
            # "Session 53: a transposed operand on Intel")
            starts = (b.add(b.mul(b.add(x0, self.const(i)), xstride), kk0) for i in range(lanes))
            rows = [self.load_vector(self.at(src, start), lanes) for start in starts]
            for i, vector in enumerate(_transposed(b, rows)):
                at = b.add(b.mul(b.add(kk0, self.const(i)), self.const(kstep)), x0)
                self.store_vector(vector, self.at(dst, at))

        def transposed_lines(kk0):
            # each row's next cache line of k as one vector, its values stored a panel row
            # apart: every line of the source is read once, whole (gathering one value per row
            # per k kept ``width`` lines a row's stride apart live, one cache set's worth at
            # 4 KiB strides: a@b.T 1024^2 float64 measured 0.90x NumPy on Zen 4)
            def row(x):
                value = self.load_vector(self.at(src, b.add(b.mul(x, xstride), kk0)), line)
                for lane in range(line):
                    at = b.add(b.mul(b.add(kk0, self.const(lane)), self.const(kstep)), x)
                    b.store(b.extract_element(value, ll.Constant(I32, lane)), self.at(dst, at))
            _for(b, zero, size, 1, row)

        full = b.icmp_signed("==", size, self.const(width))
        unit_across = b.icmp_signed("==", xstride, self.const(1))
        unit_along = b.icmp_signed("==", kstride, self.const(1))
        with b.if_else(b.and_(full, unit_across)) as (vectors, other):
            with vectors:
                _for(b, zero, kc, 1, rows_of_k)
            with other:
                with b.if_else(b.and_(full, unit_along)) as (transposed, elements):
                    with transposed:
                        if lanes > 1 and width % lanes == 0:  # a panel of whole vectors
                            # squares ``lanes`` rows at a time, each row's k in order: as many
                            # streams as lanes (a panel's 64 rows at once measured slower)
                            lines = b.mul(b.udiv(kc, self.const(lanes)), self.const(lanes))
                            _for(b, zero, size, lanes, lambda x0: _for(
                                b, zero, lines, lanes, lambda kk0: transposed_square(x0, kk0)))
                        else:
                            lines = b.mul(b.udiv(kc, self.const(line)), self.const(line))
                            _for(b, zero, lines, line, transposed_lines)
                        _for(b, zero, size, 1, lambda x: _for(b, lines, kc, 1, lambda kk: move(kk, x)))
                    with elements:
                        with b.if_else(unit_across) as (across_inner, k_inner):
                            with across_inner:
                                _for(b, zero, kc, 1,
                                     lambda kk: _for(b, zero, size, 1, lambda x: move(kk, x)))
                            with k_inner:
                                _for(b, zero, size, 1,
                                     lambda x: _for(b, zero, kc, 1, lambda kk: move(kk, x)))

    def load_vector(self, at: ll.Value, width: int) -> ll.Value:
        value = self.b.load(at, typ=ll.VectorType(self.element, width))
        value.align = self.itemsize  # a panel's rows are not aligned to a vector
        return value

    def store_vector(self, value: ll.Value, at: ll.Value) -> None:
        self.b.store(value, at).align = self.itemsize

    def zero_if_short(self, panel: ll.Value, used: ll.Value, width: int, kc: ll.Value) -> None:
        """Zeros in a panel that is not filled across (an edge): its padding multiplies by 0."""
        b = self.b
        with b.if_then(b.icmp_signed("<", used, self.const(width)), likely=False):
            size = b.mul(kc, self.const(width * self.itemsize))
            memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
            b.call(memset, [panel, ll.Constant(I8, 0), size, ll.Constant(I1, 0)])

    def plain(self, row_range, col_range, depth: int) -> None:
        """C by plain loops, each element summed block by block as the tiled path does."""
        b, kc_max = self.b, self.blocking.kc
        bits = self.itemsize * 8
        fmuladd = declare(self.module, f"llvm.fmuladd.f{bits}", self.element, [self.element] * 3)
        zero = ll.Constant(self.element, 0.0)
        with b.goto_entry_block():
            total = b.alloca(self.element)

        def element(i, j):
            target_ = self.at(self.c, b.add(b.mul(i, self.sc_m), b.mul(j, self.sc_n)))

            def block(pc):
                stop = _min(b, b.add(pc, self.const(kc_max)), self.const(depth))
                b.store(zero, total)

                def step(kk):
                    x = b.load(self.at(self.a, b.add(b.mul(i, self.sa_m), b.mul(kk, self.sa_k))),
                               typ=self.element)
                    y = b.load(self.at(self.bm, b.add(b.mul(kk, self.sb_k), b.mul(j, self.sb_n))),
                               typ=self.element)
                    b.store(b.call(fmuladd, [x, y, b.load(total, typ=self.element)]), total)

                _for(b, pc, stop, 1, step)
                s = b.load(total, typ=self.element)
                first = b.icmp_signed("==", pc, self.const(0))
                old = b.select(first, zero, b.load(target_, typ=self.element))
                b.store(b.select(first, s, b.fadd(old, s)), target_)

            _for(b, self.const(0), self.const(depth), kc_max, block)
            if self.finish is not None:
                self.finish(i, j, self.const(1), self.const(1))

        _for(b, row_range[0], row_range[1], 1,
             lambda i: _for(b, col_range[0], col_range[1], 1, lambda j: element(i, j)))


def _transposed(b: ll.IRBuilder, rows: list[ll.Value]) -> list[ll.Value]:
    """The columns of the square whose rows are ``rows`` (as many vectors as each has lanes, a
    power of two): at each step ``d`` (half the width, then half again, down to 1) every
    ``2d x 2d`` block swaps its off-diagonal ``d x d`` blocks, two shuffles per pair of rows."""
    lanes = len(rows)
    d = lanes // 2
    while d:
        for i in (i for i in range(lanes) if not i & d):
            low = [j if not j & d else lanes + j - d for j in range(lanes)]
            high = [j + d if not j & d else lanes + j for j in range(lanes)]
            x, y = rows[i], rows[i + d]
            rows[i] = b.shuffle_vector(x, y, ll.Constant(ll.VectorType(I32, lanes), low))
            rows[i + d] = b.shuffle_vector(x, y, ll.Constant(ll.VectorType(I32, lanes), high))
        d //= 2
    return rows


def _aligned(b: ll.IRBuilder, raw: ll.Value) -> ll.Value:
    """``raw`` moved up to the next ``ALIGN``-byte boundary (the buffer has room for it)."""
    address = b.ptrtoint(raw, I64)
    pad = b.and_(b.sub(ll.Constant(I64, 0), address), ll.Constant(I64, ALIGN - 1))
    return b.gep(raw, [pad], source_etype=I8)


def _micro_kernel(module: ll.Module, element: ll.Type, tile: TileShape, b_stride: int = 0,
                  prefetch: bool = True) -> ll.Function:
    """``void micro(i64 kc, ptr a, i64 sa_k, i64 sa_m, ptr b, ptr c, i64 sc_m, i64 sc_n, i64
    rows, i64 cols, i1 first, ptr pf, i64 pf_step)``: the ``mr x nr`` tile of A at ``a``
    (element ``(i, k)`` at ``k * sa_k + i * sa_m``: a packed panel, ``(MR, 1)``, or A in
    place) and the packed panel ``b`` over ``kc`` values of k, stored into (``first``) or
    added to the ``rows x cols`` corner of C at ``c``. Rows of A past ``rows`` read row
    ``rows - 1`` again (in bounds, and their sums are never stored). The packed rows of B are
    ``b_stride`` values apart (the tile's own width unless given: an edge kernel reads the
    first vectors of wider panels). ``pf``, ``pf_step``: each step of k prefetches the value
    at ``pf + k * pf_step`` (this tile's share of the next panel of B: ``PREFETCH_LOCALITY``),
    if ``prefetch``."""
    bits = 32 if isinstance(element, ll.FloatType) else 64
    b_stride = b_stride or tile.nr
    name = f"jitcore_gemm_micro_f{bits}_{tile.mr}x{tile.nv}x{tile.lanes}"
    if b_stride != tile.nr:
        name += f"_b{b_stride}"
    if not prefetch:
        name += "_nopf"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    vec = ll.VectorType(element, tile.lanes)
    vbytes = tile.lanes * bits // 8
    params = [I64, PTR, I64, I64, PTR, PTR, I64, I64, I64, I64, I1, PTR, I64]
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), params), name)
    fn.linkage = "internal"
    # One copy, called per tile: its k loop is not unrolled whole into every caller when kc
    # is a small constant (LLVM's time, not the kernel's, would grow with it).
    fn.attributes.add("noinline")
    kc, pa, sa_k, sa_m, pb, pc, sc_m, sc_n, rows, cols, first, pf, pf_step = fn.args
    for p in (pa, pb, pc):
        p.add_attribute("noalias")
    fmuladd = declare(module, f"llvm.fmuladd.v{tile.lanes}f{bits}", vec, [vec, vec, vec])
    entry, loop, body, done = (fn.append_basic_block(x) for x in ("entry", "k", "k.body", "k.done"))
    b = ll.IRBuilder(entry)
    spill = b.alloca(vec, size=tile.mr * tile.nv)  # an edge tile's copy, for scalar stores
    spill.align = vbytes
    last_row = b.sub(rows, ll.Constant(I64, 1))
    a_rows = []  # each row's first value, clamped to the tile's last real row
    for i in range(tile.mr):
        row = _min(b, ll.Constant(I64, i), last_row)
        a_rows.append(b.gep(pa, [b.mul(row, sa_m)], source_etype=element))
    b.branch(loop)

    b.position_at_end(loop)
    kk = b.phi(I64)
    kk.add_incoming(ll.Constant(I64, 0), entry)
    accs = [[b.phi(vec) for _ in range(tile.nv)] for _ in range(tile.mr)]
    for row in accs:
        for acc in row:
            acc.add_incoming(ll.Constant(vec, [0.0] * tile.lanes), entry)
    b.cbranch(b.icmp_signed("<", kk, kc), body, done)

    b.position_at_end(body)
    b_row = b.gep(pb, [b.mul(kk, ll.Constant(I64, b_stride))], source_etype=element)
    b_vecs = []
    for j in range(tile.nv):
        v = b.load(b.gep(b_row, [ll.Constant(I64, j * tile.lanes)], source_etype=element), typ=vec)
        v.align = vbytes
        b_vecs.append(v)
    if prefetch:
        prefetch = declare(module, "llvm.prefetch.p0", ll.VoidType(), [PTR, I32, I32, I32])
        ahead = b.gep(pf, [b.mul(kk, pf_step)], source_etype=element)
        locality = ll.Constant(I32, PREFETCH_LOCALITY)
        b.call(prefetch, [ahead, ll.Constant(I32, 0), locality, ll.Constant(I32, 1)])  # a read, of data
    a_k = b.mul(kk, sa_k)
    mask = ll.Constant(ll.VectorType(ll.IntType(32), tile.lanes), [0] * tile.lanes)
    undef = ll.Constant(vec, None)
    for i in range(tile.mr):
        x = b.load(b.gep(a_rows[i], [a_k], source_etype=element), typ=element)
        splat = b.shuffle_vector(b.insert_element(undef, x, ll.Constant(I32, 0)), undef, mask)
        for j in range(tile.nv):
            accs[i][j].add_incoming(b.call(fmuladd, [splat, b_vecs[j], accs[i][j]]), body)
    kk.add_incoming(b.add(kk, ll.Constant(I64, 1)), body)
    b.branch(loop)

    b.position_at_end(done)
    # Whole rows of unit stride (a tile of all its columns, maybe fewer rows: the last tile
    # of a 64-row product has 4): vector loads and stores, row by row.
    whole = b.and_(b.icmp_signed("==", cols, ll.Constant(I64, tile.nr)),
                   b.icmp_signed("==", sc_n, ll.Constant(I64, 1)))
    with b.if_else(whole) as (vectors, elements):
        with vectors:
            for i in range(tile.mr):
                def store_row(i=i):
                    # The first block of k stores without reading C: a load of C there (a
                    # select) waited for lines about to be overwritten, a miss per line of a
                    # large C on every product of a single block of k.
                    c_row = b.gep(pc, [b.mul(ll.Constant(I64, i), sc_m)], source_etype=element)
                    with b.if_else(first) as (store, add):
                        with store:
                            for j in range(tile.nv):
                                at = b.gep(c_row, [ll.Constant(I64, j)], source_etype=vec)
                                b.store(accs[i][j], at).align = bits // 8
                        with add:
                            for j in range(tile.nv):
                                at = b.gep(c_row, [ll.Constant(I64, j)], source_etype=vec)
                                old = b.load(at, typ=vec)
                                old.align = bits // 8
                                b.store(b.fadd(old, accs[i][j]), at).align = bits // 8
                if i == 0:
                    store_row()  # a tile has at least one row
                else:
                    with b.if_then(b.icmp_signed("<", ll.Constant(I64, i), rows)):
                        store_row()
        with elements:  # an edge tile of columns, or C with strided rows: one element at a time
            for i in range(tile.mr):
                for j in range(tile.nv):
                    at = b.gep(spill, [ll.Constant(I64, i * tile.nv + j)], source_etype=vec)
                    b.store(accs[i][j], at).align = vbytes

            def add_row(i):
                _for(b, ll.Constant(I64, 0), cols, 1,
                     lambda j: _add_element(b, element, spill, pc, sc_m, sc_n, tile.nr, first, i, j))

            _for(b, ll.Constant(I64, 0), rows, 1, add_row)
    b.ret_void()
    return fn


def _add_element(b: ll.IRBuilder, element: ll.Type, spill, pc, sc_m, sc_n, nr: int, first, i, j) -> None:
    at = b.gep(spill, [b.add(b.mul(i, ll.Constant(I64, nr)), j)], source_etype=element)
    value = b.load(at, typ=element)
    at = b.gep(pc, [b.add(b.mul(i, sc_m), b.mul(j, sc_n))], source_etype=element)
    with b.if_else(first) as (store, add):
        with store:
            b.store(value, at)
        with add:
            b.store(b.fadd(b.load(at, typ=element), value), at)
