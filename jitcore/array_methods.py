"""The operators and ndarray methods of ``Tracer``, installed on the class when jitcore is imported.

``tracer.py`` holds a traced array's state; what ``x + y``, ``x[k]``, ``x.sum()`` and
``np.sin(x)`` record is up to ``primitives``, ``indexing`` and ``jitcore.numpy``, which all import
``tracer.py``. Installing the methods from here, above all of them, keeps every import pointing
one way (JAX installs its array methods the same way, from ``jax/_src/numpy/array_methods.py``).

NumPy's ufuncs decide every result type; in-place operators follow NumPy's ``same_kind``
casting and rebind the tracer (see ``Tracer.rebind``).
"""

from __future__ import annotations

import functools

import numpy as np

from jitcore import (
    chosen_kind_arithmetic,
    index_forms,
    indexing,
    masked,
    number_or_array,
    python_arithmetic,
    view_layout,
)
from jitcore import primitives as prims
from jitcore.errors import JitTypeError, JitValueError, UnsupportedError
from jitcore.numpy import manipulation, reductions, registry, selection, sorting, ufuncs
from jitcore.numpy.linalg import diagonal as _diagonal  # the module; jnp.linalg is numpy.linalg's names
from jitcore.numpy.linalg import matmul as _matmul
from jitcore.python_arithmetic import python_bool, python_number
from jitcore.tracer import Tracer, as_scalar, fresh, make_view, user_location

# x OP y, y OP x and x OP= y: NumPy's ufunc for each operator.
_ARITHMETIC = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor, "lshift": np.left_shift, "rshift": np.right_shift,
}
_COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                "gt": np.greater, "ge": np.greater_equal}
_UNARY = {"neg": np.negative, "pos": np.positive, "abs": np.absolute, "invert": np.invert}


def _method(fn, name: str):
    fn.__name__ = name
    fn.__qualname__ = f"Tracer.{name}"
    return fn


def _as_numpy_bool(x):
    return fresh(x, x.scalar, False) if isinstance(x, Tracer) else np.bool_(x)


def _python_operands(ufunc, a, b):
    """``a`` and ``b`` as Python combines them where both are Python numbers and one is traced:
    a bool is an int in arithmetic (``True + int(t)`` is a Python int, not np.int64; ``&``,
    ``|`` and ``^`` of two bools stay bool), and complex numbers have no order (TypeError)."""
    if not (python_number(a) and python_number(b)):
        return a, b
    if ufunc in _ORDERING and any(getattr(x, "dtype", np.dtype(type(x))).kind == "c" for x in (a, b)):
        raise JitTypeError(f"'{_ORDERING[ufunc]}' not supported between Python complex numbers "
                           f"and other numbers (Python's TypeError), at {user_location()}")
    if ufunc in _BITWISE and python_bool(a) and python_bool(b):
        return a, b
    return tuple(int(x) if type(x) is bool else x for x in (a, b))


def _binary(ufunc, a, b):
    """``a OP b`` as Python and NumPy give it where a traced Python bool takes part: with a NumPy
    value (an array, a NumPy scalar) it is ``np.bool_`` (``bool_array + (k > 2)`` stays bool);
    between Python bools ``&``, ``|``, ``^`` give a Python bool, the rest Python's ints. A value
    whose type the data chose keeps the choice (``chosen_kind_arithmetic``)."""
    chosen = chosen_kind_arithmetic.apply(functools.partial(_binary, ufunc), a, b)
    if chosen is not None:
        return chosen
    a, b = _python_operands(ufunc, a, b)
    if python_bool(a) or python_bool(b):
        if ufunc in _BITWISE and python_bool(a) and python_bool(b):
            out = prims.ufunc(ufunc, _as_numpy_bool(a), _as_numpy_bool(b))
            return fresh(out, out.scalar, True)
        numpy_a, numpy_b = (isinstance(x, (np.ndarray, np.generic)) or (isinstance(x, Tracer) and not x.weak)
                            for x in (a, b))
        a = _as_numpy_bool(a) if numpy_b and python_bool(a) else a
        b = _as_numpy_bool(b) if numpy_a and python_bool(b) else b
    python_arithmetic.check_division(ufunc, a, b)
    python_arithmetic.check_int_overflow(ufunc, a, b)
    out = python_arithmetic.python_ufunc(ufunc, a, b)
    if ufunc in (np.add, np.subtract, np.multiply):
        if isinstance(out, Tracer) and out.ndim == 0 and out.dtype.kind in "iu":
            form = index_forms.combine(ufunc, a, b)  # i + 1 is still i, shifted
            if form is not None and not form.known:
                out.open_form, form = form, None  # (no bounds: only a window's check reads it)
            out.index_form = form
    elif index_forms.form_of(a) or index_forms.form_of(b):
        if isinstance(out, Tracer) and out.ndim == 0:
            out.refines = index_forms.refinement(ufunc, a, b)  # t >= w: a traced if's test
    return out


