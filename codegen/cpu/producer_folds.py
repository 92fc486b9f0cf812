"""A row reduction that computes its input's elements itself: in a row group, an elementwise
kernel followed by a row sum of its result run as one kernel, the sum's loads of that result
replaced by the elementwise body, whose values are stored as they are produced.

Softmax over rows is four kernels in one group (``rowwise.py``): the row max, ``e = exp(x -
max)`` written to the output, the row sum of ``e``, ``e / sum`` in place. ``fuse`` keeps ``e``
apart so that ``exp`` runs once an element; so the sum read back each row that the kernel
before it had just written. Folded, the sum's code, at each element it would load from ``e``,
evaluates ``exp(x - max)`` there, stores it into ``e`` and adds the value it stored: a pass
over each row fewer, and the same bits. The reduction's schedule is the one it had (its lanes,
blocks, cascade, short rows in order): each element of the row is visited once, at the point
where it would have been loaded, and the value is the one the elementwise kernel would have
stored (its body, on the same inputs, at the same precision); its other results are stored
there too. Where the elementwise body calls the math library, the sum computes its elements
several groups side by side as a sum of such a body does (``reduction._Cascade._groups``).

Folded when (``producer_folds``): the two kernels are consecutive members of the group, over
one domain of rank 2, the first all parallel (no positions, clamps, indexed operands, copies,
regions, exact-math fallbacks), each of its results written through the identity map; the
second a float sum or product along dim 1 (``reduction.reassociation``, rounding, no epilogue)
reading exactly one of the first's result buffers, once, through the identity map; the first
reads nothing either kernel writes, and its results are at most ``FOLDED_BITS`` wide. A kernel
takes part in one fold at most.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen import scalar
from jitcore.codegen.cpu import reduction
from jitcore.codegen.kernel_body import KernelBody, Operand
from jitcore.codegen.llvm_types import PTR
from jitcore.codegen.plan import CompiledFunction
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

# Producers of wider results are not folded: softmax in float64 (exp) took 1-5% more thread
# time folded at 4096x1024 in 8 of 8 alternations, and the same in cache (64x1024), where
# float32 took 1-6% less in cache and 2-20% less at 4096x1024 (docs/performance.md, "A row sum
# that computes its elementwise input").
FOLDED_BITS = 32


@dataclass(frozen=True)
class Producer:
    """The elementwise kernel a reduction folds in: its op, and which of its results the
    reduction's input ``reads`` (an operand position of the reduction) is."""

    op: Operation
    result: int
    reads: int

    @property
    def shaped(self) -> list:
        return [*self.op.operands, *self.op.results]

    def install(self, body: KernelBody, operands: list[Operand]) -> None:
        """Make ``body`` (the reduction's) compute its input ``reads`` by the producer's body
        over ``operands`` (the producer's arrays), storing the producer's results there."""
        op, plain = self.op, body.load
        own = KernelBody(body.b, op, operands, list(op.indexing_maps), body.precision)
        n_in = len(op.operands)

        def load(index, ivs, value):
            if index != self.reads:
                return plain(index, ivs, value)
            own.precision = body.precision  # an exact-math rerun swaps it
            ys = own.evaluate(ivs)
            for k, (r, y) in enumerate(zip(op.results, ys)):
                own.store(n_in + k, ivs, r, y)
            return ys[self.result]

        body.load = load
        body.cost_op = op  # the math the body now runs: how its elements are grouped


def producer_folds(plan: CompiledFunction, ops: list[Operation],
                   members: list[int]) -> dict[int, tuple[int, Producer]]:
    """{reduction's launch: (producer's launch, Producer)} for the folds among a row group's
    ``members`` (launch indices, in order)."""
    folds: dict[int, tuple[int, Producer]] = {}
    for p, r in zip(members, members[1:]):
        if p in folds:
            continue
        producer = _fold(plan, ops[p], ops[r], p, r)
        if producer is not None:
            folds[r] = (p, producer)
    return folds


def _fold(plan: CompiledFunction, p_op: Operation, r_op: Operation, p: int, r: int) -> Producer | None:
    domain = tuple(p_op.domain())
    if (len(domain) != 2 or tuple(r_op.domain()) != domain or not _plain_elementwise(p_op)
            or tuple(r_op.iterator_types) != (kernel.PARALLEL, kernel.REDUCTION)
            or r_op.epilogue is not None or r_op.indexed or r_op.clamped or r_op.scan_dim is not None
            or kernel.checks_indices(r_op)):
        return None
    if any(r.type.element.bitwidth > FOLDED_BITS for r in p_op.results):
        return None
    merging = reduction.reassociation(r_op)
    if not isinstance(merging, reduction.PerResult) or not merging.rounds:
        return None
    p_launch, r_launch = plan.launches[p], plan.launches[r]
    p_in, r_in = len(p_op.operands), len(r_op.operands)
    p_inputs, p_outputs = p_launch.operands[:p_in], p_launch.operands[p_in:]
    r_inputs, r_outputs = r_launch.operands[:r_in], r_launch.operands[r_in:]
    if set(p_inputs) & (set(p_outputs) | set(r_outputs)) or len(set(p_outputs)) != len(p_outputs):
        return None
    reads = [(k, p_outputs.index(s)) for k, s in enumerate(r_inputs) if s in p_outputs]
    if len(reads) != 1:
        return None
    k, result = reads[0]
    if (p_outputs[result].kind != "buffer" or not r_op.indexing_maps[k].is_identity
            or tuple(r_op.operands[k].type.shape) != domain):
        return None
    return Producer(p_op, result, k)


def _plain_elementwise(op: Operation) -> bool:
    """All parallel, each result written at its point, nothing but scalar arithmetic and
    loads through maps in the body, and no rerun with exact math."""
    n_in = len(op.operands)
    return (not op.has_reduction and not op.indexed and not op.clamped
            and not any(i >= 0 for i in op.copy_inputs) and not kernel.checks_indices(op)
            and all(m.is_identity for m in op.indexing_maps[n_in:])
            and all(tuple(r.type.shape) == tuple(op.domain()) for r in op.results)
            and not any(isinstance(inner, kernel.IndexOp) or inner.regions
                        or scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op)))


def emit_folded(module: ll.Module, name: str, fused: ll.Function, n_producer: int, sized: bool,
                n_reduction: int) -> ll.Function:
    """``name(producer's arguments, reduction's arguments)``, as a row group passes the two
    kernels' (``rowwise.emit_group``; the producer's are its ``n_producer`` arrays and, where
    ``sized``, the run-time extents: ``kernel_function``'s, less ``lo, hi``), given to ``fused``
    (the reduction emitted with the producer folded: its ``n_reduction`` arrays, the producer's
    arrays, then the rest of the reduction's arguments)."""
    f_args = list(fused.args)
    reduction_args = f_args[:n_reduction] + f_args[n_reduction + n_producer:]
    p_types = [PTR] * (n_producer + sized)
    params = [*p_types, *(a.type for a in reduction_args)]
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), params), name)
    fn.linkage = "internal"
    names = [""] * n_producer + ["sizes"] * sized + [a.name for a in reduction_args]
    for mine, theirs in zip(fn.args, names):
        mine.name = theirs  # the group finds ``sizes`` by its name
    p_args, r_args = fn.args[:len(p_types)], fn.args[len(p_types):]
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    b.call(fused, [*r_args[:n_reduction], *p_args[:n_producer], *r_args[n_reduction:]])
    b.ret_void()
    return fn
