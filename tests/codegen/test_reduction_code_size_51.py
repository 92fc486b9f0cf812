"""A full reduction's whole pieces and its last piece share one copy of the code
(``full_reduction.Pieces.emit_piece``, ``reduction._Cascade.emit_any_piece``), and a
cascade's merges of lanes that are not one vector are a loop over the lanes
(``reduction.LANE_LOOPS``): the same results as NumPy, and the same bits as the code before
(both switches off)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitcore as jc
from jitcore.codegen.cpu import full_reduction, reduction
from tests.budget import examples


def least(x):
    return x.min()


def most(x):
    return x.max()


def arg_least(x):
    return np.argmin(x)


def arg_most(x):
    return np.argmax(x)


def total(x):
    return x.sum()


_SHARED, _OWN = {}, {}


def _call(fn, x, shared: bool):
    """``fn`` jitted once per dtype, its pieces' code shared or in two copies."""
    table = _SHARED if shared else _OWN
    key = (fn.__name__, x.dtype.str)
    saved = full_reduction.SHARED_PIECE_CODE, reduction.LANE_LOOPS
    full_reduction.SHARED_PIECE_CODE = reduction.LANE_LOOPS = shared
    try:
        jitted = table.setdefault(key, jc.jit(fn, cache=False))
        return jitted(x)
    finally:
        full_reduction.SHARED_PIECE_CODE, reduction.LANE_LOOPS = saved


def _check(fn, x):
    copy = x.copy()
    got, own, want = _call(fn, x, True), _call(fn, x, False), fn(x)
    assert type(got) is type(want)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.asarray(got).tobytes() == np.asarray(own).tobytes()  # the two copies' bits
    if fn in (arg_least, arg_most):
        assert got == want
    elif np.iscomplexobj(x):
        np.testing.assert_allclose([got.real, got.imag], [want.real, want.imag], rtol=1e-12)
    else:  # max and min do not round; the sign of a zero is unspecified, as in NumPy
        assert (np.isnan(got) and np.isnan(want)) or got == want
    assert x.tobytes() == copy.tobytes()


# float64: a piece is at least 2048 elements, float32 4096: whole pieces with no last piece,
# with a short or a long last one, many pieces (10**5)
SIZES = (3000, 3 * 4096, 3 * 4096 + 7, 2 * 4096 + 3000, 10**5 + 3)


def _with(n, dtype, where, value):
    x = np.random.default_rng(n).standard_normal(n).astype(dtype)
    if dtype == np.complex128:
        x = x + 1j * np.random.default_rng(n + 1).standard_normal(n)
    if where is not None:
        x[where % n] = value
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", [least, most, arg_least, arg_most])
def test_pieces_edge_batch(fn, dtype):
    for n in SIZES:
        _check(fn, _with(n, dtype, None, 0))
        for where in (5, n - 2):  # in a whole piece, in the last piece
            for value in (np.nan, 0.0, -0.0, np.inf, -np.inf):
                _check(fn, _with(n, dtype, where, value))
        # zeros of both signs as the extreme (which one a tie gives depends on the order)
        x = np.abs(_with(n, dtype, None, 0)) + 1
        x[::7], x[3::7] = -0.0, 0.0
        _check(fn, x if fn in (least, arg_least) else -x)
        # a zero sends a whole piece's lanes to the documented order; its extreme lies elsewhere
        # in that piece, past its first half
        x = np.abs(_with(n, dtype, None, 0)) + 1
        x[5], x[1900] = 0.0, -5.0
        _check(fn, x if fn in (least, arg_least) else -x)


@pytest.mark.parametrize("fn", [total, arg_least])
def test_complex_in_pieces(fn):
    for n in (3000, 3 * 2048, 3 * 2048 + 5, 10**5 + 3):
        _check(fn, _with(n, np.complex128, None, 0))
        _check(fn, _with(n, np.complex128, n - 2, complex(np.nan, 1.0)))
        _check(fn, _with(n, np.complex128, 7, complex(-np.inf, 0.0)))


def test_empty_min_raises_as_numpy_does():
    with pytest.raises(ValueError):
        least(np.zeros(0))
    with pytest.raises(ValueError):
        _call(least, np.zeros(0), True)


@settings(max_examples=examples(40, 12), deadline=None)
@given(st.sampled_from([least, most, arg_most]),
       hnp.arrays(np.float64, st.integers(1, 9000),
                  elements=st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 3.0])))
def test_pieces_any_length(fn, x):
    _check(fn, x)


def test_one_copy_of_the_pieces_code():
    x = np.zeros(3000)
    sizes = {}
    for shared in (True, False):
        saved = full_reduction.SHARED_PIECE_CODE
        full_reduction.SHARED_PIECE_CODE = shared
        try:
            sizes[shared] = len(jc.jit(least, cache=False).lower(x).as_text("llvm"))
        finally:
            full_reduction.SHARED_PIECE_CODE = saved
    # (0.75: since session 55 the zero-or-NaN recheck each copy carries is a quarter as long)
    assert sizes[True] < 0.75 * sizes[False]


def test_lane_merges_are_one_loop():
    x = np.zeros(3000, np.complex128)
    sizes = {}
    for loops in (True, False):
        saved = reduction.LANE_LOOPS
        reduction.LANE_LOOPS = loops
        try:
            sizes[loops] = len(jc.jit(total, cache=False).lower(x).as_text("llvm"))
        finally:
            reduction.LANE_LOOPS = saved
    assert sizes[True] < 0.7 * sizes[False]
