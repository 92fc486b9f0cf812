"""Long float sorts by a vectorized quicksort (sort49): partitions of ``LANES`` keys a compare.

``codegen/cpu/sort.py`` gives a float lane here where ``use_quicksort`` says so (AVX-512
targets, lengths measured faster than its radix path: docs/performance.md, "Float sorts by
vector partitions (sort49)"). The lane is first copied into the result with every NaN moved
past the numbers (``sort.py``); the numbers are then sorted here by float compares, so -0.0
and 0.0 are equal and may end in any order, which ``sort_keys.restore_lost`` then puts back in
input order, as the radix path does (NumPy's ``kind='stable'`` order, which jitcore promises
for every kind).

One partition reads a segment of buffer ``p`` a vector at a time, compares it with the pivot
and writes the keys below it to the front of the same segment of buffer ``q``, the others to
its back (``llvm.masked.compressstore``: ``vpcompressps/pd`` with AVX-512, LLVM's generic
lowering elsewhere). The two halves are then sorted from ``q``, back into ``p`` or left in
``q`` (``flag``: where the segment's result must end). The pivot is the median of nine keys
spread over the segment. A partition that puts nothing below the pivot puts the keys equal to
it first instead (they are done), so equal keys cost one pass each value, never a quadratic
run. Segments of ``NETWORK_VECTORS`` vectors or fewer are finished by a bitonic network in
registers (the sorting networks of ``sort_lanes.py`` and ``sort_short.py`` sort lanes laid out
in scratch rows, not a segment in place; an insertion sort measured 3.6x slower). Past ``depth`` levels the
sort gives up (returns 1) and ``sort.py`` sorts the lane again by its radix path: no quadratic
worst case.

The kernel of each (float width, lanes) is compiled once per process, as a module of its own
(``i64 <symbol>(ptr data, ptr scratch, i64 n, i64 depth)``: 0 sorted in ``data``, 1 gave up)
that the sorting functions' modules declare and call, as ``sort_buckets.py``'s.
"""

from __future__ import annotations

import re
import threading

from llvmlite import ir as ll

from jitcore.codegen.cpu import sort_buckets
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

# Segments of at most this many vectors of keys are sorted by a bitonic network, per float
# width (10^6 keys, one thread, ms, 4 / 8 / 16 / 32 vectors: float32 5.6 / 4.9 / 5.0 / 5.3,
# float64 - / 11.6 / 9.0 / 10.1; a load of 17 on 2 cores).
NETWORK_VECTORS = {32: 8, 64: 16}
SAMPLE = 9  # keys whose median is a partition's pivot
# Lanes sorted here, per float width: lengths in [from, to) (shorter lanes are sort_short.py's
# networks'). Measured on an AVX-512 host (Emerald Rapids), where it is faster than the radix
# path: docs/performance.md, "Float sorts by vector partitions (sort49)".
QUICK_LENGTHS = {32: (1, 1 << 17), 64: (1, 100_000)}
ENABLED = True  # False: the radix path for every lane (tools/bench_sort.py --radix)
FORCE_LANES: int | None = None  # tests: a vector width of their own on any target

SYMBOL_PREFIX = "jitcore_cpu_sort_quick"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"_f(32|64)_w(\d+)")


def shared_symbol(width: int, lanes: int, table: bool = False) -> str:
    base = f"{SYMBOL_PREFIX}_f{width}_w{lanes}"
    return base if table else f"{base}_sort"


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
    start, stop = QUICK_LENGTHS.get(width, (0, 0))
    return lanes_for(width, isa) if start <= n < stop else None


def depth_limit(n: int) -> int:
    """Partition levels before the sort gives up: twice a balanced split's."""
    return 2 * max(1, n.bit_length()) + 4


def declare(module: ll.Module, width: int, lanes: int) -> ll.Function:
    name = shared_symbol(width, lanes)
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ll.Function(module, ll.FunctionType(I64, [PTR, PTR, I64, I64]), name)


def _c(v: int) -> ll.Constant:
    return ll.Constant(I64, v)


