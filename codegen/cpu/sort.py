"""Long float and int sorts as radix sorts emitted directly as LLVM IR.

``passes/kernelize/sort.py`` marks the radix-sort kernels it builds with ``sort_axis``; their
``scf`` bodies sort correctly, but each pass goes through the kernel's indexed-result machinery
(counters as an indexed result, the key recomputed from the value). For float32 and float64
lanes along the last axis, ``emit_sort_kernel`` emits a routine of its own instead (measured on
10^6 floats: docs/performance.md, "Sorting"), and for 32- and 64-bit ints after
``sort_ints.py``'s read of the lane's range (sort47). Keys are
``sort_keys.SortKeys``: a float's -0.0 keys as 0.0, every NaN as all ones, so the passes move
keys, and a lane holding -0.0 or NaN ends with ``sort_keys.restore_lost``, which puts back the
signs and bits of its zeros and NaNs in input order: exactly NumPy's stable sort. Kernels of
lanes up to 8192 long with enough lanes go to ``sort_lanes.py`` first (groups of lanes in a
sorting network). A float64 ``sort``, and a float32 one of 2^16 keys or more, goes by buckets
(``sort_buckets.py``, ``sort_range.py``). Every ``argsort`` (argsort48) sorts one 64-bit word
of key and position per element by those buckets (``sort_words.py``), a 64-bit key's lane
whose keys tie in the bits kept beside the position going on to the LSD passes of (key,
position) pairs when an insertion pass cannot put the ties right. On AVX-512 targets a float ``sort``
of the lengths ``sort_quick.QUICK_LENGTHS`` names goes by a vectorized quicksort instead
(sort49): the lane copied into the result with its NaNs past the numbers, sorted there in
place, the radix path its way out past a depth limit. Shorter float32 sorts and
that way out are LSD passes over the whole lane (``_LaneSort`` here):

1. one read turns each float into its key and counts every digit (8 bits: 4 passes for
   float32, 8 for float64; 11 bits measured slower, as did write-combining buffers);
2. per digit, the counts become where each bucket starts; a digit that is the same for the
   whole lane skips its pass;
3. each remaining pass scatters stably from one buffer into the other: the first reads the
   floats themselves, the last writes floats back (``argsort``: the positions it carries with
   the keys), and the buffers alternate so that the last pass lands in the result.

The lane may be cut into pieces (``MAX_PIECES``, 1 by default: measured slower) that steps 1
and 3 run on the runtime's threads (``runtime.emit_launch``, above its ``parallel_threshold``);
a pass after the first counts its pieces again, as they hold other keys by then. Where each key
goes is a function of the pieces only, never of the thread count. The buffers are the kernel's
results as ``kernelize/sort.py`` makes them (keys A and B, positions A and B, and its counter
result, which only ``sort_buckets.py`` uses); the LSD counters are on the calling thread's stack.
"""

from __future__ import annotations

import re
import threading

from llvmlite import ir as ll

from jitcore.codegen.cpu import (
    runtime,
    sort_buckets,
    sort_ints,
    sort_lanes,
    sort_quick,
    sort_select,
    sort_short,
    sort_words,
    target,
)
from jitcore.codegen.cpu.sort_buckets import BucketSort, emit_address_table, load_address_table
from jitcore.codegen.cpu.sort_keys import DIGIT_BITS, RADIX, SortKeys, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.kernel_body import kernel_function
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import element_pointer, emit_loop, extents
from jitcore.ir.core import Operation

I32 = ll.IntType(32)
I8 = ll.IntType(8)
# Float sorts (not argsorts) by buckets of the top digit first (sort_buckets.py), float32 from
# 2^16 keys (10^4 float32 measured 0.043 ms by LSD passes against 0.056 by buckets; equal at
# 2^16; 1.5 against 1.7 ms at 2^18, 5.8 against 7.0 at 10^6).
MSD = True
BUCKETS_FROM = {64: 0, 32: 1 << 16}
PIECE = 1 << 17  # elements per piece, at least (a lane shorter than two pieces is one piece)
# At most this many pieces. 1: measured on the shared 2-core host (10^6 floats, load about 10),
# 8 pieces on 2 threads took 1.7x the CPU time of one piece (each pass after the first counts
# its pieces again) and 1.7x the wall time; raise it where cores are idle.
MAX_PIECES = 1
_NO_OFFSET = _c(0)  # floats' keys, and ints' bucketed whole
SORT_AXIS = "sort_axis"  # the attribute kernelize/sort.py marks its radix kernels with
ENABLED = True  # False: the kernels' own scf loops (tools/bench_sort.py's baseline)


