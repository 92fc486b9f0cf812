"""``fuse``: fuse producer kernels into their consumers (after ``kernelize``).

The pass takes the kernels that ``kernelize`` made, one per array op, and repeats, until
nothing changes, for each kernel and each of its operands:
  - a splat constant operand becomes an ``arith.constant`` in the body (no memory read);
  - a producer kernel without reduction iterators is inlined into the consumer (its body is
    cloned in, its indexing maps composed with the consumer's) when
      (a) the consumer is the producer's only user and reads each element once
          (its map for that operand uses every iteration dim of extent over 1, and no other of its operands
          reads the producer: two shifted reads such as ``v[1:]`` and ``v[:-1]`` would clone
          the body twice, and a chain of such steps, a backward induction unrolled over a
          static range, would double the body at each step), or
      (b) the producer is cheap: at most ``max_recompute`` non-constant scalar ops (the pass
          option ``fuse{max-recompute=N}``, 2 by default), so
          recomputing it per consumer and per broadcast element costs less than a round trip
          through memory.
      (c) the producer computes positions, or tests them, from values read at one element
          and constant integer tables (``_computes_positions``: a window's mask or its rows).
    But (d) a 0-d value read at a traced index (``ends[k]``) that the consumer only compares
    is not inlined: it stays an input read at one element, so a reduction over the window it
    bounds is seen as one (``codegen/masked_rows.py``: ``np.add.reduceat``'s pieces) and runs
    over the window alone, where the element read per point hid the bound.
    Otherwise the producer's result is materialised in a buffer.
Rule (b) does not apply to a float contraction (``passes/kernelize/linalg.py``), nor does the
splat rule: into it go only producers that compute nothing (transposes, slices, broadcasts,
which become its maps) or that it reads once (a) (a matrix-vector product's matrix); nor into
a kernel that only moves data into float contractions (the transpose of ``h.T @ g``, which
they absorb next). A matrix product then stays a plain contraction, which a code generator may
run as a BLAS call, and its producers are computed once each instead of once per column.
Nor does rule (b) apply to a producer of transcendental math (``exp``, ``log``, ...) that a
reduction over rows and a later kernel reading that reduction both read: softmax's
``exp(x - max)``, summed and then divided by the sum, is materialised once instead of computed
twice per element (``_shared_by_row_reduction``; ``fuse{store-shared-math=false}`` turns this
off). The CPU's row groups keep it in the later kernel's output (``codegen/cpu/rowwise.py``).
Nor does it apply to a producer of transcendental math that a float contraction reads beside
another kernel (``_stored_for_a_contraction``): it is stored for the contraction anyway, so
the other reads it rather than computing the math again (the MLP's ``h = tanh(x @ w1 + b1)``).
Reductions, and kernels whose results start as copies of an input (slice updates), are never
inlined into their consumers: their results are materialised. A producer left without users
is erased.

Clamped reads (the pieces of a pad or a concatenate, read everywhere and selected by
position) take producers too, so a shift such as ``np.roll`` or ``np.concatenate([x[3:],
x[:3]])`` is one kernel reading ``x`` through shifted maps, with no slice copied. Such a
producer's body runs at every point of the consumer, in range or not, once per piece, so only
a cheap producer (rule (b)) is inlined there, and each of its reads becomes clamped into its
operand's bounds. Where the consumer selects the piece, the composed position is the one the
producer would have read (in range, the clamp changes nothing); elsewhere the value is
discarded, and clamping keeps the read in bounds (scalar bodies cannot trap: integer division
guards zero).

A producer that reads the array a scatter (``kernel.insert``), or the kernel feeding it,
starts as a copy of is not inlined there (``_reads_copied``): the scatter would read its own
target and could not write in place. Nor is a producer that reads a table ``SEARCH_READS``
times or more a point (a binary search over a histogram's edges): a scatter's loop runs in
order, point after point, where the producer's own loop runs its reads in vectors
(``_searches_for_a_scatter``).

Indexed kernels that check or write (gathers and scatters: ``indexed`` operands,
``kernel.check_index``, ``kernel.insert``) stay whole. Such a kernel is never inlined into a
consumer: its checks record the first bad index and its inserts apply in order, so running its
body inside another nest (reordered, or again per consumer or per broadcast element) would
change what is recorded or written; and a gather recomputed per use would read and check its
indices again. A gather whose positions ``kernelize`` proved in range (``effects.
proved_positions``: window positions, constant tables) has no check: it is a pure read at
computed positions and is inlined by the rules above like any producer, its source becoming
an indexed operand of the consumer (read whole, no map). So a sum over windows,
``sliding_window_view(x, w).sum(-1)`` or ``np.convolve``'s, is one reduction reading ``x``
where the windows lie, with no (n, w) array; ``index_tables.py`` then computes the positions'
constant tables from the kernel's positions, so each window is a contiguous run. Into
such a kernel may fuse, by the rules above, producers of the operands it reads through maps
(an index array computed elementwise, a scatter's updates): each value is still computed once
per iteration point, before the checks and writes of that point, in the same order. Its
indexed operands (read at computed positions, or the copy a scatter starts from) are never
fused: they have no map to compose with, so they stay buffers.

Fusion works within each block: the function's body and, one by one, the blocks of the
``scf`` loops and branches in it (docs/control-flow.md §4). A kernel producer outside a loop
is never inlined into a consumer inside it (that would recompute it at every iteration); one
in the block around an ``scf.if`` (directly, or through more ``scf.if``s) is, by the rules
above, into a consumer in a branch, which runs at most once where the producer runs once
(``_within_branches``): the rest of a loop body after ``if not alive.any(): break`` is such a
branch, and its ``zr * zr`` no longer goes through memory. A splat constant from outside becomes
a body constant, as one from inside does (it costs nothing per iteration), and so does a kernel
that only fills its result with constants (``_fills``).

Compile time grows about linearly with the function: a fused kernel is built by moving the ops
and block arguments of the kernels it replaces into it, never by copying them (a producer with
other users left is the exception, and rule (b) makes it small); the operands of a kernel this
search built are known to be distinct reads, so they are taken over in bulk; and after each
inline the search goes on from the new kernel instead of from the top of the block. Nothing
before that kernel can have become fusable (see ``_fuse_block``), so the decisions, and the IR,
are those of a search from the top. What remains per inline is a pass over the operand list
of the new kernel (a new op is built): a kernel that reads thousands of different slices (a sum
of ``x[i]`` over a long static ``i``) costs time quadratic in that count, at about a
microsecond per operand and inline.

GEMM epilogues (``fuse{gemm-epilogue=false}`` turns them off; ``passes/gemm_epilogue.py``):
once nothing else fuses, a matrix product (a float32 or float64 contraction with one m, one
n and one k dim) whose only reader is an elementwise kernel over its result (``tanh(x @ w +
b)``: the bias add and the tanh, already one kernel) becomes one kernel with it: the product's
sum is a scalar ``scf.for`` over k in the body, reading the two matrices as indexed operands,
and the consumer's body follows it. A code generator that knows the form (the CPU's tiled
GEMM) applies the rest of the body to each finished panel of the product while it is in cache,
so the product is never written to memory and read back. Not fused: products with another
reader (the product would be stored anyway, so the fused kernel saves only the re-read, and
the GPU's and BLAS's products could not take it), a consumer that changes the element type
or reads the product transposed or broadcast, products thinner than
``EPILOGUE_MIN_SIDE`` (BLAS computes them on the CPU: they keep a separate kernel), and
bodies with ``sin``/``cos``/``tan`` (their exact fallback recomputes a whole kernel).

Reduction epilogues (``fuse{reduction-epilogue=false}`` turns them off;
``passes/reduction_epilogue.py``): last, a reduction whose only reader is an elementwise kernel
mapping its result (``np.sqrt(np.sum(d * d, -1))``, ``np.exp(x.max(1))``, a mean's division)
takes that kernel's body as its ``epilogue`` region, applied once per output element after its
row or column is combined: no second pass over the result, no buffer between them.

Fusion only moves the same scalar ops from one loop into another, so a pipeline without
``fuse`` computes bit-identical results. ``fuse`` converts nothing itself: an array op that
``kernelize`` would have turned into a kernel is a pipeline error (``kernelize`` must come
first), not something to skip silently.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, BlockArgument, Operation, Region, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.dialects.arith import ConstantOp as ScalarConstantOp
from jitcore.ir.location import fuse as fuse_locations
from jitcore.ir.types import index as index_type
from jitcore.passes.gemm_epilogue import fuse_gemm_epilogues
from jitcore.passes.index_tables import compute_index_tables
from jitcore.passes.kernelize import locate, rule_for
from jitcore.passes.kernelize.complex import ComplexEmitter
from jitcore.passes.kernelize.linalg import is_float_contraction
from jitcore.passes.manager import Pass, PipelineError, register_pass
from jitcore.passes.reduction_epilogue import fuse_reduction_epilogues


@register_pass
class Fuse(Pass):
    """Inline producer kernels into consumers; a producer of at most ``max_recompute`` scalar
    ops is recomputed by each consumer rather than materialised."""

    name = "fuse"
    max_recompute: int = 2
    # ``fuse{store-shared-math=false}``: recompute such producers as rule (b) says (the bits
    # are the same either way; the tests compare the two)
    store_shared_math: bool = True
    # ``fuse{gemm-epilogue=false}``: a matrix product and its elementwise consumer stay two
    # kernels (the bits are the same either way; see "GEMM epilogues" above)
    gemm_epilogue: bool = True
    # ``fuse{reduction-epilogue=false}``: a reduction and the elementwise kernel that maps its
    # result stay two kernels (the bits are the same either way; see "Reduction epilogues")
    reduction_epilogue: bool = True

    def __post_init__(self):
        if self.max_recompute < 0:
            raise PipelineError(f"option 'max-recompute' of pass 'fuse' must be >= 0, "
                                f"got {self.max_recompute}")

    def run(self, module: Operation) -> bool:
        changed = False
        for func in module.functions():
            _require_kernels(func.body)
            for block in _blocks(func.body):
                changed |= _read_through_unit_reshapes(block)
                changed |= _fuse_block(block, self.max_recompute, self.store_shared_math)
                changed |= compute_index_tables(block)
                if self.gemm_epilogue:
                    changed |= fuse_gemm_epilogues(block)
                if self.reduction_epilogue:
                    changed |= fuse_reduction_epilogues(block)
                for op in block.ops:  # the reads and index ops fusing made stand for their kernel
                    if isinstance(op, kernel.GenericOp):
                        locate(op, op.loc)
        return changed


def _require_kernels(block: Block) -> None:
    for op in block.ops:
        if isinstance(op, kernel.GenericOp):
            continue
        if rule_for(op) is not None and not op.regions:
            raise PipelineError(f"pass 'fuse' fuses kernels, but '{op.op_name}' is not one yet: "
                                f"run 'kernelize' before 'fuse' (e.g. 'kernelize,fuse')")
        for region in op.regions:
            for inner in region.blocks:
                _require_kernels(inner)


def _unit_reshape_map(source: tuple[int, ...], shape: tuple[int, ...]) -> AffineMap | None:
    """For a reshape of ``source`` to ``shape`` that only drops or adds extent-1 axes (an
    integer index: ``x[i]``; a region write's ``cols[:, :, i, j] = v``): the map from
    ``shape``'s indices to ``source``'s (0 on a dropped axis; an added axis, always at 0, is
    not read); None for any other reshape. A kernel reads through one that adds axes only
    as ``_fusable_through`` says (a region write of a slice)."""
    kept_source = [a for a, n in enumerate(source) if n != 1]
    kept_shape = [a for a, n in enumerate(shape) if n != 1]
    if tuple(source) == tuple(shape):
        return None
    if [source[a] for a in kept_source] != [shape[a] for a in kept_shape]:
        return None
    dims = [None] * len(source)
    for a, b in zip(kept_source, kept_shape):
        dims[a] = b
    return AffineMap.from_dims(len(shape), dims)


def _read_through_unit_reshapes(block: Block) -> bool:
    """Make each kernel that reads a reshape dropping extent-1 axes read the
    reshape's source instead, through the composed map: ``np.sin(x[i])``'s kernel then reads
    row ``i``'s slice kernel directly, which the rules below may fuse in (a reshape is not a
    kernel, so nothing fuses across it), and an unrolled loop over ``x[i]`` is one kernel per
    step rather than a copy and a kernel. Reads that are clamped, indexed or copied whole keep
    their reshape."""
    changed = False
    for op in block.ops:
        if not isinstance(op, kernel.GenericOp):
            continue
        keep = set(op.clamped) | set(op.indexed) | set(op.copy_inputs)
        maps, rewritten = list(op.indexing_maps), False
        for i, value in enumerate(op.operands):
            reshape = getattr(value, "op", None)
            if i in keep or not isinstance(reshape, array.ReshapeOp):
                continue
            source = reshape.operands[0]
            unit = _unit_reshape_map(source.type.shape, value.type.shape)
            if unit is None:
                continue
            composed = unit.compose(maps[i])
            if len(value.type.shape) > len(source.type.shape) and not _fusable_through(source, composed, op):
                continue  # a keepdims (softmax's, a reduction's epilogue) keeps its form
            op.set_operand(i, source)
            maps[i] = composed
            rewritten = True
        if rewritten:
            op.attributes["indexing_maps"] = tuple(maps)
            changed = True
    for op in list(block.ops):  # reshapes left without readers
        if isinstance(op, array.ReshapeOp) and not op.results[0].uses:
            op.erase()
    return changed


def _fusable_through(source: Value, amap: AffineMap, op: kernel.GenericOp) -> bool:
    """Whether ``op``, reading ``source`` through ``amap``, should read through a reshape
    that adds axes to it: where ``source`` comes from a kernel without reductions (one that
    fusing may take in) and ``op`` reads along each of its dims of extent over 1 (no
    broadcast). A reduction's keepdims stays a reshape: the row kernels group by that form,
    and a reduction epilogue takes the kernel reading it."""
    producer = getattr(source, "op", None)
    if not isinstance(producer, kernel.GenericOp) or producer.has_reduction:
        return False
    domain = op.domain()
    return {e.dim for e in amap.exprs if e.dim is not None} >= {
        d for d in range(amap.num_dims) if domain[d] != 1}


def _blocks(block: Block):
    """``block``, then the blocks of the regions of its ops (loop bodies, branches), in
    pre-order; kernel bodies hold scalar ops only, so they are not visited."""
    yield block
    for op in list(block.ops):
        if isinstance(op, kernel.GenericOp):
            continue
        for region in op.regions:
            for inner in region.blocks:
                yield from _blocks(inner)


def _fuse_block(block: Block, max_recompute: int, store_shared: bool = True) -> bool:
    """Inline, again and again, the first (consumer, operand) pair of ``block`` that may fuse,
    consumers in block order and operands in order, until no pair may.

    After an inline nothing before the new kernel has become fusable: the kernels before it
    and their producers are the same ops, and their producers' users only changed identity
    (the consumer, or a producer that was erased, became the new kernel), not number. The one
    exception: a consumer that was a float contraction and whose replacement is not, for a
    data-moving kernel that fed only contractions (``_feeds_float_contractions``) may take
    producers it refused before; then the search starts again from the top.
    """
    changed = False
    position = 0
    built: dict[kernel.GenericOp, dict] = {}  # kernels made here -> their reads (see _Assembly)
    in_order: dict[kernel.GenericOp, bool] = {}  # kernel.runs_in_order, which scans a whole body
    while True:
        found = _next_pair(block, position, max_recompute, in_order, store_shared)
        if found is None:
            return changed
        consumer, producer, i = found
        was_contraction = is_float_contraction(consumer)
        consumer_in_order = _runs_in_order(consumer, in_order)
        new = _inline(producer, consumer, i, built)
        in_order[new] = consumer_in_order  # what it takes from the producer never runs in order
        changed = True
        position = block.position(new)
        if was_contraction and not is_float_contraction(new):
            position = 0
            built.clear()  # kernels before ``new`` may be rebuilt, and their operands change


def _runs_in_order(op: kernel.GenericOp, known: dict[kernel.GenericOp, bool]) -> bool:
    if op not in known:
        known[op] = kernel.runs_in_order(op)
    return known[op]


def _next_pair(block: Block, start: int, max_recompute: int, in_order: dict,
               store_shared: bool = True):
    """The first (consumer, producer, operand number) from op ``start`` on that may fuse."""
    ops = block.ops
    for k in range(start, len(ops)):
        consumer = ops[k]
        if not isinstance(consumer, kernel.GenericOp):
            continue
        copies, indexed = consumer.copy_inputs, consumer.indexed
        for i, value in enumerate(consumer.operands):
            producer = getattr(value, "op", None)
            if producer is None or i in copies or i in indexed:
                continue  # an argument, or read whole (a buffer)
            if isinstance(producer, array.ConstantOp):  # a splat from any enclosing block: no work
                if producer.value.is_splat and not is_float_contraction(consumer):
                    return consumer, producer, i
            elif (isinstance(producer, kernel.GenericOp)
                  and (_within_branches(block, producer.parent) or _fills(producer)
                       or _broadcasts_elements(producer))
                  and _should_inline(producer, consumer, i, max_recompute, in_order, store_shared)):
                return consumer, producer, i
    return None


def _reads_copied(producer: kernel.GenericOp, consumer: kernel.GenericOp) -> bool:
    """Whether ``producer`` reads an array that ``consumer``'s result, or that of a kernel
    reading ``consumer``'s (through ``SCATTER_DEPTH`` steps), starts as a copy of (a scatter's
    target: ``x[idx[m]] = v`` reads ``x[0]`` for the case where ``m`` keeps nothing, in the
    values it writes; kept out of its broadcast, that one element is all that is stored). Inlined, the
    scatter would read its own target, and so could not write into it in place
    (``codegen/host.py``, ``taken_over``): a copy of the whole target at every write costs
    far more than the producer's result kept in a buffer (one element there)."""
    copied = set()
    for k in _downstream(consumer, SCATTER_DEPTH):
        # (a kernel that copies no input adds nothing: its body is not searched for writes)
        if isinstance(k, kernel.GenericOp) and any(i >= 0 for i in k.copy_inputs) and _scatters(k):
            copied.update(id(k.operands[i]) for i in k.copy_inputs if i >= 0)
    return bool(copied) and any(id(v) in copied for v in producer.operands)


