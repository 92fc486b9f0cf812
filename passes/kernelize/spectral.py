"""The kernel form of ``array.eigh`` (the helpers are ``decompose.py``'s): Householder
reduction to tridiagonal form (as ``sytd2``), then the implicit QL method with Wilkinson's
shift (EISPACK's ``tql2``), Q and the plane rotations accumulated as the rows of Z^T so the
updates run along rows, the rotations logged and applied ~30 sweeps at a time, a strip of
columns at a time (``decompose._PairLog``); eigenvalues sorted ascending.

QL stops after ``QL_ITERATIONS`` per eigenvalue whatever remains (NaN input gives NaN, never a
hang). The symmetric matrix is first scaled by a power of two that brings its largest entry
near 1 (exact), so squares neither overflow nor underflow; ``_largest`` and ``_power_of_two``
serve ``eig`` and ``svd`` (``nonsymmetric.py``, ``bidiagonal.py``) too.
"""

from __future__ import annotations

from jitcore.ir.core import Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType, f64, i1, i32, i64
from jitcore.passes.kernelize.decompose import (
    _abs,
    _add_f,
    _eps,
    _fill,
    _finish,
    _fma,
    _form_q,
    _householder,
    _identity,
    _idx,
    _loop,
    _Matrix,
    _max_abs,
    _mul,
    _norm,
    _not,
    _PairLog,
    _Row,
    _setup,
    _sub,
    _sum,
)
from jitcore.passes.kernelize.factor import _close, _if
from jitcore.passes.kernelize.sort import _while


def _sort_columns(e, k: int, key: _Matrix, ascending: bool, matrices) -> None:
    """Selection sort of ``key`` (a vector of k) with the columns of each (matrix, rows) in
    ``matrices`` following; the first extreme wins, so equal keys keep their order."""
    def position(e, i, _):
        def better(e, j, carried):
            best, v = carried
            x = key.get(e, j)
            wins = e.op("arith.cmpf", x, v, result=i1, predicate="olt" if ascending else "ogt")
            return [e.select(wins, j, best), e.select(wins, x, v)]

        best, v = _loop(e, e.op("arith.addi", i, _idx(e, 1)), k, better, [i, key.get(e, i)])
        moved = e.op("arith.cmpi", best, i, result=i1, predicate="ne")
        then, other = _if(e, moved)
        key.set(then, best, key.get(then, i))
        key.set(then, i, v)
        for M, rows in matrices:
            def swap(e, r, _, M=M):
                x, y = M.get(e, r, i), M.get(e, r, best)
                M.set(e, r, i, y)
                M.set(e, r, best, x)

            _loop(then, 0, rows, swap)
        _close(then, other)

    _loop(e, 0, k, position)


# -- eigh ----------------------------------------------------------------------------------
def _largest(e, rows: int, cols: int, get, t) -> Value:
    """The largest magnitude of ``get(e, i, j)`` over the matrix (NaN if any is)."""
    def row(e, i, c):
        return _loop(e, 0, cols, lambda e, j, c: [_max_abs(e, c[0], get(e, i, j))], c)

    (largest,) = _loop(e, 0, rows, row, [e.const(0.0, t)])
    return largest


def _power_of_two(e, largest, t) -> Value:
    """A power of two that brings ``largest`` near 1 (1 for 0, inf or NaN): the algorithms square
    entries, which must neither overflow nor underflow; scaling by it is exact."""
    bits, mantissa, bias, limit = (i64, 52, 1023, 1000) if t == f64 else (i32, 23, 127, 120)
    usable = e.op("arith.andi", e.op("arith.cmpf", largest, e.const(0.0, t), result=i1, predicate="ogt"),
                  e.op("arith.cmpf", largest, e.const(float("inf"), t), result=i1, predicate="olt"))
    x = e.select(usable, largest, e.const(1.0, t))
    k = e.op("arith.fptosi", e.op("math.floor", e.op("math.log2", x)), result=bits)
    k = e.op("arith.minsi", e.op("arith.maxsi", k, e.const(-limit, bits)), e.const(limit, bits))
    biased = e.op("arith.subi", e.const(bias, bits), k)
    return e.op("arith.bitcast", e.op("arith.shli", biased, e.const(mantissa, bits)), result=t)


def _transpose_into(e, n: int, cols: int, source: _Matrix, target: _Matrix) -> None:
    """target[i, j] = source[j, i] for i < n, j < cols."""
    _fill(e, n, cols, target, lambda e, i, j: source.get(e, j, i))


