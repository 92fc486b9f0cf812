"""Abstract values: ``Tracer`` stands for an array whose shape and dtype are known while tracing
but whose data is not. Every operation on it records an ``array`` op in the function being
traced. Using it where Python needs data (``if``, ``bool()``, ``np.asarray``) raises an error
that names the function, the arguments the value depends on, and the user's line.

NumPy's in-place semantics are kept: ``x[1:-1] = v``, ``x += y`` and ``out=`` rebind the
tracer ``x`` to a functionally updated value, and a tracer made by indexing, reshaping or
transposing is a *view* of its base: a write to it updates the base (through ``backward``), and
reading it after the base changed re-derives it (through ``forward``). Writes that reach an
argument are returned from the compiled function and copied into the caller's array.

This module holds the state only. Operators, ``x[key]`` and the ndarray methods are installed
on ``Tracer`` by ``jitcore/array_methods.py``, so that the modules that record ops can import
this one without it importing them.
"""

from __future__ import annotations

import ctypes
import linecache
import operator
import os
import re
import sys
import threading
import traceback
from contextlib import contextmanager

import numpy as np

from jitcore import formatting
from jitcore.dtypes import np_dtype
from jitcore.errors import ConcretizationError, JitTypeError, TracerConversionError, UnsupportedError
from jitcore.ir.builder import Builder
from jitcore.ir.core import Value
from jitcore.ir.errors import JitcoreError
from jitcore.ir.location import UNKNOWN, FileLineCol, Location, describe
from jitcore.python_round import python_round

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))
_ROOT = os.path.dirname(_PACKAGE_DIR)
# jitcore's own code (the package, and the compiler layers beside it in a checkout)
_JITCORE_DIRS = tuple(os.path.join(d, "") for d in (
    _PACKAGE_DIR, *(os.path.join(_ROOT, p) for p in ("ir", "passes", "codegen"))))
# Frames in these directories are jitcore's or NumPy's; every other frame is the user's.
_LIBRARY_DIRS = (*_JITCORE_DIRS, os.path.join(_NUMPY_DIR, ""))


_ACTIVE = threading.local()  # .traces: the Traces whose function is running, innermost last
# Traces running on any thread: while not 0 the native call (native_call.py), which cannot see
# this thread's stack, leaves every call to the Python path, which inlines where it must.
TRACING = ctypes.c_int64(0)
_tracing_lock = threading.Lock()



# ``number_or_array.read_by_user`` and ``read``, set when that module loads (it reads this one's
# locations, so this one cannot import it): a value a number or an array by the data, its shape
# read. Where it has not loaded, no trace holds such a value.
FORM_READS = [lambda x, what: None, lambda x, what: None]

