"""Gathers and scatters by index arrays (gather50, redone as gather51): range checks proved
away by bounds, large index arrays checked first, scatters in place.

``effects._bounds`` knows the arms of a ``select`` under its condition (``x + s`` where
``x & s == 0`` is ``x | s``; ``select(i < 0, i + n, i)``'s ``i`` is not negative), ``&``,
``|``, ``<<``, argmax/argmin positions, max/min scans and a loop's induction variable, and
canonicalize folds the integer comparisons those bounds decide. An index array of
``HOISTED_CHECK_MIN`` elements or more is checked by one fused pass of its own (no array of
flags), then read unchecked; one its bounds already prove in range is left alone (window
positions made of ranges stay ranges, not a table of every position). Every program is also
run by NumPy: results, dtypes, Python types, arguments after the call, and the IndexError
(its message, nothing written) where NumPy raises.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.indexing import HOISTED_CHECK_MIN as BIG
from jitcore.passes.effects import _bounds, decided_comparison
from tests.budget import examples

warnings.simplefilter("ignore")

# Each hypothesis example below is one call; the compiled signatures are few (fixed lengths,
# data kind and index dtype drawn from short lists): a cut under ``ci`` drops values, not kinds.
SOME = settings(max_examples=examples(30, ci=10), deadline=None)


def gate(psi, U, n):
    """One layer of the bit-trick state-vector gate, as users write it (timing2.py)."""
    for q in range(n):
        stride = 1 << (n - 1 - q)
        idx = np.arange(2 ** n)
        lo = idx[(idx & stride) == 0]
        hi = lo + stride
        a, b = psi[lo], psi[hi]
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


def write_selected(x, idx, m, v):
    x[idx[m]] = v[m]
    return x


JITTED = {}


def _jit(f, static=()):
    if (f, static) not in JITTED:
        JITTED[f, static] = jc.jit(f, static_argnums=static)
    return JITTED[f, static]


def _compare(f, *args, static=()):
    """Run ``f`` jitted and plain on copies; compare results, dtypes, types, arguments after
    the call, and the error raised."""
    plain_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    jit_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        expected = f(*plain_args)
    except IndexError as e:
        with pytest.raises(IndexError) as got:
            _jit(f, static)(*jit_args)
        assert str(got.value) == str(e)
        for a, b in zip(plain_args, jit_args):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)  # nothing written before the error
        return
    result = _jit(f, static)(*jit_args)
    assert type(result) is type(expected)
    if isinstance(expected, (np.ndarray, np.generic)):
        assert result.dtype == expected.dtype
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)
    for a, b in zip(plain_args, jit_args):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)


DATA = {"f8": np.float64, "c16": np.complex128, "i8": np.int64, "b": np.bool_}
INDEX = [np.int32, np.int64]


def _data(kind, n, seed):
    rs = np.random.default_rng(seed)
    if kind == "c16":
        return rs.standard_normal(n) + 1j * rs.standard_normal(n)
    if kind == "b":
        return rs.random(n) < 0.5
    return (rs.standard_normal(n) * 100).astype(DATA[kind])


# ---- the gate: results, and no range check left in its loop --------------------------------

@pytest.mark.parametrize("n", [3, 6])
def test_gate_matches_numpy(n):
    rs = np.random.default_rng(n)
    psi = rs.standard_normal(2 ** n) + 1j * rs.standard_normal(2 ** n)
    U = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)
    _compare(gate, psi, U, n, static=(2,))


def test_gate_needs_no_range_check():
    """n=12 rolls the qubit loop (an ``scf.for``): its partner index ``lo + stride`` is proved
    in range by ``idx & stride == 0``, so no check and no error branch is left for the gathers
    of ``psi[lo]`` and ``psi[hi]`` (main: 12 checks, 16 error branches, 34 kernels, 2 raises
    per step)."""
    n = 12
    text = jc.jit(gate, static_argnums=2).lower(np.zeros(2 ** n, complex), np.eye(2, dtype=complex),
                                                n).as_text("optimized")
    loop = text[text.index('"scf.for"'):]
    assert "kernel.check_index" not in loop  # (gather50: 2, the scatters' writes)
    assert "array.callback" not in loop and "kernel.raise" not in loop  # (gather50: 4 and 1)
    # (gather50: 20; gather51: 12; gate51: 17, the mask's compaction, its count and the
    # positions read through it, the gathers and scatters then over the count alone)
    assert loop.count('"kernel.generic"') <= 17
    # psi[0], written back where nothing is kept, is one element kept out of the scatter, not
    # broadcast to 2**n elements in a kernel of its own (before: one per scatter)
    assert f"affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} : " \
        f"(tensor<{2 ** n}x" not in loop


# ---- the bounds and the comparisons they decide --------------------------------------------

def test_compare_decided_by_bounds_folds():
    def f(x):
        i = np.arange(16)
        j = np.where(i < 0, i + 16, i)  # i is never negative: the comparison folds to False
        return x[j]
    text = jc.jit(f).lower(np.zeros(16)).as_text("optimized")
    assert "check_index" not in text and "arith.cmpi" not in text


@pytest.mark.parametrize("k, bit, dt", [(4, 0, np.int64), (4, 3, np.int32), (4, 4, np.int64),
                                        (6, 7, np.int32)])
def test_disjoint_bits_sum_in_range(k, bit, dt):
    """``idx + s`` under ``idx & s == 0`` stays below ``2**k`` for ``s < 2**k``; for a bit at
    or above ``k`` the sum leaves the range: the check stays and raises as NumPy does."""
    s = 1 << bit

    def f(x):
        idx = np.arange(2 ** k, dtype=dt)
        lo = idx[(idx & s) == 0]
        return x[lo + s]
    _compare(f, np.arange(2 ** k, dtype=np.float64))


@pytest.mark.parametrize("k, bit", [(4, 0), (4, 2), (5, 5)])
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


@pytest.mark.parametrize("k, bit", [(4, 1), (5, 3)])
@pytest.mark.parametrize("test", ["==", "!="])
def test_a_write_to_the_partner_is_checked_where_the_bit_is_set(k, bit, test):
    """``x[lo + s] = v`` for ``lo = idx[(idx & s) == 0]`` is proved in range (its check folds,
    ``keep & (lo + s >= n)`` is False under ``keep``); for ``(idx & s) != 0`` the sum carries
    past ``2**k`` and NumPy's IndexError must be raised with nothing written."""
    def f(x, bit):
        s = 1 << (bit & 3)  # traced (the selection's length is not known while tracing), below 16
        idx = np.arange(2 ** k)
        lo = idx[(idx & s) == 0] if test == "==" else idx[(idx & s) != 0]
        x[lo + s] = -1.0
        return x
    _compare(f, np.arange(2 ** k, dtype=np.float64), np.int64(bit))


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
    return [array.ConstantOp((), [t], {"value": DenseAttr(np.array(v, dtype=np.int64), t)}).result
            for v in (a, b)]


