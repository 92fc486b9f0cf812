"""The kernel form of ``array.eig``: eigenvalues and eigenvectors of general real matrices.

Per matrix, in scalar loops (the helpers are ``decompose.py``'s and ``spectral.py``'s):

1. the matrix scaled by a power of two that brings its largest entry near 1 (exact); a NaN or
   inf entry raises ``NOT_FINITE`` (NumPy's ``LinAlgError``);
2. Householder reduction to upper Hessenberg form H = Q^T A Q, Q accumulated (EISPACK's
   ``orthes``/``ortran``); no balancing (LAPACK's ``gebal``), so badly scaled matrices lose
   accuracy that NumPy's keep;
3. Francis double-shift QR to real Schur form (EISPACK's ``hqr2``, with Wilkinson's and
   MATLAB's exceptional shifts after 10 and 30 iterations on one eigenvalue), the transforms
   accumulated into Q (the sweeps' reflectors logged and applied in batches, a strip of
   columns at a time: ``decompose._ReflectorLog``); ``30 * max(10, n)`` iterations in all,
   then ``NO_CONVERGENCE``;
4. with vectors: back-substitution on the quasi-triangular form, the result times Q, each
   vector scaled to unit norm with its largest component real (as LAPACK's ``geev``).

The eigenvalues come in the order of the Schur form's diagonal; a complex pair as a + bi, a - bi
(b > 0). Integers live in an i64 scratch vector and floats in another (``_Vars``), so the
branches of ``scf.if`` (which has no results here) pass them on as the algorithm's variables.
"""

from __future__ import annotations

from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType, i1, i64, index
from jitcore.passes.kernelize.decompose import (
    _dot,
    _eps,
    _fill,
    _finish,
    _idx,
    _loop,
    _Matrix,
    _norm,
    _ReflectorLog,
    _Row,
    _setup,
    _sum,
)
from jitcore.passes.kernelize.factor import _close, _if
from jitcore.passes.kernelize.sort import _while
from jitcore.passes.kernelize.spectral import _largest, _power_of_two

FLOATS = ("norm", "exshift", "p", "q", "r", "s", "w", "x", "y", "z")
INTS = ("hi", "iter")
LOG_STEPS = 16  # the sweeps' reflectors of Q wait in a log of this many times n entries
ITERATIONS = 30  # QR iterations per eigenvalue (at least 10 eigenvalues' worth), as LAPACK's hseqr


class _Vars:
    """The algorithm's named scalar variables, one slot each in scratch vectors per matrix."""

    def __init__(self, outer, t, floats: int, ints: int, float_names=FLOATS, int_names=INTS):
        self.f, self.i = _Matrix(outer, t, floats), _Matrix(outer, i64, ints)
        self.floats, self.ints = float_names, int_names

    def __getitem__(self, key):
        e, name = key
        if name in self.ints:
            return e.op("arith.bitcast", self.i.get(e, self.ints.index(name)), result=index)
        return self.f.get(e, self.floats.index(name))

    def set(self, e, **values) -> None:
        for name, v in values.items():
            if name in self.ints:
                self.i.set(e, self.ints.index(name), e.op("arith.bitcast", _idx(e, v), result=i64))
            else:
                self.f.set(e, self.floats.index(name), v)


# short names for the scalar arithmetic this module is made of
def _a(e, x, y):
    return e.op("arith.addf", x, y)


def _s(e, x, y):
    return e.op("arith.subf", x, y)


def _m(e, x, y):
    return e.op("arith.mulf", x, y)


def _d(e, x, y):
    return e.op("arith.divf", x, y)


def _abs(e, x):
    return e.op("math.absf", x)


def _neg(e, x):
    return e.op("arith.negf", x)


def _fc(e, pred, x, y):
    return e.op("arith.cmpf", x, y, result=i1, predicate=pred)


def _ic(e, pred, x, y):
    return e.op("arith.cmpi", _idx(e, x), _idx(e, y), result=i1, predicate=pred)


def _inc(e, i, k=1):
    return e.op("arith.addi", _idx(e, i), _idx(e, k))


def _dec(e, i, k=1):
    return e.op("arith.subi", _idx(e, i), _idx(e, k))


def _and(e, x, y):
    return e.op("arith.andi", x, y)


def _or(e, x, y):
    return e.op("arith.ori", x, y)


def _not(e, x):
    return e.op("arith.xori", x, e.const(True, i1))


def _when(e, cond, then, otherwise=None) -> None:
    """``if cond: then(e) else: otherwise(e)`` (an ``scf.if`` without results)."""
    yes, no = _if(e, cond)
    then(yes)
    if otherwise is not None:
        otherwise(no)
    _close(yes, no)


def _rotate_pair(e, lo, hi, get, put, c, s) -> None:
    """(u, v) <- (c u + s v, c v - s u) of entries ``get(e, i)`` (a pair) for i in [lo, hi)."""
    def one(e, i, _):
        u, v = get(e, i)
        put(e, i, _a(e, _m(e, c, u), _m(e, s, v)), _s(e, _m(e, c, v), _m(e, s, u)))

    _loop(e, lo, hi, one)


