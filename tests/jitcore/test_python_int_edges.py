"""Python ints at int64's edges (session 53): every operator on traced Python ints against
Python itself, over 0, +-1, +-2**31, +-2**53 +- 1, +-2**62, -2**63 and 2**63 - 1: the same
int, the same correctly rounded float for ``/`` (``jitcore/python_division.py``), Python's
exception where Python raises, and a JitOverflowError where Python's int leaves int64 (never a
number that wrapped around, never an error where the result fits)."""

from __future__ import annotations

import math
import operator
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import JitcoreError, JitOverflowError
from jitcore.python_division import int_true_divide
from tests.budget import examples

EDGES = [0, 1, -1, 2, -2, 3, 63, 64, 2**31, -2**31, 2**53 - 1, 2**53 + 1, -2**53 - 1, 2**62, -2**62,
         -2**63, 2**63 - 1, -2**63 + 1, 153092023, 60247241209]  # the last two: 2**63 - 1's factors
_INT64 = st.integers(-2**63, 2**63 - 1)
_VALUES = st.one_of(st.sampled_from(EDGES), _INT64, st.integers(-2**54, 2**54))


def _rshift_in_place(a, b):
    a >>= b
    return a


OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
    "%": operator.mod, "divmod": divmod, "/": operator.truediv, "<<": operator.lshift,
    ">>": lambda a, b: a >> b, ">>=": _rshift_in_place, "operator.rshift": operator.rshift,
    "**": operator.pow, "neg": lambda a, b: -a, "abs": lambda a, b: abs(a),
}


def _python(op, a, b):
    if op == "<<" and b > 64 and a != 0:
        return "error", OverflowError  # Python's answer exists (or a MemoryError) but is no int64
    try:
        out = OPS[op](a, b)
    except Exception as e:  # noqa: BLE001  (the outcome compared is the exception)
        return "error", type(e)
    if any(type(v) is int and not -2**63 <= v < 2**63 for v in (out if type(out) is tuple else (out,))):
        return "error", OverflowError
    return "value", out


def _check(op, jitted, a, b):
    kind, want = _python(op, a, b)
    try:
        got = jitted(a, b)
    except JitcoreError as e:
        assert kind == "error" and isinstance(e, want), (op, a, b, want, e)
        return
    assert kind == "value", (op, a, b, want, got)
    assert type(got) is type(want), (op, a, b, want, got)
    if type(want) is float:  # bit-exact, the sign of zero too
        assert math.copysign(1, got) == math.copysign(1, want) and got == want, (op, a, b, want, got)
    else:
        assert got == want, (op, a, b, want, got)


@pytest.mark.parametrize("op", list(OPS))
def test_int_operators_at_int64_edges_match_python(op):
    """All pairs of edges (an exponent only up to 70: Python's huge powers take long), then
    hypothesis around them, on one compile per operator."""
    jitted = jc.jit(lambda a, b: OPS[op](a, b))
    for a in EDGES:
        for b in EDGES:
            if op != "**" or 0 <= b <= 70:
                _check(op, jitted, a, b)

    @settings(max_examples=examples(60, 20), deadline=None)
    @given(a=_VALUES, b=_VALUES if op != "**" else st.integers(0, 70))
    def drawn(a, b):
        _check(op, jitted, a, b)

    drawn()


@pytest.mark.parametrize("exponent", [2, 3, 21, 63])
def test_constant_powers_at_their_limits(exponent):
    """The largest and most negative bases whose power fits, and one past each:
    ``(-2**21) ** 3`` is -2**63 and fits, ``abs(-2**63)`` is no test (it wraps)."""
    jitted = jc.jit(lambda a: a**exponent)
    top = int(round(2 ** (63 / exponent)))
    for a in {top - 2, top - 1, top, top + 1, -top - 1, -top, -top + 1, -2**63, 2**63 - 1, 2}:
        want = a**exponent
        if -2**63 <= want < 2**63:
            assert jitted(a) == want, (a, exponent)
        else:
            with pytest.raises(JitOverflowError):
                jitted(a)


def test_negative_constant_right_shift_raises_where_it_runs():
    """``int(x[i]) >> -2`` in a loop: Python's ValueError, naming the file and line, from the call."""
    def f(x):
        out = []
        for i in range(x.shape[0]):
            out.append(int(x[i]) >> -2)
        return out

    line = f.__code__.co_firstlineno + 3
    where = re.escape(f"{f.__code__.co_filename}:{line})")
    with pytest.raises(ValueError, match=f"negative shift count \\(at {where}") as raised:
        jc.jit(f)(np.array([5, 6]))
    assert isinstance(raised.value, JitcoreError)


def test_correctly_rounded_quotient_in_numpy():
    """``python_division`` on NumPy's own int64 arrays (no tracing): every pair of edges and of
    random ints of every length, with the ties of round-half-even, bit-exact against Python."""
    rng = np.random.default_rng(53)
    lengths = rng.integers(1, 64, 400)
    drawn = [int(v) for v in rng.integers(-2**62, 2**62, 400) >> (63 - lengths)]
    values = sorted(set(EDGES + drawn + [2**54 + 1, 2**54 + 3, 2**55 + 1, -(2**55 + 3)]))
    a = np.array([x for x in values for y in values if y], dtype=np.int64)
    b = np.array([y for x in values for y in values if y], dtype=np.int64)
    with np.errstate(all="ignore"):
        got = int_true_divide(a, b, lambda pred, slow, fast: np.where(pred, slow(), fast()))
    want = np.array([int(x) / int(y) for x, y in zip(a, b)])
    bad = np.flatnonzero((got != want) | (np.signbit(got) != np.signbit(want)))
    assert bad.size == 0, [(int(a[i]), int(b[i]), got[i], want[i]) for i in bad[:5]]


def test_a_64_bit_constant_says_to_use_uint64_and_that_works():
    """FNV-1a 64 with its offset as a Python int: refused with the way forward, which compiles
    and matches Python's exact ints masked to 64 bits."""
    def fnv_python(b):
        h = 14695981039346656037
        for i in range(b.shape[0]):
            h = ((h ^ int(b[i])) * 1099511628211) & (2**64 - 1)
        return h

    def fnv_uint64(b):
        h = np.uint64(14695981039346656037)
        for i in range(b.shape[0]):
            h = (h ^ np.uint64(b[i])) * np.uint64(1099511628211)
        return h

    data = np.frombuffer(b"jitcore hashes", np.uint8)
    with pytest.raises(JitOverflowError, match=r"np\.uint64\(14695981039346656037\)"):
        jc.jit(fnv_python)(data)
    with np.errstate(over="ignore"):
        assert int(jc.jit(fnv_uint64)(data)) == fnv_python(data) == int(fnv_uint64(data))
