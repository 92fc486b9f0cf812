"""From a Python function and abstract arguments to a traced module, an optimised module, and
native code: the stages that ``jit`` caches and ``lower(...).as_text(stage)`` shows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from jitcore import argument_writes, calltime, formatting, ir, number_or_array, passes, pytree
from jitcore.chosen_dtype import ChosenDtype
from jitcore.codegen.backend import backend_for
from jitcore.codegen.plan import CompiledFunction, LowerOptions
from jitcore.compaction import compaction
from jitcore.data_length import KeptList, ListSelection, rows_as_returned
from jitcore.dispatch import ARRAY_HEADER, PYTHON_NUMBER, ChosenType, Picked, PickedView, Trimmed
from jitcore.dtypes import ir_type, np_dtype
from jitcore.errors import JitOverflowError, JitTypeError, UnsupportedError
from jitcore.ir import layout_class
from jitcore.ir.builder import Builder
from jitcore.ir.core import Value
from jitcore.ir.dialects.builtin import ModuleOp
from jitcore.ir.dialects.func import FuncOp, ReturnOp
from jitcore.ir.location import UNKNOWN, FileLineCol, Location
from jitcore.ir.types import FunctionType, TensorType
from jitcore.kind_conversion import array_as
from jitcore.masked import MaskedSelection, RangedSelection
from jitcore.primitives import as_tracer, transpose
from jitcore.real_or_complex import RealOrComplex
from jitcore.static_on_demand import python_value
from jitcore.tied_length import Repeated
from jitcore.tracer import Choice, Trace, Tracer, needs_static

DEFAULT_PIPELINE = ("canonicalize,cse,licm,dce,kernelize,permuted-results,fuse,interchange,licm,"
                    "canonicalize,cse,dce")
STAGES = ("traced", "optimized", "llvm", "llvm-opt", "asm")
# Only the CPU's row groups keep a producer that ``fuse`` stores rather than recomputes
# (softmax's exp) in an output buffer (codegen/cpu/rowwise.py); elsewhere it would be a
# buffer of its own, so the default pipeline recomputes it there. Only the CPU's tiled GEMM
# takes a fused epilogue (passes/gemm_epilogue.py); the GPU's matmul (codegen/nvptx/matmul.py)
# keeps the product and its elementwise consumer as two kernels. Only the CPU applies a
# reduction's epilogue (passes/reduction_epilogue.py); the GPU's reductions keep two kernels.
RECOMPUTING_PIPELINE = DEFAULT_PIPELINE.replace(
    ",fuse,", ",fuse{store-shared-math=false,gemm-epilogue=false,reduction-epilogue=false},")


@dataclass(frozen=True)
class CompileOptions:
    """How a function is compiled; part of every cache entry's identity."""

    pipeline: str = DEFAULT_PIPELINE
    verify_each: bool = True
    fastmath: bool = False
    target: str = "cpu"  # a backend of codegen.backend: "cpu"
    profile: bool = False  # time each kernel launch (jitcore.profiler)

    def __post_init__(self):
        backend_for(self.target)  # an unknown target fails here, naming the known ones


@dataclass(frozen=True)
class ArgSpec:
    """An argument leaf as the tracer sees it: shape, dtype, layout, and Python-scalar weakness."""

    shape: tuple[int, ...]
    dtype: np.dtype
    weak: bool = False
    int_range: tuple[int, int] | None = None  # a Python int's bounds (api.int_range)
    scalar: bool = False  # a NumPy scalar or Python number, not a 0-d array: its tracer is one
    # The layout class the code is specialised on (ir/layout_class.py); never strides, so that
    # one compile serves every stride of a class. C-contiguity and Fortran order follow from it.
    layout: str = layout_class.C

    @property
    def fortran(self) -> bool:
        """Fortran-ordered and not C-contiguous: the tracer gives its results NumPy's F order."""
        return self.layout == layout_class.F


# A Python int argument past int64 (2**63 to 2**64 - 1: a 64-bit seed): traced as this dtype,
# weak, so its value reaches what reads it on the host (``random``'s seeds), never compiled code
BIG_INT = np.dtype(np.uint64)
BIG_INTS = (2 ** 63, 2 ** 64 - 1)


_ON_THE_HOST = frozenset(("array.callback",))  # ops that hand a value to Python as it is (print)


