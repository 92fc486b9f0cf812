"""The statements converted code calls: ``if_stmt``, ``while_stmt``, ``for_stmt``. Each gets the
statement's state (its variables' values, ``Undefined`` for none yet) and nested functions for
its branches, test and body, which take the state and return it. On concrete conditions and
bounds they run them in Python, as the original statement would; on traced ones they build
``scf`` ops with ``jitcore.control_flow``, the state as operands or the loop's carry.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import inspect
import re
import textwrap
import threading
import types
import warnings

import numpy as np

from jitcore import calltime, compile_time, index_forms, pytree, real_or_complex, traced_text
from jitcore import control_flow as cf
from jitcore import primitives as prims
from jitcore.autograph import (
    analysis,
    appending,
    closure_writes,
    effects,
    loop_exit,
    raises,
    selection_state,
    tables,
    unbound,
)
from jitcore.autograph.aliasing import (
    Rebound,
    SharedArrays,
    Unheld,
    aliased,
    branch_given,
    chosen,
    first_pass_view,
    held_by,
    inner_pick,
    one_array_after_loop,
    one_array_in_body,
    one_new_array,
    path_flag,
    refuse_first_write,
    settled,
)
from jitcore.autograph.expressions import (
    Indexed,
    TracedRange,
    iterates_selection,
    python_number,
    selection_loop,
    where,
)
from jitcore.autograph.local_arrays import HeldOutside, drop_copies, refuse_carried_items, shared_as_traced
from jitcore.autograph.lowering import RETVAL
from jitcore.autograph.unbound import Undefined
from jitcore.chosen_dtype import ChosenDtype
from jitcore.codegen.loops import NEAR, derived
from jitcore.compile_time import user_stacklevel
from jitcore.data_length import KeptList, Positions
from jitcore.dispatch import PYTHON_NUMBER
from jitcore.errors import (
    CompileTimeWarning,
    ConcretizationError,
    JitTypeError,
    JitValueError,
    LoopCarryShapeError,
    UnsupportedError,
)
from jitcore.generator_arguments import GeneratorArgument
from jitcore.ir.core import ELEMENTWISE, Block, OpResult
from jitcore.masked import MaskedSelection
from jitcore.primitives import as_tracer
from jitcore.real_or_complex import RealOrComplex
from jitcore.tied_length import Repeated
from jitcore.tracer import Tracer, as_scalar, current_trace, fresh, needs_static

# A static ``range`` longer than this becomes a loop in the IR rather than being unrolled; so does
# one whose bounds are, by their values, the arguments' extents or one step from them
# (``_sized``), however short: unrolled, each new size would be other code, another compile.
UNROLL_LIMIT = 64
# ... and so does a shorter one whose copies of the body would hold more ops than this that
# end a fused kernel (reductions, contractions, gathers, sorts, nested loops): each is about one
# kernel to compile, and compile time grows with the kernels (a Newton iteration with two sums,
# 50 steps: 100 kernels, 25 s; five rows of mean, sort and std: 3.8 s unrolled, 1.9 s as a
# loop). Elementwise and shape ops fuse across copies: not counted.
UNROLL_KERNELS = 16
# ... and so does one whose copies would hold more ops than this in all, fused or not: a body
# of many elementwise ops (an rfft of 256 points is ~180) compiles in time that grows with the
# copies however well they fuse (31 frames of ``acc += np.abs(np.fft.rfft(x[i * 128:i * 128 +
# 256])) ** 2``: 16 s unrolled; a few ms an op).
UNROLL_OPS = 1000
# Steps of a loop run in Python at each end, at most, so that the steps between are a loop
# (a slice NumPy clamps at the first or last steps, ``x[i - 1:i + 2]``).
PEEL = 2
_NUMBERS = (bool, int, float, complex, np.generic)
_PYTHON_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_FUSING = frozenset({"array.constant", "array.broadcast_in_dim", "array.reshape", "array.transpose",
                     "array.slice", "array.pad", "array.concatenate"})


def state(local_vars: dict, names) -> tuple:
    return tuple(local_vars.get(n, Undefined(n)) for n in names)


# values whose attributes are not an object's own state
_NOT_HOLDERS = (Tracer, np.ndarray, np.generic, type, types.ModuleType, Undefined)


def holders(local_vars: dict, pairs, methods=()) -> tuple:
    """``(object, name, attribute)`` for each ``name.attribute`` a branch or loop sets, and each
    attribute of ``self`` that a method it calls as ``name.method(...)`` sets (``methods``:
    ``(name, method)`` pairs; ``method_sets``), where ``name`` holds a plain Python object made
    while tracing: its attribute is carried through the statement as a variable is
    (``AttributeState``)."""
    r = calltime.recorder()
    wanted = dict.fromkeys(pairs)
    for name, method in methods:
        obj = local_vars.get(name)
        for attr in method_sets(getattr(type(obj), method, None)):
            wanted[(name, attr)] = None
    out = []
    for name, attr in wanted:
        obj = local_vars.get(name)
        *through, attr = attr.split(".")  # s.grid.u: the object s.grid holds before the statement
        for step in through:
            if not _holder(obj, r):
                break
            obj, name = vars(obj).get(step), f"{name}.{step}"
        if not _holder(obj, r):
            continue  # an object from outside: set_attribute refuses it
        out.append((obj, name, attr))
    return tuple(out)


def _holder(obj, r) -> bool:
    """Whether ``obj`` is a plain Python object of the trace's own (made while tracing, or an
    argument's object rebuilt for it), whose attributes a statement may carry."""
    return not (obj is None or isinstance(obj, _NOT_HOLDERS) or not hasattr(obj, "__dict__")
                or (r is not None and r.outside(obj) and not r.made_here(obj)))


@functools.lru_cache(maxsize=256)
def method_sets(fn, depth: int = 3) -> tuple:
    """The attributes of ``self`` a method of the user's sets (``self.k = v``, ``self.k += 1``),
    those of the methods it calls on ``self`` included, ``depth`` calls deep: read from its
    source, since they are set while the method is traced inside the statement."""
    fn = getattr(fn, "__func__", fn)
    if depth <= 0 or not isinstance(fn, types.FunctionType):
        return ()
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return ()
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fdef.args.args:
        return ()
    me = fdef.args.args[0].arg
    found = dict.fromkeys(a for _, a in analysis.attribute_targets(fdef.body, {me}))
    # self.h[i] += 1: an array attribute written in place, which a made object's first write
    # replaces by a traced copy (local_arrays), so the statement carries it too
    for node in ast.walk(fdef):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AugAssign) else []
        for t in (t for t in targets if isinstance(t, ast.Subscript)):
            while isinstance(t, ast.Subscript):
                t = t.value
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == me:
                found[t.attr] = None
    cls = _defining_class(fn)
    for _, method in analysis.method_calls(fdef.body, {me}):
        for attr in method_sets(getattr(cls, method, None), depth - 1):
            found[attr] = None
    return tuple(found)


def _defining_class(fn):
    """The class whose body defines ``fn`` (from its qualified name), for its calls on self."""
    owner = fn.__globals__
    for part in fn.__qualname__.split(".")[:-1]:
        owner = owner.get(part) if isinstance(owner, dict) else getattr(owner, part, None)
        if owner is None:
            return None
    return owner if isinstance(owner, type) else None


_CARRYING = threading.local()  # .frames: (region depth, {(id(object), attribute)}) innermost last


@contextlib.contextmanager
def _carrying(holders):
    frames = _CARRYING.__dict__.setdefault("frames", [])
    frames.append((current_trace().depth, {(id(o), a) for o, _, a in holders}))
    try:
        yield
    finally:
        frames.pop()


def carried(obj, attr: str, made_depth: int) -> bool:
    """Whether each traced branch or loop body being traced that is inside the region where
    ``obj`` was made carries ``obj.attr`` (a method setting it there is then right: the
    statement carries the value it sets out of the body; straight-line code carries it as is)."""
    depth = current_trace().depth
    frames = getattr(_CARRYING, "frames", [])
    covered = {d for d, pairs in frames if (id(obj), attr) in pairs}
    return all(d in covered for d in range(made_depth + 1, depth + 1))


class AttributeState:
    """Attributes of objects a traced branch or loop body sets (``r.clipped = True``) as more
    of its variables: each function of the statement gets their values set on the objects
    before it runs and gives back their values after, so the branches' values are joined and
    a loop carries them, as variables; the objects get the statement's results. (Set as
    Python sets them, both branches' assignments ran, the last one traced winning.)"""

    def __init__(self, holders, names, init):
        self.holders, self.count = holders, len(names)
        self.names = (*names, *(f"{name}.{attr}" for _, name, attr in holders))
        self.init = (*init, *self._read())

    def _read(self) -> tuple:
        return tuple(getattr(o, a, Undefined(f"{n}.{a}")) for o, n, a in self.holders)

    def _set(self, values) -> None:
        for (o, _, a), v in zip(self.holders, values):
            if isinstance(v, Undefined):
                if a in vars(o):
                    delattr(o, a)
            else:
                setattr(o, a, v)

    def body(self, fn, lead: int = 0):
        """``fn(*lead values, *variables)`` returning the variables: with the attributes too,
        which methods may set while it is traced (``carried``)."""
        def run(*values):
            self._set(values[lead + self.count:])
            with _carrying(self.holders):
                out = fn(*values[:lead + self.count])
            return (*out, *self._read())
        return run

    def reader(self, fn):
        """``fn(*variables)`` returning anything else (a loop's test or bound)."""
        def run(*values):
            self._set(values[self.count:])
            return fn(*values[:self.count])
        return run

    def loop_site(self, site: dict, after):
        """A loop's ``site`` and ``after`` with the attributes among its variables (read after
        the loop, as the objects hold them then)."""
        site.update(init=self.init, names=self.names)
        if site.get("bound") is not None:
            site["bound"] = self.reader(site["bound"])
        return after if after is None else (*after, *self.names[self.count:])

    def finish(self, values):
        values = tuple(values)
        self._set(values[self.count:])
        return values[:self.count]


def result(local_vars: dict):
    value = local_vars.get(RETVAL)
    return None if isinstance(value, Undefined) else value


# -- the statements ----------------------------------------------------------------------------------
def _refuse_in_try(in_try: bool, what: str, line, *decided_by) -> None:
    """``decided_by``: the traced values of the condition or bounds (static arguments behind
    them would make the statement Python's: ``needs_static``)."""
    if in_try:
        raise needs_static(UnsupportedError(
            f"{what} with a traced condition inside try/except at {where(line)} cannot be "
            "converted: exceptions cannot be caught in compiled code; move the try out of the "
            "jitted function"), *decided_by)


def _refuse_changes(changes, what: str, line, *decided_by) -> None:
    """A traced branch or loop body is traced once: a call in it that changes a Python object
    (``hist.append(err)``) would run once, whatever the condition or the number of iterations."""
    if changes is None:
        return
    if what == "if":
        runs, instead = "both branches are traced once, so the call would run whatever the " \
            "condition", " or use np.where"
    else:
        runs, instead = "its body is traced once, so the call would run once whatever the " \
            "number of iterations", ""
    if what == "for loop" and changes.endswith(".append") and "." in changes[:-len(".append")]:
        # (s.es.append(v): a local list compiles with the count traced; round 51, h1 R3)
        held = changes[:-len(".append")]
        instead = (f"; or append to a local list and set it after the loop (es = []; ... "
                   f"es.append(v) ...; {held} = es), which compiles once for every count; or "
                   "make the count static (static_argnums or static_argnames: one compile per value)")
    raise needs_static(UnsupportedError(
        f"the {what} at {where(line)} has {'traced bounds' if what == 'for loop' else 'a traced condition'} "
        f"and calls {changes}(...), "
        f"which changes a Python object: compiled, {runs}; write into an array instead "
        f"(out[n] = v; n += 1 with a fixed-size out, then out[:n]){instead}"), *decided_by)


