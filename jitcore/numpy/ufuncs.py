"""NumPy's ufuncs on traced arrays: one wrapper per ufunc (``jitcore.numpy.sin`` and friends),
the complex-number helpers ``real``, ``imag`` and ``angle``, and ``__array_ufunc__``:
``np.sin(tracer)``, ``ndarray + tracer``, ``out=``, and the ufunc methods ``reduce``,
``accumulate``, ``outer`` and ``at``.

A wrapper records the ufunc when given a traced value and simply calls NumPy otherwise. A ufunc
with a direct lowering needs no entry here: it is one line of ``primitives.UFUNC_KINDS``.
"""

from __future__ import annotations

import builtins
import operator
import sys

import numpy as np

from jitcore import compaction, indexing, masked
from jitcore import control_flow as cf
from jitcore import primitives as prims
from jitcore.dtypes import resolve_ufunc, weak_type
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.ir.dialects import kernel
from jitcore.numpy import reductions
from jitcore.numpy.registry import HANDLED_FUNCTIONS, UFUNCS, implements, python_bool, strong_results, traced
from jitcore.tracer import Tracer, as_scalar, fresh, user_location

__all__ = [f.__name__ for f in prims.UFUNC_KINDS] + [
    "abs", "angle", "apply_ufunc", "bitwise_count", "divmod", "fabs", "float_power", "imag",
    "frexp", "iscomplexobj", "isrealobj", "ldexp", "logical_and", "logical_not", "logical_or",
    "logical_xor", "mod", "modf",
    "real", "reciprocal", "square", "true_divide",
    "allclose", "around", "copysign", "deg2rad", "degrees", "isclose", "nan_to_num", "rad2deg",
    "radians", "round"]  # signbit: an array op now, among UFUNC_KINDS


def _ufunc(np_fn, traced_impl=None):
    # A ufunc's 0-d result is a NumPy scalar, however its lowering builds it (where, convert).
    impl = prims.numpy_scalar(traced_impl or (lambda *args: prims.ufunc(np_fn, *args)))

    def fn(*args):
        return impl(*args) if traced(*args) else np_fn(*args)

    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = f"numpy.{np_fn.__name__} on traced or concrete arrays."
    UFUNCS[np_fn] = impl
    return fn


# Every ufunc with a direct lowering, under NumPy's name.
for _f in prims.UFUNC_KINDS:
    globals()[_f.__name__] = _ufunc(_f)
abs = absolute  # noqa: F821  (defined by the loop above)
true_divide = divide  # noqa: F821
mod = remainder  # noqa: F821


def _logical(np_fn, bitwise):
    def impl(*args):
        return prims.ufunc(bitwise, *(prims.as_bool(a) for a in args))

    return _ufunc(np_fn, impl)


logical_and = _logical(np.logical_and, np.bitwise_and)
logical_or = _logical(np.logical_or, np.bitwise_or)
logical_xor = _logical(np.logical_xor, np.bitwise_xor)
logical_not = _logical(np.logical_not, np.invert)
square = _ufunc(np.square, lambda x: prims.ufunc(
    np.multiply, *[prims.as_tracer(x.owner_trace, x, np.square.resolve_dtypes((x.dtype, None))[0])] * 2))
fabs = _ufunc(np.fabs, lambda x: prims.ufunc(
    np.absolute, prims.convert(x, np.fabs.resolve_dtypes((x.dtype, None))[0])))


def _reciprocal(x):
    if x.dtype.kind == "c":
        return prims.part("reciprocal", x)
    if x.dtype.kind != "f":
        raise UnsupportedError(
            f"numpy.reciprocal of {x.dtype} at {user_location()}: NumPy's integer reciprocal "
            "is rarely what is meant; write 1 / x (float) or 1 // x (floor) instead"
        )
    return prims.ufunc(np.true_divide, np.ones((), x.dtype), x)


reciprocal = _ufunc(np.reciprocal, _reciprocal)
bitwise_count = _ufunc(np.bitwise_count, prims.bitwise_count)
float_power = _ufunc(np.float_power, prims.float_power)
divmod = _ufunc(np.divmod, lambda x, y: (prims.ufunc(np.floor_divide, x, y),
                                         prims.ufunc(np.remainder, x, y)))



def _modf(x):
    """``(x - trunc(x), trunc(x))``, the fraction taking ``x``'s sign (``-0.0`` for negative
    whole numbers, ``±0.0`` for ``±inf``), both in NumPy's loop dtype (integers as float64)."""
    _no_complex(np.modf, x)
    x = prims.convert(x, np.modf.resolve_dtypes((x.dtype, None, None))[1])
    whole = prims.ufunc(np.trunc, x)
    frac = np.where(prims.ufunc(np.isinf, x), np.zeros((), x.dtype), prims.ufunc(np.subtract, x, whole))
    return np.copysign(frac, x), whole


modf = _ufunc(np.modf, _modf)


def _float_layout(ft: np.dtype):
    """A float dtype's significand bits (without the hidden one), exponent bias, and the
    signed integer dtype of its width (what its bits are read as)."""
    info = np.finfo(ft)
    return info.nmant, info.maxexp - 1, np.dtype(f"i{ft.itemsize}")


def _frexp(x):
    """``x = m * 2**e`` with ``0.5 <= |m| < 1``, read from the bits: the exponent field gives
    ``e``, and ``m`` is ``x`` with its exponent field set to that of 0.5. Subnormals are scaled
    into the normal range first; zeros, infinities and NaN give themselves and ``e = 0``."""
    _no_complex(np.frexp, x)
    _, ft, et = np.frexp.resolve_dtypes((weak_type(x), None, None))
    x = prims.convert(x, ft)
    nmant, bias, it = _float_layout(ft)
    lift = nmant + 2  # 2**lift times the smallest subnormal is a normal number
    sub = np.less(np.abs(x), ft.type(np.finfo(ft).smallest_normal))
    bits = np.where(sub, x * ft.type(2.0**lift), x).view(it)
    field = (bits >> nmant) & (2 * bias + 1)
    e = field - (bias - 1) - np.where(sub, it.type(lift), it.type(0))
    m = ((bits & ~((2 * bias + 1) << nmant)) | ((bias - 1) << nmant)).view(ft)
    keep = np.equal(x, 0) | ~np.isfinite(x)
    return as_scalar(np.where(keep, x, m)), as_scalar(np.where(keep, 0, e).astype(et))


frexp = _ufunc(np.frexp, _frexp)


def _ldexp(x, n):
    """``x * 2**n`` rounded once: ``n`` is brought into the exponent range by at most two exact
    steps each way (scaling ``x`` by ``2**emax``, or by ``2**(emin + p)`` so that a result in the
    subnormal range is rounded only by the last product), then ``2**n`` is built from its bits."""
    trace = prims.find_trace(x, n)
    (ft, nt), _ = resolve_ufunc(np.ldexp, (x, n))
    if ft.kind == "c":
        _no_complex(np.ldexp, prims.as_tracer(trace, x, ft))
    shape = np.broadcast_shapes(np.shape(x), np.shape(n))
    y = prims.broadcast_to(prims.as_tracer(trace, x, ft), shape)
    n = prims.broadcast_to(prims.convert(prims.as_tracer(trace, n, nt), np.dtype(np.int64)), shape)
    if ft == np.float16:
        # Exact in float32 for |n| <= 41 (past it every float16 result is 0 or inf), then
        # rounded once to float16.
        return _ldexp(prims.convert(y, np.dtype(np.float32)), np.clip(n, -41, 41)).astype(ft)
    nmant, emax, it = _float_layout(ft)
    emin, p = 1 - emax, nmant + 1
    for _ in range(2):
        big = np.greater(n, emax)
        y, n = np.where(big, y * ft.type(2.0**emax), y), np.where(big, n - emax, n)
        small = np.less(n, emin)
        y, n = np.where(small, y * ft.type(2.0 ** (emin + p)), y), np.where(small, n - (emin + p), n)
    n = np.clip(n, emin, emax)
    scale = ((n + emax).astype(it) << nmant).view(ft)
    return y * scale


