"""``numpy``'s polynomial helpers on coefficient arrays, highest power first (issue 12, item 6):
``polyadd``, ``polysub``, ``polymul``, ``polyder``, ``polyint``, ``polyfit`` (``polyval`` is in
``everyday.py``). The lengths are static; each step is NumPy's (zeros padded in front, one
``convolve``, a product with ``arange``), so the dtypes are NumPy's. ``roots`` is the companion
matrix's ``eigvals`` and ``poly`` the product of ``(x - r)`` over the roots (or a matrix's
eigenvalues), both real or complex as the data chooses, as NumPy's. ``poly1d``: refused as an
argument, as every array subclass.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.numpy.everyday import raise_at_first
from jitcore.numpy.registry import implements, traced
from jitcore.real_or_complex import RealOrComplex
from jitcore.tracer import Tracer, user_location

__all__ = ["poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "roots"]


def _1d(a, like: Tracer) -> Tracer:
    a = a if isinstance(a, Tracer) else prims.constant(like.owner_trace, np.asarray(a))
    return np.atleast_1d(a)


def _padded_pair(a1, a2):
    """Both coefficient arrays at the longer length, zeros (in each one's dtype) in front."""
    like = a1 if isinstance(a1, Tracer) else a2
    a1, a2 = _1d(a1, like), _1d(a2, like)
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = np.concatenate((np.zeros(diff, a1.dtype), a1))
    elif diff < 0:
        a2 = np.concatenate((np.zeros(-diff, a2.dtype), a2))
    return a1, a2


@implements(np.polyadd)
def polyadd(a1, a2):
    """The sum of two polynomials."""
    if not traced(a1, a2):
        return np.polyadd(a1, a2)
    a1, a2 = _padded_pair(a1, a2)
    return a1 + a2


@implements(np.polysub)
def polysub(a1, a2):
    """The difference of two polynomials."""
    if not traced(a1, a2):
        return np.polysub(a1, a2)
    a1, a2 = _padded_pair(a1, a2)
    return a1 - a2


@implements(np.polymul)
def polymul(a1, a2):
    """The product of two polynomials: the full convolution of their coefficients."""
    if not traced(a1, a2):
        return np.polymul(a1, a2)
    like = a1 if isinstance(a1, Tracer) else a2
    return np.convolve(_1d(a1, like), _1d(a2, like))


@implements(np.polydiv)
def polydiv(u, v):
    """Quotient and remainder of ``u / v``, NumPy's long division step by step (each quotient
    coefficient ``r[k] / v[0]`` taken as ``r[k] * (1 / v[0])``, then ``d * v`` subtracted from
    ``r[k:k + len(v)]``). The lengths are static: the quotient has ``max(len(u) - len(v) + 1,
    1)`` coefficients, the remainder ``max(len(v) - 1, 1)`` (its degree's; ``u`` whole when
    ``u`` is the shorter). NumPy then strips every leading remainder coefficient within 1e-8
    of 0, a length chosen by the data: an exact division gives ``[0.]`` there and
    ``len(v) - 1`` zeros here (the same polynomial: ``np.polyval`` agrees)."""
    if not traced(u, v):
        return np.polydiv(u, v)
    like = u if isinstance(u, Tracer) else v
    u, v = _1d(u, like) + 0.0, _1d(v, like) + 0.0
    if u.ndim != 1 or v.ndim != 1:
        raise ValueError(f"numpy.polydiv takes 1-d coefficient arrays (at {user_location()})")
    dtype = np.result_type(u.dtype, v.dtype)
    u, v = prims.convert(u, dtype), prims.convert(v, dtype)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    r = u
    q = []
    for k in range(m - n + 1):
        d = scale * r[k]
        q.append(d)
        parts = [r[:k], r[k:k + n + 1] - d * v, r[k + n + 1:]]
        r = np.concatenate([p for p in parts if p.shape[0]])
    if not q:
        return np.zeros(1, dtype), r
    return np.stack(q), r[m + 1 - max(n, 1):]


@implements(np.polyder)
def polyder(p, m=1):
    """The ``m``-th derivative: each step multiplies by the powers ``n, n-1, ..., 1``."""
    if not traced(p):
        return np.polyder(p, m)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    for _ in range(m):
        n = p.shape[0] - 1
        p = p[:-1] * np.arange(n, 0, -1)
    return p


@implements(np.polyint)
def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative, integration constants ``k`` (static) last at each step."""
    if not traced(p):
        return np.polyint(p, m, k)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = np.atleast_1d(np.zeros(m, float) if k is None else np.asarray(k))
    if len(k) == 1 and m > 1:
        k = k[0] * np.ones(m, float)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for j in range(m):
        divided = p / np.arange(p.shape[0], 0, -1)
        p = np.concatenate((divided, prims.constant(p.owner_trace, np.asarray(k[j:j + 1]))))
    return p


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of static degree ``deg`` (highest power first), as NumPy
    computes it: the Vandermonde matrix's columns scaled to unit norm, ``lstsq`` with ``rcond``
    ``len(x) * eps``, the scale divided back out; ``w`` weights each point. ``full`` and
    ``cov`` (and NumPy's RankWarning, which needs the rank at run time) are not compiled."""
    if not traced(x, y, w):
        return np.polyfit(x, y, deg, rcond, full, w, cov)
    if full or cov:
        raise UnsupportedError(f"numpy.polyfit with full= or cov= is not supported under jit (at "
                               f"{user_location()}); call numpy.linalg.lstsq on np.vander(x, deg + 1)")
    order = operator.index(deg) + 1
    like = next(v for v in (x, y, w) if isinstance(v, Tracer))
    x, y = (_as_traced(v, like) + 0.0 for v in (x, y))  # as NumPy: floats, ints as float64
    if order < 1:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    lhs = np.vander(x, order)
    rhs = y
    if w is not None:
        w = _as_traced(w, like) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * w if rhs.ndim == 1 else rhs * w[:, None]
    scale = np.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c = np.linalg.lstsq(lhs, rhs, rcond)[0]
    return (c.T / scale).T


def _as_traced(a, like: Tracer) -> Tracer:
    return a if isinstance(a, Tracer) else prims.constant(like.owner_trace, np.asarray(a))


@implements(np.roots)
def roots(p):
    """The roots of ``p`` (highest power first): the eigenvalues of its companion matrix, as
    NumPy computes them, real where all are (``eigvals``'s choice on the data, as NumPy's).
    NumPy first strips leading and trailing zero coefficients, a length
    chosen on the data; here the length is static, ``len(p) - 1`` roots: a zero leading
    coefficient raises ValueError from the call (``kernel.ROOTS_LEADING_ZERO``: strip it before
    the call), a trailing zero gives a root at 0 (to rounding). Complex coefficients: the
    complex companion matrix's (``eigvals``)."""
    if not traced(p):
        return np.roots(p)
    if p.ndim != 1:
        raise ValueError(f"Input must be a rank-1 array. (at {user_location()})")
    n = p.shape[0] - 1
    if p.dtype.kind in "biu" or p.dtype == np.float16:
        p = prims.convert(p, np.dtype(np.float64))  # NumPy: -p[1:] / p[0] is float64 for these
    if n < 1:
        return prims.convert(p[:0], np.result_type(p.dtype, np.complex64))
    # NumPy's fewer roots, not inf/NaN ones (nor eigvals' "must not contain infs or NaNs")
    raise_at_first(p[0] == 0, np.zeros((), np.int64), kernel.ROOTS_LEADING_ZERO)
    first = -p[1:] / p[0]
    below = np.eye(n - 1, n, dtype=p.dtype)  # ones under the diagonal, as np.diag(ones, -1)
    companion = np.concatenate((first[None, :], below)) if n > 1 else first[None, :]
    out = np.linalg.eigvals(companion)
    if isinstance(out, RealOrComplex):
        out.view = False  # (NumPy's roots are a new array, not eigvals' view)
    return out


@implements(np.poly)
def poly(seq_of_zeros):
    """The coefficients (highest power first, leading 1) of the monic polynomial with the given
    roots, as NumPy: a non-empty square matrix's eigenvalues first (its characteristic
    polynomial), one ``convolve`` with ``[1, -r]`` per root, and complex coefficients given
    back real where the roots pair up as conjugates (NumPy's test: sorted, they equal their
    sorted conjugates), a dtype the data chooses (``real_or_complex``)."""
    if not traced(seq_of_zeros):
        return np.poly(seq_of_zeros)
    a = np.atleast_1d(seq_of_zeros)
    if a.ndim == 2 and a.shape[0] == a.shape[1] and a.shape[0] != 0:
        return np.poly(np.linalg.eigvals(a))  # (real or complex as the data chooses: each side)
    if a.ndim != 1:
        raise ValueError(f"input must be 1d or non-empty square 2d array. (at {user_location()})")
    a = prims.convert(a, np.dtype(np.mintypecode(a.dtype.char)))  # (NumPy's: ints as float64)
    if a.shape[0] == 0:
        return 1.0  # NumPy's, a Python float
    c = prims.constant(a.owner_trace, np.ones(1, a.dtype))
    for k in range(a.shape[0]):
        c = np.convolve(c, np.stack((np.ones((), a.dtype), -a[k])))
    if a.dtype.kind != "c":
        return c
    roots = prims.convert(a, np.dtype(complex))
    paired = np.all(np.sort(roots) == np.sort(np.conjugate(roots)))
    return RealOrComplex(np.real(c), c, paired)
