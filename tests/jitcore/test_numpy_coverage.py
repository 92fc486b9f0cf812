"""Issue #3: every NumPy function jitcore is meant to cover, against NumPy, by dtype family.

The table lives in tests/coverage/ (table.py assembles it; tools/parity_report.py runs the same
one through tests/coverage/parity_cells.py and prints the parity table). Each (function, family) is two tests:

- ``test_matches_numpy``: hypothesis draws dtypes of the family (bool; int8..int64;
  uint8..uint64; float16/32/64; complex64/128), shapes (broadcasting, 0-d, size 0), static
  parameters (axes, keys, ...), values (NaN, +-inf, -0.0, subnormals, extremes) and layouts
  (tests/layouts.py: Fortran order, negative strides, every other element, stride 0, unaligned).
  The ``ci`` profile (the default) draws the same few examples every run; for a longer random
  hunt: ``python -m pytest tests/jitcore/test_numpy_coverage.py --hypothesis-profile thorough
  --hypothesis-seed 1`` (25 times the examples, see conftest.py and tests/budget.py).
- ``test_edges_match_numpy``: the fixed edge batch (``edge_draws``), the same every run: every
  dtype of the family, the domain's special values, the shapes (), (0,), (1,) and an odd length
  past any vector width, every layout.

Each example calls the function in plain NumPy spelling under ``jit`` and on NumPy arrays, and
compares: exact for integers, bools and exact float ops, ULP bounds (tests/oracle.py
``ULP_BOUNDS``) for float math, forward error bounds (``ORDER_BOUNDS``) for float reductions
and products. Where NumPy raises, jitcore must refuse too: a ``JitTypeError``, an
``UnsupportedError`` or NumPy's own exception, never an internal error.

- Functions jitcore does not lower yet are strict xfails (raises=UnsupportedError): the suite
  turns red when they start working; then drop ``unsupported=`` from their row.
- Known bugs (``BUGS`` in the table) are strict xfails with a minimal reproducer each; drawn
  examples that hit one are left to it.
"""

from __future__ import annotations

import contextlib
import re
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from tests.budget import examples
from tests.coverage.compare import ulp
from tests.coverage.draw import FAMILIES, HypothesisDraw, RandomDraw
from tests.coverage.edges import EDGE_PLANS, LONG, edge_draws
from tests.coverage.harness import check_same, run_case
from tests.coverage.table import BUGS, CASES
from tests.oracle import assert_matches, ulp_bound
from tests.special_reach import features


def _id(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z_.@+*>=<-]+", "_", text).strip("_")


@contextlib.contextmanager
def short_traceback():
    """Re-raise an expected failure without its deep traceback: pytest renders the traceback of
    every xfail, and through jitcore's stack that costs ~0.4 s a test."""
    try:
        yield
    except Exception as e:
        try:
            short = type(e)(str(e))
        except Exception:  # noqa: BLE001  (an exception type with other arguments)
            raise e from None
        raise short from None


SUPPORTED, NOT_LOWERED = [], []
for _case in CASES:
    for _family in FAMILIES:
        if _family in _case.unsupported:
            NOT_LOWERED.append(pytest.param(_case, _family, id=f"{_id(_case.name)}-{_family}", marks=(
                pytest.mark.xfail(strict=True, raises=_case.raises, reason=_case.reason))))
        else:
            SUPPORTED.append(pytest.param(_case, _family, id=f"{_id(_case.name)}-{_family}"))

# Few examples: each new signature compiles (~10-40 ms); shapes come from small pools so that
# repeated signatures hit each case's cache. The edge batch below covers the edges every run
# (every dtype of the family, the specials, (), (0,), (1,), a long odd length, every layout), so
# CI draws 3 (about a fifth of the suite's time went to the other 3); the full profile draws 6.
QUICK = settings(max_examples=examples(6, ci=3), deadline=None)


@pytest.mark.parametrize("case, family", SUPPORTED)
@QUICK
@given(data=st.data())
def test_matches_numpy(case, family, data):
    run_case(case, *case.gen(HypothesisDraw(data), family))


