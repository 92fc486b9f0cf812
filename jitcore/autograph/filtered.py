"""Reductions of a filtered generator over traced values: ``sum(1 for v in x if v > 0)``,
``sum(v for v in x if v > 0)``, ``len([v for v in x if v > 0])``, ``any``/``all``/``min``/``max``.

Python's ``if`` in the generator asks each test for its truth, which a traced test cannot give;
the items it keeps are known only when the function runs. Their reduction is known all the
same: a masked one, each item counted where its test holds. Over a traced array (or ``zip``/
``enumerate`` of traced arrays) it is one compiled loop over the items (the first taken out of
the loop, to give the result its type: Python's ``0 + item + ...``, so a sum of Python ints is a
Python int and of NumPy scalars a NumPy scalar); over a list or a ``range`` the items are read
in Python, as a generator without ``if`` is. An item's value is computed only where its test
holds (``math.log(v) for v in x if v > 0`` raises nothing for the others). Where no item is
kept, ``sum`` gives ``start`` itself (the int 0), its type chosen by the data (``type_choice``),
and ``max``/``min`` raise Python's ValueError from the call.

A filtered comprehension that is not reduced (a list kept) asks the test for a Python bool:
``comprehension_test`` refuses a traced test naming the masked forms instead.
"""

from __future__ import annotations

import numpy as np

from jitcore import control_flow as cf
from jitcore import pytree, type_choice
from jitcore.autograph.expressions import Indexed, _cast, _one_truth_value, _only_if, and_
from jitcore.errors import UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.numpy.everyday import raise_at_first
from jitcore.primitives import as_tracer, find_trace
from jitcore.tracer import Tracer, fresh, needs_static, user_location

_ADVICE = ("count with np.count_nonzero(x > 0), sum the kept values with x[x > 0].sum() (or "
           "np.where(x > 0, x, 0).sum()); sum, len, any, all, min and max of the filtered "
           "generator itself compile as a masked reduction")


def comprehension_test(test):
    """The ``if`` of a comprehension that is not reduced: a concrete test as Python's; a
    traced one refused, since the list it keeps has a length known only from the data."""
    if isinstance(test, Tracer):
        raise needs_static(UnsupportedError(
            f"the 'if' of a comprehension or generator expression tests traced data (at "
            f"{user_location()}): the list it keeps has a length known only when the function "
            f"runs. Instead, {_ADVICE}"), test)
    return test


def _truth(v):
    if isinstance(v, Tracer):
        return _cast(v, np.bool_, "bool")
    return bool(v)


def _dtype(v) -> np.dtype:
    return v.dtype if isinstance(v, (Tracer, np.ndarray, np.generic)) else np.result_type(v)


def _pick(trace, test, a, b):
    """``a`` where ``test`` holds, else ``b``: of ``b``'s dtype and shape (a loop's carry)."""
    b = as_tracer(trace, b, _dtype(b))
    return np.where(test, as_tracer(trace, a, b.dtype), b).astype(b.dtype)


def _flagged(value, model):
    """``value`` as the type ``model`` has: a Python number, a NumPy scalar or an array."""
    if isinstance(model, Tracer):
        return fresh(value, model.scalar, model.weak) if model.ndim == 0 else value
    if type(model) in (bool, int, float):
        return fresh(value, True, True)
    return fresh(value, True, False) if isinstance(model, np.generic) else value


class _Sum:
    """The total and whether any item was kept: where none is, Python's sum is ``start``
    itself (the int 0), given back with its type (``type_choice``)."""

    def __init__(self, start=0):
        self.start = start

    def first(self, trace, test, item):
        total = self.start + item
        self.model = total
        kept = as_tracer(trace, test, np.bool_)
        return _pick(trace, test, total, as_tracer(trace, self.start, _dtype(total))), kept

    def step(self, trace, test, item, state):
        total, kept = state
        return _pick(trace, test, total + item, total), kept | as_tracer(trace, test, np.bool_)

    def result(self, state):
        total, kept = state
        out = _flagged(total, self.model)
        if not isinstance(out, Tracer) or out.ndim or isinstance(self.start, Tracer):
            return out
        return type_choice.choose(out, kept, self.model, self.start)


class _Len:
    def first(self, trace, test, item):
        return as_tracer(trace, test, np.int64)

    def step(self, trace, test, item, count):
        return count + as_tracer(trace, test, np.int64)

    def result(self, count):
        return fresh(count, True, True)  # a Python int


