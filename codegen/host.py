"""The host side of a compiled function: where each tensor lives, the kernel launches, the
program of steps that runs them, and the LLVM entry point that runs the program.

``plan_function`` is target-neutral: it walks an optimised function (kernels, constants,
reshapes, and array-level ``scf`` ops whose regions hold more of the same), gives every tensor
a ``Storage``, lists one ``Launch`` per kernel and makes the program: a ``Run`` per launch in
program order, and for an ``scf`` op a ``ForLoop``, ``WhileLoop`` or ``Branch`` of the steps of
its regions. The values an ``scf`` op carries (its results and its blocks' carried arguments)
share one buffer each, never an init's storage (the init may be the caller's array, or used
again after the loop): the inits are copied in before the loop, and each iteration's yields are
copied in at its end, as if all at once (a value that another carried value's buffer holds is
staged first). An ``scf.for``'s induction variable is a 0-d buffer the entry writes before each
iteration, so kernels read it as any 0-d input. Every buffer is the caller's, allocated once
per call, however many times a loop runs.

``emit_entry`` is the entry point of a target whose kernels are functions in the same LLVM
module (the CPU): ``void @entry(i64* desc)`` reads the descriptor array laid out as
``codegen/plan.py`` describes and runs the program, its loops and branches as LLVM loops and
branches (bounds and conditions loaded from their storage), each launch's kernel on its
operands' data pointers (and the element strides of strided arguments), reading nothing but the
plan. How a launch runs (one call, chunks on threads, a grid) is the target's ``LaunchEmitter``.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np
from llvmlite import ir as ll

from jitcore.codegen import pcg64, scalar
from jitcore.codegen.errors import CodegenError
from jitcore.codegen.kernel_body import ZERO_STEP
from jitcore.codegen.llvm_types import I8, I64, PTR, declare
from jitcore.codegen.loops import Sizes
from jitcore.codegen.masked_rows import window_update
from jitcore.codegen.plan import (
    ArrayHeader,
    Branch,
    Callback,
    CompiledFunction,
    Copy,
    ForLoop,
    Launch,
    Run,
    Storage,
    WhileLoop,
)
from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import BlockArgument, Operation
from jitcore.ir.dialects import array, kernel, scf

STATUS = Storage("status", 0)  # the status words, for kernels that check indices
CALLBACK_FAILED = kernel.CALLBACK_FAILED  # status word 0 after a callback raised
# struct timespec on the 64-bit targets we build for: seconds and nanoseconds, as C longs.
TIMESPEC = ll.LiteralStructType([I64, I64])
# The caller's trampoline: int32 (int64 callback's place in the plan, i8** operand data); nonzero:
# it raised.
TRAMPOLINE = ll.FunctionType(ll.IntType(32), [I64, PTR.as_pointer()])

# Emits one launch at the builder's position: (builder, launch number, kernel, its arguments).
LaunchEmitter = Callable[[ll.IRBuilder, int, ll.Function, list[ll.Value]], None]


def call_once(b: ll.IRBuilder, index: int, kernel: ll.Function, args: list[ll.Value]) -> None:
    """A launch as one call of its kernel: the launch emitter of a target that never splits."""
    b.call(kernel, args)


def plan_function(func: Operation, target: str, symbol: str, arg_contiguous: tuple[bool, ...],
                  header: ArrayHeader | None) -> tuple[CompiledFunction, list[Operation]]:
    """The calling convention, launches and program of ``func`` (its code still empty), and
    the op each launch runs, in launch order. Launch ``i`` runs kernel ``<symbol>_k<i>``."""
    args = func.body.args
    ops = list(_walk(func.body))
    # A reshaped argument is a view of its data, and a copied one (a loop's init, a yield) is
    # copied as bytes: both need the argument's elements in C order.
    contiguous = {id(op.operands[0]) for op in ops if isinstance(op, array.ReshapeOp)}
    contiguous |= {id(v) for op in ops for v in _copied_operands(op)}
    # A callback's operands become NumPy arrays from their data pointers alone.
    contiguous |= {id(v) for op in ops if isinstance(op, array.CallbackOp) for v in op.operands}
    needs_contiguous = tuple(id(a) in contiguous for a in args)
    strided = tuple(not (c or n) for c, n in zip(arg_contiguous, needs_contiguous))
    plan = CompiledFunction(target, symbol, strided, needs_contiguous, header)
    plan.has_status = any(isinstance(op, kernel.GenericOp) and kernel.checks_indices(op)
                          or _may_step_by_zero(op) or isinstance(op, array.CallbackOp) for op in ops)
    planner = _Planner(plan, symbol, {id(a): Storage("input", i) for i, a in enumerate(args)})
    plan.program = planner.steps(func.body)
    return plan, planner.kernels


def _walk(block) -> Iterator[Operation]:
    """Every op of ``block`` and of the regions of its scf ops, in program order (kernel bodies,
    being scalar code, are not entered)."""
    for op in block.ops:
        yield op
        if isinstance(op, (scf.ForOp, scf.WhileOp, scf.IfOp)):
            for region in op.regions:
                yield from _walk(region.block)


def _copied_operands(op: Operation) -> tuple:
    if isinstance(op, scf.ForOp):
        return tuple(op.inits)
    if isinstance(op, (scf.WhileOp, scf.YieldOp)):
        return tuple(op.operands)
    return ()


def _may_step_by_zero(op: Operation) -> bool:
    """An scf.for whose step is not a constant other than zero."""
    if not isinstance(op, scf.ForOp):
        return False
    step = op.step.owner
    return not (isinstance(step, array.ConstantOp) and int(step.value.array) != 0)


class _Planner:
    """Storage for every value and the steps of every block, in one walk in program order
    (so a function without loops gets its buffers, constants and launches numbered as they
    always were)."""

    def __init__(self, plan: CompiledFunction, symbol: str, storage: dict[int, Storage]):
        self.plan = plan
        self.symbol = symbol
        self.storage = storage
        self.kernels: list[Operation] = []
        self.loops = 0
        self.sharing: dict[Storage, list] = {}  # the values each storage holds, in turn

    def bind(self, value, storage: Storage) -> None:
        self.storage[id(value)] = storage
        self.sharing.setdefault(storage, []).append(value)

    def buffer(self, shape: tuple[int, ...], dtype) -> Storage:
        self.plan.buffers.append((tuple(shape), np.dtype(dtype)))
        return Storage("buffer", len(self.plan.buffers) - 1)

    def buffer_for(self, value) -> Storage:
        return self.buffer(value.type.shape, numpy_dtype(value.type.element))

    def of(self, value) -> Storage:
        return self.storage[id(value)]

    def steps(self, block) -> list:
        """The steps of ``block``'s ops; its terminator is the caller's business, except
        ``func.return``, which sets the outputs."""
        steps: list = []
        for position, op in enumerate(block.ops):
            if isinstance(op, kernel.GenericOp):
                steps.append(self.launch(op, block, position))
            elif isinstance(op, array.ConstantOp):
                self.bind(op.result, Storage("constant", len(self.plan.constants)))
                self.plan.constants.append(_buffer_of(op.value.array))
            elif isinstance(op, array.ReshapeOp):
                self.bind(op.result, self.of(op.operands[0]))
            elif isinstance(op, scf.ForOp):
                steps.extend(self.for_loop(op))
            elif isinstance(op, scf.WhileOp):
                steps.extend(self.while_loop(op))
            elif isinstance(op, scf.IfOp):
                steps.extend(self.branch(op))
            elif isinstance(op, array.CallbackOp):
                steps.append(self.callback(op))
            elif op.op_name == "func.return":
                self.plan.outputs = [(self.of(v), v.type.shape) for v in op.operands]
            elif not isinstance(op, (scf.YieldOp, scf.ConditionOp)):
                raise CodegenError(
                    f"'{op.op_name}' cannot be compiled directly: run the 'kernelize' pass "
                    "first, which turns array ops into kernels"
                )
        return steps

    def _dies_in_branch(self, value, block, position: int) -> bool:
        """Whether ``value``, from a block around the ``scf.if`` whose arm ``block`` is (or around
        ifs nested in one another, each in an arm of the one around it), is read (its buffer,
        under any name) by nothing that may run after ``block``'s op at ``position``: in each arm
        only up to there, in an if's other arm (which does not run when this one does), around
        each if only before it. Its buffer may then be written in place in the arm: a row
        written under a traced if (``if ny < H: if free[ny]: q[t] = ...``), not the whole array
        copied each time."""
        storage = self.of(value)
        while True:
            branch = block.parent.parent if block.parent is not None else None
            if not isinstance(branch, scf.IfOp):
                return False
            for shared in self.sharing.get(storage, ()):
                for user, _ in shared.uses:
                    mine = _in_block(user, block)
                    if mine is not None and block.position(mine) > position:
                        return False
            if not self._dead_after(storage, branch):
                return False
            if _defined_in(value, branch.parent):
                return True
            block, position = branch.parent, branch.parent.position(branch)

    def _dead_after(self, storage: Storage, branch: scf.IfOp) -> bool:
        """Whether nothing reads ``storage`` after ``branch`` in the block around it (so the
        if's result may be written there)."""
        if storage.kind != "buffer":
            return False
        outer = branch.parent
        where = outer.position(branch)
        for shared in self.sharing.get(storage, ()):
            if not _defined_in(shared, outer):
                continue  # a loop's results after it, the if's own: the values it holds next
            for user, _ in shared.uses:
                top = _in_block(user, outer)
                if top is None or (top is not branch and outer.position(top) > where):
                    return False
        return True

    def callback(self, op: array.CallbackOp) -> Callback:
        for r in op.results:  # filled by the Python function, in a buffer of its own
            self.bind(r, self.buffer_for(r))
        self.plan.callbacks[op.callback] = tuple(
            (tuple(v.type.shape), numpy_dtype(v.type.element)) for v in op.operands) + tuple(
            (tuple(r.type.shape), numpy_dtype(r.type.element), "out") for r in op.results)
        return Callback(op.callback, tuple(self.of(v) for v in (*op.operands, *op.results)), op.native)

    def launch(self, op: kernel.GenericOp, block, position: int) -> Run:
        # Imported here: jitcore.codegen.cpu's package imports this module (through rowwise),
        # so a module-level import made `from jitcore.codegen import host` circular when first.
        from jitcore.codegen.cpu.sort_lanes import untouched_results

        untouched = untouched_results(op) if self.plan.target == "cpu" else ()
        window = False  # a window update in its input's buffer: its work is the window
        for k, r in enumerate(op.results):
            if k in untouched:  # scratch the kernel's own code does without: one element
                self.bind(r, self.buffer((), numpy_dtype(r.type.element)))
                continue
            taken = self.taken_over(op, k, block, position)
            window = window or (taken is not None and op.copy_inputs[k] < 0)
            if taken is None:
                taken = self.elementwise_in_place(op, k, block, position)
            self.bind(r, taken if taken is not None else self.buffer_for(r))
        operands = tuple(self.of(v) for v in (*op.operands, *op.results))
        if kernel.checks_indices(op):
            operands += (STATUS,)
        name = f"{self.symbol}_k{len(self.kernels)}"
        # (not cut for threads by the whole array's size: a CSR row's window is a few elements)
        extent = () if window else _parallel_extent(op)
        self.plan.launches.append(Launch(name, operands, extent, results=len(op.results),
                                         flops=_flops(op)))
        self.kernels.append(op)
        return Run(len(self.plan.launches) - 1)

    def taken_over(self, op: kernel.GenericOp, k: int, block, position: int) -> Storage | None:
        """The buffer of the input that result ``k`` starts as a copy of, when the result may
        be written in it: the input dies here (``out[i] = v`` in a loop then writes one element
        of the carried buffer, not a copy of all of it per step; the kernel skips a copy onto
        itself). Only a buffer of this block's own value, read by nothing after ``op`` (no
        later op, yield or reshape of it), and by ``op`` only as the copy's source; not where
        the kernel may run twice (the exact-math rerun would apply a scatter's updates again);
        the CPU only (a GPU grid copies and writes in parallel). A window update
        (``masked_rows.window_update``: ``data[a:b] /= s`` as a select over the whole axis) is
        its input outside the window: in the input's buffer, only the window is computed."""
        source = op.copy_inputs[k]
        window = window_update(op) if source < 0 and self.plan.target == "cpu" else None
        if window is not None:
            source = window.source
        if source < 0 or self.plan.target != "cpu" or op.copy_inputs.count(source) > 1:
            return None  # (two results copying one input are a sort's two buffers)
        if any(name in op.attributes for name in _OWN_CODE):
            return None
        value = _viewed(op.operands[source])
        storage = self.of(value)
        if storage.kind != "buffer":
            return None
        if not _defined_in(value, block) and not self._dies_in_branch(value, block, position):
            return None
        if sum(self.of(v) == storage for v in op.operands) != 1:
            return None
        if op.body.args[source].uses and window is None and not _reads_before_writes(op, source, k):
            return None  # (a window update reads its input at each point's own element only)
        if any(scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op)):
            return None
        later = set(map(id, block.ops[position + 1:]))
        for shared in self.sharing.get(storage, ()):
            if not _defined_in(shared, block):
                continue  # a loop's results after it: the values the buffer holds next
            for user, _ in shared.uses:
                top = _in_block(user, block)
                if top is None or id(top) in later:
                    return None
        return storage

    def elementwise_in_place(self, op: kernel.GenericOp, k: int, block, position: int) -> Storage | None:
        """The buffer of an input that result ``k`` of an elementwise kernel in a loop's body
        may be written over: read at each point's own element only (identity maps, a plain
        operand, the result's type), held by no other operand, and dying here (no later op or
        yield of the body reads it). ``inv ^= s; s >>= 1`` in a ``while`` then writes each
        carried array in its own buffer, as NumPy's in-place ops do, where a new buffer per
        step costs a read of the target's lines before each is written (a third more memory
        traffic). The kernel's pointers stay ``noalias``, as ``rowwise.share_outputs``' in-place
        outputs: no point reads another's element. The CPU only."""
        loop = block.parent.parent if block.parent is not None else None
        if self.plan.target != "cpu" or not isinstance(loop, (scf.WhileOp, scf.ForOp)):
            return None
        if block is not loop.body:
            return None  # (a while's condition block: its arguments are the body's too)
        if op.copy_inputs[k] >= 0 or op.scan_dim is not None or op.indexed or op.clamped \
                or any(kind != kernel.PARALLEL for kind in op.iterator_types) \
                or any(name in op.attributes for name in _OWN_CODE) or not op.output_maps[k].is_identity:
            return None
        if any(scalar.needs_exact_fallback(inner) for inner in kernel.body_ops(op)):
            return None
        taken = {self.of(r) for r in op.results[:k]}
        later = set(map(id, block.ops[position + 1:]))
        result = op.results[k]
        for value, amap in zip(op.operands, op.input_maps):
            storage = self.of(value)
            if value.type != result.type or not amap.is_identity or storage.kind != "buffer" \
                    or storage in taken or sum(self.of(v) == storage for v in op.operands) != 1:
                continue
            if not _defined_in(_viewed(value), block) or not all(
                    _carried_by(shared, loop) or _in_block(_definer(shared), block) is not None
                    for shared in self.sharing.get(storage, ())):
                continue  # (a buffer an if's result shares with a value from outside the loop)
            if all(top is not None and id(top) not in later
                   for shared in self.sharing.get(storage, ()) if _defined_in(shared, block)
                   for user, _ in shared.uses for top in [_in_block(user, block)]):
                return storage
        return None

    def carried(self, op: Operation, inits, blocks) -> tuple[list[Storage], list[Copy]]:
        """Storage for ``op``'s carried values (its results and the carried args of ``blocks``)
        and the copies of the inits into it: one buffer per value, an init's own where that
        init dies at the loop (``_dies_into``), else a new one (an init may be the caller's
        array, or read again later)."""
        storages = [self.of(v) if self._dies_into(v, op) else self.buffer_for(r)
                    for v, r in zip(inits, op.results)]
        for r, s in zip(op.results, storages):
            self.bind(r, s)
        for block in blocks:
            for arg, s in zip(block.args[len(block.args) - len(storages):], storages):
                self.bind(arg, s)
        return storages, [_copy(self.of(v), s, v) for v, s in zip(inits, storages) if self.of(v) != s]

    def _dies_into(self, init, op: Operation) -> bool:
        """Whether loop ``op`` may carry ``init`` in its buffer: a buffer of a value of the
        block around the loop (a carried value of a loop around it too: ``S[s] += draw`` in a
        loop of drawn length inside a loop over ``s``), which ``op`` takes once, as an init,
        and which nothing reads after it, under any name. The loop then writes it in place,
        where a copy of the whole array in and out of the inner loop at every step of the
        outer one cost more than all the work. The CPU only, as ``taken_over``."""
        storage = self.of(init)
        outer = op.parent
        if storage.kind != "buffer" or self.plan.target != "cpu" or not _defined_in(_viewed(init), outer):
            return False
        if sum(self.of(v) == storage for v in op.operands) != 1:
            return False
        where = outer.position(op)
        for shared in self.sharing.get(storage, ()):
            if not _defined_in(shared, outer):
                continue  # a loop's results after it: the values the buffer holds next
            for user, _ in shared.uses:
                top = _in_block(user, outer)
                if top is None or (top is op and user is not op) or outer.position(top) > where:
                    return False
        return True

    def moves(self, values, targets: list[Storage]) -> list[Copy]:
        """Copies of ``values`` into ``targets`` as if all at once: a value whose storage is
        another target (a loop that swaps two carried values) is first staged in a buffer of
        its own, so no copy reads a target that an earlier one wrote."""
        staged, copies = [], []
        for value, target in zip(values, targets):
            source = self.of(value)
            if source == target:
                continue
            if source in targets:
                stage = self.buffer_for(value)
                staged.append(_copy(source, stage, value))
                source = stage
            copies.append(_copy(source, target, value))
        return staged + copies

    def swaps(self, block, targets: list[Storage]) -> tuple[Copy, ...]:
        """The yields of a loop's ``block`` that may trade buffers with their carried value
        instead of being copied into it: a kernel result of the block itself (so written
        whole each iteration, and read by nothing after the iteration ends) yielded once, in
        a buffer of its own."""
        yields = block.terminator.operands
        counts = Counter(self.of(v) for v in yields)
        # A result written in another carried value's buffer (``un[1:-1] = ...; u, un = un, u``
        # takes over un's) is not traded: that buffer is a target itself, of a move or a swap.
        return tuple(_copy(self.of(v), target, v) for v, target in zip(yields, targets)
                     if isinstance(v.owner, kernel.GenericOp) and v.owner.parent is block
                     and counts[self.of(v)] == 1 and self.of(v) != target  # (not written in it)
                     and self.of(v) not in targets)

    def loop_body(self, block, targets: list[Storage]) -> tuple[tuple, tuple[Copy, ...]]:
        """The steps of a loop's body, its yields moved into ``targets``, and the swaps."""
        steps = self.steps(block)
        swaps = self.swaps(block, targets)
        swapped = {swap.target for swap in swaps}
        kept = [(v, t) for v, t in zip(block.terminator.operands, targets) if t not in swapped]
        moves = self.moves([v for v, _ in kept], [t for _, t in kept])
        return tuple(steps + moves), swaps

    def for_loop(self, op: scf.ForOp) -> list:
        iv = self.buffer((), np.int64)
        self.bind(op.induction_variable, iv)
        storages, inits = self.carried(op, op.inits, [op.body])
        body, swaps = self.loop_body(op.body, storages)
        number, self.loops = self.loops, self.loops + 1
        loop = ForLoop(self.of(op.lower), self.of(op.upper), self.of(op.step), iv, body,
                       _may_step_by_zero(op), number, swaps)
        return [*inits, loop]

    def while_loop(self, op: scf.WhileOp) -> list:
        storages, inits = self.carried(op, op.operands, [op.cond, op.body])
        before = self.steps(op.cond)
        condition = self.of(op.cond.terminator.operands[0])
        body, swaps = self.loop_body(op.body, storages)
        return [*inits, WhileLoop(tuple(before), condition, body, swaps)]

    def branch(self, op: scf.IfOp) -> list:
        blocks = (op.then_block, op.else_block)
        steps = [self.steps(block) for block in blocks]
        yields = [[block.terminator.operands[k] for block in blocks] for k in range(len(op.results))]
        # Each result in a storage of its own: an arm that yields one value as two results
        # (``return x`` before ``x[k] = v`` in a loop: the result so far and x are both x) would
        # otherwise have the other arm's moves write one result over the other.
        storages: list[Storage | None] = [None] * len(op.results)
        for k, values in enumerate(yields):
            # both arms leave the value in one buffer (a row written in place under the if, the
            # array unchanged on the other path): the result is that buffer, not a copy of it
            held = {self.of(v) for v in values}
            one = next(iter(held)) if len(held) == 1 else None
            if one is not None and one.kind == "buffer" and one not in storages:
                storages[k] = one
        for k, values in enumerate(yields):
            if storages[k] is not None:
                continue
            # an arm passing on a value that dies at the if (an early return's result so far,
            # the loop's carry) keeps it where it is: only the other arm copies
            one = next((self.of(v) for v in reversed(values)
                        if _defined_in(_viewed(v), op.parent) and self.of(v).kind == "buffer"
                        and self.of(v) not in storages and self._dead_after(self.of(v), op)), None)
            storages[k] = one if one is not None else self.buffer_for(op.results[k])
        for r, storage in zip(op.results, storages):
            self.bind(r, storage)
        arms = [tuple(s + self.moves(block.terminator.operands, storages)) for s, block in zip(steps, blocks)]
        return [Branch(self.of(op.condition), *arms)]


