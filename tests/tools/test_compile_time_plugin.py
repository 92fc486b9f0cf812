"""tools/compile_time_plugin.py: the phases it times and the compiles it records are the ones a
jitted call runs, and uninstalling it puts every patched function back."""

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen.cpu import backend, target
from tools.compile_time_plugin import PHASES, Recorder, compare, repeats, summary, workers


def test_records_the_phases_and_the_llvm_compile_of_a_first_call(monkeypatch):
    monkeypatch.setattr(backend, "MEMO_BYTES", 0)  # a compile, not the memo's code
    records = []
    recorder = Recorder(records.append)
    compile_ir = target.compile_ir
    recorder.install()
    try:
        x = np.linspace(-1, 1, 13)
        np.testing.assert_array_equal(jc.jit(lambda v: jnp.exp(v) * 3.0, cache=False)(x), np.exp(x) * 3.0)
    finally:
        recorder.uninstall()
    assert target.compile_ir is compile_ir
    (compiled,) = [r for r in records if r["kind"] == "llvm"]
    assert compiled["pipeline"] == "light" and compiled["sized"] and compiled["in"] > 0
    assert all(recorder.spent[p] > 0 for p in ("trace", "passes", "emit", "llvm passes", "machine code"))
    records.append({"kind": "test", "id": "t", "cpu": sum(recorder.spent.values()), **recorder.spent})
    text = summary(records)
    assert "light size-generic" in text and all(p in text for p in PHASES)


def test_compare_pairs_the_tests_both_runs_hold_and_workers_show_the_idle_end():
    base = [{"kind": "test", "id": "a", "cpu": 2.0, "emit": 1.0, "wall": 3.0, "end": 10.0, "worker": "gw0"},
            {"kind": "test", "id": "b", "cpu": 5.0, "wall": 5.0, "end": 14.0, "worker": "gw1"},
            {"kind": "llvm", "test": "a", "cpu": 0.5}, {"kind": "llvm", "test": "a", "cpu": 0.25},
            {"kind": "llvm", "test": "b", "cpu": 4.0}]
    branch = [{"kind": "test", "id": "a", "cpu": 1.5, "emit": 0.5}, {"kind": "llvm", "test": "a", "cpu": 0.5},
              {"kind": "test", "id": "c", "cpu": 9.0}]
    text = compare(base, branch).splitlines()
    assert text[0] == "1 tests in both (of 2 and 2)"
    assert text[2].split()[-2:] == ["2.0", "1.5"]  # only "a": "b" and "c" are in one run each
    assert text[3].split()[-2:] == ["2", "1"] and text[4].split()[-2:] == ["0.8", "0.5"]
    assert [line.split()[-2:] for line in text if line.strip().startswith("emit")] == [["1.0", "0.5"]]
    rows = {line.split()[0]: line.split() for line in workers(base).splitlines()[1:]}
    assert rows["gw0"][1:] == ["1", "2.0", "3.0", "4.0"] and rows["gw1"][-1] == "0.0"


def test_repeats_counts_ir_compiled_before_by_the_same_or_another_worker():
    def llvm(digest, worker, cpu, pipeline="O3"):
        return {"kind": "llvm", "digest": digest, "worker": worker, "cpu": cpu, "pipeline": pipeline}
    records = [llvm("a", "gw0", 1.0), llvm("a", "gw1", 2.0), llvm("a", "gw1", 4.0),
               llvm("a", "gw0", 0.5, "light"), llvm("b", "gw0", 8.0)]
    assert repeats(records) == ("LLVM compiles of IR compiled before: 1 by the same process (4.0 s), "
                                "1 only by another (2.0 s), of 5 (15.5 s)")
    assert repeats([{"kind": "llvm", "cpu": 1.0}]) == ""  # records of before digests were kept
