"""Rows of the coverage table: creation (concrete NumPy calls inside jit: constants with static
sizes) and the static properties ``.shape .ndim .size .dtype``."""

from __future__ import annotations

import numpy as np

import jitcore.numpy as jnp
from tests.coverage.compare import META
from tests.coverage.draw import ALL_DTYPES
from tests.coverage.generators import UNARY_SHAPES, g_shape, g_unary
from tests.coverage.harness import Case, case_adder

CASES: list[Case] = []
case = case_adder(CASES)


case("np.zeros(x.shape, x.dtype) + x", "creation", lambda x: np.zeros(x.shape, x.dtype) + x, g_unary())
case("np.ones(x.shape, x.dtype) * x", "creation", lambda x: np.ones(x.shape, x.dtype) * x, g_unary())
case("np.full(x.shape, 3, x.dtype) + x", "creation", lambda x: np.full(x.shape, 3, x.dtype) + x, g_unary())
case("np.empty(x.shape, x.dtype)", "creation", lambda x: np.empty(x.shape, x.dtype), g_unary(), tol=META)
case("np.arange(x.size).reshape(x.shape) + x", "creation",
     lambda x: np.arange(x.size).reshape(x.shape) + x, g_unary())
case("np.linspace(0, 1, x.size).reshape(x.shape) * x", "creation",
     lambda x: np.linspace(0, 1, x.size).reshape(x.shape) * x, g_unary())
case("x[..., None] * np.eye(n, dtype=x.dtype)", "creation",
     lambda x: x[..., None] * np.eye(x.shape[-1] if x.ndim else 3, dtype=x.dtype), g_unary())


# jitcore.numpy's own creation functions (JAX users type jnp.zeros): traced arrays under jit,
# NumPy's outside (where the same function is the oracle), so writes into them are stores.
def _jnp_fill(x):
    out = jnp.zeros(x.shape, x.dtype)
    out[...] = x
    return out, jnp.ones(3), jnp.full((2,), 7, x.dtype), jnp.arange(5), jnp.eye(3, k=1), jnp.identity(2)


def _jnp_array(x):
    flat = x.reshape(-1)
    first = flat[0] if flat.size else jnp.zeros((), x.dtype)
    return jnp.array([first, first]), jnp.asarray(x), jnp.array([[1, 2], [3, 4]], dtype=x.dtype)


case("jnp.zeros/ones/full/arange/eye/identity (written into)", "creation", _jnp_fill, g_unary())
case("jnp.array([...traced...]), jnp.asarray(x)", "creation", _jnp_array, g_unary())
case("jnp.linspace(x[0], x[-1], 5)", "creation",
     lambda x: jnp.linspace(x.reshape(-1)[0], x.reshape(-1)[-1], 5),
     g_unary("any", [(), (0,), (1,), (7,), (2, 3), (17,)]))


# np.linspace with traced endpoints (issue 12): NumPy's formula, bit for bit. (np.array of traced
# values needs autograph, which the table's wrapper does not run: see test_inside_arrays.py.)
case("np.linspace(x[0], x[-1], 7) (traced endpoints)", "creation",
     lambda x: np.linspace(x.reshape(-1)[0], x.reshape(-1)[-1], 7),
     g_unary("any"))


def _like_arg(draw, x):
    return {"dtype": draw.choice([None, None, *(d.str for d in ALL_DTYPES)])}


case("np.zeros_like(x, dtype)", "creation", lambda x, dtype: np.zeros_like(x, dtype=dtype),
     g_shape(_like_arg, UNARY_SHAPES))
case("np.ones_like(x, dtype)", "creation", lambda x, dtype: np.ones_like(x, dtype=dtype),
     g_shape(_like_arg, UNARY_SHAPES))
case("np.empty_like(x, dtype)", "creation", lambda x, dtype: np.empty_like(x, dtype=dtype),
     g_shape(_like_arg, UNARY_SHAPES), tol=META)


def _full_like_arg(draw, x):
    return {"value": draw.choice([7, 2.5, True, 0, -1, 300]), **_like_arg(draw, x)}


case("np.full_like(x, v, dtype)", "creation",
     lambda x, value, dtype: np.full_like(x, value, dtype=dtype), g_shape(_full_like_arg, UNARY_SHAPES))


def _static_properties(x):
    # Inside jit these must be plain Python values, usable to build static shapes.
    assert type(x.shape) is tuple and all(type(d) is int for d in x.shape), x.shape
    assert type(x.ndim) is int and type(x.size) is int and isinstance(x.dtype, np.dtype)
    return np.zeros((x.ndim, x.size), dtype=x.dtype) + x.reshape(x.size)[: min(x.size, 1)].sum(), \
        np.asarray(x.shape + (x.ndim, x.size, x.dtype.itemsize), dtype=np.int64)


case(".shape .ndim .size .dtype (static Python values)", "creation", _static_properties, g_unary())


# Notes for docs/numpy_support.md: differences from NumPy, partial support.
NOTES = {
    "np.empty(x.shape, x.dtype)": "a constant inside jit: zeros (NumPy: uninitialized)",
    "np.empty_like(x, dtype)": "zeros (NumPy: uninitialized)",
    "jnp.linspace(x[0], x[-1], 5)": "traced 0-d endpoints and a static count: NumPy's formula",
    ".shape .ndim .size .dtype (static Python values)":
        "Python values while tracing; returned from jit they become NumPy scalars",
}
