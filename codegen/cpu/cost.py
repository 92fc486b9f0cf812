"""What a kernel's work weighs against the runtime's ``parallel_threshold``.

The threshold is in iteration points of a body that costs about what ``tanh(2x+1)`` costs in
float32 (``jitcore/config.py``). A kernel's points are weighed by what its body costs per point
relative to that (``weight``), measured on one thread of the 2-core AMD EPYC (znver5, 512-bit
vectors), 2^18 points in cache, ns a point against 0.25 for ``tanh(2x+1)`` float32:

- a body that calls the math library costs about one ``tanh`` per call in float32 (``exp`` 0.18,
  ``log`` 0.30, ``sin`` 0.37, ``tanh`` 0.25) and about three in float64 (``exp`` 0.50, ``log``
  0.83, ``sin`` 0.79, ``tanh`` 0.80), since a vector holds half as many and the polynomials are
  longer: ``sum(log(exp(x)))`` is 0.7 ns a point in float32 and 1.8 in float64, two and seven
  ``tanh``s. Each call weighs ``MATH_WEIGHT`` of its width, so such a body is no longer counted
  as one ``tanh`` whatever it holds: 10^5 float64 points of ``exp`` and ``log`` (180 us on one
  thread) now reach the threshold, as they should now that waking the pool costs microseconds;
- a body of loads, stores and arithmetic only (a sum of squares, a difference) costs 0.05-0.09
  ns a point in float32 and twice that in float64 (half the lanes; a 1000x1000 float64 row norm,
  out of L2, 0.19): ``CHEAP_WEIGHT`` per 32 bits of its widest element, a quarter of a ``tanh``
  in float32 and a half in float64. It was an eighth whatever the width, which kept a 50 us
  kernel whole when starting a thread cost 20-30 us; the pool wakes in a few (docs/performance.md,
  "Persistent thread pool"), so a float64 row norm of 1000x1000 (190 us) now splits;
- a body that only moves data (a copy, a transpose, ``np.roll``'s shifted segments: nothing but
  position tests and selects) is bound by memory, which one core of that machine already takes
  nearly all of: ``np.roll`` of 10M elements ran no faster on two threads than on one, and up to
  1.6x slower when other processes held the second core. Its points weigh ``COPY_WEIGHT``
  whatever their width, so it splits only past 16M points.

The weight only moves where the threshold falls. The chunks are still counted in points
(``chunk_size``), so which chunks a kernel is cut into, hence its results, do not depend on it.
(Chunks of weighed points were tried: 10^5 float64 points of ``exp`` and ``log`` then ran as 18
chunks, not 3, which two threads share evenly; but 10M points of float64 ``tanh`` became 915
chunks, not 305, and measured up to 0.65x on two threads on the loaded host, so not kept.)
"""

from __future__ import annotations

import math
from fractions import Fraction

from llvmlite import ir as ll

from jitcore.codegen.cpu import target
from jitcore.codegen.llvm_types import I64
from jitcore.ir.core import Operation

# Math ops as cheap as arithmetic: one or a few vector instructions each.
_CHEAP_MATH = frozenset({
    "math.absf", "math.absi", "math.sqrt", "math.floor", "math.ceil", "math.trunc", "math.rint",
    "math.copysign", "math.fma",
})
CHEAP_WEIGHT = Fraction(1, 4)  # per point and per 32 bits of the widest element
# A tiled matrix product's multiply-add (codegen/cpu/tiled_gemm.py), per 32 bits. It costs
# 0.019 ns in float32 and 0.037 in float64 on one Zen 4 core (about 1/13 of tanh(2x+1)'s 0.25 a
# point), but a product's chunks start slower than an elementwise kernel's (each packs its
# panels, from cold caches after a pause): from a parked pool, float32 192^3 (125 us on one
# thread) took 0.20 ms split against 0.18 whole, float64 192^3 0.28 against 0.36. So it weighs
# less than it costs: products up to about 130 us on one thread split only while a worker is
# hot (128^3 to 192^3 float32, up to 160^3 float64), larger ones always.
PRODUCT_WEIGHT = Fraction(1, 32)
COPY_WEIGHT = Fraction(1, 64)
MATH_WEIGHT = {32: 1, 64: 3}  # per math-library call, by the width of its result
MATH_INTERLEAVE = 4  # iterations of a math-bound vector loop run side by side (see interleave)
# Calls that keep so many values live that four vectors side by side spill on a 32-register
# target (float64 pow's double-double log and exp; cbrt's integer seed, steps and exact
# residual; float32 arcsin's and arccos's sqrt with its remainder's division): two measured
# 5-12% faster on Zen 4, where the others gain nothing from two (docs/performance.md, "The math
# library on Zen 4", rounds 6 and 8). float64 sin and cos (both polynomials and their double-word
# parts on every lane: 46-57 stack references a loop of four, 15-17 at two) run the same in
# cache at two, and 14-30% faster on arrays streamed from memory, where four overlapped their
# loads with the arithmetic far less (round 10). By op and result width.
NARROW_INTERLEAVE = {("math.powf", 64): 2, ("math.cbrt", 32): 2, ("math.cbrt", 64): 2,
                     ("math.arcsin", 32): 2, ("math.arccos", 32): 2,
                     ("math.sin", 64): 2, ("math.cos", 64): 2}
