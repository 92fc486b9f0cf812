"""Row groups on the GPU: consecutive kernels over the same rows (softmax, layernorm) as one
launch, one block per row, so a row's reductions and the kernels that use them run while the
row is in the block's cache, with no launch between them.

Softmax over rows is three kernels after ``fuse``: the row maxima, the row sums of ``exp(x -
max)``, and ``exp(x - max) / sum``. Launched apart, each reads all of ``x`` from memory and
waits for the previous launch. As a group, block ``r`` (a grid-stride loop over the rows) runs
each member's points of row ``r`` in turn:

- a row reduction (every dim but dim 0 reduced, a combine that may be reordered): as a block
  reduction's result (``kernels.py``: strided per-thread partials, warp shuffles, the warps'
  slots in shared memory): the same order and bits as launched apart, where rows are long
  enough (``BLOCK_REDUCE_MIN``) to be a block reduction apart; a shorter row, one thread's
  C-order fold apart, is folded in the block's order here (it differs by rounding only);
- an elementwise member: thread ``t`` takes the row's points ``t, t + BLOCK, ...``;

with a barrier after each member, which makes its results in global memory visible to the
block's threads before the next member reads them. So softmax makes two reducing passes over
the row (max; sum of exponentials) and one writing pass, all in one launch; each element is
computed by the same scalar code as ungrouped.

Rows whose reductions are shorter than a block (``by_warps``: at least a warp's 32 points, fewer
than ``BLOCK``) run a row per warp instead: warp ``w`` of block ``k`` takes row ``k * WARPS + w``
(then the grid's warps further), lane ``l`` folds or writes points ``l, l + 32, ...``, a
reduction's lanes merge by shuffles (16, 8, 4, 2, 1) and lane 0 stores; ``bar.warp.sync`` after
each member plays the block barrier's part. No shared memory, no block barrier: eight rows
per block at once instead of one block idling most of its threads on a short row. (Apart,
such rows are a thread's C-order fold: grouped, they differ by rounding only.)

A group is a run of at least two consecutive top-level launches, one of them a row reduction,
where every member has the same extent ``rows`` >= 2 of dim 0, a parallel dim 0, no status
words (no index checks or trig reports), no copied inputs, scans or in-order work, is not a
matrix product, and is either all parallel or reduces every dim but 0 (rows of at least a
warp's 32 points: shorter ones are better a thread per row, apart); and every operand an
earlier member wrote is written and read by row (both maps index its dim 0 by domain dim 0,
with that leading extent: row ``r`` is then the same bytes for writer and reader).
"""

from __future__ import annotations

import math

from llvmlite import ir as ll

from jitcore.codegen.host import STATUS
from jitcore.codegen.kernel_body import Operand
from jitcore.codegen.llvm_types import PTR
from jitcore.codegen.loops import Sizes, extent
from jitcore.codegen.nvptx import kernels
from jitcore.codegen.nvptx.intrinsics import barrier, special_register, warp_barrier
from jitcore.codegen.plan import CompiledFunction, launch_runs
from jitcore.ir.attributes import AffineExpr
from jitcore.ir.dialects import kernel

ENABLED = True  # False launches the members apart (the baseline; in the backend's fingerprint)


def row_groups(plan: CompiledFunction, ops: list) -> list[list[int]]:
    """The groups of the plan's top-level launches (launch indices, in program order)."""
    if not ENABLED:
        return []
    runs = launch_runs(plan, lambda i: _candidate(plan, i, ops[i]), lambda run, i: _joins(plan, ops, run, i))
    return [run for run in runs if len(run) > 1 and any(ops[i].has_reduction for i in run)]


def _candidate(plan: CompiledFunction, index: int, op) -> bool:
    domain = op.domain()
    if len(domain) < 2 or domain[0] < 2 or op.iterator_types[0] != kernel.PARALLEL:
        return False
    if STATUS in plan.launches[index].operands or kernels.needs_status(op):
        return False
    kind = kernels.shape_of(op).kind
    if kind not in ("elementwise", "block-reduce", "thread-reduce"):
        return False
    rest = set(op.iterator_types[1:])
    if op.has_reduction and (rest != {kernel.REDUCTION} or kernels.merging_of(op) is None
                             or math.prod(domain[1:]) < kernels.WARP):
        return False  # a row shorter than a warp would idle most of its lanes: apart, a
        #               thread-per-row reduction serves it better
    if not op.has_reduction and rest != {kernel.PARALLEL}:
        return False
    n_in = len(op.operands)
    return all(_by_row(m, r, domain[0]) for m, r in zip(op.indexing_maps[n_in:], op.results))


def _joins(plan: CompiledFunction, ops: list, current: list[int], index: int) -> bool:
    op = ops[index]
    rows = ops[current[0]].domain()[0]
    if op.domain()[0] != rows:
        return False
    written = set()
    for i in current:
        written.update(plan.launches[i].operands[len(ops[i].operands):])
    inputs = plan.launches[index].operands[:len(op.operands)]
    return all(_by_row(m, v, rows) for storage, m, v in zip(inputs, op.indexing_maps, op.operands)
               if storage in written)


def _by_row(indexing_map, value, rows: int) -> bool:
    shape = value.type.shape
    return bool(indexing_map.exprs) and indexing_map.exprs[0] == AffineExpr(0) and shape[0] == rows


def by_warps(members: list) -> bool:
    """Whether a group runs a row per warp: its reductions' rows are shorter than a block."""
    return max(math.prod(op.domain()[1:]) for op in members if op.has_reduction) < kernels.BLOCK


def emit_group(module: ll.Module, name: str, members: list, fastmath: bool) -> kernels.LaunchShape:
    """``ptx_kernel void name(operands of each member, in order)``: block ``r`` runs row ``r``
    (grid-stride) through every member; or, for short rows (``by_warps``), warp ``w`` of the
    grid runs row ``w``. Returns the launch's shape."""
    warp = by_warps(members)
    kind = "warp-row-group" if warp else "row-group"
    shaped = [[*op.operands, *op.results] for op in members]
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [PTR] * sum(map(len, shaped))), name)
    fn.calling_convention = "ptx_kernel"  # no noalias: a member's result is a later one's input
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    args, sizes, parts = iter(fn.args), Sizes(), []
    for j, (op, values) in enumerate(zip(members, shaped)):
        operands = [Operand(next(args), sizes.strides(b, v.type.shape), sizes.extents(v.type.shape))
                    for v in values]
        shape = kernels.LaunchShape(kind, 1, kernels.BLOCK)
        parts.append(kernels._Kernel(module, name, op, shape, fastmath, (b, fn, operands, f"{name}_m{j}")))
    rows = members[0].domain()[0]

    def row(r):
        for part in parts:
            part.row_part(r, warp)
            # its results are seen by the threads running the row before the next member reads them
            (warp_barrier if warp else barrier)(b)

    ctaid, nctaid = special_register(b, "ctaid.x"), special_register(b, "nctaid.x")
    if warp:  # warp w of block k: row k * WARPS + w, then a grid's warps further
        first = b.add(b.mul(ctaid, extent(kernels.WARPS)), b.lshr(special_register(b, "tid.x"), extent(5)))
        parts[0]._grid_stride(first, b.mul(nctaid, extent(kernels.WARPS)), rows, row)
    else:
        parts[0]._grid_stride(ctaid, nctaid, rows, row)
    b.ret_void()
    blocks = kernels._blocks(rows, kernels.WARPS if warp else 1)
    return kernels.LaunchShape(kind, blocks, kernels.BLOCK)
