"""JAX's structured control flow: ``cond``, ``switch``, ``while_loop``, ``fori_loop``, ``scan``.

Under ``jit`` each call becomes one ``scf`` op (docs/control-flow.md §2): ``scf.if`` for a
branch on a traced predicate, ``scf.while``, and ``scf.for`` for ``fori_loop`` and ``scan``,
whatever the trip count: nothing is unrolled. A region (a branch, a loop body) is traced
through the same ``Trace`` as the enclosing function, its builder pointed into the region's
block (``Trace.region``), so a body may use tracers from outside and its ops land in the body.

Carries and operands are pytrees. Branch outputs and loop carries must agree leaf by leaf in
shape and dtype; a weakly typed leaf (a Python scalar) takes the other side's dtype where
NumPy's promotion of a Python scalar gives that dtype, as JAX's weak types do (a loop whose
body turns a ``0`` carry into float32 is traced again with a float32 carry).

Called outside ``jit`` (on NumPy arrays) the functions run in Python with the same meaning,
so code works both ways; a concrete predicate or index calls only the chosen branch. (One
difference: an eager loop that runs zero times returns its init as it is, a weak ``0``
included, since no body ran to give it a dtype.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jitcore import calltime, index_forms, number_or_array, pytree, raise_state, type_choice
from jitcore import primitives as prims
from jitcore.dtypes import ir_type
from jitcore.errors import JitTypeError, LoopCarryShapeError
from jitcore.ir.core import PURE, Block, Region
from jitcore.ir.dialects import scf
from jitcore.ir.types import TensorType
from jitcore.tracer import Trace, Tracer, current_trace, fresh, needs_static, user_location

__all__ = ["cond", "fori_loop", "scan", "switch", "while_loop"]

INDEX = np.dtype(np.int64)
_PYTHON_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


# -- abstract values of pytree leaves ---------------------------------------------------------
@dataclass(frozen=True)
class Aval:
    """What must agree between branches, or between a carry going in and coming out."""

    shape: tuple[int, ...]
    dtype: np.dtype
    weak: bool = False  # a Python scalar's: takes the other side's dtype where NumPy would

    def __str__(self) -> str:
        dims = ",".join(map(str, self.shape))
        return f"{self.dtype}[{dims}]" + (" (a Python scalar)" if self.weak else "")

    @property
    def ir_type(self) -> TensorType:
        return TensorType(self.shape, ir_type(self.dtype))


def aval_of(leaf, api: str, path: str) -> Aval:
    if isinstance(leaf, Tracer):
        return Aval(leaf.shape, leaf.dtype, leaf.weak)
    if type(leaf) in (bool, int, float, complex):  # a Python bool too: False or True stays one
        return Aval((), np.asarray(leaf).dtype, True)
    if isinstance(leaf, (bool, np.ndarray, np.generic, int, float, complex)):
        arr = np.asarray(leaf)
        return Aval(arr.shape, arr.dtype)
    if isinstance(leaf, (str, bytes)):
        raise JitTypeError(
            f"{api}: {path} is a {type(leaf).__name__} ({leaf!r:.40}), at {user_location()}: a "
            "string chosen by traced data cannot be computed by compiled code, which computes "
            "numbers, not text. Compute a code (a bool or int: ok = err < tol) in the jitted "
            "function, return it, and choose the text outside it ('converged' if ok else "
            "'failed')")
    refusal = getattr(leaf, "_refusal", None)  # (eig's real-or-complex values: in its words)
    if refusal is not None and hasattr(leaf, "real_taken"):
        raise refusal(f"{path}", "a loop or branch carries it only where the variable held one before it")
    raise JitTypeError(
        f"{api}: {path} is a {type(leaf).__name__} ({leaf!r}), at {user_location()}; carries, "
        "operands and outputs are arrays and scalars, in tuples, lists, dicts or None"
    )


def _takes(weak: Aval, dtype: np.dtype) -> bool:
    """Whether a Python scalar of ``weak``'s kind combined with ``dtype`` gives ``dtype``."""
    return np.result_type(_PYTHON_KIND[weak.dtype.kind](0), dtype) == dtype


def join(a: Aval, b: Aval) -> Aval | None:
    """The aval both ``a`` and ``b`` fit, or None: equal, or a weak side taking the other's dtype."""
    if a.shape != b.shape:
        return None
    if a.dtype == b.dtype:
        return Aval(a.shape, a.dtype, a.weak and b.weak)
    if a.weak and _takes(a, b.dtype):
        return b
    if b.weak and _takes(b, a.dtype):
        return a
    return None


# How to write a value as a wider dtype: a Python number's constructor where there is one.
_CONVERSIONS = {np.dtype(np.float64): "float", np.dtype(np.complex128): "complex", np.dtype(np.int64): "int"}


def _one_dtype_hint(a: Aval, b: Aval, a_name: str, b_name: str) -> str:
    """What to write where two sides differ only in dtype: make the narrower one the dtype both
    can hold (an int sum against ``np.inf``: ``float(s)``)."""
    if a.shape != b.shape or a.dtype == b.dtype:
        return ""
    for weak, strong, strong_name in ((a, b, b_name), (b, a, a_name)):
        if weak.weak and weak.dtype.kind == "f" and not strong.weak and strong.dtype.kind in "iu" \
                and a.shape == ():
            return _inf_start_hint(strong.dtype, strong_name)
    wide = np.result_type(a.dtype, b.dtype)
    narrow_name = (b_name if wide == a.dtype else a_name if wide == b.dtype
                   else f"each of {a_name} and {b_name}")  # int64 against uint64: float64
    if a.shape == () and wide in _CONVERSIONS:
        write = f"{_CONVERSIONS[wide]}(v)"
    else:
        write = f"np.{wide.name}(v)" if a.shape == () else f"v.astype(np.{wide.name})"
    return f". Make both {wide}: write {write} for the value v that {narrow_name} gives"


