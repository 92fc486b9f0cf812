"""The compile log (``jitcore/compile_log.py``): with ``log_compiles`` on, each trace and compile
logs one WARNING to the ``"jitcore"`` logger, naming the function, the signature, each stage's
time and why the cache missed; cached calls log nothing, and with the setting off nothing is
logged at all."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import jitcore as jc
from jitcore import compile_log, config
from jitcore.compile_time import CompileClock
from jitcore.errors import ConfigError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAGES = ("tracing", "disk cache", "optimizing", "code generation")


@pytest.fixture
def log(caplog):
    """The compile log's messages, with ``log_compiles`` on for the test."""
    saved = jc.config.log_compiles
    jc.config.log_compiles = True
    caplog.set_level(logging.WARNING, logger="jitcore")
    try:
        yield lambda: [r.getMessage() for r in caplog.records if r.name == "jitcore"]
    finally:
        jc.config.log_compiles = saved


def scale(x, n):
    return x * n + 1


def test_every_compile_is_logged_with_its_stages_and_reason(log):
    f = jc.jit(scale, static_argnums=1)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(f(x, 2), x * 2 + 1)
    f(x, 2)  # cached: nothing logged
    (first,) = log()
    assert first.startswith("jitcore: compiled scale(x: float32[3], n=2) in ")
    for stage in STAGES:
        assert re.search(rf"{stage} \d+\.\d ms", first), (stage, first)
    assert first.endswith("Cache miss: first compile")
    # The stages add up to the total the line gives.
    total = float(re.search(r" in (\d+\.\d) ms", first).group(1))
    parts = [float(m) for m in re.findall(r"(?:tracing|cache|optimizing|generation) (\d+\.\d) ms", first)]
    assert abs(sum(parts) - total) <= 0.3


@pytest.mark.parametrize("call, reason", [
    (lambda f: f(np.zeros(4, np.float32), 2), "x: shape (3,) -> (4,)"),
    (lambda f: f(np.zeros(3, np.float64), 2), "x: dtype float32 -> float64"),
    (lambda f: f(np.zeros(3, np.float32), 5), "static n: 2 -> 5"),
    (lambda f: f(np.zeros(6, np.float32)[::2], 2), "x: layout C-contiguous -> strided"),
    (lambda f: f(np.zeros((3, 2), np.float32).T, 2),
     "x: shape (3,) -> (2, 3), layout C-contiguous -> Fortran"),
])
def test_a_miss_names_what_changed(log, call, reason):
    f = jc.jit(scale, static_argnums=1)
    f(np.zeros(3, np.float32), 2)
    call(f)
    messages = log()
    assert len(messages) == 2
    assert messages[1].endswith(f"Cache miss: {reason}"), messages[1]


def test_the_reason_is_against_the_closest_signature(log):
    f = jc.jit(lambda x, y: x.sum() + y.sum())
    f(np.zeros(3, np.float32), np.zeros(3, np.float32))
    f(np.zeros(4, np.float64), np.zeros(4, np.float64))
    f(np.zeros(4, np.float64), np.zeros(5, np.float64))  # one property off the second
    assert log()[-1].endswith("Cache miss: y: shape (4,) -> (5,)")


def test_python_scalars_and_pytrees_are_named(log):
    f = jc.jit(lambda d, s: d["a"] * s)
    f({"a": np.ones(2)}, 3)
    f({"a": np.ones(2)}, 3.5)
    f({"a": np.ones(2), "b": np.ones(1)}, 3.5)
    first, second, third = log()
    assert "d['a']: float64[2], s: int64[] weak" in first
    assert second.endswith("Cache miss: s: dtype int64 weak -> float64 weak")
    assert "Cache miss: the arguments' structure: " in third


def test_a_dropped_signature_says_so(log):
    f = jc.jit(scale, static_argnums=1)
    f(np.zeros(3), 1)
    f.clear_cache()
    f(np.zeros(3), 1)
    assert "compiled before and dropped" in log()[-1]


def test_lower_logs_its_trace(log):
    f = jc.jit(scale, static_argnums=1)
    f.lower(np.zeros(2), 3)
    (message,) = log()
    assert re.fullmatch(r"jitcore: traced scale\(x: float64\[2\], n=3\) in \d+\.\d ms for lower\(\)", message)


def test_disk_cache_loads_are_marked(log):
    def twice(x):
        return x * 2

    jc.jit(twice)(np.ones(2))
    jc.jit(twice)(np.ones(2))  # a new jitted function: its code comes from the disk cache
    first, second = log()
    assert "(code from the disk cache)" not in first
    assert "(code from the disk cache)" in second


def test_off_logs_nothing(caplog):
    assert not jc.config.log_compiles
    caplog.set_level(logging.DEBUG, logger="jitcore")
    f = jc.jit(scale, static_argnums=1)
    f(np.zeros(2), 1)
    f(np.zeros(3), 1)
    assert not [r for r in caplog.records if r.name == "jitcore"]


def test_the_setting_is_checked():
    with pytest.raises(ConfigError, match="log_compiles must be True or False"):
        jc.config.log_compiles = 1
    assert config.log_compiles_from_environment({"JITCORE_LOG_COMPILES": "1"}) is True
    assert config.log_compiles_from_environment({"JITCORE_LOG_COMPILES": "off"}) is False
    assert config.log_compiles_from_environment({}) is False
    with pytest.raises(ConfigError, match="JITCORE_LOG_COMPILES='maybe'"):
        config.log_compiles_from_environment({"JITCORE_LOG_COMPILES": "maybe"})


def test_the_environment_variable_logs_to_stderr_without_setup():
    program = ("import numpy as np, jitcore as jc\n"
               "f = jc.jit(lambda x: x + 1)\n"
               "f(np.ones(2)); f(np.ones(2)); f(np.ones(3))\n")
    env = {**os.environ, "JITCORE_LOG_COMPILES": "1", "PYTHONPATH": ROOT}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("jitcore: compiled")]
    assert len(lines) == 2
    assert lines[1].endswith("Cache miss: x: shape (2,) -> (3,)")


def test_stage_times_fold_passes_into_optimizing():
    clock = CompileClock()
    clock.stages.update({"tracing": 0.1, "pass 'fuse'": 0.2, "verifier": 0.05, "code generation": 0.3})
    times = compile_log.stage_times(clock)
    assert list(times) == list(STAGES)
    assert times["optimizing"] == pytest.approx(0.25)
    assert times["disk cache"] == 0.0


def test_a_long_while_loop_on_python_values_is_told_while_it_traces(monkeypatch):
    from jitcore.autograph import statements
    from jitcore.errors import CompileTimeWarning

    monkeypatch.setattr(statements, "LONG_PYTHON_WHILE", 5)

    def drain(q):
        h, t = 0, 1
        while h < t:  # h and t stay Python ints: Python runs the loop while tracing
            q[h] += 1
            h += 1
            if t < q.shape[0]:
                t += 1
        return h

    with pytest.warns(CompileTimeWarning, match=r"while loop at .* has run 5 steps while tracing"):
        assert jc.jit(drain)(np.zeros(12)) == 12
