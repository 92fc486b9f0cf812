"""Integer ``//`` and ``%`` without a division instruction per element.

x86 and most other CPUs have no vector integer division, so LLVM divides lane by lane (a
scalar ``idiv`` of 10-20 cycles), except by a constant, which it turns into a multiply-high:
vectorized for 8- to 32-bit lanes, scalar for 64-bit ones (x86 has no 64x64->128 vector
multiply). Two replacements, both exact for every input:

- **By a divisor the loop does not change** (a Python-int constant, a scalar argument, any
  value computed from those): a magic number and two shifts computed from the divisor once (LLVM
  hoists them out of the loop: they depend on nothing the loop changes), then per element a
  multiply-high, a subtraction, an addition and two shifts: vector code. The unsigned method is
  Granlund and Montgomery's (1994, Figure 4.1; derived below); a signed floor division divides
  magnitudes, rounded up where the signs differ. 64-bit lanes multiply in 32-bit halves;
  8-bit ones in 16-bit lanes with a magic number that needs no shift (``_Magic._eight_bits``).
- **By an array of 8-, 16- or 32-bit divisors**: a float division (float32 for 8 and 16 bits,
  float64 for 32), floored. Exact: see ``by_float``.
- **By an array of 64-bit divisors**: two estimates from a float64 reciprocal, scaled down so
  that neither passes the quotient, and one correction (``_reciprocal_quotient``, with the
  proof), where x86 has vector 64-bit conversions and multiplies (AVX-512DQ); LLVM's
  ``div`` per element elsewhere (the emulated conversions measured slower).

Unsigned quotient of an N-bit ``n`` by ``d`` (1 <= d < 2**N). Let ``l = ceil(log2 d)``, so
``2**(l-1) < d <= 2**l``, and ``m = floor(2**N (2**l - d) / d) + 1``, which is below 2**N
(``2**l - d < d``). Then ``M = m + 2**N = floor(2**(N+l) / d) + 1`` exceeds ``2**(N+l) / d`` by
at most 1, so ``M n / 2**(N+l) = n / d + e`` with ``0 <= e <= n / 2**(N+l) < 2**-l <= 1 / d``.
The fraction of ``n / d`` is at most ``(d - 1) / d``, so adding ``e`` does not reach the next
whole number: ``floor(M n / 2**(N+l)) = floor(n / d)``. With ``t = (m n) >> N`` (at most
``n``), that is ``(t + n) >> l``, computed without its (N+1)-th bit as
``(t + ((n - t) >> min(l, 1))) >> max(l - 1, 0)`` (for d = 1, m = 1 and t = 0: q = n).
``tests/codegen/test_intdiv.py`` checks every 8-bit pair and the edges of the wider widths.

For N = 64 the magic number needs ``floor(2**64 r / d)`` with ``r < d``: a 128-by-64-bit
division, which LLVM would leave to ``__udivti3`` (not linked in jitcore's code). It is done
in two 32-bit digits (Knuth's algorithm D: normalise, estimate each digit from the divisor's
top half, correct it at most twice), with 64-bit divisions only.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.ir.attributes import AffineMap
from jitcore.ir.core import Operation, OpResult
from jitcore.ir.dialects import kernel

DIVISIONS = frozenset({"arith.floordivsi", "arith.floormodsi", "arith.divui", "arith.remui"})
I16 = ll.IntType(16)
I64 = ll.IntType(64)


def invariant_divisions(op: kernel.GenericOp, maps: list[AffineMap]) -> set[int]:
    """The ids of the divisions in ``op``'s body whose divisor is the same at every point: read
    through a map without dims, a constant, or computed from such values only."""
    divisions = [inner for inner in kernel.body_ops(op) if inner.op_name in DIVISIONS
                 and inner.results[0].type.bitwidth in (8, 16, 32, 64)]
    if not divisions:
        return set()
    args = op.body.args
    invariant = {id(args[i]) for i in range(len(op.operands))
                 if i not in op.indexed and i not in op.clamped
                 and all(e.dim is None for e in maps[i].exprs)}
    for inner in kernel.body_ops(op):
        if (inner.op_name.startswith(("arith.", "math.")) and not inner.regions
                and all(id(v) in invariant for v in inner.operands)):
            invariant.update(id(r) for r in inner.results)
    return {id(d) for d in divisions if id(d.operands[1]) in invariant and _pays(d)}


def _pays(op: Operation) -> bool:
    """LLVM's own code for a constant divisor is as fast below 64 bits (it vectorizes its
    multiply-high there) and for a power of two (a shift)."""
    value = constant_divisor(op)
    return value is None or (op.results[0].type.bitwidth == 64 and abs(value) & (abs(value) - 1) != 0)


def constant_divisor(op: Operation) -> int | None:
    divisor = op.operands[1]
    if isinstance(divisor, OpResult) and divisor.op.op_name == "arith.constant":
        return int(divisor.op.attributes["value"].value)
    return None


def float_pays(op: Operation) -> bool:
    """Whether ``by_float`` is the division to use: 8 to 32 bits, and a divisor LLVM does not
    know (by a constant, its multiply-high is faster)."""
    return op.results[0].type.bitwidth in (8, 16, 32) and constant_divisor(op) is None


def reciprocal_pays(op: Operation, isa: frozenset[str]) -> bool:
    """Whether ``by_reciprocal`` is the division to use: 64 bits, a divisor LLVM does not know,
    and AVX-512DQ's conversions and multiplies (``target.kernel_isa``)."""
    return op.results[0].type.bitwidth == 64 and constant_divisor(op) is None and "avx512dq" in isa


