"""A reduction whose terms outside a window are masked to the identity, run over the window only.

A sum over windows whose length varies per output (``np.correlate(x, x, 'full')``: output
``k`` overlaps ``x`` at ``min(k + 1, 2n - 1 - k)`` positions; a convolution's ends; a moving
sum near the edges) reads a rectangle of positions and masks the ones outside each output's
window: the body yields ``acc (+) select(outside, identity, term)``, ``outside`` a test of
affine functions of the positions (``d0 + d1 < n - 1``). Run over the rectangle, half of the
full autocorrelation's terms are those identities, and the select in every term keeps the row
from being a plain dot product.

``masked_row`` finds such a body: the bounds ``[lo, hi)`` of the innermost (reduced) dim in
which the term is kept, each an affine function of the outer positions. A schedule runs each
row over ``[lo, hi)`` alone, the select's test taken as known there (``KernelBody.assumed``),
so the row is a plain reduction of contiguous reads. The terms left out are the combine's
identity (a float sum's ``-0.0``, or ``0.0`` where the accumulator starts at ``+0.0``: a chain
of round-to-nearest adds from ``+0.0`` is never ``-0.0``, so adding ``0.0`` changes nothing):
the same value, with the row's lanes counted from ``lo`` (``reduction.RowReduction`` with
``first``); a float32 or float64 sum is summed in NumPy's pairwise order over the window
alone (``reduction.PairwiseRow`` with ``first``: NumPy's tree over the kept count), and is not
cut into pieces for threads (pieces are subtrees of the whole row's tree). Any target may use
it; the CPU's schedule does.

An update of a window is the other half (``window_update``): ``data[a:b] /= s`` is, over the
whole axis, ``select(a <= arange(n) < b, data / s, data)``: where the test fails the result
is its input at the same position. Written in that input's own buffer (``host.py`` gives it
when the input dies there), those positions are already right, and the kernel runs over the
box of kept positions alone (``schedule._window_loop``), the test known there.

A bound may also be an integer input read at one element whatever the position (``Input``: a
0-d operand, known only when the kernel runs): ``array.head_sum`` (``x[m].sum()`` of the
compacted selection, ``jitcore/data_length.py``) is ``acc + select(d0 < count, x, -0.0)``, a
window ``[0, count)`` whose terms past the count are never read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from jitcore.ir.affine_tables import affine_form
from jitcore.ir.core import Operation, Value
from jitcore.ir.dialects import array, kernel


@dataclass(frozen=True)
class Input:
    """An integer input the kernel reads at one element whatever the position (its map has
    no dims): a bound known only at run time, as ``array.head_sum``'s count."""

    operand: int


# An affine function of the positions and of such inputs: ({dim or Input: coefficient}, constant).
Affine = tuple[dict, int]

# x >= 0 for x of each test; a test that is false holds its negation.
_AT_LEAST_ZERO = {"sge": (1, 0), "sgt": (1, -1), "sle": (-1, 0), "slt": (-1, -1)}
_NEGATED = {"sge": "slt", "sgt": "sle", "sle": "sgt", "slt": "sge"}
_INTEGER_IDENTITY = {"arith.addi": 0, "arith.ori": 0, "arith.xori": 0, "arith.muli": 1}
_EXTREMES = ("arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui")


@dataclass(frozen=True)
class MaskedRow:
    """The kept terms of each row: ``lowers`` (the innermost position is at least each) and
    ``uppers`` (below each), affine in the outer positions; ``test`` the select's condition
    and ``kept`` its value where the term is kept."""

    test: Value
    kept: bool
    lowers: tuple[Affine, ...]
    uppers: tuple[Affine, ...]


def _constant(v: Value):
    owner = getattr(v, "op", None)
    if owner is None or owner.op_name != "arith.constant":
        return None
    return owner.attributes["value"].value


