"""Integer ``//``, ``%`` and ``np.fmod`` by a divisor every element shares (``codegen/intdiv.py``:
a magic number per call, a multiply-high per element) and by arrays of divisors, bit for bit
against NumPy: every 8-bit pair, every 16-bit dividend, the edges of 32 and 64 bits (the
extremes, zero, -1, the neighbours of powers of two and of multiples of the divisor), zero
divisors (0, as NumPy's result, without its warning) and ``MIN // -1`` (wrapping)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import target
from tests.budget import examples
from tests.strategies import arrays, elements

SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]


def divisions(x, d):
    return x // d, x % d, np.fmod(x, d)


DIVISIONS = jc.jit(divisions)


def expected(x, d):
    with np.errstate(all="ignore"):
        return divisions(x, d)


def assert_same(got, want, where):
    for name, g, w in zip(("//", "%", "fmod"), got, want):
        assert g.dtype == w.dtype, (where, name)
        bad = np.flatnonzero(g != w)
        assert bad.size == 0, (f"{where} {name}: at {bad[:4]} got {np.ravel(g)[bad[:4]]!r}, "
                               f"NumPy {np.ravel(w)[bad[:4]]!r}")


def edge_dividends(dtype, divisor: int) -> np.ndarray:
    """The extremes, small values, powers of two and their neighbours, and the multiples of
    ``divisor`` nearest each of those, with their neighbours: where a quotient changes."""
    info = np.iinfo(dtype)
    bits = info.bits - (info.min < 0)
    base = [info.min, info.max, 0, 1, 2, 3] + [s * (1 << k) + e for k in range(bits)
                                                for s in (1, -1) for e in (-1, 0, 1)]
    values = set()
    for v in base:
        values.add(v)
        if divisor:
            near = v - v % divisor
            values.update(near + e * divisor + f for e in (-1, 0, 1) for f in (-1, 0, 1))
    return np.array(sorted(v for v in values if info.min <= v <= info.max), dtype)


def edge_divisors(dtype) -> list[int]:
    info = np.iinfo(dtype)
    bits = info.bits - (info.min < 0)
    positive = {1, 2, 3, 5, 6, 7, 10, 641, info.max, info.max - 1, (info.max >> 1) + 1, (info.max >> 1) + 2}
    positive |= {(1 << k) + e for k in range(1, bits) for e in (-1, 0, 1)}
    # 64-bit divisors whose magic number's first digit is estimated 2 too large (both of
    # intdiv._wide_quotient's corrections run)
    positive |= {0x80000000C0008C1F, 0x260C2C117FF07437, 0x43F99DC67F08D9FC}
    positive = {v for v in positive if 0 < v <= info.max}
    signed = [-v for v in positive] + [info.min, info.min + 1] if info.min < 0 else []
    return [0, *sorted(positive), *signed]


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_every_8_bit_pair(dtype):
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    for d in x:
        assert_same(DIVISIONS(x, d), expected(x, d), f"{dtype} d={d}")


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_every_16_bit_dividend(dtype):
    x = np.arange(np.iinfo(dtype).min, np.iinfo(dtype).max + 1).astype(dtype)
    for d in edge_divisors(dtype):
        d = np.array(d, dtype)[()]
        assert_same(DIVISIONS(x, d), expected(x, d), f"{dtype} d={d}")


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
def test_wide_edges(dtype):
    """Each divisor against the dividends where its quotients step (repeated to one length:
    one compile)."""
    for d in edge_divisors(dtype):
        x = np.resize(edge_dividends(dtype, d), 4096)
        d = np.array(d, dtype)[()]
        assert_same(DIVISIONS(x, d), expected(x, d), f"{dtype} d={d}")


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64"])
def test_divisor_as_a_python_int_and_computed(dtype):
    """A Python-int argument (weakly typed: the array's dtype), and a divisor computed from one
    (``d + 1``: still the same at every element); one call each on 2 threads."""
    info = np.iinfo(dtype)
    x = np.random.default_rng(1).integers(info.min, info.max, 5000, dtype=dtype, endpoint=True)
    plus_one = jc.jit(lambda x, d: divisions(x, d + 1))
    with jc.config.using(num_threads=2, parallel_threshold=1000):
        for d in (-9, -1, 0, 6, 126):
            if info.min < 0 or d >= 0:
                assert_same(DIVISIONS(x, d), expected(x, d), f"{dtype} d={d}")
                want = expected(x, np.array(d, dtype) + np.array(1, dtype))
                assert_same(plus_one(x, d), want, f"{dtype} d={d}+1")


def test_constant_divisors():
    """64-bit Python-int constants in the function take the multiply-high (LLVM's own is
    scalar), a power of two LLVM's shifts."""
    constants = (7, -10, 1 << 32 | 1, -((1 << 62) + 3), -(1 << 63), (1 << 63) - 1, 1 << 40)

    def by_constants(x):
        return tuple(op(x, c) for c in constants for op in (np.floor_divide, np.remainder))

    x = edge_dividends("int64", 7)
    with np.errstate(all="ignore"):
        want = by_constants(x)
    for k, (g, w) in enumerate(zip(jc.jit(by_constants)(x), want)):
        assert g.dtype == w.dtype and np.array_equal(g, w), (constants[k // 2], k % 2)

    def unsigned(x):
        return x // 7, x % 10, x // ((1 << 64) - 1), x % ((1 << 63) + 5)

    x = edge_dividends("uint64", 7)
    for g, w in zip(jc.jit(unsigned)(x), unsigned(x)):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def every_pair(dtype) -> tuple[np.ndarray, np.ndarray]:
    """Dividends and divisors elementwise: every pair of 8-bit values; every 16-bit dividend
    against each edge divisor; the wider edge dividends of each edge divisor."""
    info = np.iinfo(dtype)
    if info.bits == 8:
        every = np.arange(info.min, info.max + 1).astype(dtype)
        return np.repeat(every, every.size), np.tile(every, every.size)
    divisors = edge_divisors(dtype)
    if info.bits == 16:
        every = np.arange(info.min, info.max + 1).astype(dtype)
        return np.tile(every, len(divisors)), np.repeat(np.array(divisors, dtype), every.size)
    dividends = [edge_dividends(dtype, d) for d in divisors]
    return (np.concatenate(dividends),
            np.concatenate([np.full(x.size, d, dtype) for x, d in zip(dividends, divisors)]))


@pytest.fixture(params=["avx512dq", "without"])
def wide_path(request, monkeypatch):
    """The jitted ``divisions`` compiled as for a CPU with AVX-512DQ (64-bit arrays:
    ``intdiv.by_reciprocal``) or without (LLVM's division per element), whatever the host has:
    the reciprocal code is right on any x86 CPU (LLVM emulates what the host lacks)."""
    isa = target.math_isa() | ({"avx512dq"} if request.param == "avx512dq" else set())
    monkeypatch.setattr(target, "kernel_isa", lambda features=None: isa)
    jitted = jc.jit(divisions, cache=False)
    jitted.path = request.param
    return jitted


@pytest.mark.parametrize("dtype", SIGNED[:3] + UNSIGNED[:3])
def test_arrays_of_divisors(dtype):
    """Elementwise divisors: a float division up to 32 bits (``intdiv.by_float``)."""
    x, y = every_pair(dtype)
    assert_same(DIVISIONS(x, y), expected(x, y), dtype)


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64_bit_arrays_of_divisors(dtype, wide_path):
    x, y = every_pair(dtype)
    assert_same(wide_path(x, y), expected(x, y), dtype)


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64_bit_arrays_of_every_magnitude(dtype, wide_path):
    """``intdiv.by_reciprocal``'s estimates are furthest off for the largest quotients and its
    corrections run most for divisors near 2**63: random bits cut to every pair of lengths
    (quotients from 0 to 2**64 - 1), and the multiples of large divisors with their
    neighbours."""
    rng = np.random.default_rng(34)
    bits = np.iinfo(dtype).bits
    lengths = np.arange(1, bits + 1)
    x_len, y_len = np.repeat(lengths, lengths.size), np.tile(lengths, lengths.size)
    draws = np.repeat(np.arange(x_len.size), 6)
    x = rng.integers(0, 2 ** 64, draws.size, dtype=np.uint64) >> (64 - x_len[draws]).astype(np.uint64)
    y = rng.integers(0, 2 ** 64, draws.size, dtype=np.uint64) >> (64 - y_len[draws]).astype(np.uint64)
    big = np.array([2 ** 62 + 1, 2 ** 63 - 25, 2 ** 63 + 7, 2 ** 64 - 3, 3 * 2 ** 61 + 5], np.uint64)
    multiples = (big[:, None] * np.arange(1, 4, dtype=np.uint64)[None, :]).ravel()
    x = np.concatenate([x, multiples - np.uint64(1), multiples, multiples + np.uint64(1)])
    y = np.concatenate([y, *[np.repeat(big, 3)] * 3])
    x, y = x.astype(dtype), y.astype(dtype)  # signed: every sign pair
    if dtype == "int64":
        signs = rng.integers(0, 4, x.size)
        x = np.where(signs & 1, -x, x)
        y = np.where(signs & 2, -y, y)
    assert_same(wide_path(x, y), expected(x, y), dtype)


def kernels_text(fn, *args) -> str:
    """The LLVM IR of the kernel functions (``..._k<n>``) of ``fn``'s plan for ``args``."""
    text = fn.lower(*args).as_text("llvm")
    return "".join(part for part in text.split("\ndefine ")[1:] if re.match(r'[^(]*_k\d+"\(', part))


def test_division_by_an_argument_is_not_a_division_per_element(wide_path):
    """The path taken: by a 0-d argument, the kernels' code (before LLVM optimises it) divides
    only to make the magic number; by a 64-bit array, through float64 reciprocals with
    AVX-512DQ, else per element; by a 32-bit one, in float64."""
    x = np.arange(100, dtype=np.int64)
    by_scalar = kernels_text(DIVISIONS, x, np.int64(7))
    assert "llvm.ctlz.i64" in by_scalar and " sdiv " not in by_scalar and " srem " not in by_scalar
    for y in (x, x.astype(np.uint64)):
        by_array = kernels_text(wide_path, y, y)
        assert ("fdiv double" in by_array) == (wide_path.path == "avx512dq")
        assert bool(re.search(r" [su](div|rem) i64", by_array)) == (wide_path.path != "avx512dq")
        assert "llvm.ctlz.i64" not in by_array
    narrow = kernels_text(DIVISIONS, x.astype(np.int32), x.astype(np.int32))
    assert "fdiv double" in narrow and " sdiv " not in narrow


@settings(max_examples=examples(40, ci=12), deadline=None)
@given(data=st.data(), dtype=st.sampled_from(SIGNED + UNSIGNED))
def test_drawn_dividends_and_divisor(data, dtype):
    x = data.draw(arrays(dtype, st.sampled_from([(0,), (), (5,), (67,), (3, 33)])))
    d = np.array(data.draw(elements(dtype)), dtype)[()]
    assert_same(DIVISIONS(x, d), expected(x, d), f"{dtype} d={d}")
