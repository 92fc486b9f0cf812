#!/usr/bin/env python
"""The one check a session with an NVIDIA GPU runs (a few minutes): does the CUDA backend run,
and how fast.

    python tools/gpu_check.py [--out DIR] [--skip-tests] [--skip-bench] [--test-timeout S]

1. The driver: ``jitcore.cuda.require()`` (libcuda, device 0, its compute capability), the
   driver's version and the device's name.
2. The CUDA execution tests on the real device, not emulated (``JITCORE_TEST_EMULATED_GPU``
   removed from their environment): ``tests/jitcore/test_cuda_runtime.py`` and the kernel
   conformance suite's ``cuda`` backend (``tests/codegen/test_kernels.py -k cuda``), the
   emulated tests left out, in a subprocess with a time limit; the summary line, failures and
   skips are kept.
3. Copies of 256 MiB to the device and back, through the pinned staging and the plain way,
   taking turns (``run_copies``).
4. ``tools/bench_cuda.py``'s ``measure`` on a short list (``WORKLOADS``): elementwise over 10M
   points, a sum of 10M, softmax over the rows of 4096 x 1024 and of 512 x 128 (a warp a row),
   matmul 1024 and 4096, a scatter of 10M repeated indices into 1M, a 4096 x 4096
   matrix-vector product, float32, against NumPy on the host and JAX or CuPy on the GPU where
   installed (a peer that cannot run one is left out of its row).

It writes ``gpu_check.json`` and ``gpu_check.md`` under ``--out``, else ``$OUT``, else the
current directory, and prints the markdown. Exit status: 0 when everything ran and passed, and
also when there is no CUDA driver or GPU (then the summary says so: ``"status": "no-driver"``,
nothing else is run); 1 when a test failed, the tests timed out, or a result differed from
NumPy's.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tools")]

TEST_TIMEOUT = 240  # seconds for the test run: the whole check stays within about 5 minutes
# on the device: the emulated tests (which need no GPU) are left to the ordinary test runs
TESTS = ["tests/jitcore/test_cuda_runtime.py", "tests/codegen/test_kernels.py", "-k", "cuda and not emulated"]
# (workload of tools/bench_workloads.py, dtype, scale of its default size)
WORKLOADS = [("tanh", "float32", 1.0), ("sum", "float32", 1.0), ("softmax", "float32", 1.0),
             ("softmax", "float32", 1 / 64), ("matmul", "float32", 1.0), ("matmul", "float32", 16.0),
             ("scatter", "float32", 1.0), ("matvec", "float32", 1.0)]


def detect() -> dict:
    """The driver and device, or ``{"status": "no-driver", "reason": ...}``."""
    from jitcore import cuda

    try:
        driver = cuda.require()
    except cuda.NoCudaDriverError as e:
        return {"status": "no-driver", "reason": str(e)}
    version, name = ctypes.c_int(), ctypes.create_string_buffer(256)
    found = {"status": "ok", "capability": "{}.{}".format(*driver.capability)}
    if driver.lib.cuDriverGetVersion(ctypes.byref(version)) == 0:
        found["driver_version"] = f"{version.value // 1000}.{version.value % 1000 // 10}"
    if driver.lib.cuDeviceGetName(name, ctypes.c_int(256), ctypes.c_int(driver.device)) == 0:
        found["device"] = name.value.decode(errors="replace")
    return found


def run_tests(timeout: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "JITCORE_TEST_EMULATED_GPU"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfEs", *TESTS]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return {"ok": False, "summary": f"timed out after {timeout} s", "tail": out[-4000:],
                "seconds": timeout}
    out = done.stdout + done.stderr
    summary = next((line.strip("= ") for line in reversed(out.splitlines())
                    if re.search(r"\d+ (passed|failed|error)", line)), "no summary line")
    notes = [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR", "SKIPPED"))]
    return {"ok": done.returncode == 0, "returncode": done.returncode, "summary": summary,
            "failures_and_skips": notes[:60], "tail": out[-4000:] if done.returncode else "",
            "seconds": round(time.perf_counter() - start, 1)}


def run_bench(repeat: int) -> list[dict]:
    import bench_cuda

    from jitcore import cuda

    driver, jax, cupy = cuda.require(), bench_cuda._jax_gpu(), bench_cuda._cupy()
    rows = []
    for name, dtype, scale in WORKLOADS:
        row = bench_cuda.measure(bench_cuda.workload(name), dtype, scale, repeat, driver, jax, cupy)
        print(bench_cuda.format_row(row), flush=True)
        rows.append(row)
    return rows


def run_copies(repeat: int, nbytes: int = 256 << 20) -> list[dict]:
    """Host <-> device copies of ``nbytes`` through the pinned staging and the plain way,
    taking turns: medians in ms and GB/s, so the staging's threshold can be judged."""
    import numpy as np

    import jitcore as jc
    from jitcore.cuda import driver as cuda_driver

    x = np.random.default_rng(0).standard_normal(nbytes // 8)
    threshold = cuda_driver.PINNED_MIN_BYTES
    times = {(way, d): [] for way in ("pinned", "plain") for d in ("to device", "to host")}
    try:
        for _ in range(repeat):
            for way in ("pinned", "plain"):
                cuda_driver.PINNED_MIN_BYTES = threshold if way == "pinned" else 1 << 62
                start = time.perf_counter()
                d = jc.device_put(x)
                middle = time.perf_counter()
                back = d.to_numpy()
                times[(way, "to device")].append(middle - start)
                times[(way, "to host")].append(time.perf_counter() - middle)
                assert np.array_equal(back, x), f"{way} copy changed the data"
    finally:
        cuda_driver.PINNED_MIN_BYTES = threshold
    rows = []
    for (way, direction), t in times.items():
        ms = 1e3 * sorted(t)[len(t) // 2]
        rows.append({"way": way, "direction": direction, "bytes": x.nbytes, "ms": ms,
                     "GB/s": x.nbytes / ms / 1e6})
    return rows


def markdown(report: dict) -> str:
    lines = ["# jitcore GPU check", ""]
    device = report["device"]
    if device["status"] != "ok":
        return "\n".join([*lines, f"No CUDA driver or GPU: {device['reason']}", "",
                          "Nothing was run (exit status 0)."]) + "\n"
    lines.append(f"Device: {device.get('device', '?')}, compute capability {device['capability']}, "
                 f"driver {device.get('driver_version', '?')}.")
    tests = report.get("tests")
    if tests is not None:
        lines += ["", f"Tests ({' '.join(TESTS)}, on the device): {tests['summary']} "
                  f"in {tests['seconds']} s."]
        lines += [f"- {note}" for note in tests.get("failures_and_skips", [])]
    bench = report.get("bench")
    if bench:
        peers = [p for p in ("jax-gpu", "cupy") if any(p in row["ms"] for row in bench)]
        head = ["workload", "dtype", "shapes", "numpy ms", "jitcore-cuda ms", *[f"{p} ms" for p in peers],
                "numpy / jitcore", "matches NumPy"]
        lines += ["", f"Medians of {report['repeat']} calls, arrays already on the device; "
                  "the first call (compile) apart.", "", "| " + " | ".join(head) + " |",
                  "|" + "---|" * len(head)]
        for row in bench:
            if row["error"] is not None:
                cells = [row["workload"], row["dtype"], str(row["shapes"]), f"failed: {row['error']}"]
                lines.append("| " + " | ".join(cells) + " |")
                continue
            ms = row["ms"]
            shape = "x".join(map(str, row["shapes"][0]))
            cells = [row["workload"], row["dtype"], shape, f"{ms['numpy']:.3f}", f"{ms['jitcore-cuda']:.3f}",
                     *[f"{ms[p]:.3f}" if p in ms else "-" for p in peers],
                     f"{ms['numpy'] / ms['jitcore-cuda']:.2f}", str(row["matches_numpy"])]
            lines.append("| " + " | ".join(cells) + " |")
        lines += [f"- {row['workload']}: {peer} left out: {why}" for row in bench
                  for peer, why in row.get("peer_errors", {}).items()]
    for name in ("tests", "copies", "bench"):
        if name + "_error" in report:
            lines += ["", f"{name} failed: {report[name + '_error']}"]
    copies = report.get("copies")
    if copies:
        lines += ["", "Copies (medians, ms and GB/s):", "", "| way | direction | MiB | ms | GB/s |",
                  "|---|---|---|---|---|"]
        lines += [f"| {c['way']} | {c['direction']} | {c['bytes'] >> 20} | {c['ms']:.2f} | {c['GB/s']:.1f} |"
                  for c in copies]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder for gpu_check.json and gpu_check.md (default: $OUT, else .)")
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--skip-bench", action="store_true")
    parser.add_argument("--test-timeout", type=int, default=TEST_TIMEOUT)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args(argv)
    out = Path(opts.out or os.environ.get("OUT") or ".")
    out.mkdir(parents=True, exist_ok=True)
    report = {"device": detect(), "repeat": opts.repeat}

    def save() -> str:  # after each phase: what ran is kept even if a later phase is cut off
        (out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
        text = markdown(report)
        (out / "gpu_check.md").write_text(text)
        return text

    ok = True
    if report["device"]["status"] == "ok":
        print(f"GPU check: {report['device']}", flush=True)
        phases = [("tests", lambda: run_tests(opts.test_timeout), opts.skip_tests),
                  ("copies", lambda: run_copies(opts.repeat), opts.skip_bench),
                  ("bench", lambda: run_bench(opts.repeat), opts.skip_bench)]
        for name, phase, skipped in phases:
            if skipped:
                continue
            try:
                report[name] = phase()
            except Exception as e:  # noqa: BLE001  (recorded; the other phases still run)
                report[f"{name}_error"] = f"{type(e).__name__}: {e}"
                ok = False
            save()
        if "tests" in report:
            ok = ok and report["tests"]["ok"]
            print(f"tests: {report['tests']['summary']}", flush=True)
        ok = ok and all(row["error"] is None and row["matches_numpy"] for row in report.get("bench", []))
    else:
        print(f"gpu_check: no CUDA driver or GPU here ({report['device']['reason']}); nothing to run, exit 0")
    print(save())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
