"""The cached call in native code: ``JitFunction.__call__`` as a C function CPython calls directly.

Why: on the Python path a cached call of two small arrays costs about 2 µs here (znver4), and
most of it is not the kernel: the flat key (``a.flags`` makes an object per array), the dict
lookup, the descriptor's ctypes writes and the ctypes call (docs/performance.md, "The cached
call without ctypes"). One native function does all of it with loads and compares.

What: ``dispatcher()`` loads an LLVM function with CPython's ``METH_FASTCALL | METH_KEYWORDS``
signature (compiled once; its object code, which holds no address of the process, is kept in
the disk cache), and ``install`` makes it ``JitFunction.__call__`` (a method descriptor, so
``f(x, y)`` reaches it with no Python frame). Both happen on the first cached call that it can
run, so a function called once never pays for them. Each jitted function's ``_native`` slot
holds a table of the signatures (up to ``MAX_ENTRIES``) whose executables only allocate their
results and call (``Executable.call_flat``'s one-call case, no status words, results under
the buffer pool's size). The dispatcher, while no thread is tracing:

- finds the first entry whose call matches exactly: as many positional arguments, the same
  keyword names in the same order (CPython's ``kwnames``: the same string objects, as names
  written in a call are, else equal strings), and each argument (positional, then keyword) an
  ``ndarray`` (its type object, not a subclass) with the entry's dtype object (by address),
  rank, extents and the C-contiguous flag, the same test as ``dispatch.fast_key`` (or a
  number, a strided array, a static argument's value: see ``entry``);
- allocates each result with NumPy's ``PyArray_NewFromDescr`` (what ``np.empty`` calls), fills
  a descriptor on its own stack (so threads and reentrant calls never share one), each
  argument at its kernel argument's place (``f(x, c=z, b=y)`` passes a, b, c), releases the
  GIL around the kernel, and returns the result, built by the entry's program in any pytree
  shape (``result_program``; outputs of the kinds ``_outputs`` lists);
- anything else (no match, other keyword names, a trace running, no table) goes to the Python
  ``JitFunction.__call__``, unchanged, with the same arguments. It never guesses.

Every layout it reads is checked at import on known objects (``_probes``): NumPy's array header
fields, a tuple's length and items, the slot's offset in a ``JitFunction``, a ctypes array's
buffer pointer, and NumPy's C-API table (``PyArray_Type`` at its index, and the index of
``PyArray_NewFromDescr`` read from the header file of the NumPy installed). When any check
fails, ``AVAILABLE`` is False and every call takes the Python path. Reference counts: the table
is held for the length of a call (the slot may be replaced by another thread while the kernel
runs); each result is one new reference, returned or released.
"""

from __future__ import annotations

import copy as copying
import ctypes
import functools
import operator
import os
import re
import sys
import threading
import types

import numpy as np
from llvmlite import ir

from jitcore import calltime, kind_conversion, pytree
from jitcore.argument_writes import ArgumentWrites
from jitcore.call_memo import BY_IDENTITY, MAX_DEPTH, MAX_ITEMS, NUMPY_SCALARS
from jitcore.call_memo import container as is_container
from jitcore.dispatch import PYTHON_NUMBER, Executable
from jitcore.errors import UnsupportedError
from jitcore.ir import layout_class
from jitcore.random import BIT_GENERATORS
from jitcore.tracer import TRACING

MAX_ENTRIES = 8  # signatures per function in its table; more go through the Python path
ARRAY_TYPE = id(np.ndarray)
C_CONTIGUOUS, ALIGNED, WRITEABLE = 0x1, 0x100, 0x400  # NPY_ARRAY_C_CONTIGUOUS, _ALIGNED, _WRITEABLE
METH_FASTCALL, METH_KEYWORDS = 0x80, 0x2  # CPython's calling-convention flags
_WORD = ctypes.sizeof(ctypes.c_void_p)
_NUMERIC = set("biufc?")

_i8, _i32, _i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
_ptr = _i8.as_pointer()
_pptr = _ptr.as_pointer()
_wptr = _i64.as_pointer()


def _api(name: str) -> int:
    return ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value


def _word(address: int) -> int:
    return ctypes.c_int64.from_address(address).value


# -- the layouts, checked on known objects -----------------------------------------------------
def _array_fields() -> dict | None:
    """Offsets of NumPy's ``PyArrayObject_fields`` (data, nd, dimensions, strides, base, descr,
    flags after the object header), checked field by field on arrays whose values are known."""
    fields = dict(data=2 * _WORD, nd=3 * _WORD, dims=4 * _WORD, strides=5 * _WORD, descr=7 * _WORD,
                  flags=8 * _WORD)
    base = np.zeros((4, 6), np.float64)
    cases = [base, base[::2, 1::3], base.T, np.zeros((), np.float32), np.zeros((0, 3), np.int16),
             np.arange(5, dtype=np.uint8)]
    for a in cases:
        at = id(a)
        if _word(at + fields["data"]) != a.ctypes.data:
            return None
        if ctypes.c_int.from_address(at + fields["nd"]).value != a.ndim:
            return None
        for name, expected in (("dims", a.shape), ("strides", a.strides)):
            if a.ndim and tuple((ctypes.c_int64 * a.ndim).from_address(_word(at + fields[name]))) != expected:
                return None
        if _word(at + fields["descr"]) != id(a.dtype):
            return None
        if bool(ctypes.c_int.from_address(at + fields["flags"]).value & C_CONTIGUOUS) != a.flags.c_contiguous:
            return None
    return fields


def _tuple_fields() -> dict | None:
    """Where a tuple keeps its length and its items (a call's keyword names are a tuple),
    checked on tuples whose items are known."""
    fields = dict(tuple_size=2 * _WORD, tuple_items=3 * _WORD)
    for t in ((), ("a",), ("x", 1, None)):
        if _word(id(t) + fields["tuple_size"]) != len(t):
            return None
        if any(_word(id(t) + fields["tuple_items"] + k * _WORD) != id(v) for k, v in enumerate(t)):
            return None
    return fields


def slot_offset(cls: type, name: str) -> int | None:
    """Where the ``__slots__`` member ``name`` lies in an instance of ``cls``: the one word that
    holds each of two objects set there in turn."""
    obj = object.__new__(cls)
    found = None
    for sentinel in (object(), object()):
        setattr(obj, name, sentinel)
        at = [off for off in range(2 * _WORD, cls.__basicsize__, _WORD)
              if _word(id(obj) + off) == id(sentinel)]
        if len(at) != 1 or found not in (None, at[0]):
            return None
        found = at[0]
    delattr(obj, name)
    return found


def _buffer_offset() -> int | None:
    """Where a ctypes array object keeps the address of its buffer (``b_ptr``)."""
    found = None
    for n in (3, 5):
        probe = _table([0] * n, ())
        at = [off for off in range(2 * _WORD, 8 * _WORD, _WORD)
              if _word(id(probe) + off) == ctypes.addressof(probe)]
        if len(at) != 1 or found not in (None, at[0]):
            return None
        found = at[0]
    return found


_TABLE_TYPES: dict[int, type] = {}


def _table(words: list[int], keep: tuple):
    """A ctypes array of int64 ``words`` that keeps alive ``keep`` (what the words point to)."""
    cls = _TABLE_TYPES.get(len(words))
    if cls is None:  # a class of its own: ctypes' own array types take no attributes
        cls = _TABLE_TYPES.setdefault(len(words), type("Table", (ctypes.Array,),
                                                       {"_type_": ctypes.c_int64, "_length_": len(words)}))
    table = cls(*words)
    table.keep = keep
    return table


def _dims_table(shape: tuple, itemsize: int = 1):
    """NumPy's ``PyArray_Dims`` of ``shape`` (its extents' address and count), then its element
    count times ``itemsize`` (a copy's bytes), then the extents."""
    shape = tuple(int(n) for n in shape)
    table = _table([0, len(shape), int(np.prod(shape, dtype=np.int64)) * itemsize, *shape], shape)
    table[0] = ctypes.addressof(table) + 3 * _WORD
    return table