ldexp = _ufunc(np.ldexp, _ldexp)


@implements(np.real)
def real(val):
    return val.real if traced(val) else np.real(val)


@implements(np.imag)
def imag(val):
    return val.imag if traced(val) else np.imag(val)


@implements(np.angle)
def angle(z, deg=False):
    """The argument of complex numbers, ``arctan2(z.imag, z.real)`` (in degrees if ``deg``)."""
    if not traced(z):
        return np.angle(z, deg)
    imag, real = (z.imag, z.real) if z.dtype.kind == "c" else (0, z)
    out = prims.ufunc(np.arctan2, imag, real)
    return prims.ufunc(np.multiply, out, 180 / np.pi) if deg else out


@implements(np.iscomplexobj)
def iscomplexobj(x):
    return x.dtype.kind == "c" if traced(x) else np.iscomplexobj(x)


@implements(np.isrealobj)
def isrealobj(x):
    return x.dtype.kind != "c" if traced(x) else np.isrealobj(x)


def _numpy_bool(x):
    """A traced Python bool (a comparison of Python scalars: weak, an int in Python's own
    arithmetic) as NumPy's functions take a Python bool: ``np.bool_``, not a weak int."""
    return fresh(x, x.scalar, False) if isinstance(x, Tracer) and x.weak and x.dtype == np.bool_ else x


# SciPy's ufuncs that are the math library's functions, by their names in scipy.special.
_SCIPY_SPECIAL = {"erf": "erf", "erfc": "erfc", "gamma": "gamma", "gammaln": "lgamma"}


def _register_scipy_special(ufunc) -> None:
    """``scipy.special.erf`` and the others of ``_SCIPY_SPECIAL`` applied to a traced value: the
    math library's function in SciPy's loop dtype (complex refused). Recognised when the user's
    code has imported scipy.special (jitcore never imports it), registered on first use."""
    name = getattr(ufunc, "__name__", None)
    module = sys.modules.get("scipy.special")
    if name not in _SCIPY_SPECIAL or module is None or getattr(module, name, None) is not ufunc:
        return

    def impl(x):
        if x.dtype.kind == "c":
            raise UnsupportedError(f"scipy.special.{name} of complex numbers has no jitcore lowering "
                                   f"(at {user_location()}); real arguments compile")
        _, out_dtype = resolve_ufunc(ufunc, (x,))
        x = prims.as_tracer(prims.find_trace(x), x, out_dtype)
        y = prims.special_function(_SCIPY_SPECIAL[name], x)
        if name == "gammaln":  # SciPy's gammaln(-inf) is -inf (C's lgamma, the op's: +inf)
            y = np.where(x == -np.inf, x, y)
        return as_scalar(y)

    UFUNCS[ufunc] = impl


def apply_ufunc(ufunc, method: str, inputs, kwargs):
    """``Tracer.__array_ufunc__``: a NumPy ufunc applied to traced values."""
    if ufunc not in UFUNCS:
        _register_scipy_special(ufunc)
    for x in inputs:  # a value that applies ufuncs itself, wherever it stands (np.add.at's indices)
        own = getattr(type(x), "__jitcore_ufunc_method__", None)
        if own is not None:
            return own(x, ufunc, method, *inputs, **kwargs)
    inputs = tuple(_numpy_bool(x) for x in inputs)
    if kwargs.get("casting", "same_kind") not in _CASTINGS:
        raise JitValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' "
                            f"(got {kwargs['casting']!r}, at {user_location()})")
    out = kwargs.pop("out", None)
    if out is not None and method in ("reduce", "accumulate", "reduceat"):
        # computed as without out=, then cast into it (NumPy's output cast)
        spelled = f"{ufunc.__name__}.{method}"
        given = getattr(prims.array_operand(inputs[0]), "dtype", None) if inputs else None
        if ufunc in (np.add, np.multiply) and given is not None:
            kwargs["dtype"] = prims.out_loop_dtype(given, out, kwargs.get("dtype"))
        return prims.write_out(out, apply_ufunc(ufunc, method, inputs, kwargs), spelled)
    if out is not None and method == "outer":
        (target,) = out
        casting = kwargs.pop("casting", "same_kind")
        return _assign_out(ufunc, target, apply_ufunc(ufunc, method, inputs, kwargs), casting)
    casting = kwargs.pop("casting", "same_kind") if out is not None and method == "__call__" else None
    where = kwargs.pop("where", True)
    if where is not True and method == "reduce" and ufunc in _UFUNC_REDUCTIONS:
        kwargs["where"] = where  # the reductions take where= themselves
    elif where is not True and method == "__call__" and ufunc in UFUNCS:
        return _ufunc_where(ufunc, inputs, out, casting, where, kwargs)
    elif where is not True:
        kwargs["where"] = where  # refused below, named in the message
    if method == "__call__" and ufunc in UFUNCS and kwargs.get("dtype") is not None:
        inputs = _loop_inputs(ufunc, inputs, np.dtype(kwargs.pop("dtype")))
    structural = ("axis", "keepdims", "dtype") if method in ("reduce", "accumulate") else ()
    structural = ("axis", "dtype") if method == "reduceat" else structural
    if method == "reduce" and ufunc in _UFUNC_REDUCTIONS:
        structural += ("initial", "where")
    if any(k not in structural and not _is_default_ufunc_kwarg(k, v) for k, v in kwargs.items()):
        raise UnsupportedError(
            f"numpy.{ufunc.__name__} with {', '.join(sorted(kwargs))} is not supported under jit "
            f"yet (at {user_location()})"
        )
    if method == "__call__" and ufunc in UFUNCS and out is not None and len(out) > 1:
        return tuple(_assign_out(ufunc, target, r, casting) for target, r in zip(out, UFUNCS[ufunc](*inputs)))
    if method == "__call__" and ufunc in UFUNCS and out is not None:
        (target,) = out
        return _assign_out(ufunc, target, UFUNCS[ufunc](*inputs), casting)
    if method == "__call__" and ufunc in UFUNCS:
        return strong_results(UFUNCS[ufunc](*inputs))
    if method == "reduce" and ufunc in _UFUNC_REDUCTIONS:
        (a,) = inputs
        given = {k: kwargs[k] for k in ("initial", "where") if k in kwargs}
        reduce = _UFUNC_REDUCTIONS[ufunc]
        if kwargs.get("dtype") is not None:  # the loop's dtype: each element cast to it first
            a = _reduce_in_dtype(ufunc, reduce, a, np.dtype(kwargs["dtype"]), given)
        # np.any/np.all take no initial=: the logical ufunc folds it in after (NumPy's initial
        # is one more operand of every output element, masked-out ones included)
        initial = given.pop("initial") if reduce in (np.all, np.any) and "initial" in given else None
        out = HANDLED_FUNCTIONS[reduce](a, axis=kwargs.get("axis", 0),
                                        keepdims=kwargs.get("keepdims", False), **given)
        return out if initial is None else UFUNCS[ufunc](out, initial)
    if method == "reduce" and ufunc in prims.BITWISE_REDUCTIONS:
        (a,) = inputs
        return prims.bitwise_reduction(ufunc, a, kwargs.get("axis", 0), kwargs.get("keepdims", False),
                                        kwargs.get("dtype"))
    if method == "reduce" and ufunc in _PAIRWISE_REDUCTIONS:
        (a,) = inputs
        return _pairwise_reduce(ufunc, a, kwargs.get("axis", 0), kwargs.get("keepdims", False),
                                kwargs.get("dtype"))
    if method == "reduce" and ufunc in _FOLDED_REDUCTIONS:
        (a,) = inputs
        return _fold_reduce(ufunc, a, kwargs.get("axis", 0), kwargs.get("keepdims", False),
                            kwargs.get("dtype"))
    if method == "reduce" and ufunc is np.logical_xor and kwargs.get("dtype") in (None, np.bool_, bool):
        (a,) = inputs  # the parity of the true elements: the bitwise xor of the truth values
        return prims.bitwise_reduction(np.bitwise_xor, prims.as_bool(a), kwargs.get("axis", 0),
                                       kwargs.get("keepdims", False))
    if (method == "accumulate" and ufunc in _LOGICAL_ACCUMULATIONS
            and kwargs.get("dtype") in (None, np.bool_, bool)):
        (a,) = inputs
        return _logical_accumulation(ufunc, a, kwargs.get("axis", 0))
    if method == "accumulate" and ufunc in _UFUNC_ACCUMULATIONS:
        (a,) = inputs
        if a.ndim == 0:
            raise JitTypeError(f"cannot accumulate on a scalar (NumPy raises the same TypeError), "
                               f"at {user_location()}")
        dtype, axis = kwargs.get("dtype"), kwargs.get("axis", 0)
        if ufunc in _RUNNING_EXTREMES:
            return reductions.running_extreme(_RUNNING_EXTREMES[ufunc], a, axis, dtype)
        if ufunc in _NAN_SKIPPING_EXTREMES:
            return _running_nan_skipping_extreme(ufunc, a, axis, dtype)
        if ufunc in reductions.BITWISE_SCANS:
            return reductions.running_bitwise(ufunc, a, axis, dtype)
        return HANDLED_FUNCTIONS[_UFUNC_ACCUMULATIONS[ufunc]](a, axis=axis, dtype=dtype)
    if method == "outer" and ufunc in UFUNCS and ufunc.nin == 2 and ufunc.signature is None:
        return _ufunc_outer(ufunc, *inputs)
    if method == "reduceat" and ufunc in _UFUNC_REDUCTIONS:
        return _ufunc_reduceat(ufunc, *inputs, **kwargs)
    if method == "at" and ufunc in UFUNCS and ufunc.signature is None:
        return _ufunc_at(ufunc, *inputs)
    spelled = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    raise UnsupportedError(f"{spelled} has no jitcore lowering yet (called at {user_location()})")


