"""The CPU's reassociated reductions: a float sum or product along the innermost dim, in a
fixed, documented order whose rounding error grows like NumPy's pairwise sum.

A float add carried from one iteration to the next may not be reordered by LLVM (IEEE), so a
plain loop runs one element at a time and its error grows linearly with the count: 10**7 terms
of 1e-7 in float32 summed in order give 1.0038, not 1.0. Here the reduced dim of length ``n``
(a row, or a whole array flattened) is summed in this order, the same on every host:

1. ``LANES`` partial accumulators ("lanes"), each starting from the identity (the result's
   ``init``). Element ``i`` of a block goes to lane ``i % LANES``, so the lanes are independent
   chains that LLVM's SLP vectorizer packs into vector registers.
2. Blocks of ``BLOCK = STEPS * LANES`` elements: each lane adds ``STEPS`` (16) elements in order.
   A block's lanes are then merged into a *cascade*, lane by lane: a stack of lane vectors where
   level ``k`` holds the sum of ``2**k`` consecutive blocks. Block ``j`` is added to the levels
   below it as a binary counter carries (``stack[k] + block``, the earlier blocks on the left),
   so block totals are combined as a balanced binary tree: pairwise summation of the blocks.
3. The tail (fewer than ``BLOCK`` elements) goes into fresh lanes, whole groups of ``LANES``
   first and the last ``n % LANES`` elements into lane 0. The occupied stack levels are then
   added onto it from the lowest level up (``stack[k] + lanes``).
4. The lanes are combined pairwise (lane 0 + lane 1, lane 2 + lane 3, ... then the same on the
   results), and that total is added to the result (its init, or the total of the outer
   reduction dims so far: a full reduction of contiguous arrays is flattened into one dim first,
   see ``schedule._collapse_reduction``).

``LANES`` comes from the element type, never from the host's vector width: 16 for types of at
most 32 bits, 8 for 64-bit ones (two 256-bit vectors, or one 512-bit vector, either way), so a
result is bit-identical on AVX2, AVX-512 and ARM hosts and from run to run.

Rounding error: each lane adds at most ``STEPS + LANES`` terms in order; the cascade adds
``ceil(log2(n / BLOCK))`` levels and the lane tree ``log2(LANES)``. So
``|sum - exact| <= (log2(n) + 2 * STEPS) * eps * sum(|x|)`` (first order; NumPy's bound has the
same form with its 8 accumulators of blocks of 128), against ``n * eps * sum(|x|)`` in order.
A product is reassociated the same way, with the same relative bound.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, constant, value_type
from jitcore.codegen.loops import emit_loop, extent, static_value
from jitcore.ir.core import Operation, Value

STEPS = 16  # elements per lane per block: NumPy's pairwise sum also adds 16 per accumulator
LEVELS = 64  # cascade levels: one per bit of the block count


def lanes_for(element) -> int:
    """Partial accumulators per result: 16 for types up to 32 bits, 8 for 64-bit and wider ones
    (chosen from the type, not the host, so the order is the same everywhere)."""
    return 16 if element.bitwidth <= 32 else 8


def lane_combiners(op) -> list[str] | None:
    """For a float sum or product over the innermost dim, each result's combining op (None when
    the kernel is not such a reduction).

    Only these ops are reordered: ``arith.addf``, ``arith.mulf`` and a complex sum (two float
    sums). Their accumulator is used once, by the combine, so the body is ``acc (+) f(inputs)``.
    """
    if op.scan_dim is not None or not op.has_reduction or op.iterator_types[-1] != "reduction":
        return None
    n_in = len(op.operands)
    names = []
    for k, y in enumerate(op.body.terminator.operands):
        acc = op.body.args[n_in + k]
        combine = getattr(y, "op", None)
        if _is_complex_sum(combine, acc):
            names.append("complex.add")
            continue
        if (combine is None or combine.op_name not in ("arith.addf", "arith.mulf")
                or acc not in combine.operands or len(acc.uses) != 1):
            return None
        names.append(combine.op_name)
    return names


def _is_complex_sum(combine: Operation | None, acc: Value) -> bool:
    """``complex.create(re(acc) + re(x), im(acc) + im(x))``: a complex sum, whose two float
    sums may be reordered like a float sum's."""
    if combine is None or combine.op_name != "complex.create" or len(acc.uses) != 2:
        return False
    for part, name in zip(combine.operands, ("complex.re", "complex.im")):
        add = getattr(part, "op", None)
        if add is None or add.op_name != "arith.addf":
            return False
        if not any(getattr(v, "op", None) is not None and v.op.op_name == name and v.op.operands[0] is acc
                   for v in add.operands):
            return False
    return True


def combine(b: ll.IRBuilder, name: str, x: ll.Value, y: ll.Value) -> ll.Value:
    """``x (+) y`` for a combiner named by ``lane_combiners``."""
    if name == "complex.add":
        for k in (0, 1):
            part = b.fadd(b.extract_value(x, k), b.extract_value(y, k))
            x = b.insert_value(x, part, k)
        return x
    return b.fadd(x, y) if name == "arith.addf" else b.fmul(x, y)