def refuse_big_ints(specs, paths, block) -> None:
    """A Python int past int64 that compiled code uses (``x * n``, returned): refused,
    since NumPy would make it int64 (OverflowError), uint64 or float by the other operand, which
    jitcore does not follow for such an int; it may only be passed on to a seed."""
    for spec, path, arg in zip(specs, paths, block.args):
        if spec.dtype != BIG_INT or not spec.weak:
            continue
        compiled = [op for op, _ in arg.uses if op.name not in _ON_THE_HOST]
        if compiled:
            op = compiled[0]
            where = f" at {op.loc}" if op.loc is not UNKNOWN else ""
            raise JitOverflowError(
                f"argument {path} is a Python int of 2**63 or more (past int64), which compiled "
                f"code uses ({op.name}{where}); jitcore passes such an int only on to what "
                "reads it outside the compiled code (a seed: np.random.default_rng(seed)). "
                f"Compute with {path} outside the jitted function, pass it as np.uint64({path}) "
                "for unsigned arithmetic, or name it in static_argnames")


@dataclass(frozen=True)
class Outputs:
    """What a traced function returns: the pytree of its results, then (not in the tree) the
    new values of the arguments it wrote to in place, which the caller copies back."""

    tree: pytree.TreeDef
    mutated: tuple[int, ...] = ()
    # per result: a NumPy scalar rather than a 0-d array (dispatch.PYTHON_NUMBER: a Python number,
    # a dispatch.ChosenType: the type a tag, an output after the results, names)
    scalars: tuple = ()
    # Per value (results, then new values of arguments): the argument it is or is a view of
    # (NumPy lets it share that argument's memory), else a number of its own; see ``owners``.
    owners: tuple[int, ...] = ()
    arguments: tuple[int, ...] = ()  # per result: the argument it is (the caller's array), or -1
    # The call-time inputs (hidden arguments after the real ones, see ``calltime``) and specs.
    inputs: calltime.Inputs | None = None
    hidden: tuple[ArgSpec, ...] = ()
    # Per result: computed transposed, in C order, so that its transpose (returned) has the
    # Fortran order NumPy would give it.
    transposed: tuple[bool, ...] = ()


def _endless_recursion(name: str, scalars) -> UnsupportedError:
    """Tracing that passed Python's recursion limit: most likely a function calling itself under
    a traced condition, whose both branches are traced, so that the calls never end."""
    hint = f" (here: static_argnames={tuple(sorted(scalars))!r})" if scalars else ""
    return UnsupportedError(
        f"tracing {name}() went past Python's recursion limit. A function that calls itself under "
        "a condition on a traced value (if k == 0: ..., k an argument) has both branches traced, "
        "so its calls never reach the end. Mark the arguments that end the recursion static: "
        f"jit(f, static_argnames=...){hint}; or write the recursion as a loop")


def trace(name: str, specs: list[ArgSpec], paths: list[str], rebuild, functions=(), verify: bool = True,
          star_items: dict[str, int] | None = None):
    """Call ``rebuild`` (the user's function, static arguments filled in) on one tracer per
    argument leaf; return the traced module and its ``Outputs``. The globals and closure cells
    that ``functions`` name (and those of the user functions they call) are call-time inputs
    where the traced code uses them: hidden arguments after the leaves' (``calltime``).

    ``verify=False`` leaves the module unverified, for a caller that verifies it before it is
    compiled (``jit``'s compile: the pass manager verifies its input), so that a module whose
    code comes from the disk cache, compiled from the same text in a process that verified it,
    is not verified again (a quarter of a millisecond of a process's first call)."""
    try:
        return _trace(name, specs, paths, rebuild, functions, verify, star_items, reads_as_inputs=True)
    except Exception as error:  # noqa: BLE001  (retried as before, else raised unchanged)
        if not getattr(error, "outside_arrays_read", False):
            raise
    # The trace that read outside arrays as inputs failed, maybe because the code needs one's
    # data while tracing (a mask's count, int(L[0]), a library call): trace with them concrete
    # (computed from while tracing), as before; small ones are compared by content on each call.
    return _trace(name, specs, paths, rebuild, functions, verify, star_items, reads_as_inputs=False)


def _trace(name, specs, paths, rebuild, functions, verify, star_items, reads_as_inputs):
    module = ModuleOp.build()
    func = FuncOp.build(name, FunctionType((), ()))
    module.body.append(func)
    arg_types = tuple(TensorType(s.shape, ir_type(s.dtype)) for s in specs)
    recorder = calltime.Recorder(name)
    recorder.reads_as_inputs = reads_as_inputs
    for f in functions:
        recorder.register(f)

    def call(*leaves):
        return rebuild(list(leaves))

    func.loc = _definition(functions)
    values, outputs = trace_to_block(call, arg_types, Builder(func.body), name=name, paths=paths,
                                     weak=[s.weak for s in specs],
                                     int_ranges=[s.int_range for s in specs],
                                     layouts=[s.layout for s in specs],
                                     scalars=[s.scalar for s in specs], recorder=recorder,
                                     returns_at=func.loc, star_items=star_items)
    func.body.append(ReturnOp(values)).loc = func.loc
    refuse_big_ints(specs, paths, func.body)
    func.attributes["function_type"] = FunctionType(tuple(a.type for a in func.body.args),
                                                    tuple(v.type for v in values))
    if verify:
        ir.verify(module)
    return module, outputs


