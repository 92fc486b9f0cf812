"""Array ops that do something besides computing values: ``array.callback``.

``array.callback`` hands its operands to a Python function at run time (``jc.debug_print``,
``jc.debug_callback``). It has no results and is not ``Pure``, so passes keep it, never merge
two of them, and never move work across it out of a loop: what it prints or records is its
effect. The function itself is not in the IR; ``callback`` is its number in the frontend's
table (``jitcore/dispatch.py``), which the compiled code passes back when it calls out.
"""

from __future__ import annotations

from jitcore.ir.dialects.array.base import ArrayOp
from jitcore.ir.opdef import attr, of


class CallbackOp(ArrayOp):
    name = "array.callback"
    __slots__ = ()
    callback = attr(of(int, ": the callback's number"))

    def check(self) -> None:
        if self.results:
            self.fail("has no results")
        if self.callback < 0:
            self.fail("needs a callback number of at least 0")
