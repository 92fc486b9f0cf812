"""``Generator``'s samplers that NumPy's C builds from the others (a normal, an exponential, a
gamma, a poisson, a uniform) by a formula, for ``codegen/pcg64.py``: the same draws in the
same order, then NumPy's arithmetic in C's order with the C library's ``exp``, ``expm1``,
``pow`` (the functions NumPy's C calls: a formula's every bit is NumPy's), so the values and
the state after the call are NumPy 2.4's (``tests/jitcore/test_user_round52_draws.py``):

- ``lognormal``: ``exp(loc + scale * z)``; ``pareto``: ``expm1(E / a)``; ``weibull``: 0 at
  ``a == 0`` (no draw), else ``pow(E, 1 / a)``; ``power``: ``pow(-expm1(-E), 1 / a)``;
  ``rayleigh``: ``mode * sqrt(2 E)`` (E a ziggurat exponential, z a ziggurat normal);
- ``standard_cauchy``: a normal over a normal; ``standard_t``: ``sqrt(df / 2) * z / sqrt(G)``
  of a normal then a gamma of ``df / 2``; ``f``: two chi-squares' ratio;
- ``wald``: a normal then a uniform (Michael, Schucany and Haas, in NumPy 2.4's stable
  form); ``triangular``: one uniform, inverted on the side it falls;
- ``negative_binomial``: a poisson of a gamma; ``noncentral_chisquare`` (and ``_f``): a
  chi-square plus a shifted normal's square above one degree of freedom, a chi-square of a
  poisson-drawn count at or below.
- ``logseries`` and ``zipf``: NumPy 2.4's rejection loops on uniforms (``log1p``/``expm1`` in
  logseries, ``zipf``'s uniform on ``(Umin, 1]``), which differ from older sources.
"""

from __future__ import annotations

from llvmlite import ir as ll

F64 = ll.DoubleType()
I64 = ll.IntType(64)


def f64(x: float) -> ll.Constant:
    return ll.Constant(F64, x)


