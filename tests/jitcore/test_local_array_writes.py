"""NumPy arrays the jitted function makes (np.zeros, np.ones, np.empty, np.full, one made in an
object's __init__) written with traced values by another function it calls: a helper given
the array, a method through self.attr. Each compared with NumPy (new-user round 45, h2 1.0:
before, the writes were lost silently)."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError


def same(f, *args):
    want = f(*[np.copy(a) for a in args])
    got = jc.jit(f)(*[np.copy(a) for a in args])
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float))
    return got


def fill_counts(counts, keys):
    for k in keys:
        counts[k] += 1


def test_helper_counts_into_local_zeros():
    def hist_keys(keys):
        counts = np.zeros(4, dtype=np.int64)
        fill_counts(counts, keys)
        return counts

    np.testing.assert_array_equal(same(hist_keys, np.array([0, 1, 1, 3])), [1, 2, 0, 1])


def fill(a, v):
    a[:] = v


def test_helper_fills_local_zeros():
    def f(x):
        a = np.zeros(3)
        fill(a, x)
        return a.sum()

    assert same(f, np.array([1.0, 2.0, 3.0])) == 6.0


def test_helper_fills_and_array_is_returned():
    def f(x):
        a = np.zeros(3)
        fill(a, x)
        return a

    same(f, np.array([1.0, 2.0, 3.0]))


def test_helper_in_place_operators():
    def scale_(a, s):
        a *= s

    def upd(a, v):
        a += v

    def f(x):
        a = np.ones(3)
        scale_(a, x)
        b = np.full(3, 2.0)
        upd(b, x)
        upd(b, x)
        return a.sum() + b.sum()

    same(f, np.array([1.0, 2.0, 3.0]))


def test_empty_then_helper():
    def f(x):
        a = np.empty(3)
        fill(a, 2 * x)
        return a.sum()

    same(f, np.array([1.0, 2.0, 3.0]))


def test_ufunc_at_in_helper():
    def add_at(h, idx, w):
        np.add.at(h, idx, w)

    def max_at(h, idx, w):
        np.maximum.at(h, idx, w)

    def f(idx, w):
        s = np.zeros(3)
        m = np.full(3, -np.inf)
        add_at(s, idx, w)
        max_at(m, idx, w)
        return s + m

    same(f, np.array([0, 2, 2, 1]), np.array([1.0, 5.0, 2.0, 3.0]))


def test_nested_helpers():
    def inner(a, v):
        a[1:] += v

    def outer(a, v):
        inner(a, v)
        inner(a, v)

    def f(x):
        a = np.zeros(3)
        outer(a, x)
        return a

    same(f, np.array([1.0, 2.0]))


def test_view_passed_to_helper():
    def f(x):
        a = np.zeros(4)
        fill(a[1:3], x)
        return a

    same(f, np.array([1.0, 2.0]))


def test_list_element_written_by_helper():
    def put(buf, v):
        buf[0][:] = v

    def f(x):
        buf = [np.zeros(2)]
        put(buf, x)
        return buf[0].sum()

    same(f, np.array([1.0, 2.0]))


def test_helper_returning_the_array_still_works():
    def fill_ret(z, v):
        z[:] = v
        return z

    def f(x):
        z = np.zeros(3)
        z = fill_ret(z, x)
        return z * 2

    same(f, np.array([1.0, 2.0, 3.0]))


def test_helper_in_loop():
    def f(xs):
        a = np.zeros(2)
        for k in range(3):
            fill(a, xs[k] + a)
        return a

    same(f, np.arange(6.0).reshape(3, 2))


class H:
    def __init__(self):
        self.counts = np.zeros(3)

    def update(self, b):
        self.counts += b


def test_method_aug_assigns_attribute():
    def g(b):
        h = H()
        h.update(b)
        return h.counts.sum()

    assert same(g, np.ones(3)) == 3.0


def test_method_updates_normalised():
    def g(bs):
        h = H()
        for b in bs:
            h.update(b)
        return h.counts / h.counts.sum()

    same(g, np.arange(6.0).reshape(2, 3) + 1)


def test_made_object_state_is_not_kept_between_calls():
    def g(b):
        h = H()
        h.update(b)
        return h.counts

    jitted = jc.jit(g)
    np.testing.assert_array_equal(jitted(np.ones(3)), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(jitted(np.ones(3)), [1.0, 1.0, 1.0])


class Running:  # as the refusal of self.n += 1 in a method advises
    def __init__(self):
        self.n = np.zeros(())
        self.mean = np.zeros(())

    def push(self, v):
        self.n[...] = self.n + 1
        self.mean[...] = self.mean + (v - self.mean) / self.n


def test_running_mean_in_zero_d_attributes():
    def run(x):
        r = Running()
        r.push(x[0])
        r.push(x[1])
        r.push(x[2])
        return float(r.mean)

    assert same(run, np.array([1.0, 2.0, 6.0])) == 3.0


def test_running_mean_in_loop():
    def run(x):
        r = Running()
        for v in x:
            r.push(v)
        return float(r.mean)

    assert same(run, np.array([1.0, 2.0, 6.0])) == 3.0


class Buf:
    def __init__(self, n):
        self.data = np.zeros(n)
        self.i = 0

    def put(self, v):
        self.data[self.i] = v


def test_method_writes_element():
    def f(x):
        b = Buf(3)
        b.put(x[0])
        return b.data.sum()

    same(f, np.array([5.0, 6.0]))


class Model:
    def __init__(self, k):
        self.w = np.ones(k)

    def step(self, g):
        self.w -= 0.1 * g
        return self.w.sum()


def test_method_gradient_step():
    def train(g):
        m = Model(3)
        losses = [m.step(g) for _ in range(3)]
        return np.array(losses), m.w.sum()

    want = train(np.ones(3))
    got = jc.jit(train)(np.ones(3))
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])


def test_other_name_of_written_array_is_refused():
    def f(x):
        a = np.zeros(3)
        b = a[:2]
        fill(a, x)
        return b.sum()

    with pytest.raises(UnsupportedError, match="'b'"):
        jc.jit(f)(np.array([1.0, 2.0, 3.0]))


def test_array_written_in_call_of_an_expression_is_read_after():
    def fill_sum(a, v):
        a[:] = v
        return v.sum()

    def f(x):
        a = np.zeros(3)
        s = fill_sum(a, x)
        return s + a.sum()

    same(f, np.array([1.0, 2.0, 3.0]))


def test_array_written_through_a_view_passed_in_an_expression_is_refused():
    def fill_sum(a, v):
        a[:] = v
        return v.sum()

    def f(x):
        a = np.zeros(4)
        s = fill_sum(a[1:], x)
        return s + a.sum()

    with pytest.raises(UnsupportedError, match="'a'.*not read again"):
        jc.jit(f)(np.array([1.0, 2.0, 3.0]))


def test_list_and_dict_items_passed_to_a_helper():
    def f(x):
        lst = [np.zeros(2)]
        d = {"s": np.ones(2)}
        fill(lst[0], x)
        fill(d["s"], 2 * x)
        return lst[0].sum() + d["s"].sum()

    same(f, np.array([1.0, 2.0]))


def test_a_list_holding_the_written_array_holds_the_copy():
    def f(x):
        a = np.zeros(2)
        lst = [a]
        fill(a, x)
        return lst[0].sum()

    same(f, np.array([1.0, 2.0]))


def test_attribute_updated_in_the_functions_own_body():
    def f(b):  # refused before session 45
        h = H()
        h.counts += b
        return h.counts.sum()

    same(f, np.ones(3))


def test_array_made_in_each_iteration_then_filled():
    def f(x):
        s = 0.0
        for v in x:
            a = np.zeros(2)
            fill(a, v)
            s += a.sum()
        return s

    same(f, np.arange(3.0))


def test_two_arrays_filled_by_one_helper():
    def f(x):
        a, b = np.zeros(2), np.ones(2)
        fill(a, x)
        fill(b, 2 * x)
        return a + b

    same(f, np.array([1.0, 2.0]))


def test_callers_other_name_of_an_attribute_written_in_a_method_is_refused():
    def f(x):
        h = H()
        c = h.counts
        h.update(x)
        return c.sum()

    with pytest.raises(UnsupportedError, match="'c' also holds"):
        jc.jit(f)(np.ones(3))


def _accumulate(sums, counts, keys, vals):
    for i in range(len(keys)):  # a traced loop in the helper
        sums[keys[i]] += vals[i]
        counts[keys[i]] += 1


def test_helper_writes_in_its_own_traced_loop():
    def group_means(keys, vals):
        sums = np.zeros(4)
        counts = np.zeros(4, dtype=np.int64)
        _accumulate(sums, counts, keys, vals)
        return sums / np.maximum(counts, 1), counts

    rng = np.random.default_rng(22)
    keys, vals = rng.integers(0, 4, 100), rng.normal(size=100)
    want = group_means(keys, vals)
    got = jc.jit(group_means)(keys, vals)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
