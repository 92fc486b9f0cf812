"""The kernel form of ``array.eig`` on complex matrices, as LAPACK's ``zgeev`` without its
balancing: Householder reduction to Hessenberg form in complex arithmetic (``zgehd2``), the
single-shift QR algorithm to the complex Schur form T = Z^H A Z (``zlahqr``: Wilkinson's shift
from the trailing 2x2, an exceptional shift after 10 and 20 sweeps without a deflation, complex
plane rotations chasing the bulge), then with vectors the eigenvectors of T by
back-substitution (``ztrevc``), times Z, each of unit norm with its largest component real
(``zgeev``'s normalisation, so NumPy's up to rounding where the eigenvalue is simple).

The whole Schur form is updated only with vectors; eigvals turns the active window alone. A
matrix with NaN or inf entries raises ``LinAlgError`` after the call, so does one whose QR
iteration runs past ``30 * max(10, n)`` sweeps, as ``numpy.linalg.eig``.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import numpy_dtype
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import i1
from jitcore.passes.kernelize import nonsymmetric
from jitcore.passes.kernelize.complex_svd import _times_reflector
from jitcore.passes.kernelize.decompose import (
    _complex_householder,
    _conj,
    _eps,
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
    _norm,
    _reflect,
    _Row,
    _scalar,
)
from jitcore.passes.kernelize.factor import _close, _if
from jitcore.passes.kernelize.hermitian import _complex_sum, _largest_part, complex_or_real
from jitcore.passes.kernelize.nonsymmetric import _and, _dec, _fc, _ic, _inc, _not, _when
from jitcore.passes.kernelize.sort import _while
from jitcore.passes.kernelize.spectral import _power_of_two

EXCEPTIONAL = (10, 20)  # sweeps without a deflation after which the shift is an exceptional one


def _cabs1(e, z):
    """|re z| + |im z|, LAPACK's cheap magnitude for its tests."""
    re, im = e.parts(z)
    return e.op("arith.addf", e.op("math.absf", re), e.op("math.absf", im))


def _real(e, x, t):
    return e.make_complex(x, e.const(0.0, t.component))


def _hessenberg(e, n: int, t, H: _Matrix, tau: _Matrix, w: _Matrix) -> None:
    """H to upper Hessenberg form as ``zgehd2``: reflector k (``zlarfg``) of column k below the
    subdiagonal, v kept below it, applied as H^H from the left to rows k+1.. and as H from the
    right to columns k+1.."""
    below = _Matrix(H.outer, t, H.result, offset=(1, 0))  # H's rows from 1: v under row k

    def step(e, k, _):
        k1, k2 = _inc(e, k), _inc(e, k, 2)
        xnorm = _norm(e, k2, n, lambda e, i: H.get(e, i, k), t)
        beta, scale, h = _complex_householder(e, H.get(e, k1, k), xnorm, t)
        tau.set(e, k, h)
        _loop(e, k2, n, lambda e, i, _: H.set(e, i, k, _fmul(e, H.get(e, i, k), scale)))
        H.set(e, k1, k, beta)
        _reflect(e, k, n - 1, _conj(e, h), below, below, k1, n, w)

        def v(e, j):
            first = _ic(e, "eq", j, k1)
            return e.select(first, _scalar(e, 1.0, t), H.get(e, j, k))

        _times_reflector(e, 0, n, k1, n, t, H, v, h)

    _loop(e, 0, max(n - 2, 0), step)


def _givens(e, f, g, t):
    """(c, s, r), c real, with [[c, s], [-conj(s), c]] (f, g) = (r, 0)."""
    rt = t.component
    zero, one = e.const(0.0, rt), e.const(1.0, rt)
    fa, ga = e.op("math.hypot", *e.parts(f)), e.op("math.hypot", *e.parts(g))
    size = e.op("math.hypot", fa, ga)
    f_zero, all_zero = _fc(e, "oeq", fa, zero), _fc(e, "oeq", size, zero)
    phase = e.elementwise("div", [f, _real(e, e.select(f_zero, one, fa), t)])
    phase = e.select(f_zero, _scalar(e, 1.0, t), phase)
    safe = e.select(all_zero, one, size)
    c = e.select(all_zero, one, e.op("arith.divf", fa, safe))
    s = _fmul(e, phase, e.elementwise("div", [_conj(e, g), _real(e, safe, t)]))
    r = e.select(all_zero, f, _fmul(e, phase, _real(e, size, t)))
    return c, s, r


