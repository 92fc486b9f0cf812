"""Kernels that differ only in their extents share one compiled function.

A Python loop run unrolled leaves kernels whose body and loops are the same but for their
extents: ``[np.dot(x[:n - k], x[k:]) for k in range(40)]`` is 40 reductions of 40 lengths
(and 40 starts, ``shared_kernels.py``'s part), each a few hundred milliseconds of LLVM. Here
such kernels are emitted the size-generic way (``loops.Sizes``), the extents in which the
group's members differ as run-time values read from a ``sizes`` array of the kernel's own;
``SameCode`` then finds the members whose LLVM text came out the same and keeps one function,
and each launch passes an array of its own extents (``emit_sizes``).

Why it is right: a member emitted with its extents as symbols computes, given its own
values, exactly what its fixed-size kernel computes (every run-time value equals the
constant it replaces: ``Sizes``' contract). A twin whose LLVM text is the same is the same
code, so it too computes the member's kernel from the member's values. Nothing else is
assumed: a member whose text differs (an extent of 0 or 1, which stay constants, a value
that coincides with another extent, a schedule chosen by size) keeps its own function.

Only groups of at least ``MIN_LAUNCHES`` are emitted so: a member's generic code must run as
fast as its fixed-size code (measured in docs/performance.md, "Kernels shared across
extents"), and where launches are few the compile they save is small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen.cpu.schedule import _collapsed_dims
from jitcore.codegen.cpu.shared_kernels import _self_contained, _start_free, maps_swapped
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import Sizes
from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Block
from jitcore.ir.dialects import kernel
from jitcore.ir.printer import print_op
from jitcore.ir.types import TensorType

SHARE = True  # False: every kernel keeps its fixed extents (the tests compare the two)
# The fewest launches of one form that are emitted with run-time extents.
MIN_LAUNCHES = 4


@dataclass
class ExtentShared:
    """A launch emitted with run-time extents: ``symbols``, the values of its extents that
    vary within its group, in the group's order (the kernel's ``sizes`` array starts with
    them); ``op``, the form emitted (the launch's op, or its ``collapsed_twin``), with its
    start-free maps and starts (``shared_kernels._start_free``)."""

    symbols: tuple[int, ...]
    op: kernel.GenericOp
    maps: tuple[AffineMap, ...]
    starts: tuple[tuple[int, ...], ...]

    def kernel_symbols(self, function_symbols: tuple[int, ...]) -> tuple[int, ...]:
        """The kernel's symbols: its own varying extents, then the function's run-time ones."""
        return self.symbols + tuple(s for s in function_symbols if s not in self.symbols)

    def swapped(self):
        """``op`` in its start-free form for the ``with`` block (``maps_swapped``)."""
        return maps_swapped(self.op, self.maps)

    @property
    def shifted(self) -> bool:
        return any(any(s) for s in self.starts)


def collapsed_twin(op: kernel.GenericOp, strided) -> kernel.GenericOp | None:
    """``op`` as its loops run when its adjacent dims merge (``schedule._collapsed_dims``): a
    detached copy over stand-ins of the operands shaped as the merged axes read them, its
    domain the merged extents. The gate layers' contractions over a ``(2,) * n`` state each
    read axis ``q``; merged, they are one nest (gate, sum, middle, 2, right) whose extents
    alone differ. None where the schedule merges nothing or would not merge (strided or
    clamped operands, positions read in the body: ``schedule._scheduled_domain``'s rule)."""
    if (any(strided) or op.clamped
            or any(isinstance(inner, kernel.IndexOp) for inner in kernel.body_ops(op))):
        return None
    collapsed = _collapsed_dims(op)
    if collapsed is None:
        return None
    groups, inputs, outputs = collapsed

    def merged(v, axes):
        if axes is None:
            return v.type
        shape = tuple(math.prod(v.type.shape[a] for a in group) for group in axes)
        return TensorType(shape, v.type.element)

    mapping: dict = {}
    for v, (_, axes) in zip(op.operands, inputs):
        stand_in = mapping.setdefault(v, Block([merged(v, axes)]).args[0])
        if stand_in.type != merged(v, axes):  # one array read through two groupings
            return None
    twin = op.clone(mapping)
    for r, (_, axes) in zip(twin.results, outputs):
        r.type = merged(r, axes)
    domain, its = op.domain(), op.iterator_types
    twin.attributes["domain"] = tuple(math.prod(domain[d] for d in dims) for dims in groups)
    twin.attributes["iterator_types"] = tuple(its[dims[0]] for dims in groups)
    twin.attributes["indexing_maps"] = tuple(m for m, _ in [*inputs, *outputs])
    return twin


def _slots(op: kernel.GenericOp) -> tuple[int, ...]:
    """Every extent the op's text holds: its domain, then each operand's and result's shape."""
    return (*op.domain(), *(n for v in [*op.operands, *op.results] for n in v.type.shape))


def plan_extent_sharing(ops, candidates, layouts_of, strided_of) -> dict[int, ExtentShared]:
    """Per launch index among ``candidates`` that is emitted with run-time extents: how.
    ``layouts_of(i)``: what of launch i's operands its code depends on besides the op;
    ``strided_of(i)``: which of them are strided."""
    if not SHARE:
        return {}
    # A new size's template lowering (``jitcore/emission_reuse.py``) sees its sizes as
    # ``extent_guards.Extent``s: extents are compared here, never printed or hashed (that
    # would pin the template to these sizes), so a new size shares as the first one did.
    # First by what holds no extent: only launches with possible twins go on.
    rough: dict[tuple, list[int]] = {}
    for i in candidates:
        op = ops[i]
        # (a contraction too: its loops, or a library call, come out the same text or not)
        if (not isinstance(op, kernel.GenericOp) or op.indexed or "sort_axis" in op.attributes
                or not _self_contained(op)):
            continue
        shaped = [*op.operands, *op.results]
        same = tuple(next(j for j, w in enumerate(op.operands) if w is v) for v in op.operands)
        # (not the iterators: a reduction along axis q of an nd array merges to one form)
        rough.setdefault((tuple(v.type.rank for v in shaped),
                          tuple(str(v.type.element) for v in shaped), same, layouts_of(i),
                          tuple(inner.name for inner in op.walk())), []).append(i)
    groups: dict[tuple, list[int]] = {}
    forms = {}
    for i in (i for members in rough.values() if len(members) >= MIN_LAUNCHES for i in members):
        op = ops[i]
        form = collapsed_twin(op, strided_of(i)) or op
        forms[i] = (form, *_start_free(form))
        text = _blank_text(form, forms[i][1])
        same = tuple(next(j for j, w in enumerate(form.operands) if w is v) for v in form.operands)
        groups.setdefault((text, same, layouts_of(i)), []).append(i)
    shared = {}
    for members in groups.values():
        if len(members) < MIN_LAUNCHES:
            continue
        slots = {i: _slots(forms[i][0]) for i in members}
        first = slots[members[0]]
        varying = [k for k in range(len(first)) if any(slots[i][k] != first[k] for i in members)]
        if not varying:  # one form, one extent: start sharing's, or the same code already
            continue
        # ``Sizes`` finds a symbol by its value: a member whose varying extent equals another
        # of its extents (a middle of 2 beside a gate of 2), or is 0 or 1 (constants), emits
        # other text; it keeps its fixed extents (and its speed). The rest: the most common
        # pattern of equal extents.
        pattern = {i: _pattern(slots[i], varying) for i in members}
        common = max(pattern.values(), key=list(pattern.values()).count)
        alike = [i for i in members if pattern[i] == common and min(slots[i][k] for k in varying) > 1]
        if len(alike) < MIN_LAUNCHES:
            continue
        for i in alike:
            own: list = []
            for k in varying:
                if not any(slots[i][k] == n for n in own):  # (by ==: an Extent's hash pins it)
                    own.append(slots[i][k])
            shared[i] = ExtentShared(tuple(own), *forms[i])
    return shared


def _blank_text(form: kernel.GenericOp, maps: tuple[AffineMap, ...]) -> str:
    """The text of ``form`` with ``maps``, every extent (its domain, its tensor types' dims)
    printed as 0: a copy over stand-ins, so no extent is read."""
    def blank(t):
        return TensorType((0,) * t.rank, t.element) if isinstance(t, TensorType) else t

    mapping: dict = {}
    for v in form.operands:
        mapping.setdefault(v, Block([blank(v.type)]).args[0])
    copy = form.clone(mapping)
    for r in copy.results:
        r.type = blank(r.type)
    copy.attributes["domain"] = (0,) * len(form.iterator_types)
    copy.attributes["indexing_maps"] = maps
    return print_op(copy)


def _pattern(slots: tuple[int, ...], varying: list[int]) -> tuple[tuple[int, ...], ...]:
    """Per varying slot, the slots of the same value: which extents are one symbol."""
    return tuple(tuple(j for j, n in enumerate(slots) if n == slots[k]) for k in varying)


def emit_sizes(b: ll.IRBuilder, symbols: tuple[int, ...], sizes: Sizes) -> ll.Value:
    """The ``sizes`` array of a launch whose kernel takes ``symbols``: each one's value in the
    entry (a constant, or from the function's run-time extents), on the entry's stack."""
    with b.goto_entry_block():
        array = b.alloca(I64, size=max(1, len(symbols)))
    for k, n in enumerate(symbols):
        b.store(sizes.extent(n), b.gep(array, [ll.Constant(I64, k)], inbounds=True, source_etype=I64))
    return array
