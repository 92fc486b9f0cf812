"""The expressions converted code calls: ``and``/``or``/``not`` and chained comparisons
(logical ops on traced booleans, Python's short circuit on concrete values), ``x if c else y``,
subscript writes that turn a NumPy array traced, subscript reads of a NumPy array at a traced
index, and the builtins that need a traced form:
``int``/``float``/``bool`` (casts), ``range`` with traced bounds, ``zip``/``enumerate`` over
traced arrays (indexed sequences a loop can run over), ``max``/``min`` of traced scalars (also
from a generator), ``any``/``all`` of traced truth values.
"""

from __future__ import annotations

import operator

import numpy as np

from jitcore import (
    calltime,
    compaction,
    failures,
    index_forms,
    number_or_array,
    pytree,
    real_or_complex,
    traced_text,
    type_choice,
)
from jitcore import control_flow as cf
from jitcore.autograph import appending, tables
from jitcore.autograph.aliasing import chosen, guarded
from jitcore.autograph.arrays import ARRAY_CALLS, traced_copy
from jitcore.autograph.float_errors import FLOAT_ERROR_CALLS
from jitcore.autograph.indexed import Indexed
from jitcore.autograph.math_calls import MATH_CALLS
from jitcore.autograph.sequence_items import item_at, set_item_at
from jitcore.chosen_dtype import ChosenDtype
from jitcore.data_length import KeptList, ListSelection, Positions
from jitcore.errors import JitcoreError, JitTypeError, JitValueError, UnsupportedError
from jitcore.indexing import is_traced_int
from jitcore.masked import MaskedSelection, RangedSelection
from jitcore.numpy import index_concatenation
from jitcore.numpy.orthogonal_series import BASIS_CALLS
from jitcore.numpy.power_series import SERIES_CALLS
from jitcore.primitives import as_tracer, complex_from_parts, constant, find_trace
from jitcore.python_arithmetic import check_int_of, python_bool
from jitcore.python_arithmetic import python_number as _python_number
from jitcore.real_or_complex import RealOrComplex
from jitcore.tracer import (
    Tracer,
    as_scalar,
    current_trace,
    fresh,
    make_view,
    needs_static,
    user_frame,
    user_location,
)


def traced(x) -> bool:
    return first_tracer(x) is not None


def first_tracer(x) -> Tracer | None:
    """The first traced value ``x`` holds, a slice's bounds included (``dp[w[i]:]``)."""
    for leaf in pytree.flatten(x)[0]:
        if isinstance(leaf, slice):
            leaf = first_tracer((leaf.start, leaf.stop, leaf.step))
        if isinstance(leaf, Tracer):
            return leaf
    return None


def where(line) -> str:
    """The user's file and ``line``: where a statement being converted sits."""
    frame = user_frame()
    filename = frame.f_code.co_filename if frame is not None else "<unknown>"
    return f"{filename}:{line}"


# -- expressions -------------------------------------------------------------------------------
# Python's ``a and b`` is ``b`` if ``a`` is true, else ``a``; on a traced single value that is a
# select, not logical_and (``(s > 0) and s * 2`` is ``s * 2``, not ``True``). On a traced array of
# several values NumPy raises ValueError ("truth value ... ambiguous"), and so does jitcore.
def _one_truth_value(x: Tracer, what: str) -> Tracer:
    if x.size != 1:
        raise JitValueError(f"{what} of a traced array of shape {x.shape}: its truth value is "
                            f"ambiguous, as in NumPy; use .any() or .all() (at {user_location()})")
    return x


def _select(test: Tracer, if_true, if_false):
    """``if_true if test else if_false`` on a traced single ``test``: logical_and/or where both
    are booleans (the same values), a select otherwise."""
    if all(getattr(v, "dtype", None) == np.bool_ or isinstance(v, (bool, np.bool_))
           for v in (test, if_true, if_false)):
        out = (np.logical_and(test, if_true) if if_false is test
               else np.logical_or(test, if_false))
        if all(python_number(v) for v in (test, if_true, if_false)):  # Python bools: a Python bool
            out = fresh(out, True, True)
    elif python_number(if_true) and python_number(if_false):  # a and b of Python numbers: the
        out = fresh(np.where(test, if_true, if_false), True, True)  # operand itself, a Python one
    else:
        out = np.where(test, if_true, if_false)[()]  # [()]: a scalar, as Python's operand is
    # x[0] > 0 or x[1]: np.True_ or an np.float64, as the data chooses (type_choice.py)
    return type_choice.choose(out, test, if_true, if_false) if isinstance(out, Tracer) else out


_REGION_WRITE = "a region cannot change a value defined outside it"  # (tracer.Tracer.rebind)


