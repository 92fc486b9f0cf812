"""The CPU's reassociated reductions: float sums and products in a fixed, documented order
whose rounding error grows like NumPy's pairwise sum, and max, min, argmax and argmin in lanes,
all shaped so that LLVM vectorizes them.

A float add carried from one iteration to the next may not be reordered by LLVM (IEEE), so a
plain loop runs one element at a time and its error grows linearly with the count: 10**7 terms
of 1e-7 in float32 summed in order give 1.0038, not 1.0. The same holds for NaN-aware max and
min and for argmax, which also ran one element at a time.

**Along the innermost dim** (``RowReduction``: a row, or a whole contiguous array, which
``schedule._collapse_reduction`` flattens into one dim first) the ``n`` elements go in this
order, the same on every host:

1. ``LANES`` partial accumulators ("lanes"), each starting from the identity (the result's
   ``init``). Element ``i`` of a block goes to lane ``i % LANES``, so the lanes are independent
   chains that LLVM's SLP vectorizer packs into vector registers.
2. Blocks of ``BLOCK = STEPS * LANES`` elements: each lane adds ``STEPS`` (16) elements in order.
   A block's lanes are then merged into a *cascade*, lane by lane: a stack of lane vectors where
   level ``k`` holds the sum of ``2**k`` consecutive blocks. Block ``j`` is added to the levels
   below it as a binary counter carries (``stack[k] + block``, the earlier blocks on the left),
   so block totals are combined as a balanced binary tree: pairwise summation of the blocks.
3. The tail (fewer than ``BLOCK`` elements) goes into fresh lanes, whole groups of ``LANES``
   first and the last ``n % LANES`` elements into lane 0. The occupied stack levels are then
   added onto it from the lowest level up (``stack[k] + lanes``).
4. The lanes are combined pairwise (lane 0 + lane 1, lane 2 + lane 3, ... then the same on the
   results), and that total is added to the result (its init, or the total of the outer
   reduction dims so far).

Rows shorter than ``2 * LANES`` are reduced in order. A whole-array reduction on threads
(``full_reduction.py``) runs this same order in pieces of ``2**p`` blocks. A float32 or float64
sum takes NumPy's own order instead (``PairwiseRow``, at the end; on threads:
``pairwise_pieces.py``).

How the loop visits the blocks does not change that order: a cheap contiguous body reduces
several blocks side by side where its inputs fit in cache, and one block after another, in
address order, where they come from memory (``block_order.py``); the lanes and merges are the
same either way.

**Along the dim before a parallel innermost one** (``ColumnReduction``: ``x.sum(axis=0)``) each
column is summed in the same order with one lane: blocks of ``STEPS`` rows in order, block
totals through the cascade, the tail rows, the stack, then the result. Tiles of adjacent
columns run together (vectorized across the columns); a column's order does not depend on its
tile. Columns shorter than ``2 * STEPS`` rows are summed in order. (A max or min down columns
runs in order: it does not round, and LLVM vectorizes that loop across the columns itself.)

``LANES`` comes from the element type, never from the host's vector width: 16 for types of at
most 32 bits, 8 for 64-bit ones (64 bytes either way: two 256-bit vectors or one 512-bit
vector, so both AVX2 and AVX-512 hosts keep their units busy), so a result is bit-identical on
AVX2, AVX-512 and ARM hosts, and from run to run. ``tests/codegen/test_reductions.py``
recomputes the order in NumPy and compares bit for bit.

Rounding error: a lane adds at most ``STEPS + LANES`` terms in order (a column ``2 * STEPS``);
the cascade adds ``ceil(log2(n / BLOCK))`` levels and the lane tree ``log2(LANES)``. So
``|sum - exact| <= (log2(n) + 2 * STEPS) * eps * sum(|x|)`` (first order; NumPy's bound has the
same form with its 8 accumulators of blocks of 128), against ``n * eps * sum(|x|)`` in order.
A product is reassociated the same way, with the same relative bound.

Max and min do not round, so their order matters only for which of 0.0 and -0.0 a tie gives
(NumPy's vectorized loops are no more specific); argmax and argmin merge lanes by the body's
own test, the smaller index winning ties, which is exactly NumPy's first occurrence. Integer
reductions are exactly associative: LLVM vectorizes their plain loops itself.

A float sum or product whose body calls the math library (``sum(log(exp(x)))``) computes the
elements of ``SIDE_BY_SIDE`` groups of a block in one loop, which LLVM runs as that many vector
iterations side by side, before adding them to the lanes group by group (``_Cascade._groups``):
the order above, unchanged, while the math library's long chains of dependent steps overlap
(one group at a time left them waiting on each step's latency: 1.3-1.4x slower). LLVM unrolls
the block's four such loops into 16 vectors of straight code, which keeps the elements in
registers; a body whose calls keep too many constants live for that (``cost.spills_unrolled``:
float64 exp and log) computes its whole block in one loop of ``cost.math_interleave`` vectors
side by side that stays a loop (``unroll=False``), as an elementwise math loop runs
(docs/performance.md, "The math library on Zen 4, round 6").

So a float max or min, an argmax or argmin along a row need not run the blocks and the
cascade to get the lanes above (``RowReduction._fold_lanes``): each lane is folded in ``SETS``
interleaved chains of groups, kept in vector registers, merged at the end. An argmax or argmin
gets exactly the documented lanes that way (its merge orders by index); a max or min lane gets
the same value, so the same bits unless the value is a zero or a NaN, and where some lane's is,
the lanes are computed again in the documented order. Same bits, without a block's cascade.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.cpu import cost
from jitcore.codegen.cpu.block_order import reads_from_memory
from jitcore.codegen.cpu.strided_copy import StridedCopy
from jitcore.codegen.llvm_types import I8, I64, constant, i64, value_type
from jitcore.codegen.loops import emit_loop, extent, freeze, static_value
from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import Operation, Value
from jitcore.ir.dialects import kernel

STEPS = 16  # elements per lane per block: NumPy's pairwise sum also adds 16 per accumulator
LEVELS = 64  # cascade levels: one per bit of the block count
SETS = 4  # interleaved chains per lane of a max, min, argmax or argmin (``_fold_lanes``)
SIDE_BY_SIDE = 4  # groups of a costly body's elements computed side by side (``_groups``)
LANE_LOOPS = True  # a cascade's merges of lanes that are not one vector loop over the lanes
SIDE_BLOCKS = 4  # blocks of a cheap body reduced side by side (``RowReduction._emit_blocks``)


# A column reduction's block of STEPS rows is unrolled this many rows at a time, not whole: each
# row is a column loop that LLVM vectorizes and unrolls again, so the whole block made 16 copies
# of it, most of a column sum's compile (a column sum of 3 or 67 rows: 600-900 ms of CPU, 350 ->
# 4,300 LLVM instructions, for a size-generic kernel that also carries this tiled path). Eight
# at a time compiles in a third to a half of that; the calls measured the same (0.92-1.01x on
# (1000, 300) to 4096x4096, float32 and float64; docs/performance.md, session 35).
BLOCK_ROWS_UNROLLED = 8


def lanes_for(element) -> int:
    """Partial accumulators per result: 16 for types up to 32 bits, 8 for 64-bit and wider ones
    (chosen from the type, not the host, so the order is the same everywhere)."""
    return 16 if element.bitwidth <= 32 else 8


REORDERED = ("arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf")


@dataclass(frozen=True)
class Combiner:
    """How a result's accumulator takes in an element: the body's combining op (None for a
    complex sum, two float sums), and whether the accumulator is its first operand."""

    op: Operation | None
    acc_first: bool = True


@dataclass(frozen=True)
class PerResult:
    """Lanes merged result by result, each with its own combiner."""

    combiners: tuple[Combiner, ...]

    @property
    def rounds(self) -> bool:
        """Whether merging rounds (a float sum or product): then the order needs the cascade."""
        return any(c.op is None or c.op.op_name in ("arith.addf", "arith.mulf") for c in self.combiners)

    def merge(self, b: ll.IRBuilder, xs: list, ys: list) -> list[ll.Value]:
        return [combine(b, c, x, y) for c, x, y in zip(self.combiners, xs, ys)]


@dataclass(frozen=True)
class ArgBest:
    """An argmax or argmin (results: the index, the best value): lanes merged by the body's own
    test ``take`` (the element replaces the best so far), the smaller index winning when neither
    replaces the other (equal values, or two NaNs): NumPy's first occurrence."""

    take: Value  # the body's i1 test
    element: Value  # the value the test compares with the best so far
    best: Value  # the best-so-far accumulator
    rounds = False  # (not a field) merging never rounds

    def _takes(self, b: ll.IRBuilder, x: ll.Value, best: ll.Value) -> ll.Value:
        """The body's test with ``x`` as the element and ``best`` as the best so far."""
        values = {id(self.element): x, id(self.best): best}
        for inner in _slice(self.take, {id(self.element), id(self.best)}):
            values[id(inner.results[0])] = scalar.emit(b, inner, [values[id(v)] for v in inner.operands])
        return values[id(self.take)]

    def merge(self, b: ll.IRBuilder, xs: list, ys: list) -> list[ll.Value]:
        (xi, xv), (yi, yv) = xs, ys
        y_better = self._takes(b, yv, xv)
        x_better = self._takes(b, xv, yv)
        earlier = b.icmp_signed("<", yi, xi)
        use_y = b.or_(y_better, b.and_(b.not_(x_better), earlier))
        return [b.select(use_y, yi, xi), b.select(use_y, yv, xv)]


def _slice(root: Value, leaves: set[int]) -> list[Operation] | None:
    """The ops computing ``root`` from the values ``leaves`` (ids) and constants, in order;
    None if it needs anything else."""
    ops: list[Operation] = []
    seen: set[int] = set()

    def visit(v: Value) -> bool:
        if id(v) in leaves or id(v) in seen:
            return True
        op = getattr(v, "op", None)
        if op is None or len(op.results) != 1 or isinstance(op, kernel.IndexOp):
            return False
        if not all(visit(u) for u in op.operands):
            return False
        seen.add(id(v))
        ops.append(op)
        return True

    return ops if visit(root) else None


