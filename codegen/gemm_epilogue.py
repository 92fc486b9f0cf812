"""Recognising a matrix product with a fused epilogue (``passes/gemm_epilogue.py``), for any target.

The fused kernel runs over the result's two dims and reads the product's operands as indexed
inputs: its body is a scalar ``scf.for`` over k summing ``kernel.extract`` products from 0,
then the consumer's elementwise body on that sum. ``match_fused_product`` takes it apart into
the two kernels it was made of, detached (never inserted into a function), so that a target
emits them with the code it has for each: ``product``, a plain contraction over ``(d0, d1,
k = d2)`` whose result is the fused kernel's result, and ``epilogue``, the elementwise kernel
over ``(d0, d1)`` that reads that result (operand 0) and the fused kernel's other inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

from jitcore.codegen.contraction import Contraction, match_contraction
from jitcore.ir.attributes import AffineExpr, AffineMap
from jitcore.ir.core import Block, Operation, Region, Value
from jitcore.ir.dialects import kernel, scf


@dataclass(frozen=True)
class FusedProduct:
    """A fused kernel's two parts (module docstring) and the product's roles."""

    product: kernel.GenericOp
    epilogue: kernel.GenericOp
    contraction: Contraction


def match_fused_product(op: Operation) -> FusedProduct | None:
    """``op``'s product and epilogue if it is a matrix product with a fused epilogue."""
    if (not isinstance(op, kernel.GenericOp) or op.indexed != (0, 1) or len(op.results) != 1
            or len(op.operands) < 2 or op.clamped or op.copy_inputs != (-1,)
            or op.iterator_types != (kernel.PARALLEL, kernel.PARALLEL)):
        return None
    body = op.body
    loops = [inner for inner in body.ops if isinstance(inner, scf.ForOp)]
    if len(loops) != 1:
        return None
    loop = loops[0]
    tensors = {id(body.args[0]), id(body.args[1])}
    for inner in body.ops:  # only the loop reads the matrices, and nothing else loops
        if inner is not loop and (inner.regions or any(
                id(v) in tensors for nested in inner.walk() for v in nested.operands)):
            return None
    product = _product(op, loop)
    if product is None:
        return None
    c = match_contraction(product)
    if c is None or c.batch or len(c.m) != 1 or len(c.n) != 1 or len(c.k) != 1 or 0 in c.domain:
        return None
    return FusedProduct(product, _epilogue(op, loop, product.results[0]), c)


def _constant(value: Value):
    producer = getattr(value, "op", None)
    if producer is None or producer.op_name != "arith.constant":
        return None
    return producer.attributes["value"]


def _product(op: kernel.GenericOp, loop: scf.ForOp) -> kernel.GenericOp | None:
    """The contraction the loop computes, over ``(d0, d1, d2)`` with k as ``d2``."""
    bounds = [_constant(v) for v in (loop.lower, loop.upper, loop.step)]
    init = _constant(loop.inits[0]) if len(loop.inits) == 1 else None
    if None in bounds or init is None or [bounds[0].value, bounds[2].value] != [0, 1]:
        return None
    element = op.results[0].type.element
    if init.type != element or init.value != 0 or bounds[1].value < 1:
        return None
    iv, acc = loop.body.args
    ops = loop.body.ops
    extracts = [inner for inner in ops if isinstance(inner, kernel.ExtractOp)]
    if len(ops) != 5 or len(extracts) != 2:
        return None
    mul, add = [inner for inner in ops[:-1] if not isinstance(inner, kernel.ExtractOp)]
    yielded = ops[-1]
    reads = {id(e.results[0]): e for e in extracts}
    if ((mul.op_name, add.op_name) != ("arith.mulf", "arith.addf")
            or {id(v) for v in mul.operands} != set(reads) or len(reads) != 2
            or {id(v) for v in add.operands} != {id(acc), id(mul.results[0])}
            or list(yielded.operands) != [add.results[0]]):
        return None
    dims = {id(iv): 2}
    for inner in op.body.ops:
        if isinstance(inner, kernel.IndexOp):
            dims[id(inner.result)] = inner.dim
    maps = {}
    for e in extracts:
        tensor, *positions = e.operands
        which = [j for j in (0, 1) if tensor is op.body.args[j]]
        if not which or any(id(p) not in dims for p in positions):
            return None
        maps[which[0]] = AffineMap(3, tuple(AffineExpr(dims[id(p)]) for p in positions))
    if len(maps) != 2:
        return None
    domain = (*op.domain(), bounds[1].value)
    new = Block([element, element, element])
    x, y, total = new.args
    by_read = {id(extract.results[0]): new.args[0 if extract.operands[0] is op.body.args[0] else 1]
               for extract in extracts}
    local = {acc: total}
    for v in mul.operands:
        local[v] = by_read[id(v)]
    new.append(mul.clone(local))
    new.append(add.clone(local))
    new.append(kernel.YieldOp([local[add.results[0]]], [], None))
    attrs = {"indexing_maps": (maps[0], maps[1], AffineMap(3, (AffineExpr(0), AffineExpr(1)))),
             "iterator_types": (kernel.PARALLEL, kernel.PARALLEL, kernel.REDUCTION),
             "domain": domain, "inits": (init,)}
    return kernel.GenericOp(list(op.operands[:2]), op.result_types, attrs, [Region([new])])


def _epilogue(op: kernel.GenericOp, loop: scf.ForOp, product: Value) -> kernel.GenericOp:
    """The consumer's kernel: ``op``'s body but the loop, reading the product's result."""
    element = op.results[0].type.element
    rest = op.body.args[2:]
    new = Block([element, *(a.type for a in rest)])
    mapping: dict[Value, Value] = {loop.results[0]: new.args[0]}
    mapping.update(zip(rest, new.args[1:]))
    for inner in op.body.ops:
        if inner is not loop:
            new.append(inner.clone(mapping))
    attrs = {"indexing_maps": (AffineMap.identity(2), *op.input_maps[2:], op.output_maps[0]),
             "iterator_types": op.iterator_types, "domain": tuple(op.domain())}
    return kernel.GenericOp([product, *op.operands[2:]], op.result_types, attrs, [Region([new])])
