"""Ordinary code new users wrote (session 48's reports), compared with plain Python + NumPy:
results, dtypes, Python types, the arguments after the call.

- a draw sized by a static Python int (``n = x.shape[0]``) inside a loop that stays a loop
  (``rng.random(n)``, ``rng.permutation(n)`` per epoch): the int stays static; the numbers
  and the generator's state are NumPy's;
- a dict keyed by the counter of a static range, in a body that becomes a loop: unrolled, as
  Python runs it, where a key needs the counter;
- an array made inside the function, held by a second name (a list, a tuple, a dict, a loop
  variable, a view, an object's attribute) and written in place with traced values: every
  holder sees the write, as NumPy's do (the training loop's ``for p, g in zip(params, grads):
  p -= lr * g``; Adam's moment lists), in unrolled and compiled loops.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.errors import UnsupportedError
from tests.jit_once import jit_once


def same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=0)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, float):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    else:
        assert a == b


def check(f, *args, **jit_kwargs):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = f(*want_args)
    got = jit_once(f, **jit_kwargs)(*got_args)
    same(got, want)
    same(got_args, want_args)
    return got


# -- 1. arrays made inside, written through another holder -------------------------------------
def through_loop_variable(X):
    W = np.zeros((X.shape[1], 2))
    for p in [W]:
        p -= 0.01 * X.sum()
    return W


def training_step(X, y):
    W1 = np.zeros((X.shape[1], 3))
    b1 = np.zeros(3)
    params = [W1, b1]
    ms = [np.zeros_like(p) for p in params]
    for _ in range(3):
        h = X @ params[0] + params[1]
        err = h.sum(axis=1) - y
        grads = [X.T @ np.outer(err, np.ones(3)), np.full(3, err.sum())]
        for m, g in zip(ms, grads):
            m *= 0.9
            m += 0.1 * g
        for p, m in zip(params, ms):
            p -= 0.01 * m
    return W1, b1, ms, params[0] is W1


def held_in_dict_and_tuple(X):
    W = np.zeros(3)
    d = {"w": W}
    t = (W,)
    d["w"] += X.sum()
    t[0][1] += 1.0
    return W, d["w"], t[0]


def held_by_view(X):
    W = np.zeros((2, 3))
    row = W[1]
    for p in [W]:
        p += X.sum()
    return row, W


def second_name(X):
    W = np.zeros(3, dtype=np.float32)
    V = W
    V += X[0]
    V[0] = X.sum()
    return W, V


class Layer:
    def __init__(self, n):
        self.W = np.zeros(n)


def attribute_and_list(X):
    layer = Layer(X.shape[1])
    held = [layer.W]
    for p in held:
        p -= X[0]
    return layer.W, held


def compiled_loop(X, n):
    W = np.zeros((X.shape[1], 2))
    b = np.zeros(2)
    params = [W, b]
    for _ in range(n):
        for p in params:
            p -= 0.01 * X.sum()
    return W, b


def compiled_moments(X, n):
    ms = [np.zeros(3), np.zeros(3)]
    s = 0.0
    for it in range(n):
        for m in ms:
            m *= 0.9
            m += X[it % 4]
        s += ms[0].sum()
    return ms, s


def second_name_in_loop(X, n):
    W = np.zeros(3)
    for it in range(n):
        p = W
        p += X[it % 4]
    return W


X = np.arange(12.0).reshape(4, 3)


@pytest.mark.parametrize("f", [through_loop_variable, held_in_dict_and_tuple, held_by_view,
                               second_name, attribute_and_list])
def test_written_through_another_holder(f):
    check(f, X)


def test_training_step():
    check(training_step, X, np.array([1.0, 0.0, 2.0, 1.0]))


@pytest.mark.parametrize("f", [compiled_loop, compiled_moments, second_name_in_loop])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_in_loops(f, n):
    check(f, X, n)


def test_loop_of_many_trips():
    got = jc.jit(compiled_moments)(X, 100_000)
    same(got, compiled_moments(X, 100_000))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 4), st.integers(1, 4), st.floats(-2, 2, allow_nan=False))
def test_loop_variable_hypothesis(rows, cols, lr):
    def f(X, lr):
        W = np.ones((X.shape[1], 2))
        b = np.zeros(2)
        for p, g in zip([W, b], [X.T @ np.ones((X.shape[0], 2)), X.sum(0)[:1] * np.ones(2)]):
            p -= lr * g
        return W, b

    x = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols)
    check(f, x, lr)


def test_holder_bound_outside_a_traced_loop_is_refused_or_right():
    def f(X, n):
        W = np.zeros(3)
        d = [W]
        for it in range(n):
            for q in d:
                q += X[it % 4]
        return W

    try:
        got = jc.jit(f)(X, 5)
    except UnsupportedError as e:
        assert "holds it too" in str(e)
    else:
        same(got, f(X, 5))


@pytest.mark.parametrize("f", [compiled_loop, compiled_moments])
def test_loop_stays_a_loop(f):
    """The arrays are made traced as the loop starts (not unrolled by a static trip count)."""
    assert "scf.for" in str(jc.make_ir(f)(X, 5))


def training_loop(X, y, n):
    W = np.zeros((X.shape[1], 1))
    b = np.zeros(1)
    params = [W, b]
    ms = [np.zeros_like(p) for p in params]
    for _ in range(n):
        err = (X @ W + b)[:, 0] - y
        grads = [X.T @ err[:, None] / len(y), np.array([err.mean()])]
        for m, g in zip(ms, grads):
            m *= 0.9
            m += 0.1 * g
        for p, m in zip(params, ms):
            p -= 0.1 * m
    return W, b


def test_training_loop_compiled():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 4))
    y = x @ np.arange(4.0) + 1
    assert "scf.for" in str(jc.make_ir(training_loop)(x, y, 5))
    for n in (0, 3, 200):
        want = training_loop(x, y, n)
        got = jc.jit(training_loop)(x, y, n)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


# -- 2. a draw sized by a static Python int in a loop that stays a loop ------------------------
def sized_by_shape(x, seed):
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    s = 0.0
    for _ in range(30):
        s += (rng.random(n) * x).sum()
    return s


def static_count(seed, n):
    rng = np.random.default_rng(seed)
    s = 0.0
    k = n
    for _ in range(30):
        s += rng.random(k).sum()
    return s


def integers_sized(x, seed):
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    s = 0
    for _ in range(30):
        s += (rng.integers(0, 10, size=n) * x).sum()
    return s


def choice_of_n(x, seed):
    n = x.shape[0]
    rng = np.random.default_rng(seed)
    s = 0.0
    for _ in range(30):
        s += x[rng.choice(n, 3, replace=False)].sum()
    return s


def sgd_permuted(X, y, seed):
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    w = np.zeros(X.shape[1])
    for _ in range(20):
        perm = rng.permutation(n)
        for i in range(0, n, 2):
            idx = perm[i:i + 2]
            w -= 0.01 * X[idx].T @ (X[idx] @ w - y[idx])
    return w


def generator_argument(x, rng):
    n = x.shape[0]
    s = 0.0
    for _ in range(30):
        s += (rng.standard_normal(n) * x).sum()
    return s


@pytest.mark.parametrize("f", [sized_by_shape, integers_sized, choice_of_n])
@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(3, 6), seed=st.integers(0, 2**32 - 1))
def test_draw_sized_by_a_static_int_in_a_loop(f, n, seed):
    x = np.arange(float(n)) if f is not integers_sized else np.arange(n)
    check(f, x, seed)


def test_draw_sized_by_a_static_argument_in_a_loop():
    check(static_count, 3, 4, static_argnums=1)


def test_draw_sized_loop_stays_a_loop():
    assert "scf.for" in str(jc.make_ir(sized_by_shape)(np.arange(5.0), 1))


def test_permutation_per_epoch_with_an_in_place_update():
    X = np.arange(12.0).reshape(6, 2) / 10
    y = np.arange(6.0)
    got = jc.jit(sgd_permuted)(X, y, 1)
    np.testing.assert_allclose(got, sgd_permuted(X, y, 1), rtol=1e-12, atol=1e-15)  # (matmul order)


def test_generator_state_after_the_call():
    x = np.arange(5.0)
    want_rng, got_rng = np.random.default_rng(7), np.random.default_rng(7)
    want = generator_argument(x, want_rng)
    got = jc.jit(generator_argument)(x, got_rng)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got_rng.bit_generator.state == want_rng.bit_generator.state
    assert got_rng.random() == want_rng.random()


# -- 3. a dict keyed by the counter of a static range ------------------------------------------
def f1_by_class_literal(pred, y):
    out = {}
    for c in range(3):
        tp = np.sum((pred == c) & (y == c))
        fp = np.sum((pred == c) & (y != c))
        fn = np.sum((pred != c) & (y == c))
        prec = tp / (tp + fp) if tp + fp > 0 else 0.0
        rec = tp / (tp + fn) if tp + fn > 0 else 0.0
        out[c] = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    return out


def f1_by_class(pred, y, k):
    out = {}
    for c in range(k):
        tp = np.sum((pred == c) & (y == c))
        fp = np.sum((pred == c) & (y != c))
        fn = np.sum((pred != c) & (y == c))
        prec = tp / (tp + fp) if tp + fp > 0 else 0.0
        rec = tp / (tp + fn) if tp + fn > 0 else 0.0
        out[c] = 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0
    return out


def keyed_by_derived_counter(x):
    out = {}
    for c in range(4):
        v = x[c] * 2 if x[c] > 0 else -x[c]
        w = v + 1 if v > 1 else v - 1
        u = w * 3 if w > 2 else w
        if c in {0, 2}:  # (a set's membership hashes the counter too)
            u = u + 0.5
        out[c + 1] = u if u > 0 else 0.0
    return out


def values_only(d):
    return {k: float(v) for k, v in d.items()}


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(*[st.lists(st.integers(0, 2), min_size=4, max_size=4)] * 2)
def test_dict_keyed_by_a_static_range_counter(p, t):
    pred, y = np.array(p), np.array(t)
    want, got = f1_by_class_literal(pred, y), jc.jit(f1_by_class_literal)(pred, y)
    assert list(got) == list(want) and all(type(k) is int for k in got)
    assert values_only(got) == pytest.approx(values_only(want), rel=1e-15)
    want, got = f1_by_class(pred, y, 3), jc.jit(f1_by_class)(pred, y, 3)
    assert list(got) == list(want) and all(type(k) is int for k in got)
    assert values_only(got) == pytest.approx(values_only(want), rel=1e-15)


def test_dict_keyed_by_a_counter_expression():
    for x in (np.array([0.5, -1.0, 3.0, 0.0]), np.array([-2.0, 2.0, 0.25, 1.5])):
        want, got = keyed_by_derived_counter(x), jc.jit(keyed_by_derived_counter)(x)
        assert list(got) == list(want) and all(type(k) is int for k in got)
        assert values_only(got) == pytest.approx(values_only(want), rel=1e-15)


def test_traced_key_still_refused_with_its_advice():
    def f(x):
        return {x.argmax(): 1}

    with pytest.raises(jc.JitTypeError, match="cannot be a dict key"):
        jc.jit(f)(np.arange(3.0))


# -- a list a compiled loop carries (assigns) whose array another name holds ---------------------
def item_read_then_written(X, n):
    W = np.zeros((X.shape[1], 2))
    params = [W]
    for it in range(n):
        q = params[0]
        q -= X[it % 4, 0]
    return W


def dict_item_written(X, n):
    W = np.zeros(3)
    d = {"w": W}
    for it in range(n):
        d["w"] += X[it % 4]
    return W


def argument_item_written(W, X, n):
    params = [W]
    for it in range(n):
        q = params[0]
        q -= X[it % 4, 0]
    return W


def indexed_updates(X, n, nb):
    W = np.ones(3)
    b = np.zeros(3)
    params = [W, b]
    ms = [np.zeros(3), np.zeros(3)]
    s = 0.0
    for _ in range(n):
        for bi in range(nb):
            s += (W * X[bi % 4] + b).sum()
            grads = [X[bi % 4] * s, X[(bi + 1) % 4]]
            for i in range(2):
                ms[i] = 0.9 * ms[i] + 0.1 * grads[i]
                params[i] -= 0.01 * ms[i]
    return W, b, s


@pytest.mark.parametrize("f", [item_read_then_written, dict_item_written])
def test_carried_container_item_written_is_numpys_or_refused(f):
    """Was a wrong answer (the loop carried the list's item by value, W kept its zeros)."""
    try:
        got = jc.jit(f)(X, 7)
    except UnsupportedError as e:
        assert "by value" in str(e)
    else:
        same(got, f(X, 7))


def test_carried_container_item_of_an_argument():
    want_w, got_w = np.zeros((3, 2)), np.zeros((3, 2))
    want = argument_item_written(want_w, X, 7)
    try:
        got = jc.jit(argument_item_written)(got_w, X, 7)
    except UnsupportedError as e:
        assert "by value" in str(e)
    else:
        same(got, want)
        same(got_w, want_w)


def test_indexed_updates_in_a_loop_that_compiles_its_rest():
    for nb in (2, 3, 40):
        try:
            got = jc.jit(indexed_updates)(X, 2, nb)
        except UnsupportedError as e:
            assert "by value" in str(e)
        else:
            same(got, indexed_updates(X, 2, nb))
