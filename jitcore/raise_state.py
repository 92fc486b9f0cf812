"""The caller's arrays as Python leaves them when the function raises.

``x[0] = 5; if bad: raise ValueError`` leaves ``x[0] == 5`` in Python: the write happened
before the raise. The compiled function gives the new values of the arguments it writes back
after the call, and a call that raises never got there, so the write was lost. Now, at each
place the compiled code may raise (a ``raise`` under a traced condition, ``autograph.raises``;
a check NumPy makes, ``primitives.raise_if``), the values of the arguments written so far go,
where the raise happens, to a callback (``keep``) that holds them for the thread; the call
that raises writes them into the caller's arrays first (``Executable._raise_status``, given
the arguments by the Python call and the descriptor holding their objects by the native one).
A call that does not raise runs no callback: its cost is the check of the condition.
"""

from __future__ import annotations

from jitcore.callbacks import hold_arguments, register_callback
from jitcore.ir.dialects import array
from jitcore.tracer import Trace, Tracer

# ``control_flow.cond``, which that module sets here when it is imported: it imports
# ``primitives``, whose checks call ``keep``, so this module does not import it.
conditional = None


def keep(trace: Trace, bad: Tracer | None = None) -> None:
    """Where ``bad`` holds (None: here, in a branch taken only to raise), hold the values of
    the arguments written so far for the raise that follows (``callbacks.hold_arguments``)."""
    written = [(i, a) for i, a in enumerate(trace.arguments) if a.version and not a.scalar]
    if not written:
        return
    positions = [i for i, _ in written]

    def emit():
        number = register_callback(lambda arrays: hold_arguments(positions, arrays), holds=True)
        trace.builder.create(array.CallbackOp, [a.value for _, a in written], [], {"callback": number})

    if bad is None:
        emit()
    else:
        conditional(bad, emit, lambda: None)
