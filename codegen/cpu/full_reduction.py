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
from jitcore.codegen.llvm_types import I1, I8, I64, constant, value_type
from jitcore.codegen.loops import emit_loop, extent, static_value
from jitcore.ir.attributes import numpy_dtype

MIN_PIECE_BLOCKS = 16  # a piece is at least 16 blocks (4096 float32 elements)
MAX_PIECES = 64  # whole pieces at most: the piece doubles until they fit
SHARED_PIECE_CODE = True  # whole pieces and the last one share one copy of the code (tests: off)


def piece_size(n: int, lanes: int) -> int:
    """Elements per piece of a row of ``n``: ``BLOCK`` times a power of two from ``n`` alone."""
    block = lanes * STEPS
    blocks = MIN_PIECE_BLOCKS
    while n // block > blocks * MAX_PIECES:
        blocks *= 2
    return blocks * block


def emit_piece_blocks(b: ll.IRBuilder, n: ll.Value, lanes: int) -> tuple[ll.Value, ll.Value]:
    """``piece_size``'s blocks per piece for a row of ``n`` known only at run time, and their
    log2: the least power of two, at least ``MIN_PIECE_BLOCKS``, not below ``ceil(n // block /
    MAX_PIECES)`` (where the doubling loop stops), from the leading zeros of that bound less 1."""
    bound = b.udiv(b.add(b.udiv(n, extent(lanes * STEPS)), extent(MAX_PIECES - 1)), extent(MAX_PIECES))
    log2 = b.sub(extent(64), b.call(_ctlz(b.module), [b.sub(bound, extent(1)), ll.Constant(I1, 0)]))
    floor = MIN_PIECE_BLOCKS.bit_length() - 1
    log2 = b.select(b.icmp_unsigned("<=", bound, extent(MIN_PIECE_BLOCKS)), extent(floor), log2)
    return b.shl(extent(1), log2), log2


def _ctlz(module: ll.Module) -> ll.Function:
    """``llvm.ctlz.i64(x, is_zero_poison)`` (llvmlite's declare_intrinsic drops the flag)."""
    existing = module.globals.get("llvm.ctlz.i64")
    return existing or ll.Function(module, ll.FunctionType(I64, [I64, I1]), "llvm.ctlz.i64")


def emit_cut(b: ll.IRBuilder, n: ll.Value, lanes: int) -> tuple[ll.Value, ...]:
    """A row of ``n`` known only at run time, cut as ``Pieces`` cuts a known one: the piece's
    size, the whole pieces, the rest, the count and log2 of a piece's blocks. An empty row
    (a run-time extent times a 0) is one empty piece: a launch never has 0 chunks."""
    blocks, top = emit_piece_blocks(b, n, lanes)
    size = b.mul(blocks, extent(lanes * STEPS))
    whole = b.udiv(n, size)
    rest = b.sub(n, b.mul(whole, size))
    count = b.add(whole, b.zext(b.icmp_unsigned("!=", rest, extent(0)), I64))
    count = b.select(b.icmp_unsigned("==", count, extent(0)), extent(1), count)
    return size, whole, rest, count, top


class RunTimeCount:
    """The piece count of a row whose length is the product of ``factors`` (extents of the
    op, some of them the function's run-time extents), as the entry computes it for the launch
    (``emit(b, sizes)``): the kernel computes the same from the same formula."""

    def __init__(self, factors: tuple[int, ...], lanes: int):
        self.factors, self.lanes = tuple(factors), lanes

    def emit(self, b: ll.IRBuilder, sizes) -> ll.Value:
        return emit_cut(b, sizes.product(b, self.factors), self.lanes)[3]


