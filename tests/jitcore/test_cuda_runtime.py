"""The CUDA runtime (``jitcore/cuda/``): the driver binding's error translation and the "no
driver" path, checked everywhere with stand-ins for ``libcuda``; device arrays on a stand-in
device; and jitted functions run on a real GPU against NumPy, where one is present (skipped
elsewhere, with the reason)."""

from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

import jitcore as jc
from jitcore import config
from jitcore.cuda import device_array
from jitcore.cuda import driver as cuda_driver
from jitcore.cuda.driver import CudaDriverError, Driver, NoCudaDriverError
from jitcore.errors import ConfigError
from tests.oracle import assert_matches, ulp_bound

ERRORS = {100: (b"CUDA_ERROR_NO_DEVICE", b"no CUDA-capable device is detected"),
          218: (b"CUDA_ERROR_INVALID_PTX", b"a PTX JIT compilation failed")}


def _out(ref, value) -> int:
    ref._obj.value = value  # what the driver writes through a pointer argument
    return 0


class FakeLibcuda:
    """Stands in for libcuda.so: one device of compute capability 9.0; ``fail`` maps a call's
    name to the CUresult it returns."""

    def __init__(self, fail=None, devices=1):
        self.fail = fail or {}
        self.devices = devices
        self.calls = []

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args):
            self.calls.append(name)
            if name in self.fail:
                return self.fail[name]
            return getattr(self, "_" + name, lambda *a: 0)(*args)

        return call

    def _cuGetErrorName(self, code, ref):
        return _out(ref, ERRORS[code][0]) if code in ERRORS else 500

    def _cuGetErrorString(self, code, ref):
        return _out(ref, ERRORS[code][1]) if code in ERRORS else 500

    def _cuDeviceGetCount(self, ref):
        return _out(ref, self.devices)

    def _cuDeviceGetAttribute(self, ref, attribute, device):
        return _out(ref, {75: 9, 76: 0}[attribute])


def test_driver_reads_the_compute_capability():
    lib = FakeLibcuda()
    cuda = Driver(lib)
    assert cuda.capability == (9, 0)
    assert lib.calls[:4] == ["cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDevicePrimaryCtxRetain"]


def test_every_failure_carries_the_drivers_name_and_description():
    cuda = Driver(FakeLibcuda(fail={"cuModuleLoadData": 218}))
    with pytest.raises(CudaDriverError) as info:
        cuda.load_module(b".version 8.0")
    e = info.value
    assert isinstance(e, jc.JitcoreError)
    assert (e.call, e.code, e.name) == ("cuModuleLoadData", 218, "CUDA_ERROR_INVALID_PTX")
    assert "cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed" in str(e)
    with pytest.raises(CudaDriverError, match="CUDA_ERROR_NO_DEVICE"):
        Driver(FakeLibcuda(fail={"cuInit": 100}))
    unknown = Driver(FakeLibcuda(fail={"cuMemAlloc_v2": 999}))
    with pytest.raises(CudaDriverError, match=r"cuMemAlloc failed: CUDA_ERROR_UNKNOWN \(999\)"):
        unknown.allocate(16)


def test_code_is_made_for_the_drivers_device(monkeypatch):
    """``cuda.require()`` reads the device's compute capability from the driver (9.0 here) and
    the backend makes PTX for it; a plan's PTX is loaded once per process (its module kept)."""
    from jitcore import cuda
    from jitcore.codegen.backend import backend_for
    from jitcore.cuda import executable

    backend = backend_for("cuda")
    monkeypatch.setattr(backend, "arch", backend.arch)  # restored after the test
    lib = FakeLibcuda()
    monkeypatch.setattr(cuda_driver, "_driver", Driver(lib))
    assert cuda.require() is cuda_driver._driver and backend.arch == "sm_90"
    plan = jc.jit(lambda a: a * 3, backend="cuda").lower(np.ones(5, np.float32)).plan()
    assert plan.arch == "sm_90" and ".target sm_90" in plan.ptx
    monkeypatch.setattr(executable, "_modules", {})
    executable.load_module(cuda_driver._driver, plan)
    executable.load_module(cuda_driver._driver, plan)
    assert lib.calls.count("cuModuleLoadData") == 1
    monkeypatch.setattr(FakeLibcuda, "_cuDeviceGetAttribute",
                        lambda self, ref, attribute, device: _out(ref, {75: 12, 76: 1}[attribute]))
    monkeypatch.setattr(cuda_driver, "_driver", Driver(FakeLibcuda()))
    cuda.require()  # compute capability 12.1: PTX for sm_120, which its driver JIT-compiles
    assert backend.arch == "sm_120"


def test_a_driver_without_a_gpu_is_no_driver():
    with pytest.raises(NoCudaDriverError, match="found no GPU; use backend='cpu'"):
        Driver(FakeLibcuda(devices=0))


