"""Long argsorts as sorts of one 64-bit word per element (``codegen/cpu/sort.py``, argsort48):
the key's top bits above the element's position.

A lane of ``n`` elements needs ``p = bits(n - 1)`` bits of position. Each word is the key
less the lane's smallest key, shifted left by the span's leading zeros (order-preserving and
one-to-one, as ``sort_ints.py`` spreads ints), its top ``64 - p`` bits kept, above the
position: words are all different, and sorting them as unsigned ints (``sort_buckets.py``'s
buckets then ``sort_range.py``'s in-cache passes: a sort, with no position carried beside
each key) orders the lane by key and ties by position, which is NumPy's ``kind='stable'``
order, the one jitcore promises for every kind. The positions are the words' low bits.

A 32-bit key always fits beside its position (``p <= 31``); a 64-bit one fits where its span
has at most ``64 - p`` significant bits (ints within about 2^43 of each other at 10^6
elements). Otherwise (floats, full-range ints) words that tie in the kept bits are put right
by an insertion pass comparing the whole keys, read from the lane by position (words ordered
by their kept bits are out of order only among such ties, so it reads the lane only there);
after ``MOVES_PER_KEY`` moves a key it gives up and the lane is sorted by the LSD passes of
(key, position) pairs instead (keys that differ only in their low bits, in many ties).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import sort_buckets, sort_ints
from jitcore.codegen.cpu.sort_keys import SortKeys
from jitcore.codegen.cpu.sort_keys import c64 as _c
from jitcore.codegen.cpu.sort_range import emit_budgeted_insertion
from jitcore.codegen.llvm_types import I1, I64, PTR
from jitcore.codegen.loops import emit_loop

MOVES_PER_KEY = 2  # the insertion pass's budget, moves a key on average, before the LSD passes


def position_bits(n: int) -> int:
    return max(1, (n - 1).bit_length())


def top_bits(kind: str, n: int, wide: bool) -> int:
    """The bits of the words' top digit. Without wide tables (lanes below 2^16, or many lanes):
    ``bits(n) - 8``, 6 to 12; 12 bits took twice the time of 6 at 10^4 (float32 0.21 against
    0.11 ms, int32 0.14 against 0.07) and 1.5x that of 8 at 5*10^4. With them, ints' spread keys
    fill their buckets evenly: 10 bits, as a sort's; floats' keys bunch (their exponents) even
    spread: ``bits(n) - 7``, 10 to 16 (uniform float32 10^5 2.4 / 1.1 ms by 16 bits / this,
    10^6 20.5 / 17.8; float64 2.3 / 1.3 and 23.9 / 20.0; normals within the noise).
    docs/performance.md, argsort48."""
    if not wide:
        return max(6, min(sort_buckets.MSD_BITS, n.bit_length() - 8))
    if kind != "f":
        return sort_buckets.INT_MSD_BITS
    return max(10, min(16, n.bit_length() - 7))


class WordArgsort:
    """The argsort of one lane of ``n`` keys of ``k`` by words, emitted at ``b``; ``words``
    sorts ``n`` unsigned 64-bit words (a ``sort_buckets.BucketSort``)."""

    def __init__(self, module: ll.Module, name: str, b: ll.IRBuilder, k: SortKeys, n: int, words):
        self.module, self.b, self.k, self.n, self.words = module, b, k, n, words
        self.p = position_bits(n)
        self.mask = _c((1 << self.p) - 1)
        # a 64-bit key may not fit beside its position: the insertion pass that puts ties right
        self.insert = self._insertion_function(f"{name}_word_ties") if k.width + self.p > 64 else None

    def sort(self, src, stride, out, scratch, tables, fallback=None) -> None:
        """Positions of the lane at ``src`` (``stride`` elements apart) into ``out`` (``n``
        i64), ``scratch`` another ``n`` i64; ``fallback()`` emits the pair sort that a lane
        whose ties the insertion pass gives up on goes to (64-bit keys)."""
        b, k = self.b, self.k
        lo, span = sort_ints.emit_key_range(b, k, src, stride, _c(self.n))
        with b.if_else(b.icmp_unsigned("==", span, ll.Constant(k.type, 0))) as (equal, apart):
            with equal:  # every key equal: the positions in order (10^6 float64: 6 ms by words)
                emit_loop(b, _c(self.n), lambda i: b.store(i, b.gep(out, [i], inbounds=True,
                                                                    source_etype=I64)))
            with apart:
                self._sort_apart(src, stride, out, scratch, tables, fallback, lo, span)

    def _sort_apart(self, src, stride, out, scratch, tables, fallback, lo, span) -> None:
        b, k = self.b, self.k
        shift = sort_ints.spread_shift(b, self.module, span)
        self._pack(src, stride, scratch, lo, shift)
        self.words.use_tables(tables)
        self.words.sort(scratch, _c(1), out, scratch)
        if self.insert is None:
            self._positions(out)
            return
        # the significant bits of the spread keys: width - shift; kept: 64 - p
        fits = b.icmp_unsigned("<=", b.sub(ll.Constant(k.type, k.width), shift),
                               ll.Constant(k.type, 64 - self.p))
        budget = _c(MOVES_PER_KEY * self.n)
        with b.if_else(fits) as (exact, ties):
            with exact:
                self._positions(out)
            with ties:
                put_right = b.call(self.insert, [out, src, stride, _c(self.n), budget])
                with b.if_else(put_right) as (done, gave_up):
                    with done:
                        self._positions(out)
                    with gave_up:
                        fallback()

    def _pack(self, src, stride, words, lo, shift) -> None:
        """``words[i]``: the spread key of element ``i``'s top ``64 - p`` bits, then ``i``."""
        b, k = self.b, self.k
        up = _c(64 - k.width)
        keep = _c(~((1 << self.p) - 1) & ((1 << 64) - 1))

        def pack(step):
            def one(i):
                key, _ = k.of(b, k.load(b, src, step, i))
                spread = b.shl(b.sub(key, lo), shift)
                wide = b.zext(spread, I64) if k.width < 64 else spread
                word = b.or_(b.and_(b.shl(wide, up), keep), i)
                b.store(word, b.gep(words, [i], inbounds=True, source_etype=I64))

            emit_loop(b, _c(self.n), one)

        sort_ints.by_stride(b, stride, pack)

    def _positions(self, words) -> None:
        """The sorted words at ``words`` turned into their positions, in place."""
        b = self.b

        def one(i):
            at = b.gep(words, [i], inbounds=True, source_etype=I64)
            b.store(b.and_(b.load(at, typ=I64), self.mask), at)

        emit_loop(b, _c(self.n), one)

    def _insertion_function(self, name: str) -> ll.Function:
        """``i1 f(ptr words, ptr src, i64 stride, i64 m, i64 budget)``: insertion-sort the ``m``
        words by (whole key, position), the key of a word read from ``src`` at its position
        where its kept bits tie with the word it is compared with; false once more than
        ``budget`` moves were made."""
        k = self.k
        fn = ll.Function(self.module, ll.FunctionType(I1, [PTR, PTR, I64, I64, I64]), name)
        fn.linkage = "internal"
        fn.attributes.add("noinline")
        words, src, stride, m, budget = fn.args
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        def moves_before(prev, v, above):
            tie, decide = fn.append_basic_block("tie"), fn.append_basic_block("decide")
            inner = b.block
            kept_tie = b.icmp_unsigned("==", b.lshr(prev, _c(self.p)), b.lshr(v, _c(self.p)))
            plain = b.icmp_unsigned(">", prev, v)  # kept bits apart: they decide
            moved = b.and_(above, plain)
            b.cbranch(b.and_(above, kept_tie), tie, decide)
            b.position_at_end(tie)  # the whole keys decide, then the positions

            def key_of(word):
                return k.of(b, k.load(b, src, stride, b.and_(word, self.mask)))[0]

            kp, kv = key_of(prev), key_of(v)
            later = b.or_(b.icmp_unsigned(">", kp, kv), b.and_(b.icmp_unsigned("==", kp, kv), plain))
            tied = b.block
            b.branch(decide)
            b.position_at_end(decide)
            greater = b.phi(I1)
            greater.add_incoming(moved, inner)
            greater.add_incoming(later, tied)
            return greater

        emit_budgeted_insertion(b, fn, words, I64, m, budget, moves_before)
        return fn