def _rotate(e, lo, hi, get, put, c, s, t) -> None:
    """(x, y) <- (c x + s y, c y - conj(s) x) over lo..hi-1; ``get(e, i)`` the pair, ``put`` its
    writer. The left rotation on two rows; on two columns with conj(s) its adjoint's."""
    cc = _real(e, c, t)

    def entry(e, i, _):
        x, y = get(e, i)
        put(e, i, _fadd(e, _fmul(e, cc, x), _fmul(e, s, y)),
            _fsub(e, _fmul(e, cc, y), _fmul(e, _conj(e, s), x)))

    _loop(e, lo, hi, entry)


def _rotate_rows(e, H, p, q, lo, hi, c, s, t) -> None:
    _rotate(e, lo, hi, lambda e, j: (H.get(e, p, j), H.get(e, q, j)),
            lambda e, j, x, y: (H.set(e, p, j, x), H.set(e, q, j, y)), c, s, t)


def _rotate_columns(e, M, p, q, lo, hi, c, s, t) -> None:
    """Columns p, q of M times G^H: (x, y) <- (c x + conj(s) y, c y - s x)."""
    _rotate(e, lo, hi, lambda e, i: (M.get(e, i, p), M.get(e, i, q)),
            lambda e, i, x, y: (M.set(e, i, p, x), M.set(e, i, q, y)), c, _conj(e, s), t)


def _shift(e, H, hi, stuck, t):
    """Wilkinson's shift: the eigenvalue of the trailing 2x2 nearer H[hi, hi] (``d - bc / (p +
    sqrt(p^2 + bc))``, p = (a - d) / 2, the root's sign making the sum the larger); after
    ``EXCEPTIONAL`` sweeps without a deflation ``H[hi, hi] + 0.75 |re H[hi, hi-1]|``."""
    rt = t.component
    h1 = _dec(e, hi)
    a, b, c, d = H.get(e, h1, h1), H.get(e, h1, hi), H.get(e, hi, h1), H.get(e, hi, hi)
    p = _fmul(e, _fsub(e, a, d), _scalar(e, 0.5, t))
    bc = _fmul(e, b, c)
    root = e.elementwise("sqrt", [_fadd(e, _fmul(e, p, p), bc)])
    (pr, pi), (rr, ri) = e.parts(p), e.parts(root)
    same = _fc(e, "oge", e.op("arith.addf", e.op("arith.mulf", pr, rr), e.op("arith.mulf", pi, ri)),
               e.const(0.0, rt))
    below = _fadd(e, p, e.select(same, root, e.elementwise("neg", [root])))
    nothing = _fc(e, "oeq", _cabs1(e, below), e.const(0.0, rt))
    safe = e.select(nothing, _scalar(e, 1.0, t), below)
    wilkinson = e.select(nothing, d, _fsub(e, d, e.elementwise("div", [bc, safe])))
    exceptional = _real(e, e.op("arith.mulf", e.const(0.75, rt), e.op("math.absf", e.parts(c)[0])), t)
    odd = _ic(e, "eq", stuck, EXCEPTIONAL[0])
    odd = e.op("arith.ori", odd, _ic(e, "eq", stuck, EXCEPTIONAL[1]))
    return e.select(odd, _fadd(e, d, exceptional), wilkinson)


def _sweep(e, n: int, lo, hi, t, H, Z, vectors: bool, stuck) -> None:
    """One single-shift QR sweep on the window lo..hi: the first rotation from (H[lo, lo] -
    shift, H[lo+1, lo]), then rotations chasing the bulge H[k+2, k] down; the rows' updates
    run over the columns from the window on (to n with vectors, else to hi), the columns'
    over the rows up to the bulge (from 0 with vectors, else from lo); Z's columns along."""
    end = n if vectors else _inc(e, hi)
    shift = _shift(e, H, hi, stuck, t)

    def rotation(e, k, f, g, first: bool):
        k1 = _inc(e, k)
        c, s, r = _givens(e, f, g, t)
        if not first:  # the bulge's column: r above, 0 below
            H.set(e, k, _dec(e, k), r)
            H.set(e, k1, _dec(e, k), _scalar(e, 0.0, t))
        _rotate_rows(e, H, k, k1, k, end, c, s, t)
        bottom = e.op("arith.minsi", _inc(e, k, 2), hi)
        _rotate_columns(e, H, k, k1, 0 if vectors else lo, _inc(e, bottom), c, s, t)
        if vectors:
            _rotate_columns(e, Z, k, k1, 0, n, c, s, t)

    rotation(e, lo, _fsub(e, H.get(e, lo, lo), shift), H.get(e, _inc(e, lo), lo), True)

    def chase(e, k, _):
        rotation(e, k, H.get(e, k, _dec(e, k)), H.get(e, _inc(e, k), _dec(e, k)), False)

    _loop(e, _inc(e, lo), hi, chase)