def _inf_start_hint(dtype: np.dtype, strong_name: str) -> str:
    """An integer element against a Python float (``lo = np.inf`` and then ``lo = x[i]``, a
    running min of ints): NumPy's result is an ``np.int64`` on one path and a Python float on
    the other; one compiled value holding both would round int64s past 2**53. The float(v)
    rewrite, and the one that keeps NumPy's type where the float is a start value."""
    name = f"np.{dtype.name}"
    return (f". NumPy gives a {name} on one path and a Python float on the other, which one "
            f"compiled value cannot hold exactly. Make both float64: write float(v) for the value "
            f"v that {strong_name} gives (the result is then a Python float where NumPy's may be "
            f"{name}); or, for a running min or max started at an infinity, keep NumPy's {name} "
            f"by starting from the data: lo = x[0] before the loop (for i in range(1, len(x)))")


def _grows(g: pytree.TreeDef, e: pytree.TreeDef) -> bool:
    """Whether a list in ``g`` has another length than its place in ``e`` (a list appended
    to on one path), the two alike otherwise down to it."""
    if g.kind != e.kind or len(g.children) != len(e.children):
        return g.kind == e.kind == "list"
    return any(_grows(a, b) for a, b in zip(g.children, e.children))


def _check_tree(api: str, what: str, expected: pytree.TreeDef, got: pytree.TreeDef, where: str):
    differing = _differing_variables(expected, got)
    if differing:  # autograph's state: the user's variables that differ, by name
        shown = "; ".join(f"'{name}' is {_tree_text(g)} against {_tree_text(e)}"
                          for name, g, e in differing)
        containers = any(t.kind in ("dict", "list", "tuple") for _, g, e in differing for t in (g, e))
        grown = [name for name, g, e in differing if _grows(g, e)]
        hint = ("a dict or list must have the same keys and length on every path: give it the "
                "key or item before the branch (d[k] = 0.0), and set its value on the paths"
                if containers else "return np.nan, or a flag, where one returned None")
        if grown:  # a list appended to on one path: under a traced if outside a loop...
            causes = [(n, _unappendable_cause(n)) for n in grown]
            known = "".join(f" The loop that appends to '{n}' is not compiled as one that appends, "
                            f"so it runs unrolled: {cause}." for n, cause in causes if cause)
            hint = (f"{', '.join(repr(n) for n in grown)} grows on one path only: a list appended "
                    "to under a traced if outside a loop, or in a loop that cannot be compiled as "
                    f"one that appends, has a length known only when the code runs.{known} Write its "
                    "items into an array of the most rows and count them (out = np.empty(n); "
                    "out[k] = v; k += 1), then use or return out[:k]; " + hint)

        raise JitTypeError(f"{api}: {what} has a different structure ({shown}), at {where}; the "
                           f"condition is traced, so every path must give the same structure "
                           f"({hint})")
    if expected != got:
        hint = "return np.nan, or a flag, where one returned None"
        if _grows(got, expected):  # (return hist from inside the loop that appends to it)
            hint = ("a list returned on one path has another length than on the other: where a "
                    "loop appends to it and returns it from inside, break out of the loop instead "
                    "(keep in a variable what that return gave) and return after it, which "
                    "compiles; or " + hint)
        error = JitTypeError(
            f"{api}: {what} has a different structure ({_tree_text(got)} against "
            f"{_tree_text(expected)}), at {where}; the condition is "
            f"traced, so every path must give the same structure ({hint})"
        )
        # (the list's growth explained: effects.watching keeps this, not its general refusal)
        error.explains_list_change = _grows(got, expected)
        raise error


def _unappendable_cause(name: str) -> str:
    """Why the loop that appends to the list ``name`` was not compiled as an appending loop,
    where a trial of it found a cause (an item of a length the data chooses, or what one run
    of its body with its state traced raised); "" where none is known."""
    trace = current_trace()
    for _, listed, ragged, failed in reversed(list(trace.unappendable.values()) if trace else []):
        if listed != name:
            continue
        if ragged is not None:
            return ("its items have lengths the data chooses (a selection such as x[mask] or "
                    "np.flatnonzero(mask)), which a compiled loop cannot hold as rows of one shape")
        if failed:
            text = str(failed[0]).split("\n")[0]
            return f"one run of its body with the values it carries traced failed: {text}"
    return ""


def _differing_variables(expected: pytree.TreeDef, got: pytree.TreeDef) -> list:
    """``(name, got, expected)`` of the entries that differ between two dicts of the same
    variables (autograph's branch and loop state), when all are the user's (not the names the
    conversion makes, ``__ag_continue_1``), else []."""
    if expected == got or expected.kind != "dict" or got.kind != "dict" or expected.keys != got.keys:
        return []
    out = [(k, g, e) for k, g, e in zip(expected.keys, got.children, expected.children) if g != e]
    if any(not isinstance(k, str) or k.startswith("__ag") for k, _, _ in out):
        return []
    return out


class _Leaf:
    """How a structure's leaf reads in a message: any array or number."""

    def __repr__(self) -> str:
        return "<array or number>"


def _tree_text(tree: pytree.TreeDef) -> str:
    if tree.kind == "dict" and _RETURNED in tree.keys:  # autograph's branches: what they return
        returned = tree.children[tree.keys.index(_RETURNED)]
        return f"return {pytree.unflatten(returned, [_Leaf()] * returned.num_leaves)!r}"
    return repr(pytree.unflatten(tree, [_Leaf()] * tree.num_leaves))


_RETURNED = "__ag_retval"  # autograph's name for a function's result (lowering.RETVAL)


