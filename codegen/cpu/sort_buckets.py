"""Float (and, since sort47, int: ``sort_ints.py``) sorts by buckets of their keys' top bits first
(``codegen/cpu/sort.py`` uses it for a ``sort``, not an ``argsort``): one read counting the top
digit of each key (the keys made a block at a time by a vectorized loop, then counted), one
scatter of the keys by it into result A, then each bucket alone, where it lies
(``sort_range.RangeSort``: a few LSD passes in the cache and an insertion pass, the keys turned
back into floats), with scratch on the stack; only a bucket longer than that uses result B, so
B's pages are usually never touched (a fresh buffer costs its page faults only where it is
written). A lane holding -0.0 or NaN ends with ``sort_keys.restore_lost``. The count and the
scatter run in pieces of the lane, the buckets in chunks of about equal numbers of keys (each
bucket sorted by the chunk holding its first key), on the runtime's threads
(``runtime.emit_launch``) above its ``parallel_threshold``: the result is the same on any
number."""

from __future__ import annotations

import ctypes
import re
import threading

import llvmlite.binding as llvm
from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime
from jitcore.codegen.cpu.sort_keys import SortKeys, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.cpu.sort_range import RangeSort
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

I8, I32 = ll.IntType(8), ll.IntType(32)

# The first pass's digit, by float width: where the kernel's counter result holds two tables
# of 2^16 counters (a single lane of 2^16 or more, see kernelize/sort.py), a float64's sign,
# exponent and 4 more bits (buckets of a few thousand keys on 10^6 normals), a float32's sign,
# exponent and 5 more bits (16 bits measured slower: 2^16 scatter streams for 4-byte keys);
# else sign and exponent (float32: and 3 more bits), with the tables on the stack.
WIDE_MSD_BITS = {64: 16, 32: 14}
MSD_BITS = 12
# Ints' keys (sort_ints.py spreads close ones over the width) are not bunched by an exponent:
# 10^6 uniform int64 took 15.9 ms CPU by 10 bits, 17.6 by 12, 34 by 16 (NumPy 10.3; 2 cores,
# load 9); int32 9.4 by 10, 11.2 by 12, 13.9 by 14 (NumPy 4.6).
INT_MSD_BITS = 10
# Scratch for one bucket, on the stack of the thread sorting it (a bucket longer than this
# uses result B); within L2 with the bucket itself.
STACK_SCRATCH_BYTES = 128 << 10


# A lane of at least this many keys is counted and scattered in PIECES pieces, which the
# runtime's threads take (above its threshold); fewer, in one. Each piece has its own table of
# counters (two of 2^16 fit the counter result), and where a key goes depends on the pieces
# only; as equal keys are equal floats, the result is the same for any number of pieces.
PIECES, PIECES_FROM = 2, 1 << 17
# With the wide tables, float32's 8 pieces (8 tables of 2^14 counters fill the counter
# result; float64's two of 2^16 do): a thread that starts late, or is preempted, leaves
# the others an eighth of the lane to take over, not half.
WIDE_PIECES = {32: 8, 64: 2}
BLOCK = 256  # keys made a block at a time before they are counted or scattered


# The kernels of each (float width, top-digit shift) are compiled once per process, as a
# module of their own (``_SharedKernels``) whose symbols every sorting function's module
# declares and calls: their LLVM time, most of a sorting function's, is then paid once (or
# not at all: the object cache keeps them). The lane's length and pieces are their arguments.
SYMBOL_PREFIX = "jitcore_cpu_sort_buckets"
_SYMBOL = re.compile(SYMBOL_PREFIX + r"_([fiu])(32|64)_s(\d+)")
KERNELS = ("count", "scatter", "buckets")


def shared_symbol(width: int, shift: int, kernel: str | None = None, kind: str = "f") -> str:
    """The symbol of ``kernel`` of the shared module of (``kind``, ``width``, ``shift``), or
    (None) of the module's table of its kernels' addresses (a prefix of theirs)."""
    base = f"{SYMBOL_PREFIX}_{kind}{width}_s{shift}"
    return base if kernel is None else f"{base}_{kernel}"


