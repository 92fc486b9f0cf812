"""How the new-user program files compare a jitted result with NumPy's: the same kind (array or
scalar), dtype and shape; exact bits for integers, booleans and exactly-rounded cases; within
``rtol`` eps of the largest finite magnitude otherwise, with NaN and inf in the same places."""

from __future__ import annotations

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
