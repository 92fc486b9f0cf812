"""A reduction's inputs that step through memory by a stride known only at run time along the
dim it reads in runs (a row of ``a[::2, ::2]`` in ``a.sum(axis=1)``, a tile of a row in
``a.sum(axis=0)``), or float64 ones by a constant step of two or more (``a[:, ::2]`` sliced
inside the function), copied run by run into stack buffers that the reduction's code then
reads contiguously: the same elements in the same order, so the same bits.

Read in place, LLVM made AVX-512 gathers of such loads (indices from ``vpmullq``), 2-3x slower
on Zen 4 than scalar loads, and versioned and unrolled the column loops of ``a.sum(axis=0)``
into a module that took 0.5-0.8 s to compile (docs/performance.md, "Strided sums" and
"Strided reductions"). So each run is copied first:

- where every such input's stride along the run is 2 (every other element: ``a[::2, ::2]``,
  ``x[:, ::2]``), each group of ``lanes`` elements by one masked vector load of the
  ``2 * lanes - 1`` elements that span it (the lane past its last element masked off: it may
  lie past the array, and a masked lane is never read) and one shuffle of its even lanes
  (``vpermt2ps``), the remainder by scalar loads;
- else by scalar loads, in a loop that LLVM may neither vectorize nor unroll (its SLP
  vectorizer would make the gathers again).
"""

from __future__ import annotations

from contextlib import contextmanager

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I1, I64, PTR, value_type
from jitcore.codegen.loops import emit_loop, extent, static_value
from jitcore.ir.attributes import numpy_dtype

I32 = ll.IntType(32)
PAIRED_STRIDE = 2  # a run of this stride is copied by vector loads and shuffles


def _size(t: ll.Type) -> int:
    return 8 if isinstance(t, ll.DoubleType) else 4


