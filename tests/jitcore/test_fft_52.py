"""Real transforms along an axis that is not the last (fft52): ``rfft``/``irfft`` (and
``ihfft``/``hfft``, ``rfftn``'s real axis) with ``axis=0`` or a middle axis run in place
over the lanes after the axis, as fft51's complex columns do: the even-length packing, the
post-processing that pairs terms ``k`` and ``m - k``, and irfft's real stages and interleave
all read and write whole lines of lanes, with no transposed copy. Against NumPy: values (the
FFT bound of tests/jitcore/test_fft.py's ``assert_spectrum``), dtypes and shapes, for odd,
even and tiny lengths, cut and padded ``n``, ``norm=``, lanes of several axes, lanes too few
for the lane path (below 16) and lengths through Bluestein's algorithm (which move the axis
last, as before), NaN and infinity.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.jitcore.test_fft import assert_spectrum
from tests.jitcore.test_fft_layouts_51 import _kernels, _optimized, _transposing

RNG = np.random.default_rng(52)


def _complex(shape, dtype=np.complex128) -> np.ndarray:
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def test_real_columns_need_no_transposed_copy():
    """rfft and irfft along axis 0 of 64x32 (even: packed; the irfft's interleave) and 45x32
    (odd: real first and cut last stages; irfft's real stages), and rfftn's real axis first:
    no kernel reads or writes its operand transposed. Before, each moved the axis last and
    back (a transposed copy, or a transposed write, each way)."""

    def fn(x, y, c, d):
        return (np.fft.rfft(x, axis=0), np.fft.rfft(y, axis=0), np.fft.irfft(c, axis=0),
                np.fft.irfft(d, 45, axis=0), np.fft.rfftn(x, axes=(1, 0)))

    args = (np.zeros((64, 32)), np.zeros((45, 32)), np.zeros((33, 32), complex), np.zeros((23, 32), complex))
    kernels = _kernels(_optimized(fn, *args))
    assert not [k for k in kernels if _transposing(k)], kernels


def _real_columns(x, c, f, g):
    return (np.fft.rfft(x, axis=0, norm="ortho"), np.fft.rfft(x, 15, axis=0), np.fft.irfft(c, axis=0),
            np.fft.irfft(c, 15, axis=0, norm="forward"), np.fft.irfft(c, 1, axis=0),
            np.fft.irfft(c, 3, axis=0), np.fft.rfft(x, 17, axis=0), np.fft.ihfft(f, axis=1),
            np.fft.irfft(g, 6, axis=0))


def test_real_columns_against_numpy():
    """Along axis 0 of 20 lanes: rfft of even (12: packed) and odd (15 = 3 5: real first and
    cut last stages) lengths, irfft of even (16: the interleave) and odd lengths (15: real
    stages; 3; 1, which cast a complex result to real with a ComplexWarning), a padded length
    through Bluestein's algorithm (17: moved last), ``norm=``; ihfft along axis 1 of a 3-d
    float32 array (7 x 5 = 35 lanes of two axes: complex64) and a complex64 irfft along
    axis 0 (lanes of both others: float32)."""
    x, c = RNG.standard_normal((12, 20)), _complex((9, 20))
    f, g = RNG.standard_normal((3, 10, 7, 5)).astype(np.float32), _complex((6, 4, 5), np.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        got = jc.jit(_real_columns)(x, c, f, g)
    want = _real_columns(x, c, f.astype(np.float64), g.astype(np.complex128))
    axes = [(0,)] * 7 + [(1,), (0,)]
    dtypes = [None] * 7 + [np.complex64, np.float32]
    assert len(got) == len(want) == len(axes)
    for g_, w, a, d in zip(got, want, axes, dtypes):
        assert_spectrum(g_, w, a, d)


def test_few_lanes_and_non_finite():
    """Lanes below 16 (moved last, as before) beside lanes enough for the lane path, each
    with a NaN and an infinity in one lane: NumPy's non-finite lanes stay non-finite, the
    others within the bound."""
    x, y = RNG.standard_normal((16, 5)), RNG.standard_normal((16, 24))
    c = _complex((9, 24))
    y[3, 2], y[7, 9] = np.nan, np.inf
    c[0, 4], c[5, 11] = np.inf, np.nan

    def fn(x, y, c):
        return (np.fft.rfft(x, axis=0), np.fft.rfft(y, axis=0), np.fft.irfft(c, axis=0),
                np.fft.irfft(c, 15, axis=0))

    for got, want in zip(jc.jit(fn)(x, y, c), fn(x, y, c)):
        assert_spectrum(got, want, (0,))


@settings(max_examples=examples(4, ci=2), deadline=None)
@given(st.data())
def test_drawn_real_columns(data):
    """A drawn shape (lanes on both sides of 16), transform, ``n`` and ``norm``."""
    rows, cols = data.draw(st.integers(1, 30)), data.draw(st.integers(12, 40))
    name = data.draw(st.sampled_from(["rfft", "irfft"]))
    n = data.draw(st.one_of(st.none(), st.integers(1, 33)))
    norm = data.draw(st.sampled_from([None, "ortho", "forward"]))
    fn = getattr(np.fft, name)
    if name == "irfft" and n is None and rows == 1:
        rows = 2  # NumPy's irfft of one term has no default length
    x = RNG.standard_normal((rows, cols)) if name == "rfft" else _complex((rows, cols))
    assert_spectrum(jc.jit(lambda a: fn(a, n, 0, norm))(x), fn(x, n, 0, norm), (0,))


def test_pooled_scratch_stays_aligned():
    """The buffer pool hands out blocks at their first 64-byte boundary (its offset now kept
    per block, where reading ``ctypes.data`` each time cost a third of a pooled allocation,
    a dozen of which a 2-d transform's call makes): new blocks, reused ones, and new ones
    after the pool let go of the old (whose ids may come back)."""
    from jitcore import buffer_pool

    pool = buffer_pool.BufferPool()
    for size in (1 << 17, (1 << 17) + 24, 3 << 17):
        first = pool.empty((size // 16,), np.complex128, least=0)
        address = int(first.ctypes.data)
        del first
        again = pool.empty((size // 16,), np.complex128, least=0)
        reused = int(again.ctypes.data)
        assert reused == address and address % buffer_pool.ALIGN == 0
        del again
        pool.clear()
        fresh = [pool.empty((size // 8,), np.float64, least=0) for _ in range(3)]
        addresses = [int(a.ctypes.data) for a in fresh]
        assert all(a % buffer_pool.ALIGN == 0 for a in addresses), addresses


def test_column_stages_go_by_fours_in_cache():
    """A column transform whose data is under ``FOUR_RADIX_BELOW`` runs fours (64 points: 4 4 4,
    three stage kernels; an eight reloads its 8 inputs for each of its outputs across the
    lanes), one larger the row plan (64 x 4096 complex128, 4 MiB: 8 8, two kernels)."""
    from jitcore.numpy import fft_plan

    assert fft_plan.lane_radices(128) == [4, 4, 8] and fft_plan.lane_radices(64) == [4, 4, 4]
    assert fft_plan.lane_radices(96) == [4, 8, 3] and fft_plan.lane_radices(12) == [4, 3]
    small = _kernels(_optimized(lambda z: np.fft.fft(z, axis=0), np.zeros((64, 20), complex)))
    large = _kernels(_optimized(lambda z: np.fft.fft(z, axis=0), np.zeros((64, 4096), complex)))
    assert (len(small), len(large)) == (3, 2), (small, large)


def _rfft_along(axis: int):
    return lambda x: np.fft.rfft(x, axis=axis)


def test_rfft_packing_fuses_into_the_first_stage():
    """rfft of even length packs the even and odd samples as complex points inside its first
    stage's kernel (read as pairs after the stage's reshape), where the packing was a kernel
    and a buffer of its own: rows of 128 (two stages and the post-processing: three
    kernels), columns (axis 0 of 64 x 32: 4 8 and the post-processing), and rows in tiles
    (40 = 2 x 4 5: the samples' transpose into tiles, two stages, the post-processing
    written out of the tiles). No kernel reads the samples two apart."""
    for shape, axis, count in (((128, 128), -1, 3), ((64, 32), 0, 3), ((32, 40), -1, 4)):
        kernels = _kernels(_optimized(_rfft_along(axis), np.zeros(shape)))
        assert len(kernels) == count and not [k for k in kernels if "* 2" in k], (shape, kernels)
    x, y = RNG.standard_normal((3, 40)), RNG.standard_normal((24, 20))
    got = jc.jit(lambda x, y: (np.fft.rfft(x), np.fft.rfft(y, axis=0), np.fft.rfft(y, 30, axis=0)))(x, y)
    for g, w, a in zip(got, (np.fft.rfft(x), np.fft.rfft(y, axis=0), np.fft.rfft(y, 30, axis=0)), (-1, 0, 0)):
        assert_spectrum(g, w, (a,))
