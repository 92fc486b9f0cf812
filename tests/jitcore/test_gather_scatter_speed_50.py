"""Gathers and scatters by index arrays (gather50): range checks proved away by bounds.

``effects._bounds`` now knows the arms of a ``select`` under its condition (``x + s`` where
``x & s == 0`` is ``x | s``; ``select(i < 0, i + n, i)``'s ``i`` is not negative), ``&``,
``|``, ``<<``, argmax/argmin positions, max/min scans and a loop's induction variable, and
canonicalize folds the integer comparisons those bounds decide. So the state-vector gate's
``idx[(idx & stride) == 0] + stride`` needs no range check, and neither do its gathers.
Every program here is also run by NumPy: results, dtypes, arguments after the call, and the
IndexError (with nothing written) where NumPy raises.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.passes.effects import _bounds, decided_comparison

warnings.simplefilter("ignore")


def gate(psi, U, n):
    """One layer of the bit-trick state-vector gate (REPORT.md section 4, timing2.py)."""
    for q in range(n):
        stride = 1 << (n - 1 - q)
        idx = np.arange(2 ** n)
        lo = idx[(idx & stride) == 0]
        hi = lo + stride
        a, b = psi[lo].copy(), psi[hi].copy()
        psi[lo] = U[0, 0] * a + U[0, 1] * b
        psi[hi] = U[1, 0] * a + U[1, 1] * b
    return psi


def gather_sum(x, idx):
    return x[idx].sum()


def gather_scale(t, i, x):
    return t[i] * 2 + x


def scatter_set(x, idx, v):
    x[idx] = v
    return x


def wrapped_gather(x, idx):
    """Negative indices made positions by hand, as in library code: ``select(i < 0, i + n, i)``."""
    n = x.shape[0]
    j = np.where(idx < 0, idx + n, idx)
    return x[j]


def _compare(f, *args, static=()):
    """Run ``f`` jitted and plain on copies; compare results, dtypes, types, arguments after
    the call, and the error raised."""
    plain_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    jit_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        expected = f(*plain_args)
    except IndexError as e:
        with pytest.raises(IndexError) as got:
            jc.jit(f, static_argnums=static)(*jit_args)
        assert str(got.value) == str(e)
        for a, b in zip(plain_args, jit_args):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)  # nothing written before the error
        return
    result = jc.jit(f, static_argnums=static)(*jit_args)
    assert type(result) is type(expected)
    if isinstance(expected, np.ndarray):
        assert result.dtype == expected.dtype
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    for a, b in zip(plain_args, jit_args):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ---- the gate: results, and no range check left in its loop --------------------------------

@pytest.mark.parametrize("n", [3, 6, 10])
def test_gate_matches_numpy(n):
    rs = np.random.default_rng(n)
    psi = rs.standard_normal(2 ** n) + 1j * rs.standard_normal(2 ** n)
    U = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)
    _compare(gate, psi, U, n, static=(2,))


def test_gate_needs_no_range_check():
    """n=12 rolls the qubit loop (an ``scf.for``): its partner index ``lo + stride`` is proved
    in range by ``idx & stride == 0``, so no check and no error branch is left for the gathers
    of ``psi[lo]`` and ``psi[hi]``."""
    n = 12
    psi = np.zeros(2 ** n, complex)
    U = np.eye(2, dtype=complex)
    text = jc.jit(gate, static_argnums=2).lower(psi, U, n).as_text("optimized")
    loop = text[text.index('"scf.for"'):]
    # before: 12 checks, 16 error branches, 34 kernels and 2 raises per step
    assert loop.count("kernel.check_index") <= 2  # the two scatters' writes
    assert loop.count("array.callback") <= 4
    assert loop.count('"kernel.generic"') <= 20
    assert loop.count("kernel.raise") <= 1


# ---- the bounds and the comparisons they decide --------------------------------------------

def test_compare_decided_by_bounds_folds():
    def f(x):
        i = np.arange(16)
        j = np.where(i < 0, i + 16, i)  # i is never negative: the comparison folds to False
        return x[j]
    text = jc.jit(f).lower(np.zeros(16)).as_text("optimized")
    assert "check_index" not in text and "arith.cmpi" not in text


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(0, 11), st.sampled_from([np.int32, np.int64]))
def test_disjoint_bits_sum_in_range(k, bit, dt):
    """``idx + s`` under ``idx & s == 0`` stays below ``2**k`` for ``s < 2**k``: jitted and
    NumPy agree for every bit, including a bit at or above ``k`` (then the sum may leave
    the range: the check stays and raises as NumPy does)."""
    s = 1 << bit
    def f(x):
        idx = np.arange(2 ** k, dtype=dt)
        lo = idx[(idx & s) == 0]
        return x[lo + s]
    x = np.arange(2 ** k, dtype=np.float64)
    _compare(f, x)


@pytest.mark.parametrize("k, bit", [(4, 0), (4, 2), (6, 5), (5, 5)])
@pytest.mark.parametrize("test", ["==", "!="])
def test_bit_test_decides_only_its_own_arm(k, bit, test):
    """``x + s`` is proved in range only where ``x & s == 0``: under ``!= 0`` (the bit set)
    the sum leaves ``[0, 2**k)`` and NumPy's IndexError must still be raised."""
    s = 1 << bit

    def f(x):
        idx = np.arange(2 ** k)
        hit = (idx & s) == 0 if test == "==" else (idx & s) != 0
        return x[np.where(hit, idx + s, 0)]
    _compare(f, np.arange(2 ** k, dtype=np.float64))


