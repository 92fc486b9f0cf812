"""Counted loops in LLVM IR, shared by every emitter that walks an iteration space.

Extents are LLVM values, so the loop structure never depends on a Python int. ``extent`` turns
a Python int into a constant; ``Sizes`` turns an extent of the arguments into the run-time
value that holds it (a size-generic function: see "Size-generic kernels" in
docs/architecture.md).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.extent_guards import ByEquality
from jitcore.codegen.llvm_types import I64, i64


def extent(n: int) -> ll.Constant:
    """A compile-time extent (or index) as an i64 value."""
    return i64(n)


def static_value(v: ll.Value) -> int | None:
    """The Python int of an i64 constant, or None for a value known only at run time."""
    return v.constant if isinstance(v, ll.Constant) and isinstance(v.constant, int) else None


def freeze(b: ll.IRBuilder, value: ll.Value) -> ll.Value:
    """``value`` behind LLVM's ``freeze``: the same value (it is never poison here), but a
    plain unknown to scalar evolution, where a start built of many run-time splits was not:
    the SLP vectorizer then sees ``start + k`` (``k`` 0..7) as consecutive elements and loads
    them as one vector (``reduction.PairwiseRow._leaves``). LLVM drops a freeze it can prove
    needless, so this helps only where the value depends on a loop's phi."""
    frozen = ll.Instruction(b.block, value.type, "freeze", [value])
    b._insert(frozen)
    return frozen


def emit_loop(b: ll.IRBuilder, trip_count: ll.Value, body, interleave: int = 0, unroll: bool = True,
              vectorize: bool = True, unroll_count: int = 0, unroll_remainder: bool = False) -> None:
    """``for iv in range(trip_count): body(iv)`` at the builder's position; the builder ends
    after the loop. The trip count is checked first, so a count of 0 runs nothing.
    ``interleave`` above 1 asks LLVM's loop vectorizer to run that many iterations of the
    vector loop side by side (``llvm.loop.interleave.count``); 0 leaves it to LLVM.
    ``unroll=False`` keeps the loop a loop (``llvm.loop.unroll.disable``, which the vectorized
    loop keeps): LLVM unrolls a loop of a few known iterations whole, however large its body.
    ``unroll_count`` unrolls it that many iterations at a time (``llvm.loop.unroll.count``),
    not whole. ``vectorize=False`` keeps it scalar (``llvm.loop.vectorize.enable`` 0): a strided copy
    vectorized becomes gathers, slower than scalar loads. The scalar remainder LLVM leaves where
    it vectorizes the loop is not runtime-unrolled (``REMAINDER_HINTS``) unless
    ``unroll_remainder``: a loop that is itself a row's tail, shorter than a few vectors, runs
    most of its iterations there."""
    pre = b.block
    fn = b.function
    header, inner, done = (fn.append_basic_block(n) for n in ("loop", "body", "done"))
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(I64)
    iv.add_incoming(i64(0), pre)
    b.cbranch(b.icmp_signed("<", iv, trip_count), inner, done)
    b.position_at_end(inner)
    body(iv)
    iv.add_incoming(b.add(iv, i64(1)), b.block)
    back = b.branch(header)
    hints = {"llvm.loop.interleave.count": interleave} if interleave > 1 else {}
    if not vectorize:
        hints["llvm.loop.vectorize.enable"] = 0
    if not unroll:
        hints["llvm.loop.unroll.disable"] = 1
    if unroll_count:
        hints["llvm.loop.unroll.count"] = unroll_count
    if not unroll_remainder:
        hints.update(REMAINDER_HINTS)
    if hints:
        back.set_metadata("llvm.loop", loop_id(b.module, hints))
    b.position_at_end(done)


