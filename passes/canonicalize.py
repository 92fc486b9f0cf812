"""Canonicalization: fold ops and apply local rewrites until nothing changes.

Folding is each op's own ``fold`` (declared with the op, in ``ir/dialects``); this pass only
drives it: it hands each pure op the constants of its operands and puts the answer in the IR.
The rewrites here are the ones a folder cannot express because they build a new op: chains of
transposes, reshapes, broadcasts and exact conversions collapse into one op, and a power to a
constant exponent becomes the multiplications or division it equals (``_power_of_constant``).
Constant operands
of commutative ops move to the right, so that folders need only look there. All of it is exact,
including for NaN, infinities and -0.0 (DESIGN.md §4).
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr, ScalarAttr, numpy_dtype
from jitcore.ir.core import COMMUTATIVE, PURE, Operation, OpResult, UnregisteredOp, Value
from jitcore.ir.dialects import arith, array
from jitcore.ir.errors import IRError
from jitcore.ir.types import ScalarType, TensorType
from jitcore.passes.constants import CONSTANT_OPS, constant_of
from jitcore.passes.effects import decided_comparison, erasable_when_unused, proved_indices
from jitcore.passes.manager import Pass, register_pass
from jitcore.passes.scf_rules import SCF_RULES

# Significand bits of each float width: the widest integer it holds exactly.
_SIGNIFICAND = {16: 11, 32: 24, 64: 53}


@register_pass
class Canonicalize(Pass):
    name = "canonicalize"

    def run(self, module: Operation) -> bool:
        changed = False
        while True:
            progress = False
            for op in list(module.walk()):
                # (until a rewrite in this sweep, every op walked is still in place: most
                # sweeps change nothing, and asking each op's parents was a fifth of the pass)
                if op is not module and (not progress or _attached(op, module)) and _simplify(op):
                    progress = True
            if not progress:
                return changed
            changed = True


def _attached(op: Operation | None, root: Operation) -> bool:
    """Whether ``op`` is still inside ``root`` (and not erased by an earlier rewrite)."""
    while op is not root:
        if op is None or op.parent is None:
            return False
        op = op.parent_op
    return True


def _simplify(op: Operation) -> bool:
    cls = type(op)
    inert = _INERT.get(cls)
    if inert is None:
        inert = _INERT[cls] = _never_simplifies(cls)
    if inert:
        return False
    rule = SCF_RULES.get(op.op_name)
    if rule is not None:
        return rule(op)
    if not op.has_trait(PURE) or isinstance(op, CONSTANT_OPS):
        return False
    constants = [constant_of(v) for v in op.operands]
    swapped = _constant_to_right(op, constants)
    results = op.fold(constants)
    if results is None:
        rewrite = _REWRITES.get(op.op_name)
        results = rewrite(op) if rewrite else None
    if results is None:
        return swapped
    _replace(op, results)
    return True


# Op classes that _simplify always leaves as they are (a sweep meets every op again): no scf
# rule, and impure, a constant, or pure with neither a folder, a rewrite nor operands to swap.
_INERT: dict[type, bool] = {}


def _never_simplifies(cls: type) -> bool:
    if cls is UnregisteredOp or cls.name in SCF_RULES:  # (an unregistered op's name is its own)
        return False
    if PURE not in cls.traits or issubclass(cls, CONSTANT_OPS):
        return True
    return cls.fold is Operation.fold and cls.name not in _REWRITES and COMMUTATIVE not in cls.traits


def _constant_to_right(op: Operation, constants: list) -> bool:
    """Swap a commutative op's constant left operand to the right (``constants``, the
    operands' constants, with it)."""
    if not op.commutes:
        return False
    x, y = op.operands
    if constants[0] is None or constants[1] is not None:
        return False
    op.set_operand(0, y)
    op.set_operand(1, x)
    constants.reverse()
    return True


def _replace(op: Operation, results: list) -> None:
    """Replace ``op``'s results by Values or constants, erase it, and erase what it leaves dead."""
    maybe_dead = [v.op for v in op.operands if isinstance(v, OpResult)]
    for old, new in zip(op.results, results, strict=True):
        if isinstance(new, DenseAttr):
            new = _insert(op, array.ConstantOp((), [new.type], {"value": new})).result
            maybe_dead.append(new.op)
        elif isinstance(new, ScalarAttr):
            new = _insert(op, arith.ConstantOp((), [new.type], {"value": new})).result
            maybe_dead.append(new.op)
        elif not isinstance(new, Value):
            raise IRError(f"folder of {op.op_name} returned {new!r}, not a Value or an attribute")
        old.replace_all_uses_with(new)
    op.erase()
    _erase_dead(maybe_dead)


