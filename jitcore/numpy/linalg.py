"""NumPy's products of arrays under ``jit``: matmul (``@``), dot, tensordot, einsum, inner,
outer, vdot, vecdot, matvec and vecmat, each recorded as one ``array.dot_general``.

The result dtype is NumPy's: ``numpy.result_type`` of the operands, a Python scalar counting as
a 0-d array of its default dtype (these functions call ``asarray`` on their arguments, so
scalars are not weak here). Integer products wrap; a bool product is ``or`` over ``and``.
float16 products accumulate in float32 and round once, as NumPy's matmul and dot loops do.
Shape errors are ``JitTypeError`` with NumPy's wording. Also here: ``diagonal``, ``trace`` and
``diag``, strided reads of a diagonal (``array.diagonal``).
"""

from __future__ import annotations

import operator
import string

import numpy as np

from jitcore import indexing, number_or_array
from jitcore import primitives as prims
from jitcore.dtypes import ir_type
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.ir.dialects.array import DotGeneralOp, SvdOp, free_dims
from jitcore.ir.types import TensorType
from jitcore.numpy.registry import UFUNCS, implements, traced
from jitcore.tracer import Tracer, as_scalar, fresh, make_view, refuse_traced, user_location

__all__ = ["diag", "diagonal", "dot", "einsum", "inner", "matmul", "outer", "tensordot", "trace", "vdot",
           "vecdot", *(name for name in ("matvec", "vecmat") if hasattr(np, name))]  # NumPy 2.2 on

_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _operands(*xs) -> tuple[list[Tracer], np.dtype]:
    """The operands as tracers of their common dtype (NumPy's ``result_type``)."""
    trace = prims.find_trace(*xs)
    tracers = [x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)) for x in xs]
    dtype = np.result_type(*(t.dtype for t in tracers))
    ir_type(dtype)  # a JitTypeError naming an unsupported dtype
    return [prims.convert(t, dtype) for t in tracers], dtype


@prims.numpy_scalar
def dot_general(lhs: Tracer, rhs: Tracer, lhs_contracting, rhs_contracting, lhs_batch=(),
                rhs_batch=()) -> Tracer:
    """Record ``array.dot_general`` on two tracers of one dtype: the result's dims are the batch
    dims, then the free dims of ``lhs``, then those of ``rhs``."""
    if lhs.dtype == _F16:
        out = dot_general(prims.convert(lhs, _F32), prims.convert(rhs, _F32), lhs_contracting,
                          rhs_contracting, lhs_batch, rhs_batch)
        return prims.convert(out, _F16)
    attrs = {"lhs_batch": tuple(lhs_batch), "rhs_batch": tuple(rhs_batch),
             "lhs_contracting": tuple(lhs_contracting), "rhs_contracting": tuple(rhs_contracting)}
    shape = ([lhs.shape[d] for d in lhs_batch]
             + [lhs.shape[d] for d in free_dims(lhs.ndim, attrs["lhs_batch"], attrs["lhs_contracting"])]
             + [rhs.shape[d] for d in free_dims(rhs.ndim, attrs["rhs_batch"], attrs["rhs_contracting"])])
    trace = lhs.owner_trace
    number_or_array.emitted(DotGeneralOp, [lhs, rhs])
    op = trace.builder.create(DotGeneralOp, [lhs.value, rhs.value],
                              [TensorType(tuple(shape), lhs.value.type.element)], attrs)
    return Tracer(op.result, trace, lhs.sources | rhs.sources)


def _shape(shape) -> str:
    return "(" + ",".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# -- matmul --------------------------------------------------------------------------------
_MATMUL_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


@implements(np.matmul)
def matmul(a, b):
    """``a @ b`` with NumPy's rules: stacks of matrices broadcast over their leading dims; a 1-d
    operand is a row (left) or column (right) vector whose dim leaves the result. A list
    operand (``x @ [x[0], 1.0]``) is read as ``np.asarray`` reads it, traced values and all."""
    a, b = prims.array_operand(a), prims.array_operand(b)
    if not traced(a, b):
        return np.matmul(a, b)
    (a, b), _ = _operands(a, b)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise JitValueError(
                f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core "
                f"with signature {_MATMUL_SIGNATURE} requires 1); use * to multiply by a scalar "
                f"(at {user_location()})")
    ka, kb = a.shape[-1], b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if ka != kb:
        raise JitValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature {_MATMUL_SIGNATURE} (size {kb} is different from {ka}) (at {user_location()})")
    if a.ndim == 1:  # (k) @ (..., k, m): no batch dims, the result is rhs's free dims
        return dot_general(a, b, (0,), (max(b.ndim - 2, 0),))
    if b.ndim == 1:  # (..., n, k) @ (k): the result is lhs's free dims
        return dot_general(a, b, (a.ndim - 1,), (0,))
    a, b, n = _batched("matmul", a, b, 2, 2)
    return dot_general(a, b, (n + 1,), (n,), range(n), range(n))


