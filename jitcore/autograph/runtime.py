"""What converted code calls as ``__ag__``: the statement helpers (``statements``), the
expression helpers (``expressions``), and ``call``, through which every call goes so that the
user's own functions are converted too.
"""

from __future__ import annotations

import builtins
import contextlib
import sys
import types

import numpy as np
from numpy.polynomial._polybase import ABCPolyBase

from jitcore import calltime, failures, formatting, kind_conversion, pytree, random, traced_text
from jitcore import primitives as prims
from jitcore.autograph import (
    convert,
    expressions,
    list_methods,
    local_arrays,
    math_calls,
    operators,
    outputs,
    vectorized,
)
from jitcore.autograph.arrays import at_call, out_call, out_part, ufunc_method
from jitcore.autograph.comprehensions import comprehension, comprehension_call
from jitcore.autograph.expressions import (
    BUILTINS,
    and_,
    fill,
    getitem,
    if_exp,
    nested_setitem,
    not_,
    or_,
    setitem,
    view_setitem,
)
from jitcore.autograph.filtered import comprehension_test, filtered
from jitcore.autograph.printf import percent
from jitcore.autograph.statements import (
    carried,
    for_stmt,
    holders,
    if_stmt,
    method_sets,
    result,
    state,
    while_stmt,
)
from jitcore.autograph.unbound import Undefined, bound
from jitcore.data_length import KeptList
from jitcore.debugging import debug_callback
from jitcore.errors import ConcretizationError, JitTypeError, TracerConversionError, UnsupportedError
from jitcore.masked import MaskedSelection
from jitcore.numpy.orthogonal_series import call_series
from jitcore.traced_text import joined
from jitcore.tracer import Tracer, current_trace, is_user_file, print_options, user_location

__all__ = ["and_", "at_call", "attempt", "aug_assign", "aug_setitem", "bound", "bound_before", "call",
           "caught", "compare",
           "comprehension", "comprehension_call", "comprehension_test", "converted", "filtered",
           "error_of", "failed", "is_traced", "joined", "reraise_refusal", "restored", "uncaught",
           "fill", "for_stmt", "getitem", "holders", "if_exp", "if_stmt",
           "percent", "nested_aug_setitem", "nested_setitem", "nonlocal_write", "not_", "or_",
           "out_call", "out_part",
           "outer_read",
           "outer_value", "reach", "refreshed", "refuse_stale", "result",
           "setitem", "setitem_outer", "aug_setitem_outer", "slice", "state", "view_aug_setitem",
           "view_setitem", "while_stmt"]

slice = builtins.slice  # noqa: A001  (converted code builds subscript keys with it)


def attempt(line: int, handled) -> failures.Attempt:
    """The ``try`` at ``line`` whose except clauses catch ``handled()`` (a tuple of exception
    types), as ``autograph/attempts.py`` rewrites it: a context for its body."""
    return failures.Attempt(line, handled)


failed, caught, uncaught, error_of = failures.failed, failures.caught, failures.uncaught, failures.error_of


def bound_before(local_vars: dict, names) -> dict:
    """Those of ``names`` bound in ``local_vars``: what a statement that may fail rebinds."""
    return {n: local_vars[n] for n in names if n in local_vars and not isinstance(local_vars[n], Undefined)}


def is_traced(flag) -> bool:
    """Whether a try's failure flag is traced (something in its body may fail when it runs)."""
    return flag is not False


def restored(before: dict, name: str, value, flag):
    """``name``'s value after a statement that may have failed: where ``flag`` holds, its value
    before (an array or number of ``value``'s shape and dtype), else ``value``. (A name that
    had no value, or another kind of value, keeps ``value``: the handler usually binds it.)"""
    if flag is False or name not in before:
        return value
    old = before[name]
    if not isinstance(value, Tracer) or np.shape(old) != value.shape or np.result_type(old) != value.dtype:
        return value
    return np.where(flag, old, value)



_REFUSALS = (ConcretizationError, TracerConversionError, UnsupportedError)


