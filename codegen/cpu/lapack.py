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
"""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.blas import BlasLibrary
from jitcore.codegen.kernel_body import Operand, entry_builder, kernel_function
from jitcore.codegen.llvm_types import I64, PTR, declare, value_type
from jitcore.codegen.loops import Sizes, emit_loop, emit_nest
from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel

F64 = ll.DoubleType()
Z128 = ll.LiteralStructType([F64, F64])
I8 = ll.IntType(8)
VOID = ll.VoidType()

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
    e = _Emitter(fn, library, called, is_complex, extras[0])
    getattr(e, kind)(inputs, result, tuple(op.attributes.get(kernel.LAPACK_PARAMS, ())))
    e.finish()
    return ContractionKernel(fn, calls=tuple(sorted(set(called.values()))))


class _Emitter:
    """The LLVM of one LAPACK kernel: Fortran scalars passed by pointer, buffers from
    ``malloc`` (freed before the kernel returns), the batch loop and element copies."""

    def __init__(self, fn: ll.Function, library: BlasLibrary, called: dict, is_complex: bool,
                 status: ll.Value):
        self.fn, self.called, self.complex, self.status = fn, called, is_complex, status
        self.b = entry_builder(fn)
        self.int = ll.IntType(library.int_bits)
        self.t = Z128 if is_complex else F64  # the compute type, NumPy's
        self.buffers: list[ll.Value] = []
        self.malloc = declare(fn.module, "malloc", PTR, [I64])
        self.free = declare(fn.module, "free", VOID, [PTR])

    # -- scalars and buffers ---------------------------------------------------------------
    def char(self, c: str) -> ll.Value:
        slot = self.b.alloca(I8)
        self.b.store(ll.Constant(I8, ord(c)), slot)
        return slot

    def integer(self, value: ll.Value | int) -> ll.Value:
        """A Fortran integer argument holding ``value`` (an i64 or a Python int)."""
        slot = self.b.alloca(self.int)
        self.b.store(self.fint(value), slot)
        return slot

    def fint(self, value: ll.Value | int) -> ll.Value:
        if isinstance(value, int):
            return ll.Constant(self.int, value)
        return value if value.type == self.int else self.b.trunc(value, self.int)

    def buffer(self, count: ll.Value, etype: ll.Type) -> ll.Value:
        """``count`` elements of ``etype`` (at least one, so that malloc gives a pointer)."""
        b = self.b
        size = b.mul(_max(b, count, _i64(1)), _i64(_size(etype)))
        p = b.call(self.malloc, [size])
        self.buffers.append(p)
        return p

    def call(self, routine: str, args: list[ll.Value]) -> None:
        """LAPACK's ``routine`` ("gesdd": dgesdd, or zgesdd for complex matrices)."""
        symbol = self.called[("z" if self.complex else "d") + routine]
        fn = declare(self.fn.module, symbol, VOID, [PTR] * len(args))
        self.b.call(fn, args)

    def workspace(self, query: ll.Value, least: int = 0, at_least: ll.Value | None = None) -> ll.Value:
        """The Fortran integer ``(fortran_int)`` of a size query's answer (its real part),
        raised to ``least`` where NumPy does (``work_count == 0 -> 1``) or to ``at_least``."""
        b = self.b
        value = b.load(query, typ=F64)  # a complex answer's real part comes first
        count = b.fptosi(value, self.int)
        if least:
            count = b.select(b.icmp_signed("==", count, self.fint(0)), self.fint(least), count)
        if at_least is not None:
            count = _max(b, count, at_least)
        return count

    def finish(self) -> None:
        for p in self.buffers:
            self.b.call(self.free, [p])
        self.b.ret_void()

    # -- elements --------------------------------------------------------------------------
    def at(self, arg: tuple[Operand, object], positions: list[ll.Value]) -> ll.Value:
        """The address of ``arg[*positions]`` (the batch position first)."""
        operand, t = arg
        b = self.b
        offset = _i64(0)
        for p, stride in zip(positions, operand.strides):
            offset = b.add(offset, b.mul(p, stride))
        return b.gep(operand.pointer, [offset], source_etype=value_type(t))

    def load(self, arg, positions) -> ll.Value:
        """An element of ``arg`` in the compute type (float32 widened exactly, as NumPy's
        ``astype(float64)``)."""
        b, t = self.b, arg[1]
        v = b.load(self.at(arg, positions), typ=value_type(t))
        if not t.is_complex:
            return v if t.bitwidth == 64 else b.fpext(v, F64)
        if t.component.bitwidth == 64:
            return v
        return self.make(*(b.fpext(b.extract_value(v, k), F64) for k in (0, 1)))

    def store(self, arg, positions, v: ll.Value) -> None:
        """``v`` (the compute type, or a float64: a complex result's imaginary part is then 0)
        into ``arg``, rounded to its type as NumPy's ``astype``."""
        b, t = self.b, arg[1]
        if t.is_complex and v.type == F64:
            v = self.make(v, ll.Constant(F64, 0.0))
        if t.is_complex and t.component.bitwidth == 32:
            part = value_type(t.component)
            re, im = (b.fptrunc(b.extract_value(v, k), part) for k in (0, 1))
            v = b.insert_value(b.insert_value(ll.Constant(value_type(t), ll.Undefined), re, 0), im, 1)
        elif not t.is_complex and t.bitwidth == 32:
            v = b.fptrunc(v, value_type(t))
        b.store(v, self.at(arg, positions))

    def make(self, re: ll.Value, im: ll.Value) -> ll.Value:
        b = self.b
        return b.insert_value(b.insert_value(ll.Constant(Z128, ll.Undefined), re, 0), im, 1)

    def conj(self, v: ll.Value) -> ll.Value:
        if v.type != Z128:
            return v
        return self.b.insert_value(v, self.b.fneg(self.b.extract_value(v, 1)), 1)

    def fget(self, buf: ll.Value, index: ll.Value, etype: ll.Type | None = None) -> ll.Value:
        etype = etype or self.t
        return self.b.load(self.b.gep(buf, [index], source_etype=etype), typ=etype)

    def fset(self, buf: ll.Value, index: ll.Value, v: ll.Value) -> None:
        self.b.store(v, self.b.gep(buf, [index], source_etype=v.type))

    def zero(self) -> ll.Value:
        return ll.Constant(self.t, [0.0, 0.0] if self.complex else 0.0)

    def one(self) -> ll.Value:
        return ll.Constant(self.t, [1.0, 0.0] if self.complex else 1.0)

    def grid(self, rows: ll.Value, cols: ll.Value, body) -> None:
        """``body(i, j)`` over a rows x cols grid, column by column (Fortran order)."""
        emit_loop(self.b, cols, lambda j: emit_loop(self.b, rows, lambda i: body(i, j), vectorize=False),
                  vectorize=False)

    def linearize(self, arg, ivs, buf: ll.Value, rows, cols, ld, transposed: bool = False) -> None:
        """``buf[i + j*ld] = arg[i, j]`` (``transposed``: ``conj(arg[j, i])``, the matrix
        whose conjugate transpose ``arg`` is): NumPy's ``linearize_matrix``."""
        def copy(i, j):
            v = self.conj(self.load(arg, [*ivs, j, i])) if transposed else self.load(arg, [*ivs, i, j])
            self.fset(buf, self.b.add(i, self.b.mul(j, ld)), v)
        self.grid(rows, cols, copy)

    def delinearize(self, arg, ivs, buf, rows, cols, ld, row0: ll.Value | None = None,
                    transposed: bool = False, plane: ll.Value | None = None) -> None:
        """``arg[row0 + i, j] = buf[i + j*ld]`` (``transposed``: ``arg[j, i] =
        conj(buf[i + j*ld])``): NumPy's ``delinearize_matrix``. ``plane``: of
        ``arg[plane]`` (eig's packed planes)."""
        b = self.b
        row0 = row0 if row0 is not None else _i64(0)
        ivs = [*ivs, plane] if plane is not None else ivs

        def copy(i, j):
            v = self.fget(buf, b.add(i, b.mul(j, ld)))
            if transposed:
                self.store(arg, [*ivs, j, i], self.conj(v))
            else:
                self.store(arg, [*ivs, b.add(row0, i), j], v)
        self.grid(rows, cols, copy)

    def vector_out(self, arg, ivs, buf, count, row: ll.Value | None = None) -> None:
        """``arg[row, l] = buf[l]`` (``arg[l]`` without ``row``) for the float64s l < count."""
        def copy(k):
            self.store(arg, [*ivs, k] if row is None else [*ivs, row, k], self.fget(buf, k, F64))
        emit_loop(self.b, count, copy, vectorize=False)

    def failed(self, info_slot: ll.Value) -> ll.Value:
        return self.b.icmp_signed("!=", self.b.load(info_slot, typ=self.int), self.fint(0))

    def record(self, code: int) -> None:
        """Status word 0 := ``code`` unless an earlier error is recorded (``kernel.raise``)."""
        b = self.b
        first = b.icmp_unsigned("==", b.load(self.status, typ=I64), _i64(0))
        with b.if_then(first):
            b.store(_i64(code), self.status)

    def batch(self, arg, body) -> None:
        """``body(ivs)`` for each matrix of ``arg``'s batch."""
        emit_nest(self.b, arg[0].shape[:-2], body)

    # -- the routines, as NumPy's gufuncs call them -------------------------------------------
    def svd(self, inputs, result, params) -> None:
        """``svd_N``/``svd_S``/``svd_A``: gesdd; packed ``U | Vh | s`` (vectors) or ``s``."""
        (a,), (vectors, full) = inputs, params
        b = self.b
        m, n = a[0].shape[-2:]
        k = _min(b, m, n)
        jobz = "N" if not vectors else "A" if full else "S"
        u_cols, vt_rows = {"N": (_i64(0), _i64(0)), "A": (m, n), "S": (k, k)}[jobz]
        ld = _max(b, m, _i64(1))
        A, S = self.buffer(b.mul(m, n), self.t), self.buffer(k, F64)
        U, VT = self.buffer(b.mul(m, u_cols), self.t), self.buffer(b.mul(n, vt_rows), self.t)
        iwork = self.buffer(b.mul(k, _i64(8)), self.int)
        rwork = None
        if self.complex:
            rwork = self.buffer(b.mul(_i64(7), k) if jobz == "N" else
                                b.add(b.mul(_i64(5), b.mul(k, k)), b.mul(_i64(5), k)), self.t)
        args = [self.char(jobz), self.integer(m), self.integer(n), A, self.integer(ld), S, U,
                self.integer(ld), VT, self.integer(_max(b, vt_rows, _i64(1)))]
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
            with b.if_then(b.icmp_signed("==", k, _i64(0))):  # LAPACK leaves them unset
                self.identity(U, m)
                self.identity(VT, n)
        self.delinearize(result, ivs, U, m, u_cols, ld)
        self.delinearize(result, ivs, VT, vt_rows, n, _max(b, vt_rows, _i64(1)), row0=m)
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
        ld = _max(b, n, _i64(1))
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
        ld = _max(b, n, _i64(1))
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
            bad = self.failed(info)
            if soft:
                flag = b.select(bad, ll.Constant(F64, 1.0), ll.Constant(F64, 0.0))
                self.store(result, [*ivs, n, _i64(0)], flag)
            with b.if_else(bad) as (fail, good):
                with fail:
                    if not soft:
                        self.record(kernel.NOT_POSITIVE_DEFINITE)
                with good:
                    self.grid(n, n, zero_other)
                    self.delinearize(result, ivs, A, n, n, ld, transposed=bool(upper))
        self.batch(a, one)

    def _getrf(self, a):
        """The LU of each matrix (getrf), then NumPy's ``slogdet_single_element``: ``body(ivs,
        sign, logdet)`` with the compute type's sign and a float64 log|det|."""
        b = self.b
        n = a[0].shape[-1]
        ld = _max(b, n, _i64(1))
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
                    b.store(_i64(0), swaps)

                    def count(i):
                        moved = b.icmp_signed("!=", self.fget(pivots, i, self.int),
                                              b.trunc(b.add(i, _i64(1)), self.int) if self.int != I64
                                              else b.add(i, _i64(1)))
                        b.store(b.add(b.load(swaps, typ=I64), b.zext(moved, I64)), swaps)
                    emit_loop(b, n, count, vectorize=False)
                    odd = b.trunc(b.load(swaps, typ=I64), ll.IntType(1))
                    minus = ll.Constant(self.t, [-1.0, 0.0] if self.complex else -1.0)
                    b.store(b.select(odd, minus, self.one()), sign)
                    b.store(ll.Constant(F64, 0.0), logdet)

                    def diagonal(i):
                        d = self.fget(A, b.mul(i, b.add(ld, _i64(1))))
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
            self.store(result, [*ivs, _i64(0)], sign)
            self.store(result, [*ivs, _i64(1)], logdet)
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
        ld = _max(b, n, _i64(1))
        A, B = self.buffer(b.mul(n, n), self.t), self.buffer(b.mul(n, k), self.t)
        pivots = self.buffer(n, self.int)
        info = b.alloca(self.int)
        args = [self.integer(n), self.integer(k), A, self.integer(ld), pivots, B, self.integer(ld), info]

        def one(ivs):
            self.linearize(a, ivs, A, n, n, ld)
            self.linearize(rhs, ivs, B, n, k, ld)
            self.call("gesv", args)
            bad = self.failed(info)
            if soft:
                flag = b.select(bad, ll.Constant(F64, 1.0), ll.Constant(F64, 0.0))
                self.store(result, [*ivs, n, _i64(0)], flag)
            with b.if_else(bad) as (fail, good):
                with fail:
                    if not soft:
                        self.record(kernel.SINGULAR_MATRIX)
                with good:
                    self.delinearize(result, ivs, B, n, k, ld)
        self.batch(a, one)

    def qr(self, inputs, result, params) -> None:
        """``qr_r_raw`` then ``qr_reduced``/``qr_complete``: geqrf, then orgqr (ungqr) on a
        copy of its output; packed ``Q | R``, R the factored matrix's upper triangle (NumPy's
        ``triu``: +0.0 below the diagonal). ``mode``: 0 'r' (no Q), 1 reduced, 2 complete."""
        (a,), (mode,) = inputs, params
        b = self.b
        m, n = a[0].shape[-2:]
        k = _min(b, m, n)
        mc = (_i64(0), k, m)[mode]  # Q's columns
        ld = _max(b, m, _i64(1))
        A, tau = self.buffer(b.mul(m, n), self.t), self.buffer(k, self.t)
        info = b.alloca(self.int)
        query, lwork = b.alloca(self.t), b.alloca(self.int)
        head = [self.integer(m), self.integer(n), A, self.integer(ld), tau]
        b.store(self.fint(-1), lwork)
        self.call("geqrf", head + [query, lwork, info])
        least = _max(b, self.fint(n), self.fint(1))  # init_geqrf: max(1, n, query)
        b.store(self.workspace(query, at_least=least), lwork)
        work = self.buffer(b.sext(b.load(lwork, typ=self.int), I64), self.t)
        orgqr = "ungqr" if self.complex else "orgqr"
        if mode:
            Q = self.buffer(b.mul(m, _max(b, mc, n)), self.t)  # holds the n columns copied in
            glwork = b.alloca(self.int)
            gq = [self.integer(m), self.integer(mc), self.integer(k), Q, self.integer(ld), tau]
            b.store(self.fint(-1), glwork)
            self.call(orgqr, gq + [query, glwork, info])
            count = self.workspace(query)
            # init_gqr_common allocates max(1, n, query) and passes that for real matrices,
            # the query's own count for complex ones
            b.store(count if self.complex else _max(b, count, least), glwork)
            gwork = self.buffer(b.sext(_max(b, count, least), I64), self.t)

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

    def eig(self, inputs, result, params) -> None:
        """``eig``/``eigvals``: geev with jobvl 'N' (jobvr 'V' with vectors), after NumPy's
        check that every entry is finite; packed as EigOp's: real input in two planes (real
        and imaginary parts, a complex pair's vectors ``v_j +- i v_j+1`` as NumPy's
        ``mk_geev_complex_eigenvectors``), complex input in plane 0."""
        (a,), (vectors,) = inputs, params
        b = self.b
        n = a[0].shape[-1]
        ld = _max(b, n, _i64(1))
        A = self.buffer(b.mul(n, n), self.t)
        VR = self.buffer(b.mul(n, n), self.t) if vectors else self.buffer(_i64(1), self.t)
        VL = self.buffer(_i64(1), self.t)
        if self.complex:
            W, rwork = self.buffer(n, Z128), self.buffer(b.mul(n, _i64(2)), F64)
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
        zero = _i64(0)
        if self.complex:
            (W,) = values
            if VR is not None:
                self.delinearize(result, ivs, VR, n, n, ld, plane=zero)
            emit_loop(b, n, lambda j: self.store(result, [*ivs, zero, *([n] if VR is not None else []), j],
                                                  self.fget(W, j)), vectorize=False)
            return
        wr, wi = values
        one = _i64(1)

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
            return b.select(pair, _i64(2), one)

        self.stepping(n, column)

    def stepping(self, count: ll.Value, body) -> None:
        """``j = 0; while j < count: j += body(j)`` (body returns its step, an i64)."""
        b = self.b
        j = b.alloca(I64)
        b.store(_i64(0), j)
        head, inner, done = (self.fn.append_basic_block(x) for x in ("pairs", "pair", "paired"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(b.icmp_signed("<", b.load(j, typ=I64), count), inner, done)
        b.position_at_end(inner)
        step = body(b.load(j, typ=I64))
        b.store(b.add(b.load(j, typ=I64), step), j)
        b.branch(head)
        b.position_at_end(done)

    def zero_fill(self, buf, count) -> None:
        emit_loop(self.b, count, lambda i: self.fset(buf, i, self.zero()), vectorize=False)

    def copy(self, source, target, count) -> None:
        emit_loop(self.b, count, lambda i: self.fset(target, i, self.fget(source, i)), vectorize=False)


def _i64(n: int) -> ll.Constant:
    return ll.Constant(I64, n)


def _max(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed(">", x, y), x, y)


def _min(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def _size(t: ll.Type) -> int:
    return {F64: 8, Z128: 16}.get(t, None) or t.width // 8
