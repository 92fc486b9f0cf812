"""Fewer lanes than a group, each sorted alone by a bitonic network on vectors: the lane as columns.

``sort_lanes.py`` sorts ``G`` lanes at once, one a vector element; a single lane (a 1-d sort)
there filled its group with copies of itself (``G`` times the work), and below
``NETWORK_FROM`` elements it went to the kernel's scalar merge sort (a dependent load, compare
and select an element and pass: 0.15-0.5x NumPy's speed at 100..1000 elements). Here the lane
itself is the ``G`` lanes: padded to ``N`` elements (a power of two, at least ``least_size``),
element ``e`` sits in row ``e % R``, column ``e // R`` of ``R = N / G`` scratch rows, so
column ``c`` holds elements ``c R .. c R + R - 1``. The bitonic network over ``N`` elements
(``sort_lanes``' form: each merge meets mirrored elements first, then halves) is then:

1. every merge of runs within a column (``k <= R``): as ``sort_lanes.network`` over the ``R``
   rows (each column is one of its lanes): each block of rows sorted in registers, then each
   merge of runs of 2 blocks .. ``R`` (a loop), its stages of rows a block or more apart one
   a pass (``row_merges``), its last ones a block in registers;
2. each merge of runs of columns (``k = 2R .. N``): its stages of elements ``R`` or more apart
   meet columns of the same rows: the mirror stage rows ``r`` and ``R - 1 - r`` with their
   columns permuted (``c ^ (k/R - 1)``), then the halves columns ``c ^ j/R`` of one row, in
   registers, the lower column of each pair keeping the smaller (a select by a constant mask;
   ``column_merges``); its stages less than ``R`` apart are rows met as in step 1.

Every compare-exchange is a vector min/max (argsort: (key, position) pairs, a total order, so
the stable order whatever the network), on generic LLVM vectors. The lane is read into a
linear scratch copy (vector loads where it is contiguous, its keys made there: ``sort_lanes._Keys``),
padded with the largest key (argsort: positions past the lane, which follow every real one),
and moved into the rows by ``G x G`` transposes; back the same way. A float lane that held
-0.0 or NaN gets ``restore_lost`` (input order, as the stable sort). Lanes are the chunks of a
launch. ``N`` and ``R`` are computed from the lane length when the code runs, and every loop
over rows or stages takes its count from them: one code for every length.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime, sort_lanes
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.cpu.sort_keys import restore_lost
from jitcore.codegen.cpu.sort_lanes import (
    I32,
    LANES_AXIS,
    STACK_BYTES,
    _LaneGroups,
    cleaners,
    group_size,
    network,
)
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import Sizes, emit_loop
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


def least_size(g: int, block: int) -> int:
    """The smallest ``N``: ``g`` columns of at least ``g`` rows (whole ``g x g`` transposes)
    and a block of rows (``sort_lanes``' in-register sorts)."""
    return g * max(g, block)


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


def row_merges(rows: int, block: int) -> list[list[tuple[int, int]]]:
    """The stages of rows a block or more apart of each merge of runs within a column (runs
    of ``2 block`` .. ``rows``), as (j, mask): what the sort function's loop runs, one stage a
    pass (the model its test checks against ``sort_lanes.network``)."""
    merges, k = [], 2 * block
    while k <= rows:
        merges.append(sort_lanes.merge_stages(k, block))
        k *= 2
    return merges


def emit_short_lane_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool],
                           sizes: Sizes | None = None) -> ll.Function | None:
    """``op`` (a sort or argsort kernel marked with ``LANES_AXIS``, of fewer lanes than a
    group) as kernel ``name``, each lane sorted alone; None where this module does not take it.
    The code is the same for every lane length (``N`` is computed from ``n`` when it runs)."""
    if not takes(op):
        return None
    axis = op.attributes[LANES_AXIS]
    x = op.operands[0]
    shape = x.type.shape
    outer = [d for d in range(len(shape)) if d != axis]
    sizes = (sizes or Sizes()).unbound()
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided,
                                         sizes=sizes)
    sorter = _Columns(module, name, x.type.element, sort_lanes._is_argsort(op), axis, outer)
    b = entry_builder(fn)
    source, result = operands[0], operands[len(op.operands)]
    chunk = sorter.chunk_kernel(len(shape))
    outer_extents = [source.shape[d] for d in outer]
    lanes = sizes.multiply(b, outer_extents)
    n = source.shape[axis]
    # in the threshold's points (about 0.3 ns each): a lane of 1000 sorts in about 3 us
    work = b.mul(b.mul(lanes, n), _c(10))
    runtime.emit_launch(b, chunk, [source.pointer, result.pointer, *source.strides, *result.strides,
                                   n, *outer_extents], runtime.Split(lanes, work))
    b.ret_void()
    return fn


