"""The one-pass compaction (``array.compact``, passes/kernelize/compact.py) behind returned
x[mask], np.nonzero and its kin: differential against NumPy at every density (nothing kept,
sparse and dense masks, everything kept), with
rows of any shape, and the compiled program's shape: one compaction kernel, no index array
made for every element, no scatter."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jitcore import jit
from tests.test_data_dependent_length import check

SPARSE = 16  # one kept row in this many: the branching loop's bound until maskedsum48

J = functools.partial(jit, cache=False)

FUNCTIONS = {
    "x[m]": lambda x, m: x[m],
    "x[m] rows": lambda x, m: x.reshape(len(m), 2, 2)[m],
    "extract": lambda x, m: np.extract(m, x * 2),
    "compress": lambda x, m: np.compress(m, x),
    "nonzero": lambda x, m: np.nonzero(m),
    "nonzero 2-d": lambda x, m: np.nonzero(m.reshape(-1, 2)) if len(m) % 2 == 0 else np.nonzero(m),
    "flatnonzero": lambda x, m: np.flatnonzero(m),
    "argwhere": lambda x, m: np.argwhere(m),
    "argwhere 2-d": lambda x, m: np.argwhere(m.reshape(2, -1)) if len(m) % 2 == 0 else np.argwhere(m),
    "nonzero used": lambda x, m: (np.nonzero(m)[0] * 3, np.flatnonzero(m) + 1),
}


def _mask(n: int, kept: list[int]) -> np.ndarray:
    m = np.zeros(n, bool)
    m[[k % n for k in kept] if n else []] = True
    return m


@pytest.mark.parametrize("name", FUNCTIONS)
@settings(max_examples=15, deadline=None)
@given(n=st.integers(0, 3 * SPARSE * 4), kept=st.lists(st.integers(0, 10_000), max_size=12),
       dense=st.booleans(), seed=st.integers(0, 2**16))
def test_every_density(name, n, kept, dense, seed):
    rng = np.random.default_rng(seed)
    m = rng.random(n) < 0.5 if dense else _mask(n, kept)
    x = rng.standard_normal(n * 4) if name == "x[m] rows" else rng.standard_normal(n)
    check(FUNCTIONS[name], x, m)


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("density", ["none", "one first", "one last", "sparse", "dense", "all"])
def test_densities_at_a_larger_size(name, density):
    n = 4000
    m = np.zeros(n, bool)
    if density == "one first":
        m[0] = True
    elif density == "one last":
        m[-1] = True
    elif density == "sparse":
        m[np.random.default_rng(1).choice(n, n // (4 * SPARSE), replace=False)] = True
    elif density == "dense":
        m = np.random.default_rng(2).random(n) < 0.7
    elif density == "all":
        m[:] = True
    x = np.random.default_rng(3).standard_normal(4 * n if name == "x[m] rows" else n)
    check(FUNCTIONS[name], x, m)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float32, np.complex128])
def test_rows_of_each_dtype(dtype):
    x = (np.arange(60).reshape(20, 3) % 7).astype(dtype)
    m = np.arange(20) % 3 == 1
    check(lambda x, m: x[m], x, m)
    check(lambda x, m: x[m, 1:], x, m)


def _optimized(fn, *args) -> str:
    return J(fn).lower(*args).as_text("optimized")


@pytest.mark.parametrize("fn", [lambda x: x[x > 0], lambda x: np.nonzero(x > 0),
                                lambda x: np.flatnonzero(x), lambda x: np.argwhere(x > 1),
                                lambda x: np.compress(x > 0, x)])
def test_one_compaction_kernel_no_scatter_no_index_array(fn):
    """The compaction is one pass: no scatter (kernel.insert in a parallel kernel), no scan
    making every element's index (as np.nonzero's positions were)."""
    text = _optimized(fn, np.zeros(1000))
    assert text.count('fills = [0]') == 1, text
    assert '"scan"' not in text, text
    assert 'mode = "set"' in text and "scf.for" in text and "compaction = true" in text


def test_nothing_kept_runs_no_loop_and_another_size_reuses_the_code():
    f = J(lambda x, t: np.nonzero(x > t))
    for n in (1000, 3000, 5000):
        x = np.random.default_rng(n).standard_normal(n)
        for t in (10.0, 2.5, 0.0, -10.0):
            got, want = f(x, t), np.nonzero(x > t)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[0].dtype == want[0].dtype
    assert f.cache_info().compiles == 1


@pytest.mark.parametrize("density", [0.0, 0.02, 0.6])
def test_on_the_emulated_gpu(monkeypatch, density):
    """The CUDA backend runs the same kernel (one thread: a scalar loop), emulated here."""
    from tests.gpu_emulator import emulate

    emulate(monkeypatch)
    x = np.random.default_rng(5).standard_normal(300).astype(np.float32)
    m = np.random.default_rng(6).random(300) < density
    f = jit(lambda x, m: (x[m], np.nonzero(m)[0]), backend="cuda", cache=False)
    got, want = f(x, m), (x[m], np.nonzero(m)[0])
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == w.dtype
        np.testing.assert_array_equal(np.asarray(g), w)
