"""Session 47: the pairwise float sum's leaves (``reduction.PairwiseRow._leaves``) read in place
by whole vectors, side by side, for bodies of several inputs (``sum(x * y)``, ``sum(x + y)``),
with NumPy's bits unchanged on any thread count.

NumPy is the oracle: NumPy computes ``x * y`` into a temporary and sums that pairwise, so
jitcore's fused sum must give the same bits (no fused multiply-add), the same dtype and Python
type, and leave its arguments as they were. The one check of code shape (no gathers where the
leaves are contiguous) is what session 46's leaves lacked: LLVM's SLP vectorizer loaded the
second to fourth leaf of a side-by-side subtree element by element (``vgatherqpd``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc

FLOATS = (np.float64, np.float32)
THREADS = (1, 2, 3)

BODIES = {
    "x*y": (lambda x, y: np.sum(x * y), lambda x, y: np.sum(x * y)),
    "x+y": (lambda x, y: np.sum(x + y), lambda x, y: np.sum(x + y)),
    "(x-y)*x": (lambda x, y: np.sum((x - y) * x), lambda x, y: np.sum((x - y) * x)),
    "mean(x*y)": (lambda x, y: (x * y).mean(), lambda x, y: (x * y).mean()),
    "sum(x)": (lambda x, y: np.sum(x), lambda x, y: np.sum(x)),
}
JITTED = {name: jc.jit(fn) for name, (fn, _) in BODIES.items()}


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int64 if a.dtype == np.float64 else np.int32)


def _same(expected, got):
    assert type(got) is type(expected), (type(got), type(expected))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    assert np.array_equal(_bits(got), _bits(expected)), (expected, got)


def _values(n: int, dtype, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of large terms of both signs that mostly cancel: another order of the adds,
    or a multiply fused into an add, shows in many bits."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n) * rng.choice([1.0, 1e6], size=n)
    y = rng.normal(size=n) * rng.choice([1.0, 1e3], size=n)
    return x.astype(dtype), y.astype(dtype)


def _on_threads(f, args, threads):
    from jitcore import config
    with config.using(num_threads=threads, parallel_threshold=0, chunk_size=1):
        return f(*args)


def _check(name, n, dtype, seed, threads):
    x, y = _values(n, dtype, seed)
    before = x.copy(), y.copy()
    expected = BODIES[name][1](x, y)
    _same(expected, _on_threads(JITTED[name], [x, y], threads))
    assert np.array_equal(_bits(x), _bits(before[0])) and np.array_equal(_bits(y), _bits(before[1]))


@settings(max_examples=40, deadline=None)
@given(n=st.one_of(st.integers(0, 3000), st.sampled_from([257, 385, 511, 513, 1031, 4104, 8200])),
       dtype=st.sampled_from(FLOATS), name=st.sampled_from(sorted(BODIES)),
       seed=st.integers(0, 2**16), threads=st.sampled_from(THREADS))
def test_sums_of_two_inputs_are_numpys_bits(n, dtype, name, seed, threads):
    """Sizes whose 2- and 4-leaf subtrees have leaves of unequal group counts (a longer
    leaf's last groups run in a loop of their own) and every tail length."""
    _check(name, n, dtype, seed, threads)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [100_003, 1_000_003, 2**20])
def test_long_sums_of_products_on_threads(dtype, n, monkeypatch):
    from jitcore.codegen.cpu import runtime
    monkeypatch.setattr(runtime, "MIN_SPLIT_WORK", 0)  # pieces on threads at every size
    for threads in THREADS:
        _check("x*y", n, dtype, n, threads)
        _check("x+y", n, dtype, n + 1, threads)


def test_printed_text_is_numpys(capsys):
    x, y = _values(1001, np.float64, 3)
    print(JITTED["x*y"](x, y), JITTED["mean(x*y)"](x, y))
    print(np.sum(x * y), (x * y).mean())
    first, second = capsys.readouterr().out.splitlines()
    assert first == second


def test_wrong_lengths_raise_as_numpy_does():
    x, y = np.ones(10), np.ones(11)
    with pytest.raises(ValueError) as expected:
        np.sum(x * y)
    with pytest.raises(ValueError) as got:
        JITTED["x*y"](x, y)
    assert "broadcast" in str(expected.value) and "broadcast" in str(got.value)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["x*y", "x+y"])
def test_side_by_side_leaves_load_whole_vectors(dtype, name):
    """The loop over the common groups of side-by-side leaves (a block that branches to itself
    and carries two or more vectors of lanes) loads whole vectors, no ``llvm.masked.gather``.
    Session 46's kernel gathered the second to fourth leaf (float64 sum(x * y) 2x slower)."""
    x, y = _values(10**6, dtype, 0)
    loops = _side_by_side_loops(JITTED[name].lower(x, y).as_text("llvm-opt"))
    assert loops, "no loop over side-by-side leaves in the kernel"
    for block, body in loops:
        assert "llvm.masked.gather" not in body, (block, body[:3000])
        assert "load <" in body, block


def _side_by_side_loops(text: str) -> list[tuple[str, str]]:
    blocks, name, lines = [], None, []
    for line in text.splitlines() + ["end:"]:
        head = line.split(";")[0].rstrip()
        if head.endswith(":") and not line.startswith(" "):
            if name is not None:
                blocks.append((name, "\n".join(lines)))
            name, lines = head[:-1].strip('"'), []
        else:
            lines.append(line)
    return [(name, body) for name, body in blocks
            if f"label %{name}" in body.splitlines()[-1] and body.count("= phi <") >= 2]