def reassociation(op, dim: int = -1, fastmath: bool = False,
                  iterators: list[str] | None = None) -> PerResult | ArgBest | None:
    """How lanes of ``op``'s reduction over dim ``dim`` (-1: the innermost; -2: the one before,
    with a parallel innermost dim) merge, or None when they may not.

    Float sums and products (and complex sums), max and min (``REORDERED``): their accumulator
    is used once, by the combine, so the body is ``acc (+) f(inputs)``; with ``fastmath`` LLVM
    reorders sums and products itself. A max or min in lanes differs from one in order only in
    which of 0.0 and -0.0 a tie of them gives (and which NaN's payload), as NumPy's vectorized
    loops do. Along the innermost dim, an argmax or argmin (``ArgBest``). Integer reductions are
    exactly associative, so LLVM vectorizes their plain loops itself. ``iterators``: the
    schedule's iterator kinds, where it merged dims (``op``'s own by default).
    """
    its = iterators or op.iterator_types
    if op.scan_dim is not None or not op.has_reduction or len(its) < -dim or its[dim] != "reduction":
        return None
    if dim == -2 and its[-1] != "parallel":
        return None
    if dim == -1 and (best := _arg_best(op)) is not None:
        return best
    n_in = len(op.operands)
    combiners = []
    for k, y in enumerate(op.body.terminator.operands):
        acc = op.body.args[n_in + k]
        combine = getattr(y, "op", None)
        if _is_complex_sum(combine, acc):
            combiners.append(Combiner(None))
            continue
        if (combine is None or combine.op_name not in REORDERED
                or acc not in combine.operands or len(acc.uses) != 1):
            return None
        if fastmath and combine.op_name in ("arith.addf", "arith.mulf"):
            return None
        combiners.append(Combiner(combine, combine.operands[0] is acc))
    return PerResult(tuple(combiners))


def _arg_best(op) -> ArgBest | None:
    """``yield select(take, position, index), select(take, x, best)`` over one reduction dim,
    ``position`` that dim's index and ``take`` computed from ``x`` and ``best`` alone."""
    n_in = len(op.operands)
    if len(op.results) != 2 or op.iterator_types.count("reduction") != 1:
        return None
    index, best = op.body.args[n_in:]
    first, second = (getattr(y, "op", None) for y in op.body.terminator.operands)
    if any(s is None or s.op_name != "arith.select" for s in (first, second)):
        return None
    take = first.operands[0]
    if second.operands[0] is not take or first.operands[2] is not index or second.operands[2] is not best:
        return None
    position = first.operands[1]
    while getattr(position, "op", None) is not None and position.op.op_name == "arith.bitcast":
        position = position.op.operands[0]
    dim = op.iterator_types.index("reduction")
    index_op = getattr(position, "op", None)
    if not (isinstance(index_op, kernel.IndexOp) and index_op.dim == dim == len(op.iterator_types) - 1):
        return None
    if len(index.uses) != 1 or _slice(take, {id(second.operands[1]), id(best)}) is None:
        return None
    return ArgBest(take, second.operands[1], best)


def _separable(op, merging: PerResult | ArgBest, cost_op=None) -> tuple[set[int], list[Value]] | None:
    """For a float sum or product whose body (or ``cost_op``, what its loads compute: a folded
    producer, ``producer_folds.py``) calls the math library: the ids of its combine
    ops and the elements they take in (each combine's operand that is not the accumulator),
    which ``_Cascade._groups`` computes for several groups before it combines them; None for
    any other reduction (a cheap body: LLVM overlaps its short chains itself)."""
    if not isinstance(merging, PerResult) or not (cost.calls_math_library(op) or (
            cost_op is not None and cost.calls_math_library(cost_op))):
        return None
    if any(c.op is None or c.op.op_name not in ("arith.addf", "arith.mulf") for c in merging.combiners):
        return None
    combines = {id(c.op) for c in merging.combiners}
    combined = {id(r) for c in merging.combiners for r in c.op.results}
    for top in op.body.ops[:-1]:
        if id(top) not in combines and any(id(v) in combined for inner in top.walk() for v in inner.operands):
            return None  # something else reads a combine's result
    return combines, [c.op.operands[1] if c.acc_first else c.op.operands[0] for c in merging.combiners]


def _max_min_elements(op, merging) -> tuple[set[int], list[Value], list[bool]] | None:
    """For a float max or min whose combines are top-level ops of the body that nothing else
    reads (neither their accumulators nor their results): the ids of the combines, the
    elements they take in, and for each whether it keeps the larger; None otherwise."""
    if not isinstance(merging, PerResult) or any(
            c.op is None or c.op.op_name not in ("arith.maximumf", "arith.minimumf")
            for c in merging.combiners):
        return None
    combines = [c.op for c in merging.combiners]
    tops = {id(top) for top in op.body.ops[:-1]}
    n_in = len(op.operands)
    private = {id(r) for c in combines for r in c.results} | {id(a) for a in op.body.args[n_in:]}
    if not all(id(c) in tops for c in combines):
        return None
    for top in op.body.ops[:-1]:
        if id(top) not in {id(c) for c in combines} and any(
                id(v) in private for inner in top.walk() for v in inner.operands):
            return None  # something else reads an accumulator or a combine's result
    elements = [c.op.operands[1] if c.acc_first else c.op.operands[0] for c in merging.combiners]
    return {id(c) for c in combines}, elements, [c.op_name == "arith.maximumf" for c in combines]


def _is_complex_sum(combine: Operation | None, acc: Value) -> bool:
    """``complex.create(re(acc) + re(x), im(acc) + im(x))``: a complex sum, whose two float
    sums may be reordered like a float sum's."""
    if combine is None or combine.op_name != "complex.create" or len(acc.uses) != 2:
        return False
    for part, name in zip(combine.operands, ("complex.re", "complex.im")):
        add = getattr(part, "op", None)
        if add is None or add.op_name != "arith.addf":
            return False
        if not any(getattr(v, "op", None) is not None and v.op.op_name == name and v.op.operands[0] is acc
                   for v in add.operands):
            return False
    return True


def _whole_lanes(merging, types: list) -> bool:
    """Whether every result's lanes merge by one float op (a sum, product, max or min), which
    a vector of all the lanes takes at once (``_Cascade._vector_type``)."""
    return (isinstance(merging, PerResult)
            and all(c.op is not None and c.op.op_name in REORDERED for c in merging.combiners)
            and all(isinstance(t, (ll.FloatType, ll.DoubleType, ll.HalfType)) for t in types))


def combine(b: ll.IRBuilder, combiner: Combiner, x: ll.Value, y: ll.Value) -> ll.Value:
    """``x (+) y``: the body's combine with ``x`` as the accumulator and ``y`` as the element."""
    if combiner.op is None:
        for k in (0, 1):
            part = b.fadd(b.extract_value(x, k), b.extract_value(y, k))
            x = b.insert_value(x, part, k)
        return x
    return scalar.emit(b, combiner.op, [x, y] if combiner.acc_first else [y, x])


def _while_bit(b: ll.IRBuilder, bits: ll.Value, stop_when_zero: bool, body) -> ll.Value:
    """``level = 0; while <test>: body(level); level += 1``, returning ``level`` after the loop.
    The test is bit ``level`` of ``bits`` being set, or (``stop_when_zero``) ``bits >> level``
    being non-zero."""
    pre = b.block
    fn = b.function
    header, inner, done = (fn.append_basic_block(n) for n in ("cascade", "carry", "carried"))
    b.branch(header)
    b.position_at_end(header)
    level = b.phi(I64)
    level.add_incoming(ll.Constant(I64, 0), pre)
    shifted = b.lshr(bits, level)
    if not stop_when_zero:
        shifted = b.and_(shifted, ll.Constant(I64, 1))
    b.cbranch(b.icmp_unsigned("!=", shifted, ll.Constant(I64, 0)), inner, done)
    b.position_at_end(inner)
    body(level)
    level.add_incoming(b.add(level, ll.Constant(I64, 1)), b.block)
    b.branch(header)
    b.position_at_end(done)
    return level


