"""The user's API: ``jit``, ``make_ir`` and the stages of ``lower``.

``jit(f)`` returns a ``JitFunction``. A call computes the signature key (pytree structure,
shape, dtype and layout of each array, static argument values), and on a miss traces ``f`` with
abstract values, optimises, compiles and caches the executable. Later calls with the same key
go straight to the cached executable; those of plain C-contiguous arrays, from a signature's
second call on, are made by ``jitcore.native_call`` (``JitFunction.__call__`` in native code),
which gives every other call to the Python ``__call__`` below (``python_call``).

Calls may come from many threads at once. A cached call takes no lock. A miss takes a short
lock to claim its key: the first thread to miss traces and compiles it; others missing on the
same key wait for that one compile (and get its result or its error), while different keys
compile at the same time.

Each jitted function keeps at most ``max_signatures`` signatures compiled (``jit``'s argument,
else ``jitcore.config.max_signatures``): a compile beyond it drops the least recently used
one, whose code is then freed once no call is running it. Recency is refreshed on the slow path
only (a call that builds the full key); the fast cache of all-contiguous calls, which takes no
lock, is bounded alike and drops the entry inserted first, so a fast call stays a dict lookup.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import inspect
import itertools
import threading
import time
import types
from collections import OrderedDict, deque, namedtuple
from concurrent.futures import Future
from contextlib import nullcontext

import numpy as np

from jitcore import (
    argument_writes,
    call_memo,
    callables,
    compile_log,
    compiler,
    config,
    cuda,
    disk_cache,
    emission_reuse,
    formatting,
    generator_arguments,
    global_reads,
    inlining,
    ir,
    method_calls,
    methods,
    native_call,
    new_size,
    pickling,
    pytree,
    size_generic,
    static_on_demand,
    tracebacks,  # (installs the text a Tracer formats to: tracer.text_of)
)
from jitcore import primitives as prims
from jitcore.autograph import convert as autograph_convert
from jitcore.autograph import converted, refuse_generator, without_helper_frames
from jitcore.codegen.backend import backend_for
from jitcore.compile_time import CompileClock, unroll_warnings, unrolled_reason, warn_if_slow
from jitcore.compiler import BIG_INT, BIG_INTS, ArgSpec, CompileOptions
from jitcore.dispatch import CallTimeExecutable, Executable, SharedArgument, fast_key, takes_key
from jitcore.dtypes import SUPPORTED_DTYPES
from jitcore.errors import JitcoreError, JitOverflowError, JitTypeError, UnsupportedError
from jitcore.generator_arguments import GeneratorArgument
from jitcore.ir import layout_class
from jitcore.tracer import Tracer, add_user_line, current_trace

DROPPED_KEYS_LOGGED = 64  # signatures dropped lately that the compile log recognises

_NO_GENERATORS = nullcontext()  # a call without generator arguments

_UNSET = object()  # a key the native entries have not seen



def _say_source_unread(error: BaseException, fun, name: str) -> None:
    """Where ``fun``'s source cannot be read (made by exec(), typed at 'python -'), any error
    of its trace may come from its loops and branches running unconverted (a ConcretizationError,
    np.asarray() of a traced value, a Generator's draws unseen): say so once, first, keeping
    the error's kind (a static argument may still fix it)."""
    if not isinstance(error, JitcoreError) or len(error.args) != 1 or str(error) != error.args[0]:
        return
    text = error.args[0]
    if "source jitcore cannot read" in text or "could not give jitcore this function's source" in text \
            or not autograph_convert.source_unreadable(fun):
        return
    error.args = (f"{name}(): Python could not give jitcore this function's source (a function made "
                  "by exec() or typed at 'python -'), so it was traced as is, without converting its "
                  "loops, branches and random draws; define it in a file (a module or a script), or "
                  f"put its source lines in linecache before jit sees it. Tracing it met: {text}",)

class CacheInfo(namedtuple("CacheInfo", ["hits", "misses", "traces", "compiles"])):
    """The four counts of ``JitFunction.cache_info``, and ``from_disk``: of the compiles, those
    whose code came from the disk cache (``jitcore.disk_cache``: LLVM did not run), and
    ``reused``: traces (new sizes of a size-generic function) whose machine code was compiled
    earlier for another size and reused, counted in ``traces`` but not in ``compiles``;
    ``resized``: traces whose optimized program was another size's, resized (``new_size.py``:
    the pass pipeline did not run). ``from_disk``, ``reused`` and ``resized`` are attributes
    beside the tuple, so the four counts unpack."""

    def __new__(cls, hits, misses, traces, compiles, from_disk=0, reused=0, resized=0):
        info = super().__new__(cls, hits, misses, traces, compiles)
        info.from_disk = from_disk
        info.reused = reused
        info.resized = resized
        return info

    def __repr__(self):
        return (f"{super().__repr__()[:-1]}, from_disk={self.from_disk}, reused={self.reused}, "
                f"resized={self.resized})")


class DaskArgument(JitTypeError):
    """An argument is a Dask array (``_leaf``'s check, after arrays and numbers): ``__call__``
    hands the call to ``jitcore.dask_arrays``; ``lower`` and ``make_ir`` raise it."""


_WEAK_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64),
                complex: np.dtype(np.complex128)}