# Kernels the CPU backend emits from code of their own rather than from their body (the sorts
# of codegen/cpu/sort*.py), which may read an input after writing a result: never in place.
_OWN_CODE = ("sort_axis", "select_axis", "sort_lanes_axis", "head_sort")


def _reads_before_writes(op: kernel.GenericOp, source: int, k: int) -> bool:
    """Whether a kernel run once (no iteration dims, no loop inside) reads its input ``source``
    only before it first writes result ``k``, the copy of it, in the body's order: in place,
    those reads still see the input's values (``seen[ny, nx] == 0`` then ``seen[ny, nx] = 1``
    under an if: a grid written one element a step, not copied whole each step)."""
    if len(op.regions) != 1:
        return False
    if op.domain() and not _points_own_elements(op, source, k):
        return False
    arg, written = op.body.args[source], False
    for inner in kernel.body_ops(op):
        if isinstance(inner, (scf.ForOp, scf.WhileOp)):
            return False
        if written and any(v is arg for v in inner.operands):
            return False
        written = written or (inner.op_name == "kernel.insert" and inner.attributes.get("result") == k)
    return True


def _points_own_elements(op: kernel.GenericOp, source: int, k: int) -> bool:
    """Whether each point of ``op``'s (parallel) domain reads its input ``source`` and writes
    result ``k`` only at elements no other point writes: every dim ``d`` of the domain is, as
    ``kernel.index {dim = d}`` itself, the same position of every read and every write (a
    window ``img[0, x + 1] += img[0, x] * 0.5`` of a carried array: point ``c`` reads and
    writes only elements whose last position is ``c``), or one value ``s + d`` of it, ``s``
    the same at every point (``_own_dim``: a window at a traced start, ``canvas[y:y + h, x:x +
    w] = ...``, XLA's dynamic_update_slice). Two points differ in some dim, so in that position
    too, whatever the other positions are: in place, no point sees another's write, and the
    kernel is its window, not a copy of the whole array."""
    if any(kind != "parallel" for kind in op.iterator_types) or op.scan_dim is not None:
        return False
    arg, places = op.body.args[source], None
    for inner in kernel.body_ops(op):
        if inner.op_name == "kernel.insert" and inner.attributes.get("result") == k:
            positions = inner.operands[1:]
        elif any(v is arg for v in inner.operands):
            if inner.op_name != "kernel.extract" or inner.operands[0] is not arg \
                    or any(v is arg for v in inner.operands[1:]):
                return False
            positions = inner.operands[1:]
        else:
            continue
        dims = {}
        for place, v in enumerate(positions):
            found = _own_dim(op, v)
            if found is not None:
                dims.setdefault(found[0], (place, found[1]))
        if places is None:
            places = dims
            if sorted(places) != list(range(len(op.domain()))):
                return False
        elif any(dims.get(d) != place for d, place in places.items()):
            return False
    return places is not None


