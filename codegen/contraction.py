"""Recognising a ``kernel.generic`` that is a plain contraction, for any target.

A contraction kernel (``passes/kernelize/linalg.py``, possibly with transposes, slices and
broadcasts of its operands composed into its maps by fusion) has two inputs, one result
starting from 0, and the body ``acc + x * y``. Its iteration dims then fall into four roles:

- batch: read by both inputs and written (a stack of products);
- m: read by the first input only and written (the rows of the product);
- n: read by the second input only and written (its columns);
- k: read by both inputs and summed away (the ``reduction`` dims).

The m dims are those of the innermost run of them in the result's axes, and likewise n:
a dim read by one input only but parted from its role's run by a dim of another role (a
batch dim that one operand broadcasts) counts as a batch dim, read with stride 0 by the
other input.

A target may run such a kernel as a library call or a tiled kernel instead of the plain loop
nest; ``match_contraction`` says whether a kernel is one and gives the roles. A kernel with
anything else in its body (an inlined producer, a scale), a dim that only one operand reads
but none writes, or a result written through a non-plain map is not a contraction here.
"""

from __future__ import annotations

from dataclasses import dataclass

from jitcore.ir.core import Operation
from jitcore.ir.dialects import kernel
from jitcore.ir.types import ScalarType

# Real products and sums (a complex body is written out in real parts: not recognised).
_PRODUCT_SUM = {("arith.mulf", "arith.addf"), ("arith.muli", "arith.addi")}


@dataclass(frozen=True)
class Contraction:
    """``C[batch, m, n] = sum over k of A[batch, m, k] * B[batch, k, n]``: ``A`` is input 0
    and ``B`` input 1 of the kernel. Each role lists iteration dims (those of extent 1
    dropped: they index nothing), m and n in the result's axis order, k in ``A``'s."""

    element: ScalarType
    domain: tuple[int, ...]
    batch: tuple[int, ...]
    m: tuple[int, ...]
    n: tuple[int, ...]
    k: tuple[int, ...]

    def extent(self, dims: tuple[int, ...]) -> int:
        size = 1
        for d in dims:
            size *= self.domain[d]
        return size


def match_contraction(op: Operation) -> Contraction | None:
    """The roles of ``op``'s dims if it is a plain contraction (see the module docstring)."""
    if not isinstance(op, kernel.GenericOp) or len(op.operands) != 2 or len(op.results) != 1:
        return None
    if op.indexed or op.clamped or op.scan_dim is not None or op.copy_inputs != (-1,) or op.epilogue:
        return None
    if not _sums_products(op):
        return None
    domain = op.domain()
    a_map, b_map, c_map = op.indexing_maps
    if any(e.dim is None or e.scale != 1 or e.offset != 0 for e in c_map.exprs):
        return None
    written = [e.dim for e in c_map.exprs]
    if len(set(written)) != len(written):
        return None
    reads_a = {e.dim for e in a_map.exprs if e.dim is not None}
    reads_b = {e.dim for e in b_map.exprs if e.dim is not None}
    roles: dict[str, list[int]] = {"batch": [], "m": [], "n": [], "k": []}
    for d, it in enumerate(op.iterator_types):
        if (it == kernel.PARALLEL) != (d in written):
            return None  # a summed dim that is written, or a parallel one that is not
        key = {(True, True, True): "batch", (True, False, True): "m", (False, True, True): "n",
               (True, True, False): "k"}.get((d in reads_a, d in reads_b, d in written))
        if key is None:
            return None  # summed by one operand alone, or written but read by neither
        if domain[d] != 1:
            roles[key].append(d)
    if not any(it == kernel.REDUCTION for it in op.iterator_types):
        return None
    in_order = {d: i for i, d in enumerate(written)}
    first_in_a = {}
    for axis, e in enumerate(a_map.exprs):
        first_in_a.setdefault(e.dim, axis)
    m, outer_m = _last_run(roles["m"], written, domain)
    n, outer_n = _last_run(roles["n"], written, domain)
    return Contraction(
        op.results[0].type.element, tuple(domain), tuple(roles["batch"] + outer_m + outer_n),
        tuple(sorted(m, key=in_order.__getitem__)), tuple(sorted(n, key=in_order.__getitem__)),
        tuple(sorted(roles["k"], key=first_in_a.__getitem__)))


def _last_run(dims: list[int], written: list[int], domain) -> tuple[list[int], list[int]]:
    """``dims`` (one role's) split into the innermost run of them that lies together in the
    result (axes of extent 1 between them do not part them) and the rest. The rest cannot
    join that run in one matrix of the result, so they index a stack of products, as batch
    dims read by one operand only: ``(256,256) @ (64,256,64)``, whose broadcast batch fusion
    makes a dim of the second operand alone, is 64 products of 256 rows and 64 columns, not
    one product of rows split around the columns."""
    axes = [d for d in written if domain[d] != 1]
    positions = sorted(axes.index(d) for d in dims)
    start = len(positions)
    while start and (start == len(positions) or positions[start - 1] + 1 == positions[start]):
        start -= 1
    inner = {axes[p] for p in positions[start:]}
    return [d for d in dims if d in inner], [d for d in dims if d not in inner]


def _sums_products(op: kernel.GenericOp) -> bool:
    """Whether the body is exactly ``yield acc + in0 * in1`` (either operand order) from 0."""
    ops = op.body.ops
    if len(ops) != 3 or not op.inits or op.inits[0].value != 0:
        return False
    mul, add, yielded = ops
    if (mul.op_name, add.op_name) not in _PRODUCT_SUM:
        return False
    x, y, acc = op.body.args
    return ({id(v) for v in mul.operands} == {id(x), id(y)}
            and {id(v) for v in add.operands} == {id(acc), id(mul.results[0])}
            and list(yielded.operands) == [add.results[0]])


def single_dim_roles(op: Operation, c: Contraction, strided: list[bool]) -> Contraction | None:
    """``c`` with each role of several dims taken as its innermost dim, when every operand
    that reads the role holds its dims nested (each outer dim's stride the inner one's times
    the inner extent) so that they index like one dim of their extents' product: a tensordot
    over two axes (``(n, p, q) x (p, q, n)``), ``(b, m, k) @ (k, n)``'s rows. The strides
    must be known when compiling (contiguous operands: ``strided`` all False); a role whose
    dims do not nest (a transposed pair of axes) gives None. The outer dims leave the roles;
    the innermost one's extent becomes the role's, so a kernel that reads single dims through
    their strides (``tiled_gemm``) computes the same product."""
    if any(strided):
        return None
    shapes = [v.type.shape for v in (*op.operands, *op.results)]
    maps = list(op.indexing_maps)
    domain = list(c.domain)

    def stride(i: int, d: int) -> int:
        contiguous = [1] * len(shapes[i])
        for axis in reversed(range(len(shapes[i]) - 1)):
            contiguous[axis] = contiguous[axis + 1] * shapes[i][axis + 1]
        return sum(e.scale * contiguous[axis] for axis, e in enumerate(maps[i].exprs) if e.dim == d)

    roles = []
    for dims in (c.m, c.n, c.k):
        if not dims:
            return None
        for outer, inner in zip(dims, dims[1:]):
            for i in range(3):  # A, B, C: one that reads neither dim has nothing to nest
                nested = stride(i, outer) == stride(i, inner) * c.domain[inner]
                if not nested and any(stride(i, d) for d in (outer, inner)):
                    return None
        for d in dims[:-1]:
            domain[dims[-1]] *= c.domain[d]
        roles.append((dims[-1],))
    return Contraction(c.element, tuple(domain), c.batch, *roles)
