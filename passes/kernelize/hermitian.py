"""The kernel form of ``array.eigh`` on complex Hermitian matrices, as LAPACK's ``zheev``:
Householder reduction in complex arithmetic to a tridiagonal matrix that is real (``zhetd2``;
``zlarfg``'s beta is real, so every subdiagonal entry is), then ``spectral``'s real implicit QL
on it with its rotations turning a real Z, and the eigenvectors ``Q Z`` (Q from the complex
reflectors, as ``zungtr``). A real tridiagonal form makes the QL and its rotations real: a
quarter of the work of a complex QL, and none of the real form's doubled eigenvalues, whose
eigenvectors come in pairs that repeated eigenvalues mix.
"""

from __future__ import annotations

from jitcore.ir.core import Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType, i1, i64
from jitcore.passes.kernelize import spectral
from jitcore.passes.kernelize.decompose import (
    _complex_householder,
    _conj,
    _fadd,
    _fill,
    _finish,
    _fmul,
    _form_q,
    _fsub,
    _identity,
    _idx,
    _loop,
    _Matrix,
    _mul,
    _norm,
    _PairLog,
    _Row,
    _scalar,
    _setup,
    _sum,
)
from jitcore.passes.kernelize.spectral import (
    _inc,
    _power_of_two,
)


def _largest_part(e, rows: int, cols: int, get, rt) -> Value:
    """The largest magnitude of any part of ``get(e, i, j)`` over the matrix (NaN if any is)."""
    def row(e, i, c):
        def entry(e, j, c):
            re, im = e.parts(get(e, i, j))
            return [e.op("arith.maximumf", e.op("arith.maximumf", c[0], e.op("math.absf", re)),
                         e.op("math.absf", im))]

        return _loop(e, 0, cols, entry, c)

    (largest,) = _loop(e, 0, rows, row, [e.const(0.0, rt)])
    return largest


def _complex_sum(e, lo, hi, term, rt) -> Value:
    """The complex sum of ``term(e, j)`` over lo..hi-1, its real and imaginary parts summed
    apart (``decompose._sum``'s partial sums)."""
    def part(imaginary: bool):
        return _sum(e, lo, hi, lambda e, j: e.parts(term(e, j))[int(imaginary)], rt)

    return e.make_complex(part(False), part(True))


def _hermitian_tridiagonalize(e, n: int, t, A: _Matrix, tau: _Matrix, w: _Matrix) -> None:
    """Reduce the Hermitian A (its lower triangle) to a real tridiagonal matrix as ``zhetd2``:
    step k makes ``zlarfg``'s reflector H = I - h v v^H of column k below the diagonal (beta,
    real, left on the subdiagonal; v kept in row k past the superdiagonal, unconjugated) and
    updates the trailing lower triangle to ``H^H A H = A - v w^H - w v^H``, ``w = p - (h/2)
    (p^H v) v``, ``p = h A v``. All n - 1 columns get one, the last with an empty x: it turns
    a complex last subdiagonal entry real. ``A v`` from the lower triangle a row at a time
    (row i's entries left of the diagonal add into ``(A v)_i`` and, conjugated, ``(A v)_j``)."""
    rt = t.component
    zero = _scalar(e, 0.0, t)

    def step(e, k, _):
        k1, k2 = _inc(e, k), e.op("arith.addi", k, _idx(e, 2))
        xnorm = _norm(e, k2, n, lambda e, i: A.get(e, i, k), t)
        beta, scale, h = _complex_householder(e, A.get(e, k1, k), xnorm, t)
        tau.set(e, k, h)
        _loop(e, k2, n, lambda e, i, _: A.set(e, k, i, _fmul(e, A.get(e, i, k), scale)))
        A.set(e, k1, k, beta)

        def v(e, j):  # the reflector's vector over k+1..n-1 (its leading 1 implied)
            first = e.op("arith.cmpi", j, k1, result=i1, predicate="eq")
            return e.select(first, _scalar(e, 1.0, t), A.get(e, k, j))

        _loop(e, k1, n, lambda e, i, _: w.set(e, i, zero))

        def row_of_av(e, i, _):
            vi = v(e, i)

            def entry(e, j, c):
                a = A.get(e, i, j)
                w.set(e, j, _fadd(e, w.get(e, j), _fmul(e, _conj(e, a), vi)))
                return [_fadd(e, c[0], _fmul(e, a, v(e, j)))]

            (left,) = _loop(e, k1, i, entry, [zero])
            diagonal = e.make_complex(e.parts(A.get(e, i, i))[0], e.const(0.0, rt))  # real, as Hermitian
            w.set(e, i, _fadd(e, w.get(e, i), _fadd(e, _fmul(e, diagonal, vi), left)))

        _loop(e, k1, n, row_of_av)
        _loop(e, k1, n, lambda e, i, _: w.set(e, i, _fmul(e, h, w.get(e, i))))

        pv = _complex_sum(e, k1, n, lambda e, j: _fmul(e, _conj(e, w.get(e, j)), v(e, j)), rt)  # p^H v
        alpha = _fmul(e, _fmul(e, _scalar(e, -0.5, t), h), pv)
        _loop(e, k1, n, lambda e, j, _: w.set(e, j, _fadd(e, w.get(e, j), _fmul(e, alpha, v(e, j)))))

        def update(e, i, _):
            vi, wi = v(e, i), w.get(e, i)

            def entry(e, j, _):
                both = _fadd(e, _fmul(e, vi, _conj(e, w.get(e, j))), _fmul(e, wi, _conj(e, v(e, j))))
                A.set(e, i, j, _fsub(e, A.get(e, i, j), both))

            _loop(e, k1, _inc(e, i), entry)

        _loop(e, k1, n, update)

    _loop(e, 0, max(n - 1, 0), step)


