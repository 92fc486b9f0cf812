"""GEMM epilogues for ``fuse``: a matrix product and its elementwise consumer as one kernel.

``tanh(x @ w + b)`` leaves ``fuse`` as two kernels: the contraction ``C = x @ w`` (a
reduction over k) and an elementwise kernel reading ``C`` and ``b``. ``kernel.generic`` has no
place for work after a reduction, so the fused kernel says it with a scalar loop:

    kernel.generic over (i, j), parallel, operands (x, w: indexed; b: through its map)
      %s = scf.for %k = 0 to K iter_args(%acc = 0.0):
             %acc + kernel.extract x[i, k] * kernel.extract w[k, j]
      ... the consumer's body, with %s where it read C ...

It means what the two kernels mean, so any code generator computes it correctly (a scalar
loop per element, slowly). The CPU's tiled GEMM recognises the form
(``codegen/gemm_epilogue.py``) and applies the consumer's body to each finished panel of
tiles while it is in cache: ``C`` is never written whole and read back. The sum keeps the tiled kernel's own
fixed order, so the fused kernel gives the unfused kernels' bits.

Fused only where that holds and pays (else the two kernels stay):

- the product has one m, one n and one k dim (k of at least 2), float32 or float64, its
  operands read through plain maps (transposes included), and at least
  ``EPILOGUE_MIN_SIDE`` rows and columns: thinner products call BLAS on the CPU
  (``codegen/cpu/gemm.py``'s ``TILED_MIN_SIDE``, kept equal by a test), which takes no
  epilogue; and at least ``EPILOGUE_MIN_COLUMNS`` columns in the result's last axis (measured:
  below, the unfused elementwise kernel was faster);
- the consumer is its only reader, elementwise (no reduction, no indexed, clamped or copied
  operand, not run in order), reads it at its own positions (an identity map over the whole
  result) and has one result of the product's element type (a cast to another type, or a
  comparison, is not fused: the product's partial sums live in that result);
- the consumer computes no ``sin``, ``cos`` or ``tan``: out of their fast range a kernel is
  recomputed with the C library's functions, and a tile cannot be.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineMap
from jitcore.ir.builder import Builder
from jitcore.ir.core import Block, Operation, Region
from jitcore.ir.dialects import kernel, scf
from jitcore.ir.location import fuse as fuse_locations
from jitcore.ir.types import index as index_type
from jitcore.passes.kernelize.linalg import is_float_contraction
from jitcore.passes.kernelize.scalar import ScalarEmitter

# The least rows and columns of a product that takes an epilogue: codegen/cpu/gemm.py's
# TILED_MIN_SIDE (a test keeps them equal; passes may not import codegen).
EPILOGUE_MIN_SIDE = 8
# The least columns (the result's last axis): (h @ w + b - y) * s with h 10000x256 took 1.17 ms
# fused against 0.96 ms unfused at 16 columns, 1.03 against 0.97 at 32, 1.84 against 1.91 at
# 64 (one thread, CPU time, float32, medians of 30, docs/performance.md "Fused GEMM
# epilogues"): below 64 columns the separate elementwise pass over a product that fits in L2
# costs less than the fused panels' epilogue.
EPILOGUE_MIN_COLUMNS = 64
_EXACT_FALLBACK = frozenset({"math.sin", "math.cos", "math.tan"})


def fuse_gemm_epilogues(block: Block) -> bool:
    """Fuse, in ``block``, each matrix product into its elementwise consumer where the rules
    in the module docstring allow; whether anything changed."""
    changed = False
    for op in list(block.ops):
        if op.parent is not block or not _is_matrix_product(op):
            continue
        consumer = _epilogue_consumer(op)
        if consumer is not None:
            _fuse(op, consumer)
            changed = True
    return changed


def _is_matrix_product(op: Operation) -> bool:
    if not isinstance(op, kernel.GenericOp) or not is_float_contraction(op):
        return False
    if op.indexed or op.clamped or any(i >= 0 for i in op.copy_inputs):
        return False
    if op.results[0].type.element.bitwidth not in (32, 64) or len(op.iterator_types) != 3:
        return False
    maps = op.indexing_maps
    if any(len(m.exprs) != 2 or any(e.dim is None or e.scale != 1 or e.offset != 0 for e in m.exprs)
           for m in maps):
        return False
    domain, its = op.domain(), op.iterator_types
    (k,) = [d for d, it in enumerate(its) if it == kernel.REDUCTION] or [None]
    if k is None or domain[k] < 2:
        return False
    a, b, c = ({e.dim for e in m.exprs} for m in maps)
    m_dims, n_dims = a - {k}, b - {k}
    if len(m_dims) != 1 or len(n_dims) != 1 or k not in a or k not in b or c != m_dims | n_dims:
        return False
    columns = op.results[0].type.shape[-1]
    return min(domain[d] for d in c) >= EPILOGUE_MIN_SIDE and columns >= EPILOGUE_MIN_COLUMNS


def _epilogue_consumer(product: kernel.GenericOp) -> kernel.GenericOp | None:
    result = product.results[0]
    users = {id(user): (user, i) for user, i in result.uses}
    if len(users) != 1:
        return None
    ((consumer, i),) = users.values()
    if not isinstance(consumer, kernel.GenericOp) or consumer.parent is not product.parent:
        return None
    if (consumer.has_reduction or consumer.indexed or consumer.clamped or len(consumer.results) != 1
            or any(j >= 0 for j in consumer.copy_inputs) or kernel.runs_in_order(consumer)):
        return None
    if sum(1 for v in consumer.operands if v is result) != 1:
        return None
    if (consumer.results[0].type != result.type or not consumer.input_maps[i].is_identity
            or not consumer.output_maps[0].is_identity or consumer.domain() != result.type.shape):
        return None
    if any(inner.op_name in _EXACT_FALLBACK for inner in consumer.body.ops):
        return None
    return consumer


def _fuse(product: kernel.GenericOp, consumer: kernel.GenericOp) -> kernel.GenericOp:
    """Replace ``consumer`` by the fused kernel (module docstring); erase ``product``."""
    result = product.results[0]
    element = result.type.element
    at = next(i for i, v in enumerate(consumer.operands) if v is result)
    a, b = product.operands
    body = Block([a.type, b.type])
    emit = ScalarEmitter(Builder(body))
    # the product's dims: its written ones are the consumer's dims (C's axes), k the loop's
    out_map = product.output_maps[0]
    k = product.iterator_types.index(kernel.REDUCTION)
    positions = {e.dim: emit.b.create(kernel.IndexOp, [], [index_type], {"dim": axis}).result
                 for axis, e in enumerate(out_map.exprs)}
    bounds = [emit.const(0, index_type), emit.const(product.domain()[k], index_type),
              emit.const(1, index_type)]
    zero = emit.const(product.inits[0].value, element)
    loop_body = Block([index_type, element])
    positions[k] = loop_body.args[0]
    inner = ScalarEmitter(Builder(loop_body))
    values = [inner.b.create(kernel.ExtractOp, [arg, *(positions[e.dim] for e in m.exprs)],
                             [element]).result
              for arg, m in zip(body.args, product.input_maps)]
    mul, add, _ = product.body.ops  # ``acc + x * y``, operands in the product's own order
    x, y, acc = product.body.args
    local = {x: values[0], y: values[1], acc: loop_body.args[1]}
    term = mul.clone(local)
    inner.b.insert(term)
    local[mul.results[0]] = term.results[0]
    total = add.clone(local)
    inner.b.insert(total)
    inner.b.create(scf.YieldOp, [total.results[0]], [])
    loop = emit.b.create(scf.ForOp, [*bounds, zero], [element], None, [Region([loop_body])])
    # the consumer's body after the loop: its block arguments and ops moved in
    old = consumer.body
    old.args[at].replace_all_uses_with(loop.results[0])
    kept = [arg for j, arg in enumerate(old.args) if j != at]
    for j, arg in enumerate(kept, len(body.args)):
        arg.block, arg.index = body, j
    body.args += kept
    for inner_op in old.ops:
        inner_op.parent = body
    body.ops.extend(old.ops)
    old.args, old.ops = [], []
    operands = [a, b, *(v for j, v in enumerate(consumer.operands) if j != at)]
    maps = (AffineMap(2, ()), AffineMap(2, ()),
            *(m for j, m in enumerate(consumer.input_maps) if j != at), consumer.output_maps[0])
    attrs = {"indexing_maps": maps, "iterator_types": consumer.iterator_types,
             "domain": tuple(consumer.domain()), "indexed": (0, 1)}
    fused = Builder.before_op(consumer).insert(
        kernel.GenericOp(operands, consumer.result_types, attrs, [Region([body])]))
    fused.loc = fuse_locations(product.loc, consumer.loc)
    consumer.results[0].replace_all_uses_with(fused.results[0])
    consumer.erase()
    product.erase()
    return fused