class Trace:
    """The function being traced: where new ops go, and what its arguments are called.

    ``depth`` counts the regions (loop bodies, branches) being traced into, innermost at the
    builder: a tracer made at a smaller depth is from outside the current region."""

    __slots__ = ("builder", "function_name", "constants", "depth", "derived", "scalar_arguments",
                 "star_items", "extents", "formatted", "appended", "catching", "local_copies",
                 "arguments", "region_frames", "maybe_unbound", "counted", "grouped", "kept_bits", "loops",
                 "number_or_array", "unappendable")

    def __init__(self, builder: Builder, function_name: str):
        self.builder = LocatingBuilder(builder.block, builder.before)
        self.function_name = function_name
        self.constants: dict[int, tuple[object, Tracer]] = {}  # id(array) -> (array, tracer)
        self.depth = 0
        self.loops = 0  # how many of those regions are loop bodies (or a while's test)
        # id(view) -> (view, root version, value): views from outside re-derived in a region
        self.derived: dict[int, tuple[Tracer, int, Value]] = {}
        # The arguments (by path) that are 0-d: the only ones a hint may advise making static,
        # since an array is not hashable.
        self.scalar_arguments: frozenset[str] = frozenset()
        # The scalar items of *args (by path) and their call positions, for static_argnums.
        self.star_items: dict[str, int] = {}
        # The arguments' distinct extents above 1: the sizes a size-generic function reads at
        # run time (codegen's ``size_symbols``), which a loop's bounds may come from.
        self.extents: tuple[int, ...] = ()
        self.formatted: list = []  # (tracer, format spec) per placeholder of the user's text (formatting)
        # id(first row) -> (rows array, row tracers, depth, tags): the rows appending loops put
        # in lists (autograph.appending), which np.array and np.stack of a list read as the
        # arrays; tags: (each row's tag, their kinds) where the data chose the items' types
        self.appended: dict[int, tuple] = {}
        # id(value) -> (value, Tracer.counts): the lengths of selections (len(x[m])), which a
        # refusal of a value computed from one (np.arange(len(c) + 1)) names (_count_hint)
        self.counted: dict[int, tuple] = {}
        # id(value) -> (value, the np.unique values): an inverse, whose group numbers are below
        # their length, so np.bincount of it has that length (numpy.reductions.bincount_of)
        self.grouped: dict[int, tuple] = {}
        # each try being traced (failures.Attempt: its line, the errors its except clauses
        # catch, its soft ops' failure flags), innermost last (primitives.refuse_caught)
        self.catching: list = []
        # id(owner) -> (owner, root): the traced copy of each NumPy array made while tracing that
        # a traced value was written into, which every later write and read of it goes to
        # (autograph.local_arrays.written_copy)
        self.local_copies: dict[int, tuple] = {}
        # The function's arguments, as traced (their versions count the writes so far): what a
        # raise leaves in the caller's arrays (``raise_state``)
        self.arguments: list[Tracer] = []
        # The Python stack's depth where each region being traced into began, innermost last: a
        # frame deeper than the last began inside it, and its variables may hold its tracers
        # (autograph.local_arrays rebinds them)
        self.region_frames: list[int] = []
        # id(value) -> (value, bound): the value a traced loop or if left in a variable that had
        # none before it, and the traced bool of whether it was given one (autograph.unbound)
        self.maybe_unbound: dict[int, tuple] = {}
        # (id(mask value), id(block)) -> (mask value, bit_positions.KeptBits): one count per
        # bit-test mask where it is used, so the selections through it pair row for row
        self.kept_bits: dict[tuple, tuple] = {}
        # SSA value -> number_or_array.Form: a number on one side of a traced 'x if t else y'
        # and an array on the other, the number broadcast, and what is computed from it
        # elementwise (used where its shape matters, or returned, it is refused)
        self.number_or_array: dict = {}
        # id(list) -> (list, item): a list whose loop was not compiled as an appending loop for
        # what it appends (a selection, ragged), which a refusal of an append to it names
        # (autograph.appending)
        self.unappendable: dict[int, tuple] = {}

    @contextmanager
    def running(self):
        """While the traced function runs: ``current_trace()`` is this trace, so the control-flow
        API traces a loop even when none of its own arguments is a tracer."""
        stack = _ACTIVE.__dict__.setdefault("traces", [])
        if not stack:  # what the function's own np.set_printoptions changes (print_options)
            _ACTIVE.print_options = np.get_printoptions()
        stack.append(self)
        with _tracing_lock:
            TRACING.value += 1
        try:
            yield self
        finally:
            stack.pop()
            with _tracing_lock:
                TRACING.value -= 1

    @contextmanager
    def region(self, block, loop: bool = False):
        """Trace into ``block`` (a region of an op being built) instead of the current block.
        Constants made inside stay inside: the caches are restored on the way out, since a value
        defined in a region cannot be used after it. If the body raises, the block is dropped:
        its ops let go of the values outside, which would otherwise keep uses that no op has."""
        saved = self.builder, self.constants, self.derived, self.local_copies
        self.builder = LocatingBuilder(block)
        self.constants = dict(self.constants)
        self.derived = dict(self.derived)
        self.local_copies = dict(self.local_copies)
        self.depth += 1
        self.loops += loop
        self.region_frames.append(stack_depth(sys._getframe(2)))  # (the with statement's frame:
        # this generator's is 0, contextlib's __enter__ 1)
        try:
            yield block
        except BaseException:
            for op in reversed(block.ops):
                op.drop_all_references()
            raise
        finally:
            self.builder, self.constants, self.derived, self.local_copies = saved
            self.depth -= 1
            self.loops -= loop
            self.region_frames.pop()


def stack_depth(frame=None) -> int:
    """How many Python frames are below ``frame`` (the caller's when None), itself included."""
    frame = frame or sys._getframe(1)
    n = 0
    while frame is not None:
        n, frame = n + 1, frame.f_back
    return n


def print_options() -> dict | None:
    """NumPy's print options where the traced code changed them (``with np.printoptions(...)``
    around a ``print``, ``np.set_printoptions``), for its prints to use at each call; else None
    (the caller's, as at the call)."""
    now = np.get_printoptions()
    return now if now != getattr(_ACTIVE, "print_options", now) else None


class LocatingBuilder(Builder):
    """The trace's builder: each op it inserts gets the user's line that made it (its
    ``loc``), so that dumps, fused kernels and error messages can point back at it."""

    __slots__ = ()

    def insert(self, op):
        if op.loc is UNKNOWN:
            op.loc = user_source_location()
        return super().insert(op)


_USER_FILES: dict[str, bool] = {}  # co_filename -> is_user_file, asked once per file
_LOCATIONS: dict[tuple, tuple] = {}  # (id(code), instruction offset) -> (code, its location)


