"""``[0.0] * n`` and ``(a, b) * k`` repeat the sequence, as Python and NumPy's scalars do: the
count is a Python int argument (made static on demand) or a NumPy int scalar; a float count is
Python's TypeError; a count from the data is refused, never broadcast as an array product."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import ConcretizationError, JitTypeError


def test_a_list_times_an_int_argument_repeats_it():
    f = jc.jit(lambda x, n: (len([0.0] * n), np.stack([x] * n), (1, 2) * n, n * [x.sum()]))
    for n in (3, 1, 3, 4):
        got = f(np.ones(2), n)
        assert got[0] == n and got[1].shape == (n, 2) and got[2] == (1, 2) * n and len(got[3]) == n


def test_a_count_from_the_data_is_refused_and_a_float_count_is_pythons_error():
    with pytest.raises(ConcretizationError, match="repeated"):
        jc.jit(lambda x: x.sum() * (1, 2))(np.arange(3))
    with pytest.raises(JitTypeError, match="can't multiply sequence by non-int"):
        jc.jit(lambda x: x.sum() * [1, 2])(np.ones(3))


def test_an_array_times_a_list_still_broadcasts():
    x = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(jc.jit(lambda x: x * [1, 2])(x), x * [1, 2])
    np.testing.assert_array_equal(jc.jit(lambda x: [3, 4] * x[0])(x), [3, 4] * x[0])
