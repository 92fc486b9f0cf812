"""NumPy's bits for ``where=`` sums of a broadcast operand beside a Fortran one, and the
float16 policy of the coverage harness (session 57). A differential probe: one compile per
layout pair, many data draws each.

- ``x.sum(where=m)``, ``x.sum(axis, where=m)``, ``np.mean(x, where=m)`` of a Fortran ``x`` and
  a broadcast ``m`` (or the other way round): NumPy's iterator gives the broadcast operand no
  say along its axes of stride 0, so the Fortran operand's order wins. The layout class now
  names those axes (``strided zero 1``), where before the model's made-up strides voted for
  C order (``buffered_where`` for whole sums, ``schedule._dense_twin`` for axis sums).
- float16: the harness compares sums, products, means and variances with NumPy's own answer
  on the operands' own layouts (``harness._float16_expected``), which jitcore gives: NumPy's
  elementwise loop rounds every add (a column sum), its reduce loop each call's total.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.coverage import harness
from tests.coverage.table import CASES
from tests.layouts import relayout


def _same(want, got, note):
    for w, g in zip(want, got, strict=True):
        w, g = np.asarray(w), np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes(), (note, w, g)


def masked_sums(x, m):
    return x.sum(where=m), x.sum(axis=0, where=m), x.sum(axis=1, where=m), np.mean(x, where=m)


_masked_sums = jc.jit(masked_sums)


def _operand(a, layout):
    """``a`` laid out as ``layout``; ``row``: its first row broadcast down (stride 0 on axis 0)."""
    return np.broadcast_to(a[0], a.shape) if layout == "row" else relayout(a, layout)


@pytest.mark.parametrize("layouts", [("F", "broadcast"), ("broadcast", "F"), ("F", "row"), ("row", "F")])
@settings(max_examples=examples(10, ci=5), deadline=None)
@given(seed=st.integers(0, 2**16), kept=st.sampled_from([0.5, 0.97, 1.0]))
def test_where_sums_of_a_broadcast_beside_a_fortran_operand_are_numpys_bits(layouts, seed, kept):
    rng = np.random.default_rng(seed)
    a = rng.random((37, 300)) * 1e3
    a[:, ::3] *= 1e-6  # terms of very different size: any other order shows
    x, m = _operand(a, layouts[0]), _operand(rng.random(a.shape) < kept, layouts[1])
    _same(masked_sums(x, m), _masked_sums(x, m), (layouts, kept))


def _row(name):
    return next(c for c in CASES if c.name == name)


def test_the_harness_takes_numpys_own_float16_answers():
    """A float16 column sum rounds every add in NumPy (2048 + 1 is 2048): the harness's answer
    is NumPy's, on the operand's own layout, and jitcore's matches it; a contraction keeps the
    float32 answer rounded once."""
    ones = np.ones((5000, 2), np.float16)
    total = _row("np.sum(x, axis, keepdims)")
    for x, axis in ((ones, 0), (np.asfortranarray(ones.T), 1)):
        params = (("axis", axis), ("keepdims", False))
        want = harness._float16_expected(total, (x,), (np.ascontiguousarray(x),), params, None)
        assert want.tolist() == [2048.0, 2048.0]
        assert harness.run_case(total, (x,), dict(params)) == harness.Outcome.PASS
    einsum = _row("np.einsum(subscripts, *xs) (common forms)")
    a = np.full((3, 3000), 1.0, np.float16)
    got = harness._float16_expected(einsum, (a, a.T), (a, a.T), (("subscripts", "ij,jk->ik"),),
                                    np.einsum("ij,jk->ik", a, a.T))
    assert got.dtype == np.float16 and (got == 3000).all()


def initial_sums(x):
    return (np.nansum(x, axis=(0, 1), initial=0), np.sum(x, axis=0, initial=3),
            np.prod(x[:, :2], axis=2, initial=1.5))


_initial_sums = jc.jit(initial_sums)


@pytest.mark.parametrize("layout", ["C", "F"])
def test_float16_sums_with_initial_round_where_numpys_loop_rounds(layout):
    """``initial=``: NumPy's loop is chosen by the operand's layout, not by the reduced-axes-last
    copy jitcore sums."""
    rng = np.random.default_rng(57)
    for _ in range(20):
        x = relayout((rng.random((2, 3, 40)) * 20 - 5).astype(np.float16), layout)
        with np.errstate(over="ignore"):
            want = initial_sums(x)
        _same(want, _initial_sums(x), layout)
