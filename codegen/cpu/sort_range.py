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
insertion pass. The passes go between ``data`` and ``scratch`` (``m`` keys); the last one that
runs writes floats (the insertion pass compares them by their keys), and a bucket that ends in
``scratch`` is copied back (float32 10^6 normals: 3.9-4.7 ms against 4.5-5.6 with a read of its
own turning keys into floats; float64 no different). The order of equal keys is not
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
        self.insert = self._insertion_function(f"{name}_insert", floats=False)
        self.insert_floats = self._insertion_function(f"{name}_insert_floats", floats=True)
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
        with b.if_then(b.not_(exact)):  # put right the floats that tie in the window
            budget = b.mul(m, _c(MOVES_PER_KEY))
            put_right = b.call(self.insert_floats, [at, m, budget])
            with b.if_then(b.not_(put_right), likely=False):
                self._keys(b, at, m)
                other = b.select(b.icmp_unsigned("==", at, data), scratch, data)
                whole = b.call(self.lsd[-1], [at, other, m])
                self._copy(b, whole, data, m)
                b.ret_void()
        self._copy(b, at, data, m)
        b.ret_void()
        return fn

    def _copy(self, b: ll.IRBuilder, floats, out, m) -> None:
        """The ``m`` floats at ``floats`` to ``out``, unless they are there."""
        memcpy = self.module.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
        with b.if_then(b.icmp_unsigned("!=", floats, out)):
            size = b.mul(m, _c(self.k.width // 8))
            b.call(memcpy, [out, floats, size, ll.Constant(I1, 0)])

    def _keys(self, b: ll.IRBuilder, floats, m) -> None:
        """The floats at ``floats`` (as ``SortKeys.back`` gives them) turned into keys in place."""
        t = self.k.type

        def key(i):
            at = b.gep(floats, [i], inbounds=True, source_etype=t)
            b.store(self.k.plain(b, b.load(at, typ=t)), at)

        emit_loop(b, m, key)

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
        total, uniform = b.alloca(I32), b.alloca(I1)  # promoted to registers by LLVM
        shared = []  # i1 per digit: the whole range has one value of it (its pass is skipped)
        for j in range(depth):
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
            shared.append(b.load(uniform, typ=I1))
        here, there = b.alloca(PTR), b.alloca(PTR)
        b.store(keys, here)
        b.store(other, there)
        for j in reversed(range(depth)):  # least significant digit first
            last = ll.Constant(I1, 1)  # the last pass that runs writes floats
            for below in shared[:j]:
                last = b.and_(last, below)
            with b.if_then(b.not_(shared[j])):
                src, dst = b.load(here, typ=PTR), b.load(there, typ=PTR)
                with b.if_else(last) as (ends, goes_on):
                    with ends:
                        self._scatter(b, src, dst, m, slot, j, floats=True)
                    with goes_on:
                        self._scatter(b, src, dst, m, slot, j, floats=False)
                b.store(dst, here)
                b.store(src, there)
        none = ll.Constant(I1, 1)
        for digit in shared:
            none = b.and_(none, digit)
        with b.if_then(none):  # every digit shared: the keys are in order, as floats in place
            self._back(b, keys, keys, m)
        b.ret(b.load(here, typ=PTR))
        return fn

    def _scatter(self, b: ll.IRBuilder, src, dst, m, slot, j: int, floats: bool) -> None:
        """One LSD pass by digit ``j`` from ``src`` to ``dst``; ``floats``: writing floats."""
        t = self.k.type

        def move(i):
            key = b.load(b.gep(src, [i], inbounds=True, source_etype=t), typ=t)
            at_slot = slot(j, self._digit(b, key, j))
            at = b.load(at_slot, typ=I32)
            b.store(b.add(at, ll.Constant(I32, 1)), at_slot)
            value = self.k.back(b, key) if floats else key
            b.store(value, b.gep(dst, [b.zext(at, I64)], inbounds=True, source_etype=t))

        emit_loop(b, m, move)

    def _insertion_function(self, name: str, floats: bool) -> ll.Function:
        """``i1 f(ptr keys, i64 m, i64 budget)``: insertion-sort the ``m`` keys (``floats``:
        floats as ``SortKeys.back`` gives them, compared by their keys) at ``keys`` in place;
        false, the keys part sorted, once more than ``budget`` moves were made (an unsigned
        budget: -1 never gives up)."""
        fn, b = self._function(name, I1, [PTR, I64, I64])
        keys, m, budget = fn.args
        def order(x):
            return self.k.plain(b, x) if floats else x

        def moves_before(prev, v, above):
            return b.and_(above, b.icmp_unsigned(">", order(prev), order(v)))

        emit_budgeted_insertion(b, fn, keys, self.k.type, m, budget, moves_before)
        return fn


def emit_budgeted_insertion(b: ll.IRBuilder, fn: ll.Function, items, t, m, budget, moves_before) -> None:
    """The body of ``fn`` (``b`` at the end of its entry block): insertion-sort the ``m`` items of
    type ``t`` at ``items`` in place, an item ``v`` moving before the one before it, ``prev``,
    while ``moves_before(prev, v, above)`` holds (``above``: there is one before it; the callback
    emits the comparison, in blocks of its own if it needs them, and leaves ``b`` where the i1 it
    returns is known); return false once more than ``budget`` moves were made (an unsigned
    budget: -1 never gives up), true when sorted."""
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
    v = b.load(b.gep(items, [i], inbounds=True, source_etype=t), typ=t)
    b.branch(inner)
    b.position_at_end(inner)  # j: where v goes, if the item before it does not move after v
    j = b.phi(I64)
    j.add_incoming(i, head)
    above = b.icmp_signed(">", j, _c(0))
    before = b.sub(j, _c(1))
    prev = b.load(b.gep(items, [b.select(above, before, _c(0))], inbounds=True, source_etype=t), typ=t)
    b.cbranch(moves_before(prev, v, above), shift, place)
    b.position_at_end(shift)
    b.store(prev, b.gep(items, [j], inbounds=True, source_etype=t))
    j.add_incoming(before, shift)
    b.branch(inner)
    b.position_at_end(place)
    b.store(v, b.gep(items, [j], inbounds=True, source_etype=t))
    made = b.add(moves, b.sub(i, j))
    i.add_incoming(b.add(i, _c(1)), place)
    moves.add_incoming(made, place)
    b.cbranch(b.icmp_unsigned(">", made, budget), gave_up, outer)
    b.position_at_end(gave_up)
    b.ret(ll.Constant(I1, 0))
    b.position_at_end(finished)
    b.ret(ll.Constant(I1, 1))