_CASTS = ("arith.bitcast", "arith.index_cast")


def _own_dim(op: kernel.GenericOp, v) -> tuple[int, int | None] | None:
    """``(d, key)`` where position ``v`` is dim ``d``'s position itself (key None) or ``s +``
    it, ``s`` a value the same at every point (key: ``v``'s id, so that reads and writes must
    share the one value); else None. A checked index (``kernel.check_index``, which wraps a
    negative one) is neither: two points could wrap onto one element."""
    while getattr(v, "op", None) is not None and v.op.op_name in _CASTS:
        v = v.op.operands[0]
    owner = getattr(v, "op", None)
    if owner is not None and owner.op_name == "kernel.index":
        return owner.attributes["dim"], None
    if owner is None or owner.op_name != "arith.addi":
        return None
    for a, b in (owner.operands, owner.operands[::-1]):
        inner = _own_dim(op, b)
        if inner is not None and inner[1] is None and _same_at_every_point(op, a):
            return inner[0], id(v)
    return None


def _same_at_every_point(op: kernel.GenericOp, v, depth: int = 8) -> bool:
    """Whether ``v`` is computed in ``op``'s body from constants and inputs read at one element
    (a traced start, clamped), by pure scalar ops."""
    args = op.body.args
    if v in args[:len(op.operands)]:
        i = args.index(v)
        return i not in op.indexed and all(e.dim is None for e in op.input_maps[i].exprs)
    owner = getattr(v, "op", None)
    if owner is None or depth == 0 or owner.regions or not owner.op_name.startswith("arith."):
        return False
    return all(_same_at_every_point(op, u, depth - 1) for u in owner.operands)


