"""A loop that appends to a list, compiled as a loop: ``ys.append(f(x[i]))`` for each step.

A list is a Python object, not a value a traced loop can carry: its length changes every step.
Such a loop ran unrolled, one copy of its body per step (1,000 steps: 13 s to compile, 5,000:
130 s). When the body's only change to Python objects is a fixed number of appends per step,
unconditional (a list the loop's state holds, used in the body only by ``append``), and the
appended values have one shape and dtype, the rows go into an array the loop carries and
writes one row at a time, like a preallocated ``out[i] = v``. After the loop the list holds
those rows (each a row of that array), and ``np.array(ys)`` of it is that array itself
(``primitives.appended_stack``, by ``Trace.appended``): no stack of thousands of operands.

An append under an ``if`` whose condition is traced (``if x[i] > 0: out.append(x[i] * 2)``)
is compiled the same way, with a mask: each step owns the rows of its longest path's appends
(the two branches of an if append from the same row on, ``appending_if``), the branch that
runs writes its rows and marks them kept, and the loop carries rows and marks, as the if does
inside it. The capacity is the trip count times those rows: known when compiling, for a for
loop over a range or an array with no break. After the loop the list is a
``data_length.KeptList``: ``np.array(out)`` the kept rows (compacted when returned), ``len(out)``
their count, ``return out`` a list of them.
"""

from __future__ import annotations

import functools
import gc

import numpy as np

from jitcore import type_choice
from jitcore.data_length import KeptList, positions
from jitcore.dtypes import ir_type, np_dtype
from jitcore.errors import ConcretizationError, JitTypeError, UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.ir.types import TensorType
from jitcore.numpy.everyday import raise_at_first
from jitcore.primitives import (
    as_tracer,
    broadcast_to,
    concatenate,
    constant,
    convert,
    holds_tracer,
    nested_array,
    reshape,
    slice_,
)
from jitcore.tracer import Tracer, current_trace, fresh, make_view, user_location

_NUMBERS = (bool, int, float, complex)


class _Appender:
    """Stands for an appended list in the traced body: each ``append`` writes the next row;
    ``ys[-1]`` is the last row (``last``, carried by the loop) and ``len(ys)`` the items before
    the loop (``before``) and this step's row. With ``kept`` (appends under a traced if, or in
    a loop the data ends) the row is also marked kept; ``in_if`` (appends under a traced if, or
    a list whose items before the loop the data chose): ``ys[-1]`` and ``len(ys)`` are refused,
    the data chooses them."""

    __slots__ = ("name", "rows", "first", "last", "per_step", "kind", "count", "kept", "depth",
                 "in_if", "before", "tags", "among", "offset", "filled", "sequences", "tried")

    def __init__(self, name: str, rows: Tracer, first, last, per_step: int, kind: tuple, kept=None,
                 in_if=None, before=0, tags=None, among=(), offset=0, filled=None):
        self.name, self.rows, self.first, self.last = name, rows, first, last
        # (a growing list, ``_growing``: its items so far are the rows' first ``filled``, a
        # traced count the loop carries; an append writes at it. Else None)
        self.filled = filled
        # (the rows before the loop's own: the list's items before it, where the body reads
        # the list at any position, ``indexed``; else 0, those items kept outside the rows)
        self.offset = offset
        self.per_step, self.kind, self.kept = per_step, kind, kept
        self.in_if = kept is not None if in_if is None else in_if
        self.before = before
        # (items whose Python type a traced condition chose: each row's tag, type_choice.py)
        self.tags, self.among = tags, among
        self.count = 0
        self.depth = current_trace().depth  # (the body's region: see ``_Probe.depth``)
        # (the lists appended as rows, with their items then, checked as the step ends; and
        # those the trial appended, ``tried``: one appended again is no list the step made)
        self.sequences, self.tried = [], ()

    def append(self, value) -> None:
        if type(value) is list:  # (a tuple cannot change: one object at every step is its value)
            if any(value is v for v in self.tried) or any(
                    value is v for v, _ in self.sequences):
                raise UnsupportedError(f"'{self.name}'.append of one list object at every step")
            self.sequences.append((value, tuple(value)))
        kind = _kind(value, self.kept is not None)
        if self.tags is not None and kind is not None and kind[0] == () and kind[3] is True \
                and type_choice.kind_of(value) in self.among:
            kind = self.kind  # (a number of one of the kinds its rows' tags name)
        if self.count == self.per_step or kind != self.kind \
                or not _in_its_region(self):
            raise UnsupportedError(f"'{self.name}'.append: another count or type of rows than "
                                   "one run of the loop's body gave")
        trace = current_trace()
        at = self.offset + self.first + self.count if self.filled is None else self.filled
        self.rows[at] = nested_array(value, self.kind[1]) if isinstance(value, (tuple, list)) \
            else as_tracer(trace, value, self.kind[1])
        if self.kept is not None:
            self.kept[at] = True
        if self.tags is not None and isinstance(self.kind[3], tuple):  # (a row's items' tags)
            self.tags[at] = nested_array([type_choice.tag(trace, x, among) if among else 0
                                          for x, among in zip(value, self.among)], type_choice.TAG)
        elif self.tags is not None:
            self.tags[at] = type_choice.tag(trace, value, self.among)
        if not self.in_if and self.filled is None and not _is_sequence(self.kind):
            self.last = value  # (a growing list's last item is a read; a row of a list none)
        if self.filled is not None:
            self.filled = fresh(self.filled + 1)
        self.count += 1

    def __getitem__(self, key):
        if self.filled is not None and _position(key):
            return self._typed(_read_row(self.name, self.rows, key, self.filled, self.kind), key)
        if isinstance(key, int) and key == -1 and not self.in_if:
            return self.last
        if self.in_if or self.offset != self.before or not _position(key):
            raise UnsupportedError(f"'{self.name}'[{key!r}] in a loop that appends to it"
                                   + (" under a traced if: which item is last depends on the data"
                                      if self.in_if else ""))
        return _read_row(self.name, self.rows, key, self.before + self.first + self.count, self.kind)

    def length(self) -> Tracer:
        """``len(ys)`` in the body: the items before the loop and the rows of the steps so far."""
        if self.filled is not None:
            return fresh(self.filled, scalar=True, weak=True)
        if self.in_if or self.before is None:
            raise _data_chosen(self.name, "len")
        return fresh(as_tracer(current_trace(), self.first + self.count + self.before, np.dtype(np.int64)),
                     scalar=True, weak=True)

    def iterated(self) -> tuple:
        """``for v in ys`` in the body, of a growing list: (its count, its capacity, item i)."""
        if self.filled is None:
            raise UnsupportedError(f"iterating over '{self.name}' in a loop that appends to it")
        return self.filled, self.rows.shape[0], \
            lambda i: self._typed(_item(self.rows, self.kind, i), i)

    def contains(self, value):
        """``value in ys`` in the body, of a growing list of numbers: any item so far equal."""
        if self.filled is None or self.kind[0]:
            raise UnsupportedError(f"'in' of '{self.name}' in a loop that appends to it")
        return _found(self.rows, self.filled, value)

    def _typed(self, item, key):
        """A growing list's item read at ``key`` with its Python type, where the data chose it
        (its row's tag: ``type_choice``)."""
        if self.tags is None:
            return item
        key = as_tracer(current_trace(), key, np.dtype(np.int64)) if not isinstance(key, Tracer) else key
        return type_choice.mark(item, self.tags[np.where(key < 0, key + self.filled, key)], self.among)

    def __iter__(self):  # (Python's iteration by positions would never end: see ``iterated``)
        raise UnsupportedError(f"iterating over '{self.name}' in a loop that appends to it, other "
                               f"than by a for loop (at {user_location()})")

    def __getattr__(self, attr):
        if attr.startswith("__"):  # (Python's own look-ups: ``__dict__``, ``__array__``)
            raise AttributeError(attr)
        raise UnsupportedError(f"'{self.name}'.{attr} in a loop that appends to it")