def reraise_refusal(error: BaseException) -> None:
    """First in each ``except`` clause of converted code: jitcore's refusal of the try's body
    while tracing (``UnsupportedError``, a ``ConcretizationError``) is not the user's error, so
    ``except Exception:`` must not take it for one and run its fallback instead of the body
    that Python would have run (silently another result): it goes on to ``jit``, which may
    make an argument static on demand or report it."""
    if isinstance(error, _REFUSALS) and current_trace() is not None:
        raise error


def converted(f):
    """``f`` converted (``convert.converted``), its code calling the helpers of this module."""
    return convert.converted(f, sys.modules[__name__])


_UFUNC_METHODS = ("reduce", "accumulate", "reduceat", "outer")


def call(f):
    """What converted code calls in place of ``f``: the converted user function, a traced-aware
    builtin, a random draw made at call time (``jitcore.random``), or ``f`` itself. While a
    function is traced, the globals and cells of each function it calls are noted: those it
    uses with traced values are read at call time (``jitcore.calltime``)."""
    try:
        special = BUILTINS.get(f)
    except TypeError:  # unhashable callable
        special = None
    if special is not None:  # (jitcore's int(), np.array(): refused text, as Python's own would read it)
        reads = traced_text.reads(f) and not str(getattr(f, "__module__", "")).startswith("numpy")
        return traced_text.unread(special, forced=True, named=f) if reads else special
    if isinstance(f, np.vectorize):
        return math_calls.traced_vectorize(f)
    if isinstance(f, ABCPolyBase):  # Polynomial(c)(x), Chebyshev(c)(x), ...
        return call_series(f)
    owner = getattr(f, "__self__", None)
    if isinstance(owner, np.ufunc) and getattr(f, "__name__", None) in _UFUNC_METHODS:
        return ufunc_method(f)
    if type(owner) is np.ndarray and getattr(f, "__name__", None) == "fill":
        return _fill_outer(owner)
    if type(owner) is np.ndarray and (read := calltime.read_input(owner)) is not owner:
        return getattr(read, f.__name__)  # self.K.sum(): traced from the call's array
    made_later = outputs.at_run_time(f)  # sys.stdout.write, warnings.warn, logging: as print
    if made_later is not None:
        return made_later
    if type(owner) in (list, dict, set) and calltime.recorder() is not None \
            and calltime.recorder().outside(owner):
        return _outside_container_method(f)
    if getattr(f, "__module__", None) in ("heapq", "_heapq"):  # heapq.heappop(free): named if traced
        return list_methods.heapq_call(f)
    if type(owner) in (list, tuple) and getattr(f, "__name__", None) in list_methods.COMPARING:
        method = list_methods.list_method(owner, f.__name__, call)  # l.sort(), l.index(v)
        if method is not None:
            return method
    if calltime.recorder() is not None:
        sampler = random.intercept(f)
        if sampler is not None:
            return sampler
        if getattr(f, "__code__", None) not in convert._converted_codes:
            calltime.register(f)  # not a function defined while tracing: its cells hold its arrays
        if isinstance(f, type) and not f.__module__.startswith(("builtins", "numpy", "jitcore")):
            return _noting_made(f)
    made = converted(f)
    # a library's function or C's (not the user's, converted) given text made from a traced
    # value would read its placeholder: refused, or joined as text ("-".join(labels)); NumPy's
    # own are left as they are (the rewrites of out= and .at look at them: arrays.out_call)
    if made is f and not str(getattr(f, "__module__", "")).startswith("numpy"):
        return traced_text.unread(f)
    return made


def _fill_outer(array):
    """``obj.a.fill(v)`` (a local name's is ``expressions.fill``): with a traced value, written
    as ``obj.a[...] = v``, where the array is, or refused saying why. NumPy's own fill would
    ask for the value's data."""
    def fill_(value):
        if prims.holds_tracer(value):
            setitem_outer(array, Ellipsis, value)
        else:
            array.fill(value)

    return fill_


