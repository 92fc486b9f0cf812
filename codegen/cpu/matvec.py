"""A matrix-vector product as jitcore's own kernel: full-width vector multiply-adds, the
output cut into blocks on the runtime's threads.

A contraction (``codegen.contraction``) with one k dim, no batch, and one output role (the
other role empty: ``A @ x``, ``x @ A``, ``A.T @ x``, ``np.dot(A, x)``, ``einsum("ij,j->i")``)
reads a matrix ``M[o, k]`` and a vector ``v[k]`` and writes ``y[o]``. The output role may span
several dims that nest in the matrix and the result (a stack of matrices times one vector: the
Bellman backup ``P @ V`` of ``P[s, a, t]``, ``einsum("sat,t->sa")``): they are one output dim
of their extents' product. NumPy runs a stack as one small ``gemv`` per matrix; jitcore once
sent it to one large threaded ``gemv``, 28 ms a call on a loaded 2-core host where NumPy took
0.2 ms (docs/performance.md, "Session 52: Bellman backups"). NumPy calls OpenBLAS's
``gemv``, whose kernels on this host are 256-bit (its Haswell ones); this kernel is as wide as
the target's vectors. Which of two loop orders runs follows the matrix's unit stride:

- **dot form** (unit stride along k: ``A @ x`` of a C-ordered ``A``, ``x @ A.T``): ``DOT_ROWS``
  rows side by side, each ``DOT_VECTORS`` vector accumulators over k (each vector of ``v``
  loaded once for the rows), the k tail a masked vector (the mask a constant: k is static);
  each row's vectors are added and then its lanes, halves onto halves. Rows past the last
  whole group run one by one through the same steps, so every row's sum has one order.
- **axpy form** (unit stride along the output: ``A.T @ x``, ``x @ A``): the block's outputs
  start at 0, and each pass over them adds ``AXPY_ROWS`` rows of the matrix (``v[k] * M[k,
  :]``, a broadcast each), a vector at a time, the last one masked: each row read in order (a
  stream each; a block of outputs held in registers down all of k, its rows a leading stride
  apart, measured 1.3-2.5x the time at 1024^2 and 2048^2) and the outputs, in L1, loaded and
  stored once per pass. Every element is the sum over k in increasing order by multiply-adds
  from 0, whatever its block.

Results do not depend on the thread count or the cut (each output element is one block's),
and differ from NumPy's ``gemv`` in the last bits (its own order), within the ``k * eps``
bound. A matrix of run-time strides (a strided argument) or a vector or result without unit
stride keeps the BLAS call (``gemm.py``). A size-generic function's kernel takes the extents
and the matrix's leading stride at run time, and cuts its blocks then (``block_cut``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen.contraction import Contraction
from jitcore.codegen.cpu.tiled_gemm import (
    RunTimeBlocks,
    StaticBlocks,
    base_pointer,
    dim_stride,
    host_vector_registers,
    split_chunks,
)
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, declare, value_type
from jitcore.codegen.loops import Sizes
from jitcore.ir.core import Operation

I32 = ll.IntType(32)
ENABLED = True  # False: matrix-vector products call BLAS (tools/bench_matmul.py compares them)
# Rows of the matrix a dot-form step reads side by side (each ``DOT_VECTORS`` accumulators),
# and rows an axpy-form pass over the outputs adds: with 32 vector registers; half with 16.
# One thread, CPU time, a loaded host (load 15-20), medians of 11 (ms; docs/performance.md,
# "matvec36"): A @ x 2048^2 float32 0.52 with 8 rows against 0.68 with 4 (BLAS 0.76), 1024^2
# 0.065-0.073 all; x @ A 2048^2 float32 0.45-0.46 with 8 rows, 0.63 with 4, 0.94 with 2, 0.50
# with 12, 0.62 with 16 (BLAS 0.48-0.50).
DOT_ROWS = 8
DOT_VECTORS = 2
AXPY_ROWS = 8
# Output positions per block at least, and blocks per thread: a product is cut into at most
# ``split_chunks() * BLOCKS_PER_THREAD`` blocks (a thread slowed elsewhere hands its blocks on);
# the launch's threshold then decides whether threads run them.
MIN_BLOCK = 128
BLOCKS_PER_THREAD = 2
# The axpy form's blocks, per thread: one. Its block reads a stretch of each of the k rows, a
# stream the prefetcher restarts per row; halves of rows, not quarters, on two hot threads
# (chrt -f, pinned, tools/probe_pool.py): x @ A 2048^2 float32 0.19 ms against 0.27, 1024^2
# 0.045 against 0.056 (one thread 0.31 and 0.054). The dot form reads whole rows either way.
AXPY_BLOCKS_PER_THREAD = 1


def row_group(rows: int) -> int:
    """``rows`` on a target of 32 vector registers, half on one of 16 (AVX2, SSE)."""
    return rows if host_vector_registers()[1] >= 32 else max(1, rows // 2)


def dot_rows() -> int:
    return row_group(DOT_ROWS)


@dataclass(frozen=True)
class MatVec:
    """A contraction as a matrix-vector product: the output dim and k dim, which operand is the
    matrix, and the loop order its unit stride picks."""

    out_dim: int
    k_dim: int
    matrix: int  # 0 or 1: the kernel's operand that is the matrix; the other is the vector
    form: str  # "dot" (the matrix's unit stride runs along k) or "axpy" (along the output)
    out_dims: tuple[int, ...] = ()  # the output role's dims, outermost first (out_dim last)

    def out_extents(self, c: Contraction) -> tuple[int, ...]:
        return tuple(c.domain[d] for d in self.out_dims or (self.out_dim,))


def match_matvec(op: Operation, c: Contraction, strided: list[bool]) -> MatVec | None:
    """``op`` as a matrix-vector product this kernel computes (the module docstring), or None.
    Which stride is the unit one is structural (the innermost axis of a contiguous operand),
    so it holds at every size a size-generic function takes."""
    if not ENABLED or c.batch or len(c.k) != 1 or bool(c.m) == bool(c.n):
        return None
    if not c.element.is_float or c.element.bitwidth not in (32, 64) or any(strided[:3]):
        return None
    matrix, (k_dim,) = (0 if c.m else 1), c.k
    shaped = [*op.operands, *op.results]

    def stride(i: int, d: int) -> int:
        return _static_stride(shaped[i], op.indexing_maps[i], d)

    # the output dims as one: outermost first by the result's strides, each the next one's
    # stride times its extent in the matrix and the result, and not read by the vector
    out_dims = tuple(sorted(c.m + c.n, key=lambda d: -stride(2, d)))
    for outer, inner in zip(out_dims, out_dims[1:]):
        for i in (matrix, 2):
            if stride(i, outer) != stride(i, inner) * c.domain[inner]:
                return None
    if any(stride(1 - matrix, d) for d in out_dims[:-1]):
        return None
    out_dim = out_dims[-1]
    m_out, m_k = stride(matrix, out_dim), stride(matrix, k_dim)
    v_out, v_k, y_out = stride(1 - matrix, out_dim), stride(1 - matrix, k_dim), stride(2, out_dim)
    if v_out != 0 or v_k != 1 or y_out != 1:
        return None
    if m_k == 1 and m_out > 1:
        return MatVec(out_dim, k_dim, matrix, "dot", out_dims)
    if m_out == 1 and m_k > 1:
        return MatVec(out_dim, k_dim, matrix, "axpy", out_dims)
    return None


def _static_stride(value, map_, d: int) -> int:
    """A contiguous operand's element stride along iteration dim ``d`` (0 if it does not read
    it): row-major strides of its shape at this compile, through its indexing map."""
    shape = value.type.shape
    strides, step = [0] * len(shape), 1
    for axis in reversed(range(len(shape))):
        strides[axis], step = step, step * shape[axis]
    return sum(strides[axis] * e.scale for axis, e in enumerate(map_.exprs) if e.dim == d)


def block_cut(out, unit: int, b: ll.IRBuilder | None = None, per_thread: int = BLOCKS_PER_THREAD):
    """``(size, count)``: the output's ``out`` positions cut into ``count`` blocks of ``size``
    (whole units of ``unit``): at most ``split_chunks() * per_thread`` blocks, none under
    ``MIN_BLOCK`` positions. Python ints, or i64 values with a builder (a run-time ``out``)."""
    if b is None:
        chunks = max(1, min(split_chunks() * per_thread, out // max(MIN_BLOCK, unit)))
        per_chunk = -(-out // chunks)
        size = -(-per_chunk // unit) * unit
        return size, -(-out // size)

    def ceil_div(x, y):
        return b.udiv(b.add(x, b.sub(y, _i64(1))), y)

    def at_least(x, low):
        return b.select(b.icmp_signed("<", x, low), low, x)

    chunks = b.udiv(out, _i64(max(MIN_BLOCK, unit)))
    most = _i64(split_chunks() * per_thread)
    chunks = at_least(b.select(b.icmp_signed("<", most, chunks), most, chunks), _i64(1))
    size = b.mul(ceil_div(ceil_div(out, chunks), _i64(unit)), _i64(unit))
    return size, ceil_div(out, size)


class RunTimeMatVecBlocks(RunTimeBlocks):
    """The block count of a size-generic matrix-vector product, as the entry computes it for
    the launch (``block_cut`` of the run-time output extent, as the kernel does). A tiled
    product's kind: a library-like kernel's blocks, ``per_thread`` of them per thread."""

    def __init__(self, out: tuple[int, ...], unit: int, per_thread: int):
        self.out, self.unit, self.per_thread = out, unit, per_thread

    def emit(self, b: ll.IRBuilder, sizes) -> ll.Value:
        return block_cut(_product(b, sizes, self.out), self.unit, b, self.per_thread)[1]


def emit_matvec(module: ll.Module, name: str, op: Operation, c: Contraction, mv: MatVec,
                strided: list[bool], symbols: tuple[int, ...] = ()
                ) -> tuple[ll.Function, StaticBlocks | RunTimeMatVecBlocks]:
    """``op`` as the split kernel ``name`` (its range counts blocks of the output) and its
    block count; with ``symbols`` (a size-generic function's) the extents and the matrix's
    leading stride are run-time values and so is the count."""
    element = value_type(c.element)
    lanes = max(1, host_vector_registers()[0] // c.element.bitwidth)
    unit = dot_rows() if mv.form == "dot" else lanes
    shaped = [*op.operands, *op.results]
    sizes = Sizes(symbols)
    fn, operands, _, (lo, hi) = kernel_function(module, name, shaped, strided, split=True,
                                                sizes=sizes if symbols else None)
    b = entry_builder(fn)
    maps = list(op.indexing_maps)
    m, v, y = (base_pointer(b, operands[i], maps[i], element) for i in (mv.matrix, 1 - mv.matrix, 2))
    lead = dim_stride(b, operands[mv.matrix], maps[mv.matrix], mv.k_dim if mv.form == "axpy" else mv.out_dim)
    out_extents = mv.out_extents(c)
    out_extent = math.prod(out_extents)
    out, depth = _product(b, sizes, out_extents), sizes.extent(c.domain[mv.k_dim])
    generic = not isinstance(out, ll.Constant)
    per_thread = BLOCKS_PER_THREAD if mv.form == "dot" else AXPY_BLOCKS_PER_THREAD
    size = (block_cut(out, unit, b, per_thread)[0] if generic
            else _i64(block_cut(out_extent, unit, per_thread=per_thread)[0]))
    first, last = b.mul(lo, size), b.mul(hi, size)
    last = b.select(b.icmp_signed("<", last, out), last, out)
    kernel = _Kernel(b, element, lanes, m, v, y, lead, depth)
    if mv.form == "dot":
        kernel.dot_rows(first, last)
    else:
        kernel.axpy_columns(first, last)
    b.ret_void()
    if generic:
        return fn, RunTimeMatVecBlocks(out_extents, unit, per_thread)
    return fn, StaticBlocks(block_cut(out_extent, unit, per_thread=per_thread)[1], per_thread)


class _Kernel:
    def __init__(self, b: ll.IRBuilder, element: ll.Type, lanes: int, m: ll.Value, v: ll.Value,
                 y: ll.Value, lead: ll.Value, depth: ll.Value):
        self.b, self.element, self.lanes = b, element, lanes
        self.m, self.v, self.y, self.lead, self.depth = m, v, y, lead, depth
        self.vec = ll.VectorType(element, lanes)
        self.itemsize = 4 if isinstance(element, ll.FloatType) else 8
        bits = 8 * self.itemsize
        module = b.module
        self.fma = declare(module, f"llvm.fmuladd.v{lanes}f{bits}", self.vec, [self.vec] * 3)
        mask = ll.VectorType(ll.IntType(1), lanes)
        self.mask_type = mask
        self.masked_load = declare(module, f"llvm.masked.load.v{lanes}f{bits}.p0", self.vec,
                                   [m.type, I32, mask, self.vec])
        self.masked_store = declare(module, f"llvm.masked.store.v{lanes}f{bits}.p0", ll.VoidType(),
                                    [self.vec, m.type, I32, mask])
        self.zero = ll.Constant(self.vec, [0.0] * lanes)

    # -- helpers ---------------------------------------------------------------------------
    def at(self, base: ll.Value, offset: ll.Value | int) -> ll.Value:
        return self.b.gep(base, [_i64(offset) if isinstance(offset, int) else offset],
                          source_etype=self.element)

    def load(self, pointer: ll.Value, mask: ll.Value | None = None) -> ll.Value:
        if mask is None:
            value = self.b.load(pointer, typ=self.vec)
            value.align = self.itemsize
            return value
        return self.b.call(self.masked_load, [pointer, ll.Constant(I32, self.itemsize), mask, self.zero])

    def store(self, value: ll.Value, pointer: ll.Value, mask: ll.Value | None = None) -> None:
        if mask is None:
            self.b.store(value, pointer).align = self.itemsize
        else:
            self.b.call(self.masked_store, [value, pointer, ll.Constant(I32, self.itemsize), mask])

    def first_lanes(self, count: ll.Value) -> ll.Value:
        """The mask of lanes ``0 .. count - 1`` (none for a count under 1)."""
        b = self.b
        splat = b.insert_element(ll.Constant(ll.VectorType(I64, self.lanes), ll.Undefined), count,
                                 ll.Constant(I32, 0))
        splat = b.shuffle_vector(splat, splat, ll.Constant(ll.VectorType(I32, self.lanes), [0] * self.lanes))
        iota = ll.Constant(ll.VectorType(I64, self.lanes), list(range(self.lanes)))
        return b.icmp_signed("<", iota, splat)

    def lanes_sum(self, value: ll.Value) -> ll.Value:
        """A vector's lanes added halves onto halves (one fixed order), as a scalar."""
        b, width = self.b, self.lanes
        while width > 1:
            half = width // 2
            low = b.shuffle_vector(value, value, ll.Constant(ll.VectorType(I32, half), list(range(half))))
            high = b.shuffle_vector(value, value, ll.Constant(ll.VectorType(I32, half),
                                                              list(range(half, width))))
            value, width = b.fadd(low, high), half
        return b.extract_element(value, ll.Constant(I32, 0))

    def loop(self, start: ll.Value, stop: ll.Value, step: int, carried: list[ll.Value],
             body) -> list[ll.Value]:
        """``for iv in range(start, stop, step)`` with loop-carried values: ``body(iv, values)``
        returns their next values; the values after the loop."""
        b = self.b
        pre, fn = b.block, b.function
        header, inner, done = (fn.append_basic_block(x) for x in ("mv", "mv.body", "mv.done"))
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(I64)
        iv.add_incoming(start, pre)
        phis = []
        for value in carried:
            phi = b.phi(value.type)
            phi.add_incoming(value, pre)
            phis.append(phi)
        b.cbranch(b.icmp_signed("<", iv, stop), inner, done)
        b.position_at_end(inner)
        after = body(iv, phis)
        for phi, value in zip(phis, after):
            phi.add_incoming(value, b.block)
        iv.add_incoming(b.add(iv, _i64(step)), b.block)
        b.branch(header)
        b.position_at_end(done)
        return phis

    # -- dot form --------------------------------------------------------------------------
    def dot_rows(self, first: ll.Value, last: ll.Value) -> None:
        """Rows ``[first, last)``: groups of ``dot_rows()``, then the rest one by one."""
        b = self.b
        group = dot_rows()
        groups_end = b.add(first, b.mul(b.sdiv(b.sub(last, first), _i64(group)), _i64(group)))
        self.loop(first, groups_end, group, [], lambda row, _: self.dot_group(row, group) or [])
        self.loop(groups_end, last, 1, [], lambda row, _: self.dot_group(row, 1) or [])

    def dot_group(self, row: ll.Value, rows: int) -> None:
        """``y[row + i] = sum over k of M[row + i, k] * v[k]`` for ``i < rows``."""
        b, lanes = self.b, self.lanes
        starts = [self.at(self.m, b.mul(b.add(row, _i64(i)), self.lead)) for i in range(rows)]
        step = lanes * DOT_VECTORS
        whole = b.mul(b.udiv(self.depth, _i64(step)), _i64(step))

        def steps(k: ll.Value, accs: list[ll.Value], masks=None) -> list[ll.Value]:
            masks = masks or [None] * DOT_VECTORS
            xs = [self.load(self.at(self.v, b.add(k, _i64(u * lanes))), masks[u]) for u in range(DOT_VECTORS)]
            out = list(accs)
            for i in range(rows):
                for u in range(DOT_VECTORS):
                    piece = self.load(self.at(starts[i], b.add(k, _i64(u * lanes))), masks[u])
                    out[i * DOT_VECTORS + u] = b.call(self.fma, [piece, xs[u], accs[i * DOT_VECTORS + u]])
            return out

        accs = self.loop(_i64(0), whole, step, [self.zero] * (rows * DOT_VECTORS), steps)
        # the k tail: one more step, each vector masked to the values left (none: it adds 0)
        left = b.sub(self.depth, whole)
        masks = [self.first_lanes(b.sub(left, _i64(u * lanes))) for u in range(DOT_VECTORS)]
        accs = steps(whole, accs, masks)
        for i in range(rows):
            total = accs[i * DOT_VECTORS]
            for u in range(1, DOT_VECTORS):
                total = b.fadd(total, accs[i * DOT_VECTORS + u])
            b.store(self.lanes_sum(total), self.at(self.y, b.add(row, _i64(i))))

    # -- axpy form -------------------------------------------------------------------------
    def axpy_columns(self, first: ll.Value, last: ll.Value) -> None:
        """Outputs ``[first, last)`` (the matrix's unit-stride dim): zeros, then for each
        ``AXPY_ROWS`` rows of k (the last ones one by one) the rows' products added to them."""
        b, lanes = self.b, self.lanes
        whole_end = b.add(first, b.mul(b.sdiv(b.sub(last, first), _i64(lanes)), _i64(lanes)))
        mask = self.first_lanes(b.sub(last, whole_end))  # the last, partial vector's lanes
        partial = b.icmp_signed("<", whole_end, last)
        self.loop(first, whole_end, lanes, [], lambda j, _: self.store(self.zero, self.at(self.y, j)) or [])
        with b.if_then(partial, likely=False):
            self.store(self.zero, self.at(self.y, whole_end), mask)
        group = row_group(AXPY_ROWS)
        blocks_end = b.mul(b.udiv(self.depth, _i64(group)), _i64(group))
        for start, stop, rows in ((_i64(0), blocks_end, group), (blocks_end, self.depth, 1)):
            self.loop(start, stop, rows, [],
                      lambda k, _, rows=rows: self.axpy_rows(k, rows, first, whole_end, mask, partial) or [])

    def axpy_rows(self, k: ll.Value, rows: int, first: ll.Value, whole_end: ll.Value, mask: ll.Value,
                  partial: ll.Value) -> None:
        """``y[j] += v[k + i] * M[k + i, j]`` for ``i < rows`` in increasing ``i``, over the
        block's whole vectors and then its partial one (``mask``, if ``partial``)."""
        b, lanes = self.b, self.lanes
        xs, starts = [], []
        for i in range(rows):
            scalar = b.load(self.at(self.v, b.add(k, _i64(i))), typ=self.element)
            x = b.insert_element(ll.Constant(self.vec, ll.Undefined), scalar, ll.Constant(I32, 0))
            xs.append(b.shuffle_vector(x, x, ll.Constant(ll.VectorType(I32, lanes), [0] * lanes)))
            starts.append(self.at(self.m, b.mul(b.add(k, _i64(i)), self.lead)))

        def update(j: ll.Value, lanes_mask: ll.Value | None = None) -> None:
            at = self.at(self.y, j)
            acc = self.load(at, lanes_mask)
            for x, start in zip(xs, starts):
                acc = b.call(self.fma, [self.load(self.at(start, j), lanes_mask), x, acc])
            self.store(acc, at, lanes_mask)

        self.loop(first, whole_end, lanes, [], lambda j, _: update(j) or [])
        with b.if_then(partial, likely=False):
            update(whole_end, mask)


def _product(b: ll.IRBuilder, sizes, extents: tuple[int, ...]) -> ll.Value:
    """The output positions: the product of the output dims' extents (run-time or constant)."""
    values = [sizes.extent(e) for e in extents]
    if all(isinstance(v, ll.Constant) for v in values):
        return _i64(math.prod(extents))
    total = values[0]
    for value in values[1:]:
        total = b.mul(total, value)
    return total


def _i64(n: int) -> ll.Constant:
    return ll.Constant(I64, n)
