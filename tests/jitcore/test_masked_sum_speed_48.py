"""Exact masked sums at speed (maskedsum48): the compaction behind ``x[m].sum()`` and its kin
(``array.compact``) packs whole vector groups (``codegen/compress.py``, on AVX-512 targets)
instead of running a scalar loop per element, and the branching loop for sparse masks is gone.
The bits stay NumPy's: differential tests of sums, means, variances and returned selections
against NumPy (values to the bit, dtypes, Python types, arguments after the call, printed
text, errors) over special values, masks of every density, lengths around the vector groups'
and the pairwise leaves' sizes, 1-d and n-d masks, non-contiguous operands and 1 or 2
threads; and the compiled loop's shape."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import config
from jitcore.codegen.cpu import target

FLOATS = (np.float32, np.float64)
LENGTHS = (0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 127, 128, 129, 1000, 4099)
SPECIAL = (np.nan, np.inf, -np.inf, -0.0, 0.0, 1e300, -1e300, 3e38, -3e38, 1e-310, 5e-324)

SUMS = {
    "x[m].sum()": lambda x, m: x[m].sum(),
    "x[m].mean()": lambda x, m: x[m].mean(),
    "np.sum(x[m] * 2)": lambda x, m: np.sum(x[m] * 2),
    "x[m].std()": lambda x, m: x[m].std(),
    "x[m].var(ddof=1)": lambda x, m: x[m].var(ddof=1),
    "x[x > 0].sum()": lambda x, m: x[x > 0].sum(),
    "np.compress(m, x).sum()": lambda x, m: np.compress(m, x).sum(),
}
RETURNED = {
    "x[m]": lambda x, m: x[m],
    "np.flatnonzero(m)": lambda x, m: np.flatnonzero(m),
    "np.nonzero(m)": lambda x, m: np.nonzero(m),
    "np.extract(m, x + 1)": lambda x, m: np.extract(m, x + 1),
}
JITTED = {name: jc.jit(f) for name, f in {**SUMS, **RETURNED}.items()}
host_avx512 = pytest.mark.skipif("avx512" not in target.math_isa(), reason="the groups need AVX-512")


def _numpy(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return f(*args), None
        except Exception as e:  # noqa: BLE001  (compared with the compiled call's)
            return None, e


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


def _same(expected, got):
    if isinstance(expected, tuple):
        assert type(got) is tuple and len(got) == len(expected)
        for e, g in zip(expected, got):
            _same(e, g)
        return
    assert type(got) is type(expected), (type(got), type(expected), expected, got)
    e, g = np.asarray(expected), np.asarray(got)
    assert g.dtype == e.dtype and g.shape == e.shape, (expected, got)
    if e.dtype.kind == "f":  # NaN's payload aside, every bit
        nan = np.isnan(e)
        assert np.array_equal(nan, np.isnan(g)), (expected, got)
        assert np.array_equal(_bits(e[~nan]), _bits(g[~nan])), (expected, got)
    else:
        assert np.array_equal(e, g), (expected, got)


def _check(name, x, m, threads=1):
    f = {**SUMS, **RETURNED}[name]
    expected, error = _numpy(f, x.copy(), m.copy())
    before = x.copy(), m.copy()
    with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
        if error is not None:
            with pytest.raises(type(error)):
                JITTED[name](x, m)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                _same(expected, JITTED[name](x, m))
    assert np.array_equal(_bits(x), _bits(before[0])) and np.array_equal(m, before[1])


def _values(draw_or_rng, n, dtype, special: float):
    rng = draw_or_rng
    x = rng.standard_normal(n) * rng.choice([1.0, 1e6, 1e-3], size=n)
    hit = rng.random(n) < special
    x[hit] = rng.choice(SPECIAL, size=int(hit.sum()))
    with np.errstate(over="ignore"):
        return x.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(n=st.sampled_from(LENGTHS), dtype=st.sampled_from(FLOATS), name=st.sampled_from(sorted(SUMS)),
       density=st.sampled_from([0.0, 0.01, 0.3, 0.5, 0.9, 1.0]), special=st.sampled_from([0.0, 0.02, 0.3]),
       seed=st.integers(0, 2**16), threads=st.sampled_from([1, 2]))
def test_masked_sums_are_numpys_bits(n, dtype, name, density, special, seed, threads):
    rng = np.random.default_rng(seed)
    x = _values(rng, n, dtype, special)
    _check(name, x, rng.random(n) < density, threads)


@settings(max_examples=40, deadline=None)
@given(n=st.sampled_from(LENGTHS), dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
       name=st.sampled_from(sorted(RETURNED)), density=st.sampled_from([0.0, 0.05, 0.5, 1.0]),
       seed=st.integers(0, 2**16))
def test_returned_selections_are_numpys(n, dtype, name, density, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 1000).astype(dtype)
    _check(name, x, rng.random(n) < density)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("density", [0.001, 0.5, 0.999])
def test_long_masked_sums_on_threads(dtype, density):
    """10^5 terms: many whole groups, NumPy's tree over the kept count, 1 and 2 threads."""
    rng = np.random.default_rng(7)
    x = _values(rng, 10**5, dtype, 0.0)
    m = rng.random(10**5) < density
    for threads in (1, 2):
        for name in ("x[m].sum()", "x[m].mean()", "x[m].std()", "x[m]"):
            _check(name, x, m, threads)