class _Cascade:
    """Lanes of partial results and their cascade; subclasses say which element a lane adds at
    each step (``_block``, ``_tail``) and where the lanes end up (``finish``)."""

    def __init__(self, b: ll.IRBuilder, op, body, merging: PerResult | ArgBest, lanes: int):
        self.b, self.op, self.body, self.merging, self.lanes = b, op, body, merging, lanes
        self.types = [value_type(r.type.element) for r in op.results]
        self.inits = [constant(r.type.element, init.value)
                      for r, init in zip(op.results, op.attributes["inits"])]
        with b.goto_entry_block():
            self.arrays = [b.alloca(t, size=lanes) for t in self.types]
            self.stacks = [b.alloca(t, size=LEVELS * lanes) for t in self.types]
        self.elements = _separable(op, merging, body.cost_op)  # groups side by side (``_groups``)
        self.temps: list[ll.Value] | None = None
        self.whole = _whole_lanes(merging, self.types)
        self.plain_blocks = False  # blocks one at a time (``_recheck``)

    # -- all lanes at once ------------------------------------------------------------------
    # Where each result's merge is one float op (a sum, a product, a max or min), a merge of
    # all the lanes (a level of the cascade, a block pushed, the identity stored) is one vector
    # op in the IR: the same op on each lane, so the same bits, in 3 instructions where the
    # lanes written out took 4-5 each, for LLVM to parse, optimise and regroup (SLP).
    def _vector_type(self, k: int) -> ll.VectorType:
        return ll.VectorType(self.types[k], self.lanes)

    def load_lanes(self, k: int, at: ll.Value) -> ll.Value:
        vector = self._vector_type(k)
        return self.b.load(self.b.bitcast(at, vector.as_pointer()), typ=vector, align=self._align(k))

    def store_lanes(self, k: int, value: ll.Value, at: ll.Value) -> None:
        self.b.store(value, self.b.bitcast(at, value.type.as_pointer()), align=self._align(k))

    def copies_whole(self, k: int) -> bool:
        """Whether result ``k``'s lanes move as one vector where they are only stored or copied
        (the identity, a cascade level, a piece's partials): any float or integer of whole
        bytes (an i1 vector packs bits; a complex pair is a struct). An argmax's lanes written
        out one by one were a fifth of its full reduction's code."""
        t = self.types[k]
        return self.whole or isinstance(t, (ll.FloatType, ll.DoubleType, ll.HalfType)) or (
            isinstance(t, ll.IntType) and t.width >= 8)

    def _align(self, k: int) -> int:
        return numpy_dtype(self.op.results[k].type.element).itemsize  # the arrays' own alignment

    # -- lanes ------------------------------------------------------------------------------
    def reset_lanes(self) -> None:
        for k, init in enumerate(self.inits):
            if self.copies_whole(k):
                self.store_lanes(k, ll.Constant(self._vector_type(k), [init] * self.lanes), self.arrays[k])
                continue
            for slot in self._slots(k):
                self.b.store(init, slot)

    def _step(self, point: list, lane, arrays: list | None = None) -> None:
        """The body at iteration point ``point``, accumulating into lane ``lane`` (an int, or a
        value in a loop over the lanes) of ``arrays`` (the lanes by default)."""
        b = self.b
        arrays = arrays or self.arrays

        def slot(k):
            at = ll.Constant(I64, lane) if isinstance(lane, int) else lane
            return b.gep(arrays[k], [at], inbounds=True, source_etype=self.types[k])

        accs = lambda: [b.load(slot(k), typ=t) for k, t in enumerate(self.types)]  # noqa: E731
        for k, y in enumerate(self.body.evaluate(point, accs)):
            b.store(y, slot(k))

    def _groups(self, base: ll.Value, count: int, interleave: int, unroll: bool = True) -> None:
        """``count`` groups from element ``base``, as ``count`` calls of ``_group`` give them:
        first every element of them (the body without its combines) in one loop that LLVM
        runs as ``interleave`` vector iterations side by side, so that a costly body's chains
        (a math-library call's reduction, polynomial, scaling) overlap; then the groups added to
        the lanes one after another, each lane in order: the same order, the same bits."""
        b, lanes = self.b, self.lanes
        skipped, wanted = self.elements
        if self.temps is None:
            with b.goto_entry_block():
                self.temps = [b.alloca(t, size=STEPS * lanes) for t in self.types]

        def temp(k, i):
            return b.gep(self.temps[k], [i], inbounds=True, source_etype=self.types[k])

        def element(i):
            point = [*self.ivs, b.add(base, i)]
            for k, x in enumerate(self.body.evaluate_without(point, skipped, wanted)):
                b.store(x, temp(k, i))

        emit_loop(b, extent(count * lanes), element, interleave=interleave, unroll=unroll)
        combiners = self.merging.combiners
        for g in range(count):
            def add(lane, g=g):
                for k, (t, c) in enumerate(zip(self.types, combiners)):
                    slot = self.lane_slot(k, lane)
                    x, acc = b.load(temp(k, b.add(lane, extent(g * lanes))), typ=t), b.load(slot, typ=t)
                    b.store(scalar.emit(b, c.op, [acc, x] if c.acc_first else [x, acc],
                                        self.body.precision), slot)

            emit_loop(b, extent(lanes), add)

    def _lane_values(self, k: int) -> list[ll.Value]:
        return [self.b.load(slot, typ=self.types[k]) for slot in self._slots(k)]

    def lane_slot(self, k: int, lane) -> ll.Value:
        """Result ``k``'s lane ``lane`` (an int, or a value in a loop over the lanes)."""
        lane = i64(lane) if isinstance(lane, int) else lane
        return self.b.gep(self.arrays[k], [lane], inbounds=True, source_etype=self.types[k])

    def _slots(self, k: int) -> list[ll.Value]:
        return [self.lane_slot(k, lane) for lane in range(self.lanes)]

    # -- the cascade ------------------------------------------------------------------------
    def _level(self, k: int, level: ll.Value, lane) -> ll.Value:
        lane = i64(lane) if isinstance(lane, int) else lane
        index = self.b.add(self.b.mul(level, i64(self.lanes)), lane)
        return self.b.gep(self.stacks[k], [index], inbounds=True, source_etype=self.types[k])

    def _add_level_to_lanes(self, level: ll.Value) -> None:
        """lanes = stack[level] (+) lanes: the earlier blocks on the left."""
        b = self.b
        if self.whole:
            ks = range(len(self.types))
            earlier = [self.load_lanes(k, self._level(k, level, 0)) for k in ks]
            lanes = [self.load_lanes(k, self.arrays[k]) for k in ks]
            for k, value in enumerate(self.merging.merge(b, earlier, lanes)):
                self.store_lanes(k, value, self.arrays[k])
            return
        def merge(lane):
            earlier = [b.load(self._level(k, level, lane), typ=t) for k, t in enumerate(self.types)]
            lanes = [b.load(self.lane_slot(k, lane), typ=t) for k, t in enumerate(self.types)]
            for k, value in enumerate(self.merging.merge(b, earlier, lanes)):
                b.store(value, self.lane_slot(k, lane))

        if not LANE_LOOPS:
            for lane in range(self.lanes):
                merge(lane)
            return
        # A loop over the lanes, not a copy per lane: an argmax's or a complex sum's merge is a
        # dozen instructions a lane, and this is emitted once per cascade walk.
        emit_loop(b, extent(self.lanes), merge)

    def _while_bit(self, bits: ll.Value, stop_when_zero: bool, body) -> ll.Value:
        return _while_bit(self.b, bits, stop_when_zero, body)

    def push_block(self, block: ll.Value, skip: int = 0) -> None:
        """Merge block number ``block`` (in the lanes) into the cascade, as a binary counter
        carries: one merge per trailing one bit of ``block``, then store at the level reached.
        With ``skip``, the lanes hold ``2**skip`` blocks already merged as the counter merges
        them (``RowReduction._side_by_side``), ``block`` counts such runs, and its levels start
        at ``skip``."""
        def shifted(level):
            return self.b.add(level, extent(skip)) if skip else level

        top = shifted(self._while_bit(block, False, lambda level: self._add_level_to_lanes(shifted(level))))
        for k in range(len(self.types)):
            if self.copies_whole(k):
                self.store_lanes(k, self.load_lanes(k, self.arrays[k]), self._level(k, top, 0))
                continue
            for lane, value in enumerate(self._lane_values(k)):
                self.b.store(value, self._level(k, top, lane))

    def fold_stack(self, blocks: ll.Value) -> None:
        """The occupied levels onto the lanes (the tail), lowest level first."""
        b = self.b

        def add_level(level):
            bit = b.and_(b.lshr(blocks, level), ll.Constant(I64, 1))
            with b.if_then(b.icmp_unsigned("!=", bit, ll.Constant(I64, 0))):
                self._add_level_to_lanes(level)

        self._while_bit(blocks, True, add_level)

    def _emit_blocks(self) -> None:
        def block(j):
            self.reset_lanes()
            self._block(j)
            self.push_block(j)

        emit_loop(self.b, self.blocks, block)

    def _ordered_lanes(self) -> None:
        """The lanes in the documented order: ``self.blocks`` blocks into the cascade, then the
        tail, then the stack onto the tail."""
        if static_value(self.blocks) == 0:  # no block, an empty stack: the tail alone
            self.reset_lanes()
            self._tail()
            return
        self._emit_blocks()
        self.reset_lanes()
        self._tail()
        self.fold_stack(self.blocks)

    def _lanes(self) -> None:
        """The lanes' values: folded in any order where that gives the same bits (``SETS``),
        else, or where a lane's value may differ in its bits, in the documented order."""
        if not self._unordered():
            self._ordered_lanes()
            return
        self._fold_lanes()
        if isinstance(self.merging, ArgBest):
            return  # ties go by index: the same pair in any order
        self._recheck(self._ordered_lanes)

    def emit(self, keep=None) -> None:
        """The lanes (``_lanes``), then ``finish`` (or, given ``keep``, ``keep(k, lane,
        value)`` for every result ``k``'s lanes, not yet combined, ``_keep``: a piece of a full
        reduction, ``full_reduction.py``)."""
        self._lanes()
        if keep is None:
            self.finish()
            return
        self._keep(keep)

    def _keep(self, keep) -> None:
        """Each result's lanes to ``keep(k, lane, value)``; whole lanes (``copies_whole``) in one call
        with lane None and a vector of them all."""
        for k in range(len(self.types)):
            if self.copies_whole(k):
                keep(k, None, self.load_lanes(k, self.arrays[k]))
                continue
            for lane, value in enumerate(self._lane_values(k)):
                keep(k, lane, value)

    def emit_whole_blocks(self, keep, top: ll.Value | None = None) -> None:
        """A power of two of whole blocks (no tail): their cascade's one occupied level, the
        lanes of its balanced tree, to ``keep(k, lane, value)``; no merge with the identity.
        ``top``: that level (log2 of the blocks), where the count is known only at run time."""
        if top is None:
            blocks = static_value(self.blocks)
            assert blocks and blocks & (blocks - 1) == 0 and static_value(self.groups) == 0 \
                and static_value(self.leftover) == 0, "whole blocks only"
            top = ll.Constant(I64, blocks.bit_length() - 1)

        def ordered():
            self._emit_blocks()
            self._take_level(top)

        self._either_order(ordered)
        self._keep(keep)

    def emit_any_piece(self, keep, whole: ll.Value, top: ll.Value) -> None:
        """A piece that is, by the run-time i1 ``whole``, either ``2**top`` whole blocks (the
        lanes ``emit_whole_blocks`` keeps: the top level, no merge with the identity) or the
        last piece (the lanes ``emit`` keeps). One copy of the code for both, the trip count
        the piece's own: they differ only in how the documented order ends, so only that is
        chosen at run time. Two copies (each with its fold, blocks, runs and fallback) were
        most of a full max or min's LLVM IR (docs/performance.md, "Smaller reduction code")."""
        b = self.b

        def ordered():
            self._emit_blocks()
            with b.if_else(whole) as (level, last):
                with level:
                    self._take_level(top)
                with last:
                    self.reset_lanes()
                    self._tail()
                    self.fold_stack(self.blocks)

        self._either_order(ordered)
        self._keep(keep)

    def _take_level(self, top: ll.Value) -> None:
        """Cascade level ``top`` as the lanes."""
        for k, t in enumerate(self.types):
            if self.copies_whole(k):
                self.store_lanes(k, self.load_lanes(k, self._level(k, top, 0)), self.arrays[k])
                continue
            for lane in range(self.lanes):
                self.b.store(self.b.load(self._level(k, top, lane), typ=t), self.lane_slot(k, lane))

    def _either_order(self, ordered) -> None:
        """The lanes folded in any order where that gives the same bits, else (or where a
        max or min lane holds a zero or a NaN) by ``ordered()``, the documented order."""
        if not self._unordered():
            ordered()
            return
        self._fold_lanes()
        if not isinstance(self.merging, ArgBest):
            self._recheck(ordered)

    def _recheck(self, ordered) -> None:
        """``ordered()`` where a max or min lane holds a zero or a NaN, its blocks one at a
        time: the same lanes as side by side (``RowReduction._emit_blocks``), in one copy of
        the body where runs of 4, 2 and 1 blocks, from memory or not, made seven, most of a
        full max's code for a case that rarely runs."""
        with self.b.if_then(self._zero_or_nan(), likely=False):
            self.plain_blocks = True
            try:
                ordered()
            finally:
                self.plain_blocks = False