def _inc(e, i):
    return e.op("arith.addi", i, _idx(e, 1))


def _tridiagonalize(e, n: int, t, A: _Matrix, tau: _Matrix, w: _Matrix) -> None:
    """Reduce the symmetric A to tridiagonal form by reflectors from the two sides, as
    LAPACK's ``sytd2`` on the lower triangle: step k makes the reflector of column k below the
    diagonal (the subdiagonal entry left there), keeps its vector in row k past the
    superdiagonal (the upper triangle is not kept otherwise), and updates the trailing lower triangle
    ``A -= v w^T + w v^T`` with ``w = p - (h/2)(v.p) v``, ``p = h A v`` (in scratch ``w``).
    ``A v`` is read from the lower triangle alone, a row at a time: row i's entries left of the
    diagonal give ``(A v)_i`` as a dot product and add ``A_ij v_i`` into ``(A v)_j`` in the
    same pass (``symv``'s way), so each step reads half the matrix once for ``A v`` and updates
    the same half, where both triangles were read and updated. (In panels, as ``sytrd`` with
    ``latrd``: within 0-6% of the two-triangle form, for 0.3-0.5 s more compile; not kept,
    docs/performance.md.)"""
    def step(e, k, _):
        k1, k2 = e.op("arith.addi", k, _idx(e, 1)), e.op("arith.addi", k, _idx(e, 2))
        xnorm = _norm(e, k2, n, lambda e, i: A.get(e, i, k), t)
        beta, to_v, h = _householder(e, A.get(e, k1, k), xnorm, t)
        tau.set(e, k, h)
        _loop(e, k2, n, lambda e, i, _: A.set(e, k, i, to_v(e, A.get(e, i, k))))
        A.set(e, k1, k, beta)

        def v(e, j):  # the reflector's vector over k+1..n-1 (its leading 1 implied)
            first = e.op("arith.cmpi", j, k1, result=i1, predicate="eq")
            return e.select(first, e.const(1.0, t), A.get(e, k, j))

        _loop(e, k1, n, lambda e, i, _: w.set(e, i, e.const(0.0, t)))

        def row_of_av(e, i, _):  # row i of the lower triangle into A v, both ways at once
            vi = v(e, i)

            def entry(e, j, c):
                a = A.get(e, i, j)
                w.set(e, j, _fma(e, a, vi, w.get(e, j)))
                return [e.op("arith.addf", c[0], _mul(e, a, v(e, j)), fastmath="reassoc")]

            (left,) = _loop(e, k1, i, entry, [e.const(0.0, t)])
            w.set(e, i, _add_f(e, w.get(e, i), _fma(e, A.get(e, i, i), vi, left)))

        _loop(e, k1, n, row_of_av)
        _loop(e, k1, n, lambda e, i, _: w.set(e, i, _mul(e, h, w.get(e, i))))
        vp = _sum(e, k1, n, lambda e, j: _mul(e, v(e, j), w.get(e, j)), t)
        half = _mul(e, _mul(e, e.const(0.5, t), h), vp)
        _loop(e, k1, n, lambda e, j, _: w.set(e, j, _sub(e, w.get(e, j), _mul(e, half, v(e, j)))))

        def update(e, i, _):
            vi, wi = e.op("arith.negf", v(e, i)), e.op("arith.negf", w.get(e, i))
            def entry(e, j, _):
                A.set(e, i, j, _fma(e, wi, v(e, j), _fma(e, vi, w.get(e, j), A.get(e, i, j))))

            _loop(e, k1, _inc(e, i), entry)

        _loop(e, k1, n, update)

    _loop(e, 0, max(n - 2, 0), step)


LOG_SWEEPS = 16  # eigh's rotations wait in a log of this many times n (about 30 sweeps)
QL_ITERATIONS = 60  # per eigenvalue; NaN input stops here, with NaN results