def _carriable(value) -> bool:
    return all(isinstance(leaf, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
               for leaf in pytree.flatten(value)[0])


def _pred(pred, what, line):
    """A traced condition as one value: a size-1 array is fine (as in Python's ``if``)."""
    if pred.shape != ():
        if pred.size != 1:
            # NumPy's ValueError ("truth value ... ambiguous"), so `except ValueError` catches it
            raise JitValueError(f"the condition of the {what} at {where(line)} is a traced array "
                                f"of shape {pred.shape}: its truth value is ambiguous, as in "
                                f"NumPy; use .any() or .all() to make one value")
        pred = pred.reshape(())
    return pred


def _one_path(name: str, line) -> UnsupportedError:
    return UnsupportedError(
        f"'{name}' is assigned on only one path through the if at {where(line)}, whose condition is "
        "traced (in one branch, or after the if where the other branch returns, breaks or "
        f"continues), and it is used after it; give it a value before the if ({name} = 0.0 "
        "before the loop, say) or on every path")


def _kinds_of(v) -> tuple | None:
    """``(treedef, leaf kinds)`` of a value a branch defines (``_leaf_kind``), or None for one
    that is not a pytree of numbers and arrays."""
    if isinstance(v, Undefined) or not _carriable(v):
        return None
    leaves, treedef = pytree.flatten(v)
    return treedef, [_leaf_kind(leaf) for leaf in leaves]


def _leaf_kind(v) -> tuple:
    """A returned value's shape, dtype and scalar-ness (``PYTHON_NUMBER``: a Python number's, so that the
    joined result stays one: ``return i`` of a loop's index): what the path that did not return
    fills."""
    dtype = v.dtype if hasattr(v, "dtype") else np.asarray(v).dtype
    python = python_number(v)
    scalar = v.scalar if isinstance(v, Tracer) else not isinstance(v, np.ndarray)
    return np.shape(v), dtype, PYTHON_NUMBER if python and dtype in _PYTHON_ZERO else scalar


def _cannot_carry(name, value, what, line):
    leaf = next((leaf for leaf in pytree.flatten(value)[0] if not _carriable(leaf)), value)
    if isinstance(leaf, (MaskedSelection, KeptList)):
        return _cannot_carry_selection(name, leaf, what, line)
    if isinstance(leaf, ChosenDtype):
        return leaf._refusal(f"'{name}', assigned in the {what} at {where(line)}, whose condition "
                             "or bounds are traced,")
    if isinstance(leaf, RealOrComplex):
        use = (f"returning it from the {what} at {where(line)}" if name == RETVAL else
               f"'{name}', assigned in the {what} at {where(line)}")
        return leaf._refusal(f"{use}, whose condition or bounds are traced,",
                             f"the {what} carries it only where it held one before the {what}")
    if isinstance(leaf, Repeated):
        return leaf.carried_refusal(name, what, where(line))
    kind = type(leaf).__name__
    if name == RETVAL:  # (the conversion's name for the function's result)
        return UnsupportedError(
            f"the function returns a {kind} from the {what} at {where(line)}, whose condition or "
            "bounds are traced: which one it returns depends on the data, which a compiled "
            "function cannot return as a Python object. Return arrays or numbers (a code: 0 or "
            "1, np.where(cond, a, b)), and choose the text outside the jitted function")
    text = (". A string chosen by traced data cannot be computed by compiled code: keep a code "
            "(a bool or int) there, and choose the text from it outside the jitted function; "
            f"text only printed can be picked by an expression ({name} = 'a' if test else 'b'), "
            "which prints the one picked at each call"
            if kind in ("str", "bytes") else
            f". An index built as a list and changed ({name} = [slice(None)] * a.ndim; "
            f"{name}[axis] = 0; a[tuple({name})]) is such a value: build it in one expression "
            f"instead, which is not a changed variable ({name} = tuple(0 if d == axis else "
            "slice(None) for d in range(a.ndim))), or before the loop"
            if kind in ("slice", "ellipsis", "NoneType") else "")
    return UnsupportedError(
        f"'{name}' holds a {kind} and is assigned in the {what} at {where(line)}, "
        "whose condition or bounds are traced: only arrays and numbers (in tuples, lists or "
        f"dicts) can change there{text}")


def _cannot_carry_selection(name, leaf, what, line):
    """A value whose length the data chooses, assigned in a traced branch or loop: said in the
    user's terms (no class of jitcore's), with what to write."""
    described = (isinstance(leaf, MaskedSelection) and not isinstance(leaf, Positions)
                 and leaf.described is not None)
    held = ("indices from np.nonzero (or np.flatnonzero, np.argwhere)" if isinstance(leaf, Positions)
            else "a list appended to as the data chose" if isinstance(leaf, KeptList)
            # (what the user wrote: np.array(rewards), np.zeros_like of it)
            else f"as many values as {leaf.origin.format(values=leaf.values)}" if described
            else "the values a boolean mask selects (x[mask])")
    instead = (leaf.advice if described and leaf.advice else
               "Keep a fixed-capacity array and a count (pairs = np.zeros((capacity, 2), int), filled "
               "with np.where, used with a mask of its first count rows); or work on the full mask "
               "(np.where(mask, values, 0)) instead of its selected items")
    error = UnsupportedError(
        f"'{name}' holds {held}, whose number the data chooses, and is assigned in the {what} at "
        f"{where(line)}, whose condition or bounds are traced: a value that changes there must "
        "keep one shape in every path, and this one's length is known only when it is made. "
        f"Build '{name}' once, before any traced if or loop that changes it, and only use it "
        f"there. {instead}")
    if what == "if" and type(leaf) is MaskedSelection:  # (the if may carry it as a pair: if_stmt)
        error.selection_state = name
    return error


def _keeping_containers(statement):
    """A traced branch or loop carries a list or dict of the state as its leaves, and gives back
    new containers: ``state["hits"] += 1`` under ``if x[0] > 0`` went to a new dict, and the
    caller's dict (an argument's, written back after the call: ``argument_writes``), or another
    name for it, never saw it. Where the statement changes such a container only in place (its
    name is not in ``rebinds``), the new contents are written into the old object, as Python's
    statement would have left them."""

    @functools.wraps(statement)
    def run(*args, **site):
        out = statement(*args, **site)
        rebinds = site.get("rebinds")
        if rebinds is None:
            return out
        return tuple(after if name in rebinds else pytree.update_in_place(before, after)
                     for name, before, after in zip(site["names"], site["init"], out))

    return run


@_keeping_containers
def if_stmt(pred, then_fn, else_fn, *, init, names, line, in_try, then_defined, else_defined, dead=(),
            fresh=(), changes=None, rebinds=None, holders=(), appends=(), after_break=False, iterated=(),
            refreshed=()):
    if holders:
        attributes = AttributeState(holders, names, init)
        return attributes.finish(if_stmt(
            pred, attributes.body(then_fn), attributes.body(else_fn), init=attributes.init,
            names=attributes.names, line=line, in_try=in_try, then_defined=then_defined,
            else_defined=else_defined, dead=dead, fresh=fresh, changes=changes, rebinds=rebinds,
            appends=appends, after_break=after_break, iterated=iterated, refreshed=refreshed))
    if not isinstance(pred, Tracer):
        return then_fn(*init) if pred else else_fn(*init)
    _refuse_in_try(in_try, "an if", line, pred)
    _refuse_changes(changes, "if", line, pred)
    held = [i for i, name in enumerate(names) if name in refreshed and _unchanged(init[i])]
    if held:  # (rng, only read again after resample(w, rng): the same Generator on both paths)
        return _passing_through(held, init, names, line, lambda then, other, state, state_names: if_stmt(
            pred, then, other, init=state, names=state_names, line=line, in_try=in_try,
            then_defined=then_defined, else_defined=else_defined, dead=dead, fresh=fresh,
            rebinds=rebinds, appends=appends, after_break=after_break, iterated=iterated),
            then_fn, else_fn)
    if appends:  # lists its branches append to: their rows and marks as state (``appending``)
        try:
            return appending.appending_if(
                lambda then, other, state, state_names: if_stmt(
                    pred, then, other, init=state, names=state_names, line=line, in_try=in_try,
                    then_defined=then_defined, else_defined=else_defined, dead=dead, fresh=fresh,
                    rebinds=rebinds), then_fn, else_fn, init, names, appends, where(line), pred,
                after_break)
        except UnsupportedError as e:
            grown = [(name, at) for name, at in iterated if f"'{name}' is appended to" in str(e)]
            if not grown:
                raise
            raise _grown_while_iterated(*grown[0], line) from e
    if pred.refines is not None:  # if t >= w: t's narrower bounds in each branch
        x, holds, fails = pred.refines
        then_fn, else_fn = index_forms.refining(then_fn, x, holds), index_forms.refining(else_fn, x, fails)
    pred = _pred(pred, "if", line)
    rebinds = set(rebinds or ())

    def traced(init):
        # arrays the branches change only in place: their roots, shared with other names, are
        # the if's operands and results (``aliasing``); the variables keep their objects
        with effects.watching("if", line, names, init, (then_fn, else_fn), (pred,)):
            return _traced_until_settled(
                names, lambda rebound, written, kept: SharedArrays(names, init, rebinds - kept,
                                                                   written, rebound),
                lambda shared: _traced_if(pred, then_fn, else_fn, init, names, line, then_defined,
                                          else_defined, dead, fresh, shared))[1]

    try:
        return _with_local_arrays(traced, init, names, (then_fn, else_fn), rebinds)
    except UnsupportedError as e:
        name = selection_state.refused_name(e)
        if name is None or name not in names:
            raise
        # (s = x[m] in a branch: the if carries its values and mask, ``selection_state``)
        picks = {names.index(name)}
        try:
            out = _if_of_pairs(pred, then_fn, else_fn, picks, init=init, names=names, line=line,
                               in_try=in_try, then_defined=then_defined, else_defined=else_defined,
                               dead=dead, fresh=fresh, changes=changes, rebinds=rebinds,
                               appends=appends, after_break=after_break, iterated=iterated)
        except (JitTypeError, LoopCarryShapeError):  # (values of two shapes: said as before)
            raise e from None
        return tuple(selection_state.restored(v) if j in picks else v for j, v in enumerate(out))
    except JitTypeError as e:
        if after_break:
            _say_shape_after_break(e, line)
        raise
    except raises.BranchRaised as branch:  # it raises where it is taken; the other one runs
        with _in_user_terms():
            raises.raise_where_taken(pred, branch, then_fn if branch.then else else_fn, init)
        return (else_fn if branch.then else then_fn)(*init)


def _passing_through(held, init, names, line, traced, then_fn, else_fn):
    """The traced if (``traced(then, else, state, names)``) of the variables other than those
    at ``held`` (each ``_unchanged``, only read again after a call in a branch: ``rng =
    refreshed(rng)`` after ``resample(w, rng)``), which the branches are given as they are."""
    keep = [i for i in range(len(names)) if i not in held]

    def narrowed(fn):
        def run(*state):
            full = list(init)
            for i, v in zip(keep, state):
                full[i] = v
            out = fn(*full)
            for i in held:
                if out[i] is not init[i]:
                    raise _cannot_carry(names[i], out[i], "if", line)
            return tuple(out[i] for i in keep)
        return run

    out = traced(narrowed(then_fn), narrowed(else_fn), tuple(init[i] for i in keep),
                 tuple(names[i] for i in keep))
    full = list(init)
    for i, v in zip(keep, out):
        full[i] = v
    return tuple(full)


_BRANCH_TYPES = re.compile(r"^(.+?) is (\S+) from the if branch but (\S+) from the else branch; "
                           r"the branches must return the same shapes and dtypes")


def _say_shape_after_break(error: JitTypeError, line) -> None:
    """The if ``lowering`` made of a loop body's statements after a traced ``break`` (``if not
    <break flag>``): where its two paths give a variable two types, say so in the loop's terms
    (the user wrote no else), and what to do where the loop shrinks or grows an array."""
    text = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], str) else ""
    found = _BRANCH_TYPES.match(text)
    if found is None:
        return
    name, going, stopping = found.groups()
    shapes = going.split("[")[1:] != stopping.split("[")[1:]
    v = name.strip("'")
    advice = (f" {name} changes shape on each pass of the loop (an array that shrinks or grows), "
              "which a loop whose exit the data decides cannot carry: keep it at its first size "
              f"with a count n of the items in use (idx = np.arange({v}.size); each pass {v} = "
              f"np.where(idx < n - 1, <the new items, computed on all of {v}>, {v}); n -= 1), "
              f"reading {v}[n - 1] as its last item" if shapes else
              f" Give {name} its type before the loop (an .astype(), a float literal)")
    error.args = (f"{name} is {going} where the loop goes on past the traced break at "
                  f"{where(line)} and {stopping} where it breaks: compiled, the statements after "
                  "the break are a branch taken where it does not break, and a variable must keep "
                  f"one shape and dtype on both paths.{advice}",)


def _if_of_pairs(pred, then_fn, else_fn, picks, *, init, **site):
    """``if_stmt`` with the variables at ``picks`` (selections) carried as (values, mask) pairs."""
    return if_stmt(pred, selection_state.paired(then_fn, picks), selection_state.paired(else_fn, picks),
                   init=tuple(selection_state.carried(v) if j in picks else v for j, v in enumerate(init)),
                   **site)


class _FirstLeftUnset(Exception):
    """The branch of a traced if traced first left the variable at ``i`` unset, though the
    analysis of the source had it set there (an inner if it holds went one way in Python)."""

    def __init__(self, i: int):
        super().__init__(i)
        self.i = i


class _NeedsLift(Exception):
    """A branch of a traced if gave the variable at ``i`` arrays real or complex as the data
    chose (``real_or_complex``) at the leaves ``spots``: trace it again, both branches carrying
    those leaves lifted (``real_or_complex.Lifted``)."""

    def __init__(self, i: int, spots: set[int]):
        super().__init__(i)
        self.i, self.spots = i, spots


class SameObject(Exception):
    """A loop body bound a variable it carries by value (``Z = step(Z)``) to the very array it
    was given, written in place (``step`` changed ``Z`` and returned it): an in-place write, so
    trace it again carrying ``positions`` (indices into the statement's names) as shared."""

    def __init__(self, positions: set[int]):
        super().__init__(positions)
        self.positions = positions


def _traced_until_settled(names, make, trace):
    """``(made, trace(made))`` for ``made = make(rebound, written, kept)`` (a ``SharedArrays``,
    or a ``_Loop`` holding one), traced again while a body shows the conversion's guess wrong:
    a name it bound anew (``Rebound``), an array from outside it wrote (``Unheld``), a name it
    bound to the same array (``SameObject``: ``kept``, not bound anew after all)."""
    written, rebound, kept = [], set(), set()
    while True:
        made = make(rebound, written, kept)
        try:
            return made, trace(made)
        except Rebound as e:
            rebound |= {names[i] for i in e.positions}
        except SameObject as e:
            if not {names[i] for i in e.positions} - kept:
                raise UnsupportedError("internal error: a loop's carry did not settle") from None
            kept |= {names[i] for i in e.positions}
        except Unheld as e:
            if e.region is not getattr(made, "arrays", made):
                raise
            written.append(e.root)


_PICKED = "\0picked "  # the cond's output of whether an inner if picked a variable's array


