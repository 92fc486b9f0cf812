"""Python's list operations that compare items, on lists of traced numbers: ``v in l``,
``l.index(v)``, ``l.count(v)``, ``l.sort(key=, reverse=)``, ``sorted(l, key=)``, and ``map``.

Why: Python runs these with ``bool()`` of each comparison, which a traced number cannot give
while tracing ("bool() needs a concrete value"), while ``sorted(l)``, ``max(l)`` and ``sum(l)``
of the same list worked (new user h1, round 51: R4, R5).

How: each is the comparison of every item at once. ``in`` and ``count`` are Python's rule per
item (the same object, or ``==``: so NaN is in a list that holds that very NaN object, and
never equal to another NaN) folded into one traced bool or int; ``index`` is the first equal
position (the call raises Python's ValueError, "v is not in list", when none is); ``sort`` and
``sorted`` with a ``key`` order the keys with NumPy's stable argsort (Python's reverse: the
reversed list sorted stably, reversed again, so equal keys keep their order) and take the items
in that order. Items must be numbers (or same-shaped arrays, or tuples of those) for the items to
be chosen by a traced position; anything else is Python's own call, as before.
"""

from __future__ import annotations

import sys

import numpy as np

from jitcore import primitives as prims
from jitcore.autograph import appending
from jitcore.autograph.expressions import Indexed, _element, _indexable, not_, stand_in_type
from jitcore.errors import UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.python_arithmetic import python_number
from jitcore.tracer import Tracer, as_scalar, fresh, needs_static, user_location

_NUMBERS = (bool, int, float, complex, np.bool_, np.number)


def _number(v) -> bool:
    return (isinstance(v, Tracer) and v.ndim == 0) or isinstance(v, _NUMBERS)


def _equalities(items, value) -> list | None:
    """Python's per-item test of ``in``, ``index`` and ``count`` (``item is value or item ==
    value``): concrete bools and traced ones; None where nothing is traced or an item is not a
    number (Python's own comparison then, as before)."""
    if type(items) not in (list, tuple) or not _number(value) or not all(_number(v) for v in items):
        return None
    if not isinstance(value, Tracer) and not any(isinstance(v, Tracer) for v in items):
        return None
    return [True if item is value else item == value for item in items]


def _any(tests: list):
    """A Python bool: True where a concrete test holds, else the traced or of the others."""
    if any(t is True or (not isinstance(t, Tracer) and bool(t)) for t in tests):
        return True
    traced = [t for t in tests if isinstance(t, Tracer)]
    if not traced:
        return False
    return fresh(np.any(np.stack(traced)), True, True)


def contains(items, value):
    """``value in items`` of a list or tuple of numbers some of which are traced: a traced bool
    (of a list in the loop that appends to it: ``appending``)."""
    if appending.appended_in_loop(items):
        return items.contains(value)
    tests = _equalities(items, value)
    return value in items if tests is None else _any(tests)


def not_contains(items, value):
    if appending.appended_in_loop(items):
        return not_(items.contains(value))
    tests = _equalities(items, value)
    return value not in items if tests is None else not_(_any(tests))


def _count(items: list, value):
    tests = _equalities(items, value)
    if tests is None:
        return items.count(value)
    total = sum(1 for t in tests if not isinstance(t, Tracer) and t)
    traced = [t for t in tests if isinstance(t, Tracer)]
    if not traced:
        return total
    return fresh(np.sum(np.stack(traced).astype(np.int64)) + total, True, True)


# "v is not in list", as Python words it for the value's type (its repr), by the value's kind
_NOT_IN_LIST = {(int, False): "{index} is not in list", (float, False): "{float} is not in list",
                (np.int64, True): "np.int64({index}) is not in list",
                (np.float64, True): "np.float64({float}) is not in list"}


