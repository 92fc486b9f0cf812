"""A reduction to one value per call (``x.sum()``, ``x.argmax()``: every parallel dim of extent
1) split into pieces that threads reduce at the same time, with the bits of one thread.

``reduction.RowReduction`` sums blocks of ``BLOCK`` elements per lane and merges block totals
as a binary counter carries, so the first ``2**p`` blocks form one balanced tree, as do the
next ``2**p``, and so on. A *piece* is ``2**p`` blocks (``piece_size``: ``p`` a function of the
size only, never of the thread count), so:

1. each whole piece's lanes are exactly its tree, the cascade's level ``p`` (no merge with the
   identity); the last piece (fewer blocks and the tail) is a ``RowReduction`` of its own,
   whose lanes are exactly what the whole row's tail lanes are after folding levels below
   ``p``;
2. the pieces' lanes go to a scratch buffer of partials (``Pieces.scratch_bytes``, stack space
   the caller's entry allocates), piece ``i`` into its own slot: any thread may reduce any;
3. one thread then merges them as the cascade would have: whole pieces through a binary
   counter, its occupied levels onto the last piece's lanes from the lowest up, the lanes
   pairwise, then the result's init on the left.

That is the same sequence of merges as one ``RowReduction`` of the whole row, so the result
is bit for bit the unsplit one on any number of threads (``tests/codegen/test_threads_runtime``).
A body whose fast math may be inaccurate notes per piece (a flag byte after the partials)
whether it was; the merge then reduces every piece again with exact math first, as the unsplit
kernel reruns its whole row (``schedule._emit_pieces``).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.reduction import STEPS, ArgBest, PerResult, RowReduction, lanes_for
from jitcore.codegen.llvm_types import I8, I64, constant, value_type
from jitcore.codegen.loops import emit_loop, extent
from jitcore.ir.attributes import numpy_dtype

MIN_PIECE_BLOCKS = 16  # a piece is at least 16 blocks (4096 float32 elements)
MAX_PIECES = 64  # whole pieces at most: the piece doubles until they fit


def piece_size(n: int, lanes: int) -> int:
    """Elements per piece of a row of ``n``: ``BLOCK`` times a power of two from ``n`` alone."""
    block = lanes * STEPS
    blocks = MIN_PIECE_BLOCKS
    while n // block > blocks * MAX_PIECES:
        blocks *= 2
    return blocks * block


class Pieces:
    """How a full reduction of a row of ``n`` elements is cut: ``count`` pieces of ``size``
    elements (the last one ``n - whole * size``, when that is not zero)."""

    def __init__(self, op, n: int):
        self.op, self.n = op, n
        self.lanes = lanes_for(op.results[-1].type.element)
        self.size = piece_size(n, self.lanes)
        self.whole, self.rest = divmod(n, self.size)
        self.count = self.whole + (self.rest > 0)
        self.offsets, bytes_ = [], 0
        for r in op.results:  # one array of count * lanes values per result, 16-byte aligned
            self.offsets.append(bytes_)
            bytes_ += -(-self.count * self.lanes * numpy_dtype(r.type.element).itemsize // 16) * 16
        self.flags = bytes_  # then one byte per piece: its body needed exact math somewhere
        self.scratch_bytes = bytes_ + self.count

    def slot(self, b: ll.IRBuilder, scratch: ll.Value, k: int, piece: ll.Value, lane: int) -> ll.Value:
        t = value_type(self.op.results[k].type.element)
        base = b.gep(scratch, [extent(self.offsets[k])], inbounds=True, source_etype=I8)
        index = b.add(b.mul(piece, extent(self.lanes)), extent(lane))
        return b.gep(base, [index], inbounds=True, source_etype=t)

    def emit_piece(self, b: ll.IRBuilder, body, merging: PerResult | ArgBest, ivs: list,
                   scratch: ll.Value, piece: ll.Value) -> None:
        """Piece ``piece``'s lanes, reduced in ``RowReduction``'s order, into its slots."""
        def keep(k, lane, value):
            b.store(value, self.slot(b, scratch, k, piece, lane))

        first = b.mul(piece, extent(self.size))
        if not self.rest:
            RowReduction(b, self.op, body, merging, extent(self.size), ivs, first).emit_whole_blocks(keep)
            return
        with b.if_else(b.icmp_signed("<", piece, extent(self.whole))) as (whole, last):
            with whole:
                RowReduction(b, self.op, body, merging, extent(self.size), ivs, first).emit_whole_blocks(keep)
            with last:
                RowReduction(b, self.op, body, merging, extent(self.rest), ivs, first).emit(keep)

    def flag(self, b: ll.IRBuilder, scratch: ll.Value, piece: ll.Value) -> ll.Value:
        """Piece ``piece``'s i8 flag: whether its body met an element that needs exact math."""
        return b.gep(scratch, [b.add(extent(self.flags), piece)], inbounds=True, source_etype=I8)

    def emit_pieces(self, b: ll.IRBuilder, lo: ll.Value, hi: ll.Value, emit_one) -> None:
        """``emit_one(piece)`` for the pieces in ``[lo, hi)``."""
        emit_loop(b, b.sub(hi, lo), lambda i: emit_one(b.add(i, lo)))

    def emit_combine(self, b: ll.IRBuilder, body, merging: PerResult | ArgBest, ivs: list,
                     scratch: ll.Value) -> None:
        """The partials merged by a ``RowReduction``'s own cascade code, a whole piece taken
        for a block: whole pieces through its binary counter, then the last piece's lanes (or
        the identity) as its tail, its levels folded onto them, the lane tree and the init.
        Loops, not unrolled merges: an argmax's merge is a dozen instructions a lane."""
        cascade = RowReduction(b, self.op, body, merging, extent(0), ivs)
        results = range(len(self.op.results))

        def take(piece: ll.Value) -> None:
            for k in results:
                for lane in range(self.lanes):
                    value = b.load(self.slot(b, scratch, k, piece, lane), typ=cascade.types[k])
                    b.store(value, cascade.lane_slot(k, lane))

        def push(piece: ll.Value) -> None:
            take(piece)
            cascade.push_block(piece)

        emit_loop(b, extent(self.whole), push)
        if self.rest:
            take(extent(self.whole))
        else:
            cascade.reset_lanes()
        cascade.fold_stack(extent(self.whole))
        at = [*ivs, ll.Constant(I64, 0)]
        n_in = len(self.op.operands)
        for k, (r, init) in enumerate(zip(self.op.results, self.op.attributes["inits"])):
            body.store(n_in + k, at, r, constant(r.type.element, init.value))
        cascade.finish()