def _viewed(value):
    """The value whose buffer ``value`` is a view of: through its reshapes, which share the
    buffer. Where that value is defined, not the view, says how long the buffer lives: a view
    made in an arm (``solve(H, g)`` after an ``if ...: break``, its ``g`` reshaped to a column
    there) of a value that the code after the arm still reads must not be written in place."""
    while not isinstance(value, BlockArgument) and isinstance(value.owner, array.ReshapeOp):
        value = value.owner.operands[0]
    return value


def _defined_in(value, block) -> bool:
    owner = value.block if isinstance(value, BlockArgument) else value.owner.parent
    return owner is block


def _definer(value) -> Operation | None:
    """The op whose region or result defines ``value`` (a block argument's region's op)."""
    if isinstance(value, BlockArgument):
        return value.block.parent.parent if value.block.parent is not None else None
    return value.owner


def _carried_by(value, loop: Operation) -> bool:
    """Whether ``value`` is one of ``loop``'s carried values: a result, an argument of its
    blocks, or an init whose buffer the loop carries it in (``_dies_into``: read by nothing
    after the loop)."""
    if any(v is value for v in loop.operands):
        return True
    if isinstance(value, BlockArgument):
        return value.block.parent is not None and value.block.parent.parent is loop
    return value.owner is loop