def _join_leaves(api, paths, left, right, describe, where) -> list[Aval]:
    out = []
    for path, a, b in zip(paths, left, right):
        j = join(a, b)
        if j is None:
            grows = getattr(describe, "loop", False) and a.shape != b.shape
            error = LoopCarryShapeError if grows else JitTypeError
            raise error(f"{api}: {describe(path, a, b)}, at {where}")
        out.append(j)
    return out


# -- tracing regions ----------------------------------------------------------------------------
def _find_trace(*trees) -> Trace | None:
    trace = current_trace()
    if trace is not None:
        return trace
    for tree in trees:
        for leaf in pytree.flatten(tree)[0]:
            if isinstance(leaf, Tracer):
                return leaf.owner_trace
    return None


def _sources(leaves) -> frozenset:
    out = frozenset()
    for leaf in leaves:
        if isinstance(leaf, Tracer):
            out |= leaf.sources
    return out


def _discard(block: Block) -> None:
    """Drop a block traced for nothing (a carry's type changed): its uses of outer values go."""
    for op in reversed(block.ops):
        op.drop_all_references()


def _yield(trace: Trace, block: Block, leaves, avals: list[Aval], op_cls=scf.YieldOp) -> None:
    """End ``block`` with ``op_cls`` of ``leaves`` cast to ``avals`` (a weak leaf's cast)."""
    if trace.number_or_array:
        with trace.region(block):
            number_or_array.carried(leaves, "a traced branch or loop giving it as its value")
    with trace.region(block):
        values = [prims.as_tracer(trace, leaf, a.dtype).value for leaf, a in zip(leaves, avals)]
        trace.builder.create(op_cls, values)


def _is_scalar(leaf) -> bool:
    """A NumPy scalar rather than a 0-d array (see ``tracer.as_scalar``)."""
    if isinstance(leaf, Tracer):
        return leaf.scalar
    return not isinstance(leaf, np.ndarray)


def _results(trace: Trace, op, avals: list[Aval], sources: frozenset, scalars) -> list[Tracer]:
    out = []
    for r, a, s in zip(op.results, avals, scalars):
        t = Tracer(r, trace, sources, a.weak)
        t.scalar = bool(s) and not a.shape
        out.append(t)
    return out


def _is_fortran(leaf) -> bool:
    """Laid out in Fortran order (and not C's too), as NumPy would hold it."""
    if isinstance(leaf, Tracer):
        return leaf.fortran
    return (isinstance(leaf, np.ndarray) and leaf.ndim > 1 and leaf.flags.f_contiguous
            and not leaf.flags.c_contiguous)


def _carry_tracers(trace: Trace, args, avals: list[Aval], sources: frozenset, init_leaves) -> list[Tracer]:
    """A loop region's carries; a NumPy scalar's carry is one, so the body's ``n += 1`` rebinds
    ``n`` as Python does, rather than writing into a 0-d array."""
    out = []
    for arg, a, leaf in zip(args, avals, init_leaves):
        t = Tracer(arg, trace, sources, a.weak)
        t.scalar = _is_scalar(leaf) and not a.shape
        t.fortran = _is_fortran(leaf)  # (a view method copies where NumPy's does: ravel)
        t.region_input = True
        out.append(t)
    return out


def _region_input(t):
    if isinstance(t, Tracer):
        t.region_input = True
    return t


def _to_tracers(trace: Trace, leaves, avals: list[Aval]) -> list[Tracer]:
    """The leaves as tracers of ``avals``, in the current block (operands of the op)."""
    if trace.number_or_array:
        number_or_array.carried(leaves, "a traced loop carrying it")
    return [prims.as_tracer(trace, leaf, a.dtype) for leaf, a in zip(leaves, avals)]


# -- the type a path chose (type_choice.py): its tag, one more output or carry ---------------------
_TAG_AVAL = Aval((), type_choice.TAG)


def _tags(trace: Trace, leaves, among: list[tuple]) -> list[Tracer]:
    """Per leaf of several kinds (``among``), its tag, made in the current region."""
    return [type_choice.tag(trace, leaf, k) for leaf, k in zip(leaves, among) if len(k) > 1]


def _marked(tracers: list[Tracer], tags, among: list[tuple]) -> list[Tracer]:
    """``tracers`` with the tags of those of several kinds (in order) attached."""
    tags = iter(tags)
    return [type_choice.mark(t, next(tags), k) if len(k) > 1 else t for t, k in zip(tracers, among)]


def _check_scalar(x, kinds: str, api: str, what: str) -> np.dtype:
    """``x``'s dtype, after checking that it is 0-d and of one of NumPy's ``kinds``."""
    if isinstance(x, (Tracer, np.ndarray, np.generic)):
        shape, dtype = x.shape, x.dtype
    else:
        arr = np.asarray(x)
        shape, dtype = arr.shape, arr.dtype
    if shape != () or dtype.kind not in kinds:
        wanted = "an integer" if kinds == "iu" else "a bool or number"
        raise JitTypeError(f"{api}: {what} must be a scalar (0-d), {wanted}; got "
                           f"{Aval(shape, dtype)} at {user_location()}")
    return dtype


def _predicate(trace: Trace, pred, api: str, what: str) -> Tracer:
    """``pred`` as a 0-d bool tracer, as JAX casts it (a number is true when not 0)."""
    dtype = _check_scalar(pred, "biufc", api, what)
    if not isinstance(pred, Tracer):
        return prims.constant(trace, bool(pred), np.dtype(bool))
    if dtype.kind == "b":
        return pred
    return prims.ufunc(np.not_equal, pred, 0)


def _concrete_predicate(pred, api: str, what: str) -> bool:
    _check_scalar(pred, "biufc", api, what)
    return bool(pred)


