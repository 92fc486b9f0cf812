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
    for case in ("tanh(2x+1)", "sin(x+y)", "a*b+c*d-1", "x.sum()", "(x*x).mean(axis=0)"):
        assert case in out
    rows = [line for line in out.splitlines() if line.startswith("|")]
    jit_rows = [r for r in rows if "| jitcore |" in r]
    assert len(jit_rows) == 6 and not any("error" in r for r in jit_rows)
    for peer in ("numexpr", "numba", "jax"):
        assert any(f"| {peer} " in r for r in rows)
    assert "trace (signature + tracing)" in out and "LLVM: parse, O3, MCJIT" in out
    assert "jitcore g(x), cached" in out and "µs per call" in out
