"""complex64 / complex128 (issue #3, item 2): NumPy's results for arithmetic, abs, exp, sqrt,
comparisons and reductions, at every special value of each part; arrays in and out of jit.

The hypothesis rows of tests/jitcore/test_numpy_coverage.py (family "complex") cover random
values and shapes; here every pair of special parts (0, -0, tiny, subnormal, huge, inf, nan, and
the arguments where exp overflows) meets every function, where NumPy's C99 Annex G rules live.
"""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.coverage.compare import complex_expm1_within_term_ulps, within_conditioned_ulps
from tests.layouts import relayout
from tests.oracle import assert_matches, ulp_bound
from tests.strategies import edge_set

COMPLEX = [np.complex64, np.complex128]


def special_parts(dtype) -> list[float]:
    info = np.finfo(np.dtype(dtype).char.lower())
    top = float(np.log(info.max))  # where exp(re) overflows
    return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, float(info.tiny), float(info.smallest_subnormal),
            -float(info.smallest_subnormal), float(info.max), -float(info.max), float(info.max) / 3,
            top - 1, top + 0.5, top * 2, -top * 1.1, 1e10, np.inf, -np.inf, np.nan]


def special_grid(dtype) -> np.ndarray:
    parts = special_parts(dtype)
    with np.errstate(all="ignore"):
        return np.array([complex(a, b) for a, b in itertools.product(parts, parts)], dtype=dtype)


def numpy_result(fn, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name, fn, bound", [
    ("add", lambda z, w: z + w, "exact"),
    ("subtract", lambda z, w: z - w, "exact"),
    ("multiply", lambda z, w: z * w, "exact"),
    ("divide", lambda z, w: z / w, "exact"),
    ("square", lambda z, w: np.square(z), "exact"),
    ("reciprocal", lambda z, w: np.reciprocal(z), "exact"),
    ("negative", lambda z, w: -z, "exact"),
    ("conjugate", lambda z, w: np.conjugate(z), "exact"),
    ("absolute", lambda z, w: np.abs(z), "complex absolute"),
    ("exp", lambda z, w: np.exp(z), "complex exp"),
    ("sqrt", lambda z, w: np.sqrt(z), "complex sqrt"),
    ("rint", lambda z, w: np.rint(z * 2.5), "exact"),
    ("real, imag", lambda z, w: (z.real, np.imag(z)), "exact"),
    ("comparisons", lambda z, w: (z == w, z != w, z < w, z <= w,
                               z > w, z >= w), "exact"),
    ("predicates", lambda z, w: (np.isnan(z), np.isinf(z), np.isfinite(z)), "exact"),
    ("maximum, minimum", lambda z, w: (np.maximum(z, w), np.minimum(z, w)), "exact"),
    ("fmax, fmin", lambda z, w: (np.fmax(z, w), np.fmin(z, w)), "exact"),
    ("sign", lambda z, w: np.sign(z), "complex sign"),
    ("log", lambda z, w: np.log(z), "complex log"),
    ("log2", lambda z, w: np.log2(z), "complex log2"),
    ("log10", lambda z, w: np.log10(z), "complex log10"),
    ("log1p", lambda z, w: np.log1p(z), "complex log1p"),
    ("exp2", lambda z, w: np.exp2(z), "complex exp2"),
    *[(name, lambda z, w, _name=name: getattr(np, _name)(z), f"complex {name}") for name in (
        "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh",
        "arccosh", "arctanh")],
    ("expm1", lambda z, w: np.expm1(z), "complex expm1"),
    ("clip", lambda z, w: (np.clip(z, w, None), np.clip(z, None, w), np.clip(z, w, np.roll(z, 7)),
                           np.clip(z, 0, 5), np.clip(z, -1 + 2j, 1j)), "exact"),
    ("to bool", lambda z, w: z.astype(bool), "exact"),
    ("to the other complex",
     lambda z, w: z.astype(np.complex64 if z.dtype == np.complex128 else np.complex128), "exact"),
])
def test_special_values_match_numpy(dtype, name, fn, bound):
    # Every special against every other. Contiguous operands: NumPy's SIMD loops fuse the
    # multiply-adds of complex products as jitcore does; its loop for negative strides does not.
    # Then the grid as a 21 x 21 array through the other layouts, two at a time (one more
    # compilation), against NumPy on C copies of the same values.
    z = special_grid(dtype)
    w = z[::-1].copy()
    jitted = jc.jit(fn)
    ulps = 0 if bound == "exact" else ulp_bound(bound, np.dtype(dtype).char.lower())
    square = z.reshape(21, 21), w.reshape(21, 21)
    cases = [("C", z, w)] + [(f"{k} with {k2}", relayout(square[0], k), relayout(square[1], k2))
                             for k, k2 in (("F", "reversed"), ("strided", "F"), ("reversed", "broadcast"))]
    for layouts, a, b in cases:
        expected = numpy_result(fn, np.array(a, order="C"), np.array(b, order="C"))
        got = jitted(a, b)
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        for g, e in zip(got, expected, strict=True):
            if name == "expm1":
                g = complex_expm1_within_term_ulps(g, e, np.array(a, order="C"), ulps)
            assert_matches(g, e, ulps, f"{name} of {np.dtype(dtype).name}, {layouts}")


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_real_numbers_meet_complex_ones_with_numpy_promotion(dtype):
    # Special and ordinary values of each dtype (tests/strategies.py), random ones, and a real
    # operand meeting each complex one: promoted as NumPy promotes, then complex arithmetic.
    rng = np.random.default_rng(3)
    n = edge_set(dtype).size + 50
    z = np.concatenate([edge_set(dtype), rng.standard_normal(50) + 1j * rng.standard_normal(50)])
    x32 = np.resize(np.concatenate([edge_set(np.float32), rng.standard_normal(50)]), n)
    i16 = np.resize(np.concatenate([edge_set(np.int16), rng.integers(-50, 50, 50)]), n)
    z, x32, i16 = z.astype(dtype), x32.astype(np.float32), i16.astype(np.int16)

    def f(z, x32, i16):
        return z * x32, x32 / z, z + i16, z * 1j, 2.5 - z, x32 * 1j, z == x32

    expected = numpy_result(f, z, x32, i16)
    for g, e in zip(jc.jit(f)(z, x32, i16), expected, strict=True):
        assert_matches(g, e)


