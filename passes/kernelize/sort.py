"""The kernel form of ``array.sort`` and ``array.argsort``: a stable merge sort per lane.

One ``kernel.generic`` whose parallel dims are the operand's dims other than the sorted axis;
its body sorts one 1-d lane with scalar ``scf`` loops (docs/control-flow.md §5), so the sort is
native code, never a call back into Python. Every step is a loop, whatever the lane length
(the code does not grow with it, and its constant ``n`` is a run-time extent where the
function is size-generic):

1. insertion sort of runs of ``RUN`` elements, in place in buffer A;
2. bottom-up merge passes of widths RUN, 2 RUN, ... from one buffer into the other, two a
   step of a loop (A to B, B to A), each merge branch-free (a select picks the side, as one
   compare decides);
3. where the last step has one pass left, a copy from B to A in place of the second.

Both key buffers are indexed results that start as copies of the operand (the sorted result
is result 0: it is what replaces the op). ``argsort`` carries an int64 index buffer pair along
with the keys, results that start as nothing (no copy, no zeros to fill: every path writes
each position before it reads one): insertion writes each element's own position, merges move
positions with keys. Such a kernel is marked ``POSITIONS``.
Merging takes the right element only when it is strictly smaller, so the sort is stable; NaN
compares above every number, so NaNs gather at the end in input order, as NumPy's.

Kernels of lanes up to ``LANES_UP_TO`` long, ``NETWORK_FROM`` elements or more in all, are
marked ``sort_lanes_axis``: the CPU backend
sorts their lanes in groups by a sorting network instead (``codegen/cpu/sort_lanes.py``);
these loops remain the other backends' code and the reference it is tested against.

``array.partition``/``array.argpartition`` get the same kernel (a full sort meets their
contract), never the radix form, marked ``select_axis``/``select_kth`` for the CPU backend to
select their ranks per lane (``codegen/cpu/sort_select.py``), except where at least
``NETWORK_LANES`` lanes would go to the network, which sorts them faster.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import AffineMap, DenseAttr
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Operation, Region, Value
from jitcore.ir.dialects import array, kernel, scf
from jitcore.ir.types import ScalarType, TensorType, i1, i8, i16, i32, i64, index
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.complex import ComplexEmitter
from jitcore.passes.kernelize.shape import broadcast_in_dim

RUN = 16  # insertion-sorted run length: short enough that its quadratic cost stays small
POSITIONS = "sort_positions"  # the attribute of an argsort's or argpartition's kernel


def _emitter(block: Block) -> ComplexEmitter:
    return ComplexEmitter(Builder(block))


def _for(e, lb: Value, ub: Value, step: Value, inits: list[Value], body) -> list[Value]:
    """``scf.for`` over ``index`` values; ``body(e, iv, carried)`` returns the next carried."""
    block = Block((index, *(v.type for v in inits)))
    inner = _emitter(block)
    inner.b.create(scf.YieldOp, list(body(inner, block.args[0], list(block.args[1:]))))
    return list(e.b.create(scf.ForOp, [lb, ub, step, *inits], [v.type for v in inits], None,
                           [Region([block])]).results)


def _while(e, inits: list[Value], cond, body) -> list[Value]:
    """``scf.while``: ``cond(e, carried)`` gives the i1 to go on, ``body`` the next carried."""
    types = tuple(v.type for v in inits)
    cond_block, body_block = Block(types), Block(types)
    c = _emitter(cond_block)
    c.b.create(scf.ConditionOp, [cond(c, list(cond_block.args))])
    b = _emitter(body_block)
    b.b.create(scf.YieldOp, list(body(b, list(body_block.args))))
    return list(e.b.create(scf.WhileOp, list(inits), list(types), None,
                           [Region([cond_block]), Region([body_block])]).results)


class _Lane:
    """Reads and writes of one lane of the kernel's indexed results, and the sort's order."""

    def __init__(self, outer: list[Value], axis: int, n: int, count: Value | None = None):
        self.outer, self.axis, self.n, self.count = outer, axis, n, count

    def end(self, e) -> Value:
        """Where the sorted part ends (index): the lane's length, or ``array.head_sort``'s
        run-time count (at most the length, which bounds every read)."""
        return e.const(self.n, index) if self.count is None else self.count

    def at(self, p: Value) -> list[Value]:
        return [*self.outer[: self.axis], p, *self.outer[self.axis:]]

    def read(self, e, result: int, p: Value) -> Value:
        t = self.types[result]
        return e.b.create(kernel.ExtractResultOp, self.at(p), [t], {"result": result}).results[0]

    def write(self, e, result: int, p: Value, v: Value) -> None:
        e.b.create(kernel.InsertOp, [v, *self.at(p)], [], {"result": result, "mode": "set"})

    def read_counts(self, e, result: int, slot: Value) -> Value:
        """Counter ``slot`` of this lane (the counts' last dim, after the outer dims)."""
        return e.b.create(kernel.ExtractResultOp, [*self.outer, slot], [i64], {"result": result}).results[0]

    def write_counts(self, e, result: int, slot: Value, v: Value, mode: str = "set") -> None:
        e.b.create(kernel.InsertOp, [v, *self.outer, slot], [], {"result": result, "mode": mode})


def less(e, a: Value, b: Value) -> Value:
    """i1: ``a`` sorts strictly before ``b`` (NaN after every number, NaN not before NaN)."""
    lt = e.cmp("lt", a, b)
    if not a.type.is_float:
        return lt
    nan_b = e.isnan(b)
    num_a = e.op("arith.cmpf", a, a, result=i1, predicate="ord")
    return e.op("arith.ori", lt, e.op("arith.andi", nan_b, num_a))


def _sort_lane(e, lane: _Lane, keys: tuple[int, int], positions: tuple[int, int] | None) -> None:
    n = lane.n
    c = lambda v: e.const(v, index)  # noqa: E731  (an index constant)
    a_key, a_pos = keys[0], positions[0] if positions else None

    def run(e, lo, _):
        hi = e.op("arith.minsi", e.op("arith.addi", lo, e.const(RUN, index)), lane.end(e))
        if positions:
            lane.write(e, a_pos, lo, _to_i64(e, lo))

        def insert(e, i, _):
            v = lane.read(e, a_key, i)

            def go_on(e, carried):
                (j,) = carried
                before = e.op("arith.maxsi", e.op("arith.subi", j, e.const(1, index)), lo)
                above = e.op("arith.cmpi", j, lo, result=i1, predicate="sgt")
                return e.op("arith.andi", above, less(e, v, lane.read(e, a_key, before)))

            def shift(e, carried):
                (j,) = carried
                before = e.op("arith.subi", j, e.const(1, index))
                lane.write(e, a_key, j, lane.read(e, a_key, before))
                if positions:
                    lane.write(e, a_pos, j, lane.read(e, a_pos, before))
                return [before]

            (j,) = _while(e, [i], go_on, shift)
            lane.write(e, a_key, j, v)
            if positions:
                lane.write(e, a_pos, j, _to_i64(e, i))
            return []

        _for(e, e.op("arith.addi", lo, e.const(1, index)), hi, e.const(1, index), [], insert)
        return []

    _for(e, c(0), lane.end(e), c(RUN), [], run)
    pos = positions or (None, None)

    def go_on(e, carried):
        return e.op("arith.cmpi", carried[0], lane.end(e), result=i1, predicate="slt")

    def two_passes(e, carried):
        """A -> B at width w, then B -> A at 2 w, or B copied back into A where no pass is
        left: a loop whose code does not depend on how many passes ``n`` takes."""
        (w,) = carried
        _merge_pass(e, lane, w, keys[0], keys[1], pos[0], pos[1])
        w2 = e.op("arith.addi", w, w)
        more = e.op("arith.cmpi", w2, lane.end(e), result=i1, predicate="slt")
        _if(e, more, lambda e: _merge_pass(e, lane, w2, keys[1], keys[0], pos[1], pos[0]),
            lambda e: _copy(e, lane, keys[1], keys[0], pos[1], pos[0]))
        return [e.op("arith.addi", w2, w2)]

    if n > RUN:
        _while(e, [c(RUN)], go_on, two_passes)


def _to_i64(e, v: Value) -> Value:
    """An ``index`` value as i64 (the same 64 bits)."""
    return e.op("arith.bitcast", v, result=i64)


def _merge_pass(e, lane: _Lane, width: Value, src_key: int, dst_key: int, src_pos, dst_pos) -> None:
    """Merge the runs of ``width`` (an index value: the passes are a loop) from one buffer
    into the other."""
    n = lane.n
    double = e.op("arith.addi", width, width)

    def merge(e, lo, _):
        mid = e.op("arith.minsi", e.op("arith.addi", lo, width), lane.end(e))
        hi = e.op("arith.minsi", e.op("arith.addi", lo, double), lane.end(e))
        last = e.const(n - 1, index)  # (reads clamped in range; none past ``end`` is taken)

        def go_on(e, carried):
            return e.op("arith.cmpi", carried[2], hi, result=i1, predicate="slt")

        def step(e, carried):
            i, j, k = carried
            ic, jc = e.op("arith.minsi", i, last), e.op("arith.minsi", j, last)
            left, right = lane.read(e, src_key, ic), lane.read(e, src_key, jc)
            left_done = e.op("arith.cmpi", i, mid, result=i1, predicate="sge")
            right_open = e.op("arith.cmpi", j, hi, result=i1, predicate="slt")
            take_right = e.op("arith.andi", right_open,
                              e.op("arith.ori", left_done, less(e, right, left)))
            lane.write(e, dst_key, k, e.select(take_right, right, left))
            if src_pos is not None:
                lane.write(e, dst_pos, k, e.select(take_right, lane.read(e, src_pos, jc),
                                                   lane.read(e, src_pos, ic)))
            one, zero = e.const(1, index), e.const(0, index)
            right_step = e.select(take_right, one, zero)
            return [e.op("arith.addi", i, e.op("arith.subi", one, right_step)),
                    e.op("arith.addi", j, right_step), e.op("arith.addi", k, one)]

        _while(e, [lo, mid, lo], go_on, step)
        return []

    def more(e, carried):
        return e.op("arith.cmpi", carried[0], lane.end(e), result=i1, predicate="slt")

    def next_pair(e, carried):  # a while, not a for: a run-time step would need a zero check
        merge(e, carried[0], [])
        return [e.op("arith.addi", carried[0], double)]

    _while(e, [e.const(0, index)], more, next_pair)


def _sort_key(e, v: Value) -> Value:
    """``v``'s bits as an unsigned integer (signless, of its width) that orders as ``v`` sorts:
    a float's sign flips the rest of its bits, -0.0 keys as 0.0 (they are equal) and every NaN
    as all ones (after +inf); a signed integer's sign bit flips; bool widens to i8."""
    t = v.type
    if t.is_bool:
        return e.op("arith.extui", v, result=i8)
    width = t.bitwidth
    it = _INT_OF_WIDTH[width]
    sign = e.const(-(1 << (width - 1)), it)
    if t.is_unsigned:
        return v
    if not t.is_float:
        return e.op("arith.xori", v, e.const(-(1 << (width - 1)), t))
    bits = e.op("arith.bitcast", v, result=it)
    negative = e.op("arith.shrsi", bits, e.const(width - 1, it))  # all ones for a negative sign
    key = e.op("arith.xori", bits, e.op("arith.ori", negative, sign))
    zero = e.op("arith.cmpf", v, e.const(0.0, t), result=i1, predicate="oeq")
    key = e.select(zero, sign, key)
    return e.select(e.isnan(v), e.const(-1, it), key)


_INT_OF_WIDTH = {8: i8, 16: i16, 32: i32, 64: i64}


def digit_bits(key_bits: int) -> int:
    """Bits per radix pass, as measured on 10^6 keys: 11 for 32-bit keys (3 passes; 2048
    counters fit in L1), 8 for the others (64-bit keys: 8 passes beat 6 of 11 bits, whose 2048
    scatter streams thrash the cache; 8- and 16-bit keys: one or two passes)."""
    return 11 if key_bits == 32 else 8


def _digit(e, key: Value, p: int) -> Value:
    """Digit ``p`` of ``key`` (``digit_bits`` wide, from the low end) as an index."""
    width = digit_bits(key.type.bitwidth)
    shifted = e.op("arith.shrui", key, e.const(width * p, key.type)) if p else key
    byte = e.op("arith.andi", shifted, e.const((1 << width) - 1, key.type))
    if key.type.bitwidth == 64:
        return e.op("arith.bitcast", byte, result=index)
    return e.op("arith.extui", byte, result=index)


def _if(e, cond: Value, then_body, else_body=None) -> None:
    """``scf.if`` without results; each body is ``body(e)`` emitting into its branch."""
    if_op = e.b.create(scf.IfOp, [cond], [], None, [Region([Block(())]), Region([Block(())])])
    for region, body in zip(if_op.regions, (then_body, else_body)):
        inner = _emitter(region.block)
        if body is not None:
            body(inner)
        inner.b.create(scf.YieldOp, [])


def _key_range(e, lane: _Lane, src: int, positions) -> tuple[Value, Value]:
    """The lane's smallest sort key and its span (largest - smallest), in one read that also
    writes each element's own position when sorting with positions."""
    c = lambda v: e.const(v, index)  # noqa: E731  (an index constant)

    def scan(e, k, carried):
        key = _sort_key(e, lane.read(e, src, k))
        if positions:
            lane.write(e, positions[0], k, _to_i64(e, k))
        return [e.op("arith.minui", carried[0], key), e.op("arith.maxui", carried[1], key)]

    kt = _sort_key(e, lane.read(e, src, c(0))).type
    lo, hi = _for(e, c(0), c(lane.n), c(1), [e.const(-1, kt), e.const(0, kt)], scan)
    return lo, e.op("arith.subi", hi, lo)


def _int_lane(e, lane: _Lane, keys: tuple[int, int], positions, counts: int, passes: int) -> None:
    """A long lane: radix-sorted, except that a sort of ints (no positions) whose span fits in
    the counters is a counting sort (equal ints are indistinguishable, so no order to keep)."""
    ranged = lane.key_float is False and passes > 1
    if not ranged:
        _radix_lane(e, lane, keys, positions, counts, passes, None, None)
        return
    lo, span = _key_range(e, lane, keys[0], positions)
    if positions:
        _radix_lane(e, lane, keys, positions, counts, passes, lo, span)
        return
    fits = e.op("arith.cmpi", span, e.const(lane.count_slots, span.type), result=i1, predicate="ult")
    _if(e, fits, lambda e: _counting_lane(e, lane, keys[0], counts, lo, span),
        lambda e: _radix_lane(e, lane, keys, positions, counts, passes, lo, span))


def _counting_lane(e, lane: _Lane, key: int, counts: int, lo: Value, span: Value) -> None:
    """Counting sort of a lane of ints whose keys lie in ``lo .. lo + span`` (span below the
    counter count): count each key - lo, then write each key's value as often as it occurred."""
    c = lambda v: e.const(v, index)  # noqa: E731  (an index constant)
    slots = e.op("arith.addi", _key_index(e, span), c(1))

    def clear(e, b, _):
        lane.write_counts(e, counts, b, e.const(0, i64))
        return []

    _for(e, c(0), slots, c(1), [], clear)

    def count(e, k, _):
        slot = _key_index(e, e.op("arith.subi", _sort_key(e, lane.read(e, key, k)), lo))
        lane.write_counts(e, counts, slot, e.const(1, i64), mode="add")
        return []

    _for(e, c(0), c(lane.n), c(1), [], count)

    def emit(e, b, carried):
        at, k = carried
        value = _from_sort_key(e, k)
        upto = e.op("arith.addi", at, e.op("arith.bitcast", lane.read_counts(e, counts, b), result=index))

        def put(e, j, _):
            lane.write(e, key, j, value)
            return []

        _for(e, at, upto, e.const(1, index), [], put)
        return [upto, e.op("arith.addi", k, e.const(1, k.type))]

    _for(e, c(0), slots, c(1), [c(0), lo], emit)


def _key_index(e, key: Value) -> Value:
    """An unsigned key (below the counter count) as an index."""
    if key.type.bitwidth == 64:
        return e.op("arith.bitcast", key, result=index)
    return e.op("arith.extui", key, result=index)


def _from_sort_key(e, key: Value) -> Value:
    """The int whose ``_sort_key`` is ``key`` (a signed int's sign bit flips back)."""
    if key.type.is_unsigned:
        return key
    return e.op("arith.xori", key, e.const(-(1 << (key.type.bitwidth - 1)), key.type))


def _radix_lane(e, lane: _Lane, keys: tuple[int, int], positions, counts: int, passes: int,
                lo: Value | None, span: Value | None) -> None:
    """LSD radix sort of one lane: one read counts every digit of every key, then per digit a
    stable scatter from one buffer into the other (a digit that is the same for the whole lane
    is a plain copy instead); an odd number of passes ends with a copy back into buffer A.

    Integer keys first subtract the lane's smallest key, and a digit above the span's highest
    set bit is skipped outright (no copy): small ints of either sign need only their low
    digits (a sign flip would otherwise make every high byte differ between -1 and 0)."""
    n, bits = lane.n, digit_bits(lane.key_bits)
    buckets = 1 << bits
    c = lambda v: e.const(v, index)  # noqa: E731  (an index constant)
    one64 = e.const(1, i64)
    ranged = lo is not None

    def key_of(e, v):
        key = _sort_key(e, v)
        return e.op("arith.subi", key, lo) if ranged else key

    def clear(e, b, _):
        lane.write_counts(e, counts, b, e.const(0, i64))
        return []

    _for(e, c(0), c(buckets * passes), c(1), [], clear)

    def count(e, k, _):
        key = key_of(e, lane.read(e, keys[0], k))
        if positions and not ranged:
            lane.write(e, positions[0], k, _to_i64(e, k))
        for p in range(passes):
            slot = e.op("arith.addi", _digit(e, key, p), e.const(p * buckets, index))
            lane.write_counts(e, counts, slot, one64, mode="add")
        return []

    _for(e, c(0), c(n), c(1), [], count)

    def one_pass(e, p, src, dst):
        base = p * buckets

        def prefix(e, b, carried):
            total, uniform = carried
            slot = e.op("arith.addi", b, e.const(base, index))
            here = lane.read_counts(e, counts, slot)
            lane.write_counts(e, counts, slot, total)
            full = e.op("arith.cmpi", here, e.const(n, i64), result=i1, predicate="eq")
            return [e.op("arith.addi", total, here), e.op("arith.ori", uniform, full)]

        _, uniform = _for(e, e.const(0, index), e.const(buckets, index), e.const(1, index),
                          [e.const(0, i64), e.const(False, i1)], prefix)

        def scatter(e, k, _):
            v = lane.read(e, keys[src], k)
            slot = e.op("arith.addi", _digit(e, key_of(e, v), p), e.const(base, index))
            at = lane.read_counts(e, counts, slot)
            lane.write_counts(e, counts, slot, e.op("arith.addi", at, one64))
            to = e.op("arith.bitcast", at, result=index)
            lane.write(e, keys[dst], to, v)
            if positions:
                lane.write(e, positions[dst], to, lane.read(e, positions[src], k))
            return []

        _if(e, uniform,
            lambda e: _copy(e, lane, keys[src], keys[dst], positions and positions[src],
                            positions and positions[dst]),
            lambda e: _for(e, e.const(0, index), e.const(n, index), e.const(1, index), [], scatter))

    odd = e.const(True, i1)  # (ranged) whether the sorted lane ends in buffer B: pass 0 ran
    src, dst = 0, 1
    for p in range(passes):
        if ranged and p > 0:  # run pass p only when the span has bits at or above digit p
            high = e.op("arith.shrui", span, e.const(bits * p, span.type))
            needed = e.op("arith.cmpi", high, e.const(0, span.type), result=i1, predicate="ne")
            _if(e, needed, lambda e, p=p, src=src, dst=dst: one_pass(e, p, src, dst))
            # every pass that runs moves the lane to the other buffer
            odd = e.op("arith.xori", odd, needed)
        else:
            one_pass(e, p, src, dst)
        src, dst = dst, src
    if ranged:
        _if(e, odd, lambda e: _copy(e, lane, keys[1], keys[0], positions and positions[1],
                                    positions and positions[0]))
    elif src == 1:
        _copy(e, lane, keys[1], keys[0], positions and positions[1], positions and positions[0])


def _copy(e, lane: _Lane, src_key: int, dst_key: int, src_pos, dst_pos) -> None:
    """Copy a lane from one buffer (and its positions) into the other."""
    def copy(e, k, _):
        lane.write(e, dst_key, k, lane.read(e, src_key, k))
        if src_pos is not None:
            lane.write(e, dst_pos, k, lane.read(e, src_pos, k))
        return []

    _for(e, e.const(0, index), lane.end(e), e.const(1, index), [], copy)


def _zeros_like(op: Operation, t: TensorType) -> Value:
    """A materialised int64 buffer of ``t``'s shape (for the position buffers to start from)."""
    b = Builder.before_op(op)
    zero = b.create(array.ConstantOp, [], [TensorType((), i64)],
                    {"value": DenseAttr(np.zeros((), np.int64), TensorType((), i64))}).result
    bcast = b.create(array.BroadcastInDimOp, [zero], [t], {"broadcast_dimensions": ()})
    k = broadcast_in_dim(bcast)
    bcast.result.replace_all_uses_with(k.results[0])
    bcast.erase()
    return k.results[0]


RADIX_FROM = 2048  # lanes at least this long sort by radix; shorter ones merge (less setup)
# Lanes up to this long are marked for codegen/cpu/sort_lanes.py (whose CPU code sorts groups of
# lanes by a sorting network instead of this kernel's loops): measured faster than the radix
# routines at 4096 and 8192 for every width (sort32), and since its stages run several to a
# pass (sort35) at 10^4 and 16384 too, sorts and argsorts of 32- and 64-bit keys (100x10000
# float64: 4.8 ms CPU against 10.5 by buckets; argsort 16 against 27; docs/performance.md).
LANES_UP_TO = 16384
# ... but a partition of lanes up to this long only (longer ones select: sort34 measured).
PARTITIONS_UP_TO = 8192
# ... when the sort holds at least this many elements (at the traced shape): the network's code
# takes 0.15-0.2 s more to compile than these loops, which sort a thousand elements in tens of
# microseconds (a sort of 20 floats compiled in 0.19 s by the network, 0.05 s by the loops).
NETWORK_FROM = 1024
# ... or fewer lanes than the network's group of lanes (512 bits of keys, at most 16), each at
# least this long: each is sorted alone as columns of vectors (codegen/cpu/sort_short.py; 1-d
# sorts of 100..1000 ran 0.15-0.5x NumPy's speed by the loops). Up to 32 the loops are as fast
# (1.3-1.8x NumPy's call at 32, 0.8-1.0x at 40-48) and compile in a quarter of the time
# (0.06 s against 0.2-0.3: docs/performance.md, sort37).
ALONE_FROM = 33


def _network_lanes(lanes: int, n: int, key_bits: int) -> bool:
    """Whether ``lanes`` lanes of ``n`` keys are marked for the CPU's networks."""
    if not 1 < n <= LANES_UP_TO:
        return False
    return lanes * n >= NETWORK_FROM or (lanes < min(512 // key_bits, 16) and n >= ALONE_FROM)


# A partition of at least this many lanes that the network would sort is sorted by it (a group
# of lanes at a time) rather than selected lane by lane: medians of 2000x512 .. 125x8192
# float64 rows measured 2.7-5.5 ms CPU by the network against 5.6-7.1 by selection
# (docs/performance.md, select33). Fewer lanes than a group leave the network's rows part empty.
NETWORK_LANES = 16


def _key_bits(t: ScalarType) -> int:
    return 8 if t.is_bool else t.bitwidth


def sort(op: array.SortOp | array.ArgSortOp | array.PartitionOp | array.ArgPartitionOp
         | array.PartitionAtOp) -> kernel.GenericOp:
    """A sort's kernel; a partition's is the full sort (which meets its contract) by merges,
    marked for ``codegen/cpu/sort_select.py`` to select its ranks instead (``partition_at``:
    its ranks operand then the kernel's last operand, which only that code reads)."""
    x = op.operands[0]
    shape, axis = x.type.shape, op.axis
    n = shape[axis]
    outer_dims = [d for d in range(len(shape)) if d != axis]
    outer_shape = tuple(shape[d] for d in outer_dims)
    selects = isinstance(op, (array.PartitionOp, array.ArgPartitionOp, array.PartitionAtOp))
    run_time_ranks = isinstance(op, array.PartitionAtOp)
    radix = n >= RADIX_FROM and not selects
    key_bits = _key_bits(x.type.element)
    passes = -(-key_bits // digit_bits(key_bits))
    kb = KernelBuilder(len(outer_dims))
    with_positions = isinstance(op, (array.ArgSortOp, array.ArgPartitionOp))
    kb.indexed_input(x)
    # a single lane of 2^16 or more ints also counting-sorts spans up to 2^16 (512 KiB of counters)
    lanes = int(np.prod(outer_shape, dtype=np.int64))
    slots = passes << digit_bits(key_bits)
    if lanes == 1 and n >= 1 << 16:
        slots = max(slots, 1 << 16)
    counts_type = TensorType((*outer_shape, slots), i64)
    if radix:
        kb.indexed_input(_zeros_like(op, counts_type))
    network = _network_lanes(lanes, n, key_bits)
    selected = selects and not (network and n <= PARTITIONS_UP_TO and lanes >= NETWORK_LANES)
    if run_time_ranks and selected:
        kb.indexed_input(op.operands[1])
    outer = [kb.index(d) for d in range(len(outer_dims))]
    lane = _Lane(outer, axis, n)
    lane.key_bits = key_bits
    lane.count_slots = slots
    lane.key_float = x.type.element.is_float or x.type.element.is_bool
    if n <= RUN:  # one insertion-sorted run: no second buffer
        if with_positions:  # results: positions (written, not copied), keys
            result_types, copies, keys, positions = [op.result_type, x.type], [-1, 0], (1,), (0,)
        else:
            result_types, copies, keys, positions = [x.type], [0], (0,), None
    elif with_positions:  # results: positions A, B, keys A, B
        result_types = [op.result_type, op.result_type, x.type, x.type]
        copies, keys, positions = [-1, -1, 0, 0], (2, 3), (0, 1)
    else:
        result_types, copies, keys, positions = [x.type, x.type], [0, 0], (0, 1), None
    if radix:  # and the byte counters, a last indexed result
        result_types.append(counts_type)
        copies.append(len(kb.operands) - 1)
    lane.types = [t.element for t in result_types]
    if radix:
        _int_lane(kb.emit, lane, keys, positions, len(result_types) - 1, passes)
    elif n > 1:
        _sort_lane(kb.emit, lane, keys, positions)
    elif n == 1 and positions:  # a lane of one: its position
        lane.write(kb.emit, positions[0], kb.emit.const(0, index), kb.emit.const(0, i64))
    empty = AffineMap(len(outer_dims), ())
    generic = kb.finish(op, result_types, [empty] * len(result_types), ["parallel"] * len(outer_dims),
                     [], domain=list(outer_shape), copy_inputs=copies,
                     indexed_results=list(range(len(result_types))))
    if with_positions:  # the positions start as nothing; the codegen's argsorts (positions first)
        generic.attributes["fills"] = tuple(k for k, c in enumerate(copies) if c < 0)
        generic.attributes[POSITIONS] = 1
    if radix:  # codegen/cpu/sort.py may emit this kernel as a native radix routine
        generic.attributes["sort_axis"] = axis
    if selected:  # codegen/cpu/sort_select.py
        generic.attributes["select_axis"] = axis
        if run_time_ranks:  # how many ranks each lane has
            generic.attributes["select_ranks"] = op.operands[1].type.shape[-1]
        else:
            generic.attributes["select_kth"] = tuple(op.kth)
    elif network:  # codegen/cpu/sort_lanes.py: a network
        generic.attributes["sort_lanes_axis"] = axis
    return generic




HEAD_SORT = "head_sort"  # an array.head_sort's kernel: the number of its count operand


def head_sort(op: array.HeadSortOp) -> kernel.GenericOp:
    """``array.head_sort``'s kernel: the merge sort over the first ``count`` elements (read
    whole, an indexed input, so nothing fuses into it). Marked ``HEAD_SORT`` for the CPU
    backend, which sorts them by its own routines (``codegen/cpu/sort.py``)."""
    x, count = op.operands
    n = x.type.shape[0]
    kb = KernelBuilder(0)
    kb.indexed_input(x)
    held = kb.indexed_input(count)
    lane = _Lane([], 0, n, kb.emit.convert(kb.extract(held, []), index))
    lane.types = [x.type.element] * (1 if n <= RUN else 2)
    if n > 1:
        _sort_lane(kb.emit, lane, tuple(range(len(lane.types))), None)
    generic = kb.finish(op, [x.type] * len(lane.types), [AffineMap(0, ())] * len(lane.types), [], [],
                        domain=[], copy_inputs=[0] * len(lane.types),
                        indexed_results=list(range(len(lane.types))))
    generic.attributes[HEAD_SORT] = kb.operands.index(count)
    return generic


GALLOP_UP_TO = 8  # the widest step a search from the last answer takes before it bisects (NumPy:
# 8 too; and a constant up to 2 * codegen NEAR stays one, not a size-derived symbol)


SEARCH_BLOCK = 8  # values searched side by side where the lane is not in order
SEARCH_IN_ORDER = SEARCH_BLOCK - 2  # a block with this many answers next to the one before
# (the same or the next) is read as sorted: the next block starts from the last answer


def searchsorted(op: array.SearchSortedOp) -> kernel.GenericOp:
    """A binary search per value in the sort's order (``less``), so NaN values land after
    every number. Along the values' last axis, in blocks of ``SEARCH_BLOCK`` values:

    - where the lane looks sorted (the last block's answers mostly the same as or next to the
      one before), each search starts from the previous value's answer, as NumPy's ``interp``
      does (``binary_search_with_guess``; ``_near``): sorted values cost two reads each, not
      log2(len(a)), behind branches the processor predicts;
    - elsewhere the block's values are bisected side by side, without branches (``_bisect_block``):
      a fixed number of halvings set by len(a), each a read and a select per value, so the
      searches of unsorted values overlap their reads instead of mispredicting.

    Any value's answer is the same either way; the few values past a lane's last whole block
    are bisected one by one."""
    a, v = op.operands
    rank = v.type.rank
    if rank == 0 or a.type.shape[0] == 0:  # one value, or nothing to read: the plain search
        return _plain_search(op)
    kb = KernelBuilder(rank - 1)
    table = kb.indexed_input(a)
    values = kb.indexed_input(v)
    outer = [kb.index(d) for d in range(rank - 1)]
    e = kb.emit
    n = e.const(a.type.shape[0], index)
    lane = v.type.shape[-1]

    def value(e, k):
        return e.b.create(kernel.ExtractOp, [values, *outer, k], [v.type.element]).results[0]

    def store(e, k, found):
        e.b.create(kernel.InsertOp, [_to_i64(e, found), *outer, k], [], {"result": 0, "mode": "set"})

    def answer(e, k):
        stored = e.b.create(kernel.ExtractResultOp, [*outer, k], [i64], {"result": 0}).results[0]
        return e.op("arith.bitcast", stored, result=index)

    def close(e, found, guess):
        apart = e.op("arith.subi", e.op("arith.maxsi", found, guess), e.op("arith.minsi", found, guess))
        return e.op("arith.cmpi", apart, e.const(GALLOP_UP_TO, index), result=i1, predicate="sle")

    def one(e, k, carried):
        guess, near = carried
        x = value(e, k)
        # a branch, not a select: bisecting from [0, n) then does not wait for the last answer,
        # so a lane of unsorted values keeps its searches overlapped
        found = _branch(e, near, lambda e: _near(e, table, a.type.element, x, op.side, n, guess),
                        lambda e: _bisect(e, table, a.type.element, x, op.side, e.const(0, index), n))
        store(e, k, found)
        return [found, close(e, found, guess)]

    def block(e, k0, carried):
        _, guess, near, in_order = carried
        at = [e.op("arith.addi", k0, e.const(i, index)) for i in range(SEARCH_BLOCK + 1)]

        def by_guess(e):
            _for(e, k0, at[-1], e.const(1, index), [guess, near], one)

        def side_by_side(e):
            xs = [value(e, k) for k in at[:-1]]
            for k, found in zip(at[:-1], _bisect_block(e, table, a.type.element, xs, op.side, n)):
                store(e, k, found)

        _if(e, in_order, by_guess, side_by_side)
        found = [answer(e, k) for k in at[:-1]]
        steps = [e.op("arith.subi", f, g) for g, f in zip(found, found[1:])]
        next_to = [e.op("arith.cmpi", d, e.const(1, index), result=i1, predicate="ule") for d in steps]
        count = e.const(0, index)
        for t in next_to:
            count = e.op("arith.addi", count, e.op("arith.extui", t, result=index))
        sorted_ = e.op("arith.cmpi", count, e.const(SEARCH_IN_ORDER, index), result=i1, predicate="sge")
        return [at[-1], found[-1], close(e, found[-1], found[-2]), sorted_]

    def rest(e, k, _):  # after the last whole block: a plain bisection each (small code)
        store(e, k, _bisect(e, table, a.type.element, value(e, k), op.side, e.const(0, index), n))
        return []

    # blocks while one fits (k0 < lane - 7: the same form at every lane length, so one
    # compile serves them all), then the rest one by one from where the blocks stopped
    last = e.const(lane - (SEARCH_BLOCK - 1), index)
    start, *_ = _for(e, e.const(0, index), last, e.const(SEARCH_BLOCK, index),
                     [e.const(0, index), e.const(0, index), e.const(False, i1), e.const(True, i1)],
                     block)
    _for(e, start, e.const(lane, index), e.const(1, index), [], rest)
    empty = AffineMap(rank - 1, ())
    generic = kb.finish(op, [op.result_type], [empty], ["parallel"] * (rank - 1), [],
                        domain=list(v.type.shape[:-1]), copy_inputs=[-1], indexed_results=[0])
    generic.attributes["fills"] = (0,)  # every position is written before it is read back
    return generic


def _bisect_block(e, table: Value, element, xs: list[Value], side: str, n: Value) -> list[Value]:
    """The insertion points of the values ``xs`` in ``table`` (``n`` > 0 long), side by side
    without branches: each halving reads ``table`` at ``base + half - 1`` for every value and
    moves that value's ``base`` past it where the answer lies further (``_goes_right``). The
    answer stays in ``[base, base + width]``, so after the halvings (``width`` 1) it is
    ``base`` or ``base + 1``; every read lies below ``base + width <= n``. The loop's trip
    count depends on ``n`` alone, so its branch is predicted."""
    one = e.const(1, index)

    def halve(e, carried):
        width, *bases = carried
        half = e.op("arith.shrui", width, one)
        step = e.op("arith.subi", half, one)
        bases = [e.select(_goes_right(e, table, element, x, side, e.op("arith.addi", b, step)),
                          e.op("arith.addi", b, half), b) for x, b in zip(xs, bases)]
        return [e.op("arith.subi", width, half), *bases]

    def go_on(e, carried):
        return e.op("arith.cmpi", carried[0], one, result=i1, predicate="sgt")

    _, *bases = _while(e, [n, *(e.const(0, index) for _ in xs)], go_on, halve)
    return [e.op("arith.addi", b, e.op("arith.extui", _goes_right(e, table, element, x, side, b),
                                       result=index)) for x, b in zip(xs, bases)]


def _goes_right(e, table: Value, element, x: Value, side: str, at: Value) -> Value:
    """i1: the answer for ``x`` lies after position ``at`` of the sorted ``table``."""
    y = e.b.create(kernel.ExtractOp, [table, at], [element]).results[0]
    # left: right of a[at] where a[at] < x; right: where not x < a[at]
    return less(e, y, x) if side == "left" else e.op("arith.xori", less(e, x, y), e.const(True, i1))


def _branch(e, cond: Value, then_body, else_body) -> Value:
    """``scf.if`` with one result: ``then_body(e)`` or ``else_body(e)``'s value."""
    blocks = Block(()), Block(())
    for block, body in zip(blocks, (then_body, else_body)):
        inner = _emitter(block)
        inner.b.create(scf.YieldOp, [body(inner)])
    return e.b.create(scf.IfOp, [cond], [index], None, [Region([b]) for b in blocks]).results[0]


def _bisect(e, table: Value, element, x: Value, side: str, lo: Value, hi: Value) -> Value:
    """The insertion point of ``x`` in ``table``, known to lie in [lo, hi]: bisection."""

    def go_on(e, carried):
        return e.op("arith.cmpi", carried[0], carried[1], result=i1, predicate="slt")

    def halve(e, carried):
        lo, hi = carried
        mid = e.op("arith.shrui", e.op("arith.addi", lo, hi), e.const(1, index))
        right = _goes_right(e, table, element, x, side, mid)
        return [e.select(right, e.op("arith.addi", mid, e.const(1, index)), lo), e.select(right, hi, mid)]

    return _while(e, [lo, hi], go_on, halve)[0]


def _near(e, table: Value, element, x: Value, side: str, n: Value, guess: Value) -> Value:
    """The insertion point of ``x`` in ``table`` (``n`` long, n > 0) where it is likely the
    last one, ``guess``, or the next: NumPy's first tests, as branches, not selects, so the
    processor predicts the answer instead of waiting for the reads that decide it; any other
    answer is searched for from the guess (``_search_from``)."""
    c = lambda v: e.const(v, index)  # noqa: E731  (an index constant)
    at = e.op("arith.minsi", guess, e.op("arith.subi", n, c(1)))
    after = e.op("arith.addi", at, c(1))

    def further(e, beyond, probe):  # the answer lies past ``probe`` too (a read kept in range)
        inside = e.op("arith.cmpi", beyond, c(0), result=i1, predicate="ne")
        return e.op("arith.andi", inside, probe(e))

    def slow(e):
        return _search_from(e, table, element, x, side, n, guess)

    def up(e):  # the answer is at least at + 1
        last = e.op("arith.subi", n, c(1))
        more = further(e, e.op("arith.subi", n, after), lambda e: _goes_right(
            e, table, element, x, side, e.op("arith.minsi", after, last)))
        return _branch(e, more, slow, lambda e: after)

    def down(e):  # the answer is at most at
        before = e.op("arith.maxsi", e.op("arith.subi", at, c(1)), c(0))
        less_ = further(e, at, lambda e: e.op("arith.xori", _goes_right(e, table, element, x, side, before),
                                               e.const(True, i1)))
        return _branch(e, less_, slow, lambda e: at)

    return _branch(e, _goes_right(e, table, element, x, side, at), up, down)


def _search_from(e, table: Value, element, x: Value, side: str, n: Value, guess: Value) -> Value:
    """The insertion point of ``x`` in ``table`` (``n`` long, n > 0) searched from ``guess``
    (in [0, n]): a probe at the guess, then steps of 1, 2, 4, ... away from it while the
    answer lies further (galloping), up to ``GALLOP_UP_TO``, then bisection of what is left.
    The answer lies in [lo, hi] throughout and every probe in [lo, hi), so no read leaves
    the table; the mode is 0 (the first probe), 1 (up), 2 (down) or 3 (done: bisect)."""
    c = lambda v: e.const(v, index)  # noqa: E731  (an index constant)

    def go_on(e, carried):
        lo, hi, _, mode = carried
        return e.op("arith.andi", e.op("arith.cmpi", lo, hi, result=i1, predicate="slt"),
                    e.op("arith.cmpi", mode, c(3), result=i1, predicate="ne"))

    def probe(e, carried):
        lo, hi, w, mode = carried
        first, upward = (e.op("arith.cmpi", mode, c(m), result=i1, predicate="eq") for m in (0, 1))
        last = e.op("arith.subi", hi, c(1))
        up = e.op("arith.minsi", e.op("arith.subi", e.op("arith.addi", lo, w), c(1)), last)
        down = e.op("arith.maxsi", e.op("arith.subi", hi, w), lo)
        mid = e.select(first, e.op("arith.minsi", guess, last), e.select(upward, up, down))
        right = _goes_right(e, table, element, x, side, mid)
        # galloping goes on while the answer lies further the way it goes (or the first way)
        same_way = e.op("arith.xori", right, e.op("arith.xori", upward, e.const(True, i1)))
        onward = e.op("arith.ori", first, same_way)
        w2 = e.select(first, c(1), e.op("arith.addi", w, w))
        gallop = e.op("arith.andi", onward, e.op("arith.cmpi", w2, c(GALLOP_UP_TO), result=i1,
                                                        predicate="sle"))
        mode2 = e.select(gallop, e.select(right, c(1), c(2)), c(3))
        return [e.select(right, e.op("arith.addi", mid, c(1)), lo), e.select(right, hi, mid), w2, mode2]

    lo, hi, _, _ = _while(e, [c(0), n, c(1), c(0)], go_on, probe)
    return _bisect(e, table, element, x, side, lo, hi)


def _plain_search(op: array.SearchSortedOp) -> kernel.GenericOp:
    """A bisection per value, each value its own iteration."""
    a, v = op.operands
    rank = v.type.rank
    kb = KernelBuilder(rank)
    table = kb.indexed_input(a)
    value = kb.input(v, AffineMap.identity(rank))
    e = kb.emit
    lo = _bisect(e, table, a.type.element, value, op.side, e.const(0, index),
                 e.const(a.type.shape[0], index))
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], ["parallel"] * rank,
                     [_to_i64(e, lo)])


RULES = {array.SortOp: sort, array.ArgSortOp: sort, array.PartitionOp: sort, array.ArgPartitionOp: sort,
         array.PartitionAtOp: sort, array.HeadSortOp: head_sort,
         array.SearchSortedOp: searchsorted}