def user_source_location() -> Location:
    """The innermost frame of the user's code as a location: file, line and (1-based) column
    of the instruction running there. Called once per traced op, so it is cheap: a frame walk
    with one dict lookup per frame, and the location itself cached per instruction."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        user = _USER_FILES.get(code.co_filename)
        if user is None:
            user = _USER_FILES[code.co_filename] = is_user_file(code.co_filename)
        if user:
            # Keyed by the code's id (hashing a code object hashes its bytecode); the entry
            # holds the code, so the id is not reused while the entry lives.
            key = (id(code), frame.f_lasti)
            entry = _LOCATIONS.get(key)
            if entry is None or entry[0] is not code:
                entry = _LOCATIONS[key] = (code, _instruction_location(frame))
            return entry[1]
        frame = frame.f_back
    return UNKNOWN


_POSITIONS: dict[int, tuple] = {}  # id(code) -> (code, its co_positions() as a list)
_POSITIONS_KEPT = 64  # codes listed at most: a trace's frames, and a few more


def _instruction_location(frame) -> Location:
    code, line, column = frame.f_code, frame.f_lineno, 0
    if hasattr(code, "co_positions") and frame.f_lasti >= 0:  # Python 3.11+: columns
        # the positions of a code's instructions listed once, not at each instruction a trace
        # meets in it (a converted function's code is long, and its instructions many)
        entry = _POSITIONS.get(id(code))
        if entry is None or entry[0] is not code:
            if len(_POSITIONS) >= _POSITIONS_KEPT:
                _POSITIONS.clear()  # (at once, which another thread's trace cannot interleave)
            entry = _POSITIONS[id(code)] = (code, list(code.co_positions()))
        start_line, _, start_column, _ = entry[1][frame.f_lasti // 2]
        line = start_line or line
        column = start_column or 0
    return FileLineCol(code.co_filename, line or 0, column + 1)


def current_trace() -> Trace | None:
    """The innermost trace whose function is running on this thread, or None (eager Python)."""
    stack = _ACTIVE.__dict__.get("traces")  # getattr of a missing name costs an exception
    return stack[-1] if stack else None


# ``python_arithmetic.check_int_of``: Python's errors for int() of a NaN, an infinity or a
# number past int64, raised by the call (set when that module loads, as it needs primitives).
CHECK_INT_OF = None

# Called with an array from outside the region being traced that is written in it, before
# that raises: a converted loop or branch (``autograph.aliasing``) then traces its region again
# carrying the array.
OUTER_WRITE = None


def text_of(value, spec: str):
    """The text a traced value formats to in the user's code: ``jitcore.traced_text`` puts its
    ``placeholder`` here when it is imported (it builds on this module; ``jitcore.api``
    imports it), so no text is ever made without it."""
    raise AssertionError("internal error: jitcore.traced_text was not imported")


class Tracer:
    """A traced array: an SSA value plus the names of the arguments it depends on."""

    __slots__ = ("_value", "owner_trace", "sources", "weak", "scalar", "view_of", "index", "version",
                 "_seen", "level", "int_range", "fortran", "index_form", "open_form", "caller_sees",
                 "view_model", "arg_layout", "type_choice", "refines", "region_input", "counts", "also")
    __array_priority__ = 1000

    def __hash__(self):  # like ndarray's: == is elementwise, so tracers are not hashable
        if self.index_form is not None:  # a static range's counter (out[c] = v): the loop
            # needs it as the Python int it is, and unrolls, as for a slice bound
            self._concretize("a dict key or set member")
        raise needs_static(JitTypeError(
            f"unhashable type: a traced value ({self.description()}) cannot be a dict key or a set "
            f"member (at {user_location()}): its value is not known while the function compiles. "
            "Look it up in an array instead (table = np.array([...]); table[i]), or compare with "
            "== and select with np.where"), self)

    def __getattr__(self, name: str):
        # A Python number's own methods (n.bit_length(), s.is_integer()) need its value: an
        # int or float argument is made static on demand; anything else is NumPy's error
        if name == "bit_length" and _number_like(self) and self.weak and self.dtype.kind in "iu":
            from jitcore.python_division import int_bit_length  # (division loads after the tracer)

            return lambda: fresh(int_bit_length(self), scalar=True, weak=True)  # a Python int's
        if not name.startswith("_") and (hasattr(int, name) or hasattr(float, name)) \
                and name not in Tracer.__slots__ and _number_like(self):
            self._concretize(f"the number's method {name}()")
        raise AttributeError(f"'Tracer' object has no attribute {name!r}")

    def __init__(self, value: Value, trace: Trace, sources: frozenset = frozenset(), weak=False):
        self._value = value
        self.owner_trace = trace
        self.sources = sources
        self.weak = weak  # a Python scalar argument: promotes like one (NEP 50)
        self.scalar = False  # a NumPy scalar (np.float64), not a 0-d array: see as_scalar
        self.view_of = None  # (base, forward, backward) when this tracer is a view of base
        self.index = None  # the key, for a view made by indexing
        self.version = 0  # writes so far (counted on the root of a view chain)
        self._seen = 0  # the root's version when a view's value was last derived
        # A view chosen between arrays by a traced condition (aliasing.chosen): the roots
        # besides its own that its value reads, whose writes it sees too (None: none)
        self.also = None
        self.level = trace.depth  # the region depth it was made at (see Trace.region)
        # a loop's carry or a branch's operand, as its region is given it (not a copy of one:
        # what it holds is the region's caller's; aliasing.held_elsewhere)
        self.region_input = False
        # The selection whose length this is (masked.MaskedSelection.count): named, with what
        # to write instead, where a shape or index needs it (concretization_message)
        self.counts = None
        # A Python int argument's bounds (see api.int_range): NumPy 2 raises OverflowError when
        # the value does not fit the integer dtype of the array it meets; None: not known.
        self.int_range: tuple[int, int] | None = None
        # The memory order NumPy would give this array: Fortran (column-major) rather than C,
        # as elementwise results of Fortran-ordered arrays are (see primitives.fortran_layout).
        self.fortran = False
        # A loop index plus or times constants, with its bounds (index_forms.IndexForm): lets
        # x[i:i + w] be a slice of static length in a traced loop.
        self.index_form = None
        # A comparison of a loop index with a constant (index_forms.refinement): the index's
        # narrower forms where it holds and where it does not, for a traced if's branches.
        self.refines = None
        # A traced int of unknown bounds plus constants (``p[0] + s``, index_forms): lets
        # x[p[0]:p[0] + s] be a window of static length, checked when the function runs.
        self.open_form = None
        # An argument or call-time input: its caller's array is written when it is
        self.caller_sees = False
        # A view's strides from its base's, as a function of the base's stride model, and an
        # argument's layout class: where NumPy's reshape copies (view_layout.py)
        self.view_model = None
        self.arg_layout = None
        # (tag, kinds): the type Python gives it depends on the path the data took
        # (type_choice.py); None for almost every value
        self.type_choice = None

    @property
    def value(self) -> Value:
        if self.level > self.owner_trace.depth:
            self._escaped()
        if self.view_of is not None:
            version = self.root().version if self.also is None else self.versions()
            if self._seen != version:
                if self.level < self.owner_trace.depth:
                    return self._derived_in_region(version)
                base, forward, _ = self.view_of
                self._value = forward(base)._value
                self._seen = version
        return self._value

    def versions(self):
        """The writes so far to the arrays this view reads: its root's count, with those of
        the other arrays a choice made it read (``also``)."""
        version = self.root().version
        if self.also is None:
            return version
        return (version, *[r.version for r in self.also])

    def _escaped(self):
        dims = ",".join(map(str, self._value.type.shape))
        raise JitTypeError(
            f"a value computed inside a loop body or branch (Traced<{self._value.type.element}"
            f"[{dims}]>) is used after it, at {user_location()}: it exists only inside. Return "
            "it from the body or branch (in the loop's carry, scan's ys or the branch's output) "
            "and use what the loop or branch returns. A Python list appended to in a loop "
            "whose bounds or condition are traced is one such way out: make the array first "
            "(out = np.zeros(n)) and write out[i] = v in the loop, or make the bound static."
        )

    def _derived_in_region(self, version: int) -> Value:
        """A view from outside the region, stale, read in it: derived once per region, in the
        trace's region-scoped cache rather than on the view, as the value is not valid after."""
        derived = self.owner_trace.derived
        cached = derived.get(id(self))
        if cached is not None and cached[1] == version:
            return cached[2]
        base, forward, _ = self.view_of
        value = forward(base)._value
        derived[id(self)] = (self, version, value)  # holding the view keeps its id unique
        return value

    def root(self) -> Tracer:
        t = self
        while t.view_of is not None:
            t = t.view_of[0]
        return t

    def check_writable(self) -> None:
        if self.scalar:
            raise JitTypeError(
                f"'numpy.{self.dtype.name}' object does not support item assignment: a NumPy scalar "
                f"(a full reduction, x[i]) is immutable (NumPy raises the same TypeError), at "
                f"{user_location()}"
            )

    def rebind(self, new: Tracer) -> None:
        """Make this array hold ``new`` (of its shape and dtype), as an in-place write does; a
        view passes the write on to its base. ``primitives.assign`` broadcasts and casts first."""
        self.check_writable()
        if self.view_of is not None:
            base, _, backward = self.view_of
            base.rebind(backward(base, new))
            return
        if self.level < self.owner_trace.depth:
            if OUTER_WRITE is not None:
                OUTER_WRITE(self)  # a converted statement's region may carry it (autograph.aliasing)
            raise JitTypeError(
                f"an in-place write, inside a loop body or branch, to {self!r}, an array from "
                f"outside it, at {user_location()}: a region cannot change a value defined "
                "outside it. Carry the array instead: pass it in the loop's carry (or the "
                "branch's operands) and use the value the loop or branch returns."
            )
        self._value = new._value
        self.sources = self.sources | new.sources
        self.version += 1

    # -- static properties ----------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        value = self.value
        if self.owner_trace.number_or_array and value in self.owner_trace.number_or_array:
            FORM_READS[0](self, "its shape (x.shape)")
        return value.type.shape

    @property
    def ndim(self) -> int:
        value = self.value
        if self.owner_trace.number_or_array and value in self.owner_trace.number_or_array:
            FORM_READS[0](self, "its number of dimensions (x.ndim)")
        return len(value.type.shape)

    @property
    def size(self) -> int:
        value = self.value
        if self.owner_trace.number_or_array and value in self.owner_trace.number_or_array:
            FORM_READS[0](self, "its size (x.size)")
        return value.type.size

    @property
    def dtype(self) -> np.dtype:
        return np_dtype(self.value.type.element)

    def __len__(self) -> int:
        FORM_READS[1](self, "len()")
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        # The user's code (repr(x), f"{x!r}"): a placeholder, as __format__'s
        if formatting.for_user(sys._getframe(1).f_code.co_filename, is_user_file):
            return text_of(self, formatting.REPR)
        return self.description()

    def __str__(self) -> str:
        if formatting.for_user(sys._getframe(1).f_code.co_filename, is_user_file):  # str(x): float32's digits
            return text_of(self, formatting.STR)
        return self.description()

    def description(self) -> str:
        """``Traced<f64[3,4]>``: what jitcore's messages call a traced value."""
        dims = ",".join(map(str, self.shape))
        return f"Traced<{self.value.type.element}[{dims}]>"

    # -- where Python needs data ----------------------------------------------------------
    def _concretize(self, what: str):
        raise needs_static(ConcretizationError(concretization_message(self, what)), self)

    def __bool__(self):
        self._concretize("bool()")

    def __int__(self):
        self._concretize("int()")

    def __float__(self):
        self._concretize("float() (which math.sqrt, math.exp and the other math functions call: "
                         "use np.sqrt, np.exp, ... on traced values)")

    def __format__(self, spec: str) -> str:
        # The user's code (an f-string of theirs, not jitcore's messages): a placeholder,
        # filled in when the compiled code prints or raises it
        if formatting.for_user(sys._getframe(1).f_code.co_filename, is_user_file):
            return text_of(self, spec)
        if not spec:
            return self.description()
        self._concretize(f"formatting with {spec!r} (f\"{{x:{spec}}}\"; to print a traced value "
                         "when the function runs, use jitcore.debug_print)")

    def __complex__(self):
        self._concretize("complex()")

    def __round__(self, ndigits=None):
        """Python's ``round`` of a NumPy scalar (``round(x.sum(), 2)``) or a Python number
        argument: ``np.round`` (half to even) in its dtype, or without ``ndigits`` an int, as
        NumPy's scalars and Python's numbers give; NumPy's arrays have no ``__round__``."""
        if self.ndim or not (self.scalar or self.weak):
            raise JitTypeError(f"type numpy.ndarray doesn't define __round__ method (a traced "
                            f"array; use np.round(x, decimals)) (at {user_location()})")
        if isinstance(ndigits, Tracer):
            self._concretize("round()'s ndigits")
        if ndigits is None:  # a Python int: weak, as a Python scalar argument is
            rounded = np.round(self)
            CHECK_INT_OF(rounded)
            return fresh(rounded.astype(np.int64), scalar=True, weak=True)
        if self.weak and self.dtype == np.float64:
            return fresh(_python_float_round(self, operator.index(ndigits)), scalar=True, weak=True)
        out = np.round(self, ndigits)
        return fresh(out, scalar=True, weak=self.weak)

    def __index__(self):
        self._concretize("an index (__index__)")

    def __iter__(self):
        FORM_READS[1](self, "iteration over it")
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))  # static length: unrolled while tracing

    def __array__(self, dtype=None, copy=None):
        asker, function = _numpy_caller()
        if isinstance(asker, np.vectorize):
            raise TracerConversionError(
                f"numpy.vectorize is not supported under jit (at {user_location()}): it calls the "
                "Python function once per element, on NumPy values, which a traced array has not "
                "got yet. Write the function with array operations (numpy.where(cond, a, b) for "
                "an if/else; numpy.piecewise), or call the vectorized function outside the "
                "jitted one.")
        if function is not None and function.startswith("numpy.polynomial"):
            raise TracerConversionError(
                f"{function}() is not compiled for traced arguments (at {user_location()}): "
                "numpy.polynomial's classes and most of its functions turn their data into NumPy "
                "arrays. numpy.polynomial.polynomial.polyval, polyder and polyfit compile (the "
                "power series, lowest power first), chebval, legval, hermval, hermeval and lagval "
                "compile, and so do np.polyval, np.polyder, np.polyint and np.polyfit (highest "
                "first); a series object (Polynomial, Chebyshev, ...) of NumPy coefficients can be "
                "called on traced points; or call it outside the jitted function.")
        if function is not None:
            raise needs_static(TracerConversionError(
                f"{function}() is not compiled for traced arguments (at {user_location()}): it "
                f"turns {self!r} into a NumPy array, which a traced value has not got yet (it "
                "has a shape and dtype, no data). Pass it static values, or call it outside the "
                "jitted function."), self)
        raise needs_static(TracerConversionError(
            f"np.asarray() of {self!r} while tracing {self.owner_trace.function_name}() at "
            f"{user_location()}: a traced value has a shape and dtype but no data yet, so it "
            "cannot become a NumPy array. Use jitcore.numpy (or NumPy functions jitcore "
            "supports) on it, or compute the array outside the jitted function."), self)


