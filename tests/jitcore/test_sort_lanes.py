"""Many short lanes sorted together (codegen/cpu/sort_lanes.py): a bitonic network over rows
whose elements are lanes. The network's steps by the 0-1 principle (no compile), then the
compiled sorts against NumPy's stable sort: lane lengths around the padding's powers of two,
the block and group sizes and the stack's limit, special values (NaN bits and signs, -0.0,
infinities, integer extremes), ties for argsort, lanes along either axis through strided and
reversed views, and a last group with fewer lanes than a row holds.
"""

from __future__ import annotations

import itertools
import re

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
        if step[0] == "rows":  # each group's rows, as the code finds them from its number
            offsets, pairs, low = sort_lanes.group_rows(step[1])
            t = len(step[1])
            # the code meets these pairs for every pass of as many stages, mirror first or not
            like = [(j << 3, (j << 4) - 1 if mask != j else j << 3) for j, mask in step[1]]
            assert sort_lanes.group_rows(like)[1] == pairs
            firsts = [sort_lanes.group_first(i, low, t) for i in range(len(rows) >> t)]
            meets = [(first ^ offsets[a], first ^ offsets[c]) for first in firsts for a, c in pairs]
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
# around the padding's powers of two, a block (8 or 16 rows), a transposed group (8 or 16
# lanes), the passes of several stages (2049: 4096 rows), and the stack's limit (the rows of a
# float64 lane of 3000 are on the heap); a size-generic function compiles once per power of two
LENGTHS = [2, 3, 8, 9, 15, 16, 17, 31, 33, 63, 65, 100, 127, 129, 1000, 2047, 2049, 3000]


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


def test_lane_lengths_of_one_power_of_two_share_one_code():
    """The lane length and count are run-time values and only the padded length is a constant:
    rows of 65, 100 and 128 (and another count of them) are one compile, each NumPy's stable
    sort bit for bit; 129 pads to 256, a second compile."""
    rows = jc.jit(lambda a: (np.sort(a, axis=-1), np.argsort(a, axis=-1)))
    for lanes, n in ((11, 65), (11, 100), (23, 128), (11, 129)):
        x = _lanes(np.dtype(np.float64), lanes, n, n)
        values, order = rows(x)
        expected = np.sort(x, axis=-1, kind="stable")
        assert np.array_equal(values.view(np.uint64), expected.view(np.uint64)), (lanes, n)
        np.testing.assert_array_equal(order, np.argsort(x, axis=-1, kind="stable"))
    info = rows.cache_info()
    assert (info.traces, info.compiles) == (4, 2), info


def test_the_networks_second_buffers_take_no_memory():
    """The kernel's results other than the sorted one (the merge sort's second buffer; under
    argsort the keys too) are not used by the network: the host gives them one element each,
    so a call allocates (and faults in) its result, nothing more: an argsort's positions start
    as nothing (``fills``), with no buffer of zeros filled for them."""
    x = np.zeros((50, 100))
    for fn, lane_sized in ((lambda a: np.sort(a, axis=-1), 1), (lambda a: np.argsort(a, axis=-1), 1)):
        buffers = jc.jit(fn).lower(x).plan().buffers
        assert [shape for shape, _ in buffers if shape != ()] == [x.shape] * lane_sized, buffers


def test_short_lanes_sort_in_the_network():
    """The kernel is the network's (one group function), and a single long lane still sorts
    in the radix routine: fewer lanes than a row's group cost the network a row each."""
    text = ROWS.lower(np.zeros((9, 100))).as_text("llvm")
    assert "_network" in text and "_group" in text
    text = jc.jit(lambda a: np.sort(a)).lower(np.zeros(3000)).as_text("llvm")
    assert "_network" not in text


def test_lanes_up_to_16384_sort_and_argsort_in_the_network():
    """Lanes longer than 8192 (up to ``LANES_UP_TO``) pad to 16384 rows in the network, with
    several stages a pass: float64 (special values and NaN bits in place) and its stable
    argsort, and int32."""
    n = 8192 + 1 + 3000
    floats, ints = _lanes(np.dtype(np.float64), 9, n, 3), _lanes(np.dtype(np.int32), 17, n, 4)
    both = jc.jit(lambda a, b: (np.sort(a), np.sort(b), np.argsort(a)))
    got_floats, got_ints, order = both(floats, ints)
    text = both.lower(floats, ints).as_text("llvm")
    assert len(re.findall(r'define internal void @"[^"]*_network"', text)) == 3
    assert "jitcore_cpu_sort" not in text  # no radix routine
    expected = np.sort(floats, kind="stable")
    assert np.array_equal(got_floats.view(np.uint64), expected.view(np.uint64))
    np.testing.assert_array_equal(got_ints, np.sort(ints))
    np.testing.assert_array_equal(order, np.argsort(floats, kind="stable"))


def test_argsorts_of_lanes_of_one_write_their_positions():
    """An argsort's positions start as nothing (no zeros copied in): a lane of one must still
    write its 0. Freed buffers of -7 of the same size come first, so memory reused from them
    shows a position left unwritten."""
    f = jc.jit(lambda a: (np.argsort(a, axis=1), np.argpartition(a, 0, axis=1)))
    for rows in (600, 5000):
        for _ in range(3):
            junk = [np.full((rows, 1), -7, np.int64) for _ in range(4)]
            del junk
            for positions in f(np.ones((rows, 1))):
                np.testing.assert_array_equal(positions, np.zeros((rows, 1), np.int64))
