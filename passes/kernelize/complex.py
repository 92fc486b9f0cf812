"""The scalar meaning of each elementwise ``array`` op on complex numbers, on their parts.

NumPy's formulas on the parts, as its loops compute them on x86-64 (products with fused
multiply-adds like its SIMD loops; Smith's division; C99 Annex G special values for exp and
sqrt, as glibc's cexp/csqrt which NumPy calls). ``ComplexEmitter`` is ``ScalarEmitter`` plus
these: every scalar op a kernel body needs, whatever its element type.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.core import Value
from jitcore.ir.types import ScalarType, f64, i1
from jitcore.passes.kernelize.complex_functions import ComplexFunctions
from jitcore.passes.kernelize.scalar import ScalarEmitter


class ComplexEmitter(ComplexFunctions, ScalarEmitter):
    """A ``ScalarEmitter`` that also lowers complex numbers (``complex.create``/``re``/``im``
    around float ops on the parts)."""

    def elementwise(self, kind: str, args: list[Value]) -> Value:
        if args[0].type.is_complex:
            return self.complex_elementwise(kind, args)
        return super().elementwise(kind, args)

    def convert(self, x: Value, dst: ScalarType) -> Value:
        """NumPy ``astype``; a complex number converts through its real part (NumPy warns
        ComplexWarning when traced)."""
        src = x.type
        if src == dst:
            return x
        if src.is_complex:
            re, im = self.parts(x)
            if dst.is_bool:
                return self.op("arith.ori", self.cmp("ne", re, self.const(0.0, re.type)),
                               self.cmp("ne", im, self.const(0.0, im.type)))
            if dst.is_complex:
                return self.make_complex(self.convert(re, dst.component), self.convert(im, dst.component))
            return self.convert(re, dst)
        if dst.is_complex:
            return self.make_complex(self.convert(x, dst.component), self.const(0.0, dst.component))
        return super().convert(x, dst)

    def combine(self, kind: str, acc: Value, x: Value) -> Value:
        if x.type.is_complex and kind in ("sum", "prod", "max", "min"):
            return self.complex_elementwise({"sum": "add", "prod": "mul"}.get(kind, kind), [acc, x])
        return super().combine(kind, acc, x)

    def parts(self, z: Value) -> tuple[Value, Value]:
        part = z.type.component
        return self.op("complex.re", z, result=part), self.op("complex.im", z, result=part)

    def make_complex(self, re: Value, im: Value) -> Value:
        return self.op("complex.create", re, im, result=ScalarType(f"complex<{re.type}>"))

    def complex_elementwise(self, kind: str, args: list[Value]) -> Value:
        method = getattr(self, f"_complex_{kind}", None)
        if method is None:
            raise NotImplementedError(f"no complex lowering for '{kind}'")  # refused when traced
        return method(*[self.parts(z) for z in args])

    def _f(self, name, *operands):
        return self.op(f"arith.{name}f" if name in ("add", "sub", "mul", "div", "neg") else f"math.{name}",
                       *operands)

    def _complex_add(self, a, b):
        return self.make_complex(self._f("add", a[0], b[0]), self._f("add", a[1], b[1]))

    def _complex_sub(self, a, b):
        return self.make_complex(self._f("sub", a[0], b[0]), self._f("sub", a[1], b[1]))

    def _complex_mul(self, a, b):
        (ar, ai), (br, bi) = a, b
        re = self._f("fma", ar, br, self._f("neg", self._f("mul", ai, bi)))
        return self.make_complex(re, self._f("fma", ar, bi, self._f("mul", ai, br)))

    def _complex_div(self, a, b):
        (ar, ai), (br, bi) = a, b
        t = ar.type
        abs_r, abs_i = self._f("absf", br), self._f("absf", bi)
        one = self.const(1.0, t)
        # |br| >= |bi|: scale by 1 / (br + bi * (bi / br)); else the same with the roles swapped.
        wide = self.cmp("ge", abs_r, abs_i)
        rat = self.select(wide, self._f("div", bi, br), self._f("div", br, bi))
        den = self.select(wide, self._f("add", br, self._f("mul", bi, rat)),
                          self._f("add", bi, self._f("mul", br, rat)))
        scl = self._f("div", one, den)
        re = self.select(wide, self._f("add", ar, self._f("mul", ai, rat)),
                         self._f("add", self._f("mul", ar, rat), ai))
        im = self.select(wide, self._f("sub", ai, self._f("mul", ar, rat)),
                         self._f("sub", self._f("mul", ai, rat), ar))
        re, im = self._f("mul", re, scl), self._f("mul", im, scl)
        # Division by 0 + 0j: each part divided by +0.0 (inf or nan, as NumPy).
        zero = self.op("arith.andi", self.cmp("eq", abs_r, self.const(0.0, t)),
                       self.cmp("eq", abs_i, self.const(0.0, t)))
        return self.make_complex(self.select(zero, self._f("div", ar, abs_r), re),
                                 self.select(zero, self._f("div", ai, abs_r), im))

    def _complex_reciprocal(self, a):
        ar, ai = a
        t = ar.type
        one = self.const(1.0, t)
        small = self.cmp("le", self._f("absf", ai), self._f("absf", ar))
        r = self.select(small, self._f("div", ai, ar), self._f("div", ar, ai))
        d = self.select(small, self._f("add", ar, self._f("mul", ai, r)),
                        self._f("add", self._f("mul", ar, r), ai))
        re = self.select(small, self._f("div", one, d), self._f("div", r, d))
        im = self.select(small, self._f("div", self._f("neg", r), d),
                         self._f("div", self.const(-1.0, t), d))
        return self.make_complex(re, im)

    def _complex_neg(self, a):
        return self.make_complex(self._f("neg", a[0]), self._f("neg", a[1]))

    def _complex_rint(self, a):  # each part to the nearest integer, ties to even
        return self.make_complex(self._f("rint", a[0]), self._f("rint", a[1]))

    def _complex_conj(self, a):
        return self.make_complex(a[0], self._f("neg", a[1]))

    def _complex_real(self, a):
        return a[0]

    def _complex_imag(self, a):
        return a[1]

    def _complex_abs(self, a):
        """NumPy's SIMD |z|: big * sqrt(1 + (small / big)**2); inf wins over nan."""
        t = a[0].type
        x, y = self._f("absf", a[0]), self._f("absf", a[1])
        big, small = self.op("arith.maximumf", x, y), self.op("arith.minimumf", x, y)
        ratio = self._f("div", small, big)
        out = self._f("mul", big, self._f("sqrt", self._f("fma", ratio, ratio, self.const(1.0, t))))
        inf, zero = self.const(float("inf"), t), self.const(0.0, t)
        out = self.select(self.cmp("eq", big, zero), zero, out)
        nan = self.const(float("nan"), t)
        out = self.select(self.op("arith.ori", self.isnan(x), self.isnan(y)), nan, out)
        return self.select(self.op("arith.ori", self.cmp("eq", x, inf), self.cmp("eq", y, inf)), inf, out)

    def _complex_exp(self, a):
        """cexp: e**re * (cos im, sin im), scaled where e**re alone would overflow."""
        re, im = a
        t = re.type
        # e**re as three factors of at most e**limit each, multiplied into cos and sin in turn:
        # e**re * sin(im) is finite for re up to about twice the overflow limit of e**re.
        limit = self.const(80.0 if t.bitwidth == 32 else 700.0, t)
        zero, inf = self.const(0.0, t), self.const(float("inf"), t)
        rest = self.op("arith.maximumf", self._f("sub", re, limit), zero)
        factors = [self._f("exp", self.op("arith.minimumf", re, limit)),
                   self._f("exp", self.op("arith.minimumf", rest, limit)),
                   self._f("exp", self.op("arith.maximumf", self._f("sub", rest, limit), zero))]
        out_re, out_im = self._f("cos", im), self._f("sin", im)
        for factor in factors:
            out_re, out_im = self._f("mul", out_re, factor), self._f("mul", out_im, factor)
        # Imaginary part zero: e**re + im*j exactly (nan + 0j stays nan + 0j).
        real_only = self.cmp("eq", im, zero)
        out_re = self.select(real_only, self._f("mul", self._f("mul", factors[0], factors[1]), factors[2]),
                             out_re)
        out_im = self.select(real_only, im, out_im)
        # Infinite real part with an infinite or nan imaginary part.
        bad_im = self.op("arith.xori", self.cmp("lt", self._f("absf", im), inf), self.const(True, i1))
        pos_inf = self.op("arith.andi", self.cmp("eq", re, inf), bad_im)
        neg_inf = self.op("arith.andi", self.cmp("eq", re, self.const(float("-inf"), t)), bad_im)
        out_re = self.select(pos_inf, inf, self.select(neg_inf, zero, out_re))
        out_im = self.select(neg_inf, self._f("copysign", zero, im), out_im)
        return self.make_complex(out_re, out_im)

    @staticmethod
    def _known(part: Value):
        """The number a part of a complex value holds when the body makes it from a constant
        (``complex.re``/``im`` of an ``arith.constant``, or a float constant), else None."""
        op = getattr(part, "op", None)
        if op is not None and op.name in ("complex.re", "complex.im"):
            source = getattr(op.operands[0], "op", None)
            if source is not None and source.name == "arith.constant":
                value = complex(source.attributes["value"].value)
                return value.real if op.name == "complex.re" else value.imag
        if op is not None and op.name == "arith.constant" and part.type.is_float:
            return float(op.attributes["value"].value)
        return None

    def _complex_pow(self, a, b):
        """NumPy's complex power loop: 1 for a zero exponent; for a zero base, 0 if re(b) > 0
        else nan + nanj; a real integer exponent below 100 in magnitude by repeated squaring
        with plain (unfused) products, then 1 / that (Smith) for a negative one (1, 2 and 3
        unrolled); else glibc's cpow, cexp(b * clog(a)). A constant exponent (``z**3``) emits
        only its own path: the general one inlines clog and cexp, which LLVM takes seconds
        to compile and then drops."""
        (ar, ai), (br, bi) = a, b
        t = ar.type
        c = lambda v: self.const(float(v), t)  # noqa: E731
        zero, one, nan = c(0.0), c(1.0), c(float("nan"))
        known_re, known_im = self._known(br), self._known(bi)
        if known_re is not None and known_im is not None:
            return self._constant_pow(a, b, known_re, known_im)
        # Integer exponents: a**(2**k) for k < 7 by squaring, the set bits' powers multiplied.
        m = self._f("absf", br)
        integral = self.op("arith.andi", self.op("arith.andi", self.cmp("eq", bi, zero),
                                                 self.cmp("eq", self._f("trunc", br), br)),
                           self.cmp("lt", m, c(100.0)))
        bits = self.convert(self.select(integral, m, zero), ScalarType("i64"))
        acc, power = (one, zero), a
        for k in range(7):
            bit = self.cmp("ne", self.op("arith.andi", self.op("arith.shrui", bits, self.const(k, bits.type)),
                                         self.const(1, bits.type)), self.const(0, bits.type))
            prod = self._plain_mul(acc, power)
            acc = (self.select(bit, prod[0], acc[0]), self.select(bit, prod[1], acc[1]))
            if k < 6:
                power = self._plain_mul(power, power)
        inverse = self.parts(self._complex_div((one, zero), acc))
        negative = self.cmp("lt", br, zero)
        acc = (self.select(negative, inverse[0], acc[0]), self.select(negative, inverse[1], acc[1]))
        square = self._plain_mul(a, a)
        cube = self._plain_mul(a, square)
        for n, value in ((1.0, a), (2.0, square), (3.0, cube)):
            hit = self.cmp("eq", br, c(n))
            acc = (self.select(hit, value[0], acc[0]), self.select(hit, value[1], acc[1]))
        # Everything else: cexp(b * clog(a)), the product as C's (GCC's, with __muldc3).
        log = self.parts(self._complex_log(a))
        general = self.parts(self._complex_exp(self._c_mul(b, log)))
        out = (self.select(integral, acc[0], general[0]), self.select(integral, acc[1], general[1]))
        zero_base = self.op("arith.andi", self.cmp("eq", ar, zero), self.cmp("eq", ai, zero))
        positive = self.cmp("gt", br, zero)
        out = (self.select(zero_base, self.select(positive, zero, nan), out[0]),
               self.select(zero_base, self.select(positive, zero, nan), out[1]))
        zero_exp = self.op("arith.andi", self.cmp("eq", br, zero), self.cmp("eq", bi, zero))
        return self.make_complex(self.select(zero_exp, one, out[0]), self.select(zero_exp, zero, out[1]))

    def _constant_pow(self, a, b, br: float, bi: float):
        """``_complex_pow`` with the exponent ``br + bi j`` known: the same products, in the
        same order, for that exponent alone."""
        (ar, ai) = a
        t = ar.type
        zero, one = self.const(0.0, t), self.const(1.0, t)
        if br == 0 and bi == 0:
            return self.make_complex(one, zero)
        if bi == 0 and float(br).is_integer() and abs(br) < 100:
            n = int(abs(br))
            if br == 1:
                out = a
            elif br in (2, 3):
                out = self._plain_mul(a, a)
                out = self._plain_mul(a, out) if br == 3 else out
            else:
                out, power = (one, zero), a
                for k in range(7):  # the set bits' powers, as the loop of the general path
                    if n >> k & 1:
                        out = self._plain_mul(out, power)
                    if k < 6 and n >> (k + 1):
                        power = self._plain_mul(power, power)
                if br < 0:
                    out = self.parts(self._complex_div((one, zero), out))
        else:
            out = self.parts(self._complex_exp(self._c_mul(b, self.parts(self._complex_log(a)))))
        at_zero = zero if br > 0 else self.const(float("nan"), t)
        zero_base = self.op("arith.andi", self.cmp("eq", ar, zero), self.cmp("eq", ai, zero))
        return self.make_complex(self.select(zero_base, at_zero, out[0]),
                                 self.select(zero_base, at_zero, out[1]))

    def _c_mul(self, a, b):
        """C99's complex product as GCC compiles it: the plain formula, and where both parts
        come out NaN, libgcc's __muldc3 recovery of infinities (Annex G)."""
        (pa, pb), (pc, pd) = a, b
        t = pa.type
        zero, one, inf = self.const(0.0, t), self.const(1.0, t), self.const(float("inf"), t)
        ac, bd = self._f("mul", pa, pc), self._f("mul", pb, pd)
        ad, bc = self._f("mul", pa, pd), self._f("mul", pb, pc)
        x, y = self._f("sub", ac, bd), self._f("add", ad, bc)
        is_inf = lambda v: self.isinf(v)  # noqa: E731
        either = lambda p, q: self.op("arith.ori", p, q)  # noqa: E731
        box = lambda v: self._f("copysign", self.select(is_inf(v), one, zero), v)  # noqa: E731
        unnan = lambda v: self.select(self.isnan(v), self._f("copysign", zero, v), v)  # noqa: E731
        z_inf, w_inf = either(is_inf(pa), is_inf(pb)), either(is_inf(pc), is_inf(pd))
        overflow = either(either(is_inf(ac), is_inf(bd)), either(is_inf(ad), is_inf(bc)))
        # z infinite: box it, NaNs of w to 0; w infinite: likewise; else overflow: all NaNs to 0.
        ra, rb = self.select(z_inf, box(pa), pa), self.select(z_inf, box(pb), pb)
        rc, rd = self.select(z_inf, unnan(pc), pc), self.select(z_inf, unnan(pd), pd)
        rc, rd = self.select(w_inf, box(rc), rc), self.select(w_inf, box(rd), rd)
        ra, rb = self.select(w_inf, unnan(ra), ra), self.select(w_inf, unnan(rb), rb)
        only_overflow = self.op("arith.andi", overflow, self.op("arith.xori", either(z_inf, w_inf),
                                                                 self.const(True, i1)))
        ra, rb, rc, rd = (self.select(only_overflow, unnan(v), v) for v in (ra, rb, rc, rd))
        recalc = either(either(z_inf, w_inf), overflow)
        rx = self._f("mul", inf, self._f("sub", self._f("mul", ra, rc), self._f("mul", rb, rd)))
        ry = self._f("mul", inf, self._f("add", self._f("mul", ra, rd), self._f("mul", rb, rc)))
        redo = self.op("arith.andi", self.op("arith.andi", self.isnan(x), self.isnan(y)), recalc)
        return self.select(redo, rx, x), self.select(redo, ry, y)

    def _plain_mul(self, a, b):
        """(ar br - ai bi) + (ar bi + ai br)j, each product rounded (C's, NumPy's scalar loops)."""
        (ar, ai), (br, bi) = a, b
        return (self._f("sub", self._f("mul", ar, br), self._f("mul", ai, bi)),
                self._f("add", self._f("mul", ar, bi), self._f("mul", ai, br)))

    def _complex_exp2(self, a):
        """NumPy's: cexp of the parts times ln(2)."""
        k = self.const(float(np.log(2.0)), a[0].type)
        return self._complex_exp((self._f("mul", a[0], k), self._f("mul", a[1], k)))

    def _complex_sqrt(self, a):
        """csqrt (Kahan's method): no cancellation in |z| +- re, scaled near overflow and
        underflow, Annex G's special values."""
        re, im = a
        t = re.type
        info = np.finfo(numpy_dtype(t))
        c = lambda v: self.const(float(v), t)  # noqa: E731
        ax, ay = self._f("absf", re), self._f("absf", im)
        # Scale into range: down by 4 near overflow, up by 2**(2k) when both parts are tiny.
        k = (info.nmant + 2) // 2
        huge = self.cmp("gt", self.op("arith.maximumf", ax, ay), c(info.max / 4))
        tiny = self.cmp("lt", self.op("arith.maximumf", ax, ay), c(2 * info.tiny))
        s_in = self.select(huge, c(0.25), self.select(tiny, c(2.0 ** (2 * k)), c(1.0)))
        s_out = self.select(huge, c(2.0), self.select(tiny, c(2.0 ** -k), c(1.0)))
        x, y = self._f("mul", re, s_in), self._f("mul", im, s_in)
        d = self._f("hypot", x, y)
        half = c(0.5)
        # re > 0: r = sqrt((d + x) / 2), s = y / 2r; else s = sqrt((d - x) / 2), r = |y| / 2s.
        positive = self.cmp("gt", x, c(0.0))
        root = self._f("sqrt", self._f("mul", half, self.select(
            positive, self._f("add", d, x), self._f("sub", d, x))))
        other = self._f("mul", half, self._f("div", y, root))
        r = self.select(positive, root, self._f("absf", other))
        s = self.select(positive, other, root)
        r, s = self._f("mul", r, s_out), self._f("absf", self._f("mul", s, s_out))
        # Zero imaginary part: exact sqrt of the real axis; zero real part: sqrt(|im| / 2).
        on_real = self.cmp("eq", im, c(0.0))
        neg = self.cmp("lt", re, c(0.0))
        sq = self._f("sqrt", ax)
        r = self.select(on_real, self.select(neg, c(0.0), sq), r)
        s = self.select(on_real, self.select(neg, sq, c(0.0)), s)
        on_imag = self.op("arith.andi", self.cmp("eq", re, c(0.0)),
                          self.op("arith.xori", on_real, self.const(True, i1)))
        half_y = self.select(self.cmp("ge", ay, c(2 * info.tiny)), self._f("sqrt", self._f("mul", half, ay)),
                             self._f("mul", half, self._f("sqrt", self._f("mul", c(2.0), ay))))
        r = self.select(on_imag, half_y, r)
        s = self.select(on_imag, half_y, s)
        # Infinities and nan (Annex G): im = +-inf gives inf + im*j whatever re is.
        inf = c(float("inf"))
        nan = c(float("nan"))
        nan_im = self.isnan(im)
        r = self.select(self.isnan(re), nan, r)
        s = self.select(self.op("arith.ori", self.isnan(re), nan_im), nan, s)
        r = self.select(self.cmp("eq", re, inf), inf, r)
        s = self.select(self.cmp("eq", re, inf), self.select(nan_im, nan, c(0.0)), s)
        minus_inf = self.cmp("eq", re, c(float("-inf")))
        r = self.select(minus_inf, self.select(nan_im, nan, c(0.0)), r)
        s = self.select(minus_inf, inf, s)
        inf_im = self.cmp("eq", ay, inf)
        r = self.select(inf_im, inf, r)
        s = self.select(inf_im, inf, s)
        return self.make_complex(r, self._f("copysign", s, im))

    def _complex_sign(self, a):
        """NumPy 2's z / |z| with |z| = hypot(re, im) (glibc's): 0 for 0; nan + nanj when |z| is nan or
        both parts are infinite; an infinite |z| (an overflowing hypot too) gives +-1 along the
        infinite part, else along the imaginary axis."""
        re, im = a
        t = re.type
        zero, one, minus = self.const(0.0, t), self.const(1.0, t), self.const(-1.0, t)
        nan, inf = self.const(float("nan"), t), self.const(float("inf"), t)
        size = self._libm_hypot(re, im)
        inf_re, inf_im = self.isinf(re), self.isinf(im)
        unit_re = self.select(self.cmp("gt", re, zero), one, minus)
        unit_im = self.select(self.cmp("gt", im, zero), one, minus)
        huge_re = self.select(inf_re, self.select(inf_im, nan, unit_re), zero)
        huge_im = self.select(inf_re, self.select(inf_im, nan, zero), unit_im)
        is_zero = self.cmp("eq", size, zero)
        out_re = self.select(is_zero, zero, self._f("div", re, size))
        out_im = self.select(is_zero, zero, self._f("div", im, size))
        huge = self.cmp("eq", size, inf)
        out_re, out_im = self.select(huge, huge_re, out_re), self.select(huge, huge_im, out_im)
        no_size = self.isnan(size)
        return self.make_complex(self.select(no_size, nan, out_re), self.select(no_size, nan, out_im))

    def _complex_log(self, a):
        """clog, as glibc's (which NumPy calls): log|z| + atan2(im, re)j, with log|z| through
        log1p of |z|**2 - 1 near the unit circle (computed without cancellation), scaled for
        huge and tiny parts; -inf + (0 or pi)j at zero, inf + nanj for an infinite part with a
        NaN. complex64 computes in float64, where its squares neither overflow nor lose bits."""
        re, im = a
        t = re.type
        if t.bitwidth == 32:
            wide = self.parts(self._complex_log((self.convert(re, f64), self.convert(im, f64))))
            return self.make_complex(*(self.convert(p, t) for p in wide))
        info = np.finfo(numpy_dtype(t))
        c = lambda v: self.const(float(v), t)  # noqa: E731
        ax, ay = self._f("absf", re), self._f("absf", im)
        big, small = self.op("arith.maximumf", ax, ay), self.op("arith.minimumf", ax, ay)
        huge = self.cmp("gt", big, c(info.max / 2))
        tiny = self.cmp("lt", big, c(info.tiny))
        up = c(2.0 ** (info.nmant + 1))
        x = self.select(huge, self._f("mul", big, c(0.5)), self.select(tiny, self._f("mul", big, up), big))
        halved = self.select(self.cmp("ge", small, c(2 * info.tiny)), self._f("mul", small, c(0.5)), c(0.0))
        y = self.select(huge, halved, self.select(tiny, self._f("mul", small, up), small))
        ln2 = np.log(2.0)
        shift = self.select(huge, c(-ln2), self.select(tiny, c((info.nmant + 1) * ln2), c(0.0)))
        plain = self.op("arith.xori", self.op("arith.ori", huge, tiny), self.const(True, i1))
        # log1p(x**2 + y**2 - 1) / 2 where that is near 0, as glibc decides it.
        one, half = c(1.0), c(0.5)
        xm = self._f("mul", self._f("sub", x, one), self._f("add", x, one))
        yy = self._f("mul", y, y)
        near = self._f("add", xm, self.select(self.cmp("ge", y, c(info.eps)), yy, c(0.0)))
        x_lt_1 = self.cmp("lt", x, one)
        upper = self.op("arith.andi", self.cmp("gt", x, one), self.cmp("lt", x, c(2.0)))
        upper = self.op("arith.andi", upper, self.cmp("lt", y, one))
        lower = self.op("arith.andi", x_lt_1, self.cmp("ge", x, half))
        lower_thin = self.op("arith.andi", lower, self.cmp("lt", y, c(info.eps / 2)))
        lower_wide = self.op("arith.andi", lower, self.cmp("ge", self._f("fma", x, x, yy), half))
        d2m1 = self.select(self.cmp("eq", x, one), yy,
                           self.select(self.op("arith.ori", upper, lower_thin), near, self._x2y2m1(x, y)))
        use_log1p = self.op("arith.andi", plain, self.op("arith.ori", self.op(
            "arith.ori", self.cmp("eq", x, one), upper), self.op("arith.ori", lower_thin, lower_wide)))
        out_re = self.select(use_log1p, self._f("mul", self._f("log1p", d2m1), half),
                             self._f("sub", self._f("log", self._libm_hypot(x, y)), shift))
        out_im = self._f("arctan2", im, re)
        # Zero: -inf, and atan2's +-0 or +-pi. NaN in a part: inf + nanj if the other is infinite.
        zero = self.cmp("eq", big, c(0.0))
        out_re = self.select(zero, c(float("-inf")), out_re)
        has_nan = self.has_nan(a)
        inf_part = self.op("arith.ori", self.isinf(re), self.isinf(im))
        out_re = self.select(has_nan, self.select(inf_part, c(float("inf")), c(float("nan"))), out_re)
        return self.make_complex(out_re, self.select(has_nan, c(float("nan")), out_im))

    def _x2y2m1(self, x, y):
        """x**2 + y**2 - 1 for 0.5 <= x < 1, nearly exact as glibc's: the squares split into
        exact high and low parts (fma), added with error-free two-sums, so that where the sum
        cancels (x**2 + y**2 near 1) only the last, tiny error terms are rounded."""
        x2, y2 = self._f("mul", x, x), self._f("mul", y, y)
        ex = self._f("fma", x, x, self._f("neg", x2))
        ey = self._f("fma", y, y, self._f("neg", y2))
        s, e1 = self._two_sum(x2, self.const(-1.0, x.type))
        u, e2 = self._two_sum(s, y2)
        low, e3 = self._two_sum(ex, ey)
        v, e4 = self._two_sum(u, low)
        return self._f("add", v, self._f("add", self._f("add", e1, e2), self._f("add", e3, e4)))

    def _two_sum(self, a, b):
        """a + b and its rounding error, exactly (Knuth's two-sum)."""
        s = self._f("add", a, b)
        bb = self._f("sub", s, a)
        return s, self._f("add", self._f("sub", a, self._f("sub", s, bb)), self._f("sub", b, bb))

    def _complex_scaled_log(self, a, factor):
        """np.log2 / np.log10: clog's parts times log2(e) (log10(e)) in the part type, as NumPy."""
        re, im = self.parts(self._complex_log(a))
        k = self.const(factor, re.type)
        return self.make_complex(self._f("mul", re, k), self._f("mul", im, k))

    def _complex_log2(self, a):
        return self._complex_scaled_log(a, float(np.log2(np.e)))

    def _complex_log10(self, a):
        return self._complex_scaled_log(a, float(np.log10(np.e)))

    def _complex_log1p(self, a):
        """NumPy's own log1p: log(hypot(re + 1, im)) + atan2(im, re + 1)j, plainly. Near
        |1 + z| = 1 the log cancels, so the hypot is glibc's, to the bit."""
        re, im = a
        shifted = self._f("add", re, self.const(1.0, re.type))
        return self.make_complex(self._f("log", self._libm_hypot(shifted, im)),
                                 self._f("arctan2", im, shifted))

    def _libm_hypot(self, x, y):
        """glibc's hypot, which NumPy's complex loops call, to the bit: float32 as the square
        root of the squares' sum in float64; float64 as its non-fma kernel (a square root and
        one correction step), with its scaling of huge and tiny operands."""
        t = x.type
        ax, ay = self._f("absf", x), self._f("absf", y)
        big, small = self.op("arith.maximumf", ax, ay), self.op("arith.minimumf", ax, ay)
        c = lambda v: self.const(float(v), t)  # noqa: E731
        inf = c(float("inf"))
        infinite = self.op("arith.ori", self.cmp("eq", ax, inf), self.cmp("eq", ay, inf))  # inf even with nan
        if t.bitwidth != 64:
            wx, wy = self.convert(big, f64), self.convert(small, f64)
            wide = self._f("sqrt", self._f("add", self._f("mul", wx, wx), self._f("mul", wy, wy)))
            return self.select(infinite, inf, self.convert(wide, t))
        eps = c(2.0 ** -54)
        large, tiny = self.cmp("gt", big, c(2.0 ** 511)), self.cmp("lt", small, c(2.0 ** -511))
        trivial = self.select(large, self.cmp("le", small, self._f("mul", big, eps)),
                              self.select(tiny, self.cmp("ge", big, self._f("div", small, eps)),
                                          self.cmp("le", small, self._f("mul", big, eps))))
        scale_in = self.select(large, c(2.0 ** -600), self.select(tiny, c(2.0 ** 600), c(1.0)))
        scale_out = self.select(large, c(2.0 ** 600), self.select(tiny, c(2.0 ** -600), c(1.0)))
        ax, ay = self._f("mul", big, scale_in), self._f("mul", small, scale_in)
        two, four = c(2.0), c(4.0)
        h = self._f("sqrt", self._f("add", self._f("mul", ax, ax), self._f("mul", ay, ay)))
        steep = self.cmp("le", h, self._f("mul", two, ay))
        d1 = self._f("sub", h, ay)
        t1a = self._f("mul", ax, self._f("sub", self._f("mul", two, d1), ax))
        t2a = self._f("mul", self._f("sub", d1, self._f("mul", two, self._f("sub", ax, ay))), d1)
        d2 = self._f("sub", h, ax)
        t1b = self._f("mul", self._f("mul", two, d2), self._f("sub", ax, self._f("mul", two, ay)))
        t2b = self._f("add", self._f("mul", self._f("sub", self._f("mul", four, d2), ay), ay),
                      self._f("mul", d2, d2))
        t12 = self.select(steep, self._f("add", t1a, t2a), self._f("add", t1b, t2b))
        h = self._f("sub", h, self._f("div", t12, self._f("mul", two, h)))
        out = self.select(trivial, self._f("add", big, small), self._f("mul", h, scale_out))
        return self.select(infinite, inf, out)

    def _complex_isnan(self, a):
        return self.has_nan(a)

    def _complex_isinf(self, a):
        return self.op("arith.ori", self.isinf(a[0]), self.isinf(a[1]))

    def _complex_isfinite(self, a):
        return self.op("arith.andi", self.isfinite(a[0]), self.isfinite(a[1]))

    def _complex_eq(self, a, b):
        return self.op("arith.andi", self.cmp("eq", a[0], b[0]), self.cmp("eq", a[1], b[1]))

    def _complex_ne(self, a, b):
        return self.op("arith.ori", self.cmp("ne", a[0], b[0]), self.cmp("ne", a[1], b[1]))

    def _complex_order(self, strict, a, b):
        """NumPy orders complex numbers lexicographically: real parts, then imaginary parts;
        a nan imaginary part makes the real parts' order not count."""
        (ar, ai), (br, bi) = a, b
        by_real = self.op("arith.andi", self.cmp("lt", ar, br),
                          self.op("arith.xori", self.op("arith.ori", self.isnan(ai), self.isnan(bi)),
                                  self.const(True, i1)))
        by_imag = self.op("arith.andi", self.cmp("eq", ar, br), self.cmp("lt" if strict else "le", ai, bi))
        return self.op("arith.ori", by_real, by_imag)

    def _complex_lt(self, a, b):
        return self._complex_order(True, a, b)

    def _complex_le(self, a, b):
        return self._complex_order(False, a, b)

    def _complex_gt(self, a, b):
        return self._complex_order(True, b, a)

    def _complex_ge(self, a, b):
        return self._complex_order(False, b, a)

    def _complex_pick(self, first, a, b):
        return self.make_complex(self.select(first, a[0], b[0]), self.select(first, a[1], b[1]))

    def _complex_keep(self, nan, order, a, b):
        return self._complex_pick(self.op("arith.ori", nan, order), a, b)

    def has_nan(self, a: tuple[Value, Value]) -> Value:
        """i1: either part of the complex number with parts ``a`` is NaN."""
        return self.op("arith.ori", self.isnan(a[0]), self.isnan(a[1]))

    def _complex_max(self, a, b):
        """np.maximum: the first operand if it has a NaN part or is >= the second (the
        lexicographic order above), else the second: a NaN in either propagates, the first's
        wins, and ties (0.0 against -0.0 too) keep the first."""
        return self._complex_keep(self.has_nan(a), self._complex_ge(a, b), a, b)

    def _complex_min(self, a, b):
        return self._complex_keep(self.has_nan(a), self._complex_le(a, b), a, b)

    def _complex_fmax(self, a, b):
        """np.fmax: the first operand if the second has a NaN part or the first is >= it."""
        return self._complex_keep(self.has_nan(b), self._complex_ge(a, b), a, b)

    def _complex_fmin(self, a, b):
        return self._complex_keep(self.has_nan(b), self._complex_le(a, b), a, b)
