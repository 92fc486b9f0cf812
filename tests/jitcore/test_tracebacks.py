"""Errors raised while tracing show the user's frames, not jitcore's (``jitcore/tracebacks.py``)."""

import os
import traceback

import numpy as np
import pytest

import jitcore as jc
from jitcore import tracebacks
from jitcore.errors import ConfigError, JitTypeError


def _helper(z, y):
    return np.concatenate([z, y], axis=3)  # axis out of range: the user's mistake


def _user_function(x, y):
    return _helper(x + 1, y)


def _files(error: BaseException) -> list[str]:
    return [frame.filename for frame in traceback.extract_tb(error.__traceback__)]


def test_a_tracing_error_shows_only_the_users_frames():
    with pytest.raises(JitTypeError) as info:
        jc.jit(_user_function)(np.ones(3), np.ones(4))
    files = _files(info.value)
    assert files and all(not tracebacks.is_own(f) for f in files)
    lines = [frame.line for frame in traceback.extract_tb(info.value.__traceback__)]
    assert lines[1:] == ["return _helper(x + 1, y)",
                         "return np.concatenate([z, y], axis=3)  # axis out of range: the user's mistake"]
    assert tracebacks.NOTE in info.value.__notes__


def test_filtering_can_be_turned_off():
    jc.config.traceback_filtering = False
    try:
        with pytest.raises(JitTypeError) as info:
            jc.jit(_user_function)(np.ones(3), np.ones(4))
    finally:
        jc.config.traceback_filtering = True
    assert any(tracebacks.is_own(f) for f in _files(info.value))
    assert tracebacks.NOTE not in getattr(info.value, "__notes__", [])
    with pytest.raises(ConfigError):
        jc.config.traceback_filtering = "yes"


def test_a_bug_of_jitcores_keeps_every_frame(monkeypatch):
    from jitcore import primitives

    # A function whose code lies in jitcore's package, as a bug of ours would.
    scope = {}
    exec(compile("def broken(*args, **kwargs):\n    raise KeyError('a table lacks an entry')\n",
                 os.path.join(os.path.dirname(tracebacks.__file__), "internal.py"), "exec"), scope)
    monkeypatch.setattr(primitives, "ufunc", scope["broken"])
    with pytest.raises(KeyError) as info:
        jc.jit(lambda x: np.add(x, 1))(np.ones(3))
    assert any(tracebacks.is_own(f) for f in _files(info.value))
