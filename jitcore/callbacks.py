"""Python functions compiled code calls back (``array.callback`` ops): each registered under a
number the op holds, run on its operands, and the values of arguments held for a raise
(``raise_state``). Apart from ``dispatch`` (which runs them through its trampoline) so that
the tracing side (``primitives``, ``raise_state``, ``random``) can register callbacks without
importing the executables.
"""

from __future__ import annotations

import ctypes
import itertools
import threading

import numpy as np

# Callback number -> the Python function that ``array.callback`` ops with that number run on
# their operands (a list of NumPy arrays). Numbers are never reused, so an executable finds its
# functions whatever was traced since; an entry lives as long as the process (one per traced
# debug_print, not per call).
_CALLBACKS: dict[int, object] = {}
_numbers = itertools.count()  # next() is atomic under the GIL: tracing threads get distinct numbers


_RAW: set[int] = set()  # the numbers whose functions take the data pointers themselves
# A 0-d operand or result of these dtypes is read or written as a Python number in place.
_CTYPES = {np.dtype(np.float64): ctypes.c_double, np.dtype(np.float32): ctypes.c_float,
           np.dtype(np.int64): ctypes.c_int64, np.dtype(np.int32): ctypes.c_int32,
           np.dtype(np.uint64): ctypes.c_uint64, np.dtype(np.bool_): ctypes.c_bool}


def register_callback(fn, holds: bool = False, raw: bool = False) -> int:
    """The number that ``array.callback`` uses to run ``fn(arrays)`` at run time; ``holds``:
    it holds arguments' values for a raise (``raise_state``); ``raw``: ``fn(data)`` with the
    operands' and results' data pointers (``data[k]``), which reads and fills them itself
    (``operand_reader``, ``result_writer``): a draw made per step of a loop costs its sampler's
    call, not arrays made for each of its numbers."""
    number = next(_numbers)
    _CALLBACKS[number] = fn
    if holds:
        _HOLDING.add(number)
    if raw:
        _RAW.add(number)
    return number


def replace_callback(number: int, fn) -> None:
    """Callback ``number`` runs ``fn`` from now on (one of the same kind: raw or not)."""
    _CALLBACKS[number] = fn


# The callbacks (by number) that hold the values of arguments written before a raise, and per
# thread those values ({argument: value}, the first raise's), for the call to write back.
_HOLDING: set[int] = set()
_HELD = threading.local()


def hold_arguments(positions, arrays) -> None:
    if getattr(_HELD, "values", None) is None:  # (the first raise is the one Python makes)
        _HELD.values = dict(zip(positions, arrays))


def write_back_held(targets) -> None:
    """Into the caller's arrays, the values held for the raise now being made (then none:
    every raise of a compiled call drops them, so none is left for another call's).
    ``targets``: the kernel's arguments, the native call's descriptor's address (whose first
    words are their objects' addresses; those held are arrays), or None (drop them)."""
    values = getattr(_HELD, "values", None)
    _HELD.values = None
    if targets is None or values is None:
        return
    for i, value in values.items():
        if isinstance(targets, int):
            target = ctypes.cast(ctypes.c_int64.from_address(targets + 8 * i).value, ctypes.py_object).value
        else:
            target = targets[i] if i < len(targets) else None
        if isinstance(target, np.ndarray) and target.flags.writeable:
            np.copyto(target, value.reshape(target.shape), casting="unsafe")


def operand_reader(shape: tuple[int, ...], dtype: np.dtype):
    """``read(address)``: a callback's operand, a 0-d one as a Python number, else a copy."""
    c = _CTYPES.get(dtype) if shape == () else None
    if c is not None:
        return lambda address: c.from_address(address).value
    return lambda address: _read_array(address, shape, dtype)


def result_writer(shape: tuple[int, ...], dtype: np.dtype):
    """``write(address, value)``: fills a callback's result with ``value`` (NumPy's casting)."""
    c = _CTYPES.get(dtype) if shape == () else None
    if c is not None:
        kind = dtype.type
        python = type(kind(0).item())  # what NumPy's scalar draw gives: set as it is

        def write_number(address, value):
            c.from_address(address).value = value if type(value) is python else kind(value).item()
        return write_number

    def write(address, value):
        _result_array(address, shape, dtype)[...] = value
    return write


def run_callback(number: int, arrays: list[np.ndarray]) -> None:
    """Run callback ``number`` on host arrays (its results' among them, to fill)."""
    if number in _RAW:
        _CALLBACKS[number]([a.ctypes.data for a in arrays])
    else:
        _CALLBACKS[number](arrays)


def _read_array(address: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A copy of the C-contiguous array at ``address``: the callback may keep it, and the
    buffer behind it is reused by the next iteration or call."""
    out = np.empty(shape, dtype)
    if out.nbytes:
        ctypes.memmove(out.ctypes.data, address, out.nbytes)
    return out


def _result_array(address: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """The C-contiguous buffer at ``address`` as a writable array: a result the callback fills."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not nbytes:
        return np.empty(shape, dtype)
    return np.frombuffer((ctypes.c_char * nbytes).from_address(address), dtype).reshape(shape)
