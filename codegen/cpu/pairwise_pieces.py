"""A float sum to one value per call in NumPy's pairwise order (``reduction.PairwiseRow``)
split into pieces that threads sum at the same time, with the bits of one thread.

NumPy's recursion splits a run of ``n > 128`` at ``n // 2`` rounded down to a multiple of 8 and
adds the halves' sums, left + right; a half's sum depends only on its own elements. So the
nodes ``depth`` levels down are independent subtrees: piece ``i`` is the node reached by
taking, from the top, the right half where bit ``depth - 1 - level`` of ``i`` is set. Each
piece's subtree is summed by ``PairwiseRow`` into its own slot of a scratch buffer (any
thread may sum any piece); the merging call then adds slots ``2j`` and ``2j + 1`` level by
level, which is the top ``depth`` levels of the tree in its own order, and adds the total to
the result's init as the unsplit row does. The same merges as one thread: the same bits on
any thread count (``tests/jitcore/test_threads_runtime.py``).

``depth`` is a function of ``n`` alone (never of the thread count): the most levels, up to
``MAX_DEPTH``, that leave every piece at least ``MIN_PIECE`` elements, so every node above
the pieces is longer than a leaf and splits. A row too short for two pieces is one piece.
The slots are laid out as ``full_reduction.Pieces``' (a flag byte per piece after them: a body
that needed exact math), so ``schedule._emit_pieces`` runs either.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import full_reduction
from jitcore.codegen.cpu.reduction import PAIRWISE_LANES, PairwiseRow, _pairwise_half
from jitcore.codegen.llvm_types import I1, I8, I64, constant, value_type
from jitcore.codegen.loops import emit_loop, extent
from jitcore.ir.attributes import numpy_dtype

MIN_PIECE = 4096  # elements: a piece's subtree is worth a thread's call (16 KiB of float32)
MAX_DEPTH = 6  # at most 64 pieces


def depth_for(n: int) -> int:
    """Levels of the tree cut off for a row of ``n``: each piece at least ``MIN_PIECE``."""
    depth = 0
    while depth < MAX_DEPTH and n >> (depth + 1) >= MIN_PIECE:
        depth += 1
    return depth


def emit_depth(b: ll.IRBuilder, n: ll.Value) -> ll.Value:
    """``depth_for(n)`` of a row known only at run time: ``floor(log2(n // MIN_PIECE))``,
    at most ``MAX_DEPTH``, 0 for a row under two pieces."""
    quotient = b.udiv(n, extent(MIN_PIECE))
    ctlz = full_reduction._ctlz(b.module)
    log2 = b.sub(extent(63), b.call(ctlz, [quotient, ll.Constant(I1, 0)]))
    log2 = b.select(b.icmp_unsigned("==", quotient, extent(0)), extent(0), log2)
    return b.select(b.icmp_unsigned(">", log2, extent(MAX_DEPTH)), extent(MAX_DEPTH), log2)


class RunTimeCount(full_reduction.RunTimeCount):
    """The piece count of a row whose length is the product of ``factors``, as the entry
    computes it for the launch: ``2 ** emit_depth``, as the kernel does."""

    def __init__(self, factors: tuple[int, ...]):
        super().__init__(factors, PAIRWISE_LANES)

    def emit(self, b: ll.IRBuilder, sizes) -> ll.Value:
        return b.shl(extent(1), emit_depth(b, sizes.product(b, self.factors)))


class PairwisePieces:
    """How a pairwise sum of a row of ``n`` (None: known only at run time, ``bind``) is cut:
    ``count = 2 ** depth`` subtrees, one total per result each."""

    lanes = PAIRWISE_LANES

    def __init__(self, op, n: int | None):
        self.op, self.n = op, n
        self.depth = self.count = self.size = None
        most = 1 << MAX_DEPTH
        if n is not None:
            most = 1 << depth_for(n)
            self.depth, self.count, self.size = extent(depth_for(n)), extent(most), extent(n)
        self.known_count = None if n is None else most
        self.offsets, bytes_ = [], 0
        for r in op.results:  # one total per piece per result, 16-byte aligned
            self.offsets.append(bytes_)
            bytes_ += -(-most * numpy_dtype(r.type.element).itemsize // 16) * 16
        self.flags = bytes_
        self.scratch_bytes = bytes_ + most

    def bind(self, b: ll.IRBuilder, n: ll.Value) -> None:
        self.size, self.depth = n, emit_depth(b, n)
        self.count = b.shl(extent(1), self.depth)

    def slot(self, b: ll.IRBuilder, scratch: ll.Value, k: int, piece: ll.Value) -> ll.Value:
        t = value_type(self.op.results[k].type.element)
        base = b.gep(scratch, [extent(self.offsets[k])], inbounds=True, source_etype=I8)
        return b.gep(base, [piece], inbounds=True, source_etype=t)

    def flag(self, b: ll.IRBuilder, scratch: ll.Value, piece: ll.Value) -> ll.Value:
        return b.gep(scratch, [b.add(extent(self.flags), piece)], inbounds=True, source_etype=I8)

    def emit_pieces(self, b: ll.IRBuilder, lo: ll.Value, hi: ll.Value, emit_one) -> None:
        emit_loop(b, b.sub(hi, lo), lambda i: emit_one(b.add(i, lo)))

    def _bounds(self, b: ll.IRBuilder, piece: ll.Value) -> tuple[ll.Value, ll.Value]:
        """Piece ``piece``'s first element and length: NumPy's splits from the top, the bits
        of ``piece`` from the highest choosing the right half."""
        with b.goto_entry_block():
            first, length = b.alloca(I64), b.alloca(I64)
        b.store(extent(0), first)
        b.store(self.size, length)

        def level(i):
            c = b.load(length, typ=I64)
            half = _pairwise_half(b, c)
            bit = b.sub(b.sub(self.depth, extent(1)), i)
            right = b.icmp_unsigned("!=", b.and_(b.lshr(piece, bit), extent(1)), extent(0))
            b.store(b.select(right, b.add(b.load(first, typ=I64), half), b.load(first, typ=I64)), first)
            b.store(b.select(right, b.sub(c, half), half), length)

        emit_loop(b, self.depth, level, unroll=False)
        return b.load(first, typ=I64), b.load(length, typ=I64)

    def emit_piece(self, b: ll.IRBuilder, body, merging, ivs: list, scratch: ll.Value,
                   piece: ll.Value) -> None:
        """Piece ``piece``'s subtree, summed in NumPy's order, into its slots."""
        first, length = self._bounds(b, piece)
        PairwiseRow(b, self.op, body, merging, length, ivs, first).emit(
            lambda k, total: b.store(total, self.slot(b, scratch, k, piece)))

    def emit_combine(self, b: ll.IRBuilder, body, merging, ivs: list, scratch: ll.Value) -> None:
        """The slots added as the tree's top levels add them (``2j`` on the left of
        ``2j + 1``, in place, level by level), then the total added to the result's init."""
        results = range(len(self.op.results))
        types = [value_type(r.type.element) for r in self.op.results]

        def level(d):
            pairs = b.lshr(self.count, b.add(d, extent(1)))

            def pair(j):
                two = b.shl(j, extent(1))
                left, right = ([b.load(self.slot(b, scratch, k, at), typ=types[k]) for k in results]
                               for at in (two, b.add(two, extent(1))))
                for k, value in zip(results, merging.merge(b, left, right)):
                    b.store(value, self.slot(b, scratch, k, j))

            emit_loop(b, pairs, pair, vectorize=False, unroll=False)

        # at most 63 adds a call: loops as written (LLVM vectorized and unrolled them, a fifth
        # of a full sum's module)
        emit_loop(b, self.depth, level, unroll=False)
        at = [*ivs, ll.Constant(I64, 0)]
        n_in = len(self.op.operands)
        inits = [constant(r.type.element, init.value)
                 for r, init in zip(self.op.results, self.op.attributes["inits"])]
        totals = [b.load(self.slot(b, scratch, k, extent(0)), typ=types[k]) for k in results]
        for k, (r, value) in enumerate(zip(self.op.results, merging.merge(b, inits, totals))):
            body.store(n_in + k, at, r, value)
