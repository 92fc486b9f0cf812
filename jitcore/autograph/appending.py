"""A loop that appends to a list, compiled as a loop: ``ys.append(f(x[i]))`` for each step.

A list is a Python object, not a value a traced loop can carry: its length changes every step.
Such a loop ran unrolled, one copy of its body per step (1,000 steps: 13 s to compile, 5,000:
130 s). When the body's only change to Python objects is a fixed number of appends per step,
unconditional (a list the loop's state holds, used in the body only by ``append``), and the
appended values have one shape and dtype, the rows go into an array the loop carries and
writes one row at a time, like a preallocated ``out[i] = v``. After the loop the list holds
those rows (each a row of that array), and ``np.array(ys)`` of it is that array itself
(``primitives.appended_stack``, by ``Trace.appended``): no stack of thousands of operands.
"""

from __future__ import annotations

import numpy as np

from jitcore.errors import ConcretizationError, JitTypeError, UnsupportedError
from jitcore.primitives import as_tracer, broadcast_to, constant, reshape, slice_
from jitcore.tracer import Tracer, current_trace, fresh

_NUMBERS = (bool, int, float, complex)


class _Appender:
    """Stands for an appended list in the traced body: each ``append`` writes the next row;
    ``ys[-1]`` is the last row (``last``, carried by the loop)."""

    def __init__(self, name: str, rows: Tracer, first, last, per_step: int, kind: tuple):
        self.name, self.rows, self.first, self.last = name, rows, first, last
        self.per_step, self.kind = per_step, kind
        self.count = 0

    def append(self, value) -> None:
        if self.count == self.per_step or _kind(value) != self.kind:
            raise UnsupportedError(f"'{self.name}'.append: another count or type of rows than "
                                   "one run of the loop's body gave")
        trace = current_trace()
        self.rows[self.first + self.count] = as_tracer(trace, value, self.kind[1])
        self.last = value
        self.count += 1

    def __getitem__(self, key):
        if not isinstance(key, int) or key != -1:
            raise UnsupportedError(f"'{self.name}'[{key!r}] in a loop that appends to it")
        return self.last

    def __getattr__(self, attr):
        raise UnsupportedError(f"'{self.name}'.{attr} in a loop that appends to it")


def _kind(v) -> tuple | None:
    """An appended value's (shape, dtype, weak, scalar), or None for one that is no number or
    array (a string, a tuple): such a list stays Python's."""
    if isinstance(v, Tracer):
        return v.shape, v.dtype, v.weak, v.scalar
    if isinstance(v, _NUMBERS):
        return (), np.asarray(v).dtype, True, True
    if isinstance(v, np.generic):
        return (), v.dtype, False, True
    if isinstance(v, np.ndarray):
        return v.shape, v.dtype, False, False
    return None


def _kinds(after, copies, values, slots) -> dict | None:
    """{slot: (rows per step, kind)} from one trial run of the body: the state after it
    (``after``) and the copies of the state it ran on, whose lists hold what it appended; None
    where the loop cannot be compiled so (a name bound to something else, no append, rows that
    vary, items that are no number or array)."""
    found = {}
    for j in slots:
        new = copies[j][len(values[j]):]
        kinds = {_kind(v) for v in new}
        if after[j] is not copies[j] or len(kinds) != 1 or None in kinds:
            return None
        found[j] = len(new), kinds.pop()
    return found


def appending_loop(run_loop, trial, body_fn, values, names, appends, trips: int):
    """The state after a loop of ``trips`` steps whose body appends to the lists ``appends``
    (names of the state), compiled as a loop: ``run_loop(body, values, names)`` traces it (a
    ``fori_loop`` over the range) with the lists' rows carried as arrays; ``trial(then)`` runs
    the body once on copies of the state (``statements._trial``). None where it cannot be (the
    appends vary, the loop needs a Python int): the caller then runs the loop as before."""
    trace = current_trace()
    slots = [j for j, n in enumerate(names) if n in appends and isinstance(values[j], list)]
    if trace is None or not slots or trips < 1:
        return None
    found = trial(lambda after, copies: _kinds(after, copies, values, slots))
    if found is None:
        return None
    start = {j: values[j] for j in slots}
    # each list's rows, then its last item (ys[-1]: before the loop, the list's own; a zero row
    # where it is empty, which the body then appends before it reads), then the step
    carried, lasts = list(values), []
    for j, (per_step, (shape, dtype, weak, scalar)) in found.items():
        zero = constant(trace, np.zeros((), dtype))
        carried[j] = fresh(broadcast_to(zero, (trips * per_step, *shape)))
        lasts.append(start[j][-1] if start[j] else
                     fresh(broadcast_to(zero, shape), scalar=scalar, weak=weak))
    carried += [*lasts, 0]
    n = len(values)

    def body(item, *state):
        state, lasts, step = list(state[:n]), state[n:-1], state[-1]
        appenders = {j: _Appender(names[j], state[j], step * found[j][0], last, *found[j])
                     for j, last in zip(slots, lasts)}
        state = [appenders.get(j, v) for j, v in enumerate(state)]
        out = list(body_fn(item, *state))
        for j, a in appenders.items():
            if out[j] is not a or a.count != a.per_step:
                raise UnsupportedError(f"'{names[j]}' appended to a varying number of times")
            out[j] = a.rows
        return (*out, *(appenders[j].last for j in slots), step + 1)

    state_names = (*names, *(f"{names[j]}[-1]" for j in slots), "__jc_appended_steps")
    try:
        out = run_loop(body, tuple(carried), state_names)
    except (ConcretizationError, JitTypeError, UnsupportedError):
        return None
    out = list(out[:n])
    for j in slots:
        rows, (per_step, (shape, dtype, weak, scalar)) = out[j], found[j]
        rows = fresh(rows)
        made = [_row(rows, k, shape, weak, scalar) for k in range(trips * per_step)]
        start[j].extend(made)
        if made:  # (np.array of the list, or of a copy, finds the rows by their first)
            trace.appended[id(made[0])] = (rows, made, trace.depth)
        out[j] = start[j]
    return tuple(out)


def _row(rows: Tracer, k: int, shape, weak: bool, scalar: bool) -> Tracer:
    row = reshape(slice_(rows, (k,) + (0,) * len(shape), (1,) * (len(shape) + 1), (1, *shape)), shape)
    return fresh(row, scalar=scalar, weak=weak)
