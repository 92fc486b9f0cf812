"""Kernel forms of ``array.argreduce``, ``array.scan``, ``array.diagonal`` and of the indexed
ops ``array.gather``, ``array.gather_nd`` and ``array.scatter_nd``.

An argreduce is one reduction kernel with two results, the best value so far and its index,
starting from the kind's identity (-inf for argmax of floats, -inf - infj for complex numbers,
the type's minimum for integers, False for bool) and index 0. At each position along the axis
the body takes the element when it is strictly better than the best so far (complex numbers in
NumPy's lexicographic order), or when it is the first NaN (a NaN in either part of a complex
number): a later equal element never
replaces an earlier one (NumPy's first occurrence on ties), and once the best is NaN nothing
replaces it (NumPy's first NaN). Its position comes from ``kernel.index``. An axis of only the
identity value (say all -inf) keeps index 0, which is NumPy's answer too.

A scan is one kernel with a ``scan`` iterator along the axis, whose body combines the
accumulator with the element. It starts from the kind's identity, -0.0 for float sums so that
a leading -0.0 stays -0.0 as in NumPy.

A gather is a kernel over its result whose body loads an index, makes it a position with
``kernel.check_index`` (negative indices wrap; the first out of range is recorded for NumPy's
IndexError and read as 0) and reads ``x`` there with ``kernel.extract``; its other positions
are ``kernel.index``. A scatter is a kernel over its updates whose result starts as a copy of
``x`` and whose body writes each update with ``kernel.insert`` in the op's mode. NumPy reports
the first bad index taking the index arrays one after another, each in C order: with a single
index array the kernel's own C order does that (its first row of the other dims sweeps every
index), so the check sits in its body. With several index arrays, or when the kernel has no
iteration at all (another dim of ``x`` is empty), each index array is first checked by a
kernel of its own, in order, that yields the positions, and the gather or scatter reads those.

A gather whose index array is proved in range and not negative (``effects.proved_positions``:
made of constants by broadcasts, slices and adds, such as ``sliding_window_view``'s window
positions) checks nothing: its body converts each index to a position and reads there. With no
check it cannot raise, and ``fuse`` may inline it into its consumer (a reduction over its
windows) as it would any pure producer.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr, AffineMap, ScalarAttr
from jitcore.ir.core import Value
from jitcore.ir.dialects import kernel
from jitcore.ir.dialects.array import (
    ArgReduceOp,
    ConstantOp,
    DiagonalOp,
    GatherNdOp,
    GatherOp,
    HeadGatherOp,
    HeadRowsOp,
    HeadScatterOp,
    ScanOp,
    ScatterNdOp,
)
from jitcore.ir.types import ScalarType, i1, i64, index
from jitcore.passes.effects import proved_positions
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.complex import ComplexEmitter
from jitcore.passes.kernelize.scalar import reduction_init


def _better(emit: ComplexEmitter, kind: str, x: Value, best: Value) -> Value:
    """i1: ``x`` replaces ``best``: strictly beyond it, or NaN while ``best`` is not. Complex
    numbers go by NumPy's lexicographic order, a NaN in either part counting as NaN."""
    if x.type.is_complex:
        xs, bs = emit.parts(x), emit.parts(best)
        beyond = emit.complex_elementwise("gt" if kind == "max" else "lt", [x, best])
        beyond = emit.op("arith.ori", beyond, emit.has_nan(xs))
        return emit.op("arith.andi", beyond, emit.op("arith.xori", emit.has_nan(bs),
                                                     emit.const(True, i1)))
    if not x.type.is_float:
        return emit.cmp("gt" if kind == "max" else "lt", x, best)
    # ugt/ult also hold when x is NaN; ord(best, best) when best is not NaN.
    beyond = emit.op("arith.cmpf", x, best, result=i1, predicate="ugt" if kind == "max" else "ult")
    return emit.op("arith.andi", beyond, emit.op("arith.cmpf", best, best, result=i1, predicate="ord"))


