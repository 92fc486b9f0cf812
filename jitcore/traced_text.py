"""Text made from traced values (``s = f"{a.sum():.3f}"``, ``str(int(k))``, ``bin(k)``) while
a function is traced: a ``TracedText``, a ``str`` whose characters are jitcore's placeholders
(``jitcore/formatting.py``), filled in where the compiled code prints or raises the text.

Before, that text was a plain ``str`` and Python's str operations ran on the placeholder:
``len(s)`` was 17 where the number has 5 characters, ``s == "2.0"`` was False, ``s.rjust(8)``
and ``f"{s:>8}"`` padded the placeholder, so printed tables lost their alignment. Now every
operation of ``str`` is one of three kinds, by construction (the class defines each name that
``str`` has; one not listed here is refused):

- joined: ``+``, ``*``, ``join``, an f-string or ``%`` around it: the placeholders are joined
  as text, which is what the filled-in text would be;
- deferred: what reads the characters to make text (``rjust``, ``zfill``, ``upper``,
  ``replace``, a format spec, ``repr``): a ``TextOp``, a placeholder made from its inputs'
  filled-in text at each call, exactly Python's text;
- refused: what gives the user anything but text (``len``, ``==``, ``in``, ``s[0]``,
  ``float(s)``, ``hash`` so a dict key, ``split``): a ConcretizationError saying what to do.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from jitcore import formatting
from jitcore import tracer as _tracer
from jitcore.errors import ConcretizationError

# str's methods that make text from the characters: made at each call from the filled-in text
_DEFERRED = ("capitalize", "casefold", "center", "expandtabs", "ljust", "lower", "lstrip",
             "removeprefix", "removesuffix", "replace", "rjust", "rstrip", "strip", "swapcase",
             "title", "translate", "upper", "zfill", "format", "format_map", "__mod__")
# object's machinery, not operations of text (copy.copy's __reduce_ex__ makes a TracedText again)
_MACHINERY = frozenset(("__class__", "__new__", "__init__", "__init_subclass__", "__subclasshook__",
                        "__getattribute__", "__setattr__", "__delattr__", "__dir__", "__doc__",
                        "__getstate__", "__getnewargs__", "__reduce__", "__reduce_ex__", "maketrans"))
# what a refusal says each refused operation is, where the method's name does not say it
_SAID = {"__len__": "len()", "__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=",
         "__gt__": ">", "__ge__": ">=", "__contains__": "'in'", "__getitem__": "indexing (s[i])",
         "__iter__": "iterating over it", "__hash__": "hash() (a dict key or a set item)",
         "__float__": "float()", "__int__": "int()", "__complex__": "complex()",
         "__bool__": "its truth (if s:, bool())", "__sizeof__": "sys.getsizeof()"}


def refused(what: str, instead: str | None = None) -> ConcretizationError:
    """The error for ``what``, an operation that needs the characters of a TracedText."""
    from jitcore.tracer import user_location
    return ConcretizationError(
        f"{what} at {user_location()} of text made from a traced value (str(x), format(x, ...), "
        "f\"{x:...}\", '%.2f' % x inside the jitted function) needs its characters, which "
        "exist only when the compiled function runs: jitcore makes such text at each call, "
        "where it is printed, raised or written to a log. " + (instead or (
            "Work on the number instead (compare x, not its text; np.round(x, 3) for a rounded "
            "value), or return the value and format it outside the function")))


def placeholder(tracer, spec: str) -> TracedText:
    """``format(tracer, spec)`` in the user's code: its placeholder, as a TracedText."""
    return TracedText(formatting.placeholder(tracer, spec), tracer.owner_trace)


def text(value, trace):
    """``value`` as a TracedText where it holds placeholders, else as it is."""
    if type(value) is str and formatting.holds(value):
        return TracedText(value, trace)
    return value


def joined(value):
    """An f-string's text (converted code wraps each ``f"..."``): a TracedText where one of its
    fields was formatted from a traced value."""
    if type(value) is not str or not formatting.holds(value):
        return value
    from jitcore.tracer import current_trace
    return TracedText(value, current_trace())


