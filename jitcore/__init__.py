"""jitcore: a just-in-time compiler for NumPy-style Python.

``@jitcore.jit`` traces a function on abstract arrays into an MLIR-style IR, optimises and fuses
it, and compiles it with LLVM to vectorised native code that runs on NumPy arrays in place.
``jitcore.config`` holds the run-time settings (the thread count).
"""

import importlib
import os

# _layers first (the import keeps this order): it makes jitcore.ir, jitcore.passes and
# jitcore.codegen importable from a checkout, and array_methods imports the IR.
from jitcore import (  # noqa: F401  (array_methods installs Tracer's operators)
    _layers,
    array_methods,
    position_tables,  # noqa: F401  (installs the ramps primitives.constant traces tables as)
    traced_text,  # noqa: F401  (installs the text a Tracer formats to)
)

# The API loads on first use, so importing jitcore.ir alone does not pull in passes and LLVM.
_API = {
    "CacheInfo": "api", "JitFunction": "api", "Lowered": "api", "jit": "api", "make_ir": "api",
    "cond": "control_flow", "fori_loop": "control_flow", "scan": "control_flow",
    "switch": "control_flow", "while_loop": "control_flow",
    "debug_callback": "debugging", "debug_print": "debugging",
    "ConcretizationError": "errors", "JitAxisError": "errors",
    "JitOverflowError": "errors", "JitTypeError": "errors", "JitValueError": "errors",
    "JitZeroDivisionError": "errors",
    "JitcoreError": "errors", "TracerConversionError": "errors", "UnsupportedError": "errors",
    "cache_clear": "disk_cache", "profile": "profiler",
    "DeviceArray": "cuda", "device_put": "cuda",
}
__all__ = sorted(_API)


def __getattr__(name):
    if name in _API:
        value = getattr(importlib.import_module(f"{__name__}.{_API[name]}"), name)
    elif name in _layers.LAYERS or any(os.path.isfile(os.path.join(_layers.PACKAGE_DIR, *path))
                                       for path in ((name + ".py",), (name, "__init__.py"))):
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API) | {"config"})