def _insert(anchor: Operation, op: Operation) -> Operation:
    """``op`` before ``anchor``, at its source location: what a rewrite makes stands for it."""
    if not op.loc.known:
        op.loc = anchor.loc
    return anchor.parent.insert_before(anchor, op)


def _erase_dead(ops: list[Operation]) -> None:
    """Erase pure ops left without uses by a rewrite, and then their operands' definers."""
    while ops:
        op = ops.pop()
        if (op.parent is None or not op.has_trait(PURE) or not erasable_when_unused(op)
                or any(r.uses for r in op.results)):
            continue
        ops.extend(v.op for v in op.operands if isinstance(v, OpResult))
        op.erase()


def _producer(v: Value, cls: type[Operation]) -> Operation | None:
    op = v.op if isinstance(v, OpResult) else None
    return op if isinstance(op, cls) else None


def _rebuild(op: Operation, source: Value, attributes: dict) -> list[Value]:
    """A new op of ``op``'s kind applied directly to ``source``; if it does nothing, its own
    folder removes it in the next sweep."""
    return _insert(op, type(op)([source], op.result_types, attributes)).results


def _transpose_of_transpose(op: array.TransposeOp) -> list[Value] | None:
    inner = _producer(op.operands[0], array.TransposeOp)
    if inner is None:
        return None
    perm = tuple(inner.permutation[p] for p in op.permutation)
    return _rebuild(op, inner.operands[0], {"permutation": perm})


def _reshape_of_reshape(op: array.ReshapeOp) -> list[Value] | None:
    inner = _producer(op.operands[0], array.ReshapeOp)
    return None if inner is None else _rebuild(op, inner.operands[0], {})


def _broadcast_of_broadcast(op: array.BroadcastInDimOp) -> list[Value] | None:
    inner = _producer(op.operands[0], array.BroadcastInDimOp)
    if inner is None:
        return None
    dims = tuple(op.broadcast_dimensions[d] for d in inner.broadcast_dimensions)
    return _rebuild(op, inner.operands[0], {"broadcast_dimensions": dims})


def _convert_of_convert(op: array.ConvertOp) -> list[Value] | None:
    """convert(convert(x, B), C) → convert(x, C) when x → B loses nothing, so that both
    round or wrap the same number. Not through a float to an integer or bool: float→int is
    defined by codegen for out-of-range values, and may differ by source width."""
    inner = _producer(op.operands[0], array.ConvertOp)
    if inner is None:
        return None
    src = inner.operands[0].type.element
    mid, dst = inner.result.type.element, op.result.type.element
    if not _exact(src, mid) or (mid.is_float and not dst.is_float) or (mid.is_complex and not dst.is_complex):
        return None
    return _rebuild(op, inner.operands[0], {})


def _exact(src: ScalarType, dst: ScalarType) -> bool:
    """Whether every value of ``src`` (NaN, inf and -0.0 included) is unchanged in ``dst``."""
    if src == dst or src.is_bool:
        return True
    if dst.is_bool:
        return False
    if src.is_complex:
        return dst.is_complex and dst.component.bitwidth >= src.component.bitwidth
    if dst.is_complex:  # the real part holds the value (an int32 is not exact in complex64)
        return _exact(src, dst.component)
    if src.is_float:
        return dst.is_float and dst.bitwidth >= src.bitwidth
    magnitude_bits = src.bitwidth - (0 if src.is_unsigned else 1)
    if dst.is_float:
        return magnitude_bits <= _SIGNIFICAND[dst.bitwidth]
    if src.is_unsigned == dst.is_unsigned:
        return dst.bitwidth >= src.bitwidth
    return src.is_unsigned and dst.bitwidth > src.bitwidth


# The largest integer exponent spelled out as multiplications (at most 2 * 4 = 8 of them).
_MAX_INT_EXPONENT = 16