def argreduce(op: ArgReduceOp) -> kernel.GenericOp:
    """The kernel's first result, the index, replaces the op's; the second is the best value."""
    x = op.operands[0]
    rank, axis, t = x.type.rank, op.axis, x.type.element
    kb = KernelBuilder(rank)
    value = kb.input(x, AffineMap.identity(rank))
    best_index = kb.body.add_arg(i64)
    best = kb.body.add_arg(t)
    emit = kb.emit
    take = _better(emit, op.kind, value, best)
    position = emit.convert(kb.index(axis), i64)
    kept = [d for d in range(rank) if d != axis]
    out_map = AffineMap.from_dims(rank, kept)
    iterators = [kernel.REDUCTION if d == axis else kernel.PARALLEL for d in range(rank)]
    return kb.finish(op, [op.result_type, op.result_type.with_element(t)], [out_map, out_map], iterators,
                    [emit.select(take, position, best_index), emit.select(take, value, best)],
                    inits=[ScalarAttr(0, i64), reduction_init(op.kind, t)],
                    accumulators=[best_index, best], domain=x.type.shape)  # (a splat x is no operand)


def scan_init(kind: str, t: ScalarType) -> ScalarAttr:
    """Where a scan starts: the kind's identity, exact for every first element (-0.0 included)."""
    if kind == "sum" and (t.is_float or t.is_complex):
        return ScalarAttr(complex(-0.0, -0.0) if t.is_complex else -0.0, t)
    return reduction_init(kind, t)


def scan(op: ScanOp) -> kernel.GenericOp:
    x = op.operands[0]
    rank, t = x.type.rank, x.type.element
    kb = KernelBuilder(rank)
    value = kb.input(x, AffineMap.identity(rank))
    if op.kind == "sum" and t == i64 and _all_ones(x):
        # a running count of ones (``data_length.positions``): the position along the axis plus
        # one, the same int64s with nothing carried, so it fuses into its readers (a gather at
        # a selection's positions reads no array of them)
        count = kb.emit.op("arith.addi", kb.emit.convert(kb.index(op.axis), i64), kb.emit.const(1, i64))
        return kb.finish(op, [x.type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank, [count])
    count = op.operands[1] if len(op.operands) == 2 else None
    if count is not None:
        kb.input(count, AffineMap(rank, ()))
    acc = kb.body.add_arg(t)
    iterators = [kernel.SCAN if d == op.axis else kernel.PARALLEL for d in range(rank)]
    out = kb.emit.combine(op.kind, acc, value)
    if t.is_complex and op.kind == "prod":  # (1 + 0j) * x is not x where a part is inf: copy it
        first = kb.emit.cmp("eq", kb.index(op.axis), kb.emit.const(0, index))
        out = kb.emit.select(first, value, out)
    generic = kb.finish(op, [x.type], [AffineMap.identity(rank)], iterators, [out],
                        inits=[scan_init(op.kind, t)], accumulators=[acc])
    return generic if count is None else _head(generic, kb, count)  # (along axis 0)


def _all_ones(x: Value) -> bool:
    """Whether the integer array ``x`` holds ones only: a splat constant, or a kernel without
    operands that yields the constant 1 (a broadcast of one, kernelized before its reader)."""
    producer = getattr(x, "op", None)
    if isinstance(producer, ConstantOp):
        return producer.value.is_splat and producer.value.array.reshape(-1)[0] == 1
    if not (isinstance(producer, kernel.GenericOp) and not producer.operands and len(producer.results) == 1):
        return False
    one = getattr(producer.body.terminator.operands[0], "op", None)
    value = one.attributes.get("value") if one is not None and one.op_name == "arith.constant" else None
    return isinstance(value, ScalarAttr) and type(value.value) is int and value.value == 1


def diagonal(op: DiagonalOp) -> kernel.GenericOp:
    """A diagonal reads the operand through a map that repeats a domain dim."""
    rank = op.result_type.rank
    kb = KernelBuilder(rank)
    value = kb.input(op.operands[0], AffineMap(rank, tuple(AffineExpr(d, 1, 0) for d in op.dims)))
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank, [value])


