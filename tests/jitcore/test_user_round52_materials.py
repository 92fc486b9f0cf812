"""A materials-science user's report, round 52 (u2), each against plain Python + NumPy.

- R1/S1: ``if a and f(i) == i:`` where ``f`` writes an enclosing array was refused, and
  ``if cond and rng.random() < p:`` ran slower than Python: ``and``/``or``/``not`` in an ``if``
  test are now branches on the operands (``autograph/conditions.py``), the right side evaluated
  (its writes and draws made) only where the left allows, as nested ifs.
- C1: ``q[i + 1:][r < rc]`` (a slice of traced start masked by a mask of the same positions)
  raised about a ``slice(None, None, -1)`` the user never wrote, after unrolling the loop where
  it could (40 atoms: 17 s to compile): now the positions both keep (``masked._masked_by``).
- R2: ``for j in keep:`` inside the loop that appends to ``keep`` under a traced ``if`` was refused
  saying appends need a for loop over a range (it was in one): the refusal now names the ``for``
  that iterates over the growing list and the array-and-count recipe.
- Found on the way: ``while rng.random() < p:`` (or ``while c < 5 and rng.random() < p``) drew
  its first test twice (the test traced to see if it is traced, then again as the loop's check):
  counts one off NumPy's. Such a loop now takes the first test's value (``statements._tested``).
  ``while i < n and find(i) == i`` (find writing an enclosing array) compiles: the test is an
  ``if`` of the loop's body (``conditions.tests_in_bodies``).
"""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import jitcore as jc
from jitcore.autograph import conditions


def count_roots(occ, parent_in):
    parent = parent_in.copy()

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]  # path halving: writes the enclosing array
            a = parent[a]
        return a

    roots = 0
    for i in range(parent.shape[0]):
        if occ[i] == 0 and find(i) == i:
            roots += 1
    return roots, parent


def test_and_calls_a_helper_that_writes_an_enclosing_array():
    occ = np.array([0, 1, 0, 0, 0, 0, 1, 0])
    par = np.array([0, 0, 1, 2, 3, 5, 5, 6])
    expected = count_roots(occ, par)
    got = jc.jit(count_roots)(occ, par)
    assert got[0] == expected[0]
    np.testing.assert_array_equal(got[1], expected[1])  # find ran only where occ[i] == 0


def forms(x, counts, rng):
    log = counts.copy()  # (traced: a helper's write to an array of constants is a Python effect)

    def hit(k, v):  # counts how often each right operand runs
        log[k] += 1
        return v

    n = 0
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0 and hit(0, v < 0.5) and rng.random() < 0.6:  # a chain, a write and a draw
            n += 1
        if v > 0.8 or hit(1, v < -0.5):  # or, with a body
            n += 10
        if v > 0 and hit(2, rng.random() < 0.5):  # and, with an else
            n += 100
        else:
            n -= 1
        if not (v < 0 or hit(3, v > 0.3)):  # not of or
            n += 1000
        if (v > 0 or hit(4, v < -0.2)) and not hit(5, v > 0.9):  # mixed, then an elif
            n += 10000
        elif v < -0.9 and hit(6, True):
            n -= 100000
        assert v > -2 and hit(7, v < 2), "out of range"
    return n, log


@pytest.mark.parametrize("seed", [0])
def test_and_or_not_short_circuit_as_python(seed):
    jitted = jc.jit(forms)
    for k in range(4):
        x = np.random.default_rng(seed + k).uniform(-1, 1, 9 + k)
        x[0], x[-1] = 0.95, -0.95
        r_py, r_jit = np.random.default_rng(k), np.random.default_rng(k)
        n, log = forms(x, np.zeros(8, np.int64), r_py)
        n_j, log_j = jitted(x, np.zeros(8, np.int64), r_jit)
        assert n == n_j
        np.testing.assert_array_equal(log, log_j)  # each right side ran exactly where Python ran it
        assert r_py.random() == r_jit.random()  # and drew exactly Python's draws
    with pytest.raises(AssertionError):
        jitted(np.array([0.5, 3.0]), np.zeros(8, np.int64), np.random.default_rng(0))


def _converted(src: str) -> str:
    fn = ast.parse(textwrap.dedent(src)).body[0]
    conditions.split_conditions(fn)
    return ast.dump(fn)


def test_and_without_else_is_the_nested_form():
    chained = _converted("""
        def f(a, b, c):
            if a and (b or c) and not c:
                g()
    """)
    nested = _converted("""
        def f(a, b, c):
            if a:
                if b or c:
                    if not c:
                        g()
    """)
    assert chained == nested
    assert "__ag_cond" in chained  # b or c with a body: its truth in a flag, the body once
    plain = _converted("""
        def f(a, b):
            if a and b:
                g()
            if not (a or b):
                h()
    """)
    assert plain == _converted("""
        def f(a, b):
            if a:
                if b:
                    g()
            if not a:
                if not b:
                    h()
    """)


