"""The kernel form of ``array.svd`` on complex matrices, as LAPACK's ``zgebd2`` then a real
bidiagonal SVD: Householder reflectors in complex arithmetic from the left and the right
alternately reduce the tall T (A, or A^H when A is wide) to a real upper bidiagonal B =
Q^H T P (``zlarfg``'s beta is real; every column and every row gets a reflector, the last
ones with an empty x, so each diagonal and superdiagonal entry is), then ``bidiagonal``'s
implicit-shift QR on B with its turns on real U_B, V_B; T's vectors are Q U_B and P V_B
(complex times real). The QR iteration and its rotations are real: none of the real form's
pairs of singular vectors, which a repeated singular value mixes.
"""

from __future__ import annotations

from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType, i1, i64
from jitcore.passes.kernelize import bidiagonal
from jitcore.passes.kernelize.decompose import (
    _complex_householder,
    _conj,
    _fill,
    _finish,
    _fmul,
    _form_q,
    _fsub,
    _householder_column,
    _identity,
    _idx,
    _loop,
    _Matrix,
    _norm,
    _PairLog,
    _scalar,
)
from jitcore.passes.kernelize.factor import _close, _if
from jitcore.passes.kernelize.hermitian import _complex_sum, _largest_part, _times_real, complex_or_real
from jitcore.passes.kernelize.nonsymmetric import _fc, _Vars
from jitcore.passes.kernelize.spectral import _inc, _power_of_two


def _row_reflector(e, k, m: int, n: int, t, T: _Matrix, taup: _Matrix) -> None:
    """Row k's reflector right of the diagonal, as ``zgebd2``: x = conj(T[k, k+1:]), H^H x =
    beta e_1 (``zlarfg``, beta real, left in T[k, k+1]; v kept in T[k, k+2:], unconjugated),
    then rows k+1.. of T times H = I - h v v^H: ``T[i, :] -= h (T[i, :] . v) v^H``."""
    k1, k2 = _inc(e, k), e.op("arith.addi", k, _idx(e, 2))
    xnorm = _norm(e, k2, n, lambda e, j: T.get(e, k, j), t)
    beta, scale, h = _complex_householder(e, _conj(e, T.get(e, k, k1)), xnorm, t)
    taup.set(e, k, h)
    _loop(e, k2, n, lambda e, j, _: T.set(e, k, j, _fmul(e, _conj(e, T.get(e, k, j)), scale)))
    T.set(e, k, k1, beta)

    def v(e, j):
        first = e.op("arith.cmpi", j, k1, result=i1, predicate="eq")
        return e.select(first, _scalar(e, 1.0, t), T.get(e, k, j))

    _times_reflector(e, k1, m, k1, n, t, T, v, h)


def _times_reflector(e, row_lo, row_hi, lo, hi: int, t, M: _Matrix, v, h) -> None:
    """Rows row_lo..row_hi-1 of M, columns lo..hi-1, times I - h v v^H (``v(e, j)`` over those
    columns): ``M[i, :] -= h (M[i, :] . v) v^H``, a row at a time (contiguous)."""
    def row(e, i, _):
        f = _fmul(e, h, _complex_sum(e, lo, hi, lambda e, j: _fmul(e, M.get(e, i, j), v(e, j)), t.component))

        def entry(e, j, _):
            M.set(e, i, j, _fsub(e, M.get(e, i, j), _fmul(e, f, _conj(e, v(e, j)))))

        _loop(e, lo, hi, entry)

    _loop(e, row_lo, row_hi, row)


