"""jitcore's run-time settings: the one place that reads environment variables (DESIGN §7).

``jitcore.config`` is this module, and its settings are attributes::

    jc.config.num_threads = 4               # or jc.config.update("num_threads", 4)
    with jc.config.using(auto_static=False):  # any setting, put back after the block
        ...

- ``num_threads``: how many threads a large launch runs on, the calling one included.
  ``JITCORE_NUM_THREADS`` sets it at import (unset or empty: the CPUs this process may run
  on). Anything but an integer from 1 to ``MAX_THREADS`` is an error, not a fallback.
- ``parallel_threshold``: a launch with fewer iteration points runs as one call on the calling
  thread, so small calls pay nothing for threads. The points are weighed by what the kernel's
  body costs against ``tanh(2x+1)`` in float32 (``codegen/cpu/cost.py``): a body of arithmetic
  only counts a quarter of a point per 32 bits of its elements (a float32 one splits from 1M
  points, a float64 one from 512K); a copy (``np.roll``, a transpose) a 64th (from 16M); a body
  that calls the math library a point per call in float32 and three in float64 (``exp`` and
  ``log`` of float64 split from 44K points).
- ``chunk_size``: iteration points per chunk of a launch above the threshold (which runs as
  at least ``runtime.MIN_CHUNKS`` chunks where it has that many positions to cut).

- ``traceback_filtering``: whether a traceback of an error raised while tracing leaves out
  jitcore's own frames (``jitcore/tracebacks.py``); ``JITCORE_TRACEBACK_FILTERING=off`` (or
  ``0``, ``false``) sets it to False at import.

The disk cache (``jitcore/disk_cache.py``), read by it at each compile:

- ``disk_cache``: whether compiled functions are kept on disk and reused by later processes;
  ``JITCORE_CACHE=0`` (or ``off``, ``false``, ``no``) turns it off at import.
- ``cache_dir``: where; ``JITCORE_CACHE_DIR`` at import, else the user's cache directory
  (``$XDG_CACHE_HOME/jitcore``, ``~/.cache/jitcore``; ``~/Library/Caches/jitcore`` on macOS,
  ``%LOCALAPPDATA%\\jitcore\\Cache`` on Windows).
- ``cache_max_bytes``: the size above which the least recently used entries are removed;
  ``JITCORE_CACHE_MAX_BYTES`` (bytes, or with a ``K``, ``M`` or ``G`` suffix) at import.

Memory for results (``jitcore/buffer_pool.py``):

- ``buffer_pool_bytes``: the most memory kept for reuse by large results (1 MiB and up) once
  the program drops them, so the next call writes into warm pages instead of fresh ones from
  the OS; ``JITCORE_BUFFER_POOL_BYTES`` (bytes, or with a ``K``, ``M`` or ``G`` suffix) at
  import, default ``buffer_pool.DEFAULT_LIMIT`` (256 MiB); 0 turns the pool off. Lowering it
  lets go of free memory above it at once; ``jitcore.buffer_pool.POOL.clear()`` lets go of all.

Compiles in memory, read by ``jitcore/api.py`` at each compile:

- ``log_compiles``: log every trace and compile, with its stages' times and why the cache
  missed, to the ``logging`` logger ``"jitcore"`` (``jitcore/compile_log.py``);
  ``JITCORE_LOG_COMPILES=1`` (or ``on``, ``true``, ``yes``) turns it on at import.
- ``max_signatures``: how many signatures each jitted function keeps compiled (least recently
  used dropped first, its code freed); ``JITCORE_MAX_SIGNATURES`` at import, default
  ``DEFAULT_MAX_SIGNATURES``; ``jit(..., max_signatures=)`` overrides it per function.

- ``auto_static``: whether an argument the trace needs as a value (a size, a slice bound, a
  count, a string) becomes static on demand (``jitcore/static_on_demand.py``); False: JAX's
  error asking for ``static_argnames``. Read at each compile.

- ``backend``: the target ``jit`` compiles for when it is given none: ``"cpu"`` (the default)
  or ``"cuda"`` (``codegen/nvptx/``, run through the CUDA driver); ``JITCORE_BACKEND`` at import.
  Read when ``jit`` is called: a function jitted earlier keeps its backend.

Read once, at import, and handed to the code generator: ``JITCORE_BLAS`` (``none`` or a
library's path: which BLAS float contractions call, ``codegen/cpu/blas.py``) and
``JITCORE_VECTOR_BITS`` (256 or 512 on an AVX-512 CPU, ``codegen/cpu/target.py``). Read once
by the CPU loader: ``JITCORE_PERF_MAP=1`` lists each loaded function in ``/tmp/perf-<pid>.map``,
so that Linux ``perf`` names jitcore's kernels (``codegen/cpu/object_loader.py``).

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

from jitcore import buffer_pool, tracebacks
from jitcore.codegen.backend import TARGETS
from jitcore.codegen.cpu import blas, object_loader, target
from jitcore.codegen.cpu.runtime import RUNTIME_SETTINGS, SETTINGS, available_cpus
from jitcore.errors import ConfigError

MAX_THREADS = 1024
# Measured on a shared 2-core AMD EPYC: starting and joining a thread per launch cost 15-40 us,
# what one thread spends on about 128K points of tanh(2x+1) in float32; splitting paid from
# about twice that. The persistent pool (codegen/cpu/thread_pool.py) cut a launch to ~5 us, but
# two threads still measured slower than one below this size on that loaded host, so it stays
# (2^18 such points: about 65 us on one thread), and what moved instead is what a point weighs
# (cost.py): a float64 exp and log is seven of these points, no longer one.
# Chunks of 32K points make the call and the atomic per chunk negligible and
# leave a few dozen chunks per thread to even out threads slowed by other processes.
DEFAULT_PARALLEL_THRESHOLD = 1 << 18
DEFAULT_CHUNK_SIZE = 1 << 15
DEFAULT_CACHE_MAX_BYTES = 256 << 20  # about 20,000 entries of a small function (~12 KiB each)
DEFAULT_MAX_SIGNATURES = 64
_OFF = ("0", "off", "false", "no")
_ON = ("", "1", "on", "true", "yes")
_LOWEST = {"num_threads": 1, "parallel_threshold": 0, "chunk_size": 1}
_HIGHEST = {"num_threads": MAX_THREADS}


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


def cache_enabled_from_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``JITCORE_CACHE``: unset, empty, 1, on, true or yes: the disk cache is on; 0, off, false or
    no: off; anything else is an error."""
    text = environ.get("JITCORE_CACHE", "").strip().lower()
    if text not in _OFF + _ON:
        raise ConfigError(f"JITCORE_CACHE={text!r} is neither on (1) nor off (0)")
    return text not in _OFF