def _ufunc_reduceat(ufunc, a, indices, axis=0, dtype=None):
    """``ufunc.reduceat(a, indices, axis)`` for static ``indices``: piece k is ``ufunc.reduce``
    of ``a[indices[k]:indices[k + 1]]`` along ``axis`` (to the end for the last), or
    ``a[indices[k]]`` where the next index is not larger; NumPy's result dtype."""
    if isinstance(indices, masked.MaskedSelection) and not isinstance(a, masked.MaskedSelection):
        return _reduceat_selected(ufunc, a, indices, axis, dtype)
    if isinstance(indices, Tracer) or prims.holds_tracer(indices):
        return _traced_reduceat(ufunc, a, prims.array_operand(indices), axis, dtype)
    a = prims.array_operand(a)
    if not isinstance(a, Tracer):
        a = prims.constant(prims.find_trace(indices), np.asarray(a))
    at = np.asarray(indices)
    if at.ndim != 1 or at.dtype.kind not in "iu":
        raise JitTypeError(f"numpy.{ufunc.__name__}.reduceat takes a 1-d array of integer indices "
                           f"(at {user_location()})")
    (axis,) = prims.normalize_axes(axis, a.ndim, f"{ufunc.__name__}.reduceat")
    n = a.shape[axis]
    out_dtype = ufunc.reduceat(np.zeros(1, a.dtype), [0], dtype=dtype).dtype  # NumPy's
    # NumPy's float add: each lane's first element plus the pairwise sum of the rest of its
    # piece (the traced indices' loop over lanes, for more than one)
    pairwise = ufunc is np.add and out_dtype.kind in "fc"
    for i in at.tolist():
        if not 0 <= i < n:
            raise IndexError(f"index {i} out-of-bounds in {ufunc.__name__}.reduceat [0, {n})")
    if (pairwise and a.ndim > 1 or _window_summed(ufunc, out_dtype)) and len(at):
        # one compiled loop over the pieces (each a sum over its window) where unrolled pieces
        # compiled a kernel each (100 pieces: 10 s)
        return _traced_reduceat(ufunc, a, prims.constant(a.owner_trace, at), axis, dtype)
    pieces = []
    for k, i in enumerate(at.tolist()):
        end = max(int(at[k + 1] if k + 1 < len(at) else n), i + 1)
        if pairwise:
            row = prims.convert(a, out_dtype)
            pieces.append(row[i:i + 1] if end == i + 1 else row[i:i + 1] + np.sum(row[i + 1:end]))
            continue
        cut = [slice(None)] * a.ndim
        cut[axis] = slice(i, end)
        pieces.append(ufunc.reduce(a[tuple(cut)], axis=axis, dtype=out_dtype, keepdims=True))
    if not pieces:
        raise JitValueError(f"numpy.{ufunc.__name__}.reduceat of no indices (at {user_location()})")
    return pieces[0] if len(pieces) == 1 else prims.concatenate(pieces, axis)


def _reduceat_selected(ufunc, a, indices: masked.MaskedSelection, axis, dtype):
    """``ufunc.reduceat(a, idx)`` at indices the data chose (``np.unique(t,
    return_index=True)[1]``, ``np.flatnonzero(starts)``): the indices compacted, a piece per
    kept one (the loop runs to their count), a selection of that count along ``axis``."""
    if indices.ndim != 1 or indices.dtype.kind not in "iu" or indices.position != 0:
        raise indices._refusal(f"numpy.{ufunc.__name__}.reduceat with it as indices (a 1-d array "
                               "of integers is compiled)")
    ndim = np.ndim(a)
    if ndim == 0 or prims.normalize_axes(axis, ndim, f"{ufunc.__name__}.reduceat") != (0,):
        raise indices._refusal(f"numpy.{ufunc.__name__}.reduceat at them along axis {axis} "
                               "(along axis 0 it is compiled: move that axis first)")
    at = masked.LENGTH_OPS["as_prefix"](indices)
    return at._like(_traced_reduceat(ufunc, a, at.values, 0, dtype, at.length))


_PAIRWISE_UNROLL = 8  # NumPy's pairwise sum adds fewer terms than this one by one


def _window_summed(ufunc, out_dtype: np.dtype) -> bool:
    """Whether ``ufunc.reduceat``'s pieces are ``array.window_sum``s: float32, float64 and
    integer adds."""
    return ufunc is np.add and (out_dtype in (np.dtype(np.float32), np.dtype(np.float64))
                                or out_dtype.kind in "iu")


