"""Size-generic kernels (issue 13 item 2): a new array size re-traces but reuses machine code.

A function's extents are run-time values in its code (``codegen/loops.py``'s ``Sizes``), so a
new size with the same rank, dtypes, layout and broadcasting pattern emits the same LLVM IR,
and the backend reuses that IR's machine code (extents one step from an argument's, ``n - 1``
or ``n // 2``, too). Where a size changes the program (a slice far from an end, a static
reshape by thirds, ``1/n`` in a mean, a loop unrolled ``n`` times, broadcasting against a size 1)
the IR differs and it compiles again. Every result is checked against NumPy; ``cache_info``
counts traces, compiles and reuses.
"""

import gc
import os
import subprocess
import sys
import textwrap
import threading
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config
from jitcore.codegen.cpu import runtime

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL = runtime.MIN_SPLIT_WORK  # below it a launch compiles unsplit; at or above, for threads


def g(x, y):
    return jnp.tanh(x * 2 + y)


def g_args(n):
    x = np.linspace(-1.5, 1.5, n).astype(np.float32)
    return x, x[::-1].copy()


def counts(jitted):
    info = jitted.cache_info()
    return info.traces, info.compiles, info.reused


def rows(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_g_at_new_sizes_traces_again_and_reuses_the_code():
    jitted = jc.jit(g)
    for n in (100, 1234, 7777):
        x, y = g_args(n)
        np.testing.assert_allclose(jitted(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    assert counts(jitted) == (3, 1, 2)
    # At and above the split threshold the same code runs on threads: whether it does is
    # decided when it runs.
    for n in (SMALL * 2 + 17, SMALL * 3):
        x, y = g_args(n)
        np.testing.assert_allclose(jitted(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
    assert counts(jitted) == (5, 1, 4)
    jitted(*g_args(1234))  # an exact-shape hit still traces nothing
    assert counts(jitted) == (5, 1, 4)
    assert "reused=4" in repr(jitted.cache_info())


@pytest.fixture
def small_split_threshold(monkeypatch):
    """Threads from 1000 points on, in chunks of 97: sizes on both sides stay cheap."""
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 1000)
    with config.using(parallel_threshold=0, chunk_size=97, num_threads=3):
        yield


def test_one_code_below_and_above_the_split_threshold(small_split_threshold):
    """The seed's g at 100, 1234, 77777: one compile; the sizes at or above the threshold run
    in chunks on threads, the ones below in one call, with the same bits on any thread count."""
    jitted = jc.jit(g)
    for n in (100, 1234, 77777):
        x, y = g_args(n)
        got = jitted(x, y)
        np.testing.assert_allclose(got, np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
        with config.using(num_threads=1):
            np.testing.assert_array_equal(jitted(x, y), got)
    assert counts(jitted) == (3, 1, 2)


def test_whole_array_sums_of_one_piece_and_of_several_compile_once(small_split_threshold):
    """The pieces of a sum are counted from its run-time length (full_reduction.py): 100 is
    one piece, 5000 two, 200000 49; each has the same bits on one thread as on three."""
    jitted = jc.jit(lambda x: x.sum())
    for n in (100, 5000, 200_000):
        x = rows(n, seed=n)
        got = jitted(x)
        np.testing.assert_allclose(got, x.sum(dtype=np.float64), rtol=1e-5)
        with config.using(num_threads=1):
            np.testing.assert_array_equal(jitted(x), got)
    assert counts(jitted) == (3, 1, 2)


def test_tiny_functions_stay_unsplit():
    """A tiny function's code is its own (``TINY_WORK``) and has no threads: its first call
    compiles the least code."""
    text = jc.jit(g).lower(*g_args(8)).plan().llvm_ir
    assert runtime.RUN_CHUNKS_SYMBOL not in text and "jitcore.no_unroll" in text
    assert runtime.RUN_CHUNKS_SYMBOL in jc.jit(g).lower(*g_args(100)).plan().llvm_ir


@pytest.mark.parametrize("axis", [0, 1, 2, (0, 2), None])
def test_reductions_along_each_axis_compile_once(axis):
    jitted = jc.jit(lambda x: x.sum(axis=axis))
    for shape in ((3, 5, 11), (4, 9, 2 * 8 + 3), (6, 2, 33)):
        x = rows(shape)
        np.testing.assert_allclose(jitted(x), x.sum(axis=axis), rtol=1e-5, atol=1e-5)
    assert counts(jitted) == (3, 1, 2)


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax_over_rows_of_several_lengths_compiles_once():
    jitted = jc.jit(softmax)
    # all below the row groups' threshold (softmax is four kernels over x's shape: 4 * 6 * 1234
    # points < runtime.MIN_SPLIT_WORK)
    for shape in ((8, 100), (6, 1234), (30, 77), (5, 13)):
        x = rows(shape)
        np.testing.assert_allclose(jitted(x), numpy_softmax(x), rtol=1e-5, atol=1e-6)
    assert counts(jitted) == (4, 1, 3)


def test_tiny_kernels_have_code_of_their_own():
    """Kernels of at most TINY_WORK points are optimised without LLVM's unroller (a faster
    compile of the same machine code there): a class of sizes with its own code."""
    from jitcore.codegen.cpu.backend import TINY_WORK

    jitted = jc.jit(softmax)
    for shape in ((2, 3), (4, 5), (8, 100), (30, 77)):
        assert shape[0] * shape[1] <= TINY_WORK or shape[0] * shape[1] > 4 * TINY_WORK
        x = rows(shape)
        np.testing.assert_allclose(jitted(x), numpy_softmax(x), rtol=1e-5, atol=1e-6)
    assert counts(jitted) == (4, 2, 2)


def test_softmax_in_row_groups_at_several_lengths(monkeypatch):
    """Above the threshold softmax runs in row groups whose block of rows is computed from the
    row's run-time length: one code for every row length."""
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)
    jitted = jc.jit(softmax)
    for shape in ((40, 100), (9, 5000), (130, 37)):
        x = rows(shape)
        np.testing.assert_allclose(jitted(x), numpy_softmax(x), rtol=1e-5, atol=1e-6)
    assert counts(jitted) == (3, 1, 2)
    assert "_rows" in jitted.lower(rows((40, 100))).plan().llvm_ir


def chain(x, y):
    return (jnp.tanh(x * y + 1.0) * 0.5 + x).sum(axis=-1), x * y - 3.0


@settings(max_examples=15, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 33), st.integers(34, 3000)), min_size=1, max_size=3))
def test_results_equal_numpy_at_every_size(sizes):
    """Tails of every vector width (1..33) and larger sizes, in any order of first use."""
    jitted = jc.jit(chain)
    for n in sizes:
        x, y = rows((3, n), seed=n), rows((3, n), seed=n + 1)
        got = jitted(x, y)
        want = ((np.tanh(x * y + 1.0) * 0.5 + x).sum(axis=-1), x * y - 3.0)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-4)
        np.testing.assert_array_equal(got[1], want[1])
    traces, compiles, reused = counts(jitted)
    assert traces == len(set(sizes)) and compiles + reused == traces


