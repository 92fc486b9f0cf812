"""numpy.polynomial's bases other than the power series, of traced coefficients and points
(``chebval``, ``legval``, ``hermval``, ``hermeval``, ``lagval``: NumPy's Clenshaw steps, so
NumPy's bits), and series objects (``Polynomial``, ``Chebyshev``, ...) called on traced points
(jitcore/numpy/orthogonal_series.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import Chebyshev, Hermite, HermiteE, Laguerre, Legendre, Polynomial
from numpy.polynomial import chebyshev as C
from numpy.polynomial import hermite as H
from numpy.polynomial import hermite_e as HE
from numpy.polynomial import laguerre as LA
from numpy.polynomial import legendre as L

import jitcore as jc
from tests.programs.like_numpy import EXACT, compare_like_numpy

BASES = (C.chebval, L.legval, H.hermval, HE.hermeval, LA.lagval)
OBJECTS = (Polynomial([1.0, -2.0, 0.5]), Chebyshev([1.0, 2.0, 3.0, -1.5], domain=[0, 2]),
           Legendre([0.25, 1.0, 0.5], domain=[-3, 3], window=[-1, 1]), Hermite([1.0, 0.5, 0.25]),
           HermiteE([2.0, -1.0]), Laguerre([1.0, 1.0, 1.0, 1.0]))


def every_basis(x, c, ci):
    """Each basis's value for 1, 2 and all of the coefficients, of ints, of a 2-d c (tensor and
    not), at a scalar point; and each series object at x."""
    out = []
    for f in BASES:
        out += [f(x, c[:k]) for k in (1, 2, c.shape[0])]
        out += [f(x, ci), f(x, np.stack([c, 2 * c], axis=1)), f(x[1], c),
                f(x[:2], np.stack([c, c[::-1]], axis=1), tensor=False)]
    return tuple(out) + tuple(p(x) for p in OBJECTS) + (OBJECTS[1].deriv()(x),)


def bases_only(x, c):
    return tuple(f(x, c) for f in BASES)


EVERY_BASIS, BASES_ONLY = jc.jit(every_basis), jc.jit(bases_only)


@pytest.mark.parametrize("x, c", [
    (np.linspace(-1.5, 2.5, 5), np.array([0.5, -1.25, 2.0, 0.75, 3.0])),
    (np.array([-0.0, np.inf, np.nan, 1e300, -7.0]), np.array([1.0, -0.0, 1e-300, 2.0, -4.0])),
    (np.linspace(-1, 1, 4).astype(np.float32), np.array([1.5, 0.25, -2.0, 1.0, 0.5], np.float32)),
], ids=["float64", "edges", "float32 (bases only)"])
def test_bases_and_series_objects_of_traced_data_match_numpy_bit_for_bit(x, c):
    ci = np.array([3, -1, 2])
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            want, got = bases_only(x, c), BASES_ONLY(x, c)
        else:
            want, got = every_basis(x, c, ci), EVERY_BASIS(x, c, ci)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        compare_like_numpy(g, w, EXACT, f"result {k}")


def _traced_coefficients_object(x, c):
    return Chebyshev(c)(x)


def test_series_object_of_traced_coefficients_is_refused_naming_what_compiles():
    with pytest.raises(jc.TracerConversionError, match="chebval, legval, hermval, hermeval and lagval"):
        jc.jit(_traced_coefficients_object)(np.ones(3), np.ones(2))
