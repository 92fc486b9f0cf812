"""The cached-call fast path: arguments to a descriptor array, one ctypes call, outputs back.

Everything here runs on every call, so it does only what DESIGN.md §6 allows: collect the
arrays, allocate the outputs with NumPy, and make one foreign call (which releases the GIL).
Where NumPy's array header has the layout of its C API (``PyArrayObject_fields``: data pointer
after the object header, then nd, dimensions, strides), the descriptor holds only ``id()`` of
each array and the compiled code reads data pointers and strides itself; ``ARRAY_HEADER``
is None, and the slower portable descriptor is used, if a probe of that layout fails.

A call of plain C-contiguous arrays goes through ``fast_key`` and ``Executable.call_flat``: the
key is each array's dtype and shape, and an executable that only allocates its results and
returns them fills a descriptor kept for reuse and makes the call, nothing else (about 1.7 µs
on znver4 for ``tanh(x * 2 + y)`` on 8 floats). From a signature's second cached call on,
``jitcore.native_call`` makes such calls in native code instead (about 0.2 µs), with the same
descriptor layout, and comes back here for every call it cannot make (docs/performance.md).
"""

from __future__ import annotations

import ctypes
import functools
import threading
from dataclasses import dataclass

import numpy as np

from jitcore import config, kind_conversion, python_arithmetic, pytree  # noqa: F401  (config: its import sets the thread count)
from jitcore.buffer_pool import allocator
from jitcore.callbacks import (
    _CALLBACKS,
    _HOLDING,
    _RAW,
    _read_array,
    _result_array,
    run_callback,
    write_back_held,
)
from jitcore.codegen.backend import backend_for
from jitcore.codegen.plan import ArrayHeader, CompiledFunction
from jitcore.errors import JitTypeError, LoopStepError
from jitcore.ir.dialects.kernel import (
    CALLBACK_FAILED,
    NO_CONVERGENCE,
    NOT_FINITE,
    NOT_POSITIVE_DEFINITE,
    PYTHON_ERRORS,
    SINGULAR_MATRIX,
    SVD_NO_CONVERGENCE,
    ZERO_STEP,
)

# The entry point, ``void entry(int64 *descriptor)``. Its argtypes are None, not a pointer:
# ctypes then passes a ctypes array as its address with no conversion of its own (0.3 µs a call
# where a c_void_p argtype costs 0.4).
_ENTRY = ctypes.CFUNCTYPE(None)
_POINTER = ctypes.sizeof(ctypes.c_void_p)
# What compiled code calls to run a Python callback: (callback number, operand data pointers)
# -> 0, or 1 if it raised. ctypes takes the GIL for the call (the entry call released it).
_TRAMPOLINE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p))

class _Trampoline:
    """The C function an executable's compiled code calls back into Python through. An
    exception from the callback is kept (per thread: each thread's call is its own) for the
    jitted call to raise once the native code has stopped."""

    def __init__(self, types: dict):
        self.types = types
        self.numbers = list(types)  # the code calls with a callback's place in the plan
        self.errors = threading.local()
        self.function = _TRAMPOLINE(self._call)  # kept alive as long as the executable
        self.address = ctypes.cast(self.function, ctypes.c_void_p).value

    def _call(self, place, data) -> int:
        try:
            number = self.numbers[place]
            if number in _RAW:
                _CALLBACKS[number](data)
                return 0
            arrays = [_read_array(data[k], *kind[:2]) if len(kind) == 2 else _result_array(data[k], *kind[:2])
                      for k, kind in enumerate(self.types[number])]
            run_callback(number, arrays)
            return 0
        except BaseException as e:  # nothing may cross back into the native frames
            self.errors.exception = e
            return 1

    def raise_error(self) -> None:
        error = getattr(self.errors, "exception", None)
        self.errors.exception = None
        if error is None:
            raise RuntimeError("internal error: a callback failed without an exception")
        raise error.with_traceback(error.__traceback__)


def _probe_array_header() -> ArrayHeader | None:
    """The header layout of this NumPy's arrays, checked on a strided 2-d view, or None."""
    base = np.zeros((4, 6), dtype=np.float64)
    view = base[::2, 1::3]
    data_offset = 2 * _POINTER  # after the reference count and the type pointer
    nd_offset, strides_offset = data_offset + _POINTER, data_offset + 3 * _POINTER
    if ctypes.c_void_p.from_address(id(view) + data_offset).value != view.ctypes.data:
        return None
    if ctypes.c_int.from_address(id(view) + nd_offset).value != view.ndim:
        return None
    strides_at = ctypes.c_void_p.from_address(id(view) + strides_offset).value
    if tuple((ctypes.c_ssize_t * 2).from_address(strides_at)) != view.strides:
        return None
    return ArrayHeader(data_offset, strides_offset)