# How far ``_reads_copied`` follows a consumer's users to the scatter they feed: the gate's
# ``psi[0]`` is read, broadcast, selected into the written values, then scattered into ``psi``.
SCATTER_DEPTH = 3


def _downstream(op: Operation, depth: int) -> list[Operation]:
    """``op`` and the ops reading its results, theirs in turn, up to ``depth`` steps."""
    found, frontier = [op], [op]
    for _ in range(depth):
        frontier = [user for o in frontier for r in o.results for user, _ in r.uses]
        found.extend(frontier)
    return found


def _scatters(k: kernel.GenericOp) -> bool:
    """Whether ``k`` writes its copied result through ``kernel.insert`` (at positions other than
    its own point: a read of the target merged into it may not run in place). An elementwise
    update (``U[1:-1, 1:-1] += 1``) reads each element where it writes it, in place."""
    return any(inner.op_name == "kernel.insert" for inner in kernel.body_ops(k))


def _within_branches(block: Block, outer: Block) -> bool:
    """Whether ``block`` is ``outer`` or lies in it only through ``scf.if`` branches: a kernel
    there runs at most once per run of ``outer``, so a producer in ``outer`` inlined into it is
    computed no more often (a loop's body runs many times: never inlined into from outside).
    The body after ``if not alive.any(): break`` is such a branch."""
    while block is not outer:
        owner = block.parent.parent if block.parent is not None else None
        if owner is None or owner.op_name != "scf.if":
            return False
        block = owner.parent
    return True