def _only_if(test: Tracer, thunk, made=None):
    """``thunk()`` evaluated only when the traced ``test`` holds (an ``scf.if``; zeros of its
    types otherwise), as Python's short circuit evaluates it: ``i < n and x[i] > 0`` must not
    read ``x[n]`` (an index out of range raises IndexError after the call). ``made``: a list
    that gets the object ``thunk`` returned."""
    made = [] if made is None else made

    def then():
        try:
            made.append(thunk())
            if real_or_complex.spots(made[0]):  # (eig's: its two sides and the choice)
                return real_or_complex.carried_form(made[0])
        except JitTypeError as e:
            if _REGION_WRITE not in str(e):
                raise
            write = str(e).split(": " + _REGION_WRITE)[0]
            raise JitTypeError(
                f"the right operand of 'and'/'or' at {user_location()} writes an array from outside "
                f"it ({write}): outside an if's test, a traced 'and'/'or' is a branch "
                "that gives its right operand's value and cannot carry such a write. Write the test "
                "as if statements, whose branches carry writes: in a while loop, 'while a: if not "
                "f(i): break' for 'while a and f(i)'; for a value, 'v = a' then 'if v: v = f(i)'"
            ) from e
        return made[0]

    def otherwise():
        leaves, tree = pytree.flatten(real_or_complex.carried_form(made[0]))
        zeros = [fresh(constant(leaf.owner_trace, np.zeros(leaf.shape, leaf.dtype)), leaf.scalar, leaf.weak)
                 if isinstance(leaf, Tracer) else leaf for leaf in leaves]
        return pytree.unflatten(tree, zeros)

    return real_or_complex.restored(cf.cond(test, then, otherwise, python_types=True))


def and_(*thunks):
    value = thunks[0]()
    for thunk in thunks[1:]:
        if isinstance(value, Tracer):
            _one_truth_value(value, "'and'")
            value = _select(value, _only_if(value, thunk), value)
        elif not value:
            return value
        else:
            value = thunk()
    return value


def or_(*thunks):
    value = thunks[0]()
    for thunk in thunks[1:]:
        if isinstance(value, Tracer):
            _one_truth_value(value, "'or'")
            value = _select(value, value, _only_if(np.logical_not(value), thunk))
        elif value:
            return value
        else:
            value = thunk()
    return value


def not_(x):
    """Python's ``not``: a Python bool (a weak one when ``x`` is traced), whatever ``x`` is."""
    if not isinstance(x, Tracer):
        return not x
    return fresh(np.logical_not(_one_truth_value(x, "'not'")), True, True)


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


_RICH = frozenset(("==", "!=", "<", "<=", ">", ">="))


def compare(left, *pairs, rich=None):
    """``a < b < c``: each operand evaluated once, in order, stopping at a concrete False;
    ``rich(op, a, b)`` the comparisons ``runtime`` converts (``operators.rich``)."""
    a = left()
    value = True
    for op, right in pairs:
        b = right()
        if op in ("in", "not in") and isinstance(a, traced_text.TracedText) and isinstance(b, str):
            raise traced_text.refused("'in' (s in 'text')")  # (str's own 'in' reads a's characters)
        this = rich(op, a, b) if rich is not None and op in _RICH else _COMPARE[op](a, b)
        value = this if value is True else and_(lambda: value, lambda: this)  # noqa: B023
        if not isinstance(value, Tracer) and not value:
            return value
        a = b
    return value


def if_exp(test, then, orelse):
    if not isinstance(test, Tracer):
        return then() if test else orelse()
    if test.refines is not None:  # x[i - w:i] if i >= w else nan: i's narrower bounds in each arm
        x, holds, fails = test.refines
        then, orelse = index_forms.refining(then, x, holds), index_forms.refining(orelse, x, fails)
    test = _one_truth_value(test, "the test of 'x if test else y'")
    # Each side only where Python would evaluate it: 'x[i] if i < n else 0' never reads x[n].
    made_a, made_b, texts = [], [], {}
    then, orelse = _text_aside(then, 0, texts), _text_aside(orelse, 1, texts)
    a, b = _arm(test, then, made_a), _arm(np.logical_not(test), orelse, made_b)
    if len(texts) == 2:  # "+" if d >= 0 else "-": the text picked at each call, by its number
        index = np.where(test, a, np.add(b, len(texts[0])))
        return traced_text.choice(test.owner_trace, index, texts[0] + texts[1])
    if texts:
        other = type(made_b[0] if 0 in texts else made_a[0]).__name__
        raise needs_static(JitTypeError(
            f"'x if test else y' at {user_location()} gives a str on one side and a {other} on "
            "the other, and its test is traced: which one it is depends on the data. Give both "
            "sides text (f\"{v:.2f}\" if ok else 'n/a'), or both numbers"), test)
    return _joined(test, a, b, made_a[0], made_b[0])


def _text_aside(thunk, side: int, texts: dict):
    """``thunk``, which sets the texts it can give aside in ``texts[side]`` (one, or a traced
    choice's: "***" if p < .001 else "**" if ...) and gives the traced branch the number of
    the one it gives in their place. Text formatted from a value computed in the branch is
    refused: that value exists only inside the branch."""
    def run():
        value = thunk()
        if not isinstance(value, str):
            return value
        index, options = traced_text.numbered(value, current_trace(),
                                              "one side of 'x if test else y' whose test is traced")
        texts[side] = options
        return index

    return run


# What a side of 'x if test else y' raises while traced that NumPy or Python raise only where
# the side is evaluated: an error of data it would meet at run time, or one that says so.
_DATA_ERRORS = (ValueError, IndexError, ArithmeticError)
_BOTH_SIDES = ("both sides of 'x if test else y' whose test is traced are traced, for every "
               "call, so this side raised although the test may never pick it")


