"""A list comprehension over a long range or an array's rows, compiled as one loop.

``[pr[i - k + 1:i + 1].sum() if i >= k - 1 else np.nan for i in range(n)]`` ran in Python while
tracing: one copy of the element's code per item, so compile time grew with ``n`` (165 s at
n = 3650) and every new ``n`` compiled again. When the comprehension is long (as a ``for`` loop
over it would be a loop: more than ``UNROLL_LIMIT`` items, or a bound from the arguments'
extents) and one trial run of the element at a traced index gives a number or an array, every
element is computed by one ``fori_loop`` that writes row ``k`` of an array the loop carries,
like a preallocated ``out[k] = v``. The list then holds those rows, registered as a loop's
appends are (``Trace.appended``), so ``np.array``/``np.stack``/``np.asarray`` of it, and the
reductions that read it as an array, are that array itself: no stack of thousands of operands.

An element whose shape or dtype changes with the index, or one that needs the index as a
Python int (a shape, a static argument), cannot be one loop: the comprehension then runs in
Python as before, and the reason is recorded for the compile-time warning
(``compile_time.note_unrolled``).
"""

from __future__ import annotations

import numpy as np

from jitcore import chosen_dtype, compile_time, type_choice
from jitcore import control_flow as cf
from jitcore.autograph import appending, effects, statements
from jitcore.autograph.expressions import Indexed
from jitcore.errors import ConcretizationError, JitTypeError, UnsupportedError
from jitcore.primitives import as_tracer, broadcast_to, constant, nested_array
from jitcore.tracer import Tracer, current_trace, fresh, user_location

_DECLINED = (ConcretizationError, JitTypeError, UnsupportedError)


def comprehension(iterable, element):
    """``[element(t) for t in iterable]``: one compiled loop where it can be (module docstring)."""
    looped = _stacked(iterable, element)
    if looped is None:
        return [element(t) for t in iterable]
    rows, (shape, _, weak, scalar), choice = looped
    if isinstance(scalar, tuple):  # (lists or tuples of numbers: each as such, session 57)
        made = appending._rows(rows, 0, len(rows), shape, weak, scalar)
        held = appending._SequenceRows(made)
    else:
        made = held = [appending._row(rows, k, shape, weak, scalar, choice) for k in range(len(rows))]
    if made:  # (np.array of the list, or of a copy, finds the rows by their first)
        current_trace().appended[id(made[0])] = (rows, held, current_trace().depth, choice)
    return made


# NumPy functions whose result for a list of same-shaped items is their result for the items
# stacked: given a long comprehension, they get the loop's array itself, no row taken out of it
_OF_ROWS = frozenset({
    "array", "asarray", "asanyarray", "stack", "sum", "nansum", "mean",
    "nanmean", "std", "nanstd", "var", "nanvar", "max", "min", "amax", "amin", "nanmax",
    "nanmin", "prod", "median", "nanmedian", "any", "all", "argmax", "argmin", "cumsum"})


def comprehension_call(func, called, iterable, element, *rest, **kwargs):
    """``func([element(t) for t in iterable], *rest, **kwargs)`` as converted code calls it
    (``called``: what ``call(func)`` gives): a NumPy function of ``_OF_ROWS`` gets the loop's
    array itself; any other the list (``comprehension``)."""
    module = getattr(func, "__module__", None) or ""
    if getattr(func, "__name__", None) in _OF_ROWS and module.split(".")[0] in ("numpy", "jitcore"):
        looped = _stacked(iterable, element)
        if looped is not None and looped[2] is not None and "dtype" not in kwargs:
            chosen = chosen_dtype.array_of(fresh(looped[0]), *looped[2])  # (its dtype picked when it runs)
            if chosen is not None and func.__name__ in ("array", "asarray", "asanyarray") \
                    and not rest and not kwargs:
                return chosen
            if chosen is not None:  # np.sum([...]): NumPy's function of that array
                return chosen.__jitcore_function__(func, (chosen, *rest), kwargs)
            type_choice.check_one_dtype(looped[2][1], looped[0].dtype, f"np.{func.__name__}",
                                        user_location())
        if looped is not None and func.__name__ == "stack":
            return _stack(looped[0], *rest, **kwargs)
        if looped is not None:
            return called(looped[0], *rest, **kwargs)
        return called([element(t) for t in iterable], *rest, **kwargs)
    return called(comprehension(iterable, element), *rest, **kwargs)


