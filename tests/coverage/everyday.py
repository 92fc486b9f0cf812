"""Rows of the coverage table: everyday functions composed from the others (issue 12, item 6):
``kron``, ``sinc``, ``fix``, ``isposinf``/``isneginf``, ``iscomplex``/``isreal``,
``array_equal``/``array_equiv``, ``column_stack``, ``dstack``, ``rollaxis``, ``diagflat``,
``broadcast_arrays``, ``polyval``, ``trapezoid``, and the window functions and ``tri`` of
static numbers (constants under ``jit``, added to a traced array)."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import SUM_TOL, Tol, ulp
from tests.coverage.generators import g_shape, g_unary
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)

SMALL_SHAPES = [(), (0,), (1,), (3,), (2, 3), (2, 1, 2)]


def g_two(shapes, domain="any"):
    """Two arrays of one family; ``domain`` for complex ones (floats draw every special)."""
    def gen(draw, family):
        sa, sb = draw.shape(shapes)
        domain_ = domain if family == "complex" else "any"
        return (draw.array(draw.dtype(family), sa, domain_), draw.array(draw.dtype(family), sb, domain_)), {}
    return gen


# Complex products meeting inf differ between NumPy's loops and jitcore's: finite parts.
_KRON_SHAPES = [((), ()), ((3,), (2,)), ((2, 2), (3,)), ((0,), (2,)), ((2, 1), (1, 3, 2)), ((1,), (17,))]
case("np.kron(a, b)", "shape", lambda a, b: np.kron(a, b), g_two(_KRON_SHAPES, "finite"))
case("np.sinc(x)", "float math", np.sinc, g_unary(), tol=ulp("sinc"))
case("np.fix(x)", "float math", np.fix, g_unary())
# Pairs share a row (and its compiled functions): the suite's time budget.
case("np.isposinf(x), np.isneginf(x)", "float math", lambda x: (np.isposinf(x), np.isneginf(x)), g_unary())
case("np.iscomplex(x), np.isreal(x)", "float math", lambda x: (np.iscomplex(x), np.isreal(x)), g_unary())

_EQUAL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (2, 3)), ((0,), (0,)), ((2,), (3,)), ((), ()),
                 ((1,), (1,)), ((67,), (67,))]


def g_equal(draw, family):
    (a, b), _ = g_two(_EQUAL_SHAPES)(draw, family)
    if draw.integer(0, 1) and a.shape == b.shape:
        b = a.copy()  # equal arrays, NaN included
    elif draw.integer(0, 1) and a.size and b.size:
        b = np.broadcast_to(a[(0,) * a.ndim], b.shape).copy()
    return (a, b), {"equal_nan": draw.choice([False, True])}


case("np.array_equal(a, b, equal_nan), np.array_equiv(a, b)", "comparison",
     lambda a, b, equal_nan: (np.array_equal(a, b, equal_nan), np.array_equiv(a, b)), g_equal,
     ref=lambda a, b, equal_nan: (np.bool_(np.array_equal(a, b, equal_nan)), np.bool_(np.array_equiv(a, b))))


def g_stackable(draw, family):
    shapes = draw.shape([((3,), (3, 2)), ((), (1,)), ((17,), (17, 2)), ((2, 3), (2, 3, 1)), ((0,), (0, 2)),
                         ((67,), (67,))])
    order = (1, 0, 1)[:draw.choice([1, 2, 3])]  # the 2-d one first: it gets the edge layouts
    return tuple(draw.array(draw.dtype(family), shapes[k]) for k in order), {}


case("np.column_stack(xs), np.dstack(xs)", "shape", lambda *xs: (np.column_stack(xs), np.dstack(xs)),
     g_stackable)


def _roll(draw, x):
    n = max(x.ndim, 1)
    return {"axis": draw.integer(-n, n - 1), "start": draw.integer(-n, n)}


case("np.rollaxis(x, axis, start)", "shape", lambda x, axis, start: np.rollaxis(x, axis, start),
     g_shape(_roll))
case("np.diagflat(x, k)", "shape", lambda x, k: np.diagflat(x, k),
     g_shape(lambda draw, x: {"k": draw.choice([0, 1, -2])}, [(), (0,), (3,), (2, 2), (17,)]))
case("np.broadcast_arrays(a, b)", "shape", lambda a, b: np.broadcast_arrays(a, b),
     g_two([((), ()), ((2, 3), (3,)), ((2, 1), (1, 3)), ((0,), (1,)), ((2,), (3,)), ((17,), (1,))]))


def g_polyval(draw, family):
    dtype, domain = draw.dtype(family), "finite" if family == "complex" else "any"
    return (draw.array(dtype, (draw.choice([0, 1, 4]),), domain),
            draw.array(dtype, draw.shape([(), (5,), (2, 3), (17,)]), domain)), {}


case("np.polyval(p, x)", "products", lambda p, x: np.polyval(p, x), g_polyval)


def _trapz(draw, x):
    n = max(x.ndim, 1)
    return {"dx": draw.choice([1.0, 0.5, 2]), "axis": draw.integer(-n, n - 1)}


case("np.trapezoid(y, dx, axis)", "reduction", lambda y, dx, axis: np.trapezoid(y, dx=dx, axis=axis),
     g_shape(_trapz, [(), (1,), (2,), (5,), (2, 3), (3, 0), (17,)]), tol=SUM_TOL)


def _window(draw, x):
    return {"name": draw.choice(["hanning", "hamming", "blackman", "bartlett", "kaiser", "tri"])}


def _with_window(x, name):
    n = x.shape[-1] if x.ndim else 1
    w = np.tri(n) if name == "tri" else np.kaiser(n, 5.0) if name == "kaiser" else getattr(np, name)(n)
    return x * w


case("x * np.hanning(n) (windows, tri)", "shape", _with_window, g_shape(_window, [(1,), (4,), (2, 3), (17,)]))


# -- along an axis: gathers, scatters (along_axis.py) ------------------------------------------
def _lane_indices(draw, shape, axis, count):
    """Distinct indices along ``axis`` (negative ones too), the same for every lane (shape 1
    elsewhere, broadcast as NumPy's fancy index): a scatter with repeats has no defined order."""
    n = shape[axis]
    picks = [draw.integer(0, n - 1) for _ in range(count)]  # none when the axis is empty
    distinct = list(dict.fromkeys(picks))
    values = np.array([p - n if draw.integer(0, 1) else p for p in distinct], np.int64)
    return values.reshape(tuple(len(distinct) if k == axis else 1 for k in range(len(shape))))


def g_along(draw, family):
    x = draw.array(draw.dtype(family), draw.shape([(5,), (2, 3), (3, 1, 4), (17,)]))
    if x.ndim == 0:
        x = x.reshape(1)
    axis = draw.integer(-x.ndim, x.ndim - 1)
    i = _lane_indices(draw, x.shape, axis % x.ndim, draw.integer(1, 4) if x.shape[axis] else 0)
    return (x, i, draw.array(x.dtype, ())), {"axis": axis}


def _put(x, i, v, axis):
    out = x.copy()
    np.put_along_axis(out, i, v, axis)
    return out


case("np.take_along_axis(x, i, axis), np.put_along_axis(x, i, v, axis)", "indexing",
     lambda x, i, v, axis: (np.take_along_axis(x, i, axis), _put(x, i, v, axis)), g_along)


def g_choose(draw, family):
    dtype = draw.dtype(family)
    shape = draw.shape([(4,), (2, 3)])
    mode = draw.choice(["clip", "wrap", "raise"])
    lo, hi = (0, 2) if mode == "raise" else (-3, 5)
    i = np.array([draw.integer(lo, hi) for _ in range(int(np.prod(shape)))], np.int64).reshape(shape)
    return (i, draw.array(dtype, shape), draw.array(dtype, shape[-1:])), {"mode": mode}


case("np.choose(i, choices, mode)", "indexing", lambda i, a, b, mode: np.choose(i, [a, b, a], mode=mode),
     g_choose)


def _fill(x, val, wrap):
    out = x.copy()
    np.fill_diagonal(out, val, wrap)
    return out


case("np.fill_diagonal(x, val, wrap)", "updates", lambda x, v, wrap: _fill(x, v, wrap),
     lambda draw, family: ((draw.array(draw.dtype(family), draw.shape([(3, 3), (5, 2), (2, 2, 2)])),
                            draw.array(draw.dtype(family), draw.shape([(), (2,)]))),
                           {"wrap": draw.choice([False, True])}))


# -- series: scans, differences, bins, splits (series.py) --------------------------------------
def _scan_args(draw, x):
    n = max(x.ndim, 1)  # a 0-d x: NumPy's ValueError
    return {"axis": draw.integer(-n, n - 1) if x.ndim > 1 or draw.integer(0, 1) else None,
            "include_initial": draw.choice([False, True])}


_SCAN_SHAPES = [(), (0,), (1,), (5,), (2, 3), (3, 0), (17,)]


def g_scan(float_domain):
    """Floats and complex numbers from ``float_domain`` (products: where a complex product meets
    inf, NaN or -inf depends on the order of its fma, as for np.cumprod's row)."""
    def gen(draw, family):
        domain = float_domain if family in ("float", "complex") else "any"
        x = draw.array(draw.dtype(family), draw.shape(_SCAN_SHAPES), domain)
        return (x,), _scan_args(draw, x)
    return gen
case("np.cumulative_sum(x, axis, include_initial), np.nancumsum(x, axis)", "reduction",
     lambda x, axis, include_initial: (np.cumulative_sum(x, axis=axis, include_initial=include_initial),
                                       np.nancumsum(x, axis)), g_scan("small"))
case("np.cumulative_prod(x, axis, include_initial), np.nancumprod(x, axis)", "reduction",
     lambda x, axis, include_initial: (np.cumulative_prod(x, axis=axis, include_initial=include_initial),
                                       np.nancumprod(x, axis)), g_scan("prod"),
     tol=Tol(complex=Tol("order", "prod", count="all")))


def _grad_args(draw, x):
    return {"spacing": draw.choice([(), (0.5,), (2,)]), "edge_order": draw.choice([1, 2]),
            "axis": draw.choice([None, -1, 0])}


case("np.gradient(x, *spacing, axis, edge_order)", "shape",
     lambda x, spacing, axis, edge_order: np.gradient(x, *spacing, axis=axis, edge_order=edge_order),
     g_shape(_grad_args, [(1,), (2,), (3,), (6,), (3, 4), (17,)]))
case("np.unwrap(x, period)", "shape", lambda x, period: np.unwrap(x, period=period),
     g_shape(lambda draw, x: {"period": draw.choice([2 * np.pi, 4, 7.5])}, [(0,), (1,), (6,), (2, 5), (17,)]))


def g_digitize(draw, family):
    dtype = draw.dtype(family)
    bins = np.sort(draw.array(dtype, (draw.choice([1, 3, 5]),), "finite"), kind="stable")
    if draw.integer(0, 1):
        bins = bins[::-1].copy()
    x = draw.array(dtype, draw.shape([(), (4,), (2, 3), (17,)]))
    return (x, bins), {"right": draw.choice([False, True])}


case("np.digitize(x, bins, right)", "sorting", lambda x, bins, right: np.digitize(x, bins, right), g_digitize)


def g_isin(draw, family):
    dtype = draw.dtype(family)
    x = draw.array(dtype, draw.shape([(), (4,), (2, 3), (17,)]))
    tests = np.array(draw.array(dtype, draw.shape([(0,), (1,), (3,), (2, 2)])))  # writable
    if x.size and tests.size and draw.integer(0, 1):
        tests.flat[0] = x.flat[0]  # at least one hit
    return (x, tests), {"invert": draw.choice([False, True])}


case("np.isin(x, tests, invert)", "comparison", lambda x, t, invert: np.isin(x, t, invert=invert), g_isin)


def _split_args(draw, x):
    return {"sections": draw.choice([1, 2, 3, (1, 3), (2,)]), "axis": draw.integer(-x.ndim, x.ndim - 1)}


case("np.array_split(x, sections, axis)", "shape",
     lambda x, sections, axis: np.array_split(x, sections, axis),
     g_shape(_split_args, [(1,), (5,), (2, 3), (4, 0), (17,)]))
case("np.hsplit/vsplit/dsplit(x, n)", "shape",
     lambda x, n: (np.hsplit(x, n), np.vsplit(x, n), np.dsplit(x, n)),
     g_shape(lambda draw, x: {"n": draw.choice([1, 2, (1,)])}, [(2, 2, 2), (4, 2, 6)]))


# -- polynomials (polynomials.py) ---------------------------------------------------------------
def g_polys(draw, family):
    domain = "finite" if family == "complex" else "any"  # complex products meeting inf: see kron
    dtype = draw.dtype(family)
    return (draw.array(dtype, (draw.choice([1, 3, 17]),), domain),
            draw.array(dtype, (draw.choice([1, 2, 4]),), domain),
            draw.array(dtype, (2, 3), domain)), {"m": draw.choice([0, 1, 2])}


case("np.polyadd, polysub, polyder, polyint(p, q, m)", "products",
     lambda p, q, x, m: (np.polyadd(p, q), np.polysub(q, p), np.polyder(p, m), np.polyint(q, m),
                         np.polyval(np.polysub(q, p), x)), g_polys)


def _delete_args(draw, x):
    n = max(x.shape[0] if x.ndim else 1, 1)
    obj = draw.choice([0, -1, "::2", (0, n - 1), (n,)])  # last: NumPy's IndexError
    return {"obj": obj, "axis": draw.choice([None, 0, -1])}


case("np.delete(x, obj, axis)", "shape",
     lambda x, obj, axis: np.delete(x, slice(None, None, 2) if obj == "::2" else obj, axis),
     g_shape(_delete_args, [(), (1,), (5,), (2, 3), (3, 0), (17,)]))

NOTES = {
    "np.sinc(x)": "NumPy's formula: sin(pi x) / (pi x), 0 replaced by eps",
    "np.array_equal(a, b, equal_nan), np.array_equiv(a, b)": "a traced 0-d bool (NumPy: a Python "
                                                             "bool); shapes that differ give a "
                                                             "constant False",
    "np.polyval(p, x)": "1-d p; Horner's rule in NumPy's order",
    "x * np.hanning(n) (windows, tri)": "hanning, hamming, blackman, bartlett, kaiser, tri of "
                                        "static numbers: constants under jit",
    "np.take_along_axis(x, i, axis), np.put_along_axis(x, i, v, axis)": "put_along_axis: in place on a "
                                                                        "traced array; axis=None: "
                                                                        "UnsupportedError",
    "np.fill_diagonal(x, val, wrap)": "in place on a traced array (np.zeros made inside the "
                                      "function is NumPy's unless it meets traced data first)",
    "np.gradient(x, *spacing, axis, edge_order)": "scalar spacings (static or traced) or 1-d "
                                                  "coordinate arrays",
    "np.isin(x, tests, invert)": "O(size x tests): one comparison with each test element",
}
