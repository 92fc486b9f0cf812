"""Draws whose parameters NumPy refuses are checked when they run (session 55, u3 R2).

``rng.integers(0, i)`` in the branch of a traced ``if`` (a Hoppe urn: never reached at i = 0)
was refused while tracing ("NumPy refuses the stand-ins ... (high <= 0) ... pass the parameters
as static"), because the loop's first step ran in Python with i = 0. NumPy raises only where the
draw runs: so does the compiled code now, with NumPy's error. NumPy running the same Python on
an equally seeded generator is the oracle (values, the generator's state after, errors)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.jit_once import jit_once


def hoppe(n, theta, lam, rng):
    labels = np.zeros(n, dtype=np.int64)
    extra = np.zeros(n)
    k = 0
    for i in range(n):
        if rng.random() < theta / (theta + i):
            labels[i] = k
            k += 1
        else:
            labels[i] = labels[rng.integers(0, i)]
            extra[i] = rng.poisson(lam) + rng.binomial(i, 0.3)  # lam < 0: NumPy's error here
    return k, labels, extra


def static_bounds(flag, rng):
    if flag > 0:  # (5, 2): refused by NumPy, only where the branch runs
        return rng.integers(5, 2)
    return rng.integers(2, 5)


def outcome(f, *args):
    rng = np.random.default_rng(7)
    try:
        out = f(*args, rng)
    except ValueError as e:
        return ("raised", str(e)), rng.bit_generator.state
    return out, rng.bit_generator.state


@pytest.mark.parametrize("args", [(40, 2.0, 1.5), (40, 2.0, -1.0), (1, 2.0, -1.0), (40, 1e9, -1.0)])
def test_hoppe_urn_draws_as_numpy(args):
    want, want_state = outcome(hoppe, *args)
    got, got_state = outcome(jit_once(hoppe), *args)
    assert got_state == want_state
    if want[0] == "raised":
        assert got == want
        return
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:]):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("flag", [0, 1])
def test_static_bounds_refused_only_where_drawn(flag):
    want, want_state = outcome(static_bounds, flag)
    got, got_state = outcome(jit_once(static_bounds), flag)
    assert got == want and type(got) is type(want) and got_state == want_state
