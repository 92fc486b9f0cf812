"""The primitives the tracer records: NumPy semantics in, explicit ``array`` ops out.

Each function takes tracers, NumPy arrays (closed over: they become constants) and Python
scalars (weakly typed), lets NumPy decide the result dtype, makes broadcasting and type
conversion explicit, and emits one ``array`` op per primitive.
"""

from __future__ import annotations

import contextvars
import functools
import operator
import threading
import warnings

import numpy as np

from jitcore import calltime, failures, number_or_array, raise_state, view_layout
from jitcore.dtypes import ir_type, refuse_text, resolve_ufunc, scalar_to_dtype
from jitcore.errors import JitAxisError, JitOverflowError, JitTypeError, JitValueError, UnsupportedError
from jitcore.ir.attributes import DenseAttr
from jitcore.ir.dialects import array, kernel
from jitcore.ir.types import TensorType, i1, i64
from jitcore.kind_conversion import check_one_dtype
from jitcore.tracer import (
    Trace,
    Tracer,
    as_scalar,
    current_trace,
    fresh,
    make_view,
    needs_static,
    refuse_traced,
    user_location,
)

UFUNC_KINDS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "div",
    np.floor_divide: "floordiv", np.remainder: "rem", np.power: "pow", np.maximum: "max",
    np.minimum: "min", np.bitwise_and: "and", np.bitwise_or: "or", np.bitwise_xor: "xor",
    np.equal: "eq", np.not_equal: "ne", np.less: "lt", np.less_equal: "le",
    np.greater: "gt", np.greater_equal: "ge", np.negative: "neg", np.absolute: "abs",
    np.sign: "sign", np.sin: "sin", np.cos: "cos", np.tan: "tan", np.tanh: "tanh",
    np.exp: "exp", np.log: "log", np.sqrt: "sqrt", np.floor: "floor", np.ceil: "ceil",
    np.invert: "not", np.positive: None, np.left_shift: "shl", np.right_shift: "shr",
    np.conjugate: "conj",
    **{getattr(np, name): name for name in array.FLOAT_FUNCTIONS if name not in array.SPECIAL_FUNCTIONS},
    **{getattr(np, name): name for name in array.PREDICATES},
    **{getattr(np, name): name for name in array.FLOAT_BINARY},
    np.fmod: "fmod", np.fmax: "fmax", np.fmin: "fmin", np.gcd: "gcd", np.lcm: "lcm",
}
IDENTITY_ON_INTEGERS = frozenset({"floor", "ceil", "trunc"})