# -- Hessenberg reduction ------------------------------------------------------------------
def _hessenberg(e, n: int, t, H: _Matrix, Vt: _Matrix | None, ort: _Matrix, w: _Matrix) -> None:
    """H = Q^T H Q upper Hessenberg by Householder reflectors (``orthes``): step k makes the
    reflector u (in ``ort``, rows k+1..n-1, u^T u = 2h) that zeroes column k below row k+1, and
    applies I - u u^T / h from the left (``w = u^T H`` row by row, contiguous) and the right.
    With ``Vt``, Q^T is accumulated from the reflectors backwards (``ortran``), row by row."""
    zero = e.const(0.0, t)

    def step(e, k, _):
        k1 = _inc(e, k)
        scale = _sum(e, k1, n, lambda e, i: _abs(e, H.get(e, i, k)), t)

        def reduce(e):
            _loop(e, k1, n, lambda e, i, _: ort.set(e, i, _d(e, H.get(e, i, k), scale)))
            h = _sum(e, k1, n, lambda e, i: e.op("arith.mulf", ort.get(e, i), ort.get(e, i)), t)
            lead = ort.get(e, k1)
            g = e.op("math.sqrt", h)
            g = e.select(_fc(e, "ogt", lead, zero), _neg(e, g), g)
            h = _s(e, h, _m(e, lead, g))
            ort.set(e, k1, _s(e, lead, g))

            _loop(e, k1, n, lambda e, j, _: w.set(e, j, zero))

            def gather(e, i, _):  # w = u^T H over columns k+1..n-1 (column k keeps u)
                ui = ort.get(e, i)
                _loop(e, k1, n, lambda e, j, _: w.set(e, j, _a(e, w.get(e, j), _m(e, ui, H.get(e, i, j)))))

            _loop(e, k1, n, gather)

            def left(e, i, _):
                f = _d(e, ort.get(e, i), h)
                _loop(e, k1, n, lambda e, j, _: H.set(e, i, j, _s(e, H.get(e, i, j), _m(e, f, w.get(e, j)))))

            _loop(e, k1, n, left)

            def right(e, i, _):
                f = _d(e, _dot(e, k1, n, lambda e, j: _m(e, H.get(e, i, j), ort.get(e, j)), t), h)
                _loop(e, k1, n, lambda e, j, _: H.set(e, i, j, _s(e, H.get(e, i, j),
                                                                   _m(e, f, ort.get(e, j)))))


            _loop(e, 0, n, right)
            ort.set(e, k1, _m(e, scale, ort.get(e, k1)))
            H.set(e, k1, k, _m(e, scale, g))

        _when(e, _fc(e, "une", scale, zero), reduce)

    _loop(e, 0, max(n - 2, 0), step)
    if Vt is None:
        return
    _loop(e, 0, n, lambda e, i, _: _loop(e, 0, n, lambda e, j, _: Vt.set(e, i, j, e.select(
        _ic(e, "eq", i, j), e.const(1.0, t), zero))))

    def accumulate(e, r, _):  # reflectors from the last: Q = (I - u u^T/h) Q on rows k+1..
        k = _dec(e, max(n - 3, 0), r)
        k1 = _inc(e, k)
        sub = H.get(e, k1, k)

        def apply(e):
            _loop(e, _inc(e, k, 2), n, lambda e, i, _: ort.set(e, i, H.get(e, i, k)))
            denominator = _m(e, ort.get(e, k1), sub)  # -h: ort[k+1] * H[k+1, k] = (u_1 - g) g

            def row(e, j, _):  # column j of Q, a row of Q^T
                f = _d(e, _dot(e, k1, n, lambda e, c: _m(e, Vt.get(e, j, c), ort.get(e, c)), t), denominator)
                _loop(e, k1, n, lambda e, c, _: Vt.set(e, j, c, _a(e, Vt.get(e, j, c),
                                                                    _m(e, f, ort.get(e, c)))))

            _loop(e, k1, n, row)

        _when(e, _fc(e, "une", sub, zero), apply)

    _loop(e, 0, max(n - 2, 0), accumulate)


