"""Arithmetic on a value whose Python or NumPy scalar type a traced condition chose.

``k = s2 / a if a > 0 else np.inf`` is an ``np.float64`` or a Python ``float``, chosen by the
data (``type_choice.py``); ``n / (n + k)`` is then an ``np.float64`` or a Python ``float`` too,
and ``k * np.float32(2)`` an ``np.float32`` or an ``np.float64``. An operator on such values
is computed once per combination of its operands' kinds, each operand taken as that kind (its
held value converted to the kind's dtype, exactly: the held value is the kind's value on the
path that chose it, ``type_choice``), by the operator's own code, so every combination has
NumPy's and Python's type and bits. Combinations that compute the same number (the same
operands' values, the same dtype: ``np.float64 + 1`` and ``float + 1``) share one value; the
result holds the combination taken (a select on the operands' tags) in the results' promotion,
tagged with its kind where the combinations' kinds differ. As ``chosen_dtype.py`` does for
arrays, the choice is carried, never dropped into the promotion.

Python's errors (``1.0 / k`` of a Python ``0.0``: ZeroDivisionError; an int that overflows
int64) are raised only where the combination that raises them is the one the data took
(``python_arithmetic.only_where``).
"""

from __future__ import annotations

import itertools

import numpy as np

from jitcore import primitives as prims
from jitcore import python_arithmetic, type_choice
from jitcore.kind_conversion import own_dtype
from jitcore.tracer import Tracer, fresh


def _chosen(x) -> bool:
    return isinstance(x, Tracer) and x.ndim == 0 and x.type_choice is not None


def chosen(*operands) -> bool:
    """Whether an operand carries a choice of kinds."""
    return any(map(_chosen, operands))


def _as_kind(x: Tracer, kind: str) -> Tracer:
    """``x``'s held value as a value of ``kind``: a Python number is weak, a NumPy scalar not."""
    dtype = own_dtype(kind)
    if x.dtype.kind == "c" and dtype.kind != "c":  # a real value held complex (real_or_complex)
        x = np.real(x)
    held = x if x.dtype == dtype else prims.convert(x, dtype)
    return fresh(held, scalar=True, weak=not kind.startswith("np."))


def apply(compute, *operands):
    """``compute(*operands)`` with NumPy's and Python's type and bits for whichever kinds the
    data chose for the operands that carry a choice; None where none does (or where a
    combination gives something other than a number: the caller computes it as before)."""
    chosen = [i for i, x in enumerate(operands) if _chosen(x)]
    if not chosen:
        return None
    trace = operands[chosen[0]].owner_trace
    kinds = [operands[i].type_choice[1] for i in chosen]
    tags = [operands[i].type_choice[0] for i in chosen]
    # the combination taken, as an index into itertools.product's order (the last fastest)
    index = None
    for tag, among in zip(tags, kinds):
        tag = prims.convert(tag, np.dtype(np.int64))
        index = tag if index is None else prims.ufunc(np.add, index * len(among), tag)
    results, keys, converted = [], [], []
    for n, combination in enumerate(itertools.product(*kinds)):
        args = list(operands)
        for i, kind in zip(chosen, combination):
            args[i] = _as_kind(operands[i], kind)
        with python_arithmetic.only_where(prims.ufunc(np.equal, index, n)):
            out = compute(*args)
        if not isinstance(out, Tracer) or out.ndim or type_choice.kind_of(out) is None:
            return None
        results.append(out)
        # the same operands' values in the same dtype: the same number (only the kind differs).
        # An int or bool held in a float computed in that float is its held value back (it was
        # exact there), so ``s = 0`` then ``s + x[i]`` computes one sum, not one per kind.
        keys.append((tuple(id(_same_number(operands[i], args[i], out).value) for i in chosen), out.dtype))
        converted.append(any(args[i].value is not operands[i].value for i in chosen))
    among = tuple(dict.fromkeys(type_choice.kind_of(r) for r in results))
    dtype = np.result_type(*(r.dtype for r in results))
    groups = dict.fromkeys(keys)  # first-seen order; each key's first result is its value
    value = None
    for key in reversed(list(groups)):
        members = [n for n, k in enumerate(keys) if k == key]
        first = next((n for n in members if not converted[n]), members[0])  # fewest conversions
        taken = [prims.ufunc(np.equal, index, n) for n, k in enumerate(keys) if k == key]
        # (an int64 past 2**53, s * 2 of an int the choice held, put in the float: refused)
        python_arithmetic.check_held_exactly(results[first], dtype, _any(taken))
        held = prims.convert(results[first], dtype) if results[first].dtype != dtype else results[first]
        if value is None:
            value = held
            continue
        value = prims.where(_any(taken), held, value)
        value = value if value.dtype == dtype else prims.convert(value, dtype)  # (Python bools)
    out = fresh(value, scalar=True, weak=all(r.weak for r in results))
    if len(among) == 1:
        return out
    table = prims.constant(trace, np.array([among.index(type_choice.kind_of(r)) for r in results],
                                           type_choice.TAG), type_choice.TAG)
    return type_choice.mark(out, table[index], among)


def _any(tests: list) -> Tracer:
    out = tests[0]
    for t in tests[1:]:
        out = prims.ufunc(np.bitwise_or, out, t)
    return out


def _same_number(held: Tracer, taken: Tracer, out: Tracer) -> Tracer:
    """``held`` where computing with ``taken`` (``held`` as a kind) gives the number computing
    with ``held`` does: an integer or bool kind held exactly in a float, the result that float."""
    if taken.value is held.value or held.dtype.kind != "f" or taken.dtype.kind not in "biu":
        return taken
    return held if out.dtype == held.dtype else taken
