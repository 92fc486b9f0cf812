"""Layernorm over rows, float64 4096x1024 (tools/bench_workloads.py's), 40 calls in one process:
min, p25 and median in ms (docs/performance.md, "Session 56: compile time per module").

    PYTHONPATH=. python tools/bench_layernorm_calls56.py
"""

import sys
import time

import numpy as np

sys.path.insert(0, "tools")
import bench_workloads as bw  # noqa: E402  (tools/ on the path first)

import jitcore as jc  # noqa: E402

w = [w for w in bw.WORKLOADS if w.name == "layernorm"][0]
x = np.random.default_rng(0).standard_normal((4096, 1024))
g = jc.jit(w.fn)
g(x)
ts = []
for _ in range(40):
    t = time.perf_counter()
    g(x)
    ts.append((time.perf_counter() - t) * 1e3)
ts.sort()
print(f"min {ts[0]:.2f} p25 {ts[10]:.2f} median {ts[20]:.2f}")
