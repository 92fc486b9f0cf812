"""NumPy's PCG64 bit generator and some of ``Generator``'s samplers, in LLVM IR, bit for bit
NumPy's: a draw made as the compiled code runs (``array.callback`` with a ``native`` sampler)
advances a copy of the generator's state in a buffer instead of calling back into Python.

The state buffer is eight uint64 words that the caller fills before the call and writes back
after it (``jitcore.native_draws``): the 128-bit LCG state (low word, high word), its
increment (low, high), ``has_uint32`` and ``uinteger`` (carried, unused: these samplers draw
64 bits at a time), the buffer's ``MODE`` and a ``REQUEST`` word for the callback. PCG64 steps
``state = state * MULTIPLIER + inc`` (mod 2**128) and then outputs XSL-RR of the new state.

The samplers follow NumPy's C code (``numpy/random/src/distributions``) operation for
operation, in the same order, with no fast-math and no contraction into FMA (NumPy's wheels
for x86-64 do not contract either): ``next_double`` is the top 53 bits times 2**-53;
``poisson`` is the multiplication method below lam 10 and Hoermann's PTRS at or above it, with
``random_loggam``. ``log``, ``log1p`` and ``exp`` are the C library's (NumPy's calls them; jitcore's own
math library differs in the last bit now and then, which would change a rejection's outcome);
``sqrt``, ``floor`` and ``fabs`` are exact everywhere. The normal and exponential ziggurats are
not here: their tables could not be recomputed bit for bit (see docs/numpy_support.md).
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.llvm_types import I64, PTR
from jitcore.codegen.pcg64_derived import DerivedSamplers
from jitcore.codegen.pcg64_draws import MoreSamplers
from jitcore.codegen.pcg64_shuffles import SHUFFLES, ShuffleSamplers

I128 = ll.IntType(128)
F64 = ll.DoubleType()
F32 = ll.FloatType()
MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645  # PCG's default 128-bit multiplier

# Words of the state buffer.
MODE, REQUEST = 6, 7
# MODE: what the buffer holds against the generator object.
CLEAN = 0  # the same state
AHEAD = 1  # native draws advanced the buffer: the generator takes it after the call
BEHIND = 2  # a callback drew from the generator after the buffer was filled: reload first
OFF = 3  # not a PCG64 (or one shared by two places): every draw calls back

# sampler -> (its parameters' LLVM types, the result's)
SAMPLERS = {"random": ((), F64), "uniform": ((F64, F64), F64), "poisson": ((F64,), I64),
            "integers": ((I64, I64), I64), "laplace": ((F64, F64), F64), "gumbel": ((F64, F64), F64),
            "logistic": ((F64, F64), F64), "standard_normal": ((), F64), "normal": ((F64, F64), F64),
            "standard_exponential": ((), F64), "exponential": ((F64,), F64), "standard_gamma": ((F64,), F64),
            "gamma": ((F64, F64), F64), "chisquare": ((F64,), F64), "beta": ((F64, F64), F64),
            "binomial": ((I64, F64), I64), "geometric": ((F64,), I64), "random_float32": ((), F32),
            "lognormal": ((F64, F64), F64), "pareto": ((F64,), F64), "weibull": ((F64,), F64),
            "power": ((F64,), F64), "rayleigh": ((F64,), F64), "standard_cauchy": ((), F64),
            "standard_t": ((F64,), F64), "f": ((F64, F64), F64), "wald": ((F64, F64), F64),
            "triangular": ((F64, F64, F64), F64), "negative_binomial": ((F64, F64), I64),
            "noncentral_chisquare": ((F64, F64), F64), "noncentral_f": ((F64, F64, F64), F64),
            "logseries": ((F64,), I64), "zipf": ((F64,), I64),
            "integers_bounded": ((I64, I64, I64, I64, I64), I64), **SHUFFLES}
# NumPy's normal ziggurat tables (ki, wi, fi), which jitcore.ziggurat reads back from NumPy and
# sets here before it compiles a native normal draw.
ZIGGURAT = None
_NOR_R, _NOR_INV_R = 3.6541528853610087963519472518, 0.27366123732975827203338247596
I32 = ll.IntType(32)
U32_MAX, U64_MAX = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF
_LOGGAM = (8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
           -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
           6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
           -1.39243221690590e+00)
_HALF_LOG_2PI = 0.9189385332046727  # 0.5 * log(2 * pi), as C's log rounds it


def f64(x: float) -> ll.Constant:
    return ll.Constant(F64, x)


def _libm(module: ll.Module, name: str) -> ll.Function:
    fn = module.globals.get(name)
    return fn if fn is not None else ll.Function(module, ll.FunctionType(F64, [F64]), name)


def _intrinsic(module: ll.Module, name: str) -> ll.Function:
    return module.declare_intrinsic(name, [F64])


class _Sampler(MoreSamplers, DerivedSamplers, ShuffleSamplers):
    """Builds one fill function: ``void fill(i64* state, double params..., out*, i64 n)``."""

    def __init__(self, module: ll.Module, method: str, arrays: tuple[bool, ...] = ()):
        types, self.out_type = SAMPLERS[method]
        self.types, self.arrays = types, arrays or (False,) * len(types)
        taken = [PTR if a else t for t, a in zip(types, self.arrays)]
        fnty = ll.FunctionType(ll.VoidType(), [PTR, *taken, PTR, I64])
        self.fn = ll.Function(module, fnty, _fill_name(method, self.arrays))
        self.fn.linkage = "internal"
        self.module = module
        self.b = ll.IRBuilder(self.fn.append_basic_block("entry"))

    def word(self, k: int) -> ll.Value:
        return self.b.gep(self.fn.args[0], [ll.Constant(I64, k)], source_etype=I64)

    def load128(self, k: int) -> ll.Value:
        b = self.b
        lo = b.zext(b.load(self.word(k), typ=I64), I128)
        hi = b.zext(b.load(self.word(k + 1), typ=I64), I128)
        return b.or_(b.shl(hi, ll.Constant(I128, 64)), lo)

    def build(self, method: str) -> ll.Function:
        b = self.b
        self.state = b.alloca(I128)  # promoted to a register: stored back once, at the end
        b.store(self.load128(0), self.state)
        self.inc = self.load128(2)
        self.has32, self.uint32 = b.alloca(I64), b.alloca(I64)  # has_uint32, uinteger
        b.store(b.load(self.word(4), typ=I64), self.has32)
        b.store(b.load(self.word(5), typ=I64), self.uint32)
        params = self.fn.args[1:-2]
        out, n = self.fn.args[-2], self.fn.args[-1]
        if method in SHUFFLES:  # the whole result at once (codegen/pcg64_shuffles.py)
            getattr(self, method)(params, out, n)
            return self.finish()
        head, body, done = (self.fn.append_basic_block(x) for x in ("head", "body", "done"))
        start = b.block
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(I64)
        i.add_incoming(ll.Constant(I64, 0), start)
        b.cbranch(b.icmp_signed("<", i, n), body, done)
        b.position_at_end(body)  # an array parameter (broadcast to the result): its i-th element
        params = [b.load(b.gep(p, [i], source_etype=t), typ=t) if a else p
                  for p, t, a in zip(params, self.types, self.arrays)]
        value = getattr(self, method)(*params)
        b.store(value, b.gep(out, [i], source_etype=self.out_type))
        i.add_incoming(b.add(i, ll.Constant(I64, 1)), b.block)
        b.branch(head)
        b.position_at_end(done)
        return self.finish()

    def finish(self) -> ll.Function:
        """The state (and the kept 32-bit half) stored back into the buffer."""
        b = self.b
        s = b.load(self.state, typ=I128)
        b.store(b.trunc(s, I64), self.word(0))
        b.store(b.trunc(b.lshr(s, ll.Constant(I128, 64)), I64), self.word(1))
        b.store(b.load(self.has32, typ=I64), self.word(4))
        b.store(b.load(self.uint32, typ=I64), self.word(5))
        b.ret_void()
        return self.fn

    # -- the bit generator ------------------------------------------------------------------
    def next64(self) -> ll.Value:
        b = self.b
        s = b.add(b.mul(b.load(self.state, typ=I128), ll.Constant(I128, MULTIPLIER)), self.inc)
        b.store(s, self.state)
        hi = b.trunc(b.lshr(s, ll.Constant(I128, 64)), I64)
        xored = b.xor(hi, b.trunc(s, I64))
        rot = b.lshr(hi, ll.Constant(I64, 58))
        left = b.and_(b.sub(ll.Constant(I64, 0), rot), ll.Constant(I64, 63))
        return b.or_(b.lshr(xored, rot), b.shl(xored, left))

    def next32(self) -> ll.Value:
        """NumPy's PCG64 ``next_uint32``: the high half of the last 64 bits when one is kept."""
        b = self.b
        kept = b.icmp_unsigned("!=", b.load(self.has32, typ=I64), ll.Constant(I64, 0))
        with b.if_else(kept) as (then, otherwise):
            with then:
                b.store(ll.Constant(I64, 0), self.has32)
                from_kept = b.trunc(b.load(self.uint32, typ=I64), I32)
                kept_end = b.block
            with otherwise:
                n = self.next64()
                b.store(ll.Constant(I64, 1), self.has32)
                b.store(b.lshr(n, ll.Constant(I64, 32)), self.uint32)
                fresh = b.trunc(n, I32)
                fresh_end = b.block
        out = b.phi(I32)
        out.add_incoming(from_kept, kept_end)
        out.add_incoming(fresh, fresh_end)
        return out

    def next_double(self) -> ll.Value:
        b = self.b
        top = b.lshr(self.next64(), ll.Constant(I64, 11))
        return b.fmul(b.uitofp(top, F64), f64(1.0 / 9007199254740992.0))

    def call(self, name: str, x: ll.Value) -> ll.Value:
        fn = _intrinsic(self.module, name) if name.startswith("llvm.") else _libm(self.module, name)
        return self.b.call(fn, [x])

    # -- samplers: NumPy's, statement for statement ------------------------------------------
    def random(self) -> ll.Value:
        return self.next_double()

    def random_float32(self) -> ll.Value:
        """NumPy's ``next_float``: the top 24 bits of a 32-bit draw times 2**-24."""
        b = self.b
        top = b.lshr(self.next32(), ll.Constant(I32, 8))
        return b.fmul(b.uitofp(top, F32), ll.Constant(F32, 1.0 / 16777216.0))

    def uniform(self, low: ll.Value, high: ll.Value) -> ll.Value:
        b = self.b  # random_uniform(low, range): low + range * next_double
        return b.fadd(low, b.fmul(b.fsub(high, low), self.next_double()))

    def table(self, name: str, values, etype: ll.Type) -> ll.GlobalVariable:
        known = self.module.globals.get(f"jitcore_zig_{name}")
        if known is not None:
            return known
        array_type = ll.ArrayType(etype, 256)
        g = ll.GlobalVariable(self.module, array_type, f"jitcore_zig_{name}")
        g.initializer = ll.Constant(array_type, [ll.Constant(etype, int(v) if etype is I64 else float(v))
                                                 for v in values])
        g.global_constant, g.linkage = True, "internal"
        return g

    def entry(self, table: ll.GlobalVariable, etype: ll.Type, index: ll.Value) -> ll.Value:
        at = self.b.gep(table, [ll.Constant(I64, 0), index], source_etype=table.value_type)
        return self.b.load(at, typ=etype)

    def standard_normal(self) -> ll.Value:
        """NumPy's ``random_standard_normal``: the 256-layer ziggurat on 64-bit draws."""
        b = self.b
        ki, wi, fi = ZIGGURAT
        kt, wt, ft = self.table("ki", ki, I64), self.table("wi", wi, F64), self.table("fi", fi, F64)
        names = ("nor.loop", "nor.slow", "nor.tail", "nor.edge", "nor.done")
        loop, slow, tail, edge, done = (self.fn.append_basic_block(n) for n in names)
        b.branch(loop)
        b.position_at_end(loop)
        r = self.next64()
        idx = b.and_(r, ll.Constant(I64, 0xFF))
        r = b.lshr(r, ll.Constant(I64, 8))
        negative = b.icmp_unsigned("!=", b.and_(r, ll.Constant(I64, 1)), ll.Constant(I64, 0))
        rabs = b.and_(b.lshr(r, ll.Constant(I64, 1)), ll.Constant(I64, 0x000FFFFFFFFFFFFF))
        x = b.fmul(b.uitofp(rabs, F64), self.entry(wt, F64, idx))
        x = b.select(negative, b.fneg(x), x)
        b.cbranch(b.icmp_unsigned("<", rabs, self.entry(kt, I64, idx)), done, slow)
        b.position_at_end(slow)
        b.cbranch(b.icmp_unsigned("==", idx, ll.Constant(I64, 0)), tail, edge)
        b.position_at_end(tail)  # the tail beyond r, until yy + yy > xx * xx
        # (NumPy 2.4's C: log1p(-U), where older sources read log(1.0 - U))
        xx = b.fmul(f64(-_NOR_INV_R), self.call("log1p", b.fneg(self.next_double())))
        yy = b.fneg(self.call("log1p", b.fneg(self.next_double())))
        odd = b.icmp_unsigned("!=", b.and_(b.lshr(rabs, ll.Constant(I64, 8)), ll.Constant(I64, 1)),
                              ll.Constant(I64, 0))
        beyond = b.fadd(f64(_NOR_R), xx)
        from_tail = b.select(odd, b.fneg(beyond), beyond)
        b.cbranch(b.fcmp_ordered(">", b.fadd(yy, yy), b.fmul(xx, xx)), done, tail)
        b.position_at_end(edge)
        before = self.entry(ft, F64, b.sub(idx, ll.Constant(I64, 1)))
        here = self.entry(ft, F64, idx)
        height = b.fadd(b.fmul(b.fsub(before, here), self.next_double()), here)
        curve = self.call("exp", b.fmul(b.fmul(f64(-0.5), x), x))
        b.cbranch(b.fcmp_ordered("<", height, curve), done, loop)
        b.position_at_end(done)
        out = b.phi(F64)
        out.add_incoming(x, loop)
        out.add_incoming(from_tail, tail)
        out.add_incoming(x, edge)
        return out

    def normal(self, loc: ll.Value, scale: ll.Value) -> ll.Value:
        return self.b.fadd(loc, self.b.fmul(scale, self.standard_normal()))

    def until(self, attempt) -> ll.Value:
        """``attempt()`` -> (accepted, value), made again until accepted (NumPy's recursion
        on a rejected uniform)."""
        b = self.b
        loop, done = self.fn.append_basic_block("until.loop"), self.fn.append_basic_block("until.done")
        b.branch(loop)
        b.position_at_end(loop)
        accepted, value = attempt()
        b.cbranch(accepted, done, loop)
        b.position_at_end(done)
        return value

    def laplace(self, loc: ll.Value, scale: ll.Value) -> ll.Value:
        b = self.b

        def attempt():  # U >= 0.5: loc - scale * log(2 - U - U); U > 0: loc + scale * log(U + U)
            u = self.next_double()
            upper = b.fsub(loc, b.fmul(scale, self.call("log", b.fsub(b.fsub(f64(2.0), u), u))))
            lower = b.fadd(loc, b.fmul(scale, self.call("log", b.fadd(u, u))))
            return b.fcmp_ordered(">", u, f64(0.0)), b.select(b.fcmp_ordered(">=", u, f64(0.5)), upper, lower)
        return self.until(attempt)

    def gumbel(self, loc: ll.Value, scale: ll.Value) -> ll.Value:
        b = self.b

        def attempt():  # U = 1 - next_double, U < 1: loc - scale * log(-log(U))
            u = b.fsub(f64(1.0), self.next_double())
            value = b.fsub(loc, b.fmul(scale, self.call("log", b.fsub(f64(-0.0), self.call("log", u)))))
            return b.fcmp_ordered("<", u, f64(1.0)), value
        return self.until(attempt)

    def logistic(self, loc: ll.Value, scale: ll.Value) -> ll.Value:
        b = self.b

        def attempt():  # U > 0: loc + scale * log(U / (1 - U))
            u = self.next_double()
            value = b.fadd(loc, b.fmul(scale, self.call("log", b.fdiv(u, b.fsub(f64(1.0), u)))))
            return b.fcmp_ordered(">", u, f64(0.0)), value
        return self.until(attempt)

    def integers(self, low: ll.Value, high: ll.Value) -> ll.Value:
        """``integers(low, high)`` of int64: NumPy's ``random_bounded_uint64_fill`` with
        ``off = low``, ``rng = high - 1 - low`` (unsigned), Lemire's method (not masked)."""
        return self.bounded_from(low, self.b.sub(self.b.sub(high, ll.Constant(I64, 1)), low))

    def integers_bounded(self, low: ll.Value, high: ll.Value, closed: ll.Value, least, greatest) -> ll.Value:
        """``integers(low, high, dtype=..., endpoint=...)`` (int32, uint32, uint64 or
        ``endpoint=True``): ``rng = high - low``, less 1 unless ``closed``; NumPy's 32-bit fill
        draws as its 64-bit one does below 2**32, so the values are these, converted."""
        b = self.b
        top = b.sub(high, low)
        shut = b.icmp_unsigned("!=", closed, ll.Constant(I64, 0))
        rng = b.select(shut, top, b.sub(top, ll.Constant(I64, 1)))
        return self.bounded_from(low, rng)

    def bounded_from(self, off: ll.Value, rng: ll.Value) -> ll.Value:
        """``off`` plus a draw in ``[0, rng]`` (``rng`` unsigned), as NumPy's bounded fill."""
        b = self.b
        names = ("int.zero", "int.nonzero", "int.small", "int.large", "int.all32", "int.lemire32",
                 "int.all64", "int.lemire64", "int.done")
        zero, nonzero, small, large, all32, lemire32, all64, lemire64, done = (
            self.fn.append_basic_block(n) for n in names)
        b.cbranch(b.icmp_unsigned("==", rng, ll.Constant(I64, 0)), zero, nonzero)
        b.position_at_end(nonzero)
        b.cbranch(b.icmp_unsigned("<=", rng, ll.Constant(I64, U32_MAX)), small, large)
        b.position_at_end(small)
        b.cbranch(b.icmp_unsigned("==", rng, ll.Constant(I64, U32_MAX)), all32, lemire32)
        results = [(off, zero)]
        b.position_at_end(zero)
        b.branch(done)
        b.position_at_end(all32)
        results.append((b.add(off, b.zext(self.next32(), I64)), b.block))
        b.branch(done)
        b.position_at_end(lemire32)
        results.append((b.add(off, self.lemire(b.trunc(rng, I32), I32, self.next32)), b.block))
        b.branch(done)
        b.position_at_end(large)
        b.cbranch(b.icmp_unsigned("==", rng, ll.Constant(I64, U64_MAX)), all64, lemire64)
        b.position_at_end(all64)
        results.append((b.add(off, self.next64()), b.block))
        b.branch(done)
        b.position_at_end(lemire64)
        results.append((b.add(off, self.lemire(rng, I64, self.next64)), b.block))
        b.branch(done)
        b.position_at_end(done)
        out = b.phi(I64)
        for value, block in results:
            out.add_incoming(value, block)
        return out

    def lemire(self, rng: ll.Value, word: ll.IntType, draw) -> ll.Value:
        """Lemire's bounded draw in [0, rng] of ``word`` bits (rng below the word's maximum),
        as NumPy's ``bounded_lemire_uint64`` / ``buffered_bounded_lemire_uint32``; zero-extended
        to i64."""
        b = self.b
        wide = ll.IntType(2 * word.width)
        excl = b.add(rng, ll.Constant(word, 1))

        def scaled():
            return b.mul(b.zext(draw(), wide), b.zext(excl, wide))

        m0 = scaled()
        first = b.block
        names = ("lemire.slow", "lemire.check", "lemire.again", "lemire.done")
        slow, check, again, done = (self.fn.append_basic_block(n) for n in names)
        b.cbranch(b.icmp_unsigned("<", b.trunc(m0, word), excl), slow, done)
        b.position_at_end(slow)  # excl > 0 here: the remainder is defined
        threshold = b.urem(b.sub(ll.Constant(word, (1 << word.width) - 1), rng), excl)
        b.branch(check)
        b.position_at_end(check)
        m = b.phi(wide)
        m.add_incoming(m0, slow)
        b.cbranch(b.icmp_unsigned("<", b.trunc(m, word), threshold), again, done)
        b.position_at_end(again)
        m.add_incoming(scaled(), b.block)
        b.branch(check)
        b.position_at_end(done)
        out = b.phi(wide)
        out.add_incoming(m0, first)
        out.add_incoming(m, check)
        high = b.trunc(b.lshr(out, ll.Constant(wide, word.width)), word)
        return high if word.width == 64 else b.zext(high, I64)

    def poisson(self, lam: ll.Value) -> ll.Value:
        b = self.b
        blocks = [self.fn.append_basic_block(x) for x in ("ptrs", "small", "mult", "zero", "joined")]
        ptrs, small, mult, zero, joined = blocks
        b.cbranch(b.fcmp_ordered(">=", lam, f64(10.0)), ptrs, small)
        b.position_at_end(small)
        b.cbranch(b.fcmp_ordered("==", lam, f64(0.0)), zero, mult)
        b.position_at_end(zero)
        b.branch(joined)
        b.position_at_end(mult)
        from_mult = self.poisson_mult(lam)
        mult_end = b.block
        b.branch(joined)
        b.position_at_end(ptrs)
        from_ptrs = self.poisson_ptrs(lam)
        ptrs_end = b.block
        b.branch(joined)
        b.position_at_end(joined)
        k = b.phi(I64)
        k.add_incoming(ll.Constant(I64, 0), zero)
        k.add_incoming(from_mult, mult_end)
        k.add_incoming(from_ptrs, ptrs_end)
        return k

    def poisson_mult(self, lam: ll.Value) -> ll.Value:
        b = self.b
        enlam = self.call("exp", b.fsub(f64(-0.0), lam))  # exp(-lam)
        entry = b.block
        loop, done = self.fn.append_basic_block("mult.loop"), self.fn.append_basic_block("mult.done")
        b.branch(loop)
        b.position_at_end(loop)
        x, prod = b.phi(I64), b.phi(F64)
        x.add_incoming(ll.Constant(I64, 0), entry)
        prod.add_incoming(f64(1.0), entry)
        product = b.fmul(prod, self.next_double())
        more = b.fcmp_ordered(">", product, enlam)
        x.add_incoming(b.add(x, ll.Constant(I64, 1)), loop)
        prod.add_incoming(product, loop)
        b.cbranch(more, loop, done)
        b.position_at_end(done)
        return x

    def poisson_ptrs(self, lam: ll.Value) -> ll.Value:
        b = self.b
        slam = self.call("llvm.sqrt.f64", lam)
        loglam = self.call("log", lam)
        bb = b.fadd(f64(0.931), b.fmul(f64(2.53), slam))
        a = b.fadd(f64(-0.059), b.fmul(f64(0.02483), bb))
        invalpha = b.fadd(f64(1.1239), b.fdiv(f64(1.1328), b.fsub(bb, f64(3.4))))
        vr = b.fsub(f64(0.9277), b.fdiv(f64(3.6224), b.fsub(bb, f64(2.0))))
        names = ("ptrs.loop", "ptrs.quick", "ptrs.check", "ptrs.test", "ptrs.done")
        loop, quick, check, test, done = (self.fn.append_basic_block(x) for x in names)
        b.branch(loop)
        b.position_at_end(loop)
        u = b.fsub(self.next_double(), f64(0.5))
        v = self.next_double()
        us = b.fsub(f64(0.5), self.call("llvm.fabs.f64", u))
        # k = (int64) floor((2 * a / us + b) * U + lam + 0.43)
        inner = b.fadd(b.fdiv(b.fmul(f64(2.0), a), us), bb)
        k = b.fptosi(self.call("llvm.floor.f64", b.fadd(b.fadd(b.fmul(inner, u), lam), f64(0.43))), I64)
        b.cbranch(b.and_(b.fcmp_ordered(">=", us, f64(0.07)), b.fcmp_ordered("<=", v, vr)), done, quick)
        quick_from = b.block
        b.position_at_end(quick)  # (k < 0) || (us < 0.013 && V > us): draw again
        rejected = b.or_(b.icmp_signed("<", k, ll.Constant(I64, 0)),
                         b.and_(b.fcmp_ordered("<", us, f64(0.013)), b.fcmp_ordered(">", v, us)))
        b.cbranch(rejected, loop, check)
        b.position_at_end(check)
        left = b.fsub(b.fadd(self.call("log", v), self.call("log", invalpha)),
                      self.call("log", b.fadd(b.fdiv(a, b.fmul(us, us)), bb)))
        kf = b.sitofp(k, F64)
        right = b.fsub(b.fadd(b.fsub(f64(-0.0), lam), b.fmul(kf, loglam)),
                       self.loggam(b.sitofp(b.add(k, ll.Constant(I64, 1)), F64)))
        b.branch(test)
        b.position_at_end(test)
        b.cbranch(b.fcmp_ordered("<=", left, right), done, loop)
        b.position_at_end(done)
        out = b.phi(I64)
        out.add_incoming(k, quick_from)
        out.add_incoming(k, test)
        return out

    def loggam(self, x: ll.Value) -> ll.Value:
        """NumPy's ``random_loggam(x)`` for x >= 1."""
        b = self.b
        names = ("loggam.trivial", "loggam.series", "loggam.down", "loggam.done")
        trivial, series, down, done = (self.fn.append_basic_block(n) for n in names)
        one_or_two = b.or_(b.fcmp_ordered("==", x, f64(1.0)), b.fcmp_ordered("==", x, f64(2.0)))
        b.cbranch(one_or_two, trivial, series)
        b.position_at_end(series)
        small = b.fcmp_ordered("<=", x, f64(7.0))
        n = b.select(small, b.fptosi(b.fsub(f64(7.0), x), I64), ll.Constant(I64, 0))
        x0 = b.select(small, b.fadd(x, b.sitofp(n, F64)), x)
        x2 = b.fdiv(f64(1.0), b.fmul(x0, x0))
        gl0 = f64(_LOGGAM[9])
        for c in reversed(_LOGGAM[:9]):
            gl0 = b.fadd(b.fmul(gl0, x2), f64(c))
        gl = b.fsub(b.fadd(b.fadd(b.fdiv(gl0, x0), f64(_HALF_LOG_2PI)),
                           b.fmul(b.fsub(x0, f64(0.5)), self.call("log", x0))), x0)
        start = b.block
        b.branch(down)
        b.position_at_end(down)  # for k in 1..n: gl -= log(x0 - 1); x0 -= 1
        k, g, z = b.phi(I64), b.phi(F64), b.phi(F64)
        k.add_incoming(ll.Constant(I64, 1), start)
        g.add_incoming(gl, start)
        z.add_incoming(x0, start)
        more = b.icmp_signed("<=", k, n)
        body, after = self.fn.append_basic_block("loggam.step"), self.fn.append_basic_block("loggam.end")
        b.cbranch(more, body, after)
        b.position_at_end(body)
        g.add_incoming(b.fsub(g, self.call("log", b.fsub(z, f64(1.0)))), body)
        z.add_incoming(b.fsub(z, f64(1.0)), body)
        k.add_incoming(b.add(k, ll.Constant(I64, 1)), body)
        b.branch(down)
        b.position_at_end(after)
        b.branch(done)
        b.position_at_end(trivial)
        b.branch(done)
        b.position_at_end(done)
        out = b.phi(F64)
        out.add_incoming(f64(0.0), trivial)
        out.add_incoming(g, after)
        return out