def test_python_complex_arguments_are_weak_like_numpy():
    x = np.arange(4, dtype=np.float32)
    got = jc.jit(lambda x, c: x * c)(x, 1 + 2j)
    assert_matches(got, x * (1 + 2j))  # complex64: a Python complex does not widen float32
    assert jc.jit(lambda c: c * 2)(1j) == 2j


def test_a_python_complex_times_a_float64_scalar_is_a_python_complex():
    """np.float64 subclasses float, so Python computes ``1j * s`` itself (complex.__mul__): a
    Python complex, weak in ``complex64 + 1j * s``; ``s * 1j`` is NumPy's complex128."""
    def f(x):
        s = x.sum()  # a float64 NumPy scalar
        c = s.astype(np.complex64)
        return c + 1j * s, c - 1j / s, c + 1j ** s, c + s * 1j, x.astype(np.float32) + 1j * s

    x = np.array([0.5, 1.5])
    for g, e in zip(jc.jit(f)(x), f(x), strict=True):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        assert_matches(g, e)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_reductions(dtype):
    rng = np.random.default_rng(4)
    z = (rng.standard_normal((6, 7)) + 1j * rng.standard_normal((6, 7))).astype(dtype)
    rtol = 1e-5 if dtype == np.complex64 else 1e-12

    def f(z):
        return z.sum(), z.sum(axis=0), np.prod(z[:3, :3], axis=1), z.mean(axis=1), z.var(), \
            np.std(z, axis=0, ddof=1), np.cumsum(z, axis=1), np.any(z), np.all(z, axis=0)

    for g, e in zip(jc.jit(f)(z), f(z), strict=True):
        g, e = np.asarray(g), np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol * 10)
    total = jc.jit(lambda z: z.sum())(z)
    assert type(total) is np.dtype(dtype).type  # a NumPy scalar, as NumPy returns


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("seed", range(4))
def test_max_min_and_arg_reductions_follow_numpy_nan_and_tie_rules(dtype, seed):
    # Special values drawn with repeats: ties of equal numbers (0 against -0 too), NaN in either
    # part (the first NaN wins, whichever part holds it), infinities against the identity.
    rng = np.random.default_rng(seed)
    parts = special_grid(dtype)
    z = rng.choice(parts if seed else parts[np.isfinite(parts)], size=(6, 9))

    def f(z):
        return np.max(z), np.min(z, axis=0), np.maximum.reduce(z, axis=1), \
            np.minimum.reduce(z, axis=0, keepdims=True), np.max(z, axis=(0, 1)), \
            np.argmax(z), np.argmin(z), np.argmax(z, axis=0), np.argmin(z, axis=1, keepdims=True)

    for g, e in zip(jc.jit(f)(z), f(z), strict=True):
        assert_matches(g, e)
    with pytest.raises(jc.JitTypeError, match="zero-size array"):
        jc.jit(np.max)(np.ones((0, 3), dtype))


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("scale", [1e-3, 1e-9, 1e-15])
def test_log_near_the_unit_circle_has_no_cancellation(dtype, scale):
    # |z| = 1 + d for tiny d: log|z| ~ d comes from log1p(x**2 + y**2 - 1), computed (as glibc
    # does) without the cancellation of hypot(x, y) - 1; likewise NumPy's log1p near |1 + z| = 1
    # depends on glibc's hypot rounding, which jitcore reproduces.
    rng = np.random.default_rng(8)
    angle = rng.uniform(-np.pi, np.pi, 4000)
    z = (np.exp(1j * angle) * (1 + scale * rng.standard_normal(4000))).astype(dtype)
    part = np.dtype(dtype).char.lower()
    for fn, key in ((np.log, "complex log"), (lambda z: np.log1p(z - 1), "complex log1p")):
        assert_matches(jc.jit(fn)(z), numpy_result(fn, z), ulp_bound(key, part), key)


