"""What a compiled function is, as plain data: its calling convention, its launches, its code.

A ``CompiledFunction`` holds no live handle (no LLVM module, no engine, no address): its object
code is bytes, and everything else is numbers, strings, dtypes and NumPy arrays, so it pickles
and compares as data. Loading it into a process is the backend's business
(``codegen.backend.Backend.load``), and returns the entry point's address.

The entry point takes one descriptor array: one slot per argument, then one per buffer the
caller allocates (one per kernel result), then the status words when ``has_status``, then one
per constant, then, when the function calls back into Python (``callbacks``), the address of
the caller's trampoline. The buffers include the storage of values that loops and branches
carry, the induction variable of each ``scf.for`` (a 0-d int64 the entry writes each iteration) and the
staging space of yields that swap carried values; all are allocated once per call.

The entry runs ``program``: steps that are launches (by number in ``launches``), copies of one
storage into another, loops over steps and branches between them, so loops of array work run
as loops in the compiled code with no Python between iterations.

With an ``ArrayHeader`` a slot holds the address of the array's header, from which the code
reads the data pointer and byte strides itself (the caller then needs no per-array work beyond
``id()``); without one, a slot holds the data pointer, and a strided argument's element strides
follow it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Storage:
    """Where a tensor lives: an argument, a caller-allocated buffer, a constant, or the status
    words of kernels that check indices (flag, index, axis, size)."""

    kind: str  # "input", "buffer", "constant", "status"
    index: int


@dataclass(frozen=True)
class ArrayHeader:
    """Where an array header keeps its data pointer and its pointer to byte strides."""

    data_offset: int
    strides_offset: int

    @property
    def shape_offset(self) -> int:
        """Where the pointer to the extents is: just before the strides' (NumPy's C layout,
        ``PyArrayObject_fields``: data, nd, dimensions, strides), as the probe that made this
        header checked the data pointer, nd and strides at their places."""
        return self.strides_offset - 8


@dataclass(frozen=True)
class Launch:
    """One kernel run by the entry point, in order: its symbol, the storage of each operand
    (inputs then results, then the status words for a kernel that checks indices), and the extents of its
    parallel dims, where a threaded or GPU runtime may split it (none: it runs as one piece).
    ``calls`` names the library routines the kernel calls (a BLAS contraction's ``sgemm``, say,
    by its symbol), which the backend resolves when it loads the plan."""

    kernel: str
    operands: tuple[Storage, ...]
    parallel_extent: tuple[int, ...]
    calls: tuple[str, ...] = ()
    results: int = 0  # how many of the operands (after the inputs) it writes
    flops: int = 0  # floating-point ops per launch, counted from its body (for profiles)
    runs_with: int = -1  # runs inside launch ``runs_with``'s (a CPU row group's last kernel)


@dataclass(frozen=True)
class Run:
    """A step: run launch number ``launch`` of the plan's ``launches``."""

    launch: int


@dataclass(frozen=True)
class Copy:
    """A step: copy ``nbytes`` from one C-contiguous storage to another (a carried value's
    new value moved into its storage)."""

    source: Storage
    target: Storage
    nbytes: int
    shape: tuple[int, ...] = ()  # what is copied: its shape and itemsize, for a size-generic
    itemsize: int = 0  # function's entry to compute ``nbytes`` from its run-time extents


@dataclass(frozen=True)
class ForLoop:
    """A step: ``body`` for ``iv = lower, lower + step, ...`` while ``iv < upper`` (``iv >
    upper`` for a negative step). The bounds are 0-d int64 storages, loaded once before the
    loop; ``iv`` is the 0-d int64 buffer written before each iteration. ``check_step``: the
    step may be zero, which stops the call with status ``kernel_body.ZERO_STEP`` (word 1: the
    loop's ``number``) rather than loop forever."""

    lower: Storage
    upper: Storage
    step: Storage
    iv: Storage
    body: tuple
    check_step: bool = True
    number: int = 0  # which scf.for, in program order: what a zero-step error names
    swaps: tuple = ()  # yields moved by trading buffers (see WhileLoop)


@dataclass(frozen=True)
class WhileLoop:
    """A step: ``before`` (the cond region), then, while the 0-d bool ``condition`` is true,
    ``body`` and ``before`` again.

    ``swaps`` (here and in ``ForLoop``) are yields moved into a carried value's storage by
    trading buffers rather than copying: each ``Copy(source, target)`` has the two buffers
    exchange roles at the end of every iteration, and after the loop, where the carried value
    ended in ``source``'s buffer, it is copied into ``target``'s."""

    before: tuple
    condition: Storage
    body: tuple
    swaps: tuple = ()


@dataclass(frozen=True)
class Branch:
    """A step: ``then`` if the 0-d bool ``condition`` is true, else ``otherwise``."""

    condition: Storage
    then: tuple
    otherwise: tuple


