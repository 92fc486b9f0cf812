"""The arrays a traced loop or branch changes in place, shared with the names that see them.

In Python a variable names an array that other names may share: a second name (``b = a``), a
view (``row = grid[0]``, ``v = a[1:]``), the caller's argument. A traced loop or branch gets
its state as values, so a body given a copy of ``a`` would write the copy while ``row`` and
``b``, read in the body or after it, kept the old data. Instead the region carries each such
array's *root* (the tracer that owns the data; views derive from it), and while a body or
branch is traced the root itself holds the region's value: every name and view of it, carried
or only read there, sees the writes, as in Python. After the region the root holds the
region's result if the region wrote it, and the names still hold the same objects.

Which variables are carried this way: those holding one traced array (not a NumPy scalar, which
is immutable) that the region changes only in place (``a[i] = v``, ``a += 1``). A variable the
region binds to another value (``a = a + 1``; the conversion passes these as ``rebinds``) is
carried by value. A body that turns out to rebind one the conversion thought it kept raises
``Rebound``, and the statement is traced again with it carried by value.

Also here: an array from outside written by other means (``v.sort()``, a helper, a global) is
claimed through the tracer's write barrier (``Unheld``: traced again carrying it); a variable
carried by value that held a shared array's memory as a loop starts reads that array in the
first pass (``first_pass_view``); a variable a traced condition binds to the caller's array on
one path is a view of it that writes it there (``chosen``).
"""

from __future__ import annotations

import contextlib
import itertools
import sys
import threading
import types

import numpy as np

from jitcore import primitives as prims
from jitcore import pytree, tracer
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.tracer import Choice, Tracer, current_trace, fresh, make_view, user_location

# Versions given to a root while a region is traced: above any count of writes before, so
# that every view of it, derived before the region, is derived again from the region's value.
_VERSIONS = itertools.count(1 << 40, 1 << 20)


class Unheld(Exception):
    """An array from outside ``region`` (a ``SharedArrays`` being traced) was written there
    other than through a variable it carries (a method, ``np.copyto``, a helper, a global):
    trace the region again carrying ``root`` too."""

    def __init__(self, root: Tracer, region):
        super().__init__()
        self.root, self.region = root, region


_ACTIVE = threading.local()  # .regions: the SharedArrays whose bodies are being traced


def _claim(root: Tracer) -> None:
    """``tracer.OUTER_WRITE``: a write to ``root`` in the body of the innermost converted
    region, which it was not carrying."""
    regions = getattr(_ACTIVE, "regions", None)
    if regions and regions[-1].trace is root.owner_trace and regions[-1].depth == root.owner_trace.depth:
        raise Unheld(root, regions[-1])


tracer.OUTER_WRITE = _claim


class Rebound(Exception):
    """A region bound a variable carried as a shared array to another value: trace it again
    with ``positions`` (indices into the statement's names) carried by value."""

    def __init__(self, positions: set[int]):
        super().__init__(positions)
        self.positions = positions


def _shared_array(value) -> bool:
    return isinstance(value, Tracer) and not value.scalar


def aliased(value, shared: SharedArrays) -> bool:
    """Whether ``value``, a variable's array as a region starts, is seen by other names: a view,
    the caller's array, or an array the region carries as shared."""
    return _shared_array(value) and (value.view_of is not None or value.root().caller_sees
                                     or any(value.root() is r for r in shared.roots))


# While a traced ``if``'s branch runs: id(the copy it was given) -> the variable's array outside
# it, which the copy stands for (a write to the copy is Python's write to that array).
_GIVEN: dict[int, Tracer] = {}


@contextlib.contextmanager
def branch_given(pairs):
    """While a branch is traced, each ``(copy, outer)`` pair's copy stands for ``outer``, so
    that ``held_by`` follows it out of the branch to the names that hold that array."""
    pairs = [(c, o) for c, o in pairs if isinstance(c, Tracer) and c is not o]
    for c, o in pairs:
        _GIVEN[id(c)] = o
    try:
        yield
    finally:
        for c, _ in pairs:
            _GIVEN.pop(id(c), None)