_NUMPY_DIR = os.path.dirname(np.__file__) + os.sep


def _numpy_caller():
    """Who asked for a NumPy array, seen from the user's code: the object whose method it
    called (``np.vectorize(f)(x)``), or None; and the NumPy function it called when that is
    Python code of NumPy's (``numpy.kaiser``), or None."""
    frame, asker, outer = sys._getframe(2), None, None
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        asker, outer = frame.f_locals.get("self", asker), frame
        frame = frame.f_back
    if outer is None or not os.path.abspath(outer.f_code.co_filename).startswith(_NUMPY_DIR):
        return asker, None
    module = outer.f_globals.get("__name__", "numpy")
    public = "numpy" if module.startswith("numpy.lib") or module.startswith("numpy._core") else module
    return asker, f"{public}.{outer.f_code.co_qualname}"


def fresh(x: Tracer, scalar: bool = False, weak: bool = False) -> Tracer:
    """A new tracer of ``x``'s value, not a view: a copy, as NumPy's astype and copy make."""
    out = Tracer(x.value, x.owner_trace, x.sources, weak)
    out.scalar = scalar and x.ndim == 0
    out.int_range = x.int_range  # the same value
    out.index_form = x.index_form
    out.open_form = x.open_form
    return out


def as_scalar(x: Tracer) -> Tracer:
    """``x`` as NumPy holds the 0-d results of ufuncs, reductions and integer indexing: a NumPy
    scalar, which a jitted function returns as ``np.float64`` (say) rather than a 0-d array.
    Other 0-d results (astype, copy, reshape, *_like, where, ...) stay 0-d arrays, as in NumPy."""
    if not isinstance(x, Tracer) or x.scalar or x.ndim:
        return x
    return fresh(x, True, x.weak)


