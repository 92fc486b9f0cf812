"""How the CPU runs a ``kernel.generic``: a loop nest around its body, shaped for LLVM's
vectorizers.

The CPU's tactics, each a choice a GPU would make differently:

- an all-identity, all-contiguous kernel is one flat loop (``_flatten``);
- a reduction over contiguous operands merges adjacent dims of one kind into one
  (``_collapse_reduction``): a full ``x.sum()`` is one long row;
- a float sum, product, max or min, an argmax or argmin over the innermost dim keeps several
  partial accumulators (``reduction.RowReduction``), sums and products combined in blocks and
  pairwise as NumPy's pairwise sum does: vectorized, in a fixed order, with error growing like
  log(n);
- a float sum or product over the dim before a parallel innermost one (``axis=0``) sums each
  column in the same blocked, pairwise order, vectorized across columns
  (``reduction.ColumnReduction``); a max or min there needs no order, and LLVM vectorizes its
  plain loop across the columns;
- a reduction to one value per call (``x.sum()``, ``x.argmax()``), split, runs in pieces of its
  reduced dim whose partials merge into the unsplit result, bit for bit
  (``full_reduction.Pieces``; a float sum in NumPy's pairwise order: whole subtrees of its
  tree, ``pairwise_pieces.PairwisePieces``); a split sum down the columns of rows under 64 KiB runs in
  pieces of rows the same way (``column_pieces.ColumnPieces``);
- a scan runs its dim in order, position 0 from the inits (``_loop_nest``);
- in a size-generic kernel, a reduced innermost dim of at most ``TINY_ROW`` elements at this
  compile (the 3 of pairwise distances of points in 3-d) is a constant
  (``_with_tiny_rows_constant``): LLVM unrolls the row and vectorizes the dim around it, where
  a run-time length left a scalar loop per point;
- in a size-generic kernel, a dim of at most ``TABLE_DIM`` along which the body reads a
  constant table (numpy.fft's radices and twiddle rows) is a constant too
  (``_with_table_dims_constant``): the table fixes its length, and LLVM counts the loop;
- a dim along which the body tests its position or clamps a read (a concatenation, a pad,
  ``np.roll``) runs in segments between the positions where those change
  (``positions.breakpoints``), each segment emitted knowing its range, so the tests are
  constants and the clamps gone: a plain shifted copy per piece, vectorized;
- a body whose fast math may be inaccurate for some element runs again, whole, with exact libm
  math when one was seen (``_emit_with_exact_fallback``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.cpu import (
    column_pieces,
    cost,
    full_reduction,
    pairwise_pieces,
    reduction,
    target,
    transpose_tiles,
)
from jitcore.codegen.kernel_body import KernelBody, entry_builder, kernel_function, row_invariant_divisions
from jitcore.codegen.llvm_types import I1, I8, I64, PTR, constant, memory_type
from jitcore.codegen.loops import Sizes, element_pointer, emit_loop, emit_nest, extent, static_value
from jitcore.codegen.masked_rows import (
    Input,
    WindowUpdate,
    masked_row,
    row_guard,
    selected_runs,
    window_update,
)
from jitcore.codegen.positions import breakpoints
from jitcore.ir import layout_class
from jitcore.ir.attributes import AffineExpr, AffineMap, numpy_dtype
from jitcore.ir.core import Block, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType


def _precision(**kwargs) -> scalar.Precision:
    """The body's precision, with the math library's functions (and intdiv's 64-bit division)
    for the host's instruction sets."""
    return scalar.Precision(isa=target.kernel_isa(), **kwargs)


# The longest reduced row that a size-generic kernel compiles as a constant: points in 2 to 8
# dimensions, RGBA pixels, quaternions. Such a row has code of its own per length (at most seven
# compiles); longer rows share one code for every length (tests/jitcore/test_size_generic.py).
# Under two groups of lanes (16 for float64) so that such a row always runs in order. It was 4:
# rows of 5 to 8 then ran as a scalar loop per point, 2.5-4.6x slower (docs/performance.md,
# "Short rows, costly sums and compute floors"); from 9 on LLVM no longer vectorizes the free
# dim around the unrolled row (a stride of 9+ elements), so a constant does not pay there.
TINY_ROW = 8
# The longest dim along which a kernel reads a constant table that a size-generic kernel keeps
# a constant extent (``_with_table_dims_constant``): the radices, sub-transforms and twiddle
# rows of numpy.fft's stages (docs/performance.md, fft36). Longer tables (an ``arange(n)``
# folded into a constant) keep their dim a run-time extent, so one code serves every ``n``.
TABLE_DIM = 64


def emit_kernel(module: ll.Module, name: str, op: kernel.GenericOp, strided: list[bool],
                fastmath: bool = False, split: bool = False, sizes: Sizes | None = None,
                unrolled: bool = True, layouts: Sequence[str | None] | None = None,
                producer=None) -> tuple[ll.Function, tuple[int, ...] | None, int, kernel.GenericOp]:
    """``op`` as the internal function ``name`` (see ``kernel_body.kernel_function``), the
    extent of the dim it runs a range ``[lo, hi)`` of when ``split`` (None: it is not split),
    as the extents whose product it is (a flattened or collapsed dim is several of the op's),
    and the bytes of partials it needs (0: none). With ``sizes`` (a size-generic function's
    symbols) the kernel takes the run-time extents (``kernel_body.kernel_function``);
    ``unrolled`` says LLVM's unroller runs on the code (``_with_tiny_rows_constant`` pays only
    then). ``layouts``: per operand, a strided argument's layout class
    (``ir/layout_class.py``; None or absent: strided, nothing known), from which a
    reduction over arguments dense in memory reads them in memory order (``_dense_twin``).

    That dim is its first parallel one of extent above 1, or the one loop of a flattened
    kernel; each point of the other dims lies in one range, so ranges run independently. A
    reduction to one value per call has none: it is cut into pieces of its reduced dim
    instead (``full_reduction.py``), and then takes, as its last pointer, a scratch buffer of
    that many bytes for the pieces' partials, and must be called once more, after every
    piece ran, with the empty range ``[extent, extent)``: that call merges them. With
    ``producer`` (``producer_folds.Producer``) the kernel computes that input itself and takes
    the producer's arrays after its own."""
    sizes = sizes or Sizes()
    if unrolled:  # LLVM's unroller runs on this code (not on a tiny function's: backend.TINY_WORK)
        sizes = _with_tiny_rows_constant(op, strided, sizes)
    sizes = _with_table_dims_constant(op, sizes)
    # a kernel computing its producer has no twin; a tiny one has (NumPy's order at any size)
    twin = _dense_twin(op, strided, layouts) if layouts and producer is None else None
    if twin is not None:
        pieces, split_dims = _cuts(op, strided, fastmath, split, sizes)
        if pieces is None:  # else a full reduction in pieces, of strides known when it runs
            general_extent = (op.domain()[split_dims[0]],) if split_dims else None
            op_twin, orders, gapped = twin
            twin_strided = [k in gapped for k in range(len(strided))]
            dense = _Schedule(module, f"{name}.dense", op_twin, twin_strided, fastmath,
                              split and general_extent is not None, sizes.unbound(), cut=False,
                              tiny=not unrolled)
            # the launch splits the op's dim: the twin must split one of the same extent (where
            # it does not, the general kernel runs, as the run-time dispatch chose before; the
            # twin is left unused in the module, which LLVM drops)
            if dense.pieces is None and dense.split_extent == general_extent:
                wrapper = _dense_call(module, name, op, strided, dense.function, orders, gapped,
                                      sizes.unbound(), general_extent is not None)
                return wrapper, general_extent, 0, op_twin
    schedule = _Schedule(module, name, op, strided, fastmath, split, sizes, producer=producer,
                         tiny=not unrolled)
    partials = 0 if schedule.pieces is None else schedule.pieces.scratch_bytes
    return schedule.function, schedule.split_extent, partials, op


def _dense_twin(op: kernel.GenericOp, strided: list[bool], layouts: Sequence[str | None]):
    """A twin of a reduction that reads arguments of strides known only at run time, for the
    layout classes (``layout_class.py``) they have: each dense in C order, or each in Fortran
    order, any axis lying backwards (``C flip 0``, ``F flip 1``, ``reversed``: a reduced one is
    read backwards, in index order, as NumPy's reductions read a negative stride, the same way
    by every argument reading it; a parallel one either way). The twin reads them as C-contiguous
    arrays of their axes in that order, its dims in memory order (``kernel.memory_order``,
    NumPy's rule, as ``interchange`` orders a view's): so a Fortran-ordered ``a.sum()`` is one
    contiguous row, its ``sum(axis=1)`` a column sum. Only where each such argument is read
    whole through a permutation of the dims (any other input is a C-contiguous buffer of the
    function's own, as ``var``'s mean, whose map stays; the order then is NumPy's for the
    inputs together, ``kernel.numpy_axis_order``), and the twin keeps the parallel dims in
    their order (a split kernel's ranges are of the same dim). The
    first of the two that applies, as (twin, per operand its axes outermost first or None: not
    strided), or None."""
    if (not any(strided) or not op.has_reduction or not kernel.reads_in_memory_order(op)
            or kernel.checks_indices(op)):
        return None
    domain = op.domain()
    dense = []  # per operand: (orders it is dense in, axes it lies backwards along), or None
    gapped = {}  # per strided-class operand: its axes in NumPy's iteration order, outermost first
    zeros = {}  # per broadcast operand: the dims it reads with stride 0 (no say in the order)
    for k, (v, m, s, layout) in enumerate(zip(op.operands, op.input_maps, strided, layouts)):
        if not s:  # a buffer of the function's own, C-contiguous: its map says how it is read
            dense.append(None)
            continue
        dims = [e.dim for e in m.exprs]
        if (layout is None or None in dims or len(set(dims)) != len(dims)
                or any(e.scale != 1 or e.offset for e in m.exprs)
                or tuple(domain[d] for d in dims) != v.type.shape):
            return None
        dense.append(layout_class.dense_orders(layout, v.type.shape))
        if dense[-1] is None:
            order = layout_class.strided_order(layout, v.type.shape)
            gapped[k] = order + [a for a in range(v.type.rank) if a not in order]
            zeros[k] = {dims[a] for a in layout_class.zero_axes(layout)}
    if all(order == sorted(order) for order in gapped.values()) and all(d is None for d in dense):
        return None  # strided arguments each read in its own axes' order: the op as it is
    rank = max(v.type.rank for v, s in zip(op.operands, strided) if s)
    layouts_tried = [layout_class.C]
    if rank >= 2 and any(d is not None for d in dense):
        layouts_tried.append(layout_class.F)
    parallel = [d for d, it in enumerate(op.iterator_types) if it == kernel.PARALLEL]
    for order_name in layouts_tried:
        if not _has_layout(op, dense, order_name):
            continue
        orders = [gapped[k] if k in gapped else None if d is None
                  else list(range(v.type.rank)) if order_name == layout_class.C
                  else list(reversed(range(v.type.rank))) for k, (v, d) in enumerate(zip(op.operands, dense))]
        mapping = {}  # every operand a stand-in: the clone adds no use to the function's values
        for v, order in zip(op.operands, orders):
            shape = v.type.shape if order is None else tuple(v.type.shape[a] for a in order)
            mapping[v] = Block([TensorType(shape, v.type.element)]).args[0]
        twin = op.clone(mapping)
        maps = list(op.indexing_maps)
        for k, order in enumerate(orders):
            if order is not None:
                # d -> extent - 1 - d along each axis that lies backwards (a reduced one read
                # in index order, as NumPy's reductions read it: they never turn a negative
                # stride around; a parallel one's points are independent of each other)
                flipped = dense[k][1] if dense[k] is not None else ()
                exprs = [AffineExpr(e.dim, -1, domain[e.dim] - 1)
                         if a in flipped and v_shape_above_one(op.operands[k], a) else e
                         for a, e in ((a, maps[k].exprs[a]) for a in order)]
                maps[k] = AffineMap(maps[k].num_dims, tuple(exprs))
        twin.attributes["indexing_maps"] = tuple(maps)
        twin.attributes["domain"] = tuple(domain)
        kernel.memory_order(twin, zeros)
        _parallel_dims_in_op_order(op, twin)
        its = twin.iterator_types
        moved = [twin_dim for twin_dim, it in enumerate(its) if it == kernel.PARALLEL]
        # the twin's parallel dims, as the op's: same extents in the same order
        if ([twin.domain()[d] for d in moved] != [domain[d] for d in parallel]
                or not _keeps_parallel(op, twin)):
            continue
        return twin, orders, frozenset(gapped)
    return None


def _parallel_dims_in_op_order(op: kernel.GenericOp, twin: kernel.GenericOp) -> None:
    """Put the twin's parallel dims back in the op's order, among the places memory order gave
    them, the reduced dims staying where they are (``a.sum(axis=2)`` of a Fortran 3-d ``a``:
    axis 2 outermost, as NumPy's iterator takes it, its rows ``0, 1`` as the op's result
    has them). Each result element then adds the same terms in the same order (the order
    of the reduced dims, and which of them is innermost, are unchanged); the split kernel's
    ranges are of the op's dim."""
    n_in = len(op.operands)
    its = twin.iterator_types
    slots = [d for d, it in enumerate(its) if it == kernel.PARALLEL]
    for a, b in zip(op.indexing_maps[n_in:], twin.indexing_maps[n_in:]):
        pairs = [(e.dim, f.dim) for e, f in zip(a.exprs, b.exprs) if e.dim is not None and f.dim is not None]
        if len(pairs) != len(slots):
            return
        by_op_dim = [twin_dim for _, twin_dim in sorted(pairs)]
        order = list(range(len(its)))  # new position -> old dim
        for slot, d in zip(slots, by_op_dim):
            order[slot] = d
        if order == list(range(len(its))):
            return
        new_of = {old: new for new, old in enumerate(order)}
        twin.attributes["indexing_maps"] = tuple(
            AffineMap(m.num_dims, tuple(e if e.dim is None else AffineExpr(new_of[e.dim], e.scale, e.offset)
                                        for e in m.exprs)) for m in twin.indexing_maps)
        domain = twin.domain()
        twin.attributes["domain"] = tuple(domain[d] for d in order)
        twin.attributes["iterator_types"] = tuple(its[d] for d in order)
        return


def v_shape_above_one(v, axis: int) -> bool:
    return v.type.shape[axis] > 1


def _has_layout(op: kernel.GenericOp, dense: list, order: str) -> bool:
    """Whether every strided operand (``dense``: its orders and backwards axes) is dense in
    ``order`` and lies along a reduced dim the same way as every other operand."""
    backwards_of_dim: dict[int, bool] = {}
    for v, m, d in zip(op.operands, op.input_maps, dense):
        if d is None:
            continue
        orders, flipped = d
        if order not in orders:
            return False
        for axis, n in enumerate(v.type.shape):
            if n <= 1:
                continue
            flips, dim = axis in flipped, m.exprs[axis].dim
            if op.iterator_types[dim] == kernel.REDUCTION and backwards_of_dim \
                    .setdefault(dim, flips) != flips:
                return False
    return True


def _keeps_parallel(op: kernel.GenericOp, twin: kernel.GenericOp) -> bool:
    """Whether the twin's results read its parallel dims as the op's read the op's, in order."""
    n_in = len(op.operands)
    for a, b in zip(op.indexing_maps[n_in:], twin.indexing_maps[n_in:]):
        pa = [op.iterator_types[e.dim] if e.dim is not None else None for e in a.exprs]
        pb = [twin.iterator_types[e.dim] if e.dim is not None else None for e in b.exprs]
        if pa != pb or any((e.dim is None) != (f.dim is None) for e, f in zip(a.exprs, b.exprs)):
            return False
        ra = [e.dim for e in a.exprs if e.dim is not None]
        rb = [e.dim for e in b.exprs if e.dim is not None]
        if ra != sorted(ra) or rb != sorted(rb):
            return False
    return True


def _dense_call(module: ll.Module, name: str, op: kernel.GenericOp, strided: list[bool],
                twin: ll.Function, orders: list, gapped: frozenset, sizes: Sizes,
                ranged: bool) -> ll.Function:
    """The kernel ``name``, with the calling convention of the op's strided kernel: the twin
    called on the dense strided arguments' lowest addresses (each lies backwards along the axes
    of negative stride), without their strides, and on the others (``gapped``: of a strided
    class) as they came, their strides in the twin's order of their axes; everything else is
    passed as it came."""
    shaped = [*op.operands, *op.results]
    n_shaped = len(shaped)
    sized = bool(sizes)
    params = [PTR] * (n_shaped + sized) + [I64] * sum(v.type.rank for v, s in zip(shaped, strided) if s)
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), params + [I64, I64] * ranged), name)
    fn.linkage = "internal"
    if ranged:  # called whole and per chunk, as the strided kernel it stands for
        fn.attributes.add("noinline")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    args = list(fn.args)
    if sized:
        args[n_shaped].name = "sizes"  # the caller finds ``sizes`` by its name
        sizes.bind(b, args[n_shaped])
    strides, at = {}, n_shaped + sized
    for k, (v, s) in enumerate(zip(shaped, strided)):
        if s:
            strides[k] = args[at: at + v.type.rank]
            at += v.type.rank
    rest = args[at:]  # lo, hi
    zero, one = extent(0), extent(1)
    pointers = list(args[:n_shaped])
    for k, order in enumerate(orders):
        if order is None or k in gapped:
            continue
        v = op.operands[k]
        shape = sizes.extents(v.type.shape)
        offset = zero
        for axis in order:
            n, s = shape[axis], strides[k][axis]
            flips = b.and_(b.icmp_signed("<", s, zero), b.icmp_signed(">", n, one))
            offset = b.add(offset, b.select(flips, b.mul(b.sub(n, one), s), zero))
        pointers[k] = b.gep(args[k], [offset], source_etype=memory_type(v.type.element))
    kept = [strides[k][a] for k in sorted(gapped) for a in orders[k]]
    b.call(twin, [*pointers, *args[n_shaped: n_shaped + sized], *kept, *rest])
    b.ret_void()
    return fn