def _item(rows: Tracer, kind: tuple, i):
    """Row ``i`` of a growing list's rows as its item (``i`` within its count: a for loop's)."""
    shape, _, weak, scalar = kind
    if shape:
        return make_view(rows, lambda b: b[i], functools.partial(_row_written, "the list"))
    return fresh(rows[i], scalar=scalar is True, weak=weak)


def _position(key) -> bool:
    """Is ``key`` one position of a list (a Python int, or a traced integer number)?"""
    if isinstance(key, Tracer):
        return key.ndim == 0 and key.dtype.kind in "iu"
    return isinstance(key, (int, np.integer)) and not isinstance(key, bool)


def _read_row(name: str, rows: Tracer, key, length, kind: tuple):
    """``ys[key]`` of a list whose first ``length`` items are ``rows``' first rows (``length``
    traced: the items before the loop and the rows its steps appended so far): Python's
    negative positions, and its ``IndexError`` for one out of range raised by the call."""
    trace = current_trace()
    key = as_tracer(trace, key, np.dtype(np.int64)) if not isinstance(key, Tracer) \
        else key.astype(np.int64)
    length = as_tracer(trace, length, np.dtype(np.int64))
    raise_at_first((key < -length) | (key >= length), key, kernel.LIST_INDEX)
    index = np.where(key < 0, key + length, key)
    shape, _, weak, scalar = kind
    if shape:  # (an array item: Python's is the list's own, so writes through it are refused)
        return make_view(rows, lambda b: b[index], functools.partial(_row_written, name))
    return fresh(rows[index], scalar=scalar is True, weak=weak)


def _row_written(name: str, base, value):
    raise UnsupportedError(
        f"an array read from '{name}' at a position, in a loop that appends to it, is written (at "
        f"{user_location()}): compiled, the list's items are rows of one array. Copy it first "
        f"(v = {name}[k].copy()) or keep the rows in an array of your own")


class _Probe:
    """Stands for an appended list in the trial run of a loop's body: keeps what is appended
    (``items``), how many rows the step's longest path appends (``count``: the branches of a
    traced if append from the same row, ``appending_if``) and whether one is under a traced
    if (``conditional``)."""

    __slots__ = ("name", "items", "count", "conditional", "last", "depth", "refused", "before", "among",
                 "values", "indexed", "reads", "hint", "guessed", "unknown", "ragged", "sequences")

    def __init__(self, name: str, before):
        self.name, self.items, self.count, self.conditional = name, [], 0, False
        # (the items, before the loop and appended in the trial: read at positions, ``indexed``)
        self.values = list(before) if isinstance(before, list) else None
        self.indexed = False
        # (how the body reads it: "last", "index", "len", "iter"; the rows' kind from a trial
        # before, ``hint``, and the kind a read assumed where no item was known yet, ``guessed``)
        self.reads, self.hint, self.guessed = set(), None, None
        self.unknown = None  # (a count no constant folds: ``opened``)
        self.among = [type_choice.kinds(v) for v in before] if isinstance(before, list) else []
        # (a KeptList: its items and their number the data chose)
        listed = isinstance(before, list)
        self.last = before[-1] if listed and before else None
        self.before = len(before) if listed else None
        # The region appends are traced in: the body's, or a branch's that ``appending_if``
        # traces. One in another region (an if that does not know the list: it appends
        # through a helper or an alias) would run whatever the condition: no kind, so the
        # loop is not compiled so (the statement then refuses the append, as before)
        self.depth = None
        self.refused = None  # a use the compiled list cannot have: the loop's error
        self.ragged = None  # an appended item whose length the data chooses (a selection)
        self.sequences = []  # (the lists appended: ``_Appender.tried``)

    def append(self, value) -> None:
        if not _in_its_region(self):
            self.items.append((None, None))
        if self.ragged is None and _kind(value) is None and getattr(value, "mask", None) is not None:
            self.ragged = value
        if type(value) is list:
            self.sequences.append(value)
        # (kinds, not values: one appended in a branch exists only inside it)
        self.items.append((_kind(value), _kind(value, tuples=True)))
        self.among.append(type_choice.kinds(value))
        if self.values is not None:
            self.values.append(value)
        self.last = value
        self.count += 1

    def __getitem__(self, key):
        if not (isinstance(key, int) and key == -1):
            return self._read(key)
        self.reads.add("last" if self.last is not None else "empty")
        if self.conditional or self.before is None or self.last is None:
            # (empty: ``len(s) == 0 or s[-1] < v`` reads it in the trial; the call raises Python's
            # IndexError where the compiled read is past the count)
            return self._grown_read(key, "[-1]")
        return self.last

    def _read(self, key):
        """``ys[key]`` at any position in the trial: a gather from the items so far, which must
        be of one kind (the compiled loop's rows hold the items before it too, ``offset``)."""
        if not _position(key):
            raise UnsupportedError(f"'{self.name}'[{key!r}] in a loop that appends to it")
        self.reads.add("index")
        # (after a traced if, the items appended in its branches exist only there)
        kinds = set() if self.conditional else {_kind(v) for v in self.values or ()}
        if self.conditional or self.values is None or len(kinds) != 1 or None in kinds:
            return self._grown_read(key, f"[{key!r}]")
        self.indexed = True
        kind = kinds.pop()
        trace = current_trace()
        rows = nested_array(self.values, kind[1]) if holds_tracer(self.values) else \
            constant(trace, np.array(self.values, kind[1]))
        return _read_row(self.name, rows, key, len(self.values), kind)

    def length(self) -> Tracer:
        """``len(ys)`` in the trial run: traced, as the loop's is."""
        self.reads.add("len")
        if self.conditional or self.before is None:
            self._grown_kind("len")
            return self._grown_length()
        return fresh(as_tracer(current_trace(), self.before + self.count, np.dtype(np.int64)),
                     scalar=True, weak=True)

    # -- reads of a list the compiled loop holds as a growing buffer (``_growing``): in the
    # trial only their kind matters, so they read rows of zeros of the list's kind
    def _grown_kind(self, what: str) -> tuple:
        """The kind of the rows a read of a growing list gives: the kind a trial before found
        (``hint``), else of the items so far; where none is known (an empty list read before
        its first append: ``for j in keep``), a Python int's, checked after the trial."""
        if self.before is None:  # (a KeptList before the loop: which items it holds, the data chose)
            self.refused = _data_chosen(self.name, what)
            raise self.refused
        if self.hint is not None:
            return self.hint
        known = [k for k, _ in self.items if k is not None] + [_kind(v) for v in self.values[:self.before]]
        if known:
            return known[0]
        self.guessed = ((), np.dtype(np.int64), True, True)
        return self.guessed

    def opened(self) -> None:
        """At the top of a trial of the body: a count of items before it that no evaluation on
        constants knows (an argument of the trial's block, which is dropped), as the compiled
        loop's carried count is: an inner loop over the list then runs some steps there too."""
        trace = current_trace()
        self.unknown = Tracer(trace.builder.block.add_arg(TensorType((), ir_type(np.dtype(np.int64)))),
                              trace, _data_sources())

    def _grown_length(self) -> Tracer:
        out = fresh(self.unknown + self.count, scalar=True, weak=True)
        out.sources = _data_sources()  # (the data chooses it: an if on it is a traced if)
        return out

    def _zero_rows(self, kind: tuple) -> Tracer:
        shape, dtype = kind[0], kind[1]
        return fresh(broadcast_to(constant(current_trace(), np.zeros((), dtype)),
                                  (self.before + self.count + 1, *shape)))

    def _grown_read(self, key, what: str):
        kind = self._grown_kind(what)
        out = _read_row(self.name, self._zero_rows(kind), key, self._grown_length(), kind)
        if isinstance(out, Tracer):
            out.sources = out.sources | _data_sources()
        return out

    def iterated(self) -> tuple:
        """``for v in ys`` in the trial: as ``_Appender.iterated``, over rows of zeros."""
        self.reads.add("iter")
        kind = self._grown_kind("iterating over it")
        return self._grown_length(), self.before + self.count + 1, \
            functools.partial(_item, self._zero_rows(kind), kind)

    def contains(self, value):
        """``value in ys`` in the trial: as ``_Appender.contains``, over rows of zeros."""
        self.reads.add("in")
        kind = self._grown_kind("'in'")
        if kind[0]:
            raise UnsupportedError(f"'in' of '{self.name}', a list of arrays, in a loop that appends to it")
        return _found(self._zero_rows(kind), self._grown_length(), value)

    def __iter__(self):
        raise UnsupportedError(f"iterating over '{self.name}' in a loop that appends to it, other "
                               f"than by a for loop (at {user_location()})")

    def __getattr__(self, attr):
        if attr.startswith("__"):  # (Python's own look-ups: ``__dict__``, ``__array__``)
            raise AttributeError(attr)
        raise UnsupportedError(f"'{self.name}'.{attr} in a loop that appends to it")