@pytest.fixture
def no_driver(monkeypatch):
    """A process in which libcuda cannot be found (whatever this machine has)."""
    monkeypatch.setattr(cuda_driver, "LIBRARIES", ("libcuda-not-installed.so.1",))
    monkeypatch.setattr(cuda_driver.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(cuda_driver, "_driver", None)


def test_backend_cuda_without_a_driver_is_a_clear_error(no_driver):
    x = np.arange(4.0)
    with pytest.raises(NoCudaDriverError, match=r"no CUDA driver \(libcuda.so\) found: .*use backend='cpu'"):
        jc.jit(lambda a: a * 2, backend="cuda")(x)
    with pytest.raises(jc.JitcoreError, match="no CUDA driver"):
        jc.device_put(x)
    assert_matches(jc.jit(lambda a: a * 2)(x), x * 2)  # everything else works
    assert ".entry" in jc.jit(lambda a: a * 2, backend="cuda").lower(x).as_text("asm")  # PTX still


def test_config_backend(monkeypatch):
    assert config.backend_from_environment({}) == "cpu"
    assert config.backend_from_environment({"JITCORE_BACKEND": "CUDA"}) == "cuda"
    with pytest.raises(ConfigError, match="JITCORE_BACKEND must be one of 'cpu', 'cuda', not 'tpu'"):
        config.backend_from_environment({"JITCORE_BACKEND": "tpu"})
    with pytest.raises(ConfigError):
        config.backend = "gpu"
    monkeypatch.setattr(config, "backend", "cuda")
    assert jc.jit(lambda a: a).options.target == "cuda"
    assert jc.jit(lambda a: a, backend="cpu").options.target == "cpu"
    with pytest.raises(jc.JitcoreError, match="unknown compilation target 'tpu'"):
        jc.jit(lambda a: a, backend="tpu")


class FakeDevice:
    """Device memory as host buffers, for DeviceArray's bookkeeping without a GPU."""

    def __init__(self):
        self.memory, self.next = {}, itertools.count(4096, 4096)

    def allocate(self, nbytes):
        pointer = next(self.next)
        self.memory[pointer] = ctypes.create_string_buffer(max(1, nbytes))
        return pointer

    def free(self, pointer):
        del self.memory[pointer]

    def to_device(self, pointer, host, nbytes):
        ctypes.memmove(self.memory[pointer], host, nbytes)

    def to_host(self, host, pointer, nbytes):
        ctypes.memmove(host, self.memory[pointer], nbytes)

    def synchronize(self):
        pass


def test_device_arrays_round_trip(monkeypatch):
    device = FakeDevice()
    monkeypatch.setattr(device_array, "driver", lambda: device)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    d = jc.device_put(x)
    assert isinstance(d, jc.DeviceArray) and jc.device_put(d) is d
    assert (d.shape, d.dtype, d.ndim, d.size, d.nbytes, len(d)) == ((3, 2), np.float32, 2, 6, 24, 3)
    assert_matches(d.to_numpy(), x)
    assert_matches(np.asarray(d), x)
    assert_matches(np.asarray(d, dtype=np.float64), x.astype(np.float64))
    turned = device_array.DeviceArray(d.memory, (2, 3), d.dtype, transposed=True)
    assert_matches(turned.to_numpy(), x.T)
    assert_matches(jc.jit(lambda a: a * 2)(d), x * 2)  # the CPU backend takes it as its values
    del d, turned
    assert not device.memory  # freed with the last array that used it


# -- on a GPU ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gpu():
    from jitcore import cuda

    try:
        return cuda.require()
    except NoCudaDriverError as e:
        pytest.skip(f"no GPU to run on: {e}")


RNG = np.random.default_rng(1)


def on_gpu(f, *args, **kwargs):
    out = jc.jit(f, backend="cuda", **kwargs)(*args)
    return [np.asarray(o) for o in out] if isinstance(out, tuple) else np.asarray(out)


def test_elementwise_and_math_on_gpu(gpu):
    for dtype in (np.float32, np.float64):
        x = RNG.standard_normal(100_003).astype(dtype)
        for name in ("exp", "log", "tanh", "sin", "cos", "arctan", "expm1", "cbrt"):
            fn = getattr(np, name)
            arg = np.abs(x) + 0.5 if name == "log" else x
            assert_matches(on_gpu(fn, arg), fn(arg), ulp_bound(name, dtype),
                           context=f"{name} {dtype.__name__}")
        assert_matches(on_gpu(lambda a: a * 2 + 1, x), x * 2 + 1)


@pytest.mark.parametrize("shape", [(3, 5000), (500, 7), (6, 5, 300)])
def test_reductions_on_gpu(gpu, shape):
    x = RNG.standard_normal(shape)
    for axis in [None, *range(len(shape))]:
        np.testing.assert_allclose(on_gpu(lambda a, axis=axis: a.sum(axis=axis), x), x.sum(axis=axis),
                                   rtol=1e-12, atol=1e-12)
        assert_matches(on_gpu(lambda a, axis=axis: a.max(axis=axis), x), x.max(axis=axis))
        assert_matches(on_gpu(lambda a, axis=axis: a.argmin(axis=axis), x), x.argmin(axis=axis))
    i = RNG.integers(-9, 9, shape)
    assert_matches(on_gpu(lambda a: a.sum(axis=-1), i), i.sum(axis=-1))


def test_softmax_matmul_gather_on_gpu(gpu):
    x = RNG.standard_normal((64, 3000)).astype(np.float32)

    def softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    np.testing.assert_allclose(on_gpu(softmax, x), softmax(x), rtol=1e-5, atol=1e-7)
    a, b = RNG.standard_normal((70, 90)), RNG.standard_normal((90, 40))
    np.testing.assert_allclose(on_gpu(lambda p, q: p @ q, a, b), a @ b, rtol=1e-12)
    idx = RNG.integers(-3000, 3000, 500)
    assert_matches(on_gpu(lambda p, k: p[:, k], x, idx), x[:, idx])
    with pytest.raises(IndexError, match="index 3000 is out of bounds for axis 1 with size 3000"):
        on_gpu(lambda p, k: p[:, k], x, np.array([3000]))


def test_a_loop_keeps_its_data_on_the_gpu(gpu):
    step = jc.jit(lambda u: 0.5 * (u + np.roll(u, 1)), backend="cuda")
    u0 = RNG.standard_normal(10_000)
    u, expected = jc.device_put(u0), u0
    for _ in range(20):
        u, expected = step(u), 0.5 * (expected + np.roll(expected, 1))
    assert isinstance(u, jc.DeviceArray)
    np.testing.assert_allclose(u.to_numpy(), expected, rtol=1e-12)

    def loop(v, n):
        return jc.fori_loop(0, n, lambda k, c: c * 0.5 + v, np.zeros_like(v)), np.cumsum(v)

    total, running = on_gpu(loop, u0, 7)
    np.testing.assert_allclose(total, sum(u0 * 0.5 ** k for k in range(7)), rtol=1e-12)
    np.testing.assert_allclose(running, np.cumsum(u0), rtol=1e-9)


def test_tiled_matmul_on_gpu(gpu):
    """The tiled product at its real tile sizes: edges in every direction, one slab or many,
    batched; within the fixed k order's bound ``K * eps * (|a| @ |b|)``."""
    for dtype in (np.float32, np.float64):
        for shape_a, shape_b in [((1000, 700), (700, 300)), ((64, 64), (64, 64)), ((129, 1), (1, 65)),
                                 ((3, 2000), (2000, 5)), ((4, 100, 50), (4, 50, 70))]:
            a, b = RNG.standard_normal(shape_a).astype(dtype), RNG.standard_normal(shape_b).astype(dtype)
            got = on_gpu(lambda p, q: p @ q, a, b)
            exact = a.astype(np.float64) @ b.astype(np.float64)
            bound = (a.shape[-1] + 2) * np.finfo(dtype).eps * (np.abs(a).astype(np.float64) @ np.abs(b))
            assert got.dtype == dtype and np.all(np.abs(got - exact) <= bound), (dtype, shape_a, shape_b)
    # float32 products of at least BIG_MIN_TILES tiles of 128 x 128 (a short last slab), every layout
    a = RNG.standard_normal((2050, 301)).astype(np.float32)
    b = RNG.standard_normal((301, 1100)).astype(np.float32)
    exact = a.astype(np.float64) @ b
    bound = 303 * np.finfo(np.float32).eps * (np.abs(a).astype(np.float64) @ np.abs(b))
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    for f, args in ((lambda p, q: p @ q, (a, b)), (lambda p, q: p.T @ q, (at, b)),
                    (lambda p, q: p @ q.T, (a, bt)), (lambda p, q: p.T @ q.T, (at, bt))):
        got = on_gpu(f, *args)
        assert np.all(np.abs(got - exact) <= bound)


def test_callbacks_on_gpu(gpu, capsys):
    """Callback steps between launches: debug_print, and NumPy's errors for refused data."""
    def show(x):
        jc.debug_print("x={}", x)
        return x + 1

    np.testing.assert_array_equal(on_gpu(show, np.arange(3.0)), np.arange(1.0, 4.0))
    assert capsys.readouterr().out == "x=[0. 1. 2.]\n"
    with pytest.raises(jc.JitcoreError, match="negative integer powers"):
        on_gpu(lambda x, n: x ** n, np.arange(4), np.int64(-1))
    with pytest.raises(ValueError, match="not finite"):
        on_gpu(lambda x: np.histogram(x, bins=4)[0], np.array([1.0, np.nan]))


def test_row_groups_on_gpu(gpu):
    def softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def layernorm(a):
        m = a.mean(axis=1, keepdims=True)
        return (a - m) / np.sqrt(((a - m) ** 2).mean(axis=1, keepdims=True) + 1e-5)

    for dtype, rtol in ((np.float32, 2e-5), (np.float64, 1e-12)):
        for shape, kind in (((300, 1500), "row-group"), ((1001, 100), "warp-row-group")):
            x = RNG.standard_normal(shape).astype(dtype)
            for f in (softmax, layernorm):
                assert kind in [s.kind for s in jc.jit(f, backend="cuda").lower(x).plan().shapes]
                np.testing.assert_allclose(on_gpu(f, x), f(x), rtol=rtol, atol=rtol * 1e-2)


def test_parallel_gather_errors_on_gpu(gpu):
    """Many threads meet bad indices at once: the error is always NumPy's (the first)."""
    x = RNG.standard_normal((64, 3000)).astype(np.float32)
    idx = RNG.integers(-3000, 3000, 20_000)
    assert_matches(on_gpu(lambda p, k: p[:, k], x, idx), x[:, idx])
    idx[[5000, 123, 19_000, 7000]] = [4000, -3001, 9999, 3000]
    first = r"^index -3001 is out of bounds for axis 1 with size 3000 \(at .*test_cuda_runtime.py"
    for _ in range(5):
        with pytest.raises(IndexError, match=first):
            on_gpu(lambda p, k: p[:, k], x, idx)


def test_pinned_staging_on_gpu(gpu):
    """An array larger than several staging chunks, to the device and back, and used there."""
    from jitcore.cuda.staging import Staging

    x = RNG.standard_normal(5_000_000)  # 40 MB: five 8 MiB chunks
    d = jc.device_put(x)
    assert gpu.staging() is not None, Staging.why_not
    assert_matches(d.to_numpy(), x)
    assert_matches(on_gpu(lambda a: a * 2, d), x * 2)


def test_scatters_and_products_on_gpu(gpu):
    """Scatters on every thread (claims, then the winners' writes; integer atomics) with many
    repeated indices across blocks, and the products that run as reductions."""
    x = RNG.standard_normal(1000).astype(np.float32)
    k = RNG.integers(-1000, 1000, 1_000_000)
    w = RNG.standard_normal(k.size).astype(np.float32)

    def set_at(a, i, v):
        y = a.copy()
        y[i] = v
        return y

    for _ in range(3):  # whichever thread runs first, the last point's value stays
        assert_matches(on_gpu(set_at, x, k, w), set_at(x, k, w))
    i = RNG.integers(-100, 100, 1000)
    expected = i.copy()
    np.add.at(expected, k, 7)
    assert_matches(on_gpu(lambda a, j: a.at[j].add(7), i, k), expected)
    a, b = RNG.integers(-9, 9, (300, 200)), RNG.integers(-9, 9, (200, 100))
    m, v = RNG.standard_normal((500, 5000)), RNG.standard_normal(5000)
    got = on_gpu(lambda p, q, r, u: (p @ q, r @ u, r[:, :50] @ u[:50]), a, b, m, v)
    assert_matches(got[0], a @ b)
    np.testing.assert_allclose(got[1], m @ v, rtol=1e-10)
    np.testing.assert_allclose(got[2], m[:, :50] @ v[:50], rtol=1e-12)


def test_bench_without_a_gpu_says_so(no_driver, capsys, monkeypatch):
    """``bench.py --backend cuda`` on a machine without a GPU: one line, exit status 0."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import bench

    assert bench.main(["--backend", "cuda"]) == 0
    assert "no GPU present (no CUDA driver (libcuda.so) found" in capsys.readouterr().out


def test_gpu_check_without_a_driver(no_driver, tmp_path, capsys, monkeypatch):
    """``tools/gpu_check.py`` here: a clear message, exit status 0, the summary written."""
    import json
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import gpu_check

    assert gpu_check.main(["--out", str(tmp_path)]) == 0
    assert "no CUDA driver or GPU here (no CUDA driver (libcuda.so) found" in capsys.readouterr().out
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert report["device"]["status"] == "no-driver" and "tests" not in report
    assert "No CUDA driver or GPU" in (tmp_path / "gpu_check.md").read_text()


def test_gpu_check_copies_on_a_stand_in(monkeypatch, tmp_path):
    """``gpu_check.run_copies`` (pinned against plain, through ``device_put`` and
    ``to_numpy``) on the stand-in libcuda whose copies move bytes."""
    from pathlib import Path

    from jitcore.cuda import staging

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import gpu_check

    lib = CopyingLibcuda()
    cuda = Driver(lib)
    monkeypatch.setattr(cuda_driver, "_driver", cuda)
    monkeypatch.setattr(staging, "CHUNK", 1 << 16)
    rows = gpu_check.run_copies(1, nbytes=1 << 20)
    assert {(r["way"], r["direction"]) for r in rows} == {(w, d) for w in ("pinned", "plain")
                                                           for d in ("to device", "to host")}
    assert lib.bytes_async == 2 << 20  # the pinned pair staged; the plain pair not
    assert cuda_driver.PINNED_MIN_BYTES == staging.PINNED_MIN_BYTES  # restored


def test_gpu_check_phases(monkeypatch, tmp_path):
    """With a device (made up here): each phase runs, a failing one is recorded and the others
    still run, the summary is written, and the exit status says a phase failed."""
    import json
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import gpu_check

    row = {"workload": "sum", "dtype": "float32", "shapes": [[10]], "error": None,
           "ms": {"numpy": 2.0, "jitcore-cuda": 1.0}, "matches_numpy": True}
    monkeypatch.setattr(gpu_check, "detect", lambda: {"status": "ok", "capability": "9.0"})
    tests = {"ok": True, "summary": "3 passed", "seconds": 1}
    monkeypatch.setattr(gpu_check, "run_tests", lambda timeout: tests)
    monkeypatch.setattr(gpu_check, "run_copies", lambda repeat: 1 / 0)
    monkeypatch.setattr(gpu_check, "run_bench", lambda repeat: [row])
    assert gpu_check.main(["--out", str(tmp_path)]) == 1
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert report["copies_error"] == "ZeroDivisionError: division by zero" and report["bench"] == [row]
    assert "copies failed: ZeroDivisionError" in (tmp_path / "gpu_check.md").read_text()
    monkeypatch.setattr(gpu_check, "run_copies", lambda repeat: [])
    assert gpu_check.main(["--out", str(tmp_path)]) == 0


def test_gpu_check_summary_table(monkeypatch):
    """The markdown of a run with a GPU (made up here): the device, the tests, the table."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import gpu_check

    row = {"workload": "softmax", "dtype": "float32", "shapes": [[4096, 1024]], "error": None,
           "ms": {"numpy": 20.0, "jitcore-cuda": 0.5, "cupy": 0.4}, "matches_numpy": True}
    failed = {**row, "workload": "matmul", "error": "CudaDriverError: ...", "ms": {}}
    text = gpu_check.markdown({"device": {"status": "ok", "capability": "9.0", "device": "H200"},
                               "repeat": 5, "tests": {"summary": "120 passed", "seconds": 80.0},
                               "bench": [row, failed],
                               "copies": [{"way": "pinned", "direction": "to host", "bytes": 256 << 20,
                                           "ms": 10.0, "GB/s": 26.8}]})
    assert "Device: H200, compute capability 9.0" in text and "120 passed in 80.0 s" in text
    assert "| softmax | float32 | 4096x1024 | 20.000 | 0.500 | 0.400 | 40.00 | True |" in text
    assert "| matmul | float32 | [[4096, 1024]] | failed: CudaDriverError: ... |" in text
    assert "| pinned | to host | 256 | 10.00 | 26.8 |" in text


# -- on the emulated device (tests/gpu_emulator.py): the kernels' schedules and the runtime --------
@pytest.fixture
def emulated(monkeypatch):
    """The emulated device (``gpu_emulator.emulate``: small blocks, the same code paths)."""
    from tests.gpu_emulator import emulate

    return emulate(monkeypatch)


def run_emulated(f, *args):
    out = jc.jit(f, backend="cuda")(*args)
    return tuple(np.asarray(o) for o in out) if isinstance(out, tuple) else np.asarray(out)


def test_elementwise_and_thread_reductions_emulated(emulated):
    x = RNG.standard_normal((37, 300)).astype(np.float32)
    i = RNG.integers(-9, 9, (37, 300))

    def f(a, k):
        return np.tanh(a) * 2, a.T + 1, a.sum(axis=0), k.max(axis=0), np.cumsum(k, axis=1), a[:, ::-1]

    got = run_emulated(f, x, i)
    expected = f(x, i)
    assert_matches(got[0], expected[0], ulp_bound("tanh", np.float32) + 1)
    for g, e in zip(got[1:], expected[1:]):
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=1e-5)
        else:
            assert_matches(g, e)
    assert got[1].shape == (300, 37)
    assert {grid for _, grid, _ in emulated.launches} >= {1, 174}  # 37*300 points on 64 threads