def cache_dir_from_environment(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> str:
    """``JITCORE_CACHE_DIR``, else the user's cache directory as the platform names it."""
    explicit = environ.get("JITCORE_CACHE_DIR", "").strip()
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    home = os.path.expanduser("~")
    if platform == "win32":
        base = environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, "jitcore", "Cache")
    if platform == "darwin":
        return os.path.join(home, "Library", "Caches", "jitcore")
    xdg = environ.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(home, ".cache")  # XDG: relative is invalid
    return os.path.join(base, "jitcore")


def cache_max_bytes_from_environment(environ: Mapping[str, str] = os.environ) -> int:
    """``JITCORE_CACHE_MAX_BYTES``: a byte count, with an optional K, M or G (binary) suffix."""
    return _bytes_from_environment("JITCORE_CACHE_MAX_BYTES", DEFAULT_CACHE_MAX_BYTES, environ)


def buffer_pool_bytes_from_environment(environ: Mapping[str, str] = os.environ) -> int:
    """``JITCORE_BUFFER_POOL_BYTES``: a byte count, with an optional K, M or G (binary) suffix."""
    return _bytes_from_environment("JITCORE_BUFFER_POOL_BYTES", buffer_pool.DEFAULT_LIMIT, environ)


def _bytes_from_environment(variable: str, default: int, environ: Mapping[str, str]) -> int:
    text = environ.get(variable, "").strip()
    if not text:
        return default
    scale = 1 << (10 * "KMG".index(text[-1].upper()) + 10) if text[-1].upper() in "KMG" else 1
    number = text[:-1] if scale > 1 else text
    if not number.isdigit():
        raise ConfigError(f"{variable}={text!r} is not a size: write bytes, or a number "
                          "with K, M or G (512M, say)")
    return int(number) * scale