def _copy_arrays(tree):
    """NumPy arrays in eager carries and operands are the loop's or branch's own: in-place
    writes in a body leave the caller's arrays be, as writes to a carried tracer do under jit."""
    leaves, tree_def = pytree.flatten(tree)
    return pytree.unflatten(tree_def, [leaf.copy() if isinstance(leaf, np.ndarray) else leaf
                                       for leaf in leaves])


# -- cond and switch ---------------------------------------------------------------------------
def cond(pred, true_fun, false_fun, *operands, python_types: bool = False):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``; a traced ``pred`` (a
    0-d bool or number, true when not 0) traces both into an ``scf.if``. ``python_types``
    (converted Python code's ``if``, not JAX's API): an output keeps the type of the branch
    taken (``type_choice``)."""
    if not isinstance(pred, Tracer):
        taken = _concrete_predicate(pred, "jc.cond", "the predicate")
        return (true_fun if taken else false_fun)(*_copy_arrays(operands))
    trace = _find_trace(pred, operands)
    p = _predicate(trace, pred, "jc.cond", "the predicate")
    return _traced_if(trace, p, (true_fun, "true_fun"), (false_fun, "false_fun"), operands, "jc.cond",
                      python_types)


def switch(index, branches, *operands):
    """``branches[index](*operands)``, ``index`` clamped into ``[0, len(branches) - 1]``; a
    traced index becomes a chain of ``scf.if``."""
    branches = list(branches)
    if not branches:
        raise JitTypeError(f"jc.switch: branches is empty, at {user_location()}")
    _check_scalar(index, "iu", "jc.switch", "the index")
    if not isinstance(index, Tracer):
        return branches[min(max(int(index), 0), len(branches) - 1)](*_copy_arrays(operands))
    if len(branches) == 1:
        return branches[0](*operands)
    trace = _find_trace(index, operands)
    clamped = prims.clip(prims.convert(index, INDEX), 0, len(branches) - 1)
    return _switch_from(trace, clamped, branches, 0, operands)


def _switch_from(trace: Trace, index: Tracer, branches: list, k: int, operands):
    """``branches[k:]`` chosen by ``index``: if index == k then branches[k] else the rest."""
    if k == len(branches) - 1:
        return branches[k](*operands)
    p = prims.ufunc(np.equal, index, k)
    rest = (lambda *ops: _switch_from(trace, index, branches, k + 1, ops), f"branches[{k + 1}:]")
    return _traced_if(trace, p, (branches[k], f"branches[{k}]"), rest, operands, "jc.switch")


def _traced_if(trace: Trace, p: Tracer, then, orelse, operands, api: str, python_types: bool = False):
    where = user_location()
    op_leaves, op_tree = pytree.flatten(operands)
    op_avals = [aval_of(leaf, api, path) for leaf, path in
                zip(op_leaves, pytree.leaf_paths(op_tree, "operands"))]
    # Arrays become tracers outside the branches; each branch gets its own copies of the
    # tracers, so an in-place write in one branch changes neither the other nor the caller's.
    op_leaves = [prims.as_tracer(trace, leaf, a.dtype) if isinstance(leaf, np.ndarray) else leaf
                 for leaf, a in zip(op_leaves, op_avals)]
    blocks, outs = [], []
    for fun, name in (then, orelse):
        block = Block()
        with trace.region(block):  # values made in it are read only in it
            args = [_region_input(type_choice.carried(leaf, fresh(leaf, leaf.scalar, leaf.weak)))
                    if isinstance(leaf, Tracer) else leaf for leaf in op_leaves]
            leaves, tree = pytree.flatten(fun(*pytree.unflatten(op_tree, args)))
            paths = pytree.leaf_paths(tree, "output")
            leaf_avals = [aval_of(leaf, api, f"{p} of {name}") for leaf, p in zip(leaves, paths)]
            outs.append((leaves, tree, leaf_avals, [type_choice.kinds(leaf) for leaf in leaves]))
        blocks.append(block)
    (then_leaves, tree, then_avals, then_kinds), (else_leaves, else_tree, else_avals, else_kinds) = outs
    then_name, else_name = then[1], orelse[1]
    try:  # (a condition on a Python number argument: static, one branch is traced)
        _check_tree(api, f"the output of {else_name}", tree, else_tree, where)
        paths = pytree.leaf_paths(tree, "output")
        # a Python number both branches leave the same (n passed to a helper in one) stays that
        # number after the if, not a traced one: reshape((2,) * n) still needs it
        same = [_same_static(a, b) for a, b in zip(then_leaves, else_leaves)]
        if any(same):
            keep = [i for i, s in enumerate(same) if not s]
            fixed_leaves = list(then_leaves)
            then_leaves, else_leaves, paths = (
                [xs[i] for i in keep] for xs in (then_leaves, else_leaves, paths))
            then_avals, else_avals, then_kinds, else_kinds = (
                [xs[i] for i in keep] for xs in (then_avals, else_avals, then_kinds, else_kinds))
        if python_types:  # an int on one path, a float on the other: both in the float
            then_avals, else_avals = _numbers_held_as_one(then_avals, else_avals, then_kinds, else_kinds)
        avals = _join_leaves(
            api, paths, then_avals, else_avals,
            lambda path, a, b: (f"{path} is {a} from {then_name} but {b} from {else_name}; the "
                                "branches must return the same shapes and dtypes"
                                + _one_dtype_hint(a, b, then_name, else_name)), where)
    except JitTypeError as e:
        raise needs_static(e, p) from None
    # a leaf whose kinds differ between the branches (return -1.0 / return x[0] * 2) carries
    # the tag of the one taken out of the if, as one more result
    among = [type_choice.merge(a, b) if python_types else () for a, b in zip(then_kinds, else_kinds)]
    n_tags = sum(len(k) > 1 for k in among)
    for block, leaves in zip(blocks, (then_leaves, else_leaves)):
        with trace.region(block):
            for leaf, aval, k in zip(leaves, avals, among):
                if len(k) > 1:  # (an int64 past 2**53 held in the float: refused)
                    type_choice.check_held_exactly(leaf, aval.dtype)
            tags = _tags(trace, leaves, among)
        _yield(trace, block, [*leaves, *tags], [*avals, *[_TAG_AVAL] * n_tags])
    op = trace.builder.create(scf.IfOp, [p.value], [a.ir_type for a in avals] + [_TAG_AVAL.ir_type] * n_tags,
                              regions=[Region([b]) for b in blocks])
    scalars = [_is_scalar(a) and _is_scalar(b) for a, b in zip(then_leaves, else_leaves)]
    sources = p.sources | _sources(then_leaves) | _sources(else_leaves)
    results = _results(trace, op, [*avals, *[_TAG_AVAL] * n_tags], sources, scalars + [True] * n_tags)
    dynamic = _marked(results[:len(avals)], results[len(avals):], among)
    if any(same):
        for i, r in zip(keep, dynamic):
            fixed_leaves[i] = r
        dynamic = fixed_leaves
    return pytree.unflatten(tree, dynamic)


def _numbers_held_as_one(then_avals, else_avals, then_kinds, else_kinds) -> tuple[list, list]:
    """The branches' avals where a number of one kind is an int (an ``np.int64`` element) on one
    path and a float on the other (``best = x[i]`` under ``if x[i] < best``, ``best`` started
    at ``np.inf``): both the float's dtype, the value then holding either and its tag which
    (``type_choice``; an int past 2**53 refused where it runs, ``check_held_exactly``)."""
    then_out, else_out = list(then_avals), list(else_avals)
    for j, (a, b, ka, kb) in enumerate(zip(then_avals, else_avals, then_kinds, else_kinds)):
        if a.shape or b.shape or not ka or not kb or join(a, b) is not None \
                or {a.dtype.kind, b.dtype.kind} not in ({"i", "f"}, {"u", "f"}, {"b", "f"}):
            continue
        held = np.result_type(*(x.dtype for x in (a, b) if x.dtype.kind == "f"))
        then_out[j] = else_out[j] = Aval((), np.promote_types(held, np.float64) if a.weak or b.weak else
                                         np.promote_types(a.dtype, b.dtype))
    return then_out, else_out


def _same_static(a, b) -> bool:
    """Whether two branch outputs are one Python number, not traced (bits too: -0.0, NaN)."""
    return (type(a) is type(b) and type(a) in (bool, int, float, complex)
            and (a is b or repr(a) == repr(b)))


# -- loops ----------------------------------------------------------------------------------------
def _carry_mismatch(fun_name: str):
    def describe(path, a, b):
        if a.shape != b.shape:  # no cast helps: the loop runs only unrolled (LoopCarryShapeError)
            return (f"{path} is {a} going into {fun_name} but {b} coming out; a compiled loop "
                    "keeps each variable's shape, so one whose shape changes each step "
                    "(np.kron, np.concatenate, np.append) needs the loop unrolled: give it a "
                    "static bound of at most 64 steps (static_argnums), or give the variable its "
                    "final shape before the loop and write each step's part into it")
        return (f"{path} is {a} going into {fun_name} but {b} coming out; a loop carry "
                "keeps its shape and dtype (cast it, e.g. with .astype, or start from a value of "
                "the type the body gives)")
    describe.loop = True
    return describe


def _trace_body(trace: Trace, api: str, fun_name: str, init_leaves, tree, extra_types, call,
                python_types: bool = False, again=lambda: False):
    """Trace a loop body until its carries' types settle. ``call(block, carry_tree)`` runs the
    body in ``block`` (whose first args are ``extra_types``: a loop index), returning the carry
    it gives and anything else; a weak init leaf takes the dtype the body gives it, which needs
    one more trace with that carry. A carry whose kind the body changes (``best = 10.0`` before,
    ``best = min(best, x[i])`` in it) carries its tag too (``type_choice``): block args after
    the carries', which also needs one more trace. Returns the block, the final avals, the
    body's carry leaves and the rest of what ``call`` returned, and the ``_LoopTags``.
    ``again()``: whether the body must be traced once more for another reason (a generator
    went live in it: ``calltime.body_again``)."""
    where = user_location()
    paths = pytree.leaf_paths(tree, "carry")
    avals = [aval_of(leaf, api, path) for leaf, path in zip(init_leaves, paths)]
    among = [type_choice.kinds(leaf) if python_types else () for leaf in init_leaves]
    sources = _sources(init_leaves)
    for _ in range(4 * len(avals) + 4):  # each retrace widens a leaf's dtype or its kinds
        n_tags = sum(len(k) > 1 for k in among)
        block = Block([*extra_types, *(a.ir_type for a in avals), *[_TAG_AVAL.ir_type] * n_tags])
        with trace.region(block, loop=True):  # values made in it are read only in it
            first = len(extra_types)
            carry = _carry_tracers(trace, block.args[first:first + len(avals)], avals, sources, init_leaves)
            tags = [Tracer(arg, trace, sources) for arg in block.args[first + len(avals):]]
            carry = _marked(carry, tags, among)
            out, rest = call(block, pytree.unflatten(tree, carry))
            out_leaves, out_tree = pytree.flatten(out)
            _check_tree(api, f"the carry that {fun_name} returns", tree, out_tree, where)
            out_avals = [aval_of(leaf, api, f"{p} returned by {fun_name}")
                         for leaf, p in zip(out_leaves, paths)]
            out_among = [type_choice.merge(k, type_choice.kinds(leaf)) if python_types else ()
                         for k, leaf in zip(among, out_leaves)]
            settled = out_among == among
            out_tags = _tags(trace, out_leaves, among) if settled else []
            for leaf, a, k in zip(out_leaves, avals, among):
                if settled and len(k) > 1:  # (an int64 past 2**53 held in the float: refused)
                    type_choice.check_held_exactly(leaf, a.dtype)
            fixed = [_fixed_kind(leaf, k) for leaf, k in zip(out_leaves, among) if len(k) > 1]
        joined = _join_leaves(api, paths, avals, out_avals, _carry_mismatch(fun_name), where)
        # a Python number the body makes a NumPy one (b = a after a = x[i]) is one from the
        # next step on: traced again, so what reads it promotes as NumPy's scalar does
        if settled and [(j.dtype, j.weak) for j in joined] == [(a.dtype, a.weak) for a in avals] \
                and not again():
            tag_args = block.args[len(extra_types) + len(avals):]
            return block, joined, out_leaves, rest, _LoopTags(among, out_tags, fixed, tag_args)
        _discard(block)
        avals, among = joined, out_among
    raise JitTypeError(f"{api}: the carry's dtypes did not settle, at {where}")  # not reached


def _fixed_kind(leaf, among: tuple) -> int | None:
    """The place in ``among`` of the one kind a body's carry leaf has, else None (it has a tag)."""
    kind = type_choice.kind_of(leaf)
    if getattr(leaf, "type_choice", None) is not None or kind not in among:  # (not settled yet)
        return None
    return among.index(kind)


