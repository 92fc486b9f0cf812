"""Index arrays selected by a mask, compacted at their run-time length (gate51).

``x[idx[m]]``, ``x[np.nonzero(m)[0]]``, ``x[np.flatnonzero(m)]`` and ``x[idx[m]] = v`` with
``COMPACT_MIN`` positions or more compact the kept positions once and gather or scatter over
the count only (``jitcore/compacted_indices.py``: ``array.head_gather`` / ``head_scatter`` /
``head_rows``, their kernels' dim 0 bounded by the count, ``kernel.HEAD``). Every program is
also run by NumPy: values, dtypes, Python types, the arguments after the call, and NumPy's
IndexError (its message, nothing written) where it raises. One length per program, so each
signature compiles once; the masks (none, one, all, random) and values vary per call.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.compacted_indices import COMPACT_MIN
from tests.budget import examples

warnings.simplefilter("ignore")

N = COMPACT_MIN + 904  # (5000: compacted)
SOME = settings(max_examples=examples(20, ci=6), deadline=None)


def gather(x, idx, m):
    return x[idx[m]]


def gather_scaled(x, idx, m):
    return x[idx[m]] * 2 + 1


def gather_nonzero(x, m):
    return x[np.nonzero(m)[0]] * 2


def gather_flatnonzero(x, m):
    return x[np.flatnonzero(m)]


def scatter_value(y, idx, m, v):
    y[idx[m]] = v
    return y


def scatter_selected(y, idx, m, v):
    y[idx[m]] = v[m]
    return y


def gate(psi, U, n):
    """The bit-trick state-vector gate (timing2.py): a rolled loop where n is large enough."""
    for q in range(n):
        stride = 1 << (n - 1 - q)
        idx = np.arange(2 ** n)
        lo = idx[(idx & stride) == 0]
        hi = lo + stride
        a, b = psi[lo], psi[hi]
        psi[lo] = U[0, 0] * a + U[0, 1] * b
        psi[hi] = U[1, 0] * a + U[1, 1] * b
    return psi


JITTED = {}


def _jit(f, static=()):
    if (f, static) not in JITTED:
        JITTED[f, static] = jc.jit(f, static_argnums=static)
    return JITTED[f, static]


def _run(f, args):
    """(result or the exception, the arguments after the call)."""
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
        assert isinstance(got, type(want)) and str(got) == str(want)  # (JitIndexError is one)
    else:
        assert type(got) is type(want) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)  # (nothing written where NumPy raises)


def _masks(rs, n):
    """None kept, one (first, last), all, and random ones."""
    one_first, one_last = np.zeros(n, bool), np.zeros(n, bool)
    one_first[0] = one_last[-1] = True
    return [np.zeros(n, bool), one_first, one_last, np.ones(n, bool), rs.random(n) < 0.5,
            rs.random(n) < 0.01]


@pytest.mark.parametrize("kind", [np.int64, np.int32])
def test_edges_match_numpy(kind):
    rs = np.random.default_rng(0)
    x = rs.standard_normal(N)
    idx = rs.integers(-N, N, N).astype(kind)  # negative ones count from the end
    v = rs.standard_normal(N)
    for m in _masks(rs, N):
        _compare(gather, x, idx, m)
        if kind is np.int64:  # (one more compile per program: int32 gathers only)
            _compare(scatter_value, x, idx, m, 7.5)
            _compare(scatter_selected, x, idx, m, v)
    if kind is np.int64:
        _compare(gather_nonzero, x, _masks(rs, N)[4])


def test_duplicates_and_complex():
    """Repeated positions: the last kept write wins, as NumPy's; complex rows gathered whole."""
    rs = np.random.default_rng(1)
    y = rs.standard_normal(N) + 1j * rs.standard_normal(N)
    idx = rs.integers(0, 50, N)  # ~100 writes per position
    m = rs.random(N) < 0.3
    _compare(scatter_selected, y, idx, m, np.arange(N) * (1 + 1j))
    _compare(gather_scaled, y, idx, m)


def test_out_of_range_raises_as_numpy():
    """A kept index out of range: NumPy's IndexError, nothing written; a dropped one: fine."""
    rs = np.random.default_rng(2)
    x = rs.standard_normal(N)
    idx = rs.integers(0, N, N)
    m = rs.random(N) < 0.5
    bad = idx.copy()
    k = int(np.flatnonzero(m)[7])
    for value in (N, -N - 1, 10 * N):
        bad[k] = value
        _compare(gather, x, bad, m)
        _compare(scatter_value, x, bad, m, 1.0)
        _compare(scatter_selected, x, bad, m, x)
        dropped = bad.copy()
        dropped[k], dropped[~m] = idx[k], N + 5  # every dropped index out of range
        _compare(gather, x, dropped, m)
        _compare(scatter_value, x, dropped, m, 1.0)


@SOME
@given(seed=st.integers(0, 2 ** 32 - 1), p=st.sampled_from([0.0, 0.001, 0.5, 0.97, 1.0]))
def test_random_masks_match_numpy(seed, p):
    rs = np.random.default_rng(seed)
    x = rs.standard_normal(N)
    idx = rs.integers(-N, N, N)
    m = rs.random(N) < p
    _compare(gather_scaled, x, idx, m)
    _compare(scatter_selected, x, idx, m, rs.standard_normal(N))
    _compare(gather_flatnonzero, np.concatenate([x, x]), m)


@pytest.mark.parametrize("n", [12, 13])
def test_gate_matches_numpy(n):
    rs = np.random.default_rng(n)
    psi = rs.standard_normal(2 ** n) + 1j * rs.standard_normal(2 ** n)
    U = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)
    want = gate(psi.copy(), U, n)
    got = _jit(gate, (2,))(psi.copy(), U, n)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _kernels(text):
    """Each kernel's attributes line."""
    return re.findall(r'\}\) \{[^\n]*iterator_types[^\n]*', text)


def test_gathers_and_scatters_run_over_the_count():
    """The plan: the gather and the scatter through the compacted index carry ``head``, the
    number of their count input (a 0-d integer), so their loop runs over the count; the index
    array is compacted once (one ``compaction`` loop) for the gather and the scatter."""
    def both(x, y, idx, m):
        lo = idx[m]
        y[lo] = x[lo] * 3
        return y

    x = np.zeros(N)
    text = jc.jit(both).lower(x, x, np.arange(N), np.ones(N, bool)).as_text("optimized")
    kernels = _kernels(text)
    heads = [k for k in kernels if "head = " in k]
    scatters = [k for k in heads if "copy_inputs" in k]
    assert scatters and len(heads) >= 2, kernels  # the scatter, and the gather (fused or not)
    assert text.count("compaction = true") == 1
    for k in heads:
        head = int(re.search(r"head = (\d+)", k).group(1))
        maps = re.search(r"indexing_maps = \[(.*?)\], iterator", k).group(1).split("affine_map")[1:]
        assert maps[head].startswith("<(d0) -> ()>"), k  # (a count, read at one element)
    # below COMPACT_MIN positions, the masked form: no kernel bounded by a count
    small = jc.jit(both).lower(x[:64], x[:64], np.arange(64), np.ones(64, bool)).as_text("optimized")
    assert "head = " not in small


def test_gate_scatters_run_over_the_count():
    n = 12
    text = _jit(gate, (2,)).lower(np.zeros(2 ** n, complex), np.eye(2, dtype=complex), n).as_text()
    loop = text[text.index('"scf.for"'):]
    scatters = [k for k in _kernels(loop) if "copy_inputs" in k]
    assert len(scatters) == 2 and all("head = " in k for k in scatters)