_BITWISE = (np.bitwise_and, np.bitwise_or, np.bitwise_xor)
_ORDERING = {np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">="}


def _complex_takes(left, right: Tracer) -> bool:
    """Whether Python computes ``left OP right`` itself: np.float64 is a subclass of float, so
    ``1j * s`` of a float64 NumPy scalar ``s`` is ``complex.__mul__``, a Python complex (whose
    promotion is weak: ``c64 + 1j * s`` stays complex64)."""
    return type(left) is complex and right.scalar and not right.weak and right.dtype == np.float64


def _python_complex(x):
    return fresh(x, x.scalar, True) if isinstance(x, Tracer) else x


def _repeats(self, other, name: str) -> bool:
    """``[0.0] * n``, ``(a, b) * k``: a list or tuple times a number (a NumPy scalar or a Python
    number argument) is Python's repetition, as NumPy's scalars give it, which needs the
    number's value; a float refused as Python refuses it. A 0-d array broadcasts instead."""
    if name not in ("__mul__", "__rmul__") or not isinstance(other, (list, tuple)):
        return False
    if self.ndim or not (self.scalar or self.weak):
        return False
    if self.dtype.kind not in "iub":
        raise JitTypeError(f"can't multiply sequence by non-int of type '{self.dtype}' "
                           f"(at {user_location()})")
    self._concretize("the count of a list or tuple repeated (seq * n)")
    return True


def _operator(ufunc, name: str):
    def operator(self, other):
        _repeats(self, other, name)
        return _binary(ufunc, self, other)

    return _method(operator, name)


def _equality(ufunc, name: str):
    """``==`` and ``!=``: against a string, bytes or None NumPy answers unequal (``x == "fro"``
    is False, an array of False for an array) where its ufunc has no loop: code that checks
    an argument against a mode string (np.linalg.norm's ord) takes the same path traced."""
    def equality(self, other):
        if isinstance(other, (str, bytes)) or other is None:
            if self.ndim == 0 and self.scalar:
                return ufunc is np.not_equal
            return prims.constant(self.owner_trace, np.full(self.shape, ufunc is np.not_equal))
        return _binary(ufunc, self, other)

    return _method(equality, name)


def _reflected(ufunc, name: str):
    def reflected(self, other):
        _repeats(self, other, name)
        out = _binary(ufunc, other, self)
        return _python_complex(out) if _complex_takes(other, self) else out

    return _method(reflected, name)


def _unary(ufunc, name: str):
    def unary(self):
        chosen = chosen_kind_arithmetic.apply(unary, self)
        if chosen is not None:
            return chosen
        python_arithmetic.check_int_negation(ufunc, self)
        out = prims.ufunc(ufunc, self)
        form = index_forms.form_of(self)
        if form is not None and ufunc in (np.negative, np.positive) and isinstance(out, Tracer) \
                and out.ndim == 0 and out.dtype.kind == "i":
            out.index_form = form.negated() if ufunc is np.negative else form  # x[:-k]
        return out

    return _method(unary, name)


def _in_place(ufunc, name: str):
    def in_place(self, other):
        return in_place_operator(self, ufunc, other)

    return _method(in_place, name)