def nonlocal_write(name: str) -> None:
    """Before ``name = v`` where ``name`` is ``nonlocal``: refused while a compiled loop body or
    branch is traced, which runs once, while compiling, and whose values exist only inside it
    (the enclosing function would keep one, or the count of a single pass)."""
    trace = current_trace()
    if trace is not None and trace.depth > 0:
        raise UnsupportedError(
            f"'{name}', declared nonlocal, is assigned (at {user_location()}) inside a loop or "
            "branch whose bounds or condition are traced: jitcore compiles that body once, and "
            f"the enclosing function's '{name}' cannot carry a value out of it. Pass the value to "
            f"the function and return the new one, assigned where it is called ({name} = "
            f"add({name}, v)), in place of nonlocal")


class _Unreached:
    """A path a loop appends through (``log["E"]``) that could not be read before the loop: the
    loop's first append raises what reading it raised, where Python's would."""

    def __init__(self, error: Exception):
        self.error = error

    def append(self, value):
        raise self.error


def reach(path, holder=None, attr=None, others=(), line=None):
    """The list ``path()`` (``log["E"]``) that a for loop appends to, named before the loop
    (``transform._name_appended_paths``). Where the body also uses ``holder``'s ``others``
    (``s.hist``, and ``s.step()``), none of them may be a method that sets ``attr``: the loop
    would append to the list ``s.hist`` was before it."""
    for name in others:
        if attr in method_sets(getattr(type(holder), name, None)):
            raise UnsupportedError(
                f"the for loop at line {line} appends to .{attr} of an object whose method "
                f"{name}() sets .{attr} anew: jitcore names the list before the loop, so that the "
                f"loop can compile; append to a local list in the loop (h = []; ...; h.append(v)) "
                f"and set .{attr} after it")
    try:
        return path()
    except Exception as e:  # noqa: BLE001  (raised again at the first append, as Python would)
        return _Unreached(e)


def _noting_made(cls):
    """``cls(...)`` of a user's class, the instance noted as made while tracing (so a refusal
    of its attribute set in a method can say so). Its ``__init__`` is converted, as any method
    the code calls (``self.v = np.asarray(v, dtype=float)`` of a traced ``v``), where the class
    is made the plain way (``type``'s call, ``object``'s ``__new__``)."""
    def make(*args, **kwargs):
        if type(cls).__call__ is type.__call__ and cls.__new__ is object.__new__ \
                and isinstance(cls.__init__, types.FunctionType):
            obj = object.__new__(cls)
            recorder = calltime.recorder()
            recorder.note_made(obj)
            recorder.initializing.add(id(obj))  # super().__init__(...) sets its attributes too
            try:
                result = converted(cls.__init__)(obj, *args, **kwargs)
            finally:
                recorder.initializing.discard(id(obj))
            if result is not None:  # Python's own check on __init__
                raise TypeError(f"__init__() should return None, not '{type(result).__name__}'")
            return obj
        obj = cls(*args, **kwargs)
        calltime.recorder().note_made(obj)
        return obj

    return make


# The methods that change a list, dict or set (the others only read it).
_CHANGING = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse",
                       "update", "popitem", "setdefault", "add", "discard", "difference_update",
                       "intersection_update", "symmetric_difference_update", "__setitem__",
                       "__delitem__", "__iadd__", "__ior__"})


def _outside_container_method(method):
    """``LOG.append(v)`` on a list, dict or set from outside the jitted function: refused, before
    it runs. Its Python code runs once, while the function compiles, so the container would
    change once, not at each call as NumPy's would (and keep a traced value, given one).
    Replaying it at each call would be right for ``LOG.append(shape)`` but not for
    ``D[k] = D.get(k, 0) + 1``, whose value came from the container as tracing found it."""
    def checked(*args, **kwargs):
        if method.__name__ in _CHANGING or prims.holds_tracer((args, kwargs)):
            refuse_outside_change(method.__self__, f"{method.__name__}(...)",
                                  prims.holds_tracer((args, kwargs)))
        return method(*args, **kwargs)

    return checked