def _found(rows: Tracer, filled: Tracer, value) -> Tracer:
    """Whether an item among the first ``filled`` of ``rows`` equals ``value`` (Python's ``in``
    of numbers: ``==``, so a NaN is never found), a traced Python bool."""
    kept = positions(current_trace(), (rows.shape[0],), 0) < filled
    return fresh(np.any(kept & (rows == value)), scalar=True, weak=True)


class Enumerated:
    """``enumerate(ys)`` of a list in the loop that appends to it: only a for loop iterates it."""

    def __init__(self, appended, start):
        self.appended, self.start = appended, start

    def contains(self, value):
        raise UnsupportedError(f"'in' of enumerate('{self.appended.name}') in a loop that appends to "
                               f"it (at {user_location()}): search the list itself (v in ys)")

    def __iter__(self):
        raise UnsupportedError(f"iterating over enumerate('{self.appended.name}') in a loop that "
                               f"appends to it, other than by a for loop (at {user_location()})")

    def iterated(self) -> tuple:
        count, capacity, item = self.appended.iterated()
        start = self.start
        return count, capacity, lambda i: (fresh(i + start, scalar=True, weak=True), item(i))


def _data_sources() -> frozenset:
    """The sources of the function's arguments' data: what a value the data chooses depends on."""
    return frozenset().union(*(v.sources for v in current_trace().arguments or () if isinstance(v, Tracer)))


def _data_chosen(name: str, what: str) -> UnsupportedError:
    used = f"len({name})" if what == "len" else f"'{name}'{what}"
    instead = ("count them in a variable of its own (k += 1 where you append)" if what == "len"
               else "keep the last kept value in a variable of its own (last = v where you append v)")
    return UnsupportedError(
        f"{used} in a loop that appends to it under a traced if, or after a loop that did so (at "
        f"{user_location()}): which items it holds depends on the data. Instead, {instead}")


def _carried_number(v, sources: frozenset, among: tuple) -> Tracer:
    """A Python number the loop carries, in a trial of its body, as the loop carries it: traced,
    with the ``sources`` of the data the body may change it by (the function's arguments'), of
    the kinds ``among`` a step may give it (``type_choice``: 0.0, then np.float64 once a step
    added x[i] to it)."""
    trace = current_trace()
    if len(among) < 2:
        out = fresh(as_tracer(trace, v, np.asarray(v).dtype), True, True)
    else:
        dtype = np.result_type(*(type_choice.own_dtype(k) for k in among))
        out = type_choice.mark(fresh(as_tracer(trace, v, dtype), True),
                               constant(trace, np.int8(among.index(type_choice.kind_of(v))), type_choice.TAG),
                               among)
    out.sources = sources
    return out


def probe(name: str, before: list) -> _Probe:
    """A stand-in for the list ``name`` in a trial run of a loop's body (``statements._trial``),
    which appends under a traced ``if`` accept as an appending loop's would."""
    return _Probe(name, before)


def appended_in_loop(x) -> bool:
    """Is ``x`` a list as an appending loop's body sees it (``for j in x`` iterates ``iterated``),
    or ``enumerate`` of one?"""
    return isinstance(x, (_Appender, _Probe, Enumerated))


def length_of(x):
    """``len(x)`` of a list an appending loop's body appends to (``expressions._len``), or None
    for any other object."""
    return x.length() if isinstance(x, (_Appender, _Probe)) else None


def _in_its_region(appended) -> bool:
    """Is an append traced in the region its list was given (the loop's body, or a branch of
    a traced if that ``appending_if`` told it of)? One deeper, in an if that does not know the
    list (an append through a helper, an alias, a path), would run whatever the condition."""
    return current_trace().depth == appended.depth


def _kind(v, tuples: bool = False) -> tuple | None:
    """An appended value's (shape, dtype, weak, scalar), or None for one that is no number or
    array (a string): such a list stays Python's. With ``tuples`` (a list the data fills,
    which only ``np.array`` reads) a tuple of numbers is the row ``np.array`` makes; without,
    a list or tuple of numbers is a row whose items come back as they went in (``_sequence``)."""
    if isinstance(v, Tracer):
        return v.shape, v.dtype, v.weak, v.scalar
    if isinstance(v, _NUMBERS):
        return (), np.asarray(v).dtype, True, True
    if isinstance(v, np.generic):
        return (), v.dtype, False, True
    if isinstance(v, np.ndarray):
        return v.shape, v.dtype, False, False
    if tuples and isinstance(v, tuple) and v and all(_kind(x) is not None and not np.shape(x) for x in v):
        return (len(v),), np.result_type(*(_kind(x)[1] for x in v)), False, "tuple"
    if not tuples and type(v) in (list, tuple):
        return _sequence(v)
    return None


