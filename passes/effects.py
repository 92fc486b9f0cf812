"""What an op may do beyond computing its results, and where a value is defined: the questions
``dce``, ``cse``, ``licm`` and the ``scf`` rules of ``canonicalize`` ask of ops with regions.

An op that may raise (``may_raise``) stays even when its results are unused
(``erasable_when_unused``): NumPy raises for ``x[idx]`` out of range whether or not the result
is read.

An op has a side effect when it is not ``Pure`` (``kernel.insert`` writes an array,
``kernel.check_index`` records an out-of-range index). An ``scf`` op has one when an op in its
regions has one, or when it is an ``scf.for`` whose step is not a known non-zero constant: a zero
step is reported at run time, and erasing the loop would hide that.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr
from jitcore.ir.core import PURE, TERMINATOR, Block, BlockArgument, Operation, OpResult, Value
from jitcore.passes.constants import constant_of, scalar_constant

STRUCTURED_OPS = ("scf.for", "scf.while", "scf.if")
LOOP_OPS = ("scf.for", "scf.while")
# Ops that check indices at run time and record the first out of range, for the caller to raise
# NumPy's IndexError: at the array level, and in kernel bodies; and those that record another
# error (a singular matrix: LinAlgError).
_INDEX_CHECKS = ("array.gather", "array.gather_nd", "array.scatter_nd", "kernel.check_index",
                 "array.solve", "array.cholesky", "kernel.raise", "array.raise_if")
# Terminators that only pass values to their parent: they do nothing of their own.
_REGION_TERMINATORS = ("scf.yield", "scf.condition", "kernel.yield")


def has_side_effects(op: Operation) -> bool:
    """Whether running ``op`` (its regions included) may do more than compute its results."""
    if op.op_name in _REGION_TERMINATORS:
        return False
    if op.op_name not in STRUCTURED_OPS:
        return not op.has_trait(PURE)
    if _may_step_zero(op):
        return True
    return any(has_side_effects(inner) for region in op.regions for block in region.blocks
               for inner in block.ops)


def _may_step_zero(op: Operation) -> bool:
    return op.op_name == "scf.for" and scalar_constant(op.operands[2]) in (None, 0)


def may_raise(op: Operation) -> bool:
    """Whether running ``op`` (its regions included) may make the call raise: an index out of
    range (``IndexError``), a singular matrix (``LinAlgError``) or a loop's zero step. Such an
    op may be pure, but must not be made to run where it would not have run, nor be erased
    where it would have run (``erasable_when_unused``)."""
    return any((inner.op_name in _INDEX_CHECKS and not _indices_in_range(inner)
                and not _raises_never(inner)) or _may_step_zero(inner)
               for inner in op.walk())


def _raises_never(op: Operation) -> bool:
    """A raise whose condition is the constant False (a check the bounds decided)."""
    if op.op_name not in ("array.raise_if", "kernel.raise"):
        return False
    attr = constant_of(op.operands[0])
    value = attr.array if isinstance(attr, DenseAttr) and attr.is_splat else getattr(attr, "value", None)
    return value is not None and not np.any(value)


def _bounds(v: Value, depth: int = 8):
    """``(lowest, highest)`` of an integer array, else None; an empty one's lowest is above its
    highest. Known: constants; broadcasts and slices of a known array; sums and differences of
    known ones; ``array.max``/``array.min`` where the side that bounds it is known (a clip);
    ``array.select`` where both arms are known, each arm under what the condition says there
    (``_arm_bounds``); ``searchsorted``'s insertion points, in ``[0, len(a)]``; ``argmax``/
    ``argmin`` positions; a ``max``/``min`` scan and a gather (each element is one of the
    operand's); ``&``,
    ``|`` and ``<<`` of values not negative; ``array.iota``'s positions and products of known
    values (session 55: ``np.arange(n)[::-1]`` as a ramp); an ``scf.for``'s induction variable with constant
    bounds and a positive step. So ``np.clip(np.searchsorted(xp, x) - 1, 0, n - 2) + 1``,
    interp's neighbour, is proved a position, and so is ``idx + stride`` where ``idx &
    stride == 0`` (a state-vector gate's partner index). A result outside its integer type's
    range (a wrap) is not known."""
    lo, hi = _half_bounds(v, depth)
    return None if lo is None or hi is None else (lo, hi)


# Bounds of large constant arrays, by value: canonicalize asks again at every sweep.
_CONSTANT_BOUNDS: dict = {}


def _constant_bounds(attr: DenseAttr) -> tuple[int | None, int | None]:
    if attr.array.dtype.kind not in "iub":
        return None, None
    if not attr.array.size:
        return 0, -1
    found = _CONSTANT_BOUNDS.get(attr)
    if found is None:
        found = (int(attr.array.min()), int(attr.array.max()))
        if len(_CONSTANT_BOUNDS) > 256:
            _CONSTANT_BOUNDS.clear()
        _CONSTANT_BOUNDS[attr] = found
    return found


def _induction_bounds(v: BlockArgument) -> tuple[int | None, int | None]:
    """An ``scf.for``'s induction variable runs over ``[lower, upper)`` by a positive step."""
    owner = v.block.parent.parent if v.block is not None and v.block.parent is not None else None
    if owner is None or owner.op_name != "scf.for" or v is not owner.regions[0].blocks[0].args[0]:
        return None, None
    lower, upper, step = (scalar_constant(u) for u in owner.operands[:3])
    if None in (lower, upper, step) or step <= 0 or lower >= upper:
        return None, None
    return int(lower), int(upper) - 1


def _half_bounds(v: Value, depth: int) -> tuple[int | None, int | None]:
    """``_bounds`` with either side None where only the other is known."""
    attr = constant_of(v)
    if isinstance(attr, DenseAttr):
        return _constant_bounds(attr)
    if depth == 0 or not v.type.element.is_integer:
        return None, None
    if isinstance(v, BlockArgument):
        return _induction_bounds(v)
    op = v.op if isinstance(v, OpResult) else None
    if op is None:
        return None, None
    name = op.op_name
    if name in ("array.broadcast_in_dim", "array.slice", "array.reshape"):  # (the same elements)
        return _half_bounds(op.operands[0], depth - 1)
    if name == "array.iota":  # each element's position along its dimension
        return 0, v.type.shape[op.attributes["dimension"]] - 1
    if name == "array.searchsorted":
        return 0, op.operands[0].type.shape[0]
    if name == "array.argreduce":  # a position along a non-empty axis
        return 0, op.operands[0].type.shape[op.attributes["axis"]] - 1
    if name == "array.scan" and op.attributes["kind"] in ("max", "min"):
        return _half_bounds(op.operands[0], depth - 1)
    if name in ("array.gather", "array.gather_nd"):  # each element is one of the source's
        return _half_bounds(op.operands[0], depth - 1)
    if name == "array.select":  # one arm or the other at each element: both arms' bounds hold
        (alo, ahi), (blo, bhi) = (_arm_bounds(op.operands[0], k == 1, u, depth - 1)
                                  for k, u in ((1, op.operands[1]), (2, op.operands[2])))
        return (None if alo is None or blo is None else min(alo, blo),
                None if ahi is None or bhi is None else max(ahi, bhi))
    if name in ("array.and", "array.or", "array.shl"):
        return _bit_bounds(name, *(_half_bounds(u, depth - 1) for u in op.operands))
    if name == "array.shr":  # not negative, shifted right by any count: at most itself, at least 0
        lo, hi = _half_bounds(op.operands[0], depth - 1)
        return (0, hi) if lo is not None and lo >= 0 else (None, None)
    if name == "array.mul":
        return _product_bounds(v, *(_half_bounds(u, depth - 1) for u in op.operands))
    if name not in ("array.add", "array.sub", "array.max", "array.min"):
        return None, None
    (alo, ahi), (blo, bhi) = (_half_bounds(u, depth - 1) for u in op.operands)
    if name == "array.max":  # at least the larger lowest; at most the larger highest
        lo = max(x for x in (alo, blo) if x is not None) if (alo, blo) != (None, None) else None
        hi = None if ahi is None or bhi is None else max(ahi, bhi)
    elif name == "array.min":
        lo = None if alo is None or blo is None else min(alo, blo)
        hi = min(x for x in (ahi, bhi) if x is not None) if (ahi, bhi) != (None, None) else None
    elif name == "array.add":
        lo = None if alo is None or blo is None else alo + blo
        hi = None if ahi is None or bhi is None else ahi + bhi
    else:
        lo = None if alo is None or bhi is None else alo - bhi
        hi = None if ahi is None or blo is None else ahi - blo
    return _unwrapped(v, name, lo, hi)


def _product_bounds(v: Value, a, b) -> tuple[int | None, int | None]:
    """Bounds of ``a * b`` from both operands' (a ramp times a step): the extremes are among
    the corners' products; nothing known where one may wrap."""
    if None in (*a, *b):
        return None, None
    if a[0] > a[1] or b[0] > b[1]:  # an empty operand: nothing to bound
        return 1, 0
    corners = [x * y for x in a for y in b]
    return _unwrapped(v, "array.add", min(corners), max(corners))


def _unwrapped(v: Value, name: str, lo, hi) -> tuple[int | None, int | None]:
    """``(lo, hi)``, or nothing known where the sum or difference may wrap."""
    if lo is not None and hi is not None and lo > hi:  # an empty operand: nothing to bound
        return lo, hi
    t = v.type.element
    bits = t.bitwidth
    least, most = (0, 2 ** bits - 1) if t.is_unsigned else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    if name in ("array.add", "array.sub") and (lo is None or hi is None or lo < least or hi > most):
        return None, None  # it may wrap
    return lo, hi


def _bit_bounds(name: str, a, b) -> tuple[int | None, int | None]:
    """Bounds of ``a & b``, ``a | b`` or ``a << b`` for operands not negative (their sign bits
    clear, so no wrap below zero): ``&`` is at most either, ``|`` sets no bit above the highest
    of either, ``<<`` by a bounded shift below 62 stays in int64."""
    (alo, ahi), (blo, bhi) = a, b
    if name == "array.and":  # one side not negative is enough: the result keeps its sign bit clear
        tops = [h for lo_, h in (a, b) if lo_ is not None and h is not None and lo_ >= 0]
        return (0, min(tops)) if tops else (None, None)
    if None in (alo, ahi, blo, bhi) or alo < 0 or blo < 0:
        return None, None
    if name == "array.or":
        return max(alo, blo), (1 << max(ahi, bhi).bit_length()) - 1
    if bhi > 62 or ahi << bhi >= 2 ** 63:
        return None, None
    return alo << blo, ahi << bhi


_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}


def _arm_bounds(cond: Value, truth: bool, arm: Value, depth: int) -> tuple[int | None, int | None]:
    """Bounds of ``arm`` where ``select(cond, ...)`` takes it (``cond`` is ``truth`` there):
    an arm compared with a bound (``select(x < 0, x + n, x)``'s ``x`` is at least 0 where taken);
    a sum ``x + s`` under ``x & s == 0`` is ``x | s`` (no bit carries); under ``a & b``, what
    each says."""
    lo, hi = _half_bounds(arm, depth)
    c = cond.op if isinstance(cond, OpResult) else None
    kind = c.op_name.removeprefix("array.") if c is not None else None
    if kind == "and" and truth and depth:  # both hold where taken: ``(x >= 0) & (x < n)``
        (alo, ahi), (blo, bhi) = (_arm_bounds(u, True, arm, depth - 1) for u in c.operands)
        lows, highs = [v for v in (alo, blo) if v is not None], [v for v in (ahi, bhi) if v is not None]
        return (max(lows) if lows else None), (min(highs) if highs else None)
    if kind not in _FLIPPED:
        return lo, hi
    x, y = c.operands
    if not truth:
        kind = _NEGATED[kind]
    if _same(y, arm):
        x, y, kind = y, x, _FLIPPED[kind]
    if _same(x, arm):
        ylo, yhi = _half_bounds(y, depth)
        if kind in ("lt", "le") and yhi is not None:
            hi = yhi - (kind == "lt") if hi is None else min(hi, yhi - (kind == "lt"))
        elif kind in ("gt", "ge") and ylo is not None:
            lo = ylo + (kind == "gt") if lo is None else max(lo, ylo + (kind == "gt"))
        elif kind == "eq" and ylo is not None and yhi is not None:
            lo, hi = (ylo if lo is None else max(lo, ylo)), (yhi if hi is None else min(hi, yhi))
        return lo, hi
    if kind == "eq" and _splat(y) == 0:
        both = _disjoint_sum(x, arm)
        if both is not None:  # x + s == x | s here
            return _bit_bounds("array.or", *(_half_bounds(u, depth - 1) for u in both))
    return lo, hi


def _disjoint_sum(conjunction: Value, arm: Value):
    """``(x, s)`` when ``arm`` is ``x + s`` (in either order) and ``conjunction`` is ``x & s``,
    or ``(x >> q) & 1`` with ``s = 1 << q`` (bit q of x: clear, no carry; a count outside
    ``[0, bits)`` makes ``s`` 0)."""
    a = conjunction.op if isinstance(conjunction, OpResult) else None
    b = _through_broadcasts(arm)
    b = b.op if isinstance(b, OpResult) else None
    if a is None or b is None or a.op_name != "array.and" or b.op_name != "array.add":
        return None
    pa = {_root(u) for u in a.operands}
    if len(pa) == 2 and pa == {_root(u) for u in b.operands}:
        return b.operands
    for shifted, one in (a.operands, a.operands[::-1]):
        shr = shifted.op if isinstance(shifted, OpResult) else None
        if _splat(one) != 1 or shr is None or shr.op_name != "array.shr":
            continue
        for x, s in (b.operands, b.operands[::-1]):
            shl = _through_broadcasts(s)
            shl = shl.op if isinstance(shl, OpResult) else None
            if _same(x, shr.operands[0]) and shl is not None and shl.op_name == "array.shl" \
                    and _splat(shl.operands[0]) == 1 and _same(shl.operands[1], shr.operands[1]):
                return x, s
    return None


def _through_broadcasts(v: Value) -> Value:
    while isinstance(v, OpResult) and v.op.op_name == "array.broadcast_in_dim":
        v = v.op.operands[0]
    return v


def _root(v: Value):
    """What a value is, through broadcasts: the same value broadcast twice is one value."""
    return id(_through_broadcasts(v))


def _same(a: Value, b: Value) -> bool:
    return _root(a) == _root(b)


def _splat(v: Value):
    attr = constant_of(_through_broadcasts(v))
    if isinstance(attr, DenseAttr) and attr.is_splat:
        return attr.array.reshape(-1)[0].item()
    return getattr(attr, "value", None)


def decided_comparison(kind: str, a: Value, b: Value, where: Value | None = None) -> bool | None:
    """What ``a <kind> b`` (``lt``, ``le``, ``gt``, ``ge``, ``eq``, ``ne``) is at every element,
    when the operands' bounds decide it (``_bounds``): ``i < -n or i >= n`` for ``i`` proved
    in ``[0, n)`` is False everywhere, so the range check before a gather folds away. With
    ``where`` (a boolean array), at every element where it holds: each operand's bounds there
    (``_arm_bounds``), so ``keep & (idx + s >= n)`` under ``keep = idx & s == 0`` is False."""
    if not (a.type.element.is_integer and b.type.element.is_integer):
        return None
    if where is None:
        ab, bb = _bounds(a), _bounds(b)
    else:
        ab, bb = (_both(_arm_bounds(where, True, u, 8)) for u in (a, b))
    if ab is None or bb is None or ab[0] > ab[1] or bb[0] > bb[1]:
        return None
    (alo, ahi), (blo, bhi) = ab, bb
    if kind in ("gt", "ge"):
        (alo, ahi), (blo, bhi), kind = (blo, bhi), (alo, ahi), _FLIPPED[kind]
    if kind == "lt":
        return True if ahi < blo else False if alo >= bhi else None
    if kind == "le":
        return True if ahi <= blo else False if alo > bhi else None
    if ahi < blo or bhi < alo:
        return kind == "ne"
    return None


def _both(bounds):
    return None if None in bounds else bounds


def proved_positions(v: Value, n: int) -> bool:
    """Whether every element of the integer array ``v`` is proved a position in ``[0, n)``
    (``_bounds``): an index there needs neither a check nor a wrap."""
    bounds = _bounds(v)
    return bounds is not None and (bounds[0] > bounds[1] or (0 <= bounds[0] and bounds[1] < n))


def proved_indices(v: Value, n: int) -> bool:
    """Whether every element of the integer array ``v`` is proved an index of an axis of ``n``,
    negative ones included (``[-n, n)``): its gather's check cannot fail."""
    bounds = _bounds(v)
    return bounds is not None and (bounds[0] > bounds[1] or (-n <= bounds[0] and bounds[1] < n))


def _indices_in_range(op: Operation) -> bool:
    """Whether ``op`` is a gather or scatter whose index arrays are constants, all in range (an
    index list written in the program, ``x[[0, 2]]``): its check cannot fail."""
    if op.op_name == "array.gather":
        pairs = [(op.operands[1], op.attributes["axis"])]
    elif op.op_name in ("array.gather_nd", "array.scatter_nd"):
        skip = 2 if op.op_name == "array.scatter_nd" else 1
        pairs = list(zip(op.operands[skip:], op.attributes["axes"]))
    else:
        return False
    for v, axis in pairs:
        bounds = _bounds(v)
        if bounds is None:
            return False
        n = op.operands[0].type.shape[axis]
        if bounds[0] <= bounds[1] and not (-n <= bounds[0] and bounds[1] < n):
            return False
    return True


def erasable_when_unused(op: Operation) -> bool:
    """Whether ``op``, its results unused, may be erased: it has no side effect and cannot make
    the call raise. NumPy runs every statement, so ``y = x[idx]`` with ``y`` never read still
    raises IndexError for an index out of range: an op that checks indices (or a matrix, or a
    loop's step) stays, its check an effect like a write. (JAX erases such a gather; NumPy
    parity is the rule here.)"""
    return not op.has_trait(TERMINATOR) and not has_side_effects(op) and not may_raise(op)


def kernel_writes(op: Operation) -> bool:
    """Whether ``op`` or an op in its regions writes elements with ``kernel.insert``, so that a
    ``kernel.extract`` may read a different element after it than before it."""
    return any(inner.op_name == "kernel.insert" for inner in op.walk())


def defining_block(v: Value) -> Block | None:
    if isinstance(v, BlockArgument):
        return v.block
    return v.op.parent if isinstance(v, OpResult) else None


def is_inside(block: Block | None, op: Operation) -> bool:
    """Whether ``block`` is one of ``op``'s blocks or nested in one of them."""
    while block is not None and block.parent is not None:
        owner = block.parent.parent
        if owner is op:
            return True
        if owner is None:
            return False
        block = owner.parent
    return False


def defined_outside(v: Value, op: Operation) -> bool:
    """Whether ``v`` is defined outside ``op``'s regions (so it is the same in every run of
    them)."""
    return not is_inside(defining_block(v), op)


def uses_only_outside(op: Operation, loop: Operation) -> bool:
    """Whether every value ``op`` and the ops nested in it read, apart from those defined
    inside ``op`` itself, is defined outside ``loop``."""
    for inner in op.walk():
        for v in inner.operands:
            if not defined_outside(v, loop):
                if inner is op or not is_inside(defining_block(v), op):
                    return False
    return True
