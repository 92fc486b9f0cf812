#!/usr/bin/env python3
"""jitcore per chunk against NumPy per chunk on a Dask cluster (issue 15).

    python tools/bench_dask.py [--rows N] [--cols M] [--chunk-rows R] [--repeat K]
    python tools/bench.py --dask [the same options]

Starts a ``LocalCluster`` of two worker processes of one thread each on loopback, puts a random
float64 array there (generated on the workers and persisted, so no transfer is timed), and times
the same two workloads written as NumPy functions:

- elementwise: ``np.tanh(2 * x + 1) * x``, its chunks persisted on the workers;
- reduction: ``np.sum(np.tanh(2 * x + 1) * x, axis=0)``, and ``np.var(x, axis=0)``, gathered;

once as a jitted function called on the Dask array (jitcore's kernel per chunk, a jitted combine)
and once as Dask's own ``dask.array`` spelling (NumPy's ufuncs per chunk). After one warm-up
each (which compiles), the implementations take turns K times; the table shows the medians and
NumPy's median over jitcore's (above 1: jitcore faster), then each worker's compile counts.
jitcore's kernels run single-threaded on the workers (``JITCORE_NUM_THREADS=1``), as NumPy's
ufuncs do: Dask's workers are the parallelism. Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def workloads(jc, np, da):
    """name -> (jitted function on a Dask array, Dask's NumPy spelling, whether to persist)."""
    return {
        "elementwise": (jc.jit(lambda x: np.tanh(2 * x + 1) * x), lambda x: da.tanh(2 * x + 1) * x, True),
        "sum of tanh": (jc.jit(lambda x: np.sum(np.tanh(2 * x + 1) * x, axis=0)),
                        lambda x: da.sum(da.tanh(2 * x + 1) * x, axis=0), False),
        "var": (jc.jit(lambda x: np.var(x, axis=0)), lambda x: da.var(x, axis=0), False),
    }


def run(client, lazy, persist: bool):
    """Seconds to compute ``lazy`` on the cluster: persisted there, or gathered here."""
    from distributed import wait
    start = time.perf_counter()
    if persist:
        done = client.persist(lazy)
        wait(done)
        del done
        return time.perf_counter() - start, None
    result = client.compute(lazy).result()
    return time.perf_counter() - start, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_dask.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=8000)
    parser.add_argument("--cols", type=int, default=2000)
    parser.add_argument("--chunk-rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args(argv)

    import dask.array as da
    import numpy as np
    from distributed import Client, LocalCluster

    import jitcore as jc
    from jitcore import dask_arrays

    env = {"JITCORE_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None, env=env, silence_logs=40) as cluster, Client(cluster) as client:
        x = da.random.default_rng(0).standard_normal((opts.rows, opts.cols),
                                                     chunks=(opts.chunk_rows, opts.cols))
        x = client.persist(x)
        print(f"x: {opts.rows}x{opts.cols} float64 ({x.nbytes / 2**20:.0f} MiB) in {x.npartitions} chunks "
              f"of {opts.chunk_rows} rows, on 2 worker processes of 1 thread; median of {opts.repeat}")
        times = {}
        for name, (jitted, numpy_way, persist) in workloads(jc, np, da).items():
            lazy = {"jitcore": jitted(x), "numpy": numpy_way(x)}
            results = {impl: run(client, v, persist)[1] for impl, v in lazy.items()}  # warm up
            if not persist:
                np.testing.assert_allclose(results["jitcore"], results["numpy"], rtol=1e-10)
            samples = {impl: [] for impl in lazy}
            for _ in range(opts.repeat):
                for impl, v in lazy.items():
                    samples[impl].append(run(client, v, persist)[0])
            times[name] = {impl: statistics.median(s) for impl, s in samples.items()}
        print(f"{'workload':<14}{'jitcore ms':>12}{'numpy ms':>12}{'numpy/jitcore':>15}")
        for name, t in times.items():
            ratio = t["numpy"] / t["jitcore"]
            print(f"{name:<14}{t['jitcore'] * 1e3:>12.1f}{t['numpy'] * 1e3:>12.1f}{ratio:>15.2f}")
        print("compiles per worker (jitted function: compiles, of which from the disk cache; calls):")
        for worker, infos in sorted(client.run(dask_arrays.worker_cache_info).items()):
            counts = ", ".join(f"{token.rsplit('-', 1)[0]}: {i.compiles} ({i.from_disk}); {i.hits + i.misses}"
                               for token, i in infos.items())
            print(f"  {worker}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
