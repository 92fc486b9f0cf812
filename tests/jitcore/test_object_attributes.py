"""Arrays and numbers held by objects that a jitted function reaches: a bound method's
``self.w``, a global object's ``model.w`` (``calltime.Recorder._note_attributes``). NumPy is
the oracle for the result and for the object afterwards. Before session 40 the first call's
attributes were constants of the code: an array changed in place or bound anew between calls,
or a number changed, was not seen (wrong answers), and ``self.buf[i] = v`` or ``self.w -= g``
raised NumPy's ValueError or an out= refusal."""

import numpy as np
import pytest

import jitcore as jc
from jitcore.errors import UnsupportedError


class LinearModel:
    def __init__(self, n):
        self.w = np.zeros(n)
        self.lr = 0.1
        self.steps = np.zeros(1, np.int64)

    def predict(self, x):
        return x @ self.w

    def step(self, x, y):
        pred = x @ self.w
        grad = x.T @ (pred - y) / len(y)
        self.w -= self.lr * grad
        self.steps[0] += 1
        return ((pred - y) ** 2).mean()


def _close(got, want):
    """Products sum in another order than BLAS's: within a few ulps."""
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _data():
    rng = np.random.default_rng(40)
    x = rng.random((20, 3))
    return x, x @ np.array([1.0, -2.0, 0.5])


def test_a_bound_method_reads_its_objects_arrays_on_each_call():
    model = LinearModel(3)
    predict = jc.jit(model.predict)
    x, _ = _data()
    _close(predict(x), model.predict(x))
    model.w[:] = 2.0  # in place
    _close(predict(x), model.predict(x))
    model.w = np.full(3, -1.5)  # bound anew
    _close(predict(x), model.predict(x))


def test_a_bound_method_updates_its_objects_arrays_in_place():
    x, y = _data()
    want, got = LinearModel(3), LinearModel(3)
    step = jc.jit(got.step)
    for _ in range(4):
        _close(step(x, y), want.step(x, y))
    _close(got.w, want.w)
    np.testing.assert_array_equal(got.steps, want.steps)
    want.lr = got.lr = 0.5  # a number attribute changed: compiled again with it
    _close(step(x, y), want.step(x, y))
    _close(got.w, want.w)


class Buffer:
    def __init__(self):
        self.buf = np.zeros(3)


SHARED = Buffer()


def write_global_objects_array(x):
    SHARED.buf[0] = x.sum()
    SHARED.buf[1:] += x[:2]
    return SHARED.buf * 2


