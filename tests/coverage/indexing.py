"""Rows of the coverage table: indexing (basic, advanced, masks, ``np.take``), ``ufunc.at``
and ``ufunc.outer``."""

from __future__ import annotations

import math

import numpy as np

from tests.coverage.compare import ulp
from tests.coverage.generators import SHAPE_OP_SHAPES, UNARY_SHAPES, g_binary, g_unary
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)


def decode_key(key):
    """Keys travel as hashable static parameters: ``("s", start, stop, step)`` is a slice,
    ``"..."`` is Ellipsis, ``("a", values, shape)`` a NumPy integer array and ``("m", values,
    shape)`` a NumPy bool mask, ``("l", values)`` a Python list of ints."""
    def one(k):
        if k == "...":
            return Ellipsis
        if isinstance(k, tuple) and k and k[0] == "s":
            return slice(*k[1:])
        if isinstance(k, tuple) and k and k[0] in ("a", "m"):
            return np.array(k[1], dtype=np.intp if k[0] == "a" else bool).reshape(k[2])
        if isinstance(k, tuple) and k and k[0] == "l":
            return list(k[1])
        return k
    if isinstance(key, tuple) and not (key and key[0] in ("s", "a", "m", "l")):
        return tuple(one(k) for k in key)
    return one(key)


def _draw_index(draw, size, bad=True):
    """A static int for an axis of ``size`` (sometimes out of range: IndexError in both)."""
    if bad and draw.integer(0, 9) == 0:
        return draw.choice([size, -size - 1])
    return draw.integer(-size, size - 1)


