"""Python's operators as NumPy's ufuncs, for the values that apply ufuncs themselves.

A selection (``masked.MaskedSelection``), a repeat (``tied_length.Repeated``) and an array of
a dtype the data chooses (``chosen_dtype.ChosenDtype``) are not tracers: ``x[m] * 2`` reaches
them as ``__mul__``, which calls ``np.multiply``, which their ``__array_ufunc__`` takes.
``install`` gives a class those operators, each calling the ufunc NumPy's ndarray calls.
"""

from __future__ import annotations

import numpy as np

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


def install(cls, arithmetic=ARITHMETIC, power=None) -> None:
    """``cls``'s operators: ``arithmetic`` (name -> ufunc) both ways, the comparisons, the
    unary ops; ``power``, where given, its own ``__pow__`` (NumPy's operator has fast paths)."""
    for name, ufunc in arithmetic.items():
        setattr(cls, f"__{name}__", _binary(ufunc))
        setattr(cls, f"__r{name}__", _binary(ufunc, reflected=True))
    for name, ufunc in COMPARISONS.items():
        setattr(cls, f"__{name}__", _binary(ufunc))
    for name, ufunc in UNARY.items():
        setattr(cls, f"__{name}__", _unary(ufunc))
    if power is not None:
        cls.__pow__ = power
