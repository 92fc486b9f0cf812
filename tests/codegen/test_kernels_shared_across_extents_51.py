"""Kernels that differ only in their extents share one function (``codegen/cpu/extent_sharing.py``):
each launch passes its own extents, and gives what NumPy gives (and the bits of its own kernel)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore.codegen.cpu import extent_sharing
from tests.budget import examples


def autocorr(x):
    n = x.shape[0]
    c0 = np.dot(x, x)
    return np.array([np.dot(x[:n - k], x[k:]) / c0 for k in range(8)])


def prefix_sines(x):
    # lengths 0 and 1 among them: those keep constant extents (and kernels of their own)
    return [np.sum(np.sin(x[:m])) for m in (0, 1, 2, 9, 23, 40, 41, 64)]


def tail_sums(x):
    return [x[k:].sum() for k in range(6)]


def gate_layers(state, gate):
    for q in range(state.ndim):
        state = np.moveaxis(np.tensordot(gate, state, axes=(1, q)), 0, q)
    return state


def _extent_kernels(jitted, *args) -> int:
    """The functions defined for kernels emitted with run-time extents, not counting the
    per-launch shifts that call them."""
    text = jitted.lower(*args).as_text("llvm")
    defined = [line for line in text.splitlines() if line.startswith("define")]
    return sum(1 for d in defined if "_extents" in d and "_worker" not in d)


def _own(fn, *args):
    """``fn`` jitted with every kernel of its own extents: the reference bits."""
    saved = extent_sharing.SHARE
    extent_sharing.SHARE = False
    try:
        return jc.jit(fn, cache=False)(*args)
    finally:
        extent_sharing.SHARE = saved


def _same_bits(got, want):
    assert [np.asarray(a).dtype for a in got] == [np.asarray(a).dtype for a in want]
    assert [np.asarray(a).tobytes() for a in got] == [np.asarray(a).tobytes() for a in want]


def test_lags_of_a_dot_share_one_kernel():
    x = np.random.default_rng(0).standard_normal(300)
    jitted = jc.jit(autocorr, cache=False)
    got = jitted(x)
    np.testing.assert_allclose(got, autocorr(x), rtol=1e-12)
    assert got.dtype == np.float64 and got.shape == (8,)
    _same_bits([got], [_own(autocorr, x)])
    assert _extent_kernels(jitted, x) == 1


def test_a_size_generic_function_keeps_one_code_for_two_sizes():
    jitted = jc.jit(autocorr, cache=False)
    for n in (200, 333):
        x = np.linspace(-1.0, 2.0, n) ** 3
        np.testing.assert_allclose(jitted(x), autocorr(x), rtol=1e-12)
    assert _extent_kernels(jitted, x) == 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_prefixes_of_every_length_read_their_own(dtype):
    x = np.random.default_rng(1).standard_normal(70).astype(dtype)
    x[30] = np.inf  # only the prefixes from 31 on see it
    jitted = jc.jit(prefix_sines, cache=False)
    got = jitted(x)
    want = prefix_sines(x)
    assert [type(g) for g in got] == [type(w) for w in want]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5 if dtype == np.float32 else 1e-12)
    _same_bits(got, _own(prefix_sines, x))
    # 2 to 64 share one function; 0 and 1 stay constants, each a kernel of its own
    assert _extent_kernels(jitted, x) == 1


@settings(max_examples=examples(10, 3), deadline=None)
@given(hnp.arrays(np.int64, 40, elements=st.integers(-2**40, 2**40)))
def test_integer_tails_are_exact(x):
    got = _tails(x)
    want = tail_sums(x)
    assert [type(g) for g in got] == [type(w) for w in want]
    assert [int(g) for g in got] == [int(w) for w in want]


_tails = jc.jit(tail_sums, cache=False)


def test_integer_tails_share_one_kernel():
    # k = 0 sums the whole of x: its domain is x's extent, one symbol where the others have
    # two, so it keeps its fixed kernel; k = 1..5 share one
    assert _extent_kernels(_tails, np.arange(40)) == 1


def test_gate_layers_merge_their_axes_and_share_one_contraction():
    """Each qubit's contraction is one nest (gate, sum, middle, 2, right) once its adjacent
    axes merge; q = 3..6 of 9 differ only in (middle, right) = (2^(q-1), 2^(8-q)). q = 2 and
    7 hold a 2 where the others' gate alone does: kernels of their own, as q = 0, 1, 8
    (nests of other shapes)."""
    rng = np.random.default_rng(3)
    state = rng.standard_normal((2,) * 9) + 1j * rng.standard_normal((2,) * 9)
    gate = np.array([[1, 1], [1, -1]]) / np.sqrt(2) + 0.25j * np.eye(2)
    jitted = jc.jit(gate_layers, cache=False)
    got = jitted(state, gate)
    want = gate_layers(state, gate)
    assert got.dtype == np.complex128 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert _extent_kernels(jitted, state, gate) == 1


def axis_means(a):
    return [a.mean(axis=ax) for ax in range(a.ndim)]


def test_means_along_each_axis_share_one_reduction():
    """Along axis q of a (3,) * 8 array the merged nest is (3^q, 3, 3^(7-q)): q = 2..5 share
    one function; q = 1 and 6 hold a 3 beside the reduced 3, q = 0 and 7 are other nests."""
    a = np.random.default_rng(4).standard_normal((3,) * 8)
    jitted = jc.jit(axis_means, cache=False)
    got = jitted(a)
    want = axis_means(a)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)
    assert _extent_kernels(jitted, a) == 1


def long_prefixes(x):
    # each above runtime.MIN_SPLIT_WORK: launched in pieces on the pool's threads
    return [np.sum(x[:m] * 2.0) for m in (40000, 70001, 100000, 131072)]


def test_long_launches_on_threads_pass_their_own_extents():
    x = np.random.default_rng(5).standard_normal(140000)
    jitted = jc.jit(long_prefixes, cache=False)
    got = jitted(x)
    for g, w in zip(got, long_prefixes(x)):
        assert type(g) is type(w)
        np.testing.assert_allclose(g, w, rtol=1e-10)
    _same_bits(got, _own(long_prefixes, x))
    assert _extent_kernels(jitted, x) == 1
