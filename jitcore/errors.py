"""jitcore's exception types. Every error raised on purpose derives from ``JitcoreError``."""

from __future__ import annotations

import pickle

import numpy as np

from jitcore.ir.errors import IRError, JitcoreError, ParseError, VerificationError

__all__ = [
    "ConcretizationError", "ConfigError", "IRError", "JitAxisError", "JitcoreError", "JitIndexError",
    "JitOverflowError", "JitPicklingError", "JitTypeError",
    "LoopCarryShapeError", "JitValueError", "JitZeroDivisionError",
    "LoopStepError", "ParseError", "StaticArgumentError", "StaticOnDemandWarning",
    "TracerConversionError", "UnsupportedError", "VerificationError",
]


class UnsupportedError(JitcoreError):
    """An operation jitcore cannot compile; the message names it and suggests what to do. The
    refusals below are kinds of it, so ``except jc.UnsupportedError`` catches each of them."""


class ConcretizationError(UnsupportedError):
    """A traced value was used where Python needs a concrete one (``if``, ``bool()``, ``int()``,
    a shape): the compiled function would need the data while compiling."""


class TracerConversionError(UnsupportedError):
    """A traced value was handed to code that needs a real NumPy array (``np.asarray``)."""


class JitTypeError(JitcoreError, TypeError):
    """Arguments of a type, dtype or shape that the operation does not accept."""


class LoopCarryShapeError(JitTypeError):
    """A variable a compiled loop carries has another shape after a step than before it (a
    Kronecker chain, an array grown by concatenation): a compiled loop keeps each carry's
    shape, so such a loop can only run unrolled, where its bounds are static and short."""


# Errors that mirror one NumPy raises derive from NumPy's class too, so ``except ValueError``
# written for NumPy keeps working under jit. They stay JitTypeErrors (jitcore's one class for
# arguments an operation refuses), so code catching that keeps working: the same compromise
# as NumPy's own AxisError, both a ValueError and an IndexError.
class JitValueError(JitTypeError, ValueError):
    """Arguments NumPy refuses with ValueError: shapes that do not broadcast or align, an empty
    array to argmax, a zero-size reduction without identity."""


class JitAxisError(JitTypeError, np.exceptions.AxisError):
    """An axis out of range or repeated (NumPy's AxisError: a ValueError and an IndexError)."""

    def __init__(self, message: str):
        np.exceptions.AxisError.__init__(self, message)  # the one-argument form: the message

    def __str__(self) -> str:
        return self.args[0]


class JitIndexError(JitTypeError, IndexError):
    """A value out of the range jitcore fixed while tracing, found when the function runs
    (``np.bincount(x, minlength=m)`` of a value at or past ``m``: NumPy grows the result)."""


class JitOverflowError(JitTypeError, OverflowError):
    """A Python int out of the range of the integer dtype it meets (NumPy 2's OverflowError:
    ``np.ones(3, np.int8) + 1000``)."""


class JitZeroDivisionError(JitTypeError, ZeroDivisionError):
    """A division NumPy refuses with ZeroDivisionError, found when the function runs
    (``np.average`` with weights that sum to zero)."""


class ConfigError(JitcoreError, ValueError):
    """A setting (``jitcore.config``, or the environment variable behind it) out of its range."""


class CompileTimeWarning(UserWarning):
    """A compile took long (``jitcore.compile_time``); the message names the function and the
    stage that took longest. Given once per jitted function."""


class StaticOnDemandWarning(UserWarning):
    """An argument made static on demand (``jitcore.static_on_demand``) has compiled for many
    values; the message names it. Given once per jitted function."""


class LoopStepError(JitcoreError, ValueError):
    """A compiled loop ran with a step of zero (Python's ``range`` refuses one too)."""


class StaticArgumentError(JitcoreError, ValueError):
    """``jit(f, static_argnums=..., static_argnames=...)`` names an argument ``f`` does not have."""


class JitPicklingError(JitcoreError, pickle.PicklingError):
    """A jitted function whose function cannot be pickled (a lambda, a closure, a local function)
    and no cloudpickle to pickle it by value."""


class DiskCacheWarning(UserWarning):
    """The disk cache's directory is not safe to use (``jitcore.disk_cache``): another user owns
    it or others can write to it. Compiled code is then kept in memory only."""
