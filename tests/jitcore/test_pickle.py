"""Pickling and copying jitted functions (issue 13, item 6): by reference to a module-level
function with its options, lambdas and closures through cloudpickle or a clear error, copies
that are equivalent, and a process pool under fork and spawn."""

from __future__ import annotations

import copy
import functools
import multiprocessing
import pickle
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import JitPicklingError
from tests.jitcore import pickle_helpers as helpers
from tests.oracle import assert_matches

X = np.linspace(-1.0, 1.0, 9)


def roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


@pytest.fixture
def without_cloudpickle(monkeypatch):
    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # `import cloudpickle` raises ImportError


def test_decorated_module_level_function_pickles_as_a_reference():
    helpers.scaled_tanh(X)
    data = pickle.dumps(helpers.scaled_tanh)
    assert b"scaled_tanh" in data and len(data) < 200  # a name, not code
    assert pickle.loads(data) is helpers.scaled_tanh


def test_module_level_function_pickles_with_its_options():
    restored = roundtrip(helpers.jitted_power)
    assert restored is not helpers.jitted_power
    assert restored.fun is helpers.power
    assert restored.options == helpers.jitted_power.options and restored.options.fastmath
    assert restored._static_names == {"n"} and restored.autograph
    assert_matches(restored(X, n=3), helpers.jitted_power(X, n=3))


def test_lambda_and_closure_go_through_cloudpickle():
    pytest.importorskip("cloudpickle")
    w = np.arange(9.0)
    f = jc.jit(lambda x, k: x * w + k, static_argnums=1)
    restored = roundtrip(f)
    assert restored._static_nums == {1}
    assert_matches(restored(X, 2), X * w + 2)


def test_lambda_without_cloudpickle_says_what_to_do(without_cloudpickle):
    f = jc.jit(lambda x: x + 1)
    with pytest.raises(JitPicklingError, match=r"cannot pickle jitted .*<lambda>\(\) \(defined at "
                                               r".*test_pickle.py:\d+\).*define it at module level, "
                                               "or install cloudpickle") as err:
        pickle.dumps(f)
    assert isinstance(err.value, pickle.PicklingError)


def test_local_function_without_cloudpickle_is_refused(without_cloudpickle):
    def local(x):
        return x * 2

    with pytest.raises(JitPicklingError, match="local"):
        pickle.dumps(jc.jit(local))
    # A partial of a module-level function needs no cloudpickle.
    restored = roundtrip(jc.jit(functools.partial(helpers.power, n=2)))
    assert_matches(restored(X), X ** 2)


def test_callable_object_and_bound_method_pickle_without_cloudpickle(without_cloudpickle):
    restored = roundtrip(jc.jit(helpers.Affine(2.0, 1.0)))
    assert_matches(restored(X), X * 2.0 + 1.0)
    restored = roundtrip(jc.jit(helpers.Affine(3.0, 0.0).__call__))
    assert_matches(restored(X), X * 3.0)


def test_method_and_bound_method_pickle():
    model = helpers.Model(3.0)
    assert roundtrip(helpers.Model.apply) is helpers.Model.apply
    bound = roundtrip(model.apply)
    assert bound.__self__ == model
    assert_matches(bound(X), X * 3.0)


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
def test_copies_are_equivalent_jitted_functions(copier, capfd):
    f = jc.jit(helpers.power, static_argnames=("n",), fastmath=True)
    assert_matches(f(X, n=2), X ** 2)  # compiled: the copy must not copy compiled code
    g = copier(f)
    assert isinstance(g, jc.JitFunction) and g is not f
    assert g.fun is f.fun and g.options == f.options and g._static_names == f._static_names
    assert_matches(g(X, n=2), X ** 2)
    assert g.cache_info().compiles == 1 and f.cache_info().compiles == 1  # caches of their own
    del g
    assert capfd.readouterr().err == ""  # no noise from a half-copied LLVM object's __del__


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_process_pool_map(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method on this platform")
    seeds = range(4)
    expected = [helpers.square_sum(s) for s in seeds]  # the same code here: the same bits
    np.testing.assert_allclose(
        expected, [(np.tanh(np.random.default_rng(s).standard_normal(64) * 2.0) + 1.0).sum() for s in seeds])
    xs = [np.linspace(-1.0, 1.0, 5) * s for s in seeds]
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        assert list(pool.map(helpers.square_sum, seeds)) == expected
        for x, y in zip(xs, pool.map(helpers.scaled_tanh, xs)):  # the jitted function pickled
            assert_matches(y, helpers.scaled_tanh(x))
