#!/usr/bin/env python
"""The GPU matrix product's tile variants side by side on a real GPU: the tile constants of
``codegen/nvptx/matmul.py`` set per variant, each timed on float32 and float64 products of
several sizes against CuPy's (cuBLAS) in the same run, each result checked against the float64
product within the fixed k order's bound.

    python tools/gpu_matmul_variants.py [--sizes 1024,2048,4096] [--f64-sizes 1024,4096]
        [--rounds 7] [--json F]

A variant is a dict of the module's constants (``VARIANTS``); the one with none changed is the
code as shipped. Times are medians over ``--rounds`` rounds of 10 calls back to back (the GPU's
clocks stay up), in ms a call; without a GPU it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

F32, F64, BOTH = ("float32",), ("float64",), ("float32", "float64")
VARIANTS = {  # name: (the constants it sets, the dtypes whose code it changes)
    "shipped": ({}, BOTH),
    "one-buffer": ({"BUFFERS": 1}, BOTH),
    "small-only": ({"BIG_MIN_TILES": 10**9}, F32),
    "big-no-limit": ({"BIG_MAX_REGISTERS": {4: 0, 8: 0}}, F32),
    "big-depth16": ({"BIG_DEPTH": 16}, F32),
    "small-depth8": ({"DEPTH": 8, "BIG_MIN_TILES": 10**9}, BOTH),
    "f64-big": ({"BIG_ELEMENT_BYTES": (4, 8)}, F64),
    "f64-big-168": ({"BIG_ELEMENT_BYTES": (4, 8), "BIG_MAX_REGISTERS": {4: 128, 8: 168}}, F64),
}
BLOCK = 10


def _time(run, rounds: int) -> float:
    run()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(BLOCK):
            run()
        times.append((time.perf_counter() - start) / BLOCK * 1e3)
    return statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="1024,2048,4096")
    p.add_argument("--f64-sizes", default="1024,4096")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--dtypes", default="float32,float64")
    p.add_argument("--json", default=None)
    p.add_argument("--only", default="", help="comma-separated variant names (default: all)")
    a = p.parse_args(argv)
    import jitcore as jc
    from jitcore import cuda
    from jitcore.codegen.nvptx import matmul

    try:
        driver = cuda.require()
    except cuda.NoCudaDriverError as e:
        print(f"no GPU: {e}")
        return 0
    try:
        import cupy
    except ImportError:
        cupy = None
    rows = []
    rng = np.random.default_rng(0)
    for dtype in map(np.dtype, a.dtypes.split(",")):
        for n in map(int, (a.sizes if dtype == np.float32 else a.f64_sizes).split(",")):
            x, y = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
            exact = x.astype(np.float64) @ y.astype(np.float64)
            scale = np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64)
            bound = (n + 2) * np.finfo(dtype).eps * scale
            dx, dy = jc.device_put(x), jc.device_put(y)
            row = {"dtype": dtype.name, "n": n, "ms": {}, "ok": {}}
            if cupy is not None:
                cx, cy = cupy.asarray(x), cupy.asarray(y)
                row["ms"]["cupy"] = _time(lambda cx=cx, cy=cy: (cx @ cy, cupy.cuda.Device().synchronize()),
                                          a.rounds)
            for name, (constants, dtypes) in VARIANTS.items():
                if (a.only and name not in a.only.split(",")) or dtype.name not in dtypes:
                    continue
                saved = {k: getattr(matmul, k) for k in constants}
                try:
                    for k, v in constants.items():
                        setattr(matmul, k, v)
                    f = jc.jit(lambda p, q: p @ q, backend="cuda")
                    got = np.asarray(f(dx, dy))
                    row["ok"][name] = bool(np.all(np.abs(got - exact) <= bound))
                    row["ms"][name] = _time(lambda f=f, dx=dx, dy=dy: (f(dx, dy), driver.synchronize()),
                                            a.rounds)
                except Exception as e:  # noqa: BLE001  (a variant that fails is reported, not fatal)
                    row["ms"][name] = f"failed: {type(e).__name__}: {e}"[:200]
                finally:
                    for k, v in saved.items():
                        setattr(matmul, k, v)
            flops = 2 * n**3
            cells = "  ".join(f"{k} {v:.3f} ({flops / v / 1e9:.1f} TF)" if isinstance(v, float)
                              else f"{k} {v}" for k, v in row["ms"].items())
            print(f"{dtype.name} {n}: {cells}  ok={row['ok']}", flush=True)
            rows.append(row)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
