"""Matrix factorisations in the ``array`` dialect: ``det`` and ``solve``.

``array.det`` of a stack of square float (or complex) matrices ``(..., n, n)`` gives each
one's determinant ``(...)``, as ``numpy.linalg.det`` computes it: an LU factorisation with
partial pivoting (the first largest magnitude in the column), then ``sign * exp(sum(log|u_ii|))``;
an exactly zero pivot gives 0.
"""

from __future__ import annotations

from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import ArrayOp
from jitcore.ir.opdef import attr, of
from jitcore.ir.types import TensorType


def _inexact(element) -> bool:
    return element.is_float or element.is_complex


class DetOp(ArrayOp):
    name = "array.det"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)

    def check(self) -> None:
        src = self.operands[0].type
        if src.rank < 2 or src.shape[-1] != src.shape[-2] or not _inexact(src.element):
            self.fail("needs a stack of square float or complex matrices (..., n, n)")
        if self.result_type != TensorType(src.shape[:-2], src.element):
            self.fail(f"must return {TensorType(src.shape[:-2], src.element)}")


class SolveOp(ArrayOp):
    """``array.solve`` of square float (or complex) matrices ``a (..., n, n)`` and right-hand sides
    ``b (..., n, k)`` (same batch shape and element type): ``x`` with ``a x = b``, by the LU
    factorisation with partial pivoting, as ``numpy.linalg.solve``; a matrix with an exactly
    zero pivot makes the call raise ``LinAlgError``. With ``soft`` (inside a ``try`` whose
    ``except`` catches it: jitcore/failures.py) it does not: the result has one more row,
    ``[..., n, 0]`` 1 where that matrix is singular (x is then not to be used)."""

    name = "array.solve"
    traits = frozenset({PURE})  # it may raise: passes/effects.py's may_raise keeps it in place
    __slots__ = ()
    arity = (2, 1)
    soft = attr(of(bool), optional=True, default=False)

    def check(self) -> None:
        a, b = (v.type for v in self.operands)
        if (a.rank < 2 or a.shape[-1] != a.shape[-2] or not _inexact(a.element) or b.rank != a.rank
                or b.shape[:-1] != a.shape[:-1] or b.element != a.element):
            self.fail("needs square float or complex matrices (..., n, n) and right-hand sides (..., n, k)")
        expected = b.with_shape(b.shape[:-2] + (b.shape[-2] + 1, b.shape[-1])) if self.soft else b
        if self.result_type != expected:
            self.fail(f"must return {expected}")
