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

import dis
import functools
import inspect
import types

import numpy as np

from jitcore import call_memo, methods
from jitcore.autograph.runtime import call as autograph_call
from jitcore.errors import UnsupportedError

_POSITIONAL_ONLY = inspect.Parameter.POSITIONAL_ONLY
_MISSING = object()
# The class's values that are code, keyed by identity (``==`` is identity for these types, and
# ``native_call.STATIC_TYPES`` holds them): the functions a method calls as ``self.name``.
CODE_TYPES = (types.FunctionType, property, staticmethod, classmethod)
SNAPSHOT_LIMIT = 1024  # items: a bigger list or dict attribute is compared by identity, as before
_SCAN_DEPTH = 8  # methods called through self.name, followed this deep for self.NAME reads
_SELF_LOADS = ("LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE")
_ATTRIBUTE_LOADS = ("LOAD_ATTR", "LOAD_METHOD")


def layout(obj, reads: tuple, of_class: bool = False,
           stores: frozenset = frozenset()) -> tuple[tuple, list] | None:
    """``obj``'s layout and its flat twin's leading arguments. The layout: the class, the
    attribute names (the instance's own in ``__dict__`` order, then ``reads``' names that are
    plain values of its class: ``class_reads``), which of them hold arrays, and the count of the
    instance's own. The arguments: their values, those not arrays made hashable
    (``static_value``). ``of_class``: ``obj`` is a classmethod's class (its own count -1), whose
    code reads its values from the class itself while tracing: an array there is keyed by its
    contents (``Content``; a bigger one is refused), and None where a value compares by
    identity (the caller then keys the class alone, as before). ``stores``: the names the method
may assign (``class_reads``), whose numbers are passed traced."""
    names, arrays, values = [], [], []
    own = {} if of_class else vars(obj)
    for name, value in own.items():
        names.append(name)
        # a number the method may rebind (self.t += dt) is traced, not static: its new value
        # each call would otherwise compile again; a bool stays static (two compiles at most,
        # and the native call takes no traced bool)
        is_array = methods._is_arrays(value) or (name in stores and methods.is_number(value)
                                                 and not isinstance(value, (bool, np.bool_))) \
            or methods.is_object(value)  # self.grid: its arrays traced (grid.u read at each call)
        arrays.append(is_array)
        values.append(value if is_array else static_value(value))
    n_own, cls = len(names), obj if of_class else type(obj)
    for name in reads:
        if name in own:
            continue
        value = class_value(cls, name)
        if value is _MISSING:
            continue
        if type(value) in CODE_TYPES:  # a method, a property: by identity (one patched in is new code)
            names.append(name)
            arrays.append(False)
            values.append(value)
            continue
        if hasattr(type(value), "__get__"):  # other descriptors: read while tracing, as before
            continue
        names.append(name)
        is_array = methods._is_arrays(value)
        if of_class and is_array:
            values.append(Content.of(value, cls, name))
            is_array = False
        else:
            values.append(value if is_array else static_value(value))
        arrays.append(is_array)
        if of_class and type(values[-1]) is methods._Same:
            return None
    return (cls, tuple(names), tuple(arrays), -1 if of_class else n_own), values


def class_value(cls: type, name: str):
    """``name`` as the class ``cls`` holds it (``_PyType_Lookup``: the first class of its MRO
    whose ``__dict__`` has it, no descriptor called), or ``_MISSING``."""
    for c in cls.__mro__:
        found = vars(c).get(name, _MISSING)
        if found is not _MISSING:
            return found
    return _MISSING


def class_reads(fun, cls: type) -> tuple[tuple, frozenset]:
    """The names ``fun`` reads as ``self.NAME`` (``self``: its first parameter), in its own
    code, code nested in it (lambdas, inner functions) and, the same way, in the functions of
    ``cls`` it reaches as ``self.name``: where such a name is a class attribute, its value is
    part of the call as an instance attribute's is, so changing it is seen (a class constant
    read while tracing would otherwise stay in the code). Second, the names that code may
    assign as attributes (``STORE_ATTR`` of any object: more than ``self``'s, never fewer),
    the attributes a call may rebind (``FlatBody.rebound``)."""
    names: dict = {}
    stores: set = set()
    seen: set = set()

    def scan(f, depth: int) -> None:
        f = getattr(f, "fget", f)  # a property's getter
        f = inspect.unwrap(getattr(f, "__func__", f))  # a staticmethod's, a jitted function's
        code = getattr(f, "__code__", None)
        if code is None or code in seen or depth > _SCAN_DEPTH or not code.co_argcount:
            return
        seen.add(code)
        stores.update(_stored_attributes(code))
        for name in _self_attributes(code, code.co_varnames[0]):
            names.setdefault(name, None)
            target = class_value(cls, name)
            if target is not _MISSING:
                scan(target, depth + 1)

    scan(fun, 0)
    return tuple(names), frozenset(stores)


def _stored_attributes(code) -> set:
    """The attribute names ``code`` (and the code nested in it) assigns."""
    found = {ins.argval for ins in dis.get_instructions(code) if ins.opname == "STORE_ATTR"}
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            found |= _stored_attributes(const)
    return found


def _self_attributes(code, self_name: str) -> list:
    """The names loaded as attributes of ``self_name`` in ``code`` and the code nested in it."""
    found, previous = [], None
    for ins in dis.get_instructions(code):
        if ins.opname in _ATTRIBUTE_LOADS and previous is not None and previous.opname in _SELF_LOADS \
                and previous.argval == self_name:
            found.append(ins.argval)
        previous = ins
    for const in code.co_consts:
        if hasattr(const, "co_code") and self_name in const.co_freevars:
            found += _self_attributes(const, self_name)
    return found