@pytest.mark.parametrize("case, family", SUPPORTED)
def test_edges_match_numpy(case, family):
    for draw in edge_draws(case.name, family):
        arrays, params = case.gen(draw, family)
        try:
            run_case(case, arrays, params)
        except AssertionError as e:
            raise AssertionError(f"{draw!r}: {e}") from None
        except Exception as e:  # noqa: BLE001  (a crash: say which example)
            raise AssertionError(f"{draw!r}: {type(e).__name__}: {e}") from e


@pytest.mark.parametrize("case, family", NOT_LOWERED)
def test_matches_numpy_not_lowered_yet(case, family):
    # Written as it should pass; strict xfail until jitcore lowers the function. Seeded cases
    # (tools/parity_report.py's) rather than hypothesis: an xfail must fail on every run.
    with short_traceback():
        for i in range(8):
            run_case(case, *case.gen(RandomDraw(zlib.crc32(f"{case.name}/{family}/{i}".encode())), family))


if BUGS:  # (an empty parametrization would show as a skip)
    @pytest.mark.parametrize("bug", [
        pytest.param(b, id=_id(b.name),
                     marks=pytest.mark.xfail(strict=True, raises=b.raises, reason=b.reason))
        for b in BUGS])
    def test_known_bug(bug):
        with short_traceback():
            bug.repro()


# What the edge batch must hand to every row, checked without compiling anything: every dtype of
# the family, the layouts, for float rows the specials, for integer rows min and max; rows whose
# shapes are drawn as elementwise or reduction operands also the shapes of the family's plans
# ((), (0,), (1,) and one of length LONG; indexing rows need an axis, shape and product rows
# derive their shapes from their parameters) and an unaligned array (where its 0-d, size-1 or
# long array has items of more than one byte).
SHAPED_GROUPS = ("arithmetic", "comparison", "logical", "bitwise", "float math", "reduction",
                 "ufunc.reduce", "creation")
# x.astype(dtype) replaces NaN and inf by 0 where it converts to an integer (undefined in C).
NO_FLOAT_SPECIALS = ("x.astype(dtype)",)


def _edge_reach(case, family) -> tuple[set, set]:
    seen, dtypes = set(), set()
    for draw in edge_draws(case.name, family):
        arrays, _ = case.gen(draw, family)
        for a in arrays:
            dtypes.add(a.dtype)
            seen |= features(a)
            if a.ndim and max(a.shape) >= LONG:
                seen.add("long")
            if a.ndim and a.size == 1:
                seen.add("size 1")
    return seen, dtypes