def _tridiagonal_ql(e, n: int, t, d, off, Zt: _PairLog | None) -> None:
    """The eigenvalues of the symmetric tridiagonal matrix (diagonal ``d``, off-diagonal
    ``off``, both vectors, ``off[n-1]`` 0) in ``d``, by the implicit QL method with Wilkinson's
    shift (EISPACK's ``tql2``); each plane rotation also turns rows i, i+1 of the log's matrix
    (the eigenvectors as rows), applied in batches of sweeps (``_PairLog``)."""
    eps = e.const(_eps(t), t)
    zero, one = e.const(0.0, t), e.const(1.0, t)

    def eigenvalue(e, lo, _):
        def split(e, j, carried):  # the first j >= l with a negligible off[j]
            m, found = carried
            size = _add_f(e, _abs(e, d.get(e, j)), _abs(e, d.get(e, e.op("arith.addi", j, _idx(e, 1)))))
            small = e.op("arith.cmpf", _abs(e, off.get(e, j)), _mul(e, eps, size), result=i1, predicate="ole")
            now = e.op("arith.andi", small, _not(e, found))
            return [e.select(now, j, m), e.op("arith.ori", found, small)]

        def go_on(e, carried):
            count, more = carried
            below = e.op("arith.cmpi", count, _idx(e, QL_ITERATIONS), result=i1, predicate="slt")
            return e.op("arith.andi", more, below)

        def iteration(e, carried):
            count, _ = carried
            m, _found = _loop(e, lo, n - 1, split, [_idx(e, n - 1), e.const(False, i1)])
            more = e.op("arith.cmpi", m, lo, result=i1, predicate="ne")
            then, other = _if(e, more)
            if Zt is not None:
                Zt.reserve(then, n)
            _ql_step(then, lo, m, t, d, off, Zt, n, zero, one)
            _close(then, other)
            return [e.op("arith.addi", count, _idx(e, 1)), more]

        _while(e, [_idx(e, 0), e.const(True, i1)], go_on, iteration)

    _loop(e, 0, n, eigenvalue)


def _ql_step(e, lo, m, t, d, off, Zt, n: int, zero, one) -> None:
    """One implicit QL sweep from m up to l (``tql2``'s inner loop); a rotation radius of zero
    (an underflow) deflates instead: d[i+1] -= p, off[m] = 0, the rest of the sweep skipped."""
    l1 = e.op("arith.addi", lo, _idx(e, 1))
    dl, el = d.get(e, lo), off.get(e, lo)
    g = e.op("arith.divf", _sub(e, d.get(e, l1), dl), _mul(e, e.const(2.0, t), el))
    r = e.op("math.hypot", g, one)
    g = _add_f(e, _sub(e, d.get(e, m), dl), e.op("arith.divf", el, _add_f(e, g, e.op("math.copysign", r, g))))

    def rotation(e, step, carried):
        s, c, p, g, under = carried
        i = e.op("arith.subi", e.op("arith.subi", m, _idx(e, 1)), step)
        i1_ = e.op("arith.addi", i, _idx(e, 1))
        f, b = _mul(e, s, off.get(e, i)), _mul(e, c, off.get(e, i))
        r = e.op("math.hypot", f, g)
        off.set(e, i1_, e.select(under, off.get(e, i1_), r))
        vanished = e.op("arith.cmpf", r, zero, result=i1, predicate="oeq")
        first = e.op("arith.andi", vanished, _not(e, under))
        now_under = e.op("arith.ori", under, vanished)
        deflate, keep = _if(e, first)  # the sweep stops at the first zero radius
        d.set(deflate, i1_, _sub(deflate, d.get(deflate, i1_), p))
        off.set(deflate, m, deflate.const(0.0, t))
        _close(deflate, keep)
        sn, cs = e.op("arith.divf", f, r), e.op("arith.divf", g, r)  # used only where r != 0
        g2 = _sub(e, d.get(e, i1_), p)
        r2 = _add_f(e, _mul(e, _sub(e, d.get(e, i), g2), sn), _mul(e, _mul(e, e.const(2.0, t), cs), b))
        p2 = _mul(e, sn, r2)
        g3 = _sub(e, _mul(e, cs, r2), b)
        stopped, live = _if(e, now_under)
        d.set(live, i1_, _add_f(live, g2, p2))
        _close(stopped, live)
        if Zt is not None:  # columns i, i+1 of Z: rows of Zt (the identity once stopped)
            c_, s_ = e.select(now_under, one, cs), e.select(now_under, zero, sn)
            Zt.add(e, i, i1_, c_, e.op("arith.negf", s_), s_, c_)
        return [e.select(now_under, s, sn), e.select(now_under, c, cs), e.select(now_under, p, p2),
                e.select(now_under, g, g3), now_under]

    inits = [one, one, zero, g, e.const(False, i1)]
    _, _, p, g, under = _loop(e, 0, e.op("arith.subi", m, lo), rotation, inits)
    done, other = _if(e, _not(e, under))
    d.set(done, lo, _sub(done, d.get(done, lo), p))
    off.set(done, lo, g)
    off.set(done, m, done.const(0.0, t))
    _close(done, other)