# ---- differential: gathers and scatters by small index arrays ------------------------------

# 8 indices into 10 elements: in range, negative, out of range on both sides, repeated
indices8 = st.lists(st.integers(-12, 11), min_size=8, max_size=8)
EDGES = [[], [0] * 8, [-10, 9, -1, 0, 5, -5, 9, -10], [3, 10, 0, 0, 0, 0, 0, 0],
         [0, 1, 2, 3, 4, 5, 6, -11]]


@SOME
@given(indices8, st.sampled_from(sorted(DATA)), st.sampled_from(INDEX))
def test_gather_sum_matches_numpy(idx, kind, it):
    _compare(gather_sum, _data(kind, 10, 0), np.array(idx, dtype=it))


@SOME
@given(indices8, st.sampled_from(sorted(DATA)), st.sampled_from(INDEX))
def test_scatter_last_write_wins_and_errors_write_nothing(idx, kind, it):
    _compare(scatter_set, _data(kind, 10, 3), np.array(idx, dtype=it), _data(kind, 8, 4))


@pytest.mark.parametrize("idx", EDGES)
@pytest.mark.parametrize("kind", sorted(DATA))
def test_small_index_edges_match_numpy(idx, kind):
    """Empty, all repeated (a scatter's last write wins), every negative, the first bad index
    named (too high, too low) with nothing written."""
    it = np.int32 if kind in ("b", "c16") else np.int64
    idx = np.array(idx, dtype=it)
    _compare(gather_sum, _data(kind, 10, 0), idx)
    _compare(scatter_set, _data(kind, 10, 3), idx, _data(kind, len(idx), 4))
    if kind != "b":
        _compare(gather_scale, _data(kind, 10, 1), idx, _data(kind, len(idx), 2))
    if kind == "f8":
        _compare(wrapped_gather, _data(kind, 10, 5), idx)


# ---- a write through selected indices: in place, not a copy of the target ------------------

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


def test_an_elementwise_update_of_a_slice_stays_one_kernel_in_place():
    """Only a scatter (``kernel.insert``) keeps reads of its target out: ``U[1:-1, 1:-1] += 1``
    reads each element where it writes it, one kernel (gather50 made it two)."""
    def step(U):
        U[1:-1, 1:-1] += 1
        return U
    text = jc.jit(step).lower(np.ones((4, 5))).as_text("optimized")
    assert text.count('"kernel.generic"') == 1
    _compare(step, np.arange(20.0).reshape(4, 5))