def cascade_sum(values, run: int, levels: int) -> float:
    """A GPU thread's fold of a float sum (``kernels._Kernel._fold_points``): runs of ``run``
    values into a partial from 0, each full run of a level added into the next, and at the end
    each level into the one above, the highest holding the total."""
    partial = [0.0] * levels
    for k, v in enumerate(values, 1):
        partial[0] += v
        level = 0
        while level + 1 < levels and k % run ** (level + 1) == 0:
            partial[level + 1] += partial[level]
            partial[level] = 0.0
            level += 1
    for level in range(levels - 1):
        partial[level + 1] += partial[level]
    return partial[-1]


def test_block_reductions_emulated(emulated):
    """Warp shuffles, shared memory and the barrier: a sum, an argmax (ties to the first), an
    integer and a complex sum of rows long enough for a block each, and the documented
    combination order."""
    from jitcore.codegen.nvptx import kernels

    x = RNG.standard_normal((2, 3001))
    x[1, [700, 2900]] = 9.0  # a tie: the first index wins
    i = RNG.integers(-100, 100, (2, 3001))
    got = run_emulated(lambda a, k: (a.sum(axis=1), a.argmax(axis=1), (k + 1j * a).sum(axis=1),
                                     k.max(axis=1)), x, i)
    assert_matches(got[3], i.max(axis=1))
    np.testing.assert_allclose(got[0], x.sum(axis=1), rtol=1e-13)
    assert_matches(got[1], x.argmax(axis=1))
    np.testing.assert_allclose(got[2], (i + 1j * x).sum(axis=1), rtol=1e-13)
    assert all(block == kernels.BLOCK and grid == 2 for _, grid, block in emulated.launches)
    # the order: per thread strided partials (in the cascade), lanes folded 16, 8, 4, 2, 1, then
    # the warps' slots
    block = kernels.BLOCK
    partials = [cascade_sum(x[0, t::block].tolist(), kernels.RUN, kernels.CASCADE) for t in range(block)]
    for width in (32, kernels.WARPS):
        groups = [partials[k:k + width] for k in range(0, len(partials), width)]
        folded = []
        for lanes in groups:
            lanes = list(lanes)
            step = width // 2
            while step:
                lanes = [lanes[j] + lanes[j + step] if j + step < width else lanes[j] for j in range(width)]
                step //= 2
            folded.append(lanes[0])
        partials = folded
    assert got[0][0] == partials[0]  # bit for bit


