"""``fuse``: fuse producer kernels into their consumers (after ``kernelize``).

The pass takes the kernels that ``kernelize`` made, one per array op, and repeats, until
nothing changes, for each kernel and each of its operands:
  - a splat constant operand becomes an ``arith.constant`` in the body (no memory read);
  - a producer kernel without reduction iterators is inlined into the consumer (its body is
    cloned in, its indexing maps composed with the consumer's) when
      (a) the consumer is the producer's only user and reads each element once
          (its map for that operand uses every iteration dim), or
      (b) the producer is cheap: at most ``max_recompute`` non-constant scalar ops (the pass
          option ``fuse{max-recompute=N}``, 2 by default), so
          recomputing it per consumer and per broadcast element costs less than a round trip
          through memory.
    Otherwise the producer's result is materialised in a buffer.
Rule (b) does not apply to a float contraction (``passes/kernelize/linalg.py``), nor does the
splat rule: into it go only producers that compute nothing (transposes, slices, broadcasts,
which become its maps) or that it reads once (a) (a matrix-vector product's matrix); nor into
a kernel that only moves data into float contractions (the transpose of ``h.T @ g``, which
they absorb next). A matrix product then stays a plain contraction, which a code generator may
run as a BLAS call, and its producers are computed once each instead of once per column.
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

Indexed kernels (gathers and scatters: ``indexed`` operands, ``kernel.check_index``,
``kernel.insert``) stay whole. Such a kernel is never inlined into a consumer: its checks
record the first bad index and its inserts apply in order, so running its body inside another
nest (reordered, or again per consumer or per broadcast element) would change what is recorded
or written; and a gather recomputed per use would read and check its indices again. Into
such a kernel may fuse, by the rules above, producers of the operands it reads through maps
(an index array computed elementwise, a scatter's updates): each value is still computed once
per iteration point, before the checks and writes of that point, in the same order. Its
indexed operands (read at computed positions, or the copy a scatter starts from) are never
fused: they have no map to compose with, so they stay buffers.

Fusion only moves the same scalar ops from one loop into another, so a pipeline without
``fuse`` computes bit-identical results. ``fuse`` converts nothing itself: an array op that
``kernelize`` would have turned into a kernel is a pipeline error (``kernelize`` must come
first), not something to skip silently.
"""

from __future__ import annotations

from jitcore.ir.core import Block, Operation, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.dialects.arith import ConstantOp as ScalarConstantOp
from jitcore.ir.types import index as index_type
from jitcore.passes.kernelize import rule_for
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.linalg import is_float_contraction
from jitcore.passes.manager import Pass, PipelineError, register_pass


@register_pass
class Fuse(Pass):
    """Inline producer kernels into consumers; a producer of at most ``max_recompute`` scalar
    ops is recomputed by each consumer rather than materialised."""

    name = "fuse"
    max_recompute: int = 2

    def __post_init__(self):
        if self.max_recompute < 0:
            raise PipelineError(f"option 'max-recompute' of pass 'fuse' must be >= 0, "
                                f"got {self.max_recompute}")

    def run(self, module: Operation) -> bool:
        changed = False
        for func in module.functions():
            _require_kernels(func.body)
            while _fuse_once(func.body, self.max_recompute):
                changed = True
        return changed


def _require_kernels(block: Block) -> None:
    for op in block.ops:
        if rule_for(op) is not None and not op.regions:  # an scf op its rule left is a host loop
            raise PipelineError(f"pass 'fuse' fuses kernels, but '{op.op_name}' is not one yet: "
                                f"run 'kernelize' before 'fuse' (e.g. 'kernelize,fuse')")


def _fuse_once(block: Block, max_recompute: int) -> bool:
    for consumer in list(block.ops):
        if not isinstance(consumer, kernel.GenericOp):
            continue
        for i, value in enumerate(consumer.operands):
            producer = getattr(value, "op", None)
            splat = (isinstance(producer, array.ConstantOp) and producer.value.is_splat
                     and not is_float_contraction(consumer))
            if i in consumer.copy_inputs or i in consumer.indexed:
                continue  # read whole: a buffer
            if splat or (isinstance(producer, kernel.GenericOp)
                         and _should_inline(producer, consumer, i, max_recompute)):
                _inline(producer, consumer, i)
                return True
    return False