# -- Francis double-shift QR to real Schur form ----------------------------------------------
def _schur(e, n: int, t, H: _Matrix, V: _Matrix | None, d, ev, var: _Vars, saved: _Matrix,
           log: _ReflectorLog | None = None) -> None:
    """The eigenvalues of the Hessenberg H into ``d`` (real parts) and ``ev`` (imaginary), by
    ``hqr2``'s deflation from the bottom: a negligible subdiagonal entry splits off a 1x1 or 2x2
    block (a real or a complex pair), else one double-shift QR sweep over rows m..hi. With
    ``V``, H becomes quasi-triangular (every transform applied to all of it) and V collects
    them (the sweeps' reflectors through ``log``, flushed before a 2x2 block's rotation and at
    the end); without, only the active window is updated (LAPACK's ``wantt`` false)."""
    eps, zero = e.const(_eps(t), t), e.const(0.0, t)
    vectors = V is not None

    def row_norm(e, i, c):
        return [_a(e, c[0], _sum(e, e.op("arith.maxsi", _dec(e, i), _idx(e, 0)), n,
                                 lambda e, j: _abs(e, H.get(e, i, j)), t))]

    (norm,) = _loop(e, 0, n, row_norm, [zero])
    var.set(e, norm=norm, exshift=zero, hi=n - 1, iter=0)
    limit = ITERATIONS * max(10, n) + n

    def go_on(e, c):
        return _and(e, _ic(e, "sge", var[e, "hi"], 0), _ic(e, "slt", c[0], limit))

    def body(e, c):
        hi = var[e, "hi"]
        norm = var[e, "norm"]

        def look(e, c):
            low = c[0]
            below = _dec(e, low)
            s = _a(e, _abs(e, H.get(e, below, below)), _abs(e, H.get(e, low, low)))
            s = e.select(_fc(e, "oeq", s, zero), norm, s)
            small = _fc(e, "ole", _abs(e, H.get(e, low, below)), _m(e, eps, s))  # <=: a zero matrix too
            return [e.select(small, low, below), small]

        low, _ = _while(e, [hi, e.const(False, i1)],
                        lambda e, c: _and(e, _not(e, c[1]), _ic(e, "sgt", c[0], 0)), look)
        _when(e, _ic(e, "eq", low, hi), lambda e: _single(e, hi, t, H, d, ev, var),
              lambda e: _when(e, _ic(e, "eq", low, _dec(e, hi)),
                              lambda e: _pair(e, n, hi, t, H, V, d, ev, var, log),
                              lambda e: _sweep(e, n, low, hi, t, H, log, var, eps, vectors, saved)))
        return [_inc(e, c[0])]

    _while(e, [_idx(e, 0)], go_on, body)
    if log is not None:
        log.flush(e)
    e.b.create(kernel.RaiseOp, [_ic(e, "sge", var[e, "hi"], 0)], [], {"code": kernel.NO_CONVERGENCE})


def _single(e, hi, t, H, d, ev, var) -> None:
    """A 1x1 block: one real eigenvalue."""
    value = _a(e, H.get(e, hi, hi), var[e, "exshift"])
    H.set(e, hi, hi, value)
    d.set(e, hi, value)
    ev.set(e, hi, e.const(0.0, t))
    var.set(e, hi=_dec(e, hi), iter=0)


def _pair(e, n: int, hi, t, H, V, d, ev, var, log=None) -> None:
    """A 2x2 block: a real pair (the block turned upper triangular when H must stay a Schur
    form) or a complex one."""
    lo = _dec(e, hi)
    zero = e.const(0.0, t)
    w = _m(e, H.get(e, hi, lo), H.get(e, lo, hi))
    p = _m(e, _s(e, H.get(e, lo, lo), H.get(e, hi, hi)), e.const(0.5, t))
    q = _a(e, _m(e, p, p), w)
    z = e.op("math.sqrt", _abs(e, q))
    shift = var[e, "exshift"]
    H.set(e, hi, hi, _a(e, H.get(e, hi, hi), shift))
    H.set(e, lo, lo, _a(e, H.get(e, lo, lo), shift))
    x = H.get(e, hi, hi)

    def real(e):
        zz = _a(e, p, e.select(_fc(e, "oge", p, zero), z, _neg(e, z)))
        d.set(e, lo, _a(e, x, zz))
        d.set(e, hi, e.select(_fc(e, "une", zz, zero), _s(e, x, _d(e, w, zz)), _a(e, x, zz)))
        ev.set(e, lo, zero)
        ev.set(e, hi, zero)
        if V is None:
            return
        sub = H.get(e, hi, lo)
        s = _a(e, _abs(e, sub), _abs(e, zz))
        pp, qq = _d(e, sub, s), _d(e, zz, s)
        r = e.op("math.sqrt", _a(e, _m(e, pp, pp), _m(e, qq, qq)))
        pp, qq = _d(e, pp, r), _d(e, qq, r)
        _rotate_pair(e, lo, n, lambda e, j: (H.get(e, lo, j), H.get(e, hi, j)),
                     lambda e, j, u, v: (H.set(e, lo, j, u), H.set(e, hi, j, v)), qq, pp)
        _rotate_pair(e, 0, _inc(e, hi), lambda e, i: (H.get(e, i, lo), H.get(e, i, hi)),
                     lambda e, i, u, v: (H.set(e, i, lo, u), H.set(e, i, hi, v)), qq, pp)
        if log is not None:  # the sweeps' reflectors first, in order
            log.flush(e)
        _rotate_pair(e, 0, n, lambda e, i: (V.get(e, i, lo), V.get(e, i, hi)),
                     lambda e, i, u, v: (V.set(e, i, lo, u), V.set(e, i, hi, v)), qq, pp)

    def complex_(e):
        d.set(e, lo, _a(e, x, p))
        d.set(e, hi, _a(e, x, p))
        ev.set(e, lo, z)
        ev.set(e, hi, _neg(e, z))

    _when(e, _fc(e, "oge", q, zero), real, complex_)
    var.set(e, hi=_dec(e, hi, 2), iter=0)


