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
- ``bessel``: ``i0``, and ``kaiser`` with a traced ``beta``;
- ``bit_packing``: ``packbits`` and ``unpackbits``;
- ``index_helpers``: ``triu_indices_from`` and the other index helpers of a traced array;
- ``index_concatenation``: ``r_`` and ``c_`` of traced arrays;
- ``linalg``: ``matmul``, ``dot``, ``einsum``, ``diagonal``, ``norm``, ``solve``, ...;
- ``stride_tricks``: ``numpy.lib.stride_tricks.sliding_window_view`` (registered, not exported);
- ``registry``: the tables (``HANDLED_FUNCTIONS``, ``UFUNCS``) and ``__array_function__``;
- ``linalg_api``: ``numpy.linalg``'s names as ``jitcore.numpy.linalg``;
- ``fft`` (with ``fft_plan``, the transform itself): ``numpy.fft``'s names as ``jitcore.numpy.fft``;
- ``not_supported``: NumPy's public names not exported here, with the reason for each.

So ``import jitcore.numpy as jnp`` serves JAX-style code: every public NumPy name jitcore supports
is here under NumPy's name (aliases such as ``abs``, ``concat`` and ``pow`` included).
"""

import numpy as _np

import jitcore.buffered_sum  # noqa: F401  (installs NumPy's buffered order of whole sums in jitcore.primitives)
import jitcore.compacted_indices  # noqa: F401  (installs x[idx[m]] over the kept count in jitcore.indexing)
import jitcore.numpy.selection_statistics  # noqa: F401  (installs x[mask]'s statistics in jitcore.masked)
import jitcore.numpy.stride_tricks  # noqa: F401  (registers sliding_window_view; exports nothing)
import jitcore.run_length  # noqa: F401  (installs the ops at x[mask]'s length in jitcore.masked)
from jitcore.numpy import (
    along_axis,
    bessel,
    bit_packing,
    creation,
    data_length,
    everyday,
    fft,
    index_concatenation,
    index_helpers,
    linalg,
    linalg_api,
    manipulation,
    polynomials,
    reductions,
    selection,
    series,
    sorting,
    ufuncs,
)
from jitcore.numpy.registry import HANDLED_FUNCTIONS, UFUNCS, apply_function

float16, float32, float64 = _np.float16, _np.float32, _np.float64
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64, bool_ = _np.uint8, _np.uint16, _np.uint32, _np.uint64, _np.bool_
complex64, complex128 = _np.complex64, _np.complex128
pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, _np.newaxis
__all__ = ["HANDLED_FUNCTIONS", "UFUNCS", "apply_function", "bool_", "complex64", "complex128", "e",
           "fft", "float16", "float32", "float64", "inf", "int8", "int16", "int32", "int64", "linalg", "nan",
           "newaxis", "pi", "uint8", "uint16", "uint32", "uint64"]

for _family in (ufuncs, selection, reductions, manipulation, creation, linalg, sorting, everyday,
                along_axis, series, polynomials, index_helpers, index_concatenation, bessel, bit_packing,
                data_length):
    globals().update((name, getattr(_family, name)) for name in _family.__all__)
    __all__ += _family.__all__

# NumPy's names for what is above: aliases of the same NumPy object (abs, acos, concat, pow,
# permute_dims, the dtype aliases double, intp, ...) get the same jitcore function or type.
_BY_NUMPY_OBJECT = {id(getattr(_np, name)): globals()[name] for name in __all__
                    if callable(getattr(_np, name, None))}
# NumPy's own namespace, not dir(): getattr of a name in dir() imports numpy's lazy submodules
# (numpy.f2py, numpy.testing: a third of the time of importing jitcore), none of them an alias.
for _name, _value in list(vars(_np).items()):
    if not _name.startswith("_") and _name not in globals() and id(_value) in _BY_NUMPY_OBJECT:
        globals()[_name] = _BY_NUMPY_OBJECT[id(_value)]
        __all__.append(_name)

# NumPy's own helpers on dtypes and shapes (static under jit, so NumPy's functions serve as is),
# its abstract scalar types, and one more constant.
_STATIC = ("dtype", "finfo", "iinfo", "issubdtype", "isdtype", "promote_types", "can_cast",
           "broadcast_shapes", "ndarray", "generic", "number", "integer", "signedinteger",
           "unsignedinteger", "inexact", "floating", "complexfloating", "longlong", "ulonglong",
           "True_", "False_", "euler_gamma")
globals().update((name, getattr(_np, name)) for name in _STATIC)
__all__ += _STATIC

# ``numpy.linalg``'s names with its meaning (its diagonal and trace take the last two axes).
# The family module stays ``sys.modules["jitcore.numpy.linalg"]``: import its functions with
# ``from jitcore.numpy.linalg import ...`` (``from jitcore.numpy import linalg`` is this one).
linalg = linalg_api
matrix_transpose = linalg_api.matrix_transpose
__all__.append("matrix_transpose")
