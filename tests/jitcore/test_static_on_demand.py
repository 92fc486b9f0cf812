"""Arguments the trace needs as values become static on demand (jitcore/static_on_demand.py):
plain NumPy code whose sizes, slice bounds, counts, modes or functions come from its arguments
runs under jit unchanged, one compile per value, NumPy the oracle; a value from an array's data
is never made static, and JAX's error comes back with ``jitcore.config.auto_static = False``."""

import warnings

import numpy as np
import pytest

import jitcore as jc
from jitcore import config
from jitcore.errors import (
    ConfigError,
    JitTypeError,
    StaticArgumentError,
    StaticOnDemandWarning,
)
from jitcore.static_on_demand import WARN_AFTER_VALUES

RNG = np.random.default_rng(41)
X = RNG.normal(size=40)


def rolling_mean(x, w):
    c = np.cumsum(np.insert(x, 0, 0.0))
    # (c[w:] - c[:-w]) / w alone now compiles once for every w (test_traced_slices_48.py);
    # its reshape needs the length, so w is made static
    return (c[w:] - c[:-w]).reshape(-1) / w


def zeros_filled(x, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * 2
    return out


def appended(x, n):
    parts = []
    for i in range(n):
        parts.append(x[i] * i)
    return np.stack(parts)


def reshaped(x, rows):
    return x.reshape(rows, -1).sum(axis=1)


def smoothed(x, k, mode):
    return np.convolve(x, np.ones(k) / k, mode)


def padded(img, k):
    return np.pad(img, k, mode="edge")


def steps_of(y, t_end, dt):
    for _ in range(int(t_end / dt)):
        y = y + dt * -y
    return y


def applied(fn, x):
    return fn(x) + 1


def of_shape(x, shape):
    return np.zeros(shape) + x.sum()


def drawn(x, n, seed):
    rng = np.random.default_rng(seed)
    return x[rng.integers(0, len(x), size=n)].mean()


def typed(x, dtype):
    return (x * 3).astype(dtype)


def halving_sum(a, k):
    if k == 0:  # traced, both branches would be, and the calls would never end
        return a
    return halving_sum(a * 0.5, k - 1) + a


CASES = {
    "a recursion's depth": (halving_sum, (X, 3), (X, 5)),
    "slice bounds": (rolling_mean, (X, 5), (X, 7)),
    "a shape and a traced loop's count": (zeros_filled, (X, 6), (X, 9)),
    "a reshape": (reshaped, (X, 4), (X, 8)),
    "a count and a string": (smoothed, (X, 3, "same"), (X, 5, "valid")),
    "np.pad's width": (padded, (X.reshape(5, 8), 2), (X.reshape(5, 8), 1)),
    "a function": (applied, (np.sin, X), (np.cos, X)),
    "a tuple shape": (of_shape, (X, (2, 3)), (X, (4,))),
    # (the seed is traced: the generator is made at call time, test_seed_arguments_46.py)
    "a seed and a size": (drawn, (X, 8, 3), (X, 6, 3)),
    "a dtype": (typed, (X, np.float32), (X, np.int16)),
}


@pytest.mark.parametrize("case", CASES)
def test_runs_as_numpy_one_compile_per_value(case):
    fn, first, second = CASES[case]
    f = jc.jit(fn)
    for args in (first, second, first, second):
        got, want = f(*args), fn(*args)
        assert type(got) is type(want) or np.ndim(want) == 0
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        if args is first:
            traced = f.cache_info().traces
    info = f.cache_info()
    assert info.traces == traced, info  # the third and fourth calls ran the code of the first two
    assert info.hits == 2, info


def test_a_list_appended_in_a_loop_keeps_its_count_traced():
    # (since session 49: n up to 255 stays traced, the list's capacity its class's bound)
    f = jc.jit(appended)
    for n in (4, 5, 4):
        np.testing.assert_allclose(f(X, n), appended(X, n), rtol=1e-12)
    assert f.cache_info().compiles == 1


def test_what_compiles_traced_stays_traced():
    f = jc.jit(steps_of)  # int(t_end / dt) traced: range() of it is a compiled loop
    for dt in (0.25, 0.125):
        np.testing.assert_allclose(f(X, 1.0, dt), steps_of(X, 1.0, dt))
    assert f.cache_info().compiles == 1


def test_keyword_and_position_share_the_static_argument():
    f = jc.jit(rolling_mean)
    np.testing.assert_allclose(f(X, 5), rolling_mean(X, 5))
    np.testing.assert_allclose(f(X, w=5), rolling_mean(X, 5))
    np.testing.assert_allclose(f(x=X, w=5), rolling_mean(X, 5))
    assert f.cache_info().compiles == 1


def head_or_scaled(x, k):
    return x[:k] * 2 if np.ndim(k) == 0 else x * k


def test_an_array_later_passed_for_it_is_traced_again():
    f = jc.jit(head_or_scaled)
    np.testing.assert_array_equal(f(X, 3), X[:3] * 2)
    np.testing.assert_array_equal(f(X, np.full(40, 2.0)), X * 2.0)  # k traced again: an array
    np.testing.assert_array_equal(f(X, 4), X[:4] * 2)


def test_lower_shows_the_program_of_that_value():
    text = jc.jit(rolling_mean).lower(X, 5).as_text()
    assert "-> tensor<36xf64>" in text, text  # the result's length: 41 sums less 5


def test_a_value_from_array_data_is_never_made_static():
    f = jc.jit(lambda x: np.zeros(int(x.sum() > 0) + 2))
    with pytest.raises(jc.ConcretizationError, match="depends on the argument"):
        f(X)


def test_an_argument_mixed_with_array_data_is_not_made_static():
    # (the data decides the length: returned as a trimmed prefix since session 47, one compile)
    f = jc.jit(lambda x, n: x[: n + (x[0] > 0)])
    for x, n in ((X, 3), (-X, 3), (X, 5)):
        np.testing.assert_array_equal(f(x, n), x[: n + (x[0] > 0)])
    assert f.cache_info().traces == 1


def test_a_list_of_numbers_is_made_static_as_a_tuple_is():
    # (since session 49: a list of numbers is a static key, equal to the same list only)
    f = jc.jit(of_shape)
    np.testing.assert_array_equal(f(X, [2, 3]), of_shape(X, [2, 3]))
    np.testing.assert_array_equal(f(X, (2, 3)), of_shape(X, (2, 3)))


def test_a_list_holding_an_array_is_not_made_static():
    # A list of arrays is not hashable: it cannot be a static key
    with pytest.raises(jc.ConcretizationError, match="shape"):
        jc.jit(of_shape)(X, [np.int64(2), np.ones(2)])


def test_a_mutable_object_is_not_made_static():
    # (session 49) a plain object is a pytree node: its numbers are traced, read on each call
    class Box:
        pass

    f = jc.jit(lambda x, b: x * b.v)
    b = Box()
    for v in (1.0, 2.0):
        b.v = v
        np.testing.assert_array_equal(f(X, b), X * v)
    assert f.cache_info().traces == 1


def test_a_string_used_as_an_array_is_a_clear_error():
    f = jc.jit(lambda x, y: x + y)
    with pytest.raises(jc.JitTypeError, match="numpy.add does not accept"):
        f(X, "text")
    np.testing.assert_array_equal(f(X, X), X + X)  # y traced again, not left static


def test_off_it_is_jaxs_error(without_auto_static):
    with pytest.raises(jc.ConcretizationError, match=r"static_argnames=\('w',\)"):
        jc.jit(rolling_mean)(X, 5)
    with pytest.raises(jc.JitTypeError, match="argument mode is a str"):
        jc.jit(smoothed)(X, 3, "same")


def test_the_setting_is_checked():
    with pytest.raises(ConfigError, match="auto_static must be True or False"):
        config.auto_static = 1
    assert config.auto_static is True


def test_many_values_warn_once():
    f = jc.jit(rolling_mean)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for w in range(1, WARN_AFTER_VALUES + 3):
            np.testing.assert_allclose(f(X, w), rolling_mean(X, w))
    mine = [w for w in seen if issubclass(w.category, StaticOnDemandWarning)]
    assert len(mine) == 1, [str(w.message) for w in seen]
    assert "argument w" in str(mine[0].message)
    assert mine[0].filename == __file__  # pointed at the caller's line


def test_the_compile_log_says_so(caplog):
    config.log_compiles = True
    try:
        with caplog.at_level("WARNING", logger="jitcore"):
            jc.jit(rolling_mean)(X, 5)
    finally:
        config.log_compiles = False
    assert any("made w static" in r.getMessage() for r in caplog.records), caplog.text


def test_an_inlined_jitted_function_passes_it_on():
    inner = jc.jit(rolling_mean)
    outer = jc.jit(lambda x, w: inner(x, w).sum())
    np.testing.assert_allclose(outer(X, 4), rolling_mean(X, 4).sum())


class Windowed:
    def __init__(self, n):
        self.w = np.linspace(0.0, 1.0, n)

    @jc.jit
    def window(self, x, k):
        return x[:k] * self.w[:k]

    @jc.jit
    def reduce(self, x, how="sum"):
        return x.sum() if how == "sum" else x.max()


def test_a_methods_arguments_too():
    m = Windowed(8)
    for k in (4, 3, 4):
        np.testing.assert_array_equal(m.window(X, k), X[:k] * m.w[:k])
    np.testing.assert_array_equal(m.window(X, k=3), X[:3] * m.w[:3])
    assert m.reduce(X) == X.sum() and m.reduce(X, "max") == X.max() and m.reduce(X, how="max") == X.max()
    m.w = m.w * 2  # the instance's arrays stay arguments
    np.testing.assert_array_equal(m.window(X, 4), X[:4] * m.w[:4])


def norm_of(x, ord):
    return np.linalg.norm(x, ord)


def histogram_of(x, bins, low, high):
    return np.histogram(x, bins, range=(low, high))


@pytest.mark.parametrize("args, fn", [((X, 1), norm_of), ((X, np.inf), norm_of), ((X, None), norm_of),
                                      ((X, 5, -1.0, 1.0), histogram_of)],
                         ids=["norm ord 1", "norm ord inf", "norm ord None", "histogram"])
def test_numpys_own_parameters(args, fn):
    got, want = jc.jit(fn)(*args), fn(*args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(g, w, rtol=1e-13)
        assert np.asarray(g).dtype == np.asarray(w).dtype


@pytest.mark.parametrize("other", ["fro", b"x", None])
def test_equality_with_a_string_or_none_is_numpys(other):
    f = jc.jit(lambda x, s: (x == other, x != other, s == other, s != other))
    got, want = f(X, 2.0), (X == other, X != other, np.float64(2.0) == other, np.float64(2.0) != other)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert type(g) is type(w) or isinstance(g, np.ndarray) == isinstance(w, np.ndarray)


def test_a_static_argument_of_an_inlined_function_passes_the_need_on():
    inner = jc.jit(rolling_mean)
    np.testing.assert_allclose(inner(X, 3), rolling_mean(X, 3))  # w is static in inner's calls
    explicit = jc.jit(rolling_mean, static_argnames="w")
    for callee in (inner, explicit):
        outer = jc.jit(lambda x, w, callee=callee: callee(x, w) * 2)  # w made static in outer
        np.testing.assert_allclose(outer(X, 4), rolling_mean(X, 4) * 2)
        np.testing.assert_allclose(outer(X, 6), rolling_mean(X, 6) * 2)
    m = Windowed(8)
    through_method = jc.jit(lambda x, k: m.window(x, k).sum())
    np.testing.assert_allclose(m.window(X, 4), X[:4] * m.w[:4])
    np.testing.assert_allclose(through_method(X, 5), (X[:5] * m.w[:5]).sum())


# -- session 42: more of what a Python number argument decides -----------------------------------
def _last_of(x, n):
    for i in range(n):
        y = x * i  # first assigned in the loop, used after it
    return y


def _sum_or_none(x, n):
    if n > 2:
        return x.sum()
    return None


def _sized_by(x, n):
    y = np.zeros(3) if n > 2 else np.zeros(4)
    return y + x.sum()


@pytest.mark.parametrize("fn", [_last_of, _sum_or_none, _sized_by])
def test_a_loop_count_or_a_branch_on_an_int_argument_that_decides_structure(fn):
    # Found by new-user programs (session 42): a variable first assigned in `for _ in
    # range(iters)` was FirstAssigned; returning None or an array by `n > 2` named autograph's
    # internals; a ternary of two shapes did not broadcast.
    f = jc.jit(fn)
    for n in (5, 1, 3, 5):
        got, want = f(np.ones(2), n), fn(np.ones(2), n)
        assert type(got) is type(want)
        if want is not None:
            np.testing.assert_array_equal(got, want)


def test_a_return_of_none_on_a_data_dependent_path_says_what_to_do():
    def f(x):
        if x.sum() > 0:
            return x
        return None

    with pytest.raises(JitTypeError, match=r"return None against return <array or number>.*np.nan"):
        jc.jit(f)(np.ones(2))


def _summed(x, **options):
    return x.sum(**options)


def test_a_keyword_that_kwargs_takes_is_made_static_by_its_name():
    f = jc.jit(_summed)
    x = np.arange(6.0).reshape(2, 3)
    for options in ({"axis": 0}, {"axis": 1}, {}, {"axis": 0, "keepdims": True}):
        np.testing.assert_array_equal(f(x, **options), _summed(x, **options))


def test_the_advice_for_a_list_item_and_for_star_args_leads_somewhere():
    def sizes(x, ns):
        return [np.linspace(0, 1, n).sum() for n in ns]

    # (a list of numbers is made static as the tuple is, since session 49)
    np.testing.assert_allclose(jc.jit(sizes)(np.ones(2), [11, 21]), sizes(np.ones(2), [11, 21]))
    np.testing.assert_allclose(jc.jit(sizes)(np.ones(2), (11, 21)), sizes(np.ones(2), (11, 21)))
    with pytest.raises(StaticArgumentError, match=r"\*args, whose items .*static_argnums \(the first is 1\)"):
        jc.jit(lambda x, *args: x.sum(*args), static_argnames="args")


def _table_lookup(x, n):
    return x * {1: 2.0, 2: 3.0}[n] if n in {1, 2} else x * n.bit_length()


def test_a_dict_or_set_lookup_and_an_ints_own_method_make_it_static():
    f = jc.jit(_table_lookup)
    for n in (2, 1, 5, 2):
        np.testing.assert_array_equal(f(np.ones(2), n), _table_lookup(np.ones(2), n))


def test_the_length_of_fftfreq_is_made_static_on_demand():
    """``np.fft.rfftfreq(nfft, 1 / fs)`` with an int argument ``nfft``: NumPy dispatches on
    ``d`` alone, so the traced length reached NumPy's own code (its ValueError)."""
    def freqs(x, nfft, fs):
        return np.fft.rfftfreq(nfft, 1 / fs) * x.sum(), np.fft.fftfreq(nfft) + x[0]
    f = jc.jit(freqs)
    for nfft in (8, 9):
        for got, want in zip(f(np.ones(4), nfft, 100.0), freqs(np.ones(4), nfft, 100.0)):
            np.testing.assert_allclose(got, want, rtol=1e-15)


def test_a_run_time_raise_on_the_call_that_made_an_argument_static_is_the_users():
    """The first call makes ``n`` static (``np.zeros(n)``), compiles, and its assert fails at
    run time: that was reported as the ConcretizationError of np.zeros (and ``n`` traced
    again); now it is the user's AssertionError, and ``n`` stays static."""
    def f(x, n):
        out = np.zeros(n)
        assert x.sum() < 10, "too big"
        return out + x.sum()
    g = jc.jit(f)
    for x, fails in [(np.ones(20), True), (np.ones(3), False), (np.ones(20), True)]:
        if fails:
            with pytest.raises(AssertionError, match="too big"):
                g(x, 3)
        else:
            np.testing.assert_array_equal(g(x, 3), f(x, 3))


def test_a_seed_sequences_entropy_is_read_at_call_time():
    def f(seed, n):
        return np.random.default_rng(np.random.SeedSequence(seed)).random(n).sum()
    g = jc.jit(f)
    for seed in (42, 7, 42):
        assert g(seed, 5) == f(seed, 5)
    assert g.cache_info().compiles == 1  # n static on demand; the seed read at each call