def numpy_scalar(fn):
    """``fn``'s 0-d results are NumPy scalars (see ``tracer.as_scalar``): ufuncs, reductions."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        return as_scalar(fn(*args, **kwargs))

    return wrapped


def find_trace(*operands) -> Trace:
    for x in operands:
        if isinstance(x, Tracer):
            return x.owner_trace
    raise JitTypeError("internal error: a primitive was called without a traced operand")


def _sources(*operands) -> frozenset:
    out = frozenset()
    for x in operands:
        if isinstance(x, Tracer):
            out |= x.sources
    return out


# The ops whose index errors the compiled code finds when it runs, raised after the call: a
# ``try`` in the function cannot catch them (``trace.catching``: refused). A singular matrix's
# LinAlgError there is a failure flag instead (``solve``, jitcore/failures.py).
_INDEXED_WHEN_RUN = frozenset((array.GatherOp, array.GatherNdOp, array.ScatterNdOp))



def _emit(trace: Trace, op_cls, operands: list[Tracer], result_type: TensorType, attributes=None,
          sources=None) -> Tracer:
    if trace.catching and op_cls in _INDEXED_WHEN_RUN:
        if op_cls is not array.ScatterNdOp and failures.catches(trace, IndexError):
            operands = _soft_indices(trace, op_cls, operands, attributes)
        else:
            _refuse_caught_index(trace, operands[1:])
    if op_cls in _INDEXED_WHEN_RUN and any(a.version for a in trace.arguments):
        _keep_where_out_of_range(trace, op_cls, operands, attributes)
    form = number_or_array.emitted(op_cls, operands) if trace.number_or_array else None
    op = trace.builder.create(op_cls, [t.value for t in operands], [result_type], attributes)
    out = Tracer(op.result, trace, _sources(*operands) if sources is None else sources)
    if form is not None:
        number_or_array.mark(out, form)
    return out


def _keep_where_out_of_range(trace: Trace, op_cls, operands: list[Tracer], attributes) -> None:
    """Before a gather or scatter whose indices the compiled code checks when it runs: where one
    is out of range (the call raises IndexError), the arguments written so far, as Python
    leaves them (``raise_state``)."""
    if op_cls is array.GatherOp:
        indices, axes = operands[1:2], (attributes["axis"],)
    else:
        indices, axes = operands[2 if op_cls is array.ScatterNdOp else 1:], attributes["axes"]
    from jitcore.passes.effects import proved_positions  # (here: importing the IR loads no passes)

    bad = None
    for index, axis in zip(indices, axes):
        n = operands[0].shape[axis]
        if isinstance(index.value.owner, array.ConstantOp) or proved_positions(index.value, n):
            continue  # (checked while tracing; a window at a clamped start)
        out = np.any(np.logical_or(index < -n, index >= n))
        bad = out if bad is None else np.logical_or(bad, out)
    if bad is not None:
        raise_state.keep(trace, bad)


def _soft_indices(trace: Trace, op_cls, operands: list[Tracer], attributes) -> list[Tracer]:
    """A gather's indices inside a ``try`` that catches ``IndexError``: where one is out of
    range, a failure of the try's (jitcore/failures.py) and the index 0 read instead, so the
    gather cannot raise. (An axis of size 0 has no index to read: refused as before.)"""
    axes = (attributes["axis"],) if op_cls is array.GatherOp else attributes["axes"]
    out = [operands[0]]
    for index, axis in zip(operands[1:], axes):
        n = operands[0].shape[axis]
        if isinstance(index.value.owner, array.ConstantOp):
            out.append(index)  # (checked while tracing)
            continue
        if n == 0:
            _refuse_caught_index(trace, [index])
        bad = np.logical_or(index < -n, index >= n)
        failures.record(trace, np.any(bad), IndexError(failures.DATA_MESSAGE))
        out.append(np.where(bad, np.zeros((), index.dtype), index))
    return out


def _refuse_caught_index(trace: Trace, indices) -> None:
    """Refuse indices that may be out of range when the compiled code runs, inside a ``try`` of
    the function whose ``except`` catches ``IndexError``. (Constant indices were checked while
    tracing; one from a Python int argument is made static on demand, and then is too.)"""
    if all(isinstance(x.value.owner, array.ConstantOp) for x in indices):
        return
    refuse_caught(trace, IndexError, indices, f"an index at {user_location()} may raise IndexError",
                  "Test the condition first (if 0 <= i < len(x): ...)")


def refuse_caught(trace: Trace, error: type, values, what: str, instead: str) -> None:
    """Refuse ``what`` (a check the compiled code makes when it runs, raising ``error``) inside
    a ``try`` of the function whose ``except`` catches ``error``: Python would run the
    handler; the compiled function raises after the call instead."""
    for attempt in reversed(trace.catching):
        line = attempt.line
        if attempt.catches(error):
            raise needs_static(UnsupportedError(
                f"{what} when the compiled function runs, inside the try at line {line} whose "
                "except catches it: compiled code finds such an error only when it runs, and "
                f"raises it after the call, so the except branch cannot run. {instead}, or put "
                "the try around the call of the jitted function"), *values)


def raise_if(bad: Tracer, code: int, words=()) -> None:
    """``array.raise_if``: the call raises the error ``code`` names (``kernel.PYTHON_ERRORS``)
    where the 0-d ``bad`` holds when it runs, its message filled in from ``words`` (up to three
    0-d numbers, ints or a float64's bits: the status words after the code)."""
    trace = bad.owner_trace
    raise_state.keep(trace, convert(bad, np.dtype(np.bool_)))  # the arguments written so far
    words = [w if isinstance(w, Tracer) else constant(trace, np.int64(w)) for w in words]
    words = [bitcast(w, np.dtype(np.int64)) if w.dtype == np.float64 else convert(w, np.dtype(np.int64))
             for w in words]
    _emit(trace, array.RaiseIfOp, [convert(bad, np.dtype(np.bool_)), *words], TensorType((), i1),
          {"code": code})


# ``position_tables.traced_table``, which builds on this module and sets this when it is
# imported (``jitcore/__init__.py``): a size-n table of positions traced as ramps, or None.
table_ramps = None


def constant(trace: Trace, value, dtype=None) -> Tracer:
    """A NumPy array or scalar as an ``array.constant``; one op per closed-over array. A large
    table of positions (``np.arange(n)``, ``np.eye(n)``) is traced as ramps instead
    (``position_tables``, through ``table_ramps``)."""
    key = id(value)
    if dtype is None and type(value) is np.ndarray:
        hidden = calltime.hidden_array(trace, value)  # a global array: read at call time
        if hidden is not None:
            return hidden
    if dtype is None and key in trace.constants:
        cached = trace.constants[key][1]
        # the array may have been written by NumPy since (self.n[...] = self.n + 1): read anew
        if type(value) is not np.ndarray or _same_data(cached, value):
            return cached
    arr = np.asarray(value) if dtype is None else np.asarray(scalar_to_dtype(value, dtype))
    ramps = table_ramps if isinstance(value, np.ndarray) else None
    tracer = None if ramps is None else ramps(trace, arr)
    if tracer is None:
        t = TensorType(arr.shape, ir_type(arr.dtype))
        op = trace.builder.create(array.ConstantOp, [], [t], {"value": DenseAttr(arr, t)})
        tracer = Tracer(op.result, trace)
    if dtype is None and isinstance(value, np.ndarray):
        trace.constants[key] = (value, tracer)  # keep value alive so its id stays unique
    return tracer


def _same_data(cached: Tracer, value: np.ndarray) -> bool:
    """Whether ``cached``, the constant made of ``value`` earlier in the trace, still holds its
    data: a NumPy array made while tracing may be written by NumPy between two reads (a method's
    ``self.n[...] = self.n + 1``; before session 45 the second read got the first's value)."""
    op = getattr(cached._value, "op", None)
    if not isinstance(op, array.ConstantOp):  # a ramp (position_tables) holds no copy: made anew
        return False
    attr = op.attributes.get("value")
    return not isinstance(attr, DenseAttr) or np.array_equal(
        attr.array, value, equal_nan=value.dtype.kind in "fc")


def holds_tracer(obj) -> bool:
    """Is ``obj`` a tracer, or a (nested) list or tuple holding one?"""
    if isinstance(obj, Tracer):
        return True
    return isinstance(obj, (list, tuple)) and any(holds_tracer(v) for v in obj)


def array_operand(x):
    """A Python list or tuple used as an array operand, read as NumPy reads it (``np.asarray``):
    a NumPy array, or a traced one when it holds traced values. Anything else is ``x``."""
    if not isinstance(x, (list, tuple)):
        return x
    return nested_array(x) if holds_tracer(x) else np.asarray(x)


def leaves(obj):
    if isinstance(obj, (list, tuple)):
        for v in obj:
            yield from leaves(v)
    else:
        yield obj


def nested_array(obj, dtype=None) -> Tracer:
    """Nested lists and tuples of tracers, arrays and numbers as one traced array, stacked along
    new leading axes, in the dtype ``np.array`` gives them (a Python float is float64 there, not
    a weak scalar: ``np.array([float32_value, 1.0])`` is float64)."""
    items = list(leaves(obj))
    trace = find_trace(*items)
    if dtype is None:
        dtype = np.result_type(*(v.dtype if isinstance(v, Tracer) else np.asarray(v).dtype
                                 for v in items)) if items else np.dtype(float)
        chosen = tuple(k for v in items for k in (getattr(v, "type_choice", None) or ((), ()))[1])
        if chosen:  # (items whose types the data chose: one dtype for all of them, or refused)
            check_one_dtype(tuple(dict.fromkeys(chosen)), np.dtype(dtype), "np.array", user_location())
    dtype = np.dtype(dtype)
    appended = appended_stack(obj, dtype)
    if appended is not None:
        return appended

    def build(node):
        if not isinstance(node, (list, tuple)):
            return as_tracer(trace, node if isinstance(node, Tracer) else np.asarray(node), dtype)
        parts = [build(v) for v in node]
        if len({p.shape for p in parts}) > 1:
            raise ValueError("setting an array element with a sequence. The requested array has an "
                             f"inhomogeneous shape (at {user_location()})")
        if not parts:
            return constant(trace, np.zeros((0,), dtype))
        return concatenate([reshape(p, (1,) + p.shape) for p in parts], 0)

    return fresh(build(obj))


def appended_pieces(obj) -> list | None:
    """A list (or a copy of one: dispatch may rebuild containers) holding the rows appending
    loops made (``autograph.appending``), as the rows arrays they carried and, between them,
    lists of its other items; None for a list holding no such run of rows, or whose items do
    not all have the rows' shape."""
    trace = current_trace()
    if trace is None or not trace.appended or not isinstance(obj, (list, tuple)):
        return None
    pieces, items, k = [], [], 0
    while k < len(obj):
        entry = trace.appended.get(id(obj[k]))
        if entry is not None:
            rows, made, depth, _ = entry
            then = getattr(made, "items_then", None)  # (rows of lists: each as it was made)
            if trace.depth >= depth and len(made) <= len(obj) - k \
                    and all(a is b for a, b in zip(obj[k:k + len(made)], made)) \
                    and (then is None or all(len(a) == len(b) and all(x is y for x, y in zip(a, b))
                                             for a, b in zip(made, then))):
                if items:
                    pieces.append(items)
                    items = []
                pieces.append(rows)
                k += len(made)
                continue
        items.append(obj[k])
        k += 1
    if items:
        pieces.append(items)
    arrays = [p for p in pieces if isinstance(p, Tracer)]
    if not arrays:
        return None
    shape = arrays[0].shape[1:]
    if any(a.shape[1:] != shape for a in arrays) or any(
            np.shape(v) != shape for p in pieces if isinstance(p, list) for v in p):
        return None
    return pieces


def appended_stack(obj, dtype=None) -> Tracer | None:
    """``np.stack`` of a list appending loops filled (``appended_pieces``), in ``dtype`` (None:
    NumPy's for its items); None for any other list."""
    pieces = appended_pieces(obj)
    if pieces is None:
        return None
    if dtype is None:
        dtype = np.result_type(*(p.dtype for p in pieces if isinstance(p, Tracer)),
                               *(v.dtype if isinstance(v, Tracer) else np.asarray(v).dtype
                                 for p in pieces if isinstance(p, list) for v in p))
    trace = current_trace()
    pieces = [convert(p, dtype) if isinstance(p, Tracer) else
              nested_array(p, dtype) if holds_tracer(p) else constant(trace, np.array(p, dtype))
              for p in pieces]
    return fresh(concatenate(pieces, 0) if len(pieces) > 1 else pieces[0])


def as_tracer(trace: Trace, x, dtype: np.dtype) -> Tracer:
    """``x`` as a tracer of ``dtype``: scalars become constants, tracers are converted."""
    x = array_operand(x)
    if isinstance(x, Tracer):
        return convert(x, dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        return convert(constant(trace, x), dtype)
    if isinstance(x, (bool, int, float, complex)):
        return constant(trace, x, dtype)
    if hasattr(type(x), "_refusal"):  # (x[:k], x[m] in any operand's place (masked.py): its own
        raise x._refusal("an operand of an array function")  # refusal, making k static on demand)
    raise JitTypeError(f"cannot use a {type(x).__name__} as an array operand: {x!r}")


def convert(x: Tracer, dtype: np.dtype) -> Tracer:
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if x.dtype.kind == "c" and dtype.kind not in "cb":
        # NumPy's warning, once per trace (at the user's line) rather than once per call.
        warnings.warn(np.exceptions.ComplexWarning(
            f"Casting complex values to real discards the imaginary part (at {user_location()})"),
            stacklevel=2)
    t = x.value.type.with_element(ir_type(dtype))
    return _emit(x.owner_trace, array.ConvertOp, [x], t)


def bitcast(x: Tracer, dtype: np.dtype) -> Tracer:
    """``x.view(dtype)`` for a dtype of the same size: each element's bits, read as ``dtype``."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    t = x.value.type.with_element(ir_type(dtype))
    return _emit(x.owner_trace, array.BitcastOp, [x], t)


def broadcast_to(x: Tracer, shape: tuple[int, ...]) -> Tracer:
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if len(shape) < x.ndim:
        raise JitValueError(f"cannot broadcast shape {x.shape} to the smaller rank of {shape}")
    dims = tuple(range(len(shape) - x.ndim, len(shape)))
    for d, size in zip(dims, x.shape):
        if size not in (1, shape[d]):
            raise JitValueError(f"cannot broadcast shape {x.shape} to {shape}")
    t = x.value.type.with_shape(shape)
    return _emit(x.owner_trace, array.BroadcastInDimOp, [x], t, {"broadcast_dimensions": dims})


def _shape_of(x) -> tuple[int, ...]:
    return x.shape if isinstance(x, (Tracer, np.ndarray, np.generic)) else ()


def special_function(kind: str, x: Tracer) -> Tracer:
    """``math.erf`` and the others NumPy has no ufunc for (``array.SPECIAL_FUNCTIONS``) of a float
    tracer, in its dtype."""
    return _emit(x.owner_trace, array.UNARY_OPS[kind], [x], x.value.type)


@numpy_scalar
def ufunc(fn: np.ufunc, *operands, scalar_math: bool = False) -> Tracer:
    """Record NumPy ufunc ``fn`` applied to ``operands`` with NumPy's broadcasting and dtypes;
    ``scalar_math``: as NumPy's operators on NumPy scalars compute it (see ``power_operator``)."""
    out = _ufunc(fn, *operands, scalar_math=scalar_math)
    if isinstance(out, Tracer) and out.owner_trace.number_or_array:  # (x if t else 1.0) * y
        number_or_array.elementwise(out, operands)
    return out


def _ufunc(fn: np.ufunc, *operands, scalar_math: bool = False) -> Tracer:
    if fn not in UFUNC_KINDS:
        raise UnsupportedError(f"numpy.{fn.__name__} has no jitcore lowering yet")
    operands = tuple(map(array_operand, operands))
    for x in operands:  # an operand that computes elementwise ops itself (masked.MaskedSelection)
        deferred = getattr(type(x), "__jitcore_ufunc__", None)
        if deferred is not None:
            return deferred(x, fn, operands)
    trace = find_trace(*operands)
    if UFUNC_KINDS[fn] in array.COMPARE:
        decided = _compare_out_of_range(trace, UFUNC_KINDS[fn], *operands)
        if decided is not None:
            return decided
    in_dtypes, out_dtype = resolve_ufunc(fn, operands)
    unfit = [i for i, (x, dt) in enumerate(zip(operands, in_dtypes)) if not int_fits(x, dt)]
    if unfit and UFUNC_KINDS[fn] in array.COMPARE:
        # NumPy 2 compares a Python int with an array it does not fit exactly: as a strong
        # int64 (the array's integers widened, or against uint64 by sign), the answer is exact.
        return ufunc(fn, *(strong(x) if i in unfit else x for i, x in enumerate(operands)))
    if unfit:
        x, dt = operands[unfit[0]], in_dtypes[unfit[0]]
        raise JitOverflowError(int_overflow_message(x, dt))
    try:
        shape = np.broadcast_shapes(*(_shape_of(x) for x in operands))
    except ValueError:
        shapes = " and ".join(str(_shape_of(x)) for x in operands)
        raise JitValueError(f"numpy.{fn.__name__}: shapes {shapes} do not broadcast") from None
    args = [broadcast_to(as_tracer(trace, x, dt), shape) for x, dt in zip(operands, in_dtypes)]
    kind = UFUNC_KINDS[fn]
    if kind == "pow" and in_dtypes[1].kind in "iu" and not isinstance(operands[1], Tracer) \
            and np.any(np.asarray(operands[1]) < 0):
        raise ValueError("Integers to negative integer powers are not allowed.")  # as NumPy
    if kind == "pow" and in_dtypes[1].kind == "i" and isinstance(operands[1], Tracer) and args[1].size:
        _refuse_negative_exponents(args[1])  # NumPy's error for the data, from the call
    if in_dtypes[0].kind == "c" and kind not in array.COMPLEX_KINDS and kind is not None:
        supported = ", ".join(sorted(n.__name__ for n, k in UFUNC_KINDS.items() if k in array.COMPLEX_KINDS))
        raise UnsupportedError(f"numpy.{fn.__name__} of complex numbers has no jitcore lowering yet "
                               f"(for complex numbers: {supported})")
    if kind in array.COMPLEX_ONLY and in_dtypes[0].kind != "c":
        kind = None  # conj of a real number is the number
    if kind in array.COMPARE and in_dtypes[0] != in_dtypes[1]:
        return _mixed_sign_compare(fn, kind, *args)
    if kind is None or (kind in IDENTITY_ON_INTEGERS and args[0].dtype.kind in "iub"):
        # Identity ops (positive, floor of an integer): a new array, as every ufunc returns,
        # so that writing to it in place leaves the operand alone.
        out = convert(args[0], out_dtype)
        return fresh(out, weak=out.weak) if out is operands[0] else out
    if kind in array.UNARY_OPS:
        op_cls = array.UNARY_OPS[kind]
    else:
        op_cls = array.BINARY_OPS.get(kind) or array.COMPARE_OPS[kind]
    if kind == "pow" and out_dtype in (np.float32, np.float64) and not scalar_math:
        out = _real_power(*args, operands[1])
    else:
        # a power of scalars is C's pow(), as NumPy's scalar math and Python's float power:
        # (x[0] - 1) ** 2 is not always (x[0] - 1) * (x[0] - 1), nor the math library's pow
        libm = {"libm": True} if kind == "pow" and scalar_math and out_dtype.kind == "f" else None
        out = _emit(trace, op_cls, args, TensorType(shape, ir_type(out_dtype)), libm)
    # Weak in, weak out (as in JAX): x * (s * 2) stays float32 for a Python scalar s.
    out.weak = all(getattr(x, "weak", False) or type(x) in (int, float, complex) for x in operands)
    out.fortran = fortran_layout(operands, out.shape)
    return out


# ``jitcore.numpy.everyday.raise_at_first`` (a call-time error at the first bad element): set
# by that module when it loads, since the numpy layer imports this one
RAISE_AT_FIRST = None


def _refuse_negative_exponents(exponent: Tracer) -> None:
    """An integer power with a traced signed exponent: NumPy's ValueError when the call finds a
    negative one (checked in the kernel; the result is not returned)."""
    RAISE_AT_FIRST(ufunc(np.less, exponent, 0), exponent, kernel.INT_TO_NEGATIVE_POWER)


def _spans(shape) -> bool:
    """More than one dim longer than 1: C and Fortran order differ."""
    return sum(d > 1 for d in shape) > 1


def fortran_layout(operands, shape) -> bool:
    """Whether NumPy gives an elementwise result of ``operands`` Fortran order: when every
    operand of the result's rank whose orders differ is Fortran-ordered (broadcast operands of
    lower rank, and those C and Fortran at once, do not decide)."""
    if not _spans(shape):
        return False
    deciding = [x for x in operands if isinstance(x, (Tracer, np.ndarray))
                and len(x.shape) == len(shape) and _spans(x.shape)]
    return bool(deciding) and all(
        x.fortran if isinstance(x, Tracer) else x.flags.f_contiguous for x in deciding)


# A Python int argument's bounds when the function has not yet needed them (``api``): every
# int64. A trace that asks whether such an int fits a narrower integer dtype is answered yes,
# and noted in ``int_range_asked``; ``api`` then traces again with the int's own bounds (one
# of ``api.int_range``'s classes), and keys that function's ints by them from then on.
ANY_INT64 = (-(2 ** 63), 2 ** 63 - 1)
int_range_asked = threading.local()


class IntRangeNeeded(Exception):
    """A trace with a Python int as any int64 needed its bounds (``JitFunction._int_range``):
    the call is keyed and traced again."""


def int_fits(x, dtype: np.dtype) -> bool:
    """Whether ``x``, if a traced Python int argument (whose bounds the signature holds), fits
    in ``dtype`` as NumPy 2 requires of a Python int meeting an integer array."""
    bounds = getattr(x, "int_range", None)
    if bounds is None or dtype.kind not in "iu":
        return True
    info = np.iinfo(dtype)
    fits = info.min <= bounds[0] and bounds[1] <= info.max
    if not fits and bounds == ANY_INT64:
        int_range_asked.yes = True
        return True
    return fits


def int_overflow_message(x: Tracer, dtype: np.dtype) -> str:
    lo, hi = x.int_range
    names = ", ".join(sorted(x.sources))
    return (f"Python integer {names} (a value between {lo} and {hi}) out of bounds for {dtype}: "
            f"NumPy 2 raises OverflowError (at {user_location()}); pass it as an array of a wider "
            f"dtype (np.int64({names})), or cast the array first (.astype(np.int64))")


def strong(x: Tracer) -> Tracer:
    """A Python int argument as a NumPy int64: promotes as an array of its own dtype."""
    out = fresh(x, x.scalar)
    out.int_range = None
    return out


def _real_power(x: Tracer, y: Tracer, exponent) -> Tracer:
    """``x ** y`` in float32 or float64. NumPy's loops for these take an exponent that stays put
    along the loop (stride 0) and equals -1, 0, 0.5, 1 or 2 without pow: as 1 / x, 1, sqrt(x),
    x and x * x. Only sqrt differs from pow at some x ((-0.0) ** 0.5 is -0.0 and (-inf) ** 0.5
    NaN there, where C's pow gives 0.0 and inf); the others equal a correctly rounded pow, and
    for a constant exponent canonicalize spells them out (passes/canonicalize.py). A one-element
    exponent stays put whatever the layout if it is 0-d or the result has more than one element;
    jitcore follows NumPy then. (An exponent broadcast along some axes only takes pow: NumPy's
    answer depends on the layout.) An exponent known only at run time selects among the fast paths
    and pow (whose own select gives 1 for 0), since jitcore's pow need not round x * x and 1 / x
    as they do."""
    power = _emit(x.owner_trace, array.BINARY_OPS["pow"], [x, y], x.value.type)
    e_shape = _shape_of(exponent)
    if np.prod(e_shape) != 1 or (e_shape and np.prod(x.shape) < 2):
        return power
    if not isinstance(exponent, Tracer):  # a constant: decided now
        return ufunc(np.sqrt, x) if np.asarray(exponent).item() == 0.5 else power
    fast = {0.5: lambda: ufunc(np.sqrt, x), 2.0: lambda: ufunc(np.multiply, x, x),
            -1.0: lambda: ufunc(np.true_divide, np.ones((), x.dtype), x), 1.0: lambda: x}
    out = power
    for value, compute in fast.items():
        out = where(ufunc(np.equal, y, value), compute(), out)
    return out


def power_operator(x: Tracer, y):
    """``x ** y`` and ``x **= y``. NumPy's operator computes a float or complex
    array to the Python int -1 or 2 or the Python float 0.5 by ``reciprocal``, ``square`` or
    ``sqrt``, which differ from its power loop at special values (sqrt(-0.0) is -0.0, pow's 0.0;
    the loop's (-0-0j) ** 2 is 0j, square's 0-0j). Other exponents, NumPy scalars (their own
    scalar math, which is pow) and ``np.power`` take ``ufunc``."""
    if not x.scalar and type(y) is int and y == 2 and x.dtype.kind == "b":
        x8 = convert(x, np.dtype(np.int8))  # np.square of bools is int8; np.power's is int64
        return ufunc(np.multiply, x8, x8)
    if not x.scalar and x.dtype.kind in "fc":
        if type(y) is float and y == 0.5:
            return ufunc(np.sqrt, x)
        if type(y) is int and y == 2:
            return ufunc(np.multiply, x, x)
        if type(y) is int and y == -1 and x.dtype.kind == "c":  # a float's takes _real_power
            return part("reciprocal", x)
    if x.scalar and _shape_of(y) == () and getattr(y, "scalar", not isinstance(y, np.ndarray)):
        return ufunc(np.power, x, y, scalar_math=True)
    return ufunc(np.power, x, y)


def clip(a, lo, hi):
    """``np.clip`` (``lo``, ``hi`` possibly None): NumPy 2 takes np.maximum(a, lo) when ``hi`` is
    None, np.minimum(a, hi) when ``lo`` is, else its clip loop. That loop is maximum then
    minimum but on complex numbers, where it keeps ``a`` when it has a NaN part or is > lo
    (< hi) by real parts, then imaginary parts, else takes the bound: a tie gives the bound
    (-0j clipped to [0, 5] is 0j), and there is no np.maximum's rule that a NaN imaginary part
    makes real parts incomparable (a bound 1 + nanj leaves 2 + 0j as it is)."""
    a, lo, hi = map(array_operand, (a, lo, hi))
    if _scalar_bounds_loop(a, lo, hi):
        # NumPy's loop for two bounds that stay put (scalars, or size 1 against a larger
        # array): it keeps ``a`` on a tie of 0.0 and -0.0 (clip(-0.0, 0, 1) is -0.0), where
        # np.maximum (here with the operands the other way round) gives its second operand.
        return _clip_side(np.minimum, hi, _clip_side(np.maximum, lo, a, True), True)
    out = a if lo is None else _clip_side(np.maximum, a, lo, hi is not None)
    return out if hi is None else _clip_side(np.minimum, out, hi, lo is not None)


def _scalar_bounds_loop(a, lo, hi) -> bool:
    """Does NumPy's clip take its loop for bounds constant along the array (both bounds
    given, of stride 0 there), for a float32 or float64 result?"""
    if lo is None or hi is None:
        return False
    low = resolve_ufunc(np.maximum, (a, lo))[1]
    if resolve_ufunc(np.minimum, (np.empty(0, low), hi))[1] not in (np.float32, np.float64):
        return False
    size = int(np.prod(np.broadcast_shapes(*map(_shape_of, (a, lo, hi))), dtype=np.int64))
    return all(np.ndim(b) == 0 if not isinstance(b, Tracer) else b.ndim == 0 or (b.size == 1 and size > 1)
               for b in (lo, hi))


@numpy_scalar
def _clip_side(fn: np.ufunc, a, bound, loop: bool) -> Tracer:
    in_dtypes, out_dtype = resolve_ufunc(fn, (a, bound))
    if out_dtype.kind != "c" or not loop:
        return ufunc(fn, a, bound)
    trace = find_trace(a, bound)
    shape = np.broadcast_shapes(_shape_of(a), _shape_of(bound))
    a, b = (broadcast_to(as_tracer(trace, x, dt), shape) for x, dt in zip((a, bound), in_dtypes))
    order = np.greater if fn is np.maximum else np.less
    (ar, ai), (br, bi) = ((part("real", x), part("imag", x)) for x in (a, b))
    keep = where(ufunc(np.equal, ar, br), ufunc(order, ai, bi), ufunc(order, ar, br))
    keep = ufunc(np.bitwise_or, ufunc(np.bitwise_or, ufunc(np.isnan, ar), ufunc(np.isnan, ai)), keep)
    return where(keep, a, b)


def bitwise_count(x) -> Tracer:
    """``np.bitwise_count``: ``array.popcount`` in the operand's integer type, then uint8."""
    (dtype,), out_dtype = resolve_ufunc(np.bitwise_count, (x,))
    x = convert(x, dtype)
    return convert(_emit(x.owner_trace, array.UNARY_OPS["popcount"], [x], x.value.type), out_dtype)


def float_power(x, y) -> Tracer:
    """``np.float_power``: ``power`` in the dtype NumPy resolves (float64 for every integer and
    real float dtype)."""
    trace = find_trace(x, y)
    in_dtypes, _ = resolve_ufunc(np.float_power, (x, y))
    return ufunc(np.power, *(as_tracer(trace, v, dt) for v, dt in zip((x, y), in_dtypes)))


def _compare_out_of_range(trace: Trace, kind: str, a, b) -> Tracer | None:
    """An integer array against a Python int outside its dtype's range: NumPy 2 answers
    without overflow (``uint8_array < -3`` is all False); so do we, as a constant."""
    for array_side, scalar, flipped in ((a, b, False), (b, a, True)):
        if isinstance(scalar, int) and not isinstance(scalar, bool) and isinstance(array_side, Tracer):
            if array_side.dtype.kind not in "iu" or getattr(array_side, "weak", False):
                continue
            info = np.iinfo(array_side.dtype)
            if info.min <= scalar <= info.max:
                continue
            array_is_less = scalar > info.max
            if flipped:
                array_is_less = not array_is_less
            answer = {"lt": array_is_less, "le": array_is_less, "gt": not array_is_less,
                      "ge": not array_is_less, "eq": False, "ne": True}[kind]
            return broadcast_to(constant(trace, np.bool_(answer)), array_side.shape)
    return None


def _mixed_sign_compare(fn: np.ufunc, kind: str, a: Tracer, b: Tracer) -> Tracer:
    """int64 against uint64, exactly as NumPy 2 compares them: a negative signed value is
    below every unsigned one; otherwise both compare as uint64."""
    signed_left = a.dtype.kind == "i"
    signed, unsigned = (a, b) if signed_left else (b, a)
    as_unsigned = convert(signed, unsigned.dtype)
    compared = ufunc(fn, as_unsigned, b) if signed_left else ufunc(fn, a, as_unsigned)
    when_negative = {"lt": signed_left, "le": signed_left, "gt": not signed_left,
                     "ge": not signed_left, "eq": False, "ne": True}[kind]
    return where(ufunc(np.less, signed, 0), when_negative, compared)


def where(cond, a, b) -> Tracer:
    cond, a, b = map(array_operand, (cond, a, b))
    a_given, b_given = a, b
    trace = find_trace(cond, a, b)
    dtype = np.result_type(*(x if isinstance(x, (bool, int, float, complex)) else _weak_zero(x)
                             for x in (a, b)))
    try:
        shape = np.broadcast_shapes(_shape_of(cond), _shape_of(a), _shape_of(b))
    except ValueError:
        shapes = ", ".join(str(_shape_of(x)) for x in (cond, a, b))
        raise JitValueError(f"where: shapes {shapes} do not broadcast") from None
    c = broadcast_to(as_tracer(trace, cond, np.dtype(bool)), shape)
    layout = fortran_layout((cond, a, b), shape)
    a, b = (broadcast_to(as_tracer(trace, _where_int(x, dtype), dtype), shape) for x in (a, b))
    out = _emit(trace, array.SelectOp, [c, a, b], a.value.type)
    out.fortran = layout
    if trace.number_or_array:
        number_or_array.elementwise(out, (cond, a_given, b_given))
    return out


def summed_in_runs(terms: Tracer, half: bool = False) -> None:
    """Mark ``terms``, ``where(mask, x, 0)``, as the terms of ``x.sum(where=mask)``: NumPy
    sums each run of consecutive kept elements alone and adds the runs' sums in turn, where
    ``where(mask, x, 0).sum()`` is one sum of every term (``codegen/masked_rows.SelectedRuns``).
    ``half``: float32 terms of a float16 sum, whose total NumPy rounds to float16 after each
    run (its float16 loop adds a run's float32 sum to the float16 total)."""
    op = terms.value.op
    if isinstance(op, array.SelectOp):
        op.attributes["runs"] = "f16" if half else True


def _weak_zero(x):
    """What ``np.result_type`` takes for ``x``: its dtype, or for a Python scalar argument a
    Python zero of its kind (weak, NEP 50: np.where(c, int8_array, s) is int8)."""
    if getattr(x, "weak", False):
        return {"f": 0.0, "c": 0j}.get(x.dtype.kind, 0)
    dtype = getattr(x, "dtype", None)
    if dtype is None:  # a str or other static object: the dtype NumPy gives it, checked
        dtype = np.asarray(x).dtype
        refuse_text(dtype)
    return dtype


def _where_int(x, dtype: np.dtype):
    """A Python int choice of ``np.where`` as NumPy takes it: an int64 (uint64 past its range)
    array first, then cast unsafely to the result dtype, so -1 is 255 for uint8."""
    if type(x) is not int or dtype.kind not in "iu":
        return x
    if not -2**63 <= x < 2**64:
        raise OverflowError(f"Python int {x} too large to convert to C long (NumPy's where "
                            f"raises the same), at {user_location()}")
    return int(np.array(x, np.int64 if x < 2**63 else np.uint64).astype(dtype))


def reshape(x: Tracer, shape) -> Tracer:
    refuse_traced(shape, "a shape")
    shape = (shape,) if isinstance(shape, int) else tuple(operator.index(d) for d in shape)
    if shape.count(-1) > 1:
        raise JitValueError(f"reshape: can only infer one dimension, got {shape}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        if known == 0 or x.size % known:
            raise JitValueError(f"cannot reshape {x.shape} into {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    if int(np.prod(shape)) != x.size or any(d < 0 for d in shape):
        raise JitValueError(f"cannot reshape an array of shape {x.shape} into shape {shape}")
    if shape == x.shape:  # nothing to do; a NumPy scalar reshaped is a 0-d array, as in NumPy
        return fresh(x) if x.scalar else x
    return _emit(x.owner_trace, array.ReshapeOp, [x], x.value.type.with_shape(shape))


def transpose(x: Tracer, axes=None) -> Tracer:
    perm = tuple(reversed(range(x.ndim))) if axes is None else normalize_axes(axes, x.ndim, "transpose")
    if sorted(perm) != list(range(x.ndim)):
        raise JitValueError(f"transpose: axes {axes} are not a permutation of {x.ndim} dims")
    t = x.value.type.with_shape(x.shape[p] for p in perm)
    out = _emit(x.owner_trace, array.TransposeOp, [x], t, {"permutation": perm})
    # Reversing the axes turns C order into Fortran order and back, as NumPy's x.T does.
    out.fortran = perm == tuple(reversed(range(x.ndim))) and not x.fortran
    return out


def normalize_axes(axis, ndim: int, where: str) -> tuple[int, ...]:
    refuse_traced(axis, f"the axis of {where}")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise JitAxisError(f"{where}: axis {a} is out of bounds for an array of dimension {ndim}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise JitValueError(f"{where}: repeated axis in {axis}")
    return tuple(out)


def reshape_view(x: Tracer, shape) -> Tracer:
    """``x.reshape(shape)``: a view where NumPy's is one (its strides split or merge), else a
    copy (``g.T.reshape(-1)``: a write to it must not reach ``g``)."""
    if view_layout.reshape_copies(x, shape):
        return fresh(reshape(x, shape))
    return make_view(x, lambda b: reshape(b, shape), lambda b, v: reshape(v, b.shape),
                     model=lambda m: np.reshape(m, shape, copy=False))


def ravel(x: Tracer) -> Tracer:
    """``x.ravel()``: a view of a C-contiguous ``x`` only, as NumPy's."""
    return reshape_view(x, (-1,)) if view_layout.c_contiguous(x) else fresh(reshape(x, (-1,)))


def transpose_view(x: Tracer, axes) -> Tracer:
    """``x.transpose(axes)``: a view, whose writes go back through the inverse permutation."""
    def backward(b, v):
        if axes is None:
            return transpose(v, None)
        perm = normalize_axes(axes, b.ndim, "transpose")
        return transpose(v, tuple(int(p) for p in np.argsort(perm)))

    return make_view(x, lambda b: transpose(b, axes), backward, model=lambda m: m.transpose(axes))


def moveaxis(a: Tracer, source, destination) -> Tracer:
    """``np.moveaxis``: the axes ``source`` moved to ``destination``, the others in order; a view."""
    src = normalize_axes(source, a.ndim, "moveaxis")
    dst = normalize_axes(destination, a.ndim, "moveaxis")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose_view(a, order)


def assign(x: Tracer, new, casting: str = "unsafe", what: str = "assignment") -> None:
    """Write ``new`` (broadcast and cast to ``x``'s dtype) into ``x``, as NumPy's in-place
    operations do: ``x`` is rebound to the new value (see ``Tracer.rebind``)."""
    if isinstance(new, Tracer):
        check_cast(new.dtype, x.dtype, casting, what)
    if not int_fits(new, x.dtype):
        raise JitOverflowError(int_overflow_message(new, x.dtype))
    x.check_writable()
    value = broadcast_to(as_tracer(x.owner_trace, new, x.dtype), x.shape)
    if x.owner_trace.number_or_array and number_or_array.form_of(value) is not None:
        # (out[:] = x if t else 1.0: the number broadcast is Python's write; ``out`` holds an
        # array of its shape either way, a value of its own)
        value = _emit(x.owner_trace, array.ConvertOp, [value], value.value.type)
        number_or_array.mark(value, None)
    x.rebind(value)


def check_cast(result: np.dtype, target: np.dtype, casting: str, what: str) -> None:
    """NumPy's check before it writes a ``result``-dtype value into a ``target``-dtype array
    (``x += 0.5``, ``x[m] -= 0.5``, ``out=``), raising its TypeError where ``casting`` forbids it."""
    if not np.can_cast(result, target, casting):
        raise JitTypeError(
            f"Cannot cast {what} output from {result} to {target} with casting rule "
            f"{casting!r} (NumPy raises the same), at {user_location()}"
        )


def out_loop_dtype(dtype: np.dtype, out, given=None):
    """The dtype NumPy sums (multiplies, accumulates) ``dtype`` values in: ``given`` (the
    call's ``dtype=``) if any; with no ``out=``, None (the usual loop); else the out's, where
    the input casts to it safely and it is a float or complex (``np.sum(float32,
    out=float64)`` adds in float64)."""
    if given is not None or out is None:
        return given
    (target,) = out if isinstance(out, tuple) else (out,)
    wanted = getattr(target, "dtype", None)
    if wanted is None or wanted.kind not in "fc" or wanted == dtype or not np.can_cast(dtype, wanted, "safe"):
        return None
    return wanted


def write_out(out, result, name: str):
    """NumPy's ``out=`` of a reduction or a scan (``np.sum(x, out=o)``, ``np.add.reduce``,
    ``np.cumsum``): ``result``, computed as without ``out``, cast (unsafe, as NumPy's output
    cast) into ``out``, which must have the result's shape; ``out`` is returned. NumPy rounds
    a reduction into an ``out`` of another float dtype once per 8192-element buffer, so for such
    an ``out`` the two can differ within the sum's rounding bound; for ``out`` of the input's
    dtype they are the same. ``out`` is an argument (written back to the caller's array) or a
    local array; any other NumPy array cannot take a traced value. With no ``out``, ``result``."""
    if out is None:
        return result
    (target,) = out if isinstance(out, tuple) else (out,)
    if not isinstance(target, Tracer):
        raise UnsupportedError(
            f"numpy.{name}(..., out=) into a NumPy array that is not an argument of the jitted "
            f"function (at {user_location()}): pass the array as an argument, or assign the result")
    result = array_operand(result)
    if not isinstance(result, Tracer):
        result = constant(target.owner_trace, np.asarray(result))
    if target.shape != result.shape:
        raise JitValueError(f"output parameter for numpy.{name} has the wrong shape: {target.shape}, "
                            f"the result's is {result.shape} (NumPy raises a ValueError too), at "
                            f"{user_location()}")
    assign(target, result, "unsafe", f"numpy.{name}")
    return target


def zero_d_axis(x, axis):
    """NumPy's ufunc reductions, argmax, cumsum, repeat, take and squeeze take an int axis 0 or -1
    of a 0-d array as no axis (a tuple of axes is still out of bounds); None for those."""
    refuse_traced(axis, "an axis")
    if isinstance(axis, (int, np.integer)) and x.ndim == 0 and axis in (0, -1):
        return None
    return axis


_REDUCE_UFUNC = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
                 "and": np.logical_and, "or": np.logical_or}
BITWISE_REDUCTIONS = {np.bitwise_and: "bitand", np.bitwise_or: "bitor", np.bitwise_xor: "bitxor"}
_REDUCE_UFUNC.update({kind: fn for fn, kind in BITWISE_REDUCTIONS.items()})


def bitwise_reduction(fn: np.ufunc, x: Tracer, axis=0, keepdims=False, dtype=None) -> Tracer:
    """``np.bitwise_and.reduce`` (``or``, ``xor``): integers and bools, in ``dtype`` if given."""
    if dtype is not None:
        x = convert(x, np.dtype(dtype))
    if x.dtype.kind not in "biu":
        raise JitTypeError(
            f"numpy.{fn.__name__}.reduce of {x.dtype}: bitwise reductions take integers or bools "
            "(NumPy raises TypeError too)"
        )
    if x.ndim == 0 and isinstance(axis, int) and axis in (0, -1):
        axis = ()  # NumPy's ufunc.reduce takes axis 0 or -1 of a 0-d array (not axis=(0,))
    return reduction(BITWISE_REDUCTIONS[fn], x, axis, keepdims)


# A whole sum whose order NumPy's iterator decides (``buffered_sum`` installs itself here: it
# builds on this module, which so imports nothing above it).
FULL_SUM_ORDERS: list = []


def half_steps_of(x: Tracer, axes) -> bool:
    """Does NumPy reduce float16 ``x`` over ``axes`` in its elementwise loop (each add rounded
    to float16: the innermost axis of its iteration of ``x`` is not reduced), not its reduce
    loop (a float32 total rounded after each call)?"""
    inner = view_layout.iteration_axes(x)[-1] if x.ndim else None
    return bool(x.dtype == np.float16 and x.size and inner not in axes)


@numpy_scalar
def reduction(kind: str, x: Tracer, axis=None, keepdims=False, dtype=None, half_steps=None) -> Tracer:
    """``x.sum()`` and friends: NumPy's accumulator dtype, axes as int/tuple/None, keepdims.
    ``half_steps``: a float16 sum or product rounds each step to float16 (NumPy's elementwise
    loop) rather than accumulating in float32 (its reduce loop); None: as NumPy's iterator
    takes ``x`` alone, elementwise where its innermost axis is not reduced."""
    axis = zero_d_axis(x, axis)
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted(normalize_axes(axis, x.ndim, kind)))
    if dtype is None:
        dtype = _REDUCE_UFUNC[kind].reduce(np.zeros(1, x.dtype)).dtype
    if kind in ("max", "min") and any(x.shape[a] == 0 for a in axes):
        raise JitValueError(
            f"zero-size array to reduction operation {_REDUCE_UFUNC[kind].__name__} which has "
            "no identity (NumPy raises the same)"
        )
    if half_steps is None:
        half_steps = half_steps_of(x, axes)
    if np.dtype(dtype) == np.float16 and kind in ("sum", "prod") and not half_steps:
        # NumPy's reduce loop accumulates a float16 row in float32 and rounds once (its
        # elementwise loop rounds each step: the reduction below, in float16).
        return convert(reduction(kind, convert(x, np.dtype(np.float32)), axis, keepdims), np.dtype(dtype))
    if kind == "sum" and len(axes) == x.ndim and x.dtype == np.dtype(dtype):
        for buffered in FULL_SUM_ORDERS:  # a view NumPy reads through its buffer (``a[:, ::-1].sum()``)
            out = buffered(x)
            if out is not None:  # (keepdims: var's mean, in the same order)
                return reshape(out, (1,) * x.ndim) if keepdims else out
    x = convert(x, np.dtype(dtype))
    kept = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    out = _emit(x.owner_trace, array.ReduceOp, [x], x.value.type.with_shape(kept),
                {"kind": kind, "axes": axes})
    if keepdims:
        out = reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return out


def part(which: str, x: Tracer) -> Tracer:
    """``x.real`` or ``x.imag``: the float parts of a complex array; a real array is its own
    real part and has a zero imaginary part, as in NumPy."""
    if x.dtype.kind != "c":
        return x if which == "real" else broadcast_to(constant(x.owner_trace, np.zeros((), x.dtype)), x.shape)
    t = x.value.type
    if which in array.COMPLEX_TO_PART:
        t = t.with_element(t.element.component)
    return _emit(x.owner_trace, array.UNARY_OPS[which], [x], t)


def complex_from_parts(re: Tracer, im: Tracer) -> Tracer:
    """The complex array with real parts ``re`` and imaginary parts ``im`` (float arrays of one
    dtype and shape), exactly: ``re + 1j * im`` without the product (see ``array.complex``)."""
    if re.dtype != im.dtype or re.dtype not in (np.float32, np.float64) or re.shape != im.shape:
        raise JitTypeError(f"complex parts must be float32 or float64 arrays of one dtype and shape, got "
                           f"{re.dtype}{re.shape} and {im.dtype}{im.shape} (at {user_location()}); "
                           "convert and broadcast them first")
    t = re.value.type.with_element(ir_type(np.result_type(re.dtype, np.complex64)))
    return _emit(re.owner_trace, array.ComplexOp, [re, im], t)


def as_bool(x):
    """Truth values, as NumPy's logical functions take them."""
    return convert(x, np.dtype(bool)) if isinstance(x, Tracer) else np.bool_(x)


@numpy_scalar
def variance(x: Tracer, axis=None, keepdims=False, dtype=None, ddof=0) -> Tracer:
    """``np.var``: mean squared deviation from the mean, divided by ``n - ddof``; for complex
    numbers the squared magnitude, real-valued as in NumPy."""
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim, "var")
    count = int(np.prod([x.shape[a] for a in axes]))
    if x.dtype.kind == "c" and dtype is None:
        acc_dtype = x.dtype
        result_dtype = np.dtype(x.dtype.char.lower())  # complex64 -> float32
    else:
        result_dtype = acc_dtype = np.dtype(dtype or (np.float64 if x.dtype.kind in "biu" else x.dtype))
    if acc_dtype == np.float16:  # NumPy's var sums float16 in float16 (its mean, in float32)
        total = reduction("sum", convert(x, acc_dtype), axis, True)
        centre = convert(ufunc(np.true_divide, convert(total, np.dtype(np.float64)), count), acc_dtype)
    else:
        centre = mean(convert(x, acc_dtype), axis, True)
    centered = ufunc(np.subtract, convert(x, acc_dtype), centre)
    if len(axes) == x.ndim and not keepdims:
        centered = _materialised_as_numpy(x, centered)
    if centered.dtype.kind == "c":
        re, im = part("real", centered), part("imag", centered)
        squared = ufunc(np.add, ufunc(np.multiply, re, re), ufunc(np.multiply, im, im))
    else:
        squared = ufunc(np.multiply, centered, centered)
    total = reduction("sum", squared, axis, keepdims)
    if total.dtype == np.float16:  # divided in float64, as by NumPy's intp count
        total = convert(total, np.dtype(np.float64))
    return convert(ufunc(np.true_divide, total, max(count - ddof, 0)), result_dtype)


# Set while jitcore.dask_arrays traces a function for Dask's chunks, whose partial results Dask
# combines in its own order: NumPy's one-run order for a whole var does not apply there.
CHUNKED = contextvars.ContextVar("jitcore_chunked", default=False)


def _materialised_as_numpy(x: Tracer, centered: Tracer) -> Tracer:
    """``centered`` (``x - x.mean()``) as the 1-d run NumPy's ``var`` sums whole: NumPy
    materialises ``x - mean`` laid out in ``x``'s iteration order (order 'K') and sums that
    dense array in one pairwise run. Where ``x`` is dense in memory (C, Fortran, flipped
    axes) the code generator reads it so already; a gapped or broadcast ``x`` (a strided
    argument, ``a[::2, ::3]``) is flattened in that order here, which the code generator
    copies before the sum, as NumPy does."""
    from jitcore import view_layout  # (imports this module)
    from jitcore.ir import layout_class

    model = view_layout.model(x)
    if model is None or x.ndim < 2 or x.size == 0 or CHUNKED.get():
        return centered
    long_axes = [a for a in range(x.ndim) if x.shape[a] > 1]
    order = layout_class.iteration_order(model.strides, long_axes)
    step = x.dtype.itemsize
    for a in reversed(order):
        if abs(model.strides[a]) != step:
            break
        step *= x.shape[a]
    else:
        return centered  # dense in memory
    rest = [a for a in range(x.ndim) if a not in order]
    return reshape(transpose(centered, [*order, *rest]), (x.size,))


@numpy_scalar
def mean(x: Tracer, axis=None, keepdims=False, dtype=None) -> Tracer:
    axes = tuple(range(x.ndim)) if axis is None else normalize_axes(axis, x.ndim, "mean")
    count = int(np.prod([x.shape[a] for a in axes]))
    if dtype is None:
        dtype = np.float64 if x.dtype.kind in "biu" else x.dtype
    result_dtype = np.dtype(dtype)
    # NumPy accumulates float16 means in float32, then rounds once.
    acc_dtype = np.dtype(np.float32) if result_dtype == np.float16 else result_dtype
    total = reduction("sum", convert(x, acc_dtype), axis, keepdims)
    return convert(ufunc(np.true_divide, total, count), result_dtype)  # count 0 gives NaN as in NumPy


def slice_(x: Tracer, start, stride, shape) -> Tracer:
    """``x[start::stride]`` in every dim, with the given result shape."""
    start, stride, shape = tuple(start), tuple(stride), tuple(shape)
    if shape == x.shape and all(s == 1 for s in stride):
        return x
    t = x.value.type.with_shape(shape)
    return _emit(x.owner_trace, array.SliceOp, [x], t, {"start": start, "stride": stride})


def pad(x: Tracer, widths, value=0) -> Tracer:
    """Constant padding: ``widths`` is one (low, high) pair per dim."""
    low = tuple(int(lo) for lo, _ in widths)
    high = tuple(int(hi) for _, hi in widths)
    if not any(low) and not any(high):
        return x
    fill = as_tracer(x.owner_trace, value, x.dtype)
    shape = tuple(lo + d + hi for lo, d, hi in zip(low, x.shape, high))
    t = x.value.type.with_shape(shape)
    return _emit(x.owner_trace, array.PadOp, [x, fill], t, {"low": low, "high": high})


def concatenate(arrays, axis: int = 0) -> Tracer:
    arrays = [array_operand(a) for a in arrays]
    trace = find_trace(*arrays)
    dtype = np.result_type(*(a.dtype if hasattr(a, "dtype") else a for a in arrays))
    parts = [as_tracer(trace, a, dtype) for a in arrays]
    ndim = parts[0].ndim
    if ndim == 0:
        raise JitValueError("zero-dimensional arrays cannot be concatenated")
    (axis,) = normalize_axes(axis, ndim, "concatenate")
    for p in parts:
        others = [(d, e) for k, (d, e) in enumerate(zip(p.shape, parts[0].shape)) if k != axis]
        if p.ndim != ndim or any(d != e for d, e in others):
            shapes = ", ".join(str(q.shape) for q in parts)
            raise JitValueError(f"concatenate: shapes {shapes} differ outside axis {axis}")
    if len(parts) == 1:
        return fresh(parts[0])  # a new array, not the operand
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    t = parts[0].value.type.with_shape(shape)
    return _emit(trace, array.ConcatenateOp, parts, t, {"axis": axis})


def sort(x: Tracer, axis: int) -> Tracer:
    """Each lane along ``axis`` (normalised) in stable ascending order, NaN last."""
    return _emit(x.owner_trace, array.SortOp, [x], x.value.type, {"axis": axis})


def head_sort(x: Tracer, count: Tracer) -> Tracer:
    """The first ``count`` (0-d int64, at most ``len(x)``) elements of the 1-d ``x`` in
    stable ascending order, NaN last; the elements after them unspecified."""
    return _emit(x.owner_trace, array.HeadSortOp, [x, count], x.value.type)


def argsort(x: Tracer, axis: int) -> Tracer:
    """The int64 positions that stably sort each lane along ``axis`` (normalised)."""
    return _emit(x.owner_trace, array.ArgSortOp, [x], x.value.type.with_element(i64), {"axis": axis})


def partition(x: Tracer, axis: int, kth: tuple[int, ...]) -> Tracer:
    """Each lane along ``axis`` (normalised) partitioned at the ascending distinct ranks
    ``kth`` (``numpy.partition``'s contract, NaN last)."""
    return _emit(x.owner_trace, array.PartitionOp, [x], x.value.type, {"axis": axis, "kth": kth})


def argpartition(x: Tracer, axis: int, kth: tuple[int, ...]) -> Tracer:
    """The int64 positions that partition each lane along ``axis`` at ranks ``kth``."""
    return _emit(x.owner_trace, array.ArgPartitionOp, [x], x.value.type.with_element(i64),
                 {"axis": axis, "kth": kth})


def partition_at(x: Tracer, axis: int, ranks: Tracer) -> Tracer:
    """Each lane along ``axis`` (normalised) partitioned at its own int64 ``ranks`` (``x``'s
    shape without ``axis``, then K), values known when the function runs (NaN last)."""
    return _emit(x.owner_trace, array.PartitionAtOp, [x, ranks], x.value.type, {"axis": axis})


def searchsorted(a: Tracer, v: Tracer, side: str) -> Tracer:
    """Per value of ``v``, its insertion point in the sorted 1-d ``a`` (same dtype), NaN last."""
    return _emit(a.owner_trace, array.SearchSortedOp, [a, v], TensorType(v.shape, i64), {"side": side})


def det(a: Tracer) -> Tracer:
    """The determinant of each square float matrix of the stack ``a`` (LU, as NumPy)."""
    return _emit(a.owner_trace, array.DetOp, [a], TensorType(a.shape[:-2], a.value.type.element))


def decomposition(a: Tracer, op_cls, **attributes) -> Tracer:
    """One of ``array.cholesky``, ``slogdet``, ``qr``, ``eigh``, ``svd`` of the float stack
    ``a``: their packed result (``ir/dialects/array/decompose.py``)."""
    shape = a.shape[:-2] + op_cls.packed_shape(*a.shape[-2:], attributes)
    return _emit(a.owner_trace, op_cls, [a], TensorType(shape, a.value.type.element), attributes or None)


def solve(a: Tracer, b: Tracer) -> Tracer:
    """``x`` with ``a x = b`` for each square float matrix of the stack ``a`` and its right-hand
    sides ``b (..., n, k)`` of the same batch shape and dtype; a singular ``a`` raises, or
    inside a ``try`` that catches that, is a failure of the try's (jitcore/failures.py)."""
    trace, rows = a.owner_trace, b.shape[-2]
    if b.shape[-1] and failures.catches(trace, np.linalg.LinAlgError):
        packed = _emit(trace, array.SolveOp, [a, b], b.value.type.with_shape(
            b.shape[:-2] + (rows + 1, b.shape[-1])), {"soft": True})
        return failures.unpacked(packed, rows, np.linalg.LinAlgError("Singular matrix"))
    return _emit(trace, array.SolveOp, [a, b], b.value.type)
