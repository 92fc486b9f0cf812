"""NumPy calls that cannot see the traced values they are given, and what converted code calls
in their place.

NumPy's ``__array_function__`` dispatches on a function's array arguments, not on what Python
lists inside them hold, and ``np.array``/``np.asarray`` do not dispatch at all: so
``np.array([a.sum(), b.sum()])``, ``np.asarray(x)`` and ``np.sum([x, y])`` of traced values
would reach NumPy, which cannot hold them. ``ARRAY_CALLS`` maps such functions to versions that
build the traced array NumPy would have built, and that are NumPy's own function, called with
the same arguments, when nothing is traced. Without autograph (``jit(f, autograph=False)``)
these calls keep raising ``TracerConversionError``.

``out_call`` is ``f(..., out=name)`` (or ``out=(q, r)``) where ``name`` is a local variable: a
local NumPy array written with traced values becomes a traced copy, which the converted
statement binds to ``name`` (as ``out[i] = v`` does through ``expressions.setitem``);
``at_call`` is the same for ``ufunc.at(name, indices, values)``.
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np

import jitcore.numpy as jnp
from jitcore import chosen_dtype, view_layout
from jitcore import primitives as prims
from jitcore.autograph.local_arrays import shared_copy
from jitcore.data_length import KeptList
from jitcore.errors import TracerConversionError, UnsupportedError
from jitcore.masked import MaskedSelection
from jitcore.numpy import registry
from jitcore.numpy.registry import HANDLED_FUNCTIONS, UFUNCS, WRITES_OUT
from jitcore.tracer import Tracer, as_scalar, current_trace, fresh, refuse_traced, user_location

# Functions whose first argument is a sequence of arrays (NumPy looks at each of them); a list
# inside it that holds traced values is one array operand.
_SEQUENCE_OF_ARRAYS = {np.concatenate, np.stack, np.hstack, np.vstack, np.dstack,
                       np.column_stack, np.select, np.linalg.multi_dot, np.lexsort,
                       np.ravel_multi_index}


# Functions that read nested lists of arrays themselves (np.block's blocks differ in shape).
_NESTED_LISTS = {np.block}


def _traced_list(x) -> bool:
    return isinstance(x, (list, tuple)) and prims.holds_tracer(x)


def _holds_traced(x) -> bool:
    """A traced value, a list holding one, or a selection of data-dependent length
    (``np.array(out[:k])``: another such selection), or a list the data filled (``KeptList``)."""
    return prims.holds_tracer(x) or isinstance(x, (MaskedSelection, KeptList))


def _array(object, dtype=None, *args, **kwargs):
    """``np.array``: a traced array (a copy of a traced one) when ``object`` holds traced values."""
    if not _holds_traced(object):
        return np.array(object, dtype, *args, **kwargs)
    return jnp.array(object, dtype, copy=kwargs.get("copy", True), ndmin=kwargs.get("ndmin", 0))


def _asarray(np_fn):
    def asarray(a, dtype=None, *args, **kwargs):
        """``np.asarray`` and friends: a traced value itself (converted to ``dtype``), or the
        traced array of a list holding traced values."""
        if not _holds_traced(a):
            return np_fn(a, dtype, *args, **kwargs)
        # ascontiguousarray copies what NumPy would not lay out in C order (g.T), and
        # asfortranarray what it would not lay out in Fortran order (g); both make 0-d 1-d
        contiguous = {np.ascontiguousarray: view_layout.c_contiguous,
                      np.asfortranarray: view_layout.f_contiguous}.get(np_fn)
        copy = bool(kwargs.get("copy")) or (contiguous is not None and isinstance(a, Tracer)
                                            and not contiguous(a))
        out = jnp.array(a, dtype, copy=copy, ndmin=1 if contiguous else 0)
        if np_fn is np.asfortranarray and out is not a:
            out.fortran = out.ndim >= 2  # (a new array: NumPy lays it out in Fortran order)
        return out

    asarray.__name__ = asarray.__qualname__ = np_fn.__name__
    return asarray


def _fromiter(iterable, dtype, count=-1, **kwargs):
    """``np.fromiter`` of values some of which are traced (``(p.sum() for p in P)``): the
    items read (``count`` of them, if given) into one array of ``dtype``."""
    items = list(iterable) if count < 0 else list(itertools.islice(iterable, count))
    if not prims.holds_tracer(items):
        return np.fromiter(items, dtype, len(items), **kwargs)
    if count >= 0 and len(items) < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only {len(items)} items.")
    return jnp.array(items, dtype)


def _seed_sequence(entropy=None, *args, **kwargs):
    """``np.random.SeedSequence(seed)``: with ``seed`` an argument of the traced function, made
    on each call from its value (``jitcore.random``); a traced seed computed in the function
    made static on demand (NumPy's own code refused it with a TypeError)."""
    from jitcore import calltime, pytree, random  # random imports autograph's runtime

    recorder = calltime.recorder()
    traced = [x for x in pytree.flatten(entropy)[0] if isinstance(x, Tracer)]
    if recorder is not None and traced and all(recorder.argument_index(x) is not None for x in traced):
        return random.construct(np.random.SeedSequence, entropy, *args, **kwargs)
    refuse_traced(entropy, "the entropy of numpy.random.SeedSequence")
    return np.random.SeedSequence(entropy, *args, **kwargs)


def _static_length(np_fn):
    def call(n, *args, **kwargs):
        refuse_traced(n, f"the length of numpy.fft.{np_fn.__name__}")  # made static on demand
        return np_fn(n, *args, **kwargs)

    call.__name__ = call.__qualname__ = np_fn.__name__
    return call


def _empty(np_fn, zeros_fn):
    def empty(*args, **kwargs):
        """Inside a jitted function, NumPy's uninitialised array is zeros: the same for every
        compile (its bytes become a constant once traced values are written into it)."""
        return np_fn(*args, **kwargs) if current_trace() is None else zeros_fn(*args, **kwargs)

    empty.__name__ = empty.__qualname__ = np_fn.__name__
    return empty


def _creation(np_fn, jnp_fn):
    def create(*args, **kwargs):
        """NumPy's ``np.zeros(n)``/``np.arange(n)``: jitcore's when an argument is traced, which
        fills with a traced value or names the traced shape or bound (NumPy's own would only
        say it cannot make an array of a traced value)."""
        if current_trace() is None or not prims.holds_tracer((args, tuple(kwargs.values()))):
            return np_fn(*args, **kwargs)
        return jnp_fn(*args, **kwargs)

    create.__name__ = create.__qualname__ = np_fn.__name__
    create.__wrapped__ = np_fn
    return create


def _scalar_type(np_type):
    def scalar(value=0, *args, **kwargs):
        """``np.float32(x)`` of a traced ``x``: ``x`` converted, a NumPy scalar if 0-d."""
        if not prims.holds_tracer(value) or args or kwargs:
            return np_type(value, *args, **kwargs)
        return as_scalar(fresh(prims.as_tracer(prims.find_trace(*prims.leaves(value)), value,
                                               np.dtype(np_type))))

    scalar.__name__ = scalar.__qualname__ = np_type.__name__
    return scalar


# Parameters that are not array operands (axes, shapes, counts): a list there holding traced
# values stays as it is, for the function's own error (a traced axis or shape cannot compile).
_STRUCTURAL = frozenset({"axis", "axes", "axis1", "axis2", "axisa", "axisb", "axisc", "shape",
                         "newshape", "reps", "repeats", "indices_or_sections", "pad_width", "source",
                         "destination", "subscripts", "kth", "num", "k", "n", "N", "M", "ddof",
                         "decimals", "range", "bins", "dtype", "order", "mode", "side", "kind", "casting"})


def _kept_float64(value) -> bool:
    """A list the data filled with float64 items: NumPy reads it as ``np.array(out)``, whose
    dtype is float64 also where nothing was kept (other items' dtype would be the data's choice:
    ``np.array([])`` is float64, so those stay refused)."""
    return isinstance(value, KeptList) and value.rows.dtype == np.float64


# (a sequence of arrays that jitcore's implementation reads as a whole: a list a loop appended is
# its rows array, ``primitives.appended_stack``)
_AS_APPENDED = "appended"


def _read(value, sequence: bool | str):
    """An argument as NumPy reads an array operand: a list holding traced values is one traced
    array (or, for a sequence of arrays, each such item is); a list the data filled its kept
    rows, as ``np.array(out)`` (``np.mean(es)``, ``np.sum(es)``: a selection's reduction)."""
    if _kept_float64(value) and not sequence:
        return value.selection()
    if not _traced_list(value):
        return value
    if sequence:  # a tuple: NumPy's dispatcher for lexsort looks inside tuples only
        if type(value) is list and prims.appended_pieces(value) is not None:
            if sequence is _AS_APPENDED:  # (np.stack, np.concatenate: the loop's rows array itself)
                return value
            stacked = prims.appended_stack(value)  # (rows of lists of numbers: one array's rows)
            return tuple(stacked[i] for i in range(stacked.shape[0]))
        return tuple(prims.array_operand(x) if prims.holds_tracer(x) else x for x in value)
    # (items whose types the data chose: an array of NumPy's dtype for them, chosen_dtype.py)
    chosen = chosen_dtype.array_of_items(value)
    return prims.array_operand(value) if chosen is None else chosen


def _operands_read(np_fn):
    """``np_fn`` with its array operands that are lists holding traced values made arrays: every
    input of a ufunc; for a function, every argument but the structural ones (named by the
    parameters of jitcore's implementation), each item of a sequence of arrays."""
    impl = HANDLED_FUNCTIONS.get(np_fn)
    try:
        signature = None if impl is None else inspect.signature(impl)
    except (TypeError, ValueError):
        signature = None
    sequences = 2 if np_fn is np.select else 1 if np_fn in _SEQUENCE_OF_ARRAYS else 0

    def call(*args, **kwargs):
        if np_fn is np.stack and args and isinstance(args[0], KeptList):
            return args[0].stacked(*args[1:], **kwargs)  # (NumPy's dispatch would iterate it)
        if np_fn in _NESTED_LISTS or not any(_traced_list(a) or _kept_float64(a)
                                             for a in (*args, *kwargs.values())):
            return dispatched(args, kwargs)
        if isinstance(np_fn, np.ufunc):
            return np_fn(*(_read(a, False) for a in args), **kwargs)
        try:
            bound = signature.bind(*args, **kwargs)
        except (AttributeError, TypeError):  # no signature, or arguments it refuses: NumPy's error
            return np_fn(*args, **kwargs)
        for i, (name, value) in enumerate(bound.arguments.items()):
            kind = signature.parameters[name].kind
            if name in _STRUCTURAL or kind is inspect.Parameter.VAR_KEYWORD:
                continue
            if kind is inspect.Parameter.VAR_POSITIONAL:
                bound.arguments[name] = tuple(_read(v, False) for v in value)
            else:
                bound.arguments[name] = _read(value, _AS_APPENDED if i < sequences and np_fn in (
                    np.stack, np.concatenate) else i < sequences)
        return dispatched(bound.args, bound.kwargs)

    def dispatched(args, kwargs):
        try:
            return np_fn(*args, **kwargs)
        except TracerConversionError:  # np.take(table, i): NumPy dispatches on the table
            # (np.repeat(a, [c[0], 1]): on a, its counts a list holding a traced one)
            if impl is None or not prims.holds_tracer((args, kwargs)):
                raise  # alone, and its own code met the traced i: jitcore's implementation
            return registry.apply_function(np_fn, args, kwargs)

    call.__name__ = call.__qualname__ = getattr(np_fn, "__name__", "call")
    call.__wrapped__ = np_fn
    return call


def ufunc_method(method):
    """``np.maximum.reduce([a, b, c])``, ``np.add.outer([x, y], z)``: a ufunc's method whose
    array operands are lists holding traced values, each read as one array (NumPy's own
    conversion of the list, which cannot hold them)."""
    def call(*args, **kwargs):
        if not any(_traced_list(a) for a in args):
            return method(*args, **kwargs)
        return method(*(_read(a, False) for a in args), **kwargs)

    call.__name__ = call.__qualname__ = method.__name__
    call.__wrapped__ = method
    return call


def _ndenumerate(arr):
    """``np.ndenumerate`` of a traced array: its indices (from the static shape) and elements,
    each a NumPy scalar, in C order, for a loop that Python unrolls."""
    if not prims.holds_tracer(arr):
        return np.ndenumerate(arr)
    a = prims.array_operand(arr)
    return ((index, a[index]) for index in np.ndindex(a.shape))


def _array_calls() -> dict:
    calls = {f: _operands_read(f) for f in (*HANDLED_FUNCTIONS, *UFUNCS)}
    calls[np.array] = _array
    for f in (np.asarray, np.asanyarray, np.ascontiguousarray, np.asfortranarray):
        calls[f] = _asarray(f)
    for f in (np.zeros, np.ones, np.full, np.arange, np.full_like):  # full_like: a traced fill
        calls[f] = _creation(f, getattr(jnp, f.__name__))  # into a NumPy array's shape
    # zeros in a trace; a traced shape is refused naming numpy.empty (jnp.empty's error)
    calls[np.empty] = _empty(np.empty, _creation(np.zeros, jnp.empty))
    calls[np.ndenumerate] = _ndenumerate
    calls[np.kaiser] = jnp.kaiser  # no __array_function__: a traced beta would reach NumPy
    calls[np.fromiter] = _fromiter
    calls[np.random.SeedSequence] = _seed_sequence
    for f in (np.fft.fftfreq, np.fft.rfftfreq):  # NumPy dispatches on d alone: a traced n reached
        calls[f] = _static_length(f)  # NumPy's own code ("n should be an integer")
    for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128):
        calls[t] = _scalar_type(t)
    return calls