def _index(items, value, start=0, stop=sys.maxsize):
    """``items.index(value[, start[, stop]])``: the first equal item's position, a Python int;
    where no item is equal the call raises Python's ValueError."""
    if not all(isinstance(b, int) for b in (start, stop)):
        return items.index(value, start, stop)
    lo, hi, _ = slice(start, stop).indices(len(items))
    tests = _equalities(items[lo:hi], value)
    if tests is None:
        return items.index(value, start, stop)
    if not any(isinstance(t, Tracer) for t in tests):
        return items.index(value, start, stop)
    for k, t in enumerate(tests):  # a concrete match before any traced test: Python's answer
        if isinstance(t, Tracer):
            break
        if t:
            return lo + k
    first = next((k for k, t in enumerate(tests) if t is True or not isinstance(t, Tracer) and t), len(tests))
    tests = [t if isinstance(t, Tracer) else np.asarray(bool(t)) for t in tests[:first + 1]]
    stacked = np.stack(tests)
    if first == len(tests):  # (no item is surely equal: the call checks)
        _raise_not_in_list(np.logical_not(np.any(stacked)), value, type(items) is tuple)
    return fresh(np.argmax(stacked) + lo, True, True)


def _raise_not_in_list(bad: Tracer, value, of_tuple: bool) -> None:
    """The call raises Python's ValueError where ``bad`` holds, the value in its message as
    its repr is (word 1: an int64, or a float64's bits); a tuple's, its own words."""
    kind = stand_in_type(value)
    message = _NOT_IN_LIST.get((kind, kind in (np.int64, np.float64)), "the value is not in list")
    if of_tuple:
        message = "tuple.index(x): x not in tuple"
    trace = bad.owner_trace
    prims.refuse_caught(trace, ValueError, [bad], f"list.index at {user_location()} may raise ValueError",
                        "Test membership first (if v in items: ...)")
    dtype = np.float64 if kind is float else np.int64
    word = value if isinstance(value, Tracer) else prims.constant(trace, np.asarray(value, dtype))
    prims.raise_if(bad, kernel.python_error_code("ValueError", message), [word])


def sorted_(iterable, /, *, key=None, reverse=False, call=None):
    """``sorted``: with a ``key`` whose values are traced numbers, the items in the stable order
    of their keys (module docstring); otherwise ``expressions._sorted``."""
    from jitcore.autograph.expressions import _sorted

    values = list(iterable)
    if key is None or isinstance(reverse, Tracer):
        return _sorted(values, key=key, reverse=reverse)
    keys = [(call(key) if call is not None else key)(v) for v in values]
    if not any(isinstance(k, Tracer) for k in keys):
        order = sorted(range(len(values)), key=keys.__getitem__, reverse=bool(reverse))
        return [values[k] for k in order]
    if not all(_number(k) for k in keys) or any(isinstance(k, complex) or
                                                isinstance(k, Tracer) and k.dtype.kind == "c" for k in keys):
        raise UnsupportedError(
            f"sorted()/list.sort() with a key that gives {type(keys[0]).__name__} values of "
            f"traced data (at {user_location()}): under jit the keys are ordered as one array of "
            "real numbers. Give a key that returns one number per item")
    stacked = np.stack([k if isinstance(k, Tracer) else np.asarray(k) for k in keys])
    if reverse:  # Python's reverse: reversed, sorted stably, reversed again
        order = (len(keys) - 1) - np.argsort(stacked[::-1])[::-1]
    else:
        order = np.argsort(stacked)
    return _taken(values, order)


def _taken(values: list, order: Tracer) -> list:
    """``[values[order[k]] for k in ...]`` with a traced ``order``: numbers (one type of Python
    number each as it was, else NumPy scalars of their promotion), same-shaped arrays, or
    tuples of those (each field taken alike)."""
    if all(type(v) is tuple for v in values) and len({len(v) for v in values}) == 1:
        fields = [_taken(list(column), order) for column in zip(*values)]
        return [tuple(f[k] for f in fields) for k in range(len(values))]
    if all(_number(v) for v in values):
        stacked = _stacked(order, [v if isinstance(v, Tracer) else np.asarray(v) for v in values])
        python = all(python_number(v) for v in values) and len({stand_in_type(v) for v in values}) == 1
        picked = stacked[order]
        return [fresh(picked[k], True, True) if python else as_scalar(picked[k]) for k in range(len(values))]
    if all(isinstance(v, (Tracer, np.ndarray)) for v in values) and len({np.shape(v) for v in values}) == 1:
        stacked = _stacked(order, values)
        return [stacked[order[k]] for k in range(len(values))]
    raise UnsupportedError(
        f"sorted()/list.sort() of {type(values[0]).__name__} items by keys of traced data (at "
        f"{user_location()}): the order is known only when the function runs, and only numbers, "
        "arrays of one shape, or tuples of those can be placed by it. Sort an array of the "
        "values (np.argsort(keys)) and index with it")