class _AnyAll:
    def __init__(self, any_):
        self.any = any_

    def _vote(self, trace, test, item):
        truth = as_tracer(trace, _truth(item), np.bool_)
        return np.logical_and(test, truth) if self.any else np.logical_or(np.logical_not(test), truth)

    def first(self, trace, test, item):
        return as_tracer(trace, self._vote(trace, test, item), np.bool_)

    def step(self, trace, test, item, acc):
        vote = self._vote(trace, test, item)
        return np.logical_or(acc, vote) if self.any else np.logical_and(acc, vote)

    def result(self, acc):
        return fresh(acc, True, True)  # a Python bool


class _Extreme:
    """Python's running choice: a later item wins only where it compares better, so a NaN first
    stays and a NaN later never enters."""

    def __init__(self, builtin):
        self.builtin = builtin

    def first(self, trace, test, item):
        if np.ndim(item):
            _one_truth_value(as_tracer(trace, item, _dtype(item)), f"{self.builtin.__name__}()")
        self.model = item
        return as_tracer(trace, item, _dtype(item)), as_tracer(trace, test, np.bool_)

    def step(self, trace, test, item, state):
        best, seen = state
        better = item > best if self.builtin is max else item < best
        take = np.logical_and(test, np.logical_or(np.logical_not(seen), better))
        return _pick(trace, take, item, best), np.logical_or(seen, test)

    def result(self, state):
        best, seen = state
        raise_at_first(np.logical_not(seen), 0, kernel.MAX_OF_EMPTY if self.builtin is max
                       else kernel.MIN_OF_EMPTY)
        return _flagged(best, self.model)


def _fold(reducer, rest, kwargs):
    """The masked fold for ``reducer(generator, *rest, **kwargs)``, or None (Python's call)."""
    if reducer is sum and not kwargs.keys() - {"start"} and len(rest) + len(kwargs) <= 1:
        return _Sum(*rest, **kwargs)
    if rest or kwargs:
        return None  # max(..., key=, default=): Python's
    if reducer is len:
        return _Len()
    if reducer in (any, all):
        return _AnyAll(reducer is any)
    if reducer in (max, min):
        return _Extreme(reducer)
    return None


def filtered(reducer, called, iterable, element, tests, is_list, *rest, **kwargs):
    """``reducer(element(t) for t in iterable if all tests(t), *rest, **kwargs)`` as converted
    code calls it (``called``: what ``call(reducer)`` gives); a masked fold where a test is
    traced (see the module's docstring)."""
    fold = _fold(reducer, rest, kwargs)
    if fold is None:
        return called(_python(iterable, element, tests, is_list), *rest, **kwargs)
    if isinstance(iterable, Indexed) or isinstance(iterable, Tracer) and iterable.ndim:
        if len(iterable) == 0 or _test(iterable[0], tests) is False:
            return called([], *rest, **kwargs)  # (a concrete test is the same for every item)
        return _looped(fold, iterable, element, tests)
    kept, entries = [], []
    for t in iterable:
        test = _test(t, tests)
        if isinstance(test, Tracer):
            entries.append((test, _only_if(test, lambda t=t: element(t))))
        elif test:
            kept.append(element(t))
            entries.append((True, kept[-1]))
    if len(kept) == len(entries):  # every test concrete: Python's own call
        return called(kept, *rest, **kwargs)
    trace = find_trace(*pytree.flatten(entries)[0])
    state = fold.first(trace, *entries[0])
    for test, item in entries[1:]:
        state = fold.step(trace, test, item, state)
    return fold.result(state)


def _test(t, tests):
    test = and_(*(lambda test=test: test(t) for test in tests))
    if isinstance(test, Tracer):
        _one_truth_value(test, "the 'if' of a generator expression")
        return _truth(test)
    return bool(test)  # as Python's if asks


def _looped(fold, items, element, tests):
    """The fold over ``items[0]``, then a compiled loop over the rest."""
    def masked(i):
        t = items[i]
        test = _test(t, tests)
        if not isinstance(test, Tracer):  # a test that does not depend on the item: true
            return test, element(t)
        return test, _only_if(test, lambda: element(t))

    trace = find_trace(*pytree.flatten(items if isinstance(items, Tracer) else items[0])[0])
    state = fold.first(trace, *masked(0))
    if len(items) > 1:
        state = cf.fori_loop(1, len(items), lambda i, s: fold.step(trace, *masked(i), s), state)
    return fold.result(state)


def _python(iterable, element, tests, is_list):
    """The comprehension as Python runs it, a traced test refused (``comprehension_test``)."""
    kept = (element(t) for t in iterable if comprehension_test(_test(t, tests)))
    return list(kept) if is_list else kept
