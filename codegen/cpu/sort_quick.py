"""Long float sorts by a vectorized quicksort (sort49): partitions of ``LANES`` keys a compare.

``codegen/cpu/sort.py`` gives a float lane here where ``use_quicksort`` says so (AVX-512
targets, lengths measured faster than its radix path: docs/performance.md, "Float sorts by
vector partitions (sort49)"). The lane is first copied into the result with every NaN moved
past the numbers (``sort.py``); the numbers are then sorted here by float compares, so -0.0
and 0.0 are equal and may end in any order, which ``sort_keys.restore_lost`` then puts back in
input order, as the radix path does (NumPy's ``kind='stable'`` order, which jitcore promises
for every kind).

A partition works in place, as x86-simd-sort's: ``AHEAD`` vectors from each end of the segment
are held in registers, so that every later read frees room on one side; the side with less
free room is read next, ``AHEAD`` vectors at once, and each vector is compared with the pivot,
the keys below it compressed in a register (``llvm.experimental.vector.compress``) and stored
whole at the front (a vector's room is free there), the others compress-stored
(``llvm.masked.compressstore``) at the back: ``vcompressps/pd`` with AVX-512, LLVM's generic
lowering elsewhere. The last keys and the held vectors go last, into exactly the room left.
Reading one vector at a time measured 2-2.7x slower (loads waiting on the compress-stores just
before them); out of place, between two buffers, 1.1-1.2x slower at 10^6.

The pivot is the median of nine keys spread over the segment. Where those nine hold at most
two values, one read checks whether the segment holds any other (``_settle_few``): if not, it
is done (one value) or done after one partition (two), as x86-simd-sort does; a lane of few
distinct values then costs a pass or two per level, not two partitions a value (sortperf52). A
partition that puts nothing below the pivot is redone with ``<=``: the keys equal to it are
then done, so equal keys cost one pass each value at most, never a quadratic run. Segments of
``NETWORK_VECTORS`` vectors or fewer are finished by a bitonic network in registers (the
networks of ``sort_lanes.py`` and ``sort_short.py`` sort lanes laid out in scratch rows, not a
segment in place; an insertion sort measured 3.6x slower). Past ``depth`` levels the sort
gives up (returns 1) and ``sort.py`` sorts the lane again by its radix path: no quadratic
worst case.

A lane of ``THREADED_FROM`` keys or more sorts on the runtime's threads where it has more than
one (sort51, ``_QuickKernel._threaded``): ``SPLIT_LEVELS`` rounds of these partitions, each
round's segments split at once on the pool (round 0 as ``BLOCKS`` blocks partitioned apart by
one pivot, then keys swapped between them: sortperf52), then the segments sorted there; where each key
goes is a function of the lane alone, never of the thread count. The same partitions also
select (``np.partition``, and with positions moved beside the keys ``np.argpartition``:
``sort_select.py`` calls ``select`` and ``argselect``), going on in the side that holds the rank.

The kernels of each (key kind, width, lanes) are compiled once per process, a module per part
(``PARTS``, sorts56): the sort (``i64 <symbol>(ptr data, i64 n, i64 depth)``: 0 sorted in
``data``, 1 gave up), the same for lanes too short for threads (``serial``), and the two
selections, which hand their last range to the caller's scalar selection; the sorting
functions' modules declare and call them, as ``sort_buckets.py``'s. Each part has one partition
function and one pivot choice, which LLVM does not inline, and the 16-vector network merges two
sorted halves from the 8-vector one: the modules were 17,500-20,700 instructions and 2 s of LLVM
each, one a kind, and are now 1,000-4,500 and 0.1-0.4 s each (docs/performance.md, "Session
56: sort compile cost").
"""

from __future__ import annotations

import re
import threading

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime, sort_buckets, target
from jitcore.codegen.llvm_text import module_text
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

# Segments of at most this many vectors of keys are sorted by a bitonic network, per float
# width (two-buffer partitions, 10^6 keys, one thread, ms, 4 / 8 / 16 / 32 vectors: float32
# 5.6 / 4.9 / 5.0 / 5.3, float64 - / 11.6 / 9.0 / 10.1, a load of 17 on 2 cores; in place, 16
# vectors and 8 ahead: float32 4.2, float64 8.1).
NETWORK_VECTORS = {32: 16, 64: 16}
# Vectors a partition reads at once from either end (4: float64 at 10^6 8.8 ms, 8: 8.1); a
# partitioned segment holds more than a network's vectors, so at most half of those.
AHEAD = {32: 8, 64: 8}
SAMPLE = 9  # keys whose median is a partition's pivot
# Networks of this many vectors or more sort their halves by calls of the network of half as
# many (``_QuickKernel._network``); below, one network in registers.
HALVED_FROM = 16
# Lanes sorted here, per float width: lengths in any of the ranges [from, to) (lanes of 8192
# or fewer are sort_short.py's networks' first). Measured on an AVX-512 host (Emerald Rapids),
# where it is faster than the radix path: every float32 length from 10^4 to 3*10^6; float64
# below 10^5 and at 3*10^6, but not faster on random keys at 10^5-10^6 (docs/performance.md,
# "Float sorts by vector partitions (sort49)").
QUICK_LENGTHS = {32: ((1, 1 << 62),), 64: ((1, 100_000), (1 << 21, 1 << 62))}
# Lanes of at least THREADED_FROM keys are sorted on the runtime's threads where it has more
# than one (``_QuickKernel._threaded``): SPLIT_LEVELS rounds of partitions make up to
# 2^SPLIT_LEVELS segments, sorted on the threads. A segment of SPLIT_MIN keys or fewer is not
# split further. A launch weighs SORT_WORK points a key against ``parallel_threshold``
# (a sort reads each key about log2(n) times, an elementwise kernel once).
THREADED_FROM = 1 << 15
SPLIT_LEVELS = 3
SPLIT_MIN = 1 << 12
SORT_WORK = 16
SEGMENT = 4  # i64s a segment: start, length, depth left, gave up
BLOCKS = 2  # round 0's blocks, partitioned apart on the pool (the swap after it is for two)
ENABLED = True  # False: the radix path for every lane (tools/bench_sort.py --radix)
FORCE_LANES: int | None = None  # tests: a vector width of their own on any target

SYMBOL_PREFIX = "jitcore_cpu_sort_quick"
# A module of its own per part (sorts56): the sort (networks, recursion, threads), the sort of
# a lane too short for threads (``serial``: no threads' kernels, and no pool to load), the
# selection and the selection with positions. A process compiles only the parts its code calls
# (an int partition neither the sort's networks nor argpartition's moves of positions).
PARTS = ("sort", "serial", "select", "argselect")
_SYMBOL = re.compile(SYMBOL_PREFIX + r"_([fiu])(32|64)_w(\d+)_(" + "|".join(PARTS) + r")\b")