class _Digits:
    """Keys of ``width`` bits (of values of ``kind``) bucketed by their bits from ``shift`` up."""

    def __init__(self, width: int, shift: int, kind: str = "f"):
        self.k = SortKeys(width, kind)
        self.shift = shift
        self.buckets = 1 << (width - shift)

    def top(self, b, key):
        d = b.lshr(key, ll.Constant(self.k.type, self.shift))
        return b.zext(d, I64) if self.k.width < 64 else d

    def slot(self, b: ll.IRBuilder, counts, piece, bucket) -> ll.Value:
        return b.gep(counts, [b.add(b.mul(piece, _c(self.buckets)), bucket)], source_etype=I32)


def pieces(width: int, n: int, wide: bool) -> int:
    """The pieces a lane of ``n`` floats of ``width`` bits is counted and scattered in."""
    if n < PIECES_FROM:
        return 1
    return WIDE_PIECES[width] if wide else PIECES


class BucketSort(_Digits):
    """The sort of one lane by its top bits first (``MSD_BITS``, or ``WIDE_MSD_BITS`` of its
    width), then each bucket by the rest (``sort_range.py``): counting and scattering kernels
    over pieces of the lane, and one over ranges of buckets, all of them the process's shared
    ones (``_SharedKernels``), declared here."""

    def __init__(self, module: ll.Module, name: str, b: ll.IRBuilder, width: int, n: int,
                 table_slots: int, kind: str = "f", bits=None):
        """``bits(wide)``: the top digit's bits with wide tables or (at most ``MSD_BITS``)
        without, if not the ``kind``'s (``sort_words.py``'s words of keys and positions)."""
        self.wide = table_slots >= 2 << WIDE_MSD_BITS[width]
        if bits is not None:
            bits = bits(self.wide)
        elif self.wide:
            bits = WIDE_MSD_BITS[width] if kind == "f" else INT_MSD_BITS
        else:
            bits = MSD_BITS
        super().__init__(width, width - bits, kind)
        self.module, self.b, self.n = module, b, n
        self.pieces = pieces(width, n, self.wide)
        assert not self.wide or self.pieces * self.buckets <= table_slots
        self.counter, self.scatterer, self.bucket_kernel = (
            declare_kernel(module, shared_symbol(width, self.shift, kernel, kind), pointers, ints)
            for kernel, pointers, ints in zip(KERNELS, (3, 3, 3), (5, 5, 2)))
        with b.goto_entry_block():
            if not self.wide:
                self.counts = b.alloca(I32, size=self.pieces * self.buckets)
                self.counts.align = 64
            self.lost = b.alloca(I8, size=self.pieces)

    def use_tables(self, tables: ll.Value) -> None:
        """Put the tables of counters in ``tables`` (a lane of the kernel's counter result)."""
        if self.wide:
            self.counts = tables

    def sort(self, src, stride, key_a, key_b) -> None:
        b, k = self.b, self.k
        split = runtime.Split(self.pieces, self.n)
        lane = [stride, _c(self.n), _c(self.pieces)]
        runtime.emit_launch(b, self.counter, [src, self.counts, self.lost, *lane], split)
        lost = ll.Constant(I1, 0)
        for c in range(self.pieces):
            lost = b.or_(lost, b.trunc(b.load(b.gep(self.lost, [_c(c)], source_etype=I8), typ=I8), I1))
        self.places()
        runtime.emit_launch(b, self.scatterer, [src, self.counts, key_a, *lane], split)
        # after the scatter the last piece's counter of a bucket is where the bucket ends
        ends = self.slot(b, self.counts, _c(self.pieces - 1), _c(0))
        # buckets are independent: on the runtime's threads above its threshold, each bucket
        # sorted whole by one of them; the launch's chunks are ranges of keys, not of buckets
        # (a bucket belongs to the chunk its first key lies in), so that each holds about as
        # many keys whichever buckets the data fill (10^6 normals fill 1,000 of 16,384)
        runtime.emit_launch(b, self.bucket_kernel, [key_a, key_b, ends],
                            runtime.Split(self.n, self.n))
        if not k.floats:  # an int's key is its value: nothing lost
            return
        with b.if_then(lost, likely=False):
            restore_lost(b, k, src, stride, key_a, self.n)


    def places(self) -> None:
        """Turn the pieces' counts into each piece's first place in each bucket (bucket by
        bucket, piece by piece) in three loops: the pieces before each within its bucket (no
        chain from bucket to bucket: LLVM vectorizes it), the buckets' starts (a chain, over the
        last piece's table only), and the two added."""
        b, last = self.b, self.pieces - 1

        def slot(c, r):
            return self.slot(b, self.counts, _c(c), r)

        def within(r):  # each piece's count becomes the count of it and the pieces before
            for c in range(1, self.pieces):
                at = slot(c, r)
                b.store(b.add(b.load(at, typ=I32), b.load(slot(c - 1, r), typ=I32)), at)

        with b.goto_entry_block():
            total = b.alloca(I32)
        b.store(ll.Constant(I32, 0), total)

        def starts(r):  # the last piece's slot: the bucket's size, then where it starts
            at = slot(last, r)
            size = b.load(at, typ=I32)
            before = b.load(total, typ=I32)
            b.store(before, at)
            b.store(b.add(before, size), total)

        def add(r):  # down the pieces, each reading the one below before it is overwritten
            start = b.load(slot(last, r), typ=I32)
            for c in range(last, 0, -1):
                b.store(b.add(start, b.load(slot(c - 1, r), typ=I32)), slot(c, r))
            b.store(start, slot(0, r))

        for loop in (within, starts, add):
            emit_loop(b, _c(self.buckets), loop)


