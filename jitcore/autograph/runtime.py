"""The helpers converted code calls (as ``__ag__.<name>``). Each looks at the values: on concrete
ones it does exactly what the original Python did; on traced ones it builds the control flow
with ``jitcore.control_flow`` (``cond``, ``while_loop``, ``fori_loop``), the statement's
state as the operands or the loop's carry.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from jitcore import pytree
from jitcore.autograph.convert import converted
from jitcore.autograph.lowering import RETVAL
from jitcore.errors import JitTypeError, UnsupportedError
from jitcore.primitives import as_tracer
from jitcore.tracer import Tracer, fresh

# A static ``range`` longer than this becomes a loop in the IR rather than being unrolled.
UNROLL_LIMIT = 64
slice = builtins.slice  # noqa: A001  (converted code builds subscript keys with it)


class Undefined:
    """The value of a variable that has none yet (Python would raise UnboundLocalError)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"

    def _unbound(self, *args):
        raise UnboundLocalError(f"local variable '{self.name}' referenced before assignment")

    __bool__ = __len__ = __iter__ = __getitem__ = __call__ = __index__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _unbound
    __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __float__ = __int__ = _unbound

    def __getattr__(self, attr):
        self._unbound()


def state(local_vars: dict, names) -> tuple:
    return tuple(local_vars.get(n, Undefined(n)) for n in names)


def result(local_vars: dict):
    value = local_vars.get(RETVAL)
    return None if isinstance(value, Undefined) else value


def traced(x) -> bool:
    return any(isinstance(leaf, Tracer) for leaf in pytree.flatten(x)[0])


def _where(line) -> str:
    from jitcore.tracer import user_frame
    frame = user_frame()
    filename = frame.f_code.co_filename if frame is not None else "<unknown>"
    return f"{filename}:{line}"


# -- expressions -------------------------------------------------------------------------------
def and_(*thunks):
    value = thunks[0]()
    for thunk in thunks[1:]:
        if isinstance(value, Tracer):
            value = np.logical_and(value, thunk())
        elif not value:
            return value
        else:
            value = thunk()
    return value


def or_(*thunks):
    value = thunks[0]()
    for thunk in thunks[1:]:
        if isinstance(value, Tracer):
            value = np.logical_or(value, thunk())
        elif value:
            return value
        else:
            value = thunk()
    return value


def not_(x):
    return np.logical_not(x) if isinstance(x, Tracer) else not x


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def compare(left, *pairs):
    """``a < b < c``: each operand evaluated once, in order, stopping at a concrete False."""
    a = left()
    value = True
    for op, right in pairs:
        b = right()
        this = _COMPARE[op](a, b)
        value = this if value is True else and_(lambda: value, lambda: this)  # noqa: B023
        if not isinstance(value, Tracer) and not value:
            return value
        a = b
    return value


def if_exp(test, then, orelse):
    if not isinstance(test, Tracer):
        return then() if test else orelse()
    return np.where(test, then(), orelse())


def setitem(base, key, value):
    base = _writable(base, key, value)
    base[key] = value
    return base


_AUG = {"Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul, "Div": operator.itruediv,
        "FloorDiv": operator.ifloordiv, "Mod": operator.imod, "Pow": operator.ipow,
        "MatMult": operator.imatmul, "BitAnd": operator.iand, "BitOr": operator.ior,
        "BitXor": operator.ixor, "LShift": operator.ilshift, "RShift": operator.irshift}


def aug_setitem(base, key, op, value):
    base = _writable(base, key, value)
    base[key] = _AUG[op](base[key], value)
    return base


def _writable(base, key, value):
    """A NumPy array written at a traced index or with a traced value becomes a traced copy."""
    if isinstance(base, np.ndarray) and (traced(key) or traced(value)):
        tracer = next(x for x in pytree.flatten((key, value))[0] if isinstance(x, Tracer))
        return fresh(as_tracer(tracer.trace, base, base.dtype))
    return base


# -- calls ---------------------------------------------------------------------------------------
def _int(x=0, *rest):
    if isinstance(x, Tracer) and not rest:
        return _cast(x, np.int64, "int")
    return int(x, *rest)


def _float(x=0.0):
    return _cast(x, np.float64, "float") if isinstance(x, Tracer) else float(x)


def _bool(x=False):
    return _cast(x, np.bool_, "bool") if isinstance(x, Tracer) else bool(x)