_HOLDER_DEPTH = 3  # containers and attributes looked into, from a variable


def _holding(v, roots, label: str, depth: int = 0) -> str | None:
    """``label`` extended down to the place in ``v`` that holds one of ``roots``' arrays."""
    if isinstance(v, Tracer):
        return label if any(v.root() is r for r in roots) else None
    if depth >= _HOLDER_DEPTH:
        return None
    if isinstance(v, (list, tuple)):
        items = ((f"{label}[{i}]", x) for i, x in enumerate(v[:64]))
    elif isinstance(v, dict):
        items = ((f"{label}[{k!r}]", x) for k, x in itertools.islice(v.items(), 64))
    elif type(v).__module__ not in ("builtins", "numpy") and isinstance(getattr(v, "__dict__", None), dict) \
            and not isinstance(v, (types.ModuleType, types.FunctionType, type)):
        items = ((f"{label}.{k}", x) for k, x in itertools.islice(vars(v).items(), 64))
    else:
        return None
    for sub, x in items:
        found = _holding(x, roots, sub, depth + 1)
        if found is not None:
            return found
    return None


def held_by(value: Tracer, name: str) -> str | None:
    """What else holds ``value``'s array, in words (``"'g'"``, ``"'h.a'"``), or None: a
    variable other than ``name`` of the innermost converted function (or body) running, or any
    variable of the converted functions that called it (the array, a view of it, or in a list,
    tuple, dict or object's attribute), whose view a write in place to ``value`` would reach in
    Python. (None: the function made the array and only ``name`` holds it, so a region that
    writes it on one path and rebinds it on another may join it by value.) A copy a traced
    branch was given stands for the array outside it (``branch_given``); any other array a loop
    or branch region is given (``Tracer.region_input``) counts as held: what it stands for (the
    caller's array, in a loop's first pass) is not known here."""
    roots = [value.root()]
    while id(roots[-1]) in _GIVEN:
        roots.append(_GIVEN[id(roots[-1])].root())
    own = True  # in the function running (its bodies, then it): ``name`` is the variable
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if "__ag__" in code.co_freevars:  # a converted function or one of its bodies
            for var, v in frame.f_locals.items():
                if var.startswith("__ag") or (own and var == name):
                    continue
                found = _holding(v, roots, var)
                if found is not None:
                    return f"'{found}'"
            if not code.co_name.startswith("__agf_"):
                own = False
        frame = frame.f_back
    if roots[-1].region_input:
        return "whatever held the array the loop or branch around it was given"
    return None


def refuse_first_write(name: str, what: str, at: str) -> UnsupportedError:
    """A variable carried by value (the body binds it anew) that holds another array's memory
    as the region starts and is written in place in the body: Python's first iteration writes
    that array, the carried value cannot. ``at``: the statement's place, as the user wrote it."""
    return UnsupportedError(
        f"'{name}' holds another array's memory (a view of it, or the same array) as the {what} "
        f"at {at} starts, is written in place in it and bound to another value there: "
        "the write reaches the other array in Python's first pass and not after, which compiled "
        f"code cannot follow. Copy it first ({name} = {name}.copy()) if the write should not "
        "reach the other array, or write that array itself")


