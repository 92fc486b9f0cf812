"""A jitted method's call as a flat call of its instance's attributes, which the native call makes.

Why: ``obj.method(x)`` passed the instance's state to the method's twin as a static
``InstanceKey`` and a dict of its arrays (``jitcore.methods``): a container and an object, which
neither the memo of flat calls nor the native call take, so every call built the full signature
key (~21-30 us where a plain call takes ~0.3 us; docs/performance.md, branch dispatch35).

What: an instance's *layout* is its class, its attribute names in ``__dict__`` order, and which
of them hold arrays (``methods._is_arrays``: arrays, or lists, tuples, dicts of them). Each
layout has a *flat twin*: a ``JitFunction`` over ``FlatBody``, whose parameters are the
attributes' values, one each, then the method's own, with the attributes that are not arrays
static (compared as any static argument is: numbers by type and bits, strings by value, ``None``
and classes by identity, other hashable values by ``==``, unhashable ones by identity as
``methods`` does). A call is then ``flat(*attribute values, *args, **kwargs)``: an ordinary call,
which the call memo and the native call make like any other.

The native call goes one step further (``native_call.instance_spec``): the method's table (of
its ``MethodTwin``, the ``JitFunction`` a bound method calls) holds the class and the attribute
names of one layout beside the flat twin's entries; the dispatcher checks the instance's class
and its ``__dict__``'s size, looks each name up, and matches the values (arrays by dtype, shape
and layout, the others by value) with the entries as the flat twin's own arguments. So a
rebound or changed attribute is seen on every call: an array's new data is read, an array of
another shape or a static attribute with another value misses and takes the Python path, which
compiles the new signature (or reuses it) like any other call; an added or removed attribute is
another layout. Python semantics are those of ``methods``: only the instance's own attributes
are arguments; what the method reads through them from other objects (an attribute's
attributes, the class's attributes) is read while tracing, as before.
"""

from __future__ import annotations

import functools
import inspect

from jitcore import methods

_POSITIONAL_ONLY = inspect.Parameter.POSITIONAL_ONLY


def layout(obj) -> tuple[tuple, list]:
    """``obj``'s layout (class, attribute names, which are arrays) and its flat twin's leading
    arguments: the attribute values, in ``__dict__`` order, those not arrays hashable
    (``methods._keyed``)."""
    names, arrays, values = [], [], []
    for name, value in vars(obj).items():
        names.append(name)
        is_array = methods._is_arrays(value)
        arrays.append(is_array)
        values.append(value if is_array else methods._keyed(value))
    return (type(obj), tuple(names), tuple(arrays)), values


def static_positions(arrays: tuple, static_nums) -> frozenset:
    """The flat twin's static positions: the attributes not arrays, and the method's own static
    positions (``self`` at 0 is not one: ``JitFunction.__get__`` passes such methods' ``self``
    as a plain static argument) moved past the attributes."""
    n = len(arrays)
    return frozenset({k for k, is_array in enumerate(arrays) if not is_array}
                     | {n + k - 1 for k in static_nums})


class FlatBody:
    """The function a flat twin compiles: ``(attribute values..., *args, **kwargs)``, the method
    called on a stand-in instance (``methods.MethodBody``, which also refuses a method that
    rebinds an attribute)."""

    def __init__(self, fun, autograph: bool, signature: inspect.Signature, cls: type, names: tuple,
                 arrays: tuple):
        self.body = methods.MethodBody(fun, autograph, signature)
        self.cls, self.names, self.arrays = cls, names, arrays
        self.fun = fun
        self.__name__ = fun.__name__
        self.__qualname__ = fun.__qualname__
        self.__module__ = fun.__module__
        self.__doc__ = fun.__doc__
        params = list(signature.parameters.values())
        self_name, rest = params[0].name, params[1:]
        taken = {p.name for p in rest}
        leading = []
        for k, name in enumerate(names):  # self_w for self.w: how messages name the argument
            param = f"{self_name}_{name}" if name.isidentifier() else f"{self_name}_{k}"
            while param in taken:
                param += "_"
            taken.add(param)
            leading.append(inspect.Parameter(param, _POSITIONAL_ONLY))
        self.__signature__ = signature.replace(parameters=[*leading, *rest])

    def __call__(self, *args, **kwargs):
        n = len(self.names)
        static = tuple((name, v) for name, v, is_array in zip(self.names, args, self.arrays) if not is_array)
        arrays = {name: v for name, v, is_array in zip(self.names, args, self.arrays) if is_array}
        return self.body(methods.InstanceKey(self.cls, static), arrays, *args[n:], **kwargs)


class BoundJitMethod(functools.partial):
    """``obj.method`` of a jitted method: ``partial(twin, obj)``, so that calling it is C code
    down to the native call; ``lower``, ``cache_info`` and the rest are the twin's, ``__func__``
    the jitted method and ``__self__`` the instance, as a bound method's."""

    __slots__ = ()

    @property
    def __self__(self):
        return self.args[0]

    @property
    def __func__(self):
        return self.func._method_of_class

    def lower(self, *args, **kwargs):
        return self.func.lower(self.args[0], *args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        """The method's signature without ``self``, as a bound method's."""
        signature = self.func._signature
        return signature.replace(parameters=list(signature.parameters.values())[1:])

    def __getattr__(self, name):
        return getattr(self.func, name)

    def __reduce__(self):
        return getattr, (self.args[0], self.func.__name__)

    def __repr__(self):
        return f"<bound jitted method {self.func.__qualname__} of {self.args[0]!r}>"