def _affine(v: Value, inputs: dict[int, Input]) -> Affine | None:
    """``v`` as an affine function of the positions (``kernel.index``) and of ``inputs`` (by
    the id of their body argument), or None."""
    if id(v) in inputs:
        known = inputs[id(v)]
        return ({known: 1}, 0) if isinstance(known, Input) else (dict(known[0]), known[1])
    owner = getattr(v, "op", None)
    if owner is None:
        return None
    if isinstance(owner, kernel.IndexOp):
        return {owner.dim: 1}, 0
    name = owner.op_name
    if name == "arith.constant":
        value = _constant(v)
        return ({}, value) if isinstance(value, int) and not isinstance(value, bool) else None
    if name in ("arith.bitcast", "arith.index_cast", "arith.extsi"):  # (the same integer)
        return _affine(owner.operands[0], inputs)
    if name in ("arith.addi", "arith.subi", "arith.muli"):
        x, y = (_affine(u, inputs) for u in owner.operands)
        if x is None or y is None:
            return None
        if name == "arith.muli":
            if x[0] and y[0]:
                return None
            (f, c), k = (x, y[1]) if not y[0] else (y, x[1])
            return {d: a * k for d, a in f.items()}, c * k
        sign = 1 if name == "arith.addi" else -1
        coefficients = dict(x[0])
        for d, a in y[0].items():
            coefficients[d] = coefficients.get(d, 0) + sign * a
        return coefficients, x[1] + sign * y[1]
    return None


def _holding(test: Value, truth: bool, inputs: dict[int, Input]) -> list[Affine] | None:
    """Affine functions that are all >= 0 exactly where ``test`` is ``truth``, or None."""
    owner = getattr(test, "op", None)
    if owner is None:
        return None
    name = owner.op_name
    if name == "arith.cmpi":
        predicate = owner.attributes["predicate"]
        predicate = predicate if truth else _NEGATED.get(predicate)
        if predicate not in _AT_LEAST_ZERO:
            return None
        x, y = (_affine(u, inputs) for u in owner.operands)
        if x is None or y is None:
            return None
        sign, shift = _AT_LEAST_ZERO[predicate]
        dims = set(x[0]) | set(y[0])
        return [({d: sign * (x[0].get(d, 0) - y[0].get(d, 0)) for d in dims}, sign * (x[1] - y[1]) + shift)]
    if (name, truth) in (("arith.andi", True), ("arith.ori", False)):
        parts = [_holding(u, truth, inputs) for u in owner.operands]
        return None if any(p is None for p in parts) else parts[0] + parts[1]
    if name == "arith.xori":
        for x, y in (owner.operands, owner.operands[::-1]):
            if _constant(y) not in (None, False):  # (an i1's true)
                return _holding(x, not truth, inputs)
    return None


def _is_identity(combine: Operation, value, init) -> bool:
    """Whether ``acc (+) value`` is ``acc`` for every accumulator a row starting at ``init``
    reaches."""
    name = combine.op_name
    if isinstance(value, bool):
        return (name in ("arith.ori", "arith.xori", "arith.addi") and value is False) or \
            (name in ("arith.andi", "arith.muli") and value is True)
    if isinstance(value, int):
        if name in _EXTREMES and value == init:  # (a row's min only falls from its start)
            return True
        return name in _INTEGER_IDENTITY and value == _INTEGER_IDENTITY[name]
    if not isinstance(value, float):
        return False
    if name == "arith.addf":
        return value == 0.0 and (math.copysign(1.0, value) < 0 or
                                 (isinstance(init, float) and init == 0.0 and math.copysign(1.0, init) > 0))
    return (name, value) in (("arith.mulf", 1.0), ("arith.maximumf", -math.inf), ("arith.minimumf", math.inf))