def _traced_reduceat(ufunc, a, indices: Tracer, axis, dtype, count: Tracer | None = None) -> Tracer:
    """``ufunc.reduceat(a, indices, axis)`` at traced ``indices``: ``len(indices)`` pieces (a
    static length), each reduced in a compiled loop over them, ``a[i:j]`` a selection of
    traced bounds (``masked.RangedSelection``). NumPy's piece k is ``a[i]`` folded with the
    reduction of ``a[i + 1:j]`` (its pairwise sum, for add), or ``a[i]`` alone where ``j <= i +
    1``; an index out of ``[0, n)`` raises its IndexError, as the call runs. With ``count``
    (traced), only the first ``count`` indices are pieces (a compacted selection's)."""
    name = ufunc.__name__
    if name not in kernel.REDUCEAT_INDEX:
        raise UnsupportedError(f"numpy.{name}.reduceat under jit takes static indices (at "
                               f"{user_location()}); at traced ones, add, multiply, maximum and "
                               "minimum compile")
    a = prims.array_operand(a)
    if not isinstance(a, Tracer):
        a = prims.constant(indices.owner_trace, np.asarray(a))
    if indices.ndim != 1 or indices.dtype.kind not in "iu":
        raise JitTypeError(f"numpy.{name}.reduceat takes a 1-d array of integer indices "
                           f"(at {user_location()})")
    if a.ndim == 0:
        raise JitTypeError(f"numpy.{name}.reduceat of a 0-d array (at {user_location()})")
    (axis,) = prims.normalize_axes(axis, a.ndim, f"{name}.reduceat")
    n, m = a.shape[axis], indices.shape[0]
    if m == 0 and count is None:
        raise JitValueError(f"numpy.{name}.reduceat of no indices (at {user_location()})")
    out_dtype = ufunc.reduceat(np.zeros(1, a.dtype), [0], dtype=dtype).dtype  # NumPy's
    if m == 0:  # (a selection of nothing: no pieces)
        return prims.constant(a.owner_trace, np.zeros((0,) + a.shape[:axis] + a.shape[axis + 1:], out_dtype))
    at = prims.convert(indices, np.dtype(np.int64))
    bad = (at < 0) | (at >= n)
    if count is not None:  # (the rows past the count are not indices)
        bad = bad & (prims.constant(a.owner_trace, np.arange(m)) < count)
    prims.RAISE_AT_FIRST(bad, at, kernel.REDUCEAT_INDEX[name], (0, n))
    rows = prims.convert(np.moveaxis(a, axis, 0), out_dtype)  # the pieces along the first axis
    ends = np.concatenate([at[1:], np.full(1, n, np.int64)])
    if count is not None:  # the last kept index's piece runs to the end
        ends = np.where(prims.constant(a.owner_trace, np.arange(1, m + 1)) < count, ends, n)
    pairwise = name == "add" and out_dtype.kind in "fc"
    out = prims.broadcast_to(prims.constant(a.owner_trace, np.zeros((), out_dtype)), (m,) + rows.shape[1:])
    if _window_summed(ufunc, out_dtype):
        # NumPy sums each lane's piece pairwise, as a 1-d array's, along any axis and in any
        # layout: its first element plus the pairwise sum of the rest, every lane at once
        # (integers: the same wrapping sum in any order)
        def window(k, out):
            start = at[k]
            rest = compaction.window_sum(rows, start + 1, ends[k])
            return indexing.update(out, (k,), rows[start] + rest)

        return np.moveaxis(cf.fori_loop(0, m if count is None else count, window, out), 0, axis)
    if pairwise and a.ndim > 1:
        # (complex, float16: one lane at a time, as a 1-d array's)
        lanes = np.moveaxis(a, axis, -1)
        flat = prims.reshape(lanes, (-1, n))
        out = prims.broadcast_to(prims.constant(a.owner_trace, np.zeros((), out_dtype)), (flat.shape[0], m))
        out = cf.fori_loop(0, flat.shape[0], lambda i, out: indexing.update(
            out, (i,), _traced_reduceat(ufunc, flat[i], at, 0, dtype, count)), out)
        return np.moveaxis(prims.reshape(out, lanes.shape[:-1] + (m,)), -1, axis)
    pairwise = pairwise and a.ndim == 1
    positions = prims.constant(a.owner_trace, np.arange(n))

    def rest_summed(first, start, end):
        # NumPy adds to the first element the pairwise sum of the rest: under 8 terms, one by
        # one from -0.0 (a loop over them); else the masked selection's sum (complex, float16:
        # a pass over all of a for each piece)
        def short():
            zero = prims.constant(a.owner_trace, np.array(-0.0, out_dtype))
            return first + cf.fori_loop(start + 1, end, lambda j, acc: acc + rows[j], zero)

        def long():
            return first + masked.MaskedSelection(rows, (positions > start) & (positions < end)).sum()

        return cf.cond(end - start <= _PAIRWISE_UNROLL, short, long) if n > _PAIRWISE_UNROLL else short()

    def rest_folded(first, start, end):
        # NumPy folds the rest of a piece into its first element one by one (an add along
        # an axis other than a 1-d array's pairs rows so too)
        return cf.fori_loop(start + 1, np.maximum(end, start + 1), lambda j, acc: ufunc(acc, rows[j]), first)

    def piece(k, out):
        start, end = at[k], ends[k]
        value = (rest_summed if pairwise else rest_folded)(rows[start], start, end)
        return indexing.update(out, (k,), value)

    return np.moveaxis(cf.fori_loop(0, m if count is None else count, piece, out), 0, axis)


def _loop_inputs(ufunc, inputs, dtype: np.dtype) -> tuple:
    """The inputs of ``ufunc(*inputs, dtype=dtype)`` cast to the loop NumPy picks for outputs of
    ``dtype`` (``np.subtract(u8, u8, dtype=np.int16)`` subtracts in int16), with NumPy's
    ``same_kind`` check on the inputs and its TypeError; Python numbers stay weak (NEP 50)."""
    weak = {"i": int, "u": int, "f": float, "c": complex}

    def given(x):
        if isinstance(x, Tracer):
            return weak[x.dtype.kind] if x.weak and x.dtype.kind in weak else x.dtype
        if isinstance(x, (int, float, complex)) and not isinstance(x, (bool, np.generic)):
            return type(x)
        return np.asarray(x).dtype

    try:
        loop = ufunc.resolve_dtypes((*map(given, inputs), *[None] * ufunc.nout),
                                    signature=(*[None] * ufunc.nin, *[dtype] * ufunc.nout),
                                    casting="same_kind")
    except TypeError as e:  # NumPy's UFuncTypeError: no such loop, or an unsafe input cast
        raise JitTypeError(f"{e} (at {user_location()})") from None
    return tuple(prims.convert(x, t) if isinstance(x, Tracer) else np.asarray(x, t)
                 for x, t in zip(inputs, loop))


_PAIRWISE_REDUCTIONS = (np.gcd, np.lcm)  # associative and commutative on integers


def _reduced_last(ufunc, a, axis, dtype):
    """``a`` in ``ufunc.reduce``'s dtype with the reduced axes merged into one last axis, in C
    order: (that array, its last length, the kept shape with keepdims, the empty result or
    None). NumPy's TypeError for a dtype it refuses and its errors for an empty reduction."""
    name = f"numpy.{ufunc.__name__}.reduce"
    a = prims.array_operand(a)
    if not isinstance(a, Tracer):
        a = prims.constant(prims.find_trace(a), np.asarray(a))
    try:  # NumPy's result dtype and its TypeError (floats, bools)
        out_dtype = ufunc.reduce(np.ones(2, a.dtype), dtype=dtype).dtype
    except TypeError as e:
        raise JitTypeError(f"{name}: {e} (at {user_location()})") from None
    a = prims.convert(a, out_dtype)
    if a.ndim == 0 and axis in (0, -1):
        axis = ()  # NumPy's ufunc.reduce takes axis 0 or -1 of a 0-d array
    axes = tuple(range(a.ndim)) if axis is None else tuple(
        sorted(prims.normalize_axes(axis, a.ndim, name)))
    kept = [d for d in range(a.ndim) if d not in axes]
    keep_shape = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
    n = int(np.prod([a.shape[d] for d in axes], dtype=np.int64))
    x = prims.reshape(prims.transpose(a, (*kept, *axes)), (*(a.shape[d] for d in kept), n))
    empty = None
    if n == 0 and ufunc.identity is None:
        raise JitValueError(f"zero-size array to reduction operation {ufunc.__name__} which has no "
                            f"identity (NumPy raises the same ValueError; at {user_location()})")
    if n == 0:
        empty = prims.constant(a.owner_trace, np.full(x.shape[:-1], ufunc.identity, out_dtype), out_dtype)
    return x, n, keep_shape, empty


