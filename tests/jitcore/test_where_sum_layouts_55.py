"""Whole ``x.sum(where=m)`` (and ``np.mean``) where ``x`` and ``m`` are Fortran-ordered or laid
out differently: NumPy's bits (session 55, ``jitcore/buffered_where.py``). NumPy adds runs of
kept terms in its iterator's order: Fortran order where both are Fortran-ordered; C order
through its 8192-element buffer, which ends runs where a buffer ends, where one is C and the
other Fortran. Before, jitcore added the runs in C order, unbroken, in every case."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.layouts import relayout


def sums(x, m):
    return x.sum(where=m), np.mean(x, where=m)


_sums = jc.jit(sums)


@pytest.mark.parametrize("shape", [(37, 3000), (1000, 7)])  # buffers of 2 rows; one buffer
@settings(max_examples=examples(4, ci=2), deadline=None)
@given(
    seed=st.integers(0, 2**16),
    kept=st.sampled_from([0.5, 0.95, 1.0]),
    dtype=st.sampled_from([np.float32, np.float64]),
    layouts=st.sampled_from([("F", "C"), ("C", "F"), ("F", "F")]),
)
def test_whole_where_sums_of_mixed_layouts_are_numpys_bits(shape, seed, kept, dtype, layouts):
    rng = np.random.default_rng(seed)
    a = (rng.random(shape) * 1e3).astype(dtype)
    a[..., ::3] = 1e-3  # terms of very different size: any other order shows in the bits
    x, m = relayout(a, layouts[0]), relayout(rng.random(shape) < kept, layouts[1])
    for want, got in zip(sums(x, m), _sums(x, m)):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (layouts, kept, want, got)


def test_runs_end_where_numpys_buffer_ends():
    """Everything kept, one C and one Fortran operand: NumPy's runs end every two rows of
    3000 (its buffer), which one unbroken run would not give bit for bit."""
    rng = np.random.default_rng(55)
    a = (rng.random((37, 3000)) * 1e3).astype(np.float32)
    a[..., ::3] = 1e-3
    for x, m in (
        (np.asfortranarray(a), np.ones(a.shape, bool)),
        (a, np.asfortranarray(rng.random(a.shape) < 0.99)),
    ):
        want, got = sums(x, m)[0], _sums(x, m)[0]
        assert got.tobytes() == want.tobytes(), (want, got)