def _texts_in(value, found: list):
    """``value`` with each TracedText in it (in tuples, lists, dicts) replaced by its position
    in ``found``, appended there; a traced value is refused (its text is not known here)."""
    from jitcore.tracer import Tracer
    if isinstance(value, TracedText):
        found.append(value)
        return _Slot(len(found) - 1)
    if isinstance(value, Tracer):
        raise refused(f"a traced value ({value.description()}) given to a str method")
    if isinstance(value, (tuple, list)):
        return type(value)(_texts_in(v, found) for v in value)
    if isinstance(value, dict):
        return {k: _texts_in(v, found) for k, v in value.items()}
    return value


def numbered(value: str, trace, where: str):
    """``(number, texts)``: a text a traced branch gives, as the number of the one it is among
    ``texts`` (a traced choice's own, or itself alone), for the branch to give in its place;
    the text is then picked at each call (``choice``). Text formatted from a value computed in
    the branch (``where``) is refused: that value exists only inside it."""
    index, options = getattr(value, "choice", None) or (0, (value,))
    inner = [t for _, (t, _) in formatting.values_in(options, trace) if t.level >= trace.depth]
    if inner:
        from jitcore.tracer import needs_static
        raise needs_static(refused(
            f"text formatted from a value computed inside {where} ({inner[0].description()})",
            "Compute the value before it (v = x.mean(); f\"{v:.2f}\" if ok else 'n/a'): the "
            "text is then picked at each call"), *inner)
    return index, options


class _Slot(int):
    """Where an argument's TracedText goes, filled in at the call."""


def _filled_in(value, filled):
    if type(value) is _Slot:
        return filled[value]
    if isinstance(value, (tuple, list)):
        return type(value)(_filled_in(v, filled) for v in value)
    if isinstance(value, dict):
        return {k: _filled_in(v, filled) for k, v in value.items()}
    return value


def defer(trace, function, *args, **kwargs):
    """``function(*args, **kwargs)``, made at each call with each TracedText among its arguments
    filled in; checked now on the placeholders, so a wrong argument raises Python's error here."""
    plain = [str.__str__(a) if isinstance(a, TracedText) else a for a in args]
    function(*plain, **kwargs)  # TypeError for rjust("8"), as Python's, while tracing
    found: list = []
    args, kwargs = _texts_in((args, kwargs), found)

    def apply(filled, _):
        a, k = _filled_in((args, kwargs), filled)
        return function(*a, **k)

    return TracedText(formatting.deferred(trace, formatting.TextOp(found, apply)), trace)


def choice(trace, index, options: tuple):
    """``options[index]`` at each call, ``index`` traced (``"+" if d >= 0 else "-"``)."""
    chosen = TracedText(formatting.deferred(
        trace, formatting.TextOp(options, lambda filled, k: filled[int(k)]), index), trace)
    chosen.choice = (index, tuple(options))  # (a traced choice around it picks among all of them)
    return chosen


# plain str's methods that join their arguments' text as it is (the placeholders kept whole)
_JOINING = frozenset(("join", "format", "format_map", "__add__", "__mod__"))
# builtins that read a text's characters (the others store it, format it, or call its methods)
_READING = frozenset((ord, int, float, complex, bytes, bytearray, open, eval, exec, compile, memoryview))
_STORING = (list, dict, set, tuple)
# modules whose functions look at their caller's frame: a wrapper's frame would be theirs
_FRAMES = frozenset(("sys", "inspect", "traceback", "builtins", "warnings", "logging"))