def _sweep(e, n: int, low, hi, t, H, log, var, eps, vectors: bool, saved: _Matrix) -> None:
    """One Francis double-shift QR sweep on rows and columns low..hi (``hqr2``'s), with an
    exceptional shift after 10 and after 30 iterations without a deflation.

    Step k's reflector acts on columns k..k+2 of rows up to k+3; rows k+1.. of those are read
    again by the next steps and are updated at once, but rows up to k see only column updates
    from then on, so theirs wait (the reflector kept in ``saved``) and are applied after the
    sweep row by row: each row stays in cache, where a column strip of H, once H outgrows
    the cache, misses on every row at every step."""
    zero = e.const(0.0, t)
    lo = _dec(e, hi)
    var.set(e, x=H.get(e, hi, hi), y=H.get(e, lo, lo), w=_m(e, H.get(e, hi, lo), H.get(e, lo, hi)))
    count = var[e, "iter"]

    def shift_diagonal(e, by):
        _loop(e, 0, _inc(e, hi), lambda e, i, _: H.set(e, i, i, _s(e, H.get(e, i, i), by)))
        var.set(e, exshift=_a(e, var[e, "exshift"], by))

    def wilkinson(e):  # Wilkinson's ad hoc shift
        shift_diagonal(e, var[e, "x"])
        s = _a(e, _abs(e, H.get(e, hi, lo)), _abs(e, H.get(e, lo, _dec(e, hi, 2))))
        var.set(e, x=_m(e, e.const(0.75, t), s), y=_m(e, e.const(0.75, t), s),
                w=_m(e, e.const(-0.4375, t), _m(e, s, s)))

    def matlab(e):  # MATLAB's ad hoc shift
        x, y, w = var[e, "x"], var[e, "y"], var[e, "w"]
        half = _m(e, _s(e, y, x), e.const(0.5, t))
        s = _a(e, _m(e, half, half), w)

        def shift(e):
            root = e.op("math.sqrt", s)
            root = e.select(_fc(e, "olt", y, x), _neg(e, root), root)
            shift_diagonal(e, _s(e, x, _d(e, w, _a(e, half, root))))
            c = e.const(0.964, t)
            var.set(e, x=c, y=c, w=c)

        _when(e, _fc(e, "ogt", s, zero), shift)

    _when(e, _ic(e, "eq", count, 10), wilkinson)
    _when(e, _ic(e, "eq", count, 30), matlab)
    var.set(e, iter=_inc(e, count))
    x, y, w = var[e, "x"], var[e, "y"], var[e, "w"]

    def look(e, c):  # from hi-2 up: two consecutive small subdiagonal entries
        m = c[0]
        m1, m2 = _inc(e, m), _inc(e, m, 2)
        z = H.get(e, m, m)
        r, s = _s(e, x, z), _s(e, y, z)
        p = _a(e, _d(e, _s(e, _m(e, r, s), w), H.get(e, m1, m)), H.get(e, m, m1))
        q = _s(e, _s(e, _s(e, H.get(e, m1, m1), z), r), s)
        r = H.get(e, m2, m1)
        s = _a(e, _a(e, _abs(e, p), _abs(e, q)), _abs(e, r))
        p, q, r = _d(e, p, s), _d(e, q, s), _d(e, r, s)
        var.set(e, p=p, q=q, r=r)
        at_low = _ic(e, "eq", m, low)
        before = e.select(at_low, m, _dec(e, m))  # only read where m > low
        left = _m(e, _abs(e, H.get(e, m, before)), _a(e, _abs(e, q), _abs(e, r)))
        right = _m(e, eps, _m(e, _abs(e, p), _a(e, _a(e, _abs(e, H.get(e, before, before)), _abs(e, z)),
                                                 _abs(e, H.get(e, m1, m1)))))
        stop = _or(e, at_low, _fc(e, "olt", left, right))
        return [e.select(stop, m, _dec(e, m)), stop]

    m, _ = _while(e, [_dec(e, hi, 2), e.const(False, i1)], lambda e, c: _not(e, c[1]), look)
    _loop(e, _inc(e, m, 2), _inc(e, hi), lambda e, i, _: H.set(e, i, _dec(e, i, 2), zero))
    _loop(e, _inc(e, m, 3), _inc(e, hi), lambda e, i, _: H.set(e, i, _dec(e, i, 3), zero))
    row_end = n if vectors else _inc(e, hi)
    col_start = 0 if vectors else low

    def step(e, k, _):
        k1, k2 = _inc(e, k), _inc(e, k, 2)
        notlast = _ic(e, "ne", k, lo)
        first = _ic(e, "eq", k, m)

        def load(e):  # the bulge's column k-1
            km1 = _dec(e, k)
            p, q = H.get(e, k, km1), H.get(e, k1, km1)
            r = e.select(notlast, H.get(e, e.op("arith.minsi", k2, _idx(e, n - 1)), km1), zero)
            x = _a(e, _a(e, _abs(e, p), _abs(e, q)), _abs(e, r))
            nonzero = _fc(e, "une", x, zero)
            var.set(e, x=x, p=e.select(nonzero, _d(e, p, x), p), q=e.select(nonzero, _d(e, q, x), q),
                    r=e.select(nonzero, _d(e, r, x), r))

        _when(e, _not(e, first), load)
        p, q, r = var[e, "p"], var[e, "q"], var[e, "r"]
        skip = _and(e, _not(e, first), _fc(e, "oeq", var[e, "x"], zero))
        s = e.op("math.sqrt", _a(e, _a(e, _m(e, p, p), _m(e, q, q)), _m(e, r, r)))
        s = e.select(_fc(e, "olt", p, zero), _neg(e, s), s)

        def apply(e):
            km1 = e.op("arith.maxsi", _dec(e, k), _idx(e, 0))
            _when(e, _not(e, first), lambda e: H.set(e, k, km1, _neg(e, _m(e, s, var[e, "x"]))),
                  lambda e: _when(e, _ic(e, "ne", low, m),
                                  lambda e: H.set(e, k, km1, _neg(e, H.get(e, k, km1)))))
            pp = _a(e, p, s)
            x, y, z = _d(e, pp, s), _d(e, q, s), _d(e, r, s)
            qq, rr = _d(e, q, pp), _d(e, r, pp)

            def rows3(e, j, _):
                v = _a(e, _a(e, H.get(e, k, j), _m(e, qq, H.get(e, k1, j))), _m(e, rr, H.get(e, k2, j)))
                H.set(e, k2, j, _s(e, H.get(e, k2, j), _m(e, v, z)))
                H.set(e, k, j, _s(e, H.get(e, k, j), _m(e, v, x)))
                H.set(e, k1, j, _s(e, H.get(e, k1, j), _m(e, v, y)))

            def rows2(e, j, _):
                v = _a(e, H.get(e, k, j), _m(e, qq, H.get(e, k1, j)))
                H.set(e, k, j, _s(e, H.get(e, k, j), _m(e, v, x)))
                H.set(e, k1, j, _s(e, H.get(e, k1, j), _m(e, v, y)))

            def columns(M, three):
                def one(e, i, _):
                    v = _a(e, _m(e, x, M.get(e, i, k)), _m(e, y, M.get(e, i, k1)))
                    if three:
                        v = _a(e, v, _m(e, z, M.get(e, i, k2)))
                        M.set(e, i, k2, _s(e, M.get(e, i, k2), _m(e, v, rr)))
                    M.set(e, i, k, _s(e, M.get(e, i, k), v))
                    M.set(e, i, k1, _s(e, M.get(e, i, k1), _m(e, v, qq)))
                return one

            col_end = _inc(e, e.op("arith.minsi", hi, _inc(e, k, 3)))
            for slot, v in enumerate((x, y, z, qq, rr)):
                saved.set(e, slot, k, v)

            def three(e):
                _loop(e, k, row_end, rows3)
                _loop(e, k1, col_end, columns(H, True))
                if log is not None:  # Q's columns k..k+2: rows of its storage
                    log.add(e, (k, k1, k2), (x, y, z, qq, rr))

            def two(e):
                _loop(e, k, row_end, rows2)
                _loop(e, k1, col_end, columns(H, False))
                if log is not None:
                    log.add(e, (k, k1, k), (x, y, zero, qq, zero))

            _when(e, notlast, three, two)

        def unused(e):  # no reflector at this step: the deferred update does nothing
            for slot in range(5):
                saved.set(e, slot, k, zero)

        _when(e, _and(e, _not(e, skip), _fc(e, "une", s, zero)), apply, unused)

    if log is not None:
        log.reserve(e, n)
    _loop(e, m, hi, step)

    def deferred(e, i, _):  # row i: the column updates of steps max(m, i)..hi-1, in order
        start = e.op("arith.maxsi", m, i)

        def one(e, k, carried):  # H[i, k] and H[i, k+1] carried, H[i, k] final after it
            hk, hk1 = carried
            x, y, z, qq, rr = (saved.get(e, slot, k) for slot in range(5))
            hk2 = H.get(e, i, _inc(e, k, 2))
            w = _a(e, _a(e, _m(e, x, hk), _m(e, y, hk1)), _m(e, z, hk2))
            H.set(e, i, k, _s(e, hk, w))
            return [_s(e, hk1, _m(e, w, qq)), _s(e, hk2, _m(e, w, rr))]

        def row(e):
            hk, hk1 = _loop(e, start, lo, one, [H.get(e, i, start), H.get(e, i, _inc(e, start))])
            x, y, qq = saved.get(e, 0, lo), saved.get(e, 1, lo), saved.get(e, 3, lo)
            v = _a(e, _m(e, x, hk), _m(e, y, hk1))  # the last step's reflector has two terms
            H.set(e, i, lo, _s(e, hk, v))
            H.set(e, i, hi, _s(e, hk1, _m(e, v, qq)))

        _when(e, _ic(e, "sle", start, lo), row)

    _loop(e, col_start, _inc(e, hi), deferred)