def test_a_global_objects_array_written_and_read_back():
    x = np.arange(1.0, 4.0)
    SHARED.buf[:] = 1.0
    want = write_global_objects_array(x)
    want_buf = SHARED.buf.copy()
    SHARED.buf[:] = 1.0
    got = jc.jit(write_global_objects_array)(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(SHARED.buf, want_buf)


def test_a_traced_number_into_a_number_attribute_is_refused():
    class Counter:
        def __init__(self):
            self.total = 0.0

        def add(self, x):
            self.total += x.sum()
            return x

    with pytest.raises(UnsupportedError, match="reads from outside it, is set"):
        jc.jit(Counter().add)(np.ones(3))


def test_a_local_objects_numpy_array_written_with_traced_values_is_its_traced_copy():
    def local(x):  # refused before session 45: now the attribute holds the written copy
        holder = Buffer()
        holder.buf[1] = x[0]
        return holder.buf

    def aliased(x):
        holder = Buffer()
        kept = holder.buf
        holder.buf[1] = x[0]
        return kept

    np.testing.assert_array_equal(jc.jit(local)(np.arange(3.0) + 1), local(np.arange(3.0) + 1))
    with pytest.raises(UnsupportedError, match="while 'kept' holds it too"):
        jc.jit(aliased)(np.arange(3.0))


class Layer:
    def __init__(self, n):
        self.w = np.ones((n, n))


class Net:
    def __init__(self, n):
        self.first = Layer(n)
        self.second = Layer(n)

    def __call__(self, x):
        return np.tanh(np.tanh(x @ self.first.w) @ self.second.w)


def test_a_nested_objects_arrays_are_read_on_each_call():
    net = Net(3)
    forward = jc.jit(net.__call__)
    x = np.linspace(-1, 1, 6).reshape(2, 3)
    _close(forward(x), net(x))
    net.second.w *= -0.5
    net.first.w = np.eye(3)
    _close(forward(x), net(x))


PARAMS = {"w": np.ones(3), "b": 0.5}
LAYERS = [np.ones(3), np.full(3, 2.0)]


def dict_params(x):
    return x @ PARAMS["w"] + PARAMS["b"]


def list_params(x):
    return x @ LAYERS[1]


class Scaled:
    K = 2.0
    TABLE = np.arange(3.0)

    def apply(self, x):
        return x * self.K + self.TABLE


def test_global_dicts_lists_and_class_attributes_are_read_on_each_call():
    x = np.arange(3.0)
    obj = Scaled()
    fns = [(jc.jit(dict_params), dict_params), (jc.jit(list_params), list_params),
           (jc.jit(obj.apply), obj.apply)]
    for jitted, plain in fns:
        _close(jitted(x), plain(x))
    PARAMS["w"][:] = 3.0
    LAYERS[1][:] = 5.0
    Scaled.TABLE[:] = -1.0
    for jitted, plain in fns:
        _close(jitted(x), plain(x))
    PARAMS["w"], PARAMS["b"], LAYERS[1] = np.full(3, -1.0), 10.0, np.zeros(3)
    Scaled.K = 5.0
    for jitted, plain in fns:
        _close(jitted(x), plain(x))


class Stepper:
    def __init__(self):
        self.w = np.ones(3)
        self.t = 0

    def rebind(self, g):
        self.w = self.w - 0.1 * g
        return self.w.sum()

    def tick(self, g):
        self.t += 1
        return g * self.t


@pytest.mark.parametrize("method", ["rebind", "tick"])
def test_setting_an_attribute_of_an_object_from_outside_is_refused(method):
    """Compiled, the assignment would run once, while tracing (``self.t += 1`` counted one call
    only; ``self.w = ...`` left a traced value in the object)."""
    obj = Stepper()
    with pytest.raises(UnsupportedError, match="reads from outside it, is set"):
        jc.jit(getattr(obj, method))(np.ones(3))
    assert type(obj.w) is np.ndarray and obj.t == 0


class Result:
    pass


def test_attributes_of_an_object_made_inside_are_set_as_python_sets_them():
    def summary(x):
        r = Result()
        r.mean = x.mean()
        r.top = x.max()
        return r.mean + r.top

    x = np.arange(5.0)
    assert jc.jit(summary)(x) == summary(x)


class _Affine:
    def __init__(self, scale, offset):
        self.scale, self.offset = scale, offset

    def __call__(self, x):
        return x * self.scale + self.offset


def test_a_jitted_callable_object_reads_its_attributes_on_each_call_as_a_method_does():
    """``jit(obj)`` is ``jit(obj.__call__)``: a number rebound, an array written in place or
    rebound are each seen by the next call (they were frozen at the first trace)."""
    obj = _Affine(2.0, np.zeros(3))
    f = jc.jit(obj)
    x = np.ones(3)
    for _ in range(3):
        np.testing.assert_array_equal(f(x), obj(x))
    obj.scale = 5.0
    obj.offset[:] = 7.0
    np.testing.assert_array_equal(f(x), obj(x))
    obj.offset = np.arange(3.0)
    np.testing.assert_array_equal(f(x), obj(x))
    assert f.__name__ == "_Affine"


class _State:
    def __init__(self):
        self.flag = False
        self.total = 0.0


def _flag_if_large(x):
    s = _State()
    if np.abs(x).max() >= 1.0:
        s.flag = True
    return s.flag


def _gain(x):
    s = _State()
    s.gain = 1.0
    if x.max() > 1.0:
        s.gain = 0.5
    else:
        s.gain = 2.0
    return x * s.gain


def _smooth(x):
    s = _State()
    out = np.zeros_like(x)
    for i in range(len(x)):
        s.total = 0.5 * s.total + x[i]
        out[i] = s.total
    return out, s.total


def _sum_above(x):
    s = _State()
    for v in x:
        if v > 0.5:
            s.total += v
    return s.total


def _count_while(x):
    s = _State()
    s.n = 0
    i = 0
    while i < x.size:
        if x[i] > 0.5:
            s.n += 1
        i += 1
    return s.n


@pytest.mark.parametrize("fn", [_flag_if_large, _gain, _smooth, _sum_above, _count_while])
def test_attributes_of_a_local_object_set_in_traced_branches_and_loops_are_carried(fn):
    """An object made inside the function whose attribute a traced branch or loop sets: both
    branches were traced on the one object, so the last traced assignment won whatever the
    condition, and a loop's body saw the first step's value. Carried as variables now."""
    f = jc.jit(fn)
    for x in (np.array([0.1, -0.5, 0.3]), np.array([0.1, -5.0, 0.3]), np.linspace(0, 2, 9),
              np.linspace(0, 1, 40)):
        want, got = fn(x), f(x)
        pairs = zip(*(v if isinstance(v, tuple) else (v,) for v in (want, got)))
        for w, g in pairs:
            np.testing.assert_allclose(g, w, rtol=1e-12)  # (a type set by data: NumPy's or not)


def _nested_in_if(x):
    L = [[0]]
    if x[0] > 0:
        L[0][0] += 1
    return L[0][0]


def _nested_in_loop(x, steps):
    L = [[0, 0]]
    for _ in range(steps):
        L[0][1] += 1
    return L[0][1] + x[0]


def _dicts_in_a_list(x):
    D = [{"n": 0}, {"n": 5}]
    for v in x:
        if v > 0:
            D[1]["n"] += 1
    return D[1]["n"], D[0]["n"]


@pytest.mark.parametrize("fn, args", [
    (_nested_in_if, [(np.array([-1.0]),), (np.array([1.0]),)]),
    (_nested_in_loop, [(np.array([0.5]), 4), (np.array([0.5]), 40)]),
    (_dicts_in_a_list, [(np.array([1.0, -2.0, 3.0]),), (np.linspace(-1, 1, 40),)]),
])
def test_numbers_in_nested_containers_written_in_traced_branches_and_loops(fn, args):
    """``L[0][0] += 1`` under a traced condition or in a compiled loop: ``L`` was not state
    (the write's base was the converted ``getitem(L, 0)``), so both branches' writes ran and a
    loop's body ran once."""
    f = jc.jit(fn)
    for a in args:
        assert f(*a) == fn(*a)


class _Sim:
    def __init__(self):
        self.u = np.ones(4)
        self.t = 0.0


def _step_static(sim, dt):
    sim.u[1:] = sim.u[1:] * 2.0
    sim.t += dt
    return sim.u.sum()


class _Logged:
    def __init__(self):
        self.u = np.ones(4)
        self.log = []

    def step(self):
        self.u *= 0.5
        self.log.append(self.u.sum())
        return self.u.sum()


class _LoggedJit(_Logged):
    step = jc.jit(_Logged.step)


def test_a_static_argument_changed_while_compiling_is_refused_and_left_as_it_was():
    """A static object written by the trace (an array written with values known while tracing,
    a traced value stored in an attribute or appended to its list) was changed once, at the
    first call, and kept a tracer; later calls returned the first call's result."""
    sim = _Sim()
    with pytest.raises(UnsupportedError, match="static argument"):
        jc.jit(_step_static, static_argnums=0)(sim, 0.5)
    np.testing.assert_array_equal(sim.u, np.ones(4))
    assert type(sim.t) is float and sim.t == 0.0
    logged = _LoggedJit()
    with pytest.raises(UnsupportedError, match="static argument"):
        logged.step()
    assert logged.log == []
    reads = jc.jit(lambda s, x: s.u * x + s.t, static_argnums=0)
    np.testing.assert_array_equal(reads(sim, 2.0), sim.u * 2.0)


class _Counter:
    def __init__(self):
        self.n = 0


def _counters_in_a_list(x, steps):
    cs = [_Counter(), _Counter()]
    for _ in range(steps):
        for c in cs:
            c.n += 1
    return [c.n for c in cs]


def test_attributes_of_a_loops_target_are_not_carried_as_one_objects():
    """``for c in cs: c.n += 1``: ``c`` is another object at each step, so its attribute is not
    a variable of the loop (carrying it broke the loop: UnboundLocalError)."""
    f = jc.jit(_counters_in_a_list)
    for steps in (3, 40):
        assert f(np.zeros(2), steps) == _counters_in_a_list(np.zeros(2), steps)