def test_program_steps_emulated(emulated):
    """Loops, branches and buffer swaps walked by the runtime; softmax; gathers and their errors."""
    x = RNG.standard_normal((3, 2000)).astype(np.float32)

    def softmax(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    np.testing.assert_allclose(run_emulated(softmax, x), softmax(x), rtol=1e-5, atol=1e-8)

    def loop(v, n):
        return jc.fori_loop(0, n, lambda k, c: c * 0.5 + v, np.zeros_like(v))

    v = RNG.standard_normal(300)
    np.testing.assert_allclose(run_emulated(loop, v, 6), sum(v * 0.5 ** k for k in range(6)), rtol=1e-12)

    def branchy(v):
        total = v.sum()
        while total < 1000.0:
            total = total * 2.0 + 1.0
        if total > 1500.0:
            v = v * 2
        return v, total

    w = np.abs(RNG.standard_normal(50)) + 0.1
    expected_total = w.sum()
    while expected_total < 1000.0:
        expected_total = expected_total * 2.0 + 1.0
    got_v, got_total = run_emulated(branchy, w)
    np.testing.assert_allclose(got_total, expected_total, rtol=1e-12)
    assert_matches(got_v, w * 2 if expected_total > 1500.0 else w)
    idx = np.array([5, -1, 7])
    assert_matches(run_emulated(lambda a, k: a[:, k], x, idx), x[:, idx])
    with pytest.raises(IndexError, match="index 2000 is out of bounds for axis 1 with size 2000"):
        run_emulated(lambda a, k: a[:, k], x, np.array([3, 2000]))
    a, b = RNG.standard_normal((9, 40)), RNG.standard_normal((40, 5))
    np.testing.assert_allclose(run_emulated(lambda p, q: p @ q, a, b), a @ b, rtol=1e-12)


def test_device_arrays_stay_on_the_device_emulated(emulated):
    step = jc.jit(lambda u: 0.5 * (u + np.roll(u, 1)), backend="cuda")
    u0 = RNG.standard_normal(1000)
    u, expected = jc.device_put(u0), u0
    for _ in range(3):
        u, expected = step(u), 0.5 * (expected + np.roll(expected, 1))
        assert isinstance(u, jc.DeviceArray) and u.shape == (1000,)
    np.testing.assert_allclose(u.to_numpy(), expected, rtol=1e-12)
    turned = jc.jit(lambda m: (m * 2).T, backend="cuda")(np.arange(6.0).reshape(2, 3))
    assert turned.shape == (3, 2) and isinstance(turned, jc.DeviceArray)
    assert_matches(np.asarray(turned), (np.arange(6.0).reshape(2, 3) * 2).T)
    assert_matches(run_emulated(lambda m: m + 1, turned), (np.arange(6.0).reshape(2, 3) * 2).T + 1)


def test_calls_on_device_arrays_take_the_short_path_and_do_not_wait_emulated(emulated, monkeypatch):
    """A cached call of DeviceArrays goes by the short path (``dispatch.fast_key``) to the
    CUDA executable; it returns without waiting for the GPU (reading the result waits); a CPU
    function called with DeviceArrays never puts its executable there (its native code would
    take device pointers for host memory); a transposed DeviceArray keeps the full path."""
    waits = []
    monkeypatch.setattr(emulated, "synchronize", lambda: waits.append(1))
    add = jc.jit(lambda a, b: a + b, backend="cuda")
    x, y = RNG.standard_normal(100), RNG.standard_normal(100)
    dx, dy = jc.device_put(x), jc.device_put(y)
    for _ in range(2):
        out = add(dx, dy)
    assert len(add._fast_cache) == 1 and not waits
    assert_matches(np.asarray(out), x + y) and waits
    on_cpu = jc.jit(lambda a, b: a * b)
    for _ in range(2):
        assert_matches(on_cpu(dx, dy), x * y)
    assert not on_cpu._fast_cache
    turned = jc.jit(lambda m: m.T, backend="cuda")(np.arange(6.0).reshape(2, 3))
    assert_matches(np.asarray(add(turned, turned)), 2 * np.arange(6.0).reshape(2, 3).T)


def test_trig_beyond_the_math_librarys_range_raises_emulated(emulated):
    """The CPU recomputes sin, cos and tan of huge arguments with libm; the GPU has none, so it
    raises rather than return NaN, also from a block reduction (whose threads all go on)."""
    from jitcore.codegen.nvptx import TrigArgumentRangeError

    x = RNG.standard_normal((1, 1500))
    np.testing.assert_allclose(run_emulated(lambda a: np.sin(a).sum(axis=1), x), np.sin(x).sum(axis=1),
                               rtol=1e-13)
    x[0, 700] = 1e20
    with pytest.raises(TrigArgumentRangeError, match="beyond the GPU math library's range"):
        run_emulated(lambda a: np.sin(a).sum(axis=1), x)
    with pytest.raises(jc.JitcoreError, match="use backend='cpu'"):
        run_emulated(np.cos, np.array([1.0, np.float32(3e5)], np.float32))


def test_cuda_plans_go_through_the_disk_cache_emulated(emulated):
    """A second jitted function of the same code loads its plan (PTX and launch shapes) from
    the disk cache: no passes, no LLVM."""
    def f(a):
        return np.exp(a).sum(axis=1)

    x = RNG.standard_normal((2, 1500))
    first = jc.jit(f, backend="cuda")
    np.testing.assert_allclose(np.asarray(first(x)), f(x), rtol=1e-13)
    again = jc.jit(f, backend="cuda")
    np.testing.assert_allclose(np.asarray(again(x)), f(x), rtol=1e-13)
    assert (first.cache_info().from_disk, again.cache_info().from_disk) == (0, 1)
    assert jc.jit(f)(x).dtype == np.float64  # the CPU's entry is another one


def test_grid_reductions_emulated(emulated, monkeypatch):
    """A reduction to one value over many blocks: each block's total in the scratch buffer, the
    last block folding them in block order; again in a loop (the count is reset). Smaller
    thresholds than the real ones keep the emulated blocks few."""
    from jitcore.codegen.nvptx import kernels

    monkeypatch.setattr(kernels, "GRID_REDUCE_MIN", 4096)
    monkeypatch.setattr(kernels, "GRID_POINTS", 1024)
    x = RNG.standard_normal(5000)
    x[[10, 4500]] = 7.0  # a tie across blocks: the first index wins
    got = run_emulated(lambda a: (a.sum(), a.argmax(), (a > 0).sum()), x)
    np.testing.assert_allclose(got[0], x.sum(), rtol=1e-12)
    assert_matches(got[1], x.argmax())
    assert_matches(got[2], (x > 0).sum())
    plan = jc.jit(lambda a: a.sum(), backend="cuda").lower(x).plan()
    assert [(s.kind, s.grid) for s in plan.shapes] == [("grid-reduce", 4)]
    looped = run_emulated(lambda a, n: jc.fori_loop(0, n, lambda k, c: c + (a * k).sum(), 0.0), x, 3)
    np.testing.assert_allclose(looped, 3 * x.sum(), rtol=1e-12)  # (0 + 1 + 2) times the sum


# -- pinned staging (jitcore/cuda/staging.py), on a stand-in libcuda whose memory is the host's ----
class CopyingLibcuda(FakeLibcuda):
    """FakeLibcuda whose host allocations are real and whose copies move bytes (device
    pointers are host addresses); it checks each staging call's ctypes argument types."""

    SIGNATURES = {
        "cuMemHostAlloc": (ctypes._Pointer, ctypes.c_size_t, ctypes.c_uint),
        "cuEventCreate": (ctypes._Pointer, ctypes.c_uint),
        "cuStreamCreate": (ctypes._Pointer, ctypes.c_uint),
        "cuMemcpyHtoDAsync_v2": (ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p),
        "cuMemcpyDtoHAsync_v2": (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p),
        "cuEventRecord": (ctypes.c_void_p, ctypes.c_void_p),
        "cuEventSynchronize": (ctypes.c_void_p,),
        "cuStreamSynchronize": (ctypes.c_void_p,),
        "cuMemFreeHost": (ctypes.c_void_p,),
    }

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.pinned, self.bytes_async = [], 0

    def __getattr__(self, name):
        call = super().__getattr__(name)

        def checked(*args):
            expected = self.SIGNATURES.get(name)
            if expected is not None:
                assert len(args) == len(expected), (name, args)
                for a, t in zip(args, expected):
                    by_reference = isinstance(a, type(ctypes.byref(ctypes.c_int())))
                    held = type(a._obj) if by_reference else type(a)
                    assert issubclass(held, t) or (t is ctypes._Pointer and by_reference), (name, a)
            return call(*args)

        return checked

    def _cuMemHostAlloc(self, ref, size, flags):
        buffer = ctypes.create_string_buffer(size.value)
        self.pinned.append(buffer)
        return _out(ref, ctypes.addressof(buffer))

    def _cuMemcpyHtoDAsync_v2(self, target, source, size, stream):
        self.bytes_async += size.value
        ctypes.memmove(target.value, source.value, size.value)
        return 0

    def _cuMemcpyDtoHAsync_v2(self, target, source, size, stream):
        self.bytes_async += size.value
        ctypes.memmove(target.value, source.value, size.value)
        return 0

    def _cuMemAlloc_v2(self, ref, size):
        buffer = ctypes.create_string_buffer(size.value)
        self.pinned.append(buffer)  # kept alive: "device" memory is host memory here
        return _out(ref, ctypes.addressof(buffer))

    def _cuMemcpyHtoD_v2(self, target, source, size):
        ctypes.memmove(target.value, source.value, size.value)
        return 0

    def _cuMemcpyDtoH_v2(self, target, source, size):
        ctypes.memmove(target.value, source.value, size.value)
        return 0


def test_large_copies_go_through_pinned_staging(monkeypatch):
    """Copies of PINNED_MIN_BYTES or more: chunks through two pinned buffers on a stream (any
    size: one chunk, several, a partial last one); smaller ones straight."""
    from jitcore.cuda import staging

    monkeypatch.setattr(staging, "CHUNK", 4096)
    monkeypatch.setattr(staging, "PINNED_MIN_BYTES", 1000)
    monkeypatch.setattr(cuda_driver, "PINNED_MIN_BYTES", 1000)
    lib = CopyingLibcuda()
    cuda = Driver(lib)
    for n in (1000, 4096, 3 * 4096 + 7, 5 * 4096):
        x = RNG.integers(0, 255, n, dtype=np.uint8)
        device = np.zeros(n, np.uint8)  # the "device" memory
        back = np.zeros(n, np.uint8)
        before = lib.bytes_async
        cuda.to_device(device.ctypes.data, x.ctypes.data, n)
        cuda.to_host(back.ctypes.data, device.ctypes.data, n)
        assert_matches(back, x)
        assert lib.bytes_async - before == 2 * n  # both ways staged
    assert lib.calls.count("cuMemHostAlloc") == 2 and "cuStreamCreate" in lib.calls  # opened once
    small = np.arange(10, dtype=np.uint8)
    before = lib.bytes_async
    cuda.to_device(np.zeros(10, np.uint8).ctypes.data, small.ctypes.data, 10)
    assert lib.bytes_async == before  # a small copy is the plain one


def test_staging_falls_back_when_pinning_fails(monkeypatch):
    """No page-locked memory (or no such call): the plain copies, the reason kept, no error."""
    from jitcore.cuda import staging

    monkeypatch.setattr(cuda_driver, "PINNED_MIN_BYTES", 64)
    lib = CopyingLibcuda(fail={"cuMemHostAlloc": 2})  # CUDA_ERROR_OUT_OF_MEMORY
    cuda = Driver(lib)
    x = np.arange(100, dtype=np.float64)
    device, back = np.zeros_like(x), np.zeros_like(x)
    cuda.to_device(device.ctypes.data, x.ctypes.data, x.nbytes)
    cuda.to_host(back.ctypes.data, device.ctypes.data, x.nbytes)
    assert_matches(back, x)
    assert cuda.staging() is None and "cuMemHostAlloc failed" in staging.Staging.why_not
    assert lib.bytes_async == 0 and "cuMemcpyHtoD_v2" in lib.calls
    assert lib.calls.count("cuMemHostAlloc") == 1  # tried once, not at every copy


def test_bench_cuda_rows_emulated(emulated, monkeypatch):
    """``bench_cuda.measure`` on the GPU's own workloads (a scatter with repeated indices, a
    matrix-vector product), tiny, emulated: jitcore's result is checked against NumPy's, and a
    peer that cannot run the workload is left out of the row with its error."""
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "tools"))
    import bench_cuda
    import gpu_check

    class BrokenPeer:
        def asarray(self, a):
            raise RuntimeError("cannot run this")

    rows = [bench_cuda.measure(bench_cuda.workload(name), "float32", 1e-4, 1, emulated, None, BrokenPeer())
            for name in ("scatter", "matvec")]
    for row in rows:
        assert row["error"] is None and row["matches_numpy"], row
        assert set(row["ms"]) == {"numpy", "jitcore-cuda"}
        assert row["peer_errors"] == {"cupy": "RuntimeError: cannot run this"}
    text = gpu_check.markdown({"device": {"status": "ok", "capability": "8.0"}, "repeat": 1, "bench": rows})
    assert "| scatter | float32 | 100 |" in text and "- matvec: cupy left out: RuntimeError" in text


