"""A sum down the columns of a tall, narrow matrix (``x.sum(axis=0)`` of 100000x16) cut into
pieces of rows that threads reduce at the same time, with the bits of one thread.

Such a reduction splits along its columns (``runtime.Split.min_piece``: chunks of at least
32 KiB of each row), so a matrix whose rows are shorter than two such chunks runs as one chunk
on one thread. ``reduction.ColumnReduction`` sums each column in blocks of ``STEPS`` rows
whose totals merge as a binary counter carries; so, as ``full_reduction.py`` does for a whole
array, a *piece* is ``2**p`` blocks of rows (``piece_rows``: ``p`` a function of the shape
only, never of the thread count or timing), and:

1. each piece is a ``ColumnReduction`` of its own rows: a whole piece's column totals are its
   balanced tree, the cascade's level ``p`` (added to the identity, which changes no bits: the
   result's init is added last anyway); the last piece's (fewer blocks and the tail rows) are
   what the whole matrix's tail lanes are after folding the levels below ``p``;
2. piece ``i``'s totals go to its own row of a scratch buffer of partials (stack space of the
   caller's entry), so any thread may reduce any piece;
3. the last call merges them per column as the cascade would have: whole pieces through a
   binary counter (unrolled: the piece count is a constant), its occupied levels onto the last
   piece's totals from the lowest up, then the result's init on the left.

That is the same sequence of merges as one ``ColumnReduction`` of all the rows, so the result
is the unsplit one, bit for bit, on 1 thread or 64 (``tests/codegen/test_column_pieces.py``).

In a size-generic function the cut of narrow rows is computed when the kernel runs, from the
run-time row count, by ``piece_rows``' rule (``emit_cut``; the entry computes the same for the
launch's count), and so is the choice to cut at all: a matrix of too few rows for two pieces
runs whole in one range, as a split along its short rows does: one code for every row count,
the bits of each size's own. The column count stays a constant of the code (a row of a few
columns is then a few vector operations): a new column count compiles again, and rows of
``NARROW_ROW_BYTES`` or more are never cut (split along their columns instead).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import full_reduction
from jitcore.codegen.cpu.reduction import STEPS, ColumnReduction, PerResult, _while_bit
from jitcore.codegen.llvm_types import I1, I8, I64, constant, value_type
from jitcore.codegen.loops import emit_loop, extent
from jitcore.ir.attributes import numpy_dtype

# Rows at least this wide split well along their columns (two chunks of 32 KiB: see
# ``backend.COLUMN_CHUNK_BYTES``); narrower ones are cut into pieces of rows, so that each
# thread reads whole rows, one contiguous range of memory.
NARROW_ROW_BYTES = 64 * 1024
MIN_PIECE_ELEMENTS = 1 << 15  # a piece is at least this many elements (128 KiB of float32)
MAX_PIECES = 64  # pieces at most: the piece doubles until they fit
MAX_PARTIALS_BYTES = 256 * 1024  # the partials live on the caller's stack
LEVELS = MAX_PIECES.bit_length()  # levels of the merge's binary counter of whole pieces


def piece_rows(rows: int, columns: int, itemsize: int) -> int:
    """Rows per piece of a ``rows`` x ``columns`` column sum: ``STEPS`` times a power of two,
    from the shape alone."""
    blocks = 1
    while blocks * STEPS * columns < MIN_PIECE_ELEMENTS:
        blocks *= 2
    while (rows // (blocks * STEPS) > MAX_PIECES
           or -(-rows // (blocks * STEPS)) * columns * itemsize > MAX_PARTIALS_BYTES):
        blocks *= 2
    return blocks * STEPS


def narrow(columns: int, itemsize: int) -> bool:
    """Whether rows of ``columns`` elements are too short to split along the columns."""
    return columns * itemsize < NARROW_ROW_BYTES


def emit_cut(b: ll.IRBuilder, rows: ll.Value, columns: int, itemsize: int) -> tuple[ll.Value, ...]:
    """``piece_rows``' cut of ``rows`` known only at run time of narrow ``columns``: the
    piece's rows, the whole pieces, the rest, the count, and whether to cut at all (at least
    two blocks of rows, two pieces or more), as a known shape decides it."""
    with b.goto_entry_block():
        blocks_at = b.alloca(I64)
    b.store(extent(1), blocks_at)
    wide = extent(max(columns, 1))

    def few_elements(blocks):
        return b.icmp_signed("<", b.mul(b.mul(blocks, extent(STEPS)), wide), extent(MIN_PIECE_ELEMENTS))

    def too_many(blocks):
        size = b.mul(blocks, extent(STEPS))
        pieces = b.sdiv(b.add(rows, b.sub(size, extent(1))), size)
        partials = b.mul(b.mul(pieces, wide), extent(itemsize))
        return b.or_(b.icmp_signed(">", b.sdiv(rows, size), extent(MAX_PIECES)),
                     b.icmp_signed(">", partials, extent(MAX_PARTIALS_BYTES)))

    _double_while(b, blocks_at, few_elements)
    _double_while(b, blocks_at, too_many)
    size = b.mul(b.load(blocks_at, typ=I64), extent(STEPS))
    whole = b.sdiv(rows, size)
    rest = b.sub(rows, b.mul(whole, size))
    count = b.add(whole, b.zext(b.icmp_signed("!=", rest, extent(0)), I64))
    cut = b.and_(b.icmp_signed(">=", rows, extent(2 * STEPS)), b.icmp_signed(">=", count, extent(2)))
    return size, whole, rest, count, cut


def _double_while(b: ll.IRBuilder, at: ll.Value, test) -> None:
    """``while test(*at): *at *= 2``."""
    fn = b.function
    header, body, done = (fn.append_basic_block(n) for n in ("double", "doubling", "doubled"))
    b.branch(header)
    b.position_at_end(header)
    b.cbranch(test(b.load(at, typ=I64)), body, done)
    b.position_at_end(body)
    b.store(b.shl(b.load(at, typ=I64), extent(1)), at)
    b.branch(header)
    b.position_at_end(done)


class RunTimeCount(full_reduction.RunTimeCount):
    """The launch's count of a run-time cut, as the entry computes it (``emit_cut``): the
    pieces, or 1 for a matrix not cut (one range of every column)."""

    def __init__(self, rows: tuple[int, ...], pieces: ColumnPieces):
        self.rows, self.columns, self.itemsize = tuple(rows), pieces.columns.constant, pieces.itemsize

    def emit(self, b: ll.IRBuilder, sizes) -> ll.Value:
        *_, count, cut = emit_cut(b, sizes.product(b, self.rows), self.columns, self.itemsize)
        return b.select(cut, count, extent(1))


class ColumnPieces:
    """How a column sum of ``rows`` x ``columns`` is cut: ``count`` pieces of ``size`` rows
    (the last one ``rest`` rows, when that is not zero). With ``rows`` None the row count is
    known only at run time: ``bind`` computes the cut in the kernel, and the scratch holds the
    most partials any row count has (``MAX_PARTIALS_BYTES`` per result)."""

    def __init__(self, op, rows: int | None, columns: int):
        self.op = op
        self.itemsize = max(numpy_dtype(r.type.element).itemsize for r in op.results)
        self.cut: ll.Value = ll.Constant(I1, 1)
        self.columns = extent(columns)
        if rows is None:
            self.known_count = None
            self.size = self.whole = self.rest = self.count = None
            per_result = [MAX_PARTIALS_BYTES] * len(op.results)
        else:
            size = piece_rows(rows, columns, self.itemsize)
            whole, rest = divmod(rows, size)
            self.known_count = whole + (rest > 0)
            self.size, self.whole, self.rest = extent(size), extent(whole), extent(rest)
            self.count = extent(self.known_count)
            per_result = [self.known_count * columns * numpy_dtype(r.type.element).itemsize
                          for r in op.results]
        self.offsets, bytes_ = [], 0
        for n in per_result:  # count x columns values per result, 16-byte aligned
            self.offsets.append(bytes_)
            bytes_ += -(-n // 16) * 16
        self.scratch_bytes = bytes_

    def bind(self, b: ll.IRBuilder, rows: ll.Value) -> None:
        """The run-time cut of ``rows`` (``emit_cut``)."""
        self.size, self.whole, self.rest, self.count, self.cut = emit_cut(
            b, rows, self.columns.constant, self.itemsize)

    def slot(self, b: ll.IRBuilder, scratch: ll.Value, k: int, piece: ll.Value, column: ll.Value) -> ll.Value:
        t = value_type(self.op.results[k].type.element)
        base = b.gep(scratch, [extent(self.offsets[k])], inbounds=True, source_etype=I8)
        index = b.add(b.mul(piece, self.columns), column)
        return b.gep(base, [index], inbounds=True, source_etype=t)

    def emit_piece(self, b: ll.IRBuilder, body, merging: PerResult, ivs: list, scratch: ll.Value,
                   piece: ll.Value) -> None:
        """Piece ``piece``'s column totals, in ``ColumnReduction``'s order, into its slots."""
        def keep(k, column, value):
            b.store(value, self.slot(b, scratch, k, piece, column))

        rows = self.size
        if self.known_count is None or self.rest.constant:  # one reduction for both kinds of
            # piece: half the code, half the LLVM time
            rows = b.select(b.icmp_signed("<", piece, self.whole), rows, self.rest)
        most = None if self.known_count is None else self.size.constant
        ColumnReduction(b, self.op, body, merging, rows, self.columns, ivs,
                        first_row=b.mul(piece, self.size), most_rows=most).emit(keep)

    def emit_pieces(self, b: ll.IRBuilder, lo: ll.Value, hi: ll.Value, emit_one) -> None:
        """``emit_one(piece)`` for the pieces in ``[lo, hi)``."""
        emit_loop(b, b.sub(hi, lo), lambda i: emit_one(b.add(i, lo)))

    def emit_combine(self, b: ll.IRBuilder, body, merging: PerResult, ivs: list, scratch: ll.Value) -> None:
        """Each column's partials merged as its unsplit cascade merges them (the module's
        docstring), then added to the result's init: the whole pieces through a binary
        counter (piece ``j`` carries through the levels of ``j``'s trailing ones), the
        occupied levels (the bits of ``whole``) onto the last piece's totals from the lowest
        up, then the init on the left. Each step is a loop over the columns (a known count),
        which LLVM vectorizes."""
        results = list(enumerate(self.op.results))
        inits = [constant(r.type.element, init.value)
                 for r, init in zip(self.op.results, self.op.attributes["inits"])]
        types = [value_type(r.type.element) for r in self.op.results]
        n_in = len(self.op.operands)
        columns = self.columns.constant
        with b.goto_entry_block():
            stacks = [b.alloca(t, size=LEVELS * columns) for t in types]
            carried = [b.alloca(t, size=columns) for t in types]

        def level_slots(level, c):
            return [b.gep(stacks[k], [b.add(b.mul(level, self.columns), c)], inbounds=True,
                          source_etype=types[k]) for k, _ in results]

        def carried_slots(c):
            return [b.gep(carried[k], [c], inbounds=True, source_etype=types[k]) for k, _ in results]

        def load(slots):
            return [b.load(at, typ=t) for at, t in zip(slots, types)]

        def store(values, slots):
            for value, at in zip(values, slots):
                b.store(value, at)

        def each_column(step):
            emit_loop(b, self.columns, step)

        def partial(piece, c):
            return load([self.slot(b, scratch, k, piece, c) for k, _ in results])

        def carry(level):  # the carried total merges with the earlier total at ``level``
            each_column(lambda c: store(merging.merge(b, load(level_slots(level, c)), load(carried_slots(c))),
                                        carried_slots(c)))

        def push(j):
            each_column(lambda c: store(partial(j, c), carried_slots(c)))
            top = _while_bit(b, j, False, carry)
            each_column(lambda c: store(load(carried_slots(c)), level_slots(top, c)))

        emit_loop(b, self.whole, push)
        with b.if_else(b.icmp_signed("!=", self.rest, extent(0))) as (last, none):
            with last:
                each_column(lambda c: store(partial(self.whole, c), carried_slots(c)))
            with none:
                each_column(lambda c: store(inits, carried_slots(c)))

        def fold(level):
            bit = b.and_(b.lshr(self.whole, level), extent(1))
            with b.if_then(b.icmp_signed("!=", bit, extent(0))):
                carry(level)

        _while_bit(b, self.whole, True, fold)

        def finish(c):
            for (k, r), total in zip(results, merging.merge(b, inits, load(carried_slots(c)))):
                body.store(n_in + k, [*ivs, extent(0), c], r, total)

        each_column(finish)