def test_products_use_complex_multiplication():
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex128)
    b = (rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))).astype(np.complex128)
    np.testing.assert_allclose(jc.jit(lambda a, b: a @ b)(a, b), a @ b, rtol=1e-13)
    np.testing.assert_allclose(jc.jit(np.outer)(a[0], b[:, 0]), np.outer(a[0], b[:, 0]), rtol=1e-15)


def test_complex_arrays_cross_the_boundary_without_copies():
    rng = np.random.default_rng(6)
    base = (rng.standard_normal((5, 8)) + 1j * rng.standard_normal((5, 8))).astype(np.complex128)
    f = jc.jit(lambda z: z * (2 - 1j) + z.conj())
    for view in (base, np.asfortranarray(base), base[::-2, 1::3], base.T, base[:, ::-1]):
        assert_matches(f(view), view * (2 - 1j) + view.conj())


def test_in_place_updates_of_a_complex_argument_reach_the_caller():
    z = np.arange(6, dtype=np.complex64)

    @jc.jit
    def rotate(z):
        z *= 1j
        z[1:3] = -z[1:3]

    expected = z.copy()
    expected *= 1j
    expected[1:3] = -expected[1:3]
    assert rotate(z) is None
    assert_matches(z, expected)


def test_shapes_and_indexing_move_complex_values_untouched():
    z = (np.arange(12) + 1j * np.arange(12)[::-1]).astype(np.complex64).reshape(3, 4)
    z[1, 2] = complex(np.nan, -0.0)

    def f(z):
        return z.T[::-1], np.concatenate([z, z[:1]]), z[[2, 0]], np.where(z.real > 3, z, 1j), \
            np.pad(z, 1, constant_values=2 + 3j), z.at[0, 1].set(-1j)

    def ref(z):
        padded = np.pad(z, 1, constant_values=2 + 3j)
        updated = z.copy()
        updated[0, 1] = -1j
        return z.T[::-1], np.concatenate([z, z[:1]]), z[[2, 0]], np.where(z.real > 3, z, 1j), padded, updated

    for g, e in zip(jc.jit(f)(z), ref(z), strict=True):
        assert_matches(g, e)


