"""Session 56's users' smaller refusals and messages (misc56): a selection's size set by an int
argument (u3 R1), a repeat the data sizes changed in a traced if (u1 R5), and strings in a list
of records (u3 R2)."""

import numpy as np
import pytest

import jitcore as jc


def drop_bus(Y, k):
    keep = np.arange(Y.shape[0]) != k
    return Y[keep][:, keep]


def test_a_size_set_by_an_int_names_it_static_and_np_delete():
    with pytest.raises(jc.JitTypeError) as e:
        jc.jit(drop_bus)(np.arange(16.0).reshape(4, 4), 1)
    text = str(e.value)
    assert "name it static, jit(f, static_argnames=('k',))" in text and "as a tuple" not in text, text
    assert "np.delete(x, k, axis)" in text, text
    Y = np.arange(16.0).reshape(4, 4)
    got = jc.jit(lambda Y, k: np.delete(np.delete(Y, k, 0), k, 1))(Y, 2)
    np.testing.assert_array_equal(got, drop_bus(Y, 2))


def residual(w, rng):
    n = w.size
    cnt = np.floor(n * w / w.sum()).astype(np.int64)
    idx = np.repeat(np.arange(n), cnt)
    if n - cnt.sum() > 0:
        idx = np.concatenate([idx, rng.integers(0, n, n - cnt.sum())])
    return idx


def test_a_repeat_of_data_counts_changed_in_an_if_says_how_in_the_users_words():
    with pytest.raises(jc.UnsupportedError) as e:
        jc.jit(residual)(np.array([0.5, 0.2, 0.3]), np.random.default_rng(0))
    text = str(e.value)
    assert "Repeated" not in text and "'idx' holds np.repeat(..., counts)" in text, text
    assert "np.searchsorted(np.cumsum(counts), np.arange(n), side='right')" in text, text


def admittance(branches, nb):
    Y = np.zeros((nb, nb), complex)
    for i, j, z, kind in branches:
        if kind == "shunt":
            Y[i, i] += 1 / z
        else:
            Y[i, i] += 1 / z
            Y[j, j] += 1 / z
            Y[i, j] -= 1 / z
            Y[j, i] -= 1 / z
    return Y


def test_strings_in_a_list_of_records_are_static_where_they_sit():
    f = jc.jit(admittance)
    calls = [
        [(0, 1, 0.3j, "line"), (1, 2, 0.08j, "shunt")],
        [(0, 2, 0.5j, "line"), (2, 1, 0.1j, "shunt")],  # new numbers: the same code
        ((0, 1, 0.3j, "shunt"), (1, 2, 0.08j, "line")),
    ]  # new strings (a tuple): a compile
    for k, branches in enumerate(calls):
        np.testing.assert_array_equal(f(branches, 3), admittance(branches, 3))
        assert f.cache_info().compiles == (1 if k < 2 else 2)
    refused = pytest.raises(jc.JitTypeError, match=r"branches\[0\]\[3\] is a str")
    with jc.config.using(auto_static=False), refused:  # JAX's rule: named, not made static
        jc.jit(admittance)(calls[0], 3)
