"""LLVM code for the scalar ``arith`` and ``math`` ops of kernel bodies.

Every op has a defined result for every input: integer division and remainder by zero give 0,
``INT_MIN // -1`` wraps, shifts stay in range, and float→int conversion follows x86's
truncating conversion (NaN and out-of-range values give the type's minimum), which is what
NumPy produces on x86-64. No op here can hit LLVM undefined behaviour or poison.
"""

from __future__ import annotations

import math
import platform

from llvmlite import ir as ll

from jitcore.codegen import exact_fmod, intdiv, mathlib
from jitcore.codegen.llvm_types import constant, value_type
from jitcore.ir.core import Operation, OpResult
from jitcore.ir.types import ScalarType

FLOAT_PREDICATES = {
    "oeq": ("==", True), "one": ("!=", True), "olt": ("<", True), "ole": ("<=", True),
    "ogt": (">", True), "oge": (">=", True), "ueq": ("==", False), "une": ("!=", False),
    "ult": ("<", False), "ule": ("<=", False), "ugt": (">", False), "uge": (">=", False),
    "ord": ("ord", True), "uno": ("uno", False),
}
INT_PREDICATES = {
    "eq": ("==", True), "ne": ("!=", True), "slt": ("<", True), "sle": ("<=", True),
    "sgt": (">", True), "sge": (">=", True), "ult": ("<", False), "ule": ("<=", False),
    "ugt": (">", False), "uge": (">=", False),
}
SIMPLE = {
    "arith.addf": "fadd", "arith.subf": "fsub", "arith.mulf": "fmul", "arith.divf": "fdiv",
    "arith.remf": "frem", "arith.addi": "add", "arith.subi": "sub", "arith.muli": "mul",
    "arith.andi": "and_", "arith.ori": "or_", "arith.xori": "xor",
}
MINMAX_INT = {"arith.maxsi": ">", "arith.minsi": "<", "arith.maxui": ">", "arith.minui": "<"}
INTRINSIC_UNARY = {"math.floor": "llvm.floor", "math.ceil": "llvm.ceil", "math.sqrt": "llvm.sqrt",
                   "math.absf": "llvm.fabs", "math.trunc": "llvm.trunc", "math.rint": "llvm.rint"}
SIMPLE_CASTS = {"arith.extf": "fpext", "arith.truncf": "fptrunc", "arith.sitofp": "sitofp",
                "arith.uitofp": "uitofp", "arith.extsi": "sext", "arith.extui": "zext",
                "arith.trunci": "trunc"}
SHIFTS = {"arith.shli": "shl", "arith.shrsi": "ashr", "arith.shrui": "lshr"}


class Precision:
    """How floating point is computed in one copy of a kernel body.

    By default transcendentals come from jitcore's vectorizable math library; where an argument
    lies outside the range in which it is accurate (sin/cos/tan beyond
    ``mathlib.TRIG_ARGUMENT_LIMIT``), ``report`` gets an i1 that is true for that element, and the
    kernel is then recomputed in ``exact`` mode, which calls the C library (correct for every
    argument, but scalar).

    ``fastmath`` (``jit(f, fastmath=True)``) marks float arithmetic ``reassoc contract``: LLVM may
    reorder sums (so float reductions vectorize) and fuse multiply-adds. NaN, inf and signed zeros
    keep their IEEE meaning; results may differ from NumPy's in the last bits, by about
    n * eps * sum(|x|) for a reduction over n elements. For float32 (and float16) it also uses
    the math library's cheaper approximations (``mathlib.FAST_UNARY``; their error bounds are
    tabled in mathlib's docstring: exp <= 5, log <= 7, tanh <= 7, sin/cos <= 1 ULP). For
    float64 they were measured no faster, so the accurate versions stay.
    """

    def __init__(self, exact: bool = False, report=None, fastmath: bool = False,
                 isa: frozenset[str] = frozenset(), nvptx: bool = False):
        self.exact = exact
        # LLVM's NVPTX back end: its frem is inexact (exact_fmod instead) and it drops the
        # range guard of a 64-bit shift whose count it truncates to 32 bits (_shift clamps)
        self.nvptx = nvptx
        # the target's instruction sets for the math library (mathlib.emit_unary) and intdiv
        self.isa = isa
        self.report = report
        self.fastmath = fastmath
        self.flags = ("reassoc", "contract") if fastmath else ()