def _numpy_api() -> dict | None:
    """The addresses of ``PyArray_NewFromDescr``, ``PyArray_Return`` and ``PyArray_Scalar`` in
    NumPy's C-API table:
    their indices read from the installed NumPy's own header, the table checked by
    ``PyArray_Type`` at its index, and each function checked by one call on known values."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:
        return None
    header = os.path.join(np.get_include(), "numpy", "__multiarray_api.h")
    try:
        with open(header) as f:
            text = f.read()
    except OSError:
        return None
    found = {name: re.search(rf"#define {name} \\\s*\n[^\n]*\n\s*PyArray_API\[(\d+)\]", text)
             for name in ("PyArray_NewFromDescr", "PyArray_Return", "PyArray_Scalar", "PyArray_Newshape")}
    type_index = re.search(r"#define PyArray_Type \(\*\(PyTypeObject \*\)PyArray_API\[(\d+)\]\)", text)
    if type_index is None or None in found.values():
        return None
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    try:
        table = get(umath._ARRAY_API, None)
    except (AttributeError, ValueError):
        return None
    if not table or _word(table + int(type_index[1]) * _WORD) != ARRAY_TYPE:
        return None
    api = {name: _word(table + int(m[1]) * _WORD) for name, m in found.items()}
    new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.py_object, ctypes.c_int,
                            ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                            ctypes.c_void_p)(api["PyArray_NewFromDescr"])
    to_scalar = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p)(api["PyArray_Return"])
    dtype = np.dtype(np.float32)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(dtype))  # the function steals a reference
    made = new(ARRAY_TYPE, dtype, 2, (ctypes.c_int64 * 2)(3, 5), None, None, 0, None)
    if type(made) is not np.ndarray or made.shape != (3, 5) or made.dtype is not dtype \
            or not made.flags.c_contiguous:
        return None
    zero_d = np.full((), 2.5, np.float64)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(zero_d))  # PyArray_Return steals one too
    scalar = to_scalar(id(zero_d))
    if type(scalar) is not np.float64 or scalar != 2.5:
        return None
    from_data = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.py_object,
                                  ctypes.py_object)(api["PyArray_Scalar"])
    one = np.array([-1.5], np.float32)
    element = from_data(one.ctypes.data, one.dtype, one)  # borrows the dtype and the base
    if type(element) is not np.float32 or element != -1.5:
        return None
    newshape = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_void_p,
                                 ctypes.c_int)(api["PyArray_Newshape"])
    flat = np.arange(6.0)
    dims = _dims_table((2, 3))
    view = newshape(flat, ctypes.addressof(dims), 0)  # NPY_CORDER
    if type(view) is not np.ndarray or view.shape != (2, 3) or view.base is not flat or view[1, 2] != 5.0:
        return None
    return api


def _scalar_types() -> dict:
    """The number types whose value lies in the object itself at ``SCALAR_VALUE`` (after the
    object header), with the dtype the value has there: a Python float or complex, a NumPy
    scalar. Checked byte for byte on two values each; a type that fails is left to Python."""
    found = {}
    for t, dtype in ((float, np.float64), (complex, np.complex128), *((t, t) for t in NUMPY_SCALARS)):
        dtype = np.dtype(dtype)
        values = (t(1), t(0)) if t is np.bool_ else (t(-3 if dtype.kind != "u" else 3), t(5))
        if all(ctypes.string_at(id(v) + SCALAR_VALUE, dtype.itemsize) == np.asarray(v, dtype).tobytes()
               for v in values):
            found[t] = dtype
    return found


SCALAR_VALUE = 2 * _WORD  # after the reference count and the type


_PROBE_DEFAULT = object()


def _object_fields() -> dict:
    """Where a closure cell keeps its value and a function its ``__defaults__`` and
    ``__kwdefaults__`` (the call-time inputs the native call reads, ``jitcore.calltime``), each
    the one word that holds the known object in two probes; a field not found is left out (its
    reads stay on the Python path)."""
    def only(objs_and_values, size) -> int | None:
        found = None
        for obj, value in objs_and_values:
            at = [off for off in range(2 * _WORD, size, _WORD) if _word(id(obj) + off) == id(value)]
            if len(at) != 1 or found not in (None, at[0]):
                return None
            found = at[0]
        return found

    def cell(v):
        return (lambda: v).__closure__[0]

    def with_defaults(a=_PROBE_DEFAULT, *, b=_PROBE_DEFAULT):
        return a, b

    def other(a=(), b=1.5, *, c=None):
        return a, b, c

    values = (object(), object())
    fields = dict(cell_ref=only([(cell(v), v) for v in values], type(cell(0)).__basicsize__))
    # a list's items: the array its ``ob_item`` word points to (its size: ``ob_size``, as a tuple's)
    lists = ([values[0]], [values[1], values[0], None])
    items = [off for off in range(2 * _WORD, list.__basicsize__, _WORD)
             if all(_word(id(v) + 2 * _WORD) == len(v) and _word(id(v) + off) > 4096
                    and all(_word(_word(id(v) + off) + k * _WORD) == id(x) for k, x in enumerate(v))
                    for v in lists)]
    fields["list_items"] = items[0] if len(items) == 1 else None
    size = type(other).__basicsize__
    fields["func_defaults"] = only([(f, f.__defaults__) for f in (with_defaults, other)], size)
    fields["func_kwdefaults"] = only([(f, f.__kwdefaults__) for f in (with_defaults, other)], size)
    return {k: v for k, v in fields.items() if v is not None}


def _probes() -> dict | None:
    # CPython with its GIL: the dispatcher reads the table and counts hits holding it.
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    if sys.implementation.name != "cpython" or not gil or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    fields, tuples, buffer, api = _array_fields(), _tuple_fields(), _buffer_offset(), _numpy_api()
    if fields is None or tuples is None or buffer is None or api is None:
        return None
    return dict(fields, **tuples, **_object_fields(), buffer=buffer, api=api)


_LAYOUT = _probes()
AVAILABLE = _LAYOUT is not None
# number types an argument may have in the native call: its value read where it lies
SCALAR_TYPES = _scalar_types() if AVAILABLE else {}
SCALAR = -1  # an argument's kind word in an entry for a number (its first word: the type)
INT = -2  # ... for a Python int, converted, then the bounds of its signature's ints
STATIC = -3  # ... for a static argument: its type, then the value it must equal
STRIDED = 1 << 32  # added to an array's rank word when its strides follow its extents
# A static argument's value may be one of these exact types: comparing two of them runs no
# Python code. A number compares as the keys do (``call_memo.Exactly``): an int or bool by
# ``==``, one of ``SCALAR_TYPES`` by the bytes of its value; a string by ``==``.
# ``None`` and a class (of the plain metaclass ``type``: a classmethod's ``cls``) compare by
# identity, which ``PyObject_RichCompareBool`` tries first.
# So do the class's functions, properties, static and class methods a jitted method reads
# (``method_calls.CODE_TYPES``): their types compare by identity too, in C.
STATIC_TYPES = frozenset((int, bool, str, *BY_IDENTITY, *SCALAR_TYPES))
# ... and a guard's value may be a random generator a global holds (``calltime``: by identity,
# so that a global bound to another one traces again): a Cython class with no ``__eq__`` of its
# own, whose ``PyObject_RichCompareBool`` runs no Python code either.
GUARD_TYPES = STATIC_TYPES | frozenset((np.random.Generator, np.random.RandomState, *BIT_GENERATORS))


class Strided(tuple):
    """An entry key's shape for an array that is not C-contiguous: (shape, strides), matched
    exactly (the kernel reads the strides from the array's header)."""


class Static(tuple):
    """An entry key's shape for a static argument: (value,), which the call's argument must
    equal after the same exact type (``STATIC_TYPES``), as the memo's key compares it."""


class Same(Static):
    """A guard's (value,) that a call-time read must give as that very object: a global or
    closed-over list or tuple whose items the call reads (``calltime.IsRead``), bound anew
    (even to an equal one) must send the call to the Python path, which traces again."""

    __hash__ = None  # (compared by identity in C; never a key of a dict)


_HEADER_WORDS = 8  # a number's stand-in array header: past NumPy's data, nd, dims, strides fields


# -- the tables ------------------------------------------------------------------------------
# A table: [entries, instance, address of the hits counter, entry address...]; ``instance``: 0,
# or for a jitted method's table (``instance_spec``) the address of [the class's address, the
# count of the instance's attributes, the count of the class's, the names' addresses...]: the
# call's first argument, an instance of exactly that class holding exactly the first names in
# its ``__dict__``, stands for those attributes' values and the class's attributes of the other
# names (``_PyType_Lookup``), in that order, before the other arguments when the entries are
# matched; with an instance count of -1 (a classmethod's), the first argument is the class
# itself, which stands for its attributes of those names. An entry:
#   [positional arguments, kernel address, the kernel's arguments, buffers, the result's ops
#    (its program's length), status: the Python function that raises its error (0: no
#    status words), the int64 dtype's address, 4 (the status words' extent), constants,
#    constant words..., keywords, the keyword names' addresses...,
#    per argument (the positional ones, then the keywords in order): dtype address, rank, the
#    kernel's argument it is, extents... (a number: its type's address, SCALAR, its argument;
#    an int: int's address, INT, its argument, its bounds; a strided array: rank + STRIDED,
#    its argument, extents, strides; a static one: its type's address, STATIC, -1, the value's
#    address, the bytes of its value to compare (0: compared by ``==``)),
#    per buffer: dtype address, 1 if returned, rank, extents...,
#    outputs, per output: kind, two words (``_outputs``), ops, per op: op, count, address
#    (``result_program``)]
# The descriptor the kernel reads is [arguments, buffers, status, constants] (dispatch.Executable).


def entry(executable, key: tuple, keywords: tuple = (), order: tuple | None = None, reads: tuple = (),
          containers: tuple = ()):
    """The table entry (words, objects to keep alive) of an executable called with ``key``
    (dtype, shape per argument of the call, the positional ones then the keywords named
    ``keywords``, then the values of ``reads``; for a number its type and None, for a static
    argument its type and a ``Static``), or None when the native call cannot run it. ``order``:
    per argument the kernel's argument it is, -1 for a static one (None: the short path's, in
    order). ``reads``: per call-time input (``calltime_reads``), what the call reads;
    ``containers``: per tuple or list argument (position among the call's values, type, length),
    whose items stand in its place in ``key`` and ``order``.
    It runs what needs no work besides allocating and copying back: each result a fresh buffer
    of its own (a NumPy scalar where NumPy gives one) or an argument itself, alone, in a flat
    tuple or None; arguments written in place (``executable.mutated``: C-contiguous, their new
    value a buffer of their dtype and shape, copied into them when the call checked them
    writeable and apart from the other arguments); status words, checked after the call;
    nothing copied in or transposed; small numeric results (``np.empty``'s, not the buffer
    pool's)."""
    if not isinstance(executable, Executable):  # a CallTimeExecutable reads inputs on each call
        return None
    tree = executable.out_tree
    plan = executable.plan
    if plan.header is None or executable._transposed or len(reads) > MAX_READS:
        return None
    nargs, buffers = len(plan.arg_strided), executable._buffers
    order = tuple(range(len(key) // 2)) if order is None else order
    if len(key) != 2 * len(order) or sorted(k for k in order if k >= 0) != list(range(nargs)):
        return None
    n_results = len(executable._outputs) - len(executable.mutated)
    made_outputs = _outputs(executable, n_results)
    program = result_program(tree, n_results, executable._chosen, executable._trimmed, executable._picked)
    if made_outputs is None or program is None:
        return None
    outputs, output_keep = made_outputs
    ops, program_keep = program
    writes = {}  # kernel argument -> the buffer of its new value
    for i, (kind, index, shape, _, copy) in zip(executable.mutated, executable._outputs[n_results:]):
        if kind != "buffer" or copy or buffers[index][0] != shape or i in writes:
            return None
        writes[i] = index
    if writes and any(read[0] == READ_DRAW for read in reads):  # (written arguments are checked after)
        return None
    kinds = [read[0] for read in reads]  # draws last (``calltime_reads``): ``run`` holds the reads before
    if READ_DRAW in kinds and set(kinds[kinds.index(READ_DRAW):]) != {READ_DRAW}:
        return None
    raiser = executable._raise_status if plan.has_status else None  # a bound method: kept below
    keep = [executable, raiser, _INT64, keywords, reads, containers, output_keep, program_keep]
    constants = executable._constants
    # (a dict's third word: its keys, a table of their count and addresses, kept)
    every = [c for found in containers for c in found]
    # the flat values past the call's own
    items = sum(n if type(n) is int else len(n) for _, _, n in every) - len(every)
    if items > MAX_ITEMS or len(containers) > MAX_DEPTH or any(
            t is not dict and not issubclass(t, tuple) and (t is not list or "list_items" not in _LAYOUT)
            for _, t, _ in every):
        return None
    key_tables = [_table([len(n), *map(id, n)], n) for _, t, n in every if t is dict]
    keep.append(key_tables)
    positional = len(order) - items - len(keywords) - len(reads)
    words = [positional, ctypes.cast(executable._fn, ctypes.c_void_p).value,
             nargs, len(buffers), len(ops) // 3,
             0 if raiser is None else id(raiser), id(_INT64), 4, len(constants), *constants,
             len(keywords), *map(id, keywords), len(reads)]
    for kind, container, name in reads:
        words += [kind, id(container), name if type(name) is int else id(name)]
    tables, section = iter(key_tables), [len(containers)]  # the passes, each its containers
    for found in containers:
        section.append(len(found))
        for position, kind, length in found:  # (a tuple subclass's length as -1 - it: a tuple's layout)
            if kind is dict:
                length = ctypes.addressof(next(tables))
            elif kind is not tuple and issubclass(kind, tuple):
                length = -1 - length
            section += [position, id(kind), length]
    words += [len(section), *section]
    spans = []  # per array argument: (kernel argument, lowest and highest byte from its data, written)
    numbers = {}  # per number argument: the dtype its value has where the kernel reads it
    contiguous, contiguous_items = {}, {}  # per C-contiguous array argument: its shape, its item's bytes
    for k, dtype, shape in zip(order, key[::2], key[1::2]):
        if isinstance(shape, Static):  # matched, not passed: the code was traced with its value
            if k >= 0 or type(shape[0]) is not dtype or (
                    dtype not in GUARD_TYPES and not (type(shape) is Same and dtype in (list, tuple))):
                return None
            keep += [dtype, shape[0]]
            nbytes = (-1 if type(shape) is Same  # (by identity)
                      else SCALAR_TYPES[dtype].itemsize if dtype in SCALAR_TYPES else 0)
            words += [id(dtype), STATIC, -1, id(shape[0]), nbytes]
            continue
        if k < 0 or (k in writes and (shape is None or dtype is int or isinstance(shape, Strided))):
            return None  # (a number or a strided array written in place: the Python path)
        if shape is None:  # a number of type ``dtype`` (SCALAR_TYPES), read where it lies
            if dtype not in SCALAR_TYPES:
                return None
            keep.append(dtype)
            words += [id(dtype), SCALAR, k]
            numbers[k] = SCALAR_TYPES[dtype]
            continue
        if dtype is int:  # a Python int, converted to int64, between ``shape``'s bounds
            lo, hi = max(shape[0], -(2 ** 63)), min(shape[1], 2 ** 63 - 1)
            words += [id(int), INT, k, lo, hi]
            numbers[k] = _INT64
            continue
        dtype = _canonical(dtype)
        keep.append(dtype)
        if k in writes and buffers[writes[k]] != (tuple(shape), dtype):  # copied in as it is
            return None
        if isinstance(shape, Strided):  # only where the kernel takes this argument's strides
            if not plan.arg_strided[k] or k in executable._copy_args:
                return None
            shape, strides = shape
            words += [id(dtype), STRIDED + len(shape), k, *shape, *strides]
        else:
            strides = None
            words += [id(dtype), len(shape), k, *shape]
            contiguous[k], contiguous_items[k] = tuple(shape), dtype.itemsize
        spans.append((k, *_span(shape, strides, dtype.itemsize), int(k in writes)))
        if shape == ():
            numbers[k] = None  # a 0-d array: its own dtype, read from it
    arrays = {k for k, *_ in spans}  # (a number's kernel argument is a stand-in header, no object)
    returned = {a for kind, a, _ in zip(outputs[::3], outputs[1::3], outputs[2::3]) if kind == OUT_ARGUMENT}
    if not set(writes) <= arrays or not returned <= arrays:
        return None
    for at in range(0, len(outputs), 3):  # an argument viewed or copied: C-contiguous, as many elements
        if outputs[at] in (OUT_VIEW, OUT_ARGUMENT_COPY):
            k = outputs[at + 1]
            shape = contiguous.get(k)
            dims = ctypes.cast(outputs[at + 2], ctypes.POINTER(ctypes.c_int64))
            if shape is None or int(np.prod(shape, dtype=np.int64)) != dims[2]:
                return None
            if outputs[at] == OUT_ARGUMENT_COPY:  # (a copy's third word: its bytes)
                output_keep.append(_dims_table(dims[3:3 + dims[1]], contiguous_items[k]))
                outputs[at + 2] = ctypes.addressof(output_keep[-1])
            elif tuple(dims[3:3 + dims[1]]) == shape:  # the argument itself, as the Python path gives it
                outputs[at:at + 3] = [OUT_ARGUMENT, k, 0]
    for at in range(0, len(outputs), 3):  # a scalar of an argument: its value's dtype (0: the array's own)
        if outputs[at] in (OUT_ARGUMENT_SCALAR, OUT_ARGUMENT_PYTHON):
            if outputs[at + 1] not in numbers:
                return None
            dtype = numbers[outputs[at + 1]]
            outputs[at + 2] = 0 if dtype is None else id(dtype)
    # Written arguments: checked writeable and apart from every other array (as
    # ``dispatch.check_no_aliasing``), then their new values copied in.
    words.append(len(writes))
    for k, index in writes.items():
        shape, dtype = buffers[index]
        words += [k, index, int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize]
    spans = [s for s in spans if s[1] < s[2]] if writes else []  # an empty array shares no memory
    words.append(len(spans))
    for span in spans:
        words += list(span)
    returned_buffers = {a for kind, a in zip(outputs[::3], outputs[1::3]) if kind in (OUT_BUFFER, OUT_SCALAR)}
    for index, ((shape, dtype), allocate) in enumerate(zip(buffers, executable._allocate)):
        dtype = _canonical(dtype)
        if allocate is not np.empty or dtype.kind not in _NUMERIC:  # pooled (large) or odd results
            return None
        keep.append(dtype)
        words += [id(dtype), int(index in returned_buffers), len(shape), *shape]
    words += [len(outputs) // 3, *outputs, len(ops) // 3, *ops]
    return words, keep


def _span(shape, strides, itemsize: int) -> tuple[int, int]:
    """The bytes an array of ``shape`` (C-contiguous, or with ``strides``) spans around its data
    pointer, [lo, hi): NumPy's bounds for ``may_share_memory``; empty for no elements."""
    if 0 in shape:
        return 0, 0
    if strides is None:
        return 0, int(np.prod(shape, dtype=np.int64)) * itemsize
    lo = sum(min(0, s * (n - 1)) for n, s in zip(shape, strides))
    hi = sum(max(0, s * (n - 1)) for n, s in zip(shape, strides))
    return lo, hi + itemsize


# How an entry makes each output (three words: kind, a, b) and builds the result of them
# (a program of three words an op, run on a stack in post-order: ``result_program``).
(OUT_BUFFER, OUT_SCALAR, OUT_ARGUMENT, OUT_OBJECT, OUT_COPY, OUT_BUFFER_COPY, OUT_ARGUMENT_SCALAR, OUT_VIEW,
 OUT_ARGUMENT_COPY, OUT_ARGUMENT_PYTHON) = range(10)
OP_OUTPUT, OP_OBJECT, OP_TUPLE, OP_LIST, OP_DICT, OP_CALL = range(6)
MAX_OPS = 64  # a result's nodes (its outputs and containers); a larger one takes the Python path
_DICT_KEY_TYPES = (str, int)  # keys whose hash and == run no Python code


def _outputs(executable, n_results: int) -> tuple[list, list] | None:
    """Per result output (``Executable._outputs``), its three words, and the objects they point
    to; None where one needs more than the native call does (``Executable.__call__``'s meaning):
    - a fresh buffer, returned as it is (``OUT_BUFFER``: its shape the result's), or a copy of
      it where another result is that buffer (``OUT_BUFFER_COPY``: ``return a, a.copy()``);
    - a fresh buffer of one element returned as a NumPy scalar (``OUT_SCALAR``: NumPy's
      ``PyArray_Scalar`` of its data, what ``buffer.reshape(())[()]`` gives: ``[x[0], x[1]]``, a
      0-d result), or its Python number where the third word is 1 (``PYTHON_NUMBER``: ``x.item(0)``,
      ``s * 2.0``; ``.item()`` of it, the env's ``to_python``);
    - an argument itself (``OUT_ARGUMENT``, its kernel argument: the caller's array), or a
      number or 0-d array argument returned as a NumPy scalar (``OUT_ARGUMENT_SCALAR``: of its
      value as the kernel reads it, with the dtype ``entry`` sets in the third word: ``f(xs)``
      returning a list argument's floats), or as a Python number (``OUT_ARGUMENT_PYTHON``: an int
      argument returned);
    - a constant NumPy scalar or Python number (``OUT_OBJECT``: immutable, so one object made
      here serves every call, as equal as the Python path's fresh ``constant.copy()[()]``);
    - a constant array (``OUT_COPY``: a fresh C-contiguous array of its dtype and shape, its
      bytes copied from one kept here, as the Python path's ``constant.copy()``);
    - a C-contiguous array argument in the result's shape (``x.reshape(2, 4)``, ``x[None]``):
      NumPy's ``PyArray_Newshape`` of it (``OUT_VIEW``: a view whose base is the argument, as
      ``argument.reshape(shape)``; the argument itself in its own shape), or a copy of it where
      another result has its storage (``OUT_ARGUMENT_COPY``); the third word: ``_dims_table``.
    Not: a scalar read of an argument's view, non-numeric dtypes."""
    outputs, keep = [], []
    buffers, arguments = executable._buffers, dict(executable._arguments)
    for k, (kind, index, shape, scalar, copy) in enumerate(executable._outputs[:n_results]):
        python = scalar == PYTHON_NUMBER  # made by .item() (the env's ``to_python``)
        if kind == "argument":
            if k not in arguments:
                return None
            kind_of = OUT_ARGUMENT_PYTHON if python else OUT_ARGUMENT_SCALAR if scalar else OUT_ARGUMENT
            outputs += [kind_of, arguments[k], 0]
        elif kind == "buffer":
            shape_of, dtype = buffers[index]
            if np.dtype(dtype).kind not in _NUMERIC:
                return None
            if scalar and shape == () and int(np.prod(shape_of, dtype=np.int64)) == 1:
                # (a copy's scalar is the same scalar; the third word: a Python number)
                outputs += [OUT_SCALAR, index, int(python)]
            elif not scalar and tuple(shape_of) == tuple(shape):
                nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
                outputs += [OUT_BUFFER_COPY, index, nbytes] if copy else [OUT_BUFFER, index, 0]
            else:
                return None
        elif kind == "constant":
            constant = executable.plan.constants[index]
            if type(constant) is not np.ndarray or constant.dtype.kind not in _NUMERIC \
                    or constant.size != int(np.prod(shape, dtype=np.int64)):
                return None
            if scalar:
                value = constant.reshape(shape)[()]
                value = value.item() if python else value
                keep.append(value)
                outputs += [OUT_OBJECT, id(value), 0]
            else:
                source = constant.reshape(shape).copy(order="C")  # (ascontiguousarray makes a 0-d one 1-d)
                source.flags.writeable = False
                keep.append(source)
                outputs += [OUT_COPY, id(source), source.nbytes]
        elif kind == "input" and not scalar:  # an argument in the result's shape (``x.reshape``)
            dims = _dims_table(shape)
            keep.append(dims)
            outputs += [OUT_ARGUMENT_COPY if copy else OUT_VIEW, index, ctypes.addressof(dims)]
        else:
            return None
    return outputs, keep


_TO_PYTHON = operator.methodcaller("item")  # a NumPy scalar's Python number


def result_program(tree, n_outputs: int, chosen=(), trimmed=(), picked=()) -> tuple[list, list] | None:
    """The result's shape (``pytree.TreeDef``) as the native call builds it: ops of three words
    (op, count, address) in post-order, each output pushed in turn, each container made of the
    last ``count`` pushed (a dict with its keys, a table of their count and addresses; a named
    tuple by calling its class); and the objects they point to. None for a tree it does not
    build (dict keys other than strings and ints, more than ``MAX_OPS`` nodes). A result whose
    type the data chose (``chosen``: its number and ``dispatch.ChosenType``) is its converter
    (``kind_conversion.converter``) called with it and its tag, an output after the results; one
    whose length the data chose (``trimmed``: its number and its ``dispatch.Trimmed``) is
    the mark's trim (``dispatch.data_length_trim``) called with it and its count; one that is
    an argument itself or a view of one on some paths (``picked``: its number and
    ``dispatch.Picked``) is the mark's ``picker`` (``dispatch.pick``, or a ``PickedView``)
    called with it, whether such a path ran and the argument, two outputs after the results."""
    ops, keep, next_output = [], [], [0]
    tags, marks, picks = dict(chosen), dict(trimmed), dict(picked)

    def visit(node) -> bool:
        kind = node.kind
        if kind == "leaf":
            k = next_output[0]
            ops.extend((OP_OUTPUT, k, 0))
            next_output[0] += 1
            if k in tags:
                convert = kind_conversion.converter(tags[k].kinds, np.dtype(tags[k].dtype))
                keep.append(convert)
                ops.extend((OP_OUTPUT, tags[k].tag, 0, OP_CALL, 2, id(convert)))
            if k in marks:  # (module-level functions: their ids stay theirs)
                mark = marks[k]
                ops.extend((OP_OUTPUT, mark.count, 0))
                if mark.tags >= 0:  # (a list whose items' types the data chose: their tags)
                    ops.extend((OP_OUTPUT, mark.tags, 0))
                ops.extend((OP_CALL, 2 + (mark.tags >= 0), id(mark.trim)))
            if k in picks:
                mark = picks[k]
                ops.extend((OP_OUTPUT, mark.taken, 0, OP_OUTPUT, mark.argument, 0))
                if mark.otherwise >= 0:
                    ops.extend((OP_OUTPUT, mark.otherwise, 0))
                keep.append(mark.picker)
                ops.extend((OP_CALL, 3 + (mark.otherwise >= 0), id(mark.picker)))
            return True
        if kind in ("none", "constant"):
            value = pytree.constant_value(node)
            if value is not None:
                keep.append(value)  # the table's address stays an object's
            ops.extend((OP_OBJECT, 0, id(value)))
            return True
        if not all(visit(child) for child in node.children):
            return False
        n = len(node.children)
        if kind == "tuple":
            ops.extend((OP_TUPLE, n, 0))
        elif kind == "list":
            ops.extend((OP_LIST, n, 0))
        elif kind == "dict":
            if any(type(k) not in _DICT_KEY_TYPES for k in node.keys):
                return False
            keys = _table([len(node.keys), *map(id, node.keys)], tuple(node.keys))
            keep.append(keys)
            ops.extend((OP_DICT, n, ctypes.addressof(keys)))
        elif kind == "namedtuple" and isinstance(node.keys[0], type) and issubclass(node.keys[0], tuple):
            keep.append(node.keys[0])
            ops.extend((OP_CALL, n, id(node.keys[0])))
        else:
            return False
        return True

    after_results = len(tags) + len({m.count for m in marks.values()}) + sum(2 + (m.otherwise >= 0)
                                                                          for m in picks.values()) \
        + sum(m.tags >= 0 for m in marks.values())
    if not visit(tree) or next_output[0] + after_results != n_outputs or len(ops) // 3 > MAX_OPS:
        return None
    return ops, keep
MAX_READS = 16  # call-time inputs an entry may read
# how (see ``calltime_reads``)
READ_DICT, READ_CELL, READ_DEFAULT, READ_KWDEFAULT, READ_DRAW, READ_LIST_ITEM, READ_TUPLE_ITEM = range(7)


def entries(executable, key: tuple, keywords: tuple = (), order: tuple | None = None,
            containers: tuple = ()) -> list:
    """The table entries of an executable (``entry``'s arguments): one for an ``Executable``;
    for a ``CallTimeExecutable``, one per variant the native call can check (arrays read from
    a module's globals, a closure cell or a function's defaults, C-contiguous; scalars compared
    by value), each reading its inputs after the call's arguments. Possibly none."""
    variants = getattr(executable, "variants", None)
    compiled = [executable] if variants is None else [v for v, _ in list(variants)]
    if any(e.out_tree.keys == (ArgumentWrites,) for e in compiled):
        return []  # its containers are written back by the Python call (argument_writes.py)
    if variants is None:
        made = entry(executable, key, keywords, order, (), containers)
        return [] if made is None else [made]
    order = tuple(range(len(key) // 2)) if order is None else order
    found = []
    drawn = getattr(executable, "drawn", {})
    for variant, inputs in list(variants):
        first = len(variant.plan.arg_strided) - len(inputs.slots)
        more = calltime_reads(inputs, first, drawn.get(id(inputs)))
        if more is None:
            continue
        reads, hidden_key, hidden_order = more
        made = entry(variant, key + hidden_key, keywords, order + hidden_order, reads, containers)
        if made is not None:
            found.append(made)
    return found


def calltime_reads(inputs, first: int, drawn: tuple | None = None) -> tuple | None:
    """What the native call reads of one variant's inputs (``calltime.Inputs``): per input its
    read (kind, container, name or index), its key (dtype and shape, or a static value) and its
    kernel argument (the hidden ones from ``first`` on, -1 for a guarded scalar); None where
    the variant reads anything else (seeds, a loop's draws, small arrays compared by content,
    copied or non-contiguous arrays, a guard of a type compared otherwise).

    Random draws (``drawn``: per draw its slot, shape and dtype as the variant's first call
    made them) come last, in program order, so that no read checked after a draw can send the
    call to the Python path, which would draw again: a draw that returns anything but that
    array (an ndarray of the shape and dtype; for a draw of one number, a number of the type a
    draw from a copy of the generator gives, ``_sample_type``) raises."""
    if inputs.effects or inputs.contents or inputs.groups:
        return None
    by_slot = {k: (read, dtype, shape, layout) for k, read, dtype, shape, layout in inputs._arrays}
    draws = {k: (shape, dtype) for k, shape, dtype in drawn or ()}
    if any(k not in by_slot and (k not in draws or slot[0] != "draw") for k, slot in enumerate(inputs.slots)):
        return None  # a draw whose first values are not known yet, or a slot of another kind
    reads, key, order = [], [], []
    for read, value in inputs.guards:
        if type(read) is calltime.IsRead and value is True:  # the list or tuple itself, by identity
            read, value, shape = read.read, read.obj, Same((read.obj,))
        else:
            shape = Static((value,))
        where = _read_of(read)
        if where is None or (type(value) not in GUARD_TYPES and type(shape) is not Same):
            return None
        reads.append(where)
        key += [type(value), shape]
        order.append(-1)
    for k in sorted(by_slot):
        read, dtype, shape, layout = by_slot[k]
        where = _read_of(read)
        if where is None or layout != layout_class.C:
            return None
        reads.append(where)
        key += [dtype, tuple(shape)]
        order.append(first + k)
    for k in sorted(draws):  # the slots' order is the program's
        shape, dtype = draws[k]
        fn = inputs.slots[k][1]
        if np.dtype(dtype).kind not in _NUMERIC:
            return None
        if shape:
            key += [dtype, tuple(shape)]
        else:  # one number: matched as a number argument of the type the sampler returns
            drawn_type = _sample_type(fn)
            if drawn_type in SCALAR_TYPES and SCALAR_TYPES[drawn_type] == dtype:
                key += [drawn_type, None]
            elif drawn_type is int and np.dtype(dtype) == _INT64:
                key += [int, (-(2 ** 63), 2 ** 63 - 1)]
            else:
                return None
        reads.append((READ_DRAW, fn, 0))
        order.append(first + k)
    return tuple(reads), tuple(key), tuple(order)


def _sample_type(fn) -> type | None:
    """The type of what a draw of one number (``functools.partial`` of a generator's method,
    ``jitcore.random``) returns: a draw from a copy of the generator, which leaves it untouched,
    as the trace's own sample was made. None where that cannot be made."""
    method = getattr(fn, "func", None)
    owner = getattr(method, "__self__", None)
    generators = (np.random.Generator, np.random.RandomState)
    if type(fn) is not functools.partial or not isinstance(owner, generators):
        return None
    try:
        return type(getattr(copying.deepcopy(owner), method.__name__)(*fn.args, **fn.keywords))
    except Exception:  # (the Python path makes this draw as it always did)
        return None


def _read_of(read) -> tuple | None:
    """A call-time read (``calltime.GlobalRead``, ``CellRead``, ``DefaultRead``) as the native
    call makes it, or None where it cannot (a field its layout probes did not find)."""
    t = type(read)
    if t is calltime.ItemRead and type(read.index) is int and read.index >= 0:
        if type(read.container) is list and "list_items" in _LAYOUT:
            return READ_LIST_ITEM, read.container, read.index
        if type(read.container) is tuple:
            return READ_TUPLE_ITEM, read.container, read.index
    if t is calltime.GlobalRead and type(read.namespace) is dict and type(read.name) is str:
        return READ_DICT, read.namespace, read.name
    if t is calltime.CellRead and "cell_ref" in _LAYOUT:
        return READ_CELL, read.cell, 0
    if t is calltime.DefaultRead and isinstance(read.fun, types.FunctionType):
        if type(read.key) is int and "func_defaults" in _LAYOUT:
            return READ_DEFAULT, read.fun, read.key
        if type(read.key) is str and "func_kwdefaults" in _LAYOUT:
            return READ_KWDEFAULT, read.fun, read.key
    return None


_INT64 = np.dtype(np.int64)
_DRAW_UNLIKE = ("a random draw inside a jitted function returned another array than the one its code was "
                "compiled for (a new NumPy array of the first call's shape and dtype)")


def _canonical(dtype) -> np.dtype:
    """The dtype object arrays of this dtype usually carry (NumPy's builtin one), if equal."""
    dtype = np.dtype(dtype)
    builtin = np.dtype(dtype.type) if dtype.kind in _NUMERIC else dtype
    return builtin if builtin == dtype else dtype


class Table(ctypes.Array):
    """A function's table: the one type the dispatcher accepts in the slot (it checks)."""

    _type_ = ctypes.c_int64
    _length_ = 3 + MAX_ENTRIES


def table(entries: list, hits: ctypes.c_int64, instance=None) -> Table:
    """A function's table of ``entries`` (each ``entry()``'s words and objects); ``instance``:
    an ``instance_spec`` for a jitted method's table, whose entries see the instance's
    attributes as the first arguments."""
    arrays = [_table(words, tuple(keep)) for words, keep in entries[:MAX_ENTRIES]]
    spec = 0 if instance is None else ctypes.addressof(instance)
    made = Table(len(arrays), spec, ctypes.addressof(hits), *(ctypes.addressof(a) for a in arrays))
    made.keep = (arrays, hits, instance)
    return made


def instance_spec(cls: type, names: tuple, n_own: int):
    """The words a method's table holds of its instances (see the table's layout): the class and
    the attribute names (strings): the first ``n_own`` looked up in the instance's ``__dict__``
    on each call, the others on its class (``n_own`` -1: the first argument is the class)."""
    return _table([id(cls), n_own, len(names) - max(n_own, 0), *map(id, names)], (cls, names))


# -- installing ------------------------------------------------------------------------------
# Held while JitFunction.__call__ changes (here, and by jitcore.profiler), so that a profile's
# swap and this one never interleave.
SWITCH = threading.Lock()
_installed: dict = {}  # the method descriptor and what it keeps alive, once made


def install(cls: type, python_call, slot: str) -> bool:
    """Make the native dispatcher ``cls.__call__`` if it is ``python_call`` now (not a profiler's
    or a test's wrapper); True when the native call is (now) in place."""
    if not AVAILABLE:
        return False
    with SWITCH:
        if "descriptor" not in _installed:
            offset = slot_offset(cls, slot)
            if offset is None:
                return False
            address, keep = dispatcher(offset, python_call)
            name = ctypes.c_char_p(b"__call__")
            # PyMethodDef: name, function, flags, doc
            methoddef = (ctypes.c_void_p * 4)(ctypes.cast(name, ctypes.c_void_p).value, address,
                                              METH_FASTCALL | METH_KEYWORDS, 0)
            new = ctypes.pythonapi.PyDescr_NewMethod
            new.restype, new.argtypes = ctypes.py_object, [ctypes.py_object, ctypes.c_void_p]
            _installed.update(descriptor=new(cls, methoddef), keep=(keep, methoddef, name))
        if cls.__dict__.get("__call__") is python_call:
            cls.__call__ = _installed["descriptor"]
        return cls.__dict__.get("__call__") is _installed["descriptor"]


# What the dispatcher calls and compares with, by address, read from ``ENV_SYMBOL`` at run time:
# the code has no address of this process in it, so the disk cache's object code serves every
# process (the object cache's key holds the offsets, which the code holds as constants).
_CONSTANTS = 9  # an entry's first constant word (after the eight above and their count)
_ENV = ("ndarray", "None", "tuple", "dict", "str", "Table", "TRACING", "python_call", "PyArray_NewFromDescr",
        "PyArray_Return",
        "Py_IncRef",
        "Py_DecRef",
        "PyEval_SaveThread", "PyEval_RestoreThread", "PyTuple_New", "PyTuple_SetItem", "PyTuple_Size",
        "PyObject_Vectorcall", "PyLong_AsLongLongAndOverflow", "PyObject_RichCompareBool",
        "PyUnicode_Compare", "PyErr_Clear", "PyObject_GenericGetDict", "PyDict_Size", "PyDict_GetItem",
        "_PyType_Lookup", "PyDict_Next", "PyArray_Scalar", "PyList_New", "PyList_SetItem", "PyDict_New",
        "PyDict_SetItem", "PyErr_SetString", "UnsupportedError", "PyArray_Newshape", "to_python",
        "PyLong_FromVoidPtr")
ENV_SYMBOL = "jitcore_native_call_env"
# LLVM's pipeline level for the dispatcher: scalar loads, compares and branches, which O1 makes
# as fast as O3 (tools/bench_dispatch.py) in about two thirds of the compile, paid once per
# process where the disk cache is off (session 55).
LEVEL = 1
_NAME = "jitcore_native_call"
_NOT_HANDLED = 1  # what the entries' search returns when no entry matched (never an object's address)


def dispatcher(slot: int, python_call) -> tuple[int, object]:
    """Load the dispatcher for ``JitFunction``s whose table is at ``slot`` (compiled, or its
    object code from the disk cache); its address and what must live as long as it."""
    import llvmlite.binding as llvm

    from jitcore.codegen.backend import backend_for

    addresses = dict(ndarray=ARRAY_TYPE, None_=id(None), tuple=id(tuple), dict=id(dict), str=id(str),
                     Table=id(Table), TRACING=ctypes.addressof(TRACING), python_call=id(python_call),
                     UnsupportedError=id(UnsupportedError), to_python=id(_TO_PYTHON), **_LAYOUT["api"])
    addresses["None"] = addresses.pop("None_")
    env = (ctypes.c_int64 * len(_ENV))(*(addresses[n] if n in addresses else _api(n) for n in _ENV))
    llvm.add_symbol(ENV_SYMBOL, ctypes.addressof(env))
    # What the IR is made from (the code's own version is in the object cache's key).
    offsets = sorted((k, v) for k, v in _LAYOUT.items() if k != "api")  # the api's: addresses, in the env
    stat = os.stat(__file__)  # this module emits the code: its own version
    source = (f"native call: slot {slot} layout {offsets} env {_ENV} python {sys.version} "
              f"emitter {stat.st_size} {stat.st_mtime_ns} level {LEVEL}")
    address = backend_for("cpu").load_support(_NAME, source, lambda: str(_emit(slot)), LEVEL)
    return address, (env, python_call)


def _emit(slot: int) -> ir.Module:
    """The dispatcher (see the module's docstring) as LLVM IR."""
    module = ir.Module("native_call")
    signature = ir.FunctionType(_ptr, [_ptr, _pptr, _i64, _ptr])
    fn = ir.Function(module, signature, _NAME)
    search = ir.Function(module, signature, _NAME + "_entries")
    search.linkage = "internal"
    env_global = ir.GlobalVariable(module, ir.ArrayType(_i64, len(_ENV)), ENV_SYMBOL)
    env_global.linkage = "external"
    _Emitter(search, env_global, slot).module_of()
    _Emitter(fn, env_global, slot).instance_prologue(search)
    return module


class _Emitter:
    """Builds the dispatcher's body: argument checks, the run, the Python fallback."""

    def __init__(self, fn: ir.Function, env: ir.GlobalVariable, slot: int):
        self.fn, self.env, self.slot = fn, env, slot
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.null = ir.Constant(_ptr, None)

    def module_of(self) -> ir.Module:
        b, layout = self.b, _LAYOUT
        self_, args, nargs, kwnames = self.fn.args
        fallback = self.block("fallback")
        # The function's table (unset: NULL; anything else set there: not a Table) or a running
        # trace: the Python call.
        state = b.load(self.at(self_, self.slot, _ptr))
        self.branch(b.icmp_unsigned("!=", state, self.null), "typed", fallback)
        self.branch(b.icmp_unsigned("==", b.load(self.at(state, _WORD, _ptr)), self.address("Table")),
                    "untraced", fallback)
        tracing = b.load(b.inttoptr(b.ptrtoint(self.address("TRACING"), _i64), _wptr))
        self.branch(b.icmp_signed("==", tracing, _c(0)), "search", fallback)
        # The keyword names (CPython's vectorcall: their values follow the positional ones).
        n_kw = self.var(_c(0))
        with b.if_then(b.icmp_unsigned("!=", kwnames, self.null)):
            b.store(b.load(self.at(kwnames, layout["tuple_size"], _i64)), n_kw)
        n_kw = b.load(n_kw)
        names = self.at(kwnames, layout["tuple_items"], _ptr)
        tab = b.inttoptr(b.load(self.at(state, layout["buffer"], _i64)), _wptr)
        count = self.word(tab, _c(0))
        values = b.alloca(_ptr, b.add(b.add(nargs, n_kw), _c(MAX_READS + MAX_ITEMS)))  # flat, then reads
        e_i, cursor, entry = self.var(_c(0)), self.var(_c(0)), _local(b, _wptr)
        next_entry = self.block("entries")
        b.branch(next_entry)

        # Each entry in turn: its keyword names, then its arguments one by one, against the call's.
        b.position_at_end(next_entry)
        i = b.load(e_i)
        self.branch(b.icmp_signed("<", i, count), "entry_test", fallback)
        e = b.inttoptr(self.word(tab, b.add(i, _c(3))), _wptr)
        b.store(e, entry)
        b.store(b.add(i, _c(1)), e_i)
        self.branch(b.icmp_signed("==", self.word(e, _c(0)), nargs), "positional", next_entry)
        keywords_at = self.keywords_at(e)
        self.branch(b.icmp_signed("==", self.word(e, keywords_at), n_kw), "keywords", next_entry)
        b.store(self.specs_at(e), cursor)
        arguments = self.block("arguments")
        name_of = lambda k: self.word(e, b.add(keywords_at, b.add(k, _c(1))))  # noqa: E731
        self.loop(n_kw, lambda k: self.same_name(b.load(b.gep(names, [k])), name_of(k), next_entry),
                  done=arguments)
        b.position_at_end(arguments)
        reads = self.block("reads")
        given = b.add(nargs, n_kw)
        # Container arguments: their items in their place, in ``values``, one level of nesting
        # a pass (each pass expands the values the last one left, from a copy of them).
        containers_at = self.containers_at(e)
        n_passes = self.word(e, b.add(containers_at, _c(1)))
        has_containers = b.icmp_signed(">", n_passes, _c(0))
        flat = self.var(given)
        with b.if_then(has_containers):
            scratch = b.alloca(_ptr, b.add(given, _c(MAX_ITEMS)))
            pass_at = self.var(b.add(containers_at, _c(2)))

            def expand_pass(p):
                count = b.load(flat)
                with b.if_then(b.icmp_signed(">", p, _c(0))):
                    self.loop(count, lambda k: b.store(b.load(b.gep(values, [k])), b.gep(scratch, [k])))
                source = b.select(b.icmp_signed(">", p, _c(0)), scratch, args)
                at = b.load(pass_at)
                n_containers = self.word(e, at)
                b.store(self.expand(source, count, e, at, n_containers, values, next_entry), flat)
                b.store(b.add(at, b.add(b.mul(n_containers, _c(3)), _c(1))), pass_at)

            self.loop(n_passes, expand_pass)
        flat = b.load(flat)
        base = b.select(has_containers, values, args)
        self.loop(flat, lambda a: self.match(base, a, e, cursor, next_entry), done=reads)

        # The call-time inputs (globals, cells, defaults), after the call's own arguments in
        # ``values``, matched as they are; borrowed, then held while the call runs.
        b.position_at_end(reads)
        reads_at = self.reads_at(e)
        n_reads = self.word(e, reads_at)
        n_drawn, failed_read = self.var(_c(0)), self.var(_c(0))  # draws made; the read that failed
        draw_failed, draw_unlike = self.block("draw_failed"), self.block("draw_unlike")
        hold_from = b.select(has_containers, _c(0), flat)  # a container's items, and the reads
        hold = lambda k: self.call("Py_IncRef", ir.VoidType(), b.load(b.gep(values, [k])))  # noqa: E731
        with b.if_then(b.icmp_signed(">", n_reads, _c(0))):
            with b.if_then(b.not_(has_containers)):
                self.loop(given, lambda a: b.store(b.load(b.gep(args, [a])), b.gep(values, [a])))

            def read(r):
                at = b.add(reads_at, b.add(b.mul(r, _c(3)), _c(1)))
                kind, container = self.word(e, at), b.inttoptr(self.word(e, b.add(at, _c(1))), _ptr)
                slot = b.gep(values, [b.add(flat, r)])
                with b.if_else(b.icmp_signed("==", kind, _c(READ_DRAW))) as (draw, plain):
                    with draw:  # a new reference, its own (not held again in ``run``)
                        # Before the first draw, what the call read is held (``run`` holds it
                        # otherwise): a sampler may let other threads run (NumPy's generator
                        # lock), which may drop a container's item or rebind a global.
                        with b.if_then(b.icmp_signed("==", b.load(n_drawn), _c(0))):
                            self.loop(b.sub(b.add(flat, r), hold_from), lambda k: hold(b.add(hold_from, k)))
                        value = self.call("PyObject_Vectorcall", _ptr, container, ir.Constant(_pptr, None),
                                          _c(0), self.null)
                        b.store(r, failed_read)
                        self.branch(b.icmp_unsigned("!=", value, self.null), "drawn", draw_failed)
                        b.store(value, slot)
                        b.store(b.add(b.load(n_drawn), _c(1)), n_drawn)
                        self.match(values, b.add(flat, r), e, cursor, draw_unlike)
                    with plain:
                        value = self.read_input(kind, container, self.word(e, b.add(at, _c(2))))
                        self.branch(b.icmp_unsigned("!=", value, self.null), "read", next_entry)
                        b.store(value, slot)
                        self.match(values, b.add(flat, r), e, cursor, next_entry)

            self.loop(n_reads, read)
        source = b.select(b.or_(has_containers, b.icmp_signed(">", n_reads, _c(0))), values, args)
        result = self.run(b.load(entry), state, tab, source, b.add(flat, n_reads), cursor, hold_from,
                          b.load(n_drawn))
        b.ret(result)

        # A draw that failed (its exception set) or returned another array than the code's: the
        # call raises (the Python path would draw again), releasing what it held and the draws
        # made, the last ones read.
        b.position_at_end(draw_unlike)
        error = self.address("UnsupportedError")
        self.call("PyErr_SetString", ir.VoidType(), error, self.message(_DRAW_UNLIKE))
        b.store(b.add(b.load(failed_read), _c(1)), failed_read)  # (this one made, and counted)
        b.branch(draw_failed)
        b.position_at_end(draw_failed)
        held_to = b.add(flat, b.load(failed_read))  # (past the draws made)
        held = lambda k: b.load(b.gep(values, [b.add(hold_from, k)]))  # noqa: E731
        self.loop(b.sub(held_to, hold_from), lambda k: self.call("Py_DecRef", ir.VoidType(), held(k)))
        b.ret(self.null)

        b.position_at_end(fallback)
        b.ret(b.inttoptr(_c(_NOT_HANDLED), _ptr))  # the caller calls Python, with the call's own arguments
        return self.fn.module

    def instance_prologue(self, search: ir.Function) -> None:
        """The dispatcher itself: for a method's table (its ``instance`` word set), the call's
        first argument replaced by its instance's attributes (the class and the attribute names
        checked; each held by a reference of its own while the kernel runs, as the caller holds
        the arguments), then ``search`` (the entries); where that finds none, the Python call."""
        b = self.b
        self_, args, nargs, kwnames = self.fn.args
        fallback, plain, done = self.block("fallback"), self.block("plain"), self.block("done")
        state = b.load(self.at(self_, self.slot, _ptr))
        self.branch(b.icmp_unsigned("!=", state, self.null), "typed", plain)
        self.branch(b.icmp_unsigned("==", b.load(self.at(state, _WORD, _ptr)), self.address("Table")),
                    "table", plain)
        tab = b.inttoptr(b.load(self.at(state, _LAYOUT["buffer"], _i64)), _wptr)
        spec = b.inttoptr(self.word(tab, _c(1)), _wptr)
        self.branch(b.icmp_unsigned("!=", spec, ir.Constant(_wptr, None)), "method", plain)
        self.branch(b.icmp_signed(">=", nargs, _c(1)), "has_self", fallback)
        obj = b.load(args)
        # A classmethod's table (its own-attribute count -1): the first argument is the class.
        of_class = b.icmp_signed("<", self.word(spec, _c(1)), _c(0))
        cls = b.select(of_class, b.ptrtoint(obj, _i64), b.ptrtoint(b.load(self.at(obj, _WORD, _ptr)), _i64))
        self.branch(b.icmp_unsigned("==", cls, self.word(spec, _c(0))), "same_class", fallback)
        n_own = b.select(of_class, _c(0), self.word(spec, _c(1)))
        n_attr = b.add(n_own, self.word(spec, _c(2)))
        attributes = _local(b, _ptr)
        b.store(self.null, attributes)
        no_dict = self.block("no_dict")
        with b.if_then(b.not_(of_class)):
            held = self.call("PyObject_GenericGetDict", _ptr, obj, self.null)
            self.branch(b.icmp_unsigned("!=", held, self.null), "has_dict", no_dict)
            self.call("Py_DecRef", ir.VoidType(), held)  # the instance holds it
            b.store(held, attributes)
            self.branch(b.icmp_signed("==", self.call("PyDict_Size", _i64, held), n_own), "same_size",
                        fallback)
        attributes = b.load(attributes)
        n_kw = self.var(_c(0))
        with b.if_then(b.icmp_unsigned("!=", kwnames, self.null)):
            b.store(b.load(self.at(kwnames, _LAYOUT["tuple_size"], _i64)), n_kw)
        rest = b.add(b.sub(nargs, _c(1)), b.load(n_kw))  # the other arguments, keywords' values too
        values = b.alloca(_ptr, b.add(n_attr, rest))

        def attribute(k):
            name = b.inttoptr(self.word(spec, b.add(k, _c(3))), _ptr)
            found = _local(b, _ptr)
            with b.if_else(b.icmp_signed("<", k, n_own)) as (own, of_the_class):
                with own:  # borrowed, as the other
                    b.store(self.call("PyDict_GetItem", _ptr, attributes, name), found)
                with of_the_class:
                    b.store(self.call("_PyType_Lookup", _ptr, b.inttoptr(cls, _ptr), name), found)
            value = b.load(found)
            self.branch(b.icmp_unsigned("!=", value, self.null), "found", fallback)
            b.store(value, b.gep(values, [k]))

        self.loop(n_attr, attribute)
        self.loop(rest, lambda k: b.store(b.load(b.gep(args, [b.add(k, _c(1))])),
                                          b.gep(values, [b.add(n_attr, k)])))
        # The dict may drop an attribute (another thread) while the kernel runs without the GIL.
        self.loop(n_attr, lambda k: self.call("Py_IncRef", ir.VoidType(), b.load(b.gep(values, [k]))))
        by_method = b.call(search, [self_, values, b.add(n_attr, b.sub(nargs, _c(1))), kwnames])
        self.loop(n_attr, lambda k: self.call("Py_DecRef", ir.VoidType(), b.load(b.gep(values, [k]))))
        from_method = b.block
        b.branch(done)
        b.position_at_end(no_dict)
        self.call("PyErr_Clear", ir.VoidType())
        b.branch(fallback)
        b.position_at_end(plain)
        by_function = b.call(search, [self_, args, nargs, kwnames])
        b.branch(done)
        b.position_at_end(done)
        result = b.phi(_ptr)
        result.add_incoming(by_method, from_method)
        result.add_incoming(by_function, plain)
        self.branch(b.icmp_unsigned("!=", b.ptrtoint(result, _i64), _c(_NOT_HANDLED)), "handled", fallback)
        b.ret(result)
        b.position_at_end(fallback)
        b.ret(self.python_call(self_, args, nargs, kwnames))

    # -- the parts --------------------------------------------------------------------------
    def keywords_at(self, e) -> ir.Value:
        """The index of an entry's keyword count (after its constants)."""
        return self.b.add(_c(_CONSTANTS), self.word(e, _c(_CONSTANTS - 1)))

    def reads_at(self, e) -> ir.Value:
        """The index of an entry's count of call-time reads (after its keyword names)."""
        keywords_at = self.keywords_at(e)
        return self.b.add(keywords_at, self.b.add(self.word(e, keywords_at), _c(1)))

    def containers_at(self, e) -> ir.Value:
        """The index of the length of an entry's container section (after its reads, three words
        each): the count of passes, then per pass its count of containers and three words each."""
        reads_at = self.reads_at(e)
        return self.b.add(reads_at, self.b.add(self.b.mul(self.word(e, reads_at), _c(3)), _c(1)))

    def specs_at(self, e) -> ir.Value:
        """The index of an entry's first argument's words (after its container section)."""
        at = self.containers_at(e)
        return self.b.add(at, self.b.add(self.word(e, at), _c(1)))

    def expand(self, args, given, e, containers_at, n_containers, values, mismatch) -> ir.Value:
        """The ``given`` values (the call's, or those the last pass left) into ``values`` with
        each of the pass's containers (a tuple, list or dict of exactly its type and length or
        keys, else ``mismatch``) replaced by its items; their count."""
        b, layout = self.b, _LAYOUT
        to, next_container = self.var(_c(0)), self.var(_c(0))

        def one(s):
            c = b.load(next_container)
            at = b.add(containers_at, b.add(b.mul(c, _c(3)), _c(1)))
            position = b.select(b.icmp_signed("<", c, n_containers), self.word(e, at), _c(-1))
            obj = b.load(b.gep(args, [s]))
            with b.if_else(b.icmp_signed("==", s, position)) as (container, plain):
                with container:
                    kind = b.ptrtoint(b.load(self.at(obj, _WORD, _ptr)), _i64)
                    self.branch(b.icmp_unsigned("==", kind, self.word(e, b.add(at, _c(1)))), "container_type",
                                mismatch)
                    start = b.load(to)
                    is_dict = b.icmp_unsigned("==", kind, b.ptrtoint(self.address("dict"), _i64))
                    with b.if_else(is_dict) as (mapping, sequence):
                        with mapping:  # exactly the entry's keys, in its order (pytree's: the dict's own)
                            names = b.inttoptr(self.word(e, b.add(at, _c(2))), _wptr)
                            count = self.word(names, _c(0))
                            self.branch(b.icmp_signed("==", self.call("PyDict_Size", _i64, obj), count),
                                        "dict_size", mismatch)
                            # PyDict_Next runs no Python code, and each key is an exact str before
                            # it is compared, so no key's __eq__ runs either; items are borrowed
                            # (held in run)
                            position, key, value = _local(b, _i64), _local(b, _ptr), _local(b, _ptr)
                            b.store(_c(0), position)

                            def item(k):
                                more = self.call("PyDict_Next", ir.IntType(32), obj, position, key, value)
                                self.branch(b.icmp_signed("!=", more, ir.Constant(ir.IntType(32), 0)),
                                            "dict_next", mismatch)
                                kind = b.load(self.at(b.load(key), _WORD, _ptr))
                                self.branch(b.icmp_unsigned("==", kind, self.address("str")), "dict_key",
                                            mismatch)
                                self.same_name(b.load(key), self.word(names, b.add(k, _c(1))), mismatch)
                                b.store(b.load(value), b.gep(values, [b.add(start, k)]))

                            self.loop(count, item)
                            b.store(b.add(start, count), to)
                        with sequence:
                            length = self.word(e, b.add(at, _c(2)))
                            subclass = b.icmp_signed("<", length, _c(0))  # a named tuple: a tuple's layout
                            length = b.select(subclass, b.sub(_c(-1), length), length)
                            size = b.load(self.at(obj, layout["tuple_size"], _i64))  # a list's too (ob_size)
                            self.branch(b.icmp_signed("==", size, length), "container_length", mismatch)
                            exactly = b.icmp_unsigned("==", kind, b.ptrtoint(self.address("tuple"), _i64))
                            is_tuple = b.or_(exactly, subclass)
                            inline = b.bitcast(b.gep(obj, [_c(layout["tuple_items"])]), _pptr)
                            listed = layout.get("list_items", layout["tuple_items"])  # (lists: where found)
                            items = b.select(is_tuple, inline, b.load(self.at(obj, listed, _pptr)))
                            self.loop(length, lambda k: b.store(b.load(b.gep(items, [k])),
                                                                b.gep(values, [b.add(start, k)])))
                            b.store(b.add(start, length), to)
                    b.store(b.add(c, _c(1)), next_container)
                with plain:
                    b.store(obj, b.gep(values, [b.load(to)]))
                    b.store(b.add(b.load(to), _c(1)), to)

        self.loop(given, one)
        return b.load(to)

    def read_input(self, kind, container, name) -> ir.Value:
        """A call-time input's value, borrowed, or NULL where it is missing: ``container[name]``
        of a dict (a module's globals), a cell's value, a function's ``__defaults__[name]`` or
        ``__kwdefaults__[name]``, a list's or tuple's item ``name`` (past its end: missing)."""
        b, layout = self.b, _LAYOUT
        found = _local(b, _ptr)
        b.store(self.null, found)
        with b.if_then(b.icmp_signed("==", kind, _c(READ_DICT))):
            b.store(self.call("PyDict_GetItem", _ptr, container, b.inttoptr(name, _ptr)), found)
        if "cell_ref" in layout:
            with b.if_then(b.icmp_signed("==", kind, _c(READ_CELL))):
                b.store(b.load(self.at(container, layout["cell_ref"], _ptr)), found)
        if "func_defaults" in layout:
            with b.if_then(b.icmp_signed("==", kind, _c(READ_DEFAULT))):
                defaults = b.load(self.at(container, layout["func_defaults"], _ptr))  # a tuple or NULL
                with b.if_then(b.icmp_unsigned("!=", defaults, self.null)):
                    size = b.load(self.at(defaults, layout["tuple_size"], _i64))
                    with b.if_then(b.icmp_signed("<", name, size)):
                        items = self.at(defaults, layout["tuple_items"], _ptr)
                        b.store(b.load(b.gep(items, [name])), found)
        if "func_kwdefaults" in layout:
            with b.if_then(b.icmp_signed("==", kind, _c(READ_KWDEFAULT))):
                defaults = b.load(self.at(container, layout["func_kwdefaults"], _ptr))  # a dict or NULL
                with b.if_then(b.icmp_unsigned("!=", defaults, self.null)):
                    b.store(self.call("PyDict_GetItem", _ptr, defaults, b.inttoptr(name, _ptr)), found)
        with b.if_then(b.icmp_signed("==", kind, _c(READ_TUPLE_ITEM))):
            size = b.load(self.at(container, layout["tuple_size"], _i64))
            with b.if_then(b.icmp_signed("<", name, size)):
                b.store(b.load(b.gep(self.at(container, layout["tuple_items"], _ptr), [name])), found)
        if "list_items" in layout:
            with b.if_then(b.icmp_signed("==", kind, _c(READ_LIST_ITEM))):
                size = b.load(self.at(container, layout["tuple_size"], _i64))  # (``ob_size``: the same word)
                with b.if_then(b.icmp_signed("<", name, size)):
                    items = b.load(self.at(container, layout["list_items"], _pptr))
                    b.store(b.load(b.gep(items, [name])), found)
        return b.load(found)

    def same_name(self, name, expected, mismatch) -> None:
        """A keyword name is the entry's (the same string object, as names written in the call
        are: interned; else equal, as ``**kwargs`` built at run time may give), else ``mismatch``."""
        b = self.b
        expected = b.inttoptr(expected, _ptr)
        with b.if_then(b.icmp_unsigned("!=", name, expected)):
            order = self.call("PyUnicode_Compare", _i32, name, expected)
            with b.if_then(b.icmp_signed("<", order, ir.Constant(_i32, 0))):  # less, or not a string
                self.call("PyErr_Clear", ir.VoidType())
            self.branch(b.icmp_signed("==", order, ir.Constant(_i32, 0)), "name_equal", mismatch)

    def after(self, c, kind) -> ir.Value:
        """The index past an argument's words that start at ``c``, whose kind word is ``kind``."""
        b = self.b
        strided = b.icmp_signed(">=", kind, _c(STRIDED))
        rank = b.select(strided, b.sub(kind, _c(STRIDED)), kind)
        array_words = b.select(strided, b.add(rank, rank), rank)
        number_words = b.select(b.icmp_signed("==", kind, _c(INT)), _c(2),
                                b.select(b.icmp_signed("==", kind, _c(STATIC)), _c(2), _c(0)))
        return b.add(c, b.add(_c(3), b.select(b.icmp_signed("<", kind, _c(0)), number_words, array_words)))

    def match(self, args, a, e, cursor, mismatch) -> None:
        """Argument ``a`` has the entry's type, dtype, rank, flag and extents (else ``mismatch``),
        for a number the entry's type, for a static argument the entry's value; the cursor
        moves past its words."""
        b, layout = self.b, _LAYOUT
        obj, c = b.load(b.gep(args, [a])), b.load(cursor)
        nd = self.word(e, b.add(c, _c(1)))
        b.store(self.after(c, nd), cursor)
        kind = b.load(self.at(obj, _WORD, _ptr))
        with b.if_else(b.icmp_signed("<", nd, _c(0))) as (number, array):
            with number:
                self.branch(b.icmp_unsigned("==", b.ptrtoint(kind, _i64), self.word(e, c)), "is_number",
                            mismatch)
                with b.if_then(b.icmp_signed("==", nd, _c(INT))):
                    value, fits = self.int_value(obj)
                    inside = b.and_(b.icmp_signed(">=", value, self.word(e, b.add(c, _c(3)))),
                                    b.icmp_signed("<=", value, self.word(e, b.add(c, _c(4)))))
                    self.branch(b.and_(fits, inside), "int_inside", mismatch)
                with b.if_then(b.icmp_signed("==", nd, _c(STATIC))):
                    self.same_value(obj, b.inttoptr(self.word(e, b.add(c, _c(3))), _ptr),
                                    self.word(e, b.add(c, _c(4))), mismatch)
            with array:
                self.branch(b.icmp_unsigned("==", kind, self.address("ndarray")), "is_array", mismatch)
                strided = b.icmp_signed(">=", nd, _c(STRIDED))
                nd = b.select(strided, b.sub(nd, _c(STRIDED)), nd)
                descr = b.ptrtoint(b.load(self.at(obj, layout["descr"], _ptr)), _i64)
                rank = b.sext(b.load(self.at(obj, layout["nd"], _i32)), _i64)
                flags = b.load(self.at(obj, layout["flags"], _i32))
                zero = ir.Constant(_i32, 0)
                contiguous = b.icmp_unsigned("!=", b.and_(flags, ir.Constant(_i32, C_CONTIGUOUS)), zero)
                aligned = b.icmp_unsigned("!=", b.and_(flags, ir.Constant(_i32, ALIGNED)), zero)
                layout_ok = b.or_(contiguous, b.and_(strided, aligned))  # (unaligned: the Python path copies)
                same = b.and_(b.and_(b.icmp_unsigned("==", descr, self.word(e, c)),
                                     b.icmp_signed("==", rank, nd)), layout_ok)
                self.branch(same, "header_same", mismatch)
                dims = b.load(self.at(obj, layout["dims"], _wptr))

                def extent(d):
                    expected = self.word(e, b.add(c, b.add(d, _c(3))))
                    self.branch(b.icmp_signed("==", b.load(b.gep(dims, [d])), expected), "extent_same",
                                mismatch)

                self.loop(nd, extent)
                with b.if_then(strided):  # the same strides, byte for byte
                    steps = b.load(self.at(obj, layout["strides"], _wptr))

                    def stride(d):
                        expected = self.word(e, b.add(c, b.add(b.add(nd, d), _c(3))))
                        self.branch(b.icmp_signed("==", b.load(b.gep(steps, [d])), expected), "stride_same",
                                    mismatch)

                    self.loop(nd, stride)

    def same_value(self, obj, expected, nbytes, mismatch) -> None:
        """A static argument (of the entry's exact type) equals the entry's value, else
        ``mismatch``: its ``nbytes`` bytes of value (a float, complex or NumPy scalar: -0.0 is
        not 0.0, a NaN is a NaN), or with no bytes (an int, bool or str) by
        ``PyObject_RichCompareBool`` (identity first), the comparison the keys make; with -1
        bytes (``Same``), by identity alone."""
        b = self.b
        with b.if_else(b.icmp_signed("<", nbytes, _c(0))) as (by_identity, otherwise):
            with by_identity:
                self.branch(b.icmp_unsigned("==", obj, expected), "same_object", mismatch)
            with otherwise:
                with b.if_else(b.icmp_signed(">", nbytes, _c(0))) as (by_bytes, by_value):
                    with by_bytes:
                        mine, theirs = (b.gep(v, [_c(SCALAR_VALUE)]) for v in (obj, expected))
                        self.loop(nbytes, lambda k: self.branch(
                            b.icmp_unsigned("==", b.load(b.gep(mine, [k])), b.load(b.gep(theirs, [k]))),
                            "byte_same", mismatch))
                    with by_value:
                        py_eq = ir.Constant(_i32, 2)
                        equal = self.call("PyObject_RichCompareBool", _i32, obj, expected, py_eq)
                        with b.if_then(b.icmp_signed("<", equal, ir.Constant(_i32, 0))):  # (never, for these)
                            self.call("PyErr_Clear", ir.VoidType())
                        self.branch(b.icmp_signed("==", equal, ir.Constant(_i32, 1)), "static_same", mismatch)

    def arguments(self, e, args, nargs, desc) -> None:
        """The descriptor's argument words, each at its kernel argument's place: an array's
        object (the kernel reads its header), for a number the address of a header made here
        whose data pointer is the number's value inside its object (read-only, and alive: the
        caller holds the arguments); a static argument has none."""
        b = self.b
        headers = b.alloca(_i64, b.mul(nargs, _c(_HEADER_WORDS)))
        ints = b.alloca(_i64, nargs)  # the converted ints' values
        c = self.var(self.specs_at(e))

        def argument(k):
            obj, at = b.load(b.gep(args, [k])), b.load(c)
            nd, dest = self.word(e, b.add(at, _c(1))), self.word(e, b.add(at, _c(2)))
            b.store(self.after(at, nd), c)
            with b.if_else(b.icmp_signed("<", nd, _c(0))) as (number, array):
                with number:
                    with b.if_then(b.icmp_signed("!=", nd, _c(STATIC))):
                        header = b.gep(headers, [b.mul(k, _c(_HEADER_WORDS))])
                        for w in range(_HEADER_WORDS):  # rank 0, no extents, no strides
                            b.store(_c(0), b.gep(header, [_c(w)]))
                        is_int = b.icmp_signed("==", nd, _c(INT))
                        slot = b.gep(ints, [k])
                        with b.if_then(is_int):
                            b.store(self.int_value(obj)[0], slot)
                        inside = b.add(b.ptrtoint(obj, _i64), _c(SCALAR_VALUE))
                        value = b.select(is_int, b.ptrtoint(slot, _i64), inside)
                        b.store(value, b.gep(header, [_c(_LAYOUT["data"] // _WORD)]))
                        b.store(b.ptrtoint(header, _i64), b.gep(desc, [dest]))
                with array:
                    b.store(b.ptrtoint(obj, _i64), b.gep(desc, [dest]))

        self.loop(nargs, argument)

    def writable_and_apart(self, e, desc, writes_at, n_writes, spans_at, n_spans) -> None:
        """Each argument written in place is writeable and shares no memory with another array
        argument (NumPy's bounds, as ``np.may_share_memory``), else ``_NOT_HANDLED``: the Python
        path raises its error, having written nothing."""
        b = self.b
        unhandled = self.block("unhandled")
        data = lambda k: b.ptrtoint(b.load(self.at(b.inttoptr(b.load(b.gep(desc, [k])), _ptr),  # noqa: E731
                                                   _LAYOUT["data"], _ptr)), _i64)

        def writeable(w):
            argument = self.word(e, b.add(writes_at, b.add(b.mul(w, _c(3)), _c(1))))
            obj = b.inttoptr(b.load(b.gep(desc, [argument])), _ptr)
            flags = b.load(self.at(obj, _LAYOUT["flags"], _i32))
            zero = ir.Constant(_i32, 0)
            self.branch(b.icmp_unsigned("!=", b.and_(flags, ir.Constant(_i32, WRITEABLE)), zero), "writeable",
                        unhandled)

        self.loop(n_writes, writeable)
        span = lambda s, f: self.word(e, b.add(spans_at, b.add(b.mul(s, _c(4)), _c(1 + f))))  # noqa: E731

        def apart(s):
            with b.if_then(b.icmp_signed("!=", span(s, 3), _c(0))):  # a written one, against all others
                base_s = data(span(s, 0))
                lo_s, hi_s = b.add(base_s, span(s, 1)), b.add(base_s, span(s, 2))

                def other(t):
                    with b.if_then(b.icmp_signed("!=", s, t)):
                        base_t = data(span(t, 0))
                        lo_t, hi_t = b.add(base_t, span(t, 1)), b.add(base_t, span(t, 2))
                        overlap = b.and_(b.icmp_unsigned("<", lo_s, hi_t), b.icmp_unsigned("<", lo_t, hi_s))
                        self.branch(b.not_(overlap), "apart", unhandled)

                self.loop(n_spans, other)

        self.loop(n_spans, apart)
        go_on = self.block("checked")
        b.branch(go_on)
        b.position_at_end(unhandled)
        b.ret(b.inttoptr(_c(_NOT_HANDLED), _ptr))
        b.position_at_end(go_on)

    def int_value(self, obj) -> tuple[ir.Value, ir.Value]:
        """A Python int's value as an int64, and whether it fits (no overflow)."""
        b = self.b
        overflow = _local(b, _i32)
        b.store(ir.Constant(_i32, 0), overflow)
        value = self.call("PyLong_AsLongLongAndOverflow", _i64, obj, overflow)
        return value, b.icmp_signed("==", b.load(overflow), ir.Constant(_i32, 0))

    def run(self, e, state, tab, args, nargs, cursor, given, drawn) -> ir.Value:
        """Check the arguments written in place, allocate the results, fill the descriptor,
        call the kernel without the GIL, copy the new values of written arguments in; the
        result (a new reference), NULL with an exception set, or ``_NOT_HANDLED`` (a written
        argument read-only or sharing memory: the Python path raises its error). ``nargs``: the
        call's arguments, positional and keyword (``given``), then its call-time inputs, the
        last ``drawn`` of them new references of the call's own (random draws; the values
        before them held already)."""
        b = self.b
        kernel_args, n_buf = self.word(e, _c(2)), self.word(e, _c(3))
        raiser = b.inttoptr(self.word(e, _c(5)), _ptr)
        has_status = b.icmp_unsigned("!=", raiser, self.null)
        n_const = self.word(e, _c(_CONSTANTS - 1))
        n_desc = b.add(b.add(kernel_args, n_buf), b.add(b.zext(has_status, _i64), n_const))
        desc, outs = b.alloca(_i64, n_desc), b.alloca(_ptr, b.add(n_buf, _c(1)))
        made = self.var(_c(0))
        self.arguments(e, args, nargs, desc)
        writes_at = b.load(cursor)
        n_writes = self.word(e, writes_at)
        spans_at = b.add(writes_at, b.add(b.mul(n_writes, _c(3)), _c(1)))
        n_spans = self.word(e, spans_at)
        buffers_at = b.add(spans_at, b.add(b.mul(n_spans, _c(4)), _c(1)))
        b.store(buffers_at, cursor)
        self.writable_and_apart(e, desc, writes_at, n_writes, spans_at, n_spans)
        self.call("Py_IncRef", ir.VoidType(), state)  # the slot may change while the GIL is free
        hold = lambda k: self.call("Py_IncRef", ir.VoidType(), b.load(b.gep(args, [b.add(given, k)])))  # noqa: E731
        with b.if_then(b.icmp_signed("==", drawn, _c(0))):  # (else held before the first draw)
            self.loop(b.sub(nargs, given), hold)  # the reads: a global may be rebound meanwhile
        failed = self.block("failed")

        def allocate(k):
            c = b.load(cursor)
            descr, nd = b.inttoptr(self.word(e, c), _ptr), self.word(e, b.add(c, _c(2)))
            self.call("Py_IncRef", ir.VoidType(), descr)  # PyArray_NewFromDescr steals it
            out = self.call("PyArray_NewFromDescr", _ptr, self.address("ndarray"), descr, b.trunc(nd, _i32),
                            b.gep(e, [b.add(c, _c(3))]), ir.Constant(_wptr, None), self.null,
                            ir.Constant(_i32, 0), self.null)
            self.branch(b.icmp_unsigned("!=", out, self.null), "made", failed)
            b.store(out, b.gep(outs, [k]))
            b.store(b.add(k, _c(1)), made)
            b.store(b.ptrtoint(out, _i64), b.gep(desc, [b.add(kernel_args, k)]))
            b.store(b.add(c, b.add(nd, _c(3))), cursor)

        self.loop(n_buf, allocate)
        # Status words (flag, index, axis, size), zeroed, when the code records errors in them.
        status = _local(b, _ptr)
        b.store(self.null, status)
        status_at = b.add(kernel_args, n_buf)
        with b.if_then(has_status):
            int64 = b.inttoptr(self.word(e, _c(6)), _ptr)
            self.call("Py_IncRef", ir.VoidType(), int64)
            words = self.call("PyArray_NewFromDescr", _ptr, self.address("ndarray"), int64,
                              ir.Constant(_i32, 1), b.gep(e, [_c(7)]), ir.Constant(_wptr, None), self.null,
                              ir.Constant(_i32, 0), self.null)
            b.store(words, status)
            self.branch(b.icmp_unsigned("!=", words, self.null), "status_made", failed)
            data = b.load(self.at(words, _LAYOUT["data"], _wptr))
            for k in range(4):
                b.store(_c(0), b.gep(data, [_c(k)]))
            b.store(b.ptrtoint(words, _i64), b.gep(desc, [status_at]))
        constants_at = b.add(status_at, b.zext(has_status, _i64))
        constant = lambda k: self.word(e, b.add(k, _c(_CONSTANTS)))  # noqa: E731
        self.loop(self.word(e, _c(_CONSTANTS - 1)),
                  lambda k: b.store(constant(k), b.gep(desc, [b.add(constants_at, k)])))
        kernel = b.inttoptr(self.word(e, _c(1)), ir.FunctionType(ir.VoidType(), [_wptr]).as_pointer())
        thread = self.call("PyEval_SaveThread", _ptr)
        b.call(kernel, [desc])
        self.call("PyEval_RestoreThread", ir.VoidType(), thread)
        hits = b.inttoptr(self.word(tab, _c(2)), _wptr)
        b.store(b.add(b.load(hits), _c(1)), hits)
        # An error the status words record: the executable's Python raises it, given the
        # descriptor's address too (the arguments' objects: those written before the raise
        # get what Python leaves in them, ``raise_state``).
        raised = self.block("raised")
        with b.if_then(has_status):
            words = b.load(status)
            flag = b.load(b.load(self.at(words, _LAYOUT["data"], _wptr)))
            with b.if_then(b.icmp_signed("!=", flag, _c(0))):
                with b.goto_entry_block():
                    pair = b.alloca(_ptr, _c(2))
                b.store(words, b.gep(pair, [_c(0)]))
                where = self.call("PyLong_FromVoidPtr", _ptr, b.bitcast(desc, _ptr))
                b.store(where, b.gep(pair, [_c(1)]))
                back = self.call("PyObject_Vectorcall", _ptr, raiser, pair, _c(2), self.null)
                self.call("Py_DecRef", ir.VoidType(), where)
                self.call("Py_DecRef", ir.VoidType(), back)  # None, were it to return at all
                b.store(n_buf, made)
                b.branch(raised)

        # The new values of arguments written in place, copied in (NumPy's copyto: same dtype,
        # shape and C order, checked by the entry).
        memcpy = self.fn.module.declare_intrinsic("llvm.memcpy", [_ptr, _ptr, _i64])

        def write(w):
            at = b.add(writes_at, b.add(b.mul(w, _c(3)), _c(1)))
            target = b.inttoptr(b.load(b.gep(desc, [self.word(e, at)])), _ptr)
            source = b.load(b.gep(outs, [self.word(e, b.add(at, _c(1)))]))
            data = lambda obj: b.load(self.at(obj, _LAYOUT["data"], _ptr))  # noqa: E731
            nbytes, volatile = self.word(e, b.add(at, _c(2))), ir.Constant(ir.IntType(1), 0)
            b.call(memcpy, [data(target), data(source), nbytes, volatile])

        self.loop(n_writes, write)

        # The result, built by its program (``result_program``) on a stack: each output pushed
        # as a new reference of its own (``_outputs``), each container made of the last ones.
        outputs_at = b.load(cursor)
        n_out = self.word(e, outputs_at)
        ops_at = b.add(outputs_at, b.add(b.mul(n_out, _c(3)), _c(1)))
        n_ops = self.word(e, ops_at)
        stack, depth = b.alloca(_ptr, n_ops), self.var(_c(0))
        unbuilt = self.block("unbuilt")
        data_of = lambda obj: b.load(self.at(obj, _LAYOUT["data"], _ptr))  # noqa: E731

        def push(value):
            self.branch(b.icmp_unsigned("!=", value, self.null), "pushed", unbuilt)
            b.store(value, b.gep(stack, [b.load(depth)]))
            b.store(b.add(b.load(depth), _c(1)), depth)

        def output(k):
            at = b.add(outputs_at, b.add(b.mul(k, _c(3)), _c(1)))
            kind, first, second = (self.word(e, b.add(at, _c(w))) for w in range(3))
            value = _local(b, _ptr)
            with b.if_else(b.icmp_signed("<=", kind, _c(OUT_SCALAR))) as (buffer, other):
                with buffer:
                    out = b.load(b.gep(outs, [first]))
                    with b.if_else(b.icmp_signed("==", kind, _c(OUT_BUFFER))) as (array, scalar):
                        with array:
                            self.call("Py_IncRef", ir.VoidType(), out)
                            b.store(out, value)
                        with scalar:  # NumPy's scalar of its one element (NULL: an exception set)
                            descr = b.load(self.at(out, _LAYOUT["descr"], _ptr))
                            made = self.call("PyArray_Scalar", _ptr, data_of(out), descr, out)
                            b.store(made, value)
                            self.to_python(b.icmp_signed("!=", second, _c(0)), value)
                with other:
                    copies = b.or_(b.or_(b.icmp_signed("==", kind, _c(OUT_COPY)),
                                         b.icmp_signed("==", kind, _c(OUT_BUFFER_COPY))),
                                   b.icmp_signed("==", kind, _c(OUT_ARGUMENT_COPY)))
                    with b.if_else(copies) as (copied, not_copied):
                        with copied:  # a fresh array of a constant's, buffer's or argument's dtype, its bytes
                            source_at, rank_at = _local(b, _ptr), _local(b, _i32)
                            dims_at, bytes_at = _local(b, _wptr), _local(b, _i64)
                            source = b.inttoptr(first, _ptr)
                            b.store(source, source_at)
                            b.store(b.load(self.at(source, _LAYOUT["nd"], _i32)), rank_at)
                            b.store(b.load(self.at(source, _LAYOUT["dims"], _wptr)), dims_at)
                            b.store(second, bytes_at)
                            with b.if_then(b.icmp_signed("==", kind, _c(OUT_BUFFER_COPY))):
                                buffer = b.load(b.gep(outs, [first]))
                                b.store(buffer, source_at)
                                b.store(b.load(self.at(buffer, _LAYOUT["nd"], _i32)), rank_at)
                                b.store(b.load(self.at(buffer, _LAYOUT["dims"], _wptr)), dims_at)
                            with b.if_then(b.icmp_signed("==", kind, _c(OUT_ARGUMENT_COPY))):
                                table = b.inttoptr(second, _wptr)  # (_dims_table: the result's shape, bytes)
                                b.store(b.inttoptr(b.load(b.gep(desc, [first])), _ptr), source_at)
                                b.store(b.trunc(self.word(table, _c(1)), _i32), rank_at)
                                b.store(b.gep(table, [_c(3)]), dims_at)
                                b.store(self.word(table, _c(2)), bytes_at)
                            source = b.load(source_at)
                            descr = b.load(self.at(source, _LAYOUT["descr"], _ptr))
                            self.call("Py_IncRef", ir.VoidType(), descr)  # PyArray_NewFromDescr steals it
                            fresh = self.call("PyArray_NewFromDescr", _ptr, self.address("ndarray"), descr,
                                              b.load(rank_at), b.load(dims_at), ir.Constant(_wptr, None),
                                              self.null, ir.Constant(_i32, 0), self.null)
                            b.store(fresh, value)
                            with b.if_then(b.icmp_unsigned("!=", fresh, self.null)):
                                b.call(memcpy, [data_of(fresh), data_of(source), b.load(bytes_at),
                                                ir.Constant(ir.IntType(1), 0)])
                        with not_copied:
                            self.argument_or_object(kind, first, second, desc, value, data_of)
            push(b.load(value))

        def container(op, n, address):
            items = b.gep(stack, [b.sub(b.load(depth), n)])
            made_at = _local(b, _ptr)
            b.store(self.null, made_at)
            with b.if_else(b.icmp_signed("<=", op, _c(OP_LIST))) as (sequence, other):
                with sequence:  # a tuple or list: it takes the items' references
                    is_tuple = b.icmp_signed("==", op, _c(OP_TUPLE))
                    with b.if_else(is_tuple) as (tuple_, list_):
                        with tuple_:
                            b.store(self.call("PyTuple_New", _ptr, n), made_at)
                        with list_:
                            b.store(self.call("PyList_New", _ptr, n), made_at)
                    made = b.load(made_at)
                    with b.if_then(b.icmp_unsigned("!=", made, self.null)):
                        def set_item(k):
                            item = b.load(b.gep(items, [k]))
                            with b.if_else(is_tuple) as (tuple_, list_):
                                with tuple_:
                                    self.call("PyTuple_SetItem", _i32, made, k, item)
                                with list_:
                                    self.call("PyList_SetItem", _i32, made, k, item)

                        self.loop(n, set_item)
                        b.store(b.sub(b.load(depth), n), depth)
                with other:
                    with b.if_else(b.icmp_signed("==", op, _c(OP_DICT))) as (mapping, call):
                        with mapping:  # the keys (str, int) in order; the dict takes references of its own
                            made = self.call("PyDict_New", _ptr)
                            b.store(made, made_at)
                            with b.if_then(b.icmp_unsigned("!=", made, self.null)):
                                keys = b.inttoptr(address, _wptr)
                                failed_set = self.var(_c(0))

                                def set_key(k):
                                    key = b.inttoptr(self.word(keys, b.add(k, _c(1))), _ptr)
                                    item = b.load(b.gep(items, [k]))
                                    status = self.call("PyDict_SetItem", _i32, made, key, item)
                                    with b.if_then(b.icmp_signed("<", status, ir.Constant(_i32, 0))):
                                        b.store(_c(1), failed_set)

                                self.loop(n, set_key)
                                with b.if_then(b.icmp_signed("!=", b.load(failed_set), _c(0))):
                                    self.call("Py_DecRef", ir.VoidType(), made)
                                    b.store(self.null, made_at)
                                with b.if_then(b.icmp_unsigned("!=", b.load(made_at), self.null)):
                                    self.loop(n, lambda k: self.call("Py_DecRef", ir.VoidType(),
                                                                     b.load(b.gep(items, [k]))))
                                    b.store(b.sub(b.load(depth), n), depth)
                        with call:  # a named tuple: its class called with the items
                            made = self.call("PyObject_Vectorcall", _ptr, b.inttoptr(address, _ptr), items, n,
                                             self.null)
                            b.store(made, made_at)
                            self.loop(n, lambda k: self.call("Py_DecRef", ir.VoidType(),
                                                             b.load(b.gep(items, [k]))))
                            b.store(b.sub(b.load(depth), n), depth)
            push(b.load(made_at))

        def step(s):
            at = b.add(ops_at, b.add(b.mul(s, _c(3)), _c(1)))
            op, count, address = (self.word(e, b.add(at, _c(w))) for w in range(3))
            with b.if_else(b.icmp_signed("==", op, _c(OP_OUTPUT))) as (leaf, node):
                with leaf:
                    output(count)
                with node:
                    with b.if_else(b.icmp_signed("==", op, _c(OP_OBJECT))) as (none, made):
                        with none:  # None, or a Python constant the function returns
                            constant = b.inttoptr(address, _ptr)
                            self.call("Py_IncRef", ir.VoidType(), constant)
                            push(constant)
                        with made:
                            container(op, count, address)

        self.loop(n_ops, step)
        result = b.load(stack)  # the one object left
        # The buffers: the result holds references of its own to those it returns.
        self.loop(n_buf, lambda k: self.call("Py_DecRef", ir.VoidType(), b.load(b.gep(outs, [k]))))
        self.call("Py_DecRef", ir.VoidType(), b.load(status))
        self.call("Py_DecRef", ir.VoidType(), state)
        def release_reads(k):
            self.call("Py_DecRef", ir.VoidType(), b.load(b.gep(args, [b.add(given, k)])))

        self.loop(b.sub(nargs, given), release_reads)
        value = result
        done = b.block

        # A failed allocation (of a result, a scalar or a container; the exception is set):
        # release the results made so far (Py_DecRef passes over NULL), return NULL.
        b.position_at_end(unbuilt)
        self.loop(b.load(depth), lambda k: self.call("Py_DecRef", ir.VoidType(), b.load(b.gep(stack, [k]))))
        b.store(n_buf, made)
        b.branch(failed)
        b.position_at_end(raised)
        b.branch(failed)
        b.position_at_end(failed)
        self.loop(b.load(made), lambda k: self.call("Py_DecRef", ir.VoidType(), b.load(b.gep(outs, [k]))))
        self.call("Py_DecRef", ir.VoidType(), b.load(status))
        self.call("Py_DecRef", ir.VoidType(), state)
        self.loop(b.sub(nargs, given), release_reads)
        b.ret(self.null)
        b.position_at_end(done)
        return value

    def to_python(self, wanted, value) -> None:
        """Where ``wanted``, replace the NumPy scalar in ``value`` (NULL: an exception set) by
        its Python number, ``.item()`` (the env's ``to_python``), a new reference."""
        b = self.b
        made = b.load(value)
        with b.if_then(b.and_(wanted, b.icmp_unsigned("!=", made, self.null))):
            slot = _local(b, _ptr)
            b.store(made, slot)
            b.store(self.call("PyObject_Vectorcall", _ptr, self.address("to_python"), slot, _c(1),
                              self.null), value)
            self.call("Py_DecRef", ir.VoidType(), made)

    def argument_or_object(self, kind, first, second, desc, value, data_of) -> None:
        """Into ``value``, a new reference: an argument itself (the caller's array), a NumPy
        scalar of an argument's value where the kernel reads it (a number's: inside its object,
        or the converted int; a 0-d array's data; no base: a stand-in header is no object), or
        a constant scalar, or a view of an argument in the result's shape (``_outputs``'s
        ``OUT_ARGUMENT``, ``OUT_ARGUMENT_SCALAR``, ``OUT_OBJECT``, ``OUT_VIEW``)."""
        b = self.b
        with b.if_then(b.icmp_signed("==", kind, _c(OUT_VIEW))):  # NumPy's reshape: a view of it
            argument = b.inttoptr(b.load(b.gep(desc, [first])), _ptr)
            b.store(self.call("PyArray_Newshape", _ptr, argument, b.inttoptr(second, _ptr),
                              ir.Constant(_i32, 0)), value)
        python = b.icmp_signed("==", kind, _c(OUT_ARGUMENT_PYTHON))
        scalar_kind = b.or_(b.icmp_signed("==", kind, _c(OUT_ARGUMENT_SCALAR)), python)
        with b.if_else(scalar_kind) as (scalar, shared):
            with scalar:
                header = b.inttoptr(b.load(b.gep(desc, [first])), _ptr)
                own = b.inttoptr(second, _ptr)
                with b.if_else(b.icmp_unsigned("==", own, self.null)) as (array, number):
                    with array:
                        descr = b.load(self.at(header, _LAYOUT["descr"], _ptr))
                        b.store(self.call("PyArray_Scalar", _ptr, data_of(header), descr, self.null), value)
                    with number:
                        b.store(self.call("PyArray_Scalar", _ptr, data_of(header), own, self.null), value)
                self.to_python(python, value)  # a Python number argument returned
            with shared:
                is_argument = b.icmp_signed("==", kind, _c(OUT_ARGUMENT))
                with b.if_else(is_argument) as (argument, other):
                    with argument:
                        obj = b.inttoptr(b.load(b.gep(desc, [first])), _ptr)
                        self.call("Py_IncRef", ir.VoidType(), obj)
                        b.store(obj, value)
                    with other:
                        with b.if_then(b.icmp_signed("==", kind, _c(OUT_OBJECT))):
                            obj = b.inttoptr(first, _ptr)
                            self.call("Py_IncRef", ir.VoidType(), obj)
                            b.store(obj, value)

    def python_call(self, self_, args, nargs, kwnames) -> ir.Value:
        """``python_call(self, *args, **kwargs)`` through vectorcall, the same arguments."""
        b = self.b
        start = b.block
        keywords = self.block("keywords")
        counted = self.block("counted")
        b.cbranch(b.icmp_unsigned("!=", kwnames, self.null), keywords, counted)
        b.position_at_end(keywords)
        n_kw = self.call("PyTuple_Size", _i64, kwnames)
        b.branch(counted)
        b.position_at_end(counted)
        total = b.phi(_i64)
        total.add_incoming(_c(0), start)
        total.add_incoming(n_kw, keywords)
        total = b.add(total, nargs)
        stack = b.alloca(_ptr, b.add(total, _c(1)))
        b.store(self_, stack)
        self.loop(total, lambda k: b.store(b.load(b.gep(args, [k])), b.gep(stack, [b.add(k, _c(1))])))
        return self.call("PyObject_Vectorcall", _ptr, self.address("python_call"), stack, b.add(nargs, _c(1)),
                         kwnames)

    # -- helpers ----------------------------------------------------------------------------
    def message(self, text: str) -> ir.Value:
        """A constant C string in the module, as an ``i8*``."""
        data = bytearray(text.encode() + b"\0")
        name = f"message_{len(self.fn.module.globals)}"
        made = ir.GlobalVariable(self.fn.module, ir.ArrayType(_i8, len(data)), name)
        made.global_constant, made.linkage = True, "internal"
        made.initializer = ir.Constant(ir.ArrayType(_i8, len(data)), data)
        return self.b.bitcast(made, _ptr)

    def address(self, name: str) -> ir.Value:
        """The environment's word ``name``, as a pointer."""
        b = self.b
        slot = b.gep(self.env, [_c(0), _c(_ENV.index(name))])
        return b.inttoptr(b.load(slot), _ptr)

    def call(self, name: str, ret, *operands) -> ir.Value:
        fnty = ir.FunctionType(ret, [v.type for v in operands])
        return self.b.call(self.b.bitcast(self.address(name), fnty.as_pointer()), list(operands))

    def at(self, base, offset: int, ty) -> ir.Value:
        """A pointer to the field of type ``ty`` at ``base`` + ``offset`` bytes."""
        return self.b.bitcast(self.b.gep(base, [_c(offset)]), ty.as_pointer())

    def word(self, words, index) -> ir.Value:
        return self.b.load(self.b.gep(words, [index]))

    def var(self, init) -> ir.Value:
        slot = _local(self.b, _i64)
        self.b.store(init, slot)
        return slot

    def block(self, name: str) -> ir.Block:
        return self.fn.append_basic_block(name)

    def branch(self, condition, then: str, otherwise: ir.Block) -> None:
        """To a new block ``then`` (where the builder goes on) if ``condition``, else ``otherwise``."""
        block = self.block(then)
        self.b.cbranch(condition, block, otherwise)
        self.b.position_at_end(block)

    def loop(self, n, body, done: ir.Block | None = None) -> None:
        """``for k in range(n): body(k)``; then on in ``done`` (a new block when not given)."""
        b = self.b
        k = _local(b, _i64)
        b.store(_c(0), k)
        head, step = self.block("loop"), self.block("step")
        done = done or self.block("done")
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(b.icmp_signed("<", b.load(k), n), step, done)
        b.position_at_end(step)
        current = b.load(k)
        body(current)
        b.store(b.add(current, _c(1)), k)
        b.branch(head)
        b.position_at_end(done)


def _c(value: int) -> ir.Constant:
    return ir.Constant(_i64, value)


def _local(b: ir.IRBuilder, ty) -> ir.Value:
    """A local variable, allocated in the entry block (where LLVM promotes it to a register)."""
    with b.goto_entry_block():
        return b.alloca(ty)


def entry_key(args: tuple, kwargs: dict, known, int_class) -> tuple | None:
    """The arguments of ``entries`` (key, keyword names, order, containers) for a memo's call
    (``call_memo.Structure`` ``known``) whose leaves are its arguments, positional or keyword,
    or the items of its container arguments (nested ones too), each once: arrays (a strided one
    with its strides), numbers of ``SCALAR_TYPES`` that the executable takes as their own dtype,
    and ints it takes as int64 (``api.int_class``: the ints of their signature); the other
    arguments static ones of ``STATIC_TYPES``. None for any other call. The key and order are
    the flat values': each container's items in its place, nested ones in theirs (pytree's
    order). ``containers``: per level of nesting, the containers found there (``expand``'s
    passes: each replaces the containers of the values the last one left by their items)."""
    values = (*args, *kwargs.values())
    level = [(v, (where,)) for v, where in zip(values, (*range(len(args)), *kwargs))]
    containers = []
    while any(is_container(v) for v, _ in level):
        found, items = [], []
        for i, (v, path) in enumerate(level):
            if type(v) is dict:  # by its keys in pytree's order, the dict's own (strings: call_memo)
                keys = tuple(v)
                found.append((i, dict, keys))
                items.extend((v[k], (*path, k)) for k in keys)
            elif is_container(v):  # (a named tuple: its class, matched exactly)
                found.append((i, type(v), len(v)))
                items.extend((x, (*path, k)) for k, x in enumerate(v))
            else:
                items.append((v, path))
        containers.append(tuple(found))
        if len(containers) > MAX_DEPTH or len(items) - len(values) > MAX_ITEMS:
            return None
        level = items
    flat = [v for v, _ in level]
    place = {path: s for s, (_, path) in enumerate(level)}  # a leaf's path -> its place in ``flat``
    key, order = [None] * (2 * len(flat)), [-1] * len(flat)
    for k, (where, dtype) in enumerate(known.sources):
        s = place.get(where if type(where) is tuple else (where,))
        if s is None or order[s] != -1:
            return None
        a = flat[s]
        order[s] = k
        if dtype is None:
            key[2 * s:2 * s + 2] = a.dtype, a.shape if a.flags.c_contiguous else Strided((a.shape, a.strides))
        elif SCALAR_TYPES.get(type(a)) == dtype:
            key[2 * s:2 * s + 2] = type(a), None
        elif type(a) is int and dtype == _INT64 and -(2 ** 63) <= a < 2 ** 63:
            key[2 * s:2 * s + 2] = int, int_class(a)
        else:
            return None
    for where in known.statics:
        s = place.get((where,))
        if s is None or order[s] != -1 or key[2 * s] is not None or type(flat[s]) not in STATIC_TYPES:
            return None
        key[2 * s:2 * s + 2] = type(flat[s]), Static((flat[s],))
    if any(k is None for k in key[::2]):  # an argument neither a leaf nor static
        return None
    return tuple(key), tuple(kwargs), tuple(order), tuple(containers)