class SharedArrays:
    """The variables of one traced statement that hold arrays it changes in place, and their
    roots. ``held`` maps a variable's position in the statement's names to its object."""

    def __init__(self, names, values, rebinds=(), written=(), rebound=()):
        # ``rebinds``: the conversion's names bound anew; ``rebound``: those a traced body did
        # bind to another object. A name the conversion lists whose array is also another held
        # variable's (``b = a`` before, ``b = b`` or ``b = a`` in the body) is held until a body
        # shows otherwise: carried by value, it would miss that array's writes.
        hinted = {i: v for i, (name, v) in enumerate(zip(names, values))
                  if name not in rebinds and name not in rebound and _shared_array(v)}
        held_roots = [v.root() for v in hinted.values()] + list(written)
        self.held = {i: v for i, (name, v) in enumerate(zip(names, values))
                     if name not in rebound and _shared_array(v)
                     and (i in hinted or any(v.root() is r for r in held_roots))}
        self.roots: list[Tracer] = []
        for root in [v.root() for v in self.held.values()] + list(written):
            if not any(root is r for r in self.roots):
                self.roots.append(root)
        # a key of the carry per root, named after a variable holding it (never a name itself);
        # ``written``: arrays from outside that the region writes otherwise (``Unheld``)
        first = {}
        for i, v in self.held.items():
            first.setdefault(id(v.root()), f"the array of '{names[i]}'")
        self.keys = [first.get(id(r), f"an array written inside ({k})") for k, r in enumerate(self.roots)]
        self.wrote = [False] * len(self.roots)
        self.trace = self.depth = None  # of the body being traced (``enter``)
        self._saved = None

    def __bool__(self) -> bool:
        return bool(self.roots)

    def initial(self) -> dict:
        """The roots' values before the region, as new tracers (the region's operands)."""
        return {key: fresh(r) for key, r in zip(self.keys, self.roots)}

    def enter(self, carried=None) -> None:
        """While a body or branch is traced: each root holds its ``carried`` tracer's value
        (the loop's carry; None: the value it had, for a branch) and may be written."""
        self.trace = current_trace()
        depth = self.depth = self.trace.depth
        regions = _ACTIVE.__dict__.setdefault("regions", [])
        regions.append(self)
        self._saved = [(r._value, r.level, r.version, r.sources) for r in self.roots]
        for k, r in enumerate(self.roots):
            if carried is not None:
                given = carried[self.keys[k]]
                r._value, r.sources = given.value, r.sources | given.sources
            r.level = depth
            r.version = next(_VERSIONS)

    def rebound(self, values) -> set[int]:
        """The positions whose variable the region bound to another object."""
        return {i for i, v in self.held.items() if values[i] is not v}

    def current(self) -> dict:
        """The roots' values now, in the region, as new tracers (what it gives back)."""
        return {key: fresh(r) for key, r in zip(self.keys, self.roots)}

    def leave(self) -> None:
        """The roots as they were before the region; notes which the region wrote."""
        if self._saved is None:
            return
        regions = _ACTIVE.regions
        if regions and regions[-1] is self:
            regions.pop()
        for k, (r, saved) in enumerate(zip(self.roots, self._saved)):
            if r.version % (1 << 20):  # (entered at a multiple; each write adds one)
                self.wrote[k] = True
            r._value, r.level, r.version, r.sources = saved
        self._saved = None

    def finish(self, results: dict) -> None:
        """After the region: a root it wrote holds its result, written as any write is (an
        argument's caller gets it back; a region around this one that does not carry it traces
        again carrying it: ``Unheld``)."""
        for k, r in enumerate(self.roots):
            if self.wrote[k]:
                r.rebind(results[self.keys[k]])


def settled(leaf, shared: SharedArrays | None = None):
    """A carried leaf as its value now, read before the shared roots leave the region: a view,
    or one of those roots itself (``return y`` in a loop, ``out = a`` in a branch, whose value
    after ``leave`` would be the one from before the region)."""
    if isinstance(leaf, Tracer) and (leaf.view_of is not None or (
            shared is not None and any(leaf is r for r in shared.roots))):
        return fresh(leaf, leaf.scalar, leaf.weak)
    return leaf


# -- a variable bound to one of two arrays by a traced condition ------------------------------------
def _path(obj: Tracer):
    """``obj``'s root and the (forward, backward) steps from it down to ``obj``."""
    steps = []
    while obj.view_of is not None:
        base, forward, backward = obj.view_of
        steps.append((forward, backward))
        obj = base
    return obj, steps[::-1]


def _down(root: Tracer, steps) -> Tracer:
    for forward, _ in steps:
        root = forward(root)
    return root


