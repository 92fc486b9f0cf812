"""A traced Python int stepped by a constant (``int(x[0]) - 1``, ``1 - n``, ``n += 3``) is
Python's exact int or a JitOverflowError where that leaves int64 (session 55; it wrapped
around before: ``int(x[0]) - 1`` of -2**63 gave 2**63 - 1). A loop's counter (``count += 1``
on the loop's carry, also in a branch of its body) stays unchecked, so counting loops keep
their speed (docs/numpy_support.md)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitOverflowError
from jitcore.ir.dialects import kernel
from tests.budget import examples
from tests.jit_once import jit_once

EDGES = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    -3,
    2**62,
    -(2**62),
    -(2**63),
    -(2**63) + 1,
    -(2**63) + 2,
    2**63 - 1,
    2**63 - 2,
    2**63 - 4,
    1 - 2**62,
]


def steps(x, k):
    a = int(x[0])
    if k == 0:
        r = a + 1
    elif k == 1:
        r = a - 1
    elif k == 2:
        r = 1 - a
    elif k == 3:
        r = -1 + a
    elif k == 4:
        r = a + 2**62
    elif k == 5:
        r = a - -(2**63)
    elif k == 6:
        r = (2**63 - 1) - a
    elif k == 7:
        r = -(2**63) - a
    else:
        r = a
        r -= 3
    return r


def _python(a: int, k: int):
    out = steps(np.array([a]), k)
    return out if -(2**63) <= out < 2**63 else OverflowError


def _check(jitted, a, k):
    want = _python(a, k)
    if want is OverflowError:
        try:
            jitted(np.array([a]), k)
        except JitOverflowError:
            return
        raise AssertionError(f"no overflow for step {k} of {a}")
    got = jitted(np.array([a]), k)
    assert type(got) is int and got == want, (a, k, got, want)


def test_constant_steps_at_int64_edges_match_python():
    jitted = jit_once(steps)
    for a in EDGES:
        for k in range(9):
            _check(jitted, a, k)

    @settings(max_examples=examples(60, 20), deadline=None)
    @given(a=st.one_of(st.sampled_from(EDGES), st.integers(-(2**63), 2**63 - 1)), k=st.integers(0, 8))
    def drawn(a, k):
        _check(jitted, a, k)

    drawn()


def test_a_loop_counter_is_not_checked_and_a_step_of_int_is():
    """The counter under a data test compiles with no overflow test (its loop vectorizes); the
    step of ``int(x[0])`` before it has one."""

    def count_positive(x):
        count = int(x[0]) - 1
        for i in range(x.shape[0]):
            if x[i] > 0:
                count += 1
        return count

    x = np.arange(-50, 150)  # (long enough to stay a loop, not copies of its body)
    jitted = jc.jit(count_positive)
    assert jitted(x) == count_positive(x)
    text = jitted.lower(x).as_text("optimized")
    assert text.count(f"code = {kernel.INT_OVERFLOW}") == 1 and '"scf.for"' in text, text