@pytest.mark.parametrize("idx, m", [
    ([3, 12, 3, -11, 0, 9, -10, 5], [1, 0, 1, 0, 1, 1, 1, 1]),  # the bad ones dropped
    ([3, 12, 3, -11, 0, 9, -10, 5], [1, 1, 1, 1, 1, 1, 1, 1]),  # the first kept bad one named
    ([3, 4, 3, 4, -1, -1, 2, 2], [1, 1, 1, 1, 1, 1, 0, 1]),  # repeated: the last write wins
    ([20, 20, 20, 20, 20, 20, 20, 20], [0, 0, 0, 0, 0, 0, 0, 0]),  # none kept: nothing written
])
def test_selected_write_edges_match_numpy(idx, m):
    """The scatter of ``x[idx[m]] = v[m]`` checks nothing (its indices are clipped after the
    check of the kept ones): a bad index is still NumPy's IndexError with nothing written."""
    for kind in ("f8", "c16"):
        _compare(write_selected, _data(kind, 10, 6), np.array(idx), np.array(m, bool), _data(kind, 8, 7))


def test_selected_write_checks_nothing_in_the_scatter():
    args = np.zeros(64), np.arange(64), np.ones(64, bool), np.ones(64)
    text = jc.jit(write_selected).lower(*args).as_text("optimized")
    assert "kernel.check_index" not in text  # main: the scatter checked every write


@SOME
@given(st.lists(st.tuples(st.integers(-12, 11), st.booleans()), min_size=8, max_size=8),
       st.sampled_from(["f8", "c16", "i8", "b"]))
def test_selected_write_matches_numpy(pairs, kind):
    idx = np.array([p[0] for p in pairs], dtype=np.int64)
    m = np.array([p[1] for p in pairs], dtype=bool)
    _compare(write_selected, _data(kind, 10, 6), idx, m, _data(kind, 8, 7))


# ---- large index arrays: checked by a pass of their own, then read unchecked ---------------

def test_large_gather_fuses_into_its_consumer_with_no_flags_array():
    """``x[idx].sum()`` and ``t[i] * 2 + x`` over large index arrays: the check runs first, as
    one argmax that computes the comparison itself (no array of flags: the first bad index is
    tested again from its value), and the gather, checking nothing, is read inside the sum and
    the arithmetic (no ``x[idx]`` array). Main kept the checks in the gather (a kernel of its
    own); gather50 wrote a flag per index and read it back."""
    x, idx = np.zeros(BIG), np.zeros(BIG, dtype=np.int64)
    text = jc.jit(gather_sum).lower(x, idx).as_text("optimized")
    assert "kernel.check_index" not in text
    assert f"tensor<{BIG}xi1>" not in text
    kernels = text.split('"kernel.generic"(')[1:]
    assert len(kernels) == 3  # the argmax, the raise, the sum
    assert any("kernel.extract" in k and '"reduction"' in k.split("iterator_types")[1][:40]
               for k in kernels)
    text = jc.jit(gather_scale).lower(x, idx, x).as_text("optimized")
    assert "kernel.check_index" not in text and f"tensor<{BIG}xi1>" not in text
    assert text.count('"kernel.generic"(') == 3  # the argmax, the raise, t[i] * 2 + x


def test_window_positions_are_not_checked_first():
    """An index array already proved in range (window positions made of two ranges) is not
    checked again: clipping it made its ranges one constant table of every position."""
    def f(x):
        i = np.arange(BIG)[:, None] + np.arange(4)[None, :]
        return x[i].sum(-1)
    x = np.arange(BIG + 3.0)
    text = jc.jit(f).lower(x).as_text("optimized")
    assert "kernel.raise" not in text
    sizes = [int(np.prod([int(d) for d in m.split("x")[:-1]] or [1]))
             for m in re.findall(r'"array.constant".*?tensor<([0-9x]*x?[a-z0-9]+)>', text)]
    assert max(sizes, default=0) <= BIG + 3, sizes
    _compare(f, x)


@pytest.mark.parametrize("bad", [None, -BIG - 3, BIG, 10 ** 9])
@pytest.mark.parametrize("kind, it", [("f8", np.int64), ("c16", np.int32), ("b", np.int32)])
def test_large_gather_matches_numpy(bad, kind, it):
    """In range and negative indices, and out of range (the first bad one in the message,
    a later bad one too): above the threshold, where the check runs first."""
    rs = np.random.default_rng(BIG)
    x = _data(kind, BIG, 8)
    idx = rs.integers(-BIG, BIG, BIG + 1)
    if bad is not None:
        idx[[5000, 9000]] = bad, -bad
    _compare(gather_sum, x, idx.astype(it))
    if kind != "b":
        _compare(gather_scale, x, idx.astype(it), _data(kind, BIG + 1, 9))