# -- eigenvectors ----------------------------------------------------------------------------
def _cdiv(e, xr, xi, yr, yi):
    """(xr + i xi) / (yr + i yi) by Smith's method (no overflow from squaring y)."""
    big = _fc(e, "ogt", _abs(e, yr), _abs(e, yi))
    ratio = e.select(big, _d(e, yi, yr), _d(e, yr, yi))
    den = e.select(big, _a(e, yr, _m(e, ratio, yi)), _a(e, yi, _m(e, ratio, yr)))
    re = e.select(big, _a(e, xr, _m(e, ratio, xi)), _a(e, _m(e, ratio, xr), xi))
    im = e.select(big, _s(e, xi, _m(e, ratio, xr)), _s(e, _m(e, ratio, xi), xr))
    return _d(e, re, den), _d(e, im, den)


def _back_substitute(e, n: int, t, H: _Matrix, d, ev, var: _Vars) -> None:
    """The eigenvectors of the quasi-triangular H in its upper triangle (``hqr2``'s second
    part): for each eigenvalue from the last, a real vector (column c) or, at the second of a
    complex pair, the real and imaginary parts (columns c-1, c) by back-substitution, a 2x2
    block solved at once; a column growing past 1/sqrt(eps) is scaled down."""
    eps, zero, one = e.const(_eps(t), t), e.const(0.0, t), e.const(1.0, t)
    norm = var[e, "norm"]

    def rescale(e, i, c, columns):
        biggest = _abs(e, H.get(e, i, columns[0]))
        for col in columns[1:]:
            biggest = e.op("arith.maximumf", biggest, _abs(e, H.get(e, i, col)))
        big = _fc(e, "ogt", _m(e, _m(e, eps, biggest), biggest), one)

        def shrink(e):
            def row(e, j, _):
                for col in columns:
                    H.set(e, j, col, _d(e, H.get(e, j, col), biggest))

            _loop(e, i, _inc(e, c), row)

        _when(e, big, shrink)

    def real(e, c, p):
        H.set(e, c, c, one)

        def row(e, r, carried):
            low = carried[0]
            i = _dec(e, _dec(e, c), r)
            i1 = _inc(e, i)
            w = _s(e, H.get(e, i, i), p)
            rr = _sum(e, low, _inc(e, c), lambda e, j: _m(e, H.get(e, i, j), H.get(e, j, c)), t)
            second = _fc(e, "olt", ev.get(e, i), zero)
            _when(e, second, lambda e: var.set(e, z=w, s=rr))

            def solve(e):
                def alone(e):
                    H.set(e, i, c, _neg(e, _d(e, rr, e.select(
                        _fc(e, "une", w, zero), w, _m(e, eps, norm)))))

                def block(e):
                    x, y = H.get(e, i, i1), H.get(e, i1, i)
                    z, s = var[e, "z"], var[e, "s"]
                    dp, ei = _s(e, d.get(e, i), p), ev.get(e, i)
                    q = _a(e, _m(e, dp, dp), _m(e, ei, ei))
                    tt = _d(e, _s(e, _m(e, x, s), _m(e, z, rr)), q)
                    H.set(e, i, c, tt)
                    neg = _neg(e, rr)
                    H.set(e, i1, c, e.select(_fc(e, "ogt", _abs(e, x), _abs(e, z)),
                                             _d(e, _s(e, neg, _m(e, w, tt)), x),
                                             _d(e, _s(e, _neg(e, s), _m(e, y, tt)), z)))

                _when(e, _fc(e, "oeq", ev.get(e, i), zero), alone, block)
                rescale(e, i, c, [c])

            _when(e, _not(e, second), solve)
            return [e.select(second, low, i)]

        _loop(e, 0, c, row, [c])

    def complex_(e, c, p, q):
        c0 = _dec(e, c)

        def tall(e):
            sub = H.get(e, c, c0)
            H.set(e, c0, c0, _d(e, q, sub))
            H.set(e, c0, c, _neg(e, _d(e, _s(e, H.get(e, c, c), p), sub)))

        def wide(e):
            re, im = _cdiv(e, zero, _neg(e, H.get(e, c0, c)), _s(e, H.get(e, c0, c0), p), q)
            H.set(e, c0, c0, re)
            H.set(e, c0, c, im)

        _when(e, _fc(e, "ogt", _abs(e, H.get(e, c, c0)), _abs(e, H.get(e, c0, c))), tall, wide)
        H.set(e, c, c0, zero)
        H.set(e, c, c, one)

        def row(e, r, carried):
            low = carried[0]
            i = _dec(e, _dec(e, c, 2), r)
            i1 = _inc(e, i)
            ra = _sum(e, low, _inc(e, c), lambda e, j: _m(e, H.get(e, i, j), H.get(e, j, c0)), t)
            sa = _sum(e, low, _inc(e, c), lambda e, j: _m(e, H.get(e, i, j), H.get(e, j, c)), t)
            w = _s(e, H.get(e, i, i), p)
            second = _fc(e, "olt", ev.get(e, i), zero)
            _when(e, second, lambda e: var.set(e, z=w, r=ra, s=sa))

            def solve(e):
                def alone(e):
                    re, im = _cdiv(e, _neg(e, ra), _neg(e, sa), w, q)
                    H.set(e, i, c0, re)
                    H.set(e, i, c, im)

                def block(e):
                    x, y = H.get(e, i, i1), H.get(e, i1, i)
                    z, rz, sz = var[e, "z"], var[e, "r"], var[e, "s"]
                    dp, ei = _s(e, d.get(e, i), p), ev.get(e, i)
                    vr = _s(e, _a(e, _m(e, dp, dp), _m(e, ei, ei)), _m(e, q, q))
                    vi = _m(e, _m(e, dp, e.const(2.0, t)), q)
                    both = _and(e, _fc(e, "oeq", vr, zero), _fc(e, "oeq", vi, zero))
                    size = _a(e, _a(e, _a(e, _abs(e, w), _abs(e, q)), _a(e, _abs(e, x), _abs(e, y))),
                              _abs(e, z))
                    vr = e.select(both, _m(e, _m(e, eps, norm), size), vr)
                    re, im = _cdiv(e, _a(e, _s(e, _m(e, x, rz), _m(e, z, ra)), _m(e, q, sa)),
                                   _s(e, _s(e, _m(e, x, sz), _m(e, z, sa)), _m(e, q, ra)), vr, vi)
                    H.set(e, i, c0, re)
                    H.set(e, i, c, im)

                    def by_x(e):
                        H.set(e, i1, c0, _d(e, _a(e, _s(e, _neg(e, ra), _m(e, w, re)), _m(e, q, im)), x))
                        H.set(e, i1, c, _d(e, _s(e, _s(e, _neg(e, sa), _m(e, w, im)), _m(e, q, re)), x))

                    def by_z(e):
                        re2, im2 = _cdiv(e, _s(e, _neg(e, rz), _m(e, y, re)),
                                         _s(e, _neg(e, sz), _m(e, y, im)), z, q)
                        H.set(e, i1, c0, re2)
                        H.set(e, i1, c, im2)

                    _when(e, _fc(e, "ogt", _abs(e, x), _a(e, _abs(e, z), _abs(e, q))), by_x, by_z)

                _when(e, _fc(e, "oeq", ev.get(e, i), zero), alone, block)
                rescale(e, i, c, [c0, c])

            _when(e, _not(e, second), solve)
            return [e.select(second, low, i)]

        _loop(e, 0, _dec(e, c), row, [c0])

    def vector(e, r, _):
        c = _dec(e, n - 1, r)
        p, q = d.get(e, c), ev.get(e, c)
        _when(e, _fc(e, "oeq", q, zero), lambda e: real(e, c, p))
        _when(e, _fc(e, "olt", q, zero), lambda e: complex_(e, c, p, q))

    _loop(e, 0, n, vector)


