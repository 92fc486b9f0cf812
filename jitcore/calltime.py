"""Call-time inputs: values the compiled code reads that are not its arguments, fetched by the
dispatcher on every call and passed as hidden arguments after the real ones.

Three kinds, found while tracing:

- a global or closed-over *array*, or a parameter's *default array*, of the traced function
  (or of a user function it calls) that meets a traced value: it becomes a block argument of
  the function, read on every call from the module's globals dict (by name), the closure cell
  or the function's defaults, so ``W[:] = 5`` and ``W = np.ones(4)`` between calls are both
  seen, without a copy. Its dtype, shape and layout are checked on every call: a new one
  compiles a new variant.
- a global or closed-over Python *scalar* (or string) the code names: part of the signature.
  A new value compiles a new variant; it is not a run-time value because such names usually
  decide shapes and Python control flow (``np.zeros(N)``, ``range(STEPS)``, ``if MODE == ...``),
  which a run-time value could not.
- a *draw* from ``np.random`` (see ``jitcore.random``): NumPy's own sampler called with the
  same static arguments on the same generator, in program order, before the native call.

A ``Recorder`` collects them while one function is traced; its ``Inputs`` (plain data) are what
the dispatcher reads at call time.
"""

from __future__ import annotations

import copy
import dis
import functools
import gc
import itertools
import os
import sys
import sysconfig
import threading
import types
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from jitcore import generator_arguments, pytree
from jitcore.dtypes import SUPPORTED_DTYPES, ir_type
from jitcore.errors import UnsupportedError
from jitcore.ir import layout_class
from jitcore.ir.core import BlockArgument
from jitcore.ir.types import TensorType
from jitcore.tracer import Tracer, current_trace, is_jitcore_file, is_user_file

_MISSING = object()
_ACTIVE = threading.local()  # .recorder: the Recorder of the function traced on this thread
_GUARDED = (bool, int, float, complex, str, bytes, np.generic)  # immutable: compared by value
FROZEN_GUARD_LIMIT = 256  # elements: a global array this small is compared by content on each call
_GENERATORS = (np.random.RandomState, np.random.Generator, np.random.BitGenerator)


class GlobalRead:
    """Reads ``name`` from a module's globals dict on each call."""

    __slots__ = ("namespace", "name")

    def __init__(self, namespace: dict, name: str):
        self.namespace, self.name = namespace, name

    def __call__(self):
        return self.namespace.get(self.name, _MISSING)


class CellRead:
    """Reads a closure cell on each call."""

    __slots__ = ("cell", "name")

    def __init__(self, cell, name: str):
        self.cell, self.name = cell, name

    def __call__(self):
        try:
            return self.cell.cell_contents
        except ValueError:  # the enclosing function deleted the variable
            return _MISSING


class DefaultRead:
    """Reads a parameter's default value on each call: ``__defaults__[key]`` for a position
    (counted among the defaults), ``__kwdefaults__[key]`` for a keyword-only name."""

    __slots__ = ("fun", "key")

    def __init__(self, fun, key):
        self.fun, self.key = fun, key

    def __call__(self):
        if isinstance(self.key, int):
            defaults = self.fun.__defaults__ or ()
            return defaults[self.key] if self.key < len(defaults) else _MISSING
        return (self.fun.__kwdefaults__ or {}).get(self.key, _MISSING)


def _same(a, b) -> bool:
    """Whether a guarded scalar still has its value (NaN equals NaN here)."""
    if type(a) is not type(b):
        return False
    if a is b:
        return True
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:  # noqa: BLE001  (an odd np.generic: treat as changed)
        return False


class LoopDraws:
    """The random draws in the body of a loop with a static trip count: on each call, every
    step's draws in program order (step 0's first draw, its second, ..., step 1's first, ...),
    stacked into one array per draw site, which the body indexes by its step.

    A generator made in the function with a seed (``local``) gives NumPy's same numbers on
    every call: its sites draw from a copy of it as the loop found it, made anew on each call."""

    def __init__(self, block, trip: int, starts: dict):
        self.block = block  # the body's block: a body traced again (a carry's dtype) drops it
        self.trip = trip
        self.starts = starts  # id(local generator) -> (it, a copy as the loop's first trace found it)
        self.sites: list = []  # (slot, fn, shape, dtype, local generator's id or None) per draw, in order

    def alive(self) -> bool:
        """Whether the body this was traced in is the loop's (not one traced for nothing)."""
        return self.block.parent is not None

    def _steps(self, outs=None) -> dict:
        """Every step's draws in program order, into ``outs``; without them, only the local
        generators' (on their copies). Returns the copies, as after the last step."""
        local = {k: copy.deepcopy(start) for k, (_, start) in self.starts.items()}
        batched = self._batched(outs) if outs is not None else set()
        sites = [(k, fn, generator) for k, (_, fn, _, _, generator) in enumerate(self.sites)
                 if generator is not None or (outs is not None and k not in batched)]
        for step in range(self.trip if sites else 0):
            for k, fn, generator in sites:
                value = fn(local[generator]) if generator is not None else fn()
                if outs is not None:
                    outs[k][step] = value
        return local

    def _batched(self, outs) -> set:
        """The sites drawn here with one call of NumPy's sampler for all the steps, into
        ``outs``: those of a generator whose every site in the body is the same sampler with
        the same scalar parameters, one whose numbers are made one after another whatever the
        size (``_SEQUENTIAL``). Drawing ``trip * per_step`` numbers at once then gives each step
        its numbers in NumPy's order, without a Python call per step (``rng.normal()`` in a
        loop of 10**5 steps: 500 ms -> 1 ms)."""
        by_generator: dict = {}
        for k, (_, fn, _, _, generator) in enumerate(self.sites):
            if generator is None:
                by_generator.setdefault(_bit_generator_id(fn), []).append(k)
        done: set = set()
        for key, sites in by_generator.items():
            calls = {_sequential_call(self.sites[k][1]) for k in sites}
            if key is None or len(calls) != 1 or None in calls:
                continue
            (_, params, named), = calls
            sampler = self.sites[sites[0]][1].func
            sizes = [int(np.prod(self.sites[k][2], dtype=np.int64)) for k in sites]
            per_step = sum(sizes)
            drawn = np.asarray(sampler(*params, **dict(named), size=self.trip * per_step))
            drawn = drawn.reshape(self.trip, per_step)
            at = 0
            for k, n in zip(sites, sizes):
                outs[k][...] = drawn[:, at:at + n].reshape(outs[k].shape)
                at += n
            done.update(sites)
        return done

    def run(self, values: list) -> None:
        outs = [np.empty((self.trip, *shape), dtype) for _, _, shape, dtype, _ in self.sites]
        if self.alive():
            self._steps(outs)
        for (k, *_), out in zip(self.sites, outs):
            values[k] = out

    def advance_local(self) -> None:
        """While tracing, after the body: each local generator drawn in it as after every step,
        so that the draws the function makes after the loop go on from there."""
        if any(generator is not None for *_, generator in self.sites):
            for k, ended in self._steps().items():  # (one not drawn here ends where it started)
                set_state(self.starts[k][0], ended)


