"""In-place operators on values that apply ufuncs themselves (session 57, user u2 W1).

``R[R > 2000] -= 0.5`` is ``t = R[mask]; t -= 0.5; R[mask] = t``: NumPy's in-place ufunc
writes ``t`` and refuses a float result for an int ``t`` (``same_kind``). A selection by a
traced mask (``x[m]``, ``x[np.nonzero(m)]``, ``x[np.flatnonzero(m)]``) or slice bound
(``x[np.argmax(x):]``), a repeat by traced
counts, an array whose dtype the data chooses and one real or complex as the data chooses are
not tracers; their in-place operators fell back to ``t - 0.5`` and the write truncated it.
``ufunc_operators.install`` now gives them NumPy's in-place operators (``written_back``).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitTypeError

R = np.array([1500, 2500, 3000, 1200])
V = np.array([0.5, 1.5, 2.5, 3.5])


# Each raises NumPy's UFuncTypeError (a TypeError); under jit the same words, at trace time.
REFUSED = {
    "mask_sub": lambda r, v: r.__setitem__(r > 2000, _isub(r[r > 2000], 0.5)),
    "mask_mul": lambda r, v: r.__setitem__(r > 2000, _imul(r[r > 2000], 1.5)),
    "mask_div": lambda r, v: r.__setitem__(r > 2000, _idiv(r[r > 2000], 2)),
    "nonzero_sub": lambda r, v: r.__setitem__(np.nonzero(r > 2000), _isub(r[np.nonzero(r > 2000)], 0.5)),
    "flatnonzero_sub": lambda r, v: r.__setitem__(
        np.flatnonzero(r > 2000), _isub(r[np.flatnonzero(r > 2000)], 0.5)
    ),
    "selection_values": lambda r, v: r.__setitem__(r > 2000, _iadd(r[r > 2000], v[r > 2000])),
    "numpy_scalar": lambda r, v: r.__setitem__(r > 2000, _isub(r[r > 2000], v[0])),
    "bool_target": lambda r, v: _iadd((r > 2000)[r > 1400], 1),
    "complex_into_float": lambda r, v: _imul(v[r > 2000], 1j),
    "repeat": lambda r, v: _isub(np.repeat(r, r // 1000 - 1), 0.5),
    "traced_slice": lambda r, v: r.__setitem__(slice(np.argmax(r), None), _imul(r[np.argmax(r) :], 2.5)),
}


def _isub(t, v):
    t -= v
    return t


def _imul(t, v):
    t *= v
    return t


def _idiv(t, v):
    t /= v
    return t


def _iadd(t, v):
    t += v
    return t


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_in_place_float_into_int_selection_raises_as_numpy(name):
    fn = REFUSED[name]
    with pytest.raises(TypeError, match="Cannot cast ufunc") as want:
        fn(R.copy(), V.copy())
    with pytest.raises(JitTypeError, match="Cannot cast ufunc") as got:
        jc.jit(fn)(R.copy(), V.copy())
    ufunc = str(want.value).split("'")[1]
    assert f"ufunc '{ufunc}' output" in str(got.value) and "same_kind" in str(got.value)


def test_statement_forms_raise_at_the_users_line():
    """The statements as users write them (autograph's augmented item assignment)."""

    def mask_isub(r):
        r[r > 2000] -= 0.5
        return r

    with pytest.raises(
        JitTypeError,
        match=r"'subtract' output from float64 to int64.*"
        r"test_in_place_casting_57.py:\d+",
    ):
        jc.jit(mask_isub)(R.copy())


def allowed(r, f32, b, v):
    """The in-place writes NumPy allows, one compile: same-kind results cast back."""
    m = r > 2000
    r[m] += 1
    r[m] //= 3
    r[np.nonzero(m)] -= np.int32(2)
    r8 = r.astype(np.int8)
    r8[m] += v.astype(np.int64)[m]  # int64 into int8: same kind, wraps
    f32[m] -= v[m]  # float64 into float32: rounds
    s = f32[m]
    s *= v[m]
    b[m] |= True
    w = np.repeat(v, m.astype(np.int64) + 1)
    w -= 0.5
    return r, r8, f32, s.sum(), s.dtype.name, b, w * np.ones(6)  # (6 rows: ties the repeat)


def test_same_kind_in_place_writes_match_numpy():
    args = (R.copy(), np.linspace(-1, 2, 4, dtype=np.float32), np.zeros(4, bool), V)
    want = allowed(*(a.copy() for a in args))
    got = jc.jit(allowed)(*(a.copy() for a in args))
    for g, w in zip(got, want):
        assert type(g) is type(w) and np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def test_dtype_the_data_chooses_raises_when_the_call_takes_the_int():
    """``a -= 0.5`` of an array of ints or floats as the data chose: NumPy raises for ints,
    so the call raises where the data takes them, and gives NumPy's floats otherwise."""

    def f(v, t):
        a = np.array([x if x > t else 0 for x in v])
        a -= 0.5
        return a

    jitted = jc.jit(f)
    np.testing.assert_array_equal(jitted(V, 2.0), f(V, 2.0))
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'subtract' output from dtype\('float64'\)"):
        f(V, 9.0)
    with pytest.raises(JitTypeError, match="Cannot cast ufunc 'subtract' output from float64 to int64"):
        jitted(V, 9.0)


def test_real_or_complex_raises_when_the_call_takes_the_real():
    def f(a):
        w = np.linalg.eigvals(a)
        w += 1j
        return w

    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    jitted = jc.jit(f)
    np.testing.assert_array_equal(jitted(rotation), f(rotation))
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' output from dtype\('complex128'\)"):
        f(np.eye(2))
    with pytest.raises(JitTypeError, match="Cannot cast ufunc 'add' output from complex128 to float64"):
        jitted(np.eye(2))
