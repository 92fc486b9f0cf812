"""The kernel form of ``array.svd``: Golub–Kahan bidiagonalisation and implicit-shift QR.

Per matrix, on the tall one T (A, or A^T when A is wide), m x n with m >= n, in scalar loops
(LINPACK's ``dsvdc`` as JAMA writes it):

1. T scaled by a power of two that brings its largest entry near 1 (exact);
2. Householder reflectors from the left and the right alternately reduce T to upper
   bidiagonal form (diagonal ``s``, superdiagonal ``e``), U and V formed from them;
3. implicit-shift QR sweeps on the bidiagonal (the shift from its trailing 2x2, Wilkinson's
   way), a negligible ``e`` splitting it and a negligible ``s`` deflated by rotations; each
   singular value made nonnegative and moved into descending order as it converges.

T, U and V are held transposed (their columns as rows) so that every column operation of the
algorithm (reflectors, plane rotations, swaps) runs along a row: contiguous; the QR
iteration's rotations, swaps and sign flips of U and V are logged and applied in batches, a
strip of columns at a time (``decompose._PairLog``). About ``6 n^2``
QR sweeps in all (LAPACK's ``bdsqr`` bound), else ``LinAlgError('SVD did not converge')``,
which NaN or inf input raises at once (NumPy raises it for those too).
Accuracy: backward stable, singular values within a few eps of ``||A||`` as LAPACK's.
"""

from __future__ import annotations

from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType, f64, i1, i64
from jitcore.passes.kernelize.decompose import (
    _dot,
    _eps,
    _fill,
    _finish,
    _idx,
    _loop,
    _Matrix,
    _norm,
    _PairLog,
    _Row,
    _setup,
)
from jitcore.passes.kernelize.nonsymmetric import (
    _a,
    _abs,
    _and,
    _d,
    _dec,
    _fc,
    _ic,
    _inc,
    _m,
    _neg,
    _not,
    _s,
    _Vars,
    _when,
)
from jitcore.passes.kernelize.sort import _while
from jitcore.passes.kernelize.spectral import _largest, _power_of_two

LOG_TURNS = 16  # U's and V's turns wait in logs of this many times n entries
FLOATS = ()
INTS = ("p", "k", "kase")


def _sized(M: _Matrix, rows: int) -> _Matrix:
    """M with its row count, which the column operations run over."""
    M.rows = rows
    return M


def _axpy(e, lo, hi, get, set_, f, x) -> None:
    """y_i += f * x(e, i) for i in [lo, hi), y read by ``get`` and written by ``set_``."""
    _loop(e, lo, hi, lambda e, i, _: set_(e, i, _a(e, get(e, i), _m(e, f, x(e, i)))))


def _column(M: _Matrix, j):
    """Reads and writes of column j of M."""
    return (lambda e, i: M.get(e, i, j)), (lambda e, i, v: M.set(e, i, j, v))


def _reflector(e, lo, hi, get, set_, t):
    """The Householder vector of x = ``get(e, i)``, i in [lo, hi), in its place, as ``dsvdc``:
    x / (sign(x_lo) |x|) with 1 added to its first entry; returns the diagonal entry
    ``-sign(x_lo) |x|`` (0 and x untouched when x is 0)."""
    zero = e.const(0.0, t)
    size = _norm(e, lo, hi, get, t)
    size = e.select(_fc(e, "olt", get(e, lo), zero), _neg(e, size), size)

    def scale(e):
        _loop(e, lo, hi, lambda e, i, _: set_(e, i, _d(e, get(e, i), size)))
        set_(e, lo, _a(e, get(e, lo), e.const(1.0, t)))

    _when(e, _fc(e, "une", size, zero), scale)
    return _neg(e, size)


