"""The cost per call of values read from outside a jitted function (session 46): a tiny
``x * v`` with ``v`` reached by each access path, in microseconds (the best of 5 x 20000
calls; session 47: arrays read directly and derived). Run it alternately on two trees
(PYTHONPATH=...) and compare medians.

    python tools/bench_call_time_reads.py
"""

from __future__ import annotations

import sys
import timeit
import types

import numpy as np

import jitcore as jc

settings = types.ModuleType("bench_settings46")
settings.__file__ = __file__  # a module of the user's, as a config.py is
settings.THR = 0.5
sys.modules[settings.__name__] = settings


class Cfg:
    thr = 0.5


L = [0.5]
T = 0.5
LIM = np.array([1.0, 1.0, 1.0, 1.0])  # session 47: an array used directly and derived (-LIM)
F = np.array([[1.0, 0.1], [0.0, 1.0]])


def helper(x):
    return x * 2.0


class Gain:
    def __init__(self):
        self.g = 2.0

    def __call__(self, x):
        return x * self.g


gain = Gain()
CASES = {
    "plain": lambda x: x * 2.0,
    "global T": lambda x: x * T,
    "helper()": lambda x: helper(x),
    "Cfg.thr": lambda x: x * Cfg.thr,
    "settings.THR": lambda x: x * settings.THR,
    "L[0]": lambda x: x * L[0],
    "gain(x)": lambda x: gain(x),
    "x * LIM": lambda x: x * LIM,
    "clip -LIM LIM": lambda x: np.clip(x, -LIM, LIM),
    "F @ P @ F.T": lambda x: F @ x.reshape(2, 2) @ F.T,
}


def main() -> None:
    x = np.ones(4)
    for name, f in CASES.items():
        jf = jc.jit(f)
        jf(x)
        us = min(timeit.repeat(lambda: jf(x), number=20000, repeat=5)) / 20000 * 1e6  # noqa: B023
        print(f"{name:14s} {us:6.2f} us")


if __name__ == "__main__":
    main()
