"""jitcore: a just-in-time compiler for NumPy-style Python.

``@jitcore.jit`` traces a function on abstract arrays into an MLIR-style IR, optimises and fuses
it, and compiles it with LLVM to vectorised native code that runs on NumPy arrays in place.
"""

import importlib
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_LAYERS = ("ir", "passes", "codegen")


class _LayerFinder:
    """Finds jitcore.ir, jitcore.passes and jitcore.codegen in a checkout.

    The compiler layers are the repository's top-level folders ir/, passes/, codegen/, but they
    import only as jitcore.<layer>, so a user's own ir.py or passes/ cannot shadow them. Installed,
    they sit inside this package; in a checkout this maps exactly those three names to the folders
    beside it (their submodules then follow the package's __path__).
    """

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        package, _, layer = fullname.rpartition(".")
        folder = os.path.join(os.path.dirname(_HERE), layer)
        if package != __name__ or layer not in _LAYERS or not os.path.isdir(folder):
            return None
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])


if not os.path.isdir(os.path.join(_HERE, "ir")):  # a checkout, not an install
    sys.meta_path.insert(0, _LayerFinder)

# The frontend loads on first use, so importing jitcore.ir alone does not pull in passes and LLVM.
_API = {
    "CacheInfo": "api", "JitFunction": "api", "Lowered": "api", "jit": "api", "make_ir": "api",
    "ConcretizationError": "errors", "JitTypeError": "errors", "JitcoreError": "errors",
    "TracerConversionError": "errors", "UnsupportedError": "errors",
}
__all__ = sorted(_API)


def __getattr__(name):
    if name in _API:
        value = getattr(importlib.import_module(f"{__name__}.{_API[name]}"), name)
    elif os.path.isfile(os.path.join(_HERE, name + ".py")) or name in _LAYERS:  # jitcore.numpy etc.
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
