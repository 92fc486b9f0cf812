"""The CPU runtime's threads: a launch split into chunks gives the same bits on any number of
threads, the settings change without a recompile, and bad settings are refused clearly.

Every count is forced (``config.using``), so no test depends on the host's cores; the
threshold and chunk size are made small, so that small arrays are split into many uneven chunks
(tests/codegen/test_kernels.py also runs every kernel test split, on 3 threads).
"""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import config
from jitcore.codegen import host
from jitcore.codegen.cpu import backend, runtime
from jitcore.errors import ConfigError
from tests.budget import cases

THREADS = (1, 2, 3, 7)
rng = np.random.default_rng(10)


@pytest.fixture(autouse=True)
def split_every_kernel(monkeypatch):
    """Kernels of any size are compiled split here (the threshold is then set at run time)."""
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)


def softmax(x):
    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x):
    mean = x.mean(axis=1, keepdims=True)
    centred = x - mean
    return centred / jnp.sqrt((centred * centred).mean(axis=1, keepdims=True) + 1e-5)


WORKLOADS = {
    "elementwise": (lambda x: jnp.tanh(2 * x + 1), (1001,)),
    "elementwise-2d": (lambda x: x * 3 - jnp.exp(x), (37, 29)),
    "row-sum": (lambda x: x.sum(axis=1), (203, 67)),
    "column-sum": (lambda x: x.sum(axis=0), (67, 203)),
    # Tall enough for the blocked, pairwise column sums (codegen/cpu/reduction.py), whose
    # tiles of columns must keep to a chunk's range; 3-d: the collapsed domain is split.
    "column-sum-tall": (lambda x: x.sum(axis=0), (300, 517)),
    "column-sum-3d": (lambda x: x.sum(axis=0), (70, 3, 41)),
    "middle-sum": (lambda x: x.sum(axis=1), (9, 31, 17)),
    "full-sum": (lambda x: (x * x).sum(), (3001,)),
    "row-max": (lambda x: x.max(axis=1), (101, 33)),
    "row-argmax": (lambda x: x.argmax(axis=1), (101, 33)),
    "row-cumsum": (lambda x: jnp.cumsum(x, axis=1), (41, 19)),
    "column-cumsum": (lambda x: jnp.cumsum(x, axis=0), (19, 41)),
    "softmax": (softmax, (57, 129)),
    "layernorm": (layernorm, (57, 129)),
    "outer": (lambda p, q: jnp.exp(-(p[:, None] - q[None, :]) ** 2), ((301,), (257,))),
    "sliced": (lambda x: jnp.sqrt(jnp.abs(x[::2, 1::3])) + x[1::2, ::3], (82, 62)),
    "empty-rows": (lambda x: x.sum(axis=1), (0, 7)),
    "empty-columns": (lambda x: x.sum(axis=0), (0, 7)),
    "empty-elementwise": (lambda x: x * 2, (0, 8)),
}


def _arguments(shape):
    shapes = shape if isinstance(shape[0], tuple) else (shape,)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _run(f, args, threads, threshold=0, chunk_size=5):
    with config.using(num_threads=threads, parallel_threshold=threshold, chunk_size=chunk_size):
        return np.asarray(f(*args))


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_results_are_the_same_bits_on_any_number_of_threads(name):
    fn, shape = WORKLOADS[name]
    f = jc.jit(fn)
    args = _arguments(shape)
    whole = _run(f, args, 1, threshold=1 << 62)  # one call, as without threads
    # NumPy's float32 column sums add rows in order: ~sqrt(300) * eps * 17 apart from ours.
    np.testing.assert_allclose(whole, np.asarray(fn(*args)), rtol=2e-5, atol=5e-5)
    for threads in THREADS:
        for chunk_size in (1, 5, 64):
            np.testing.assert_array_equal(_run(f, args, threads, chunk_size=chunk_size), whole,
                                          err_msg=f"{threads} threads, chunks of {chunk_size}")
    assert f.cache_info().compiles == 1


