"""Extents that record what the code generator asks of them: the guards of an emission.

A size-generic function's new size (``jitcore/new_size.py``) lowers an optimized program that
is an earlier size's with its *symbols* (argument extents) replaced. Lowered with each
symbol's value an ``Extent`` instead of an int, the plan stage and the emitter learn nothing
about a size except through an ``Extent``'s methods, and each of those records what it
answered: a comparison's bool, a ``hash``, an ``int()`` or a printed literal (the value
itself). Arithmetic with ints gives another ``Extent`` (its value a function of the symbols),
so ``n - 2 > 0`` records the predicate on ``n``, not on a number. The recorded answers are the
emission's *guards*: at other symbol values where every guard gives the same answer, the same
deterministic code makes the same choices, so the plan is the template's with each ``Extent``
evaluated at the new values (``instantiate``), and the LLVM text is the same text.

Why not an ``int`` subclass: C code reads an int subclass's digits directly (``range(n)``,
``seq[n]``, ``"%d" % n``, NumPy's conversions) without calling any method, so its uses would
escape the log. An ``Extent`` is no int (it only says ``int`` as its ``__class__``, for the
``isinstance`` checks); C code that needs an int calls ``__index__``, which records. So
"anything not recorded cannot be reused" holds by construction: the value is reachable only
through the methods below. Anything they cannot record as an answer (an operation that
raises, a result that is not a plain scalar) *poisons* the log: no reuse.
"""

from __future__ import annotations

import math
import operator
import threading

import numpy as np

# The scalars an Extent computes with exactly (as Python ints do); others give a plain result
# recorded as a guard.
_INTS = (int, bool)
_SCALARS = (int, bool, float, complex, np.generic)
_local = threading.local()


class Log:
    """The guards one lowering recorded: (function of the symbols' values, its answer)."""

    def __init__(self, values: tuple[int, ...]):
        self.values = tuple(values)
        self.guards: list = []
        self.poisoned: str | None = None

    def extents(self) -> tuple[Extent, ...]:
        """One Extent per symbol, for the lowering to see instead of the symbols' values."""
        return tuple(Extent(v, _symbol(i), self) for i, v in enumerate(self.values))

    def record(self, fn, answer) -> None:
        if isinstance(answer, float) and math.isnan(answer):
            self.poison("a NaN answer")
        self.guards.append((fn, answer))

    def poison(self, why: str) -> None:
        if self.poisoned is None:
            self.poisoned = why

    def holds(self, values: tuple[int, ...]) -> bool:
        """Whether every guard gives its answer at ``values`` (and the log is not poisoned)."""
        if self.poisoned is not None or len(values) != len(self.values):
            return False
        for fn, answer in self.guards:
            try:
                got = fn(values)
            except Exception:  # (a division by a size that became 0, say): not the same code
                return False
            if type(got) is not type(answer) or got != answer:
                return False
        return True


def _symbol(i):
    return lambda values: values[i]


def _value(x):
    return x._value if type(x) is Extent else x


def _foreign(self, other) -> bool:
    """Whether ``other`` is an Extent of another lowering's log (kept by a cache, say): its
    function reads other symbols, so both logs answer with their values and are poisoned."""
    if type(other) is not Extent or other._log is self._log:
        return False
    for x in (self, other):
        x._log.record(x._fn, x._value)
        x._log.poison("an Extent met one of another lowering")
    return True


def _fn(x):
    if type(x) is Extent:
        return x._fn
    return lambda values: x


class Extent:
    """A symbol's value, or a function of the symbols' values, seen by the code generator."""

    __slots__ = ("_value", "_fn", "_log")

    def __init__(self, value: int, fn, log: Log):
        self._value = value
        self._fn = fn
        self._log = log

    # says int to ``isinstance`` (it computes as one); ``type()`` tells the truth
    @property
    def __class__(self):
        return int

    def _escape(self, answer):
        """The value itself left (printed, hashed, converted): guarded by equality."""
        self._log.record(self._fn, self._value)
        return answer

    def __index__(self):
        return self._escape(self._value)

    def __int__(self):
        return self._escape(self._value)

    def __float__(self):
        return self._escape(float(self._value))

    def __complex__(self):
        return self._escape(complex(self._value))

    def __hash__(self):
        return self._escape(hash(self._value))

    def __str__(self):
        return self._escape(str(self._value))

    def __repr__(self):
        return self._escape(repr(self._value))

    def __format__(self, spec):
        return self._escape(format(self._value, spec))

    def __reduce_ex__(self, protocol):
        return self._escape((int, (self._value,)))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __getattr__(self, name):  # int's methods and properties (bit_length, real, ...)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._escape(self._value), name)

    def __bool__(self):
        fn = self._fn
        answer = bool(self._value)
        self._log.record(lambda values: bool(fn(values)), answer)
        return answer


