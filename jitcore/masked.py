"""``x[m]`` with a traced boolean mask ``m``: how many elements it selects is known only at run
time, so no compiled array can hold it. What can be compiled is a reduction of it: ``x[m].sum()``
is ``np.sum(x, where=m)``, ``np.mean(x[x > 0])`` a masked mean, ``x[m].max()`` a masked max that
raises NumPy's ValueError at run time when nothing is selected.

``x[m]`` is therefore a ``MaskedSelection``: ``x`` and the mask (over ``x``'s leading dims).
Elementwise ufuncs, operators and NumPy's element-by-element functions (``np.round``,
``np.clip``, ``np.where``...) on it with scalars (or with selections by the same mask) give
another selection; a reduction over all of it, or over its first axis, gives a traced array;
``x[m] = f(x[m])`` is a select. Every other use raises the error ``x[m]`` raised before.
"""

from __future__ import annotations

import numpy as np

from jitcore import compaction, index_forms, ufunc_operators
from jitcore import primitives as prims
from jitcore.control_flow import cond
from jitcore.data_size_advice import data_size_advice
from jitcore.errors import ConcretizationError, JitTypeError, UnsupportedError
from jitcore.ir.dialects.kernel import INDEX_OUT_OF_BOUNDS, MASK_POSITIONS_APART
from jitcore.tracer import Tracer, as_scalar, fresh, needs_static, user_location

# The statistics of a selection (quantile, median, histogram_of, bincount_of), installed by
# jitcore.numpy.selection_statistics: they build on jitcore.numpy, which imports this module.
SELECTION_STATISTICS: dict = {}
# The ops that run at the selection's length, compacted (sort, cumsum, slices, concatenate):
# installed by jitcore.run_length, which builds on this module.
LENGTH_OPS: dict = {}


# How a selection with no description reads in messages: what the user may have written and
# the array's dtype and shape (not the tracer's repr, nor a mask they never named).
_SELECTION_TEXT = ("a selection x[mask] (of a {values.dtype} array of shape {values.shape}, by a "
                   "traced condition)")


def refused(x, what: str = "", origin: str = _SELECTION_TEXT, advice: str = "", made: str = "") -> str:
    """The message for a use of ``x[mask]`` (or of ``origin``, what the user wrote: np.unique(x),
    np.argwhere(a)) that needs the selection's data-dependent shape; ``made``: where the
    selection was made ("the boolean filter at f.py:9"), named where that is another line."""
    use = f" ({what})" if what else ""
    written = origin.format(values=x)
    here = user_location()
    made = f" (the selection comes from {made})" if made and not made.endswith(f" at {here}") else ""
    return (f"{written} has a length that depends on the data (the elements a traced condition "
            f"keeps), which a compiled function cannot have{use}, at {here}{made}. "
            + (advice or "Reduce it at once (x[mask].sum(), .max(), np.nanmean(x[mask]), "
               "np.median(x[mask]), len(x[mask]) or np.count_nonzero(mask) for its length; "
               "elementwise ufuncs first), write through it (x[mask] = v), return it, or use "
               "jitcore.numpy.where(mask, x, fill) instead"))


def _filter_site(mask: Tracer) -> str:
    """"the boolean filter at file:line" (where ``mask`` was made), or ""."""
    op = getattr(mask.value, "op", None)
    loc = getattr(op, "loc", None)
    parts = loc.parts() if loc is not None and hasattr(loc, "parts") else ()
    return f"the boolean filter at {parts[0].file}:{parts[0].line}" if parts else ""


def _int_indices(key) -> bool:
    """Whether ``key`` is an array of integer indices (a selection of them, traced or not)."""
    if isinstance(key, (MaskedSelection, Tracer, np.ndarray)):
        return key.dtype.kind in "iu" and key.ndim >= 1
    return False