def _arm(test, thunk, made):
    """One side of a traced 'x if test else y', traced whatever ``test`` will be: an error its
    trace raises, which NumPy raises only where Python evaluates that side, says so and what to
    write instead (an if statement, whose branch that raises is checked at run time)."""
    try:
        return _only_if(test, thunk, made)
    except JitcoreError as e:
        message = str(e.args[0]) if e.args else ""
        if (isinstance(e, _DATA_ERRORS) or "NumPy raises the same" in message) and _BOTH_SIDES not in message:
            message = message.replace("NumPy raises the same", "NumPy raises the same where it evaluates it")
            e.args = (f"{message.rstrip('.')}. Under jit, {_BOTH_SIDES}: write it as an if statement "
                      "(if test: v = x, else: v = y), which evaluates only the branch taken",
                      *e.args[1:])
        raise


def _joined(test, a, b, made_a, made_b):
    """The side ``test`` picks of ``a`` and ``b``; tuples and lists of one length side by side
    (``lo, hi = (p, q) if p < q else (q, p)``)."""
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        parts = [_joined(test, x, y, mx, my) for x, y, mx, my in zip(a, b, made_a, made_b)]
        return type(a)(*parts) if hasattr(a, "_fields") else type(a)(parts)
    if (a is None) != (b is None):
        raise needs_static(JitTypeError(
            f"'x if test else y' at {user_location()} gives None on one side and a value on the "
            "other, and its test is traced: which one it is depends on the data, which a compiled "
            "function cannot return. Give both sides values (np.nan, -1, an empty result)"), test)
    if a is None:
        return None
    if isinstance(a, str) and isinstance(b, str):  # "+" if d >= 0 else "-": picked at each call
        return traced_text.choice(test.owner_trace, test, a, b)
    if isinstance(a, RealOrComplex) or isinstance(b, RealOrComplex):
        return real_or_complex.picked(test, a, b)  # (each side's dtype, as Python picks it)
    mixed = _one_form(test, a, b)
    try:
        out = np.where(test, a, b)
    except JitTypeError as e:
        raise needs_static(e, test) from None
    # Python gives one branch itself: a NumPy scalar when both are scalars, not where's 0-d array;
    # an array the caller sees (out = a if inplace else a.copy()) is that array where test holds
    if python_number(a) and python_number(b):  # c + 1 if v > 1 else 0: a Python number
        if python_bool(a) and python_bool(b):  # True if v > 0 else False: a bool, not an int
            out = out.astype(np.bool_)
        return type_choice.choose(fresh(out, True, True), test, a, b)  # 1 if c else 0.5
    if _is_scalar(a) and _is_scalar(b):  # 1 if c else x.mean(): int or np.float64, by the data
        return type_choice.choose(fresh(out, True, out.weak), test, a, b)
    if mixed is not None:
        side = 0 if np.shape(a) else 1
        number = (made_b, made_a)[side]
        python = type(number) if type(number) in (bool, int, float, complex) else \
            float if isinstance(number, Tracer) and number.weak and number.dtype.kind == "f" else None
        return _number_or_array(out, (a, b)[side], (made_a, made_b)[side], mixed, python)
    return chosen(test, made_a, made_b, out)  # (the objects each side gave)


def _number_or_array(out: Tracer, array, made, returned: JitcoreError, python_type) -> Tracer:
    """``out``, ``array`` where the test holds and the number broadcast elsewhere, as a value
    of two forms (``number_or_array``): used where its shape matters, or returned, it refuses.
    Of another dtype than the array's (``ints if t else 0.5``: where promotes), it refuses
    now. Where the array (``made``, as its side gave it) is from outside the choice (an
    argument, a variable's array), Python's value is that array itself: writing it afterwards,
    or through the value, refuses (``aliasing.guarded``)."""
    made_at = user_location()
    if out.dtype != array.dtype:
        raise JitTypeError(
            f"'x if test else y' at {made_at} gives a number on one side and a {array.dtype} "
            f"array on the other, and its test is traced: picked by the data, the array would be "
            f"{out.dtype} (NumPy's where promotes), where Python gives the {array.dtype} "
            f"array itself. Give the number the array's dtype (np.{array.dtype}(0.5)), convert "
            "the array first, or give both sides one shape")
    form = number_or_array.Form((), made_at, returned, python_type)
    if isinstance(made, Tracer) and made.level <= current_trace().depth:  # (not made in its arm)
        roots = [r for r in (made.root(), *(made.also or ())) if r.level <= current_trace().depth]
        out = guarded(out, roots, lambda what: number_or_array.refusal(
            form, f"sharing the array of one side ({what}; Python's value is that array itself)"))
    number_or_array.mark(out, form)
    return out