def jit(fun=None, *, static_argnums=(), static_argnames=(), fastmath: bool = False,
        pipeline: str = compiler.DEFAULT_PIPELINE, autograph: bool = True, cache: bool = True,
        max_signatures: int | None = None, backend: str | None = None):
    """Compile ``fun`` on its first call with each new signature; reuse the code afterwards.

    Usable as ``@jit`` or ``@jit(static_argnames=("n",))``. Static arguments are passed to
    ``fun`` as Python values (they must be hashable) and are part of the cache key; entries
    that name no argument of ``fun`` raise ``StaticArgumentError`` here. With ``autograph``
    (the default), ``fun``'s own ``if``/``for``/``while`` on traced values become loops and
    branches in the compiled code (``jitcore.autograph``). With ``cache`` (the default;
    ``jitcore.config.disk_cache`` turns it off for all), compiled code is kept in the disk
    cache and a later process loads it from there (``jitcore.disk_cache``). ``max_signatures``
    bounds the signatures kept compiled (default: ``jitcore.config.max_signatures``).
    ``backend``: ``"cpu"`` or ``"cuda"`` (the GPU, through the CUDA driver: arguments may be
    ``jc.device_put`` arrays, results are ``DeviceArray``s); default ``jitcore.config.backend``.

    ``fun`` may be a function, a ``functools.partial``, a bound method, a callable object or,
    in a class body, a method, ``staticmethod`` or ``classmethod`` (``self``/``cls`` is then a
    static argument). Called while another function is traced, the result is inlined there.
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 fastmath=fastmath, pipeline=pipeline, autograph=autograph, cache=cache,
                                 max_signatures=max_signatures, backend=backend)
    options = CompileOptions(pipeline=pipeline, fastmath=fastmath, target=backend or config.backend)
    return JitFunction(fun, static_argnums, static_argnames, options, autograph=autograph, cache=cache,
                       max_signatures=max_signatures)



def _static_positions(signature, nums, names) -> frozenset | None:
    """The positions of every static argument of a call made without keywords (a static name
    of a positional parameter at its place; a keyword-only one takes its default there), or
    None where binding could move one (``*args``, positions counted from the end)."""
    if signature is None or any(n < 0 for n in nums):
        return None
    params = list(signature.parameters.values())
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params):
        return None
    positional = [p.name for p in params
                  if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return frozenset(nums) | {positional.index(n) for n in names if n in positional}

class JitFunction:
    """A jitted function: call it like the original; inspect it with ``lower`` and ``cache_info``."""

    # _native: the table of signatures the native call (native_call.py) runs; unset, it has none
    __slots__ = ("__dict__", "__weakref__", "_native")

    def __init__(self, fun, static_argnums=(), static_argnames=(), options: CompileOptions | None = None,
                 autograph: bool = True, cache: bool = True, max_signatures: int | None = None):
        self._given = (fun, static_argnums, static_argnames)  # what copies and pickles rebuild from
        fun, self._binds = callables.unwrap_method_kind(fun)
        named = callables.named_after(fun)
        # A callable object's own attributes are not the wrapper's: copy only names and docs.
        own_dict = functools.WRAPPER_UPDATES if inspect.isfunction(fun) else ()
        functools.update_wrapper(self, named, updated=own_dict)
        self.__wrapped__ = fun  # inspect.signature(self) is fun's
        self.__name__ = callables.function_name(fun)
        self.__qualname__ = getattr(named, "__qualname__", self.__name__)
        self.fun = fun = callables.call_method(fun)
        self.autograph = autograph
        self.disk_cache = cache
        if autograph:
            refuse_generator(named)
        self.options = options or CompileOptions()
        # None: jitcore.config.max_signatures, read at each compile.
        self.max_signatures = None if max_signatures is None else config.check_max_signatures(
            max_signatures, "jit(max_signatures=)")
        self._cache: OrderedDict = OrderedDict()  # least recently used first
        self._fast_cache: dict = {}  # all arguments C-contiguous arrays: (dtype, shape) each
        self._memo: dict = {}  # call_memo.key -> call_memo.Structure: flat calls of other kinds
        # fast key -> (executable, its native table entry), or None where it has none
        self._native_entries: dict = {}
        self._native_hits = ctypes.c_int64(0)  # cached calls the native call made
        self._dropped: deque = deque(maxlen=DROPPED_KEYS_LOGGED)  # for the compile log
        # next() of an itertools.count is atomic (one C call under the GIL): cached calls count
        # their hit without a lock. The other counters change under self._lock.
        self._hit = itertools.count().__next__
        self._hit_reads = 0  # values of the hit counter consumed by cache_info
        self._misses = self._traces = self._compiles = self._from_disk = 0
        self._reused = 0  # size-generic hook: executables whose machine code another size made
        self._resized = 0  # new sizes whose optimized program was another size's (new_size.py)
        # optimized programs by their trace's abstract text, each with its emissions' templates
        self._new_sizes = new_size.Memo(emission_reuse.Emissions)
        self._lock = threading.Lock()
        self._pending: dict = {}  # key -> (owner thread id, Future) of a compile in progress
        self._methods: dict = {}  # the twins that bound methods call (__get__)
        # A method's twin for instances with plain state: its flat twins by instance layout
        # (jitcore.method_calls), and the plain-state answer by class; None for other functions.
        self._flats: dict | None = None
        self._of_class = False  # a classmethod's twin: the first argument is the class
        self._instance_twin = None  # _methods["instance"] once made: what __get__ looks at first
        self._plain_classes: dict = {}
        # A flat twin: its method's twin and the instance spec of its native table (a method's
        # table), and that table; None for other functions.
        self._method_of = None
        self._method_table = None
        self._signature = callables.signature_of(fun)
        self._static_nums, self._static_names = callables.static_arguments(
            self._signature, static_argnums, static_argnames, self.__name__)
        self._statics = bool(self._static_nums or self._static_names)
        self._memo_positions = _static_positions(self._signature, self._static_nums, self._static_names)
        self._on_demand = static_on_demand.OnDemand()  # the arguments made static on demand
        self._int_ranges_needed = False  # (``_int_range``)
        # Leaves of argument objects made static on demand, by path (``s.cfg.n``): keyed by
        # value in the tree (``_object_leaves``); calls with such a function skip the memo.
        self._static_leaves: frozenset = frozenset()

    # -- as a class attribute, a copy, a pickle ------------------------------------------
    def __get__(self, instance, owner=None):
        """``@jit`` on a method binds as the function would: ``obj.method`` passes ``obj`` (a
        classmethod: the class) as the first argument. The instance's arrays are arguments,
        read on every call, and its other attributes static (``jitcore.method_calls``); the
        method's compiled code serves all instances of equal state."""
        twin = self._instance_twin  # the common case first: an instance with plain state seen before
        if twin is not None and instance is not None and twin._plain_classes.get(type(instance)):
            return method_calls.BoundJitMethod(twin, instance)
        if self._binds is None or (instance is None and self._binds == "instance"):
            return self
        if self._binds == "instance" and 0 not in self._static_nums and self._signature is not None:
            twin = self._instance_twin = self._methods.get("instance") or self._method_twin("instance")
            plain = twin._plain_classes.get(type(instance))
            if plain is None:
                plain = twin._plain_classes[type(instance)] = methods.has_plain_state(instance)
            if plain:  # the flat twins of jitcore.method_calls: the native call takes these calls
                return method_calls.BoundJitMethod(twin, instance)
        if self._binds == "class" and self._signature is not None and 0 not in self._static_nums:
            twin = self._methods.get("class") or self._method_twin("class")
            return method_calls.BoundJitMethod(twin, owner if owner is not None else type(instance))
        return types.MethodType(self._method_twin("static"), owner if self._binds == "class" else instance)

    def _method_twin(self, kind: str) -> JitFunction:
        """The jitted function that bound calls go through: for instances with plain state and
        classmethods, one that calls the flat twins of ``jitcore.method_calls`` (``instance``,
        ``class``); else one over the method itself with ``self`` static (``static``)."""
        twin = self._methods.get(kind)
        if twin is None:
            with self._lock:
                twin = self._methods.get(kind)
                if twin is None:
                    if kind in ("instance", "class"):  # calls flat twins (_call_method); compiles none
                        twin = JitFunction(self.fun, self._static_nums, self._static_names, self.options,
                                           autograph=self.autograph, cache=self.disk_cache,
                                           max_signatures=self.max_signatures)
                        twin._flats = {}
                        twin._of_class = kind == "class"
                        twin._class_reads = {}  # by class: method_calls.class_reads
                        twin._method_of_class = self
                    else:
                        twin = JitFunction(self.fun, self._static_nums | {0}, self._static_names,
                                           self.options, autograph=self.autograph)
                    self._methods[kind] = twin
        return twin

    def __copy__(self) -> JitFunction:
        """An equivalent jitted function (same function and options) with a cache of its own."""
        fun, nums, names = self._given
        return JitFunction(fun, nums, names, self.options, autograph=self.autograph, cache=self.disk_cache,
                           max_signatures=self.max_signatures)

    def __deepcopy__(self, memo) -> JitFunction:
        return self.__copy__()  # the function is shared, as copy.deepcopy shares functions

    def __reduce__(self):
        return pickling.reduce(self)

    # -- calling -------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        # The short path (dispatch.fast_key): a cached signature of plain contiguous arrays.
        # A function with static arguments never has entries in _fast_cache.
        short = None
        if not kwargs:
            short = fast_key(args)
            executable = self._fast_cache.get(short)
            if executable is not None and current_trace() is None:
                self._hit()
                if (short not in self._native_entries or type(executable) is CallTimeExecutable
                        and self._native_stale(short, executable)) and native_call.AVAILABLE:
                    self._offer_native(short, executable)
                try:
                    return executable.call_flat(args)
                except SharedArgument:  # f(x, x), x written: compiled with x passed once
                    return self._shared_call(args, kwargs)
        if self._flats is not None:  # a method's twin: (instance, *args) as a flat twin's call
            return self._call_method(args, kwargs)
        if current_trace() is not None:  # called while another function is being traced
            return inlining.inline(self, args, kwargs)
        if self._static_nums:
            short = None
        memo = None
        if short is None and not self._static_leaves:  # scalars, keywords, strided arrays, objects:
            positions = self._memo_positions if not kwargs else None  # the memo of the call's structure
            memo = call_memo.key(args, kwargs, self._statics, self._int_range, positions)
            known = self._memo.get(memo) if memo is not None else None
            if known is not None:
                self._hit()
                try:
                    self._cache.move_to_end(known.full_key)  # recency, as on the full path below
                except KeyError:  # dropped meanwhile by another thread's compile
                    pass
                if (memo not in self._native_entries or type(known.executable) is CallTimeExecutable
                        and self._native_stale(memo, known.executable)) and native_call.AVAILABLE:
                    entry_key = native_call.entry_key(args, kwargs, known, self._int_class)
                    if entry_key is None:
                        self._native_entries.setdefault(memo, None)  # asked once: the Python path's call
                    else:
                        self._offer_native(memo, known.executable, entry_key)
                try:
                    return self._returned(known.run(args, kwargs), args, kwargs)
                except prims.IntRangeNeeded:  # a variant's trace (a global's new dtype) needed the bounds
                    return self(*args, **kwargs)
                except SharedArgument:  # s.u is s.v, one written: compiled with it passed once
                    return self._shared_call(args, kwargs)
                except Exception as e:  # the compiled code's own raise
                    e.raised_by_compiled_code = True
                    argument_writes.note_unassigned(e, known.executable)
                    raise
        try:
            return self._traced_call(args, kwargs, short, memo)
        except SharedArgument:
            return self._shared_call(args, kwargs)
        except prims.IntRangeNeeded:
            return self(*args, **kwargs)  # keyed and traced again with its ints' own bounds
        except JitcoreError as e:
            made = self._static_on_demand(e, args, kwargs)
            if not made:
                e.__traceback__ = tracebacks.filtered(e)  # the user's frames, not jitcore's
                raise
            cause = e
        try:  # traced again, with the arguments the trace needed static
            return self(*args, **kwargs)
        except Exception as again:
            error = again
            if getattr(again, "raised_by_compiled_code", False):
                error.__traceback__ = tracebacks.filtered(error)
                raise  # compiled, and ran: the user's own error at run time, as NumPy raises it
            if made == "static":  # they did not make it work: traced, as before
                self._set_on_demand(self._on_demand.names - cause.static_would_fix_names)
                error = static_on_demand.explained(again, cause)
            error.__traceback__ = tracebacks.filtered(error)
            raise error from (again if error is not again else again.__cause__)

    def _shared_call(self, args, kwargs):
        """A call passing one array object as several of its arrays, one of them written in
        place (``dispatch.SharedArgument``): keyed and compiled with that array passed once, so
        that each name for it sees the write, as in NumPy (session 50). Never in the short
        paths, whose keys cannot tell one array from two."""
        try:
            return self._traced_call(args, kwargs, None, None, shared=True)
        except JitcoreError as e:
            e.__traceback__ = tracebacks.filtered(e)
            raise

    def _traced_call(self, args, kwargs, short, memo, shared: bool = False):
        """The call of a signature not in the short paths: compiled now unless cached."""
        generators = None
        if memo is None:  # a generator argument makes the call's structure not flat
            args, kwargs, generators = generator_arguments.stand_ins(args, kwargs, self._signature)
        # The call's generators, for their stand-ins, while it is traced and run.
        with generator_arguments.bound(generators) if generators else _NO_GENERATORS:
            try:
                key, leaves, arrays, call = self._signature_key(args, kwargs, shared)
            except DaskArgument:  # raised only after the leaves that are arrays or numbers
                key = None
            if key is None:
                from jitcore import dask_arrays  # imports dask: only when an argument comes from it
                return dask_arrays.call(self, args, kwargs)
            executable = self._cache.get(key)
            if executable is None:
                try:
                    executable = self._compile_once(key, leaves, call)
                except Exception as e:
                    e.__traceback__ = tracebacks.filtered(e)  # the user's frames, not jitcore's
                    raise
            else:
                self._hit()
                try:
                    self._cache.move_to_end(key)  # one C call: atomic, no lock
                except KeyError:  # dropped meanwhile by another thread's compile
                    pass
            if memo is not None:
                self._remember(memo, key, executable, args, kwargs, arrays)
            # Only executables with the short path's entry (call_flat) go in the short path's dict.
            if short is not None and short not in self._fast_cache and takes_key(executable, short):
                self._fast_cache[short] = executable
                if len(self._fast_cache) > self._limit():
                    self._fast_cache.pop(next(iter(self._fast_cache), None), None)  # inserted first
                    if self._native_entries:
                        with self._lock:
                            self._native_sync()
            try:
                out = executable(arrays, call.callers)
            except Exception as e:  # the compiled code's own raise (an assert, an index): the
                e.raised_by_compiled_code = True  # trace worked, its static choices stand
                argument_writes.note_unassigned(e, executable)
                raise
            return self._returned(out, args, kwargs)

    def _static_on_demand(self, error, args, kwargs) -> str | None:
        """Make static the arguments ``error`` needed as values, or traced again those made
        static on demand that this call passes an array for (``static_on_demand``): "static"
        or "traced" if it did (the call is then to be made again), else None."""
        if self._flats is not None:  # a method's twin: its flat twins make their own static
            return None
        through = self._object_leaves(error, args, kwargs)
        if through:
            with self._lock:
                self._static_leaves = self._static_leaves | through
            self.clear_cache()
            return "static"
        unhashable = getattr(error, "static_unhashable", frozenset())
        if unhashable and unhashable <= self._on_demand.names:
            self._set_on_demand(self._on_demand.names - unhashable)
            return "traced"
        names = static_on_demand.to_promote(error, self._signature, self._static_names, args, kwargs)
        if not names:
            return None
        error.static_would_fix_names = names
        self._on_demand.promoting(self.__name__, names, self._signature, args, kwargs, error)
        if config.log_compiles:
            compile_log.log_static_on_demand(self.__name__, sorted(names), error)
        self._set_on_demand(self._on_demand.names | names)
        return "static"

    def _object_leaves(self, error, args, kwargs) -> frozenset:
        """The ints ``error`` needs as values that are attributes of argument objects
        (``np.zeros(s.cfg.n)``; session 50): made static by their paths, each keyed by its
        value where it sits in the tree, so that another value, or another attribute of the
        object, is seen at the next call. (Making the whole object static, hashed by its
        identity, kept its first call's attributes: a stale ``s.cfg.dt``.)"""
        wanted = getattr(error, "static_would_fix", frozenset())
        if not wanted or not config.auto_static or not all("." in p or "[" in p for p in wanted) \
                or wanted <= self._static_leaves:
            return frozenset()
        _, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, tree = pytree.flatten((tuple(dyn_args), dyn_kwargs), objects=True)
        found = {p: leaf for p, leaf in zip(self._paths(tree), leaves) if p in wanted}
        if found.keys() != wanted or not all(_static_leaf(p, v) for p, v in found.items()):
            return frozenset()
        return frozenset(wanted)

    def _set_on_demand(self, names) -> None:
        """Make static the arguments given static and ``names``; drop what was compiled, keyed
        with the others' static choice."""
        _, nums, given = self._given
        given = (given,) if isinstance(given, str) else tuple(given or ())
        with self._lock:
            self._static_nums, self._static_names = callables.static_arguments(
                self._signature, nums, frozenset(given) | names, self.__name__)
            self._statics = bool(self._static_nums or self._static_names)
            self._memo_positions = _static_positions(self._signature, self._static_nums, self._static_names)
            self._on_demand.set_names(names)
        self.clear_cache()

    def _call_method(self, args, kwargs):
        """A method's twin called with (instance, *args): the call of the instance layout's flat
        twin (``jitcore.method_calls``); its native table then becomes this twin's."""
        if not args:  # only a direct call of the twin could omit the instance
            raise JitTypeError(f"{self.__name__}() missing its instance: call it as a bound method")
        made = self._flat_twin(args[0])
        if made is None:  # a classmethod reading an array or a mutable object of its class
            return self._method_of_class._method_twin("static")(*args, **kwargs)
        flat, values = made
        rebound = flat.fun.rebound
        try:
            result = flat(*values, *args[1:], **kwargs)
        except Exception as e:
            if rebound and getattr(e, "raised_by_compiled_code", False):
                e.add_note(f"jitcore: {', '.join('self.' + n for n in rebound)} are assigned after the "
                           "compiled method returns; it raised, so they hold what they held before the "
                           "call, where Python would have kept the assignments run before the raise")
            raise
        if rebound:  # the attributes the method rebinds, assigned as the plain call would
            result, after = result
            for name, value in zip(rebound, after):
                setattr(args[0], name, value)
            return result
        table = flat._method_table
        if table is not None and getattr(self, "_native", None) is not table:
            self._native = table  # the layout called last: the native call checks the instance against it
        return result

    def _flat_twin(self, obj) -> tuple[JitFunction, list] | None:
        """The flat twin of ``obj``'s layout (made on its first call) and its leading arguments;
        None where a classmethod's twin cannot key its class (``method_calls.layout``)."""
        cls = obj if self._of_class else type(obj)
        accesses = self._class_reads.get(cls)
        if accesses is None:
            accesses = self._class_reads[cls] = method_calls.class_reads(self.fun, cls)
        reads, stores = accesses
        made = method_calls.layout(obj, reads, self._of_class, stores)
        if made is None:
            return None
        layout, values = made
        flat = self._flats.get(layout)
        if flat is None:
            with self._lock:
                flat = self._flats.get(layout)
                if flat is None:
                    cls, names, arrays, n_own = layout
                    body = method_calls.FlatBody(self.fun, self.autograph, self._signature, *layout, stores)
                    flat = JitFunction(body, method_calls.static_positions(arrays, self._static_nums),
                                       self._static_names, self.options, autograph=False,
                                       cache=self.disk_cache, max_signatures=self.max_signatures)
                    # the native call returns the result alone: a rebinding method assigns after it
                    if native_call.AVAILABLE and all(type(n) is str for n in names) and not body.rebound:
                        flat._method_of = (self, native_call.instance_spec(cls, names, n_own))
                    self._flats[layout] = flat
                    while len(self._flats) > self._limit():  # layouts made on the fly: the oldest goes
                        self._flats.pop(next(iter(self._flats)))
        return flat, values

    def _remember(self, memo, key, executable, args, kwargs, arrays) -> None:
        """Record a flat call's structure (call_memo), for the executable still cached."""
        marked_args = tuple(call_memo.marked(a, i) for i, a in enumerate(args))
        marked_kwargs = {name: call_memo.marked(v, name) for name, v in kwargs.items()}
        static, dyn_args, dyn_kwargs = self._split(marked_args, marked_kwargs)
        marked, _ = pytree.flatten((tuple(dyn_args), dyn_kwargs), objects=True)
        known = call_memo.structure(key, executable, args, kwargs, marked, arrays, [m for _, m in static])
        if known is None:
            return
        with self._lock:
            if self._cache.get(key) is not executable:  # dropped meanwhile
                return
            self._memo[memo] = known
            if len(self._memo) > self._limit():
                self._memo.pop(next(iter(self._memo), None), None)  # inserted first
                if self._native_entries:
                    self._native_sync()

    def _offer_native(self, short, executable, entry_key=None) -> None:
        """A cached signature on the short path (or, with ``entry_key``, ``native_call.entry_key``'s
        words, a memo's call: numbers, strided arrays, keywords or static arguments among its
        arguments): give it to the native call when it can
        run it (its second cached call on: a function called once never compiles the dispatcher).
        An executable that reads call-time inputs has an entry per variant; a variant compiled
        since (a global's new shape) makes them anew."""
        with self._lock:
            cached = (self._fast_cache.get(short) if entry_key is None
                      else getattr(self._memo.get(short), "executable", None))
            known = self._native_entries.get(short, _UNSET)
            variants = len(getattr(executable, "variants", ()))
            if cached is not executable or (known is not _UNSET and (known is None or known[2] == variants)):
                return
            live = sum(len(made[1]) for made in self._native_entries.values()
                       if made is not None and made is not known)
            made = [] if live >= native_call.MAX_ENTRIES else (
                native_call.entries(executable, short) if entry_key is None
                else native_call.entries(executable, *entry_key))
            self._native_entries[short] = (executable, made, variants) if made or variants else None
            if not made:
                return
            self._set_native()
        native_call.install(JitFunction, python_call, "_native")

    def _native_stale(self, key, executable) -> bool:
        """Whether a call-time executable compiled variants since its native entries were made."""
        made = self._native_entries.get(key)
        return made is not None and made[2] != len(executable.variants)

    def _native_sync(self) -> None:
        """The native table after signatures left the short path's dict (under ``self._lock``)."""
        self._native_entries = {k: made for k, made in self._native_entries.items()
                                if self._still_cached(k, made)}
        self._set_native()

    def _set_native(self) -> None:
        """The native table of the entries (under ``self._lock``; never None: the slot holds a
        table or nothing); for a flat twin, its method's table too, which its method's twin
        takes (``method_calls``: the same entries, the instance's attributes in front)."""
        entries = [m for made in filter(None, self._native_entries.values()) for m in made[1]]
        self._native = native_call.table(entries, self._native_hits)
        if self._method_of is not None:
            method, spec = self._method_of
            self._method_table = native_call.table(entries, method._native_hits, spec)
            method._native = self._method_table

    def _still_cached(self, key, made) -> bool:
        """Whether a native entry's signature is still in the dict it came from (the short
        path's, or the memo's for calls with numbers), with the same executable."""
        if key in self._fast_cache:
            return made is None or self._fast_cache[key] is made[0]
        known = self._memo.get(key)
        return known is not None and (made is None or known.executable is made[0])

    def cache_info(self) -> CacheInfo:
        """hits: calls that ran code compiled before them (or by a concurrent call they waited
        for); misses: calls that traced; traces (``lower`` traces too) and compiles."""
        if self._flats is not None:  # a method's twin: its flat twins' counts, and its native calls
            counts = [flat.cache_info() for flat in list(self._flats.values())]
            total = [sum(c[i] for c in counts) for i in range(4)]
            total[0] += self._native_hits.value
            return CacheInfo(*total, sum(c.from_disk for c in counts), sum(c.reused for c in counts),
                             sum(c.resized for c in counts))
        with self._lock:
            hits = self._hit() - self._hit_reads + self._native_hits.value  # reading consumes one value
            self._hit_reads += 1
            return CacheInfo(hits, self._misses, self._traces, self._compiles - self._reused,
                             self._from_disk, self._reused, self._resized)

    def _limit(self) -> int:
        return self.max_signatures or config.max_signatures

    def _evict(self) -> None:
        """Drop the least recently used signatures beyond the bound, from both caches (under
        ``self._lock``); nothing else here holds their executables, so their code is freed."""
        while len(self._cache) > self._limit():
            key, dropped = self._cache.popitem(last=False)
            if config.log_compiles:
                self._dropped.append(key)
            for short, executable in list(self._fast_cache.items()):
                if executable is dropped:
                    self._fast_cache.pop(short, None)
            for memo, known in list(self._memo.items()):
                if known.executable is dropped:
                    self._memo.pop(memo, None)
            if self._native_entries:
                self._native_sync()

    def clear_cache(self) -> None:
        for flat in list((self._flats or {}).values()):  # a method's twin: its flat twins'
            flat.clear_cache()
        with self._lock:
            if config.log_compiles:
                self._dropped.extend(self._cache)
            self._cache.clear()
            self._fast_cache.clear()
            self._memo.clear()
            self._new_sizes.clear()
            self._native_sync()

    def lower(self, *args, **kwargs) -> Lowered:
        """The compiler's stages for these arguments, without running anything."""
        if self._flats is not None and args:  # a method's twin: (instance, *args)
            made = self._flat_twin(args[0])
            if made is None:
                return self._method_of_class._method_twin("static").lower(*args, **kwargs)
            flat, values = made
            return flat.lower(*values, *args[1:], **kwargs)
        given = args, kwargs
        args, kwargs, generators = generator_arguments.stand_ins(args, kwargs, self._signature)
        with generator_arguments.bound(generators) if generators else _NO_GENERATORS:
            try:
                key, leaves, _, call = self._signature_key(args, kwargs)
                start = time.perf_counter()
                lowered = Lowered(self, key, leaves, call)
            except prims.IntRangeNeeded:
                lowered = None
            except JitcoreError as e:
                if not self._static_on_demand(e, *given):
                    raise
                lowered = None
        if lowered is None:  # traced again, with the arguments the trace needed static
            return self.lower(*given[0], **given[1])
        if config.log_compiles:
            compile_log.log_trace(self.__name__, self._describe(key, call), time.perf_counter() - start,
                                  "lower()")
        return lowered

    # -- internals -----------------------------------------------------------------------
    def _returned(self, out, args, kwargs):
        """The call's result: ``out``, or where the function changed its list and dict
        arguments (``argument_writes``), its result after their final state is written into
        the caller's (the traced arguments split out only then: the cached path pays a type test)."""
        if type(out) is not argument_writes.ArgumentWrites:
            return out
        _, dyn_args, dyn_kwargs = self._split(args, kwargs)
        return argument_writes.apply(out, (tuple(dyn_args), dyn_kwargs))

    def _split(self, args, kwargs):
        """(static (position or name, value) pairs, traced positional values, traced keyword
        values) of a call: keywords bound to the signature first."""
        if kwargs and self._signature is not None:
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as e:
                raise JitTypeError(f"{self.__name__}(): {e}") from None
            args, kwargs = bound.args, bound.kwargs
        static, dyn_args, dyn_kwargs = [], [], {}
        # A generator's stand-in is static: equal for every generator of its class.
        for i, a in enumerate(args):
            (static.append((i, a)) if i in self._static_nums or isinstance(a, GeneratorArgument)
             else dyn_args.append(a))
        for k, v in kwargs.items():
            (static.append((k, v)) if k in self._static_names or isinstance(v, GeneratorArgument)
             else dyn_kwargs.__setitem__(k, v))
        return static, dyn_args, dyn_kwargs

    def _signature_key(self, args, kwargs, shared: bool = False):
        """(cache key, leaf specs, leaf arrays, call rebuilder) for one call's arguments;
        ``shared``: an array object at several leaves is one leaf (``_shared_call``)."""
        static, dyn_args, dyn_kwargs = self._split(args, kwargs)
        try:
            static_key = tuple((k, call_memo.exactly(v)) for k, v in static)  # numbers by their bits
            hash(static_key)
        except TypeError:
            unhashable = [(k, v) for k, v in static if not _hashable(v)] or static
            error = JitTypeError(
                f"{self.__name__}(): static arguments must be hashable, got "
                + ", ".join(f"{self._param_name(k)}={type(v).__name__}" for k, v in unhashable)
                + static_on_demand.hashable_advice(v for _, v in unhashable))
            error.static_unhashable = frozenset(self._param_name(k) for k, v in static if not _hashable(v))
            raise error from None
        leaves, tree = pytree.flatten((tuple(dyn_args), dyn_kwargs), objects=True)
        if self._static_leaves:  # argument objects' ints made static on demand: keyed by value
            fixed = {k for k, p in enumerate(self._paths(tree))
                     if p in self._static_leaves and _static_leaf(p, leaves[k])}
            if fixed:
                count = itertools.count()
                tree, leaves = pytree.with_constants(tree, leaves, lambda _: next(count) in fixed)
        firsts = None  # with ``shared``: per leaf, the first leaf holding its array object
        if shared:
            seen: dict = {}
            firsts = tuple(seen.setdefault(id(leaf), k) if type(leaf) is np.ndarray else k
                           for k, leaf in enumerate(leaves))
            place = {k: i for i, k in enumerate(sorted(set(firsts)))}  # its place among those passed
            leaves = [leaf for k, leaf in enumerate(leaves) if firsts[k] == k]
        specs, arrays = [], []
        for leaf in leaves:
            spec, arr = self._leaf(leaf, tree, len(specs))
            specs.append(spec)
            arrays.append(arr)
        key = (tree if firsts is None else (tree, firsts), tuple(specs), static_key)
        # An unaligned array argument is passed as a copy; writes to it go back to the caller's.
        copied = any(isinstance(leaf, np.ndarray) and arr is not leaf for leaf, arr in zip(leaves, arrays))

        def call(traced_leaves):
            if firsts is not None:  # each holder of a shared array holds its one traced value
                traced_leaves = [traced_leaves[place[k]] for k in firsts]
            dyn = pytree.unflatten(tree, traced_leaves)
            full_args = list(dyn[0])
            for i, v in static:
                if isinstance(i, int):
                    full_args.insert(i, v)
            full_kwargs = dict(dyn[1])
            full_kwargs.update((k, v) for k, v in static if isinstance(k, str))
            # Converted on each trace (the conversion itself is cached per code object), so
            # the closure values are the current ones; compiled calls never get here.
            fun = converted(self.fun) if self.autograph else self.fun
            as_is = fun is self.fun  # (no converted code: its global arrays read as inputs)
            unread = self.autograph and as_is and autograph_convert.source_unreadable(self.fun)
            if as_is:
                fun = global_reads.reading_globals(fun)
            before = [(k, v, argument_writes.static_state(v)) for k, v in static]
            try:
                with formatting.unconverted(self.__name__ if unread else None):
                    result = fun(*full_args, **full_kwargs)
            except (TypeError, ValueError, IndexError) as error:
                if not as_is or isinstance(error, JitcoreError) \
                        or not autograph_convert.source_unreadable(self.fun):
                    raise
                raise UnsupportedError(
                    f"{self.__name__}(): Python could not give jitcore this function's source (a "
                    "function made by exec() or typed at 'python -'), so it was traced as is, "
                    "without converting its loops, branches and writes into arrays it makes, and "
                    f"tracing it met {type(error).__name__}: {str(error).rstrip('.')}. Define the "
                    "function in a file (a module or a script), or call it without jit") from error
            for k, v, state in before:  # a static argument is the caller's object
                changed = argument_writes.changed_static(self._param_name(k), v, state)
                if changed is not None:
                    for _, _, made in before:
                        argument_writes.restore(made)
                    advice = ("Change a copy (new = list(a)) and return it, or pass the numbers "
                              "in a NumPy array, which the function may write in place"
                              if type(v) is list else
                              "Pass the arrays it holds as arguments (written in place, as NumPy "
                              "writes them), or return the new values and store them outside the "
                              "jitted function")
                    raise UnsupportedError(
                        f"{self.__name__}(): {changed}, a static argument: compiled, that happens "
                        "once, while compiling, not at each call, and later calls would not see "
                        f"it. {advice}")
            return argument_writes.traced_result(result, dyn, tree, traced_leaves)

        call.tree = tree
        call.callers = [leaf if isinstance(leaf, np.ndarray) else arr
                        for leaf, arr in zip(leaves, arrays)] if copied else None
        return key, specs, arrays, call

    def _leaf(self, leaf, tree, index):
        if isinstance(leaf, np.ndarray) and type(leaf) is not np.ndarray:
            leaf = self._plain_array(leaf, tree, index)
        if isinstance(leaf, np.ndarray):
            if leaf.dtype not in SUPPORTED_DTYPES:
                raise JitTypeError(
                    f"{self.__name__}(): argument {self._paths(tree)[index]} has dtype {leaf.dtype}, "
                    "which jitcore does not support; convert it with .astype() first"
                )
            contiguous = leaf.flags.c_contiguous
            if not contiguous and (not leaf.flags.aligned or any(s % leaf.itemsize for s in leaf.strides)):
                leaf, contiguous = np.ascontiguousarray(leaf), True  # unaligned: one copy
            layout = layout_class.C if contiguous else layout_class.classify(leaf.shape, leaf.strides,
                                                                             leaf.itemsize)
            return ArgSpec(leaf.shape, leaf.dtype, layout=layout), leaf
        if isinstance(leaf, np.generic):  # returned, or carried through a loop, as a NumPy scalar
            spec, arr = self._leaf(np.asarray(leaf), tree, index)
            return dataclasses.replace(spec, scalar=True), arr
        if getattr(leaf, "__jitcore_device_array__", False):  # jitcore.cuda's
            if self.options.target != "cuda":  # copied back for the CPU's code
                return self._leaf(leaf.to_numpy(), tree, index)
            return ArgSpec(leaf.shape, leaf.dtype), leaf  # stays on the GPU
        if isinstance(leaf, (bool, int, float, complex)):
            dtype = _WEAK_DTYPES[next(t for t in (bool, int, float, complex) if isinstance(leaf, t))]
            if dtype.kind == "i" and BIG_INTS[0] <= leaf <= BIG_INTS[1]:
                # seed = 2**64 - 1: traced as uint64, for what reads it on the host (a seed);
                # compiled code using it is refused (compiler.refuse_big_ints)
                return ArgSpec((), BIG_INT, weak=True, scalar=True), np.asarray(leaf, BIG_INT)
            try:
                arr = np.asarray(leaf, dtype=dtype)
            except OverflowError:
                raise JitOverflowError(
                    f"{self.__name__}(): argument {self._paths(tree)[index]}: Python integer "
                    f"{leaf} is out of bounds for {dtype} (and for uint64, which holds an int "
                    "from 2**63 on that jitcore passes on to a seed); pass a smaller int, or "
                    "compute with it outside the jitted function") from None
            bounds = self._int_range(leaf) if dtype.kind == "i" else None
            return ArgSpec((), dtype, weak=True, int_range=bounds, scalar=True), arr
        if type(leaf).__module__.startswith("dask"):  # a Dask array: __call__ makes a lazy one
            raise DaskArgument(f"{self.__name__}(): argument {self._paths(tree)[index]} is a "
                               f"{type(leaf).__module__}.{type(leaf).__qualname__}; lower() and make_ir() "
                               f"trace NumPy arrays: call {self.__name__}() itself for a lazy Dask array, "
                               "or pass one chunk")
        if not isinstance(leaf, Tracer) and _converts_to_array(leaf):
            return self._leaf(self._as_array(leaf, tree, index), tree, index)
        path = self._paths(tree)[index]
        advice = _static_advice(leaf)
        root = path.split("[", 1)[0].split(".", 1)[0]
        if not path.isidentifier() and root.isidentifier() and advice.startswith("pass it with"):
            # (an item of a list or dict argument: the container itself cannot be static)
            keyed = path[len(root):].startswith(("['", '["'))  # (a dict's item)
            as_tuple = f"tuple({root}.items())" if keyed else f"tuple({root})"
            advice = (f"pass {root} as a tuple ({as_tuple}) with static_argnums/static_argnames "
                      f"(static_argnames=('{root}',)) if its items should be compile-time constants")
        error = JitTypeError(f"{self.__name__}(): argument {path} is a {type(leaf).__name__}, "
                             "not an array or number; " + advice)
        if path.isidentifier() and (static_on_demand.static_kind(leaf) or isinstance(leaf, JitFunction)):
            error.static_would_fix = frozenset((path,))  # a string, a function: static on demand
        elif _static_leaf(path, leaf):  # a string in a list, tuple or dict: static where it sits
            error.static_would_fix = frozenset((path,))
        raise error

    def _plain_array(self, leaf: np.ndarray, tree, index) -> np.ndarray:
        """An ndarray subclass as the plain ndarray it holds, if its behaviour is only its data's
        (np.memmap: a view, so writes still reach the file); refused otherwise, since compiled
        code sees only the data and would silently drop a mask or matrix semantics."""
        if isinstance(leaf, _PLAIN_SUBCLASSES):
            return leaf.view(np.ndarray)
        path = self._paths(tree)[index]
        kind = f"{type(leaf).__module__}.{type(leaf).__qualname__}"
        if isinstance(leaf, np.ma.MaskedArray):
            how = (f"jitcore sees only the data and would drop the mask: pass {path}.filled(value) "
                   "(masked entries replaced by value), or np.asarray(" + path + ") for the data alone")
        elif isinstance(leaf, np.matrix):
            how = ("its * and ** are matrix products and its results stay 2-d, which compiled code "
                   f"would not keep: pass np.asarray({path}) (and use @ for the matrix product)")
        else:
            how = (f"a subclass of ndarray whose behaviour of its own compiled code would drop: "
                   f"pass np.asarray({path})")
        raise JitTypeError(f"{self.__name__}(): argument {path} is a {kind}; {how}")

    def _as_array(self, leaf, tree, index) -> np.ndarray:
        """An object that offers its data as an array (pandas, xarray) as NumPy converts it."""
        try:
            return np.asarray(leaf)
        except Exception as e:
            raise JitTypeError(f"{self.__name__}(): argument {self._paths(tree)[index]} is a "
                               f"{type(leaf).__name__} that np.asarray() cannot convert: {e}") from e

    def _param_name(self, key) -> str:
        params = list(self._signature.parameters) if self._signature else []
        return params[key] if isinstance(key, int) and key < len(params) else str(key)

    def _paths(self, tree) -> list[str]:
        return self._paths_and_positions(tree)[0]

    def _paths_and_positions(self, tree) -> tuple[list[str], dict[str, int]]:
        """Each leaf's name in messages, and the call position of each that is an item of
        ``*args`` (``star[k]``): it has no name to list in static_argnames, only a position."""
        params = self._signature.parameters.values() if self._signature else ()
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        star = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
        static = self._static_nums | generator_arguments.positions()
        dynamic = [i for i in range(len(positional)) if i not in static]
        args_tree, kwargs_tree = tree.children
        paths, star_items = [], {}
        for i, child in enumerate(args_tree.children):
            if i < len(dynamic):
                name = positional[dynamic[i]]
            else:  # an item of *args: its position counts the static arguments too
                position = len(positional) + i - len(dynamic)
                name = f"{star}[{position - len(positional)}]"
                star_items[name] = position
            paths += pytree.leaf_paths(child, name)
        for k, child in zip(kwargs_tree.keys, kwargs_tree.children):
            paths += pytree.leaf_paths(child, k)
        return paths, star_items

    def _describe(self, key, call) -> str:
        return compile_log.describe_signature(key, self._paths(call.tree), self._param_name)

    def _why_missed(self, key, call) -> str | None:
        """Why ``key`` missed, for the compile log (None when it is off); under ``self._lock``."""
        if not config.log_compiles:
            return None
        return compile_log.explain_miss(key, list(self._cache), self._dropped, self._paths(call.tree),
                                        self._param_name)

    def _trace(self, specs, call, verify: bool = True):
        with self._lock:
            self._traces += 1
        storing = autograph_convert.storing.set(self.disk_cache)  # cache=False: no converted code either
        asked_before = getattr(prims.int_range_asked, "yes", False)  # (an enclosing trace's)
        prims.int_range_asked.yes = False
        try:
            paths, star_items = self._paths_and_positions(call.tree)
            with unroll_warnings():  # (one warning a trace of a loop unrolled long)
                traced = compiler.trace(self.__name__, specs, paths, call, functions=(self.fun,),
                                        verify=verify, star_items=star_items)
        except Exception as e:
            if self._int_range_asked(prims.int_range_asked.yes, specs):
                raise prims.IntRangeNeeded from None
            add_user_line(e, self.fun)
            if self.autograph:
                e.__traceback__ = without_helper_frames(e.__traceback__)
                _say_source_unread(e, self.fun, self.__name__)
            raise
        finally:
            autograph_convert.storing.reset(storing)
            asked = prims.int_range_asked.yes
            prims.int_range_asked.yes = asked_before
        if self._int_range_asked(asked, specs):
            raise prims.IntRangeNeeded
        return traced

    def _int_range_asked(self, asked: bool, specs) -> bool:
        """Whether the trace just made asked a bound of an int traced as any int64: from now on
        this function keys its ints by their own bounds (``api.int_range``), and the caller
        traces again."""
        if not asked or not any(
                getattr(s, "int_range", None) == prims.ANY_INT64 for s in specs):
            return False
        with self._lock:
            self._int_ranges_needed = True
        return True

    def _int_range(self, value: int) -> tuple[int, int]:
        """A Python int argument's bounds in this function's signatures: every int64 until a
        trace needs them (a Python int meeting an array of a narrower integer dtype, where NumPy
        2's OverflowError depends on the value), then ``int_range``'s class of the value."""
        return int_range(value) if self._int_ranges_needed else prims.ANY_INT64

    def _int_class(self, value: int) -> tuple[int, int]:
        return int_class(value) if self._int_ranges_needed else prims.ANY_INT64

    def _compile_once(self, key, specs, call) -> Executable:
        """The executable of ``key``, compiled by this thread unless another one is compiling
        it already: then wait for that compile, and share its result or its error."""
        me = threading.get_ident()
        while True:
            with self._lock:
                executable = self._cache.get(key)
                if executable is not None:
                    self._hit()
                    return executable
                owner, future = self._pending.get(key, (None, None))
                if future is None or owner == me:  # owner == me: the function calls itself
                    self._misses += 1
                    why = self._why_missed(key, call)
                    future = Future()
                    self._pending.setdefault(key, (me, future))
                    break
            executable = future.result()  # raises the compiling thread's error
            if executable is not None:  # None: that compile was interrupted; try again
                self._hit()
                return executable
        try:
            executable = self._compile(key, specs, call, why)
        except BaseException as e:
            with self._lock:
                if self._pending.get(key, (None, None))[1] is future:
                    del self._pending[key]
            if isinstance(e, Exception):
                future.set_exception(e)  # the waiters' error too
            else:
                future.set_result(None)  # an interrupt (KeyboardInterrupt) stops only this thread
            raise
        with self._lock:
            self._cache[key] = executable
            self._evict()
            if self._pending.get(key, (None, None))[1] is future:
                del self._pending[key]
            self._compiles += 1
        future.set_result(executable)
        return executable

    def _compile(self, key, specs, call, why: str | None = None) -> Executable | CallTimeExecutable:
        """The executable of one signature; when its code reads call-time inputs (globals,
        closed-over arrays, random draws), the table of its variants, the first one in it.
        ``why``: the cache miss's reason, for the compile log (None: not logging)."""
        log = None if why is None else (self._describe(key, call), why)
        executable, inputs = self._compile_executable(specs, call, log)
        if self._on_demand.names:
            self._on_demand.compiled(self.__name__, {self._param_name(k): v for k, v in key[2]})
        if not inputs:
            return executable
        table = CallTimeExecutable(functools.partial(self._compile_variant, key, specs, call))
        table.variants.append((executable, inputs))
        return table

    def _compile_variant(self, key, specs, call):
        """A new variant of a signature whose call-time inputs changed dtype, shape or value."""
        with self._lock:
            self._misses += 1
            self._hit_reads += 1  # the call was counted as a hit before its variants were read
        log = (self._describe(key, call), "a call-time input (a global or closed-over array) changed "
               "dtype, shape or value") if config.log_compiles else None
        try:
            result = self._compile_executable(specs, call, log)
        except Exception as e:
            e.__traceback__ = tracebacks.filtered(e)
            raise
        with self._lock:
            self._compiles += 1
        return result

    def _optimized(self, module):
        """``module`` after the pass pipeline; at a new size, an earlier size's optimized
        program resized instead where their traces differ only by their extents (new_size.py);
        and, for such a one, what its emission's guards need (``new_size.Resize``), else None."""
        with self._lock:
            optimized, handle, resize = self._new_sizes.lookup(module)
        if optimized is not None:
            if self.options.verify_each:  # the resized program, as the pipeline's would be
                ir.verify(optimized)
            if new_size.CHECK:
                new_size.check(optimized, compiler.optimize(module, self.options))
            with self._lock:
                self._resized += 1
            return optimized, resize
        if not self.options.verify_each:  # else the pass manager verifies its input
            ir.verify(module)
        optimized = compiler.optimize(module, self.options)
        if handle is not None:
            with self._lock:
                self._new_sizes.remember(handle, module, optimized)
        return optimized, None

    def _compile_executable(self, specs, call, log: tuple[str, str] | None = None):
        """Trace, optimise and generate code (or load it from the disk cache); ``log``: the
        signature and the miss's reason to log it with, or None."""
        clock = CompileClock()  # timed by stage, for the warning about a long compile and the log
        gpu = self.options.target == "cuda"
        if gpu:  # the driver first: no GPU is a clear error, and the code is for its device
            cuda.require()
        with clock.stage("tracing"), unrolled_reason() as unrolled:  # verified below if compiled
            module, out_tree = self._trace(specs, call, verify=False)
        specs = [*specs, *out_tree.hidden]  # the arguments, then the call-time inputs
        with clock.stage("disk cache"):
            entry = disk_cache.entry(module, specs, self.options) if self.disk_cache else None
            plan = entry.load() if entry is not None else None
        from_disk = plan is not None
        if plan is None:
            with clock.stage("optimizing"):
                optimized, resize = self._optimized(module)
            with clock.stage("code generation"):  # size-generic hook: may reuse code
                plan = size_generic.lower(self, optimized, specs, resize)
            if entry is not None:
                with clock.stage("disk cache"):
                    entry.store(plan)
        else:
            with self._lock:
                self._from_disk += 1
        with clock.stage("code generation"):
            kind = Executable
            if gpu:
                kind = cuda.CudaExecutable
            elif plan.profile:  # compiled for jitcore.profiler: its executable reads the timings
                from jitcore.profiled_executable import ProfiledExecutable as kind
            executable = kind(plan, out_tree.tree, out_tree.mutated, out_tree.scalars,
                              out_tree.owners, out_tree.arguments, out_tree.transposed)
        warn_if_slow(self, self.__name__, clock, sum(1 for _ in module.walk()), *unrolled[:1],
                     early=unrolled.early, library=None if unrolled.steps else unrolled.library)
        if log is not None:
            compile_log.log_compile(self.__name__, *log, clock, from_disk)
        return executable, out_tree.inputs