def _sequence(v) -> tuple | None:
    """The kind of a list or tuple of numbers appended as a row (``rows.append([d, 2 * d])``):
    shape ``(len,)`` in the dtype ``np.array`` gives the items, and as its ``scalar`` part
    ("sequence", list or tuple, each item's kind), from which the loop's rows are read back
    as the items were after it, with the kinds of each item whose Python type the data chose
    (``type_choice``: ``surplus = 0.0`` on one path, ``sm + d - new`` on the other), read back
    by the tags the loop carries for them. None where a row cannot hold the items exactly (an
    np.int64 in float rows; a float in complex ones)."""
    items = [_kind(x) for x in v]
    if not items or any(k is None or k[0] != () or k[3] is not True for k in items):
        return None
    chosen = tuple(type_choice.kinds(x) if getattr(x, "type_choice", None) is not None else None for x in v)
    if any(among and len({type_choice.own_dtype(k) for k in among}) > 1 for among in chosen):
        return None  # (np.array's dtype of the rows would depend on the data: 1 or 1.5)
    dtype = np.result_type(*(k[1] for k in items))  # (np.array's: a Python float is float64)
    if dtype.kind == "c" and any(k[1].kind != "c" for k in items) or dtype.kind == "f" and any(
            k[1].kind in "iu" and k[1].itemsize >= 8 and not k[2] for k in items):
        return None
    return (len(v),), dtype, False, ("sequence", type(v), tuple(items), chosen if any(chosen) else None)


def _is_sequence(kind) -> bool:
    return kind is not None and isinstance(kind[3], tuple)


def _shown(kind: tuple) -> str:
    shape, dtype, weak, scalar = kind
    if _is_sequence(kind):
        return f"{scalar[1].__name__} of {shape[0]} numbers"
    what = "tuple" if scalar == "tuple" else "Python number" if weak else \
        "NumPy scalar" if scalar else "array"
    return f"{what} of {dtype}" + (f" and shape {shape}" if shape and scalar is not True else "")


def _kinds(after, probes: dict) -> dict | None:
    """{slot: (rows per step, kind, conditional)} from one trial run of the body on the probes
    (``after``: the state after it); None where the loop cannot be compiled so (a name bound
    to something else, no append, rows that vary, items that are no number or array)."""
    found = {}
    for j, probe in probes.items():
        kinds = _numbers({kind[probe.conditional] for kind in probe.items})
        if after[j] is not probe or len(kinds) != 1 or None in kinds:
            return None
        found[j] = probe.count, kinds.pop(), probe.conditional
    return found


def _numbers(kinds: set) -> set:
    """``kinds`` as one where all are numbers (Python's or NumPy's scalars, of any dtype: the
    branches of a traced if append ``v`` or ``0.0``): held in the dtype they promote to (as
    Python's own types, int64 for an int), each row's tag saying which it was. Not where that
    would hold NumPy's 64-bit ints in a float (the appends' refusal then says so)."""
    if len(kinds) < 2 or any(k is None or k[0] != () or k[3] is not True or k[1].kind not in "biufc"
                             for k in kinds):
        return kinds
    held = np.result_type(*(k[1] for k in kinds))
    if held.kind in "fc" and any(k[1].kind in "iu" and k[1].itemsize >= 8 and not k[2] for k in kinds):
        return kinds  # (np.int64 or np.uint64 values held in a float: not exact past 2**53)
    return {((), held, False, True)}


