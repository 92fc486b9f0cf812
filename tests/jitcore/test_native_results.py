"""The native call's results of every shape: lists, dicts, nested tuples, named tuples and
``None`` among them, NumPy scalars read from one-element buffers (``x.item(0)``,
``[x[0], x[1]]``, ``tolist()``), and constant outputs (a loop counter returned with a value
computed from it, a constant array).

Each result is compared with the Python path's (``python_call``: the same types at every node,
arrays by dtype, shape and bits) and with NumPy's values, then checked to have been the native
call's; the guards (other shapes, dtypes, globals) must give other code, never a stale result;
reference counts must be exact over many calls, failing ones too."""

from __future__ import annotations

import sys
from collections import namedtuple

import numpy as np
import pytest

import jitcore as jc
from jitcore import native_call
from jitcore.api import python_call

pytestmark = pytest.mark.skipif(not native_call.AVAILABLE, reason="no native call on this Python/NumPy")

Pair = namedtuple("Pair", "total scaled")


def native_calls(f) -> int:
    return f._native_hits.value


def natively(f, *args):
    """One cached call of ``f``, checked to be the native call's (after the two calls that offer
    it its entry)."""
    f(*args)
    f(*args)
    before = native_calls(f)
    got = f(*args)
    assert native_calls(f) == before + 1, args
    return got


