"""Run-time callbacks into Python from compiled code: ``debug_print`` and ``debug_callback``,
as JAX's ``jax.debug.print`` and ``jax.debug.callback``.

Under ``jit`` a call becomes one ``array.callback`` op whose operands are the traced leaves of
the arguments; its number names, in ``dispatch``'s table, a Python function that rebuilds the
arguments (the other leaves are kept as they were at trace time) and calls the user's
function. The compiled code calls it on every run of that point of the program, in program
order, inside loops and branches too, on the calling thread. Outside ``jit`` both run at once.
"""

from __future__ import annotations

import numpy as np

from jitcore import number_or_array, pytree
from jitcore.callbacks import register_callback
from jitcore.errors import JitTypeError
from jitcore.ir.dialects import array
from jitcore.tracer import Tracer, current_trace, user_location

__all__ = ["debug_callback", "debug_print"]


def debug_print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:
    """Print ``fmt.format(*args, **kwargs)`` with the run-time values (0-d arrays as NumPy
    scalars) to ``sys.stdout``, on every run, in program order. ``ordered`` is JAX's
    keyword: prints here are always in program order."""
    if not isinstance(fmt, str):
        raise JitTypeError(f"debug_print needs a format string first, got {type(fmt).__name__}")

    def show(*values, **named):
        values = [_scalar(v) for v in values]
        named = {k: _scalar(v) for k, v in named.items()}
        print(fmt.format(*values, **named), flush=True)

    _check_format(fmt, args, kwargs)
    debug_callback(show, *args, **kwargs)


def debug_callback(callback, *args, ordered: bool = False, **kwargs) -> None:
    """Call ``callback(*args, **kwargs)`` with NumPy arrays for traced leaves (pytrees of them
    allowed), on every run of the compiled function, in program order; returns None."""
    if not callable(callback):
        raise JitTypeError(f"debug_callback needs a callable first, got {type(callback).__name__}")
    leaves, tree = pytree.flatten((args, kwargs))
    trace = current_trace()
    if trace is None:  # eager Python: run now
        args, kwargs = pytree.unflatten(tree, [_concrete(leaf) for leaf in leaves])
        callback(*args, **kwargs)
        return
    traced = [isinstance(leaf, Tracer) for leaf in leaves]
    kept = [None if t else _kept(leaf) for leaf, t in zip(leaves, traced)]
    scalars = [t and leaf.scalar for leaf, t in zip(leaves, traced)]

    def run(arrays: list[np.ndarray]) -> None:
        values = iter(arrays)
        rebuilt = []
        for t, k, scalar in zip(traced, kept, scalars):
            if t:
                v = next(values)
                rebuilt.append(v[()] if scalar else v)
            else:
                rebuilt.append(k)
        args, kwargs = pytree.unflatten(tree, rebuilt)
        callback(*args, **kwargs)

    number_or_array.carried([leaf for leaf, t in zip(leaves, traced) if t], "printing it")
    operands = [leaf.value for leaf, t in zip(leaves, traced) if t]
    trace.builder.create(array.CallbackOp, operands, [], {"callback": register_callback(run)})


def _scalar(v):
    """A 0-d array as the NumPy scalar it holds (``print`` shows ``1.5``, formats ``{:.2f}``)."""
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _concrete(leaf):
    return np.asarray(leaf) if isinstance(leaf, Tracer) else leaf


def _kept(leaf):
    """A leaf that is not traced, as the callback will get it: an array is copied, since the
    caller may change it before the compiled function runs."""
    return leaf.copy() if isinstance(leaf, np.ndarray) else leaf


def _check_format(fmt: str, args, kwargs) -> None:
    """Refuse, while tracing, a format that would fail on every run: zeros stand for traced
    values (a missing field, or a spec the values' shape and dtype cannot take)."""
    if current_trace() is None:
        return

    def stand_in(leaf):
        return _scalar(np.zeros(leaf.shape, leaf.dtype)) if isinstance(leaf, Tracer) else leaf

    leaves, tree = pytree.flatten((args, kwargs))
    values, named = pytree.unflatten(tree, [stand_in(leaf) for leaf in leaves])
    try:
        fmt.format(*values, **named)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError) as e:
        raise JitTypeError(f"debug_print format {fmt!r} fails on these arguments "
                           f"({type(e).__name__}: {e})\n  at {user_location()}") from None