def _read(value, depth: int = 8) -> bool:
    """Whether anything reads ``value``: an op that is not pure, or one whose results are read.
    (Chosen-kind arithmetic asks a tag which combination ran even where every combination
    computed the same number: those pure ops feed nothing.)"""
    if depth == 0:
        return True
    return any(not op.has_trait(PURE) or op.regions or any(_read(r, depth - 1) for r in op.results)
               for op, _ in value.uses)


@dataclass
class _LoopTags:
    """A loop's tags (``type_choice``): per carry leaf its kinds, and the body's tags (in the
    body's block) of those of several kinds, which follow the carries in the loop op."""

    among: list
    out: list
    # per tag: the kind the body always gives (s += x[i] makes s an np.float64), else None
    fixed: list
    args: list  # the body's tag arguments

    def known_after(self, results: list[Tracer], init_tags: list[Tracer], ran) -> list[Tracer]:
        """The loop's tag results, those that the body sets to one kind and never reads
        computed from ``ran`` (the loop ran at least once) instead: their carries are then
        unused and go (``canonicalize``), and the loop (``s = 0; s += x[i]``) vectorizes as
        before."""
        return [prims.where(ran, prims.constant(ran.owner_trace, fixed, type_choice.TAG), init)
                if fixed is not None and not _read(arg) else result
                for result, init, fixed, arg in zip(results, init_tags, self.fixed, self.args)]

    @property
    def avals(self) -> list[Aval]:
        return [_TAG_AVAL] * len(self.out)

    def init(self, trace: Trace, init_leaves, avals) -> list[Tracer]:
        for leaf, a, k in zip(init_leaves, avals, self.among):
            if len(k) > 1:  # (an int64 past 2**53 held in the carry's float: refused)
                type_choice.check_held_exactly(leaf, a.dtype)
        return _tags(trace, init_leaves, self.among)

    def carry(self, trace: Trace, args, tracers: list[Tracer]) -> list[Tracer]:
        """``tracers`` (a block's carries) with its tag args (``args``) attached."""
        return _marked(tracers, [Tracer(a, trace) for a in args], self.among)

    def results(self, results: list[Tracer], n: int, tags=None) -> list[Tracer]:
        """The loop op's carry results, the first ``n``, with its tag results (or ``tags``)
        attached."""
        return _marked(results[:n], results[n:n + len(self.out)] if tags is None else tags, self.among)