def _one_form(test, a, b) -> JitcoreError | None:
    """Refuse sides that Python would give as different values where a traced pick cannot: of
    two shapes (``np.where`` would broadcast one to the other: ``[2.] if t else [1., 1.]``
    gave ``[2., 2.]``), lists or tuples of two lengths, or arrays of two dtypes (``where``
    would promote). Scalars of two kinds are picked by the data (``type_choice.choose``). A
    number against an array is refused where a scalar argument decides it (made static);
    elsewhere the number stands broadcast, as arithmetic on it gives the same values, and the
    error is given back, raised if that value is returned (``compiler.trace_to_block``)."""
    sequences = [isinstance(side, (tuple, list)) for side in (a, b)]
    if any(sequences):
        lengths = [len(side) if is_seq else None for side, is_seq in zip((a, b), sequences)]
        if lengths[0] != lengths[1] or type(a) is not type(b):
            raise needs_static(JitValueError(
                f"'x if test else y' at {user_location()} gives {_described(a)} on one side and "
                f"{_described(b)} on the other, and its test is traced: which one it is depends "
                "on the data, but a compiled function's values have one shape each. Give both "
                "sides one length, or decide outside the jitted function"), test)
        return
    shapes = [np.shape(side) for side in (a, b)]
    if shapes[0] != shapes[1]:
        error = needs_static(JitValueError(
            f"'x if test else y' at {user_location()} gives shape {shapes[0]} on one side "
            f"and {shapes[1]} on the other, and its test is traced: which one it is depends "
            "on the data, but a compiled function's values have one shape each. Give both "
            "sides one shape (x[1:] if t else x[:-1] * 2), or decide outside the jitted "
            "function"), test)
        if () not in shapes or _static_would_decide(test):
            raise error
        # (a number on one side, an array on the other, picked by data or a loop's counter:
        # 'beta * w if j > 0 else 0.0' is used in arithmetic, where the broadcast number is
        # the number; the error stands for the value returned)
        return error
    dtypes = [getattr(side, "dtype", None) for side in (a, b)]  # (dtype == None: float64's)
    if shapes[0] != () and all(d is not None for d in dtypes) and dtypes[0] != dtypes[1]:
        raise needs_static(JitTypeError(
            f"'x if test else y' at {user_location()} gives {dtypes[0]} arrays on one side and "
            f"{dtypes[1]} on the other, and its test is traced: which one it is depends on the "
            "data, but a compiled function's arrays have one dtype each. Convert one side "
            f"(y.astype(np.{dtypes[0]})), or decide outside the jitted function"), test)


def _static_would_decide(test) -> bool:
    """Whether ``test`` comes only from scalar arguments, which static on demand makes static."""
    sources = test.sources
    return bool(sources) and sources <= test.owner_trace.scalar_arguments


def _described(side) -> str:
    if isinstance(side, (tuple, list)):
        return f"a {type(side).__name__} of {len(side)}"
    return f"a value of shape {np.shape(side)}"


def python_number(x) -> bool:
    """A Python number, or a traced one that is 0-d (``python_arithmetic.python_number``)."""
    return _python_number(x) and not (isinstance(x, Tracer) and x.ndim)


def _is_scalar(x) -> bool:
    return x.scalar if isinstance(x, Tracer) else not isinstance(x, np.ndarray) and np.ndim(x) == 0


def setitem(base, key, value):
    if type(base) is list and is_traced_int(key) and key.index_form is None:
        set_item_at(base, key, value)  # free[k] = b: a short list of numbers, item by item
        return base
    base = _writable(base, key, value)
    base[key] = failures.held_back(base, key, value)
    return base


def nested_setitem(base, key, inner_key, value):
    """``base[key][inner_key] = value`` (``A[i][j]`` of a matrix, ``d["a"][1]`` of a dict of
    arrays): a NumPy ``base`` given a traced value or index becomes a traced copy, whose part
    (a view) is written through; a container's part is written as ``setitem`` writes it, then
    put back."""
    base = _writable(base, (key, inner_key), value)
    part = getitem(base, key)
    if isinstance(base, Tracer):
        part[inner_key] = value
        return base
    written = setitem(part, inner_key, value)
    if isinstance(base, tuple):  # acc[0][:] = x: the tuple rebuilt around the traced array
        return base if written is part else _replaced(base, key, written)
    base[key] = written
    return base


def view_setitem(base, method: str, args, kwargs, key, value, op=None):
    """``base.ravel()[key] = value`` (``op``: ``base.ravel()[key] op= value``), ``method`` a
    view method (``transform._VIEW_METHODS``) of a local array: NumPy writes ``base`` through
    the view the method returns, so a NumPy ``base`` written at a traced index or with a traced
    value becomes a traced copy first, as ``base[key] = value`` does (NumPy's own indexing
    cannot take a traced index), and the copy is written through its view. The copy keeps
    NumPy's layout (``local_arrays._fortran``), so where NumPy's method copies (``ravel`` of
    a Fortran-order array) the traced one does too, and ``base`` is unchanged, as in NumPy."""
    base = _writable(base, key, value)
    view = getattr(base, method)(*args, **kwargs)
    view[key] = value if op is None else op(view[key], value)
    return base


def _replaced(items: tuple, key, value) -> tuple:
    """``items`` with the element at ``key`` (an int) replaced, of ``items``' own type (a
    namedtuple's too)."""
    new = list(items)
    new[operator.index(key)] = value
    return type(items)._make(new) if hasattr(type(items), "_make") else tuple(new)


