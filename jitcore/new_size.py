"""A new size without the pass pipeline: the optimized program of another size, resized.

A size-generic function's new size traces again (``size_generic.py``), and then ran the
whole pass pipeline on a program that, most often, differs from an earlier size's only in
its extents. Here the trace is compared with the earlier sizes' traces with every *symbol*
abstracted: an extent of an argument above ``MIN_SYMBOL`` (``host.size_symbols``' extents,
less the small ones), numbered in the order the arguments' shapes name them, and every number
of the program (a type's dim, an attribute, a constant) equal to one. Equal abstract texts
mean that the new trace *is* the old one with each symbol's value replaced by the new value:
whatever the Python function did with the sizes (``len(x)``, a branch, ``x[:-1]``), it left
either the symbol itself, which is replaced, or a number that is the same at both sizes, or
the texts differ and the pipeline runs as before. No fact about the trace is assumed.

What is assumed is of the passes: that on a program that differs only by its symbols' values,
they make the same rewrites with those values replaced. The passes choose nothing by an
extent's magnitude (no threshold on a size: checked by ``tests/jitcore/
test_new_size_dispatch_49.py``, which runs the pipeline too and compares), so the guard
refuses what could break it anyway, conservatively:

- a trace with an op outside the audited dialect modules (``_TRACED_MODULES``: elementwise,
  reductions and scans, shapes, indexing, products, ``scf`` control flow; not sorts, linear
  algebra decompositions, callbacks, raises, random draws), or with no symbol;
- an optimized program holding a number the trace did not hold, unless it is small
  (``|v| <= MIN_SYMBOL``), not finite, or a dtype's bound (a reduction's identity): a
  number the passes computed from a size (``n - 1`` for a reversed read, a clip's bound)
  is not the symbol and would not be resized;
- a symbol's value among an op's operand positions (``indexed``, ``fills``, ``result``), or
  in a constant of more than one element (only a 0-d constant's number is a symbol).

Hit: the earlier size's optimized module, cloned with the symbols' new values in its types
and attributes, verified when the options verify, goes on to the plan and the LLVM IR as any
optimized module does: the LLVM text still decides whether machine code is reused. Counted in
``cache_info().resized``. See "A new size without a new trace (dispatch49)" in
docs/performance.md.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from jitcore.codegen.extent_guards import is_extent
from jitcore.ir.attributes import AffineExpr, AffineMap, DenseAttr, ScalarAttr, SymbolRef
from jitcore.ir.types import FunctionType, TensorType

# Set by tests: each resized program is compared with the pipeline's own (``check``).
CHECK = False
# Extents above this are symbols; smaller ones stay numbers the abstract text must match.
MIN_SYMBOL = 16
# Optimized programs a jitted function remembers, by their trace's abstract text.
KEPT = 16
# The dialect modules whose traced ops the guard accepts.
_TRACED_MODULES = frozenset(f"jitcore.ir.dialects.{name}" for name in (
    "array.elementwise", "array.reduce", "array.shape", "array.index", "array.linalg",
    "array.base", "func", "scf", "arith", "math", "builtin"))
# The attribute numbers that may hold a size (a bool is a flag, never one).
_NUMBERS = (int, float, np.integer, np.floating)
# Attributes that hold operand positions, never extents.
_POSITIONS = frozenset({"indexed", "fills", "result"})
# Numbers the passes add that no size makes: the dtypes' bounds (reductions' identities).
_BOUNDS = frozenset(float(v) for t in ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")
                    for v in (np.iinfo(t).min, np.iinfo(t).max)) | frozenset(
    float(s * np.finfo(t).max) for t in ("f2", "f4", "f8") for s in (1, -1))
_BOUND_VALUES = np.array(sorted(_BOUNDS))


def symbols_of(module) -> tuple[int, ...] | None:
    """The module's symbols, in the order its function's arguments name them; None where the
    function has none (nothing to resize) or its module has no single function."""
    funcs = module.functions()
    if len(funcs) != 1:
        return None
    symbols: list[int] = []
    for arg in funcs[0].body.args:
        for n in getattr(arg.type, "shape", ()):
            if n > MIN_SYMBOL and n not in symbols:
                symbols.append(n)
    return tuple(symbols) or None


def abstract_key(module, symbols: tuple[int, ...]) -> tuple | None:
    """The module as a hashable tuple with each symbol's value replaced by its position;
    None where an op's dialect module is not one the guard accepts."""
    slots = {v: ("$", i) for i, v in enumerate(symbols)}
    numbering: dict = {}
    out = []
    for op in module.walk():
        if type(op).__module__ not in _TRACED_MODULES:
            return None
        for result in op.results:
            numbering[result] = len(numbering)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    numbering[arg] = len(numbering)
        out.append((op.op_name, tuple(numbering.get(v, -1) for v in op.operands),
                    tuple(_abstract(t, slots) for t in op.result_types),
                    tuple((k, _abstract(a, slots)) for k, a in sorted(op.attributes.items())),
                    tuple(tuple(tuple(_abstract(a.type, slots) for a in b.args) for b in r.blocks)
                          for r in op.regions)))
    return tuple(out)