def _batched(name: str, a: Tracer, b: Tracer, a_core: int, b_core: int) -> tuple[Tracer, Tracer, int]:
    """``a`` and ``b`` broadcast to one batch shape ahead of their last ``a_core`` and ``b_core``
    dims (a gufunc's loop dims), and the batch rank."""
    try:
        batch = np.broadcast_shapes(a.shape[:a.ndim - a_core], b.shape[:b.ndim - b_core])
    except ValueError:
        raise JitValueError(
            f"{name}: operands could not be broadcast together: batch shapes "
            f"{_shape(a.shape[:a.ndim - a_core])} and {_shape(b.shape[:b.ndim - b_core])} of shapes "
            f"{_shape(a.shape)} and {_shape(b.shape)} (at {user_location()})") from None
    a = prims.broadcast_to(a, batch + a.shape[a.ndim - a_core:])
    b = prims.broadcast_to(b, batch + b.shape[b.ndim - b_core:])
    return a, b, len(batch)


def _gufunc_operands(name: str, signature: str, a, b, a_core: int, b_core: int, a_k: int, b_k: int):
    """The operands of a gufunc ``name`` with core ranks ``a_core``, ``b_core`` whose core dims
    ``a_k`` and ``b_k`` (counted from the end) must agree: NumPy's checks and messages."""
    (a, b), _ = _operands(a, b)
    for i, (x, core) in enumerate(((a, a_core), (b, b_core))):
        if x.ndim < core:
            raise JitValueError(
                f"{name}: Input operand {i} does not have enough dimensions (has {x.ndim}, gufunc "
                f"core with signature {signature} requires {core}) (at {user_location()})")
    if a.shape[-a_k] != b.shape[-b_k]:
        raise JitValueError(
            f"{name}: Input operand 1 has a mismatch in its core dimension {b_core - b_k}, with "
            f"gufunc signature {signature} (size {b.shape[-b_k]} is different from "
            f"{a.shape[-a_k]}) (at {user_location()})")
    return _batched(name, a, b, a_core, b_core)


def _conjugated(x):
    """``x``, conjugated if complex (the first operand of vdot, vecdot and vecmat)."""
    return np.conjugate(x) if (x.dtype if isinstance(x, Tracer) else np.asarray(x).dtype).kind == "c" else x


def vecdot(x1, x2, axis=-1):
    """``numpy.vecdot``: the inner product along ``axis``, broadcasting the rest; a complex
    ``x1`` is conjugated first, as NumPy does."""
    if not traced(x1, x2):
        return np.vecdot(x1, x2, axis=axis)
    x1 = _conjugated(x1)
    if axis != -1:
        x1, x2 = (prims.moveaxis(x, axis, -1) if isinstance(x, Tracer) else np.moveaxis(x, axis, -1)
                  for x in (x1, x2))
    a, b, n = _gufunc_operands("vecdot", "(n),(n)->()", x1, x2, 1, 1, 1, 1)
    return dot_general(a, b, (n,), (n,), range(n), range(n))


def matvec(x1, x2):
    """``numpy.matvec``: stacks of matrices times stacks of vectors, broadcasting the stacks."""
    if not traced(x1, x2):
        return np.matvec(x1, x2)
    a, b, n = _gufunc_operands("matvec", "(m,n),(n)->(m)", x1, x2, 2, 1, 1, 1)
    return dot_general(a, b, (n + 1,), (n,), range(n), range(n))


def vecmat(x1, x2):
    """``numpy.vecmat``: stacks of vectors times stacks of matrices, broadcasting the stacks;
    a complex vector is conjugated first, as NumPy does."""
    if not traced(x1, x2):
        return np.vecmat(x1, x2)
    x1 = _conjugated(x1)
    a, b, n = _gufunc_operands("vecmat", "(n),(n,m)->(m)", x1, x2, 1, 2, 1, 2)
    return dot_general(a, b, (n,), (n,), range(n), range(n))


# -- dot, inner, vdot, outer, tensordot ----------------------------------------------------
@implements(np.dot)
def dot(a, b, out=None):
    """``numpy.dot``: the last axis of ``a`` against the second-to-last of ``b`` (the only one
    if ``b`` is 1-d); a 0-d operand multiplies."""
    if not traced(a, b):
        return np.dot(a, b, out=out)
    _no_out("dot", out)
    (a, b), _ = _operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return prims.ufunc(np.multiply, a, b)
    axis_b = max(b.ndim - 2, 0)
    if a.shape[-1] != b.shape[axis_b]:
        raise JitValueError(
            f"shapes {_shape(a.shape)} and {_shape(b.shape)} not aligned: {a.shape[-1]} "
            f"(dim {a.ndim - 1}) != {b.shape[axis_b]} (dim {axis_b}) (at {user_location()})")
    return dot_general(a, b, (a.ndim - 1,), (axis_b,))