@pytest.mark.parametrize("fn", [lambda x: jnp.tanh(x) * 2, lambda x: x.sum(axis=1), lambda x: x.sum(axis=0)])
def test_strided_arguments_split_the_same(fn):
    f = jc.jit(fn)
    x = rng.standard_normal((90, 70)).astype(np.float32)[::3, 1::2]  # strided code
    whole = _run(f, [x], 1, threshold=1 << 62)
    np.testing.assert_allclose(whole, np.asarray(fn(np.ascontiguousarray(x))), rtol=2e-5, atol=1e-6)
    for threads in THREADS:
        np.testing.assert_array_equal(_run(f, [x], threads), whole)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex64])
def test_other_dtypes_split_the_same(dtype):
    f = jc.jit(lambda x: (x * x).sum(axis=1) + x[:, 0])
    x = (rng.standard_normal((77, 45)) * 9).astype(dtype)
    whole = _run(f, [x], 1, threshold=1 << 62)
    for threads in THREADS:
        np.testing.assert_array_equal(_run(f, [x], threads), whole)


def test_sizes_just_below_at_and_above_the_threshold():
    f = jc.jit(lambda x: jnp.sin(x) * x + 1)
    for size in (999, 1000, 1001):
        x = rng.standard_normal(size)
        whole = _run(f, [x], 1, threshold=1 << 62)
        for threads in THREADS:
            np.testing.assert_array_equal(_run(f, [x], threads, threshold=1000, chunk_size=97), whole)


def test_an_exact_math_fallback_depends_on_the_chunks_never_on_the_threads():
    # sin of a huge argument reruns its chunk with the C library's sin: which elements are
    # rerun follows the chunks, which the size and settings decide, not the thread count.
    f = jc.jit(jnp.sin)
    x = rng.standard_normal(5000)
    x[[7, 4321]] = 1e22
    first = _run(f, [x], 1, chunk_size=256)
    np.testing.assert_allclose(first, np.sin(x), rtol=1e-15, atol=1e-15)
    for threads in THREADS:
        np.testing.assert_array_equal(_run(f, [x], threads, chunk_size=256), first)


def test_indexed_kernels_never_split_so_the_first_bad_index_is_reported():
    f = jc.jit(lambda x, i: x[i] * 2)
    x = np.arange(10.0)
    i = np.array([1, 2, 30, 3, -40] * 50)
    for threads in THREADS:
        with pytest.raises(IndexError, match="index 30 is out of bounds for axis 0 with size 10"):
            _run(f, [x, i], threads, chunk_size=1)
    plan = jc.jit(lambda x, i: x[i] * 2).lower(x, i).plan()
    checking = [launch for launch in plan.launches if any(s.kind == "status" for s in launch.operands)]
    assert checking and all(launch.parallel_extent == () for launch in checking)


def test_kernels_whose_result_starts_as_a_copy_never_split():
    # The copy covers the whole result, the domain only the written part: a piece of the
    # domain copying again would undo the other pieces' writes.
    def f(v):
        v[1:, ::2] = -v[1:, ::2] * 2
        return v

    x = rng.standard_normal((300, 41))
    want = x.copy()
    f(want)
    for threads in THREADS:
        np.testing.assert_array_equal(_run(jc.jit(f), [x.copy()], threads, chunk_size=1), want)
    copying = [launch for launch in jc.jit(f).lower(x).plan().launches
               if launch.parallel_extent == ()]
    assert copying


def test_python_threads_calling_split_functions_at_once():
    f = jc.jit(lambda x: jnp.exp(x).sum(axis=1))
    arrays = [rng.standard_normal((200, 50)) + k for k in range(6)]
    with config.using(num_threads=1, parallel_threshold=1 << 62):
        want = [f(x) for x in arrays]
    with config.using(num_threads=3, parallel_threshold=0, chunk_size=50):
        with concurrent.futures.ThreadPoolExecutor(len(arrays)) as pool:
            got = list(pool.map(lambda x: [f(x) for _ in range(20)], arrays))
    for results, expected in zip(got, want):
        for result in results:
            np.testing.assert_array_equal(result, expected)