def _fill_name(method: str, arrays: tuple[bool, ...]) -> str:
    suffix = "".join("a" if a else "s" for a in arrays) if any(arrays) else ""
    return f"jitcore_pcg64_{method}" + (f"_{suffix}" if suffix else "")


def fill_function(module: ll.Module, method: str, arrays: tuple[bool, ...] = ()) -> ll.Function:
    """``module``'s fill function of ``method`` (made on first use); ``arrays``: which
    parameters it takes as arrays of the result's size (pointers), one element a draw."""
    arrays = tuple(arrays)
    fn = module.globals.get(_fill_name(method, arrays))
    return fn if fn is not None else _Sampler(module, method, arrays).build(method)


def params_ok(b: ll.IRBuilder, method: str, params: list[ll.Value]) -> ll.Value:
    """Whether ``params`` are ones NumPy accepts and these samplers draw as NumPy does; any
    other (an error NumPy raises, a NaN, a huge lam) calls back, and NumPy's sampler decides."""
    if method == "uniform":  # NumPy: high - low finite (else OverflowError) and >= 0
        span = b.fsub(params[1], params[0])
        return b.and_(b.fcmp_ordered(">=", span, f64(0.0)), b.fcmp_ordered("<", span, f64(float("inf"))))
    if method in ("laplace", "gumbel", "logistic", "normal"):  # scale > 0 (NumPy refuses < 0)
        return b.fcmp_ordered(">", params[1], f64(0.0))
    if method == "integers":  # low < high, else NumPy's ValueError
        return b.icmp_signed("<", params[0], params[1])
    if method == "integers_bounded":  # least <= low < high <= greatest (low <= high if closed)
        low, high, closed, least, greatest = params
        ordered = b.select(b.icmp_unsigned("!=", closed, ll.Constant(I64, 0)), b.icmp_signed("<=", low, high),
                           b.icmp_signed("<", low, high))
        inside = b.and_(b.icmp_signed(">=", low, least), b.icmp_signed("<=", high, greatest))
        return b.and_(ordered, inside)
    if method == "poisson":  # lam >= 0 (else ValueError), far below NumPy's POISSON_LAM_MAX
        return b.and_(b.fcmp_ordered(">=", params[0], f64(0.0)), b.fcmp_ordered("<", params[0], f64(1e15)))
    if method in ("exponential", "standard_gamma"):  # NumPy refuses a negative sign (-0.0 too)
        return _plus(b, params[0])
    if method == "gamma":
        return b.and_(_plus(b, params[0]), _plus(b, params[1]))
    if method == "chisquare":  # df > 0 (NumPy: "df <= 0")
        return _finite_above_zero(b, params[0])
    if method == "beta":  # a > 0, b > 0
        return b.and_(_finite_above_zero(b, params[0]), _finite_above_zero(b, params[1]))
    if method == "binomial":  # n >= 0, 0 <= p <= 1 (else NumPy's ValueError)
        p_ok = b.and_(b.fcmp_ordered(">=", params[1], f64(0.0)), b.fcmp_ordered("<=", params[1], f64(1.0)))
        return b.and_(b.icmp_signed(">=", params[0], ll.Constant(I64, 0)), p_ok)
    if method == "geometric":  # 0 < p <= 1
        return b.and_(b.fcmp_ordered(">", params[0], f64(0.0)), b.fcmp_ordered("<=", params[0], f64(1.0)))
    return _derived_params_ok(b, method, params)


