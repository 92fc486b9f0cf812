"""tools/compile_time_plugin.py: the phases it times and the compiles it records are the ones a
jitted call runs, and uninstalling it puts every patched function back."""

import numpy as np

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen.cpu import backend, target
from tools.compile_time_plugin import PHASES, Recorder, summary


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
