"""The kernel forms of ``array.cholesky``, ``slogdet`` and ``qr``, and the helpers that
``spectral.py``, ``nonsymmetric.py`` and ``bidiagonal.py`` (eigh, eig, svd) share: one
``kernel.generic`` over the batch dims whose body works on one matrix in scalar loops, in
indexed results (the packed output first, then scratch matrices the call drops; each starts as
a copy of a zero constant).

- cholesky: Cholesky–Banachiewicz, row by row from the lower triangle, as LAPACK's ``potrf``
  (a diagonal <= 0 raises ``NOT_POSITIVE_DEFINITE``; NaN runs through, as in NumPy's).
- slogdet: the LU factorisation of ``factor.py`` and NumPy's sign and sum of ``log|u_ii|``.
- qr: Householder reflectors as LAPACK's ``dlarfg`` makes them (``beta = -sign(alpha) *
  hypot(alpha, |x|)``, so R's signs are LAPACK's), Q accumulated backwards as ``orgqr``.
  From ``BLOCKED_FROM`` columns on, blocked as ``geqrf``/``orgqr`` (``_blocked_qr``): the
  reflectors of a panel applied to the rest of the matrix at once, through their compact WY
  form ``I - V T V^T``, in passes along rows that fold several rows (or reflectors) into each
  multiply-add: the trailing matrix crosses the caches twice per panel, not twice per
  reflector. (The products as kernels of their own, unrolled over static panels with GEMMs
  between them, ran as fast but compiled 5-25x longer: docs/performance.md.)

Sums of products run as ``LANES`` interleaved partial sums (``_sum``). ``_RowLog`` records the
row transforms of the QR iterations of eigh, svd and eig and applies them in batches.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import AffineMap, DenseAttr, numpy_dtype
from jitcore.ir.builder import Builder
from jitcore.ir.core import Value
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import i1, i64, index
from jitcore.passes.kernelize.builder import KernelBuilder
from jitcore.passes.kernelize.factor import (
    _close,
    _copy,
    _if,
    _input_access,
    _lu,
    _swapper,
    failure_flag,
    log_determinant,
    lu_workspace,
)
from jitcore.passes.kernelize.sort import _for

LANES = 4  # partial sums per sum of products (see _sum)


class _Matrix:
    """Reads and writes of a matrix (or vector) held in an indexed result at the batch position
    ``outer``, with ``offset`` added to its positions and ``transposed`` swapping them: a view
    of the packed output or of a scratch result."""

    def __init__(self, outer: list[Value], t, result: int, offset=(0, 0), transposed: bool = False):
        self.outer, self.t, self.result = outer, t, result
        self.offset, self.transposed = offset, transposed

    def _positions(self, e, pos) -> list[Value]:
        if self.transposed:
            pos = pos[::-1]
        return [*self.outer, *(_add(e, p, o) for p, o in zip(pos, self.offset))]

    def get(self, e, *pos) -> Value:
        return e.b.create(kernel.ExtractResultOp, self._positions(e, pos), [self.t],
                          {"result": self.result}).results[0]

    def set(self, e, *args) -> None:
        *pos, v = args
        e.b.create(kernel.InsertOp, [v, *self._positions(e, pos)], [], {"result": self.result, "mode": "set"})


class _Row:
    """Row ``row`` of a matrix view, as a vector."""

    def __init__(self, matrix: _Matrix, row: int):
        self.matrix, self.row = matrix, row

    def get(self, e, i) -> Value:
        return self.matrix.get(e, self.row, i)

    def set(self, e, i, v) -> None:
        self.matrix.set(e, self.row, i, v)


def _idx(e, v) -> Value:
    return e.const(v, index) if isinstance(v, int) else v


def _add(e, p, o) -> Value:
    if isinstance(p, int):
        return _idx(e, p + o)
    return p if o == 0 else e.op("arith.addi", p, _idx(e, o))


def _loop(e, lo, hi, body, inits=()) -> list[Value]:
    """``for i in range(lo, hi)``, ``body(e, i, carried)`` returning the next carried (or None
    when nothing is carried)."""
    def step(e, i, carried):
        out = body(e, i, carried)
        return [] if out is None else out

    return _for(e, _idx(e, lo), _idx(e, hi), _idx(e, 1), list(inits), step)


def _sum(e, lo, hi, term, t) -> Value:
    """The sum of ``term(e, i)`` for i in range(lo, hi), as LANES interleaved partial sums
    added pairwise at the end: independent chains of adds that overlap, where one chain waits
    on each add (IEEE order forbids LLVM from splitting it)."""
    lo, hi = _idx(e, lo), _idx(e, hi)
    zero = e.const(0.0, t)
    count = e.op("arith.divui", e.op("arith.maxsi", e.op("arith.subi", hi, lo), _idx(e, 0)), _idx(e, LANES))

    def block(e, b, carried):
        base = e.op("arith.addi", lo, e.op("arith.muli", b, _idx(e, LANES)))
        return [_add_f(e, carried[lane], term(e, e.op("arith.addi", base, _idx(e, lane))))
                for lane in range(LANES)]

    parts = _loop(e, 0, count, block, [zero] * LANES)
    start = e.op("arith.addi", lo, e.op("arith.muli", count, _idx(e, LANES)))
    (rest,) = _loop(e, start, hi, lambda e, i, c: [_add_f(e, c[0], term(e, i))], [zero])
    while len(parts) > 1:
        parts = [_add_f(e, parts[i], parts[i + 1]) for i in range(0, len(parts), 2)]
    return _add_f(e, parts[0], rest)


def _dot(e, lo, hi, term, t) -> Value:
    """The sum of ``term(e, i)`` for i in range(lo, hi), its additions marked reorderable: LLVM
    vectorizes it into partial sums of its choosing (their number depends on the host's
    vector width, so the last bits do too). For the reductions whose order no result is
    defined by: NumPy's own (LAPACK's BLAS) reorder them as freely."""
    def add(e, i, c):
        return [e.op("arith.addf", c[0], term(e, i), fastmath="reassoc")]

    (total,) = _loop(e, lo, hi, add, [e.const(0.0, t)])
    return total


def _f(e, name, *args):
    return e.op(name, *args)


def _add_f(e, a, b):
    return e.op("arith.addf", a, b)


def _max_abs(e, acc, v):
    return e.op("arith.maximumf", acc, e.op("math.absf", v))


def _abs(e, x):
    return e.op("math.absf", x)


def _not(e, flag):
    return e.op("arith.xori", flag, e.const(True, i1))


def _mul(e, a, b):
    return e.op("arith.mulf", a, b)


def _sub(e, a, b):
    return e.op("arith.subf", a, b)


def _square(e, v):
    return e.op("arith.mulf", v, v)


def _unit(e, i, j, t) -> Value:
    """1 where index i == j, else 0 (the identity's entries)."""
    same = e.op("arith.cmpi", i, j, result=i1, predicate="eq")
    return e.select(same, _scalar(e, 1.0, t), _scalar(e, 0.0, t))


def _fill(e, rows: int, cols: int, M, value) -> None:
    """M[i, j] = value(e, i, j) for the whole matrix, row by row."""
    _loop(e, 0, rows, lambda e, i, _: _loop(e, 0, cols, lambda e, j, _: M.set(e, i, j, value(e, i, j))))


def _identity(e, rows, cols, M, t) -> None:
    _fill(e, rows, cols, M, lambda e, i, j: _unit(e, i, j, t))


class _RowLog:
    """Transforms of a few rows of M at a time (plane rotations, swaps, sign flips, 3-row
    reflectors), recorded in order and applied later, a strip of columns at a time: the QR
    iterations of eigh, svd and eig turn rows of the n x n vector matrix in sweeps of up to
    n - 1 transforms, each sweep one pass over the whole matrix, which at n = 512 (2 MB)
    outgrows the 1 MB L2; here up to ``cap`` transforms (many sweeps) pass over one strip
    (``n x STRIP_BYTES``, in L2) before the next, so the matrix crosses from the L3 once per
    flush, not once per sweep. A subclass says what an entry does (``ROWS`` row indices and
    ``FACTORS`` numbers, ``_apply``). Row indices and the count go in an i64 scratch result
    (``cap + 1`` x ROWS, the count in the last row), the factors in a float one."""

    STRIP_BYTES = 256 * 1024  # one strip of all the rows: fits Zen 4's 1 MB L2 with room
    ROWS, FACTORS = 2, 4

    def __init__(self, M: _Matrix, rows: int, width: int, indices: _Matrix, factors: _Matrix,
                 cap: int, t):
        self.M, self.rows, self.width, self.cap, self.t = M, rows, width, cap, t
        self.indices, self.factors = indices, factors
        itemsize = np.dtype(numpy_dtype(t)).itemsize
        self.strip = max(16, min(256, self.STRIP_BYTES // max(rows * itemsize, 1)) // 8 * 8)

    @classmethod
    def capacity(cls, n: int, sweeps: int, t) -> int:
        """Entries for ``sweeps`` sweeps of up to n (+ 2) transforms where the n x n matrix
        outgrows a strip; one sweep's where it fits (the log gains nothing there, and a
        batch of small matrices would pay its memory per matrix)."""
        itemsize = np.dtype(numpy_dtype(t)).itemsize
        return (sweeps if n * n * itemsize > cls.STRIP_BYTES else 1) * n + 2

    @classmethod
    def sizes(cls, cap: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The shapes of the index and factor scratch results."""
        return (cap + 1, cls.ROWS), (cap, cls.FACTORS)

    def _count(self, e) -> Value:
        return e.op("arith.bitcast", self.indices.get(e, self.cap, 0), result=index)

    def _set_count(self, e, v) -> None:
        self.indices.set(e, self.cap, 0, e.op("arith.bitcast", _idx(e, v), result=i64))

    def start(self, e) -> None:
        self._set_count(e, 0)

    def _add(self, e, rows, factors) -> None:
        k = self._count(e)
        for j, r in enumerate(rows):
            self.indices.set(e, k, j, e.op("arith.bitcast", _idx(e, r), result=i64))
        for j, v in enumerate(factors):
            self.factors.set(e, k, j, v)
        self._set_count(e, e.op("arith.addi", k, _idx(e, 1)))

    def reserve(self, e, needed: int) -> None:
        """Flush first unless ``needed`` more entries fit (at most ``cap``)."""
        assert needed <= self.cap, "a log smaller than one sweep"
        full = e.op("arith.cmpi", e.op("arith.addi", self._count(e), _idx(e, needed)), _idx(e, self.cap),
                    result=i1, predicate="sgt")
        then, other = _if(e, full)
        self.flush(then)
        _close(then, other)

    def flush(self, e) -> None:
        """Apply the entries in order, strip by strip of columns, then empty the log."""
        count, M, strip = self._count(e), self.M, self.strip

        def one_strip(e, s, _):
            lo = e.op("arith.muli", s, _idx(e, strip))
            hi = e.op("arith.minsi", e.op("arith.addi", lo, _idx(e, strip)), _idx(e, self.width))

            def entry(e, k, _):
                rows = [e.op("arith.bitcast", self.indices.get(e, k, j), result=index)
                        for j in range(self.ROWS)]
                factors = [self.factors.get(e, k, j) for j in range(self.FACTORS)]

                def column(e, j, _):
                    xs = [M.get(e, r, j) for r in rows]
                    for slot, v in self._apply(e, factors, xs):  # in this order
                        M.set(e, rows[slot], j, v)

                _loop(e, lo, hi, column)

            _loop(e, 0, count, entry)

        _loop(e, 0, -(-self.width // strip), one_strip)
        self._set_count(e, 0)


class _PairLog(_RowLog):
    """Entries (p, q; a, b, c, d): ``(x_p, x_q) <- (a x_p + b x_q, c x_p + d x_q)``; with p == q
    the second write wins, ``a x_p + b x_p`` (a sign flip: a = -1, b = 0, c = 0, d = 1)."""

    def add(self, e, p, q, a, b, c, d) -> None:
        self._add(e, (p, q), (a, b, c, d))

    def _apply(self, e, f, xs):
        a, b, c, d = f
        x, y = xs
        return [(1, _add_f(e, _mul(e, c, x), _mul(e, d, y))), (0, _add_f(e, _mul(e, a, x), _mul(e, b, y)))]


class _ReflectorLog(_RowLog):
    """Entries (k, k1, k2; x, y, z, q, r), a reflector of three rows as ``hqr2`` applies it:
    ``v = x a + y b + z c``, then ``c -= r v``, ``a -= v``, ``b -= q v`` (a = row k, b = k1,
    c = k2); a two-row one has k2 = k and z = r = 0 (row k's second write wins)."""

    ROWS, FACTORS = 3, 5

    def add(self, e, rows, factors) -> None:
        self._add(e, rows, factors)

    def _apply(self, e, f, xs):
        x, y, z, q, r = f
        a, b, c = xs
        v = _add_f(e, _add_f(e, _mul(e, x, a), _mul(e, y, b)), _mul(e, z, c))
        return [(2, _sub(e, c, _mul(e, v, r))), (0, _sub(e, a, v)), (1, _sub(e, b, _mul(e, v, q)))]


def _eps(t) -> float:
    return float(np.finfo(numpy_dtype(t)).eps)


def _finish(kb, op, result_types, copy_inputs):
    """The kernel, every result indexed; those not a copy of the input start as a copy of a
    zero constant (an indexed result starts as a copy of an input), which the body overwrites."""
    batch = kb.num_dims
    empty = AffineMap(batch, ())
    copy_inputs = list(copy_inputs)
    for k, (rt, source) in enumerate(zip(result_types, copy_inputs)):
        if source < 0:
            zeros = Builder.before_op(op).create(array.ConstantOp, [], [rt], {
                "value": DenseAttr(np.zeros(rt.shape, numpy_dtype(rt.element)), rt)}).result
            kb.indexed_input(zeros)
            copy_inputs[k] = kb.operands.index(zeros)
    return kb.finish(op, result_types, [empty] * len(result_types), ["parallel"] * batch, [],
                     domain=list(op.operands[0].type.shape[:-2]), copy_inputs=copy_inputs,
                     indexed_results=list(range(len(result_types))))


def _setup(op):
    a = op.operands[0]
    batch = a.type.rank - 2
    kb = KernelBuilder(batch)
    source = kb.indexed_input(a)
    outer = [kb.index(d) for d in range(batch)]
    return a, kb, source, outer, a.type.element


# -- cholesky ------------------------------------------------------------------------------
def cholesky(op: array.CholeskyOp) -> kernel.GenericOp:
    """L in place of a copy of the input: row i from the rows above it, the upper triangle
    zeroed. A complex L (``zpotrf``) takes ``L[i, k] * conj(L[j, k])`` in its sums (their real
    and imaginary parts summed apart) and the real part of the diagonal."""
    a, kb, source, outer, t = _setup(op)
    n = a.type.shape[-1]
    L = _Matrix(outer, t, 0)
    e = kb.emit
    rt = t.component if t.is_complex else t
    if op.soft:  # L starts as zeros one row longer (the flag's), the input copied in here
        _copy(e, n, n, _input_access(source, outer), L.set)

    def row(e, i, _):
        def off_diagonal(e, j, _):
            if t.is_complex:  # sum of L[i, k] conj(L[j, k]): (ac + bd) + (bc - ad) i
                def part(imaginary):
                    def term(e, k):
                        (a_, b_), (c_, d_) = e.parts(L.get(e, i, k)), e.parts(L.get(e, j, k))
                        if imaginary:
                            return _sub(e, _mul(e, b_, c_), _mul(e, a_, d_))
                        return _add_f(e, _mul(e, a_, c_), _mul(e, b_, d_))
                    return _sum(e, 0, j, term, rt)

                s = e.make_complex(part(False), part(True))
                dot = e.elementwise("sub", [L.get(e, i, j), s])
                L.set(e, i, j, e.elementwise("div", [dot, L.get(e, j, j)]))
                return
            s = _sum(e, 0, j, lambda e, k: _f(e, "arith.mulf", L.get(e, i, k), L.get(e, j, k)), t)
            L.set(e, i, j, _f(e, "arith.divf", _f(e, "arith.subf", L.get(e, i, j), s), L.get(e, j, j)))

        _loop(e, 0, i, off_diagonal)
        if t.is_complex:
            s = _sum(e, 0, i, lambda e, k: _add_f(e, *(_square(e, p) for p in e.parts(L.get(e, i, k)))), rt)
            d = _f(e, "arith.subf", e.parts(L.get(e, i, i))[0], s)
        else:
            s = _sum(e, 0, i, lambda e, k: _square(e, L.get(e, i, k)), t)
            d = _f(e, "arith.subf", L.get(e, i, i), s)
        bad = e.op("arith.cmpf", d, e.const(0.0, rt), result=i1, predicate="ole")  # NaN goes on, as NumPy
        if op.soft:
            failure_flag(L.set, n, t)(e, bad)
        else:
            e.b.create(kernel.RaiseOp, [bad], [], {"code": kernel.NOT_POSITIVE_DEFINITE})
        root = _f(e, "math.sqrt", d)
        L.set(e, i, i, e.make_complex(root, e.const(0.0, rt)) if t.is_complex else root)
        zero = e.make_complex(e.const(0.0, rt), e.const(0.0, rt)) if t.is_complex else e.const(0.0, t)
        _loop(e, e.op("arith.addi", i, _idx(e, 1)), n, lambda e, j, _: L.set(e, i, j, zero))

    if op.soft:  # the rows after a failed one are not computed (LAPACK's potrf stops there too)
        def row_while_ok(e, i, _):
            flag = L.get(e, n, 0)
            ok = e.op("arith.cmpf", e.parts(flag)[0] if t.is_complex else flag, e.const(0.0, rt),
                      result=i1, predicate="oeq")
            go, skip = _if(e, ok)
            row(go, i, None)
            _close(go, skip)

        _loop(e, 0, n, row_while_ok)
    else:
        _loop(e, 0, n, row)
    return _finish(kb, op, [op.result_type], [-1 if op.soft else 0])


# -- slogdet -------------------------------------------------------------------------------
def slogdet(op: array.SlogdetOp) -> kernel.GenericOp:
    """LU with partial pivoting in a copy of the input (result 1; a complex one in two real
    planes, results 1 and 2); (sign, log|det|) as NumPy: sign 0 and -inf for an exactly zero
    pivot."""
    a, kb, _, outer, t = _setup(op)
    n = a.type.shape[-1]
    out = _Matrix(outer, t, 0)
    e = kb.emit
    read, write, types, copies = lu_workspace(e, kb, op, a, outer, 1)
    sign = _lu(e, n, t, read, write, _swapper(n, [(read, write, n)]), lambda e, zero: None)
    sign, logdet = log_determinant(e, n, t, read, sign)
    if t.is_complex:  # packed in the matrices' type: log|det| as a real part
        logdet = e.make_complex(logdet, e.const(0.0, logdet.type))
    out.set(e, 0, sign)
    out.set(e, 1, logdet)
    return _finish(kb, op, [op.result_type, *types], [-1, *copies])


# -- qr ------------------------------------------------------------------------------------
def _scalar(e, value: float, t) -> Value:
    """The real ``value`` as a constant of ``t`` (a complex one with a zero imaginary part)."""
    if t.is_complex:
        return e.make_complex(e.const(value, t.component), e.const(0.0, t.component))
    return e.const(value, t)


def _parts_of(e, x) -> list[Value]:
    """The real parts a magnitude is made of: ``[x]``, or a complex ``x``'s ``[re, im]``."""
    return list(e.parts(x)) if x.type.is_complex else [x]


def _norm(e, lo, hi, get, t) -> Value:
    """The 2-norm of ``get(e, i)`` for i in range(lo, hi), scaled by the largest magnitude so
    that neither squares overflow nor underflow (as LAPACK's ``nrm2``; of both parts of a
    complex entry, as ``dznrm2``); real."""
    rt = t.component if t.is_complex else t

    def largest(e, i, c):
        out = c[0]
        for part in _parts_of(e, get(e, i)):
            out = e.op("arith.maximumf", out, e.op("math.absf", part))
        return [out]

    (scale,) = _loop(e, lo, hi, largest, [e.const(0.0, rt)])
    positive = e.op("arith.cmpf", scale, e.const(0.0, rt), result=i1, predicate="ogt")
    safe = e.select(positive, scale, e.const(1.0, rt))

    def term(e, i):
        squares = [_square(e, e.op("arith.divf", part, safe)) for part in _parts_of(e, get(e, i))]
        return squares[0] if len(squares) == 1 else _add_f(e, *squares)

    total = _sum(e, lo, hi, term, rt)
    return _mul(e, safe, e.op("math.sqrt", total))


def _householder(e, alpha, xnorm, t):
    """LAPACK's ``dlarfg`` for a vector (alpha, x) with ``|x| = xnorm``: (beta, a function that
    turns an element of x into v's, h); an x of zero leaves the vector (h = 0, v = x, beta alpha).
    Where beta is below the smallest normal number, alpha, x and xnorm are first scaled by its
    reciprocal (a power of two, exact), as ``dlarfg`` does: unscaled, ``1 / (alpha - beta)``
    overflows, and h and v, computed from subnormal values, do not make an orthogonal reflector."""
    zero, one = e.const(0.0, t), e.const(1.0, t)
    trivial = e.op("arith.cmpf", xnorm, zero, result=i1, predicate="oeq")
    tiny = float(np.finfo(numpy_dtype(t)).tiny)
    small = e.op("arith.cmpf", e.op("math.hypot", alpha, xnorm), e.const(tiny, t), result=i1, predicate="olt")
    up = e.select(small, e.const(1.0 / tiny, t), one)
    alpha, xnorm = _mul(e, alpha, up), _mul(e, xnorm, up)
    beta = e.op("arith.negf", e.op("math.copysign", e.op("math.hypot", alpha, xnorm), alpha))
    factor = e.select(trivial, one, e.op("arith.divf", one, _sub(e, alpha, beta)))
    h = e.select(trivial, zero, e.op("arith.divf", _sub(e, beta, alpha), beta))
    down = e.select(small, e.const(tiny, t), one)

    def v(e, x):  # (x * 1.0 is x: unscaled, the bits of x * factor)
        return _mul(e, _mul(e, x, up), factor)
    return _mul(e, e.select(trivial, alpha, beta), down), v, h


def _complex_householder(e, alpha, xnorm, t):
    """LAPACK's ``zlarfg``: as ``_householder`` with a complex ``alpha``; beta is real
    (``-sign(re alpha) * |(alpha, x)|``, so R's diagonal is real as LAPACK's), ``h = (beta -
    alpha) / beta``; the vector is left when x is zero and alpha real."""
    rt = t.component
    ar, ai = e.parts(alpha)
    zero = e.const(0.0, rt)
    trivial = e.op("arith.andi", e.op("arith.cmpf", xnorm, zero, result=i1, predicate="oeq"),
                   e.op("arith.cmpf", ai, zero, result=i1, predicate="oeq"))
    length = e.op("math.hypot", e.op("math.hypot", ar, ai), xnorm)
    beta = e.op("arith.negf", e.op("math.copysign", length, ar))
    one = _scalar(e, 1.0, t)
    beta_c = e.make_complex(beta, zero)
    factor = e.select(trivial, one, e.elementwise("div", [one, e.elementwise("sub", [alpha, beta_c])]))
    h = e.make_complex(e.op("arith.divf", _sub(e, beta, ar), beta),
                       e.op("arith.divf", e.op("arith.negf", ai), beta))
    return e.select(trivial, alpha, beta_c), factor, e.select(trivial, _scalar(e, 0.0, t), h)


def _fadd(e, a, b) -> Value:  # the f-helpers: real or complex, by the emitter's arithmetic
    return e.elementwise("add", [a, b])


def _fsub(e, a, b) -> Value:
    return e.elementwise("sub", [a, b])


def _fmul(e, a, b) -> Value:
    return e.elementwise("mul", [a, b])


def _conj(e, x) -> Value:
    return e.elementwise("conj", [x]) if x.type.is_complex else x


def _householder_qr(e, m: int, n: int, t, W: _Matrix, tau: _Matrix, w: _Matrix) -> None:
    """Factor W (m x n) in place as ``geqrf``: R on and above the diagonal, each reflector's
    vector below it (its leading 1 implied), its scale in ``tau``; ``w`` is scratch (n)."""
    _loop(e, 0, min(m, n), lambda e, k, _: _householder_column(e, k, m, t, W, tau, w, n))


def _householder_column(e, k, m: int, t, W: _Matrix, tau: _Matrix, w: _Matrix, end) -> None:
    """Column k's reflector, as ``geqr2`` makes it: its vector stored below the diagonal, its
    scale in ``tau``, and it applied to W's columns k+1 to ``end`` (``w``: scratch)."""
    kp1 = e.op("arith.addi", k, _idx(e, 1))
    alpha = W.get(e, k, k)
    xnorm = _norm(e, kp1, m, lambda e, i: W.get(e, i, k), t)
    if t.is_complex:
        beta, scale, h = _complex_householder(e, alpha, xnorm, t)

        def v(e, x):
            return _fmul(e, x, scale)
    else:
        beta, v, h = _householder(e, alpha, xnorm, t)
    tau.set(e, k, h)
    _loop(e, kp1, m, lambda e, i, _: W.set(e, i, k, v(e, W.get(e, i, k))))
    W.set(e, k, k, beta)
    _reflect(e, k, m, _conj(e, h), W, W, kp1, end, w)  # H^H from the left, as geqr2


def _reflect(e, k, m: int, h, W: _Matrix, M: _Matrix, lo, hi: int, w: _Matrix) -> None:
    """Columns lo..hi-1 of M, rows k..m-1, times the reflector I - h v v^H whose v is column
    k of W below row k (its leading 1 implied): ``w = v^H M`` then ``M -= h v w``, both row by
    row so the inner loops run along rows (contiguous) through the scratch vector ``w``.
    (The emitter's arithmetic: complex entries take complex products.)"""
    kp1 = e.op("arith.addi", k, _idx(e, 1))
    _loop(e, lo, hi, lambda e, j, _: w.set(e, j, M.get(e, k, j)))

    def gather(e, i, _):
        vi = _conj(e, W.get(e, i, k))
        _loop(e, lo, hi, lambda e, j, _: w.set(e, j, _fadd(e, w.get(e, j), _fmul(e, vi, M.get(e, i, j)))))

    _loop(e, kp1, m, gather)
    _loop(e, lo, hi, lambda e, j, _: M.set(e, k, j, _fsub(e, M.get(e, k, j), _fmul(e, h, w.get(e, j)))))

    def update(e, i, _):
        f = _fmul(e, h, W.get(e, i, k))
        _loop(e, lo, hi, lambda e, j, _: M.set(e, i, j, _fsub(e, M.get(e, i, j), _fmul(e, f, w.get(e, j)))))

    _loop(e, kp1, m, update)


def _form_q(e, m: int, columns: int, reflectors: int, t, W: _Matrix, tau: _Matrix, Q: _Matrix,
            w: _Matrix) -> None:
    """Q's first ``columns`` columns (m x columns) from the reflectors, as ``orgqr``: the
    identity, then each reflector from the last applied to the columns from its own on."""
    _identity(e, m, columns, Q, t)

    def reflector(e, r, _):
        k = e.op("arith.subi", _idx(e, reflectors - 1), r)
        h = tau.get(e, k)

        _reflect(e, k, m, h, W, Q, k, columns, w)

    _loop(e, 0, reflectors, reflector)


# -- blocked qr ----------------------------------------------------------------------------
BLOCKED_FROM = 128  # min(m, n) from which qr runs blocked (measured: docs/performance.md)
BLOCK = 32  # reflectors per panel of the blocked qr
UNROLL = 4  # rows (or reflectors) folded into each pass over a row of the block update


def _v(e, W: _Matrix, r, c, t) -> Value:
    """Entry r of reflector c's vector, stored below W's diagonal: 1 on it, 0 above."""
    on = e.op("arith.cmpi", r, c, result=i1, predicate="eq")
    below = e.op("arith.cmpi", r, c, result=i1, predicate="ugt")
    return e.select(below, W.get(e, r, c), e.select(on, e.const(1.0, t), e.const(0.0, t)))


def _fma(e, a, b, c) -> Value:
    """a * b + c, rounded once (the block updates' inner loops)."""
    return e.op("math.fma", a, b, c)


def _larft(e, k0, b, m: int, t, W: _Matrix, tau: _Matrix, T: _Matrix, y: _Matrix) -> None:
    """T (b x b, upper, in rows k0.. of ``T``) with ``H_k0 ... H_k0+b-1 = I - V T V^T``, as
    LAPACK's ``larft``: ``T[i, i] = tau_i``, ``T[:i, i] = -tau_i T[:i, :i] (V[:, :i]^T v_i)``,
    the products ``V[:, :i]^T v_i`` gathered a row of V at a time into ``y``."""
    zero = e.const(0.0, t)

    def column(e, i, _):
        c = e.op("arith.addi", k0, i)
        _loop(e, 0, i, lambda e, j, _: y.set(e, j, zero))

        def gather(e, r, _):
            vr = _v(e, W, r, c, t)
            def add(e, j, _):
                y.set(e, j, _add_f(e, y.get(e, j), _mul(e, W.get(e, r, e.op("arith.addi", k0, j)), vr)))

            _loop(e, 0, i, add)

        _loop(e, c, m, gather)
        h = tau.get(e, c)

        def entry(e, j, _):
            s = _sum(e, j, i, lambda e, p: _mul(e, T.get(e, e.op("arith.addi", k0, j), p), y.get(e, p)), t)
            T.set(e, e.op("arith.addi", k0, j), i, e.op("arith.negf", _mul(e, h, s)))

        _loop(e, 0, i, entry)
        T.set(e, c, i, h)

    _loop(e, 0, b, column)


def _fma_rows(e, lo, hi, coeffs: list, S: _Matrix, rows: list, D: _Matrix, row) -> None:
    """D[row, j] += sum over u of coeffs[u] * S[rows[u], j] for j in [lo, hi): one fused
    multiply-add per term, in u's order, so a block of rows costs one pass over D's row."""
    def col(e, j, _):
        acc = D.get(e, row, j)
        for coeff, r in zip(coeffs, rows, strict=True):
            acc = _fma(e, coeff, S.get(e, r, j), acc)
        D.set(e, row, j, acc)

    _loop(e, lo, hi, col)


def _block_reflect(e, k0, b, m: int, t, W: _Matrix, T: _Matrix, M: _Matrix, lo, hi, Y: _Matrix,
                   transpose: bool) -> None:
    """Rows k0.. of columns lo..hi-1 of M times ``I - V T^T V^T`` (``transpose``: Q^T, as
    the factorisation applies it) or ``I - V T V^T`` (Q, as forming Q does), V the b
    reflectors from column k0 of W: ``Y = V^T M``, ``Y = T^T Y`` (or ``T Y``), ``M -= V Y``,
    each a pass over rows whose inner loop runs along a row (contiguous), ``UNROLL`` rows of
    M (or of Y) folded into each pass over a row of Y (or of M): the trailing matrix crosses
    the caches twice per block, where the unblocked reflectors cross it twice each."""
    zero = e.const(0.0, t)

    def rows_of_y(e, row, _):
        _loop(e, lo, hi, lambda e, j, _: Y.set(e, row, j, zero))

    _loop(e, 0, b, rows_of_y)

    # Y = V^T M: rows of M UNROLL at a time into every row of Y
    count = e.op("arith.subi", _idx(e, m), k0)
    blocks = e.op("arith.divui", count, _idx(e, UNROLL))

    def gather_rows(e, r0, n_rows):
        def into(e, row, _):
            c = e.op("arith.addi", k0, row)
            rows = [e.op("arith.addi", r0, _idx(e, u)) for u in range(n_rows)]
            _fma_rows(e, lo, hi, [_v(e, W, r, c, t) for r in rows], M, rows, Y, row)

        _loop(e, 0, b, into)

    _loop(e, 0, blocks, lambda e, q, _: gather_rows(
        e, e.op("arith.addi", k0, e.op("arith.muli", q, _idx(e, UNROLL))), UNROLL))
    tail = e.op("arith.addi", k0, e.op("arith.muli", blocks, _idx(e, UNROLL)))
    _loop(e, tail, m, lambda e, r, _: gather_rows(e, r, 1))

    # Y = T^T Y (row i from rows 0..i: i descending) or T Y (rows i..b-1: i ascending)
    def triangle(e, step, _):
        i = e.op("arith.subi", e.op("arith.subi", b, _idx(e, 1)), step) if transpose else step
        d = T.get(e, e.op("arith.addi", k0, i), i)
        _loop(e, lo, hi, lambda e, j, _: Y.set(e, i, j, _mul(e, d, Y.get(e, i, j))))

        def other(e, p, _):
            f = (T.get(e, e.op("arith.addi", k0, p), i) if transpose
                 else T.get(e, e.op("arith.addi", k0, i), p))

            def add(e, j, _):
                Y.set(e, i, j, _add_f(e, Y.get(e, i, j), _mul(e, f, Y.get(e, p, j))))

            _loop(e, lo, hi, add)

        if transpose:
            _loop(e, 0, i, other)
        else:
            _loop(e, e.op("arith.addi", i, _idx(e, 1)), b, other)

    _loop(e, 0, b, triangle)

    # M -= V Y: each row of M takes UNROLL rows of Y per pass
    groups = e.op("arith.divui", b, _idx(e, UNROLL))

    def update(e, r, _):
        def take(e, first, n_y):
            ys = [e.op("arith.addi", first, _idx(e, u)) for u in range(n_y)]
            coeffs = [e.op("arith.negf", _v(e, W, r, e.op("arith.addi", k0, y), t)) for y in ys]
            _fma_rows(e, lo, hi, coeffs, Y, ys, M, r)

        _loop(e, 0, groups, lambda e, g, _: take(e, e.op("arith.muli", g, _idx(e, UNROLL)), UNROLL))
        _loop(e, e.op("arith.muli", groups, _idx(e, UNROLL)), b, lambda e, y, _: take(e, y, 1))

    _loop(e, k0, m, update)


def _blocked_qr(e, m: int, n: int, t, W: _Matrix, tau: _Matrix, w: _Matrix, T: _Matrix,
                Y: _Matrix) -> None:
    """``_householder_qr`` as LAPACK's ``geqrf``: panels of ``BLOCK`` columns factored
    unblocked (their reflectors applied within the panel only), each panel's T formed
    (``_larft``) and kept in ``T``'s rows from the panel's first column, the columns right of
    the panel updated by the block at once (``_block_reflect``)."""
    k = min(m, n)

    def panel(e, p, _):
        k0 = e.op("arith.muli", p, _idx(e, BLOCK))
        end = e.op("arith.minsi", e.op("arith.addi", k0, _idx(e, BLOCK)), _idx(e, k))
        b = e.op("arith.subi", end, k0)

        _loop(e, k0, end, lambda e, c, _: _householder_column(e, c, m, t, W, tau, w, end))
        _larft(e, k0, b, m, t, W, tau, T, w)
        _block_reflect(e, k0, b, m, t, W, T, W, end, n, Y, transpose=True)

    _loop(e, 0, -(-k // BLOCK), panel)


def _blocked_form_q(e, m: int, columns: int, reflectors: int, t, W: _Matrix, T: _Matrix,
                    Q: _Matrix, Y: _Matrix) -> None:
    """``_form_q`` as LAPACK's ``orgqr``: the identity, then each panel's block of
    reflectors (its T as ``_blocked_qr`` left it in ``T``), from the last panel, applied to
    the columns from its first on."""
    _identity(e, m, columns, Q, t)
    panels = -(-reflectors // BLOCK)

    def panel(e, step, _):
        p = e.op("arith.subi", _idx(e, panels - 1), step)
        k0 = e.op("arith.muli", p, _idx(e, BLOCK))
        end = e.op("arith.minsi", e.op("arith.addi", k0, _idx(e, BLOCK)), _idx(e, reflectors))
        _block_reflect(e, k0, e.op("arith.subi", end, k0), m, t, W, T, Q, k0, columns, Y, transpose=False)

    _loop(e, 0, panels, panel)


def qr(op: array.QrOp) -> kernel.GenericOp:
    a, kb, _, outer, t = _setup(op)
    m, n = a.type.shape[-2:]
    qc = op.q_columns
    W, tau, w = _Matrix(outer, t, 1), _Matrix(outer, t, 2), _Matrix(outer, t, 3)
    e = kb.emit
    blocked = min(m, n) >= BLOCKED_FROM and not t.is_complex  # complex: geqr2's loops only
    if blocked:
        T, Y = _Matrix(outer, t, 4), _Matrix(outer, t, 5)
        _blocked_qr(e, m, n, t, W, tau, w, T, Y)
    else:
        _householder_qr(e, m, n, t, W, tau, w)
    R = _Matrix(outer, t, 0, offset=(0, qc))

    def r_row(e, i, _):
        def entry(e, j, _):
            above = e.op("arith.cmpi", i, j, result=i1, predicate="ule")
            R.set(e, i, j, e.select(above, W.get(e, i, j), _scalar(e, 0.0, t)))

        _loop(e, 0, n, entry)

    _loop(e, 0, m, r_row)
    if qc and blocked:
        _blocked_form_q(e, m, qc, min(m, n), t, W, T, _Matrix(outer, t, 0), Y)
    elif qc:
        _form_q(e, m, qc, min(m, n), t, W, tau, _Matrix(outer, t, 0), w)
    batch = a.type.shape[:-2]
    tau_type = a.type.with_shape(batch + (min(m, n),))
    w_type = a.type.with_shape(batch + (max(n, qc),))
    types, copies = [op.result_type, a.type, tau_type, w_type], [-1, 0, -1, -1]
    if blocked:  # each panel's T; the block update's scratch rows
        types += [a.type.with_shape(batch + (min(m, n), BLOCK)),
                  a.type.with_shape(batch + (BLOCK, max(n, qc)))]
        copies += [-1, -1]
    return _finish(kb, op, types, copies)


RULES = {array.CholeskyOp: cholesky, array.SlogdetOp: slogdet, array.QrOp: qr}