# The Python call: JitFunction.__call__ until the native call (native_call.install) takes its
# place, and what that falls back to for every call it does not make itself.
python_call = JitFunction.__call__


# ndarray subclasses that add nothing to how their data computes.
_PLAIN_SUBCLASSES = (np.memmap,)
_NONNEGATIVE_BOUNDS = tuple(2 ** b - 1 for b in (7, 8, 15, 16, 31, 32, 63))
_NEGATIVE_BOUNDS = tuple(-(2 ** b) for b in (7, 15, 31, 63))


_STATIC_LEAF_TYPES = frozenset((int, bool, np.int64, np.int32, np.intp))  # (``_object_leaves``)


def _static_leaf(path: str, leaf) -> bool:
    """Is ``leaf``, at ``path`` in the arguments, made static where it sits when a trace needs
    it (``_object_leaves``): an int attribute of an argument object (``s.cfg.n``), or a string
    in a list, tuple, dict or object argument (``branches[0][3]``: a record's mode; its numbers
    stay traced, and each new string compiles once)."""
    return ("." in path and type(leaf) in _STATIC_LEAF_TYPES) or (
        ("[" in path or "." in path) and type(leaf) in (str, bytes))


def int_range(value: int) -> tuple[int, int]:
    """Bounds around a Python int that fit an integer dtype exactly when the int does: the
    signature holds them (one of eleven) rather than the value, so a call with another int
    reuses the code unless NumPy 2's OverflowError check could answer differently."""
    if value >= 0:
        return 0, next(b for b in _NONNEGATIVE_BOUNDS if value <= b)
    return next(b for b in _NEGATIVE_BOUNDS if value >= b), -1