class StridedCopy:
    """The copies of ``op``'s inputs strided along iteration dim ``dim``, ``capacity``
    elements a run at most; ``lanes`` elements a vector group (None: 64 bytes of the widest
    input)."""

    def __init__(self, b: ll.IRBuilder, op, body, dim: int, capacity: int, lanes: int | None = None):
        self.b, self.op, self.body, self.dim = b, op, body, dim
        self.capacity, self.lanes = capacity, lanes
        self.buffers: list[tuple[ll.Value, ll.Type]] | None = None  # one per input, made once
        self.inputs = self._strided()

    def _strided(self) -> list[int]:
        """The inputs whose stride along ``dim`` is a run-time value, or, for 64-bit elements, a
        constant step of two elements or more (``a[:, ::2]`` sliced inside the function: its
        map reads ``d1 * 2``). Read in place, LLVM's SLP vectorizer made gathers of a float64
        max's fold, 8x slower than NumPy; its float32 code (shuffles of two loads) beat the
        copy (2.9-3.3 ms against 5.1-5.5 for a 4096x4096 ``a[:, ::2].max()``), so 32-bit
        elements of a constant step are read in place as before."""
        strided = []
        for i, operand in enumerate(self.body.operands[: len(self.op.operands)]):
            if i in self.op.indexed or i in self.op.clamped:
                continue
            steps = [self._step(operand.strides[axis], e.scale)
                     for axis, e in enumerate(self.body.maps[i].exprs) if e.dim == self.dim]
            wide = numpy_dtype(self.op.operands[i].type.element).itemsize == 8
            if any(step is None or (wide and abs(step) > 1) for step in steps):
                strided.append(i)
        return strided

    @staticmethod
    def _step(stride: ll.Value, scale: int) -> int | None:
        """Elements between consecutive positions of the dim, where known when compiling."""
        known = static_value(stride)
        return None if known is None else known * scale

    @contextmanager
    def copied(self, outer: list, first: ll.Value, count: ll.Value):
        """Within: the strided inputs' elements ``first .. first + count - 1`` along ``dim``
        at the outer point ``outer`` (``count`` at most ``capacity``) read from their copies."""
        strided = self.inputs
        if not strided:
            yield
            return
        b, body, dim = self.b, self.body, self.dim
        values = [self.op.operands[i] for i in strided]
        if self.buffers is None:  # a load's value type
            with b.goto_entry_block():
                self.buffers = [(b.alloca(t, size=self.capacity), t)
                                for t in (value_type(v.type.element) for v in values)]
            if self.lanes is None:
                self.lanes = 64 // max(_size(t) for _, t in self.buffers)
        load = body.load

        def copy(t):
            for i, v, (buffer, typ) in zip(strided, values, self.buffers):
                x = load(i, [*outer, b.add(first, t)], v)
                b.store(x, b.gep(buffer, [t], inbounds=True, source_etype=typ))

        def scalar(start, n):
            emit_loop(b, n, lambda t: copy(b.add(start, t)), unroll=False, vectorize=False)

        strides = self._run_strides()
        if strides is None:
            scalar(extent(0), count)
        else:
            two = ll.Constant(I64, PAIRED_STRIDE)
            fast = b.icmp_signed("==", strides[0], two)
            for stride in strides[1:]:
                fast = b.and_(fast, b.icmp_signed("==", stride, two))
            with b.if_else(fast, likely=True) as (then, otherwise):
                with then:
                    width = extent(self.lanes)
                    groups = b.udiv(count, width)
                    emit_loop(b, groups, lambda g: self._copy_pairs(outer, first, b.mul(g, width)),
                              unroll=False, vectorize=False)
                    done = b.mul(groups, width)
                    scalar(done, b.sub(count, done))
                with otherwise:
                    scalar(extent(0), count)

        def from_copy(index, ivs, value):
            if index not in strided or len(ivs) != dim + 1:
                return load(index, ivs, value)
            buffer, typ = self.buffers[strided.index(index)]
            return b.load(b.gep(buffer, [b.sub(ivs[dim], first)], inbounds=True, source_etype=typ), typ=typ)

        saved = body.__dict__.get("load")  # a folded producer's loads (``producer_folds.py``)
        body.load = from_copy
        try:
            yield
        finally:
            if saved is None:
                del body.load
            else:
                body.load = saved

    def _run_strides(self) -> list[ll.Value] | None:
        """Each strided input's stride along ``dim`` (a run-time value, or the constant step of a
        scaled map), where each is a float32 or float64 loaded plainly that reads ``dim`` on
        one axis; else None (a diagonal, a run-time stride under a scaled map, a bool, a
        folded producer's load)."""
        if "load" in self.body.__dict__ or any(not isinstance(t, (ll.FloatType, ll.DoubleType))
                                              for _, t in self.buffers):
            return None
        strides = []
        for i in self.inputs:
            exprs = self.body.maps[i].exprs
            axes = [axis for axis, e in enumerate(exprs) if e.dim == self.dim]
            if len(axes) != 1:
                return None
            stride, scale = self.body.operands[i].strides[axes[0]], exprs[axes[0]].scale
            step = self._step(stride, scale)
            if step is None and scale != 1:
                return None
            strides.append(stride if step is None else extent(step))
        return strides

    def _copy_pairs(self, outer: list, first: ll.Value, start: ll.Value) -> None:
        """Elements ``first + start ..`` (one group of ``lanes``) of each strided input, of
        stride 2, into its buffer at ``start``: a masked load of the span, its even lanes."""
        b, lanes = self.b, self.lanes
        for i, (buffer, typ) in zip(self.inputs, self.buffers):
            at = self.body.element_pointer(i, [*outer, b.add(first, start)], typ)
            wide = ll.VectorType(typ, 2 * lanes)
            mask = ll.Constant(ll.VectorType(I1, 2 * lanes), [1] * (2 * lanes - 1) + [0])
            name = f"llvm.masked.load.v{2 * lanes}f{8 * _size(typ)}.p0"
            masked_load = b.module.globals.get(name) or ll.Function(
                b.module, ll.FunctionType(wide, [PTR, I32, mask.type, wide]), name)
            span = b.call(masked_load, [at, ll.Constant(I32, _size(typ)), mask,
                                        ll.Constant(wide, ll.Undefined)])
            picks = ll.Constant(ll.VectorType(I32, lanes), list(range(0, 2 * lanes, 2)))
            even = b.shuffle_vector(span, span, picks)
            into = b.gep(buffer, [start], inbounds=True, source_etype=typ)
            b.store(even, b.bitcast(into, even.type.as_pointer()), align=_size(typ))
