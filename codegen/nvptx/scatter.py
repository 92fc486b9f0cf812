"""Writes at computed positions on every thread: ``y[idx] = v``, ``x.at[idx].add(v)`` on
integers, ``x[2:9:3] = v``, which the CPU runs in C order.

Such a kernel's result starts as a copy of an input, then each point of its domain writes one
element. Two launches replace the one thread that runs it in order:

1. ``scatter`` (the kernel's own launch): every thread copies its share of the input into the
   result (a grid-stride loop over the result's elements); for a ``set`` at computed positions,
   each point also *claims* the element it writes: ``atomicMax(winner[e], point + 1)`` in a
   buffer of one 32-bit word per result element (zero before the launch), where ``point`` is
   the point's C-order position in the domain. Index checks run here, as in a gather
   (``checks.py``: the error of the first bad index, whatever the timing).
2. ``scatter-write``: each point evaluates its value again and writes it:
   - ``set`` at computed positions (``winner``): only the point holding the claim writes, then
     sets the word back to zero (ready for the next launch: only the winner touches it). With
     repeated positions the largest point wins: the CPU's C order, where the last write stays;
   - an integer ``add``, ``sub``, ``max``, ``min``, ``and``, ``or``, ``xor`` of 32 or 64 bits
     (``atomic``): an atomic read-modify-write. These combines are exactly associative and
     commutative, so the order does not change the result;
   - a write through the result's affine map (``x[2:9:3] = v``, ``direct``): a strided slice's
     positions never repeat, so each point stores its value.

Anything else (float accumulation, which must apply repeats in order; several results or
inserts; a body that reads the result, loops or raises) stays ``serial``.
"""

from __future__ import annotations

import math

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import memory_type
from jitcore.codegen.loops import element_pointer, extent
from jitcore.codegen.nvptx import checks
from jitcore.codegen.nvptx.intrinsics import I32
from jitcore.ir.dialects import kernel

WINNER = "winner"
ATOMIC = "atomic"
DIRECT = "direct"
POINT_LIMIT = (1 << 31) - 1  # a claim is point + 1 in a 32-bit word
ATOMIC_MODES = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}


def kind_of(op: kernel.GenericOp) -> str | None:
    """``WINNER``, ``ATOMIC`` or ``DIRECT``: how ``op`` writes on every thread (see the module's
    docstring); None when it must run in order."""
    if (len(op.results) != 1 or op.copy_inputs[0] < 0 or op.has_reduction or op.scan_dim is not None
            or op.clamped):
        return None
    source = op.operands[op.copy_inputs[0]]
    if source.type != op.results[0].type or math.prod(op.domain()) >= POINT_LIMIT:
        return None
    inner = list(kernel.body_ops(op))
    if any(isinstance(i, (kernel.RaiseOp, kernel.ExtractResultOp)) or i.regions for i in inner):
        return None
    inserts = [i for i in inner if isinstance(i, kernel.InsertOp)]
    checked = sum(isinstance(i, kernel.CheckIndexOp) for i in inner)
    if checked and not checks.parallel_checks_fit(op.domain(), checked):
        return None
    if not inserts:
        n_in = len(op.operands)
        return DIRECT if n_in not in op.indexed and _injective(op.indexing_maps[n_in], op.domain()) else None
    if len(inserts) > 1:
        return None
    mode, element = inserts[0].mode, op.results[0].type.element
    if mode == "set":
        return WINNER
    if (element.is_integer and not element.is_bool and element.bitwidth in (32, 64)
            and (mode in ATOMIC_MODES or mode in ("max", "min"))):
        return ATOMIC
    return None


def _injective(indexing_map, domain) -> bool:
    """Whether distinct points of ``domain`` write distinct elements: each dim of extent above 1
    is the dim of one result axis, with a nonzero scale."""
    used = [e.dim for e in indexing_map.exprs if e.dim is not None and e.scale != 0]
    return (len(used) == len(set(used))
            and all(d in used for d, n in enumerate(domain) if n > 1))


def winner_words(op: kernel.GenericOp) -> int:
    """The claim buffer's 32-bit words: one per result element."""
    return max(1, op.results[0].type.size)


def atomic_op(mode: str, element) -> str:
    """LLVM's ``atomicrmw`` operation of an integer insert ``mode``."""
    if mode in ("max", "min"):
        return ("u" if element.is_unsigned else "") + mode
    return ATOMIC_MODES[mode]


class ScatterBody(checks.ParallelCheckBody):
    """``KernelBody`` (with parallel index checks) whose ``kernel.insert`` claims, writes the
    claimed element, or combines atomically: ``role`` is ``"claim"`` or ``"write"``."""

    def __init__(self, *args, role: str, kind: str, winner: ll.Value | None, **kwargs):
        super().__init__(*args, **kwargs)
        self.role, self.kind, self.winner = role, kind, winner

    def insert(self, index: int, positions, value: ll.Value, mode: str) -> None:
        b = self.b
        element = self.op.results[index - len(self.op.operands)].type.element
        elem = memory_type(element)
        if self.kind == ATOMIC:
            if self.role == "write":
                b.atomic_rmw(atomic_op(mode, element), self._at(index, positions, elem), value, "monotonic")
            return
        slot = element_pointer(b, self.winner, positions, self.operands[index].strides, I32)
        me = b.trunc(b.add(self._point(), extent(1)), I32)
        if self.role == "claim":
            b.atomic_rmw("umax", slot, me, "monotonic")
            return
        # relaxed atomic accesses: other points of the element read the word while its winner
        # clears it (they see the winner's number or 0, never their own)
        with b.if_then(b.icmp_unsigned("==", b.load_atomic(slot, "monotonic", 4, typ=I32), me)):
            if element.is_bool:
                value = b.zext(value, elem)
            b.store(value, self._at(index, positions, elem))
            b.atomic_rmw("xchg", slot, ll.Constant(I32, 0), "monotonic")  # only the winner writes it


def emit_prepare(k, kind: str) -> None:
    """The ``scatter`` launch of the ``_Kernel`` ``k``: the copy, and for ``WINNER`` the claims."""
    b, op = k.b, k.op
    start, step = k._global_thread()
    n_in = len(op.operands)
    source, target = k.body.operands[op.copy_inputs[0]], k.body.operands[n_in]
    elem = memory_type(op.results[0].type.element)

    def copy(e):
        value = b.load(b.gep(source.pointer, [e], inbounds=True, source_etype=elem), typ=elem)
        b.store(value, b.gep(target.pointer, [e], inbounds=True, source_etype=elem))

    k._grid_stride(start, step, op.results[0].type.size, copy)
    if kind == WINNER:
        _each_point(k, start, step)


def emit_write(k, kind: str) -> None:
    """The ``scatter-write`` launch: each point's value written (see the module's docstring)."""
    start, step = k._global_thread()
    if kind == DIRECT:
        dims = list(range(len(k.domain)))

        def item(i):
            at = k._position(i, dims)
            ivs = [at[d] for d in dims]
            k.body.store_results(ivs, k.body.evaluate(ivs))

        k._grid_stride(start, step, math.prod(k.domain), item)
        return
    _each_point(k, start, step)


def _each_point(k, start: ll.Value, step: ll.Value) -> None:
    dims = list(range(len(k.domain)))

    def item(i):
        at = k._position(i, dims)
        k.body.evaluate([at[d] for d in dims])

    k._grid_stride(start, step, math.prod(k.domain), item)

