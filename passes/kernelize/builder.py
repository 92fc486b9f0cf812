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
        self.indexed: list[bool] = []  # read by kernel.extract, not through a map
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
        for i, (v, m, c, x) in enumerate(zip(self.operands, self.maps, self.clamped, self.indexed)):
            if v is value and m == amap and c == clamped and not x:
                return self.body.args[i]
        self.operands.append(value)
        self.maps.append(amap)
        self.clamped.append(clamped)
        self.indexed.append(False)
        return self.body.add_arg(value.type.element)

    def indexed_input(self, value: Value) -> Value:
        """The body argument holding all of ``value``, for ``kernel.extract`` to read (or for a
        result to start as a copy of)."""
        for i, (v, x) in enumerate(zip(self.operands, self.indexed)):
            if v is value and x:
                return self.body.args[i]
        self.operands.append(value)
        self.maps.append(AffineMap(self.num_dims, ()))
        self.clamped.append(False)
        self.indexed.append(True)
        return self.body.add_arg(value.type)

    def extract(self, tensor: Value, positions) -> Value:
        """The element of the indexed input ``tensor`` at ``positions`` (in range)."""
        return self.emit.b.create(kernel.ExtractOp, [tensor, *positions], [tensor.type.element]).result

    def check_index(self, i: Value, axis: int, size: int) -> Value:
        """The i64 index ``i`` into a dim of ``size`` as an in-range position (see kernel.py)."""
        return self.emit.b.create(kernel.CheckIndexOp, [i], [index_type], {"axis": axis, "size": size}).result

    def insert(self, value: Value, positions, result: int, mode: str) -> None:
        """Write ``value`` into the indexed result ``result`` at ``positions``, by ``mode``."""
        self.emit.b.create(kernel.InsertOp, [value, *positions], [], {"result": result, "mode": mode})

    def index(self, dim: int) -> Value:
        """The iteration position along ``dim`` inside the body."""
        return self.emit.b.create(kernel.IndexOp, [], [index_type], {"dim": dim}).result

    def finish(self, at: Operation, result_types, output_maps, iterators, yielded, inits=None,
               accumulators=(), domain=None, copy_inputs=None, indexed_results=()) -> kernel.GenericOp:
        """Insert the kernel before ``at``; ``accumulators`` are body args made for reductions;
        ``indexed_results`` are written by ``kernel.insert`` only (their maps have no exprs)."""
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
        indexed = [i for i, x in enumerate(self.indexed) if x]
        indexed += [len(self.operands) + k for k in indexed_results]
        if indexed:
            attrs["indexed"] = tuple(indexed)
        op = kernel.GenericOp(self.operands, result_types, attrs, [Region([self.body])])
        return Builder.before_op(at).insert(op)
