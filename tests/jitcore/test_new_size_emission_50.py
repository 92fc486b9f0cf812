"""emit50: a new size reuses an earlier size's plan and LLVM text where every guard recorded by
its emission answers the same (jitcore/emission_reuse.py, codegen/extent_guards.py), against
plain NumPy and a fresh jit of each size.

Every test runs with ``emission_reuse.CHECK`` (and ``new_size.CHECK``): each plan from guards,
and each plan lowered with Extents, is compared with the plan lowered as before, so a guard
that was not recorded fails here.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
import jitcore.numpy as jnp
from jitcore import emission_reuse, new_size
from jitcore.codegen import extent_guards
from jitcore.codegen.plan import CompiledFunction
from tests.budget import examples


@pytest.fixture(autouse=True)
def checked(monkeypatch):
    monkeypatch.setattr(new_size, "CHECK", True)
    monkeypatch.setattr(emission_reuse, "CHECK", True)


def chain(x):
    return jnp.tanh(x * 2.0 + 1.0) * 0.5 + x * x


def total(x):
    return x.sum()


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def masked(x):
    return x[x > 0].sum()


def bias(a, w, b):
    return a @ w + b


def head98(x):  # a literal 98: n - 2 at n = 100 only (the emitter's derived guess)
    return x[:98] * 2.0


def times_len(x):
    return x * len(x)


def carried(x):
    y = x
    for _ in range(4):
        y = y * 0.5 + x
    return y


def _args(fn, n):
    rng = np.random.default_rng(n)
    if fn is softmax:
        return (rng.standard_normal((n, 16)),)
    if fn is bias:
        return (rng.standard_normal((n, 8)), rng.standard_normal((8, 8)), rng.standard_normal(8))
    if fn is head98:
        return (rng.standard_normal(max(n, 98)),)
    return (rng.standard_normal(n),)


def _same(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def _run(fn, sizes):
    """Call one jitted ``fn`` at each size: bits equal to a fresh jit's, close to NumPy's."""
    jitted = jc.jit(fn, cache=False)
    for n in sizes:
        args = _args(fn, n)
        copies = [a.copy() for a in args]
        got = jitted(*args)
        fresh = jc.jit(fn, cache=False)(*args)
        assert type(got) is type(fresh)
        _same(got, fresh)
        expected = fn(*copies)
        assert np.asarray(got).dtype == np.asarray(expected).dtype
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        for a, c in zip(args, copies):  # the arguments after the call
            _same(a, c)
    return jitted


FUNCTIONS = [chain, total, softmax, masked, bias, head98, times_len, carried]
# 0 and 1 (no symbols), the tiny class (64 points) and 17 (the first symbol), 98 and 100
# (a constant that is n - 2), sizes far apart
SIZES = st.lists(st.sampled_from([0, 1, 2, 17, 18, 40, 63, 64, 65, 97, 98, 99, 100, 101, 128,
                                  300, 1000, 4097]), min_size=3, max_size=6)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@settings(max_examples=examples(6, 3), deadline=None)
@given(sizes=SIZES)
def test_sizes_against_fresh_jit_and_numpy(fn, sizes):
    _run(fn, sizes)


def _counts():
    return dict(emission_reuse.COUNTS)


def _delta(before):
    return {k: v - before[k] for k, v in emission_reuse.COUNTS.items()}


@pytest.mark.parametrize("fn", [chain, total, softmax, masked, bias], ids=lambda f: f.__name__)
def test_emission_skipped_at_the_third_size(fn):
    # 100: the pipeline; 200: resized, lowered with Extents; 300 and 400: from the guards
    before = _counts()
    jitted = _run(fn, [100, 200, 300, 400])
    assert _delta(before) == {"guarded": 1, "reused": 2, "refused": 0}
    assert jitted.cache_info().reused == 3  # the machine code too


def test_guard_fails_across_the_tiny_class():
    # 20 and 30 points are tiny kernels (TINY_WORK), 100 and 200 are not: 100's guard on the
    # work fails and it emits again; 200 reuses 100's
    before = _counts()
    _run(chain, [20, 30, 40])
    assert _delta(before) == {"guarded": 1, "reused": 1, "refused": 0}
    jitted = _run(chain, [20, 30, 100, 200])
    assert _delta(before) == {"guarded": 3, "reused": 2, "refused": 0}
    assert jitted.cache_info().compiles == 2  # the tiny code and the other


def test_derived_constant_guard_fails():
    # a literal 98 is n - 2 at n = 100 (a run-time value in the code), a constant at 200
    before = _counts()
    _run(head98, [99, 100, 200, 300])
    delta = _delta(before)
    assert delta["reused"] <= 1 and delta["guarded"] >= 2


def test_an_extent_answers_only_through_its_log():
    log = extent_guards.Log((100, 7))
    n, m = log.extents()
    assert isinstance(n, int) and type(n) is extent_guards.Extent
    k = n - 2
    assert type(k) is extent_guards.Extent and not log.guards  # arithmetic answers nothing
    assert k > 90 and (m * 2 == 14)
    assert log.holds((100, 7)) and log.holds((200, 7)) and not log.holds((50, 7))
    assert not log.holds((100, 8))
    assert list(range(k)) == list(range(98))  # C code reads it through __index__: pinned
    assert not log.holds((200, 7)) and log.holds((100, 7))
    for escape in (str, repr, hash, float, lambda v: f"{v:d}", lambda v: "%d" % v,  # noqa: UP031 (the C formatter)
                   lambda v: [0] * (v - 99), lambda v: np.arange(v).size, pickle.dumps):
        log = extent_guards.Log((100,))
        (n,) = log.extents()
        escape(n)
        assert log.holds((100,)) and not log.holds((101,)), escape


def test_template_instantiated_at_the_new_sizes():
    log = extent_guards.Log((100,))
    (n,) = log.extents()
    plan = CompiledFunction("cpu", "s", (False,), (False,),
                                        buffers=[((n, n - 1), np.dtype("f8"))])
    got = extent_guards.instantiate(plan, (300,), log)
    assert got.buffers == [((300, 299), np.dtype("f8"))]
    assert type(got.buffers[0][0][0]) is int and log.poisoned is None and not log.guards
    extent_guards.instantiate(np.array([n], dtype=object), (300,), log)
    assert log.poisoned is not None and not log.holds((100,))


def outer_rows(x, y):  # two symbols: the emitter may compare them (n < m), never hash them
    return (x[:, None] * y[None, :]).sum(axis=0) + y


def gram(a):
    return a.T @ a


PAIRS = st.lists(st.tuples(st.sampled_from([1, 17, 20, 33, 64, 65, 100]),
                           st.sampled_from([1, 17, 20, 33, 64, 65, 100])), min_size=3, max_size=5)


@pytest.mark.parametrize("fn", [outer_rows, gram], ids=lambda f: f.__name__)
@settings(max_examples=examples(6, 3), deadline=None)
@given(pairs=PAIRS)
def test_two_symbols_against_fresh_jit_and_numpy(fn, pairs):
    jitted = jc.jit(fn, cache=False)
    for n, m in pairs:
        rng = np.random.default_rng(n * 1000 + m)
        args = ((rng.standard_normal(n), rng.standard_normal(m)) if fn is outer_rows
                else (rng.standard_normal((n, m)),))
        got = jitted(*args)
        _same(got, jc.jit(fn, cache=False)(*args))
        np.testing.assert_allclose(got, fn(*args), rtol=1e-10, atol=1e-10)


def test_two_symbols_reuse_only_where_their_order_holds():
    before = _counts()
    jitted = jc.jit(outer_rows, cache=False)
    for n, m in ((30, 40), (50, 60), (70, 80), (90, 100)):
        rng = np.random.default_rng(n)
        x, y = rng.standard_normal(n), rng.standard_normal(m)
        _same(jitted(x, y), jc.jit(outer_rows, cache=False)(x, y))
    assert _delta(before)["reused"] == 2


def test_extents_of_two_lowerings_poison_both():
    # an Extent kept by a cache across lowerings reads another function's symbols
    first, second = extent_guards.Log((100,)), extent_guards.Log((100,))
    (n,), (m,) = first.extents(), second.extents()
    assert (n + m == 200) and not (n < m)
    assert first.poisoned and second.poisoned
    assert not first.holds((100,)) and not second.holds((100,))
    log = extent_guards.Log((100,))
    (k,) = extent_guards.Log((100,)).extents()
    assert extent_guards.instantiate([k], (300,), log) == [100] and log.poisoned