def _traced_if(pred, then_fn, else_fn, init, names, line, then_defined, else_defined, dead, fresh,
               shared):
    # written in place but not read after the if, and with no value before it: local to a branch
    local = {n for n, v in zip(names, init) if n in fresh and isinstance(v, Undefined)}
    dead = set(dead) | local
    # Variables with no value before the if that one branch defines (the result variable, where
    # the other returns; any other, bound after the if where that branch ran: ``unbound``): the
    # other branch fills zeros of their types, so that branch is traced first. Those of both
    # branches cannot all be traced first: the other side's are refused.
    filled = set()
    one_sided = [i for i, (name, value) in enumerate(zip(names, init)) if isinstance(value, Undefined)
                 and name not in dead and not (name in then_defined and name in else_defined)]
    sides = [names[i] in then_defined if names[i] in then_defined or names[i] in else_defined else None
             for i in one_sided]
    then_first = next((side for i, side in zip(one_sided, sides) if names[i] == RETVAL and side is not None),
                      next((side for side in sides if side is not None), True))
    first_type = {}
    for i, side in zip(one_sided, sides):
        if side is None and names[i] != RETVAL:
            raise _one_path(names[i], line)
        filled.add(i)  # (the result: read only where a return set it, so any path may fill it)
    unset = set()  # filled names neither branch sets after all (``_SetByNeither``)
    # those the branch traced second defines (``c = s * 2`` on the path past an ``if ...:
    # return``, whose branch defines the result): their types from a trial run of that branch
    # (a value the path that returns or breaks never reads: any of the type will do)
    later = [i for i, side in zip(one_sided, sides) if side != then_first]
    if later:
        kinds = _trial(else_fn if then_first else then_fn, init, lambda after, _: {
            i: _kinds_of(after[i]) for i in later})
        if kinds is None or any(k is None for k in kinds.values()):
            raise _one_path(names[later[0]], line)
        first_type.update(kinds)
    # arrays real or complex as the data chose (eig's) carried as their two sides and the
    # choice (``real_or_complex.Lifted``), at the leaves where either branch has one
    lift = {i: real_or_complex.spots(v) for i, v in enumerate(init) if real_or_complex.spots(v)}
    for name, value in zip(names, init):
        if not isinstance(value, Undefined) and not _carriable(real_or_complex.carried_form(value)) \
                and not isinstance(value, str):
            raise _cannot_carry(name, value, "if", line)
    # text (label = "low" before, "high" in a branch): each branch gives the number of its text,
    # the text is picked at each call (traced_text.numbered); the first branch's texts first
    texts: tuple[dict, dict] = ({}, {})
    carried = [i for i, v in enumerate(init) if not isinstance(v, (Undefined, str)) and i not in shared.held]
    sides = ({}, {})  # per branch traced (first, second): the array objects from outside it
    # names the branches get as they are (``run``): their writes reach their arrays directly
    originals = {i for i in carried if aliased(init[i], shared)}
    writes = _InPlace(names, init, "if", line, set(shared.held) | originals)

    def branch(fn, first: bool):
        def run(*ops):
            full = list(init)
            for i, v in zip(carried, ops):
                # a name the branch binds anew keeps its array until then, as in Python, when
                # that array is seen by others (a view, the caller's, a shared root): its reads
                # see the branch's writes and its own writes reach that array (a root from
                # outside is claimed: ``Unheld``); any other gets the branch's own copy
                full[i] = init[i] if i in originals else real_or_complex.restored(v)
            shared.enter()
            try:
                with branch_given((full[i], init[i]) for i in carried):
                    out = list(fn(*full))
            except BaseException as e:
                shared.leave()
                if raises.is_users(e):  # a raise: at run time, where this branch is taken
                    raise raises.raised(e, fn is then_fn) from None
                raise
            try:
                rebound = shared.rebound(out)
                if rebound:
                    raise Rebound(rebound)
                return _branch_out(full, out, first)
            finally:
                shared.leave()
        return run

    def _branch_out(full, out, first: bool) -> dict:
        for i, v in enumerate(out):
            if isinstance(v, Undefined):
                continue
            if real_or_complex.spots(v) - lift.get(i, set()):  # (traced again, both branches lifting it)
                raise _NeedsLift(i, real_or_complex.spots(v))
            if i in lift:
                out[i] = real_or_complex.carried_form(v, lift[i])
        if first:  # one the analysis thought this branch sets, left unset on the path traced
            for i in filled - unset - set(first_type):
                if isinstance(out[i], Undefined):
                    raise _FirstLeftUnset(i)
        for i, name in enumerate(names):
            if name in dead:  # read first in a branch, never after the if: not carried
                out[i] = full[i]
            elif name not in local and i not in shared.held and (isinstance(out[i], str) or i in texts[0]):
                out[i] = _text_number(i, out[i], first)
        bound_here = {i: unbound.given_flag(out[i], full[i], was) for i, was in tracked.items()}
        writes.saw(full, out)
        for i, (name, v) in enumerate(zip(names, out)):
            if name in local or i in shared.held or i in unset:
                continue
            if isinstance(v, Undefined):
                if i not in filled or first and i not in first_type:
                    raise UnsupportedError(f"'{name}' is not assigned on every path of the if "
                                           f"at {where(line)}, whose condition is traced")
                treedef, kinds = first_type[i]  # zeros of the other path's leaves
                out[i] = pytree.unflatten(treedef, [_PYTHON_ZERO[dtype] if scalar == PYTHON_NUMBER else
                                                    np.zeros(shape, dtype)[()] if scalar else
                                                    np.zeros(shape, dtype)
                                                    for shape, dtype, scalar in kinds])
            elif not _carriable(v):
                raise _cannot_carry(name, v, "if", line)
            elif first and i in filled and i not in first_type:  # (a returned tuple: each leaf's kind)
                leaves, treedef = pytree.flatten(v)
                first_type[i] = (treedef, [_leaf_kind(leaf) for leaf in leaves])
        given = {}
        copies = {id(full[j]): init[j] for j in carried}  # the branch's operands: the names' own
        given_copies.update((id(full[j]), (full[j], init[j])) for j in carried)
        for i, (name, v) in enumerate(zip(names, out)):
            if name in local or i in shared.held or i in unset:
                continue
            leaves, tree = pytree.flatten(v)
            if any(isinstance(leaf, Tracer) for leaf in leaves):  # (``chosen``: those the caller sees)
                sides[0 if first else 1][i] = (tree, [copies.get(id(leaf), leaf) for leaf in leaves])
            given[name] = pytree.unflatten(tree, [settled(leaf, shared) for leaf in leaves]) if shared else v
        for i, name in enumerate(names):  # an inner if's pick: whether it ran, carried out
            if first and name in given and (picked := inner_pick(out[i])) is not None:
                flags[i] = picked
            if i in flags and name in given:
                given[_PICKED + name] = path_flag(out[i], flags[i])
        given.update((unbound.KEY + names[i], b) for i, b in bound_here.items())
        given.update(shared.current())
        return given

    def _text_number(i, value, first: bool):
        if not isinstance(value, str) or not first and i not in texts[0]:
            raise _cannot_carry(names[i], value if isinstance(value, str) else full_text(i), "if", line)
        index, options = traced_text.numbered(value, current_trace(), f"a branch of the if at {where(line)}")
        texts[0 if first else 1][i] = options
        return index if first else index + len(texts[0][i])

    def full_text(i):
        return texts[0][i][0]

    # variables that may be unbound as the if starts (no value, or one a statement noted): each
    # branch gives out whether it leaves them bound (``unbound``)
    tracked = {i: np.False_ if isinstance(v, Undefined) else unbound.flag(v)
               for i, (name, v) in enumerate(zip(names, init))
               if name != RETVAL and name not in local and name not in dead and i not in shared.held
               and unbound.tracked(v)}
    flags = {}  # variable -> the array an inner if of the first branch traced picks for it
    # id(copy) -> (copy, the array outside): the branches' operands, which the arrays an inner
    # choice left in a variable may be (``chosen``: the array a write after the if must reach)
    given_copies = {}
    first_pred = pred
    first_fn, second_fn = (then_fn, else_fn) if then_first else (else_fn, then_fn)
    if not then_first:
        first_pred = np.logical_not(pred)
    while True:
        operands = tuple(real_or_complex.carried_form(init[i], lift.get(i, ())) for i in carried)
        try:
            with _in_user_terms():
                out = cf.cond(first_pred, branch(first_fn, True), branch(second_fn, False), *operands,
                              python_types=True)
            break
        except _NeedsLift as need:
            lift.setdefault(need.i, set()).update(need.spots)
        except _FirstLeftUnset as left:
            k = left.i
            # The branch traced first leaves it unset on the path its Python conditions took
            # (a return under ``if sgn == 0: ... elif ...: return`` with sgn still 0): the
            # other branch's trial run gives its type, or shows neither sets it.
            tried = _trial(second_fn, init, lambda after, _, k=k: (after[k],))
            if tried is None:  # (the trial raised: the trace proper meets it again)
                raise _one_path(names[k], line) from None
            if isinstance(tried[0], Undefined):
                unset.add(k)
            elif _kinds_of(tried[0]) is None:
                raise _cannot_carry(names[k], tried[0], "if", line) from None
            else:
                first_type[k] = _kinds_of(tried[0])
    for i, options in texts[1].items():  # the text picked at each call, by its number
        out[names[i]] = traced_text.choice(current_trace(), out[names[i]], texts[0][i] + options)
    picks = {i: out.pop(_PICKED + names[i]) for i in flags if _PICKED + names[i] in out}
    bounds = {i: out.pop(unbound.KEY + names[i]) for i in tracked if unbound.KEY + names[i] in out}
    shared.finish(out)
    # a variable that one branch binds to an array the caller sees holds that array there
    for i in set(sides[0]) | set(sides[1]):
        name = names[i]
        if name not in out:
            continue
        if i in picks:  # where the branch that ran (an inner if of it) picked the array
            value, other = out[name], sides[1].get(i, (None, ()))[1]
            if len(other) == 1 and isinstance(other[0], Tracer) and other[0] is not flags[i]:
                # the other branch's array from outside, where that branch ran (r = a there)
                value = chosen(np.logical_not(first_pred), other[0], None, value, given=given_copies)
            out[name] = chosen(picks[i], flags[i], value if value is not out[name] else None, value)
            continue
        leaves, tree = pytree.flatten(out[name])
        first, second = ([None] * len(leaves) if side.get(i, (None,))[0] != tree else side[i][1]
                         for side in sides)
        if writes.wrote[i] and len(leaves) == 1 and first[0] is second[0] is init[i]:
            continue  # both paths keep the array, one writes it: ``writes`` writes it in place
        out[name] = pytree.unflatten(tree, [chosen(first_pred, a, b, leaf, not writes.wrote[i],
                                                   guard=name != RETVAL, given=given_copies)
                                            for a, b, leaf in zip(first, second, leaves)])
    one_new_array(first_pred, sides, names, out)
    after = writes.result(tuple(init[i] if i in shared.held else out.get(name, v)
                                for i, (name, v) in enumerate(zip(names, init))))
    after = tuple(real_or_complex.restored(v) if i in lift else v for i, v in enumerate(after))
    for i, is_bound in bounds.items():  # bound after the if where the branch that ran bound it
        unbound.note(after[i], is_bound)
    return after


class _InPlace:
    """Python's aliasing through a traced branch or loop: a variable whose array a region only
    wrote in place (``out[i] = v``; the name still holds the same object) is updated in place
    afterwards, so the caller's argument and other views of it see the writes, as in Python.
    A variable a region rebinds (``y = y + 1``) just takes the new value."""

    def __init__(self, names, init, what, line, shared=()):
        self.names, self.init, self.what, self.line = names, init, what, line
        self.kept = [True] * len(names)  # every run returned the object it was given
        self.wrote = [False] * len(names)  # some run wrote to it in place
        self.shared = shared  # positions carried as shared arrays (``aliasing``): not here

    def saw(self, given, returned) -> None:
        for i, (a, b) in enumerate(zip(given, returned)):
            if i in self.shared:
                continue
            if a is not b:
                self.kept[i] = False
            elif isinstance(a, Tracer) and a.root().version:
                self.wrote[i] = True

    def result(self, values) -> tuple:
        out = list(values)
        for i, orig in enumerate(self.init):
            if not self.wrote[i] or not isinstance(orig, Tracer) or orig.scalar:
                continue  # a NumPy scalar is immutable: its ``s += 1`` rebinds s
            if not self.kept[i]:
                holder = held_by(orig, self.names[i])
                if holder is None:
                    continue  # (its own array: no one sees the write but it; joined by value)
                raise UnsupportedError(
                    f"'{self.names[i]}' is written in place on one path of the {self.what} at "
                    f"{where(self.line)} and assigned a new array on another, and its array is "
                    f"also held elsewhere (by {holder}), which Python's write would reach on "
                    "that path only; the condition is "
                    "traced, so write it the same way on every path, or make it an array of its "
                    f"own just before the if ({self.names[i]} = {self.names[i]}.copy(), in the "
                    "loop's body where the if is in a loop) if no one else should see the write")
            orig.rebind(out[i])
            out[i] = orig
        return tuple(out)


_LEAF = re.compile(r"\b(?:output|carry)(?:\[\d+\])?\['(\w+)'\]")


@contextlib.contextmanager
def _in_user_terms():
    """The control-flow API's type errors, worded for the user's statement: its leaves are the
    user's variables (and the function's result)."""
    try:
        yield
    except JitTypeError as e:
        if len(e.args) == 1 and isinstance(e.args[0], str):
            text = _LEAF.sub(lambda m: "the value returned" if m.group(1) == RETVAL
                             else f"'{m.group(1)}'", e.args[0])
            text = re.sub(r"^jc\.(cond|while_loop|fori_loop): ", "", text)
            text = text.replace("true_fun", "the if branch").replace("false_fun", "the else branch")
            text = text.replace("body_fun", "the loop body")
            e.args = (text,)
        raise


def _lifted_carries(site: dict, run, *fns):
    """A loop whose variables hold arrays real or complex as the data chose (eig's:
    ``real_or_complex``): carried as their three arrays (``Lifted``), each function (``fns``:
    (function, how many leading non-carried arguments it takes)) given them restored and its
    results lifted at the same leaves, the loop's results restored; None where none does."""
    lift = {i: real_or_complex.spots(v) for i, v in enumerate(site["init"]) if real_or_complex.spots(v)}
    if not lift:
        return None

    def restored(values):
        return tuple(real_or_complex.restored(v) for v in values)

    def wrapped(fn, lead):
        if fn is None:
            return None

        def call(*args):
            out = fn(*args[:lead], *restored(args[lead:]))
            if isinstance(out, (tuple, list)) and len(out) == len(site["init"]):  # (a body's values)
                return tuple(real_or_complex.carried_form(v, lift.get(i, ())) for i, v in enumerate(out))
            return out
        return call

    init = tuple(real_or_complex.carried_form(v, lift.get(i, ())) for i, v in enumerate(site["init"]))
    out = run(*(wrapped(fn, lead) for fn, lead in fns), {**site, "init": init})
    return restored(out) if isinstance(out, tuple) else out


@_keeping_containers
def while_stmt(test_fn, body_fn, *, after=None, rebinds=None, holders=(), refreshed=(), **site):
    lifted = _lifted_carries(site, lambda test, body, lifted_site: while_stmt(
        test, body, after=after, rebinds=rebinds, holders=holders, refreshed=refreshed, **lifted_site),
        (test_fn, 0), (body_fn, 0))
    if lifted is not None:
        return lifted
    held = [i for i, name in enumerate(site["names"])
            if name in refreshed and _unchanged(site["init"][i])]
    if held:  # levels, only read again after rec(u, levels): it stays the static int it is
        return _holding_while(held, test_fn, body_fn, after, rebinds, holders, site)
    if holders:
        attributes = AttributeState(holders, site["names"], site["init"])
        after = attributes.loop_site(site, after)
        return attributes.finish(while_stmt(attributes.reader(test_fn), attributes.body(body_fn),
                                            after=after, rebinds=rebinds, **site))
    stacks = site.pop("stacks", ())
    try:
        with _read_after(after, rebinds):
            return _while_stmt(test_fn, body_fn, **site)
    except UnsupportedError as e:
        used = [n for n in stacks if f"'{n}'" in str(e) or f" {n}." in str(e)]
        if not used or current_trace() is None:
            raise
        raise _stack_refused(used[0], site["line"]) from e