@implements(np.inner)
def inner(a, b):
    """``numpy.inner``: the last axes of ``a`` and ``b`` against each other."""
    if not traced(a, b):
        return np.inner(a, b)
    (a, b), _ = _operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return prims.ufunc(np.multiply, a, b)
    if a.shape[-1] != b.shape[-1]:
        b_shape = b.shape[:-2] + b.shape[-1:] + b.shape[-2:-1]  # NumPy reports b transposed
        raise JitValueError(
            f"shapes {_shape(a.shape)} and {_shape(b_shape)} not aligned: {a.shape[-1]} "
            f"(dim {a.ndim - 1}) != {b.shape[-1]} (dim {max(b.ndim - 2, 0)}) (at {user_location()})")
    return dot_general(a, b, (a.ndim - 1,), (b.ndim - 1,))


@implements(np.vdot)
def vdot(a, b):
    """``numpy.vdot``: both flattened, then their inner product, a complex ``a`` conjugated."""
    if not traced(a, b):
        return np.vdot(a, b)
    a = _conjugated(a)
    (a, b), _ = _operands(a, b)
    if a.size != b.size:
        raise JitValueError(f"vdot: cannot reshape array of size {b.size} into shape ({a.size},) "
                           f"(at {user_location()})")
    return dot_general(prims.reshape(a, (-1,)), prims.reshape(b, (-1,)), (0,), (0,))


@implements(np.outer)
def outer(a, b, out=None):
    """``numpy.outer``: every element of flattened ``a`` times every element of flattened ``b``."""
    if not traced(a, b):
        return np.outer(a, b, out=out)
    _no_out("outer", out)
    (a, b), _ = _operands(a, b)
    return dot_general(prims.reshape(a, (-1,)), prims.reshape(b, (-1,)), (), ())


@implements(np.tensordot)
def tensordot(a, b, axes=2):
    """``numpy.tensordot``: ``axes`` of ``a`` against ``axes`` of ``b`` (an int N means the
    last N of ``a`` and the first N of ``b``); the result is a's other dims, then b's."""
    if not traced(a, b):
        return np.tensordot(a, b, axes)
    (a, b), _ = _operands(a, b)
    # a traced axis (a loop's q) first, not listed as a sequence: the refusal that unrolls the
    # loop over a constant range, as sum(axis=q)'s does
    refuse_traced(axes, "the axes of numpy.tensordot")
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        axes_a, axes_b = list(range(-n, 0)), list(range(n))
    else:
        axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    norm_a = prims.normalize_axes(axes_a, a.ndim, "tensordot") if axes_a else ()
    norm_b = prims.normalize_axes(axes_b, b.ndim, "tensordot") if axes_b else ()
    if len(norm_a) != len(norm_b) or any(a.shape[i] != b.shape[j] for i, j in zip(norm_a, norm_b)):
        raise JitValueError(
            f"tensordot: shape-mismatch for sum: axes {axes_a} of {_shape(a.shape)} against "
            f"axes {axes_b} of {_shape(b.shape)} (at {user_location()})")
    return fresh(dot_general(a, b, norm_a, norm_b))  # NumPy: a 0-d array, not a scalar


def _no_out(name: str, out) -> None:
    if out is not None:
        raise UnsupportedError(f"numpy.{name} with out= is not supported under jit (at {user_location()})")


# -- einsum --------------------------------------------------------------------------------
_LETTERS = frozenset(string.ascii_letters)


def _sublist_letters(sublist) -> str:
    """A sublist as NumPy spells it: 0-25 are A-Z, 26-51 a-z, ``...`` for Ellipsis."""
    letters = ""
    for label in sublist:
        if label is Ellipsis:
            letters += "..."
        elif isinstance(label, (int, np.integer)) and not isinstance(label, bool) and 0 <= label < 52:
            letters += chr(ord("A") + label) if label < 26 else chr(ord("a") + label - 26)
        else:
            raise JitValueError(f"numpy.einsum: a sublist holds integers in [0, 52) or Ellipsis, "
                                f"got {label!r} (at {user_location()})")
    return letters


def _sublists_as_string(args: tuple) -> tuple:
    """``(a, sub_a, b, sub_b, ..., [sub_out])``, einsum's interleaved form, as a subscripts
    string and its operands."""
    operands, labels = list(args[0:-1:2] if len(args) % 2 else args[0::2]), args[1::2]
    if len(args) % 2:  # an odd count: the last sublist is the output's
        return ",".join(map(_sublist_letters, labels)) + "->" + _sublist_letters(args[-1]), operands
    return ",".join(map(_sublist_letters, labels)), operands


