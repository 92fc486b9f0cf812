"""Operators on the user's objects: ``q1 * q2``, ``a @ b``, ``2 * v``, ``-q``, ``q *= r``,
``v == w``, ``v < w`` where a class of the user's defines ``__mul__``, ``__rmul__``,
``__imul__``, ``__eq__``, ``__lt__``... (a quaternion, a vector, a transform). Python calls those
methods itself, so the converted code never saw them: an ``if`` on a traced value in one, or
``np.array([traced, ...])``, failed with a message about the array code. Converted code calls
``binary``/``unary``/``inplace``/``rich`` for each operator; on any other operands they are the
operator itself (``runtime`` calls these with its ``call``).
"""

from __future__ import annotations

import operator
import types

import numpy as np

from jitcore.autograph.expressions import not_
from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer, is_user_file, user_location

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
# name -> (the in-place operator, its method); without the method Python falls back to _BINARY's
_INPLACE = {"Add": (operator.iadd, "__iadd__"), "Sub": (operator.isub, "__isub__"),
            "Mult": (operator.imul, "__imul__"), "MatMult": (operator.imatmul, "__imatmul__"),
            "Div": (operator.itruediv, "__itruediv__"), "FloorDiv": (operator.ifloordiv, "__ifloordiv__"),
            "Mod": (operator.imod, "__imod__"), "Pow": (operator.ipow, "__ipow__"),
            "LShift": (operator.ilshift, "__ilshift__"), "RShift": (operator.irshift, "__irshift__"),
            "BitOr": (operator.ior, "__ior__"), "BitXor": (operator.ixor, "__ixor__"),
            "BitAnd": (operator.iand, "__iand__")}
# comparison -> (the operator, its method, the method Python asks of the right operand)
_RICH = {"==": (operator.eq, "__eq__", "__eq__"), "!=": (operator.ne, "__ne__", "__ne__"),
         "<": (operator.lt, "__lt__", "__gt__"), "<=": (operator.le, "__le__", "__ge__"),
         ">": (operator.gt, "__gt__", "__lt__"), ">=": (operator.ge, "__ge__", "__le__")}
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


def _plain(left, right) -> bool:
    """No method of the user's can run (a NumPy array on the left: NumPy's own rules, as
    without jit)."""
    return type(right) in _PLAIN and type(left) in _PLAIN or type(left) is np.ndarray


def _pick(fn, method: str, reflected: str, left, right, call, symbol: str, compared=False):
    """``fn(left, right)`` as Python picks the methods, the user's converted: the right
    operand's reflected method first where its class is a subclass of the left's that has its
    own, then the left operand's method, then (it missing or returning NotImplemented) the
    right's reflected one (between operands of one class, only a comparison's: ``compared``);
    neither answering, ``fn`` itself (Python's TypeError, or identity for ``==``). A traced
    array on the left stands for a NumPy array: ``_numpy_defers``."""
    deferred = isinstance(left, Tracer) and left.ndim
    if deferred and not _numpy_defers(left, right, symbol):
        return fn(left, right)
    lt, rt = type(left), type(right)
    other = _users_method(rt, reflected) if rt is not lt or compared else None
    first = other is not None and issubclass(rt, lt) and other is not getattr(lt, reflected, None)
    if first:
        result = call(other)(right, left)
        if result is not NotImplemented:
            return result
    own = _users_method(lt, method)
    if own is not None:
        result = call(own)(left, right)
        if result is not NotImplemented:
            return result
    if other is not None and not first:
        result = call(other)(right, left)
        if result is not NotImplemented:
            return result
    if deferred:  # NumPy's operator returned NotImplemented: Python's last resort
        return _unanswered(symbol, right, compared)
    return fn(left, right)


def _unanswered(symbol: str, right, compared: bool):
    """``array <op> right`` that neither NumPy nor ``right`` answers: identity for ``==`` and
    ``!=`` (never the same object), else Python's TypeError."""
    if symbol in ("==", "!="):
        return symbol == "!="
    name = type(right).__name__
    raise TypeError(f"'{symbol}' not supported between instances of 'numpy.ndarray' and '{name}'"
                    if compared else
                    f"unsupported operand type(s) for {symbol}: 'numpy.ndarray' and '{name}'")


