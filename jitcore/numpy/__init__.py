"""``jitcore.numpy``: NumPy's functions, recorded when given traced arrays.

Each function here records the same ops whether it is called as ``jitcore.numpy.f``, as
``numpy.f`` on a traced value (through ``__array_function__`` / ``__array_ufunc__``), or as the
matching operator or method. On concrete NumPy arrays (outside ``jit``) it simply calls NumPy.
A NumPy function without an entry in ``HANDLED_FUNCTIONS`` raises ``UnsupportedError`` when
called on a traced value: jitcore never falls back to running Python on data.

The functions live in one module per family; adding one is one entry in its family's module
(``@implements(np.f)`` registers it, its name in that module's ``__all__`` exports it here):

- ``ufuncs``: the ufunc wrappers, ``real``/``imag``/``angle``, and ``__array_ufunc__`` with the
  ufunc methods (``reduce``, ``accumulate``, ``outer``, ``at``);
- ``selection``: ``where``, ``select``, ``clip``;
- ``reductions``: ``sum``, ``mean``, ``var``, ``argmax``, ``cumsum``, ...;
- ``manipulation``: ``reshape``, ``transpose``, ``concatenate``, ``take``, ``pad``, ...;
- ``creation``: ``zeros``, ``arange``, ``array`` (traced under jit), ``zeros_like``, ``astype``;
- ``linalg``: ``matmul``, ``dot``, ``einsum``, ``diagonal``, ...; also ``jitcore.numpy.linalg``;
- ``stride_tricks``: ``numpy.lib.stride_tricks.sliding_window_view`` (registered, not exported);
- ``registry``: the tables (``HANDLED_FUNCTIONS``, ``UFUNCS``) and ``__array_function__``.
"""

import numpy as _np

import jitcore.numpy.stride_tricks  # noqa: F401  (registers sliding_window_view; exports nothing)
from jitcore.numpy import creation, linalg, manipulation, reductions, selection, sorting, ufuncs
from jitcore.numpy.registry import HANDLED_FUNCTIONS, UFUNCS, apply_function

float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64, bool_ = _np.uint8, _np.uint16, _np.uint32, _np.uint64, _np.bool_
complex64, complex128 = _np.complex64, _np.complex128
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, _np.newaxis
__all__ = ["HANDLED_FUNCTIONS", "UFUNCS", "apply_function", "bool_", "complex64", "complex128", "e",
           "float16", "float32", "float64", "inf", "int8", "int16", "int32", "int64", "linalg", "nan",
           "newaxis", "pi", "uint8", "uint16", "uint32", "uint64"]

for _family in (ufuncs, selection, reductions, manipulation, creation, linalg, sorting):
    globals().update((name, getattr(_family, name)) for name in _family.__all__)
    __all__ += _family.__all__