class _QuickKernel:
    """The module of one (float width, lanes) quicksort."""

    def __init__(self, width: int, lanes: int):
        self.width, self.lanes = width, lanes
        self.t = ll.FloatType() if width == 32 else ll.DoubleType()
        self.vec = ll.VectorType(self.t, lanes)
        self.mask = ll.VectorType(I1, lanes)
        self.module = ll.Module()
        m = self.module
        store_name = f"llvm.masked.compressstore.v{lanes}f{width}"
        self.compress = ll.Function(m, ll.FunctionType(ll.VoidType(), [self.vec, PTR, self.mask]),
                                    store_name)
        self.squeeze = ll.Function(m, ll.FunctionType(self.vec, [self.vec, self.mask, self.vec]),
                                   f"llvm.experimental.vector.compress.v{lanes}f{width}")
        bits = ll.IntType(lanes)
        self.ctpop = m.declare_intrinsic("llvm.ctpop", [bits])
        self.bits = bits
        self.memcpy = m.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
        self.small = NETWORK_VECTORS[width] * lanes
        suffix = f"v{lanes}f{width}.p0"
        self.masked_load = ll.Function(m, ll.FunctionType(self.vec, [PTR, ll.IntType(32), self.mask,
                                                                     self.vec]),
                                       f"llvm.masked.load.{suffix}")
        self.masked_store = ll.Function(m, ll.FunctionType(ll.VoidType(), [self.vec, PTR, ll.IntType(32),
                                                                         self.mask]),
                                        f"llvm.masked.store.{suffix}")
        self.networks = {}
        count = 1
        while count <= NETWORK_VECTORS[width]:
            self.networks[count] = self._network(count)
            count *= 2
        self.rec = ll.Function(m, ll.FunctionType(I1, [PTR, PTR, I64, I1, I64]),
                               f"{shared_symbol(width, lanes)}_segment")
        self.rec.linkage = "internal"
        self._segment()
        entry = declare(m, width, lanes)
        b = ll.IRBuilder(entry.append_basic_block("entry"))
        data, scratch, n, depth = entry.args
        failed = b.call(self.rec, [data, scratch, n, ll.Constant(I1, 0), depth])
        b.ret(b.zext(failed, I64))
        sort_buckets.emit_address_table(m, shared_symbol(width, lanes, table=True), [entry])

    def at(self, b, base, i):
        return b.gep(base, [i], inbounds=True, source_etype=self.t)

    def copy(self, b, dst, src, n):
        size = b.mul(n, _c(self.width // 8))
        b.call(self.memcpy, [dst, src, size, ll.Constant(I1, 0)])

    def _segment(self) -> None:
        """``i1 segment(p, q, n, flag, depth)``: sort the ``n`` keys at ``p`` into ``p``
        (``flag`` 0) or ``q`` (1), the other buffer scratch; 1: gave up past ``depth``."""
        fn = self.rec
        p, q, n, flag, depth = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        small_bb, big_bb = fn.append_basic_block("small"), fn.append_basic_block("big")
        b.cbranch(b.icmp_signed("<=", n, _c(self.small)), small_bb, big_bb)
        b.position_at_end(small_bb)
        self._small(b, p, b.select(flag, q, p), n)
        b.ret(ll.Constant(I1, 0))

        b.position_at_end(big_bb)
        with b.if_then(b.icmp_signed("<=", depth, _c(0)), likely=False):
            b.ret(ll.Constant(I1, 1))
        pivot = self._pivot(b, p, n)
        down, other = b.sub(depth, _c(1)), b.not_(flag)
        below = self._partition(b, p, q, n, pivot, "<")
        none_bb, split_bb = fn.append_basic_block("none_below"), fn.append_basic_block("split")
        b.cbranch(b.icmp_unsigned("==", below, _c(0)), none_bb, split_bb)

        # nothing below the pivot: the keys equal to it go first, done; the rest is sorted
        b.position_at_end(none_bb)
        equal = self._partition(b, p, q, n, pivot, "<=")
        with b.if_then(b.not_(flag)):
            self.copy(b, p, q, equal)
        rest = b.call(fn, [self.at(b, q, equal), self.at(b, p, equal), b.sub(n, equal), other, down])
        b.ret(rest)

        b.position_at_end(split_bb)
        left = b.call(fn, [q, p, below, other, down])
        with b.if_then(left, likely=False):
            b.ret(ll.Constant(I1, 1))
        right = b.call(fn, [self.at(b, q, below), self.at(b, p, below), b.sub(n, below), other, down])
        b.ret(right)

    def _partition(self, b, p, q, n, pivot, op) -> ll.Value:
        """Keys at ``p`` that compare ``op`` the pivot to the front of ``q``, the others to its
        back; their count."""
        w = self.lanes
        with b.goto_entry_block():
            lo = b.alloca(I64)
            hi = b.alloca(I64)
        b.store(_c(0), lo)
        b.store(n, hi)
        splat = b.insert_element(ll.Constant(self.vec, ll.Undefined), pivot, _c(0))
        splat = b.shuffle_vector(splat, ll.Constant(self.vec, ll.Undefined),
                                 ll.Constant(ll.VectorType(ll.IntType(32), w), [0] * w))

        undefined = ll.Constant(self.vec, ll.Undefined)

        def vector(j):
            i = b.mul(j, _c(w))
            v = b.load(self.at(b, p, i), typ=self.vec)
            v.align = self.width // 8
            goes = b.fcmp_ordered(op, v, splat)
            count = b.zext(b.call(self.ctpop, [b.bitcast(goes, self.bits)]), I64)
            left = b.load(lo, typ=I64)
            # the keys that go: compressed in a register and stored as a whole vector (past
            # them lies free room of at least a vector, which the others' compress-store may
            # then fill); a register compress costs less than a compress-store (10^6 keys: 4.3
            # against 4.9 ms for float32; two of them, the others' reversed into the top of a
            # vector where there is room, measured no faster)
            front = b.call(self.squeeze, [v, goes, undefined])
            b.store(front, self.at(b, q, left)).align = self.width // 8
            right = b.sub(b.load(hi, typ=I64), b.sub(_c(w), count))
            b.call(self.compress, [v, self.at(b, q, right), b.not_(goes)])
            b.store(b.add(left, count), lo)
            b.store(right, hi)

        whole = b.udiv(n, _c(w))
        emit_loop(b, whole, vector, unroll=False, vectorize=False)

        def scalar(k):
            i = b.add(b.mul(whole, _c(w)), k)
            x = b.load(self.at(b, p, i), typ=self.t)
            goes = b.fcmp_ordered(op, x, pivot)
            left, right = b.load(lo, typ=I64), b.load(hi, typ=I64)
            to = b.select(goes, left, b.sub(right, _c(1)))
            b.store(x, self.at(b, q, to))
            b.store(b.add(left, b.zext(goes, I64)), lo)
            b.store(b.sub(right, b.zext(b.not_(goes), I64)), hi)

        emit_loop(b, b.urem(n, _c(w)), scalar, unroll=False, vectorize=False)
        return b.load(lo, typ=I64)

    def _pivot(self, b, p, n) -> ll.Value:
        """The median of ``SAMPLE`` keys spread evenly over the segment (sorted by an odd-even
        transposition network of compares and selects)."""
        last = b.sub(n, _c(1))
        keys = [b.load(self.at(b, p, b.udiv(b.mul(last, _c(k)), _c(SAMPLE - 1))), typ=self.t)
                for k in range(SAMPLE)]
        for rnd in range(SAMPLE):
            for k in range(rnd % 2, SAMPLE - 1, 2):
                lt = b.fcmp_ordered("<", keys[k + 1], keys[k])
                keys[k], keys[k + 1] = (b.select(lt, keys[k + 1], keys[k]),
                                        b.select(lt, keys[k], keys[k + 1]))
        return keys[SAMPLE // 2]

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
            b.call(self.networks[count], [src, dst, n])
            b.branch(done)
            if count != counts[-1]:
                b.position_at_end(other)
        b.position_at_end(done)

    def _network(self, count: int) -> ll.Function:
        """``void net(src, dst, n)``: the ``n <= count * lanes`` keys at ``src`` sorted into
        ``dst`` by a bitonic network over ``count`` vectors (padded with +inf): compares and
        selects of whole vectors, and of each vector's elements with a shuffled copy."""
        w = self.lanes
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR, PTR, I64]),
                         f"{shared_symbol(self.width, w)}_net{count}")
        fn.linkage = "internal"
        src, dst, n = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        i32 = ll.IntType(32)
        iota = ll.Constant(ll.VectorType(I64, w), list(range(w)))
        inf = ll.Constant(self.vec, [float("inf")] * w)
        align = ll.Constant(i32, self.width // 8)

        def mask_at(r):
            left = b.sub(n, _c(r * w))
            splat = b.insert_element(ll.Constant(ll.VectorType(I64, w), ll.Undefined), left, _c(0))
            splat = b.shuffle_vector(splat, ll.Constant(ll.VectorType(I64, w), ll.Undefined),
                                     ll.Constant(ll.VectorType(i32, w), [0] * w))
            return b.icmp_signed("<", iota, splat)

        masks = [mask_at(r) for r in range(count)]
        v = [b.call(self.masked_load, [self.at(b, src, _c(r * w)), align, masks[r], inf])
             for r in range(count)]

        def order(x, y):
            lt = b.fcmp_ordered("<", y, x)
            return b.select(lt, y, x), b.select(lt, x, y)

        total = count * w
        k = 2
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
                        other = b.shuffle_vector(v[r], ll.Constant(self.vec, ll.Undefined), perm)
                        # x86's min and max: each gives ``other`` where the two are equal, so
                        # equal keys (-0.0, 0.0) trade places, never both come out the same
                        small = b.select(b.fcmp_ordered("<", v[r], other), v[r], other)
                        large = b.select(b.fcmp_ordered(">", v[r], other), v[r], other)
                        takes_small = [((lane & j) == 0) == (((r * w + lane) & k) == 0)
                                       for lane in range(w)]
                        pick = ll.Constant(self.mask, [int(t) for t in takes_small])
                        v[r] = b.select(pick, small, large)
                j //= 2
            k *= 2
        for r in range(count):
            b.call(self.masked_store, [v[r], self.at(b, dst, _c(r * w)), align, masks[r]])
        b.ret_void()
        return fn


_lock = threading.Lock()
_loaded: dict[str, int] = {}


def load_shared(llvm_ir: str, compile_and_load) -> None:
    """Compile, or take from the object cache, each quicksort module that ``llvm_ir`` calls,
    once per process (``sort_buckets.load_shared``'s way)."""
    with _lock:
        for width, lanes in sorted(set(_SYMBOL.findall(llvm_ir))):
            width, lanes = int(width), int(lanes)
            if shared_symbol(width, lanes) in _loaded:
                continue
            module = _QuickKernel(width, lanes).module
            _loaded.update(sort_buckets.load_address_table(
                compile_and_load(str(module), shared_symbol(width, lanes, table=True)),
                [shared_symbol(width, lanes)]))
