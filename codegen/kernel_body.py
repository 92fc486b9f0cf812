"""The body of a ``kernel.generic`` at one point of its iteration space, for any target.

``KernelBody`` emits, at the builder's position, the loads of the operands through their
indexing maps, the scalar ops, and the stores of the results. It takes the induction variables
as LLVM values and knows nothing of how they are produced (a CPU loop nest, a blocked
reduction, GPU thread ids): that is the target's schedule. ``kernel_function`` declares the
function a kernel becomes, and ``Operand`` is how the body sees one of its arrays.

Indexed operands are not loaded: ``kernel.extract`` and ``kernel.insert`` address them at the
positions the body computes, through the same ``element_pointer``, and ``kernel.check_index``
records a bad index in the status words (flag, index, axis, size), which a kernel that checks
takes as one more pointer after its arrays. Scalar ``scf`` ops in a body become LLVM loops and
branches (``scalar_control.py``); a loop whose step is zero records flag 2, and a body with loops
returns at its first error (a loop that read a bad index as 0 might never end).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llvmlite import ir as ll

from jitcore.codegen import intdiv, mathlib, scalar, scalar_control
from jitcore.codegen.combine import combine
from jitcore.codegen.llvm_types import I1, I8, I64, PTR, constant, i64, memory_type, value_type
from jitcore.codegen.loops import NEAR, Sizes, element_pointer, static_value
from jitcore.codegen.positions import fold_position_test, in_bounds
from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Value
from jitcore.ir.dialects import kernel

INDEX_ERROR, ZERO_STEP = kernel.INDEX_ERROR, kernel.ZERO_STEP  # status codes (ir/dialects/kernel.py)

# The uses where a constant may be a run-time extent at no cost: bounds and positions (a clip's
# ``min(max(i, 0), n - 1)``, a binary search's ``hi = n``, a comparison with ``n``) and, as a
# float, a quantile's ``q * (n - 1)`` and a mean's ``s / n`` (a variance's, an average's: the
# float of an integer below 2**53 is exact, so the quotient's bits are the constant's; LLVM
# turns a constant divisor into a product only for a power of two, and a row-invariant one is
# a reciprocal and products either way, ``mathlib_divide.py``). An integer divisor, a shift or
# a mask stays a constant: LLVM makes cheaper code of those.
BOUND_USES = frozenset({"arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui", "arith.cmpi",
                        "arith.addi", "arith.subi", "scf.while", "arith.mulf", "arith.addf",
                        "arith.subf", "arith.cmpf", "arith.divf"})
EXACT_INTS = {32: 2 ** 24, 64: 2 ** 53}  # a float type's width -> the ints it holds exactly


def _constant_int(v) -> int | None:
    op = getattr(v, "op", None)
    if op is None or op.op_name != "arith.constant":
        return None
    value = op.attributes["value"].value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def clipped_into(v, size: int) -> bool:
    """Whether ``v`` is a clip into ``[0, size)``: ``min(max(x, lo), hi)`` or ``max(min(x,
    hi), lo)`` with constants ``0 <= lo <= hi < size`` (``np.take(mode="clip")``, a quantile's
    ranks). Its index check cannot fail and is left out: with the bound a run-time extent
    (``sized_bound``), LLVM could no longer prove that itself, and the check's branch keeps
    the gather's loop from vectorizing."""
    bounds = {}
    for _ in range(2):
        op = getattr(v, "op", None)
        if op is None or op.op_name not in ("arith.minsi", "arith.maxsi") or op.op_name in bounds:
            return False
        x, c = op.operands
        if _constant_int(c) is None:
            x, c = c, x
        if _constant_int(c) is None:
            return False
        bounds[op.op_name], v = _constant_int(c), x
    lo, hi = bounds["arith.maxsi"], bounds["arith.minsi"]
    return 0 <= lo <= hi < size


def _bounds(user, k: int) -> bool:
    """Whether operand ``k`` of ``user`` is a bound: a select's chosen value, a loop's bound
    or carried value (not its step) count too."""
    name = user.op_name
    return name in BOUND_USES or (name == "arith.select" and k > 0) or (name == "scf.for" and k != 2)