FULL_REDUCTIONS = {
    "full-sum": lambda x, y: x.sum(),
    "full-sum-2d": lambda x, y: x.reshape(8, -1).sum() if x.size % 8 == 0 else x.sum(),
    "full-dot": lambda x, y: (x * y - x).sum(),  # (x * y).sum() alone calls BLAS's dot
    "full-max": lambda x, y: x.max(),
    "full-min": lambda x, y: y.min(),
    "full-argmax": lambda x, y: x.argmax(),
    "full-argmin": lambda x, y: jnp.argmin(y),
    "full-log-exp": lambda x, y: jnp.sum(jnp.log(jnp.exp(x))),
    "full-mean-keepdims": lambda x, y: x.mean(keepdims=True),
}
# Around the pieces' bounds (full_reduction.piece_size: 4096 float32 elements, 2048 float64,
# doubling past 64 pieces), with whole pieces only, a short last one, and a tail of lanes. Each
# size compiles a fixed-size unsplit reference (~150 ms of LLVM): under the ``ci`` profile
# float32 leaves out a last piece of 4095 and one of 300, both a short last piece with lanes
# and a tail as float64's 2048 * 2 + 17 and float32's 64 * 4096 + 4096 + 7 have (tests.budget).
PIECE_SIZES = {np.float32: cases((4096 * 2 - 1, 4096 * 2, 4096 * 2 + 1, 4096 * 3 + 300, 64 * 4096 + 4096 + 7),
                                 ci=(4096 * 2, 4096 * 2 + 1, 64 * 4096 + 4096 + 7)),
               np.float64: (2048 * 2 + 17, 2048 * 5)}


def _unsplit_compiles(m) -> None:
    """Make functions jitted from here on compile unsplit and fixed-size (``m``: a
    monkeypatch context), as every full reduction ran before pieces: the reference whose bits
    a split run must give. Without LLVM's loop unroller (``backend.UNROLLED_WORK``), which
    changes no bit of a float result (it repeats the loop's operations in their order, and
    reassociates nothing without fastmath; tests/codegen/test_suite_time_50.py holds it to
    that) and took a quarter of these modules' LLVM time (21 of them: 3.6 -> 2.6 s without
    it), unrolling the unsplit cascade's loops for the SLP vectorizer to pack again."""
    m.setattr(runtime, "MIN_SPLIT_WORK", 1 << 62)
    m.setattr(host, "SIZE_GENERIC", False)  # size-generic code is split at every size
    m.setattr(backend, "UNROLLED_WORK", 1 << 62)


def _unsplit(fn, args, monkeypatch):
    """The result of ``fn`` compiled unsplit (``_unsplit_compiles``)."""
    with monkeypatch.context() as m:
        _unsplit_compiles(m)
        f = jc.jit(fn)
        assert runtime.RUN_CHUNKS_SYMBOL not in f.lower(*args).plan().llvm_ir
        return np.asarray(f(*args))


