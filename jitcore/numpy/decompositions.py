"""``numpy.linalg``'s decompositions under ``jit`` and what is built on them: cholesky,
slogdet, qr, eigh, eigvalsh, eig, eigvals, svd, svdvals, lstsq, pinv, matrix_rank, cond, and multi_dot.

Each decomposition is one ``array`` op (``ir/dialects/array/decompose.py``). Where the process
has NumPy's OpenBLAS, its kernel calls the LAPACK routine NumPy calls, with NumPy's arguments
(``codegen/cpu/lapack.py``: svd, eigh, eigvalsh, cholesky, slogdet, det, solve, inv, qr, eig,
eigvals), so the results are NumPy's bit for bit; elsewhere it is compiled to scalar
loops per matrix (``passes/kernelize/decompose.py``, ``spectral.py``, ``nonsymmetric.py`` and
``bidiagonal.py``: Householder QR, Cholesky–Banachiewicz, tridiagonalisation and implicit QL
for eigh, Hessenberg reduction and Francis QR for eig, Golub–Kahan bidiagonalisation and
implicit-shift QR for svd),
over stacks ``(..., m, n)`` as NumPy's gufuncs; integers and bools in float64, float32 stays
float32, float16 refused. Complex matrices: cholesky, slogdet, qr, eigh and svd in complex
arithmetic in their kernels (eigh's and svd's reduced to a real tridiagonal or bidiagonal
form, ``hermitian.py``, ``complex_svd.py``); pinv and lstsq through the real form
(``linalg.real_form``); eig and eigvals refused.
Several results come back as NumPy's named tuples (``QRResult``, ``EighResult``, ...).

Where a result is not unique the conventions are: R's diagonal signs as LAPACK's ``geqrf``
(a complex R's diagonal real, as ``zgeqrf``'s; so Q and R match NumPy's to rounding);
eigenvectors and singular vectors are each fixed only up to sign (and within repeated values
up to rotation; a complex one up to a unit phase), as NumPy's are.
"""

from __future__ import annotations

import numpy as np

from jitcore import failures, masked
from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.ir import dialects
from jitcore.numpy import linalg as _family
from jitcore.numpy.registry import PYTHON_BOOL_RESULTS, implements, traced
from jitcore.real_or_complex import RealOrComplex
from jitcore.tracer import Tracer, fresh, user_location

_results = np.linalg._linalg  # NumPy's named tuples of several results
array = dialects.array


def _mT(x: Tracer) -> Tracer:
    """The matrices of the stack ``x`` transposed (a view)."""
    return prims.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _operand(a, name: str, square: bool, complex_ok: bool = False) -> Tracer:
    """``a`` as a float (or, where ``complex_ok``, complex) stack of (square) matrices, with
    NumPy's errors and dtype rule."""
    if a.ndim < 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                                    f"two-dimensional (at {user_location()})")
    if square and a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError(f"Last 2 dimensions of the array must be square (at {user_location()})")
    return _family._linalg_float(a, name, complex_ok)


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    """``numpy.linalg.cholesky``: L from the lower triangle (or, with ``upper``, U = L^H from
    the upper one, as NumPy's); a matrix that is not positive definite raises ``LinAlgError``
    after the call."""
    if not traced(a):
        return np.linalg.cholesky(a, upper=upper)
    a = _operand(a, "cholesky", True, complex_ok=True)
    n = a.shape[-1]
    side = {"upper": True} if upper else {}  # the operand is then a^H: see CholeskyOp
    if n and failures.catches(a.owner_trace, np.linalg.LinAlgError):  # a failure of the try's
        packed = prims.decomposition(_uplo(a, "U" if upper else "L"), array.CholeskyOp, soft=True, **side)
        low = failures.unpacked(packed, n, np.linalg.LinAlgError("Matrix is not positive definite"))
        return _uplo(low, "U" if upper else "L")
    low = prims.decomposition(_uplo(a, "U" if upper else "L"), array.CholeskyOp, **side)
    return _uplo(low, "U" if upper else "L")  # L^H: the factor from the upper triangle