# ---- differential: gathers and scatters by index arrays ------------------------------------

DATA = {"f8": np.float64, "c16": np.complex128, "i8": np.int64, "b": np.bool_}


def _data(kind, n, seed):
    rs = np.random.default_rng(seed)
    if kind == "c16":
        return rs.standard_normal(n) + 1j * rs.standard_normal(n)
    if kind == "b":
        return rs.random(n) < 0.5
    return (rs.standard_normal(n) * 100).astype(DATA[kind])


index_lists = st.lists(st.integers(-12, 11), min_size=0, max_size=20)


@settings(max_examples=40, deadline=None)
@given(index_lists, st.sampled_from(sorted(DATA)), st.sampled_from([np.int32, np.int64]))
def test_gather_sum_matches_numpy(idx, kind, it):
    x = _data(kind, 10, len(idx))
    _compare(gather_sum, x, np.array(idx, dtype=it))


@settings(max_examples=40, deadline=None)
@given(index_lists, st.sampled_from(["f8", "c16", "i8"]), st.sampled_from([np.int32, np.int64]))
def test_gather_consumer_matches_numpy(idx, kind, it):
    t = _data(kind, 10, 1)
    x = _data(kind, len(idx), 2)
    _compare(gather_scale, t, np.array(idx, dtype=it), x)


@settings(max_examples=40, deadline=None)
@given(index_lists, st.sampled_from(sorted(DATA)), st.sampled_from([np.int32, np.int64]))
def test_scatter_last_write_wins_and_errors_write_nothing(idx, kind, it):
    x = _data(kind, 10, 3)
    v = _data(kind, len(idx), 4)
    _compare(scatter_set, x, np.array(idx, dtype=it), v)


@settings(max_examples=40, deadline=None)
@given(index_lists, st.sampled_from([np.int32, np.int64]))
def test_wrapped_gather_matches_numpy(idx, it):
    _compare(wrapped_gather, _data("f8", 10, 5), np.array(idx, dtype=it))


def test_comparisons_decided_by_constant_bounds():
    lo, hi = _two_constants(0, 5)
    assert decided_comparison("lt", lo, hi) is True
    assert decided_comparison("ge", lo, hi) is False
    assert decided_comparison("eq", lo, hi) is False
    assert decided_comparison("le", hi, hi) is True
    assert decided_comparison("lt", hi, hi) is False
    assert _bounds(_two_constants(3, 9)[0]) == (3, 3)


