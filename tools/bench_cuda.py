"""``bench.py --backend cuda``: the performance workloads (``bench_workloads.WORKLOADS``) run by
jitcore's CUDA backend, against NumPy on the CPU and, when installed, JAX on the GPU.

Each implementation gets the same arrays, already where it computes (``jc.device_put``,
``jax.device_put``): the time is the call and the wait for the GPU, not the copies. One warm-up
call each, then ``--repeat`` timed calls with the implementations taking turns; medians, and
ratios to jitcore's. Each GPU result is checked against NumPy's (a relative tolerance: GPU sums
combine in another order). Without a GPU or driver it prints so and exits 0.
"""

from __future__ import annotations

import statistics
import time
import zlib

import bench_workloads as bw  # tools/, on sys.path when bench.py runs as a script
import numpy as np

TOLERANCE = {"float32": 2e-3, "float64": 1e-9}


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


def _implementations(work, arrays, cuda, jax):
    import jitcore as jc

    jitted = jc.jit(work.fn, backend="cuda")
    on_device = [jc.device_put(a) for a in arrays]

    def run_jitcore():
        out = jitted(*on_device)
        cuda.synchronize()
        return out

    impls = {"numpy": (lambda: work.fn(*arrays)), "jitcore-cuda": run_jitcore}
    if jax is not None:
        fn = jax.jit(bw._with_np(work.fn, jax.numpy))
        jax_arrays = [jax.device_put(a) for a in arrays]
        impls["jax-gpu"] = lambda: jax.block_until_ready(fn(*jax_arrays))
    return impls


def _first(out):
    return np.asarray(out[0] if isinstance(out, tuple) else out)


def run(opts) -> int:
    cuda, why = _gpu()
    if cuda is None:
        print(f"bench.py --backend cuda: no GPU present ({why}); nothing to measure")
        return 0
    jax = _jax_gpu()
    only = None if opts.only is None else {n.strip() for n in opts.only.split(",")}
    repeat = opts.repeat or 5
    scale = opts.size / bw.DEFAULT_SIZE
    print(f"GPU: compute capability {cuda.capability[0]}.{cuda.capability[1]}; JAX on the GPU: "
          f"{'yes' if jax is not None else 'not installed'}; {repeat} runs, medians in ms")
    print(f"{'workload':<12} {'dtype':<8} {'numpy':>10} {'jitcore-cuda':>13} {'jax-gpu':>10}  check")
    for work in bw.WORKLOADS:
        if only is not None and work.name not in only:
            continue
        if work.steps is not None:
            print(f"{work.name:<12} not measured on the GPU yet (a training loop: bench.py's CPU suite)")
            continue
        for dtype in map(np.dtype, work.dtypes):
            rng = np.random.default_rng(zlib.crc32(f"{work.name} {dtype.name}".encode()))
            shapes = work.shapes(scale)
            arrays = (work.inputs(rng, shapes, dtype) if work.inputs is not None
                      else [rng.standard_normal(s).astype(dtype) for s in shapes])
            try:
                impls = _implementations(work, arrays, cuda, jax)
                results = {name: fn() for name, fn in impls.items()}  # the warm-up calls
            except Exception as e:  # noqa: BLE001  (a row says what failed; the others still run)
                print(f"{work.name:<12} {dtype.name:<8} failed: {type(e).__name__}: {e}")
                continue
            times = {name: [] for name in impls}
            for _ in range(repeat):
                for name, fn in impls.items():
                    start = time.perf_counter()
                    fn()
                    times[name].append(time.perf_counter() - start)
            expected = _first(results["numpy"]).astype(np.float64)
            got = _first(results["jitcore-cuda"]).astype(np.float64)
            ok = np.allclose(got, expected, rtol=TOLERANCE[dtype.name], atol=TOLERANCE[dtype.name])
            ms = {name: 1e3 * statistics.median(t) for name, t in times.items()}
            jax_ms = f"{ms['jax-gpu']:>10.3f}" if "jax-gpu" in ms else f"{'-':>10}"
            print(f"{work.name:<12} {dtype.name:<8} {ms['numpy']:>10.3f} {ms['jitcore-cuda']:>13.3f} "
                  f"{jax_ms}  {'matches NumPy' if ok else 'DIFFERS from NumPy'}")
    return 0
