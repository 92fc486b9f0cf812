"""``np.vectorize(f)`` of any Python function, called on traced arrays: ``f`` converted (so an
``if``/``while`` on its element compiles) and called once per element inside one compiled loop
(``jc.scan`` over the broadcast arguments' elements), as NumPy's loop calls it once per element.

NumPy fixes the output dtype from the first element's result (or ``otypes``); here it is the
dtype of ``f``'s traced result, which is the same unless ``f``'s branches return different
types (``return 0`` on one, ``return v * 2.0`` on the other): NumPy then takes the first
element's branch's type, jit the promotion of both (documented in docs/performance.md,
newuser37). ``excluded`` and ``signature=`` keep NumPy's object, which refuses traced data.
The ``math`` functions jitcore computes element-wise keep their faster whole-array form
(``math_calls._VectorizedMath``).
"""

from __future__ import annotations

import numpy as np

from jitcore import control_flow as cf
from jitcore import pytree
from jitcore.errors import JitValueError, UnsupportedError
from jitcore.tracer import Tracer, user_location

# How converted code calls a Python function (``jitcore.autograph.runtime.call``): set by
# ``runtime`` when it loads, since ``runtime`` imports this module's users
CONVERT = None


class VectorizedLoop:
    """What converted code calls for ``np.vectorize(f)`` when ``f`` is a Python function."""

    def __init__(self, vectorized: np.vectorize):
        self.vectorized = vectorized

    def __call__(self, *args, **kwargs):
        v = self.vectorized
        if not any(isinstance(leaf, Tracer) for leaf in pytree.flatten((args, kwargs))[0]):
            return v(*args, **kwargs)
        if kwargs:
            raise UnsupportedError(f"np.vectorize(f) called with keyword arguments on traced data "
                                   f"(at {user_location()}); pass them by position")
        if not args:
            raise JitValueError("args can not be empty")
        f = CONVERT(v.pyfunc)
        arrays = np.broadcast_arrays(*(a if isinstance(a, Tracer) else np.asarray(a) for a in args))
        shape = arrays[0].shape
        if not v.otypes and 0 in shape:
            raise JitValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
        elements = tuple(np.reshape(a, (-1,)) for a in arrays)
        _, ys = cf.scan(lambda carry, xs: (carry, f(*xs)), (), xs=elements)
        leaves, tree = pytree.flatten(ys)
        if v.otypes and len(v.otypes) != len(leaves):
            raise JitValueError(f"np.vectorize: f gives {len(leaves)} outputs where otypes names "
                                f"{len(v.otypes)} (at {user_location()})")
        outs = [np.reshape(y if not v.otypes else y.astype(np.dtype(t)), shape)
                for y, t in zip(leaves, v.otypes or [None] * len(leaves), strict=True)]
        return pytree.unflatten(tree, outs) if isinstance(ys, tuple) else outs[0]
