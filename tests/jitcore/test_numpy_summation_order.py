"""Float sums in NumPy's own order (``codegen/cpu/reduction.PairwiseRow``): ``sum``, ``mean``,
``var``, ``std``, ``np.add.reduce`` and ``nansum`` give NumPy's bits, so printed results match.
NumPy is the oracle: every check compares bits (``view`` as integers), dtype and Python type."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
import jitcore.numpy as jnp

FLOATS = (np.float64, np.float32)


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int64 if a.dtype == np.float64 else np.int32)


def _same(expected, got):
    assert type(got) is type(expected), (type(got), type(expected))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    assert np.array_equal(_bits(got), _bits(expected)), (expected, got)


def _values(n: int, dtype, seed: int, cancel: bool) -> np.ndarray:
    """Normal values; with ``cancel``, large terms of both signs that mostly cancel, where
    a different summation order shows in many bits."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    if cancel:
        x = x * rng.choice([1.0, 1e8], size=n) - x.mean()
    return x.astype(dtype)


_sum = jc.jit(lambda x: x.sum())
_mean = jc.jit(lambda x: x.mean())
_var = jc.jit(lambda x: x.var())
_std = jc.jit(lambda x: x.std())


def test_the_reported_mean_prints_numpys_digits(capsys):
    x = np.arange(30.0) / 7
    jc.jit(lambda x: print(x.mean()))(x)
    assert capsys.readouterr().out.strip() == str(x.mean()) == "2.0714285714285716"
    _same(x.sum(), _sum(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_every_size_up_to_300_and_some_large(dtype):
    for n in [*range(0, 300), 1000, 4097, 8193, 100_003, 1_000_000]:
        x = _values(n, dtype, n, cancel=n % 2 == 1)
        _same(x.sum(), _sum(x))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 5000), dtype=st.sampled_from(FLOATS), seed=st.integers(0, 2**16),
       cancel=st.booleans())
def test_sum_mean_var_std_of_1d(n, dtype, seed, cancel):
    x = _values(n, dtype, seed, cancel)
    _same(x.sum(), _sum(x))
    if n:
        _same(x.mean(), _mean(x))
        _same(x.var(), _var(x))
        _same(x.std(), _std(x))


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 70), cols=st.integers(1, 300), dtype=st.sampled_from(FLOATS),
       seed=st.integers(0, 2**16), cancel=st.booleans())
