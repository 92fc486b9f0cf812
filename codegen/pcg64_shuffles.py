"""NumPy's ``Generator.permutation(n)`` and ``Generator.choice(n, k, replace=False)`` on a
PCG64, in LLVM IR, bit for bit NumPy 2.4's (``_generator.pyx``): the samplers of
``codegen/pcg64.py`` that fill their whole result at once rather than one draw per element.

``permutation(n)`` is ``arange(n)`` shuffled by ``_shuffle_raw``: for ``i`` from ``n - 1`` down
to 1, swap ``i`` with ``j = random_interval(i)``, NumPy's *masked* draw (the smallest all-ones
mask at or above ``i``; a 32-bit draw while ``i`` fits 32 bits, else a 64-bit one; drawn
again while above ``i``). ``choice(n, k, replace=False)`` is Floyd's algorithm with Lemire's
bounded draws (``random_bounded_uint64``: the 32-bit path below 2**32): for ``j`` from
``n - k`` to ``n - 1`` a draw ``v`` in ``[0, j]``, kept unless already taken, else ``j``; then
(``shuffle=True``) the ``k`` chosen are shuffled by ``_shuffle_int``, whose draws are Lemire's
too. A population above 10000 of which more than ``n // 50`` (``n // 20`` unshuffled) are
chosen is instead the last ``k`` of ``arange(n)`` after a tail shuffle (``_shuffle_int`` from
``n - 1`` down to ``max(n - k, 1)``). Floyd's set is NumPy's: open addressing in a table of
the next power of two above ``1.2 * k`` slots.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import emit_loop

I8 = ll.IntType(8)
# sampler -> (its parameters' LLVM types, the result's); each builds its whole result
SHUFFLES = {"permutation": ((), I64), "choice_without": ((I64, I64), I64)}
# choice's tail shuffle: above this population, when more than n // cutoff are chosen
_TAIL_POPULATION = 10000


def _c(x: int) -> ll.Constant:
    return ll.Constant(I64, x)


class ShuffleSamplers:
    """Mixed into ``codegen/pcg64.py``'s ``_Sampler``: ``next32``, ``next64``, ``integers``
    (Lemire's bounded draw) and ``fn``/``b``/``module`` are its."""

    def interval(self, top: ll.Value) -> ll.Value:
        """NumPy's ``random_interval(top)``: a masked draw in ``[0, top]``."""
        b = self.b
        mask = top
        for shift in (1, 2, 4, 8, 16, 32):
            mask = b.or_(mask, b.lshr(mask, _c(shift)))
        names = ("ivl.zero", "ivl.some", "ivl.d32", "ivl.d64", "ivl.done")
        zero, some, d32, d64, done = (self.fn.append_basic_block(n) for n in names)
        b.cbranch(b.icmp_unsigned("==", top, _c(0)), zero, some)
        b.position_at_end(zero)
        b.branch(done)
        b.position_at_end(some)
        b.cbranch(b.icmp_unsigned("<=", top, _c(0xFFFFFFFF)), d32, d64)
        results = [(_c(0), zero)]
        for block, draw in ((d32, lambda: b.zext(self.next32(), I64)), (d64, self.next64)):
            b.position_at_end(block)
            again = self.fn.append_basic_block("ivl.again")
            b.branch(again)
            b.position_at_end(again)
            value = b.and_(draw(), mask)
            b.cbranch(b.icmp_unsigned(">", value, top), again, done)
            results.append((value, b.block))
        b.position_at_end(done)
        out = b.phi(I64)
        for value, block in results:
            out.add_incoming(value, block)
        return out

    def bounded(self, top: ll.Value) -> ll.Value:
        """NumPy's ``random_bounded_uint64(0, top)`` (Lemire's): ``integers(0, top + 1)``."""
        return self.integers(_c(0), self.b.add(top, _c(1)))

    def swap_down(self, data: ll.Value, start: ll.Value, stop: ll.Value, draw) -> None:
        """For ``i`` from ``start`` down to ``stop`` (inclusive; none if ``start < stop``):
        swap ``data[i]`` and ``data[draw(i)]``."""
        b = self.b

        def swap(k: ll.Value) -> None:
            i = b.sub(start, k)
            j = draw(i)
            at_i, at_j = b.gep(data, [i], source_etype=I64), b.gep(data, [j], source_etype=I64)
            x, y = b.load(at_i, typ=I64), b.load(at_j, typ=I64)
            b.store(y, at_i)
            b.store(x, at_j)
        emit_loop(b, b.add(b.sub(start, stop), _c(1)), swap)

    def count_up(self, start: ll.Value, stop: ll.Value, body_of) -> None:
        """``body_of(i)`` for ``i`` from ``start`` up to ``stop - 1``."""
        b = self.b
        emit_loop(b, b.sub(stop, start), lambda k: body_of(b.add(start, k)))

    def arange_into(self, data: ll.Value, n: ll.Value) -> None:
        self.count_up(_c(0), n, lambda i: self.b.store(i, self.b.gep(data, [i], source_etype=I64)))

    def permutation(self, params, out: ll.Value, n: ll.Value) -> None:
        self.arange_into(out, n)
        self.swap_down(out, self.b.sub(n, _c(1)), _c(1), self.interval)

    def choice_without(self, params, out: ll.Value, k: ll.Value) -> None:
        """``k`` of ``pop`` without replacement (``0 <= k <= pop``, checked while tracing)."""
        b = self.b
        pop, shuffle = params
        shuffled = b.icmp_unsigned("!=", shuffle, _c(0))
        cutoff = b.select(shuffled, _c(50), _c(20))
        tail = b.and_(b.icmp_signed(">", pop, _c(_TAIL_POPULATION)),
                      b.icmp_signed(">", k, b.sdiv(pop, cutoff)))
        malloc = self._declared("malloc", PTR, [I64])
        free = self._declared("free", ll.VoidType(), [PTR])
        with b.if_else(tail) as (then, otherwise):
            with then:  # the last k of arange(pop) after a tail shuffle
                idx = b.call(malloc, [b.mul(pop, _c(8))])
                self.arange_into(idx, pop)
                first = b.sub(pop, k)
                stop = b.select(b.icmp_signed(">", first, _c(1)), first, _c(1))
                self.swap_down(idx, b.sub(pop, _c(1)), stop, self.bounded)
                memcpy = self.module.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
                source = b.gep(idx, [first], source_etype=I64)
                b.call(memcpy, [out, source, b.mul(k, _c(8)), ll.Constant(ll.IntType(1), 0)])
                b.call(free, [idx])
            with otherwise:  # Floyd's, with NumPy's open-addressed set of the values taken
                mask = b.fptoui(b.fmul(ll.Constant(ll.DoubleType(), 1.2), b.sitofp(k, ll.DoubleType())), I64)
                for shift in (1, 2, 4, 8, 16, 32):
                    mask = b.or_(mask, b.lshr(mask, _c(shift)))
                slots = b.add(mask, _c(1))
                table = b.call(malloc, [b.mul(slots, _c(8))])
                memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
                nbytes = b.mul(slots, _c(8))
                b.call(memset, [table, ll.Constant(I8, 0xFF), nbytes, ll.Constant(ll.IntType(1), 0)])
                start = b.sub(pop, k)

                def choose(j):
                    v = self.bounded(j)
                    loc = self.probe(table, b.and_(v, mask), mask, v)
                    free_slot = b.icmp_unsigned("==", b.load(loc, typ=I64), _c(-1))
                    with b.if_else(free_slot) as (new_value, seen):
                        with new_value:
                            b.store(v, loc)
                        with seen:  # j itself is never in the set yet
                            b.store(j, self.probe(table, b.and_(j, mask), mask, None))
                    chosen = b.select(free_slot, v, j)
                    b.store(chosen, b.gep(out, [b.sub(j, start)], source_etype=I64))
                self.count_up(start, pop, choose)
                b.call(free, [table])
                with b.if_then(shuffled):
                    self.swap_down(out, b.sub(k, _c(1)), _c(1), self.bounded)

    def probe(self, table: ll.Value, start: ll.Value, mask: ll.Value, value) -> ll.Value:
        """The first slot from ``start`` (wrapping by ``mask``) that is empty (all ones) or,
        unless ``value`` is None, holds ``value``: a pointer to it."""
        b = self.b
        entry = b.block
        head, step, done = (self.fn.append_basic_block(f"probe.{x}") for x in ("head", "step", "done"))
        b.branch(head)
        b.position_at_end(head)
        loc = b.phi(I64)
        loc.add_incoming(start, entry)
        at = b.gep(table, [loc], source_etype=I64)
        held = b.load(at, typ=I64)
        stop = b.icmp_unsigned("==", held, _c(-1))
        if value is not None:
            stop = b.or_(stop, b.icmp_unsigned("==", held, value))
        b.cbranch(stop, done, step)
        b.position_at_end(step)
        loc.add_incoming(b.and_(b.add(loc, _c(1)), mask), step)
        b.branch(head)
        b.position_at_end(done)
        return at

    def _declared(self, name: str, ret: ll.Type, args: list) -> ll.Function:
        fn = self.module.globals.get(name)
        return fn if fn is not None else ll.Function(self.module, ll.FunctionType(ret, args), name)