@pytest.mark.parametrize("dtype", FLOATS)
def test_n_d_masks_and_rows(dtype):
    rng = np.random.default_rng(3)
    x = _values(rng, 6 * 7 * 5, dtype, 0.05).reshape(6, 7, 5)
    full = rng.random(x.shape) < 0.5
    lead = rng.random((6, 7)) < 0.5
    for f in (lambda x, m: x[m].sum(), lambda x, m: x[m].mean(), lambda x, m: x[m]):
        for m in (full, lead):
            expected = f(x, m)
            _same(expected, jc.jit(f)(x, m))


@pytest.mark.parametrize("dtype", FLOATS)
def test_non_contiguous_operands_take_the_scalar_loop(dtype):
    """A strided x (every other element) or a strided mask: the groups are skipped at run
    time (their strides are not 1), the scalar loop does it all."""
    rng = np.random.default_rng(5)
    x = _values(rng, 4000, dtype, 0.01)
    m = rng.random(4000) < 0.5
    f = jc.jit(lambda x, m: (x[m].sum(), x[m]))
    _same((x[::2][m[::2]].sum(), x[::2][m[::2]]), f(x[::2], m[::2]))
    _same((x[1::2][m[:2000]].sum(), x[1::2][m[:2000]]), f(x[1::2], m[:2000]))
    _same((x[:2000][m[1::2]].sum(), x[:2000][m[1::2]]), f(x[:2000], m[1::2]))


def test_other_sizes_reuse_the_code_and_stay_exact():
    f = jc.jit(lambda x, m: x[m].sum())
    for n in (1000, 1003, 5000, 77777):
        rng = np.random.default_rng(n)
        x = _values(rng, n, np.float32, 0.0)
        m = rng.random(n) < 0.4
        _same(x[m].sum(), f(x, m))


def test_printed_text_is_numpys(capsys):
    rng = np.random.default_rng(11)
    x = _values(rng, 10**4, np.float32, 0.0)
    m = rng.random(10**4) < 0.5
    print(JITTED["x[m].sum()"](x, m), JITTED["x[m].mean()"](x, m), JITTED["x[m]"](x, m)[:5])
    got = capsys.readouterr().out
    print(x[m].sum(), x[m].mean(), x[m][:5])
    assert got == capsys.readouterr().out


def test_wrong_mask_length_raises_as_numpy_does():
    x, m = np.ones(40), np.ones(41, bool)
    with pytest.raises(IndexError):
        x[m].sum()
    with pytest.raises(IndexError):
        JITTED["x[m].sum()"](x, m)


def test_no_branching_loop_for_sparse_masks():
    """One loop whatever the density: the sparse masks' loop (a branch per row, ``scf.while``)
    measured 3x slower than the groups at 1% kept and slower than the scalar loop too."""
    text = jc.jit(lambda x, m: x[m].sum()).lower(np.ones(1000), np.ones(1000, bool)).as_text("optimized")
    assert "scf.while" not in text and "compaction = true" in text, text


@host_avx512
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("name", ["x[m].sum()", "x[m]", "np.flatnonzero(m)"])
def test_groups_pack_with_one_compress_store(dtype, name):
    """The compaction's loop stores each group's kept elements by one compress store (the
    positions of ``np.flatnonzero`` too); it was a scalar store per element."""
    if name == "x[m].sum()" and dtype not in FLOATS:
        pytest.skip("integer sums are masked reductions, no compaction")
    x = np.ones(10**5, dtype)
    text = JITTED[name].lower(x, x > 0).as_text("llvm-opt")
    assert "llvm.masked.compressstore" in text, text[-3000:]


def test_the_count_sums_in_int32_and_its_window_reads_it():
    """The mask's count sums int32 lanes (16 a vector where int64 has 8: half the time), then
    widens; the head sum's window ends at the widened count (``masked_rows`` reads through
    ``arith.extsi``), so its tree is NumPy's over the count, not over all n."""
    f = jc.jit(lambda x, m: x[m].sum())
    x = np.ones(1000, np.float32)
    text = f.lower(x, x > 0).as_text("optimized")
    assert "inits = [0 : i32]" in text and '"arith.extsi"' in text, text
    x = np.array([1e8, 1.0, -1e8] * 300 + [3.0] * 100, np.float32)
    m = np.tile([True, True, False, True], 250)
    _same(x[m].sum(), f(x, m))
