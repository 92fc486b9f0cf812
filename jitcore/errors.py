"""jitcore's exception types. Every error raised on purpose derives from ``JitcoreError``."""

from __future__ import annotations

import pickle

from jitcore.ir.errors import IRError, JitcoreError, ParseError, VerificationError

__all__ = [
    "ConcretizationError", "ConfigError", "IRError", "JitcoreError", "JitPicklingError", "JitTypeError",
    "LoopStepError", "ParseError", "StaticArgumentError", "TracerConversionError", "UnsupportedError",
    "VerificationError",
]


class ConcretizationError(JitcoreError):
    """A traced value was used where Python needs a concrete one (``if``, ``bool()``, ``int()``)."""


class TracerConversionError(JitcoreError):
    """A traced value was handed to code that needs a real NumPy array (``np.asarray``)."""


class UnsupportedError(JitcoreError):
    """An operation jitcore cannot compile; the message names it and suggests what to do."""


class JitTypeError(JitcoreError, TypeError):
    """Arguments of a type, dtype or shape that the operation does not accept."""


class ConfigError(JitcoreError, ValueError):
    """A setting (``jitcore.config``, or the environment variable behind it) out of its range."""


class CompileTimeWarning(UserWarning):
    """A compile took long (``jitcore.compile_time``); the message names the function and the
    stage that took longest. Given once per jitted function."""


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
