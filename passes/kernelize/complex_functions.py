"""Complex trigonometric and hyperbolic functions, their inverses and expm1, on the parts.

NumPy calls glibc's csinh, ccosh, ctanh, casinh, cacos, catanh (and csin, ccos, ctan, casin,
cacosh, catan through the identities below); its expm1 is its own formula. The forward
functions follow glibc's scaling where sinh and cosh alone would overflow; the inverses follow
Hull, Fairgrieve and Tang's algorithm ("Implementing the complex arcsine and arccosine functions
using exception handling", 1997), whose regions keep every part accurate to a few ULP. Special
values (infinities, NaN, signed zeros on the branch cuts) are C99 Annex G's, as glibc's.

Everything is straight-line (every region computed, the right one selected), so it vectorises.
complex64 computes in float64 and rounds once: no intermediate overflows and one rounding.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.core import Value
from jitcore.ir.types import f64, i1

Pair = tuple[Value, Value]

# Hull et al.'s crossovers: below A_CROSSOVER the real part needs log1p; above B_CROSSOVER the
# angle is taken by atan2 rather than asin(B) (asin loses accuracy near 1).
A_CROSSOVER = 10.0
B_CROSSOVER = 0.6417
EPS = float(np.finfo(np.float64).eps)
TINY = float(np.finfo(np.float64).tiny)
LN2 = float(np.log(2.0))
PI_2 = float(np.pi / 2)
PI_2_LO = 6.123233995736766e-17  # pi/2 - PI_2


class ComplexFunctions:
    """Mixed into ``ComplexEmitter``: ``_complex_<kind>`` for the functions above."""

    # -- small helpers ---------------------------------------------------------------
    def _c(self, v, t) -> Value:
        return self.const(float(v), t)

    def _all_of(self, *conds) -> Value:
        out = conds[0]
        for c in conds[1:]:
            out = self.op("arith.andi", out, c)
        return out

    def _any_of(self, *conds) -> Value:
        out = conds[0]
        for c in conds[1:]:
            out = self.op("arith.ori", out, c)
        return out

    def _negation(self, c) -> Value:
        return self.op("arith.xori", c, self.const(True, i1))

    def _pick(self, c, a: Pair, b: Pair) -> Pair:
        return self.select(c, a[0], b[0]), self.select(c, a[1], b[1])

    def _wide(self, fn, a: Pair):
        """complex64 through the float64 formula, rounded once; complex128 directly."""
        t = a[0].type
        if t.bitwidth == 64:
            return self.make_complex(*fn(a))
        wide = fn((self.convert(a[0], f64), self.convert(a[1], f64)))
        return self.make_complex(*(self.convert(p, t) for p in wide))

    @staticmethod
    def _swap(p: Pair) -> Pair:
        return p[1], p[0]

    # -- sinh, cosh, tanh and sin, cos, tan ------------------------------------------------
    def _sin_cos(self, y):
        """sin y and cos y; y itself and 1 for a subnormal or zero y (as glibc)."""
        t = y.type
        small = self.cmp("le", self._f("absf", y), self._c(TINY, t))
        return (self.select(small, y, self._f("sin", y)),
                self.select(small, self._c(1.0, t), self._f("cos", y)))

    def _half_exp_scaled(self, ax, u, v):
        """u * e**ax / 2 and v * e**ax / 2 for ax > LIMIT, with e**ax in three factors
        (each at most e**LIMIT), so that a product stays finite while it can."""
        t = ax.type
        limit = self._c(709.0, t)
        zero = self._c(0.0, t)
        rest = self._f("sub", ax, limit)
        # e**709 / 2 in one factor: a subnormal u halved first would vanish.
        factors = [self._c(np.exp(709.0) / 2, t),
                   self._f("exp", self.op("arith.minimumf", rest, limit)),
                   self._f("exp", self.op("arith.minimumf", self.op("arith.maximumf", self._f(
                       "sub", rest, limit), zero), limit))]
        for f in factors:
            u, v = self._f("mul", u, f), self._f("mul", v, f)
        return u, v

    def _sinh_cosh_parts(self, a: Pair, hyperbolic_sine: bool) -> Pair:
        """csinh (``hyperbolic_sine``) or ccosh of the float64 parts ``a``."""
        x, y = a
        t = x.type
        zero, inf, nan = self._c(0.0, t), self._c(np.inf, t), self._c(np.nan, t)
        ax = self._f("absf", x)
        sin_y, cos_y = self._sin_cos(y)
        sinh_x, cosh_x = self._f("sinh", x), self._f("cosh", x)
        sign_x = self._f("copysign", self._c(1.0, t), x)
        if hyperbolic_sine:
            plain = (self._f("mul", sinh_x, cos_y), self._f("mul", cosh_x, sin_y))
            big = self._half_exp_scaled(ax, self._f("mul", cos_y, sign_x), sin_y)
        else:
            plain = (self._f("mul", cosh_x, cos_y), self._f("mul", sinh_x, sin_y))
            big = self._half_exp_scaled(ax, cos_y, self._f("mul", sin_y, sign_x))
        out = self._pick(self.cmp("gt", ax, self._c(709.0, t)), big, plain)
        # Annex G: an infinite x with a finite y; a y that is inf or nan.
        x_inf, y_fin = self.isinf(x), self.isfinite(y)
        y_zero = self.cmp("eq", y, zero)
        inf_cos = self._f("copysign", inf, cos_y)
        inf_sin = self._f("copysign", inf, sin_y)
        if hyperbolic_sine:
            at_inf = (self._f("mul", inf_cos, sign_x), inf_sin)
            at_inf = self._pick(y_zero, (x, y), at_inf)
            bad_y = (self.select(self.cmp("eq", x, zero), x, nan), nan)
        else:
            at_inf = (inf_cos, self._f("mul", inf_sin, sign_x))
            at_inf = self._pick(y_zero, (inf, self._f("mul", y, self._f("copysign", self._c(1.0, t), x))),
                                at_inf)
            bad_y = (nan, self.select(self.cmp("eq", x, zero), zero, nan))
        out = self._pick(self._all_of(x_inf, y_fin), at_inf, out)
        inf_bad = (inf, self._f("sub", y, y)) if hyperbolic_sine else (inf, nan)
        bad_y = self._pick(x_inf, inf_bad, bad_y)
        out = self._pick(self._negation(y_fin), bad_y, out)
        x_nan = (nan, self.select(y_zero, y, nan))
        return self._pick(self.isnan(x), x_nan, out)

    def _tanh_parts(self, a: Pair) -> Pair:
        """ctanh of the float64 parts: sinh x cosh x / d + sin y cos y / d j with
        d = sinh(x)**2 + cos(y)**2; for |x| > 354, sign(x) + 4 sin y cos y e**(-2|x|) j."""
        x, y = a
        t = x.type
        zero, one, nan = self._c(0.0, t), self._c(1.0, t), self._c(np.nan, t)
        ax = self._f("absf", x)
        sin_y, cos_y = self._sin_cos(y)
        small_x = self.cmp("le", ax, self._c(TINY, t))
        sinh_x = self.select(small_x, x, self._f("sinh", x))
        cosh_x = self.select(small_x, one, self._f("cosh", x))
        cc = self._f("mul", cos_y, cos_y)
        den = self.select(self.cmp("gt", self._f("absf", sinh_x), self._f("mul", self._f("absf", cos_y),
                                                                         self._c(EPS, t))),
                          self._f("add", self._f("mul", sinh_x, sinh_x), cc), cc)
        plain = (self._f("div", self._f("mul", sinh_x, cosh_x), den),
                 self._f("div", self._f("mul", sin_y, cos_y), den))
        limit = self._c(354.0, t)
        rest = self._f("sub", ax, limit)
        im = self._f("div", self._f("mul", self._c(4.0, t), self._f("mul", sin_y, cos_y)),
                     self._f("exp", self._f("mul", self._c(2.0, t), limit)))
        im = self._f("div", im, self._f("exp", self._f("mul", self._c(2.0, t),
                                                       self.op("arith.minimumf", rest, limit))))
        big = (self._f("copysign", one, x), im)
        out = self._pick(self.cmp("gt", ax, limit), big, plain)
        # Annex G: x = +-inf gives +-1 and a zero imaginary part signed as sin(2y) (y's own
        # sign for |y| <= 1 or y inf/nan); otherwise a non-finite part gives nan, but y = 0 stays.
        x_inf = self.isinf(x)
        wide_y = self._all_of(self.isfinite(y), self.cmp("gt", self._f("absf", y), one))
        zero_im = self._f("copysign", zero, self.select(wide_y, self._f("mul", sin_y, cos_y), y))
        at_inf = (self._f("copysign", one, x), zero_im)
        nonfinite = self._negation(self._all_of(self.isfinite(x), self.isfinite(y)))
        other = self._pick(self.cmp("eq", y, zero), (x, y),
                           (self.select(self.cmp("eq", x, zero), x, nan), nan))
        special = self._pick(x_inf, at_inf, other)
        return self._pick(nonfinite, special, out)

    def _complex_sinh(self, a):
        return self._wide(lambda p: self._sinh_cosh_parts(p, True), a)

    def _complex_cosh(self, a):
        return self._wide(lambda p: self._sinh_cosh_parts(p, False), a)

    def _complex_tanh(self, a):
        return self._wide(self._tanh_parts, a)

    def _complex_sin(self, a):  # csin(z) = -i csinh(iz): the parts of csinh(im + re j) swapped
        return self._wide(lambda p: self._swap(self._sinh_cosh_parts(self._swap(p), True)), a)

    def _complex_cos(self, a):  # ccos(z) = ccosh(iz) = ccosh(-im + re j)
        return self._wide(lambda p: self._sinh_cosh_parts((self._f("neg", p[1]), p[0]), False), a)

    def _complex_tan(self, a):  # ctan(z) = -i ctanh(iz)
        return self._wide(lambda p: self._swap(self._tanh_parts(self._swap(p))), a)

    def _complex_expm1(self, a):
        """NumPy's own: expm1(re) cos(im) - 2 sin(im / 2)**2 + e**re sin(im) j."""
        x, y = a
        t = x.type
        h = self._f("sin", self._f("mul", y, self._c(0.5, t)))
        re = self._f("sub", self._f("mul", self._f("expm1", x), self._f("cos", y)),
                     self._f("mul", self._f("mul", self._c(2.0, t), h), h))
        return self.make_complex(re, self._f("mul", self._f("exp", x), self._f("sin", y)))

    # -- the inverses ------------------------------------------------------------------
    def _half_sum_term(self, a, b, h):
        """(h - b) / 2 where that does not cancel, for h = hypot(a, b): a**2 / (h + b) / 2
        when b > 0, a / 2 when b = 0."""
        t = a.type
        half = self._c(0.5, t)
        pos = self._f("mul", self._f("div", self._f("mul", a, a), self._f("add", h, b)), half)
        out = self.select(self.cmp("eq", b, self._c(0.0, t)), self._f("mul", a, half), pos)
        below = self._f("mul", self._f("sub", h, b), half)
        return self.select(self.cmp("lt", b, self._c(0.0, t)), below, out)

    def _asin_core(self, x, y):
        """For x, y >= 0 finite and not huge: log(A + sqrt(A**2 - 1)) with A = (|y + 1 + xj| +
        |y - 1 + xj|) / 2, and the angle asin(y / A) as (use_b, b, num, den): asin(b) where
        use_b, else atan2(num, den) with num / den = y / sqrt(A**2 - y**2)."""
        t = x.type
        c = lambda v: self._c(v, t)  # noqa: E731
        one, half = c(1.0), c(0.5)
        r = self._f("hypot", x, self._f("add", y, one))
        s = self._f("hypot", x, self._f("sub", y, one))
        a = self.op("arith.maximumf", self._f("mul", self._f("add", r, s), half), one)
        ym1, yp1, omy = self._f("sub", y, one), self._f("add", y, one), self._f("sub", one, y)
        ym1_abs = self._f("absf", ym1)
        clear = self.cmp("ge", x, self._f("mul", c(EPS), ym1_abs))  # x not tiny beside |y - 1|
        y_one = self.cmp("eq", y, one)
        # The real part, log(A + sqrt(A**2 - 1)), through log1p(A - 1 + ...) while A < 10.
        am1 = self._f("add", self._half_sum_term(x, yp1, r), self._half_sum_term(x, omy, s))
        root = self._f("sqrt", self._f("mul", am1, self._f("add", a, one)))
        near = self._f("log1p", self._f("add", am1, root))
        inside = self._f("div", x, self._f("sqrt", self._f("mul", omy, yp1)))
        outside = self._f("log1p", self._f("add", ym1, self._f("sqrt", self._f("mul", ym1, yp1))))
        small = self.select(clear, near, self.select(self.cmp("lt", y, one), inside, outside))
        at_one = self._all_of(y_one, self.cmp("lt", x, c(EPS * EPS / 128)))
        small = self.select(at_one, self._f("sqrt", x), small)
        large = self._f("log", self._f("add", a, self._f("sqrt", self._f("sub", self._f("mul", a, a), one))))
        real = self.select(self.cmp("lt", a, c(A_CROSSOVER)), small, large)
        # The angle.
        b = self._f("div", y, a)
        amy = self._f("add", self._half_sum_term(x, yp1, r), self._half_sum_term(x, ym1, s))
        den = self._f("sqrt", self._f("mul", amy, self._f("add", a, y)))
        scale = c(4 / EPS / EPS)
        beyond = self._f("div", self._f("mul", self._f("mul", x, scale), y),
                         self._f("sqrt", self._f("mul", yp1, ym1)))
        den = self.select(clear, den, self.select(self.cmp("gt", y, one), beyond,
                                                   self._f("sqrt", self._f("mul", omy, yp1))))
        scaled = self._all_of(self._negation(clear), self.cmp("gt", y, one))
        num = self.select(scaled, self._f("mul", y, scale), y)
        den = self.select(self._all_of(y_one, self.cmp("lt", x, c(EPS / 128))),
                          self._f("mul", self._f("sqrt", x), self._f("sqrt", self._f("mul", self._f(
                              "add", a, y), half))), den)
        tiny_y = self.cmp("lt", y, c(4 * np.sqrt(TINY)))
        den = self.select(tiny_y, self._f("mul", a, c(2 / EPS)), den)
        num = self.select(tiny_y, self._f("mul", y, c(2 / EPS)), num)
        use_b = self._all_of(self._negation(tiny_y), self.cmp("le", b, c(B_CROSSOVER)))
        return real, (use_b, b, num, den)

    def _log_large(self, ax, ay):
        """log|z| + ln 2 and atan2(ay, ax), for |z| > 1/eps (where asinh z ~ log 2z)."""
        t = ax.type
        big = self.op("arith.maximumf", ax, ay)
        huge = self.cmp("gt", big, self._c(2.0 ** 1000, t))
        k = self.select(huge, self._c(2.0 ** -24, t), self._c(1.0, t))
        shift = self.select(huge, self._c(25 * LN2, t), self._c(LN2, t))
        size = self._f("hypot", self._f("mul", ax, k), self._f("mul", ay, k))
        return self._f("add", self._f("log", size), shift), self._f("arctan2", ay, ax)

    def _asinh_parts(self, a: Pair) -> Pair:
        x, y = a
        t = x.type
        c = lambda v: self._c(v, t)  # noqa: E731
        ax, ay = self._f("absf", x), self._f("absf", y)
        real, (use_b, b, num, den) = self._asin_core(ax, ay)
        angle = self.select(use_b, self._f("arcsin", b), self._f("arctan2", num, den))
        out = (real, angle)
        large = self.cmp("gt", self.op("arith.maximumf", ax, ay), c(1 / EPS))
        out = self._pick(large, self._log_large(ax, ay), out)
        tiny = self.cmp("lt", self.op("arith.maximumf", ax, ay), c(np.sqrt(6 * EPS) / 4))
        out = self._pick(tiny, (ax, ay), out)
        out = (self._f("copysign", out[0], x), self._f("copysign", out[1], y))
        # NaN in a part: an infinite other part keeps its infinity, y = 0 stays; else nan.
        nan = c(np.nan)
        x_nan, y_nan = self.isnan(x), self.isnan(y)
        with_nan = self._pick(self.isinf(y), (ay, nan), (nan, self.select(self.cmp("eq", y, c(0.0)), y, nan)))
        out = self._pick(x_nan, with_nan, out)
        only_y_nan = self._all_of(y_nan, self._negation(x_nan))
        return self._pick(only_y_nan, (self.select(self.isinf(x), x, nan), nan), out)

    def _acos_parts(self, a: Pair) -> Pair:
        x, y = a
        t = x.type
        c = lambda v: self._c(v, t)  # noqa: E731
        ax, ay = self._f("absf", x), self._f("absf", y)
        x_neg = self.cmp("lt", self._f("copysign", c(1.0), x), c(0.0))
        imag, (use_b, b, num, den) = self._asin_core(ay, ax)
        by_b = self._f("arccos", self.select(x_neg, self._f("neg", b), b))
        real = self.select(use_b, by_b, self._f("arctan2", den, self.select(x_neg, self._f("neg", num), num)))
        out = (real, imag)
        large = self.cmp("gt", self.op("arith.maximumf", ax, ay), c(1 / EPS))
        log_size, _ = self._log_large(ax, ay)
        out = self._pick(large, (self._f("absf", self._f("arctan2", y, x)), log_size), out)
        tiny = self.cmp("lt", self.op("arith.maximumf", ax, ay), c(np.sqrt(6 * EPS) / 4))
        out = self._pick(tiny, (self._f("sub", c(PI_2), self._f("sub", x, c(PI_2_LO))), ay), out)
        out = (out[0], self._f("neg", self._f("copysign", out[1], y)))
        # NaN in a part.
        nan = c(np.nan)
        x_nan, y_nan = self.isnan(x), self.isnan(y)
        with_x_nan = (nan, self.select(self.isinf(y), self._f("neg", y), nan))
        with_y_nan = self._pick(self.isinf(x), (nan, self._f("neg", self._f("absf", x))),
                                (self.select(self.cmp("eq", x, c(0.0)), c(PI_2), nan), nan))
        out = self._pick(x_nan, with_x_nan, out)
        return self._pick(self._all_of(y_nan, self._negation(x_nan)), with_y_nan, out)

    def _acosh_parts(self, a: Pair) -> Pair:
        """cacosh from cacos: (|im w|, re w signed as im z), NaNs as Annex G."""
        y = a[1]
        rx, ry = self._acos_parts(a)
        out = (self._f("absf", ry), self._f("copysign", rx, y))
        out = self._pick(self.isnan(rx), (self._f("absf", ry), rx), out)
        return self._pick(self.isnan(ry), (ry, rx), out)

    def _atanh_parts(self, a: Pair) -> Pair:
        x, y = a
        t = x.type
        c = lambda v: self._c(v, t)  # noqa: E731
        zero, one, two, nan = c(0.0), c(1.0), c(2.0), c(np.nan)
        ax, ay = self._f("absf", x), self._f("absf", y)
        # Ordinary values: log1p(4|x| / ((|x| - 1)**2 + y**2)) / 4 and the angle of 1 - z**2.
        xm1 = self._f("sub", ax, one)
        squares = self._f("add", self._f("mul", xm1, xm1),
                          self.select(self.cmp("lt", ay, c(np.sqrt(TINY))), zero, self._f("mul", ay, ay)))
        real = self._f("mul", self._f("log1p", self._f("div", self._f("mul", c(4.0), ax), squares)), c(0.25))
        x_one = self.cmp("eq", ax, one)
        real = self.select(self._all_of(x_one, self.cmp("lt", ay, c(EPS))),
                           self._f("mul", self._f("sub", c(LN2), self._f("log", ay)), c(0.5)), real)
        across = self._f("mul", self._f("sub", one, ax), self._f("add", one, ax))
        two_y = self._f("mul", two, ay)
        imag = self._f("arctan2", two_y, self.select(self.cmp("lt", ay, c(EPS)), across,
                                                     self._f("sub", across, self._f("mul", ay, ay))))
        imag = self.select(x_one, self._f("arctan2", two, self._f("neg", ay)), imag)
        imag = self._f("mul", imag, c(0.5))
        out = (real, imag)
        # |z| > 1/eps: Re(1/z) = x / (x**2 + y**2), scaled where the squares would overflow.
        big = self.op("arith.maximumf", ax, ay)
        k = self.select(self.cmp("gt", big, c(2.0 ** 500)), c(2.0 ** -600), one)
        sx, sy = self._f("mul", ax, k), self._f("mul", ay, k)
        norm2 = self._f("add", self._f("mul", sx, sx), self._f("mul", sy, sy))
        recip = self._f("mul", self._f("div", sx, norm2), k)
        recip = self.select(self.isinf(big), zero, recip)
        out = self._pick(self.cmp("gt", big, c(1 / EPS)), (recip, c(PI_2)), out)
        out = self._pick(self.cmp("lt", big, c(np.sqrt(3 * EPS) / 2)), (ax, ay), out)
        out = (self._f("copysign", out[0], x), self._f("copysign", out[1], y))
        # The real axis inside [-1, 1] and the imaginary axis: the real functions.
        on_real = self._all_of(self.cmp("eq", y, zero), self.cmp("le", ax, one))
        out = self._pick(on_real, (self._f("arctanh", x), y), out)
        out = self._pick(self.cmp("eq", x, zero), (x, self._f("arctan", y)), out)
        # NaN in a part (and not caught above).
        x_nan, y_nan = self.isnan(x), self.isnan(y)
        with_nan = self._pick(self.isinf(x), (self._f("copysign", zero, x), nan),
                              self._pick(self.isinf(y), (self._f("copysign", zero, x),
                                                         self._f("copysign", c(PI_2), y)), (nan, nan)))
        any_nan = self._all_of(self._any_of(x_nan, y_nan), self._negation(self.cmp("eq", x, zero)))
        return self._pick(any_nan, with_nan, out)

    def _complex_arcsinh(self, a):
        return self._wide(self._asinh_parts, a)

    def _complex_arcsin(self, a):  # casin(z) = -i casinh(iz): the parts of casinh(im + re j) swapped
        return self._wide(lambda p: self._swap(self._asinh_parts(self._swap(p))), a)

    def _complex_arccos(self, a):
        return self._wide(self._acos_parts, a)

    def _complex_arccosh(self, a):
        return self._wide(self._acosh_parts, a)

    def _complex_arctanh(self, a):
        return self._wide(self._atanh_parts, a)

    def _complex_arctan(self, a):  # catan(z) = -i catanh(iz)
        return self._wide(lambda p: self._swap(self._atanh_parts(self._swap(p))), a)
