"""tools/bench.py at a tiny size: it runs, and prints its tables (speed is never asserted)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_bench_prints_its_tables_at_a_tiny_size():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO), env.get("PYTHONPATH", "")] if p)
    result = subprocess.run([sys.executable, "tools/bench.py", "--size", "1000", "--repeat", "1"],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("command: ") and "tools/bench.py --size 1000 --repeat 1" in out
    assert "machine: " in out and "numpy " in out
    assert "| case" in out and "| median ms" in out
    for case in ("tanh(2x+1)", "sin(x+y)", "a*b+c*d-1", "abs(exp(z*w+z))", "x.sum()", "(x*x).mean(axis=0)"):
        assert case in out
    rows = [line for line in out.splitlines() if line.startswith("|")]
    jit_rows = [r for r in rows if "| jitcore |" in r]
    assert len(jit_rows) == 7 and not any("error" in r for r in jit_rows)
    for peer in ("numexpr", "numba", "jax"):
        assert any(f"| {peer} " in r for r in rows)
    assert "trace (signature + tracing)" in out and "codegen: LLVM IR, O3, object code" in out
    assert "load: MCJIT" in out
    assert "jitcore g(x), cached" in out and "µs per call" in out


def test_bench_math_suite_at_a_tiny_size():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(REPO), env.get("PYTHONPATH", "")] if p)
    command = [sys.executable, "tools/bench.py", "--suite", "math", "--size", "1000", "--repeat", "1"]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("command: ") and "tools/bench.py --suite math --size 1000 --repeat 1" in out
    assert "LLVM host CPU" in out and "numpy " in out and "load average" in out
    assert "single-threaded" in out
    assert "| function" in out and "| f32 speedup" in out and "| f64 max ulp" in out
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "exp" in rows and "tanh(2x+1)" in rows
    for name in ("exp", "tanh(2x+1)"):
        cells = [c.strip() for c in rows[name].split("|")[1:-1]]
        assert cells[4].endswith("x") and cells[8].endswith("x"), rows[name]  # the two speedups
        assert cells[-1].startswith(("✓", "✗")), rows[name]
    assert "(≥2x)" in rows["tanh(2x+1)"]
    assert "| case" not in out  # the default suite's table is not part of --suite math


def test_ulp_distance():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        from bench import ulp_distance
    finally:
        sys.path.remove(str(REPO / "tools"))
    import numpy as np

    for dt in (np.float32, np.float64):
        one = dt(1)
        a = np.array([0.0, -0.0, 1.0, np.nan, np.nan, np.inf, -2.0], dt)
        b = np.array([-0.0, 0.0, np.nextafter(one, dt(2)), -np.nan, 1.0, np.finfo(dt).max, -2.0], dt)
        assert ulp_distance(a, b).tolist() == [0, 0, 1, 0, np.inf, 1, 0]
        tiny = np.array([np.finfo(dt).smallest_subnormal], dt)
        assert ulp_distance(tiny, -tiny).tolist() == [2]