def in_place_operator(x: Tracer, ufunc, other):
    """``x OP= other`` with NumPy's semantics: ``x`` is written with ``same_kind`` casting; a
    NumPy scalar is immutable, so there ``s += y`` rebinds ``s`` to ``s + y``."""
    if x.scalar and chosen_kind_arithmetic.chosen(x, other):
        return power(x, other) if ufunc is np.power else _binary(ufunc, x, other)
    if ufunc is np.power:
        new = power(x, other)
    else:
        operands = _python_operands(ufunc, x, other)
        python_arithmetic.check_division(ufunc, *operands)
        python_arithmetic.check_int_overflow(ufunc, *operands)
        new = python_arithmetic.python_ufunc(ufunc, *operands)
    if x.scalar:
        return new
    prims.assign(x, new, "same_kind", f"ufunc '{ufunc.__name__}'")
    return x


# -- operators that are not one ufunc ------------------------------------------------------
def power(self, other):
    chosen = chosen_kind_arithmetic.apply(power, self, other)
    if chosen is not None:
        return chosen
    self, other = _python_operands(np.power, self, other)
    python = python_arithmetic.python_power(self, other)
    return prims.power_operator(self, other) if python is None else python


def reflected_power(self, other):
    chosen = chosen_kind_arithmetic.apply(reflected_power, self, other)
    if chosen is not None:
        return chosen
    other, exponent = _python_operands(np.power, other, self)
    python = python_arithmetic.python_power(other, exponent)
    if python is not None:
        return python
    out = prims.ufunc(np.power, other, self)
    return _python_complex(out) if _complex_takes(other, self) else out


def divmod_(self, other):
    python_arithmetic.check_division(np.floor_divide, *_python_operands(np.floor_divide, self, other),
                                     divmod_=True)
    python_arithmetic.check_int_overflow(np.floor_divide, *_python_operands(np.floor_divide, self, other))
    return prims.ufunc(np.floor_divide, self, other), prims.ufunc(np.remainder, self, other)


def reflected_divmod(self, other):
    python_arithmetic.check_division(np.floor_divide, *_python_operands(np.floor_divide, other, self),
                                     divmod_=True)
    python_arithmetic.check_int_overflow(np.floor_divide, *_python_operands(np.floor_divide, other, self))
    return prims.ufunc(np.floor_divide, other, self), prims.ufunc(np.remainder, other, self)


def matmul(self, other):
    if _takes_ufuncs_itself(other):  # (A @ V of eig's V: its own np.matmul)
        return NotImplemented
    return _matmul(self, other)


def reflected_matmul(self, other):
    if _takes_ufuncs_itself(other):
        return NotImplemented
    return _matmul(other, self)


def _takes_ufuncs_itself(other) -> bool:
    from jitcore.real_or_complex import RealOrComplex  # (it needs tracers, which need this)

    return isinstance(other, RealOrComplex)


# -- NumPy's protocols: np.sin(tracer), np.sum(tracer), ndarray + tracer ---------------------
def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__" and not kwargs and chosen_kind_arithmetic.chosen(*inputs):
        # ``np.sqrt(k)`` of a scalar whose kind the data chose: NumPy's type for the kind taken
        chosen = chosen_kind_arithmetic.apply(lambda *args: ufuncs.apply_ufunc(ufunc, method, args, {}),
                                              *inputs)
        if chosen is not None:
            return chosen
    return ufuncs.apply_ufunc(ufunc, method, inputs, kwargs)


# Joins of a list that a selection in it handles (masked._stacked, run_length.concatenate).
_JOINS = frozenset((np.concatenate, np.vstack, np.hstack, np.stack, np.column_stack))


def array_function(self, func, types, args, kwargs):
    if func in _JOINS and args and isinstance(args[0], (list, tuple)) \
            and any(isinstance(a, masked.MaskedSelection) for a in args[0]):
        return NotImplemented  # np.concatenate([x[:2], x[m]]), np.vstack([V, mid]): the selection's
    return registry.apply_function(func, args, kwargs)


def index_updates(self) -> indexing.IndexUpdates:
    """JAX's functional updates: ``x.at[idx].set(v)`` returns a new array."""
    return indexing.IndexUpdates(self)


# -- ndarray methods and properties ----------------------------------------------------------
def _fortran_order(self, order) -> bool:
    """Whether NumPy's ``order`` argument makes the result Fortran-ordered (for ``self`` as the
    tracer's layout says: 'A' and 'K' keep it)."""
    if order not in ("C", "F", "A", "K", None):
        raise JitValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return self.ndim >= 2 and (order == "F" or (order in ("A", "K") and self.fortran))