class DerivedSamplers:
    """Samplers of ``_Sampler`` (``codegen/pcg64.py``), which gives ``b``, ``call``, ``pow``,
    ``blocks``, ``joined``, ``next_double`` and the samplers they are made of."""

    def sqrt(self, x: ll.Value) -> ll.Value:
        return self.call("llvm.sqrt.f64", x)

    # -- of one exponential or normal ---------------------------------------------------------
    def lognormal(self, mean: ll.Value, sigma: ll.Value) -> ll.Value:
        return self.call("exp", self.normal(mean, sigma))

    def pareto(self, a: ll.Value) -> ll.Value:
        return self.call("expm1", self.b.fdiv(self.standard_exponential(), a))

    def weibull(self, a: ll.Value) -> ll.Value:
        b = self.b
        zero, draw = self.blocks("weibull.zero", "weibull.draw")
        b.cbranch(b.fcmp_ordered("==", a, f64(0.0)), zero, draw)
        return self.joined(
            F64,
            [
                (zero, lambda: f64(0.0)),
                (draw, lambda: self.pow(self.standard_exponential(), b.fdiv(f64(1.0), a))),
            ],
        )

    def power(self, a: ll.Value) -> ll.Value:
        b = self.b
        below_one = b.fneg(self.call("expm1", b.fneg(self.standard_exponential())))
        return self.pow(below_one, b.fdiv(f64(1.0), a))

    def rayleigh(self, mode: ll.Value) -> ll.Value:
        b = self.b
        return b.fmul(mode, self.sqrt(b.fmul(f64(2.0), self.standard_exponential())))

    # -- of two draws --------------------------------------------------------------------------
    def standard_cauchy(self) -> ll.Value:
        numerator = self.standard_normal()
        return self.b.fdiv(numerator, self.standard_normal())

    def standard_t(self, df: ll.Value) -> ll.Value:
        b = self.b
        num = self.standard_normal()
        half = b.fdiv(df, f64(2.0))
        denom = self.standard_gamma(half)
        return b.fdiv(b.fmul(self.sqrt(half), num), self.sqrt(denom))

    def f(self, dfnum: ll.Value, dfden: ll.Value) -> ll.Value:
        b = self.b
        top = b.fmul(self.chisquare(dfnum), dfden)
        return b.fdiv(top, b.fmul(self.chisquare(dfden), dfnum))

    def wald(self, mean: ll.Value, scale: ll.Value) -> ll.Value:
        """NumPy 2.4's: ``Y = mean * z * z``, ``X = mean * (1 - 2 / (1 + sqrt(1 + 4 * scale / Y)))``
        (the classic ``mean + mean / (2 scale) * (Y - sqrt(4 scale Y + Y * Y))`` differs from
        it in the last bit in about half the draws: fitted on NumPy's draws, 0 of 18000 differ),
        then ``X`` or ``mean * mean / X`` by a uniform."""
        b = self.b
        z = self.standard_normal()
        y = b.fmul(b.fmul(mean, z), z)
        root = self.sqrt(b.fadd(f64(1.0), b.fdiv(b.fmul(f64(4.0), scale), y)))
        x = b.fmul(mean, b.fsub(f64(1.0), b.fdiv(f64(2.0), b.fadd(f64(1.0), root))))
        u = self.next_double()
        below = b.fcmp_ordered("<=", u, b.fdiv(mean, b.fadd(mean, x)))
        return b.select(below, x, b.fdiv(b.fmul(mean, mean), x))

    def triangular(self, left: ll.Value, mode: ll.Value, right: ll.Value) -> ll.Value:
        b = self.b
        base = b.fsub(right, left)
        leftbase = b.fsub(mode, left)
        ratio = b.fdiv(leftbase, base)
        leftprod = b.fmul(leftbase, base)
        rightprod = b.fmul(b.fsub(right, mode), base)
        u = self.next_double()
        low = b.fadd(left, self.sqrt(b.fmul(u, leftprod)))
        high = b.fsub(right, self.sqrt(b.fmul(b.fsub(f64(1.0), u), rightprod)))
        return b.select(b.fcmp_ordered("<=", u, ratio), low, high)

    # -- of a gamma and a poisson ---------------------------------------------------------------
    def negative_binomial(self, n: ll.Value, p: ll.Value) -> ll.Value:
        b = self.b
        y = b.fmul(b.fdiv(b.fsub(f64(1.0), p), p), self.standard_gamma(n))  # random_gamma(n, (1-p)/p)
        return self.poisson(y)

    def noncentral_chisquare(self, df: ll.Value, nonc: ll.Value) -> ll.Value:
        b = self.b
        central, shifted, not_central, counted = self.blocks(
            "ncx2.central", "ncx2.shifted", "ncx2.not_central", "ncx2.counted"
        )
        b.cbranch(b.fcmp_ordered("==", nonc, f64(0.0)), central, not_central)
        b.position_at_end(not_central)
        b.cbranch(b.fcmp_ordered("<", f64(1.0), df), shifted, counted)

        def with_shift():
            chi2 = self.chisquare(b.fsub(df, f64(1.0)))
            n = b.fadd(self.standard_normal(), self.sqrt(nonc))
            return b.fadd(chi2, b.fmul(n, n))

        def with_count():
            i = self.poisson(b.fdiv(nonc, f64(2.0)))
            return self.chisquare(b.fadd(df, b.sitofp(b.mul(ll.Constant(I64, 2), i), F64)))

        return self.joined(
            F64, [(central, lambda: self.chisquare(df)), (shifted, with_shift), (counted, with_count)]
        )

    def noncentral_f(self, dfnum: ll.Value, dfden: ll.Value, nonc: ll.Value) -> ll.Value:
        b = self.b
        t = b.fmul(self.noncentral_chisquare(dfnum, nonc), dfden)
        return b.fdiv(t, b.fmul(self.chisquare(dfden), dfnum))

    # -- counts by rejection on uniforms (NumPy 2.4's forms, read off its libnpyrandom.a calls) --
    def logseries(self, p: ll.Value) -> ll.Value:
        """``r = log1p(-p)``; per try ``V``, 1 when ``V >= p``, else ``U`` and ``q =
        -expm1(r * U)``: ``floor(1 + log(V) / log(q))`` when ``V <= q * q`` (again when below 1
        or ``V == 0``), else 1 when ``V >= q``, else 2."""
        b = self.b
        r = self.call("log1p", b.fneg(p))
        loop, drawn, rare, done = self.blocks("logser.loop", "logser.drawn", "logser.rare", "logser.done")
        b.branch(loop)
        b.position_at_end(loop)
        v = self.next_double()
        b.cbranch(b.fcmp_ordered(">=", v, p), done, drawn)
        one_from = b.block
        b.position_at_end(drawn)
        q = b.fneg(self.call("expm1", b.fmul(r, self.next_double())))
        small = b.fcmp_ordered("<=", v, b.fmul(q, q))
        few = b.select(b.fcmp_ordered(">=", v, q), ll.Constant(I64, 1), ll.Constant(I64, 2))
        few_from = b.block
        b.cbranch(small, rare, done)
        b.position_at_end(rare)
        k = self.floor_i64(b.fadd(f64(1.0), b.fdiv(self.call("log", v), self.call("log", q))))
        again = b.or_(b.icmp_signed("<", k, ll.Constant(I64, 1)), b.fcmp_ordered("==", v, f64(0.0)))
        rare_from = b.block
        b.cbranch(again, loop, done)
        b.position_at_end(done)
        out = b.phi(I64)
        out.add_incoming(ll.Constant(I64, 1), one_from)
        out.add_incoming(few, few_from)
        out.add_incoming(k, rare_from)
        return out

    def zipf(self, a: ll.Value) -> ll.Value:
        """``U`` uniform on ``(Umin, 1]`` (``Umin = pow(2**63, -(a - 1))``: smaller ones give
        an ``X`` past int64), ``X = floor(pow(U, -1 / (a - 1)))``, kept when
        ``V * X * (T - 1) / (b - 1) <= T / b`` (``T = pow(1 + 1 / X, a - 1)``, ``b = 2**(a-1)``)."""
        b = self.b
        am1 = b.fsub(a, f64(1.0))
        two_am1 = self.pow(f64(2.0), am1)
        umin = self.pow(f64(2.0**63), b.fneg(am1))
        loop, fits, done = self.blocks("zipf.loop", "zipf.fits", "zipf.done")
        b.branch(loop)
        b.position_at_end(loop)
        u01 = self.next_double()
        u = b.fadd(b.fmul(u01, umin), b.fsub(f64(1.0), u01))
        v = self.next_double()
        x = self.call("llvm.floor.f64", self.pow(u, b.fdiv(f64(-1.0), am1)))
        outside = b.or_(b.fcmp_ordered(">", x, f64(2.0**63)), b.fcmp_ordered("<", x, f64(1.0)))
        b.cbranch(outside, loop, fits)
        b.position_at_end(fits)
        t = self.pow(b.fadd(f64(1.0), b.fdiv(f64(1.0), x)), am1)
        lhs = b.fdiv(b.fmul(b.fmul(v, x), b.fsub(t, f64(1.0))), b.fsub(two_am1, f64(1.0)))
        b.cbranch(b.fcmp_ordered("<=", lhs, b.fdiv(t, two_am1)), done, loop)
        b.position_at_end(done)
        return self.floor_i64(x)
