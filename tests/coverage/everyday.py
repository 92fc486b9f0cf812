"""Rows of the coverage table: everyday functions composed from the others (issue 12, item 6):
``kron``, ``sinc``, ``fix``, ``isposinf``/``isneginf``, ``iscomplex``/``isreal``,
``array_equal``/``array_equiv``, ``column_stack``, ``dstack``, ``rollaxis``, ``diagflat``,
``broadcast_arrays``, ``polyval``, ``trapezoid``, and the window functions and ``tri`` of
static numbers (constants under ``jit``, added to a traced array)."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import SUM_TOL, ulp
from tests.coverage.generators import g_shape, g_unary
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)

SMALL_SHAPES = [(), (0,), (1,), (3,), (2, 3), (2, 1, 2)]


def g_two(shapes, domain="any"):
    def gen(draw, family):
        sa, sb = draw.shape(shapes)
        return (draw.array(draw.dtype(family), sa, domain), draw.array(draw.dtype(family), sb, domain)), {}
    return gen


# Complex products meeting inf differ between NumPy's loops and jitcore's: finite parts.
_KRON_SHAPES = [((), ()), ((3,), (2,)), ((2, 2), (3,)), ((0,), (2,)), ((2, 1), (1, 3, 2)), ((1,), (17,))]
case("np.kron(a, b)", "shape", lambda a, b: np.kron(a, b), g_two(_KRON_SHAPES, "finite"))
case("np.sinc(x)", "float math", np.sinc, g_unary(), tol=ulp("sinc"))
case("np.fix(x)", "float math", np.fix, g_unary())
case("np.isposinf(x)", "float math", np.isposinf, g_unary())
case("np.isneginf(x)", "float math", np.isneginf, g_unary())
case("np.iscomplex(x)", "float math", np.iscomplex, g_unary())
case("np.isreal(x)", "float math", np.isreal, g_unary())

_EQUAL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (2, 3)), ((0,), (0,)), ((2,), (3,)), ((), ())]


def g_equal(draw, family):
    (a, b), _ = g_two(_EQUAL_SHAPES)(draw, family)
    if draw.integer(0, 1) and a.shape == b.shape:
        b = a.copy()  # equal arrays, NaN included
    elif draw.integer(0, 1) and a.size and b.size:
        b = np.broadcast_to(a[(0,) * a.ndim], b.shape).copy()
    return (a, b), {"equal_nan": draw.choice([False, True])}


case("np.array_equal(a, b, equal_nan)", "comparison", lambda a, b, equal_nan: np.array_equal(a, b, equal_nan),
     g_equal, ref=lambda a, b, equal_nan: np.bool_(np.array_equal(a, b, equal_nan)))
case("np.array_equiv(a, b)", "comparison", lambda a, b, equal_nan: np.array_equiv(a, b), g_equal,
     ref=lambda a, b, equal_nan: np.bool_(np.array_equiv(a, b)))


def g_stackable(draw, family):
    n = draw.choice([1, 2, 3])
    pool = draw.choice([[(3,), (3, 1), (3, 2)], [(), (1,)], [(2, 3), (2, 3, 1)], [(0,), (0, 2)]])
    return tuple(draw.array(draw.dtype(family), draw.choice(pool)) for _ in range(n)), {}


case("np.column_stack(xs)", "shape", lambda *xs: np.column_stack(xs), g_stackable)
case("np.dstack(xs)", "shape", lambda *xs: np.dstack(xs), g_stackable)


def _roll(draw, x):
    n = max(x.ndim, 1)
    return {"axis": draw.integer(-n, n - 1), "start": draw.integer(-n, n)}


case("np.rollaxis(x, axis, start)", "shape", lambda x, axis, start: np.rollaxis(x, axis, start),
     g_shape(_roll))
case("np.diagflat(x, k)", "shape", lambda x, k: np.diagflat(x, k),
     g_shape(lambda draw, x: {"k": draw.choice([0, 1, -2])}, [(), (0,), (3,), (2, 2)]))
case("np.broadcast_arrays(a, b)", "shape", lambda a, b: np.broadcast_arrays(a, b),
     g_two([((), ()), ((2, 3), (3,)), ((2, 1), (1, 3)), ((0,), (1,)), ((2,), (3,))]))


def g_polyval(draw, family):
    dtype = draw.dtype(family)
    return (draw.array(dtype, (draw.choice([0, 1, 4]),), "finite"),
            draw.array(dtype, draw.shape([(), (5,), (2, 3)]), "finite")), {}


case("np.polyval(p, x)", "products", lambda p, x: np.polyval(p, x), g_polyval)


def _trapz(draw, x):
    n = max(x.ndim, 1)
    return {"dx": draw.choice([1.0, 0.5, 2]), "axis": draw.integer(-n, n - 1)}


case("np.trapezoid(y, dx, axis)", "reduction", lambda y, dx, axis: np.trapezoid(y, dx=dx, axis=axis),
     g_shape(_trapz, [(1,), (2,), (5,), (2, 3), (3, 0), (17,)]), tol=SUM_TOL)


def _window(draw, x):
    return {"name": draw.choice(["hanning", "hamming", "blackman", "bartlett", "kaiser", "tri"])}


def _with_window(x, name):
    n = x.shape[-1] if x.ndim else 1
    w = np.tri(n) if name == "tri" else np.kaiser(n, 5.0) if name == "kaiser" else getattr(np, name)(n)
    return x * w


case("x * np.hanning(n) (windows, tri)", "creation", _with_window, g_shape(_window, [(1,), (4,), (2, 3)]))

NOTES = {
    "np.sinc(x)": "NumPy's formula: sin(pi x) / (pi x), 0 replaced by eps",
    "np.array_equal(a, b, equal_nan)": "a traced 0-d bool (NumPy: a Python bool); shapes that "
                                       "differ give a constant False",
    "np.array_equiv(a, b)": "a traced 0-d bool (NumPy: a Python bool)",
    "np.polyval(p, x)": "1-d p; Horner's rule in NumPy's order",
    "x * np.hanning(n) (windows, tri)": "hanning, hamming, blackman, bartlett, kaiser, tri of "
                                        "static numbers: constants under jit",
}
