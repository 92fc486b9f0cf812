"""``var`` and ``std`` along an axis of arguments in every dense layout give NumPy's bits.

NumPy's ``_var`` materialises ``x - mean`` in the order its iterator lays out (K order: for a
Fortran-ordered ``x``, Fortran order) and sums the squared deviations in that memory order, so
``X.var(axis=1)`` of ``X = A.T`` adds each row's squares one column after another, not
pairwise. The fused kernel reads ``x`` and the mean, and its order is NumPy's for those inputs
(``kernel.numpy_axis_order``), also where a strided argument's class says it is dense
(``codegen/cpu/schedule._dense_twin``). NumPy is the oracle: bits, dtype and shape.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.layouts import relayout


def _statistics(x):
    return (x.var(axis=0), x.var(axis=1), x.std(axis=0, ddof=1), x.std(axis=1, keepdims=True),
            np.var(x, axis=1, ddof=2), np.std(x, axis=0, keepdims=True), x.mean(axis=1))


def _all(c, f, t, r, flipped):
    return tuple(_statistics(x) for x in (c, f, t, r, flipped))


_jitted = jc.jit(_all)


def _views(a):
    """The same values as C, Fortran, a transpose (Fortran: the report's ``A.T``, 4 ULP off in
    float32 before), reversed and one axis flipped."""
    flipped = np.ascontiguousarray(a[:, ::-1])[:, ::-1]
    return relayout(a, "C"), relayout(a, "F"), np.ascontiguousarray(a.T).T, relayout(a, "reversed"), flipped


def _same_bits(expected, got, what):
    assert got.dtype == expected.dtype and got.shape == expected.shape, what
    assert np.array_equal(expected, got, equal_nan=True), (what, np.abs(expected - got).max())


@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 2**16), shape=st.sampled_from([(33, 257), (257, 33)]),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_var_std_along_each_axis_of_each_layout_are_numpys_bits(seed, shape, dtype):
    rng = np.random.default_rng(seed)
    a = (rng.lognormal(0, 1, shape) * rng.choice([1.0, 1e3], shape)).astype(dtype)
    views = _views(a)
    for layout, expected, got in zip(("C", "F", "T", "reversed", "flipped"), _all(*views), _jitted(*views)):
        for k, (e, g) in enumerate(zip(expected, got)):
            _same_bits(e, g, (layout, k))


def _read_order(a):
    """The dims ``a`` reads (extent above 1, stride not 0), outermost in memory first, and
    those it reads backwards."""
    dims = [d for d in range(a.ndim) if a.shape[d] > 1 and a.strides[d] != 0]
    return sorted(dims, key=lambda d: -abs(a.strides[d])), {d for d in dims if a.strides[d] < 0}


def test_axis_order_is_numpys_for_inputs_that_disagree():
    """``numpy_axis_order`` lays out an elementwise result as NumPy's ufuncs do (the order
    ``memory_order`` then reduces in): arrays read in different orders, broadcast along some
    dims, reversed along others; NumPy's own result of ``x + y`` is the oracle."""
    from jitcore.ir.dialects.kernel import numpy_axis_order

    base = np.zeros((2, 3, 4))
    xs = [base, np.asfortranarray(base), base.transpose(1, 0, 2).copy().transpose(1, 0, 2),
          base[::-1, :, ::-1].copy()[::-1, :, ::-1]]
    ys = [np.zeros((2, 3, 1)), np.asfortranarray(np.zeros((2, 3, 1))), np.zeros((1, 3, 4)),
          np.asfortranarray(np.zeros((2, 1, 4))), np.zeros((4, 3)).T[None], np.zeros((2, 3, 4))[:, ::-1]]
    for x in xs:
        for y in ys:
            expected = _read_order(x + y)[0]
            (ox, fx), (oy, fy) = _read_order(x), _read_order(y)
            assert numpy_axis_order([ox, oy], [fx, fy], 3) == expected, (x.strides, y.strides)
