"""The type Python would give a value that a traced condition chose (docs/control-flow.md §7).

``1 if x.sum() > 0 else x.mean()`` is the int ``1`` or an ``np.float64`` in Python, chosen by
the data; the compiled code holds one value of the promoted dtype (float64). Next to it, a
traced *tag* (an int8 scalar) says which of the value's possible *kinds* the path taken gave:
a Python type (``int``, ``float``, ``bool``, ``complex``) or a NumPy scalar's dtype. A
``Tracer``'s ``type_choice`` is ``(tag, kinds)``, set only where values of different kinds
merge (``x if c else y``, ``and``/``or``, ``max``/``min``, a traced ``if``, a loop carry), so
code without such merges carries nothing. Branches and loops carry the tag as one more output
or carry (``control_flow``); the function's results and printed values are converted to the
chosen kind when the code runs (``convert``). An operator on such a value is computed for each
combination of its operands' kinds and keeps the choice (``chosen_kind_arithmetic.py``). The
run-time conversion is ``kind_conversion.py`` (it needs no tracer).
"""

from __future__ import annotations

import numpy as np

from jitcore.kind_conversion import array_as, check_one_dtype, own_dtype  # noqa: F401  (callers' names)

TAG = np.dtype(np.int8)
_PYTHON = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


def kind_of(leaf) -> str | None:
    """The type Python shows for ``leaf``: a Python number type's name (``"int"``), a NumPy
    scalar's dtype's (``"np.float32"``; names, since ``np.dtype("float64") == float``), or None
    for an array (0-d arrays included) and anything else."""
    from jitcore.tracer import Tracer

    if isinstance(leaf, Tracer):
        if leaf.ndim:
            return None
        if leaf.weak:
            return _PYTHON[leaf.dtype.kind]
        return f"np.{leaf.dtype.name}" if leaf.scalar else None
    if type(leaf) in (bool, int, float, complex):
        return type(leaf).__name__
    if isinstance(leaf, np.generic) and leaf.dtype.kind in "biufc":
        return f"np.{leaf.dtype.name}"
    return None


def kinds(leaf) -> tuple:
    """The kinds ``leaf`` may have: its chosen ones, its one, or () where it has none."""
    choice = getattr(leaf, "type_choice", None)
    if choice is not None:
        return choice[1]
    kind = kind_of(leaf)
    return () if kind is None else (kind,)


def merge(a: tuple, b: tuple) -> tuple:
    """The kinds of a value that is ``a``'s or ``b``'s (in first-seen order); () where one has
    none (an array: its type is fixed)."""
    if not a or not b:
        return ()
    return tuple(dict.fromkeys(a + b))


def tag(trace, leaf, among: tuple):
    """The int8 tracer (in the current region) that says which of ``among`` ``leaf`` has."""
    from jitcore.primitives import constant

    choice = getattr(leaf, "type_choice", None)
    if choice is None:
        return constant(trace, np.int8(among.index(kind_of(leaf))), TAG)
    own_tag, own = choice
    if own == among:
        return own_tag
    table = constant(trace, np.array([among.index(k) for k in own], TAG), TAG)
    return table[own_tag]


def mark(tracer, tag_tracer, among: tuple):
    """``tracer`` with ``tag_tracer`` saying which of ``among`` it is (nothing for one kind)."""
    if len(among) > 1 and not tracer.ndim:
        tracer.type_choice = (tag_tracer, among)
    return tracer


def joined_tags(first: tuple, then: tuple) -> tuple:
    """``(tags, kinds)`` of two runs of rows one after the other (a list's items whose types
    the data chose, ``autograph.appending``), each ``(tags, kinds)``: renumbered into the kinds
    of both."""
    from jitcore.primitives import concatenate, constant
    from jitcore.tracer import current_trace

    among = merge(first[1], then[1])
    trace = current_trace()
    parts = [t if k == among else constant(trace, np.array([among.index(x) for x in k], TAG))[t]
             for t, k in (first, then)]
    return concatenate(parts, 0), among


# ``python_arithmetic.check_held_exactly``, set when that module loads (it reaches this one
# through control flow, so this one cannot import it): an int past 2**53 held in a float, refused.
check_held_exactly = None


def choose(out, test, a, b):
    """``out`` (``a`` where the traced ``test`` holds, else ``b``, promoted) marked with the
    kind of the side taken, where the sides' kinds differ."""
    among = merge(kinds(a), kinds(b))
    if len(among) < 2:
        return out
    check_held_exactly(a, out.dtype, test)  # (an int64 past 2**53 held in the float: refused)
    check_held_exactly(b, out.dtype, np.logical_not(test))
    trace = out.owner_trace
    return mark(out, np.where(test, tag(trace, a, among), tag(trace, b, among))[()], among)


def carried(old, new):
    """``new`` (a copy of ``old``'s value: a branch's operand) with ``old``'s choice."""
    choice = getattr(old, "type_choice", None)
    if choice is not None and not new.ndim:
        new.type_choice = choice
    return new