def getitem(base, key):
    """``base[key]``; a NumPy array read at a traced index whose result NumPy would copy (an
    advanced index, ``lut[idx]``, ``perm[[k, p]]``, or one element) is read as a traced
    constant, since NumPy's own indexing would ask for the index's data. A view of such an
    array at a traced index (``A[i]`` of a matrix) is left to NumPy, which refuses it: a traced
    copy would not see later writes to the array."""
    if isinstance(base, Tracer):  # (v[:] of x if t else 2.0: NumPy's number has no items)
        number_or_array.read(base, "indexing it")
    if isinstance(base, _CONCATENATORS) and (traced(key) or index_concatenation.holds_selection(key)):
        return index_concatenation.concatenate_by_index(base, key)  # np.r_[x, 0], np.c_[x, y]
    if isinstance(base, np.ndarray) and traced(key):
        tracer = first_tracer(key)
        if not _copied_by_numpy(base, key):  # a view in NumPy (DIRS[m], a row of a table)
            seen = calltime.hidden_array(tracer.owner_trace, base)
            if seen is not None:  # a global's or a cell's array: a view of its call-time input
                return seen[key]
            table = constant(tracer.owner_trace, base)  # made while compiling: read, not written
            if isinstance(table[key], MaskedSelection):
                return table[key]  # dp[w[i]:]: a ranged selection, no view to write through
            return make_view(table, lambda b: b[key], _read_only_table)
        return constant(tracer.owner_trace, base)[key]
    if isinstance(base, (tuple, list)) and is_traced_int(key):  # dx[d], lams[int(np.argmin(s))]
        return item_at(base, key)
    if type(base) in (list, tuple, dict):  # DH[0], PARAMS["K"]: an outside array is an input
        return calltime.read_input(base[key])
    return base[key]


def _read_only_table(base, value):
    raise UnsupportedError(
        f"a row of a NumPy array made while compiling, read at a traced position, is written (at "
        f"{user_location()}): the array is a constant of the compiled code, which its writes "
        "cannot change. Make the array with jitcore.numpy (jnp.array(...)) or pass it in")


_CONCATENATORS = (type(np.r_), type(np.c_))  # NumPy's index-syntax concatenation


def _copied_by_numpy(base: np.ndarray, key) -> bool:
    keys = key if isinstance(key, tuple) else (key,)
    entries = [k for k in keys if k is not Ellipsis and k is not None and not isinstance(k, slice)]
    if any(isinstance(k, list) or getattr(k, "ndim", 0) > 0 for k in entries):
        return True  # an advanced index
    return len(entries) == len(keys) == base.ndim  # one element


def aug_setitem(base, key, op, value):
    """``base[key] op= value`` (``op``: the in-place operator, ``operators.inplace`` as
    ``runtime`` binds it). A NumPy array held in a list or dict (``d["W"] -= g``) and
    updated with a traced value becomes a traced copy, put back in its place, as ``base[key] =
    base[key] - value`` would put it: NumPy's in-place operator cannot take a traced value."""
    if type(base) is list and is_traced_int(key) and key.index_form is None:
        set_item_at(base, key, op(item_at(base, key), value))  # counts[int(v) % 4] += 1
        return base
    base = _writable(base, key, value)
    if isinstance(base, (list, dict)) and not traced(key):
        base[key] = op(_writable(base[key], (), value), value)
        return base
    base[key] = op(base[key], value)
    return base


def nested_aug_setitem(base, key, inner_key, op, value):
    """``base[key][inner_key] op= value`` (``acc[1][i] += v``, ``d["W"][0] -= g``): the part
    read, updated and written back by ``nested_setitem``."""
    current = getitem(getitem(base, key), inner_key)
    return nested_setitem(base, key, inner_key, op(current, value))


def fill(base, value):
    """``base.fill(value)`` of a local name: a NumPy array filled with a traced value becomes a
    traced copy (as ``base[...] = value`` makes it), returned to be bound to the name."""
    base = _writable(base, (), value)
    base.fill(value)
    return base


def aug_assign(base, op, value):
    """``name op= value``, in place where Python's is (an array), so other names of the array
    see it; a NumPy array that owns its memory, updated with a traced value, is updated as a
    traced copy instead; so is a NumPy view no other name's array is under (a view that the
    array's name still holds, ``row = out[i]; row += x``, is refused saying to write ``out[i]
    += x``: its copy would not carry the write to the array it views)."""
    if isinstance(base, np.ndarray) and base.base is not None and not traced(value):
        return op(base, value)
    return op(_writable(base, (), value), value)


def _writable(base, key, value):
    """A NumPy array written at a traced index or with a traced value becomes a traced copy;
    one the caller sees (a default argument's array, a global's under a local name) becomes its
    call-time input, so that the write reaches it as NumPy's does."""
    if isinstance(base, np.ndarray) and (traced(key) or traced(value)):
        tracer = first_tracer((key, value))
        seen = calltime.written_array(tracer.owner_trace, base, create=True)
        return traced_copy(base, tracer.owner_trace) if seen is None else seen
    return base


# -- builtins ---------------------------------------------------------------------------------------
def _int(x=0, *rest):
    if isinstance(x, Tracer) and not rest:
        return _cast(x, np.int64, "int")
    return int(x, *rest)


def _float(x=0.0):
    return _cast(x, np.float64, "float") if isinstance(x, Tracer) else float(x)


def _complex(real=0, imag=None):
    """``complex(x)`` / ``complex(re, im)`` of traced numbers: a weak complex128 scalar; two real
    parts joined exactly (``re + im * 1j`` would make NaN of an infinite part)."""
    if not isinstance(real, Tracer) and not isinstance(imag, Tracer):
        return complex(real) if imag is None else complex(real, imag)
    if imag is None:
        return _cast(real, np.complex128, "complex")
    trace = find_trace(real, imag)
    re, im = (v if isinstance(v, Tracer) else constant(trace, np.asarray(v)) for v in (real, imag))
    if im.dtype.kind == "c":  # Python reads it by __complex__ or __float__ by its type
        raise UnsupportedError(f"complex(re, im) with a traced complex im (at {user_location()}): "
                               "write re + im * 1j")
    im = _cast(im, np.float64, "complex")
    if re.dtype.kind == "c":  # CPython's complex_new: re's imaginary part added to im
        re = _cast(re, np.complex128, "complex")
        re, im = np.real(re), np.imag(re) + im
    re = _cast(re, np.float64, "complex")
    return fresh(complex_from_parts(re, im), scalar=True, weak=True)


