"""Rows of the coverage table: shapes and data movement (reshape, transpose, joins, splits,
pads, ``np.where``, ``astype``)."""

from __future__ import annotations

import numpy as np

from tests.coverage.compare import DOT_TOL, SUM_TOL
from tests.coverage.draw import ALL_DTYPES
from tests.coverage.generators import (
    SHAPE_OP_SHAPES,
    TERNARY_SHAPES,
    UNARY_SHAPES,
    axis_param,
    g_shape,
    g_unary,
)
from tests.coverage.harness import Case, case_adder, same_layout

CASES: list[Case] = []
case = case_adder(CASES)


def _reshape_target(draw, x):
    n = x.size
    divisors = [d for d in range(1, max(n, 1) + 1) if n % d == 0] or [1]
    d = draw.choice(divisors)
    options = [(n,), (-1,), (d, n // d), (d, -1), (-1, d, 1), (1, n, 1), (n + 1,)]  # last: error
    if n == 0:
        options += [(0, 3), (2, -1, 0)]
    return {"shape": draw.choice(options)}


case("np.reshape(x, shape)", "shape", lambda x, shape: np.reshape(x, shape), g_shape(_reshape_target))
case("x.reshape(shape) (method)", "shape", lambda x, shape: x.reshape(shape), g_shape(_reshape_target))
case("np.ravel(x)", "shape", np.ravel, g_shape())


def _perm(draw, x):
    perm = list(range(x.ndim))
    for i in range(len(perm) - 1, 0, -1):
        j = draw.integer(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    return {"axes": draw.choice([None, tuple(perm), tuple(p - x.ndim for p in perm)])}


case("np.transpose(x, axes)", "shape", lambda x, axes: np.transpose(x, axes), g_shape(_perm))
case("x.T", "shape", lambda x: x.T, g_shape())


def _two_axes(draw, x):
    n = max(x.ndim, 1)
    return {"a": draw.integer(-n, n - 1), "b": draw.integer(-n, n - 1)}


case("np.swapaxes(x, a, b)", "shape", lambda x, a, b: np.swapaxes(x, a, b), g_shape(_two_axes))


def _move(draw, x):
    n = max(x.ndim, 1)
    k = draw.integer(0, min(x.ndim, 2))
    src = tuple(draw.integer(-n, n - 1) for _ in range(k))
    dst = tuple(draw.integer(-n, n - 1) for _ in range(k))
    if k == 1 and draw.integer(0, 1):
        src, dst = src[0], dst[0]
    return {"src": src, "dst": dst}


case("np.moveaxis(x, src, dst)", "shape", lambda x, src, dst: np.moveaxis(x, src, dst), g_shape(_move))


def _squeeze_axis(draw, x):
    ones = [i for i, d in enumerate(x.shape) if d == 1]
    return {"axis": draw.choice([None, tuple(ones), *ones, *(range(x.ndim) if x.ndim else [])])}


case("np.squeeze(x, axis)", "shape", lambda x, axis: np.squeeze(x, axis), g_shape(_squeeze_axis))


def _expand_axis(draw, x):
    n = x.ndim + 1
    return {"axis": draw.choice([draw.integer(-n, n - 1), (0, -1), (0, 1) if n > 1 else 0,
                                 np.int64(draw.integer(-n, n - 1))])}


case("np.expand_dims(x, axis)", "shape", lambda x, axis: np.expand_dims(x, axis), g_shape(_expand_axis))


def _broadcast_target(draw, x):
    shape = tuple(draw.choice([d, 3]) if d == 1 else d for d in x.shape)
    return {"shape": draw.choice([(2,) + shape, shape, (1, 1) + shape, (5,) * x.ndim])}


case("np.broadcast_to(x, shape)", "shape", lambda x, shape: np.broadcast_to(x, shape),
     g_shape(_broadcast_target))


def g_join(draw, family):
    base = draw.shape(SHAPE_OP_SHAPES)
    axis = draw.integer(-max(len(base), 1), max(len(base), 1) - 1)
    arrays = []
    for _ in range(draw.integer(1, 3)):
        shape = list(base)
        if shape and draw.integer(0, 1):
            shape[axis] = draw.integer(0, 3)
        arrays.append(draw.array(draw.dtype(family), tuple(shape)))
    return tuple(arrays), {"axis": draw.choice([axis, axis, None])}


case("np.concatenate([x, y, ...], axis)", "shape",
     lambda *xs, axis: np.concatenate(xs, axis=axis), g_join)


def g_stack(draw, family):
    base = draw.shape(SHAPE_OP_SHAPES)
    n = draw.integer(1, 3)
    arrays = tuple(draw.array(draw.dtype(family), base) for _ in range(n))
    if draw.integer(0, 7) == 0:  # mismatched shapes: ValueError in both
        arrays += (draw.array(draw.dtype(family), base + (2,)),)
    return arrays, {"axis": draw.integer(-len(base) - 1, len(base))}


case("np.concatenate([x, [0, 1]]), np.append(x, [[1, 2]]) (lists as operands)", "shape",
     lambda x: (np.concatenate([x.reshape(-1), [0, 1]]), np.append(x, [[1, 2]])), g_shape())
case("np.stack([x, y, ...], axis)", "shape", lambda *xs, axis: np.stack(xs, axis=axis), g_stack)


def g_hvstack(draw, family):
    base = draw.shape([(), (3,), (2, 3), (0, 2), (2, 1, 2), (17,)])
    arrays = []
    for _ in range(draw.integer(1, 3)):
        shape = list(base)
        if shape and draw.integer(0, 1):
            shape[draw.choice([0, -1][: len(shape)])] = draw.integer(1, 3)
        arrays.append(draw.array(draw.dtype(family), tuple(shape)))
    return tuple(arrays), {}


case("np.hstack([x, y, ...])", "shape", lambda *xs: np.hstack(xs), g_hvstack)
case("np.vstack([x, y, ...])", "shape", lambda *xs: np.vstack(xs), g_hvstack)


def _split_arg(draw, x):
    n = max(x.ndim, 1)
    axis = draw.integer(-n, n - 1)
    size = x.shape[axis] if x.ndim else 0
    return {"axis": axis, "sections": draw.choice(
        [1, 2, 3, (1,), (0, 2), (2, 1), (size,), (1, size + 2)][: 8 if size else 6])}


case("np.split(x, sections, axis)", "shape", lambda x, sections, axis: np.split(x, sections, axis),
     g_shape(_split_arg, SHAPE_OP_SHAPES[1:]))


def _roll_arg(draw, x):
    n = max(x.ndim, 1)
    return draw.choice([{"shift": draw.integer(-7, 7), "axis": None},
                        {"shift": draw.integer(-7, 7), "axis": draw.integer(-n, n - 1)},
                        {"shift": (1, -2), "axis": (0, -1)}, {"shift": 2, "axis": (0, -1)},
                        {"shift": np.int64(draw.integer(-7, 7)), "axis": np.int64(draw.integer(-n, n - 1))},
                        {"shift": 1, "axis": ()}, {"shift": (1, 2), "axis": (0, 0)}])


case("np.roll(x, shift, axis)", "shape", lambda x, shift, axis: np.roll(x, shift, axis),
     g_shape(_roll_arg))


def _flip_axis(draw, x):
    return {"axis": axis_param(draw, x.ndim)}


case("np.flip(x, axis)", "shape", lambda x, axis: np.flip(x, axis), g_shape(_flip_axis))


def _tile_reps(draw, x):
    return {"reps": draw.choice([2, 0, 1, (2, 1), (1, 3), (2, 1, 2), (3,)])}


case("np.tile(x, reps)", "shape", lambda x, reps: np.tile(x, reps), g_shape(_tile_reps))


def _repeat_arg(draw, x):
    n = max(x.ndim, 1)
    return {"repeats": draw.choice([0, 1, 2, 3]), "axis": draw.choice([None, draw.integer(-n, n - 1)])}


case("np.repeat(x, n, axis)", "shape", lambda x, repeats, axis: np.repeat(x, repeats, axis),
     g_shape(_repeat_arg))


def _pad_arg(draw, x):
    width = draw.choice([1, (1, 2), ((0, 1),) * x.ndim, tuple((draw.integer(0, 2), draw.integer(0, 2))
                                                            for _ in range(x.ndim))])
    return {"width": width, "value": draw.choice([0, 1, 7, True])}


case("np.pad(x, width, constant_values=c)", "shape",
     lambda x, width, value: np.pad(x, width, mode="constant", constant_values=value),
     g_shape(_pad_arg))


def _pad_mode_arg(draw, x):
    return {**_pad_arg(draw, x), "mode": draw.choice(["edge", "reflect", "symmetric", "wrap",
                                                                  "maximum", "minimum"])}


case("np.pad(x, width, mode)", "shape",
     lambda x, width, value, mode: np.pad(x, width, mode=mode), g_shape(_pad_mode_arg))


def g_where(draw, family):
    sc, sa, sb = draw.shape(TERNARY_SHAPES)
    return (draw.array(np.bool_, sc), draw.array(draw.dtype(family), sa),
            draw.array(draw.dtype(family), sb)), {}


case("np.where(c, x, y)", "shape", lambda c, x, y: np.where(c, x, y), g_where)
case("np.select([x > 0, x < 2], [x, x * 2], 0)", "shape",
     lambda x: np.select([x > 0, x < 2], [x, x * 2], 0), g_unary())


def _astype_arg(draw, x):
    return {"dtype": draw.choice(ALL_DTYPES).str}


def in_range_for(x: np.ndarray, dst) -> np.ndarray:
    """``x`` with the floats whose conversion to integer ``dst`` C leaves undefined (NaN, inf,
    out of range after truncation) replaced by 0: NumPy's result there depends on its SIMD path,
    jitcore's follows x86 truncation (see docs/numpy_support.md)."""
    dst = np.dtype(dst)
    if x.dtype.kind != "f" or dst.kind not in "iu":
        return x
    info = np.iinfo(dst)
    with np.errstate(all="ignore"):
        t = np.trunc(x.astype(np.float64))
        ok = np.isfinite(t) & (t >= info.min) & (t <= info.max)
    return np.where(ok, x, 0).astype(x.dtype)


def g_astype(draw, family):
    (x,), params = g_shape(_astype_arg, UNARY_SHAPES)(draw, family)
    return (same_layout(in_range_for(x, params["dtype"]), x),), params


case("x.astype(dtype)", "shape", lambda x, dtype: x.astype(dtype), g_astype)


# The everyday array functions of issue 12.
case("np.copy(x)", "shape", lambda x: np.copy(x), g_shape())


def _k(draw, x):
    return {"k": draw.choice([0, 1, -1, 2, -3])}


case("np.triu(x, k)", "shape", lambda x, k: np.triu(x, k), g_shape(_k))
case("np.tril(x, k)", "shape", lambda x, k: np.tril(x, k), g_shape(_k))
case("np.atleast_1d(x)", "shape", lambda x: np.atleast_1d(x), g_shape())
case("np.atleast_2d(x)", "shape", lambda x: np.atleast_2d(x), g_shape())
case("np.atleast_3d(x)", "shape", lambda x: np.atleast_3d(x), g_shape())


def g_meshgrid(draw, family):
    arrays = tuple(draw.array(draw.dtype(family), draw.shape([(0,), (1,), (3,), (4,), (17,)]))
                   for _ in range(draw.choice([1, 2, 3])))
    return arrays, {"indexing": draw.choice(["xy", "ij"]), "sparse": draw.choice([False, True])}


case("np.meshgrid(*xi, indexing, sparse)", "shape", lambda *xi, **k: np.meshgrid(*xi, **k), g_meshgrid)


def _ediff_arg(draw, x):
    return {"to_begin": draw.choice([None, 0, (1, 2)]), "to_end": draw.choice([None, -1, (3,)])}


case("np.ediff1d(x, to_end, to_begin)", "shape", lambda x, **k: np.ediff1d(x, **k),
     g_shape(_ediff_arg, [(0,), (1,), (6,), (2, 3), (17,)]))


def g_cross(draw, family):
    na, nb = draw.choice([(3, 3), (3, 3), (2, 3), (3, 2), (2, 2), (4, 3)])  # last: error
    lead = draw.shape([(), (4,), (2, 1), (17,)])
    # NaN and inf for floats, every integer: NumPy's a1 b2 - a2 b1 per component, as jitcore's
    # (wrapping for integers; complex products meeting inf differ between NumPy's own loops).
    domain = {"float": "small", "complex": "finite"}.get(family, "any")
    params = {"axisc": draw.choice([-1, 0])}
    vectors_first = draw.choice([False, True]) and lead != ()
    a = draw.array(draw.dtype(family), (na,) + lead if vectors_first else lead + (na,), domain)
    if vectors_first:
        params["axisa"] = 0
    b = draw.array(draw.dtype(family), (nb,) if draw.choice([False, True]) else lead + (nb,), domain)
    return (a, b), params


case("np.cross(a, b, axisa, axisb, axisc)", "shape", lambda a, b, **k: np.cross(a, b, **k), g_cross)


def g_sliding(draw, family):
    # Float windows meet NaN and inf too: a sum holding them is NaN or inf in any order.
    domain = "small" if family == "float" else "finite"
    a = draw.array(draw.dtype(family), (draw.choice([1, 2, 5, 17]),), domain)
    v = draw.array(draw.dtype(family), (draw.choice([1, 3, 4, 9]),), domain)
    return (a, v), {"mode": draw.choice(["full", "same", "valid"])}


case("np.convolve(a, v, mode)", "shape", lambda a, v, mode: np.convolve(a, v, mode), g_sliding,
     tol=DOT_TOL)
case("np.correlate(a, v, mode)", "shape", lambda a, v, mode: np.correlate(a, v, mode), g_sliding,
     tol=DOT_TOL)


def _trace_arg(draw, x):
    axes = (0, 1) if x.ndim < 3 else draw.choice([(0, 1), (1, 2), (-1, 0)])
    return {"offset": draw.choice([0, 1, -1, 5]), "axis1": axes[0], "axis2": axes[1]}


case("np.trace(x, offset, axis1, axis2)", "shape", lambda x, **k: np.trace(x, **k),
     g_shape(_trace_arg, [(2, 3), (3, 3), (0, 2), (2, 3, 4), (17, 17)]), tol=SUM_TOL)


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.cross(a, b, axisa, axisb, axisc)": "2-vectors warn as in NumPy 2 (deprecated)",
    "np.convolve(a, v, mode)": "1-d with static lengths; each output one dot product of a window "
                               "(float sums in another order than NumPy's)",
    "np.correlate(a, v, mode)": "as convolve; v conjugated, as NumPy's",
    "np.reshape(x, shape)": "order='C' only",
    "np.repeat(x, n, axis)": "an int count, or static per-element counts (traced ones: JitTypeError)",
    "np.pad(x, width, constant_values=c)": "mode='constant': static constants, one or one per side",
    "np.pad(x, width, mode)": "'edge', 'reflect' (reflect_type='even'), 'symmetric', 'wrap', "
                              "'maximum', 'minimum', 'mean', 'median' (static stat_length), a function; "
                              "other modes: UnsupportedError",
    "x.astype(dtype)": "float to int of NaN, inf or out of range: x86 truncation (see below)",
}