def shared_symbol(width: int, lanes: int, kind: str = "f", serial: bool = False) -> str:
    """The sort's symbol, of keys of ``kind`` (``sort_keys.KINDS``: float, signed or unsigned
    int); ``serial``: the one for lanes shorter than ``THREADED_FROM``, on one thread."""
    return f"{SYMBOL_PREFIX}_{kind}{width}_w{lanes}_{'serial' if serial else 'sort'}"


def table_symbol(width: int, lanes: int, kind: str = "f", part: str = "sort") -> str:
    """The symbol of the table of addresses of one part's module (``PARTS``)."""
    return f"{SYMBOL_PREFIX}_{kind}{width}_w{lanes}_{part}_table"


def lanes_for(width: int, isa: frozenset[str]) -> int | None:
    """Keys per partition compare on a target with kernel ``isa`` (``target.kernel_isa``):
    a 512-bit vector's with AVX-512 (a compress-store instruction); None elsewhere, where
    LLVM's lowering of a compress-store is a branch per key and the radix path stays."""
    if FORCE_LANES is not None:
        return FORCE_LANES
    return 512 // width if "avx512" in isa else None


def use_quicksort(width: int, n: int, isa: frozenset[str]) -> int | None:
    """The lanes of the quicksort for a float lane of ``n`` keys of ``width`` bits, or None:
    the radix path."""
    if not ENABLED or lanes_for(width, isa) is None:
        return None
    taken = any(start <= n < stop for start, stop in QUICK_LENGTHS.get(width, ()))
    return lanes_for(width, isa) if taken else None


# Int lanes sorted here (sorts55) rather than by the radix path, where their span is too wide
# to count: lengths in any of these ranges, per width. Measured (one thread, load 11; random
# ints of +-2^30, tools/bench_argsort.py-like, ms quicksort / radix / NumPy): int32 10^4
# 0.034 / 0.044 / 0.023, 10^5 0.46 / 0.71 / 0.31, 10^6 5.7 / 8.8 / 4.2; int64 10^4 0.062 /
# 0.085 / 0.046, 10^5 0.89 / 0.92 / 0.60, 10^6 12.9 / 12.8 / 8.7 and 12.5 / 10.0 over the
# whole int64 range: int64 from 2^17 stays radix.
INT_QUICK_LENGTHS = {32: ((1, 1 << 62),), 64: ((1, 1 << 17),)}


def use_int_quicksort(width: int, n: int, isa: frozenset[str]) -> int | None:
    """The lanes of the quicksort for an int lane of ``n`` keys of ``width`` bits too wide to
    count, or None: the radix path."""
    if not ENABLED or lanes_for(width, isa) is None:
        return None
    taken = any(start <= n < stop for start, stop in INT_QUICK_LENGTHS.get(width, ()))
    return lanes_for(width, isa) if taken else None


def use_threaded_quicksort(width: int, n: int, isa: frozenset[str]) -> int | None:
    """The lanes of the quicksort for a lane that ``use_quicksort`` leaves to the radix path
    on one thread but that the quicksort sorts on several (``THREADED_FROM`` keys or more: the
    radix path runs on one thread), or None."""
    if not ENABLED or lanes_for(width, isa) is None or use_quicksort(width, n, isa) is not None:
        return None
    return lanes_for(width, isa) if n >= THREADED_FROM else None


def depth_limit(n: int) -> int:
    """Partition levels before the sort gives up: twice a balanced split's."""
    return 2 * max(1, n.bit_length()) + 4


def declare(module: ll.Module, width: int, lanes: int, kind: str = "f", serial: bool = False) -> ll.Function:
    """``i64 sort(data, n, depth)``; ``serial``: for ``n`` below ``THREADED_FROM`` only."""
    name = shared_symbol(width, lanes, kind, serial)
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ll.Function(module, ll.FunctionType(I64, [PTR, I64, I64]), name)


def select_symbol(width: int, lanes: int, positions: bool = False, kind: str = "f") -> str:
    return f"{SYMBOL_PREFIX}_{kind}{width}_w{lanes}_{'argselect' if positions else 'select'}"


def declare_select(module: ll.Module, width: int, lanes: int, positions: bool = False,
                   kind: str = "f") -> ll.Function:
    """``void select(ptr data, i64 n, i64 k, ptr range)`` of the quicksort's selection
    module, or (``positions``) ``void argselect(ptr data, ptr positions, i64 n, i64 k, ptr
    range)`` (``_QuickKernel._select``)."""
    name = select_symbol(width, lanes, positions, kind)
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    params = [PTR, PTR, I64, I64, PTR] if positions else [PTR, I64, I64, PTR]
    return ll.Function(module, ll.FunctionType(ll.VoidType(), params), name)


def _c(v: int) -> ll.Constant:
    return ll.Constant(I64, v)