FAST = Precision()
EXACT_FALLBACK = frozenset({"sin", "cos", "tan"})


def needs_exact_fallback(op: Operation) -> bool:
    return op.op_name.startswith("math.") and op.op_name[5:] in EXACT_FALLBACK


def emit(b: ll.IRBuilder, op: Operation, args: list[ll.Value], precision: Precision = FAST) -> ll.Value:
    """The LLVM value computing ``op`` on ``args``."""
    name = op.op_name
    result: ScalarType = op.results[0].type
    if name == "arith.constant":
        return constant(result, op.attributes["value"].value)
    if name == "complex.create":
        pair = b.insert_value(ll.Constant(value_type(result), ll.Undefined), args[0], 0)
        return b.insert_value(pair, args[1], 1)
    if name in ("complex.re", "complex.im"):
        return b.extract_value(args[0], 0 if name == "complex.re" else 1)
    if name == "arith.remf" and precision.nvptx:
        return exact_fmod.emit(b, *args)
    if name in SIMPLE:
        out = getattr(b, SIMPLE[name])(*args)
        if precision.flags and name.endswith("f"):
            out.flags.extend(precision.flags)
        elif op.attributes.get("fastmath") == "reassoc":  # a sum the algorithm lets LLVM reorder
            out.flags.append("reassoc")
        return out
    if name == "arith.negf":
        return b.fneg(args[0])
    if name in ("arith.maximumf", "arith.minimumf"):
        # NumPy: NaN in either operand wins; otherwise the larger (smaller) one. On a tie of
        # 0.0 and -0.0 NumPy's float32/64 loops return the second operand, its float16 loop
        # the first, so the comparison is strict except for half.
        x, y = args
        strict = not isinstance(x.type, ll.HalfType)
        better = b.fcmp_ordered((">" if name == "arith.maximumf" else "<") + ("" if strict else "="), x, y)
        return b.select(b.or_(better, b.fcmp_unordered("uno", x, x)), x, y)
    if name in MINMAX_INT:
        cmp = b.icmp_signed if name.endswith("si") else b.icmp_unsigned
        return b.select(cmp(MINMAX_INT[name], args[0], args[1]), args[0], args[1])
    if name == "arith.cmpf":
        pred, ordered = FLOAT_PREDICATES[op.attributes["predicate"]]
        return (b.fcmp_ordered if ordered else b.fcmp_unordered)(pred, *args)
    if name == "arith.cmpi":
        pred, signed = INT_PREDICATES[op.attributes["predicate"]]
        return (b.icmp_signed if signed else b.icmp_unsigned)(pred, *args)
    if name == "arith.select":
        return b.select(*args)
    if name in intdiv.DIVISIONS and intdiv.float_pays(op):
        return intdiv.by_float(b, name, *args)
    if name in intdiv.DIVISIONS and intdiv.reciprocal_pays(op, precision.isa):
        return intdiv.by_reciprocal(b, name, *args)
    if name in ("arith.floordivsi", "arith.floormodsi"):
        return _floor_divmod(b, *args, want_mod=name.endswith("modsi"))
    if name in ("arith.divui", "arith.remui"):
        x, y = args
        zero = ll.Constant(y.type, 0)
        is_zero = b.icmp_unsigned("==", y, zero)
        safe = b.select(is_zero, ll.Constant(y.type, 1), y)
        out = b.udiv(x, safe) if name == "arith.divui" else b.urem(x, safe)
        return b.select(is_zero, zero, out)
    if name in SHIFTS:
        return _shift(b, SHIFTS[name], *args, clamp=precision.nvptx)
    if name in INTRINSIC_UNARY:
        return _intrinsic(b, INTRINSIC_UNARY[name], args)
    if name == "math.copysign":
        return _intrinsic(b, "llvm.copysign", args)
    if name == "math.fma":
        return _intrinsic(b, "llvm.fma", args)
    if name == "math.absi":
        x = args[0]
        return b.select(b.icmp_signed("<", x, ll.Constant(x.type, 0)), b.neg(x), x)
    if name == "math.ipowi":
        return _ipow(b, *args, signed=not op.operands[0].type.is_unsigned)
    if name == "math.ctpop":
        return _intrinsic(b, "llvm.ctpop", args)
    if name == "math.gcdui":
        return _gcd_unsigned(b, *args)
    if name == "math.powf" and op.attributes.get("libm") and not precision.nvptx:
        return _libm_pow(b, args, _constant_exponent(op))
    if name == "math.powf" and _constant_exponent(op) == 3.0 and not isinstance(args[0].type, ll.HalfType):
        return _cube(b, args[0])
    if name.startswith("math."):
        return _math(b, name[5:], args, precision)
    return _cast(b, name, op.operands[0].type, result, args[0])