def _up(root: Tracer, steps, new: Tracer) -> Tracer:
    """``root`` with the part that ``steps`` reach replaced by ``new``."""
    bases = [root]
    for forward, _ in steps[:-1]:
        bases.append(forward(bases[-1]))
    for (_, backward), base in zip(reversed(steps), reversed(bases)):
        new = backward(base, new)
    return new


def _array_of(obj, like: Tracer, local: bool = True):
    """``(root, steps)`` of ``obj`` if it is an array of ``like``'s type from outside the choice
    (an argument, a global's array, an array of the function's own, or a view of one, maybe
    made inside the choice), whose writes must reach the other names that hold it; else None."""
    if not isinstance(obj, Tracer) or obj.scalar:
        return None
    root, steps = _path(obj)
    if not (root.caller_sees or local) or root.level > current_trace().depth:
        return None
    try:  # obj itself may be a view made inside the choice's region, derived again here
        part = _down(root, steps)
    except JitTypeError:  # ... from values that exist only in there (x[i], i a loop's index)
        return None
    return (root, steps) if part.shape == like.shape and part.dtype == like.dtype else None


def chosen(pred: Tracer, first, second, selected, local: bool = True, guard: bool = True, given=None):
    """What ``x = first if pred else second`` leaves in ``x`` when one side (or both) is an
    array from outside the choice (an argument, a global's array, an array of the function's
    own, a view of one): one of the objects, as in Python. Jitcore's ``selected`` (the choice's
    value) becomes a view of that array, which reads it where ``pred`` holds and writes it
    there (``out = a if inplace else a.copy(); out *= s`` writes the caller's ``a`` when
    ``inplace``); the other side's value lives in a root of the view's own, or, where it is an
    array from outside too, is read from that array (``_linked_choice``). A side that holds
    such an array's memory in a way the choice cannot follow (a choice made inside a branch,
    by a condition that exists only there) is guarded: a later write to that array refuses
    (``guarded``). ``local``: False where a branch wrote the function's own array in place
    (that write is joined after the ``if``): only the caller's arrays and views are followed.
    ``guard``: False for the function's result as an early return left it, which no later
    write reaches (the writes after a return are skipped on the path that returned).
    ``given``: id(copy) -> (copy, array) for the copies a traced if's branches were given of
    the arrays outside it, which a side's inner choice may hold (guarded as those arrays)."""
    if not isinstance(selected, Tracer) or selected.scalar:
        return selected
    if first is second and isinstance(first, Tracer) and first.level <= current_trace().depth:
        return first
    views, objects = [_host_view(first), _host_view(second)], [first, second]
    sides = [_array_of(first, selected, local), _array_of(second, selected, local)]
    unfollowed = [r for obj, side in zip(objects, sides) if side is None
                  for r in _unfollowed(obj, local, given or {})] if guard else []
    if sides[0] is None and sides[1] is None:
        return guarded(selected, unfollowed, _unfollowed_choice) if unfollowed else selected
    if sides[0] is not None and sides[1] is not None:
        picks = [_caller_array(side, view) for side, view in zip(sides, views)]
        if picks[0] is None and picks[1] is not None:  # the caller's array where ``taken`` holds
            pred, sides, objects, views, picks = np.logical_not(pred), sides[::-1], objects[::-1], \
                views[::-1], picks[::-1]
        arrays = None if all(p is None or p is False for p in picks) or any(p is False for p in picks) \
            else tuple(picks)
        return _linked_choice(selected, pred, *sides, objects, arrays, tuple(views))
    (root, steps), pred_taken, view, obj = (sides[0], pred, views[0], objects[0]) if sides[0] is not None \
        else (sides[1], np.logical_not(pred), views[1], objects[1])
    other = fresh(selected)  # the other side's value, written where pred does not hold
    if unfollowed:
        other = guarded(other, unfollowed, _unfollowed_choice)

    def read(base):
        return prims.where(pred_taken, _down(base, steps), other)

    forward = Choice(read, pred_taken, (root, None) if not steps or view else None, (view, None))
    forward.picked = obj  # (an enclosing traced if carries whether it was picked: ``path_flag``)

    def backward(base, new):
        other.rebind(prims.where(pred_taken, other, new))
        return _up(base, steps, prims.where(pred_taken, new, _down(base, steps)))

    return make_view(root, forward, backward, now=selected, also=other.also or ())


