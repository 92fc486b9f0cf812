"""``KernelBuilder``: the one way a kernelize rule (or fusion) builds a ``kernel.generic``.

It collects the new kernel's operands with their indexing maps (each (value, map) pair once),
gives the body an argument per operand, emits scalar ops through a ``ComplexEmitter``, and
inserts the finished kernel before the op it replaces.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Operation, Region, Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import index as index_type
from jitcore.passes.kernelize.complex import ComplexEmitter


class KernelBuilder:
    """Collects (operand, map) pairs, deduplicated, for a new kernel and its body arguments."""

    def __init__(self, num_dims: int):
        self.num_dims = num_dims
        self.operands: list[Value] = []
        self.maps: list[AffineMap] = []
        self.clamped: list[bool] = []
        self.body = Block()
        self.emit = ComplexEmitter(Builder(self.body))

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