def _should_inline(producer: kernel.GenericOp, consumer: kernel.GenericOp, index: int,
                   max_recompute: int) -> bool:
    if producer.has_reduction or not all(m.is_identity for m in producer.output_maps):
        return False
    if producer.indexed or kernel.runs_in_order(producer):
        return False  # an indexed kernel stays whole (see the module docstring)
    if any(i >= 0 for i in producer.copy_inputs):
        return False  # its body computes only part of its result
    cost = _cost(producer)
    if index in consumer.clamped:  # a pad or concatenate runs every piece at every point: (b) only
        return cost <= max_recompute
    users = {id(op) for r in producer.results for op, _ in r.uses}
    amap = consumer.input_maps[index]
    reads_once = {e.dim for e in amap.exprs if e.dim is not None} == set(range(amap.num_dims))
    if users == {id(consumer)} and reads_once:
        return True
    if cost and (is_float_contraction(consumer) or _feeds_float_contractions(consumer)):
        return False  # recomputed per column it would keep the contraction from a BLAS call
    return cost <= max_recompute


def _cost(op: kernel.GenericOp) -> int:
    """The scalar ops of a kernel's body that compute something."""
    return sum(not isinstance(inner, (ScalarConstantOp, kernel.YieldOp)) for inner in op.body.ops)


def _feeds_float_contractions(op: kernel.GenericOp) -> bool:
    """Whether ``op`` only moves data (a transpose, a slice) into float contractions: it will
    become their maps, so a producer shared with others should not be recomputed inside it."""
    users = [user for r in op.results for user, _ in r.uses]
    return (_cost(op) == 0 and bool(users)
            and all(isinstance(u, kernel.GenericOp) and is_float_contraction(u) for u in users))


def _position(kb: KernelBuilder, e) -> Value:
    """The value of affine expression ``e`` at the consumer's iteration point."""
    if e.dim is None:
        return kb.emit.const(e.offset, index_type)
    pos = kb.index(e.dim)
    if e.scale != 1:
        pos = kb.emit.op("arith.muli", pos, kb.emit.const(e.scale, index_type))
    if e.offset:
        pos = kb.emit.op("arith.addi", pos, kb.emit.const(e.offset, index_type))
    return pos


def _inline(producer: Operation, consumer: kernel.GenericOp, index: int) -> None:
    """Replace ``consumer`` by a kernel that computes operand ``index`` itself."""
    kb = KernelBuilder(len(consumer.iterator_types))
    mapping: dict[Value, Value] = {}
    accumulators = []
    copied = {}
    for i, (v, m) in enumerate(zip(consumer.operands, consumer.input_maps)):
        if i != index:
            source = i in consumer.copy_inputs
            indexed = i in consumer.indexed
            mapping[consumer.body.args[i]] = (kb.indexed_input(v) if indexed else
                                              kb.input(v, m, i in consumer.clamped, copy_source=source))
            if source:
                copied[i] = next(j for j, u in enumerate(kb.operands)
                                 if u is v and kb.maps[j] == m and kb.indexed[j] == indexed)
    target = consumer.body.args[index]
    value = consumer.operands[index]
    if isinstance(producer, array.ConstantOp):
        mapping[target] = kb.input(value, consumer.input_maps[index])
    else:
        outer = consumer.input_maps[index]
        clamp_all = index in consumer.clamped  # see "Clamped reads" in the module docstring
        inner: dict[Value, Value] = {}
        for j, (v, m, arg) in enumerate(zip(producer.operands, producer.input_maps, producer.body.args)):
            inner[arg] = kb.input(v, m.compose(outer), clamp_all or j in producer.clamped)
        for op in producer.body.ops[:-1]:
            if isinstance(op, kernel.IndexOp):
                inner[op.result] = _position(kb, outer.exprs[op.dim])
            else:
                kb.body.append(op.clone(inner))
        yielded = producer.body.terminator.operands[value.index]
        mapping[target] = inner.get(yielded, yielded)
    for acc in consumer.body.args[len(consumer.operands):]:
        mapping[acc] = kb.body.add_arg(acc.type)
        accumulators.append(mapping[acc])
    for op in consumer.body.ops[:-1]:
        kb.body.append(op.clone(mapping))
    yielded = [mapping.get(v, v) for v in consumer.body.terminator.operands]
    n_in = len(consumer.operands)
    indexed_results = [k for k in range(len(consumer.results)) if n_in + k in consumer.indexed]
    new = kb.finish(consumer, consumer.result_types, consumer.output_maps, consumer.iterator_types,
                    yielded, consumer.attributes.get("inits"), accumulators, consumer.domain(),
                    [copied.get(i, -1) for i in consumer.copy_inputs], indexed_results)
    for old, rep in zip(consumer.results, new.results):
        old.replace_all_uses_with(rep)
    consumer.erase()
    if producer is not None and all(not r.uses for r in producer.results):
        producer.erase()