def _stack(rows, axis=0, out=None, dtype=None, casting="same_kind"):
    """``np.stack`` of the items the loop stacked along axis 0 (a fresh array, as NumPy's)."""
    if out is not None:
        return np.stack(list(rows), axis, out, dtype=dtype, casting=casting)
    moved = np.moveaxis(rows, 0, axis) if axis else rows
    return moved.astype(rows.dtype if dtype is None else dtype, casting=casting)


def _stacked(iterable, element):
    """``(rows, kind, choice)``: the items stacked by one compiled loop, their
    ``appending._kind``, and where a traced condition chose their Python types
    (``x[i] if x[i] > 0 else 0.0``) each row's tag and the kinds they name (else None);
    None where the comprehension is short, or cannot be one loop (it then runs in Python)."""
    if current_trace() is None or not _long(iterable):
        return None
    source = None if isinstance(iterable, range) else iterable
    return _looped(iterable if source is None else range(len(iterable)), source, element)


def _long(iterable) -> bool:
    """Whether a ``for`` over ``iterable`` would be a loop, not unrolled (``statements._for_stmt``)."""
    if isinstance(iterable, Tracer):
        if iterable.ndim == 0:
            return False
    elif not isinstance(iterable, (range, Indexed)):
        return False
    n = len(iterable)
    rng = iterable if isinstance(iterable, range) else range(n)
    return n * statements._copies() > statements.UNROLL_LIMIT or statements._sized_range(rng)


def _looped(rng: range, source, element):
    """``(rows, kind, choice)`` of the loop over ``rng`` (``_stacked``), or None where the
    element cannot be one loop."""
    from jitcore import index_forms

    trace = current_trace()
    form = index_forms.loop_index(rng) if source is None else None

    def item(i):
        if source is not None:
            return source[i]
        out = fresh(i, scalar=True, weak=True)
        out.index_form = form  # (x[i:i + w] a window of static length)
        return out

    why: list = []
    tried: list = []  # (the trial's item: a list given again is no list each element makes)

    def trial():
        try:
            tried.append(element(item(statements._int64(rng.start))))
            return (tried[-1],)
        except ConcretizationError as e:
            why.append(e)
            raise

    with effects.undone((), (), (element,)):  # (what the element appends to, as it was)
        kind = statements._trial(trial, (), lambda after, _: (appending._kind(after[0]),
                                                             type_choice.kinds(after[0])))
    kind, among = kind if kind is not None else (None, ())
    if kind is None:
        if why:
            compile_time.note_unrolled(why[0])
        return None
    shape, dtype, weak, scalar = kind
    rows = fresh(broadcast_to(constant(trace, np.zeros((), dtype)), (len(rng), *shape)))
    # (each item's tag, where a traced condition chose its Python type: type_choice.py)
    tags = fresh(broadcast_to(constant(trace, np.zeros((), type_choice.TAG)), (len(rng),))) \
        if len(among) > 1 else None

    def body(i, carry):
        rows, tags = carry
        value = element(item(i))
        if appending._kind(value) != kind or any(value is v for v in tried if type(v) is list):
            raise UnsupportedError(f"a list comprehension's items differ in shape or type (at "
                                   f"{user_location()})")
        k = i if rng.start == 0 and rng.step == 1 else (i - rng.start) // rng.step
        if tags is not None:
            tags = tags.at[k].set(type_choice.tag(current_trace(), value, among))
        row = nested_array(value, dtype) if type(value) in (list, tuple) else as_tracer(trace, value, dtype)
        return rows.at[k].set(row), tags

    try:  # (an element that changes a list or dict: refused here, so run in Python)
        with statements._in_user_terms(), effects.watching("for loop", None, (), (), (element,)):
            rows, tags = cf.fori_loop(rng.start, rng.stop, body, (rows, tags), step=rng.step)
    except _DECLINED as e:
        if isinstance(e, ConcretizationError):
            compile_time.note_unrolled(e)
        return None
    return fresh(rows), kind, None if tags is None else (fresh(tags), among)
