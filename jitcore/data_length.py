"""Results whose length the data chooses (``return x[x > 0]``, ``np.nonzero``, ``np.unique``),
compiled as a compaction at the return boundary.

Inside the function such a value is a ``masked.MaskedSelection``: values and a traced mask,
which elementwise ops and reductions use as they are. Only when it is returned does it need a
length: the compiled code then writes the selected rows, in order, to the front of a buffer as
long as the mask (the most it can select, known from the input shapes) and the count to an
extra 0-d output; ``dispatch.Executable`` returns the first ``count`` rows
(``dispatch.data_length_trim``).

The compaction is one op, ``array.compact`` (the mask, its count, the rows): one pass writing
each kept row at the running count (``passes/kernelize/compact.py``), a scalar loop whose trip
count is the mask's length, so a second call at another size reuses the machine code. Index
results (``Positions``: ``nonzero``, ``flatnonzero``, ``argwhere``) compact no index array: the
op without rows gives the kept elements' flat positions, unravelled per dim.
"""

from __future__ import annotations

import numpy as np

from jitcore import chosen_dtype, type_choice
from jitcore import primitives as prims
from jitcore.errors import UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.ir.dialects.kernel import STACK_OF_EMPTY
from jitcore.masked import MaskedSelection
from jitcore.python_arithmetic import raise_when
from jitcore.tracer import Tracer, as_scalar, current_trace, fresh, needs_static, user_location

_PYTHON_NAMES = {"b": "bool", "i": "int", "f": "float", "c": "complex"}


def _python_kind(v) -> str | None:
    """The dtype kind of a Python number (or of a traced one, weakly typed), else None."""
    if type(v) in (bool, int, float, complex):
        return {bool: "b", int: "i", float: "f", complex: "c"}[type(v)]
    if isinstance(v, Tracer) and v.weak and not v.ndim:
        return v.dtype.kind
    return None


def _dtype_of(v) -> np.dtype:
    return v.dtype if hasattr(v, "dtype") else np.array(v).dtype


def _described(v) -> str:
    kind = _python_kind(v)
    if kind is not None:
        return f"a Python {_PYTHON_NAMES[kind]}"
    if hasattr(v, "dtype"):
        return f"a value of dtype {v.dtype} and shape {np.shape(v)}"
    return f"a {type(v).__name__}"


class Positions(MaskedSelection):
    """The positions of the elements where ``mask`` holds, as ``nonzero`` gives them: ``at``
    says which (a dim of the mask: each kept element's index along it; ``ROWS``: all of them,
    one row each, as ``argwhere``). ``values`` are those indices for every element, which
    elementwise ops and reductions use as any selection's (their result is a plain selection);
    returned as they are, only the kept elements' flat positions are compacted and the indices
    computed from them (no array of every element's index is written)."""

    __slots__ = ("at",)

    def __init__(self, values: Tracer, mask: Tracer, factors: tuple | None = None, at=None):
        super().__init__(values, mask, factors)
        self.at = at

    def _bincount(self, weights=None, minlength=0):
        """``np.bincount(np.nonzero(m)[d], minlength=k)`` for ``k`` at least ``m.shape[d]``: how
        many elements ``m`` keeps at each index along ``d``, its sum over the other dims,
        zeros past ``m.shape[d]`` (no value reaches them). Counted as a selection, each
        element's index went through a scatter-add: 2e5 x 50 raster, bincount of the neuron
        ids 150 ms after nonzero's 120, NumPy's 5 (neuro53)."""
        length = self.values.shape[self.at] if isinstance(self.at, int) else None
        if weights is not None or length is None or type(minlength) is not int or minlength < length:
            return super()._bincount(weights, minlength)
        others = tuple(d for d in range(self.values.ndim) if d != self.at)
        counts = prims.reduction("sum", self._where(), others, False, np.intp)
        if minlength > length:
            zeros = prims.constant(current_trace(), np.zeros(minlength - length, np.intp))
            counts = prims.concatenate([counts, zeros])
        return counts


def positions(trace, shape: tuple[int, ...], axis: int) -> Tracer:
    """Each element's index along ``axis``, an intp array of ``shape``: a sum of ones along it
    (no constant of the size, as np.arange would be, so that other sizes reuse the code)."""
    ones = prims.broadcast_to(prims.constant(trace, np.ones((), np.intp)), shape)
    return np.cumsum(ones, axis=axis) - 1


