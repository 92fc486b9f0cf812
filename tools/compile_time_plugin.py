"""Where a test slice's CPU goes, by compile phase and by kind of LLVM module: a pytest plugin and
its report. Sessions 26, 29, 33 and 34 each wrote such a plugin and left it out; this one stays.

    python -m pytest -p tools.compile_time_plugin --compile-times PATH [pytest's options] TESTS
    python tools/compile_time_plugin.py PATH [PATH...]
    python tools/compile_time_plugin.py --compare BASE_PATH BRANCH_PATH

The plugin appends JSON lines to PATH (every process of an ``-n 2`` run to the same file; one
write per line): per test, its thread CPU (setup, call and teardown) and each phase's share, each
phase less the phases it called (tracing, our passes, our LLVM IR emission, LLVM's parse, its
pass pipeline, the math library's inlining, machine code); per LLVM compile, its pipeline
(``light``, ``O3``, ``O3-no-unroll``), whether it is size-generic (its kernels take run-time
extents), its instructions before and after LLVM, and its thread CPU. Thread CPU, not wall
time: it does not count what other processes on the host take (docs/performance.md, "The test
suite's time, session 34"). The report sums them: phases, pipelines, modules by size, the
heaviest tests.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import defaultdict

import pytest

PHASES = ("trace", "passes", "emit", "llvm parse", "llvm passes", "math inline", "machine code")


class Recorder:
    """Times the phases in this process while installed (``install``, ``uninstall``)."""

    def __init__(self, write):
        self.write = write  # called with each record (a dict)
        self.spent: dict[str, float] = defaultdict(float)
        self._inside: list[float] = []
        self._undo: list[tuple[object, str, object]] = []

    def _timed(self, phase, fn):
        def run(*args, **kwargs):
            start = time.thread_time()
            self._inside.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.thread_time() - start
                self.spent[phase] += spent - self._inside.pop()
                if self._inside:
                    self._inside[-1] += spent
        return run

    def _patch(self, owner, name, new):
        self._undo.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, new)

    def install(self) -> None:
        import llvmlite.binding as llvm

        from jitcore import api, compiler
        from jitcore.codegen.cpu import backend, target
        for owner, name, phase in [
                (api.JitFunction, "_trace", "trace"), (compiler, "optimize", "passes"),
                (backend.CpuBackend, "lower", "emit"), (llvm, "parse_assembly", "llvm parse"),
                (target, "optimize", "llvm passes"), (target, "_inline_math", "math inline"),
                (llvm.TargetMachine, "emit_object", "machine code")]:
            self._patch(owner, name, self._timed(phase, getattr(owner, name)))
        compile_ir = target.compile_ir

        def recorded(llvm_ir, *args, unroll=True, light=False, **kwargs):
            start = time.thread_time()
            optimized, code = compile_ir(llvm_ir, *args, unroll=unroll, light=light, **kwargs)
            self.write({"kind": "llvm", "cpu": time.thread_time() - start,
                        "pipeline": "light" if light else "O3" if unroll else "O3-no-unroll",
                        "sized": '"sizes"' in llvm_ir, "in": instructions(llvm_ir),
                        "out": instructions(str(optimized)),
                        "digest": hashlib.sha1(llvm_ir.encode()).hexdigest()[:16],
                        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
                        "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]})
            return optimized, code
        self._patch(target, "compile_ir", recorded)

    def uninstall(self) -> None:
        while self._undo:
            owner, name, old = self._undo.pop()
            setattr(owner, name, old)


def instructions(text: str) -> int:
    """LLVM instructions in a module's text: the indented lines of function bodies."""
    return sum(1 for line in text.splitlines() if line.startswith("  ") and not line.startswith("   "))


# ----------------------------------------------------------------------------- the plugin
def pytest_addoption(parser):
    parser.getgroup("compile times").addoption(
        "--compile-times", default=None, help="append each test's and compile's thread CPU here (JSON lines)")


def pytest_configure(config):
    path = config.getoption("compile_times")
    if path:
        config.pluginmanager.register(_Plugin(path), "compile-times")


class _Plugin:
    def __init__(self, path: str):
        self.path = path
        self.recorder = Recorder(self._write)
        self.recorder.install()

    def _write(self, record: dict) -> None:
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.recorder.spent.clear()
        start, wall = time.thread_time(), time.time()
        yield
        # wall, its end and the xdist worker: how the workers' loads balance (a worker idle at the end)
        self._write({"kind": "test", "id": item.nodeid, "cpu": time.thread_time() - start,
                     "wall": time.time() - wall, "end": time.time(),
                     "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
                     **{p: round(s, 6) for p, s in self.recorder.spent.items()}})

    def pytest_unconfigure(self, config):
        self.recorder.uninstall()