def _searches_for_a_scatter(producer: kernel.GenericOp, consumer: kernel.GenericOp) -> bool:
    """Whether ``producer`` reads a table at computed positions (``kernel.extract`` of an
    indexed operand) ``SEARCH_READS`` times or more a point and ``consumer`` scatters: the
    scatter's loop runs in order, one point after another, where the producer's alone runs
    its reads side by side in vectors (gathers). A histogram's bin search over uneven edges,
    6 reads a value: fused into the count, 10^6 values took 12-23 ms; apart, a vectorized
    search and the count (docs/performance.md, Session 54)."""
    if not producer.indexed or not _scatters(consumer):
        return False
    reads = sum(inner.op_name == "kernel.extract" for inner in kernel.body_ops(producer))
    return reads >= SEARCH_READS


# A producer with this many table reads a point is kept out of a scatter (a binary search's
# halvings); one or two reads (a gather, a guessed bin moved by one) are cheaper fused.
SEARCH_READS = 3


def _fills(producer: kernel.GenericOp) -> bool:
    """Whether ``producer`` only fills its result with constants (no operands, no scalar op
    but constants: a broadcast scalar that ``licm`` took out of a loop, ``<= 4.0``'s), or with
    its positions (an ``array.iota`` ramp, ``np.arange(n)``: session 55, where a constant
    table was read in the loop as the position, ``index_tables``): inlined in a loop it costs
    nothing per iteration, or a few integer ops, as a splat constant does, so it is, from any
    enclosing block, where stored it would be read from memory at every iteration."""
    if producer.operands:
        return False
    return _cost(producer, 0) == 0 or (len(producer.results) == 1 and _computes_positions(producer))


