"""Operators on the user's objects: ``q1 * q2``, ``a @ b``, ``2 * v``, ``-q`` where a class of
the user's defines ``__mul__``, ``__rmul__``, ``__matmul__``, ``__neg__``... (a quaternion, a
vector, a transform). Python calls those methods itself, so the converted code never saw them:
an ``if`` on a traced value in one, or ``np.array([traced, ...])``, failed with a message about
the array code. Converted code calls ``binary``/``unary`` for each operator; on any other
operands they are the operator itself (``runtime.binary``/``unary`` call these).
"""

from __future__ import annotations

import operator
import types

import numpy as np

from jitcore.tracer import Tracer, is_user_file

# name (the ast operator's class) -> (the operator, its method, the reflected method)
_BINARY = {
    "Add": (operator.add, "__add__", "__radd__"),
    "Sub": (operator.sub, "__sub__", "__rsub__"),
    "Mult": (operator.mul, "__mul__", "__rmul__"),
    "MatMult": (operator.matmul, "__matmul__", "__rmatmul__"),
    "Div": (operator.truediv, "__truediv__", "__rtruediv__"),
    "FloorDiv": (operator.floordiv, "__floordiv__", "__rfloordiv__"),
    "Mod": (operator.mod, "__mod__", "__rmod__"),
    "Pow": (operator.pow, "__pow__", "__rpow__"),
    "LShift": (operator.lshift, "__lshift__", "__rlshift__"),
    "RShift": (operator.rshift, "__rshift__", "__rrshift__"),
    "BitOr": (operator.or_, "__or__", "__ror__"),
    "BitXor": (operator.xor, "__xor__", "__rxor__"),
    "BitAnd": (operator.and_, "__and__", "__rand__"),
}
_UNARY = {"USub": (operator.neg, "__neg__"), "UAdd": (operator.pos, "__pos__"),
          "Invert": (operator.invert, "__invert__")}
# operand types whose operators are never the user's (the common case: one type test)
_PLAIN = frozenset((Tracer, np.ndarray, float, int, bool, complex, str, tuple, list, type(None),
                    np.float64, np.float32, np.int64, np.int32, np.bool_, np.complex128))


def _users_method(cls: type, name: str):
    """``cls``'s method ``name`` where it is a Python function of the user's, else None."""
    method = getattr(cls, name, None)
    if isinstance(method, types.FunctionType) and is_user_file(method.__code__.co_filename):
        return method
    return None


def binary(name: str, left, right, call):
    """``left <op> right``, the user's operator methods converted, as Python would pick them:
    the left operand's method, then (it returning NotImplemented, or a number on the left,
    traced or not) the right operand's reflected one. ``call``: ``runtime.call`` (the
    converted function)."""
    fn, method, reflected = _BINARY[name]
    if type(right) in _PLAIN and type(left) in _PLAIN or type(left) is np.ndarray:
        return fn(left, right)  # (a NumPy array on the left: NumPy's own rules, as without jit)
    own = _users_method(type(left), method)
    if own is not None:
        result = call(own)(left, right)
        if result is not NotImplemented:
            return result
    other = _users_method(type(right), reflected) if type(right) is not type(left) else None
    if other is not None:
        result = call(other)(right, left)
        if result is not NotImplemented:
            return result
    return fn(left, right)


def unary(name: str, operand, call):
    """``-q``, ``+q``, ``~q`` with the user's method converted."""
    fn, method = _UNARY[name]
    if type(operand) not in _PLAIN:
        own = _users_method(type(operand), method)
        if own is not None:
            return call(own)(operand)
    return fn(operand)