ARRAY_HEADER = _probe_array_header()


def fast_key(args: tuple) -> tuple | None:
    """The signature key of a cached call on the short path, or None for any other call.

    The short path takes positional arguments that are all plain C-contiguous ndarrays (the
    common case); their key is each one's dtype and shape, flat, built with no helper call per
    argument. ``JitFunction`` keeps it beside the full signature key (``_signature_key``) in a
    dict of its own; an executable found there is called with ``call_flat(args)``. This is the
    one place that makes the key: change it here alone."""
    if len(args) == 2:
        a, b = args
        if type(a) is _NDARRAY and type(b) is _NDARRAY and a.flags.c_contiguous and b.flags.c_contiguous:
            return a.dtype, a.shape, b.dtype, b.shape
    key = []
    for a in args:
        if type(a) is not _NDARRAY or not a.flags.c_contiguous:
            if not getattr(a, "__jitcore_device_array__", False) or a.transposed:
                return None
            key.append(a.dtype)  # a GPU array: its shape marked, for executables taking them alone
            key.append((DEVICE, a.shape))
            continue
        key.append(a.dtype)
        key.append(a.shape)
    return tuple(key)


DEVICE = "device"  # in a short-path key: that argument is a jitcore.cuda DeviceArray


def takes_key(executable, key: tuple) -> bool:
    """Whether ``executable`` may sit on the short path under ``key``: it has ``call_flat``, and
    a key naming GPU arrays only goes with an executable that takes them (a CPU executable's
    ``call_flat`` passes its arguments' memory to native code as host memory)."""
    if not hasattr(executable, "call_flat"):
        return False
    return getattr(executable, "takes_device_arrays", False) or not any(
        type(k) is tuple and k[:1] == (DEVICE,) for k in key[1::2])


_NDARRAY = np.ndarray


class SharedArgument(JitTypeError):
    """Two of a call's arrays are one array object (``s.u is s.v``, ``f(x, x)``), one of them
    written in place by code compiled for separate arrays: ``JitFunction`` then compiles the
    call with that array passed once (session 50), as NumPy's names all see one write."""


def check_no_aliasing(arrays, mutated, overlap=np.may_share_memory) -> None:
    """A function that writes to an argument was traced as if no two arguments overlap
    (``overlap``: whether two arguments share memory; the CUDA runtime's knows DeviceArrays)."""
    for i in mutated:
        for j, other in enumerate(arrays):
            if j != i and overlap(arrays[i], other):
                raise (SharedArgument if arrays[i] is other else JitTypeError)(
                    f"argument #{i} is written in place and shares memory with argument #{j}; "
                    "jitcore compiled the function for separate arrays: pass a copy of one of them"
                )


def _copies(outputs, owners, mutated) -> list[bool]:
    """Which outputs to copy when the call returns, decided once per executable.

    The compiled function may return one value for several arrays (``a.copy()``, ``a + 0`` and
    ``np.maximum(a, a)`` fold to ``a``): each array NumPy would give its own memory (see
    ``compiler.owners``) gets it. A result is copied when it is an argument's storage but not
    that argument or a view of it, or when an earlier result with another owner has its
    storage; an argument's new value is copied when it is the storage of another argument that
    is written back before it is read.
    """
    results = len(outputs) - len(mutated)
    claimed: dict[int, int] = {}
    copies = []
    for k, ((storage, _), owner) in enumerate(zip(outputs, owners)):
        if storage.kind == "input":
            copy = owner != storage.index and (k < results or storage.index in mutated)
        elif storage.kind == "buffer" and k < results:
            copy = claimed.setdefault(storage.index, owner) != owner
        else:
            copy = False  # a constant is copied anyway; new values of arguments are copied back
        copies.append(copy)
    return copies


