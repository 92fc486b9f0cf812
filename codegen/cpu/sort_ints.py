"""Native sorts of int lanes (``codegen/cpu/sort.py``): what the lane's range decides.

A long lane of 32- or 64-bit ints is sorted by the float routines' buckets
(``sort_buckets.py``) with ``sort_keys.SortKeys`` of an int kind (a key is the value, a signed
one's sign bit flipped: nothing to restore afterwards). First one read finds the lane's
smallest key and span (largest - smallest; a min/max loop LLVM vectorizes), then:

- a span below the kernel's counters (``kernelize/sort.py`` sizes them: 2^17 i32 counters for
  a single lane of 2^16 or more) is counted: one read counting each key - smallest, one
  sequential write of each value as often as it occurred (equal ints are indistinguishable, so
  no order is lost; the kernel's ``scf`` counting sort, as native code);
- a span whose top bit is below the keys' top bit (values close together, or all of one sign
  and not spread over the whole range) has its keys spread over the whole width first:
  ``(key - smallest) << leading zeros of the span`` (order-preserving and one-to-one) into the
  second buffer, sorted as unsigned keys, and turned back after. The buckets of the top bits
  then split the values themselves, not their shared high bits: ints of +-10^7 would otherwise
  fill two buckets (the sign flip's 0x7FF.. and 0x800..) of half the lane each;
- any other lane goes to the buckets as it is.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.sort_keys import SortKeys
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

I8, I32 = ll.IntType(8), ll.IntType(32)


def by_stride(b: ll.IRBuilder, stride: ll.Value, emit) -> None:
    """``emit(step)`` for a contiguous lane (``step`` 1, which LLVM vectorizes) and others."""
    with b.if_else(b.icmp_unsigned("==", stride, _c(1))) as (contiguous, strided):
        with contiguous:
            emit(_c(1))
        with strided:
            emit(stride)


def _index(b: ll.IRBuilder, v: ll.Value) -> ll.Value:
    return b.zext(v, I64) if v.type.width < 64 else v


def emit_key_range(b: ll.IRBuilder, k: SortKeys, src, stride, n: ll.Value) -> tuple[ll.Value, ll.Value]:
    """The smallest key of the ``n`` values at ``src`` (``stride`` apart) and the span (largest -
    smallest), both of the keys' type (a float's key as ``SortKeys.of`` makes it)."""
    t = k.type
    with b.goto_entry_block():
        low, high = b.alloca(t), b.alloca(t)
    b.store(k.ones, low)
    b.store(ll.Constant(t, 0), high)

    def scan(step):
        def one(i):
            key, _ = k.of(b, k.load(b, src, step, i))
            lo, hi = b.load(low, typ=t), b.load(high, typ=t)
            b.store(b.select(b.icmp_unsigned("<", key, lo), key, lo), low)
            b.store(b.select(b.icmp_unsigned(">", key, hi), key, hi), high)

        emit_loop(b, n, one)

    by_stride(b, stride, scan)
    lo = b.load(low, typ=t)
    return lo, b.sub(b.load(high, typ=t), lo)


# Counters per key where they fit: key i of the lane counts in counter i % WAYS of its key's
# WAYS. One counter a key made every key of a run of equal ones wait for the last one's
# increment through memory (a store-to-load chain): 10^5 equal int64s 0.26 -> 0.125 ms CPU
# (docs/performance.md, sortperf52).
WAYS = 4


def emit_counting_sort(b: ll.IRBuilder, module: ll.Module, k: SortKeys, src, stride, out,
                       counts, lo: ll.Value, span: ll.Value, n: ll.Value, capacity: int) -> None:
    """The ``n`` ints at ``src`` sorted into ``out`` (contiguous), their keys lying in ``lo ..
    lo + span``; ``counts``: ``capacity`` i32 counters of scratch, at least ``span + 1``
    (``WAYS`` a key, side by side, where ``WAYS (span + 1)`` fit; summed when written)."""
    t = k.type
    slots = b.add(_index(b, span), _c(1))
    spread = b.icmp_unsigned("<=", slots, _c(capacity // WAYS))
    shift = b.select(spread, _c(WAYS.bit_length() - 1), _c(0))
    way_of = b.select(spread, _c(WAYS - 1), _c(0))  # i & way_of: the counter of key i
    ways = b.add(way_of, _c(1))
    memset = module.declare_intrinsic("llvm.memset", [PTR, I64])
    b.call(memset, [counts, ll.Constant(I8, 0), b.shl(b.mul(slots, _c(4)), shift), ll.Constant(I1, 0)])

    def count(step):
        def one(i):
            key = b.sub(k.plain(b, k.load(b, src, step, i)), lo)
            at = b.or_(b.shl(_index(b, key), shift), b.and_(i, way_of))
            at = b.gep(counts, [at], inbounds=True, source_etype=I32)
            b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

        emit_loop(b, n, one)

    by_stride(b, stride, count)
    with b.goto_entry_block():
        place, many_slot = b.alloca(I64), b.alloca(I64)
    b.store(_c(0), place)

    def emit(s):
        b.store(_c(0), many_slot)
        first_counter = b.shl(s, shift)

        def add(w):
            at = b.gep(counts, [b.add(first_counter, w)], inbounds=True, source_etype=I32)
            b.store(b.add(b.load(many_slot, typ=I64), b.zext(b.load(at, typ=I32), I64)), many_slot)

        emit_loop(b, ways, add, vectorize=False, unroll=False)
        many = b.load(many_slot, typ=I64)
        value = k.back(b, b.add(lo, b.trunc(s, t) if t.width < 64 else s))
        first = b.load(place, typ=I64)
        emit_loop(b, many, lambda j: b.store(value, b.gep(out, [b.add(first, j)], inbounds=True,
                                                          source_etype=t)))
        b.store(b.add(first, many), place)

    emit_loop(b, slots, emit, vectorize=False)


def spread_shift(b: ll.IRBuilder, module: ll.Module, span: ll.Value) -> ll.Value:
    """The leading zero bits of ``span`` (keys' type): how far ``spread`` shifts its keys."""
    t = span.type
    name = f"llvm.ctlz.i{t.width}"
    ctlz = module.globals.get(name) or ll.Function(module, ll.FunctionType(t, [t, I1]), name)
    return b.call(ctlz, [span, ll.Constant(I1, 0)])


def emit_spread(b: ll.IRBuilder, k: SortKeys, src, stride, out, lo, shift, n: ll.Value) -> None:
    """``out[i] = (key(src[i]) - lo) << shift`` for the ``n`` ints at ``src``: unsigned keys
    over the whole width, in the order of the values."""
    t = k.type

    def spread(step):
        def one(i):
            key = b.shl(b.sub(k.plain(b, k.load(b, src, step, i)), lo), shift)
            b.store(key, b.gep(out, [i], inbounds=True, source_etype=t))

        emit_loop(b, n, one)

    by_stride(b, stride, spread)


def emit_gather_back(b: ll.IRBuilder, k: SortKeys, data, lo, shift, n: ll.Value) -> None:
    """``emit_spread``'s keys at ``data`` (contiguous, as the sort left them: plain unsigned)
    turned back into the ints they came from, in place."""
    t = k.type

    def one(i):
        at = b.gep(data, [i], inbounds=True, source_etype=t)
        b.store(k.back(b, b.add(b.lshr(b.load(at, typ=t), shift), lo)), at)

    emit_loop(b, n, one)
