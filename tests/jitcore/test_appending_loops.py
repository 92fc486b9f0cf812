"""A loop that appends to a list compiles as a loop (``autograph/appending.py``): the rows are
carried as an array, ``np.array``/``np.stack``/``np.concatenate`` of the list read it whole,
and everything else a program does with the list afterwards sees Python's list."""

import numpy as np

import jitcore as jc
from tests.oracle import assert_matches


def _traced_ops(fn, *args) -> int:
    return jc.jit(fn).lower(*args).as_text("optimized").count(" = ")


def _same(got, want):
    """The same Python types all the way down, and NumPy's values exactly."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, (np.ndarray, np.generic)):
        assert_matches(got, want)
    else:
        assert got == want


def _each(fn, *arg_sets):
    for args in arg_sets:
        _same(jc.jit(fn)(*args), fn(*args))


def test_the_body_is_traced_once_whatever_the_length():
    def f(x):
        out = []
        for i in range(x.shape[0]):
            out.append(x[i] ** 2 + 1)
        return np.array(out)

    short, long = _traced_ops(f, np.zeros(100)), _traced_ops(f, np.zeros(300))
    assert long < 40 and long == short  # unrolled: one copy of the body per step
    _each(f, (np.linspace(-1, 2, 300),), (np.arange(5.0),), (np.arange(100, dtype=np.float32),))


def test_python_numbers_rows_and_a_list_that_held_items_before():
    def f(x):
        a, b = [0.0], []
        for i in range(1, len(x)):
            a.append(float(x[i] - x[i - 1]))  # Python floats
            b.append(i)  # the loop's index: Python ints
            b.append(-i)
        return np.array(a), np.array(b), a[:3], b[-1], sum(b), type(a[1]).__name__

    _each(f, (np.linspace(0, 1, 200) ** 2,), (np.arange(90.0),))


def test_rows_of_arrays_stack_and_concatenate():
    def f(X):
        rows, pieces = [], []
        for i in range(X.shape[0]):
            rows.append(X[i] - X[i].mean())
            pieces.append(X[i, :2] * 2)
        return (np.array(rows), np.stack(rows), np.stack(rows, axis=1), np.vstack(rows),
                np.concatenate(pieces), np.array(rows, dtype=np.float32))

    rng = np.random.default_rng(0)
    _each(f, (rng.standard_normal((150, 3)),), (rng.standard_normal((80, 4)),))


def test_the_list_is_the_same_object_and_a_list_argument_is_written_back():
    def f(x, log):
        for v in x:
            log.append(v * 2)
        return len(log)

    x, log = np.linspace(0, 1, 100), [1.0]
    n = jc.jit(f)(x, log)
    assert n == 101 and len(log) == 101 and log[0] == 1.0
    np.testing.assert_array_equal(np.array(log[1:]), x * 2)


def test_carried_values_and_two_loops_into_one_list():
    def f(x):
        acc, hist = 0.0, []
        for i in range(len(x)):
            acc = 0.9 * acc + x[i]
            hist.append(acc)
        for i in range(len(x)):
            hist.append(-x[i])
        return np.array(hist), acc, max(hist), sorted(hist)[:2]

    _each(f, (np.linspace(-1, 1, 120),), (np.arange(70.0),))


def test_what_cannot_be_rows_stays_python_or_is_refused_as_before():
    def tuples(x):
        out = []
        for i in range(len(x)):
            out.append((x[i], i))
        return [a for a, _ in out]

    _each(tuples, (np.arange(80.0),))

    def conditional(x):
        out = []
        for i in range(len(x)):
            if x[i] > 0:
                out.append(x[i])
        return out

    # appended under a traced if: rows and a mask of those kept, the list trimmed (session 47)
    _each(conditional, (np.arange(80.0) - 40,))


def test_a_trajectory_reads_its_last_row_and_stacks_without_stacking_each_row():
    def euler(y0, dt):
        ys = [y0]
        for _ in range(400):
            y = ys[-1]  # the last row, carried by the loop
            ys.append(y + dt * np.array([y[1], -y[0]]))
        return np.stack(ys), ys[-1]

    def doubled(x):
        out = []
        for i in range(len(x)):
            out.append(x[i])
            out.append(out[-1] * 2)
        return np.array(out)

    _each(euler, (np.array([1.0, 0.0]), 0.01))
    _each(doubled, (np.linspace(0, 1, 200),))
    assert _traced_ops(euler, np.array([1.0, 0.0]), 0.01) < 150  # np.stack read the rows' array
