"""Module-level functions for tests/jitcore/test_pickle.py: a process started by ``spawn``
imports this module by name to find them."""

import numpy as np

import jitcore as jc


@jc.jit
def scaled_tanh(x):
    """Decorated: the module's attribute is the jitted function itself."""
    return np.tanh(x * 2.0) + 1.0


def power(x, n):
    return x ** n


jitted_power = jc.jit(power, static_argnames=("n",), fastmath=True)


def square_sum(seed):
    """What a pool worker runs: build its input, call the jitted function, return the sum."""
    x = np.random.default_rng(seed).standard_normal(64)
    return float(scaled_tanh(x).sum())


class Model:
    """A class with a jitted method, pickled with its instance."""

    def __init__(self, scale):
        self.scale = scale

    def __eq__(self, other):
        return type(other) is Model and other.scale == self.scale

    def __hash__(self):
        return hash(self.scale)

    @jc.jit
    def apply(self, x):
        return x * self.scale


class Affine:
    """A callable object of a module-level class: pickles without cloudpickle."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __call__(self, x):
        return x * self.a + self.b
