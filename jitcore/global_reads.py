"""Global reads of a function traced as it is (``jit(f, autograph=False)``, or a function made by
``exec`` whose source Python cannot give): an array read by name becomes the call's hidden
input where it is read, as autograph's ``outer_value`` makes it in converted code. Without it,
``L * 2`` ran in NumPy while tracing and was a constant of the code, stale once ``L`` changed
in place or was rebound (the content guard catches small arrays only, and none where ``L`` is
also read directly: docs/architecture.md, "Read where it is read").

The function is traced as a copy of itself whose globals are a ``dict`` subclass: CPython
looks a name up in such globals through ``__getitem__``, which reads the function's own
module dict and hands an array to ``calltime.read_input`` (and a function of the user's, a
helper, is given as such a copy too); its closed-over arrays are given as new cells of their
inputs. A function that assigns or deletes a global (``global n; n = ...``) is traced as it
is, and one that assigns a closed-over name (``nonlocal``) keeps its cells: such a write would
go to the copy.
"""

from __future__ import annotations

import dis
import functools
import types

import numpy as np

from jitcore import calltime
from jitcore.tracer import is_user_file


class _ReadGlobals(dict):
    """The globals of the traced copy: each read from the module's dict, an array as an input."""

    __slots__ = ("module",)

    def __getitem__(self, name):
        return _read(self.module[name])  # (a KeyError: CPython then looks in the builtins)


def _read(value):
    """An array as the traced code reads it (its hidden input); a helper of the user's as such
    a copy, so that its own reads are inputs too; any other value itself."""
    if type(value) is np.ndarray:
        return calltime.read_input(value)
    if type(value) is types.FunctionType and is_user_file(value.__code__.co_filename):
        return reading_globals(value)
    return value


def reading_globals(fun):
    """``fun`` with its global arrays read as inputs while it is traced, or ``fun`` itself where
    it writes a global or is no plain Python function."""
    if type(fun) is not types.FunctionType or _writes(fun.__code__, _GLOBAL_WRITES):
        return fun
    proxy = _ReadGlobals()
    proxy.module = fun.__globals__
    proxy["__builtins__"] = fun.__globals__.get("__builtins__", __builtins__)
    closure = fun.__closure__
    if closure is not None and not _writes(fun.__code__, _CELL_WRITES):
        closure = tuple(map(_read_cell, closure))
    copy = types.FunctionType(fun.__code__, proxy, fun.__name__, fun.__defaults__, closure)
    copy.__kwdefaults__, copy.__qualname__ = fun.__kwdefaults__, fun.__qualname__
    return copy


_GLOBAL_WRITES = frozenset(("STORE_GLOBAL", "DELETE_GLOBAL"))
_CELL_WRITES = frozenset(("STORE_DEREF", "DELETE_DEREF"))  # (a nonlocal's: to the cell itself)


@functools.lru_cache(maxsize=4096)
def _writes(code: types.CodeType, ops: frozenset) -> bool:
    """Whether ``code`` or a function, lambda or comprehension inside it runs one of ``ops``."""
    if any(i.opname in ops for i in dis.get_instructions(code)):
        return True
    return any(isinstance(c, types.CodeType) and _writes(c, ops) for c in code.co_consts)


def _read_cell(cell):
    """A closed-over array's cell as a cell of its hidden input (read when the copy is made,
    which is when the trace calls it); any other cell itself."""
    try:
        value = cell.cell_contents
    except ValueError:  # (empty: bound later)
        return cell
    read = _read(value)
    return cell if read is value else types.CellType(read)
