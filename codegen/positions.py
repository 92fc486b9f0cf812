"""What a kernel body does at a known range of positions along a dim, for any target.

A concatenation or a pad (``np.roll``, ``np.concatenate([x[3:], x[:3]])``) reads its pieces
through clamped indices and picks one by testing its position (``kernel.index`` against a
constant). Run point by point, that is a clamp per read and a select per point, and LLVM
turns the reads into gathers. But the tests and clamps change only at a few positions
(``breakpoints``): a schedule that runs the loop over such a dim in segments between them
knows, in each, the range of the position (``KernelBody.known``), so each test is a constant
(``fold_position_test``) and each clamp that cannot bind is left out (``in_bounds``). A
segment of a roll is then a plain shifted copy, which LLVM vectorizes.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

MAX_BREAKPOINTS = 16  # more segments than this and the code grows for little gain

_TESTS = {
    "eq": lambda x, c: x == c, "ne": lambda x, c: x != c,
    "slt": lambda x, c: x < c, "sle": lambda x, c: x <= c,
    "sgt": lambda x, c: x > c, "sge": lambda x, c: x >= c,
}
_UNSIGNED = {"ult": "slt", "ule": "sle", "ugt": "sgt", "uge": "sge"}
_MASK = (1 << 64) - 1


def _position_test(op: Operation) -> tuple[int, str, int] | None:
    """``(dim, predicate, constant)`` for ``arith.cmpi(kernel.index(dim), constant)`` (either
    operand order; the predicate then read with the position on the left), else None."""
    if op.op_name != "arith.cmpi" or len(op.operands) != 2:
        return None
    owners = [getattr(v, "op", None) for v in op.operands]
    flipped = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle",
               "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}
    predicate = op.attributes["predicate"]
    for first, (position, const) in enumerate((owners, owners[::-1])):
        if isinstance(position, kernel.IndexOp) and const is not None and const.op_name == "arith.constant":
            value = const.attributes["value"].value
            if isinstance(value, bool) or not isinstance(value, int):
                return None
            return position.dim, (predicate if first == 0 else flipped.get(predicate, predicate)), value
    return None


def _holds(predicate: str, x: int, c: int) -> bool:
    if predicate in _UNSIGNED:
        return _TESTS[_UNSIGNED[predicate]](x & _MASK, c & _MASK)
    return _TESTS[predicate](x, c)


def fold_position_test(op: Operation, known: dict[int, tuple[int, int]]) -> bool | None:
    """The value of a position test that is the same at every position of its dim's known
    range, or None (not such a test, its dim's range unknown, or it changes there). A test's
    truth set is an interval or all but one point, so it is constant on ``[lo, hi)`` when it
    agrees at both ends and around its constant."""
    test = _position_test(op) if known else None
    if test is None or test[0] not in known:
        return None
    dim, predicate, c = test
    lo, hi = known[dim]
    if lo >= hi or predicate not in _TESTS and predicate not in _UNSIGNED:
        return None
    probes = {lo, hi - 1} | {p for p in (c - 1, c, c + 1, 0) if lo <= p < hi}
    results = {_holds(predicate, p, c) for p in probes}
    return results.pop() if len(results) == 1 else None


def _in_range(e: AffineExpr, size: int) -> tuple[int, int] | None:
    """The positions ``[lo, hi)`` of ``e``'s dim at which ``e`` lies in ``[0, size)``, else
    None (no dim, or a zero scale). A negative scale is a reversed read (``x[::-1]``, the
    mirror of an rfft's recombination): the same interval, its ends swapped."""
    if e.dim is None or e.scale == 0:
        return None
    if e.scale > 0:
        lo = -(e.offset // e.scale)  # ceil(-offset / scale)
        hi = (size - 1 - e.offset) // e.scale + 1
    else:
        step = -e.scale
        lo = -((size - 1 - e.offset) // step)  # ceil((offset - size + 1) / step)
        hi = e.offset // step + 1
    return lo, max(lo, hi)


def in_bounds(e: AffineExpr, known: dict[int, tuple[int, int]], size: int | None) -> bool:
    """Whether index expression ``e`` stays in ``[0, size)`` over the known positions."""
    if size is None or not known:
        return False
    if e.dim is None:
        return 0 <= e.offset < size
    if e.dim not in known:
        return False
    lo, hi = known[e.dim]
    inside = _in_range(e, size)
    return lo < hi and inside is not None and inside[0] <= lo and hi <= inside[1]


def breakpoints(op: kernel.GenericOp, dim: int) -> list[int]:
    """The positions inside ``(0, extent)`` of dim ``dim`` at which a position test of
    ``op``'s body or a clamp of one of its reads may change: between two of them every test
    is a constant and every clamp either binds throughout or never. Empty where there are
    none or too many (then the dim runs as one loop)."""
    extent = op.domain()[dim]
    points: set[int] = set()
    for inner in kernel.body_ops(op):
        test = _position_test(inner)
        if test is not None and test[0] == dim:  # where the test's truth may change
            _, predicate, c = test
            points.update({"slt": (c,), "sge": (c,), "sle": (c + 1,), "sgt": (c + 1,)}.get(
                _UNSIGNED.get(predicate, predicate), (c, c + 1)))
    for index in op.clamped:
        shape = op.operands[index].type.shape
        for axis, e in enumerate(op.indexing_maps[index].exprs):
            if e.dim == dim:
                inside = _in_range(e, shape[axis])
                if inside is not None:
                    points.update(inside)
    inner_points = sorted(p for p in points if 0 < p < extent)
    return inner_points if len(inner_points) <= MAX_BREAKPOINTS else []
