"""A list or tuple of numbers, or of tuples of numbers of one arity, iterated by a ``for``: a
table (``for (y, x) in positions:``). Its columns become arrays, one per position of the rows,
so a long loop over it is one compiled loop whose step ``i`` reads row ``i`` (``Table``), rather
than an unroll with one copy of the body per row (200 sprite positions: 116 s to compile).

Iterated in Python (a short loop, or a loop with effects), a table gives the list's own items,
so the body and the loop variable after the loop see what Python would. In a compiled loop an
item is the row's numbers as traced scalars of their kinds: a Python int or float promotes as
one (weak, NEP 50), a NumPy scalar keeps its dtype, a traced number its own kind.
"""

from __future__ import annotations

import numpy as np

from jitcore.autograph.indexed import Indexed
from jitcore.tracer import Tracer, fresh

# Python's numbers and the dtype each is traced as (a weak scalar: it promotes as Python's).
_PYTHON = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
           complex: np.dtype(np.complex128)}
_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _kind(leaf):
    """``(dtype, weak, scalar)`` of one number of a row (``scalar``: a NumPy scalar, not a 0-d
    array), or None where it is no number a column holds: a string, an array, an int past
    int64 (Python's int would not wrap)."""
    if isinstance(leaf, Tracer):
        return (leaf.dtype, bool(leaf.weak), bool(leaf.scalar or leaf.weak)) if leaf.ndim == 0 else None
    if type(leaf) in _PYTHON:
        if type(leaf) is int and not _INT64[0] <= leaf <= _INT64[1]:
            return None
        return _PYTHON[type(leaf)], True, True
    if isinstance(leaf, np.generic) and leaf.dtype.kind in "biufc":
        return leaf.dtype, False, True
    return None


class Table(Indexed):
    """The rows of ``items`` (the list itself: Python's items when iterated in Python), each a
    number (``arity`` None) or a tuple of ``arity`` numbers; ``kinds``: each column's
    ``(dtype, weak, scalar)``. Its columns are made arrays once, before the loop (``columns``)."""

    def __init__(self, items, arity, kinds, start=None):
        super().__init__(len(items), self._row)
        self.items, self.arity, self.kinds = items, arity, kinds
        self.start = start  # enumerate(items, start): each row is (start + i, the row)
        self._columns = None

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._row(k) for k in range(self.length)[i]]
        return self._row(i)

    def enumerated(self, start) -> Table:
        """``enumerate(items, start)`` of this table's items, as a table."""
        return Table(self.items, self.arity, self.kinds, start)

    def columns(self):
        """Each column as a 1-d array (a constant where all its numbers are Python's or NumPy's,
        else one array of the traced numbers), made where this is called: before the loop."""
        if self._columns is None:
            from jitcore.numpy import creation  # (jitcore.numpy imports the autograph)
            rows = [r if self.arity is not None else (r,) for r in self.items]
            self._columns = tuple(creation.array([row[c] for row in rows], dtype)
                                  for c, (dtype, _, _) in enumerate(self.kinds))
        return self._columns

    def _row(self, i):
        if not isinstance(i, Tracer):
            row = self.items[i]
            return row if self.start is None else (self.start + i, row)
        row = tuple(fresh(column[i], scalar=scalar, weak=weak)
                    for column, (_, weak, scalar) in zip(self.columns(), self.kinds))
        row = row if self.arity is not None else row[0]
        # (the count a Python int, as enumerate's: weak)
        return row if self.start is None else (fresh(i + self.start, True, True), row)


def table(items) -> Table | None:
    """``items`` as a ``Table`` where it is one: a list or tuple of at least two rows, each a
    number, or each a tuple of the same number of numbers, every column's numbers of one kind
    (Python ints, NumPy float32s, traced float64s, ...); else None (iterated as it is)."""
    if type(items) not in (list, tuple) or len(items) < 2:
        return None
    first = items[0]
    arity = len(first) if type(first) is tuple else None
    if arity == 0:
        return None
    kinds = None
    for row in items:
        if (type(row) is tuple) != (arity is not None) or (arity is not None and len(row) != arity):
            return None
        row_kinds = tuple(_kind(v) for v in (row if arity is not None else (row,)))
        if None in row_kinds or (kinds is not None and row_kinds != kinds):
            return None
        kinds = row_kinds
    return Table(items, arity, kinds)
