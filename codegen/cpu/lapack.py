"""Decompositions by the LAPACK routines NumPy itself calls, from the same library.

``numpy.linalg``'s gufuncs (``numpy/linalg/umath_linalg.cpp``) call OpenBLAS's LAPACK, the
library that ``blas.py`` finds for contractions. A decomposition kernel that ``kernelize``
marked (``passes/kernelize/lapack.py``: its kind, the operand positions of the array op's
operands and its parameters) is emitted here, where the library has its routines, as that
gufunc's loop: per matrix of the batch a column-major (Fortran) copy of the input, the
routine with NumPy's arguments (``jobz``, ``uplo``, leading dimensions ``max(m, 1)``, the
workspace from one size query per call, NumPy's ``lwork``), and the results copied back into
the kernel's packed layout (``ir/dialects/array/decompose.py``). NumPy computes every real
matrix in float64 and every complex one in complex128 (``_commonType``), then casts: so do
these kernels (float32 in, the ``d`` routine, rounded back), and the results are NumPy's bit
for bit. ``info > 0`` records the status code that raises NumPy's ``LinAlgError`` (or, in a
``soft`` op, inside a ``try`` that catches it, sets the flag row: ``jitcore/failures.py``).

Elsewhere (no library, a library without the routine, ``JITCORE_BLAS=none``) the kernel's own
body runs: jitcore's compiled algorithms (``passes/kernelize/decompose.py`` and its family).
The copies, buffers and calls are ``lapack_emitter.py``'s; eig's routine is ``lapack_eig.py``.
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.blas import BlasLibrary
from jitcore.codegen.cpu.lapack_eig import EigCalls
from jitcore.codegen.cpu.lapack_emitter import F64, Z128, const64, int_max, int_min
from jitcore.codegen.kernel_body import kernel_function
from jitcore.codegen.llvm_types import I64, declare
from jitcore.codegen.loops import Sizes, emit_loop
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

# kind -> the routines it calls, real then complex ("d"/"z" prefixed: NumPy's compute types)
ROUTINES = {
    "svd": (("dgesdd",), ("zgesdd",)),
    "eigh": (("dsyevd",), ("zheevd",)),
    "cholesky": (("dpotrf",), ("zpotrf",)),
    "slogdet": (("dgetrf", "log"), ("zgetrf", "log", "hypot")),
    "det": (("dgetrf", "log", "exp"), ("zgetrf", "log", "exp", "hypot")),
    "solve": (("dgesv",), ("zgesv",)),
    "qr": (("dgeqrf", "dorgqr"), ("zgeqrf", "zungqr")),
    "eig": (("dgeev",), ("zgeev",)),
}
MATH = ("log", "exp", "hypot")  # libm's, which NumPy's npy_log, npy_exp and npy_cabs call
ENABLED = True  # tests of the compiled algorithms turn the calls off


def symbols(library: BlasLibrary, kind: str, is_complex: bool) -> dict[str, str] | None:
    """Routine -> symbol for ``kind``, or None where the library lacks one of them."""
    found = {}
    for routine in ROUTINES[kind][is_complex]:
        symbol = routine if routine in MATH else library.lapack_routine(routine)
        if routine not in MATH and library.address(symbol) is None:
            return None
        found[routine] = symbol
    return found


def emit_lapack_kernel(module: ll.Module, name: str, op: Operation, strided: list[bool],
                       library: BlasLibrary | None, sizes: Sizes | None = None):
    """``op`` (a marked decomposition kernel) as calls of NumPy's LAPACK routines: a
    ``gemm.ContractionKernel`` naming the symbols it calls, or None (its body runs)."""
    from jitcore.codegen.cpu.gemm import ContractionKernel  # gemm imports schedule: late

    kind = op.attributes.get(kernel.LAPACK)
    if kind is None or library is None or not ENABLED:
        return None
    positions = op.attributes[kernel.LAPACK_OPERANDS]
    is_complex = op.operands[positions[0]].type.element.is_complex
    called = symbols(library, kind, is_complex)
    if called is None:
        return None
    shaped = [*op.operands, *op.results]
    fn, operands, extras, _ = kernel_function(module, name, shaped, strided, extra_pointers=1,
                                              sizes=sizes if sizes else None)
    inputs = [(operands[p], op.operands[p].type.element) for p in positions]
    result = (operands[len(op.operands)], op.results[0].type.element)
    e = _Calls(fn, library, called, is_complex, extras[0])
    getattr(e, kind)(inputs, result, tuple(op.attributes.get(kernel.LAPACK_PARAMS, ())))
    e.finish()
    return ContractionKernel(fn, calls=tuple(sorted(set(called.values()))))


class _Calls(EigCalls):
    """The routines, as NumPy's gufuncs call them."""

    def settled(self, info, soft: bool, result, flag_at: list, error: int, good) -> None:
        """After a routine whose ``info > 0`` is the op's failure: inside a try (``soft``) a
        flag at ``flag_at`` of the result, else ``error`` recorded; ``good()`` writes the
        result where it did not fail."""
        b = self.b
        bad = self.failed(info)
        if soft:
            self.store(result, flag_at, b.select(bad, ll.Constant(F64, 1.0), ll.Constant(F64, 0.0)))
        with b.if_else(bad) as (fail, ok):
            with fail:
                if not soft:
                    self.record(error)
            with ok:
                good()

    def svd(self, inputs, result, params) -> None:
        """``svd_N``/``svd_S``/``svd_A``: gesdd; packed ``U | Vh | s`` (vectors) or ``s``."""
        (a,), (vectors, full) = inputs, params
        b = self.b
        m, n = a[0].shape[-2:]
        k = int_min(b, m, n)
        jobz = "N" if not vectors else "A" if full else "S"
        u_cols, vt_rows = {"N": (const64(0), const64(0)), "A": (m, n), "S": (k, k)}[jobz]
        ld = int_max(b, m, const64(1))
        A, S = self.buffer(b.mul(m, n), self.t), self.buffer(k, F64)
        U, VT = self.buffer(b.mul(m, u_cols), self.t), self.buffer(b.mul(n, vt_rows), self.t)
        iwork = self.buffer(b.mul(k, const64(8)), self.int)
        rwork = None
        if self.complex:
            rwork = self.buffer(b.mul(const64(7), k) if jobz == "N" else
                                b.add(b.mul(const64(5), b.mul(k, k)), b.mul(const64(5), k)), self.t)
        args = [self.char(jobz), self.integer(m), self.integer(n), A, self.integer(ld), S, U,
                self.integer(ld), VT, self.integer(int_max(b, vt_rows, const64(1)))]
        query, lwork = b.alloca(self.t), b.alloca(self.int)
        info = b.alloca(self.int)
        tail = ([rwork] if self.complex else []) + [iwork, info]
        b.store(self.fint(-1), lwork)
        self.call("gesdd", args + [query, lwork] + tail)
        count = self.workspace(query, least=1)
        b.store(count, lwork)
        work = self.buffer(b.sext(count, I64), self.t)

        def one(ivs):
            self.linearize(a, ivs, A, m, n, ld)
            self.call("gesdd", args + [work, lwork] + tail)
            with b.if_else(self.failed(info)) as (bad, good):
                with bad:
                    self.record(kernel.SVD_NO_CONVERGENCE)
                with good:
                    if jobz == "N":
                        self.vector_out(result, ivs, S, k)
                    else:
                        self.vectors_out(result, ivs, jobz, U, VT, S, (m, n, k, u_cols, vt_rows, ld))
        self.batch(a, one)

    def vectors_out(self, result, ivs, jobz, U, VT, S, dims) -> None:
        """svd's packed ``U | Vh | s``."""
        b = self.b
        m, n, k, u_cols, vt_rows, ld = dims
        if jobz == "A":
            with b.if_then(b.icmp_signed("==", k, const64(0))):  # LAPACK leaves them unset
                self.identity(U, m)
                self.identity(VT, n)
        self.delinearize(result, ivs, U, m, u_cols, ld)
        self.delinearize(result, ivs, VT, vt_rows, n, int_max(b, vt_rows, const64(1)), row0=m)
        self.vector_out(result, ivs, S, k, row=b.add(m, vt_rows))

    def identity(self, buf, n) -> None:
        b = self.b
        self.grid(n, n, lambda i, j: self.fset(buf, b.add(i, b.mul(j, n)),
                                               b.select(b.icmp_signed("==", i, j), self.one(), self.zero())))

    def eigh(self, inputs, result, params) -> None:
        """``eighlo``/``eighup``/``eigvalsh*``: syevd (heevd); packed vectors then values."""
        (a,), (vectors, upper) = inputs, params
        b = self.b
        n = a[0].shape[-1]
        ld = int_max(b, n, const64(1))
        A, W = self.buffer(b.mul(n, n), self.t), self.buffer(n, F64)
        info = b.alloca(self.int)
        lwork, lrwork, liwork = (b.alloca(self.int) for _ in range(3))
        query, rquery, iquery = b.alloca(self.t), b.alloca(F64), b.alloca(self.int)
        head = [self.char("V" if vectors else "N"), self.char("U" if upper else "L"), self.integer(n),
                A, self.integer(ld), W]
        for slot in (lwork, lrwork, liwork):
            b.store(self.fint(-1), slot)
        routine = "heevd" if self.complex else "syevd"

        def args(work, rwork, iwork):
            middle = [rwork, lrwork] if self.complex else []
            return head + [work, lwork, *middle, iwork, liwork, info]

        self.call(routine, args(query, rquery, iquery))
        b.store(self.workspace(query), lwork)
        b.store(b.fptosi(b.load(rquery, typ=F64), self.int), lrwork)
        work = self.buffer(b.sext(b.load(lwork, typ=self.int), I64), self.t)
        rwork = self.buffer(b.sext(b.load(lrwork, typ=self.int), I64), F64) if self.complex else None
        iwork = self.buffer(b.sext(b.load(iquery, typ=self.int), I64), self.int)
        b.store(b.load(iquery, typ=self.int), liwork)

        def one(ivs):
            self.linearize(a, ivs, A, n, n, ld, transposed=bool(upper))
            self.call(routine, args(work, rwork, iwork))
            with b.if_else(self.failed(info)) as (bad, good):
                with bad:
                    self.record(kernel.NO_CONVERGENCE)
                with good:
                    if vectors:
                        self.delinearize(result, ivs, A, n, n, ld)
                        self.vector_out(result, ivs, W, n, row=n)
                    else:
                        self.vector_out(result, ivs, W, n)
        self.batch(a, one)

    def cholesky(self, inputs, result, params) -> None:
        """``cholesky_lo``/``cholesky_up``: potrf, the other triangle zeroed; ``upper``: the
        result is U's conjugate transpose (the caller's ``_uplo`` turns it back)."""
        (a,), (upper, soft) = inputs, params
        b = self.b
        n = a[0].shape[-1]
        ld = int_max(b, n, const64(1))
        A = self.buffer(b.mul(n, n), self.t)
        info = b.alloca(self.int)
        args = [self.char("U" if upper else "L"), self.integer(n), A, self.integer(ld), info]

        def zero_other(i, j):  # 'L': above the diagonal; 'U': below it
            off = b.icmp_signed("<" if not upper else ">", i, j)
            with b.if_then(off):
                self.fset(A, b.add(i, b.mul(j, ld)), self.zero())

        def one(ivs):
            self.linearize(a, ivs, A, n, n, ld, transposed=bool(upper))
            self.call("potrf", args)

            def good():
                self.grid(n, n, zero_other)
                self.delinearize(result, ivs, A, n, n, ld, transposed=bool(upper))
            self.settled(info, soft, result, [*ivs, n, const64(0)], kernel.NOT_POSITIVE_DEFINITE, good)
        self.batch(a, one)

    def _getrf(self, a):
        """The LU of each matrix (getrf), then NumPy's ``slogdet_single_element``: ``body(ivs,
        sign, logdet)`` with the compute type's sign and a float64 log|det|."""
        b = self.b
        n = a[0].shape[-1]
        ld = int_max(b, n, const64(1))
        A, pivots = self.buffer(b.mul(n, n), self.t), self.buffer(n, self.int)
        info = b.alloca(self.int)
        args = [self.integer(n), self.integer(n), A, self.integer(ld), pivots, info]
        log = declare(self.fn.module, self.called["log"], F64, [F64])
        hypot = declare(self.fn.module, self.called["hypot"], F64, [F64, F64]) if self.complex else None

        def factor(ivs):
            self.linearize(a, ivs, A, n, n, ld)
            self.call("getrf", args)
            sign, logdet = b.alloca(self.t), b.alloca(F64)
            with b.if_else(self.failed(info)) as (bad, good):
                with bad:
                    b.store(self.zero(), sign)
                    b.store(ll.Constant(F64, float("-inf")), logdet)
                with good:
                    swaps = b.alloca(I64)
                    b.store(const64(0), swaps)

                    def count(i):
                        moved = b.icmp_signed("!=", self.fget(pivots, i, self.int),
                                              b.trunc(b.add(i, const64(1)), self.int) if self.int != I64
                                              else b.add(i, const64(1)))
                        b.store(b.add(b.load(swaps, typ=I64), b.zext(moved, I64)), swaps)
                    emit_loop(b, n, count, vectorize=False)
                    odd = b.trunc(b.load(swaps, typ=I64), ll.IntType(1))
                    minus = ll.Constant(self.t, [-1.0, 0.0] if self.complex else -1.0)
                    b.store(b.select(odd, minus, self.one()), sign)
                    b.store(ll.Constant(F64, 0.0), logdet)

                    def diagonal(i):
                        d = self.fget(A, b.mul(i, b.add(ld, const64(1))))
                        if self.complex:
                            re, im = b.extract_value(d, 0), b.extract_value(d, 1)
                            size = b.call(hypot, [re, im])
                            unit = self.make(b.fdiv(re, size), b.fdiv(im, size))
                            b.store(self.multiply(b.load(sign, typ=Z128), unit), sign)
                        else:
                            negative = b.fcmp_ordered("<", d, ll.Constant(F64, 0.0))
                            s = b.load(sign, typ=F64)
                            b.store(b.select(negative, b.fneg(s), s), sign)
                            size = b.select(negative, b.fneg(d), d)
                        b.store(b.fadd(b.load(logdet, typ=F64), b.call(log, [size])), logdet)
                    emit_loop(b, n, diagonal, vectorize=False)
            return b.load(sign, typ=self.t), b.load(logdet, typ=F64)

        return factor

    def multiply(self, x: ll.Value, y: ll.Value) -> ll.Value:
        """NumPy's ``mult``: (xr*yr - xi*yi, xr*yi + xi*yr), as written (no FMA)."""
        b = self.b
        xr, xi, yr, yi = (b.extract_value(v, k) for v in (x, y) for k in (0, 1))
        return self.make(b.fsub(b.fmul(xr, yr), b.fmul(xi, yi)), b.fadd(b.fmul(xr, yi), b.fmul(xi, yr)))

    def slogdet(self, inputs, result, params) -> None:
        """``slogdet``: getrf, then (sign, log|det|) per matrix, packed ``(..., 2)``."""
        (a,) = inputs
        factor = self._getrf(a)

        def one(ivs):
            sign, logdet = factor(ivs)
            self.store(result, [*ivs, const64(0)], sign)
            self.store(result, [*ivs, const64(1)], logdet)
        self.batch(a, one)

    def det(self, inputs, result, params) -> None:
        """``det``: getrf, then ``sign * exp(log|det|)`` per matrix."""
        (a,) = inputs
        b = self.b
        factor = self._getrf(a)
        exp = declare(self.fn.module, self.called["exp"], F64, [F64])

        def one(ivs):
            sign, logdet = factor(ivs)
            size = b.call(exp, [logdet])
            if self.complex:
                value = self.multiply(sign, self.make(size, ll.Constant(F64, 0.0)))
            else:
                value = b.fmul(sign, size)
            self.store(result, ivs, value)
        self.batch(a, one)

    def solve(self, inputs, result, params) -> None:
        """``solve``/``solve1``/``inv``: gesv of each ``a`` with right-hand sides ``b`` (inv's
        the identity, as NumPy's)."""
        (a, rhs), (soft,) = inputs, params
        b = self.b
        n, k = a[0].shape[-1], rhs[0].shape[-1]
        ld = int_max(b, n, const64(1))
        A, B = self.buffer(b.mul(n, n), self.t), self.buffer(b.mul(n, k), self.t)
        pivots = self.buffer(n, self.int)
        info = b.alloca(self.int)
        args = [self.integer(n), self.integer(k), A, self.integer(ld), pivots, B, self.integer(ld), info]

        def one(ivs):
            self.linearize(a, ivs, A, n, n, ld)
            self.linearize(rhs, ivs, B, n, k, ld)
            self.call("gesv", args)
            self.settled(info, soft, result, [*ivs, n, const64(0)], kernel.SINGULAR_MATRIX,
                         lambda: self.delinearize(result, ivs, B, n, k, ld))
        self.batch(a, one)

    def qr(self, inputs, result, params) -> None:
        """``qr_r_raw`` then ``qr_reduced``/``qr_complete``: geqrf, then orgqr (ungqr) on a
        copy of its output; packed ``Q | R``, R the factored matrix's upper triangle (NumPy's
        ``triu``: +0.0 below the diagonal). ``mode``: 0 'r' (no Q), 1 reduced, 2 complete."""
        (a,), (mode,) = inputs, params
        b = self.b
        m, n = a[0].shape[-2:]
        k = int_min(b, m, n)
        mc = (const64(0), k, m)[mode]  # Q's columns
        ld = int_max(b, m, const64(1))
        A, tau = self.buffer(b.mul(m, n), self.t), self.buffer(k, self.t)
        info = b.alloca(self.int)
        query, lwork = b.alloca(self.t), b.alloca(self.int)
        head = [self.integer(m), self.integer(n), A, self.integer(ld), tau]
        b.store(self.fint(-1), lwork)
        self.call("geqrf", head + [query, lwork, info])
        least = int_max(b, self.fint(n), self.fint(1))  # init_geqrf: max(1, n, query)
        b.store(self.workspace(query, at_least=least), lwork)
        work = self.buffer(b.sext(b.load(lwork, typ=self.int), I64), self.t)
        orgqr = "ungqr" if self.complex else "orgqr"
        if mode:
            Q = self.buffer(b.mul(m, int_max(b, mc, n)), self.t)  # holds the n columns copied in
            glwork = b.alloca(self.int)
            gq = [self.integer(m), self.integer(mc), self.integer(k), Q, self.integer(ld), tau]
            b.store(self.fint(-1), glwork)
            self.call(orgqr, gq + [query, glwork, info])
            count = self.workspace(query)
            # init_gqr_common allocates max(1, n, query) and passes that for real matrices,
            # the query's own count for complex ones
            b.store(count if self.complex else int_max(b, count, least), glwork)
            gwork = self.buffer(b.sext(int_max(b, count, least), I64), self.t)

        def one(ivs):
            self.zero_fill(tau, k)
            self.linearize(a, ivs, A, m, n, ld)
            self.call("geqrf", head + [work, lwork, info])
            if mode:
                self.copy(A, Q, b.mul(m, n))
                self.call(orgqr, gq + [gwork, glwork, info])
                self.delinearize(result, ivs, Q, m, mc, ld)

            def r(i, j):
                kept = b.icmp_signed(">=", j, i)
                v = b.select(kept, self.fget(A, b.add(i, b.mul(j, ld))), self.zero())
                self.store(result, [*ivs, i, b.add(mc, j)], v)
            self.grid(m, n, r)
        self.batch(a, one)
