"""Inputs for differential tests: hypothesis strategies whose elements are often special values
and whose memory layouts vary, and fixed batches of edge-case arrays that every run sees.

``hnp.arrays`` fills most elements of an array with one value and ``hnp.from_dtype`` seldom
draws NaN, inf, -0.0 or a subnormal, so a few derandomized examples rarely meet them. Here:

- ``elements(dtype)`` draws a special value of the dtype (``specials``) about half the time;
- ``arrays(dtype, shape)`` draws every element on its own and then a layout for the result
  (``tests.layouts``: Fortran order, negative strides, every other element, stride 0, unaligned);
- ``edge_arrays(dtype)`` and ``edge_pairs(dtype)`` are fixed lists of arrays (0-d, size 0,
  length 1, odd lengths past any vector width, 2-D views, every layout) that hold every special
  value of the dtype, one-by-one and pairwise, for tests to run in addition to their draws.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.layouts import LAYOUTS, layouts, relayout

# Longer than the widest vector (64 int8 lanes in a 512-bit register) and odd, so that every
# kernel runs its vector body and its remainder loop.
EDGE_LENGTH = 67


def specials(dtype) -> np.ndarray:
    """The values of ``dtype`` that code most often gets wrong."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([False, True])
    if dtype.kind == "f":
        info = np.finfo(dtype)
        tiny, sub, top = float(info.tiny), float(info.smallest_subnormal), float(info.max)
        return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, sub, -sub, tiny, -tiny, top, -top, 1.0, -1.0],
                        dtype)
    if dtype.kind == "c":  # every pair of a few special parts
        parts = specials(_part(dtype))[[0, 1, 2, 3, 4, 5, 9, 11]]
        return np.array([complex(r, i) for r in parts for i in parts], dtype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1] + ([-1] if info.min < 0 else []), dtype)


def ordinary(dtype) -> np.ndarray:
    """A few unremarkable values of ``dtype`` to go with the specials."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([], bool)
    if dtype.kind == "f":
        return np.array([0.5, -2.5, 3.0, 7.0, -0.1, 100.25], dtype)
    if dtype.kind == "c":
        return np.array([0.5 - 2.5j, 3.0 + 7.0j, -0.1 + 1j, 100.25 - 0.1j], dtype)
    return np.array([2, 3, 7, 100] + ([-2, -7] if dtype.kind == "i" else []), dtype)


def _part(dtype: np.dtype) -> np.dtype:
    return np.dtype(dtype.char.lower())


def elements(dtype, *, min_value=None, max_value=None, allow_nan: bool = True):
    """Values of ``dtype``, a special one about half the time. Bounds apply to every value but
    NaN (kept unless ``allow_nan`` is false); the infinities are in unless a bound keeps them out."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "c":
        part = elements(_part(dtype), min_value=min_value, max_value=max_value, allow_nan=allow_nan)
        return st.builds(complex, part, part)

    def within(v):
        if np.isnan(v):
            return allow_nan
        return (min_value is None or v >= min_value) and (max_value is None or v <= max_value)

    chosen = [v.item() for v in specials(dtype) if within(v)]
    if dtype.kind == "f":
        usual = hnp.from_dtype(dtype, min_value=min_value, max_value=max_value,
                               allow_nan=allow_nan and min_value is None and max_value is None,
                               allow_infinity=min_value is None or max_value is None,
                               allow_subnormal=True)
    else:
        info = np.iinfo(dtype)
        usual = st.integers(info.min if min_value is None else max(info.min, min_value),
                            info.max if max_value is None else min(info.max, max_value))
    return st.one_of(st.sampled_from(chosen), usual) if chosen else usual


_elements = elements  # arrays() takes a parameter of that name


def _layout_strategy(layout):
    if layout is True:
        return layouts()
    if layout is False:
        return st.just("C")
    if isinstance(layout, str):
        return st.just(layout)
    return st.sampled_from(tuple(layout))


@st.composite
def arrays(draw, dtype, shape, elements=None, layout=True):
    """An array of ``dtype`` and ``shape`` (a tuple or a strategy of tuples), each element drawn
    on its own from ``elements`` (default: ``elements(dtype)``), seen through a layout drawn from
    ``layout``: True for any of ``tests.layouts.LAYOUTS``, False for C order, a name, or a
    sequence of names (``WRITABLE_LAYOUTS`` for arrays a test writes to). The ``broadcast``
    layout repeats each row's first element along the last axis."""
    dtype = np.dtype(dtype)
    if isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    values = _elements(dtype) if elements is None else elements
    a = draw(hnp.arrays(dtype, shape, elements=values, fill=st.nothing()))
    return relayout(a, draw(_layout_strategy(layout)))


def edge_set(dtype) -> np.ndarray:
    """Every special and ordinary value of ``dtype``, once each."""
    return np.concatenate([specials(dtype), ordinary(dtype)])


def _values(v) -> np.ndarray:
    return edge_set(v) if isinstance(v, (type, np.dtype, str)) else np.asarray(v)


def edge_arrays(values, layouts=LAYOUTS) -> list[tuple[str, np.ndarray]]:
    """(label, array) pairs that hold each of ``values`` (a dtype for its ``edge_set``, or a 1-D
    array): a 0-d array per value, size 0, length 1, and a (3, 67) array of the values repeated,
    seen through each of ``layouts``. A jitted function compiles five times for them (shape and
    C-contiguity key its cache: 0-d, size 0, length 1, (3, 67) contiguous and not)."""
    values = _values(values)
    main = np.resize(values, (3, EDGE_LENGTH))
    batch = [(f"0-d {v!r}", np.array(v)) for v in values]
    batch += [("size 0", values[:0]), ("length 1", values[:1])]
    batch += [(f"{main.shape} {kind}", relayout(main, kind)) for kind in layouts]
    return batch


def edge_pairs(x, y=None, layouts=LAYOUTS) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(label, a, b) triples in which each of the values ``x`` meets each of ``y`` (dtypes for
    their ``edge_set``, or 1-D arrays; ``y`` defaults to ``x``): elementwise over an odd length
    past any vector width in the C-contiguous layouts (C, and unaligned, which jitcore copies);
    as a 2-D grid in each other layout of ``layouts`` (F among them; two layouts a call); 1-D
    against 0-d and 0-d against 0-d; and size 0 against length 1. A jitted function compiles
    five times for them. (Hypothesis draws mix more shapes and layouts.)"""
    x = _values(x)
    y = x if y is None else _values(y)
    n = max(x.size * y.size, EDGE_LENGTH) | 1
    a, b = np.resize(np.repeat(x, y.size), n), np.resize(np.tile(y, x.size), n)
    grid_a, grid_b = np.repeat(x[:, None], y.size, axis=1), np.repeat(y[None, :], x.size, axis=0)
    contiguous = [k for k in layouts if k in ("C", "unaligned")]
    strided = [k for k in layouts if k not in contiguous]
    batch = [(f"pairs {k} with {contiguous[i - 1]}", relayout(a, k), relayout(b, contiguous[i - 1]))
             for i, k in enumerate(contiguous)]
    batch += [(f"grid {grid_a.shape} {k} with {strided[i - 1]}", relayout(grid_a, k),
               relayout(grid_b, strided[i - 1])) for i, k in enumerate(strided)]
    batch += [(f"1-D with 0-d {w!r}", x, np.array(w)) for w in y]
    batch += [(f"0-d {v!r} with 0-d {w!r}", np.array(v), np.array(w)) for v in x for w in y]
    batch.append(("size 0 with length 1", x[:0], y[:1]))
    return batch
