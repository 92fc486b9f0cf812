"""Row groups: consecutive kernels over the same rows run row block by row block, so that a
row's reductions and the elementwise kernel that uses them read it while it is in cache.

Softmax over rows is three kernels after ``fuse`` (the row maxima; the row sums of
``exp(x - max)``; ``exp(x - max) / sum``), each reading all of ``x``: three passes over memory
when run one after another. Run as a group, each block of rows (``ROW_BLOCK_BYTES`` of the
rows of every buffer the group reads or writes row by row) goes through the three kernels in
turn: ``x`` comes from memory once, the second and third kernels find it in the cache.
Layernorm likewise.

A group is a run of consecutive launches of one block (no step between them) where:
  - each kernel, split, takes ranges of its domain's dim 0, of one extent for the group
    (``schedule.splits_rows``); none checks indices, runs in order, starts from a copy, or
    calls BLAS;
  - each operand that an earlier kernel of the group wrote is read row by row: the writer's
    map and the reader's both index that buffer's dim 0 by domain dim 0, and both see it with
    that leading extent (a buffer is C-contiguous, so row ``r`` is the same bytes in both
    views: a reshape such as ``(n,) -> (n, 1)`` keeps rows, ``(n,) -> (a, b)`` does not).
So when a block of rows of kernel ``j`` runs, the rows it reads of earlier kernels' results
have been written, by the same code that writes them ungrouped: every element is computed by
the same scalar ops in the same order, only the interleaving of kernels changes, and results
are bit-identical. The group is one split launch (``runtime.emit_launch``): threads take
chunks of rows and run the blocks of their chunk; a chunk holds at least ``CHUNK_BYTES`` of the
rows (``min_chunk_rows``), which rows do not change the bits either.

A value that a member writes and only later members read lives in a later member's output
buffer where it can (``share_outputs``): softmax's ``e = exp(x - max)``, which ``fuse`` keeps
apart so that ``exp`` runs once per element (``passes/fuse.py``), is written to the output,
summed from there, and divided in place, so it costs neither a buffer nor memory traffic.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.contraction import match_contraction
from jitcore.codegen.cpu.schedule import splits_rows
from jitcore.codegen.host import STATUS, strided_operands
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import Sizes, emit_loop
from jitcore.codegen.plan import CompiledFunction, Launch, Run, Storage, launch_runs
from jitcore.ir.attributes import AffineExpr, numpy_dtype
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

# A block of rows is at most this many bytes of the rows of all the buffers the group reads or
# writes row by row (at least one row), so that the block stays in the first-level data cache
# between kernels with room for what the hardware prefetches. A quarter of znver4's 32 KiB L1D:
# softmax and layernorm on 4096x1024 and 16384x256 took 10-25% less CPU time than with 16 KiB
# of the widest row alone (docs/performance.md, "Row blocks that fit the first-level cache").
ROW_BLOCK_BYTES = 8 * 1024
# A chunk of a group's rows (what a thread takes at a time) holds at least this many bytes of
# the rows of its row buffers, unless that would leave fewer than CHUNKS_AT_LEAST chunks. Chunks
# of ``chunk_size`` points were a few rows each (a group's points are those of all its kernels:
# 8-10 rows of 1024, 40-80 KB), and two threads working on neighbouring small chunks took up to
# 40% longer than with chunks of 512 KB and more (docs/performance.md, "Row groups in larger
# chunks"); plain kernels' chunks (128 KB of each operand) showed no such cost.
CHUNK_BYTES = 1024 * 1024
CHUNKS_AT_LEAST = 16


@dataclass
class RowGroup:
    launches: list[int]  # launch indices, in program order
    rows: int  # the extent of dim 0 the group splits
    block: int  # rows per block
    work: int  # iteration points of all its kernels together
    # (row extents, itemsize) of each buffer the group reads or writes row by row
    row_buffers: tuple[tuple[tuple[int, ...], int], ...] = ()


def row_groups(plan: CompiledFunction, ops: list[Operation], min_work: int,
               symbols: tuple[int, ...] = ()) -> list[RowGroup]:
    """The row groups of the function's top-level steps: of two kernels or more and at least
    ``min_work`` iteration points (a smaller one is not worth a split launch). A run whose
    work is a run-time value (it has an extent among ``symbols``, a size-generic function's)
    is a group at any size: its launch runs it as one call below ``min_work`` points, decided
    when it runs (``backend._one_call_below_min_split``), so one code serves every size, and
    a group's bits are its kernels' run one after another."""
    groups: list[RowGroup] = []
    runs = launch_runs(plan, lambda i: _candidate(plan, i, ops[i]), lambda run, i: _joins(plan, ops, run, i),
                       nested=True)
    for run in runs:
        work = sum(math.prod(ops[i].domain()) for i in run)
        sized = any(d in symbols for i in run for d in ops[i].domain())
        if len(run) > 1 and (work >= min_work or sized):
            groups.append(RowGroup(run, ops[run[0]].domain()[0], 1, work))
    for group in groups:
        share_outputs(plan, ops, group)
        group.row_buffers = _row_buffers(plan, ops, group.launches)  # shared ones once
        row_bytes = sum(math.prod(extents) * size for extents, size in group.row_buffers)
        group.block = max(1, ROW_BLOCK_BYTES // max(row_bytes, 1))
    return groups


def share_outputs(plan: CompiledFunction, ops: list[Operation], group: RowGroup) -> None:
    """Store a buffer that only the group uses in a later member's output instead, where that
    member is the buffer's last reader and reads it where it writes its output.

    Buffer ``S``, written by member ``j`` at each point of its domain and read by later members
    only, the last of them ``c``, moves into ``c``'s output ``O`` when: ``c`` is elementwise,
    reads ``S`` where it writes ``O`` (both identity maps, same shape and dtype), and nothing
    but ``c`` uses ``O`` before ``c`` writes it. Then every read of ``S`` reads the value ``j``
    wrote, and ``c`` at each point loads its element of ``S`` before it stores that element of
    ``O``: an elementwise kernel in place, as NumPy's ``out=`` runs one (the kernel's pointers
    stay ``noalias``: no point reads another's element, so no reordering can change what a
    load sees). ``S``'s buffer is left empty."""
    if any(not isinstance(step, Run) for step in plan.program):
        return  # storages may be used by copies, loops and callbacks: not looked at
    outputs = {storage for storage, _ in plan.outputs}
    members = group.launches
    for at, j in enumerate(members):
        n_in = len(ops[j].operands)
        for k, storage in enumerate(plan.launches[j].operands[n_in:]):
            if storage.kind != "buffer" or storage in outputs:
                continue
            target = _in_place_output(plan, ops, members[at:], storage, ops[j].indexing_maps[n_in + k])
            if target is not None:
                last = members.index(target[0])
                for i in members[at:last + 1]:
                    launch = plan.launches[i]
                    plan.launches[i] = _renamed(launch, storage, target[1])
                plan.buffers[storage.index] = ((0,), plan.buffers[storage.index][1])


