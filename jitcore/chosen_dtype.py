"""Arrays whose dtype the data chooses, used inside the function.

``np.array([v if v > 0 else 0 for v in x])`` is int64 where every item took the int path and
float64 where a float is among them (``array_of``): NumPy's dtype is known only when
the function runs. Inside, such an array is a ``ChosenDtype``: its values held in the items'
promotion (float64) and a traced 0-d tag naming one of its candidate dtypes. What is done with
it keeps NumPy's dtype, by the rule below, or is refused; it never silently takes the promotion.

For a ufunc or NumPy function of it, the result's dtype is found for each candidate by calling
NumPy on stand-ins of those dtypes (no data). Where every candidate gives the same dtype (a
comparison, ``a / 2``, ``np.mean(a)``, ``np.argsort(a)``), the result is the promotion's, the
same numbers: NumPy converts the ints to that dtype first. Where they differ (``a * 2``,
``np.sum(a)``, ``np.sort(a)``), the result is again chosen (a ``ChosenDtype``, or a scalar whose
type the data chose) if the op is exact on integers held in a float (``_EXACT``: sums, products,
extremes, data movement; integers below 2**53, as ``array_of`` requires); otherwise (``a // 0``,
``np.round(a, -1)``, bitwise ops) it is refused with what to write instead. Returned, the values
are converted to the tag's dtype by the host (``kind_conversion``'s ``array as`` kinds).
"""

from __future__ import annotations

import functools
import sys
import warnings

import numpy as np

from jitcore import formatting, real_or_complex, tracer, type_choice, ufunc_operators
from jitcore import primitives as prims
from jitcore.errors import JitTypeError
from jitcore.kind_conversion import array_as
from jitcore.tracer import Tracer, fresh, is_user_file, user_location

_ADVICE = ("Make the items one type (0.0 in place of 0, float(v)), or give the dtype "
           "(np.array(..., dtype=np.float64))")
_ORIGIN = "np.array of items whose Python types a traced condition chose"

# Ufuncs and functions whose result, computed on integers held in a float64 (below 2**53), is
# exactly the integers' result converted: where the candidates' result dtypes differ, the
# result keeps the choice.
_EXACT_UFUNCS = frozenset({
    np.add, np.subtract, np.multiply, np.negative, np.positive, np.absolute, np.square,
    np.maximum, np.minimum, np.fmax, np.fmin, np.sign, np.conjugate, np.matmul})
_EXACT_FUNCTIONS = frozenset({
    np.sum, np.nansum, np.prod, np.nanprod, np.cumsum, np.cumprod, np.nancumsum, np.max,
    np.min, np.amax, np.amin, np.nanmax, np.nanmin, np.ptp, np.sort, np.diff, np.clip,
    np.abs, np.where, np.concatenate, np.stack, np.hstack, np.vstack, np.unique, np.dot,
    np.outer, np.trace, np.take, np.copy, np.ravel, np.reshape, np.transpose, np.squeeze,
    np.flip, np.roll, np.atleast_1d, np.expand_dims, np.swapaxes, np.moveaxis, np.tile,
    np.repeat, np.asarray, np.array, np.cumulative_sum, np.cumulative_prod, np.partition,
    np.zeros_like, np.ones_like, np.empty_like, np.full_like})
# The array methods that are NumPy functions of the array first
_METHODS = {name: getattr(np, name) for name in (
    "sum", "prod", "max", "min", "mean", "std", "var", "cumsum", "cumprod", "argmax", "argmin",
    "argsort", "any", "all", "clip", "nonzero", "repeat", "take", "searchsorted", "trace", "ptp")}
# Methods that move the data (their own signatures: a.reshape(3, 4)): the same candidates
_MOVES = frozenset({"reshape", "transpose", "ravel", "flatten", "squeeze", "copy", "swapaxes"})
# What is exact on an array that is real or complex as the data chose (np.emath.sqrt): held
# complex, a real candidate's values with +0 imaginary parts, as NumPy's real and imag see them,
# and moved; any arithmetic would compute the complex numbers' (inf * 0j is NaN).
_KIND_EXACT = frozenset({
    np.real, np.imag, np.take, np.copy, np.ravel, np.reshape, np.transpose, np.squeeze, np.flip,
    np.roll, np.atleast_1d, np.expand_dims, np.swapaxes, np.moveaxis, np.tile, np.repeat,
    np.asarray, np.array})


