"""The premise of a cut of the test suite's time (docs/performance.md, "The test suite's time,
session 50"): test_threads_runtime.py compiles its unsplit references without LLVM's loop
unroller, which must change no bit of a float result (the unroller repeats a loop's
operations in their order and reassociates nothing without fastmath)."""

import numpy as np
import pytest

import jitcore as jc
import jitcore.numpy as jnp
from jitcore.codegen import host
from jitcore.codegen.cpu import backend, runtime

REDUCTIONS = {
    "sum": lambda x: x.sum(),
    "dot-like": lambda x: (x * x - x).sum(),
    "log-exp": lambda x: jnp.sum(jnp.log(jnp.exp(x))),
    "mean-keepdims": lambda x: x.mean(keepdims=True),
    "argmax": lambda x: x.argmax(),
}


def _unsplit(fn, x, unroller: bool, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(runtime, "MIN_SPLIT_WORK", 1 << 62)
        m.setattr(host, "SIZE_GENERIC", False)
        if not unroller:
            m.setattr(backend, "UNROLLED_WORK", 1 << 62)
        f = jc.jit(fn)
        text = f.lower(x).plan().llvm_ir
        assert ("jitcore.no_unroll" in text) is not unroller  # compiled as asked
        return np.asarray(f(x))


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_unroller_changes_no_bit_of_an_unsplit_full_reduction(name, dtype, monkeypatch):
    fn = REDUCTIONS[name]
    x = np.random.default_rng(50).standard_normal(4096 * 2 + 1).astype(dtype)
    x[[3, 4000]] = x.max() + 1  # ties: the first occurrence wins
    with_it, without = _unsplit(fn, x, True, monkeypatch), _unsplit(fn, x, False, monkeypatch)
    assert with_it.dtype == without.dtype and with_it.shape == without.shape
    np.testing.assert_array_equal(with_it.reshape(-1).view(np.uint8), without.reshape(-1).view(np.uint8))
    want = fn(x) if name != "log-exp" else x.astype(np.float64).sum()
    np.testing.assert_allclose(without, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)