def masked_row(op: kernel.GenericOp) -> MaskedRow | None:
    """The window of kept terms of ``op``'s reduction along its innermost dim (see the
    module's docstring), or None: not one result, not ``acc (+) select(test, ...)`` with the
    identity on one side, or a test that is not affine bounds on the innermost position with
    coefficient 1 or -1."""
    its = op.iterator_types
    if not its or its[-1] != kernel.REDUCTION:
        return None
    inner = len(its) - 1
    select = _masked_select(op)
    if select is None:
        return None
    test = select.operands[0]
    for kept in _kept_sides(op):
        bounds = _holding(test, kept, _invariant_inputs(op))
        if not bounds:
            continue
        lowers, uppers = [], []
        for coefficients, c in bounds:
            a = coefficients.pop(inner, 0)
            outer = {d: k for d, k in coefficients.items() if k}
            if a == 1:  # d + f >= 0: d >= -f
                lowers.append(({d: -k for d, k in outer.items()}, -c))
            elif a == -1:  # f - d >= 0: d < f + 1
                uppers.append((outer, c + 1))
            else:
                break
        else:
            return MaskedRow(test, kept, tuple(lowers), tuple(uppers))
    return None


def _masked_select(op: kernel.GenericOp) -> Operation | None:
    """The ``select`` of a one-result reduction whose body yields ``acc (+) select(...)``."""
    if len(op.results) != 1 or not op.has_reduction or op.scan_dim is not None:
        return None
    acc = op.body.args[len(op.operands)]
    combine = getattr(op.body.terminator.operands[0], "op", None)
    if combine is None or len(combine.operands) != 2 or acc not in combine.operands or len(acc.uses) != 1:
        return None
    term = combine.operands[1] if combine.operands[0] is acc else combine.operands[0]
    select = getattr(term, "op", None)
    if select is None or select.op_name != "arith.select" or len(term.uses) != 1:
        return None
    return select


def _kept_sides(op: kernel.GenericOp) -> list[bool]:
    """The values of the select's test (``_masked_select``) where the term is kept: those
    whose other side is the combine's identity."""
    select = _masked_select(op)
    combine = op.body.terminator.operands[0].op
    init = op.attributes["inits"][0].value
    _, if_true, if_false = select.operands
    return [kept for kept, identity in ((False, if_true), (True, if_false))
            if (value := _constant_of(op, identity)) is not None and _is_identity(combine, value, init)]


def _constant_of(op: kernel.GenericOp, v: Value):
    """``v``'s value where it is one constant at every position: a body constant, or an input
    that is a splat constant or a kernel of no inputs yielding one (a large array of zeros,
    made rather than folded: ``data[a:b].sum()`` over 200,000 elements)."""
    value = _constant(v)
    args = op.body.args
    where = [i for i, a in enumerate(args[:len(op.operands)]) if a is v]
    if value is not None or not where:
        return value
    source = op.operands[where[0]]
    producer = getattr(source, "op", None)
    if isinstance(producer, array.ConstantOp) and producer.value.is_splat:
        value = producer.value.array.reshape(-1)[0].item()
        return bool(value) if isinstance(value, bool) else value
    if (isinstance(producer, kernel.GenericOp) and not producer.operands and len(producer.results) == 1
            and not producer.has_reduction and len(producer.body.ops) == 2):
        return _constant(producer.body.terminator.operands[0])
    return None


@dataclass(frozen=True)
class SelectedRuns:
    """A float sum ``acc + select(test, term, 0.0)`` of ``sum(where=test)`` (the select marked
    ``runs`` by ``primitives.summed_in_runs``), summed as NumPy's masked reduce loop sums it:
    over each run of consecutive kept terms alone, in NumPy's pairwise order, each run's sum
    added to the total in turn (its masked inner loop calls the plain one on every run).
    ``kept``: the test's value where the term is kept; ``half``: the total is rounded to
    float16 after each run (a float16 sum's float32 terms, ``primitives.summed_in_runs``)."""

    test: Value
    kept: bool
    half: bool = False