def _in_block(op: Operation, block) -> Operation | None:
    """``op`` or the op of ``block`` whose regions hold it; None when it is not in ``block``."""
    while op is not None and op.parent is not block:
        op = op.parent_op
    return op


def _copy(source: Storage, target: Storage, value) -> Copy:
    itemsize = numpy_dtype(value.type.element).itemsize
    return Copy(source, target, _nbytes(value), tuple(value.type.shape), itemsize)


def _nbytes(value) -> int:
    return math.prod(value.type.shape) * numpy_dtype(value.type.element).itemsize


def _flops(op: kernel.GenericOp) -> int:
    """Floating-point ops of a kernel: its body's float arithmetic (``arith.*f``, ``fma`` as
    two) and math functions (one each: a rough count, for a profile's GFLOP/s), per point of
    its domain."""
    per_point = 0
    for body_op in op.body.ops:
        name = body_op.name
        if name.startswith("math."):
            per_point += 2 if name == "math.fma" else 1
        elif name.startswith("arith.") and name.endswith("f") and name != "arith.cmpf":
            per_point += 1
    return per_point * math.prod(op.domain())


def _parallel_extent(op: kernel.GenericOp) -> tuple[int, ...]:
    """The extents of a kernel's parallel dims; none for a kernel that must run in order (it
    reports the first bad index in C order, or a scatter applies its updates in order) or
    whose result starts as a copy of an input (the copy covers the whole result, the domain
    maybe only a part: every piece of the domain would copy it again over the others' writes)."""
    if kernel.runs_in_order(op) or any(source >= 0 for source in op.copy_inputs):
        return ()
    return tuple(d for d, it in zip(op.domain(), op.iterator_types) if it == kernel.PARALLEL)


