"""Row groups (codegen/cpu/rowwise.py): softmax, layernorm and other chains of kernels over the
same rows run row block by row block, one launch, and give the bits of the kernels run one
after another, on any number of threads; kernels that read another's result across rows are
never grouped. NumPy is the oracle for the values. And GELU's ``x ** 3`` is the exact cube
rounded once."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config
from jitcore.codegen.cpu import rowwise, runtime
from tests.budget import examples


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x):
    mean = x.mean(axis=1, keepdims=True)
    centred = x - mean
    return centred / jnp.sqrt((centred * centred).mean(axis=1, keepdims=True) + 1e-5)


def row_scaled(x):  # a row's norm, then every element over it: two kernels
    return x / jnp.sqrt((x * x).sum(axis=1, keepdims=True))


def across_rows(x):  # row sums read as a row: every row needs every row's sum first
    return x - x.sum(axis=1)[None, :]


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_layernorm(x):
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred * centred).mean(axis=1, keepdims=True) + 1e-5)


ORACLES = {softmax: numpy_softmax, layernorm: numpy_layernorm,
           row_scaled: lambda x: x / np.sqrt((x * x).sum(axis=1, keepdims=True)),
           across_rows: lambda x: x - x.sum(axis=1)[None, :]}


@pytest.fixture(autouse=True)
def small_groups(monkeypatch):
    """Groups and split kernels at any size, and blocks of a few rows, so that small arrays
    cross many block and chunk boundaries."""
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)
    monkeypatch.setattr(rowwise, "ROW_BLOCK_BYTES", 3 * 8 * 7)


def _llvm(fn, x) -> str:
    return jc.jit(fn).lower(x).as_text("llvm")


def _ungrouped(fn, x, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(rowwise, "row_groups", lambda *args: [])
        jitted = jc.jit(fn)
        assert "_rows" not in jitted.lower(x).as_text("llvm")
        return jitted(x)


def _same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("fn", [softmax, layernorm, row_scaled], ids=lambda f: f.__name__)
def test_row_chains_run_as_one_group(fn):
    text = _llvm(fn, np.ones((40, 30), np.float32))
    # split: the rows kernel is handed to the process's launcher (``runtime._emit_chunked``)
    launcher = r'call void @"jitcore_cpu_run_chunks_of_\d+"\([^\n]*@"[^"]*_rows"'
    assert text.count("_rows\"(") >= 1 and re.search(launcher, text)


def test_a_read_across_rows_is_not_grouped(monkeypatch):
    x = np.random.default_rng(1).standard_normal((30, 30))
    assert "_rows\"(" not in _llvm(across_rows, x)
    with config.using(num_threads=3, parallel_threshold=0, chunk_size=40):
        got = jc.jit(across_rows)(x)
    np.testing.assert_allclose(got, ORACLES[across_rows](x), rtol=1e-12, atol=1e-12)


def _groups(fn, *args, monkeypatch) -> list:
    made = []
    real = rowwise.row_groups

    def recorded(*a, **k):
        made[:] = real(*a, **k)
        return made

    with monkeypatch.context() as m:
        m.setattr(rowwise, "row_groups", recorded)
        jc.jit(fn).lower(*args).as_text("llvm")
    return made


def test_a_block_counts_the_rows_of_every_buffer(monkeypatch):
    """Rows per block: ROW_BLOCK_BYTES over a row of every buffer the group reads or writes
    row by row, not of the widest alone (x, the output, the two row values: 2 * 1024 + 8)."""
    monkeypatch.setattr(rowwise, "ROW_BLOCK_BYTES", 8192)
    x = np.ones((64, 256), np.float32)
    (group,) = _groups(softmax, x, monkeypatch=monkeypatch)
    assert sorted(group.row_buffers) == [((), 4), ((), 4), ((256,), 4), ((256,), 4)]
    assert group.block == 8192 // (2 * 1024 + 8)
    (two_inputs,) = _groups(lambda x, y: (x - y.sum(axis=1, keepdims=True)) * y, x, x + 1,
                            monkeypatch=monkeypatch)
    assert two_inputs.block == 8192 // (3 * 1024 + 4)


# CI runs 15 of the 25 examples: each compiles twice (grouped and not), and the three functions
# times two dtypes come up within them; test_full_size_rows_on_threads covers the long rows.
@settings(max_examples=examples(25, ci=15), deadline=None)
@given(fn=st.sampled_from([softmax, layernorm, row_scaled]),
       dtype=st.sampled_from([np.float32, np.float64]),
       rows=st.integers(2, 41), cols=st.integers(1, 70), seed=st.integers(0, 2**32 - 1),
       threads=st.sampled_from([1, 2, 3]))
def test_grouped_rows_give_the_ungrouped_bits(fn, dtype, rows, cols, seed, threads):
    x = (np.random.default_rng(seed).standard_normal((rows, cols)) * 4 + 1).astype(dtype)
    with pytest.MonkeyPatch.context() as monkeypatch:
        expected = _ungrouped(fn, x, monkeypatch)
    with config.using(num_threads=threads, parallel_threshold=0, chunk_size=17):
        got = jc.jit(fn)(x)
    assert _same_bits(got, expected)
    tolerance = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, ORACLES[fn](x), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [softmax, layernorm], ids=lambda f: f.__name__)
def test_full_size_rows_on_threads(fn, dtype, monkeypatch):
    monkeypatch.setattr(rowwise, "ROW_BLOCK_BYTES", 16 * 1024)
    x = np.random.default_rng(5).standard_normal((515, 1024)).astype(dtype)
    expected = _ungrouped(fn, x, monkeypatch)
    for threads in (1, 2):
        with config.using(num_threads=threads, parallel_threshold=0, chunk_size=50_000):
            assert _same_bits(jc.jit(fn)(x), expected)



@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("fn, shape", [(layernorm, (0, 5)), (layernorm, (5, 0)), (softmax, (0, 5))],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_empty_rows_and_no_rows(fn, shape):
    """No rows, or rows of no elements (a mean of nothing is NaN, as NumPy's): NumPy's result,
    on two threads."""
    x = np.zeros(shape)
    with config.using(num_threads=2, parallel_threshold=0, chunk_size=3), np.errstate(all="ignore"):
        got = jc.jit(fn)(x)
        expected = ORACLES[fn](x)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_softmax_of_rows_of_no_elements_is_numpys_error():
    with pytest.raises(ValueError, match="zero-size array"):
        jc.jit(softmax)(np.zeros((5, 0)))


# GELU's cube: ``x ** 3`` (pow with the constant exponent 3, codegen/scalar.py ``_cube``) is
# rounded once from the exact cube, as a correctly rounded pow is, at any magnitude.

def _nearest(x: float, got: float, other: float) -> bool:
    """``got`` is at least as near the exact ``x**3`` as ``other`` (both finite)."""
    exact = Fraction(x) ** 3
    return abs(Fraction(got) - exact) <= abs(Fraction(other) - exact)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cube_is_rounded_once(dtype):
    rng = np.random.default_rng(11)
    exponents = (-40, 40) if dtype == np.float32 else (-350, 350)
    x = rng.uniform(1, 2, 20_000) * 2.0 ** rng.integers(*exponents, 20_000)
    x = (x * rng.choice([-1, 1], x.size)).astype(dtype)
    got = jc.jit(lambda v: v ** 3)(x)
    info = np.finfo(dtype)
    with np.errstate(all="ignore"):
        want = x ** 3
    finite = np.isfinite(want) & (np.abs(want) >= info.tiny)
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert finite.sum() > x.size // 4
    ulps = np.abs(got.view(np.int64 if dtype == np.float64 else np.int32).astype(np.int64)
                  - want.view(np.int64 if dtype == np.float64 else np.int32).astype(np.int64))
    assert ulps[finite].max() <= 1
    for i in np.flatnonzero(finite & (ulps > 0))[:300]:
        neighbours = [np.nextafter(got[i], dtype(np.inf)), np.nextafter(got[i], dtype(-np.inf))]
        assert all(_nearest(float(x[i]), float(got[i]), float(n)) for n in neighbours), x[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cube_special_values(dtype):
    big = 5.7e102 if dtype == np.float64 else 7e12
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, big, -big, 1e-300, -1e-300, 2.0 ** -310,
                  -3.0, 1.5], dtype)
    with np.errstate(all="ignore"):
        want = x ** 3
    got = jc.jit(lambda v: v ** 3)(x)
    np.testing.assert_array_equal(got, want)  # NaN where NaN; zeros, infs and exact cubes
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e102, max_value=1e102))
def test_cube_of_any_float64_is_the_nearest(v):
    got = float(jc.jit(lambda x: x ** 3)(np.array([v]))[0])
    assume_normal = abs(Fraction(v) ** 3) >= Fraction(np.finfo(np.float64).tiny)
    if assume_normal:
        for n in (np.nextafter(got, np.inf), np.nextafter(got, -np.inf)):
            assert _nearest(v, got, float(n))


def test_a_chunk_of_a_group_holds_a_megabyte_of_its_rows():
    """``rowwise.min_chunk_rows``: ``CHUNK_BYTES`` of the rows of every row buffer, at most a
    ``CHUNKS_AT_LEAST``-th of the rows, at least one; a run-time row length gives a value."""
    from llvmlite import ir as ll

    from jitcore.codegen.loops import Sizes

    module = ll.Module()
    fn = ll.Function(module, ll.FunctionType(ll.VoidType(), [ll.PointerType()]), "f")
    b = ll.IRBuilder(fn.append_basic_block())
    rows_of = (((1024,), 4), ((), 4), ((1024,), 4))  # softmax f32: x, a row value, the output
    group = rowwise.RowGroup([0, 1], 4096, 1, 0, rows_of)
    bytes_rule = rowwise.CHUNK_BYTES // (2 * 4096 + 4)
    assert rowwise.min_chunk_rows(b, Sizes(), group) == min(bytes_rule, 4096 // rowwise.CHUNKS_AT_LEAST)
    few = rowwise.RowGroup([0, 1], 40, 1, 0, rows_of)
    assert rowwise.min_chunk_rows(b, Sizes(), few) == -(-40 // rowwise.CHUNKS_AT_LEAST)
    empty = rowwise.RowGroup([0, 1], 5, 1, 0, (((0,), 8),))
    assert rowwise.min_chunk_rows(b, Sizes(), empty) == 1
    sizes = Sizes((4096, 1024))
    sizes.bind(b, fn.args[0])
    assert isinstance(rowwise.min_chunk_rows(b, sizes, group), ll.Value)
