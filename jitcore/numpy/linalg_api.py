"""``jitcore.numpy.linalg``: the names of ``numpy.linalg`` that jitcore supports, with
``numpy.linalg``'s meaning.

Some share a name with a top-level function but not its axes (``numpy.linalg.diagonal`` and
``trace`` take the last two axes, ``numpy.diagonal`` and ``numpy.trace`` the first two;
``numpy.linalg.outer`` takes 1-d vectors only): those are defined here on top of the top-level
ones in ``jitcore/numpy/linalg.py``. The rest are the same functions. Names of ``numpy.linalg``
not here are listed in ``jitcore/numpy/not_supported.py``.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore.numpy import decompositions as _decompositions
from jitcore.numpy import linalg as _family
from jitcore.numpy import manipulation as _manipulation
from jitcore.numpy.registry import HANDLED_FUNCTIONS, implements, traced

__all__ = ["LinAlgError", "cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm"]

LinAlgError = np.linalg.LinAlgError
det, inv, solve, norm = _family.det, _family.inv, _family.solve, _family.norm
matmul, tensordot, vecdot = _family.matmul, _family.tensordot, _family.vecdot
_d = _decompositions
cholesky, slogdet, qr, eigh, eigvalsh = _d.cholesky, _d.slogdet, _d.qr, _d.eigh, _d.eigvalsh
eig, eigvals = _d.eig, _d.eigvals
svd, svdvals, pinv, lstsq, matrix_rank, cond = _d.svd, _d.svdvals, _d.pinv, _d.lstsq, _d.matrix_rank, _d.cond
multi_dot = _d.multi_dot


def _ndim(x) -> int:
    return np.ndim(x) if not traced(x) else x.ndim


def diagonal(x, /, *, offset=0):
    """``numpy.linalg.diagonal``: the diagonals of the matrices in the last two axes."""
    return _family.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """``numpy.linalg.trace``: the sums of those diagonals."""
    return _family.trace(x, offset, -2, -1, dtype)


def outer(x1, x2, /):
    """``numpy.linalg.outer``: of two 1-d vectors (NumPy raises ValueError otherwise)."""
    if _ndim(x1) != 1 or _ndim(x2) != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={_ndim(x1)} "
                         f"and x2.ndim={_ndim(x2)}.")
    return _family.outer(x1, x2)


def matrix_transpose(x, /):
    """``numpy.linalg.matrix_transpose``: the last two axes swapped."""
    if _ndim(x) < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {_ndim(x)}")
    return _manipulation.swapaxes(x, -1, -2)


def cross(x1, x2, /, *, axis=-1):
    """``numpy.linalg.cross``: of 3-vectors along ``axis``."""
    for x in (x1, x2):
        if np.shape(x)[axis] != 3:
            raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, "
                             f"but they are {np.shape(x1)[axis]} and {np.shape(x2)[axis]} dimensional "
                             "instead.")
    return _manipulation.cross(x1, x2, axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``numpy.linalg.vector_norm``: over all elements when ``axis`` is None (kept as ones)."""
    if axis is None:
        out = norm(_manipulation.reshape(x, (-1,)), ord=ord)
        return _manipulation.reshape(out, (1,) * _ndim(x)) if keepdims else out
    return norm(x, ord=ord, axis=axis, keepdims=keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``numpy.linalg.matrix_norm``: over the last two axes."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def tensorsolve(a, b, axes=None):
    """``numpy.linalg.tensorsolve``: ``a``'s trailing axes (after moving ``axes`` there) are
    the unknown's shape; one square ``solve`` of the flattened system, in NumPy's steps."""
    if not traced(a, b):
        return np.linalg.tensorsolve(a, b, axes)
    a, b = _manipulation._lift(a, [a, b]), _manipulation._lift(b, [a, b])
    an = a.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = _manipulation.transpose(a, order)
    unknown = a.shape[-(an - b.ndim):]
    size = int(np.prod(unknown))
    if int(np.prod(a.shape)) != size**2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = solve(_manipulation.reshape(a, (size, size)), _manipulation.reshape(b, (-1,)))
    return _manipulation.reshape(x, unknown)


def tensorinv(a, ind=2):
    """``numpy.linalg.tensorinv``: the inverse of ``a`` as a matrix of its first ``ind`` axes
    by the rest, in the swapped shape."""
    if not traced(a):
        return np.linalg.tensorinv(a, ind)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    size = int(np.prod(a.shape[ind:]))
    flat = _manipulation.reshape(a, (size, -1))
    return _manipulation.reshape(inv(flat), a.shape[ind:] + a.shape[:ind])


def matrix_power(a, n):
    """``numpy.linalg.matrix_power`` for a static integer ``n``, in NumPy's order of products
    (binary decomposition of ``n``; ``inv(a)`` first for a negative one)."""
    n = operator.index(n)
    if not traced(a):
        return np.linalg.matrix_power(a, n)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional"
                          if a.ndim < 2 else "Last 2 dimensions of the array must be square")
    if n == 0:  # the identity, in a's dtype and shape
        return np.array(np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape))
    if n < 0:
        a, n = inv(a), -n
    if n == 1:
        return _manipulation.copy(a)
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    result = z = None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# ``np.linalg.vector_norm(x)`` and the rest on a traced ``x`` reach these through NumPy's
# ``__array_function__`` (det, inv, solve and norm are registered by the family module).
implements(np.matrix_transpose)(matrix_transpose)  # numpy's own function of the same meaning
for _name in __all__:
    _np_fn = getattr(np.linalg, _name)
    if _np_fn is not LinAlgError and _np_fn not in HANDLED_FUNCTIONS:
        implements(_np_fn)(globals()[_name])