# Of those, the calls whose AVX-512 variant keeps fewer values live (float64 pow's tables in
# place of the double-double selects): with the variant, 1 and 4 side by side ran 5% faster
# than 2 on Zen 4 (docs/performance.md, "The math library on Zen 4, round 7").
NARROW_WITHOUT_VARIANT = frozenset({("math.powf", 64)})
# A reduced body whose calls weigh this much (MATH_WEIGHT: two float64 calls) spills when LLVM
# unrolls a reduction block into 16 vectors of straight code; lighter ones run faster unrolled
# (docs/performance.md, "The math library on Zen 4, round 6").
SPILL_WEIGHT = 6
INTERLEAVE_MIN_TRIP = 4096  # a shorter loop known at compile time is left to LLVM
# Ops of a body that moves data: where a position falls, and which operand's element it takes.
_MOVING = frozenset({"kernel.index", "kernel.yield", "arith.constant", "arith.select"})
# For the backend's fingerprint: code compiled under other weights compares other constants.
FINGERPRINT = (f"cheap={CHEAP_WEIGHT},copy={COPY_WEIGHT},product={PRODUCT_WEIGHT},"
               f"math={MATH_WEIGHT[32]}/{MATH_WEIGHT[64]},"
               f"narrow={sorted(NARROW_INTERLEAVE.items())},{sorted(NARROW_WITHOUT_VARIANT)},"
               f"spill={SPILL_WEIGHT}")


def _point_ops(op: Operation):
    """The ops ``op`` runs at each iteration point: its body's, nested ones included, not its
    epilogue's (which runs once per output element, a small share of the points)."""
    for inner in op.body.ops:
        yield from inner.walk()


def is_cheap(op: Operation) -> bool:
    """Whether ``op``'s body is arithmetic only: no call of the math library, no loop."""
    return all(is_cheap_scalar(inner) for inner in _point_ops(op))


def is_cheap_scalar(inner: Operation) -> bool:
    """Whether the scalar op ``inner`` is arithmetic: not a call of the math library, no loop."""
    name = inner.op_name
    if name.startswith("math."):
        return name in _CHEAP_MATH
    return not name.startswith(("scf.", "complex."))


def only_moves_data(op: Operation) -> bool:
    """Whether ``op``'s body computes nothing from its elements: each op is a position, a
    constant, a select of an element, or arithmetic on index and i1 values only (tests on
    positions; logic on booleans, which is as cheap as copying them)."""
    for inner in _point_ops(op):
        if inner.op_name in _MOVING:
            continue
        values = [*inner.operands, *inner.results]
        if not inner.op_name.startswith("arith.") or not all(
                getattr(v.type, "name", None) in ("index", "i1") for v in values):
            return False
    return True


def _bits(value) -> int:
    """The width of a scalar value's type (a complex one's parts'), 32 for anything narrower."""
    t = value.type
    if getattr(t, "is_complex", False):
        t = t.component
    return max(getattr(t, "bitwidth", 32), 32)


def _widest(op: Operation) -> int:
    return max((_bits(v) for v in op.body.args), default=32)