def selected_runs(op: kernel.GenericOp) -> SelectedRuns | None:
    """The runs of ``op``'s masked float sum along its innermost dim (``SelectedRuns``), or
    None: not one float result ``acc + select(test, ...)`` from ``+0.0`` with ``0.0`` on one
    side, or a test that reads no position of the innermost dim (a guard's, ``row_guard``)
    or is affine bounds (a window's, ``masked_row``)."""
    its = op.iterator_types
    if not its or its[-1] != kernel.REDUCTION or masked_row(op) is not None:
        return None
    select = _masked_select(op)
    if (select is None or not select.attributes.get("runs")
            or op.body.terminator.operands[0].op.op_name != "arith.addf"):
        return None  # (``where(m, x, 0).sum()`` is one sum of every term, as NumPy's)
    init = op.attributes["inits"][0].value
    if not (isinstance(init, float) and init == 0.0 and math.copysign(1.0, init) > 0):
        return None  # (a sum from -0.0, whose masked terms are -0.0, is kept whole)
    sides = _kept_sides(op)
    if len(sides) != 1 or not _reads_inner_dim(op, select.operands[0], len(its) - 1):
        return None
    return SelectedRuns(select.operands[0], sides[0], select.attributes["runs"] == "f16")


def _reads_inner_dim(op: kernel.GenericOp, test: Value, inner: int) -> bool:
    """Whether ``test`` is computed from an input read along dim ``inner`` (not from the
    position itself: a test of positions is a window's)."""
    n_in, args = len(op.operands), op.body.args
    seen, stack = set(), [test]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        k = next((i for i, a in enumerate(args[:n_in]) if a is v), None)
        if k is not None:
            if k not in op.indexed and any(e.dim == inner for e in op.input_maps[k].exprs):
                return True
            continue
        owner = getattr(v, "op", None)
        if owner is None or isinstance(owner, kernel.IndexOp) or owner.regions:
            return False
        stack.extend(owner.operands)
    return False


@dataclass(frozen=True)
class RowGuard:
    """A reduction's test that reads only the positions of dims ``< depth``: where it is not
    ``kept``, every term of the nest below those positions is the combine's identity, so the
    nest there may be skipped (``A[m].sum(axis=0)``: the rows whose mask is false)."""

    test: Value
    kept: bool
    depth: int
    ops: tuple[Operation, ...]  # the body's ops the test is computed from, in order
    inputs: tuple[int, ...]  # the operands they read


def row_guard(op: kernel.GenericOp) -> RowGuard | None:
    """The guard of ``op``'s masked reduction (see ``RowGuard``), or None: not
    ``acc (+) select(test, ...)`` with the identity on one side, or a test that reads every
    dim, an indexed input, a result, or nothing that varies."""
    select = _masked_select(op)
    if select is None or not op.body.ops[:-1] or not (sides := _kept_sides(op)):
        return None
    n_in, maps = len(op.operands), op.input_maps
    args = {id(a): i for i, a in enumerate(op.body.args)}
    cone, inputs, dims = {}, set(), set()
    stack = [select.operands[0]]
    while stack:
        v = stack.pop()
        if id(v) in args:
            i = args[id(v)]
            if i >= n_in or i in op.indexed or i in op.clamped:
                return None
            inputs.add(i)
            dims |= {e.dim for e in maps[i].exprs if e.dim is not None and e.scale}
            continue
        owner = getattr(v, "op", None)
        if owner is None or owner.parent is not op.body or owner.regions:
            return None
        if id(owner) in cone:
            continue
        cone[id(owner)] = owner
        if isinstance(owner, kernel.IndexOp):
            dims.add(owner.dim)
        elif owner.op_name.startswith("kernel."):
            return None  # (an extract, a check that records an error)
        stack.extend(owner.operands)
    depth = max(dims, default=-1) + 1
    if not 0 < depth < len(op.iterator_types):
        return None
    ops = tuple(inner for inner in op.body.ops if id(inner) in cone)
    return RowGuard(select.operands[0], sides[0], depth, ops, tuple(sorted(inputs)))