def _stacked(order: Tracer, values: list) -> Tracer:
    """The values stacked, traced (constants where none is), so a traced order can index them."""
    stacked = np.stack(values)
    return stacked if isinstance(stacked, Tracer) else prims.constant(order.owner_trace, stacked)


COMPARING = frozenset(("index", "count", "sort"))  # the methods ``list_method`` gives


def list_method(owner: list, name: str, call):
    """The traced-aware ``owner.name`` of a list for converted code, or None (Python's own)."""
    if name == "index":
        return lambda value, *bounds: _index(owner, value, *bounds)
    if name == "count":
        return lambda value: _count(owner, value)
    if name == "sort":
        def sort(*, key=None, reverse=False):
            if key is None and not any(isinstance(v, Tracer) for v in owner):
                return owner.sort(reverse=reverse)
            # (a key may read traced data of Python items: idx.sort(key=lambda i: d[i]))
            owner[:] = sorted_(owner, key=key, reverse=reverse, call=call)
        return sort
    return None


def map_(call):
    """``map(f, x, ...)`` with a traced array among the iterables: ``f`` of each item, as a
    comprehension's items (``Indexed``: one compiled loop where ``list(...)`` of it is long)."""
    def map_of(f, *iterables):
        if not iterables or not any(isinstance(a, (Tracer, Indexed)) for a in iterables) \
                or not all(_indexable(a) for a in iterables):
            return map(call(f), *iterables)
        fn = call(f)
        return Indexed(min(len(a) for a in iterables), lambda i: fn(*(_element(a, i) for a in iterables)))
    return map_of


def filter_(call):
    """``filter(f, x)``: Python's where ``f``'s answers are concrete; where the data decides
    them, refused saying what to write (the kept items' number is known only at run time)."""
    def filter_of(f, iterable):
        test = (lambda v: v) if f is None else call(f)

        def kept():
            for v in iterable:
                answer = test(v)
                if isinstance(answer, Tracer):
                    raise needs_static(UnsupportedError(
                        f"filter() with a test the data decides (at {user_location()}): how many "
                        "items it keeps is known only when the function runs. Reduce them at "
                        "once (sum(v for v in x if test(v))), or select with a mask "
                        "(x[mask], np.where(mask, x, 0))"), answer)
                if answer:
                    yield v
        return kept()
    return filter_of


def heapq_call(f):
    """``heapq``'s functions (``heappush``, ``heappop``, ``heapreplace``, ...), as converted code
    calls them: Python's own where no argument holds a traced number; else refused, naming heapq
    (a heap's order is chosen by comparing its items, which a traced number cannot answer while
    tracing; before session 57 the user met a message about loop values or appends instead)."""
    def heapq_(*args, **kwargs):
        if not prims.holds_tracer((args, kwargs)):
            return f(*args, **kwargs)
        name = getattr(f, "__name__", "heapq")
        raise UnsupportedError(
            f"heapq.{name} of a list holding traced numbers (at {user_location()}): a heap keeps "
            "its items ordered by comparing them, and jitcore has no compiled heap (heapq is not "
            "supported on traced values, whether the list's length stays the same or not). Keep "
            "the values in an array and take the smallest with np.argmin: free = np.zeros(c); "
            "k = np.argmin(free); f = free[k]; free[k] = new_value (heappop then heappush), or "
            "np.sort(x)[:k] for heapq.nsmallest(k, x)")

    heapq_.__name__ = heapq_.__qualname__ = getattr(f, "__name__", "heapq_")
    heapq_.__wrapped__ = f
    return heapq_