class Choice:
    """The ``forward`` of a view that a traced condition chose (``aliasing.chosen``): ``read``
    gives its value, ``arrays`` the arrays from outside it is (or is a view of) where
    ``taken`` holds and where it does not (None: a value of its own there), or None where it
    is a part of one that NumPy's views cannot make; ``views`` per array the NumPy view of it
    (``x[1:]``, ``x.T``: a function of the array, replaying the views' stride models), None:
    the array itself. Kept as data so that a result which is an argument or a view of one on
    a path comes back as the caller's array or NumPy's view of it when that path ran
    (``compiler``: ``dispatch.Picked``)."""

    __slots__ = ("read", "taken", "arrays", "views", "picked")

    def __init__(self, read, taken: Tracer, arrays: tuple | None, views: tuple = (None, None)):
        self.read, self.taken, self.arrays, self.views = read, taken, arrays, views
        self.picked = None  # the object picked where ``taken`` holds (the array, or its view)

    def __call__(self, base: Tracer) -> Tracer:
        return self.read(base)


def make_view(base: Tracer, forward, backward, model=None, also=(), now: Tracer | None = None) -> Tracer:
    """``forward(base)`` as a view: writes to it go to ``base`` through ``backward(base, v)``;
    ``model`` gives its NumPy strides from a model of the base's (``view_layout.py``);
    ``also``: roots besides ``base``'s that ``forward`` reads (a choice between arrays), whose
    writes it must see, as must every view made of it; ``now``: its value as made, where that
    is computed already (a choice's select), so that no second copy of it is traced."""
    out = forward(base) if now is None else Tracer(now.value, now.owner_trace, now.sources, now.weak)
    if out is base:
        out = Tracer(base.value, base.owner_trace, base.sources, base.weak)
    out.view_of = (base, forward, backward)
    out.view_model = model
    also = [*(base.also or ()), *also]
    root = base.root()
    kept = []
    for r in also:
        if r is not root and not any(r is k for k in kept):
            kept.append(r)
    out.also = tuple(kept) or None
    out._seen = out.versions()
    return out


