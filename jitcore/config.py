"""jitcore's run-time settings: the one place that reads environment variables (DESIGN §7).

``jitcore.config`` is this module, and its settings are attributes::

    jc.config.num_threads = 4               # or jc.config.update("num_threads", 4)

- ``num_threads``: how many threads a large launch runs on, the calling one included.
  ``JITCORE_NUM_THREADS`` sets it at import (unset or empty: the CPUs this process may run
  on). Anything but an integer from 1 to ``MAX_THREADS`` is an error, not a fallback.
- ``parallel_threshold``: a launch with fewer iteration points runs as one call on the calling
  thread, so small calls pay nothing for threads.
- ``chunk_size``: iteration points per chunk of a launch above the threshold.

- ``traceback_filtering``: whether a traceback of an error raised while tracing leaves out
  jitcore's own frames (``jitcore/tracebacks.py``); ``JITCORE_TRACEBACK_FILTERING=off`` (or
  ``0``, ``false``) sets it to False at import.

Read once, at import, and handed to the code generator: ``JITCORE_BLAS`` (``none`` or a
library's path: which BLAS float contractions call, ``codegen/cpu/blas.py``) and
``JITCORE_VECTOR_BITS`` (256 or 512 on an AVX-512 CPU, ``codegen/cpu/target.py``).

The values live in the CPU runtime's ``SETTINGS`` (``codegen/cpu/runtime.py``), which compiled
code reads when it runs: changing one never recompiles, and a call passes nothing for them.
Results do not depend on ``num_threads``; a kernel with an exact-math fallback (sin, cos, tan of huge
arguments) may depend, in its last bits, on the chunks, which the other two settings and the
sizes alone decide.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from jitcore import tracebacks
from jitcore.codegen.cpu import blas, target
from jitcore.codegen.cpu.runtime import RUNTIME_SETTINGS, SETTINGS
from jitcore.errors import ConfigError

MAX_THREADS = 1024
# Measured on a shared 2-core AMD EPYC: starting and joining a thread per launch costs 15-40 us,
# what one thread spends on about 128K points of tanh(2x+1) in float32; splitting pays from
# about twice that. Chunks of 32K points make the call and the atomic per chunk negligible and
# leave a few dozen chunks per thread to even out threads slowed by other processes.
DEFAULT_PARALLEL_THRESHOLD = 1 << 18
DEFAULT_CHUNK_SIZE = 1 << 15
_LOWEST = {"num_threads": 1, "parallel_threshold": 0, "chunk_size": 1}
_HIGHEST = {"num_threads": MAX_THREADS}


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def threads_from_environment(environ: Mapping[str, str] = os.environ) -> int:
    """``JITCORE_NUM_THREADS`` as a thread count; unset or empty: ``available_cpus()``."""
    text = environ.get("JITCORE_NUM_THREADS", "").strip()
    if not text:
        return min(available_cpus(), MAX_THREADS)
    try:
        count = int(text)
    except ValueError:
        count = 0
    if not 1 <= count <= MAX_THREADS:
        raise ConfigError(
            f"JITCORE_NUM_THREADS={text!r} is not a thread count: set it to an integer from 1 "
            f"to {MAX_THREADS}, or leave it unset to use every CPU this process may run on"
        )
    return count


def update(name: str, value: int) -> None:
    """Set the setting ``name``; the next call of any compiled function uses it."""
    if name not in RUNTIME_SETTINGS:
        raise ConfigError(f"jitcore.config has no setting {name!r}; its settings are "
                          f"{', '.join(RUNTIME_SETTINGS)}")
    low, high = _LOWEST[name], _HIGHEST.get(name)
    if (isinstance(value, bool) or not isinstance(value, int) or value < low
            or (high is not None and value > high)):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ConfigError(f"jitcore.config.{name} must be an integer {bound}, not {value!r}")
    SETTINGS[RUNTIME_SETTINGS.index(name)] = value


@contextmanager
def using(**values: int) -> Iterator[None]:
    """Set some settings for the ``with`` block, then put them back. The settings are the
    process's, not the thread's: other threads calling compiled code meanwhile see them too."""
    saved = {name: SETTINGS[RUNTIME_SETTINGS.index(name)] for name in values if name in RUNTIME_SETTINGS}
    try:
        for name, value in values.items():
            update(name, value)
        yield
    finally:
        for name, value in saved.items():
            update(name, value)


def _setting(name: str) -> property:
    index = RUNTIME_SETTINGS.index(name)
    return property(lambda self: SETTINGS[index], lambda self, value: update(name, value),
                    doc=f"The {name} setting (see the module's docstring).")


class _ConfigModule(types.ModuleType):
    """This module, with its settings as checked attributes."""

    num_threads = _setting("num_threads")
    parallel_threshold = _setting("parallel_threshold")
    chunk_size = _setting("chunk_size")

    @property
    def traceback_filtering(self) -> bool:
        """Leave jitcore's own frames out of tracing errors' tracebacks (``jitcore/tracebacks.py``)."""
        return tracebacks.enabled

    @traceback_filtering.setter
    def traceback_filtering(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ConfigError(f"traceback_filtering must be True or False, not {value!r}")
        tracebacks.enabled = value


blas.choose(os.environ.get("JITCORE_BLAS", ""))
target.override_vector_bits(os.environ.get(target.VECTOR_BITS_VARIABLE))
update("num_threads", threads_from_environment())
tracebacks.enabled = os.environ.get("JITCORE_TRACEBACK_FILTERING", "on").strip().lower() not in (
    "off", "0", "false", "no")
update("parallel_threshold", DEFAULT_PARALLEL_THRESHOLD)
update("chunk_size", DEFAULT_CHUNK_SIZE)
sys.modules[__name__].__class__ = _ConfigModule