def test_new_sizes_from_many_threads_at_once_compile_once():
    jitted = jc.jit(g)
    sizes = [100 + 7 * i for i in range(8)]
    barrier = threading.Barrier(len(sizes))
    errors = []

    def call(n):
        try:
            x, y = g_args(n)
            barrier.wait()
            np.testing.assert_allclose(jitted(x, y), np.tanh(x * 2 + y), rtol=2e-6, atol=2e-6)
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)

    threads = [threading.Thread(target=call, args=(n,)) for n in sizes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert counts(jitted) == (8, 1, 7)


def test_shared_code_is_freed_with_the_last_signature_using_it():
    f = jc.jit(lambda x: x - 1, max_signatures=2, cache=False)
    f(np.ones(3))
    f(np.ones(4))  # the same code
    first, second = (e.plan for e in f._cache.values())
    assert first.loaded_code is second.loaded_code
    code = weakref.ref(first.loaded_code)
    del first, second
    f(np.ones(3, np.float32))  # drops (3,): (4,) still runs the code
    gc.collect()
    assert code() is not None
    np.testing.assert_array_equal(f(np.ones(4)), np.zeros(4))
    f(np.ones(5, np.float32))  # drops (4,)
    gc.collect()
    assert code() is None


def test_loops_that_carry_arrays_reuse_the_code():
    """A loop's carried arrays are copied by the entry, as many bytes as the run-time size."""
    def smooth(x):
        return jc.fori_loop(0, 4, lambda i, c: c * 0.5 + x, x)

    def numpy_smooth(x):
        c = x
        for _ in range(4):
            c = c * 0.5 + x
        return c

    jitted = jc.jit(smooth)
    for n in (40, 137, 300):  # above TINY_WORK points: one size class
        x = rows((2, n))
        np.testing.assert_allclose(jitted(x), numpy_smooth(x), rtol=1e-6)
    assert counts(jitted) == (3, 1, 2)


# -- where a size changes the program, it compiles again and stays right ----------------------
def sizes_compile(fn, arrays):
    """Call ``fn`` jitted on each argument tuple, checking each result against NumPy's; the
    compiles after each call."""
    jitted = jc.jit(fn)
    after = []
    for a in arrays:
        np.testing.assert_allclose(jitted(*a), fn(*a), rtol=1e-5, atol=1e-6)
        after.append(jitted.cache_info().compiles)
    return after


def test_a_literal_equal_to_the_first_size_is_not_taken_for_the_size():
    # At n = 100, x[:100] is all of x and its extent is n's; at 150 it is a constant 100.
    assert sizes_compile(lambda x: x[:100] * 2, [(rows(100),), (rows(150),)]) == [1, 2]


def test_a_literal_near_the_first_size_is_a_guess_the_next_size_corrects():
    # At n = 10, x[:8]'s extent is taken for n - 2 (loops.derived); at 20 it is the constant 8.
    assert sizes_compile(lambda x: x[:8] * 2, [(rows(10),), (rows(20),), (rows(30),)]) == [1, 2, 2]


def test_differences_of_neighbours_compile_once():
    # n - 1 is derived from n in the code (loops.Sizes): one code for every n above 2.
    assert sizes_compile(lambda x: x[1:] - x[:-1], [(rows(n),) for n in (10, 20, 30)]) == [1, 1, 1]


def test_a_static_reshape_by_halves_and_by_thirds_compiles_once():
    # n // 2 and n // 3 (above 8) are derived from n in the code (loops.derived); n // 9 is not.
    assert sizes_compile(lambda x: x.reshape(2, -1).sum(axis=0), [(rows(n),) for n in (10, 20)]) == [1, 1]
    assert sizes_compile(lambda x: x.reshape(3, -1).sum(axis=0), [(rows(n),) for n in (30, 60)]) == [1, 1]
    assert sizes_compile(lambda x: x.reshape(9, -1).sum(axis=0), [(rows(n),) for n in (18, 27)]) == [1, 2]


def test_a_mean_divides_by_the_run_time_extent_and_a_reciprocal_compiles_per_size():
    # s / n takes n from the run-time extents (kernel_body.sized_bound, since sizes43); a
    # reciprocal 1/n is a constant of the program, no extent.
    assert sizes_compile(lambda x: x.mean(axis=1), [(rows((3, n)),) for n in (10, 20)]) == [1, 1]
    assert sizes_compile(lambda x: x * (1.0 / x.shape[1]), [(rows((3, n)),) for n in (10, 20)]) == [1, 2]


def test_a_size_used_as_a_python_int_compiles_per_size():
    def weighted(x):
        total = x[0] * 0
        for i in range(x.shape[0]):  # unrolled: one term per element
            total = total + x[i] * (i + 1)
        return total

    assert sizes_compile(weighted, [(rows((n, 3)),) for n in (4, 6)]) == [1, 2]


def test_broadcasting_against_size_one_and_size_zero_are_signatures_of_their_own():
    jitted = jc.jit(lambda x, y: x * y + 1)
    for n, m in ((8, 8), (8, 1), (1, 8), (9, 9), (0, 0), (0, 1), (12, 1)):
        x, y = rows(n), rows(m, seed=1)
        np.testing.assert_allclose(jitted(x, y), x * y + 1, rtol=1e-6)
    # (9, 9) reuses (8, 8)'s code and (12, 1) reuses (8, 1)'s; the rest are their own.
    assert counts(jitted) == (7, 5, 2)


# -- the disk cache: a new process reuses the code at any size --------------------------------
PROGRAM = """
    import sys
    import numpy as np
    import jitcore as jc, jitcore.numpy as jnp

    @jc.jit
    def g(x, y):
        return jnp.tanh(x * 2 + y)

    for n in map(int, sys.argv[1:]):
        x = np.linspace(-1.5, 1.5, n).astype(np.float32)
        np.testing.assert_allclose(g(x, x[::-1].copy()), np.tanh(x * 2 + x[::-1]), rtol=2e-6, atol=2e-6)
    info = g.cache_info()
    print(info.compiles, info.from_disk, info.reused)
"""

NO_LLVM = """
    import llvmlite.binding as llvm
    from jitcore.codegen.cpu import target

    def refuse(*args, **kwargs):
        raise AssertionError("LLVM ran")

    llvm.TargetMachine.emit_object = llvm.TargetMachine.emit_assembly = refuse
    target.optimize = target.compile_ir = refuse
"""


def run_python(code: str, folder: str, *argv) -> str:
    environ = dict(os.environ, PYTHONPATH=ROOT, JITCORE_CACHE_DIR=folder)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *argv], capture_output=True,
                          text=True, env=environ, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_new_process_reuses_the_code_at_a_size_it_never_saw(tmp_path, monkeypatch):
    folder = str(tmp_path / "cache")
    monkeypatch.setattr(config, "cache_dir", folder)
    monkeypatch.setattr(config, "disk_cache", True)
    first = jc.jit(g)
    for n in (100, 1234):  # the second size reuses the first's code: it goes to disk
        first(*g_args(n))
    assert counts(first) == (2, 1, 1)
    assert run_python(NO_LLVM + PROGRAM, folder, "5000").split() == ["1", "1", "0"]