def is_user_file(filename: str) -> bool:
    """Whether code in ``filename`` is the user's: outside jitcore's packages and NumPy."""
    path = os.path.abspath(filename)
    return not path.startswith(_LIBRARY_DIRS)


def is_jitcore_file(filename: str) -> bool:
    """Whether code in ``filename`` is jitcore's own."""
    return os.path.abspath(filename).startswith(_JITCORE_DIRS)


def user_frame():
    """The innermost frame of the user's code (outside jitcore and NumPy), or None."""
    frame = sys._getframe(1)
    while frame is not None:
        if is_user_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def user_location() -> str:
    frame = user_frame()
    if frame is None:
        return "an unknown line"
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def add_user_line(error: BaseException, fun) -> None:
    """Name the user's line in ``error``, raised while tracing ``fun``.

    The line is the innermost frame of the user's code in the traceback; when there is none
    (an error in what ``fun`` returned), it is the line defining ``fun``. A jitcore error gets
    it in its message, unless the message names it already. Other errors (NumPy's classes:
    IndexError, ValueError, ...) keep NumPy's message and get it as a note (PEP 678, shown
    under the message in tracebacks from Python 3.11). Errors raised by the user's own code
    are left alone: Python's traceback points at them.
    """
    frames = [(f.f_code.co_filename, line) for f, line in traceback.walk_tb(error.__traceback__)]
    if frames and is_user_file(frames[-1][0]):
        return
    user = [fl for fl in frames if is_user_file(fl[0])]
    code = getattr(fun, "__code__", None)
    if not user and code is not None and is_user_file(code.co_filename):
        user = [(code.co_filename, code.co_firstlineno)]
    if not user:
        return
    filename, line = user[-1]
    where = f"{filename}:{line}"
    text = linecache.getline(filename, line).strip()
    shown = f"\n    {text}" if text else ""
    args = error.args
    if isinstance(error, JitcoreError) and len(args) == 1 and str(error) == args[0]:
        if not re.search(re.escape(where) + r"(?!\d)", args[0]):  # not already named
            error.args = (f"{args[0]}\n  at {where}{shown}",)
        elif text not in args[0]:
            error.args = (args[0] + shown,)
        return
    notes = getattr(error, "__notes__", [])
    if f"  at {where}{shown}" not in notes:  # an error crossing two traces is noted once
        error.__notes__ = [*notes, f"  at {where}{shown}"]


