"""How a jitted function pickles (``JitFunction.__reduce__``).

Compiled code never travels: the receiving process compiles again (or loads the disk cache).
A jitted function that is itself a module's attribute (``@jit`` on a module-level function or
method) pickles as a reference to that attribute, like a function. Otherwise it pickles as its
function and options: the function by reference when pickle can store it so (a module-level
function, a partial of one, an object of a module-level class), else by value through
cloudpickle when it is installed (a lambda, a closure, a local function); without cloudpickle
such a function raises ``JitPicklingError`` saying what to do.
"""

from __future__ import annotations

import io
import pickle
import sys

from jitcore.errors import JitPicklingError


def reduce(jitted):
    """``jitted.__reduce__()``: a global name, or (constructor, arguments)."""
    if _module_attribute(jitted):
        return jitted.__qualname__
    fun, static_argnums, static_argnames = jitted._given
    options = (static_argnums, static_argnames, jitted.options, jitted.autograph, jitted.disk_cache)
    if _pickles_by_reference(fun):
        return type(jitted), (fun, *options)
    try:
        import cloudpickle
    except ImportError:
        code = getattr(getattr(fun, "__func__", fun), "__code__", None)
        where = f" (defined at {code.co_filename}:{code.co_firstlineno})" if code else ""
        raise JitPicklingError(
            f"cannot pickle jitted {jitted.__qualname__}(){where}: pickle stores a function as a "
            "reference to a module-level name, and this one has none (a lambda, a closure or a "
            "function defined inside another); define it at module level, or install cloudpickle "
            "to pickle it by value") from None
    return _from_cloudpickle, (type(jitted), cloudpickle.dumps(fun), *options)


def _from_cloudpickle(cls, data: bytes, *options):
    return cls(pickle.loads(data), *options)


def _module_attribute(jitted) -> bool:
    """Whether ``jitted`` is what its module's attribute of its qualified name holds."""
    obj = sys.modules.get(getattr(jitted, "__module__", None) or "")
    for part in jitted.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is jitted


def _pickles_by_reference(fun) -> bool:
    """Whether plain pickle stores ``fun`` (it refuses lambdas and local functions)."""
    try:
        pickle.Pickler(io.BytesIO(), pickle.HIGHEST_PROTOCOL).dump(fun)
    except (pickle.PicklingError, TypeError, AttributeError):
        return False
    return True