def _grown_while_iterated(name: str, loop_line, line) -> UnsupportedError:
    """A list appended to under a traced ``if`` in a loop that also iterates over it (a dedupe:
    ``for j in keep: ...`` then ``if not dup: keep.append(i)``)."""
    return UnsupportedError(
        f"'{name}' is iterated over (for ... in {name} at {where(loop_line)}) in the loop that "
        f"appends to it under the if at {where(line)}, whose condition is traced: compiled, such "
        "a list is rows of a fixed capacity and a mask of those kept, which the loop can fill but "
        "not iterate over while it grows. Keep the items in an array with a count instead: "
        f"{name} = np.empty(n, np.int64); k = 0; then in the loop for jj in range(k): j = "
        f"{name}[jj] ...; and {name}[k] = i; k += 1 where it appended; {name}[:k] after the loop")


def _stack_refused(name: str, line) -> UnsupportedError:
    """A list the while loop at ``line`` pops and appends to (a stack: flood fill), where the
    data decides what it holds: jitcore compiles lists only as rows a loop appends."""
    return UnsupportedError(
        f"'{name}' is used as a stack (popped and appended to) in the while loop at {where(line)}, "
        "and what it holds depends on the data: compiled, a list can only gain rows a loop "
        "appends, so an iteration guard does not help here. Keep the stack in arrays of a fixed "
        "capacity with a counter (sy = np.empty(cap, np.int64); sy[0] = y0; top = 1; while top > "
        "0 and it < max_iter: top -= 1; y = sy[top]; ...; sy[top] = y + 1; top += 1), "
        "cap at least the most items it can hold; used as a queue or deque (pop(0) too: a "
        "sliding-window minimum), keep a head index as well: q = np.empty(n, np.int64); head = "
        "tail = 0; q[tail] = i; tail += 1 appends, head += 1 is pop(0), tail -= 1 is pop(), "
        "q[head] and q[tail - 1] the ends, tail > head for 'while q'")


def _while_stmt(test_fn, body_fn, *, init, names, line, in_try, targets=(), counter=None, bound=None,
                stepped=None, affine=None, changes=None, effects=False, appends=(), guard=None, fresh=()):
    values = tuple(init)
    targets = tuple(targets) + tuple(fresh)  # (bound after it where a step bound them: ``unbound``)
    if affine is not None:
        counted = _affine_while(test_fn, body_fn, values, names, line, in_try, targets, *affine)
        if counted is not None:
            return counted
    if counter is not None:
        counted = _counted_while(test_fn, body_fn, values, names, line, in_try, targets, counter,
                                 bound)
        if counted is not None:
            return counted
    if stepped is not None:
        carried = _stepped_while(test_fn, body_fn, values, names, line, in_try, targets, stepped,
                                 bound)
        if carried is not None:
            return carried
    pred, drew = _tested(test_fn, values)
    first = not in_try and changes is None and not effects  # (a trial run would print too)
    steps = 0
    while not isinstance(pred, Tracer):  # Python's loop, until the condition becomes traced
        if not pred:
            return values
        if first:
            first = False
            traced = _traced_from_first_step(test_fn, body_fn, values, names, line, targets)
            if traced is not None:
                return traced
        if steps == 0 and appends and guard is not None and not in_try:  # (effects: the appends)
            filled = _appending_from_first_step(test_fn, body_fn, values, names, line, targets,
                                                appends, guard)
            if filled is None and current_trace() is not None \
                    and not _trial(body_fn, values, lambda after, _: True):
                # (while it < n: if v[it] > 0: out.append(v[it]); it += 1: the test stays
                # Python's, but Python's step fails, the append under a traced if having no
                # capacity: the appending loop, its guard the capacity)
                filled = _appending_from_first_step(test_fn, body_fn, values, names, line,
                                                    targets, appends, guard, tried=True)
            if filled is not None:
                return filled
        steps += 1
        if steps == LONG_PYTHON_WHILE and current_trace() is not None:
            _warn_long_python_while(line)
        try:
            values = tuple(body_fn(*values))
        except UnsupportedError as e:
            unguarded = [n for n in appends if f"'{n}' is appended to under the if" in str(e)]
            if not unguarded or guard is not None:
                raise
            raise _no_guard(unguarded[0], line) from e
        pred, drew = _tested(test_fn, values)
    _refuse_in_try(in_try, "a while loop", line, pred)
    if appends and current_trace() is not None:
        return _appending_while(test_fn, body_fn, values, names, line, targets, appends, guard, pred)
    _refuse_changes(changes, "while loop", line, pred)
    return _traced_while(test_fn, body_fn, values, names, line, targets, first=pred if drew else None)


def _no_guard(name: str, line) -> UnsupportedError:
    """A list appended to after a traced ``if`` (a ``break``) in a while loop with no iteration
    guard (``while True:``): Python runs its steps, and compiled, the list has no capacity."""
    return UnsupportedError(
        f"'{name}' is appended to in the while loop at {where(line)}, which has no iteration "
        "guard, after a traced if (a break on the data): compiled, the list needs a capacity "
        "known when compiling, the most steps the loop can take. Bound its steps with a counter: "
        "it = 0; while it < max_iter: ...; it += 1 (for a while True), or while cond and it < "
        f"max_iter; the loop then compiles once and '{name}' holds the rows of the steps that ran")


def _tested(test_fn, values) -> tuple:
    """``test_fn(*values)``, and whether tracing it drew random numbers (``while rng.random() <
    p``) or called back: that first test has then been made, and the traced loop must take its
    value for its first check, not make it again (a second draw: NumPy's stream one number on)."""
    trace = current_trace()
    block = trace.builder.block if trace is not None else None
    before = len(block.ops) if block is not None else 0
    pred = test_fn(*values)
    if not isinstance(pred, Tracer) or block is None:
        return pred, False
    return pred, "a random draw" in pred.sources or any(
        op.op_name == "array.callback" for op in block.ops[before:])


def _holding_while(held, test_fn, body_fn, after, rebinds, holders, site):
    """``while_stmt`` without the variables at positions ``held`` (as ``_holding`` for a
    ``for``): carried, ``levels`` in ``while u.sum() < tol: u = rec(u, levels)`` was a traced
    int in the body, and a recursion that ends on it (``if level == 0``) never ended. The
    functions of the site that take the state (its bounds) are given it whole."""
    init, names = tuple(site["init"]), site["names"]
    kept = [i for i in range(len(names)) if i not in held]

    def full(state):
        out = list(init)
        for i, v in zip(kept, state):
            out[i] = v
        return out

    def narrow(fn):
        return lambda *state: fn(*full(state))

    def body(*state):
        out = tuple(body_fn(*full(state)))
        return tuple(out[i] for i in kept)

    narrowed = dict(site, init=tuple(init[i] for i in kept), names=tuple(names[i] for i in kept))
    if site.get("bound") is not None:
        narrowed["bound"] = narrow(site["bound"])
    for key in ("affine", "guard"):
        if site.get(key) is not None:
            narrowed[key] = (*site[key][:-1], narrow(site[key][-1]))
    out = while_stmt(narrow(test_fn), body, after=after, rebinds=rebinds, holders=holders, **narrowed)
    return tuple(full(tuple(out)))


def _appending_while(test_fn, body_fn, values, names, line, targets, appends, guard, pred):
    """A traced ``while`` whose body appends to lists (``hist.append(err)``): compiled as an
    appending loop (``appending``) whose capacity is the most trips its guard allows
    (``while err > tol and it < 100`` with ``it += 1``: ``analysis.while_guard``), each list
    the kept rows after it (``data_length.KeptList``). Without a guard whose bound is known
    now, refused, saying to add one: the list would need a capacity the data decides."""
    trips, bound = _guard_trips(values, names, guard)
    if trips == 0:
        return values  # (the guard fails: Python's test is False, the body never runs)
    filled = None
    if trips is not None:
        filled = _guarded_appending_while(test_fn, body_fn, values, names, line, targets, appends,
                                          trips)
    if filled is not None:
        return filled
    calls = " and ".join(f"{a}.append(...)" for a in appends)
    raise needs_static(UnsupportedError(
        f"the while loop at {where(line)} has a traced condition and calls {calls}: "
        "compiled, a list grown in a loop whose exit the data decides needs a capacity, the most "
        "trips the loop can run, known when compiling"
        + (" (its guard gives none here: its counter or bound is not a Python int when the loop "
           "starts, or appends of another count or type than one run of the body gave)"
           if trips is not None or guard is not None else "")
        + ". Give the loop an iteration guard: a counter stepped by a constant in every iteration "
        "and compared with a bound in the test (it = 0; while cond and it < max_iter: ...; "
        "it += 1); or write into an array of the most rows and count them (out = np.empty(n); "
        "out[k] = v; k += 1; then out[:k])"), *([bound] if isinstance(bound, Tracer) else [pred]))


def _guarded_appending_while(test_fn, body_fn, values, names, line, targets, appends, trips: int):
    """The state after a traced ``while`` of at most ``trips`` steps that appends to the lists
    ``appends``, compiled as an appending loop (``appending``); None where it cannot be."""
    return appending.appending_loop(
        lambda body, state, state_names, test: _traced_while(
            test, lambda *s: body(None, *s), state, state_names, line, targets),
        lambda body, state, then: _trial(lambda *s: body(None, *s), state, then),
        lambda _, *state: body_fn(*state), values, names, appends, trips, masked=True, test_fn=test_fn)


def _appending_from_first_step(test_fn, body_fn, values, names, line, targets, appends, guard,
                               tried=False):
    """A guarded ``while`` whose test holds on Python values but that one run of the body makes
    traced (``while it < 50:`` whose body breaks on the data, ``err = f(x)`` first set in the
    body): the appending loop from its first step, its numbers carried (run in Python, the
    first step's append under the traced ``if not <break flag>`` had no capacity). None where
    it cannot be, or where one run of the body (on probes in the lists' place) leaves the test
    a Python bool: Python runs the loop, as before (``tried``: a trial of Python's first step
    failed, its append under a traced if having no capacity: the appending loop whatever the
    test)."""
    trips, _ = _guard_trips(values, names, guard)
    if current_trace() is None or not trips or not _all_carriable(values):
        return None
    probed = [appending.probe(n, v) if n in appends and isinstance(v, list) else v
              for n, v in zip(names, values)]
    if not tried and not _trial(body_fn, probed, lambda after, _: isinstance(test_fn(*after), Tracer)):
        return None
    trace = current_trace()
    carried = tuple(v if isinstance(v, (Undefined, list)) or _holds_arrays((v,)) else _traced_copy(trace, v)
                    for v in values)
    try:
        return _guarded_appending_while(test_fn, body_fn, carried, names, line, targets, appends, trips)
    except (ConcretizationError, JitTypeError, UnsupportedError):
        return None


