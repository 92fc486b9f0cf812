"""``np.emath`` (``numpy.lib.scimath``) of traced arrays: ``sqrt``, ``log``, ``log2``,
``log10``, ``logn``, ``power``, ``arccos``, ``arcsin``, ``arctanh``.

NumPy converts a real input to complex first where any of its elements is outside the real
function's domain (a negative for ``sqrt`` and the logs, ``|x| > 1`` for ``arccos``, ``arcsin``
and ``arctanh``), and ``power``'s integer exponent to float where any is negative: the result's
dtype is chosen by the data. Where the input's dtype settles it (complex; unsigned or bool for
``sqrt`` and the logs) the result is the plain ufunc's. Otherwise both are computed, NumPy's
real result and its complex one, and the data's test picks one when the code runs: a
``chosen_dtype.ChosenDtype`` whose candidates are the two dtypes (a NumPy scalar whose type the
data chose, for 0-d), held complex. Returned or printed it has NumPy's dtype and bits; its real
and imaginary parts and moves of it are exact; arithmetic on it is refused, naming the
conversion that fixes the dtype (``x.astype(complex)`` first).
Importing the module registers them; it is ``jitcore.numpy.emath``, as ``numpy.emath`` is.
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims
from jitcore import type_choice
from jitcore.chosen_dtype import ChosenDtype, scalar_of
from jitcore.errors import JitTypeError
from jitcore.numpy.registry import implements
from jitcore.real_or_complex import RealOrComplex
from jitcore.tracer import Tracer, fresh, user_location

__all__: list[str] = []

# numpy.lib.scimath._tocomplex: these become complex64, every other real dtype complex128
_TO_COMPLEX64 = frozenset(np.dtype(t) for t in (np.float32, np.int8, np.int16, np.uint8, np.uint16))


def _complex_of(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.complex64 if dtype in _TO_COMPLEX64 else np.complex128)


class _Choice:
    """An argument that NumPy converts (to ``converted``) where the traced ``test`` holds."""

    __slots__ = ("test", "as_is", "converted", "when")

    def __init__(self, test, as_is, converted, when: str):
        self.test, self.as_is, self.converted, self.when = test, as_is, converted, when


def _fix(x, rule: str):
    """``x`` as NumPy's ``_fix_real_lt_zero`` / ``_fix_real_abs_gt_1`` / ``_fix_int_lt_zero``
    makes it: the value (its dtype settles it, or it is not traced), or a ``_Choice``."""
    if not isinstance(x, Tracer):
        a = np.asarray(x)
        if a.dtype.kind == "c" or not np.any(np.abs(a) > 1 if rule == "_fix_real_abs_gt_1" else a < 0):
            return a
        return a * 1.0 if rule == "_fix_int_lt_zero" else a.astype(_complex_of(a.dtype))
    kind = x.dtype.kind
    if (
        kind == "c"
        or (kind in "bu" and rule != "_fix_real_abs_gt_1")
        or (rule == "_fix_int_lt_zero" and kind == "f")
    ):  # (x * 1.0 keeps a float's dtype)
        return x
    if rule == "_fix_real_abs_gt_1":
        return _Choice(
            np.any(np.abs(x) > 1), x, x.astype(_complex_of(x.dtype)), "an element of magnitude above 1"
        )
    if rule == "_fix_int_lt_zero":
        return _Choice(np.any(x < 0), x, x * 1.0, "a negative exponent")
    return _Choice(np.any(x < 0), x, x.astype(_complex_of(x.dtype)), "a negative element")


def _chosen(name: str, f, *args):
    """``f`` of ``args`` (some of them ``_Choice``): NumPy's result, of the dtype the data gives."""
    choices = [a for a in args if isinstance(a, _Choice)]
    if not choices:
        return f(*args)
    if len(choices) > 1:
        raise JitTypeError(
            f"numpy.emath.{name} of two traced real arrays (at {user_location()}): NumPy "
            "converts each to complex by its own values, so the result's dtype has more than "
            "two possibilities. Convert them first (x.astype(complex)), or make one a constant"
        )
    (c,) = choices
    real = f(*(a.as_is if a is c else a for a in args))
    converted = f(*(a.converted if a is c else a for a in args))
    if real.dtype == converted.dtype:
        return fresh(prims.where(c.test, converted, real), scalar=real.scalar)
    if real.dtype.kind not in "fc":
        raise JitTypeError(
            f"numpy.emath.{name} of traced integers (at {user_location()}): NumPy's result is "
            f"{real.dtype} or {converted.dtype} as the data decides, and jitcore holds a choice "
            "of dtypes only where the values convert exactly. Convert them to float first "
            "(x.astype(float))"
        )
    if real.ndim and real.dtype == np.finfo(converted.dtype).dtype:  # (float64 and complex128)
        return RealOrComplex(real, converted, ~c.test)  # both kept, each used as NumPy would
    values = prims.where(c.test, converted, real.astype(converted.dtype))
    which = prims.convert(c.test, type_choice.TAG)
    dtypes = (real.dtype, converted.dtype)
    if values.ndim == 0:
        return scalar_of(values, which, dtypes)
    return ChosenDtype(
        values,
        which,
        dtypes,
        (
            f"numpy.emath.{name} of a real array, complex where it has {c.when}, else real",
            f"Give it the dtype you want first: np.emath.{name}(x.astype(complex)) is always "
            "complex, NumPy's numbers where the result is complex; or return it as it is",
        ),
    )


def _unary(np_fn, ufunc, rule: str):
    @implements(np_fn)
    def emath(x):
        return _chosen(np_fn.__name__, ufunc, _fix(x, rule))

    emath.__name__ = emath.__qualname__ = np_fn.__name__
    emath.__doc__ = f"``numpy.emath.{np_fn.__name__}``: ``numpy.{ufunc.__name__}``, complex where NumPy's is."
    return emath


sqrt = _unary(np.emath.sqrt, np.sqrt, "_fix_real_lt_zero")
log = _unary(np.emath.log, np.log, "_fix_real_lt_zero")
log2 = _unary(np.emath.log2, np.log2, "_fix_real_lt_zero")
log10 = _unary(np.emath.log10, np.log10, "_fix_real_lt_zero")
arccos = _unary(np.emath.arccos, np.arccos, "_fix_real_abs_gt_1")
arcsin = _unary(np.emath.arcsin, np.arcsin, "_fix_real_abs_gt_1")
arctanh = _unary(np.emath.arctanh, np.arctanh, "_fix_real_abs_gt_1")


@implements(np.emath.logn)
def logn(n, x):
    """``numpy.emath.logn``: ``log(x) / log(n)``, each converted as NumPy converts it."""
    return _chosen(
        "logn", lambda a, b: np.log(b) / np.log(a), _fix(n, "_fix_real_lt_zero"), _fix(x, "_fix_real_lt_zero")
    )


@implements(np.emath.power)
def power(x, p):
    """``numpy.emath.power``: ``x`` converted where negative, ``p`` made float where a negative
    integer, as NumPy does."""
    return _chosen("power", np.power, _fix(x, "_fix_real_lt_zero"), _fix(p, "_fix_int_lt_zero"))