def appending_loop(run_loop, trial, body_fn, values, names, appends, trips: int, long: bool = True,
                   masked: bool = False, test_fn=None):
    """The state after a loop of at most ``trips`` steps whose body appends to the lists
    ``appends`` (names of the state), compiled as a loop: ``run_loop(body, values, names)``
    traces it (a ``fori_loop`` over the range, or a ``while_loop`` where the data may end it
    sooner: ``masked``, each list's rows marked as its appends run) with the lists' rows
    carried as arrays; ``trial(body, state, then)`` runs the body once on ``state``
    (``statements._trial``). None where it cannot be (the appends vary, the loop needs a Python
    int), or where the loop is short (not ``long``) and appends under no traced if: the caller
    then runs the loop as before. ``test_fn``: a ``while`` loop's test, which may read the lists
    (``while ... and len(s) < k``): run in the trial before the body, and given the lists as the
    body is (each it reads a growing list); ``run_loop`` then takes the test as a fourth argument."""
    trace = current_trace()
    slots = [j for j, n in enumerate(names) if n in appends and isinstance(values[j], (list, KeptList))]
    if trace is None or not slots or trips < 1:
        return None
    probes = {j: _Probe(names[j], values[j]) for j in slots}
    failures = []  # what one run of the body with its state traced raised

    def probing(item, *state, numbers=None):
        for probe in probes.values():
            probe.depth = current_trace().depth
            probe.opened()
        if numbers:  # (the loop carries them traced, changed as the data chose: an if on them too)
            data = frozenset().union(*(v.sources for v in (item, *state, *(current_trace().arguments or ()))
                                       if isinstance(v, Tracer)))
            state = [_carried_number(v, data, numbers[j]) if j in numbers else v for j, v in enumerate(state)]
        if test_fn is not None:  # (the lists the test reads: growing, ``_growing``)
            before = {j: set(probe.reads) for j, probe in probes.items()}
            test_fn(*state)
            for j, probe in probes.items():
                if probe.reads != before[j]:
                    probe.reads.add("test")
        try:
            return body_fn(item, *state)
        except Exception as e:  # noqa: BLE001  (the trial gives None: the loop is not compiled so)
            failures.append(e)
            raise

    # A Python number the body changes is traced in the compiled loop: an append under an if
    # on it (if cur > 0: lens.append(cur), cur counted in other steps) is under a traced if
    # there, which a trial on the number as it is before the loop would not meet. Tried so
    # first; as it is where the body needs it a Python number (a shape, x[:k])
    numbers = {j: type_choice.kinds(v) for j, v in enumerate(values) if type(v) in _NUMBERS}
    found, probed = None, probing
    for _ in range(2 if numbers else 0):  # (again where a step changes a number's type: 0.0 + x[i])
        changed: dict = {}

        def settled(after, _, changed=changed):
            for j, among in numbers.items():
                merged = type_choice.merge(among, type_choice.kinds(after[j]))
                if merged and merged != among:
                    changed[j] = merged
            return _kinds(after, probes)

        probed = functools.partial(probing, numbers=numbers)
        found = trial(probed, [probes.get(j, v) for j, v in enumerate(values)], settled)
        if not changed:
            break
        numbers.update(changed)
        found = None
        for j, probe in probes.items():
            probe.__init__(probe.name, values[j])
    if found is None:
        for j, probe in probes.items():
            probe.__init__(probe.name, values[j])
        probed = probing
        found = trial(probing, [probes.get(j, v) for j, v in enumerate(values)],
                      lambda after, _: _kinds(after, probes))
    # a growing list read before its first append (for j in keep) was read as Python ints: again
    # with the rows' kind where the appends gave another
    hints = {j: found[j][1] for j, p in probes.items()
             if found is not None and p.guessed is not None and p.guessed != found[j][1]}
    if hints:
        for j, probe in probes.items():
            probe.__init__(probe.name, values[j])
            probe.hint = hints.get(j)
        found = trial(probed, [probes.get(j, v) for j, v in enumerate(values)],
                      lambda after, _: _kinds(after, probes))
    refused = next((p.refused for p in probes.values() if p.refused is not None), None)
    if refused is not None:
        raise refused
    for probe in probes.values():
        kinds = _numbers({kind[1] for kind in probe.items})
        if probe.conditional and len(kinds) > 1 and None not in kinds:
            raise UnsupportedError(
                f"'{probe.name}' is appended to under a traced if with values of more than one "
                f"type or shape ({', '.join(sorted(_shown(k) for k in kinds))}): compiled, its "
                "rows are one array of one dtype and shape. Append values of one type (float(v), "
                "np.float64(1), arrays of one shape)")
    if found is None or not (long or masked or any(c for _, _, c in found.values())):
        # (what an append under a traced if in the loop, unrolled, then names: the items'
        # lengths, or what the body with its numbers traced raised)
        trace.unappendable.update((id(values[j]), (values[j], names[j], p.ragged, failures[-1:]))
                                  for j, p in probes.items() if p.ragged is not None or failures)
        return None
    # lists or tuples of numbers as rows (rows.append([a, b])): only appended, in a loop of
    # every step (a read in the body, a mark, items before the loop the data chose: unrolled)
    if any(_is_sequence(found[j][1]) and (masked or found[j][2] or probes[j].reads - {"len"}
                                          or isinstance(values[j], KeptList)) for j in slots):
        return None
    # items whose Python type a traced condition chose (x[i] if x[i] > 0 else 0.0): each row's
    # tag says which (type_choice.py), carried as the rows are
    among = {j: functools.reduce(type_choice.merge, p.among) for j, p in probes.items()
             if p.among and all(p.among) and len(functools.reduce(type_choice.merge, p.among)) > 1}
    among.update({j: found[j][1][3][3] for j in slots if _is_sequence(found[j][1]) and found[j][1][3][3]})
    start = {j: values[j] for j in slots}
    chosen = {j for j in slots if isinstance(start[j], KeptList)}  # (items the data chose)
    # lists read at any position (s[t - m]): their rows hold the items before the loop too, of
    # the appended rows' kind, and every step appends alike (no traced if, no break)
    growing = _growing(probes, found, masked, start, chosen, among)
    indexed = {j: len(start[j]) for j, p in probes.items() if p.indexed and j not in growing}
    if any(found[j][2] or masked or j in chosen or j in among
           or any(_kind(v) != found[j][1] for v in start[j]) for j in indexed):
        return None
    # each list's rows, then its last item (ys[-1]: before the loop, the list's own; a zero row
    # where it is empty, which the body then appends before it reads), then the marks of the
    # rows kept of the lists appended under a traced if, then the step
    carried, lasts = list(values), []
    for j, (per_step, (shape, dtype, weak, scalar), _) in found.items():
        zero = constant(trace, np.zeros((), dtype))
        carried[j] = fresh(broadcast_to(zero, (trips * per_step, *shape)))
        if indexed.get(j) or (j in growing and start[j]):
            given = nested_array(start[j], dtype) if holds_tracer(start[j]) else \
                constant(trace, np.array(start[j], dtype))
            carried[j] = fresh(concatenate([given, carried[j]], 0))
        lasts.append(start[j][-1] if j not in chosen and start[j] and not isinstance(scalar, tuple) else
                     fresh(broadcast_to(zero, shape), scalar=scalar is True, weak=weak))
    kept_slots = [j for j in slots if (found[j][2] or masked or j in chosen) and j not in growing]
    marks = [fresh(broadcast_to(constant(trace, np.zeros((), bool)), (trips * found[j][0],)))
             for j in kept_slots]
    tag_slots = list(among)
    tags = [fresh(broadcast_to(constant(trace, np.zeros((), type_choice.TAG)), (  # (a tag per item of a row)
        trips * found[j][0], *(found[j][1][0] if _is_sequence(found[j][1]) else ())))) for j in tag_slots]
    for at, j in enumerate(tag_slots):  # (a growing list's rows hold its items before the loop)
        if j in growing and start[j]:
            given = nested_array([type_choice.tag(trace, v, among[j]) for v in start[j]], type_choice.TAG)
            tags[at] = fresh(concatenate([given, tags[at]], 0))
    grow_slots = sorted(growing)
    lengths = [fresh(as_tracer(trace, len(start[j]), np.dtype(np.int64))) for j in grow_slots]
    carried += [*lasts, *marks, *tags, *lengths, 0]
    n, m, k, t = len(values), len(slots), len(kept_slots), len(tag_slots)

    def body(item, *carry):
        state, lasts, step = list(carry[:n]), carry[n:n + m], carry[-1]
        kept = dict(zip(kept_slots, carry[n + m:n + m + k]))
        tags = dict(zip(tag_slots, carry[n + m + k:n + m + k + t]))
        lengths = dict(zip(grow_slots, carry[n + m + k + t:-1]))
        appenders = {j: _Appender(names[j], state[j], step * found[j][0], last, *found[j][:2], kept.get(j),
                                  found[j][2] or j in chosen, None if j in chosen else len(start[j]),
                                  tags.get(j), among.get(j, ()), indexed.get(j, 0), lengths.get(j))
                     for j, last in zip(slots, lasts)}
        held = _lists_in(state)  # (a list the state holds, appended, is no row the step made)
        for j, a in appenders.items():
            a.tried = probes[j].sequences + held
        state = [appenders.get(j, v) for j, v in enumerate(state)]
        out = list(body_fn(item, *state))
        for j, a in appenders.items():
            if out[j] is not a or a.count != a.per_step:
                raise UnsupportedError(f"'{names[j]}' appended to a varying number of times")
            if any(len(v) != len(items) or any(x is not y for x, y in zip(v, items))
                   for v, items in a.sequences):  # (its row holds the items as they were then)
                raise UnsupportedError(f"a list appended to '{names[j]}' is changed after its append")
            out[j] = a.rows
        return (*out, *(appenders[j].last for j in slots), *(appenders[j].kept for j in kept_slots),
                *(appenders[j].tags for j in tag_slots), *(appenders[j].filled for j in grow_slots), step + 1)

    state_names = (*names, *(f"{names[j]}[-1]" for j in slots), *(f"{names[j]} kept" for j in kept_slots),
                   *(f"{names[j]} types" for j in tag_slots), *(f"len({names[j]})" for j in grow_slots),
                   "__jc_appended_steps")
    def test(*carry):  # (a while loop's: the lists it reads, growing, as the body has them)
        state, tags = list(carry[:n]), dict(zip(tag_slots, carry[n + m + k:n + m + k + t]))
        for j, filled in zip(grow_slots, carry[n + m + k + t:-1]):
            state[j] = _Appender(names[j], state[j], 0, None, *found[j][:2], None, True, None,
                                 tags.get(j), among.get(j, ()), 0, filled)
        return test_fn(*state)

    try:
        out = run_loop(body, tuple(carried), state_names, *([test] if test_fn is not None else []))
    except (ConcretizationError, JitTypeError, UnsupportedError) as e:
        trace.unappendable.update((id(values[j]), (values[j], names[j], None, [e])) for j in slots)
        return None
    marks = dict(zip(kept_slots, out[n + m:n + m + k]))
    tags = {j: (fresh(t), among[j]) for j, t in zip(tag_slots, out[n + m + k:n + m + k + t])}
    lengths = dict(zip(grow_slots, out[n + m + k + t:-1]))
    out = list(out[:n])
    for j in slots:
        rows, (per_step, (shape, dtype, weak, scalar), _) = out[j], found[j]
        rows = fresh(rows)
        if j in lengths:  # (its items: the rows before the count, the loop's after the list's own)
            kept = positions(trace, (rows.shape[0],), 0) < lengths[j]
            out[j] = KeptList(names[j], rows, fresh(kept), _made_of(weak, scalar), tags.get(j))
            out[j].prefix = True
            continue
        if j in marks:
            out[j] = _kept_list(names[j], start[j], rows, marks[j], dtype, weak, scalar, tags.get(j))
            # (each step that ran appended alike, after items all kept: the kept rows lead)
            out[j].prefix = not found[j][2] and j not in chosen
            continue
        offset = indexed.get(j, 0)
        made = _rows(rows, offset, trips * per_step, shape, weak, scalar, tags.get(j))
        if offset:  # (the rows the loop appended: after the items before it)
            rows = slice_(rows, (offset,) + (0,) * len(shape), (1,) * (len(shape) + 1),
                          (trips * per_step, *shape))
        start[j].extend(made)
        choice = tags.get(j)
        if made and isinstance(scalar, tuple):  # (rows of lists: their items as made, checked;
            made, choice = _SequenceRows(made), None  # np.array's dtype the same whatever the tags)
        if made:  # (np.array of the list, or of a copy, finds the rows by their first)
            trace.appended[id(made[0])] = (rows, made, trace.depth, choice)
        out[j] = start[j]
    return tuple(out)