def pieces(n: int) -> int:
    return max(1, min(MAX_PIECES, n // PIECE))


def emit_sort_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool],
                     sizes=None) -> ll.Function | None:
    """``op`` as kernel ``name`` running this module's radix sort on each lane; None if ``op``
    is not a radix-sort kernel of 32- or 64-bit floats or ints along its last axis, or is an
    int32 argsort (the caller emits its
    ``scf`` body). A partition's kernel selects instead (``sort_select.py``; ``sizes``: a
    size-generic function's run-time extents, which only it takes)."""
    selected = sort_select.emit_select_kernel(module, name, op, strided, sizes)
    if selected is not None:
        return selected
    alone = sort_short.emit_short_lane_kernel(module, name, op, strided, sizes)
    if alone is not None:
        return alone
    short = sort_lanes.emit_lane_sort_kernel(module, name, op, strided, sizes)
    if short is not None:
        return short
    axis = op.attributes.get(SORT_AXIS)
    if axis is None or not ENABLED:
        return None
    argsort = len(op.results) == 5  # positions A, B, keys A, B, counters (kernelize/sort.py)
    x = op.operands[0]
    t = x.type.element
    n = x.type.shape[axis] if x.type.rank else 0
    if axis != x.type.rank - 1 or t.bitwidth not in (32, 64) or not 2 <= n < 2**31:
        return None
    kind = "f" if t.is_float else "u" if t.is_unsigned else "i" if t.is_integer else None
    if kind is None:
        return None
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided)
    source = operands[0]
    results = operands[len(op.operands):]
    buffers = [results[2], results[3], results[0], results[1]] if argsort else [results[0], results[1]]
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    elem = ll.IntType(t.bitwidth)
    bucketed = MSD and not argsort and n >= BUCKETS_FROM[t.bitwidth]
    table_slots = 2 * op.results[-1].type.shape[-1]  # i32 counters in a lane of the i64 counts
    keys = SortKeys(t.bitwidth, kind)
    if bucketed:
        sorter = BucketSort(module, name, b, t.bitwidth, n, table_slots, kind)
    elif not argsort or sort_words.position_bits(n) + t.bitwidth > 64:
        # argsort: the LSD passes of pairs are the word sort's fallback where keys may not fit
        sorter = _LaneSort(module, name, b, t.bitwidth, argsort, n, kind)
    if argsort:  # by words of key and position (sort_words.py), their top digit a float's
        words = BucketSort(module, name, b, 64, n, table_slots, "u",
                           lambda wide: sort_words.top_bits(kind, n, wide))
        word_sort = sort_words.WordArgsort(module, name, b, keys, n, words)
    # ints close together are spread over the keys' width first (sort_ints.py): sorted as
    # unsigned keys read from buffer B (the buckets' scatter reads it whole before B is scratch)
    spread = BucketSort(module, name, b, t.bitwidth, n, table_slots, "u") \
        if bucketed and kind != "f" else None
    lanes = None if argsort or kind != "f" else \
        sort_quick.use_quicksort(t.bitwidth, n, target.kernel_isa())
    int_lanes = None if argsort or kind == "f" else \
        sort_quick.use_int_quicksort(t.bitwidth, n, target.kernel_isa())
    # lengths the radix path takes on one thread, the quicksort on several (sort51)
    threaded = None if argsort or kind != "f" or lanes is not None else \
        sort_quick.use_threaded_quicksort(t.bitwidth, n, target.kernel_isa())

    def quick_lane(ivs, lanes=lanes):  # by vector partitions (sort_quick.py), the radix path its way out
        zero = [*ivs, ll.Constant(I64, 0)]
        src = element_pointer(b, source.pointer, zero, source.strides, elem)
        key_a = element_pointer(b, buffers[0].pointer, zero, buffers[0].strides, elem)
        nans, lost = _copy_numbers_first(b, keys, src, source.strides[-1], key_a, n)
        quick = sort_quick.declare(module, t.bitwidth, lanes, serial=n < sort_quick.THREADED_FROM)
        failed = b.call(quick, [key_a, b.sub(_c(n), nans), _c(sort_quick.depth_limit(n))])
        with b.if_else(b.icmp_unsigned("!=", failed, _c(0)), likely=False) as (gave_up, sorted_):
            with gave_up:
                run_lane(ivs)
            with sorted_:
                with b.if_then(lost, likely=False):
                    restore_lost(b, keys, src, source.strides[-1], key_a, n)

    def run_lane(ivs, offset=_NO_OFFSET):
        zero = [*ivs, ll.Constant(I64, 0)]
        src = element_pointer(b, source.pointer, zero, source.strides, elem)
        bufs = [element_pointer(b, r.pointer, zero, r.strides, elem if k < 2 else I64)
                for k, r in enumerate(buffers)]
        if bucketed:
            counts = results[-1]
            sorter.use_tables(element_pointer(b, counts.pointer, zero, counts.strides, I64))
            sorter.sort(src, source.strides[-1], *bufs)
            return
        if not argsort:
            bufs += [ll.Constant(PTR, None)] * 2
        sorter.sort(src, source.strides[-1], *bufs, offset)

    def word_lane(ivs):
        zero = [*ivs, ll.Constant(I64, 0)]
        src = element_pointer(b, source.pointer, zero, source.strides, elem)
        pos_a, pos_b, counts = (element_pointer(b, r.pointer, zero, r.strides, I64)
                                for r in (results[0], results[1], results[-1]))
        word_sort.sort(src, source.strides[-1], pos_a, pos_b, counts, lambda: run_lane(ivs))

    def int_lane(ivs):  # close values counted (sort_ints.py), others by the radix above
        zero = [*ivs, ll.Constant(I64, 0)]
        src = element_pointer(b, source.pointer, zero, source.strides, elem)
        counts = results[-1]
        tables = element_pointer(b, counts.pointer, zero, counts.strides, I64)
        lo, span = sort_ints.emit_key_range(b, keys, src, source.strides[-1], _c(n))
        offset = b.zext(lo, I64) if keys.width < 64 else lo  # for LSD passes (_LaneSort.sort)
        fits = b.icmp_unsigned("<", span, ll.Constant(keys.type, table_slots))
        with b.if_else(fits) as (counted, wide):
            with counted:
                out = element_pointer(b, buffers[0].pointer, zero, buffers[0].strides, elem)
                sort_ints.emit_counting_sort(b, module, keys, src, source.strides[-1], out,
                                                 tables, lo, span, _c(n), table_slots)
            with wide:
                if int_lanes is None:
                    radix_int_lane(ivs, src, tables, lo, span, offset)
                else:
                    quick_int_lane(ivs, src, tables, lo, span, offset)

    def radix_int_lane(ivs, src, tables, lo, span, offset):
        if spread is None:
            run_lane(ivs, offset)
        else:
            spread_lane(ivs, src, tables, lo, span)

    def quick_int_lane(ivs, src, tables, lo, span, offset):
        """By the quicksort's vector partitions (sorts55), copied into the result first; its
        way out past the depth limit the radix path."""
        zero = [*ivs, ll.Constant(I64, 0)]
        key_a = element_pointer(b, buffers[0].pointer, zero, buffers[0].strides, elem)
        _by_stride(b, source.strides[-1], lambda step: emit_loop(b, _c(n), lambda i: b.store(
            keys.load(b, src, step, i), b.gep(key_a, [i], inbounds=True, source_etype=elem))))
        quick = sort_quick.declare(module, t.bitwidth, int_lanes, kind, serial=n < sort_quick.THREADED_FROM)
        failed = b.call(quick, [key_a, _c(n), _c(sort_quick.depth_limit(n))])
        with b.if_then(b.icmp_unsigned("!=", failed, _c(0)), likely=False):
            radix_int_lane(ivs, src, tables, lo, span, offset)

    def spread_lane(ivs, src, tables, lo, span):
        zero = [*ivs, ll.Constant(I64, 0)]
        shift = sort_ints.spread_shift(b, module, span)
        with b.if_else(b.icmp_unsigned("==", shift, ll.Constant(keys.type, 0))) as (whole, close):
            with whole:
                run_lane(ivs)
            with close:
                a_keys, b_keys = (element_pointer(b, r.pointer, zero, r.strides, elem) for r in buffers[:2])
                sort_ints.emit_spread(b, keys, src, source.strides[-1], b_keys, lo, shift, _c(n))
                spread.use_tables(tables)
                spread.sort(b_keys, _c(1), a_keys, b_keys)
                sort_ints.emit_gather_back(b, keys, a_keys, lo, shift, _c(n))

    def threaded_lane(ivs):
        src = element_pointer(b, source.pointer, [*ivs, ll.Constant(I64, 0)], source.strides, elem)
        many = b.or_(b.icmp_signed(">", runtime.setting(b, "num_threads"), _c(1)),
                     _sample_repeats(b, keys, src, source.strides[-1], n))
        with b.if_else(many) as (on_threads, alone):
            with on_threads:
                quick_lane(ivs, threaded)
            with alone:
                run_lane(ivs)

    float_lane = quick_lane if lanes is not None else threaded_lane if threaded is not None else run_lane
    sorting = word_lane if argsort else float_lane if kind == "f" else int_lane

    def lane(ivs):  # a lane already in order: its positions, or itself, as they are; reversed
        zero = [*ivs, ll.Constant(I64, 0)]
        src = element_pointer(b, source.pointer, zero, source.strides, elem)
        out = results[0]
        out = element_pointer(b, out.pointer, zero, out.strides, I64 if argsort else elem)
        rising, falling = _in_order(b, keys, src, source.strides[-1], n)

        def copy(reverse):
            def at(i):
                return b.sub(_c(n - 1), i) if reverse else i

            if argsort:  # stable: equal keys keep their input order (a falling lane has none)
                emit_loop(b, _c(n), lambda i: b.store(at(i), b.gep(out, [i], inbounds=True,
                                                                    source_etype=I64)))
            else:
                _by_stride(b, source.strides[-1], lambda step: emit_loop(b, _c(n), lambda i: b.store(
                    keys.load(b, src, step, at(i)), b.gep(out, [i], inbounds=True, source_etype=elem))))

        with b.if_else(rising, likely=False) as (ordered, other):
            with ordered:
                copy(False)
            with other:
                with b.if_else(falling, likely=False) as (reversed_, unordered):
                    with reversed_:
                        copy(True)
                    with unordered:
                        sorting(ivs)

    _nest(b, extents(x.type.shape[:-1]), lane)
    b.ret_void()
    return fn