def _bool(x=False):
    return _cast(x, np.bool_, "bool") if isinstance(x, Tracer) else bool(x)


def _cast(x: Tracer, dtype, name: str):
    if x.size != 1:
        # NumPy: bool() of such an array is a ValueError ("ambiguous"), int()/float() a TypeError
        if name == "bool":
            _one_truth_value(x, "bool()")
        raise JitTypeError(f"{name}() of a traced array of shape {x.shape}: only a single value "
                           f"converts to a Python {name} (at {user_location()})")
    if dtype is np.int64:
        if x.dtype.kind == "c":
            raise JitTypeError(f"int() argument must be a string, a bytes-like object or a real "
                               f"number, not 'complex' (at {user_location()})")
        check_int_of(x.reshape(()))
    # a Python number: a scalar that promotes weakly (NEP 50), so float32 x + int(n) stays float32
    return fresh(x.reshape(()).astype(dtype), scalar=True, weak=True)


class TracedRange:
    """``range(...)`` with a traced bound: only a ``for`` loop can use it."""

    def __init__(self, *args, capacity: int | None = None):
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        self.start, self.stop, self.step = start, stop, step
        # the most steps it can take where that is known while tracing (the rows of a list the
        # data filled, which a loop over its items counts): a body appending to lists then
        # fills a buffer of that many rows (``statements._appending_traced_range``)
        self.capacity = capacity

    def _only_in_for(self, *args):
        raise needs_static(UnsupportedError(
            f"range() with a traced bound, at {user_location()}, can only be the iterable of a for "
            "loop (for i in range(n)); its length and elements are not known while tracing"),
            self.start, self.stop, self.step)

    __iter__ = __len__ = __reversed__ = __getitem__ = __contains__ = _only_in_for


def _range(*args):
    if any(isinstance(a, Tracer) for a in args):
        return TracedRange(*args)
    return range(*args)


def _ndindex(*shape):
    """``np.ndindex(n, m)``: its index tuples as an ``Indexed`` of ``n * m`` items, so a long loop
    over it is one compiled loop (the tuple computed from the loop's count by ``//`` and ``%``,
    Python ints) rather than unrolled, one copy of the body per index."""
    dims = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple) else shape
    if any(isinstance(d, Tracer) for d in dims):
        return np.ndindex(*shape)  # (its error: a shape needs its values)
    dims = tuple(operator.index(d) for d in dims)

    def item(k):
        if not isinstance(k, Tracer):
            return tuple(int(v) for v in np.unravel_index(k, dims)) if dims else ()
        out = []
        for d in reversed(dims):
            out.append(fresh(k % d, True, True))
            k = k // d
        return tuple(reversed(out))

    return Indexed(int(np.prod(dims)), item)


def _indexable(x) -> bool:
    if isinstance(x, (range, Indexed)):
        return True
    return isinstance(x, (Tracer, np.ndarray)) and x.ndim > 0


def _element(x, i):
    if isinstance(x, range):
        return x.start + i * x.step
    if isinstance(x, np.ndarray) and isinstance(i, Tracer):
        x = as_tracer(i.owner_trace, x, x.dtype)
    return x[i]


def _zip(*args, **kwargs):
    if kwargs or not args or not any(isinstance(a, (Tracer, Indexed)) for a in args) \
            or not all(_indexable(a) for a in args):
        return zip(*args, **kwargs)
    return Indexed(min(len(a) for a in args), lambda i: tuple(_element(a, i) for a in args))


# Selections whose length the data chooses that a for loop iterates (``for i in
# np.flatnonzero(m)``, ``for v in x[x > 0]``, ``for (i, j) in np.argwhere(a)``). A ranged slice
# (``x[:i]``) asks for its bound instead; ``a[:, m]`` would iterate along another axis.
_ITERATED_SELECTIONS = (MaskedSelection, Positions, ListSelection)


class EnumeratedSelection:
    """``enumerate(s)`` of such a selection: only a for loop can use it."""

    def __init__(self, selection: MaskedSelection, start):
        self.selection, self.start = selection, start


def iterates_selection(iterable) -> bool:
    return type(iterable) in _ITERATED_SELECTIONS or isinstance(iterable, (EnumeratedSelection, KeptList))


def selection_loop(iterable) -> tuple[TracedRange, object]:
    """The range and the items of a for loop over a selection: its kept rows compacted to the
    front of a buffer, as a returned one is (``compaction``), then a loop over the first
    ``count`` of them, reading row ``i`` at step ``i``."""
    if isinstance(iterable, KeptList):  # (a list the data filled: its items as appended)
        rows, count = iterable.iterated()
        return TracedRange(count, capacity=rows.shape[0]), Indexed(0, lambda i: iterable.item_of(rows[i]))
    numbered = isinstance(iterable, EnumeratedSelection)
    rows, count = compaction.compaction(iterable.selection if numbered else iterable)
    if not numbered:
        return TracedRange(count), rows
    start = iterable.start
    return TracedRange(count), Indexed(0, lambda i: (fresh(start + i, True, True), rows[i]))