def _lists_in(values, depth: int = 3) -> list:
    """The lists ``values`` hold, in lists, tuples and dicts ``depth`` deep."""
    out = []
    for v in values:
        if type(v) is list:
            out.append(v)
        if depth and isinstance(v, (list, tuple, dict)):
            out += _lists_in(v.values() if isinstance(v, dict) else v, depth - 1)
    return out


def _growing(probes: dict, found: dict, masked: bool, start: dict, chosen: set, among: dict) -> set:
    """The lists the loop holds as growing buffers: read in the body (at a position, its length,
    its last item, iterated, searched by ``in``) where an append is under a traced if; read at a
    position, iterated or searched in a loop the data ends; iterated or searched in any.
    Such a list is its rows (its items before the loop first, then the capacity of the loop's
    appends) and its count, carried: an append writes at the count and adds one, a read is a
    gather below the count. Refused where its rows cannot be one array of the items' kind."""
    out = set()
    for j, p in probes.items():
        if not (found[j][2] and p.reads or masked and p.reads & {"index", "iter", "in"}
                or p.reads & {"iter", "in", "test", "empty"}):  # (a read at a position alone: ``indexed``)
            continue
        kind = found[j][1]
        before = [] if j in chosen else start[j]
        # (items of Python's and NumPy's number types in one dtype: each row's tag says which)
        other = next((v for v in before if _kind(v) != kind and not (
            j in among and _numbers({_kind(v), kind}) == {kind})), None)
        if j in chosen or kind[3] == "tuple" or other is not None:
            why = ("its items are tuples" if kind[3] == "tuple" else
                   f"its items before the loop are {_shown(_kind(other))}, its appends {_shown(kind)}"
                   if other is not None and _kind(other) is not None else
                   "its items are of more than one type")
            raise UnsupportedError(
                f"'{p.name}' is read in the loop that appends to it under a traced if, or in a loop "
                f"the data ends: compiled, it is one array of rows and their count, and {why}. "
                f"Start it with items of its appends' type (float(v), np.float64(v)) and append "
                "values of one type")
        out.add(j)
    return out


def _made_of(weak: bool, scalar) -> str:
    """How a list's items came (``KeptList.made_of``) from its rows' kind."""
    return "tuple" if scalar == "tuple" else "python" if weak and scalar is True else "numpy"


def _kept_list(name: str, before, rows: Tracer, kept: Tracer, dtype, weak: bool, scalar,
               choice=None) -> KeptList:
    """The list after the loop: its items before it (kept rows, first), then the loop's. Before
    it, a ``KeptList`` (an earlier loop's, as an unrolled outer loop runs this one again): its
    rows and marks, which must be rows of the same kind. ``choice``: (each row's tag, the
    kinds they name) where a traced condition chose the items' Python types."""
    made_of = _made_of(weak, scalar)
    if isinstance(before, KeptList):
        if before.made_of != made_of or before.rows.shape[1:] != rows.shape[1:] \
                or before.rows.dtype != rows.dtype or (before.choice is None) != (choice is None):
            raise UnsupportedError(
                f"'{name}' is appended to by two loops that the data ends or that append under "
                f"a traced if, with rows of another type or shape (at {user_location()}): "
                "compiled, its rows are one array of one dtype and shape. Append values of one type")
        rows = concatenate([before.rows, rows], 0)
        kept = concatenate([before.kept, kept], 0)
        if choice is not None:
            choice = type_choice.joined_tags(before.choice, choice)
    elif before:
        trace = current_trace()
        given = nested_array(before, dtype) if holds_tracer(before) else \
            constant(trace, np.array(before, dtype))  # (Python's numbers only: hist = [0.0])
        rows = concatenate([given, rows], 0)
        kept = concatenate([constant(trace, np.ones(len(before), bool)), kept], 0)
        if choice is not None:
            tags, among = choice
            given = nested_array([type_choice.tag(trace, v, among) for v in before], type_choice.TAG)
            choice = concatenate([given, tags], 0), among
    return KeptList(name, rows, kept, made_of, choice)