def _ql_sorted(e, outer, n: int, t, d, off, scale, vectors: bool) -> None:
    """The QL on the tridiagonal (``d``, ``off``) of the matrix scaled by ``scale``, with
    vectors its rotations logged onto the rows of Zt (result 2; the log in results 7, 8);
    the eigenvalues unscaled and sorted ascending, Zt's rows following."""
    Zt = _Matrix(outer, t, 2)
    log = None
    if vectors:
        cap = _PairLog.capacity(n, LOG_SWEEPS, t)
        log = _PairLog(Zt, n, n, _Matrix(outer, i64, 7), _Matrix(outer, t, 8), cap, t)
        log.start(e)
    _tridiagonal_ql(e, n, t, d, off, log)
    if log is not None:
        log.flush(e)
    _loop(e, 0, n, lambda e, i, _: d.set(e, i, e.op("arith.divf", d.get(e, i), scale)))
    by_row = _Matrix(outer, t, 2, transposed=True)  # Zt's rows as the columns to swap
    _sort_columns(e, n, d, True, [(by_row, n)] if vectors else [])


def eigh(op: array.EighOp) -> kernel.GenericOp:
    """Householder reduction of the scaled symmetric matrix to tridiagonal form (result 1,
    the reflectors kept in it), Q formed from them (result 3) and turned into the rows of Zt
    (result 2), then the implicit QL method on the tridiagonal matrix with the eigenvectors
    accumulating in Zt's rows; sorted ascending, copied out as columns."""
    a, kb, source, outer, t = _setup(op)
    n = a.type.shape[-1]
    A, Zt, Q = _Matrix(outer, t, 1), _Matrix(outer, t, 2), _Matrix(outer, t, 3)
    tau, w, off = _Matrix(outer, t, 4), _Matrix(outer, t, 5), _Matrix(outer, t, 6)
    d = _Row(_Matrix(outer, t, 0), n) if op.vectors else _Matrix(outer, t, 0)
    e = kb.emit

    def lower(e, i, j):  # the symmetric matrix of the lower triangle
        below = e.op("arith.cmpi", j, i, result=i1, predicate="ule")
        row, col = e.select(below, i, j), e.select(below, j, i)
        return e.b.create(kernel.ExtractOp, [source, *outer, row, col], [t]).result

    scale = _power_of_two(e, _largest(e, n, n, lower, t), t)
    _fill(e, n, n, A, lambda e, i, j: _mul(e, lower(e, i, j), scale))
    _tridiagonalize(e, n, t, A, tau, w)
    _loop(e, 0, n, lambda e, i, _: d.set(e, i, A.get(e, i, i)))
    _loop(e, 0, n - 1, lambda e, i, _: off.set(e, i, A.get(e, e.op("arith.addi", i, _idx(e, 1)), i)))
    if n:
        off.set(e, n - 1, e.const(0.0, t))
    if op.vectors:
        _identity(e, n, n, Q, t)
        if n > 1:  # the reflectors act on rows 1..n-1; reflector k's vector is row k past k+1
            shifted = _Matrix(outer, t, 1, offset=(0, 1), transposed=True)
            _form_q(e, n - 1, n - 1, n - 2, t, shifted, tau, _Matrix(outer, t, 3, offset=(1, 1)), w)
        _transpose_into(e, n, n, Q, Zt)
    _ql_sorted(e, outer, n, t, d, off, scale, bool(op.vectors))
    if op.vectors:
        _transpose_into(e, n, n, Zt, _Matrix(outer, t, 0))
    vector = a.type.with_shape(a.type.shape[:-2] + (n,))
    batch = a.type.shape[:-2]
    sizes = _PairLog.sizes(_PairLog.capacity(n, LOG_SWEEPS, t) if op.vectors else 0)
    logs = [TensorType(batch + sizes[0], i64), TensorType(batch + sizes[1], t)]
    results = [op.result_type, a.type, a.type, a.type, vector, vector, vector, *logs]
    return _finish(kb, op, results, [-1] * len(results))

