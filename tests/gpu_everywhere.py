"""A pytest plugin that runs CPU test files with every jitted function on the CUDA backend:
a survey of what the GPU path computes, not a test of its own.

    JITCORE_BACKEND=cuda python -m pytest -p tests.gpu_everywhere tests/programs/ \\
        --deselect tests/programs/test_random_programs.py

On a machine with a CUDA driver the real GPU runs them; without one, the emulated device
(``tests/gpu_emulator.py``: slow, about half an hour for tests/programs on 2 cores). Results
come back to the host as NumPy values so the CPU tests' comparisons apply: a 0-d result as a
NumPy scalar, which the tests then report where NumPy gives a 0-d array (the GPU returns one
kind, ``DeviceArray``, for both: such failures are the survey's, not the backend's).
"""

from __future__ import annotations

import numpy as np


class _Patch:
    """``monkeypatch.setattr`` for the whole session."""

    def setattr(self, obj, name, value, raising=True):
        setattr(obj, name, value)


def pytest_configure(config):
    from jitcore import cuda, pytree
    from jitcore.cuda import executable
    from jitcore.cuda.device_array import DeviceArray

    try:
        cuda.require()
    except cuda.NoCudaDriverError:
        from tests.gpu_emulator import emulate

        emulate(_Patch())
    call = executable.CudaExecutable.__call__

    def on_host(x):
        if isinstance(x, DeviceArray):
            x = np.asarray(x)
            return x[()] if x.ndim == 0 else x
        return x

    def to_host(self, *args, **kwargs):
        leaves, tree = pytree.flatten(call(self, *args, **kwargs))
        return pytree.unflatten(tree, [on_host(v) for v in leaves])

    executable.CudaExecutable.__call__ = to_host