def _schur(e, n: int, t, H, Z, vectors: bool):
    """The QR iteration from the bottom: a negligible subdiagonal entry (``zlahqr``'s test,
    zeroed) splits the window; a 1x1 window is an eigenvalue. Returns whether it converged."""
    rt = t.component
    eps = e.const(_eps(rt), rt)
    tiny = e.const(float(np.finfo(numpy_dtype(rt)).tiny), rt)
    limit = 30 * max(10, n)

    def go_on(e, c):
        hi, count, _ = c
        return _and(e, _ic(e, "sge", hi, 0), _ic(e, "slt", count, limit))

    def body(e, c):
        hi, count, stuck = c

        def scan(e, c):  # the last l in (0, hi] with a negligible H[l, l-1] (zeroed), else 0
            low, _ = c
            before = _dec(e, low)
            size = e.op("arith.addf", _cabs1(e, H.get(e, before, before)), _cabs1(e, H.get(e, low, low)))
            bound = e.op("arith.addf", tiny, e.op("arith.mulf", eps, size))
            small = _fc(e, "ole", _cabs1(e, H.get(e, low, before)), bound)
            _when(e, small, lambda e: H.set(e, low, before, _scalar(e, 0.0, t)))
            return [e.select(small, low, before), small]

        def searching(e, c):
            return _and(e, _not(e, c[1]), _ic(e, "sgt", c[0], 0))

        low, _ = _while(e, [hi, e.const(False, i1)], searching, scan)
        single = _ic(e, "eq", low, hi)
        sweep, done = _if(e, _not(e, single))
        _sweep(sweep, n, low, hi, t, H, Z, vectors, stuck)
        _close(sweep, done)
        return [e.select(single, _dec(e, hi), hi), e.select(single, count, _inc(e, count)),
                e.select(single, _idx(e, 0), _inc(e, stuck))]

    hi, _, _ = _while(e, [_idx(e, n - 1), _idx(e, 0), _idx(e, 0)], go_on, body)
    e.b.create(kernel.RaiseOp, [_ic(e, "sge", hi, 0)], [], {"code": kernel.NO_CONVERGENCE})


def _eigenvectors(e, n: int, t, T, Z, x, acc, V) -> None:
    """Column k of V: Z x with x the eigenvector of the triangular T for T[k, k] (x_k = 1,
    the rows above by back-substitution, a divisor smaller than ``eps |T[k, k]|`` replaced
    by that, as ``ztrevc``), of unit norm and turned so its largest component is real; Z x
    summed a column of Z at a time into ``acc``."""
    rt = t.component
    eps = e.const(_eps(rt), rt)
    tiny = e.const(float(np.finfo(numpy_dtype(rt)).tiny), rt)

    def column(e, k, _):
        value = T.get(e, k, k)
        smallest = e.op("arith.maximumf", e.op("arith.mulf", eps, _cabs1(e, value)), tiny)
        x.set(e, k, _scalar(e, 1.0, t))

        def row(e, r, _):
            i = _dec(e, k, _inc(e, r))
            i1_ = _inc(e, i)

            above = _complex_sum(e, i1_, k, lambda e, j: _fmul(e, T.get(e, i, j), x.get(e, j)), rt)
            total = _fadd(e, T.get(e, i, k), above)
            divisor = _fsub(e, T.get(e, i, i), value)
            divisor = e.select(_fc(e, "olt", _cabs1(e, divisor), smallest), _real(e, smallest, t), divisor)
            x.set(e, i, e.elementwise("neg", [e.elementwise("div", [total, divisor])]))

        _loop(e, 0, k, row)

        _loop(e, 0, n, lambda e, i, _: acc.set(e, i, _scalar(e, 0.0, t)))

        def add_row(e, j, _):  # acc += x_j Z[:, j], Z's column j a row of its storage
            xj = x.get(e, j)

            def entry(e, i, _):
                acc.set(e, i, _fadd(e, acc.get(e, i), _fmul(e, Z.get(e, i, j), xj)))

            _loop(e, 0, n, entry)

        _loop(e, 0, _inc(e, k), add_row)
        _loop(e, 0, n, lambda e, i, _: V.set(e, i, k, acc.get(e, i)))
        size = _norm(e, 0, n, lambda e, i: V.get(e, i, k), t)

        def largest(e, i, c):
            re, im = e.parts(V.get(e, i, k))
            square = e.op("arith.addf", e.op("arith.mulf", re, re), e.op("arith.mulf", im, im))
            wins = _fc(e, "ogt", square, c[1])
            return [e.select(wins, i, c[0]), e.select(wins, square, c[1])]

        at, _ = _loop(e, 0, n, largest, [_idx(e, 0), e.const(-1.0, rt)])
        top = V.get(e, at, k)
        magnitude = e.op("math.hypot", *e.parts(top))
        safe = e.select(_fc(e, "ogt", magnitude, e.const(0.0, rt)), magnitude, e.const(1.0, rt))
        turn = e.elementwise("div", [_conj(e, top), _real(e, e.op("arith.mulf", safe, size), t)])
        _loop(e, 0, n, lambda e, i, _: V.set(e, i, k, _fmul(e, V.get(e, i, k), turn)))
        V.set(e, at, k, _real(e, e.parts(V.get(e, at, k))[0], t))

    _loop(e, 0, n, column)


