"""Float division by a divisor the vectorized loop does not change, without a division per element.

A vector division is the slowest float instruction there is: on Zen 4 one ``vdivpd`` of 8 lanes
issues every ~9 cycles (1.15 cycles an element, measured), where a multiply issues every cycle.
Softmax's ``e / s``, layernorm's ``centred / sqrt(var + eps)``, ``x / x.sum(1, keepdims=True)``
and ``x / 3.7`` divide every element by one value per row (or per call). Per element this
module computes the IEEE quotient from the divisor's reciprocal instead, bit for bit:

    y  = RN(1 / d)            once per row (LLVM hoists it: it depends on nothing the loop changes)
    q0 = RN(x * y)            within ~1.5 ulp of x / d
    r  = x - d * q0           exact (one fma), see below
    q  = RN(q0 + r * y)       one fma: RN(x / d)

Markstein's theorem (IA-64's division; Cornea, Harrison and Tang, "Scientific Computing on
Itanium-based Systems", 2002): with y the correctly rounded reciprocal and r exact, q0 + r * y
differs from x / d by at most |r| |y - 1/d| < 2**-(p+1) ulp(x / d) where q0 is faithful, which
is never enough to cross a rounding boundary: a quotient of two p-bit numbers lies at least
2**-(p+1) ulp from a midpoint (x - d M is a nonzero multiple of the product's last place) and
q0 is faithful wherever x / d is near one. Where q0 is not faithful (1-1.5 ulp off), x / d is
near a float, half an ulp from any midpoint. ``tests/codegen/test_divide_invariant.py`` checks
every float32 significand against NumPy's division for divisors of every significand shape,
and 10**7 float64 pairs.

The theorem needs no underflow or overflow anywhere: y normal (|d| in [2**-(emax - 3),
2**(emax - 3)]); x / d normal and finite with a margin (|x| between ``lo = max(|d| 2**(emin + 2),
2**(emin + p + 1))`` and ``hi = |d| 2**(emax - 2)``), so that q0 is normal and the residual's
last place, 2**(e_d + e_q - 2(p - 1)), is not below the subnormals' (e_d + e_q >= emin + p - 1).
Zeros are right too, with q0's sign (r = 0 and q = +0 where q0 = -0: ``q | sign(q0)``). Every
other lane -- x subnormal or tiny, the quotient near underflow or overflow, x infinite or NaN, a
divisor outside its window (then ``lo`` is inf, ``hi`` 0 and no zero counts) -- makes the whole
vector take IEEE division: one branch per vector, never taken on ordinary data.

Only the AVX-512 variants (``mathlib.ISA_FUNCTIONS``) branch per vector; the scalar twin (the
loop's remainder, and kernels LLVM does not vectorize) divides, which is the same bits.
"""

from __future__ import annotations

import sys

from llvmlite import ir

# (emin, p): the smallest normal exponent and the significand's bits
_FORMAT = {"f32": (-126, 24), "f64": (-1022, 53)}
_MAX = {"f32": float.fromhex("0x1.fffffep127"), "f64": sys.float_info.max}


def window(kind: str) -> tuple[float, float, float, float, float]:
    """(smallest |d|, largest |d|, lo's scale, lo's floor, hi's scale) for ``kind``."""
    emin, p = _FORMAT[kind]
    emax = -emin + 1
    return 2.0 ** -(emax - 3), 2.0 ** (emax - 3), 2.0 ** (emin + 2), 2.0 ** (emin + p + 1), 2.0 ** (emax - 2)


def row_values(b: ir.IRBuilder, d: ir.Value) -> list[ir.Value]:
    """(y, lo, hi, zero) for divisor ``d`` (scalar): its reciprocal, the window |x| must lie in,
    and the value |x| <= zero accepts (0, or -1 where d is outside its window). Computed from
    ``d`` alone, so LLVM hoists them out of a loop in which ``d`` does not change."""
    ty = d.type
    kind = "f64" if isinstance(ty, ir.DoubleType) else "f32"
    d_min, d_max, lo_scale, lo_floor, hi_scale = window(kind)

    def c(v: float) -> ir.Constant:
        return ir.Constant(ty, v)

    fabs = _intrinsic(b, "llvm.fabs", ty, 1)
    minnum = _intrinsic(b, "llvm.minnum", ty, 2)
    maxnum = _intrinsic(b, "llvm.maxnum", ty, 2)
    a = b.call(fabs, [d])
    good = b.and_(b.fcmp_ordered(">=", a, c(d_min)), b.fcmp_ordered("<=", a, c(d_max)))
    lo = b.call(maxnum, [b.fmul(a, c(lo_scale)), c(lo_floor)])
    hi = b.call(minnum, [b.fmul(a, c(hi_scale)), c(_MAX[kind])])
    return [b.fdiv(c(1.0), d), b.select(good, lo, c(float("inf"))), b.select(good, hi, c(0.0)),
            b.select(good, c(0.0), c(-1.0))]


def quotient(m, x, d, y, lo, hi, zero):
    """x / d, bit for bit, for ``row_values``' y, lo, hi and zero (``m`` a mathlib ``_Math``):
    Markstein's correction where every lane allows it, IEEE division for the whole vector
    where one does not; a scalar (the remainder) divides."""
    b = m.b
    if m.lanes is None:
        return m.div(x, d)
    t = m.abs(x)
    ok = b.or_(b.and_(m.ge(t, lo), m.le(t, hi)), m.le(t, zero))  # ordered: NaN is not ok

    def fast():  # Markstein's correction; a zero quotient keeps q0's sign
        q0 = m.mul(x, y)
        r = m.fma(m.neg(q0), d, x)
        q1 = m.fma(r, y, q0)
        sign = m.i(-1 << (m.width - 1))
        return m.from_bits(b.or_(m.bits(q1), b.and_(m.bits(q0), sign)))

    return m.unless_any(b.not_(ok), fast, lambda: m.div(x, d), ("div_fast", "div_ieee", "div_done"))


def _intrinsic(b: ir.IRBuilder, name: str, ty: ir.Type, arity: int) -> ir.Function:
    full = f"{name}.{'f64' if isinstance(ty, ir.DoubleType) else 'f32'}"
    module = b.module
    return module.globals.get(full) or ir.Function(module, ir.FunctionType(ty, [ty] * arity), full)