@implements(np.linalg.slogdet)
def slogdet(a):
    """``numpy.linalg.slogdet``: (sign, log|det|) per matrix from the LU factorisation, as
    ``det`` (sign 0 and -inf for a singular matrix)."""
    if not traced(a):
        return np.linalg.slogdet(a)
    packed = prims.decomposition(_operand(a, "slogdet", True, complex_ok=True), array.SlogdetOp)
    logdet = packed[..., 1].real if packed.dtype.kind == "c" else packed[..., 1]
    sign, logdet = prims.as_scalar(packed[..., 0]), prims.as_scalar(logdet)
    return _results.SlogdetResult(sign, logdet)


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    """``numpy.linalg.qr`` in modes 'reduced', 'complete' and 'r' (Householder, as LAPACK);
    'raw' (LAPACK's own storage) is not supported under jit."""
    if not traced(a):
        return np.linalg.qr(a, mode)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}' (at {user_location()})")
    if mode == "raw":
        raise UnsupportedError(f"numpy.linalg.qr with mode='raw' is not supported under jit; use "
                               f"'reduced' or 'complete' (at {user_location()})")
    a = _operand(a, "qr", False, complex_ok=True)
    m, n = a.shape[-2:]
    k = min(m, n)
    q_cols = {"reduced": k, "complete": m, "r": 0}[mode]
    packed = prims.decomposition(a, array.QrOp, q_columns=q_cols)
    r = packed[..., :m if mode == "complete" else k, q_cols:]
    if mode == "r":
        return r
    return _results.QRResult(packed[..., :, :q_cols], r)


def _uplo(a, UPLO: str):
    """NumPy reads the lower triangle (``UPLO='L'``); 'U' is the lower one of the (conjugate)
    transpose."""
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError(f"UPLO argument must be 'L' or 'U' (at {user_location()})")
    if UPLO in ("L", "l"):
        return a
    return np.conjugate(_mT(a)) if a.dtype.kind == "c" else _mT(a)


def _side(UPLO: str) -> dict:
    """EighOp's ``upper`` for ``UPLO`` 'U' (its operand is then a^H: ``_uplo``)."""
    return {"upper": True} if UPLO in ("U", "u") else {}


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    """``numpy.linalg.eigh``: ascending eigenvalues and unit eigenvectors (columns) of each
    symmetric matrix: Householder tridiagonalisation, then the implicit QL method; a complex
    Hermitian one's tridiagonal form is real (``zhetd2``), its eigenvalues real as NumPy's."""
    if not traced(a):
        return np.linalg.eigh(a, UPLO)
    a = _uplo(_operand(a, "eigh", True, complex_ok=True), UPLO)
    n = a.shape[-1]
    packed = prims.decomposition(a, array.EighOp, vectors=1, **_side(UPLO))
    values = packed[..., n, :]
    return _results.EighResult(np.real(values) if a.dtype.kind == "c" else values, packed[..., :n, :])


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    """``numpy.linalg.eigvalsh``: the eigenvalues of ``eigh``, without its vectors."""
    if not traced(a):
        return np.linalg.eigvalsh(a, UPLO)
    a = _uplo(_operand(a, "eigvalsh", True, complex_ok=True), UPLO)
    values = prims.decomposition(a, array.EighOp, vectors=0, **_side(UPLO))
    return np.real(values) if a.dtype.kind == "c" else values


def _joined(re: Tracer, im: Tracer) -> Tracer:
    """The complex array of parts ``re`` and ``im``, exactly (-0.0, inf and NaN parts kept, as
    NumPy's ``mk_complex_array`` builds eig's results from geev's)."""
    return prims.complex_from_parts(re, im)


@implements(np.linalg.eig)
def eig(a):
    """``numpy.linalg.eig``; of real matrices: Householder reduction to Hessenberg form, Francis
    double-shift QR to the real Schur form, eigenvectors by back-substitution, each of unit
    norm with its largest component real (as LAPACK's ``geev``, without its balancing).
    The results are computed complex (complex64 for float32 input, complex128 otherwise) and,
    as NumPy's, given back as their real parts where every eigenvalue is real: a dtype the data
    chooses (``real_or_complex.RealOrComplex``: what the function does with them is done to
    both, and keeps the one the data takes, as NumPy's dtype would). Order: as the
    Schur form's diagonal (a complex pair a + bi, a - bi with b > 0), usually but not always
    NumPy's. NaN or inf entries raise ``LinAlgError`` after the call, as NumPy's. Complex
    matrices: Hessenberg form and single-shift QR to the complex Schur form in complex
    arithmetic (``zgeev``'s way, ``complex_eig.py``), the same normalisation; complex results,
    as NumPy's."""
    if not traced(a):
        return np.linalg.eig(a)
    a = _operand(a, "eig", True, complex_ok=True)
    n = a.shape[-1]
    packed = prims.decomposition(a, array.EigOp, vectors=1)
    if a.dtype.kind == "c":  # plane 0 alone (complex Schur form, complex_eig.py)
        return _results.EigResult(packed[..., 0, n, :], packed[..., 0, :n, :])
    values = _joined(packed[..., 0, n, :], packed[..., 1, n, :])
    vectors = _joined(packed[..., 0, :n, :], packed[..., 1, :n, :])
    real_taken = _all_real(values)
    return _results.EigResult(RealOrComplex.of_eig(values, real_taken),
                              RealOrComplex.of_eig(vectors, real_taken))


