"""Sort keys for the native radix sorts (``codegen/cpu/sort.py``,
``codegen/cpu/sort_buckets.py``): a float's bits as an unsigned integer that orders as NumPy
sorts (-0.0 as 0.0, every NaN after +inf, all NaNs equal), back, and the one read that gives
back the signs of zeros and the bits of NaNs that the keys lost; a signed int's bits with the
sign bit flipped, an unsigned int's as they are (ints lose nothing: a key is its value)."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import emit_loop

DIGIT_BITS = 8  # bits per LSD pass: 256 counters per pass
RADIX = 1 << DIGIT_BITS


def c64(v: int) -> ll.Constant:
    return ll.Constant(I64, v)


_INF_BITS = {16: 0x7C00, 32: 0x7F800000, 64: 0x7FF0000000000000}


KINDS = "fiu"  # float, signed int, unsigned int: the letter in the shared kernels' symbols


class SortKeys:
    """Order-preserving unsigned keys of ``width``-bit values of ``kind`` (``KINDS``), and back."""

    def __init__(self, width: int, kind: str = "f"):
        assert kind in KINDS, kind
        self.width, self.kind = width, kind
        self.floats = kind == "f"  # keys that may lose a -0.0's sign or a NaN's bits
        self.type = ll.IntType(width)
        self.sign = ll.Constant(self.type, 1 << (width - 1))
        self.ones = ll.Constant(self.type, (1 << width) - 1)
        self.inf = ll.Constant(self.type, _INF_BITS.get(width, 0))
        floats = {16: ll.HalfType(), 32: ll.FloatType(), 64: ll.DoubleType()}
        self.float = floats[width] if self.floats else None

    def of(self, b: ll.IRBuilder, bits: ll.Value) -> tuple[ll.Value, ll.Value]:
        """The key of a float's ``bits``, and i1: the float is -0.0 or a NaN (its key loses it).
        ``bits`` may be a vector of them (``sort_lanes.py``'s rows): so are the results."""
        if not self.floats:
            lost = ll.Constant(ll.VectorType(ll.IntType(1), bits.type.count), None) \
                if isinstance(bits.type, ll.VectorType) else ll.Constant(ll.IntType(1), 0)
            return self.plain(b, bits), lost
        sign = constant_like(bits, self.sign.constant)
        magnitude = b.and_(bits, constant_like(bits, self.sign.constant - 1))
        key = self.plain(b, bits)
        zero = b.icmp_unsigned("==", magnitude, constant_like(bits, 0))
        nan = b.icmp_unsigned(">", magnitude, constant_like(bits, self.inf.constant))
        key = b.select(nan, constant_like(bits, self.ones.constant), b.select(zero, sign, key))
        lost = b.or_(nan, b.icmp_unsigned("==", bits, sign))
        return key, lost

    def plain(self, b: ll.IRBuilder, bits: ll.Value) -> ll.Value:
        """The key of a float with no -0.0 or NaN but ``back``'s (the inverse of ``back``)."""
        if not self.floats:  # an int's: its sign bit flipped (unsigned: as it is)
            return b.xor(bits, constant_like(bits, self.sign.constant)) if self.kind == "i" else bits
        shifted = b.ashr(bits, constant_like(bits, self.width - 1))
        return b.xor(bits, b.or_(shifted, constant_like(bits, self.sign.constant)))

    def back(self, b: ll.IRBuilder, key: ll.Value) -> ll.Value:
        """The float bits of ``key`` (a NaN's key gives a NaN, a zero's +0.0), scalar or vector;
        an int's bits."""
        if not self.floats:
            return self.plain(b, key)
        shifted = b.ashr(key, constant_like(key, self.width - 1))
        flip = b.or_(b.xor(shifted, constant_like(key, self.ones.constant)),
                     constant_like(key, self.sign.constant))
        return b.xor(key, flip)

    def load(self, b: ll.IRBuilder, src: ll.Value, stride: ll.Value, i: ll.Value) -> ll.Value:
        """The bits of float ``i`` of the floats at ``src``, ``stride`` elements apart."""
        at = b.gep(src, [b.mul(i, stride)], inbounds=True, source_etype=self.type)
        return b.load(at, typ=self.type)


def constant_like(v: ll.Value, value: int) -> ll.Constant:
    """``value`` as a constant of ``v``'s type: an integer, or a vector of them."""
    t = v.type
    if isinstance(t, ll.VectorType):
        return ll.Constant(t, [ll.Constant(t.element, value)] * t.count)
    return ll.Constant(t, value)


# Keys of input checked at once for a zero or a NaN by ``restore_lost`` (bits: one 512-bit
# vector); a block holding one is then read key by key.
RESTORE_BLOCK_BITS = 512


def restore_lost(b: ll.IRBuilder, k: SortKeys, src: ll.Value, stride: ll.Value, out: ll.Value,
                 n: int | ll.Value, out_stride: ll.Value | None = None) -> None:
    """Write the zeros, then the NaNs, of the ``n`` floats at ``src`` (``stride`` elements
    apart) in input order over the sorted lane ``out``'s run of zeros (from its first
    non-negative value) and its NaNs (its tail): the signs and bits their keys lost.
    ``out_stride``: elements between the sorted lane's (None: 1).

    Where those runs start is found by binary searches of the sorted lane (sorts55: counting
    the negatives and the numbers was a read of the whole lane), and a contiguous input is read
    a vector at a time, a vector that holds a zero or a NaN then key by key (10^6 float64s
    rounded to 2 decimals, 2,000 of them -0.0: the scalar read with a branch per key was a
    quarter of the sort)."""
    count = n if isinstance(n, ll.Value) else c64(n)

    def out_at(i):
        return b.gep(out, [i if out_stride is None else b.mul(i, out_stride)], inbounds=True,
                     source_etype=k.type)

    def value(i):
        return b.bitcast(b.load(out_at(i), typ=k.type), k.float)

    with b.goto_entry_block():
        zero_at = b.alloca(I64)
        nan_at = b.alloca(I64)
    fzero = ll.Constant(k.float, 0.0)
    # the sorted lane: negatives, zeros, positives, NaNs
    b.store(_first_not(b, count, lambda i: b.fcmp_ordered("<", value(i), fzero)), zero_at)
    b.store(_first_not(b, count, lambda i: b.fcmp_ordered("ord", value(i), value(i))), nan_at)

    def lost(bits):  # i1 (or a vector of them): a zero or a NaN
        magnitude = b.and_(bits, constant_like(bits, k.sign.constant - 1))
        return b.or_(b.icmp_unsigned("==", magnitude, constant_like(bits, 0)),
                     b.icmp_unsigned(">", magnitude, constant_like(bits, k.inf.constant)))

    def put(i):
        bits = k.load(b, src, stride, i)
        with b.if_then(lost(bits), likely=False):
            magnitude = b.and_(bits, b.not_(k.sign))
            slot = b.select(b.icmp_unsigned("==", magnitude, ll.Constant(k.type, 0)), zero_at, nan_at)
            at = b.load(slot, typ=I64)
            b.store(bits, out_at(at))
            b.store(b.add(at, c64(1)), slot)

    lanes = RESTORE_BLOCK_BITS // k.width
    vec, mask = ll.VectorType(k.type, lanes), ll.IntType(lanes)
    blocks = b.sdiv(count, c64(lanes))
    with b.goto_entry_block():
        tail_from = b.alloca(I64)
    b.store(c64(0), tail_from)
    with b.if_then(b.icmp_signed("==", stride, c64(1))):

        def block(j):
            first = b.mul(j, c64(lanes))
            v = b.load(b.gep(src, [first], inbounds=True, source_etype=k.type), typ=vec)
            v.align = k.width // 8
            hits = b.bitcast(lost(v), mask)
            with b.if_then(b.icmp_unsigned("!=", hits, ll.Constant(mask, 0)), likely=False):
                emit_loop(b, c64(lanes), lambda e: put(b.add(first, e)), vectorize=False)

        emit_loop(b, blocks, block, vectorize=False, unroll=False)
        b.store(b.mul(blocks, c64(lanes)), tail_from)
    start = b.load(tail_from, typ=I64)
    emit_loop(b, b.sub(count, start), lambda i: put(b.add(start, i)), vectorize=False)


def _first_not(b: ll.IRBuilder, n: ll.Value, holds) -> ll.Value:
    """The first ``i`` in ``[0, n)`` where ``holds(i)`` (an i1) is false, or ``n``: a binary
    search, ``holds`` true on a prefix and false after it."""
    fn = b.function
    pre = b.block
    head, body, done = (fn.append_basic_block(x) for x in ("bisect", "bisect_step", "bisect_done"))
    b.branch(head)
    b.position_at_end(head)
    lo, hi = b.phi(I64), b.phi(I64)
    lo.add_incoming(c64(0), pre)
    hi.add_incoming(n, pre)
    b.cbranch(b.icmp_signed("<", lo, hi), body, done)
    b.position_at_end(body)
    mid = b.add(lo, b.lshr(b.sub(hi, lo), c64(1)))
    yes = holds(mid)
    lo.add_incoming(b.select(yes, b.add(mid, c64(1)), lo), b.block)
    hi.add_incoming(b.select(yes, hi, mid), b.block)
    b.branch(head)
    b.position_at_end(done)
    return lo
