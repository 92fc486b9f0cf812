"""tools/bench.py at a tiny size: it runs, and prints its tables (speed is never asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PEER_MODULES = ("numexpr", "numba", "jax")


@pytest.fixture(scope="module")
def without_peers(tmp_path_factory) -> str:
    """A directory that, first on PYTHONPATH, hides the bench's peers (numexpr, Numba, JAX): each
    of their names is a package whose import fails, so bench.py reports them "not installed".
    Compiling every case with Numba and JAX was most of these runs' time; the peers are run in
    test_bench_json_to_a_file_keeps_the_text (default suite) and
    test_bench_json_parses_and_holds_every_table (workloads: a peer's n/a and its reason)."""
    shadow = tmp_path_factory.mktemp("without_peers")
    for name in PEER_MODULES:
        (shadow / name).mkdir()
        (shadow / name / "__init__.py").write_text(f"raise ImportError('{name} hidden by the test')\n")
    return str(shadow)


def _env(*first: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [*first, str(REPO), env.get("PYTHONPATH", "")] if p)
    return env


def test_bench_prints_its_tables_at_a_tiny_size(without_peers):
    env = _env(without_peers)
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
    for peer in PEER_MODULES:  # hidden: each has its row, saying so
        assert any(f"| {peer} " in r and "not installed" in r for r in rows)
    assert "trace (signature + tracing)" in out and "codegen: LLVM IR, O3, object code" in out
    assert "load: MCJIT" in out
    assert "jitcore g(x), cached" in out and "µs per call" in out


def test_bench_math_suite_at_a_tiny_size(without_peers):
    env = _env(without_peers)  # NumPy is the math suite's only peer
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


WORKLOADS = ("tanh(2x+1)", "sin(x+y)", "GELU, tanh form", "sum(x*y)", "softmax over rows",
             "layernorm over rows", "exp(-(p[:,None]-q[None,:])**2)", "a @ b", "a.T @ b",
             "sqrt(sum(abs(x)**2, 1))", "sum((X[None,:]-X[:,None])**2,-1)**0.5", "sum(log(exp(x)))",
             "np.roll(x, 3)", "MLP, 100 SGD steps")


def _run_bench(*args: str, hide: str | None = None) -> subprocess.CompletedProcess:
    """bench.py with ``args``; ``hide``: a directory (``without_peers``) hiding the peers."""
    env = _env(*([hide] if hide else []))
    result = subprocess.run([sys.executable, "tools/bench.py", *args], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def test_bench_workloads_suite_at_a_tiny_size(without_peers):
    out = _run_bench("--suite", "workloads", "--size", "1000", "--repeat", "1", hide=without_peers).stdout
    assert "tools/bench.py --suite workloads --size 1000 --repeat 1" in out
    assert "LLVM host CPU" in out and "features" in out and "load average at the end" in out
    assert "copy bandwidth" in out and "GB/s" in out
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("| ")]
    header = rows[0]
    assert header[:8] == ["workload", "dtype", "shape", "bound ms", "jitcore ms", "x bound",
                          "floor ms", "x floor"]
    assert {"numpy/jc", "numexpr/jc", "numba/jc", "jax/jc", "fastest"} <= set(header)
    table = {(r[0].rstrip(" *"), r[1]): dict(zip(header, r)) for r in rows
             if r[1] in ("f32", "f64") and len(r) == len(header)}
    for title in WORKLOADS:
        for dt in ("f32",) if title.startswith("MLP") else ("f32", "f64"):
            row = table[title, dt]
            # each row has a jitcore time, or says why not (never a missing row, never a crash of the bench)
            assert row["jitcore ms"] in ("unsupported", "error") or float(row["jitcore ms"]) > 0, row
            assert float(row["numpy ms"]) > 0 and float(row["bound ms"]) >= 0, row
            for peer in PEER_MODULES:
                assert row[f"{peer} ms"] == "not installed", row
    assert table["MLP, 100 SGD steps", "f32"]["workload"].endswith("*")  # compute-bound
    peak = [r for r in rows if r[0] in ("tanh(2x+1)", "GELU, tanh form") and len(r) == 8]
    assert len(peak) == 4 and all(r[-1] == "yes" for r in peak), peak  # jitcore: inputs + outputs
    assert "| case" not in out and "| function" not in out  # only the workloads suite


def test_bench_json_parses_and_holds_every_table():
    result = _run_bench("--suite", "workloads", "--size", "1000", "--repeat", "1", "--json",
                        "--only", "tanh,softmax,mlp,peak-memory")
    document = json.loads(result.stdout)  # --json alone: the JSON is all of stdout
    assert document["host"]["cpus"] >= 1 and "numpy" in document["host"]["versions"]
    sections = {s["key"]: s for s in document["sections"]}
    assert set(sections) == {"workloads", "peak-memory"}
    records = sections["workloads"]["records"]
    assert {(r["workload"], r["dtype"]) for r in records} == {
        (w, dt) for w in ("tanh", "softmax") for dt in ("float32", "float64")} | {("mlp", "float32")}
    for r in records:
        assert r["impls"]["numpy"]["ms"] > 0 and r["bound_ms"] > 0
        assert r["impls"]["jitcore"]["status"] in ("ok", "unsupported", "error")
        for peer in PEER_MODULES:  # the one workloads run with the peers: a time, or n/a and why
            impl = r["impls"][peer]
            assert impl["status"] in ("ok", "n/a", "not installed"), (r["workload"], peer, impl)
            assert impl["status"] != "ok" or impl["ms"] > 0, (r["workload"], peer, impl)
            assert impl["status"] != "n/a" or impl["reason"], (r["workload"], peer, impl)
    mlp = next(r for r in records if r["workload"] == "mlp")
    assert mlp["steps"] == 100 and mlp["compute_bound"]
    assert mlp["floor_ms"] is None and mlp["floor_above_bound"] is None  # no costly op listed
    for r in records:  # tanh and softmax: a measured compute floor of their tanh and exp
        if r["workload"] != "mlp":
            assert r["floor_ms"] > 0 and r["floor_ops"].startswith(("tanh x ", "exp x ")), r
            assert r["floor_above_bound"] == (r["floor_ms"] > r["bound_ms"]), r
    for r in sections["peak-memory"]["records"]:
        assert r["jitcore_peak_bytes"] >= r["inputs_bytes"] + r["outputs_bytes"]
        assert r["numpy_peak_bytes"] > r["jitcore_peak_bytes"]  # NumPy's temporaries


def test_bench_json_to_a_file_keeps_the_text(tmp_path):
    path = tmp_path / "bench.json"
    out = _run_bench("--size", "1000", "--repeat", "1", "--only", "tanh,dispatch", "--json", str(path)).stdout
    assert "| case" in out and "µs per call" in out  # the default suite still prints its tables
    sections = {s["key"]: s for s in json.loads(path.read_text())["sections"]}
    assert set(sections) == {"cases", "dispatch"}
    assert sections["cases"]["header"] == ["case", "impl", "median ms", "speedup", "err"]


def test_a_workload_jitcore_cannot_compile_keeps_its_row_and_says_why():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import bench
        import bench_workloads as bw
    finally:
        sys.path.remove(str(REPO / "tools"))
    import numpy as np

    def ulp(x):
        return np.spacing(x)  # no jitcore lowering (yet)

    work = bw.Workload("ulp", "np.spacing(x)", ulp, lambda scale: [(16,)], "no spacing")
    peers = {"numexpr": object(), "numba": None, "jax": None}  # numexpr "installed", the rest not
    measured = bw.measure(work, np.dtype(np.float32), 1.0, 2, peers)
    outcomes = measured.outcomes
    assert outcomes["numpy"].status == "ok" and outcomes["numpy"].ms > 0
    assert outcomes["jitcore"].status == "unsupported" and outcomes["jitcore"].ms is None
    assert outcomes["jitcore"].reason.startswith("UnsupportedError: numpy.spacing has no jitcore lowering")
    assert (outcomes["numexpr"].status, outcomes["numexpr"].reason) == ("n/a", "no spacing")
    assert outcomes["numba"].status == outcomes["jax"].status == "not installed"
    rows, notes, records = bench.workload_rows([measured], bandwidth=1e10)
    row = dict(zip(bench.WORKLOAD_HEADER, rows[0]))
    assert row["jitcore ms"] == "unsupported" and row["numpy/jc"] == "" and row["fastest"] == "numpy"
    assert row["numexpr ms"] == "n/a" and row["numba ms"] == "not installed"
    assert any(n.startswith("unsupported: np.spacing(x) (f32), jitcore: UnsupportedError: numpy.spacing")
               for n in notes), notes
    assert "n/a: np.spacing(x) (f32), numexpr: no spacing" in notes
    assert records[0]["impls"]["jitcore"]["status"] == "unsupported"


def test_bench_dispatch_prints_its_rows(without_peers):
    result = subprocess.run([sys.executable, "tools/bench_dispatch.py", "--batches", "1", "--calls", "5"],
                            cwd=REPO, env=_env(without_peers), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "jitcore f(x, y)" in result.stdout and "numpy np.tanh(x * 2 + y)" in result.stdout


def test_bench_streams_rows_at_a_tiny_size():
    """tools/bench_streams.py: a row of numbers (CPU times where /proc has them), in this
    process at a ten-thousandth of the bench's size."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import bench_streams
        import bench_workloads as bw
    finally:
        sys.path.remove(str(REPO / "tools"))
    import numpy as np

    work = {w.name: w for w in bw.WORKLOADS}["sin"]
    row = dict(zip(bench_streams.HEADER, bench_streams.measure(work, np.dtype(np.float64), 1, 1e10, 1e-4)))
    assert row["workload"] == "sin(x+y)" and row["dtype"] == "float64"
    assert float(row["bound ms"]) > 0 and float(row["floor ms"]) >= 0 and float(row["2t ms"]) > 0
    assert float(row["bound + floor/2"]) >= float(row["max(bound, floor/2)"])
    if bench_streams.threads_cpu_s() is not None:  # a tiny call may end before the counter moves: >= 0
        assert float(row["1t cpu ms"]) >= 0 and float(row["2t cpu ms"]) >= 0