def _broadcast_map(num_dims: int, first: int, shape: tuple[int, ...], full: tuple[int, ...]) -> AffineMap:
    """An index array of ``shape`` read at dims ``first..`` of a nest whose dims there span
    ``full`` (its size-1 dims broadcast: read at 0)."""
    exprs = tuple(AffineExpr(None, 1, 0) if n == 1 and m != 1 else AffineExpr(first + k, 1, 0)
                  for k, (n, m) in enumerate(zip(shape, full)))
    return AffineMap(num_dims, exprs)


def _checked_indices(at, indices: list[Value], axes, x_shape) -> list[Value]:
    """One kernel per index array, in order before ``at``, yielding its positions checked (as
    i64)."""
    checked = []
    for idx, axis in zip(indices, axes):
        rank = idx.type.rank
        kb = KernelBuilder(rank)
        i = kb.input(idx, AffineMap.identity(rank))
        position = kb.emit.convert(kb.check_index(i, axis, x_shape[axis]), i64)
        new = kb.finish(at, [idx.type], [AffineMap.identity(rank)],
                        [kernel.PARALLEL] * rank, [position])
        checked.append(new.results[0])
    return checked


class _Indexed:
    """The positions in ``x`` that iteration point of a gather result (or scatter update)
    addresses: index arrays for ``axes`` at dims ``first..first+len(B)`` of the nest, the other
    dims of ``x`` in order around them."""

    def __init__(self, at, axes, first: int, x: Value, indices: list[Value], domain: tuple[int, ...],
                 proved: bool = False):
        self.x, self.domain = x, domain
        self.axes, self.first = axes, first
        self.b_shape = tuple(domain[self.first: self.first + indices[0].type.rank])
        self.proved = proved  # every index in [0, size): no check, no wrap
        self.inline_check = proved or (len(indices) == 1 and 0 not in domain)
        self.indices = indices if self.inline_check else _checked_indices(at, indices, axes, x.type.shape)

    def positions(self, kb: KernelBuilder) -> list[Value]:
        rank = len(self.domain)
        b_rank = len(self.b_shape)
        at = {}
        for idx, axis in zip(self.indices, self.axes):
            i = kb.input(idx, _broadcast_map(rank, self.first, idx.type.shape, self.b_shape))
            if self.proved:
                at[axis] = kb.emit.convert(i, index)
            elif self.inline_check:
                at[axis] = kb.check_index(i, axis, self.x.type.shape[axis])
            else:
                at[axis] = kb.emit.convert(i, index)
        others = [d for d in range(rank) if not self.first <= d < self.first + b_rank]
        rest = iter(others)
        return [at[a] if a in at else kb.index(next(rest)) for a in range(self.x.type.rank)]


def positions_proved(op) -> bool:
    """Whether ``op`` is a gather or scatter whose index arrays are proved positions in range
    and not negative (asked before ``kernelize`` turns the index arrays' ops into kernels)."""
    if isinstance(op, GatherOp):
        return proved_positions(op.operands[1], op.operands[0].type.shape[op.axis])
    if isinstance(op, (GatherNdOp, ScatterNdOp)):
        shape = op.operands[0].type.shape
        first = 2 if isinstance(op, ScatterNdOp) else 1
        return all(proved_positions(i, shape[a]) for i, a in zip(op.operands[first:], op.axes))
    return False


def gather_nd(op: GatherNdOp, proved: bool = False) -> kernel.GenericOp:
    """``proved``: ``positions_proved(op)``, asked while the index arrays were array ops."""
    x, indices = op.operands[0], list(op.operands[1:])
    domain = op.result_type.shape
    rank = len(domain)
    indexed = _Indexed(op, op.axes, op.position, x, indices, domain, proved)
    kb = KernelBuilder(rank)
    xt = kb.indexed_input(x)
    value = kb.extract(xt, indexed.positions(kb))
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank,
                     [value], domain=domain)