def _numpy_defers(left: Tracer, right, symbol: str) -> bool:
    """Whether NumPy's array operator hands ``array <op> obj`` to ``obj``'s reflected method:
    where ``obj``'s class sets ``__array_ufunc__ = None``, or (without ``__array_ufunc__``) an
    ``__array_priority__`` above the array's 0. Otherwise NumPy applies the operator to each
    element with ``obj`` and makes an array of Python objects, which compiled code cannot hold:
    refused, saying how to have NumPy call the method with the whole array."""
    rt = type(right)
    if rt in _PLAIN or not any(_users_method(rt, m) for m in _USER_METHODS):
        return False  # (not the user's operators: the traced array's own rules)
    if hasattr(rt, "__array_ufunc__"):  # (one of its own: NumPy's ufunc protocol, not this)
        return rt.__array_ufunc__ is None
    if getattr(rt, "__array_priority__", -1e6) > 0.0:
        return True
    name = rt.__name__
    raise UnsupportedError(
        f"array {symbol} {name} (at {user_location()}): NumPy applies the operator to each "
        f"element of the array with the {name} and makes an array of Python objects, which "
        f"compiled code cannot hold.\nTo have NumPy (and jitcore) call {name}'s reflected "
        f"method with the whole array, set `__array_ufunc__ = None` in class {name}, or write "
        f"the {name} on the left.")


def binary(name: str, left, right, call):
    """``left <op> right``, the user's operator methods converted, as Python would pick them
    (``_pick``). ``call``: ``runtime.call`` (the converted function)."""
    fn, method, reflected = _BINARY[name]
    if _plain(left, right):
        return fn(left, right)
    return _pick(fn, method, reflected, left, right, call, _SYMBOL[name])


def inplace(name: str, left, right, call):
    """``left <op>= right`` (the value to rebind ``left`` to): the left operand's in-place
    method (``__iadd__``...), converted, where its class has one that answers; else, as Python
    falls back, ``left <op> right`` (``binary``). A NumPy array's in-place operator is NumPy's:
    it writes the array."""
    fn, method = _INPLACE[name]
    if _plain(left, right) or isinstance(left, Tracer) and not (left.scalar or left.weak):
        return fn(left, right)  # (an array: NumPy's in-place operator refuses such an object)
    if isinstance(left, Tracer):  # a number, traced (s = x.sum(); s += v): no in-place method
        return binary(name, left, right, call)
    own = _users_method(type(left), method)
    if own is not None:
        result = call(own)(left, right)
        if result is not NotImplemented:
            return result
    elif hasattr(type(left), method):  # (a method of a library's class: Python's own)
        return fn(left, right)
    return binary(name, left, right, call)


def rich(symbol: str, left, right, call):
    """``left == right``, ``left < right``...: the user's comparison methods converted, as
    Python picks them (``_pick``); ``!=`` of a class with ``__eq__`` alone is ``not (left ==
    right)``, as ``object.__ne__`` makes it."""
    fn, method, reflected = _RICH[symbol]
    if _plain(left, right):
        return fn(left, right)
    if symbol == "!=":
        fn = _not_equal(left, right, call)
    return _pick(fn, method, reflected, left, right, call, symbol, compared=True)


def _not_equal(left, right, call):
    """``!=`` where neither operand's class has a ``__ne__`` of the user's: the negation of the
    first user's ``__eq__`` that answers, as ``object.__ne__`` asks it; else Python's ``!=``."""
    def ne(a, b):
        for x, y in ((a, b), (b, a)):
            eq = _users_method(type(x), "__eq__")
            if eq is not None and _users_method(type(x), "__ne__") is None \
                    and type(x).__ne__ is object.__ne__:
                result = call(eq)(x, y)
                if result is not NotImplemented:
                    return not_(result)
        return a != b
    return ne


_SYMBOL = {"Add": "+", "Sub": "-", "Mult": "*", "MatMult": "@", "Div": "/", "FloorDiv": "//",
           "Mod": "%", "Pow": "**", "LShift": "<<", "RShift": ">>", "BitOr": "|", "BitXor": "^",
           "BitAnd": "&"}
_USER_METHODS = tuple(m for _, _, m in _BINARY.values()) + tuple(m for _, _, m in _RICH.values())


def unary(name: str, operand, call):
    """``-q``, ``+q``, ``~q`` with the user's method converted."""
    fn, method = _UNARY[name]
    if type(operand) not in _PLAIN:
        own = _users_method(type(operand), method)
        if own is not None:
            return call(own)(operand)
    return fn(operand)