# Samplers whose ``size=n`` draw is n draws of one number, one after another (no buffer of
# bits kept across the call, as ``integers`` keeps for small ranges; no values shared between
# elements): for float64 output, with scalar parameters.
# Each with how many parameters it takes before ``size`` (positionally).
_SEQUENTIAL = {"normal": 2, "standard_normal": 0, "random": 0, "random_sample": 0, "uniform": 2,
               "exponential": 1, "standard_exponential": 0}


def _sequential_call(fn):
    """(method, parameters) of a call-time draw ``fn`` whose steps ``LoopDraws`` may draw in
    one call, else None."""
    if not isinstance(fn, functools.partial) or getattr(fn.func, "__name__", None) not in _SEQUENTIAL:
        return None
    count = _SEQUENTIAL[fn.func.__name__]
    if len(fn.args) > count + 1 or set(fn.keywords) - {"size", "loc", "scale", "low", "high"}:
        return None  # (dtype= and out= change the draw)
    named = tuple(sorted((k, v) for k, v in fn.keywords.items() if k != "size"))
    params = (*fn.args[:count], *(v for _, v in named))  # (a size by position comes after them)
    if any(not isinstance(v, (int, float, np.floating, np.integer)) or isinstance(v, bool) for v in params):
        return None
    return fn.func.__name__, tuple(float(v) for v in fn.args[:count]), tuple((k, float(v)) for k, v in named)


def _bit_generator_id(fn):
    """The id of the bit generator ``fn`` draws from this call (generators sharing one share
    its stream), or None."""
    owner = getattr(getattr(fn, "func", None), "__self__", None)
    if isinstance(owner, generator_arguments.GeneratorArgument):
        owner = owner.current()
    if isinstance(owner, np.random.Generator):
        return id(owner.bit_generator)
    if isinstance(owner, np.random.RandomState):
        return id(owner._bit_generator)
    return None


def set_state(generator, source) -> None:
    """``generator``'s state made ``source``'s (a Generator's bit generator, or a RandomState)."""
    if isinstance(generator, np.random.RandomState):
        generator.set_state(source.get_state())
    else:
        target = generator if isinstance(generator, np.random.BitGenerator) else generator.bit_generator
        origin = source if isinstance(source, np.random.BitGenerator) else source.bit_generator
        target.state = origin.state


class LoopFrame:
    """A loop whose body is being traced: ``steps`` its range when the trip count is static,
    else None and ``bounds`` its traced bounds."""

    __slots__ = ("block", "index", "steps", "depth", "group", "bounds", "starts", "key", "drawn")

    def __init__(self, block, index: Tracer, steps: range | None, depth: int, bounds=(), starts=None,
                 key=None):
        self.block, self.index, self.steps, self.depth = block, index, steps, depth
        self.bounds, self.starts = bounds, starts if starts is not None else {}
        self.group: LoopDraws | None = None
        self.key = key  # the same object for each trace of this loop's body
        self.drawn: set = set()  # the generators (``random.generator_key``) drawn for every step


