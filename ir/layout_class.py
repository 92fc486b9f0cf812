"""An argument's layout class: what of its memory layout a compiled function is specialised
on. It never holds strides, so one compile serves every array of a class (a strided class's
kernel takes its strides when it runs).

- ``C``: C-contiguous (the kernel knows its strides);
- ``F``: Fortran-contiguous and not C;
- ``reversed``: dense in C order with every axis of extent above 1 read backwards (NumPy's
  ``a[::-1, ::-1]`` of a C array, ``a[::-1]`` of a 1-d one);
- ``C flip 0`` or ``F flip 0,2``: dense in that order with those axes backwards, the others
  forwards (``a[::-1]`` of a C or Fortran matrix);
- ``strided``: anything else (``a[::2]``, a broadcast, a transposed slice), with where NumPy
  would find it partly dense when that is so: ``strided u`` when its last long axis steps one
  element, and ``m`` or ``g`` for each pair of adjacent long axes from the last, ``m`` where
  they merge (the outer steps over the whole inner one: ``a[:, ::2]``, whose ``reshape(-1)``
  NumPy makes a view), ``g`` where there is a gap (``a[:, 1:]``, which it copies).
  ``jitcore/view_layout.py`` models the array's strides from these, so that a reshape, ravel
  or ``ascontiguousarray`` of it (or of its views) is a view or a copy as in NumPy. Where
  NumPy's iterator would not take the long axes in their own order (``a.T[::2]``, whose axis 1
  has the larger stride: ``iteration_order``), the class names the order it takes, outermost
  first (``strided order 1,0``) and the facts follow that order: it decides how NumPy adds a
  whole sum of it (``jitcore/buffered_sum.py``), so ``a[::2, 1::3]`` and ``a.T[::2]`` get
  codes of their own. A broadcast names its long axes of stride 0 last (``strided zero 1``,
  session 57): such an axis has no say in the order NumPy's iterator takes it in beside
  another operand (``jitcore/buffered_where.py``), which made-up strides would give it.

Axes of extent 0 or 1 never count, as NumPy's contiguity flags ignore them. A reduction over
an argument dense in memory reads it in memory order, NumPy's rule: the code generator picks
that kernel at compile time from the class (``codegen/cpu/schedule.py``, ``_dense_twin``).
"""

from __future__ import annotations

from collections.abc import Sequence

C, F, REVERSED, STRIDED = "C", "F", "reversed", "strided"
_FLIP = " flip "
_ORDER = " order "
_ZERO = " zero "