@implements(np.einsum)
def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """``numpy.einsum`` with a subscripts string: explicit (``->``) or implicit output,
    ``...`` for broadcast dims, size-1 dims broadcasting; any number of operands, contracted
    left to right. A label repeated within one operand takes a diagonal (``'ii->i'``), summed
    when the output lacks it (``'ii'``, a trace)."""
    if not traced(subscripts, *operands):
        return np.einsum(subscripts, *operands, out=out, dtype=dtype, order=order, casting=casting,
                         optimize=optimize)
    if not isinstance(subscripts, str):  # einsum(a, [0, 1], b, [1], [0]): NumPy's letters for them
        subscripts, operands = _sublists_as_string((subscripts, *operands))
    if out is not None or dtype is not None:
        raise UnsupportedError(
            f"numpy.einsum with {'out=' if out is not None else 'dtype='} is not supported under jit "
            f"(at {user_location()})")
    tracers, result_dtype = _operands(*operands)
    inputs, output = _parse_einsum(subscripts, [t.ndim for t in tracers])
    zero_d_array = not output and _last_step_is_a_product(subscripts, tracers, optimize)
    for n, labels in enumerate(inputs):
        if len(set(labels)) != len(labels):  # a diagonal ('ii->i'), summed later for a trace
            tracers[n], inputs[n] = _diagonal(subscripts, n, tracers[n], labels)
    sizes: dict = {}
    for labels, t in zip(inputs, tracers):
        for label, size in zip(labels, t.shape):
            known = sizes.setdefault(label, size)
            if known == 1:
                sizes[label] = size
            elif size not in (1, known):
                raise JitValueError(
                    f"einsum {subscripts!r}: operands could not be broadcast together: dim "
                    f"{_label_name(label)} is {known} in one operand and {size} in another "
                    f"(at {user_location()})")
    compute = _F32 if result_dtype == _F16 else result_dtype
    tracers = [prims.broadcast_to(prims.convert(t, compute), tuple(sizes[lb] for lb in labels))
               for t, labels in zip(tracers, inputs)]

    acc, acc_labels = _sum_unused(tracers[0], inputs[0], set(output) | _labels_of(inputs[1:]))
    for i in range(1, len(tracers)):
        keep = set(output) | _labels_of(inputs[i + 1:])
        rhs, rhs_labels = _sum_unused(tracers[i], inputs[i], keep | set(acc_labels))
        acc_labels, acc = _contract(acc, acc_labels, rhs, rhs_labels, keep, output)
    if optimize is False and len(tracers) > 1 and compute.kind in "fc" and _labels_of(inputs) <= set(output):
        # NumPy's plain einsum adds the products into a zeroed output: a -0.0 product is +0.0
        # there (its optimized path multiplies, as a step of two operands does here). A summed
        # label's sum starts from +0.0 already (and this add would be a pass of its own after a
        # contraction), so only a product of no sum needs it (it fuses into the product).
        acc = acc + np.zeros((), compute)
    if acc_labels != output:
        acc = prims.transpose(acc, [acc_labels.index(lb) for lb in output])
    result = prims.convert(acc, result_dtype)
    return fresh(result) if zero_d_array else as_scalar(result)  # NumPy's scalar for a 0-d result


def _last_step_is_a_product(subscripts: str, tracers: list, optimize) -> bool:
    """Whether NumPy's einsum ends in a matrix product: with ``optimize`` it contracts along a
    path (found from the shapes), and a last step of two operands that share a summed label of
    extent other than 1 is a matmul, whose 0-d result stays an array where the plain einsum (or
    a step that only multiplies: no such label) gives a scalar."""
    if optimize is False:
        return False
    stand_ins = [np.broadcast_to(np.zeros((), t.dtype), t.shape) for t in tracers]  # no memory
    _, steps = np.einsum_path(subscripts, *stand_ins, optimize=optimize, einsum_call=True)
    shapes = [tuple(t.shape) for t in tracers]  # of the operands left, as NumPy's loop pops them
    matmul = False
    for inds, eq, _ in steps:
        lhs, out = eq.split("->")
        terms, popped = lhs.split(","), [shapes.pop(i) for i in inds]
        sizes: dict = {}
        for term, shape in zip(terms, popped):
            for label, d in zip(term, shape):
                sizes[label] = d if sizes.get(label, 1) == 1 else sizes[label]
        shapes.append(tuple(sizes[label] for label in out))

        matmul = len(terms) == 2 and any(
            label not in out and all(any(lb == label and d != 1 for lb, d in zip(term, shape))
                                     for term, shape in zip(terms, popped))
            for label in set(terms[0]))
    return matmul