def _cast(x: Tracer, dtype, name: str):
    if x.size != 1:
        raise JitTypeError(f"{name}() of a traced array of shape {x.shape}: only a single value "
                           f"converts to a Python {name} (at {_where('?')})")
    return x.reshape(()).astype(dtype)


class TracedRange:
    """``range(...)`` with a traced bound: only a ``for`` loop can use it."""

    def __init__(self, *args):
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        self.start, self.stop, self.step = start, stop, step

    def __iter__(self):
        raise UnsupportedError("range() with a traced bound can only be the iterable of a for "
                               "loop in a jitted function")


def _range(*args):
    if any(isinstance(a, Tracer) for a in args):
        return TracedRange(*args)
    return range(*args)


_BUILTINS = {int: _int, float: _float, bool: _bool, range: _range}


def call(f):
    """What converted code calls in place of ``f``: the converted user function, a traced-aware
    builtin, or ``f`` itself."""
    try:
        special = _BUILTINS.get(f)
    except TypeError:  # unhashable callable
        special = None
    return special if special is not None else converted(f)


# -- statements ----------------------------------------------------------------------------------
def _control_flow():
    from jitcore import control_flow
    return control_flow


def _refuse_in_try(in_try: bool, what: str, line) -> None:
    if in_try:
        raise UnsupportedError(f"a {what} with a traced condition inside try/except at "
                               f"{_where(line)} cannot be converted: exceptions cannot be caught "
                               "in compiled code; move the try out of the jitted function")


def _carriable(value) -> bool:
    return all(isinstance(leaf, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
               for leaf in pytree.flatten(value)[0])


def _as_array(trace, value):
    """A carried leaf as a tracer: Python numbers stay weakly typed, as JAX's are."""
    def leaf(x):
        if isinstance(x, Tracer):
            return x
        if isinstance(x, (bool, int, float, complex)):
            dtype = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}[type(x)]
            t = as_tracer(trace, x, np.dtype(dtype))
            t.weak = not isinstance(x, bool)
            return t
        return as_tracer(trace, x, np.asarray(x).dtype)
    leaves, tree = pytree.flatten(value)
    return pytree.unflatten(tree, [leaf(x) for x in leaves])


def _find_trace(*values):
    for leaf in pytree.flatten(values)[0]:
        if isinstance(leaf, Tracer):
            return leaf.trace
    return None


def _scalar_pred(pred, what, line):
    if pred.shape != ():
        if pred.size != 1:
            raise JitTypeError(f"the condition of the {what} at {_where(line)} is a traced array "
                               f"of shape {pred.shape}; use .any() or .all() to make one value")
        pred = pred.reshape(())
    return pred if pred.dtype == np.bool_ else pred != 0


def if_stmt(pred, then_fn, else_fn, *, init, names, line, in_try, then_defined, else_defined):
    if not isinstance(pred, Tracer):
        return then_fn(*init) if pred else else_fn(*init)
    _refuse_in_try(in_try, "if", line)
    pred = _scalar_pred(pred, "if", line)
    outs, filled = [], None
    for i, (name, value) in enumerate(zip(names, init)):
        if not isinstance(value, Undefined):
            outs.append(i)
        elif name in then_defined and name in else_defined:
            outs.append(i)
        elif name == RETVAL and (name in then_defined or name in else_defined):
            outs.append(i)
            filled = i
        else:
            raise UnsupportedError(
                f"'{name}' is assigned in only one branch of the if at {_where(line)}, whose "
                "condition is traced, and it is used after the if; give it a value before the if "
                "or in both branches")
    for i in outs:
        if not isinstance(init[i], Undefined) and not _carriable(init[i]):
            raise UnsupportedError(
                f"'{names[i]}' holds a {type(init[i]).__name__}, which cannot change inside the "
                f"if at {_where(line)}: its condition is traced, so only arrays and numbers can "
                "be assigned in its branches")
    trace = pred.trace
    carried = [i for i, v in enumerate(init) if not isinstance(v, Undefined) and _carriable(v)]
    operands = tuple(_as_array(trace, init[i]) for i in carried)
    first_type = {}

    def branch(fn, record: bool):
        def run(*ops):
            full = list(init)
            for i, v in zip(carried, ops):
                full[i] = v
            out = fn(*full)
            values = []
            for i in outs:
                v = out[i]
                if isinstance(v, Undefined):
                    if i != filled or record:
                        raise UnsupportedError(
                            f"'{names[i]}' is not assigned on every path of the if at "
                            f"{_where(line)}, whose condition is traced")
                    v = np.zeros(first_type[i][0], first_type[i][1])
                if not _carriable(v):
                    raise UnsupportedError(
                        f"'{names[i]}' is assigned a {type(v).__name__} in the if at "
                        f"{_where(line)}, whose condition is traced: only arrays and numbers can be")
                v = _as_array(trace, v)
                if record and i == filled:
                    first_type[i] = (v.shape, v.dtype)
                values.append(v)
            return tuple(values)
        return run

    cf = _control_flow()
    if filled is not None and names[filled] not in then_defined:
        results = cf.cond(np.logical_not(pred), branch(else_fn, True), branch(then_fn, False), *operands)
    else:
        results = cf.cond(pred, branch(then_fn, True), branch(else_fn, False), *operands)
    final = list(init)
    for i, v in zip(outs, results):
        final[i] = v
    return tuple(final)