def same(got, want):
    """The same value of the same types at every node: containers by exact type, keys and
    length; arrays by dtype, shape and bits; NumPy scalars by type and bits."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            same(g, w)
    elif isinstance(want, (np.ndarray, np.generic)):
        g, w = np.asarray(got), np.asarray(want)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()
    elif isinstance(want, float) and want != want:  # a Python NaN (tolist's): no == of its own
        assert got != got
    else:
        assert got is want or got == want


def counted(x):
    i = 0
    for i in range(x.shape[0]):  # noqa: B007  (the counter left after the loop: the case)
        pass
    return x[:i].sum(), i


def stepped(x):
    k = 0
    for _ in range(x.shape[0]):
        k += 3
    return x[:k // 3 - 1] * 2, k


X = np.array([1.5, -2.0, 3.25, 0.5, -0.0, np.nan, np.inf, 7.0])
X32 = X.astype(np.float32)
I8 = np.array([-128, 5, 7, 127], np.int8)

CASES = {
    "list of arrays": (lambda x: [x + 1, x * 2], (X32,)),
    "dict, keys given out of order": (lambda x: {"z": x + 1, "a": x * 2, "m": x.sum()}, (X,)),
    "dict with int keys": (lambda x: {2: x - 1, 1: x * 3}, (X,)),
    "nested tuple with None and a list": (lambda x: (x + 1, (None, [x * 2, (x.max(),)])), (X32,)),
    "named tuple": (lambda x: Pair(x.sum(), x * 2), (X,)),
    "a list in a dict in a list": (lambda x: [{"v": [x[0], x[1]]}, x[2:4]], (X,)),
    "item forms": (lambda x: (x.item(0), x.item(-1), x[1:2].item(), x.reshape(2, 4).item(1, 0)), (X,)),
    "elements of float32": (lambda x: [x[0], x[1], x[5]], (X32,)),
    "tolist, 1-d and 2-d": (lambda x: (x.tolist(), (x * 2).reshape(2, 4).tolist()), (X,)),
    "int8 elements": (lambda a: (a.item(0), a.tolist(), a.item(3) + 1), (I8,)),
    "a returned loop counter used too": (counted, (X[:5],)),
    "a counter stepped by 3, used to slice": (stepped, (X,)),
    "a constant number and array": (lambda x: (x + 1, 2.5, np.zeros(3), None), (X32,)),
    "one 0-d result as a scalar": (lambda x: x.sum(), (I8,)),
    "a result and its copy": (lambda x: (lambda y: [y, y.copy(), y + 0])(x * 2), (X32,)),
    "views of an argument and a copy": (
        lambda x: [x.reshape(2, 4), x[None], x.ravel(), x.reshape(4, 2).copy(), x * 2], (X,)),
    "a list argument's floats returned (list * 2)": (lambda a: a * 2, ([1.0, -0.0, np.nan],)),
    "numbers returned as they came": (lambda x, i, f, s, c, z: [i, (f, s), {"c": c, "z": z}, x + 1],
                                      (X32, -7, 2.5, np.float32(1.5), 1 - 2j, np.array(3.0, np.float32))),
}
JITTED = {name: jc.jit(fn) for name, (fn, _) in CASES.items()}


@pytest.mark.parametrize("name", CASES)
def test_results_match_the_python_path_and_numpy(name):
    fn, args = CASES[name]
    f = JITTED[name]
    got = natively(f, *args)
    same(got, python_call(f, *args))
    with np.errstate(invalid="ignore"):
        want = fn(*args)  # NumPy: values equal
    flat_got, flat_want = jc.pytree.flatten(got)[0], jc.pytree.flatten(want)[0]
    assert len(flat_got) == len(flat_want)
    for g, w in zip(flat_got, flat_want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_results_are_new_objects_on_each_call():
    f = JITTED["a constant number and array"]
    first = natively(f, X32)
    first[2][:] = 7.0  # the caller's constant array is its own: the next call's is fresh
    second = f(X32)
    assert second is not first and second[0] is not first[0] and second[2] is not first[2]
    np.testing.assert_array_equal(second[2], np.zeros(3))
    assert second[2].flags.writeable and second[2].flags.c_contiguous and second[3] is None
    h = JITTED["a result and its copy"]
    copies = natively(h, X32)
    assert copies[0] is not copies[1] and copies[0] is not copies[2] and copies[1] is not copies[2]
    g = JITTED["dict, keys given out of order"]
    d = natively(g, X)
    d["z"] = None
    assert g(X)["z"] is not None and list(g(X)) == ["z", "a", "m"]  # the order it was built in


def test_a_view_of_an_argument_is_numpys_reshape():
    f = JITTED["views of an argument and a copy"]
    x = np.arange(8.0)
    view, row, itself, copied, _ = natively(f, x)
    assert view.base is x and row.base is x and itself is x and copied.base is None
    view[1, 0] = -1.0  # writes through a view reach the argument, as NumPy's reshape
    assert x[4] == -1.0 and copied[2, 0] == 4.0
    frozen = np.arange(8.0)
    frozen.flags.writeable = False
    view, row, *_ = natively(f, frozen)
    assert not view.flags.writeable and not row.flags.writeable


def test_other_shapes_and_dtypes_get_their_own_code():
    f = jc.jit(lambda x: (x.tolist(), x[0]))
    g = jc.jit(counted)
    inputs = [X[:3], X[:5], X32[:5], I8]
    for x in inputs:
        natively(f, x)
        natively(g, x)
    before_f, before_g = native_calls(f), native_calls(g)
    for _ in range(3):
        for x in inputs:  # alternating: each call its own entry, none another's result
            same(f(x), python_call(f, x))
            assert f(x)[0] == x.tolist() or np.isnan(x).any()
            total, i = g(x)
            assert i == len(x) - 1 and type(i) is int  # known while tracing: Python's int
            np.testing.assert_array_equal(total, x[:len(x) - 1].sum())
    assert native_calls(f) == before_f + 6 * len(inputs)
    assert native_calls(g) == before_g + 3 * len(inputs)


SCALE = np.ones(4)


def scaled_parts(x):
    return {"scaled": x * SCALE, "first": (x * SCALE)[0]}


def test_a_rebound_global_with_a_dict_result():
    global SCALE
    f = jc.jit(scaled_parts)
    x = np.arange(4.0)
    natively(f, x)
    for scale in (np.full(4, 2.0), np.full(4, 3.0), np.full(4, 2.0, np.float32), np.ones(4)):
        SCALE = scale
        same(f(x), {"scaled": x * scale, "first": (x * scale)[0]})
    SCALE = np.ones(4)


def into_and_parts(x, out):
    out[...] = x * 2
    return [out, out.sum(), {"x": x.item(1)}]


def test_a_written_argument_returned_in_a_list():
    f = jc.jit(into_and_parts)
    x, out = np.arange(4.0), np.zeros(4)
    got = natively(f, x, out)
    assert got[0] is out
    np.testing.assert_array_equal(out, x * 2)
    same(got[1:], [np.float64(12.0), {"x": 1.0}])  # x.item(1): a Python float, as NumPy gives it


def test_reference_counts_are_exact():
    cases = ["named tuple", "dict with int keys", "numbers returned as they came",
             "a returned loop counter used too", "elements of float32", "a constant number and array",
             "nested tuple with None and a list"]
    float32, float64, int64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)
    for name in cases:
        f, args = JITTED[name], CASES[name][1]
        natively(f, *args)
        counts = (sys.getrefcount(float32), sys.getrefcount(float64), sys.getrefcount(int64),
                  sys.getrefcount(None), sys.getrefcount(Pair), sys.getrefcount(args[0]))
        for _ in range(500):
            f(*args)
        after = (sys.getrefcount(float32), sys.getrefcount(float64), sys.getrefcount(int64),
                 sys.getrefcount(None), sys.getrefcount(Pair), sys.getrefcount(args[0]))
        assert after == counts, name


def test_an_error_inside_the_call_releases_what_it_made():
    f = jc.jit(lambda x, i: [x[i], {"y": x * 2}])
    x = np.arange(5.0)
    natively(f, x, 2)
    float64 = np.dtype(np.float64)
    count = sys.getrefcount(float64)
    before = native_calls(f)
    for _ in range(200):
        with pytest.raises(IndexError):
            f(x, 7)
    assert native_calls(f) == before + 200  # raised by the native call's status check
    after = sys.getrefcount(float64)
    assert after == count
    same(f(x, -1), [np.float64(4.0), {"y": x * 2}])


def test_result_programs():
    """The post-order program of a result: outputs in order, containers after their items."""
    tree = jc.pytree.flatten((1, [2, None], {"b": 3, "a": 4}))[1]
    ops, keep = native_call.result_program(tree, 4)
    o = native_call
    codes = [tuple(ops[k:k + 2]) for k in range(0, len(ops), 3)]
    assert codes == [(o.OP_OUTPUT, 0), (o.OP_OUTPUT, 1), (o.OP_OBJECT, 0), (o.OP_LIST, 2),
                     (o.OP_OUTPUT, 2), (o.OP_OUTPUT, 3), (o.OP_DICT, 2), (o.OP_TUPLE, 3)]
    assert keep[0].keep == ("b", "a")  # the dict's keys, pytree's order (the dict's own): its children's
    assert native_call.result_program(tree, 3) is None  # outputs and leaves must agree
    odd_keys = jc.pytree.flatten({(1, 2): 1})[1]  # a key whose hash may run Python code
    assert native_call.result_program(odd_keys, 1) is None


# -- random draws ---------------------------------------------------------------------------------
# The native call makes a variant's draws itself (NumPy's sampler, called as the Python path
# calls it) after checking every other input: a call it cannot finish must never have drawn, or
# the Python path would draw again and the stream would run ahead of NumPy's.
RNG = np.random.default_rng(0)
NOISE_SCALE = np.ones(8)


def noisy(x):
    return x + RNG.normal(size=8) * NOISE_SCALE


def two_draws(x):
    return [x * RNG.random(8), RNG.integers(0, 10, size=(2, 3))]


def test_draws_on_the_native_call_follow_numpys_stream():
    global RNG
    RNG, reference = np.random.default_rng(1), np.random.default_rng(1)
    f, g = jc.jit(noisy), jc.jit(two_draws)
    x = np.linspace(0, 1, 8)
    for _ in range(3):  # the Python path's calls, which offer the native entry
        np.testing.assert_array_equal(f(x), x + reference.normal(size=8))
        got = g(x)
        same(got, [x * reference.random(8), reference.integers(0, 10, size=(2, 3))])
    before = native_calls(f), native_calls(g)
    for _ in range(20):
        np.testing.assert_array_equal(f(x), x + reference.normal(size=8))
        got = g(x)
        same(got, [x * reference.random(8), reference.integers(0, 10, size=(2, 3))])
    assert (native_calls(f), native_calls(g)) == (before[0] + 20, before[1] + 20)


def test_a_changed_input_sends_the_call_to_python_before_any_draw():
    global RNG, NOISE_SCALE
    RNG, reference = np.random.default_rng(2), np.random.default_rng(2)
    f = jc.jit(noisy)
    x = np.linspace(0, 1, 8)
    for _ in range(3):
        np.testing.assert_array_equal(f(x), x + reference.normal(size=8))
    scales = [np.full(8, 2.0), np.full(8, 3.0, np.float32), np.full((2, 8), 0.5), np.ones(8)]
    try:
        for _ in range(2):  # each scale in turn: other dtypes and shapes, then the first again
            for scale in scales:
                NOISE_SCALE = scale
                want = x + reference.normal(size=8) * scale
                np.testing.assert_array_equal(f(x), want)
    finally:
        NOISE_SCALE = np.ones(8)
    assert native_calls(f) >= 4  # (the variants of the same dtype and shape: native)


def test_draws_of_one_number_run_natively_in_step():
    rng, reference = np.random.default_rng(3), np.random.default_rng(3)
    legacy, legacy_reference = np.random.RandomState(3), np.random.RandomState(3)
    f = jc.jit(lambda x: x * rng.normal() + rng.integers(0, 100))  # a Python float, an np.int64
    g = jc.jit(lambda x: x * legacy.rand() + legacy.randint(0, 100))  # a Python float, a Python int
    x = np.arange(3.0)
    for _ in range(6):
        np.testing.assert_array_equal(f(x), x * reference.normal() + reference.integers(0, 100))
        np.testing.assert_array_equal(g(x), x * legacy_reference.rand() + legacy_reference.randint(0, 100))
    assert native_calls(f) >= 3 and native_calls(g) >= 3


def seeded(x):
    np.random.seed(7)
    return x + np.random.rand(3)


def test_a_seed_in_the_function_stays_on_the_python_path_and_in_step():
    f = jc.jit(seeded)
    x = np.arange(3.0)
    for _ in range(4):
        np.random.seed(7)
        want = x + np.random.rand(3)
        np.random.seed(0)  # the function's own seed sets the state again
        np.testing.assert_array_equal(f(x), want)
    assert native_calls(f) == 0


def test_a_draw_unlike_the_first_raises_and_releases_it():
    rng = np.random.default_rng(4)
    f = jc.jit(lambda x: x + rng.random(4))
    x = np.zeros(4)
    natively(f, x)
    variant, inputs = f._fast_cache[jc.dispatch.fast_key((x,))].variants[0]
    made = [np.ones(4), np.ones(5), np.ones(4, np.float32)]
    draw = inputs.slots[0]
    try:  # the sampler replaced by one whose arrays are known (a NumPy sampler's never change)
        inputs.slots[0] = ("draw", lambda: made[0])
        f._native_entries.clear()  # entries made anew (the table dropped: the next call's Python)
        f._native = None
        f(x)
        f(x)
        count = sys.getrefcount(made[0])
        for _ in range(200):
            np.testing.assert_array_equal(f(x), np.ones(4))
        after = sys.getrefcount(made[0])
        assert after == count  # the draw's own reference released, no other held
        for unlike in made[1:]:
            made[0] = unlike
            count = sys.getrefcount(unlike)
            with pytest.raises(jc.UnsupportedError, match="random draw"):
                f(x)
            after = sys.getrefcount(unlike)
            assert after == count
    finally:
        inputs.slots[0] = draw
        f._native_entries.clear()
        f._native = None


# -- nested containers as arguments ---------------------------------------------------------------
def mlp(params, x):
    h = x * params["l1"]["w"] + params["l1"]["b"]
    return h * params["l2"]["w"] + params["l2"]["b"]


def leaf_sum(tree):
    """Every leaf of a nested tree summed, each weighted by where it lies (its key's or index's
    place, more for a tuple's), so that trees of other structures give other sums."""
    if isinstance(tree, dict):
        return sum((leaf_sum(tree[k]) * (i + 1) for i, k in enumerate(sorted(tree))), 0.0)
    if isinstance(tree, (list, tuple)):
        step = 3 if isinstance(tree, tuple) else 1
        return sum((leaf_sum(v) * (i * step + 1) for i, v in enumerate(tree)), 0.0)
    return tree


A, B = np.arange(8.0), np.full(8, 3.0)
TREES = {
    "dicts, a list, a tuple": {"a": {"w": A, "b": B}, "c": [A, (B, 2.0)]},
    "an inner key renamed": {"a": {"w": A, "v": B}, "c": [A, (B, 2.0)]},
    "an inner key more": {"a": {"w": A, "b": B, "d": A}, "c": [A, (B, 2.0)]},
    "an inner tuple a list": {"a": {"w": A, "b": B}, "c": [A, [B, 2.0]]},
    "an inner tuple longer": {"a": {"w": A, "b": B}, "c": [A, (B, 2.0, A)]},
    "an inner array float32, a number an int": {"a": {"w": A.astype(np.float32), "b": B}, "c": [A, (B, 2)]},
    "an inner array 2-d": {"a": {"w": A, "b": np.ones((2, 8))}, "c": [A, (B, 2.0)]},
    "an empty inner tuple": {"a": {"w": A, "b": B}, "c": [A, ()]},
}
TOTAL = jc.jit(leaf_sum)


def test_a_nested_dict_of_parameters_runs_natively():
    f = jc.jit(mlp)
    params = {"l1": {"w": np.full(8, 2.0), "b": np.ones(8)}, "l2": {"w": np.full(8, 0.5), "b": np.zeros(8)}}
    x = np.linspace(-1, 1, 8)
    same(natively(f, params, x), mlp(params, x))
    params["l2"]["b"] = np.full(8, 7.0)  # an inner item replaced between calls: read on each call
    same(f(params, x), mlp(params, x))
    params["l1"] = {"w": np.full(8, 2.0, np.float32), "b": np.ones(8)}  # of another dtype: other code
    same(f(params, x), mlp(params, x))
    assert f.cache_info().compiles == 2
    leaf = params["l2"]["w"]
    f(params, x)
    count = sys.getrefcount(leaf)
    for _ in range(500):
        f(params, x)
    after = sys.getrefcount(leaf)
    assert after == count


def test_nested_structures_each_get_their_own_code():
    for name, tree in TREES.items():
        got = TOTAL(tree)
        np.testing.assert_array_equal(got, leaf_sum(tree), err_msg=name)
    native = {name: natively(TOTAL, tree) is not None for name, tree in list(TREES.items())[:6]}
    assert all(native.values())
    before = native_calls(TOTAL)
    for _ in range(3):  # in turn: each structure its own entry (the first six), none another's
        for name, tree in TREES.items():
            got = TOTAL(tree)
            assert got.dtype == np.asarray(leaf_sum(tree)).dtype, name
            np.testing.assert_array_equal(got, leaf_sum(tree), err_msg=name)
    assert native_calls(TOTAL) >= before + 3 * 6


def test_nesting_deeper_than_the_memo_takes_the_python_path():
    deep = A
    for _ in range(jc.call_memo.MAX_DEPTH + 1):
        deep = [deep]
    f = jc.jit(leaf_sum)
    for _ in range(3):
        np.testing.assert_array_equal(f(deep), A)
    assert native_calls(f) == 0


WEIGHT = np.ones(4)
DRAWS = np.random.default_rng(6)


def weighted_noise(xs):
    return xs[0] * WEIGHT + xs[1] + DRAWS.random(4)


def test_what_a_call_read_is_held_across_its_draws_and_released():
    """The items of a container argument and a global are held before the first draw (a sampler
    may let other threads run) and released after the call, or when a draw raises."""
    f = jc.jit(weighted_noise)
    xs = [np.zeros(4), np.ones(4)]
    natively(f, xs)
    variant, inputs = f._memo[next(iter(f._memo))].executable.variants[0]
    made = [np.full(4, 0.5), np.ones(5)]
    draw = inputs.slots[-1]
    try:
        inputs.slots[-1] = ("draw", lambda: made[0])
        f._native_entries.clear()
        f._native = None
        f(xs)
        f(xs)
        counts = lambda: (sys.getrefcount(xs[0]), sys.getrefcount(xs[1]), sys.getrefcount(WEIGHT),  # noqa: E731
                          sys.getrefcount(made[0]))
        before, calls = counts(), native_calls(f)
        for _ in range(300):
            np.testing.assert_array_equal(f(xs), np.full(4, 1.5))
        after = counts()
        assert after == before and native_calls(f) == calls + 300
        made[0] = made[1]  # unlike the first: raises, having held and released the same
        before = counts()
        for _ in range(50):
            with pytest.raises(jc.UnsupportedError):
                f(xs)
        after = counts()
        assert after == before
    finally:
        inputs.slots[-1] = draw
        f._native_entries.clear()
        f._native = None


# -- named tuples as arguments ------------------------------------------------------------------
Params = namedtuple("Params", "w b")
Twin = namedtuple("Twin", "w b")  # the same fields, another class


class Checked(namedtuple("Checked", "w b")):
    """A named tuple whose class refuses anything without a shape (the memo's markers too)."""

    def __new__(cls, w, b):
        if not hasattr(w, "shape"):
            raise TypeError("arrays only")
        return super().__new__(cls, w, b)


def affine(p, x):
    return x * p.w + p.b * (2 if isinstance(p, Params) else 3)


def test_named_tuple_arguments_by_their_class():
    f = jc.jit(affine)
    x = np.arange(4.0)
    w, b = np.full(4, 2.0), np.ones(4)
    same(natively(f, Params(w, b), x), x * w + b * 2)
    same(natively(f, {"p": [Params(w, b)]}["p"][0], x), x * w + b * 2)
    before = native_calls(f)
    for _ in range(3):  # other classes of the same fields, a plain tuple: their own code each
        same(f(Params(w, b), x), x * w + b * 2)
        same(f(Twin(w, b), x), x * w + b * 3)
        same(f(Params(w, b * 5), x), x * w + b * 10)
    assert native_calls(f) >= before + 6
    g = jc.jit(lambda t: t[0] * 2 + t.b)
    same(g(Checked(w, b)), w * 2 + b)  # markers refused: the full path, the right answer
    same(g(Checked(w, b)), w * 2 + b)
    nested = jc.jit(lambda d: d["layer"].w * d["layer"].b)
    same(natively(nested, {"layer": Params(w, b)}), w * b)


def sizes_and_labels(x):
    n = x.shape[0]
    return (x.sum(), n, x.ndim, x.shape, n / 2, n > 3, "done", {"count": x.size, "label": "x"}, x.dtype,
            2.5, -0.0)


def test_python_values_returned_are_themselves():
    # A size, a label, a Python float or bool made while tracing: returned as Python objects,
    # as the function gives them without jit (json.dumps, isinstance(n, int) keep working).
    f = jc.jit(sizes_and_labels)
    for args in ((X,), (X.reshape(2, 4),)):
        got, want = natively(f, *args), sizes_and_labels(*args)
        same(got, want)
        same(python_call(f, *args), want)
        assert type(got[1]) is int and type(got[5]) is bool and type(got[6]) is str
        assert np.copysign(1.0, got[-1]) == -1.0  # -0.0 itself, not 0.0
    label = f(X)[6]
    before = sys.getrefcount(label)
    for _ in range(1000):  # no reference leaked or lost by the constants the entry returns
        f(X)
    assert abs(sys.getrefcount(label) - before) <= 2


def python_numbers(x, k, s):
    count = 0
    for _ in range(x.shape[0]):  # noqa: B007
        count += k  # Python ints, traced: a Python int back
    return k, s * 2, count, x.item(0), x[:2].tolist(), any(x > 100), x.sum()


@pytest.mark.parametrize("x", [X, X32, I8])
def test_python_numbers_computed_are_python_numbers(x):
    # An int argument, a float times 2, a counter, item(), tolist(), any(): Python's numbers, as
    # without jit (session 41); x.sum() stays NumPy's scalar.
    f = jc.jit(python_numbers)
    with np.errstate(invalid="ignore"):
        want = python_numbers(x, 3, 1.25)
    got = natively(f, x, 3, 1.25)
    same(got, want)
    same(python_call(f, x, 3, 1.25), want)
