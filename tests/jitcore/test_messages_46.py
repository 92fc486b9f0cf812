"""Session 46's messages and small gaps, each against plain Python + NumPy: math.gcd/lcm of
traced ints, int() of a large uint64, the *args advice, a traced conditional expression's
untaken arm, a branch that makes an int of a float, draws in loops that break, list and
draw wording, and np.roots with a leading zero."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitcoreError


def _raises(fn, *args, match: str):
    with pytest.raises(JitcoreError, match=match) as info:
        jc.jit(fn)(*args)
    return info.value


# -- int() of a uint64 at or past 2**63 ------------------------------------------------------
def _int_first(x):
    return int(x[0])


def _int_sum(x):
    return int(x.sum())


def test_int_of_large_uint64_names_the_uint64():
    big = np.array([2**63 + 5], dtype=np.uint64)
    assert _int_first(big) == 2**63 + 5  # Python: exact; compiled code has int64 only
    error = _raises(_int_first, big, match=r"int\(\) of a uint64 at or past 2\*\*63")
    assert isinstance(error, OverflowError)
    assert "float" not in str(error).split(".")[0]
    _raises(_int_sum, np.array([2**62, 2**62], dtype=np.uint64), match="uint64")


def test_int_of_small_uint64_is_python_int():
    small = np.array([5, 2**63 - 1], dtype=np.uint64)
    for fn in (_int_first,):
        got = jc.jit(fn)(small)
        assert got == fn(small) and type(got) is int