# A float lane that the radix path takes on one thread goes to the quicksort where two of
# REPEAT_SAMPLE keys spread over it have the same bits: few distinct values, which the
# quicksort settles in a pass or two each (sort_quick._settle_few) and the radix path sorts
# in all its passes (10^5 float64 of 4 values: 0.58 ms CPU by radix, NumPy 0.08; sortperf52).
REPEAT_SAMPLE = 16


def _sample_repeats(b: ll.IRBuilder, keys: SortKeys, src, stride, n: int) -> ll.Value:
    """i1: two of ``REPEAT_SAMPLE`` keys spread evenly over the lane are the same bits."""
    sample = [keys.load(b, src, stride, _c(k * (n - 1) // (REPEAT_SAMPLE - 1))) for k in range(REPEAT_SAMPLE)]
    repeats = ll.Constant(I1, 0)
    for i, first in enumerate(sample):
        for second in sample[i + 1:]:
            repeats = b.or_(repeats, b.icmp_unsigned("==", first, second))
    return repeats


# Lanes checked for being in order already (or reversed) read this many neighbours' pairs at a
# time, stopping after the first block that holds both a descent and an ascent (a random lane:
# after one block).
IN_ORDER_BLOCK = 256


def _in_order(b: ll.IRBuilder, keys: SortKeys, src, stride, n: int) -> tuple[ll.Value, ll.Value]:
    """(i1, i1): the ``n`` keys at ``src`` are in the order sorting gives them (no key above
    the next; a float's NaNs after every number), so their stable sort is themselves; each
    key is above the next (no ties, no NaN), so their stable sort is their reverse. NumPy's
    sort and argsort take a sorted lane in one read (10^5 sorted float64s: NumPy's argsort
    0.15 ms, the word sort's 1.1 ms; sortperf52)."""
    with b.goto_entry_block():
        descent, ascent, block = b.alloca(I1), b.alloca(I1), b.alloca(I64)
    for flag in (descent, ascent):
        b.store(ll.Constant(I1, 0), flag)
    b.store(_c(0), block)
    pairs = n - 1
    blocks = -(-pairs // IN_ORDER_BLOCK)
    fn = b.function
    head, body, done = (fn.append_basic_block(x) for x in ("order_head", "order_body", "order_done"))
    b.branch(head)
    b.position_at_end(head)
    j = b.load(block, typ=I64)
    both = b.and_(b.load(descent, typ=I1), b.load(ascent, typ=I1))
    b.cbranch(b.and_(b.icmp_signed("<", j, _c(blocks)), b.not_(both)), body, done)
    b.position_at_end(body)
    start = b.mul(j, _c(IN_ORDER_BLOCK))
    length = b.sub(_c(pairs), start)
    length = b.select(b.icmp_signed("<", length, _c(IN_ORDER_BLOCK)), length, _c(IN_ORDER_BLOCK))

    def pair(t):
        i = b.add(start, t)
        x, y = keys.load(b, src, stride, i), keys.load(b, src, stride, b.add(i, _c(1)))
        if keys.kind == "f":
            fx, fy = b.bitcast(x, keys.float), b.bitcast(y, keys.float)
            down = b.not_(b.or_(b.fcmp_ordered("<=", fx, fy), b.fcmp_unordered("uno", fy, fy)))
            up = b.not_(b.fcmp_ordered(">", fx, fy))
        else:
            down = (b.icmp_signed if keys.kind == "i" else b.icmp_unsigned)(">", x, y)
            up = (b.icmp_signed if keys.kind == "i" else b.icmp_unsigned)("<=", x, y)
        b.store(b.or_(b.load(descent, typ=I1), down), descent)
        b.store(b.or_(b.load(ascent, typ=I1), up), ascent)

    emit_loop(b, length, pair)
    b.store(b.add(j, _c(1)), block)
    b.branch(head)
    b.position_at_end(done)
    return b.not_(b.load(descent, typ=I1)), b.not_(b.load(ascent, typ=I1))


def _copy_numbers_first(b: ll.IRBuilder, keys: SortKeys, src, stride, out, n: int | ll.Value):
    """Copy the ``n`` (an int, or an i64 known when it runs) floats at ``src`` to ``out``, its
    NaNs moved past its numbers (as a NaN each: ``restore_lost`` puts back their bits); (i64:
    the NaNs, i1: any -0.0 or NaN)."""
    with b.goto_entry_block():
        nans = b.alloca(I64)
        lost = b.alloca(I1)
    b.store(_c(0), nans)
    b.store(ll.Constant(I1, 0), lost)

    def copy(i, step):  # vectorizes: a copy and two reductions
        bits = keys.load(b, src, step, i)
        b.store(bits, b.gep(out, [i], inbounds=True, source_etype=keys.type))
        nan = b.icmp_unsigned(">", b.and_(bits, b.not_(keys.sign)), keys.inf)
        b.store(b.add(b.load(nans, typ=I64), b.zext(nan, I64)), nans)
        b.store(b.or_(b.load(lost, typ=I1), b.or_(nan, b.icmp_unsigned("==", bits, keys.sign))), lost)

    length = n if isinstance(n, ll.Value) else _c(n)
    _by_stride(b, stride, lambda step: emit_loop(b, length, lambda i: copy(i, step)))
    count = b.load(nans, typ=I64)
    with b.if_then(b.icmp_unsigned("!=", count, _c(0)), likely=False):
        with b.goto_entry_block():
            kept = b.alloca(I64)
        b.store(_c(0), kept)

        def keep(i):  # the numbers forward, in order
            bits = b.load(b.gep(out, [i], inbounds=True, source_etype=keys.type), typ=keys.type)
            nan = b.icmp_unsigned(">", b.and_(bits, b.not_(keys.sign)), keys.inf)
            at = b.load(kept, typ=I64)
            b.store(bits, b.gep(out, [at], inbounds=True, source_etype=keys.type))
            b.store(b.add(at, b.zext(b.not_(nan), I64)), kept)

        emit_loop(b, length, keep, vectorize=False)
        nan_bits = ll.Constant(keys.type, keys.inf.constant | (keys.inf.constant >> 1))

        def fill(i):
            b.store(nan_bits, b.gep(out, [b.add(b.load(kept, typ=I64), i)], inbounds=True,
                                   source_etype=keys.type))

        emit_loop(b, count, fill)
    return count, b.load(lost, typ=I1)


def _nest(b: ll.IRBuilder, outer: list, body, ivs=()) -> None:
    if not outer:
        body(list(ivs))
        return
    emit_loop(b, outer[0], lambda iv: _nest(b, outer[1:], body, (*ivs, iv)))


# The LSD kernels of each (float width, sort or argsort) are compiled once per process, as a
# module of their own (``_LaneKernels``) whose symbols every sorting function's module declares
# and calls (as ``sort_buckets.py``'s): the lane's length and pieces are their arguments.
SYMBOL_PREFIX = "jitcore_cpu_sort_lsd"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"_([fiu])(32|64)_(sort|argsort)")
KERNELS = ("count", "scatter", "recount")
_KERNEL_PARAMS = {"count": (3, 6), "scatter": (6, 9), "recount": (2, 5)}  # pointers, ints


def shared_symbol(width: int, argsort: bool, kernel: str | None = None, kind: str = "f") -> str:
    """The symbol of ``kernel`` of the shared LSD module of (``kind``, ``width``, ``argsort``),
    or (None) of its table of the kernels' addresses (a prefix of theirs)."""
    base = f"{SYMBOL_PREFIX}_{kind}{width}_{'argsort' if argsort else 'sort'}"
    return base if kernel is None else f"{base}_{kernel}"


class _Lanes:
    """Lanes of keys of ``width`` bits (values of ``kind``), counted per piece and pass
    (``DIGIT_BITS`` a pass)."""

    def __init__(self, width: int, argsort: bool, kind: str = "f"):
        self.argsort = argsort
        self.k = SortKeys(width, kind)
        self.passes = -(-width // DIGIT_BITS)

    def slot(self, b: ll.IRBuilder, counts, piece, p, digit) -> ll.Value:
        """The counter of ``digit`` in pass ``p`` of ``piece``."""
        at = b.add(b.mul(b.add(b.mul(piece, _c(self.passes)), p), _c(RADIX)), digit)
        return b.gep(counts, [at], source_etype=I32)

    def load(self, b: ll.IRBuilder, src, stride, i) -> ll.Value:
        at = b.gep(src, [b.mul(i, stride)], inbounds=True, source_etype=self.k.type)
        return b.load(at, typ=self.k.type)


class _LaneSort(_Lanes):
    """The sort of one lane of ``n`` keys of ``width`` bits, emitted at ``b``: the counting and
    scatter phases are the process's shared kernels (``_LaneKernels``; the runtime runs their
    pieces). ``n`` may be an i64 known when the code runs (below 2^31: one piece)."""

    def __init__(self, module: ll.Module, name: str, b: ll.IRBuilder, width: int, argsort: bool,
                 n: int | ll.Value, kind: str = "f"):
        super().__init__(width, argsort, kind)
        self.module, self.b, self.n = module, b, n
        self.pieces = pieces(n) if isinstance(n, int) else 1
        self.length = n if isinstance(n, ll.Value) else _c(n)
        self.counter, self.scatterer, self.recounter = (
            sort_buckets.declare_kernel(module, shared_symbol(width, argsort, kernel, kind),
                                        *_KERNEL_PARAMS[kernel])
            for kernel in KERNELS)
        if self.pieces == 1:
            self.recounter = None
        self.lane = [self.length, _c(self.pieces)]
        with b.goto_entry_block():
            self.counts = b.alloca(I32, size=self.pieces * self.passes * RADIX)
            self.counts.align = 64
            self.lost = b.alloca(I8, size=self.pieces)
            self.active = b.alloca(I1, size=self.passes)
            self.j = b.alloca(I64)

    def launch(self, kernel: ll.Function, args: list) -> None:
        runtime.emit_launch(self.b, kernel, args, runtime.Split(self.pieces, self.n))

    def sort(self, src, stride, key_a, key_b, pos_a, pos_b, offset: ll.Value = _NO_OFFSET) -> None:
        """``offset`` (ints): a key less than or equal to the lane's smallest, subtracted from
        every key, so that digits above the span's top bit are the same for every key and
        skipped (ints of +-1000 differ in every byte of their sign-flipped keys)."""
        b = self.b
        memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
        size = self.pieces * self.passes * RADIX
        b.call(memset, [self.counts, ll.Constant(I8, 0), _c(4 * size), ll.Constant(I1, 0)])
        # 1. count, per piece
        self.launch(self.counter, [src, self.counts, self.lost, stride, offset, *self.lane])
        lost = ll.Constant(I1, 0)
        for c in range(self.pieces):
            lost = b.or_(lost, b.trunc(b.load(b.gep(self.lost, [_c(c)], source_etype=I8), typ=I8), I1))
        # 2. where each piece's keys go; a digit that one bucket holds whole needs no pass
        n32 = self.length32()
        m = _c(0)
        for p in range(self.passes):
            needed = b.not_(self.prefix(_c(p), n32))
            b.store(needed, b.gep(self.active, [_c(p)], source_etype=I1))
            m = b.add(m, b.zext(needed, I64))
        # 3. the passes; pass j of m writes buffer A when m - 1 - j is even
        with b.if_else(b.icmp_unsigned("==", m, _c(0))) as (none, some):
            with none:  # every key equal: the lane is sorted as it is
                self.copy_lane(src, stride, key_a, pos_a)
            with some:
                self.run_passes(m, src, stride, key_a, key_b, pos_a, pos_b, offset)
        # 4. zeros and NaNs back in input order, with their signs and bits
        if not self.argsort and self.k.floats:
            with b.if_then(lost, likely=False):
                restore_lost(b, self.k, src, stride, key_a, self.n)

    def length32(self) -> ll.Value:
        return self.b.trunc(self.n, I32) if isinstance(self.n, ll.Value) else ll.Constant(I32, self.n)

    def prefix(self, p: ll.Value, n32: ll.Value) -> ll.Value:
        """Turn the counts of digit ``p`` into each piece's first position per bucket (bucket by
        bucket, piece by piece); i1: one bucket holds the whole lane."""
        b = self.b
        with b.goto_entry_block():
            total = b.alloca(I32)
            uniform = b.alloca(I1)
        b.store(ll.Constant(I32, 0), total)
        b.store(ll.Constant(I1, 0), uniform)

        def bucket(r):
            whole = ll.Constant(I32, 0)
            for c in range(self.pieces):
                at = self.slot(b, self.counts, _c(c), p, r)
                here = b.load(at, typ=I32)
                before = b.load(total, typ=I32)
                b.store(before, at)
                b.store(b.add(before, here), total)
                whole = b.add(whole, here)
            b.store(b.or_(b.load(uniform, typ=I1), b.icmp_unsigned("==", whole, n32)), uniform)

        emit_loop(b, _c(RADIX), bucket)
        return b.load(uniform, typ=I1)

    def copy_lane(self, src, stride, key_a, pos_a) -> None:
        b = self.b

        def copy(i):
            if self.argsort:
                b.store(i, b.gep(pos_a, [i], inbounds=True, source_etype=I64))
            else:
                to = b.gep(key_a, [i], inbounds=True, source_etype=self.k.type)
                b.store(self.load(b, src, stride, i), to)

        emit_loop(b, self.length, copy)

    def run_passes(self, m, src, stride, key_a, key_b, pos_a, pos_b, offset) -> None:
        b = self.b
        b.store(_c(0), self.j)

        def one(p):
            active = b.load(b.gep(self.active, [p], source_etype=I1), typ=I1)
            with b.if_then(active):
                j = b.load(self.j, typ=I64)
                to_a = b.icmp_unsigned("==", b.and_(b.sub(b.sub(m, _c(1)), j), _c(1)), _c(0))
                key_src, key_dst = b.select(to_a, key_b, key_a), b.select(to_a, key_a, key_b)
                pos_src, pos_dst = b.select(to_a, pos_b, pos_a), b.select(to_a, pos_a, pos_b)
                is_first = b.icmp_unsigned("==", j, _c(0))
                if self.recounter is not None:  # the pieces hold other keys than those counted
                    with b.if_then(b.not_(is_first)):
                        self.launch(self.recounter, [key_src, self.counts, p, *self.lane])
                        self.prefix(p, self.length32())
                first = b.zext(is_first, I64)
                last = b.zext(b.icmp_unsigned("==", j, b.sub(m, _c(1))), I64)
                self.launch(self.scatterer, [src, key_src, key_dst, pos_src, pos_dst, self.counts,
                                             stride, p, first, last, offset, *self.lane])
                b.store(b.add(j, _c(1)), self.j)

        emit_loop(b, _c(self.passes), one)


class _LaneKernels(_Lanes):
    """The module of the LSD kernels that every lane sort of (``width``, ``argsort``) calls,
    external, and ``i64 table(i64 j)``: the address of kernel ``KERNELS[j]``."""

    def __init__(self, width: int, argsort: bool, kind: str = "f"):
        super().__init__(width, argsort, kind)
        self.module = ll.Module()
        kernels = [self._count_kernel(shared_symbol(width, argsort, "count", kind)),
                   self._scatter_kernel(shared_symbol(width, argsort, "scatter", kind)),
                   self._recount_kernel(shared_symbol(width, argsort, "recount", kind))]
        emit_address_table(self.module, shared_symbol(width, argsort, None, kind), kernels)

    def bounds(self, b: ll.IRBuilder, piece: ll.Value, n, pieces) -> tuple[ll.Value, ll.Value]:
        """Elements ``[lo, hi)`` of ``piece`` of ``pieces`` of a lane of ``n``."""
        def start(c):
            return b.udiv(b.mul(c, n), pieces)
        return start(piece), start(b.add(piece, _c(1)))

    def key(self, b: ll.IRBuilder, bits, offset) -> tuple[ll.Value, ll.Value]:
        """``SortKeys.of`` less ``offset`` (an i64; ints only: floats' keys are their own)."""
        key, lost = self.k.of(b, bits)
        return (key, lost) if self.k.floats else (b.sub(key, self._narrow(b, offset)), lost)

    def value(self, b: ll.IRBuilder, key, offset) -> ll.Value:
        """The value of a key that ``key`` made."""
        return self.k.back(b, key if self.k.floats else b.add(key, self._narrow(b, offset)))

    def _narrow(self, b: ll.IRBuilder, offset) -> ll.Value:
        return b.trunc(offset, self.k.type) if self.k.width < 64 else offset

    def digit(self, b: ll.IRBuilder, key: ll.Value, p: ll.Value) -> ll.Value:
        """Digit ``p`` of ``key`` as an i64 bucket number."""
        t = self.k.type
        shift = b.mul(b.trunc(p, t) if t.width < 64 else p, ll.Constant(t, DIGIT_BITS))
        d = b.and_(b.lshr(key, shift), ll.Constant(t, RADIX - 1))
        return b.zext(d, I64) if t.width < 64 else d

    def _kernel(self, name: str, pointers: int, ints: int):
        # ..., n, pieces, lo, hi: the lane's length and pieces, the pieces to run
        fn = sort_buckets.declare_kernel(self.module, name, pointers, ints + 4)
        fn.attributes.add("noinline")  # called whole and per chunk: one copy
        for a in fn.args[:pointers]:
            a.add_attribute("noalias")
        return fn, ll.IRBuilder(fn.append_basic_block("entry"))

    def _pieces_loop(self, b: ll.IRBuilder, fn: ll.Function, body) -> None:
        lo, hi = fn.args[-2], fn.args[-1]
        emit_loop(b, b.sub(hi, lo), lambda c: body(b.add(lo, c)))

    def _count_kernel(self, name: str) -> ll.Function:
        """``(src, counts, lost, stride, offset, lo, hi)``: count every digit of each piece's
        keys (less ``offset``), and note a piece holding -0.0 or NaN."""
        fn, b = self._kernel(name, 3, 2)
        src, counts, lost, stride, offset, n, count_of = fn.args[:7]

        def piece(c):
            first, end = self.bounds(b, c, n, count_of)
            with b.goto_entry_block():
                flag = b.alloca(I1)
            b.store(ll.Constant(I1, 0), flag)

            def count(i, step):
                key, special = self.key(b, self.load(b, src, step, b.add(first, i)), offset)
                b.store(b.or_(b.load(flag, typ=I1), special), flag)
                for p in range(self.passes):
                    at = self.slot(b, counts, c, _c(p), self.digit(b, key, _c(p)))
                    b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

            _by_stride(b, stride, lambda step: emit_loop(b, b.sub(end, first), lambda i: count(i, step)))
            b.store(b.zext(b.load(flag, typ=I1), I8), b.gep(lost, [c], source_etype=I8))

        self._pieces_loop(b, fn, piece)
        b.ret_void()
        return fn

    def _recount_kernel(self, name: str) -> ll.Function:
        """``(keys, counts, p, lo, hi)``: count digit ``p`` of each piece of the keys anew (a
        pass after the first scatters each piece's keys from where the last pass put them)."""
        fn, b = self._kernel(name, 2, 1)
        keys, counts, p, n, count_of = fn.args[:5]

        def piece(c):
            first, end = self.bounds(b, c, n, count_of)
            emit_loop(b, _c(RADIX), lambda r: b.store(ll.Constant(I32, 0), self.slot(b, counts, c, p, r)))

            def count(i):
                at = b.gep(keys, [b.add(first, i)], inbounds=True, source_etype=self.k.type)
                key = b.load(at, typ=self.k.type)
                at = self.slot(b, counts, c, p, self.digit(b, key, p))
                b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

            emit_loop(b, b.sub(end, first), count)

        self._pieces_loop(b, fn, piece)
        b.ret_void()
        return fn

    def _scatter_kernel(self, name: str) -> ll.Function:
        """``(src, key_src, key_dst, pos_src, pos_dst, counts, stride, p, first, last, offset,
        lo, hi)``: pass ``p`` of each piece, from the values at ``src`` when ``first`` (else the
        keys at ``key_src``), writing values (argsort: positions only) when ``last``."""
        fn, b = self._kernel(name, 6, 5)
        (src, key_src, key_dst, pos_src, pos_dst, counts, stride, p, first, last, offset, n,
         count_of) = fn.args[:13]

        def variant(c, lo, hi, is_first: bool, is_last: bool):
            k = self.k

            def move(i, step):
                i = b.add(lo, i)
                if is_first:
                    key, _ = self.key(b, self.load(b, src, step, i), offset)
                else:
                    key = b.load(b.gep(key_src, [i], inbounds=True, source_etype=k.type), typ=k.type)
                at_slot = self.slot(b, counts, c, p, self.digit(b, key, p))
                at32 = b.load(at_slot, typ=I32)
                b.store(b.add(at32, ll.Constant(I32, 1)), at_slot)
                at = b.zext(at32, I64)
                if self.argsort:
                    pos = i if is_first else b.load(b.gep(pos_src, [i], inbounds=True, source_etype=I64),
                                                    typ=I64)
                    b.store(pos, b.gep(pos_dst, [at], inbounds=True, source_etype=I64))
                if not (self.argsort and is_last):
                    value = self.value(b, key, offset) if is_last else key
                    b.store(value, b.gep(key_dst, [at], inbounds=True, source_etype=k.type))

            if is_first:
                _by_stride(b, stride, lambda step: emit_loop(b, b.sub(hi, lo), lambda i: move(i, step)))
            else:
                emit_loop(b, b.sub(hi, lo), lambda i: move(i, stride))

        def piece(c):
            lo, hi = self.bounds(b, c, n, count_of)
            is_first = b.icmp_unsigned("!=", first, _c(0))
            is_last = b.icmp_unsigned("!=", last, _c(0))
            with b.if_else(is_first) as (yes, no):
                for flag, block in ((True, yes), (False, no)):
                    with block:
                        with b.if_else(is_last) as (ends, goes_on):
                            with ends:
                                variant(c, lo, hi, flag, True)
                            with goes_on:
                                variant(c, lo, hi, flag, False)

        self._pieces_loop(b, fn, piece)
        b.ret_void()
        return fn


def _by_stride(b: ll.IRBuilder, stride: ll.Value, emit) -> None:
    """``emit(step)`` for contiguous floats (``step`` 1) and for others: the shared kernels
    take the stride as an argument, and a unit stride loads faster known."""
    with b.if_else(b.icmp_unsigned("==", stride, _c(1))) as (contiguous, strided):
        with contiguous:
            emit(_c(1))
        with strided:
            emit(stride)


_lock = threading.Lock()
_loaded: dict[str, int] = {}  # kernel symbol -> address, once compiled in this process


def load_shared(llvm_ir: str, compile_and_load) -> None:
    """Compile, or take from the object cache (``compile_and_load(llvm_ir, symbol) ->
    address``), each shared sort module that ``llvm_ir`` calls (this one's and
    ``sort_buckets.py``'s), once per process, before code calling it is loaded."""
    sort_buckets.load_shared(llvm_ir, compile_and_load)
    sort_quick.load_shared(llvm_ir, compile_and_load)
    with _lock:
        for kind, width, sort_kind in sorted(set(_SYMBOL.findall(llvm_ir))):
            width, argsort = int(width), sort_kind == "argsort"
            if shared_symbol(width, argsort, KERNELS[0], kind) in _loaded:
                continue
            module = _LaneKernels(width, argsort, kind).module
            _loaded.update(load_address_table(
                compile_and_load(str(module), shared_symbol(width, argsort, None, kind)),
                [shared_symbol(width, argsort, kernel, kind) for kernel in KERNELS]))
