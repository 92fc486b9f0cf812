"""What converted code calls as ``__ag__``: the statement helpers (``statements``), the
expression helpers (``expressions``), and ``call``, through which every call goes so that the
user's own functions are converted too.
"""

from __future__ import annotations

import builtins
import sys

from jitcore.autograph import convert
from jitcore.autograph.arrays import out_call
from jitcore.autograph.expressions import BUILTINS, and_, aug_setitem, compare, if_exp, not_, or_, setitem
from jitcore.autograph.statements import for_stmt, if_stmt, result, state, while_stmt

__all__ = ["and_", "aug_setitem", "call", "compare", "converted", "for_stmt", "if_exp", "if_stmt",
           "not_", "or_", "out_call", "result", "setitem", "slice", "state", "while_stmt"]

slice = builtins.slice  # noqa: A001  (converted code builds subscript keys with it)


def converted(f):
    """``f`` converted (``convert.converted``), its code calling the helpers of this module."""
    return convert.converted(f, sys.modules[__name__])


def call(f):
    """What converted code calls in place of ``f``: the converted user function, a traced-aware
    builtin, or ``f`` itself."""
    try:
        special = BUILTINS.get(f)
    except TypeError:  # unhashable callable
        special = None
    return special if special is not None else converted(f)


