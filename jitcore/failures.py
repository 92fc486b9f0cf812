"""Errors the compiled code finds when it runs, caught by a ``try`` of the function.

``try: L = np.linalg.cholesky(A)`` / ``except np.linalg.LinAlgError: ...``: whether ``A`` is
positive definite is known only when the compiled code runs, after tracing. Outside such a
``try`` the kernel raises (the call re-raises NumPy's error). Inside one whose ``except``
catches the error, the op is emitted ``soft``: it does not raise but gives a traced flag, true
where it failed, and the ``try`` becomes traced control flow (``autograph/attempts.py``): each
statement of the body after the one that failed runs only where nothing failed so far, the
handler where something did, as a traced ``if`` (names merged, early returns, ``break``).

An ``Attempt`` is one ``try`` being traced (``trace.catching``, innermost last): the flags its
body's soft ops recorded since its last statement (``pending``), consumed by ``failed`` into
the flag the converted code carries as a variable.
"""

from __future__ import annotations

import functools

import numpy as np

from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer, current_trace, user_location

# The message of an error whose text NumPy makes from the data (an index out of range names
# the index): a handler may catch it, not read it (``error_of``)
DATA_MESSAGE = "an index out of range (NumPy's message names it)"


class Attempt:
    """The ``try`` at ``line`` whose except clauses catch ``handled()`` (a function giving a
    tuple of exception types, one per clause: a tuple for ``except (A, B)``)."""

    def __init__(self, line: int, handled):
        self.line, self.handled = line, handled
        self.pending: list[tuple] = []  # (flag, block, error, where) since the last ``failed``
        self.errors: list[Exception] = []  # the errors a flag may stand for, in program order
        self.trace = None

    def clauses(self) -> list:
        """Per except clause, its exception type or tuple of types (``BaseException`` for a
        bare ``except``, or one whose name cannot be looked up yet)."""
        try:
            return list(self.handled())
        except Exception:  # noqa: BLE001  (a name Python would look up only on an error)
            return [BaseException]

    def catches(self, error: type) -> bool:
        return any(_catches(clause, error) for clause in self.clauses())

    def __enter__(self):
        self.trace = current_trace()
        if self.trace is not None:
            self.trace.catching.append(self)
        return self

    def __exit__(self, kind, error, tb) -> None:
        if self.trace is not None:
            self.trace.catching.remove(self)
        if kind is None and self.pending:  # the body left the try before the flag was read
            _, _, failure, where = self.pending[0]
            raise UnsupportedError(
                f"{type(failure).__name__} at {where}, inside the try at line {self.line} whose "
                "except catches it, is found only when the compiled code runs, and the statement "
                "leaves the try (a return, break or continue in a branch) before that failure is "
                "looked at. Give the call a statement of its own before the one that leaves")


def _catches(clause, error: type) -> bool:
    types = clause if isinstance(clause, tuple) else (clause,)
    return any(isinstance(t, type) and issubclass(error, t) for t in types)


def catches(trace, error: type) -> bool:
    """Whether a ``try`` being traced catches ``error``: an op that would raise it when the
    compiled code runs is then emitted soft."""
    return trace is not None and any(a.catches(error) for a in trace.catching)


def record(trace, flag, error: Exception) -> None:
    """A soft op's failure flag (a 0-d bool tracer: ``error`` is what NumPy would raise), for
    the innermost ``try``'s next ``failed``."""
    attempt = trace.catching[-1]
    attempt.pending.append((flag, trace.builder.block, error, user_location()))
    attempt.errors.append(error)


def unpacked(packed, rows: int, error: Exception):
    """A soft op's result ``packed`` (one more row than the value: ``[..., rows, 0]`` is 1
    where the matrix failed): its flag recorded (any matrix of a stack failing fails the call,
    as NumPy's), its value returned."""
    corner = packed[..., rows, 0]
    if corner.dtype.kind == "c":
        corner = corner.real
    record(packed.owner_trace, np.any(corner != 0), error)
    return packed[..., :rows, :]


def held_back(base, key, value):
    """The value ``base[key] = value`` writes: where a soft op of the same statement failed
    (``out[:] = np.linalg.solve(A, b)``), what ``base[key]`` holds (Python never wrote)."""
    trace = current_trace()
    if trace is None or not trace.catching or not isinstance(base, Tracer):
        return value
    pending = [f for f, block, *_ in trace.catching[-1].pending if block is trace.builder.block]
    if not pending:
        return value
    return np.where(functools.reduce(np.logical_or, pending), base[key], value)


def failed(attempt: Attempt, flag):
    """``flag`` (Python ``False``, or a traced bool) or'ed with what the ``try``'s body recorded
    since the last call: whether something in the body failed so far."""
    trace = current_trace()
    pending, attempt.pending = attempt.pending, []
    for new, block, error, where in pending:
        if trace is None or block is not trace.builder.block:
            raise UnsupportedError(
                f"{type(error).__name__} at {where}, inside a loop or branch within the try at line "
                f"{attempt.line} whose except catches it: the compiled code finds it only when it "
                "runs, and a failure there cannot leave the loop or branch. Put the try inside "
                "the loop or branch, around that statement")
        flag = new if flag is False else np.logical_or(flag, new)
    return flag


def caught(attempt: Attempt, flag, clause: int):
    """Where except clause ``clause`` runs for a failure: ``flag`` if it is the first that
    catches the errors ``attempt``'s soft ops stand for, else ``False``."""
    if flag is False or not attempt.errors:
        return False
    first = _first_catching(attempt, type(attempt.errors[0]))
    return flag if first == clause else False


def _first_catching(attempt: Attempt, error: type):
    return next((k for k, c in enumerate(attempt.clauses()) if _catches(c, error)), None)


def uncaught(attempt: Attempt, flag):
    """``flag`` where no except clause of ``attempt`` catches the failure: it goes on to the
    enclosing ``try`` (which does, or no op would have been soft); else ``False``."""
    if flag is False or not attempt.errors or _first_catching(attempt, type(attempt.errors[0])) is not None:
        return False
    trace = current_trace()
    if trace is not None and trace.catching:
        record(trace, flag, attempt.errors[0])
    return False


def error_of(attempt: Attempt) -> Exception:
    """The error a handler that runs for a failure sees (``except ... as e``, a bare ``raise``):
    NumPy's, with its message, when the body's soft ops would all raise the same."""
    messages = {(type(e), str(e)) for e in attempt.errors}
    if any(m == DATA_MESSAGE for _, m in messages):
        raise UnsupportedError(
            f"the except clause of the try at line {attempt.line} reads the error of an index "
            "out of range, whose message names the index only when the compiled code runs. "
            "Catch it without reading it (except IndexError:), or test the index first")
    if len(messages) != 1:
        raise UnsupportedError(
            f"the except clause of the try at line {attempt.line} reads the error, which may be "
            f"any of {sorted(m for _, m in messages)} when the compiled code runs: jitcore knows "
            "only that one of them failed. Give each call its own try, or do not use the error")
    kind, message = messages.pop()
    return kind(message)