def classify(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> str:
    """The class of an array of ``shape`` whose byte ``strides`` are multiples of ``itemsize``."""
    if 0 in shape:
        return C
    long_axes = [a for a, n in enumerate(shape) if n > 1]
    flipped = [a for a in long_axes if strides[a] < 0]

    def dense(axes_inner_first) -> bool:
        expected = itemsize
        for a in axes_inner_first:
            if abs(strides[a]) != expected:
                return False
            expected *= shape[a]
        return True

    if dense(reversed(long_axes)):
        if not flipped:
            return C
        if len(flipped) == len(long_axes):
            return REVERSED
        return C + _FLIP + ",".join(map(str, flipped))
    if dense(long_axes):
        return F + (_FLIP + ",".join(map(str, flipped)) if flipped else "")
    return _strided(shape, strides, itemsize, long_axes)


def _strided(shape, strides, itemsize: int, long_axes: list[int]) -> str:
    """``strided``, with the facts of its long axes that decide NumPy's views (module doc),
    along the axes in NumPy's iteration order, and that order where it is not theirs."""
    if not long_axes:
        return STRIDED
    order = iteration_order(strides, long_axes)
    inner = order[-1]
    facts = ["u" if strides[inner] == itemsize else "g"]
    for outer, inner in zip(order[-2::-1], order[::-1]):
        facts.append("m" if strides[outer] == strides[inner] * shape[inner] else "g")
    text = "".join(facts)
    text = "" if set(text) == {"g"} else f" {text}"
    text += "" if order == long_axes else f"{_ORDER}{','.join(map(str, order))}"
    zero = [a for a in long_axes if strides[a] == 0]
    return f"{STRIDED}{text}{_ZERO}{','.join(map(str, zero))}" if zero else f"{STRIDED}{text}"


def iteration_order(strides: Sequence[int], long_axes: list[int]) -> list[int]:
    """``long_axes``, outermost first, as NumPy's iterator orders one array's axes (order
    'K', ``npyiter_find_best_axis_ordering``): an insertion sort from the last axis inwards
    by decreasing ``|stride|``, ties keeping C order, where an axis of stride 0 (a broadcast)
    compares with none, so that it stays where it is and the others move past it."""
    inner_first = list(reversed(long_axes))
    for i in range(1, len(inner_first)):
        axis, at = inner_first[i], i
        for j in range(i - 1, -1, -1):
            other = inner_first[j]
            if strides[axis] == 0 or strides[other] == 0:
                continue  # ambiguous: look further in
            if abs(strides[other]) <= abs(strides[axis]):
                break
            at = j
        inner_first.insert(at, inner_first.pop(i))
    return inner_first[::-1]


def is_strided(layout: str) -> bool:
    return layout.split(" ")[0] == STRIDED


def zero_axes(layout: str) -> list[int]:
    """A strided class's long axes of stride 0 (a broadcast's)."""
    _, _, zero = layout.partition(_ZERO)
    return [int(a) for a in zero.split(",")] if zero else []


def strided_facts(layout: str) -> str:
    """A strided class's facts, inner first along its ``strided_order`` (``u``/``g``, then
    ``m``/``g`` per pair of long axes); empty where it has none (every axis gapped)."""
    head, _, _ = layout.partition(_ZERO)[0].partition(_ORDER)
    _, _, facts = head.partition(" ")
    return facts


def strided_order(layout: str, shape: Sequence[int]) -> list[int]:
    """A strided class's long axes, outermost first, in NumPy's iteration order: where the
    class does not name it (``order 1,0``), their own order."""
    _, _, order = layout.partition(_ZERO)[0].partition(_ORDER)
    return [int(a) for a in order.split(",")] if order else [a for a, n in enumerate(shape) if n > 1]


def dense_orders(layout: str, shape: Sequence[int]) -> tuple[tuple[str, ...], frozenset[int]] | None:
    """For an argument of ``shape`` and class ``layout``: the axis orders it is dense in ("C",
    "F", both where at most one axis is above 1) and the axes it lies backwards along; None
    for a strided one."""
    if is_strided(layout):
        return None
    long_axes = [a for a, n in enumerate(shape) if n > 1]
    if layout == REVERSED:
        return ((C, F) if len(long_axes) <= 1 else (C,)), frozenset(long_axes)
    order, _, flips = layout.partition(_FLIP)
    return (order,), frozenset(int(a) for a in flips.split(",")) if flips else frozenset()


def describe(layout: str) -> str:
    """The class in the compile log's words."""
    if layout == C:
        return "C-contiguous"
    if layout == F:
        return "Fortran"
    order, _, flips = layout.partition(_FLIP)
    if flips:
        axes = flips.split(",")
        named = f"axes {', '.join(axes)}" if len(axes) > 1 else f"axis {axes[0]}"
        return f"{'C' if order == C else 'Fortran'} order, {named} reversed"
    if is_strided(layout):
        head, _, zero = layout.partition(_ZERO)
        facts, (_, _, order) = strided_facts(layout), head.partition(_ORDER)
        return (STRIDED + (f", partly dense ({facts})" if facts else "")
                + (f", axes {order.replace(',', ', ')} outermost first" if order else "")
                + (f", broadcast along {'axes' if ',' in zero else 'axis'} {zero.replace(',', ', ')}"
                   if zero else ""))
    return layout
