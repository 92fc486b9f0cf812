"""Fewer lanes than a group, each sorted alone by a bitonic network on vectors: the lane as columns.

``sort_lanes.py`` sorts ``G`` lanes at once, one a vector element; a single lane (a 1-d sort)
there filled its group with copies of itself (``G`` times the work), and below
``NETWORK_FROM`` elements it went to the kernel's scalar merge sort (a dependent load, compare
and select an element and pass: 0.15-0.5x NumPy's speed at 100..1000 elements). Here the lane
itself is the ``G`` lanes: padded to ``N`` elements (a power of two, at least ``G * G``), element
``e`` sits in row ``e % R``, column ``e // R`` of ``R = N / G`` scratch rows, so column ``c``
holds elements ``c R .. c R + R - 1``. The bitonic network over ``N`` elements (``sort_lanes``'
form: each merge meets mirrored elements first, then halves) is then:

1. every merge of runs within a column (``k <= R``): ``sort_lanes.network`` over the ``R``
   rows, unchanged (each column is one of its lanes);
2. each merge of runs of columns (``k = 2R .. N``): its stages of elements ``R`` or more apart
   meet columns of the same rows: the mirror stage rows ``r`` and ``R - 1 - r`` with their
   columns permuted (``c ^ (k/R - 1)``), then the halves columns ``c ^ j/R`` of one row, in
   registers, the lower column of each pair keeping the smaller (a select by a constant mask);
   its stages less than ``R`` apart are rows met as in step 1 (``sort_lanes.halves``).

Every compare-exchange is a vector min/max (argsort: (key, position) pairs, a total order, so
the stable order whatever the network), on generic LLVM vectors. The lane is read into a
linear scratch copy (vector loads where it is contiguous, its keys made there: ``sort_lanes._Keys``),
padded with the largest key (argsort: positions past the lane, which follow every real one),
and moved into the rows by ``G x G`` transposes; back the same way. A float lane that held
-0.0 or NaN gets ``restore_lost`` (input order, as the stable sort). Lanes are the chunks of a
launch; the lane length and count are run-time values, the code fixed by ``N``.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime, sort_lanes
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.cpu.sort_keys import restore_lost
from jitcore.codegen.cpu.sort_lanes import I32, LANES_AXIS, _LaneGroups, group_size, halves, network, padded
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import Sizes, emit_loop, static_value
from jitcore.ir.core import Operation

ENABLED = True  # False: sort_lanes.py's groups for these lanes too (a baseline for measuring)


def _lane_count(op: Operation) -> int:
    shape, axis = op.operands[0].type.shape, op.attributes[LANES_AXIS]
    lanes = 1
    for d, extent in enumerate(shape):
        lanes *= extent if d != axis else 1
    return lanes


def width(op: Operation) -> int:
    element = op.operands[0].type.element
    return 8 if element.is_bool else element.bitwidth


def takes(op: Operation) -> bool:
    """Whether ``emit_short_lane_kernel`` emits ``op``: a kernel ``sort_lanes`` would sort, of
    fewer lanes (at this compile's sizes) than one of its groups holds."""
    return ENABLED and sort_lanes.takes(op) and _lane_count(op) < group_size(width(op))


def columns_size(n: int, g: int) -> int:
    """``N``: the lane's padded length, a power of two of at least ``g * g`` elements (whole
    ``g x g`` transposes)."""
    return max(padded(n), g * g)


def column_merges(g: int) -> list[tuple[int, list[int]]]:
    """Each merge of runs of columns, as (``m``, ``halves``): the mirror stage meets column
    ``c`` of row ``r`` with column ``c ^ m`` of row ``R - 1 - r``, then each half ``h`` column
    ``c`` with ``c ^ h`` of the same row (the column with bit ``h`` clear keeping the smaller);
    the mirror's lower column is the one with bit ``(m + 1) / 2`` clear."""
    merges, k = [], 2
    while k <= g:
        merges.append((k - 1, [1 << e for e in reversed(range((k // 2).bit_length() - 1))]))
        k *= 2
    return merges


def emit_short_lane_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool],
                           sizes: Sizes | None = None) -> ll.Function | None:
    """``op`` (a sort or argsort kernel marked with ``LANES_AXIS``, of fewer lanes than a
    group) as kernel ``name``, each lane sorted alone; None where this module does not take it."""
    if not takes(op):
        return None
    axis = op.attributes[LANES_AXIS]
    x = op.operands[0]
    shape = x.type.shape
    outer = [d for d in range(len(shape)) if d != axis]
    sizes = (sizes or Sizes()).unbound()
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided,
                                         sizes=sizes)
    sorter = _Columns(module, name, x.type.element, sort_lanes._is_argsort(op), shape[axis], axis, outer)
    b = entry_builder(fn)
    source, result = operands[0], operands[len(op.operands)]
    chunk = sorter.chunk_kernel(len(shape))
    outer_extents = [source.shape[d] for d in outer]
    lanes = sizes.multiply(b, outer_extents)
    # in the threshold's points, as sort_lanes.py's: a vector compare-exchange about 3
    per_lane = sorter.size // 2 * len(sort_lanes.network_stages(sorter.size)) * 3 // sorter.g
    work = _c(static_value(lanes) * per_lane) if static_value(lanes) is not None else b.mul(lanes, _c(per_lane))
    runtime.emit_launch(b, chunk, [source.pointer, result.pointer, *source.strides, *result.strides,
                                   source.shape[axis], *outer_extents], runtime.Split(lanes, work))
    b.ret_void()
    return fn


class _Columns(_LaneGroups):
    """The emitters of one lane sorted as ``g`` columns of ``padded`` rows (``size`` elements);
    ``_LaneGroups``' rows, meets and steps, and its chunk kernel over lanes, one at a time."""

    def __init__(self, module, name, element, argsort, n, axis, outer_dims):
        super().__init__(module, name, element, argsort, n, axis, outer_dims)
        self.size = columns_size(n, self.g)
        self.padded = self.size // self.g  # rows

    def scratch_bytes(self) -> tuple[int, int]:
        """The rows, then the lane in order (as read, and as written back), of keys and of
        positions."""
        keys, positions = super().scratch_bytes()
        return 2 * keys, 2 * positions

    def groups_function(self, rank: int, params: list) -> ll.Function:
        """``void (keys, positions, src, out, strides..., n, outer extents..., lo, hi)``: lanes
        ``[lo, hi)`` with the scratch given."""
        fn = self.function("lanes", [PTR, PTR, *params], pointers=4)
        lo, hi = fn.args[-2], fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        one = self.lane_function(rank)
        emit_loop(b, b.sub(hi, lo), lambda k: b.call(one, [*fn.args[:-2], b.add(lo, k)]), unroll=False)
        b.ret_void()
        return fn

    def lane_function(self, rank: int) -> ll.Function:
        """``void (keys, positions, src, out, strides..., n, outer extents..., lane)``: lane
        ``lane`` read into the columns, sorted, written back."""
        fn = self.function("lane", [PTR] * 4 + [I64] * (2 * rank) + self.shape_params + [I64], pointers=4)
        keys, pos, src, out = fn.args[:4]
        src_strides, out_strides = list(fn.args[4:4 + rank]), list(fn.args[4 + rank:4 + 2 * rank])
        self.n, *self.outer_extents = fn.args[4 + 2 * rank:-1]
        lane = fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        out_elem = I64 if self.argsort else self.elem
        src_lane = self.lane_pointer(b, src, src_strides, lane)
        out_lane = self.lane_pointer(b, out, out_strides, lane, out_elem)
        src_step, out_step = src_strides[self.axis], out_strides[self.axis]
        line = b.gep(keys, [_c(self.size)], inbounds=True, source_etype=self.elem)
        line_pos = b.gep(pos, [_c(self.size)], inbounds=True, source_etype=I32) if self.argsort else None
        lost = self.read_line(b, src_lane, src_step, line)
        self.to_rows(b, line, keys, pos)
        b.call(self.sort_function(), [keys, pos if self.argsort else ll.Constant(PTR, None), _c(self.padded)])
        if self.argsort:
            self.from_rows(b, pos, line_pos, self.pos_row)
            self.write_line(b, line_pos, I32, out_lane, out_step, lambda v: b.zext(v, _widened(v, I64)))
        else:
            self.from_rows(b, keys, line, self.row)
            self.write_line(b, line, self.elem, out_lane, out_step, lambda v: self.keys.back(b, v))
        if lost is not None:
            with b.if_then(b.load(lost, typ=ll.IntType(1)), likely=False):
                restore_lost(b, self.keys.floats, src_lane, src_step, out_lane, self.n, out_step)
        b.ret_void()
        return fn

    def read_line(self, b, lane, step, line) -> ll.Value | None:
        """The lane's keys into ``line`` in order, then the largest key to ``size``: ``g`` at a
        time where the lane is contiguous. Floats (sort): the address of an i1, 1 where the lane
        held -0.0 or NaN (None where nothing is restored)."""
        restores = self.keys.floats is not None and not self.argsort
        flag = ll.IntType(1)
        if restores:
            with b.goto_entry_block():
                lost = b.alloca(flag)
            b.store(ll.Constant(flag, 0), lost)

        def put(i, bits, vector):
            key, special = self.keys.of(b, bits)
            b.store(key, b.gep(line, [i], inbounds=True, source_etype=self.elem)).align = self.elem.width // 8
            if restores:
                if vector:
                    special = b.icmp_unsigned("!=", b.bitcast(special, ll.IntType(self.g)),
                                              ll.Constant(ll.IntType(self.g), 0))
                b.store(b.or_(b.load(lost, typ=flag), special), lost)

        def scalars(start):
            def one(i):
                i = b.add(i, start)
                at = b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=self.elem)
                put(i, b.load(at, typ=self.elem), False)
            emit_loop(b, b.sub(self.n, start), one, vectorize=False)

        whole = b.lshr(self.n, _c(self.g.bit_length() - 1))
        with b.if_else(b.icmp_unsigned("==", step, _c(1))) as (contiguous, strided):
            with contiguous:
                def vector(q):
                    i = b.mul(q, _c(self.g))
                    put(i, self.load_vector(b, b.gep(lane, [i], inbounds=True, source_etype=self.elem),
                                            self.row), True)
                emit_loop(b, whole, vector)
                scalars(b.mul(whole, _c(self.g)))
            with strided:
                scalars(_c(0))
        ones = ll.Constant(self.elem, (1 << self.keys.width) - 1)
        emit_loop(b, b.sub(_c(self.size), self.n), lambda i: b.store(
            ones, b.gep(line, [b.add(i, self.n)], inbounds=True, source_etype=self.elem)))
        return lost if restores else None

    def to_rows(self, b, line, keys, pos) -> None:
        """``line`` (the lane's keys in order) into the rows, ``g`` rows at a time: the ``g``
        vectors of a block's columns transposed; (argsort) row ``r``'s positions ``c R + r``."""
        rows = self.padded

        def block(k):
            r0 = b.mul(k, _c(self.g))
            columns = [b.load(b.gep(line, [b.add(r0, _c(c * rows))], inbounds=True, source_etype=self.elem),
                              typ=self.row) for c in range(self.g)]
            for r, row in enumerate(self.transpose(b, columns)):
                b.store(row, b.gep(keys, [b.add(r0, _c(r))], inbounds=True, source_etype=self.row))

        emit_loop(b, _c(rows // self.g), block, unroll=False)
        if not self.argsort:
            return
        firsts = ll.Constant(self.pos_row, [c * rows for c in range(self.g)])

        def positions(r):
            one = b.insert_element(ll.Constant(self.pos_row, ll.Undefined), b.trunc(r, I32), _c(0))
            splat = b.shuffle_vector(one, ll.Constant(self.pos_row, ll.Undefined),
                                     ll.Constant(ll.VectorType(I32, self.g), [0] * self.g))
            b.store(b.add(splat, firsts), b.gep(pos, [r], inbounds=True, source_etype=self.pos_row))

        emit_loop(b, _c(rows), positions)

    def from_rows(self, b, rows_at, line, row) -> None:
        """The rows of ``row`` vectors at ``rows_at`` into ``line`` in the lane's order (the
        transposes of ``to_rows`` back)."""
        rows, elem = self.padded, row.element

        def block(k):
            r0 = b.mul(k, _c(self.g))
            loaded = [b.load(b.gep(rows_at, [b.add(r0, _c(r))], inbounds=True, source_etype=row), typ=row)
                      for r in range(self.g)]
            for c, column in enumerate(self.transpose(b, loaded)):
                b.store(column, b.gep(line, [b.add(r0, _c(c * rows))], inbounds=True, source_etype=elem))

        emit_loop(b, _c(rows // self.g), block, unroll=False)

    def write_line(self, b, line, elem, lane, step, convert) -> None:
        """The first ``n`` of ``line`` (``elem``s) into the lane, each through ``convert``: ``g``
        at a time where the lane is contiguous."""
        vector = ll.VectorType(elem, self.g)

        def scalars(start):
            def one(i):
                i = b.add(i, start)
                value = convert(b.load(b.gep(line, [i], inbounds=True, source_etype=elem), typ=elem))
                b.store(value, b.gep(lane, [b.mul(i, step)], inbounds=True, source_etype=value.type))
            emit_loop(b, b.sub(self.n, start), one, vectorize=False)

        whole = b.lshr(self.n, _c(self.g.bit_length() - 1))
        with b.if_else(b.icmp_unsigned("==", step, _c(1))) as (contiguous, strided):
            with contiguous:
                def put(q):
                    i = b.mul(q, _c(self.g))
                    value = convert(b.load(b.gep(line, [i], inbounds=True, source_etype=elem), typ=vector))
                    at = b.gep(lane, [i], inbounds=True, source_etype=value.type.element)
                    b.store(value, at).align = value.type.element.width // 8
                emit_loop(b, whole, put)
                scalars(b.mul(whole, _c(self.g)))
            with strided:
                scalars(_c(0))

    def sort_function(self) -> ll.Function:
        """``void (keys, positions, n)``: the network over the columns (``n``: the rows, all of
        which hold the lane or its padding), then each merge of runs of columns."""
        fn = self.function("columns", [PTR, PTR, I64])
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        made = {}
        self.run_steps(b, list(fn.args), network(self.padded, self.block), made)
        rest = halves(self.padded, self.block)
        for mirror, lane_halves in column_merges(self.g):
            b.call(self.across_function(mirror, lane_halves), fn.args[:2])
            self.run_steps(b, list(fn.args), rest, made)
        b.ret_void()
        return fn

    def permuted(self, b, v, mask: int):
        """``v`` with element ``c`` taken from ``c ^ mask``."""
        if v is None:
            return None
        return b.shuffle_vector(v, ll.Constant(v.type, ll.Undefined),
                                ll.Constant(ll.VectorType(I32, self.g), [c ^ mask for c in range(self.g)]))

    def upper(self, bit: int) -> ll.Constant:
        """i1 per column: the column has ``bit`` set (it keeps the larger of its pair)."""
        return ll.Constant(ll.VectorType(ll.IntType(1), self.g), [int(bool(c & bit)) for c in range(self.g)])

    def pick(self, b, mask, if_set, if_clear):
        return None if if_set is None else b.select(mask, if_set, if_clear)

    def across_function(self, mirror: int, lane_halves: list[int]) -> ll.Function:
        """``void (keys, positions)``: a merge's stages across columns: rows ``r`` and
        ``R - 1 - r`` (r below R / 2) met column ``c`` with ``c ^ mirror``, then each row's
        columns ``c`` with ``c ^ h`` for each of ``lane_halves``, in registers."""
        fn = self.function(f"across{mirror}", [PTR, PTR])
        keys, pos = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        rows = self.padded
        upper = self.upper((mirror + 1) // 2)

        def pair(r):
            at_a = self.rows_at(b, keys, pos, r)
            at_b = self.rows_at(b, keys, pos, b.sub(_c(rows - 1), r))
            ka, pa = self.load_row(b, *at_a)
            kb, pb = self.load_row(b, *at_b)
            lo_k, hi_k, lo_p, hi_p = self.meet(b, ka, self.permuted(b, kb, mirror), pa,
                                               self.permuted(b, pb, mirror))
            a = [self.pick(b, upper, hi_k, lo_k), self.pick(b, upper, hi_p, lo_p)]
            other = [self.permuted(b, self.pick(b, upper, lo_k, hi_k), mirror),
                     self.permuted(b, self.pick(b, upper, lo_p, hi_p), mirror)]
            for h in lane_halves:
                for row in (a, other):
                    lo_k, hi_k, lo_p, hi_p = self.meet(b, row[0], self.permuted(b, row[0], h), row[1],
                                                       self.permuted(b, row[1], h))
                    row[0], row[1] = self.pick(b, self.upper(h), hi_k, lo_k), self.pick(b, self.upper(h), hi_p, lo_p)
            self.store_row(b, *at_a, *a)
            self.store_row(b, *at_b, *other)

        emit_loop(b, _c(rows // 2), pair, unroll=False)
        b.ret_void()
        return fn


def _widened(v, elem):
    return ll.VectorType(elem, v.type.count) if isinstance(v.type, ll.VectorType) else elem