def _broadcasts_elements(producer: kernel.GenericOp) -> bool:
    """Whether ``producer`` only broadcasts single elements (each operand read at one element
    for every point, no scalar op: ``U[0, 0]`` broadcast for ``U[0, 0] * a``, which ``licm``
    took out of a loop): inlined in a loop it reads those elements, as a splat constant costs
    nothing, where stored it would be read from memory, an array of them, at every iteration."""
    return (bool(producer.operands) and not producer.indexed and not producer.clamped
            and _cost(producer, 0) == 0
            and all(all(e.dim is None for e in m.exprs) for m in producer.input_maps))


def _should_inline(producer: kernel.GenericOp, consumer: kernel.GenericOp, index: int,
                   max_recompute: int, in_order: dict, store_shared: bool = True) -> bool:
    if producer.has_reduction or not all(m.is_identity for m in producer.output_maps):
        return False
    if any(i >= 0 for i in producer.copy_inputs):
        return False  # a kernel whose result starts as a copy computes only part of it
    if _runs_in_order(producer, in_order):
        return False  # with checks or writes an indexed kernel stays whole (module docstring)
    if _reads_copied(producer, consumer):
        return False
    if _searches_for_a_scatter(producer, consumer):
        return False
    if index == kernel.head_input(consumer):
        return False  # the count that bounds the loop is read before it, never per point
    if _reads_one_element(producer) and _bounds_positions(consumer, index):
        return False  # (d): a window's bound read at a traced index, stored, read as a bound
    cost = _cost(producer, max_recompute)
    if index in consumer.clamped:  # a pad or concatenate runs every piece at every point: (b) only
        return cost <= max_recompute or _selects_pieces_for(producer, consumer, index)
    users = {id(op) for r in producer.results for op, _ in r.uses}
    amap = consumer.input_maps[index]
    # a dim of extent 1 (an axis a reshape added, read through it) repeats nothing
    domain = consumer.domain()
    reads_once = ({e.dim for e in amap.exprs if e.dim is not None}
                  >= {d for d in range(amap.num_dims) if domain[d] != 1}
                  and sum(getattr(v, "op", None) is producer for v in consumer.operands) == 1)
    if users == {id(consumer)} and reads_once:
        return True
    if _computes_positions(producer):
        return True  # (c): a window's positions or mask, seen by the consumer's code generator
    if cost and (is_float_contraction(consumer) or _feeds_float_contractions(consumer)):
        return False  # recomputed per column it would keep the contraction from a BLAS call
    if cost and store_shared and _shared_by_row_reduction(producer):
        return False  # softmax's exp(x - max): computed once, stored, read by both
    if cost and _stored_and_reduced(producer, consumer):
        return False  # IPF's m = m * f; m.sum(axis=1): the sum reads the new m, not the old
    if cost and _stored_for_a_contraction(producer):
        return False  # the MLP's h = tanh(x @ w1 + b1): stored anyway, read, not recomputed
    return cost <= max_recompute


