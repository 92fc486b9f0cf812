"""How the CPU runs a ``kernel.generic``: a loop nest around its body, shaped for LLVM's
vectorizers.

The CPU's tactics, each a choice a GPU would make differently:

- an all-identity, all-contiguous kernel is one flat loop (``_flatten``);
- a float sum or product over the innermost dim keeps several partial accumulators
  (``_blocked_reduction``), as NumPy's pairwise sum does, so the loop vectorizes;
- a scan runs its dim in order, position 0 from the inits (``_loop_nest``);
- a body whose fast math may be inaccurate for some element runs again, whole, with exact libm
  math when one was seen (``_emit_with_exact_fallback``).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.kernel_body import KernelBody, kernel_function
from jitcore.codegen.llvm_types import I1, I64, constant, memory_type, value_type
from jitcore.codegen.loops import element_pointer, emit_loop, emit_nest, extent, static_value
from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Operation, Value
from jitcore.ir.dialects import kernel


def emit_kernel(module: ll.Module, name: str, op: kernel.GenericOp, strided: list[bool],
                fastmath: bool = False, split: bool = False) -> tuple[ll.Function, int | None]:
    """``op`` as the internal function ``name`` (see ``kernel_body.kernel_function``), and the
    extent of the dim it runs a range ``[lo, hi)`` of when ``split`` (None: it is not split).
    That dim is its first parallel one of extent above 1, or the one loop of a flattened
    kernel; each point of the other dims lies in one range, so ranges run independently."""
    schedule = _Schedule(module, name, op, strided, fastmath, split)
    return schedule.function, schedule.split_extent


class _Schedule:
    def __init__(self, module: ll.Module, name: str, op: kernel.GenericOp, strided: list[bool],
                 fastmath: bool, split: bool = False):
        self.op = op
        self.fastmath = fastmath
        shaped = [*op.operands, *op.results]
        checks = kernel.checks_indices(op)
        split_dims = [i for i, (d, it) in enumerate(zip(op.domain(), op.iterator_types))
                      if split and it == kernel.PARALLEL and d > 1]
        self.function, operands, status, self.bounds = kernel_function(
            module, name, shaped, strided, extra_pointers=int(checks), split=bool(split_dims))
        self.split_dim = split_dims[0] if split_dims else None
        self.b = ll.IRBuilder(self.function.append_basic_block("entry"))
        maps = list(op.indexing_maps)
        self.domain = [extent(d) for d in op.domain()]
        positional = any(isinstance(inner, kernel.IndexOp) for inner in op.body.ops)
        same_shape = all(v.type.shape == tuple(op.domain()) for v in shaped)
        plain = not (op.has_reduction or positional or any(strided) or op.clamped or op.indexed)
        if plain and same_shape and all(m.is_identity for m in maps):
            maps = self._flatten(operands, maps)
            self.split_dim = 0 if split_dims else None
        self.split_extent = None if self.split_dim is None else static_value(self.domain[self.split_dim])
        self.body = KernelBody(self.b, op, operands, maps, scalar.Precision(fastmath=fastmath),
                               status[0] if checks else None)
        self.scan_start = False  # emitting position 0 of the scan dim (see _loop_nest)
        if any(scalar.needs_exact_fallback(inner) for inner in op.body.ops):
            self._emit_with_exact_fallback()
        else:
            self._emit_nest()
        self.b.ret_void()

    def _flatten(self, operands, maps) -> list[AffineMap]:
        """An all-identity, all-contiguous kernel is one flat loop: best for the vectorizer."""
        size = extent(int(np.prod(self.op.domain())) if self.domain else 1)
        self.domain = [size]
        for operand in operands:
            operand.strides, operand.shape = [extent(1)], [size]
        return [AffineMap.identity(1) for _ in maps]

    def _emit_nest(self) -> None:
        self._emit_copies()
        if self.op.has_reduction and self.op.scan_dim is None:
            self._emit_inits()  # a scan starts from its inits at position 0 instead
        self._loop_nest(0, [])

    def _emit_copies(self) -> None:
        """Results that start as a copy of an input get that copy before the nest runs."""
        n_in = len(self.op.operands)
        operands = self.body.operands
        for k, source in enumerate(self.op.copy_inputs):
            if source < 0:
                continue
            result = self.op.results[k]
            elem = memory_type(result.type.element)

            def copy_at(ivs, src=operands[source], dst=operands[n_in + k], elem=elem):
                value = self.b.load(element_pointer(self.b, src.pointer, ivs, src.strides, elem), typ=elem)
                self.b.store(value, element_pointer(self.b, dst.pointer, ivs, dst.strides, elem))

            emit_nest(self.b, [extent(d) for d in result.type.shape], copy_at)

    def _emit_with_exact_fallback(self) -> None:
        """Run the vectorizable nest, noting any element the fast math cannot compute
        accurately; if there was one, run the whole nest again with exact (libm) math. Kernels
        write only their own results, so the second run simply overwrites the first (a scatter
        copies its input again first); the status words are put back as they were, so that
        only the exact run's index checks count."""
        flag = self.b.alloca(I1)
        self.b.store(ll.Constant(I1, 0), flag)
        status = self.body.status
        words = [] if status is None else [self.b.gep(status, [ll.Constant(I64, k)], source_etype=I64)
                                           for k in range(4)]
        saved = [self.b.load(w, typ=I64) for w in words]

        def report(cond):
            self.b.store(self.b.or_(self.b.load(flag, typ=I1), cond), flag)

        self.body.precision = scalar.Precision(report=report, fastmath=self.fastmath)
        self._emit_nest()
        with self.b.if_then(self.b.load(flag, typ=I1), likely=False):
            for word, value in zip(words, saved):
                self.b.store(value, word)
            self.body.precision = scalar.Precision(exact=True, fastmath=self.fastmath)
            self._emit_nest()

    def _emit_inits(self) -> None:
        if self.split_dim is not None:
            self._emit_split_inits()
            return
        n_in = len(self.op.operands)
        for k, (r, init) in enumerate(zip(self.op.results, self.op.attributes["inits"])):
            t = r.type.element
            value = constant(t, init.value, memory=True)

            def store(iv, k=k, t=t, value=value):
                ptr = self.b.gep(self.body.operands[n_in + k].pointer, [iv], inbounds=True,
                                 source_etype=memory_type(t))
                self.b.store(value, ptr)

            emit_loop(self.b, extent(r.type.size), store)

    def _emit_split_inits(self) -> None:
        """The inits of the results this range computes (the parallel points in it) only: the
        other ranges, maybe running at the same time, own the rest."""
        op, n_in = self.op, len(self.op.operands)
        zero = ll.Constant(I64, 0)

        def store(depth: int, ivs: list) -> None:
            if depth == len(self.domain):
                for k, (r, init) in enumerate(zip(op.results, op.attributes["inits"])):
                    self.body.store(n_in + k, ivs, r, constant(r.type.element, init.value))
            elif op.iterator_types[depth] != kernel.PARALLEL:
                store(depth + 1, ivs + [zero])  # the results do not depend on this dim
            else:
                self._range_loop(depth, lambda iv: store(depth + 1, ivs + [iv]))

        store(0, [])

    def _range_loop(self, depth: int, body) -> None:
        """The loop over dim ``depth``: only the range ``[lo, hi)`` of the split dim."""
        if depth != self.split_dim:
            emit_loop(self.b, self.domain[depth], body)
            return
        lo, hi = self.bounds
        emit_loop(self.b, self.b.sub(hi, lo), lambda iv: body(self.b.add(iv, lo)))

    def _point(self, ivs: list) -> None:
        """The body at ``ivs``, its results stored; accumulators are read from the results (a
        reduction) or from the previous position along the scan dim (a scan)."""
        op = self.op
        accumulators = None
        if op.has_reduction and op.scan_dim is None:
            accumulators = lambda: self.body.load_results(ivs)  # noqa: E731
        elif op.has_reduction:
            accumulators = lambda: [self._scan_accumulator(k, ivs, r)  # noqa: E731
                                    for k, r in enumerate(op.results)]
        self.body.store_results(ivs, self.body.evaluate(ivs, accumulators))

    def _scan_accumulator(self, k: int, ivs: list, r: Value) -> ll.Value:
        """Result ``k`` at the previous position along the scan dim, or its init at position 0.

        ``_loop_nest`` runs position 0 of the scan dim apart from the others, so this is a
        constant there and an affine read elsewhere: LLVM then keeps a scan along the inner loop
        in a register, and vectorizes a scan along an outer one.
        """
        t = r.type.element
        if self.scan_start:
            init = self.op.attributes["inits"][k].value
            return constant(t, init)
        scan = self.op.scan_dim
        previous = self.b.sub(ivs[scan], ll.Constant(I64, 1))
        return self.body.load(len(self.op.operands) + k, [*ivs[:scan], previous, *ivs[scan + 1:]], r)

    def _loop_nest(self, depth: int, ivs: list) -> None:
        if depth == len(self.domain):
            self._point(ivs)
            return
        trip_count = self.domain[depth]
        if depth == len(self.domain) - 1 and self._lane_combiners() and self._worth_blocking(trip_count):
            self._blocked_reduction(trip_count, ivs)
            return
        if depth == self.op.scan_dim and static_value(trip_count) != 0:
            # Position 0 from the inits, then positions 1.. in order, each reading the one
            # before it (stored earlier: the other dims run wholly inside or outside this one).
            self.scan_start = True
            self._loop_nest(depth + 1, ivs + [ll.Constant(I64, 0)])
            self.scan_start = False
            one = ll.Constant(I64, 1)
            rest = self._minus(trip_count, 1)
            emit_loop(self.b, rest, lambda iv: self._loop_nest(depth + 1, ivs + [self.b.add(iv, one)]))
            return
        self._range_loop(depth, lambda iv: self._loop_nest(depth + 1, ivs + [iv]))

    def _minus(self, value: ll.Value, n: int) -> ll.Value:
        known = static_value(value)
        return extent(known - n) if known is not None else self.b.sub(value, extent(n))

    def _lanes(self) -> int:
        """Partial accumulators per result in a blocked reduction: two vectors' worth."""
        return 16 if self.op.results[0].type.element.bitwidth <= 32 else 8

    def _worth_blocking(self, trip_count: ll.Value) -> bool:
        """A blocked reduction pays once there are two blocks of lanes (or the count is known
        only at run time)."""
        known = static_value(trip_count)
        return known is None or known >= 2 * self._lanes()

    def _lane_combiners(self) -> list[str] | None:
        """For a float sum or product over the innermost dim, each result's combining op.

        Such a loop carries one add from each iteration to the next, which LLVM may not reorder
        (IEEE), so it would run one element at a time. Only these two ops are reordered here:
        several partial accumulators, added pairwise at the end, as NumPy's pairwise sum does.
        """
        op = self.op
        if (self.fastmath or op.scan_dim is not None or not op.has_reduction
                or op.iterator_types[-1] != "reduction"):
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

    def _blocked_reduction(self, trip_count: ll.Value, ivs: list) -> None:
        """The innermost (reduction) loop with ``_lanes()`` partial accumulators per result:
        blocks of lanes, then the remaining elements into lane 0, then a pairwise sum of the
        lanes into the result."""
        op, n_in, lanes = self.op, len(self.op.operands), self._lanes()
        combiners = self._lane_combiners()
        slots = []
        with self.b.goto_entry_block():
            for r in op.results:
                slots.append([self.b.alloca(value_type(r.type.element)) for _ in range(lanes)])
        for k, r in enumerate(op.results):
            init = op.attributes["inits"][k].value
            for slot in slots[k]:
                self.b.store(constant(r.type.element, init), slot)

        types = [value_type(r.type.element) for r in op.results]

        def step(position, lane):
            accs = lambda: [self.b.load(slots[k][lane], typ=t) for k, t in enumerate(types)]  # noqa: E731
            for slot, y in zip((s[lane] for s in slots), self.body.evaluate([*ivs, position], accs)):
                self.b.store(y, slot)

        width = ll.Constant(I64, lanes)

        def block(iv):
            base = self.b.mul(iv, width)
            for lane in range(lanes):
                step(self.b.add(base, ll.Constant(I64, lane)), lane)

        known = static_value(trip_count)
        if known is not None:
            blocks, start = extent(known // lanes), extent(known // lanes * lanes)
            remainder = extent(known % lanes)
        else:
            blocks = self.b.udiv(trip_count, width)
            start = self.b.mul(blocks, width)
            remainder = self.b.sub(trip_count, start)
        emit_loop(self.b, blocks, block)
        emit_loop(self.b, remainder, lambda iv: step(self.b.add(start, iv), 0))
        zero = [*ivs, ll.Constant(I64, 0)]
        for k, (r, name) in enumerate(zip(op.results, combiners)):
            t = value_type(r.type.element)
            parts = [self.b.load(slot, typ=t) for slot in slots[k]]
            while len(parts) > 1:
                parts = [self._combine(name, a, b) for a, b in zip(parts[::2], parts[1::2])]
            total = self._combine(name, self.body.load(n_in + k, zero, r), parts[0])
            self.body.store(n_in + k, zero, r, total)

    def _combine(self, name: str, a: ll.Value, b: ll.Value) -> ll.Value:
        if name == "complex.add":
            for k in (0, 1):
                part = self.b.fadd(self.b.extract_value(a, k), self.b.extract_value(b, k))
                a = self.b.insert_value(a, part, k)
            return a
        return self.b.fadd(a, b) if name == "arith.addf" else self.b.fmul(a, b)


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