def while_stmt(test_fn, body_fn, *, init, names, line, in_try):
    values = tuple(init)
    pred = test_fn(*values)
    while not isinstance(pred, Tracer):
        if not pred:
            return values
        values = tuple(body_fn(*values))
        pred = test_fn(*values)
    _refuse_in_try(in_try, "while loop", line)
    loop = _Loop(names, values, line, "while loop", pred.trace)

    def cond_fun(carry):
        return _scalar_pred(_as_array(pred.trace, test_fn(*loop.full(carry))), "while loop", line)

    def body_fun(carry):
        return loop.out(body_fn(*loop.full(carry)))

    carry = loop.prepare(lambda full: body_fn(*full))
    return loop.full(_control_flow().while_loop(cond_fun, body_fun, carry))


def for_stmt(iterable, extra_test, body_fn, *, init, names, line, in_try, targets):
    if isinstance(iterable, TracedRange):
        _refuse_in_try(in_try, "for loop", line)
        return _traced_for(iterable.start, iterable.stop, iterable.step, None, extra_test, body_fn,
                           tuple(init), names, line, targets)
    if isinstance(iterable, Tracer) and iterable.ndim and iterable.shape[0] > UNROLL_LIMIT:
        return _traced_for(0, iterable.shape[0], 1, iterable, extra_test, body_fn, tuple(init),
                           names, line, targets)
    values = tuple(init)
    is_range = isinstance(iterable, range)
    iterator = iter(iterable)
    count = 0
    for item in iterator:
        if extra_test is not None:
            go = extra_test(*values)
            if isinstance(go, Tracer):  # a break under a traced condition: guard the rest
                return _guarded_rest(go, item, iterator, extra_test, body_fn, values, names, line)
            if not go:
                return values
        if (is_range and len(iterable) - count > UNROLL_LIMIT and _find_trace(values) is not None
                and all(_carriable(v) or isinstance(v, Undefined) for v in values)):
            rest = iterable[count:]
            return _traced_for(rest.start, rest.stop, rest.step, None, extra_test, body_fn, values,
                               names, line, targets)
        values = tuple(body_fn(item, *values))
        count += 1
    return values


def _guarded_rest(go, item, iterator, extra_test, body_fn, values, names, line):
    """The rest of a Python loop after a traced ``break``: each iteration runs under ``if``."""
    defined = tuple(n for n, v in zip(names, values) if not isinstance(v, Undefined))
    for it in [item, *iterator]:
        go = extra_test(*values)
        if not isinstance(go, Tracer) and not go:
            return values
        values = if_stmt(go, lambda *v, it=it: body_fn(it, *v), lambda *v: v, init=values,
                         names=names, line=line, in_try=False, then_defined=defined,
                         else_defined=defined)
    return values