def _times_real(e, n: int, C: _Matrix, Rt: _Matrix, i, j, rt) -> Value:
    """(C R)[i, j] = sum over k < n of C[i, k] R[k, j], R real and stored as its transpose."""
    def part(imaginary: bool):
        def term(e, k):
            return _mul(e, e.parts(C.get(e, i, k))[int(imaginary)], Rt.get(e, j, k))
        return _sum(e, 0, n, term, rt)

    return e.make_complex(part(False), part(True))


def hermitian_eigh(op, a, kb, source, outer, t) -> kernel.GenericOp:
    """The results: 0 packed (complex; eigenvalues as real parts), 1 the scaled matrix and the
    reflectors, 2 Z^T (real), 3 Q, 4 tau, 5 scratch, 6 the off-diagonal, 7-8 the rotation log,
    9 the diagonal (the eigenvalues)."""
    n = a.type.shape[-1]
    rt = t.component
    A, Zt, Q = _Matrix(outer, t, 1), _Matrix(outer, rt, 2), _Matrix(outer, t, 3)
    tau, w, off = _Matrix(outer, t, 4), _Matrix(outer, t, 5), _Matrix(outer, rt, 6)
    d = _Matrix(outer, rt, 9)
    e = kb.emit

    def lower(e, i, j):  # the lower triangle (the upper one is never read)
        return e.b.create(kernel.ExtractOp, [source, *outer, i, j], [t]).result

    def lower_at(e, i, j):
        below = e.op("arith.cmpi", j, i, result=i1, predicate="ule")
        return lower(e, e.select(below, i, j), e.select(below, j, i))

    scale = _power_of_two(e, _largest_part(e, n, n, lower_at, rt), rt)
    scale_c = e.make_complex(scale, e.const(0.0, rt))
    _fill(e, n, n, A, lambda e, i, j: _fmul(e, lower_at(e, i, j), scale_c))
    _hermitian_tridiagonalize(e, n, t, A, tau, w)
    _loop(e, 0, n, lambda e, i, _: d.set(e, i, e.parts(A.get(e, i, i))[0]))
    _loop(e, 0, n - 1, lambda e, i, _: off.set(e, i, e.parts(A.get(e, _inc(e, i), i))[0]))
    if n:
        off.set(e, n - 1, e.const(0.0, rt))
    if op.vectors:
        _identity(e, n, n, Zt, rt)
    spectral._ql_sorted(e, outer, n, rt, d, off, scale, bool(op.vectors))
    packed = _Matrix(outer, t, 0)
    values = _Row(packed, n) if op.vectors else packed
    _loop(e, 0, n, lambda e, i, _: values.set(e, i, e.make_complex(d.get(e, i), e.const(0.0, rt))))
    if op.vectors:
        _identity(e, n, n, Q, t)
        if n > 1:  # the reflectors act on rows 1..n-1; reflector k's vector is row k past k+1
            shifted = _Matrix(outer, t, 1, offset=(0, 1), transposed=True)
            _form_q(e, n - 1, n - 1, n - 1, t, shifted, tau, _Matrix(outer, t, 3, offset=(1, 1)), w)

        _fill(e, n, n, packed, lambda e, i, j: _times_real(e, n, Q, Zt, i, j, rt))
    vector = a.type.with_shape(a.type.shape[:-2] + (n,))
    real_vector = TensorType(vector.shape, rt)
    batch = a.type.shape[:-2]
    sizes = _PairLog.sizes(_PairLog.capacity(n, spectral.LOG_SWEEPS, rt) if op.vectors else 0)
    logs = [TensorType(batch + sizes[0], i64), TensorType(batch + sizes[1], rt)]
    results = [op.result_type, a.type, TensorType(a.type.shape, rt), a.type, vector, vector, real_vector,
               *logs, real_vector]
    return _finish(kb, op, results, [-1] * len(results))


def complex_or_real(complex_kernel, real_rule):
    """The rule that lowers an op with ``complex_kernel(op, *_setup(op))`` where its operand
    is complex, else with the real kernel's rule."""
    def rule(op):
        if op.operands[0].type.element.is_complex:
            return complex_kernel(op, *_setup(op))
        return real_rule(op)

    return rule


RULES = {array.EighOp: complex_or_real(hermitian_eigh, spectral.eigh)}
