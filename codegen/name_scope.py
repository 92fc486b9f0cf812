"""An llvmlite module whose functions name their values in one call instead of four.

Every instruction, block and argument that llvmlite makes registers its name in its function's
``NameScope``: ``register`` calls ``deduplicate``, which calls ``is_used`` twice and formats
the next ``.N`` of an unnamed value; 6% of our LLVM IR emission's CPU (docs/performance.md,
"Session 57: emission speed"). ``EmissionModule`` gives each function added to it a
``NameScope`` that does the same in one method: the same names in the same order (so the same
text), from the same ``_useset`` and ``_basenamemap`` (its arguments, named before the function
joins the module, are carried over).
"""

from __future__ import annotations

from llvmlite import ir as ll
from llvmlite.ir import _utils


class _OneCallScope(_utils.NameScope):
    """``NameScope.register`` with ``deduplicate`` and ``is_used`` written into it."""

    def register(self, name, deduplicate=False):
        used = self._useset
        if name in used:
            if not deduplicate:
                raise _utils.DuplicatedNameError(name)
            counts, base = self._basenamemap, name
            while name in used:
                ident = counts[base] + 1
                counts[base] = ident
                name = f"{base}.{ident}"
        used.add(name)
        return name


class EmissionModule(ll.Module):
    """``ll.Module`` whose functions register their values' names in a ``_OneCallScope``."""

    def add_global(self, globalvalue):
        super().add_global(globalvalue)
        if isinstance(globalvalue, ll.Function) and type(globalvalue.scope) is _utils.NameScope:
            scope = _OneCallScope()
            scope._useset = globalvalue.scope._useset
            scope._basenamemap = globalvalue.scope._basenamemap
            globalvalue.scope = scope
