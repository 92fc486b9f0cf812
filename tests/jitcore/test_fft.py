"""``numpy.fft`` under jit against NumPy (pocketfft): every length kind (powers of two, small
primes and their products, large primes through Bluestein's algorithm), every transform and
argument (``n``, ``axis``, ``s``/``axes``, ``norm``), NumPy 2's dtypes, NaN and infinities, and
NumPy's errors.

The bound: an FFT's computed result ``y`` of ``x`` satisfies ``||y - F x|| <= c eps log2(n) ||F x||``
(norm-wise, per transformed lane; Higham, *Accuracy and Stability of Numerical Algorithms*,
section 24.1: each of the ``log2 n`` butterfly levels adds a relative error of a few ``eps``,
the twiddles' own error among them). jitcore's transform and pocketfft both stay within about
``0.5 eps log2(n)`` on random data (measured on lengths 1..300, 10^4 primes and 2^20), so the
results are compared with ``TOL_FACTOR = 4``: room for both errors and for radix-13 stages and
Bluestein's three transforms of length ``m < 4n``, and still a million times below what a wrong
twiddle or a misplaced term gives. float32 and complex64 transforms are compared with NumPy's
complex128 transform of the same input, in float32's ``eps``. Compiles are few: one jitted
function per test, each over many lengths and arguments at once.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
import jitcore.numpy as jnp
from tests.budget import examples
from tests.layouts import LAYOUTS, relayout

TOL_FACTOR = 4
RNG = np.random.default_rng(31)


def _eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype).char.lower() if np.dtype(dtype).kind == "c" else dtype).eps)


def assert_spectrum(got, expected, axes=(-1,), dtype=None):
    """``got`` has NumPy's dtype (``dtype``) and shape, is non-finite wherever ``expected`` is,
    and in each lane (over ``axes``) where ``expected`` is finite, is finite and within
    ``TOL_FACTOR eps log2(n)`` of it, norm-wise. A lane where NumPy has a non-finite term came
    from a NaN or an infinity; there jitcore's other terms may be NaN too (``inf * 0`` in a
    complex product that pocketfft's real arithmetic skips), NaN patterns being no contract."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == (dtype or expected.dtype), (got.dtype, dtype or expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert not np.isfinite(got[~np.isfinite(expected)]).any(), "a NaN or infinity did not propagate"
    axes = tuple(a % max(expected.ndim, 1) for a in axes)
    lanes = np.all(np.isfinite(expected), axis=axes, keepdims=True)
    assert np.isfinite(np.where(lanes, got, 0)).all(), "non-finite terms in a finite lane"
    n = int(np.prod([expected.shape[a] for a in axes]))
    diff = np.where(lanes, got.astype(np.complex128) - expected, 0)
    scale = np.where(lanes, expected, 0)
    err = np.sqrt(np.sum(np.abs(diff) ** 2, axis=axes))
    norm = np.sqrt(np.sum(np.abs(scale) ** 2, axis=axes))
    bound = TOL_FACTOR * _eps(got.dtype) * max(1.0, np.log2(max(n, 2))) * norm + np.finfo(np.float64).tiny
    worst = np.max(err / np.maximum(norm, 1e-300))
    assert (err <= bound).all(), f"error {worst} relative, bound {bound.max()}"


def test_checker_rejects_wrong_spectra():
    """The bound catches one wrong term, a twiddle off by one ulp's worth times a thousand, a
    NaN for a number, and a wrong dtype."""
    x = RNG.standard_normal(64) + 1j * RNG.standard_normal(64)
    good = np.fft.fft(x)
    assert_spectrum(good * (1 + 1e-16), good)
    for bad in (good + np.eye(64)[5] * 1e-3 * np.abs(good).max(),
                good * np.exp(1j * 1000 * np.finfo(float).eps * np.arange(64)),
                np.where(np.arange(64) == 7, np.nan, good)):
        with pytest.raises(AssertionError):
            assert_spectrum(bad, good)
    with pytest.raises(AssertionError):
        assert_spectrum(good.astype(np.complex64), good)


# Powers of two, products of 2, 3, 5, 7, 11, 13 (mixed radix), a prime past 13 (Bluestein), 1
# (the identity). The other transforms below add 4..20, 67 and 1009 (Bluestein) and 2^16.
LENGTHS = (1, 2, 3, 5, 6, 7, 8, 11, 13, 17, 30, 37, 143, 256)  # 37: Bluestein over 75 = 3 5^2


