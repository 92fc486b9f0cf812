"""Random programs (tests/programs/generator.py) on the CUDA backend against NumPy: the GPU's
share of the long random-program run, for a session with a GPU (``tools/gpu_check.py`` runs
it) or, slowly, on the emulated device.

    PYTHONPATH=. python -m tests.programs.gpu_fuzz --seed 1 --count 200 [--emulated] [--log F]

Each program runs under ``jitcore.jit(..., backend="cuda")``; its results (``DeviceArray``s,
read back) and the arguments after the call are compared with NumPy's within the program's
precisions, as ``differential.check`` does for the CPU. A program the GPU backend refuses
with ``UnsupportedOnGpuError`` (callbacks, the trig range: documented limits) is counted
apart, by reason, never as a pass. Prints one summary line; every failure goes to the log.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import sys
import time
import traceback

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed

import jitcore
from jitcore.codegen.nvptx import UnsupportedOnGpuError
from jitcore.cuda import DeviceArray
from tests.programs import differential
from tests.programs.generator import programs


def _host(value, like):
    """A result read back from the device, as the CPU backend would return it: a 0-d
    ``DeviceArray`` becomes a NumPy scalar where NumPy returns a scalar."""
    if isinstance(value, DeviceArray):
        value = np.asarray(value)
        if value.ndim == 0 and not isinstance(like, np.ndarray):
            return value[()]
    return value


def check_on_gpu(program) -> None:
    """``program`` under the CUDA backend against NumPy (raises AssertionError or the error)."""
    def run(p):
        fn = jitcore.jit(p.function(np), backend="cuda")
        args = [i.make() for i in p.inputs]
        return fn(*args), args

    if program.raises:
        differential._check_raises(program, (run,))
        return
    want, want_args = differential.run_numpy(program)
    got, got_args = run(program)
    assert isinstance(got, tuple) and len(got) == len(want), f"cuda: {len(got)} results"
    got = [_host(g, w) for g, w in zip(got, want)]
    for k, (g, w, p) in enumerate(zip(got + got_args, list(want) + want_args,
                                      program.precs + program.input_precs)):
        var = program.returns[k] if k < len(want) else program.inputs[k - len(want)].name
        what = f"cuda: result {var}" if k < len(want) else f"cuda: argument {var} after the call"
        differential._compare(g, w, p, what, program.rel.get(var) if k < len(want) else None)


def _emulated():
    """The CUDA runtime on tests/gpu_emulator.py's device (no GPU needed; slow)."""
    from unittest import mock

    from jitcore.cuda import driver as cuda_driver
    from jitcore.cuda import executable
    from tests import gpu_emulator

    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(cuda_driver, "_driver", gpu_emulator.device()))
    stack.enter_context(mock.patch.object(executable, "load_module", lambda cuda, plan: cuda.load_plan(plan)))
    return stack


class _TimeUp(Exception):
    """--seconds have passed."""


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--max-statements", type=int, default=8)
    p.add_argument("--log", default=None, help="append failures here (default: stdout)")
    p.add_argument("--emulated", action="store_true", help="on the emulated device (no GPU)")
    p.add_argument("--seconds", type=float, default=None, help="stop drawing after this long")
    a = p.parse_args(argv)
    out = open(a.log, "a") if a.log else sys.stdout
    stats = collections.Counter()
    refused = collections.Counter()
    start = time.time()

    @hseed(a.seed)
    @settings(max_examples=a.count, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=(Phase.generate,))
    @given(programs(max_statements=a.max_statements))
    def one(program):
        if a.seconds is not None and time.time() - start > a.seconds:
            raise _TimeUp  # ends the run now (drawing the rest of --count takes long too)
        stats["ran"] += 1
        try:
            check_on_gpu(program)
            stats["passed"] += 1
        except UnsupportedOnGpuError as e:
            refused[str(e).split(":")[0][:80]] += 1
        except Exception as e:  # every failure is logged; the run goes on
            stats["failed"] += 1
            last = str(e).strip().splitlines()[-1][:300] if str(e).strip() else ""
            print(f"=== FAILURE seed={a.seed} #{stats['ran']} {type(e).__name__}: {last}\n"
                  f"{program.describe(full=True)}\n{''.join(traceback.format_exception(e)[-6:])}",
                  file=out, flush=True)

    with _emulated() if a.emulated else contextlib.nullcontext():
        try:
            one()
        except _TimeUp:
            pass
    print(f"gpu fuzz seed {a.seed}: {stats['ran']} programs, {stats['passed']} passed, "
          f"{stats['failed']} failed, {sum(refused.values())} refused as unsupported on the GPU "
          f"{dict(refused)}, {time.time() - start:.0f} s", flush=True)
    return 1 if stats["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