def by_invariant(b: ll.IRBuilder, name: str, x: ll.Value, d: ll.Value) -> ll.Value:
    """``name`` (one of ``DIVISIONS``) of ``x`` by ``d``, a value the enclosing loop does not
    change: NumPy's results (0 for a zero divisor, ``MIN // -1`` wrapping), no division per
    element."""
    return _by_magnitudes(b, name, x, d, lambda n, m: _unsigned_quotient(b, n, _Magic(b, m)))


def by_reciprocal(b: ll.IRBuilder, name: str, x: ll.Value, y: ll.Value) -> ll.Value:
    """``name`` of 64-bit ``x`` by ``y`` elementwise, NumPy's results, through float64
    reciprocals (``_reciprocal_quotient``): vector code, where LLVM divides lane by lane."""
    return _by_magnitudes(b, name, x, y, lambda n, m: _reciprocal_quotient(b, n, m))


def _by_magnitudes(b: ll.IRBuilder, name: str, x: ll.Value, d: ll.Value, quotient) -> ll.Value:
    """``name`` of ``x`` by ``d`` from ``quotient(n, m)``, the unsigned ``n // m`` (m > 0)."""
    t = x.type
    zero = ll.Constant(t, 0)
    d_zero = b.icmp_unsigned("==", d, zero)
    safe = b.select(d_zero, ll.Constant(t, 1), d)
    if name in ("arith.divui", "arith.remui"):
        q = quotient(x, safe)
        out = q if name == "arith.divui" else b.sub(x, b.mul(q, safe))
        return b.select(d_zero, zero, out)
    # Floor division of signed values: |x| by |d| unsigned, rounded up where the signs differ
    # (floor(-a/b) = -ceil(a/b) = -floor((a + b - 1) / b)); a + b - 1 <= 2**N - 1 cannot wrap.
    # MIN // -1: the signs agree, and the unsigned quotient 2**(N-1) is MIN, as NumPy wraps.
    magnitude = b.select(b.icmp_signed("<", safe, zero), b.neg(safe), safe)
    differ = b.ashr(b.xor(x, safe), ll.Constant(t, t.width - 1))  # all ones where they differ
    bias = b.and_(differ, b.sub(magnitude, ll.Constant(t, 1)))
    x_magnitude = b.select(b.icmp_signed("<", x, zero), b.neg(x), x)
    uq = quotient(b.add(x_magnitude, bias), magnitude)
    q = b.sub(b.xor(uq, differ), differ)
    out = q if name == "arith.floordivsi" else b.sub(x, b.mul(q, safe))
    return b.select(d_zero, zero, out)