def _signals(n: int) -> np.ndarray:
    """Random complex data, an impulse, a constant and a pure tone, as rows."""
    k = np.arange(n)
    return np.stack([RNG.standard_normal(n) + 1j * RNG.standard_normal(n),
                     np.eye(1, n, n // 3)[0].astype(complex),
                     np.full(n, 2.5 - 1j),
                     np.exp(2j * np.pi * 3 * k / n)])


@jc.jit
def _forward(xs):
    return [np.fft.fft(x) for x in xs]


def test_every_length_kind():
    xs = [_signals(n) for n in LENGTHS]
    for x, f in zip(xs, _forward(xs)):
        assert_spectrum(f, np.fft.fft(x))


def _arguments(x, r, c):
    return (np.fft.fft(x, n=12), np.fft.fft(x, n=5, axis=0), np.fft.ifft(x, axis=0, norm="ortho"),
            np.fft.fft(x, norm="forward"), np.fft.ifft(x, 20, 1, "forward"),
            np.fft.rfft(r), np.fft.rfft(r, n=9, axis=0, norm="ortho"), np.fft.rfft(r, n=4),
            np.fft.irfft(c), np.fft.irfft(c, n=9), np.fft.irfft(c, n=4, axis=0, norm="forward"),
            np.fft.irfft(c, n=1), np.fft.hfft(c), np.fft.hfft(c, 7, 0, "ortho"), np.fft.ihfft(r),
            np.fft.ihfft(r, 5, 0, "forward"))


def test_n_axis_norm():
    x = RNG.standard_normal((6, 10)) + 1j * RNG.standard_normal((6, 10))
    r = RNG.standard_normal((7, 8))
    c = RNG.standard_normal((5, 6)) + 1j * RNG.standard_normal((5, 6))
    expected = _arguments(x, r, c)
    axes = (-1, 0, 0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, 0, -1, 0)
    for got, want, axis in zip(jc.jit(_arguments)(x, r, c), expected, axes):
        assert_spectrum(got, want, (axis,))


def _many_axes(a, r, c):
    return (np.fft.fft2(a), np.fft.ifft2(a, s=(3, 8)), np.fft.fftn(a), np.fft.ifftn(a, axes=(0, 2)),
            np.fft.fftn(a, s=(5, 4), axes=(2, 0), norm="ortho"), np.fft.rfft2(r), np.fft.rfftn(r, s=(4, 6)),
            np.fft.irfft2(c), np.fft.irfftn(c, s=(6, 5), norm="forward"), jnp.fft.fftn(a, axes=(1,)))


def test_two_and_n_dimensional():
    a = RNG.standard_normal((3, 4, 6)) + 1j * RNG.standard_normal((3, 4, 6))
    r = RNG.standard_normal((5, 7))
    c = RNG.standard_normal((4, 5)) + 1j * RNG.standard_normal((4, 5))
    with pytest.warns(DeprecationWarning):  # NumPy's, for s= without axes=
        expected = _many_axes(a, r, c)
    axes = ((-2, -1), (-2, -1), (0, 1, 2), (0, 2), (0, 2), (0, 1), (0, 1), (0, 1), (0, 1), (1,))
    for got, want, ax in zip(jc.jit(_many_axes)(a, r, c), expected, axes):
        assert_spectrum(got, want, ax)


def _helpers(x, d):
    return (np.fft.fftshift(x), np.fft.ifftshift(x), np.fft.fftshift(x, axes=1), np.fft.ifftshift(x, 0),
            np.fft.fftfreq(7, d), np.fft.rfftfreq(8, d), np.fft.fftfreq(6, 0.5))


def test_shifts_and_frequencies():
    x = RNG.standard_normal((5, 6))
    d = np.float64(0.1)
    for got, want in zip(jc.jit(_helpers)(x, d), _helpers(x, d)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-16, atol=0)


# (transform, which argument of test_numpy2_dtypes's: f16, f32, c64, f64, i8, bool, u8)
DTYPE_CALLS = ((np.fft.fft, 0), (np.fft.fft, 1), (np.fft.ifft, 2), (np.fft.fft, 3), (np.fft.fft, 4),
               (np.fft.fft, 5), (np.fft.rfft, 6), (np.fft.rfft, 1), (np.fft.irfft, 2), (np.fft.irfft, 0),
               (np.fft.irfft, 1), (np.fft.irfft, 4))


@jc.jit
def _dtypes(*args):
    return [fn(args[k]) for fn, k in DTYPE_CALLS]


def test_numpy2_dtypes():
    """float16/float32/complex64 transform in complex64 (irfft: float16 stays float16), the rest
    in complex128, as NumPy 2 does; compared with NumPy's float64 transform of the same input."""
    args = (RNG.standard_normal(12).astype(np.float16), RNG.standard_normal(12).astype(np.float32),
            (RNG.standard_normal(12) + 1j * RNG.standard_normal(12)).astype(np.complex64),
            RNG.standard_normal(12), RNG.integers(-128, 127, 12, dtype=np.int8),
            RNG.integers(0, 2, 12).astype(bool), RNG.integers(0, 255, 12, dtype=np.uint8))
    for got, (fn, k) in zip(_dtypes(*args), DTYPE_CALLS):
        wide = args[k].astype(np.complex128 if args[k].dtype.kind == "c" else np.float64)
        assert_spectrum(got, fn(wide), dtype=fn(args[k]).dtype)


@jc.jit
def _big(x, y):
    return np.fft.fft(x), np.fft.ifft(y)


def test_large_power_of_two_and_prime():
    """2^16 (radix-8 stages, split twiddle tables) and the prime 1009 (Bluestein over 2048)."""
    x = RNG.standard_normal(1 << 16) + 1j * RNG.standard_normal(1 << 16)
    y = RNG.standard_normal(1009) + 1j * RNG.standard_normal(1009)
    f, i = _big(x, y)
    assert_spectrum(f, np.fft.fft(x))
    assert_spectrum(i, np.fft.ifft(y))


SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.0, -2.5, 0.0])


