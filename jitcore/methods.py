"""``@jit`` on a method: the stand-in instance a method traces on, and what its state is.

(``obj.method`` itself, and the call's key: ``jitcore.method_calls``.)

An instance's arrays are read on every call, as NumPy code expects: ``obj.method(x)`` passes
the arrays among ``obj``'s own attributes (an array of a dtype jitcore supports, or a list,
tuple or dict of such arrays) as arguments, so ``obj.W[:] = 5`` or ``obj.W = np.ones(4)``
between calls is seen, and a write into ``self.W`` inside the method reaches ``obj.W``. Its
other attributes are static: part of the signature, compared by ``==`` (by identity where a
value is not hashable; a list or dict of numbers by its contents), so changing ``obj.scale``
compiles again; so do the class's plain values the method reads as ``self.NAME``. The method
traces on a stand-in object of ``obj``'s class holding those attributes; instances of one
class with equal static attributes share compiled code. A method that rebinds an attribute of
``self`` holding an array or a number to an array or a number (``self.u = u + 1``, ``self.n +=
1``; session 49) returns the new values beside its result, and the call assigns them to the
instance (such a number is traced, not static); adding, deleting or rebinding other attributes
is refused: a compiled call could not repeat it. What the method
reads through an attribute's own attributes (an object it holds) is read while tracing.

Objects this cannot stand in for (``__slots__``, a ``__new__`` of their own) and a method with
``static_argnums=0`` pass ``self`` as a plain static argument instead (compared by
``==``/``hash``, read while tracing).
"""

from __future__ import annotations

import inspect

import numpy as np

from jitcore import pytree
from jitcore.autograph.runtime import call as autograph_call
from jitcore.dtypes import SUPPORTED_DTYPES
from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer


def has_plain_state(obj) -> bool:
    """Whether ``obj``'s state is its ``__dict__`` and a bare object of its class can hold it."""
    cls = type(obj)
    return (hasattr(obj, "__dict__") and cls.__new__ is object.__new__
            and all("__slots__" not in vars(c) for c in cls.__mro__))


class _Same:
    """An unhashable attribute value in a signature: equal only to itself."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return type(other) is _Same and other.value is self.value

    def __hash__(self):
        return id(self.value)


def _is_array(value) -> bool:
    """An array a compiled function can take (others, such as strings, stay static)."""
    return isinstance(value, Tracer) or (isinstance(value, np.ndarray) and value.dtype in SUPPORTED_DTYPES)


def _is_arrays(value) -> bool:
    if isinstance(value, (list, tuple, dict)) and not hasattr(value, "_fields"):
        leaves = pytree.flatten(value)[0]
        return bool(leaves) and all(_is_array(leaf) for leaf in leaves)
    return _is_array(value)


def is_object(value) -> bool:
    """An object of the user's class (``pytree.plain_object``; session 50) an attribute holds: a
    pytree node passed traced, as its arrays and numbers are read on every call and what the
    method assigns through it (``self.grid.u = v``) is set on it after the call (one that holds
    itself, ``a.parent.child is a``, stays static as before: no tree holds it)."""
    return pytree.plain_object(value) and pytree.acyclic(value)


def is_number(value) -> bool:
    """A Python or NumPy number (or a traced 0-d value standing for one)."""
    if isinstance(value, Tracer):
        return value.ndim == 0
    return isinstance(value, (int, float, complex, np.number, np.bool_))


class MethodBody:
    """The method called on a stand-in instance: ``(key, attributes, *args)``, the stand-in of
    class ``key.cls`` holding ``key.values()`` and ``attributes`` (``method_calls.FlatBody``
    passes them all in the key)."""

    def __init__(self, fun, autograph: bool, signature: inspect.Signature):
        self.fun = fun
        self.autograph = autograph
        self.__name__ = fun.__name__
        self.__qualname__ = fun.__qualname__
        self.__module__ = fun.__module__
        self.__doc__ = fun.__doc__
        params = list(signature.parameters.values())
        self_param = params[0]
        attributes = inspect.Parameter(f"{self_param.name}_attributes", self_param.kind)
        self.__signature__ = signature.replace(parameters=[self_param, attributes, *params[1:]])
        self.rebindable: tuple = ()  # attributes a call may rebind (method_calls.FlatBody.rebound)

    def __call__(self, key, attributes: dict, *args, **kwargs):
        stand_in = object.__new__(key.cls)
        stand_in.__dict__.update(key.values())
        stand_in.__dict__.update(attributes)
        before = dict(stand_in.__dict__)
        fun = autograph_call(self.fun) if self.autograph else self.fun
        out = fun(stand_in, *args, **kwargs)
        after = stand_in.__dict__
        changed = sorted(n for n in before.keys() | after.keys()
                         if before.get(n, before) is not after.get(n, after))  # absent: the dict
        rebound = [n for n in changed if n in self.rebindable and n in before and n in after
                   and (_is_arrays(after[n]) or is_number(after[n]))]
        changed = [n for n in changed if n not in rebound]
        if self.rebindable and not changed:
            return out, tuple(after[n] for n in self.rebindable)
        if changed:
            self_name = next(iter(self.__signature__.parameters))
            raise UnsupportedError(
                f"{self.__name__}() assigns {', '.join(f'{self_name}.{n}' for n in changed)}: a jitted "
                "method may write into its instance's arrays (self.x[...] = v, self.x += v) and rebind "
                "those holding arrays or numbers to arrays or numbers (self.u = u + 1, self.t += dt), "
                "but not add, delete or rebind other attributes, which a compiled call could not "
                "repeat; return the new values and assign them after the call")
        return out