def one_new_array(pred: Tracer, sides, names, out: dict) -> None:
    """Variables that a traced if's branch bound to one array it made (``t = x * 1.0; v = t``):
    Python's names share that object, so after the if a write through one reaches the other.
    ``sides``: per branch (the one traced first, where ``pred`` holds, then the other), the
    objects it left in each variable (by position; ``(tree, leaves)``); ``out``: the if's
    results by name, changed here. Where both branches leave the two variables one object,
    the second is the first's object after the if; where one branch does, the second is a
    view of the first's array where that branch ran and its own value elsewhere (``chosen``).
    Arrays from outside the if that both names hold are the choice's already (``chosen``)."""
    depth = current_trace().depth

    def single(side, i):
        entry = side.get(i)
        if entry is None or len(entry[1]) != 1:
            return None
        leaf = entry[1][0]
        return leaf if isinstance(leaf, Tracer) and not leaf.scalar else None

    positions = sorted(i for i in set(sides[0]) | set(sides[1])  # (the result: no name of Python's)
                       if names[i] in out and not names[i].startswith("__ag"))
    arrays = [i for i in positions if isinstance(out[names[i]], Tracer)  # (a variable holding one)
              and (single(sides[0], i) is not None or single(sides[1], i) is not None)]
    for j in positions:
        leaves, tree = pytree.flatten(out[names[j]])
        trees = [side.get(j, (None, ()))[0] for side in sides]
        for p, leaf in enumerate(leaves):
            objects = [side[j][1][p] if t == tree else None for side, t in zip(sides, trees)]
            for i in (i for i in arrays if i != j and (i < j or j not in arrays)):
                pairs = [(single(side, i), obj) for side, obj in zip(sides, objects)]
                same = [a is not None and a is b for a, b in pairs]
                if not any(s and pair[0].level > depth for s, pair in zip(same, pairs)):
                    if any(_chosen_in_branch(b, a, depth) for a, b in pairs):
                        # (an inner if's choice of it: by a condition that exists only in there)
                        leaves[p] = guarded(leaf, [out[names[i]].root()], _unfollowed_choice)
                        break
                    continue  # (no array made in a branch: the names' arrays from outside are linked)
                if all(same):
                    leaves[p] = out[names[i]]
                else:
                    k = same.index(True)  # the branch that left them one array
                    taken = pred if k == 0 else np.logical_not(pred)
                    leaves[p] = chosen(taken, out[names[i]], pairs[1 - k][1], leaf)
                break
        out[names[j]] = pytree.unflatten(tree, leaves)


def one_array_in_body(values, held) -> frozenset:
    """``(i, j, same)`` for the variables a traced loop's body leaves holding one array (``same``:
    the same object, ``t = x * k; v = t``) or ``j`` a view of ``i``'s array (a choice of it, a
    slice): carried by value, they would be two arrays after the loop. ``held``: the positions
    carried as shared roots (their names share their arrays already)."""
    arrays = [(i, v) for i, v in enumerate(values)
              if i not in held and isinstance(v, Tracer) and not v.scalar]
    found = set()
    for n, (i, a) in enumerate(arrays):
        for j, b in arrays[n + 1:]:
            if b is a:
                found.add((i, j, True))
            elif _one_memory(a, b):  # (the first a view too: guarded alike)
                found.add((j, i, False) if b.view_of is None else (i, j, False))
    return frozenset(found)