def refuse_outside_change(container, what: str, traced: bool = False) -> None:
    """Refuse a change to ``container``, a list, dict or set from outside the jitted function."""
    kind = type(container).__name__
    r = calltime.recorder()
    name = r.label(container) if r is not None else None
    shared = r.shared(container) if r is not None else None
    held = f" ({shared}, one {kind} for every call)" if shared else ""
    raise UnsupportedError(
        f"{kind}.{what}{f' on {name}' if name else ''}{' with a traced value' if traced else ''} "
        f"(at {user_location()}) changes a "
        f"{kind} from outside the jitted function{held}: "
        "its Python code runs once, while the function "
        "compiles, not at each call as NumPy's would, so the " + kind + " would change once"
        + (" and keep a traced value" if traced else "") + " (it was left unchanged). "
        + calltime.shared_advice(shared) + "Return the "
        "value and store it outside the jitted function, or count in an array made beforehand "
        "(COUNTS[i] += 1, OUT[i] = v), which the compiled code writes at each call. (To count "
        "traces, read f.cache_info().traces.)")



def _outside_container(base) -> bool:
    r = calltime.recorder()
    return type(base) in (list, dict, set) and r is not None and current_trace() is not None \
        and r.outside(base)


def _apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``np.apply_along_axis`` with ``func1d`` converted, as any function the user's code
    calls: its ``if``/``for`` on the traced slice compile."""
    return np.apply_along_axis(call(func1d), axis, arr, *args, **kwargs)


BUILTINS[np.apply_along_axis] = _apply_along_axis


def _pad(array, pad_width, mode="constant", **kwargs):
    """``np.pad`` with a function ``mode`` converted, as ``apply_along_axis``'s ``func1d``."""
    return np.pad(array, pad_width, call(mode) if callable(mode) else mode, **kwargs)


BUILTINS[np.pad] = _pad


def _list(iterable=()):
    """``list(map(f, x))`` (an ``Indexed``): a comprehension's list, one compiled loop where long."""
    if isinstance(iterable, expressions.Indexed) and current_trace() is not None:
        return comprehension(iterable, lambda item: item)
    if isinstance(iterable, KeptList):  # list(reversed(rewards)) of a list the data filled
        return iterable.copied()
    return list(iterable)


BUILTINS[builtins.list] = _list


def _sum(iterable, /, start=0):
    """``sum``; of a list the data filled (``KeptList``), Python's sum of its kept items in order."""
    if isinstance(iterable, KeptList) and type(start) is int and start == 0:
        return iterable.summed()
    return sum(iterable, start)


BUILTINS[builtins.sum] = _sum
BUILTINS[builtins.map] = list_methods.map_(call)
BUILTINS[builtins.filter] = list_methods.filter_(call)
BUILTINS[builtins.sorted] = lambda iterable, /, *, key=None, reverse=False: list_methods.sorted_(
    iterable, key=key, reverse=reverse, call=call)
# v in l of traced numbers: Python's test per item, as one traced bool (list_methods.contains)
expressions._COMPARE["in"] = lambda a, b: list_methods.contains(b, a)
expressions._COMPARE["not in"] = lambda a, b: list_methods.not_contains(b, a)


def _print(*args, sep=" ", end="\n", file=None, flush=False):
    """``print`` in a function being traced: at each call of the compiled function, with the
    values of that call (``jitcore.debug_callback``), as the NumPy code prints each time it
    runs: in program order, in a compiled branch only where it is taken. Before session 40 it
    printed ``Traced<f64[]>`` once, while compiling; before session 42 a print of Python values
    only printed then (JAX's rule), so a compiled ``if``'s two branches both printed once."""
    trace = current_trace()
    if trace is None:
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    args = tuple(_as_text(a) for a in args)
    texts = [a for a in args if formatting.holds(a)]
    formatted, fill = formatting.filler(texts, trace)  # f"{loss:.3f}": filled in at each call
    options = print_options()
    for leaf in pytree.flatten(args)[0]:  # its text needs its length: say what prints instead
        if isinstance(leaf, MaskedSelection):
            raise leaf._refusal("print(); return it and print it outside, or print "
                                "jitcore.numpy.where(mask, x, np.nan)")
    # Python numbers among the values (float(v), x.tolist()'s items) print as Python's
    python = [formatting.python_type(leaf) for leaf in pytree.flatten(args)[0]]
    # and a value whose type the data chose as the path taken gives it (type_choice.py)
    chosen = [getattr(leaf, "type_choice", None) for leaf in pytree.flatten(args)[0]]

    def show(values, tags, *shown):
        leaves, tree = pytree.flatten(shown)
        tags = iter(tags)
        shown = pytree.unflatten(tree, [
            kind_conversion.convert_by_tag(v, c[1], next(tags)) if c is not None else v if t is None else t(v)
            for v, t, c in zip(leaves, python, chosen)])
        with np.printoptions(**options) if options is not None else contextlib.nullcontext():
            builtins.print(*(fill(v, values) for v in shown), sep=sep, end=end,
                           file=file if file is not None else sys.stdout, flush=flush)

    debug_callback(show, formatted, [c[0] for c in chosen if c is not None], *args)


