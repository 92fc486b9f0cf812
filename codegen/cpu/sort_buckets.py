"""Float sorts by buckets of their top bits first (``codegen/cpu/sort.py`` uses it for a
``sort``, not an ``argsort``): one read counting the top digit of each key, one scatter of the
keys by it into result A, then each bucket alone, where it lies (``sort_range.RangeSort``: a
few LSD passes in the cache and an insertion pass, the keys turned back into floats), with
scratch on the stack; only a bucket longer than that uses result B, so B's pages are usually
never touched (a fresh buffer costs its page faults only where it is written). A lane holding
-0.0 or NaN ends with ``sort_keys.restore_lost``. The buckets run on the runtime's threads
(``runtime.emit_launch``) above its ``parallel_threshold``: the result is the same on any."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime
from jitcore.codegen.cpu.sort_keys import SortKeys, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.cpu.sort_range import RangeSort
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

I8, I32 = ll.IntType(8), ll.IntType(32)

# The first pass's digit: a float's sign, exponent and 4 (float32: 7) more bits, where the
# kernel's counter result holds its two tables of 2^16 counters (a single lane of 2^16 or more,
# see kernelize/sort.py), so buckets are small enough for the cache; else sign and exponent
# (float32: and 3 more bits), with the tables on the stack.
WIDE_MSD_BITS, MSD_BITS = 16, 12
# Scratch for one bucket, on the stack of the thread sorting it (a bucket longer than this
# uses result B); within L2 with the bucket itself.
STACK_SCRATCH_BYTES = 128 << 10


class BucketSort:
    """The sort of one lane by its top ``MSD_BITS`` (or ``WIDE_MSD_BITS``) first, then each
    bucket by the rest of its bits (``sort_range.py``)."""

    def __init__(self, module: ll.Module, name: str, b: ll.IRBuilder, width: int, n: int,
                 table_slots: int):
        self.module, self.b, self.n = module, b, n
        self.k = SortKeys(width)
        self.wide = table_slots >= 2 << WIDE_MSD_BITS
        bits = WIDE_MSD_BITS if self.wide else MSD_BITS
        self.shift = width - bits
        self.buckets = 1 << bits
        self.ranger = RangeSort(module, f"{name}_range", self.k, self.shift).function
        self.bucket_kernel = self._buckets_kernel(f"{name}_buckets")
        with b.goto_entry_block():
            if not self.wide:
                self.counts = b.alloca(I32, size=self.buckets)
                self.counts.align = 64
                self.starts = b.alloca(I32, size=self.buckets)
            self.lost = b.alloca(I1)

    def use_tables(self, tables: ll.Value) -> None:
        """Put the two tables of counters in ``tables`` (a lane of the kernel's counter result)."""
        if self.wide:
            self.counts = tables
            self.starts = self.b.gep(tables, [_c(self.buckets)], source_etype=I32)

    def top(self, b, key):
        d = b.lshr(key, ll.Constant(self.k.type, self.shift))
        return b.zext(d, I64) if self.k.width < 64 else d

    def sort(self, src, stride, key_a, key_b) -> None:
        b, k = self.b, self.k
        memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
        b.call(memset, [self.counts, ll.Constant(I8, 0), _c(4 * self.buckets), ll.Constant(I1, 0)])
        b.store(ll.Constant(I1, 0), self.lost)

        def count(i):
            key, special = k.of(b, k.load(b, src, stride, i))
            b.store(b.or_(b.load(self.lost, typ=I1), special), self.lost)
            at = b.gep(self.counts, [self.top(b, key)], source_etype=I32)
            b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

        emit_loop(b, _c(self.n), count)
        with b.goto_entry_block():
            total = b.alloca(I32)
        b.store(ll.Constant(I32, 0), total)

        def prefix(r):
            at = b.gep(self.counts, [r], source_etype=I32)
            here = b.load(at, typ=I32)
            before = b.load(total, typ=I32)
            b.store(before, at)
            b.store(before, b.gep(self.starts, [r], source_etype=I32))
            b.store(b.add(before, here), total)

        emit_loop(b, _c(self.buckets), prefix)

        def scatter(i):
            key, _ = k.of(b, k.load(b, src, stride, i))
            slot = b.gep(self.counts, [self.top(b, key)], source_etype=I32)
            at = b.load(slot, typ=I32)
            b.store(b.add(at, ll.Constant(I32, 1)), slot)
            b.store(key, b.gep(key_a, [b.zext(at, I64)], inbounds=True, source_etype=k.type))

        emit_loop(b, _c(self.n), scatter)

        # buckets are independent: on the runtime's threads above its threshold, each bucket
        # sorted whole by one of them
        runtime.emit_launch(b, self.bucket_kernel, [key_a, key_b, self.starts, self.counts],
                            runtime.Split(self.buckets, self.n))
        with b.if_then(b.load(self.lost, typ=I1), likely=False):
            restore_lost(b, k, src, stride, key_a, self.n)

    def _buckets_kernel(self, name: str) -> ll.Function:
        """``(data, spare, starts, ends, lo, hi)``: buckets ``lo .. hi`` of the keys at ``data``
        sorted into floats there; scratch on the stack, or ``spare`` where a bucket is longer."""
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR] * 4 + [I64, I64]), name)
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        data, spare, starts, ends, lo, hi = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        t = self.k.type
        room = STACK_SCRATCH_BYTES // (t.width // 8)
        scratch = b.alloca(t, size=room)
        scratch.align = 64

        def bucket(i):
            r = b.add(lo, i)
            first = b.zext(b.load(b.gep(starts, [r], source_etype=I32), typ=I32), I64)
            # after the scatter, a bucket's counter is where it ends
            end = b.zext(b.load(b.gep(ends, [r], source_etype=I32), typ=I32), I64)
            m = b.sub(end, first)
            with b.if_then(b.icmp_signed(">", m, _c(0))):
                own = b.select(b.icmp_signed("<=", m, _c(room)), scratch,
                               b.gep(spare, [first], source_etype=t))
                b.call(self.ranger, [b.gep(data, [first], source_etype=t), own, m])

        emit_loop(b, b.sub(hi, lo), bucket)
        b.ret_void()
        return fn
