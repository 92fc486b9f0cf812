"""codegen/gc_pause.py: the collector is off while a module is emitted and as it was after."""

from __future__ import annotations

import gc

import numpy as np

import jitcore as jc
from jitcore.codegen import gc_pause
from jitcore.codegen.cpu import backend


def test_the_collector_is_paused_while_emitting_and_restored_after(monkeypatch):
    seen = []
    emit = backend.CpuBackend._emit

    def watched(self, *args):
        seen.append(gc.isenabled())
        return emit(self, *args)

    monkeypatch.setattr(backend.CpuBackend, "_emit", watched)
    x = np.arange(6.0)
    assert gc.isenabled()
    jc.jit(lambda a: a * 3 + 1, cache=False)(x)
    assert seen == [False] and gc.isenabled()
    gc.disable()  # the program's own choice stays
    try:
        jc.jit(lambda a: a * 5 - 1, cache=False)(x)
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()


def test_nested_pauses_end_with_the_last():
    with gc_pause.collector_paused():
        with gc_pause.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer emission is still under way
    assert gc.isenabled()