@dataclass
class Inputs:
    """What one compiled variant reads on each call, in hidden-argument order."""

    # per hidden argument: ("array", read, (shape, dtype, layout class), copied) or ("draw", fn)
    slots: list = field(default_factory=list)
    guards: list = field(default_factory=list)  # (read, value): scalars the code named
    # (position, fn): np.random.seed(...) calls and generators made from a traced seed, in
    # order; fn(arguments) gets the call's flat arguments
    effects: list = field(default_factory=list)
    contents: list = field(default_factory=list)  # (read, dtype, shape, bytes): small frozen arrays
    groups: list = field(default_factory=list)  # (position, LoopDraws): the draws of a loop's steps
    states: object = None  # native_draws.States: PCG64 state buffers, filled after the draws

    def __bool__(self) -> bool:
        return bool(self.slots or self.guards or self.effects or self.contents or self.groups)

    def prepare(self) -> None:
        """What each call does, worked out once when the trace is done."""
        # per array slot: (index, read, dtype, shape, its layout class, or None: copied)
        layouts = []
        for k, slot in enumerate(self.slots):
            if slot[0] == "array":
                _, read, (shape, dtype, layout), copied = slot
                layouts.append((k, read, dtype, shape, None if copied else layout))
        self._arrays = layouts
        self._copies = [k for k, *_, layout in layouts if layout is None]
        draws = [(k, slot[1]) for k, slot in enumerate(self.slots) if slot[0] == "draw"]
        # In program order: a seed runs before the draws traced after it; a loop's draws, all
        # of its steps, where its first draw was traced.
        self._actions = sorted([(k, 0, fn) for k, fn in draws] + [(k, -1, fn) for k, fn in self.effects]
                               + [(k, 1, group) for k, group in self.groups], key=lambda a: a[:2])
        self._count = len(self.slots)
        if self.states is not None:
            self.states.prepare()

    def read(self) -> list | None:
        """The arrays of the array slots (None at draw slots), or None when a global changed
        dtype, shape or layout, or a guarded scalar or small frozen array changed: this variant
        does not apply."""
        for read, value in self.guards:
            if not _same(read(), value):
                return None
        for read, dtype, shape, data in self.contents:
            a = read()
            if type(a) is not np.ndarray or a.dtype != dtype or a.shape != shape or a.tobytes() != data:
                return None
        values = [None] * self._count
        for k, read, dtype, shape, layout in self._arrays:
            a = read()
            if type(a) is not np.ndarray or a.shape != shape or (a.dtype is not dtype and a.dtype != dtype):
                return None
            if layout == layout_class.C:
                if not a.flags.c_contiguous:
                    return None  # the code was compiled for another layout
            elif layout is not None and (a.flags.c_contiguous or _unaligned(a)
                                         or layout_class.classify(a.shape, a.strides, a.itemsize) != layout):
                return None
            values[k] = a
        return values

    def draw(self, values: list, arguments=()) -> list:
        """``values`` with each draw made, in program order (seeds included); ``arguments``:
        the call's flat arguments, which a seed may be."""
        for k, kind, fn in self._actions:
            if kind == 0:
                values[k] = np.asarray(fn())
            elif kind == 1:
                fn.run(values)
            else:
                fn(arguments)
        if self.states is not None:
            self.states.fill(values)
        return values

    def finish(self, values: list) -> None:
        """After the call, returned or raised: the generators take their state buffers' state."""
        if self.states is not None:
            self.states.finish(values)

    def copied(self, hidden: list) -> list:
        """``hidden`` with each unaligned array a contiguous copy (the code's writes are copied
        back to the original, as for an unaligned argument); ``hidden`` itself when none is."""
        if not self._copies:
            return hidden
        out = list(hidden)
        for k in self._copies:
            out[k] = np.ascontiguousarray(out[k])
        return out


def _unaligned(a: np.ndarray) -> bool:
    """Whether compiled code cannot address ``a`` by element strides."""
    return not a.flags.aligned or any(s % a.itemsize for s in a.strides)


# The instructions that read a module-level name; ``co_names`` also holds attribute and
# import names (``np.exp`` names ``exp``), which must not make a same-named global an input.
_GLOBAL_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_NAME"})


# Kept per code object (equal code objects load the same names): every trace registers the
# functions it calls again, and a loop body's trace calls its body again and again; disassembling
# them was 7% of tests/jitcore/test_control_flow_run.py's CPU.
@functools.lru_cache(maxsize=1024)
def _names(code) -> frozenset[str]:
    """The names a code object and the code nested in it may load from globals."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname in _GLOBAL_LOADS}
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return frozenset(names)


_ATTRIBUTE_OPS = frozenset({"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR"})


@functools.lru_cache(maxsize=1024)  # as ``_names``: a function of the code object's contents
def _attribute_names(code) -> frozenset[str]:
    """The attribute names a code object and the code nested in it load or store, and its
    string constants (the keys it may look up: ``PARAMS["w"]``)."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname in _ATTRIBUTE_OPS}
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _attribute_names(c)
        elif type(c) is str:
            names.add(c)
    return frozenset(names)


_MEMBERS = 256  # items of a global dict, list or tuple looked at, at most


def _class_dict(cls):
    """The dict behind a class's ``__dict__`` proxy, which a read of the native call reads as it
    reads a module's globals (the proxy itself would send every call the Python way: 4 us
    against 0.2 for a bound method naming ``self.K``); the proxy where it cannot be found."""
    referents = gc.get_referents(cls.__dict__)
    return referents[0] if len(referents) == 1 and type(referents[0]) is dict else cls.__dict__


def shared_advice(shared: str | None) -> str:
    """What to do instead of changing a default's or a partial's list, dict or set."""
    if shared is None:
        return ""
    return ("Pass it at each call instead (f(x, cache=my_list): the changes to an argument's "
            "list or dict are made at each call), or, for a memo of values made from static "
            "arguments, cache them in a helper decorated with functools.lru_cache. ")


def _shared_state(value) -> bool:
    """A value one call can change for the next: a list, dict, set or an object of the user's."""
    return type(value) in (list, dict, set) or _users_instance(value)


def _users_instance(obj) -> bool:
    """An instance of a class of the user's (not a module, class, function, or jitcore's)."""
    if type(getattr(obj, "__dict__", None)) is not dict or isinstance(
            obj, (types.ModuleType, type, types.FunctionType, types.MethodType)):
        return False
    module = sys.modules.get(type(obj).__module__)
    return not is_jitcore_file(getattr(module, "__file__", None) or "")


class ItemRead:
    """Reads a list's (or tuple's) item on each call."""

    __slots__ = ("container", "index")

    def __init__(self, container, index: int):
        self.container, self.index = container, index

    def __call__(self):
        return self.container[self.index] if self.index < len(self.container) else _MISSING


class IsRead:
    """Whether ``read()`` still gives ``obj`` itself: a global or closed-over list or tuple whose
    items are read on each call (``L = [0.1]`` or ``TUP = (0.1,)`` bound anew must trace again,
    as its items' reads would go on reading the old one)."""

    __slots__ = ("read", "obj", "name")

    def __init__(self, read, obj, name: str):
        self.read, self.obj, self.name = read, obj, name

    def __call__(self):
        return self.read() is self.obj


