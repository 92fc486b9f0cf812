"""jitcore: a just-in-time compiler for NumPy-style Python.

``@jitcore.jit`` traces a function on abstract arrays into an MLIR-style IR, optimises and fuses
it, and compiles it with LLVM to vectorised native code that runs on NumPy arrays in place.
"""

from jitcore.api import CacheInfo, JitFunction, Lowered, jit, make_ir
from jitcore.errors import (
    ConcretizationError,
    JitcoreError,
    JitTypeError,
    TracerConversionError,
    UnsupportedError,
)

__all__ = [
    "CacheInfo", "ConcretizationError", "JitFunction", "JitTypeError", "JitcoreError", "Lowered",
    "TracerConversionError", "UnsupportedError", "jit", "make_ir",
]