def _all_real(values):
    """NumPy's test for giving ``eig``'s real part: every imaginary part (of the whole stack) 0."""
    return np.all(np.imag(values) == 0)


@implements(np.linalg.eigvals)
def eigvals(a):
    """``numpy.linalg.eigvals``: the eigenvalues of ``eig``, real where all are (see ``eig``),
    without its vectors (nor the updates of the Schur form outside the active window)."""
    if not traced(a):
        return np.linalg.eigvals(a)
    a = _operand(a, "eigvals", True, complex_ok=True)
    packed = prims.decomposition(a, array.EigOp, vectors=0)
    if a.dtype.kind == "c":
        return packed[..., 0, :]
    values = _joined(packed[..., 0, :], packed[..., 1, :])
    return RealOrComplex.of_eig(values, _all_real(values))


def _singular_values(a) -> Tracer:
    return _family.singular_values(a)


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``numpy.linalg.svd`` by Householder bidiagonalisation and implicit-shift QR (LINPACK's
    ``dsvdc``): descending singular values; U and Vh as ``SVDResult`` with ``compute_uv``.
    ``hermitian`` is taken as a promise NumPy uses for speed only; the results are those of
    the general algorithm. NaN or inf input raises ``LinAlgError('SVD did not converge')``
    after the call, as NumPy's (so do pinv, lstsq, matrix_rank, cond and the 2-norms)."""
    if not traced(a):
        return np.linalg.svd(a, full_matrices, compute_uv, hermitian)
    a = _operand(a, "svd", False, complex_ok=True)
    if not compute_uv:
        return _singular_values(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    packed = prims.decomposition(a, array.SvdOp, vectors=1, full=int(bool(full_matrices)))
    s = packed[..., m + vh_rows, :k]
    return _results.SVDResult(packed[..., :m, :u_cols], np.real(s) if a.dtype.kind == "c" else s,
                              packed[..., m:m + vh_rows, :n])


def svdvals(x, /):
    """``numpy.linalg.svdvals``: the singular values, descending."""
    if not traced(x):
        return np.linalg.svdvals(x)
    return _singular_values(_operand(x, "svdvals", False, complex_ok=True))


def _inverse_values(s, cutoff):
    """1/s where s > cutoff, else 0 (NumPy's pinv and lstsq drop the small singular values)."""
    keep = s > cutoff
    return np.where(keep, 1 / np.where(keep, s, 1), 0)


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """``numpy.linalg.pinv``: V diag(1/s) U^T over the singular values above ``rcond`` times
    the largest (``rcond`` 1e-15 unless ``rtol`` is given, as NumPy's); a complex ``a``'s
    from its real form's (``linalg.real_form``)."""
    if not traced(a):
        return np.linalg.pinv(a, rcond, hermitian, rtol=rtol)
    if rcond is not None and rtol is not np._NoValue:
        raise ValueError(f"`rtol` and `rcond` can't be both set. (at {user_location()})")
    if a.ndim >= 2 and a.shape[-2] * a.shape[-1] == 0:  # NumPy's, before its dtype rule: of a's dtype
        m, n = a.shape[-2:]
        return prims.constant(a.owner_trace, np.zeros(a.shape[:-2] + (n, m), a.dtype))
    a = _operand(a, "pinv", False, complex_ok=True)
    if rcond is None:
        rcond = (1e-15 if rtol is np._NoValue else
                 max(a.shape[-2:]) * np.finfo(a.dtype).eps if rtol is None else rtol)
    m, n = a.shape[-2:]
    if a.dtype.kind == "c":  # the pseudo-inverse of the real form is the real form of a's
        return _family.from_real_form(pinv(_family.real_form(a), rcond)[..., :, :m], n)
    u, s, vh = svd(a, full_matrices=False)
    cutoff = np.asarray(rcond)[..., None] * np.max(s, axis=-1, keepdims=True)
    scaled = _inverse_values(s, cutoff)[..., :, None] * _mT(u)
    return _family.matmul(_mT(vh), scaled)


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """``numpy.linalg.matrix_rank``: how many singular values exceed ``tol`` (default: the
    largest times ``max(m, n) * eps``, or ``rtol``); a vector's rank is 0 or 1."""
    if not traced(A):
        return np.linalg.matrix_rank(A, tol, hermitian, rtol=rtol)
    if rtol is not None and tol is not None:
        raise ValueError(f"`tol` and `rtol` can't be both set. (at {user_location()})")
    if A.ndim < 2:  # NumPy's int(not all(A == 0)): a Python int
        return fresh(prims.convert(np.any(A != 0), np.dtype(np.int64)), scalar=True, weak=True)
    s = svdvals(A)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * np.finfo(s.dtype).eps
        else:
            rtol = np.asarray(rtol)[..., None]
        tol = np.max(s, axis=-1, keepdims=True, initial=0) * rtol  # (NumPy's: 0 of an empty matrix)
    else:
        tol = np.asarray(tol)[..., None]
    return prims.as_scalar(np.count_nonzero(s > tol, axis=-1))


PYTHON_BOOL_RESULTS.add(matrix_rank)  # (its weak result kept: a vector's rank, a Python int)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    """``numpy.linalg.lstsq``: the minimum-norm least-squares solution, the singular values at
    or below ``rcond`` times the largest dropped (``rcond`` None: ``eps * max(m, n)``), and
    NumPy's (x, residuals, rank, s), float32 and complex64 solved in double as NumPy's (whose
    ``rcond`` is then double's eps too). The residuals (squared norms of ``b - a x`` per column)
    have shape (k,) when m > n and ``a`` has full column rank, (0,) otherwise: a length the rank
    sets at run time, so a masked selection (``masked.py``) of the sums. Complex
    ``a`` or ``b``: through the real form (``_complex_lstsq``). Through the
    SVD, except a tall or square ``a`` of ``LSTSQ_QR_FROM`` columns or more, chosen from the
    static shape: through QR (``_least_squares_qr``), which compiles longer and runs faster."""
    if not traced(a, b):
        return np.linalg.lstsq(a, b, rcond)
    trace = prims.find_trace(a, b)
    a, b = (x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)) for x in (a, b))
    if a.ndim != 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional "
                                    f"(at {user_location()})")
    if b.ndim not in (1, 2):
        raise np.linalg.LinAlgError(f"{b.ndim}-dimensional array given. Array must be one or "
                                    f"two-dimensional (at {user_location()})")
    _family.no_float16(a, b)
    dtype = np.result_type(a.dtype, b.dtype)
    a = _family._linalg_float(prims.convert(a, dtype), "lstsq", complex_ok=True)
    b = _family._linalg_float(prims.convert(b, dtype), "lstsq", complex_ok=True)
    m, n = a.shape
    if b.shape[0] != m:
        raise np.linalg.LinAlgError(f"Incompatible dimensions (at {user_location()})")
    if a.dtype in (np.float32, np.complex64):  # NumPy solves in double (_commonType), then casts
        wide = np.dtype(np.complex128 if a.dtype.kind == "c" else np.float64)
        x, resids, rank, s = lstsq(prims.convert(a, wide), prims.convert(b, wide), rcond)
        real = np.finfo(a.dtype).dtype
        return x.astype(a.dtype), resids.astype(real), rank, s.astype(real)
    if rcond is None:
        rcond = np.finfo(a.dtype).eps * max(m, n)
    if a.dtype.kind == "c":
        return _complex_lstsq(a, b, rcond)
    vector = b.ndim == 1
    rhs = prims.reshape(b, (m, 1)) if vector else b
    k = min(m, n)
    if m >= n >= LSTSQ_QR_FROM:
        x, rank, s = _least_squares_qr(a, rhs, rcond)
    elif k:
        u, s, vh = svd(a, full_matrices=False)
        cutoff = rcond * np.max(s)
        inverse = _inverse_values(s, cutoff)
        rank = np.count_nonzero(s > cutoff)
        projected = inverse[:, None] * _family.matmul(_mT(u), rhs)
        x = _family.matmul(_mT(vh), projected)
    else:
        s = prims.constant(trace, np.zeros((0,), a.dtype))
        rank = prims.constant(trace, np.zeros((), np.int64))
        x = prims.constant(trace, np.zeros((n, rhs.shape[1]), a.dtype))
    if m > n:
        residual = rhs - _family.matmul(a, x)
        resids = np.sum(residual * residual, axis=0)
        # NumPy's rule: no residuals unless a has full column rank, a length the data sets, so a
        # selection (as x[mask]) that is returned, measured or reduced as NumPy's array would be
        full = np.broadcast_to(np.equal(rank, n), resids.shape)
        resids = masked.select(resids, full).describe("np.linalg.lstsq(...)'s residuals", _RESIDUALS)
    else:
        resids = prims.constant(trace, np.zeros((0,), a.dtype))
    if vector:
        x = prims.reshape(x, (n,))
    return x, resids, prims.as_scalar(prims.convert(rank, np.dtype(np.int32))), s


def _lstsq_of_selected_rows(a, b, rcond=None):
    """``np.linalg.lstsq(A, y)`` of the rows a mask keeps (``A = np.vstack([np.ones_like(x),
    x]).T`` with ``x = ages[mx > 0]``): the rows left out zeroed, which changes neither the
    normal equations nor the singular values; ``rcond``'s default and the residuals' rule take
    the kept count as NumPy's m."""
    rows = next(x for x in (a, b) if isinstance(x, masked.MaskedSelection))
    for x in (a, b):
        if not (isinstance(x, masked.MaskedSelection) and x.position == 0 and x.mask.ndim == 1
                and x.ndim in (1, 2) and masked.same_mask(x.mask, rows.mask)):
            raise rows._refusal("np.linalg.lstsq of it with an operand that is not a selection of "
                                "rows by the same mask")
    if a.ndim != 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional "
                                    f"(at {user_location()})")
    zeroed = [np.where(x._where(), x.values, prims.constant(x.values.owner_trace, np.zeros((), x.dtype)))
              for x in (a, b)]
    count = rows.count()
    n = a.values.shape[1]
    if rcond is None:  # (NumPy solves in double, whatever the inputs)
        rcond = np.finfo(np.float64).eps * np.maximum(count, n)
    x, resids, rank, s = lstsq(*zeroed, rcond)
    if isinstance(resids, masked.MaskedSelection):  # (NumPy's m is the count)
        resids = masked.MaskedSelection(resids.values, resids.mask & (count > n)).describe(*resids.described)
    # min(count, n) singular values: the zeroed rows' are zeros, after them
    kept = prims.constant(s.owner_trace, np.arange(s.shape[0])) < count
    s = masked.MaskedSelection(s, kept).describe("np.linalg.lstsq(...)'s singular values", _SINGULAR)
    return x, resids, rank, s


_SINGULAR = ("Of the rows a mask keeps there are min(count, n): reduce them at once (s.max(), "
             "s.min(), len(s)), or return them")


masked.SELECTION_STATISTICS["lstsq"] = _lstsq_of_selected_rows

_RESIDUALS = ("NumPy gives them only when a has full column rank (else an empty array). Reduce "
              "them at once (res.sum(), len(res) or res.size, np.sqrt(res)), return them, or "
              "compute ((b - a @ x) ** 2).sum(axis=0) for the sums whatever the rank")


def _complex_lstsq(a, b, rcond):
    """lstsq of a complex ``a`` through its real form: ``|real_form(a) [Re x; Im x] - [Re b;
    Im b]|`` is ``|a x - b|`` and the map keeps norms, so the real problem's minimum-norm
    solution is ``x``'s parts; its residuals are the complex ones, its rank twice a's and its
    singular values a's, each twice."""
    m, n = a.shape
    rhs = prims.reshape(b, (m, 1)) if b.ndim == 1 else b
    x, resids, rank, s = lstsq(_family.real_form(a), prims.concatenate([np.real(rhs), np.imag(rhs)], axis=0),
                               rcond)
    x = _family.from_real_form(x, n)
    return (prims.reshape(x, (n,)) if b.ndim == 1 else x), resids, rank // 2, s[::2]


# The least n of a tall or square ``a`` (m >= n) that lstsq solves through QR (below: through
# the SVD, whose one kernel compiles in about half the time; measured: docs/performance.md)
LSTSQ_QR_FROM = 256


def _least_squares_qr(a, rhs, rcond):
    """(x, rank, s) for a tall or square ``a`` (m x n) and ``rhs`` (m x r), as LAPACK's
    ``gelsd`` minus its cost: R of the QR of ``[a | rhs]`` holds a's R and ``c = Q^T rhs``
    (its first n rows), so Q is never formed; the singular values (returned, and the rank)
    are R's, those of ``a``. At full rank x solves ``R x = c`` (``solve`` on R: its pivots
    stay on the diagonal, the eliminations are exact); only a rank-deficient ``a`` pays for
    R's singular vectors (``x = V diag(1/s) U^T c`` over the kept values; a run-time branch)."""
    from jitcore.control_flow import cond  # here: jitcore.numpy loads before control flow

    n = a.shape[1]
    packed = qr(prims.concatenate([a, rhs], axis=1), mode="r")
    r, c = packed[:n, :n], packed[:n, n:]
    s = _singular_values(r)
    cutoff = rcond * np.max(s)
    rank = np.count_nonzero(s > cutoff)

    def full_rank(r, c, s, cutoff):
        return prims.solve(r, c)

    def deficient(r, c, s, cutoff):
        u, _, vh = svd(r, full_matrices=False)  # R = U diag(s) Vh, the same s as above
        inverse = _inverse_values(s, cutoff)[:, None]
        return _family.matmul(_mT(vh), inverse * _family.matmul(_mT(u), c))

    return cond(rank == n, full_rank, deficient, r, c, s, cutoff), rank, s


_NORMS = (None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2)


@implements(np.linalg.cond)
def cond(x, p=None):
    """``numpy.linalg.cond``: the ratio of the extreme singular values for ``p`` None, 2, -2;
    else ``norm(x, p) * norm(inv(x), p)`` (a singular matrix raises ``LinAlgError`` there,
    where NumPy gives inf)."""
    if not traced(x):
        return np.linalg.cond(x, p)
    if x.ndim >= 2 and x.shape[-1] * x.shape[-2] == 0:  # (NumPy's test, before any other)
        raise np.linalg.LinAlgError(f"cond is not defined on empty arrays (at {user_location()})")
    x = _operand(x, "cond", p not in (None, 2, -2), complex_ok=True)
    if p not in _NORMS:
        raise ValueError(f"Invalid norm order for matrices. (at {user_location()})")
    if p in (None, 2, -2):
        s = svdvals(x)
        out = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        # 0/0 of a zero matrix is inf, as NumPy makes it (NaN in x raises in the SVD)
        return prims.as_scalar(np.where(np.isnan(out), np.array(np.inf, out.dtype), out))
    inverse = _family.inv(x)
    return prims.as_scalar(_family.norm(x, p, (-2, -1)) * _family.norm(inverse, p, (-2, -1)))


@implements(np.linalg.multi_dot)
def multi_dot(arrays, *, out=None):
    """``numpy.linalg.multi_dot``: the chain multiplied in the order of least scalar
    multiplications (NumPy's rule, ties to the first split), a 1-d first (last) array a row
    (column) vector whose dim leaves the result."""
    arrays = list(arrays)
    if not traced(*arrays):
        return np.linalg.multi_dot(arrays, out=out)
    if out is not None:
        raise UnsupportedError(f"numpy.linalg.multi_dot with out= is not supported under jit; use "
                               f"the result (at {user_location()})")
    if len(arrays) < 2:
        raise ValueError(f"Expecting at least two arrays. (at {user_location()})")
    if len(arrays) == 2:
        return _family.dot(arrays[0], arrays[1])
    trace = prims.find_trace(*arrays)
    arrays = [x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)) for x in arrays]
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = prims.reshape(arrays[0], (1, arrays[0].shape[0]))
    if last == 1:
        arrays[-1] = prims.reshape(arrays[-1], (arrays[-1].shape[0], 1))
    for x in arrays:
        if x.ndim != 2:
            raise np.linalg.LinAlgError(f"{x.ndim}-dimensional array given. Array must be "
                                        f"two-dimensional (at {user_location()})")
    split = _chain_order([x.shape[0] for x in arrays] + [arrays[-1].shape[1]])

    def product(i: int, j: int):
        if i == j:
            return arrays[i]
        k = split[i, j]
        return _family.dot(product(i, k), product(k + 1, j))

    result = product(0, len(arrays) - 1)
    if first == 1 and last == 1:
        return prims.as_scalar(result[0, 0])
    if first == 1 or last == 1:
        return prims.reshape(result, (-1,))
    return result


def _chain_order(dims: list[int]) -> dict:
    """Matrix-chain order by dynamic programming over the chain's dims: ``split[i, j]`` is
    where the product of matrices i..j splits, the cheapest (the first of equals)."""
    n = len(dims) - 1
    cost = {(i, i): 0 for i in range(n)}
    split = {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for k in range(i, j):
                c = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best is None or c < best:
                    best, split[i, j] = c, k
            cost[i, j] = best
    return split