def _pairwise_reduce(ufunc, a, axis, keepdims: bool, dtype):
    """``np.gcd.reduce`` / ``np.lcm.reduce``: the reduced axes merged into one last axis, then
    halved until one value is left, the first half paired with the second (an odd last one
    carried), about log2(n) elementwise steps. The operation is associative and commutative on
    integers, so this is the value of NumPy's left-to-right fold (an ``lcm`` that overflows
    may wrap to another value)."""
    x, n, keep_shape, out = _reduced_last(ufunc, a, axis, dtype)
    if out is None:
        while n > 1:
            h = n // 2
            y = prims.ufunc(ufunc, x[..., :h], x[..., h:2 * h])
            x = prims.concatenate([y, x[..., 2 * h:]], x.ndim - 1) if n % 2 else y
            n = h + n % 2
        out = x[..., 0]
        if ufunc.identity is not None:  # NumPy's fold starts there: gcd.reduce([-4]) is 4
            out = prims.ufunc(ufunc, out, np.array(ufunc.identity, x.dtype))
    return prims.reshape(out, keep_shape) if keepdims else as_scalar(out)


# Binary ufuncs whose reduce NumPy computes as the fold below (its power and arctan2 loops
# give other values when reducing, read-ahead of the accumulator: left unsupported).
_FOLDED_REDUCTIONS = (np.logaddexp, np.logaddexp2, np.hypot, np.subtract, np.divide, np.floor_divide,
                      np.remainder, np.fmod, np.copysign, np.heaviside, np.float_power)
_UNROLLED_FOLD = 16  # longer folds run as a loop: one elementwise op a step either way


def _fold_reduce(ufunc, a, axis, keepdims: bool, dtype):
    """``ufunc.reduce`` of a ufunc of ``_FOLDED_REDUCTIONS`` (``np.logaddexp.reduce``,
    ``np.hypot.reduce``, ``np.subtract.reduce``): NumPy's left-to-right fold, from the first
    element (after the identity where the ufunc has one: ``hypot.reduce([-3.0])`` is 3), so
    the same bits where the elementwise op gives NumPy's; one elementwise op per element along
    the reduced axis. Several axes are folded in C order (NumPy's for C-ordered data); a ufunc
    that is not reorderable takes one axis, as in NumPy."""
    a = prims.array_operand(a)
    ndim = np.ndim(a) if not isinstance(a, Tracer) else a.ndim
    several = axis is None and ndim > 1 or isinstance(axis, tuple) and len(axis) > 1
    if several and ufunc.identity is None:  # in this list: the ufuncs NumPy cannot reorder
        raise JitValueError(f"reduction operation '{ufunc.__name__}' is not reorderable, so at most "
                            f"one axis may be specified (NumPy raises the same ValueError; at "
                            f"{user_location()})")
    x, n, keep_shape, out = _reduced_last(ufunc, a, axis, dtype)
    first = None if out is not None else x[..., 0]
    if first is not None and ufunc.identity is not None:  # NumPy's fold starts there
        first = prims.convert(UFUNCS[ufunc](np.array(ufunc.identity, x.dtype), first), x.dtype)
    if out is None and n <= _UNROLLED_FOLD:
        out = first
        for i in range(1, n):
            out = prims.convert(UFUNCS[ufunc](out, x[..., i]), x.dtype)
    elif out is None:
        from jitcore import control_flow  # a lowering that builds a loop: imported when used

        out = control_flow.fori_loop(
            1, n, lambda i, acc: prims.convert(UFUNCS[ufunc](acc, x[..., i]), x.dtype), first)
    return prims.reshape(out, keep_shape) if keepdims and keep_shape else as_scalar(out)  # 0-d: a scalar


def _reduce_in_dtype(ufunc, reduce, a, dtype: np.dtype, given: dict):
    """``ufunc.reduce(a, dtype=dtype)``: ``sum``/``prod`` take the dtype themselves (it goes
    into ``given``); the extremes reduce ``a`` cast to it; the logical ones only in bool."""
    if reduce in (np.sum, np.prod):
        given["dtype"] = dtype
        return a
    if reduce in (np.all, np.any):
        if dtype != np.bool_:
            raise UnsupportedError(f"numpy.{ufunc.__name__}.reduce with dtype={dtype} is not supported "
                                   f"under jit (at {user_location()}); reduce in bool")
        return a
    return prims.convert(prims.array_operand(a), dtype)


def _out_refused(ufunc) -> str:
    """Why ``out=`` into a NumPy array cannot take traced values, and what to write instead."""
    name = ufunc.__name__
    return (f"numpy.{name}(..., out=) into an array that is not an argument of the jitted "
            f"function, a NumPy array jitcore cannot rebind to the traced result (at {user_location()}): "
            f"out= must be a local variable, in a statement of its own (np.{name}(a, b, out=tmp) "
            f"or y = np.{name}(a, b, out=tmp)), or an argument. For an attribute, a global or a "
            f"container element, assign the result instead (tmp = np.{name}(a, b)); with "
            "jit(..., autograph=False) only an argument can be out=")


def _ufunc_outer(ufunc, a, b):
    """``ufunc.outer(a, b)``: ``ufunc(a[..., None, ...], b)``, one new dim per dim of ``b``.
    NumPy turns both operands into arrays first, so Python scalars are not weak here."""
    a, b = (x if isinstance(x, Tracer) else np.asarray(x) for x in (a, b))
    a = prims.reshape(a, a.shape + (1,) * b.ndim) if isinstance(a, Tracer) else a.reshape(
        a.shape + (1,) * b.ndim)
    return UFUNCS[ufunc](a, b)


_AT_MODES = {np.add: "add", np.subtract: "sub", np.multiply: "mul", np.maximum: "max",
             np.minimum: "min", np.bitwise_and: "and", np.bitwise_or: "or", np.bitwise_xor: "xor"}


def masked_at(ufunc, x, indices, b=None):
    """``ufunc.at(x, r[ok], v)`` (``(r[ok], c[ok])`` for several dims): only the kept indices
    apply, as NumPy's selection of them does. Each index array keeps its length, the dropped
    positions given an index of 0 and a value that changes nothing there (the ufunc's identity,
    or for maximum and minimum the element's own value), so the scatter is ``_ufunc_at``'s.
    The kept indices are bounds-checked as NumPy's (IndexError, the first one out of range)."""
    name = f"numpy.{ufunc.__name__}.at"
    keys = indices if isinstance(indices, tuple) else (indices,)
    mode = _AT_MODES.get(ufunc)
    if not isinstance(x, Tracer) or mode is None or b is None or len(keys) > x.ndim or not all(
            isinstance(k, masked.MaskedSelection) for k in keys):
        raise keys[0]._refusal(f"{name} with it as the indices, other than np.add/subtract/multiply/"
                               "maximum/minimum/bitwise_*.at(x, idx[mask], v) (or a tuple of such "
                               "index arrays) into an array of the function")
    keys = tuple(k._on_one_axis() for k in keys)
    mask = keys[0].mask
    if any(not masked.same_mask(k.mask, mask) or k.values.shape != mask.shape or k.ndim != 1
           or k.values.dtype.kind not in "iu" for k in keys):
        raise keys[0]._refusal(f"{name} with index arrays selected by different masks, or not "
                               "1-d integer ones")
    if isinstance(b, masked.MaskedSelection):
        b = b._on_one_axis()
        if not masked.aligned_by_mask(b, keys[0]) or b.values.shape != mask.shape:
            raise b._refusal(f"{name} with values selected by another mask than the indices")
        values = b.values
    elif isinstance(b, (bool, int, float, complex)):  # (weak, as NumPy's: np.add.at(c32, i, 1) is int32)
        ct = ufunc.resolve_dtypes((x.dtype, type(b), None))[1]
        values = prims.constant(mask.owner_trace, np.asarray(b, ct))
    elif np.ndim(b) == 0:
        values = b if isinstance(b, Tracer) else prims.constant(mask.owner_trace, np.asarray(b))
    else:
        raise keys[0]._refusal(f"{name} with values of shape {np.shape(b)}: give one value, or "
                               "values selected by the same mask")
    found = []
    for axis, k in enumerate(keys):
        idx = prims.convert(k.values, np.dtype(np.int64))
        n = x.shape[axis]
        prims.RAISE_AT_FIRST(mask & ((idx < -n) | (idx >= n)), idx, kernel.INDEX_OUT_OF_BOUNDS, (axis, n))
        found.append(np.where(mask, np.where(idx < 0, idx + n, idx), 0))
    found = tuple(found)
    identity = 0 if ufunc is np.subtract else ufunc.identity
    rest = x.shape[len(keys):]
    if rest:  # (values broadcast along the rest of each addressed row)
        values = prims.broadcast_to(values, mask.shape + rest) if np.ndim(values) else values
    kept = prims.reshape(mask, mask.shape + (1,) * len(rest))
    unchanged = indexing.getitem(x, found) if identity is None else \
        prims.constant(mask.owner_trace, np.asarray(identity).astype(values.dtype))
    _ufunc_at(ufunc, x, found if len(found) > 1 else found[0], np.where(kept, values, unchanged))


