"""A sum down the columns of a tall, narrow matrix (``x.sum(axis=0)`` of 100000x16) cut into
pieces of rows that threads reduce at the same time, with the bits of one thread.

Such a reduction splits along its columns (``runtime.Split.min_piece``: chunks of at least
4 KiB of each row), so a matrix whose rows are shorter than two such chunks runs as one chunk
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
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.reduction import STEPS, ColumnReduction, PerResult
from jitcore.codegen.llvm_types import I8, constant, value_type
from jitcore.codegen.loops import emit_loop, extent
from jitcore.ir.attributes import numpy_dtype

# Rows at least this wide split well along their columns (two chunks of 4 KiB: see
# ``backend.COLUMN_CHUNK_BYTES``); narrower ones are cut into pieces of rows.
NARROW_ROW_BYTES = 8192
MIN_PIECE_ELEMENTS = 1 << 15  # a piece is at least this many elements (128 KiB of float32)
MAX_PIECES = 64  # pieces at most: the piece doubles until they fit
MAX_PARTIALS_BYTES = 256 * 1024  # the partials live on the caller's stack


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


class ColumnPieces:
    """How a column sum of ``rows`` x ``columns`` is cut: ``count`` pieces of ``size`` rows
    (the last one ``rows - whole * size``, when that is not zero)."""

    def __init__(self, op, rows: int, columns: int):
        self.op, self.rows, self.columns = op, rows, columns
        itemsize = max(numpy_dtype(r.type.element).itemsize for r in op.results)
        self.size = piece_rows(rows, columns, itemsize)
        self.whole, self.rest = divmod(rows, self.size)
        self.count = self.whole + (self.rest > 0)
        self.known_count = self.count  # as full_reduction.Pieces names a count fixed when compiling
        self.offsets, bytes_ = [], 0
        for r in op.results:  # count x columns values per result, 16-byte aligned
            self.offsets.append(bytes_)
            bytes_ += -(-self.count * columns * numpy_dtype(r.type.element).itemsize // 16) * 16
        self.scratch_bytes = bytes_

    def slot(self, b: ll.IRBuilder, scratch: ll.Value, k: int, piece: ll.Value, column: ll.Value) -> ll.Value:
        t = value_type(self.op.results[k].type.element)
        base = b.gep(scratch, [extent(self.offsets[k])], inbounds=True, source_etype=I8)
        index = b.add(b.mul(piece, extent(self.columns)), column)
        return b.gep(base, [index], inbounds=True, source_etype=t)

    def emit_piece(self, b: ll.IRBuilder, body, merging: PerResult, ivs: list, scratch: ll.Value,
                   piece: ll.Value) -> None:
        """Piece ``piece``'s column totals, in ``ColumnReduction``'s order, into its slots."""
        def keep(k, column, value):
            b.store(value, self.slot(b, scratch, k, piece, column))

        rows = extent(self.size)
        if self.rest:  # one reduction for both kinds of piece: half the code, half the LLVM time
            rows = b.select(b.icmp_signed("<", piece, extent(self.whole)), rows, extent(self.rest))
        ColumnReduction(b, self.op, body, merging, rows, extent(self.columns), ivs,
                        first_row=b.mul(piece, extent(self.size)), most_rows=self.size).emit(keep)

    def emit_pieces(self, b: ll.IRBuilder, lo: ll.Value, hi: ll.Value, emit_one) -> None:
        """``emit_one(piece)`` for the pieces in ``[lo, hi)``."""
        emit_loop(b, b.sub(hi, lo), lambda i: emit_one(b.add(i, lo)))

    def emit_combine(self, b: ll.IRBuilder, body, merging: PerResult, ivs: list, scratch: ll.Value) -> None:
        """Each column's partials merged as its unsplit cascade merges them (the module's
        docstring), then added to the result's init; a loop over the columns that LLVM
        vectorizes."""
        results = list(enumerate(self.op.results))
        inits = [constant(r.type.element, init.value)
                 for r, init in zip(self.op.results, self.op.attributes["inits"])]
        types = [value_type(r.type.element) for r in self.op.results]
        n_in = len(self.op.operands)

        def column(c):
            def partial(piece: int) -> list[ll.Value]:
                return [b.load(self.slot(b, scratch, k, extent(piece), c), typ=types[k]) for k, _ in results]

            stack: dict[int, list[ll.Value]] = {}
            for j in range(self.whole):  # a binary counter: piece j carries into the occupied levels
                value, level = partial(j), 0
                while level in stack:
                    value = merging.merge(b, stack.pop(level), value)
                    level += 1
                stack[level] = value
            lanes = partial(self.whole) if self.rest else inits
            for level in sorted(stack):  # the occupied levels onto the tail, lowest first
                lanes = merging.merge(b, stack[level], lanes)
            for (k, r), total in zip(results, merging.merge(b, inits, lanes)):
                body.store(n_in + k, [*ivs, extent(0), c], r, total)

        emit_loop(b, extent(self.columns), column)


