"""A selection assigned in a traced ``if``: ``if c: s = x[m] else: s = x[~m]``, ``s = s * 2``
under the ``if``, ``if c: s = x[m] else: s = x``.

A selection (``masked.MaskedSelection``) is its values and a mask of the rows kept, which only
the data counts: no shape an ``if`` can carry. But its two arrays have shapes known when
compiling, so the ``if`` carries them instead: each branch's selection goes out as the pair
(values, mask), a plain array of the values' shape as itself with every row kept, and after the
``if`` the pair is a selection again, its values and mask those of the branch that ran (the
``if``'s own select). Where the branches' values differ in shape or dtype the ``if`` refuses
the pair as it refuses any two shapes. ``statements.if_stmt`` tries this for a name whose
selection its branches refused to carry (``refused_name``)."""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore.masked import MaskedSelection
from jitcore.tracer import Tracer, current_trace


def refused_name(error) -> str | None:
    """The variable whose selection a traced ``if`` refused to carry (``_cannot_carry``), where
    it is a plain boolean selection, which this module carries as its pair."""
    return getattr(error, "selection_state", None)


def carried(value):
    """``value`` as the ``if`` carries it: a selection as its pair, anything else as it is."""
    if type(value) is MaskedSelection and value.mask.ndim == 1:
        return (value.values, value.mask)
    if isinstance(value, (Tracer, np.ndarray)) and np.ndim(value) >= 1:  # (every row kept)
        trace = current_trace()
        values = value if isinstance(value, Tracer) else prims.constant(trace, value)
        ones = prims.broadcast_to(prims.constant(trace, np.ones((), bool)), values.shape[:1])
        return (values, ones)
    return value


def restored(value):
    """A pair the ``if`` carried as the selection it stands for; anything else as it is."""
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, Tracer) for v in value) \
            and value[1].dtype == np.bool_ and value[1].ndim == 1:
        return MaskedSelection(*value)
    return value


def paired(fn, picks: set):
    """The branch ``fn`` with the variables at ``picks`` given as selections and returned as pairs."""
    def run(*state):
        state = [restored(v) if j in picks else v for j, v in enumerate(state)]
        out = list(fn(*state))
        return tuple(carried(v) if j in picks else v for j, v in enumerate(out))
    return run
