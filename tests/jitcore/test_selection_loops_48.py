"""For loops over selections whose length the data chooses (``for i in np.flatnonzero(m)``,
``for v in x[x > 0]``, ``for (i, j) in np.argwhere(a)``, ``enumerate`` of one): compiled as a
loop over the kept rows' count, one variant for every size, against plain NumPy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitTypeError


def squares_of_positives(x):
    t = 0.0
    for v in x[x > 0]:
        t = t + v * v
    return t


def doubled_until(x, thr):
    out = np.zeros_like(x)
    for i in np.flatnonzero(x > thr):
        out[i] = x[i] * 2
        if x[i] > 2.5:
            break
    return out


def weighted_cells(occ):
    s = 0
    for (i, j) in np.argwhere(occ):
        s += i * 3 + j
    return s


def numbered(x, start):
    s = 0
    for k, i in enumerate(np.where(x > 0)[0], start):
        s += k * i
    return s


def rows_kept(X):
    acc = np.zeros(X.shape[1])
    for row in X[X[:, 0] > 0]:
        acc += row
    return acc


def neighbours(A):
    deg = np.zeros(A.shape[0], dtype=np.int64)
    for i in range(A.shape[0]):
        for j in np.flatnonzero(A[i] > 0.5):
            deg[j] += i
    return deg


def last_position(x):
    i = -1
    for i in np.flatnonzero(x):  # noqa: B007  (the last one, after the loop)
        pass
    return i


FUNCTIONS = {f.__name__: jc.jit(f) for f in (squares_of_positives, doubled_until, weighted_cells,
                                              numbered, rows_kept, neighbours, last_position)}
floats = st.lists(st.floats(-4, 4, allow_nan=False, width=64), min_size=0, max_size=40).map(np.array)


def _same(got, want):
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype


@settings(max_examples=25, deadline=None)
@given(floats, st.floats(-1, 1, allow_nan=False))
def test_values_and_positions_of_any_data_match_numpy(x, thr):
    x = x.astype(np.float64)
    _same(FUNCTIONS["squares_of_positives"](x), squares_of_positives(x))
    _same(FUNCTIONS["doubled_until"](x, thr), doubled_until(x, thr))
    _same(FUNCTIONS["numbered"](x, 3), numbered(x, 3))
    _same(FUNCTIONS["last_position"](x), last_position(x))


@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (5, 4), (9, 2)])
def test_argwhere_rows_and_nested_loops_match_numpy(shape):
    rng = np.random.default_rng(sum(shape))
    occ = rng.random(shape) > 0.5
    _same(FUNCTIONS["weighted_cells"](occ), weighted_cells(occ))
    X = rng.standard_normal(shape)
    _same(FUNCTIONS["rows_kept"](X), rows_kept(X))
    A = rng.random((shape[0], shape[0]))
    _same(FUNCTIONS["neighbours"](A), neighbours(A))


def test_one_variant_serves_every_size():
    f = jc.jit(squares_of_positives)
    for n in (100, 200, 300):
        x = np.random.default_rng(n).standard_normal(n)
        _same(f(x), squares_of_positives(x))
    assert f.cache_info().compiles == 1


def test_a_comprehension_over_a_selection_is_still_refused_clearly():
    def f(x):
        return [v * 2 for v in x[x > 0]]

    with pytest.raises(JitTypeError, match="depends on the data"):
        jc.jit(f)(np.ones(4))
