"""The cached-call fast path: arguments to a descriptor array, one ctypes call, outputs back.

Everything here runs on every call, so it does only what DESIGN.md §6 allows: read argument
pointers and strides, allocate the outputs with NumPy, and make one foreign call (which releases
the GIL).
"""

from __future__ import annotations

import ctypes

import numpy as np

from codegen.cpu import CompiledFunction
from jitcore import pytree

_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Executable:
    """A compiled function ready to call on the NumPy arrays of one signature."""

    __slots__ = ("plan", "out_tree", "_fn", "_constants", "_args_layout", "_buffers", "_outputs")

    def __init__(self, plan: CompiledFunction, out_tree: pytree.TreeDef):
        plan.compile()
        self.plan = plan
        self.out_tree = out_tree
        self._fn = _ENTRY(plan.address)
        self._constants = [c.ctypes.data for c in plan.constants]
        self._args_layout = tuple(zip(plan.arg_strided, plan.arg_needs_contiguous))
        self._buffers = [(shape, dtype) for shape, dtype in plan.buffers]
        self._outputs = [(s.kind, s.index, shape) for s, shape in plan.outputs]

    def __call__(self, arrays: list[np.ndarray]):
        desc = []
        for i, (strided, needs_contiguous) in enumerate(self._args_layout):
            a = arrays[i]
            if needs_contiguous and not a.flags.c_contiguous:
                a = arrays[i] = np.ascontiguousarray(a)
            desc.append(a.ctypes.data)
            if strided:
                size = a.itemsize
                desc.extend(s // size for s in a.strides)
        buffers = [np.empty(shape, dtype) for shape, dtype in self._buffers]
        desc.extend(b.ctypes.data for b in buffers)
        desc.extend(self._constants)
        self._fn((ctypes.c_int64 * len(desc))(*desc))
        sources = {"input": arrays, "buffer": buffers}
        outputs = []
        for kind, index, shape in self._outputs:
            if kind == "constant":
                out = self.plan.constants[index].copy()  # callers may write to what we return
            else:
                out = sources[kind][index]
            outputs.append(out if out.shape == shape else out.reshape(shape))
        return pytree.unflatten(self.out_tree, outputs)
