"""Matrix decompositions in the ``array`` dialect: ``cholesky``, ``slogdet``, ``qr``, ``eigh``,
``eig`` and ``svd``, each of a stack of float matrices ``(..., m, n)``, one kernel per op.

An op has one result, so those of NumPy's functions that return several arrays (Q and R, the
eigenvalues and vectors, U, S and Vh) are packed side by side in one tensor per matrix, and the
caller (``jitcore/numpy/decompositions.py``) slices them apart; the layouts are in each op's
docstring. The algorithms are in ``passes/kernelize/decompose.py``, ``spectral.py`` and
``nonsymmetric.py``; where the process has NumPy's LAPACK, the CPU code generator fills the
same layouts from its routines instead (``codegen/cpu/lapack.py``).
"""

from __future__ import annotations

from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import ArrayOp
from jitcore.ir.opdef import attr, of
from jitcore.ir.types import TensorType


class _Decomposition(ArrayOp):
    """One float operand ``(..., m, n)``; the result's shape follows from it and the op's
    attributes (``packed_shape``)."""

    __slots__ = ()
    traits = frozenset({PURE})
    arity = (1, 1)
    square = False
    takes_complex = False  # the ops whose kernels also factor complex matrices

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        """The result's shape per matrix, for an operand's (m, n) and the op's attributes."""
        raise NotImplementedError

    def check(self) -> None:
        src = self.operands[0].type
        inexact = src.element.is_float or (self.takes_complex and src.element.is_complex)
        if src.rank < 2 or not inexact or (self.square and src.shape[-1] != src.shape[-2]):
            kinds = "float or complex" if self.takes_complex else "float"
            self.fail(f"needs a stack of {'square ' if self.square else ''}{kinds} matrices (..., m, n)")
        packed = self.packed_shape(*src.shape[-2:], self.attributes)
        expected = TensorType(src.shape[:-2] + packed, src.element)
        if self.result_type != expected:
            self.fail(f"must return {expected}")


class CholeskyOp(_Decomposition):
    """The lower Cholesky factor ``L`` of each matrix (read from its lower triangle, as
    ``numpy.linalg.cholesky``); a matrix that is not positive definite makes the call raise
    ``LinAlgError``. With ``soft`` (inside a ``try`` whose ``except`` catches it:
    jitcore/failures.py) it does not: the result has one more row, ``[..., n, 0]`` 1 where
    that matrix is not positive definite (L is then not to be used)."""

    name = "array.cholesky"
    __slots__ = ()
    square = True
    takes_complex = True
    soft = attr(of(bool), optional=True, default=False)
    # the operand is the (conjugate) transpose of the user's matrix, whose upper triangle
    # NumPy factors (``upper=True``): a LAPACK call reads it back and passes 'U', as NumPy's
    upper = attr(of(bool), optional=True, default=False)

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        return (m + 1, n) if attrs.get("soft") else (m, n)


class SlogdetOp(_Decomposition):
    """Per matrix ``(sign, log|det|)`` as ``numpy.linalg.slogdet`` (LU with partial pivoting):
    a result ``(..., 2)``; for complex matrices the sign is complex and log|det| the real part
    of the second entry."""

    name = "array.slogdet"
    __slots__ = ()
    square = True
    takes_complex = True

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        return (2,)


class QrOp(_Decomposition):
    """Householder QR as LAPACK's ``geqrf``/``orgqr``: a result ``(..., m, q_columns + n)``,
    the first ``q_columns`` columns Q (0, ``min(m, n)`` or ``m`` of them), then R (m x n, zero
    below its diagonal)."""

    name = "array.qr"
    __slots__ = ()
    takes_complex = True
    q_columns = attr(of(int))

    def check(self) -> None:
        m, n = self.operands[0].type.shape[-2:] if self.operands[0].type.rank >= 2 else (0, 0)
        if self.q_columns not in (0, min(m, n), m):
            self.fail(f"needs 'q_columns' 0, {min(m, n)} or {m}")
        super().check()

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        return (m, attrs["q_columns"] + n)


class EighOp(_Decomposition):
    """The eigenvalues (ascending) of each symmetric (or complex Hermitian) matrix, read from
    its lower triangle as ``numpy.linalg.eigh`` (a complex one's as real parts); with
    ``vectors`` 1 a result ``(..., n + 1, n)``: the eigenvectors as columns, then a row of
    eigenvalues; else ``(..., n)``."""

    name = "array.eigh"
    __slots__ = ()
    square = True
    takes_complex = True
    vectors = attr(of(int))
    upper = attr(of(bool), optional=True, default=False)  # UPLO='U': as CholeskyOp's

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        return (n + 1, n) if attrs["vectors"] else (n,)


class EigOp(_Decomposition):
    """The eigenvalues of each general real matrix (``numpy.linalg.eig``), real and imaginary
    parts apart: with ``vectors`` 1 a result ``(..., 2, n + 1, n)``, per part the eigenvectors
    as columns then a row of eigenvalues; else ``(..., 2, n)``. A complex matrix's fill the
    first part (plane 0) alone, complex. NaN or inf entries, or a QR
    iteration that does not converge, make the call raise ``LinAlgError``."""

    name = "array.eig"
    __slots__ = ()
    square = True
    takes_complex = True
    vectors = attr(of(int))

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        return (2, n + 1, n) if attrs["vectors"] else (2, n)


class SvdOp(_Decomposition):
    """The singular values (descending) of each matrix; with ``vectors`` 1 also U and Vh, in a
    result ``(..., m + vh_rows + 1, width)``: U in the first m rows (``u_cols`` columns), Vh
    in the next ``vh_rows`` (n columns), then a row of the k = min(m, n) singular values, where
    ``u_cols, vh_rows`` are m, n with ``full`` 1 and k, k without; else ``(..., k)``. A complex
    matrix's singular values are the real parts of its results'."""

    name = "array.svd"
    __slots__ = ()
    takes_complex = True
    vectors = attr(of(int))
    full = attr(of(int))

    @classmethod
    def packed_shape(cls, m: int, n: int, attrs: dict) -> tuple[int, ...]:
        k = min(m, n)
        if not attrs["vectors"]:
            return (k,)
        u_cols, vh_rows = (m, n) if attrs["full"] else (k, k)
        return (m + vh_rows + 1, max(u_cols, n))
