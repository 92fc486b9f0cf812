"""Session 56: the quicksort's modules cheap to compile (``codegen/cpu/sort_quick.py``).

- A module per part (``PARTS``: the sort, its serial version, the selection, the selection with
  positions), each with one partition function (a copy of it at each of a dozen calls was
  most of the 2 s a module took) and the selection with no network: the text of each part
  stays within a bound, and the optimised selection still calls its partition.
- "<=" partitions are "<" partitions by the next key (``_next_key``): a lane whose pivot is its
  least key (signed zeros, the smallest subnormal above them, the least int, int and int + 1)
  is settled within the depth limit, never handed back whole (the sort gives up, the selection
  returns the whole range), and its keys end where NumPy's contract puts them.
- The 16-vector network sorts its halves by the 8-vector one and merges them
  (``HALVED_FROM``): every length a network takes, by the sort's kernel (depth 0: the network
  alone).
"""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from jitcore.api import backend_for
from jitcore.codegen.cpu import sort_quick
from jitcore.codegen.llvm_text import module_text

# a float, a signed and an unsigned kind, at both widths (float64 and int32 differ from these in
# the width alone)
KINDS = {"float32": ("f", 32), "int64": ("i", 64), "uint32": ("u", 32)}
# instructions in each part's text at most (measured at sorts56, float32's the largest: sort
# 4,485, serial 3,700, select 1,066, argselect 2,187; all four were one module of 17,500-20,700)
TEXT_BOUND = {"sort": 5200, "serial": 4300, "select": 1300, "argselect": 2600}


def _instructions(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.startswith("  ") and not line.startswith("  ;"))


@pytest.mark.parametrize("part", sort_quick.PARTS)
def test_each_part_stays_small(part):
    for kind, width in (("f", 32), ("i", 64)):  # the largest texts, and the int compares
        text = module_text(sort_quick._QuickKernel(width, 512 // width, kind, part).module)
        assert _instructions(text) <= TEXT_BOUND[part], (kind, width, part)
        assert len(re.findall(r'define internal i64 @"?\w+_partition(_positions)?"?\(', text)) == 1


def test_selection_calls_its_partition():
    """Optimised (as ``load_shared`` compiles it), the selection still calls the partition: not
    a copy of it at each call."""
    from jitcore.codegen.cpu import target

    module = target.compile_ir(module_text(sort_quick._QuickKernel(64, 8, "i", "select").module))[0]
    partition = [fn.name for fn in module.functions if fn.name.endswith("_select_partition")]
    assert partition, "the partition was inlined"
    select = str(module.get_function(sort_quick.select_symbol(64, 8, kind="i")))
    assert select.count(f"@{partition[0]}(") >= 2  # by "<" and by "<=" (the next key)


_kernels: dict = {}


def _select(dtype):
    kind, width = KINDS[dtype]
    symbol = sort_quick.select_symbol(width, 512 // width, kind=kind)
    if symbol not in _kernels:
        sort_quick.load_shared(symbol, backend_for("cpu")._compile_and_load)
        _kernels[symbol] = ctypes.CFUNCTYPE(
            None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p
        )(sort_quick._loaded[symbol])
    return _kernels[symbol]


def _sort(dtype):
    kind, width = KINDS[dtype]
    symbol = sort_quick.shared_symbol(width, 512 // width, kind, serial=True)
    if symbol not in _kernels:
        sort_quick.load_shared(symbol, backend_for("cpu")._compile_and_load)
        _kernels[symbol] = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
            sort_quick._loaded[symbol]
        )
    return _kernels[symbol]


def _least_first(dtype, rng, n=3000):
    """Lanes whose keys are mostly their least (so a pivot is it, and nothing is below it),
    with the keys just above it: the "<=" partition's next key decides where they go."""
    info = np.finfo(dtype) if dtype.startswith("float") else np.iinfo(dtype)
    if dtype.startswith("float"):
        tiny = np.array(info.smallest_subnormal, dtype)
        lanes = [
            np.array([-0.0, 0.0], dtype),
            np.array([-0.0, 0.0, tiny, 1.0], dtype),
            np.array([-tiny, tiny, 0.0, 2.0], dtype),
            np.array([-np.inf, -1.0, 0.0], dtype),
        ]
    else:
        least = info.min
        lanes = [np.array([least, least + 1, 7], dtype), np.array([5, 6, info.max], dtype)]
    for values in lanes:
        x = rng.choice(values, n, p=[0.9] + [0.1 / (len(values) - 1)] * (len(values) - 1))
        yield x.astype(dtype)


@pytest.mark.parametrize("dtype", list(KINDS))
def test_pivot_at_the_least_key_settles(dtype):
    rng = np.random.default_rng(56)
    kind, width = KINDS[dtype]
    small = sort_quick.NETWORK_VECTORS[width] * (512 // width)
    for x in _least_first(dtype, rng):
        for k in (0, x.size // 2, x.size - 1):
            data, left = x.copy(), np.zeros(2, np.int64)
            _select(dtype)(data.ctypes.data, x.size, k, left.ctypes.data)
            lo, hi = left
            assert hi - lo <= small, (dtype, k)  # not handed back whole past the depth
            data[lo:hi] = np.sort(data[lo:hi])  # the caller's scalar selection
            want = np.sort(x)
            assert data[k] == want[k]
            assert (data[:k] <= data[k]).all() and (data[k + 1 :] >= data[k]).all()
            np.testing.assert_array_equal(np.sort(data), want)
        data = x.copy()
        assert _sort(dtype)(data.ctypes.data, x.size, sort_quick.depth_limit(x.size)) == 0
        np.testing.assert_array_equal(data, np.sort(x))
        if dtype.startswith("float"):  # no zero's sign lost (their order is restore_lost's)
            assert np.signbit(data[data == 0]).sum() == np.signbit(x[x == 0]).sum()


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_networks_at_every_length(dtype):
    """Depth 0: a lane no longer than a network's is sorted by the networks alone, the longest
    by two halves merged."""
    kind, width = KINDS[dtype]
    rng = np.random.default_rng(7)
    small = sort_quick.NETWORK_VECTORS[width] * (512 // width)
    for n in range(1, small + 1):
        x = rng.integers(-50, 50, n).astype(dtype)
        data = x.copy()
        assert _sort(dtype)(data.ctypes.data, n, 0) == 0
        np.testing.assert_array_equal(data, np.sort(x))