def unread(f, forced: bool = False, named=None):
    """``f``, a library's function or a C function the converted code calls: refused a TracedText
    among its arguments (it would read the placeholder as text), except plain str's methods that
    join it as text (``"-".join(labels)``, ``"{:>8}".format(s)``), whose result is one.
    ``forced``: ``f`` is jitcore's own version of one that reads text (``int``, ``np.array``),
    ``named`` that one, whose name the refusal gives."""
    owner, name = getattr(f, "__self__", None), getattr(f, "__name__", "")
    module = str(getattr(f, "__module__", ""))
    if not forced and type(owner) is not str and not reads(f) and (
            module in _FRAMES or module.startswith("jitcore") or isinstance(owner, _STORING)
            or isinstance(owner, np.ufunc)):
        # (containers store text; a TracedText's methods check themselves; a ufunc's methods
        # stay themselves, so ufunc.at on a local array is still seen as one: arrays.at_call)
        return f
    joins = type(owner) is str and name in _JOINING
    shown = named if named is not None else f
    what = f"{'str.' if type(owner) is str else ''}{getattr(shown, '__qualname__', name)}()"

    # C code calling back (str.format formatting a traced value) sees this frame, not the user's
    # frame it was called from: their text is the user's, as it was
    context = formatting.users_text if not hasattr(f, "__code__") else contextlib.nullcontext

    def checked(*args, **kwargs):
        found = _text_among(args)
        found = _text_among(kwargs.values()) if found is None else found
        if found is None:
            with context():
                return f(*args, **kwargs)
        if joins:
            with context():
                return text(f(*args, **kwargs), found._trace)
        raise refused(f"{what} given it (its code would read jitcore's stand-in text)")

    checked.__wrapped__ = f  # (what the rewrites that look at the function see: arrays.out_call)
    return checked


def reads(f) -> bool:
    """Whether ``f`` reads text given it: a builtin that parses or encodes it, or NumPy's."""
    if str(getattr(f, "__module__", "")).startswith("numpy"):
        return True
    try:
        return f in _READING
    except TypeError:  # (unhashable)
        return False


def _text_among(values):
    """The first TracedText among ``values`` and the lists, tuples and dicts' values in them."""
    for v in values:
        if isinstance(v, TracedText):
            return v
        if isinstance(v, (list, tuple)) or isinstance(v, dict) and (v := v.values()):
            inner = next((w for w in v if isinstance(w, TracedText)), None)
            if inner is not None:
                return inner
    return None


class TracedText(str):
    """Text holding placeholders of traced values: ``str``'s operations joined, deferred to
    each call, or refused (the module's docstring)."""

    def __new__(cls, value: str, trace):
        self = super().__new__(cls, value)
        self._trace = trace
        return self

    # -- joined: the placeholders' text joined as the filled-in text would be
    def _text(self, value):
        return text(value, self._trace)

    def __add__(self, other):
        return self._text(str.__add__(self, other)) if isinstance(other, str) else NotImplemented

    def __radd__(self, other):
        return self._text(str.__add__(other, self)) if isinstance(other, str) else NotImplemented

    def __mul__(self, count):
        from jitcore.tracer import Tracer
        if isinstance(count, Tracer):
            raise refused(f"repeating it a traced number of times ({count.description()})")
        return self._text(str.__mul__(self, count))

    __rmul__ = __mul__

    def join(self, items):
        return self._text(str.join(self, list(items)))

    def __str__(self):
        return self

    # -- deferred: made at each call from the filled-in text
    def __format__(self, spec: str):
        if formatting.holds(spec):
            raise refused("a format spec made from a traced value (f\"{s:>{w}}\")")
        return defer(self._trace, format, self, spec) if spec else self

    def __rmod__(self, template):  # "%8s" % s: the whole %, made at each call
        if not isinstance(template, str):
            return NotImplemented
        return defer(self._trace, str.__mod__, template, self)

    def __repr__(self):
        from jitcore.tracer import is_user_file
        if formatting.for_user(sys._getframe(1).f_code.co_filename, is_user_file):
            return defer(self._trace, repr, self)
        return repr(formatting.shown(self))  # jitcore's own messages: "'loss {...}'"


def _deferred(name: str):
    method = getattr(str, name)

    def deferred(self, *args, **kwargs):
        return defer(self._trace, method, self, *args, **kwargs)

    deferred.__name__ = name
    return deferred


def _refusal(name: str):
    what = _SAID.get(name, f"str.{name}()")

    def refuse(self, *args, **kwargs):
        raise refused(what)

    refuse.__name__ = name
    return refuse


for _name in _DEFERRED:
    setattr(TracedText, _name, _deferred(_name))
# everything else str has (and what numbers and bool ask of it) is refused: nothing can read
# the placeholders' characters as if they were the text
for _name in sorted(set(dir(str)) | set(_SAID)):
    if _name not in TracedText.__dict__ and _name not in _MACHINERY:
        setattr(TracedText, _name, _refusal(_name))


_tracer.text_of = placeholder  # what a traced value formats to in the user's code