class _Columns(_LaneGroups):
    """The emitters of lanes sorted one at a time as ``g`` columns of ``R`` rows (``R`` and
    ``N = g R`` run-time values of the lane function): ``_LaneGroups``' rows, meets and steps
    over run-time rows (``run_time_rows``), and its chunk kernel over lanes."""

    def __init__(self, module, name, element, argsort, axis, outer_dims):
        super().__init__(module, name, element, argsort, 2, axis, outer_dims)
        self.run_time_rows = True
        self.padded = None  # the rows: a value of the function being emitted
        self.least = least_size(self.g, self.block)
        self.size = None  # N, likewise

    def chunk_kernel(self, rank: int) -> ll.Function:
        """``void (src, out, src strides..., out strides..., n, outer extents..., lo, hi)``:
        lanes ``[lo, hi)``, each with its scratch (``lane_function``)."""
        params = [PTR, PTR] + [I64] * (2 * rank) + self.shape_params + [I64, I64]
        fn = self.function("lanes", params)
        lo, hi = fn.args[-2], fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        one = self.lane_function(rank)
        emit_loop(b, b.sub(hi, lo), lambda k: b.call(one, [*fn.args[:-2], b.add(lo, k)]), unroll=False)
        b.ret_void()
        return fn

    def lane_function(self, rank: int) -> ll.Function:
        """``void (src, out, strides..., n, outer extents..., lane)``: the lane's scratch (rows
        and the lane in order, of keys and of positions: ``N`` of each) on the stack up to
        ``STACK_BYTES``, else from ``malloc`` (the stack if it fails), and its sort."""
        params = [PTR, PTR] + [I64] * (2 * rank) + self.shape_params + [I64]
        body = self.sort_lane_function(rank)
        fn = self.function("lane", params)
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        n = fn.args[2 + 2 * rank]
        size = self.columns(b, n)
        key_bytes = b.mul(size, _c(2 * self.keys.width // 8))
        pos_bytes = b.mul(size, _c(2 * 4)) if self.argsort else _c(0)
        total = b.add(key_bytes, pos_bytes)

        def on_stack():
            at = b.alloca(ll.IntType(8), size=total)
            at.align = 64
            b.call(body, [at, b.gep(at, [key_bytes], inbounds=True, source_etype=ll.IntType(8)), *fn.args])

        with b.if_else(b.icmp_unsigned("<=", total, _c(STACK_BYTES))) as (small, large):
            with small:
                on_stack()
            with large:
                raw = b.call(self.declared("malloc", PTR, [I64]), [b.add(total, _c(64))])
                failed_malloc = b.icmp_unsigned("==", raw, ll.Constant(PTR, None))
                with b.if_else(failed_malloc, likely=False) as (failed, got):
                    with failed:
                        on_stack()
                    with got:
                        at = b.inttoptr(b.and_(b.add(b.ptrtoint(raw, I64), _c(63)), _c(-64)), PTR)
                        b.call(body, [at, b.gep(at, [key_bytes], inbounds=True, source_etype=ll.IntType(8)),
                                      *fn.args])
                        b.call(self.declared("free", ll.VoidType(), [PTR]), [raw])
        b.ret_void()
        return fn

    def columns(self, b, n) -> ll.Value:
        """``N`` for a lane of ``n`` (at least 2): the power of two from ``n``, at least
        ``least``."""
        ctlz = self.declared("llvm.ctlz.i64", I64, [I64, ll.IntType(1)])
        up = b.shl(_c(1), b.sub(_c(64), b.call(ctlz, [b.sub(n, _c(1)), ll.Constant(ll.IntType(1), 0)])))
        return b.select(b.icmp_unsigned("<", up, _c(self.least)), _c(self.least), up)

    def sort_lane_function(self, rank: int) -> ll.Function:
        """``void (keys, positions, src, out, strides..., n, outer extents..., lane)``: lane
        ``lane`` read into the columns, sorted, written back."""
        params = [PTR] * 4 + [I64] * (2 * rank) + self.shape_params + [I64]
        fn = self.function("sort_lane", params, pointers=4)
        keys, pos, src, out = fn.args[:4]
        src_strides, out_strides = list(fn.args[4:4 + rank]), list(fn.args[4 + rank:4 + 2 * rank])
        self.n, *self.outer_extents = fn.args[4 + 2 * rank:-1]
        lane = fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        self.size = self.columns(b, self.n)
        self.padded = b.lshr(self.size, _c(self.g.bit_length() - 1))
        out_elem = I64 if self.argsort else self.elem
        src_lane = self.lane_pointer(b, src, src_strides, lane)
        out_lane = self.lane_pointer(b, out, out_strides, lane, out_elem)
        src_step, out_step = src_strides[self.axis], out_strides[self.axis]
        line = b.gep(keys, [self.size], inbounds=True, source_etype=self.elem)
        line_pos = b.gep(pos, [self.size], inbounds=True, source_etype=I32) if self.argsort else None
        lost = self.read_line(b, src_lane, src_step, line)
        self.to_rows(b, line, keys, pos)
        b.call(self.sort_function(), [keys, pos if self.argsort else ll.Constant(PTR, None), self.padded])
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
        emit_loop(b, b.sub(self.size, self.n), lambda i: b.store(
            ones, b.gep(line, [b.add(i, self.n)], inbounds=True, source_etype=self.elem)))
        return lost if restores else None

    def to_rows(self, b, line, keys, pos) -> None:
        """``line`` (the lane's keys in order) into the rows, ``g`` rows at a time: the ``g``
        vectors of a block's columns transposed; (argsort) row ``r``'s positions ``c R + r``."""
        rows = self.padded
        starts = [b.mul(rows, _c(c)) for c in range(self.g)]
        blocks = b.lshr(rows, _c(self.g.bit_length() - 1))

        def block(k):
            r0 = b.mul(k, _c(self.g))
            columns = [b.load(b.gep(line, [b.add(r0, at)], inbounds=True, source_etype=self.elem),
                              typ=self.row) for at in starts]
            for r, row in enumerate(self.transpose(b, columns)):
                b.store(row, b.gep(keys, [b.add(r0, _c(r))], inbounds=True, source_etype=self.row))

        emit_loop(b, blocks, block, unroll=False)
        if not self.argsort:
            return
        firsts = b.mul(self.splat(b, b.trunc(rows, I32)), ll.Constant(self.pos_row, list(range(self.g))))

        emit_loop(b, rows, lambda r: b.store(b.add(self.splat(b, b.trunc(r, I32)), firsts),
                                             b.gep(pos, [r], inbounds=True, source_etype=self.pos_row)))

    def splat(self, b, scalar):
        """A row of ``scalar``."""
        row = ll.VectorType(scalar.type, self.g)
        one = b.insert_element(ll.Constant(row, ll.Undefined), scalar, _c(0))
        return b.shuffle_vector(one, ll.Constant(row, ll.Undefined),
                                ll.Constant(ll.VectorType(I32, self.g), [0] * self.g))

    def from_rows(self, b, rows_at, line, row) -> None:
        """The rows of ``row`` vectors at ``rows_at`` into ``line`` in the lane's order (the
        transposes of ``to_rows`` back)."""
        rows, elem = self.padded, row.element
        starts = [b.mul(rows, _c(c)) for c in range(self.g)]

        def block(k):
            r0 = b.mul(k, _c(self.g))
            loaded = [b.load(b.gep(rows_at, [b.add(r0, _c(r))], inbounds=True, source_etype=row), typ=row)
                      for r in range(self.g)]
            for at, column in zip(starts, self.transpose(b, loaded)):
                b.store(column, b.gep(line, [b.add(r0, at)], inbounds=True, source_etype=elem))

        emit_loop(b, b.lshr(rows, _c(self.g.bit_length() - 1)), block, unroll=False)

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
        """``void (keys, positions, rows)``: the network over the columns' ``rows`` (a power of
        two, at least a block; all hold the lane or its padding), then each merge of runs of
        columns. Within a column: each block of rows sorted in registers, then each merge of
        runs of ``k`` = 2 blocks .. ``rows`` (a loop): its stages of rows a block or more apart
        one a pass (``row_merges``), its last ones a block in registers."""
        fn = self.function("columns", [PTR, PTR, I64])
        keys, pos, rows = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        made = {}
        steps = network(self.block, self.block)  # the blocks' own sorts
        last = cleaners(self.block)  # a merge's stages within a block
        self.run_steps(b, [keys, pos, rows], steps, made)
        mirror, half = self.stage_functions(made)
        block_bits = self.block.bit_length() - 1

        def merge(e):  # runs of k = 2^(e + 1) blocks
            k = b.shl(_c(self.block), b.add(e, _c(1)))
            b.call(mirror, [keys, pos, rows, b.add(e, _c(block_bits)), b.sub(k, _c(1))])
            self.halves_loop(b, half, keys, pos, rows, k)
            self.run_steps(b, [keys, pos, rows], last, made)

        ctlz = self.declared("llvm.ctlz.i64", I64, [I64, ll.IntType(1)])
        log_rows = b.sub(_c(63), b.call(ctlz, [rows, ll.Constant(ll.IntType(1), 0)]))
        emit_loop(b, b.sub(log_rows, _c(block_bits)), merge, unroll=False)
        for m, lane_halves in column_merges(self.g):
            b.call(self.across_function(m, lane_halves), [keys, pos, rows])
            self.halves_loop(b, half, keys, pos, rows, b.shl(rows, _c(1)))
            self.run_steps(b, [keys, pos, rows], last, made)
        b.ret_void()
        return fn

    def stage_functions(self, made: dict) -> tuple:
        """The one-stage passes over the rows (``sort_lanes``' rows functions of one stage): a
        mirror stage and a half, ``(keys, positions, rows, low, mask)``."""
        functions = []
        for stages in ([(2, 3)], [(2, 2)]):
            key = ("rows", 1, stages[0][0] != stages[0][1])
            if key not in made:
                made[key] = self.rows_function(f"rows{len(made)}", stages)
            functions.append(made[key])
        return tuple(functions)

    def halves_loop(self, b, half, keys, pos, rows, span) -> None:
        """The half stages j = ``span`` / 4 .. ``block`` (rows apart) of a merge of runs of
        ``span`` / 2, one a pass."""
        block_bits = self.block.bit_length() - 1
        ctlz = self.declared("llvm.ctlz.i64", I64, [I64, ll.IntType(1)])
        log_span = b.sub(_c(63), b.call(ctlz, [span, ll.Constant(ll.IntType(1), 0)]))
        count = b.sub(log_span, _c(block_bits + 1))  # log2(span / 2) - log2(block) stages
        count = b.select(b.icmp_signed("<", count, _c(0)), _c(0), count)

        def stage(i):
            low = b.sub(b.sub(log_span, _c(2)), i)
            b.call(half, [keys, pos, rows, low, b.shl(_c(1), low)])

        emit_loop(b, count, stage, unroll=False)

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
        fn = self.function(f"across{mirror}", [PTR, PTR, I64])
        keys, pos, rows = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        upper = self.upper((mirror + 1) // 2)

        def pair(r):
            at_a = self.rows_at(b, keys, pos, r)
            at_b = self.rows_at(b, keys, pos, b.sub(b.sub(rows, _c(1)), r))
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
                    keep = self.upper(h)
                    row[0], row[1] = self.pick(b, keep, hi_k, lo_k), self.pick(b, keep, hi_p, lo_p)
            self.store_row(b, *at_a, *a)
            self.store_row(b, *at_b, *other)

        emit_loop(b, b.lshr(rows, _c(1)), pair, unroll=False)
        b.ret_void()
        return fn


def _widened(v, elem):
    return ll.VectorType(elem, v.type.count) if isinstance(v.type, ll.VectorType) else elem