def _in_place_output(plan: CompiledFunction, ops: list[Operation], members: list[int],
                     storage: Storage, writer_map) -> tuple[int, Storage] | None:
    """(the member, its output storage) that ``storage`` can live in, or None."""
    writer = members[0]
    users = [i for i, launch in enumerate(plan.launches) if storage in launch.operands]
    if users[0] != writer or not set(users) <= set(members) or len(users) < 2:
        return None
    last = users[-1]
    op = ops[last]
    n_in = len(op.operands)
    inputs = plan.launches[last].operands[:n_in]
    # A body with an exact-math fallback may run its whole nest a second time, reading its
    # inputs again: in place, that run would read the first run's results.
    if (op.has_reduction or op.indexed or op.clamped or any(i >= 0 for i in op.copy_inputs)
            or any(scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op))
            or kernel.runs_in_order(op) or not writer_map.is_identity
            or not all(op.indexing_maps[k].is_identity for k, s in enumerate(inputs) if s == storage)):
        return None
    shape, dtype = plan.buffers[storage.index]
    for k, out in enumerate(plan.launches[last].operands[n_in:]):
        result = op.results[k]
        if (out.kind != "buffer" or out == storage or not op.output_maps[k].is_identity
                or tuple(result.type.shape) != tuple(shape)
                or numpy_dtype(result.type.element) != dtype or out in inputs
                or tuple(plan.buffers[out.index][0]) != tuple(shape)):
            continue
        if all(out not in launch.operands for i, launch in enumerate(plan.launches) if i != last
               and i <= last):
            return last, out
    return None


def _renamed(launch: Launch, old: Storage, new: Storage) -> Launch:
    return dataclasses.replace(launch, operands=tuple(new if s == old else s for s in launch.operands))


def _candidate(plan: CompiledFunction, index: int, op: Operation) -> bool:
    launch = plan.launches[index]
    return (bool(launch.parallel_extent) and STATUS not in launch.operands
            and match_contraction(op) is None and splits_rows(op, strided_operands(plan, launch)))


def _joins(plan: CompiledFunction, ops: list[Operation], current: list[int], index: int) -> bool:
    op = ops[index]
    rows = ops[current[0]].domain()[0]
    if op.domain()[0] != rows:
        return False
    written = {}  # storage -> (writer's map, the value it writes)
    for i in current:
        n_in = len(ops[i].operands)
        for k, storage in enumerate(plan.launches[i].operands[n_in:]):
            written[storage] = (ops[i].indexing_maps[n_in + k], ops[i].results[k])
    for k, storage in enumerate(plan.launches[index].operands[:len(op.operands)]):
        if storage not in written:
            continue
        writer_map, value = written[storage]
        if not (_by_row(writer_map, value, rows) and _by_row(op.indexing_maps[k], op.operands[k], rows)):
            return False
    return True