def _constant_exponent(op: Operation) -> float | None:
    exponent = op.operands[1]
    if isinstance(exponent, OpResult) and exponent.op.op_name == "arith.constant":
        return exponent.op.attributes["value"].value
    return None


def _cube(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """``pow(x, 3)`` rounded once, as a correctly rounded pow is (``x * x * x`` rounds twice:
    canonicalize leaves ``c = 3`` to pow for that), and vectorizable where the math library's
    pow costs a double-double log and exp. float64: ``x * x = hi + lo`` exactly (an FMA), so
    ``x**3 = hi * x + lo * x``, of which only ``lo * x`` (2**-53 of the result) is rounded before
    the one rounding of the FMA that adds them. Where ``hi * x`` is not finite (the cube
    overflows; x is inf or NaN) ``lo`` or ``lo * x`` may be inf or NaN of either sign, and
    ``hi * x`` is the answer (inf with x's sign, or NaN); only an exact cube within an ULP of
    the largest float may then give inf where the largest float is nearer. A tiny ``x`` (below
    2**-300, where ``lo * x`` would lose bits to underflow) is cubed scaled by 2**400 and the
    cube scaled back by 2**-1200, exactly unless the cube is subnormal (then it rounds twice:
    within a subnormal ULP).
    float32: in float64, where ``x * x`` is exact and ``x * x * x`` rounds once, then to
    float32: within 0.5 ULP + 2**-29, as the math library's float32 pow."""
    if isinstance(x.type, ll.FloatType):
        wide = b.fpext(x, ll.DoubleType())
        return b.fptrunc(b.fmul(b.fmul(wide, wide), wide), x.type)
    tiny = b.fcmp_ordered("<", _intrinsic(b, "llvm.fabs", [x]), ll.Constant(x.type, 2.0 ** -300))
    x = b.select(tiny, b.fmul(x, ll.Constant(x.type, 2.0 ** 400)), x)
    hi = b.fmul(x, x)
    lo = _intrinsic(b, "llvm.fma", [x, x, b.fneg(hi)])
    rounded_once = _intrinsic(b, "llvm.fma", [hi, x, b.fmul(lo, x)])
    rounded_twice = b.fmul(hi, x)
    inf = ll.Constant(hi.type, float("inf"))
    finite = b.fcmp_ordered("<", _intrinsic(b, "llvm.fabs", [rounded_twice]), inf)
    cube = b.select(finite, rounded_once, rounded_twice)
    back = ll.Constant(x.type, 2.0 ** -600)
    return b.select(tiny, b.fmul(b.fmul(cube, back), back), cube)


def _intrinsic(b: ll.IRBuilder, name: str, args: list[ll.Value]) -> ll.Value:
    t = args[0].type
    fn = b.module.declare_intrinsic(name, [t], ll.FunctionType(t, [t] * len(args)))
    return b.call(fn, args)


def _math(b: ll.IRBuilder, name: str, args: list[ll.Value], precision: Precision) -> ll.Value:
    """Transcendentals from jitcore's math library; half precision computes in float."""
    half = isinstance(args[0].type, ll.HalfType)
    if half:
        args = [b.fpext(a, ll.FloatType()) for a in args]
    lib_name = {"powf": "pow"}.get(name, name)
    if name in EXACT_FALLBACK and precision.exact:
        out = _libm_call(b, lib_name, args)
    elif len(args) == 1:
        fast = precision.fastmath and isinstance(args[0].type, ll.FloatType)
        out = mathlib.emit_unary(b, lib_name, args[0], fast=fast, isa=precision.isa)
        if name in EXACT_FALLBACK and precision.report is not None:
            x = _intrinsic(b, "llvm.fabs", args)
            limit, inf = (ll.Constant(x.type, v) for v in (mathlib.trig_argument_limit(x.type), float("inf")))
            precision.report(b.and_(b.fcmp_ordered(">", x, limit), b.fcmp_ordered("<", x, inf)))
    else:
        out = mathlib.emit_binary(b, lib_name, *args, isa=precision.isa)
    if not half:
        return out
    return _float_to_half(b, out)


def _libm_call(b: ll.IRBuilder, name: str, args: list[ll.Value]) -> ll.Value:
    """A call of the C library's ``name`` (``sinf`` for float): the rarely taken exact path."""
    t = args[0].type
    symbol = name + ("f" if isinstance(t, ll.FloatType) else "")
    fn = b.module.globals.get(symbol)
    if fn is None:
        fn = ll.Function(b.module, ll.FunctionType(t, [t] * len(args)), symbol)
    return b.call(fn, args)


def _libm_pow(b: ll.IRBuilder, args: list[ll.Value], exponent: float | None) -> ll.Value:
    """The C library's ``pow`` (``powf`` for float32; half powers in float, as NumPy's half
    scalars): NumPy's and Python's scalar power, bit for bit. ``nobuiltin``, so LLVM does not
    rewrite pow(x, 2.0) as x * x, which is what the call is there not to be (llvmlite takes the
    attribute on the declaration, and LLVM reads a callee's as the call's)."""
    half = isinstance(args[0].type, ll.HalfType)
    if half:
        args = [b.fpext(a, ll.FloatType()) for a in args]
    t = args[0].type
    symbol = "powf" if isinstance(t, ll.FloatType) else "pow"
    fn = b.module.globals.get(symbol)
    if fn is None:
        fn = ll.Function(b.module, ll.FunctionType(t, [t, t]), symbol)
        for name in ("nobuiltin", "readnone", "nounwind"):  # errno aside, pow has no effects:
            fn.attributes.add(name)  # LLVM may hoist it out of a loop (x * x[0] ** 2)
    if exponent == 2.0 and GLIBC_POW:
        square = _glibc_square if isinstance(t, ll.DoubleType) else _glibc_square_f32
        out = square(b, fn, args[0])
    else:
        out = b.call(fn, args)
    return _float_to_half(b, out) if half else out


# glibc's pow (2.28 on, sysdeps/ieee754/dbl-64/e_pow.c) documents its error as
# ulperr_exp + |y log x| * relerr_log * 2**53 ULP: exp's (ulperr_exp <= 0.511 ULP without FMA,
# 0.509 with, 0.5 of it the final rounding) plus log's relative error (relerr_log <= 1.5 * 2**-68
# without FMA, 1.3 * 2**-68 with) carried through exp. Before its final rounding pow's value is
# thus within E(k) = 0.011 + (|k| + 1) * ln2 * 1.5 * 2**-15 ULP of the exact square, k the
# square's binary exponent (|log(x**2)| <= (|k| + 1) ln 2): where |lo| <= 0.5 - E(k) ULP it
# rounds to hi. The worst of the two builds' bounds, since glibc picks its FMA build at run time.
GLIBC_POW = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
_EXP_BEFORE_ROUNDING = 0.011  # ULP: exp's bound less its final rounding's 0.5
_LOG_PER_BINADE = math.log(2) * 1.5 * 2.0 ** -68 * 2.0 ** 53  # ULP per ln 2 of |y log x|
# The edge 0.5 - E(k) ULP of hi as a float's bits, integer arithmetic only: it lies in [0.25,
# 0.5) ULP, where bits(0.25 * (1 + f)) = bits(0.25) + f * 2**52 is linear in the edge, and
# scaling by hi's binade 2**k adds k << 52 (hi's exponent bits, less the bias and 52 for the
# ULP). Rounded inwards by 16 units of 2**-52 (a hair narrower than the bound).
_EDGE_BITS = (0x3FD0000000000000 - ((1023 + 52) << 52)
              + math.floor((4 * (0.5 - _EXP_BEFORE_ROUNDING - _LOG_PER_BINADE) - 1) * 2.0 ** 52) - 16)
_EDGE_BITS_PER_BINADE = math.ceil(4 * _LOG_PER_BINADE * 2.0 ** 52) + 16


def _glibc_square(b: ll.IRBuilder, pow_fn, x: ll.Value) -> ll.Value:
    """glibc's ``pow(x, 2.0)`` without the call where its bits are known: ``x * x = hi + lo``
    exactly (an FMA); where ``|lo|`` is at most ``0.5 - E(k)`` ULP of ``hi`` (above; normal,
    inside a binade, far from over- and underflow) pow's value before rounding is nearer ``hi``
    than any other float, so pow returns ``hi``. That is 97.8% of the squares of values in
    [0, 10) and 94.7% over random exponents (session 48's 0.4-ULP band: 80%); the call (~45 ns
    against 1 for the product) sits in a cold block behind ``llvm.expect``, so the common path
    stays straight-line. Measured: 5e8 random squares, every one outside the band pow's."""
    i64 = ll.IntType(64)
    hi = b.fmul(x, x)
    lo = _intrinsic(b, "llvm.fma", [x, x, b.fneg(hi)])
    bits = b.bitcast(hi, i64)
    top = b.and_(bits, ll.Constant(i64, 0x7FF0000000000000))
    k = b.sub(b.lshr(top, ll.Constant(i64, 52)), ll.Constant(i64, 1023))
    k_abs = b.select(b.icmp_signed("<", k, ll.Constant(i64, 0)), b.neg(k), k)
    per_binade = b.mul(k_abs, ll.Constant(i64, _EDGE_BITS_PER_BINADE))
    edge = b.sub(b.add(top, ll.Constant(i64, _EDGE_BITS)), per_binade)
    lo_bits = b.and_(b.bitcast(lo, i64), ll.Constant(i64, (1 << 63) - 1))
    near = b.icmp_unsigned("<=", lo_bits, edge)  # |lo| <= the edge's float, as positive floats' bits
    inside = b.icmp_unsigned("!=", b.and_(bits, ll.Constant(i64, (1 << 52) - 1)), ll.Constant(i64, 0))
    normal = b.and_(b.icmp_unsigned(">=", top, ll.Constant(i64, (1023 - 900) << 52)),
                    b.icmp_unsigned("<=", top, ll.Constant(i64, (1023 + 1000) << 52)))
    return _known_or_call(b, b.and_(near, b.and_(inside, normal)), hi, pow_fn, x)


# glibc's powf (2.27 on, sysdeps/ieee754/flt-32/e_powf.c) computes in double and rounds once:
# relerr_exp2 <= 1.69 * 2**-34 (exp2's relative error) plus relerr_log2 <= 1.83 * 2**-33 (log2's)
# times |y log2 x| times ln 2, so before rounding powf(x, 2) is within E(k) = 1.69 * 2**-10 +
# (|k| + 1) * ln2 * 1.83 * 2**-9 float ULP of the exact square (0.0042 ULP near 1, 0.30 at k =
# 120; the documented 0.82-ULP bound is the worst of these plus 0.5).
_POWF_EXP2_ULPS = 1.69 * 2.0 ** -34 * 2.0 ** 24
_POWF_LOG2_PER_BINADE = math.log(2) * 1.83 * 2.0 ** -33 * 2.0 ** 24
_POWF_LARGEST_K = 120  # squares from 2**-120 to 2**121: powf's exp2 takes no special case there


def _glibc_square_f32(b: ll.IRBuilder, powf_fn, x: ll.Value) -> ll.Value:
    """glibc's ``powf(x, 2.0f)`` without the call where its bits are known, as ``_glibc_square``:
    a float's square is exact in double (48 bits), so ``hi`` is its rounding to float and ``lo``
    the rest, both exact; ``|lo| <= 0.5 - E(k)`` float ULP (above) gives ``hi``. Every positive
    float with ``|k| <= 120`` checked against powf (1.0e9): none differs inside the band, which
    holds 69% of them (97% of those whose squares lie within 2**+-8 of 1)."""
    i32, i64, f64 = ll.IntType(32), ll.IntType(64), ll.DoubleType()
    wide = b.fpext(x, f64)
    exact = b.fmul(wide, wide)
    hi = b.fptrunc(exact, x.type)
    lo = b.fsub(exact, b.fpext(hi, f64))
    bits = b.bitcast(hi, i32)
    k = b.sub(b.lshr(b.and_(bits, ll.Constant(i32, 0x7F800000)), ll.Constant(i32, 23)), ll.Constant(i32, 127))
    k_abs = b.select(b.icmp_signed("<", k, ll.Constant(i32, 0)), b.neg(k), k)
    edge = b.fsub(ll.Constant(f64, 0.5 - _POWF_EXP2_ULPS - _POWF_LOG2_PER_BINADE),
                  b.fmul(b.sitofp(k_abs, f64), ll.Constant(f64, _POWF_LOG2_PER_BINADE)))
    ulp_bits = b.shl(b.zext(b.add(k, ll.Constant(i32, 1023 - 23)), i64), ll.Constant(i64, 52))
    near = b.fcmp_ordered("<=", _intrinsic(b, "llvm.fabs", [lo]), b.fmul(edge, b.bitcast(ulp_bits, f64)))
    inside = b.icmp_unsigned("!=", b.and_(bits, ll.Constant(i32, (1 << 23) - 1)), ll.Constant(i32, 0))
    normal = b.icmp_unsigned("<=", k_abs, ll.Constant(i32, _POWF_LARGEST_K))
    return _known_or_call(b, b.and_(near, b.and_(inside, normal)), hi, powf_fn, x)


def _known_or_call(b: ll.IRBuilder, known: ll.Value, hi: ll.Value, pow_fn, x: ll.Value) -> ll.Value:
    """``hi`` where ``known``, else pow's call, in a cold block of its own: the common path
    stays straight-line (``llvm.expect``), the call out of its way."""
    known = _intrinsic(b, "llvm.expect", [known, ll.Constant(known.type, 1)])
    pre, fn = b.block, b.function
    slow, done = fn.append_basic_block("square.pow"), fn.append_basic_block("square.done")
    b.cbranch(known, done, slow)
    b.position_at_end(slow)
    called = b.call(pow_fn, [x, ll.Constant(x.type, 2.0)])
    b.branch(done)
    b.position_at_end(done)
    out = b.phi(hi.type)
    out.add_incoming(hi, pre)
    out.add_incoming(called, slow)
    return out


def _gcd_unsigned(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    """Euclid's algorithm on unsigned bits, as NumPy's npy_gcdu: a loop in the element's code,
    since the number of steps depends on the data. The builder ends in the loop's exit block."""
    pre, fn = b.block, b.function
    head, step, done = (fn.append_basic_block(n) for n in ("gcd", "gcd.step", "gcd.done"))
    b.branch(head)
    b.position_at_end(head)
    a, c = b.phi(x.type), b.phi(x.type)
    a.add_incoming(x, pre)
    c.add_incoming(y, pre)
    b.cbranch(b.icmp_unsigned("!=", c, ll.Constant(x.type, 0)), step, done)
    b.position_at_end(step)
    a.add_incoming(c, step)
    c.add_incoming(b.urem(a, c), step)
    b.branch(head)
    b.position_at_end(done)
    return a


def _shift(b: ll.IRBuilder, kind: str, x: ll.Value, n: ll.Value, clamp: bool = False) -> ll.Value:
    """A shift with NumPy's result for counts outside [0, width): LLVM's would be poison.
    ``clamp``: the count as ``umin(n, width - 1)``, which no back end can fold into the guard
    (NVPTX folds ``select(n < 64, x << n, 0)`` into PTX's clamping shift, but after cutting
    the count to 32 bits: ``x << (2**32 + 1)`` came out as ``x << 1`` on an H200)."""
    t = x.type
    in_range = b.icmp_unsigned("<", n, ll.Constant(t, t.width))
    if clamp:
        last = ll.Constant(t, t.width - 1)
        count = b.select(b.icmp_unsigned("<", n, last), n, last)
    else:
        count = b.select(in_range, n, ll.Constant(t, 0))
    shifted = getattr(b, kind)(x, count)
    zero = ll.Constant(t, 0)
    if kind == "ashr":
        beyond = b.select(b.icmp_signed("<", x, zero), ll.Constant(t, -1), zero)
    else:
        beyond = zero
    return b.select(in_range, shifted, beyond)


def _floor_divmod(b: ll.IRBuilder, x: ll.Value, y: ll.Value, want_mod: bool) -> ll.Value:
    """Python's ``//`` or ``%`` on signed ints; 0 for a zero divisor, wrapping for MIN // -1."""
    t = x.type
    zero, one, minus_one = (ll.Constant(t, v) for v in (0, 1, -1))
    y_zero = b.icmp_signed("==", y, zero)
    y_minus_one = b.icmp_signed("==", y, minus_one)
    safe = b.select(b.or_(y_zero, y_minus_one), one, y)
    q = b.sdiv(x, safe)
    r = b.srem(x, safe)
    # Round toward -inf: when the remainder is non-zero and its sign differs from the divisor's.
    adjust = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, y), zero))
    if want_mod:
        out = b.select(adjust, b.add(r, y), r)
        return b.select(b.or_(y_zero, y_minus_one), zero, out)
    out = b.select(adjust, b.sub(q, one), q)
    out = b.select(y_minus_one, b.sub(zero, x), out)
    return b.select(y_zero, zero, out)