def int_class(value: int) -> tuple[int, int]:
    """The ints that share ``value``'s ``int_range`` (its signature), as inclusive bounds."""
    lo, hi = int_range(value)
    if value >= 0:
        below = [b for b in _NONNEGATIVE_BOUNDS if b < hi]
        return (below[-1] + 1 if below else 0), hi
    above = [b for b in _NEGATIVE_BOUNDS if b > lo]
    return lo, (above[-1] - 1 if above else -1)


def _hashable(value) -> bool:
    try:
        hash(call_memo.exactly(value))
    except TypeError:
        return False
    return True


def _converts_to_array(leaf) -> bool:
    """An object NumPy functions take as an array: pandas Series, xarray, anything with
    ``__array__`` or the array interface."""
    return any(hasattr(type(leaf), name) for name in ("__array__", "__array_interface__"))


def _static_advice(leaf) -> str:
    """Static arguments must be hashable: advise it only for a value that is."""
    if isinstance(leaf, generator_arguments.GENERATOR_KINDS):
        return ("pass the generator as an argument of its own, not inside a container: its draws "
                "are then made from the generator each call passes")
    try:
        hash(leaf)
    except TypeError:
        return "convert it to an array (np.asarray) or to numbers before the call"
    return "pass it with static_argnums/static_argnames if it should be a compile-time constant"


