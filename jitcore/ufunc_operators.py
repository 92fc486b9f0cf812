"""Python's operators as NumPy's ufuncs, for the values that apply ufuncs themselves.

A selection (``masked.MaskedSelection``), a repeat (``tied_length.Repeated``) and an array of
a dtype the data chooses (``chosen_dtype.ChosenDtype``) are not tracers: ``x[m] * 2`` reaches
them as ``__mul__``, which calls ``np.multiply``, which their ``__array_ufunc__`` takes.
``install`` gives a class those operators, each calling the ufunc NumPy's ndarray calls, and
the in-place ones (``x[m] -= 0.5`` is ``t = x[m]; t -= 0.5; x[m] = t``): NumPy's in-place ufunc
writes ``t``, so its result is cast back to ``t``'s dtype, refused as NumPy refuses it
(``same_kind``: a float result into an int array raises).
"""

from __future__ import annotations

import numpy as np

from jitcore import primitives as prims

ARITHMETIC = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
              "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
              "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
              "lshift": np.left_shift, "rshift": np.right_shift}
COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal}
UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}


def _binary(ufunc, reflected=False):
    def op(self, other):
        return ufunc(other, self) if reflected else ufunc(self, other)
    return op


def _unary(ufunc):
    def op(self):
        return ufunc(self)
    return op


def written_back(target, result, ufunc):
    """``target OP= other`` of an array of one dtype: ``result`` (``target OP other``) as
    NumPy's in-place ufunc leaves it, in ``target``'s dtype, where ``same_kind`` allows it."""
    prims.check_cast(result.dtype, target.dtype, "same_kind", f"ufunc '{ufunc.__name__}'")
    return result if result.dtype == target.dtype else result.astype(target.dtype)


def cast_error(result: np.dtype, target: np.dtype, ufunc) -> Exception | None:
    """NumPy's TypeError for writing ``ufunc``'s ``result``-dtype output in place into a
    ``target``-dtype array, or None where ``same_kind`` allows it."""
    try:
        prims.check_cast(result, target, "same_kind", f"ufunc '{ufunc.__name__}'")
    except TypeError as error:
        return error
    return None


def _in_place(ufunc, binary, kept):
    def op(self, other):
        result = binary(self, other)
        return result if result is NotImplemented else kept(self, result, ufunc)
    return op


def install(cls, arithmetic=ARITHMETIC, power=None, in_place=written_back) -> None:
    """``cls``'s operators: ``arithmetic`` (name -> ufunc) both ways, the comparisons, the
    unary ops; ``power``, where given, its own ``__pow__`` (NumPy's operator has fast paths);
    the in-place operators, each ``in_place(self, self OP other, ufunc)``, where given."""
    for name, ufunc in arithmetic.items():
        binary = power if name == "pow" and power is not None else _binary(ufunc)
        setattr(cls, f"__{name}__", _binary(ufunc))
        setattr(cls, f"__r{name}__", _binary(ufunc, reflected=True))
        if in_place is not None:
            setattr(cls, f"__i{name}__", _in_place(ufunc, binary, in_place))
    for name, ufunc in COMPARISONS.items():
        setattr(cls, f"__{name}__", _binary(ufunc))
    for name, ufunc in UNARY.items():
        setattr(cls, f"__{name}__", _unary(ufunc))
    if power is not None:
        cls.__pow__ = power