def _diagonal(subscripts: str, n: int, x: Tracer, labels: list) -> tuple[Tracer, list]:
    """The diagonal of operand ``n`` over its repeated labels, and its labels, each once."""
    unique = list(dict.fromkeys(labels))
    for lb in unique:
        sizes = [size for size, other in zip(x.shape, labels) if other == lb]
        if len(set(sizes)) > 1:
            raise JitValueError(
                f"einsum {subscripts!r}: dimensions in operand {n} for collapsing index "
                f"{_label_name(lb)} don't match ({sizes[0]} != {sizes[-1]}) (at {user_location()})")
    return indexing.diagonal(x, tuple(unique.index(lb) for lb in labels)), unique


def _label_name(label) -> str:
    return repr(label) if isinstance(label, str) else "of '...'"


def _labels_of(groups) -> set:
    return {lb for labels in groups for lb in labels}


def _parse_einsum(subscripts: str, ranks: list[int]) -> tuple[list[list], list]:
    """Labels per operand and for the output; ``...`` becomes ``(0,)``, ``(1,)``, ... labels,
    right-aligned across operands as in broadcasting."""
    spec = subscripts.replace(" ", "")
    lhs, arrow, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise JitValueError(f"einsum {subscripts!r}: {len(terms)} operand subscripts for "
                           f"{len(ranks)} operands (at {user_location()})")
    ellipsis_rank = 0
    for term, rank in zip(terms, ranks):
        _check_term(subscripts, term)
        named = len(term.replace("...", ""))
        if ("..." in term and named > rank) or ("..." not in term and named != rank):
            raise JitValueError(f"einsum {subscripts!r}: subscripts {term!r} do not match an operand "
                               f"of {rank} dims (at {user_location()})")
        if "..." in term:
            ellipsis_rank = max(ellipsis_rank, rank - named)
    inputs = [_expand(term, rank - len(term.replace("...", "")), ellipsis_rank)
              for term, rank in zip(terms, ranks)]
    if arrow:
        _check_term(subscripts, rhs)
        if "..." not in rhs and ellipsis_rank and any("..." in t for t in terms):
            raise JitValueError(f"einsum {subscripts!r}: output subscripts must include '...' when "
                               f"the inputs' broadcast dims are not all of size 1 "
                               f"(at {user_location()})")
        output = _expand(rhs, ellipsis_rank, ellipsis_rank)
        seen = _labels_of(inputs)
        for lb in output:
            if lb not in seen:
                raise JitValueError(f"einsum {subscripts!r}: output label {lb!r} appears in no input "
                                   f"(at {user_location()})")
        if len(set(output)) != len(output):
            raise JitValueError(f"einsum {subscripts!r}: an output label appears more than once "
                               f"(at {user_location()})")
    else:
        letters = [lb for labels in inputs for lb in labels if isinstance(lb, str)]
        once = sorted(lb for lb in set(letters) if letters.count(lb) == 1)
        output = [(k,) for k in range(ellipsis_rank)] + once
    return inputs, output


def _check_term(subscripts: str, term: str) -> None:
    if term.count("...") > 1 or any(c not in _LETTERS for c in term.replace("...", "")):
        raise JitValueError(f"einsum {subscripts!r}: invalid subscripts {term!r}; use letters and at "
                           f"most one '...' per operand (at {user_location()})")


def _expand(term: str, own_rank: int, ellipsis_rank: int) -> list:
    head, _, tail = term.partition("...")
    if "..." not in term:
        return list(term)
    return list(head) + [(k,) for k in range(ellipsis_rank - own_rank, ellipsis_rank)] + list(tail)


def _sum_unused(x: Tracer, labels: list, keep: set) -> tuple[Tracer, list]:
    """Sum away the dims whose labels nothing later needs (einsum keeps the operand dtype)."""
    gone = [i for i, lb in enumerate(labels) if lb not in keep]
    if not gone:
        return x, labels
    return (prims.reduction("sum", x, tuple(gone), dtype=x.dtype),
            [lb for lb in labels if lb in keep])