# The integer and boolean ops of a producer that computes positions (rule (c)), and the most
# it may hold: a window's mask in two dims is four compares and three ands.
_POSITION_OPS = frozenset({"kernel.index", "arith.constant", "arith.addi", "arith.subi", "arith.muli",
                           "arith.minsi", "arith.maxsi", "arith.cmpi", "arith.andi", "arith.ori",
                           "arith.xori", "arith.select", "arith.bitcast", "arith.index_cast",
                           "arith.extsi", "arith.shli", "arith.shrsi", "arith.shrui", "kernel.yield"})
# Constants are not counted (fusion gives each use its own): the k-th position of a bit test
# (``bit_positions``) read at a scatter's last kept row and wrapped is 16 ops.
MAX_POSITION_OPS = 16


def _computing_ops(producer: kernel.GenericOp) -> int:
    """The ops of ``producer``'s body other than constants and the yield."""
    return sum(op.op_name not in ("arith.constant", "kernel.yield") for op in producer.body.ops)


def _computes_positions(producer: kernel.GenericOp) -> bool:
    """Whether ``producer`` computes positions or a test of them from values read at one element
    (a traced start or bound) and constant integer tables (``np.arange``, which ``index_tables``
    and ``codegen/masked_rows.py`` read as the position): the mask ``a <= arange(n) < b`` of a
    slice whose bounds come from the data, or ``clip(y, 0, H - h) + arange(h)``, the rows of a
    window at a traced start. Rule (c) recomputes it in every consumer, whatever it costs (a
    few integer ops a point), so each consumer's code generator sees the window in its body (the
    sum and the update of ``data[a:b] /= data[a:b].sum()`` run over ``[a, b)`` alone; a blit
    writes its window in place), where a stored array of positions or of booleans would hide
    it."""
    if producer.clamped or producer.indexed or _computing_ops(producer) > MAX_POSITION_OPS:
        return False
    if any(not (r.type.element.is_integer or r.type.element.is_bool) for r in producer.results):
        return False
    if any(inner.op_name not in _POSITION_OPS for inner in producer.body.ops):
        return False
    varies = any(isinstance(inner, kernel.IndexOp) for inner in producer.body.ops)
    for value, amap in zip(producer.operands, producer.input_maps):
        if all(e.dim is None for e in amap.exprs):
            continue  # one element at every point
        source = getattr(value, "op", None)
        if not (isinstance(source, array.ConstantOp) and value.type.element.is_integer):
            return False
        varies = True
    return varies  # (a value computed once, a bound clamped, is not recomputed per point)


# Scalar math that costs about one instruction: recomputing it is cheaper than a store and a
# load, so a producer of only these is still recomputed by each of its consumers.
_CHEAP_MATH = frozenset({"math.absf", "math.absi", "math.copysign", "math.floor", "math.ceil",
                         "math.trunc", "math.rint", "math.fma", "math.sqrt"})


def _computes_costly_math(producer: kernel.GenericOp) -> bool:
    """Whether ``producer``'s body calls transcendental math (``math.exp``, ``math.tanh``, ...)."""
    return any(op.op_name.startswith("math.") and op.op_name not in _CHEAP_MATH
               for op in producer.body.ops)