@dataclass(frozen=True)
class Callback:
    """A step: call the caller's callback trampoline with ``number``'s place in the plan's
    ``callbacks`` (which Python function) and the data pointers of ``operands`` (C-contiguous
    storages; its results' last, which the function fills), on the calling thread. A
    nonzero return (the function raised) stops the call with status ``host.CALLBACK_FAILED``.
    The operands' shapes and dtypes are the plan's ``callbacks[number]``. With ``native`` (a
    sampler of ``codegen/pcg64.py``) the code draws itself from the state buffer, the first
    operand, and calls back only when that buffer says so."""

    number: int
    operands: tuple[Storage, ...]
    native: str | None = None


@dataclass(frozen=True)
class LowerOptions:
    """What a backend needs besides the function: the caller's array-header layout (None: the
    portable descriptor) and fast math."""

    header: ArrayHeader | None = None
    fastmath: bool = False
    profile: bool = False  # the entry times each launch (``CompiledFunction.profile``)


@dataclass
class CompiledFunction:
    """A compiled entry point, the calling convention of its descriptor array, and its code."""

    target: str  # the backend that made it and can load it (codegen.backend.backend_for)
    symbol: str
    arg_strided: tuple[bool, ...]  # argument passes its strides (else: C-contiguous)
    arg_needs_contiguous: tuple[bool, ...]  # the caller must pass a C-contiguous array
    header: ArrayHeader | None = None  # slots hold header addresses (else data pointers)
    has_status: bool = False  # one more buffer slot: error status words (see codegen/kernel_body.py)
    buffers: list[tuple[tuple[int, ...], np.dtype]] = field(default_factory=list)
    constants: list[np.ndarray] = field(default_factory=list)
    outputs: list[tuple[Storage, tuple[int, ...]]] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    program: list = field(default_factory=list)  # steps: Run, Copy, ForLoop, WhileLoop, Branch,
    # Callback
    # callback number -> its operands' (shape, dtype), then its results' (shape, dtype, "out"),
    # which the Python function fills (the last storages of its Callback); when not empty,
    # the descriptor's last slot is the address of the caller's trampoline,
    # ``int32 (int64 place, void **data)``: the code names a callback by its place in this
    # dict, so it is the same at every size
    callbacks: dict[int, tuple[tuple[tuple[int, ...], np.dtype], ...]] = field(default_factory=dict)
    # The entry times its launches into one more slot after all the others: the address of
    # int64 words [entry start, entry end, then per launch: first start, total ns, count]
    # (CLOCK_MONOTONIC nanoseconds; jitcore.profiler reads them).
    profile: bool = False
    llvm_ir: str = ""  # as emitted (the "llvm" stage)
    optimized_llvm_ir: str = ""  # after the target's pipeline (the "llvm-opt" stage)
    object_code: bytes = b""  # what the backend loads
    # where the object code came from: "llvm" (compiled for this plan), "memory" (a plan of
    # the same LLVM IR compiled earlier in this process: a size-generic function at another
    # size, or the backend's memo of recent compiles), "memo" (fixed-size code from that memo,
    # counted as a compile), "disk" (the disk cache's object code of that IR)
    code_source: str = "llvm"
    # how a CPU plan's code is compiled: (size-generic, LLVM's unroller, light pipeline)
    code_flags: tuple[bool, bool, bool] = ()


def launch_runs(plan: CompiledFunction, fits, joins, nested: bool = False) -> list[list[int]]:
    """The runs of consecutive top-level launches (launch indices, in program order) whose
    every launch ``fits(index)`` and ``joins(run, index)`` the run so far; any other step, or a
    launch that does not fit or join, ends a run. The targets' row groups are such runs.
    ``nested``: also the runs of consecutive launches in each loop's body and branch's arm."""
    return _runs_in(plan.program, fits, joins, nested)


def _runs_in(steps, fits, joins, nested: bool) -> list[list[int]]:
    runs: list[list[int]] = []
    current: list[int] = []
    for step in steps:
        if nested:
            for inner in _inner_steps(step):
                runs += _runs_in(inner, fits, joins, nested)
        index = step.launch if isinstance(step, Run) else None
        fitting = index is not None and fits(index)
        if fitting and (not current or joins(current, index)):
            current.append(index)
            continue
        if current:
            runs.append(current)
        current = [index] if fitting else []
    if current:
        runs.append(current)
    return runs


def _inner_steps(step) -> tuple:
    """The step lists inside ``step``: a loop's body (and a while's condition), a branch's arms."""
    if isinstance(step, ForLoop):
        return (step.body,)
    if isinstance(step, WhileLoop):
        return (step.before, step.body)
    if isinstance(step, Branch):
        return (step.then, step.otherwise)
    return ()

