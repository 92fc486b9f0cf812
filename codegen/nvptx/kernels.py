"""How the GPU runs a ``kernel.generic``: one ``ptx_kernel`` function per kernel, its iteration
space mapped onto blocks of ``BLOCK`` threads, the body emitted by the same ``KernelBody`` as
the CPU's (so every scalar op and math function lowers alike).

Seven shapes, chosen from the op alone (``shape_of``), each with its launch's grid and block:

- ``elementwise`` (no reduction): every point of the domain is one work item; item ``i`` is run
  by thread ``i mod (blocks * BLOCK)`` of a grid-stride loop (``i = blockIdx * BLOCK +
  threadIdx``, then ``+= gridDim * BLOCK``), its position in the domain recovered by division
  (an all-identity kernel over one shape is one flat index). Up to ``MAX_BLOCKS`` blocks.
- ``block-reduce`` (a reduction of at least ``BLOCK_REDUCE_MIN`` points per result whose combine
  may be reassociated: a float or complex sum or product, max, min, argmax, argmin, or an
  integer or boolean add, multiply, max, min, and, or, xor): one block per result point (a grid-
  stride loop over them). The combination order is fixed, whatever the device:
  1. thread ``t`` folds the reduced points ``t, t + BLOCK, t + 2 BLOCK, ...`` (C order of the
     reduced dims) into a partial that starts from the result's init, in that order;
  2. in each warp, lane ``l`` takes in lane ``l + 16``'s partial, then ``l + 8``'s, ``+ 4``,
     ``+ 2``, ``+ 1`` (``shfl.sync.down``): lane 0 holds the warp's total, a balanced tree;
  3. lane 0 of warp ``w`` puts it in shared memory slot ``w``; after a barrier, warp 0 folds
     the ``WARPS`` slots the same way (``+ 4``, ``+ 2``, ``+ 1``) and thread 0 stores the total.
  An argmax or argmin merges partials by the body's own test, the smaller index winning ties:
  NumPy's first occurrence. A thread's fold of a float or complex sum or product is a cascade
  (``_fold_points``): runs of ``RUN`` points into a partial from the init, ``RUN`` partials
  into one of the next level, ``CASCADE`` levels, merged from the highest at the end; so its
  rounding error grows like ``CASCADE * RUN * eps`` up to ``RUN ** CASCADE`` points a thread,
  not linearly (the whole sum's: that plus ``log2 BLOCK`` levels of the tree).
- ``grid-reduce`` (a reduction to one value, ``x.sum()``, of at least ``GRID_REDUCE_MIN`` points
  whose combine may be reassociated): ``grid_blocks(n)`` blocks, a number from the size alone;
  block ``k`` reduces the ``k``-th of that many consecutive chunks as above and leaves its total
  in a scratch buffer; the last block to finish (an atomic count after a fence) folds the
  totals in the same way (thread ``t`` takes totals ``t, t + BLOCK, ...``) and stores the result.
- ``thread-reduce`` (any other reduction, or fewer reduced points): one thread per result point
  (grid-stride), folding its reduced points in C order from the init, as the CPU's plain loop;
  a float or complex sum or product in the cascade above.
- ``tiled-matmul`` (a float32 or float64 matrix product: ``matmul.py``, which documents its
  tiles and its fixed accumulation order): one block of ``matmul.threads()`` per result tile.
- ``scatter`` then ``scatter-write`` (a result that starts as a copy of an input and is written
  at computed or strided positions: ``y[idx] = v``, integer ``x.at[idx].add(v)``, ``x[a:b:s] =
  v``): two launches on every thread, the last write winning as in C order (``scatter.py``).
- ``serial`` (a kernel that runs in order: it scatters floats by accumulation, runs scalar
  loops, scans, or starts from a copy of an input otherwise): one thread runs the whole nest in
  C order, as on the CPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.cpu.reduction import Combiner, PerResult, reassociation
from jitcore.codegen.kernel_body import KernelBody, kernel_function
from jitcore.codegen.llvm_types import I8, I64, constant, memory_type, value_type
from jitcore.codegen.loops import element_pointer, emit_loop, emit_nest, extent
from jitcore.codegen.nvptx import checks as checks_module
from jitcore.codegen.nvptx import matmul, scatter
from jitcore.codegen.nvptx.intrinsics import I32, barrier, shared_array, shuffle_down, special_register
from jitcore.ir.attributes import AffineMap
from jitcore.ir.dialects import kernel

BLOCK = 256  # threads per block
WARP = 32
WARPS = BLOCK // WARP
MAX_BLOCKS = 1 << 16  # grid-stride loops cover the rest
BLOCK_REDUCE_MIN = 1024  # reduced points per result from which a block reduces it
GRID_REDUCE_MIN = 1 << 16  # reduced points of a single result from which several blocks do
GRID_POINTS = BLOCK * 32  # reduced points per block of a grid reduction, at least
MAX_GRID_BLOCKS = 1024
SCRATCH_SLOT = 16  # bytes per block total in the scratch buffer: any result type fits
# a thread's run of a float sum or product: folds RUN points into a fresh partial, RUN such
# partials into one of the next level, and so on (CASCADE levels in all)
RUN = 32
CASCADE = 3
# integer (and boolean) combines: exactly associative and commutative
# The status code of a sin, cos or tan whose argument is beyond the math library's range
# (``mathlib.TRIG_ARGUMENT_LIMITS``): the CPU recomputes those with libm, which a GPU lacks.
TRIG_ARGUMENT_RANGE = 16
INTEGER_COMBINES = ("arith.addi", "arith.muli", "arith.maxsi", "arith.minsi", "arith.maxui",
                    "arith.minui", "arith.andi", "arith.ori", "arith.xori")


@dataclass(frozen=True)
class LaunchShape:
    """How one kernel is launched: its schedule, blocks in the grid and threads per block."""

    kind: str  # "elementwise", "block-reduce", "grid-reduce", "thread-reduce", "tiled-matmul",
    #            "scatter", "scatter-write", "serial"; "row-group", "in-row-group" (rowgroup.py)
    grid: int
    block: int


def shape_of(op: kernel.GenericOp) -> LaunchShape:
    """The schedule of ``op`` and its launch's size (see the module's docstring)."""
    domain = op.domain()
    parallel = math.prod(d for d, it in zip(domain, op.iterator_types) if it == kernel.PARALLEL)
    if scatter.kind_of(op) is not None:  # a copy of an input, then writes on every thread
        points = max(math.prod(domain), op.results[0].type.size)
        return LaunchShape("scatter", _blocks(points, BLOCK), BLOCK)
    if (runs_in_order(op) or op.scan_dim is not None
            or any(source >= 0 for source in op.copy_inputs)):
        return LaunchShape("serial", 1, 1)
    product = matmul.matmul_of(op)
    if product is not None:
        return LaunchShape("tiled-matmul", _blocks(matmul.tiles(product), 1), matmul.threads())
    if not op.has_reduction:
        return LaunchShape("elementwise", _blocks(math.prod(domain), BLOCK), BLOCK)
    reduced = math.prod(d for d, it in zip(domain, op.iterator_types) if it != kernel.PARALLEL)
    if parallel == 1 and reduced >= GRID_REDUCE_MIN and merging_of(op) is not None:
        return LaunchShape("grid-reduce", grid_blocks(reduced), BLOCK)
    if reduced >= BLOCK_REDUCE_MIN and merging_of(op) is not None:
        return LaunchShape("block-reduce", _blocks(parallel, 1), BLOCK)
    return LaunchShape("thread-reduce", _blocks(parallel, BLOCK), BLOCK)


def runs_in_order(op: kernel.GenericOp) -> bool:
    """Whether ``op``'s points must run one after another on the GPU: as on the CPU
    (``kernel.runs_in_order``), except that index checks alone run in parallel
    (``checks.py`` reports the error the CPU would)."""
    inner = list(kernel.body_ops(op))
    checks = sum(isinstance(i, kernel.CheckIndexOp) for i in inner)
    return (any(isinstance(i, (kernel.InsertOp, kernel.RaiseOp)) or i.regions for i in inner)
            or (checks > 0 and not checks_module.parallel_checks_fit(op.domain(), checks)))


def grid_blocks(reduced: int) -> int:
    """The blocks of a grid reduction of ``reduced`` points: a function of the size alone, so
    that the combination order is the same on every device."""
    return max(1, min(MAX_GRID_BLOCKS, reduced // GRID_POINTS))


def scratch_bytes(op: kernel.GenericOp) -> int:
    """The scratch buffer of a grid reduction: each block's totals, then the count of blocks
    that finished (zero before the launch; the last block sets it back to zero)."""
    reduced = math.prod(d for d, it in zip(op.domain(), op.iterator_types) if it != kernel.PARALLEL)
    return len(op.results) * grid_blocks(reduced) * SCRATCH_SLOT + SCRATCH_SLOT


def _blocks(items: int, per_block: int) -> int:
    return max(1, min(MAX_BLOCKS, -(-items // per_block)))


def merging_of(op: kernel.GenericOp):
    """How two partials of ``op``'s reduction merge (``reduction.PerResult`` or ``ArgBest``), or
    None when its combine may not be reassociated."""
    found = reassociation(op, -1, False, ["reduction"])
    if found is not None:
        return found
    n_in = len(op.operands)
    combiners = []
    for k, y in enumerate(op.body.terminator.operands):
        acc = op.body.args[n_in + k]
        combine = getattr(y, "op", None)
        if (combine is None or combine.op_name not in INTEGER_COMBINES
                or acc not in combine.operands or len(acc.uses) != 1):
            return None
        combiners.append(Combiner(combine, combine.operands[0] is acc))
    return PerResult(tuple(combiners))


def needs_status(op: kernel.GenericOp) -> bool:
    """Whether ``op``'s kernel takes the status words: it checks indices, or it computes a
    sin, cos or tan, whose arguments beyond the math library's range it reports."""
    return kernel.checks_indices(op) or any(map(scalar.needs_exact_fallback, kernel.body_ops(op)))


