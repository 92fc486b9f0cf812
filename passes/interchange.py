"""``interchange``: order a kernel's loops so that the innermost walks most of its arrays with
unit stride (after ``fuse``).

Code generators run a kernel's iteration dims in order, ``d0`` outermost. Every array inside a
compiled function is C-contiguous (arguments are taken as such: a strided argument's layout is
known only at run time), so an operand or result is walked with unit stride by dim ``k`` when its
map's last expr is ``dk`` with scale 1 or -1. After fusion, a kernel reading transposed operands
(``a.T + b.T``, ``np.exp(a.T) * a.T``) may have an innermost dim that walks most of its arrays
by whole rows. The pass counts, for each dim, the arrays it walks with unit stride (an array
read invariantly along the dim, a broadcast, costs nothing either way and is not counted) and
makes the dim with the most the innermost, moving it there and keeping the others in order;
the current innermost dim wins ties, so ``a.T + b`` and ``a.T + a`` (output and one operand
unit stride) keep their order, unless it walks less than a cache line and a tied dim is longer
(``_longer_on_a_tie``: im2col's 6-d transpose). The result is then written through a permuted map.

A kernel whose dims are all parallel is reordered that way. Reordering it changes no value:
each point runs the same body once, and ``kernel.index`` follows its dim.

A reduction is read in its operands' memory order, as NumPy's iterator reads it: where an
input reads every dim of the kernel, the dims take the order NumPy's iterator gives the inputs
(an input's order: the dims of its map's exprs, outermost first; inputs that disagree vote as
in NumPy's ``npyiter_find_best_axis_ordering``, asked of NumPy, ``kernel.numpy_axis_order``),
the order in which NumPy lays out the materialised operand (``var``'s ``x - mean``); a dim
read backwards (scale -1, a reversed view) stays backwards, as NumPy's reductions never turn
a negative stride around (session 52). So ``(a.T * 2).sum()`` reads ``a`` through an identity
map, and the code generator merges the reduced dims into one contiguous row
(``codegen/cpu/schedule.py``) as for ``a.sum()`` (``a[::-1, ::-1].sum()``: one row read backwards);
``(a.T * 2).sum(axis=0)`` reduces along ``a``'s rows and ``(a.T * 2).sum(axis=1)`` down its
columns, vectorized across them. Inputs that disagree (``(a + a.T).sum()``) keep the C order, as
in NumPy.
Dims of extent 1 keep their places (they run once). This does change a float sum's or product's
bits: the fixed order of ``codegen/cpu/reduction.py`` is taken in memory order, not in C order
of the logical values (docs/numpy_support.md). Only sums and products: a max or min keeps C
order (NumPy's choice between 0.0 and -0.0 in a tie), as do kernels whose body reads its
position (``kernel.index``: argmax and argmin, ties to the first index in C order) and scans.
The rule is ``kernel.memory_order``; the CPU's schedule also applies it to strided arguments
that are dense in another order when the kernel runs (``codegen/cpu/schedule.py``).

A kernel that checks indices or scatters runs in C order, and a kernel whose result starts as
a copy (a slice update) keeps its order too.
"""

from __future__ import annotations

from jitcore.ir.attributes import AffineExpr, AffineMap, numpy_dtype
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel
from jitcore.passes.manager import Pass, register_pass


@register_pass
class Interchange(Pass):
    """Make the dim that walks most arrays with unit stride the innermost loop."""

    name = "interchange"

    def run(self, module: Operation) -> bool:
        changed = False
        for func in module.functions():
            for op in func.body.ops:
                if isinstance(op, kernel.GenericOp) and _reorderable(op):
                    changed |= _make_innermost(op, _best_innermost(op))
                elif isinstance(op, kernel.GenericOp) and kernel.reads_in_memory_order(op):
                    changed |= kernel.memory_order(op)
        return changed


def _reorderable(op: kernel.GenericOp) -> bool:
    return (len(op.iterator_types) >= 2
            and all(t == kernel.PARALLEL for t in op.iterator_types)
            and not op.indexed and not kernel.runs_in_order(op)
            and all(i < 0 for i in op.copy_inputs))


def _unit_stride_dim(amap: AffineMap) -> int | None:
    """The dim that walks an array read through ``amap`` with unit stride, if any."""
    if not amap.exprs:
        return None
    last = amap.exprs[-1]
    return last.dim if last.dim is not None and abs(last.scale) == 1 else None


def _best_innermost(op: kernel.GenericOp) -> int:
    n = len(op.iterator_types)
    counts = [0] * n
    for amap in op.indexing_maps:
        k = _unit_stride_dim(amap)
        if k is not None:
            counts[k] += 1
    best = n - 1
    for k in range(n):
        if counts[k] > counts[best]:
            best = k
    return _longer_on_a_tie(op, counts, best)


# A run shorter than a cache line (64 bytes) loads or stores whole lines for part of their use.
LINE_BYTES = 64


def _longer_on_a_tie(op: kernel.GenericOp, counts: list[int], best: int) -> int:
    """Where the innermost dim walks less than a cache line with unit stride and another dim
    walks as many arrays with unit stride over a longer run, that dim: a 6-d transpose
    (im2col's) written in runs of 3 floats and read in runs of 30 reads its runs of 30 and
    writes with a stride, 1.5-1.8x faster. Past a cache line the order stays: reading long
    runs and writing by a stride measured 1.8-2.3x slower than the other way round (a
    256x4096 float32 ``a.T``; 30x2000 float64)."""
    domain = op.domain()
    types = [v.type for v in op.operands] + list(op.result_types)
    itemsize = max(numpy_dtype(getattr(t, "element", t)).itemsize for t in types)
    if domain[best] * itemsize >= LINE_BYTES:
        return best
    for k in range(len(counts)):
        if counts[k] == counts[best] and domain[k] > domain[best]:
            best = k
    return best


def _make_innermost(op: kernel.GenericOp, k: int) -> bool:
    n = len(op.iterator_types)
    if k == n - 1:
        return False
    order = [d for d in range(n) if d != k] + [k]  # new position -> old dim
    new_of = {old: new for new, old in enumerate(order)}

    def remap(amap: AffineMap) -> AffineMap:
        return AffineMap(n, tuple(e if e.dim is None else AffineExpr(new_of[e.dim], e.scale, e.offset)
                                  for e in amap.exprs))

    domain = op.domain()
    if order[0] != 0:  # (dim 0 moved: its bound by a count no longer applies; the whole dim runs)
        op.attributes.pop(kernel.HEAD, None)
    op.attributes["indexing_maps"] = tuple(remap(m) for m in op.indexing_maps)
    op.attributes["domain"] = tuple(domain[d] for d in order)
    for inner in op.body.ops:
        if isinstance(inner, kernel.IndexOp):
            inner.attributes["dim"] = new_of[inner.dim]
    return True
