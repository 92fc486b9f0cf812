"""Kernels that differ only in where they start reading share one function
(``codegen/cpu/shared_kernels.py``): an unrolled loop over ``x[i]`` compiles one kernel, and
every launch reads exactly its own elements, whatever the argument's layout."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import shared_kernels


def row_sums(x):
    out = []
    for i in range(5):
        out.append(np.sin(x[i]).sum())
    return out


def column_maxes(x):
    return [np.abs(x[:, j]).max() - x[:, j].min() for j in range(4)]


def window_sums(v):
    s = 0.0
    for k in range(6):
        s = s + (v[k:k + 50] * 2.0 + 1.0).sum()
    return s


def _defines(jitted, *args) -> list[str]:
    return [line for line in jitted.lower(*args).as_text("llvm").splitlines() if line.startswith("define")]


def _both(fn, *args):
    """``fn`` jitted with kernels shared and, as the reference, each its own; (shared, own)."""
    shared = jc.jit(fn, cache=False)(*args)
    saved = shared_kernels.SHARE
    shared_kernels.SHARE = False
    try:
        own = jc.jit(fn, cache=False)(*args)
    finally:
        shared_kernels.SHARE = saved
    return shared, own


def test_an_unrolled_loop_compiles_one_kernel():
    x = np.random.default_rng(0).standard_normal((7, 300))
    defines = _defines(jc.jit(row_sums, cache=False), x)
    assert sum("_shared" in d and "_worker" not in d for d in defines) == 1


@pytest.mark.parametrize("fn, layout", [(row_sums, "C"), (row_sums, "rows reversed"), (row_sums, "strided"),
                                        (column_maxes, "F"), (column_maxes, "strided")],
                         ids=["rows-C", "rows-reversed", "rows-strided", "columns-F", "columns-strided"])
def test_each_launch_reads_its_own_elements(fn, layout):
    base = np.random.default_rng(1).standard_normal((12, 40))
    base[2, 5], base[3, 7] = np.inf, -0.0
    x = {"C": base[:6], "F": np.asfortranarray(base[:6]), "rows reversed": base[::-1][:6],
         "strided": base[::2, ::3]}[layout]
    shared, own = _both(fn, x)
    assert [np.asarray(a).tobytes() for a in shared] == [np.asarray(a).tobytes() for a in own]
    for got, want in zip(shared, fn(x)):  # NumPy's sin differs in the last bit: a sum's worth
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13 * x.shape[1])


def test_shifted_windows_share_and_sizes_stay_generic():
    jitted = jc.jit(window_sums, cache=False)
    for n in (80, 200):  # one compile serves both sizes (size-generic code)
        v = np.linspace(-3.0, 5.0, n)
        got = jitted(v)
        assert got == pytest.approx(window_sums(v), rel=1e-14)
    assert sum("_shared" in d and "_worker" not in d for d in _defines(jitted, v)) == 1


def test_an_integer_index_reads_in_place():
    """``np.sin(x[3]).sum()``: one kernel reading row 3 of ``x``, no copy of the row first."""
    x = np.arange(20.0).reshape(4, 5)
    optimized = jc.jit(lambda x: np.sin(x[3]).sum(), cache=False).lower(x).as_text("optimized")
    assert optimized.count('"kernel.generic"') == 1
    assert "array.reshape" not in optimized