BUILTINS[builtins.print] = _print


def _radix(builtin, spec: str):
    """``bin(k)``, ``hex(k)``, ``oct(k)``: of a traced integer, ``format(k, spec)`` at each call
    (Python's text, ``-0b101`` for -5); anything else to Python's own (its TypeError for a float)."""
    def radix(value):
        integer = isinstance(value, Tracer) and (value.dtype.kind in "iu" or (
            value.dtype.kind == "b" and formatting.python_type(value) is bool))  # True, not np.True_
        if integer and not value.ndim:
            return traced_text.placeholder(value, spec)
        if isinstance(value, Tracer) and not value.ndim and value.dtype.kind in "fcb":  # Python's words
            kind = formatting.python_type(value)
            raise JitTypeError(f"'{kind.__name__ if kind else 'numpy.' + value.dtype.name}' object "
                               f"cannot be interpreted as an integer (at {user_location()})")
        return builtin(value)

    return radix


BUILTINS[builtins.bin] = _radix(builtins.bin, "#b")
BUILTINS[builtins.hex] = _radix(builtins.hex, "#x")
BUILTINS[builtins.oct] = _radix(builtins.oct, "#o")


def binary(name: str, left, right):
    """``left <op> right`` in converted code (``operators.binary``)."""
    return operators.binary(name, left, right, call)


def unary(name: str, operand):
    """``-x``, ``+x``, ``~x`` in converted code (``operators.unary``)."""
    return operators.unary(name, operand, call)


def rich(symbol: str, left, right):
    """``left == right``, ``left < right``... in converted code (``operators.rich``)."""
    return operators.rich(symbol, left, right, call)


def compare(left, *pairs):
    """``a < b < c`` in converted code (``expressions.compare``), each comparison by ``rich``."""
    return expressions.compare(left, *pairs, rich=rich)


def _in_place(op: str):
    """The in-place operator ``op`` as converted code runs it (``operators.inplace``)."""
    return lambda base, value: operators.inplace(op, base, value, call)


def aug_assign(base, op: str, value):
    """``name op= value`` in converted code (``expressions.aug_assign``)."""
    return expressions.aug_assign(base, _in_place(op), value)


def aug_setitem(base, key, op: str, value):
    """``base[key] op= value`` in converted code (``expressions.aug_setitem``)."""
    return expressions.aug_setitem(base, key, _in_place(op), value)


def view_aug_setitem(base, method: str, args, kwargs, key, op: str, value):
    """``base.ravel()[key] op= value`` in converted code (``expressions.view_setitem``)."""
    return expressions.view_setitem(base, method, args, kwargs, key, value, _in_place(op))


def nested_aug_setitem(base, key, inner_key, op: str, value):
    """``base[key][inner_key] op= value`` in converted code (``expressions.nested_aug_setitem``)."""
    return expressions.nested_aug_setitem(base, key, inner_key, _in_place(op), value)

# What ``print`` shows of a value at each call by itself: the values and containers of them it
# passes to its callback and shows with that call's data.
_SHOWN_AS_DATA = (Tracer, np.ndarray, np.generic, bool, int, float, complex, str, bytes, type(None))