def _write_back(read, value) -> None:
    """Put ``value`` back where ``read`` reads it (a refused trace leaves the program's
    objects as they were: ``global COUNT; COUNT += 1`` changed COUNT while tracing)."""
    if isinstance(read, GlobalRead):
        read.namespace[read.name] = value
    elif isinstance(read, CellRead):
        read.cell.cell_contents = value
    elif isinstance(read, ItemRead) and type(read.container) is list:
        read.container[read.index] = value


_LIBRARY_PATHS = tuple(os.path.abspath(p) + os.sep for p in {
    sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})


@functools.lru_cache(maxsize=1024)
def _users_file(filename: str | None) -> bool:
    """Code of the user's own (not jitcore's, NumPy's, the standard library's or an installed
    package's): what it holds may change between calls; a library's constants do not."""
    return bool(filename) and is_user_file(filename) \
        and not os.path.abspath(filename).startswith(_LIBRARY_PATHS)


def _users_module(obj) -> bool:
    return type(obj) is types.ModuleType and _users_file(getattr(obj, "__file__", None))


def _users_class(obj) -> bool:
    """A class of the user's, of the plain metaclass (compared by identity, read through its dict)."""
    return type(obj) is type and _users_file(getattr(sys.modules.get(obj.__module__), "__file__", None))


def _users_function(obj) -> bool:
    return type(obj) is types.FunctionType and _users_file(obj.__code__.co_filename)


_SNAPSHOT_LIMIT = 4096  # items: an outside container this small is compared after the trace


def _changed(obj, before) -> bool:
    """Whether a list, dict or set holds other items than its copy ``before`` (by identity)."""
    if len(obj) != len(before):
        return True
    if type(obj) is list:
        return any(a is not b for a, b in zip(obj, before))
    if type(obj) is dict:
        return any(k not in before or before[k] is not v for k, v in obj.items())
    return any(k not in before for k in obj)


def _state(obj):
    """A comparable snapshot of a random generator's state."""
    if isinstance(obj, np.random.RandomState):
        state = obj.get_state(legacy=False)
    elif isinstance(obj, np.random.Generator):
        state = obj.bit_generator.state
    else:
        state = obj.state
    return _frozen(state)


def _frozen(x):
    if isinstance(x, dict):
        return tuple((k, _frozen(v)) for k, v in sorted(x.items()))
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.tobytes())
    return x


