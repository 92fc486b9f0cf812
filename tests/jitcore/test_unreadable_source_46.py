"""A function whose source Python cannot give (made by exec) is traced unconverted: where that
meets an error in the user's code, jitcore says why, in its own error type (session 46; was
NumPy's bare "setting an array element with a sequence")."""

from __future__ import annotations

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError

_LOOP = """
import numpy as np
def f(img):
    out = np.zeros(img.shape[0])
    for i in range(img.shape[0]):
        out[i] = img[i].sum()
    return out
"""

_EXPRESSION = """
import numpy as np
def g(x):
    return np.sin(x) * 2 + 1
"""


def _made_by_exec(source: str, name: str):
    namespace: dict = {}
    exec(compile(source, "<made-by-exec>", "exec"), namespace)  # noqa: S102  (the case under test)
    return namespace[name]


def test_unconverted_loop_writing_a_made_array_says_why():
    f = _made_by_exec(_LOOP, "f")
    with pytest.raises(UnsupportedError, match="could not give jitcore this function's source"):
        jc.jit(f)(np.ones((3, 4)))


def test_unconverted_array_expression_still_compiles():
    g = _made_by_exec(_EXPRESSION, "g")
    x = np.linspace(0, 3, 7)
    np.testing.assert_array_equal(jc.jit(g)(x), g(x))