def concretization_message(tracer: Tracer, what: str) -> str:
    frame = user_frame()
    where, line = "an unknown line", ""
    if frame is not None:
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    trace = tracer.owner_trace
    sources = ", ".join(sorted(tracer.sources))
    # Where the value came from, when that is another line than the one that needs it.
    made = getattr(tracer.value, "op", None)
    origin = made.loc.parts()[:1] if made is not None else ()
    here = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
    # (description(), not repr: under formatting.users_text, a C function's call, repr is text
    # for the user's output, a placeholder: "1Traced<i64[]>" in the message)
    made_at = (f"{tracer.description()} was computed at {describe(made.loc)}.\n"
               if origin and (origin[0].file, origin[0].line) != here else "")
    return (
        f"{what} needs a concrete value, but {tracer.description()} is traced.\n"
        f"  in {trace.function_name}(), at {where}\n"
        + (f"    {line}\n" if line else "")
        + made_at
        + (_stopped_hint(tracer) or _count_hint(tracer) or _generic_hint(tracer, trace, sources))
        + _no_source_hint(frame)
    )


def _stopped_hint(tracer: Tracer) -> str:
    """The reason and advice for an index after a loop that the data may end early
    (``autograph.statements._StoppedByData``), in place of the generic ones."""
    return getattr(getattr(tracer.index_form, "base", None), "hint", "")


def _counted(tracer: Tracer):
    """``tracer``'s ``counts``, or those of the length of a selection it is computed from
    (``len(c) + 1``: a few ops up its definitions), with True for the latter; else None."""
    if tracer.counts is not None:
        return tracer.counts, False
    counted = getattr(tracer.owner_trace, "counted", None)
    if not counted:
        return None
    seen, todo = set(), [tracer.value]
    while todo and len(seen) < 64:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if id(value) in counted and counted[id(value)][0] is value:
            return counted[id(value)][1], True
        op = getattr(value, "op", None)
        todo.extend(getattr(op, "operands", ()) if op is not None else ())
    return None


def _count_hint(tracer: Tracer) -> str:
    """For the length of a selection by a traced mask (``u.shape[0]`` of ``np.unique(x)``), or a
    value computed from one: what it is the length of, where its mask was made, and what to
    write instead."""
    found = _counted(tracer)
    if found is None:
        return ""
    (written, advice, *made), derived = found
    return (f"{'It is computed from' if derived else 'It is'} the length of {written}"
            + (f", the elements {made[0]} keeps" if made and made[0] else "")
            + ", which depends on the data (the elements a traced "
            "condition keeps), so it cannot be a shape, an index or a count of bins. "
            + (advice or "Use a length known when compiling (the mask's own), and "
               "jitcore.numpy.where(mask, x, fill) for the elements left out") + "\n")


def _is_draw(source: str) -> bool:
    """A source that is no argument but what the code draws ("a random draw", "random draws
    of a loop": ``calltime``), named in words."""
    return " " in source


def _generic_hint(tracer: Tracer, trace, sources: str) -> str:
    names = [s for s in sorted(tracer.sources) if not _is_draw(s)]
    draws = [s for s in sorted(tracer.sources) if _is_draw(s)]
    if draws:  # a draw is no argument: name what it is
        sources = " and on ".join(([f"the argument(s) {', '.join(names)}"] if names else []) + draws)
        return (f"The value depends on {sources}, made when the function runs: while jitcore "
                f"compiles {trace.function_name}() it knows shapes and dtypes, not data, so "
                "Python control flow, shapes and axes cannot depend on it.\n" + _static_hint(tracer)
                + " Or draw the number outside the jitted function and pass it in.")
    return (
        (f"The value depends on the argument(s) {sources}: while jitcore compiles "
         f"{trace.function_name}() it knows their shapes and dtypes, not their data, so "
         "Python control flow, shapes and axes cannot depend on them.\n" if sources else
         "The value is computed by the compiled code (from no argument's data: a draw, a "
         "loop's carry), so it is not known while jitcore compiles "
         f"{trace.function_name}(), and Python control flow, shapes and axes cannot depend "
         "on it.\n")
        + _static_hint(tracer)
    )