def _made_out(target):
    """An ``out=`` that is a NumPy array the traced code made and a variable of converted code
    holds (a closure's, ``np.add(log, v, out=log)`` in a helper): its traced copy, which
    those variables are given (``local_arrays.held_copy``); else ``target`` itself."""
    if type(target) is np.ndarray and target.dtype.kind in "biufc" and _made_while_tracing(target):
        from jitcore.autograph.local_arrays import held_copy

        return held_copy(target)
    return target


def _made_while_tracing(a: np.ndarray) -> bool:
    """Whether NumPy array ``a`` was made by the code being traced (not the caller's: a
    global's or a closed-over array of outside code, ``calltime``'s call-time inputs)."""
    from jitcore import calltime
    from jitcore.tracer import current_trace

    r = calltime.recorder()
    if r is None or current_trace() is None:
        return False
    owner = a
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    known = r._known.get(id(owner))
    return known is None or known[0] is not owner


def _ufunc_at(ufunc, x, indices, b=None):
    """``ufunc.at(x, indices, b)``: ``x`` updated in place, every occurrence of a repeated index
    applied in turn; each step computes in NumPy's loop dtype and casts back to ``x.dtype``.

    A key without integer arrays, or with constant indices that never repeat, is
    ``x[key] = ufunc(x[key], b)``. Otherwise the ufuncs of ``_AT_MODES`` become one
    ``array.scatter_nd``, which combines in ``x.dtype``: exact when that is the loop dtype,
    for wrapping integer arithmetic, and for a constant ``b`` exact in ``x.dtype`` (then one
    rounding of a wider loop dtype gives the same result)."""
    keys = indices if isinstance(indices, tuple) else (indices,)
    if any(isinstance(k, masked.MaskedSelection) for k in keys):
        return masked_at(ufunc, x, indices, b)  # (np.add.at(c, r[ok], 1): the kept indices)
    if type(x) is np.ndarray and x.dtype.kind in "biufc" and _made_while_tracing(x):
        # a closure's np.zeros (np.add.at(log, k, v) in a helper): written as its traced copy,
        # which every variable of converted code holding it is given (a traced loop or branch
        # around is traced again with it made traced: local_arrays.HeldOutside); one no such
        # variable holds (autograph=False) stays NumPy's, refused below
        from jitcore.autograph.local_arrays import held_copy

        x = held_copy(x)
    if not isinstance(x, Tracer):
        raise UnsupportedError(
            f"numpy.{ufunc.__name__}.at into an array that is not an argument of the jitted "
            f"function (at {user_location()}): pass that array in as an argument")
    if (b is None) != (ufunc.nin == 1):
        raise ValueError("second operand needed for ufunc" if b is None else
                        "second operand provided when ufunc is unary")
    v = None if b is None else b if isinstance(b, Tracer) else np.asarray(b)
    dtypes = (x.dtype,) if v is None else (x.dtype, v.dtype)
    ct = ufunc.resolve_dtypes(dtypes + (None,) * ufunc.nout)[ufunc.nin]
    keys = indices if isinstance(indices, tuple) else (indices,)
    advanced = any(indexing.is_array_index(k) for k in keys)
    constant = not any(isinstance(k, Tracer) for k in keys)
    if constant and advanced:
        probe = np.zeros(x.shape, np.int32)  # counts of each element (trace time only)
        np.add.at(probe, indices, 1)  # NumPy's IndexError for a bad key
        repeats = bool((probe > 1).any())
    else:
        repeats = advanced
    target = indexing._Plan(x, indices).final if advanced else indexing.getitem(x, indices).shape
    if v is not None:
        try:
            ok = np.broadcast_shapes(v.shape, target) == tuple(target)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError("array is not broadcastable to correct shape")
    mode = _AT_MODES.get(ufunc)
    scatter = advanced and mode is not None and _at_exact_in(x.dtype, ct, mode, v)
    if not scatter and not repeats:  # each element at most once: x[key] = ufunc(x[key], b)
        part = prims.convert(indexing.getitem(x, indices), ct)
        args = (part,) if v is None else (part, prims.as_tracer(x.owner_trace, v, ct))
        prims.assign(x, indexing.update(x, indices, prims.convert(UFUNCS[ufunc](*args), x.dtype)))
        return None
    if not scatter:
        _stepped_at(ufunc, x, indices, v, ct, tuple(target))
        return None
    prims.assign(x, indexing.scatter(x, indices, v, mode, dtype=x.dtype))
    return None


def _stepped_at(ufunc, x: Tracer, indices, v, ct: np.dtype, target: tuple) -> None:
    """``ufunc.at`` as NumPy's unbuffered loop runs it, where one scatter cannot: a loop
    dtype ``ct`` wider than ``x``'s (float64 updates into float32: each step rounds to float32
    before the next reads it; int += 1.5, cast unsafely at each step), or a ufunc without a
    scatter mode (``np.divide.at``). A compiled loop over the selected elements in C order
    (NumPy's order, which repeated indices follow): read the element, compute in ``ct``, cast
    back, write. The positions come from the user's key applied to each element's flat
    position, so NumPy's index checks and negative indices are the key's own."""
    trace = x.owner_trace
    flat_at = None  # each element's flat position: sums of small aranges, broadcast
    stride = 1
    for d in reversed(range(x.ndim)):
        along = prims.constant(trace, np.arange(x.shape[d], dtype=np.int64) * stride)
        dims = (x.ndim - 1 - d) * (1,)
        along = prims.broadcast_to(prims.reshape(along, (x.shape[d], *dims)), x.shape)
        flat_at = along if flat_at is None else prims.ufunc(np.add, flat_at, along)
        stride *= x.shape[d]
    if flat_at is None:  # a 0-d x: its one element
        flat_at = prims.constant(trace, np.array(0, np.int64))
    positions = prims.ravel(indexing.getitem(flat_at, indices))
    count = int(np.prod(target, dtype=np.int64))
    values = None if v is None else prims.ravel(prims.broadcast_to(prims.as_tracer(trace, v, ct), target))
    step = UFUNCS[ufunc]

    def body(k, flat):
        p = indexing.getitem(positions, k)
        old = prims.convert(indexing.getitem(flat, p), ct)
        new = step(old) if values is None else step(old, indexing.getitem(values, k))
        return indexing.update(flat, p, prims.convert(new, x.dtype))

    if count:
        flat = cf.fori_loop(0, count, body, prims.ravel(x))
        prims.assign(x, prims.reshape(flat, x.shape))