def _set_buffer_pool_bytes(value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"jitcore.config.buffer_pool_bytes must be an integer of at least 0, not {value!r}")
    buffer_pool.POOL.set_limit(value)


def log_compiles_from_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``JITCORE_LOG_COMPILES``: 1, on, true or yes: log compiles; unset, empty, 0, off, false or
    no: do not; anything else is an error."""
    text = environ.get("JITCORE_LOG_COMPILES", "").strip().lower()
    if text not in _OFF + _ON:
        raise ConfigError(f"JITCORE_LOG_COMPILES={text!r} is neither on (1) nor off (0)")
    return text not in _OFF + ("",)


def perf_map_from_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``JITCORE_PERF_MAP``: on (1, on, true, yes) or off (unset, empty, 0, off, false, no)."""
    text = environ.get("JITCORE_PERF_MAP", "").strip().lower()
    if text not in _OFF + _ON:
        raise ConfigError(f"JITCORE_PERF_MAP={text!r} is neither on (1) nor off (0)")
    return text not in _OFF + ("",)


def check_emission_from_environment(environ: Mapping[str, str] = os.environ) -> bool:
    """``JITCORE_CHECK_EMISSION``: on (1, on, true, yes): every emission a new size reuses is also
    made anew and compared (``jitcore/emission_reuse.py``); off (unset, empty, 0, off, false, no)."""
    text = environ.get("JITCORE_CHECK_EMISSION", "").strip().lower()
    if text not in _OFF + _ON:
        raise ConfigError(f"JITCORE_CHECK_EMISSION={text!r} is neither on (1) nor off (0)")
    return text not in _OFF + ("",)


def max_signatures_from_environment(environ: Mapping[str, str] = os.environ) -> int:
    """``JITCORE_MAX_SIGNATURES``: a count of at least 1; unset or empty: the default."""
    text = environ.get("JITCORE_MAX_SIGNATURES", "").strip()
    if not text:
        return DEFAULT_MAX_SIGNATURES
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f"JITCORE_MAX_SIGNATURES={text!r} is not a count: set it to an integer "
                          "of at least 1, or leave it unset")
    return int(text)


def backend_from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """``JITCORE_BACKEND``: a backend's name; unset or empty: ``"cpu"``."""
    return check_backend(environ.get("JITCORE_BACKEND", "").strip().lower() or "cpu", "JITCORE_BACKEND")


def check_backend(value, where: str) -> str:
    """``value`` if it names a backend (``codegen.backend.TARGETS``), else an error."""
    if value not in TARGETS:
        raise ConfigError(f"{where} must be one of {', '.join(map(repr, TARGETS))}, not {value!r}")
    return value