def _contract(lhs: Tracer, lhs_labels: list, rhs: Tracer, rhs_labels: list, keep: set,
              output: list) -> tuple[list, Tracer]:
    """One pairwise contraction. Shared labels still needed are batch dims (in output order
    where they appear there); operands are swapped when that makes the result's dim order
    closer to the output's, as the product is commutative."""
    order = {lb: i for i, lb in enumerate(output)}
    shared = [lb for lb in lhs_labels if lb in rhs_labels]
    batch = sorted((lb for lb in shared if lb in keep), key=lambda lb: order.get(lb, len(order)))
    contracting = [lb for lb in shared if lb not in keep]

    def labels_after(first, second):
        return (batch + [lb for lb in first if lb not in shared]
                + [lb for lb in second if lb not in shared])

    def misplaced(labels):
        ranked = [order.get(lb, len(order)) for lb in labels]
        return sum(x > y for i, x in enumerate(ranked) for y in ranked[i + 1:])

    if misplaced(labels_after(rhs_labels, lhs_labels)) < misplaced(labels_after(lhs_labels, rhs_labels)):
        lhs, lhs_labels, rhs, rhs_labels = rhs, rhs_labels, lhs, lhs_labels
    out = dot_general(
        lhs, rhs,
        [lhs_labels.index(lb) for lb in contracting], [rhs_labels.index(lb) for lb in contracting],
        [lhs_labels.index(lb) for lb in batch], [rhs_labels.index(lb) for lb in batch])
    return labels_after(lhs_labels, rhs_labels), out


