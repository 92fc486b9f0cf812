"""The argument generators several family tables share, and the pools of shapes they draw from.

A generator is ``gen(draw, family) -> (arrays, params)`` (see tests/coverage/harness.py
``Case``); ``params`` must be hashable."""

from __future__ import annotations

from tests.coverage.draw import Draw

# Shapes come from small pools so that repeated signatures hit each case's compile cache.
UNARY_SHAPES = [(), (0,), (1,), (7,), (17,), (2, 3), (3, 1, 4), (2, 0, 3)]
BINARY_SHAPES = [((), ()), ((5,), ()), ((), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((0,), (1,)),
                 ((17,), (17,)), ((3, 1, 2), (4, 1)), ((2, 3), (2, 3)), ((2,), (3,))]  # last: error
TERNARY_SHAPES = [((), (), ()), ((4,), (), (4,)), ((2, 3), (3,), (2, 1)), ((0,), (1,), ()),
                  ((17,), (17,), (17,)), ((2, 3), (3,), (2,))]  # last: error
REDUCTION_SHAPES = [(), (0,), (5,), (17,), (2, 3), (3, 0), (2, 3, 4)]
SHAPE_OP_SHAPES = [(), (0,), (1,), (6,), (2, 3), (3, 1), (1, 4, 1), (2, 3, 4), (2, 0, 3), (17,)]


def axis_param(draw: Draw, ndim: int, allow_tuple=True, allow_none=True):
    options = ["int"] * 3 + (["none"] if allow_none else []) + (["tuple"] * 2 if allow_tuple else [])
    options += ["bad"] if draw.integer(0, 7) == 0 else []
    what = draw.choice(options)
    if what == "none":
        return None
    if what == "bad":  # out of range: NumPy raises AxisError, jitcore must raise too
        return ndim + draw.integer(0, 1)
    if ndim == 0:
        return draw.choice([0, -1]) if what == "int" else ()
    if what == "int":
        return draw.integer(-ndim, ndim - 1)
    k = draw.integer(0, ndim)
    axes = sorted({draw.integer(0, ndim - 1) for _ in range(k)})
    return tuple(a - ndim if draw.integer(0, 2) == 0 else a for a in axes)


def g_unary(domain="any", shapes=UNARY_SHAPES):
    def gen(draw, family):
        return (draw.array(draw.dtype(family), draw.shape(shapes), domain),), {}
    return gen


def g_binary(domain_a="any", domain_b="any", shapes=BINARY_SHAPES):
    def gen(draw, family):
        sa, sb = draw.shape(shapes)
        return (draw.array(draw.dtype(family), sa, domain_a),
                draw.array(draw.dtype(family), sb, domain_b)), {}
    return gen


def g_ternary(draw, family):
    shapes = draw.shape(TERNARY_SHAPES)
    return tuple(draw.array(draw.dtype(family), s) for s in shapes), {}


def g_shape(extra=None, shapes=SHAPE_OP_SHAPES):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(shapes))
        return (x,), (extra(draw, x) if extra else {})
    return gen