def _stored_for_a_contraction(producer: kernel.GenericOp) -> bool:
    """Whether ``producer`` computes transcendental math and is read by a float contraction
    besides another kernel: the contraction takes no computing producer shared with others,
    so the result is stored for it whatever the others do, and each of them reading it costs
    a load where recomputing costs the math again. The MLP's ``h = tanh(x @ w1 + b1)``, read by
    ``h @ w2`` and by ``(g @ w2.T) * (1 - h * h)``: recomputed there, it also left ``x @ w1``
    two readers, so its bias and ``tanh`` could not become the product's epilogue."""
    users = {id(op): op for r in producer.results for op, _ in r.uses}
    return (len(users) > 1 and _computes_costly_math(producer)
            and any(isinstance(u, kernel.GenericOp) and is_float_contraction(u) for u in users.values()))


def _reads_one_element(producer: kernel.GenericOp) -> bool:
    """Whether ``producer`` is a 0-d value computed from an element read at a traced index
    (``ends[k]`` in a loop over pieces)."""
    return not producer.iterator_types and any(op.op_name == "kernel.extract" for op in producer.body.ops)


def _bounds_positions(consumer: kernel.GenericOp, index: int) -> bool:
    """Whether ``consumer`` reads operand ``index`` (0-d) only to compare it with integers: a
    bound of the window of positions it keeps (``codegen/masked_rows.py``)."""
    if consumer.operands[index].type.rank != 0 or index in consumer.indexed:
        return False
    uses = consumer.body.args[index].uses
    return bool(uses) and all(op.op_name == "arith.cmpi" for op, _ in uses)


def _shared_by_row_reduction(producer: kernel.GenericOp) -> bool:
    """Whether ``producer`` computes transcendental math (``math.exp``, ``math.log``, ...) and
    is read both by a reduction over its trailing dims and by another kernel over the same
    domain that reads that reduction's result: softmax's ``e = exp(x - max)``, summed and then
    divided by the sum. Recomputed by both (rule (b)), ``e`` costs two ``exp`` per element;
    materialised, the reduction and the later kernel read it, and ``codegen/cpu/rowwise.py``
    keeps it in the later kernel's output buffer and in cache, so no memory traffic is added."""
    if not _computes_costly_math(producer):
        return False
    domain = producer.domain()
    users = {id(op): op for r in producer.results for op, _ in r.uses}
    kernels = [u for u in users.values() if isinstance(u, kernel.GenericOp) and u.domain() == domain]
    reducers = [u for u in kernels if u.has_reduction and u.iterator_types[0] == kernel.PARALLEL]
    return any(_reads_result_of(user, reducer) for reducer in reducers for user in kernels
               if user is not reducer and not user.has_reduction)


def _stored_and_reduced(producer: kernel.GenericOp, consumer: kernel.GenericOp) -> bool:
    """Whether ``producer``'s result is stored anyway (a loop's yield, the function's return or
    another array op reads it), ``consumer`` reduces it over ``producer``'s own domain, and
    ``producer`` reads an input as large as its result (every dim of extent over 1): then the
    reduction recomputing it would read that input, as many bytes as the stored result, and
    would keep it alive past ``producer``, which could not write over it. IPF's ``m = m *
    f[:, None]; e = m.sum(axis=1)`` in a loop: the sum re-read the old ``m``, so the new one
    took a fresh buffer and was copied into the loop's at each step (the step 2x slower); now
    the new ``m`` is written in place and the CPU's row group (``codegen/cpu/rowwise.py``)
    sums each block of its rows while they are in cache."""
    domain = producer.domain()
    if not consumer.has_reduction or consumer.domain() != domain:
        return False
    if all(isinstance(op, kernel.GenericOp) for r in producer.results for op, _ in r.uses):
        return False
    full = {d for d, n in enumerate(domain) if n != 1}
    return any({e.dim for e in m.exprs if e.dim is not None} >= full
               for v, m in zip(producer.operands, producer.input_maps) if v.type.shape == tuple(domain))


def _reads_result_of(op: Operation, source: Operation, depth: int = 4) -> bool:
    """Whether ``op`` reads a result of ``source``, directly or through at most ``depth``
    reshapes and kernels (``1 / sum`` computed apart, a reshape to keep dims)."""
    for value in op.operands:
        producer = getattr(value, "op", None)
        if producer is source:
            return True
        if (depth and isinstance(producer, (array.ReshapeOp, kernel.GenericOp))
                and _reads_result_of(producer, source, depth - 1)):
            return True
    return False


# The most reads a kernel gets by taking in a producer that only selects pieces: each such
# inline multiplies the reads of a chain of concatenations (a roll over k axes reads 2^k).
MAX_PIECE_READS = 16
_SELECTING = frozenset({"kernel.index", "arith.constant", "arith.cmpi", "arith.andi",
                        "arith.ori", "arith.xori", "arith.select", "kernel.yield"})


def _selects_pieces_for(producer: kernel.GenericOp, consumer: kernel.GenericOp, index: int) -> bool:
    """Whether ``producer`` only picks one of its clamped reads by testing its position (a
    concatenation, a pad, one axis of a multi-axis ``np.roll``), and ``consumer`` reads it at
    the producer's own positions along the dims it tests: inlined, the tests stay plain tests
    of the consumer's positions, which a code generator runs in segments where they are
    constants (``codegen/positions.py``), so the pieces cost no work, only reads. Each output
    element is then written once, with no intermediate array: ``np.roll(x, (1, 2), (0, 1))``
    is one kernel reading ``x`` through four shifted maps."""
    if not producer.clamped or any(op.op_name not in _SELECTING for op in producer.body.ops):
        return False
    if len(consumer.operands) - 1 + len(producer.operands) > MAX_PIECE_READS:
        return False
    outer = consumer.input_maps[index]
    for op in producer.body.ops:
        if isinstance(op, kernel.IndexOp):
            e = outer.exprs[op.dim]
            if e.dim is None or e.scale != 1 or e.offset != 0:
                return False
    return True