def complex_svd(op: array.SvdOp, a, kb, source, outer, t) -> kernel.GenericOp:
    """The results: 0 packed (U, Vh, then the singular values as real parts), 1 T, 2-3 U_B^T
    and V_B^T (real), 4 the superdiagonal, 5 scratch, 6-7 the QR iteration's variables, 8-11
    the logs of U_B's and V_B's turns, 12 the diagonal (the singular values), 13-14 the
    reflectors' scales, 15 Q, 16 P."""
    m0, n0 = a.type.shape[-2:]
    wide = m0 < n0
    rows, cols = (n0, m0) if wide else (m0, n0)  # T = A or A^H, rows x cols
    rt = t.component
    e = kb.emit
    batch = a.type.shape[:-2]
    T, ev, w = _Matrix(outer, t, 1), _Matrix(outer, rt, 4), _Matrix(outer, t, 5)
    s, tauq, taup = _Matrix(outer, rt, 12), _Matrix(outer, t, 13), _Matrix(outer, t, 14)
    Q, P = _Matrix(outer, t, 15), _Matrix(outer, t, 16)
    var = _Vars(outer, rt, 6, 7, bidiagonal.FLOATS, bidiagonal.INTS)
    u_cols, vh_rows = (m0, n0) if op.full else (cols, cols)
    u_count = (vh_rows if wide else u_cols) if op.vectors else 0

    def entry(e, i, j):  # T[i, j]
        if wide:
            return _conj(e, e.b.create(kernel.ExtractOp, [source, *outer, j, i], [t]).result)
        return e.b.create(kernel.ExtractOp, [source, *outer, i, j], [t]).result

    largest = _largest_part(e, rows, cols, entry, rt)
    bidiagonal._svd_fails(e, _fc(e, "uge", largest, e.const(float("inf"), rt)))  # NaN or inf
    scale = _power_of_two(e, largest, rt)
    scale_c = e.make_complex(scale, e.const(0.0, rt))
    _fill(e, rows, cols, T, lambda e, i, j: _fmul(e, entry(e, i, j), scale_c))

    def step(e, k, _):
        _householder_column(e, k, rows, t, T, tauq, w, cols)
        s.set(e, k, e.parts(T.get(e, k, k))[0])
        last = e.op("arith.cmpi", k, _idx(e, cols - 1), result=i1, predicate="eq")
        more, done = _if(e, e.op("arith.xori", last, e.const(True, i1)))
        _row_reflector(more, k, rows, cols, t, T, taup)
        ev.set(more, k, more.parts(T.get(more, k, _inc(more, k)))[0])
        ev.set(done, k, done.const(0.0, rt))
        _close(more, done)

    _loop(e, 0, cols, step)
    capacity = _PairLog.capacity(cols, bidiagonal.LOG_TURNS, rt) if op.vectors else 0
    logs = [None, None]
    if op.vectors:
        for result in (2, 3):
            _identity(e, cols, cols, _Matrix(outer, rt, result), rt)
        logs = [_PairLog(_Matrix(outer, rt, result), cols, cols, _Matrix(outer, i64, indices),
                         _Matrix(outer, rt, indices + 1), capacity, rt)
                for result, indices in ((2, 8), (3, 10))]
        for log in logs:
            log.start(e)
    bidiagonal._diagonalize(e, rows, cols, rt, s, ev, *logs, var)
    for log in logs:
        if log is not None:
            log.flush(e)
    packed = _Matrix(outer, t, 0)
    if op.vectors:
        _form_q(e, rows, u_count, cols, t, T, tauq, Q, w)
        _identity(e, cols, cols, P, t)
        if cols > 1:  # row reflector k acts on columns k+1..; its vector is row k past k+1
            shifted = _Matrix(outer, t, 1, offset=(0, 1), transposed=True)
            inner = _Matrix(outer, t, 16, offset=(1, 1))
            _form_q(e, cols - 1, cols - 1, cols - 1, t, shifted, taup, inner, w)
        Ubt, Vbt = _Matrix(outer, rt, 2), _Matrix(outer, rt, 3)

        def u_entry(e, i, j):  # (Q diag(U_B, I))[i, j]; U_B's j clamped where the identity's
            if u_count <= cols:
                return _times_real(e, cols, Q, Ubt, i, j, rt)
            inside = e.op("arith.cmpi", j, _idx(e, cols), result=i1, predicate="ult")
            clamped = e.op("arith.minsi", j, _idx(e, max(cols - 1, 0)))
            return e.select(inside, _times_real(e, cols, Q, Ubt, i, clamped, rt), Q.get(e, i, j))

        def v_entry(e, i, j):
            return _times_real(e, cols, P, Vbt, i, j, rt)

        u_view = packed  # U of A, or (wide) Vh^H: written conjugated into Vh's rows
        vh_view = _Matrix(outer, t, 0, offset=(m0, 0), transposed=True)
        if wide:  # A = T^H: U_A = P V_B, Vh_A = (Q U_B)^H
            _fill(e, rows, u_count, vh_view, lambda e, i, j: _conj(e, u_entry(e, i, j)))
            _fill(e, cols, cols, u_view, v_entry)
        else:
            _fill(e, rows, u_count, u_view, u_entry)
            _fill(e, cols, cols, vh_view, lambda e, i, j: _conj(e, v_entry(e, i, j)))
        values_at = (m0 + vh_rows,)
    else:
        values_at = ()

    def value(e, j, _):
        x = e.make_complex(e.op("arith.divf", s.get(e, j), scale), e.const(0.0, rt))
        packed.set(e, *values_at, j, x)

    _loop(e, 0, cols, value)
    square = (cols, cols) if op.vectors else (1, 1)
    results = [op.result_type, TensorType(batch + (rows, cols), t), TensorType(batch + square, rt),
               TensorType(batch + square, rt), TensorType(batch + (max(cols, 1),), rt),
               TensorType(batch + (max(rows, cols, 1),), t), TensorType(batch + (1,), rt),
               TensorType(batch + (len(bidiagonal.INTS),), i64)]
    for _ in range(2):
        indices, factors = _PairLog.sizes(capacity)
        results += [TensorType(batch + indices, i64), TensorType(batch + factors, rt)]
    results += [TensorType(batch + (max(cols, 1),), rt), TensorType(batch + (max(cols, 1),), t),
                TensorType(batch + (max(cols, 1),), t),
                TensorType(batch + ((rows, u_count) if op.vectors else (1, 1)), t),
                TensorType(batch + square, t)]
    return _finish(kb, op, results, [-1] * len(results))


RULES = {array.SvdOp: complex_or_real(complex_svd, bidiagonal.svd)}