def declare_kernel(module: ll.Module, name: str, pointers: int, ints: int) -> ll.Function:
    """``void name(ptr x pointers, i64 x ints)`` in ``module``: the one already there, or a
    declaration (the shared sort kernels, defined once per process and called by symbol)."""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ll.Function(module, ll.FunctionType(ll.VoidType(), [PTR] * pointers + [I64] * ints), name)


class _SharedKernels(_Digits):
    """The module of the kernels that every bucketed sort of (``width``, ``shift``) calls,
    external, and ``i64 table(i64 j)``: the address of kernel ``KERNELS[j]``."""

    def __init__(self, width: int, shift: int, kind: str = "f"):
        super().__init__(width, shift, kind)
        self.module = ll.Module()
        self.ranger = RangeSort(self.module, shared_symbol(width, shift, "range", kind), self.k,
                                shift).function
        kernels = [self._count_kernel(shared_symbol(width, shift, "count", kind)),
                   self._scatter_kernel(shared_symbol(width, shift, "scatter", kind)),
                   self._buckets_kernel(shared_symbol(width, shift, "buckets", kind))]
        emit_address_table(self.module, shared_symbol(width, shift, None, kind), kernels)

    def bounds(self, b: ll.IRBuilder, piece, n, pieces) -> tuple[ll.Value, ll.Value]:
        """Elements ``[lo, hi)`` of ``piece`` of ``pieces`` of a lane of ``n``."""
        def start(c):
            return b.udiv(b.mul(c, n), pieces)
        return start(piece), start(b.add(piece, _c(1)))

    def _kernel(self, name: str, pointers: int) -> tuple[ll.Function, ll.IRBuilder]:
        """``void name(ptr x pointers, i64 stride, i64 n, i64 pieces, i64 lo, i64 hi)``: pieces
        ``lo .. hi`` of a lane of ``n``."""
        fn = declare_kernel(self.module, name, pointers, 5)
        fn.attributes.add("noinline")  # called whole and per chunk: one copy
        for a in fn.args[:pointers]:
            a.add_attribute("noalias")
        return fn, ll.IRBuilder(fn.append_basic_block("entry"))

    def blocked(self, b: ll.IRBuilder, count, stride, make, use) -> None:
        """``use(i, key)`` for ``i`` in ``[0, count)``, the keys made by ``make(i, step, put)``
        (which calls ``put(i, key)``; floats ``step`` apart) a block of ``BLOCK`` at a time
        into a buffer on the stack first: a loop LLVM vectorizes where the floats are
        contiguous, leaving the counters' loop a load and an increment a key."""
        t = self.k.type
        with b.goto_entry_block():
            block = b.alloca(t, size=BLOCK)
            block.align = 64

        def put_in_block(base):
            def put(j, key):
                b.store(key, b.gep(block, [b.sub(j, base)], inbounds=True, source_etype=t))
            return put

        def whole(blk):
            base = b.mul(blk, _c(BLOCK))
            put = put_in_block(base)
            with b.if_else(b.icmp_unsigned("==", stride, _c(1))) as (contiguous, strided):
                with contiguous:
                    emit_loop(b, _c(BLOCK), lambda j: make(b.add(base, j), _c(1), put))
                with strided:
                    emit_loop(b, _c(BLOCK), lambda j: make(b.add(base, j), stride, put))

            def each(j):
                key = b.load(b.gep(block, [j], inbounds=True, source_etype=t), typ=t)
                use(b.add(base, j), key)

            emit_loop(b, _c(BLOCK), each)

        blocks = b.udiv(count, _c(BLOCK))
        emit_loop(b, blocks, whole)
        done = b.mul(blocks, _c(BLOCK))
        emit_loop(b, b.sub(count, done), lambda j: make(b.add(done, j), stride, use))

    def _count_kernel(self, name: str) -> ll.Function:
        """``(src, counts, lost, stride, lo, hi)``: count the top digits of each piece's keys
        in its table (zeroed here: by the thread that counts in it, in parallel), and note
        (``lost``, a byte a piece) a piece holding -0.0 or NaN."""
        fn, b = self._kernel(name, 3)
        src, counts, lost, stride, n, pieces, lo, hi = fn.args
        k = self.k
        memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])

        def piece(c):
            c = b.add(lo, c)
            first, end = self.bounds(b, c, n, pieces)
            table = self.slot(b, counts, c, _c(0))
            b.call(memset, [table, ll.Constant(I8, 0), _c(4 * self.buckets), ll.Constant(I1, 0)])
            with b.goto_entry_block():
                flag = b.alloca(I1)
            b.store(ll.Constant(I1, 0), flag)

            def make(i, step, put):
                key, special = k.of(b, k.load(b, src, step, b.add(first, i)))
                b.store(b.or_(b.load(flag, typ=I1), special), flag)
                put(i, key)

            def count(i, key):
                at = b.gep(table, [self.top(b, key)], source_etype=I32)
                b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

            self.blocked(b, b.sub(end, first), stride, make, count)
            b.store(b.zext(b.load(flag, typ=I1), I8), b.gep(lost, [c], source_etype=I8))

        emit_loop(b, b.sub(hi, lo), piece)
        b.ret_void()
        return fn

    def _scatter_kernel(self, name: str) -> ll.Function:
        """``(src, counts, keys, stride, lo, hi)``: each piece's keys to where its table says
        (its first place in each bucket, counted on)."""
        fn, b = self._kernel(name, 3)
        src, counts, keys, stride, n, pieces, lo, hi = fn.args
        k = self.k

        def piece(c):
            c = b.add(lo, c)
            first, end = self.bounds(b, c, n, pieces)
            table = self.slot(b, counts, c, _c(0))

            def scatter(i, step):
                key, _ = k.of(b, k.load(b, src, step, b.add(first, i)))
                slot = b.gep(table, [self.top(b, key)], source_etype=I32)
                at = b.load(slot, typ=I32)
                b.store(b.add(at, ll.Constant(I32, 1)), slot)
                b.store(key, b.gep(keys, [b.zext(at, I64)], inbounds=True, source_etype=k.type))

            # in blocks: measured slower (more stores); contiguous floats apart, as the stride
            # is an argument of the shared kernel
            with b.if_else(b.icmp_unsigned("==", stride, _c(1))) as (contiguous, strided):
                with contiguous:
                    emit_loop(b, b.sub(end, first), lambda i: scatter(i, _c(1)))
                with strided:
                    emit_loop(b, b.sub(end, first), lambda i: scatter(i, stride))

        emit_loop(b, b.sub(hi, lo), piece)
        b.ret_void()
        return fn

    def _buckets_kernel(self, name: str) -> ll.Function:
        """``(data, spare, ends, lo, hi)``: the buckets of the keys at ``data`` (each starting
        where the one before ends) whose first key lies in ``[lo, hi)``, sorted into floats
        there; scratch on the stack, or ``spare`` where a bucket is longer."""
        fn = declare_kernel(self.module, name, 3, 2)
        fn.attributes.add("noinline")
        data, spare, ends, lo, hi = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        t = self.k.type
        room = STACK_SCRATCH_BYTES // (t.width // 8)
        scratch = b.alloca(t, size=room)
        scratch.align = 64

        def end_of(r):
            return b.zext(b.load(b.gep(ends, [r], source_etype=I32), typ=I32), I64)

        def start_of(r):
            later = b.icmp_signed(">", r, _c(0))
            return b.select(later, end_of(b.select(later, b.sub(r, _c(1)), _c(0))), _c(0))

        def bucket(i):
            r = b.add(first, i)
            start = start_of(r)
            m = b.sub(end_of(r), start)
            with b.if_then(b.icmp_signed(">", m, _c(0))):
                own = b.select(b.icmp_signed("<=", m, _c(room)), scratch,
                               b.gep(spare, [start], source_etype=t))
                b.call(self.ranger, [b.gep(data, [start], source_etype=t), own, m])

        first = self._first_bucket_from(b, start_of, lo)
        emit_loop(b, b.sub(self._first_bucket_from(b, start_of, hi), first), bucket)
        b.ret_void()
        return fn

    def _first_bucket_from(self, b: ll.IRBuilder, start_of, position) -> ll.Value:
        """The first bucket whose first key is at ``position`` or after (the buckets' starts
        rise with their number): a binary search."""
        with b.goto_entry_block():
            low, high = b.alloca(I64), b.alloca(I64)
        b.store(_c(0), low)
        b.store(_c(self.buckets), high)
        fn = b.function
        test, halve, done = (fn.append_basic_block(n) for n in ("search", "halve", "found"))
        b.branch(test)
        b.position_at_end(test)
        b.cbranch(b.icmp_unsigned("<", b.load(low, typ=I64), b.load(high, typ=I64)), halve, done)
        b.position_at_end(halve)
        below, above = b.load(low, typ=I64), b.load(high, typ=I64)
        mid = b.lshr(b.add(below, above), _c(1))
        before = b.icmp_unsigned("<", start_of(mid), position)
        b.store(b.select(before, b.add(mid, _c(1)), below), low)
        b.store(b.select(before, above, mid), high)
        b.branch(test)
        b.position_at_end(done)
        return b.load(low, typ=I64)