def complex_eig(op: array.EigOp, a, kb, source, outer, t) -> kernel.GenericOp:
    """The results: 0 packed (plane 0: the eigenvectors as columns, then the eigenvalues; or
    the eigenvalues alone), 1 H (then T), 2 Z^T, 3 the reflectors' scales, 4-5 scratch."""
    n = a.type.shape[-1]
    rt = t.component
    e = kb.emit
    H, tau, w, acc = _Matrix(outer, t, 1), _Matrix(outer, t, 3), _Matrix(outer, t, 4), _Matrix(outer, t, 5)
    Z = _Matrix(outer, t, 2, transposed=True)  # held as Z^T: the rotations turn its rows
    plane = _Matrix([*outer, _idx(e, 0)], t, 0)
    values = _Row(plane, n) if op.vectors else _Row(_Matrix(outer, t, 0), 0)

    def entry(e, i, j):
        return e.b.create(kernel.ExtractOp, [source, *outer, i, j], [t]).result

    largest = _largest_part(e, n, n, entry, rt)
    e.b.create(kernel.RaiseOp, [_fc(e, "uge", largest, e.const(float("inf"), rt))], [],
               {"code": kernel.NOT_FINITE})
    scale = _power_of_two(e, largest, rt)
    _fill(e, n, n, H, lambda e, i, j: _fmul(e, entry(e, i, j), _real(e, scale, t)))
    _hessenberg(e, n, t, H, tau, w)
    if op.vectors:
        _identity(e, n, n, Z, t)
        if n > 1:  # reflector k acts on rows k+1..; its vector is H's column k below k+1
            _form_q(e, n - 1, n - 1, max(n - 2, 0), t, _Matrix(outer, t, 1, offset=(1, 0)), tau,
                    _Matrix(outer, t, 2, offset=(1, 1), transposed=True), w)

    def clear(e, i, _):  # the reflectors' vectors below the subdiagonal
        _loop(e, 0, _dec(e, i), lambda e, j, _: H.set(e, i, j, _scalar(e, 0.0, t)))

    _loop(e, 2, n, clear)
    _schur(e, n, t, H, Z, bool(op.vectors))
    if op.vectors:
        _eigenvectors(e, n, t, H, Z, w, acc, plane)
    unscale = _real(e, e.op("arith.divf", e.const(1.0, rt), scale), t)
    _loop(e, 0, n, lambda e, i, _: values.set(e, i, _fmul(e, H.get(e, i, i), unscale)))
    vector = a.type.with_shape(a.type.shape[:-2] + (max(n, 1),))
    square = a.type.with_shape(a.type.shape[:-2] + ((n, n) if op.vectors else (1, 1)))
    results = [op.result_type, a.type, square, vector, vector, vector]
    return _finish(kb, op, results, [-1] * len(results))


RULES = {array.EigOp: complex_or_real(complex_eig, nonsymmetric.eig)}
