"""More of ``Generator``'s samplers for ``codegen/pcg64.py``, bit for bit NumPy's C code
(``numpy/random/src/distributions/distributions.c``), operation for operation in C's order and
types (an int64 is made a double where C converts it), the same libm calls:

- ``standard_exponential``/``exponential``: the 256-layer exponential ziggurat on 64-bit
  draws (3 bits dropped, 8 of layer, 53 of x), its tables read back from NumPy
  (``jitcore/ziggurat.py``);
- ``standard_gamma``/``gamma``: an exponential at shape 1, 0 at shape 0, Johnk-like
  rejection below 1 (``pow``, an exponential per try), Marsaglia and Tsang at or above 1;
  ``chisquare`` (2 * a gamma of df / 2) and ``beta`` (Johnk's method when both shapes are at
  most 1, a Bernoulli draw when both are below 3e-103, else a ratio of gammas) build on it;
- ``binomial``: inversion when ``min(p, 1 - p) * n <= 30``, else BTPE, its setup made at
  each draw (NumPy keeps it per (n, p) in the ``Generator``: the same numbers, so the same
  draws);
- ``geometric``: a search from p >= 1/3, else ``ceil(-E / log1p(-p))`` of an exponential E.

Mutable C variables are allocas in the entry block (promoted to registers by LLVM), the
``goto``s blocks.
"""

from __future__ import annotations

from llvmlite import ir as ll

F64 = ll.DoubleType()
I64 = ll.IntType(64)
I1 = ll.IntType(1)
EXP_R = 7.69711747013104972  # ziggurat_exp_r: where the exponential's tail starts
INT64_MAX = 2**63 - 1


def f64(x: float) -> ll.Constant:
    return ll.Constant(F64, x)


def i64(x: int) -> ll.Constant:
    return ll.Constant(I64, x)


