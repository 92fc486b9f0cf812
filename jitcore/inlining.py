"""A jitted function called while another function is traced is inlined into that trace
(``JitFunction.__call__`` comes here first when a trace is running).

The callee sees what a compiled call of its own would see: its static arguments as Python
values (a traced or unhashable one is refused, naming it), the others as traced values (a NumPy
array or number the caller passes becomes a constant, a Python number a weak one; with
``config.auto_static``, a Python number, string or function stays itself: static on demand). Its body is
converted by its own ``autograph`` setting, through the same ``call`` helper as any function
converted code calls. One function compiles with one set of options: the caller's pipeline and
``fastmath`` apply to the inlined body too (the IR has no per-op fastmath flag).
"""

from __future__ import annotations

import numpy as np

from jitcore import config, primitives, pytree
from jitcore.autograph.runtime import call as autograph_call
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.generator_arguments import GENERATOR_KINDS
from jitcore.static_on_demand import hashable_advice, python_value
from jitcore.tracer import Tracer, current_trace, needs_static


def inline(jitted, args: tuple, kwargs: dict):
    """``jitted(*args, **kwargs)`` traced into the running trace; returns its (traced) result."""
    if jitted._signature is not None:
        try:
            bound = jitted._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise JitTypeError(f"{jitted.__name__}(): {e}") from None
        args, kwargs = bound.args, bound.kwargs
    args, kwargs = list(args), dict(kwargs)
    static_nums, static_names = jitted._static_nums, jitted._static_names
    if jitted._on_demand.names:  # made static by its own calls: here a traced value may come
        positions = {i for i, p in enumerate(jitted._signature.parameters) if p in jitted._on_demand.names}
        static_nums, static_names = static_nums - positions, static_names - jitted._on_demand.names
    for i, a in enumerate(args):
        if i in static_nums:
            _check_static(jitted, i, a)
    for k, v in kwargs.items():
        if k in static_names:
            _check_static(jitted, k, v)
    dyn_nums = [i for i in range(len(args)) if i not in static_nums]
    dyn_names = [k for k in kwargs if k not in static_names]
    leaves, tree = pytree.flatten((tuple(args[i] for i in dyn_nums), {k: kwargs[k] for k in dyn_names}))
    trace = current_trace()
    traced = [_traced(jitted, trace, leaf, tree, n) for n, leaf in enumerate(leaves)]
    dyn_args, dyn_kwargs = pytree.unflatten(tree, traced)
    for i, a in zip(dyn_nums, dyn_args):
        args[i] = a
    kwargs.update(dyn_kwargs)
    made = [(n, t, t.version) for n, (t, leaf) in enumerate(zip(traced, leaves)) if t is not leaf]
    fun = autograph_call(jitted.fun) if jitted.autograph else jitted.fun
    out = fun(*args, **kwargs)
    for n, t, version in made:
        if t.version != version:
            raise UnsupportedError(
                f"{jitted.__name__}() writes to its argument {jitted._paths(tree)[n]}, which the "
                "calling function passed as a NumPy array or number, not a traced value: the "
                "write cannot reach it. Pass a traced array, or return the new value")
    return out


def _traced(jitted, trace, leaf, tree, index) -> Tracer:
    """A dynamic argument as a traced value."""
    if isinstance(leaf, (Tracer, *GENERATOR_KINDS)):
        return leaf  # a generator (or the caller's stand-in for its argument) draws as the caller's
    if isinstance(leaf, (np.ndarray, np.generic)) or hasattr(leaf, "__array__"):
        return primitives.constant(trace, leaf if isinstance(leaf, np.ndarray) else np.asarray(leaf))
    if config.auto_static and python_value(leaf):
        return leaf  # static on demand: inlined, a Python value is as static as the caller's
    if isinstance(leaf, (bool, int, float, complex)):
        dtype = np.result_type(type(leaf))  # bool, int64, float64, complex128
        try:
            tracer = primitives.constant(trace, np.asarray(leaf, dtype))
        except OverflowError:
            raise JitTypeError(f"{jitted.__name__}(): {leaf} does not fit in {dtype}") from None
        tracer.weak = not isinstance(leaf, bool)
        return tracer
    raise JitTypeError(
        f"{jitted.__name__}(): argument {jitted._paths(tree)[index]} is a {type(leaf).__name__}, "
        "not an array or number; pass it with static_argnums/static_argnames if it should be "
        "a compile-time constant")


def _check_static(jitted, key, value) -> None:
    """A static argument: refuse a traced or unhashable value."""
    leaves = pytree.flatten(value)[0]
    if any(isinstance(leaf, Tracer) for leaf in leaves):
        raise needs_static(JitTypeError(
            f"{jitted.__name__}(): static argument {jitted._param_name(key)} got a traced value; "
            "a static argument must be a Python value known while tracing (pass the array as a "
            "non-static argument, or the caller's own static value)"), *leaves)
    try:
        hash(value)
    except TypeError:
        raise JitTypeError(f"{jitted.__name__}(): static arguments must be hashable, got "
                           f"{jitted._param_name(key)}={type(value).__name__}"
                           + hashable_advice([value])) from None