class AllocatingLibcuda(FakeLibcuda):
    """``cuMemAlloc`` hands out addresses (out of memory past ``limit`` bytes live), ``cuMemFree``
    takes them back."""

    def __init__(self, limit=1 << 40):
        super().__init__()
        self.live, self.limit, self.next = {}, limit, itertools.count(1 << 20, 1 << 32)

    def _cuMemAlloc_v2(self, ref, size):
        if sum(self.live.values()) + size.value > self.limit:
            return 2  # CUDA_ERROR_OUT_OF_MEMORY
        pointer = next(self.next)
        self.live[pointer] = size.value
        return _out(ref, pointer)

    def _cuMemFree_v2(self, pointer):
        del self.live[pointer.value]
        return 0


def test_freed_device_memory_is_reused(monkeypatch):
    """A freed block goes to the driver's pool and the next allocation of its bucket takes it
    (no cuMemAlloc, no cuMemFree, which waits for the whole device); the pool holds at most
    POOL_BYTES; out of memory, the pool goes back to the driver and the allocation is retried."""
    lib = AllocatingLibcuda(limit=10 << 20)
    cuda = Driver(lib)
    a = cuda.allocate(1000)
    assert lib.live[a] == 1024  # the bucket: a multiple of 512 bytes
    cuda.free(a)
    assert cuda.allocate(1001) == a and lib.calls.count("cuMemAlloc_v2") == 1  # the same bucket
    assert "cuMemFree_v2" not in lib.calls
    big = cuda.allocate((3 << 20) + 1)
    assert lib.live[big] == (3 << 20) + (1 << 18)  # from 1 MiB: an eighth of its power of two
    cuda.free(big)
    other = cuda.allocate(6 << 20)  # 6.25 MiB live after this: fits beside the pooled 3.25
    cuda.free(other)
    assert len(lib.live) == 3 and "cuMemFree_v2" not in lib.calls
    huge = cuda.allocate(8 << 20)  # over the limit with the pool: the pool is given back
    assert set(lib.live) == {a, huge} and lib.calls.count("cuMemFree_v2") == 2
    monkeypatch.setattr(cuda_driver, "POOL_BYTES", 4 << 20)
    cuda.free(huge)  # more than the pool may hold: straight back to the driver
    assert set(lib.live) == {a}
    with pytest.raises(CudaDriverError, match="cuMemAlloc"):
        cuda.allocate(11 << 20)


