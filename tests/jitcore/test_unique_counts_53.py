"""``np.unique`` by a plain sort where no first index or inverse is asked, its counts by a scan
of the run starts (session 53, uniq53): values, counts, first indices and inverses against
NumPy's, bit for bit (of -0.0 and 0.0 either may stand for both, as NumPy's quicksort picks one;
first indices are a stable sort's, docs/numpy_support.md), at 0, 1 and 64 elements: all equal,
two values, few, all distinct, NaNs kept as one value and (``equal_nan=False``) apart."""

import numpy as np

import jitcore as jc

_counts = jc.jit(lambda a: np.unique(a, return_counts=True))
_counts_apart = jc.jit(lambda a: np.unique(a, return_counts=True, equal_nan=False))
_all = jc.jit(lambda a: np.unique(a, return_index=True, return_inverse=True, return_counts=True))
_inverse_counts = jc.jit(lambda a: np.unique(a, return_inverse=True, return_counts=True))
_len_and_top = jc.jit(lambda a: (len(np.unique(a)), np.unique(a, return_counts=True)[1].max()))


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
        if w.dtype.kind == "f":  # the one zero kept may be either sign: compare as numbers
            assert np.array_equal(g, w, equal_nan=True), (g, w)
            assert np.array_equal(np.signbit(g[g != 0]), np.signbit(w[w != 0]))
        else:
            assert np.array_equal(g, w), (g, w)


def _floats(rng, n):
    few = rng.integers(-3, 4, n).astype(np.float64)
    few[rng.random(n) < 0.25] = np.nan
    few[rng.random(n) < 0.2] = -0.0
    few[rng.random(n) < 0.1] = np.inf
    return few, np.full(n, np.nan), np.full(n, -0.0), rng.permutation(n) - 0.5


def test_unique_values_counts_indices_inverses_match_numpy():
    # one compile a function and dtype (and size): float64 at every size, the others at 64
    rng = np.random.default_rng(53)
    for n in (0, 1, 64):
        for x in _floats(rng, n):
            _same(_counts(x), np.unique(x, return_counts=True))
            _same(_all(x), np.unique(x, return_index=True, return_inverse=True, return_counts=True))
            if n == 64:
                _same(_counts_apart(x), np.unique(x, return_counts=True, equal_nan=False))
                _same(_inverse_counts(x), np.unique(x, return_inverse=True, return_counts=True))
    ints = (rng.integers(-3, 4, 64), np.full(64, 7), rng.permutation(64) - 32, np.arange(64) % 2)
    for x in ints:
        _same(_counts(x), np.unique(x, return_counts=True))
        _same(_all(x), np.unique(x, return_index=True, return_inverse=True, return_counts=True))
        u, c = np.unique(x, return_counts=True)
        assert _len_and_top(x) == (len(u), c.max())
    for x in (rng.integers(0, 2, 64).astype(np.uint8), rng.normal(size=64).astype(np.float32).round(0)):
        _same(_counts(x), np.unique(x, return_counts=True))


def test_unique_counts_of_a_long_lane_of_repeats():
    # the sort's own paths (radix, few values, in order) at a size that takes them
    rng = np.random.default_rng(5)
    for x in (rng.integers(0, 1000, 40000), np.sort(rng.integers(0, 9, 40000)), np.zeros(40000, np.int64)):
        _same(_counts(x), np.unique(x, return_counts=True))


_sel_counts = jc.jit(lambda x, m: np.unique(x[m], return_counts=True))
_sel_index_counts = jc.jit(lambda x, m: np.unique(x[m], return_index=True, return_counts=True))


def test_unique_counts_of_a_selection_at_its_count():
    # the selection's last run ends at its count, also where kept values equal the filler past
    # it (an int's largest, +inf)
    rng = np.random.default_rng(7)
    big = np.iinfo(np.int64).max
    n = 50
    lanes = (
        rng.integers(0, 4, n),
        np.where(rng.random(n) < 0.5, big, 1),
        np.where(rng.random(n) < 0.3, np.inf, rng.integers(0, 3, n) * 1.0),
        np.full(n, np.nan),
    )
    for x in lanes:
        for m in (rng.random(n) < 0.5, np.ones(n, bool), np.zeros(n, bool), np.arange(n) < 3):
            _same(_sel_counts(x, m), np.unique(x[m], return_counts=True))
            _same(_sel_index_counts(x, m), np.unique(x[m], return_index=True, return_counts=True))