# What the scalar loop that LLVM's loop vectorizer leaves after a vectorized loop (its last
# iterations, fewer than one vector step, and the fallback where LLVM's run-time checks fail:
# overlap, a stride other than 1) keeps of the loop's metadata: no runtime unrolling. LLVM
# itself marks that loop so only where it made no such checks; elsewhere its unroller copied
# it 4-8 times, 178 of the 245 runtime unrollings in a sample of the suite's compiles (the
# coverage table's every 50th row, the astype specials, the threads test), code that runs a
# few iterations. Loops LLVM does not vectorize (reductions in order, loops over groups of
# lanes the emitter packed itself) keep LLVM's runtime unrolling, which some of them need
# (row norms of 100 floats: 1.25x slower without it). docs/performance.md, "LLVM's unroller
# chosen per loop (unroll51)".
REMAINDER_HINTS: dict[str, object] = {
    "llvm.loop.vectorize.followup_epilogue": {"llvm.loop.unroll.runtime.disable": None}}


def loop_id(module: ll.Module, options: dict[str, object]) -> ll.MDValue:
    """A new loop id for ``module`` carrying ``options``: LLVM takes a loop's metadata only
    from a node whose first operand is the node itself, one node per loop (llvmlite's
    ``add_metadata`` shares equal nodes, so the node is made with a placeholder unique in the
    module, then pointed at itself). An option's value is an i32, None (the name alone), or
    a dict of options (a follow-up: the attributes of a loop a transformation makes)."""
    hints = _options(module, options)
    node = module.add_metadata([ll.MetaDataString(module, f"jitcore.loop.{len(module.metadata)}"), *hints])
    node.operands = (node, *hints)
    return node


def _options(module: ll.Module, options: dict[str, object]) -> list[ll.MDValue]:
    def operands(value) -> list:
        if value is None:
            return []
        if isinstance(value, dict):
            return _options(module, value)
        return [ll.Constant(ll.IntType(32), value)]

    return [module.add_metadata([ll.MetaDataString(module, name), *operands(value)])
            for name, value in options.items()]


def emit_nest(b: ll.IRBuilder, extents, body) -> None:
    """Nested loops over ``extents`` (values, outermost first); ``body(ivs)`` at the innermost."""

    def level(depth: int, ivs: list) -> None:
        if depth == len(extents):
            body(ivs)
        else:
            emit_loop(b, extents[depth], lambda iv: level(depth + 1, ivs + [iv]))

    level(0, [])


def extents(shape) -> list[ll.Constant]:
    """A static shape as extent values."""
    return [extent(d) for d in shape]


