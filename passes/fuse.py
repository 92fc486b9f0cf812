"""``fuse``: turn ``array`` ops into ``kernel.generic`` loops and fuse producer chains.

Step 1 (kernelize): every elementwise op, ``select``, ``convert``, ``broadcast_in_dim``,
``transpose`` and ``reduce`` becomes one ``kernel.generic``. Broadcasts and transposes are
indexing maps with empty bodies, so they cost nothing once fused. ``array.constant`` and
``array.reshape`` (a view of a contiguous buffer) stay as they are.

Step 2 (fuse), repeated until nothing changes, for each kernel and each of its operands:
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
Reductions, and kernels whose results start as copies of an input (slice updates), are never
inlined into their consumers: their results are materialised. A producer left without users
is erased.

``kernelize`` is step 1 alone, registered as its own pass: one kernel per array op, nothing
fused, every intermediate materialised. It is the baseline that fusion is tested against
(tests/programs): a pipeline with ``kernelize`` in place of ``fuse`` must give bit-identical
results, since fusing only moves the same scalar ops from one loop into another.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Operation, Region, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.dialects.arith import ConstantOp as ScalarConstantOp
from jitcore.ir.types import TensorType
from jitcore.ir.types import index as index_type
from jitcore.passes.manager import Pass, PipelineError, register_pass
from jitcore.passes.scalar_lowering import ScalarEmitter, reduction_init

_ELEMENTWISE = (array.ElementwiseOp, array.SelectOp, array.ConvertOp)

# Kernelization rules that live in other modules: op class -> function(op) returning the
# equivalent kernel.generic inserted before op (see ``kernelizes``).
KERNELIZERS: dict[type, object] = {}


def kernelizes(op_cls: type):
    """Register ``fn(op) -> kernel.GenericOp`` as the kernel form of ``op_cls``."""

    def register(fn):
        KERNELIZERS[op_cls] = fn
        return fn

    return register


@register_pass
class Kernelize(Pass):
    """Step 1 only: each array op becomes its own kernel; no producer is inlined."""

    name = "kernelize"

    def run(self, module: Operation) -> bool:
        changed = False
        for func in module.functions():
            changed |= _kernelize(func.body)
        return changed


@register_pass
class Fuse(Pass):
    """Steps 1 and 2; a producer of at most ``max_recompute`` scalar ops is recomputed by each
    consumer rather than materialised."""

    name = "fuse"
    max_recompute: int = 2

    def __post_init__(self):
        if self.max_recompute < 0:
            raise PipelineError(f"option 'max-recompute' of pass 'fuse' must be >= 0, "
                                f"got {self.max_recompute}")

    def run(self, module: Operation) -> bool:
        changed = Kernelize().run(module)
        for func in module.functions():
            while _fuse_once(func.body, self.max_recompute):
                changed = True
        return changed


class KernelBuilder:
    """Collects (operand, map) pairs, deduplicated, for a new kernel and its body arguments."""

    def __init__(self, num_dims: int):
        self.num_dims = num_dims
        self.operands: list[Value] = []
        self.maps: list[AffineMap] = []
        self.clamped: list[bool] = []
        self.body = Block()
        self.emit = ScalarEmitter(Builder(self.body))

    def input(self, value: Value, amap: AffineMap, clamped: bool = False, copy_source: bool = False) -> Value:
        """The body argument reading ``value`` through ``amap`` (with indices clamped into
        range if ``clamped``); splat constants become body constants, except for an input a
        result starts as a copy of (``copy_source``), which must stay an operand."""
        producer = getattr(value, "op", None)
        if isinstance(producer, array.ConstantOp) and producer.value.is_splat and not copy_source:
            scalar = producer.value.array.reshape(-1)[0].item()
            return self.emit.const(scalar, value.type.element)
        for i, (v, m, c) in enumerate(zip(self.operands, self.maps, self.clamped)):
            if v is value and m == amap and c == clamped:
                return self.body.args[i]
        self.operands.append(value)
        self.maps.append(amap)
        self.clamped.append(clamped)
        return self.body.add_arg(value.type.element)

    def index(self, dim: int) -> Value:
        """The iteration position along ``dim`` inside the body."""
        return self.emit.b.create(kernel.IndexOp, [], [index_type], {"dim": dim}).result

    def finish(self, at: Operation, result_types, output_maps, iterators, yielded, inits=None,
               accumulators=(), domain=None, copy_inputs=None) -> kernel.GenericOp:
        """Insert the kernel before ``at``; ``accumulators`` are body args made for reductions."""
        for acc in accumulators:  # accumulators come after all inputs
            self.body.args.remove(acc)
            self.body.args.append(acc)
        for i, a in enumerate(self.body.args):
            a.index = i
        self.emit.b.create(kernel.YieldOp, list(yielded))
        maps = tuple(self.maps) + tuple(output_maps)
        if domain is None:
            clamped = [i for i, c in enumerate(self.clamped) if c]
            domain = kernel.derive_domain([v.type for v in self.operands], result_types, maps,
                                           len(iterators), clamped)
        attrs = {"indexing_maps": maps, "iterator_types": tuple(iterators), "domain": tuple(domain)}
        if inits is not None:
            attrs["inits"] = tuple(inits)
        if any(self.clamped):
            attrs["clamped"] = tuple(i for i, c in enumerate(self.clamped) if c)
        if copy_inputs is not None and any(i >= 0 for i in copy_inputs):
            attrs["copy_inputs"] = tuple(copy_inputs)
        op = kernel.GenericOp(self.operands, result_types, attrs, [Region([self.body])])
        return Builder.before_op(at).insert(op)


def _kernelize(block: Block) -> bool:
    changed = False
    for op in list(block.ops):
        new = _kernel_for(op)
        if new is not None:
            op.result.replace_all_uses_with(new.result)
            op.erase()
            changed = True
    return changed


def _kernel_for(op: Operation) -> kernel.GenericOp | None:
    """The one-op kernel equivalent to ``op``, inserted before it, or None."""
    if type(op) in KERNELIZERS:
        return KERNELIZERS[type(op)](op)
    out_type: TensorType = op.results[0].type if op.results else None
    if isinstance(op, _ELEMENTWISE):
        rank = out_type.rank
        kb = KernelBuilder(rank)
        args = [kb.input(v, AffineMap.identity(rank)) for v in op.operands]
        if isinstance(op, array.ConvertOp):
            value = kb.emit.convert(args[0], out_type.element)
        else:
            value = kb.emit.elementwise(getattr(op, "kind", "select"), args)
        return kb.finish(op, [out_type], [AffineMap.identity(rank)], ["parallel"] * rank, [value])
    if isinstance(op, (array.BroadcastInDimOp, array.TransposeOp)):
        rank = out_type.rank
        kb = KernelBuilder(rank)
        src = op.operands[0].type
        if isinstance(op, array.BroadcastInDimOp):
            dims = [None if src.shape[i] == 1 and out_type.shape[d] != 1 else d
                    for i, d in enumerate(op.broadcast_dimensions)]
        else:
            dims = [op.permutation.index(axis) for axis in range(src.rank)]
        arg = kb.input(op.operands[0], AffineMap.from_dims(rank, dims))
        return kb.finish(op, [out_type], [AffineMap.identity(rank)], ["parallel"] * rank, [arg])
    if isinstance(op, array.ReduceOp):
        src = op.operands[0].type
        kb = KernelBuilder(src.rank)
        x = kb.input(op.operands[0], AffineMap.identity(src.rank))
        init = reduction_init(op.kind, out_type.element)
        if not op.axes:  # each element combined with the identity once: 0.0 + -0.0 is 0.0
            value = kb.emit.combine(op.kind, kb.emit.const(init.value, init.type), x)
            return kb.finish(op, [out_type], [AffineMap.identity(src.rank)], ["parallel"] * src.rank,
                             [value])
        acc = kb.body.add_arg(out_type.element)
        value = kb.emit.combine(op.kind, acc, x)
        kept = [d for d in range(src.rank) if d not in op.axes]
        iterators = ["reduction" if d in op.axes else "parallel" for d in range(src.rank)]
        return kb.finish(op, [out_type], [AffineMap.from_dims(src.rank, kept)], iterators, [value],
                         inits=[init], accumulators=[acc])
    return None


def _fuse_once(block: Block, max_recompute: int) -> bool:
    for consumer in list(block.ops):
        if not isinstance(consumer, kernel.GenericOp):
            continue
        for i, value in enumerate(consumer.operands):
            producer = getattr(value, "op", None)
            splat = isinstance(producer, array.ConstantOp) and producer.value.is_splat
            if i in consumer.copy_inputs:
                continue
            if splat or (isinstance(producer, kernel.GenericOp)
                         and _should_inline(producer, consumer, i, max_recompute)):
                _inline(producer, consumer, i)
                return True
    return False


def _should_inline(producer: kernel.GenericOp, consumer: kernel.GenericOp, index: int,
                   max_recompute: int) -> bool:
    if producer.has_reduction or not all(m.is_identity for m in producer.output_maps):
        return False
    if any(i >= 0 for i in producer.copy_inputs):
        return False  # its body computes only part of its result
    if index in consumer.clamped or index in consumer.copy_inputs:
        return False  # a clamped read has no affine form; a copy source must be a buffer
    users = {id(op) for r in producer.results for op, _ in r.uses}
    amap = consumer.input_maps[index]
    reads_once = {e.dim for e in amap.exprs if e.dim is not None} == set(range(amap.num_dims))
    cost = sum(not isinstance(op, (ScalarConstantOp, kernel.YieldOp)) for op in producer.body.ops)
    return (users == {id(consumer)} and reads_once) or cost <= max_recompute


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
            mapping[consumer.body.args[i]] = kb.input(v, m, i in consumer.clamped, copy_source=source)
            if source:
                copied[i] = next(j for j, u in enumerate(kb.operands) if u is v and kb.maps[j] == m)
    target = consumer.body.args[index]
    value = consumer.operands[index]
    if isinstance(producer, array.ConstantOp):
        mapping[target] = kb.input(value, consumer.input_maps[index])
    else:
        outer = consumer.input_maps[index]
        inner: dict[Value, Value] = {}
        for j, (v, m, arg) in enumerate(zip(producer.operands, producer.input_maps, producer.body.args)):
            inner[arg] = kb.input(v, m.compose(outer), j in producer.clamped)
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
    new = kb.finish(consumer, consumer.result_types, consumer.output_maps, consumer.iterator_types,
                    yielded, consumer.attributes.get("inits"), accumulators, consumer.domain(),
                    [copied.get(i, -1) for i in consumer.copy_inputs])
    for old, rep in zip(consumer.results, new.results):
        old.replace_all_uses_with(rep)
    consumer.erase()
    if producer is not None and all(not r.uses for r in producer.results):
        producer.erase()
