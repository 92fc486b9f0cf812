"""``np.errstate`` and ``np.seterr`` inside a jitted function.

Compiled code never warns or raises for floating-point events: a division by zero gives inf, an
invalid operation NaN, an overflow inf, as NumPy computes them under ``errstate(all="ignore")``.
So ``"ignore"`` (and ``"warn"``, whose warnings compiled code does not give) are accepted and
change nothing; ``"raise"``, ``"call"``, ``"print"`` and ``"log"`` would change what the code
does, and are refused while tracing, with what to write instead, rather than ignored.
"""

from __future__ import annotations

import numpy as np

from jitcore.errors import UnsupportedError
from jitcore.tracer import user_location

_KINDS = ("all", "divide", "over", "under", "invalid")
_KEPT = ("ignore", "warn")  # compiled code does neither: the values are NumPy's either way


def _check(what: str, settings: dict) -> None:
    for kind, mode in settings.items():
        if kind in _KINDS and mode is not None and mode not in _KEPT:
            raise UnsupportedError(
                f"numpy.{what}({kind}={mode!r}) inside a jitted function (at {user_location()}): "
                "compiled code does not raise, call or print on floating-point errors (it gives "
                "NumPy's inf and NaN, as under errstate(all='ignore')). Test the values instead "
                "(if np.any(d == 0): raise ..., or np.all(np.isfinite(y))), or use "
                "errstate(all='ignore').")
    if settings.get("call") is not None:
        raise UnsupportedError(f"numpy.{what}(call=...) inside a jitted function (at {user_location()}): "
                               "compiled code calls no floating-point error handler")


def _errstate(**settings):
    _check("errstate", settings)
    return np.errstate(**settings)  # accepted settings change nothing in compiled code


def _seterr(**settings):
    _check("seterr", settings)
    return np.geterr()  # what NumPy returns, so that np.seterr(**old) runs too


def _seterrcall(func):
    if func is not None:
        raise UnsupportedError(f"numpy.seterrcall inside a jitted function (at {user_location()}): "
                               "compiled code calls no floating-point error handler")
    return np.geterrcall()


FLOAT_ERROR_CALLS = {np.errstate: _errstate, np.seterr: _seterr, np.seterrcall: _seterrcall}