def splits_rows(op: kernel.GenericOp, strided: list[bool]) -> bool:
    """Whether ``op``'s kernel, emitted split, takes ranges ``[lo, hi)`` of its own domain's
    dim 0 (a range of rows), as ``rowwise.py`` needs to run several kernels row block by row
    block. It must agree with ``_Schedule``'s choice of split dim: a flattened kernel splits
    rows only when dim 0 is all there is; a collapsed one when dim 0 stays a dim of its own."""
    domain = op.domain()
    if not domain or domain[0] < 2 or op.iterator_types[0] != kernel.PARALLEL:
        return False
    positional = any(isinstance(inner, kernel.IndexOp) for inner in kernel.body_ops(op))
    if (positional or any(strided) or op.clamped or op.indexed or kernel.checks_indices(op)
            or op.scan_dim is not None):
        return False
    same_shape = all(v.type.shape == tuple(domain) for v in [*op.operands, *op.results])
    if not op.has_reduction and same_shape and all(m.is_identity for m in op.indexing_maps):
        return all(d == 1 for d in domain[1:])
    collapsed = _collapsed_dims(op)
    return collapsed is None or collapsed[0][0] == [0]


class _Schedule:
    def __init__(self, module: ll.Module, name: str, op: kernel.GenericOp, strided: list[bool],
                 fastmath: bool, split: bool = False, sizes: Sizes | None = None, cut: bool = True,
                 producer=None, tiny: bool = False):
        self.op = op
        self.fastmath = fastmath
        # a tiny function's kernel (``backend.TINY_WORK``: its IR is emitted, and so runs,
        # only at sizes where each kernel has at most that many points): a float sum's row
        # is one pairwise leaf, another reduction's row shorter than one block of lanes
        self.tiny = tiny
        self.sizes = sizes = sizes if sizes is not None else Sizes()
        shaped = [*op.operands, *op.results]
        checks = kernel.checks_indices(op)
        positional = any(isinstance(inner, kernel.IndexOp) for inner in kernel.body_ops(op))
        same_shape = all(v.type.shape == tuple(op.domain()) for v in shaped)
        plain = not (op.has_reduction or positional or any(strided) or op.clamped or op.indexed)
        self.pieces, split_dims = _cuts(op, strided, fastmath, split, sizes, cut)
        folded = producer.shaped if producer is not None else []
        self.function, operands, extras, self.bounds = kernel_function(
            module, name, shaped + folded, strided + [False] * len(folded),
            extra_pointers=int(checks) + (self.pieces is not None),
            split=bool(split_dims) or self.pieces is not None, sizes=sizes)
        operands, folded = operands[:len(shaped)], operands[len(shaped):]
        status = extras[:int(checks)]
        self.scratch = extras[-1] if self.pieces is not None else None
        self.split_dim = split_dims[0] if split_dims else None
        self.b = entry_builder(self.function)
        maps = list(op.indexing_maps)
        self.domain = sizes.extents(op.domain())
        self.factors = [(d,) for d in op.domain()]  # the op's extents each entry is the product of
        self.iterators = list(op.iterator_types)  # one per entry of self.domain
        # An update of a window of its input (``masked_rows.window_update``): over the window
        # alone where the result is in the input's buffer (``_emit_nest``); not flattened, so
        # each dim keeps its bounds.
        self.window = window_update(op) if producer is None and self.pieces is None else None
        if self.window is None and producer is None and self.pieces is None:
            self.window = _head_window(op)
        self.in_window = False  # emitting the in-place nest over the window
        if plain and same_shape and all(m.is_identity for m in maps) and self.window is None:
            maps = self._flatten(operands, maps)
        elif not (positional or any(strided) or op.clamped or op.indexed):
            maps = self._collapse_reduction(operands, maps)
        if split_dims:  # the first parallel dim above 1 of the domain as flattened or collapsed
            self.split_dim = next(i for i, (d, it) in enumerate(zip(self.domain, self.iterators))
                                  if it == kernel.PARALLEL and (self.sizes.concrete(d) or 2) > 1)
        self.split_extent = None if self.split_dim is None else self.factors[self.split_dim]
        self.rows_from = self._rows_from(maps)
        # An epilogue of arithmetic runs per output element as its row ends; one that calls the
        # math library runs after the nest over this range's results, a loop LLVM vectorizes
        # (a scalar exp per row cost 15-25% more than the unfused kernel's vector exps).
        self.epilogue_in_rows = (op.epilogue is not None and self.rows_from is not None
                                 and all(cost.is_cheap_scalar(inner) for inner in op.epilogue.ops))
        self.body = KernelBody(self.b, op, operands, maps, _precision(fastmath=fastmath),
                               status[0] if checks else None)
        self.body.sizes = sizes
        if producer is not None:
            producer.install(self.body, folded)
        elif not op.has_reduction and self.pieces is None:
            # the plain nest: its innermost loop is the last dim, the one LLVM vectorizes
            self.body.row_divisions = row_invariant_divisions(op, maps)
        self.scan_start = False  # emitting position 0 of the scan dim (see _loop_nest)
        self.rolled = False  # emitting a row under two groups of lanes (``_short_row``)
        if self.window is not None and (len(self.domain) != len(op.iterator_types) or (
                (positional or op.clamped) and any(breakpoints(op, d) for d in range(len(self.domain))))):
            self.window = None  # (a dim merged, or run in segments of its own)
        # Segments only where the nest's dims are the op's own (never flattened or collapsed).
        segmented = (positional or op.clamped) and len(self.domain) == len(op.iterator_types)
        self.breakpoints = {d: breakpoints(op, d) for d in range(len(self.domain))
                            if segmented and d != op.scan_dim}
        # A reduction whose terms outside a window per row are masked: each row over its window
        # (``masked_rows.py``); where the nest's dims are the op's own and a row is not cut
        self.masked = None
        last = len(self.domain) - 1
        if (len(self.domain) == len(op.iterator_types) and self.pieces is None and producer is None
                and self.split_dim != last and not self.breakpoints.get(last)
                and not kernel.runs_in_order(op)):
            self.masked = masked_row(op)
        # A float sum under a mask of data (``where=``): NumPy's runs of kept terms, each
        # summed alone and added in turn (``masked_rows.SelectedRuns``); where a row is not cut
        self.runs = None
        if (self.masked is None and self.pieces is None and producer is None and self.split_dim != last
                and not self.breakpoints.get(last) and not kernel.runs_in_order(op)):
            self.runs = selected_runs(op)
        self.transposed = None
        if self.pieces is None and producer is None and self.masked is None and self.rows_from is None \
                and not any(self.breakpoints.values()) and self.window is None:
            self.transposed = transpose_tiles.transposed_read(op, maps, len(self.domain))
        # A reduction whose mask reads only outer positions: the nest below them skipped
        # where it is false (``masked_rows.RowGuard``), as long as no init is stored there: the
        # inits of a row-at-a-time reduction are stored as its row starts, so that row must start
        # above the guard (at it, a row skipped would leave its result unwritten:
        # np.all(x, axis=1, where=m[:, :1]) kept whatever the freed memory held).
        self.guard = None
        if (len(self.domain) == len(op.iterator_types) and self.pieces is None and producer is None
                and not kernel.runs_in_order(op) and (guard := row_guard(op)) is not None
                and (self.rows_from is None or self.rows_from < guard.depth)):
            self.guard = guard
        exact_fallback = any(scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op))
        if isinstance(self.pieces, column_pieces.ColumnPieces) and self.pieces.known_count is None:
            self.split_extent = column_pieces.RunTimeCount(self.factors[-2], self.pieces)
            self._emit_run_time_column_pieces()
        elif isinstance(self.pieces, pairwise_pieces.PairwisePieces) and self.pieces.known_count is None:
            self.split_extent = pairwise_pieces.RunTimeCount(self.factors[-1])
            self.pieces.bind(self.b, self.domain[-1])
            self._emit_pieces(exact_fallback)  # any length: a short row is one piece
        elif self.pieces is not None and self.pieces.known_count is None:
            self.split_extent = full_reduction.RunTimeCount(self.factors[-1], self.pieces.lanes)
            self.pieces.bind(self.b, self.domain[-1])
            self._emit_run_time_pieces(exact_fallback)
        elif self.pieces is not None:
            self.split_extent = (self.pieces.known_count,)
            self._emit_pieces(exact_fallback)
        elif exact_fallback:
            self._emit_with_exact_fallback(self._emit_nest)
        else:
            self._emit_nest()
        self.b.ret_void()

    def _rows_from(self, maps: list[AffineMap]) -> int | None:
        """The first of the trailing reduced dims of a reduction whose every output element is
        one point of the dims before them (each parallel dim in every result map), or None.
        From there the nest reduces one output element at a time: its init is stored just
        before its row (not in a pass over every result first) and its epilogue applied just
        after, while the value is in a register."""
        op, its = self.op, self.iterators
        if not op.has_reduction or op.scan_dim is not None or not its or its[-1] != kernel.REDUCTION:
            return None
        start = len(its)
        while start and its[start - 1] == kernel.REDUCTION:
            start -= 1
        outer = set(range(start))
        if any(set(e.dim for e in m.exprs if e.dim is not None) != outer
               for m in maps[len(op.operands):]):
            return None
        return start

    def _emit_run_time_pieces(self, exact_fallback: bool) -> None:
        """Pieces of a row whose length is known only at run time (a size-generic kernel),
        their count computed from it: a row too short for lanes runs in order, as an unsplit
        kernel runs it (``_blocked_unless_short``), whole in the merging call, ``[count,
        count)``; the calls for pieces then do nothing."""
        b, lo = self.b, self.bounds[0]
        least = 2 * reduction.lanes_for(self.op.results[-1].type.element)
        with b.if_else(b.icmp_signed("<", self.domain[-1], extent(least)), likely=False) as (short, long):
            with short:
                with b.if_then(b.icmp_signed(">=", lo, self.pieces.count)):
                    precision = self.body.precision
                    if exact_fallback:
                        self._emit_with_exact_fallback(self._short_row)
                    else:
                        self._short_row()
                    self.body.precision = precision
            with long:
                self._emit_pieces(exact_fallback)

    def _emit_run_time_column_pieces(self) -> None:
        """A column sum of narrow rows whose row count is known only at run time (a
        size-generic kernel): cut into pieces of rows where ``column_pieces.emit_cut`` says
        so, with their count as the launch's; else one range, ``[0, 1)``, of every column, as
        a split along such short rows runs (one chunk: ``backend.COLUMN_CHUNK_BYTES``), and
        the merging call ``[1, 1)`` does nothing. Both reduce with one ``ColumnReduction``
        (emitted once: LLVM's time is in its column loops), a piece's rows into its slots or
        every row into the results; under two blocks of rows, in order, as the unsplit kernel
        runs them. The column count stays the compile's (``ColumnPieces``)."""
        b, pieces, scratch = self.b, self.pieces, self.scratch
        lo, hi = self.bounds
        rows = self.domain[-2]
        pieces.bind(b, rows)
        merging = self._reassociation(-2)
        whole_range = b.and_(b.icmp_signed("==", lo, extent(0)), b.icmp_signed(">", hi, lo))
        blocked = b.icmp_signed(">=", rows, extent(2 * reduction.STEPS))
        split_dim, self.split_dim = self.split_dim, None  # the uncut range is every column
        with b.if_else(pieces.cut) as (cut, uncut):
            with cut:
                with b.if_then(b.icmp_signed(">=", lo, pieces.count)):
                    pieces.emit_combine(b, self.body, merging, [], scratch)
            with uncut:
                with b.if_then(whole_range):
                    self._emit_inits()
                    with b.if_then(b.not_(blocked)):
                        self._in_order(0, [])
        self.split_dim = split_dim
        stop = b.select(b.icmp_signed("<", hi, pieces.count), hi, pieces.count)
        in_pieces = b.select(b.icmp_signed(">", stop, lo), b.sub(stop, lo), extent(0))
        n_in = len(self.op.operands)

        def reduce(item):
            piece = b.add(lo, item)
            piece_rows = b.select(b.icmp_signed("<", piece, pieces.whole), pieces.size, pieces.rest)

            def keep(k, c, value):
                with b.if_else(pieces.cut) as (into_slot, into_result):
                    with into_slot:
                        b.store(value, pieces.slot(b, scratch, k, piece, c))
                    with into_result:
                        at, r = [extent(0), c], self.op.results[k]
                        old = self.body.load(n_in + k, at, r)
                        total = reduction.combine(b, merging.combiners[k], old, value)
                        self.body.store(n_in + k, at, r, total)

            reduction.ColumnReduction(
                b, self.op, self.body, merging, b.select(pieces.cut, piece_rows, rows), pieces.columns, [],
                first_row=b.select(pieces.cut, b.mul(piece, pieces.size), extent(0))).emit(keep)

        uncut_rows = b.zext(b.and_(whole_range, blocked), I64)
        emit_loop(b, b.select(pieces.cut, in_pieces, uncut_rows), reduce)
        if self.op.epilogue is not None:  # once every column is whole: the merging or the one call
            with b.if_then(b.select(pieces.cut, b.icmp_signed(">=", lo, pieces.count), whole_range)):
                self.split_dim = None
                self._each_result_point(self.body.finish_point)
                self.split_dim = split_dim

    def _short_row(self) -> None:
        """The whole row in order, from the inits (a full reduction: every other dim is 1)."""
        self._emit_inits()
        # a loop of under 16 steps, kept a loop: LLVM unrolled it 8 times with a remainder,
        # a tenth of a full max's code
        self.rolled = True
        self._in_order(len(self.domain) - 1, [ll.Constant(I64, 0)] * (len(self.domain) - 1))
        self.rolled = False
        self.body.finish_point([ll.Constant(I64, 0)] * len(self.domain))

    def _emit_pieces(self, exact_fallback: bool) -> None:
        """A full reduction cut into pieces (``full_reduction.py``): a range ``[lo, hi)`` of
        pieces reduces each into its partial slots; the empty range at the end, ``[count,
        count)``, merges the partials into the results. A body that may need exact math notes,
        per piece, whether it met an element that does; if any piece did, the merging call
        first reduces every piece again with exact math, as the unsplit kernel reruns the
        whole row: the same bits."""
        b, pieces, scratch = self.b, self.pieces, self.scratch
        lo, hi = self.bounds
        reduced = -2 if isinstance(pieces, column_pieces.ColumnPieces) else -1
        merging = self._reassociation(reduced)
        ivs = [ll.Constant(I64, 0)] * (len(self.domain) + reduced)

        count = pieces.count if pieces.known_count is None else extent(pieces.known_count)

        def reduce_piece(piece):
            pieces.emit_piece(b, self.body, merging, ivs, scratch, piece)

        with b.if_else(b.icmp_signed(">=", lo, count)) as (combine, reduce):
            with combine:
                if exact_fallback:
                    needed = self._any_flag(pieces, scratch)
                    with b.if_then(b.icmp_unsigned("!=", needed, ll.Constant(I8, 0)), likely=False):
                        self.body.precision = _precision(exact=True, fastmath=self.fastmath)
                        emit_loop(b, count, reduce_piece)
                pieces.emit_combine(b, self.body, merging, ivs, scratch)
                if self.op.epilogue is not None:
                    self._each_result_point(self.body.finish_point)
            with reduce:
                if not exact_fallback:
                    pieces.emit_pieces(b, lo, hi, reduce_piece)
                    return
                with b.goto_entry_block():
                    flag = b.alloca(I1)

                def report(cond):
                    b.store(b.or_(b.load(flag, typ=I1), cond), flag)

                def noting(piece):
                    b.store(ll.Constant(I1, 0), flag)
                    self.body.precision = _precision(report=report, fastmath=self.fastmath)
                    reduce_piece(piece)
                    b.store(b.zext(b.load(flag, typ=I1), I8), pieces.flag(b, scratch, piece))

                pieces.emit_pieces(b, lo, hi, noting)

    def _any_flag(self, pieces: full_reduction.Pieces, scratch: ll.Value) -> ll.Value:
        """The pieces' flags or-ed: an i8, not zero where some piece needed exact math."""
        b = self.b
        if pieces.known_count is not None:
            needed = ll.Constant(I8, 0)
            for piece in range(pieces.known_count):
                needed = b.or_(needed, b.load(pieces.flag(b, scratch, extent(piece)), typ=I8))
            return needed
        with b.goto_entry_block():
            found = b.alloca(I8)
        b.store(ll.Constant(I8, 0), found)
        emit_loop(b, pieces.count, lambda piece: b.store(
            b.or_(b.load(found, typ=I8), b.load(pieces.flag(b, scratch, piece), typ=I8)), found))
        return b.load(found, typ=I8)

    def _flatten(self, operands, maps) -> list[AffineMap]:
        """An all-identity, all-contiguous kernel is one flat loop: best for the vectorizer."""
        size = self.sizes.product(self.b, self.op.domain())
        self.domain, self.iterators = [size], ["parallel"]
        self.factors = [tuple(self.op.domain())]
        for operand in operands:
            operand.strides, operand.shape = [extent(1)], [size]
        return [AffineMap.identity(1) for _ in maps]

    def _collapse_reduction(self, operands, maps) -> list[AffineMap]:
        """Adjacent dims of one kind merged (``_collapsed_dims``): the domain, the operands'
        strides and shapes and the maps rewritten to match."""
        collapsed = _collapsed_dims(self.op)
        if collapsed is None:
            return maps
        op = self.op
        groups, inputs, outputs = collapsed
        its = list(op.iterator_types)
        self.factors = [tuple(op.domain()[d] for d in dims) for dims in groups]
        self.domain = [self.sizes.product(self.b, factors) for factors in self.factors]
        self.iterators = [its[dims[0]] for dims in groups]
        for operand, (_, axes) in zip(operands, [*inputs, *outputs]):
            if axes is None:
                continue
            operand.strides = [operand.strides[a[-1]] for a in axes]
            operand.shape = [self.sizes.multiply(self.b, [operand.shape[i] for i in a]) for a in axes]
        maps = [m for m, _ in [*inputs, *outputs]]
        return maps

    def _emit_nest(self) -> None:
        self._emit_copies()
        if self.window is not None:
            self._emit_window_or_whole()
            return
        reduces = self.op.has_reduction and self.op.scan_dim is None
        if reduces and self.rows_from is None:
            self._emit_inits()  # a scan starts from its inits at position 0 instead
        self._loop_nest(0, [])
        if reduces and self.op.epilogue is not None and not self.epilogue_in_rows:
            self._each_result_point(self.body.finish_point)  # once every row or column is whole

    def _emit_window_or_whole(self) -> None:
        """A window update (``masked_rows.window_update``): where the plan gave the result its
        source's buffer (``host._Planner.taken_over``; the same pointer and strides when it
        runs), the nest over the window alone, its test known there (``_window_loop``): the
        positions outside already hold the input. Elsewhere the whole nest."""
        b, window = self.b, self.window
        if window.source < 0:  # (``_head_window``: no source, the bound always holds)
            self.in_window = True
            self._loop_nest(0, [])
            self.in_window = False
            return
        n_in = len(self.op.operands)
        src, dst = self.body.operands[window.source], self.body.operands[n_in]
        same = b.icmp_unsigned("==", b.ptrtoint(src.pointer, I64), b.ptrtoint(dst.pointer, I64))
        for x, y in zip(src.strides, dst.strides):
            same = b.and_(same, b.icmp_signed("==", x, y))
        with b.if_else(same) as (in_place, whole):
            with in_place:
                self.in_window = True
                self.body.assumed[id(window.test)] = window.kept
                self._loop_nest(0, [])
                del self.body.assumed[id(window.test)]
                self.in_window = False
            with whole:
                self._loop_nest(0, [])

    def _window_loop(self, depth: int, body) -> None:
        """The loop over dim ``depth`` of a window update in place: ``[lo, hi)``, the window's
        bounds (at the outer ``ivs``: none are read, the bounds being a box) clipped to the dim
        and to a split dim's range."""
        b, window = self.b, self.window
        lo, hi = extent(0), self.domain[depth]
        if depth == self.split_dim:
            lo, hi = self.bounds
        for bound in window.lowers[depth]:
            x = self._affine_value(bound, [])
            lo = b.select(b.icmp_signed(">", x, lo), x, lo)
        for bound in window.uppers[depth]:
            x = self._affine_value(bound, [])
            hi = b.select(b.icmp_signed("<", x, hi), x, hi)
        count = b.select(b.icmp_signed(">", hi, lo), b.sub(hi, lo), extent(0))
        emit_loop(b, count, lambda iv: body(b.add(iv, lo)), self._interleave(depth, count))

    def _affine_value(self, bound, ivs: list) -> ll.Value:
        """An affine bound (``masked_rows.Affine``) at outer positions ``ivs``: inputs read at
        one element (``Input``) loaded, dims taken from ``ivs``."""
        b = self.b
        coefficients, c = bound
        value = extent(c)
        for d, k in coefficients.items():
            term = (self.body.load(d.operand, ivs, self.op.operands[d.operand])
                    if isinstance(d, Input) else ivs[d])
            if term.type != value.type:  # a narrower integer input (an int32 count)
                term = b.sext(term, value.type)
            value = b.add(value, b.mul(term, extent(k)))
        return value

    def _emit_copies(self) -> None:
        """Results that start as a copy of an input get that copy before the nest runs, unless
        the plan gave the result the input's own buffer (``host._Planner.taken_over``)."""
        n_in = len(self.op.operands)
        operands = self.body.operands
        for k, source in enumerate(self.op.copy_inputs):
            if source < 0:
                continue
            result = self.op.results[k]
            elem = memory_type(result.type.element)
            src, dst = operands[source], operands[n_in + k]

            fill = _splat_fill(self.op.operands[source], result.type.element)

            def copy_at(ivs, src=src, dst=dst, elem=elem, fill=fill):
                value = fill if fill is not None else \
                    self.b.load(element_pointer(self.b, src.pointer, ivs, src.strides, elem), typ=elem)
                self.b.store(value, element_pointer(self.b, dst.pointer, ivs, dst.strides, elem))

            apart = self.b.icmp_unsigned("!=", self.b.ptrtoint(src.pointer, I64),
                                         self.b.ptrtoint(dst.pointer, I64))
            with self.b.if_then(apart):
                emit_nest(self.b, self.sizes.extents(result.type.shape), copy_at)

    def _emit_with_exact_fallback(self, emit) -> None:
        """Run the vectorizable nest, noting any element the fast math cannot compute
        accurately; if there was one, run the whole nest again with exact (libm) math. Kernels
        write only their own results, so the second run simply overwrites the first (a scatter
        copies its input again first); the status words are put back as they were, so that
        only the exact run's index checks count."""
        with self.b.goto_entry_block():
            flag = self.b.alloca(I1)
        self.b.store(ll.Constant(I1, 0), flag)
        status = self.body.status
        words = [] if status is None else [self.b.gep(status, [ll.Constant(I64, k)], source_etype=I64)
                                           for k in range(4)]
        saved = [self.b.load(w, typ=I64) for w in words]

        def report(cond):
            self.b.store(self.b.or_(self.b.load(flag, typ=I1), cond), flag)

        self.body.precision = _precision(report=report, fastmath=self.fastmath)
        emit()
        with self.b.if_then(self.b.load(flag, typ=I1), likely=False):
            for word, value in zip(words, saved):
                self.b.store(value, word)
            self.body.precision = _precision(exact=True, fastmath=self.fastmath)
            emit()

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

            emit_loop(self.b, self.sizes.product(self.b, r.type.shape), store)

    def _emit_split_inits(self) -> None:
        """The inits of the results this range computes (the parallel points in it) only: the
        other ranges, maybe running at the same time, own the rest."""
        self._each_result_point(self._store_inits)

    def _store_inits(self, ivs: list) -> None:
        op, n_in = self.op, len(self.op.operands)
        for k, (r, init) in enumerate(zip(op.results, op.attributes["inits"])):
            self.body.store(n_in + k, ivs, r, constant(r.type.element, init.value))

    def _each_result_point(self, at) -> None:
        """``at(ivs)`` at each parallel point of this range (its reduced dims at 0)."""
        zero = ll.Constant(I64, 0)

        def visit(depth: int, ivs: list) -> None:
            if depth == len(self.domain):
                at(ivs)
            elif self.iterators[depth] != kernel.PARALLEL:
                visit(depth + 1, ivs + [zero])  # the results do not depend on this dim
            else:
                self._range_loop(depth, lambda iv: visit(depth + 1, ivs + [iv]))

        visit(0, [])

    def _range_loop(self, depth: int, body) -> None:
        """The loop over dim ``depth``: only the range ``[lo, hi)`` of the split dim."""
        if self.in_window:
            self._window_loop(depth, body)
            return
        if depth != self.split_dim:
            count = self.domain[depth]
            emit_loop(self.b, count, body, self._interleave(depth, count), unroll=not self.rolled)
            return
        lo, hi = self.bounds
        count = self.b.sub(hi, lo)
        emit_loop(self.b, count, lambda iv: body(self.b.add(iv, lo)), self._interleave(depth, count))

    def _interleave(self, depth: int, count: ll.Value) -> int:
        """The interleave count of a loop over dim ``depth`` of ``count`` iterations: the
        innermost loop's, where it is parallel (``cost.interleave``); 0 (LLVM's choice) for the
        others."""
        if depth != len(self.domain) - 1 or self.iterators[depth] != kernel.PARALLEL:
            return 0
        # Not by a run-time extent's value at this compile: one code serves every length.
        return cost.interleave(self.op, static_value(count))

    def _point(self, ivs: list) -> None:
        """The body at ``ivs``, its results stored; accumulators are read from the results (a
        reduction) or from the previous position along the scan dim (a scan)."""
        self.body.store_point(ivs, self._scan_accumulator)

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
        guard = self.guard
        if guard is not None and depth == guard.depth and id(guard.test) not in self.body.assumed:
            self._guarded(depth, ivs)
            return
        if depth == len(self.domain):
            self._point(ivs)
            return
        if depth == self.rows_from:  # one output element: its init, its row, its epilogue
            at = ivs + [ll.Constant(I64, 0)] * (len(self.domain) - depth)
            self._store_inits(at)
            self._reduce_from(depth, ivs)
            if self.epilogue_in_rows:
                self.body.finish_point(at)
            return
        self._reduce_from(depth, ivs)

    def _guarded(self, depth: int, ivs: list) -> None:
        """The nest below ``ivs`` only where the guard's test keeps its terms (elsewhere each
        is the identity), the test known inside."""
        b, guard, body = self.b, self.guard, self.body
        at = ivs + [extent(0)] * (len(self.domain) - depth)  # (the test reads none of these)
        values = {id(self.op.body.args[i]): body.load(i, at, self.op.operands[i]) for i in guard.inputs}
        body._emit_ops(guard.ops, values, {}, at)
        test = values[id(guard.test)]
        with b.if_then(test if guard.kept else b.not_(test)):
            body.assumed[id(guard.test)] = guard.kept
            self._loop_nest(depth, ivs)
            del body.assumed[id(guard.test)]

    def _reduce_from(self, depth: int, ivs: list) -> None:
        """The loops from dim ``depth`` on, at outer point ``ivs``."""
        if self.guard is not None and depth < self.guard.depth:
            self._in_order(depth, ivs)  # each row reaches the guard (not a blocked run of rows)
            return
        if self.masked is not None and depth == len(self.domain) - 1:
            self._masked_row(depth, ivs)
            return
        trip_count = self.domain[depth]
        merging = self._reassociation(-1) if depth == len(self.domain) - 1 else None
        if merging and reduction.numpy_pairwise(merging, self.op) and self.runs is not None:
            self._selected_runs(depth, ivs, merging)
            return
        if merging and reduction.numpy_pairwise(merging, self.op):  # NumPy's order, any length
            reduction.PairwiseRow(self.b, self.op, self.body, merging, trip_count, ivs,
                                  short=self.tiny).emit()
            return
        if merging and self._worth_blocking(trip_count):
            least = 2 * reduction.lanes_for(self.op.results[-1].type.element)
            self._blocked_unless_short(depth, ivs, least, lambda: reduction.RowReduction(
                self.b, self.op, self.body, merging, trip_count, ivs, below_a_block=self.tiny).emit())
            return
        merging = self._reassociation(-2) if depth == len(self.domain) - 2 else None
        if merging and merging.rounds and not _adds_rows_in_order(merging, self.op) \
                and self._worth_blocking_rows(trip_count):
            # A split kernel sums only the columns of its range (a column's order does not
            # depend on which columns share its tile).
            first, columns = self.bounds if self.split_dim == depth + 1 else (None, self.domain[-1])
            self._blocked_unless_short(depth, ivs, 2 * reduction.STEPS, lambda: reduction.ColumnReduction(
                self.b, self.op, self.body, merging, trip_count, columns, ivs, first).emit())
            return
        self._in_order(depth, ivs)

    def _selected_runs(self, depth: int, ivs: list, merging) -> None:
        """The row at ``ivs`` as NumPy's masked reduce loop sums it (``masked_rows.SelectedRuns``):
        from each kept term, the run of kept terms that starts there summed in NumPy's
        pairwise order over the run alone (``PairwiseRow`` with ``first``, the test known
        there) and added to the result; the terms left out never read."""
        b, runs, n = self.b, self.runs, self.domain[depth]
        combine = self.op.body.terminator.operands[0].op
        one = extent(1)

        def kept_at(position):
            test, = self.body.evaluate_without(ivs + [position], {id(combine)}, [runs.test])
            return test if runs.kept else b.not_(test)

        with b.goto_entry_block():
            start, stop = b.alloca(I64), b.alloca(I64)
        b.store(extent(0), start)
        fn = b.function
        head, seek, scan, scan_test, extend, run, skip, done = (fn.append_basic_block("runs." + s) for s in (
            "head", "seek", "scan", "test", "extend", "run", "skip", "done"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(b.icmp_signed("<", b.load(start), n), seek, done)
        b.position_at_end(seek)
        lo = b.load(start)
        b.store(b.add(lo, one), stop)
        b.cbranch(kept_at(lo), scan, skip)
        b.position_at_end(skip)
        b.store(b.add(lo, one), start)
        b.branch(head)
        b.position_at_end(scan)  # the run's end: the first position past it not kept, or n
        b.cbranch(b.icmp_signed("<", b.load(stop), n), scan_test, run)
        b.position_at_end(scan_test)
        hi = b.load(stop)
        b.cbranch(kept_at(hi), extend, run)
        b.position_at_end(extend)
        b.store(b.add(hi, one), stop)
        b.branch(scan)
        b.position_at_end(run)
        lo, hi = b.load(start), b.load(stop)
        self.body.assumed[id(runs.test)] = runs.kept
        reduction.PairwiseRow(b, self.op, self.body, merging, b.sub(hi, lo), ivs, first=lo,
                              short=self.tiny).emit()
        if runs.half:  # NumPy's float16 total after each run
            at, result = ivs + [extent(0)], self.op.results[0]
            total = self.body.load(len(self.op.operands), at, result)
            self.body.store(len(self.op.operands), at, result,
                            b.fpext(b.fptrunc(total, ll.HalfType()), total.type))
        del self.body.assumed[id(runs.test)]
        b.store(b.load(stop), start)
        b.branch(head)
        b.position_at_end(done)

    def _masked_row(self, depth: int, ivs: list) -> None:
        """The row at ``ivs`` over its window alone (``masked_rows.py``): positions
        ``[lo, hi)``, the affine bounds at ``ivs`` clipped to the dim, with the mask's test known
        there; in lanes from ``lo`` (``RowReduction`` with ``first``) where the reduction runs
        in lanes and the window holds two groups of them, else in order."""
        b, row = self.b, self.masked

        def at(bound):
            return self._affine_value(bound, ivs)

        lo, hi = extent(0), self.domain[depth]
        for bound in row.lowers:
            x = at(bound)
            lo = b.select(b.icmp_signed(">", x, lo), x, lo)
        for bound in row.uppers:
            x = at(bound)
            hi = b.select(b.icmp_signed("<", x, hi), x, hi)
        count = b.select(b.icmp_signed(">", hi, lo), b.sub(hi, lo), extent(0))
        self.body.assumed[id(row.test)] = row.kept

        def in_order():
            emit_loop(b, count, lambda iv: self._loop_nest(depth + 1, ivs + [b.add(iv, lo)]))

        merging = self._reassociation(-1)
        if merging is None:
            in_order()
        elif reduction.numpy_pairwise(merging, self.op):  # NumPy's tree over the window alone
            reduction.PairwiseRow(b, self.op, self.body, merging, count, ivs, first=lo,
                                  short=self.tiny).emit()
        else:
            least = extent(2 * reduction.lanes_for(self.op.results[-1].type.element))
            with b.if_else(b.icmp_signed("<", count, least), likely=False) as (short, long):
                with short:
                    in_order()
                with long:
                    reduction.RowReduction(b, self.op, self.body, merging, count, ivs, first=lo,
                                           below_a_block=self.tiny).emit()
        del self.body.assumed[id(row.test)]

    def _blocked_unless_short(self, depth: int, ivs: list, least: int, blocked) -> None:
        """``blocked()``, the reduction in lanes; but a trip count known only at run time (a
        size-generic kernel's) below ``least`` runs in order, as a known one does
        (``_worth_blocking``): the documented order of a short row or column, bit for bit."""
        trip_count = self.domain[depth]
        if static_value(trip_count) is not None:
            blocked()
            return
        short_count = self.b.icmp_signed("<", trip_count, extent(least))
        with self.b.if_else(short_count, likely=False) as (short, long):
            with short:
                self._in_order(depth, ivs)
            with long:
                blocked()

    def _window_rest(self, depth: int, rest: ll.Value) -> ll.Value:
        """The scan dim's positions after 0 that lie below the window's upper bounds (a
        count of them, at least 0; position 0 runs anyway: rows past a head are unspecified)."""
        b = self.b
        for bound in self.window.uppers[depth]:
            x = b.sub(self._affine_value(bound, []), extent(1))
            rest = b.select(b.icmp_signed("<", x, rest), x, rest)
        return b.select(b.icmp_signed(">", rest, extent(0)), rest, extent(0))

    def _in_order(self, depth: int, ivs: list) -> None:
        """The loop over dim ``depth`` with no reduction in lanes: a scan's, in segments, or a
        plain (maybe ranged) loop."""
        trip_count = self.domain[depth]
        if depth == self.op.scan_dim and static_value(trip_count) != 0:
            # Position 0 from the inits, then positions 1.. in order, each reading the one
            # before it (stored earlier: the other dims run wholly inside or outside this one).
            self.scan_start = True
            self._loop_nest(depth + 1, ivs + [ll.Constant(I64, 0)])
            self.scan_start = False
            one = ll.Constant(I64, 1)
            rest = self._minus(trip_count, 1)
            if self.in_window:  # a head's scan (``_head_window``): positions 1 .. count - 1
                rest = self._window_rest(depth, rest)
            emit_loop(self.b, rest, lambda iv: self._loop_nest(depth + 1, ivs + [self.b.add(iv, one)]))
            return
        if self.breakpoints.get(depth):
            self._segmented_loop(depth, lambda iv: self._loop_nest(depth + 1, ivs + [iv]))
            return
        if self.transposed is not None and depth == len(self.domain) - 2:
            self._tiled(depth, ivs)
            return
        self._range_loop(depth, lambda iv: self._loop_nest(depth + 1, ivs + [iv]))

    def _tiled(self, depth: int, ivs: list) -> None:
        """The last two dims in tiles where the transposed read's rows alias in the cache
        (``transpose_tiles``), else as before."""
        read = self.transposed
        first, rows = extent(0), self.domain[depth]
        if depth == self.split_dim:
            first, hi = self.bounds
            rows = self.b.sub(hi, first)
        transpose_tiles.emit(
            self.b, read, self.body.operands[read.operand].strides[read.axis], rows, self.domain[depth + 1],
            first, lambda i, j: self._loop_nest(depth + 2, ivs + [i, j]),
            lambda: self._range_loop(depth, lambda iv: self._loop_nest(depth + 1, ivs + [iv])))

    def _segmented_loop(self, depth: int, body) -> None:
        """The loop over dim ``depth`` as one loop per segment between its breakpoints, in
        order, each emitted with the segment's range known to the body (a split dim: each
        segment's part of ``[lo, hi)``). An end that is an extent or one step from one (a
        concatenation's ``n``, a pad's ``n + 2``, a roll's or a stencil's ``n - 1``) is its
        run-time value (``Sizes.extent``): the known ranges are this compile's, and so are the
        folds and clamps they decide, which at another size give the same text only where they
        decide the same."""
        b = self.b
        ends = [0, *self.breakpoints[depth], self.sizes.concrete(self.domain[depth])]
        values = [extent(0), *self.sizes.extents(self.breakpoints[depth]), self.domain[depth]]
        for (first, last), (start, stop) in zip(zip(ends, ends[1:]), zip(values, values[1:])):
            self.body.known[depth] = (first, last)
            if depth == self.split_dim:
                lo, hi = self.bounds
                start = b.select(b.icmp_signed(">", lo, start), lo, start)
                stop = b.select(b.icmp_signed("<", hi, stop), hi, stop)
                count = b.select(b.icmp_signed(">", stop, start), b.sub(stop, start), extent(0))
            else:
                count = self._difference(stop, start)
            # An outer segment is not vectorized: with run-time ends LLVM versions it for an
            # empty inner middle segment and vectorizes that version's rows into gathers.
            emit_loop(b, count, lambda iv, start=start: body(b.add(iv, start)),
                      self._interleave(depth, count), vectorize=depth == len(self.domain) - 1)
        del self.body.known[depth]

    def _difference(self, stop: ll.Value, start: ll.Value) -> ll.Value:
        """``stop - start`` of two extents, folded where both are constants."""
        if static_value(stop) is not None and static_value(start) is not None:
            return extent(static_value(stop) - static_value(start))
        return self.b.sub(stop, start)

    def _minus(self, value: ll.Value, n: int) -> ll.Value:
        known = static_value(value)
        return extent(known - n) if known is not None else self.b.sub(value, extent(n))

    def _worth_blocking(self, trip_count: ll.Value) -> bool:
        """A blocked reduction pays once there are two groups of lanes (or the count is known
        only at run time)."""
        known = static_value(trip_count)
        return known is None or known >= 2 * reduction.lanes_for(self.op.results[-1].type.element)

    def _worth_blocking_rows(self, rows: ll.Value) -> bool:
        """Columns are summed in blocks once there are two blocks of rows."""
        known = static_value(rows)
        return known is None or known >= 2 * reduction.STEPS

    def _reassociation(self, dim: int) -> reduction.PerResult | reduction.ArgBest | None:
        """How a reduction along dim ``dim`` (the innermost or, across columns, the one before)
        runs in lanes, reordered as ``reduction`` documents (None: it runs in order). Never for
        a kernel that checks indices: it reports the first bad one in C order (a kernel that
        reads at computed positions it has no check for, a gather fused into its reduction,
        runs in lanes as any other)."""
        if self.op.indexed and kernel.runs_in_order(self.op):
            return None
        return reduction.reassociation(self.op, dim, self.fastmath, self.iterators)


def _collapsed_dims(op: kernel.GenericOp):
    """Adjacent dims that merge into one, so the nest is shallower and its rows longer.

    Reduction dims merge only when every input reads the whole domain contiguously (identity
    maps over inputs shaped like the domain): the lanes then see the whole reduced extent, and
    ``x.sum()`` of a matrix is one row of ``m * n``, not ``m`` row totals added in order (the
    rounding the reduction's schedule is built for). Parallel dims ``d, d+1`` merge wherever
    every operand reads them alike: as two adjacent axes in order with no stride or offset, the
    second of the operand's extent (so the pair's address is one index times the second's
    stride), or not at all. A parallel merge changes no arithmetic, only the loop count: a
    contraction over one axis of a ``(2,) * n`` tensor is a nest of rank 4 (left, 2, 2, right)
    instead of ``n + 1`` loops of 2 each, which LLVM took seconds to unroll (session 50).

    The groups of dims and, per input then per result, its map over them and the operand axes
    each expr covers (an input that reads one element keeps its axes: None); None when nothing
    merges. A function of ``op`` alone."""
    its = list(op.iterator_types)
    if op.scan_dim is not None or any(i >= 0 for i in op.copy_inputs):
        return None
    whole = all(_whole(v, m, op) or _whole_reversed(v, m, op) or _one_element(m)
                for v, m in zip(op.operands, op.input_maps))
    if not whole and (op.indexed or kernel.checks_indices(op)):
        return None
    domain = op.domain()
    shaped = [*zip(op.operands, op.input_maps), *zip(op.results, op.output_maps)]

    def merges(d: int) -> bool:
        if its[d] != its[d + 1] or (its[d] != kernel.PARALLEL and not whole):
            return False
        for v, m in shaped:
            if _one_element(m):
                continue
            at = [k for k, e in enumerate(m.exprs) if e.dim == d]
            after = [k for k, e in enumerate(m.exprs) if e.dim == d + 1]
            if not at and not after:
                continue
            if len(at) != 1 or after != [at[0] + 1]:
                return False
            pair = m.exprs[at[0]:at[0] + 2]
            if v.type.shape[after[0]] != domain[d + 1]:
                return False
            # forwards, or both backwards from their last index (a reversed view: its merged
            # dim read backwards from the pair's last element, NumPy's coalesced axis)
            backwards = all(e.scale == -1 and e.offset == v.type.shape[k] - 1
                            for e, k in zip(pair, (at[0], after[0])))
            if not backwards and any(e.scale != 1 or e.offset for e in pair):
                return False
        return True

    groups: list[list[int]] = []
    for d in range(len(its)):
        if groups and merges(d - 1):
            groups[-1].append(d)
        else:
            groups.append([d])
    if len(groups) == len(its):
        return None
    group_of = {d: g for g, dims in enumerate(groups) for d in dims}
    rewritten = []
    for v, m in shaped:
        if _one_element(m):  # its strides and shape stay; its map takes the merged dims
            rewritten.append((AffineMap(len(groups), m.exprs), None))
            continue
        exprs, axes, k = [], [], 0
        while k < len(m.exprs):
            e = m.exprs[k]
            width = 1 if e.dim is None else len(groups[group_of[e.dim]])
            offset = e.offset
            if e.dim is not None and e.scale == -1 and width > 1:  # from the merged last index
                offset = int(np.prod(v.type.shape[k:k + width], dtype=np.int64)) - 1
            exprs.append(e if e.dim is None else AffineExpr(group_of[e.dim], e.scale, offset))
            axes.append(list(range(k, k + width)))
            k += width
        rewritten.append((AffineMap(len(groups), tuple(exprs)), axes))
    return groups, rewritten[:len(op.operands)], rewritten[len(op.operands):]


def _whole(v, m: AffineMap, op: kernel.GenericOp) -> bool:
    return m.is_identity and v.type.shape == tuple(op.domain())


def _whole_reversed(v, m: AffineMap, op: kernel.GenericOp) -> bool:
    """``v`` read whole with every axis backwards (``a[::-1, ::-1]``): contiguous, backwards."""
    return v.type.shape == tuple(op.domain()) and len(m.exprs) == v.type.rank and all(
        e.dim == k and e.scale == -1 and e.offset == n - 1
        for k, (e, n) in enumerate(zip(m.exprs, v.type.shape)))


def _cuts(op: kernel.GenericOp, strided: list[bool], fastmath: bool, split: bool, sizes: Sizes,
          cut: bool = True) -> tuple:
    """How ``_Schedule`` splits ``op``: its pieces (``full_reduction.Pieces``,
    ``column_pieces.ColumnPieces``, or None) and the op's parallel dims it may split (the
    first is split)."""
    checks = kernel.checks_indices(op)
    split_dims = [i for i, (d, it) in enumerate(zip(op.domain(), op.iterator_types))
                  if split and it == kernel.PARALLEL and d > 1]
    positional = any(isinstance(inner, kernel.IndexOp) for inner in kernel.body_ops(op))
    pieces = (_pieces(op, strided, positional, fastmath, sizes.symbols)
              if split and cut and not split_dims and not checks else None)
    if split and cut and pieces is None and not checks:
        # a run-time cut needs the split dim of columns to fall back on
        pieces = _column_pieces(op, strided, positional, fastmath, sizes.symbols if split_dims else ())
        if pieces is not None and pieces.known_count is not None:
            split_dims = []  # a range of pieces of rows, not of columns (a run-time cut
            # may choose either when it runs: ``_emit_run_time_column_pieces``)
    return pieces, split_dims


def _one_element(m: AffineMap) -> bool:
    """A map that reads one element wherever the iteration is (a broadcast 0-d value, as
    ``var``'s mean in its sum of squares): merging dims leaves it as it is, so the sum is
    rounded in the same order as the sum of the materialised operand."""
    return all(e.dim is None for e in m.exprs)


def _scheduled_domain(op: kernel.GenericOp, strided: list[bool], positional: bool):
    """The domain and iterator kinds as ``_Schedule.__init__`` collapses them (the same test),
    and the op's extents whose product the last collapsed dim is."""
    domain, its = list(op.domain()), list(op.iterator_types)
    last = (domain[-1],)
    collapsed = None if positional or any(strided) or op.clamped else _collapsed_dims(op)
    if collapsed is not None:
        groups = collapsed[0]
        last = tuple(domain[d] for d in groups[-1])
        domain = [int(np.prod([domain[d] for d in dims])) for dims in groups]
        its = [its[dims[0]] for dims in groups]
    return domain, its, last


class _SomeConstant(Sizes):
    """Run-time extents, except ``constants``: those stay the constants they are at this
    compile (loaded with the others, so the kernel's ABI is unchanged, but not used)."""

    def __init__(self, symbols, constants):
        super().__init__(symbols)
        self.constants = tuple(constants)  # found by ==: they may be Extents (extent_guards.py)

    def bind(self, b: ll.IRBuilder, pointer: ll.Value) -> None:
        super().bind(b, pointer)
        for n in self.constants:
            self.values.pop(n, None)

    def _derive(self, n: int):
        return None if n in self.constants else super()._derive(n)


def _with_tiny_rows_constant(op: kernel.GenericOp, strided: list[bool], sizes: Sizes) -> Sizes:
    """``sizes``, but with the extents of a reduced innermost dim of at most ``TINY_ROW``
    elements at this compile as constants. A row that short is reduced in order whatever its
    length (no lanes: ``_worth_blocking``; a run-time one takes ``_blocked_unless_short``'s
    in-order branch), so the constant keeps the order, bit for bit, and lets LLVM unroll the
    row and vectorize the parallel dim around it: 2.8-5.8x on pairwise distances of 500 points
    in 3-d, 2.5-4.6x in 5- to 8-d. The code is then shared only by sizes with that row length:
    ``Sizes`` emits what it is given, and code is reused only for the same LLVM IR text."""
    if not sizes or not op.has_reduction or op.scan_dim is not None or op.indexed:
        return sizes
    positional = any(isinstance(inner, kernel.IndexOp) for inner in kernel.body_ops(op))
    domain, its, row = _scheduled_domain(op, strided, positional)
    if its[-1] != kernel.REDUCTION or domain[-1] > TINY_ROW:
        return sizes
    constants = [n for n in row if n in sizes.symbols]
    return _SomeConstant(sizes.symbols, constants) if constants else sizes


def _with_table_dims_constant(op: kernel.GenericOp, sizes: Sizes) -> Sizes:
    """``sizes``, but with the extents (at most ``TABLE_DIM``) of the dims along which ``op``
    reads an ``array.constant`` as constants. The table's length is the program's, so the dim
    is that length at every size that shares the table: a constant costs no reuse there, and
    lets LLVM count the loops and vectorize them without run-time checks and remainders. A
    short extent that merely equals an argument's (or is one step from one: 8 = 16 rows // 2)
    was a run-time value: numpy.fft's stages of 4096-point rows ran 1.7x slower so. Where
    the table's length follows the size, the text differs and that size compiles again."""
    if not sizes or not sizes.symbols:
        return sizes
    domain = op.domain()
    table_dims = list(getattr(sizes, "constants", ()))  # (a list found by ==: no hash pins an Extent)
    for value, m in zip(op.operands, op.input_maps):
        owner = getattr(value, "op", None)
        if owner is None or owner.op_name != "array.constant" or not isinstance(value.type, TensorType):
            continue
        for n, e in zip(value.type.shape, m.exprs):
            if n > 1 and e.dim is not None and 1 < domain[e.dim] <= TABLE_DIM \
                    and not any(d == domain[e.dim] for d in table_dims):
                table_dims.append(domain[e.dim])
    if len(table_dims) == len(getattr(sizes, "constants", ())):
        return sizes
    return _SomeConstant(sizes.symbols, table_dims)


def _adds_rows_in_order(merging, op: kernel.GenericOp) -> bool:
    """A float sum down columns adds the rows one after another, as NumPy's reduce adds
    row ``i`` to the running row of totals (elementwise, vectorized across the columns); a
    float16 sum or product too, each step rounded to float16 as NumPy's float16 add and
    multiply round it (session 56)."""
    in_order = reduction.numpy_pairwise(merging, op) or _half_fold(merging, op)
    return merging is not None and in_order


def _half_fold(merging, op: kernel.GenericOp) -> bool:
    folds = ("arith.addf", "arith.mulf")
    return (isinstance(merging, reduction.PerResult)
            and all(c.op is not None and c.op.op_name in folds for c in merging.combiners)
            and all(r.type.element.name == "f16" for r in op.results))


def _column_pieces(op: kernel.GenericOp, strided: list[bool], positional: bool,
                   fastmath: bool, symbols: tuple[int, ...] = ()) -> column_pieces.ColumnPieces | None:
    """How a split sum down the columns of a tall matrix whose rows are too short to split
    along the columns is cut into pieces of rows (``column_pieces.py``), or None. A shape
    with one of ``symbols`` (a size-generic kernel's run-time extents), narrow rows and at
    least two blocks of them is cut when the kernel runs, if at all, by its run-time row
    count; its column count stays the compile's (known, a row's few columns are a few vector
    operations; at run time, a loop each, measured 5-25x slower on tall matrices). Fewer rows
    are summed in order (no blocks to cut), as before: a size-generic split along the columns,
    run-time columns and all."""
    if (not op.has_reduction or op.scan_dim is not None or op.indexed or positional or any(strided)
            or op.clamped or any(source >= 0 for source in op.copy_inputs)
            or any(scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op))):
        return None
    domain, its, _ = _scheduled_domain(op, strided, positional)
    if its != [kernel.REDUCTION, kernel.PARALLEL]:
        return None
    merging = reduction.reassociation(op, -2, fastmath, its)
    if _adds_rows_in_order(merging, op):
        return None
    rows, columns = domain
    itemsize = max(numpy_dtype(r.type.element).itemsize for r in op.results)
    if (isinstance(merging, reduction.PerResult) and merging.rounds and rows >= 2 * reduction.STEPS
            and column_pieces.narrow(columns, itemsize) and any(d in symbols for d in op.domain())):
        return column_pieces.ColumnPieces(op, None, columns)
    if (not isinstance(merging, reduction.PerResult) or not merging.rounds or rows < 2 * reduction.STEPS
            or not column_pieces.narrow(columns, itemsize)):
        return None
    pieces = column_pieces.ColumnPieces(op, rows, columns)
    return pieces if pieces.known_count >= 2 else None


def _pieces(op: kernel.GenericOp, strided: list[bool], positional: bool,
            fastmath: bool, symbols: tuple[int, ...] = ()) -> full_reduction.Pieces | None:
    """How a split kernel that reduces to one value per call (every parallel dim of extent 1)
    is cut into pieces, or None: it is not such a kernel, its reduction runs in order, or it
    has fewer than two pieces. A row whose length is one of ``symbols`` (a size-generic
    kernel's run-time extents) is cut when the kernel runs, whatever its length."""
    if not op.has_reduction or op.scan_dim is not None or op.indexed:
        return None
    domain, its, row = _scheduled_domain(op, strided, positional)
    if its[-1] != kernel.REDUCTION or any(d != 1 for d in domain[:-1]):
        return None
    merging = reduction.reassociation(op, -1, fastmath, its)
    if merging is None:
        return None
    if reduction.numpy_pairwise(merging, op):  # NumPy's order: subtrees of its tree
        if masked_row(op) is not None or selected_runs(op) is not None:  # trees of a window or
            return None  # of runs, which pieces do not cut
        if any(d in symbols for d in row):
            return pairwise_pieces.PairwisePieces(op, None)
        cut = pairwise_pieces.PairwisePieces(op, domain[-1])
        return cut if cut.known_count >= 2 else None
    if any(d in symbols for d in row):
        return full_reduction.Pieces(op, None)
    pieces = full_reduction.Pieces(op, domain[-1])
    return pieces if pieces.known_count >= 2 else None


def _head_window(op: kernel.GenericOp) -> WindowUpdate | None:
    """A kernel marked ``head`` (``kernel.HEAD``: a gather or scatter through a compacted
    index array) as a window with no source: dim 0 over ``[0, count)``, ``count`` its input."""
    k = kernel.head_input(op)
    if k is None or not op.iterator_types or op.iterator_types[0] not in (kernel.PARALLEL, kernel.SCAN):
        return None  # (a scan along dim 0: its first count positions, ``_in_order``)
    rank = len(op.iterator_types)
    uppers = (((({Input(k): 1}, 0),),) + ((),) * (rank - 1))
    return WindowUpdate(-1, None, True, ((),) * rank, uppers)



def _splat_fill(source: Value, element) -> ll.Constant | None:
    """The one value of a constant whose elements are all the same (bincount's and a scatter's
    ``np.zeros`` start), as an LLVM constant: the copy that starts a result from it stores
    that value, never reading the constant's buffer (half the memory traffic; zeros become
    a memset). None for any other source, and for complex and bool elements."""
    owner = getattr(source, "op", None)
    if not isinstance(owner, array.ConstantOp) or not owner.value.is_splat:
        return None
    first = owner.value.array.reshape(-1)[0]
    if first.dtype.kind not in "iuf":
        return None
    return constant(element, first.item(), memory=True)