def _guard_trips(values, names, guard) -> tuple[int | None, object]:
    """The most trips a ``while`` guarded by ``counter < bound`` can run from here (``guard``:
    ``(counter, compare, step, bound_fn)``), when the counter and the bound are Python ints now
    (else None), and the bound (traced, an argument's: static on demand gives its value)."""
    if guard is None:
        return None, None
    counter, compare, step, bound_fn = guard
    start = values[names.index(counter)]
    try:
        end = bound_fn(*values)
    except Exception:  # noqa: BLE001  (a bound Python cannot read here: no capacity)
        return None, None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in (start, end)):
        return None, end
    start, end = int(start), int(end)
    if compare in (">", ">="):
        start, end, compare = -start, -end, {">": "<", ">=": "<="}[compare]
    room = end - start + (1 if compare == "<=" else 0)
    return max(0, -(-room // step)), end


# Steps of a while loop on Python values (run by Python while tracing, each a copy of its body
# in the compiled code) after which the user is told at once, not after a compile of minutes.
LONG_PYTHON_WHILE = 1000


def _warn_long_python_while(line) -> None:
    warnings.warn(CompileTimeWarning(
        f"the while loop at {where(line)} has run {LONG_PYTHON_WHILE} steps while tracing: its "
        "condition is on Python values, so Python runs it now and each step is a copy of its "
        "body in the compiled code, and compile time grows with the steps. A loop over a range "
        "compiles its body once: for _ in range(most_steps): (the body, then) if not "
        "condition: break; or use jitcore.while_loop"), stacklevel=user_stacklevel())


def _traced_while(test_fn, body_fn, values, names, line, targets, ran=False, numbers=None,
                  bounds=None, first=None):
    """A ``while`` on a traced test. After it, a variable that held a Python number before it
    (``numbers``, by default those of ``values``) and whose steps and exit the loop takes on
    constants only is that number again (``_known_after``); ``bounds`` ``(name, lo, hi)``: the
    range a counter not so known ends in (``_bound_index``)."""
    numbers = _python_numbers(names, values) if numbers is None else numbers

    def traced(loop):
        with calltime.unknown_trips("a while loop, whose trip count its test decides from the data"):
            return traced_steps(loop)

    def traced_steps(loop):
        carry = loop.init(lambda full: body_fn(*full))
        if first is not None:
            return rotated(loop, carry)
        with _in_user_terms():
            return cf.while_loop(lambda c: loop.test(lambda v: _pred(test_fn(*v), "while loop", line), c),
                                 lambda c: loop.step(lambda v: body_fn(*v), c), carry, python_types=True)

    def rotated(loop, carry):
        # ``first``, the test already made (its draws drawn): the loop's check is a carried
        # flag, the test made after each step, so each test runs once, in Python's order
        def step(c):
            out = loop.step(lambda v: body_fn(*v), {k: v for k, v in c.items() if k != _TESTED})
            return {**out, _TESTED: loop.test(lambda v: _pred(test_fn(*v), "while loop", line), out)}

        with _in_user_terms():
            tested = {**carry, _TESTED: _pred(first, "while loop", line)}
            out = cf.while_loop(lambda c: c[_TESTED], step, tested, python_types=True)
        return {k: v for k, v in out.items() if k != _TESTED}

    with effects.watching("while loop", line, names, values, (test_fn, body_fn),
                          [v for v in values if isinstance(v, Tracer)]):
        loop, out = _with_shared_arrays(traced, names, values, line, "while loop", targets,
                                        (test_fn, body_fn))
    known = _known_after(loop, out, numbers, None, None)
    if bounds is not None and bounds[0] not in known:
        _bound_index(out, *bounds, "while loop", line)
    return loop.result(out, ran, known=known)


def _with_shared_arrays(traced, names, values, line, what, targets, functions):
    """``(loop, traced(loop))`` for the loop's ``_Loop``; traced again with the variables a
    body bound anew carried by value, when the conversion took one for a shared array. NumPy
    arrays of the state that share memory with another variable the loop sees are traced first
    (``local_arrays``)."""
    rebinds = _rebinds()
    return _with_local_arrays(
        lambda values: _traced_until_settled(
            names, lambda rebound, written, kept: _Loop(names, values, line, what, targets,
                                                        set(rebinds) - kept, written, rebound),
            traced),
        values, names, functions, rebinds)


def _with_local_arrays(run, values, names, functions, rebinds):
    """``run(values)``, its NumPy arrays shared with other variables made traced first
    (``local_arrays.shared_as_traced``); run again, with an array made traced too, when a
    body wrote it while a variable bound outside the body held it (``HeldOutside``): then
    the body writes the traced array in place, which every holder sees, as in NumPy."""
    refuse_carried_items(values, names, functions)
    owners: list = []
    while True:
        registered: set[int] = set()
        try:
            with closure_writes.watched(functions):
                return run(shared_as_traced(values, names, functions, rebinds, owners, registered))
        except HeldOutside as e:
            drop_copies(registered, current_trace())
            if any(o is e.owner for o in owners):
                raise
            owners += [e.owner, *(o for o in e.also if not any(o is k for k in owners))]
        except BaseException:
            drop_copies(registered, current_trace())  # (the caller may run it in Python)
            raise


_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b}


def _counted_while(test_fn, body_fn, values, names, line, in_try, targets, counter, bound):
    """``while i < n`` with a Python int counter stepped by a constant (``analysis.counted_while``)
    made a loop by the rules of a ``range`` (long, or bounded by a size: ``_sized``), or None,
    and the loop runs as before: in Python while its condition is a Python bool. An additive
    step is the ``for`` over the counter's values (a range: its index form proves ``x[i:i + 2]``
    in bounds), a multiplying one a traced ``while`` with the counter carried (its step count,
    a logarithm, is no extent a size-generic code can compute; the bound ``n`` in its test
    is). After the loop the counter is the Python int Python would leave."""
    name, op, step, compare = counter
    k = names.index(name)
    start = values[k]
    if type(start) is not int:
        return None
    n = bound(*values)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        return None
    n = int(n)
    if op == "Mult":
        return _doubling_while(test_fn, body_fn, values, names, line, in_try, targets, k, step,
                               compare, n)
    step = step if op == "Add" else -step
    if step == 0 or (step > 0) != (compare in ("<", "<=")):
        return None  # never ends, or never starts: Python's loop says which
    rng = range(start, n + {"<=": 1, ">=": -1}.get(compare, 0), step)
    state, state_names = values[:k] + values[k + 1:], names[:k] + names[k + 1:]

    def body(i, *v):
        out = tuple(body_fn(*v[:k], i, *v[k:]))
        return out[:k] + out[k + 1:]

    shaped = _sized(n) or _sized_range(rng)
    long_range = len(rng) > 1 and not in_try and bool(state_names) and current_trace() is not None
    out = tuple(_python_for(rng, None, body, state, state_names, line, targets, False, in_try,
                            long_range, len(rng), shaped))
    return (*out[:k], start + len(rng) * step, *out[k:])


def _affine_while(test_fn, body_fn, values, names, line, in_try, targets, counters, in_test,
                  compare, bound):
    """``while start + N <= len(x): ...; start += hop; k += 1`` (``analysis.affine_while``) on
    Python int counters stepped by Python ints: at the ``t``-th step each is ``start + hop * t``
    and the test an inequality on ``t``, so its trip count is known now; the loop is then the
    ``for t in range(trips)`` that gives each counter that value, by a ``range``'s rules (a
    loop when long or bounded by a size, its counters carrying index forms: ``x[start:start +
    N]`` is a window), or None and Python runs it, as before. After the loop each counter is
    the Python int Python would leave."""
    if any(t and type(values[names.index(c)]) is not int for c, t in zip(counters, in_test)):
        return None  # (a float or traced counter: before its test adds ops to the trace)
    left, right, *steps = bound(*values)
    moving = {names.index(c): s for c, s in zip(counters, steps)
              if type(values[names.index(c)]) is int and type(s) is int}
    if any(t and names.index(c) not in moving for c, t in zip(counters, in_test)):
        return None

    def at(t: int) -> tuple:
        return tuple(v + moving[k] * t if k in moving else v for k, v in enumerate(values))

    later = bound(*at(1))[:2]
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in (left, right, *later)):
        return None
    d, slope = int(left) - int(right), (int(later[0]) - int(later[1])) - (int(left) - int(right))
    if compare in (">", ">="):  # (as < and <= of the negated difference)
        d, slope, compare = -d, -slope, {">": "<", ">=": "<="}[compare]
    if not (d < 0 or (d == 0 and compare == "<=")):
        trips = 0  # (the test fails at once: the body never runs)
    elif slope <= 0:
        return None  # never ends: Python's loop says how
    else:
        trips = (-d + slope - 1) // slope if compare == "<" else -d // slope + 1
    ends = [test_fn(*at(trips - 1)) if trips else True, test_fn(*at(trips))]
    if not all(isinstance(e, (bool, np.bool_)) for e in ends) or ends != [True, False]:
        return None  # (not the loop the analysis read: Python's)
    if not trips:
        return values
    keep = [k for k in range(len(names)) if k not in moving]
    state, state_names = tuple(values[k] for k in keep), tuple(names[k] for k in keep)

    def body(t, *v):
        full = list(values)
        for k, given in zip(keep, v):
            full[k] = given
        for k, step in moving.items():
            full[k] = _affine_counter(t, values[k], step)
        out = tuple(body_fn(*full))
        return tuple(out[k] for k in keep)

    rng = range(trips)
    shaped = _sized_range(rng) or _sized(left) or _sized(right)
    long_range = trips > 1 and not in_try and bool(state_names) and current_trace() is not None
    out = _python_for(rng, None, body, state, state_names, line, targets, False, in_try,
                      long_range, trips, shaped)
    final = list(at(trips))
    for k, v in zip(keep, out):
        final[k] = v
    return tuple(final)


def _affine_counter(t, start: int, step: int):
    """``start + step * t``, without ops that change nothing (the index itself for ``k += 1``
    from 0); on a traced ``t`` with an index form, a value with its form (``index_forms``)."""
    if step == 0 or isinstance(t, int):
        return start + step * t
    v = t if step == 1 else t * step
    return v if start == 0 else v + start


def _stepped_while(test_fn, body_fn, values, names, line, in_try, targets, stepped, bound):
    """``while i < n`` on a Python number ``i`` that the body steps by known sizes under an
    ``if`` (``i += 1`` in one branch, ``i += 2`` in the other), or a loop that may ``break``
    (``analysis.stepped_while``): its trip count is not known before it runs, so when it is a
    loop by a ``range``'s rules (its bound a size, or more than ``UNROLL_LIMIT`` steps even at
    the largest step) it is a traced ``while`` from its first step, the counter carried as a
    weak int64 (float64) scalar and each ``if`` on it a select; else None, and Python runs it,
    as before. Values are Python's (float64 adds in the same order; ``i < n`` bounds an int
    counter far from int64's ends); after the loop the counter is that traced scalar."""
    name, compare, once = (*stepped, False)[:3]
    k = names.index(name)
    if in_try or current_trace() is None:
        return None
    # ``s = 0.0`` before its first ``s = s + x[i]``: an array from the first step if one trial
    # run of the body makes one (else Python's first steps, one at a time: a step run in Python
    # whose ``if`` on ``i`` is decided is other code at another size)
    soon = _all_carriable(values) and _trial_makes_arrays(body_fn, values, k)
    while not soon and not _holds_arrays(values[:k] + values[k + 1:]):  # (Python's first steps)
        if type(values[k]) not in (int, float) or not _all_carriable(values):
            return None
        go, drew = _tested(test_fn, values)
        if isinstance(go, Tracer):
            return _traced_while(test_fn, body_fn, values, names, line, targets, first=go if drew else None)
        if not go:
            return values
        values = tuple(body_fn(*values))
    start = values[k]
    if type(start) not in (int, float) or not _all_carriable(values):
        return _python_while_from(test_fn, body_fn, values, names, line, targets)
    n, *steps = bound(*values)
    numbers = (int, float, np.integer, np.floating)
    if any(isinstance(v, bool) or not isinstance(v, numbers) for v in (n, *steps)):
        return None
    widest = max(abs(s) for s in steps)
    if widest == 0 or not (_sized(n) or abs(n - start) / widest * _copies() > UNROLL_LIMIT):
        return _python_while_from(test_fn, body_fn, values, names, line, targets)
    first, drew = _tested(test_fn, values)
    if isinstance(first, Tracer):
        return _traced_while(test_fn, body_fn, values, names, line, targets, first=first if drew else None)
    if not first:
        return values
    dtype = np.dtype(np.int64 if type(start) is int and all(type(s) is int for s in steps)
                     else np.float64)
    trace = current_trace()
    counter = fresh(as_tracer(trace, start, dtype), scalar=True, weak=True)
    # (the numbers the body makes arrays of, such as s = 0.0, carried from the first step)
    carried = tuple(counter if i == k else v if isinstance(v, Undefined) or _holds_arrays((v,))
                    else _traced_copy(trace, v) for i, v in enumerate(values))
    bounds = _counter_bounds(name, start, compare, n, steps) if once and dtype.kind == "i" else None
    try:
        return _traced_while(test_fn, body_fn, carried, names, line, targets, ran=True,
                             numbers=_python_numbers(names, values), bounds=bounds)
    except (ConcretizationError, JitTypeError, UnsupportedError):
        # (x[:i], a list that grows): Python's loop, as before
        return _python_while_from(test_fn, body_fn, values, names, line, targets)


def _counter_bounds(name, start: int, compare: str, n, steps) -> tuple | None:
    """``(name, lo, hi)``: where a stepped ``while`` counter can end, when every step moves it
    towards its bound and each runs at most once an iteration: from ``start`` (a break at the
    first test) to the last value the test admits plus every step of one iteration."""
    if not isinstance(n, (int, np.integer)):
        return None
    n = int(n)
    if compare in ("<", "<=") and all(s > 0 for s in steps):
        last = n - 1 if compare == "<" else n
        return name, start, max(start, last + int(sum(steps)))
    if compare in (">", ">=") and all(s < 0 for s in steps):
        last = n + 1 if compare == ">" else n
        return name, min(start, last + int(sum(steps))), start
    return None


def _trial_makes_arrays(body_fn, values, k) -> bool:
    """Whether one run of the body leaves an array or traced value in the state besides the
    counter (``_trial``)."""
    return bool(_trial(body_fn, values, lambda after, _: _holds_arrays(after[:k] + after[k + 1:])))


def _trial(body_fn, values, then):
    """``then(after, copies)`` of the state after one run of the body and the copies of the state
    it ran on (a list it appended to holds the new items), traced into a block that is then
    dropped (the state is not changed; ``then`` reads what it needs there); None if the run
    raises. The copies are made in the block, so that the body's in-place writes (``y[n] = v``)
    write them, as a loop's body writes the arrays it carries (made outside it, such a write
    was refused and the trial gave None: a loop appending next to ``y[n] = v`` unrolled)."""
    trace, block = current_trace(), Block()
    try:
        with trace.region(block), effects.undone((), values, (body_fn,)), \
                closure_writes.watched((body_fn,), refuse=False):
            copies = [pytree.unflatten(tree, [
                fresh(x, x.scalar, x.weak) if isinstance(x, Tracer) else
                x.copy() if isinstance(x, np.ndarray) else x for x in leaves])
                for leaves, tree in (pytree.flatten(v) for v in values)]
            return then(tuple(body_fn(*copies)), copies)
    except Exception:  # noqa: BLE001  (whatever it was, Python's steps will meet it again)
        return None
    finally:
        for op in reversed(block.ops):
            op.drop_all_references()


def _traced_from_first_step(test_fn, body_fn, values, names, line, targets):
    """A ``while`` whose test holds on Python values but that one run of the body makes traced
    (``while lo < hi`` with ``lo = mid + 1`` under an ``if`` on ``x[mid]``): the traced loop
    from its first step, the state's numbers carried (before, the first step ran in Python, and
    its values, ``mid = n // 2``, were constants of the code: other code at every size); None
    where it cannot be (a variable first set in the body, a body that needs a Python int)."""
    if current_trace() is None or not _all_carriable(values) \
            or not _trial(body_fn, values, lambda after, _: isinstance(test_fn(*after), Tracer)):
        return None
    trace = current_trace()
    carried = tuple(v if isinstance(v, Undefined) or _holds_arrays((v,)) else _traced_copy(trace, v)
                    for v in values)
    try:
        return _traced_while(test_fn, body_fn, carried, names, line, targets, ran=True)
    except (ConcretizationError, JitTypeError, UnsupportedError):
        return None


def _python_while_from(test_fn, body_fn, values, names, line, targets):
    """The rest of ``while_stmt``'s own loop: Python's, until its test is traced."""
    pred, drew = _tested(test_fn, values)
    while not isinstance(pred, Tracer):
        if not pred:
            return values
        values = tuple(body_fn(*values))
        pred, drew = _tested(test_fn, values)
    return _traced_while(test_fn, body_fn, values, names, line, targets, first=pred if drew else None)


def _doubling_while(test_fn, body_fn, values, names, line, in_try, targets, k, step, compare, n):
    """``while i < n: ...; i *= step``: a traced ``while`` when ``n`` is a size, once the state
    holds an array (the first steps in Python, as a range's); else None."""
    start, holds = values[k], _COMPARE[compare]
    if step < 2 or start < 1 or in_try or not _sized(n) or current_trace() is None \
            or not _all_carriable(values):
        return None
    while not _holds_arrays(values[:k] + values[k + 1:]):
        if not holds(values[k], n):
            return values
        values = tuple(body_fn(*values))
    last = values[k]
    while holds(last, n):
        last *= step
    counter = fresh(_int64(values[k]), scalar=True, weak=True)
    try:
        out = _traced_while(test_fn, body_fn, (*values[:k], counter, *values[k + 1:]), names, line,
                            targets, ran=holds(values[k], n))
    except (ConcretizationError, JitTypeError, UnsupportedError):
        return _python_while(test_fn, body_fn, values)  # (x[:i], a list that grows): Python's loop
    return (*out[:k], last, *out[k + 1:])


def _python_while(test_fn, body_fn, values):
    while test_fn(*values):
        values = tuple(body_fn(*values))
    return values