def _by_row(indexing_map, value, rows: int) -> bool:
    shape = value.type.shape
    return bool(indexing_map.exprs) and indexing_map.exprs[0] == AffineExpr(0) and shape[0] == rows


def _row_buffers(plan: CompiledFunction, ops: list[Operation], run: list[int]):
    """(row extents, itemsize) of each distinct storage a member reads or writes row by row
    (its map indexes dim 0 by domain dim 0): what a block of rows keeps in the cache."""
    rows = ops[run[0]].domain()[0]
    seen, out = set(), []
    for i in run:
        op = ops[i]
        values = [*op.operands, *op.results]
        for k, storage in enumerate(plan.launches[i].operands[:len(values)]):
            value = values[k]
            if storage in seen or value.type.rank == 0 or not _by_row(op.indexing_maps[k], value, rows):
                continue
            seen.add(storage)
            out.append((tuple(value.type.shape[1:]), max(value.type.element.bitwidth // 8, 1)))
    return tuple(out)


def emit_group(module: ll.Module, name: str, group: RowGroup, kernels: list[ll.Function],
               symbols: tuple[int, ...] = ()) -> ll.Function:
    """``void name(args of each kernel..., i64 lo, i64 hi)``: rows ``[lo, hi)`` in blocks of
    ``group.block``, each block through every kernel in order. In a size-generic function
    (``symbols``, and a member that takes the run-time extents) the block is computed from
    the rows' run-time lengths, by the same rule."""
    params = [t for fn in kernels for t in fn.function_type.args[:-2]]
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [*params, I64, I64]), name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")  # called whole and per chunk: one copy
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    lo, hi = fn.args[-2], fn.args[-1]
    block = _block(b, fn, group, kernels, symbols)
    less = (ll.Constant(I64, group.block - 1) if isinstance(block, ll.Constant)
            else b.sub(block, ll.Constant(I64, 1)))
    count = b.sdiv(b.add(b.sub(hi, lo), less), block)

    def run_block(iv):
        start = b.add(lo, b.mul(iv, block))
        end = b.add(start, block)
        end = b.select(b.icmp_signed(">", end, hi), hi, end)
        at = 0
        for member in kernels:
            n = len(member.function_type.args) - 2
            b.call(member, [*fn.args[at:at + n], start, end])
            at += n

    emit_loop(b, count, run_block)
    b.ret_void()
    return fn


def _block(b: ll.IRBuilder, fn: ll.Function, group: RowGroup, kernels: list[ll.Function],
           symbols: tuple[int, ...]) -> ll.Value:
    """Rows per block: ``max(1, ROW_BLOCK_BYTES // bytes of a row of every row buffer)``, a
    constant unless a row's length is a run-time extent."""
    names = [a.name for kernel in kernels for a in kernel.args[:-2]]
    if "sizes" not in names or not any(d in symbols for extents, _ in group.row_buffers for d in extents):
        return ll.Constant(I64, group.block)
    sizes = Sizes(symbols)
    sizes.bind(b, fn.args[names.index("sizes")])
    row: ll.Value = ll.Constant(I64, 0)
    for extents, size in group.row_buffers:
        row = b.add(row, b.mul(sizes.product(b, extents), ll.Constant(I64, size)))
    one = ll.Constant(I64, 1)
    row = b.select(b.icmp_signed("<", row, one), one, row)
    block = b.sdiv(ll.Constant(I64, ROW_BLOCK_BYTES), row)
    return b.select(b.icmp_signed("<", block, one), one, block)


def min_chunk_rows(b: ll.IRBuilder, sizes: Sizes, group: RowGroup) -> int | ll.Value:
    """Rows a chunk of ``group``'s launch takes at least: ``CHUNK_BYTES`` of the rows of its
    row buffers, at most ``1 / CHUNKS_AT_LEAST`` of its rows (rounded up), at least one. Run-time
    extents (a size-generic function's ``sizes``) give a value computed at the launch."""
    products = [(sizes.product(b, extents), size) for extents, size in group.row_buffers]
    rows = sizes.extent(group.rows)
    if all(isinstance(p, ll.Constant) for p, _ in products) and isinstance(rows, ll.Constant):
        row = max(sum(p.constant * size for p, size in products), 1)
        return max(1, min(CHUNK_BYTES // row, -(-rows.constant // CHUNKS_AT_LEAST)))
    row: ll.Value = ll.Constant(I64, 0)
    for p, size in products:
        row = b.add(row, b.mul(p, ll.Constant(I64, size)))
    one = ll.Constant(I64, 1)
    row = b.select(b.icmp_signed("<", row, one), one, row)
    by_bytes = b.sdiv(ll.Constant(I64, CHUNK_BYTES), row)
    share = b.sdiv(b.add(rows, ll.Constant(I64, CHUNKS_AT_LEAST - 1)), ll.Constant(I64, CHUNKS_AT_LEAST))
    least = b.select(b.icmp_signed("<", by_bytes, share), by_bytes, share)
    return b.select(b.icmp_signed("<", least, one), one, least)
