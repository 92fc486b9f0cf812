"""Jitted functions on Dask arrays (``jitcore.dask_arrays``): a call with a Dask array returns a
lazy Dask array whose chunks run compiled code; the gathered result equals NumPy's.

Most tests use Dask's synchronous scheduler in this process; the cluster tests run on one
``LocalCluster`` of two worker processes on loopback (one module-scoped fixture: starting it
takes seconds), where each worker compiles each signature once and a killed worker's chunks
are computed again.
"""

import os
import signal
import subprocess
import sys
import time

import dask
import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster, wait
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import dask_arrays
from jitcore.errors import JitTypeError, UnsupportedError
from tests.budget import examples

X = np.random.default_rng(0).standard_normal((37, 23))


def softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def stencil(x):  # a 3-point average along axis 0, periodic
    return (np.roll(x, 1, axis=0) + x + np.roll(x, -1, axis=0)) / 3


def counted(x, calls):
    """``x`` as a Dask array whose chunks append to ``calls`` when they are computed."""
    def source(block):
        calls.append(block.shape)
        return block
    return da.from_array(x, chunks=(10, 7)).map_blocks(source, meta=np.empty((0, 0), x.dtype))


@pytest.fixture
def sync():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_import_jitcore_does_not_import_dask():
    # range(3) reaches the check for a Dask argument (after arrays and numbers), then is refused.
    code = ("import sys, jitcore\ntry: jitcore.jit(lambda x: x + 1)(range(3))\n"
            "except jitcore.JitTypeError: pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.stdout.strip() == "[]"


def test_elementwise_is_lazy_with_the_traced_dtype_and_chunks(sync):
    calls = []
    dx = counted(X, calls)
    f = jc.jit(lambda x: np.sqrt(x * x + 1).astype(np.float32))
    y = f(dx)
    assert isinstance(y, da.Array) and calls == []  # nothing computed: the dtype came from a trace
    assert y.dtype == np.float32 and y.chunks == dx.chunks
    got = y.compute()
    info = f.cache_info()
    # four chunk shapes, 16 chunks; an edge chunk's shape may reuse another's code (size-generic)
    assert info.compiles + info.reused == 4 and info.hits + info.misses == 16
    assert info.reused >= 1
    np.testing.assert_array_equal(got, f(X))
    np.testing.assert_allclose(got, np.sqrt(X * X + 1).astype(np.float32), rtol=1e-6)


def test_elementwise_broadcasts_numpy_and_scalar_arguments(sync):
    w = np.arange(23.0)
    y = jc.jit(lambda x, w, s: x * w + s)(da.from_array(X, chunks=(10, 7)), w, 3)
    np.testing.assert_allclose(y.compute(), X * w + 3, rtol=1e-15)
    ints = da.from_array(np.arange(60, dtype=np.int32).reshape(6, 10), chunks=4)
    z = jc.jit(lambda a: a / 2)(ints)
    assert z.dtype == np.float64
    np.testing.assert_array_equal(z.compute(), np.arange(60, dtype=np.int32).reshape(6, 10) / 2)


# name: (function, axis); shapes that chunk evenly, so one compile serves every chunk.
REDUCTIONS = {
    "sum": (lambda x, axis: np.sum(x * 2.0, axis=axis), 0),
    "mean": (lambda x, axis: np.mean(x, axis=axis), 1),
    "var": (lambda x, axis: np.var(x, axis=axis), None),
    "std": (lambda x, axis: np.std(x, axis=axis, keepdims=True), 0),
    "max": (lambda x, axis: np.max(x, axis=axis), 1),
    "any": (lambda x, axis: np.any(x > 1.5, axis=axis), 0),
    "all": (lambda x, axis: np.all(x > -2.5, axis=axis), None),
    "norm": (lambda x, axis: np.sqrt(np.sum(x ** 2, axis=axis)) + 1, 1),
}
JITTED = {name: jc.jit(fn, static_argnames="axis") for name, (fn, _) in REDUCTIONS.items()}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@given(seed=st.integers(0, 2 ** 32 - 1), scale=st.sampled_from([1e-3, 1.0, 1e4]),
       offset=st.sampled_from([0.0, 100.0]))
@settings(max_examples=examples(8, 3), deadline=None)
def test_a_reduction_over_axes_equals_numpy(name, seed, scale, offset):
    x = np.random.default_rng(seed).standard_normal((36, 24)) * scale + offset
    fn, axis = REDUCTIONS[name]
    calls = []
    dx = da.from_array(x, chunks=(12, 8)).map_blocks(lambda b: calls.append(1) or b,
                                                     meta=np.empty((0, 0), x.dtype))
    with dask.config.set(scheduler="synchronous"):
        y = JITTED[name](dx, axis=axis)
        assert calls == []  # lazy: the output's shape and dtype came from a trace
        got = y.compute()
    expected = fn(x, axis)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if expected.dtype.kind == "b" or name == "max":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-9)