class ListSelection(MaskedSelection):
    """``np.array(out)`` of a ``KeptList``: where nothing was kept NumPy's result is
    ``np.array([])``, float64 of shape (0,) whatever the items (``empty`` "array"; "typed" with
    a dtype given: of that dtype). An op on it is a plain selection (the rows' own dtype)."""

    __slots__ = ("empty",)

    def __init__(self, values: Tracer, mask: Tracer, empty: str):
        super().__init__(values, mask)
        self.empty = empty

    def _like(self, values: Tracer) -> MaskedSelection:
        out = MaskedSelection(values, self.mask, self.factors)
        out.described = self.described  # (its refusals still name np.array(out))
        return out


# The kind (``type_choice.kind_of``) of a row of a list made of Python numbers or NumPy scalars
_ROW_KIND = {"python": lambda dtype: _PYTHON_NAMES[dtype.kind], "numpy": lambda dtype: f"np.{dtype.name}"}


def _buffer_advice(name: str) -> str:
    """What to write instead of an array of a list's data-chosen length (an episode's rewards)."""
    return (f"Reduce it at once (np.array({name}).sum(), .max(), len({name})), loop over it "
            f"(for r in reversed({name}): ...), or return it. For an array of it to fill "
            f"(returns, advantages), fill a buffer of the loop's bound and count the items: "
            f"buf = np.zeros(max_T); k = 0; in the loop buf[k] = r; k += 1; after it "
            f"out = np.zeros(max_T); for t in range(k - 1, -1, -1): out[t] = ...; return out[:k]")