def _invariant_inputs(op: kernel.GenericOp) -> dict[int, Input | Affine]:
    """The integer inputs of ``op`` read at one element at every position (``Input``), and
    the constant tables whose elements are an affine function of their position (``np.arange``
    in ``start <= arange(n) < stop``, the mask of a slice whose bounds come from the data),
    as that function of the kernel's positions, by the id of their body argument."""
    known: dict[int, Input | Affine] = {}
    for i, (v, m) in enumerate(zip(op.operands, op.input_maps)):
        if i in op.indexed or i in op.clamped or not v.type.element.is_integer:
            continue
        if all(e.dim is None for e in m.exprs):
            known[id(op.body.args[i])] = Input(i)
        elif (table := _table_positions(v, m)) is not None:
            known[id(op.body.args[i])] = table
    return known


def _table_positions(value: Value, input_map) -> Affine | None:
    """The constant ``value``'s element read through ``input_map`` as an affine function of
    the positions, when its elements are one of their own position (``index_tables``)."""
    producer = getattr(value, "op", None)
    if not isinstance(producer, array.ConstantOp) or producer.value.is_splat:
        return None
    form = affine_form(producer.value.array)
    if form is None:
        return None
    c0, steps = form
    coefficients: dict = {}
    for s, e in zip(steps, input_map.exprs):
        c0 += s * e.offset
        if s and e.dim is not None and e.scale:
            coefficients[e.dim] = coefficients.get(e.dim, 0) + s * e.scale
    return coefficients, c0



@dataclass(frozen=True)
class WindowUpdate:
    """A kernel whose one result is its input ``source`` (read at the result's own position)
    wherever ``test`` is not ``kept``: the kept positions are a box, ``lowers[d]`` and
    ``uppers[d]`` the bounds of dim ``d`` (``d >= each lower``, ``d < each upper``; none: the
    whole dim), each affine in inputs read at one element (``Input``) and constants."""

    source: int
    test: Value
    kept: bool
    lowers: tuple[tuple[Affine, ...], ...]
    uppers: tuple[tuple[Affine, ...], ...]


def window_update(op: kernel.GenericOp) -> WindowUpdate | None:
    """The window of ``op``'s update (see the module's docstring), or None: not an elementwise
    kernel (a reduction, a scan, a copy, indexed writes, checks that must run at every point)
    yielding ``select(test, new, x)`` or ``select(test, x, new)`` of an input ``x`` read at
    the result's identity position, or a test that is not a box of affine bounds."""
    its = op.iterator_types
    if (not its or op.has_reduction or op.scan_dim is not None or len(op.results) != 1
            or any(i >= 0 for i in op.copy_inputs) or kernel.checks_indices(op)
            or kernel.runs_in_order(op) or len(op.regions) != 1):
        return None
    yielded = op.body.terminator.operands
    if not yielded:  # (its result is written by inserts: a search's, a sort's)
        return None
    result_map = op.output_maps[0]
    select = getattr(yielded[0], "op", None)
    if select is None or select.op_name != "arith.select" or not result_map.is_identity:
        return None
    test, if_true, if_false = select.operands
    args = op.body.args[:len(op.operands)]
    for kept, old in ((True, if_false), (False, if_true)):
        if old not in args:
            continue
        source = args.index(old)
        value = op.operands[source]
        if (source in op.indexed or source in op.clamped or op.input_maps[source] != result_map
                or value.type != op.results[0].type):
            continue
        bounds = _holding(test, kept, _invariant_inputs(op))
        if not bounds:
            continue
        lowers: list[list[Affine]] = [[] for _ in its]
        uppers: list[list[Affine]] = [[] for _ in its]
        for coefficients, c in bounds:
            dims = [d for d, k in coefficients.items() if k and not isinstance(d, Input)]
            if len(dims) != 1 or coefficients[dims[0]] not in (1, -1):
                break  # a bound on no dim, or on two: not a box
            d = dims[0]
            rest = {x: k for x, k in coefficients.items() if x != d and k}
            if coefficients[d] == 1:  # d + f >= 0: d >= -f
                lowers[d].append(({x: -k for x, k in rest.items()}, -c))
            else:  # f - d >= 0: d < f + 1
                uppers[d].append((rest, c + 1))
        else:
            return WindowUpdate(source, test, kept, tuple(map(tuple, lowers)), tuple(map(tuple, uppers)))
    return None