# -- diagonals -----------------------------------------------------------------------------
@implements(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """``numpy.diagonal``: the two axes leave, their diagonal (from ``offset``) becomes the last
    dim; a strided read (``array.diagonal``), no gather. A read-only view, as NumPy's: a later
    write to ``a`` shows through (``d = np.diagonal(A); np.fill_diagonal(A, 0)``)."""
    if not traced(a):
        return np.diagonal(a, offset, axis1, axis2)
    if a.ndim < 2:
        raise JitValueError(f"diag requires an array of at least two dimensions (at {user_location()})")
    axis1, axis2 = prims.normalize_axes((axis1, axis2), a.ndim, "diagonal")
    offset = operator.index(offset)
    return make_view(a, lambda base: _diagonal_read(base, offset, axis1, axis2), _read_only_diagonal,
                     model=lambda m: np.diagonal(m, offset, axis1, axis2))


def _read_only_diagonal(base, value):
    raise JitValueError(f"assignment destination is read-only: numpy.diagonal returns a read-only "
                        f"view (NumPy raises the same ValueError), at {user_location()}; write to "
                        "a copy (np.diagonal(a).copy()), or to the array's diagonal with "
                        "np.fill_diagonal(a, v) or a[i, i] = v")


def _diagonal_read(a, offset: int, axis1: int, axis2: int):
    rest = [d for d in range(a.ndim) if d not in (axis1, axis2)]
    x = prims.transpose(a, (*rest, axis1, axis2))
    n1, n2 = x.shape[-2:]
    length = max(0, min(n1 + min(offset, 0), n2 - max(offset, 0)))
    lead = tuple(slice(None) for _ in rest)
    x = indexing.getitem(x, (*lead, slice(max(-offset, 0), max(-offset, 0) + length),
                          slice(max(offset, 0), max(offset, 0) + length)))
    return indexing.diagonal(x, (*range(len(rest)), len(rest), len(rest)))


@implements(np.trace)
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``numpy.trace``: the sum of ``diagonal(a, offset, axis1, axis2)`` along its last dim."""
    if not traced(a):
        return np.trace(a, offset, axis1, axis2, dtype, out)
    _no_out("trace", out)
    return prims.reduction("sum", diagonal(a, offset, axis1, axis2), -1, dtype=dtype)


@implements(np.diag)
def diag(v, k=0):
    """``numpy.diag``: the ``k``-th diagonal of a 2-d array, or a 2-d array with a 1-d one on
    its ``k``-th diagonal (zeros elsewhere)."""
    if not traced(v):
        return np.diag(v, k)
    k = operator.index(k)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise JitValueError(f"numpy.diag: input must be 1- or 2-d, not {v.ndim}-d (at {user_location()})")
    n = v.shape[0] + abs(k)
    column = prims.pad(v, [(0, abs(k))])  # out[i, i + k] = v[i]: by row for k >= 0, else by column
    spread = prims.reshape(column, (n, 1) if k >= 0 else (1, n))
    zero = prims.constant(v.owner_trace, np.zeros((), v.dtype))  # keeps a bool v bool
    return prims.where(np.eye(n, k=k, dtype=bool), spread, zero)


# ndarray @ tracer and np.vecdot(...) reach these through __array_ufunc__ (matvec and vecmat
# are new in NumPy 2.2).
for _fn in (matmul, vecdot, matvec, vecmat):
    if hasattr(np, _fn.__name__):
        UFUNCS[getattr(np, _fn.__name__)] = _fn


def _max_or_zero(v, axis: int, keepdims: bool = False, kind=np.max):
    """``kind(v, axis)`` with NumPy's ``initial=0`` for an empty axis (max) or its error (min)."""
    if v.shape[axis] == 0 and kind is np.max:
        shape = list(v.shape)
        shape[axis] = 1
        zeros = prims.constant(v.owner_trace, np.zeros(shape, v.dtype))
        # (of a 0x0 matrix, a NumPy scalar, as NumPy's max with initial=0 gives)
        return zeros if keepdims else as_scalar(np.squeeze(zeros, axis))
    return kind(v, axis=axis, keepdims=keepdims)


@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """``numpy.linalg.norm``, as NumPy computes it: vector norms (ord None/2 as ``sqrt(x.x)``
    through the same BLAS dot when the whole array is reduced, inf, -inf, 0, 1, any p) and
    matrix norms (None/'fro', 1, -1, inf, -inf, and 2, -2, 'nuc' from the singular values)
    over one or two axes."""
    if not traced(x):
        return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    if x.dtype.kind not in "fc":
        x = prims.convert(x, np.dtype(np.float64))
    nd = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1)):
        flat = prims.reshape(x, (-1,))
        if x.dtype.kind == "c":
            re, im = np.real(flat), np.imag(flat)
            sq = np.dot(re, re) + np.dot(im, im)
        else:
            sq = np.dot(flat, flat)
        out = np.sqrt(sq)
        return prims.reshape(out, (1,) * nd) if keepdims else out
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (operator.index(axis),)
    if len(axis) == 1:
        (ax,) = prims.normalize_axes(axis[0], nd, "norm")
        absx = np.abs(x)
        if ord == np.inf:
            return _max_or_zero(absx, ax, keepdims)
        if ord == -np.inf:
            return np.min(absx, axis=ax, keepdims=keepdims)
        if ord == 0:
            real = np.dtype(np.real(np.zeros(0, x.dtype)).dtype)
            return np.sum(prims.convert(x != 0, real), axis=ax, keepdims=keepdims)
        if ord == 1:
            return np.sum(absx, axis=ax, keepdims=keepdims)
        if ord is None or ord == 2:
            return np.sqrt(np.sum(np.real(np.conj(x) * x), axis=ax, keepdims=keepdims))
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors (at {user_location()})")
        total = np.sum(absx ** np.array(ord, absx.dtype), axis=ax, keepdims=keepdims)
        return total ** np.reciprocal(np.array(ord, total.dtype))
    if len(axis) != 2:
        raise ValueError(f"Improper number of dimensions to norm. (at {user_location()})")
    row, col = prims.normalize_axes(axis[0], nd, "norm") + prims.normalize_axes(axis[1], nd, "norm")
    if row == col:
        raise ValueError(f"Duplicate axes given. (at {user_location()})")
    absx = np.abs(x)
    if ord in (1, -1):
        kind = np.max if ord == 1 else np.min
        ret = _max_or_zero(np.sum(absx, axis=row), col - 1 if col > row else col, kind=kind)
    elif ord in (np.inf, -np.inf):
        kind = np.max if ord == np.inf else np.min
        ret = _max_or_zero(np.sum(absx, axis=col), row - 1 if row > col else row, kind=kind)
    elif ord in (None, "fro", "f"):
        ret = np.sqrt(np.sum(np.real(np.conj(x) * x), axis=(row, col)))
    elif ord in (2, -2, "nuc"):  # from the singular values (passes/kernelize/bidiagonal.py)
        rest = [d for d in range(nd) if d not in (row, col)]
        s = singular_values(_linalg_float(prims.transpose(x, (*rest, row, col)), "norm", complex_ok=True))
        # (NumPy's 2-norm of an empty matrix is 0: its max has initial=0; its -2-norm raises)
        ret = (np.max(s, axis=-1, initial=0) if ord == 2 else np.min(s, axis=-1) if ord == -2
               else np.sum(s, axis=-1))
    else:
        raise ValueError(f"Invalid norm order for matrices. (at {user_location()})")
    if keepdims:
        shape = [1 if d in (row, col) else s for d, s in enumerate(x.shape)]
        ret = prims.reshape(ret, tuple(shape))
    return ret


def real_form(a: Tracer) -> Tracer:
    """The real matrices ``[[Re a, -Im a], [Im a, Re a]]`` (2m x 2n) of a complex stack: the
    map keeps sums, products, adjoints and so pseudo-inverses (``real_form(pinv(a)) ==
    pinv(real_form(a))``) and norms (it is an isometry), and each singular value of ``a`` (each
    eigenvalue of a Hermitian ``a``) appears twice in it. pinv and lstsq are computed on it by
    the real kernels."""
    re, im = np.real(a), np.imag(a)
    top, low = prims.concatenate([re, -im], axis=-1), prims.concatenate([im, re], axis=-1)
    return prims.concatenate([top, low], axis=-2)