class Sizes:
    """The run-time extents of a size-generic function, as one function being emitted sees them.

    ``symbols`` are the distinct extents of the function's arguments (above 1: sizes 0 and 1
    change broadcasting and emptiness, so they stay constants), by their values at this
    compile. Once bound (``bind``: loaded from an i64 array at ``pointer``), ``extent(n)`` is
    the run-time value of the symbol whose value is ``n``, else the constant ``n``; products
    and strides are computed from those values. Every value this gives equals, at this
    compile's sizes, the constant it replaces, so the code is right for these sizes whatever
    else it is: the code is reused for other sizes only where their emitted LLVM IR is the
    same text (``cpu/backend.py``), and a constant that merely equals a size (a literal 100 at
    n = 100) stays a constant at the next size, and the text differs. With no symbols, every
    method gives constants: a fixed-size function.

    An extent that is no symbol's value but one step from one (``derived``: ``s + d``,
    ``k * s + d``, ``s // k`` for small ``d`` and ``k``), or the product of two
    (``product_of``: a whole 2-d array's ``rows * columns``), is computed from them once, in
    the entry block: ``np.empty(n - 2)``, a loop's ``range(1, n - 1)``, ``x[1:] - x[:-1]``,
    ``x[:n - 10]``, ``reshape(3, -1)`` are then the same text at every ``n``. Which form a
    value takes is a guess from values alone (a literal 98 at n = 100 is ``n - 2`` too), safe
    for the same reason as a symbol's: it equals the constant at this compile, and a guess
    that does not hold at the next size gives other text.
    """

    def __init__(self, symbols=()):
        self.symbols = tuple(symbols)
        self.values = ByEquality()
        self.pointer: ll.Value | None = None
        self._concrete: dict[int, int] = {}  # id of a value made here -> its value at this compile
        self._home: ll.Block | None = None  # the block of the loads, where derived extents go
        self._made = 0

    def __bool__(self) -> bool:
        return bool(self.symbols)

    def unbound(self) -> Sizes:
        """A copy not yet bound, for another function (a bound one holds the first one's
        values); a subclass's own settings are kept."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.values, copy.pointer, copy._concrete, copy._home, copy._made = ByEquality(), None, {}, None, 0
        return copy

    def bind(self, b: ll.IRBuilder, pointer: ll.Value) -> None:
        """Load each symbol from the i64 array at ``pointer`` at the builder's position (which
        must dominate every use: the function's entry block), then branch to a new block where
        the builder goes on: derived extents are added to the loads' block, before its branch
        (a builder positioned in that block would not see instructions put before it)."""
        self.pointer = pointer
        for k, n in enumerate(self.symbols):
            value = b.load(b.gep(pointer, [extent(k)], inbounds=True, source_etype=I64), typ=I64,
                           name=f"n{k}")
            self.values.setdefault(n, value)
            self._concrete[id(value)] = n
        self._home = b.block
        rest = b.function.append_basic_block("sized")
        b.branch(rest)
        b.position_at_end(rest)

    def extent(self, n: int) -> ll.Value:
        value = self.values.get(n)
        if value is None and n > 1 and n not in self.symbols and self._home is not None:
            value = self._derive(n)  # (a symbol's value kept a constant stays one)
        return extent(n) if value is None else value

    def _derive(self, n: int) -> ll.Value | None:
        """The run-time value of extent ``n`` as a step from a symbol (``derived``), made
        after the symbols' loads so that it dominates every use; None if none fits."""
        bound = [s for s in self.symbols if s in self.values]
        form = derived(n, bound)
        pair = product_of(n, bound) if form is None else None
        if form is None and pair is None:
            return None
        b = ll.IRBuilder(self._home)
        b.position_before(self._home.terminator)
        name = f"d{self._made}"  # names from a count, not the value: the same text at every size
        self._made += 1
        if pair is not None:
            value = b.mul(self.values[pair[0]], self.values[pair[1]], name=name + "p")
            self.values[n] = value
            self._concrete[id(value)] = n
            return value
        s, scale, divisor, offset = form
        value = self.values[s]
        if scale != 1:
            value = b.mul(value, extent(scale), name=name + "m")
        if divisor != 1:  # extents are not negative: an unsigned division is the floor
            value = b.udiv(value, extent(divisor), name=name + "q")
        if offset:
            value = b.add(value, extent(offset), name=name)
        self.values[n] = value
        self._concrete[id(value)] = n
        return value

    def extents(self, shape) -> list[ll.Value]:
        return [self.extent(d) for d in shape]

    def depends(self, shape) -> bool:
        """Whether a shape's extents include a run-time one."""
        return any(static_value(self.extent(d)) is None for d in shape)

    def concrete(self, v: ll.Value) -> int | None:
        """The value at this compile of a constant or of a value this made."""
        known = static_value(v)
        return known if known is not None else self._concrete.get(id(v))

    def product(self, b: ll.IRBuilder, shape) -> ll.Value:
        """The product of ``shape``'s extents (constants folded)."""
        return self.multiply(b, self.extents(shape))

    def multiply(self, b: ll.IRBuilder, values) -> ll.Value:
        """The product of extent ``values`` made here or constants (folded where constant)."""
        constant, total, runtime = 1, 1, None
        for v in values:
            known = self.concrete(v)
            total *= known
            if static_value(v) is not None:
                constant *= static_value(v)
            else:
                runtime = v if runtime is None else b.mul(runtime, v)
        if runtime is None:
            return extent(constant)
        if constant == 0:
            return extent(0)
        result = runtime if constant == 1 else b.mul(runtime, extent(constant))
        self._concrete[id(result)] = total
        return result

    def strides(self, b: ll.IRBuilder, shape) -> list[ll.Value]:
        """Element strides of a C-contiguous array of ``shape`` (``contiguous_strides``)."""
        strides, step = [], []
        for d in reversed(shape):
            strides.append(self.multiply(b, step))
            step = step + [self.extent(max(d, 1))]
        return strides[::-1]