def _at_exact_in(dtype, ct, mode: str, v) -> bool:
    """Whether combining in ``dtype`` gives NumPy's steps in loop dtype ``ct``, each cast back."""
    if ct == dtype:
        return True
    if dtype.kind in "iu" and ct.kind in "iu" and mode in ("add", "sub", "mul", "and", "or", "xor"):
        return True  # wrapping arithmetic: casting back after each step or at the end agree
    exact_x = dtype.kind == ct.kind or (dtype.kind in "biu" and ct.kind in "iu")
    if isinstance(v, Tracer) or not exact_x or (dtype.kind == "c" and mode == "mul"):
        return False
    with np.errstate(all="ignore"):
        exact_v = np.array_equal(v.astype(dtype).astype(ct), v.astype(ct), equal_nan=True)
    return exact_v and (mode in ("max", "min") or dtype.kind in "bfc")


def _ufunc_where(ufunc, inputs, out, casting, where, kwargs):
    """``ufunc(*inputs, out=target, where=mask)``: the result where the mask holds, the target's
    values elsewhere. Without ``out=`` NumPy leaves those elements uninitialised; here they are
    zero, one of the values NumPy could give."""
    if ufunc.nout != 1 or (out is not None and len(out) != 1):
        raise UnsupportedError(f"numpy.{ufunc.__name__} with where= and several outputs is not "
                               f"supported under jit yet (at {user_location()})")
    if any(not _is_default_ufunc_kwarg(k, v) for k, v in kwargs.items()):
        raise UnsupportedError(f"numpy.{ufunc.__name__} with {', '.join(sorted(kwargs))} is not "
                               f"supported under jit yet (at {user_location()})")
    result = UFUNCS[ufunc](*inputs)
    mask = prims.as_bool(where) if isinstance(where, Tracer) else np.asarray(where, bool)
    target = None if out is None else out[0]
    if target is None:
        return prims.where(mask, result, prims.convert(prims.constant(result.owner_trace, 0), result.dtype))
    target = _made_out(target)
    if not isinstance(target, Tracer):
        raise UnsupportedError(_out_refused(ufunc))
    if casting == "unsafe":
        result = prims.convert(result, target.dtype)
    return _assign_out(ufunc, target, prims.where(mask, result, target), casting)


def _assign_out(ufunc, target, result, casting: str = "same_kind"):
    """A result of the ufunc into its ``out=`` array, if one is given, cast by ``casting``."""
    if target is None:
        return result
    target = _made_out(target)
    if not isinstance(target, Tracer):
        raise UnsupportedError(_out_refused(ufunc))
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' "
                         f"(got {casting!r})")
    prims.assign(target, result, casting, f"ufunc '{ufunc.__name__}'")
    return target


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "subok": True}


def _is_default_ufunc_kwarg(key: str, value) -> bool:
    if isinstance(value, (Tracer, np.ndarray)):
        return False
    return value is None or (key in _UFUNC_DEFAULTS and value == _UFUNC_DEFAULTS[key])


_UFUNC_ACCUMULATIONS = {np.add: np.cumsum, np.multiply: np.cumprod, np.maximum: None, np.minimum: None,
                        np.fmax: None, np.fmin: None, np.bitwise_and: None, np.bitwise_or: None,
                        np.bitwise_xor: None}
_RUNNING_EXTREMES = {np.maximum: "max", np.minimum: "min"}  # array.scan kinds of their own
_NAN_SKIPPING_EXTREMES = {np.fmax: "max", np.fmin: "min"}


_LOGICAL_ACCUMULATIONS = (np.logical_or, np.logical_and, np.logical_xor)


def _logical_accumulation(ufunc, a, axis):
    """``np.logical_or/and/xor.accumulate``: over the truth values, a running max (any so far),
    a running min (all so far), or the parity of the running count of true ones; bool, as NumPy."""
    if a.ndim == 0:
        raise JitTypeError(f"cannot accumulate on a scalar (NumPy raises the same TypeError), "
                           f"at {user_location()}")
    b = prims.as_bool(a)
    if ufunc is not np.logical_xor:
        return reductions.running_extreme("max" if ufunc is np.logical_or else "min", b, axis, None)
    if axis is None and a.ndim > 1:
        raise JitValueError(f"numpy.logical_xor.accumulate needs an axis for a {a.ndim}-d array "
                            f"(NumPy raises the same ValueError), at {user_location()}")
    count = np.cumsum(b, axis=0 if axis is None else axis, dtype=np.uint8)  # wraps at 256: even
    return prims.as_bool(count & np.uint8(1))


def _running_nan_skipping_extreme(ufunc, a, axis, dtype):
    """``np.fmax.accumulate``/``np.fmin.accumulate``: fmax of a NaN and a number is the number,
    so a running value is NaN only while every element so far is NaN, and otherwise the running
    maximum of the numbers: the running max with NaN read as -inf (+inf for fmin), NaN where
    no number has been seen yet. Ties of numbers go as in ``maximum`` (the same comparison)."""
    kind = _NAN_SKIPPING_EXTREMES[ufunc]
    a = a if dtype is None else prims.convert(a, np.dtype(dtype))
    if a.dtype.kind == "c":
        raise UnsupportedError(f"numpy.{ufunc.__name__}.accumulate of complex numbers is not "
                               f"supported under jit (at {user_location()})")
    if a.dtype.kind != "f":  # no NaN: the same as maximum's
        return reductions.running_extreme(kind, a, axis, None)
    nan = prims.ufunc(np.isnan, a)
    fill = prims.constant(a.owner_trace, -np.inf if kind == "max" else np.inf, a.dtype)
    run = reductions.running_extreme(kind, np.where(nan, fill, a), axis, None)
    seen = reductions.running_extreme("max", prims.convert(np.logical_not(nan), np.int8),
                                      axis, None)
    return np.where(seen > 0, run, prims.constant(a.owner_trace, np.nan, a.dtype))
_UFUNC_REDUCTIONS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max,
                     np.minimum: np.min, np.logical_and: np.all, np.logical_or: np.any,
                     np.fmax: np.nanmax, np.fmin: np.nanmin}  # fmax skips NaN, as nanmax does


# -- Everyday float helpers built from the ufuncs above, at NumPy's exact arithmetic. --------

def _float_dtype(fn, x) -> np.dtype:
    _no_complex(fn, x)
    return fn.resolve_dtypes((x.dtype, None))[1]


def _no_complex(fn, *xs) -> None:
    if builtins.any(isinstance(x, Tracer) and x.dtype.kind == "c" for x in xs):
        raise JitTypeError(f"ufunc '{fn.__name__}' not supported for the input types (complex "
                           f"numbers; NumPy raises the same TypeError), at {user_location()}")


def _scale(np_fn, numer: float, denom: float):
    """``deg2rad``/``rad2deg``: NumPy multiplies by ``numer / denom`` computed in the loop's
    float type (float16 computes in float32, then rounds)."""
    def impl(x):
        out_dtype = _float_dtype(np_fn, x)
        loop = np.dtype(np.float32) if out_dtype == np.float16 else out_dtype
        factor = loop.type(numer) / loop.type(denom)
        return prims.convert(prims.ufunc(np.multiply, prims.convert(x, loop), factor), out_dtype)
    return _ufunc(np_fn, impl)


deg2rad = radians = _scale(np.deg2rad, np.pi, 180.0)
rad2deg = degrees = _scale(np.rad2deg, 180.0, np.pi)
UFUNCS[np.radians], UFUNCS[np.degrees] = UFUNCS[np.deg2rad], UFUNCS[np.rad2deg]


def _signbit(x):
    """The sign bit (``array.signbit``): -0.0 and -nan included, as in NumPy."""
    _no_complex(np.signbit, x)
    if x.dtype.kind in "biu":
        return prims.ufunc(np.less, x, 0) if x.dtype.kind == "i" else prims.ufunc(np.not_equal, x, x)
    return prims.ufunc(np.signbit, x)