class BlockedReduction:
    """One row's reduction in the order of the module docstring, at the builder's position.

    ``body`` is the schedule's ``KernelBody``; ``ivs`` the outer induction values (the row).
    """

    def __init__(self, b: ll.IRBuilder, op, body, combiners: list[str]):
        self.b, self.op, self.body, self.combiners = b, op, body, combiners
        self.lanes = lanes_for(op.results[0].type.element)
        self.types = [value_type(r.type.element) for r in op.results]
        self.inits = [constant(r.type.element, init.value)
                      for r, init in zip(op.results, op.attributes["inits"])]
        with b.goto_entry_block():
            self.slots = [[b.alloca(t) for _ in range(self.lanes)] for t in self.types]
            self.stacks = [b.alloca(t, size=LEVELS * self.lanes) for t in self.types]

    # -- lanes ------------------------------------------------------------------------------
    def _reset_lanes(self) -> None:
        for slots, init in zip(self.slots, self.inits):
            for slot in slots:
                self.b.store(init, slot)

    def _step(self, ivs: list, position: ll.Value, lane: int) -> None:
        """The body at ``position`` of the row, accumulating into lane ``lane``."""
        b = self.b
        accs = lambda: [b.load(s[lane], typ=t) for s, t in zip(self.slots, self.types)]  # noqa: E731
        for slots, y in zip(self.slots, self.body.evaluate([*ivs, position], accs)):
            b.store(y, slots[lane])

    def _group(self, ivs: list, base: ll.Value) -> None:
        """Elements ``base .. base + LANES - 1``, one per lane."""
        for lane in range(self.lanes):
            self._step(ivs, self.b.add(base, ll.Constant(I64, lane)), lane)

    # -- the cascade ------------------------------------------------------------------------
    def _level(self, k: int, level: ll.Value, lane: int) -> ll.Value:
        index = self.b.add(self.b.mul(level, ll.Constant(I64, self.lanes)), ll.Constant(I64, lane))
        return self.b.gep(self.stacks[k], [index], inbounds=True, source_etype=self.types[k])

    def _add_level_to_lanes(self, level: ll.Value) -> None:
        """lanes = stack[level] (+) lanes: the earlier blocks on the left."""
        b = self.b
        for k, (slots, t, name) in enumerate(zip(self.slots, self.types, self.combiners)):
            for lane, slot in enumerate(slots):
                earlier = b.load(self._level(k, level, lane), typ=t)
                b.store(combine(b, name, earlier, b.load(slot, typ=t)), slot)

    def _while_bit(self, bits: ll.Value, stop_when_zero: bool, body) -> ll.Value:
        """``level = 0; while <test>: body(level); level += 1``, returning ``level`` after the loop.
        The test is bit ``level`` of ``bits`` being set, or (``stop_when_zero``) ``bits >> level``
        being non-zero."""
        b = self.b
        pre = b.block
        fn = b.function
        header, inner, done = (fn.append_basic_block(n) for n in ("cascade", "carry", "carried"))
        b.branch(header)
        b.position_at_end(header)
        level = b.phi(I64)
        level.add_incoming(ll.Constant(I64, 0), pre)
        shifted = b.lshr(bits, level)
        if not stop_when_zero:
            shifted = b.and_(shifted, ll.Constant(I64, 1))
        b.cbranch(b.icmp_unsigned("!=", shifted, ll.Constant(I64, 0)), inner, done)
        b.position_at_end(inner)
        body(level)
        level.add_incoming(b.add(level, ll.Constant(I64, 1)), b.block)
        b.branch(header)
        b.position_at_end(done)
        return level

    def _push_block(self, block: ll.Value) -> None:
        """Merge block number ``block`` (in the lanes) into the cascade, as a binary counter
        carries: one merge per trailing one bit of ``block``, then store at the level reached."""
        top = self._while_bit(block, False, self._add_level_to_lanes)
        for k, (slots, t) in enumerate(zip(self.slots, self.types)):
            for lane, slot in enumerate(slots):
                self.b.store(self.b.load(slot, typ=t), self._level(k, top, lane))

    # -- the row ----------------------------------------------------------------------------
    def emit(self, trip_count: ll.Value, ivs: list) -> None:
        b, lanes = self.b, self.lanes
        width = ll.Constant(I64, lanes)
        block_size = ll.Constant(I64, lanes * STEPS)
        known = static_value(trip_count)
        if known is not None:
            blocks = extent(known // (lanes * STEPS))
            start = extent(known // (lanes * STEPS) * lanes * STEPS)
            groups = extent(known % (lanes * STEPS) // lanes)
            rest = extent(known // lanes * lanes)
            leftover = extent(known % lanes)
        else:
            blocks = b.udiv(trip_count, block_size)
            start = b.mul(blocks, block_size)
            groups = b.udiv(b.sub(trip_count, start), width)
            rest = b.mul(b.udiv(trip_count, width), width)
            leftover = b.sub(trip_count, rest)

        def block(j):
            self._reset_lanes()
            base = b.mul(j, block_size)
            emit_loop(b, extent(STEPS), lambda s: self._group(ivs, b.add(base, b.mul(s, width))))
            self._push_block(j)

        emit_loop(b, blocks, block)
        self._reset_lanes()
        emit_loop(b, groups, lambda g: self._group(ivs, b.add(start, b.mul(g, width))))
        emit_loop(b, leftover, lambda i: self._step(ivs, b.add(rest, i), 0))

        def add_level(level):
            bit = b.and_(b.lshr(blocks, level), ll.Constant(I64, 1))
            with b.if_then(b.icmp_unsigned("!=", bit, ll.Constant(I64, 0))):
                self._add_level_to_lanes(level)

        self._while_bit(blocks, True, add_level)
        self._store_total(ivs)

    def _store_total(self, ivs: list) -> None:
        """result (+) (the lanes combined pairwise)."""
        b, n_in = self.b, len(self.op.operands)
        zero = [*ivs, ll.Constant(I64, 0)]
        for k, (r, t, name) in enumerate(zip(self.op.results, self.types, self.combiners)):
            parts = [b.load(slot, typ=t) for slot in self.slots[k]]
            while len(parts) > 1:
                parts = [combine(b, name, x, y) for x, y in zip(parts[::2], parts[1::2])]
            total = combine(b, name, self.body.load(n_in + k, zero, r), parts[0])
            self.body.store(n_in + k, zero, r, total)