def _binary(op, reflected=False):
    def method(self, other):
        if type(other) is not Extent and not isinstance(other, _SCALARS):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        if _foreign(self, other):
            return op(_value(a), _value(b))
        try:
            result = op(_value(a), _value(b))
        except Exception:
            self._log.poison(f"{op.__name__} raised")
            raise
        fa, fb = _fn(a), _fn(b)
        fn = lambda values: op(fa(values), fb(values))  # noqa: E731
        if type(result) is int and all(type(x) is Extent or type(x) in _INTS for x in (a, b)):
            return Extent(result, fn, self._log)  # exact: another function of the symbols
        if not isinstance(result, (bool, int, float, complex, np.generic)):
            self._log.poison(f"{op.__name__} gave a {type(result).__name__}")
        self._log.record(fn, result)
        return result
    return method


def _compare(op):
    def method(self, other):
        if type(other) is not Extent and not isinstance(other, _SCALARS):
            return NotImplemented
        answer = op(self._value, _value(other))
        if _foreign(self, other):
            return answer
        fa, fb = self._fn, _fn(other)
        self._log.record(lambda values: op(fa(values), fb(values)), answer)
        return answer
    return method


def _unary(op):
    def method(self):
        fn = self._fn
        return Extent(op(self._value), lambda values: op(fn(values)), self._log)
    return method


for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("floordiv", operator.floordiv), ("truediv", operator.truediv),
                   ("mod", operator.mod), ("pow", operator.pow), ("lshift", operator.lshift),
                   ("rshift", operator.rshift), ("and", operator.and_), ("or", operator.or_),
                   ("xor", operator.xor), ("divmod", divmod)):
    setattr(Extent, f"__{_name}__", _binary(_op))
    setattr(Extent, f"__r{_name}__", _binary(_op, reflected=True))
for _name, _op in (("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt),
                   ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)):
    setattr(Extent, f"__{_name}__", _compare(_op))
for _name, _op in (("neg", operator.neg), ("pos", operator.pos), ("abs", abs),
                   ("invert", operator.invert), ("trunc", math.trunc), ("floor", math.floor),
                   ("ceil", math.ceil)):
    setattr(Extent, f"__{_name}__", _unary(_op))
Extent.__round__ = lambda self, n=None: self._escape(round(self._value, n))


class ByEquality:
    """A dict that finds a key by ``==`` alone, never by its hash: for keys that may be or
    hold Extents (extents, types), whose hash would pin the emission to their values where a
    comparison records only its answer. For a handful of keys: a linear scan."""

    __slots__ = ("_items",)

    def __init__(self):
        self._items: list = []

    def _find(self, n) -> int:
        for i, (key, _) in enumerate(self._items):
            if key == n:
                return i
        return -1

    def get(self, n, default=None):
        i = self._find(n)
        return default if i < 0 else self._items[i][1]

    def setdefault(self, n, value):
        i = self._find(n)
        if i >= 0:
            return self._items[i][1]
        self._items.append((n, value))
        return value

    def __getitem__(self, n):
        i = self._find(n)
        if i < 0:
            raise KeyError(n)
        return self._items[i][1]

    def __setitem__(self, n, value) -> None:
        i = self._find(n)
        if i < 0:
            self._items.append((n, value))
        else:
            self._items[i] = (self._items[i][0], value)

    def __delitem__(self, n) -> None:
        i = self._find(n)
        if i < 0:
            raise KeyError(n)
        del self._items[i]

    def pop(self, n, *default):
        i = self._find(n)
        if i < 0:
            if default:
                return default[0]
            raise KeyError(n)
        return self._items.pop(i)[1]

    def __contains__(self, n) -> bool:
        return self._find(n) >= 0

    def __iter__(self):
        return iter([key for key, _ in self._items])

    def __len__(self) -> int:
        return len(self._items)

    def values(self):
        return [value for _, value in self._items]

    def items(self):
        return list(self._items)


def is_extent(x) -> bool:
    return type(x) is Extent


def instantiate(value, values: tuple[int, ...], log: Log):
    """``value`` (a plan: dataclasses, tuples, lists, dicts, arrays, scalars) with each Extent
    replaced by its int at ``values``; poisons ``log`` where an Extent sits somewhere this
    does not look (an object array, an object of another kind)."""
    if type(value) is Extent:
        if value._log is not log:  # one of another lowering's (kept by a cache): not ours
            log.poison("an Extent of another lowering in the plan")
            return value._value
        return value._fn(values)
    if value is None or isinstance(value, (str, bytes, bool, int, float, complex, np.generic,
                                           np.dtype, type)):
        return value
    if isinstance(value, tuple):
        return type(value)(instantiate(v, values, log) for v in value) if type(value) is tuple \
            else type(value)(*(instantiate(v, values, log) for v in value))
    if isinstance(value, list):
        return [instantiate(v, values, log) for v in value]
    if isinstance(value, dict):
        return {instantiate(k, values, log): instantiate(v, values, log) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            log.poison("an object array in the plan")
        return value
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is None:
        log.poison(f"a {type(value).__name__} in the plan")
        return value
    copy = object.__new__(type(value))
    for name in fields:
        object.__setattr__(copy, name, instantiate(getattr(value, name), values, log))
    return copy
