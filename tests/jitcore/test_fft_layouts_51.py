"""Transforms along an axis that is not the last (fft51): the columns of ``fft2``, ``rfft2``,
``irfft2``, ``fftn`` and ``fft(a, axis=0)`` run as stages across contiguous lanes (the axes
after the transformed one), with no transposed copy before or after, and a scale (``ifft``,
``norm=``) inside the last stage's kernel. Against NumPy: the results (the FFT error bound of
tests/jitcore/test_fft.py's ``assert_spectrum``), dtypes and shapes, for odd, even and
non-square shapes, ``axes=``, ``s=``, ``norm=``, lanes too few for the lane path (below 16) and
lengths through Bluestein's algorithm (which keep moving the axis last).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.jitcore.test_fft import assert_spectrum

RNG = np.random.default_rng(51)


def _complex(shape) -> np.ndarray:
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _optimized(fn, *args) -> str:
    return jc.jit(fn).lower(*args).as_text("optimized")


def _kernels(text: str) -> list[str]:
    """Each kernel's attribute line (domain, maps) of an optimized program's text."""
    return [line for line in text.splitlines() if line.lstrip().startswith("}) {") and "domain" in line]


def _transposing(line: str) -> bool:
    """A kernel that reads or writes an operand with its last two dims swapped."""
    return "-> (d1, d0)>" in line or "(d0, d1) -> (d1, d0)" in line


def test_fft2_columns_need_no_transposed_copy():
    """fft2 + ifft2 of 128x128: three stages a transform, twelve kernels, none transposing and
    none a copy; before, each column transform moved the axis last and back (three transposed
    copies) and the row ifft's 1/n scale took a kernel of its own."""
    kernels = _kernels(_optimized(lambda z: np.fft.ifft2(np.fft.fft2(z)), np.zeros((128, 128), complex)))
    assert not [k for k in kernels if _transposing(k)], kernels
    assert len(kernels) == 12, len(kernels)


def test_rfft2_irfft2_columns_need_no_transposed_copy():
    """The spectral step's pair at 128x128: the rfft's post-processing writes its rows in
    place (it wrote them transposed, 65x128), and no kernel transposes them back."""
    text = _optimized(lambda x: np.fft.irfft2(np.fft.rfft2(x), s=x.shape), np.zeros((128, 128)))
    kernels = _kernels(text)
    assert not [k for k in kernels if _transposing(k)], kernels
    assert "tensor<65x128xcomplex<f64>>" not in text


def _columns(z, x):
    return (np.fft.fft(z, axis=0), np.fft.ifft(z, axis=0, norm="ortho"), np.fft.fft(z, 24, axis=0),
            np.fft.ifft(z, 9, axis=0, norm="forward"), np.fft.fft2(z), np.fft.ifft2(z, s=(20, 17)),
            np.fft.fftn(z, axes=(1, 0)), np.fft.rfft2(x), np.fft.irfft2(np.fft.rfft2(x), s=x.shape),
            np.fft.rfft2(x, s=(12, 30), norm="ortho"), np.fft.irfft2(z, s=(16, 16)),
            np.fft.rfftn(x, axes=(1, 0)), np.fft.irfftn(z, axes=(1, 0)))


_AXES = ((0,), (0,), (0,), (0,), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1), (0, 1))


def test_columns_against_numpy():
    """Odd rows (15 = 3 5: odd radices across lanes), odd lanes (33), a non-square shape; cut
    and padded ``n`` / ``s`` (``s=(12, 30)``: 16 lanes, ``(20, 17)``), 9 lanes after a cut
    (moved last, as before)."""
    z, x = _complex((15, 33)), RNG.standard_normal((15, 33))
    for got, want, axes in zip(jc.jit(_columns)(z, x), _columns(z, x), _AXES):
        assert_spectrum(got, want, axes)


def test_middle_axis_and_lanes_of_several_axes():
    """Axis 1 of a 3-d array: its lanes are the last axis (24, then 3: too few); axis 0: the
    last two axes together (6 x 4 = 24 lanes); complex64 stays complex64; float32 input too."""
    z = _complex((5, 16, 24)).astype(np.complex64)
    y = _complex((12, 6, 4))
    f = RNG.standard_normal((12, 6, 3)).astype(np.float32)

    def fn(z, y, f):
        return (np.fft.fft(z, axis=1), np.fft.ifft(y, axis=0), np.fft.fft(f, axis=1),
                np.fft.fftn(y, axes=(0, 1)))

    got = jc.jit(fn)(z, y, f)
    want = (np.fft.fft(z.astype(np.complex128), axis=1), np.fft.ifft(y, axis=0),
            np.fft.fft(f.astype(np.float64), axis=1), np.fft.fftn(y, axes=(0, 1)))
    for g, w, axes, dtype in zip(got, want, ((1,), (0,), (1,), (0, 1)),
                                 (np.complex64, None, np.complex64, None)):
        assert_spectrum(g, w, axes, dtype)


def test_edge_lengths_and_non_finite():
    """One row (n = 1: the identity, scaled), two rows, a NaN and an infinity in a column
    (NumPy's non-finite lanes stay non-finite, the others within the bound), and a prime
    number of rows (Bluestein's algorithm moves the axis last, as before)."""
    z = _complex((1, 20))
    w = _complex((2, 20))
    w[1, 3] = np.nan
    w[0, 7] = np.inf
    b = _complex((37, 20))  # 37 rows: Bluestein's algorithm, along the last axis

    def fn(z, w, b):
        return (np.fft.ifft(z, axis=0, norm="forward"), np.fft.fft(w, axis=0), np.fft.ifft2(w),
                np.fft.fft(b, axis=0))

    for got, want, axes in zip(jc.jit(fn)(z, w, b), fn(z, w, b), ((0,), (0,), (0, 1), (0,))):
        assert_spectrum(got, want, axes)


@settings(max_examples=examples(6, ci=3), deadline=None)
@given(st.data())
def test_drawn_two_dimensional(data):
    """A drawn shape (lanes on both sides of 16), transform, ``s`` and ``norm``."""
    rows, cols = data.draw(st.integers(1, 24)), data.draw(st.integers(10, 40))
    name = data.draw(st.sampled_from(["fft2", "ifft2", "rfft2", "irfft2"]))
    norm = data.draw(st.sampled_from([None, "ortho", "forward"]))
    s = data.draw(st.one_of(st.none(), st.tuples(st.integers(1, 20), st.integers(2, 20))))
    fn = getattr(np.fft, name)
    x = RNG.standard_normal((rows, cols)) if name == "rfft2" else _complex((rows, cols))
    got = jc.jit(lambda a: fn(a, s, norm=norm))(x)
    assert_spectrum(got, fn(x, s, norm=norm), (0, 1))