def test_a_reduction_of_two_arrays_aligns_their_chunks(sync):
    w = np.random.default_rng(2).random(X.shape)
    weighted_mean = jc.jit(lambda x, w: np.sum(x * w, axis=0) / np.sum(w, axis=0))
    y = weighted_mean(da.from_array(X, chunks=(12, 23)), da.from_array(w, chunks=(10, 8)))
    np.testing.assert_allclose(y.compute(), np.sum(X * w, axis=0) / np.sum(w, axis=0), rtol=1e-12)
    with pytest.raises(UnsupportedError, match="one or two Dask arrays of one shape"):
        weighted_mean(da.from_array(X, chunks=10), da.from_array(w[:, :1], chunks=10))  # broadcast


def test_float32_variance_keeps_its_dtype(sync):
    x32 = X.astype(np.float32)
    y = jc.jit(lambda x: x.var(axis=1))(da.from_array(x32, chunks=(8, 5)))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.compute(), x32.var(axis=1), rtol=2e-5)


def test_rowwise_softmax_needs_whole_rows(sync):
    f = jc.jit(softmax)
    with pytest.raises(UnsupportedError, match=r"rechunk\(\{1: -1\}\)") as e:
        f(da.from_array(X, chunks=(10, 7)))
    assert "test_dask.py" in str(e.value)  # names the function's line
    y = f(da.from_array(X, chunks=(10, 23)))
    np.testing.assert_allclose(y.compute(), softmax(X), rtol=1e-13)


def test_functions_needing_neighbours_or_contractions_say_what_to_do(sync):
    dx = da.from_array(X, chunks=(10, 7))
    with pytest.raises(UnsupportedError, match="map_overlap"):
        jc.jit(stencil)(dx)
    with pytest.raises(UnsupportedError, match="tensordot"):
        jc.jit(lambda a: a @ a.T)(dx)
    with pytest.raises(UnsupportedError, match="rechunk"):
        jc.jit(lambda a: a - a.mean(axis=0))(dx)  # centred along a split axis: not one chunk
    with pytest.raises(JitTypeError, match="lazy Dask array"):
        jc.jit(lambda a: a + 1).lower(dx)


def test_map_overlap_and_map_blocks_take_a_jitted_function(sync):
    dx = da.from_array(X, chunks=(10, 7))
    f = jc.jit(stencil)
    depth = {0: 1, 1: 0}
    for y in (dask_arrays.map_overlap(f, dx, depth=depth, boundary="periodic"),
              da.map_overlap(f, dx, depth=depth, boundary="periodic")):
        np.testing.assert_allclose(y.compute(), stencil(X), rtol=1e-15)
    g = jc.jit(lambda b: np.tanh(b) * 2)
    np.testing.assert_array_equal(da.map_blocks(g, dx).compute(), g(X))


