"""Session 55: a selection assigned in a traced ``if`` is carried as its values and mask
(``autograph/selection_state.py``), and ``np.hstack`` / ``np.concatenate(axis=1)`` /
``np.column_stack`` of 2-d selections by one mask is a selection of the joined rows
(``masked._side_by_side``). Both were refused."""

import numpy as np
import pytest

import jitcore as jc
from tests.oracle import assert_same_tree


def either_side(a):
    m = a[:, 0] > 0
    if a.sum() > 0:
        s = a[m]
    else:
        s = a[~m] * 2
    return s, s.sum(0), len(s)


def kept_or_all(x):
    s = x[x > 0]
    if x.sum() > 0:
        s = x
    elif x[0] < -1:
        s = s[s > 0.5]
    return s, np.sort(s)


def joined(a, b):
    m = a[:, 0] > 0
    return (
        np.hstack([a[m], b[m]]),
        np.concatenate([a[m], b[m].astype(np.float32) * 2], axis=-1).sum(0),
        np.column_stack([a[m], b[m, 0]]),
        np.hstack([a[m, 0], b[m, 1]]),
    )


def test_selections_as_state_of_a_traced_if_match_numpy():
    rng = np.random.default_rng(55)
    for n in (0, 17):
        a = rng.standard_normal((n, 3))
        b = rng.integers(-3, 3, (n, 2))
        for sign in (1.0, -1.0):
            assert_same_tree(jc.jit(either_side)(sign * a), either_side(sign * a))
            assert_same_tree(jc.jit(joined)(sign * a, b), joined(sign * a, b))
            if n == 17:  # (other layouts: one more compile)
                f, r = np.asfortranarray(sign * a), b[::-1]
                assert_same_tree(jc.jit(joined)(f, r), joined(sign * a, r))
            x = sign * rng.standard_normal(n)
            if not n:  # (x[0] of no elements: NumPy's IndexError; a kernelize crash before)
                with pytest.raises(IndexError):
                    jc.jit(kept_or_all)(x)
                continue
            x[0] = -2.0 * sign
            assert_same_tree(jc.jit(kept_or_all)(x), kept_or_all(x))


def two_arrays(x, y):
    s = x[x > 0]
    if x.sum() > 0:
        s = y[y > 0]
    return s.mean()


def with_all_rows(a, b):
    m = a[:, 0] > 0
    return np.hstack([a[m], b])


@pytest.mark.parametrize(
    "fn, words",
    [
        (two_arrays, r"'s' holds the values a boolean mask selects .* assigned in the if at .*:\d+"),
        (with_all_rows, r"numpy\.hstack of it with arrays that are not selections of rows by the same mask"),
    ],
)
def test_selections_of_two_shapes_are_refused_at_the_users_line(fn, words):
    with pytest.raises((jc.UnsupportedError, jc.JitTypeError), match=words) as e:
        jc.jit(fn)(
            np.ones((4, 2)) if fn is with_all_rows else np.ones(4),
            np.ones((4, 2)) if fn is with_all_rows else np.ones(3),
        )
    assert "test_selection_state_55.py" in str(e.value)