class _QuickKernel:
    """The module of one (key kind, width, lanes) quicksort: floats (no NaN: the callers move
    them out first) or, since sorts55, signed or unsigned ints (``kind`` "i", "u"), which
    compare as ints and pad a network with their largest value."""

    def __init__(self, width: int, lanes: int, kind: str = "f", part: str = "sort"):
        self.width, self.lanes, self.kind, self.module_part = width, lanes, kind, part
        if kind == "f":
            self.t = ll.FloatType() if width == 32 else ll.DoubleType()
            self.largest = float("inf")
        else:
            self.t = ll.IntType(width)
            self.largest = (1 << (width - 1)) - 1 if kind == "i" else (1 << width) - 1
        letter = "f" if kind == "f" else "i"  # the intrinsics' name of the element type
        self.vec = ll.VectorType(self.t, lanes)
        self.mask = ll.VectorType(I1, lanes)
        self.module = ll.Module()
        m = self.module
        def intrinsic(name, result, params):  # once: int64 keys share the positions' ones
            return m.globals.get(name) or ll.Function(m, ll.FunctionType(result, params), name)

        self.compress = intrinsic(f"llvm.masked.compressstore.v{lanes}{letter}{width}", ll.VoidType(),
                                  [self.vec, PTR, self.mask])
        self.squeeze = intrinsic(f"llvm.experimental.vector.compress.v{lanes}{letter}{width}", self.vec,
                                 [self.vec, self.mask, self.vec])
        # positions beside the keys (argpartition), in parts of at most 8: LLVM 22's
        # compress of 16 i64s (two registers) crashed at run time on AVX-512
        self.part = min(lanes, 8)
        self.ivec, pmask = ll.VectorType(I64, self.part), ll.VectorType(I1, self.part)
        self.icompress = intrinsic(f"llvm.masked.compressstore.v{self.part}i64", ll.VoidType(),
                                   [self.ivec, PTR, pmask])
        self.isqueeze = intrinsic(f"llvm.experimental.vector.compress.v{self.part}i64", self.ivec,
                                  [self.ivec, pmask, self.ivec])
        self.imasked_load = intrinsic(f"llvm.masked.load.v{self.part}i64.p0", self.ivec,
                                      [PTR, ll.IntType(32), pmask, self.ivec])
        self.pctpop = m.declare_intrinsic("llvm.ctpop", [ll.IntType(self.part)])
        bits = ll.IntType(lanes)
        self.ctpop = m.declare_intrinsic("llvm.ctpop", [bits])
        self.bits = bits
        self.small = NETWORK_VECTORS[width] * lanes
        suffix = f"v{lanes}{letter}{width}.p0"
        self.masked_load = intrinsic(f"llvm.masked.load.{suffix}", self.vec,
                                     [PTR, ll.IntType(32), self.mask, self.vec])
        self.masked_store = ll.Function(m, ll.FunctionType(ll.VoidType(), [self.vec, PTR, ll.IntType(32),
                                                                         self.mask]),
                                        f"llvm.masked.store.{suffix}")
        self._partitions: dict[bool, ll.Function] = {}
        self._choosers: dict[bool, ll.Function] = {}
        if part in ("sort", "serial"):
            entry = self._sort_entry(threaded=part == "sort")
        else:
            entry = self._select(positions=part == "argselect")
        sort_buckets.emit_address_table(m, table_symbol(width, lanes, kind, part), [entry])
        if width == 32 or kind != "f":  # vectors already: O3 without SLP makes the same
            # object code (int64's too: sorts56). Not float64's: there SLP reorders scalar
            # compares, and without it a 50,000-key sort on one thread measured 1.04-1.5x as
            # long (docs/performance.md, session 54)
            m.add_named_metadata(target.NO_SLP_METADATA, [])

    def _sort_entry(self, threaded: bool) -> ll.Function:
        """The sort's entry (``i64 sort(data, n, depth)``), its networks, its recursion and
        (``threaded``) its kernels on the threads."""
        self.networks = {}
        count = 1
        while count <= NETWORK_VECTORS[self.width]:
            self.networks[count] = self._network(count)
            count *= 2
        self.rec = ll.Function(self.module, ll.FunctionType(I1, [PTR, I64, I64]),
                               f"{shared_symbol(self.width, self.lanes, kind=self.kind)}_segment")
        self.rec.linkage = "internal"
        self._segment()
        entry = declare(self.module, self.width, self.lanes, self.kind, serial=not threaded)
        b = ll.IRBuilder(entry.append_basic_block("entry"))
        data, n, depth = entry.args
        if threaded:
            self.split = self._split_kernel()
            self.blocks = self._blocks_kernel()
            self.finish = self._finish_kernel()
            threads = runtime.setting(b, "num_threads")
            many = b.and_(b.icmp_signed(">=", n, _c(THREADED_FROM)), b.icmp_signed(">", threads, _c(1)))
            with b.if_then(many, likely=False):
                b.ret(self._threaded(b, data, n, depth))
        failed = b.call(self.rec, [data, n, depth])
        b.ret(b.zext(failed, I64))
        return entry

    def _threaded(self, b, data, n, depth) -> ll.Value:
        """Sort the lane on the runtime's threads: ``SPLIT_LEVELS`` rounds of partitions, each
        round's segments split at once on the threads, then every segment sorted on the
        threads; 1 where a segment gave up past ``depth``. Round 0 splits the lane's
        ``BLOCKS`` blocks apart by one pivot (``_blocks_kernel``), then swaps the keys above it
        in the first block with the keys below it in the second (their order within a side is
        free): the first round too runs on two threads (sortperf52).

        Segments are rows of ``SEGMENT`` i64s (start, length, depth left, gave up) in one table
        per round, segment ``i`` of a round splitting into ``2i`` and ``2i + 1`` of the next:
        where each key goes is a function of the lane alone, never of the thread count."""
        rows = sum(1 << level for level in range(SPLIT_LEVELS + 1))
        with b.goto_entry_block():
            table = b.alloca(I64, size=rows * SEGMENT)
            counts = b.alloca(I64, size=BLOCKS + 1)
            pivot_at = b.alloca(self.t)
        for k, value in enumerate((_c(0), n, depth, _c(0))):
            b.store(value, b.gep(table, [_c(k)], source_etype=I64))
        work = b.mul(n, _c(SORT_WORK))
        settled, pivot = self._choose(b, data, n)
        with b.if_then(settled, likely=False):
            b.ret(_c(0))
        b.store(pivot, pivot_at)
        b.store(n, b.gep(counts, [_c(BLOCKS)], source_etype=I64))
        runtime.emit_launch(b, self.blocks, [data, pivot_at, counts],
                            runtime.Split(BLOCKS, work))
        first, second = (b.load(b.gep(counts, [_c(k)], source_etype=I64), typ=I64) for k in range(2))
        half = b.sdiv(n, _c(BLOCKS))
        swapped = b.select(b.icmp_signed("<", b.sub(half, first), second), b.sub(half, first), second)
        other = b.sub(b.add(half, second), swapped)

        def swap(i):  # a key above the pivot in block 0 for one below it in block 1
            x, y = self.at(b, data, b.add(first, i)), self.at(b, data, b.add(other, i))
            kx, ky = b.load(x, typ=self.t), b.load(y, typ=self.t)
            b.store(ky, x)
            b.store(kx, y)

        emit_loop(b, swapped, swap)
        below = b.add(first, second)
        down = b.sub(depth, _c(1))
        halves = b.gep(table, [_c(SEGMENT)], source_etype=I64)
        with b.if_else(b.icmp_unsigned("==", below, _c(0)), likely=False) as (none, split):
            with none:  # the keys equal to the pivot: round 0 as the later ones
                runtime.emit_launch(b, self.split, [data, table, halves], runtime.Split(1, work))
            with split:
                for k, value in enumerate((_c(0), below, down, _c(0), below, b.sub(n, below), down, _c(0))):
                    b.store(value, b.gep(halves, [_c(k)], source_etype=I64))
        row = 1
        for level in range(1, SPLIT_LEVELS):
            here = b.gep(table, [_c(row * SEGMENT)], source_etype=I64)
            row += 1 << level
            below = b.gep(table, [_c(row * SEGMENT)], source_etype=I64)
            runtime.emit_launch(b, self.split, [data, here, below], runtime.Split(1 << level, work))
        last = b.gep(table, [_c(row * SEGMENT)], source_etype=I64)
        segments = 1 << SPLIT_LEVELS
        runtime.emit_launch(b, self.finish, [data, last], runtime.Split(segments, work))
        failed = _c(0)
        for k in range(segments):
            failed = b.or_(failed, b.load(b.gep(last, [_c(k * SEGMENT + 3)], source_etype=I64), typ=I64))
        return failed

    def _blocks_kernel(self) -> ll.Function:
        """``blocks(data, pivot, counts, lo, hi)``: blocks ``[lo, hi)`` of the ``counts[BLOCKS]``
        keys at ``data`` (block ``c`` from ``c n / BLOCKS``) each partitioned by ``*pivot``
        (``<``), their keys below it counted in ``counts[c]``."""
        fn, b = self._ranged("blocks", 3)
        data, pivot_at, counts, lo, hi = fn.args
        n = b.load(b.gep(counts, [_c(BLOCKS)], source_etype=I64), typ=I64)
        pivot = b.load(pivot_at, typ=self.t)

        def one(c):
            block = b.add(lo, c)
            start = b.sdiv(b.mul(n, block), _c(BLOCKS))
            end = b.sdiv(b.mul(n, b.add(block, _c(1))), _c(BLOCKS))
            below = self._partition(b, self.at(b, data, start), b.sub(end, start), pivot, "<")
            b.store(below, b.gep(counts, [block], source_etype=I64))

        emit_loop(b, b.sub(hi, lo), one, vectorize=False, unroll=False)
        b.ret_void()
        return fn

    def _select(self, positions: bool = False) -> ll.Function:
        """``void select(a, n, k, range)``: the ``n`` keys at ``a`` (no NaN) partitioned
        towards ``np.partition``'s contract at ``k`` (``sort_select.py``): the partitions of the
        sort, each going on in the side holding ``k``. ``range`` gets the ``[lo, hi)`` still
        to select in (a network's length or, past ``depth_limit(n)`` levels, a longer one;
        empty when done), which the caller's scalar selection finishes: no network here
        (sorts56: the networks were about a seventh of the module's compile, for a range of a
        few hundred keys at the end of a selection of thousands).

        ``positions`` (argpartition): ``void argselect(a, pos, n, k, range)``, the positions
        moved with the keys."""
        fn = declare_select(self.module, self.width, self.lanes, positions, self.kind)
        if positions:
            a0, pos0, n0, k0, out = fn.args
        else:
            (a0, n0, k0, out), pos0 = fn.args, None
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        a, n, k, depth = (b.alloca(t) for t in (PTR, I64, I64, I64))
        ctlz = self.module.declare_intrinsic("llvm.ctlz", [I64], ll.FunctionType(I64, [I64, I1]))
        bits = b.sub(_c(64), b.call(ctlz, [n0, ll.Constant(I1, 0)]))
        for slot, value in ((a, a0), (n, n0), (k, k0), (depth, b.add(b.mul(bits, _c(2)), _c(4)))):
            b.store(value, slot)
        head, body, small, done = (fn.append_basic_block(x) for x in ("round", "partition", "small", "done"))
        b.branch(head)
        b.position_at_end(head)
        here, size, rank = (b.load(x, typ=t) for x, t in ((a, PTR), (n, I64), (k, I64)))
        skipped = b.sdiv(b.sub(b.ptrtoint(here, I64), b.ptrtoint(a0, I64)), _c(self.width // 8))

        def leave(lo, hi):  # what is left to the caller
            b.store(lo, out)
            b.store(hi, b.gep(out, [_c(1)], source_etype=I64))
            b.ret_void()

        b.cbranch(b.icmp_signed("<=", size, _c(self.small)), small, body)
        b.position_at_end(small)
        leave(skipped, b.add(skipped, size))
        b.position_at_end(body)
        left = b.load(depth, typ=I64)
        with b.if_then(b.icmp_signed("<=", left, _c(0)), likely=False):
            leave(skipped, b.add(skipped, size))
        b.store(b.sub(left, _c(1)), depth)
        at_pos = None if pos0 is None else b.gep(pos0, [skipped], inbounds=True, source_etype=I64)
        unsettled = fn.append_basic_block("unsettled")
        settled, pivot = self._choose(b, here, size, at_pos)
        b.cbranch(settled, done, unsettled)
        b.position_at_end(unsettled)
        below = self._partition(b, here, size, pivot, "<", at_pos)

        def go_on(skip, keep):  # the keys from ``skip`` on, ``keep`` of them, hold rank k
            b.store(self.at(b, here, skip), a)
            b.store(keep, n)
            b.store(b.sub(rank, skip), k)
            b.branch(head)

        none_bb, split_bb, upper_bb, lower_bb = (fn.append_basic_block(x) for x in
                                                 ("none_below", "split", "upper", "lower"))
        b.cbranch(b.icmp_unsigned("==", below, _c(0)), none_bb, split_bb)
        b.position_at_end(none_bb)  # the keys equal to the pivot go first: done if k is one
        equal = self._partition(b, here, size, pivot, "<=", at_pos)
        rest_bb = fn.append_basic_block("rest")
        b.cbranch(b.icmp_signed("<", rank, equal), done, rest_bb)
        b.position_at_end(rest_bb)
        go_on(equal, b.sub(size, equal))
        b.position_at_end(split_bb)
        b.cbranch(b.icmp_signed("<", rank, below), lower_bb, upper_bb)
        b.position_at_end(lower_bb)
        go_on(_c(0), below)
        b.position_at_end(upper_bb)
        go_on(below, b.sub(size, below))
        b.position_at_end(done)
        leave(_c(0), _c(0))
        return fn

    def _ranged(self, name: str, pointers: int) -> tuple[ll.Function, ll.IRBuilder]:
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR] * pointers + [I64, I64]),
                         f"{shared_symbol(self.width, self.lanes, self.kind)}_{name}")
        fn.linkage = "internal"
        fn.attributes.add("noinline")  # called whole and from the pool's workers: one copy
        return fn, ll.IRBuilder(fn.append_basic_block("entry"))

    def _split_kernel(self) -> ll.Function:
        """``split(data, segments, halves, lo, hi)``: segments ``[lo, hi)`` of one round each
        partitioned once into rows ``2i`` (the keys below the pivot) and ``2i + 1`` of the
        next round's table; a short segment (a network's or ``SPLIT_MIN``) goes on whole as
        ``2i``, an empty ``2i + 1`` beside it."""
        fn, b = self._ranged("split", 3)
        data, segments, halves, lo, hi = fn.args

        def field(table, i, k):
            return b.gep(table, [b.add(b.mul(i, _c(SEGMENT)), _c(k))], source_etype=I64)

        def put(i, start, n, depth, failed):
            for k, value in enumerate((start, n, depth, failed)):
                b.store(value, field(halves, i, k))

        def one(c):
            i = b.add(lo, c)
            start, n, depth, failed = (b.load(field(segments, i, k), typ=I64) for k in range(SEGMENT))
            left, right = b.mul(i, _c(2)), b.add(b.mul(i, _c(2)), _c(1))
            put(left, start, n, depth, failed)
            put(right, b.add(start, n), _c(0), depth, _c(0))
            long = b.and_(b.icmp_signed(">", n, _c(max(SPLIT_MIN, self.small))),
                          b.icmp_signed("==", failed, _c(0)))
            with b.if_then(long):
                with b.if_else(b.icmp_signed("<=", depth, _c(0)), likely=False) as (deep, fine):
                    with deep:
                        b.store(_c(1), field(halves, left, 3))
                    with fine:
                        a = self.at(b, data, start)
                        settled, pivot = self._choose(b, a, n)
                        down = b.sub(depth, _c(1))
                        with b.if_else(settled, likely=False) as (few, many):
                            with few:  # sorted: both halves empty
                                put(left, start, _c(0), down, _c(0))
                                put(right, b.add(start, n), _c(0), down, _c(0))
                            with many:
                                self._split_at(b, a, n, pivot, start, down, left, right, put)

        emit_loop(b, b.sub(hi, lo), one, vectorize=False, unroll=False)
        b.ret_void()
        return fn

    def _split_at(self, b, a, n, pivot, start, down, left, right, put) -> None:
        """One partition of a split round's segment into its rows ``left`` and ``right``."""
        below = self._partition(b, a, n, pivot, "<")
        with b.if_else(b.icmp_unsigned("==", below, _c(0))) as (none, split):
            with none:  # the keys equal to the pivot go first, done
                equal = self._partition(b, a, n, pivot, "<=")
                put(left, start, _c(0), down, _c(0))
                put(right, b.add(start, equal), b.sub(n, equal), down, _c(0))
            with split:
                put(left, start, below, down, _c(0))
                put(right, b.add(start, below), b.sub(n, below), down, _c(0))

    def _finish_kernel(self) -> ll.Function:
        """``finish(data, segments, lo, hi)``: segments ``[lo, hi)`` of the last round sorted
        (the quicksort's own recursion), each noting whether it gave up."""
        fn, b = self._ranged("finish", 2)
        data, segments, lo, hi = fn.args

        def one(c):
            row = b.mul(b.add(lo, c), _c(SEGMENT))
            start, n, depth, failed = (b.load(b.gep(segments, [b.add(row, _c(k))], source_etype=I64), typ=I64)
                                       for k in range(SEGMENT))
            with b.if_then(b.and_(b.icmp_signed(">", n, _c(1)), b.icmp_signed("==", failed, _c(0)))):
                gave_up = b.call(self.rec, [self.at(b, data, start), n, depth])
                b.store(b.zext(gave_up, I64), b.gep(segments, [b.add(row, _c(3))], source_etype=I64))

        emit_loop(b, b.sub(hi, lo), one, vectorize=False, unroll=False)
        b.ret_void()
        return fn

    def cmp(self, b, op, x, y) -> ll.Value:
        """``x op y`` for keys (scalars or vectors) of this sort's kind."""
        if self.kind == "f":
            return b.fcmp_ordered(op, x, y)
        if self.kind == "i":
            return b.icmp_signed(op, x, y)
        return b.icmp_unsigned(op, x, y)

    def least(self, b, x, y) -> ll.Value:
        """The smaller of int keys ``x`` and ``y`` (vectors), as LLVM's min intrinsic: the
        compare and select it stands for left InstCombine one more pattern to find in every
        step of the networks (sorts56)."""
        return b.call(self._min_max("min", x.type), [x, y])

    def greatest(self, b, x, y) -> ll.Value:
        return b.call(self._min_max("max", x.type), [x, y])

    def _min_max(self, which: str, t) -> ll.Function:
        suffix = f"v{t.count}i{t.element.width}" if isinstance(t, ll.VectorType) else f"i{t.width}"
        name = f"llvm.{'s' if self.kind == 'i' else 'u'}{which}.{suffix}"
        return self.module.globals.get(name) or ll.Function(self.module, ll.FunctionType(t, [t, t]), name)

    def at(self, b, base, i):
        return b.gep(base, [i], inbounds=True, source_etype=self.t)

    def _segment(self) -> None:
        """``i1 segment(a, n, depth)``: sort the ``n`` keys at ``a`` in place; 1: gave up past
        ``depth``."""
        fn = self.rec
        a, n, depth = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        small_bb, big_bb = fn.append_basic_block("small"), fn.append_basic_block("big")
        b.cbranch(b.icmp_signed("<=", n, _c(self.small)), small_bb, big_bb)
        b.position_at_end(small_bb)
        self._small(b, a, a, n)
        b.ret(ll.Constant(I1, 0))

        b.position_at_end(big_bb)
        with b.if_then(b.icmp_signed("<=", depth, _c(0)), likely=False):
            b.ret(ll.Constant(I1, 1))
        settled, pivot = self._choose(b, a, n)
        with b.if_then(settled, likely=False):
            b.ret(ll.Constant(I1, 0))
        down = b.sub(depth, _c(1))
        below = self._partition(b, a, n, pivot, "<")
        none_bb, split_bb = fn.append_basic_block("none_below"), fn.append_basic_block("split")
        b.cbranch(b.icmp_unsigned("==", below, _c(0)), none_bb, split_bb)

        # nothing below the pivot: the keys equal to it go first, done; the rest is sorted
        b.position_at_end(none_bb)
        equal = self._partition(b, a, n, pivot, "<=")
        b.ret(b.call(fn, [self.at(b, a, equal), b.sub(n, equal), down]))

        # the smaller half first: the larger is a tail call, which LLVM makes a loop, so the
        # stack holds at most log2(n) frames
        b.position_at_end(split_bb)
        above = b.sub(n, below)
        left_first = b.icmp_unsigned("<=", below, above)
        upper = self.at(b, a, below)
        first = b.call(fn, [b.select(left_first, a, upper), b.select(left_first, below, above), down])
        with b.if_then(first, likely=False):
            b.ret(ll.Constant(I1, 1))
        b.ret(b.call(fn, [b.select(left_first, upper, a), b.select(left_first, above, below), down]))

    def _partition(self, b, a, n, pivot, op, pos=None) -> ll.Value:
        """A call of the module's partition (``_partition_function``) by ``op``, "<" or "<=":
        the keys ``<= pivot`` are the keys ``<`` the next key after it, and where none is
        after it (the largest key) all of them."""
        fn = self._partitions.get(pos is not None)
        if fn is None:
            fn = self._partitions[pos is not None] = self._partition_function(pos is not None)
        if op == "<":
            return b.call(fn, [a, n, pivot] if pos is None else [a, pos, n, pivot])
        with b.goto_entry_block():
            below = b.alloca(I64)
        b.store(n, below)
        with b.if_then(self.cmp(b, "<", pivot, ll.Constant(self.t, self.largest))):
            after = self._next_key(b, pivot)
            b.store(b.call(fn, [a, n, after] if pos is None else [a, pos, n, after]), below)
        return b.load(below, typ=I64)

    def _next_key(self, b, key) -> ll.Value:
        """The least key above ``key`` (below the largest): the next int, or the next float
        (the smallest subnormal after either zero, which compare equal)."""
        if self.kind != "f":
            return b.add(key, ll.Constant(self.t, 1))
        bits_type = ll.IntType(self.width)
        bits = b.bitcast(key, bits_type)
        one = ll.Constant(bits_type, 1)
        zero = ll.Constant(self.t, 0.0)
        away = b.select(b.fcmp_ordered(">", key, zero), b.add(bits, one), b.sub(bits, one))
        return b.bitcast(b.select(b.fcmp_ordered("==", key, zero), one, away), self.t)

    def _partition_function(self, positions: bool) -> ll.Function:
        """``i64 partition(a, [pos,] n, pivot)`` (``_emit_partition`` by "<"), one function
        (sorts56): the module had held a copy of it at each of its dozen calls, by "<" and by
        "<=", each copy about 0.07 s of the module's O3, which was then 2 s of a process's
        first int sort or partition."""
        params = [PTR, PTR, I64, self.t] if positions else [PTR, I64, self.t]
        suffix = f"partition{'_positions' if positions else ''}"
        fn = ll.Function(self.module, ll.FunctionType(I64, params),
                         f"{SYMBOL_PREFIX}_{self.kind}{self.width}_w{self.lanes}_{self.module_part}_{suffix}")
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        if positions:
            a, pos, n, pivot = fn.args
        else:
            (a, n, pivot), pos = fn.args, None
        b.ret(self._emit_partition(b, a, n, pivot, "<", pos))
        return fn

    def _emit_partition(self, b, a, n, pivot, op, pos=None) -> ll.Value:
        """Keys at ``a`` (``n`` of them, at least ``2 AHEAD`` vectors) that compare ``op`` the
        pivot to its front, the others to its back, in place; their count. ``AHEAD`` vectors
        from each end are held in registers, so that each read frees room on one side: the
        side with less free room is read next (``AHEAD`` vectors at once, before any of them
        is written), and then both have that much room at least. ``pos``: i64 positions laid
        out as the keys, moved with them."""
        w, u = self.lanes, AHEAD[self.width]
        assert 2 * u <= NETWORK_VECTORS[self.width]  # a partitioned segment holds 2u vectors
        align = self.width // 8
        undefined = ll.Constant(self.vec, ll.Undefined)
        with b.goto_entry_block():
            slots = [b.alloca(I64) for _ in range(4)]
        read_lo, read_hi, put_lo, put_hi = slots
        splat = b.insert_element(undefined, pivot, _c(0))
        splat = b.shuffle_vector(splat, undefined, ll.Constant(ll.VectorType(ll.IntType(32), w), [0] * w))

        def pos_at(at):
            return b.gep(pos, [at], inbounds=True, source_etype=I64)

        def load(at):
            v = b.load(self.at(b, a, at), typ=self.vec)
            v.align = align
            if pos is None:
                return v, None
            parts = [b.load(pos_at(b.add(at, _c(j))), typ=self.ivec) for j in range(0, w, self.part)]
            for part in parts:
                part.align = 8
            return v, parts

        def mask_part(mask, j):
            return mask if self.part == w else b.shuffle_vector(
                mask, ll.Constant(self.mask, ll.Undefined),
                ll.Constant(ll.VectorType(ll.IntType(32), self.part), list(range(j, j + self.part))))

        def put_positions(parts, mask, at, whole):  # as the keys of ``mask`` went, from ``at``
            for j, part in zip(range(0, w, self.part), parts):
                m = mask_part(mask, j)
                if whole:
                    squeezed = b.call(self.isqueeze, [part, m, ll.Constant(self.ivec, ll.Undefined)])
                    b.store(squeezed, pos_at(at)).align = 8
                else:
                    b.call(self.icompress, [part, pos_at(at), m])
                bits = b.bitcast(m, ll.IntType(self.part))
                at = b.add(at, b.zext(b.call(self.pctpop, [bits]), I64))

        held = [load(_c(k * w)) for k in range(u)] + [load(b.sub(n, _c((k + 1) * w))) for k in range(u)]
        b.store(_c(u * w), read_lo)
        b.store(b.sub(n, _c(u * w)), read_hi)
        b.store(_c(0), put_lo)
        b.store(n, put_hi)

        def put(vp, valid=None, whole=False):
            v, p = vp
            goes = self.cmp(b, op, v, splat)
            stays = b.not_(goes)
            if valid is not None:
                goes, stays = b.and_(goes, valid), b.and_(stays, valid)
            count = b.zext(b.call(self.ctpop, [b.bitcast(goes, self.bits)]), I64)
            others = b.zext(b.call(self.ctpop, [b.bitcast(stays, self.bits)]), I64)
            left = b.load(put_lo, typ=I64)
            if whole:  # a vector's room is free at the front
                front = b.call(self.squeeze, [v, goes, undefined])
                b.store(front, self.at(b, a, left)).align = align
                if p is not None:
                    put_positions(p, goes, left, whole=True)
            else:
                b.call(self.compress, [v, self.at(b, a, left), goes])
                if p is not None:
                    put_positions(p, goes, left, whole=False)
            right = b.sub(b.load(put_hi, typ=I64), others)
            b.call(self.compress, [v, self.at(b, a, right), stays])
            if p is not None:
                put_positions(p, stays, right, whole=False)
            b.store(b.add(left, count), put_lo)
            b.store(right, put_hi)

        head, body, tail = (b.function.append_basic_block(x) for x in ("ip_head", "ip_body", "ip_tail"))
        b.branch(head)
        b.position_at_end(head)
        lo, hi = b.load(read_lo, typ=I64), b.load(read_hi, typ=I64)
        b.cbranch(b.icmp_signed(">=", b.sub(hi, lo), _c(u * w)), body, tail)
        b.position_at_end(body)
        room_front = b.sub(lo, b.load(put_lo, typ=I64))
        room_back = b.sub(b.load(put_hi, typ=I64), hi)
        from_front = b.icmp_signed("<=", room_front, room_back)
        at = b.select(from_front, lo, b.sub(hi, _c(u * w)))
        batch = [load(b.add(at, _c(k * w))) for k in range(u)]
        b.store(b.select(from_front, b.add(lo, _c(u * w)), lo), read_lo)
        b.store(b.select(from_front, hi, b.sub(hi, _c(u * w))), read_hi)
        for v in batch:
            put(v, whole=True)
        b.branch(head)
        b.position_at_end(tail)
        # the last keys (fewer than AHEAD vectors) read before anything more is written: then
        # the free room is exactly what the held vectors and they hold
        iota = ll.Constant(ll.VectorType(I64, w), list(range(w)))
        vi64 = ll.VectorType(I64, w)
        left_over = b.sub(hi, lo)
        rest = []
        for k in range(u):
            count = b.insert_element(ll.Constant(vi64, ll.Undefined), b.sub(left_over, _c(k * w)), _c(0))
            count = b.shuffle_vector(count, ll.Constant(vi64, ll.Undefined),
                                     ll.Constant(ll.VectorType(ll.IntType(32), w), [0] * w))
            valid = b.icmp_signed("<", iota, count)
            at = b.add(lo, _c(k * w))
            keys = b.call(self.masked_load, [self.at(b, a, at), ll.Constant(ll.IntType(32), align), valid,
                                             undefined])
            positions = None if pos is None else [
                b.call(self.imasked_load, [pos_at(b.add(at, _c(j))), ll.Constant(ll.IntType(32), 8),
                                           mask_part(valid, j), ll.Constant(self.ivec, ll.Undefined)])
                for j in range(0, w, self.part)]
            rest.append(((keys, positions), valid))
        for v, valid in rest:
            put(v, valid)
        for v in held:
            put(v)
        return b.load(put_lo, typ=I64)

    def _choose(self, b, a, n, pos=None) -> tuple[ll.Value, ll.Value]:
        """(i1 settled, pivot) of the ``n`` keys at ``a``: ``_settle_few`` of their sample, and
        its middle key, by a call of a function of its own (sorts56: its copy inlined at each
        of four calls was about 0.05 s of the module's compile each)."""
        fn = self._choosers.get(pos is not None)
        if fn is None:
            params = [PTR, PTR, I64, PTR] if pos is not None else [PTR, I64, PTR]
            suffix = "choose_positions" if pos is not None else "choose"
            fn = ll.Function(self.module, ll.FunctionType(I1, params),
                             f"{SYMBOL_PREFIX}_{self.kind}{self.width}_w{self.lanes}_{self.module_part}_{suffix}")
            fn.linkage = "internal"
            fn.attributes.add("noinline")
            inner = ll.IRBuilder(fn.append_basic_block("entry"))
            if pos is not None:
                a_, pos_, n_, out = fn.args
            else:
                (a_, n_, out), pos_ = fn.args, None
            sample = self._sample(inner, a_, n_)
            inner.store(sample[SAMPLE // 2], out)
            inner.ret(self._settle_few(inner, a_, n_, sample, pos_))
            self._choosers[pos is not None] = fn
        with b.goto_entry_block():
            slot = b.alloca(self.t)
        settled = b.call(fn, [a, n, slot] if pos is None else [a, pos, n, slot])
        return settled, b.load(slot, typ=self.t)

    def _sample(self, b, p, n) -> list[ll.Value]:
        """``SAMPLE`` keys spread evenly over the segment, sorted (by an odd-even transposition
        network of compares and selects); the middle one is the pivot."""
        last = b.sub(n, _c(1))
        keys = [b.load(self.at(b, p, b.udiv(b.mul(last, _c(k)), _c(SAMPLE - 1))), typ=self.t)
                for k in range(SAMPLE)]
        for rnd in range(SAMPLE):
            for k in range(rnd % 2, SAMPLE - 1, 2):
                if self.kind != "f":
                    keys[k], keys[k + 1] = (self.least(b, keys[k], keys[k + 1]),
                                            self.greatest(b, keys[k], keys[k + 1]))
                    continue
                lt = self.cmp(b, "<", keys[k + 1], keys[k])
                keys[k], keys[k + 1] = (b.select(lt, keys[k + 1], keys[k]),
                                        b.select(lt, keys[k], keys[k + 1]))
        return keys

    def _settle_few(self, b, a, n, sample, pos=None) -> ll.Value:
        """i1: the ``n`` keys at ``a`` (a partition's, at least ``2 AHEAD`` vectors) hold at
        most the two values of a ``sample`` (sorted) that holds at most two, and are now
        sorted: all one value as they were, or two values split by one partition (``pos``
        moved with them). Else nothing moved, 0. A read that stops at the first other key
        (x86-simd-sort's check of a sample of two values): without it such a segment took
        two partitions a value, 7.7x NumPy's time for 10^5 float32s of 4 values."""
        lo, hi = sample[0], sample[-1]
        two = ll.Constant(I1, 1)
        for key in sample[1:-1]:
            two = b.and_(two, b.or_(self.cmp(b, "==", key, lo), self.cmp(b, "==", key, hi)))
        with b.goto_entry_block():
            settled = b.alloca(I1)
        b.store(ll.Constant(I1, 0), settled)
        with b.if_then(two, likely=False):
            with b.if_then(self._only(b, a, n, lo, hi)):
                with b.if_then(self.cmp(b, "<", lo, hi)):
                    self._partition(b, a, n, hi, "<", pos)
                b.store(ll.Constant(I1, 1), settled)
        return b.load(settled, typ=I1)

    def _only(self, b, a, n, lo, hi) -> ll.Value:
        """i1: every one of the ``n >= lanes`` keys at ``a`` equals ``lo`` or ``hi``: whole
        vectors compared until one holds another key, the last ``lanes`` keys last."""
        w, fn = self.lanes, b.function
        undefined = ll.Constant(self.vec, ll.Undefined)
        zeros = ll.Constant(ll.VectorType(ll.IntType(32), w), [0] * w)
        splats = [b.shuffle_vector(b.insert_element(undefined, v, _c(0)), undefined, zeros) for v in (lo, hi)]

        def other(at):  # i1: a key of the vector at ``at`` is neither
            v = b.load(self.at(b, a, at), typ=self.vec)
            v.align = self.width // 8
            either = b.or_(self.cmp(b, "==", v, splats[0]), self.cmp(b, "==", v, splats[1]))
            return b.icmp_unsigned("!=", b.bitcast(either, self.bits), ll.Constant(self.bits, (1 << w) - 1))

        with b.goto_entry_block():
            at = b.alloca(I64)
        b.store(_c(0), at)
        head, body, step, tail, done = (fn.append_basic_block(x) for x in
                                        ("only_head", "only_body", "only_step", "only_tail", "only_done"))
        b.branch(head)
        b.position_at_end(head)
        i = b.load(at, typ=I64)
        b.cbranch(b.icmp_signed("<=", b.add(i, _c(w)), n), body, tail)
        b.position_at_end(body)
        b.cbranch(other(i), done, step)
        b.position_at_end(step)
        b.store(b.add(i, _c(w)), at)
        b.branch(head)
        b.position_at_end(tail)
        last = b.not_(other(b.sub(n, _c(w))))
        b.branch(done)
        b.position_at_end(done)
        result = b.phi(I1)
        result.add_incoming(ll.Constant(I1, 0), body)
        result.add_incoming(last, tail)
        return result

    def _small(self, b, src, dst, n) -> None:
        """Sort the ``n <= small`` keys at ``src`` into ``dst`` by the smallest network that
        holds them."""
        fn = b.function
        done = fn.append_basic_block("small_done")
        counts = sorted(self.networks)
        for count in counts:
            here = fn.append_basic_block(f"net{count}")
            if count == counts[-1]:
                b.branch(here)
            else:
                other = fn.append_basic_block(f"over{count}")
                b.cbranch(b.icmp_signed("<=", n, _c(count * self.lanes)), here, other)
            b.position_at_end(here)
            b.call(self.networks[count], [src, dst, n, ll.Constant(I1, 0)])
            b.branch(done)
            if count != counts[-1]:
                b.position_at_end(other)
        b.position_at_end(done)

    def _network(self, count: int) -> ll.Function:
        """``void net(src, dst, n)``: the ``n <= count * lanes`` keys at ``src`` sorted into
        ``dst`` by a bitonic network over ``count`` vectors (padded with the largest key):
        compares and selects of whole vectors, and of each vector's elements with a shuffled
        copy. From ``HALVED_FROM`` vectors, the two halves are sorted by the network of half
        as many (calls, into a scratch row), and only the last merge is emitted here
        (sorts56: each network then holds one merge, not a whole sort: a seventh of the
        instructions, where the networks had been half of the sort module's compile)."""
        w = self.lanes
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR, PTR, I64, I1]),
                         f"{shared_symbol(self.width, w, kind=self.kind)}_net{count}")
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        src, dst, n, whole = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        i32 = ll.IntType(32)
        iota = ll.Constant(ll.VectorType(I64, w), list(range(w)))
        inf = ll.Constant(self.vec, [self.largest] * w)
        align = ll.Constant(i32, self.width // 8)
        undefined = ll.Constant(self.vec, ll.Undefined)

        def mask_at(r):
            left = b.sub(n, _c(r * w))
            splat = b.insert_element(ll.Constant(ll.VectorType(I64, w), ll.Undefined), left, _c(0))
            splat = b.shuffle_vector(splat, ll.Constant(ll.VectorType(I64, w), ll.Undefined),
                                     ll.Constant(ll.VectorType(i32, w), [0] * w))
            return b.icmp_signed("<", iota, splat)

        masks = [mask_at(r) for r in range(count)]
        total = count * w
        if count >= HALVED_FROM:  # two sorted halves, the second reversed: one bitonic run
            half = count // 2
            with b.goto_entry_block():
                scratch = b.alloca(self.t, size=total)
                scratch.align = 64

            def row(r):  # (a typed pointer: the stack's)
                return b.bitcast(self.at(b, scratch, _c(r * w)), self.vec.as_pointer())
            # whole vectors through the scratch row, padding and all: a masked store is not
            # forwarded to the load after it, and the float sorts measured 5% slower so
            first = b.select(b.icmp_signed("<", n, _c(half * w)), n, _c(half * w))
            yes = ll.Constant(I1, 1)
            b.call(self.networks[half], [src, scratch, first, yes])
            second = b.sub(n, first)
            with b.if_else(b.icmp_signed(">", second, _c(0))) as (more, padding):
                with more:
                    b.call(self.networks[half], [self.at(b, src, _c(half * w)),
                                                 self.at(b, scratch, _c(half * w)), second, yes])
                with padding:
                    for r in range(half, count):
                        b.store(inf, row(r)).align = self.width // 8
            v = []
            for r in range(count):
                v.append(b.load(row(r), typ=self.vec))
                v[-1].align = self.width // 8
            backwards = ll.Constant(ll.VectorType(i32, w), list(range(w - 1, -1, -1)))
            v[half:] = [b.shuffle_vector(x, undefined, backwards) for x in reversed(v[half:])]
            k = total  # the last merge alone, every compare ascending
        else:
            v = [b.call(self.masked_load, [self.at(b, src, _c(r * w)), align, masks[r], inf])
                 for r in range(count)]
            k = 2

        def order(x, y):
            if self.kind != "f":
                return self.least(b, x, y), self.greatest(b, x, y)
            lt = self.cmp(b, "<", y, x)
            return b.select(lt, y, x), b.select(lt, x, y)

        while k <= total:
            j = k // 2
            while j >= 1:
                if j >= w:  # partners in other vectors, same element
                    for r in range(count):
                        e, f = r * w, r * w + j
                        if (r * w) & j or f >= total:
                            continue
                        lo, hi = order(v[r], v[r + j // w])
                        up = (e & k) == 0
                        v[r], v[r + j // w] = (lo, hi) if up else (hi, lo)
                else:  # partners within a vector: element l meets l ^ j
                    perm = ll.Constant(ll.VectorType(i32, w), [lane ^ j for lane in range(w)])
                    for r in range(count):
                        other = b.shuffle_vector(v[r], undefined, perm)
                        # x86's min and max: each gives ``other`` where the two are equal, so
                        # equal keys (-0.0, 0.0) trade places, never both come out the same
                        if self.kind == "f":
                            small = b.select(self.cmp(b, "<", v[r], other), v[r], other)
                            large = b.select(self.cmp(b, ">", v[r], other), v[r], other)
                        else:
                            small, large = self.least(b, v[r], other), self.greatest(b, v[r], other)
                        takes_small = [((lane & j) == 0) == (((r * w + lane) & k) == 0)
                                       for lane in range(w)]
                        pick = ll.Constant(self.mask, [int(t) for t in takes_small])
                        v[r] = b.select(pick, small, large)
                j //= 2
            k *= 2
        with b.if_else(whole) as (all_of_them, only_keys):
            with all_of_them:
                for r in range(count):
                    b.store(v[r], self.at(b, dst, _c(r * w))).align = self.width // 8
            with only_keys:
                for r in range(count):
                    b.call(self.masked_store, [v[r], self.at(b, dst, _c(r * w)), align, masks[r]])
        b.ret_void()
        return fn


_lock = threading.Lock()
_loaded: dict[str, int] = {}


def entry_symbol(width: int, lanes: int, kind: str, part: str) -> str:
    """The symbol a part's module is called by (``PARTS``)."""
    if part in ("sort", "serial"):
        return shared_symbol(width, lanes, kind, part == "serial")
    return select_symbol(width, lanes, part == "argselect", kind)


def load_shared(llvm_ir: str, compile_and_load) -> None:
    """Compile, or take from the object cache, each quicksort module (a part of one kind,
    width and lanes) that ``llvm_ir`` calls, once per process (``sort_buckets.load_shared``'s
    way)."""
    found = sorted(set(_SYMBOL.findall(llvm_ir)))
    with _lock:
        for kind, width, lanes, part in found:
            width, lanes = int(width), int(lanes)
            symbol = entry_symbol(width, lanes, kind, part)
            if symbol in _loaded:
                continue
            text = module_text(_QuickKernel(width, lanes, kind, part).module)
            if runtime.RUN_CHUNKS_SYMBOL in text:  # the threaded sort's launches: the runtime's
                runtime.load_run_chunks(compile_and_load, text)  # launch and chunk workers
            _loaded.update(sort_buckets.load_address_table(
                compile_and_load(text, table_symbol(width, lanes, kind, part)), [symbol]))
