"""Software prefetch for reductions whose loads interleave across blocks.

A reduction in lanes reads several blocks side by side (``reduction.RowReduction``: four
blocks of a whole reduction, two of a matrix row; each lane's chain of ``STEPS`` dependent adds
would otherwise wait on the add's latency). Each load instruction of that loop then steps by a
whole run (4 KiB of float32 per iteration) and the loads walk a page in the order 0, 1024,
2048, 3072, 64, ...: the hardware prefetchers, which follow one instruction's stride or a
sequential run of lines within a page, follow neither, so out of cache every run paid a
memory latency per block (a float32 sum of 10**7 at 4.4 ms, NumPy's sequential one 1.8 ms).

``Prefetcher`` emits ``llvm.prefetch`` (read, keep in all levels, data) of the element
``AHEAD_BYTES`` past each group a reduction loads, for every input stream read contiguously
along the reduced dim: one prefetch per 64-byte line, since a group of ``LANES`` elements of 32
or 64 bits is one line (of narrower types, half of one: a second prefetch of the same line is
a cheap hit). A prefetch never faults and never changes a value: past the array's end it is a
hint the CPU drops. The address is computed without ``inbounds`` for that reason (an
``inbounds`` step past the end would be poison).

Only inputs whose step along the reduced dim is a compile-time ±1 element are prefetched: a
run-time or wider stride reads through ``strided_copy`` or lines the hardware sees anyway; a
broadcast input (step 0) stays in cache; a clamped or indexed input's addresses are not a
stream. Producer folds (``producer_folds.py``) read their producer's arrays, not these.
"""

from __future__ import annotations

from contextlib import contextmanager

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I8, I64, PTR, declare, memory_type
from jitcore.codegen.loops import emit_loop, static_value
from jitcore.ir.attributes import numpy_dtype

# How far ahead of the group being loaded: measured on float32 and float64 sums of 10**7
# (docs/performance.md, "reduce36"): 4-8 KiB left part of each run's latency, 16-64 KiB ran
# alike (32-64 KiB a little better under load, with more lines in flight).
AHEAD_BYTES = 32 * 1024
# Inputs of at most this many bytes in all are not prefetched: they come from L2 or L3, where
# the prefetches only add load-port work (a float32 sum of 250,000 took 1.3x as long with them,
# of 10**6 1.15x, of 2 * 10**6 the same; of 4 * 10**6, 16 MB, a third of the time).
IN_CACHE_BYTES = 8 * 1024 * 1024

READ, KEEP_IN_ALL_LEVELS, DATA = 0, 3, 1
LINE = 64


class Prefetcher:
    """The streams of ``body`` (a ``KernelBody``) along its dim ``dim`` (``_streams``), and
    the test whether they are large enough to prefetch (``_large``: a constant where every
    extent is known, else a value computed here, at the builder's position)."""

    def __init__(self, b: ll.IRBuilder, body, dim: int):
        self.b, self.body = b, body
        self.streams = _streams(body, dim)
        self.large = _large(b, body, self.streams) if self.streams else False

    def emit(self, point: list[ll.Value], step: ll.Value, elements: int) -> None:
        """For a loop whose iteration ``step`` reads ``elements`` elements of each stream
        from ``point`` on (in any order): prefetch the lines of elements ``step * elements``
        .. ``(step + 1) * elements - 1`` past ``point``, plus ``AHEAD_BYTES``, in address order,
        which the L2's stream prefetcher then follows too (the same lines in the loads'
        interleaved order were no faster than none)."""
        b = self.b
        with self._when_large() as hints:
            for index, elem, size in (self.streams if hints else []):
                span = elements * size
                first = b.gep(self.body.element_pointer(index, point, elem),
                              [b.mul(step, ll.Constant(I64, span))], source_etype=I8)
                for line in range(0, span, LINE):
                    self._prefetch(b.gep(first, [ll.Constant(I64, AHEAD_BYTES + line)], source_etype=I8))

    def emit_range(self, point: list[ll.Value], count: ll.Value) -> None:
        """Prefetch the lines of elements ``0 .. count - 1`` past ``point`` of each stream,
        plus ``AHEAD_BYTES``, in a loop: a row's tail (less than a block), whose lines no run
        prefetched. Left out, rows of 3000 float32 missed 11 lines each, a memory latency
        apiece (a row sum of 4000x3000 at 4.0 ms where rows of 2560 took 2.5 ms)."""
        b = self.b
        with self._when_large() as hints:
            for index, elem, size in (self.streams if hints else []):
                first = b.gep(self.body.element_pointer(index, point, elem), [ll.Constant(I64, AHEAD_BYTES)],
                              source_etype=I8)
                # from the first element's line to the last one's (the start may be unaligned)
                lines = b.udiv(b.add(b.mul(count, ll.Constant(I64, size)), ll.Constant(I64, 2 * LINE - 1)),
                               ll.Constant(I64, LINE))
                emit_loop(b, lines, lambda line, first=first: self._prefetch(
                    b.gep(first, [b.mul(line, ll.Constant(I64, LINE))], source_etype=I8)),
                    vectorize=False, unroll=False)

    @contextmanager
    def _when_large(self):
        """Within: True where prefetches are to be emitted (inside a branch on ``large``
        where that is known only at run time), else False."""
        if self.large is False:
            yield False
            return
        if self.large is True:
            yield True
            return
        with self.b.if_then(self.large):
            yield True

    def _prefetch(self, at: ll.Value) -> None:
        b = self.b
        fn = declare(b.module, "llvm.prefetch.p0", ll.VoidType(), [PTR, *[ll.IntType(32)] * 3])
        b.call(fn, [at, *(ll.Constant(ll.IntType(32), v) for v in (READ, KEEP_IN_ALL_LEVELS, DATA))])


def _streams(body, dim: int) -> list[tuple[int, ll.Type, int]]:
    """(operand index, memory type, its size in bytes) of each input read contiguously
    (step +1 element, known at compile time) along ``dim``."""
    op = body.op
    found = []
    for index, value in enumerate(op.operands):
        if index in op.indexed or index in op.clamped or "load" in vars(body):  # folded: not ours
            continue
        if _step(body, index, dim) == 1:
            found.append((index, memory_type(value.type.element), numpy_dtype(value.type.element).itemsize))
    return found


def _step(body, index: int, dim: int) -> int | None:
    """Operand ``index``'s step in elements as ``dim`` advances by one; None if not known at
    compile time."""
    total = 0
    for axis, e in enumerate(body.maps[index].exprs):
        if e.dim != dim:
            continue
        stride = static_value(body.operands[index].strides[axis])
        if stride is None:
            return None
        total += e.scale * stride
    return total


def _large(b: ll.IRBuilder, body, streams) -> bool | ll.Value:
    """Whether the streams' arrays hold more than ``IN_CACHE_BYTES`` in all: a bool where
    their extents are known at compile time, else an i1 value."""
    known, sizes = 0, []
    for index, _, size in streams:
        count: int | ll.Value = size
        for extent in body.operands[index].shape:
            value = static_value(extent)
            if isinstance(count, int) and value is not None:
                count *= value
            else:
                count = b.mul(count if not isinstance(count, int) else ll.Constant(I64, count),
                              extent if value is None else ll.Constant(I64, value))
        if isinstance(count, int):
            known += count
        else:
            sizes.append(count)
    if not sizes:
        return known > IN_CACHE_BYTES
    total = ll.Constant(I64, known)
    for count in sizes:
        total = b.add(total, count)
    return b.icmp_unsigned(">", total, ll.Constant(I64, IN_CACHE_BYTES))