class RowReduction(_Cascade):
    """A reduction along the innermost dim at outer point ``ivs``: lane ``l`` adds elements
    ``l, l + LANES, ...`` of each block; the lanes are combined pairwise at the end. With
    ``first``, the row is elements ``first .. first + trip_count - 1`` of the dim (a piece).
    ``below_a_block``: the row is shorter than a block at every size the code runs at (a tiny
    function's: ``backend.TINY_WORK``), so the blocks and their cascade are left out."""

    def __init__(self, b, op, body, merging, trip_count: ll.Value, ivs: list,
                 first: ll.Value | None = None, below_a_block: bool = False):
        super().__init__(b, op, body, merging, self.lanes_count(op))
        self.ivs, self.first, self.trip_count = ivs, first, trip_count
        self.strided = StridedCopy(b, op, body, len(ivs), self.lanes * STEPS, self.lanes)
        lanes = self.lanes
        self.width = ll.Constant(I64, lanes)
        self.block_size = ll.Constant(I64, lanes * STEPS)
        known = static_value(trip_count)
        if known is None and below_a_block:  # no block: the tail is the whole row
            self.blocks = self.start = extent(0)
            self.groups = b.udiv(trip_count, self.width)
            self.rest = b.mul(self.groups, self.width)
            self.leftover = b.urem(trip_count, self.width)
        elif known is not None:
            self.blocks = extent(known // (lanes * STEPS))
            self.start = extent(known // (lanes * STEPS) * lanes * STEPS)
            self.groups = extent(known % (lanes * STEPS) // lanes)
            self.rest = extent(known // lanes * lanes)
            self.leftover = extent(known % lanes)
        else:
            self.blocks = b.udiv(trip_count, self.block_size)
            self.start = b.mul(self.blocks, self.block_size)
            self.groups = b.udiv(b.sub(trip_count, self.start), self.width)
            self.rest = b.mul(b.udiv(trip_count, self.width), self.width)
            self.leftover = b.sub(trip_count, self.rest)

    @staticmethod
    def lanes_count(op) -> int:
        return lanes_for(op.results[-1].type.element)

    def _at(self, i: ll.Value) -> ll.Value:
        return i if self.first is None else self.b.add(self.first, i)

    def _group(self, base: ll.Value, arrays: list | None = None, unroll: bool = True) -> None:
        """Elements ``base .. base + LANES - 1``, one per lane (of ``arrays``, the lanes by
        default): a loop over the lanes, which LLVM's loop vectorizer turns into vector code
        whatever the body (calls of the math library included), or unrolls for the SLP
        vectorizer (``unroll=False``: vectorized only, one copy of the body, not ``LANES``)."""
        b = self.b
        emit_loop(b, extent(self.lanes),
                  lambda lane: self._step([*self.ivs, b.add(base, lane)], lane, arrays), unroll=unroll)

    def _emit_blocks(self) -> None:
        """The blocks into the cascade, ``SIDE_BLOCKS`` at a time where the body is cheap and
        the row contiguous (two where runs do not merge in registers, ``_merges_runs``): a block's
        lanes are chains of ``STEPS`` dependent combines, which one block at a time leaves
        waiting on the combine's latency (a float add's 2-4 cycles a vector); the blocks of a
        run side by side, each from the identity, then merged as the counter merges them,
        give the same lanes and the same cascade: the same bits. The blocks past the last
        whole run go in runs of half as many, and so on down to one.

        Inputs too large for the cache go one block at a time, in address order, which the
        hardware prefetchers follow (side by side they did not: ``block_order.py``); the same
        merges, the same bits. Size-generic code tests the size at run time."""
        if self.elements is not None or self._strided_inputs() or self.plain_blocks:
            super()._emit_blocks()
            return
        b = self.b
        from_memory = reads_from_memory(b, self.body, len(self.ivs))
        if from_memory is True:
            super()._emit_blocks()
            return
        if from_memory is False:
            self._emit_runs()
            return
        with b.if_else(from_memory) as (memory, cache):
            with memory:
                super()._emit_blocks()
            with cache:
                self._emit_runs()

    def _emit_runs(self) -> None:
        """The blocks side by side (``_emit_blocks``)."""
        b = self.b
        side = SIDE_BLOCKS if self._merges_runs() else 2
        with b.goto_entry_block():
            others = [[b.alloca(t, size=self.lanes) for t in self.types] for _ in range(side - 1)]
        known = static_value(self.blocks)
        shift = side.bit_length() - 1
        runs = extent(known >> shift) if known is not None else b.lshr(self.blocks, extent(shift))
        emit_loop(b, runs, lambda i: self._side_by_side(b.shl(i, extent(shift)), side, others))
        while side > 1:  # the blocks left: a run of each size whose bit the count has
            side //= 2
            if known is not None:
                if known & side:
                    self._side_by_side(extent(known & -2 * side), side, others)
                continue
            with b.if_then(b.icmp_unsigned("!=", b.and_(self.blocks, extent(side)), extent(0))):
                self._side_by_side(b.and_(self.blocks, extent(-2 * side)), side, others)

    def _merges_runs(self) -> bool:
        """Whether runs of blocks merge in registers (``_side_by_side``): whole-vector lanes
        of a row that is the whole reduction (a full reduction or its piece). In a row of a
        matrix LLVM vectorized the steps across the blocks, by gathers (a row sum of products
        6-17x slower), so a matrix's rows keep two blocks, each pushed."""
        return self.whole and not self.ivs

    def _side_by_side(self, first: ll.Value, side: int, others: list) -> None:
        """Blocks ``first .. first + side - 1`` (``first`` a multiple of ``side``) side by
        side, each in its own lanes, into the cascade: where runs merge (``_merges_runs``),
        merged pairwise in registers (block ``2j`` on the left of ``2j + 1``, and so up, as the
        counter merges them) and pushed once as run ``first / side``; else pushed in order."""
        b = self.b
        sets = [self.arrays, *others[:side - 1]]
        bases = [self._at(b.mul(b.add(first, extent(t)), self.block_size)) for t in range(side)]
        for arrays in sets:
            with self._lanes_in(arrays):
                self.reset_lanes()

        def step(s):
            for base, arrays in zip(bases, sets):
                self._group(b.add(base, b.mul(s, self.width)), arrays)

        emit_loop(b, extent(STEPS), step)
        if not self._merges_runs():
            for t, arrays in enumerate(sets):
                with self._lanes_in(arrays):
                    self.push_block(b.add(first, extent(t)))
            return
        ks = range(len(self.types))
        parts = [[self.load_lanes(k, arrays[k]) for k in ks] for arrays in sets]
        while len(parts) > 1:
            parts = [self.merging.merge(b, x, y) for x, y in zip(parts[::2], parts[1::2])]
        for k in ks:
            self.store_lanes(k, parts[0][k], self.arrays[k])
        levels = side.bit_length() - 1
        self.push_block(b.lshr(first, extent(levels)) if levels else first, levels)

    @contextmanager
    def _lanes_in(self, arrays: list):
        """``arrays`` as the lanes meanwhile."""
        saved, self.arrays = self.arrays, arrays
        try:
            yield
        finally:
            self.arrays = saved

    def _block(self, j: ll.Value) -> None:
        b = self.b
        base = self._at(b.mul(j, self.block_size))
        with self._copied(base, self.block_size):
            self._block_at(base)

    def _block_at(self, base: ll.Value) -> None:
        b = self.b
        costly = self.body.cost_op
        if self.elements is not None and (cost.spills_unrolled(self.op) or cost.spills_unrolled(costly)):
            self._groups(base, STEPS, min(cost.math_interleave(self.op), cost.math_interleave(costly)),
                         unroll=False)
            return
        if self.elements is not None:
            run = extent(SIDE_BY_SIDE * self.lanes)
            emit_loop(b, extent(STEPS // SIDE_BY_SIDE),
                      lambda s: self._groups(b.add(base, b.mul(s, run)), SIDE_BY_SIDE, SIDE_BY_SIDE))
            return
        emit_loop(b, extent(STEPS), lambda s: self._group(b.add(base, b.mul(s, self.width))))

    def _tail(self) -> None:
        b, width = self.b, self.width
        if not self._strided_inputs():
            emit_loop(b, self.groups, lambda g: self._group(self._at(b.add(self.start, b.mul(g, width)))))
        else:
            first = self._at(self.start)
            with self._copied(first, b.mul(self.groups, width)):
                emit_loop(b, self.groups, lambda g: self._group(b.add(first, b.mul(g, width))))
        emit_loop(b, self.leftover, lambda i: self._step([*self.ivs, self._at(b.add(self.rest, i))], 0))

    def _strided_inputs(self) -> list[int]:
        """The inputs whose stride along this row is a run-time value (``strided_copy.py``)."""
        return self.strided.inputs

    def _copied(self, first: ll.Value, count: ll.Value):
        """Within: the strided inputs' elements ``first .. first + count - 1`` of the row
        (``count`` at most a block) read from their copies in stack buffers."""
        return self.strided.copied(self.ivs, first, count)

    def finish(self) -> None:
        """result (+) (the lanes combined pairwise)."""
        b, n_in = self.b, len(self.op.operands)
        zero = [*self.ivs, ll.Constant(I64, 0)]
        if self.whole:  # the same pairs as below: even lanes (+) odd lanes, halving each time
            parts = [[self.load_lanes(k, self.arrays[k]) for k in range(len(self.types))]]
            width = self.lanes
            while width > 1:
                width //= 2
                picks = ll.VectorType(ll.IntType(32), width)
                even, odd = (ll.Constant(picks, list(range(first, 2 * width, 2))) for first in (0, 1))
                parts = [self.merging.merge(b, [b.shuffle_vector(v, v, even) for v in parts[0]],
                                            [b.shuffle_vector(v, v, odd) for v in parts[0]])]
            parts = [[b.extract_element(v, ll.Constant(ll.IntType(32), 0)) for v in parts[0]]]
        else:
            parts = [list(lane) for lane in zip(*(self._lane_values(k) for k in range(len(self.types))))]
        while len(parts) > 1:
            parts = [self.merging.merge(b, x, y) for x, y in zip(parts[::2], parts[1::2])]
        results = [self.body.load(n_in + k, zero, r) for k, r in enumerate(self.op.results)]
        for k, (r, total) in enumerate(zip(self.op.results, self.merging.merge(b, results, parts[0]))):
            self.body.store(n_in + k, zero, r, total)

    # -- max, min, argmax, argmin in any order ---------------------------------------------
    def _unordered(self) -> bool:
        """Whether the lanes may be folded in any order (``_fold_lanes``): an argmax or argmin,
        or float max and min only (``PerResult`` that never rounds)."""
        if isinstance(self.merging, ArgBest):
            return True
        return all(c.op is not None and c.op.op_name in ("arith.maximumf", "arith.minimumf")
                   for c in self.merging.combiners)

    def _fold_lanes(self) -> None:
        """Each lane's value, its elements (``i % LANES == lane``, the last ``n % LANES`` in
        lane 0) taken in ``SETS`` interleaved chains of groups, merged at the end: independent
        chains that keep the vector units busy, where one chain waits on its own latency.

        An argmax or argmin gets exactly the documented lanes so: its merge breaks ties by
        index, so any order gives the same pair. A max or min gets the same *value* per lane
        (it does not round), and so the same bits unless that value is a zero (0.0 or -0.0,
        which compare equal) or a NaN (which payload): ``_zero_or_nan`` tells."""
        b, lanes = self.b, self.lanes
        chunk = SETS * lanes
        # One vector per chain (set) and result: promoted whole into a register, where an array
        # would become scalars for the SLP vectorizer to regroup (an array for i1, whose
        # vector packs bits, and for complex pairs).
        def chain_slots(t, init):
            if t == ll.IntType(1) or isinstance(t, ll.LiteralStructType):
                with b.goto_entry_block():
                    slots = b.alloca(t, size=lanes)
                for lane in range(lanes):
                    b.store(init, b.gep(slots, [extent(lane)], inbounds=True, source_etype=t))
                return slots
            with b.goto_entry_block():
                vector = b.alloca(ll.VectorType(t, lanes))
            b.store(ll.Constant(ll.VectorType(t, lanes), [init] * lanes), vector)
            return b.bitcast(vector, t.as_pointer())

        sets = [[chain_slots(t, init) for t, init in zip(self.types, self.inits)] for _ in range(SETS)]
        count = b.add(self.rest, self.leftover) if static_value(self.rest) is None else \
            extent(static_value(self.rest) + static_value(self.leftover))
        known = static_value(count)
        chunks = extent(known // chunk) if known is not None else b.udiv(count, extent(chunk))
        done = extent(known // chunk * chunk) if known is not None else b.mul(chunks, extent(chunk))

        def group(base, u):
            emit_loop(b, extent(lanes), lambda lane: self._step([*self.ivs, self._at(b.add(base, lane))],
                                                                lane, sets[u]))

        def run(c):
            base = b.mul(c, extent(chunk))
            with self._copied(self._at(base), extent(chunk)):
                for u in range(SETS):
                    group(b.add(base, extent(u * lanes)), u)

        if not self._fold_arg_best(sets, chunks) and not self._fold_max_min(sets, chunks, chain_slots):
            emit_loop(b, chunks, run)
        # The tail's groups, then the last n % LANES elements, into chain 0 (lane i % LANES, the
        # last ones lane 0): one copy of the body each, not one per chain.
        # (Fewer than a chunk's elements, vectorized by LLVM: its remainder is most of them, and
        # LLVM's unrolling of it made softmax's 102-long float32 rows 1.02x faster.)
        lane_of = lambda j: b.and_(j, extent(lanes - 1))  # noqa: E731  (LANES is a power of 2)
        emit_loop(b, self._minus(self.rest, done),
                  lambda j: self._step([*self.ivs, self._at(b.add(done, j))], lane_of(j), sets[0]),
                  unroll_remainder=True)
        emit_loop(b, self.leftover,
                  lambda i: self._step([*self.ivs, self._at(b.add(self.rest, i))], 0, sets[0]))

        def merge_chains(lane):
            def element(k, u):
                return b.load(b.gep(sets[u][k], [lane], inbounds=True, source_etype=self.types[k]),
                              typ=self.types[k])
            values = [element(k, 0) for k in range(len(self.types))]
            for u in range(1, SETS):
                values = self.merging.merge(b, values, [element(k, u) for k in range(len(self.types))])
            for k, value in enumerate(values):
                b.store(value, self.lane_slot(k, lane))

        emit_loop(b, extent(lanes), merge_chains)

    def _fold_max_min(self, sets, chunks: ll.Value, chain_slots) -> bool:
        """The whole chunks of a float max or min (``_fold_lanes``), a compare and a select an
        element (``x > acc ? x : acc``: x86's ``maxps``, one instruction) in place of the body's
        NaN-propagating combine (two compares, their ``or`` and a select, all on the chain).
        That form passes over a NaN element, so each pair of chains keeps a witness, set to NaN
        where either chain's element of a lane is one (one unordered compare for two elements,
        off the chains), and put into the first chain's values after the chunks: a lane that
        met a NaN then holds one, and ``_zero_or_nan`` sends the lanes to the documented order
        as before. Lanes without a NaN get the same values. False (nothing emitted) for other
        reductions, float16 (whose ties go the other way) and bodies whose combines are not
        separable from their elements."""
        parts = _max_min_elements(self.op, self.merging)
        if parts is None or not all(isinstance(t, (ll.FloatType, ll.DoubleType)) for t in self.types):
            return False
        b, lanes = self.b, self.lanes
        skipped, wanted, larger = parts
        witnesses = [[chain_slots(t, ll.Constant(t, 0.0)) for t in self.types] for _ in range(SETS // 2)]

        def slot(array, lane, t):
            return b.gep(array, [lane], inbounds=True, source_etype=t)

        def fold(u, lane, k, x):
            t = self.types[k]
            acc_slot = slot(sets[u][k], lane, t)
            acc = b.load(acc_slot, typ=t)
            b.store(b.select(b.fcmp_ordered(">" if larger[k] else "<", x, acc), x, acc), acc_slot)

        def run(c):
            base = b.mul(c, extent(SETS * lanes))
            with self._copied(self._at(base), extent(SETS * lanes)):
                for pair in range(SETS // 2):
                    def step(lane, pair=pair):
                        u, v = 2 * pair, 2 * pair + 1
                        xs, ys = (self.body.evaluate_without([*self.ivs, self._at(at)], skipped, wanted)
                                  for at in (b.add(base, b.add(extent(w * lanes), lane)) for w in (u, v)))
                        for k, (x, y) in enumerate(zip(xs, ys)):
                            fold(u, lane, k, x)
                            fold(v, lane, k, y)
                            t = self.types[k]
                            witness_slot = slot(witnesses[pair][k], lane, t)
                            b.store(b.select(b.fcmp_unordered("uno", x, y), ll.Constant(t, math.nan),
                                             b.load(witness_slot, typ=t)), witness_slot)

                    emit_loop(b, extent(lanes), step)

        emit_loop(b, chunks, run)
        for pair in range(SETS // 2):
            def mark(lane, pair=pair):
                for k, t in enumerate(self.types):
                    acc_slot = slot(sets[2 * pair][k], lane, t)
                    witness = b.load(slot(witnesses[pair][k], lane, t), typ=t)
                    acc = b.load(acc_slot, typ=t)
                    b.store(b.select(b.fcmp_unordered("uno", witness, witness), witness, acc), acc_slot)

            emit_loop(b, extent(lanes), mark)
        return True

    def _fold_arg_best(self, sets, chunks: ll.Value) -> bool:
        """The whole chunks of an argmax or argmin (``_fold_lanes``), each chain keeping its
        best value and, as an i32, the number of the chunk it was taken in (-1: none yet),
        made positions once at the end: half the width of the i64 positions the body selects,
        and no position computed per element. False (nothing emitted) where the element is not
        a function of the inputs alone, or a vector cannot hold it."""
        merging, op, b, lanes = self.merging, self.op, self.b, self.lanes
        if not isinstance(merging, ArgBest):
            return False
        n_in, args = len(op.operands), op.body.args
        best_type = self.types[1]
        if _slice(merging.element, {id(a) for a in args[:n_in]}) is None or best_type == ll.IntType(1) \
                or isinstance(best_type, ll.LiteralStructType):
            return False
        i32 = ll.IntType(32)
        with b.goto_entry_block():
            vectors = [b.alloca(ll.VectorType(i32, lanes)) for _ in range(SETS)]
        for vector in vectors:
            b.store(ll.Constant(ll.VectorType(i32, lanes), [-1] * lanes), vector)
        taken = [b.bitcast(v, i32.as_pointer()) for v in vectors]

        def slot(array, lane, t):
            return b.gep(array, [lane], inbounds=True, source_etype=t)

        # The element through the body's own emission (indexed reads, index checks, nested
        # regions: every kernel op a gather or a guard puts in it), without the ops that read
        # the best so far: the test and the two selects, which ``step`` does per lane.
        skipped = {id(inner) for inner in _slice(merging.take, {id(merging.element), id(merging.best)})}
        skipped |= {id(y.op) for y in op.body.terminator.operands}

        def element(point):
            return self.body.evaluate_without(point, skipped, [merging.element])[0]

        def run(c):
            number, base = b.trunc(c, i32), b.mul(c, extent(SETS * lanes))
            with self._copied(self._at(base), extent(SETS * lanes)):
                for u in range(SETS):
                    def step(lane, u=u):
                        x = element([*self.ivs, self._at(b.add(base, b.add(extent(u * lanes), lane)))])
                        best_slot, taken_slot = slot(sets[u][1], lane, best_type), slot(taken[u], lane, i32)
                        best = b.load(best_slot, typ=best_type)
                        take = merging._takes(b, x, best)
                        b.store(b.select(take, x, best), best_slot)
                        b.store(b.select(take, number, b.load(taken_slot, typ=i32)), taken_slot)

                    emit_loop(b, extent(lanes), step)

        emit_loop(b, chunks, run)
        for u in range(SETS):  # chunk numbers to positions
            def position(lane, u=u):
                number = b.load(slot(taken[u], lane, i32), typ=i32)
                first = b.mul(b.sext(number, I64), extent(SETS * lanes))
                within = b.add(first, b.add(extent(u * lanes), lane))
                index_slot = slot(sets[u][0], lane, self.types[0])
                never = b.icmp_signed("<", number, ll.Constant(i32, 0))
                b.store(b.select(never, b.load(index_slot, typ=self.types[0]), self._at(within)), index_slot)

            emit_loop(b, extent(lanes), position)
        return True

    def _minus(self, x: ll.Value, y: ll.Value) -> ll.Value:
        if static_value(x) is not None and static_value(y) is not None:
            return extent(static_value(x) - static_value(y))
        return self.b.sub(x, y)

    def _zero_or_nan(self) -> ll.Value:
        """i1: some lane holds a zero or a NaN (then only the documented order gives its bits)."""
        b = self.b
        with b.goto_entry_block():
            found = b.alloca(I8)
        b.store(ll.Constant(I8, 0), found)

        def check(lane):
            for k, t in enumerate(self.types):
                value = b.load(self.lane_slot(k, lane), typ=t)
                hit = b.zext(b.fcmp_unordered("==", value, ll.Constant(t, 0.0)), I8)
                b.store(b.or_(b.load(found, typ=I8), hit), found)

        emit_loop(b, extent(self.lanes), check)
        return b.icmp_unsigned("!=", b.load(found, typ=I8), ll.Constant(I8, 0))


# a column reduction's lanes and stack, on the stack: whole rows of 4096 float64 columns
SCRATCH_BYTES = 512 * 1024


class ColumnReduction:
    """A reduction along the second-innermost dim (``x.sum(axis=0)`` of a matrix) at outer
    point ``ivs``. Every column is summed in the row order of ``RowReduction`` with one lane:
    blocks of ``STEPS`` rows in order, the block totals combined by the cascade, the tail rows,
    the occupied levels from the lowest up, then added to the result.

    Columns go in tiles of adjacent columns, as many as let a tile's lanes and stack fit in
    ``SCRATCH_BYTES`` (the last tile may be narrower), so each row is read in long runs (runs of
    a few KiB cost a memory latency each: the prefetchers stop at page ends). A tile's lanes and
    stack live in memory, indexed by column, and each step is a loop over the tile's columns,
    which LLVM vectorizes; a column's order does not depend on the tile it falls in.
    """

    def __init__(self, b: ll.IRBuilder, op, body, merging: PerResult, rows: ll.Value,
                 columns: ll.Value, ivs: list, first: ll.Value | None = None,
                 first_row: ll.Value | None = None, most_rows: int | None = None):
        """Sums columns ``[first, columns)`` (``first`` None: from column 0) of ``rows`` rows
        from ``first_row`` (None: from row 0; a piece of the rows, ``column_pieces.py``), at
        most ``most_rows`` of them where ``rows`` is known only at run time (fewer levels of
        the stack: wider tiles)."""
        self.b, self.op, self.body, self.merging, self.ivs = b, op, body, merging, ivs
        self.columns, self.first, self.first_row = columns, first, first_row
        self.types = [value_type(r.type.element) for r in op.results]
        self.inits = [constant(r.type.element, init.value)
                      for r, init in zip(op.results, op.attributes["inits"])]
        size = sum(numpy_dtype(r.type.element).itemsize for r in op.results)
        known = static_value(rows)
        most = known if known is not None else most_rows
        if known is not None:
            self.blocks, self.start = extent(known // STEPS), extent(known // STEPS * STEPS)
            self.leftover = extent(known % STEPS)
        else:
            self.blocks = b.udiv(rows, extent(STEPS))
            self.start = b.mul(self.blocks, extent(STEPS))
            self.leftover = b.sub(rows, self.start)
        self.width = self._tile_width(most, size, static_value(columns))
        # the lanes and the stack's levels, ``width`` values each, in two buffers (one buffer
        # hid from LLVM that they never overlap: versioned loops, 1.7x the code)
        known_width = static_value(self.width)
        if known_width is not None:
            widest = known_width
            stack = known_width * ((most // STEPS).bit_length() + 1 if most is not None else LEVELS)
        else:  # the widest tile (one level), and the most values any row count stacks
            widest = min(SCRATCH_BYTES // (2 * size), max(1, static_value(columns) or SCRATCH_BYTES))
            stack = SCRATCH_BYTES // size - 1
        with b.goto_entry_block():
            self.lanes = [b.alloca(t, size=widest) for t in self.types]
            self.stacks = [b.alloca(t, size=stack) for t in self.types]
        # a tile's run of each row of an input strided along the columns, copied first: read in
        # place, LLVM versioned and unrolled these loops (0.5-0.8 s to compile)
        self.strided = StridedCopy(b, op, body, len(ivs) + 1, widest)

    def _tile_width(self, most: int | None, size: int, columns: int | None) -> ll.Value:
        """Columns per tile: as many as let the lanes and the stack's occupied levels fit in
        ``SCRATCH_BYTES``. Where the row count is known only at run time, so are its levels:
        a tile sized for 64 levels was 504 float32 columns, and runs of 2 KiB of each row cost
        a memory latency each (a 4096x4096 column sum at 0.3-0.5x NumPy's speed)."""
        if most is not None:
            width = max(1, SCRATCH_BYTES // (((most // STEPS).bit_length() + 2) * size))
            return extent(min(width, max(1, columns)) if columns is not None else width)
        if columns is not None and SCRATCH_BYTES // ((LEVELS + 1) * size) >= columns:
            return extent(max(1, columns))  # every column in one tile at any row count: a known loop
        b = self.b
        bits = b.sub(extent(64), b.ctlz(self.blocks, ll.Constant(ll.IntType(1), 0)))
        width = b.udiv(extent(SCRATCH_BYTES // size), b.add(bits, extent(2)))
        if columns is not None:
            most_columns = extent(max(1, columns))
            width = b.select(b.icmp_unsigned("<", most_columns, width), most_columns, width)
        return b.select(b.icmp_unsigned("<", width, extent(1)), extent(1), width)

    def _lane(self, k: int, c: ll.Value) -> ll.Value:
        return self.b.gep(self.lanes[k], [c], inbounds=True, source_etype=self.types[k])

    def _level(self, k: int, level: ll.Value, c: ll.Value) -> ll.Value:
        index = self.b.add(self.b.mul(level, self.width), c)
        return self.b.gep(self.stacks[k], [index], inbounds=True, source_etype=self.types[k])

    def _each_column(self, body) -> None:
        emit_loop(self.b, self.tile, body)

    def _reset(self) -> None:
        def reset(c):
            for k, init in enumerate(self.inits):
                self.b.store(init, self._lane(k, c))
        self._each_column(reset)

    def _row(self, row: ll.Value) -> None:
        b = self.b

        if self.first_row is not None:
            row = b.add(self.first_row, row)

        def step(c):
            accs = lambda: [b.load(self._lane(k, c), typ=t) for k, t in enumerate(self.types)]  # noqa: E731
            ys = self.body.evaluate([*self.ivs, row, b.add(self.column, c)], accs)
            for k, y in enumerate(ys):
                b.store(y, self._lane(k, c))

        with self.strided.copied([*self.ivs, row], self.column, self.tile):
            self._each_column(step)

    def _add_level(self, level: ll.Value) -> None:
        """lanes = stack[level] (+) lanes: the earlier blocks on the left."""
        b = self.b

        def add(c):
            earlier = [b.load(self._level(k, level, c), typ=t) for k, t in enumerate(self.types)]
            lanes = [b.load(self._lane(k, c), typ=t) for k, t in enumerate(self.types)]
            for k, value in enumerate(self.merging.merge(b, earlier, lanes)):
                b.store(value, self._lane(k, c))

        self._each_column(add)

    def _block(self, j: ll.Value) -> None:
        b = self.b
        self._reset()
        emit_loop(b, extent(STEPS), lambda s: self._row(b.add(b.mul(j, extent(STEPS)), s)),
                  unroll_count=BLOCK_ROWS_UNROLLED)
        top = _while_bit(b, j, False, self._add_level)

        def push(c):
            for k, t in enumerate(self.types):
                b.store(b.load(self._lane(k, c), typ=t), self._level(k, top, c))

        self._each_column(push)

    def _tile(self, column: ll.Value, keep=None) -> None:
        b = self.b
        self.column = column
        rest = b.sub(self.columns, column)
        width = self.tile_width
        self.tile = b.select(b.icmp_unsigned("<", rest, width), rest, width)
        emit_loop(b, self.blocks, self._block)
        self._reset()
        emit_loop(b, self.leftover, lambda i: self._row(b.add(self.start, i)))

        def add_level(level):
            bit = b.and_(b.lshr(self.blocks, level), ll.Constant(I64, 1))
            with b.if_then(b.icmp_unsigned("!=", bit, ll.Constant(I64, 0))):
                self._add_level(level)

        _while_bit(b, self.blocks, True, add_level)
        if keep is not None:
            self._each_column(lambda c: self._keep(keep, c, [
                b.load(self._lane(k, c), typ=t) for k, t in enumerate(self.types)]))
            return
        n_in = len(self.op.operands)

        def finish(c):
            at = [*self.ivs, ll.Constant(I64, 0), b.add(column, c)]
            results = [self.body.load(n_in + k, at, r) for k, r in enumerate(self.op.results)]
            lanes = [b.load(self._lane(k, c), typ=t) for k, t in enumerate(self.types)]
            for k, (r, total) in enumerate(zip(self.op.results, self.merging.merge(b, results, lanes))):
                self.body.store(n_in + k, at, r, total)

        self._each_column(finish)

    def _keep(self, keep, c: ll.Value, values: list) -> None:
        for k, value in enumerate(values):
            keep(k, self.b.add(self.column, c), value)

    def emit(self, keep=None) -> None:
        """Every column's sum added to its result; or, given ``keep``, ``keep(k, column,
        value)`` with each column's lanes not yet added to the result (a piece of the rows)."""
        b = self.b
        count = self.columns if self.first is None else b.sub(self.columns, self.first)
        known, most_width = static_value(count), static_value(self.width)
        if known is not None and most_width is not None:
            tiles = -(-known // most_width)
            width = extent(-(-known // tiles)) if tiles else self.width
            tiles = extent(tiles)
        else:  # tiles of equal width: a narrow last tile would walk every row for a few columns
            tiles = b.udiv(b.add(count, b.sub(self.width, extent(1))), self.width)
            most = b.select(b.icmp_unsigned(">", tiles, extent(1)), tiles, extent(1))
            width = b.udiv(b.add(count, b.sub(most, extent(1))), most)
        self.tile_width = width

        def column_of(t):
            column = b.mul(t, width)
            return column if self.first is None else b.add(self.first, column)

        emit_loop(b, tiles, lambda t: self._tile(column_of(t), keep))



# -- NumPy's pairwise sum --------------------------------------------------------------------
PAIRWISE_BLOCK = 128  # NumPy's PW_BLOCKSIZE: a leaf of the recursion
PAIRWISE_LANES = 8  # NumPy's accumulators r[0..7], for float32 as for float64


def numpy_pairwise(merging, op) -> bool:
    """Whether a reduction along the innermost dim is a plain float sum (every result
    ``acc + f(x)``, float32 or float64), which is summed in NumPy's own order
    (``PairwiseRow``) so that its bits are NumPy's."""
    return (isinstance(merging, PerResult)
            and all(c.op is not None and c.op.op_name == "arith.addf" for c in merging.combiners)
            and all(r.type.element.name in ("f32", "f64") for r in op.results))


# Leaves summed side by side (``PairwiseRow._batch``): a subtree's 4 leaves two levels down,
# else its 2 one level down (each twice), else a leaf alone (four times)
BATCH_LEAVES = 4


def _pairwise_half(b: ll.IRBuilder, n: ll.Value) -> ll.Value:
    """NumPy's split of a run of ``n``: ``n // 2`` rounded down to a multiple of 8."""
    return b.and_(b.lshr(n, extent(1)), extent(-PAIRWISE_LANES))


class PairwiseRow(RowReduction):
    """A float sum along the innermost dim in exactly the order of NumPy's ``pairwise_sum``
    (``numpy/_core/src/umath/loops_utils.h.src``), so that ``x.sum()``, ``x.mean()`` and
    their kin print NumPy's digits:

    - a row of ``n > 128`` is split at ``n2 = n // 2 - (n // 2) % 8``, each half summed so,
      and the halves added (left + right);
    - a leaf of ``m <= 128``: 8 accumulators, lane ``j`` adds elements ``j, j + 8, ...`` of the
      leaf's whole groups of 8, starting from the first group itself; the lanes combined
      ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``; the last ``m % 8`` elements added
      to that in order (``m < 8``, only a whole row: in order from -0.0, which adds exactly);
    - the row's total is added to the result (its init, 0.0: NumPy's identity, as NumPy's
      reduce adds ``pairwise_sum`` of the whole row to it).

    The recursion runs as a loop over an explicit stack (``LEVELS`` deep; a row of ``n``
    needs ``log2(n / 64)``): descend to the leftmost leaf, sum it, then while the frame
    above holds its left half add that on the left and pop, else park the sum there and
    descend into its right half. A leaf's 8 lanes are one vector (two on AVX2 hosts)."""

    def __init__(self, b, op, body, merging, trip_count: ll.Value, ivs: list,
                 first: ll.Value | None = None, short: bool = False):
        """``short``: the row has at most ``PAIRWISE_BLOCK`` elements at every size the code
        runs at (a tiny function's: ``backend.TINY_WORK``), so it is one leaf."""
        super().__init__(b, op, body, merging, trip_count, ivs, first)
        known = static_value(trip_count)
        self.short = short or (known is not None and known <= PAIRWISE_BLOCK)
        self.strided = StridedCopy(b, op, body, len(ivs), PAIRWISE_BLOCK * BATCH_LEAVES, self.lanes)

    @staticmethod
    def lanes_count(op) -> int:
        return PAIRWISE_LANES

    def emit(self, keep=None) -> None:
        """The row's total added to the result; with ``keep``, ``keep(k, total)`` instead (a
        subtree of a row cut into pieces: ``pairwise_pieces.py``)."""
        b, types = self.b, self.types
        if self.short:
            # one leaf is the whole tree: its nodes, batches and stack would never run, and
            # were most of a small sum's emission and of LLVM's work on it
            with b.goto_entry_block():
                self.totals = [b.alloca(t) for t in types]
            self._leaf(extent(0), self.trip_count)
            self._done(keep)
            return
        with b.goto_entry_block():
            pos, cur, depth = (b.alloca(I64) for _ in range(3))
            rights, parked = b.alloca(I64, size=LEVELS), b.alloca(I8, size=LEVELS)
            lefts = [b.alloca(t, size=LEVELS) for t in types]
            self.totals = [b.alloca(t) for t in types]
        b.store(extent(0), pos)
        b.store(self.trip_count, cur)
        b.store(extent(0), depth)
        fn = b.function
        descend, node, split, batch, ascend, check, merge, park, done = (
            fn.append_basic_block("pairwise." + n)
            for n in ("descend", "node", "split", "batch", "ascend", "check", "merge", "park", "done"))

        def at(array, t, d):
            return b.gep(array, [d], inbounds=True, source_etype=t)

        b.branch(descend)
        b.position_at_end(descend)
        c = b.load(cur, typ=I64)  # (a node of more than a batch's leaves splits at once)
        b.cbranch(b.icmp_unsigned(">", c, extent(PAIRWISE_BLOCK * BATCH_LEAVES)), split, node)
        b.position_at_end(node)
        count, slots = self._subtree(c)
        b.cbranch(b.icmp_unsigned("==", count, extent(0)), split, batch)

        b.position_at_end(split)  # the left half first; the right half's size on the stack
        half = _pairwise_half(b, c)
        d = b.load(depth, typ=I64)
        b.store(b.sub(c, half), at(rights, I64, d))
        b.store(ll.Constant(I8, 0), at(parked, I8, d))
        b.store(b.add(d, extent(1)), depth)
        b.store(half, cur)
        b.branch(descend)

        b.position_at_end(batch)
        first = b.load(pos, typ=I64)
        self._batch(first, c, slots, count)
        b.store(b.add(first, c), pos)
        b.branch(ascend)

        b.position_at_end(ascend)
        d = b.load(depth, typ=I64)
        b.cbranch(b.icmp_unsigned("==", d, extent(0)), done, check)
        b.position_at_end(check)
        up = b.sub(d, extent(1))
        b.cbranch(b.icmp_unsigned("!=", b.load(at(parked, I8, up), typ=I8), ll.Constant(I8, 0)), merge, park)

        b.position_at_end(merge)  # left half + right half
        left = [b.load(at(lefts[k], t, up), typ=t) for k, t in enumerate(types)]
        right = [b.load(total, typ=t) for total, t in zip(self.totals, types)]
        for total, value in zip(self.totals, self.merging.merge(b, left, right)):
            b.store(value, total)
        b.store(up, depth)
        b.branch(ascend)

        b.position_at_end(park)  # the left half waits; on to the right half
        for k, t in enumerate(types):
            b.store(b.load(self.totals[k], typ=t), at(lefts[k], t, up))
        b.store(ll.Constant(I8, 1), at(parked, I8, up))
        b.store(b.load(at(rights, I64, up), typ=I64), cur)
        b.branch(descend)

        b.position_at_end(done)
        self._done(keep)

    def _done(self, keep) -> None:
        """The row's total (``self.totals``) into the result, or to ``keep`` (``emit``)."""
        if keep is None:
            self.finish()
            return
        for k, (total, t) in enumerate(zip(self.totals, self.types)):
            keep(k, self.b.load(total, typ=t))

    def _subtree(self, c: ll.Value) -> tuple[ll.Value, list]:
        """How a node of ``c`` elements is summed: its leaves side by side (``_batch``) where
        its subtree is ``2**levels`` leaves (levels 2, else 1, else a leaf itself), as the
        count of leaves and ``BATCH_LEAVES`` slots ``(first, size)`` from the node's start
        (2 leaves fill them twice over, 1 four times); a count of 0: split it."""
        b = self.b

        def more(size):
            return b.icmp_unsigned(">", size, extent(PAIRWISE_BLOCK))

        def fits(size):
            return b.icmp_unsigned("<=", size, extent(PAIRWISE_BLOCK))

        left = _pairwise_half(b, c)
        right = b.sub(c, left)
        left_left, right_left = _pairwise_half(b, left), _pairwise_half(b, right)
        two = b.and_(more(c), b.and_(fits(left), fits(right)))
        four = b.and_(b.and_(more(c), b.and_(more(left), more(right))),
                      b.and_(fits(b.sub(left, left_left)), fits(b.sub(right, right_left))))
        count = b.select(four, extent(4), b.select(two, extent(2), b.zext(fits(c), I64)))
        zero = extent(0)
        by_four = [(zero, left_left), (left_left, b.sub(left, left_left)),
                   (left, right_left), (b.add(left, right_left), b.sub(right, right_left))]
        by_two = [(zero, left), (left, right)] * 2
        slots = [tuple(b.select(four, x4, b.select(two, x2, x1)) for x4, x2, x1 in zip(s4, s2, (zero, c)))
                 for s4, s2 in zip(by_four, by_two)]
        return count, slots

    def _batch(self, first: ll.Value, c: ll.Value, slots: list, count: ll.Value) -> None:
        """The node of ``c`` elements from ``first``, its ``count`` leaves (``_subtree``'s
        ``slots``) summed side by side and added as the tree adds them, into ``self.totals``."""
        b = self.b
        with self._copied(self._at(first), c):
            sums = self._leaves(first, c, slots, count)
        pairs = [self.merging.merge(b, x, y) for x, y in zip(sums[::2], sums[1::2])]
        four, two = self.merging.merge(b, *pairs), pairs[0]
        is_four, is_two = (b.icmp_unsigned("==", count, extent(n)) for n in (4, 2))
        for k, slot in enumerate(self.totals):
            b.store(b.select(is_four, four[k], b.select(is_two, two[k], sums[0][k])), slot)

    def _leaves(self, node: ll.Value, span: ll.Value, slots: list, count: ll.Value | None = None) -> list:
        """Leaves ``slots`` (``(first, m)`` from element ``node``, ``m <= 128``, one subtree's
        in order, ``span`` elements in all) summed side by side, each leaf's total per result;
        ``count``: how many of the slots hold a leaf of their own (the others repeat them; None:
        all). Their groups of 8 in one loop, each into its own lanes (a cheap body's every slot
        in one loop over the lanes, which LLVM's loop vectorizer makes one vector each: one copy
        of the body, where unrolled for the SLP vectorizer it was 8 or 16), then each leaf's
        last groups past the shortest's, their lane trees (all at once: ``_lane_trees``) and
        the tail of the last leaf, the only one that has one. A costly body's elements
        (``self.elements``: the math library) are computed first, for the whole span, in one
        loop LLVM vectorizes at full width and interleaves (``_elements_into_temps``); the
        groups then add those. Each lane adds its elements in NumPy's order either way: the
        same bits."""
        b, width, types, lanes = self.b, self.width, self.types, self.lanes
        ks = range(len(types))
        with b.goto_entry_block():
            sets = [[b.alloca(t, size=lanes) for t in types] for _ in slots]
            total = [b.alloca(t) for t in types]
        start = self._at(node)
        costly = self.elements is not None
        if costly:
            self._elements_into_temps(start, span)
        # The first leaf is the shortest: a left half is at most its right half, and NumPy's
        # split of a longer run is no shorter (so the groups all leaves have are the first's)
        groups = [b.lshr(m, extent(3)) for _, m in slots]
        common = groups[0]
        for arrays in sets:
            for k in ks:  # -0.0 + x is x, bit for bit: r[j] = a[j]
                self.store_lanes(k, ll.Constant(self._vector_type(k), [-0.0] * lanes), arrays[k])

        # A cheap body reads each leaf in place from its start frozen (``loops.freeze``): LLVM's
        # SLP vectorizer took a start's sum of splits for scattered elements and gathered them
        # (float64 sum(x * y) 2x slower); its loop vectorizer, which makes the groups since
        # session 55, loads whole vectors either way, in 3% less code with the freeze.
        firsts = [freeze(b, b.add(start, offset)) for offset, _ in slots]

        def add_group(arrays, first, offset, g):
            if not costly:
                self._group(b.add(first, b.mul(g, width)), arrays, unroll=False)
                return
            at = b.add(offset, b.mul(g, width))
            for k, c in enumerate(self.merging.combiners):
                x = self.load_lanes(k, self._temp(k, at))
                self.store_lanes(k, combine(b, c, self.load_lanes(k, arrays[k]), x), arrays[k])

        def add_groups(g):  # group ``g`` of every leaf; a cheap body's in one loop over the lanes
            if costly:
                for s in range(len(slots)):
                    add_group(sets[s], firsts[s], slots[s][0], g)
                return
            at = [b.add(first, b.mul(g, width)) for first in firsts]
            emit_loop(b, width, lambda lane: [self._step([*self.ivs, b.add(base, lane)], lane, arrays)
                                              for base, arrays in zip(at, sets)], unroll=False)

        emit_loop(b, common, add_groups)
        for s, (offset, _) in enumerate(slots[1:], 1):  # a longer leaf's groups past the first's
            emit_loop(b, b.sub(groups[s], common),
                      lambda i, s=s, offset=offset: add_group(sets[s], firsts[s], offset, b.add(common, i)),
                      unroll=costly)
        trees = self._lane_trees(sets)
        # The last m % 8 elements, in order: only the subtree's last leaf has any (a left half
        # is a multiple of 8, and so is a right half of one), so one copy, that leaf chosen.
        last = extent(len(slots) - 1) if count is None else b.sub(count, extent(1))

        def pick(values):
            value = values[0]
            for s, other in enumerate(values[1:], 1):
                value = b.select(b.icmp_unsigned("==", last, extent(s)), other, value)
            return value

        first, offset, m = pick(firsts), pick([at for at, _ in slots]), pick([m for _, m in slots])
        whole = b.and_(m, extent(-PAIRWISE_LANES))
        for k, slot in enumerate(total):
            b.store(pick([tree[k] for tree in trees]), slot)
        if costly:
            def step(i):
                for k, (c, t) in enumerate(zip(self.merging.combiners, types)):
                    x = b.load(self._temp(k, b.add(offset, b.add(whole, i))), typ=t)
                    b.store(combine(b, c, b.load(total[k], typ=t), x), total[k])
        else:
            def step(i):
                self._step([*self.ivs, b.add(first, b.add(whole, i))], 0, total)
        emit_loop(b, b.sub(m, whole), step, unroll=False)  # at most 7
        ends = [b.load(slot, typ=t) for slot, t in zip(total, types)]
        return [[b.select(b.icmp_unsigned("==", last, extent(s)), end, value)
                 for end, value in zip(ends, tree)] for s, tree in enumerate(trees)]

    def _temp(self, k: int, i: ll.Value) -> ll.Value:
        return self.b.gep(self.leaf_temps[k], [i], inbounds=True, source_etype=self.types[k])

    def _elements_into_temps(self, start: ll.Value, count: ll.Value) -> None:
        """The body's elements (without their combines) at ``start .. start + count - 1``
        (``count`` at most ``BATCH_LEAVES`` leaves) into ``self.leaf_temps``: one
        loop, its vector iterations side by side, so a math call's chains overlap."""
        b = self.b
        skipped, wanted = self.elements
        if getattr(self, "leaf_temps", None) is None:
            with b.goto_entry_block():
                most = PAIRWISE_BLOCK * BATCH_LEAVES
                self.leaf_temps = [b.alloca(t, size=most) for t in self.types]
        costly = self.body.cost_op
        interleave = SIDE_BY_SIDE
        if cost.spills_unrolled(self.op) or cost.spills_unrolled(costly):
            interleave = min(cost.math_interleave(self.op), cost.math_interleave(costly))

        def element(i):
            for k, x in enumerate(self.body.evaluate_without([*self.ivs, b.add(start, i)], skipped, wanted)):
                b.store(x, self._temp(k, i))

        def chunks(first, count, width, interleave=0):  # ``count`` whole vectors of ``width``
            def one(q):
                at = b.add(first, b.mul(q, extent(width)))
                emit_loop(b, extent(width), lambda j: element(b.add(at, j)), interleave=interleave,
                          unroll=False)
            emit_loop(b, count, one, unroll=False)

        # runs of 4 vectors of 16 (side by side), then vectors of 16, 8, then the rest (only a
        # row's last node has one): a loop of any count leaves up to 63 elements to scalar math
        wide = 2 * PAIRWISE_LANES
        run = wide * interleave
        runs = b.udiv(count, extent(run))
        chunks(extent(0), runs, run, interleave)
        done = b.mul(runs, extent(run))
        chunks(done, b.lshr(b.sub(count, done), extent(4)), wide)
        with b.if_then(b.icmp_unsigned("!=", b.and_(count, extent(PAIRWISE_LANES)), extent(0))):
            chunks(b.and_(count, extent(-wide)), extent(1), PAIRWISE_LANES)
        rest = b.and_(count, extent(-PAIRWISE_LANES))
        emit_loop(b, b.sub(count, rest), lambda i: element(b.add(rest, i)), unroll=False)

    def _leaf(self, first: ll.Value, m: ll.Value) -> None:
        """Elements ``first .. first + m - 1`` (``m <= 128``) summed as NumPy's leaf, into
        ``self.totals`` (a row under 8: in order from -0.0, which adds exactly)."""
        with self._copied(self._at(first), m):
            sums = self._leaves(first, m, [(extent(0), m)])
        for slot, value in zip(self.totals, sums[0]):
            self.b.store(value, slot)

    def _lane_trees(self, sets: list) -> list[list[ll.Value]]:
        """Each leaf's lanes (``sets``: a leaf's lane arrays each) combined as NumPy combines
        its 8 accumulators, ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`` (adjacent
        lanes, halving), every leaf at once: two leaves' vectors become one of their
        adjacent lanes' sums (the evens + the odds of the two side by side), so each level is
        one add for every leaf, not one a leaf (4 leaves: 3 shuffled adds in all, where a tree
        of 3 levels per leaf, each a chain of extracts and horizontal adds, took 30% of a
        float32 sum of 10^5). The same pairs in the same order: the same bits. A leaf's total
        per result, leaf by leaf."""
        b, ks = self.b, range(len(self.types))
        parts = [[self.load_lanes(k, arrays[k]) for k in ks] for arrays in sets]
        i32 = ll.IntType(32)

        def picks(width, first):
            return ll.Constant(ll.VectorType(i32, width), list(range(first, 2 * width, 2)))

        per = self.lanes  # lanes of each leaf, adjacent in its vector
        while per > 1:
            if len(parts) > 1:
                width = parts[0][0].type.count
                pairs = zip(parts[::2], parts[1::2])
            else:
                width = parts[0][0].type.count // 2
                pairs = [(parts[0], parts[0])]
            parts = [self.merging.merge(b, [b.shuffle_vector(u, v, picks(width, 0)) for u, v in zip(x, y)],
                                        [b.shuffle_vector(u, v, picks(width, 1)) for u, v in zip(x, y)])
                     for x, y in pairs]
            per //= 2
        width = parts[0][0].type.count
        return [[b.extract_element(parts[s // width][k], ll.Constant(i32, s % width)) for k in ks]
                for s in range(len(sets))]

    def finish(self) -> None:
        """result + the row's pairwise total."""
        b, n_in = self.b, len(self.op.operands)
        zero = [*self.ivs, ll.Constant(I64, 0)]
        totals = [b.load(total, typ=t) for total, t in zip(self.totals, self.types)]
        results = [self.body.load(n_in + k, zero, r) for k, r in enumerate(self.op.results)]
        for k, (r, total) in enumerate(zip(self.op.results, self.merging.merge(b, results, totals))):
            self.body.store(n_in + k, zero, r, total)
