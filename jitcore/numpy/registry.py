"""Which NumPy function or ufunc each traced implementation stands for, and NumPy's protocol
entry that looks it up (``__array_function__``; ``__array_ufunc__`` is in ``ufuncs.py``).

Each family module registers its entries on import (``@implements(np.f)``), and
``jitcore/numpy/__init__.py`` imports every family, so the tables are full once
``jitcore.numpy`` is.
"""

from __future__ import annotations

from jitcore.compile_time import library_call
from jitcore.errors import UnsupportedError
from jitcore.tracer import Tracer, current_trace, fresh, user_location

HANDLED_FUNCTIONS: dict = {}  # numpy function -> implementation taking the same arguments
UFUNCS: dict = {}  # numpy ufunc -> implementation of its __call__
# numpy functions whose implementation writes out= itself, casting as NumPy does
# (``primitives.write_out``); others' out= is taken by autograph (``out_call``) where it can be
WRITES_OUT: set = set()
# implementations whose result is a Python bool (or int) in NumPy (``np.allclose``, ``np.array_equal``,
# a vector's ``matrix_rank``):
# kept weak, so a jitted function returns ``True``, not ``np.True_``
PYTHON_BOOL_RESULTS: set = set()


def traced(*args) -> bool:
    """Is any of ``args`` a traced array? (Otherwise a function simply calls NumPy.)"""
    return any(isinstance(a, Tracer) for a in args)


def implements(*np_functions):
    """Register the decorated function as the traced implementation of ``np_functions``."""
    def register(fn):
        for f in np_functions:
            HANDLED_FUNCTIONS[f] = fn
        return fn

    return register


def apply_function(func, args, kwargs):
    """``Tracer.__array_function__``: a NumPy function called with traced values."""
    impl = HANDLED_FUNCTIONS.get(func)
    if impl is None:
        raise UnsupportedError(
            f"{func.__module__}.{func.__name__} has no jitcore lowering yet (called at {user_location()}); "
            "compute it outside the jitted function, or express it with supported operations"
        )
    from jitcore.chosen_dtype import lists_as_arrays  # (it needs primitives, which need this)

    args, kwargs = lists_as_arrays(args, kwargs)  # (np.sum(out) of items whose types the data chose)
    for a in (*args, *kwargs.values()):  # a value that takes NumPy's functions itself, wherever
        own = getattr(type(a), "__jitcore_function__", None)  # it stands (weights=np.repeat(...))
        if own is not None:
            return own(a, func, args, kwargs)
    with library_call(_numpy_name(func), _block_ops):
        result = impl(*args, **kwargs)
    return result if impl in PYTHON_BOOL_RESULTS else strong_results(result)


def _numpy_name(func) -> str:
    """``np.fft.rfft`` for ``numpy.fft.rfft``, ``np.sort`` for ``numpy.sort``."""
    module = getattr(func, "__module__", None) or "numpy"
    sub = module.removeprefix("numpy").lstrip(".")
    return f"np.{sub + '.' if sub else ''}{getattr(func, '__name__', '?')}"


def _block_ops() -> int:
    """The ops of the block being traced (``compile_time.library_call``'s measure)."""
    trace = current_trace()
    return len(trace.builder.block.ops) if trace is not None else 0


def python_bool(fn):
    """Register ``fn``'s traced 0-d bool result as NumPy's Python ``bool`` (a weak scalar)."""
    def weak(*args, **kwargs):
        result = fn(*args, **kwargs)
        return fresh(result.reshape(()), scalar=True, weak=True) if isinstance(result, Tracer) else result

    weak.__doc__, weak.__name__ = fn.__doc__, fn.__name__
    PYTHON_BOOL_RESULTS.add(weak)
    return weak


def strong_results(result):
    """NumPy's functions return NumPy values: ``np.clip(n, 0, 9)`` or ``np.sqrt(n)`` of a Python
    number is a strong float64 (NEP 50), which ``float32 * result`` promotes to float64, unlike a
    weak Python scalar (``n * 2.0``, the operators' result, which stays weak)."""
    if isinstance(result, (tuple, list)):
        items = [strong_results(r) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
    if isinstance(result, Tracer) and result.weak:
        out = fresh(result, result.scalar)
        out.int_range = None
        return out
    return result