def static_value(value):
    """An attribute value that is not an array, as a static argument: itself if hashable; a
    list, tuple or dict of numbers, strings and such (nested) as a ``Snapshot`` of its contents,
    so that changing an item is seen; anything else by identity (``methods._Same``)."""
    try:
        hash(value)
        return value
    except TypeError:
        pass
    frozen = _frozen(value, [0])
    return methods._Same(value) if frozen is _MISSING else Snapshot(value, frozen)


def _frozen(value, count: list):
    """A hashable copy of a container's contents (numbers by type and bits), or ``_MISSING``."""
    t = type(value)
    if t in (list, tuple, dict):
        count[0] += len(value)
        if count[0] > SNAPSHOT_LIMIT:
            return _MISSING
        items = value.items() if t is dict else value
        parts = [t]
        for item in items:
            if t is dict:
                key, item = item
                try:
                    hash(key)
                except TypeError:
                    return _MISSING
                parts.append(call_memo.exactly(key))
            part = _frozen(item, count)
            if part is _MISSING:
                return _MISSING
            parts.append(part)
        return tuple(parts)
    try:
        hash(value)
    except TypeError:
        return _MISSING
    return call_memo.exactly(value)


class Content:
    """An array a classmethod reads from its class, in a signature: equal to another of the same
    dtype, shape and bytes (taken on each call), since the traced code holds it as a constant."""

    __slots__ = ("value", "key", "_hash")
    LIMIT = 256  # elements, as calltime.FROZEN_GUARD_LIMIT

    def __init__(self, value: np.ndarray):
        self.value = value
        self.key = (value.dtype.str, value.shape, value.tobytes())
        self._hash = hash(self.key)

    @classmethod
    def of(cls, value, owner: type, name: str) -> Content:
        if type(value) is not np.ndarray or value.size > cls.LIMIT:
            raise UnsupportedError(
                f"a jitted classmethod reads {owner.__name__}.{name}, "
                + (f"an array of {value.size} elements" if isinstance(value, np.ndarray) else "arrays")
                + f" of its class, which its compiled code would hold as a constant (at most {cls.LIMIT} "
                "elements are compared on each call): pass it as an argument, or make the method an "
                "instance method (an instance's arrays, its class's too, are read on every call)")
        return cls(value)

    def __eq__(self, other):
        return type(other) is Content and other.key == self.key

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return repr(self.value)


class Snapshot:
    """A mutable container attribute in a signature: equal to another with the same contents
    (compared as ``_frozen`` copies, taken on each call); the method gets the container itself."""

    __slots__ = ("value", "frozen", "_hash")

    def __init__(self, value, frozen):
        self.value, self.frozen = value, frozen
        self._hash = hash(frozen)

    def __eq__(self, other):
        return type(other) is Snapshot and other.frozen == self.frozen

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return repr(self.value)


def static_positions(arrays: tuple, static_nums) -> frozenset:
    """The flat twin's static positions: the attributes not arrays, and the method's own static
    positions (``self`` at 0 is not one: ``JitFunction.__get__`` passes such methods' ``self``
    as a plain static argument) moved past the attributes."""
    n = len(arrays)
    return frozenset({k for k, is_array in enumerate(arrays) if not is_array}
                     | {n + k - 1 for k in static_nums})


class FlatBody:
    """The function a flat twin compiles: ``(attribute values..., *args, **kwargs)``, the method
    called on a stand-in instance (``methods.MethodBody``); with ``rebound`` attributes, it
    returns ``(result, their values after the call)``."""

    def __init__(self, fun, autograph: bool, signature: inspect.Signature, cls: type, names: tuple,
                 arrays: tuple, n_own: int, stores: frozenset = frozenset()):
        self.body = methods.MethodBody(fun, autograph, signature)
        self.cls, self.names, self.arrays, self.of_class = cls, names, arrays, n_own < 0
        # the instance's own attributes the method may rebind: a call returns their values after
        # it beside its result, and the caller assigns them (``JitFunction._call_method``)
        self.rebound = () if n_own < 0 else tuple(n for n in names[:n_own] if n in stores)
        self.body.rebindable = self.rebound
        self.n_own = n_own
        self.autograph = autograph
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
        if self.of_class:  # a classmethod: its class's values were read to key the call, not passed
            fun = autograph_call(self.fun) if self.autograph else self.fun
            return fun(self.cls, *args[n:], **kwargs)
        attributes = {name: _unwrapped(v) for k, (name, v) in enumerate(zip(self.names, args))
                      if k < self.n_own or type(v) not in CODE_TYPES}  # the class's code stays the class's
        return self.body(_StandInKey(self.cls, attributes), {}, *args[n:], **kwargs)


def _unwrapped(value):
    t = type(value)
    return value.value if t is Snapshot or t is methods._Same else value


class _StandInKey:
    """What ``methods.MethodBody`` reads of an instance key: the class, the attributes' values
    (a class attribute's too: set on the stand-in, it shadows the class's, so that an array
    there is the traced argument)."""

    __slots__ = ("cls", "attributes")

    def __init__(self, cls, attributes: dict):
        self.cls, self.attributes = cls, attributes

    def values(self) -> dict:
        return self.attributes


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