class _LazyRow(Tracer):
    """A number the loop appended, as the list holds it after the loop: its read from the rows
    is traced where the program first uses it. A list of 200,000 appended numbers whose code
    reads a few of them (``s[n - m + k]``) traced 400,000 reads of rows no one used (33 s of
    tracing, 128 s in all). Its type is the first row's; its value is derived from ``rows``
    at the first use, or, first used inside a loop body or branch, there, once per region."""

    __slots__ = ("_rows", "_at")

    def __init__(self, first: Tracer, rows: Tracer, at: int):
        super().__init__(first._value, first.owner_trace, first.sources, first.weak)
        self.scalar = first.scalar
        self._rows, self._at = rows, at

    @property
    def dtype(self) -> np.dtype:  # (its first row's: np.array(rows) asks each item, reading none)
        return np_dtype(self._value.type.element)

    @property
    def value(self):
        rows = self._rows
        if rows is not None:
            make = functools.partial(_row, rows, self._at, (), self.weak, True)
            trace = self.owner_trace
            if trace.depth > self.level:  # (as a stale view is: the value holds in the region only)
                cached = trace.derived.get(id(self))
                if cached is None or cached[0] is not self:
                    cached = (self, None, make()._value)
                    trace.derived[id(self)] = cached
                return cached[2]
            self._rows = None
            self._value = make()._value
        return Tracer.value.fget(self)


def _rows(rows: Tracer, offset: int, count: int, shape, weak: bool, scalar, choice=None) -> list:
    """The ``count`` rows from ``offset`` on as the list's items: numbers read where they are
    used (``_LazyRow``); arrays, and numbers whose types the data chose, read at once; lists or
    tuples of numbers as such, each item read where it is used."""
    if isinstance(scalar, tuple):
        _, made, kinds, amongs = scalar

        def column(c: int, dtype, weak: bool):
            values = fresh(convert(reshape(slice_(rows, (offset, c), (1, 1), (count, 1)), (count,)), dtype))
            if choice is None or not choice[1][c]:
                return _rows(values, 0, count, (), weak, True)
            tags = reshape(slice_(choice[0], (0, c), (1, 1), (count, 1)), (count,))
            return _rows(values, 0, count, (), weak, True, (tags, choice[1][c]))

        columns = [column(c, dtype, weak) for c, (_, dtype, weak, _) in enumerate(kinds)]
        return [made(items) for items in zip(*columns)]
    if scalar is not True or choice is not None or count < 2:
        return [_row(rows, offset + i, shape, weak, scalar, choice) for i in range(count)]
    first = _row(rows, offset, shape, weak, scalar)
    collecting = gc.isenabled()
    gc.disable()  # (a collection per 700 of these new objects, each over all the heap: 6 s of 8)
    try:
        return [first] + [_LazyRow(first, rows, offset + i) for i in range(1, count)]
    finally:
        if collecting:
            gc.enable()


class _SequenceRows(list):
    """The lists or tuples an appending loop made, as ``Trace.appended`` keeps them, with each
    one's items as made (``items_then``): ``np.array`` of the list is the loop's rows only while
    no row was changed (``rows[0][1] = 5.0`` after the loop: ``primitives.appended_pieces``)."""

    def __init__(self, made: list):
        super().__init__(made)
        self.items_then = [tuple(v) for v in made]


def _row(rows: Tracer, k: int, shape, weak: bool, scalar: bool, choice=None) -> Tracer:
    row = reshape(slice_(rows, (k,) + (0,) * len(shape), (1,) * (len(shape) + 1), (1, *shape)), shape)
    row = fresh(row, scalar=scalar, weak=weak)
    if choice is None:
        return row
    tag = reshape(slice_(choice[0], (k,), (1,), (1,)), ())  # (a slice: no indexing's checks per row)
    return type_choice.mark(row, tag, choice[1])


def appending_if(run_if, then_fn, else_fn, init, names, appends, where: str, pred=None,
                 after_break: bool = False):
    """A traced if whose branches append to the lists ``appends`` (names of its state, each an
    appending loop's ``_Appender`` or trial ``_Probe``): ``run_if(then, else, init, names)``
    traces it with each appender's rows and marks as state in the list's place. Both branches
    append from the row the list is at (only one of them runs), and after the if the list is
    at the longer one's end: a step owns the rows of its longest path. A plain list here has
    no capacity the compiler knows: refused, saying what compiles. A condition on no argument's
    data (``if i % 2 == 0``: traced only as the loop's index is) declines the loop in its trial:
    unrolled, as before, its list stays a Python list that any code can use.

    ``after_break``: the ``if not <break flag>`` that ``lowering`` puts a loop body's statements
    after a ``break`` under: where it fails the loop ends, so its appends are not conditional
    for what the body reads later (``ys[-1]``, carried through the if, and ``len(ys)``)."""
    lists = {j: init[j] for j, name in enumerate(names) if name in appends}
    depth = current_trace().depth
    if lists and all(isinstance(obj, KeptList) and obj.depth == depth for obj in lists.values()):
        return _kept_lists_if(run_if, then_fn, else_fn, init, names, lists, where)
    for j, obj in lists.items():
        if isinstance(obj, _Probe):
            obj.conditional = obj.conditional or not after_break
            if not getattr(pred, "sources", True):
                obj.items.append((None, None))
        elif not (isinstance(obj, _Appender) and (obj.kept is not None or obj.filled is not None)):
            declined = current_trace().unappendable.get(id(obj))
            if declined is not None and declined[0] is obj and declined[2] is not None:
                raise _ragged_items(names[j], where, after_break)
            raise _no_capacity(names[j], where)
    carried = [j for j, obj in lists.items() if isinstance(obj, _Appender)]
    # each appender's rows and marks, and its last item where the body may read it
    parts = {j: ("rows", "filled") if lists[j].filled is not None else ("rows", "kept") if lists[j].in_if
             else ("rows", "kept", "last") for j in carried}
    parts = {j: ps + ("tags",) if lists[j].tags is not None else ps for j, ps in parts.items()}
    keep = [j for j in range(len(names)) if j not in lists]
    first = {j: obj.count for j, obj in lists.items()}
    ends = {j: {} for j in lists}

    def branch(fn, which: int):
        def run(*state):
            full = list(init)
            for j, v in zip(keep, state):
                full[j] = v
            _set_parts(lists, parts, state[len(keep):])
            depths = {j: obj.depth for j, obj in lists.items()}
            for j, obj in lists.items():
                obj.count, obj.depth = first[j], current_trace().depth
            try:
                out = list(fn(*full))
            finally:
                for j, obj in lists.items():
                    obj.depth = depths[j]
            for j, obj in lists.items():
                if out[j] is not obj:
                    raise UnsupportedError(f"'{names[j]}' is appended to and assigned in the if at "
                                           f"{where}, whose condition is traced: append to it only")
                ends[j][which] = obj.count
            return (*(out[j] for j in keep), *_get_parts(lists, parts))
        return run

    state = (*(init[j] for j in keep), *_get_parts(lists, parts))
    state_names = (*(names[j] for j in keep),
                   *(f"{names[j]} {part}" for j, ps in parts.items() for part in ps))
    out = run_if(branch(then_fn, 0), branch(else_fn, 1), state, state_names)
    _set_parts(lists, parts, out[len(keep):])
    for j, obj in lists.items():
        obj.count = max(ends[j].values(), default=first[j])
    result = list(init)
    for j, v in zip(keep, out):
        result[j] = v
    return tuple(result)


class _MoreRows(Exception):
    """A branch appended more rows than its list's spare ones, or items of a Python type its
    rows' tags name none of (``_kept_lists_if``: traced again with more)."""

    def __init__(self, count: int, among: dict):
        super().__init__(count)
        self.count, self.among = count, among