class MoreSamplers:
    """Samplers of ``_Sampler`` (``codegen/pcg64.py``), which gives ``b``, ``fn``,
    ``module``, ``next64``, ``next_double``, ``call``, ``table``, ``entry`` and
    ``standard_normal``."""

    EXPONENTIAL = None  # (ke, we, fe): set by pcg64 from jitcore.ziggurat

    # -- helpers ---------------------------------------------------------------------------
    def local(self, typ: ll.Type, init: ll.Value) -> ll.Value:
        """A C variable: an alloca at the top of the entry block, set to ``init`` here."""
        entry = self.fn.entry_basic_block
        top = ll.IRBuilder(entry)
        top.position_at_start(entry)
        slot = top.alloca(typ)
        self.b.store(init, slot)
        return slot

    def get(self, slot: ll.Value, typ: ll.Type = F64) -> ll.Value:
        return self.b.load(slot, typ=typ)

    def blocks(self, *names: str) -> list[ll.Block]:
        return [self.fn.append_basic_block(n) for n in names]

    def joined(self, typ: ll.Type, arms) -> ll.Value:
        """Each arm (a block, a function that fills it and gives its value) branching to one
        block, whose phi is the result; the builder ends there."""
        b = self.b
        done = self.fn.append_basic_block("joined")
        incoming = []
        for block, fill in arms:
            b.position_at_end(block)
            value = fill()
            incoming.append((value, b.block))
            b.branch(done)
        b.position_at_end(done)
        out = b.phi(typ)
        for value, block in incoming:
            out.add_incoming(value, block)
        return out

    def pow(self, x: ll.Value, y: ll.Value) -> ll.Value:
        fn = self.module.globals.get("pow")
        if fn is None:
            fn = ll.Function(self.module, ll.FunctionType(F64, [F64, F64]), "pow")
        return self.b.call(fn, [x, y])

    def to_f64(self, x: ll.Value) -> ll.Value:
        return self.b.sitofp(x, F64)

    def floor_i64(self, x: ll.Value) -> ll.Value:
        """(int64_t)floor(x) as x86-64 converts: INT64_MIN out of range or NaN (LLVM's fptosi
        would be poison there, and NumPy's C tests such a y before it rejects it)."""
        b = self.b
        down = self.call("llvm.floor.f64", x)
        fits = b.and_(b.fcmp_ordered(">=", down, f64(-2.0**63)), b.fcmp_ordered("<", down, f64(2.0**63)))
        return b.select(fits, b.fptosi(b.select(fits, down, f64(0.0)), I64), i64(-2**63))

    # -- exponential -----------------------------------------------------------------------
    def standard_exponential(self) -> ll.Value:
        """NumPy's ``random_standard_exponential``: ziggurat, tail ``r - log1p(-U)``."""
        b = self.b
        ke, we, fe = self.EXPONENTIAL
        kt, wt, ft = self.table("ke", ke, I64), self.table("we", we, F64), self.table("fe", fe, F64)
        loop, slow, tail, edge, done = self.blocks("exp.loop", "exp.slow", "exp.tail", "exp.edge", "exp.done")
        b.branch(loop)
        b.position_at_end(loop)
        ri = b.lshr(self.next64(), i64(3))
        idx = b.and_(ri, i64(0xFF))
        ri = b.lshr(ri, i64(8))
        x = b.fmul(b.uitofp(ri, F64), self.entry(wt, F64, idx))
        b.cbranch(b.icmp_unsigned("<", ri, self.entry(kt, I64, idx)), done, slow)
        b.position_at_end(slow)
        b.cbranch(b.icmp_unsigned("==", idx, i64(0)), tail, edge)
        b.position_at_end(tail)
        from_tail = b.fsub(f64(EXP_R), self.call("log1p", b.fneg(self.next_double())))
        b.branch(done)
        b.position_at_end(edge)
        before = self.entry(ft, F64, b.sub(idx, i64(1)))
        here = self.entry(ft, F64, idx)
        height = b.fadd(b.fmul(b.fsub(before, here), self.next_double()), here)
        b.cbranch(b.fcmp_ordered("<", height, self.call("exp", b.fneg(x))), done, loop)
        b.position_at_end(done)
        out = b.phi(F64)
        out.add_incoming(x, loop)
        out.add_incoming(from_tail, tail)
        out.add_incoming(x, edge)
        return out

    def exponential(self, scale: ll.Value) -> ll.Value:
        return self.b.fmul(scale, self.standard_exponential())

    # -- gamma and what builds on it ---------------------------------------------------------
    def standard_gamma(self, shape: ll.Value) -> ll.Value:
        b = self.b
        one, not_one, zero, not_zero, small, large = self.blocks(
            "gam.one", "gam.not_one", "gam.zero", "gam.not_zero", "gam.small", "gam.large")
        b.cbranch(b.fcmp_ordered("==", shape, f64(1.0)), one, not_one)
        b.position_at_end(not_one)
        b.cbranch(b.fcmp_ordered("==", shape, f64(0.0)), zero, not_zero)
        b.position_at_end(not_zero)
        b.cbranch(b.fcmp_ordered("<", shape, f64(1.0)), small, large)
        return self.joined(F64, [(one, self.standard_exponential), (zero, lambda: f64(0.0)),
                                 (small, lambda: self.gamma_below_one(shape)),
                                 (large, lambda: self.gamma_marsaglia_tsang(shape))])

    def gamma_below_one(self, shape: ll.Value) -> ll.Value:
        b = self.b
        inv = b.fdiv(f64(1.0), shape)
        loop, low, high, done = self.blocks("gam1.loop", "gam1.low", "gam1.high", "gam1.done")
        b.branch(loop)
        b.position_at_end(loop)
        u = self.next_double()
        v = self.standard_exponential()
        b.cbranch(b.fcmp_ordered("<=", u, b.fsub(f64(1.0), shape)), low, high)
        b.position_at_end(low)  # X = pow(U, 1 / shape), kept when X <= V
        x_low = self.pow(u, inv)
        low_end = b.block
        b.cbranch(b.fcmp_ordered("<=", x_low, v), done, loop)
        b.position_at_end(high)  # Y = -log((1 - U) / shape), X = pow(1 - shape + shape * Y, 1 / shape)
        y = b.fneg(self.call("log", b.fdiv(b.fsub(f64(1.0), u), shape)))
        x_high = self.pow(b.fadd(b.fsub(f64(1.0), shape), b.fmul(shape, y)), inv)
        high_end = b.block
        b.cbranch(b.fcmp_ordered("<=", x_high, b.fadd(v, y)), done, loop)
        b.position_at_end(done)
        out = b.phi(F64)
        out.add_incoming(x_low, low_end)
        out.add_incoming(x_high, high_end)
        return out

    def gamma_marsaglia_tsang(self, shape: ll.Value) -> ll.Value:
        b = self.b
        bb = b.fsub(shape, f64(1.0 / 3.0))
        c = b.fdiv(f64(1.0), self.call("llvm.sqrt.f64", b.fmul(f64(9.0), bb)))
        loop, positive, squeeze, done = self.blocks("mt.loop", "mt.positive", "mt.squeeze", "mt.done")
        b.branch(loop)
        b.position_at_end(loop)  # do X = normal, V = 1 + c * X while V <= 0
        x = self.standard_normal()
        v = b.fadd(f64(1.0), b.fmul(c, x))
        b.cbranch(b.fcmp_ordered("<=", v, f64(0.0)), loop, positive)
        b.position_at_end(positive)
        v = b.fmul(b.fmul(v, v), v)
        u = self.next_double()
        xx = b.fmul(x, x)
        value = b.fmul(bb, v)
        squeezed = b.fsub(f64(1.0), b.fmul(b.fmul(f64(0.0331), xx), xx))
        b.cbranch(b.fcmp_ordered("<", u, squeezed), done, squeeze)
        b.position_at_end(squeeze)  # log(U) < 0.5 * X * X + b * (1 - V + log(V))
        right = b.fadd(b.fmul(b.fmul(f64(0.5), x), x),
                       b.fmul(bb, b.fadd(b.fsub(f64(1.0), v), self.call("log", v))))
        b.cbranch(b.fcmp_ordered("<", self.call("log", u), right), done, loop)
        b.position_at_end(done)
        out = b.phi(F64)
        out.add_incoming(value, positive)
        out.add_incoming(value, squeeze)
        return out

    def gamma(self, shape: ll.Value, scale: ll.Value) -> ll.Value:
        return self.b.fmul(scale, self.standard_gamma(shape))

    def chisquare(self, df: ll.Value) -> ll.Value:
        return self.b.fmul(f64(2.0), self.standard_gamma(self.b.fdiv(df, f64(2.0))))

    def beta(self, a: ll.Value, b_: ll.Value) -> ll.Value:
        b = self.b
        johnk, ratio = self.blocks("beta.johnk", "beta.ratio")
        both_small = b.and_(b.fcmp_ordered("<=", a, f64(1.0)), b.fcmp_ordered("<=", b_, f64(1.0)))
        b.cbranch(both_small, johnk, ratio)

        def gammas():
            ga = self.standard_gamma(a)
            gb = self.standard_gamma(b_)
            return self.b.fdiv(ga, self.b.fadd(ga, gb))
        return self.joined(F64, [(johnk, lambda: self.beta_johnk(a, b_)), (ratio, gammas)])

    def beta_johnk(self, a: ll.Value, b_: ll.Value) -> ll.Value:
        """Johnk's method; below 3e-103 both (where X and Y underflow to 0 and their logs
        lose it) NumPy 2 draws 1.0 with probability a / (a + b), else 0.0: U * (a + b) < a
        (found by feeding it chosen words: one word drawn, and that test alone fits)."""
        b = self.b
        tiny, johnk = self.blocks("beta.tiny", "beta.johnk")
        both_tiny = b.and_(b.fcmp_ordered("<", a, f64(3e-103)), b.fcmp_ordered("<", b_, f64(3e-103)))
        b.cbranch(both_tiny, tiny, johnk)

        def bernoulli():
            heads = self.b.fcmp_ordered("<", self.b.fmul(self.next_double(), self.b.fadd(a, b_)), a)
            return self.b.select(heads, f64(1.0), f64(0.0))
        return self.joined(F64, [(tiny, bernoulli), (johnk, lambda: self.johnk(a, b_))])

    def johnk(self, a: ll.Value, b_: ll.Value) -> ll.Value:
        b = self.b
        loop, kept, direct, logs, done = self.blocks("johnk.loop", "johnk.kept", "johnk.direct",
                                                     "johnk.logs", "johnk.done")
        b.branch(loop)
        b.position_at_end(loop)
        u, v = self.next_double(), self.next_double()
        x = self.pow(u, b.fdiv(f64(1.0), a))
        y = self.pow(v, b.fdiv(f64(1.0), b_))
        xpy = b.fadd(x, y)  # kept when X + Y <= 1 and U + V > 0
        b.cbranch(b.and_(b.fcmp_ordered("<=", xpy, f64(1.0)), b.fcmp_ordered(">", b.fadd(u, v), f64(0.0))),
                  kept, loop)
        b.position_at_end(kept)  # X / (X + Y) when both are above 0 (X = 0 < Y: the logs too)
        b.cbranch(b.and_(b.fcmp_ordered(">", x, f64(0.0)), b.fcmp_ordered(">", y, f64(0.0))), direct, logs)
        b.position_at_end(direct)
        from_direct = b.fdiv(x, xpy)
        b.branch(done)
        b.position_at_end(logs)  # in logs, less their maximum (one of them is then 0):
        # exp(logX - log1p(exp(min(logX, logY)))), which fits NumPy 2.4's bits where
        # exp(logX - log(exp(logX) + exp(logY))) missed 42 of 34630 (fed the same words)
        log_x = b.fdiv(self.call("log", u), a)
        log_y = b.fdiv(self.call("log", v), b_)
        log_m = b.select(b.fcmp_ordered(">", log_x, log_y), log_x, log_y)
        log_x, log_y = b.fsub(log_x, log_m), b.fsub(log_y, log_m)
        least = b.select(b.fcmp_ordered("<", log_x, log_y), log_x, log_y)
        from_logs = self.call("exp", b.fsub(log_x, self.call("log1p", self.call("exp", least))))
        b.branch(done)
        b.position_at_end(done)
        out = b.phi(F64)
        out.add_incoming(from_direct, direct)
        out.add_incoming(from_logs, logs)
        return out

    # -- geometric -------------------------------------------------------------------------
    def geometric(self, p: ll.Value) -> ll.Value:
        b = self.b
        search, inversion = self.blocks("geo.search", "geo.inversion")
        b.cbranch(b.fcmp_ordered(">=", p, f64(0.333333333333333333333333)), search, inversion)
        return self.joined(I64, [(search, lambda: self.geometric_search(p)),
                                 (inversion, lambda: self.geometric_inversion(p))])

    def geometric_search(self, p: ll.Value) -> ll.Value:
        b = self.b
        q = b.fsub(f64(1.0), p)
        u = self.next_double()
        start = b.block
        loop, step, done = self.blocks("geos.loop", "geos.step", "geos.done")
        b.branch(loop)
        b.position_at_end(loop)  # while U > sum: prod *= q; sum += prod; X++
        x, total, prod = b.phi(I64), b.phi(F64), b.phi(F64)
        x.add_incoming(i64(1), start)
        total.add_incoming(p, start)
        prod.add_incoming(p, start)
        b.cbranch(b.fcmp_ordered(">", u, total), step, done)
        b.position_at_end(step)
        next_prod = b.fmul(prod, q)
        prod.add_incoming(next_prod, step)
        total.add_incoming(b.fadd(total, next_prod), step)
        x.add_incoming(b.add(x, i64(1)), step)
        b.branch(loop)
        b.position_at_end(done)
        return x

    def geometric_inversion(self, p: ll.Value) -> ll.Value:
        b = self.b
        e = self.standard_exponential()
        z = self.call("llvm.ceil.f64", b.fdiv(b.fneg(e), self.call("log1p", b.fneg(p))))
        big = b.fcmp_ordered(">=", z, f64(9.223372036854776e+18))  # the least double > INT64_MAX
        return b.select(big, i64(INT64_MAX), b.fptosi(b.select(big, f64(0.0), z), I64))

    # -- binomial --------------------------------------------------------------------------
    def binomial(self, n: ll.Value, p: ll.Value) -> ll.Value:
        """NumPy's ``random_binomial``: 0 for n = 0 or p = 0; else inversion or BTPE of
        ``min(p, 1 - p)``, and ``n - X`` when p > 0.5."""
        b = self.b
        trivial, some, low, high = self.blocks("bin.trivial", "bin.some", "bin.low", "bin.high")
        b.cbranch(b.or_(b.icmp_signed("==", n, i64(0)), b.fcmp_ordered("==", p, f64(0.0))), trivial, some)
        b.position_at_end(some)
        b.cbranch(b.fcmp_ordered("<=", p, f64(0.5)), low, high)

        def one_side(r: ll.Value) -> ll.Value:
            inversion, btpe = self.blocks("bin.inversion", "bin.btpe")
            few = self.b.fcmp_ordered("<=", self.b.fmul(r, self.to_f64(n)), f64(30.0))
            self.b.cbranch(few, inversion, btpe)
            return self.joined(I64, [(inversion, lambda: self.binomial_inversion(n, r)),
                                     (btpe, lambda: self.binomial_btpe(n, r))])

        def upper() -> ll.Value:
            return self.b.sub(n, one_side(self.b.fsub(f64(1.0), p)))
        return self.joined(I64, [(trivial, lambda: i64(0)), (low, lambda: one_side(p)), (high, upper)])

    def binomial_inversion(self, n: ll.Value, p: ll.Value) -> ll.Value:
        b = self.b
        nf = self.to_f64(n)
        q = b.fsub(f64(1.0), p)
        qn = self.call("exp", b.fmul(nf, self.call("log", q)))
        np_ = b.fmul(nf, p)
        cap = b.fadd(np_, b.fmul(f64(10.0), self.call("llvm.sqrt.f64", b.fadd(b.fmul(np_, q), f64(1.0)))))
        bound = self.floor_i64(b.select(b.fcmp_ordered("<", nf, cap), nf, cap))  # (int64_t)MIN(n, ...)
        x, px, u = self.local(I64, i64(0)), self.local(F64, qn), self.local(F64, self.next_double())
        names = ("loop", "step", "restart", "walk", "done")
        loop, step, restart, walk, done = self.blocks(*(f"inv.{x}" for x in names))
        b.branch(loop)
        b.position_at_end(loop)  # while U > px
        b.cbranch(b.fcmp_ordered(">", self.get(u), self.get(px)), step, done)
        b.position_at_end(step)
        k = b.add(self.get(x, I64), i64(1))
        b.store(k, x)
        b.cbranch(b.icmp_signed(">", k, bound), restart, walk)
        b.position_at_end(restart)
        b.store(i64(0), x)
        b.store(qn, px)
        b.store(self.next_double(), u)
        b.branch(loop)
        b.position_at_end(walk)  # U -= px; px = ((n - X + 1) * p * px) / (X * q)
        b.store(b.fsub(self.get(u), self.get(px)), u)
        top = b.fmul(b.fmul(self.to_f64(b.add(b.sub(n, k), i64(1))), p), self.get(px))
        b.store(b.fdiv(top, b.fmul(self.to_f64(k), q)), px)
        b.branch(loop)
        b.position_at_end(done)
        return self.get(x, I64)

    def binomial_btpe(self, n: ll.Value, p: ll.Value) -> ll.Value:
        """Kachitvichyanukul and Schmeiser's BTPE, as NumPy's ``random_binomial_btpe``
        (p <= 0.5 here: its final ``n - y`` for p > 0.5 never runs)."""
        b = self.b
        nf = self.to_f64(n)
        # setup
        r = b.select(b.fcmp_ordered("<", p, b.fsub(f64(1.0), p)), p, b.fsub(f64(1.0), p))  # MIN(p, 1 - p)
        q = b.fsub(f64(1.0), r)
        fm = b.fadd(b.fmul(nf, r), r)
        m = self.floor_i64(fm)
        mf = self.to_f64(m)
        spread = b.fmul(f64(2.195), self.call("llvm.sqrt.f64", b.fmul(b.fmul(nf, r), q)))
        p1 = b.fadd(self.call("llvm.floor.f64", b.fsub(spread, b.fmul(f64(4.6), q))), f64(0.5))
        xm = b.fadd(mf, f64(0.5))
        xl, xr = b.fsub(xm, p1), b.fadd(xm, p1)
        c = b.fadd(f64(0.134), b.fdiv(f64(20.5), b.fadd(f64(15.3), mf)))
        a = b.fdiv(b.fsub(fm, xl), b.fsub(fm, b.fmul(xl, r)))
        laml = b.fmul(a, b.fadd(f64(1.0), b.fdiv(a, f64(2.0))))
        a = b.fdiv(b.fsub(xr, fm), b.fmul(xr, q))
        lamr = b.fmul(a, b.fadd(f64(1.0), b.fdiv(a, f64(2.0))))
        p2 = b.fmul(p1, b.fadd(f64(1.0), b.fmul(f64(2.0), c)))
        p3 = b.fadd(p2, b.fdiv(c, laml))
        p4 = b.fadd(p3, b.fdiv(c, lamr))
        nrq = b.fmul(b.fmul(nf, r), q)
        y, v, u = self.local(I64, i64(0)), self.local(F64, f64(0.0)), self.local(F64, f64(0.0))
        names = ("s10", "s20", "s20b", "s30", "s30b", "s40", "s50", "s50up", "s50down", "s50test", "s52",
                 "s52b", "s52c", "s60")
        s10, s20, s20b, s30, s30b, s40, s50, s50up, s50down, s50test, s52, s52b, s52c, s60 = self.blocks(
            *(f"btpe.{x}" for x in names))
        b.branch(s10)

        b.position_at_end(s10)
        b.store(b.fmul(self.next_double(), p4), u)
        b.store(self.next_double(), v)
        with_u = b.fcmp_ordered(">", self.get(u), p1)
        triangle = self.floor_i64(b.fadd(b.fsub(xm, b.fmul(p1, self.get(v))), self.get(u)))
        b.store(triangle, y)  # (a y not kept when U > p1: Step 20 on sets it again)
        b.cbranch(with_u, s20, s60)

        b.position_at_end(s20)
        b.cbranch(b.fcmp_ordered(">", self.get(u), p2), s30, s20b)
        b.position_at_end(s20b)  # the parallelograms
        x = b.fadd(xl, b.fdiv(b.fsub(self.get(u), p1), c))
        vv = b.fsub(b.fadd(b.fmul(self.get(v), c), f64(1.0)),
                    b.fdiv(self.call("llvm.fabs.f64", b.fadd(b.fsub(mf, x), f64(0.5))), p1))
        b.store(vv, v)
        b.store(self.floor_i64(x), y)
        b.cbranch(b.fcmp_ordered(">", vv, f64(1.0)), s10, s50)

        b.position_at_end(s30)
        b.cbranch(b.fcmp_ordered(">", self.get(u), p3), s40, s30b)
        b.position_at_end(s30b)  # the left tail
        vv = self.get(v)
        yy = self.floor_i64(b.fadd(xl, b.fdiv(self.call("log", vv), laml)))
        b.store(yy, y)
        b.store(b.fmul(b.fmul(vv, b.fsub(self.get(u), p2)), laml), v)
        b.cbranch(b.or_(b.icmp_signed("<", yy, i64(0)), b.fcmp_ordered("==", vv, f64(0.0))), s10, s50)

        b.position_at_end(s40)  # the right tail
        vv = self.get(v)
        yy = self.floor_i64(b.fsub(xr, b.fdiv(self.call("log", vv), lamr)))
        b.store(yy, y)
        b.store(b.fmul(b.fmul(vv, b.fsub(self.get(u), p3)), lamr), v)
        b.cbranch(b.or_(b.icmp_signed(">", yy, n), b.fcmp_ordered("==", vv, f64(0.0))), s10, s50)

        b.position_at_end(s50)  # k = |y - m|: the recursive F, or Step 52's squeeze
        yy = self.get(y, I64)
        diff = b.sub(yy, m)
        k = b.select(b.icmp_signed("<", diff, i64(0)), b.sub(i64(0), diff), diff)
        far = b.and_(b.icmp_signed(">", k, i64(20)),
                     b.fcmp_ordered("<", self.to_f64(k), b.fsub(b.fdiv(nrq, f64(2.0)), f64(1.0))))
        b.cbranch(far, s52, s50up)
        b.position_at_end(s50up)
        s = b.fdiv(r, q)
        aa = b.fmul(s, self.to_f64(b.add(n, i64(1))))
        f = self.local(F64, f64(1.0))
        i = self.local(I64, i64(0))
        up_loop, up_body, down_loop, down_body = self.blocks("btpe.uploop", "btpe.upbody", "btpe.downloop",
                                                             "btpe.downbody")
        rising, falling = b.icmp_signed("<", m, yy), b.icmp_signed(">", m, yy)
        b.store(b.select(rising, b.add(m, i64(1)), b.add(yy, i64(1))), i)
        b.cbranch(rising, up_loop, s50down)
        b.position_at_end(up_loop)  # for i = m + 1 .. y: F *= a / i - s
        b.cbranch(b.icmp_signed("<=", self.get(i, I64), yy), up_body, s50test)
        b.position_at_end(up_body)
        b.store(b.fmul(self.get(f), b.fsub(b.fdiv(aa, self.to_f64(self.get(i, I64))), s)), f)
        b.store(b.add(self.get(i, I64), i64(1)), i)
        b.branch(up_loop)
        b.position_at_end(s50down)
        b.cbranch(falling, down_loop, s50test)
        b.position_at_end(down_loop)  # for i = y + 1 .. m: F /= a / i - s
        b.cbranch(b.icmp_signed("<=", self.get(i, I64), m), down_body, s50test)
        b.position_at_end(down_body)
        b.store(b.fdiv(self.get(f), b.fsub(b.fdiv(aa, self.to_f64(self.get(i, I64))), s)), f)
        b.store(b.add(self.get(i, I64), i64(1)), i)
        b.branch(down_loop)
        b.position_at_end(s50test)
        b.cbranch(b.fcmp_ordered(">", self.get(v), self.get(f)), s10, s60)

        b.position_at_end(s52)  # squeezing with log(v)
        kf = self.to_f64(k)
        cubic = b.fadd(b.fmul(kf, b.fadd(b.fdiv(kf, f64(3.0)), f64(0.625))), f64(0.16666666666666666))
        rho = b.fmul(b.fdiv(kf, nrq), b.fadd(b.fdiv(cubic, nrq), f64(0.5)))
        t = b.fdiv(self.to_f64(b.mul(b.sub(i64(0), k), k)), b.fmul(f64(2.0), nrq))  # -k * k in int64
        big_a = self.call("log", self.get(v))
        b.cbranch(b.fcmp_ordered("<", big_a, b.fsub(t, rho)), s60, s52b)
        b.position_at_end(s52b)
        b.cbranch(b.fcmp_ordered(">", big_a, b.fadd(t, rho)), s10, s52c)
        b.position_at_end(s52c)  # Stirling's formula to machine accuracy
        x1 = self.to_f64(b.add(yy, i64(1)))
        f1 = self.to_f64(b.add(m, i64(1)))
        z = self.to_f64(b.sub(b.add(n, i64(1)), m))
        w = self.to_f64(b.add(b.sub(n, yy), i64(1)))
        bound = b.fmul(xm, self.call("log", b.fdiv(f1, x1)))
        middle = b.fadd(self.to_f64(b.sub(n, m)), f64(0.5))
        bound = b.fadd(bound, b.fmul(middle, self.call("log", b.fdiv(z, w))))
        bound = b.fadd(bound, b.fmul(self.to_f64(b.sub(yy, m)),
                                     self.call("log", b.fdiv(b.fmul(w, r), b.fmul(x1, q)))))
        for term in (f1, x1, z, w):
            bound = b.fadd(bound, self.stirling(term))
        b.cbranch(b.fcmp_ordered(">", big_a, bound), s10, s60)

        b.position_at_end(s60)
        return self.get(y, I64)

    def stirling(self, t: ll.Value) -> ll.Value:
        """(13680. - (462. - (132. - (99. - 140. / t2) / t2) / t2) / t2) / t / 166320."""
        b = self.b
        t2 = b.fmul(t, t)
        inner = b.fsub(f64(99.0), b.fdiv(f64(140.0), t2))
        inner = b.fsub(f64(132.0), b.fdiv(inner, t2))
        inner = b.fsub(f64(462.0), b.fdiv(inner, t2))
        inner = b.fsub(f64(13680.0), b.fdiv(inner, t2))
        return b.fdiv(b.fdiv(inner, t), f64(166320.0))
