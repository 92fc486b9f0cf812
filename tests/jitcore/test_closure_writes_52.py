"""Session 52: a nested function or lambda writing, through its closure, an array the jitted
function made with NumPy (``log = np.zeros(4)``; ``def hit(k): log[k] += 1``), called inside a
loop or branch whose bounds or condition are traced. The write ran once, while tracing (log[1]
was 2 where NumPy gives 8); each case here is checked against NumPy running the same code."""

import numpy as np
import pytest

import jitcore as jc


def _log_in_nested_ifs(x):  # the reproducer: a helper called in the test of an inner if
    log = np.zeros(4, np.int64)

    def hit(k, v):
        log[k] += 1
        return v

    n = 0
    for i in range(x.shape[0]):
        if x[i] < 0.8:
            if hit(1, x[i] < -0.5):
                n += 10
    return n, log


def _helper_in_traced_if(x):  # unrolled loop, traced branch: not taken at x[i] >= 0.8
    log = np.zeros(4, np.int64)

    def hit(k):
        log[k] += 1

    for i in range(x.shape[0]):
        if x[i] < 0.8:
            hit(1)
    return log


def _helper_in_while(x):
    log = np.ones(3)

    def hit(k):
        log[k] *= 2

    i = 0
    while i < x.shape[0] and x[i] < 0.9:
        hit(0)
        i += 1
    return log


def _arange_both_branches(x):
    log = np.arange(5)

    def hit(k):
        log[k] -= 1

    for i in range(x.shape[0]):
        if x[i] > 0:
            hit(0)
        else:
            hit(4)
    return log


def _full_loop_over_values(x):
    log = np.full((2, 2), 7.0)

    def hit(k):
        log[k, k] = log[k, k] + 1

    for v in x:
        if v > 0:
            hit(1)
    return log


def _array_slice_write(x):
    log = np.array([1, 2, 3])

    def hit():
        log[:] += 1

    for i in range(x.shape[0]):
        if x[i] > 0:
            hit()
    return log


def _helper_through_helper(x):
    log = np.zeros(3, np.int64)

    def inner(k):
        log[k] += 1

    def outer(k):
        inner(k)

    for i in range(x.shape[0]):
        if x[i] < 0.5:
            outer(0)
    return log


def _view_written(x):
    log = np.zeros(4, np.int64)
    v = log[1:3]

    def hit():
        v[0] += 1

    for i in range(x.shape[0]):
        if x[i] < 0.8:
            hit()
    return log


class _Counter:
    def __init__(self):
        self.counts = np.zeros(3, np.int64)

    def hit(self, k):
        self.counts[k] += 1


def _method_of_object(x):
    c = _Counter()
    for i in range(x.shape[0]):
        if x[i] < 0.8:
            c.hit(1)
    return c.counts


CASES = [
    _log_in_nested_ifs,
    _helper_in_traced_if,
    _helper_in_while,
    _arange_both_branches,
    _full_loop_over_values,
    _array_slice_write,
    _helper_through_helper,
    _view_written,
    _method_of_object,
]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__.strip("_"))
def test_closure_write_matches_numpy(f):
    x = np.random.default_rng(0).uniform(-1, 1, 9)
    x[3] = 0.95  # a step where the outer branch is not taken
    jf = jc.jit(f)
    for data in (x, -x):  # a second call: the compiled code, not the trace, does the writes
        want, got = f(data), jf(data)
        for w, g in zip(
            want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)
        ):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype


# Writes the conversion does not see (a NumPy call on the closure's array, an item of a dict),
# found only by the array's values changing while the body was traced (closure_writes).
def _add_at(x):
    log = np.zeros(4, np.int64)

    def hit(k):
        np.add.at(log, k, 1)

    for i in range(x.shape[0]):
        if x[i] < 0.8:
            hit(1)
    return log


def _lambda_add_at(x):
    log = np.zeros(4, np.int64)
    hit = lambda k: np.add.at(log, k, 1)  # noqa: E731
    for i in range(x.shape[0]):
        if x[i] < 0.8:
            hit(2)
    return log


def _fill_and_out(x):
    a, b = np.zeros(3), np.zeros(2)

    def hit():
        a.fill(5.0)
        np.add(b, 1, out=b)

    for i in range(x.shape[0]):
        if x[i] > 0:
            hit()
    return a, b


def _dict_item(x):
    d = {"n": np.zeros(2)}

    def hit():
        d["n"][0] += 1

    for i in range(x.shape[0]):
        if x[i] > 0:
            hit()
    return d["n"]


def _traced_value(x):
    log = np.zeros(4)

    def hit(k, v):
        log[k] += v

    for i in range(x.shape[0]):
        if x[i] < 0.8:
            hit(1, x[i])
    return log


def _counted_while_add_at(x):  # a trial run of the body (statements._trial) wrote it once more
    log = np.zeros(3, np.int64)

    def hit(k):
        np.add.at(log, k, 1)

    i = 0
    while i < x.shape[0] and x[i] < 0.9:
        hit(2)
        i += 1
    return log


def _add_at_traced(x):  # traced indices and values: a traced copy, not a refusal (before 52)
    log, top = np.zeros(3), np.zeros(3)

    def hit(k, v):
        np.add.at(log, k, v)

    def first(k):
        np.add.at(top, k, x[0])

    first(int(x[1] > 0))  # outside any traced statement
    for i in range(x.shape[0]):
        hit(int(x[i] > 0), 1.0)
        if x[i] < 0.5:
            hit(2, x[i])
    return log, top


def _traced_writes_outside_loops(x):  # traced writes by subscript and out=, once and in a loop
    log, acc = np.zeros(4), np.zeros(3)

    def hit(k, v):
        log[k] += v

    def add(v):
        np.add(acc, v, out=acc)

    hit(1, x[0])
    s = log.sum()  # read after the write: the traced copy
    for i in range(x.shape[0]):
        if x[i] > 0:
            add(x[i])
    return log, acc, s


@pytest.mark.parametrize(
    "f",
    [
        _add_at,
        _lambda_add_at,
        _fill_and_out,
        _dict_item,
        _traced_value,
        _counted_while_add_at,
        _add_at_traced,
        _traced_writes_outside_loops,
    ],
    ids=lambda f: f.__name__.strip("_"),
)
def test_unseen_closure_write_matches_numpy(f):
    test_closure_write_matches_numpy(f)


G_LOG = np.zeros(3, np.int64)


def _bump_global(k):
    np.add.at(G_LOG, k, 1)


def test_helper_add_at_into_global_matches_numpy():  # the caller's array: its call-time input
    def f(x):
        for i in range(x.shape[0]):
            if x[i] > 0:
                _bump_global(1)
        return x

    x = np.linspace(-1, 1, 5)
    G_LOG[:] = 0
    f(x)
    f(x)
    want = G_LOG.copy()
    G_LOG[:] = 0
    jf = jc.jit(f)
    jf(x)
    jf(x)
    np.testing.assert_array_equal(G_LOG, want)