def weight(op: Operation) -> Fraction:
    """What one of ``op``'s iteration points weighs against the threshold (see above)."""
    if only_moves_data(op):
        return COPY_WEIGHT
    if is_cheap(op):
        return CHEAP_WEIGHT * (_widest(op) // 32)
    calls = sum(MATH_WEIGHT[64 if _bits(inner.results[0]) > 32 else 32]
                for inner in _point_ops(op)
                if inner.op_name.startswith("math.") and inner.op_name not in _CHEAP_MATH
                and inner.results)
    return Fraction(max(calls, 1))  # a loop or complex arithmetic: one tanh, as before


def product_weight(op: Operation) -> Fraction:
    """What one multiply-add of ``op``, a matrix product run by the tiled kernel, weighs."""
    return PRODUCT_WEIGHT * (_widest(op) // 32)


def math_interleave(op: Operation) -> int:
    """Vector iterations of ``op``'s math-bound loop to run side by side: ``MATH_INTERLEAVE``,
    or fewer where a call of its body keeps too many values live (``NARROW_INTERLEAVE``)."""
    calls = [(inner.op_name, _bits(inner.results[0])) for inner in _point_ops(op)
             if inner.op_name.startswith("math.") and inner.results]
    if "avx512" in target.math_isa():
        calls = [call for call in calls if call not in NARROW_WITHOUT_VARIANT]
    return min([MATH_INTERLEAVE, *(NARROW_INTERLEAVE.get(call, MATH_INTERLEAVE) for call in calls)])


def spills_unrolled(op: Operation) -> bool:
    """Whether ``op``'s reduced body keeps too many constants live for a reduction block of 16
    vectors of straight code (``reduction.RowReduction._block``): calls that weigh
    ``SPILL_WEIGHT`` or more together, two float64 calls (exp and log: 30 constant vectors)."""
    calls = sum(MATH_WEIGHT[64 if _bits(inner.results[0]) > 32 else 32] for inner in _point_ops(op)
                if inner.op_name.startswith("math.") and inner.op_name not in _CHEAP_MATH and inner.results)
    return calls >= SPILL_WEIGHT


def calls_math_library(op: Operation) -> bool:
    """Whether ``op``'s body calls the math library (a transcendental, not a cheap math op)."""
    return any(inner.op_name.startswith("math.") and inner.op_name not in _CHEAP_MATH and inner.results
               for inner in _point_ops(op))


def interleave(op: Operation, trip_count: int | None) -> int:
    """How many iterations of ``op``'s innermost vector loop, of ``trip_count`` iterations
    (None: known only at run time), LLVM should run side by side; 0 leaves it to LLVM.

    LLVM's vectorizer interleaves a loop only while its body is small, so it never interleaves
    a math-library call's: each vector of elements then runs that function's long chain of
    dependent steps (reduction, polynomial, scaling) alone, and the core waits on each step's
    latency. ``MATH_INTERLEAVE`` independent chains fill those waits. Not below
    ``INTERLEAVE_MIN_TRIP`` known iterations: a row of a few hundred elements then runs mostly
    in the remainder loops (a 316-wide float32 ``exp`` of a broadcast measured 0.87-0.96x). A
    run-time length is interleaved whatever it is at this compile, so that one code serves
    every length (size-generic kernels), short rows paying that price. Never for
    arithmetic-only bodies, which LLVM already interleaves where it pays (docs/performance.md,
    "Interleaved math loops on Zen 4", has the measurements)."""
    if not calls_math_library(op):
        return 0
    if trip_count is not None and trip_count < INTERLEAVE_MIN_TRIP:
        return 0
    return math_interleave(op)


def threshold_work(op: Operation) -> int:
    """``op``'s iteration points as the threshold weighs them."""
    return weigh(None, math.prod(op.domain()), weight(op))


def weigh(b: ll.IRBuilder | None, work: int | ll.Value, by: Fraction) -> int | ll.Value:
    """``work`` points times the weight ``by``, rounded down: an int, or an i64 value computed
    at the builder's position where ``work`` is known only at run time."""
    if isinstance(work, int):
        return work * by.numerator // by.denominator
    if by.numerator != 1:
        work = b.mul(work, ll.Constant(I64, by.numerator))
    return work if by.denominator == 1 else b.sdiv(work, ll.Constant(I64, by.denominator))