def strided_operands(plan: CompiledFunction, launch: Launch) -> list[bool]:
    """Per array operand of ``launch``: whether its kernel takes its strides as parameters (a
    strided argument) rather than knowing them (C-contiguous storage)."""
    return [s.kind == "input" and plan.arg_strided[s.index] for s in launch.operands if s != STATUS]


def operand_layout_classes(launch: Launch, strided: list[bool], layouts: tuple[str, ...]) -> list[str | None]:
    """Per array operand of ``launch`` (as ``strided_operands``): a strided argument's layout
    class (``ir/layout_class.py``), else None."""
    operands = [s for s in launch.operands if s != STATUS]
    return [layouts[s.index] if flag else None for s, flag in zip(operands, strided)]


def declare_entry(module: ll.Module, symbol: str) -> ll.Function:
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [PTR]), symbol)
    fn.args[0].name = "desc"
    return fn


def emit_entry(fn: ll.Function, plan: CompiledFunction, arg_types: list[tuple[int, int]],
               kernels: list[ll.Function], launch: LaunchEmitter = call_once,
               sizes: Sizes | None = None, sources: tuple[tuple[int, int], ...] = ()) -> None:
    """The body of the entry point ``fn``: load every slot, then run ``kernels`` (one per
    launch) in order, each as ``launch`` emits it. ``arg_types`` holds each argument's (rank,
    itemsize). A size-generic function's ``sizes`` are bound to the extents ``sources`` names
    (``size_symbols``), read from the arguments' headers into an i64 array on the stack, whose
    address (``sizes.pointer``) the launch emitter passes to the kernels that take it."""
    _Entry(fn, plan, arg_types).run(kernels, launch, sizes, sources)


# Functions are compiled size-generic (see ``size_symbols``); the size-generic benchmark
# (tools/bench_size_generic.py) sets it to False to compile the fixed-size code it compares with.
SIZE_GENERIC = True


def size_symbols(func: Operation, header: ArrayHeader | None) -> tuple[tuple[int, ...], tuple]:
    """The symbols of a size-generic function (``loops.Sizes``): each distinct extent above 1
    of its arguments, by its value at this compile, and where the entry reads it at run time
    (argument, axis). None without an array header: the portable descriptor passes no shapes,
    and such a function keeps one compile per size."""
    if header is None or not SIZE_GENERIC:
        return (), ()
    symbols, sources = [], []
    for i, arg in enumerate(func.body.args):
        for axis, n in enumerate(arg.type.shape):
            if n > 1 and n not in symbols:
                symbols.append(n)
                sources.append((i, axis))
    return tuple(symbols), tuple(sources)


