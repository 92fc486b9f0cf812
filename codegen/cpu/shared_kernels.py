"""Kernels that differ only in where they start reading share one compiled function.

A Python loop that runs unrolled (``jitcore/autograph/statements.py``) leaves one kernel per
iteration; ``for i in range(10): s = s + np.sin(x[i]).sum()`` makes ten reductions that read
``x`` through ``(d0) -> (0, d0)``, ``(d0) -> (1, d0)``, ... Each is a few hundred
milliseconds of LLVM, so the compile grows with the trip count while the code is the same but
for one constant. Here each kernel's reads are written as a start plus a map without constant
terms: kernels whose start-free forms print the same (body, maps, extents, element types) and
whose operands have the same layouts are emitted once, from the leader's start-free form, and
every launch calls it through a small function with the kernel's own signature that moves the
operand pointers to their starts (``emit_start_shift``). Addresses are linear in the map's
terms, so the shared code reads exactly the elements each kernel read: the same bits.

Left as they are: reads that are clamped (a pad's pieces: their bounds are the operand's),
indexed (gathers address the whole operand) or copied whole (a slice update's base), reads
backwards (their start is an extent), float contractions (BLAS takes its own offsets), sorts,
and kernels of row groups or folded producers (emitted with their partners).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen.contraction import match_contraction
from jitcore.codegen.extent_guards import ByEquality
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, memory_type
from jitcore.codegen.loops import Sizes, element_pointer
from jitcore.ir.attributes import AffineExpr, AffineMap
from jitcore.ir.dialects import kernel
from jitcore.ir.printer import print_op

SHARE = True  # False: every kernel its own function (the tests compare the two)


@dataclass
class Shared:
    """A launch whose kernel is shared: the leader's launch index, its start-free maps (which
    the leader's kernel is emitted with) and, per operand, the constant start of each axis."""

    leader: int
    maps: tuple[AffineMap, ...]
    starts: tuple[tuple[int, ...], ...]


def _start_free(op: kernel.GenericOp) -> tuple[tuple[AffineMap, ...], tuple[tuple[int, ...], ...]]:
    """``op``'s indexing maps with the constant terms of its plain reads taken out, and those
    terms per operand (``()`` for a read kept as it is)."""
    keep = set(op.clamped) | set(op.indexed) | {i for i in op.copy_inputs if i >= 0}
    maps, starts = list(op.indexing_maps), []
    for i, amap in enumerate(op.input_maps):
        if i in keep or any(e.scale < 0 for e in amap.exprs):
            starts.append(())
            continue
        starts.append(tuple(e.offset for e in amap.exprs))
        maps[i] = AffineMap(amap.num_dims, tuple(AffineExpr(e.dim, e.scale if e.dim is not None else 1, 0)
                                                 for e in amap.exprs))
    return tuple(maps), tuple(starts)


@contextlib.contextmanager
def maps_swapped(op: kernel.GenericOp, maps: tuple[AffineMap, ...]):
    """``op`` with ``maps`` as its indexing maps for the ``with`` block (printed or emitted in
    its start-free form), its own put back after."""
    saved = op.attributes["indexing_maps"]
    op.attributes["indexing_maps"] = maps
    try:
        yield op
    finally:
        op.attributes["indexing_maps"] = saved


def _self_contained(op: kernel.GenericOp) -> bool:
    """Whether ``op``'s body uses only values defined in it (the key prints no outside value)."""
    inside = set()
    for inner in op.walk():
        for region in inner.regions:
            for block in region.blocks:
                inside.update(id(a) for a in block.args)
        inside.update(id(r) for r in inner.results)
    return all(id(v) in inside for inner in op.walk() if inner is not op for v in inner.operands)


def plan_sharing(ops, candidates, layouts_of) -> dict[int, Shared]:
    """Per launch index among ``candidates`` whose kernel another launch shares: how. ``ops``:
    the launches' kernels; ``layouts_of(i)``: what of launch i's operands its code depends on
    besides the op (strided flags, layout classes)."""
    if not SHARE:
        return {}
    # first by what the printed form shows anyway (its operand pattern, result types, iterators)
    # and the layouts: only a kernel with a possible twin is printed, and most have none
    rough = ByEquality()  # (types hold extents: compared, not hashed)
    for i in candidates:
        op = ops[i]
        if (not isinstance(op, kernel.GenericOp) or op.indexed or "sort_axis" in op.attributes
                or match_contraction(op) is not None or not _self_contained(op)):
            continue
        same = tuple(next(j for j, w in enumerate(op.operands) if w is v) for v in op.operands)
        rough.setdefault((same, tuple(r.type for r in op.results), tuple(op.iterator_types), layouts_of(i)),
                         []).append(i)
    groups: dict[tuple, list[int]] = {}
    forms = {}
    for i in (i for members in rough.values() if len(members) > 1 for i in members):
        op = ops[i]
        forms[i] = _start_free(op)
        with maps_swapped(op, forms[i][0]):
            text = print_op(op)
        same = tuple(next(j for j, w in enumerate(op.operands) if w is v) for v in op.operands)
        groups.setdefault((text, same, layouts_of(i)), []).append(i)
    return {i: Shared(members[0], *forms[i]) for members in groups.values() if len(members) > 1
            for i in members}


def emit_start_shift(module: ll.Module, name: str, op: kernel.GenericOp, shared_fn: ll.Function,
                     starts: tuple[tuple[int, ...], ...], strided: list[bool], symbols) -> ll.Function | None:
    """A function with ``shared_fn``'s signature that calls it with each operand's pointer moved
    to its ``starts``; None if the kernel ABI built here does not match ``shared_fn``'s (then
    the launch keeps a kernel of its own)."""
    shaped = [*op.operands, *op.results]
    params = shared_fn.function_type.args
    sized = any(a.name == "sizes" for a in shared_fn.args)
    split = len(params) >= 2 and shared_fn.args[-1].name == "hi"
    extra = sum(1 for t in params if isinstance(t, ll.PointerType)) - len(shaped) - sized
    ranks = sum(v.type.rank for v, s in zip(shaped, strided) if s)
    expected = [ll.PointerType()] * (len(shaped) + extra + sized) + [I64] * (ranks + 2 * split)
    if extra < 0 or [str(t) for t in params] != [str(t) for t in expected]:
        return None
    fn, operands, _, _ = kernel_function(module, name, shaped, strided, extra_pointers=extra,
                                         split=split, sizes=Sizes(symbols) if sized else None)
    b = entry_builder(fn)
    args = list(fn.args)
    for i, (value, start) in enumerate(zip(op.operands, starts)):
        if any(start):
            positions = [ll.Constant(I64, s) for s in start]
            args[i] = element_pointer(b, operands[i].pointer, positions, operands[i].strides,
                                      memory_type(value.type.element))
    b.call(shared_fn, args)
    b.ret_void()
    return fn