def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dtype = np.dtype(dtype)
    if not np.can_cast(self.dtype, dtype, casting):
        raise JitTypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} according "
                           f"to the rule {casting!r}")
    fortran = _fortran_order(self, order)
    if not copy and dtype == self.dtype and fortran == self.fortran:
        return self  # NumPy returns the array itself when no copy is needed
    out = fresh(prims.convert(self, dtype), self.scalar)
    out.fortran = fortran  # order="K", NumPy's default: the layout is kept
    return out


def reshape(self, *shape, order="C"):
    if order != "C":
        raise UnsupportedError(f"ndarray.reshape with order={order!r} is not supported under jit")
    return prims.reshape_view(self, shape[0] if len(shape) == 1 else shape)


def transpose(self, *axes):
    return prims.transpose_view(self, axes[0] if len(axes) == 1 else axes or None)


def ravel(self, order="C"):
    if _fortran_order(self, order):
        raise UnsupportedError(f"ndarray.ravel in Fortran order ({order!r}) is not supported under "
                               f"jit; a.flatten({order!r}) gives the same values as a copy")
    return prims.ravel(self)


def flatten(self, order="C"):
    # a copy in NumPy, not a view; Fortran order reads the transpose in C order
    source = prims.transpose_view(self, None) if _fortran_order(self, order) else self
    return fresh(prims.reshape(source, (-1,)))


def copy(self, order="C"):
    out = fresh(self, self.scalar, self.weak)
    out.fortran = _fortran_order(self, order)  # ndarray.copy's default is 'C' (np.copy's is 'K')
    return out


def transposed(self):
    return prims.transpose_view(self, None)


def real(self):
    return _part_of(self, "real")


def imag(self):
    return _part_of(self, "imag")


def _part_of(x, which: str):
    """``x.real``/``x.imag``: a NumPy scalar's parts are scalars, a 0-d array's 0-d arrays. A
    complex array's part is a view, as in NumPy: a write to it (``z.real[i] = v``) rebuilds
    ``z`` from the written part and the other one (``array.complex``, no arithmetic)."""
    if x.scalar:
        return as_scalar(prims.part(which, x))
    if x.dtype.kind != "c":
        return prims.part(which, x)
    if which == "real":
        return make_view(x, lambda z: prims.part("real", z),
                         lambda z, re: prims.complex_from_parts(re, prims.part("imag", z)),
                         model=lambda m: m.real)
    return make_view(x, lambda z: prims.part("imag", z),
                     lambda z, im: prims.complex_from_parts(prims.part("real", z), im),
                     model=lambda m: m.imag)


def _set_part(which: str):
    def setter(self, value):
        """``z.real = v``: the part of ``z`` replaced in place, ``v`` broadcast and cast."""
        if self.dtype.kind != "c" and which == "imag":
            raise JitTypeError(f"array does not have imaginary part to set (at {user_location()}); "
                               "convert it to a complex dtype first")
        _part_of(self, which)[...] = value
    return setter


def conj(self):
    return prims.ufunc(np.conjugate, self)


# The reductions take NumPy's whole signature; ``out=``, ``initial=`` and ``where=`` go the way
# of the functions (``np.sum`` and friends: jitcore/numpy/reductions.py).
_NO = np._NoValue


def sum_(self, axis=None, dtype=None, out=None, keepdims=False, initial=_NO, where=True):
    if out is not None or initial is not _NO or where is not True:
        return reductions.sum(self, axis, dtype, out, keepdims, initial, where)
    return prims.reduction("sum", self, axis, keepdims, dtype)


def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=_NO, where=True):
    if out is not None or initial is not _NO or where is not True:
        return reductions.prod(self, axis, dtype, out, keepdims, initial, where)
    return prims.reduction("prod", self, axis, keepdims, dtype)


def max_(self, axis=None, out=None, keepdims=False, initial=_NO, where=True):
    if out is not None or initial is not _NO or where is not True:
        return reductions.max(self, axis, out, keepdims, initial, where)
    return prims.reduction("max", self, axis, keepdims)