class _Entry:
    def __init__(self, fn: ll.Function, plan: CompiledFunction, arg_types: list[tuple[int, int]]):
        self.plan = plan
        self.arg_types = arg_types
        self.fn = fn
        self.b = ll.IRBuilder(self.fn.append_basic_block("entry"))
        self.slot = 0
        self.pointers: dict[Storage, ll.Value] = {}
        self.strides: dict[Storage, list[ll.Value]] = {}  # strided arguments only
        self.headers: dict[Storage, ll.Value] = {}  # with an array header: each array's
        self.sizes: Sizes | None = None  # a size-generic function's run-time extents

    def run(self, kernels: list[ll.Function], launch: LaunchEmitter, sizes: Sizes | None = None,
            sources: tuple[tuple[int, int], ...] = ()) -> None:
        plan = self.plan
        for i, (rank, itemsize) in enumerate(self.arg_types):
            self.load_array(Storage("input", i), rank if plan.arg_strided[i] else None, itemsize)
        if sizes:
            self.bind_sizes(sizes, sources)
            self.sizes = sizes
        for i in range(len(plan.buffers)):
            self.load_array(Storage("buffer", i))
        if plan.has_status:
            self.load_array(STATUS)
        for i in range(len(plan.constants)):
            self.load_array(Storage("constant", i))
        if plan.callbacks:
            self.trampoline = self.b.inttoptr(self.load_slot(), TRAMPOLINE.as_pointer())
            with self.b.goto_entry_block():  # one array for every call: no stack growth in loops
                width = max(1, max(len(types) for types in plan.callbacks.values()))
                self.callback_data = self.b.alloca(PTR, width)
        self.stamps = None
        if plan.profile:
            self.stamps = self.b.inttoptr(self.load_slot(), I64.as_pointer())
            with self.b.goto_entry_block():
                self.timespec = self.b.alloca(TIMESPEC)
            self.b.store(self.now(), self.stamp(0))
        self.kernels, self.launch = kernels, launch
        self.emit_steps(plan.program, in_loop=False)
        if self.stamps is not None:
            self.b.store(self.now(), self.stamp(1))
        self.b.ret_void()

    def stamp(self, word: int) -> ll.Value:
        return self.b.gep(self.stamps, [ll.Constant(I64, word)], source_etype=I64)

    def now(self) -> ll.Value:
        """CLOCK_MONOTONIC in nanoseconds, from the C library's ``clock_gettime``."""
        b = self.b
        module = self.fn.module
        i32 = ll.IntType(32)
        # declared as the thread pool declares it (an opaque pointer): one module may hold both
        clock = declare(module, "clock_gettime", i32, [i32, PTR])
        b.call(clock, [ll.Constant(i32, time.CLOCK_MONOTONIC), self.timespec])
        seconds, nanos = (b.load(b.gep(self.timespec, [ll.Constant(i32, 0), ll.Constant(i32, k)]))
                          for k in (0, 1))
        return b.add(b.mul(seconds, ll.Constant(I64, 1_000_000_000)), nanos)

    def timed(self, index: int, run) -> None:
        """``run()`` between two clock reads, added to launch ``index``'s words: its first
        start (kept from the first run in a loop), total nanoseconds and count."""
        if self.stamps is None or self.plan.launches[index].runs_with >= 0:
            run()
            return
        b = self.b
        start = self.now()
        run()
        elapsed = b.sub(self.now(), start)
        first, total, count = (self.stamp(2 + 3 * index + k) for k in range(3))
        runs = b.load(count)
        b.store(b.select(b.icmp_unsigned("==", runs, ll.Constant(I64, 0)), start, b.load(first)), first)
        b.store(b.add(b.load(total), elapsed), total)
        b.store(b.add(runs, ll.Constant(I64, 1)), count)

    def bind_sizes(self, sizes: Sizes, sources: tuple[tuple[int, int], ...]) -> None:
        """Each symbol's extent from its argument's header (its dimensions array, just before
        its strides in NumPy's C layout), stored in an array the kernels read, then bound."""
        b = self.b
        with b.goto_entry_block():
            array = b.alloca(I64, len(sources), name="sizes")
        for k, (arg, axis) in enumerate(sources):
            dims = self._field(self.headers[Storage("input", arg)], self.plan.header.shape_offset, PTR)
            value = b.load(b.gep(dims, [ll.Constant(I64, axis)], source_etype=I64), typ=I64)
            b.store(value, b.gep(array, [ll.Constant(I64, k)], source_etype=I64))
        sizes.bind(b, array)

    def emit_steps(self, steps, in_loop: bool) -> None:
        for step in steps:
            if isinstance(step, Run):
                self.emit_run(step.launch, in_loop)
            elif isinstance(step, Copy):
                self.emit_copy(step)
            elif isinstance(step, ForLoop):
                self.emit_for(step)
            elif isinstance(step, WhileLoop):
                self.emit_while(step)
            elif isinstance(step, Callback):
                self.emit_callback(step)
            elif isinstance(step, Branch):
                with self.b.if_else(self.load_condition(step.condition)) as (then, otherwise):
                    with then:
                        self.emit_steps(step.then, in_loop)
                    with otherwise:
                        self.emit_steps(step.otherwise, in_loop)
            else:
                raise CodegenError(f"internal error: unknown step {step!r}")

    def emit_run(self, index: int, in_loop: bool) -> None:
        planned = self.plan.launches[index]
        args = [self.pointers[s] for s in planned.operands]
        args += [x for s in planned.operands for x in self.strides.get(s, ())]
        self.timed(index, lambda: self.launch(self.b, index, self.kernels[index], args))
        if in_loop and STATUS in planned.operands:
            # A bad index stops the call: the loop's later values (a while's condition) are
            # not to be trusted, and NumPy would have raised here.
            self.stop_if(self.b.icmp_unsigned("!=", self.status_word(0), ll.Constant(I64, 0)))

    def emit_callback(self, step: Callback) -> None:
        """Call the trampoline on the calling thread, unless an earlier index went out of range
        (NumPy would have raised before the callback ran); if it raised, stop the call. A
        native draw draws here, calling back only when its state buffer says so."""
        b = self.b
        zero = ll.Constant(I64, 0)
        self.stop_if(b.icmp_unsigned("!=", self.status_word(0), zero))
        if step.native is None:
            self.call_back(step)
            return
        *params, out = (self.pointers[s] for s in step.operands[1:])
        shapes = [entry[0] for entry in self.plan.callbacks[step.number]]
        count = math.prod(shapes[-1])
        arrays = tuple(shape != () for shape in shapes[1:-1])  # (broadcast to the result's shape)
        pcg64.emit_draw(b, self.fn.module, step.native, self.pointers[step.operands[0]], params, out, count,
                        lambda: self.call_back(step), arrays)

    def call_back(self, step: Callback) -> None:
        b = self.b
        for k, storage in enumerate(step.operands):
            slot = b.gep(self.callback_data, [ll.Constant(I64, k)], source_etype=PTR)
            b.store(self.pointers[storage], slot)
        # the callback's place in the plan, not its process-wide number: the same code then
        # serves a trace of another size, whose own Executable maps places to its numbers
        place = list(self.plan.callbacks).index(step.number)
        failed = b.call(self.trampoline, [ll.Constant(I64, place), self.callback_data])
        with b.if_then(b.icmp_unsigned("!=", failed, ll.Constant(ll.IntType(32), 0)), likely=False):
            b.store(ll.Constant(I64, CALLBACK_FAILED), self.status_pointer(0))
            b.ret_void()

    def emit_copy(self, step: Copy) -> None:
        self.memcpy(self.pointers[step.target], self.pointers[step.source], step)

    def memcpy(self, target: ll.Value, source: ll.Value, step: Copy) -> None:
        """Copy ``step``'s bytes: in a size-generic function, computed from its run-time extents."""
        memcpy = self.fn.module.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
        nbytes: ll.Value = ll.Constant(I64, step.nbytes)
        if self.sizes is not None and self.sizes.depends(step.shape):
            nbytes = self.b.mul(self.sizes.product(self.b, step.shape), ll.Constant(I64, step.itemsize))
        self.b.call(memcpy, [target, source, nbytes, ll.Constant(ll.IntType(1), 0)])

    def emit_for(self, step: ForLoop) -> None:
        b = self.b
        lower, upper, by = (b.load(self.pointers[s], typ=I64) for s in (step.lower, step.upper, step.step))
        zero = ll.Constant(I64, 0)
        if step.check_step:
            with b.if_then(b.icmp_signed("==", by, zero), likely=False):
                # an earlier bad index keeps its report: NumPy would have stopped there
                with b.if_then(b.icmp_unsigned("==", self.status_word(0), zero)):
                    b.store(ll.Constant(I64, ZERO_STEP), self.status_pointer(0))
                    b.store(ll.Constant(I64, step.number), self.status_pointer(1))
                b.ret_void()
        upward = b.icmp_signed(">", by, zero)
        header, body, done = (self.fn.append_basic_block(f"for.{n}") for n in ("header", "body", "done"))
        before, traded = self.open_loop(header, step.swaps)
        iv = b.phi(I64)
        iv.add_incoming(lower, before)
        more = b.select(upward, b.icmp_signed("<", iv, upper), b.icmp_signed(">", iv, upper))
        b.cbranch(more, body, done)
        b.position_at_end(body)
        b.store(iv, self.pointers[step.iv])
        self.emit_steps(step.body, in_loop=True)
        iv.add_incoming(b.add(iv, by), b.block)
        self.close_loop(header, done, step.swaps, traded)

    def emit_while(self, step: WhileLoop) -> None:
        b = self.b
        header, body, done = (self.fn.append_basic_block(f"while.{n}") for n in ("cond", "body", "done"))
        traded = self.open_loop(header, step.swaps)[1]
        self.emit_steps(step.before, in_loop=True)
        b.cbranch(self.load_condition(step.condition), body, done)
        b.position_at_end(body)
        self.emit_steps(step.body, in_loop=True)
        self.close_loop(header, done, step.swaps, traded)

    def open_loop(self, header: ll.Block, swaps) -> tuple[ll.Block, list]:
        """Branch to ``header`` and start it with a phi per buffer that ``swaps`` trade: inside
        the loop, the steps use those phis as the buffers' pointers. Returns the block that
        entered the loop and, per swap, the (original pointer, phi) of target and source."""
        b = self.b
        before = b.block
        b.branch(header)
        b.position_at_end(header)
        traded = []
        for swap in swaps:
            pair = []
            for storage in (swap.target, swap.source):
                phi = b.phi(PTR)
                phi.add_incoming(self.pointers[storage], before)
                pair.append((self.pointers[storage], phi))
                self.pointers[storage] = phi
            traded.append(pair)
        return before, traded

    def close_loop(self, header: ll.Block, done: ll.Block, swaps, traded: list) -> None:
        """The back edge, the buffers of each swap exchanged on it, and after the loop (at
        ``done``) each carried value copied into its own buffer where it ended in the other."""
        b = self.b
        latch = b.block
        for (_, target), (_, source) in traded:
            target.add_incoming(source, latch)
            source.add_incoming(target, latch)
        b.branch(header)
        b.position_at_end(done)
        for swap, ((target0, target), (source0, _)) in zip(swaps, traded):
            with b.if_then(b.icmp_unsigned("!=", target, target0)):
                self.memcpy(target0, target, swap)
            self.pointers[swap.target], self.pointers[swap.source] = target0, source0

    def load_condition(self, storage: Storage) -> ll.Value:
        """A 0-d bool's value: NumPy's bool is one byte, true when not zero."""
        return self.b.icmp_unsigned("!=", self.b.load(self.pointers[storage], typ=I8), ll.Constant(I8, 0))

    def status_pointer(self, word: int) -> ll.Value:
        return self.b.gep(self.pointers[STATUS], [ll.Constant(I64, word)], source_etype=I64)

    def status_word(self, word: int) -> ll.Value:
        return self.b.load(self.status_pointer(word), typ=I64)

    def stop_if(self, flag: ll.Value) -> None:
        with self.b.if_then(flag, likely=False):
            self.b.ret_void()

    def load_slot(self) -> ll.Value:
        ptr = self.b.gep(self.fn.args[0], [ll.Constant(I64, self.slot)], source_etype=I64)
        self.slot += 1
        return self.b.load(ptr, typ=I64)

    def _field(self, obj: ll.Value, offset: int, typ: ll.Type) -> ll.Value:
        return self.b.load(self.b.gep(obj, [ll.Constant(I64, offset)], source_etype=ll.IntType(8)), typ=typ)

    def load_array(self, storage: Storage, strided_rank: int | None = None, itemsize: int = 0) -> None:
        """The next slot's data pointer, and its element strides if ``strided_rank`` is given."""
        header = self.plan.header
        slot = self.b.inttoptr(self.load_slot(), PTR)
        if header is None:
            self.pointers[storage] = slot
            if strided_rank is not None:
                self.strides[storage] = [self.load_slot() for _ in range(strided_rank)]
            return
        self.headers[storage] = slot
        self.pointers[storage] = self._field(slot, header.data_offset, PTR)
        if strided_rank is None:
            return
        byte_strides = self._field(slot, header.strides_offset, PTR)
        itemsize = ll.Constant(I64, itemsize)
        strides = []
        for k in range(strided_rank):
            at = self.b.gep(byte_strides, [ll.Constant(I64, k)], source_etype=I64)
            strides.append(self.b.sdiv(self.b.load(at, typ=I64), itemsize))
        self.strides[storage] = strides


def arg_types(func: Operation) -> list[tuple[int, int]]:
    """Each argument's (rank, itemsize), as ``emit_entry`` needs them."""
    return [(a.type.rank, numpy_dtype(a.type.element).itemsize) for a in func.body.args]


def _buffer_of(value: np.ndarray) -> np.ndarray:
    """A constant as the native code reads it: C-contiguous memory holding every element (a
    constant of one value is a broadcast view in the IR, ir.attributes.DenseAttr), read-only."""
    if value.flags.c_contiguous:
        return value
    buffer = np.ascontiguousarray(value)
    buffer.setflags(write=False)
    return buffer