def while_loop(cond_fun, body_fun, init_val, *, python_types: bool = False):
    """``val = init_val; while cond_fun(val): val = body_fun(val)``, as an ``scf.while``.
    ``python_types``: a carry keeps the type Python gives it (``type_choice``), as ``cond``'s."""
    trace = _find_trace(init_val)
    if trace is None:
        return _eager_while(cond_fun, body_fun, init_val)
    init_leaves, tree = pytree.flatten(init_val)
    body, avals, out_leaves, _, tags = _trace_body(
        trace, "jc.while_loop", "body_fun", init_leaves, tree, (),
        lambda block, carry: (body_fun(carry), None), python_types)
    all_avals = [*avals, *tags.avals]
    cond_block = Block([a.ir_type for a in all_avals])
    with trace.region(cond_block, loop=True):
        carry = _carry_tracers(trace, cond_block.args, avals, _sources(init_leaves), init_leaves)
        carry = tags.carry(trace, cond_block.args[len(avals):], carry)
        p = _predicate(trace, cond_fun(pytree.unflatten(tree, carry)), "jc.while_loop",
                       "what cond_fun returns")
        trace.builder.create(scf.ConditionOp, [p.value])
    _yield(trace, body, [*out_leaves, *tags.out], all_avals)
    inits = _to_tracers(trace, init_leaves, avals) + tags.init(trace, init_leaves, avals)
    op = trace.builder.create(scf.WhileOp, [t.value for t in inits], [a.ir_type for a in all_avals],
                              regions=[Region([cond_block]), Region([body])])
    scalars = [_is_scalar(a) and _is_scalar(b) for a, b in zip(init_leaves, out_leaves)]
    sources = _sources(init_leaves) | _sources(out_leaves) | p.sources
    results = _results(trace, op, all_avals, sources, scalars + [True] * len(tags.out))
    return pytree.unflatten(tree, tags.results(results, len(avals)))


