"""A ``raise`` (or a failed ``assert``) under a traced condition, raised when the function runs.

``if np.any(x < 0): raise ValueError("negative")`` validates the data: Python raises only
where the condition holds. Traced, both branches of the ``if`` are traced, and the ``raise``
ran while tracing, for every input. Now a branch whose trace raises an exception of the
user's own (not jitcore's: those say what cannot compile) is not compiled: the ``if`` becomes
the other branch, run unconditionally, and a check that raises a copy of that exception from
the compiled code where the condition holds (a callback on the taken branch of a ``cond``, as
NumPy's errors found by compiled code are raised: ``numpy/reductions.py``). The branch is traced
again inside that ``cond``, so that the values its message formats (``f"x[{i}] = {x[i]}"``) are
computed there and filled in at run time (``jitcore/formatting.py``).
"""

from __future__ import annotations

import traceback

import numpy as np

from jitcore import control_flow as cf
from jitcore import formatting, raise_state
from jitcore.autograph.aliasing import Rebound, Unheld
from jitcore.errors import JitcoreError
from jitcore.tracer import current_trace, is_user_file, user_location


class BranchRaised(Exception):
    """The trace of one branch of a traced ``if`` raised ``error``, the user's exception."""

    def __init__(self, error: Exception, then: bool, where: str):
        super().__init__(error)
        self.error, self.then, self.where = error, then, where


def is_users(error: BaseException) -> bool:
    """Whether ``error``, raised while a branch was traced, is one the program raises when it
    runs that branch: not jitcore's (what cannot compile), nor the conversion's own signals,
    nor the interpreter's limits."""
    return isinstance(error, Exception) and not isinstance(
        error, (JitcoreError, Rebound, Unheld, BranchRaised, RecursionError, MemoryError))


def raised(error: Exception, then: bool) -> BranchRaised:
    """``error`` from the ``then`` (or else) branch, with the user's line that raised it."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if is_user_file(f.filename)]
    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else user_location()
    return BranchRaised(error, then, where)


def _copy(error: Exception) -> Exception:
    """A new exception like ``error``, for each call that raises it: its class's ``__new__``
    with its ``args`` and attributes (``copy.copy`` would call ``__init__`` with ``args``,
    which a class with a signature of its own refuses)."""
    again = type(error).__new__(type(error), *error.args)
    again.args = error.args
    again.__dict__.update({k: v for k, v in vars(error).items() if k != "__notes__"})
    return again


def raise_where_taken(pred, branch: BranchRaised, fn, init) -> None:
    """Trace the check that raises ``branch.error`` when the compiled code takes that branch:
    the branch ``fn`` traced again inside it, so that what its message formats (``x[i]``) is
    computed there, and a callback at its raise."""
    from jitcore.debugging import debug_callback  # here: the codegen's callbacks load late

    taken = pred if branch.then else np.logical_not(pred)

    def raising():
        error = branch.error
        try:
            fn(*init)
        except Exception as e:  # noqa: BLE001  (the same raise, its message's values traced here)
            if not is_users(e):
                raise
            error = e
        formatted, fill = formatting.filler(error.args, current_trace())  # f"negative at {i}"
        raise_state.keep(current_trace())  # the arguments written before the raise

        def fail(_, values):
            again = _copy(error)
            again.args = tuple(fill(a, values) for a in error.args)
            note = f"(raised by the compiled function, at {branch.where}: the branch that raises was taken)"
            again.__notes__ = [*getattr(error, "__notes__", ()), note]
            raise again

        debug_callback(fail, taken, formatted)

    cf.cond(taken, raising, lambda: None)
