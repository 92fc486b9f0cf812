"""``eig``/``eigvals`` by geev, as NumPy's ``eig_wrapper`` calls it (``codegen/cpu/lapack.py``)."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.lapack_emitter import F64, Z128, Emitter, const64, int_max
from jitcore.codegen.llvm_types import I64
from jitcore.codegen.loops import emit_loop
from jitcore.ir.dialects import kernel


class EigCalls(Emitter):
    def eig(self, inputs, result, params) -> None:
        """``eig``/``eigvals``: geev with jobvl 'N' (jobvr 'V' with vectors), after NumPy's
        check that every entry is finite; packed as EigOp's: real input in two planes (real
        and imaginary parts, a complex pair's vectors ``v_j +- i v_j+1`` as NumPy's
        ``mk_geev_complex_eigenvectors``), complex input in plane 0."""
        (a,), (vectors,) = inputs, params
        b = self.b
        n = a[0].shape[-1]
        ld = int_max(b, n, const64(1))
        A = self.buffer(b.mul(n, n), self.t)
        VR = self.buffer(b.mul(n, n), self.t) if vectors else self.buffer(const64(1), self.t)
        VL = self.buffer(const64(1), self.t)
        if self.complex:
            W, rwork = self.buffer(n, Z128), self.buffer(b.mul(n, const64(2)), F64)
            values = [W]
        else:
            values = [self.buffer(n, F64), self.buffer(n, F64)]  # wr, wi
        info, query, lwork = b.alloca(self.int), b.alloca(self.t), b.alloca(self.int)
        head = [self.char("N"), self.char("V" if vectors else "N"), self.integer(n), A, self.integer(ld),
                *values, VL, self.integer(ld), VR, self.integer(ld)]
        tail = [rwork, info] if self.complex else [info]
        b.store(self.fint(-1), lwork)
        self.call("geev", head + [query, lwork] + tail)
        b.store(self.workspace(query, least=1 if self.complex else 0), lwork)
        work = self.buffer(b.sext(b.load(lwork, typ=self.int), I64), self.t)
        finite = b.alloca(ll.IntType(1))

        def one(ivs):
            self.linearize(a, ivs, A, n, n, ld)
            b.store(ll.Constant(ll.IntType(1), 1), finite)

            def check(i):  # NumPy's _assert_finite, before geev
                b.store(b.and_(b.load(finite), self.is_finite(self.fget(A, i))), finite)
            emit_loop(b, b.mul(n, n), check, vectorize=False)
            with b.if_else(b.load(finite)) as (ok, bad):
                with bad:
                    self.record(kernel.NOT_FINITE)
                with ok:
                    self.call("geev", head + [work, lwork] + tail)
                    with b.if_else(self.failed(info)) as (fail, good):
                        with fail:
                            self.record(kernel.NO_CONVERGENCE)
                        with good:
                            self.eig_out(result, ivs, n, ld, values, VR if vectors else None)
        self.batch(a, one)

    def is_finite(self, v: ll.Value) -> ll.Value:
        b = self.b
        parts = [b.extract_value(v, 0), b.extract_value(v, 1)] if self.complex else [v]
        tests = [b.fcmp_ordered("==", b.fsub(p, p), ll.Constant(F64, 0.0)) for p in parts]
        return tests[0] if len(tests) == 1 else b.and_(*tests)

    def eig_out(self, result, ivs, n, ld, values, VR) -> None:
        b = self.b
        zero = const64(0)
        if self.complex:
            (W,) = values
            if VR is not None:
                self.delinearize(result, ivs, VR, n, n, ld, plane=zero)
            emit_loop(b, n, lambda j: self.store(result, [*ivs, zero, *([n] if VR is not None else []), j],
                                                  self.fget(W, j)), vectorize=False)
            return
        wr, wi = values
        one = const64(1)

        def value(j):
            at = [n] if VR is not None else []
            self.store(result, [*ivs, zero, *at, j], self.fget(wr, j, F64))
            self.store(result, [*ivs, one, *at, j], self.fget(wi, j, F64))
        emit_loop(b, n, value, vectorize=False)
        if VR is None:
            return

        def column(j):  # j is not the second of a complex pair: that one is written with its first
            pair = b.fcmp_unordered("!=", self.fget(wi, j, F64), ll.Constant(F64, 0.0))
            second = b.add(j, one)

            def entry(i):
                re = self.fget(VR, b.add(i, b.mul(j, ld)))
                with b.if_else(pair) as (complex_pair, real):
                    with complex_pair:
                        im = self.fget(VR, b.add(i, b.mul(second, ld)))
                        self.store(result, [*ivs, zero, i, j], re)
                        self.store(result, [*ivs, one, i, j], im)
                        self.store(result, [*ivs, zero, i, second], re)
                        self.store(result, [*ivs, one, i, second], b.fneg(im))
                    with real:
                        self.store(result, [*ivs, zero, i, j], re)
                        self.store(result, [*ivs, one, i, j], ll.Constant(F64, 0.0))
            emit_loop(b, n, entry, vectorize=False)
            return b.select(pair, const64(2), one)

        self.stepping(n, column)

    def stepping(self, count: ll.Value, body) -> None:
        """``j = 0; while j < count: j += body(j)`` (body returns its step, an i64)."""
        b = self.b
        j = b.alloca(I64)
        b.store(const64(0), j)
        head, inner, done = (self.fn.append_basic_block(x) for x in ("pairs", "pair", "paired"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(b.icmp_signed("<", b.load(j, typ=I64), count), inner, done)
        b.position_at_end(inner)
        step = body(b.load(j, typ=I64))
        b.store(b.add(b.load(j, typ=I64), step), j)
        b.branch(head)
        b.position_at_end(done)