_UNROLLING = threading.local()  # .copies: how many times the enclosing unrolled loops repeat a body


def _copies() -> int:
    return getattr(_UNROLLING, "copies", 1)


@contextlib.contextmanager
def _unrolling(times: int):
    before = _copies()
    _UNROLLING.copies = before * max(times, 1)
    compile_time.note_unrolled_step()
    try:
        yield
    finally:
        _UNROLLING.copies = before


@_keeping_containers
def for_stmt(iterable, extra_test, body_fn, *, after=None, rebinds=None, holders=(), refreshed=(),
             **site):
    lifted = _lifted_carries(site, lambda test, body, lifted_site: for_stmt(
        iterable, test, body, after=after, rebinds=rebinds, holders=holders, refreshed=refreshed,
        **lifted_site), (extra_test, 0), (body_fn, 1))
    if lifted is not None:
        return lifted
    held = [i for i, name in enumerate(site["names"])
            if name in refreshed and _unchanged(site["init"][i])]
    if held:  # n, only read again after rng.random(n): a Python number stays itself (and static)
        return _holding(held, iterable, extra_test, body_fn, after, rebinds, holders, site)
    if holders:
        attributes = AttributeState(holders, site["names"], site["init"])
        after = attributes.loop_site(site, after)
        extra_test = None if extra_test is None else attributes.reader(extra_test)
        return attributes.finish(for_stmt(iterable, extra_test, attributes.body(body_fn, lead=1),
                                          after=after, rebinds=rebinds, **site))
    with _read_after(after, rebinds):
        return _for_stmt(iterable, extra_test, body_fn, **site)


# what refreshed() gives back as is (a generator's draws are the trace's: its stream, not the
# variable, changes)
_UNCHANGED = (bool, int, float, complex, str, type(None), GeneratorArgument, np.random.Generator,
              np.random.RandomState)


def _unchanged(value) -> bool:
    """What ``refreshed()`` gives back as it is and no call can write: a Python number or
    string, a NumPy scalar, a traced number (a Python int argument) and a random generator,
    held by the loop or if as it is rather than carried, so that it keeps its sources (``q``
    of ``rng.integers(0, q)`` in a loop is still the argument after it: ``np.bincount(s,
    minlength=q)`` makes it static), and a generator passed to a helper needs no carrying."""
    return type(value) in _UNCHANGED or isinstance(value, np.generic) or (
        isinstance(value, Tracer) and value.ndim == 0 and (value.scalar or value.weak))


def _holding(held, iterable, extra_test, body_fn, after, rebinds, holders, site):
    """``for_stmt`` without the variables at positions ``held`` in its state (each a Python
    number or string the body only reads again after a call, ``n = refreshed(n)``, which gives
    it back as it is): the body is given them as they are, not as values the loop carries, so
    ``rng.random(n)`` in a compiled loop sees ``n`` as the static int it is."""
    init, names = tuple(site["init"]), site["names"]
    kept = [i for i in range(len(names)) if i not in held]

    def full(state):
        out = list(init)
        for i, v in zip(kept, state):
            out[i] = v
        return out

    def body(it, *state):
        out = tuple(body_fn(it, *full(state)))
        return tuple(out[i] for i in kept)

    test = None if extra_test is None else (lambda *state: extra_test(*full(state)))
    narrowed = dict(site, init=tuple(init[i] for i in kept), names=tuple(names[i] for i in kept))
    out = for_stmt(iterable, test, body, after=after, rebinds=rebinds, holders=holders, **narrowed)
    return tuple(full(tuple(out)))


def _for_stmt(iterable, extra_test, body_fn, *, init, names, line, in_try, targets, effects,
              changes=None, appends=None, scratch=(), appends_under_if=False, fresh=()):
    values = tuple(init)
    targets = tuple(targets) + tuple(fresh)
    source = None
    if iterates_selection(iterable):  # (for i in np.flatnonzero(m): over its kept items)
        iterable, source = selection_loop(iterable)
    elif appending.appended_in_loop(iterable):
        # (for j in keep, in the loop that appends to keep: its items so far, ``appending``)
        count, capacity, item = iterable.iterated()
        iterable, source = TracedRange(count, capacity=capacity), Indexed(0, item)
    if isinstance(iterable, TracedRange):
        bounds = (iterable.start, iterable.stop, iterable.step)
        _refuse_in_try(in_try, "a for loop", line, *bounds)
        # (the change it makes; lists appended through another object, log["E"].append(v),
        # the conversion's __agf_list_ names, are left to the path below: n made static)
        if appends and (source is None or iterable.capacity is not None) and current_trace() is not None \
                and not any(a.startswith("__agf_list") for a in appends):
            filled = _appending_traced_range(iterable, extra_test, body_fn, values, names, line,
                                             targets, appends, source)
            if filled is not None:
                return filled
        _refuse_changes(changes, "for loop", line, *bounds)
        return _traced_for(iterable, source, extra_test, body_fn, values, names, line, targets)
    if not effects and not in_try and current_trace() is not None:
        iterable = tables.table(iterable) or iterable  # (for (y, x) in positions: a loop over rows)
    elif isinstance(iterable, tables.Table) and iterable.start is not None:
        iterable = enumerate(iterable.items, iterable.start)  # (Python's, which sees the list change)
    # A loop is unrolled while its body's copies (this loop's trip count times those of the
    # unrolled loops around it) stay within UNROLL_LIMIT: nested short loops are long too.
    sized = isinstance(iterable, (range, Tracer, Indexed))
    shaped = sized and _sized_range(iterable if isinstance(iterable, range) else range(len(iterable)))
    long = sized and (len(iterable) * _copies() > UNROLL_LIMIT or shaped)
    # (a list appended under an if: compiled as a loop at any length, where the if is traced)
    # (or one that can break: its rows marked as its steps run, ``appending``)
    if appends and (long or appends_under_if or extra_test is not None) and sized and not in_try \
            and current_trace() is not None:
        filled = _appending_for(iterable, extra_test, body_fn, values, names, line, targets, appends,
                                long)
        if filled is not None:
            return filled
    table = isinstance(iterable, tables.Table)  # (tried as a loop by _python_for, which can
    # run the first rows in Python where they change the state's types: f32 * np.int64 is f64)
    if long and isinstance(iterable, (Tracer, Indexed)) and not table and not effects \
            and not in_try and _all_carriable(values):
        try:
            return _traced_for(range(len(iterable)), iterable, extra_test, body_fn, values, names,
                               line, targets)
        except ConcretizationError as e:
            compile_time.note_unrolled(e)  # the body needs its position as a Python int: unrolled
        except (JitTypeError, UnsupportedError) as e:
            effects = effects or getattr(e, "python_effect", False)  # (Python's steps: unrolled)
            if len(iterable) * _copies() > UNROLL_LIMIT and not effects:
                raise  # (short, a loop only for its length: unrolled below, as before)
    # A long static range becomes a loop once its state holds an array (at once, or after the
    # first iterations ran in Python); a loop computing only Python numbers stays Python.
    # (A state of no arrays, or none at all, whose body still traces ops: it writes in place an
    # array reached through an attribute or a closure, self.P[u[t]] += g; _python_for sees it.)
    long_range = isinstance(iterable, (range, tables.Table)) and len(iterable) > 1 and not in_try \
        and not effects and current_trace() is not None
    return _python_for(iterable, extra_test, body_fn, values, names, line, targets, effects,
                       in_try, long_range, len(iterable) if sized else 1, shaped, scratch, changes)


def _appending_for(iterable, extra_test, body_fn, values, names, line, targets, appends, long):
    """A long loop whose body appends to lists (``ys.append(v)``), compiled as a loop with the
    rows carried as arrays (``appending``); None where it cannot be (then unrolled, as before).
    A loop that can break (``extra_test``) has as many rows as its range and marks those its
    steps append: the list after it is the kept rows (``data_length.KeptList``)."""
    n = len(values)
    test = None if extra_test is None else lambda *state: extra_test(*state[:n])
    source = None if isinstance(iterable, range) else iterable
    rng = iterable if source is None else range(len(iterable))

    def first_item():  # (as _traced_for_once gives it: x[i:i + 3] in the body is a window)
        if source is not None:
            return source[0]
        item = fresh(_int64(rng.start), scalar=True, weak=True)
        item.index_form = index_forms.loop_index(rng)
        return item

    return appending.appending_loop(
        lambda body, state, state_names: _traced_for(rng, source, test, body, state, state_names,
                                                     line, targets),
        lambda body, state, then: _trial(lambda *state: body(first_item(), *state), state, then),
        body_fn, values, names, appends, len(rng), long, masked=extra_test is not None)


# The most steps of a ``for`` over ``range(n)`` that appends, ``n`` an int argument, for ``n`` to
# stay traced (the lists' capacity is the bound of ``n``'s class, ``api.int_range``: 127, 255,
# then 32,767): past it, ``n`` is made static on demand, as before. A capacity of 32,767 cost
# 0.4 ms a call at n = 1000 (the buffer zeroed and compacted whole) where the static loop took
# 7 us: the classes above 255 are too coarse for a buffer.
TRACED_RANGE_ROWS = 255