def _definition(functions) -> Location:
    """Where the traced function is defined (its ``def`` line), if it is plain Python."""
    code = next((f.__code__ for f in functions if hasattr(f, "__code__")), None)
    return UNKNOWN if code is None else FileLineCol(code.co_filename, code.co_firstlineno, 1)


def trace_to_block(fn: Callable, arg_types: Sequence[TensorType], builder: Builder, *, name: str,
                   paths: Sequence[str] | None = None,
                   weak: Sequence[bool] | None = None,
                   int_ranges: Sequence | None = None,
                   layouts: Sequence[str] | None = None,
                   scalars: Sequence[bool] | None = None,
                   recorder: calltime.Recorder | None = None,
                   returns_at: Location = UNKNOWN,
                   star_items: dict[str, int] | None = None) -> tuple[list[Value], Outputs]:
    """Trace ``fn`` into ``builder``'s block, at its insertion point: the block gets one new
    argument per type in ``arg_types``, and ``fn`` is called with one tracer per argument (named
    ``paths`` in error messages; ``weak``: a Python scalar's; ``int_ranges``: a Python int's
    bounds, or None; ``scalars``: a NumPy scalar's or Python number's, which ``fn`` sees as a
    NumPy scalar rather than a 0-d array). Returns the values ``fn`` returned
    (flattened as a pytree), then the new values of the arguments it wrote to in place, and the
    ``Outputs`` that describe them; the caller adds the terminator that uses them.

    Each call is its own ``Trace`` (its own constants), so the body of a function and each
    region of an op (a loop body, a branch) are traced the same way. With a ``recorder``, the
    block gets more arguments while ``fn`` runs, one per call-time input (after the others);
    writes to them are returned as writes to arguments are. The ops that make ``fn``'s results
    values once it has returned (a returned constant, a transpose for Fortran order) are located
    at ``returns_at`` where it is known: the only user frame left then is ``fn``'s caller."""
    t = Trace(builder, name)
    paths = paths if paths is not None else [f"arg{i}" for i in range(len(arg_types))]
    weak = weak if weak is not None else [False] * len(arg_types)
    tracers = [Tracer(builder.block.add_arg(a), t, frozenset({p}), weak=w)
               for a, p, w in zip(arg_types, paths, weak)]
    for tracer in tracers:
        tracer.caller_sees = True
    t.arguments = list(tracers)
    for tracer, bounds in zip(tracers, int_ranges or ()):
        tracer.int_range = bounds
    for tracer, layout in zip(tracers, layouts or ()):
        tracer.fortran = layout == layout_class.F
        tracer.arg_layout = layout  # NumPy's strides for its views (view_layout.py)
    for tracer, scalar in zip(tracers, scalars or ()):
        tracer.scalar = scalar and tracer.ndim == 0
    # A top-level argument that is a scalar may be made static; hints advise it for no other.
    t.scalar_arguments = frozenset(p for a, p in zip(arg_types, paths) if not a.shape and "[" not in p)
    # A scalar item of *args may be made static too, by its position (static_argnums).
    t.star_items = {p: n for p, n in (star_items or {}).items()
                    if any(q == p and not a.shape for a, q in zip(arg_types, paths))}
    t.extents = tuple(dict.fromkeys(n for a in arg_types for n in a.shape if n > 1))
    recording = nullcontext() if recorder is None else recorder.recording(t, builder.block)
    with recording:  # open while the results are made values: a returned global is an input
        with t.running():
            try:
                out = fn(*tracers)
            except RecursionError as e:
                error = _endless_recursion(name, t.scalar_arguments)
                counts = {p for a, p in zip(arg_types, paths or ())
                          if p in t.scalar_arguments and np_dtype(a.element).kind in "iub"}
                if counts:  # a depth or count ends the recursion: static on demand
                    error.static_would_fix = frozenset(counts)
                raise error from e
        traced_ops = {id(op) for op in builder.block.ops}
        if isinstance(out, argument_writes.ArgumentWrites):
            leaves, out_tree = pytree.flatten_fields(out, (False, True))
        else:
            leaves, out_tree = pytree.flatten(rows_as_returned(out, t) if t.appended else out)
        # A Python number or string returned is returned as it is: x.shape[0] is an int.
        out_tree, leaves = pytree.with_constants(out_tree, leaves, python_value)
        for constant in pytree.constants(out_tree):
            error = formatting.refusal(constant, f"returned by {name}()")
            if error is not None:  # (str(n) of an int argument n: static on demand)
                raise needs_static(error, *(tracer for _, (tracer, _) in formatting.values_in([constant], t)))
        # A selection by a traced mask (x[x > 0], np.nonzero(x)): its rows compacted into a
        # buffer, their count an output after the results (one per mask), as the tags are
        counts, made_of, moved, typed = {}, {}, {}, {}
        for k, leaf in enumerate(leaves):
            form = number_or_array.form_of(leaf) if isinstance(leaf, Tracer) else None
            if form is not None:
                raise form.returned  # a number or an array, by the data
            if isinstance(leaf, Repeated):  # no buffer can hold it: nothing bounds its length
                raise leaf._refusal(f"returning it from {name}()")
            if isinstance(leaf, RealOrComplex):  # real or complex, as the data chose (eig): marked
                leaf = leaves[k] = leaf.held()
            if isinstance(leaf, ChosenDtype):  # an array whose dtype the data chose: marked
                if isinstance(leaf.values, Tracer):
                    leaf = leaves[k] = leaf.marked()
                else:  # (np.array(out) of a list the data filled: its tag after the count)
                    typed[k] = leaf.which, tuple(array_as(d) for d in leaf.dtypes)
                    leaf = leaves[k] = leaf.values
            if isinstance(leaf, KeptList):  # a list the data filled: the list, as Python's
                made_of[k] = leaf.returned(returns_at)
                if leaf.choice is not None:  # (each item's type chosen by the data: its tags)
                    typed[k] = compaction(MaskedSelection(leaf.choice[0], leaf.kept))[0], leaf.choice[1]
                leaf = leaves[k] = leaf.selection(returned=True)
            elif isinstance(leaf, ListSelection):  # np.array(out): np.array([]) where empty
                made_of[k] = leaf.empty
            if isinstance(leaf, RangedSelection) and leaf._block():  # Y[:k, :k]: a 2-d result
                raise leaf._refusal("returning it")
            if isinstance(leaf, MaskedSelection):
                moved[k] = leaf.position  # (a[:, m]: its selected dim is not the first)
                key = id(leaf.mask)
                leaves[k], count = compaction(leaf)
                counts.setdefault(key, count)
                counts[k] = counts[key]
        values, scalars, tags = [], [], []
        # (a compacted result is its buffer's first rows, in C order: never returned transposed)
        transposed = tuple(isinstance(leaf, Tracer) and leaf.fortran and k not in counts
                           and not any(leaf is a for a in tracers) for k, leaf in enumerate(leaves))
        for k, (leaf, turn) in enumerate(zip(leaves, transposed)):
            if k in counts:
                values.append(leaf.value)
                count = counts[k]
                at = next((j for j, t in enumerate(tags) if t is count), None)
                if at is None:
                    at = len(tags)
                    tags.append(count)
                if k in typed:  # (the rows' tags: an output after the results, as the counts)
                    tags.append(typed[k][0])
                    scalars.append(Trimmed(len(leaves) + at, made_of.get(k), moved.get(k, 0),
                                           typed[k][1], len(leaves) + len(tags) - 1))
                else:
                    scalars.append(Trimmed(len(leaves) + at, made_of.get(k), moved.get(k, 0)))
            elif turn:  # written in C order transposed: the caller gets its Fortran-ordered transpose
                values.append(transpose(leaf).value)
                scalars.append(False)
            elif isinstance(leaf, Tracer) and leaf.type_choice is not None:
                # its type chosen by the data (type_choice.py): its tag comes back after the
                # results, and the value is converted to the kind it names
                values.append(leaf.value)
                tag, kinds = leaf.type_choice
                scalars.append(ChosenType(kinds, len(leaves) + len(tags), leaf.dtype.name))
                tags.append(tag)
            elif (picked := _picked_arguments(leaf, tracers, t)) is not None:
                # an argument itself (or a view of one) on the paths that return it: whether
                # they ran, and the arguments, come back after the results (``dispatch.pick``)
                values.append(leaf.value)
                at = len(leaves) + len(tags)
                views = tuple(v for a, v in zip(leaf.view_of[1].arrays, leaf.view_of[1].views)
                              if a is not None)
                scalars.append(Picked(at, at + 1, -1 if len(picked) == 1 else at + 2,
                                      PickedView(views) if any(views) else None))
                tags += [leaf.view_of[1].taken, *picked]
            elif isinstance(leaf, Tracer):
                values.append(leaf.value)
                # a Python number's value (a counter, an int argument, n / 2): Python's number
                scalars.append(PYTHON_NUMBER if leaf.weak and leaf.ndim == 0 else leaf.scalar)
            elif isinstance(leaf, (np.ndarray, np.generic, bool, int, float, complex)):
                dtype = np.asarray(leaf).dtype
                values.append(as_tracer(t, leaf, dtype).value)
                scalars.append(not isinstance(leaf, np.ndarray))
            else:
                raise JitTypeError(
                    f"{name}() returned a {type(leaf).__name__} ({leaf!r}); a jitted function may "
                    "return arrays, numbers, strings, and tuples, lists, dicts or None of them"
                )
        values += [tag.value for tag in tags]
        if returns_at.known:
            for op in builder.block.ops:
                if id(op) not in traced_ops:
                    op.loc = returns_at
    if recorder is not None:
        recorder.finish()
        tracers += recorder.tracers
    mutated = tuple(i for i, tracer in enumerate(tracers) if tracer.version)
    values += [tracers[i].value for i in mutated]
    arguments = tuple(next((i for i, t in enumerate(tracers) if leaf is t), -1) for leaf in [*leaves, *tags])
    specs = () if recorder is None else recorder.specs
    hidden = tuple(ArgSpec(shape, dtype, layout=layout) for shape, dtype, layout in specs)
    return values, Outputs(out_tree, mutated, tuple(scalars) + (False,) * (len(tags) + len(mutated)),
                           owners([*leaves, *tags], tracers) + mutated, arguments,
                           inputs=None if recorder is None else recorder.inputs, hidden=hidden,
                           transposed=transposed)


