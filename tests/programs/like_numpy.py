"""How the new-user program files compare a jitted result with NumPy's: the same kind (array or
scalar), dtype and shape; exact bits for integers, booleans and exactly-rounded cases; within
``rtol`` eps of the largest finite magnitude otherwise, with NaN and inf in the same places."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jitcore as jc

EXACT = 0.0


def cases_and_jitted(programs: dict) -> tuple[list, dict]:
    """A test parameter per (program, input) of ``programs`` (name: (function, static argument
    names, tolerance, inputs)), and each program jitted with its static arguments."""
    cases = [
        pytest.param(name, k, id=f"{name}-{k}")
        for name, (_, _, _, inputs) in programs.items()
        for k in range(len(inputs))
    ]
    jitted = {
        name: jc.jit(fn, static_argnames=static) if static else jc.jit(fn)
        for name, (fn, static, _, _) in programs.items()
    }
    return cases, jitted


def compare_like_numpy(got, want, rtol: float, what: str) -> None:
    assert isinstance(got, np.ndarray) == isinstance(want, np.ndarray), (
        f"{what}: {type(got).__name__} where NumPy gives {type(want).__name__}"
    )
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape), (
        f"{what}: {g.dtype}{g.shape} vs NumPy's {w.dtype}{w.shape}"
    )
    if w.dtype.kind not in "fc" or rtol == EXACT:
        np.testing.assert_array_equal(g, w, err_msg=what, strict=True)
        return
    finite = np.isfinite(w)
    np.testing.assert_array_equal(g[~finite], w[~finite], err_msg=what)
    scale = float(np.abs(w[finite]).max()) if finite.any() else 0.0
    atol = rtol * np.finfo(w.dtype).eps * scale
    np.testing.assert_allclose(g[finite], w[finite], rtol=0, atol=atol, err_msg=what)


def leaves(x, path: str):
    """A result's containers (type, size or keys, path) and its leaves (value, path), in order."""
    if isinstance(x, dict):
        return [(dict, tuple(sorted(x)), path)] + [
            leaf for k in sorted(x) for leaf in leaves(x[k], f"{path}[{k!r}]")
        ]
    if isinstance(x, (tuple, list)):
        return [(type(x), len(x), path)] + [
            leaf for i, v in enumerate(x) for leaf in leaves(v, f"{path}[{i}]")
        ]
    return [(x, path)]


def check_program(programs: dict, jitted: dict, name: str, k: int) -> None:
    """Program ``name``'s input ``k``, jitted and under NumPy (each on its own copies): the same
    containers, each leaf like NumPy's (``compare_like_numpy``), and the arguments left as
    NumPy leaves them."""
    fn, _, rtol, cases = programs[name]
    args = cases[k]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # 0/0, overflow and NaN comparisons in the edge cases
        numpys = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = fn(*numpys)
        given = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got = jitted[name](*given)
    got_leaves, want_leaves = leaves(got, "result"), leaves(want, "result")
    assert [x[:-1] for x in got_leaves if len(x) == 3] == [x[:-1] for x in want_leaves if len(x) == 3], (
        got,
        want,
    )
    assert len(got_leaves) == len(want_leaves), (got, want)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        if len(w) == 2:
            compare_like_numpy(g[0], w[0], rtol, f"{name}, input {k}, {w[1]}")
    # an argument NumPy's run wrote into (u[1:-1] = ...) must hold what NumPy's copy holds
    for i, (g, w) in enumerate(zip(given, numpys, strict=True)):
        if isinstance(w, np.ndarray):
            compare_like_numpy(g, w, EXACT, f"{name}, input {k}, argument {i} after the call")


def check_edge(fn, args: tuple, rtol: float, case: str) -> None:
    """``fn`` on edge-case ``args`` (NaN, inf, empty), jitted and under NumPy, warnings off:
    the same number of leaves, each like NumPy's."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # NumPy's All-NaN slice and 0/0 warnings
        want, got = fn(*args), jc.jit(fn)(*args)
    got_leaves, want_leaves = leaves(got, "result"), leaves(want, "result")
    assert len(got_leaves) == len(want_leaves), (got, want)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        if len(w) == 2:
            compare_like_numpy(g[0], w[0], rtol, f"{case}, {w[1]}")


def check_refusal(fn, args: tuple, error: type, words: str) -> None:
    """``fn`` jitted on ``args`` raises jitcore's ``error`` with ``words`` in its message."""
    with pytest.raises(error, match=words):
        jc.jit(fn)(*args)