def _bidiagonalize(e, m: int, n: int, t, A, s, ev, work, gathered, U, V, u_cols: int) -> None:
    """A (m x n, m >= n) to upper bidiagonal form: column k's reflector below the diagonal,
    then row k's right of the superdiagonal (``dsvdc``); U's first ``u_cols`` columns and V
    formed from them when given.

    One pass over the trailing matrix per step, column by column (a row of A's storage, in
    L1 while it is worked on): the previous step's row reflector lands on the column
    (``A[:, j] -= (e_j / e_k1) work``), then this step's column reflector, then the column's
    share of the next row reflector's ``A e`` (``gathered += r_j A[:, j]`` with row k's
    entries r_j before they are scaled into e, whose norm is known only after the pass:
    ``work = A[:, k1] - gathered / lead`` after it). ``dsvdc`` makes three passes a step
    (the column reflector, then ``A e``, then the row reflector's update)."""
    zero, one = e.const(0.0, t), e.const(1.0, t)
    nct, nrt = max(0, min(m - 1, n)), max(0, min(n - 2, m))
    assert nrt < max(nct, 1), "T is tall: the last step leaves no row reflector pending"

    def scatter(e, j, lo, first):  # the pending row reflector on column j, rows lo..m-1
        f = _neg(e, _d(e, ev.get(e, j), first))
        _axpy(e, lo, m, *_column(A, j), f, work.get)

    def step(e, k, carried):
        pending, first = carried
        k1 = _inc(e, k)
        has_column, has_row = _ic(e, "slt", k, nct), _ic(e, "slt", k, nrt)
        _when(e, pending, lambda e: scatter(e, k, k, first))
        if nct:
            _when(e, has_column, lambda e: s.set(e, k, _reflector(e, k, m, *_column(A, k), t)))
        apply_column = _and(e, has_column, _fc(e, "une", s.get(e, k), zero))
        if nrt:
            _when(e, has_row, lambda e: _loop(e, k1, m, lambda e, i, _: gathered.set(e, i, zero)))

        def rest(e, j, _):
            _when(e, pending, lambda e: scatter(e, j, k, first))

            def apply(e):
                dot = _dot(e, k, m, lambda e, i: _m(e, A.get(e, i, k), A.get(e, i, j)), t)
                f = _neg(e, _d(e, dot, A.get(e, k, k)))
                _axpy(e, k, m, *_column(A, j), f, _column(A, k)[0])

            _when(e, apply_column, apply)
            r = A.get(e, k, j)
            ev.set(e, j, r)
            if nrt:
                _when(e, has_row, lambda e: _axpy(e, k1, m, gathered.get, gathered.set, r, _column(A, j)[0]))

        _loop(e, k1, n, rest)
        if U is not None and nct:
            _when(e, has_column, lambda e: _loop(e, k, m, lambda e, i, _: U.set(e, i, k, A.get(e, i, k))))
        if not nrt:
            return [e.const(False, i1), one]

        def applies(e):
            return _and(e, _ic(e, "slt", k1, m), _fc(e, "une", ev.get(e, k), zero))

        def row(e):
            lead = _reflector(e, k1, n, ev.get, ev.set, t)
            ev.set(e, k, lead)

            def prepare(e):
                _loop(e, k1, m, lambda e, i, _: work.set(e, i, _s(e, A.get(e, i, k1),
                                                                  _d(e, gathered.get(e, i), lead))))

            _when(e, applies(e), prepare)
            if V is not None:
                _loop(e, k1, n, lambda e, i, _: V.set(e, i, k, ev.get(e, i)))

        _when(e, has_row, row)
        return [_and(e, has_row, applies(e)), ev.get(e, e.op("arith.minsi", k1, _idx(e, n - 1)))]

    _loop(e, 0, max(nct, nrt), step, [e.const(False, i1), one])
    p = min(n, m + 1)
    if nct < n:
        s.set(e, nct, A.get(e, nct, nct))
    if m < p:
        s.set(e, p - 1, zero)
    if nrt + 1 < p:
        ev.set(e, nrt, A.get(e, nrt, p - 1))
    if p:
        ev.set(e, p - 1, zero)
    if U is not None:
        _form_u(e, m, u_cols, nct, t, s, U)
    if V is not None:
        _form_v(e, n, nrt, t, ev, V)


