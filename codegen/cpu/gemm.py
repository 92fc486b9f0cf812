"""A float contraction as jitcore's tiled kernel or a call of the BLAS that NumPy itself uses.

The choice (``uses_tiled_kernel``), measured on this project's 2-core AVX-512 host (Zen 5;
docs/performance.md, "Tiled matmul"; ``tools/bench_matmul.py`` times both sides of it): NumPy's
OpenBLAS runs its 256-bit Zen kernels there, and ``codegen/cpu/tiled_gemm.py``'s 512-bit
kernel was as fast or faster at every square size measured (64² to 2048², float32 and
float64, a transposed operand) and on the MLP's tall products (``x @ W1``, ``x.T @ dh``).
So every product with one m, one n and one k dim, no batch dims, and at least
``TILED_MIN_SIDE`` rows and columns runs tiled (``TILED_MIN_WORK`` is 0). Thin products (the
MLP's 16 outputs: ``h @ W2``, ``h.T @ d``) run on a narrower tile that reads A in place
(``tiled_gemm.narrow_tile``): 1.2-2x faster than BLAS from 8 columns up (one thread, CPU
time, float32 and float64; docs/performance.md, "Matrix products, round 2"). Matrix-vector
products of contiguous operands (one output dim, no batch) run as ``codegen/cpu/matvec.py``'s
kernel: as fast as ``gemv`` on one thread or faster (its 256-bit kernels, and jitcore's call of
it costs 1-3 us more than NumPy's), and on jitcore's threads, which park, where OpenBLAS's
threaded ``gemv`` on a loaded 2-core host took tens of milliseconds a call (docs/performance.md,
"matvec36"). A batch of products runs tiled too where each product has at least
``TILED_MIN_BATCHED_WORK`` multiply-adds (1.08-1.30x NumPy for two products from 128² to
1024², where BLAS's call per product was 0.98-1.07x), and so does a product of that size
whose roles span several dims nested in each operand (a tensordot over two axes:
``single_dim_roles`` takes each role as one dim; docs/performance.md, "gemm37"). Products of
2 to 7 columns (even, or BLAS ahead) stay on BLAS up to ``BLAS_THREADED_WORK``, past which
BLAS would run them on its own threads: then tiled, or, a float32 stack of matrices times a
thin one, a call per matrix as NumPy makes (``stacked_thin_products``). Strided
matrix-vector products, batches of vector-vector products (``dot``), batches of products of
at least ``MIN_BATCHED_WORK`` each, and roles whose dims do not nest stay on BLAS too.
Without BLAS (``JITCORE_BLAS=none``) the tiled kernel still runs, and the rest are loop nests.

One vector-vector product (``x @ y``, ``np.sum(x * y)``: a 1x1 result, no batch) is a sum of
products, and runs as one: ``reduction.py``'s documented order and error bound on jitcore's
threads, the same bits on any number of them, at the memory's speed. The library's ``dot``
sums in its own order, and its ``ddot`` in one that its own thread count changes
(``OPENBLAS_NUM_THREADS`` 1 and 2 differ in the last bits for 10^5 float64 elements);
threaded, on a busy 2-core host, it took 4 ms of CPU (30 ms of wall time) for 10^5 elements
that the reduction sums in 0.02 ms (docs/performance.md, "Sums of products in jitcore's
order"). A batch of them (``einsum("ij,ij->i")``) keeps its call per row: the row reduction
of products ran 2-4x the library's time there (1000x1000).

A BLAS call: a kernel that ``codegen.contraction`` recognises, of float32 or float64,
becomes a function with the kernel ABI that:

1. reads each operand's element strides per iteration dim (constants for contiguous arrays,
   parameters for strided ones) and works out a CBLAS call: row- or column-major from the
   result, each matrix transposed or not from which of its dims has unit stride, leading
   dimensions from the other stride. Dims of one role (two contracted axes of a tensordot)
   pass as one when their strides nest;
2. calls ``gemm`` (``dot`` when the product is 1x1 in a batch, ``gemv`` when it has one row or
   one column) once per batch index. An input whose strides do not fit (no unit stride, a leading
   dimension out of range, a negative increment, a misaligned start, role dims that do not
   nest) is first copied into a row-major buffer, as NumPy does;
3. runs the kernel's ordinary loop nest instead (emitted alongside, same parameters) when the
   result's strides do not fit or no buffer could be allocated. Empty contractions, and
   batches of products too small to pay for a call each (``MIN_BATCHED_WORK``), are plain
   loop nests (decided here, statically).

The routine's name is recorded in the plan (``Launch.calls``) and resolved when it is loaded
(``codegen/cpu/blas.py``). Integer, bool and complex contractions keep the loop nest.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen.contraction import Contraction, match_contraction, single_dim_roles
from jitcore.codegen.cpu.blas import BlasLibrary
from jitcore.codegen.cpu.matvec import emit_matvec, match_matvec
from jitcore.codegen.cpu.schedule import emit_kernel
from jitcore.codegen.cpu.tiled_gemm import RunTimeBlocks, base_pointer, dim_stride, emit_tiled_gemm
from jitcore.codegen.gemm_epilogue import FusedProduct, match_fused_product
from jitcore.codegen.kernel_body import Operand, entry_builder, kernel_function
from jitcore.codegen.llvm_types import I1, I64, PTR, declare, value_type
from jitcore.codegen.loops import Sizes, emit_nest
from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Operation

I32 = ll.IntType(32)
# A batch of small products is faster as the loop nest (which vectorizes across the batch)
# than as one call per batch index: the least work per call (m * n * k) that takes the call,
# measured on the 2-core AVX-512 host against the loop nests of the time. gemm's, session 52
# (us a call, one thread, loaded host, jitcore's loops against its calls): 2 x 50^2 x 3 9.5
# against 1.9, 100 x 16^3 72 against 14, 8 x 30^3 36 against 7.8, 1000 x 4^3 25 against 22
# (float32 35 against 22), 1000 x 3^3 17.5 against 21.5, 10000 x 2^3 36 against 167.
MIN_BATCHED_WORK = {"dot": 16, "gemv": 128, "gemm": 4 ** 3}
# The least rows and columns (the shorter of the two), and the least work (m * n * k), a
# product needs to run as the tiled kernel rather than BLAS (measured: the module docstring);
# tools/bench_matmul.py moves them to force either side.
TILED_MIN_SIDE = 8
TILED_MIN_WORK = 0
# A batch of products runs tiled where each has at least this many multiply-adds; smaller
# ones keep BLAS's call per product (or the loop nest, MIN_BATCHED_WORK). One thread, CPU
# time, float32, base (BLAS) and tiled in turns, NumPy over jitcore: 50 x 128^3 0.98-0.99x on
# BLAS, 1.06-1.11x tiled; 200 x 64^3 0.91-1.02x against 0.88-1.01x; 1000 x 32^3 1.08-1.18x
# against 0.70-0.82x (each product pays for its packing and its buffer's exchange:
# docs/performance.md, "gemm37").
TILED_MIN_BATCHED_WORK = 128 ** 3
# From about this much work (m * n * k) OpenBLAS runs one gemm on its own threads, which spin
# against jitcore's and other processes' on a loaded host: 2 to 7 columns (a stack of
# transition matrices times a few value vectors, P @ W of (A*S, S) x (S, 3)) took 24-40 ms
# there, 8 ms of CPU, from 1.08M multiply-adds (900k stayed on one thread, 0.1 ms), where the
# tiled kernel's narrow tile took 0.05-0.3 ms. So products of fewer than TILED_MIN_SIDE
# columns run tiled from here (docs/performance.md, "Session 52: Bellman backups").
BLAS_THREADED_WORK = 2 ** 20
ROW_MAJOR, COL_MAJOR, NO_TRANS, TRANS = 101, 102, 111, 112  # CBLAS's enum values
_A, _B, _C = 0, 1, 2  # the operands: the product's two inputs, its result


class _Array(int):
    """Where an operand's address goes in a routine's arguments (the operand's number)."""


def routine_for(c: Contraction) -> str:
    """The CBLAS routine, less its precision letter, that computes ``c`` per batch index."""
    rows, cols = c.extent(c.m), c.extent(c.n)
    return "dot" if rows == 1 and cols == 1 else "gemv" if rows == 1 or cols == 1 else "gemm"


@dataclass(frozen=True)
class ContractionKernel:
    """A contraction's kernel: the library routines it calls (run as one piece: the library
    threads itself), or the number of blocks its range counts (a split kernel, on the
    runtime's threads)."""

    fn: ll.Function
    calls: tuple[str, ...] = ()
    split_extent: int | RunTimeBlocks | None = None


def uses_tiled_kernel(c: Contraction, library: BlasLibrary | None) -> bool:
    """Whether ``c`` runs as jitcore's tiled kernel rather than BLAS (the rule in the module
    docstring): one m, n and k dim each, BLAS absent or slower there, and for a batch
    products of at least ``TILED_MIN_BATCHED_WORK`` each."""
    if len(c.m) != 1 or len(c.n) != 1 or len(c.k) != 1:
        return False
    if c.batch and c.extent(c.m + c.n + c.k) < TILED_MIN_BATCHED_WORK:
        return False
    if library is None:
        return True
    work = c.extent(c.m + c.n + c.k)
    if not c.batch and c.extent(c.m) >= TILED_MIN_SIDE > c.extent(c.n) and work >= BLAS_THREADED_WORK:
        return work >= TILED_MIN_WORK  # thin: BLAS would thread it (BLAS_THREADED_WORK)
    return min(c.extent(c.m), c.extent(c.n)) >= TILED_MIN_SIDE and work >= TILED_MIN_WORK


def stacked_thin_products(c: Contraction, library: BlasLibrary | None) -> Contraction | None:
    """``c``, a float32 stack of matrices times a thin one (``P @ W`` of ``P[a, s, t]`` and
    ``W[t, 3]``), as the batch of products NumPy computes: the rows' outer dims a batch, each
    product a call BLAS runs on one thread (less than ``BLAS_THREADED_WORK``), where the whole
    would run on its threads. Measured: float32 (8, 300, 300) x (300, 3) at 0.11 ms per call
    as NumPy, where the tiled kernel's narrow tile, 3 of its 16 lanes used, took 0.15 ms;
    float64's tile (3 of 8) was ahead of NumPy's calls (docs/performance.md, "Session 52")."""
    if library is None or c.batch or len(c.m) < 2 or c.element.bitwidth != 32:
        return None
    if not 0 < c.extent(c.n) < TILED_MIN_SIDE or c.extent(c.m + c.n + c.k) < BLAS_THREADED_WORK:
        return None
    if c.extent(c.m[-1:] + c.n + c.k) >= BLAS_THREADED_WORK:
        return None  # each product would thread: the tiled kernel takes the whole
    return Contraction(c.element, c.domain, c.m[:-1], c.m[-1:], c.n, c.k)


def emit_contraction(module: ll.Module, name: str, op: Operation, strided: list[bool], fastmath: bool,
                     library: BlasLibrary | None, symbols: tuple[int, ...] = (),
                     layouts=None) -> ContractionKernel | None:
    """``op`` as a tiled kernel or a BLAS call, if it is a float32 or float64 contraction
    that one of them computes; None otherwise (the caller emits the loop nest). A BLAS call
    of a size-generic function (``symbols``) takes its dims at run time. A product with
    a fused epilogue (``codegen/gemm_epilogue.py``) runs tiled, the epilogue applied to each
    finished panel of tiles; where the rule sends its product to BLAS (``fuse`` fuses no
    product thinner than ``TILED_MIN_SIDE``, but ``TILED_MIN_WORK`` may be moved), the kernel
    calls BLAS and then runs the epilogue as a separate loop over the result
    (``emit_blas_then_epilogue``)."""
    fused = match_fused_product(op)
    if fused is not None:
        if uses_tiled_kernel(fused.contraction, library):
            fn, blocks = emit_tiled_gemm(module, name, fused.product, fused.contraction, strided,
                                         fused, op, fastmath, symbols)
            return ContractionKernel(fn, split_extent=blocks)
        called = emit_blas_then_epilogue(module, name, op, fused, strided, fastmath, library)
        if called is not None:
            return ContractionKernel(called[0], calls=(called[1],))
        fn, blocks = emit_tiled_gemm(module, name, fused.product, fused.contraction, strided,
                                     fused, op, fastmath, symbols)
        return ContractionKernel(fn, split_extent=blocks)
    c = match_contraction(op)
    if c is None or not c.element.is_float or c.element.bitwidth not in (32, 64) or 0 in c.domain:
        return None  # an empty contraction (nothing, or zeros, to write): the loop nest does it
    vector = match_matvec(op, c, strided)
    if vector is not None and (library is None or c.extent(c.m + c.n + c.k) >= TILED_MIN_WORK):
        # one output dim: jitcore's own matrix-vector kernel (matvec.py), under the same rule
        # as the tiled kernel's (TILED_MIN_WORK moved up puts every product on BLAS)
        fn, blocks = emit_matvec(module, name, op, c, vector, strided, symbols)
        return ContractionKernel(fn, split_extent=blocks)
    stack = stacked_thin_products(c, library)
    if stack is not None:
        called = emit_blas_kernel(module, name, op, strided, fastmath, library, symbols, layouts, stack)
        if called is not None:
            return ContractionKernel(called[0], calls=(called[1],))
    least = min(TILED_MIN_BATCHED_WORK, BLAS_THREADED_WORK)
    if max(len(c.m), len(c.n), len(c.k)) > 1 and c.extent(c.m + c.n + c.k) >= least:
        # roles of several nested dims (a tensordot over two axes, a stack of matrices times
        # a thin one) as one dim each; such a kernel is compiled per size (BLAS's call is
        # size-generic), so only where the product is large enough to pay for that, as for a
        # batch, or where BLAS would run it on its own threads
        c = single_dim_roles(op, c, strided) or c
    if uses_tiled_kernel(c, library):
        fn, blocks = emit_tiled_gemm(module, name, op, c, strided, symbols=symbols)
        return ContractionKernel(fn, split_extent=blocks)
    called = emit_blas_kernel(module, name, op, strided, fastmath, library, symbols, layouts)
    return None if called is None else ContractionKernel(called[0], calls=(called[1],))


def emit_blas_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool], fastmath: bool,
                     library: BlasLibrary | None, symbols: tuple[int, ...] = (), layouts=None,
                     contraction: Contraction | None = None) -> tuple[ll.Function, str] | None:
    """``op`` as the kernel ``name`` calling ``library``, and the routine's symbol; None if
    ``op`` is not a float contraction that BLAS can compute (the caller emits the loop nest).
    With ``symbols`` (a size-generic function's extents) the kernel and its loop nest take
    the run-time extents, and the call's dims, leading dimensions and packed buffers are
    computed from them: one code for every size that makes the same choices here."""
    c = contraction or match_contraction(op)
    if library is None or c is None or not c.element.is_float or c.element.bitwidth not in (32, 64):
        return None
    if 0 in c.domain:
        return None  # nothing to compute, or zeros to write: the loop nest does it
    if routine_for(c) == "dot" and c.extent(c.batch) == 1:
        return None  # one sum of products: the reduction's own order (the module docstring)
    if library.int_bits == 32 and max(c.domain) >= 2**31:
        return None
    if c.extent(c.batch) > 1 and c.extent(c.m + c.n + c.k) < MIN_BATCHED_WORK[routine_for(c)]:
        return None
    symbol = library.routine(("s" if c.element.bitwidth == 32 else "d") + routine_for(c))
    loops, *_ = emit_kernel(module, f"{name}_loops", op, strided, fastmath, sizes=Sizes(symbols),
                              layouts=layouts)
    # The loop nest runs only where BLAS cannot (a result it cannot write, no memory to pack
    # into): kept out of line and small, LLVM's O3 otherwise unrolls and vectorizes a small
    # constant nest inside the caller (cov(X, rowvar=False) of 8x3: 3.5k lines, 3x the compile).
    for attribute in ("noinline", "cold", "optsize"):
        loops.attributes.add(attribute)
    sizes = Sizes(symbols)
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided, sizes=sizes)
    _Call(fn, c, operands, list(op.indexing_maps), library, symbol, loops, sizes)
    return fn, symbol