def _back_transform(e, n: int, H: _Matrix, Vt: _Matrix, w: _Matrix, t) -> None:
    """V = V T with V held as Vt = V^T and T the upper triangle of H (the Schur form's
    eigenvectors): row j of V^T becomes sum over k <= j of T[k, j] times row k, from the last
    row (so the rows it reads are still the old ones), through the scratch ``w``; every inner
    loop runs along rows (contiguous)."""
    zero = e.const(0.0, t)

    def row(e, r, _):
        j = _dec(e, n - 1, r)
        _loop(e, 0, n, lambda e, c, _: w.set(e, c, zero))

        def term(e, k, _):
            tkj = H.get(e, k, j)
            _loop(e, 0, n, lambda e, c, _: w.set(e, c, _a(e, w.get(e, c), _m(e, tkj, Vt.get(e, k, c)))))

        _loop(e, 0, _inc(e, j), term)
        _loop(e, 0, n, lambda e, c, _: Vt.set(e, j, c, w.get(e, c)))

    _loop(e, 0, n, row)


def _normalise(e, n: int, t, V: _Matrix, ev, re: _Matrix, im: _Matrix) -> None:
    """Each eigenvector to unit norm with its largest component real, as LAPACK's ``geev``:
    a real one scaled; a complex pair's (columns j, j+1 of V: real and imaginary parts) scaled
    and then turned by the rotation that zeroes the imaginary part of its largest component
    (``lartg``: that component becomes r with the sign of its real part)."""
    zero = e.const(0.0, t)

    def column(e, j, _):
        j1 = e.op("arith.minsi", _inc(e, j), _idx(e, n - 1))
        q = ev.get(e, j)

        def real(e):
            size = _norm(e, 0, n, lambda e, i: V.get(e, i, j), t)
            def entry(e, i, _):
                re.set(e, i, j, _d(e, V.get(e, i, j), size))
                im.set(e, i, j, zero)

            _loop(e, 0, n, entry)

        def pair(e):
            size = e.op("math.hypot", _norm(e, 0, n, lambda e, i: V.get(e, i, j), t),
                        _norm(e, 0, n, lambda e, i: V.get(e, i, j1), t))

            def largest(e, i, c):
                x, y = V.get(e, i, j), V.get(e, i, j1)
                m = _a(e, _m(e, x, x), _m(e, y, y))
                wins = _fc(e, "ogt", m, c[1])
                return [e.select(wins, i, c[0]), e.select(wins, m, c[1])]

            k, _ = _loop(e, 0, n, largest, [_idx(e, 0), e.const(-1.0, t)])
            f, g = V.get(e, k, j), V.get(e, k, j1)
            radius = e.op("math.hypot", f, g)
            cs = _d(e, _abs(e, f), radius)
            sn = _d(e, g, e.op("math.copysign", radius, f))

            def entry(e, i, _):
                x, y = _d(e, V.get(e, i, j), size), _d(e, V.get(e, i, j1), size)
                xr = _a(e, _m(e, cs, x), _m(e, sn, y))
                yr = e.select(_ic(e, "eq", i, k), zero, _s(e, _m(e, cs, y), _m(e, sn, x)))
                re.set(e, i, j, xr)
                re.set(e, i, j1, xr)
                im.set(e, i, j, yr)
                im.set(e, i, j1, _neg(e, yr))

            _loop(e, 0, n, entry)

        _when(e, _fc(e, "oeq", q, zero), real)
        _when(e, _fc(e, "ogt", q, zero), pair)

    _loop(e, 0, n, column)