def pairs_within(pos, q, L, rc, nbins):
    """The pairs j > i of an Ewald real-space sum and an RDF, as a user writes them."""
    e, count = 0.0, 0
    h = np.zeros(nbins, np.int64)
    hh = np.zeros(nbins, np.int64)
    for i in range(pos.shape[0] - 1):
        d = pos[i + 1 :] - pos[i]
        d -= L * np.round(d / L)
        r = np.sqrt((d * d).sum(1))
        m = r < rc
        e += np.sum(q[i] * q[i + 1 :][m] / r[m]) + q[i + 1 :][m].sum()
        count += len(q[i + 1 :][m])
        k = (r / rc * nbins).astype(np.int64)
        k = k[k < nbins]
        h += np.bincount(k, minlength=nbins)
        hh += np.histogram(r[m], bins=nbins, range=(0.0, rc))[0]
    return e, count, h, hh


def test_masked_slice_of_traced_start_compiles_as_a_loop():
    jitted = jc.jit(pairs_within)
    for n in (0, 9):
        pos = np.random.default_rng(n).random((n, 3)) * 5
        q = np.random.default_rng(n + 1).standard_normal(n)
        expected, got = pairs_within(pos, q, 5.0, 2.0, 8), jitted(pos, q, 5.0, 2.0, 8)
        assert got[0] == pytest.approx(expected[0], rel=1e-12) and got[1] == expected[1]
        np.testing.assert_array_equal(got[2], expected[2])
        np.testing.assert_array_equal(got[3], expected[3])
    assert "scf.for" in str(jc.make_ir(pairs_within)(pos, q, 5.0, 2.0, 8))  # a loop, not unrolled


def test_masked_slice_by_a_mask_of_other_positions_raises():
    def apart(q, r, i):
        return q[i + 1 :][r[i:-1] < 3.0].sum()  # NumPy pairs them in order; jit refuses, saying so

    with pytest.raises(IndexError, match="same bounds"):
        jc.jit(apart)(np.arange(6.0), np.array([1.0, 4.0, 2.0, 5.0, 1.0, 0.0]), 0)


def test_iterating_the_list_the_loop_appends_to_compiles():
    def unique_sites(x, tol):
        keep = []
        for i in range(x.shape[0]):
            dup = False
            for j in keep:  # reads the list being built
                if abs(x[i] - x[j]) < tol:
                    dup = True
                    break
            if not dup:
                keep.append(i)
        return np.array(keep)

    # (refused until session 55: compiled, keep is a growing buffer and its count, appending.py)
    x = np.array([0.1, -0.2, 0.1, 0.3, 0.3])
    np.testing.assert_array_equal(jc.jit(unique_sites)(x, 1e-3), unique_sites(x, 1e-3))


def draws_in_while_tests(n, rng):
    a = 0
    while rng.random() < 0.7:
        a += 1
    b = 0
    while b < 5 and rng.random() < 0.7:
        b += 1
    c = 0
    while rng.random() < 0.6 and n > c:
        c += 1
    return a, b, c


def test_a_draw_in_a_while_test_is_drawn_once_per_test():
    jitted = jc.jit(draws_in_while_tests)
    for seed in range(6):
        r_py, r_jit = np.random.default_rng(seed), np.random.default_rng(seed)
        assert jitted(4, r_jit) == draws_in_while_tests(4, r_py)
        assert r_py.random() == r_jit.random()


def union_find_walks(occ, parent_in):
    parent = parent_in.copy()

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    i = 0
    while i < parent.shape[0] and find(i) == i:  # the loop's test: an if of its body
        i += 1
    roots = 0
    for j in range(parent.shape[0]):
        is_root = occ[j] == 0 and find(j) == j  # a value: refused, saying what to write
        roots += is_root
    return i, roots, parent


def test_a_write_on_the_right_of_and_in_a_while_test_compiles_and_in_a_value_is_refused():
    par = np.array([0, 1, 2, 2, 3, 5, 5, 6])
    with pytest.raises(jc.JitTypeError, match="right operand of 'and'/'or'.*'v = a' then 'if v: v = f"):
        jc.jit(union_find_walks)(np.zeros(8, np.int64), par)

    def first_root(parent_in):
        parent = parent_in.copy()

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        i = 0
        while i < parent.shape[0] and find(i) == i:
            i += 1
        return i, parent

    expected, got = first_root(par), jc.jit(first_root)(par)
    assert got[0] == expected[0]
    np.testing.assert_array_equal(got[1], expected[1])