def _write_parts(z, v):
    """NumPy's ways to write a part: through the view, by the setter, in place, and building
    a complex array from two float ones; ``early`` is a view taken before the writes."""
    z = z.copy()
    early = z.real
    z.real[1:3] = v[1:3]
    z.imag[0] = 7.0
    built = np.zeros_like(v, dtype=z.dtype)
    built.real = v
    built.imag = v[::-1]
    z.imag += 1
    after = z.copy()
    after.real = v
    return z, early, built, after, z.real[::2], z.imag


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_parts_are_views_that_writes_go_through(dtype):
    """``z.real``/``z.imag`` are views, as in NumPy (a write through one used to be lost); the
    parts go in unchanged (``array.complex``: NaN, infinities and -0.0 where they were)."""
    part = np.dtype(dtype).char.lower()
    v = np.array([np.inf, -0.0, np.nan, 2.5, -np.inf, 1e-40], part)
    z = special_grid(dtype)[::71][:6]
    got, expected = jc.jit(_write_parts)(z, v), _write_parts(z, v)
    for g, e in zip(got, expected, strict=True):
        assert_matches(g, e)


def test_parts_in_and_out_fold_to_one_kernel_and_refusals_name_the_fix():
    def build(re, im):
        z = np.zeros_like(re, dtype=np.complex128)
        z.real, z.imag = re, im
        return z
    text = jc.jit(build).lower(np.ones(3), np.ones(3)).as_text("optimized")
    assert text.count('"kernel.generic"') == 1 and '"complex.create"(%arg2, %arg3)' in text, text
    with pytest.raises(TypeError, match="does not have imaginary part") as error:
        jc.jit(lambda x: setattr(x, "imag", x))(np.ones(3))
    assert isinstance(error.value, jc.JitcoreError)
    with pytest.raises(TypeError, match="does not have imaginary part"):
        np.ones(3).imag = 1.0


def test_complex_types_in_the_ir():
    lowered = jc.jit(lambda z: np.abs(z * z)).lower(np.ones(4, np.complex64))
    traced = lowered.as_text("traced")
    assert '"array.mul"' in traced and "tensor<4xcomplex<f32>>" in traced
    assert "(tensor<4xcomplex<f32>>) -> tensor<4xf32>" in traced  # abs returns the part type
    optimized = lowered.as_text("optimized")
    assert '"complex.re"' in optimized and '"math.fma"' in optimized
    assert "load {float, float}" in lowered.as_text("llvm")


TRANSCENDENTALS = ("sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
                   "arcsinh", "arccosh", "arctanh", "expm1")