def _form_u(e, m: int, u_cols: int, nct: int, t, s, U) -> None:
    """U's columns from the column reflectors kept in them, backwards; the columns past them
    (and those of a zero reflector) start as unit vectors."""
    zero, one = e.const(0.0, t), e.const(1.0, t)

    def unit(e, j):
        _loop(e, 0, m, lambda e, i, _: U.set(e, i, j, zero))
        U.set(e, j, j, one)

    _loop(e, nct, u_cols, lambda e, j, _: unit(e, j))

    def reflector(e, r, _):
        k = _dec(e, nct - 1, r)

        def apply(e):
            def column(e, j, _):
                dot = _dot(e, k, m, lambda e, i: _m(e, U.get(e, i, k), U.get(e, i, j)), t)
                f = _neg(e, _d(e, dot, U.get(e, k, k)))
                _axpy(e, k, m, *_column(U, j), f, _column(U, k)[0])

            _loop(e, _inc(e, k), u_cols, column)
            _loop(e, k, m, lambda e, i, _: U.set(e, i, k, _neg(e, U.get(e, i, k))))
            U.set(e, k, k, _a(e, one, U.get(e, k, k)))
            _loop(e, 0, e.op("arith.maxsi", _dec(e, k), _idx(e, 0)), lambda e, i, _: U.set(e, i, k, zero))

        _when(e, _fc(e, "une", s.get(e, k), zero), apply, lambda e: unit(e, k))

    _loop(e, 0, nct, reflector)


def _form_v(e, n: int, nrt: int, t, ev, V) -> None:
    """V's columns from the row reflectors kept in them, backwards."""
    zero, one = e.const(0.0, t), e.const(1.0, t)

    def column_k(e, r, _):
        k = _dec(e, n - 1, r)
        k1 = _inc(e, k)

        def apply(e):
            def column(e, j, _):
                dot = _dot(e, k1, n, lambda e, i: _m(e, V.get(e, i, k), V.get(e, i, j)), t)
                f = _neg(e, _d(e, dot, V.get(e, k1, k)))
                _axpy(e, k1, n, *_column(V, j), f, _column(V, k)[0])

            _loop(e, k1, n, column)

        _when(e, _and(e, _ic(e, "slt", k, nrt), _fc(e, "une", ev.get(e, k), zero)), apply)
        _loop(e, 0, n, lambda e, i, _: V.set(e, i, k, zero))
        V.set(e, k, k, one)

    _loop(e, 0, n, column_k)


# -- implicit-shift QR on the bidiagonal ------------------------------------------------------
def _givens(e, f, g):
    """(r, c, s) with r = hypot(f, g), c = f / r, s = g / r."""
    r = e.op("math.hypot", f, g)
    return r, _d(e, f, r), _d(e, g, r)