def test_2d_axes(rows, cols, dtype, seed, cancel):
    x = _values(rows * cols, dtype, seed, cancel).reshape(rows, cols)
    for axis in (None, 0, -1):
        _same(x.sum(axis=axis), jc.jit(lambda x, a=axis: x.sum(axis=a))(x))
        _same(x.mean(axis=axis), jc.jit(lambda x, a=axis: x.mean(axis=a))(x))
    _same(x.var(axis=-1), jc.jit(lambda x: x.var(axis=-1))(x))
    _same(x.std(axis=0), jc.jit(lambda x: x.std(axis=0))(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_add_reduce_nansum_and_fused_products(dtype):
    x, y = _values(3001, dtype, 1, True), _values(3001, dtype, 2, False)
    _same(np.add.reduce(x), jc.jit(lambda x: np.add.reduce(x))(x))
    _same(np.nansum(x), jc.jit(lambda x: np.nansum(x))(x))
    _same((x * y).sum(), jc.jit(lambda x, y: (x * y).sum())(x, y))
    _same((x - 1).sum(), jc.jit(lambda x: (x - 1).sum())(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_layouts_numpy_reads_as_one_run(dtype):
    a = _values(200 * 77, dtype, 3, True).reshape(200, 77)
    f = np.asfortranarray(a)  # summed in memory order, by NumPy as by jitcore
    _same(f.sum(), jc.jit(lambda x: x.sum())(f))
    _same(a.T.sum(), jc.jit(lambda x: x.T.sum())(a))
    _same(a[:, ::2].sum(axis=1), jc.jit(lambda x: x[:, ::2].sum(axis=1))(a))
    _same(a[::-1].sum(axis=1), jc.jit(lambda x: x.sum(axis=1))(a[::-1]))


def test_size_generic_rows():
    """Rows whose length is known only at run time sum in the same order."""
    f = jc.jit(lambda x: x.sum(axis=-1))
    for cols in (5, 17, 129, 300, 1031):
        x = _values(3 * cols, np.float64, cols, True).reshape(3, cols)
        _same(x.sum(axis=-1), f(x))


def test_arguments_are_untouched():
    x = _values(999, np.float64, 4, True)
    before = x.copy()
    _sum(x)
    assert np.array_equal(_bits(x), _bits(before))


# -- threads: whole subtrees of NumPy's tree (codegen/cpu/pairwise_pieces.py) -----------------
THREADS = (1, 2, 3, 4, 7)
# around the cuts (a piece at least 4096 elements: 8192 is two pieces, 2**19 the 64 at most),
# odd sizes whose splits round down to multiples of 8, and past the cap
THREADED_SIZES = (8191, 8192, 8193, 12_345, 40_007, 2**19 - 3, 2**19, 1_000_003)


def _on_threads(f, args, threads):
    from jitcore import config
    with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
        return f(*args)


@pytest.mark.parametrize("dtype", FLOATS)
def test_long_sums_on_threads_keep_numpys_bits(dtype, monkeypatch):
    from jitcore.codegen.cpu import runtime
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)  # compiled split at every size
    fns = {"sum": (lambda x: x.sum(), np.sum), "mean": (lambda x: x.mean(), np.mean),
           "nansum": (lambda x: np.nansum(x), np.nansum),
           "sum-2d": (lambda x: x.reshape(8, -1).sum(), lambda x: x.reshape(8, -1).sum())}
    for name, (fn, ref) in fns.items():
        f = jc.jit(fn)
        for n in THREADED_SIZES:
            if name == "sum-2d" and n % 8:
                continue
            x = _values(n, dtype, n, cancel=True)
            if n >= 16384:
                assert runtime.RUN_CHUNKS_SYMBOL in f.lower(x).plan().llvm_ir, (name, n, "not split")
            for threads in THREADS:
                _same(ref(x), _on_threads(f, [x], threads))


def test_threads_of_a_size_generic_sum_and_of_one_size(monkeypatch):
    """One kernel for every length (its cut computed when it runs) and one compiled for its
    length (the cut fixed) give NumPy's bits on any thread count."""
    from jitcore.codegen import host
    from jitcore.codegen.cpu import runtime
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)
    x = _values(300_001, np.float64, 5, cancel=True)
    for generic in (True, False):
        monkeypatch.setattr(host, "SIZE_GENERIC", generic)
        f = jc.jit(lambda x: jnp.sum(jnp.log(jnp.exp(x))))
        for threads in THREADS:
            _same(np.sum(np.log(np.exp(x))), _on_threads(f, [x], threads))


def test_env_thread_count_gives_numpys_bits():
    """JITCORE_NUM_THREADS in a fresh process: the same bits as NumPy's."""
    import os
    import subprocess
    import sys
    code = ("import numpy as np, jitcore as jc\n"
            "x = np.random.default_rng(1).normal(size=1_000_003) * 1e8\n"
            "got = jc.jit(lambda x: x.sum())(x)\n"
            "print(got == x.sum(), repr(got))")
    for threads in ("1", "3", "4"):
        env = {**os.environ, "JITCORE_NUM_THREADS": threads}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             check=True).stdout
        assert out.startswith("True"), (threads, out)


# -- costly bodies: their elements computed first, leaves side by side (PairwiseRow._leaves) --
COSTLY = {"log-exp": lambda x: jnp.log(jnp.exp(x)), "exp": jnp.exp, "tanh": jnp.tanh,
          "sin": jnp.sin, "sqrt-abs": lambda x: jnp.sqrt(jnp.abs(x))}


@settings(max_examples=30, deadline=None)
@given(n=st.one_of(st.integers(0, 5000), st.sampled_from([131_072, 100_003, 2**16 + 8])),
       dtype=st.sampled_from(FLOATS), name=st.sampled_from(sorted(COSTLY)), seed=st.integers(0, 2**16),
       layout=st.sampled_from(["whole", "rows", "stepped"]))
def test_sums_of_costly_bodies_are_numpys_sum_of_the_same_elements(n, dtype, name, seed, layout):
    """jit(sum(f(x))) is NumPy's pairwise sum of jit(f)(x), bit for bit: the same elements
    (jitcore's math library) added in NumPy's order, however the leaves are interleaved."""
    f = COSTLY[name]
    x = _values(n, dtype, seed, cancel=False)
    if layout == "rows" and n >= 3:
        x = x[:n - n % 3].reshape(3, -1)
    elif layout == "stepped":
        x = x[::2]
    elements = jc.jit(f)(x)
    _same(np.sum(elements, axis=-1), jc.jit(lambda x: jnp.sum(f(x), axis=-1))(x))
    _same(np.sum(elements), jc.jit(lambda x: jnp.sum(f(x)))(x))
