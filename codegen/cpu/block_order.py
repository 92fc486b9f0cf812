"""Which order a row reduction's blocks go in: side by side where its inputs come from cache,
one block after another where they come from memory.

``reduction.RowReduction`` reduces the blocks of a cheap, contiguous body several side by side
(``SIDE_BLOCKS`` of a whole reduction, two of a matrix's row), so that each lane's chain of
``STEPS`` dependent adds overlaps the other blocks' chains. Each load instruction of that loop
then steps by a whole run (4 KiB per iteration) and the loads walk a page in the order 0, 1024,
2048, 3072, 64, ...: the hardware prefetchers, which follow a sequential run of lines or one
instruction's constant stride within a page, follow neither. Out of cache every run paid a
memory latency per block: a float32 sum of 10**7 at 4.2 ms against NumPy's 1.8, its row sums of
4000x3000 at 4.3 against 2.1, `sum(x*y)` at 7.8 (one thread, Zen 4).

From memory the adds' latency is not what limits, so there the blocks go one at a time
(``_Cascade._emit_blocks``): every load in address order, which the prefetchers follow. The
merges are the same ones in the same order (the side-by-side runs were built to give one-at-a-
time's lanes and cascade), so the bits are the same. Measured, one thread, thread CPU time,
ms (docs/performance.md, "reduce36"): float32 sum of 10**7 4.2 -> 1.5, float64 7.9 -> 3.0,
float32 `sum(x*y)` 7.8 -> 2.9, row sums of 4000x3000 float32 4.3 -> 1.8.

Software prefetch was tried first and lost: ``llvm.prefetch`` of each line 16-64 KiB ahead,
in the loads' interleaved order, changed nothing; in address order (which the L2's streamer then
follows) it took the float32 sum to 1.9-2.2 ms and row sums to 2.8-3.1, but a row's tail needs its
own loop of prefetches (each missed line a latency), the prefetches cost 15-30% in cache, and
one block at a time with or without them was faster still (float32 `sum(x*y)` 4.8 prefetched
against 2.9 in order).

In L1 and L2 the two orders measured the same within the noise, or side by side a little
ahead; side by side stays there, where earlier sessions measured it ahead. Past the L2
(``IN_CACHE_BYTES``) one at a time wins already in L3.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import static_value
from jitcore.ir.attributes import numpy_dtype

# Inputs of more than this many bytes in all (a Zen 4 core's L2) are read one block at a time.
# One thread, thread CPU time, side by side against in order: float32 sums of 4096 to 65536
# elements and `sum(x*y)` of 16384 the same or up to 1.13x faster side by side (L1, L2); from
# 1-2 MB (float32 `sum(x*y)` of 2.6 * 10**5, sums of 5 * 10**5 and up) in order was 1.2-1.3x
# faster, at 16 MB 4.8x (docs/performance.md, "reduce36").
IN_CACHE_BYTES = 1024 * 1024


def reads_from_memory(b: ll.IRBuilder, body, dim: int) -> bool | ll.Value:
    """Whether the inputs ``body`` (a ``KernelBody``) reads contiguously along ``dim`` hold
    more than ``IN_CACHE_BYTES`` in all: a bool where their extents are known at compile time,
    else an i1 computed at the builder's position (size-generic code)."""
    known, counts = 0, []
    for index in contiguous_inputs(body, dim):
        count: int | ll.Value = numpy_dtype(body.op.operands[index].type.element).itemsize
        for extent in body.operands[index].shape:
            value = static_value(extent)
            if isinstance(count, int) and value is not None:
                count *= value
            else:
                count = b.mul(ll.Constant(I64, count) if isinstance(count, int) else count,
                              extent if value is None else ll.Constant(I64, value))
        if isinstance(count, int):
            known += count
        else:
            counts.append(count)
    if not counts:
        return known > IN_CACHE_BYTES
    total = ll.Constant(I64, known)
    for count in counts:
        total = b.add(total, count)
    return b.icmp_unsigned(">", total, ll.Constant(I64, IN_CACHE_BYTES))


def contiguous_inputs(body, dim: int) -> list[int]:
    """The inputs read one element after the next along ``dim`` (step +1, known at compile
    time): not indexed, not clamped, not a folded producer's (``producer_folds.py``: its own
    arrays are read)."""
    op = body.op
    if "load" in vars(body):  # a folded producer computes an input: its arrays are not these
        return []
    return [index for index in range(len(op.operands))
            if index not in op.indexed and index not in op.clamped and _step(body, index, dim) == 1]


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