def sized_bound(b: ll.IRBuilder, op, sizes: Sizes) -> ll.Value | None:
    """The run-time extent an integer or float ``arith.constant`` of 64 bits (or f32) stands
    for (``sizes.extent``: an argument's extent, or one step from one), where every use is a
    bound (``_bounds``); else None. A gather's clip bounds, a
    search's ends and a quantile's ranks are then the same code at every size; like every
    extent ``Sizes`` gives, the value equals the constant at this compile, so a literal that
    only happens to equal a size is still right. Small values (up to ``2 * NEAR``, as
    ``derived``'s symbols) stay constants: near a small extent they are more often the
    program's own."""
    result = op.results[0]
    if op.op_name != "arith.constant" or not sizes or not result.uses:
        return None
    t, value = result.type, op.attributes["value"].value
    if t.is_integer and t.bitwidth == 64 and isinstance(value, int):
        n = value
    elif t.is_float and t.bitwidth in EXACT_INTS and float(value).is_integer() \
            and abs(value) < EXACT_INTS[t.bitwidth]:
        n = int(value)
    else:
        return None
    if n <= 2 * NEAR or not all(_bounds(user, k) for user, k in result.uses):
        return None
    extent = sizes.extent(n)
    if static_value(extent) is not None:
        return None
    return extent if t.is_integer else b.sitofp(extent, value_type(t))


def row_invariant_divisions(op: kernel.GenericOp, maps: list[AffineMap]) -> set[int]:
    """The ids of the float32/float64 divisions in ``op``'s body whose divisor is the same all
    along the last dim of ``maps``' iteration space (a schedule's innermost loop): read through
    maps that do not use that dim (not indexed, not clamped), a constant, or computed from such
    values only. Softmax's ``e / s`` and layernorm's ``c / sqrt(var + eps)`` (one value a row)
    and ``x / 3.7`` are; ``x / y`` of two arrays is not."""
    divisions = [inner for inner in kernel.body_ops(op) if inner.op_name == "arith.divf"
                 and inner.results[0].type.is_float and inner.results[0].type.bitwidth in (32, 64)]
    if not divisions or not maps:
        return set()
    last = maps[0].num_dims - 1
    args = op.body.args
    invariant = {id(args[i]) for i in range(len(op.operands))
                 if i not in op.indexed and i not in op.clamped and all(e.dim != last for e in maps[i].exprs)}
    for inner in kernel.body_ops(op):
        if (inner.op_name.startswith(("arith.", "math.")) and not inner.regions
                and all(id(v) in invariant for v in inner.operands)):
            invariant.update(id(r) for r in inner.results)
    return {id(d) for d in divisions if id(d.operands[1]) in invariant}


@dataclass
class Operand:
    """One array of a kernel: its data pointer, element strides and extents (LLVM values)."""

    pointer: ll.Value
    strides: list[ll.Value]
    shape: list[ll.Value]


def kernel_function(module: ll.Module, name: str, shaped: list[Value], strided: list[bool],
                    extra_pointers: int = 0, noalias: bool = True, split: bool = False,
                    sizes: Sizes | None = None) -> tuple[ll.Function, list[Operand], list, tuple | None]:
    """``void name(ptr operand...[, ptr sizes], ptr extra..., i64 strides of strided
    operands...[, i64 lo, i64 hi])``, internal: the kernel ABI. A contiguous operand's strides
    are constants, so its inner loop has unit stride; a strided operand's are parameters. With
    ``noalias`` the operand pointers promise not to overlap, so LLVM's vectorizer needs no
    run-time alias checks. A ``split`` kernel runs only positions ``[lo, hi)`` of the dim its
    schedule splits (a runtime's chunk); the last value returned is that ``(lo, hi)``, or None.

    A size-generic kernel (``sizes`` with symbols) takes the run-time extents as an i64 array
    after its operands (the parameter named ``sizes``), loads them in its entry block (which the
    schedule continues: ``entry_builder``) and binds ``sizes`` to them: its operands' extents
    and contiguous strides are then run-time values where they are the arguments' extents."""
    sized = sizes is not None and bool(sizes)
    n = len(shaped) + extra_pointers + sized
    params = [PTR] * n + [I64] * sum(v.type.rank for v, s in zip(shaped, strided) if s)
    params += [I64, I64] if split else []
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), params), name)
    fn.linkage = "internal"
    if noalias:
        for a in fn.args[: len(shaped)]:
            a.add_attribute("noalias")
    b = None
    if sized:
        fn.args[len(shaped)].name = "sizes"
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        sizes.bind(b, fn.args[len(shaped)])
    else:
        sizes = Sizes()
    rest = iter(fn.args[n:])
    operands = []
    for v, pointer, s in zip(shaped, fn.args, strided):
        strides = ([next(rest) for _ in range(v.type.rank)] if s else
                   sizes.strides(b, v.type.shape))
        operands.append(Operand(pointer, strides, sizes.extents(v.type.shape)))
    bounds = None
    if split:
        fn.attributes.add("noinline")  # called whole and per chunk: one copy, not one per caller
        bounds = fn.args[-2], fn.args[-1]
        bounds[0].name, bounds[1].name = "lo", "hi"
    return fn, operands, list(fn.args[len(shaped) + sized: n]), bounds