def _draw_slice(draw, size):
    bounds = [None, None, 0, 1, -1, size, -size, size + 2, -size - 3, size // 2]
    step = draw.choice([None, 1, 2, 3, -1, -2, -3] + ([0] if draw.integer(0, 19) == 0 else []))
    return ("s", draw.choice(bounds), draw.choice(bounds), step)


def g_basic_index(kinds):
    def gen(draw, family):
        x = draw.array(draw.dtype(family), draw.shape(SHAPE_OP_SHAPES))
        key, dim = [], 0
        ellipsis = False
        for _ in range(draw.integer(1, x.ndim + 1)):
            kind = draw.choice(kinds)
            if kind == "none":
                key.append(None)
            elif kind == "ellipsis" and not ellipsis:
                key.append("...")
                ellipsis = True
            elif dim < x.ndim or draw.integer(0, 9) == 0:  # sometimes one index too many
                size = x.shape[dim] if dim < x.ndim else 1
                if kind == "int" and size:
                    key.append(_draw_index(draw, size))
                else:
                    key.append(_draw_slice(draw, size))
                dim += 1
        key = tuple(key)
        return (x,), {"key": key if len(key) != 1 or draw.integer(0, 1) else key[0]}
    return gen


def _index(x, key):
    return x[decode_key(key)]


case("x[i, j] (static ints)", "indexing", _index, g_basic_index(["int"]))
case("x[a:b:s] (slices, negative steps)", "indexing", _index, g_basic_index(["slice"]))
case("x[None, ..., ::-1, i] (None, Ellipsis, mixed)", "indexing", _index,
     g_basic_index(["int", "slice", "none", "ellipsis"]))


def g_mask(draw, family):
    x = draw.array(draw.dtype(family), draw.shape(SHAPE_OP_SHAPES[1:]))
    mask = draw.array(np.bool_, x.shape)
    return (x,), {"mask": (tuple(mask.ravel().tolist()), mask.shape)}


case("x[mask] (NumPy bool mask: static shape)", "indexing",
     lambda x, mask: x[np.array(mask[0], dtype=bool).reshape(mask[1])], g_mask)


def g_int_array(draw, family):
    x = draw.array(draw.dtype(family), draw.shape(SHAPE_OP_SHAPES[1:]))
    n = x.shape[0]
    idx = tuple(_draw_index(draw, n) if n else 0 for _ in range(draw.integer(0, 4)))
    return (x,), {"idx": idx}


case("x[[i, j, k]] (NumPy int array: static shape)", "indexing",
     lambda x, idx: x[np.array(idx, dtype=np.intp)], g_int_array)
case("x[[i, j, k]] (Python list)", "indexing", lambda x, idx: x[list(idx)], g_int_array)


def g_take(draw, family):
    (x,), params = g_int_array(draw, family)
    n = max(x.ndim, 1)
    axis = draw.choice([None, draw.integer(-n, n - 1)])
    size = x.size if axis is None else x.shape[axis]
    idx = tuple(_draw_index(draw, size) if size else 0 for _ in range(draw.integer(0, 3)))
    return (x,), {"idx": idx, "axis": axis, "kind": draw.choice(["array", "list", "int"])}


def _take(x, idx, axis, kind):
    indices = {"array": np.array(idx, dtype=np.intp), "list": list(idx), "int": idx[0] if idx else 0}[kind]
    return np.take(x, indices, axis=axis)


case("np.take(x, indices, axis)", "indexing", _take, g_take)


def g_traced_int_array(draw, family):
    x = draw.array(draw.dtype(family), draw.shape([(5,), (3, 2), (4, 1, 2), (2, 0), (17,)]))
    n = x.shape[0]
    # Mostly in [-n, n); sometimes one past either end (IndexError in NumPy and under jit).
    span = max(2 * n + 2 if draw.integer(0, 3) == 0 else 2 * n, 1)
    idx = draw.array(np.int64, draw.shape([(), (3,), (2, 2)]), "nonneg") % span - span // 2
    return (x, idx), {}


case("x[idx] (traced int array: static shape)", "indexing", lambda x, idx: x[idx],
     g_traced_int_array)


def g_ufunc_at(draw, family):
    """``ufunc.at(x, idx, v)``: traced indices (repeated, negative, sometimes out of range) and
    values of ``x``'s dtype, one or one per indexed element."""
    (x, idx), _ = g_traced_int_array(draw, family)
    v = draw.array(x.dtype, draw.shape([(), idx.shape + x.shape[1:]]))
    return (x, idx, v), {}


def _ufunc_at(ufunc):
    def fn(x, idx, v):
        y = x.copy()  # in place on a copy: the drawn arrays stay as they are
        ufunc.at(y, idx, v)
        return y
    return fn


for _name in ("add", "subtract", "multiply", "maximum", "minimum"):
    case(f"np.{_name}.at(x, idx, v)", "indexing", _ufunc_at(getattr(np, _name)), g_ufunc_at)


def _outer(ufunc):
    return lambda a, b: ufunc.outer(a, b)


for _name in ("add", "subtract", "multiply", "equal", "maximum", "arctan2"):
    case(f"np.{_name}.outer(a, b)", "ufunc methods", _outer(getattr(np, _name)),
         g_binary(shapes=[((2,), (3,)), ((2, 2), ()), ((0,), (2, 1)), ((), ()), ((17,), (2,))]),
         **({"tol": ulp("arctan2")} if _name == "arctan2" else {}))


def g_advanced_mixed(draw, family):
    """Integer arrays (NumPy arrays and lists, broadcasting against each other) and masks (over
    one or two dims) among slices, ints, None and Ellipsis; advanced indices adjacent or apart."""
    shapes = [(4, 3), (2, 3, 4), (3, 1, 2), (0, 3), (2, 3, 2, 2), (17, 2)]
    x = draw.array(draw.dtype(family), draw.shape(shapes))
    key, dim = [], 0
    while dim < x.ndim:
        size = x.shape[dim]
        kind = draw.choice(["slice", "array", "array", "list", "int", "mask", "mask2", "none"])
        if kind == "none":
            key.append(None)
        if kind == "int" and size:
            key.append(_draw_index(draw, size, bad=False))
        elif kind in ("array", "list") and size:
            shape = draw.choice([(2,), (1,), (2, 1), (), (1, 3)] if kind == "array" else [(2,), (3,), (1,)])
            bad = draw.integer(0, 4) == 0  # sometimes out of range: IndexError in both
            values = tuple(_draw_index(draw, size, bad=bad) for _ in range(math.prod(shape)))
            key.append(("a", values, shape) if kind == "array" else ("l", values))
        elif kind == "mask2" and dim + 1 < x.ndim:
            mask = draw.array(np.bool_, x.shape[dim: dim + 2])
            key.append(("m", tuple(mask.ravel().tolist()), mask.shape))
            dim += 1
        elif kind in ("mask", "mask2"):
            mask = draw.array(np.bool_, (size,))
            key.append(("m", tuple(mask.tolist()), (size,)))
        else:
            key.append(_draw_slice(draw, size))
        dim += 1
    if not any(isinstance(k, tuple) and k[0] in ("a", "m", "l") for k in key):  # at least one array
        key[-1] = ("a", (0,), (1,)) if x.shape[-1] else ("m", (), (0,))
    if draw.integer(0, 3) == 0:
        key = ["...", *key[1:]]
    return (x,), {"key": tuple(key)}


case("x[[i, j], :, mask] (arrays among slices, ints, None)", "indexing", _index, g_advanced_mixed)
case("x[x > 0] (traced mask: data-dependent shape)", "indexing", lambda x: x[x > 0],
     g_unary(shapes=UNARY_SHAPES[1:]))
case("np.where(x > 0) (one argument: data-dependent shape)", "indexing", lambda x: np.where(x > 0),
     g_unary(shapes=UNARY_SHAPES[1:]))
case("np.nonzero(x) (data-dependent shape)", "indexing", lambda x: np.nonzero(x),
     g_unary(shapes=UNARY_SHAPES[1:]))


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "x[idx] (traced int array: static shape)": "out-of-bounds indices raise IndexError when called",
    "x[x > 0] (traced mask: data-dependent shape)": "returned, a compaction; uses that need its length "
    "inside the function raise a JitcoreError (reductions of it compile: see x[m].sum())",
    "np.nonzero(x) (data-dependent shape)": "returned, a compaction; uses that need its length inside "
    "the function raise a JitcoreError",
}