def emit_blas_then_epilogue(module: ll.Module, name: str, op: Operation, fused: FusedProduct,
                            strided: list[bool], fastmath: bool, library: BlasLibrary | None
                            ) -> tuple[ll.Function, str] | None:
    """The fused kernel ``op`` as the BLAS kernel of its product, writing into ``op``'s
    result, and then its epilogue's loop nest over that result in place (each point reads its
    sum, then stores over it: as NumPy's ``out=``); the routine's symbol. None if BLAS cannot
    take the product."""
    shaped = [*op.operands, *op.results]
    last = len(shaped) - 1
    product_flags = [strided[0], strided[1], strided[last]]
    called = emit_blas_kernel(module, f"{name}_product", fused.product, product_flags, fastmath, library)
    if called is None:
        return None
    epilogue_flags = [strided[last], *strided[2:last], strided[last]]
    epilogue, *_ = emit_kernel(module, f"{name}_epilogue", fused.epilogue, epilogue_flags, fastmath)
    fn, _, _, _ = kernel_function(module, name, shaped, strided)
    pointers, rest = list(fn.args[:len(shaped)]), iter(fn.args[len(shaped):])
    strides = [[next(rest) for _ in range(v.type.rank)] if s else [] for v, s in zip(shaped, strided)]

    def args(order: list[int]) -> list[ll.Value]:
        return [pointers[i] for i in order] + [x for i in order for x in strides[i]]

    b = ll.IRBuilder(fn.append_basic_block("entry"))
    b.call(called[0], args([0, 1, last]))
    b.call(epilogue, args([last, *range(2, last), last]))
    b.ret_void()
    return fn, called[1]