def _copysign(x1, x2):
    _no_complex(np.copysign, x1, x2)
    trace = prims.find_trace(x1, x2)
    dtype = np.copysign.resolve_dtypes(tuple(_dtype_or_weak(v) for v in (x1, x2)) + (None,))[2]
    a = prims.ufunc(np.absolute, prims.as_tracer(trace, x1, dtype))
    negative = _signbit(prims.as_tracer(trace, x2, dtype))
    return prims.where(negative, prims.ufunc(np.negative, a), a)


def _dtype_or_weak(v):
    if isinstance(v, Tracer):
        return v.dtype
    return type(v) if type(v) in (int, float, complex) else np.asarray(v).dtype


signbit = _ufunc(np.signbit, _signbit)
copysign = _ufunc(np.copysign, _copysign)


def _round_out(result, out):
    """``np.round(a, d, out=o)`` where ``o`` has the result's shape and dtype: the same values
    (in another dtype NumPy rounds its scaled values in that dtype, which jitcore does not
    follow)."""
    if not isinstance(out, Tracer) or out.shape != result.shape or out.dtype != result.dtype:
        into = (f"an array of shape {out.shape} and dtype {out.dtype}" if isinstance(out, Tracer)
                else "a NumPy array that is not an argument of the jitted function")
        raise UnsupportedError(
            f"numpy.round(..., out=) into {into}, for a result of shape "
            f"{result.shape} and dtype {result.dtype}, is not supported under jit (at "
            f"{user_location()}): assign the result instead (o = np.round(...))")
    prims.assign(out, result)
    return out


@implements(np.round, np.around)
def round(a, decimals=0, out=None):
    """NumPy's rounding: half to even; for ``decimals`` d > 0 ``rint(a * 10**d) / 10**d``, for
    d < 0 ``rint(a / 10**-d) * 10**-d`` (integers through float64, then cast back; integers
    with d >= 0 are copied; complex numbers part by part, as NumPy's ``PyArray_Round``)."""
    if not traced(a):
        return np.round(a, decimals, out)
    if out is not None:
        return _round_out(round(a, decimals), out)
    decimals = operator.index(decimals)
    if a.dtype.kind == "c":  # NumPy rounds the real and imaginary parts apart, each as a float
        return prims.complex_from_parts(*(round(prims.part(p, a), decimals) for p in ("real", "imag")))
    if a.dtype.kind == "b" and decimals:
        raise JitTypeError(f"numpy.round of a bool array with decimals={decimals}: NumPy cannot "
                           f"cast the scaled float64 back to bool (at {user_location()})")
    if a.dtype.kind in "iu":
        if decimals >= 0:
            return fresh(a)
        f = float(10.0 ** -decimals)
        y = prims.ufunc(np.multiply, prims.ufunc(np.rint, prims.ufunc(np.divide, a, f)), f)
        return prims.convert(y, a.dtype)
    if decimals == 0:
        return prims.ufunc(np.rint, a)
    f = float(10.0 ** abs(decimals))
    first, then = (np.multiply, np.divide) if decimals > 0 else (np.divide, np.multiply)
    return prims.ufunc(then, prims.ufunc(np.rint, prims.ufunc(first, a, f)), f)


around = round


@implements(np.nan_to_num)
@prims.numpy_scalar  # NumPy returns x[()] for a 0-d x: a scalar
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, +-inf to ``posinf``/``neginf`` (default: the dtype's largest finite
    magnitudes); complex numbers part by part; other dtypes are copied."""
    if not traced(x):
        return np.nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    if x.dtype.kind not in "fc":
        return fresh(x) if copy or x.scalar else x
    out = (_finite_complex if x.dtype.kind == "c" else _finite)(x, nan, posinf, neginf)
    if copy or x.scalar:  # a NumPy scalar is immutable: NumPy returns a new one
        return out
    prims.assign(x, out, "unsafe", "numpy.nan_to_num")  # copy=False: in place, as NumPy's
    return x


def _finite_complex(x, nan, posinf, neginf):
    """Part by part. jitcore has no op that joins two float parts into a complex number, so an
    element with a NaN or inf part is rebuilt as ``re + im * 1j`` (exact for the finite parts it
    then has, but for the sign of a zero part: +0.0 where NumPy keeps -0.0, documented); the
    other elements are passed through unchanged."""
    re, im = prims.part("real", x), prims.part("imag", x)
    fixed_re, fixed_im = (_finite(p, nan, posinf, neginf) for p in (re, im))
    rebuilt = prims.ufunc(np.add, prims.convert(fixed_re, x.dtype),
                          prims.ufunc(np.multiply, prims.convert(fixed_im, x.dtype), 1j))
    return prims.where(prims.ufunc(np.isfinite, x), x, rebuilt)


def _finite(x, nan, posinf, neginf):
    info = np.finfo(x.dtype)
    big = info.max if posinf is None else posinf
    small = -info.max if neginf is None else neginf
    trace = x.owner_trace
    fill = {v: prims.as_tracer(trace, np.asarray(v).astype(x.dtype), x.dtype) for v in (nan, big, small)}
    out = prims.where(prims.ufunc(np.isnan, x), fill[nan], x)
    out = prims.where(prims.ufunc(np.equal, x, np.inf), fill[big], out)
    return prims.where(prims.ufunc(np.equal, x, -np.inf), fill[small], out)


@implements(np.isclose)
def isclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """NumPy 2's formula: ``|a - b| <= atol + rtol * |b|`` where ``b`` is finite, or ``a == b``
    (``b`` taken as ``result_type(b, 1.0)``); NaNs equal if ``equal_nan``."""
    if not traced(a, b, rtol, atol):
        return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    trace = prims.find_trace(a, b, rtol, atol)
    x, y = (v if isinstance(v, Tracer) or type(v) in (int, float, complex) else np.asarray(v)
            for v in (a, b))
    if isinstance(y, Tracer) or isinstance(y, np.ndarray):
        # NumPy's asanyarray(b): a Python float argument becomes a float64 array, not weak
        y = fresh(prims.as_tracer(trace, y, np.result_type(y.dtype, 1.0)), getattr(y, "scalar", False))
    elif type(y) is int:
        y = float(y)
    bound = _op(np.add, atol, _op(np.multiply, rtol, _op(np.absolute, y)))
    close = _op(np.less_equal, _op(np.absolute, _op(np.subtract, x, y)), bound)
    out = _op(np.bitwise_or, _op(np.bitwise_and, close, _op(np.isfinite, y)),
                      _op(np.equal, x, y))
    if equal_nan:
        both = _op(np.bitwise_and, _op(np.isnan, x), _op(np.isnan, y))
        out = _op(np.bitwise_or, out, both)
    return prims.as_scalar(out) if out.ndim == 0 else out


def _op(fn, *args):
    """``fn(*args)``, recorded if an operand is traced; on Python numbers Python's arithmetic
    (so that they stay weak, as in NumPy's own isclose)."""
    if traced(*args):
        return prims.ufunc(fn, *args)
    python = {np.add: operator.add, np.multiply: operator.mul, np.absolute: builtins.abs}
    if fn in python and builtins.all(type(v) in (int, float, complex) for v in args):
        return python[fn](*args)
    return fn(*args)


@implements(np.allclose)
@python_bool
def allclose(a, b, rtol=1.e-5, atol=1.e-8, equal_nan=False):
    """``all(isclose(...))``, a Python bool as NumPy's (a traced ``if`` on it is a branch)."""
    if not traced(a, b, rtol, atol):
        return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return prims.reduction("and", prims.as_bool(isclose(a, b, rtol, atol, equal_nan)))


masked.SELECTION_STATISTICS["ufunc_at"] = masked_at
