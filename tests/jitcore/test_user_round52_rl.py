"""What a reinforcement-learning user met in session 52, against NumPy: Bellman backups'
stacked products (and the kernels they run on), ``choice`` with float32 and float16
probabilities, a helper's loop-built transition tensor bound to a variable, ``size=`` of every
sampler made static on demand, and an episode's list of rewards iterated backwards."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.codegen.cpu import blas


def _within_bound(got, want, a, b, dtype):
    """``got`` within the forward error bound of ``a @ b`` (k terms): 2 k eps (|a| @ |b|)."""
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert got.dtype == want.dtype == dtype and got.shape == want.shape == scale.shape
    k = a.shape[-1]
    assert np.all(np.abs(got - want) <= 2 * k * np.finfo(dtype).eps * scale + np.finfo(dtype).tiny)


def _backups(P, V, PA, W, B):
    return (P @ V, np.einsum("sat,t->sa", P, V), PA @ V, np.swapaxes(P, 0, 1) @ V, PA @ W, PA @ B)


def _check_backups(jitted, P, V, W, B, dtype):
    PA = np.ascontiguousarray(P.transpose(1, 0, 2))
    got = jitted(P, V, PA, W, B)
    want = _backups(P, V, PA, W, B)
    operands = [(P, V), (P, V), (PA, V), (PA, V), (PA, W), (PA, B)]
    for g, w, (a, b) in zip(got, want, operands):
        _within_bound(g, w, a, b, dtype)
    return (P, V, PA, W, B)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_stacked_products_of_a_bellman_backup_match_numpy_on_their_kernels(dtype):
    """P @ V of P (S, A, S) or (A, S, S): jitcore's matrix-vector kernel, the output dims as
    one (no threaded gemv); a permuted stack (not nested) keeps BLAS. A stack times a thin W
    (4 x 300^2 x 3, past BLAS's threading point): float32 one gemm per matrix, float64 the
    tiled kernel. A batch of products (4 of 300^2 x 3): BLAS per product. A
    second size runs the size-generic kernel: its output extent a product of run-time dims."""
    rng = np.random.default_rng(52)
    jitted = jc.jit(_backups, cache=False)
    S, A = 300, 4
    args = _check_backups(
        jitted,
        rng.random((S, A, S)).astype(dtype),
        rng.standard_normal(S).astype(dtype),
        rng.standard_normal((S, 3)).astype(dtype),
        rng.standard_normal((A, S, 3)).astype(dtype),
        dtype,
    )
    if blas.library() is not None:
        text = jitted.lower(*args).plan().llvm_ir
        letter = "s" if dtype == np.float32 else "d"
        assert text.count(f"cblas_{letter}gemv") == 2  # the permuted stack's only: declared, called
        assert ("jitcore_gemm_micro" in text) == (dtype == np.float64)
        assert f"cblas_{letter}gemm" in text
    S, A = 37, 5
    _check_backups(
        jitted,
        rng.random((S, A, S)).astype(dtype),
        rng.standard_normal(S).astype(dtype),
        rng.standard_normal((S, 3)).astype(dtype),
        rng.standard_normal((A, S, 3)).astype(dtype),
        dtype,
    )


def test_choice_takes_float32_and_float16_probabilities_as_numpy_does():
    """NumPy's tolerance of p's sum is sqrt(eps) of p's own float dtype (float64's at least):
    a float32 softmax summing to 1 + 2e-8 draws; 1 + 1e-3 raises NumPy's error."""
    logits = np.array([0.1, 0.2, 0.3, 5.0, -1.0, 0.7, 0.01])
    p64 = np.exp(logits) / np.exp(logits).sum()

    def pick(rng, p):
        return rng.choice(p.size, size=5, p=p)

    jitted = jc.jit(pick)
    for dtype in (np.float32, np.float16):
        p = p64.astype(dtype)
        assert abs(float(p.astype(np.float64).sum()) - 1) > np.sqrt(np.finfo(np.float64).eps)
        np.testing.assert_array_equal(jitted(np.random.default_rng(3), p), pick(np.random.default_rng(3), p))
    far = (p64 * 1.001).astype(np.float32)
    with pytest.raises(ValueError, match="do not sum to 1") as want:
        pick(np.random.default_rng(3), far)
    with pytest.raises(ValueError) as got:
        jitted(np.random.default_rng(3), far)
    assert str(got.value) == str(want.value)

    def legacy(state, p):
        return state.choice(p.size, p=p)

    p = p64.astype(np.float32)
    assert jc.jit(legacy)(np.random.RandomState(5), p) == legacy(np.random.RandomState(5), p)


