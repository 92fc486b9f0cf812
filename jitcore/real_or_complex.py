"""Arrays that are real or complex as the data chooses: NumPy's ``eig``, ``eigvals``, ``roots``
and ``poly`` (docs/numpy_support.md, ``np.linalg.eig``).

NumPy's ``eigvals`` of a real matrix is float64 where every eigenvalue is real and complex128
otherwise, and what follows keeps that dtype: ``np.log(2) / -w`` is float64, ``np.sqrt(w)`` of
a negative eigenvalue NaN, ``np.iscomplexobj(w)`` False. Inside the function such a value is a
``RealOrComplex``: both arrays (``as_real``, the real parts, and ``as_complex``) and the traced
0-d bool ``real_taken`` that says which NumPy has when the function runs. Everything done with
it is done to each (both compiled, as ``chosen_kind_arithmetic`` does for scalars) and the
results joined (``_joined``): the same dtype from both, the one the data took (a select); a
real and a complex array, again a ``RealOrComplex``; a real and a complex NumPy scalar, a
scalar whose type the data chose (``type_choice``); two Python values, the one taken (a traced
bool for ``np.iscomplexobj``). So every result has NumPy's dtype and NumPy's numbers for the
path the data takes. Run-time checks made on one side (Python's arithmetic errors) raise only
where it is the one taken (``python_arithmetic.only_where``). What cannot be joined (a traced
``if`` that carries it, an op NumPy refuses for one of the dtypes) is refused with what to
write instead. Returned, the value is held complex (the real side converted, exactly) with
the tag the host converts it by (``kind_conversion``'s ``"array"`` and ``"array.real"`` kinds).
"""

from __future__ import annotations

import contextlib
import sys
from typing import NamedTuple

import numpy as np

from jitcore import failures, formatting, python_arithmetic, pytree, tracer, type_choice, ufunc_operators
from jitcore import primitives as prims
from jitcore.errors import JitTypeError
from jitcore.ir.dialects import kernel
from jitcore.kind_conversion import COMPLEX_ARRAY, REAL_ARRAY, REAL_COPY, own_dtype
from jitcore.masked import MaskedSelection, raise_at_run_time
from jitcore.tracer import Tracer, fresh, is_user_file, user_location

_ADVICE = (
    "Where you know which it is, say so: w.real (every eigenvalue real) or "
    "w.astype(complex) (complex) gives an array of one dtype"
)