class KeptList:
    """A list appended to under a traced ``if`` in a compiled loop, or in a loop the data ends
    (a ``for`` that breaks, a guarded ``while``: ``autograph.appending``):
    a buffer of every row the loop could append (its capacity: the trip count times the
    appends of one step's longest path) and the mask of those it did. ``made_of`` is how the
    items came: "python" (Python numbers), "numpy" (NumPy scalars or arrays), "tuple" (tuples
    of numbers, each a row of ``np.array(out)``). ``choice``: where a traced condition chose
    each item's Python type (``x[i] if x[i] > 0 else 0.0``), (a tag per row, the kinds they
    name: ``type_choice.py``), the items returned as the kinds their tags name; else None.
    Only its conversion, ``np.array(out)`` (``selection``), its length and returning it
    compile: its items are known when it runs."""

    __slots__ = ("name", "rows", "kept", "made_of", "depth", "choice", "counted", "prefix")

    def __init__(self, name: str, rows: Tracer, kept: Tracer, made_of: str, choice=None):
        self.name, self.rows, self.kept, self.made_of = name, rows, kept, made_of
        self.choice = choice
        # (the loop's line and its traced count ``n`` where a ``for k in range(n)`` made it: what
        # a refusal names, and the argument it asks to be static)
        self.counted = None
        # (its kept rows are its first ones: a loop's steps that ran, each appending alike, no
        # traced if: out[i] is row i, without a running count of the marks)
        self.prefix = False
        trace = current_trace()
        self.depth = None if trace is None else trace.depth  # the region it may grow in

    # -- growing it after its loop (session 49): closing the last segment, ``out.append(-1)`` --
    def append(self, value) -> None:
        """``out.append(v)``: one more row, always kept."""
        self._grow([value], "append")

    def extend(self, items) -> None:
        """``out.extend(items)`` of a list or tuple of items, or of another such list."""
        if isinstance(items, KeptList):
            self._check_region("extend")
            if (items.made_of, items.rows.shape[1:], items.rows.dtype) != \
                    (self.made_of, self.rows.shape[1:], self.rows.dtype):
                raise self._kind_refusal(items.rows, "extend")
            self.rows = prims.concatenate([self.rows, items.rows], 0)
            self.kept = prims.concatenate([self.kept, items.kept], 0)
            self._grow_tags(items.choice, items.rows.shape[0], items.made_of)
            self.prefix = False
        elif isinstance(items, (list, tuple)):
            self._grow(list(items), "extend")
        else:
            raise self._refusal(f"{self.name}.extend of a {type(items).__name__}")

    def __iadd__(self, items):  # (out += [v]: Python's list extends in place)
        self.extend(items)
        return self

    def __add__(self, items):  # (out = out + [v]: a new list, this one as it was)
        if not isinstance(items, (list, tuple, KeptList)) or isinstance(items, tuple):
            return NotImplemented
        joined = KeptList(self.name, self.rows, self.kept, self.made_of, self.choice)
        joined.depth = self.depth if current_trace() is None else current_trace().depth
        joined.extend(items)
        return joined

    def __radd__(self, items):  # ([0] + starts: that list's items first)
        if not isinstance(items, list):
            return NotImplemented
        joined = KeptList(self.name, self.rows, self.kept, self.made_of, self.choice)
        joined.rows, joined.kept = joined.rows[:0], joined.kept[:0]
        if self.choice is not None:
            joined.choice = self.choice[0][:0], self.choice[1]
        joined.depth = self.depth if current_trace() is None else current_trace().depth
        joined.extend(items)
        joined.extend(self)
        return joined

    def _check_region(self, what: str) -> None:
        trace = current_trace()
        if trace is None or trace.depth != self.depth:  # (a branch's or loop's growth: refused)
            raise self._refusal(f"{self.name}.{what} in a traced branch or loop after the one "
                                "that appended to it")

    def _grow(self, items: list, what: str) -> None:
        """The rows of ``items`` after the kept ones, each kept: items of the kind the list
        holds (Python numbers of its type, NumPy values of its dtype and shape, tuples as long
        as its rows), its rows being one array."""
        self._check_region(what)
        for item in items:
            if not self._fits(item):
                raise self._kind_refusal(item, what)
        if not items:
            return
        trace = current_trace()
        dtype = self.rows.dtype
        rows = prims.nested_array(items, dtype) if prims.holds_tracer(items) else \
            prims.constant(trace, np.array(items, dtype))
        rows = prims.convert(rows, dtype) if rows.dtype != dtype else rows
        self.rows = prims.concatenate([self.rows, rows], 0)
        self.kept = prims.concatenate([self.kept, prims.constant(trace, np.ones(len(items), bool))], 0)
        if self.choice is not None:
            tags, among = self.choice
            among = type_choice.merge(among, tuple(k for v in items for k in type_choice.kinds(v)))
            self._grow_tags((prims.nested_array([type_choice.tag(trace, v, among) for v in items],
                                                type_choice.TAG), among), len(items), None)

    def _grow_tags(self, choice, n: int, made_of) -> None:
        """The tags of ``n`` more rows (``choice``: theirs, or None: rows of ``made_of``'s
        kind, one kind), where this list's items have tags."""
        if self.choice is None and choice is None:
            return
        trace = current_trace()
        if choice is None:
            kind = _ROW_KIND[made_of](self.rows.dtype)
            choice = prims.constant(trace, np.zeros(n, type_choice.TAG)), (kind,)
        mine = self.choice
        if mine is None:
            kind = _ROW_KIND[self.made_of](self.rows.dtype)
            mine = prims.constant(trace, np.zeros(self.rows.shape[0] - n, type_choice.TAG)), (kind,)
        self.choice = type_choice.joined_tags(mine, choice)
        self.prefix = False

    def _fits(self, item) -> bool:
        shape, dtype = self.rows.shape[1:], self.rows.dtype
        if self.choice is not None and not shape:  # (any number: each row's tag says its type)
            return _python_kind(item) is not None or (isinstance(item, (Tracer, np.generic))
                                                       and np.ndim(item) == 0)
        if self.made_of == "python":
            return _python_kind(item) == dtype.kind
        if self.made_of == "tuple":
            return isinstance(item, tuple) and (len(item),) == shape and all(
                _python_kind(v) is not None or (isinstance(v, (Tracer, np.generic)) and np.ndim(v) == 0)
                for v in item) and np.result_type(*[_dtype_of(v) for v in item]) == dtype
        return isinstance(item, (Tracer, np.ndarray, np.generic)) and _python_kind(item) is None \
            and np.shape(item) == shape and item.dtype == dtype

    def _kind_refusal(self, item, what: str) -> UnsupportedError:
        row = self.rows.shape[1:]
        held = f"Python {_PYTHON_NAMES.get(self.rows.dtype.kind, 'number')}s" if self.made_of == "python" \
            else f"tuples of {row[0]} numbers" if self.made_of == "tuple" \
            else f"NumPy values of dtype {self.rows.dtype} and shape {row}"
        return UnsupportedError(
            f"{self.name}.{what} of {_described(item)} (at {user_location()}): '{self.name}' was "
            f"appended to under a traced if, or in a loop the data ends, and holds {held}; "
            "compiled, its items are one array of one dtype and shape. Append items of that kind "
            "(int(v), float(v), or a value of its dtype)")

    def selection(self, dtype=None, returned: bool = False) -> ListSelection:
        """``np.array(out, dtype)``: the kept rows, a selection (compacted when returned;
        ``returned``: the list itself is, each item given its own type)."""
        rows = self.rows if dtype is None else prims.convert(self.rows, np.dtype(dtype))
        selected = ListSelection(rows, self.kept, "array" if dtype is None else "typed")
        selected.describe(f"np.array({self.name})", _buffer_advice(self.name))
        if self.choice is not None and dtype is None and not returned:
            # NumPy's dtype is the kinds present's (chosen_dtype.ChosenDtype), where exact
            chosen = chosen_dtype.array_of(selected, *self.choice, kept=self.kept)
            if chosen is not None:
                return chosen
            type_choice.check_one_dtype(self.choice[1], self.rows.dtype, f"np.array({self.name})",
                                        user_location())
        return selected

    def stacked(self, axis=0, out=None, dtype=None, casting="same_kind"):
        """``np.stack(out)``: the kept rows, as ``np.array(out)`` without its empty case: where
        nothing was kept the call raises NumPy's ValueError."""
        if out is not None or not isinstance(axis, int) or axis not in (0, -self.rows.ndim):
            raise self._refusal("np.stack with an axis other than 0, or out=")
        count = prims.reduction("sum", prims.convert(self.kept, np.dtype(np.int64)))
        prims.raise_if(count == 0, STACK_OF_EMPTY)
        rows = self.rows if dtype is None else prims.convert(self.rows, np.dtype(dtype))
        if self.choice is not None and dtype is None:
            # NumPy's dtype is the kinds present's, as np.array(out)'s (never empty here)
            chosen = chosen_dtype.array_of(MaskedSelection(rows, self.kept), *self.choice, kept=self.kept)
            if chosen is not None:
                return chosen
            type_choice.check_one_dtype(self.choice[1], self.rows.dtype, f"np.stack({self.name})",
                                        user_location())
        return MaskedSelection(rows, self.kept)

    def returned(self, defined_at=None) -> str:
        """How the host makes the list returned from the kept rows (``dispatch.Trimmed``);
        ``defined_at``: the function's ``def`` (a ``FileLineCol``), whose ``return`` of it a
        refusal names (the only user frame left is the caller's)."""
        if self.made_of == "tuple":
            at = return_site(defined_at, self.name) or user_location()
            raise UnsupportedError(
                f"'{self.name}', a list of tuples appended to under a traced if, is returned (at "
                f"{at}): jitcore returns it as np.array({self.name}) only, whose "
                f"rows are the tuples; return that, or append the tuples' items to lists of their own")
        return self.made_of

    def length(self) -> Tracer:
        """``len(out)``: a Python int, known when the function runs (as a shape, a refusal that
        names the list and what compiles: ``Tracer.counts``)."""
        count = prims.reduction("sum", prims.convert(self.kept, np.dtype(np.int64)))
        out = fresh(count, scalar=True, weak=True)
        out.counts = (f"the list '{self.name}' (at most {self.rows.shape[0]} items, the loop's bound)",
                      f"Collect what you compute in a loop over it instead (G = 0.0; ret = []; for r "
                      f"in reversed({self.name}): G = r + gamma * G; ret.append(G); then "
                      f"np.array(ret[::-1])), or fill an array of the loop's bound and keep the "
                      f"first len({self.name}) (ret = np.zeros({self.rows.shape[0]}); for k in "
                      f"range(len({self.name}) - 1, -1, -1): ret[k] = ...; then ret[:len({self.name})])")
        count.owner_trace.counted[id(out.value)] = (out.value, out.counts)
        return out

    def copied(self) -> KeptList:
        """``list(out)``: the same items, a new list."""
        out = KeptList(self.name, self.rows, self.kept, self.made_of, self.choice)
        out.counted, out.depth, out.prefix = self.counted, self.depth, self.prefix
        return out

    def item(self, index) -> Tracer:
        """``out[i]`` at an int ``i`` (a Python int or a traced one; negative from the end): the
        ``i``-th kept row, as the item was (a Python number, a NumPy scalar or array); the call
        raises Python's IndexError where ``i`` is out of range."""
        if self.made_of == "tuple":  # (each field's Python type is not kept: one array)
            raise self._refusal(f"{self.name}[i], a list of tuples,")
        kept = prims.convert(self.kept, np.dtype(np.int64))
        count = prims.reduction("sum", kept)
        i = np.where(index < 0, index + count, index)
        raise_when(np.logical_or(i < 0, i >= count), kernel.LIST_INDEX)
        # (the kept row whose running count is i + 1: the loop's rows are in the list's order)
        at = i if self.prefix else np.argmax(np.logical_and(self.kept, np.cumsum(kept) == i + 1))
        row = self.rows[at]
        if self.made_of == "python":
            row = fresh(row, scalar=True, weak=True)
        else:
            row = as_scalar(row) if row.ndim == 0 else fresh(row)
        if self.choice is not None and row.ndim == 0:  # (its Python type the data chose: its tag)
            tags, among = self.choice
            return type_choice.mark(row, tags[at], among)
        return row

    def summed(self):
        """``sum(out)`` of number items: Python's sum, ``0 + item0 + item1 + ...`` in order (one
        compiled loop over the rows, adding the kept ones); where nothing was kept Python's int
        0, its type then the data's choice (``type_choice``)."""
        from jitcore import control_flow as cf
        from jitcore import type_choice

        if self.made_of == "tuple" or self.rows.ndim != 1 or self.rows.dtype.kind not in "fc":
            raise self._refusal(f"sum({self.name}) of these items")
        trace = current_trace()
        zero = prims.constant(trace, np.zeros((), self.rows.dtype))

        def add(i, total):
            return np.where(self.kept[i], total + self.rows[i], total)

        total = cf.fori_loop(0, self.rows.shape[0], add, zero)
        total = fresh(total, scalar=True, weak=self.made_of == "python")
        if self.made_of != "python":
            total = as_scalar(total)
        some = prims.reduction("sum", prims.convert(self.kept, np.dtype(np.int64))) > 0
        out = fresh(np.where(some, total, total.dtype.type(0)), scalar=True, weak=total.weak)
        return type_choice.choose(out, some, total, 0)

    def _refusal(self, what: str) -> UnsupportedError:
        if self.counted is not None:  # (for k in range(n), n an argument: static n fixes it)
            line, count = self.counted
            return needs_static(UnsupportedError(
                f"'{self.name}' was appended to in the loop at {line}, a counted loop whose count "
                f"is an argument of the function: how many items it holds is known only when the "
                f"function runs, so {what} cannot be compiled (at {user_location()}). Make the "
                f"count static (static_argnums or static_argnames: one compile per value), or "
                f"use what compiles: {self.name}[i], len({self.name}), np.array({self.name}), or "
                f"returning it"), count)
        return UnsupportedError(
            f"'{self.name}' was appended to under an if whose condition is traced, or in a loop "
            f"that the data ends (a break, a while loop): how many items it holds is known only "
            f"when the function runs, so {what} "
            f"cannot be compiled (at {user_location()}). Convert it (np.array({self.name})) and "
            f"reduce that, take len({self.name}), index it ({self.name}[-1]), loop over it (for r "
            f"in reversed({self.name})), or return it; or reduce the kept values in the loop "
            f"instead. For an array of its length to fill, fill a buffer of the loop's bound and "
            f"count the items: buf = np.zeros(max_T); k = 0; in the loop buf[k] = r; k += 1; "
            f"after it use buf[:k] and range(k - 1, -1, -1)")

    def __len__(self):  # (converted code's len() is ``length``: a bare len() is Python's own)
        raise self._refusal("len() outside converted code (or a call that takes it)")

    def __bool__(self):  # (if out: Python asks len(); a traced count is no Python bool)
        raise self._refusal(f"its truth value (if {self.name}: ...; write len({self.name}) > 0)")

    def __iter__(self):  # (a converted for loop iterates it: ``iterated``)
        raise self._refusal("iterating over it outside a for loop of converted code")

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)) or \
                isinstance(key, Tracer) and key.ndim == 0 and key.dtype.kind in "iu":
            return self.item(key)
        if key == slice(None, None, -1):
            return self.reversed()
        raise self._refusal(f"{self.name}[{key!r}]")

    def reversed(self) -> KeptList:
        """``out[::-1]`` (and what ``reversed(out)`` iterates): the rows and their marks in
        reverse order, so the kept ones come last first; a new list, as Python's slice is."""
        out = KeptList(self.name, self.rows[::-1], self.kept[::-1], self.made_of)
        if self.choice is not None:
            out.choice = self.choice[0][::-1], self.choice[1]
        out.counted, out.depth = self.counted, self.depth
        return out

    def iterated(self) -> tuple[Tracer, Tracer]:
        """What a for loop over the list reads (``for r in reversed(rewards)``: the returns of
        an episode the data ended): the kept rows compacted to the front of a buffer, and
        their count; row ``i`` is the ``i``-th item."""
        from jitcore import compaction

        if self.made_of == "tuple" or self.choice is not None:
            raise self._refusal("iterating over it (a list of tuples, or of items whose type the data chose)")
        return compaction.compaction(ListSelection(self.rows, self.kept, "array"))

    def item_of(self, row: Tracer):
        """A row read as the item it was appended as: a Python number, or a NumPy value."""
        if self.made_of == "python":
            return fresh(row, scalar=True, weak=True)
        return as_scalar(row) if row.ndim == 0 else fresh(row)

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise self._refusal(f"{self.name}.{attr}")

    def __array__(self, dtype=None, copy=None):
        raise self._refusal("NumPy's own conversion of it")

    def __repr__(self) -> str:
        return f"<list '{self.name}', appended to as the data chose: its items known when it runs>"