@jc.jit
def _specials(x, r):
    return np.fft.fft(x), np.fft.ifft(x), np.fft.rfft(r), np.fft.irfft(x)


def test_nan_and_infinity_propagate():
    """A lane holding NaN or an infinity is non-finite wherever NumPy's is; the others match.
    (Each row of ``x`` but the last holds one special value.)"""
    rows = []
    for n in (8, 17):  # mixed radix and Bluestein
        x = RNG.standard_normal((len(SPECIALS) + 1, n)) + 1j * RNG.standard_normal((len(SPECIALS) + 1, n))
        x[:-1, n // 2] = SPECIALS
        x[3, 1] = complex(0.0, np.inf)
        rows.append((x, x.real.copy()))
    for x, r in rows:
        f, i, rf, ir = _specials(x, r)
        assert_spectrum(f, np.fft.fft(x))
        assert_spectrum(i, np.fft.ifft(x))
        assert_spectrum(rf, np.fft.rfft(r))
        assert_spectrum(ir, np.fft.irfft(x))


def _tiled_rows(z, x, c, w, v):
    return (np.fft.fft(z), np.fft.ifft(z, norm="ortho"), np.fft.rfft(x[..., :15]),
            np.fft.rfft(x, norm="forward"), np.fft.irfft(c, n=15), np.fft.irfft(c),
            np.fft.rfft(w, norm="ortho"), np.fft.irfft(v, norm="forward"))


def test_rows_in_tiles():
    """Rows run 16 side by side (``fft_plan._to_tiles``) where there are 16 or more and the
    plan has no eight first: 2 x 10 rows of 15 = 3 5 points (padded to two tiles), real
    transforms of odd length (15: the whole complex transform) and of even length (16 and 14:
    8 and 7 points, mirrored terms read across the tile), 2 x 16 rows of 28 = 4 7 points (whole
    tiles: the real samples read into them through a transpose, no copy) and back, NaN and
    infinity in single rows; float32 compared with NumPy's float64 transform in float32's eps.
    One compile."""
    from jitcore.numpy.fft_plan import _tiled

    assert _tiled((2, 10), 15) and _tiled((20,), 7) and _tiled((2, 16), 14)
    assert not _tiled((15,), 15) and not _tiled((20,), 16)
    z = RNG.standard_normal((2, 10, 15)) + 1j * RNG.standard_normal((2, 10, 15))
    z[1, 3, 4], z[0, 7, 0] = np.nan, complex(np.inf, 0)
    x = RNG.standard_normal((20, 16)).astype(np.float32)
    x[17, 5] = np.inf
    c = RNG.standard_normal((20, 8)) + 1j * RNG.standard_normal((20, 8))
    c[2, 3] = np.nan
    w = RNG.standard_normal((2, 16, 28))
    v = RNG.standard_normal((2, 16, 15)) + 1j * RNG.standard_normal((2, 16, 15))
    got = jc.jit(_tiled_rows)(z, x, c, w, v)
    wants = _tiled_rows(z, x.astype(np.float64), c, w, v)
    for out, want, dtype in zip(got, wants, _tiled_rows(z, x, c, w, v)):
        assert_spectrum(out, want, dtype=dtype.dtype)


@jc.jit
def _along_axes(xs):
    return [(np.fft.fft(x, axis=1), np.fft.rfft(x.real, axis=0)) for x in xs]


def test_layouts():
    """Every layout of a 3x8 array, along both axes."""
    base = RNG.standard_normal((3, 8)) + 1j * RNG.standard_normal((3, 8))
    xs = [relayout(base, layout) for layout in LAYOUTS]
    for x, (f, rf) in zip(xs, _along_axes(xs)):
        assert_spectrum(f, np.fft.fft(x, axis=1), (1,))
        assert_spectrum(rf, np.fft.rfft(x.real, axis=0), (0,))


def _refusal(fn, *args):
    with pytest.raises(Exception) as numpy_error:
        fn(*args)
    with pytest.raises(type(numpy_error.value)) as ours:
        jc.jit(fn)(*args)
    assert isinstance(ours.value, jc.JitcoreError), ours.value
    return str(ours.value)


def test_numpy_errors():
    x = np.ones((2, 4), complex)
    assert "Invalid number of FFT data points (0)" in _refusal(lambda a: np.fft.fft(a, n=0), x)
    assert "Invalid number of FFT data points (-1)" in _refusal(lambda a: np.fft.irfft(a, n=-1), x)
    assert "Invalid number of FFT data points (0)" in _refusal(lambda a: np.fft.fft(a), np.ones((2, 0)))
    assert "Invalid number of FFT data points (0)" in _refusal(lambda a: np.fft.irfft(a), np.ones(1))
    assert "Invalid norm value" in _refusal(lambda a: np.fft.fft(a, norm="bad"), x)
    assert "out of bounds" in _refusal(lambda a: np.fft.fft(a, axis=2), x)
    assert "out of bounds" in _refusal(lambda a: np.fft.fft(a), np.array(2.0))
    assert "real input" in _refusal(lambda a: np.fft.rfft(a), x)
    assert "different lengths" in _refusal(lambda a: np.fft.fftn(a, s=(2, 2), axes=(0,)), x)
    with pytest.raises(jc.UnsupportedError, match="out="):
        jc.jit(lambda a: np.fft.fft(a, out=np.empty(4, complex)))(x)


def test_one_kernel_per_stage():
    """A length-64 transform is two radix-8 stages, each one fused kernel."""
    from jitcore.ir.dialects import kernel
    from jitcore.passes.manager import PassManager

    module = jc.make_ir(lambda a: np.fft.fft(a))(np.zeros(64, complex))
    PassManager("canonicalize,cse,dce,kernelize,fuse").run(module)
    (func,) = module.functions()
    stages = [op for op in func.body.ops if isinstance(op, kernel.GenericOp)]
    assert len(stages) == 2, module
    # pairs (j, j + 4) by a real sign first: 3 complex products (two fused multiply-adds
    # each) a stage, plus the first stage's twiddle; 7 a stage unpaired
    fmas = [sum(inner.op_name == "math.fma" for inner in kernel.body_ops(op)) for op in stages]
    assert fmas == [8, 6], fmas


def test_plans_cover_each_length_and_bluestein_takes_the_fewest_passes():
    """``radices`` multiplies back to the length (eights first); Bluestein's length is smooth, at
    least ``n``, and no more passes over the data (length times stages) than any smooth length
    up to the next power of two, the shortest one among them. Pure Python: no compile."""
    from jitcore.numpy.fft_plan import radices, smooth_length

    assert radices(1 << 16) == [8, 8, 8, 8, 8, 2] and radices(1024 * 105) == [8, 8, 8, 2, 3, 5, 7]
    assert radices(2 * 17) is None
    plans = {m: radices(m) for m in range(1, 4097)}
    passes = {m: m * len(p) for m, p in plans.items() if p is not None and set(p) <= {2, 3, 4, 5, 8}}
    for n in range(1, 2049):
        m = smooth_length(n)
        assert m >= n and m in passes, (n, m)
        top = 1 << max(0, (n - 1).bit_length())
        assert passes[m] == min(c for k, c in passes.items() if n <= k <= top), n
    assert smooth_length(20013) == 20480  # 8^4 5 in five stages, not 20250 = 2 3^4 5^3 in eight


def test_tables_stay_small():
    """No constant of a 2^16-point transform is as long as the data: the stages' tables are read
    through broadcast maps (a broadcast of a constant is not folded into a dense copy past
    ``BROADCAST_FOLD_LIMIT``), the long twiddle tables split in two."""
    from jitcore.ir.dialects import array
    from jitcore.passes.manager import PassManager

    n = 1 << 16
    module = jc.make_ir(lambda a: np.fft.fft(a))(np.zeros(n, complex))
    PassManager("canonicalize,cse,dce").run(module)
    (func,) = module.functions()
    sizes = [op.result.type.size for op in func.body.ops if isinstance(op, array.ConstantOp)]
    assert sizes and max(sizes) <= 4096, sizes


def test_stage_tables_keep_their_dims_constant():
    """A size-generic stage kernel keeps the extents of the dims its constant tables span (the
    radix, the twiddles' rows) as constants, though 8 = 16 rows // 2 and 64 = 4 * 16 rows would
    be run-time values; the 512 rows of the first stage's table (past ``TABLE_DIM``), the rows
    and a kernel without tables keep their run-time extents. No LLVM: passes only."""
    from jitcore.codegen.cpu import schedule
    from jitcore.codegen.loops import Sizes
    from jitcore.ir.dialects import kernel

    x = np.zeros((16, 4096), complex)
    module = jc.jit(lambda a: np.fft.fft(a) + a, cache=False).lower(x).optimized()
    kernels = [op for op in module.walk() if isinstance(op, kernel.GenericOp)]
    symbols = (16, 4096)
    kept = [set(getattr(schedule._with_table_dims_constant(op, Sizes(symbols)), "constants", ()))
            for op in kernels]
    assert kept[:4] == [{8}, {8, 64}, {8}, {8}], kept  # stage 3 reads its 64 points as data
    assert all(not k & {16, 512, 4096} for k in kept), kept
    assert len(kernels) == 4 or kept[4:] == [frozenset()] * (len(kernels) - 4), kept


@settings(max_examples=examples(6, ci=3), deadline=None)
@given(st.data())
def test_drawn_transforms(data):
    """A drawn shape, axis, length, norm and transform."""
    shape = data.draw(st.lists(st.integers(1, 40), min_size=1, max_size=2).map(tuple))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(1, 50)))
    norm = data.draw(st.sampled_from([None, "backward", "ortho", "forward"]))
    name = data.draw(st.sampled_from(["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]))
    fn = getattr(np.fft, name)
    complex_input = name in ("fft", "ifft", "irfft", "hfft")
    x = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if complex_input else 0)
    if name in ("irfft", "hfft") and n is None and shape[axis] == 1:
        n = 2
    got = jc.jit(lambda a: fn(a, n, axis, norm))(x)
    assert_spectrum(got, fn(x, n, axis, norm), (axis,))


def _odd(z1, z17, x3, x17, c1, c17):
    odd = 2 * c1.shape[-1] - 1
    return (np.fft.fft(z1), np.fft.ifft(z17, norm="ortho"), np.fft.rfft(x3, norm="forward"),
            np.fft.rfft(x17), np.fft.irfft(c1, n=odd), np.fft.irfft(c17, n=odd))


@pytest.mark.parametrize("n", [2, 21, 65])
def test_odd_radices_and_real_first_stages(n):
    """Odd radices by conjugate pairs (``fft_plan._odd_butterfly``: 3 5 7 13, in one-dimensional
    transforms and in tiles), a real transform's first stage on real samples (radix 2 at n = 2,
    odd ones past it: 21 = 3 7, 65 = 5 13), its last stage cut to the outputs that hold the
    first ``n // 2 + 1`` points (rfft) or to their real parts (irfft): 1-d, 3 rows (out of
    tiles) and 17 rows (two tiles, padded), complex64 and float32 against NumPy's float64
    transform in float32's eps, NaN, infinities and -0.0 in single rows. One compile a length."""
    rng = np.random.default_rng(n)
    z17 = (rng.standard_normal((17, n)) + 1j * rng.standard_normal((17, n))).astype(np.complex64)
    x3, x17 = rng.standard_normal((3, n)), rng.standard_normal((17, n)).astype(np.float32)
    x17[4, n // 2], x17[9, 0], x17[11, :] = np.inf, np.nan, -0.0
    c17 = rng.standard_normal((17, n // 2 + 1)) + 1j * rng.standard_normal((17, n // 2 + 1))
    c17[2, 1 % c17.shape[1]] = complex(np.nan, 0.0)
    args = (rng.standard_normal(n) + 1j * rng.standard_normal(n), z17, x3, x17, c17[0].copy(), c17)
    got = jc.jit(_odd)(*args)
    wide = [a.astype(np.complex128) if a.dtype == np.complex64 else
            a.astype(np.float64) if a.dtype == np.float32 else a for a in args]
    for out, want, like in zip(got, _odd(*wide), _odd(*args)):
        assert_spectrum(out, want, dtype=like.dtype)


def test_odd_stage_arithmetic():
    """A radix-3 stage takes no complex products but its twiddle's (two fused multiply-adds;
    the pairs' real tables: plain products); a real transform's first stage reads float64;
    rfft's last radix-3 stage of 9 points keeps 2 of its 3 outputs,
    irfft's yields float64. Passes only, no LLVM."""
    from jitcore.ir.dialects import kernel
    from jitcore.passes.manager import PassManager

    def stages(fn, x):
        module = jc.make_ir(fn)(x)
        PassManager("canonicalize,cse,dce,kernelize,fuse").run(module)
        (func,) = module.functions()
        return [op for op in func.body.ops if isinstance(op, kernel.GenericOp)]

    complex_stages = stages(lambda a: np.fft.fft(a), np.zeros(9, complex))
    fmas = [sum(inner.op_name == "math.fma" for inner in kernel.body_ops(op)) for op in complex_stages]
    assert fmas == [2, 0], fmas
    real_stages = stages(lambda a: np.fft.rfft(a), np.zeros(9))
    first, last = real_stages[0], real_stages[1]
    data = [str(v.type.element) for v in first.operands if v.op.op_name != "array.constant"]
    assert data == ["f64"] * 3, data  # the three terms of the radix 3, real
    assert last.results[0].type.shape[-2:] == (2, 3), last.results[0].type
    inverse = stages(lambda a: np.fft.irfft(a, n=9), np.zeros(5, complex))
    assert str(inverse[-1].results[0].type.element) == "f64", inverse[-1].results[0].type


def test_tiles_keep_their_lanes_constant():
    """The stages of rows in tiles keep the tiles' ``ROW_TILE`` lanes a constant extent in a
    size-generic kernel (their radix tables span them), though 16 = 304 padded rows // 19
    tiles could be a run-time value: a vector loop of one iteration behind run-time checks was
    1.3-2x slower for odd lengths (fft37). (At a few tiles the tables are folded to the stage's
    whole shape, lanes and all, either way.) No LLVM: passes only."""
    from jitcore.codegen.cpu import schedule
    from jitcore.codegen.loops import Sizes
    from jitcore.ir.dialects import kernel

    module = jc.jit(lambda a: np.fft.fft(a), cache=False).lower(np.zeros((300, 15), complex)).optimized()
    stages = [op for op in module.walk() if isinstance(op, kernel.GenericOp) and len(op.domain()) > 3]
    kept = [getattr(schedule._with_table_dims_constant(op, Sizes((300, 15))), "constants", frozenset())
            for op in stages]
    assert len(stages) == 2 and all(16 in k for k in kept), kept


def _irfft_odd(c1, c3, c17, c17f, c5):
    """irfft and hfft of odd lengths by ``fft_real``'s stages: each radix 3 5 7 9=3 3 11 13,
    one-dimensional, 3 rows (out of tiles) and 17 rows (tiles), float32, the spectra cut
    (15, 27, 3) and zero-padded (21 from 5 terms)."""
    return (np.fft.irfft(c1, n=15), np.fft.irfft(c1, n=27), np.fft.irfft(c3, n=143, norm="ortho"),
            np.fft.irfft(c17, n=49), np.fft.irfft(c17f, n=45, norm="forward"),
            np.fft.hfft(c5, n=9), np.fft.irfft(c17, n=3), np.fft.irfft(c5, n=21))


def test_irfft_of_odd_lengths_by_real_stages():
    """``irfft`` (and ``hfft``) of odd ``n`` by stages that compute half their outputs
    (``fft_real``), against NumPy's float64 transform: every odd radix, 1-d and rows in and out
    of tiles, complex64 in float32's eps, ``n`` cut and zero-padded; the imaginary part of
    term 0 is ignored (finite: the result is the real term's), NaN and infinities propagate.
    One compile."""
    rng = np.random.default_rng(38)

    def spectra(*shape):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)

    c1, c3, c17, c5 = spectra(20), spectra(3, 72), spectra(17, 25), spectra(2, 5)
    c17f = spectra(17, 23).astype(np.complex64)
    c17[4, 3], c17[6, 0], c3[1, 7] = np.nan, complex(0.0, np.inf), complex(np.inf, 0.0)
    args = (c1, c3, c17, c17f, c5)
    got = jc.jit(_irfft_odd)(*args)
    wide = [a.astype(np.complex128) for a in args]
    for out, want, like in zip(got, _irfft_odd(*wide), _irfft_odd(*args)):
        assert_spectrum(out, want, dtype=like.dtype)
    # a finite imaginary part of term 0 is not part of the signal (NumPy ignores it)
    shifted = [a + 1j * (np.arange(a.shape[-1]) == 0) for a in args]
    for out, want in zip(jc.jit(_irfft_odd)(*shifted), _irfft_odd(*[a.astype(np.complex128) for a in args])):
        assert_spectrum(out, want, dtype=out.dtype)


def test_irfft_real_stages_compute_half_their_points():
    """irfft of 45 = 3 3 5 points: three stages, each computing the ``(S + 1) / 2`` points of
    each sub-spectrum it keeps (8 of 15, 3 of 5, then the 45 real outputs), their mirrored
    terms read from the stage before (no copy kernel between stages). Passes only."""
    from jitcore.ir.dialects import kernel
    from jitcore.passes.manager import PassManager

    module = jc.make_ir(lambda a: np.fft.irfft(a, n=45))(np.zeros(23, complex))
    PassManager("canonicalize,cse,dce,kernelize,fuse").run(module)
    (func,) = module.functions()
    stages = [op for op in func.body.ops if isinstance(op, kernel.GenericOp)]
    shapes = [tuple(op.results[0].type.shape) for op in stages]
    assert shapes[:3] == [(8, 3, 1), (3, 3, 3), (1, 5, 9)] and len(shapes) <= 4, shapes  # (45,): the result
    assert str(stages[2].results[0].type.element) == "f64", stages[2].results[0].type


@pytest.mark.parametrize("name, fn, real", [
    ("fft", lambda a: np.fft.fft(a, axis=0), False),
    ("ifft", lambda a: np.fft.ifft(a, n=5, axis=0), False),
    ("rfft", lambda a: np.fft.rfft(a, axis=0), True),
    ("ihfft", lambda a: np.fft.ihfft(a, axis=0), True),
    ("irfft", lambda a: np.fft.irfft(a, axis=0), False),
    ("hfft", lambda a: np.fft.hfft(a, axis=-2), False),
    ("fftn", lambda a: np.fft.fftn(a, s=(4, 3)), False),
])
def test_transforms_of_no_lanes_are_numpys_empty_results(name, fn, real):
    """An axis of 17 points beside an axis of none: no lane to transform, NumPy's empty result
    of the transform's shape and dtype (a reshape of the empty batch raised before)."""
    for dtype in ((np.float32, np.float64) if real else (np.complex64, np.complex128)):
        a = np.zeros((17, 0), dtype)
        got, want = jc.jit(fn)(a), fn(a)
        assert (got.shape, got.dtype) == (want.shape, want.dtype), name
        np.testing.assert_array_equal(got, want)
