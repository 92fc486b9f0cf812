"""Many short lanes sorted together (codegen/cpu/sort_lanes.py): a bitonic network over rows
whose elements are lanes. The network's steps by the 0-1 principle (no compile), then the
compiled sorts against NumPy's stable sort: lane lengths around the padding's powers of two,
the block and group sizes and the stack's limit, special values (NaN bits and signs, -0.0,
infinities, integer extremes), ties for argsort, lanes along either axis through strided and
reversed views, and a last group with fewer lanes than a row holds.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import sort_lanes
from jitcore.passes.kernelize import sort as sort_kernels
from tests.budget import examples
from tests.jitcore.test_sorting import assert_same_sort
from tests.strategies import specials

ROWS = jc.jit(lambda a: (np.sort(a, axis=-1), np.argsort(a, axis=-1)))


@pytest.fixture(autouse=True, scope="module")
def _networks_for_every_size():
    """The network for these tests' small sorts too (elsewhere it starts at ``NETWORK_FROM``
    elements: the loops compile faster)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sort_kernels, "NETWORK_FROM", 0)
        yield
COLUMNS = jc.jit(lambda a: (np.sort(a, axis=0), np.argsort(a, axis=0)))


def _run_network(rows: np.ndarray, block: int) -> np.ndarray:
    """``network``'s steps applied to each column of ``rows`` (padded length x inputs)."""
    rows = rows.copy()
    for step in sort_lanes.network(len(rows), block):
        if step[0] == "stage":
            meets = sort_lanes.pairs(len(rows), step[1], step[2])
        else:
            size = min(block, len(rows))
            meets = [(base + a, base + c) for base in range(0, len(rows), size) for a, c in step[1]]
        for a, c in meets:
            rows[a], rows[c] = np.minimum(rows[a], rows[c]), np.maximum(rows[a], rows[c])
    return rows


@pytest.mark.parametrize("padded", [1, 2, 4, 8, 16, 32, 128])
@pytest.mark.parametrize("block", [4, 8, 16])
def test_network_sorts_every_zero_one_input(padded, block):
    """A comparator network that sorts every 0-1 input sorts every input: all of them up to
    16 rows, 3000 drawn ones above (and inputs already sorted but for one row)."""
    if padded <= 16:
        inputs = np.array(list(itertools.product([0, 1], repeat=padded)), np.int8).T
    else:
        rng = np.random.default_rng(padded)
        inputs = (rng.random((padded, 3000)) < rng.random(3000)).astype(np.int8)
    out = _run_network(inputs, block)
    assert (np.diff(out, axis=0) >= 0).all()
    assert (out.sum(axis=0) == inputs.sum(axis=0)).all()


def _lanes(dtype: np.dtype, lanes: int, n: int, seed: int) -> np.ndarray:
    """``lanes`` x ``n`` values with ties, a third of them special values of ``dtype``."""
    rng = np.random.default_rng(seed)
    pool = specials(dtype)
    if dtype == np.bool_:
        x = rng.random((lanes, n)) < 0.5
    elif dtype.kind == "f":
        x = np.round(rng.standard_normal((lanes, n)) * 4).astype(dtype)
    else:
        x = rng.integers(-5 if dtype.kind == "i" else 0, 9, (lanes, n)).astype(dtype)
    special = rng.random((lanes, n)) < 0.3
    x[special] = np.asarray(pool, dtype)[rng.integers(0, len(pool), int(special.sum()))]
    if dtype.kind == "f":  # NaNs of either sign and another payload: their bits come back as given
        bits = x.view(np.dtype(f"u{dtype.itemsize}"))
        nan = np.isnan(x) & (rng.random((lanes, n)) < 0.5)
        bits[nan] |= np.array(1, bits.dtype) << np.array(dtype.itemsize * 8 - 1, bits.dtype)
        bits[nan] ^= np.array(1, bits.dtype)
    return x


def _check(x: np.ndarray, context: str) -> None:
    for jitted, axis in ((ROWS, -1), (COLUMNS, 0)):
        values, order = jitted(x)
        expected = np.sort(x, axis=axis, kind="stable")
        assert_same_sort(values, expected, f"{context}, axis={axis}")
        if x.dtype.kind == "f":  # the NaNs' own bits, in their input order
            width = np.dtype(f"u{x.dtype.itemsize}")
            assert np.array_equal(values.view(width), expected.view(width)), f"bits: {context}"
        np.testing.assert_array_equal(order, np.argsort(x, axis=axis, kind="stable"), context)


DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64,
                                np.float16, np.float32, np.float64)]
# around the padding's powers of two, a block (8 rows), and the stack's limit (the rows of a
# float64 lane of 3000 are on the heap)
LENGTHS = [2, 3, 8, 9, 17, 100, 1000, 2047, 3000]


@settings(max_examples=examples(8, ci=4), deadline=None)
@given(dtype=st.sampled_from(DTYPES), n=st.sampled_from(LENGTHS), lanes=st.integers(1, 19),
       seed=st.integers(0, 2**32 - 1))
def test_lanes_sort_as_numpys_stable_sort(dtype, n, lanes, seed):
    _check(_lanes(dtype, lanes, n, seed), f"{dtype}, {lanes} x {n}, seed={seed}")


def test_lanes_read_through_strided_and_reversed_views():
    """Lanes neither adjacent nor contiguous (every other column, rows reversed) take the
    scalar reads and writes, along either axis; the 3 lanes of the columns' view are a last
    group of fewer lanes than a row holds (8 of float64)."""
    x = _lanes(np.dtype(np.float64), 6, 74, 5)[::-2, ::2]
    _check(x, f"view {x.strides}")


def test_short_lanes_sort_in_the_network():
    """The kernel is the network's (one group function), and a single long lane still sorts
    in the radix routine: fewer lanes than a row's group cost the network a row each."""
    text = ROWS.lower(np.zeros((9, 100))).as_text("llvm")
    assert "_network" in text and "_group" in text
    text = jc.jit(lambda a: np.sort(a)).lower(np.zeros(3000)).as_text("llvm")
    assert "_network" not in text


def test_lanes_of_32_bit_keys_up_to_16384_sort_in_the_network():
    """Sorts of float32 and int32 lanes longer than 8192 (up to ``LANES_UP_TO_32``) pad to
    16384 rows in the network, special values and NaN bits in place; their argsort stays
    radix (and is checked too)."""
    n = sort_kernels.LANES_UP_TO + 1 + 3000
    floats, ints = _lanes(np.dtype(np.float32), 17, n, 3), _lanes(np.dtype(np.int32), 17, n, 4)
    both = jc.jit(lambda a, b: (np.sort(a), np.sort(b), np.argsort(a)))
    got_floats, got_ints, order = both(floats, ints)
    assert "_network" in both.lower(floats, ints).as_text("llvm")
    expected = np.sort(floats, kind="stable")
    assert np.array_equal(got_floats.view(np.uint32), expected.view(np.uint32))
    np.testing.assert_array_equal(got_ints, np.sort(ints))
    np.testing.assert_array_equal(order, np.argsort(floats, kind="stable"))