def _as_text(arg):
    """``arg`` as ``print`` shows it: an object of the user's (its ``__str__``/``__repr__``
    formats traced attributes, a dataclass holding an array), or a container of one, as its
    text made now, while tracing, so that its traced values become placeholders filled in at
    each call (made at the call, the text held ``Traced<...>`` and grew the trace's list)."""
    if isinstance(arg, str):
        return arg
    leaves, _ = pytree.flatten(arg)
    if all(isinstance(leaf, _SHOWN_AS_DATA) for leaf in leaves):
        return arg
    with formatting.users_text():
        return str(arg)


def setitem_outer(base, key, value) -> None:
    """``W[k] = v`` where ``W`` is a global or a closure's variable: written in place, in the
    array the caller sees (a call-time input's, when the write is traced)."""
    if _outside_container(base):
        refuse_outside_change(base, "__setitem__(...)", prims.holds_tracer(value))
    _writable_outer(calltime.outer_target(base, key, value), key, value)[key] = value


def _writable_outer(target, key, value):
    """``target``, unless it is a NumPy array made while tracing given a traced write, which
    it cannot hold: an attribute's of an object made while tracing (``self.counts[k] += 1``
    in its method) is written as its traced copy, which the object's attributes then hold
    (``local_arrays.written_copy``); an enclosing function's (``np.zeros`` closed over) raises
    ``HeldOutside``: a traced loop or branch around the call is traced again with the array
    made traced first, and outside any such statement it is refused, as that function would
    not see the write in a copy."""
    if type(target) is np.ndarray and prims.holds_tracer((key, value)):
        trace = current_trace()
        if _held_by_made_object(target):
            local_arrays.refuse_held(target)
            return local_arrays.written_copy(target, trace)
        copy = local_arrays.held_copy(target)  # (in a traced loop or branch: HeldOutside, retraced)
        if copy is not target:
            return copy
        raise local_arrays.HeldOutside(local_arrays._owner(target),  # (a traced loop or branch
            # around the call is traced again with the array made traced first: then written)
            f"a traced value is written (at {user_location()}) into an array of shape "
            f"{target.shape} that the code reaches through an enclosing function's variable or "
            "an object's attribute, and that was made with NumPy while compiling (a constant): "
            "the code that holds it would not see the write. Make the array with jitcore.numpy "
            "(jnp.zeros(...)), or pass it to the function and return it (z = fill(z, v))")
    return target


def _held_by_made_object(array: np.ndarray) -> bool:
    """Whether an attribute of an object the traced function made holds ``array``'s memory."""
    r = calltime.recorder()
    owner = local_arrays._owner(array)
    return r is not None and any(
        type(v) is np.ndarray and local_arrays._owner(v) is owner
        for obj in r._made.values() for v in vars(obj).values())


def unless_users_methods(local_vars: dict, methods, found, otherwise):
    """A statement's Python change as the conversion saw it (``found``: ``kf.update`` may be a
    dict's update), or ``otherwise`` where each ``(name, method)`` of ``methods`` calls a method
    of a user's class on an object of it: that method is converted and traced like any call
    (the attributes it sets carried, ``statements.holders``; a list it appends to seen by
    ``effects.watching``)."""
    return otherwise if all(_users_method(local_vars.get(name), method) for name, method in methods) \
        else found


def _users_method(obj, method: str) -> bool:
    fn = getattr(type(obj), method, None)
    code = getattr(fn, "__code__", None)
    return isinstance(fn, types.FunctionType) and code is not None and is_user_file(code.co_filename)


def refreshed(value):
    """A name passed to a call statement, read again after it (``fill(a, v)``, then
    ``a = refreshed(a)``): the traced copy of a NumPy array the call wrote traced values into
    (``local_arrays.resolved``), else the value itself."""
    return local_arrays.resolved(value)


refuse_stale = local_arrays.refuse_stale