def _diagonalize(e, m: int, n: int, t, s, ev, U, V, var: _Vars) -> None:
    """The singular values of the bidiagonal (``s``, ``e``) in ``s``, descending and
    nonnegative, by ``dsvdc``'s four cases from the bottom: deflate a negligible s[p-1] (1),
    split at a negligible s[k] (2), one QR sweep on k..p-1 (3), or s[p-1] converged (4);
    rotations of columns of U and V follow."""
    p0 = min(n, m + 1)
    eps = e.const(_eps(t), t)
    tiny = e.const(2.0 ** -966 if t == f64 else 2.0 ** -99, t)
    zero = e.const(0.0, t)
    var.set(e, p=p0)
    limit = 6 * max(n, 1) ** 2 + 4 * n

    def negligible(e, x, *near):
        size = _abs(e, near[0])
        for v in near[1:]:
            size = _a(e, size, _abs(e, v))
        return _fc(e, "ole", _abs(e, x), _a(e, tiny, _m(e, eps, size)))

    def go_on(e, c):
        return _and(e, _ic(e, "sgt", var[e, "p"], 0), _ic(e, "slt", c[0], limit))

    def body(e, c):
        for log in (U, V):  # one case's transforms: at most n rotations, or a flip and n swaps
            if log is not None:
                log.reserve(e, n + 2)
        p = var[e, "p"]
        pm1, pm2 = _dec(e, p), _dec(e, p, 2)

        def split(e, c):  # the last k < p-1 with a negligible e[k] (zeroed), else -1
            k = c[0]
            k1 = _inc(e, k)
            small = negligible(e, ev.get(e, k), s.get(e, k), s.get(e, k1))
            _when(e, small, lambda e: ev.set(e, k, zero))
            return [e.select(small, k, _dec(e, k)), small]

        k, _ = _while(e, [pm2, e.const(False, i1)],
                      lambda e, c: _and(e, _not(e, c[1]), _ic(e, "sge", c[0], 0)), split)
        var.set(e, k=k, kase=4)

        def find_ks(e):
            def zero_s(e, c):  # the last ks in (k, p-1] with a negligible s[ks] (zeroed), else k
                ks = c[0]
                before = e.op("arith.maxsi", _dec(e, ks), _idx(e, 0))
                around = _a(e, _abs(e, ev.get(e, ks)),
                            e.select(_ic(e, "ne", ks, _inc(e, k)), _abs(e, ev.get(e, before)), zero))
                small = negligible(e, s.get(e, ks), around)
                _when(e, small, lambda e: s.set(e, ks, zero))
                return [e.select(small, ks, _dec(e, ks)), small]

            ks, _ = _while(e, [pm1, e.const(False, i1)],
                           lambda e, c: _and(e, _not(e, c[1]), _ic(e, "sgt", c[0], k)), zero_s)
            at_k = _ic(e, "eq", ks, k)
            at_end = _ic(e, "eq", ks, pm1)
            kase = e.select(at_k, _idx(e, 3), e.select(at_end, _idx(e, 1), _idx(e, 2)))
            var.set(e, kase=kase, k=e.select(_and(e, _not(e, at_k), _not(e, at_end)), ks, k))

        _when(e, _ic(e, "ne", k, pm2), find_ks)
        k = _inc(e, var[e, "k"])
        kase = var[e, "kase"]
        _when(e, _ic(e, "eq", kase, 1), lambda e: _deflate(e, k, p, s, ev, V),
              lambda e: _when(e, _ic(e, "eq", kase, 2), lambda e: _split(e, k, p, s, ev, U),
                              lambda e: _when(e, _ic(e, "eq", kase, 3),
                                              lambda e: _sweep(e, k, p, t, s, ev, U, V),
                                              lambda e: _converged(e, k, p0, t, s, U, V, var))))
        return [_inc(e, c[0])]

    _while(e, [_idx(e, 0)], go_on, body)
    _svd_fails(e, _ic(e, "sgt", var[e, "p"], 0))


def _turn(e, log: _PairLog, j, q, c, s) -> None:
    """Columns j and q of U or V (rows of its storage): (u, v) <- (c u + s v, c v - s u)."""
    log.add(e, j, q, c, s, _neg(e, s), c)


def _svd_fails(e, condition) -> None:
    """Raise NumPy's ``LinAlgError('SVD did not converge')`` where ``condition`` holds."""
    e.b.create(kernel.RaiseOp, [condition], [], {"code": kernel.SVD_NO_CONVERGENCE})


def _deflate(e, k, p, s, ev, V) -> None:
    """Case 1: s[p-1] negligible: rotations from the right chase e[p-2] up to row k."""
    pm1, pm2 = _dec(e, p), _dec(e, p, 2)
    f0 = ev.get(e, pm2)
    ev.set(e, pm2, e.const(0.0, f0.type))

    def rotation(e, r, c):
        f = c[0]
        j = _dec(e, pm2, r)
        r_, cs, sn = _givens(e, s.get(e, j), f)
        s.set(e, j, r_)
        before = e.op("arith.maxsi", _dec(e, j), _idx(e, 0))
        inner = _ic(e, "ne", j, k)
        eb = ev.get(e, before)
        f = e.select(inner, _neg(e, _m(e, sn, eb)), f)
        _when(e, inner, lambda e: ev.set(e, before, _m(e, cs, eb)))
        if V is not None:
            _turn(e, V, j, pm1, cs, sn)
        return [f]

    _loop(e, 0, _inc(e, e.op("arith.subi", pm2, k)), rotation, [f0])


def _split(e, k, p, s, ev, U) -> None:
    """Case 2: s[k-1] negligible: rotations from the left chase e[k-1] down to the end."""
    km1 = _dec(e, k)
    f0 = ev.get(e, km1)
    ev.set(e, km1, e.const(0.0, f0.type))

    def rotation(e, j, c):
        f = c[0]
        r_, cs, sn = _givens(e, s.get(e, j), f)
        s.set(e, j, r_)
        ej = ev.get(e, j)
        ev.set(e, j, _m(e, cs, ej))
        if U is not None:
            _turn(e, U, j, km1, cs, sn)
        return [_neg(e, _m(e, sn, ej))]

    _loop(e, k, p, rotation, [f0])