class _Input:
    """How an input reaches BLAS: as it is when its strides fit, else packed per batch index
    into a row-major buffer (as NumPy copies such an operand); the strides the call sees."""

    def __init__(self, call: _Call, index: int, row_dims: tuple[int, ...], col_dims: tuple[int, ...]):
        b = call.b
        self.index, self.dims = index, row_dims + col_dims
        rows, cols = call.extent(row_dims), call.extent(col_dims)
        self.strides = [call.dim_stride(index, d) for d in self.dims]
        row_stride, rows_nest = call.role_stride(index, row_dims)
        col_stride, cols_nest = call.role_stride(index, col_dims)
        row_ok, _ = call.storage(rows, cols, row_stride, col_stride, row_major=True)
        col_ok, _ = call.storage(rows, cols, row_stride, col_stride, row_major=False)
        # As NumPy, never hand BLAS a misaligned array (an unaligned view): pack it.
        address = b.ptrtoint(call.operands[index].pointer, I64)
        aligned = b.icmp_unsigned("==", b.and_(address, ll.Constant(I64, call.itemsize - 1)),
                                  ll.Constant(I64, 0))
        self.direct = b.and_(b.and_(rows_nest, cols_nest), b.and_(aligned, b.or_(row_ok, col_ok)))
        self.row_stride = b.select(self.direct, row_stride, cols)
        self.col_stride = b.select(self.direct, col_stride, ll.Constant(I64, 1))
        before = b.block
        with b.if_then(b.not_(self.direct), likely=False):
            allocated = b.call(call.malloc, [call.sizes.multiply(b, [rows, cols, _i64(call.itemsize)])])
            allocating = b.block
        self.buffer = b.phi(PTR)
        self.buffer.add_incoming(ll.Constant(PTR, None), before)
        self.buffer.add_incoming(allocated, allocating)
        call.require(b.or_(self.direct, b.icmp_unsigned("!=", self.buffer, ll.Constant(PTR, None))))
        self.packed_strides = call.sizes.strides(b, [call.c.domain[d] for d in self.dims])

    def pointer(self, call: _Call, source: ll.Value) -> ll.Value:
        """What the call reads at one batch index: ``source``, or a packed copy of it."""
        b = call.b
        with b.if_then(b.not_(self.direct), likely=False):
            def copy(ivs):
                src = b.gep(source, [_dot(b, ivs, self.strides)], source_etype=call.float)
                dst = b.gep(self.buffer, [_dot(b, ivs, self.packed_strides)], source_etype=call.float)
                b.store(b.load(src, typ=call.float), dst)
            emit_nest(b, [call.sizes.extent(call.c.domain[d]) for d in self.dims], copy)
        return b.select(self.direct, source, self.buffer)