def _reversed(seq):
    """``reversed``; of a list the data filled (``KeptList``), its kept items last first, which a
    for loop iterates (``for r in reversed(rewards): G = r + gamma * G``)."""
    if isinstance(seq, KeptList):
        return seq.reversed()
    return reversed(seq)


def _enumerate(x, start=0):
    if type(x) in _ITERATED_SELECTIONS:
        return EnumeratedSelection(x, start)
    if appending.appended_in_loop(x):  # (for k, j in enumerate(keep), keep growing: a for loop's)
        return appending.Enumerated(x, start)
    if type(x) in (list, tuple) and type(start) is int and current_trace() is not None:
        rows = tables.table(x)
        if rows is not None:  # for k, (y, x) in enumerate(positions): a loop over rows
            return rows.enumerated(start)
    if not isinstance(x, (Tracer, Indexed)) or not _indexable(x):
        return enumerate(x, start)
    def item(i):  # the count is a Python int, as enumerate's (in a compiled loop too)
        count = start + i
        return (fresh(count, True, True) if isinstance(count, Tracer) else count), x[i]

    return Indexed(len(x), item)


def _extreme(builtin, better):
    """``max``/``min`` of values some of which are traced scalars: Python's own rule, a running
    choice that takes a later value only when it compares ``better`` (so ``max(nan, 1)`` is nan
    and ``max(1, nan)`` is 1, as in Python), made with ``np.where``; the result's dtype is the
    values' promotion. Anything else (a ``key=``, ``default=``, arrays of several elements, no
    traced value) is the builtin's business."""
    def fn(*args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], Tracer) and args[0].ndim == 1 \
                and args[0].dtype.kind in "biuf":
            return _extreme_of_items(builtin, args[0])
        if len(args) == 1 and not isinstance(args[0], (list, tuple, Tracer)) and hasattr(args[0], "__iter__"):
            args = (list(args[0]),)  # a generator of traced values: read once, for either path
        values = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        if kwargs or len(values) < 2 or not any(isinstance(v, Tracer) for v in values) or any(
                isinstance(v, Tracer) and v.ndim for v in values):
            return builtin(*args, **kwargs)
        # Python's result is one of the values itself: max(0.0, x.min()) is the float 0.0
        # or an np.float64, as the data chooses (type_choice.py)
        best = values[0]
        for v in values[1:]:
            takes = better(v, best)
            if not isinstance(takes, Tracer):  # two Python numbers: Python's own choice
                best = v if takes else best
                continue
            joined = np.where(takes, v, best)
            if all(python_number(u) for u in (v, best)):  # max(best, int(v)): a Python int
                joined = fresh(joined, True, True)
            else:
                joined = fresh(joined, True, joined.weak)
            best = type_choice.choose(joined, takes, v, best)
        return best

    fn.__name__ = fn.__qualname__ = builtin.__name__
    return fn


def _truth(builtin, stop: bool, combine):
    """``any``/``all`` over values some of which are traced: a concrete value that decides
    (true for ``any``, false for ``all``) stops the loop as in Python; the traced ones, each
    one truth value, combine into a traced bool."""
    def fn(iterable):
        decided = None
        for v in iterable:
            if isinstance(v, Tracer):
                truth = _cast(v, np.bool_, "bool")
                decided = truth if decided is None else combine(decided, truth)
            elif bool(v) is stop:
                return stop
        return builtin(()) if decided is None else fresh(decided, True, True)  # Python's bool

    fn.__name__ = fn.__qualname__ = builtin.__name__
    return fn


def _extreme_of_items(builtin, a: Tracer):
    """``max(x)``/``min(x)`` of a 1-d traced array: Python's running choice over its items, which
    a NaN first makes NaN and a NaN later never enters (``nanmax`` of the rest); a NumPy scalar."""
    if a.shape[0] == 0:
        raise ValueError(f"{builtin.__name__}() arg is an empty sequence")
    if a.dtype.kind != "f":
        return as_scalar((np.max if builtin is max else np.min)(a))
    best = (np.nanmax if builtin is max else np.nanmin)(a)
    return as_scalar(np.where(np.isnan(a[0]), a[0], best))


def _sorted(iterable, /, *, key=None, reverse=False):
    """``sorted`` of numbers some of which are traced scalars, without a ``key``: the numbers
    sorted as one array, each given back as a NumPy scalar, or as a Python number where every
    one is a Python number of one type (``sorted(x.tolist())``) (NaN last, as ``np.sort`` puts
    it, where Python's order around a NaN depends on the input's)."""
    values = list(iterable)
    if key is not None or isinstance(reverse, Tracer) or not any(isinstance(v, Tracer) for v in values) \
            or any(isinstance(v, Tracer) and v.ndim or not isinstance(v, (Tracer, int, float, np.number))
                   for v in values):
        return sorted(values, key=key, reverse=reverse)
    ordered = np.sort(np.stack([v if isinstance(v, Tracer) else np.asarray(v) for v in values]))
    python = all(python_number(v) for v in values) and len({stand_in_type(v) for v in values}) == 1
    items = [fresh(ordered[k], True, True) if python else as_scalar(ordered[k]) for k in range(len(values))]
    return items[::-1] if reverse else items