def _number_like(tracer: Tracer) -> bool:
    """A 0-d traced Python number or NumPy scalar (its slots read safely, even half-made)."""
    try:
        return (tracer.weak or tracer.scalar) and not tracer.ndim
    except AttributeError:
        return False


def needs_static(error: JitcoreError, *values) -> JitcoreError:
    """``error``, marked with the arguments the traced ``values`` come from
    (``static_would_fix``): were they static, it would not happen. ``jit`` makes them static
    and traces again where every one is a hashable value of its own parameter, never an array
    (``jitcore/static_on_demand.py``)."""
    sources = frozenset().union(*(v.sources for v in values if isinstance(v, Tracer)))
    sources = frozenset(s for s in sources if not _is_draw(s))  # no static value fixes a draw
    if sources:
        error.static_would_fix = sources
    return error


def _no_source_hint(frame) -> str:
    """Code with no source to read ("<string>", "<stdin>") is not converted by autograph, so
    its if, while and for on traced values come here: say so."""
    if frame is None or line_known(frame) or not frame.f_code.co_filename.startswith("<"):
        return ""
    return (f"\n{frame.f_code.co_name}() comes from {frame.f_code.co_filename}, whose source jitcore "
            "cannot read, so its if, while and for were not converted to traced control flow: "
            "define it in a file, or put its source lines in linecache before jit sees it.")


def line_known(frame) -> bool:
    return bool(linecache.getline(frame.f_code.co_filename, frame.f_lineno))


def _static_hint(tracer: Tracer) -> str:
    """What to do instead. Only a scalar argument may be made static: an array is not
    hashable, so advising ``static_argnames`` for one would only lead to the next error."""
    scalars = sorted(s for s in tracer.sources if s in tracer.owner_trace.scalar_arguments)
    arrays = sorted(s for s in tracer.sources
                    if s not in tracer.owner_trace.scalar_arguments and not _is_draw(s))
    hint = "Instead: choose values element-wise with jitcore.numpy.where(cond, a, b)"
    if scalars:
        names = ", ".join(repr(s) for s in scalars)
        hint += (", or, as the argument is a Python value that decides the control flow (or an "
                 f"axis, a shape, a count), mark it static: jit(f, static_argnames=({names},)) "
                 "— each new value then compiles once")
    star_items = tracer.owner_trace.star_items
    stars = [s for s in arrays if s in star_items]
    items = [s for s in arrays if ("[" in s or "." in s) and s not in stars]  # ns[0], p.n
    arrays = [s for s in arrays if s not in items and s not in stars]
    if stars:  # *args' items have positions, not names: static_argnames cannot list them
        nums = ", ".join(str(star_items[s]) for s in stars)
        hint += (f". {', '.join(stars)} is an item of *args, which has a position, not a name: "
                 f"mark it static with jit(f, static_argnums=({nums},)) — each new value then "
                 "compiles once")
    if items:
        hint += (f". {', '.join(items)} is inside a container argument: pass a tuple (a list or "
                 "dict is not hashable) and name it in static_argnames, or the value as an "
                 "argument of its own")
    if arrays:
        hint += (f". {', '.join(arrays)} cannot be static (an array is not hashable): compute "
                 "what needs its data outside the jitted function and pass the result in as a "
                 "Python value named in static_argnames")
    return hint + "."


def refuse_traced(value, what: str) -> None:
    """Raise ``ConcretizationError`` if ``value`` (an axis, a shape, a count: an int or a sequence
    of ints) is or holds a traced value: NumPy needs it as a number while jitcore traces."""
    for v in value if isinstance(value, (tuple, list)) else (value,):
        if isinstance(v, (tuple, list)):  # axes=((0, q), (1, 2)): nested too
            refuse_traced(v, what)
        elif isinstance(v, Tracer):
            raise needs_static(ConcretizationError(concretization_message(v, what)), v)


def _python_float_round(x: Tracer, ndigits: int):
    """``round(x, ndigits)`` of a Python float: CPython's limits first (past 323 digits ``x``
    itself, before -308 a zero of its sign; a NaN or infinity is itself), else the exact
    rounding of ``python_round``, which holds while ``10**|ndigits|`` is an exact double."""
    if ndigits > 323:
        return x
    if ndigits < -308:
        return np.where(np.isfinite(x), 0.0 * x, x)
    if abs(ndigits) > 22:
        raise UnsupportedError(
            f"round(x, {ndigits}) of a traced Python float: jitcore rounds a float exactly (as "
            f"Python does) only to at most 22 decimal places either side, where 10**ndigits is an "
            f"exact double (at {user_location()}). Round to fewer places, or round outside the "
            f"jitted function")
    return python_round(x, ndigits)