# A returned list is one output per item, each its own copy kernel: compile time grew with its
# length (1,000 ints appended in a compiled loop: 1,000 kernels). This many items or more that
# are the rows of one appending loop or comprehension come back as its array instead.
ROWS_RETURNED_FROM = 8


def rows_as_returned(out, trace):
    """``out`` with each list (in tuples, lists and dicts) that is exactly the rows an appending
    loop or long comprehension made (``Trace.appended``), of numbers or arrays, replaced by a
    ``KeptList`` of those rows, all kept: returned, the host splits the one array into the
    list, of Python numbers or NumPy scalars or rows as the items were (``dispatch.Trimmed``),
    so the compile does not grow with the list's length."""
    if type(out) is list and len(out) >= ROWS_RETURNED_FROM:
        entry = trace.appended.get(id(out[0]))
        if entry is not None and entry[2] == trace.depth and len(entry[1]) == len(out) \
                and all(a is b for a, b in zip(out, entry[1])):
            rows, first = entry[0], out[0]
            if getattr(first, "scalar", None) in (True, False) and rows.shape[0] == len(out):
                made_of = "python" if first.weak and first.scalar is True else "numpy"
                kept = prims.constant(trace, np.ones(len(out), bool))
                return KeptList("list", rows, kept, made_of, entry[3])
    if type(out) in (list, tuple):
        return type(out)(rows_as_returned(v, trace) for v in out)
    if type(out) is dict:
        return {k: rows_as_returned(v, trace) for k, v in out.items()}
    return out


def return_site(defined_at, name: str) -> str | None:
    """``file:line`` of the last ``return`` that names ``name`` in the function defined at
    ``defined_at`` (a ``FileLineCol``, or anything else: None), read from its source."""
    import ast
    import inspect
    import linecache
    import textwrap

    file, line = getattr(defined_at, "file", None), getattr(defined_at, "line", None)
    if file is None or line is None:
        return None
    try:
        block = inspect.getblock(linecache.getlines(file)[line - 1:])
        tree = ast.parse(textwrap.dedent("".join(block)))
    except (SyntaxError, IndentationError, IndexError, ValueError):
        return None
    lines = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value is not None
             and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.value))]
    return f"{file}:{line + max(lines) - 1}" if lines else None