class ChosenDtype:
    """An array of one of ``dtypes`` (candidates), the 0-d int8 tracer ``which`` naming it when
    the function runs; ``values`` (a tracer, or a ``masked.MaskedSelection`` for a list the
    data filled) holds it in the candidates' promotion."""

    __slots__ = ("values", "which", "dtypes", "origin")

    def __init__(self, values, which: Tracer, dtypes: tuple, origin: tuple = (_ORIGIN, _ADVICE)):
        self.values, self.which, self.dtypes = values, which, tuple(np.dtype(d) for d in dtypes)
        self.origin = origin  # (what made it, what to write instead): the refusals' words

    @property
    def chooses_complex(self) -> bool:
        """Are its candidates a real and a complex dtype (held complex)?"""
        return len({d.kind == "c" for d in self.dtypes}) == 2

    # -- what is static ----------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self.values.ndim

    @property
    def shape(self):
        return self.values.shape

    @property
    def size(self):
        return self.values.size

    def __len__(self):
        return len(self.values)

    @property
    def dtype(self):
        raise self._refusal(".dtype")

    @property
    def T(self):
        return self._like(self.values.T)

    def _like(self, values) -> ChosenDtype:
        return ChosenDtype(values, self.which, self.dtypes, self.origin)

    def marked(self) -> Tracer:
        """The values as a result: marked with the candidate the tag names, which the host
        converts them to (``kind_conversion``)."""
        out = fresh(self.values)
        out.type_choice = (self.which, tuple(array_as(d) for d in self.dtypes))
        return out

    def _refusal(self, use: str) -> JitTypeError:
        names = " or ".join(dict.fromkeys(d.name for d in self.dtypes))
        origin, advice = self.origin
        return JitTypeError(
            f"{use} of an array whose dtype the data chooses ({names}: {origin}) (at "
            f"{user_location()}): NumPy's result would depend on which it is, and jitcore "
            f"compiles one. {advice}")

    # -- ufuncs and functions ----------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs:
            raise self._refusal(f"numpy.{ufunc.__name__}" + (f".{method}" if method != "__call__" else
                                                              f" with {', '.join(sorted(kwargs))}="))
        exact = ufunc in _EXACT_UFUNCS or (ufunc is np.power and _whole_power(inputs)) \
            or (ufunc in (np.floor_divide, np.remainder) and _by_nonzero_int(inputs))
        return self._apply(ufunc, inputs, {}, exact, f"numpy.{ufunc.__name__}")

    def __jitcore_ufunc__(self, ufunc, operands):
        return self.__array_ufunc__(ufunc, "__call__", *operands)

    def __jitcore_ufunc_method__(self, ufunc, method, *inputs, **kwargs):
        return self.__array_ufunc__(ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return self.__jitcore_function__(func, args, kwargs)

    def __jitcore_function__(self, func, args, kwargs):
        if "dtype" in kwargs and kwargs["dtype"] is not None:  # a dtype given: NumPy's is that
            return func(*_values(args), **_values(kwargs))
        return self._apply(func, args, kwargs, func in _EXACT_FUNCTIONS,
                           f"numpy.{getattr(func, '__name__', func)}")

    def _apply(self, func, args, kwargs, exact: bool, name: str):
        if self.chooses_complex and func not in _KIND_EXACT:
            raise self._refusal(name)
        for x in _leaves((args, kwargs)):
            if isinstance(x, ChosenDtype) and x.which is not self.which:
                raise self._refusal(f"{name} of two arrays whose dtypes the data chose apart")
        per_candidate = [_result_dtypes(func, args, kwargs, i) for i in range(len(self.dtypes))]
        if any(d is None for d in per_candidate):
            raise self._refusal(name)
        out = func(*_values(args), **_values(kwargs))
        return self._results(out, per_candidate, exact, name)

    def _results(self, out, per_candidate, exact: bool, name: str):
        if isinstance(out, (tuple, list)):
            items = [self._results(o, [p[k] for p in per_candidate], exact, name)
                     for k, o in enumerate(out)]
            return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
        if len(set(per_candidate)) == 1 or not hasattr(out, "ndim"):
            return out  # the same dtype whichever it is: the promotion's numbers
        if not exact or isinstance(per_candidate[0], tuple):
            raise self._refusal(name)
        if out.ndim == 0 and isinstance(out, Tracer):
            return scalar_of(out, self.which, per_candidate)
        return ChosenDtype(out, self.which, per_candidate, self.origin)

    # -- indexing and methods ------------------------------------------------------------------------
    def __getitem__(self, key):
        if any(isinstance(k, ChosenDtype) for k in _leaves(key)):
            raise self._refusal("indexing by it")
        out = self.values[key]
        if isinstance(out, Tracer) and out.ndim == 0:
            return scalar_of(out, self.which, self.dtypes)
        return self._like(out)

    def __setitem__(self, key, value):
        """``a[i] = v`` of an integer ``v`` (or bools): the same numbers in every candidate."""
        if self.chooses_complex:  # (a float16 candidate would round v, its complex64 not)
            raise self._refusal("writing into it")
        if isinstance(value, ChosenDtype) and value.which is self.which:
            value = value.values
        elif np.asarray(value).dtype.kind not in "biu" if not isinstance(value, Tracer) \
                else value.dtype.kind not in "biu":
            raise self._refusal("writing a value that is not an integer into it")
        if not isinstance(self.values, Tracer) or any(isinstance(k, ChosenDtype) for k in _leaves(key)):
            raise self._refusal("writing into it")
        self.values[key] = value

    def astype(self, dtype, *args, **kwargs):
        return self.values.astype(dtype, *args, **kwargs)  # (the ints convert exactly)

    def tolist(self):
        raise self._refusal(".tolist()")

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ChosenDtype.__slots__:
            raise AttributeError(name)
        if name in _MOVES:
            return lambda *args, **kwargs: self._like(getattr(self.values, name)(*args, **kwargs))
        if name in ("real", "imag"):
            return self.__jitcore_function__(getattr(np, name), (self,), {})
        func = _METHODS.get(name)
        if func is None:
            raise self._refusal(f".{name}")
        return lambda *args, **kwargs: self.__jitcore_function__(func, (self, *args), kwargs)

    def __iter__(self):
        raise self._refusal("iterating over it")

    def __bool__(self):
        raise self._refusal("bool()")

    def __array__(self, dtype=None, copy=None):
        raise self._refusal("np.asarray()")

    # -- printed: the values as the tag's dtype, when the function runs -----------------------------
    def _text(self, spec: str) -> str:
        if formatting.for_user(sys._getframe(2).f_code.co_filename, is_user_file):
            if not isinstance(self.values, Tracer):
                raise self._refusal("printing it")
            return tracer.text_of(self.marked(), spec)  # (traced_text's, set when it loads)
        return f"{self.values!r}, of a dtype the data chooses"

    def __repr__(self) -> str:
        return self._text(formatting.REPR)

    def __str__(self) -> str:
        return self._text(formatting.STR)

    def __format__(self, spec: str) -> str:
        return self._text(spec)


def scalar_of(value: Tracer, which: Tracer, dtypes) -> Tracer:
    """A 0-d ``value`` as NumPy's scalar of the candidate ``which`` names (``type_choice``'s
    kinds ``np.int64``...; one kind: a plain scalar)."""
    kinds = tuple(dict.fromkeys(f"np.{np.dtype(d).name}" for d in dtypes))
    out = fresh(value, scalar=True)
    if len(kinds) == 1:
        return out
    table = prims.constant(value.owner_trace, np.array([kinds.index(f"np.{np.dtype(d).name}")
                                                        for d in dtypes], type_choice.TAG))
    return type_choice.mark(out, table[which], kinds)


def _whole_power(inputs) -> bool:
    """``a ** k`` with a Python int ``k`` >= 0: exact on integers held in a float."""
    return len(inputs) == 2 and isinstance(inputs[0], ChosenDtype) and type(inputs[1]) is int \
        and inputs[1] >= 0


def _by_nonzero_int(inputs) -> bool:
    """``a // k``, ``a % k`` with a Python int ``k`` other than 0: exact on integers held in a
    float (by 0, NumPy's integers give 0 where floats give inf or NaN)."""
    return len(inputs) == 2 and isinstance(inputs[0], ChosenDtype) and type(inputs[1]) is int \
        and inputs[1] != 0


def _leaves(obj):
    if isinstance(obj, dict):
        obj = tuple(obj.values())
    if isinstance(obj, (tuple, list)):
        for v in obj:
            yield from _leaves(v)
    else:
        yield obj


def _values(obj):
    """``obj`` with each ChosenDtype its values (what is computed: the promotion)."""
    if isinstance(obj, ChosenDtype):
        return obj.values
    if isinstance(obj, dict):
        return {k: _values(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
        return type(obj)(_values(v) for v in obj)
    return obj


def _stand_in(obj, candidate: int):
    """A NumPy stand-in of ``obj`` (its dtype, its number of dims, one element a dim) where a
    ChosenDtype is of its ``candidate``-th dtype: what NumPy's dtype rules are asked with."""
    if isinstance(obj, ChosenDtype):
        return np.ones((1,) * obj.ndim, obj.dtypes[candidate])
    if isinstance(obj, Tracer):
        if obj.weak and obj.ndim == 0:
            return {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}[obj.dtype.kind]
        return np.ones((1,) * obj.ndim, obj.dtype)[()] if obj.scalar else np.ones((1,) * obj.ndim, obj.dtype)
    if hasattr(obj, "values") and hasattr(obj, "mask"):  # a selection (masked.py)
        return np.ones((1,) * obj.ndim, obj.dtype)
    if isinstance(obj, dict):
        return {k: _stand_in(v, candidate) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
        return type(obj)(_stand_in(v, candidate) for v in obj)
    return obj


def _dtypes_of(result):
    if isinstance(result, (tuple, list)):
        return tuple(_dtypes_of(r) for r in result)
    return np.asarray(result).dtype if isinstance(result, (np.ndarray, np.generic)) else type(result)


def _result_dtypes(func, args, kwargs, candidate: int):
    """NumPy's result dtype(s) of ``func(*args, **kwargs)`` where the chosen arrays are of their
    ``candidate``-th dtype; None where NumPy refuses that."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return _dtypes_of(func(*_stand_in(args, candidate), **_stand_in(kwargs, candidate)))
    except Exception:
        return None


def _power(self, other):
    """``a ** k``: NumPy's operator (np.square, np.sqrt or np.reciprocal for 2, 0.5 and -1:
    ``primitives.power_operator``), the dtype by np.power's rules."""
    if isinstance(other, ChosenDtype) or self.chooses_complex:
        return np.power(self, other)
    per_candidate = [_result_dtypes(np.power, (self, other), {}, i) for i in range(len(self.dtypes))]
    if any(d is None for d in per_candidate):
        raise self._refusal("numpy.power")
    out = self.values ** other  # (the operator's own fast paths)
    return self._results(out, per_candidate, _whole_power((self, other)), "numpy.power")


def _written_back(self, result, ufunc):
    """``a OP= v``: NumPy's in-place ufunc keeps each candidate's dtype, and raises where its
    result does not cast back (``same_kind``: ``a -= 0.5`` of ints), so the call raises where
    the data takes such a candidate; the others must all keep one dtype."""
    got = result.dtypes if isinstance(result, ChosenDtype) else (result.dtype,) * len(self.dtypes)
    if got == self.dtypes:
        return result
    errors = [ufunc_operators.cast_error(r, d, ufunc) for r, d in zip(got, self.dtypes)]
    if all(errors):
        raise errors[0]
    kept = {d for d, r, e in zip(self.dtypes, got, errors) if e is None and r == d}
    if len(kept) != 1 or sum(e is None for e in errors) != sum(d in kept for d in self.dtypes):
        raise self._refusal(f"ufunc '{ufunc.__name__}' in place")
    from jitcore.masked import raise_at_run_time  # (masked builds on this module's neighbours)

    for i, error in enumerate(errors):
        if error is not None:
            raise_at_run_time(self.which == i, lambda error=error: error)
    values = result.values if isinstance(result, ChosenDtype) else result
    return values.astype(kept.pop())


ufunc_operators.install(ChosenDtype, {**ufunc_operators.ARITHMETIC, "matmul": np.matmul}, _power,
                        _written_back)
ChosenDtype.__hash__ = None


def array_of(out, tags, among: tuple, kept=None):
    """``out``, ``np.array`` of items whose Python kinds (``among``, two of them: a Python int
    and a float) the data chose, each row's tag in ``tags`` (``kept``: which rows are items,
    where not all): NumPy's dtype is that of the kinds present (all ints: int64; a float among
    them: float64; none: float64), so ``out``, held in their promotion, is a
    ``ChosenDtype`` naming the one the present kinds give (returned, the host
    converts it; used, its ops keep NumPy's dtype or refuse). None where that cannot be exact
    (other kinds, NumPy 64-bit ints held in a float): the caller refuses. None too where every
    kind gives ``out``'s dtype (``[max(d, 0.0), min(d, 0.0)]`` of a float64 ``d``: an
    np.float64 or a Python float, float64 either way): the caller's plain array is NumPy's."""
    if len(among) != 2 or any(k.startswith("array") for k in among):
        return None
    own = [type_choice.own_dtype(k) for k in among]
    if all(d == out.dtype for d in own) and (kept is None or out.dtype == np.float64):
        return None  # (a list the data fills, empty, is float64 whatever its kinds)
    if any(k in ("np.int64", "np.uint64") for k in among):
        return None  # (a NumPy 64-bit int held in a float64 is not exact past 2**53)
    if np.result_type(*own) != out.dtype:
        return None
    present = [np.any(tags == i) if kept is None else np.any((tags == i) & kept) for i in (0, 1)]
    which = np.where(present[0] & present[1], 0, np.where(present[0], 1, np.where(present[1], 2, 3)))
    return ChosenDtype(out, prims.convert(which, type_choice.TAG), (out.dtype, *own, np.float64))


def array_of_items(obj) -> ChosenDtype | None:
    """``np.array(obj)`` of a list (nested lists, tuples) of numbers some of whose Python types
    a traced condition chose (``out.append(x[i] if x[i] > 0 else 0)`` in a counted loop, or
    ``[a if t else 0, b]``): a ``ChosenDtype`` (``array_of``); None where no item's
    type was chosen, or where that cannot be exact (the caller refuses)."""
    items = list(prims.leaves(obj))
    if not any(getattr(v, "type_choice", None) for v in items):
        return None
    among = functools.reduce(type_choice.merge, [type_choice.kinds(v) for v in items])
    if real_or_complex.of_kinds(among):  # (eigenvalues' items: real or complex as they chose)
        return real_or_complex.array_of(prims.nested_array(
            obj, np.result_type(*(type_choice.own_dtype(k) for k in among))), _tags(obj, among), among)
    if len(among) != 2 or len({type_choice.own_dtype(k) for k in among}) == 1:
        return None  # (float or np.float64: float64 whichever the data chose)
    values = prims.nested_array(obj, np.result_type(*(type_choice.own_dtype(k) for k in among)))
    tags = prims.reshape(_tags(obj, among), values.shape)
    return array_of(values, tags, among)


def _tags(obj, among: tuple) -> Tracer:
    """The tag of each number of ``obj`` among ``among``, flat: a run of rows an appending loop
    made as its carried tags (``trace.appended``), other items one by one."""
    trace = prims.find_trace(*prims.leaves(obj))
    pieces = prims.appended_pieces(obj) if isinstance(obj, list) else None
    if pieces is None:
        return prims.ravel(prims.nested_array([type_choice.tag(trace, v, among) for v in prims.leaves(obj)],
                                              type_choice.TAG))
    runs = {id(rows): choice for rows, _, _, choice in trace.appended.values()}
    parts = []
    for piece in pieces:
        if isinstance(piece, list):
            tags = [type_choice.tag(trace, v, among) for v in piece]
            parts.append(prims.nested_array(tags, type_choice.TAG))
            continue
        tags, kinds = runs.get(id(piece)) or (None, None)
        if tags is None:  # (rows of one kind: the kind of any of them)
            kind = type_choice.kind_of(prims.as_scalar(piece[0])) if piece.shape[0] else among[0]
            tags, kinds = prims.constant(trace, np.zeros(piece.shape[0], type_choice.TAG)), (kind,)
        table = prims.constant(trace, np.array([among.index(k) for k in kinds], type_choice.TAG))
        parts.append(table[tags])
    return prims.ravel(prims.concatenate(parts, 0) if len(parts) > 1 else parts[0])


def lists_as_arrays(args: tuple, kwargs: dict):
    """``args`` and ``kwargs`` of a NumPy function with each list (or tuple) of numbers whose
    types the data chose as its ``array_of_items`` (``np.sum(out)``: NumPy's dtype for it);
    the same objects where none is."""
    def chosen(a):
        if isinstance(a, (list, tuple)) and not hasattr(a, "_fields") and any(
                getattr(v, "type_choice", None) is not None for v in prims.leaves(a)):
            made = array_of_items(a)
            return a if made is None else made
        return a
    return tuple(map(chosen, args)), {k: chosen(v) for k, v in kwargs.items()}