def _one_memory(a: Tracer, b: Tracer) -> bool:
    """Whether ``a`` and ``b`` hold memory of one root (as views of it, or choices reading it)."""
    roots_a, roots_b = (a.root(), *(a.also or ())), (b.root(), *(b.also or ()))
    return any(r is s for r in roots_a for s in roots_b)


def one_array_after_loop(linked, before, after, names, at: str) -> tuple:
    """The variables after a traced loop (``after``) where every pass of its body left two of
    them one array (``linked``: ``one_array_in_body``): one object where they were one before
    it too (``before``: whatever the loop ran); else the second guarded, refusing to be read
    after a write to the first's array or written, since which array it holds depends on
    whether the loop ran (and a view's steps on values of the body)."""
    if not linked:
        return after
    after = list(after)
    for i, j, same in sorted(linked):
        first, second = after[i], after[j]
        if not (isinstance(first, Tracer) and isinstance(second, Tracer)):
            continue
        if same and before[i] is before[j]:
            after[j] = first
        else:
            after[j] = guarded(second, [first.root()], lambda what, i=i, j=j: UnsupportedError(
                f"'{names[j]}' holds the array of '{names[i]}' (or a view of it) after the loop at "
                f"{at} on the paths where its body bound them so, and {what} (at "
                f"{user_location()}): the loop carries them as two values, so the write Python's "
                f"shared object sees would be missed. Copy it in the body ({names[j]} = "
                f"{names[i]}.copy()) if it should not see the writes, or write and read one name"))
    return tuple(after)


def _chosen_in_branch(obj, array, depth: int) -> bool:
    """Whether ``obj`` is a view, by a choice NumPy's views cannot make, of ``array``, an array
    made in the branch being joined."""
    return isinstance(obj, Tracer) and isinstance(array, Tracer) and array.level > depth \
        and obj is not array and obj.view_of is not None and obj.root() is array.root() \
        and _host_view(obj) is None


def _caller_array(side, view):
    """A side's array as ``Choice.arrays`` gives it (the caller's array, where it is that
    array or a view NumPy can make of it), None for an array of the function's own, False for
    a part of the caller's array that NumPy's views cannot make."""
    root, steps = side
    if not root.caller_sees:
        return None
    return root if not steps or view is not None else False


def _unfollowed(obj, local: bool, given: dict) -> list[Tracer]:
    """The arrays from outside the choice whose memory ``obj``, a view, holds where
    ``_array_of`` cannot follow it (a view by values that exist only inside the branch that
    made it: an inner choice's condition); a copy the branch was given of one (``given``)
    stands for that array."""
    if not isinstance(obj, Tracer) or obj.scalar or obj.view_of is None:
        return []
    depth = current_trace().depth
    roots = [given.get(id(r), (r, r))[1] if given.get(id(r), (None,))[0] is r else r
             for r in (obj.root(), *(obj.also or ()))]
    return [r.root() for r in roots if (r.root().caller_sees or local) and r.root().level <= depth]


def guarded(value: Tracer, roots: list[Tracer], refusal) -> Tracer:
    """``value``, which holds ``roots``' memory on some paths in a way jitcore cannot follow,
    as a view that refuses to be read after a write to one of them, or written: Python's
    object would see the write, jitcore's value cannot. ``refusal(what)``: the error."""
    seen = [r.version for r in roots]

    def read(base):
        if any(r.version != v for r, v in zip(roots, seen)):
            raise refusal("one of those arrays was written after the choice")
        return base

    def backward(base, new):
        raise refusal("it is written in place")

    return make_view(fresh(value), read, backward, also=roots, now=value)


def _unfollowed_choice(what: str) -> UnsupportedError:
    return UnsupportedError(
        f"a variable used at {user_location()} holds one of several arrays (or views of them), "
        "chosen by nested traced conditions (a if p else b if q else c, or an if inside an if's "
        f"branch), and {what}: compiled code cannot follow which array it is, so it would miss "
        "the write Python's object sees. Copy the chosen array first "
        "(v = (a if p else b).copy()) if the write should not reach it, or choose with one "
        "condition at a time (v = a if p else b, then w = v if q else c)")