def _cost(op: kernel.GenericOp, cap: int) -> int:
    """The scalar ops of a kernel's body that compute something, counted up to ``cap + 1``:
    the rules only compare the cost with 0 and with ``max_recompute``, and a fused body may
    be long."""
    count = 0
    for inner in op.body.ops:
        if not isinstance(inner, (ScalarConstantOp, kernel.YieldOp)):
            count += 1
            if count > cap:
                break
    return count


def _feeds_float_contractions(op: kernel.GenericOp) -> bool:
    """Whether ``op`` only moves data (a transpose, a slice) into float contractions: it will
    become their maps, so a producer shared with others should not be recomputed inside it."""
    users = [user for r in op.results for user, _ in r.uses]
    return (_cost(op, 0) == 0 and bool(users)
            and all(isinstance(u, kernel.GenericOp) and is_float_contraction(u) for u in users))


def _position(emit: ComplexEmitter, e) -> Value:
    """The value of affine expression ``e`` at the consumer's iteration point."""
    if e.dim is None:
        return emit.const(e.offset, index_type)
    pos = emit.b.create(kernel.IndexOp, [], [index_type], {"dim": e.dim}).result
    if e.scale != 1:
        pos = emit.op("arith.muli", pos, emit.const(e.scale, index_type))
    if e.offset:
        pos = emit.op("arith.addi", pos, emit.const(e.offset, index_type))
    return pos


def _key(value: Value, amap, clamped: bool, indexed: bool) -> tuple:
    """What makes two reads one operand: an indexed one reads all of ``value``."""
    return (value, True) if indexed else (value, amap, clamped)


class _Assembly:
    """The operands, maps and body of the kernel that replaces a consumer, in the order the
    kernelize builder would give them: each (operand, map, clamped) read once, a splat constant
    as a body constant. Block arguments and ops are moved in from the kernels being replaced
    rather than copied, so an inline costs the size of the operand lists, not of the bodies."""

    def __init__(self):
        self.block = Block()
        self.emit = ComplexEmitter(Builder(self.block))
        self.operands: list[Value] = []
        self.maps: list = []
        self.clamped: list[bool] = []
        self.indexed: list[bool] = []
        self.seen: dict[tuple, BlockArgument] = {}

    def read(self, arg: BlockArgument | None, value: Value, amap, clamped=False, indexed=False,
             copy_source=False) -> Value:
        """The new body's value for ``value`` read through ``amap``: ``arg`` itself, moved in,
        unless the read is there already or is a splat constant (then ``arg`` is left as it
        is, for the caller to replace). ``arg`` None: a new block argument."""
        producer = getattr(value, "op", None)
        if (not indexed and not copy_source and isinstance(producer, array.ConstantOp)
                and producer.value.is_splat):
            return self.emit.const(producer.value.array.reshape(-1)[0].item(), value.type.element)
        key = _key(value, amap, clamped, indexed)
        found = self.seen.get(key)
        if found is not None:
            return found
        if arg is None:
            arg = BlockArgument(value.type if indexed else value.type.element, self.block, 0)
        self.seen[key] = self._move_arg(arg)
        self.operands.append(value)
        self.maps.append(AffineMap(amap.num_dims, ()) if indexed else amap)
        self.clamped.append(clamped)
        self.indexed.append(indexed)
        return arg

    def take(self, kernel_op: kernel.GenericOp, reads: dict, skip: int = -1) -> None:
        """Move in the inputs of ``kernel_op`` but its operand ``skip``, as ``read`` would,
        given ``reads``: its (operand, map, clamped) reads, each once, none a splat constant,
        to their block arguments. Only the reads that are here already are looked at one by
        one; the rest are taken over in bulk."""
        n = len(kernel_op.operands)
        operands, maps = kernel_op.operands, kernel_op.input_maps
        clamped, indexed = set(kernel_op.clamped), set(kernel_op.indexed)
        args = kernel_op.body.args[:n]
        dropped = {}  # operand number -> the argument here that replaces it, None: skip
        if skip >= 0:
            key = _key(operands[skip], maps[skip], skip in clamped, skip in indexed)
            dropped[skip] = None
            reads.pop(key)
        small, large = sorted((reads, self.seen), key=len)
        for key in [k for k in small if k in large]:
            dropped[reads.pop(key).index] = self.seen[key]
        start = 0
        for j in [*sorted(dropped), n]:  # the operands between two dropped ones, in bulk
            self._move_args(args[start:j])
            self.operands += operands[start:j]
            self.maps += maps[start:j]
            self.clamped += [k in clamped for k in range(start, j)] if clamped else [False] * (j - start)
            self.indexed += [k in indexed for k in range(start, j)] if indexed else [False] * (j - start)
            if j < n and dropped[j] is not None:
                args[j].replace_all_uses_with(dropped[j])
            start = j + 1
        self.seen.update(reads)

    def _move_args(self, args: list[BlockArgument]) -> None:
        base = len(self.block.args)
        for i, arg in enumerate(args, base):
            arg.block, arg.index = self.block, i
        self.block.args += args

    def _move_arg(self, arg: BlockArgument) -> BlockArgument:
        arg.block, arg.index = self.block, len(self.block.args)
        self.block.args.append(arg)
        return arg

    def move_ops(self, ops) -> None:
        for op in ops:
            op.parent = self.block
        self.block.ops.extend(ops)

    def finish(self, consumer: kernel.GenericOp, copy_inputs, accumulators) -> kernel.GenericOp:
        """The new kernel, before ``consumer``, with the consumer's results and iteration."""
        for acc in accumulators:
            self._move_arg(acc)
        maps = tuple(self.maps) + consumer.output_maps
        attrs = {"indexing_maps": maps, "iterator_types": consumer.iterator_types,
                 "domain": tuple(consumer.domain())}
        if consumer.attributes.get("inits") is not None:
            attrs["inits"] = tuple(consumer.attributes["inits"])
        if any(self.clamped):
            attrs["clamped"] = tuple(i for i, c in enumerate(self.clamped) if c)
        if any(i >= 0 for i in copy_inputs):
            attrs["copy_inputs"] = tuple(copy_inputs)
        n_in = len(consumer.operands)
        indexed = [i for i, x in enumerate(self.indexed) if x] if any(self.indexed) else []
        indexed += [len(self.operands) + k for k in range(len(consumer.results))
                    if n_in + k in consumer.indexed]
        if indexed:
            attrs["indexed"] = tuple(indexed)
        if consumer.fills:  # (by result: the operands' renumbering leaves it as it is)
            attrs["fills"] = tuple(consumer.fills)
        head = kernel.head_input(consumer)
        if head is not None:  # the consumer's count, renumbered (a producer's rows come along)
            count = consumer.operands[head]
            at = [j for j, (v, m) in enumerate(zip(self.operands, self.maps))
                  if v is count and all(e.dim is None for e in m.exprs)]
            if at:
                attrs[kernel.HEAD] = at[0]
        op = kernel.GenericOp(self.operands, consumer.result_types, attrs, [Region([self.block])])
        return Builder.before_op(consumer).insert(op)