def entry_builder(fn: ll.Function) -> ll.IRBuilder:
    """A builder at the end of ``fn``'s entry block, made now unless ``kernel_function`` made
    it (to load a size-generic kernel's extents: then the block the loads branch to)."""
    return ll.IRBuilder(fn.blocks[-1] if fn.blocks else fn.append_basic_block("entry"))


class KernelBody:
    """Loads, scalar ops and stores of one ``kernel.generic``; ``maps`` and ``operands`` may be
    a schedule's rewrite of the op's own (a flattened nest reads every operand at one index)."""

    def __init__(self, b: ll.IRBuilder, op: kernel.GenericOp, operands: list[Operand],
                 maps: list[AffineMap], precision: scalar.Precision, status: ll.Value | None = None):
        self.b = b
        self.op = op
        self.operands = operands
        self.maps = maps
        self.precision = precision  # a schedule may swap it between two emissions of the body
        self.status = status  # the status words, for a kernel with kernel.check_index
        # a size-generic kernel's run-time extents (its schedule's): an index check's bound and
        # a scalar loop's constant bounds that are extents are read from them
        self.sizes = Sizes()
        # A body with loops stops at its first error: a loop reading a bad index (read as 0)
        # might otherwise never end. The caller raises, so nothing it wrote is used.
        self.stop_on_error = any(inner.regions for inner in op.body.ops)
        # dim -> (lo, hi): positions a schedule knows that dim's induction value lies in (a
        # segment of the loop), so a clamp that cannot bind and a test of the position that
        # cannot change are left out (``positions.py``)
        self.known: dict[int, tuple[int, int]] = {}
        # value id -> its truth where a schedule runs only the points at which that test has
        # it (a masked row's window, ``masked_rows.py``)
        self.assumed: dict[int, bool] = {}
        # the op whose scalar work the body's points do: a folded producer's where its loads
        # compute (``cpu/producer_folds.py``), for a schedule's cost decisions
        self.cost_op = op
        # divisions by a value every point shares: a multiply-high per element (intdiv.py)
        self.invariant_divisions = intdiv.invariant_divisions(op, maps)
        # float divisions by a value the innermost loop does not change, which a schedule whose
        # innermost loop LLVM vectorizes sets (``row_invariant_divisions``): a reciprocal
        # per row, products per element (mathlib_divide.py)
        self.row_divisions: set[int] = set()

    def element_pointer(self, index: int, ivs: list[ll.Value], elem: ll.Type) -> ll.Value:
        """Operand ``index``'s element at iteration point ``ivs``, through its indexing map
        (clamped into its bounds for a ``clamped`` input)."""
        b = self.b
        operand = self.operands[index]
        clamped = index in self.op.clamped
        positions = []
        for axis, e in enumerate(self.maps[index].exprs):
            # an offset one step from an extent (a slice's n - 2 start) is the run-time value,
            # and so is a negative one (a concatenation's second piece reads at d0 - n)
            position: ll.Value = self.sizes.extent(e.offset) if e.offset > 1 else i64(e.offset)
            back = self.sizes.extent(-e.offset) if e.offset < -1 and e.dim is not None else None
            if e.dim is not None:
                scaled = ivs[e.dim] if e.scale == 1 else b.mul(ivs[e.dim], i64(e.scale))
                if back is not None and static_value(back) is None:
                    position = b.sub(scaled, back)
                else:
                    position = scaled if e.offset == 0 else b.add(scaled, position)
            if clamped and not in_bounds(e, self.known, self._extent(index, axis)):
                size = static_value(operand.shape[axis])
                last = (i64(size - 1) if size is not None
                        else b.sub(operand.shape[axis], i64(1)))
                position = b.select(b.icmp_signed(">", position, last), last, position)
                zero = i64(0)
                position = b.select(b.icmp_signed("<", position, zero), zero, position)
            positions.append(position)
        return element_pointer(b, operand.pointer, positions, operand.strides, elem)

    def _extent(self, index: int, axis: int) -> int:
        """Operand ``index``'s extent along ``axis`` at this compile, for decisions that hold at
        this size (a run-time extent of a size-generic kernel is known here too: the code is
        reused at another size only if that size's emission, deciding the same, is the same
        text). A clamped operand's maps are the op's own (a schedule merges no dims there)."""
        known = static_value(self.operands[index].shape[axis])
        return known if known is not None else [*self.op.operands, *self.op.results][index].type.shape[axis]

    def load(self, index: int, ivs, value: Value) -> ll.Value:
        t = value.type.element
        if index in self.op.clamped and 0 in value.type.shape:
            return constant(t, 0)  # nothing to read; the body selects elsewhere
        loaded = self.b.load(self.element_pointer(index, ivs, memory_type(t)), typ=memory_type(t))
        if t.is_bool:
            return self.b.icmp_unsigned("!=", loaded, ll.Constant(loaded.type, 0))
        return loaded

    def store(self, index: int, ivs, value: Value, x: ll.Value) -> None:
        t = value.type.element
        if t.is_bool:
            x = self.b.zext(x, memory_type(t))
        self.b.store(x, self.element_pointer(index, ivs, memory_type(t)))

    def load_results(self, ivs) -> list[ll.Value]:
        """The results at ``ivs``: a reduction's running accumulators, kept in its results."""
        n_in = len(self.op.operands)
        return [self._load_own_bool(n_in + k, ivs)
                if r.type.element.is_bool and n_in + k not in self.op.indexed else self.load(n_in + k, ivs, r)
                for k, r in enumerate(self.op.results)]

    def _load_own_bool(self, index: int, ivs) -> ll.Value:
        """A boolean accumulator that is not an indexed result, which only this kernel writes
        (its init, then ``store``'s 0 or 1): loaded with that range declared, so LLVM sees
        ``acc | x`` as the plain integer reduction it is and vectorizes it (``any``: 160x
        faster); an input's bools stay any nonzero byte (``load``)."""
        loaded = self.b.load(self.element_pointer(index, ivs, I8), typ=I8)
        loaded.set_metadata("range", self.b.module.add_metadata([ll.Constant(I8, 0), ll.Constant(I8, 2)]))
        return self.b.trunc(loaded, I1)

    def evaluate(self, ivs, accumulators: Callable[[], list] | None = None) -> list[ll.Value]:
        """The values the body yields at ``ivs``. A kernel with accumulators gets them from
        ``accumulators()``, called once the inputs are loaded."""
        op = self.op
        n_in = len(op.operands)
        values, tensors = self._inputs(ivs)
        if accumulators is not None:
            for k, acc in enumerate(accumulators()):
                values[id(op.body.args[n_in + k])] = acc
        self._emit_ops(op.body.ops[:-1], values, tensors, ivs)
        return [values[id(y)] for y in op.body.terminator.operands]

    def evaluate_without(self, ivs, skipped: set[int], wanted: list[Value]) -> list[ll.Value]:
        """The body's values ``wanted`` at ``ivs``, its ops whose ids are in ``skipped`` left
        out: a reduction's elements without the combines that read its accumulators
        (``reduction.py`` computes several groups' elements before adding them in order)."""
        values, tensors = self._inputs(ivs)
        self._emit_ops([inner for inner in self.op.body.ops[:-1] if id(inner) not in skipped],
                       values, tensors, ivs)
        return [values[id(v)] for v in wanted]

    def _inputs(self, ivs) -> tuple[dict, dict]:
        """The inputs loaded at ``ivs`` (body argument id -> value), and each indexed input's
        body argument -> its operand number (read where the body indexes it)."""
        op, args = self.op, self.op.body.args
        values: dict[int, ll.Value] = {}
        tensors = {}
        for i, v in enumerate(op.operands):
            if i in op.indexed:
                tensors[id(args[i])] = i
            else:
                values[id(args[i])] = self.load(i, ivs, v)
        return values, tensors

    def _emit_ops(self, ops, values: dict, tensors: dict, ivs) -> None:
        """Emit ``ops`` (of the body or of a region nested in it), recording their results in
        ``values``; ``tensors`` maps an indexed input's body argument to its operand number."""
        n_in = len(self.op.operands)
        for inner in ops:
            if isinstance(inner, kernel.IndexOp):
                values[id(inner.result)] = ivs[inner.dim]
            elif isinstance(inner, kernel.ExtractOp):
                tensor, *positions = inner.operands
                at = [values[id(p)] for p in positions]
                values[id(inner.result)] = self.extract(tensors[id(tensor)], at)
            elif isinstance(inner, kernel.ExtractResultOp):
                at = [values[id(p)] for p in inner.operands]
                values[id(inner.results[0])] = self.extract(n_in + inner.result, at)
            elif isinstance(inner, kernel.CheckIndexOp):
                i = values[id(inner.operands[0])]
                values[id(inner.result)] = i if clipped_into(inner.operands[0], inner.size) else \
                    self.check_index(i, inner.axis, inner.size)
            elif inner.results and id(inner.results[0]) in self.assumed:
                values[id(inner.results[0])] = ll.Constant(I1, int(self.assumed[id(inner.results[0])]))
            elif (folded := fold_position_test(inner, self.known)) is not None:
                values[id(inner.result)] = ll.Constant(I1, int(folded))
            elif isinstance(inner, kernel.RaiseOp):
                cond, *words = (values[id(v)] for v in inner.operands)
                self.record_error(cond, inner.code, words)
            elif isinstance(inner, kernel.InsertOp):
                value, *positions = (values[id(v)] for v in inner.operands)
                self.insert(n_in + inner.result, positions, value, inner.mode)
            elif inner.regions:
                scalar_control.emit(self, inner, values, lambda block_ops: self._emit_ops(
                    block_ops, values, tensors, ivs))
            elif (bound := sized_bound(self.b, inner, self.sizes)) is not None:
                values[id(inner.result)] = bound
            elif id(inner) in self.invariant_divisions:
                x, d = (values[id(v)] for v in inner.operands)
                values[id(inner.result)] = intdiv.by_invariant(self.b, inner.op_name, x, d)
            elif id(inner) in self.row_divisions:
                x, d = (values[id(v)] for v in inner.operands)
                values[id(inner.result)] = mathlib.emit_divide_invariant(self.b, x, d, self.precision.isa)
            else:
                operands = [values[id(v)] for v in inner.operands]
                values[id(inner.results[0])] = scalar.emit(self.b, inner, operands, self.precision)

    def store_point(self, ivs, scan_accumulator) -> None:
        """The body at ``ivs``, its results stored: the accumulators of a reduction are read
        from its results, a scan's from ``scan_accumulator(k, ivs, result)`` (how a target
        reads the previous position along the scan dim)."""
        op = self.op
        accumulators = None
        if op.has_reduction and op.scan_dim is None:
            accumulators = lambda: self.load_results(ivs)  # noqa: E731
        elif op.has_reduction:
            accumulators = lambda: [scan_accumulator(k, ivs, r)  # noqa: E731
                                    for k, r in enumerate(op.results)]
        self.store_results(ivs, self.evaluate(ivs, accumulators))

    def finish_point(self, ivs) -> None:
        """A reduction's results at ``ivs`` made final: its epilogue applied to the reduced
        values (``kernel.generic``'s second region), if it has one. Only the inputs the
        epilogue reads are loaded: their maps use parallel dims only, so they are in bounds
        even where a reduced dim is empty."""
        op, epilogue = self.op, self.op.epilogue
        if epilogue is None:
            return
        n_in = len(op.operands)
        values = {id(epilogue.args[i]): self.load(i, ivs, v)
                  for i, v in enumerate(op.operands) if epilogue.args[i].uses}
        for k, acc in enumerate(self.load_results(ivs)):
            values[id(epilogue.args[n_in + k])] = acc
        self._emit_ops(epilogue.ops[:-1], values, {}, ivs)
        self.store_results(ivs, [values[id(y)] for y in epilogue.terminator.operands])

    def store_results(self, ivs, yielded: list[ll.Value]) -> None:
        """Store what the body yields: one value per result that is not indexed."""
        n_in = len(self.op.operands)
        stored = [(k, r) for k, r in enumerate(self.op.results) if n_in + k not in self.op.indexed]
        for (k, r), y in zip(stored, yielded):
            self.store(n_in + k, ivs, r, y)

    def _at(self, index: int, positions, elem: ll.Type) -> ll.Value:
        operand = self.operands[index]
        return element_pointer(self.b, operand.pointer, positions, operand.strides, elem)

    def extract(self, index: int, positions) -> ll.Value:
        """Operand ``index``'s element (numbered as the maps: a result's too) at ``positions``
        (in range, or the operand is empty: then only a failed check led here, and the value is
        never used)."""
        t = [*self.op.operands, *self.op.results][index].type
        if 0 in t.shape:
            return constant(t.element, 0)
        loaded = self.b.load(self._at(index, positions, memory_type(t.element)), typ=memory_type(t.element))
        if t.element.is_bool:
            return self.b.icmp_unsigned("!=", loaded, ll.Constant(loaded.type, 0))
        return loaded

    def insert(self, index: int, positions, value: ll.Value, mode: str) -> None:
        """Write ``value`` into result ``index`` (numbered as the maps) at ``positions``."""
        t = self.op.results[index - len(self.op.operands)].type.element
        elem = memory_type(t)
        if t.is_bool:
            value = self.b.zext(value, elem)
        target = self._at(index, positions, elem)
        if mode != "set":
            value = combine(self.b, mode, t, self.b.load(target, typ=elem), value)
        self.b.store(value, target)

    def _status_word(self, slot: int) -> ll.Value:
        return self.b.gep(self.status, [i64(slot)], source_etype=I64)

    def record_zero_step(self, step: ll.Value) -> None:
        """A zero loop step is recorded (flag 2) unless an earlier error is, and the kernel
        returns: the caller raises."""
        b = self.b
        with b.if_then(b.icmp_signed("==", step, ll.Constant(step.type, 0)), likely=False):
            first = b.icmp_unsigned("==", b.load(self._status_word(0), typ=I64), i64(0))
            with b.if_then(first):
                b.store(i64(ZERO_STEP), self._status_word(0))
            b.ret_void()

    def record_error(self, cond: ll.Value, code: int, words=()) -> None:
        """Where ``cond`` holds, ``code`` and ``words`` (status words 1..) are recorded unless
        an earlier error is, and the kernel returns (``kernel.raise``): the caller raises."""
        b = self.b
        test = b.block
        with b.if_then(cond, likely=False):
            first = b.icmp_unsigned("==", b.load(self._status_word(0), typ=I64), i64(0))
            with b.if_then(first):
                for slot, v in enumerate((i64(code), *words)):
                    b.store(v, self._status_word(slot))
            b.ret_void()
        test.terminator.set_metadata("unpredictable", b.module.add_metadata([]))

    def check_index(self, i: ll.Value, axis: int, size: int) -> ll.Value:
        """``i`` wrapped into ``[0, size)`` (a negative index counts from the end), or 0 if it
        is out of range: then it is recorded unless an earlier one is (NumPy reports the first),
        and a body with loops returns at once (``stop_on_error``)."""
        b = self.b
        n = self.sizes.extent(size)
        wrapped = b.select(b.icmp_signed("<", i, i64(0)), b.add(i, n), i)
        bad = b.icmp_unsigned(">=", wrapped, n)
        with b.if_then(bad, likely=False):
            first = b.icmp_unsigned("==", b.load(self._status_word(0), typ=I64), i64(0))
            with b.if_then(first):
                for slot, v in enumerate((i64(INDEX_ERROR), i, i64(axis), n)):
                    b.store(v, self._status_word(slot))
            if self.stop_on_error:
                b.ret_void()
        return b.select(bad, i64(0), wrapped)