class Recorder:
    """The call-time inputs of one trace, and the random generators it must leave untouched."""

    def __init__(self, function_name: str):
        self.function_name = function_name
        self.trace = None
        self.block = None
        self.inputs = Inputs()
        self.specs: list = []  # (shape, dtype, layout class) per hidden argument
        self.tracers: list[Tracer] = []  # per hidden argument
        self._known: dict[int, tuple] = {}  # id(array) -> (array, read, name)
        self._outside: dict[int, object] = {}  # id -> the objects whose attributes were noted
        self._labels: dict[int, str] = {}  # id -> how the code names an outside list, dict or set
        self._shared: dict[int, str] = {}  # id -> how a default or partial's container is held
        self._snapshots: dict[int, tuple] = {}  # id -> (outside list, dict or set, its copy)
        self._made: dict[int, object] = {}  # id -> instances of the user's classes made while tracing
        self._made_depth: dict[int, int] = {}  # id -> the region depth it was made at
        self.initializing: set[int] = set()  # ids of the made instances whose __init__ runs
        self._hidden: dict[int, Tracer] = {}  # id(array) -> its hidden argument's tracer
        self._written: set[int] = set()  # id(array) of outer arrays written by subscript
        self._guarded: set = set()
        self._registered: set = set()  # code objects whose names were looked at
        self._watched: dict[int, tuple] = {}  # id(generator) -> (generator, state at first sight)
        self._local: dict[int, tuple] = {}  # id -> (generator made while tracing (seeded), trace depth)
        self._loop_starts: dict = {}  # a loop's key -> its local generators as its first trace found them
        self.loops: list[LoopFrame] = []  # static-trip-count loop bodies being traced, innermost last
        # Arrays from outside are traced inputs where the code reads them (read_input), so that
        # what NumPy computes from them alone (-L, F.T) is computed at each call. Off for the
        # trace that compiler.trace retries when that one failed (a mask, an int read from one).
        self.reads_as_inputs = True
        self.read_arrays: dict[int, np.ndarray] = {}  # id -> the outside arrays the code read by a name
        # Generators drawn from while the compiled code runs (``random``: a callback), from the
        # first such draw in program order on: every later draw from one is made so too.
        self._live: set = set()
        self._live_from: dict = {}  # a loop's key -> the generators live from its body's start
        self._again: set = set()  # the keys of loops whose body must be traced again
        self.state_buffers: dict = {}  # native_draws.state_key -> its PCG64 state buffer's tracer

    @contextmanager
    def recording(self, trace, block):
        """While ``trace`` runs into ``block`` (the function's body): this thread's recorder."""
        self.trace, self.block = trace, block
        self._watch(np.random.mtrand._rand)
        for generator in generator_arguments.current_generators():  # the call's own arguments
            self._watch(generator)
        previous = getattr(_ACTIVE, "recorder", None)
        _ACTIVE.recorder = self
        try:
            yield self
        except BaseException as error:
            self.undo()  # a failed trace leaves the program's objects as they were
            if self.reads_as_inputs and self.read_arrays and isinstance(error, Exception):
                error.outside_arrays_read = True  # (compiler.trace: traced again, reads concrete)
            raise
        finally:
            _ACTIVE.recorder = previous

    def undo(self) -> None:
        """Put back the guarded values and outside containers that the trace changed."""
        self._put_back_containers()
        for read, value in self.inputs.guards:
            now = read()
            if now is not _MISSING and not _same(now, value):
                _write_back(read, value)

    def finish(self) -> None:
        """After the trace: refuse unseen draws, guard small frozen arrays, fix the call's steps."""
        self.check_generators()
        self.check_containers()
        self.check_guards()
        self.guard_frozen()
        self.inputs.prepare()

    def check_containers(self) -> None:
        """Refuse a trace during which an outside list, dict or set changed by a path that
        ``runtime`` does not refuse as it happens (``global LOG; LOG += [v]``, a library
        function given it): compiled, the change would happen once, not at each call. The
        container is put back as tracing found it."""
        changed = self._put_back_containers()
        for obj in changed[:1]:
            kind = type(obj).__name__
            shared = self._shared.get(id(obj))
            raise UnsupportedError(
                f"the {kind} {self._labels.get(id(obj), '')} from outside {self.function_name}() "
                f"{f'({shared}, one {kind} for every call) ' if shared else ''}"
                f"changed while it was traced: its Python code runs once, while it compiles, not "
                f"at each call as NumPy's would, so the {kind} would change once (it was put back "
                f"as it was). {shared_advice(shared)}Return the value and store it outside the "
                "jitted function, or count "
                "in an array made beforehand (COUNTS[i] += 1), which the compiled code writes at "
                "each call")

    def _put_back_containers(self) -> list:
        """The outside containers the trace changed, each put back as the code found it."""
        changed = [obj for obj, before in self._snapshots.values() if _changed(obj, before)]
        for obj in changed:
            before = self._snapshots[id(obj)][1]
            if type(obj) is list:
                obj[:] = before
            else:
                obj.clear()
                obj.update(before)
        return changed

    def check_guards(self) -> None:
        """Refuse a guarded number that the trace itself changed (``global N; N += 1``, a
        nonlocal's, a dict item's): compiled, the change would happen once, and the guard
        would find it changed at every call (each call would trace again)."""
        changed = [(read, value, now) for read, value in self.inputs.guards
                   if (now := read()) is not _MISSING and not _same(now, value)]
        for read, value, _ in changed:
            _write_back(read, value)  # refused: the program's values as they were
        for read, value, now in changed[:1]:
            name = getattr(read, "name", "a global")
            raise UnsupportedError(
                f"'{name}' changed from {value!r} to {now!r} while the jitted function was "
                "traced: a jitted function runs its Python statements once, while it compiles, "
                f"so a change to a Python number it reads ('global {name}; {name} += 1', a "
                "nonlocal's, an attribute's) would not happen at each call. Keep a value that "
                "changes in an array (COUNT = np.zeros(1); COUNT[0] += 1 is written at each "
                f"call), or change it outside the jitted function ('{name}' was set back to "
                f"{value!r})")

    def guard_frozen(self) -> None:
        """Guard by content each small array the code names but did not use with a traced value:
        NumPy work on it ran while tracing (``W.sum()``, a mask's count), so a change must
        recompile. A larger one stays frozen (comparing it on each call would cost a pass)."""
        for value, read, _ in self._known.values():
            # retried with reads concrete: one also made an input may have given constants (-L)
            derived = not self.reads_as_inputs and id(value) in self.read_arrays
            if (id(value) not in self._hidden or derived) and value.size <= FROZEN_GUARD_LIMIT \
                    and value.dtype.kind != "O":
                self.inputs.contents.append((read, value.dtype, value.shape, value.tobytes()))

    def check_generators(self) -> None:
        """Refuse a trace during which a random generator the code can reach drew numbers that
        were not made call-time draws: they would be constants in the compiled code."""
        for generator, state in self._watched.values():
            if _state(generator) != state:
                owner = ("np.random's global generator" if generator is np.random.mtrand._rand
                         else f"a {type(generator).__name__}")
                raise UnsupportedError(
                    f"while tracing {self.function_name}(), {owner} drew numbers that jitcore "
                    "did not see (a library function using np.random, or jit(..., "
                    "autograph=False)): they would be frozen into the compiled code. Draw them in "
                    f"{self.function_name}() itself with autograph on, or outside and pass them in."
                )

    # -- names the code reads ----------------------------------------------------------------
    def register(self, fun) -> None:
        """Note the globals and closure cells that ``fun``'s code names (once per code object),
        and the attributes it names of the objects among them and of a bound method's ``self``
        (``self.w``, ``model.w``: read from the object's ``__dict__`` on each call, as a
        global is from its module's)."""
        if isinstance(fun, functools.partial):
            self._note_bound(fun)
            fun = fun.func
        bound_to = getattr(fun, "__self__", None) if isinstance(fun, types.MethodType) else None
        fun = getattr(fun, "__func__", fun)
        if not isinstance(fun, (types.FunctionType, type, types.MethodType)) and callable(fun):
            if _users_instance(fun):
                bound_to = fun  # gain(x): its __call__ reads self.g, self.w as a method would
            fun = type(fun).__dict__.get("__call__", fun)  # a callable object: its __call__
        code = getattr(fun, "__code__", None)
        if not isinstance(fun, types.FunctionType) or code is None or code in self._registered:
            return
        if is_jitcore_file(code.co_filename):  # jitcore.numpy's own: its cells are the library's
            return
        self._registered.add(code)
        namespace = fun.__globals__
        attributes = _attribute_names(code)
        for name in _names(code):
            if name in namespace:
                self._note(GlobalRead(namespace, name), name)
                self._note_attributes(namespace[name], name, attributes)
        for name, cell in zip(code.co_freevars, fun.__closure__ or ()):
            read = CellRead(cell, name)
            self._note(read, name)
            self._note_attributes(read(), name, attributes)
        if bound_to is not None and self.made_here(bound_to):
            # an object the trace made holds no call-time input (its arrays: local_arrays), but
            # set_attribute refuses an attribute set in its method, as for one from outside
            self._outside[id(bound_to)] = bound_to
        elif bound_to is not None:
            self._note_attributes(bound_to, "self", attributes)
        # A default array (def f(x, w=np.ones(3))) is one object for every call, which the
        # program may change in place between calls, as it may a global: read on each call too.
        # Scalar defaults are left out: they cannot change in place, and guarding them would
        # send every call of a function with defaults through the call-time path.
        # A default list, dict, set or object (def f(x, cache=[])) is shared by every call too:
        # noted as a global's is, so a change to it is refused (runtime.refuse_outside_change)
        # and its items are read at each call. Before session 49 the trace changed it once and
        # left its tracer in it (a stale one broke the next trace, and the plain function).
        positional = code.co_varnames[:code.co_argcount]
        defaults = fun.__defaults__ or ()
        named = [(DefaultRead(fun, k), positional[len(positional) - len(defaults) + k], value)
                 for k, value in enumerate(defaults)]
        named += [(DefaultRead(fun, name), name, value)
                  for name, value in (fun.__kwdefaults__ or {}).items()]
        for read, name, value in named:
            if type(value) is np.ndarray:
                self._note(read, name)
            elif _shared_state(value):
                self._note_shared(read, name, value, f"the default value of '{name}' in "
                                  f"{fun.__name__}()", attributes)

    def _note_bound(self, bound: functools.partial) -> None:
        """The lists, dicts, sets and objects that ``functools.partial`` bound: shared by every
        call, as a default is."""
        code = getattr(bound.func, "__code__", None)
        attributes = _attribute_names(code) if code is not None else frozenset()
        reads = [(ItemRead(bound.args, i), f"argument #{i}", v) for i, v in enumerate(bound.args)]
        reads += [(GlobalRead(bound.keywords, k), k, v) for k, v in bound.keywords.items()]
        for read, name, value in reads:
            if _shared_state(value):
                self._note_shared(read, name, value, f"'{name}', bound by functools.partial",
                                  attributes)

    def _note_shared(self, read, name: str, value, where: str, attributes) -> None:
        """A list, dict, set or object that one function object holds for every call (a
        default, a partial's argument): noted as a global's, and said to be one."""
        self._note(read, name)
        self._note_attributes(value, name, attributes)
        self._shared[id(value)] = where

    def shared(self, obj) -> str | None:
        """How ``obj``, a default or a partial's argument, is held (for a refusal's text)."""
        return self._shared.get(id(obj)) if self.outside(obj) else None

    def _note_attributes(self, obj, name: str, code_names, depth: int = 3) -> None:
        """What the code may read inside ``obj``, one of its globals or cells (or a bound
        method's ``self``), read on each call rather than frozen at the first (before session
        40 they were constants: an array changed in place or bound anew between calls, a
        number changed, was not seen). ``code_names``: the attribute names and string
        constants of the code. An instance of the user's class: the attributes the code names,
        from its ``__dict__`` (or its class's); a dict: its items (numbers: those the code
        names); a list or tuple: its arrays. Members of members likewise, ``depth`` deep."""
        if depth <= 0:
            return
        members = []  # (read, label, value)
        if type(obj) is dict:
            members = [(GlobalRead(obj, k), f"{name}[{k!r}]", v)
                       for k, v in itertools.islice(obj.items(), _MEMBERS)
                       if type(k) is str and (type(v) is np.ndarray or k in code_names
                                              or not isinstance(v, _GUARDED))]
        elif type(obj) in (list, tuple):
            # numbers too: L[0], TUP[i] are read at the call as a global number is (guarded)
            members = [(ItemRead(obj, i), f"{name}[{i}]", v) for i, v in enumerate(obj[:_MEMBERS])]
        elif _users_module(obj) or _users_class(obj):
            # settings.THR, Cfg.K: from the module's or class's dict, as a global from its module's
            own = obj.__dict__ if type(obj) is types.ModuleType else _class_dict(obj)
            self._outside[id(obj)] = obj  # (settings.THR = v in the traced code is refused)
            members = [(GlobalRead(own, a), f"{name}.{a}", own[a]) for a in code_names & own.keys()
                       if not a.startswith("__")]
        if type(obj) in (dict, list, set):
            self._outside[id(obj)] = obj  # (changing it while tracing is refused: runtime.call)
            self._labels.setdefault(id(obj), name)
            if id(obj) not in self._snapshots and len(obj) <= _SNAPSHOT_LIMIT:
                self._snapshots[id(obj)] = (obj, obj.copy())  # (check_containers)
        elif _users_instance(obj):
            self._outside[id(obj)] = obj
            own, shared = obj.__dict__, _class_dict(type(obj))
            members = [(GlobalRead(own, a), f"{name}.{a}", own[a]) for a in code_names & own.keys()]
            members += [(GlobalRead(shared, a), f"{name}.{a}", shared[a])
                        for a in (code_names & shared.keys()) - own.keys()
                        if type(shared[a]) is np.ndarray or isinstance(shared[a], _GUARDED)]
        for read, label, value in members:
            self._note(read, label)
            self._note_attributes(value, label, code_names, depth - 1)

    def outside(self, obj) -> bool:
        """Whether ``obj`` is an object the traced code reads from outside it (a bound method's
        ``self``, an object among its globals and cells, or one held in theirs)."""
        return self._outside.get(id(obj)) is obj

    def label(self, obj) -> str | None:
        """How the code names ``obj``, an outside list, dict or set (``LOG``, ``OBJ.items``)."""
        return self._labels.get(id(obj)) if self.outside(obj) else None

    def _note(self, read, name: str) -> None:
        value = read()
        if type(value) is np.ndarray:
            self._known.setdefault(id(value), (value, read, name))
        elif type(value) in (list, tuple):
            key = (id(value), name)
            if key not in self._guarded:  # its items are read from it: bound anew, trace again
                self._guarded.add(key)
                self.inputs.guards.append((IsRead(read, value, name), True))
        elif isinstance(value, (*_GUARDED, *_GENERATORS)) or _users_function(value) or _users_class(value):
            # a function or class by identity: helper = lambda x: x * 3 runs the new one
            # a generator by identity: the draws come from the object the trace saw, so a name
            # bound to another one (RNG = np.random.default_rng(7), to reseed) must trace again
            key = (id(read.namespace if isinstance(read, GlobalRead)
                      else read.container if isinstance(read, ItemRead) else read.cell), name)
            if key not in self._guarded:
                self._guarded.add(key)
                self.inputs.guards.append((read, value))
            if isinstance(value, _GENERATORS):
                self._watch(value)

    def read_input(self, value):
        """``value`` as the traced code reads it by a name, an attribute or an item: an outside
        array (a global's, a cell's, a default's, an outside object's) becomes its hidden
        argument there, before any NumPy work on it, so that ``-L``, ``F.T``, ``norm(W)`` are
        traced from the call's array rather than computed once while tracing and frozen."""
        known = self._known.get(id(value))
        if known is None or known[0] is not value:
            return value
        self.read_arrays[id(value)] = value
        if not self.reads_as_inputs:
            return value
        hidden = self.hidden_array(self.trace, value)
        return value if hidden is None else hidden

    def hidden_array(self, trace, value: np.ndarray) -> Tracer | None:
        """The hidden argument standing for ``value`` when it is a global or closed-over array
        of the traced code, else None (it is then a constant, as arrays made while tracing)."""
        if trace is not self.trace:
            return None
        tracer = self._hidden.get(id(value))
        if tracer is not None:
            return tracer
        known = self._known.get(id(value))
        if known is None or known[0] is not value or value.dtype not in SUPPORTED_DTYPES:
            return None
        contiguous = value.flags.c_contiguous
        copied = not contiguous and _unaligned(value)  # passed as a copy on each call
        layout = (layout_class.C if contiguous or copied
                  else layout_class.classify(value.shape, value.strides, value.itemsize))
        spec = (value.shape, value.dtype, layout)
        tracer = self._argument(spec, ("array", known[1], spec, copied), known[2])
        self._hidden[id(value)] = tracer
        return tracer

    # -- random draws ------------------------------------------------------------------------
    def draw(self, fn, sample) -> Tracer:
        """A hidden argument that ``fn()`` fills on each call; ``sample`` (a draw from a copy
        of the generator) gives its shape and dtype."""
        scalar = not isinstance(sample, np.ndarray)  # size=() draws a 0-d array, not a scalar
        sample = np.asarray(sample)
        tracer = self._argument((sample.shape, sample.dtype, layout_class.C), ("draw", fn), "a random draw")
        tracer.scalar = scalar
        return tracer

    def loop_frame(self, trace) -> LoopFrame | None:
        """The loop whose body is being traced, when a draw there can be made for each of its
        steps before the call: the body of one loop with a static trip count, in no branch."""
        if trace is not self.trace or len(self.loops) != 1 or trace.depth != 1:
            return None
        frame = self.loops[0]
        return frame if frame.depth == 1 and frame.steps is not None else None

    def loop_bounds(self) -> tuple:
        """The traced bounds of the loops whose bodies are being traced."""
        return tuple(b for frame in self.loops for b in frame.bounds)

    def loop_draw(self, frame: LoopFrame, fn, sample, generator=None) -> Tracer:
        """This step's value of a draw in ``frame``'s body: a hidden argument holding every
        step's draw, indexed by the step. ``generator``: a local generator's id, whose draws
        ``fn(copy)`` makes from a copy of it as the loop found it."""
        if frame.group is None:
            frame.group = LoopDraws(frame.block, len(frame.steps), frame.starts)
            self.inputs.groups.append((len(self.inputs.slots), frame.group))
        sample = np.asarray(sample)
        group = frame.group
        stacked = self._argument(((group.trip, *sample.shape), sample.dtype, layout_class.C), ("loop",),
                                 "random draws of a loop")
        group.sites.append((len(self.inputs.slots) - 1, fn, sample.shape, sample.dtype, generator))
        start, stride = frame.steps.start, frame.steps.step
        step = frame.index if (start, stride) == (0, 1) else (frame.index - start) // stride
        return stacked[step]

    def effect(self, fn) -> None:
        """``fn(arguments)`` runs on each call, after the draws traced before it (``seed``),
        with the call's flat arguments."""
        self.inputs.effects.append((len(self.inputs.slots), fn))

    def argument_index(self, tracer: Tracer) -> int | None:
        """Which of the call's flat arguments ``tracer`` is (its value read at call time), or
        None when it is computed in the function (or a hidden input)."""
        if tracer.owner_trace is not self.trace or tracer.view_of is not None:
            return None
        value = tracer._value
        real = len(self.block.args) - len(self.specs)  # the hidden arguments come last
        if isinstance(value, BlockArgument) and value.block is self.block and value.index < real:
            return value.index
        return None

    def note_made(self, obj) -> None:
        self._made[id(obj)] = obj
        trace = current_trace()
        self._made_depth[id(obj)] = 0 if trace is None else trace.depth

    def made_depth(self, obj) -> int:
        """The trace's region depth where ``obj`` was made (0: the function's own level)."""
        return self._made_depth.get(id(obj), 0)

    def made_here(self, obj) -> bool:
        """Whether ``obj`` is an instance the traced function made (``t = Tracker()``)."""
        return self._made.get(id(obj)) is obj

    def is_local(self, generator) -> bool:
        return id(generator) in self._local

    def local_depth(self, generator) -> int:
        """The depth of the region a local generator was made in (0: the function's body)."""
        return self._local[id(generator)][1]

    def make_local(self, generator, depth: int = 0) -> None:
        self._local[id(generator)] = (generator, depth)

    def loop_starts(self, key) -> dict:
        """The local generators as the loop ``key``'s first trace found them, each set back to
        that state: a body traced again starts where the first did."""
        starts = self._loop_starts.get(key)
        if starts is None:
            starts = self._loop_starts[key] = {k: (g, copy.deepcopy(g)) for k, (g, _) in self._local.items()}
        for generator, start in starts.values():
            set_state(generator, start)
        return starts

    def is_live(self, key) -> bool:
        return key in self._live

    def go_live(self, key) -> None:
        """From here on, ``key``'s draws are made while the code runs. A loop being traced that
        drew from it for every step before the call would draw out of order: its body is traced
        again with the generator live from its start (``body_again``)."""
        self._live.add(key)
        for frame in self.loops:
            if key in frame.drawn and frame.key is not None:
                self._live_from.setdefault(frame.key, set()).add(key)
                self._again.add(frame.key)
                break  # the outermost: the loops inside it are traced again with it

    def body_again(self, key) -> bool:
        """Whether the body of the loop ``key`` must be traced again (once per such draw)."""
        if key in self._again:
            self._again.discard(key)
            return True
        return False

    def _watch(self, generator) -> None:
        if id(generator) not in self._watched and id(generator) not in self._local:
            self._watched[id(generator)] = (generator, _state(generator))

    def _argument(self, spec, slot, name: str) -> Tracer:
        shape, dtype, _ = spec
        value = self.block.add_arg(TensorType(shape, ir_type(dtype)))
        tracer = Tracer(value, self.trace, frozenset({name}))
        tracer.caller_sees = True
        tracer.level = 0  # a function argument: visible in every region
        self.inputs.slots.append(slot)
        self.specs.append(spec)
        self.tracers.append(tracer)
        return tracer


