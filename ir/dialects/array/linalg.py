"""``array.dot_general``: contraction of two tensors, with StableHLO's dimension numbers.

``lhs_batch[i]`` and ``rhs_batch[i]`` name a pair of dims that both operands share and the
result keeps (a batch dim); ``lhs_contracting[i]`` and ``rhs_contracting[i]`` name a pair that is
multiplied elementwise and summed away. The other dims of each operand are its free dims. The
result's dims are the batch dims, then the lhs free dims, then the rhs free dims, each group in
operand order. Operands and result have one element type (the tracer converts first); a bool
contraction is NumPy's: ``or`` over ``and``. Integer contractions wrap.
"""

from __future__ import annotations

import numpy as np

from jitcore.ir.attributes import DenseAttr
from jitcore.ir.core import PURE
from jitcore.ir.dialects.array.base import FOLD_LIMIT, ArrayOp
from jitcore.ir.opdef import attr, tuple_of
from jitcore.ir.types import TensorType

_DIMENSIONS = tuple_of(int, ": a list of dimension numbers")


class DotGeneralOp(ArrayOp):
    """``sum over contracting dims of lhs * rhs``, per batch index and pair of free indices."""

    name = "array.dot_general"
    traits = frozenset({PURE})
    __slots__ = ()
    arity = (2, 1)
    lhs_batch = attr(_DIMENSIONS)
    rhs_batch = attr(_DIMENSIONS)
    lhs_contracting = attr(_DIMENSIONS)
    rhs_contracting = attr(_DIMENSIONS)

    @property
    def lhs_free(self) -> tuple[int, ...]:
        return free_dims(self.operands[0].type.rank, self.lhs_batch, self.lhs_contracting)

    @property
    def rhs_free(self) -> tuple[int, ...]:
        return free_dims(self.operands[1].type.rank, self.rhs_batch, self.rhs_contracting)

    def check(self) -> None:
        lhs, rhs = (v.type for v in self.operands)
        for side, t in (("lhs", lhs), ("rhs", rhs)):
            batch, contracting = self.attributes[f"{side}_batch"], self.attributes[f"{side}_contracting"]
            for name, dims in ((f"{side}_batch", batch), (f"{side}_contracting", contracting)):
                for d in dims:
                    if not 0 <= d < t.rank:
                        self.fail(f"'{name}' dim {d} is out of range for the {side} of rank {t.rank}")
            if len(set(batch + contracting)) != len(batch + contracting):
                self.fail(f"repeats a {side} dim in '{side}_batch' {list(batch)} and "
                          f"'{side}_contracting' {list(contracting)}")
        for kind in ("batch", "contracting"):
            ld, rd = self.attributes[f"lhs_{kind}"], self.attributes[f"rhs_{kind}"]
            if len(ld) != len(rd):
                self.fail(f"needs as many '{'rhs_' + kind}' dims as '{'lhs_' + kind}' dims, "
                          f"got {len(rd)} and {len(ld)}")
            for a, b in zip(ld, rd):
                if lhs.shape[a] != rhs.shape[b]:
                    self.fail(f"{kind} dims differ in size: lhs dim {a} is {lhs.shape[a]}, "
                              f"rhs dim {b} is {rhs.shape[b]}")
        if lhs.element != rhs.element:
            self.fail(f"needs operands of one element type (convert first), got {lhs.element} "
                      f"and {rhs.element}")
        expected = self.expected_type()
        if self.result_type != expected:
            self.fail(f"must return {expected}")

    def expected_type(self) -> TensorType:
        lhs, rhs = (v.type for v in self.operands)
        shape = ([lhs.shape[d] for d in self.lhs_batch] + [lhs.shape[d] for d in self.lhs_free]
                 + [rhs.shape[d] for d in self.rhs_free])
        return TensorType(tuple(shape), lhs.element)

    def fold(self, constants):
        if self.result_type.size > FOLD_LIMIT or any(
            not isinstance(c, DenseAttr) or c.array.size > FOLD_LIMIT for c in constants
        ):
            return None
        return [DenseAttr(self.reference(*(c.array for c in constants)), self.result_type)]

    def reference(self, lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """The op's meaning in NumPy (``numpy.matmul`` of the operands as stacks of matrices)."""
        batch_shape = tuple(lhs.shape[d] for d in self.lhs_batch)
        lhs_free = tuple(lhs.shape[d] for d in self.lhs_free)
        rhs_free = tuple(rhs.shape[d] for d in self.rhs_free)
        k = int(np.prod([lhs.shape[d] for d in self.lhs_contracting]))
        a = lhs.transpose(self.lhs_batch + self.lhs_free + self.lhs_contracting)
        b = rhs.transpose(self.rhs_batch + self.rhs_contracting + self.rhs_free)
        a = a.reshape(batch_shape + (int(np.prod(lhs_free)), k))
        b = b.reshape(batch_shape + (k, int(np.prod(rhs_free))))
        with np.errstate(all="ignore"):
            out = np.matmul(a, b)
        return out.reshape(batch_shape + lhs_free + rhs_free)


def free_dims(rank: int, batch: tuple[int, ...], contracting: tuple[int, ...]) -> tuple[int, ...]:
    """The dims of an operand that are neither batch nor contracting, in order."""
    return tuple(d for d in range(rank) if d not in batch and d not in contracting)