def test_the_out_of_core_example_of_docs_dask_md(tmp_path, capsys):
    from dask.diagnostics import ProgressBar

    @jc.jit
    def energy(x):  # docs/dask.md's example, sized down
        return np.sqrt(np.mean(np.tanh(x) ** 2, axis=0))

    path = tmp_path / "samples.npy"
    np.save(path, X)
    samples = da.from_array(np.load(path, mmap_mode="r"), chunks=(8, 23))
    with ProgressBar():
        got = energy(samples).compute(scheduler="threads")
    assert "100%" in capsys.readouterr().out
    np.testing.assert_allclose(got, np.sqrt(np.mean(np.tanh(X) ** 2, axis=0)), rtol=1e-12)


# -- on a cluster of two worker processes ------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None, silence_logs=40) as cluster, Client(cluster) as c:
        yield c


XC = np.random.default_rng(1).standard_normal((40, 24))  # chunked evenly: one compile per function


def test_on_a_cluster_results_equal_numpy(client):
    dx = da.from_array(XC, chunks=(10, 12))
    lazy = {
        "elementwise": jc.jit(lambda x: np.exp(-x * x) + 1)(dx),
        "sum0": jc.jit(lambda x: x.sum(axis=0))(dx),
        "sum1": jc.jit(lambda x: x.sum(axis=1))(dx),
        "mean": jc.jit(lambda x: x.mean())(dx),
        "var": jc.jit(lambda x: x.var(axis=0))(dx),
        "softmax": jc.jit(softmax)(dx.rechunk({1: -1})),
        "stencil": dask_arrays.map_overlap(jc.jit(stencil), dx, depth={0: 1, 1: 0}, boundary="periodic"),
    }
    got = dict(zip(lazy, dask.compute(*lazy.values(), scheduler=client)))
    expected = {"elementwise": np.exp(-XC * XC) + 1, "sum0": XC.sum(0), "sum1": XC.sum(1), "mean": XC.mean(),
                "var": XC.var(0), "softmax": softmax(XC), "stencil": stencil(XC)}
    for name in lazy:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-12, err_msg=name)


def test_each_worker_compiles_each_signature_once(client):
    f = jc.jit(lambda x: np.sqrt(np.abs(x)) * 3)
    dx = da.from_array(X, chunks=(10, 7))  # 16 chunks of four shapes
    for _ in range(2):
        np.testing.assert_array_equal(f(dx).compute(scheduler=client), f(X))
    token = dask_arrays.shared(f).token
    infos = [info[token] for info in client.run(dask_arrays.worker_cache_info).values() if token in info]
    assert infos, "no worker ran the jitted function"
    assert sum(i.hits + i.misses for i in infos) == 32  # every chunk ran compiled code
    for info in infos:
        # a signature at most once per worker, compiled or reusing another size's code
        assert info.compiles + info.reused == info.misses <= 4


def wait_for(path, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_worker_killed_mid_computation_is_recomputed(client, tmp_path):
    gate, started = str(tmp_path / "gate"), str(tmp_path / "started")

    def wait_at_gate(block):  # files: the workers share this file system (loopback cluster)
        open(started, "w").close()
        wait_for(gate)
        return block

    f = jc.jit(lambda x: x * 2 + 1)
    y = client.persist(f(da.from_array(XC, chunks=(10, 12))))
    wait(y)  # the compiled chunks are in the workers' memory
    future = client.compute(y.map_blocks(wait_at_gate, meta=np.empty((0, 0), y.dtype)))
    wait_for(started)
    holders = sorted(w for w, keys in client.has_what().items() if any(y.name in str(k) for k in keys))
    pid = client.run(os.getpid, workers=[holders[0]])[holders[0]]
    os.kill(pid, signal.SIGKILL)  # mid-computation: the gates wait; this worker's chunks are lost
    open(gate, "w").close()
    np.testing.assert_array_equal(future.result(timeout=120), XC * 2 + 1)
    assert pid not in client.run(os.getpid).values()