def _derived_params_ok(b: ll.IRBuilder, method: str, params: list[ll.Value]) -> ll.Value:
    """``params_ok`` of ``codegen/pcg64_derived.py``'s samplers: where NumPy takes a parameter
    at or above 0 (``sigma``, weibull's ``a``, ``scale``), +0.0 or finite above 0; above 0,
    finite above 0; anything else (NaN, inf, a negative sign) calls back to NumPy's sampler."""
    if method == "lognormal":  # a finite mean: exp's argument then as NumPy's for any z
        return b.and_(_finite(b, params[0]), _plus(b, params[1]))
    if method in ("weibull", "rayleigh"):
        return _plus(b, params[0])
    if method in ("pareto", "power", "standard_t", "f", "wald", "noncentral_f"):
        ok = _finite_above_zero(b, params[0])
        for p in params[1:2]:
            ok = b.and_(ok, _finite_above_zero(b, p))
        return ok if method != "noncentral_f" else b.and_(ok, _plus(b, params[2]))
    if method == "noncentral_chisquare":  # df > 0, nonc >= 0
        return b.and_(_finite_above_zero(b, params[0]), _plus(b, params[1]))
    if method == "triangular":  # left <= mode <= right, left < right, all finite
        left, mode, right = params
        ordered = b.and_(b.fcmp_ordered("<=", left, mode), b.fcmp_ordered("<=", mode, right))
        finite = b.and_(_finite(b, left), _finite(b, right))
        return b.and_(b.and_(ordered, finite), b.fcmp_ordered("<", left, right))
    if method == "logseries":  # 0 < p < 1 (NumPy's edges and errors: its sampler)
        return b.and_(b.fcmp_ordered(">", params[0], f64(0.0)), b.fcmp_ordered("<", params[0], f64(1.0)))
    if method == "zipf":  # a > 1, finite
        return b.and_(b.fcmp_ordered(">", params[0], f64(1.0)), _finite(b, params[0]))
    if method == "negative_binomial":  # n > 0, 0 < p <= 1, the poisson's mean far below NumPy's limit
        n, p = params
        p_ok = b.and_(b.fcmp_ordered(">", p, f64(0.0)), b.fcmp_ordered("<=", p, f64(1.0)))
        bound = b.fmul(b.fdiv(b.fsub(f64(1.0), p), p), b.fadd(n, b.fmul(f64(10.0), _sqrt(b, n))))
        return b.and_(b.and_(_finite_above_zero(b, n), p_ok), b.fcmp_ordered("<", bound, f64(1e15)))
    return ll.Constant(ll.IntType(1), 1)


