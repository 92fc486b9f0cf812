"""Session 50: compile time of ordinary programs. Differential: each jitted result against the
same function run by plain Python + NumPy (values, dtypes, Python types, the arguments after
the call), plus the structure that makes the compile short (no timing assertions).

1. A contraction over one axis of a ``(2,) * n`` tensor (``np.tensordot`` then
   ``np.moveaxis``, a gate layer) is a loop nest of rank 5 at most, not
   ``n + 1`` loops of 2 each: ``schedule._collapsed_dims`` merges adjacent parallel dims that
   every operand reads alike.
2. A Kronecker chain (a loop carry whose shape changes each step) runs unrolled where the
   loop's own steps allow, and is refused with ``LoopCarryShapeError`` past them.
3. A returned list of an appending loop's rows is one output, split into the list by the host;
   a short comprehension whose items are cheap still runs in Python."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitcore as jc
from jitcore.codegen.cpu import schedule
from jitcore.ir.dialects import kernel


def same(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            same(got[k], want[k])
        return
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def check(f, *args, static=()):
    """f's jitted result against f's, the arguments unchanged alike; the jitted function."""
    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = f(*fresh)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    jf = jc.jit(f, static_argnums=static, cache=False)
    same(jf(*copies), want)
    for a, c in zip(fresh, copies):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, c)
    return jf


def kernels(f, *args, static=()):
    module = jc.jit(f, static_argnums=static, cache=False).lower(*args).optimized()
    return [op for op in module.walk() if isinstance(op, kernel.GenericOp)]


# --- 1. gate layers: one contraction per qubit ---

def layer(psi, U):
    n = int(np.log2(psi.size))
    st = psi.reshape((2,) * n)
    for q in range(n):
        st = np.moveaxis(np.tensordot(U, st, axes=(1, q)), 0, q)
    return st.reshape(-1)


def gate_on(psi, U, q):
    n = int(np.log2(psi.size))
    st = np.moveaxis(np.tensordot(U, psi.reshape((2,) * n), axes=(1, q)), 0, q)
    return st.reshape(-1)


H = np.array([[1, 1], [1, -1]], dtype=complex) / np.sqrt(2)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_gate_layer_matches_numpy(n):
    rng = np.random.default_rng(n)
    psi = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    check(layer, psi, H)


@given(n=st.integers(1, 8), q=st.integers(0, 7), real=st.booleans(), seed=st.integers(0, 99))
@settings(max_examples=15, deadline=None)
def test_one_gate_on_any_qubit_matches_numpy(n, q, real, seed):
    rng = np.random.default_rng(seed)
    psi = rng.normal(size=2**n)
    U = rng.normal(size=(2, 2))
    if not real:
        psi, U = psi + 1j * rng.normal(size=2**n), U + 1j * rng.normal(size=(2, 2))
    check(gate_on, psi, U, q % n, static=(2,))


def test_each_gate_is_a_nest_of_rank_five_or_less():
    psi = np.ones(2**10, complex)
    contractions = [op for op in kernels(layer, psi, H) if op.has_reduction]
    assert len(contractions) == 10
    for op in contractions:
        assert len(op.domain()) == 11
        groups = schedule._scheduled_domain(op, [False] * (len(op.operands) + len(op.results)), False)[0]
        assert len(groups) <= 5, op.domain()  # left, gate, sum, middle, right


# --- parallel dims merged where every operand reads them alike, and only there ---

def transposed_sum(x):
    return np.transpose(x, (2, 3, 0, 1)) + 1.0


def middle_axis_sum(x):
    return x.sum(axis=2)


def sliced_plus(x):
    return x[:, 1:, :3, :] * 2.0 + x[:, :-1, 2:5, :]


def broadcast_rows(x, v):
    return x * v[:, None, None] + v[None, None, :2]


def einsum_batched(a, b):
    return np.einsum("iabj,bc->iacj", a, b)


@pytest.mark.parametrize("f, shapes", [
    (transposed_sum, [(2, 3, 4, 5)]),
    (middle_axis_sum, [(2, 3, 4, 5, 6)]),
    (sliced_plus, [(3, 4, 6, 6)]),
    (broadcast_rows, [(2, 3, 2), (2,)]),
    (einsum_batched, [(3, 2, 4, 5), (4, 3)]),
])
def test_merged_nests_match_numpy(f, shapes):
    rng = np.random.default_rng(7)
    check(f, *[rng.normal(size=s) for s in shapes])


@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=6), axis=st.integers(0, 5),
       seed=st.integers(0, 99))
@settings(max_examples=20, deadline=None)
def test_any_single_axis_contraction_matches_numpy(shape, axis, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    axis %= len(shape)
    m = rng.normal(size=(3, shape[axis]))

    def f(x, m):
        return np.moveaxis(np.tensordot(m, x, axes=(1, axis)), 0, axis)

    check(f, x, m)


# --- 2. a Kronecker chain: a carry whose shape changes each step runs unrolled ---

SZ = np.diag([1.0, -1.0])


def op_at(op, i, n):
    out = np.ones((1, 1))
    for k in range(n):
        out = np.kron(out, op if k == i else np.eye(2))
    return out


def kron_chain_i(x, i, n):
    return op_at(x, i, n)


def zz_chain(n):
    H = np.zeros((2**n, 2**n))
    for i in range(n - 1):
        H -= op_at(SZ, i, n) @ op_at(SZ, i + 1, n)
    return np.diag(H)


def grown_by_concatenate(x, n):
    out = x[:1]
    for _k in range(n):
        out = np.concatenate([out, out * 0.5 + x[: out.size]])[: x.size]
    return out


def test_kron_chain_with_a_traced_position_matches_numpy_past_eight_factors():
    check(kron_chain_i, np.diag([1.0, -1.0]), 3, 10, static=(2,))


def test_spin_chain_hamiltonian_matches_numpy_at_nine_sites():
    check(zz_chain, 9, static=(0,))


def test_array_grown_by_concatenate_matches_numpy():
    check(grown_by_concatenate, np.arange(40.0), 6, static=(1,))


def grown_long(x, n):
    out = x[:1]
    for _k in range(n):
        out = np.concatenate([out, x[:1] * 2.0])
    return out


def test_a_long_loop_whose_carry_grows_is_refused_saying_what_to_write():
    with pytest.raises(jc.errors.LoopCarryShapeError, match="changes each step") as info:
        jc.jit(grown_long, static_argnums=1, cache=False)(np.ones(3), 100)
    assert isinstance(info.value, jc.errors.JitTypeError)
    assert "cast it" not in str(info.value)


# --- 3. a returned list of an appending loop's rows is its array, split by the host ---

def kepler_per_orbit(M, e):
    out = np.empty_like(M)
    iters = []
    for k in range(len(M)):
        E = M[k]
        n = 0
        while True:
            dE = (E - e[k] * np.sin(E) - M[k]) / (1.0 - e[k] * np.cos(E))
            E = E - dE
            n += 1
            if abs(dE) < 1e-13:
                break
        out[k] = E
        iters.append(n)
    return out, iters


def numpy_scalars(x):
    out = []
    for k in range(x.shape[0]):
        out.append(x[k] * 2.0)
    return {"vals": out, "n": len(out)}


def rows_of(x):
    return [np.cumsum(x[k]) for k in range(x.shape[0])]


def comprehension_list(x):
    return [x[k:k + 3].sum() for k in range(x.size - 3)]


def kernels_counted(f, *args):
    if isinstance(f, jc.api.JitFunction):
        module = f.lower(*args).optimized()
        return sum(1 for op in module.walk() if isinstance(op, kernel.GenericOp))
    return sum(1 for _ in kernels(f, *args))


def check_many_calls(f, *args):
    """Four calls (the later ones take the native call's path), each against NumPy's."""
    jf = check(f, *args)
    for _ in range(3):
        same(jf(*[a.copy() for a in args]), f(*args))


@pytest.mark.parametrize("n", [1, 7, 8, 60])
def test_kepler_list_of_python_ints_matches_python(n):
    rng = np.random.default_rng(n)
    check_many_calls(kepler_per_orbit, rng.uniform(0, 6, n), rng.uniform(0, 0.9, n))


@given(n=st.integers(0, 90), seed=st.integers(0, 99))
@settings(max_examples=10, deadline=None)
def test_lists_of_numpy_scalars_and_rows_match_python(n, seed):
    rng = np.random.default_rng(seed)
    check_many_calls(numpy_scalars, rng.normal(size=n))
    check_many_calls(rows_of, rng.normal(size=(n, 3)))


@pytest.mark.parametrize("n", [5, 12, 100])
def test_a_long_comprehension_returned_matches_python(n):
    check_many_calls(comprehension_list, np.arange(float(n)))


def test_the_returned_list_costs_no_kernel_per_item():
    rng = np.random.default_rng(0)
    small = kernels_counted(kepler_per_orbit, rng.uniform(0, 6, 20), rng.uniform(0, 0.9, 20))
    large = kernels_counted(kepler_per_orbit, rng.uniform(0, 6, 400), rng.uniform(0, 0.9, 400))
    assert large == small


def zero_d_constant(x):
    return x + 1, np.array(7)


def test_a_returned_zero_d_constant_stays_zero_d_on_every_call():
    check_many_calls(zero_d_constant, np.ones(3))


# --- 3b. autocorr: a short comprehension of shifted dots (still unrolled: docs/performance.md) ---

def autocorr(x, maxlag):
    x = x - x.mean()
    c0 = np.dot(x, x)
    return np.array([np.dot(x[: len(x) - k], x[k:]) / c0 for k in range(maxlag)])


def autocorr_list(x, maxlag):
    return [float(np.dot(x[: len(x) - k], x[k:])) for k in range(maxlag)]


def short_cheap(x):
    return [x[k] * 2.0 for k in range(5)]


@pytest.mark.parametrize("maxlag", [1, 3, 20, 40])
def test_autocorr_matches_numpy(maxlag):
    check(autocorr, np.random.default_rng(maxlag).normal(size=300), maxlag, static=(1,))


@given(n=st.integers(45, 120), maxlag=st.integers(2, 40), seed=st.integers(0, 99))
@settings(max_examples=10, deadline=None)
def test_autocorr_list_of_floats_matches_python(n, maxlag, seed):
    check(autocorr_list, np.random.default_rng(seed).normal(size=n), maxlag, static=(1,))


def test_a_short_cheap_comprehension_still_runs_in_python():
    check(short_cheap, np.arange(6.0))
    module = jc.jit(short_cheap, cache=False).lower(np.arange(6.0)).traced
    assert "scf." not in str(module)