def _abstract(value, slots):
    """``value`` (a type or an attribute) with the symbols' values as their slots."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, SymbolRef)):
        return value
    if isinstance(value, _NUMBERS):
        return _slot(value, slots)
    if isinstance(value, TensorType):
        return ("T", tuple(_slot(d, slots) for d in value.shape), value.element.name)
    if isinstance(value, (tuple, list)):
        return tuple(_abstract(v, slots) for v in value)
    if isinstance(value, ScalarAttr):
        return ("S", _abstract(value.value, slots), value.type.name)
    if isinstance(value, DenseAttr):
        if value.array.size == 1 and value.array.dtype.kind in "iuf":  # a 0-d constant: n itself?
            return ("D", _abstract(value.type, slots), value.array.dtype.str,
                    _abstract(value.array.reshape(-1)[0].item(), slots))
        return ("D", _abstract(value.type, slots), *value.key()[1:])  # (a splat's bytes once)
    if isinstance(value, AffineMap):
        return ("M", value.num_dims, tuple((e.dim, _abstract(e.scale, slots), _abstract(e.offset, slots))
                                           for e in value.exprs))
    if isinstance(value, FunctionType):
        return ("F", tuple(_abstract(t, slots) for t in value.inputs),
                tuple(_abstract(t, slots) for t in value.results))
    return value  # a scalar type, or another hashable attribute: compared as it is


def _slot(n, slots):
    """A number's slot where it is a symbol's value (the central check: any other number,
    ``n - 1`` included, stays itself, so a trace that holds it matches only that number)."""
    if n in slots and float(n).is_integer():
        return slots[n]
    return n


class _Numbers:
    """A program's numbers: ``scalars`` (a set of floats: dims, attributes' numbers) and
    ``tables``, the values of each constant of several elements as a float64 array.
    A table stays an array: its values added one by one as Python floats took seconds where
    a program holds large constants (an FFT's tables of 2^19 roots: 4.5 s of a 10 s compile,
    neuro53), and the check against them is a vectorized membership test."""

    def __init__(self):
        self.scalars: set = set()
        self.tables: list = []
        self.arrays: set = set()  # ids of the constants' arrays whose values ``tables`` holds


def _numbers(value, into: _Numbers) -> None:
    """Add the numbers ``value`` holds (dims, attributes' numbers) to ``into``."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, SymbolRef)):
        return
    if isinstance(value, _NUMBERS):
        into.scalars.add(float(value))
    elif isinstance(value, TensorType):
        into.scalars.update(float(d) for d in value.shape)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _numbers(v, into)
    elif isinstance(value, ScalarAttr):
        v = value.value
        into.scalars.add(float(v.real) if isinstance(v, complex) else float(v))
        if isinstance(v, complex):
            into.scalars.add(float(v.imag))
    elif isinstance(value, DenseAttr):
        _numbers(value.type, into)
        flat = value.array.reshape(-1)[:1] if value.is_splat else value.array.reshape(-1)
        if flat.dtype.kind == "c":
            flat = np.concatenate([flat.real, flat.imag])
        flat = flat.astype(np.float64)
        if flat.size == 1:
            into.scalars.add(float(flat[0]))
        elif id(value.array) not in into.arrays:  # (the passes keep most constants as they were)
            into.arrays.add(id(value.array))
            into.tables.append(flat)
    elif isinstance(value, AffineMap):
        for e in value.exprs:
            into.scalars.update((float(e.scale), float(e.offset)))
    elif isinstance(value, FunctionType):
        for t in (*value.inputs, *value.results):
            _numbers(t, into)


def numbers_of(module, known: _Numbers | None = None) -> _Numbers:
    """Every number of ``module``'s types and attributes, as floats; less the tables of the
    constants whose arrays ``known`` (another module's numbers) holds already."""
    into = _Numbers()
    if known is not None:
        into.arrays = set(known.arrays)
    for op in module.walk():
        for t in op.result_types:
            _numbers(t, into)
        for a in op.attributes.values():
            _numbers(a, into)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    _numbers(arg.type, into)
    return into


def _new_numbers(traced: _Numbers, optimized: _Numbers, symbols) -> np.ndarray:
    """The numbers of ``optimized`` that neither ``traced`` nor ``symbols`` holds. Most often
    a few scalars are left to look up in the trace's tables: compared one by one, a pass over
    each table, where sorting the tables took longer than the rest of the check."""
    known_scalars = traced.scalars | {float(s) for s in symbols}
    scalars = optimized.scalars - known_scalars
    candidates = np.unique(np.concatenate([np.fromiter(scalars, np.float64, len(scalars)),
                                           *optimized.tables]))
    candidates = candidates[~np.isin(candidates, np.fromiter(known_scalars, np.float64,
                                                             len(known_scalars)))]
    for table in traced.tables:
        if not candidates.size:
            break
        if candidates.size <= 16:
            held = np.array([(table == c).any() for c in candidates], dtype=bool)
        else:
            held = np.isin(candidates, table)
        candidates = candidates[~held]
    return candidates


def resizable(traced, optimized, symbols: tuple[int, ...]) -> bool:
    """Whether ``optimized`` holds no number the passes could have computed from a size: each
    of its numbers is a symbol, the trace's own, small, not finite, or a dtype's bound; and no
    operand position equals a symbol."""
    held = numbers_of(traced)
    new = _new_numbers(held, numbers_of(optimized, held), symbols)
    new = new[np.isfinite(new) & (np.abs(new) > MIN_SYMBOL)]
    if new.size and not np.isin(new, _BOUND_VALUES).all():
        return False
    chosen = set(symbols)
    for op in optimized.walk():
        for name, held in op.attributes.items():
            if name in _POSITIONS and chosen & set(held if isinstance(held, (tuple, list)) else (held,)):
                return False
            # a table the passes made (or kept) holding a symbol: resized only as a 0-d constant
            if isinstance(held, DenseAttr) and held.array.size > 1 and held.array.dtype.kind in "iuf" \
                    and np.isin(held.array, list(chosen)).any():
                return False
    return True


def resized(optimized, old: tuple[int, ...], new):
    """A copy of ``optimized`` with each symbol's old value replaced by its new one, in every
    type and attribute (operand positions aside). ``new`` may hold Extents
    (``codegen/extent_guards.py``: the program an emission's guards are recorded on): None
    where a symbol's value sits where one cannot (a float, an array's element), so that no
    size reaches the emitter unrecorded."""
    mapping = dict(zip(old, new))
    copy = optimized.clone({})
    try:
        for op in copy.walk():
            for result in op.results:
                result.type = _resize(result.type, mapping)
            op.attributes = {k: a if k in _POSITIONS else _resize(a, mapping)
                             for k, a in op.attributes.items()}
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        arg.type = _resize(arg.type, mapping)
    except _NoExtent:
        return None
    return copy


class _NoExtent(Exception):
    """A symbol's value where an Extent cannot stand in for it."""


def _resize(value, mapping):
    if isinstance(value, bool) or value is None or isinstance(value, (str, SymbolRef)):
        return value
    if isinstance(value, _NUMBERS):  # an int stays an int, a float a float (NumPy's too)
        if float(value).is_integer() and value in mapping:
            new = mapping[value]
            if is_extent(new):
                if type(value) is not int:
                    raise _NoExtent
                return new
            return type(value)(new)
        return value
    if isinstance(value, TensorType):
        return TensorType(tuple(mapping.get(d, d) for d in value.shape), value.element)
    if isinstance(value, tuple):
        return tuple(_resize(v, mapping) for v in value)
    if isinstance(value, list):
        return [_resize(v, mapping) for v in value]
    if isinstance(value, ScalarAttr):
        v = value.value
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return ScalarAttr(_resize(v, mapping), value.type)
        return value
    if isinstance(value, DenseAttr):
        array = value.array
        if array.size == 1 and array.dtype.kind in "iuf":  # abstracted as a number
            number = array.reshape(-1)[0].item()
            if float(number).is_integer() and number in mapping and is_extent(mapping[number]):
                raise _NoExtent  # (an array holds no Extent)
            array = np.full_like(array, _resize(number, mapping))  # (swaps too)
        return DenseAttr(array, _resize(value.type, mapping))
    if isinstance(value, AffineMap):
        return AffineMap(value.num_dims, tuple(AffineExpr(e.dim, _resize(e.scale, mapping),
                                                          _resize(e.offset, mapping))
                                               for e in value.exprs))
    if isinstance(value, FunctionType):
        return FunctionType(tuple(_resize(t, mapping) for t in value.inputs),
                            tuple(_resize(t, mapping) for t in value.results))
    return value


def check(resized_module, optimized) -> None:
    """Raise where the resized program is not the text the pass pipeline gives (``CHECK``)."""
    from jitcore.ir.printer import print_op

    got, expected = print_op(resized_module), print_op(optimized)
    if got != expected:
        raise AssertionError(f"a resized program differs from the pipeline's:\n{got}\n"
                             f"-- the pipeline's --\n{expected}")


class Memo:
    """A jitted function's optimized programs by their trace's abstract text (and the symbols
    they were optimized at), the most recent ``KEPT``."""

    def __init__(self, companion=tuple):
        self._entries: OrderedDict = OrderedDict()
        self._companion = companion  # what is kept beside each program (its emissions' templates)

    def lookup(self, traced):
        """The optimized module for ``traced``, resized from an earlier size, and the key to
        remember the pipeline's result by where there is none (both None: not resizable).
        A third item, where resized: what the emission's guards need (``Resize``)."""
        symbols = symbols_of(traced)
        if symbols is None:
            return None, None, None
        key = abstract_key(traced, symbols)
        if key is None:
            return None, None, None
        found = self._entries.get(key)
        if found is None:
            return None, (key, symbols), None
        old, optimized, emissions = found
        self._entries.move_to_end(key)
        if old == symbols:
            return optimized.clone({}), None, None
        return resized(optimized, old, symbols), None, Resize(emissions, optimized, old, symbols)

    def remember(self, handle, traced, optimized) -> None:
        """Keep ``optimized`` for later sizes of ``traced``'s abstract text, when the guard
        allows (``resizable``); ``handle``: what ``lookup`` gave."""
        if handle is None:
            return
        key, symbols = handle
        if not resizable(traced, optimized, symbols):
            return
        self._entries[key] = (symbols, optimized.clone({}), self._companion())
        while len(self._entries) > KEPT:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()


class Resize:
    """A resized program's origin: the stored program, its symbols and the new ones, and the
    emissions kept for it (``jitcore/emission_reuse.py``)."""

    __slots__ = ("emissions", "stored", "old", "new")

    def __init__(self, emissions, stored, old, new):
        self.emissions, self.stored, self.old, self.new = emissions, stored, old, new