def _two_constants(a, b):
    from jitcore.ir.attributes import DenseAttr
    from jitcore.ir.dialects import array
    from jitcore.ir.types import TensorType, i64
    t = TensorType((4,), i64)
    made = [array.ConstantOp((), [t], {"value": DenseAttr(np.array(v, dtype=np.int64), t)}).result
            for v in (a, b)]
    return made


# ---- a write through selected indices: in place, not a copy of the target ------------------

def write_selected(x, idx, m, v):
    x[idx[m]] = v[m]
    return x


def test_selected_write_reads_its_target_only_as_the_copy():
    """``x[idx[m]] = v[m]`` writes, where ``m`` keeps nothing, ``x[0]`` back; that one element
    is read in a kernel of its own, so the scatter reads ``x`` only as the array it starts
    from, and may write into it in place (before: the scatter read ``x`` twice and copied it)."""
    args = np.zeros(64), np.arange(64), np.ones(64, bool), np.ones(64)
    text = jc.jit(write_selected).lower(*args).as_text("optimized")
    scatters = [b for b in text.split('"kernel.generic"(')[1:] if "kernel.insert" in b]
    assert scatters
    for b in scatters:
        operands = b[:b.index(")")].split(", ")
        assert operands.count(operands[0]) == 1, operands


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-10, 9), st.booleans()), max_size=16),
       st.sampled_from(["f8", "c16", "i8", "b"]))
def test_selected_write_matches_numpy(pairs, kind):
    idx = np.array([p[0] for p in pairs], dtype=np.int64)
    m = np.array([p[1] for p in pairs], dtype=bool)
    _compare(write_selected, _data(kind, 10, 6), idx, m, _data(kind, len(pairs), 7))


# ---- large index arrays: checked by a pass of their own, then read unchecked ---------------

BIG = 1 << 14  # indexing.HOISTED_CHECK_MIN


def test_large_gather_fuses_into_its_consumer():
    """``x[idx].sum()`` and ``t[i] * 2 + x`` over large index arrays: the check runs first,
    over the indices alone, and the gather, now checking nothing, is read inside the sum and
    the arithmetic (no ``x[idx]`` array; before, the gather kept its checks and stayed whole)."""
    x, idx = np.zeros(BIG), np.zeros(BIG, dtype=np.int64)
    text = jc.jit(gather_sum).lower(x, idx).as_text("optimized")
    assert "kernel.check_index" not in text
    kernels = text.split('"kernel.generic"(')[1:]
    assert any("kernel.extract" in k and '"reduction"' in k.split("iterator_types")[1][:40]
               for k in kernels)
    text = jc.jit(gather_scale).lower(x, idx, x).as_text("optimized")
    assert "kernel.check_index" not in text
    assert text.count('"kernel.generic"(') <= 4  # the check's 3, then one for t[i] * 2 + x


@settings(max_examples=25, deadline=None)
@given(st.integers(0, BIG + 5), st.sampled_from([-BIG - 3, -BIG, -1, 7, BIG - 1, BIG, 10 ** 9]),
       st.sampled_from([np.int32, np.int64]), st.sampled_from(["f8", "c16", "i8", "b"]))
def test_large_gather_matches_numpy(size, bad, it, kind):
    """Indices in range, negative, and out of range (the first bad one in the message), at
    sizes on both sides of the threshold; empty index arrays too."""
    rs = np.random.default_rng(size)
    x = _data(kind, BIG, 8)
    idx = rs.integers(-BIG, BIG, size)
    if size:
        idx[rs.integers(0, size)] = bad
    _compare(gather_sum, x, idx.astype(it))
    if kind != "b":
        _compare(gather_scale, x, idx.astype(it), _data(kind, size, 9))
