"""The LLVM helpers of a LAPACK kernel (``codegen/cpu/lapack.py``): Fortran scalars passed by
pointer, buffers from ``malloc`` freed before the kernel returns, NumPy's ``linearize_matrix``
and ``delinearize_matrix`` between the kernel's operands and column-major buffers, in NumPy's
compute types (float64, complex128), and the status word."""

from __future__ import annotations

from llvmlite import ir as ll

from jitcore.codegen.cpu.blas import BlasLibrary
from jitcore.codegen.kernel_body import Operand, entry_builder
from jitcore.codegen.llvm_types import I64, PTR, declare, value_type
from jitcore.codegen.loops import emit_loop, emit_nest

F64 = ll.DoubleType()
Z128 = ll.LiteralStructType([F64, F64])
I8 = ll.IntType(8)
VOID = ll.VoidType()


class Emitter:
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
        size = b.mul(int_max(b, count, const64(1)), const64(byte_size(etype)))
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
            count = int_max(b, count, at_least)
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
        offset = const64(0)
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
        row0 = row0 if row0 is not None else const64(0)
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
        first = b.icmp_unsigned("==", b.load(self.status, typ=I64), const64(0))
        with b.if_then(first):
            b.store(const64(code), self.status)

    def batch(self, arg, body) -> None:
        """``body(ivs)`` for each matrix of ``arg``'s batch."""
        emit_nest(self.b, arg[0].shape[:-2], body)

    def zero_fill(self, buf, count) -> None:
        emit_loop(self.b, count, lambda i: self.fset(buf, i, self.zero()), vectorize=False)

    def copy(self, source, target, count) -> None:
        emit_loop(self.b, count, lambda i: self.fset(target, i, self.fget(source, i)), vectorize=False)


def const64(n: int) -> ll.Constant:
    return ll.Constant(I64, n)


def int_max(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed(">", x, y), x, y)


def int_min(b: ll.IRBuilder, x: ll.Value, y: ll.Value) -> ll.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def byte_size(t: ll.Type) -> int:
    return {F64: 8, Z128: 16}.get(t, None) or t.width // 8