_lock = threading.Lock()
_loaded: dict[str, int] = {}  # kernel symbol -> address, once compiled in this process


def load_shared(llvm_ir: str, compile_and_load) -> None:
    """Compile, or take from the object cache (``compile_and_load(llvm_ir, symbol) ->
    address``), each shared module that ``llvm_ir`` calls, once per process, and give its
    kernels' addresses to LLVM before code calling them is loaded."""
    with _lock:
        for kind, width, shift in sorted(set(_SYMBOL.findall(llvm_ir))):
            width, shift = int(width), int(shift)
            if shared_symbol(width, shift, KERNELS[0], kind) in _loaded:
                continue
            module = _SharedKernels(width, shift, kind).module
            _loaded.update(load_address_table(
                compile_and_load(str(module), shared_symbol(width, shift, None, kind)),
                [shared_symbol(width, shift, kernel, kind) for kernel in KERNELS]))


def emit_address_table(module: ll.Module, name: str, kernels: list[ll.Function]) -> None:
    """``i64 name(i64 j)``: the address of ``kernels[j]``. A shared module is loaded by this
    one symbol (its object code cached under it), its kernels' addresses asked of it."""
    table = ll.Function(module, ll.FunctionType(I64, [I64]), name)
    b = ll.IRBuilder(table.append_basic_block("entry"))
    address = _c(0)
    for j, fn in enumerate(kernels):
        address = b.select(b.icmp_unsigned("==", table.args[0], _c(j)), b.ptrtoint(fn, I64), address)
    b.ret(address)


def load_address_table(table_address: int, symbols: list[str]) -> dict[str, int]:
    """The kernels of a loaded shared module (``emit_address_table``) by ``symbols``, in its
    table's order, given to LLVM for the code that calls them."""
    table = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(table_address)
    found = {symbol: table(j) for j, symbol in enumerate(symbols)}
    for symbol, address in found.items():
        llvm.add_symbol(symbol, address)
    return found