def check_max_signatures(value, where: str) -> int:
    """``value`` if it is a count of signatures to keep (an int of at least 1), else an error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where} must be an integer of at least 1, not {value!r}")
    return value


# The disk cache's settings (see the docstring); jitcore/disk_cache.py reads them at each use.
# The compile log's and the in-memory cache's too; jitcore/api.py reads them at each compile.
_CACHE = {"disk_cache": True, "cache_dir": "", "cache_max_bytes": DEFAULT_CACHE_MAX_BYTES,
          "log_compiles": False, "max_signatures": DEFAULT_MAX_SIGNATURES, "backend": "cpu",
          "auto_static": True}


def _set_cache(name: str, value) -> None:
    if name == "disk_cache" and not isinstance(value, bool):
        raise ConfigError(f"jitcore.config.disk_cache must be True or False, not {value!r}")
    if name == "cache_dir":
        if not isinstance(value, (str, os.PathLike)) or not str(value):
            raise ConfigError(f"jitcore.config.cache_dir must be a directory's path, not {value!r}")
        value = os.path.abspath(os.path.expanduser(os.fspath(value)))
    if name == "cache_max_bytes" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ConfigError(f"jitcore.config.cache_max_bytes must be an integer of at least 0, not {value!r}")
    if name in ("log_compiles", "auto_static") and not isinstance(value, bool):
        raise ConfigError(f"jitcore.config.{name} must be True or False, not {value!r}")
    if name == "max_signatures":
        check_max_signatures(value, "jitcore.config.max_signatures")
    if name == "backend":
        check_backend(value, "jitcore.config.backend")
    _CACHE[name] = value


def _set_runtime(name: str, value) -> None:
    low, high = _LOWEST[name], _HIGHEST.get(name)
    if (isinstance(value, bool) or not isinstance(value, int) or value < low
            or (high is not None and value > high)):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ConfigError(f"jitcore.config.{name} must be an integer {bound}, not {value!r}")
    SETTINGS[RUNTIME_SETTINGS.index(name)] = value


def _set_traceback_filtering(value) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"jitcore.config.traceback_filtering must be True or False, not {value!r}")
    tracebacks.enabled = value


def _runtime(name: str) -> tuple:
    index = RUNTIME_SETTINGS.index(name)
    return (lambda: SETTINGS[index]), (lambda value: _set_runtime(name, value))


def _cached(name: str) -> tuple:
    return (lambda: _CACHE[name]), (lambda value: _set_cache(name, value))


# Every setting, as (read, checked write): the attributes, update() and using() all go through
# this one table, so a setting the docstring lists works the same way through each of them.
_SETTINGS_TABLE = {
    **{name: _runtime(name) for name in RUNTIME_SETTINGS},
    "traceback_filtering": ((lambda: tracebacks.enabled), _set_traceback_filtering),
    **{name: _cached(name) for name in _CACHE},
    "buffer_pool_bytes": ((lambda: buffer_pool.POOL.limit), _set_buffer_pool_bytes),
}


def _check_names(names) -> None:
    for name in names:
        if name not in _SETTINGS_TABLE:
            raise ConfigError(f"jitcore.config has no setting {name!r}; its settings are "
                              f"{', '.join(_SETTINGS_TABLE)}")


def update(name: str, value) -> None:
    """Set the setting ``name``, as ``jitcore.config.<name> = value`` does."""
    _check_names([name])
    _SETTINGS_TABLE[name][1](value)


@contextmanager
def using(**values) -> Iterator[None]:
    """Set some settings for the ``with`` block, then put them back. The settings are the
    process's, not the thread's: other threads calling compiled code meanwhile see them too."""
    _check_names(values)
    saved = {name: _SETTINGS_TABLE[name][0]() for name in values}
    try:
        for name, value in values.items():
            update(name, value)
        yield
    finally:
        for name, value in saved.items():
            update(name, value)


def _setting(name: str) -> property:
    read, write = _SETTINGS_TABLE[name]
    return property(lambda self: read(), lambda self, value: write(value),
                    doc=f"The {name} setting (see the module's docstring).")


class _ConfigModule(types.ModuleType):
    """This module, with its settings as checked attributes."""


for _name in _SETTINGS_TABLE:
    setattr(_ConfigModule, _name, _setting(_name))


blas.choose(os.environ.get("JITCORE_BLAS", ""))
target.override_vector_bits(os.environ.get(target.VECTOR_BITS_VARIABLE))
object_loader.PERF_MAP = perf_map_from_environment()
update("num_threads", threads_from_environment())
_set_traceback_filtering(os.environ.get("JITCORE_TRACEBACK_FILTERING", "on").strip().lower() not in (
    "off", "0", "false", "no"))
_set_cache("disk_cache", cache_enabled_from_environment())
_set_cache("cache_dir", cache_dir_from_environment())
_set_cache("cache_max_bytes", cache_max_bytes_from_environment())
_set_cache("log_compiles", log_compiles_from_environment())
_set_cache("max_signatures", max_signatures_from_environment())
_set_cache("backend", backend_from_environment())
_set_buffer_pool_bytes(buffer_pool_bytes_from_environment())
update("parallel_threshold", DEFAULT_PARALLEL_THRESHOLD)
update("chunk_size", DEFAULT_CHUNK_SIZE)
sys.modules[__name__].__class__ = _ConfigModule
