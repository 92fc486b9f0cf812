"""``bench.py --backend cuda``: the performance workloads (``bench_workloads.WORKLOADS``) run by
jitcore's CUDA backend, against NumPy on the CPU and, when installed, JAX on the GPU.

Each implementation gets the same arrays, already where it computes (``jc.device_put``,
``jax.device_put``): the time is the call and the wait for the GPU, not the copies. One warm-up
call each, then ``--repeat`` timed rounds with the implementations taking turns (a GPU's a
block of ``GPU_BLOCK`` calls back to back, per call); medians, and
ratios to jitcore's. Each GPU result is checked against NumPy's (a relative tolerance: GPU sums
combine in another order). CuPy runs the same code too when installed; a peer that cannot run
a workload (JAX's arrays take no ``y[i] = v``) is left out of that row, with its error, and
the row is still measured. ``GPU_WORKLOADS`` adds workloads of the GPU's own schedules (a
scatter with repeated indices, a matrix-vector product). ``measure`` gives one row as data
(``tools/gpu_check.py`` writes it as JSON). Without a GPU or driver it prints so and exits 0.
"""

from __future__ import annotations

import statistics
import time
import zlib

import bench_workloads as bw  # tools/, on sys.path when bench.py runs as a script
import numpy as np

TOLERANCE = {"float32": 2e-3, "float64": 1e-9}
# a GPU implementation's timed calls come in blocks of this many, back to back, each waited
# for: between single calls the GPU idles while NumPy's call runs, and its clocks drop (an
# H200 measured 0.3-0.6 ms a call that way, 0.09 ms back to back)
GPU_BLOCK = 10
PEERS = ("jax-gpu", "cupy")


def scatter(x, idx, v):
    y = x.copy()
    y[idx] = v
    return y


def matvec(a, v):
    return a @ v


def _scatter_inputs(rng, shapes, dtype):
    (n,), (m,) = shapes
    values = rng.standard_normal(m).astype(dtype)
    return [rng.standard_normal(n).astype(dtype), rng.integers(-n, n, m), values]


GPU_WORKLOADS = [
    bw.Workload("scatter", "y[idx] = v, repeated idx", scatter,
                lambda s: [(bw._n(1_000_000, s),), (bw._n(10_000_000, s),)], "no indexed writes",
                inputs=_scatter_inputs),
    bw.Workload("matvec", "a @ v", matvec, lambda s: [(bw._side(4096, s),) * 2, (bw._side(4096, s),)],
                "no matrix product"),
]


def _gpu():
    """jitcore's CUDA driver, or the reason there is none."""
    from jitcore import cuda

    try:
        return cuda.require(), None
    except cuda.NoCudaDriverError as e:
        return None, str(e)


def _jax_gpu():
    try:
        import jax

        return jax if any(d.platform == "gpu" for d in jax.devices()) else None
    except Exception:  # noqa: BLE001  (not installed, or no GPU plugin)
        return None


def _cupy():
    """CuPy, when installed and it sees a GPU, else None."""
    try:
        import cupy

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # noqa: BLE001  (not installed, or no device for it)
        return None


def _implementations(work, arrays, cuda, jax, cupy=None):
    """name -> a function making the implementation ready (copies to its device) and returning
    the call to time."""
    import jitcore as jc

    def jitcore_cuda():
        jitted = jc.jit(work.fn, backend="cuda")
        on_device = [jc.device_put(a) for a in arrays]

        def run():
            out = jitted(*on_device)
            cuda.synchronize()
            return out

        return run

    def jax_gpu():
        fn = jax.jit(bw._with_np(work.fn, jax.numpy))
        jax_arrays = [jax.device_put(a) for a in arrays]
        return lambda: jax.block_until_ready(fn(*jax_arrays))

    def cupy_gpu():
        cupy_fn = bw._with_np(work.fn, cupy)
        cupy_arrays = [cupy.asarray(a) for a in arrays]

        def run():
            out = cupy_fn(*cupy_arrays)
            cupy.cuda.Device().synchronize()
            return out

        return run

    makers = {"numpy": lambda: (lambda: work.fn(*arrays)), "jitcore-cuda": jitcore_cuda}
    if jax is not None:
        makers["jax-gpu"] = jax_gpu
    if cupy is not None:
        makers["cupy"] = cupy_gpu
    return makers


