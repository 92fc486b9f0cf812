"""Rows of the coverage table: functional updates (``x.at[idx].set`` / ``.add``, as in JAX)."""

from __future__ import annotations

import numpy as np

from tests.coverage.harness import Case, case_adder
from tests.coverage.indexing import decode_key, g_basic_index

CASES: list[Case] = []
case = case_adder(CASES)


def g_at(draw, family):
    (x,), params = g_basic_index(["int", "slice"])(draw, family)
    params["v"] = draw.choice([0, 1, True])
    return (x,), params


def _at_ref(op):
    def ref(x, key, v):
        y = x.copy()
        if op == "set":
            y[decode_key(key)] = v
        else:
            y[decode_key(key)] += np.asarray(v, dtype=x.dtype)
        return y
    return ref


case("x.at[idx].set(v)", "update", lambda x, key, v: x.at[decode_key(key)].set(v), g_at,
     ref=_at_ref("set"))
case("x.at[idx].add(v)", "update", lambda x, key, v: x.at[decode_key(key)].add(v), g_at,
     ref=_at_ref("add"))