ARRAY_CALLS = _array_calls()


def traced_copy(base: np.ndarray, trace) -> Tracer:
    """A NumPy array made while tracing, about to be written with traced values, as its traced
    copy (the converted statement binds it to the array's name), the one every holder of the
    array reads once the write is done: the writing function's other variables holding it are
    bound to it (``local_arrays.shared_copy``), as NumPy's holders see the write."""
    return shared_copy(base, trace)


# Methods of an array that take out=, each the NumPy function of its name with the array first
# and the same parameters after it.
_OUT_METHODS = frozenset({"sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "cumsum",
                          "cumprod", "argmax", "argmin", "clip", "round"})


def out_call(func, out, /, *args, **kwargs):
    """``func(*args, out=out, **kwargs)``, as the statement ``out = out_call(...)``: a NumPy
    array given traced operands is written as a traced copy, which the statement binds to the
    local name ``out`` was (NumPy returns ``out`` itself)."""
    if isinstance(getattr(func, "__self__", None), Tracer):  # x.sum(out=o) as np.sum(x, out=o)
        name = next((n for n in _OUT_METHODS if getattr(Tracer, n) is func.__func__), None)
        if name is not None:
            func, args = getattr(np, name), (func.__self__, *args)
    trace = current_trace()
    operands = (args, list(kwargs.values()))
    if isinstance(out, tuple):  # out=(q, r) of a ufunc with two outputs: each as above
        if trace is not None and prims.holds_tracer(operands):
            out = tuple(traced_copy(o, trace) if isinstance(o, np.ndarray) else o for o in out)
        result = func(*args, out=out, **kwargs)
        return out if any(isinstance(o, Tracer) for o in out) else result
    if isinstance(out, np.ndarray) and trace is not None and prims.holds_tracer(operands):
        out = traced_copy(out, trace)
    target = getattr(func, "__wrapped__", func)
    if isinstance(out, Tracer) and target in HANDLED_FUNCTIONS and target not in WRITES_OUT:
        return _function_out(target, out, func(*args, **kwargs))
    result = func(*args, out=out, **kwargs)
    return out if isinstance(out, Tracer) else result


