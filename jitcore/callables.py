"""What ``jit`` accepts as a function, and what it needs to know about it before any call.

Plain functions, lambdas, ``functools.partial`` objects, bound methods, callable objects (their
class's ``__call__``), and ``staticmethod``/``classmethod`` objects (``@jit`` above
``@staticmethod`` or ``@classmethod`` in a class body). Their name for messages, their
signature, and their static arguments checked against that signature when ``jit`` is called.
"""

from __future__ import annotations

import functools
import inspect

from jitcore.errors import StaticArgumentError

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def named_after(fun):
    """What a jitted ``fun`` takes its name, module and docstring from: a partial's function."""
    while isinstance(fun, functools.partial):
        fun = fun.func
    return fun


def function_name(fun) -> str:
    """The name messages use: the function's own, a partial's function's, else the type's."""
    return getattr(named_after(fun), "__name__", type(fun).__name__)


def unwrap_method_kind(fun):
    """(the callable, how it binds as a class attribute): ``"instance"`` for a plain function
    (``self`` first), ``"class"`` for a classmethod (``cls`` first), None for the rest, which
    Python does not bind either (partials, callable objects, staticmethods)."""
    if isinstance(fun, staticmethod):
        return fun.__func__, None
    if isinstance(fun, classmethod):
        return fun.__func__, "class"
    if inspect.isfunction(fun):
        return fun, "instance"
    return fun, None


def call_method(fun):
    """A callable object of a user's class as its bound ``__call__``, so that tracing sees
    ``self`` as a method's (its attributes read on each call, its arrays written through);
    anything else (jitcore's own callables, such as a method's flat body) as it is."""
    if inspect.isroutine(fun) or isinstance(fun, (type, functools.partial)) \
            or type(fun).__module__.partition(".")[0] == "jitcore":
        return fun
    call = inspect.getattr_static(type(fun), "__call__", None)
    return fun.__call__ if inspect.isfunction(call) else fun


def signature_of(fun) -> inspect.Signature | None:
    """``fun``'s call signature (a partial's remaining parameters, a callable object's
    ``__call__`` without ``self``), or None where Python cannot tell (some builtins)."""
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def static_arguments(signature: inspect.Signature | None, static_argnums, static_argnames,
                     name: str) -> tuple[frozenset, frozenset]:
    """The static positions and names, each one checked against ``signature`` and completed
    with its counterpart (a static position's parameter name, a static name's position).

    A position out of range for a function without ``*args``, or a name that is no parameter
    of a function without ``**kwargs``, raises ``StaticArgumentError`` naming it, as JAX does;
    negative positions count from the last positional parameter."""
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums or ())
    names = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames or ())
    for n in nums:
        if not isinstance(n, int) or isinstance(n, bool):
            raise StaticArgumentError(f"jit({name}): static_argnums entries must be ints, got {n!r}")
    for n in names:
        if not isinstance(n, str):
            raise StaticArgumentError(f"jit({name}): static_argnames entries must be strings, got {n!r}")
    if signature is None:  # nothing to check against; positions stay as given
        return frozenset(nums), frozenset(names)
    params = signature.parameters.values()
    positional = [p.name for p in params if p.kind in _POSITIONAL]
    var_positional = any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params)
    var_keyword = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params)
    by_name = [p.name for p in params if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                     inspect.Parameter.KEYWORD_ONLY)]
    count = len(positional)
    checked_nums = set()
    for n in nums:
        if n < 0:
            if var_positional or n < -count:
                raise StaticArgumentError(
                    f"jit({name}): static_argnums entry {n} does not count back to a positional "
                    f"parameter: {name}() has {count} ({', '.join(positional) or 'none'})"
                    + (" and *args" if var_positional else ""))
            n += count
        elif n >= count and not var_positional:
            raise StaticArgumentError(
                f"jit({name}): static_argnums entry {n} is out of range: {name}() takes "
                f"{count} positional argument{'s' if count != 1 else ''} "
                f"({', '.join(positional) or 'none'})")
        checked_nums.add(n)
    for n in names:
        star = next((p for p in params if p.kind == inspect.Parameter.VAR_POSITIONAL and p.name == n), None)
        if star is not None:
            raise StaticArgumentError(
                f"jit({name}): static_argnames entry {n!r} is *{n}, whose items have positions, not "
                f"names: make them static with static_argnums (the first is {count})")
        if n not in by_name and not var_keyword:
            positional_only = n in positional
            raise StaticArgumentError(
                f"jit({name}): static_argnames entry {n!r} is not "
                + ("passed by name: it is positional-only; use static_argnums"
                   if positional_only else
                   f"a parameter of {name}() (its parameters: {', '.join(signature.parameters) or 'none'})"))
    # A positional-only parameter has no name a caller can use; with **kwargs, its name is a
    # different (keyword) argument.
    named = {n for n in positional if n in by_name}
    checked_names = set(names)
    checked_nums |= {positional.index(n) for n in names if n in named}
    checked_names |= {positional[n] for n in checked_nums if n < count and positional[n] in named}
    return frozenset(checked_nums), frozenset(checked_names)