def _range_capacity(rng: TracedRange) -> int | None:
    """The most steps of ``range(start, n, step)`` (``start`` and ``step > 0`` Python ints, ``n``
    a Python int argument): from the upper bound of ``n``'s class in the signature, where that
    is at most ``TRACED_RANGE_ROWS``; None elsewhere. An int keyed as any int64 asks for its
    class (``primitives.int_range_asked``: the call is keyed by it and traced again)."""
    start, stop, step = rng.start, rng.stop, rng.step
    if type(start) is not int or type(step) is not int or step <= 0:
        return None
    bounds = getattr(stop, "int_range", None)
    if bounds is None:
        return None
    if bounds == prims.ANY_INT64:
        prims.int_range_asked.yes = True
        return None
    trips = max(0, -(-(bounds[1] - start) // step))
    return trips if trips <= TRACED_RANGE_ROWS else None


def _appending_traced_range(rng, extra_test, body_fn, values, names, line, targets, appends, source=None):
    """A loop over ``range(n)``, ``n`` an int argument, whose body appends to lists: compiled as
    an appending loop (``appending``) whose capacity is the most steps of ``n``'s class
    (``_range_capacity``), each row marked as its step runs, so that ``n`` stays traced (one
    compile for every ``n`` of its class; it was made static, one compile per ``n``). None where
    it cannot be: the caller goes on as before. A loop over the items of a list the data
    filled (``source``, ``for r in reversed(rewards)``) has its rows as its capacity."""
    trips = rng.capacity if rng.capacity is not None else _range_capacity(rng)
    if trips is None:
        return None
    n = len(values)
    test = None if extra_test is None else lambda *state: extra_test(*state[:n])

    def first_item():
        if source is not None:
            return source[fresh(_int64(rng.start), scalar=True, weak=True)]
        return fresh(_int64(rng.start), scalar=True, weak=True)

    out = appending.appending_loop(
        lambda body, state, state_names: _traced_for(rng, source, test, body, state, state_names,
                                                     line, targets),
        lambda body, state, then: _trial(lambda *state: body(first_item(), *state), state, then),
        body_fn, values, names, appends, trips, True, masked=True)
    if out is not None and extra_test is None:  # (what its refusals name: this loop and n)
        for before, after in zip(values, out):
            if isinstance(after, KeptList) and not isinstance(before, KeptList):
                after.counted = (where(line), rng.stop)
    return out


def _sized(n) -> bool:
    """Whether ``n`` is, by its value, an extent of the function's arguments above ``2 * NEAR``
    or one step from one (``codegen.loops.derived``): the values the code of a size-generic
    function reads or computes at run time. A guess, as the code's is: a literal that only
    equals a size makes a loop that unrolling would have made copies of, with the same result."""
    trace = current_trace()
    if trace is None or isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 1:
        return False
    extents = trace.extents
    return any(n == s > 2 * NEAR for s in extents) or derived(int(n), extents) is not None


def _sized_range(rng: range) -> bool:
    """Whether a range of more than one step has a bound from the arguments' extents."""
    return len(rng) > 1 and (_sized(rng.stop) or _sized(rng.start) or _sized(len(rng)))


def _kernel_ends() -> int:
    """How many ops of the block being traced end a fused kernel (see ``UNROLL_KERNELS``)."""
    return sum(1 for op in current_trace().builder.block.ops
               if op.name not in _FUSING and ELEMENTWISE not in op.traits)


def _python_for(iterable, extra_test, body_fn, values, names, line, targets, effects, in_try,
                long_range, trips, shaped=False, scratch=(), changes=None):
    """The loop run by Python (unrolled into the trace), until it must become a traced loop:
    when its remaining copies are more than ``UNROLL_LIMIT``, or, measured on the first
    iteration, would end more than ``UNROLL_KERNELS`` kernels or hold more than ``UNROLL_OPS``
    ops, or at once when its bounds are ``shaped`` (from the arguments' extents). After a break
    on a traced test, the rest is a traced loop, or, where the body needs the index as a Python
    int, unrolled with each step under an if (``_guarded_rest``; ``scratch``: the arrays each
    step makes afresh). Copies past ``compile_time.UNROLL_WARN_OPS`` ops are warned about as
    they are made (``changes``: the Python object the body changes, for the warning)."""
    iterator = iter(iterable)
    per_step = ops_per_step = 0
    trace = current_trace()
    ops_before = len(trace.builder.block.ops) if trace is not None else 0
    peeled = 0  # steps run in Python after the traced loop failed, as many kept for the end
    refused = None  # why the traced loop was refused, where its error left it unrolled
    for done, item in enumerate(iterator):
        if long_range and done == 1:
            per_step = _kernel_ends() - per_step
            ops_per_step = len(current_trace().builder.block.ops) - ops_per_step
        left = (trips - done) * _copies()
        short = left <= UNROLL_LIMIT and left * per_step <= UNROLL_KERNELS \
            and left * ops_per_step <= UNROLL_OPS  # (else a loop for its bounds)
        # (a state without arrays, whose first step traced ops all the same: it wrote an array
        # the state does not hold, self.P[u[t]] += g, which the traced loop carries)
        writes_outside = done >= 1 and ops_per_step > 0
        if long_range and (not short or shaped) and (_holds_arrays(values) or writes_outside) \
                and _all_carriable(values):
            tail = peeled if extra_test is None else 0  # a break would skip the last steps
            try:
                # (the whole range as given: a slice would round its stop, n - 1 to n at even n)
                rows = isinstance(iterable, tables.Table)  # (its rows' positions, a range)
                steps = range(trips) if rows else iterable
                rest = steps if done == tail == 0 else steps[done:trips - tail]
                values = _traced_for(rest, iterable if rows else None, extra_test, body_fn, values,
                                     names, line, targets)
            except ConcretizationError as e:
                # The body needs the index as a Python int (a slice bound, a shape, a static
                # argument) at some step: NumPy may clamp a slice at the first or last steps
                # (``x[i - 1:i + 2]``), so those run in Python and the middle is tried again
                # as a loop; past PEEL steps the loop runs unrolled, as before loops compiled.
                peeled += 1
                long_range = peeled <= PEEL and extra_test is None and trips - done > 2 * PEEL + 2
                if not long_range:
                    compile_time.note_unrolled(e)
            except FirstAssigned:
                if done:
                    raise
                # (cur = f(prev) first set in the body: its first step runs in Python, which
                # gives it its value, and the rest is tried as a loop again)
            except (JitTypeError, UnsupportedError) as e:
                table = isinstance(iterable, tables.Table)
                if done == 0 and (table or _numbers_become_arrays(body_fn, item, values)) \
                        or done < PROMOTED_PEEL and _first_step_promotes(body_fn, item, values):
                    pass  # (om = 0.0, then om = om - h * th): its first step runs in Python,
                    # which makes the number the array, and the rest is tried as a loop again
                    # (a table's rows may change a carry's dtype: f32 * np.int64 is f64; so
                    # may the body: a float32 P times a float64 np.eye(n) is float64)
                elif getattr(e, "python_effect", False):
                    # (a helper or method of the user's changed a list, lg.add(v) appending:
                    # Python runs each step, as where the body's source shows the change)
                    long_range = False
                    refused = e
                elif isinstance(e, LoopCarryShapeError) and trips - done <= UNROLL_LIMIT:
                    # a carry whose shape changes each step (a Kronecker chain) can only run
                    # unrolled, as it did where the steps' kernels were fewer; judged by this
                    # loop's own steps, as a loop around it is judged by its own (session 50)
                    long_range = False
                    compile_time.note_unrolled(e)
                elif not short and not table:
                    raise
                else:
                    long_range = False  # (a Python list that grows): unrolled, as before
                    refused = e
            else:
                with _unrolling(trips):
                    for last in iterable[trips - tail:]:
                        values = tuple(body_fn(last, *values))
                return values
        if extra_test is not None:
            go = extra_test(*values)
            if isinstance(go, Tracer):  # a break under a traced condition: the rest is a loop
                if isinstance(iterable, (range, Tracer, Indexed)) and not effects and not in_try \
                        and _all_carriable(values):
                    indexed = not isinstance(iterable, range)
                    rest = range(len(iterable))[done:] if indexed else iterable[done:]
                    try:
                        return _traced_for(rest, iterable if indexed else None,
                                           extra_test, body_fn, values, names, line, targets)
                    except ConcretizationError as e:
                        # The body needs the index as a Python int (``V[:, :j]``, ``np.zeros(k
                        # + 2)``): each step under an if, unrolled, as a loop without the break
                        compile_time.note_unrolled(e)
                with _unrolling(trips):
                    return _guarded_rest(item, iterator, extra_test, body_fn, values, names, line,
                                         scratch)
            if not go:
                return values
        if long_range and done == 0:
            per_step = _kernel_ends()
            ops_per_step = len(current_trace().builder.block.ops)
        with _unrolling(trips):
            values = tuple(body_fn(item, *values))
        made = len(trace.builder.block.ops) - ops_before if trace is not None else 0
        if made > compile_time.UNROLL_WARN_OPS:  # (the compile's minutes are still to come)
            why = _why_python(iterable, values, names, effects, in_try, refused)
            compile_time.warn_unrolling(where(line), made, done + 1, trips, changes, why)
            compile_time.stop_unrolling(where(line), made, done + 1, trips, changes, why)
    return values


def _why_python(iterable, values, names, effects, in_try, refused=None) -> str | None:
    """Why the loop runs in Python, as far as its own statement shows (for the unrolling
    warning): ``refused``, the error that the traced loop's body gave; None where nothing
    here does (then it is short)."""
    if in_try:
        return ("it runs inside a try, whose handler Python must be able to run at any step: "
                "move the loop out of the try")
    if effects:
        return ("its body calls a method that changes a Python object (a list's append or "
                "extend, a dict's update, a set's add), which a compiled loop, its body traced "
                "once, would call once: write into an array made before the loop instead")
    if not isinstance(iterable, (range, tables.Table)):
        return (f"it iterates over a Python {type(iterable).__name__}, one copy of its body per "
                "item: iterate over range(len(...)) of an array instead")
    for name, v in zip(names, values):
        if not (_carriable(v) or isinstance(v, Undefined)):
            return (f"its state holds '{name}', a {type(v).__name__}, which a compiled loop "
                    "cannot carry (it carries arrays and numbers, and tuples, lists and dicts of "
                    "them): keep that value out of the loop, or make it an array")
    if refused is not None:
        first = next((ln.strip() for ln in str(refused).split("\n") if ln.strip()), "")
        return f"its body, traced as a compiled loop, was refused: {first.rstrip('.')}"
    return None


def _numbers_become_arrays(body_fn, item, values) -> bool:
    """Whether one trial run of the body (``_trial``) makes a variable holding a Python number
    an array: a loop cannot carry it (a carry keeps its shape), but from the second step on
    it holds an array of the type the trial gave."""
    numbers = [i for i, v in enumerate(values) if type(v) in (bool, int, float, complex)]

    def grown(after, _):
        return any(getattr(after[i], "shape", ()) != () for i in numbers)
    return bool(numbers) and bool(_trial(lambda *state: body_fn(item, *state), values, grown))


# Steps of a for loop run in Python while each promotes its state's dtypes (a float32 Kalman
# filter's P is float64 after one step, its x after two), before the rest is a loop.
PROMOTED_PEEL = 3


def _first_step_promotes(body_fn, item, values) -> bool:
    """Whether one trial run of the body gives a carried array or number another dtype at the
    same shape (NumPy's promotion: a float32 state times a float64 ``np.eye(n)``): the state
    has that dtype from a later step on, so this step runs in Python and the rest is tried as
    a loop (it was unrolled: 40 steps of a float32 Kalman filter took 17 s to compile)."""
    def promoted(after, _):
        for old, new in zip(values, after):
            olds, news = pytree.flatten(old)[0], pytree.flatten(new)[0]
            if len(olds) == len(news) and any(
                    np.shape(a) == np.shape(b) and _dtype(a) != _dtype(b)
                    for a, b in zip(olds, news) if not isinstance(a, Undefined)):
                return True
        return False
    return bool(_trial(lambda *state: body_fn(item, *state), values, promoted))


class FirstAssigned(UnsupportedError):
    """A traced loop's body gives a variable its first value, and it is used after the loop or
    in the next iteration: it has no value to carry in."""


def _holds_arrays(values) -> bool:
    return any(isinstance(leaf, (Tracer, np.ndarray)) for leaf in pytree.flatten(values)[0])


def _all_carriable(values) -> bool:
    return all(_carriable(v) or isinstance(v, Undefined) for v in values)


def _guarded_rest(item, iterator, extra_test, body_fn, values, names, line, scratch=()):
    """The rest of a Python loop after a traced ``break``: each iteration runs under ``if``.
    An array each step makes afresh (``scratch``: ``e1 = np.zeros(k + 2)``, its size the
    step's) is not carried out of the if: the next step makes its own. An int that is a
    Python int before the loop and after each step (the counter, ``last = k``) is, after
    the loop, one the data stops (``_bound_index``): x[:k] selects by a mask, and a shape made
    of it is refused saying why."""
    steps = [item, *iterator]
    ints = {n: [v] for n, v in zip(names, values) if type(v) is int or isinstance(v, Undefined)}
    counters = set(names)  # the names every step's body leaves as its item

    def body(it, *v):
        out = tuple(body_fn(it, *v))
        counters.intersection_update(n for n, x in zip(names, out) if x is it)
        for n, x in zip(names, out):
            if n in ints:
                ints[n].append(x)
        return out

    for it in steps:
        go = extra_test(*values)
        if not isinstance(go, Tracer) and not go:
            return values
        defined = tuple(n for n, v in zip(names, values) if not isinstance(v, Undefined))
        values = if_stmt(go, lambda *v, it=it: body(it, *v), lambda *v: v, init=values,
                         names=names, line=line, in_try=False, then_defined=defined,
                         else_defined=defined, dead=scratch)
    out = dict(zip(names, values))
    for name, seen in ints.items():
        known = [v for v in seen if not isinstance(v, Undefined)]
        if known and all(type(v) is int for v in known):
            _bound_index(out, name, min(known), max(known), "for loop", line, counter=name in counters)
    return values


def _traced_for(rng, source, extra_test, body_fn, values, names, line, targets):
    """A for loop over ``rng`` (a range, maybe with traced bounds) as ``fori_loop``, or as a
    ``while_loop`` over a count when it may break. After it, what is known while tracing is
    given back as Python would leave it (``_known_after``): the target is the last item when
    the range is static and the count of steps known (no break, or a break that tests only the
    index), and a number the body steps by constants is its final number."""
    if isinstance(source, tables.Table):
        source.columns()  # (made once, here, not in the loop's body)
    try:
        with effects.watching("for loop", line, names, values, (extra_test, body_fn),
                              (rng.start, rng.stop, rng.step)):
            return _with_shared_arrays(
                lambda loop: _traced_for_once(loop, rng, source, extra_test, body_fn, names, line),
                names, values, line, "for loop", targets, (extra_test, body_fn))[1]
    except FirstAssigned as e:  # static bounds would run its first step in Python (_python_for)
        raise needs_static(e, rng.start, rng.stop, rng.step) from None


def _traced_for_once(loop, rng, source, extra_test, body_fn, names, line):
    start, stop, step = rng.start, rng.stop, rng.step
    values = loop.values

    static = not any(isinstance(v, Tracer) for v in (start, stop, step))
    steps = range(start, stop, step) if static else None
    form = index_forms.loop_index(steps) if static else None

    def item(i):
        # range() gives Python ints: the index promotes as one (NEP 50), so that float16 x + i
        # stays float16
        if source is not None:
            loop.item = source[i]
            return loop.item
        out = fresh(i, scalar=True, weak=True)
        out.index_form = form  # the first step traced for the carry's types, and the while form
        loop.item = out
        return out

    def item_at(k: int):
        """The item of the ``k``-th step, as Python gives it (a Python int index)."""
        return steps[k] if source is None else source[steps[k]]

    numbers = _python_numbers(names, values)
    if extra_test is None:
        carry = loop.init(lambda full: body_fn(item(_int64(start)), *full))
        with _in_user_terms():
            out = cf.fori_loop(start, stop, lambda i, c: loop.step(lambda v: body_fn(item(i), *v), c),
                               carry, step=step, python_types=True)
        trips = len(steps) if static else None
        known = _known_after(loop, out, numbers, trips, item_at if trips else None)
        return loop.result(out, ran=static and len(steps) > 0, known=known)
    # i = start + k * step for k = 0, 1, ... while k < the range's length and no break.
    n = _range_length(start, stop, step, line)
    first, stride = _int64(start), _int64(step)
    try:
        enters = extra_test(*values)  # (True: the first step runs whatever the data)
    except Exception:  # noqa: BLE001  (a test Python cannot run here: not known to enter)
        enters = None

    def cond_fun(both):
        k, c = both
        return np.logical_and(k < n, loop.test(lambda v: extra_test(*v), c))

    def body_fun(both):
        k, c = both
        return k + 1, loop.step(lambda v: body_fn(item(first + k * stride), *v), c)

    stops = "a for loop that can break or return: the data decides its trip count"
    with calltime.unknown_trips(stops):
        carry = loop.init(lambda full: body_fn(item(first), *full))
        with _in_user_terms():
            count, out = cf.while_loop(cond_fun, body_fun, (_int64(0), carry), python_types=True)
    trips = _final_count(count) if static else None
    known = _known_after(loop, out, numbers, trips, item_at if trips else None)
    if trips is None and static and len(steps) and source is None:
        # The break depends on the data: the index is still within the range (or where it was
        # before the loop, if the loop may not run), so x[:i] after it is a selection by the
        # mask arange(n) < i (``masked.RangedSelection``): its sums and writes compile.
        runs = enters is not None and not isinstance(enters, Tracer) and bool(enters)
        for name in loop.from_item:
            before = values[names.index(name)]
            _bound_index(out, name, form.lo, form.hi, "for loop", line, None if runs else before)
    return loop.result(out, ran=bool(trips), known=known)


# The state of the loop statement being run that is read after it (``after``, from the
# conversion's liveness; None: every name), for the statement's own time: a loop nested in its
# body sets its own while it runs.
_AFTER = threading.local()


@contextlib.contextmanager
def _read_after(after, rebinds=None):
    """... and the names its body binds to new values (``rebinds``; None: not known), which
    it carries by value rather than as shared arrays (``aliasing``)."""
    before = getattr(_AFTER, "names", None), getattr(_AFTER, "rebinds", None)
    _AFTER.names, _AFTER.rebinds = after, rebinds
    try:
        yield
    finally:
        _AFTER.names, _AFTER.rebinds = before


def _rebinds() -> set[str]:
    return set(getattr(_AFTER, "rebinds", None) or ())


def _python_numbers(names, values) -> dict[str, type]:
    """The variables that hold a Python number before a traced loop and are read after it:
    where the loop's steps of one are known while tracing, it is that number again after it."""
    after = getattr(_AFTER, "names", None)
    return {name: type(v) for name, v in zip(names, values)
            if type(v) in (bool, int, float) and (after is None or name in after)}


def _final_count(count) -> int | None:
    """The number of steps of a ``for`` loop with a break, where the break tests only the
    index and constants (``loop_exit``), else None."""
    op = count.value.op if isinstance(count.value, OpResult) else None
    found = loop_exit.final_values(op, [count.value.index]) if op is not None else None
    return None if found is None else int(found[count.value.index])


def _known_after(loop, out, numbers, trips, item_at) -> dict:
    """The variables of a traced loop whose final values are known while tracing, as Python
    values (``loop_exit``): with ``trips`` known and not zero, a variable the body sets to a
    number (the same every iteration) and the target of a ``for`` (``item_at(trips - 1)``, the
    last item); and a Python number the loop carries (``numbers``) whose steps and exit read
    only constants, evaluated on constants: a Python number again where the loop carried it
    weakly typed. Only names read after the loop (``_AFTER``); everything else stays traced."""
    known = {}
    after = getattr(_AFTER, "names", None)
    if trips:
        known.update(loop.concrete)
        if item_at is not None:
            leaves = pytree.flatten(item_at(trips - 1))[0]
            for name, (tree, where_) in loop.from_item.items():
                known[name] = pytree.unflatten(tree, [leaves[k] for k in where_])
    for name in numbers:  # (one at a time: a sum of the data gives up alone)
        v = out.get(name)
        if name in known or not isinstance(v, Tracer) or v.ndim or not isinstance(v.value, OpResult):
            continue
        found = loop_exit.final_values(v.value.op, [v.value.index])
        if found is not None:
            number = found[v.value.index][()]
            # a Python number where the loop carried one (weakly typed), else the NumPy scalar
            known[name] = _PYTHON_TYPE[v.dtype.kind](number.item()) if v.weak else number
    return known if after is None else {name: v for name, v in known.items() if name in after}


class _StoppedByData:
    """The token of the index form of a counter after a loop that the data stops: its ``hint``
    takes the place of the generic advice in the message of a use that needs its value
    (``tracer.concretization_message``)."""

    __slots__ = ("hint",)

    def __init__(self, name, what, line, counter=True):
        role = "the counter of" if counter else "set in"
        why = ("stopped by the data its test reads" if what == "while loop" else
               "which a break or return on a traced test may end early")
        self.hint = (
            f"'{name}' is {role} the {what} at {where(line)}, {why}: how many steps run, and so "
            f"'{name}' after the loop, is known only when the function runs, so no shape, slice "
            f"length or Python int can be made of it. Instead: keep the full size and mask what "
            f"lies past it (np.where(np.arange(n) < {name}, x, 0); x[:{name}].sum() and "
            f"x[{name}:] = v take a traced '{name}'), or return '{name}' and slice outside the "
            "jitted function.")


def _bound_index(out, name, lo, hi, what, line, before=None, counter=True) -> None:
    """Give the integer ``out[name]`` (an index after a loop, not known while tracing) the form
    of an index in ``[lo, hi]`` (and ``before``, its value if the loop may not run), so that
    ``x[:i]`` with it selects by a mask (``index_forms.bounded_slice``)."""
    v = out.get(name)
    if not isinstance(v, Tracer) or v.ndim or v.dtype.kind not in "iu":
        return
    if before is not None:
        before = 0 if isinstance(before, Undefined) else before  # (its zero, ``_Loop.init``)
        if type(before) is not int:
            return
        lo, hi = min(lo, before), max(hi, before)
    v.index_form = index_forms.IndexForm(_StoppedByData(name, what, line, counter), 1, 0, lo, hi)


def _int64(x):
    trace = current_trace()
    return as_tracer(trace, x, np.dtype(np.int64))


def _range_length(start, stop, step, line):
    if not any(isinstance(v, Tracer) for v in (start, stop, step)):
        return len(range(start, stop, step))
    if not isinstance(step, Tracer) and step == 0:
        raise ValueError(f"range() arg 3 must not be zero (at {where(line)})")
    start, stop, step = _int64(start), _int64(stop), _int64(step)
    up = (stop - start + step - 1) // step
    down = (start - stop - step - 1) // (-step)
    return np.maximum(np.where(step > 0, up, down), 0)


_TESTED = "<the test, made>"  # a rotated while loop's flag (``_traced_while``'s ``first``)
_FIRST = "<the first pass>"  # the carry's flag, for variables that are shared arrays there (``_Loop.full``)


class _Loop:
    """A traced loop's carry: the state, as a dict by name (so carry errors name the variable).
    A variable the body never gives a value (the function's result, where no path through the
    body returns) is not carried: it stays undefined. A variable holding an array the body
    changes only in place is carried as its root (``aliasing.SharedArrays``), so that the other
    names and views of that array see the writes."""

    def __init__(self, names, values, line, what, targets=(), rebinds=(), written=(), rebound=()):
        self.names, self.values, self.line, self.what = names, values, line, what
        self.targets = set(targets)
        self.arrays = SharedArrays(names, values, rebinds, written, set(rebound) | self.targets)
        self.first = {i for i, v in enumerate(values) if i not in self.arrays.held
                      and isinstance(v, Tracer) and not v.scalar
                      and any(v.root() is r for r in self.arrays.roots)}
        self.writes = _InPlace(names, values, what, line, self.arrays.held)
        self.absent: set[str] = set()
        self.scalars: dict[str, list[bool]] = {}  # by name: which leaves the body made scalars
        self._given = None
        # What the body leaves known while tracing (``loop_exit``): a variable it sets to a
        # number (the same at every iteration: the body is traced once), and, in a ``for``
        # loop, one it leaves as the item it was given (its target), by the item's leaves.
        # Variables that may be unbound as the loop starts (no value, or one noted): the carry
        # holds whether each is bound (``unbound.KEY``); those every step binds (``always``)
        # need no note after a loop known to run.
        self.tracked: set[str] = set()
        self.always: set[str] = set()
        self._flags_in: dict = {}
        self.item = None  # the item the body was last traced with
        # (i, j, same): variables every pass of the body leaves holding one array (``same``) or
        # j a view of i's (``aliasing.one_array_in_body``); None before the first
        self.linked = None
        self.concrete: dict[str, object] = {}
        self.from_item: dict[str, tuple] = {}
        for name, v in zip(names, values):
            if not isinstance(v, Undefined) and not _carriable(v):
                raise _cannot_carry(name, v, what, line)

    def _state(self, carry) -> tuple:
        held = self.arrays.held
        return tuple(Undefined(n) if n in self.absent else held[i] if i in held else carry[n]
                     for i, n in enumerate(self.names))

    def full(self, carry) -> tuple:
        """The state in a body or test being traced (the shared arrays' roots hold the carry).
        A variable carried by value that held a shared array's memory as the loop started
        (``v = x[1:]``, then ``v = v + 1`` in a body that writes ``x``) is that array, as the
        body has written it so far, in the first pass: Python's first pass reads it there."""
        self.arrays.enter(carry)
        self._flags_in = {name: carry[unbound.KEY + name] for name in self.tracked}
        state = self._state(carry)
        for name, v in zip(self.names, state):  # (an if in the body gives their flags on)
            if name in self.tracked:
                unbound.note(v, self._flags_in[name])
        if self.first:
            first = carry[_FIRST]
            at = where(self.line)
            state = tuple(first_pass_view(self.values[i], v, first, self.names[i], self.what, at)
                          if i in self.first else v for i, v in enumerate(state))
        self._given = state
        return self._given

    def test(self, test_fn, carry):
        """``test_fn`` of the state, in the loop's test."""
        try:
            return settled(test_fn(self.full(carry)), self.arrays)
        finally:
            self.arrays.leave()

    def step(self, body, carry) -> dict:
        """The carry after ``body`` of the state, in the loop's body."""
        values = self.full(carry)
        try:
            values = body(values)
        except BaseException:
            self.arrays.leave()
            raise
        return self.out(values)

    def result(self, carry, ran: bool = False, known=None) -> tuple:
        """The state after the loop. A loop known to run its body (``ran``) leaves a variable
        as the body made it: a NumPy scalar where a 0-d array came in (``s = np.zeros(())``,
        then ``s = s + x[i]``), as Python's loop does. ``known``: the variables whose final
        values are known while tracing (``_known_after``), which they then hold, as after
        Python's loop (``x[:i]`` after it is a slice, not a value of the data)."""
        self.arrays.finish(carry)
        values = self._state(carry)
        if ran:
            values = tuple(self._as_body_made(name, v) for name, v in zip(self.names, values))
        values = self.writes.result(values)
        if known:
            values = tuple(known.get(name, v) for name, v in zip(self.names, values))
        for name, v in zip(self.names, values):  # bound after it where a step bound it
            if name in self.tracked and not (ran and name in self.always):
                unbound.note(v, carry[unbound.KEY + name])
        return one_array_after_loop(self.linked or (), self.values, values, self.names, where(self.line))

    def _as_body_made(self, name, value):
        scalars = self.scalars.get(name)
        leaves, tree = pytree.flatten(value)
        if scalars is None or len(scalars) != len(leaves):
            return value
        return pytree.unflatten(tree, [as_scalar(leaf) if scalar else leaf
                                       for leaf, scalar in zip(leaves, scalars)])

    def out(self, values) -> dict:
        rebound = self.arrays.rebound(values)
        if rebound:
            self.arrays.leave()
            raise Rebound(rebound)
        self.writes.saw(self._given, values)
        linked = one_array_in_body(values, self.arrays.held)
        self.linked = linked if self.linked is None else self.linked & linked
        carry = {}
        item = {id(leaf): k for k, leaf in enumerate(pytree.flatten(self.item)[0])} \
            if self.item is not None else {}
        for i, (name, v) in enumerate(zip(self.names, values)):
            if i in self.arrays.held:
                continue
            given = self._given[i]
            if isinstance(given, Tracer) and given.version and aliased(self.values[i], self.arrays):
                self.arrays.leave()
                if v is given:  # (Z = step(Z), step writing Z and returning it)
                    raise SameObject({i})
                raise refuse_first_write(name, self.what, where(self.line))
            leaves, tree = pytree.flatten(v)
            self.scalars[name] = [isinstance(leaf, np.generic) or (isinstance(leaf, Tracer) and leaf.scalar)
                                  for leaf in leaves]
            self.concrete.pop(name, None)
            self.from_item.pop(name, None)
            if leaves and all(isinstance(leaf, _NUMBERS) for leaf in leaves):
                self.concrete[name] = v
            elif leaves and all(id(leaf) in item for leaf in leaves):
                self.from_item[name] = (tree, [item[id(leaf)] for leaf in leaves])
            if name in self.absent:
                if not isinstance(v, Undefined):
                    self.arrays.leave()
                    raise UnsupportedError(f"'{name}' is given a value on a path of the {self.what} "
                                           f"at {where(self.line)} that one trial run of its body "
                                           "did not take; give it a value before the loop")
                continue
            if isinstance(v, Undefined):
                self.arrays.leave()
                raise UnsupportedError(f"'{name}' has no value at the end of an iteration of the "
                                       f"{self.what} at {where(self.line)}")
            carry[name] = pytree.unflatten(tree, [settled(leaf, self.arrays) for leaf in leaves]) \
                if self.arrays else v
        for i, name in enumerate(self.names):
            if name in self.tracked:
                step = unbound.given_flag(values[i], self._given[i], self._flags_in[name])
                carry[unbound.KEY + name] = step
                if isinstance(step, np.bool_) and step:
                    self.always.add(name)
                else:
                    self.always.discard(name)
        carry.update(self.arrays.current())
        if self.first:
            carry[_FIRST] = np.False_
        self.arrays.leave()
        return carry

    def init(self, run_once) -> dict:
        """The initial carry. A variable with no value yet (the function's result, the loop
        variable) gets zeros of the type one run of the body gives it, traced into a block that
        is then dropped; any other is an error: Python would raise if the loop ran zero times."""
        missing = [i for i, v in enumerate(self.values) if isinstance(v, Undefined)]
        for i in missing:
            name = self.names[i]
            if name != RETVAL and name not in self.targets:
                raise FirstAssigned(
                    f"'{name}' is first assigned inside the {self.what} at {where(self.line)}, "
                    "whose bounds or condition are traced, and is used after it or in the next "
                    "iteration; give it a value before the loop")
        values = list(self.values)
        if missing:
            trace = current_trace()
            block = Block()
            with trace.region(block):
                # Every value traced, as in the loop: a branch on it traces both ways.
                copies = [v if isinstance(v, Undefined) else _traced_copy(trace, v) for v in self.values]
                after = run_once(tuple(copies))
                for i in missing:  # first set in the body: its value must be one a loop carries
                    if not isinstance(after[i], Undefined) and not _carriable(after[i]):
                        raise _cannot_carry(self.names[i], after[i], self.what, self.line)
                zeros = {i: _zero_like(after[i]) for i in missing if not isinstance(after[i], Undefined)}
            for op in reversed(block.ops):
                op.drop_all_references()
            for i in missing:
                if i in zeros:
                    values[i] = zeros[i]
                else:
                    self.absent.add(self.names[i])
        carry = {n: v for i, (n, v) in enumerate(zip(self.names, values))
                 if n not in self.absent and i not in self.arrays.held}
        for name, v in zip(self.names, self.values):
            if name in carry and name != RETVAL and unbound.tracked(v):
                self.tracked.add(name)
                carry[unbound.KEY + name] = np.False_ if isinstance(v, Undefined) else unbound.flag(v)
        carry.update(self.arrays.initial())
        if self.first:
            carry[_FIRST] = np.True_
        return carry


_PYTHON_ZERO = {np.dtype(bool): False, np.dtype(np.int64): 0, np.dtype(np.float64): 0.0,
                np.dtype(np.complex128): 0j}


def _zero_like(value):
    """A zero of ``value``'s type, to start a loop variable first set in the body: a Python
    number for a weak scalar (the loop index of ``range``, ``int(x)``), so that the variable
    read after the loop is an ``int`` and promotes like one; a NumPy scalar for a scalar; else
    an array of zeros; a tuple, list or dict (a returned ``-1.0, k``) of those, leaf by leaf."""
    leaves, tree = pytree.flatten(value)
    if tree.kind != "leaf":
        return pytree.unflatten(tree, [_zero_like(leaf) for leaf in leaves])
    shape, dtype = np.shape(value), _dtype(value)
    if isinstance(value, Tracer) and not shape and (value.scalar or value.weak):
        if value.weak and dtype in _PYTHON_ZERO:
            return _PYTHON_ZERO[dtype]
        return np.zeros((), dtype)[()]
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return type(value)(0)
    return np.zeros(shape, dtype)


def _traced_copy(trace, value):
    """``value`` (a pytree of arrays and numbers) as new tracers: Python numbers weakly typed,
    numbers NumPy scalars (a loop's ``n = 0; n += 1`` gives a scalar, as in Python)."""
    def leaf(x):
        if isinstance(x, Tracer):
            return fresh(x, x.scalar, x.weak)
        t = as_tracer(trace, x, np.asarray(x).dtype)
        if isinstance(x, (bool, int, float, complex)):
            t = fresh(t, True, True)
        elif isinstance(x, np.generic):
            t = fresh(t, True)
        return t
    leaves, tree = pytree.flatten(value)
    return pytree.unflatten(tree, [leaf(x) for x in leaves])


def _dtype(v):
    return v.dtype if hasattr(v, "dtype") else np.asarray(v).dtype
