"""Rows of the coverage table: reductions, scans and ``ufunc.reduce`` / ``ufunc.accumulate``."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import EXACT, MEAN_TOL, PROD_TOL, STD_TOL, SUM_TOL, VAR_TOL, Tol
from tests.coverage.draw import INTS
from tests.coverage.generators import REDUCTION_SHAPES, axis_param
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)


def g_reduce(domain="any", ddof=False, tuple_axis=True, keepdims=True, none_axis=True):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(REDUCTION_SHAPES), domain)
        params = {"axis": axis_param(draw, x.ndim, tuple_axis, none_axis)}
        if keepdims:
            params["keepdims"] = draw.choice([False, True])
        if ddof:
            params["ddof"] = draw.choice([0, 1, 2])
        return (x,), params
    return gen


def _float_domain(gen_small, gen_any):
    """Float and complex reductions draw |x| <= 100 (where a sum overflows depends on its order);
    integer ones draw anything (they wrap identically in any order; a mean, var or std is
    computed in float64 by both, within its order bound)."""
    def gen(draw, family):
        return (gen_small if family in ("float", "complex") else gen_any)(draw, family)
    return gen


case("np.sum(x, axis, keepdims)", "reduction", lambda x, **k: np.sum(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=SUM_TOL)
case("np.prod(x, axis, keepdims)", "reduction", lambda x, **k: np.prod(x, **k),
     _float_domain(g_reduce("prod"), g_reduce()), tol=PROD_TOL)
case("np.mean(x, axis, keepdims)", "reduction", lambda x, **k: np.mean(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)


case("np.var(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.var(x, **k),
     _float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True)), tol=VAR_TOL)
case("np.std(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.std(x, **k),
     _float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True)), tol=STD_TOL)
case("np.min(x, axis, keepdims)", "reduction", lambda x, **k: np.min(x, **k), g_reduce())
case("np.max(x, axis, keepdims)", "reduction", lambda x, **k: np.max(x, **k), g_reduce())
case("np.any(x, axis, keepdims)", "reduction", lambda x, **k: np.any(x, **k), g_reduce())
case("np.all(x, axis, keepdims)", "reduction", lambda x, **k: np.all(x, **k), g_reduce())
case("np.argmin(x, axis, keepdims)", "reduction", lambda x, **k: np.argmin(x, **k),
     g_reduce(tuple_axis=False))
case("np.argmax(x, axis, keepdims)", "reduction", lambda x, **k: np.argmax(x, **k),
     g_reduce(tuple_axis=False))
# Scans add (multiply) one element after another along the axis, in NumPy as in jitcore (float16
# rounding every step in both): bit for bit. But complex products: NumPy's scan multiplies in its
# plain loop, its elementwise multiply (and jitcore) through fma, 1 ULP apart.
case("np.cumsum(x, axis)", "reduction", lambda x, **k: np.cumsum(x, **k),
     _float_domain(g_reduce("small", tuple_axis=False, keepdims=False),
                   g_reduce(tuple_axis=False, keepdims=False)))
case("np.cumprod(x, axis)", "reduction", lambda x, **k: np.cumprod(x, **k),
     _float_domain(g_reduce("prod", tuple_axis=False, keepdims=False),
                   g_reduce(tuple_axis=False, keepdims=False)),
     tol=Tol(complex=Tol("order", "prod", count="all")))
case("x.sum(), x.any(axis), x.mean() (methods)", "reduction",
     lambda x, axis, keepdims: (x.sum(axis=axis, keepdims=keepdims), x.any(axis=axis),
                                x.mean(axis=axis)),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)  # the mean's bound covers the sum's


for _name, _tol, _dom in (("add", SUM_TOL, "small"), ("multiply", PROD_TOL, "prod"),
                          ("maximum", EXACT, "any"), ("minimum", EXACT, "any"),
                          ("logical_and", EXACT, "any"), ("logical_or", EXACT, "any")):
    case(f"np.{_name}.reduce(x, axis, keepdims)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).reduce(x, **k),
         _float_domain(g_reduce(_dom), g_reduce()), tol=_tol)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    case(f"np.{_name}.reduce(x, axis, keepdims)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).reduce(x, **k), g_reduce())
case("np.add.accumulate(x, axis)", "ufunc.reduce", lambda x, **k: np.add.accumulate(x, **k),
     _float_domain(g_reduce("small", tuple_axis=False, keepdims=False, none_axis=False),
                   g_reduce(tuple_axis=False, keepdims=False, none_axis=False)))  # a scan: exact
for _name in ("maximum", "minimum"):  # running extremes: scans of their own, NaN kept once met
    case(f"np.{_name}.accumulate(x, axis)", "ufunc.reduce",
         lambda x, _f=_name, **k: getattr(np, _f).accumulate(x, **k),
         _float_domain(g_reduce("any", tuple_axis=False, keepdims=False, none_axis=False),
                       g_reduce(tuple_axis=False, keepdims=False, none_axis=False)))


# NaN-ignoring reductions (issue 12): NaN replaced by the identity, as NumPy's own nan* functions.
case("np.nansum(x, axis, keepdims)", "reduction", lambda x, **k: np.nansum(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=SUM_TOL)
case("np.nanprod(x, axis, keepdims)", "reduction", lambda x, **k: np.nanprod(x, **k),
     _float_domain(g_reduce("prod"), g_reduce()), tol=PROD_TOL)
case("np.nanmean(x, axis, keepdims)", "reduction", lambda x, **k: np.nanmean(x, **k),
     _float_domain(g_reduce("small"), g_reduce()), tol=MEAN_TOL)


def _no_0d_axis(gen):
    """NumPy's nanvar takes an int axis of a 0-d float array, but the error bound's np.mean of
    it does not: such draws reduce with axis=None."""
    def wrapped(draw, family):
        (x,), params = gen(draw, family)
        if x.ndim == 0:
            params["axis"] = None
        return (x,), params
    return wrapped


case("np.nanvar(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.nanvar(x, **k),
     _no_0d_axis(_float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True))), tol=VAR_TOL)
case("np.nanstd(x, axis, keepdims, ddof)", "reduction", lambda x, **k: np.nanstd(x, **k),
     _no_0d_axis(_float_domain(g_reduce("small", ddof=True), g_reduce(ddof=True))), tol=STD_TOL)
case("np.nanmax(x, axis, keepdims)", "reduction", lambda x, **k: np.nanmax(x, **k), g_reduce(),
     unsupported=("complex",))
case("np.nanmin(x, axis, keepdims)", "reduction", lambda x, **k: np.nanmin(x, **k), g_reduce(),
     unsupported=("complex",))
case("np.nanargmax(x, axis, keepdims)", "reduction", lambda x, **k: np.nanargmax(x, **k),
     g_reduce(tuple_axis=False))
case("np.nanargmin(x, axis, keepdims)", "reduction", lambda x, **k: np.nanargmin(x, **k),
     g_reduce(tuple_axis=False))
case("np.count_nonzero(x, axis, keepdims)", "reduction", lambda x, **k: np.count_nonzero(x, **k),
     g_reduce())


def g_masked(initial=True, values=(None, 0, 1, 5, -3)):
    """A reduction's operand, a ``where=`` mask of its shape (or of its last dim; a static
    parameter, as tuple and shape: the error bounds apply the function to |x|) and sometimes
    ``initial=``. tests/jitcore/test_everyday_api.py passes traced masks."""
    def gen(draw, family):
        domain = "small" if family in ("float", "complex") else "any"
        (x,), params = g_reduce(domain)(draw, family)
        mask_shape = draw.choice([x.shape, x.shape[-1:]])
        mask = draw.array(np.dtype(bool), mask_shape)
        params["mask"] = (tuple(mask.ravel().tolist()), mask.shape)
        if initial:
            value = draw.choice(["default", *values])
            if value != "default":  # initial=None: no identity (NumPy's ValueError with where=)
                params["initial"] = value
        return (x,), params
    return gen


# A product's error bound is taken on |x| (and |initial|): initial >= 0 for them.
_POSITIVE_INITIAL = (None, 0, 1, 5)


def _mask(mask):
    values, shape = mask
    return np.asarray(values, bool).reshape(shape)


for _name, _tol in (("sum", SUM_TOL), ("prod", PROD_TOL), ("max", EXACT), ("min", EXACT)):
    case(f"np.{_name}(x, axis, keepdims, where, initial)", "reduction",
         lambda x, mask, _f=_name, **k: getattr(np, _f)(x, where=_mask(mask), **k),
         g_masked(values=_POSITIVE_INITIAL) if _name == "prod" else g_masked(), tol=_tol)
for _name, _tol in (("any", EXACT), ("all", EXACT), ("mean", MEAN_TOL), ("nansum", SUM_TOL),
                    ("nanmean", MEAN_TOL)):
    case(f"np.{_name}(x, axis, keepdims, where)", "reduction",
         lambda x, mask, _f=_name, **k: getattr(np, _f)(x, where=_mask(mask), **k),
         g_masked(initial=False), tol=_tol)


def g_initial(values=(0, 3, -2, 2.5)):
    def gen(draw, family):
        (x,), params = _float_domain(g_reduce("small"), g_reduce())(draw, family)
        return (x,), {**params, "initial": draw.choice(values)}
    return gen



for _name, _tol in (("sum", SUM_TOL), ("prod", PROD_TOL), ("max", EXACT), ("min", EXACT),
                    ("nansum", SUM_TOL), ("nanmax", EXACT)):
    case(f"np.{_name}(x, axis, keepdims, initial)", "reduction",
         lambda x, _f=_name, **k: getattr(np, _f)(x, **k),
         g_initial((0, 3, 2.5)) if _name == "prod" else g_initial(), tol=_tol,
         unsupported=("complex",) if _name == "nanmax" else ())


def g_average(draw, family):
    domain = "small" if family in ("float", "complex") else "any"
    x = draw.array(draw.dtype(family), draw.shape([(), (5,), (2, 3), (2, 3, 4), (17,)]), domain)
    axis = axis_param(draw, x.ndim)
    params = {"axis": axis, "keepdims": draw.choice([False, True]),
              "returned": draw.choice([False, True])}
    weights = draw.choice(["none", "full", "axis"])
    if x.size == 0:  # NumPy's ZeroDivisionError for weights, or an empty result's count
        params["axis"] = None
    if weights == "none" or x.size == 0:
        return (x,), params
    if weights == "axis" and isinstance(axis, int) and -x.ndim <= axis < x.ndim:
        shape = (x.shape[axis],)
    else:
        shape = x.shape
    w = np.asarray([draw.real(0.25, 2.0) for _ in range(int(np.prod(shape)))]).reshape(shape)
    return (x, w), params


case("np.average(x, axis, weights, returned, keepdims)", "reduction",
     lambda x, w=None, **k: np.average(x, weights=w, **k), g_average, tol=MEAN_TOL)


def g_bincount(draw, family):
    # Integers of the "nonneg" domain (0..70) below minlength, in every layout; 0-d (which
    # NumPy refuses: bincount takes 1-d arrays) too. Negative values and ones past minlength
    # (int min, int max) are not drawn: NumPy raises or grows the result where jitcore's static
    # length raises IndexError after the call (documented).
    dtype = draw.dtype(family)
    n = draw.choice([71, 80, 128])
    x = draw.array(dtype, draw.shape([(), (0,), (1,), (7,), (17,)]), "nonneg" if family in INTS else "any")
    size = x.size
    if draw.choice([False, True]):
        w = np.asarray([draw.real(-2.0, 2.0) for _ in range(size)])
        return (x, w), {"minlength": n}
    return (x,), {"minlength": n}


# Exact: the weights are added one after another in the order of x, by both.
case("np.bincount(x, weights, minlength)", "reduction",
     lambda x, w=None, **k: np.bincount(x, w, **k), g_bincount)


def g_histogram(draw, family):
    dtype = draw.dtype(family)
    # Integers over their whole range (min and max too): NumPy bins them in float64, as jitcore.
    domain = "any" if family in ("signed", "unsigned") else "small"
    x = draw.array(dtype, draw.shape([(), (0,), (1,), (7,), (17,), (2, 5)]), domain)
    bins = draw.choice([("count", 1, (0, 0)), ("count", 4, (-3, 5)), ("count", 10, (-100.0, 100.0)),
                        ("count", 3, (0.5, 1.5)), ("edges", (-50.0, -1.0, 0.0, 2.5, 60.0)),
                        ("edges", (0, 1, 1, 2))])
    params = {"density": draw.choice([None, True]) if family != "bool" else None}
    if bins[0] == "count":
        params.update(bins=bins[1], range=bins[2])
    else:
        params.update(bins=np.asarray(bins[1]).tobytes(), edges_dtype=np.asarray(bins[1]).dtype.str)
    if draw.choice([False, True]):
        w = np.asarray([draw.real(0.0, 2.0) for _ in range(x.size)]).reshape(x.shape)
        return (x, w), params
    return (x,), params


def _histogram(x, w=None, bins=10, range=None, density=None, edges_dtype=None):
    if edges_dtype is not None:  # edges travel as bytes: static parameters must be hashable
        bins = np.frombuffer(bins, edges_dtype)
    return np.histogram(x, bins, range, density, w)


case("np.histogram(x, bins, range, density, weights)", "reduction", _histogram, g_histogram,
     tol=MEAN_TOL, unsupported=("complex",))


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.sum(x, axis, keepdims)": "float32/float64 summation order: NumPy's pairwise one, bit for bit, "
                                 "on any thread count (see below: some layouts still differ); "
                                 "float16 in float32 "
                                 "(NumPy: in float16 along other than the innermost axis); "
                                 "no out=",
    "np.prod(x, axis, keepdims)": "float product order is not NumPy's; float16 in float32; "
                                  "no out=",
    "np.mean(x, axis, keepdims)": "float16 accumulates in float32, as in NumPy",
    "np.var(x, axis, keepdims, ddof)": "float16 computed in float32 (NumPy: in float16, which can overflow)",
    "np.std(x, axis, keepdims, ddof)": "float16 computed in float32 (NumPy: in float16, which can overflow)",
    "np.add.accumulate(x, axis)": ("accumulate: add, multiply, maximum, minimum, fmax, fmin, logical and "
                                   "bitwise and/or/xor (others: UnsupportedError)"),
    "np.nanmax(x, axis, keepdims)": "complex not yet",
    "np.nanmin(x, axis, keepdims)": "complex not yet",
    "np.nanargmax(x, axis, keepdims)": "a slice of NaNs only raises NumPy's ValueError "
                                       "(JitValueError) from the call",
    "np.nanargmin(x, axis, keepdims)": "a slice of NaNs only raises NumPy's ValueError "
                                       "(JitValueError) from the call",
    "np.average(x, axis, weights, returned, keepdims)": "weights summing to 0 raise NumPy's "
                                                        "ZeroDivisionError (JitZeroDivisionError) "
                                                        "from the call",
    "np.bincount(x, weights, minlength)": "minlength= required for a traced x (the result's "
                                          "length); a value at or past it, or negative, raises "
                                          "IndexError after the call; a constant x: NumPy's length",
    "np.histogram(x, bins, range, density, weights)": "static bins: a count (edges from range= or "
                                                      "the data), or edges; cost O(size x bins)",
}


# Reductions of a read through a traced mask (issue 12): ``x[m]`` has a data-dependent shape,
# but a reduction of it compiles (jitcore/masked.py). The mask is a traced argument of ``x``'s
# shape (or of its leading dim), read as ``m != 0`` so that the error bounds, which apply the row
# to |x| and |m|, select the same elements.
def g_selection(domain="small"):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape([(), (1,), (5,), (17,), (2, 3), (3, 0), (2, 3, 4)]),
                       domain if family in ("float", "complex") else "any")
        m = draw.array(np.dtype(bool), draw.choice([x.shape, x.shape[:1]]))
        return (x, m), {}
    return gen


case("x[m].sum() (traced mask m)", "reduction", lambda x, m: x[m != 0].sum(), g_selection(), tol=SUM_TOL)
case("np.mean(x[m]) (traced mask m)", "reduction", lambda x, m: np.mean(x[m != 0]), g_selection(),
     tol=MEAN_TOL)
case("x[m].max(), x[m].min() (traced mask m)", "reduction", lambda x, m: (x[m != 0].max(), x[m != 0].min()),
     g_selection("any"), unsupported=("complex",))
case("x[m].any(), x[m].all(axis=0) (traced mask m)", "reduction",
     lambda x, m: (x[m != 0].any(), x[m != 0].all(axis=0)), g_selection("any"))
