"""Large position tables traced as ramps (``jitcore/position_tables.py``, session 55): the first
call at a large size compiles no constant of that size, and the results are NumPy's bits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore import ir
from jitcore import position_tables as pt
from jitcore.ir.parser import parse_module
from tests.budget import examples

N = 5000  # a table of this many elements or more is a ramp (pt.MIN_ELEMENTS below it)
M = 80  # a square of M * M elements: eye, tri


def _arange_steps(x):
    return x + np.arange(3, 3 + 2 * x.shape[0], 2)


# name -> (function, argument size): each table is built by NumPy while tracing
PROGRAMS = {
    "arange": (lambda x: x + np.arange(x.shape[0]), N),
    "arange_steps": (_arange_steps, N),
    "arange_float": (lambda x: x * np.arange(x.shape[0], dtype=np.float32), N),
    "arange_int8_wraps": (lambda x: x + np.arange(x.shape[0], dtype=np.int8), N),
    "reversed_gather": (lambda x: x[np.arange(x.shape[0])[::-1]], N),
    "strided_gather": (lambda x: x[np.arange(x.shape[0] - 1, -1, -3)], N),
    "cumsum_ones": (lambda x: x + np.cumsum(np.ones(x.shape[0])), N),
    "linspace": (lambda x: x * np.linspace(-2.5, 7.0, x.shape[0]), N),
    "indices": (lambda x: x.reshape(50, -1) * np.indices((50, x.shape[0] // 50))[1], N),
    "eye": (lambda x: (np.eye(x.shape[0]) * x).sum(axis=1), M),
    "eye_k": (lambda x: x * np.eye(x.shape[0], k=-2), M),
    "tri": (lambda x: np.tri(x.shape[0], dtype=np.float32) * x, M),
    "not_eye": (lambda x: (1 - np.eye(x.shape[0], dtype=np.int32)) * x, M),
    "triu_mask": (lambda x: np.where(np.triu(np.ones((x.shape[0], x.shape[0]), bool), 3), x, -x), M),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_large_table_is_no_constant_and_the_result_is_numpys(name):
    fn, n = PROGRAMS[name]
    x = np.random.default_rng(5).standard_normal(n)
    jitted = jc.jit(fn)
    got, want = jitted(x), fn(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))
    lowered = jitted.lower(x)
    plan = lowered.plan()
    largest = max((c.size for c in plan.constants), default=0)
    assert largest < M * M // 2, f"{name}: a constant of {largest} elements"
    optimized = lowered.optimized()
    assert all(op.value.array.size < M * M // 2 for op in optimized.walk() if op.op_name == "array.constant")
    if name.endswith("gather"):  # positions proved in range (effects._bounds of a ramp): no check
        text = ir.print_op(optimized)
        assert "raise" not in text and "check_index" not in text


def test_a_new_size_reuses_the_program_and_its_code():
    fn = PROGRAMS["arange"][0]
    jitted = jc.jit(fn)
    for n in (N, N + 7):
        x = np.arange(n, dtype=np.float64)
        assert np.array_equal(jitted(x), fn(x))
    info = jitted.cache_info()
    assert info.compiles == 1 and info.resized == 1 and info.reused == 1


def _near_ramp(n):
    t = np.arange(n)
    t[n // 2] += 1  # one element off the ramp
    return t


def _signed_ramp(n):
    t = np.arange(n, dtype=np.float64)
    t[0] = -0.0  # a ramp's bits but one: -0.0 is not 0.0
    return t


def _short_ramp(n):
    return np.arange(pt.MIN_ELEMENTS - 1)


@pytest.mark.parametrize("table", [_near_ramp, _signed_ramp, _short_ramp])
def test_small_and_unrecognised_tables_stay_constants(table):
    def fn(x):
        t = table(x.shape[0])
        return x[: t.shape[0]] + t

    x = np.linspace(0, 1, N)
    jitted = jc.jit(fn)
    assert np.array_equal(jitted(x).view(np.uint64), fn(x).view(np.uint64))
    optimized = jitted.lower(x).optimized()
    sizes = [op.value.array.size for op in optimized.walk() if op.op_name == "array.constant"]
    assert table(N).size in sizes


def test_iota_prints_and_parses_back():
    x = np.ones(N)
    text = ir.print_op(jc.make_ir(PROGRAMS["arange"][0])(x))
    assert '"array.iota"() {dimension = 0} : () -> tensor<5000xi64>' in text
    assert ir.print_op(parse_module(text)) == text


@settings(max_examples=examples(60, 25), deadline=None)
@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=3),
    st.integers(-1000, 1000),
    st.lists(st.integers(-9, 9), min_size=3, max_size=3),
    st.sampled_from(["int8", "int32", "int64", "uint16", "float32", "float64"]),
    st.booleans(),
)
def test_affine_tables_are_recognised_by_their_bits(shape, c0, steps, dtype, perturb):
    grid = np.indices(shape, dtype=np.int64)
    exact = c0 + sum(s * g for s, g in zip(steps, grid))
    table = exact.astype(dtype)
    if perturb:
        flat = table.reshape(-1)
        flat[flat.size // 2] += 1
    form = pt._affine(table)
    if form is None:  # refused: the table is not a ramp's bits (or wrapped in its dtype)
        assert perturb or not np.array_equal(table.astype(np.int64), exact)
        return
    c, found = form
    rebuilt = (c + sum(s * g for s, g in zip(found, grid))).astype(dtype)
    assert np.array_equal(rebuilt.view(f"u{table.itemsize}"), table.view(f"u{table.itemsize}"))


def _written_after_use(x):
    t = np.arange(x.shape[0])
    y = x + t
    t[0] = 100  # NumPy writes the table after its first use: the second reads the new value
    return y + t


def test_a_table_written_after_its_first_use_is_read_anew():
    x = np.ones(N)
    assert np.array_equal(jc.jit(_written_after_use)(x), _written_after_use(x))