# Why the loop being traced runs a number of steps only the data decides ("a while loop", "a
# for loop that may break or return"), for the message that refuses a draw in it (``random``).
_UNKNOWN_TRIPS = threading.local()


@contextmanager
def unknown_trips(why: str):
    """While a loop whose trip count the data decides is traced: ``why``, for ``trips_why``."""
    before = getattr(_UNKNOWN_TRIPS, "why", None)
    _UNKNOWN_TRIPS.why = why
    try:
        yield
    finally:
        _UNKNOWN_TRIPS.why = before


def trips_why() -> str | None:
    """The innermost loop being traced whose trip count the data decides, in words, or None."""
    return getattr(_UNKNOWN_TRIPS, "why", None)


@contextmanager
def static_loop(trace, block, index: Tracer, steps: range | None, key=None, bounds=()):
    """While a ``fori_loop`` body is traced into ``block``: ``steps`` is its range when the
    trip count is static (draws in it are then made for every step), else None and ``bounds``
    the traced bounds; ``key`` is the same object for each trace of one loop's body."""
    r = getattr(_ACTIVE, "recorder", None)
    if r is None or trace is not r.trace:
        yield
        return
    starts = r.loop_starts(key) if key is not None else None
    r._live |= r._live_from.get(key, set())
    frame = LoopFrame(block, index, steps, trace.depth, bounds, starts, key)
    r.loops.append(frame)
    try:
        yield
    finally:
        r.loops.pop()
    if frame.group is not None:
        frame.group.advance_local()