def _ordinary_and_branch_cut_values(dtype, n=4000):
    """Random values over many scales, the unit square, near the unit circle and +-1 and +-1j
    (where the inverses' regions meet), and both axes with either sign of zero (the branch cuts
    of the inverses lie on the axes beyond +-1 and +-1j)."""
    rng = np.random.default_rng(11)
    spread = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * np.exp(rng.uniform(-20, 20, n))
    square = rng.uniform(-2, 2, n) + 1j * rng.uniform(-2, 2, n)
    circle = np.exp(1j * rng.uniform(-np.pi, np.pi, n)) * (1 + 1e-7 * rng.standard_normal(n))
    near_one = rng.choice([1, -1, 1j, -1j], n) + (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 1e-6
    axis = rng.uniform(-5, 5, n)
    zero = rng.choice([0.0, -0.0], n)
    axes = _pairs(np.concatenate([axis, zero]), np.concatenate([zero, axis]), dtype)
    return np.concatenate([spread, square, circle, near_one]).astype(dtype), axes


def _pairs(re, im, dtype):
    out = np.empty(re.shape, dtype)
    out.real, out.imag = re, im  # keeps -0.0 parts, which re + 1j * im would not
    return out


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", TRANSCENDENTALS)
def test_transcendentals_match_numpy_on_ordinary_values_and_branch_cuts(name, dtype):
    fn = getattr(np, name)
    jitted = jc.jit(fn)
    bound = ulp_bound(f"complex {name}", np.dtype(dtype).char.lower())
    for z in _ordinary_and_branch_cut_values(dtype):
        got, expected = jitted(z), numpy_result(fn, z)
        if name == "expm1":
            got = complex_expm1_within_term_ulps(got, expected, z, bound)
        assert_matches(got, expected, bound, f"{name} of {np.dtype(dtype).name}")


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_transcendentals_differential(data):
    dtype = data.draw(st.sampled_from(COMPLEX))
    name = data.draw(st.sampled_from(TRANSCENDENTALS))
    width = 32 if dtype == np.complex64 else 64
    part = st.floats(width=width, allow_nan=True, allow_infinity=True)
    values = data.draw(st.lists(st.tuples(part, part), min_size=1, max_size=12))
    z = _pairs(np.array([v[0] for v in values]), np.array([v[1] for v in values]), dtype)
    fn = getattr(np, name)
    got, expected = _JITTED.setdefault(name, jc.jit(fn))(z), numpy_result(fn, z)
    bound = ulp_bound(f"complex {name}", np.dtype(dtype).char.lower())
    if name == "expm1":
        got = complex_expm1_within_term_ulps(got, expected, z, bound)
    assert_matches(got, expected, bound, f"{name} of {z!r}")


_JITTED: dict = {}


@pytest.mark.parametrize("fn, what", [
    (lambda z: np.partition(z, 1), "numpy.partition of complex numbers"),  # np.sort: since newuser38
    (lambda z: np.searchsorted(z, z[:2]), "numpy.searchsorted of complex numbers"),
])
def test_complex_functions_without_a_lowering_say_so(fn, what):
    with pytest.raises(jc.UnsupportedError, match=what):
        jc.jit(fn)(np.ones(3, np.complex128))


def test_numpy_refusals_of_complex_are_kept():
    with pytest.raises(jc.JitTypeError, match="floor"):
        jc.jit(np.floor)(np.ones(3, np.complex64))
    with pytest.raises(jc.JitTypeError, match="bitwise_and"):
        jc.jit(lambda z: z & z)(np.ones(3, np.complex64))


def test_casting_to_real_warns_like_numpy():
    z = np.array([1 + 2j, -3.5 + 0j], np.complex128)
    f = jc.jit(lambda z: z.astype(np.float32))
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
        got = f(z)
    assert_matches(got, numpy_result(lambda z: z.astype(np.float32), z))


@pytest.mark.parametrize("n", [2, 3, -1, -2, 0, 1, 7, 2.0, 99, -5 + 0j, np.int8(4), 0.5])
def test_static_powers(n):
    rng = np.random.default_rng(7)
    z = ((rng.standard_normal(64) + 1j * rng.standard_normal(64)) * 1.2).astype(np.complex128)
    got = jc.jit(lambda z, n: z ** n, static_argnums=1)(z, n)
    expected = numpy_result(lambda z: z ** n, z)
    assert got.dtype == expected.dtype
    if isinstance(n, int) and n in (2, -1, 0, 1):
        assert_matches(got, expected)  # NumPy's square, reciprocal, ones, copy: bit for bit
    else:  # repeated (fused) products against NumPy's plain ones: rounding differs slightly
        np.testing.assert_allclose(got, expected, rtol=1e-13 * max(abs(int(np.real(n))), 1))


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_integer_exponent_arrays_are_numpys_repeated_squaring(dtype):
    # Every special base against every real integer exponent NumPy squares for (|n| < 100),
    # and some it does not (100, 2.5): bit for bit where NumPy squares (plain products, Smith's
    # division for negative n; 0**n, z**0 and 1, 2, 3 as NumPy special-cases them).
    z = special_grid(dtype)
    exponents = np.array([0, 1, 2, 3, 4, 5, 7, 8, 13, 64, 99, -1, -2, -3, -7, -64, -99, -0.0], dtype)
    zz, nn = (a.ravel() for a in np.meshgrid(z, exponents))
    assert_matches(jc.jit(np.power)(zz, nn), numpy_result(np.power, zz, nn))


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_general_powers_follow_glibc_cpow(dtype):
    # cexp(w clog(z)) at every special base against exponents with special and moderate parts,
    # compared in ULP of the larger part times the condition number 1 + |w log z|. (Not z ** 100
    # for huge z in complex64: its angle, 100 * arg(z), sits within its own error of a multiple
    # of pi there, so the signs of the infinite parts are anyone's.)
    z = special_grid(dtype)
    exponents = np.array([1.5, -2.5, 0.5 + 1j, 1j, -1j, 2 - 3j, 0.3, 7.5, np.inf, -np.inf, np.nan,
                          complex(np.nan, 1), complex(1, np.inf), complex(0, np.nan)], dtype)
    zz, ww = (a.ravel() for a in np.meshgrid(z, exponents))
    rng = np.random.default_rng(9)
    zr = ((rng.standard_normal(3000) + 1j * rng.standard_normal(3000)) * 3).astype(dtype)
    wr = (rng.uniform(-1.5, 1.5, 3000) + 1j * rng.uniform(-1.5, 1.5, 3000)).astype(dtype)
    zz, ww = np.concatenate([zz, zr]), np.concatenate([ww, wr])
    expected = numpy_result(np.power, zz, ww)
    got = jc.jit(np.power)(zz, ww)
    bound = ulp_bound("complex pow", np.float64)
    assert_matches(within_conditioned_ulps(got, expected, zz, ww, bound), expected)


def _in_place_square(z):
    z **= 2
    return z


# (spelling, exponent): NumPy's ** computes an array to the Python int 2 or -1 or the Python
# float 0.5 by square, reciprocal or sqrt; every other spelling takes its power loop (whose
# (-0-0j) ** 2 is 0j, square's 0-0j), NumPy scalars their scalar math (the loop's values).
POWER_SPELLINGS = {
    "z ** 0.5": (lambda z: z ** 0.5, 0.5), "np.power(z, 0.5)": (lambda z: np.power(z, 0.5), 0.5),
    "z ** 2": (lambda z: z ** 2, 2), "np.power(z, 2)": (lambda z: np.power(z, 2), 2),
    "z ** 2.0": (lambda z: z ** 2.0, 2), "z ** int64(2)": (lambda z: z ** np.int64(2), 2),
    "z ** -1": (lambda z: z ** -1, -1), "z ** -1.0": (lambda z: z ** -1.0, -1),
    "z ** 1": (lambda z: z ** 1, 1), "z ** 0": (lambda z: z ** 0, 0),
    "z ** (2 + 0j)": (lambda z: z ** (2 + 0j), 2), "z[7] ** 0.5": (lambda z: z[7] ** 0.5, 0.5),
    "z **= 2": (lambda z: _in_place_square(z.copy()), 2),
}


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("spelling", list(POWER_SPELLINGS))
def test_each_spelling_of_a_power_is_numpys(spelling, dtype):
    fn, e = POWER_SPELLINGS[spelling]
    z = special_grid(dtype)
    expected = numpy_result(fn, z)
    got = jc.jit(fn)(z)
    assert type(got) is type(expected)
    zz = z[7] if np.ndim(expected) == 0 else z
    bound = ulp_bound("complex pow", np.float64)
    assert_matches(within_conditioned_ulps(np.asarray(got), np.asarray(expected), zz, e, bound), expected,
                   0, spelling)


@pytest.mark.parametrize("n", [1.5, 100, 1j, 2 + 1j, -7, 5])
def test_static_exponents_without_a_fast_path_take_numpys_power_loop(n):
    z = special_grid(np.complex128)
    got = jc.jit(lambda z, n: z ** n, static_argnums=1)(z, n)
    expected = numpy_result(lambda z: z ** n, z)
    if isinstance(n, int) and abs(n) < 100:  # NumPy's repeated squaring, bit for bit
        assert_matches(got, expected)
    else:
        assert_matches(within_conditioned_ulps(got, expected, z, n, ulp_bound("complex pow", np.float64)),
                       expected)


def test_reductions_and_scans_at_special_values():
    # A reduction combines each element with the identity (over no axes too: 0.0 + -0.0 is 0.0,
    # (1 + 0j) * (inf + 0j) has a nan part); a scan copies its first element.
    parts = [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 0.5]
    rng = np.random.default_rng(8)
    f = jc.jit(lambda x: (np.cumprod(x, axis=-1), np.cumsum(x, axis=0), np.prod(x, axis=-1),
                          np.prod(x, axis=()), np.sum(x, axis=()), np.multiply.reduce(x, axis=0)))
    for dtype in COMPLEX:
        for _ in range(200):
            x = np.array([complex(rng.choice(parts), rng.choice(parts)) for _ in range(6)], dtype)
            x = x.reshape(2, 3)
            want = numpy_result(lambda x: (np.cumprod(x, axis=-1), np.cumsum(x, axis=0), np.prod(x, axis=-1),
                                           np.prod(x, axis=()), np.sum(x, axis=()),
                                           np.multiply.reduce(x, axis=0)), x)
            for g, e in zip(f(x), want, strict=True):
                assert_matches(g, e, 0, f"{x.tolist()}")


def test_a_sum_over_no_axes_adds_zero_as_numpy():
    x = np.array([-0.0, 1.0, np.nan])
    assert_matches(jc.jit(lambda x: np.sum(x, axis=()))(x), np.sum(x, axis=()))  # [0.0, 1.0, nan]
    assert_matches(jc.jit(np.sum)(np.array(-0.0)), np.sum(np.array(-0.0)))  # 0.0


def test_complex_sums_run_in_partial_accumulators():
    # Like float sums (codegen/cpu/reduction.py RowReduction): the loop-carried complex add would
    # otherwise run one element at a time; the parts are summed in lanes, pairwise at the end.
    z = (np.arange(1000) * (0.5 - 0.25j)).astype(np.complex64)
    f = jc.jit(lambda z: z.sum())
    np.testing.assert_allclose(f(z), z.astype(np.complex128).sum(), rtol=1e-6)
    llvm = f.lower(z).as_text("llvm")
    lanes = re.findall(r"alloca \{float, float\}, i\d+ (\d+)", llvm)
    assert lanes[0] == "8"  # eight partial accumulators (then their cascade's stack)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_constant_on_either_side_of_a_product_keeps_its_side(dtype):
    # NumPy's fused complex product is not commutative bit for bit (0.1+0.2j times 0.3+0.7j:
    # -0.11+0.13j one way, -0.11+0.13000001j the other in complex64), so canonicalize must not
    # move a constant to the right and CSE must not merge c * x with x * c.
    c = np.array([0.1 + 0.2j, 0.5 - 0.25j, -3 + 1e-3j], dtype)
    x = np.array([0.3 + 0.7j, 1.5 + 2j, -0.7 + 9j], dtype)
    assert_matches(jc.jit(lambda v: c * v)(x), c * x)
    assert_matches(jc.jit(lambda v: v * c)(x), x * c)
    got_left, got_right = jc.jit(lambda v: (c * v, v * c))(x)
    assert_matches(got_left, c * x)
    assert_matches(got_right, x * c)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_products_that_conjugate_their_first_operand(dtype):
    # np.vdot, np.vecdot and np.vecmat conjugate a complex first operand; np.matvec does not.
    rng = np.random.default_rng(12)
    v = (rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))).astype(dtype)
    m = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    rtol = 1e-5 if dtype == np.complex64 else 1e-13
    for fn, args in ((np.vdot, (v, v[::-1])), (np.vecdot, (v, v[::-1])), (np.vecmat, (v, m)),
                     (np.matvec, (m.T, v)), (np.vecdot, (v.real, v)), (np.vdot, (v, v.real))):
        got, want = jc.jit(fn)(*args), fn(*args)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=fn.__name__)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: np.dtype(d).name)
def test_constant_integer_exponents_compile_only_their_own_path(dtype):
    # z ** 3 with the 3 a constant of the kernel: NumPy's products bit for bit at every special
    # base, and no clog/cexp of the general path left in the kernel (it cost seconds of LLVM).
    z = special_grid(dtype)
    f = lambda z: (z ** 3, z ** -3, z ** 4, z ** 13.0, np.power(z, -99), z ** (0.0 + 0j))  # noqa: E731
    for got, want in zip(jc.jit(f)(z), numpy_result(f, z), strict=True):
        assert_matches(got, want)
    assert "math.log" not in jc.jit(lambda z: z ** 3).lower(z).as_text("optimized")
