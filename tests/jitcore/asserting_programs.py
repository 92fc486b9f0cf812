"""Functions with asserts, for test_runtime_raises.py: in a module of their own, since pytest
rewrites the asserts of test modules (its messages would differ from Python's)."""

import numpy as np


def asserted(x, y):
    assert x.shape == y.shape  # static: checked while tracing, as Python does
    assert np.all(y != 0), "division by zero"
    return x / y


def asserted_bare(x):
    assert x.sum() > 0
    return np.log(x.sum())
