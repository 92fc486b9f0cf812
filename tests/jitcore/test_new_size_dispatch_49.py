"""dispatch49: a new size skips the pass pipeline where its trace is an earlier size's with the
extents replaced (jitcore/new_size.py), against plain NumPy and a fresh jit of each size.

Every test here runs with ``new_size.CHECK``: each resized program is also compared with the
text the pass pipeline gives at that size, so a pass that chose by an extent's value fails.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import new_size
from tests.budget import examples


@pytest.fixture(autouse=True)
def checked(monkeypatch):
    monkeypatch.setattr(new_size, "CHECK", True)


def chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * 0.5 + x * x


def total(x):
    return x.sum()


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def masked(x):
    return x[x > 0].sum()


def carried(x):
    y = x
    for _ in range(6):
        y = y * 0.5 + x
    return y


def bias(a, w, b):
    return a @ w + b


def mean_and_var(x):
    return x.mean() + x.var()


def times_len(x):
    return x * len(x)


def running(x):
    return np.cumsum(x) - x.argmax()


def neighbours(x):  # x[:-1]: the trace holds n - 1
    return x[:-1] + x[1:]


def first_half(x):  # len(x) // 2: the trace holds n // 2
    return x[: len(x) // 2] * 2.0


def branchy(x):  # a branch on a size: the trace holds the branch taken
    if x.shape[0] > 150:
        return x * 2.0
    return x * 3.0


def rows_sum(x):
    return x.sum(axis=0) + x.sum(axis=1).sum()


def one_d(n, rng):
    return (rng.standard_normal(n),)


CASES = {
    "chain": (chain, one_d),
    "sum": (total, one_d),
    "softmax": (softmax, lambda n, rng: (rng.standard_normal((n, 24)),)),
    "masked": (masked, one_d),
    "carried": (carried, one_d),
    "bias": (bias, lambda n, rng: (rng.standard_normal((n, 20)), rng.standard_normal((20, 20)),
                                   rng.standard_normal(20))),
    "mean_and_var": (mean_and_var, one_d),
    "times_len": (times_len, one_d),
    "running": (running, one_d),
    "neighbours": (neighbours, one_d),
    "first_half": (first_half, one_d),
    "branchy": (branchy, one_d),
}

# sizes around 0/1, the symbols' floor (16), the tiny class (64 points) and the split (2**15)
SIZES = st.lists(st.sampled_from([0, 1, 2, 15, 16, 17, 18, 40, 63, 64, 65, 100, 151, 1000, 33000]),
                 min_size=2, max_size=5)


def same(got, want) -> None:
    """Bits, dtype and Python type."""
    assert type(got) is type(want), (type(got), type(want))
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def close_to_numpy(got, want) -> None:
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["chain", "sum", "softmax", "masked", "carried", "bias", "mean_and_var",
                                  "times_len", "running"])
def test_a_new_size_skips_the_pipeline(name):
    fun, make = CASES[name]
    jitted = jc.jit(fun, cache=False)
    for n in (100, 237, 1000):
        args = make(n, np.random.default_rng(n))
        close_to_numpy(jitted(*args), fun(*args))
    info = jitted.cache_info()
    assert (info.traces, info.resized) == (3, 2)  # the trace still runs; the passes do not


@pytest.mark.parametrize("name", ["neighbours", "first_half"])
def test_a_size_the_trace_derived_runs_the_pipeline(name):
    fun, make = CASES[name]
    jitted = jc.jit(fun, cache=False)
    for n in (100, 237, 1000):
        args = make(n, np.random.default_rng(n))
        same(jitted(*args), jc.jit(fun, cache=False)(*args))
        close_to_numpy(jitted(*args), fun(*args))
    info = jitted.cache_info()
    assert (info.traces, info.resized) == (3, 0)


def test_a_branch_on_a_size_resizes_only_within_its_branch():
    jitted = jc.jit(branchy, cache=False)
    resized = []
    for n in (100, 120, 200, 250, 140):
        x = np.random.default_rng(n).standard_normal(n)
        same(jitted(x), branchy(x))
        resized.append(jitted.cache_info().resized)
    assert resized == [0, 1, 1, 2, 3]


def test_small_sizes_are_no_symbols():
    jitted = jc.jit(chain, cache=False)
    for n in range(2, 17):
        x = np.random.default_rng(n).standard_normal(n)
        same(jitted(x), jc.jit(chain, cache=False)(x))
        close_to_numpy(jitted(x), chain(x))
    assert jitted.cache_info().resized == 0


def test_two_extents_swapped_and_merged():
    jitted = jc.jit(rows_sum, cache=False)
    for shape in ((100, 200), (200, 100), (300, 300), (400, 400), (30, 20)):
        x = np.random.default_rng(shape[0]).standard_normal(shape)
        same(jitted(x), jc.jit(rows_sum, cache=False)(x))
        close_to_numpy(jitted(x), rows_sum(x))
    # (200, 100) is (100, 200) with its two symbols swapped; (400, 400) is (300, 300) resized;
    # (300, 300) has one symbol where the others have two: another abstract text
    assert jitted.cache_info().resized == 3


def means_both_ways(x):  # the 0-d constants n and m: swapped with the extents
    return x.sum(axis=0) / x.shape[0] + x.sum(axis=1).sum() / x.shape[1]


def test_swapped_extents_swap_the_constants_that_hold_them():
    jitted = jc.jit(means_both_ways, cache=False)
    for shape in ((100, 200), (200, 100), (300, 400)):
        x = np.random.default_rng(shape[0]).standard_normal(shape)
        same(jitted(x), jc.jit(means_both_ways, cache=False)(x))
        close_to_numpy(jitted(x), means_both_ways(x))
    assert jitted.cache_info().resized == 2


def test_a_sort_is_not_resized():
    jitted = jc.jit(lambda x: np.sort(x) * 2.0, cache=False)
    for n in (100, 237):
        x = np.random.default_rng(n).standard_normal(n)
        same(jitted(x), np.sort(x) * 2.0)
    assert jitted.cache_info().resized == 0


def test_printing_a_size_prints_as_python_does(capsys):
    def shows(x):
        print("n =", x.shape[0])
        return x + 1.0

    sizes = (100, 237, 100, 1000)
    for n in sizes:
        shows(np.ones(n))
    printed = capsys.readouterr().out
    jitted = jc.jit(shows, cache=False)
    for n in sizes:
        x = np.ones(n)
        same(jitted(x), x + 1.0)
    assert capsys.readouterr().out == printed  # at every call, as Python prints
    assert jitted.cache_info().traces == 3


SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_a_global_that_changes_is_read_at_each_size():
    global SCALE
    jitted = jc.jit(scaled, cache=False)
    try:
        for n, scale in ((100, 2.0), (237, 3.0), (1000, 3.0), (1100, 5.0)):
            SCALE = scale
            x = np.random.default_rng(n).standard_normal(n)
            same(jitted(x), x * scale)
    finally:
        SCALE = 2.0


def test_clear_cache_forgets_the_programs():
    jitted = jc.jit(chain, cache=False)
    jitted(np.ones(100))
    jitted.clear_cache()
    jitted(np.ones(200))
    assert jitted.cache_info().resized == 0


def test_the_disk_cache_path_resizes_too(tmp_path, monkeypatch):
    from jitcore import config
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))
    jitted = jc.jit(chain)
    for n in (100, 237, 1000):
        x = np.random.default_rng(n).standard_normal(n)
        same(jitted(x), jc.jit(chain, cache=False)(x))
    assert jitted.cache_info().resized == 2


def test_the_abstract_text_numbers_symbols_by_their_first_argument_dim():
    jitted = jc.jit(rows_sum, cache=False)
    a = jitted.lower(np.ones((100, 200))).traced
    b = jitted.lower(np.ones((200, 100))).traced
    c = jitted.lower(np.ones((300, 300))).traced
    key = new_size.abstract_key
    assert key(a, new_size.symbols_of(a)) == key(b, new_size.symbols_of(b))
    assert key(a, new_size.symbols_of(a)) != key(c, new_size.symbols_of(c))


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=examples(8, ci=3), deadline=None)
@given(sizes=SIZES)
def test_each_size_is_the_fresh_jit_and_numpy(name, sizes):
    fun, make = CASES[name]
    jitted = jc.jit(fun, cache=False)
    for n in sizes:
        args = make(n, np.random.default_rng(n))
        try:
            want = fun(*args)
        except Exception as e:  # NumPy's own error (an empty argmax): jit raises it too
            with pytest.raises(type(e)):
                jitted(*args)
            continue
        got = jitted(*args)
        same(got, jc.jit(fun, cache=False)(*args))
        close_to_numpy(got, want)