_PYTHON_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def stand_in_type(x):
    """The type ``x`` would have without jit: a traced array is an ``ndarray``, a traced NumPy
    scalar (``x.sum()``, ``x[0]``) its dtype's scalar type, a traced Python number argument (or
    arithmetic on those) a Python ``int``, ``float``, ``complex`` or ``bool``; else ``type(x)``."""
    if not isinstance(x, Tracer):
        return type(x)
    if x.ndim or not (x.scalar or x.weak):
        return np.ndarray
    if x.weak:
        return _PYTHON_TYPES[x.dtype.kind]
    return x.dtype.type


def _type(x, *rest):
    return type(x, *rest) if rest else stand_in_type(x)


def _isinstance(x, classes, /):
    """``isinstance`` of a traced value as of the value it stands for (``stand_in_type``):
    ``isinstance(x, np.ndarray)`` is True for a traced array, as it is without jit."""
    if not isinstance(x, Tracer):
        return isinstance(x, classes)
    return issubclass(stand_in_type(x), classes)


def _numbers_type(x):
    """The type whose attributes a traced value's ``hasattr``/``getattr`` answer by: a Python
    number's (``float``: no ``dtype``, ``shape``, ``__len__`` nor ``__iter__``) or a NumPy
    scalar's (``np.float64``: a ``dtype``, no ``__iter__``); None for an array, which the tracer
    itself answers for, as ``ndarray`` does."""
    if not isinstance(x, Tracer):
        return None
    t = stand_in_type(x)
    return None if t is np.ndarray else t


def _hasattr(x, name, /):
    """``hasattr`` of a traced value as of the value it stands for: ``hasattr(lr, "dtype")``
    of a float argument is False, as without jit, so "a single value or a list?" tests
    (``if not hasattr(f, "__iter__"): f = [f]``) take Python's branch."""
    t = _numbers_type(x)
    return hasattr(x, name) if t is None else hasattr(t, name)


_NO_DEFAULT = object()


def _getattr(x, name, default=_NO_DEFAULT, /):
    """``getattr`` with ``hasattr``'s answers: an attribute the stood-for number lacks is the
    default, or Python's AttributeError."""
    t = _numbers_type(x)
    if t is not None and isinstance(name, str) and not hasattr(t, name):
        if default is not _NO_DEFAULT:
            return default
        raise AttributeError(f"{t.__name__!r} object has no attribute {name!r}")
    return getattr(x, name) if default is _NO_DEFAULT else getattr(x, name, default)


def _len(x):
    """``len``; of a selection by a traced mask (``len(np.flatnonzero(m))``), its traced count,
    a Python int (``__len__`` cannot return one); of a list appended to under a traced if in a
    compiled loop (``data_length.KeptList``), the count of its kept items."""
    if isinstance(x, MaskedSelection) and not isinstance(x, RangedSelection):
        return x.count()  # a ranged slice's asks for a concrete value (its loop is unrolled)
    if isinstance(x, KeptList):
        return x.length()
    if isinstance(x, ChosenDtype):  # np.array of such a list: its selection's count
        return _len(x.values)
    counted = appending.length_of(x)  # a list an appending loop's body appends to: traced
    return len(x) if counted is None else counted


def _isscalar(element):
    """``np.isscalar`` of a traced value as of the value it stands for: True for a NumPy scalar
    (``x[0]``, ``x.sum()``) and a Python number, False for an array (a 0-d one too)."""
    if not isinstance(element, Tracer):
        return np.isscalar(element)
    return stand_in_type(element) is not np.ndarray


def _pow(base, exp, mod=None):
    """``pow``; with a modulus and a traced value, a clear refusal (Python's exact modular power
    of integers of any size; NumPy's power has no modulus)."""
    if mod is not None and traced((base, exp, mod)):
        raise needs_static(UnsupportedError(
            f"pow(base, exp, mod) of traced values (at {user_location()}): Python's modular power "
            "works on integers of any size, which compiled code holds in int64; write the "
            "squarings as a loop with % mod (exact while mod is below 2**31), or compute it "
            "outside the jitted function"), *[v for v in (base, exp, mod) if isinstance(v, Tracer)])
    return pow(base, exp) if mod is None else pow(base, exp, mod)


BUILTINS = {int: _int, float: _float, bool: _bool, complex: _complex, range: _range, zip: _zip, pow: _pow,
            enumerate: _enumerate, sorted: _sorted, type: _type, isinstance: _isinstance,
            hasattr: _hasattr, getattr: _getattr,
            max: _extreme(max, operator.gt), min: _extreme(min, operator.lt),
            any: _truth(any, True, np.logical_or), all: _truth(all, False, np.logical_and)}

# NumPy calls that must see traced values inside lists (np.array([...]), np.sum([x, y])): their
# traced-aware versions (autograph/arrays.py), kept apart from the builtins above.
BUILTINS.update(ARRAY_CALLS)
BUILTINS[np.ndindex] = _ndindex
BUILTINS[len] = _len  # a selection's traced count, a list the data filled: its count
BUILTINS[reversed] = _reversed
BUILTINS[np.isscalar] = _isscalar
BUILTINS.update(MATH_CALLS)  # math.exp(x) and friends of traced numbers (autograph/math_calls.py)
BUILTINS.update(SERIES_CALLS)  # numpy.polynomial.polynomial's polyval, polyder, polyfit
BUILTINS.update(BASIS_CALLS)  # chebval, legval, hermval, hermeval, lagval
BUILTINS.update(FLOAT_ERROR_CALLS)  # np.errstate: what compiled code honours (autograph/float_errors.py)