def _finite(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    return b.fcmp_ordered("<", b.call(_intrinsic(b.module, "llvm.fabs.f64"), [x]), f64(float("inf")))


def _sqrt(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    return b.call(_intrinsic(b.module, "llvm.sqrt.f64"), [x])


def _plus(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """x is +0.0 or finite and above 0 (a NaN, inf, or negative sign: NumPy's sampler decides)."""
    zero = b.icmp_unsigned("==", b.bitcast(x, I64), ll.Constant(I64, 0))
    return b.or_(zero, _finite_above_zero(b, x))


def _finite_above_zero(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    return b.and_(b.fcmp_ordered(">", x, f64(0.0)), b.fcmp_ordered("<", x, f64(float("inf"))))


def _all_params_ok(b: ll.IRBuilder, method: str, params: list[ll.Value], arrays, count: int) -> ll.Value:
    """``params_ok`` of every draw's parameters (an array parameter's every element), checked
    before the first draw as NumPy checks them."""
    types = SAMPLERS[method][0]
    if not any(arrays):
        return params_ok(b, method, [b.load(p, typ=t) for p, t in zip(params, types)])
    scalars = [None if a else b.load(p, typ=t) for p, t, a in zip(params, types, arrays)]
    start = b.block
    fn = start.function
    head, body, done = (fn.append_basic_block(f"params_ok.{x}") for x in ("head", "body", "done"))
    b.branch(head)
    b.position_at_end(head)
    i, ok = b.phi(I64), b.phi(ll.IntType(1))
    i.add_incoming(ll.Constant(I64, 0), start)
    ok.add_incoming(ll.Constant(ll.IntType(1), 1), start)
    b.cbranch(b.and_(ok, b.icmp_signed("<", i, ll.Constant(I64, count))), body, done)
    b.position_at_end(body)
    values = [b.load(b.gep(p, [i], source_etype=t), typ=t) if a else v
              for p, t, a, v in zip(params, types, arrays, scalars)]
    ok.add_incoming(params_ok(b, method, values), body)
    i.add_incoming(b.add(i, ll.Constant(I64, 1)), body)
    b.branch(head)
    b.position_at_end(done)
    return ok


def emit_draw(b: ll.IRBuilder, module: ll.Module, method: str, state: ll.Value, params: list[ll.Value],
              out: ll.Value, count: int, call_back, arrays: tuple[bool, ...] = ()) -> None:
    """A draw of ``count`` numbers into ``out``: natively, unless the buffer is ``OFF`` or the
    parameters are not ones to draw natively (``call_back()``: NumPy's sampler draws, or
    raises); a buffer ``BEHIND`` the generator is reloaded first (``call_back`` with the
    ``REQUEST`` word set). ``arrays``: which parameters are arrays of ``count`` elements."""
    def word(k: int) -> ll.Value:
        return b.gep(state, [ll.Constant(I64, k)], source_etype=I64)

    arrays = tuple(arrays) or (False,) * len(params)
    ok = _all_params_ok(b, method, params, arrays, count)
    values = [p if a else b.load(p, typ=t) for p, t, a in zip(params, SAMPLERS[method][0], arrays)]
    mode = b.load(word(MODE), typ=I64)
    native = b.and_(b.icmp_unsigned("!=", mode, ll.Constant(I64, OFF)), ok)
    with b.if_else(native, likely=True) as (then, otherwise):
        with then:
            with b.if_then(b.icmp_unsigned("==", mode, ll.Constant(I64, BEHIND)), likely=False):
                b.store(ll.Constant(I64, 1), word(REQUEST))
                call_back()
            b.call(fill_function(module, method, arrays), [state, *values, out, ll.Constant(I64, count)])
            b.store(ll.Constant(I64, AHEAD), word(MODE))
        with otherwise:
            call_back()
