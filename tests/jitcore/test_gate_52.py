"""The single-qubit gate of a state-vector simulator, in the forms users write it (gate52).

- Bit tests over ``np.arange`` (``(idx >> q) & 1 == 0``, ``idx & (1 << q) == 0``, their ``!=``
  and ``== 1`` forms) select their kept positions in closed form (``jitcore/bit_positions.py``):
  gathers and scatters through ``idx[m]`` compute each index from the row number, with no
  compaction; every ``q``, traced or a loop's counter, negative and past the width included.
- ``x + (1 << q)`` under ``(x >> q) & 1 == 0`` is proved in range (``effects._disjoint_sum``):
  the gate's loop checks nothing.
- A broadcast element taken out of the loop (``U[0, 0]``) is read, not stored as an array
  (``fuse._broadcasts_elements``).
- ``np.tensordot`` / ``np.einsum`` whose result axes are then moved write them in that order
  (``passes/permuted_results.py``): one kernel, no copy.

NumPy is the oracle: values (bit for bit where the arithmetic is elementwise), dtypes, the
arguments after the call, and its IndexError. Few sizes, so each program compiles once.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import jitcore as jc
from jitcore.compacted_indices import COMPACT_MIN

warnings.simplefilter("ignore")

N_BITS = 12  # 4096 positions: COMPACT_MIN, compacted (the closed form) at every q
assert 1 << N_BITS >= COMPACT_MIN
H = (np.array([[1, 1], [1, -1]]) / np.sqrt(2)).astype(np.complex128)
U = np.array([[0.6 + 0.1j, -0.3j], [0.2 - 0.5j, 0.7 + 0.2j]])


def apply_gate(psi, U, q, n):
    idx = np.arange(2**n)
    m = (idx >> q) & 1 == 0
    lo = idx[m]
    hi = lo + (1 << q)
    a = psi[lo]
    b = psi[hi]
    psi[lo] = U[0, 0] * a + U[0, 1] * b
    psi[hi] = U[1, 0] * a + U[1, 1] * b
    return psi


def every_qubit(psi, U, n):
    for q in range(n):
        psi = apply_gate(psi, U, q, n)
    return psi


# One gate, q traced (an argument): each test form of the bit, kept clear or set.
def clear_by_shift(x, q):
    idx = np.arange(x.shape[0])
    lo = idx[(idx >> q) & 1 == 0]
    x[lo] = x[lo] * 2 + 1
    return x


def set_by_shift(x, q):
    idx = np.arange(x.shape[0])
    return x[idx[(idx >> q) & 1 == 1]] * 3


def set_by_mask(x, q):
    idx = np.arange(x.shape[0], dtype=np.int32)
    sel = idx[idx & (1 << q) != 0]
    x[sel] = -x[sel]
    return x


def partner_below(x, q):
    """Indices counted from the end (negative: NumPy wraps them)."""
    idx = np.arange(x.shape[0])
    hi = idx[(idx >> q) & 1 == 1]
    return x[hi - x.shape[0]] + x[hi - (1 << q)]


def past_the_end(x, q):
    """``x`` half as long as the positions: NumPy's IndexError unless q leaves them in range."""
    idx = np.arange(2 * x.shape[0])
    return x[idx[(idx >> q) & 1 == 0]]


JITTED = {}


def _jit(f, static=()):
    if (f, static) not in JITTED:
        JITTED[f, static] = jc.jit(f, static_argnums=static)
    return JITTED[f, static]


def _run(f, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        out = f(*args)
    except IndexError as e:
        out = e
    return out, args


def _compare(f, *args, static=()):
    want, want_args = _run(f, args)
    got, got_args = _run(_jit(f, static), args)
    if isinstance(want, Exception):
        assert isinstance(got, IndexError) and str(got) == str(want)
    else:
        assert not isinstance(got, Exception), got
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)


