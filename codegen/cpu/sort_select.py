"""``numpy.partition`` by selection: each lane's ranks put in place in linear expected time.

``passes/kernelize/sort.py`` builds a partition's kernel as the full sort (the other backends'
code, and what the contract allows) and marks it with ``SELECT_AXIS`` and its ranks
``SELECT_KTH``; here each lane is instead

1. copied from the operand into the result (argpartition: the keys result, with each
   element's position into the positions result), floats' NaNs moved to the lane's tail on the
   way (branch-free: each element goes to the front or the back), so that the ranks below the
   NaN count are selected among plain numbers with plain comparisons, and those at or above
   it are NaN already (NumPy's partition also puts NaN last);
2. selected at each rank (see below for the order), within the ranks selected before: a
   quickselect whose pivot is the median of the range's first, middle and last element and
   whose partition is a branch-free Lomuto pass (``lomuto``: random data mispredicts a branch
   about once an element; when the pivot is the range's least, a second pass moves its equals
   to the front, so a range of equal elements is done in two passes), a rank at either end
   of its range by one min or max scan, a range of at most ``SMALL`` elements by insertion
   sort. After ``ROUNDS_PER_BIT * log2(size)`` rounds a range still open is heap-sorted:
   O(n log n) at worst, never quadratic, whatever the input (``introselect``'s guard; NumPy's
   falls back to median of medians instead).

On AVX-512 targets a contiguous float range of more than ``VECTOR_FROM`` elements is selected
instead by ``sort_quick.py``'s vector partitions (sort51: 8-16 keys a compare, positions moved
beside them for argpartition), which hand a range back to this selection: their last one, a
network's length, and a longer one where they give up past their depth.

A lane's ranks are the kernel's constants (``SELECT_KTH``), or (``array.partition_at``,
``SELECT_RANKS``) an operand of K ranks a lane, read and sorted per lane when it runs (a repeat
or a rank outside the lane's numbers asks for nothing). Up to ``BISECT_UP_TO`` ranks are
selected middle first, each within the two selected around it (``bisection``), rather than
each in what the one before left. A lane of ints (not argpartition) whose span is below its
length and ``COUNT_SLOTS`` is counting-sorted instead: sorted meets every rank.

The lanes are the chunks of a launch (``runtime.emit_launch``); a lane's result does not depend
on the thread. The selection works in place in the result, through its stride along the axis
(a contiguous result gets a version with stride 1). In a size-generic function the lane
length and the lane count are run-time values, and so are up to ``BISECT_UP_TO`` constant ranks
(``Sizes.extent``: a median's ``n // 2 - 1``, ``n // 2`` and ``n - 1`` are forms of the
length, ``loops.derived``), so a new length at the same ranks or the same forms of ranks
reuses the code. Comparisons are of the values (floats as
floats: -0.0 equals 0.0, as in NumPy), so which equal element lands at a rank is this
algorithm's choice, as NumPy's is its own: ``numpy.partition`` promises only the contract.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu import runtime, sort_quick, target
from jitcore.codegen.cpu.sort_lanes import POSITIONS
from jitcore.codegen.kernel_body import entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.loops import Sizes, element_pointer, emit_loop, static_value
from jitcore.ir.core import Operation

SELECT_AXIS = "select_axis"  # the attributes kernelize/sort.py marks partition kernels with
SELECT_KTH = "select_kth"
SELECT_RANKS = "select_ranks"  # (partition_at) instead of the kth: how many ranks a lane reads
ENABLED = True  # False: the kernels' own full sort (a baseline for measuring)
SMALL = 16  # ranges at most this long are insertion-sorted
# A lane longer than SMALL is first read for being in order already (sorted or all equal: every
# rank in place), in blocks of this many pairs, stopping after the first block out of order.
# 10^5 int64s sorted: 0.25 ms selected, NumPy 0.08 (Session 54).
IN_ORDER_BLOCK = 256
# Contiguous float ranges longer than this are selected by the quicksort's vector partitions
# on AVX-512 targets (sort51; a shorter one is about a network's: sort_quick.NETWORK_VECTORS).
VECTOR_FROM = 512
# A lane of ints whose span (largest - smallest) is below this many counters and below its
# length is counting-sorted instead of selected: a count and a write of the lane, about half
# selection's work (docs/performance.md, sort34). i32 counters: 64 KiB of the thread's stack.
COUNT_SLOTS = 1 << 14
FILL_AHEAD = 4  # values written per counter before looking at its count
SAMPLE = 64  # a lane's first ints whose span decides, before the copy, whether to look for its own
ROUNDS_PER_BIT = 2  # quickselect rounds per bit of the range's size before the heapsort guard
# A lane's ranks, up to this many, are selected middle first, each within the two selected
# around it (about log2(K) passes over the lane where one after another takes up to K/2);
# more are selected one after another, each in what the one before left.
BISECT_UP_TO = 64
I1 = ll.IntType(1)
I32 = ll.IntType(32)


def _c(v: int) -> ll.Constant:
    return ll.Constant(I64, v)


def emit_select_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool],
                       sizes: Sizes | None = None) -> ll.Function | None:
    """``op`` (a partition kernel marked with ``SELECT_AXIS``) as kernel ``name``, selecting
    its ranks per lane; None where it is not one. With ``sizes`` (a size-generic function's),
    the lane length and the lane count are run-time values: a new length reuses the code
    where the ranks are the same numbers."""
    axis = op.attributes.get(SELECT_AXIS)
    if axis is None or not ENABLED:
        return None
    run_time = op.attributes.get(SELECT_RANKS)  # partition_at: K ranks a lane, an operand
    kth = tuple(op.attributes[SELECT_KTH]) if run_time is None else run_time
    # operands: the values (partition_at: then the ranks)
    argsort = POSITIONS in op.attributes
    x = op.operands[0]
    shape, element = x.type.shape, x.type.element
    n = shape[axis]
    outer = [d for d in range(len(shape)) if d != axis]
    lanes = 1
    for d in outer:
        lanes *= shape[d]
    sizes = (sizes or Sizes()).unbound()
    fn, operands, _, _ = kernel_function(module, name, [*op.operands, *op.results], strided,
                                         sizes=sizes)
    b = entry_builder(fn)
    if lanes == 0 or n == 0:
        b.ret_void()
        return fn
    results = operands[len(op.operands):]
    # results (kernelize/sort.py): sort: keys A[, B]; argsort: positions A[, B], keys A[, B]
    keys = results[len(results) // 2] if argsort else results[0]
    source = operands[0]
    positions = results[0] if argsort else None
    selector = _Selector(module, name, element, argsort)
    # a result's strides are constants unless strided: then only the version they need
    known = [static_value(r.strides[axis]) for r in ((keys, positions) if argsort else (keys,))]
    versions = (True, False) if None in known else (all(s == 1 for s in known),)
    chunk = selector.chunk_kernel(len(shape), axis, outer, kth, versions)
    # constant ranks as the size gives them (n // 2 - 1, n - 1: loops.derived), so that
    # another lane length at the same form of ranks runs this code
    given = [sizes.extent(k) for k in kth] if _ranks_as_arguments(kth) else []
    strides = [*source.strides, *keys.strides, *(positions.strides if argsort else keys.strides)]
    pointers = [source.pointer, keys.pointer, positions.pointer if argsort else ll.Constant(PTR, None)]
    if run_time is not None:
        ranks = operands[1]
        pointers.append(ranks.pointer)
        strides += ranks.strides
    extents = source.shape
    lane_count = sizes.multiply(b, [extents[d] for d in outer])
    # about 3 points (of the threshold's ~0.3 ns) an element and rank-range pass
    rank_count = kth if run_time is not None else len(kth)
    work = sizes.multiply(b, [lane_count, extents[axis], _c(3 * (2 + rank_count))])
    split = runtime.Split(*(v if static_value(v) is None else static_value(v) for v in (lane_count, work)))
    runtime.emit_launch(b, chunk, [*pointers, *strides, *extents, *given], split)
    b.ret_void()
    return fn


def _ranks_as_arguments(kth: tuple | int) -> bool:
    """Whether a chunk takes its constant ranks as arguments (up to ``BISECT_UP_TO``; more
    are a table). They stay ascending at every size the code serves: each size's trace sorts
    its own ranks, and its text is this one only where each place holds the same form."""
    return isinstance(kth, tuple) and len(kth) <= BISECT_UP_TO


def bisection(count: int) -> list[tuple[int, int | None, int | None]]:
    """Ranks ``0..count-1`` in the order that selects the middle one of each span first (the
    lower of two: a last rank after it, such as the lane's last place or a quantile's upper
    neighbour, is then a scan of what lies above it): ``(i, left, right)``, with the ranks
    selected before it that bound it (None: the lane's end)."""
    order = []

    def split(lo: int, hi: int, left, right) -> None:
        if lo >= hi:
            return
        mid = (lo + hi - 1) // 2
        order.append((mid, left, right))
        split(lo, mid, left, mid)
        split(mid + 1, hi, mid, right)

    split(0, count, None, None)
    return order


class _Selector:
    """The functions of one element type's selection: compare, swap, insertion sort, min/max
    scans, heapsort and quickselect over a lane at a pointer with an element stride."""

    def __init__(self, module: ll.Module, name: str, element, argsort: bool):
        self.module, self.name, self.argsort = module, name, argsort
        width = 8 if element.is_bool else element.bitwidth
        self.elem = ll.IntType(width)  # elements move as their bits
        self.float = {16: ll.HalfType(), 32: ll.FloatType(), 64: ll.DoubleType()}[width] \
            if element.is_float else None
        self.signed = element.is_integer and not element.is_unsigned and not element.is_bool
        # ints (not argpartition: equal ints are indistinguishable, positions are not) may
        # counting-sort a lane whose span is small (``counting_wins``)
        self.countable = self.float is None and not argsort
        self.width = width
        # the quicksort's kind of key: floats, and (sorts55) 32- and 64-bit ints, whose scalar
        # selection measured 0.26-0.45x NumPy's vector one at 10^5 random keys
        self.quick_kind = "f" if element.is_float else None if element.is_bool else \
            "i" if self.signed else "u"

    def vector_lanes(self) -> int | None:
        """Keys a compare of the quicksort's vector partitions for this selection's keys
        (argpartition: with their positions), or None: the scalar selection."""
        if self.quick_kind is None or self.width not in (32, 64) or not sort_quick.ENABLED:
            return None
        return sort_quick.lanes_for(self.width, target.kernel_isa())

    # --- small helpers -------------------------------------------------------------------

    def function(self, suffix: str, params: list, result=None) -> ll.Function:
        fn = ll.Function(self.module, ll.FunctionType(result or ll.VoidType(), params),
                         f"{self.name}_{suffix}")
        fn.linkage = "internal"
        return fn

    def less(self, b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
        """i1: ``x < y`` as values (no NaN reaches here)."""
        if self.float is not None:
            return b.fcmp_ordered("<", b.bitcast(x, self.float), b.bitcast(y, self.float))
        return b.icmp_signed("<", x, y) if self.signed else b.icmp_unsigned("<", x, y)

    @staticmethod
    def local(b: ll.IRBuilder, init: ll.Value) -> ll.Value:
        """A stack slot holding ``init`` (mem2reg makes it a register)."""
        with b.goto_entry_block():
            slot = b.alloca(init.type)
        b.store(init, slot)
        return slot

    @staticmethod
    def loop_while(b: ll.IRBuilder, cond, body) -> None:
        """``while cond(): body()`` at the builder's position; each emits at the builder."""
        fn = b.function
        head, inner, done = (fn.append_basic_block(s) for s in ("while", "do", "end"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(cond(), inner, done)
        b.position_at_end(inner)
        body()
        b.branch(head)
        b.position_at_end(done)

    class Lane:
        """Reads, writes and swaps of a lane's keys (and positions) at an element stride."""

        def __init__(self, sel, b, keys, pos, stride, pos_stride):
            self.sel, self.b, self.keys, self.pos = sel, b, keys, pos
            self.stride, self.pos_stride = stride, pos_stride

        def at(self, i):
            return self.b.gep(self.keys, [self.b.mul(i, self.stride)], inbounds=True,
                              source_etype=self.sel.elem)

        def pos_at(self, i):
            return self.b.gep(self.pos, [self.b.mul(i, self.pos_stride)], inbounds=True,
                              source_etype=I64)

        def get(self, i):
            return self.b.load(self.at(i), typ=self.sel.elem)

        def put(self, i, v):
            self.b.store(v, self.at(i))

        def swap(self, i, j):
            b = self.b
            x, y = self.get(i), self.get(j)
            self.put(i, y)
            self.put(j, x)
            if self.sel.argsort:
                pi, pj = self.pos_at(i), self.pos_at(j)
                u, v = b.load(pi, typ=I64), b.load(pj, typ=I64)
                b.store(v, pi)
                b.store(u, pj)

        def swap_if_less(self, i, j):
            """Order elements ``j`` before ``i`` where ``j`` is smaller."""
            with self.b.if_then(self.sel.less(self.b, self.get(j), self.get(i))):
                self.swap(i, j)

    def signature(self, stride1: bool) -> list:
        """``(keys, positions, lo, hi[, stride, position stride])``."""
        return [PTR, PTR, I64, I64] + ([] if stride1 else [I64, I64])

    def lane_of(self, b, fn, stride1: bool):
        args = fn.args
        stride, pos_stride = (_c(1), _c(1)) if stride1 else (args[-2], args[-1])
        return self.Lane(self, b, args[0], args[1], stride, pos_stride)

    # --- the pieces of a selection, each a function over [lo, hi) --------------------------

    def insertion_sort(self, stride1: bool) -> ll.Function:
        fn = self.function(f"insertion{'1' if stride1 else 's'}", self.signature(stride1))
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        lane = self.lane_of(b, fn, stride1)
        lo, hi = fn.args[2], fn.args[3]

        def one(t):
            i = b.add(b.add(lo, t), _c(1))
            v = lane.get(i)
            p = b.load(lane.pos_at(i), typ=I64) if self.argsort else None
            j = self.local(b, i)

            def go_on():
                at = b.load(j, typ=I64)
                above = b.icmp_signed(">", at, lo)
                before = b.select(above, b.sub(at, _c(1)), at)
                return b.and_(above, self.less(b, v, lane.get(before)))

            def shift():
                at = b.load(j, typ=I64)
                before = b.sub(at, _c(1))
                lane.put(at, lane.get(before))
                if self.argsort:
                    b.store(b.load(lane.pos_at(before), typ=I64), lane.pos_at(at))
                b.store(before, j)

            self.loop_while(b, go_on, shift)
            at = b.load(j, typ=I64)
            lane.put(at, v)
            if self.argsort:
                b.store(p, lane.pos_at(at))

        with b.if_then(b.icmp_signed(">", b.sub(hi, lo), _c(1))):
            emit_loop(b, b.sub(b.sub(hi, lo), _c(1)), one, unroll=False, vectorize=False)
        b.ret_void()
        return fn

    def extreme(self, stride1: bool, largest: bool) -> ll.Function:
        """The smallest (or largest) element of the range swapped to its first (last) place."""
        fn = self.function(f"{'max' if largest else 'min'}{'1' if stride1 else 's'}",
                           self.signature(stride1))
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        lane = self.lane_of(b, fn, stride1)
        lo, hi = fn.args[2], fn.args[3]
        best = self.local(b, lo)
        value = self.local(b, lane.get(lo))

        def scan(t):
            i = b.add(lo, b.add(t, _c(1)))
            v = lane.get(i)
            now = b.load(value, typ=self.elem)
            better = self.less(b, now, v) if largest else self.less(b, v, now)
            b.store(b.select(better, v, now), value)
            b.store(b.select(better, i, b.load(best, typ=I64)), best)

        emit_loop(b, b.sub(b.sub(hi, lo), _c(1)), scan, unroll=False, vectorize=False)
        lane.swap(b.sub(hi, _c(1)) if largest else lo, b.load(best, typ=I64))
        b.ret_void()
        return fn

    def heapsort(self, stride1: bool) -> ll.Function:
        """The range sorted by a max-heap: the guard against quickselect's bad pivots."""
        fn = self.function(f"heapsort{'1' if stride1 else 's'}", self.signature(stride1))
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        lane = self.lane_of(b, fn, stride1)
        lo, hi = fn.args[2], fn.args[3]
        size = b.sub(hi, lo)
        root = self.local(b, _c(0))

        def sift(start, end):
            """Sift heap element ``start`` (offsets from lo) down within ``[0, end)``."""
            b.store(start, root)

            def go_on():
                return b.icmp_signed("<", b.add(b.mul(b.load(root, typ=I64), _c(2)), _c(1)), end)

            def step():
                r = b.load(root, typ=I64)
                child = b.add(b.mul(r, _c(2)), _c(1))
                right = b.add(child, _c(1))
                has_right = b.icmp_signed("<", right, end)
                right_c = b.select(has_right, right, child)
                bigger = b.and_(has_right, self.less(b, lane.get(b.add(lo, child)),
                                                     lane.get(b.add(lo, right_c))))
                child = b.select(bigger, right_c, child)
                down = self.less(b, lane.get(b.add(lo, r)), lane.get(b.add(lo, child)))
                with b.if_else(down) as (yes, no):
                    with yes:
                        lane.swap(b.add(lo, r), b.add(lo, child))
                        b.store(child, root)
                    with no:
                        b.store(end, root)  # the heap holds: stop

            self.loop_while(b, go_on, step)

        def build(t):  # start from the last parent down to 0
            sift(b.sub(b.sub(b.sdiv(size, _c(2)), _c(1)), t), size)

        emit_loop(b, b.sdiv(size, _c(2)), build, unroll=False, vectorize=False)

        def pop(t):
            end = b.sub(b.sub(size, _c(1)), t)
            lane.swap(lo, b.add(lo, end))
            sift(_c(0), end)

        emit_loop(b, b.sub(size, _c(1)), pop, unroll=False, vectorize=False)
        b.ret_void()
        return fn

    def select(self, stride1: bool) -> ll.Function:
        """``(keys, positions, lo, hi, k[, strides])``: the range ``[lo, hi)`` rearranged so
        that element ``k`` is the one sorting puts there, smaller or equal ones before it and
        larger or equal ones after."""
        params = self.signature(stride1)
        fn = self.function(f"select{'1' if stride1 else 's'}", [*params[:4], I64, *params[4:]])
        pieces = {what: getattr(self, what)(stride1) for what in ("insertion_sort", "heapsort")}
        smallest, largest = self.extreme(stride1, False), self.extreme(stride1, True)
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        args = list(fn.args)
        k = args[4]
        strides = args[5:]
        lane = self.Lane(self, b, args[0], args[1], *((_c(1), _c(1)) if stride1 else strides))
        lo, hi = self.local(b, args[2]), self.local(b, args[3])
        ctlz = self.module.declare_intrinsic("llvm.ctlz", [I64], ll.FunctionType(I64, [I64, I1]))
        bits = b.sub(_c(64), b.call(ctlz, [b.sub(args[3], args[2]), ll.Constant(I1, 0)]))
        rounds = self.local(b, b.mul(bits, _c(ROUNDS_PER_BIT)))
        head = fn.append_basic_block("round")
        done = fn.append_basic_block("done")
        b.branch(head)
        b.position_at_end(head)
        lo_v, hi_v = b.load(lo, typ=I64), b.load(hi, typ=I64)
        range_args = [args[0], args[1], lo_v, hi_v, *strides]

        def finish(piece):
            b.call(piece, range_args)
            b.branch(done)

        small = fn.append_basic_block("small")
        rest = fn.append_basic_block("rest")
        b.cbranch(b.icmp_signed("<=", b.sub(hi_v, lo_v), _c(SMALL)), small, rest)
        b.position_at_end(small)
        finish(pieces["insertion_sort"])
        b.position_at_end(rest)
        for test, piece in ((b.icmp_signed("==", k, lo_v), smallest),
                            (b.icmp_signed("==", k, b.sub(hi_v, _c(1))), largest),
                            (b.icmp_signed("<=", b.load(rounds, typ=I64), _c(0)), pieces["heapsort"])):
            then, rest = fn.append_basic_block("end_piece"), fn.append_basic_block("rest")
            b.cbranch(test, then, rest)
            b.position_at_end(then)
            finish(piece)
            b.position_at_end(rest)
        b.store(b.sub(b.load(rounds, typ=I64), _c(1)), rounds)
        # median of three: a[lo] <= a[mid] <= a[last], the pivot a[mid]
        last = b.sub(hi_v, _c(1))
        mid = b.add(lo_v, b.ashr(b.sub(last, lo_v), _c(1)))
        lane.swap_if_less(lo_v, mid)
        lane.swap_if_less(mid, last)
        lane.swap_if_less(lo_v, mid)
        pivot = lane.get(mid)
        size = b.sub(hi_v, lo_v)
        below = self.lomuto(b, lane, lo_v, size, lambda v: self.less(b, v, pivot))
        # [lo, below) < pivot <= [below, hi): go on in the side holding k
        left, moved = b.icmp_signed("<", k, below), b.icmp_signed(">", below, lo_v)
        b.store(b.select(left, lo_v, below), lo)
        b.store(b.select(left, below, hi_v), hi)
        equal_pass, next_round = fn.append_basic_block("equal_pass"), fn.append_basic_block("next")
        b.cbranch(b.or_(left, moved), next_round, equal_pass)
        b.position_at_end(equal_pass)  # the pivot is the range's least: its equals to the front
        equal = self.lomuto(b, lane, lo_v, size, lambda v: b.not_(self.less(b, pivot, v)))
        b.store(equal, lo)
        b.cbranch(b.icmp_signed("<", k, equal), done, next_round)  # k among the equals: done
        b.position_at_end(next_round)
        b.branch(head)
        b.position_at_end(done)
        b.ret_void()
        return fn

    def lomuto(self, b, lane, lo, size, goes_left) -> ll.Value:
        """The elements of ``[lo, lo + size)`` for which ``goes_left`` holds moved to its front
        (the position after them returned), branch-free: each element is swapped with the first
        one that does not go left, and that boundary moves on by one where it goes left (a
        mispredicted branch per element costs more than the swap)."""
        boundary = self.local(b, lo)

        def step(t):
            j = b.add(lo, t)
            at = b.load(boundary, typ=I64)
            v = lane.get(j)
            lane.put(j, lane.get(at))
            lane.put(at, v)
            if self.argsort:
                pj, pa = lane.pos_at(j), lane.pos_at(at)
                moved = b.load(pj, typ=I64)
                b.store(b.load(pa, typ=I64), pj)
                b.store(moved, pa)
            b.store(b.add(at, b.zext(goes_left(v), I64)), boundary)

        emit_loop(b, size, step, unroll=False, vectorize=False)
        return b.load(boundary, typ=I64)

    # --- a chunk of lanes ----------------------------------------------------------------

    def chunk_kernel(self, rank: int, axis: int, outer_dims: list, kth: tuple | int,
                     versions: tuple) -> ll.Function:
        """``void (src, keys, positions[, ranks], src strides..., keys strides..., positions
        strides...[, ranks strides...], extents...[, kth...], lo, hi)``: lanes ``[lo, hi)``
        copied (NaNs to the tail) and selected at ranks ``kth`` (as arguments, ascending, up
        to ``BISECT_UP_TO``; more are a table), or (an int) at that many ranks each lane
        reads from ``ranks`` (``partition_at``); ``versions``: the selections it may call, with
        stride 1 (True) or any."""
        tensors = 3 if isinstance(kth, tuple) else 4
        given = len(kth) if _ranks_as_arguments(kth) else 0
        fn = self.function("lanes", [PTR] * tensors + [I64] * ((tensors + 1) * rank + given + 2))
        for a in fn.args[:tensors]:
            a.add_attribute("noalias")
        src, keys, pos = fn.args[:3]
        strides = [list(fn.args[tensors + r * rank: tensors + (r + 1) * rank]) for r in range(tensors)]
        extents = list(fn.args[tensors + tensors * rank: tensors + (tensors + 1) * rank])
        n = extents[axis]
        first, end = fn.args[-2], fn.args[-1]
        b = ll.IRBuilder(fn.append_basic_block("entry"))
        selects = {v: self.select(v) for v in versions}
        if tensors == 4:  # a lane's ranks, sorted here, on the stack
            with b.goto_entry_block():
                wanted = b.alloca(I64, size=kth)
        counts = None
        if self.countable:  # the counting sort's counters, on this thread's stack
            with b.goto_entry_block():
                counts = b.alloca(I32, size=COUNT_SLOTS)
                counts.align = 64

        def lane_at(lane):
            """The lane's coordinates (0 along the axis)."""
            at = [_c(0)] * rank
            rest = lane
            for d in reversed(outer_dims):
                at[d] = b.urem(rest, extents[d])
                rest = b.udiv(rest, extents[d])
            return at

        def one_lane(t):
            at = lane_at(b.add(first, t))
            s = element_pointer(b, src, at, strides[0], self.elem)
            out = self.Lane(self, b, element_pointer(b, keys, at, strides[1], self.elem),
                            element_pointer(b, pos, at, strides[2], I64) if self.argsort else pos,
                            strides[1][axis], strides[2][axis])
            if tensors == 4:
                self.load_ranks(b, element_pointer(b, fn.args[3], [*(at[d] for d in outer_dims), _c(0)],
                                                   strides[3], I64), strides[3][-1], wanted, kth)
            if self.countable:  # a sample too wide to count: a plain copy, no min and max
                _, sample = self.copy_in_ints(b, s, strides[0][axis], None, b.select(
                    b.icmp_signed("<", n, _c(SAMPLE)), n, _c(SAMPLE)))
                with b.if_else(self.counting_wins(b, sample, n)) as (may_count, wide):
                    with may_count:
                        smallest, span = self.copy_in_ints(b, s, strides[0][axis], out, n)
                        with b.if_else(self.counting_wins(b, span, n)) as (counted, selected):
                            with counted:  # (a lane of one value, or in order, is in place)
                                with b.if_then(b.icmp_unsigned("!=", span, _c(0))):
                                    with b.if_then(b.not_(self.in_order(b, out, n))):
                                        self.counting_sort(b, out, n, smallest, span, counts)
                            with selected:
                                select_unless_in_order(out, n)
                    with wide:
                        select_unless_in_order(out, self.copy_in(b, s, strides[0][axis], out, n))
            else:
                select_unless_in_order(out, self.copy_in(b, s, strides[0][axis], out, n))

        def select_unless_in_order(out, numbers):
            """Select the ranks in the lane's first ``numbers`` elements, unless they are in
            order already (sorted, or all equal), which meets every rank: longer than ``SMALL``
            (an insertion sort settles a shorter one in one read), one read of the lane,
            stopping at its first block out of order (random keys: after one block)."""
            long = b.icmp_signed(">", numbers, _c(SMALL))
            done = self.local(b, ll.Constant(I1, 0))
            with b.if_then(long):
                b.store(self.in_order(b, out, numbers), done)
            with b.if_then(b.not_(b.load(done, typ=I1))):
                select_ranks(out, numbers)

        vector = self.vector_lanes()

        def select_rank(out, lo, hi, rank_k):
            """Select ``rank_k`` (i64) in ``[lo, hi)``: a long contiguous float range by the
            quicksort's vector partitions (``sort_quick.py``) where the target has them (sort51;
            the scalar selection where they give up)."""
            if vector is None:
                return scalar_rank(out, lo, hi, rank_k)
            contiguous = b.icmp_signed("==", out.stride, _c(1))
            if self.argsort:
                contiguous = b.and_(contiguous, b.icmp_signed("==", out.pos_stride, _c(1)))
            long = b.icmp_signed(">", b.sub(hi, lo), _c(VECTOR_FROM))
            with b.if_else(b.and_(contiguous, long)) as (by_vectors, alone):
                with by_vectors:
                    fast = sort_quick.declare_select(self.module, self.width, vector, self.argsort,
                                                     self.quick_kind)
                    at = b.gep(out.keys, [lo], inbounds=True, source_etype=self.elem)
                    # (argpartition: positions beside the keys); the range left is scalar
                    with b.goto_entry_block():
                        left = b.alloca(I64, size=2)
                    pos = [b.gep(out.pos, [lo], inbounds=True, source_etype=I64)] if self.argsort else []
                    b.call(fast, [at, *pos, b.sub(hi, lo), b.sub(rank_k, lo), left])
                    start = b.add(lo, b.load(left, typ=I64))
                    end = b.add(lo, b.load(b.gep(left, [_c(1)], source_etype=I64), typ=I64))
                    with b.if_then(b.icmp_signed("<", start, end)):
                        scalar_rank(out, start, end, rank_k)
                with alone:
                    scalar_rank(out, lo, hi, rank_k)

        def scalar_rank(out, lo, hi, rank_k):
            contiguous = b.icmp_signed("==", out.stride, _c(1))
            if self.argsort:
                contiguous = b.and_(contiguous, b.icmp_signed("==", out.pos_stride, _c(1)))
            range_args = [out.keys, out.pos, lo, hi, rank_k]
            strided_args = [*range_args, out.stride, out.pos_stride]
            if len(versions) == 1:
                b.call(selects[versions[0]], range_args if versions[0] else strided_args)
            else:
                with b.if_else(contiguous) as (yes, no):
                    with yes:
                        b.call(selects[True], range_args)
                    with no:
                        b.call(selects[False], strided_args)

        def select_ranks(out, numbers):
            count = len(kth) if tensors == 3 else kth
            if count > BISECT_UP_TO:
                return select_in_turn(out, numbers)
            for i, left, right in bisection(count):
                rank_k = rank_at(i)
                lo = _c(0) if left is None else b.add(rank_at(left), _c(1))
                lo = b.select(b.icmp_signed("<", lo, _c(0)), _c(0), lo)  # (a negative rank)
                hi = numbers
                if right is not None:
                    bound = rank_at(right)
                    hi = b.select(b.icmp_signed("<", bound, numbers), bound, numbers)
                # a repeat, or a rank outside the numbers, asks for nothing
                inside = b.and_(b.icmp_signed(">=", rank_k, lo), b.icmp_signed("<", rank_k, hi))
                with b.if_then(inside):
                    select_rank(out, lo, hi, rank_k)

        def rank_at(i):
            """Rank ``i`` of the lane's ascending ranks (i64)."""
            if tensors == 3:
                return fn.args[len(fn.args) - 2 - given + i]
            return b.load(b.gep(wanted, [_c(i)], source_etype=I64), typ=I64)

        def select_in_turn(out, numbers):
            """Each rank in ascending order in ``[the one before + 1, numbers)``."""
            lo = self.local(b, _c(0))

            def one(t):
                rank_k = b.load(b.gep(wanted, [t], source_etype=I64), typ=I64) if tensors == 4 else (
                    b.load(b.gep(static_ranks, [_c(0), t]), typ=I64))
                inside = b.and_(b.icmp_signed(">=", rank_k, b.load(lo, typ=I64)),
                                b.icmp_signed("<", rank_k, numbers))
                with b.if_then(inside):
                    select_rank(out, b.load(lo, typ=I64), numbers, rank_k)
                    b.store(b.add(rank_k, _c(1)), lo)

            emit_loop(b, _c(len(kth) if tensors == 3 else kth), one, unroll=False, vectorize=False)

        static_ranks = None
        if tensors == 3 and len(kth) > BISECT_UP_TO:
            table = ll.ArrayType(I64, len(kth))
            static_ranks = ll.GlobalVariable(self.module, table, f"{self.name}_kth")
            static_ranks.global_constant = True
            static_ranks.linkage = "internal"
            static_ranks.initializer = ll.Constant(table, [_c(k) for k in kth])

        emit_loop(b, b.sub(end, first), one_lane, unroll=False, vectorize=False)
        b.ret_void()
        return fn

    def load_ranks(self, b, ranks, stride, wanted, count: int) -> None:
        """The ``count`` ranks at ``ranks`` (an element stride apart) into ``wanted``, in
        ascending order (insertion sort: a lane reads a few)."""
        def load(t):
            at = b.gep(ranks, [b.mul(t, stride)], inbounds=True, source_etype=I64)
            b.store(b.load(at, typ=I64), b.gep(wanted, [t], source_etype=I64))

        emit_loop(b, _c(count), load, unroll=False, vectorize=False)

        def insert(t):
            i = b.add(t, _c(1))
            v = b.load(b.gep(wanted, [i], source_etype=I64), typ=I64)
            j = self.local(b, i)

            def go_on():
                at = b.load(j, typ=I64)
                above = b.icmp_signed(">", at, _c(0))
                before = b.load(b.gep(wanted, [b.select(above, b.sub(at, _c(1)), at)], source_etype=I64),
                                typ=I64)
                return b.and_(above, b.icmp_signed(">", before, v))

            def shift():
                at = b.load(j, typ=I64)
                before = b.sub(at, _c(1))
                b.store(b.load(b.gep(wanted, [before], source_etype=I64), typ=I64),
                        b.gep(wanted, [at], source_etype=I64))
                b.store(before, j)

            self.loop_while(b, go_on, shift)
            b.store(v, b.gep(wanted, [b.load(j, typ=I64)], source_etype=I64))

        emit_loop(b, _c(count - 1), insert, unroll=False, vectorize=False)

    def in_order(self, b, lane, n: ll.Value) -> ll.Value:
        """i1: no element of ``lane[:n]`` (no NaN among them) is below the one before it. Read
        in blocks of ``IN_ORDER_BLOCK`` pairs (the first of ``SMALL``), stopping after the first
        block with a descent."""
        descent, start = self.local(b, ll.Constant(I1, 0)), self.local(b, _c(0))
        pairs = b.sub(n, _c(1))

        def more():
            return b.and_(b.icmp_signed("<", b.load(start, typ=I64), pairs), b.not_(b.load(descent, typ=I1)))

        def block():
            first = b.load(start, typ=I64)
            left = b.sub(pairs, first)
            # the first block short: a lane out of order mostly shows it in its first pairs
            most = b.select(b.icmp_signed("==", first, _c(0)), _c(SMALL), _c(IN_ORDER_BLOCK))
            length = b.select(b.icmp_signed("<", left, most), left, most)

            def pair(t):
                i = b.add(first, t)
                down = self.less(b, lane.get(b.add(i, _c(1))), lane.get(i))
                b.store(b.or_(b.load(descent, typ=I1), down), descent)

            emit_loop(b, length, pair)
            b.store(b.add(first, length), start)

        self.loop_while(b, more, block)
        return b.not_(b.load(descent, typ=I1))

    def copy_in_ints(self, b, src, src_stride, out, n: ll.Value) -> tuple[ll.Value, ll.Value]:
        """Copy the lane of ints at ``src`` into ``out`` (None: only read the first ``n``); its
        smallest element and its span (largest - smallest, unsigned, as i64), found on the
        way. A lane's span is at least that of its first elements."""
        first = b.load(src, typ=self.elem)
        least, most = self.local(b, first), self.local(b, first)

        def copy(i):
            v = b.load(b.gep(src, [b.mul(i, src_stride)], inbounds=True, source_etype=self.elem),
                       typ=self.elem)
            if out is not None:
                out.put(i, v)
            low, high = b.load(least, typ=self.elem), b.load(most, typ=self.elem)
            b.store(b.select(self.less(b, v, low), v, low), least)
            b.store(b.select(self.less(b, high, v), v, high), most)

        emit_loop(b, n, copy, unroll=out is not None)
        low = b.load(least, typ=self.elem)
        span = b.sub(b.load(most, typ=self.elem), low)  # as unsigned: fits the width
        return low, span if self.elem.width == 64 else b.zext(span, I64)

    @staticmethod
    def counting_wins(b, span, n) -> ll.Value:
        """i1: counting sort the lane (a span below its length and below the counters; a
        length that an i32 counter holds)."""
        fits = b.and_(b.icmp_unsigned("<", span, n), b.icmp_unsigned("<", span, _c(COUNT_SLOTS)))
        return b.and_(fits, b.icmp_unsigned("<", n, _c(1 << 31)))

    def counting_sort(self, b, out, n, smallest, span, counts) -> None:
        """The lane ``out`` (ints within ``smallest + [0, span]``) sorted in place by counting
        each value, then writing each as often as it occurred: sorted meets every rank."""
        slots = b.add(span, _c(1))
        memset = self.module.declare_intrinsic("llvm.memset", [PTR, I64])
        b.call(memset, [counts, ll.Constant(ll.IntType(8), 0), b.mul(slots, _c(4)), ll.Constant(I1, 0)])

        def slot_of(v):
            offset = b.sub(v, smallest)
            return offset if self.elem.width == 64 else b.zext(offset, I64)

        def count(i):
            at = b.gep(counts, [slot_of(out.get(i))], inbounds=True, source_etype=I32)
            b.store(b.add(b.load(at, typ=I32), ll.Constant(I32, 1)), at)

        emit_loop(b, n, count, vectorize=False)
        written = self.local(b, _c(0))
        last = b.sub(n, _c(1))

        def write(slot):
            value = b.add(smallest, slot if self.elem.width == 64 else b.trunc(slot, self.elem))
            times = b.zext(b.load(b.gep(counts, [slot], inbounds=True, source_etype=I32), typ=I32), I64)
            start = b.load(written, typ=I64)
            # the first FILL_AHEAD copies without a branch on the count (a count of 0-3 would
            # mispredict): any beyond the slot's own are overwritten by the slots after it,
            # and the last slot (the largest element's) is not empty, so none stays; clamped
            # into the lane.
            for j in range(FILL_AHEAD):
                out.put(b.select(b.icmp_signed("<", b.add(start, _c(j)), last), b.add(start, _c(j)), last),
                        value)
            with b.if_then(b.icmp_signed(">", times, _c(FILL_AHEAD))):
                emit_loop(b, b.sub(times, _c(FILL_AHEAD)),
                          lambda j: out.put(b.add(b.add(start, _c(FILL_AHEAD)), j), value), unroll=False)
            b.store(b.add(start, times), written)

        emit_loop(b, slots, write, unroll=False, vectorize=False)

    def copy_in(self, b, src, src_stride, out, n: ll.Value) -> ll.Value:
        """Copy the lane at ``src`` into ``out`` (and each element's position), a float's NaNs
        to the tail; the number of elements before them (i64)."""
        if self.float is None:
            def copy(i):
                out.put(i, b.load(b.gep(src, [b.mul(i, src_stride)], inbounds=True,
                                        source_etype=self.elem), typ=self.elem))
                if self.argsort:
                    b.store(i, out.pos_at(i))

            emit_loop(b, n, copy)
            return n
        front, back = self.local(b, _c(0)), self.local(b, b.sub(n, _c(1)))

        def split(i):
            v = b.load(b.gep(src, [b.mul(i, src_stride)], inbounds=True, source_etype=self.elem),
                       typ=self.elem)
            nan = b.fcmp_unordered("uno", b.bitcast(v, self.float), b.bitcast(v, self.float))
            f, k = b.load(front, typ=I64), b.load(back, typ=I64)
            to = b.select(nan, k, f)
            out.put(to, v)
            if self.argsort:
                b.store(i, out.pos_at(to))
            b.store(b.add(f, b.zext(b.not_(nan), I64)), front)
            b.store(b.sub(k, b.zext(nan, I64)), back)

        emit_loop(b, n, split, vectorize=False)
        return b.load(front, typ=I64)