class Pieces:
    """How a full reduction of a row of ``n`` elements is cut: ``count`` pieces of ``size``
    elements (the last one ``n - whole * size``, when that is not zero). With ``n`` None the
    row's length is known only at run time (a size-generic kernel): ``bind`` computes the
    values in the kernel, and the scratch holds the most pieces any length has
    (``MAX_PIECES`` whole ones and a last one)."""

    def __init__(self, op, n: int | None):
        self.op, self.n = op, n
        self.lanes = lanes_for(op.results[-1].type.element)
        if n is None:
            most = MAX_PIECES + 1
            self.size = self.whole = self.rest = self.count = self.top = None
        else:
            size = piece_size(n, self.lanes)
            whole, rest = divmod(n, size)
            most = whole + (rest > 0)
            self.size, self.whole, self.rest, self.count = (extent(v) for v in (size, whole, rest, most))
            self.top = None  # emit_whole_blocks finds it from the static size
        self.known_count = None if n is None else most
        self.offsets, bytes_ = [], 0
        for r in op.results:  # one array of count * lanes values per result, 16-byte aligned
            self.offsets.append(bytes_)
            bytes_ += -(-most * self.lanes * numpy_dtype(r.type.element).itemsize // 16) * 16
        self.flags = bytes_  # then one byte per piece: its body needed exact math somewhere
        self.scratch_bytes = bytes_ + most

    def bind(self, b: ll.IRBuilder, n: ll.Value) -> None:
        """The run-time size, whole pieces, rest and count of a row of ``n``."""
        self.size, self.whole, self.rest, self.count, self.top = emit_cut(b, n, self.lanes)

    def slot(self, b: ll.IRBuilder, scratch: ll.Value, k: int, piece: ll.Value, lane: int) -> ll.Value:
        t = value_type(self.op.results[k].type.element)
        base = b.gep(scratch, [extent(self.offsets[k])], inbounds=True, source_etype=I8)
        index = b.add(b.mul(piece, extent(self.lanes)), extent(lane))
        return b.gep(base, [index], inbounds=True, source_etype=t)

    def emit_piece(self, b: ll.IRBuilder, body, merging: PerResult | ArgBest, ivs: list,
                   scratch: ll.Value, piece: ll.Value) -> None:
        """Piece ``piece``'s lanes, reduced in ``RowReduction``'s order, into its slots."""
        def keep(k, lane, value):
            if lane is not None:
                b.store(value, self.slot(b, scratch, k, piece, lane))
                return
            at = b.bitcast(self.slot(b, scratch, k, piece, 0), value.type.as_pointer())  # every lane
            b.store(value, at, align=numpy_dtype(self.op.results[k].type.element).itemsize)

        first = b.mul(piece, self.size)
        if static_value(self.rest) == 0:
            RowReduction(b, self.op, body, merging, self.size, ivs, first).emit_whole_blocks(keep)
            return
        if not SHARED_PIECE_CODE:
            with b.if_else(b.icmp_signed("<", piece, self.whole)) as (whole, last):
                with whole:
                    RowReduction(b, self.op, body, merging, self.size, ivs, first).emit_whole_blocks(
                        keep, self.top)
                with last:
                    RowReduction(b, self.op, body, merging, self.rest, ivs, first).emit(keep)
            return
        # One copy for whole pieces and the last: the same loops at the piece's own length.
        whole = b.icmp_signed("<", piece, self.whole)
        top = self.top if self.top is not None else \
            extent((static_value(self.size) // (self.lanes * STEPS)).bit_length() - 1)
        trip = b.select(whole, self.size, self.rest)
        RowReduction(b, self.op, body, merging, trip, ivs, first).emit_any_piece(keep, whole, top)

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
                if cascade.copies_whole(k):
                    lanes = cascade.load_lanes(k, self.slot(b, scratch, k, piece, 0))
                    cascade.store_lanes(k, lanes, cascade.arrays[k])
                    continue
                for lane in range(self.lanes):
                    value = b.load(self.slot(b, scratch, k, piece, lane), typ=cascade.types[k])
                    b.store(value, cascade.lane_slot(k, lane))

        def push(piece: ll.Value) -> None:
            take(piece)
            cascade.push_block(piece)

        emit_loop(b, self.whole, push)
        if static_value(self.rest) is None:
            with b.if_else(b.icmp_unsigned("!=", self.rest, extent(0))) as (last, none):
                with last:
                    take(self.whole)
                with none:
                    cascade.reset_lanes()
        elif static_value(self.rest):
            take(self.whole)
        else:
            cascade.reset_lanes()
        cascade.fold_stack(self.whole)
        at = [*ivs, ll.Constant(I64, 0)]
        n_in = len(self.op.operands)
        for k, (r, init) in enumerate(zip(self.op.results, self.op.attributes["inits"])):
            body.store(n_in + k, at, r, constant(r.type.element, init.value))
        cascade.finish()