def _state(n, seed=0):
    rs = np.random.default_rng(seed)
    return rs.standard_normal(2**n) + 1j * rs.standard_normal(2**n)


def test_every_qubit_matches_numpy():
    """The rolled loop over q in [0, n): bit for bit (each element is NumPy's arithmetic)."""
    for gate in (H, U):
        _compare(every_qubit, _state(N_BITS), gate, N_BITS, static=(2,))


# q at the first and last bit, past the positions' bits, past the width, negative
QS = (0, 7, N_BITS - 1, N_BITS, 63, 64, -1)


@pytest.mark.parametrize("program", [clear_by_shift, set_by_shift, set_by_mask, partner_below])
def test_traced_bit_matches_numpy(program):
    x = np.arange(2.0**N_BITS) - 7.5
    for q in QS:
        _compare(program, x, np.int64(q))


def test_index_error_matches_numpy():
    x = np.arange(2.0 ** (N_BITS - 1))
    for q in (N_BITS - 1, N_BITS - 2, 0, N_BITS, -1):  # in range only for q = n - 1
        _compare(past_the_end, x, np.int64(q))


def _loop_body(text: str) -> str:
    return text[text.index('"scf.for"'):]


@pytest.mark.parametrize("n", [N_BITS, 17])  # (17: above FOLD_LIMIT, the arange no scan folds to)
def test_the_gate_loop_compacts_and_checks_nothing(n):
    """Per step: the count, the two updates' gathers (two kernels), the two updates, the two
    scatters and their one-element fallbacks, all over the kept count; no compaction, no
    index check, no error branch, no array of indices or of ``U``'s elements."""
    text = _jit(every_qubit, (2,)).lower(_state(n), H, n).as_text("optimized")
    body = _loop_body(text)
    assert "compaction = true" not in text and "array.compact" not in text
    assert "kernel.raise" not in body and "array.callback" not in body and "check_index" not in body
    assert body.count('"kernel.generic"') <= 10
    wide = re.findall(rf"domain = \[{2**n}\]", body)
    bounded = re.findall(rf"domain = \[{2**n}\], head = ", body)
    assert len(wide) == len(bounded) == 6  # every kernel of 2^n points runs over the count
    # no kernel stores one of U's elements broadcast to 2^n points (licm takes it out of the loop)
    assert not re.search(r"indexing_maps = \[affine_map<\(d0\) -> \(\d, \d\)>, "
                         r"affine_map<\(d0\) -> \(d0\)>\]", text)


def reshape_einsum(psi, U, q, n):
    return np.einsum("ij,ajb->aib", U, psi.reshape(2 ** (n - q - 1), 2, 2**q)).reshape(-1)


def reshape_tensordot(psi, U, q, n):
    p = psi.reshape(2 ** (n - q - 1), 2, 2**q)
    return np.moveaxis(np.tensordot(U, p, axes=([1], [1])), 0, 1).reshape(-1)


def real_tensordot(x, w):
    return np.moveaxis(np.tensordot(w, x, axes=([1], [1])), 0, 2)


@pytest.mark.parametrize("program", [reshape_einsum, reshape_tensordot])
def test_moved_contraction_is_one_kernel(program):
    n, q = 10, 3
    psi = _state(n)
    got = _jit(program, (2, 3))(psi, U, q, n)
    want = program(psi, U, q, n)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    text = _jit(program, (2, 3)).lower(psi, U, q, n).as_text("optimized")
    assert text.count('"kernel.generic"') == 1


def test_moved_real_contraction_matches_numpy():
    """A float32 contraction whose result axes are moved (a code generator may call BLAS on
    it): the permuted result's layout is honoured."""
    rs = np.random.default_rng(3)
    x = rs.standard_normal((5, 7, 6)).astype(np.float32)
    w = rs.standard_normal((4, 7)).astype(np.float32)
    got = _jit(real_tensordot)(x, w)
    want = real_tensordot(x, w)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)