def _ipow(b: ll.IRBuilder, x: ll.Value, e: ll.Value, signed: bool) -> ll.Value:
    """``x ** e`` by square-and-multiply over every exponent bit: straight-line, wrapping.

    NumPy raises for a negative integer exponent; jitcore defines it as ``1 / x**-e``
    truncated toward zero: 1 for x == 1, ±1 for x == -1, else 0.
    """
    t = x.type
    one, zero = ll.Constant(t, 1), ll.Constant(t, 0)
    result, base, bits = one, x, e
    for _ in range(t.width):
        odd = b.trunc(bits, ll.IntType(1))
        result = b.select(odd, b.mul(result, base), result)
        base = b.mul(base, base)
        bits = b.lshr(bits, one)
    if not signed:
        return result
    negative = b.icmp_signed("<", e, zero)
    x_is_one = b.icmp_signed("==", x, one)
    x_is_minus_one = b.icmp_signed("==", x, ll.Constant(t, -1))
    odd_e = b.trunc(e, ll.IntType(1))
    minus = b.select(odd_e, ll.Constant(t, -1), one)
    small = b.select(x_is_one, one, b.select(x_is_minus_one, minus, zero))
    return b.select(negative, small, result)


def _cast(b: ll.IRBuilder, name: str, src: ScalarType, dst: ScalarType, x: ll.Value) -> ll.Value:
    if name == "arith.truncf" and src.bitwidth == 64 and dst.bitwidth == 16:
        return _double_to_half(b, x)
    if name in SIMPLE_CASTS:
        return getattr(b, SIMPLE_CASTS[name])(x, value_type(dst))
    if name == "arith.bitcast":
        if src.is_float != dst.is_float:  # a float's bits as an integer, or back
            return b.bitcast(x, value_type(dst))
        return x  # i32 and ui32 are the same LLVM type
    if name in ("arith.fptosi", "arith.fptoui"):
        return _float_to_int(b, x, dst)
    raise NotImplementedError(f"codegen has no lowering for {name}")


