"""``fmod`` exactly, in integer arithmetic, for targets whose ``frem`` is not exact.

On the CPU, LLVM lowers ``frem`` to the C library's ``fmod``, which is exact (the remainder of
two floats is always representable). LLVM's NVPTX back end lowers it as ``x - trunc(x / y) * y``,
which is wrong whenever the quotient has more bits than the mantissa (seen on an H200: a third
of random pairs off, exact multiples giving +0.0 where NumPy gives -0.0, ``fmod(inf, inf)``
giving inf). This is the exact algorithm, as one internal function per float type in the
module (LLVM inlines it where it pays):

- NaN for a NaN operand, an infinite ``x`` or a zero ``y``; ``x`` itself when ``|x| < |y|``
  (``y`` infinite included);
- otherwise both magnitudes as integer mantissas ``mx * 2**ex`` and ``my * 2**ey`` (subnormals
  with exponent field 1, no implicit bit) and ``r = mx mod my``, then ``r = (r << s) mod my``
  while the exponents differ, ``s`` at most the bits the 64-bit word has to spare above a
  mantissa (11 for float64: at most 191 steps; 39 for float32: at most 7), and ``r * 2**ey``
  rebuilt as a float with ``x``'s sign (a zero remainder is a zero of ``x``'s sign, as C's
  ``fmod`` and NumPy give).

Every step is exact, so the result is bit for bit the C library's. Half precision computes in
float32 (exact: the remainder of two halves is a half).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64

# (mantissa bits, exponent field's all-ones value, bits) per float type
_FORMATS = {"float": (23, 0xFF, 32), "double": (52, 0x7FF, 64)}


def emit(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    """``fmod(x, y)`` of two floats of one type, computed exactly."""
    if isinstance(x.type, ll.HalfType):
        f32 = ll.FloatType()
        return b.fptrunc(emit(b, b.fpext(x, f32), b.fpext(y, f32)), x.type)
    return b.call(_function(b.module, x.type), [x, y])


def _function(module: ll.Module, t: ll.Type) -> ll.Function:
    name = f"jitcore.fmod.{t}"
    if name in module.globals:
        return module.globals[name]
    fn = ll.Function(module, ll.FunctionType(t, [t, t]), name=name)
    fn.linkage = "internal"
    _define(fn, t)
    return fn


def _define(fn: ll.Function, t: ll.Type) -> None:
    mant, top, width = _FORMATS[str(t)]
    it = ll.IntType(width)
    step = 63 - (mant + 1)  # r < my < 2**(mant + 1), so r << step stays below 2**63
    x, y = fn.args
    entry, special, small, work, loop, done = (fn.append_basic_block(n) for n in (
        "entry", "special", "small", "work", "loop", "done"))
    b = ll.IRBuilder(entry)

    def c(v, typ=it):
        return ll.Constant(typ, v)

    ix, iy = b.bitcast(x, it), b.bitcast(y, it)
    sign = b.and_(ix, c(1 << (width - 1)))
    magnitude = c((1 << (width - 1)) - 1)
    ax, ay = b.and_(ix, magnitude), b.and_(iy, magnitude)
    infinity = c(top << mant)
    bad = b.or_(b.or_(b.icmp_unsigned(">=", ax, infinity), b.icmp_unsigned(">", ay, infinity)),
                b.icmp_unsigned("==", ay, c(0)))
    b.cbranch(bad, special, small)

    b.position_at_end(special)  # NaN: a NaN operand, fmod(inf, y), fmod(x, 0)
    b.ret(ll.Constant(t, float("nan")))

    b.position_at_end(small)
    b.cbranch(b.icmp_unsigned("<", ax, ay), done, work)

    b.position_at_end(work)  # |x| >= |y|, both finite, y non-zero: mantissas in 64 bits
    mask, implicit = c((1 << mant) - 1), c(1 << mant)

    def split(a):
        field = b.lshr(a, c(mant))
        is_sub = b.icmp_unsigned("==", field, c(0))
        m = b.select(is_sub, a, b.or_(b.and_(a, mask), implicit))
        return b.zext(m, I64), b.zext(b.select(is_sub, c(1), field), I64)

    (mx, ex), (my, ey) = split(ax), split(ay)
    first, first_gap = b.urem(mx, my), b.sub(ex, ey)
    b.branch(loop)

    b.position_at_end(loop)
    r = b.phi(I64)
    gap = b.phi(I64)
    r.add_incoming(first, work)
    gap.add_incoming(first_gap, work)
    s = b.select(b.icmp_unsigned("<", gap, c(step, I64)), gap, c(step, I64))
    r_next = b.urem(b.shl(r, s), my)
    gap_next = b.sub(gap, s)
    r.add_incoming(r_next, loop)
    gap.add_incoming(gap_next, loop)
    finish = b.append_basic_block("rebuild")
    b.cbranch(b.icmp_unsigned("==", gap, c(0, I64)), finish, loop)

    b.position_at_end(finish)  # r * 2**(ey - bias - mant) with r < my: the result, exactly
    # (the loop's last r, taken where gap was 0, is the phi r itself)
    ctlz = b.module.declare_intrinsic("llvm.ctlz", [I64], ll.FunctionType(I64, [I64, ll.IntType(1)]))
    lead = b.sub(c(63, I64), b.call(ctlz, [r, ll.Constant(ll.IntType(1), 0)]))  # r's top bit
    shift = b.sub(c(mant, I64), lead)  # >= 0: r's leading bit to the implicit bit's place
    field = b.sub(ey, shift)
    normal = b.or_(b.shl(field, c(mant, I64)), b.and_(b.shl(r, shift), c((1 << mant) - 1, I64)))
    subnormal = b.shl(r, b.sub(ey, c(1, I64)))
    bits = b.select(b.icmp_signed(">=", field, c(1, I64)), normal, subnormal)
    bits = b.select(b.icmp_unsigned("==", r, c(0, I64)), c(0, I64), bits)
    value = b.bitcast(b.or_(b.trunc(bits, it) if width < 64 else bits, sign), t)
    b.branch(done)

    b.position_at_end(done)
    out = b.phi(t)
    out.add_incoming(x, small)
    out.add_incoming(value, finish)
    b.ret(out)