def _picked_arguments(leaf, tracers: list[Tracer], trace: Trace) -> list[Tracer] | None:
    """The arguments ``leaf`` is, itself, where a traced condition holds (and, where it is one
    too, where it does not): a view ``aliasing.chosen`` made of whole arguments, its condition
    a value of the function's own block. None where it is no such view."""
    if not isinstance(leaf, Tracer) or leaf.view_of is None or leaf.scalar:
        return None
    choice = leaf.view_of[1]
    if not isinstance(choice, Choice) or choice.arrays is None or choice.taken.level > trace.depth:
        return None
    picked = [a for a in choice.arrays if a is not None]
    if not all(any(a is arg for arg in tracers) for a in picked):
        return None
    return picked


def owners(leaves, tracers: list[Tracer]) -> tuple[int, ...]:
    """Per leaf, who may share memory with it: argument ``i`` for that argument's tracer and
    its views (as NumPy's views share the argument's memory), else one number per distinct
    array (its view chain's root), from ``len(tracers)`` on. Distinct arrays never share
    memory in NumPy, even where the compiled function computes them as one value."""
    ids = {id(t): i for i, t in enumerate(tracers)}
    out = []
    for leaf in leaves:
        root = leaf.root() if isinstance(leaf, Tracer) else leaf
        out.append(ids.setdefault(id(root), len(tracers) + len(ids)))
    return tuple(out)


