"""One bucket of a bucketed float sort (``sort_buckets.py``), sorted where it lies and turned
back into floats: ``RangeSort.function`` is ``void f(ptr data, ptr scratch, i64 m)``, the ``m``
keys at ``data`` (which share their top bits) becoming the sorted floats there.

A bucket is small enough for the cache, and its keys need far fewer bits than they hold to be
told apart: ``m`` keys, about ``log2(m)`` bits. So a bucket of more than ``SMALL`` keys is
sorted only by a *window*: the ``DIGIT_BITS``-bit digits just below the bucket's own bits, as many as
``log2(m) + GUARD_BITS`` bits need (LSD passes, a digit the whole bucket shares skipped),
which leaves keys equal in the window (a few in ``2^GUARD_BITS``, on smooth data) out of
order. An insertion pass puts those right; it gives up after ``MOVES_PER_KEY`` moves a key on
average (keys that differ only below the window: integers, a narrow cluster), and LSD passes
over every digit then sort the bucket whole. A window that reaches the last bit needs no
insertion pass. The passes go between ``data`` and ``scratch`` (``m`` keys), so the bucket ends
in either; the last read turns its keys into floats in ``data``. The order of equal keys is not
kept: equal keys are equal floats (the keys of -0.0 and NaN are put right after the sort, by
``sort_keys.restore_lost``).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.sort_keys import SortKeys
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

I8, I32 = ll.IntType(8), ll.IntType(32)

# Bits per LSD digit: 512 counters. Measured on 10^6 normals (one thread, the routine alone,
# best of 31): float32 4.3 ms with 9 bits, 5.3 with 8, 4.6 with 10, 4.9 with 11; float64 5.5,
# 6.1, 6.0, 5.7 (a window of 18 bits leaves fewer ties than one of 16; float32's 18 bits below
# its top digit are two digits, so its window is the whole key).
DIGIT_BITS = 9
SMALL = 32  # keys: a bucket this short is insertion-sorted outright
GUARD_BITS = 2  # window bits beyond log2(m): about one key in 2^(GUARD_BITS + 1) ties in them
MOVES_PER_KEY = 2  # the insertion pass's budget, a key on average, before the full passes
# Windows of up to this many digits (buckets of up to 2^25 keys); a longer bucket is sorted by
# every digit. Each window is a function of its own: fewer to compile.
MAX_WINDOW = 3


class RangeSort:
    """``function``: the sort of one bucket of keys of ``k``'s width whose low ``bits`` are
    left to sort."""

    def __init__(self, module: ll.Module, name: str, k: SortKeys, bits: int, digit_bits: int = DIGIT_BITS):
        self.module, self.k, self.bits = module, k, bits
        self.digit_bits, self.radix = digit_bits, 1 << digit_bits
        self.digits = -(-bits // digit_bits)
        self.insert = self._insertion_function(f"{name}_insert")
        # LSD over the top 1 .. MAX_WINDOW digits (a window), or over all of them (exact)
        self.depths = sorted({*range(1, min(MAX_WINDOW, self.digits) + 1), self.digits})
        self.lsd = [self._lsd_function(f"{name}_lsd{q}", q) for q in self.depths]
        self.function = self._range_function(name)

    def shift(self, j: int) -> int:
        """Digit ``j``'s lowest bit, digits counted from the top of the bits left (the last
        one overlaps the one above it when ``bits`` is not a multiple of the digit's width:
        harmless to LSD)."""
        return max(0, self.bits - self.digit_bits * (j + 1))

    def _function(self, name: str, result: ll.Type, params: list) -> tuple[ll.Function, ll.IRBuilder]:
        fn = ll.Function(self.module, ll.FunctionType(result, params), name)
        fn.linkage = "internal"
        return fn, ll.IRBuilder(fn.append_basic_block("entry"))

    def _range_function(self, name: str) -> ll.Function:
        fn, b = self._function(name, ll.VoidType(), [PTR, PTR, I64])
        fn.attributes.add("noinline")
        data, scratch, m = fn.args
        for a in (data, scratch):
            a.add_attribute("noalias")
        with b.if_then(b.icmp_signed("<=", m, _c(SMALL))):
            b.call(self.insert, [data, m, _c(-1)])
            self._back(b, data, data, m)
            b.ret_void()
        # the window: log2(m) + GUARD_BITS bits, in whole digits
        ctlz = self.module.globals.get("llvm.ctlz.i64") or ll.Function(
            self.module, ll.FunctionType(I64, [I64, I1]), "llvm.ctlz.i64")
        log2 = b.sub(_c(64), b.call(ctlz, [b.sub(m, _c(1)), ll.Constant(I1, 0)]))
        q = b.udiv(b.add(log2, _c(GUARD_BITS + self.digit_bits - 1)), _c(self.digit_bits))
        q = b.select(b.icmp_unsigned(">", q, _c(MAX_WINDOW)), _c(self.digits), q)
        q = b.select(b.icmp_unsigned(">", q, _c(self.digits)), _c(self.digits), q)
        done = fn.append_basic_block("window.done")
        switch = b.switch(q, done)
        sorted_at = []
        for depth, lsd in zip(self.depths, self.lsd):
            block = fn.append_basic_block(f"window{depth}")
            switch.add_case(_c(depth), block)
            b.position_at_end(block)
            sorted_at.append((b.call(lsd, [data, scratch, m]), b.block))
            b.branch(done)
        b.position_at_end(done)
        at = b.phi(PTR)
        at.add_incoming(data, switch.parent)  # not reached: q is one of the depths
        for value, block in sorted_at:
            at.add_incoming(value, block)
        exact = b.icmp_unsigned("==", q, _c(self.digits))
        with b.if_then(b.not_(exact)):  # put right the keys that tie in the window
            budget = b.mul(m, _c(MOVES_PER_KEY))
            put_right = b.call(self.insert, [at, m, budget])
            with b.if_then(b.not_(put_right), likely=False):
                other = b.select(b.icmp_unsigned("==", at, data), scratch, data)
                whole = b.call(self.lsd[-1], [at, other, m])
                self._back(b, whole, data, m)
                b.ret_void()
        self._back(b, at, data, m)
        b.ret_void()
        return fn

    def _back(self, b: ll.IRBuilder, keys, out, m) -> None:
        """Floats at ``out`` from the keys at ``keys`` (the same place, or not)."""
        t = self.k.type

        def back(i):
            key = b.load(b.gep(keys, [i], inbounds=True, source_etype=t), typ=t)
            b.store(self.k.back(b, key), b.gep(out, [i], inbounds=True, source_etype=t))

        emit_loop(b, m, back)

    def _digit(self, b: ll.IRBuilder, key, j: int) -> ll.Value:
        t = self.k.type
        d = b.and_(b.lshr(key, ll.Constant(t, self.shift(j))), ll.Constant(t, self.radix - 1))
        return b.zext(d, I64) if t.width < 64 else d

    def _lsd_function(self, name: str, depth: int) -> ll.Function:
        """``ptr f(ptr keys, ptr other, i64 m)``: the ``m`` keys at ``keys`` sorted by their top
        ``depth`` digits (``other`` is scratch of ``m`` keys); where they are now (``keys`` or
        ``other``). One read counts every digit; a digit the whole range shares is skipped."""
        fn, b = self._function(name, PTR, [PTR, PTR, I64])
        keys, other, m = fn.args
        for a in (keys, other):
            a.add_attribute("noalias")
        t = self.k.type
        counts = b.alloca(I32, size=depth * self.radix)
        counts.align = 64
        memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
        b.call(memset, [counts, ll.Constant(I8, 0), _c(4 * depth * self.radix), ll.Constant(I1, 0)])

        def slot(j: int, d) -> ll.Value:
            return b.gep(counts, [b.add(_c(j * self.radix), d)], inbounds=True, source_etype=I32)

        def count(i):
            key = b.load(b.gep(keys, [i], inbounds=True, source_etype=t), typ=t)
            for j in range(depth):
                at = slot(j, self._digit(b, key, j))
                b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

        emit_loop(b, m, count)
        m32 = b.trunc(m, I32)
        here, there = b.alloca(PTR), b.alloca(PTR)  # promoted to registers by LLVM
        total, uniform = b.alloca(I32), b.alloca(I1)
        b.store(keys, here)
        b.store(other, there)
        for j in reversed(range(depth)):  # least significant digit first
            b.store(ll.Constant(I32, 0), total)
            b.store(ll.Constant(I1, 0), uniform)

            def prefix(r, j=j):
                at = slot(j, r)
                count = b.load(at, typ=I32)
                before = b.load(total, typ=I32)
                b.store(before, at)
                b.store(b.add(before, count), total)
                b.store(b.or_(b.load(uniform, typ=I1), b.icmp_unsigned("==", count, m32)), uniform)

            emit_loop(b, _c(self.radix), prefix)
            with b.if_then(b.not_(b.load(uniform, typ=I1))):
                src, dst = b.load(here, typ=PTR), b.load(there, typ=PTR)

                def move(i, j=j, src=src, dst=dst):
                    key = b.load(b.gep(src, [i], inbounds=True, source_etype=t), typ=t)
                    at_slot = slot(j, self._digit(b, key, j))
                    at = b.load(at_slot, typ=I32)
                    b.store(b.add(at, ll.Constant(I32, 1)), at_slot)
                    b.store(key, b.gep(dst, [b.zext(at, I64)], inbounds=True, source_etype=t))

                emit_loop(b, m, move)
                b.store(dst, here)
                b.store(src, there)
        b.ret(b.load(here, typ=PTR))
        return fn

    def _insertion_function(self, name: str) -> ll.Function:
        """``i1 f(ptr keys, i64 m, i64 budget)``: insertion-sort the ``m`` keys at ``keys`` in
        place; false, the keys part sorted, once more than ``budget`` moves were made (an
        unsigned budget: -1 never gives up)."""
        fn, b = self._function(name, I1, [PTR, I64, I64])
        keys, m, budget = fn.args
        t = self.k.type
        entry = b.block
        outer, head, inner, shift, place, gave_up, finished = (
            fn.append_basic_block(n) for n in ("outer", "head", "inner", "shift", "place", "gave_up",
                                               "finished"))
        b.branch(outer)
        b.position_at_end(outer)
        i, moves = b.phi(I64), b.phi(I64)
        i.add_incoming(_c(1), entry)
        moves.add_incoming(_c(0), entry)
        b.cbranch(b.icmp_signed("<", i, m), head, finished)
        b.position_at_end(head)
        v = b.load(b.gep(keys, [i], inbounds=True, source_etype=t), typ=t)
        b.branch(inner)
        b.position_at_end(inner)  # j: where v goes, if the key before it is not above v
        j = b.phi(I64)
        j.add_incoming(i, head)
        above = b.icmp_signed(">", j, _c(0))
        before = b.sub(j, _c(1))
        prev = b.load(b.gep(keys, [b.select(above, before, _c(0))], inbounds=True, source_etype=t), typ=t)
        b.cbranch(b.and_(above, b.icmp_unsigned(">", prev, v)), shift, place)
        b.position_at_end(shift)
        b.store(prev, b.gep(keys, [j], inbounds=True, source_etype=t))
        j.add_incoming(before, shift)
        b.branch(inner)
        b.position_at_end(place)
        b.store(v, b.gep(keys, [j], inbounds=True, source_etype=t))
        made = b.add(moves, b.sub(i, j))
        i.add_incoming(b.add(i, _c(1)), place)
        moves.add_incoming(made, place)
        b.cbranch(b.icmp_unsigned(">", made, budget), gave_up, outer)
        b.position_at_end(gave_up)
        b.ret(ll.Constant(I1, 0))
        b.position_at_end(finished)
        b.ret(ll.Constant(I1, 1))
        return fn
