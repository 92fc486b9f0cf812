"""Whether two trees emit the same LLVM IR for the same tests: a pytest plugin and its diff.

    python -m pytest -p tools.llvm_ir_diff --llvm-ir-record PATH [--llvm-ir-text]
        [--llvm-ir-emit-repeat R] [pytest's options] TESTS
    python tools/llvm_ir_diff.py BASE_PATH BRANCH_PATH

The plugin appends one JSON line per test to PATH: the test's id and the sha256 of every LLVM
module the CPU backend emitted for it (``plan.llvm_ir``, in emission order), with the text of
each module the first time the process emits it when ``--llvm-ir-text`` is given. Run it in a
base tree and in a branch (the tests draw the same cases: hypothesis is derandomized), then the
diff says how many tests emitted different IR and shows the first differences. A change that
is meant to make the emission cheaper, not different, must report none.

``--llvm-ir-emit-repeat R`` also times the emission alone: each lowering is run R more times
with LLVM left out (the backend's ``_code`` answers at once), and the least thread CPU of
those runs is recorded per module (``emit`` in each record, seconds); the diff sums them for
the tests in both files. Thread CPU of the same Python work, repeated, is what the host's load
(other processes on the two cores) disturbs least.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import sys
import time

import pytest


def pytest_addoption(parser):
    parser.addoption("--llvm-ir-record", default=None, help="append each test's LLVM IR digests here")
    parser.addoption("--llvm-ir-text", action="store_true", help="record each module's text too")
    parser.addoption("--llvm-ir-emit-repeat", type=int, default=0,
                     help="time each lowering this many times more without LLVM (the least is kept)")


def pytest_configure(config):
    path = config.getoption("--llvm-ir-record")
    if path:
        texts, repeat = config.getoption("--llvm-ir-text"), config.getoption("--llvm-ir-emit-repeat")
        recorder = _Recorder(path, texts, repeat)
        config.pluginmanager.register(recorder, "llvm-ir-recorder")


class _Recorder:
    def __init__(self, path: str, texts: bool, repeat: int):
        from jitcore.codegen.cpu import backend

        self.path, self.texts = path, texts
        self.modules: list[str] = []
        self.emit = 0.0
        self.seen: dict[str, str] = {}
        self._owner, self._lower = backend.CpuBackend, backend.CpuBackend.lower
        recorder = self

        def no_llvm(*args, **kwargs):
            return b"", "", "llvm"

        def lower(backend_self, *args, **kwargs):
            plan = recorder._lower(backend_self, *args, **kwargs)
            digest = hashlib.sha256(plan.llvm_ir.encode()).hexdigest()
            recorder.modules.append(digest)
            if texts and digest not in recorder.seen:
                recorder.seen[digest] = plan.llvm_ir
            if repeat > 0:
                backend_self._code = no_llvm  # (an instance attribute: this backend, for now)
                try:
                    spent = []
                    for _ in range(repeat):
                        start = time.thread_time()
                        recorder._lower(backend_self, *args, **kwargs)
                        spent.append(time.thread_time() - start)
                finally:
                    del backend_self._code
                recorder.emit += min(spent)
            return plan

        backend.CpuBackend.lower = lower

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.modules, self.emit = [], 0.0
        yield
        record = {"test": item.nodeid, "modules": self.modules, "emit": self.emit}
        if self.texts:
            record["texts"] = {d: self.seen.pop(d) for d in dict.fromkeys(self.modules) if d in self.seen}
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")

    def pytest_unconfigure(self, config):
        self._owner.lower = self._lower


def _read(path: str) -> tuple[dict[str, list[str]], dict[str, str], dict[str, float]]:
    tests: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    emit: dict[str, float] = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            tests[record["test"]] = record["modules"]
            texts.update(record.get("texts", {}))
            emit[record["test"]] = record.get("emit", 0.0)
    return tests, texts, emit


def diff(base_path: str, branch_path: str, shown: int = 3) -> str:
    """A report: tests in both, modules compared, tests whose modules differ (with the first
    ``shown`` differing modules' text diffs where both were recorded with text)."""
    base, base_texts, base_emit = _read(base_path)
    branch, branch_texts, branch_emit = _read(branch_path)
    both = [t for t in base if t in branch]
    differ = [t for t in both if base[t] != branch[t]]
    lines = [f"{len(both)} tests in both ({len(base)} base, {len(branch)} branch), "
             f"{sum(len(base[t]) for t in both)} modules; {len(differ)} tests emitted different LLVM IR"]
    before, after = sum(base_emit[t] for t in both), sum(branch_emit[t] for t in both)
    if before and after:
        lines.append(f"emission alone (least of the repeats, thread CPU): base {before:.2f} s, "
                     f"branch {after:.2f} s, ratio {after / before:.3f}")
    for test in differ[:shown]:
        lines.append(f"- {test}: {len(base[test])} modules in base, {len(branch[test])} in branch")
        for a, b in zip(base[test], branch[test]):
            if a != b and a in base_texts and b in branch_texts:
                lines += list(difflib.unified_diff(base_texts[a].splitlines(), branch_texts[b].splitlines(),
                                                   "base", "branch", n=1, lineterm=""))[:30]
                break
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    report = diff(*argv)
    print(report)
    return 0 if " 0 tests emitted different" in report else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