def min_(self, axis=None, out=None, keepdims=False, initial=_NO, where=True):
    if out is not None or initial is not _NO or where is not True:
        return reductions.min(self, axis, out, keepdims, initial, where)
    return prims.reduction("min", self, axis, keepdims)


def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if out is not None or where is not True:
        return reductions.mean(self, axis, dtype, out, keepdims, where=where)
    return prims.mean(self, axis, keepdims, dtype)


def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    if out is not None or where is not True:
        return reductions.var(self, axis, dtype, out, ddof, keepdims, where=where)
    return prims.variance(self, axis, keepdims, dtype, ddof)


def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True):
    if out is not None or where is not True:
        return reductions.std(self, axis, dtype, out, ddof, keepdims, where=where)
    return prims.ufunc(np.sqrt, prims.variance(self, axis, keepdims, dtype, ddof))


def any_(self, axis=None, out=None, keepdims=False, *, where=True):
    if out is not None or where is not True:
        return reductions.any(self, axis, out, keepdims, where=where)
    return prims.reduction("or", prims.as_bool(self), axis, keepdims)


def all_(self, axis=None, out=None, keepdims=False, *, where=True):
    if out is not None or where is not True:
        return reductions.all(self, axis, out, keepdims, where=where)
    return prims.reduction("and", prims.as_bool(self), axis, keepdims)


def argmax(self, axis=None, out=None, *, keepdims=False):
    return reductions.argmax(self, axis, out, keepdims=keepdims)


def argmin(self, axis=None, out=None, *, keepdims=False):
    return reductions.argmin(self, axis, out, keepdims=keepdims)


def cumsum(self, axis=None, dtype=None, out=None):
    return reductions.cumsum(self, axis, dtype, out)


def cumprod(self, axis=None, dtype=None, out=None):
    return reductions.cumprod(self, axis, dtype, out)


def clip(self, min=None, max=None, out=None):
    return selection.clip(self, min, max, out)


def squeeze(self, axis=None):
    return manipulation.squeeze(self, axis)


def swapaxes(self, a, b):
    return manipulation.swapaxes(self, a, b)


def diagonal(self, offset=0, axis1=0, axis2=1):
    return _diagonal(self, offset, axis1, axis2)


def sort_in_place(self, axis=-1, kind=None, order=None, *, stable=None):
    """``x.sort()``: sorts ``x`` in place (and the array it is a view of), returns None."""
    prims.assign(self, sorting.sort(self, axis, kind, order, stable=stable))


def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    return sorting.argsort(self, axis, kind, order, stable=stable)


def round_(self, decimals=0, out=None):
    return ufuncs.round(self, decimals, out)


def fill(self, value):
    """``x.fill(v)``: every element set to ``v`` in place (cast unsafely, as NumPy does)."""
    prims.assign(self, value)


def partition_in_place(self, kth, axis=-1, kind="introselect", order=None):
    prims.assign(self, registry.apply_function(np.partition, (self, kth, axis, kind, order), {}))


def byteswap(self, inplace=False):
    """``x.byteswap()``: each element's bytes in reverse order (shifts and masks on its bits as
    an unsigned int); ``inplace=True`` writes them into ``x`` and returns it, as NumPy."""
    if self.dtype.kind not in "biuf":
        raise UnsupportedError(f"ndarray.byteswap() of {self.dtype} is not supported under jit (at "
                               f"{user_location()}); it takes integers, floats and bools")
    size = self.dtype.itemsize
    bits = np.dtype(f"u{size}")
    word = prims.bitcast(self, bits) if self.dtype.kind != "b" else self
    swapped = word
    if size > 1:
        mask = bits.type(0xFF)
        swapped = None
        for k in range(size):  # byte k moves to byte size - 1 - k
            byte = prims.ufunc(np.bitwise_and, prims.ufunc(np.right_shift, word, bits.type(8 * k)), mask)
            moved = prims.ufunc(np.left_shift, byte, bits.type(8 * (size - 1 - k)))
            swapped = moved if swapped is None else prims.ufunc(np.bitwise_or, swapped, moved)
        swapped = prims.bitcast(swapped, self.dtype)
    if inplace:
        prims.assign(self, swapped)
        return self
    return fresh(swapped if size > 1 else prims.convert(swapped, self.dtype), self.scalar)


