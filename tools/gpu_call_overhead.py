#!/usr/bin/env python
"""Where a call on the CUDA backend spends its time: a waited call against a stream of calls,
and the host's Python by profile.

    python tools/gpu_call_overhead.py [--calls N] [--profile]

For each workload, float32, arrays already on the device: the median wall time of a call that
waits for its result (``synchronize``), and of a call in a stream of calls that waits only at
the end (what a loop of calls on device arrays pays); CuPy's two where installed.
``--profile``: the Python functions of 200 waited calls of the smallest workload (the host's
part alone), by own time. Without a GPU it says so and exits 0. Calls run back to back (not
alternated with NumPy's: the GPU's clocks drop while the CPU works between calls).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

WORKLOADS = {
    "tanh(2x+1) 10M": (lambda x: np.tanh(2 * x + 1), [(10_000_000,)]),
    "sum 10M": (lambda x: np.sum(x), [(10_000_000,)]),
    "softmax 4096x1024": (lambda x: (e := np.exp(x - x.max(1, keepdims=True))) / e.sum(1, keepdims=True),
                          [(4096, 1024)]),
    "x + y, 1000": (lambda x, y: x + y, [(1000,), (1000,)]),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--profile", action="store_true")
    opts = parser.parse_args(argv)
    import jitcore as jc
    from jitcore import cuda as jc_cuda

    try:
        cuda = jc_cuda.require()
    except jc_cuda.NoCudaDriverError as e:
        print(f"gpu_call_overhead: no CUDA driver or GPU here ({e}); nothing to run")
        return 0
    try:
        import cupy
    except ImportError:
        cupy = None
    rng = np.random.default_rng(0)
    print(f"{'workload':20s} {'waited ms':>10s} {'streamed ms':>12s} {'cupy waited, streamed ms':>25s}")
    for name, (fn, shapes) in WORKLOADS.items():
        arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        on_device = [jc.device_put(a) for a in arrays]
        jitted = jc.jit(fn, backend="cuda")
        jitted(*on_device)
        cuda.synchronize()

        def waited(jitted=jitted, on_device=on_device):
            out = jitted(*on_device)
            cuda.synchronize()
            return out

        times = []
        for _ in range(opts.calls):
            start = time.perf_counter()
            waited()
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _ in range(opts.calls):
            jitted(*on_device)
        cuda.synchronize()
        streamed = (time.perf_counter() - start) / opts.calls
        peer = "-"
        if cupy is not None:
            cupy_arrays = [cupy.asarray(a) for a in arrays]
            fn(*cupy_arrays)
            cupy.cuda.Device().synchronize()
            ctimes = []
            for _ in range(opts.calls):
                start = time.perf_counter()
                fn(*cupy_arrays)
                cupy.cuda.Device().synchronize()
                ctimes.append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(opts.calls):
                fn(*cupy_arrays)
            cupy.cuda.Device().synchronize()
            per_call = (time.perf_counter() - start) / opts.calls
            peer = f"{1e3 * statistics.median(ctimes):.3f} {1e3 * per_call:.3f}"
        waited_ms = 1e3 * statistics.median(times)
        print(f"{name:20s} {waited_ms:10.3f} {1e3 * streamed:12.3f} {peer:>25s}", flush=True)
        if opts.profile and name == "x + y, 1000":  # the host's part alone
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(200):
                waited()
            profile.disable()
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(18)
            print(text.getvalue()[-3500:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