# ----------------------------------------------------------------------------- the report
def summary(records: list[dict], heaviest: int = 10) -> str:
    tests = [r for r in records if r["kind"] == "test"]
    compiles = [r for r in records if r["kind"] == "llvm"]
    total = sum(r["cpu"] for r in tests) or 1e-9
    lines = [f"{len(tests)} tests, {total:.1f} s of thread CPU; {len(compiles)} LLVM compiles", "",
             "phase (less what it called)   CPU s   share"]
    for phase in PHASES:
        spent = sum(r.get(phase, 0.0) for r in tests)
        lines.append(f"  {phase:27s} {spent:7.1f} {100 * spent / total:6.1f}%")
    lines += ["", "LLVM module kind          compiles  CPU s  instrs in  instrs out (per module)"]
    kinds: dict[str, list] = defaultdict(lambda: [0, 0.0, 0, 0])
    for r in compiles:
        k = kinds[r["pipeline"] + (" size-generic" if r["sized"] else "")]
        k[0] += 1
        k[1] += r["cpu"]
        k[2] += r["in"]
        k[3] += r["out"]
    for name, (n, cpu, ins, outs) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"  {name:23s} {n:8d} {cpu:6.1f} {ins / n:10.0f} {outs / n:11.0f}")
    lines += ["", "O3 modules by instructions in   compiles  CPU s"]
    for low, high in ((0, 200), (200, 500), (500, 1000), (1000, 3000), (3000, 10**9)):
        chosen = [r for r in compiles if r["pipeline"] != "light" and low <= r["in"] < high]
        if chosen:
            spent = sum(r["cpu"] for r in chosen)
            lines.append(f"  {low:5d}-{min(high, 10**5) - 1:<23d} {len(chosen):8d} {spent:6.1f}")
    lines += ["", "heaviest tests                                                   CPU s  LLVM share"]
    for r in sorted(tests, key=lambda r: -r["cpu"])[:heaviest]:
        llvm_part = sum(r.get(p, 0.0) for p in ("llvm parse", "llvm passes", "math inline", "machine code"))
        lines.append(f"  {r['id'][-62:]:62s} {r['cpu']:6.2f} {100 * llvm_part / max(r['cpu'], 1e-9):6.0f}%")
    return "\n".join(lines)


def workers(records: list[dict]) -> str:
    """Per xdist worker: tests, thread CPU, wall, and when its last test ended relative to the
    run's last (a worker idle at the end is wall time lost)."""
    tests = [r for r in records if r["kind"] == "test" and "end" in r]
    if not tests:
        return ""
    last = max(r["end"] for r in tests)
    lines = ["worker  tests   CPU s   wall s  idle at the end s"]
    for worker in sorted({r["worker"] for r in tests}):
        mine = [r for r in tests if r["worker"] == worker]
        lines.append(f"  {worker:5s} {len(mine):6d} {sum(r['cpu'] for r in mine):7.1f} "
                     f"{sum(r['wall'] for r in mine):8.1f} {last - max(r['end'] for r in mine):8.1f}")
    return "\n".join(lines)


def repeats(records: list[dict]) -> str:
    """LLVM compiles of IR text compiled before in the run (records that carry a digest): by
    the same process (the memo had let it go) or only by another (the workers do not share
    code). What a code memo shared by the workers could save at most."""
    compiles = [r for r in records if r["kind"] == "llvm" and "digest" in r]
    if not compiles:
        return ""
    seen: dict[tuple, set] = defaultdict(set)
    same = other = 0.0
    counts = [0, 0]
    for r in compiles:
        key = (r["digest"], r["pipeline"])
        if r["worker"] in seen[key]:
            same += r["cpu"]
            counts[0] += 1
        elif seen[key]:
            other += r["cpu"]
            counts[1] += 1
        seen[key].add(r["worker"])
    total = sum(r["cpu"] for r in compiles)
    return (f"LLVM compiles of IR compiled before: {counts[0]} by the same process ({same:.1f} s), "
            f"{counts[1]} only by another ({other:.1f} s), of {len(compiles)} ({total:.1f} s)")


def compare(base: list[dict], branch: list[dict]) -> str:
    """Two records test by test, on the tests both hold (runs stopped early, or slices): their
    thread CPU, each phase and the LLVM compiles, so that a run on a loaded host still compares
    like with like."""
    def by_test(records):
        tests = {r["id"]: r for r in records if r["kind"] == "test"}
        compiles: dict[str, list[float]] = defaultdict(list)
        for r in records:
            if r["kind"] == "llvm":
                compiles[r["test"]].append(r["cpu"])
        return tests, compiles
    (a, ca), (b, cb) = by_test(base), by_test(branch)
    common = sorted(set(a) & set(b))
    cpu_a, cpu_b = sum(a[t]["cpu"] for t in common), sum(b[t]["cpu"] for t in common)
    llvm_a, llvm_b = sum(sum(ca[t]) for t in common), sum(sum(cb[t]) for t in common)
    lines = [f"{len(common)} tests in both (of {len(a)} and {len(b)})", " " * 23 + "base   branch",
             f"  thread CPU s     {cpu_a:8.1f} {cpu_b:8.1f}",
             f"  LLVM compiles    {sum(len(ca[t]) for t in common):8d} {sum(len(cb[t]) for t in common):8d}",
             f"  their CPU s      {llvm_a:8.1f} {llvm_b:8.1f}"]
    for phase in PHASES:
        lines.append(f"  {phase:16s} {sum(a[t].get(phase, 0.0) for t in common):8.1f} "
                     f"{sum(b[t].get(phase, 0.0) for t in common):8.1f}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    """``PATH [PATH...]``: the summary of one run's records; ``--compare BASE BRANCH``: two runs
    test by test."""
    def read(paths):
        return [json.loads(line) for path in paths for line in open(path) if line.strip()]
    if argv[:1] == ["--compare"] and len(argv) == 3:
        print(compare(read(argv[1:2]), read(argv[2:3])))
        return
    records = read(argv)
    print(summary(records))
    for extra in (workers(records), repeats(records)):
        if extra:
            print("\n" + extra)


if __name__ == "__main__":
    main(sys.argv[1:])