class RealOrComplex:
    """A real array ``as_real`` or a complex one ``as_complex`` (the same shape), the 0-d bool
    tracer ``real_taken`` saying which when the function runs. ``view``: ``as_real`` is
    NumPy's ``w.real`` view of ``as_complex`` (eig's own results), returned as such."""

    __slots__ = ("as_real", "as_complex", "real_taken", "view")

    def __init__(self, as_real: Tracer, as_complex: Tracer, real_taken: Tracer, view: bool = False):
        self.as_real, self.as_complex, self.real_taken, self.view = as_real, as_complex, real_taken, view

    @classmethod
    def of_eig(cls, values: Tracer, real_taken: Tracer) -> RealOrComplex:
        """``values`` (complex), given as their real parts where ``real_taken`` holds, as
        NumPy's ``w = w.real``."""
        return cls(fresh(np.real(values)), values, real_taken, view=True)  # (not a view: w.sort())

    # -- what is static ----------------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self.as_complex.ndim

    @property
    def shape(self):
        return self.as_complex.shape

    @property
    def size(self):
        return self.as_complex.size

    def __len__(self):
        return len(self.as_complex)

    @property
    def dtype(self):
        return EitherDtype(self)

    def dtypes(self) -> tuple:
        return self.as_real.dtype, self.as_complex.dtype

    # -- the two sides ------------------------------------------------------------------------------
    def _taken(self, real: bool) -> Tracer:
        return self.real_taken if real else np.logical_not(self.real_taken)

    def each(self, compute, name: str):
        """``compute(real)`` once with this choice's values real, once complex, joined."""
        sides, errors = [], []
        for real in (True, False):
            taken = self._taken(real)
            with python_arithmetic.only_where(taken), _failing_only_where(taken):
                try:
                    sides.append(compute(real))
                except (TypeError, ValueError) as error:
                    sides.append(None)
                    errors.append((real, error))
        if len(errors) == 2:
            raise errors[0][1]  # (wrong whichever it is: the user's own error)
        if errors:
            real, error = errors[0]
            raise self._refusal(
                name, f"NumPy's {name} of the {'real' if real else 'complex'} one fails ({error})"
            ) from None
        return self._joined(*sides, name)

    def _side(self, obj, real: bool):
        """``obj`` with this choice (wherever it stands in tuples, lists, dicts) as one side."""
        if isinstance(obj, RealOrComplex) and obj.real_taken is self.real_taken:
            return obj.as_real if real else obj.as_complex
        if isinstance(obj, dict):
            return {k: self._side(v, real) for k, v in obj.items()}
        if isinstance(obj, (tuple, list)) and not hasattr(obj, "_fields"):
            return type(obj)(self._side(v, real) for v in obj)
        return obj

    def _joined(self, r, c, name: str):
        """The result the data takes of ``r`` (computed real) and ``c`` (computed complex)."""
        if isinstance(r, (tuple, list)) and type(r) is type(c) and len(r) == len(c):
            items = [self._joined(a, b, name) for a, b in zip(r, c)]
            return type(r)(*items) if hasattr(r, "_fields") else type(r)(items)
        if r is c:
            return r
        if isinstance(r, RealOrComplex) or isinstance(c, RealOrComplex):
            return self._lifted(r, c, name)
        if not isinstance(r, Tracer) and not isinstance(c, Tracer):
            if type(r) is type(c) and type(r) in (bool, int, float, complex, str) and r == c:
                return r  # (the same whichever it is: a shape, a count)
            if type(r) is bool and type(c) is bool:  # np.iscomplexobj(w): the side taken
                taken = self.real_taken if r else np.logical_not(self.real_taken)
                return fresh(taken, scalar=True, weak=True)
            if isinstance(r, MaskedSelection) or isinstance(c, MaskedSelection):
                raise self._refusal(
                    name, "a selection by a traced mask, whose length the data chooses, is not kept for both"
                )
            raise self._refusal(name, f"NumPy gives {r!r} for the real one and {c!r} for the complex one")
        trace = self.real_taken.owner_trace
        r = r if isinstance(r, Tracer) else _constant(trace, r)
        c = c if isinstance(c, Tracer) else _constant(trace, c)
        if r.shape != c.shape:
            raise self._refusal(name, f"its shape would be {r.shape} or {c.shape}")
        picked = prims.where(self.real_taken, r, c)
        if r.dtype == c.dtype and picked.dtype != r.dtype:  # (where's weak promotion: bools to int)
            picked = prims.convert(picked, r.dtype)
        if r.ndim == 0 and (r.scalar or c.scalar or r.type_choice or c.type_choice):
            out = fresh(picked, scalar=True, weak=r.weak and c.weak)
            return type_choice.choose(out, self.real_taken, r, c)
        if r.dtype == c.dtype:
            return picked
        if r.dtype.kind != "c" and c.dtype.kind == "c" and np.result_type(r.dtype, c.dtype) == c.dtype:
            return RealOrComplex(r, c, self.real_taken)
        raise self._refusal(name, f"its dtype would be {r.dtype} or {c.dtype}")

    def _lifted(self, r, c, name: str) -> RealOrComplex:
        """``r`` or ``c`` where one is itself real or complex as the data chooses (``np.poly``
        of the complex side: real where its roots pair up)."""
        (r_real, r_complex, r_test), (c_real, c_complex, c_test) = (_triple(x, name, self) for x in (r, c))
        if r_real.dtype != c_real.dtype or r_complex.dtype != c_complex.dtype or r_real.shape != c_real.shape:
            raise self._refusal(name, "its two sides' dtypes or shapes differ")
        t = self.real_taken
        return RealOrComplex(
            prims.where(t, r_real, c_real),
            prims.where(t, r_complex, c_complex),
            prims.where(t, r_test, c_test),
        )

    def _refusal(self, use: str, why: str = "") -> JitTypeError:
        real, complex_ = (d.name for d in self.dtypes())
        return JitTypeError(
            f"{use} of an array whose dtype the data chooses ({real} where every value is real, "
            f"as NumPy's eig, eigvals, roots and poly give, else {complex_}) (at {user_location()})"
            f"{': ' + why if why else ''}; jitcore computes both and keeps the one the data takes, "
            f"and cannot here. {_ADVICE}"
        )

    def held(self) -> Tracer:
        """The value as a result: held complex (the real side exactly converted), marked with
        the kind the host gives it back as (``kind_conversion``)."""
        if self.view:
            out = fresh(self.as_complex)
        else:
            out = prims.where(
                self.real_taken, prims.convert(self.as_real, self.as_complex.dtype), self.as_complex
            )
        out.type_choice = (
            prims.convert(self.real_taken, type_choice.TAG),
            (COMPLEX_ARRAY, REAL_ARRAY if self.view else REAL_COPY),
        )
        return out

    # -- NumPy's protocols ---------------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs or method == "at":
            raise self._refusal(
                f"numpy.{ufunc.__name__}" + (".at" if method == "at" else " with out="),
                "it would write into one of the two",
            )
        call = getattr(ufunc, method) if method != "__call__" else ufunc
        return called(
            call, inputs, kwargs, f"numpy.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
        )

    def __jitcore_ufunc__(self, ufunc, operands):
        return self.__array_ufunc__(ufunc, "__call__", *operands)

    def __jitcore_ufunc_method__(self, ufunc, method, *inputs, **kwargs):
        return self.__array_ufunc__(ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return self.__jitcore_function__(func, args, kwargs)

    def __jitcore_function__(self, func, args, kwargs):
        if "out" in kwargs and kwargs["out"] is not None:
            raise self._refusal(f"numpy.{func.__name__} with out=", "it would write into one of the two")
        return called(func, args, kwargs, f"numpy.{getattr(func, '__name__', func)}")

    # -- indexing and methods ------------------------------------------------------------------------
    def __getitem__(self, key):
        return self.each(
            lambda real: (self.as_real if real else self.as_complex)[self._side(key, real)], "indexing"
        )

    def __setitem__(self, key, value):
        for real in (True, False):
            side = self.as_real if real else self.as_complex
            side[self._side(key, real)] = self._side(value, real)
        self.view = False

    def __getattr__(self, name: str):
        if name.startswith("__") or name in RealOrComplex.__slots__:
            raise AttributeError(name)
        found = [getattr(side, name) for side in (self.as_real, self.as_complex)]
        if not callable(found[0]):
            return self._joined(*found, f".{name}")
        self.view = False  # (a method may write both sides: w.sort())
        return lambda *args, **kwargs: self.each(
            lambda real: called(
                found[0 if real else 1], self._side(args, real), self._side(kwargs, real), f".{name}()"
            ),
            f".{name}()",
        )

    @property
    def T(self):
        return RealOrComplex(self.as_real.T, self.as_complex.T, self.real_taken)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        raise self._refusal("bool()")

    def __array__(self, dtype=None, copy=None):
        raise self._refusal("np.asarray()")

    def tolist(self):
        raise self._refusal(".tolist()")

    # -- printed: the side the data took, when the function runs ------------------------------------
    def _text(self, spec: str) -> str:
        if formatting.for_user(sys._getframe(2).f_code.co_filename, is_user_file):
            return tracer.text_of(self.held(), spec)  # (traced_text's, set when it loads)
        return f"{self.as_complex!r}, real where every value is"

    def __repr__(self) -> str:
        return self._text(formatting.REPR)

    def __str__(self) -> str:
        return self._text(formatting.STR)

    def __format__(self, spec: str) -> str:
        return self._text(spec)


def _written_back(self, result, ufunc):
    """``w OP= v``: each side as NumPy's in-place ufunc leaves it; a complex result cannot be
    written into the real side (``same_kind``), so there the call raises where the data takes
    the real side, and the result is the complex side's."""
    sides = [(self._side(self, real), self._side(result, real)) for real in (True, False)]
    errors = [ufunc_operators.cast_error(got.dtype, mine.dtype, ufunc) for mine, got in sides]
    if not any(errors):
        return self.each(lambda real: ufunc_operators.written_back(*sides[not real], ufunc),
                         f"ufunc '{ufunc.__name__}' in place")
    if errors[1] is not None:
        raise errors[1]
    raise_at_run_time(self.real_taken, lambda: errors[0])
    return ufunc_operators.written_back(*sides[1], ufunc)


ufunc_operators.install(RealOrComplex, {**ufunc_operators.ARITHMETIC, "matmul": np.matmul},
                        in_place=_written_back)
RealOrComplex.__hash__ = None


class EitherDtype:
    """``w.dtype`` of a ``RealOrComplex``: ``w.dtype == np.float64`` and ``w.dtype.kind == 'c'``
    are traced bools (NumPy's answer for the side the data takes); other uses are refused."""

    __slots__ = ("of",)

    def __init__(self, of: RealOrComplex):
        self.of = of

    def _is(self, test) -> Tracer | bool:
        real, complex_ = (bool(test(d)) for d in self.of.dtypes())
        return self.of._joined(real, complex_, "w.dtype") if real != complex_ else real

    def __eq__(self, other):
        return self._is(lambda d: d == np.dtype(other))

    def __ne__(self, other):
        return self._is(lambda d: d != np.dtype(other))

    @property
    def kind(self):
        return EitherKind(self)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise self.of._refusal(
            f".dtype.{name}",
            "use np.iscomplexobj(w), w.dtype == np.float64 or w.dtype.kind == 'c', which follow the data",
        )

    def __repr__(self) -> str:
        return f"dtype({self.of.dtypes()[0].name} or {self.of.dtypes()[1].name}, as the data chooses)"

    __hash__ = None


class EitherKind:
    """``w.dtype.kind``: compared with a letter, a traced bool."""

    __slots__ = ("dtype",)

    def __init__(self, dtype: EitherDtype):
        self.dtype = dtype

    def __eq__(self, other):
        return self.dtype._is(lambda d: d.kind == other)

    def __ne__(self, other):
        return self.dtype._is(lambda d: d.kind != other)

    def __contains__(self, letters):
        raise self.dtype.of._refusal(".dtype.kind in ...", "compare it: w.dtype.kind == 'c'")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise self.dtype.of._refusal(f".dtype.kind.{name}", "compare it: w.dtype.kind == 'c'")

    __hash__ = None


# The kernels' failures (a singular matrix, ``failures``' soft ops), by NumPy's message
_FAILURE_CODES = {
    "Singular matrix": kernel.SINGULAR_MATRIX,
    "Matrix is not positive definite": kernel.NOT_POSITIVE_DEFINITE,
}


@contextlib.contextmanager
def _failing_only_where(taken: Tracer):
    """A side's solves and factorisations fail the call only where ``taken`` holds (``inv(V)``
    of a complex pair's real parts is singular where NumPy computes the complex ``V``): they
    are emitted soft (``failures``) and their flags raise, or go to the user's ``try``, there."""
    attempt = failures.Attempt(0, lambda: (np.linalg.LinAlgError,))
    with attempt:
        yield
        flag = failures.failed(attempt, False)
    if flag is False:
        return
    bad = np.logical_and(flag, taken)
    trace, error = taken.owner_trace, attempt.errors[0]
    if failures.catches(trace, np.linalg.LinAlgError):
        failures.record(trace, bad, error)
    else:
        prims.raise_if(bad, _FAILURE_CODES[str(error)])


def called(func, args, kwargs, name: str):
    """``func(*args, **kwargs)`` where ``args`` and ``kwargs`` hold ``RealOrComplex`` values
    anywhere (``np.stack([w1, w2])``): computed for each side of each choice, joined."""
    first = next((x for x in _leaves((args, kwargs)) if isinstance(x, RealOrComplex)), None)
    if first is None:
        return func(*args, **kwargs)
    return first.each(
        lambda real: called(func, first._side(args, real), first._side(kwargs, real), name), name
    )


def _leaves(obj):
    if isinstance(obj, dict):
        obj = tuple(obj.values())
    if isinstance(obj, (tuple, list)):
        for v in obj:
            yield from _leaves(v)
    else:
        yield obj


def _constant(trace, value) -> Tracer:
    out = prims.constant(trace, np.asarray(value))
    return fresh(out, scalar=True, weak=type(value) in (bool, int, float, complex))


def _triple(x, name: str, choice: RealOrComplex):
    """``x`` as (its real side, its complex side, whether real is taken): a plain real array is
    real, a complex one complex."""
    if isinstance(x, RealOrComplex):
        return x.as_real, x.as_complex, x.real_taken
    if not isinstance(x, Tracer):
        raise choice._refusal(name, f"NumPy gives {x!r} for one of the two")
    trace = x.owner_trace
    if x.dtype.kind == "c":
        return fresh(np.real(x)), x, prims.constant(trace, np.bool_(False))
    return x, prims.convert(x, np.result_type(x.dtype, np.complex64)), prims.constant(trace, np.bool_(True))


# -- np.array of items whose types the data chose (chosen_dtype.array_of_items) ------------------
def of_kinds(among: tuple) -> bool:
    """Whether items of these kinds (``type_choice``) make an array real or complex as the data
    chose: a NumPy complex scalar among real numbers (``np.array([w[0], 1.0])`` of eigenvalues)."""
    complex_ = [k for k in among if k.startswith("np.complex")]
    return bool(complex_) and all(
        k in ("bool", "int", "float")
        or k.startswith(("np.float", "np.int", "np.uint", "np.bool", "np.complex"))
        for k in among
    )


def array_of(values: Tracer, tags: Tracer, among: tuple) -> RealOrComplex:
    """``values`` (the items held complex, each one's kind ``among[tags]``) as NumPy's array of
    them: complex where an item is, else of the real items' dtype."""
    complex_ = prims.constant(values.owner_trace, np.array([k.startswith("np.complex") for k in among]))
    real_taken = np.logical_not(np.any(complex_[tags]))
    real = np.result_type(*(own_dtype(k) for k in among if not k.startswith("np.complex")))
    return RealOrComplex(prims.convert(fresh(np.real(values)), real), values, real_taken)


# -- carried through a traced if (autograph.statements._traced_if) ---------------------------------
class Lifted(NamedTuple):
    """A ``RealOrComplex`` as a traced if's branches carry it: three arrays, each branch's
    joined by the condition as any other (a plain real array is one whose real side is taken)."""

    as_real: Tracer
    as_complex: Tracer
    real_taken: Tracer


def spots(value) -> set[int]:
    """The leaves of ``value`` (a pytree) that are ``RealOrComplex``."""
    if isinstance(value, Tracer) or type(value) in (bool, int, float, complex, str):
        return set()  # (the common case, at every traced if: nothing to flatten)
    return {k for k, leaf in enumerate(pytree.flatten(value)[0]) if isinstance(leaf, RealOrComplex)}


def carried_form(value, at=()):
    """``value`` with its ``RealOrComplex`` leaves, and its other leaves at ``at`` (where the
    other branch has one), as ``Lifted``."""
    if not at and not spots(value):
        return value
    leaves, tree = pytree.flatten(value)
    return pytree.unflatten(
        tree,
        [
            _lifted(leaf) if isinstance(leaf, RealOrComplex) or k in at else leaf
            for k, leaf in enumerate(leaves)
        ],
    )


def _lifted(leaf) -> Lifted:
    if isinstance(leaf, RealOrComplex):
        return Lifted(leaf.as_real, leaf.as_complex, leaf.real_taken)
    if isinstance(leaf, (np.ndarray, np.generic)):
        leaf = prims.constant(tracer.current_trace(), np.asarray(leaf))
    if not isinstance(leaf, Tracer) or leaf.dtype.kind not in "fc":
        raise JitTypeError(
            f"a value that one branch of a traced if makes an array real or complex as the data "
            f"chooses (eig's, roots') and the other {_described(leaf)} "
            f"(at {user_location()}): give both branches arrays "
            "of one kind (w.real, w.astype(complex))"
        )
    return Lifted(*_triple(leaf, "a traced if", None))


def picked(test: Tracer, a, b) -> RealOrComplex:
    """``a if test else b`` (a traced ``test``), one of them a ``RealOrComplex``: the side's
    own dtype kept (a plain real array's real), where ``np.where`` would promote."""
    a, b = _lifted(a), _lifted(b)
    return RealOrComplex(*(prims.where(test, x, y) for x, y in zip(a, b)))


def _described(leaf) -> str:
    if isinstance(leaf, Tracer):
        name = leaf.dtype.name
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name} {'scalar' if leaf.ndim == 0 else 'array'}"
    return f"a {type(leaf).__name__}"


def restored(value):
    """``value`` with each ``Lifted`` a ``RealOrComplex`` again."""
    if isinstance(value, Lifted):
        return RealOrComplex(*value)
    if isinstance(value, dict):
        return {k: restored(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        items = [restored(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value