def by_float(b: ll.IRBuilder, name: str, x: ll.Value, y: ll.Value) -> ll.Value:
    """``name`` (one of ``DIVISIONS``) of 8-, 16- or 32-bit ``x`` by ``y`` through a float
    division, which vectorizes: float32 up to 16 bits, float64 for 32.

    Exact: for whole numbers with ``|x| < 2**p`` (p = 24 or 53 bits of precision) and ``y`` not
    0, ``floor(fl(x / y)) = floor(x / y)``. Rounding is monotonic and every whole number up to
    ``|x|`` is a float, so ``fl(x / y)`` cannot fall below ``floor(x / y)``; and where ``x / y``
    is not whole, it lies at least ``1 / |y|`` below the next whole number, more than the
    rounding error ``|x / y| 2**-p`` since ``|x| < 2**p``."""
    t = x.type
    signed = name == "arith.floordivsi" or name == "arith.floormodsi"
    f = ll.FloatType() if t.width <= 16 else ll.DoubleType()
    zero = ll.Constant(t, 0)
    y_zero = b.icmp_unsigned("==", y, zero)
    safe = b.select(y_zero, ll.Constant(t, 1), y)
    to_float = b.sitofp if signed else b.uitofp
    quotient = b.call(_floor(b.module, f), [b.fdiv(to_float(x, f), to_float(safe, f))])
    if not signed:
        q = b.fptoui(quotient, t)
    elif t.width < 32:
        q = b.trunc(b.fptosi(quotient, ll.IntType(32)), t)
    else:  # MIN // -1 is 2**31, past int32: it wraps to MIN
        limit = ll.Constant(f, 2.0 ** 31)
        wraps = b.fcmp_ordered(">=", quotient, limit)
        q = b.fptosi(b.select(wraps, ll.Constant(f, -(2.0 ** 31)), quotient), t)
    out = q if name in ("arith.floordivsi", "arith.divui") else b.sub(x, b.mul(q, safe))
    return b.select(y_zero, zero, out)


def _reciprocal_quotient(b: ll.IRBuilder, n: ll.Value, d: ll.Value) -> ll.Value:
    """``n // d`` for unsigned 64-bit ``n`` and ``d >= 1``: two estimates from ``r``, float64's
    ``1 / d`` scaled down by ``s = 1 - 2**-49``, and one step of correction.

    Proof (u = 2**-53, each float operation and conversion off by a factor in [1 - u, 1 + u];
    Q = n / d): ``fl(fl(n) r)`` lies in ``[Q (1 - 21u), Q (1 - 9u)]``, so its integer part
    ``q0`` is at most Q and above ``Q - 21u Q - 1 > Q - 2**16``: ``R = n - q0 d`` is exact in
    unsigned 64 bits (``0 <= R <= n``) and ``R / d < 2**16``. The same estimate of ``R / d``
    gives ``k`` with ``R / d - 2 < k <= R / d`` (its error is far below 1 there), so
    ``R - k d`` lies in ``[0, 2d)`` and ``q = q0 + k + (R - k d >= d)``. Every float is
    non-negative and below 2**64: the conversions back to integers are defined."""
    f = ll.DoubleType()
    scaled = b.fmul(b.fdiv(ll.Constant(f, 1.0), b.uitofp(d, f)), ll.Constant(f, 1.0 - 2.0 ** -49))

    def estimate(v):
        return b.fptoui(b.fmul(b.uitofp(v, f), scaled), v.type)

    q0 = estimate(n)
    rest = b.sub(n, b.mul(q0, d))
    k = estimate(rest)
    rest = b.sub(rest, b.mul(k, d))
    return b.add(b.add(q0, k), b.zext(b.icmp_unsigned(">=", rest, d), n.type))


