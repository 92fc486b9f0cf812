"""The mark of a decomposition kernel that the CPU code generator may run as the LAPACK
routine NumPy calls (``codegen/cpu/lapack.py``), where the process has it.

``kernelize`` builds each decomposition's kernel from jitcore's own algorithms (the body: what
runs without the library); ``mark`` adds what a call needs and the body does not say: the
kind, the generic's operand positions of the array op's operands, and the op's parameters.
"""

from __future__ import annotations

from jitcore.ir.core import Operation
from jitcore.ir.dialects import array
from jitcore.ir.dialects.kernel import LAPACK, LAPACK_OPERANDS, LAPACK_PARAMS


def _qr_mode(op: array.QrOp) -> int:
    """0: R alone ('r'), 1: Q with min(m, n) columns, 2: with m (NumPy's ``qr_complete``)."""
    m, n = op.operands[0].type.shape[-2:]
    return 0 if not op.q_columns else 1 if op.q_columns == min(m, n) else 2


_SPECS = {
    array.SvdOp: lambda op: ("svd", (op.vectors, op.full)),
    array.EighOp: lambda op: ("eigh", (op.vectors, int(op.upper))),
    array.CholeskyOp: lambda op: ("cholesky", (int(op.upper), int(op.soft))),
    array.SlogdetOp: lambda op: ("slogdet", ()),
    array.DetOp: lambda op: ("det", ()),
    array.SolveOp: lambda op: ("solve", (int(op.soft),)),
    array.QrOp: lambda op: ("qr", (_qr_mode(op),)),
    array.EigOp: lambda op: ("eig", (op.vectors,)),
}


def mark(op: Operation, generic: Operation) -> None:
    """Mark ``generic``, the kernel made from ``op``, if ``op`` is a decomposition LAPACK has."""
    spec = _SPECS.get(type(op))
    if spec is None or any(v not in generic.operands for v in op.operands):
        return
    kind, params = spec(op)
    generic.attributes[LAPACK] = kind
    generic.attributes[LAPACK_OPERANDS] = tuple(generic.operands.index(v) for v in op.operands)
    generic.attributes[LAPACK_PARAMS] = tuple(int(p) for p in params)
