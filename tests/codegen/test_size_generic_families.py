"""Size-generic kernels, round 2 (issue 13 item 2): the families that used to compile per size.

Each family's function is called jitted at three sizes of the same rank, dtypes, layout and
broadcasting pattern, on both sides of the size-dependent choices its code makes (a row group
below and above the thread threshold, a column sum cut into pieces of rows or not, BLAS);
it must compile once, agree with NumPy, and give at each size the very bits of the same
function compiled for that size alone (``host.SIZE_GENERIC = False``: extents as constants,
choices made when compiling), so making it generic changed no summation order.
"""

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen import host
from jitcore.codegen.cpu import blas, runtime


def not_yet(what):
    return pytest.mark.xfail(strict=True, reason=f"{what} still compiles per size")


def rows(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def fixed_size(fn, args):
    """``fn(*args)`` compiled for these sizes alone (extents constants)."""
    host.SIZE_GENERIC = False
    try:
        return jc.jit(fn, cache=False)(*args)
    finally:
        host.SIZE_GENERIC = True


def check_generic(fn, reference, sizes, rtol=1e-5, atol=1e-6):
    jitted = jc.jit(fn, cache=False)
    for args in sizes:
        got = jitted(*args)
        np.testing.assert_allclose(got, reference(*args), rtol=rtol, atol=atol)
        np.testing.assert_array_equal(got, fixed_size(fn, args))
    info = jitted.cache_info()
    assert (info.traces, info.compiles, info.reused) == (len(sizes), 1, len(sizes) - 1)


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x):
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / jnp.sqrt((centred * centred).mean(axis=1, keepdims=True) + 1e-5)


def numpy_layernorm(x):
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred * centred).mean(axis=1, keepdims=True) + 1e-5)


# Softmax's kernels over (r, c) weigh about 3 * r * c points: the first size is below
# runtime.MIN_SPLIT_WORK (one call, formerly no row group), the others above (a row group).
assert 3 * 20 * 100 < runtime.MIN_SPLIT_WORK < 3 * 40 * 333


def test_softmax_over_rows_below_and_above_the_thread_threshold():
    check_generic(softmax, numpy_softmax, [(rows((20, 100)),), (rows((64, 600), 1),),
                                           (rows((40, 333), 2),)])


def test_layernorm_over_more_and_fewer_rows():
    """The row length stays 500: a mean's ``1/n`` is a constant of the program (a length of
    its own compiles again, ``test_size_generic.test_a_mean_compiles_per_size``)."""
    check_generic(layernorm, numpy_layernorm, [(rows((9, 500)),), (rows((90, 500), 1),),
                                               (rows((33, 500), 2),)], atol=1e-5)


def test_column_sums_in_pieces_of_rows_and_not():
    """100000 and 7000 rows of 16 are cut into pieces of rows (several, and two); 300 rows are
    one piece (no cut)."""
    check_generic(lambda x: x.sum(axis=0), lambda x: x.sum(axis=0, dtype=np.float64),
                  [(rows((100_000, 16)),), (rows((300, 16), 1),), (rows((7000, 16), 2),)],
                  rtol=1e-5, atol=1e-3)


needs_blas = pytest.mark.skipif(blas.library() is None, reason="no BLAS in this process")


@needs_blas
def test_matrix_vector_products_on_blas():
    check_generic(lambda a, v: a @ v, lambda a, v: a @ v,
                  [(rows((30, 50)), rows(50, 1)), (rows((300, 70), 2), rows(70, 3)),
                   (rows((64, 200), 4), rows(200, 5))], rtol=1e-4, atol=1e-4)


@needs_blas
def test_thin_products_on_blas():
    """Four columns: fewer than ``gemm.TILED_MIN_SIDE``, so BLAS computes them."""
    check_generic(lambda a, b: a @ b, lambda a, b: a @ b,
                  [(rows((30, 50)), rows((50, 4), 1)), (rows((300, 70), 2), rows((70, 4), 3)),
                   (rows((64, 200), 4), rows((200, 4), 5))], rtol=1e-4, atol=1e-4)


def test_tiled_products_of_any_row_count():
    """A batch of rows times a fixed matrix (issue 13's inference service): the tiled kernel
    takes its row count at run time. 3000 rows are cut into chunks of rows (above the thread
    threshold), 200 and 30 rows are one chunk."""
    w = rows((64, 48), 1)
    check_generic(lambda x, w: x @ w, lambda x, w: x @ w,
                  [(rows((30, 64)), w), (rows((3000, 64), 2), w), (rows((200, 64), 3), w)],
                  rtol=1e-4, atol=1e-4)


def test_tiled_products_of_a_transposed_batch():
    """``a.T @ w``: A's rows are its columns, their stride the run-time row count."""
    w = rows((40, 24), 1)
    check_generic(lambda a, w: a.T @ w, lambda a, w: a.T @ w,
                  [(rows((40, 30)), w), (rows((40, 130), 2), w), (rows((40, 57), 3), w)],
                  rtol=1e-4, atol=1e-4)


def test_tiled_products_cut_into_column_chunks():
    """600 columns cut into more chunks than 500 or 700 rows: chunks of columns, one range of
    every row; 40 rows are one chunk."""
    w = rows((32, 600), 1)
    check_generic(lambda x, w: x @ w, lambda x, w: x @ w,
                  [(rows((500, 32)), w), (rows((40, 32), 2), w), (rows((700, 32), 3), w)],
                  rtol=1e-4, atol=1e-4)


def test_tiled_products_with_a_fused_epilogue():
    """80 columns: at least ``EPILOGUE_MIN_COLUMNS``, so the epilogue is fused into the kernel."""
    w, bias = rows((24, 80), 1), rows(80, 2)
    check_generic(lambda x, w, b: jnp.tanh(x @ w + b), lambda x, w, b: np.tanh(x @ w + b),
                  [(rows((50, 24)), w, bias), (rows((17, 24), 3), w, bias),
                   (rows((90, 24), 4), w, bias)], rtol=1e-4, atol=1e-4)


@not_yet("a tiled product whose columns or k change")
def test_tiled_products_of_other_columns_and_depths():
    """Only the row count is a run-time value of the tiled kernel: its tile and blocks come
    from the columns and k."""
    check_generic(lambda a, b: a @ b, lambda a, b: a @ b,
                  [(rows((30, 50)), rows((50, 40), 1)), (rows((100, 70), 2), rows((70, 90), 3)),
                   (rows((64, 20), 4), rows((20, 33), 5))], rtol=1e-4, atol=1e-4)