def _floor(module: ll.Module, f: ll.Type) -> ll.Function:
    return module.declare_intrinsic("llvm.floor", [f], ll.FunctionType(f, [f]))


class _Magic:
    """The multiplier ``m`` and shifts of an unsigned N-bit divisor ``d`` (nonzero)."""

    def __init__(self, b: ll.IRBuilder, d: ll.Value):
        t = d.type
        width = t.width
        one = ll.Constant(t, 1)
        if width == 8:
            self._eight_bits(b, d)
            return
        # l = ceil(log2 d) = N - ctlz(d - 1), in [0, N]
        leading = b.call(_ctlz(b.module, t), [b.sub(d, one), ll.Constant(ll.IntType(1), 0)])
        log = b.sub(ll.Constant(t, width), leading)
        if width <= 32:
            wide_d = b.zext(d, I64)
            excess = b.sub(b.shl(ll.Constant(I64, 1), b.zext(log, I64)), wide_d)  # 2**l - d
            quotient = b.udiv(b.shl(excess, ll.Constant(I64, width)), wide_d)
            self.m = b.trunc(b.add(quotient, ll.Constant(I64, 1)), t)
        else:  # 2**64 - d where l = 64, which no 64-bit shift can make
            excess = b.select(b.icmp_unsigned("==", log, ll.Constant(t, 64)), b.neg(d),
                              b.sub(b.shl(one, b.and_(log, ll.Constant(t, 63))), d))
            # The multiplier as the halves the multiply-high uses, made from the quotient's two
            # digits: as ``m & 0xFFFFFFFF`` and ``m >> 32`` LLVM would see the four products
            # as one 128-bit multiply, which it splits into a scalar ``mul`` per lane.
            high, low = _wide_quotient(b, excess, d)
            low = b.add(low, one)
            low_mask = ll.Constant(t, 0xFFFFFFFF)
            # (the high half masked too, so that LLVM knows both fit in 32 bits: ``pmuludq``)
            high = b.add(high, b.lshr(low, ll.Constant(t, 32)))
            self.m = b.and_(low, low_mask), b.and_(high, low_mask)
        some = b.icmp_unsigned("!=", log, ll.Constant(t, 0))
        self.first = b.zext(some, t)  # min(l, 1)
        self.second = b.select(some, b.sub(log, one), ll.Constant(t, 0))  # max(l - 1, 0)


    def _eight_bits(self, b: ll.IRBuilder, d: ll.Value) -> None:
        """8 bits divide in 16-bit lanes, where x86 has a multiply-high and shifts (for bytes it
        has neither): ``q = mulhi16(n, M) + (n where d = 1)`` with ``M = ceil(2**16 / d)``
        (``floor((2**16 - 1) / d) + 1``, at most 2**15) for d >= 2 and 0 for d = 1, where ``one``
        is all ones (else 0). Exact: ``0 <= M - 2**16 / d < 1``, so ``M n / 2**16 = n / d + e``
        with ``0 <= e < n / 2**16 < 1 / d`` (``n d < 2**16``: both below 2**8), too little to
        pass the next whole number after ``n / d``, whose fraction is at most ``(d - 1) / d``."""
        wide = b.zext(d, I16)
        is_one = b.icmp_unsigned("==", wide, ll.Constant(I16, 1))
        m = b.add(b.udiv(ll.Constant(I16, 0xFFFF), wide), ll.Constant(I16, 1))
        self.m = b.select(is_one, ll.Constant(I16, 0), m)
        self.one = b.sext(is_one, I16)

def _unsigned_quotient(b: ll.IRBuilder, n: ll.Value, magic: _Magic) -> ll.Value:
    if n.type.width == 8:
        wide = b.zext(n, I16)
        return b.trunc(b.add(_multiply_high(b, wide, magic.m), b.and_(wide, magic.one)), n.type)
    t = _multiply_high(b, n, magic.m)
    return b.lshr(b.add(t, b.lshr(b.sub(n, t), magic.first)), magic.second)