def _inline(producer: Operation, consumer: kernel.GenericOp, index: int,
            built: dict[kernel.GenericOp, dict]) -> kernel.GenericOp:
    """Replace ``consumer`` by a kernel that computes operand ``index`` itself; return it.

    ``built`` holds the reads of the kernels this search made: their operands are distinct
    reads and none is a splat constant that the body could hold, so such a kernel's operands
    are taken over as they are, without looking at each again (``_Assembly.take``)."""
    out = _Assembly()
    body = consumer.body
    reads = built.pop(consumer, None)
    if reads is not None:
        out.take(consumer, reads, skip=index)
    else:
        for i, (v, m) in enumerate(zip(consumer.operands, consumer.input_maps)):
            if i != index:
                arg = body.args[i]
                new = out.read(arg, v, m, i in consumer.clamped, i in consumer.indexed,
                               i in consumer.copy_inputs)
                if new is not arg:
                    arg.replace_all_uses_with(new)
    copied = {i: next(j for j, u in enumerate(out.operands) if u is consumer.operands[i]
                      and out.maps[j] == consumer.input_maps[i] and out.indexed[j] == (i in consumer.indexed))
              for i in consumer.copy_inputs if i >= 0}
    value = consumer.operands[index]
    if isinstance(producer, array.ConstantOp):
        computed = out.read(None, value, consumer.input_maps[index])
    else:
        computed = _splice_producer(out, producer, value, consumer.input_maps[index],
                                    index in consumer.clamped, built.pop(producer, None))
    body.args[index].replace_all_uses_with(computed)
    accumulators = body.args[len(consumer.operands):]
    body.args = []
    out.move_ops(body.ops)
    body.ops = []
    new = out.finish(consumer, [copied.get(i, -1) for i in consumer.copy_inputs], accumulators)
    new.loc = fuse_locations(producer.loc, consumer.loc)  # as MLIR's FusedLoc
    for old, rep in zip(consumer.results, new.results):
        old.replace_all_uses_with(rep)
    consumer.erase()
    if all(not r.uses for r in producer.results):
        producer.erase()
    built[new] = out.seen
    return new


def _splice_producer(out: _Assembly, producer: kernel.GenericOp, value: Value, outer,
                     clamp_all: bool, reads: dict | None) -> Value:
    """Put ``producer``'s body into ``out``, its reads composed with ``outer`` (the consumer's
    map for ``value``); return the body's value of ``value``. A producer that the consumer
    is the last user of is taken apart (its ops moved); one with other users is copied.
    ``reads``: the producer's, if this search built it."""
    last_use = sum(len(r.uses) for r in producer.results) == 1
    identity = outer.is_identity
    inner: dict[Value, Value] = {}
    body = producer.body
    if last_use and reads is not None and identity and not clamp_all:
        out.take(producer, reads)  # its reads, composed with the identity, are the same
    else:
        for j, (v, m, arg) in enumerate(zip(producer.operands, producer.input_maps, body.args)):
            composed = m if identity else m.compose(outer)
            indexed = j in producer.indexed  # a gather's source, read whole
            read = out.read(arg if last_use else None, v, composed,
                            not indexed and (clamp_all or j in producer.clamped), indexed)
            if read is not arg:
                inner[arg] = read
    if last_use:
        for arg, read in inner.items():
            arg.replace_all_uses_with(read)
        body.args = []
    ops, terminator = body.ops[:-1], body.ops[-1]
    if last_use and identity:
        out.move_ops(ops)  # its index ops read the consumer's dims as they are
        ops = []
    for op in ops:
        if isinstance(op, kernel.IndexOp):
            position = _position(out.emit, outer.exprs[op.dim])
            if last_use:
                op.result.replace_all_uses_with(position)
                op.parent = None
            else:
                inner[op.result] = position
        elif last_use:
            out.move_ops([op])
        else:
            out.block.append(op.clone(inner))
    yielded = terminator.operands[value.index]
    if last_use:
        terminator.drop_operands()
        body.ops = []
        return yielded
    return inner.get(yielded, yielded)