class Lowered:
    """The stages of one signature: ``as_text(stage)`` for traced, optimized, llvm, llvm-opt, asm."""

    def __init__(self, jitted: JitFunction, key, specs, call):
        self.jitted = jitted
        self._specs = specs
        self._call = call
        self.traced, self._out_tree = jitted._trace(specs, call)
        self._optimized = None
        self._plan = None

    def optimized(self, **instrumentation):
        if self._optimized is None or instrumentation:
            self._optimized = compiler.optimize(self.traced, self.jitted.options, **instrumentation)
        return self._optimized

    def plan(self):
        if self._plan is None:
            specs = [*self._specs, *self._out_tree.hidden]  # the call-time inputs after the arguments
            self._plan = compiler.lower(self.optimized(), specs, self.jitted.options)
        return self._plan

    def as_text(self, stage: str = "optimized") -> str:
        if stage == "traced":
            return ir.print_op(self.traced)
        if stage == "optimized":
            return ir.print_op(self.optimized())
        if stage == "llvm":
            return self.plan().llvm_ir
        if stage == "llvm-opt":
            return self.plan().optimized_llvm_ir
        if stage == "asm":
            plan = self.plan()
            return backend_for(plan.target).assembly(plan)
        raise ValueError(f"unknown stage {stage!r}; stages are {', '.join(compiler.STAGES)}")


def make_ir(fun, **jit_kwargs):
    """``make_ir(f)(*args)`` returns the traced module of ``f`` on these arguments, like
    ``jax.make_jaxpr``: printable, and the input of every later stage."""
    jitted = fun if isinstance(fun, JitFunction) else JitFunction(fun, **jit_kwargs)

    @functools.wraps(jitted.fun)
    def traced(*args, **kwargs):
        return jitted.lower(*args, **kwargs).traced

    return traced