def from_real_form(x: Tracer, rows: int) -> Tracer:
    """The complex matrices whose real form has ``x`` (2 rows x k) as its first block column."""
    return prims.ufunc(np.add, x[..., :rows, :], prims.ufunc(np.multiply, x[..., rows:, :], 1j))


def singular_values(a: Tracer) -> Tracer:
    """The singular values of the stack ``a`` (float or complex), descending."""
    values = prims.decomposition(a, SvdOp, vectors=0, full=0)
    return np.real(values) if a.dtype.kind == "c" else values


@implements(np.linalg.det)
@prims.numpy_scalar  # of one matrix: a NumPy float, as in NumPy
def det(a):
    """``numpy.linalg.det``: a compiled LU factorisation with partial pivoting per matrix, and
    NumPy's ``sign * exp(sum(log|u_ii|))`` (so results agree with LAPACK's to rounding, not
    bit for bit; a complex sign is the product of the pivots' phases); integers in float64; a
    singular matrix gives 0 (or what rounding leaves)."""
    if not traced(a):
        return np.linalg.det(a)
    _square_stack(a, "det")
    return prims.det(_linalg_float(a, "det", complex_ok=True))


def _linalg_float(x, name: str, complex_ok: bool = False):
    """NumPy's linalg dtype rule: integers and bools in float64, float16 refused; complex
    where the caller takes it (eig and eigvals refuse it)."""
    if x.dtype.kind == "c" and not complex_ok:
        raise UnsupportedError(f"numpy.linalg.{name} of complex matrices is not supported under "
                               f"jit yet (it needs a complex Schur form; eigh, eigvalsh and svd "
                               f"compile); call it outside jit (at {user_location()})")
    if x.dtype == np.float16:
        raise JitTypeError(f"array type float16 is unsupported in linalg (at {user_location()})")
    return x if x.dtype.kind in "fc" else prims.convert(x, np.dtype(np.float64))


def no_float16(*xs) -> None:
    """NumPy's linalg refuses a float16 operand, before promoting it with the others."""
    if any(x.dtype == np.float16 for x in xs):
        raise JitTypeError(f"array type float16 is unsupported in linalg (at {user_location()})")


def _square_stack(a, name: str) -> None:
    if a.ndim < 2:
        raise np.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                                    f"two-dimensional (at {user_location()})")
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError(f"Last 2 dimensions of the array must be square "
                                    f"(at {user_location()})")


@implements(np.linalg.solve)
def solve(a, b):
    """``numpy.linalg.solve``: a compiled LU factorisation with partial pivoting and two
    triangular solves per matrix (agreeing with LAPACK's ``gesv`` to rounding); ``b`` is a
    vector when 1-d, else a stack ``(..., n, k)``, batch dims broadcast; a singular matrix
    raises ``LinAlgError('Singular matrix')`` after the call, from the kernel's status flag.
    Complex systems factor in complex arithmetic (pivots by ``|re| + |im|``, as ``zgesv``)."""
    if not traced(a, b):
        return np.linalg.solve(a, b)
    trace = prims.find_trace(a, b)
    a, b = (x if isinstance(x, Tracer) else prims.constant(trace, np.asarray(x)) for x in (a, b))
    _square_stack(a, "solve")
    no_float16(a, b)
    dtype = np.result_type(a.dtype, b.dtype)
    a, b = prims.convert(a, dtype), prims.convert(b, dtype)
    a, b = _linalg_float(a, "solve", complex_ok=True), _linalg_float(b, "solve", complex_ok=True)
    n = a.shape[-1]
    vector = b.ndim == 1
    rhs = prims.reshape(b, (n, 1)) if vector and b.shape[0] == n else b
    if rhs.ndim < 2 or rhs.shape[-2] != n:
        raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0 "
                         f"(size {b.shape[0] if vector else b.shape[-2] if b.ndim > 1 else 0} is "
                         f"different from {n}) (at {user_location()})")
    batch = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    a = prims.broadcast_to(a, (*batch, n, n))
    rhs = prims.broadcast_to(rhs, (*batch, *rhs.shape[-2:]))
    x = prims.solve(a, rhs)
    return prims.reshape(x, (*batch, n)) if vector else x


@implements(np.linalg.inv)
def inv(a):
    """``numpy.linalg.inv``: ``solve(a, I)``, as NumPy's ``gesv`` with the identity; a singular
    matrix raises ``LinAlgError('Singular matrix')``."""
    if not traced(a):
        return np.linalg.inv(a)
    _square_stack(a, "inv")
    a = _linalg_float(a, "inv", complex_ok=True)
    n = a.shape[-1]
    eye = prims.constant(a.owner_trace, np.eye(n, dtype=a.dtype))
    return prims.solve(a, prims.broadcast_to(eye, a.shape))
