"""``complex``: the three ops that connect complex scalars with their float parts.

Complex arithmetic in kernel bodies is written with float ``arith``/``math`` ops on the parts
(``passes/kernelize/complex.py`` spells out NumPy's formulas once), so a backend only has to build
and take apart pairs: ``complex.create``, ``complex.re`` and ``complex.im``, as in MLIR.
"""

from __future__ import annotations

from jitcore.ir.core import PURE, Operation
from jitcore.ir.types import ScalarType


class _ComplexOp(Operation):
    __slots__ = ()
    traits = frozenset({PURE})

    def scalar_types(self):
        types = [v.type for v in (*self.operands, *self.results)]
        if any(not isinstance(t, ScalarType) for t in types):
            self.fail("takes and returns scalars only")
        return types


class CreateOp(_ComplexOp):
    """``complex.create %re, %im : complex<fN>`` from two ``fN`` parts."""

    name = "complex.create"
    __slots__ = ()
    arity = (2, 1)

    def verify_op(self) -> None:
        re, im, out = self.scalar_types()
        if not out.is_complex or re != out.component or im != out.component:
            self.fail(f"needs two {getattr(out, 'component', 'float')} parts for a {out} result")


class _PartOp(_ComplexOp):
    __slots__ = ()
    arity = (1, 1)

    def verify_op(self) -> None:
        z, out = self.scalar_types()
        if not z.is_complex or out != z.component:
            self.fail(f"needs a complex operand and its part type as result, got {z} -> {out}")


class ReOp(_PartOp):
    name = "complex.re"
    __slots__ = ()


class ImOp(_PartOp):
    name = "complex.im"
    __slots__ = ()