def _multiply_high(b: ll.IRBuilder, x: ll.Value, y) -> ll.Value:
    """The top N bits of the 2N-bit product of unsigned N-bit ``x`` and ``y``: LLVM's
    fixed-point multiply up to N = 32, four 32x32-bit products for N = 64, where ``y`` comes as
    its halves (low, high)."""
    t = x.type
    width = t.width
    if width <= 32:
        # umul.fix with a scale of N: the product's top half (``pmulhuw``; ``pmuludq`` on even
        # and odd lanes). Written as a product in lanes twice as wide, with the multiplier
        # widened once outside the loop, LLVM widened every lane to 2N bits and back.
        # (LangRef leaves the rounding of the dropped half to the target; LLVM lowers a scale
        # of N as its MULHU node and folds constants by truncating, and the exhaustive tests
        # of 8 and 16 bits would see any other rounding.)
        fn = b.module.declare_intrinsic("llvm.umul.fix", [t], ll.FunctionType(t, [t, t, ll.IntType(32)]))
        return b.call(fn, [x, y, ll.Constant(ll.IntType(32), width)])
    low_mask, half = ll.Constant(t, 0xFFFFFFFF), ll.Constant(t, 32)
    x0, x1 = b.and_(x, low_mask), b.lshr(x, half)
    y0, y1 = y
    low, cross0, cross1 = b.mul(x0, y0), b.mul(x0, y1), b.mul(x1, y0)
    # bits 32-95 of the product, each part below 2**32: their sum cannot wrap
    middle = b.add(b.add(b.lshr(low, half), b.and_(cross0, low_mask)), b.and_(cross1, low_mask))
    high = b.add(b.mul(x1, y1), b.add(b.lshr(cross0, half), b.lshr(cross1, half)))
    return b.add(high, b.lshr(middle, half))


def _wide_quotient(b: ll.IRBuilder, r: ll.Value, d: ll.Value) -> tuple[ll.Value, ll.Value]:
    """``floor(2**64 r / d)`` for 64-bit ``r < d`` (so it fits in 64 bits) as its two 32-bit
    digits, high first. Shifting both by ``ctlz(d)`` sets the divisor's top bit; then a digit estimated as
    ``floor(top / d_high)`` is at most 2 too large, and two conditional steps correct it."""
    t = d.type
    shift = b.call(_ctlz(b.module, t), [d, ll.Constant(ll.IntType(1), 0)])
    d, r = b.shl(d, shift), b.shl(r, shift)
    half, base = ll.Constant(t, 32), ll.Constant(t, 1 << 32)
    d_high, d_low = b.lshr(d, half), b.and_(d, ll.Constant(t, 0xFFFFFFFF))
    digits = []
    for _ in range(2):
        q = b.udiv(r, d_high)
        rest = b.sub(r, b.mul(q, d_high))  # below d_high < 2**32
        for _ in range(2):
            # rest >= 2**32 means the estimate is right (Knuth's test would overflow there)
            low_rest = b.icmp_unsigned("<", rest, base)
            too_large = b.or_(b.icmp_unsigned(">=", q, base),
                              b.icmp_unsigned(">", b.mul(q, d_low), b.shl(rest, half)))
            step = b.zext(b.and_(low_rest, too_large), t)
            q = b.sub(q, step)
            rest = b.add(rest, b.mul(step, d_high))
        digits.append(q)
        r = b.sub(b.shl(r, half), b.mul(q, d))  # the partial remainder, below d
    return digits[0], digits[1]


def _ctlz(module: ll.Module, t: ll.IntType) -> ll.Function:
    """``llvm.ctlz.iN(x, is_zero_poison)`` (llvmlite's declare_intrinsic drops the flag)."""
    name = f"llvm.ctlz.i{t.width}"
    return module.globals.get(name) or ll.Function(module, ll.FunctionType(t, [t, ll.IntType(1)]), name)
