"""Short lanes sorted alone as columns of vectors (``codegen/cpu/sort_short.py``): a 1-d sort or
argsort of ``ALONE_FROM`` .. ``ALONE_UP_TO`` elements and fewer lanes than a network group,
against NumPy's stable sort: every real dtype, NaN of both signs, +-inf, -0.0 and 0.0, ties,
lengths on both sides of every power of two the padding rounds to, strided and reversed lanes,
lanes along axis 0; one code for every length. The network itself is checked as a model first
(which stages, in which order), without compiling.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import sort_short
from jitcore.codegen.cpu.sort_lanes import ALONE_UP_TO, cleaners, group_size, network, pairs
from jitcore.passes.kernelize.sort import ALONE_FROM
from tests.budget import examples
from tests.jitcore.test_sorting import DTYPES, _special_lane, assert_same_sort

BOTH = jc.jit(lambda a: (np.sort(a), np.argsort(a)))
ALONG_0 = jc.jit(lambda a: (np.sort(a, axis=0), np.argsort(a, axis=0)))


def _rows_step(rows: list, step) -> None:
    """A ``sort_lanes.network`` step on model rows (lists of keys, one a column): each pair met
    column by column, the smaller to the first row."""
    kind, meets = step
    if kind == "block":
        size = max(max(a, b) for a, b in meets) + 1
        for first in range(0, len(rows), size):
            for a, b in meets:
                _meet_rows(rows, first + a, first + b)
    else:
        for j, mask in meets:
            for a, b in pairs(len(rows), j, mask):
                _meet_rows(rows, a, b)


def _meet_rows(rows: list, a: int, b: int) -> None:
    for c in range(len(rows[a])):
        rows[a][c], rows[b][c] = min(rows[a][c], rows[b][c]), max(rows[a][c], rows[b][c])


def _model_sort(keys: list, g: int, block: int) -> list:
    """``sort_short``'s network on a lane of ``len(keys)`` (a power of two of at least ``g``
    blocks) as the code runs it: element ``e`` in row ``e % R``, column ``e // R``."""
    size = len(keys)
    rows_n = size // g
    rows = [[keys[c * rows_n + r] for c in range(g)] for r in range(rows_n)]
    for step in network(block, block):
        _rows_step(rows, step)
    last = cleaners(block)
    for merge in sort_short.row_merges(rows_n, block):
        for stage in merge:
            _rows_step(rows, ("rows", [stage]))
        for step in last:
            _rows_step(rows, step)
    for mirror, lane_halves in sort_short.column_merges(g):
        upper = (mirror + 1) // 2
        for r in range(rows_n // 2):
            a, b = rows[r], rows[rows_n - 1 - r]
            for c in range(g):
                if not c & upper:
                    a[c], b[c ^ mirror] = min(a[c], b[c ^ mirror]), max(a[c], b[c ^ mirror])
                else:
                    b[c ^ mirror], a[c] = min(a[c], b[c ^ mirror]), max(a[c], b[c ^ mirror])
            for h in lane_halves:
                for row in (a, b):
                    for c in range(g):
                        if not c & h:
                            row[c], row[c ^ h] = min(row[c], row[c ^ h]), max(row[c], row[c ^ h])
        for j in [rows_n >> e for e in range(1, rows_n.bit_length()) if rows_n >> e >= block]:
            _rows_step(rows, ("rows", [(j, j)]))
        for step in last:
            _rows_step(rows, step)
    return [rows[e % rows_n][e // rows_n] for e in range(size)]


@pytest.mark.parametrize(("g", "block"), [(8, 16), (8, 8), (16, 16), (16, 8)])
def test_the_columns_network_sorts_every_input(g, block):
    """The model of the stages the code runs sorts random keys with many ties and, by the 0-1
    principle's samples, random 0-1 inputs, at every size from the least to 16 columns' worth."""
    rng = np.random.default_rng(g * block)
    size = sort_short.least_size(g, block)
    while size <= 4 * sort_short.least_size(g, block):
        for trial in range(12):
            keys = (rng.integers(0, 2, size) if trial % 2 else rng.integers(0, size // 3, size)).tolist()
            assert _model_sort(keys, g, block) == sorted(keys), (g, block, size, trial)
        size *= 2


def test_the_model_sorts_in_the_stages_the_code_counts():
    """``row_merges`` holds the network's stages rows a block or more apart, merge by merge:
    the stages of ``sort_lanes.network`` over the same rows, one a pass."""
    for rows, block in [(16, 16), (64, 16), (256, 8)]:
        apart = [s for kind, meets in network(rows, block) if kind == "rows" for s in meets]
        assert [s for merge in sort_short.row_merges(rows, block) for s in merge] == apart


LENGTHS = [ALONE_FROM, 63, 64, 65, 100, 127, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 2047]
SOME_LENGTHS = [ALONE_FROM, 1025]  # two paddings: a new length is a new trace (about 0.2 s CPU)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_short_lanes_alone_match_numpy_stable_one_code(dtype):
    """Lengths of several paddings in one jitted sort+argsort (every length class for float64
    and int32): NumPy's stable order, one compile (the padded length is computed when the code
    runs)."""
    both = jc.jit(lambda a: (np.sort(a), np.argsort(a)))
    rng = np.random.default_rng(7)
    for n in LENGTHS if dtype in (np.float64, np.int32) else SOME_LENGTHS:
        x = _special_lane(dtype, n, rng)
        values, order = both(x)
        assert_same_sort(values, np.sort(x, kind="stable"), f"{dtype}, n={n}")
        np.testing.assert_array_equal(order, np.argsort(x, kind="stable"), f"{dtype}, n={n}")
    assert both.cache_info().compiles == 1, both.cache_info()


@pytest.mark.parametrize("dtype", [np.float64, np.int16], ids=str)
def test_short_lanes_alone_in_other_layouts(dtype):
    """Reversed and strided lanes (read and written element by element), three lanes of a
    2-d array."""
    x = _special_lane(np.dtype(dtype), 700, np.random.default_rng(11))
    for view in (x[::-1], x[::3], np.tile(x, (3, 1))):
        values, order = BOTH(view)
        assert_same_sort(values, np.sort(view, kind="stable"), f"{dtype} view {view.strides}")
        np.testing.assert_array_equal(order, np.argsort(view, kind="stable"))


def test_few_lanes_along_axis_0_and_the_longest_alone():
    """Lanes along axis 0 (each lane strided), fewer than a group; the longest lanes the network
    takes (scratch from malloc rather than the stack)."""
    rng = np.random.default_rng(3)
    x = _special_lane(np.dtype(np.float64), 3 * 300, rng).reshape(300, 3)
    values, order = ALONG_0(x)
    assert_same_sort(values, np.sort(x, axis=0, kind="stable"), "axis 0")
    np.testing.assert_array_equal(order, np.argsort(x, axis=0, kind="stable"))
    for n in (ALONE_UP_TO[True, True] - 5, 1500):
        y = _special_lane(np.dtype(np.float64), n, rng)[None, :]
        values, order = BOTH(y)
        assert_same_sort(values, np.sort(y, kind="stable"), f"n={n}")
        np.testing.assert_array_equal(order, np.argsort(y, kind="stable"))


def test_a_lane_alone_takes_the_columns_code():
    """A 1-d sort of ``ALONE_FROM`` elements is the columns' code (its functions are in the
    module), one below is the kernel's loops; a group's worth of lanes is ``sort_lanes``'."""
    def llvm(x):
        return jc.jit(lambda a: np.sort(a, axis=-1)).lower(x).as_text("llvm")
    assert "_across" in llvm(np.zeros(ALONE_FROM))
    assert "_across" not in llvm(np.zeros(ALONE_FROM - 1))
    assert "_across" not in llvm(np.zeros((group_size(64), 100)))


POOL = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, 1e300, -1e-300, 5e-324]


@settings(max_examples=examples(40, ci=8), deadline=None)  # CI: each length traces anew
@given(n=st.integers(ALONE_FROM, 1200), seed=st.integers(0, 2**32 - 1),
       dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32]), spread=st.sampled_from([3, 1000]))
def test_short_lanes_alone_hypothesis(n, seed, dtype, spread):
    """Any length of the path, values drawn from the special pool or a few (ties) or many."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        with np.errstate(over="ignore"):  # 1e300 as float32: inf
            x = np.where(rng.random(n) < 0.3, rng.choice(POOL, n), rng.integers(-spread, spread, n))
            x = x.astype(dtype)
    else:
        info = np.iinfo(dtype)
        x = rng.integers(-spread, spread, n).astype(dtype)
        x[rng.random(n) < 0.05] = info.max
        x[rng.random(n) < 0.05] = info.min
    values, order = BOTH(x)
    assert_same_sort(values, np.sort(x, kind="stable"), f"n={n}")
    np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))