@pytest.mark.parametrize("name", sorted(FULL_REDUCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_reductions_in_pieces_give_the_unsplit_bits_on_any_threads(name, dtype, monkeypatch):
    # A reduction to one value is cut into pieces of its reduced dim whose merge repeats the
    # unsplit cascade's merges (codegen/cpu/full_reduction.py): the bits are the unsplit ones.
    fn = FULL_REDUCTIONS[name]
    f = jc.jit(fn)  # one function for every size: a new size re-traces and reuses its code
    for size in PIECE_SIZES[dtype]:
        x, y = (rng.standard_normal(size).astype(dtype) for _ in range(2))
        x[[3, size // 2]] = x.max() + 1  # ties: the first occurrence wins
        y[[5, size - 1]] = y.min() - 1
        args = [x, y]
        assert runtime.RUN_CHUNKS_SYMBOL in f.lower(*args).plan().llvm_ir, "not split"
        want = _unsplit(fn, args, monkeypatch)
        np.testing.assert_array_equal(_run(f, args, 1, threshold=1 << 62), want)
        for threads in THREADS:
            for chunk_size in (1, 5000, 30000):
                np.testing.assert_array_equal(_run(f, args, threads, chunk_size=chunk_size), want,
                                              err_msg=f"n={size}: {threads} threads, chunks of {chunk_size}")
        np.testing.assert_allclose(want, fn(*args) if "log" not in name else x.astype(np.float64).sum(),
                                   rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)


def test_a_full_reduction_needing_exact_math_reruns_every_piece(monkeypatch):
    # sin of a huge argument in one piece: the merge reruns all pieces with the C library's
    # sin, as the unsplit kernel reruns its whole row, so the bits stay the unsplit ones.
    fn = lambda x: jnp.sin(x).sum()  # noqa: E731
    x = rng.standard_normal(50001)
    x[[7, 40000]] = 1e22
    want = _unsplit(fn, [x], monkeypatch)
    np.testing.assert_allclose(want, np.sin(x).sum(), rtol=1e-12)
    f = jc.jit(fn)
    for threads in THREADS:
        for chunk_size in (1, 9000):
            np.testing.assert_array_equal(_run(f, [x], threads, chunk_size=chunk_size), want)
    np.testing.assert_array_equal(_run(f, [x], 1, threshold=1 << 62), want)


def test_complex_full_sums_in_pieces(monkeypatch):
    fn = lambda z: z.sum()  # noqa: E731
    z = (rng.standard_normal(30001) + 1j * rng.standard_normal(30001)).astype(np.complex64)
    want = _unsplit(fn, [z], monkeypatch)
    f = jc.jit(fn)
    assert runtime.RUN_CHUNKS_SYMBOL in f.lower(z).plan().llvm_ir
    for threads in THREADS:
        np.testing.assert_array_equal(_run(f, [z], threads, chunk_size=1), want)


def test_small_full_reductions_stay_one_piece(monkeypatch):
    # Fewer than two pieces: nothing to share, fixed-size code is not split.
    x = rng.standard_normal(4096).astype(np.float32)
    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    assert runtime.RUN_CHUNKS_SYMBOL not in jc.jit(lambda x: x.sum()).lower(x).plan().llvm_ir


def test_size_generic_full_reductions_count_their_pieces_when_they_run(monkeypatch):
    # One code for every length: the pieces are counted from the run-time length, by
    # full_reduction.piece_size's formula, so each length has the fixed-size code's bits on
    # any thread count (a row too short for lanes in order, as unsplit: y keeps the function
    # from being tiny, with code of its own, at 20).
    fn = lambda x, y: (x.sum(), y * 2)  # noqa: E731
    f = jc.jit(fn)
    y = rng.standard_normal((7, 13)).astype(np.float32)
    for size in (20, 100, 4096, 5000, 64 * 4096 + 4096 + 7):
        x = rng.standard_normal(size).astype(np.float32)
        with monkeypatch.context() as m:
            _unsplit_compiles(m)
            want = jc.jit(fn)(x, y)[0]
        for threads in (1, 3):
            np.testing.assert_array_equal(_run(lambda x: f(x, y)[0], [x], threads, chunk_size=1), want)
        np.testing.assert_array_equal(_run(lambda x: f(x, y)[0], [x], 1, threshold=1 << 62), want)
        np.testing.assert_allclose(want, x.sum(dtype=np.float64), rtol=1e-5)
    info = f.cache_info()
    assert (info.traces, info.compiles, info.reused) == (5, 1, 4)


def test_settings_change_without_recompiling():
    f = jc.jit(lambda x: x * 2 + 1)
    x = rng.standard_normal((64, 64))
    want = x * 2 + 1
    for threads in (1, 4, 2):
        for threshold in (0, 100, 1 << 40):
            np.testing.assert_array_equal(_run(f, [x], threads, threshold), want)
    config.update("num_threads", 3)
    jc.config.num_threads = 1
    np.testing.assert_array_equal(f(x), want)
    assert f.cache_info().compiles == 1


def test_the_code_reads_the_settings_not_constants():
    # Small or large, a split launch is compiled with both ways to run: the threshold is read
    # when the code runs.
    for size in (10, 10**6):
        text = jc.jit(lambda x: x + 1).lower(np.ones(size)).plan().optimized_llvm_ir
        assert runtime.SETTINGS_SYMBOL in text and runtime.RUN_CHUNKS_SYMBOL in text


def test_config_is_part_of_the_api():
    assert "config" in dir(jc) and jc.config is config


def test_small_kernels_are_compiled_unsplit(monkeypatch):
    # No thread pays below MIN_SPLIT_WORK points, so a small fixed-size function's first call
    # does not pay for compiling the split form either.
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 1000)
    monkeypatch.setattr(host, "SIZE_GENERIC", False)
    for size, split in ((999, False), (1000, True)):
        text = jc.jit(lambda x: x + 1).lower(np.ones(size)).plan().optimized_llvm_ir
        assert (runtime.RUN_CHUNKS_SYMBOL in text) == split


def test_size_generic_kernels_are_split_at_every_size(monkeypatch):
    # One code for the sizes below MIN_SPLIT_WORK and above it: the launch decides when it
    # runs (below it, one call whatever the threshold). A tiny function stays unsplit.
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 1000)
    plans = {size: jc.jit(lambda x: x + 1).lower(np.ones(size)).plan() for size in (10, 999, 5000)}
    assert runtime.RUN_CHUNKS_SYMBOL not in plans[10].llvm_ir
    assert runtime.RUN_CHUNKS_SYMBOL in plans[999].llvm_ir
    assert plans[999].symbol == plans[5000].symbol
    with config.using(parallel_threshold=0, chunk_size=7, num_threads=3):
        for size in (999, 5000):
            x = np.arange(size, dtype=np.float64)
            np.testing.assert_array_equal(jc.jit(lambda x: x + 1)(x), x + 1)


def test_using_puts_the_settings_back():
    before = (config.num_threads, config.parallel_threshold, config.chunk_size)
    with pytest.raises(RuntimeError), config.using(num_threads=5, chunk_size=3):
        assert (config.num_threads, config.chunk_size) == (5, 3)
        raise RuntimeError
    assert (config.num_threads, config.parallel_threshold, config.chunk_size) == before


@pytest.mark.parametrize("name, value", [
    ("num_threads", 0), ("num_threads", -2), ("num_threads", config.MAX_THREADS + 1),
    ("num_threads", 2.0), ("num_threads", True), ("num_threads", "4"), ("chunk_size", 0),
    ("parallel_threshold", -1),
])
def test_bad_settings_are_refused(name, value):
    before = getattr(config, name)
    with pytest.raises(ConfigError, match=name):
        setattr(jc.config, name, value)
    with pytest.raises(ConfigError, match=name):
        config.update(name, value)
    assert getattr(config, name) == before


def test_unknown_settings_are_refused():
    with pytest.raises(ConfigError, match="no setting 'threads'"):
        config.update("threads", 2)


@pytest.mark.parametrize("text", ["0", "-1", "two", "2.5", "1025"])
def test_bad_environment_thread_counts_are_errors(text):
    with pytest.raises(ConfigError, match=f"JITCORE_NUM_THREADS='{text}'"):
        config.threads_from_environment({"JITCORE_NUM_THREADS": text})


def test_environment_thread_counts():
    assert config.threads_from_environment({"JITCORE_NUM_THREADS": " 3 "}) == 3
    for environ in ({}, {"JITCORE_NUM_THREADS": ""}):
        assert config.threads_from_environment(environ) == min(config.available_cpus(), config.MAX_THREADS)


def _python(code: str, threads: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, JITCORE_NUM_THREADS=threads)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True)


def test_the_environment_sets_the_count_a_call_uses():
    code = ("import numpy as np, jitcore as jc\n"
            "from jitcore.codegen.cpu import runtime\n"
            "jc.jit(lambda x: x + 1)(np.ones(3))\n"
            "print(runtime.SETTINGS[0], jc.config.num_threads)")
    assert _python(code, "3").stdout.split() == ["3", "3"]
    failed = _python(code, "lots")
    assert failed.returncode != 0 and "JITCORE_NUM_THREADS='lots' is not a thread count" in failed.stderr
