"""Output a traced function makes besides ``print``: ``sys.stdout.write(s)`` (any text stream's
``write``), ``warnings.warn(...)`` and ``logging``'s calls, made at each call of the compiled
function, as ``print`` is (``runtime._print``): in program order, in a traced branch only where
it is taken, with the values of that call in its text.

Before, they ran as any Python call does while tracing: once, on the compiling call only, under
a traced ``if`` whatever the condition, and a traced value in an f-string showed as jitcore's
placeholder (``'\\ue0000\\ue001Traced<i64[]>\\ue002'``).
"""

from __future__ import annotations

import io
import logging
import sys
import warnings

from jitcore import formatting, pytree
from jitcore.autograph.analysis import GENERATED
from jitcore.debugging import debug_callback
from jitcore.tracer import current_trace, is_user_file

_LOG_CALLS = ("debug", "info", "warning", "warn", "error", "critical", "exception", "log")


def at_run_time(f):
    """``f``, where it is one of those output calls and a function is being traced: a callable
    that makes it at each run of the compiled code; else None."""
    if current_trace() is None:
        return None
    if f is warnings.warn:
        return _warn
    name, owner = getattr(f, "__name__", None), getattr(f, "__self__", None)
    if name == "write" and (isinstance(owner, io.IOBase) or owner is sys.stdout or owner is sys.stderr):
        return _stream_write(owner)
    if name in _LOG_CALLS and (owner is logging or getattr(f, "__module__", None) == "logging"
                               or isinstance(owner, (logging.Logger, logging.LoggerAdapter))):
        return _each_call(f)
    return None


def _filled(args, kwargs):
    """The texts and traced values of ``(args, kwargs)`` for a callback, and a function that
    rebuilds them from the callback's values (placeholders filled in, Python numbers as
    Python's: ``float(v)`` shows 0.5, not np.float64(0.5))."""
    trace = current_trace()
    leaves, tree = pytree.flatten((args, kwargs))
    formatted, fill = formatting.filler([v for v in leaves if formatting.holds(v)], trace)
    python = [formatting.python_type(leaf) for leaf in leaves]

    def rebuild(values, shown):
        leaves, tree = pytree.flatten(shown)
        leaves = [fill(v, values) if formatting.holds(v) else v if t is None else t(v)
                  for v, t in zip(leaves, python)]
        return pytree.unflatten(tree, leaves)

    return formatted, rebuild


def _each_call(f):
    """``f(*args, **kwargs)`` (a logging call) at each run, with that run's values."""
    def deferred(*args, **kwargs):
        formatted, rebuild = _filled(args, kwargs)

        def run(values, shown):
            a, k = rebuild(values, shown)
            f(*a, **k)

        debug_callback(run, formatted, (args, kwargs))

    return deferred


def _stream_write(stream):
    """``stream.write(text)`` at each run; ``sys.stdout``/``sys.stderr`` as they are then (a
    redirect around the call, as ``print`` writes to). Returns the length of a text with no
    traced values in it, as ``write`` does; None for one with them (known only at run time)."""
    which = "stdout" if stream is sys.stdout else "stderr" if stream is sys.stderr else None

    def write(text):
        formatted, rebuild = _filled((text,), {})

        def run(values, shown):
            (shown,), _ = rebuild(values, shown)
            (getattr(sys, which) if which else stream).write(shown)

        debug_callback(run, formatted, ((text,), {}))
        return None if formatting.holds(text) else len(text)

    return write


def _warn(message, category=None, stacklevel=1, source=None, **kwargs):
    """``warnings.warn`` at each run: the warning's place (file, line, module, registry: what
    its filters and "once per place" go by) is the user's line ``stacklevel`` user frames up,
    found while tracing, as Python's ``warn`` finds it at the call."""
    trace = current_trace()
    if trace is None:
        warnings.warn(message, category, stacklevel + 1, source, **kwargs)
        return
    frame = _user_frames(sys._getframe(1), stacklevel)
    if frame is None:  # (past the outermost frame: Python's warn says "sys", line 1)
        filename, lineno, globs = "sys", 1, sys.__dict__
    else:
        filename, lineno, globs = frame.f_code.co_filename, frame.f_lineno, frame.f_globals
    if isinstance(message, Warning):
        category = message.__class__
    elif category is None:
        category = UserWarning
    module = globs.get("__name__", "<string>")
    formatted, rebuild = _filled((message,), {})

    def run(values, shown):
        (text,), _ = rebuild(values, shown)
        registry = globs.setdefault("__warningregistry__", {})
        warnings.warn_explicit(text, category, filename, lineno, module, registry,
                               module_globals=globs, source=source)

    debug_callback(run, formatted, ((message,), {}))


def _user_frames(frame, level: int):
    """The frame of the ``level``-th function of the user's up the stack from ``frame``: a
    converted function's branches and loop bodies (``__agf_then_1``) are frames of their own
    that belong to it, and jitcore's frames between are not counted; None past the last."""
    innermost = None
    while frame is not None:
        code = frame.f_code
        if is_user_file(code.co_filename):
            innermost = innermost or frame  # (the line: where the call is, in a branch or body)
            if not code.co_name.startswith(GENERATED):
                if level == 1:
                    return innermost
                level, innermost = level - 1, None
        frame = frame.f_back
    return None
