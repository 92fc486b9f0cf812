"""float64 sorts by buckets of their top bits first (``codegen/cpu/sort.py`` uses it for a
``sort``, not an ``argsort``): one read counting the top digit of each key, one scatter of the
keys by it into buffer B, then each bucket alone (insertion-sorted when small, else by 8-bit
LSD passes over its low bits with uniform digits skipped), small enough to stay in the cache
where the whole lane does not, and its keys turned back into floats in result A. A lane holding
-0.0 or NaN ends with ``sort_keys.restore_lost``. The buckets run on the runtime's threads
(``runtime.emit_launch``) above its ``parallel_threshold``: the order is the same on any."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime
from jitcore.codegen.cpu.sort_keys import DIGIT_BITS, RADIX, SortKeys, restore_lost
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

I8, I32 = ll.IntType(8), ll.IntType(32)

# The first pass's digit: a float's sign, exponent and 4 (float32: 7) more bits, where the
# kernel's counter result holds its two tables of 2^16 counters (a single lane of 2^16 or more,
# see kernelize/sort.py), so buckets are small enough for the cache; else sign and exponent
# (float32: and 3 more bits), with the tables on the stack.
WIDE_MSD_BITS, MSD_BITS = 16, 12
# A bucket up to this many keys per LSD pass it would need is insertion-sorted (no counters to
# clear and sum; insertion costs its size squared, the passes 256 counters each).
SMALL_BUCKET_PER_PASS = 8


class BucketSort:
    """The sort of one lane by its top ``MSD_BITS`` first, then each bucket by the rest of its
    bits: one counting read and one scatter over the whole lane, then LSD passes (8-bit digits,
    uniform ones skipped) over each bucket alone, small enough for the cache where the whole
    lane is not; a last read of each bucket turns keys back into floats in result A."""

    def __init__(self, module: ll.Module, name: str, b: ll.IRBuilder, width: int, n: int,
                 table_slots: int):
        self.module, self.b, self.n = module, b, n
        self.k = SortKeys(width)
        self.wide = table_slots >= 2 << WIDE_MSD_BITS
        bits = WIDE_MSD_BITS if self.wide else MSD_BITS
        self.shift = width - bits
        self.buckets = 1 << bits
        self.passes = -(-self.shift // DIGIT_BITS)
        self.ranger = self._range_function(f"{name}_bucket")
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
            b.store(key, b.gep(key_b, [b.zext(at, I64)], inbounds=True, source_etype=k.type))

        emit_loop(b, _c(self.n), scatter)

        # buckets are independent: on the runtime's threads above its threshold, each bucket
        # sorted whole by one of them (measured no faster on the loaded 2-core host, no slower)
        runtime.emit_launch(b, self.bucket_kernel, [key_b, key_a, self.starts, self.counts],
                            runtime.Split(self.buckets, self.n))
        with b.if_then(b.load(self.lost, typ=I1), likely=False):
            restore_lost(b, k, src, stride, key_a, self.n)

    def _buckets_kernel(self, name: str) -> ll.Function:
        """``(keys, out, starts, ends, lo, hi)``: buckets ``lo .. hi`` sorted into floats."""
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR] * 4 + [I64, I64]), name)
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        keys, out, starts, ends, lo, hi = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        t = self.k.type

        def bucket(i):
            r = b.add(lo, i)
            first = b.zext(b.load(b.gep(starts, [r], source_etype=I32), typ=I32), I64)
            # after the scatter, a bucket's counter is where it ends
            end = b.zext(b.load(b.gep(ends, [r], source_etype=I32), typ=I32), I64)
            with b.if_then(b.icmp_unsigned("<", first, end)):
                b.call(self.ranger, [b.gep(keys, [first], source_etype=t),
                                     b.gep(out, [first], source_etype=t), b.sub(end, first)])

        emit_loop(b, b.sub(hi, lo), bucket)
        b.ret_void()
        return fn

    def _range_function(self, name: str) -> ll.Function:
        """``void name(ptr keys, ptr out, i64 m)``: sort the ``m`` keys at ``keys`` by their
        low ``shift`` bits (their top digit is the same) into floats at ``out``; both are
        scratch of ``m`` keys."""
        fn = ll.Function(self.module, ll.FunctionType(ll.VoidType(), [PTR, PTR, I64]), name)
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        for a in fn.args[:2]:
            a.add_attribute("noalias")
        keys, out, m = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        k, t = self.k, self.k.type
        with b.if_then(b.icmp_unsigned("<=", m, _c(SMALL_BUCKET_PER_PASS * self.passes))):
            self._insertion_sort(b, keys, out, m)
            b.ret_void()
        counts = b.alloca(I32, size=self.passes * RADIX)
        counts.align = 64
        memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
        b.call(memset, [counts, ll.Constant(I8, 0), _c(4 * self.passes * RADIX), ll.Constant(I1, 0)])

        def digit(key, p):
            shift = b.mul(b.trunc(p, t) if t.width < 64 else p, ll.Constant(t, DIGIT_BITS))
            d = b.and_(b.lshr(key, shift), ll.Constant(t, RADIX - 1))
            return b.zext(d, I64) if t.width < 64 else d

        def slot(p, d):
            return b.gep(counts, [b.add(b.mul(p, _c(RADIX)), d)], source_etype=I32)

        def count(i):
            key = b.load(b.gep(keys, [i], inbounds=True, source_etype=t), typ=t)
            for p in range(self.passes):
                at = slot(_c(p), digit(key, _c(p)))
                b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

        emit_loop(b, m, count)
        m32 = b.trunc(m, I32)
        here_ptr = b.alloca(PTR)  # where the keys are now
        there_ptr = b.alloca(PTR)
        total = b.alloca(I32)
        uniform = b.alloca(I1)
        b.store(keys, here_ptr)
        b.store(out, there_ptr)

        def one(p):
            b.store(ll.Constant(I32, 0), total)
            b.store(ll.Constant(I1, 0), uniform)

            def prefix(r):
                at = slot(p, r)
                here = b.load(at, typ=I32)
                before = b.load(total, typ=I32)
                b.store(before, at)
                b.store(b.add(before, here), total)
                b.store(b.or_(b.load(uniform, typ=I1), b.icmp_unsigned("==", here, m32)), uniform)

            emit_loop(b, _c(RADIX), prefix)
            with b.if_then(b.not_(b.load(uniform, typ=I1))):
                src, dst = b.load(here_ptr, typ=PTR), b.load(there_ptr, typ=PTR)

                def move(i):
                    key = b.load(b.gep(src, [i], inbounds=True, source_etype=t), typ=t)
                    at_slot = slot(p, digit(key, p))
                    at = b.load(at_slot, typ=I32)
                    b.store(b.add(at, ll.Constant(I32, 1)), at_slot)
                    b.store(key, b.gep(dst, [b.zext(at, I64)], inbounds=True, source_etype=t))

                emit_loop(b, m, move)
                b.store(dst, here_ptr)
                b.store(src, there_ptr)

        emit_loop(b, _c(self.passes), one)
        src = b.load(here_ptr, typ=PTR)

        def back(i):
            key = b.load(b.gep(src, [i], inbounds=True, source_etype=t), typ=t)
            b.store(k.back(b, key), b.gep(out, [i], inbounds=True, source_etype=t))

        emit_loop(b, m, back)
        b.ret_void()
        return fn

    def _insertion_sort(self, b: ll.IRBuilder, keys, out, m) -> None:
        """The keys at ``keys`` into floats at ``out``, insertion-sorted there (stable: an
        element moves only past larger keys)."""
        k, t = self.k, self.k.type
        emit_loop(b, m, lambda i: b.store(b.load(b.gep(keys, [i], source_etype=t), typ=t),
                                           b.gep(out, [i], source_etype=t)))

        def insert(i):
            i = b.add(i, _c(1))
            v = b.load(b.gep(out, [i], source_etype=t), typ=t)
            entry = b.block
            cond = b.append_basic_block("insert.cond")
            shift = b.append_basic_block("insert.shift")
            done = b.append_basic_block("insert.done")
            b.branch(cond)
            b.position_at_end(cond)
            j = b.phi(I64)
            j.add_incoming(i, entry)
            above = b.icmp_unsigned(">", j, _c(0))
            before = b.sub(j, _c(1))
            prev = b.load(b.gep(out, [b.select(above, before, _c(0))], source_etype=t), typ=t)
            b.cbranch(b.and_(above, b.icmp_unsigned(">", prev, v)), shift, done)
            b.position_at_end(shift)
            b.store(prev, b.gep(out, [j], source_etype=t))
            j.add_incoming(before, shift)
            b.branch(cond)
            b.position_at_end(done)
            b.store(v, b.gep(out, [j], source_etype=t))

        emit_loop(b, b.sub(m, _c(1)), insert)
        emit_loop(b, m, lambda i: b.store(k.back(b, b.load(b.gep(out, [i], source_etype=t), typ=t)),
                                           b.gep(out, [i], source_etype=t)))