def test_writes_to_arguments_reach_the_callers_arrays_emulated(emulated):
    """``x[i] = v`` and ``x += y`` in a function on the GPU change the caller's array as NumPy
    does: a NumPy array (C-ordered or strided) by a copy back, a DeviceArray on the device;
    a written argument sharing memory with another is refused, as on the CPU."""
    def f(x, y, i):
        x[i] = 7.0
        x += y
        return x.sum()

    g = jc.jit(f, backend="cuda")
    whole = RNG.integers(-50, 50, 40).astype(np.float64)  # sums exact in any order
    y, i = whole[:10], np.array([1, 3, -1])
    for x in (whole[10:20].copy(), whole[20:40][::2]):
        expected = x.copy()
        want = f(expected, y, i)
        assert_matches(np.asarray(g(x, y, i)), np.asarray(want))
        assert_matches(x, expected)
    on_device, expected = jc.device_put(whole[:10] * 3), whole[:10] * 3
    f(expected, y, i)
    g(on_device, y, i)
    assert_matches(np.asarray(on_device), expected)
    y2 = y.copy()  # one NumPy array as both arguments: passed once, as NumPy's names see it
    same, same2 = y.copy(), y.copy()
    assert_matches(np.asarray(g(same, same, i)), np.asarray(f(same2, same2, i)))
    assert_matches(same, same2)
    with pytest.raises(jc.JitcoreError, match="shares memory"):  # a view of it: refused
        g(y2, y2[:], i)
    with pytest.raises(jc.JitcoreError, match="shares memory"):
        g(on_device, on_device, i)