# Rows whose generators cannot reach every edge, row -> family -> the edges missed, each for a
# reason of the function's own: np.convolve, np.correlate, np.meshgrid and np.bincount take 1-d
# arrays (no Fortran-only layout); bincount takes no negative value (int min) and no value past
# its static minlength (int max); np.around of an integer with decimals < 0 goes through float64
# and back, undefined in NumPy near the dtype's limits. The test below holds the list exact, so
# no new gap slips in and a widened generator must strike its entry.
_ONE_D = {family: ("Fortran-only",) for family in ("bool", "signed", "unsigned", "float", "complex")}
EDGE_GAPS = {
    'np.bincount(x, weights, minlength)': {**_ONE_D, 'signed': ('Fortran-only', 'int min', 'int max'),
                                           'unsigned': ('Fortran-only', 'int max')},
    'np.meshgrid(*xi, indexing, sparse)': _ONE_D,
    'np.convolve(a, v, mode)': _ONE_D,
    'np.correlate(a, v, mode)': _ONE_D,
    'np.around(x, decimals)': {'signed': ('int min', 'int max')},
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_the_edge_batch_reaches_the_edges(family):
    wanted = ["Fortran-only", "negative stride", "stride 0"]
    wanted += {"float": ["nan", "+inf", "-inf", "-0.0", "subnormal"],
               "signed": ["int min", "int max"], "unsigned": ["int min", "int max"]}.get(family, [])
    gaps = []
    for case in CASES:
        if family in case.unsupported:
            continue
        seen, dtypes = _edge_reach(case, family)
        missing = [str(d) for d in FAMILIES[family] if d not in dtypes]
        missing += [w for w in wanted if w not in seen
                    and not (case.name in NO_FLOAT_SPECIALS and w in ("nan", "+inf", "-inf"))]
        if case.group in SHAPED_GROUPS:
            missing += [w for w in EDGE_PLANS[family] if w != "multi" and w not in seen]
            if family != "bool" and "unaligned" not in seen:  # one-byte items are always aligned
                missing.append("unaligned")
        known = EDGE_GAPS.get(case.name, {}).get(family, ())
        if tuple(missing) != known:
            gaps.append((case.name, missing, "listed in EDGE_GAPS:", list(known)))
    assert not gaps, gaps


def test_every_function_of_issue_3_has_a_row():
    names = " ".join(c.name for c in CASES)
    wanted = """exp exp2 expm1 log log2 log10 log1p sqrt cbrt square reciprocal sin cos tan arcsin arccos
        arctan arctan2 sinh cosh tanh arcsinh arccosh arctanh hypot floor ceil trunc rint sign clip
        isnan isinf isfinite logaddexp power sum prod mean var std min max argmin argmax any all cumsum
        cumprod reshape ravel transpose swapaxes moveaxis squeeze expand_dims broadcast_to concatenate
        stack hstack vstack split roll flip tile repeat pad where select outer dot matmul @ tensordot
        einsum zeros ones full empty arange linspace eye zeros_like ones_like full_like empty_like
        astype .T .shape .ndim .dtype .size .at add.reduce mask None ... ::-1""".split()
    missing = [w for w in wanted if w not in names]
    assert not missing, missing
    for uf in (np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.remainder, np.fmod,
               np.divmod, np.power, np.float_power, np.negative, np.positive, np.absolute, np.fabs,
               np.heaviside, np.gcd, np.lcm, np.maximum, np.minimum, np.fmax, np.fmin, np.equal,
               np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal, np.logical_and,
               np.logical_or, np.logical_xor, np.logical_not, np.bitwise_and, np.bitwise_or,
               np.bitwise_xor, np.invert, np.left_shift, np.right_shift, np.bitwise_count):
        assert f"np.{uf.__name__}(" in names, uf.__name__


def test_the_generators_are_deterministic():
    # tools/parity_report.py relies on it: one seed, one case.
    for case in CASES[::7]:
        a = case.gen(RandomDraw(7), "float")
        b = case.gen(RandomDraw(7), "float")
        assert repr(a) == repr(b), case.name


# -- differences from NumPy, as docs/numpy_support.md states them -----------------------------------
def test_negative_integer_powers_raise_numpys_error():
    # newuser37: NumPy raises for the data, and so does the compiled call (it computed a
    # defined value before: 1 / a for a = +-1, else 0)
    a = np.array([1, -1, -1, 2, 0, 5], dtype=np.int32)
    b = np.array([-3, -3, -2, -1, 2, 0], dtype=np.int32)
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(a, b)
    with pytest.raises(jc.JitValueError, match="negative integer powers"):
        jc.jit(np.power)(a, b)
    np.testing.assert_array_equal(jc.jit(np.power)(a, np.abs(b)), np.power(a, np.abs(b)), strict=True)


def test_integer_reciprocal_is_refused():
    with pytest.raises(jc.UnsupportedError, match="1 / x"):
        jc.jit(np.reciprocal)(np.array([1, 2, 3]))


def test_trig_of_huge_arguments_is_within_its_ulp_bound():
    # Beyond 2**17 (float32) or 2**43 (float64) the vector reduction loses the quadrant; codegen
    # recomputes those kernels with libm, so sin/cos/tan stay within their bounds there too.
    x = np.array([2.0**17 + 3, 71476.5, 2.0**43 + 3, -1e15, 1e22, 1e300, 2.0**1000, 0.5, 3e38])
    for fn in (np.sin, np.cos, np.tan):
        for dtype in (np.float32, np.float64):
            with np.errstate(all="ignore"):
                v = x.astype(dtype)
                want = fn(v)
            assert_matches(jc.jit(fn)(v), want, ulp_bound(fn.__name__, dtype), f"{fn.__name__} {dtype}")


def test_float_sums_are_close_to_numpy_pairwise():
    # A float sum over the innermost dim runs in 16 (float64: 8) partial sums combined pairwise,
    # NumPy's in blocks of 128 (8 partial sums) combined pairwise: on 10**5 normal numbers the
    # two differ by ~1e-8 (float32) of sum(|x|).
    x = np.random.default_rng(0).standard_normal(100_000)
    for dtype, bound in ((np.float32, 1e-6), (np.float64, 1e-14)):
        v = x.astype(dtype)
        got, want = jc.jit(np.sum)(v), np.sum(v)
        assert abs(float(got) - float(want)) <= bound * float(np.sum(np.abs(v)))


def test_float16_variance_is_computed_in_float16_as_numpy_does():
    # NumPy computes float16 var/std in float16 (the mean's sum, deviations, squares, their sum),
    # so 5000 values near 100 overflow to inf; so does jitcore since session 55 (before, it
    # computed in float32 and rounded once: not NumPy's answer).
    x = (np.random.default_rng(0).standard_normal(5000) * 3 + 100).astype(np.float16)
    with np.errstate(over="ignore"):
        want = np.var(x)
    assert np.isinf(want)
    got = jc.jit(np.var)(x)
    assert got.dtype == np.float16 and np.isinf(got) and got > 0


def test_reductions_return_numpy_scalars_like_numpy():
    x = np.arange(6.0).reshape(2, 3)
    for fn in (np.sum, np.max, np.mean, np.std, lambda v: v[0, 0] * 1):
        got, want = jc.jit(fn)(x), fn(x)
        assert type(got) is type(want), (got, want)


def test_static_python_ints_returned_from_jit_stay_python_ints():
    x = np.zeros((2, 3))
    got = jc.jit(lambda v: (v.shape, v.ndim, v.size))(x)
    assert got == ((2, 3), 2, 6)
    assert type(got[1]) is int and type(got[0][0]) is int  # as NumPy gives them


def test_empty_is_zeros_under_jit():
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(jc.jit(lambda v: np.empty_like(v))(x), np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("fn", [
    lambda v: len(v[v > 2]),
    lambda v: len(np.where(v > 2)[0]),
    lambda v: np.nonzero(v)[0].shape[0],
    lambda v: np.argwhere(v).shape[0],
])
def test_data_dependent_lengths_used_inside_are_their_counts(fn):
    # refused until session 47: the length of a selection is the mask's count (a Python int)
    got, want = jc.jit(fn)(np.arange(5.0)), fn(np.arange(5.0))
    assert type(got) is type(want) and got == want


@pytest.mark.parametrize("fn, written", [
    # (their slices compile since session 51: a reshape to a static shape still needs the length)
    (lambda v: v[v > 2][1:].reshape(1, -1), "[mask]"),
    (lambda v: np.flatnonzero(v)[1:].reshape(1, -1), "np.flatnonzero(...)"),
])
def test_data_dependent_lengths_used_inside_raise_a_clear_error(fn, written):
    # Returned, these compile (tests/test_data_dependent_length.py); a use that needs their length
    # as a shape inside the function gets a clear error: a JitTypeError that says why, names what
    # the user wrote and what to use instead.
    with pytest.raises(jc.JitTypeError) as info:
        jc.jit(fn)(np.arange(5.0))
    message = str(info.value)
    assert "depends on the data" in message and written in message and "instead" in message, message


def test_float_math_at_special_values():
    # Every float function at the special values, in all three float dtypes: the whole list (15
    # values, odd) and, in turn by function, 1, 2 or 3 of them, which only a remainder loop (or
    # a scalar path) reads.
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30, 1e30,
                         np.finfo(np.float64).max, np.finfo(np.float64).tiny, 5e-324])
    names = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
             "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
             "arctanh", "arctan2", "hypot", "logaddexp", "power"]
    for dtype in (np.float32, np.float64, np.float16):
        with np.errstate(all="ignore"):
            v = specials.astype(dtype)
        for i, name in enumerate(names):
            n = 1 + i % 3
            short = v[(5 * i) % (v.size - n):][:n]
            tol = ulp("pow" if name == "power" else name)
            for x in (v, short):
                binary = name in ("arctan2", "hypot", "logaddexp", "power")
                check_same(getattr(np, name), *((x, x[::-1].copy()) if binary else (x,)), tol=tol)