def status_error(flag: int, index: int, axis: int, size: int) -> Exception:
    """The error that a kernel's status words (flag, index, axis, size) record: a singular
    matrix, Python's error on a Python number (``n / 0``), a loop step of zero, else an index
    out of range (the CPU's and the GPU's codes)."""
    if flag == SINGULAR_MATRIX:
        return np.linalg.LinAlgError("Singular matrix")
    if flag == NOT_POSITIVE_DEFINITE:
        return np.linalg.LinAlgError("Matrix is not positive definite")
    if flag == NOT_FINITE:
        return np.linalg.LinAlgError("Array must not contain infs or NaNs")
    if flag == NO_CONVERGENCE:
        return np.linalg.LinAlgError("Eigenvalues did not converge")
    if flag == SVD_NO_CONVERGENCE:
        return np.linalg.LinAlgError("SVD did not converge")
    if flag in PYTHON_ERRORS:
        return python_arithmetic.error(flag, index, axis, size)
    if flag == ZERO_STEP:
        return LoopStepError("a loop ran with a step of zero (as range() with step 0, it would never end)")
    return IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")


# A result's mark (``compiler.Outputs.scalars``, ``Executable._outputs``) for a Python number:
# returned by ``.item()``; truthy, as the NumPy scalars' mark True is.
PYTHON_NUMBER = "python"


@dataclass(frozen=True)
class ChosenType:
    """A result's mark where its type was chosen by the data (``type_choice``): the kinds it
    may have, the output (after the results, before the arguments' new values) holding the
    tag that names one at run time, and the dtype it is held in. Truthy, as the other marks."""

    kinds: tuple
    tag: int
    dtype: str = "float64"  # the value's, as the compiled code holds it (the kinds' promotion)


@dataclass(frozen=True)
class Trimmed:
    """A result's mark where the data chose its length (``data_length``): the output (after the
    results, before the arguments' new values) holding how many of its rows are returned.
    ``made_of``: None for an array; for a list appended under a traced ``if`` in a compiled
    loop (``data_length.KeptList``) "array" (``np.array(out)``: NumPy's ``np.array([])``,
    float64 of shape (0,), where nothing was kept; "typed": ``np.array(out, dtype)``, of that
    dtype), "python" or "numpy" (the list itself, of
    Python numbers, or of NumPy scalars or rows). ``moved_to``: where NumPy puts the selected
    dim (``a[:, m]``: 1; the buffer holds it first). ``kinds``, for a list whose items' types
    the data chose (``x[i] if x[i] > 0 else 0.0``): the kinds an output holding each kept row's
    tag (``tags``) names, the trim then called with it too (``type_choice.py``)."""

    count: int
    made_of: str | None = None
    moved_to: int = 0
    kinds: tuple = ()
    tags: int = -1

    @property
    def trim(self):
        if self.kinds and self.kinds[0].startswith(kind_conversion.ARRAY_AS):
            return _dtype_trim(self.made_of, self.kinds)
        if self.kinds:
            return _chosen_trim(self.kinds)
        return _TRIMS[self.made_of] if not self.moved_to else _moved_trim(self.moved_to)

    def trimmed(self, outputs: list, k: int):
        """Result ``k`` of ``outputs`` trimmed (and its items given their types)."""
        if self.tags >= 0:
            return self.trim(outputs[k], outputs[self.count], outputs[self.tags])
        return self.trim(outputs[k], outputs[self.count])


@dataclass(frozen=True)
class Picked:
    """A result's mark where it is an argument itself on the paths that return it, chosen by a
    traced condition (``return x if t > 0 else x * 2``; ``tracer.Choice``): the outputs (after
    the results, before the arguments' new values) holding whether such a path ran and the
    argument. Then the caller gets its own array, as from Python; else the computed value."""

    taken: int
    argument: int
    otherwise: int = -1  # where it is an argument on the other paths too (x if t else y): that
    view: PickedView | None = None  # where a path returns a view of its argument (x[1:])

    @property
    def picker(self):
        """What the result is made by: ``pick``, or the view's."""
        return pick if self.view is None else self.view


def pick(value, taken, argument, otherwise=None):
    """A ``Picked`` result: the argument itself where the path that returns it ran (else the
    other argument, where the other paths return one)."""
    return argument if taken else value if otherwise is None else otherwise