def emit_kernel(module: ll.Module, name: str, op: kernel.GenericOp, fastmath: bool,
                tag: int = 1) -> LaunchShape:
    """``op`` as the ``ptx_kernel`` function ``name``: ``void name(ptr operand...[, ptr status])``
    (the status words when ``needs_status``), every operand C-contiguous. Returns its launch's
    shape."""
    shape = shape_of(op)
    _Kernel(module, name, op, shape, fastmath, tag=tag)
    return shape


def emit_scatter_write(module: ll.Module, name: str, op: kernel.GenericOp, fastmath: bool,
                       tag: int) -> LaunchShape:
    """The second launch of a ``scatter`` kernel (``scatter.py``), ``name``, with the same
    parameters as the first. Returns its launch's shape."""
    shape = LaunchShape("scatter-write", _blocks(math.prod(op.domain()), BLOCK), BLOCK)
    _Kernel(module, name, op, shape, fastmath, tag=tag)
    return shape


class _Kernel:
    def __init__(self, module: ll.Module, name: str, op: kernel.GenericOp, shape: LaunchShape,
                 fastmath: bool, member=None, tag: int = 1):
        """The kernel ``name`` with ``shape``'s schedule; or, with ``member`` (a row group's
        builder, function and this kernel's operands in it), only the parts that
        ``rowgroup.py`` emits row by row."""
        self.op = op
        shaped = [*op.operands, *op.results]
        status = needs_status(op)
        scattering = scatter.kind_of(op) if shape.kind in ("scatter", "scatter-write") else None
        grid = shape.kind == "grid-reduce" or scattering == scatter.WINNER  # scratch: last pointer
        reduces = (shape.kind in ("block-reduce", "grid-reduce")
                   or (shape.kind in ("row-group", "warp-row-group") and op.has_reduction))
        self.merging = merging_of(op) if reduces else None
        self.domain = list(op.domain())
        maps = list(op.indexing_maps)
        precision = scalar.Precision(fastmath=fastmath, report=self._report_trig_range, nvptx=True)
        if member is not None:
            self.b, self.function, operands, self.prefix = member
            self.scratch = None
            self.body = KernelBody(self.b, op, operands, maps, precision, None)
            return
        fn, operands, extras, _ = kernel_function(module, name, shaped, [False] * len(shaped),
                                                  extra_pointers=int(status) + int(grid))
        self.scratch = extras[-1] if grid else None
        fn.linkage = ""  # external: the driver finds it by name
        fn.calling_convention = "ptx_kernel"
        self.function = fn
        self.prefix = fn.name  # of its shared arrays' names
        self.b = ll.IRBuilder(fn.append_basic_block("entry"))
        flat = (not op.has_reduction and not op.clamped and not op.indexed
                and all(v.type.shape == tuple(self.domain) for v in shaped)
                and all(m.is_identity for m in maps))
        if flat:  # one index walks every operand: no division per element
            self.domain = [math.prod(self.domain)]
            for operand in operands:
                operand.strides, operand.shape = [extent(1)], [extent(self.domain[0])]
            maps = [AffineMap.identity(1) for _ in maps]
        # No exact (libm) fallback on the GPU: the math library's code alone, and a trig
        # argument beyond its range is reported (the runtime raises) rather than computed wrong.
        status_words = extras[0] if status else None
        if scattering is not None:
            self.body = scatter.ScatterBody(self.b, op, operands, maps, precision, status_words,
                                            domain=self.domain, tag=tag, kind=scattering, winner=self.scratch,
                                            role="claim" if shape.kind == "scatter" else "write")
        elif kernel.checks_indices(op) and shape.kind != "serial":  # the lowest bad index wins
            self.body = checks_module.ParallelCheckBody(self.b, op, operands, maps, precision, status_words,
                                                        domain=self.domain, tag=tag)
        else:
            self.body = KernelBody(self.b, op, operands, maps, precision, status_words)
        {"elementwise": self._elementwise, "block-reduce": self._block_reduce,
         "grid-reduce": self._grid_reduce, "thread-reduce": self._thread_reduce,
         "serial": self._serial, "tiled-matmul": lambda: matmul.emit(self),
         "scatter": lambda: scatter.emit_prepare(self, scattering),
         "scatter-write": lambda: scatter.emit_write(self, scattering)}[shape.kind]()
        self.b.ret_void()

    def _report_trig_range(self, beyond: ll.Value) -> None:
        """Where ``beyond``, status word 0 becomes ``TRIG_ARGUMENT_RANGE`` unless an error is
        there already; the thread goes on (a block reduction's threads must all reach its
        barriers). Threads that race here write the same value."""
        b = self.b
        word = self.body.status
        with b.if_then(beyond, likely=False):
            with b.if_then(b.icmp_unsigned("==", b.load(word, typ=I64), extent(0))):
                b.store(extent(TRIG_ARGUMENT_RANGE), word)

    # -- the parts -------------------------------------------------------------------------
    def _grid_stride(self, start: ll.Value, step: ll.Value, count: int | ll.Value, body) -> None:
        """``for i = start; i < count; i += step: body(i)``."""
        b = self.b
        count = count if isinstance(count, ll.Value) else extent(count)
        pre = b.block
        head, inner, done = (b.function.append_basic_block(n) for n in ("gs.head", "gs.body", "gs.done"))
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(I64)
        i.add_incoming(start, pre)
        b.cbranch(b.icmp_unsigned("<", i, count), inner, done)
        b.position_at_end(inner)
        body(i)
        i.add_incoming(b.add(i, step), b.block)
        b.branch(head)
        b.position_at_end(done)

    def _position(self, index: ll.Value, dims: list[int]) -> dict[int, ll.Value]:
        """Dims ``dims`` of the domain at the C-order position ``index`` of their points."""
        b = self.b
        ivs = {}
        for d in reversed(dims):
            n = self.domain[d]
            ivs[d] = extent(0) if n == 1 else b.urem(index, extent(n))
            index = index if n == 1 else b.udiv(index, extent(n))
        return ivs

    def _dims(self, kind: str) -> list[int]:
        """The dims of one kind (a reduction's domain is never flattened)."""
        return [d for d, it in enumerate(self.op.iterator_types) if it == kind]

    def _global_thread(self) -> tuple[ll.Value, ll.Value]:
        b = self.b
        tid, ctaid = special_register(b, "tid.x"), special_register(b, "ctaid.x")
        ntid, nctaid = special_register(b, "ntid.x"), special_register(b, "nctaid.x")
        return b.add(b.mul(ctaid, ntid), tid), b.mul(ntid, nctaid)

    def _accumulators(self) -> list[ll.Value]:
        """One register per result (an alloca that LLVM promotes), set to the result's init."""
        slots = []
        for r, init in zip(self.op.results, self.op.attributes["inits"]):
            with self.b.goto_entry_block():
                slot = self.b.alloca(value_type(r.type.element))
            slots.append(slot)
            self.b.store(constant(r.type.element, init.value), slot)
        return slots

    def _fold(self, slots: list[ll.Value], ivs: list[ll.Value]) -> None:
        """One reduced point into the partials in ``slots``: the body with them as accumulators."""
        b = self.b
        yielded = self.body.evaluate(ivs, lambda: [b.load(s) for s in slots])
        for slot, y in zip(slots, yielded):
            b.store(y, slot)

    def _fold_points(self, slots: list[ll.Value], start, step, count, point_of, merging=None) -> None:
        """Points ``start, start + step, ...`` below ``count`` (``point_of(r)``: the domain point
        of ``r``) folded into ``slots`` in that order; a float or complex sum or product (a
        ``merging`` that rounds, default the kernel's) in a cascade (``RUN``, ``CASCADE``)."""
        merging = self.merging if merging is None else merging
        if merging is None or not merging.rounds:
            self._grid_stride(start, step, count, lambda r: self._fold(slots, point_of(r)))
            return
        b = self.b
        levels = [slots] + [self._accumulators() for _ in range(CASCADE - 1)]  # lowest first
        with b.goto_entry_block():
            folded = b.alloca(I64)
        b.store(extent(0), folded)

        def merge_into(upper: list, lower: list) -> None:
            merged = merging.merge(b, [b.load(s) for s in upper], [b.load(s) for s in lower])
            for slot, value in zip(upper, merged):
                b.store(value, slot)

        def carry(level: int, k: ll.Value) -> None:
            """After the ``k``-th point: a full run of level ``level`` goes up one level."""
            full = b.icmp_unsigned("==", b.and_(k, extent(RUN ** (level + 1) - 1)), extent(0))
            with b.if_then(full):
                merge_into(levels[level + 1], levels[level])
                self._reset(levels[level])
                if level + 2 < CASCADE:
                    carry(level + 1, k)

        def item(r):
            self._fold(slots, point_of(r))
            k = b.add(b.load(folded), extent(1))
            b.store(k, folded)
            carry(0, k)

        self._grid_stride(start, step, count, item)
        for lower, upper in zip(levels, levels[1:]):  # the earliest points are the highest level's
            merge_into(upper, lower)
        for slot, top in zip(slots, levels[-1]):
            b.store(b.load(top), slot)

    def _reset(self, slots: list[ll.Value]) -> None:
        for slot, r, init in zip(slots, self.op.results, self.op.attributes["inits"]):
            self.b.store(constant(r.type.element, init.value), slot)

    def _point(self, parallel: dict[int, ll.Value], reduced: dict[int, ll.Value]) -> list[ll.Value]:
        return [parallel.get(d, reduced.get(d, extent(0))) for d in range(len(self.domain))]

    # -- the four schedules ----------------------------------------------------------------
    def _elementwise(self) -> None:
        start, step = self._global_thread()
        dims = list(range(len(self.domain)))

        def item(i):
            at = self._position(i, dims)
            ivs = [at[d] for d in dims]
            self.body.store_results(ivs, self.body.evaluate(ivs))

        self._grid_stride(start, step, math.prod(self.domain), item)

    def _thread_reduce(self) -> None:
        start, step = self._global_thread()
        kept, reduced = self._dims(kernel.PARALLEL), self._dims(kernel.REDUCTION)

        merging = merging_of(self.op)
        cascade = merging if merging is not None and merging.rounds else None

        def result(o):
            at = self._position(o, kept)
            slots = self._accumulators()
            if cascade is None:
                emit_nest(self.b, [extent(self.domain[d]) for d in reduced],
                          lambda rivs: self._fold(slots, self._point(at, dict(zip(reduced, rivs)))))
            else:
                self._fold_points(slots, extent(0), extent(1), math.prod(self.domain[d] for d in reduced),
                                  lambda r: self._point(at, self._position(r, reduced)), cascade)
            self.body.store_results(self._point(at, {}), [self.b.load(s) for s in slots])

        self._grid_stride(start, step, math.prod(self.domain[d] for d in kept), result)

    def _block_total(self, values: list[ll.Value], name: str, on_total) -> None:
        """Every thread's partials in ``values`` folded in the documented order (lanes, then the
        warps' slots in shared memory ``name``), ``on_total(total)`` emitted for thread 0, and a
        barrier after it: the slots are free again. Every thread of the block must call it."""
        b = self.b
        tid = special_register(b, "tid.x")
        lane = b.and_(tid, extent(WARP - 1))
        warp = b.lshr(tid, extent(5))
        shared = [shared_array(b.module, f"{self.prefix}_{name}{k}", v.type, WARPS)
                  for k, v in enumerate(values)]
        warp_fold = self._warp_fold
        partial = warp_fold(values, (16, 8, 4, 2, 1))
        with b.if_then(b.icmp_unsigned("==", lane, extent(0))):
            for g, v in zip(shared, partial):
                b.store(v, b.gep(g, [ll.Constant(I32, 0), b.trunc(warp, I32)]))
        barrier(b)
        with b.if_then(b.icmp_unsigned("==", warp, extent(0))):
            slot = b.trunc(b.and_(lane, extent(WARPS - 1)), I32)
            total = warp_fold([b.load(b.gep(g, [ll.Constant(I32, 0), slot])) for g in shared],
                              _halvings(WARPS))
            with b.if_then(b.icmp_unsigned("==", tid, extent(0))):
                on_total(total)
        barrier(b)

    def _warp_fold(self, values: list[ll.Value], offsets) -> list[ll.Value]:
        """Each lane's ``values`` merged with those of the lane ``offset`` above, for each offset
        in turn (``shfl.sync.down``): with 16, 8, 4, 2, 1, lane 0 ends with the warp's total."""
        for offset in offsets:
            values = self.merging.merge(self.b, values, [shuffle_down(self.b, v, offset) for v in values])
        return values

    def _block_reduce(self) -> None:
        b = self.b
        kept, reduced = self._dims(kernel.PARALLEL), self._dims(kernel.REDUCTION)
        tid = special_register(b, "tid.x")

        self._grid_stride(special_register(b, "ctaid.x"), special_register(b, "nctaid.x"),
                          math.prod(self.domain[d] for d in kept),
                          lambda o: self._block_result(tid, self._position(o, kept), reduced))

    def _block_result(self, tid: ll.Value, at: dict, reduced: list[int]) -> None:
        """The result at the parallel position ``at``, reduced over ``reduced`` by the block."""
        b = self.b
        slots = self._accumulators()
        self._fold_points(slots, tid, extent(BLOCK), math.prod(self.domain[d] for d in reduced),
                          lambda r: self._point(at, self._position(r, reduced)))
        self._block_total([b.load(s) for s in slots], "partials",
                          lambda total: self.body.store_results(self._point(at, {}), total))

    def row_part(self, row: ll.Value, warp: bool = False) -> None:
        """A row group member's points of row ``row`` (dim 0), by the block's threads: a
        reduction of the row's other dims as a block reduction's result is (the same order),
        or each point by one thread, thread ``t`` taking points ``t, t + BLOCK, ...``. With
        ``warp``, by the lanes of one warp alone: lane ``l`` folds or takes points ``l, l + 32,
        ...``, and a reduction's lanes merge by shuffles (16, 8, 4, 2, 1), lane 0 storing."""
        b = self.b
        tid = special_register(b, "tid.x")
        first, step = (b.and_(tid, extent(WARP - 1)), WARP) if warp else (tid, BLOCK)
        rest = list(range(1, len(self.domain)))
        count = math.prod(self.domain[d] for d in rest)
        if self.op.has_reduction and not warp:
            self._block_result(tid, {0: row}, rest)
            return
        if self.op.has_reduction:
            slots = self._accumulators()
            self._fold_points(slots, first, extent(step), count,
                              lambda r: self._point({0: row}, self._position(r, rest)))
            total = self._warp_fold([b.load(s) for s in slots], (16, 8, 4, 2, 1))
            with b.if_then(b.icmp_unsigned("==", first, extent(0))):
                self.body.store_results(self._point({0: row}, {}), total)
            return

        def item(i):
            ivs = self._point({0: row, **self._position(i, rest)}, {})
            self.body.store_results(ivs, self.body.evaluate(ivs))

        self._grid_stride(first, extent(step), count, item)

    def _grid_reduce(self) -> None:
        """One result point reduced by ``grid`` blocks: block ``k`` folds its chunk (the
        ``k``-th of ``grid`` consecutive ones) as a block reduction does and leaves its total in
        the scratch buffer; the last block to finish (an atomic count) folds those totals in
        block order, thread ``t`` taking totals ``t, t + 256, ...``, then as a block again."""
        b, op = self.b, self.op
        reduced = self._dims(kernel.REDUCTION)
        count = math.prod(self.domain[d] for d in reduced)
        blocks = grid_blocks(count)
        chunk = -(-count // blocks)
        tid, ctaid = special_register(b, "tid.x"), special_register(b, "ctaid.x")
        first = b.mul(ctaid, extent(chunk))
        last = b.add(first, extent(chunk))
        last = b.select(b.icmp_unsigned("<", last, extent(count)), last, extent(count))
        slots = self._accumulators()
        self._fold_points(slots, b.add(first, tid), extent(BLOCK), last,
                          lambda r: self._point({}, self._position(r, reduced)))
        scratch = self.scratch
        counter = b.gep(scratch, [extent(len(op.results) * blocks * SCRATCH_SLOT)], source_etype=I8)
        finished = shared_array(b.module, f"{self.prefix}_last", I32, 1)
        finished_slot = b.gep(finished, [ll.Constant(I32, 0), ll.Constant(I32, 0)])

        def leave_total(total):
            for k, v in enumerate(total):
                b.store(v, self._scratch_slot(k, blocks, ctaid))
            b.fence("seq_cst")  # the totals are seen by every block before the count
            done = b.atomic_rmw("add", counter, ll.Constant(I32, 1), "seq_cst")
            b.store(b.zext(b.icmp_unsigned("==", done, ll.Constant(I32, blocks - 1)), I32), finished_slot)

        self._block_total([b.load(s) for s in slots], "partials", leave_total)
        with b.if_then(b.icmp_unsigned("!=", b.load(finished_slot), ll.Constant(I32, 0))):
            b.fence("seq_cst")
            totals = self._accumulators()

            types = [value_type(r.type.element) for r in op.results]

            def take(j):
                values = [b.load(self._scratch_slot(k, blocks, j), typ=t) for k, t in enumerate(types)]
                merged = self.merging.merge(b, [b.load(s) for s in totals], values)
                for s, v in zip(totals, merged):
                    b.store(v, s)

            self._grid_stride(tid, extent(BLOCK), extent(blocks), take)

            def store(total):
                self.body.store_results([extent(0)] * len(self.domain), total)
                b.store(ll.Constant(I32, 0), counter)  # ready for the next launch

            self._block_total([b.load(s) for s in totals], "totals", store)

    def _scratch_slot(self, k: int, blocks: int, j: ll.Value) -> ll.Value:
        """Where block ``j`` leaves result ``k``'s total in the scratch buffer."""
        b = self.b
        offset = b.add(extent(k * blocks * SCRATCH_SLOT), b.mul(j, extent(SCRATCH_SLOT)))
        return b.gep(self.scratch, [offset], source_etype=I8)

    def _serial(self) -> None:
        b, op = self.b, self.op
        self._copies()
        if op.has_reduction and op.scan_dim is None:
            n_in = len(op.operands)
            for k, (r, init) in enumerate(zip(op.results, op.attributes["inits"])):
                value = constant(r.type.element, init.value, memory=True)
                pointer = self.body.operands[n_in + k].pointer

                def store(iv, pointer=pointer, value=value, t=r.type.element):
                    b.store(value, b.gep(pointer, [iv], inbounds=True, source_etype=memory_type(t)))

                emit_loop(b, extent(r.type.size), store)

        emit_nest(b, [extent(d) for d in self.domain],
                  lambda ivs: self.body.store_point(ivs, self._scan_accumulator))

    def _copies(self) -> None:
        """Results that start as a copy of an input get that copy first."""
        b, op = self.b, self.op
        n_in = len(op.operands)
        operands = self.body.operands
        for k, source in enumerate(op.copy_inputs):
            if source < 0:
                continue
            elem = memory_type(op.results[k].type.element)

            def copy_at(ivs, src=operands[source], dst=operands[n_in + k], elem=elem):
                value = b.load(element_pointer(b, src.pointer, ivs, src.strides, elem), typ=elem)
                b.store(value, element_pointer(b, dst.pointer, ivs, dst.strides, elem))

            emit_nest(b, [extent(d) for d in op.results[k].type.shape], copy_at)

    def _scan_accumulator(self, k: int, ivs: list, r) -> ll.Value:
        """Result ``k`` at the previous position along the scan dim, or its init at position 0."""
        b, scan = self.b, self.op.scan_dim
        first = b.icmp_unsigned("==", ivs[scan], extent(0))
        previous = b.select(first, extent(0), b.sub(ivs[scan], extent(1)))
        loaded = self.body.load(len(self.op.operands) + k, [*ivs[:scan], previous, *ivs[scan + 1:]], r)
        return b.select(first, constant(r.type.element, self.op.attributes["inits"][k].value), loaded)


def _halvings(n: int) -> tuple[int, ...]:
    """``n/2, n/4, ..., 1``: the shuffle offsets that fold ``n`` lanes into lane 0."""
    out = []
    while n > 1:
        n //= 2
        out.append(n)
    return tuple(out)
