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

from jitcore import pytree
from jitcore.errors import ConcretizationError, JitTypeError, UnsupportedError
from jitcore.ir.core import Block
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


def _trial_kinds(body, item, values, slots) -> dict | None:
    """{slot: (rows per step, kind)} from one run of the body, traced into a block that is then
    dropped, on copies of the state; None where it cannot be compiled so."""
    trace, block = current_trace(), Block()
    copies = [pytree.unflatten(tree, [fresh(x, x.scalar, x.weak) if isinstance(x, Tracer) else
                                      x.copy() if isinstance(x, np.ndarray) else x for x in leaves])
              for leaves, tree in (pytree.flatten(v) for v in values)]
    before = {j: len(copies[j]) for j in slots}
    try:
        with trace.region(block):
            after = tuple(body(item(), *copies))
            # (the kinds read here: a value of the dropped block cannot be looked at after it)
            new = {j: copies[j][before[j]:] for j in slots if after[j] is copies[j]}
            kinds = {j: {_kind(v) for v in rows} for j, rows in new.items()}
    except Exception:  # noqa: BLE001  (whatever it was, Python's steps will meet it again)
        return None
    finally:
        for op in reversed(block.ops):
            op.drop_all_references()
    if len(new) != len(slots) or any(not new[j] or len(kinds[j]) != 1 or None in kinds[j] for j in slots):
        return None  # a name bound to something else, no append, varying rows, not numbers
    return {j: (len(new[j]), kinds[j].pop()) for j in slots}


def appending_loop(run_loop, body_fn, item, values, names, appends, trips: int):
    """The state after a loop of ``trips`` steps whose body appends to the lists ``appends``
    (names of the state), compiled as a loop: ``run_loop(body, values)`` traces it (a
    ``fori_loop`` over the range) with the lists' rows carried as arrays; ``item()`` makes a
    traced item for the trial run. None where it cannot be (the appends vary, the loop needs a
    Python int): the caller then runs the loop as before."""
    trace = current_trace()
    slots = [j for j, n in enumerate(names) if n in appends and isinstance(values[j], list)]
    if trace is None or not slots or trips < 1:
        return None
    found = _trial_kinds(body_fn, item, values, slots)
    if found is None:
        return None
    start = {j: values[j] for j in slots}
    # + each list's last item (ys[-1]: before the loop, the list's own; a zero row where it is
    # empty, which the body then appends before it reads), + the step, a Python int
    lasts = []
    for j, (_, (shape, dtype, weak, scalar)) in found.items():
        zero = constant(trace, np.zeros((), dtype))
        lasts.append(start[j][-1] if start[j] else
                     fresh(broadcast_to(zero, shape), scalar=scalar, weak=weak))
    carried = [*values, *lasts, 0]
    for j, (per_step, (shape, dtype, _, _)) in found.items():
        zero = constant(trace, np.zeros((), dtype))
        carried[j] = fresh(broadcast_to(zero, (trips * per_step, *shape)))
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