class PickedView:
    """``pick`` where a path returns a view of its argument (``x[1:] if t else x * 2``): NumPy's
    view of the caller's array (``aliasing.NumpyView``; None: the array itself) where it ran.
    A view NumPy cannot make of this call's array gives the computed value, a copy."""

    __slots__ = ("views",)

    def __init__(self, views: tuple):
        self.views = views

    def __call__(self, value, taken, argument, otherwise=None):
        if not taken and otherwise is None:
            return value
        array, view = (argument, self.views[0]) if taken else (otherwise, self.views[-1])
        if view is None:
            return array
        try:
            return view(array)
        except ValueError:  # (a reshape of this call's strides would copy)
            return value


class Executable:
    """A compiled function ready to call on the NumPy arrays of one signature."""

    __slots__ = ("plan", "out_tree", "mutated", "_fn", "_constants", "_buffers", "_allocate", "_outputs",
                 "_arguments", "_copy_args", "_strided", "_trampoline", "_transposed", "_flat",
                 "_chosen", "_trimmed", "_picked", "holds")

    def __init__(self, plan: CompiledFunction, out_tree: pytree.TreeDef, mutated: tuple[int, ...] = (),
                 scalars: tuple[bool, ...] = (), owners: tuple[int, ...] = (),
                 arguments: tuple[int, ...] = (), transposed: tuple[bool, ...] = ()):
        self.plan = plan
        self.out_tree = out_tree
        self.mutated = mutated  # arguments written in place; their values follow the outputs
        self._fn = _ENTRY(backend_for(plan.target).load(plan))
        self._fn.argtypes = None  # see _ENTRY
        header = plan.header is not None
        self._constants = [id(c) if header else c.ctypes.data for c in plan.constants]
        self._trampoline = _Trampoline(plan.callbacks) if plan.callbacks else None
        if self._trampoline is not None:  # the descriptor's last slot (see codegen/plan.py)
            self._constants.append(self._trampoline.address)
        # it holds the arguments' values where it raises, for ``_raise_status`` (``raise_state``)
        self.holds = self._trampoline is not None and any(n in _HOLDING for n in self._trampoline.numbers)
        self._copy_args = [i for i, needs in enumerate(plan.arg_needs_contiguous) if needs]
        self._strided = [] if header else [i for i, s in enumerate(plan.arg_strided) if s]
        self._buffers = list(plan.buffers)
        # np.empty for small buffers; large ones reuse the memory of dropped results, and
        # scratch (buffers no result is) from smaller sizes on (buffer_pool.py)
        returned = {s.index for s, _ in plan.outputs if s.kind == "buffer"}
        self._allocate = [allocator(shape, dtype, scratch=i not in returned)
                          for i, (shape, dtype) in enumerate(self._buffers)]
        # A result NumPy would give as a scalar (np.sum(x) is np.float64) is returned as one.
        scalars = scalars or (False,) * len(plan.outputs)
        # Results that are an argument itself on some paths: picked by their outputs after the call
        self._picked = [(k, mark) for k, mark in enumerate(scalars) if isinstance(mark, Picked)]
        if self._picked:
            scalars = tuple(False if isinstance(mark, Picked) else mark for mark in scalars)
        copies = _copies(plan.outputs, owners, mutated) if owners else [False] * len(plan.outputs)
        self._outputs = [(s.kind, s.index, shape, scalar if scalar and shape == () else False, copy)
                         for (s, shape), scalar, copy in zip(plan.outputs, scalars, copies)]
        # Results whose type the data chose: converted by their tags, which are dropped
        self._chosen = [(k, mark) for k, mark in enumerate(scalars) if isinstance(mark, ChosenType)]
        # Results whose length the data chose: their first rows, by their counts (dropped too)
        self._trimmed = [(k, mark) for k, mark in enumerate(scalars) if isinstance(mark, Trimmed)]
        # A result computed transposed is returned as its (Fortran-ordered) transpose: NumPy's layout.
        self._transposed = [k for k, turn in enumerate(transposed) if turn]
        # A result that is an argument itself is the caller's array, as in NumPy (written back).
        self._arguments = [(k, i) for k, i in enumerate(arguments) if i >= 0]
        for k, _ in self._arguments:
            self._outputs[k] = ("argument",) + self._outputs[k][1:]
        # A subclass with a __call__ of its own (one that times its kernels, say) is called
        # through it on the short path too.
        self._flat = self._flat_call_plan() if type(self).__call__ is Executable.__call__ else None

    def _flat_call_plan(self) -> tuple | None:
        """What ``call_flat`` needs, when this executable's calls can take its short path: the
        descriptor holds headers (ids), nothing is written back or copied, and each result is
        a fresh buffer of its own returned as it is, alone or in a flat tuple. Else None."""
        leaf = self.out_tree.kind == "leaf"
        flat_tuple = self.out_tree.kind == "tuple" and all(c.kind == "leaf" for c in self.out_tree.children)
        if (self.plan.header is None or self.mutated or self.holds or self._transposed or self._arguments
                or self._trimmed or self._chosen or not (leaf or flat_tuple)):  # (chosen: converted)
            return None
        results = []
        for kind, index, shape, scalar, copy in self._outputs:
            if kind != "buffer" or scalar or copy or self._buffers[index][0] != shape or index in results:
                return None
            results.append(index)
        args = len(self.plan.arg_strided)
        slots = args + len(self._buffers) + self.plan.has_status + len(self._constants)
        descriptor = ctypes.c_int64 * slots
        # Descriptors ready to fill, taken off the list for the length of a call (pop and
        # append are atomic): threads never share one, and a callback that calls the function
        # again gets a new one. The constants' slots are filled once.
        pool = [self._new_descriptor(descriptor)]
        # The common case, spelled out: one buffer, which is the result (alone, or a 1-tuple).
        one = None
        if len(self._buffers) == 1 and not self.plan.has_status and results == [0]:
            one = (*self._buffers[0], leaf, self._allocate[0])
        single = results[0] if leaf else None
        buffers = tuple((shape, dtype, allocate)
                        for (shape, dtype), allocate in zip(self._buffers, self._allocate))
        return pool, descriptor, args, one, buffers, tuple(results), single

    def _new_descriptor(self, descriptor) -> ctypes.Array:
        return descriptor(*[0] * (descriptor._length_ - len(self._constants)), *self._constants)

    def call_flat(self, args: tuple):
        """Run on ``args``, a tuple of C-contiguous arrays of this signature: the cached call's
        path (``fast_key``), with no work beyond allocating the results and the one call."""
        flat = self._flat
        if flat is None:
            return self(list(args))
        pool, descriptor, n, one = flat[:4]
        try:
            desc = pool.pop()
        except IndexError:  # another thread's call, or a callback's, has the one(s) there are
            desc = self._new_descriptor(descriptor)
        if n == 2:
            a, b = args
            desc[0] = id(a)
            desc[1] = id(b)
        elif n == 1:
            desc[0] = id(args[0])
        else:
            for i, a in enumerate(args):
                desc[i] = id(a)
        if one is not None:
            out = one[3](one[0], one[1])
            desc[n] = id(out)
            self._fn(desc)
            pool.append(desc)
            return out if one[2] else (out,)
        buffers, results, single = flat[4:]
        outs = [allocate(shape, dtype) for shape, dtype, allocate in buffers]
        for i, out in enumerate(outs, n):
            desc[i] = id(out)
        status = None
        if self.plan.has_status:
            status = np.zeros(4, np.int64)
            desc[n + len(outs)] = id(status)
        self._fn(desc)
        pool.append(desc)
        if status is not None and status[0]:
            self._raise_status(status)
        if single is not None:
            return outs[single]
        return tuple(outs[i] for i in results)

    def __call__(self, arrays: list[np.ndarray], callers: list | None = None):
        """Run on ``arrays``; ``callers``, when given, are the caller's arguments where
        ``arrays`` holds copies of some (unaligned arrays): writes in place go to them."""
        originals = arrays
        if self.mutated:
            check_no_aliasing(arrays if callers is None else callers, self.mutated)
        for i in self._copy_args:
            if not arrays[i].flags.c_contiguous:
                arrays = list(arrays) if arrays is originals else arrays
                arrays[i] = np.ascontiguousarray(arrays[i])
        buffers = [allocate(shape, dtype) for (shape, dtype), allocate in zip(self._buffers, self._allocate)]
        if self.plan.has_status:
            buffers.append(np.zeros(4, np.int64))  # error status: flag, index, axis, size
        if self.plan.header is not None:
            desc = [*map(id, arrays), *map(id, buffers), *self._constants]
        else:
            desc = self._portable_descriptor(arrays, buffers)
        self._fn((ctypes.c_int64 * len(desc))(*desc))
        if self.plan.has_status and buffers[-1][0]:
            self._raise_status(buffers[-1], originals if callers is None else callers)
        outputs = []
        for kind, index, shape, scalar, copy in self._outputs:
            if kind == "constant":
                out = self.plan.constants[index].copy()  # callers may write to what we return
            elif kind == "argument":
                outputs.append(None)  # filled in below, after the write-back
                continue
            else:
                out = arrays[index] if kind == "input" else buffers[index]
                out = out.copy() if copy else out
            out = out if out.shape == shape else out.reshape(shape)
            outputs.append(_as_scalar(out, scalar))
        targets = originals if callers is None else callers
        if self.mutated:
            for i, new in zip(self.mutated, outputs[len(outputs) - len(self.mutated):]):
                np.copyto(targets[i], new)  # NumPy semantics: the caller's array changed
            outputs = outputs[: len(outputs) - len(self.mutated)]
        for k, i in self._arguments:  # a scalar argument comes back a NumPy scalar, as a result does
            outputs[k] = _as_scalar(targets[i], self._outputs[k][3])
        for k in self._transposed:
            outputs[k] = outputs[k].T
        if self._chosen or self._trimmed or self._picked:
            for k, mark in self._picked:
                outputs[k] = mark.picker(outputs[k], outputs[mark.taken], outputs[mark.argument],
                                         None if mark.otherwise < 0 else outputs[mark.otherwise])
            for k, mark in self._chosen:
                outputs[k] = kind_conversion.convert_by_tag(outputs[k], mark.kinds, outputs[mark.tag])
            for k, mark in self._trimmed:
                outputs[k] = mark.trimmed(outputs, k)
            outputs = outputs[:self.out_tree.num_leaves]
        return pytree.unflatten(self.out_tree, outputs)

    def _raise_status(self, status: np.ndarray, arguments=None) -> None:
        """Raise the error that the compiled code's status words record, the ``arguments``
        written as Python leaves them where it raised (``raise_state``)."""
        write_back_held(arguments if self.holds else None)
        flag, index, axis, size = status.tolist()
        if flag == CALLBACK_FAILED:
            self._trampoline.raise_error()
        raise status_error(flag, index, axis, size)

    def _portable_descriptor(self, arrays, buffers) -> list[int]:
        desc = []
        for i, a in enumerate(arrays):
            desc.append(a.ctypes.data)
            if i in self._strided:
                desc.extend(s // a.itemsize for s in a.strides)
        desc.extend(b.ctypes.data for b in buffers)
        return desc + self._constants


class CallTimeExecutable:
    """The compiled variants of one signature whose code reads call-time inputs (globals,
    closed-over arrays, random draws: ``jitcore.calltime``).

    A call reads the inputs of each variant until one applies (same dtypes, shapes and layouts
    of the global arrays, same guarded scalars), makes its draws and calls it with the inputs
    after the arguments. When none applies (a global changed shape, say), ``compile_variant``
    traces and compiles a new one."""

    __slots__ = ("variants", "drawn", "_compile_variant", "_lock")

    def __init__(self, compile_variant):
        self.variants: list = []  # (Executable, calltime.Inputs); appends are atomic
        # per variant's inputs (by id: the variants hold them), its draws' (slot, shape, dtype) as
        # its first call made them: what the native call checks its own draws against
        self.drawn: dict = {}
        self._compile_variant = compile_variant  # () -> (Executable, calltime.Inputs)
        self._lock = threading.Lock()

    def call_flat(self, args: tuple):
        """``Executable.call_flat``'s counterpart: the inputs are read as on any call."""
        return self(list(args))

    def __call__(self, arrays: list[np.ndarray], callers: list | None = None):
        for executable, inputs in self.variants:
            values = inputs.read()
            if values is not None:
                return self._run(executable, inputs, values, arrays, callers)
        return self._stale(arrays, callers)

    def _run(self, executable, inputs, values, arrays, callers):
        hidden = inputs.draw(values, arrays)
        if id(inputs) not in self.drawn:
            self.drawn[id(inputs)] = tuple((k, hidden[k].shape, hidden[k].dtype)
                                           for k, slot in enumerate(inputs.slots) if slot[0] == "draw")
        passed = inputs.copied(hidden)
        try:
            if passed is hidden:
                return executable(list(arrays) + hidden, None if callers is None else list(callers) + hidden)
            return executable(list(arrays) + passed, list(arrays if callers is None else callers) + hidden)
        finally:
            inputs.finish(hidden)

    def _stale(self, arrays, callers):
        with self._lock:  # one thread compiles the new variant; the others then find it
            for variant in self.variants:
                values = variant[1].read()
                if values is not None:
                    executable, inputs = variant
                    break
            else:
                executable, inputs = self._compile_variant()
                self.variants.append((executable, inputs))
                values = inputs.read()
        if values is None:  # a global changed again while compiling
            return self(arrays, callers)
        return self._run(executable, inputs, values, arrays, callers)


def data_length_trim(rows: np.ndarray, count) -> np.ndarray:
    """The first ``count`` rows of a compaction's buffer (``jitcore.data_length``), as returned:
    a copy that owns its data where it keeps less than a quarter of the buffer (a few rows do
    not hold a large buffer alive), else a view of the buffer (C-contiguous, as NumPy's result
    is): at half the rows kept, as ``x[x > 0]`` of symmetric data, a copy cost as much as the
    compaction (10^5 rows: 50 us more a call)."""
    n = int(count)
    return rows[:n].copy() if 4 * n < len(rows) else rows[:n]


def _trim_array(rows: np.ndarray, count) -> np.ndarray:
    """``np.array(out)`` of a list the data filled: NumPy's ``np.array([])`` when it is empty."""
    return data_length_trim(rows, count) if int(count) else np.array([])


def _trim_typed(rows: np.ndarray, count) -> np.ndarray:
    """``np.array(out, dtype)`` of a list the data filled: 1-d where it is empty, as NumPy's."""
    return data_length_trim(rows, count) if int(count) else np.array([], rows.dtype)


def _trim_python(rows: np.ndarray, count) -> list:
    """A list the data filled with Python numbers (``out.append(i)``), as Python made it."""
    return rows[:int(count)].tolist()


def _trim_numpy(rows: np.ndarray, count) -> list:
    """A list the data filled with NumPy scalars or rows (``out.append(x[i] * 2)``)."""
    return list(rows[:int(count)].copy())


@functools.cache
def _chosen_trim(kinds: tuple):
    """The trim of a list whose items' types the data chose: each kept row as the kind its
    tag names (Python's number or NumPy's scalar). One function per kinds, kept here: the
    native call holds its id."""
    def trim(rows: np.ndarray, count, tags: np.ndarray) -> list:
        n = int(count)
        rows, tags = rows[:n], tags[:n]
        out = list(rows)  # (NumPy scalars of the held dtype; those of another kind replaced)
        for code, kind in enumerate(kinds):
            at = np.flatnonzero(tags == code)
            if at.size:
                for i, v in zip(at.tolist(), kind_conversion.convert_many(rows[at], kind)):
                    out[i] = v
        return out
    return trim


_DTYPE_TRIMS: dict = {}


def _dtype_trim(made_of: str | None, kinds: tuple):
    """The trim of ``np.array(out)`` whose dtype the data chose (``chosen_dtype``): the rows
    trimmed as ``made_of``'s, then converted to the dtype the tag names. One function per
    (made_of, kinds), kept here: the native call holds its id."""
    key = made_of, kinds
    trim = _DTYPE_TRIMS.get(key)
    if trim is None:
        def trim(rows: np.ndarray, count, tag) -> np.ndarray:
            return kind_conversion.convert_by_tag(_TRIMS[made_of](rows, count), kinds, tag)
        _DTYPE_TRIMS[key] = trim
    return trim


_MOVED_TRIMS: dict = {}


def _moved_trim(position: int):
    """The trim of ``a[:, m]`` (its selected dim at ``position``): the kept rows, that dim moved
    back where NumPy has it, in C order as NumPy's copy is. One function per position, kept
    here: the native call holds its id."""
    trim = _MOVED_TRIMS.get(position)
    if trim is None:
        def trim(rows: np.ndarray, count) -> np.ndarray:
            return np.ascontiguousarray(np.moveaxis(rows[:int(count)], 0, position))
        _MOVED_TRIMS[position] = trim
    return trim


_TRIMS = {None: data_length_trim, "array": _trim_array, "typed": _trim_typed, "python": _trim_python,
          "numpy": _trim_numpy}


def _as_scalar(out: np.ndarray, scalar):
    """A result as returned: the array, NumPy's scalar of it, or a Python number (``.item()``)
    where the function computes one (``PYTHON_NUMBER``)."""
    if not scalar:
        return out
    return out[()].item() if scalar == PYTHON_NUMBER else out[()]