def _grid_P(nr, nc, slip):
    S = nr * nc
    P = np.zeros((S, 4, S))
    moves = [(-1, 0), (0, 1), (1, 0), (0, -1)]
    for r in range(nr):
        for c in range(nc):
            s = r * nc + c
            for a in range(4):
                for b, prob in ((a, 1 - slip), ((a + 1) % 4, slip / 2), ((a + 3) % 4, slip / 2)):
                    dr, dc = moves[b]
                    r2 = min(max(r + dr, 0), nr - 1)
                    c2 = min(max(c + dc, 0), nc - 1)
                    P[s, a, r2 * nc + c2] += prob
    return P


def test_a_helpers_loop_built_tensor_bound_to_a_variable():
    """The helper's long loop fails to compile (its body needs Python ints) and runs in
    Python: the copy made for trying it is dropped, so the caller's P is not taken as stale."""

    def bound(nr, nc):
        P = _grid_P(nr, nc, 0.2)
        return P, P.sum(axis=-1)

    got, want = jc.jit(bound)(3, 4), bound(3, 4)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_every_samplers_size_is_made_static_on_demand():
    """size=(3, n) of an int argument beside parameters computed in the function, by keyword
    or in its place (each its own function: the first would make n static for the second):
    beta (drawn by NumPy's sampler as the code runs) as normal's was; one compile per n."""

    def by_keyword(rng, a, n):
        return rng.beta(a + 1, 2.0, size=(3, n))

    def in_its_place(rng, a, n):
        return rng.beta(a[:, 0] + 1, 1.0, (2, n, 3))

    a = np.array([[1.0], [2.0], [3.0]])
    for draws in (by_keyword, in_its_place):
        jitted = jc.jit(draws)
        for n in (4, 2):
            got, want = jitted(np.random.default_rng(n), a, n), draws(np.random.default_rng(n), a, n)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)


def _rollout(P, R, rng, pi, gamma, max_T):
    S = P.shape[0]
    cum = P.cumsum(-1)
    s = 0
    rewards = []
    gains = []
    t = 0
    while t < max_T:
        a = pi[s]
        rewards.append(R[s, a])
        if R[s, a] > 0:
            gains.append(float(R[s, a]))
        s = min(int((cum[s, a] < rng.random()).sum()), S - 1)
        t += 1
        if s == S - 1:
            break
    G = 0.0
    out = []
    for r in reversed(rewards):
        G = r + gamma * G
        out.append(G)
    total = 0.0
    for r in rewards:
        total = total + r
    for g in reversed(gains):  # (kept under a traced if: not the first rows)
        total = total * 0.5 + g
    return np.array(out[::-1]), total


def test_an_episodes_rewards_iterated_backwards_for_its_returns():
    """rewards appended in a loop the data ends, then for r in reversed(rewards) appending the
    returns, out[::-1], and a forward loop: NumPy's values for episodes of several lengths."""
    rg = np.random.default_rng(9)
    P = rg.random((6, 2, 6))
    P /= P.sum(-1, keepdims=True)
    R = rg.standard_normal((6, 2))
    pi = np.array([0, 1, 0, 1, 0, 1])
    jitted = jc.jit(_rollout)
    lengths = set()
    for seed in range(6):
        got = jitted(P, R, np.random.default_rng(seed), pi, 0.9, 50)
        want = _rollout(P, R, np.random.default_rng(seed), pi, 0.9, 50)
        lengths.add(want[0].shape[0])
        assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
        assert type(got[1]) is type(want[1])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    assert len(lengths) > 2  # (episodes the data ended at several lengths)


def _zeros_like_of_the_list(x, gamma):
    rewards = []
    t = 0
    while t < 50:
        rewards.append(x[t])
        t += 1
        if x[t] > 0.9:
            break
    rw = np.array(rewards)
    return np.zeros_like(rw), np.ones_like(rw) * gamma


def test_an_array_like_the_lists_array_has_its_length():
    # (session 53: np.zeros_like of a selection is a selection, as any elementwise op's; it
    # was refused with the buffer recipe)
    jitted = jc.jit(_zeros_like_of_the_list)
    for x in (np.linspace(0, 1, 60), np.linspace(0, 0.5, 60)):
        got, want = jitted(x, 0.9), _zeros_like_of_the_list(x, 0.9)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
