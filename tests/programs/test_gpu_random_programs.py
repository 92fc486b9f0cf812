"""Random programs on the CUDA backend, on the emulated device (tests/gpu_emulator.py), against
NumPy: the CPU-only share of ``tests/programs/gpu_fuzz.py``'s run (a session with a GPU runs
it on the device). Programs the GPU backend refuses as documented (callbacks, the trig
range) are skipped by assumption, never counted as passing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings

from jitcore.codegen.nvptx import UnsupportedOnGpuError
from tests.budget import examples
from tests.programs.generator import programs
from tests.programs.gpu_fuzz import check_on_gpu


@pytest.fixture
def emulated(monkeypatch):
    from tests.gpu_emulator import emulate

    return emulate(monkeypatch)


@settings(max_examples=examples(60, ci=30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
@given(program=programs(max_statements=6))
def test_random_programs_on_the_emulated_gpu(emulated, program):
    try:
        check_on_gpu(program)
    except UnsupportedOnGpuError:
        assume(False)