def _sweep(e, k, p, t, s, ev, U, V) -> None:
    """Case 3: one implicit-shift QR sweep on rows and columns k..p-1, the shift the
    eigenvalue of the trailing 2x2 of B^T B nearer its last entry (computed scaled)."""
    pm1, pm2 = _dec(e, p), _dec(e, p, 2)
    zero = e.const(0.0, t)
    scale = _abs(e, s.get(e, pm1))
    for v in (s.get(e, pm2), ev.get(e, pm2), s.get(e, k), ev.get(e, k)):
        scale = e.op("arith.maximumf", scale, _abs(e, v))
    sp, spm1, epm1 = _d(e, s.get(e, pm1), scale), _d(e, s.get(e, pm2), scale), _d(e, ev.get(e, pm2), scale)
    sk, ek = _d(e, s.get(e, k), scale), _d(e, ev.get(e, k), scale)
    b = _m(e, _a(e, _m(e, _a(e, spm1, sp), _s(e, spm1, sp)), _m(e, epm1, epm1)), e.const(0.5, t))
    c = _m(e, _m(e, sp, epm1), _m(e, sp, epm1))
    root = e.op("math.sqrt", _a(e, _m(e, b, b), c))
    root = e.select(_fc(e, "olt", b, zero), _neg(e, root), root)
    some = _not(e, _and(e, _fc(e, "oeq", b, zero), _fc(e, "oeq", c, zero)))
    shift = e.select(some, _d(e, c, _a(e, b, root)), zero)
    f0 = _a(e, _m(e, _a(e, sk, sp), _s(e, sk, sp)), shift)
    g0 = _m(e, sk, ek)

    def chase(e, j, carried):
        f, g = carried
        j1 = _inc(e, j)
        r_, cs, sn = _givens(e, f, g)
        before = e.op("arith.maxsi", _dec(e, j), _idx(e, 0))
        _when(e, _ic(e, "ne", j, k), lambda e: ev.set(e, before, r_))
        sj, ej, sj1 = s.get(e, j), ev.get(e, j), s.get(e, j1)
        f = _a(e, _m(e, cs, sj), _m(e, sn, ej))
        ej = _s(e, _m(e, cs, ej), _m(e, sn, sj))
        g = _m(e, sn, sj1)
        sj1 = _m(e, cs, sj1)
        if V is not None:
            _turn(e, V, j, j1, cs, sn)
        r_, cs, sn = _givens(e, f, g)
        s.set(e, j, r_)
        f = _a(e, _m(e, cs, ej), _m(e, sn, sj1))
        s.set(e, j1, _s(e, _m(e, cs, sj1), _m(e, sn, ej)))
        ej1 = ev.get(e, j1)
        g = _m(e, sn, ej1)
        ev.set(e, j1, _m(e, cs, ej1))
        if U is not None:
            _turn(e, U, j, j1, cs, sn)
        return [f, g]

    f, _ = _loop(e, k, pm1, chase, [f0, g0])
    ev.set(e, pm2, f)


def _converged(e, k, p0: int, t, s, U, V, var: _Vars) -> None:
    """Case 4: s[k] converged: made nonnegative (V's column turned with it), then moved down
    past the smaller ones before it (columns of U and V swapped along)."""
    zero = e.const(0.0, t)
    sk = s.get(e, k)

    def flip(e):
        s.set(e, k, e.select(_fc(e, "olt", sk, zero), _neg(e, sk), zero))
        if V is not None:  # (p == q: the second write, -x_k, wins)
            V.add(e, k, k, e.const(-1.0, t), zero, zero, e.const(1.0, t))

    _when(e, _fc(e, "ole", sk, zero), flip)

    def go_on(e, c):
        j = c[0]
        inside = _ic(e, "slt", j, p0 - 1)
        j1 = e.op("arith.minsi", _inc(e, j), _idx(e, max(p0 - 1, 0)))
        return _and(e, inside, _fc(e, "olt", s.get(e, j), s.get(e, j1)))

    def swap(e, c):
        j = c[0]
        j1 = _inc(e, j)
        a, b = s.get(e, j), s.get(e, j1)
        s.set(e, j, b)
        s.set(e, j1, a)
        one = e.const(1.0, t)
        for log in (U, V):
            if log is not None:
                log.add(e, j, j1, zero, one, one, zero)
        return [j1]

    _while(e, [k], go_on, swap)
    var.set(e, p=_dec(e, var[e, "p"]))