def _traced_for(start, stop, step, source, extra_test, body_fn, values, names, line, targets):
    trace = _find_trace(start, stop, step, source, values)
    loop = _Loop(names, values, line, "for loop", trace, targets)

    def item(i):
        return source[i] if source is not None else i

    cf = _control_flow()
    if extra_test is None and not isinstance(step, Tracer) and step == 1:
        def body_fun(i, carry):
            return loop.out(body_fn(item(i), *loop.full(carry)))

        carry = loop.prepare(lambda full: body_fn(item(_as_array(trace, start)), *full))
        return loop.full(cf.fori_loop(start, stop, body_fun, carry))
    # A count k = 0, 1, ... of the range's length, and i = start + k * step.
    n = _range_length(trace, start, stop, step, line)
    start_t = _as_array(trace, start).astype(np.int64)
    step_t = _as_array(trace, step).astype(np.int64)

    def cond_fun(both):
        k, carry = both
        go = k < n
        if extra_test is not None:
            go = np.logical_and(go, _as_array(trace, extra_test(*loop.full(carry))))
        return go

    def body_fun(both):
        k, carry = both
        return k + 1, loop.out(body_fn(item(start_t + k * step_t), *loop.full(carry)))

    carry = loop.prepare(lambda full: body_fn(item(start_t), *full))
    zero = _as_array(trace, np.int64(0))
    _, carry = cf.while_loop(cond_fun, body_fun, (zero, carry))
    return loop.full(carry)


def _range_length(trace, start, stop, step, line):
    if not isinstance(step, Tracer) and step == 0:
        raise ValueError("range() arg 3 must not be zero")
    start, stop, step = (_as_array(trace, v).astype(np.int64) for v in (start, stop, step))
    up = (stop - start + step - 1) // step
    down = (start - stop - step - 1) // (-step)
    return np.maximum(np.where(step > 0, up, down), 0)


class _Loop:
    """A traced loop's carry: the state that can be carried, as a dict by name (so carry
    errors name the variable); the rest (Python objects the body does not change) passes
    through unchanged."""

    def __init__(self, names, values, line, what, trace, targets=()):
        self.names, self.values, self.line, self.what = names, values, line, what
        self.trace, self.targets = trace, set(targets)
        self.carried = [i for i, v in enumerate(values) if isinstance(v, Undefined) or _carriable(v)]

    def full(self, carry) -> tuple:
        out = list(self.values)
        for i in self.carried:
            out[i] = carry[self.names[i]]
        return tuple(out)

    def out(self, values) -> dict:
        carry = {}
        for i, (name, v) in enumerate(zip(self.names, values)):
            if i in self.carried:
                if isinstance(v, Undefined):
                    raise UnsupportedError(
                        f"'{name}' has no value at the end of an iteration of the {self.what} at "
                        f"{_where(self.line)}")
                carry[name] = _as_array(self.trace, v)
            elif v is not self.values[i]:
                raise UnsupportedError(
                    f"'{name}' holds a {type(self.values[i]).__name__} and is assigned in the "
                    f"{self.what} at {_where(self.line)}, which runs as a loop in compiled code: "
                    "only arrays and numbers can change in it")
        return carry

    def prepare(self, run_once) -> dict:
        """The initial carry. Where a variable has no value yet, or holds a Python number,
        one speculative run of the body (its ops are unused, so they are removed) gives the
        type the loop carries."""
        need = [i for i in self.carried
                if isinstance(self.values[i], (Undefined, bool, int, float, complex))]
        types = {}
        if need:
            copies = [fresh(v) if isinstance(v, Tracer) else _as_array(self.trace, v)
                      if isinstance(v, (np.ndarray, np.generic)) else v for v in self.values]
            after = run_once(tuple(copies))
            for i in need:
                v = after[i]
                if isinstance(self.values[i], Undefined) and not (
                        self.names[i] == RETVAL or self.names[i] in self.targets):
                    raise UnsupportedError(
                        f"'{self.names[i]}' is first assigned inside the {self.what} at "
                        f"{_where(self.line)}, whose bounds or condition are traced, and is used "
                        "after it or in the next iteration; give it a value before the loop")
                if isinstance(v, Undefined) or not _carriable(v):
                    continue
                v = _as_array(self.trace, v)
                types[i] = (v.shape, v.dtype)
        carry = {}
        for i in self.carried:
            v = self.values[i]
            if i in types:
                shape, dtype = types[i]
                if isinstance(v, Undefined):
                    v = np.zeros(shape, dtype)
                else:
                    v = as_tracer(self.trace, v, dtype)
            elif isinstance(v, Undefined):
                raise UnsupportedError(
                    f"'{self.names[i]}' has no value before the {self.what} at "
                    f"{_where(self.line)} and none after its first iteration")
            carry[self.names[i]] = _as_array(self.trace, v)
        return carry