class _Call:
    def __init__(self, fn: ll.Function, c: Contraction, operands: list[Operand], maps: list[AffineMap],
                 library: BlasLibrary, symbol: str, loops: ll.Function, sizes: Sizes):
        self.c, self.operands, self.maps, self.sizes = c, operands, maps, sizes
        self.int = ll.IntType(library.int_bits)
        self.float = value_type(c.element)
        self.itemsize = c.element.bitwidth // 8
        self.malloc = declare(fn.module, "malloc", PTR, [I64])
        free = declare(fn.module, "free", ll.VoidType(), [PTR])
        self.b = b = entry_builder(fn)
        self.ok: ll.Value = ll.Constant(I1, 1)
        self.inputs = (_Input(self, _A, c.m, c.k), _Input(self, _B, c.k, c.n))
        routine = routine_for(c)
        args = self.arguments(routine)
        call_blas, call_loops = fn.append_basic_block("blas"), fn.append_basic_block("loops")
        b.cbranch(self.ok, call_blas, call_loops)
        b.position_at_end(call_loops)  # a result BLAS cannot write, or no memory to pack into
        b.call(loops, list(fn.args))
        for operand in self.inputs:
            b.call(free, [operand.buffer])
        b.ret_void()
        b.position_at_end(call_blas)
        self.emit_calls(fn.module, symbol, routine, args)
        for operand in self.inputs:
            b.call(free, [operand.buffer])
        b.ret_void()

    # -- extents and strides ---------------------------------------------------------------
    def extent(self, dims: tuple[int, ...]) -> ll.Value:
        """The product of the extents of ``dims``: a run-time value in a size-generic kernel."""
        return self.sizes.product(self.b, [self.c.domain[d] for d in dims])

    def is_one(self, value: ll.Value) -> bool:
        """Whether an extent is 1 (a constant: 1 is never a run-time extent, see ``Sizes``)."""
        return self.sizes.concrete(value) == 1

    def dim_stride(self, i: int, d: int) -> ll.Value:
        """Operand ``i``'s element stride along iteration dim ``d`` (0 if it does not read it)."""
        return dim_stride(self.b, self.operands[i], self.maps[i], d)

    def role_stride(self, i: int, dims: tuple[int, ...]) -> tuple[ll.Value, ll.Value]:
        """Operand ``i``'s stride along a role's dims taken as one, and whether they nest (the
        outer stride is the inner one times the inner extent), as one dim needs."""
        nest: ll.Value = ll.Constant(I1, 1)
        if not dims:
            return ll.Constant(I64, 0), nest
        strides = [self.dim_stride(i, d) for d in dims]
        for outer, inner, d in zip(strides, strides[1:], dims[1:]):
            nested = self.b.mul(inner, self.sizes.extent(self.c.domain[d]))
            nest = self.b.and_(nest, self.b.icmp_signed("==", outer, nested))
        return strides[-1], nest

    def base(self, i: int) -> ll.Value:
        """Operand ``i``'s first element read (its map may start at an offset)."""
        return base_pointer(self.b, self.operands[i], self.maps[i], self.float)

    def require(self, condition: ll.Value) -> None:
        self.ok = self.b.and_(self.ok, condition)

    def in_range(self, value: ll.Value, low: int | ll.Value) -> ll.Value:
        """``low <= value`` and ``value`` fits the library's integers."""
        b = self.b
        fits = b.icmp_signed(">=", value, _i64(low) if isinstance(low, int) else low)
        if self.int.width < 64:
            fits = b.and_(fits, b.icmp_signed("<", value, ll.Constant(I64, 2 ** (self.int.width - 1))))
        return fits

    def storage(self, rows: ll.Value, cols: ll.Value, row_stride: ll.Value, col_stride: ll.Value,
                row_major: bool) -> tuple[ll.Value, ll.Value]:
        """Whether a ``rows x cols`` matrix with these strides is stored row-major (or
        column-major) as BLAS understands it, and its leading dimension then (extents are
        never 0 here: an empty contraction is a loop nest)."""
        inner, outer, inner_stride, outer_stride = ((cols, rows, col_stride, row_stride) if row_major
                                                    else (rows, cols, row_stride, col_stride))
        need = inner
        one = ll.Constant(I64, 1)
        unit = ll.Constant(I1, 1) if self.is_one(inner) else self.b.icmp_signed("==", inner_stride, one)
        ld = need if self.is_one(outer) else outer_stride
        return self.b.and_(unit, self.in_range(ld, need)), ld

    def increment(self, size: ll.Value, stride: ll.Value) -> ll.Value:
        """A vector's increment: positive (1 for a single element)."""
        if self.is_one(size):
            return ll.Constant(I64, 1)
        self.require(self.in_range(stride, 1))
        return stride

    # -- the call --------------------------------------------------------------------------
    def arguments(self, routine: str) -> list:
        """The routine's arguments, an ``_Array`` where an operand's address goes (a dot's
        result is stored, not passed), checking on the way that the strides fit."""
        c, b = self.c, self.b
        rows, cols, depth = self.extent(c.m), self.extent(c.n), self.extent(c.k)
        (sa_m, sa_k), (sb_k, sb_n) = ((x.row_stride, x.col_stride) for x in self.inputs)
        (sc_m, c_rows_nest), (sc_n, c_cols_nest) = self.role_stride(_C, c.m), self.role_stride(_C, c.n)
        self.require(b.and_(c_rows_nest, c_cols_nest))
        one, zero = ll.Constant(self.float, 1.0), ll.Constant(self.float, 0.0)
        if routine == "dot":
            return [depth, _Array(_A), self.increment(depth, sa_k), _Array(_B), self.increment(depth, sb_k)]
        if routine == "gemv":
            if self.is_one(cols):  # y = A x: A is rows x depth
                matrix, size, trans = (rows, depth, sa_m, sa_k), (depth, sb_k, rows, sc_m), NO_TRANS
                arrays = _Array(_A), _Array(_B)
            else:  # y = B^T x: B is depth x cols
                matrix, size, trans = (depth, cols, sb_k, sb_n), (depth, sa_k, cols, sc_n), TRANS
                arrays = _Array(_B), _Array(_A)
            row_ok, row_ld = self.storage(*matrix, row_major=True)
            col_ok, col_ld = self.storage(*matrix, row_major=False)
            self.require(b.or_(row_ok, col_ok))
            layout = b.select(row_ok, ll.Constant(I32, ROW_MAJOR), ll.Constant(I32, COL_MAJOR))
            x_inc, y_inc = self.increment(size[0], size[1]), self.increment(size[2], size[3])
            return [layout, ll.Constant(I32, trans), matrix[0], matrix[1], one, arrays[0],
                    b.select(row_ok, row_ld, col_ld), arrays[1], x_inc, zero, _Array(_C), y_inc]
        c_row, ldc_row = self.storage(rows, cols, sc_m, sc_n, True)
        c_col, ldc_col = self.storage(rows, cols, sc_m, sc_n, False)
        self.require(b.or_(c_row, c_col))
        picked = []
        for shape in ((rows, depth, sa_m, sa_k), (depth, cols, sb_k, sb_n)):
            row_ok, row_ld = self.storage(*shape, row_major=True)
            col_ok, col_ld = self.storage(*shape, row_major=False)
            as_c = b.select(c_row, row_ok, col_ok)  # stored as C is: not transposed
            self.require(b.or_(row_ok, col_ok))
            picked.append((b.select(as_c, ll.Constant(I32, NO_TRANS), ll.Constant(I32, TRANS)),
                           b.select(as_c, b.select(c_row, row_ld, col_ld), b.select(c_row, col_ld, row_ld))))
        (trans_a, lda), (trans_b, ldb) = picked
        layout = b.select(c_row, ll.Constant(I32, ROW_MAJOR), ll.Constant(I32, COL_MAJOR))
        return [layout, trans_a, trans_b, rows, cols, depth, one, _Array(_A), lda, _Array(_B), ldb, zero,
                _Array(_C), b.select(c_row, ldc_row, ldc_col)]

    def emit_calls(self, module: ll.Module, symbol: str, routine: str, args: list) -> None:
        """One call per batch index, at each operand's batch offset."""
        b, c = self.b, self.c
        fixed = {}
        for n, a in enumerate(args):
            if isinstance(a, _Array):
                continue
            if isinstance(a, int):
                a = ll.Constant(self.int, a)
            elif a.type == I64 and self.int != I64:
                a = b.trunc(a, self.int)
            fixed[n] = a
        bases = [self.base(i) for i in (_A, _B, _C)]
        batch_strides = [[self.dim_stride(i, d) for d in c.batch] for i in (_A, _B, _C)]
        result = self.float if routine == "dot" else ll.VoidType()
        fn = declare(module, symbol, result, [fixed[n].type if n in fixed else PTR for n in range(len(args))])

        def call(ivs):
            pointers = [b.gep(base, [_dot(b, ivs, strides)], source_etype=self.float)
                        for base, strides in zip(bases, batch_strides)]
            pointers[:2] = [x.pointer(self, p) for x, p in zip(self.inputs, pointers)]
            value = b.call(fn, [fixed[n] if n in fixed else pointers[a] for n, a in enumerate(args)])
            if routine == "dot":
                b.store(value, pointers[_C])

        emit_nest(b, self.sizes.extents([c.domain[d] for d in c.batch]), call)


def _dot(b: ll.IRBuilder, ivs, strides) -> ll.Value:
    """``sum(iv * stride)``: an element offset."""
    offset: ll.Value = ll.Constant(I64, 0)
    for iv, stride in zip(ivs, strides):
        offset = b.add(offset, b.mul(iv, stride))
    return offset


def _i64(n: int) -> ll.Constant:
    return ll.Constant(I64, n)