def _bound(trace: Trace, value, api: str, what: str) -> Tracer:
    """A loop bound as a 0-d int64 tracer; it must be an integer scalar."""
    _check_scalar(value, "iu", api, what)
    return prims.as_tracer(trace, value if isinstance(value, Tracer) else int(value), INDEX)


def fori_loop(lower, upper, body_fun, init_val, *, step=1, python_types: bool = False):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper, step)``, as an ``scf.for``
    whatever the bounds (Python ints or traced integers): never unrolled. ``i`` is a traced
    int64 scalar that indexes arrays. (``step`` is jitcore's addition to JAX's signature.)"""
    trace = _find_trace(lower, upper, step, init_val)
    if trace is None:
        return _eager_fori(lower, upper, step, body_fun, init_val)
    lb, ub, st = (_bound(trace, v, "jc.fori_loop", w) for v, w in
                  ((lower, "lower"), (upper, "upper"), (step, "step")))
    if not isinstance(step, Tracer) and int(step) == 0:
        raise JitTypeError(f"jc.fori_loop: step is 0, at {user_location()}")
    init_leaves, tree = pytree.flatten(init_val)
    index_sources = lb.sources | ub.sources | st.sources

    # A static trip count lets random draws in the body be made for every step before the call.
    steps = None if any(isinstance(v, Tracer) for v in (lower, upper, step)) else \
        range(int(lower), int(upper), int(step))

    loop_key = object()  # one per loop, for each trace of its body
    traced_bounds = tuple(v for v in (lower, upper, step) if isinstance(v, Tracer))

    def call(block, carry):
        index = Tracer(block.args[0], trace, index_sources)
        index.index_form = index_forms.loop_index(steps) if steps is not None else None
        with calltime.static_loop(trace, block, index, steps, loop_key, traced_bounds):
            return body_fun(index, carry), None

    body, avals, out_leaves, _, tags = _trace_body(trace, "jc.fori_loop", "body_fun", init_leaves, tree,
                                                   (TensorType((), ir_type(INDEX)),), call, python_types,
                                                   again=lambda: calltime.body_again(loop_key))
    all_avals = [*avals, *tags.avals]
    _yield(trace, body, [*out_leaves, *tags.out], all_avals)
    init_tags = tags.init(trace, init_leaves, avals)
    inits = _to_tracers(trace, init_leaves, avals) + init_tags
    op = trace.builder.create(scf.ForOp, [lb.value, ub.value, st.value, *(t.value for t in inits)],
                              [a.ir_type for a in all_avals], regions=[Region([body])])
    scalars = [_is_scalar(a) and _is_scalar(b) for a, b in zip(init_leaves, out_leaves)]
    sources = _sources(init_leaves) | _sources(out_leaves) | index_sources
    results = _results(trace, op, all_avals, sources, scalars + [True] * len(tags.out))
    final_tags = None
    if any(f is not None for f in tags.fixed):
        ran = prims.where(prims.ufunc(np.greater, st, 0), prims.ufunc(np.less, lb, ub),
                          prims.ufunc(np.greater, lb, ub))
        final_tags = tags.known_after(results[len(avals):], init_tags, ran)
    return pytree.unflatten(tree, tags.results(results, len(avals), final_tags))


def _scan_length(api: str, xs_leaves, xs_paths, length) -> int:
    lengths = set()
    for leaf, path in zip(xs_leaves, xs_paths):
        shape = leaf.shape if isinstance(leaf, (Tracer, np.ndarray, np.generic)) else np.shape(leaf)
        if not shape:
            raise JitTypeError(f"{api}: {path} is a scalar; each leaf of xs needs a leading axis "
                               f"to scan over, at {user_location()}")
        lengths.add(shape[0])
    if length is not None:
        if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or length < 0:
            raise JitTypeError(f"jc.scan: length must be a Python int >= 0, got {length!r}, at "
                               f"{user_location()}")
        lengths.add(int(length))
    if len(lengths) > 1:
        raise JitTypeError(f"{api}: the leading axes of xs (and length) differ: "
                           f"{sorted(lengths)}, at {user_location()}")
    if not lengths:
        raise JitTypeError(f"{api}: with no xs, length must be given, at {user_location()}")
    return lengths.pop()


def _split_step(api: str, out, where: str):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise JitTypeError(f"{api}: f must return a pair (carry, y), got {type(out).__name__}, "
                           f"at {where}")
    return out


def scan(f, init, xs=None, length=None, *, reverse=False):
    """``carry, y = f(carry, x)`` for each row ``x`` of ``xs`` (``length`` steps, x None without
    xs); returns ``(carry, ys)``, the ys stacked along a new leading axis. An ``scf.for``
    carrying the user's carry and the ys, whose row ``i`` each step writes. ``reverse``: the
    rows from the last to the first, each y still in its row (as JAX's)."""
    api = "jc.scan"
    xs_leaves, xs_tree = pytree.flatten(xs)
    xs_paths = pytree.leaf_paths(xs_tree, "xs")
    n = _scan_length(api, xs_leaves, xs_paths, length)
    trace = _find_trace(init, xs)
    if trace is None:
        return _eager_scan(f, init, xs_leaves, xs_tree, n, reverse)
    where = user_location()
    xs_leaves = [leaf if isinstance(leaf, Tracer) else prims.as_tracer(trace, leaf, np.asarray(leaf).dtype)
                 for leaf in xs_leaves]
    init_leaves, tree = pytree.flatten(init)

    def call(block, carry):
        i = Tracer(block.args[0], trace)
        if reverse:
            i = prims.ufunc(np.subtract, n - 1, i)
        x = pytree.unflatten(xs_tree, [leaf[i] for leaf in xs_leaves])
        new, y = _split_step(api, f(carry, x), where)
        return new, (i, y)

    body, avals, out_leaves, (i, y), tags = _trace_body(trace, api, "f", init_leaves, tree,
                                                        (TensorType((), ir_type(INDEX)),), call)
    with trace.region(body):
        y_leaves, y_tree = pytree.flatten(y)
        y_avals = [aval_of(leaf, api, p) for leaf, p in zip(y_leaves, pytree.leaf_paths(y_tree, "y"))]
        stacked = [Aval((n, *a.shape), a.dtype) for a in y_avals]
        rows = []
        for leaf, a, s in zip(y_leaves, y_avals, stacked):
            buffer = Tracer(body.add_arg(s.ir_type), trace)
            rows.append(buffer.at[i].set(prims.as_tracer(trace, leaf, a.dtype)))
    all_avals = [*avals, *tags.avals]  # (the ys' buffers are block args after the tags)
    _yield(trace, body, [*out_leaves, *tags.out, *rows], [*all_avals, *stacked])
    inits = _to_tracers(trace, init_leaves, avals) + tags.init(trace, init_leaves, avals)
    zeros = [prims.broadcast_to(prims.constant(trace, 0, s.dtype), s.shape) for s in stacked]
    bounds = [prims.constant(trace, v, INDEX) for v in (0, n, 1)]
    op = trace.builder.create(scf.ForOp, [t.value for t in (*bounds, *inits, *zeros)],
                              [a.ir_type for a in (*all_avals, *stacked)], regions=[Region([body])])
    scalars = [_is_scalar(a) and _is_scalar(b) for a, b in zip(init_leaves, out_leaves)]
    sources = _sources(init_leaves) | _sources(out_leaves) | _sources(xs_leaves) | _sources(y_leaves)
    results = _results(trace, op, [*all_avals, *stacked], sources,
                       scalars + [True] * len(tags.out) + [False] * len(stacked))
    carry = pytree.unflatten(tree, tags.results(results, len(avals)))
    return carry, pytree.unflatten(y_tree, results[len(all_avals):])


# -- outside jit: the same meaning in Python --------------------------------------------------------
class _EagerCarry:
    """Checks, step by step, that an eager loop's carry keeps its structure, shapes and dtypes."""

    def __init__(self, api: str, fun_name: str, init):
        self.api, self.fun_name = api, fun_name
        leaves, self.tree = pytree.flatten(init)
        self.paths = pytree.leaf_paths(self.tree, "carry")
        self.avals = [aval_of(leaf, api, p) for leaf, p in zip(leaves, self.paths)]

    def check(self, out) -> None:
        where = user_location()
        leaves, tree = pytree.flatten(out)
        _check_tree(self.api, f"the carry that {self.fun_name} returns", self.tree, tree, where)
        out_avals = [aval_of(leaf, self.api, p) for leaf, p in zip(leaves, self.paths)]
        self.avals = _join_leaves(self.api, self.paths, self.avals, out_avals,
                                  _carry_mismatch(self.fun_name), where)


def _eager_while(cond_fun, body_fun, init_val):
    val = _copy_arrays(init_val)
    carry = _EagerCarry("jc.while_loop", "body_fun", val)
    while _concrete_predicate(cond_fun(val), "jc.while_loop", "what cond_fun returns"):
        val = body_fun(val)
        carry.check(val)
    return val


def _eager_fori(lower, upper, step, body_fun, init_val):
    bounds = []
    for value, what in ((lower, "lower"), (upper, "upper"), (step, "step")):
        _check_scalar(value, "iu", "jc.fori_loop", what)
        bounds.append(int(value))
    if bounds[2] == 0:
        raise JitTypeError(f"jc.fori_loop: step is 0, at {user_location()}")
    val = _copy_arrays(init_val)
    carry = _EagerCarry("jc.fori_loop", "body_fun", val)
    for i in range(*bounds):
        val = body_fun(INDEX.type(i), val)
        carry.check(val)
    return val


def _eager_scan(f, init, xs_leaves, xs_tree, n: int, reverse: bool):
    where = user_location()
    xs_leaves = [np.asarray(leaf) for leaf in xs_leaves]
    val = _copy_arrays(init)
    carry = _EagerCarry("jc.scan", "f", val)
    rows, y_tree = [], None
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        val, y = _split_step("jc.scan", f(val, pytree.unflatten(xs_tree, [x[i] for x in xs_leaves])), where)
        carry.check(val)
        leaves, tree = pytree.flatten(y)
        if y_tree is not None:
            _check_tree("jc.scan", "the y that f returns", y_tree, tree, where)
        y_tree = tree
        rows.append([np.asarray(leaf) for leaf in leaves])
    if not n:  # no step: one call on zeros tells the shapes of y
        x0 = [np.zeros(x.shape[1:], x.dtype) for x in xs_leaves]
        _, y = _split_step("jc.scan", f(_copy_arrays(init), pytree.unflatten(xs_tree, x0)), where)
        leaves, y_tree = pytree.flatten(y)
        return val, pytree.unflatten(y_tree, [np.zeros((0, *np.shape(leaf)), np.asarray(leaf).dtype)
                                              for leaf in leaves])
    for k in range(len(rows[0])):
        shapes = {(r[k].shape, r[k].dtype) for r in rows}
        if len(shapes) > 1:
            raise JitTypeError(f"jc.scan: y leaf {k} changes shape or dtype between steps, at {where}")
    if reverse:
        rows.reverse()
    return val, pytree.unflatten(y_tree, [np.stack([r[k] for r in rows]) for k in range(len(rows[0]))])


raise_state.conditional = cond  # (raise_state's checks under a traced condition)