def out_part(result, part):
    """``f(..., out=a[1:])`` as a statement, converted to ``a[1:] = out_part(f(...), a[1:])``:
    the result when it has the part's shape and dtype (then NumPy writes the same values)."""
    def dtype(v):
        return v.dtype if hasattr(v, "dtype") else np.result_type(v)

    if np.shape(result) != np.shape(part) or dtype(result) != dtype(part):
        raise UnsupportedError(
            f"out= into a part of an array of shape {np.shape(part)} and dtype {dtype(part)}, "
            f"for a result of shape {np.shape(result)} and dtype {dtype(result)}, is not "
            f"supported under jit (at {user_location()}): assign the result instead "
            "(a[i:j] = f(...))")
    return result


def at_call(method, target, /, *args, **kwargs):
    """``ufunc.at(target, *args)``, as the statement ``target = at_call(ufunc.at, target, ...)``:
    a local NumPy array updated at traced indices or with traced values is updated as a traced
    copy, which the statement binds to the local name ``target`` was. Any other ``.at`` method
    is called as written, and ``target`` stays what it was."""
    trace = current_trace()
    if (isinstance(getattr(method, "__self__", None), np.ufunc) and isinstance(target, np.ndarray)
            and trace is not None and (prims.holds_tracer((args, tuple(kwargs.values()))) or any(
                _holds_traced(k) for a in args for k in (a if isinstance(a, tuple) else (a,))))):
        target = traced_copy(target, trace)
    method(target, *args, **kwargs)
    return target


def _function_out(np_fn, out: Tracer, result):
    """``np.sum(x, out=tmp)``, ``np.dot(a, b, out=tmp)``...: the result written into ``out``
    when it has ``out``'s shape and dtype (then NumPy's ``out=`` gives the same values; other
    cases compute in ``out``'s dtype or cast, which jitcore does not follow)."""
    if not isinstance(result, Tracer) or result.shape != out.shape or result.dtype != out.dtype:
        shape, dtype = np.shape(result), getattr(result, "dtype", type(result).__name__)
        raise UnsupportedError(
            f"numpy.{np_fn.__name__}(..., out=) into an array of shape {out.shape} and dtype "
            f"{out.dtype}, for a result of shape {shape} and dtype {dtype}, is not supported under "
            f"jit (at {user_location()}): assign the result instead (tmp = np.{np_fn.__name__}(...))")
    prims.assign(out, result)
    return out