def scatter_nd(op: ScatterNdOp, proved: bool = False) -> kernel.GenericOp:
    """``proved``: ``positions_proved(op)`` (a window at a clamped traced start, ``canvas[y:y +
    h, x:x + w] = ...``): the positions need no check, and the body's reads of ``x`` at them
    fuse in."""
    x, updates, indices = op.operands[0], op.operands[1], list(op.operands[2:])
    domain = updates.type.shape
    rank = len(domain)
    indexed = _Indexed(op, op.axes, op.position, x, indices, domain, proved)
    kb = KernelBuilder(rank)
    kb.indexed_input(x)  # the result starts as a copy of it
    value = kb.input(updates, AffineMap.identity(rank))
    kb.insert(value, indexed.positions(kb), 0, op.mode)
    return kb.finish(op, [x.type], [AffineMap(rank, ())], [kernel.PARALLEL] * rank, [],
                     domain=domain, copy_inputs=[0], indexed_results=[0])


def gather(op: GatherOp, proved: bool = False) -> kernel.GenericOp:
    """``proved``: ``positions_proved(op)``, asked while the index array was an array op."""
    x, idx = op.operands
    domain = op.result_type.shape
    rank = len(domain)
    indexed = _Indexed(op, (op.axis,), op.axis, x, [idx], domain, proved)  # one index array at ``axis``
    kb = KernelBuilder(rank)
    xt = kb.indexed_input(x)
    value = kb.extract(xt, indexed.positions(kb))
    return kb.finish(op, [op.result_type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank,
                     [value], domain=domain)


def _head(generic: kernel.GenericOp, kb: KernelBuilder, count: Value) -> kernel.GenericOp:
    """Mark ``generic`` to run dim 0 over the run-time ``count`` only (see ``kernel.HEAD``)."""
    generic.attributes[kernel.HEAD] = kb.operands.index(count)
    return generic


def head_gather(op: HeadGatherOp) -> kernel.GenericOp:
    """A gather at positions in range, over the first ``count`` rows (``kernel.HEAD``)."""
    x, idx, count = op.operands
    domain = op.result_type.shape
    rank = len(domain)
    kb = KernelBuilder(rank)
    xt = kb.indexed_input(x)
    i = kb.input(idx, AffineMap.from_dims(rank, [0]))
    kb.input(count, AffineMap(rank, ()), copy_source=True)  # (an operand, even a constant: HEAD names it)
    others = [kb.index(d) for d in range(1, rank)]
    value = kb.extract(xt, [kb.emit.convert(i, index), *others])
    generic = kb.finish(op, [op.result_type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank,
                        [value], domain=domain)
    return _head(generic, kb, count)


def head_rows(op: HeadRowsOp) -> kernel.GenericOp:
    """The values as they are, over the first ``count`` rows: what is fused into it (the
    arithmetic on gathered rows) runs over those only."""
    values, count = op.operands
    rank = values.type.rank
    kb = KernelBuilder(rank)
    x = kb.input(values, AffineMap.identity(rank))
    kb.input(count, AffineMap(rank, ()), copy_source=True)  # (an operand, even a constant: HEAD names it)
    generic = kb.finish(op, [op.result_type], [AffineMap.identity(rank)], [kernel.PARALLEL] * rank,
                        [x], domain=values.type.shape)
    return _head(generic, kb, count)


def head_scatter(op: HeadScatterOp) -> kernel.GenericOp:
    """A scatter at positions in range, in order, over the first ``count`` rows."""
    x, updates, idx, count = op.operands
    domain = updates.type.shape
    rank = len(domain)
    kb = KernelBuilder(rank)
    kb.indexed_input(x)  # the result starts as a copy of it
    value = kb.input(updates, AffineMap.identity(rank))
    i = kb.input(idx, AffineMap.from_dims(rank, [0]))
    kb.input(count, AffineMap(rank, ()), copy_source=True)  # (an operand, even a constant: HEAD names it)
    kb.insert(value, [kb.emit.convert(i, index), *(kb.index(d) for d in range(1, rank))], 0, "set")
    generic = kb.finish(op, [x.type], [AffineMap(rank, ())], [kernel.PARALLEL] * rank, [],
                        domain=domain, copy_inputs=[0], indexed_results=[0])
    return _head(generic, kb, count)


RULES = {ArgReduceOp: argreduce, ScanOp: scan, DiagonalOp: diagonal, GatherOp: gather,
         GatherNdOp: gather_nd, ScatterNdOp: scatter_nd, HeadGatherOp: head_gather, HeadRowsOp: head_rows,
         HeadScatterOp: head_scatter}
