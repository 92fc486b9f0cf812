"""``numpy.i0`` of traced arrays, and ``numpy.kaiser`` with a traced ``beta`` (a Kaiser FIR
design computes ``beta`` from the wanted attenuation).

``i0`` is NumPy's own algorithm: Clenshaw's recurrence on Cephes' Chebyshev series (NumPy's
coefficient tables, read from NumPy) for ``|x| <= 8`` and for ``|x| > 8`` (scaled by
``1/sqrt(x)``), times ``exp(|x|)``; both series are computed and ``where`` picks one, as
``np.piecewise`` does. The sums are NumPy's in its order, so results differ from NumPy's by
the math library's ``exp``.
"""

from __future__ import annotations

import numpy as np
from numpy.lib import _function_base_impl as _numpy_impl

from jitcore.errors import JitTypeError
from jitcore.numpy.registry import implements, traced
from jitcore.tracer import refuse_traced, user_location

__all__ = ["i0", "kaiser"]

_SMALL, _LARGE = _numpy_impl._i0A, _numpy_impl._i0B  # Cephes' series, as NumPy evaluates them


def _chebyshev_series(t, coefficients):
    """Clenshaw's recurrence as NumPy's ``_chbevl``: ``0.5 * (b0 - b2)``."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + c
    return 0.5 * (b0 - b2)


@implements(np.i0)
def i0(x):
    """The modified Bessel function of the first kind, order 0, elementwise (float64 for
    integers and bools, as NumPy's ``x.astype(float)``)."""
    if not traced(x):
        return np.i0(x)
    if x.dtype.kind == "c":
        raise JitTypeError(f"i0 not supported for complex values (numpy.i0 at {user_location()})")
    x = np.abs(x if x.dtype.kind == "f" else x.astype(float))
    small = x <= 8.0
    e = np.exp(x)
    near = e * _chebyshev_series(x / 2.0 - 2, _SMALL)
    far = e * _chebyshev_series(32.0 / np.where(small, 16.0, x) - 2.0, _LARGE) / np.sqrt(x)
    return np.where(small, near, far)


def kaiser(M, beta):
    """``numpy.kaiser``: a static length ``M``; ``beta`` may be traced (NumPy's formula,
    ``i0(beta * sqrt(1 - ((n - alpha) / alpha)**2)) / i0(beta)``)."""
    refuse_traced(M, "the length of numpy.kaiser")
    if not traced(beta):
        return np.kaiser(M, beta)
    if M == 1:
        return np.ones(1, dtype=np.result_type(M, 0.0))
    n = np.arange(0, M)
    alpha = (M - 1) / 2.0
    return i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / i0(beta)