def _double_to_half(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """f64 → f16, correctly rounded without the ``__truncdfhf2`` runtime call: round to float
    with round-to-odd (which cannot cause a second rounding error), then float → half."""
    f32, i32 = ll.FloatType(), ll.IntType(32)
    rounded = b.fptrunc(x, f32)
    back = b.fpext(rounded, x.type)
    bits = b.bitcast(rounded, i32)
    away = b.fcmp_ordered(">", _intrinsic(b, "llvm.fabs", [back]), _intrinsic(b, "llvm.fabs", [x]))
    bits = b.select(away, b.sub(bits, ll.Constant(i32, 1)), bits)
    bits = b.select(b.fcmp_ordered("!=", back, x), b.or_(bits, ll.Constant(i32, 1)), bits)
    return _float_to_half(b, b.bitcast(bits, f32))


def _float_to_half(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """float -> half, rounded to nearest even, in integer operations.

    Not an ``fptrunc``: LLVM's code generator merges ``fptrunc`` chains from double into a
    double -> half conversion, which x86 does with a runtime call (``__truncdfhf2``) that MCJIT
    cannot resolve.
    """
    i32 = ll.IntType(32)

    def c(v):
        return ll.Constant(i32, v)

    u = b.bitcast(x, i32)
    sign = b.and_(b.lshr(u, c(16)), c(0x8000))
    a = b.and_(u, c(0x7FFFFFFF))
    is_nan = b.icmp_unsigned(">", a, c(0x7F800000))
    is_inf = b.icmp_unsigned(">=", a, c(0x477FF000))  # 65520 and up round to infinity
    is_normal = b.icmp_unsigned(">=", a, c(0x38800000))  # 2**-14, the smallest normal half
    rounded = b.add(b.add(a, c(0xFFF)), b.and_(b.lshr(a, c(13)), c(1)))
    normal = b.lshr(b.sub(rounded, c(0x38000000)), c(13))
    # Subnormal halves: |x| * 2**24, rounded to even, is the bit pattern (exact scaling).
    small = b.select(is_normal, ll.Constant(x.type, 0.0), _intrinsic(b, "llvm.fabs", [x]))
    scaled = _intrinsic(b, "llvm.rint", [b.fmul(small, ll.Constant(x.type, 16777216.0))])
    subnormal = b.fptosi(scaled, i32)
    nan = b.or_(c(0x7E00), b.and_(b.lshr(a, c(13)), c(0x3FF)))
    h = b.select(is_nan, nan, b.select(is_inf, c(0x7C00), b.select(is_normal, normal, subnormal)))
    return b.bitcast(b.trunc(b.or_(sign, h), ll.IntType(16)), ll.HalfType())


def _truncate_to(b: ll.IRBuilder, x: ll.Value, width: int) -> ll.Value:
    """x86 ``cvtt``: truncate toward zero; NaN and out-of-range give INT_MIN of ``width``."""
    limit = float(2 ** (width - 1))
    fits = b.and_(b.fcmp_ordered(">", x, ll.Constant(x.type, -limit - 1.0)),
                  b.fcmp_ordered("<", x, ll.Constant(x.type, limit)))
    safe = b.select(fits, x, ll.Constant(x.type, 0.0))
    int_type = ll.IntType(width)
    return b.select(fits, b.fptosi(safe, int_type), ll.Constant(int_type, -(1 << (width - 1))))


def _float_to_int(b: ll.IRBuilder, x: ll.Value, dst: ScalarType) -> ll.Value:
    if isinstance(x.type, ll.HalfType):
        x = b.fpext(x, ll.FloatType())
    to = value_type(dst)
    if dst.bitwidth == 64 and dst.is_unsigned:
        # Values from 2**63 up convert after subtracting 2**63, then get the top bit back.
        big = b.fcmp_ordered(">=", x, ll.Constant(x.type, 2.0 ** 63))
        low = _truncate_to(b, x, 64)
        high = b.xor(_truncate_to(b, b.fsub(x, ll.Constant(x.type, 2.0 ** 63)), 64),
                     ll.Constant(to, 1 << 63))
        return b.select(big, high, low)
    if dst.bitwidth == 64 or (dst.bitwidth == 32 and not dst.is_unsigned):
        return _truncate_to(b, x, dst.bitwidth)
    # Narrower types and ui32 convert through a wider int and wrap, as C casts do on x86-64.
    wide = _truncate_to(b, x, 64 if dst.bitwidth == 32 else 32)
    return b.trunc(wide, to)