def optimize(module: ModuleOp, options: CompileOptions, *,
             timing_sink: Callable[[str], None] | None = None, **instrumentation) -> ModuleOp:
    """A copy of ``module`` after the options' pass pipeline.

    ``instrumentation`` goes to the ``PassManager``; with ``timing_sink``, passes are timed and
    the timing report is handed to it after the run.
    """
    copy = module.clone({})
    if timing_sink is not None:
        instrumentation["timing"] = True
    pipeline = options.pipeline
    if pipeline == DEFAULT_PIPELINE and options.target != "cpu":
        pipeline = RECOMPUTING_PIPELINE
    pm = passes.PassManager(pipeline, verify_each=options.verify_each, **instrumentation)
    pm.run(copy)
    if timing_sink is not None:
        timing_sink(pm.format_timing())
    return copy


def lower(module: ModuleOp, specs: list[ArgSpec], options: CompileOptions | None = None) -> CompiledFunction:
    """The module's function compiled by the options' target: a plan (its calling convention,
    launches and code, as data) that ``dispatch.Executable`` loads and calls."""
    options = options or CompileOptions()
    (func,) = module.functions()
    lowering = LowerOptions(header=ARRAY_HEADER, fastmath=options.fastmath, profile=options.profile)
    return backend_for(options.target).lower(func, tuple(s.layout for s in specs), lowering)