# How far from a symbol's value an extent may lie and still be derived from it: the ends a
# window, a difference or a stencil trims (``x[i:i + 3]`` for ``i < n - 2``). Symbols up to
# twice that derive nothing: near a small extent, small constants (3 coordinates, 4 channels)
# are more often the program's own, and LLVM unrolls and vectorizes loops of known length.
NEAR = 4
# Farther steps (``x[:n - 10]``, ``np.empty(n - 10)``) within an eighth of the symbol, at most
# FAR: the extent is then at least 7/8 of the symbol's, never one of the program's small ones.
FAR = 64
# The small multiples and fractions a program makes of a size: ``3 * n + 1``, ``n // 3``,
# ``reshape(3, -1)``.
SCALES = range(2, 9)


def derived(n: int, symbols) -> tuple[int, int, int, int] | None:
    """``(symbol, scale, divisor, offset)`` with ``symbol * scale // divisor + offset == n``
    (one of scale and divisor 1), from a symbol above ``2 * NEAR``, the first form that fits
    in this order: the nearest ``symbol + c`` (``|c| <= NEAR``, the first symbol on a tie);
    ``2 * symbol``; ``symbol // 2``; ``k * symbol + c`` (``k`` in ``SCALES``, ``|c| <=
    NEAR``); ``symbol // k`` above ``2 * NEAR``; ``symbol // k + c`` (``|c| <= NEAR``, above
    ``2 * NEAR``); ``symbol + c`` farther (``|c|`` up to
    ``FAR`` and an eighth of the symbol). None where none fits (a symbol's own value is no
    derived one). Where two sizes guess a program's extent differently, their text differs
    and the second compiles: never a wrong value, since each form equals ``n`` at its own
    compile."""
    symbols = [s for s in symbols if s > 2 * NEAR]
    near = [(abs(n - s), k) for k, s in enumerate(symbols) if 0 < abs(n - s) <= NEAR]
    if near:
        s = symbols[min(near)[1]]
        return s, 1, 1, n - s
    for scale, divisor in ((2, 1), (1, 2)):
        for s in symbols:
            if s * scale // divisor == n:
                return s, scale, divisor, 0
    for k in SCALES:
        for s in symbols:
            if abs(n - k * s) <= NEAR:
                return s, k, 1, n - k * s
    for k in SCALES:
        for s in symbols:
            if k > 2 and s // k == n > 2 * NEAR:  # (a small result: more often the program's)
                return s, 1, k, 0
    for k in SCALES:  # a middle's neighbours: a median's n // 2 - 1, a quartile's n // 4 + 1
        for s in symbols:
            if 0 < abs(n - s // k) <= NEAR and n > 2 * NEAR:
                return s, 1, k, n - s // k
    far = [(abs(n - s), k) for k, s in enumerate(symbols) if 0 < abs(n - s) <= min(FAR, s // 8)]
    if far:
        s = symbols[min(far)[1]]
        return s, 1, 1, n - s
    return None


def product_of(n: int, symbols) -> tuple[int, int] | None:
    """Two symbols above ``2 * NEAR`` (maybe one twice) whose product is ``n``, the first pair
    in the symbols' order, else None: a mean over a whole 2-d array divides by ``rows *
    columns``, an outer product's mean by ``n * n``. A guess as ``derived``'s forms are, tried
    after them."""
    symbols = [s for s in symbols if s > 2 * NEAR]
    for k, s in enumerate(symbols):
        for t in symbols[k:]:
            if s * t == n:
                return s, t
    return None


def contiguous_strides(shape) -> list[int]:
    """Element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return strides[::-1]


def element_pointer(b: ll.IRBuilder, base: ll.Value, positions, strides, elem: ll.Type) -> ll.Value:
    """The address of the element at ``positions`` (values) of an array at ``base`` with
    element ``strides`` (values): the one element-address computation of every emitter."""
    offset: ll.Value = i64(0)
    for position, stride in zip(positions, strides):
        offset = b.add(offset, b.mul(position, stride))
    return b.gep(base, [offset], inbounds=True, source_etype=elem)
