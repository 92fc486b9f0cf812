"""Tracebacks of errors raised while tracing show the user's frames, not jitcore's.

An error in the user's function (a shape mismatch, an unsupported call, a traced ``int()``)
travels up through a dozen of jitcore's frames: the tracer, the NumPy layer, the compiler's
stages, the cache. None of them helps the user, and they push the user's own line out of view,
so ``filtered`` drops them, as JAX does. An error that looks like a bug of jitcore itself (an
AttributeError or KeyError raised inside jitcore, say) keeps every frame: that traceback is for
us. ``jc.config.traceback_filtering = False`` (or ``JITCORE_TRACEBACK_FILTERING=off``) keeps
every frame always.
"""

from __future__ import annotations

import os
import types

import numpy as np

from jitcore.ir.errors import JitcoreError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_PACKAGE_DIR)
# jitcore's code: the package, and the compiler layers where they sit beside it in a checkout.
_OWN_DIRS = tuple(os.path.join(d, "") for d in (
    _PACKAGE_DIR, *(os.path.join(_ROOT, layer) for layer in ("ir", "passes", "codegen"))))
# What jitcore raises on purpose for a mistake in the user's code (NumPy's classes where it
# mirrors NumPy); anything else raised inside jitcore is taken for a bug of jitcore's.
_USER_ERRORS = (JitcoreError, IndexError, ValueError, TypeError, OverflowError, ZeroDivisionError,
                np.linalg.LinAlgError)
NOTE = ("(jitcore's own frames are left out of this traceback; set jc.config.traceback_filtering "
        "= False or JITCORE_TRACEBACK_FILTERING=off to see them)")

enabled = True  # jc.config.traceback_filtering


def is_own(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_OWN_DIRS)


def _frames(tb) -> list:
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out


def filtered(error: BaseException):
    """``error``'s traceback without jitcore's frames, where they only hide the user's line."""
    frames = _frames(error.__traceback__)
    if not enabled or not frames:
        return error.__traceback__
    raised_by_user = not is_own(frames[-1].tb_frame.f_code.co_filename)
    if not (raised_by_user or isinstance(error, _USER_ERRORS)):
        return error.__traceback__  # a bug of jitcore's: every frame helps
    kept = [t for t in frames if not is_own(t.tb_frame.f_code.co_filename)]
    if len(kept) == len(frames):
        return error.__traceback__
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    notes = getattr(error, "__notes__", [])
    if not raised_by_user and NOTE not in notes:  # the user's own error keeps its own message
        error.__notes__ = [*notes, NOTE]
    return out
