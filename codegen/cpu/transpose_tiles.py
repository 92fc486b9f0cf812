"""Transposing kernels walked in tiles where the transposed read strides by a multiple of a
large power of two.

A kernel whose innermost loop reads an input across its rows (``np.ascontiguousarray(a.T)``,
``a.T - b``, ``x.transpose(0, 2, 1) * y``) touches one cache line per row it crosses, and comes
back to each line for the next column. Where the row stride is a multiple of 1 KiB (square
power-of-two shapes: 1024, 2048, 4096 columns), those lines share a few cache sets, evict one
another before they are read again, and a 4096x4096 float32 transpose took 270-410 ms (NumPy's
copy the same; 22 ms at 4000x4000). In tiles of ``ROWS x COLUMNS`` points, the lines a tile
crosses stay cached while its columns are read: 60-70 ms at 4096 in a Numba model of the loop
(session 49, /work/lead-out/lead49/trnb2.py).

The choice is made when the kernel runs, from the stride itself, so one code serves every size:
other strides keep the plain nest, which measured faster there (the lines it crosses fall in
every set). The tiles visit the same points, each computed by the same body: the results are
the same bits in any order (no reduction is tiled).
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen.loops import emit_loop, extent
from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.dialects import kernel

ALIASED_BYTES = 1024  # a row stride that is a multiple of this maps the rows to few cache sets
ROWS, COLUMNS = 8, 16  # a tile: output rows (input columns) by output columns (input rows)


@dataclass(frozen=True)
class TransposedRead:
    """Input ``operand`` reads the nest's innermost dim along its memory dim ``axis`` (scaled by
    ``scale``), which is not its last: the read that crosses rows."""

    operand: int
    axis: int
    scale: int
    element_bytes: int


def transposed_read(op: kernel.GenericOp, maps, nest_rank: int) -> TransposedRead | None:
    """The read of ``op`` (its nest ``nest_rank`` dims deep, ``maps`` as the nest reads) that
    tiles would help, or None: a nest of parallel dims only, at least two, and an input that
    steps through its rows along the innermost dim while its own last dim follows the dim
    outside it (so a tile of those two dims reads whole cache lines)."""
    if (nest_rank < 2 or op.has_reduction or op.scan_dim is not None or op.indexed or op.clamped
            or any(i >= 0 for i in op.copy_inputs) or len(maps) != len(op.operands) + len(op.results)):
        return None
    inner, outer = nest_rank - 1, nest_rank - 2
    for k, (v, m) in enumerate(zip(op.operands, maps)):
        exprs = m.exprs
        if len(exprs) < 2 or exprs[-1].dim != outer or exprs[-1].scale != 1:
            continue
        crossing = [a for a, e in enumerate(exprs[:-1]) if e.dim == inner and e.scale]
        if len(crossing) == 1:
            itemsize = numpy_dtype(v.type.element).itemsize
            return TransposedRead(k, crossing[0], exprs[crossing[0]].scale, itemsize)
    return None


def emit(b: ll.IRBuilder, read: TransposedRead, stride: ll.Value, rows: ll.Value, columns: ll.Value,
         first_row: ll.Value, point, plain) -> None:
    """At run time: where ``read``'s row stride (``stride`` elements) aliases and both dims hold
    a tile, ``point(row, column)`` over ``rows x columns`` (rows from ``first_row``) in tiles,
    then the leftover columns and rows; else ``plain()``."""
    step = b.mul(stride, extent(read.scale * read.element_bytes))
    aliased = b.icmp_unsigned("==", b.and_(step, extent(ALIASED_BYTES - 1)), extent(0))
    nonzero = b.icmp_signed("!=", step, extent(0))
    big = b.and_(b.icmp_signed(">=", rows, extent(ROWS)), b.icmp_signed(">=", columns, extent(COLUMNS)))
    with b.if_else(b.and_(b.and_(aliased, nonzero), big), likely=False) as (tiled, untiled):
        with tiled:
            _tiles(b, rows, columns, first_row, point)
        with untiled:
            plain()


def _tiles(b: ll.IRBuilder, rows: ll.Value, columns: ll.Value, first_row: ll.Value, point) -> None:
    whole_rows = b.and_(rows, extent(-ROWS))
    whole_columns = b.and_(columns, extent(-COLUMNS))

    def row_band(band: ll.Value) -> None:
        top = b.add(first_row, b.mul(band, extent(ROWS)))

        def tile(t: ll.Value) -> None:
            left = b.mul(t, extent(COLUMNS))
            emit_loop(b, extent(ROWS), lambda i: emit_loop(
                b, extent(COLUMNS), lambda j: point(b.add(top, i), b.add(left, j)), unroll=False),
                unroll=False)

        emit_loop(b, b.udiv(whole_columns, extent(COLUMNS)), tile, unroll=False)
        # the columns past the last whole tile, for this band's rows
        emit_loop(b, extent(ROWS), lambda i: emit_loop(
            b, b.sub(columns, whole_columns), lambda j: point(b.add(top, i), b.add(whole_columns, j))),
            unroll=False)

    emit_loop(b, b.udiv(whole_rows, extent(ROWS)), row_band, unroll=False)
    # the rows past the last whole band, every column
    emit_loop(b, b.sub(rows, whole_rows), lambda i: emit_loop(
        b, columns, lambda j: point(b.add(b.add(first_row, whole_rows), i), j)))