def inner_pick(value):
    """The array (an argument, or a view of one NumPy can make) that ``value``, a variable a
    traced ``if`` in the branch being traced left, holds where that inner ``if`` picked it;
    else None. The enclosing ``if`` then carries out whether it was picked (``path_flag``)."""
    if not isinstance(value, Tracer) or value.view_of is None:
        return None
    choice = value.view_of[1]
    if not isinstance(choice, Choice) or choice.arrays is None or choice.picked is None:
        return None
    return choice.picked if choice.taken.level == current_trace().depth else None


def path_flag(value, picked) -> Tracer:
    """Whether the branch being traced leaves ``value`` holding ``picked`` (its inner ``if``'s
    condition, True where it is ``picked`` itself, else False): a result of the enclosing
    ``if``, which then is a choice of ``picked`` by it (``chosen``)."""
    if isinstance(value, Tracer) and value.view_of is not None and isinstance(value.view_of[1], Choice) \
            and value.view_of[1].picked is picked and value.view_of[1].arrays is not None:
        flag = value.view_of[1].taken
    else:
        flag = np.bool_(value is picked)
    return fresh(prims.as_tracer(current_trace(), flag, np.dtype(np.bool_)))


def _host_view(obj):
    """The NumPy view of its root that ``obj`` is (``x[1:]``, ``x.T``, ``x.reshape(...)``): a
    function of the root's array, each view's stride model (``Tracer.view_model``) replayed on
    it; None for the root itself, or where a step has no model (a traced key, a choice)."""
    if not isinstance(obj, Tracer) or obj.view_of is None:
        return None
    models = []
    while obj.view_of is not None:
        if obj.view_model is None:
            return None
        models.append(obj.view_model)
        obj = obj.view_of[0]
    return NumpyView(tuple(reversed(models)))


class NumpyView:
    """Makes the NumPy view of an array that a traced view is (``_host_view``), on the host."""

    __slots__ = ("models",)

    def __init__(self, models: tuple):
        self.models = models

    def __call__(self, array: np.ndarray) -> np.ndarray:
        out = array
        for model in self.models:
            out = model(out)
        return out.view() if out is array else out  # (a view is an object of its own)


def _linked_choice(selected, pred: Tracer, first, second, objects, arrays, views):
    """``selected``, the choice's value, as a view of both arrays from outside, ``first`` and
    ``second`` (each ``(root, steps)``; ``objects``: the two sides as the user's code made
    them): read from the first where ``pred`` holds, from the second elsewhere, derived again
    after a write to either (``Tracer.also``); a write through it writes the array it is on
    each path, as Python's write to the object chosen does."""
    (root_a, steps_a), (root_b, steps_b) = first, second

    def read(base):
        return prims.where(pred, _down(base, steps_a), _down(root_b, steps_b))

    def backward(base, new):
        root_b.rebind(_up(root_b, steps_b, prims.where(pred, _down(root_b, steps_b), new)))
        return _up(base, steps_a, prims.where(pred, new, _down(base, steps_a)))

    # the roots each side reads (a side may itself be a choice between arrays: a if p else b
    # if q else c); make_view keeps each once, the view's own root left out
    also = [r for obj in objects for r in (obj.root(), *(obj.also or ()))]
    return make_view(root_a, Choice(read, pred, arrays, views), backward, also=also, now=selected)


def first_pass_view(entry: Tracer, carried: Tracer, first: Tracer, name: str, what: str, at: str) -> Tracer:
    """A loop variable carried by value that held ``entry``'s memory (a shared array's, or a
    view of it) as the loop started: in the first pass it reads that array as the body has
    written it so far (a view of its root, read where it is used), after it the carried value.
    A write through it is refused (``refuse_first_write``)."""
    root, steps = _path(entry)

    def forward(base):
        return prims.where(first, _down(base, steps), carried)

    def backward(base, new):
        raise refuse_first_write(name, what, at)

    return make_view(root, forward, backward)