def svd(op: array.SvdOp) -> kernel.GenericOp:
    """T (A, or A^T when A is wide) scaled into result 1 (as T^T), bidiagonalised there with
    U and V (of T) in results 2 and 3 (as U^T, V^T), the QR iteration, then U and V copied out
    as those of A (swapped when A is wide)."""
    a, kb, source, outer, t = _setup(op)
    m0, n0 = a.type.shape[-2:]
    wide = m0 < n0
    rows, cols = (n0, m0) if wide else (m0, n0)  # T is rows x cols
    k = cols
    e = kb.emit
    batch = a.type.shape[:-2]
    A = _Matrix(outer, t, 1, transposed=True)
    ev, work, var = _Matrix(outer, t, 4), _Matrix(outer, t, 5), _Vars(outer, t, 6, 7, FLOATS, INTS)
    U = V = None
    u_count = 0
    if op.vectors:
        u_cols, vh_rows = (m0, n0) if op.full else (k, k)
        u_count = vh_rows if wide else u_cols
        s = _Row(_Matrix(outer, t, 0), m0 + vh_rows)
        U = _sized(_Matrix(outer, t, 2, transposed=True), rows)
        V = _sized(_Matrix(outer, t, 3, transposed=True), cols)
    else:
        s = _Matrix(outer, t, 0)

    def entry(e, i, j):  # T[i, j]
        pos = [j, i] if wide else [i, j]
        return e.b.create(kernel.ExtractOp, [source, *outer, *pos], [t]).result

    largest = _largest(e, rows, cols, entry, t)
    _svd_fails(e, _fc(e, "uge", largest, e.const(float("inf"), t)))  # NaN or inf: as NumPy's
    scale = _power_of_two(e, largest, t)
    _fill(e, rows, cols, A, lambda e, i, j: _m(e, entry(e, i, j), scale))
    _bidiagonalize(e, rows, cols, t, A, s, ev, work, _Matrix(outer, t, 12), U, V, u_count)
    logs = [None, None]
    if op.vectors:  # the QR iteration's turns of columns of U and V, applied in batches
        logs = [_PairLog(_Matrix(outer, t, result), cols, width, _Matrix(outer, i64, indices),
                         _Matrix(outer, t, indices + 1), _PairLog.capacity(cols, LOG_TURNS, t), t)
                for result, width, indices in ((2, rows, 8), (3, cols, 10))]
        for log in logs:
            log.start(e)
    _diagonalize(e, rows, cols, t, s, ev, *logs, var)
    for log in logs:
        if log is not None:
            log.flush(e)
    if op.vectors:
        u_view = _Matrix(outer, t, 0)
        v_view = _Matrix(outer, t, 0, offset=(m0, 0), transposed=True)  # Vh^T: V of A
        u_dst, v_dst = (v_view, u_view) if wide else (u_view, v_view)
        _fill(e, rows, u_count, u_dst, U.get)
        _fill(e, cols, cols, v_dst, V.get)
    _loop(e, 0, k, lambda e, j, _: s.set(e, j, _d(e, s.get(e, j), scale)))
    results = [op.result_type, TensorType(batch + (cols, rows), t),
               TensorType(batch + ((u_count, rows) if op.vectors else (1, 1)), t),
               TensorType(batch + ((cols, cols) if op.vectors else (1, 1)), t),
               TensorType(batch + (max(cols, 1),), t), TensorType(batch + (max(rows, 1),), t),
               TensorType(batch + (1,), t), TensorType(batch + (len(INTS),), i64)]
    for _ in range(2):  # U's log (results 8, 9), V's (10, 11)
        indices, factors = _PairLog.sizes(_PairLog.capacity(cols, LOG_TURNS, t) if op.vectors else 0)
        results += [TensorType(batch + indices, i64), TensorType(batch + factors, t)]
    results.append(TensorType(batch + (max(rows, 1),), t))  # the row reflector's A e, gathered
    return _finish(kb, op, results, [-1] * len(results))


RULES = {array.SvdOp: svd}