def eig(op: array.EigOp) -> kernel.GenericOp:
    """The scaled matrix (result 1) to Hessenberg form (Q in result 2), QR iteration to the
    Schur form with the eigenvalues in the packed output's last row; with vectors, those of
    the Schur form by back-substitution, times Q, normalised into the packed output."""
    a, kb, source, outer, t = _setup(op)
    n = a.type.shape[-1]
    e = kb.emit
    H, ort, w = _Matrix(outer, t, 1), _Matrix(outer, t, 3), _Matrix(outer, t, 4)
    # Q (then the eigenvectors) is held transposed: the QR sweeps turn columns of Q, rows here
    Vt = _Matrix(outer, t, 2) if op.vectors else None
    V = _Matrix(outer, t, 2, transposed=True) if op.vectors else None
    var = _Vars(outer, t, 5, 6)
    saved = _Matrix(outer, t, 7)  # a QR sweep's reflectors, for its deferred column updates
    if op.vectors:
        planes = [_Matrix([*outer, _idx(e, part)], t, 0) for part in (0, 1)]
        d, ev = _Row(planes[0], n), _Row(planes[1], n)
    else:
        d, ev = _Row(_Matrix(outer, t, 0), 0), _Row(_Matrix(outer, t, 0), 1)

    def entry(e, i, j):
        return e.b.create(kernel.ExtractOp, [source, *outer, i, j], [t]).result

    largest = _largest(e, n, n, entry, t)
    e.b.create(kernel.RaiseOp, [_fc(e, "uge", largest, e.const(float("inf"), t))], [],
               {"code": kernel.NOT_FINITE})
    scale = _power_of_two(e, largest, t)
    _fill(e, n, n, H, lambda e, i, j: _m(e, entry(e, i, j), scale))
    _hessenberg(e, n, t, H, Vt, ort, w)
    log = None
    if op.vectors:  # the sweeps' reflectors of Q's columns, applied in batches
        cap = _ReflectorLog.capacity(n, LOG_STEPS, t)
        log = _ReflectorLog(Vt, n, n, _Matrix(outer, i64, 8), _Matrix(outer, t, 9), cap, t)
        log.start(e)
    _schur(e, n, t, H, V, d, ev, var, saved, log)
    if op.vectors:
        def vectors(e):
            _back_substitute(e, n, t, H, d, ev, var)
            _back_transform(e, n, H, Vt, w, t)

        _when(e, _fc(e, "une", var[e, "norm"], e.const(0.0, t)), vectors)
        _normalise(e, n, t, V, ev, *planes)
    def unscale(e, i, _):
        d.set(e, i, _d(e, d.get(e, i), scale))
        ev.set(e, i, _d(e, ev.get(e, i), scale))

    _loop(e, 0, n, unscale)
    square = a.type.with_shape(a.type.shape[:-2] + ((n, n) if op.vectors else (1, 1)))
    vector = a.type.with_shape(a.type.shape[:-2] + (n,))
    results = [op.result_type, a.type, square, vector, vector,
               a.type.with_shape(a.type.shape[:-2] + (len(FLOATS),)),
               TensorType(a.type.shape[:-2] + (len(INTS),), i64),
               TensorType(a.type.shape[:-2] + (5, max(n, 1)), t)]
    indices, factors = _ReflectorLog.sizes(_ReflectorLog.capacity(n, LOG_STEPS, t) if op.vectors else 0)
    results += [TensorType(a.type.shape[:-2] + indices, i64), TensorType(a.type.shape[:-2] + factors, t)]
    return _finish(kb, op, results, [-1] * len(results))


RULES = {array.EigOp: eig}
