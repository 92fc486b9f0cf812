"""Issue 10, item 3: a broadcast outer form such as exp(-(p[:, None] - q[None, :]) ** 2) is one
kernel, vectorized along the inner dim with the row's p[i] broadcast once (a splat), and equal
to NumPy. Host-independent: any vector of at least 2 lanes counts."""

import re

import numpy as np
import pytest

import jitcore as jc


def gauss(p, q):
    return np.exp(-(p[:, None] - q[None, :]) ** 2)


@pytest.mark.parametrize("dtype, element", [(np.float32, "float"), (np.float64, "double")])
def test_outer_form_is_one_vector_kernel(dtype, element):
    rng = np.random.default_rng(11)
    p, q = rng.standard_normal(37).astype(dtype), rng.standard_normal(301).astype(dtype)
    lowered = jc.jit(gauss).lower(p, q)
    assert lowered.as_text("optimized").count("kernel.generic") == 1
    text = lowered.as_text("llvm-opt")
    widths = [int(w) for w in re.findall(rf"= fsub(?: \w+)* <(\d+) x {element}>", text)]
    assert any(w >= 2 for w in widths), "the inner dim did not vectorize"
    assert re.search(rf"insertelement <\d+ x {element}> \w+, {element} %", text), "no splat of p[i]"
    got, want = jc.jit(gauss)(p, q), gauss(p, q)
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(dtype).eps, atol=0)