class _KeptGrowth:
    """A list a loop filled (``KeptList``), appended to under a traced if after the loop (the
    last cluster flushed: ``if cur_i >= 0: peaks.append(cur)``), as a branch sees it: its rows
    and marks with ``spare`` more rows, unmarked, after them; an append writes the next spare
    row and marks it kept, so the branch that runs keeps its rows and the other's stay unmarked."""

    __slots__ = ("listed", "rows", "kept", "tags", "among", "given", "first", "spare", "count")

    def __init__(self, listed: KeptList, rows: Tracer, kept: Tracer, tags, among: tuple, spare: int):
        self.listed, self.rows, self.kept, self.tags, self.spare = listed, rows, kept, tags, spare
        # (a list whose items' Python types the data chose: each row's tag names one of ``among``)
        self.among = self.given = among
        self.first, self.count = listed.rows.shape[0], 0

    def append(self, value) -> None:
        if not self.listed._fits(value):
            raise self.listed._kind_refusal(value, "append")
        if self.tags is not None:
            self.among = type_choice.merge(self.among, type_choice.kinds(value))
        if self.count < self.spare and self.among == self.given:
            trace, at, dtype = current_trace(), self.first + self.count, self.rows.dtype
            self.rows[at] = nested_array(value, dtype) if isinstance(value, tuple) \
                else as_tracer(trace, value, dtype)
            self.kept[at] = True
            if self.tags is not None:
                self.tags[at] = type_choice.tag(trace, value, self.given)
        self.count += 1  # (past the spare rows, or a new type: counted, the if traced again)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise UnsupportedError(f"'{self.listed.name}'.{attr} under a traced if that appends to it "
                               f"after the loop that filled it (at {user_location()}): only append")


def _kept_lists_if(run_if, then_fn, else_fn, init, names, lists: dict, where: str):
    """A traced if whose branches append to lists loops filled (``KeptList``s of this region):
    each list's rows grow by the most rows a branch appends, unmarked, the if's state; the
    branch that runs marks its own. The capacity is the loop's rows plus those appends: traced
    once with one spare row, again with as many as a branch appended where that was more."""
    spare, among = 1, {}
    for _ in range(4):
        try:
            return _kept_lists_if_once(run_if, then_fn, else_fn, init, names, lists, where, spare, among)
        except _MoreRows as more:
            spare, among = max(spare, more.count), {**among, **more.among}
    raise _no_capacity(names[next(iter(lists))], where)


def _kept_lists_if_once(run_if, then_fn, else_fn, init, names, lists: dict, where: str, spare: int,
                        among: dict):
    trace = current_trace()
    keep = [j for j in range(len(names)) if j not in lists]
    state, parts = [init[j] for j in keep], {}
    for j, obj in lists.items():
        zero = constant(trace, np.zeros((), obj.rows.dtype))
        state.append(fresh(concatenate([obj.rows, broadcast_to(zero, (spare, *obj.rows.shape[1:]))], 0)))
        unmarked = broadcast_to(constant(trace, np.zeros((), bool)), (spare,))
        state.append(fresh(concatenate([obj.kept, unmarked], 0)))
        parts[j] = ("rows", "kept")
        if obj.choice is not None:
            zero = constant(trace, np.zeros((), type_choice.TAG))
            state.append(fresh(concatenate([obj.choice[0], broadcast_to(zero, (spare,))], 0)))
            parts[j] += ("tags",)
            among.setdefault(j, obj.choice[1])
    state_names = (*(names[j] for j in keep),
                   *(f"{names[j]} {part}" for j, ps in parts.items() for part in ps))

    def branch(fn):
        def run(*values):
            full = list(init)
            for j, v in zip(keep, values):
                full[j] = v
            given = iter(values[len(keep):])
            grown = {j: _KeptGrowth(obj, next(given), next(given),
                                    next(given) if "tags" in parts[j] else None,
                                    among.get(j, ()), spare) for j, obj in lists.items()}
            for j, g in grown.items():
                full[j] = g
            out = list(fn(*full))
            for j, g in grown.items():
                if out[j] is not g:
                    raise UnsupportedError(f"'{names[j]}' is appended to and assigned in the if at "
                                           f"{where}, whose condition is traced: append to it only")
                if g.count > spare or g.among != among.get(j, ()):  # (no raise: a branch's is the user's)
                    more.append(_MoreRows(g.count, {j: g.among} if g.tags is not None else {}))
            return (*(out[j] for j in keep),
                    *(getattr(g, part) for j, g in grown.items() for part in parts[j]))
        return run

    more: list = []
    out = run_if(branch(then_fn), branch(else_fn), tuple(state), state_names)
    if more:  # (this if's results unused: traced again)
        raise _MoreRows(max(m.count for m in more), {k: v for m in more for k, v in m.among.items()})
    result = list(init)
    for j, v in zip(keep, out):
        result[j] = v
    given = iter(out[len(keep):])
    for j, obj in lists.items():
        obj.rows, obj.kept, obj.prefix = fresh(next(given)), fresh(next(given)), False
        if "tags" in parts[j]:
            obj.choice = fresh(next(given)), among[j]
        result[j] = obj
    return tuple(result)


def _get_parts(lists, parts) -> tuple:
    return tuple(getattr(lists[j], part) for j, ps in parts.items() for part in ps)


def _set_parts(lists, parts, values) -> None:
    values = iter(values)
    for j, ps in parts.items():
        for part in ps:
            setattr(lists[j], part, next(values))


def _ragged_items(name: str, where: str, after_break: bool) -> UnsupportedError:
    """The refusal of an append under a traced if in a loop that is not compiled as appending
    because its items have lengths the data chooses (``fronts.append(np.flatnonzero(cur))``
    after ``if not cur.any(): break``)."""
    under = (f"after the break at {where}, whose condition is traced (the statements after a "
             "traced break run only on the steps before it)" if after_break else
             f"under the if at {where}, whose condition is traced")
    return UnsupportedError(
        f"'{name}' is appended to {under}, and each item has a length the data chooses (a "
        f"selection such as x[mask] or np.flatnonzero(mask)): a compiled loop holds its "
        f"appended items as rows of one shape, so this loop runs unrolled, where a list cannot "
        f"grow on some paths only. Keep one array instead: give each element the step that "
        f"selects it (label = np.full(n, -1); label[mask] = step, in the loop), return label, "
        f"and make the list outside the jitted function: [np.flatnonzero(label == s) for s in "
        f"range(label.max() + 1)]")


def _no_capacity(name: str, where: str) -> UnsupportedError:
    return UnsupportedError(
        f"'{name}' is appended to under the if at {where}, whose condition is traced: compiled, "
        "the list needs a capacity known when compiling, which jitcore has for appends in a for "
        "loop over a range or an array (the trip count times the appends of one step) and in a "
        "while loop with an iteration guard (it = 0; while cond and it < max_iter: ...; it += 1), "
        "not outside a loop. Write it in such a loop, or write into an array of the most rows "
        f"and count them ({name} = np.empty(n); "
        f"k = 0; ... {name}[k] = v; k += 1; then {name}[:k]), or use np.where")
