"""Matrix factorisations in the ``array`` dialect: ``det``.

``array.det`` of a stack of square float matrices ``(..., n, n)`` gives each one's determinant
``(...)``, as ``numpy.linalg.det`` computes it: an LU factorisation with partial pivoting (the
first largest magnitude in the column), then ``sign * exp(sum(log|u_ii|))``; an exactly zero
pivot gives 0.
"""

from __future__ import annotations

from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import ArrayOp
from jitcore.ir.types import TensorType


class DetOp(ArrayOp):
    name = "array.det"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (1, 1)

    def check(self) -> None:
        src = self.operands[0].type
        if src.rank < 2 or src.shape[-1] != src.shape[-2] or not src.element.is_float:
            self.fail("needs a stack of square float matrices (..., n, n)")
        if self.result_type != TensorType(src.shape[:-2], src.element):
            self.fail(f"must return {TensorType(src.shape[:-2], src.element)}")