class MaskedSelection:
    """``values[mask]``: ``mask`` a traced boolean array of ``values``' leading dims' shape."""

    __slots__ = ("values", "mask", "factors", "described")
    position = 0  # where the selected dim sits among the selection's (a[:, m]'s is 1)
    __array_priority__ = 2000  # above Tracer's: ``tracer + selection`` asks the selection
    __hash__ = None
    at = None  # the values themselves (``data_length.Positions``: which of their indices)
    length = None  # the mask's count, where it is a prefix (``run_length.Prefix``)

    def __init__(self, values: Tracer, mask: Tracer, factors: tuple | None = None):
        self.values, self.mask = values, mask
        # The 1-d masks whose product the mask is, one per dim (product_mask), when known.
        self.factors = factors if factors is not None else (mask,) if mask.ndim == 1 else None
        # (what the user wrote, what to write instead) for messages, where not x[mask] (describe)
        self.described = None

    @property
    def origin(self) -> str:
        return self.described[0] if self.described else _SELECTION_TEXT

    @property
    def advice(self) -> str:
        return self.described[1] if self.described else ""

    def describe(self, origin: str, advice: str = "") -> MaskedSelection:
        """This selection, its messages naming ``origin`` (``np.unique(x)``) and ``advice``."""
        self.described = (origin, advice)
        return self

    # -- what is static --------------------------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def ndim(self) -> int:
        return self.values.ndim - self.mask.ndim + 1

    @property
    def shape(self):
        """NumPy's shape, the selected dim's extent a traced count (``x[m].shape[0]`` is
        ``np.count_nonzero(m)``): a shape that needs it (``np.zeros((n, 3))``) is refused there."""
        dims = list(self.values.shape[self.mask.ndim:])
        dims.insert(self.position, self.count())
        return tuple(dims)

    @property
    def size(self):
        rest = int(np.prod(self.values.shape[self.mask.ndim:], dtype=np.int64))
        return self.count() * rest if rest != 1 else self.count()

    def count(self) -> Tracer:
        """How many of the mask's positions are kept, a Python int as NumPy's len() (traced)."""
        kept = prims.reduction("sum", prims.convert(self.mask, np.dtype(np.int64)))
        out = fresh(kept, scalar=True, weak=True)
        out.counts = (self.origin.format(values=self.values), self.advice, _filter_site(self.mask),
                      int(np.prod(self.mask.shape, dtype=np.int64)))  # (the most it can be)
        kept.owner_trace.counted[id(out.value)] = (out.value, out.counts, self)
        return out

    def __len__(self):  # len() must give an int: autograph's len (expressions._len) gives count()
        raise self._refusal("len() outside autograph; np.count_nonzero(mask) counts it")

    def __iter__(self):
        raise self._refusal("iteration")

    def __getitem__(self, key):
        if _is_int(key) and self._on_one_axis().mask.ndim == 1:  # res[0]: the first kept, IndexError if none
            return self._on_one_axis()._item(key)
        first = key[0] if type(key) is tuple and key else key
        if self._aligned_mask(first) and (type(key) is not tuple or len(key) == 1):
            return self._masked_by(first)
        if isinstance(first, slice) and self.position == 0:  # y[-3:]: compacted, then sliced
            return LENGTH_OPS["sliced"](self, first, key[1:] if type(key) is tuple else ())
        if self.position == 0 and _int_indices(key):  # y[np.argsort(y)]: gathered at the count
            return LENGTH_OPS["taken"](self, key)
        raise self._refusal("indexing it")

    def _aligned_mask(self, key) -> bool:
        """Whether ``key`` is a boolean selection over this one's positions: ``q[i + 1:][m]``
        with ``m = r < rc`` of ``r`` from ``pos[i + 1:]`` (the pairs j > i of an RDF, an Ewald sum)."""
        return (isinstance(key, MaskedSelection) and key.dtype == np.bool_ and self.position == 0
                and key.position == 0 and key.mask.shape == self.mask.shape
                and key.values.shape == key.mask.shape)

    def _masked_by(self, key: MaskedSelection) -> MaskedSelection:
        """``self[key]``: the positions both keep, where ``key`` holds. NumPy pairs the kept
        elements in order; that is position by position where both masks keep the same positions
        (slices at the same bounds), which the call checks unless they are one mask."""
        if key.mask is not self.mask:
            prims.raise_if(prims.reduction("or", key.mask != self.mask), MASK_POSITIONS_APART)
        return MaskedSelection(self.values, self.mask & key.values)

    def _on_one_axis(self) -> MaskedSelection:
        """This selection by a mask of one dim: ``np.nonzero(C)[0]`` of a 2-D ``C`` is 1-D, its
        values on ``C``'s grid, whose C order is the order of the selected elements: that grid
        flattened. The consumers written for 1-d masks (an item, a dot, bincount) take it so."""
        if self.mask.ndim < 2 or self.position != 0:
            return self
        n = int(np.prod(self.mask.shape, dtype=np.int64))
        rest = self.values.shape[self.mask.ndim:]
        return MaskedSelection(prims.reshape(self.values, (n, *rest)), prims.reshape(self.mask, (n,)))

    def _item(self, i):
        """The ``i``-th kept row (from the end where negative): the position where the running
        count of kept ones reaches ``i + 1``; NumPy's IndexError, raised by the call, past the
        count."""
        trace = self.mask.owner_trace
        kept = prims.convert(self.mask, np.dtype(np.int64))
        count = prims.reduction("sum", kept)
        i = prims.convert(i, np.dtype(np.int64)) if isinstance(i, Tracer) else \
            prims.constant(trace, np.int64(i))
        j = np.where(i < 0, i + count, i)
        prims.raise_if((j < 0) | (j >= count), INDEX_OUT_OF_BOUNDS, (i, 0, count))
        at = np.argmax(self.mask & (np.cumsum(kept) == j + 1))
        return as_scalar(self.values[at]) if self.values.ndim == 1 else self.values[at]

    def __setitem__(self, key, value):
        raise self._refusal("writing into it (write x[mask] = v instead)")

    def __array__(self, dtype=None, copy=None):
        raise self._refusal("np.asarray()")

    def __bool__(self):
        raise self._refusal("bool()")

    def _refusal(self, what: str) -> Exception:
        """The error for a use that needs the selection's shape (and, where an argument the
        values do not come from decides the mask, how to make its size static)."""
        extra = data_size_advice((self.mask,), self.values, matrix=self.values.ndim >= 2)
        made = _filter_site(self.mask)
        if extra and not self.advice:  # (its own words, not the ones that lead back here)
            return JitTypeError(refused(self.values, what, self.origin, extra.strip(), made))
        text = refused(self.values, what, self.origin, self.advice, made)
        return JitTypeError(text.rstrip(".") + "." + extra if extra else text)

    def __getattr__(self, name: str):
        """Any other array attribute (``.T``, ``.cumsum``): the selection's refusal, not a bare
        AttributeError (a ranged slice's asks for a concrete value: its loop is unrolled)."""
        if name.startswith("__") or name in MaskedSelection.__slots__ \
                or name in ("index_form", "weak", "type_choice"):
            raise AttributeError(name)
        method = LENGTH_OPS["methods"].get(name) if self.position == 0 else None
        if method is not None:  # y.cumsum(): at the selection's length
            return lambda *args, **kwargs: method(self, *args, **kwargs)
        raise self._refusal(f".{name}")

    @property
    def T(self) -> MaskedSelection:  # noqa: N802  (NumPy's name)
        """``x[m].T`` of a selection of rows (or of columns, ``np.vstack`` of selections): the
        same values, the selected dim moved to the other end."""
        if self.ndim == 1:
            return self
        if self.ndim != 2 or self.mask.ndim != 1 or type(self) not in (MaskedSelection, MovedSelection):
            raise self._refusal(".T")
        out = MovedSelection(self.values, self.mask) if self.position == 0 else \
            MaskedSelection(self.values, self.mask)
        out.described = self.described
        return out

    def _like(self, values: Tracer) -> MaskedSelection:
        out = type(self)(values, self.mask, self.factors)
        out.described = self.described
        return out

    def __repr__(self) -> str:
        return (f"{self.values!r}[mask], a selection by a traced mask whose size depends on the data: "
                "reduce it (x[mask].sum()) or use jitcore.numpy.where(mask, x, fill)")

    # -- elementwise: another selection by the same mask -------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "outer" and len(inputs) == 2 and not kwargs:
            return self._outer(ufunc, *inputs)
        if method == "at" and not kwargs and len(inputs) >= 2:  # np.add.at(c, r[ok], 1)
            return SELECTION_STATISTICS["ufunc_at"](ufunc, *inputs)
        if method != "__call__" or kwargs:
            raise self._refusal(f"numpy.{ufunc.__name__}.{method}"
                                if method != "__call__" else f"numpy.{ufunc.__name__} with "
                                f"{', '.join(sorted(kwargs))}")
        if ufunc.signature is not None:  # matmul: not elementwise, so not over the values whole
            return self._dot(ufunc.__name__, *inputs)
        args = [self._operand(x, ufunc.__name__, inputs) for x in inputs]
        out = ufunc(*args)
        if isinstance(out, tuple):
            return tuple(self._like(o) for o in out)
        return self._like(out)

    def __jitcore_ufunc__(self, ufunc, operands):
        """``primitives.ufunc`` with this selection among its operands (``t - x[m]``, where the
        tracer's operator comes first)."""
        return self.__array_ufunc__(ufunc, "__call__", *operands)

    def _operand(self, x, name: str, inputs=()):
        """An operand of an elementwise op: a selection by this mask (its values), one by
        another mask (its kept rows at this one's, the counts checked when it runs), or a value
        that broadcasts along the selected elements (a scalar, or fewer dims than the selection)."""
        if isinstance(x, MaskedSelection):
            if aligned_by_mask(x, self):  # A[m] / d[m, None]: the same rows, element for element
                return x.values
            aligned = aligned_onto(x, self)  # xc[:-k] * xc[k:]: equal lengths, other offsets
            if aligned is None and pairs_by_count(x, self):  # x[m] + x[m2]: NumPy's when counts agree
                return realigned(x, self, _MismatchedCounts(inputs, self))
            if aligned is None:
                raise self._refusal(f"numpy.{name} of selections by two masks")
            return aligned
        if np.ndim(x) >= self.ndim:
            raise self._refusal(f"numpy.{name} with an array of shape {np.shape(x)}")
        return x

    def _dot(self, name: str, a, b):
        """``a @ b`` of selections of 1 or 2 dims whose masks are products of 1-d ones, the
        contracted dims kept by the same mask (``L[i, :i] @ x[:i]``, ``L[j + 1:, :j] @
        L[j, :j]``): the product of the operands with every element outside its selection
        zeroed, as a selection by the dims that are not contracted (a product with anything
        else has a shape or values that depend on the data)."""
        a, b = (v._on_one_axis() if isinstance(v, MaskedSelection) and v.factors is None and v.ndim == 1
                else v for v in (a, b))  # (a product of 1-d masks, L[j, :j], keeps its factors)
        if not all(isinstance(v, MaskedSelection) and v.factors is not None and v.values.ndim in (1, 2)
                   and len(v.factors) == v.values.ndim for v in (a, b)):
            raise self._refusal(f"numpy.{name} with an operand that is not a 1-d or 2-d selection")
        aligned = None
        if a.values.ndim == b.values.ndim == 1 and not same_mask(a.mask, b.mask):
            aligned = aligned_onto(b, a)  # np.dot(xc[:-k], xc[k:])
        if aligned is None and (not same_mask(a.factors[-1], b.factors[0])
                                or a.values.shape[-1] != b.values.shape[0]):
            raise self._refusal(f"numpy.{name} of selections whose contracted dims differ")
        if a.values.ndim == b.values.ndim == 1:
            product = a.values * (b.values if aligned is None else aligned)
            return np.sum(product, where=a.mask, dtype=product.dtype)  # int8 @ int8 stays int8
        zeroed = [np.where(v._where(), v.values, np.zeros((), v.values.dtype)) for v in (a, b)]
        values = np.matmul(*zeroed)
        kept = (*a.factors[:-1], *b.factors[1:])
        kind = RangedSelection if RangedSelection in (type(a), type(b)) else MaskedSelection
        return kind(values, product_mask(kept), kept)

    def _outer(self, ufunc, a, b):
        """``ufunc.outer(a, b)`` of two 1-d selections (``np.outer(x[i:], y[i:])``): a selection
        over two dims by the product of their masks."""
        a, b = (v._on_one_axis() if isinstance(v, MaskedSelection) and v.factors is None else v
                for v in (a, b))
        if not all(isinstance(v, MaskedSelection) and v.values.ndim == 1 and v.mask.ndim == 1
                   for v in (a, b)):
            raise self._refusal(f"numpy.{ufunc.__name__}.outer of other than two 1-d selections")
        values = ufunc(prims.reshape(a.values, (-1, 1)), prims.reshape(b.values, (1, -1)))
        kind = RangedSelection if RangedSelection in (type(a), type(b)) else MaskedSelection
        return kind(values, product_mask((a.mask, b.mask)), (a.mask, b.mask))

    def __matmul__(self, other):
        return self._dot("matmul", self, other)

    def __rmatmul__(self, other):
        return self._dot("matmul", other, self)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return self._arg(np.argmin, axis, out, keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return self._arg(np.argmax, axis, out, keepdims)

    def _arg(self, np_fn, axis, out, keepdims):
        """``np.argmax(x[m])``: the index among the selected elements, as NumPy gives it for
        the compacted array. The first selected element equal to the extreme (or the first
        selected NaN, as NumPy's) is found in ``values``; its index in the selection is the
        number of kept rows before its row (an exclusive running count of the mask), times the
        row's length, plus its place in the row. An empty selection raises NumPy's ValueError
        from the call."""
        name = np_fn.__name__
        _no_out(out, name)
        if axis is not None and not self._covers(axis):
            return self._per_row(np_fn, axis, keepdims)
        if self.dtype.kind == "c":
            raise UnsupportedError(f"numpy.{name} of a complex selection is not supported under "
                                   f"jit yet (at {user_location()})")
        if axis is None and self.position != 0:
            raise self._refusal(f"numpy.{name} of all of a[:, mask] (its flat order is not the "
                                "rows'); give an axis")
        message = f"attempt to get {name} of an empty sequence"
        rest = self.values.shape[self.mask.ndim:]
        n = int(np.prod(self.mask.shape, dtype=np.int64))
        _raise_if_none_selected(self.mask, message)
        if n == 0 or (0 in rest and axis is None):  # empty whatever the mask: raised by the call,
            _, shape = self._axes(axis, True)      # in program order with other run-time errors
            shape = (1,) * self.ndim if axis is None else shape
            zero = prims.constant(self.values.owner_trace, np.zeros(shape if keepdims else
                                  tuple(d for j, d in enumerate(shape) if j != self.position)
                                  if axis is not None else (), np.intp))
            return as_scalar(zero) if zero.ndim == 0 else zero
        r = int(np.prod(rest, dtype=np.int64))
        lanes = (n * r,) if axis is None else (n, *rest)  # the positions argmax runs over
        v = prims.reshape(self.values, lanes)
        keep = prims.reshape(self._where(), lanes)
        extreme = np.max if np_fn is np.argmax else np.min
        best = extreme(v, axis=0, where=keep, initial=_lowest(self.dtype, np_fn is np.argmax),
                       keepdims=True)
        hit = v == best
        if self.dtype.kind == "f":  # NumPy's extreme is its first NaN where there is one
            hit = hit | np.isnan(v)
        first = np.argmax(hit & keep, axis=0)  # the first True
        kept = prims.convert(prims.reshape(self.mask, (n,)), np.dtype(np.intp))
        before = np.cumsum(kept) - kept  # kept rows before each row
        if axis is None:
            index = np.take(before, first // r) * r + first % r if r != 1 else np.take(before, first)
            index = as_scalar(prims.convert(index, np.dtype(np.intp)))
            return prims.reshape(index, (1,) * self.ndim) if keepdims else index
        index = np.take(before, first)
        _, shape = self._axes(axis, True)
        return prims.reshape(index, shape) if keepdims else index

    # -- NumPy's nan- reductions: NaNs replaced (or skipped) as NumPy's own code does ------------
    def _skips_nan(self) -> bool:
        return self.dtype.kind in "fc"

    def _nan_free(self, fill) -> MaskedSelection:
        """NumPy's ``_replace_nan``: this selection with its NaNs as ``fill``."""
        v = self.values
        return self._like(prims.where(np.isnan(v), prims.as_tracer(v.owner_trace, fill, v.dtype), v))

    def nansum(self, axis=None, dtype=None, out=None, keepdims=False):
        return (self._nan_free(0) if self._skips_nan() else self).sum(axis, dtype, out, keepdims)

    def nanprod(self, axis=None, dtype=None, out=None, keepdims=False):
        return (self._nan_free(1) if self._skips_nan() else self).prod(axis, dtype, out, keepdims)

    def _kept_count(self, axis, keepdims: bool) -> Tracer:
        """How many selected elements are not NaN, per result element (intp)."""
        return self._like(np.logical_not(np.isnan(self.values))).sum(axis, np.intp, None, keepdims)

    def nanmean(self, axis=None, dtype=None, out=None, keepdims=False):
        """NumPy's: the sum with NaNs as 0 over the count of the others (NaN where none)."""
        if not self._skips_nan():
            return self.mean(axis, dtype, out, keepdims)
        _no_out(out, "nanmean")
        if not self._covers(axis):
            return self._per_row(np.nanmean, axis, keepdims, dtype=dtype)
        if dtype is not None and not np.issubdtype(dtype, np.inexact):
            raise TypeError("If a is inexact, then dtype must be inexact")
        total = self._nan_free(0).sum(axis, dtype, None, keepdims)
        return _by_count(total, self._kept_count(axis, keepdims))

    def nanvar(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """NumPy's: the mean of the non-NaN, their squared deviations summed (NaNs as 0), over
        ``count - ddof``; NaN where that is not positive."""
        if not self._skips_nan():
            return self.var(axis, dtype, out, ddof, keepdims)
        _no_out(out, "nanvar")
        if not self._covers(axis):
            return self._per_row(np.nanvar, axis, keepdims, dtype=dtype, ddof=ddof)
        axes, kept = self._axes(axis, True)
        nan = np.isnan(self.values)
        count = self._kept_count(axis, True)
        arr = self._nan_free(0)
        mean = _by_count(arr.sum(axis, dtype, None, True), count)
        lanes = tuple(1 if j in axes else n for j, n in enumerate(self.values.shape))
        # NumPy subtracts into arr (casting='unsafe'), so the deviations keep arr's dtype
        d = prims.convert(arr.values - prims.reshape(mean, lanes), self.dtype)
        d = prims.where(nan, prims.as_tracer(d.owner_trace, 0, d.dtype), d)
        squares = (d * np.conj(d)).real if d.dtype.kind == "c" else d * d
        total = self._like(squares).sum(axis, dtype, None, keepdims)
        dof = prims.reshape(count, np.shape(total)) - ddof
        var = _by_count(total, dof)
        bad = np.where(dof <= 0, np.array(np.nan, var.dtype), var)
        return as_scalar(bad) if np.ndim(bad) == 0 else bad

    def nanstd(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        if not self._skips_nan():
            return self.std(axis, dtype, out, ddof, keepdims)
        if not self._covers(axis):
            _no_out(out, "nanstd")
            return self._per_row(np.nanstd, axis, keepdims, dtype=dtype, ddof=ddof)
        return np.sqrt(self.nanvar(axis, dtype, out, ddof, keepdims))

    def nanmax(self, axis=None, out=None, keepdims=False, initial=None):
        return self._nan_extreme(np.max, "fmax", axis, out, keepdims, initial)

    def nanmin(self, axis=None, out=None, keepdims=False, initial=None):
        return self._nan_extreme(np.min, "fmin", axis, out, keepdims, initial)

    def _nan_extreme(self, np_fn, name: str, axis, out, keepdims, initial):
        """NumPy's ``fmax.reduce``: the extreme of the selected non-NaN elements, NaN where a
        lane holds only NaNs, NumPy's ValueError (naming fmax) when nothing is selected."""
        if not self._skips_nan():
            return self._extreme(np_fn, name, axis, out, keepdims, initial)
        _no_out(out, f"nan{np_fn.__name__}")
        if not self._covers(axis):
            extra = {} if initial is None else {"initial": initial}
            return self._per_row(getattr(np, f"nan{np_fn.__name__}"), axis, keepdims, **extra)
        if self.dtype.kind == "c":
            raise UnsupportedError(f"numpy.nan{np_fn.__name__} of a complex selection is not "
                                   f"supported under jit yet (at {user_location()})")
        axes, kept = self._axes(axis, keepdims)
        keep = self._where() & np.logical_not(np.isnan(self.values))
        if initial is not None:  # fmax(initial, NaN) is initial: no NaN, no error
            out = np_fn(self.values, axis=axes, where=keep, initial=initial)
            return out if kept is None else prims.reshape(out, kept)
        message = f"zero-size array to reduction operation {name} which has no identity"
        if 0 in self.values.shape[self.mask.ndim:] and axis is None:
            raise ValueError(message)
        _raise_if_none_selected(self.mask, message)
        best = np_fn(self.values, axis=axes, where=keep, initial=_lowest(self.dtype, np_fn is np.max))
        out = np.where(np.any(keep, axis=axes), best, np.array(np.nan, self.dtype))
        out = as_scalar(out) if np.ndim(out) == 0 else out
        return out if kept is None else prims.reshape(out, kept)

    def nanargmax(self, axis=None, out=None, *, keepdims=False):
        return self._nan_arg(np.argmax, axis, out, keepdims)

    def nanargmin(self, axis=None, out=None, *, keepdims=False):
        return self._nan_arg(np.argmin, axis, out, keepdims)

    def _nan_arg(self, np_fn, axis, out, keepdims):
        """NumPy's: NaNs as the value that never wins, after raising its ValueError from the
        call where a lane of a non-empty selection holds only NaNs."""
        if not self._skips_nan() or self.dtype.kind == "c":
            return self._arg(np_fn, axis, out, keepdims)
        if axis is not None and not self._covers(axis):
            _no_out(out, f"nan{np_fn.__name__}")
            return self._per_row(getattr(np, f"nan{np_fn.__name__}"), axis, keepdims)
        axes = self._value_axes(self._user_axes(axis))
        keep = self._where() & np.logical_not(np.isnan(self.values))
        only_nan = np.any(self.mask) & np.any(np.logical_not(np.any(keep, axis=axes)))
        raise_at_run_time(only_nan, lambda: ValueError("All-NaN slice encountered"))
        return self._nan_free(_lowest(self.dtype, np_fn is np.argmax))._arg(np_fn, axis, out, keepdims)

    def astype(self, dtype, *args, **kwargs):
        return self._like(self.values.astype(dtype, *args, **kwargs))

    def _elementwise(self, func, args, kwargs):
        """``np.round(x[m], 2)``, ``np.clip(x[m], lo, hi)``, ``np.where(x[m] > 0, x[m], 0)``: a
        NumPy function that works element by element gives, on the values whole, each kept
        element's result where the compacted array's would be; operands as a ufunc's (selections
        by this mask, or values that broadcast along the selected elements). ``out=`` would
        write a compacted array, so it is refused."""
        name = func.__name__
        if kwargs.get("out") is not None:
            raise self._refusal(f"numpy.{name} with out=")
        operands = (*args, *kwargs.values())

        def plain(x):
            return self._operand(x, name, operands) if _array_like(x) else x
        return self._like(func(*map(plain, args), **{k: plain(v) for k, v in kwargs.items()}))

    def round(self, decimals=0, out=None):
        return self._elementwise(np.round, (self, decimals), {"out": out})

    def clip(self, min=None, max=None, out=None, **kwargs):
        return self._elementwise(np.clip, (self, min, max), {"out": out, **kwargs})

    def conj(self):
        return self._like(np.conjugate(self.values))

    conjugate = conj

    @property
    def real(self):
        return self._like(np.real(self.values))

    @property
    def imag(self):
        return self._like(np.imag(self.values))

    def copy(self, order="C"):
        """``x[m].copy()``: the same selection of values of its own, which later writes to
        ``x`` do not reach (returned, it is compacted as any selection)."""
        if order not in ("C", "K", "A"):
            raise self._refusal(f".copy(order={order!r})")
        return self._like(fresh(self.values))

    # -- reductions ------------------------------------------------------------------------------
    def __array_function__(self, func, types, args, kwargs):
        if func is np.outer and len(args) == 2 and not kwargs:
            return self._outer(np.multiply, *args)
        if func in (np.dot, np.inner, np.vdot) and len(args) == 2 and not kwargs:
            a, b = args
            if func is np.vdot and isinstance(a, MaskedSelection):
                a = np.conjugate(a)
            return self._dot(func.__name__, a, b)
        if func in _ELEMENTWISE:
            return self._elementwise(func, args, kwargs)
        if func in _SIDE_BY_SIDE and len(args) == 1 and not kwargs.keys() - {"axis"}:
            joined = _side_by_side(func, args[0], kwargs.get("axis", 0))
            if joined is not None:
                return joined
        if func in _STACKS and len(args) == 1 and not kwargs.keys() - {"axis"}:
            return _stacked(func, args[0], kwargs.get("axis", 0))
        if func is np.linalg.lstsq and args:
            return SELECTION_STATISTICS["lstsq"](*args, **kwargs)
        if func in (np.histogram2d, np.histogramdd):  # the bins' shape: the mask drops rows
            return SELECTION_STATISTICS[func.__name__](*args, **kwargs)
        if func is np.interp:  # x's shape whatever the count: knots searched over it
            return SELECTION_STATISTICS["interp"](*args, **kwargs)
        if func in _FILLED_LIKE and args and args[0] is self and kwargs.get("shape") is None:
            # np.ones_like(x[m]): as many as it selects, each the fill (dtype= as asked)
            kwargs.pop("shape", None)
            return self._like(func(self.values, *args[1:], **kwargs))
        if func in _STATISTICS:
            if args[0] is not self:
                raise self._refusal(f"numpy.{func.__name__} with it after the first argument")
            return _STATISTICS[func](self, *args[1:], **kwargs)
        if func is np.ndim and len(args) == 1 and not kwargs:  # static (np.r_ asks for it)
            return self.ndim
        along = LENGTH_OPS["functions"].get(func)
        if along is not None and (func is np.concatenate or args[0] is self) and self.position == 0:
            return along(*args, **kwargs)  # np.sort(y): at the selection's length
        reduce = _REDUCTIONS.get(func)
        others = (*args[1:], *kwargs.values())
        if reduce is None or args[0] is not self or any(isinstance(a, MaskedSelection) for a in others):
            name = getattr(func, "__name__", str(func))
            raise self._refusal(f"numpy.{name}")
        return reduce(self, *args[1:], **kwargs)

    def taken(self, a, indices, axis=None, out=None, mode="raise"):
        """``np.take(a, idx[mask])`` along the first axis (or of ``a`` raveled): ``a[idx[mask]]``,
        a selection by the same mask, only the kept indices bounds-checked."""
        ndim = np.ndim(a)
        if indices is not self or a is self or out is not None or mode != "raise" or not ndim \
                or (axis is not None and axis not in (0, -ndim)):
            raise self._refusal("numpy.take")
        return (a if axis is not None else np.ravel(a))[self]

    # -- axes: the selection's (NumPy's) against values' (the mask's dims first) ---------------
    def _user_axes(self, axis) -> tuple:
        """``axis`` of the selection normalized (all of them for None)."""
        if axis is None:
            return tuple(range(self.ndim))
        return tuple(prims.normalize_axes(axis, self.ndim, "reduction"))

    def _covers(self, axis) -> bool:
        """Whether ``axis`` reduces the selected dim: else each kept row reduces on its own,
        and the result is a selection by the same mask (``_per_row``)."""
        return self.position in self._user_axes(axis)

    def _value_axes(self, axes) -> tuple:
        """The axes of ``values`` that the selection's ``axes`` stand for."""
        k, out = self.mask.ndim, []
        for j in axes:
            if j == self.position:
                out += range(k)
            else:
                out.append(k + (j if j < self.position else j - 1))
        return tuple(sorted(out))

    def _axes(self, axis, keepdims: bool):
        """The axes of ``values`` that ``axis`` of the selection reduces (one of them the
        selected dim), and the shape that ``keepdims`` gives the result (None: as reduced)."""
        axes = self._user_axes(axis)
        if self.position not in axes:
            raise self._refusal("a reduction along a kept axis")
        dims = list(self.values.shape[self.mask.ndim:])
        dims.insert(self.position, 1)
        kept = tuple(1 if j in axes else n for j, n in enumerate(dims))
        return self._value_axes(axes), kept if keepdims else None

    def _per_row(self, np_fn, axis, keepdims, **kwargs) -> MaskedSelection:
        """``np_fn`` along axes that keep the selected dim: each row's reduction, whoever keeps
        it, as a selection by the same mask (``x[m].sum(axis=1)`` is ``x.sum(axis=1)[m]``)."""
        axes = self._user_axes(axis)
        along = self._value_axes(axes)  # one as an int: argmax takes no tuple
        values = np_fn(self.values, axis=along[0] if len(along) == 1 else along, keepdims=keepdims,
                       **kwargs)
        position = self.position if keepdims else self.position - sum(j < self.position for j in axes)
        if position == self.position:
            return self._like(values)
        out = MaskedSelection(values, self.mask) if position == 0 else \
            MovedSelection(values, self.mask, position=position)
        out.described = self.described
        return out

    def _where(self):
        """The mask broadcast over ``values``' trailing dims."""
        rest = self.values.ndim - self.mask.ndim
        return prims.broadcast_to(prims.reshape(self.mask, self.mask.shape + (1,) * rest),
                                  self.values.shape)

    def _reduce(self, np_fn, axis, keepdims, **kwargs):
        if not self._covers(axis):
            return self._per_row(np_fn, axis, keepdims, **kwargs)
        axes, kept = self._axes(axis, keepdims)
        out = np_fn(self.values, axis=axes, where=self._where(), **kwargs)
        return out if kept is None else prims.reshape(out, kept)

    def _in_numpy_order(self, axis, dtype) -> bool:
        """Whether a sum over this selection must be summed as NumPy sums the compacted
        selection (pairwise over the kept elements, not over all of ``values``): a float32 or
        float64 sum of all of it. Integer sums are exact in any order, and stay a masked
        reduction (no compaction)."""
        kind = self.dtype if dtype is None else np.dtype(dtype)
        return (kind == self.dtype and kind in (np.float32, np.float64)
                and (type(self) is MaskedSelection or self.length is not None)
                and (axis is None or self.ndim == 1))

    def _kept(self, keepdims: bool, statistic):
        """``statistic(terms, count)`` of the compacted selection (``compaction.kept_terms``),
        shaped for ``keepdims``."""
        out = statistic(*compaction.kept_terms(self))
        return prims.reshape(out, (1,) * self.ndim) if keepdims else out

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        _no_out(out, "sum")
        if self._in_numpy_order(axis, dtype):
            return self._kept(keepdims, _head_sum)
        return self._reduce(np.sum, axis, keepdims, dtype=dtype)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        _no_out(out, "prod")
        return self._reduce(np.prod, axis, keepdims, dtype=dtype)

    def any(self, axis=None, out=None, keepdims=False):
        _no_out(out, "any")
        return self._reduce(np.any, axis, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        _no_out(out, "all")
        return self._reduce(np.all, axis, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        _no_out(out, "mean")
        if self._in_numpy_order(axis, dtype):
            return self._kept(keepdims, lambda terms, count: _head_sum(terms, count) / _as(count, terms))
        return self._reduce(np.mean, axis, keepdims, dtype=dtype)

    def max(self, axis=None, out=None, keepdims=False, initial=None):
        return self._extreme(np.max, "maximum", axis, out, keepdims, initial)

    def min(self, axis=None, out=None, keepdims=False, initial=None):
        return self._extreme(np.min, "minimum", axis, out, keepdims, initial)

    def _extreme(self, np_fn, name: str, axis, out, keepdims, initial=None):
        """max/min have no identity: the masked-out elements count as the dtype's lowest (highest)
        value, and a call that selected nothing raises NumPy's ValueError; with ``initial``, the
        masked-out elements are it, and nothing selected gives it, as in NumPy."""
        _no_out(out, np_fn.__name__)
        if not self._covers(axis):
            extra = {} if initial is None else {"initial": initial}
            return self._per_row(np_fn, axis, keepdims, **extra)
        if self.dtype.kind == "c":
            raise UnsupportedError(f"x[mask].{np_fn.__name__}() of complex numbers is not supported "
                                   f"under jit yet (at {user_location()})")
        if initial is not None:
            return self._reduce(np_fn, axis, keepdims, initial=initial)
        message = f"zero-size array to reduction operation {name} which has no identity"
        if 0 in self.values.shape[self.mask.ndim:] and axis is None:
            raise ValueError(message)
        _raise_if_none_selected(self.mask, message)
        return self._reduce(np_fn, axis, keepdims, initial=_lowest(self.dtype, np_fn is np.max))

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        _no_out(out, "var")
        if not self._covers(axis):
            return self._per_row(np.var, axis, keepdims, dtype=dtype, ddof=ddof)
        if self._in_numpy_order(axis, dtype) and not isinstance(ddof, Tracer):
            return self._kept(keepdims, lambda terms, count: _variance(terms, count, ddof))
        axes, kept = self._axes(axis, keepdims)
        where = self._where()
        if dtype is None and self.dtype.kind in "biu":
            dtype = np.float64  # as NumPy: the mean of integers in float64
        mean = np.mean(self.values, axis=axes, dtype=dtype, keepdims=True, where=where)
        d = self.values - mean
        sq = (d * np.conj(d)).real if d.dtype.kind == "c" else d * d
        total = np.sum(sq, axis=axes, dtype=dtype, where=where)
        count = np.sum(where, axis=axes) - ddof
        out = total / np.maximum(count, 0)
        return out if kept is None else prims.reshape(out, kept)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        if not self._covers(axis):
            _no_out(out, "std")
            return self._per_row(np.std, axis, keepdims, dtype=dtype, ddof=ddof)
        return np.sqrt(self.var(axis, dtype, out, ddof, keepdims))

    def count_nonzero(self, axis=None, keepdims=False):
        return (self != 0).sum(axis=axis, keepdims=keepdims)

    # -- order statistics and counts: their shapes do not depend on the selection's -------------
    def _quantile(self, name: str, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
        _no_out(out, name)
        if weights is not None or interpolation is not None:
            raise self._refusal(f"numpy.{name} with weights= or interpolation=")
        if not self._covers(axis):
            if np.ndim(q) != 0:  # q's dims would come first, before the selected one
                raise self._refusal(f"numpy.{name} of several q along a kept axis")
            return self._per_row(lambda v, **k: getattr(np, name)(v, q, method=method, **k),
                                 axis, keepdims)
        axes, kept = self._axes(axis, keepdims)
        return SELECTION_STATISTICS["quantile"](self.values, self._where(), axes, kept, q, method, name)

    def _median(self, name: str, axis=None, out=None, overwrite_input=False, keepdims=False):
        _no_out(out, name)
        if not self._covers(axis):
            return self._per_row(getattr(np, name), axis, keepdims)
        axes, kept = self._axes(axis, keepdims)
        return SELECTION_STATISTICS["median"](self.values, self._where(), axes, kept, name)

    def _histogram(self, bins=10, range=None, density=None, weights=None):
        """``np.histogram(x[m], ...)``: the histogram of all of ``x`` counting only the selected
        elements (``weights`` a selection by the same mask, if given)."""
        if isinstance(weights, MaskedSelection):
            weights = self._operand(weights, "histogram")  # its values
        elif weights is not None:
            raise self._refusal("numpy.histogram with weights that are not x[mask]'s")
        return SELECTION_STATISTICS["histogram_of"](self.values, bins, range, density, weights,
                                       selected=self._where())

    def _bincount(self, weights=None, minlength=0):
        """``np.bincount(x[m], minlength=k)``: each selected value counted (or its weight
        summed); the others add nothing. (Weighted counts are float64 even where nothing is
        selected: NumPy's are int64 zeros then, a dtype that depends on the data.)"""
        if isinstance(weights, MaskedSelection):
            weights = self._operand(weights, "bincount")
        elif weights is not None:
            raise self._refusal("numpy.bincount with weights that are not x[mask]'s")
        flat = self._on_one_axis()  # (np.nonzero(C)[0] of a 2-D C: C's grid, flattened)
        if weights is not None and flat is not self:
            weights = prims.reshape(prims.broadcast_to(weights, self.values.shape), flat.values.shape)
        return SELECTION_STATISTICS["bincount_of"](flat.values, weights, minlength, selected=flat._where())


class RangedSelection(MaskedSelection):
    """``x[a:b]`` along ``x``'s first axis where a bound is a traced loop index (``x[:i]``,
    ``L[i, :i]``, ``x[i:]``): its length depends on the data, so it is the mask
    ``a <= arange(n) < b`` over ``x`` (see ``indexing.ranged_slice``). A use that needs its length
    asks for a concrete value, as the slice did before, so a loop whose body needs it is unrolled."""

    __slots__ = ("spans", "raw")

    def __init__(self, values: Tracer, mask: Tracer, factors: tuple | None = None,
                 spans: tuple | None = None, raw: tuple | None = None):
        super().__init__(values, mask, factors)
        # (start, stop) of each sliced axis, a static int or a traced index each (or None)
        self.spans = spans
        # the slice's own bounds, before NumPy's clamping (None where not kept): a traced int
        # that is no loop index (x[:i] with i = np.argmax(x)) keeps its value's open form
        # there, which traced_cuts reads
        self.raw = raw

    @property
    def shape(self):  # a concrete value, asked for: the loop that needs it is unrolled
        raise self._refusal("its shape")

    size = shape

    def _like(self, values: Tracer) -> RangedSelection:
        return RangedSelection(values, self.mask, self.factors, self.spans, self.raw)

    # -- a block: slices of traced bounds on several axes (Y[:k, :k], a[k:, k:]) -------------------
    # NumPy keeps every dim of a block, where a selection by a mask of several dims (x[m2]) has
    # one, in which MaskedSelection's methods read it: a block takes only what means the same
    # either way (elementwise ops with a number or a selection by the same mask, products of
    # blocks, whole reductions, writes) and asks for a concrete value for anything else (its
    # loop unrolled, bounds from arguments made static), never the flattened answer.
    def _block(self) -> bool:
        return self.mask.ndim > 1

    @property
    def ndim(self) -> int:
        if self._block():  # (MaskedSelection's code reads ndim as the flattened selection's)
            raise self._refusal("its number of dims")
        return super().ndim

    def _partial(self, axis) -> tuple | None:
        """A block's axes that a reduction along ``axis`` reduces, where not all of them (its
        dims are values' dims); None for a whole reduction or a selection of one sliced axis."""
        if not self._block() or axis is None:
            return None
        axes = tuple(sorted(prims.normalize_axes(axis, self.values.ndim, "reduction")))
        return None if axes == tuple(range(self.values.ndim)) else axes

    def _user_axes(self, axis) -> tuple:
        if not self._block():
            return super()._user_axes(axis)
        if self._partial(axis) is not None:  # (those reduce in _reduce and _extreme)
            raise self._refusal("a reduction along some of its axes")
        return tuple(range(self.values.ndim - self.mask.ndim + 1))  # all: the flattened selection's

    def _in_numpy_order(self, axis, dtype) -> bool:
        return self._partial(axis) is None and super()._in_numpy_order(axis, dtype)

    def _reduce(self, np_fn, axis, keepdims, **kwargs):
        """A block reduced along some of its axes (``Y[:k, :k].sum(axis=0)``): each kept
        position reduced over the masked values of those axes, a block (or ranged slice) of the
        sliced axes that remain, or a plain array where none remains."""
        axes = self._partial(axis)
        if axes is None:
            return super()._reduce(np_fn, axis, keepdims, **kwargs)
        if keepdims:
            raise self._refusal("a reduction along some of its axes with keepdims")
        values = np_fn(self.values, axis=axes, where=self._where(), **kwargs)
        kept = [j for j in range(self.mask.ndim) if j not in axes]
        if not kept:
            return values
        factors = tuple(self.factors[j] for j in kept)
        spans = tuple(self.spans[j] for j in kept) if self.spans else None
        return RangedSelection(values, product_mask(factors), factors, spans)

    def _extreme(self, np_fn, name: str, axis, out, keepdims, initial=None):
        axes = self._partial(axis)
        if axes is None:
            return super()._extreme(np_fn, name, axis, out, keepdims, initial)
        _no_out(out, np_fn.__name__)
        if self.dtype.kind == "c":
            raise UnsupportedError(f"x[a:b, c:d].{np_fn.__name__}() of complex numbers is not "
                                   f"supported under jit yet (at {user_location()})")
        if initial is None:  # NumPy raises where an axis it reduces is empty, whatever is kept
            message = f"zero-size array to reduction operation {name} which has no identity"
            if any(self.values.shape[j] == 0 for j in axes if j >= self.mask.ndim):
                raise ValueError(message)
            for j in axes:
                if j < self.mask.ndim:
                    _raise_if_none_selected(self.factors[j], message)
            initial = _lowest(self.dtype, np_fn is np.max)
        return self._reduce(np_fn, axis, keepdims, initial=initial)

    def _operand(self, x, name: str, inputs=()):
        if not self._block():
            return super()._operand(x, name, inputs)
        if isinstance(x, MaskedSelection) and aligned_by_mask(x, self):
            return x.values  # a block by the same mask: element for element
        if isinstance(x, MaskedSelection) or np.ndim(x) != 0:  # (NumPy broadcasts against the block's dims)
            raise self._refusal(f"numpy.{name} with an array of shape {np.shape(x)}")
        return x

    def __array_function__(self, func, types, args, kwargs):
        if self._block() and func not in _BLOCK_FUNCTIONS and func not in _ELEMENTWISE \
                and func not in _FILLED_LIKE and func not in _REDUCTIONS:
            raise self._refusal(f"numpy.{getattr(func, '__name__', func)}")
        return super().__array_function__(func, types, args, kwargs)

    def __getattr__(self, name: str):
        if not name.startswith("__") and name not in MaskedSelection.__slots__ and self._block():
            raise self._refusal(f".{name}")
        return super().__getattr__(name)

    def _median(self, name: str, axis=None, out=None, overwrite_input=False, keepdims=False):
        """``np.median(x[i - w + 1:i + 1])`` of a 1-d ``x``: the window rebased to its start
        and bounded to its length (``compaction.bounded``), so the median costs the window,
        not ``len(x)`` (``selection_statistics.head_median``)."""
        if name == "median" and out is None and self.values.ndim == 1 and self.spans \
                and len(self.spans) == 1 and self._covers(axis):
            n, (start, stop) = self.values.shape[0], self.spans[0]
            trace = self.values.owner_trace
            start = prims.clip(prims.as_tracer(trace, start, np.dtype(np.int64)), 0, n)
            stop = prims.clip(prims.as_tracer(trace, stop, np.dtype(np.int64)), 0, n)
            length = prims.ufunc(np.maximum, prims.ufunc(np.subtract, stop, start), 0)
            at = prims.clip(prims.ufunc(np.add, start, prims.constant(trace, _arange(n))), 0, max(n - 1, 0))
            head = SELECTION_STATISTICS["bounded"](self.values[at], length)
            value = SELECTION_STATISTICS["head_median"](head, length, (1,) if keepdims else None)
            if value is not None:
                return value
        return super()._median(name, axis, out, overwrite_input, keepdims)

    def __getitem__(self, key):
        """``t[i:j + 1][::-1]``: the slice reversed in place, element ``p`` of its span being
        ``t[start + stop - 1 - p]`` (a gather, clipped; positions outside the span are masked)."""
        if self._block():
            raise self._refusal("indexing it")
        first = key[0] if type(key) is tuple and len(key) == 1 else key
        if not (isinstance(first, slice) and first.start is None and first.stop is None
                and isinstance(first.step, int) and first.step == -1):
            return super().__getitem__(key)
        if not self.spans or len(self.spans) != 1 or self.mask.ndim != 1:
            raise self._refusal("reversing it over more than one sliced axis")
        (start, stop), n = self.spans[0], self.values.shape[0]
        positions = prims.constant(self.values.owner_trace, _arange(n))
        last = prims.ufunc(np.subtract, prims.ufunc(np.add, start, stop), 1)
        idx = prims.clip(prims.ufunc(np.subtract, last, positions), 0, max(n - 1, 0))
        return self._like(self.values[idx])

    def _arg(self, np_fn, axis, out, keepdims):
        """``np.argmin(x[i:])``: the slice rebased (element j is ``x[start + j]``), the
        positions past its length filled with a value that never wins; those come after the
        slice's own, so ties (and NaN, NumPy's first) go to the slice. An empty slice raises
        NumPy's ValueError when called."""
        name = np_fn.__name__
        if axis is not None or out is not None or keepdims or self.values.ndim != 1 \
                or not self.spans or len(self.spans) != 1:
            raise self._refusal(f"numpy.{name} with an axis, out= or keepdims, or of more than 1-d")
        if self.dtype.kind == "c":
            raise UnsupportedError(f"numpy.{name} of a complex slice of traced length is not "
                                   f"supported under jit yet (at {user_location()})")
        (start, stop), n = self.spans[0], self.values.shape[0]
        rebased = realign(self.values, start, n, 0)
        positions = prims.constant(self.values.owner_trace, _arange(n))
        valid = positions < prims.ufunc(np.subtract, stop, start)
        _raise_if_none_selected(valid, f"attempt to get {name} of an empty sequence")
        filler = prims.as_tracer(self.values.owner_trace, _lowest(self.dtype, np_fn is np.argmax),
                                 self.dtype)
        return np_fn(prims.where(valid, rebased, filler))

    def _refusal(self, what: str) -> Exception:
        # (marked with the bounds' arguments: x[:k] * w[:k] with k an int argument makes k static)
        bounds = [b for span in self.spans or () if span is not None for b in span if isinstance(b, Tracer)]
        return needs_static(ConcretizationError(
            f"x[a:b] (of a {self.values.dtype} array of shape {self.values.shape}), a slice whose "
            f"bound is a traced index, has a length that depends "
            f"on the data, which a compiled function cannot have ({what}), at {user_location()}. "
            "Reduce it at once (x[:i].sum(), .max(), np.mean(x[i:]), L[i, :i] @ x[:i]), write it "
            "(x[:i] = v, x[:i] = f(x[:i])), or use jitcore.numpy.where(np.arange(n) < i, x, 0)"
            + _static_advice(bounds)), *bounds)

    def __repr__(self) -> str:
        return f"{self.values!r}[a:b], a slice of traced length: reduce it (x[:i].sum())"


class MovedSelection(MaskedSelection):
    """``a[:, m]``: a selection whose dim NumPy keeps after others (at ``position``), held with
    the mask's dims first; elementwise ops, writes back and reductions along any axes are the
    same (``_value_axes`` maps them), products are refused: their dims would not be NumPy's."""

    __slots__ = ("position",)

    def __init__(self, values: Tracer, mask: Tracer, factors: tuple | None = None, position: int = 1):
        super().__init__(values, mask)
        self.factors = None  # no products: their operands' dims would not be NumPy's
        self.position = position

    def _like(self, values: Tracer) -> MovedSelection:
        out = MovedSelection(values, self.mask, position=self.position)
        out.described = self.described
        return out


def product_mask(masks) -> Tracer:
    """The mask over several dims that keeps a point where each dim's 1-d mask keeps its
    position, built one way everywhere (so two such masks compare as the same)."""
    if len(masks) == 1:
        return masks[0]
    out = None
    for j, m in enumerate(masks):
        shape = [1] * len(masks)
        shape[j] = m.shape[0]
        m = prims.reshape(m, tuple(shape))
        out = m if out is None else out & m
    return out


def write_ranged(x: Tracer, mask: Tracer, value, refusal: RangedSelection) -> Tracer:
    """``x[a:b] = value`` as ``where``: a scalar, a row for every selected one, or a selection
    by the same mask (``x[:i] = 2 * x[:i]``); a value of another length is refused."""
    if isinstance(value, MaskedSelection):
        if same_mask(value.mask, mask) and value.values.shape == x.shape:
            return write(x, mask, value)
        target = RangedSelection(x, mask, refusal.factors, refusal.spans)
        aligned = aligned_onto(value, target, writing=True)  # out[:n - k] = x[k:]: shifted into place
        if aligned is None:
            raise refusal._refusal("assigning a selection by another mask or of another shape")
        return write(x, mask, MaskedSelection(aligned, mask))
    shape = np.shape(value)
    if len(shape) >= x.ndim and shape[len(shape) - x.ndim] != 1:
        whole = _as_ranged(x, value) if len(shape) == x.ndim else None
        if whole is None:
            raise refusal._refusal(f"assigning an array of shape {shape}")
        return write_ranged(x, mask, whole, refusal)  # new[i:j] = arr: its length checked when run
    v = prims.broadcast_to(prims.as_tracer(x.owner_trace, value, x.dtype), x.shape)
    cond_ = prims.reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
    return prims.where(cond_, prims.convert(v, x.dtype), x)


def _as_ranged(x: Tracer, value) -> RangedSelection | None:
    """An array of static length ``L`` as the ranged slice ``[0, L)`` of itself, so that it is
    written into a slice with bounds from the data like a slice (``x[i:j] = np.arange(3)``).
    None where its trailing dims are not ``x``'s (broadcast rows stay refused)."""
    if tuple(np.shape(value)[1:]) != tuple(x.shape[1:]):
        return None
    length = np.shape(value)[0]
    v = prims.convert(prims.as_tracer(x.owner_trace, value, x.dtype), x.dtype)
    if length == 0:  # one element that is never written: the gather reads in bounds
        v = prims.broadcast_to(prims.as_tracer(x.owner_trace, 0, x.dtype), (1,) + v.shape[1:])
    everywhere = prims.constant(x.owner_trace, np.ones(v.shape[0], np.bool_))
    return RangedSelection(v, everywhere, None, ((0, length),))


def aligned_onto(x, onto: MaskedSelection, writing: bool = False) -> Tracer | None:
    """The values of the 1-d-ranged selection ``x`` placed at the positions of ``onto``'s
    (``xc[k:]`` onto ``xc[:-k]``: ``xc[k + j]`` at ``j``), where the two slices have the same
    length for every value of the loop index (``index_forms.length_key``); else None."""
    if not (isinstance(x, RangedSelection) and isinstance(onto, RangedSelection)
            and x.spans and onto.spans and len(x.spans) == len(onto.spans) == 1
            and x.mask.ndim == onto.mask.ndim == 1 and x.values.shape[1:] == onto.values.shape[1:]):
        return None
    key, onto_key = index_forms.length_key(*x.spans[0]), index_forms.length_key(*onto.spans[0])
    if key is not None and key == onto_key:
        return realign(x.values, x.spans[0][0], onto.values.shape[0], onto.spans[0][0])
    if key is not None and onto_key is not None:
        return None  # two forms of the index, of other lengths: the loop unrolls (NumPy's error)
    return _checked_realign(x, onto, writing)


def _static_advice(bounds) -> str:
    """Where a bound comes from a scalar argument (``c[w:]``, ``w`` an int): mark it static."""
    names = sorted({s for b in bounds for s in b.sources if s in b.owner_trace.scalar_arguments})
    if not names:
        return ""
    return (", or, as the bound is a Python value, mark it static: jit(f, static_argnames=("
            + ", ".join(repr(n) for n in names) + ",)) — each new value then compiles once")


def _length(span):
    start, stop = span
    return _op(np.maximum, _op(np.subtract, stop, start), 0)


def _op(ufunc, a, b):
    """``ufunc(a, b)`` of bounds that are static ints or traced indices."""
    if isinstance(a, Tracer) or isinstance(b, Tracer):
        return prims.ufunc(ufunc, a, b)
    return int(ufunc(a, b))


def _checked_realign(x: RangedSelection, onto: RangedSelection, writing: bool) -> Tracer:
    """``x``'s values at ``onto``'s positions where a bound comes from the data, so equal
    lengths cannot be proved while tracing: the call checks them when it runs and raises NumPy's
    ValueError where they differ; a slice of length 1 broadcasts (its one element everywhere).
    ``onto`` of length 1 against a longer ``x`` would give a result longer than ``onto``'s
    frame, which a selection cannot hold: that raises at run time too, saying what to write."""
    n, m = _length(onto.spans[0]), _length(x.spans[0])
    one = _op(np.equal, m, 1)

    def shape(k: int, of: RangedSelection = x) -> str:  # as NumPy prints them: (5,), (2,1)
        dims = (k,) + tuple(of.values.shape[1:])
        return "(" + ",".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"

    where = user_location()

    def mismatch(a, b):
        a, b = int(a), int(b)
        if writing:
            return ValueError(f"could not broadcast input array from shape {shape(b)} "
                              f"into shape {shape(a, onto)}")
        if a == 1:
            return UnsupportedError(
                f"a slice of length 1 broadcast against one of length {b}, both with bounds from the "
                f"data, at {where}: jitcore keeps such a result at the first operand's positions, "
                "which cannot hold it. Put the longer slice first (b[k:l] * a[i:j])")
        return ValueError("operands could not be broadcast together with shapes "
                          f"{shape(a, onto)} {shape(b)} ")

    differ, longer = _op(np.not_equal, n, m), _op(np.not_equal, m, 1)
    bad = differ & longer if isinstance(differ, Tracer) else longer & differ
    if isinstance(bad, Tracer):
        raise_at_run_time(bad, mismatch, n, m)
    elif bad:
        raise mismatch(n, m)
    positions = prims.constant(x.values.owner_trace, _arange(onto.values.shape[0]))
    idx = prims.ufunc(np.add, positions, _op(np.subtract, x.spans[0][0], onto.spans[0][0]))
    if one is True or isinstance(one, Tracer):
        idx = prims.where(one, x.spans[0][0], idx)
    idx = prims.clip(idx, 0, max(x.values.shape[0] - 1, 0))
    return x.values[idx]


def realign(values: Tracer, start, n: int, onto_start) -> Tracer:
    """``values[start + j]`` at position ``onto_start + j``, for positions ``0..n-1``: a gather
    at ``p - onto_start + start``, clipped into ``values`` (the positions outside the span are
    masked out by the caller, and never read out of bounds)."""
    trace = values.owner_trace
    positions = prims.constant(trace, _arange(n))
    if isinstance(start, Tracer) or isinstance(onto_start, Tracer):
        idx = prims.ufunc(np.add, positions, prims.ufunc(np.subtract, start, onto_start))
    else:
        idx = positions + (start - onto_start)
    idx = prims.clip(idx, 0, max(values.shape[0] - 1, 0))
    return values[idx]  # a gather along the first axis (indexing's take)


_ARANGES: dict[int, np.ndarray] = {}


def _is_int(key) -> bool:
    """An integer index: a Python or NumPy int (not a bool), or a traced 0-d integer."""
    if isinstance(key, Tracer):
        return key.ndim == 0 and key.dtype.kind in "iu"
    return isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))


def _arange(n: int) -> np.ndarray:
    """One ``np.arange(n)`` per length, so the masks of ``x[:i]`` and ``y[:i]`` read one
    constant (the trace's constants are keyed by the array) and compare as the same mask."""
    if n not in _ARANGES:
        if len(_ARANGES) > 256:
            _ARANGES.clear()
        _ARANGES[n] = np.arange(n)
    return _ARANGES[n]


def _head_sum(terms: Tracer, count: Tracer) -> Tracer:
    return compaction.head_sum(terms, count)


def _as(count: Tracer, like: Tracer) -> Tracer:
    return prims.convert(count, like.dtype)


def _variance(terms: Tracer, count: Tracer, ddof) -> Tracer:
    """NumPy's ``_var`` of the first ``count`` of ``terms``: the mean, the squared deviations
    summed, divided by ``max(count - ddof, 0)``, each sum pairwise over ``count``."""
    d = terms - _head_sum(terms, count) / _as(count, terms)
    return _head_sum(d * d, count) / prims.convert(np.maximum(count - ddof, 0), terms.dtype)


def _no_out(out, name: str) -> None:
    if out is not None:
        raise JitTypeError(f"x[mask].{name}(out=...) is not supported under jit (at {user_location()})")


def _lowest(dtype: np.dtype, for_max: bool):
    """The value that never wins a max (``for_max``) or min among ``dtype``'s values."""
    if dtype.kind == "f":
        return -np.inf if for_max else np.inf
    if dtype.kind == "b":
        return not for_max
    info = np.iinfo(dtype)
    return info.min if for_max else info.max


def _raise_if_none_selected(mask: Tracer, message: str) -> None:
    """At run time, when ``mask`` selects nothing: NumPy's ValueError, raised by the call."""
    raise_at_run_time(np.logical_not(np.any(mask)), lambda: ValueError(message))


_INTP = np.dtype(np.intp)


def _kept_positions(mask: Tracer, length: int) -> Tracer:
    """The flat positions of the first ``length`` elements ``mask`` keeps, in order (intp; the
    mask's size past the last kept one): the k-th kept element is where the running count of
    kept elements first reaches k + 1 (a search in the count: this module stays below
    ``jitcore.indexing``, which builds on it)."""
    running = np.cumsum(prims.convert(prims.ravel(mask), _INTP))
    wanted = np.cumsum(prims.broadcast_to(prims.constant(mask.owner_trace, np.ones((), _INTP)), (length,)))
    return prims.searchsorted(running, wanted, "left")


def realigned(x, onto, error) -> Tracer:
    """The kept rows of the selection ``x`` at the kept positions of ``onto`` (a selection by
    another mask), the k-th at the k-th, as values of ``onto``'s frame: NumPy's pairing of two
    compacted arrays, with no compaction of the result. The call checks the counts, raising
    ``error(count, onto_count)`` where ``error.bad``; a count of 1 is broadcast."""
    count = prims.reduction("sum", prims.convert(x.mask, _INTP))
    onto_count = prims.reduction("sum", prims.convert(onto.mask, _INTP))
    raise_at_run_time(error.bad(count, onto_count), error, count, onto_count)
    frame = int(np.prod(onto.mask.shape, dtype=np.int64))
    rest = x.values.shape[x.mask.ndim:]
    rows = prims.reshape(x.values, (-1, *rest))
    if rows.shape[0] == 0:  # nothing to read: the check allows only nothing kept in onto
        values = prims.broadcast_to(prims.constant(x.values.owner_trace, np.zeros((), x.dtype)),
                                    (frame, *rest))
    else:
        last = rows.shape[0] - 1  # (past the last kept one: any row, the check discards it)
        positions = prims.clip(_kept_positions(x.mask, frame), 0, last) if frame else \
            prims.constant(x.values.owner_trace, np.zeros(0, _INTP))
        rank = np.cumsum(prims.convert(prims.ravel(onto.mask), _INTP)) - 1
        at = np.take(positions, prims.clip(rank, 0, max(frame - 1, 0))) if frame else positions
        one = prims.slice_(positions, [0], [1], [1]) if frame else positions
        at = prims.where(count == 1, one, at)  # (one kept row: NumPy's broadcast)
        values = np.take(rows, at, axis=0)
    return prims.reshape(values, (*onto.mask.shape, *rest))


def raise_at_run_time(condition: Tracer, error, *values) -> None:
    """``error(*values)`` raised by the call where ``condition`` holds (a callback on the branch
    that is taken only then; ``values``, traced, arrive concrete)."""
    def fail(_, *concrete):
        raise error(*concrete)

    def check():
        from jitcore.debugging import debug_callback  # here: it loads the codegen's callbacks

        debug_callback(fail, 0, *values)

    cond(condition, check, lambda: None)


def _by_count(total, count):
    """NumPy's ``_divide_by_count``: ``total / count`` in ``total``'s dtype (a float32 sum over
    an intp count divides in float64, then rounds), a NumPy scalar where 0-d."""
    out = prims.convert(np.true_divide(total, count), np.dtype(total.dtype))
    return as_scalar(out) if np.ndim(out) == 0 else out


def _power(self, other):
    """``sel ** k``: NumPy's operator on the selected array, which takes np.square, np.sqrt or
    np.reciprocal for the exponents 2, 0.5 and -1 (``primitives.power_operator``), not its
    power loop (complex ``z[m] ** 2`` is then a multiplication, as ``z[m] * z[m]``)."""
    if isinstance(other, MaskedSelection):
        return np.power(self, other)
    return self._like(prims.power_operator(self.values, self._operand(other, "power")))


ufunc_operators.install(MaskedSelection, power=_power)

_REDUCTIONS = {np.sum: MaskedSelection.sum, np.prod: MaskedSelection.prod, np.any: MaskedSelection.any,
               np.all: MaskedSelection.all, np.mean: MaskedSelection.mean, np.max: MaskedSelection.max,
               np.amax: MaskedSelection.max, np.min: MaskedSelection.min, np.amin: MaskedSelection.min,
               np.var: MaskedSelection.var, np.std: MaskedSelection.std,
               np.count_nonzero: MaskedSelection.count_nonzero,
               np.argmin: MaskedSelection.argmin, np.argmax: MaskedSelection.argmax,
               **{getattr(np, n): getattr(MaskedSelection, n)
                  for n in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                            "nanargmax", "nanargmin")}}

# Functions of a whole selection whose result's shape does not depend on how many it holds.
# NumPy functions that work element by element (the ufunc-like ones that are not ufuncs):
# on a selection, the same function of its values, selected by the same mask.
_ELEMENTWISE = frozenset((np.round, np.around, np.clip, np.where, np.nan_to_num, np.fix,
                          np.real, np.imag, np.angle, np.sinc, np.i0, np.isclose, np.isreal,
                          np.iscomplex, np.isneginf, np.isposinf))


# Stacks of 1-d selections by one mask: the rows (np.vstack, np.stack) or columns
# (np.column_stack, np.stack(axis=1)) of a selection of vectors.
_STACKS = frozenset((np.vstack, np.stack, np.column_stack))


def _stacked(func, items, axis) -> MaskedSelection:
    """``np.vstack([np.ones_like(x), x])`` of 1-d selections by one mask (a design matrix of
    the rows a filter keeps): their values side by side, a selection of rows (or, stacked as
    rows, of columns: the selected dim last)."""
    items = list(items) if isinstance(items, (list, tuple)) else [items]
    first = next(x for x in items if isinstance(x, MaskedSelection))
    if func is np.vstack and all(np.ndim(x) >= 2 if not isinstance(x, MaskedSelection) else
                                 x.ndim >= 2 and x.position == 0 for x in items):
        # np.vstack([V, mid]) of 2-d pieces: their concatenation along the rows, at the count
        return LENGTH_OPS["functions"][np.concatenate](items, axis=0)
    if not all(isinstance(x, MaskedSelection) and type(x) is type(first) is MaskedSelection
               and x.ndim == 1 and x.mask.ndim == 1 and same_mask(x.mask, first.mask) for x in items):
        raise first._refusal(f"numpy.{func.__name__} of it with arrays that are not 1-d selections "
                             "by the same mask (as many as it selects, whatever the data)")
    dtype = np.result_type(*(x.dtype for x in items))
    values = np.stack([prims.convert(x.values, dtype) for x in items], axis=-1)
    rows = func is np.vstack or (func is np.stack and axis in (0, -2))
    if func is np.stack and axis not in (0, 1, -1, -2):
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension 2")
    out = MovedSelection(values, first.mask) if rows else MaskedSelection(values, first.mask)
    out.described = first.described
    return out


# Joins that put rows side by side: np.hstack / np.concatenate(axis >= 1) of 2-d pieces,
# np.column_stack of any.
_SIDE_BY_SIDE = frozenset((np.hstack, np.concatenate, np.column_stack))


def _side_by_side(func, items, axis) -> MaskedSelection | None:
    """``np.hstack([a[m], b[m]])`` (``np.concatenate(..., axis=1)``, ``np.column_stack`` with a
    2-d piece) of selections of rows by one mask: the rows of their values joined along the
    axis, a selection by that mask. None where the join is along the rows (``np.hstack`` of
    1-d pieces, ``np.concatenate`` at axis 0: the count's join, ``_stacked``); refused where a
    piece is no selection by the same mask (its rows would not pair with the kept ones)."""
    items = list(items) if isinstance(items, (list, tuple)) else None
    if not items:
        return None
    def ndim(x):
        return x.ndim if hasattr(x, "ndim") else np.ndim(x)

    if func is np.column_stack:  # (1-d pieces are columns; all 1-d: _stacked's)
        if all(ndim(x) == 1 for x in items):
            return None
        items = [MaskedSelection(prims.reshape(x.values, (*x.values.shape, 1)), x.mask)
                 if type(x) is MaskedSelection and x.ndim == 1 else x for x in items]
        axis = 1
    ndims = {ndim(x) for x in items}
    if len(ndims) != 1:
        return None
    ndim = ndims.pop()
    if func is np.hstack:  # (NumPy's: along the columns, or the rows of 1-d pieces)
        if ndim == 1:
            return LENGTH_OPS["functions"][np.concatenate](items, axis=0)
        axis = 1
    if ndim < 2 or not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim \
            or axis % ndim == 0:
        return None
    first = next(x for x in items if isinstance(x, MaskedSelection))
    if not all(type(x) is MaskedSelection and x.position == 0 and x.mask.ndim == 1
               and same_mask(x.mask, first.mask) for x in items):
        raise first._refusal(f"numpy.{func.__name__} of it with arrays that are not selections of rows "
                             "by the same mask, of one number of dims (as many rows as it selects, "
                             "whatever the data)")
    dtype = np.result_type(*(x.dtype for x in items))
    values = prims.concatenate([prims.convert(x.values, dtype) for x in items], axis % ndim)
    joined = MaskedSelection(values, first.mask)
    joined.described = first.described
    return joined


# Arrays of a selection's shape, each element a fill: a selection of the same mask.
_FILLED_LIKE = frozenset((np.ones_like, np.zeros_like, np.full_like, np.empty_like))
# What a block (RangedSelection._block) takes besides elementwise functions and reductions:
# products, whose operands keep their factors (the masks of each dim).
_BLOCK_FUNCTIONS = frozenset((np.outer, np.dot, np.inner, np.vdot))


def _array_like(x) -> bool:
    return isinstance(x, (MaskedSelection, Tracer, np.ndarray, list, tuple))


_STATISTICS = {
    **{f: (lambda self, *a, _n=f.__name__, **k: self._quantile(_n, *a, **k))
       for f in (np.quantile, np.percentile, np.nanquantile, np.nanpercentile)},
    **{f: (lambda self, *a, _n=f.__name__, **k: self._median(_n, *a, **k))
       for f in (np.median, np.nanmedian)},
    np.histogram: MaskedSelection._histogram,
    np.bincount: lambda self, *a, **k: self._bincount(*a, **k),  # (Positions: its own)
}


def counted_selection(shape) -> MaskedSelection | None:
    """The selection whose count ``shape`` is (``idx.size``, ``len(x[m])``, ``(n,)`` of one):
    ``np.full(idx.size, t)`` makes as many as it keeps (``filled_by_count``). None for any
    other shape, a value computed from a count included (``len(c) + 1`` stays refused)."""
    n = shape[0] if isinstance(shape, (tuple, list)) and len(shape) == 1 else shape
    if not isinstance(n, Tracer):
        return None
    entry = n.owner_trace.counted.get(id(n.value))
    if entry is None or entry[0] is not n.value or len(entry) < 3:
        return None
    sel = entry[2]
    plain = type(sel) is MaskedSelection or type(sel).__name__ == "Positions" \
        or isinstance(sel, LENGTH_OPS["prefix"])
    return sel if plain and sel.values.shape[:sel.mask.ndim] == sel.mask.shape else None


def filled_by_count(sel: MaskedSelection, value: Tracer) -> MaskedSelection:
    """``np.full(len(sel), value)`` (``zeros``, ``ones``, ``empty``): a 1-d selection by
    ``sel``'s mask whose every element is the 0-d ``value`` (its dtype NumPy's for the call);
    it pairs with ``sel`` row for row (``np.concatenate`` of both, ``idx * 0 + t``)."""
    values = fresh(prims.broadcast_to(value, sel.mask.shape))
    prefix = LENGTH_OPS["prefix"]
    if isinstance(sel, prefix):
        return prefix(values, sel.length, sel.mask)
    out = MaskedSelection(values, sel.mask)
    out.described = sel.described
    return out


def select(x: Tracer, mask: Tracer) -> MaskedSelection:
    """``x[mask]`` for a traced boolean ``mask`` of at least one dim; NumPy's IndexError when its
    shape is not that of ``x``'s leading dims. As in NumPy, a dim of extent 0 matches any
    (an empty mask selects nothing): the mask is then all False over ``x``'s leading dims."""
    for j, size in enumerate(mask.shape):
        if j >= x.ndim or (x.shape[j] != size and size != 0):
            axis_size = x.shape[j] if j < x.ndim else 0
            raise IndexError(f"boolean index did not match indexed array along axis {j}; size of "
                             f"axis is {axis_size} but size of corresponding boolean axis is {size}")
    if mask.shape != x.shape[:mask.ndim]:
        mask = prims.constant(mask.owner_trace, np.zeros(x.shape[:mask.ndim], np.bool_))
    return MaskedSelection(x, mask)


def same_mask(a: Tracer, b: Tracer) -> bool:
    """Are ``a`` and ``b`` one mask value: the same traced value, or the same pure ops on the
    same values (``d > 0`` computed twice), so that they keep the same elements whatever the
    data? A fact of the IR, not of the names the user wrote."""
    return a is b or (a.shape == b.shape and index_forms.same_value(a.value, b.value))


def aligned_by_mask(x: MaskedSelection, onto: MaskedSelection) -> bool:
    """Do the selections ``x`` and ``onto`` pair their elements one for one (the k-th kept row
    of each together) with no compaction: one mask (``same_mask``), the selected dim at one
    place, and the dims after it broadcasting as NumPy's would (``A[nz] / d[nz, None]``: rows
    of (m,) against (1,)). Other ranks are refused: NumPy's broadcast would then compare the
    count with a static dim, a shape the data chooses."""
    if not same_mask(x.mask, onto.mask) or x.position != onto.position \
            or x.values.ndim != onto.values.ndim:
        return False
    k = onto.mask.ndim
    try:
        np.broadcast_shapes(x.values.shape[k:], onto.values.shape[k:])
    except ValueError:
        return False
    return True


def pairs_by_count(x: MaskedSelection, onto: MaskedSelection) -> bool:
    """Can ``x``'s kept rows be put at ``onto``'s, the k-th at the k-th (``realigned``):
    both with their selected dim first, of one rank, the rows broadcasting."""
    plain = (MaskedSelection, RangedSelection)  # (not a[:, m], nor np.array(out)'s empty case)
    if not all(type(v) in plain or v.length is not None for v in (x, onto)) or x.ndim != onto.ndim:
        return False
    try:
        np.broadcast_shapes(x.values.shape[x.mask.ndim:], onto.values.shape[onto.mask.ndim:])
    except ValueError:
        return False
    return True


class _MismatchedCounts:
    """NumPy's error for selections of other counts met elementwise (``inputs`` in order, the
    result kept at ``onto``'s positions): a count of 1 broadcasts; ``onto``'s 1 against another
    count would give a result longer than its frame, refused when it runs."""

    def __init__(self, inputs, onto: MaskedSelection):
        self.inputs, self.onto, self.where = inputs, onto, user_location()

    @staticmethod
    def bad(count, onto_count):
        return (count != onto_count) & (count != 1)

    def __call__(self, count, onto_count) -> Exception:
        count, onto_count = int(count), int(onto_count)
        if onto_count == 1:
            return UnsupportedError(
                f"a selection of 1 element broadcast against one of {count}, at {self.where}: "
                "jitcore keeps such a result at the first selection's positions, which cannot "
                "hold it. Put the longer selection first, or index the one element (x[m][0])")

        def shape(v):
            if not isinstance(v, MaskedSelection):
                dims = np.shape(v)
            else:
                dims = (onto_count if v is self.onto else count, *v.values.shape[v.mask.ndim:])
            return "(" + ",".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
        return ValueError("operands could not be broadcast together with shapes "
                          + "".join(f"{shape(v)} " for v in self.inputs))


class _MismatchedStore:
    """NumPy's error for ``x[m] = y[m2]`` of other counts (a count of 1 broadcasts): its own
    words where the selections are 1-d, else the shapes that do not broadcast."""

    bad = staticmethod(_MismatchedCounts.bad)

    def __init__(self, rest: tuple, target_rest: tuple):
        self.rest, self.target_rest = rest, target_rest

    def __call__(self, count, onto_count) -> ValueError:
        if not self.target_rest:
            return ValueError(f"NumPy boolean array indexing assignment cannot assign {int(count)} "
                              f"input values to the {int(onto_count)} output values where the mask "
                              "is true")
        shape = ("(" + ",".join(map(str, (int(k), *rest))) + ")" for k, rest in
                 ((count, self.rest), (onto_count, self.target_rest)))
        return ValueError("shape mismatch: value array of shape {} could not be broadcast to "
                          "indexing result of shape {}".format(*shape))


def write(x: Tracer, mask: Tracer, value: MaskedSelection) -> Tracer:
    """``x[mask] = f(x[mask])`` (the same mask, or one computed the same way: ``x[x < 0] =
    -x[x < 0]``, ``P[nz] = A[nz] / d[nz, None]``): ``where(mask, f(x), x)``, a masked
    elementwise kernel with no compaction; the value's rows broadcast to ``x``'s as NumPy's
    write broadcasts them."""
    k = mask.ndim
    if not same_mask(value.mask, mask) and value.position == 0 and value.ndim == x.ndim - k + 1 \
            and _broadcasts_to(value.values.shape[value.mask.ndim:], x.shape[k:]):
        error = _MismatchedStore(value.values.shape[value.mask.ndim:], x.shape[k:])
        value = MaskedSelection(realigned(value, MaskedSelection(x, mask), error), mask)
    if not same_mask(value.mask, mask) or value.position != 0 or value.values.ndim != x.ndim \
            or not _broadcasts_to(value.values.shape[k:], x.shape[k:]):
        raise JitTypeError(refused(x, "assigning a selection by another mask"))
    cond_ = prims.reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
    return prims.where(cond_, prims.convert(value.values, x.dtype), x)


def _broadcasts_to(shape, target) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False