def _check_resized_view(x, new: np.dtype) -> None:
    """NumPy's own rules for a view of another item size (a 0-d array, a last axis that is not
    contiguous or not a whole number of words), asked of ``x``'s stride model."""
    m = view_layout.model(x)
    if m is not None or x.ndim == 0:
        try:
            (m if m is not None else np.zeros((), x.dtype)).view(new)
        except ValueError as e:
            raise JitValueError(f"{e} (ndarray.view at {user_location()})") from None


def _reinterpreted(x, new: np.dtype):
    """``x``'s bytes read as ``new`` (integers and floats, little-endian): each element's bits
    of the same size, else the last axis's elements split into (or joined from) their bytes."""
    if new.itemsize == x.dtype.itemsize:
        return prims.bitcast(x, new)
    old_bits, new_bits = (np.dtype(f"u{d.itemsize}") for d in (x.dtype, new))
    words = prims.bitcast(x, old_bits)
    if x.dtype.itemsize > new.itemsize:  # split each element into its parts, low bytes first
        count, step = x.dtype.itemsize // new.itemsize, 8 * new.itemsize
        mask = old_bits.type(2**step - 1)
        shifted = (prims.ufunc(np.right_shift, words, old_bits.type(step * k)) for k in range(count))
        parts = [prims.convert(prims.ufunc(np.bitwise_and, part, mask), new_bits) for part in shifted]
        out = np.reshape(np.stack(parts, axis=-1), x.shape[:-1] + (x.shape[-1] * count,))
    else:  # join each run of parts into one element
        count, step = new.itemsize // x.dtype.itemsize, 8 * x.dtype.itemsize
        runs = np.reshape(words, x.shape[:-1] + (x.shape[-1] // count, count))
        out = None
        for k in range(count):
            part = prims.convert(runs[..., k], new_bits)
            part = prims.ufunc(np.left_shift, part, new_bits.type(step * k))
            out = part if out is None else prims.ufunc(np.bitwise_or, out, part)
    return prims.bitcast(out, new)


def view(self, dtype=None, type=None):
    """``x.view()``: a new array sharing ``x``'s data. ``x.view(dtype)`` of another dtype of the
    same size (floats, integers) reads each element's bits as ``dtype``; of another size
    (session 53: ``words.view(np.uint8)``, ``bytes.view(np.uint32)``) the last axis's bytes
    (``_reinterpreted``). Since session 53 a view: writes to it reach ``x`` (the bytes joined
    back); other reinterpretations are not compiled."""
    if type is None and dtype is not None and np.dtype(dtype) != self.dtype:
        new = np.dtype(dtype)
        same_size = new.itemsize == self.dtype.itemsize
        if same_size and self.scalar and {new.kind, self.dtype.kind} <= set("iuf"):
            return fresh(prims.bitcast(self, new), self.scalar)  # a NumPy scalar's view is one
        if {new.kind, self.dtype.kind} <= set("iuf") and np.little_endian and new.isnative:
            if not same_size:
                _check_resized_view(self, new)
            return make_view(self, lambda base: _reinterpreted(base, new),
                             lambda base, v: _reinterpreted(v, base.dtype), model=lambda m: m.view(new))
    if type is not None or (dtype is not None and np.dtype(dtype) != self.dtype):
        raise UnsupportedError(
            f"{self!r}.view({dtype!r}) reinterprets the array's bytes, which jitcore compiles "
            f"only between integer and float dtypes (at {user_location()}); use "
            ".astype() to convert the values")
    return make_view(self, lambda base: base, lambda base, new: new, model=lambda m: m)


class FlatIter:
    """``x.flat`` of a traced ``x``: NumPy's flat iterator, the elements in C order. A read is a
    new array (or one element), as NumPy's; a write (``x.flat[::7] = 3.0``) goes to ``x``."""

    def __init__(self, base: Tracer):
        self.base = base

    def _flat(self) -> Tracer:
        # the base's elements in C order, whatever its strides (NumPy's reshape of a transposed
        # base would copy): a view, whose writes reach the base
        return make_view(self.base, lambda b: prims.reshape(b, (-1,)), lambda b, v: prims.reshape(v, b.shape))

    def __getitem__(self, key):
        out = self._flat()[key]
        return out.copy() if isinstance(out, Tracer) and out.ndim else out

    def __setitem__(self, key, value):
        self._flat()[key] = value

    def __len__(self) -> int:
        return self.base.size

    def __iter__(self):
        flat = self._flat()
        return (flat[i] for i in range(self.base.size))


def matrix_transposed(self):
    if self.ndim < 2:
        raise JitValueError("matrix transpose with ndim < 2 is undefined")
    return manipulation.swapaxes(self, -1, -2)


def _function_method(np_function, name: str):
    """``x.name(...)`` as NumPy defines it: ``np_function(x, ...)``."""
    def method(self, *args, **kwargs):
        return registry.apply_function(np_function, (self, *args), kwargs)

    return _method(method, name)


def _needs_data(name: str):
    """A method that returns Python data (``item``, ``tolist``): a traced array has none."""
    def method(self, *args, **kwargs):
        self._concretize(f"{name}()")

    return _method(method, name)


# The Python type NumPy's ``item`` gives per dtype kind, as the dtype a traced number of that type
# has (``float(x)`` of a traced x is float64 too); uint64 keeps its own, which int64 would wrap.
_PYTHON_NUMBER_DTYPES = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64,
                         "c": np.complex128}


def _python_numbers(x: Tracer) -> Tracer:
    """``x``'s elements as the Python numbers ``item``/``tolist`` give, in ``x``'s shape."""
    dtype = np.uint64 if x.dtype == np.uint64 else _PYTHON_NUMBER_DTYPES[x.dtype.kind]
    return x.astype(dtype)


def _weak_number(element: Tracer) -> Tracer:
    """A traced 0-d element as a Python number: a scalar that promotes weakly (NEP 50), so
    ``x32 * a.item()`` stays float32 as it does with NumPy's Python float."""
    return fresh(element.reshape(()), scalar=True, weak=True)


def item(self, *args):
    """``x.item()``, ``x.item(i)`` (flat index) and ``x.item(i, j, ...)``: the element as a
    traced Python number (float, int, complex or bool by the dtype's kind)."""
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        if self.size != 1:
            raise JitValueError(f"can only convert an array of size 1 to a Python scalar (at "
                                f"{user_location()}); the array has shape {self.shape}")
        element = self.reshape(())
    elif len(args) == 1:
        element = self.reshape(-1)[args[0]]  # out of bounds: indexing's IndexError, as NumPy's
    elif len(args) != self.ndim:
        raise JitValueError(f"incorrect number of indices for array: {len(args)} for {self.ndim} "
                            f"dimensions (at {user_location()})")
    else:
        element = self[tuple(args)]
    return _weak_number(_python_numbers(element))


_TOLIST_LIMIT = 1 << 12  # elements: each is one traced value, unrolled into the compiled code


def tolist(self):
    """``x.tolist()``: nested lists of traced Python numbers in ``x``'s shape (a 0-d array: one
    number), so ``for v in x.tolist()`` and ``sum(x.tolist())`` compile; the list's length is
    the static shape's. Each element is a value of its own in the compiled code, so a long
    array is refused with the loop that compiles instead."""
    if self.size > _TOLIST_LIMIT:
        raise UnsupportedError(
            f"x.tolist() of a traced array of {self.size} elements (at {user_location()}) would "
            f"unroll into {self.size} traced numbers (at most {_TOLIST_LIMIT}); iterate the array "
            "itself (for v in x), which compiles to one loop, or use array operations")
    numbers = _python_numbers(self)
    if self.ndim == 0:
        return _weak_number(numbers)
    flat = numbers.reshape(-1)
    elements = [_weak_number(flat[i]) for i in range(self.size)]

    def nest(start: int, shape: tuple) -> list:
        if len(shape) == 1:
            return elements[start:start + shape[0]]
        step = int(np.prod(shape[1:]))
        return [nest(start + k * step, shape[1:]) for k in range(shape[0])]

    return nest(0, self.shape)


def _not_compiled(name: str):
    """An ndarray method jitcore does not compile: its own clear error, not an AttributeError."""
    def method(self, *args, **kwargs):
        raise UnsupportedError(f"ndarray.{name}() is not supported under jit (at {user_location()})")

    return _method(method, name)


def _memory_layout(name: str):
    """A property of an array's memory (``strides``, ``flags``, ``base``, ``data``, ...): a
    traced array has none (the compiled code picks the layouts of its intermediates and which
    of them share memory), so jitcore's own clear error, not an AttributeError, with what to
    write instead."""
    def prop(self):
        raise UnsupportedError(
            f"ndarray.{name} is a property of an array's memory, which a traced array does not "
            f"have (at {user_location()}): windows are np.lib.stride_tricks.sliding_window_view, "
            "and a copy is np.array(x) or x.copy(); read it outside the jitted function")

    return prop


def compress(self, condition, axis=None, out=None):
    return registry.apply_function(np.compress, (condition, self, axis, out), {})


_METHODS = {
    "__pow__": power, "__rpow__": reflected_power, "__divmod__": divmod_,
    "__rdivmod__": reflected_divmod, "__matmul__": matmul, "__rmatmul__": reflected_matmul,
    "__array_ufunc__": array_ufunc, "__array_function__": array_function,
    "__getitem__": indexing.subscript, "__setitem__": indexing.assign_subscript,
    "astype": astype, "reshape": reshape, "transpose": transpose, "ravel": ravel, "flatten": flatten,
    "copy": copy, "conj": conj, "conjugate": conj, "sum": sum_, "prod": prod, "max": max_,
    "min": min_, "mean": mean, "var": var, "std": std, "any": any_, "all": all_, "argmax": argmax,
    "argmin": argmin, "cumsum": cumsum, "cumprod": cumprod, "clip": clip, "squeeze": squeeze,
    "swapaxes": swapaxes, "diagonal": diagonal, "round": round_,
    "sort": sort_in_place, "argsort": argsort, "fill": fill, "partition": partition_in_place,
    "view": view,
    **{name: _function_method(getattr(np, name), name)
       for name in ("argpartition", "choose", "dot", "nonzero", "put", "repeat", "searchsorted",
                    "take", "trace")},
    "compress": _method(compress, "compress"),
    **{name: _not_compiled(name)
       for name in ("getfield", "resize", "setfield", "setflags", "to_device")},
    "byteswap": _method(byteswap, "byteswap"),
    "item": _method(item, "item"), "tolist": _method(tolist, "tolist"),
    **{name: _needs_data(name) for name in ("tobytes", "tofile", "dump", "dumps")},
}
_SETTERS = {"real": _set_part("real"), "imag": _set_part("imag")}
_PROPERTIES = {"T": transposed, "mT": matrix_transposed, "real": real, "imag": imag, "flat": FlatIter,
               "at": index_updates, "itemsize": lambda self: self.dtype.itemsize,
               "nbytes": lambda self: self.size * self.dtype.itemsize,
               **{name: _memory_layout(name)
                  for name in ("strides", "flags", "ctypes", "base", "data")}}


def _number_or_array_checked(fn, name: str):
    """``fn``, the method ``name``, refused on a value that is a Python number on some calls
    (``number_or_array.method``)."""
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        if self.owner_trace.number_or_array:
            number_or_array.method(self, name)
        return fn(self, *args, **kwargs)

    return method


def install() -> None:
    """Give ``Tracer`` its operators, methods and properties."""
    for name, ufunc in _ARITHMETIC.items():
        setattr(Tracer, f"__{name}__", _operator(ufunc, f"__{name}__"))
        setattr(Tracer, f"__r{name}__", _reflected(ufunc, f"__r{name}__"))
    for name, ufunc in {**_ARITHMETIC, "pow": np.power}.items():
        setattr(Tracer, f"__i{name}__", _in_place(ufunc, f"__i{name}__"))
    for name, ufunc in _COMPARISONS.items():
        make = _equality if name in ("eq", "ne") else _operator
        setattr(Tracer, f"__{name}__", make(ufunc, f"__{name}__"))
    for name, ufunc in _UNARY.items():
        setattr(Tracer, f"__{name}__", _unary(ufunc, f"__{name}__"))
    for name, fn in _METHODS.items():
        setattr(Tracer, name, fn if name.startswith("__") else _number_or_array_checked(fn, name))
    for name, fn in _PROPERTIES.items():
        setattr(Tracer, name, property(fn, _SETTERS.get(name)))


install()