def outer_read(value):
    """A global's or closure's array that the function writes by subscript: its hidden argument
    (the array the caller sees, as written so far), so reads after a traced write see it."""
    if type(value) is not np.ndarray:
        return value
    hidden = calltime.written_array(current_trace(), value, create=True)
    return local_arrays.resolved(value) if hidden is None else hidden


def outer_value(value):
    """Any other global, closure, default or attribute value: a written array's hidden argument
    once a write to it was traced (a helper reading what its caller wrote), an outside array's
    hidden argument (``calltime.read_input``: ``-L`` is then traced, not frozen), else the
    value itself."""
    if type(value) is not np.ndarray:
        return value
    hidden = calltime.written_array(current_trace(), value, create=False)
    return calltime.read_input(local_arrays.resolved(value)) if hidden is None else hidden


def aug_attribute(obj, name: str, op: str, value) -> None:
    """``obj.name op= value``: an array attribute is updated in place, as NumPy's in-place
    operator does (the object keeps its array; a traced update writes its call-time input, as
    ``obj.name[...] op= value`` would); any other value as Python updates it, on an object
    made while tracing (one from outside refuses: ``set_attribute``)."""
    current = getattr(obj, name)
    r = calltime.recorder()
    if type(current) is np.ndarray and prims.holds_tracer(value) and r is not None \
            and r.made_here(obj) and not r.outside(obj):
        # p.W -= g, p made in the function's own code: its NumPy array, which cannot take a
        # traced value, replaced by a traced copy (which its other holders then hold)
        set_attribute(obj, name, _in_place(op)(expressions._writable(current, (), value), value))
        return
    number = isinstance(current, Tracer) and (current.scalar or current.weak)  # immutable: rebound
    if type(current) is np.ndarray or isinstance(current, Tracer) and not number:
        aug_setitem_outer(current, ..., op, value)
        return
    set_attribute(obj, name, _in_place(op)(current, value))


def set_attribute(obj, name: str, value) -> None:
    """``obj.name = value``. On an object the traced code reads from outside it (``self``, a
    global's object) it is refused: compiled, the assignment would run once, while tracing,
    not at each call (and a traced value would outlive the trace in the object). An object
    made while tracing takes it, as a local variable would."""
    r = calltime.recorder()
    if r is not None and id(obj) in r.initializing and r.made_here(obj):
        setattr(obj, name, value)  # its __init__ (its classes'), before the function holds it
        return
    if current_trace() is not None and r is not None and r.outside(obj) and r.made_here(obj):
        if carried(obj, name, r.made_depth(obj)):
            setattr(obj, name, value)  # a method's: each traced statement around carries it
            return
        raise UnsupportedError(
            f"'{name}', an attribute of an object the jitted function made, is set inside a method "
            f"of it (at {user_location()}): jitcore carries an object's attributes through the "
            "function's own traced branches and loops where the function sets them itself "
            f"(obj.{name} = v), not inside the methods it calls, where the assignment would run "
            "once, while compiling. Set the attribute in the function's own code, keep the value "
            f"in an array attribute updated in place (self.{name}[...] = v), or return it")
    if current_trace() is not None and r is not None and r.outside(obj):
        shared = r.shared(obj)
        raise UnsupportedError(
            f"'{name}', an attribute of an object the jitted function reads from outside it"
            f"{f' ({shared}, one object for every call)' if shared else ''}, is "
            f"set (at {user_location()}): the compiled "
            "code would run the assignment once, while it compiles, not at each call. Update an "
            f"array attribute in place (self.{name}[...] = v, self.{name} -= step), keep a "
            "number that changes in a 0-d array attribute, or return the new value and set the "
            "attribute outside the jitted function")
    setattr(obj, name, value)


def aug_setitem_outer(base, key, op, value) -> None:
    if _outside_container(base) and type(base[key]) is not np.ndarray:  # (an array: updated in place)
        refuse_outside_change(base, "__setitem__(...)", prims.holds_tracer(value))
    target = _writable_outer(calltime.outer_target(base, key, value), key, value)
    target[key] = _in_place(op)(target[key], value)  # no traced copy: see setitem_outer


vectorized.CONVERT = call  # np.vectorize's loop converts its function as calls here do