def body_again(key) -> bool:
    """Whether the body of the static loop ``key`` must be traced again: a generator it drew
    from for every step before the call went live in it (``Recorder.go_live``)."""
    r = getattr(_ACTIVE, "recorder", None)
    return r is not None and r.body_again(key)


def recorder() -> Recorder | None:
    """The recorder of the function being traced on this thread, or None."""
    return getattr(_ACTIVE, "recorder", None)


def hidden_array(trace, value) -> Tracer | None:
    """``value``'s hidden argument in ``trace``, if it is a call-time array there."""
    r = getattr(_ACTIVE, "recorder", None)
    return None if r is None else r.hidden_array(trace, value)


def read_input(value):
    """``Recorder.read_input`` of this thread's trace, or ``value`` when none runs."""
    r = getattr(_ACTIVE, "recorder", None)
    if r is None or type(value) is not np.ndarray:
        return value
    return r.read_input(value)


def register(fun) -> None:
    """Note ``fun``'s globals and cells, when a function is being traced on this thread."""
    r = getattr(_ACTIVE, "recorder", None)
    if r is not None:
        r.register(fun)
        wrapped = getattr(fun, "__wrapped__", None)  # a jitted function: its Python function
        if wrapped is not None:
            r.register(wrapped)


def outer_target(base, key, value):
    """What ``base[key] = value`` writes to, ``base`` a global's or closure's array: its hidden
    argument when the write is traced, else ``base`` itself (NumPy's write, or NumPy's error)."""
    if type(base) is not np.ndarray:
        return base
    tracer = next((x for x in pytree.flatten((key, value))[0] if isinstance(x, Tracer)), None)
    if tracer is None:
        return base
    hidden = hidden_array(tracer.owner_trace, base)
    if hidden is None:
        return base
    _ACTIVE.recorder._written.add(id(base))
    return hidden


def written_array(trace, value, create: bool) -> Tracer | None:
    """``value``'s hidden argument in ``trace`` if the traced code writes it by subscript:
    ``create`` for a name the reading function writes itself (its reads all go through the
    hidden argument), else only once a write was traced (a helper reading what its caller wrote)."""
    r = getattr(_ACTIVE, "recorder", None)
    if r is None or trace is not r.trace:
        return None
    if not create:
        return r._hidden.get(id(value)) if id(value) in r._written else None
    hidden = r.hidden_array(trace, value)
    if hidden is not None:
        r._written.add(id(value))
    return hidden