def _first(out):
    out = out[0] if isinstance(out, tuple) else out
    return out.get() if hasattr(out, "get") and not isinstance(out, np.ndarray) else np.asarray(out)


def workload(name: str):
    return next(w for w in [*bw.WORKLOADS, *GPU_WORKLOADS] if w.name == name)


def measure(work, dtype, scale: float, repeat: int, cuda, jax=None, cupy=None) -> dict:
    """One workload at one dtype: the implementations' median times (ms, the warm-up call
    apart, taking turns) and whether jitcore's result matches NumPy's; ``error`` if it failed."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(zlib.crc32(f"{work.name} {dtype.name}".encode()))
    shapes = work.shapes(scale)
    row = {"workload": work.name, "title": work.title, "dtype": dtype.name,
           "shapes": [list(s) for s in shapes], "ms": {}, "matches_numpy": None, "error": None}
    arrays = (work.inputs(rng, shapes, dtype) if work.inputs is not None
              else [rng.standard_normal(s).astype(dtype) for s in shapes])
    impls, results = {}, {}
    for name, make in _implementations(work, arrays, cuda, jax, cupy).items():
        try:
            start = time.perf_counter()
            impls[name] = make()
            results[name] = impls[name]()  # the warm-up call (jitcore compiles)
            if name == "jitcore-cuda":
                row["first_call_s"] = time.perf_counter() - start
        except Exception as e:  # noqa: BLE001  (the row or the peer says what failed; others still run)
            impls.pop(name, None)
            if name not in PEERS:
                row["error"] = f"{type(e).__name__}: {e}"
                return row
            row.setdefault("peer_errors", {})[name] = f"{type(e).__name__}: {e}"
    times = {name: [] for name in impls}
    for _ in range(repeat):
        for name, fn in impls.items():
            block = 1 if name == "numpy" else GPU_BLOCK
            start = time.perf_counter()
            for _ in range(block):
                fn()
            times[name].append((time.perf_counter() - start) / block)
    expected = _first(results["numpy"]).astype(np.float64)
    got = _first(results["jitcore-cuda"]).astype(np.float64)
    tolerance = TOLERANCE[dtype.name]
    row["matches_numpy"] = bool(np.allclose(got, expected, rtol=tolerance, atol=tolerance))
    row["ms"] = {name: 1e3 * statistics.median(t) for name, t in times.items()}
    return row


def run(opts) -> int:
    cuda, why = _gpu()
    if cuda is None:
        print(f"bench.py --backend cuda: no GPU present ({why}); nothing to measure")
        return 0
    jax, cupy = _jax_gpu(), _cupy()
    only = None if opts.only is None else {n.strip() for n in opts.only.split(",")}
    repeat = opts.repeat or 5
    scale = opts.size / bw.DEFAULT_SIZE
    print(f"GPU: compute capability {cuda.capability[0]}.{cuda.capability[1]}; JAX on the GPU: "
          f"{'yes' if jax is not None else 'not installed'}; CuPy: {'yes' if cupy is not None else 'no'}; "
          f"{repeat} runs, medians in ms")
    print(f"{'workload':<12} {'dtype':<8} {'numpy':>10} {'jitcore-cuda':>13} {'jax-gpu':>10} {'cupy':>10}"
          "  check")
    for work in [*bw.WORKLOADS, *GPU_WORKLOADS]:
        if only is not None and work.name not in only:
            continue
        if work.steps is not None:
            print(f"{work.name:<12} not measured on the GPU yet (a training loop: bench.py's CPU suite)")
            continue
        for dtype in work.dtypes:
            print(format_row(measure(work, dtype, scale, repeat, cuda, jax, cupy)))
    return 0


def format_row(row: dict) -> str:
    if row["error"] is not None:
        return f"{row['workload']:<12} {row['dtype']:<8} failed: {row['error']}"
    ms = row["ms"]
    peers = " ".join(f"{ms[n]:>10.3f}" if n in ms else f"{'-':>10}" for n in PEERS)
    check = "matches NumPy" if row["matches_numpy"] else "DIFFERS from NumPy"
    return (f"{row['workload']:<12} {row['dtype']:<8} {ms['numpy']:>10.3f} {ms['jitcore-cuda']:>13.3f} "
            f"{peers}  {check}")