def _power_of_constant(op: Operation) -> list | None:
    """``pow(x, c)`` for a constant exponent ``c`` (an ``array.pow`` whose exponent is a splat,
    directly or through ``broadcast_in_dim``, or a ``math.powf``/``math.ipowi`` in a kernel body)
    as the ops it equals for every ``x``:

    * floats: ``c = 2`` is ``x * x``, ``c = -1`` is ``1 / x``, ``c = 1`` is ``x``, ``c = +-0`` is
      1. These are the correctly rounded powers: IEEE rounds a product and a quotient once,
      overflowing to inf and underflowing gradually as the exact power does; pow(x, +-0) is 1 even
      for NaN, and (-0.0) ** -1 is -inf as 1 / -0.0. A NaN stays a NaN (pow quiets it; x * x
      keeps its payload). C99 does not ask pow to round correctly, and glibc 2.36's does not
      always: over every positive float32, powf(x, 2) differs from x * x for 774 403 x and
      powf(x, -1) from 1 / x for 1 258 009, by one ULP, always on pow's side (x * x and 1 / x are
      the correctly rounded value there), normal results included; pow(x, 2) differs from x * x
      for 6.5 million of 2 * 10**8 random float64s. NumPy computes exactly these
      forms when the exponent stays put along its loop (tests/jitcore/test_powers.py); where it
      takes pow instead (a full array of exponents), its pow is within pow's ULP bound of them.
      Not ``c = 0.5``: sqrt(-0.0) is -0.0 and sqrt(-inf) NaN, where pow gives 0.0 and inf; not
      x * x * x for ``c = 3``: two roundings, not the one of a correctly rounded pow.
    * integers: ``0 <= c <= _MAX_INT_EXPONENT`` by squaring and multiplying; products wrap
      modulo 2**bits as the power loop's do, so any order of them gives the loop's answer (and
      0 ** 0 is 1, as NumPy). A negative exponent keeps the op (NumPy rejects a constant one).
    """
    if op.attributes.get("libm"):
        return None  # C's pow of a scalar, as NumPy's scalar math: its bits, not the forms
    x, e = op.operands
    c = _splat_value(e)
    t = op.result_types[0]
    element = getattr(t, "element", t)
    if c is None or x.type != t or element.is_complex or element.is_bool:
        return None
    scalar = not hasattr(t, "element")
    if element.is_float:
        if c not in (2.0, -1.0, 1.0, 0.0):
            return None
    elif c < 0 or c > _MAX_INT_EXPONENT:
        return None
    if c in (0, -1):
        one = _ones(op, t, element, scalar)
        if c == 0:
            return [one]
        div = arith.DivfOp if scalar else array.BINARY_OPS["div"]
        return _insert(op, div([one, x], [t], {})).results
    mul = (arith.MulfOp if element.is_float else arith.MuliOp) if scalar else array.BINARY_OPS["mul"]
    acc = x
    for bit in bin(int(c))[3:]:  # square-and-multiply, after the leading 1
        acc = _insert(op, mul([acc, acc], [t], {})).result
        if bit == "1":
            acc = _insert(op, mul([acc, x], [t], {})).result
    return [acc]


def _splat_value(v: Value) -> int | float | None:
    """The one value of ``v`` if it is a constant with all elements equal, possibly broadcast."""
    while (b := _producer(v, array.BroadcastInDimOp)) is not None:
        v = b.operands[0]
    attr = constant_of(v)
    if isinstance(attr, ScalarAttr):
        return attr.value
    if isinstance(attr, DenseAttr) and attr.is_splat:
        return attr.array.reshape(-1)[0].item()
    return None


def _ones(anchor: Operation, t, element: ScalarType, scalar: bool) -> Value:
    """A constant 1 of type ``t``, before ``anchor``."""
    if scalar:
        return _insert(anchor, arith.ConstantOp((), [t], {"value": ScalarAttr(1, t)})).result
    value = DenseAttr(np.ones((), numpy_dtype(element)), t)
    return _insert(anchor, array.ConstantOp((), [t], {"value": value})).result


def _sliced(anchor: Operation, value: Value, starts, strides, dims) -> Value:
    """``value`` sliced (itself where the slice takes all of it), before ``anchor``."""
    if all(s == 1 for s in strides) and tuple(dims) == tuple(value.type.shape):
        return value
    t = TensorType(tuple(dims), value.type.element)
    attributes = {"start": tuple(starts), "stride": tuple(strides)}
    return _insert(anchor, array.SliceOp([value], [t], attributes)).result


def _slice_pushed(op: array.SliceOp) -> list[Value] | None:
    """A slice of a value that only it reads, made of the slice's own inputs: of a gather, a
    gather of the sliced indices; of an add, the add of sliced operands; of a broadcast, the
    broadcast of the sliced operand. ``sliding_window_view(x, 1024)[::512]`` then computes and
    gathers only the windows it keeps (an STFT's frames: 1/512 of the work)."""
    source = op.operands[0]
    if not isinstance(source, OpResult) or len(source.uses) != 1:
        return None
    start, stride, shape = op.start, op.stride, op.result_type.shape
    producer = source.op
    if isinstance(producer, array.BINARY_OPS["add"]):
        a, b = producer.operands
        if a.type.shape != b.type.shape:
            return None
        parts = [_sliced(op, v, start, stride, shape) for v in (a, b)]
        return _insert(op, array.BINARY_OPS["add"](parts, [op.result_type])).results
    if isinstance(producer, array.BroadcastInDimOp):
        operand = producer.operands[0]
        dims = producer.broadcast_dimensions
        stretched = [operand.type.shape[j] == 1 and source.type.shape[d] != 1 for j, d in enumerate(dims)]
        part = _sliced(op, operand, [0 if s else start[d] for s, d in zip(stretched, dims)],
                       [1 if s else stride[d] for s, d in zip(stretched, dims)],
                       [1 if s else shape[d] for s, d in zip(stretched, dims)])
        return _insert(op, array.BroadcastInDimOp([part], [op.result_type],
                                                  {"broadcast_dimensions": dims})).results
    return _slice_of_gather(op)


def _slice_of_gather(op: array.SliceOp) -> list[Value] | None:
    """The gather of sliced indices (the result's dims ``axis`` to ``axis + k`` are theirs) from
    ``x`` sliced along its other dims (all of its gathered ``axis`` kept)."""
    gather = _producer(op.operands[0], array.GatherOp)
    if gather is None:
        return None
    x, indices = gather.operands
    axis, end = gather.axis, gather.axis + indices.type.rank
    start, stride, shape = op.start, op.stride, op.result_type.shape
    new_indices = _sliced(op, indices, start[axis:end], stride[axis:end], shape[axis:end])
    new_x = _sliced(op, x, (*start[:axis], 0, *start[end:]), (*stride[:axis], 1, *stride[end:]),
                    (*shape[:axis], x.type.shape[axis], *shape[end:]))
    return _insert(op, array.GatherOp([new_x, new_indices], [op.result_type], {"axis": axis})).results


def _comparison_by_bounds(op: Operation) -> list | None:
    """An integer comparison the operands' proved bounds decide (``effects.decided_comparison``)
    becomes a constant: the range checks that NumPy's indexing needs before a gather or a
    scatter (``i < -n or i >= n``, any of them) fold away where the indices are proved in
    range, and with them the reduction and the branch that would raise."""
    decided = decided_comparison(op.op_name.removeprefix("array."), *op.operands)
    if decided is None:
        return None
    return [DenseAttr(np.array(decided), op.result_type)]


def _extremum_by_bounds(op: Operation) -> list | None:
    """``max(a, b)`` / ``min(a, b)`` of integers whose proved bounds decide which is larger
    (``effects.decided_comparison``) is that operand: a clip of a loop's counter to the range
    the loop already keeps it in (``bit_positions``' bit) goes."""
    larger = op.op_name == "array.max"
    a, b = op.operands
    if decided_comparison("ge" if larger else "le", a, b):
        return [a]
    if decided_comparison("le" if larger else "ge", a, b):
        return [b]
    return None


def _gather_of_splat(op: Operation) -> list | None:
    """A gather of one value repeated, at indices proved in range (``effects.proved_indices``:
    an argmax's position), is that value (a check's flag read at the first bad position,
    where the bounds made every flag False)."""
    one = _splat_value(op.operands[0])
    n = op.operands[0].type.shape[op.attributes["axis"]]
    if one is None or not proved_indices(op.operands[1], n):
        return None
    return [DenseAttr(np.asarray(one, dtype=numpy_dtype(op.result_type.element)), op.result_type)]


def _conjunction_by_bounds(op: Operation) -> list | None:
    """``c & (a <kind> b)`` where the comparison is decided wherever ``c`` holds (each
    operand's bounds under ``c``: ``effects.decided_comparison``'s ``where``) is ``c & True``
    or ``c & False``: a write through selected indices checks ``keep & (i >= n)``, which is
    False where ``keep`` proves ``i`` in range (the gate's ``lo + stride`` under ``lo &
    stride == 0``); the ``and`` then folds, and with it the check."""
    if not op.result_type.element.is_bool:
        return None
    for c, k in (op.operands, op.operands[::-1]):
        cmp = k.op if isinstance(k, OpResult) else None
        kind = cmp.op_name.removeprefix("array.") if cmp is not None else None
        if kind not in ("lt", "le", "gt", "ge", "eq", "ne") or c is k:
            continue
        decided = decided_comparison(kind, *cmp.operands, where=c)
        if decided is not None:
            if decided:
                return [c]
            return [DenseAttr(np.array(False), op.result_type)]
    return None


_REWRITES = {
    "array.slice": _slice_pushed,
    "array.pow": _power_of_constant,
    "math.powf": _power_of_constant,
    "math.ipowi": _power_of_constant,
    "array.transpose": _transpose_of_transpose,
    "array.reshape": _reshape_of_reshape,
    "array.broadcast_in_dim": _broadcast_of_broadcast,
    "array.convert": _convert_of_convert,
    **{f"array.{kind}": _comparison_by_bounds for kind in ("lt", "le", "gt", "ge", "eq", "ne")},
    "array.and": _conjunction_by_bounds,
    "array.max": _extremum_by_bounds,
    "array.min": _extremum_by_bounds,
    "array.gather": _gather_of_splat,
}
